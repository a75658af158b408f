"""AlphaZero for any game of the engine contract, 2 to 4 players, with chance.

Each iteration: the runner's self-play workers play ``games_per_iteration`` games with the
current weights (PUCT or Gumbel search, batched over concurrent games; in a share of the games
the other seats are a past snapshot from the pool or an opponent agent) -> their samples
(policy targets from the search, or the fading teacher's; value targets from the outcome, mixed
with the search's value) go to the replay buffer -> the learner takes ``sample_reuse`` passes'
worth of gradient steps -> the new weights go to the workers with the next round. Before the
first iteration, the warm start (optional, training/warmstart.py). The loop around these steps
(limits, evaluation, checkpoints, a clean stop) is training/trainer.py. A game's seed is a
function of the run seed and the game's number, so a resumed run repeats an uninterrupted one
step for step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Annotated

import numpy as np

import envs
from agents.network import Acting, NetworkAgent
from models.evaluator import NetworkEvaluator
from models.features import make_encoder
from models.nets import ModelConfig, network_for
from models.symmetry import augmenter, symmetries
from search.puct import SearchConfig
from training.algorithm import LoopConfig, NetworkAlgorithm, Step
from training.alphazero.selfplay import Round, SelfPlay, SelfPlayConfig, SelfPlayGame
from training.learner import Learner, LearnerConfig
from training.pool import OpponentPool, PoolConfig
from training.replay import ReplayBuffer, Samples
from training.rewards import Outcomes, RewardConfig
from training.runner import make_runner
from training.saving import numpy_rng_state, restore_numpy_rng
from training.warmstart import WarmStartConfig, warm_start


@dataclass(frozen=True)
class ReplayConfig:
    capacity: Annotated[int, ">= 1"] = 20_000  # samples kept; the oldest are overwritten
    save: bool = True  # replay.pt beside each checkpoint, for an exact resume


@dataclass(frozen=True)
class AlphaZeroConfig(LoopConfig):
    name: str = "alphazero"
    iterations: Annotated[int, ">= 1"] | None = 200
    console_every: Annotated[int, ">= 0"] = 1
    time_limit_minutes: Annotated[float, "> 0"] | None = 10.0
    games_per_iteration: Annotated[int, ">= 1"] = 32
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    rewards: RewardConfig = field(default_factory=RewardConfig)
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)

    def __post_init__(self):
        super().__post_init__()
        if self.pool.baselines or self.pool.baseline_share:
            raise ValueError("algo.pool.baselines is PPO's: AlphaZero's pool holds past selves "
                             "only (selfplay.opponent_share gives opponent seats)")


@dataclass(frozen=True)
class SelfPlayFactory:
    """Builds a self-play worker from plain data (picklable for worker processes)."""

    env_config: dict
    model_config: ModelConfig
    search: SearchConfig
    selfplay: SelfPlayConfig
    rewards: RewardConfig

    def __call__(self) -> SelfPlay:
        game = envs.make_game(self.env_config)
        encoder = make_encoder(game, self.model_config.features)
        past_net = (network_for(game, encoder, self.model_config)
                    if self.selfplay.past_self_share else None)
        return SelfPlay(game, encoder, network_for(game, encoder, self.model_config),
                        self.search, self.selfplay, Outcomes(game, self.rewards), past_net)


def game_seed(run_seed: int, index: int) -> int:
    """The seed of self-play game number ``index`` of a run."""
    return int(np.random.SeedSequence([run_seed, 2, index]).generate_state(1)[0])


def network_score(record: SelfPlayGame) -> float:
    """The current network's score in a game against its past self or the opponent agent: 1
    won, 1/2 neither, 0 lost (the pool's scores are the past self's: 1 minus this)."""
    return 0.5 + 0.5 * float(np.sign(record.outcome[record.network_seat]))


def selfplay_metrics(records: list[SelfPlayGame], seconds: float) -> dict:
    moves = np.array([r.moves for r in records])
    decided = [r for r in records if not r.cut and not r.truncated]
    vs_random = [r for r in records if r.random_seat is not None]
    won = [r for r in vs_random if np.delete(r.outcome, r.random_seat).max() > 0]
    vs_past = [r for r in records if r.others == "past"]
    vs_opponent = [r for r in records if r.others == "opponent"]
    return {
        "selfplay/vs_random_games": len(vs_random),
        "selfplay/vs_random_win_rate": len(won) / max(len(vs_random), 1),
        "selfplay/games_per_s": len(records) / seconds,
        "selfplay/simulations_per_s": sum(r.simulations for r in records) / seconds,
        "selfplay/teacher_labels": sum(r.teacher_labels for r in records),
        "selfplay/past_self_games": len(vs_past),
        "selfplay/vs_past_score": (float(np.mean([network_score(r) for r in vs_past]))
                                   if vs_past else 0.5),
        "selfplay/opponent_games": len(vs_opponent),
        "selfplay/vs_opponent_score": (float(np.mean([network_score(r) for r in vs_opponent]))
                                       if vs_opponent else 0.5),
        "selfplay/moves_per_s": moves.sum() / seconds,
        "selfplay/samples_per_s": sum(len(r.samples) for r in records) / seconds,
        "selfplay/game_length": float(moves.mean()),
        "selfplay/decided_rate": len(decided) / len(records),
        "selfplay/draw_rate": sum(not np.any(r.outcome) for r in decided) / len(records),
        "selfplay/cut_or_truncated_rate": 1 - len(decided) / len(records),
        "selfplay/first_player_win_rate": sum(r.outcome[0] > 0 for r in decided) / len(records),
    }


class AlphaZero(NetworkAlgorithm):
    """The training state of one AlphaZero run; :class:`training.trainer.Trainer` runs it."""

    name = "alphazero"
    Config = AlphaZeroConfig

    def __init__(self, config: dict):
        super().__init__(config)
        algo = self.algo
        self.outcomes = Outcomes(self.game, algo.rewards)  # a bad config fails here
        self.hooks = envs.game_hooks(self.game)
        if algo.search.game_value_weight and self.hooks.evaluate is None:
            raise ValueError(f"algo.search.game_value_weight needs a game with an evaluate hook; "
                             f"{self.game.name!r} has none")
        augment = (augmenter(symmetries(self.game, self.encoder)) if algo.learner.augment
                   else None)
        self.learner = Learner(self.learning.trained, algo.learner, augment)
        self.replay = ReplayBuffer(algo.replay.capacity, self.encoder.shape,
                                   self.game.num_actions, self.game.num_players)
        self.rng = np.random.default_rng([self.seed, 1])
        self.pool = OpponentPool(algo.pool)  # past selves (selfplay.past_self_share)
        self.counters = {"games": 0, "samples": 0}
        self.runner = make_runner(self.runner_config, SelfPlayFactory(
            self.env_config, self.model_config, algo.search, algo.selfplay, algo.rewards))
        self.last_records: list[SelfPlayGame] = []

    # -- what a checkpoint holds -----------------------------------------------------------

    def acting(self) -> Acting:
        return Acting(self.algo.eval.simulations, self.algo.eval.temperature, self.algo.search)

    def agent(self, acting: Acting | None = None) -> NetworkAgent:
        return NetworkAgent(NetworkEvaluator(self.net, self.encoder, self.game.num_players),
                            acting or self.acting(), "trained", self.hooks.evaluate)

    def state_dict(self) -> dict:
        return {"learner": self.learner.state_dict(), "rng": numpy_rng_state(self.rng),
                "pool": self.pool.state_dict()}

    def load_state_dict(self, payload: dict) -> None:
        self.net.load_state_dict(payload["model"]["weights"])
        self.learning.reload()
        self.learner.load_state_dict(payload["state"]["learner"])
        self.rng = restore_numpy_rng(payload["state"]["rng"])
        self.pool.load_state_dict(payload["state"]["pool"])
        self.counters = {key: payload["counters"][key] for key in self.counters}

    def replay_state(self) -> dict | None:
        return self.replay.state_dict() if self.algo.replay.save else None

    def load_replay_state(self, state: dict) -> None:
        self.replay.load_state_dict(state)

    # -- the steps -------------------------------------------------------------------------

    def start(self) -> dict:
        """The warm start: teacher games into the buffer and learner steps on them, then the
        student round's games (the network playing, the teacher labelling) and steps on those."""
        student = Acting(0, self.algo.eval.temperature, self.algo.search)
        return warm_start(self.algo.warm_start, self.game, self.encoder, self.outcomes,
                          self.seed, self.learner, self.replay, self.rng, self.learning.sync,
                          student=lambda: self.agent(student))

    def iteration(self, number: int, progress: float) -> Step:
        """Self-play with the current weights (and a past self) -> the games' samples into the
        buffer -> learner steps in proportion to the new samples."""
        c = self.counters
        past = self._past_self(number)
        seeds = [game_seed(self.seed, c["games"] + i)
                 for i in range(self.algo.games_per_iteration)]
        teacher_share = self.algo.selfplay.teacher_share_at(progress)
        self.runner.start_round(Round(self.net.state_dict(), teacher_share,
                                      past.weights if past is not None else None))
        start = time.perf_counter()
        records = self.runner.play(seeds)
        played = time.perf_counter() - start
        c["games"] += len(records)
        for r in records:
            if past is not None and r.others == "past":
                self.pool.record(past.key, 1.0 - network_score(r))
        samples = Samples.concat([r.samples for r in records])
        self.replay.add(samples)
        c["samples"] += len(samples)
        start = time.perf_counter()
        metrics = self.learner.train(self.replay, self.learner.steps_for(len(samples)), self.rng)
        self.learning.sync()
        learned = time.perf_counter() - start
        self.last_records = records
        metrics.update(selfplay_metrics(records, played))
        metrics.update({"replay/size": len(self.replay), "counters/games": c["games"],
                        "counters/samples": c["samples"], "runner/restarts": self.runner.restarts,
                        "selfplay/teacher_share": teacher_share, "time/selfplay_s": played,
                        "time/learner_s": learned, "pool/size": len(self.pool.snapshots)})
        return Step(metrics, self._console(metrics))

    def _past_self(self, number: int):
        """The pool's past self for this iteration's games, or None without past-self games.
        The weights before iteration 1 join the pool first, then those before every
        ``pool.snapshot_every``-th iteration; the draw is a function of the seed and
        ``number``, so a resumed run draws as an uninterrupted one."""
        if not self.algo.selfplay.past_self_share:
            return None
        if not self.pool.snapshots or (number - 1) % self.algo.pool.snapshot_every == 0:
            self.pool.add(self.net.state_dict(), number - 1)  # the iterations they learned
        return self.pool.sample(np.random.default_rng([self.seed, 5, number]))

    @staticmethod
    def _console(metrics: dict) -> list[str]:
        parts = [f"games {metrics['counters/games']}",
                 f"len {metrics['selfplay/game_length']:.0f}",
                 f"decided {metrics['selfplay/decided_rate']:.2f}",
                 f"sims/s {metrics['selfplay/simulations_per_s']:.0f}",
                 f"pos/s {metrics['selfplay/moves_per_s']:.0f}"]
        if "loss/total" in metrics:
            parts += [f"learn/s {metrics['learner/samples_per_s']:.0f}",
                      f"play {metrics['time/selfplay_s']:.0f}s "
                      f"learn {metrics['time/learner_s']:.0f}s",
                      f"loss p {metrics['loss/policy']:.3f} v {metrics['loss/value']:.3f}"]
        return parts

    def sample_game(self) -> list[int] | None:
        return self.last_records[0].actions if self.last_records else None

    def close(self) -> None:
        """Stop the runner's workers."""
        self.runner.close()
