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
from dataclasses import dataclass, field, replace
from typing import Annotated

import numpy as np

import envs
from agents.network import Acting
from models.features import make_encoder
from models.inference import BACKENDS as INFERENCE_BACKENDS
from models.nets import ModelConfig, network_for
from models.symmetry import augmenter, symmetries
from search.puct import SearchConfig
from training.algorithm import LoopConfig, NetworkAlgorithm, Step
from training.alphazero.selfplay import Round, SelfPlay, SelfPlayConfig, SelfPlayGame
from training.evaluation import TrainingEvalConfig
from training.learner import Learner, LearnerConfig
from training.pool import OpponentPool, PoolConfig
from training.replay import ReplayBuffer, Samples
from training.rewards import Outcomes, RewardConfig
from training.runner import make_runner
from training.saving import numpy_rng_state, restore_numpy_rng
from training.warmstart import WarmStartConfig, warm_start


@dataclass(frozen=True)
class ReplayConfig:
    """``algo.replay``."""

    # samples kept (one per decision); the oldest are overwritten (a 14x11 Blockade sample is
    # about 10 KB)
    capacity: Annotated[int, ">= 1"] = 20_000
    # write the buffer to checkpoints/replay.pt beside last.pt at every checkpoint, for an
    # exact resume (a resume without it warns and starts with an empty buffer)
    save: bool = True


@dataclass(frozen=True)
class AlphaZeroConfig(LoopConfig):
    """``algo=alphazero``: every default of an AlphaZero run. They train 2-player Blockade
    in about 10 minutes on 2 CPU cores: a heuristic warm start with a student round, self-play
    with a random seat in half the games and the teacher's labels there, value targets mixed
    with the positions' race leads (docs/training.md)."""

    name: str = "alphazero"
    iterations: Annotated[int, ">= 1"] | None = 200
    console_every: Annotated[int, ">= 0"] = 1
    time_limit_minutes: Annotated[float, "> 0"] | None = 10.0
    # self-play games per iteration, all with the same weights
    games_per_iteration: Annotated[int, ">= 1"] = 32
    # how self-play runs the network: torch (frozen TorchScript) | onnx (onnxruntime: the same
    # games, 1.06-1.27x faster on Nobles' MLP) | auto (onnxruntime below 16 positions a batch)
    # | onnx-int8 (8-bit: 1.5-1.8x on the conv nets, but some moves differ); models/inference.py
    inference: str = "torch"
    # network outputs kept per worker for positions searched again (0 = no cache; hits 7-11%)
    inference_cache: Annotated[int, ">= 0"] = 0
    # the search of every self-play move: few simulations, a Gumbel root (plans well with
    # few), chance nodes by expectation, unvisited children below their parent's value
    search: SearchConfig = field(default_factory=lambda: SearchConfig(
        simulations=16, fpu_reduction=0.2, chance="expectation", root="gumbel"))
    # games cut at 120 decisions (adjudicated), a random seat in half of them (real wins to
    # learn from), the teacher's choice as those games' policy targets
    selfplay: SelfPlayConfig = field(default_factory=lambda: SelfPlayConfig(
        max_moves=120, random_opponent_share=0.5, teacher_share=1.0))
    # the replay buffer
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    # the gradient steps
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    # value targets mixed with each position's own lead, outcomes discounted by the decisions
    # left: dense signals for a game whose self-play rarely ends
    rewards: RewardConfig = field(default_factory=lambda: RewardConfig(
        position_weight=0.5, discount=0.98, discount_leads=True))
    # 80 teacher games (kept in the buffer) and 40 student games before self-play
    warm_start: WarmStartConfig = field(default_factory=lambda: WarmStartConfig(
        games=80, steps=400, keep=True, student_games=40, student_steps=200))
    # the past selves of selfplay.past_self_share, drawn uniformly
    pool: PoolConfig = field(default_factory=lambda: PoolConfig(scheme="uniform", capacity=10))
    # the trained agent samples its policy at temperature 0.5: a greedy one can shuttle a pawn
    # between two squares of nearly equal value until the turn limit
    eval: TrainingEvalConfig = field(default_factory=lambda: TrainingEvalConfig(
        final_opponents=("random",), temperature=0.5))
    # the leaf mix of the trained agent's own search (evaluations, the checkpoint's `acting`,
    # exports and the zoo): null = search.game_value_weight, the self-play search's. A game's
    # standing can help self-play while the value head knows little, then hold the trained
    # agent back (Barricade: docs/experiments/strength.md)
    play_game_value_weight: Annotated[float, "0..1"] | None = None

    def __post_init__(self):
        super().__post_init__()
        if self.inference not in INFERENCE_BACKENDS:
            raise ValueError(f"algo.inference must be one of {', '.join(INFERENCE_BACKENDS)}, "
                             f"got {self.inference!r}")
        if self.pool.baselines or self.pool.baseline_share:
            raise ValueError("algo.pool.baselines is PPO's: AlphaZero's pool holds past selves "
                             "only (selfplay.opponent_share gives opponent seats)")

    def opponents(self) -> dict[str, list[str]]:
        """The agent specs the network plays games against, by key (the panel's check)."""
        return {"algo.selfplay.opponents": list(self.selfplay.opponents) * bool(
                    self.selfplay.opponent_share),
                "algo.warm_start.opponent": [self.warm_start.opponent] * bool(
                    self.warm_start.games)}


@dataclass(frozen=True)
class SelfPlayFactory:
    """Builds a self-play worker from plain data (picklable for worker processes)."""

    env_config: dict
    model_config: ModelConfig
    search: SearchConfig
    selfplay: SelfPlayConfig
    rewards: RewardConfig
    inference: str = "torch"
    inference_cache: int = 0

    def __call__(self) -> SelfPlay:
        game = envs.make_game(self.env_config)
        encoder = make_encoder(game, self.model_config.features)
        past_net = (network_for(game, encoder, self.model_config)
                    if self.selfplay.past_self_share else None)
        return SelfPlay(game, encoder, network_for(game, encoder, self.model_config),
                        self.search, self.selfplay, Outcomes(game, self.rewards), past_net,
                        self.inference, self.inference_cache)


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
        for key, weight in (("search.game_value_weight", algo.search.game_value_weight),
                            ("play_game_value_weight", algo.play_game_value_weight)):
            if weight and self.hooks.evaluate is None:
                raise ValueError(f"algo.{key} needs a game with an evaluate hook; "
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
            self.env_config, self.model_config, algo.search, algo.selfplay, algo.rewards,
            algo.inference, algo.inference_cache))
        self.last_records: list[SelfPlayGame] = []

    # -- what a checkpoint holds -----------------------------------------------------------

    def acting(self) -> Acting:
        algo = self.algo
        search = algo.search if algo.play_game_value_weight is None else replace(
            algo.search, game_value_weight=algo.play_game_value_weight)
        return Acting(algo.eval.simulations, algo.eval.temperature, search)

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
        # A copy: sending tensors to worker processes moves their storage to shared memory.
        weights = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
        self.runner.start_round(Round(weights, teacher_share,
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
