"""AlphaZero for any game of the engine contract, 2 to 4 players, with chance.

Each iteration: the runner's self-play workers play ``games_per_iteration`` games with the
current weights (PUCT or Gumbel search, batched over concurrent games; in a share of the games
the other seats are a past snapshot from the pool) -> their samples (policy targets from the
search, or the fading teacher's; value targets from the outcome, mixed with the search's value)
go to the replay buffer -> the learner takes ``sample_reuse`` passes' worth of gradient steps ->
every ``pool.snapshot_every`` iterations the weights join the pool of past selves -> the new
weights go back to the workers. Before the first iteration, the warm start (optional):
teacher-labelled games and learner steps on them. The loop around these steps (limits,
evaluation, checkpoints, a clean stop) is training/trainer.py. A game's seed is a function of
the run seed and the game's number, so a resumed run repeats an uninterrupted one step for
step.

Pipelined (``algo.pipeline``, with worker processes or Ray actors): iteration n collects its
games, at once sends iteration n+1's games with the weights as they are (before learning on
n's samples: one iteration stale, as in asynchronous AlphaZero and KataGo), then trains on n's
samples while the workers play n+1. Everything those games depend on (weights, teacher share,
past self, seeds) is fixed when they are sent and saved in the checkpoint, so a resumed run
sends them again and repeats the uninterrupted one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Annotated

import numpy as np

import envs
from agents.network import Acting, NetworkAgent
from arena.report import ProgressLine
from models.evaluator import NetworkEvaluator
from models.features import make_encoder
from models.nets import ModelConfig, action_layout, build_network
from models.symmetry import augmenter, symmetries
from search.puct import SearchConfig
from training.checkpoint import numpy_rng_state, restore_numpy_rng
from training.learner import Learner, LearnerConfig
from training.pool import OpponentPool, PoolConfig
from training.replay import ReplayBuffer, Samples
from training.rewards import Outcomes, RewardConfig
from training.runner import make_runner
from training.selfplay import Round, SelfPlay, SelfPlayConfig, SelfPlayGame
from training.trainer import LoopConfig, NetworkAlgorithm
from training.trainer import progress as run_progress
from training.warmstart import WarmStartConfig, teacher_samples


@dataclass(frozen=True)
class ReplayConfig:
    capacity: Annotated[int, ">= 1"] = 50_000
    save: bool = True


@dataclass(frozen=True)
class AlphaZeroConfig(LoopConfig):
    name: str = "alphazero"
    iterations: Annotated[int, ">= 1"] | None = 30
    console_every: Annotated[int, ">= 0"] = 1
    games_per_iteration: Annotated[int, ">= 1"] = 32
    pipeline: bool = False
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    rewards: RewardConfig = field(default_factory=RewardConfig)
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)

    def __post_init__(self):
        super().__post_init__()
        if self.pool.baselines or self.pool.baseline_fraction:
            raise ValueError("algo.pool.baselines is PPO's: AlphaZero's pool holds past selves "
                             "only (selfplay.random_opponent_fraction gives a random seat)")


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
        def network():
            return build_network(encoder.shape, game.num_actions, game.num_players,
                                 self.model_config, action_layout(encoder))

        past_net = network() if self.selfplay.past_self_share else None
        return SelfPlay(game, encoder, network(), self.search, self.selfplay,
                        Outcomes(game, self.rewards), past_net)


@dataclass
class PlannedGames:
    """One iteration's self-play games, fixed before they are sent to the runner: the round
    (weights, teacher share, past self), the seeds and the past self's key in the pool (whose
    scores the games update)."""

    round: Round
    seeds: list[int]
    past_key: int | None

    def state_dict(self) -> dict:
        r = self.round
        return {"weights": r.weights, "teacher_share": r.teacher_share,
                "past_weights": r.past_weights, "seeds": list(self.seeds),
                "past_key": self.past_key}

    @classmethod
    def from_state(cls, state: dict) -> PlannedGames:
        return cls(Round(state["weights"], state["teacher_share"], state["past_weights"]),
                   list(state["seeds"]), state["past_key"])


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
        "selfplay/policy_target_share": (sum(r.policy_targets for r in records)
                                         / max(sum(len(r.samples) for r in records), 1)),
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
        self.outcomes = Outcomes(self.game, self.algo.rewards)  # a bad config fails here
        augment = augmenter(symmetries(self.game, self.encoder)) if self.algo.learner.augment \
            else None
        self.learner = Learner(self.learning.trained, self.algo.learner, augment)
        self.replay = ReplayBuffer(self.algo.replay.capacity, self.encoder.shape,
                                   self.game.num_actions, self.game.num_players)
        self.rng = np.random.default_rng([self.seed, 1])
        self.pool = OpponentPool(self.algo.pool)  # past selves (selfplay.past_self_share)
        self.counters = {"iteration": 0, "games": 0, "samples": 0, "seconds": 0.0,
                         "started": False}
        self.runner = make_runner(self.runner_config, SelfPlayFactory(
            self.env_config, self.model_config, self.algo.search, self.algo.selfplay,
            self.algo.rewards))
        self.last_records: list[SelfPlayGame] = []
        # One process cannot play and learn at once: runner=local always plays an iteration's
        # games with the newest weights.
        self.pipeline = self.algo.pipeline and self.runner_config.name != "local"
        self.planned: PlannedGames | None = None  # the next iteration's games (pipelined: sent)
        self.handle = None  # the runner's handle of the planned games, once sent
        self.sent_at = 0.0

    # -- what a checkpoint holds -----------------------------------------------------------

    def acting(self) -> Acting:
        return Acting(self.algo.eval.simulations, self.algo.eval.temperature, self.algo.search)

    def agent(self, acting: Acting | None = None) -> NetworkAgent:
        return NetworkAgent(NetworkEvaluator(self.net, self.encoder, self.game.num_players),
                            acting or self.acting(), "trained")

    def state_dict(self) -> dict:
        state = {"learner": self.learner.state_dict(), "rng": numpy_rng_state(self.rng),
                 "pool": self.pool.state_dict()}
        if self.planned is not None:  # pipelined: the games in flight, sent again on resume
            state["in_flight"] = self.planned.state_dict()
        return state

    def load_state_dict(self, payload: dict) -> None:
        self.net.load_state_dict(payload["model"]["weights"])
        self.learning.reload()
        self.learner.load_state_dict(payload["state"]["learner"])
        self.rng = restore_numpy_rng(payload["state"]["rng"])
        if "pool" in payload["state"]:  # checkpoints before the pool of past selves: empty
            self.pool.load_state_dict(payload["state"]["pool"])
        self.counters = dict(payload["counters"])
        in_flight = payload["state"].get("in_flight")  # absent: saved with nothing in flight
        self.planned = PlannedGames.from_state(in_flight) if in_flight else None
        self.handle = None

    def replay_state(self) -> dict | None:
        return self.replay.state_dict() if self.algo.replay.save else None

    def load_replay_state(self, state: dict) -> None:
        self.replay.load_state_dict(state)

    # -- the steps -------------------------------------------------------------------------

    def start(self) -> dict:
        """The warm start: teacher games into the buffer and learner steps on them, then the
        student round's games (the network playing, the teacher labelling) and steps on those."""
        config = self.algo.warm_start
        if not config.games:
            return {}
        start = time.perf_counter()
        rounds = [("teacher", config.games, config.steps)]
        if config.student_games:
            rounds.append(("student", config.student_games, config.student_steps))
        print(f"warm start: {config.games} {config.teacher} vs {config.opponent} games first; "
              "nothing is saved until it ends", flush=True)
        for player, games, steps in rounds:
            student = (self.agent(Acting(0, self.algo.eval.temperature, self.algo.search))
                       if player == "student" else None)
            samples = teacher_samples(self.game, self.encoder, config, self.outcomes, self.seed,
                                      student=student,
                                      progress=ProgressLine(f"warm start ({player})", games))
            self.replay.add(samples)
            if config.keep:
                self.replay.pin()
            stats = self.learner.train(self.replay, steps, self.rng)
            self.learning.sync()  # the student round plays with the trained weights
            who = config.teacher if student is None else "network"
            print(f"warm start: {games} {who} vs {config.opponent} games labelled by "
                  f"{config.teacher}, {len(samples)} samples, {steps} steps, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
        return {f"warm_start/{k}": v for k, v in stats.items()}

    def iteration(self, number: int, progress: float) -> dict:
        """Self-play with the current weights (and a past self) -> the games' samples into the
        buffer -> learner steps in proportion to the new samples -> maybe a new past self.
        Pipelined, the games collected here were sent during the previous iteration (or on
        resume) and the next iteration's games are sent before the learner steps."""
        c, algo = self.counters, self.algo
        if self.planned is None:  # not pipelined, or the first iteration
            self.planned = self._plan(number, progress)
        if self.handle is None:  # planned just now, or restored from a checkpoint
            self._send()
        games, handle, sent_at = self.planned, self.handle, self.sent_at
        self.planned = self.handle = None
        start = time.perf_counter()
        records = self.runner.collect(handle)
        collected = time.perf_counter()
        waited, played = collected - start, collected - sent_at
        c["games"] += len(records)
        for r in records:
            if games.past_key is not None and r.others == "past":
                self.pool.record(games.past_key, 1.0 - network_score(r))
        if self.pipeline:
            self.planned = self._plan(number + 1, run_progress(algo, {**c, "iteration": number}))
            self._send()
        samples = Samples.concat([r.samples for r in records])
        self.replay.add(samples)
        start = time.perf_counter()
        stats = self.learner.train(self.replay, self.learner.steps_for(len(samples)), self.rng)
        self.learning.sync()
        learned = time.perf_counter() - start
        c["samples"] += len(samples)
        stats.update(selfplay_metrics(records, played))
        stats.update({"replay/size": len(self.replay), "counters/games": c["games"],
                      "counters/samples": c["samples"], "runner/restarts": self.runner.restarts,
                      "selfplay/teacher_share": games.round.teacher_share,
                      "time/selfplay_s": waited, "time/selfplay_span_s": played,
                      "time/learner_s": learned,
                      "time/wait_share": waited / max(waited + learned, 1e-9),
                      "pool/size": len(self.pool.snapshots)})
        self.last_records = records
        return stats

    def _plan(self, number: int, progress: float) -> PlannedGames:
        """Iteration ``number``'s games with the network as it is now, the run ``progress``
        done when it starts."""
        # A copy: pipelined, the learner changes the network while the games are in flight.
        weights = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
        past = self._past_self(number, weights)
        seeds = [game_seed(self.seed, self.counters["games"] + i)
                 for i in range(self.algo.games_per_iteration)]
        return PlannedGames(Round(weights, self.algo.selfplay.teacher_share_at(progress),
                                  past.weights if past is not None else None),
                            seeds, past.key if past is not None else None)

    def _send(self) -> None:
        self.runner.start_round(self.planned.round)
        self.handle = self.runner.submit(self.planned.seeds)
        self.sent_at = time.perf_counter()

    def _past_self(self, number: int, weights: dict):
        """The pool's past self for this iteration's games, or None without past-self games.
        The weights before iteration 1 join the pool first, then those before every
        ``pool.snapshot_every``-th iteration; the draw is a function of the seed and
        ``number``, so a resumed run draws as an uninterrupted one."""
        if not self.algo.selfplay.past_self_share:
            return None
        if not self.pool.snapshots or (number - 1) % self.algo.pool.snapshot_every == 0:
            self.pool.add(weights, self.counters["iteration"])  # iterations they learned
        return self.pool.sample(np.random.default_rng([self.seed, 5, number]))

    def progress_parts(self, stats: dict) -> list[str]:
        parts = [f"games {stats['counters/games']}", f"len {stats['selfplay/game_length']:.0f}",
                 f"decided {stats['selfplay/decided_rate']:.2f}",
                 f"sims/s {stats['selfplay/simulations_per_s']:.0f}",
                 f"pos/s {stats['selfplay/moves_per_s']:.0f}"]
        if "loss/total" in stats:
            waited = f" (waited {stats['time/selfplay_s']:.0f}s)" if self.pipeline else ""
            parts += [f"learn/s {stats['learner/samples_per_s']:.0f}",
                      f"play {stats['time/selfplay_span_s']:.0f}s{waited} "
                      f"learn {stats['time/learner_s']:.0f}s",
                      f"loss p {stats['loss/policy']:.3f} v {stats['loss/value']:.3f}"]
        return parts

    def sample_game(self) -> list[int] | None:
        return self.last_records[0].actions if self.last_records else None

    def close(self) -> None:
        """Stop the runner's workers, abandoning games in flight (the checkpoint holds them)."""
        self.runner.close()
