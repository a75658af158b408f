"""AlphaZero for any game of the engine contract, 2 to 4 players, with chance.

Each iteration: the runner's self-play workers play ``games_per_iteration`` games with the
current weights (PUCT or Gumbel search, batched over concurrent games) -> their samples go to
the replay buffer -> the learner takes ``sample_reuse`` passes' worth of gradient steps -> the
new weights go back to the workers. Every ``eval.every`` iterations the network plays the
arena's baselines; every ``checkpoint.every`` iterations (and at the end) a checkpoint with
everything needed to resume is written. A game's seed is a function of the run seed and the
game's number, so a resumed run repeats an uninterrupted one step for step.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

import envs
from models.features import make_encoder
from models.nets import ModelConfig, action_layout, build_network
from models.symmetry import augmenter, symmetries
from search.puct import SearchConfig
from training.checkpoint import (
    Policy,
    make_env_game,
    model_payload,
    numpy_rng_state,
    restore_numpy_rng,
    save_checkpoint,
)
from training.config import from_mapping, to_mapping
from training.evaluation import EvalConfig, evaluate, metrics, win_rate_parts
from training.learner import Learner, LearnerConfig
from training.replay import ReplayBuffer, Samples
from training.rewards import Outcomes, RewardConfig
from training.runner import RunnerConfig, make_runner
from training.selfplay import GameRecord, SelfPlay, SelfPlayConfig
from training.warmstart import WarmStartConfig, teacher_samples


@dataclass(frozen=True)
class ReplayConfig:
    capacity: int = 50_000


@dataclass(frozen=True)
class CheckpointConfig:
    every: int = 5
    keep_replay: bool = True


@dataclass(frozen=True)
class AlphaZeroConfig:
    name: str = "alphazero"
    iterations: int = 30
    time_limit_minutes: float | None = None
    games_per_iteration: int = 32
    search: SearchConfig = field(default_factory=SearchConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    rewards: RewardConfig = field(default_factory=RewardConfig)
    warm_start: WarmStartConfig = field(default_factory=WarmStartConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)

    def __post_init__(self):
        if self.name != "alphazero":
            raise ValueError(f"AlphaZeroConfig is for algo.name=alphazero, got {self.name!r}")
        if self.iterations < 1 or self.games_per_iteration < 1:
            raise ValueError("algo.iterations and algo.games_per_iteration must be >= 1")


@dataclass
class TrainResult:
    checkpoint: Path
    counters: dict
    final_eval: dict  # opponent -> arena MatchResult ({} when evaluation is off)
    history: list[dict]  # per-iteration metrics


@dataclass(frozen=True)
class SelfPlayFactory:
    """Builds a self-play worker from plain data (picklable for worker processes)."""

    env_config: dict
    model_config: ModelConfig
    search: SearchConfig
    selfplay: SelfPlayConfig
    rewards: RewardConfig

    def __call__(self) -> SelfPlay:
        game = make_env_game(self.env_config)
        encoder = make_encoder(game, self.model_config.features)
        net = build_network(encoder.shape, game.num_actions, game.num_players,
                            self.model_config, action_layout(encoder))
        return SelfPlay(game, encoder, net, self.search, self.selfplay,
                        Outcomes(game, self.rewards))


def game_seed(run_seed: int, index: int) -> int:
    """The seed of self-play game number ``index`` of a run."""
    return int(np.random.SeedSequence([run_seed, 2, index]).generate_state(1)[0])


def selfplay_metrics(records: list[GameRecord], seconds: float) -> dict:
    moves = np.array([r.moves for r in records])
    decided = [r for r in records if not r.cut and not r.truncated]
    vs_random = [r for r in records if r.random_seat is not None]
    won = [r for r in vs_random if np.delete(r.outcome, r.random_seat).max() > 0]
    return {
        "selfplay/vs_random_games": len(vs_random),
        "selfplay/vs_random_win_rate": len(won) / max(len(vs_random), 1),
        "selfplay/games_per_s": len(records) / seconds,
        "selfplay/simulations_per_s": sum(r.simulations for r in records) / seconds,
        "selfplay/teacher_labels": sum(r.teacher_labels for r in records),
        "selfplay/moves_per_s": moves.sum() / seconds,
        "selfplay/game_length": float(moves.mean()),
        "selfplay/decided_rate": len(decided) / len(records),
        "selfplay/draw_rate": sum(not np.any(r.outcome) for r in decided) / len(records),
        "selfplay/cut_or_truncated_rate": 1 - len(decided) / len(records),
        "selfplay/first_player_win_rate": sum(r.outcome[0] > 0 for r in decided) / len(records),
    }


def game_frames(env_config: dict, actions: list[int], limit: int = 200) -> list[np.ndarray]:
    """Pictures of a game replayed from its actions: every decision position, then the end."""
    game = make_env_game(env_config)
    draw = envs.game_module(game.name).draw
    state = game.new_initial_state()
    frames = [draw(state)]
    for action in actions:
        state.apply_action(action)
        if not state.is_chance_node() and len(frames) < limit:
            frames.append(draw(state))
    if len(frames) == limit:
        frames.append(draw(state))
    return frames


class AlphaZero:
    """The training state of one run and the loop over iterations."""

    def __init__(self, config: dict, run_dir: Path, logger, resume: dict | None = None):
        self.config = config
        self.algo = from_mapping(AlphaZeroConfig, config["algo"], "algo")
        self.model_config = from_mapping(
            ModelConfig, {k: v for k, v in config["model"].items() if k != "name"}, "model")
        self.runner_config = from_mapping(RunnerConfig, config["runner"], "runner")
        self.env_config = dict(config["env"])
        self.seed = int(config["seed"])
        self.run_dir = Path(run_dir)
        self.logger = logger
        self.game = make_env_game(self.env_config)
        self.encoder = make_encoder(self.game, self.model_config.features)
        torch.manual_seed(self.seed)
        self.net = build_network(self.encoder.shape, self.game.num_actions,
                                 self.game.num_players, self.model_config,
                                 action_layout(self.encoder))
        Outcomes(self.game, self.algo.rewards)  # a bad reward config fails before any work
        augment = augmenter(symmetries(self.game, self.encoder)) if self.algo.learner.augment \
            else None
        self.learner = Learner(self.net, self.algo.learner, augment)
        self.replay = ReplayBuffer(self.algo.replay.capacity, self.encoder.shape,
                                   self.game.num_actions, self.game.num_players)
        self.rng = np.random.default_rng([self.seed, 1])
        self.counters = {"iteration": 0, "games": 0, "samples": 0, "seconds": 0.0,
                         "warm_started": False}
        self.history: list[dict] = []
        if resume is not None:
            self._restore(resume)

    # -- checkpoints -----------------------------------------------------------------------

    def policy(self, simulations: int | None = None) -> Policy:
        sims = self.algo.eval.simulations if simulations is None else simulations
        return Policy(self.env_config, self.game, self.learner.policy_net, sims, self.algo.search,
                      self.model_config.features, self.algo.eval.temperature)

    def payload(self) -> dict:
        keep = self.algo.checkpoint.keep_replay
        return {
            "algo": "alphazero",
            "config": self.config,
            "env_config": self.env_config,
            "model": model_payload(self.learner.policy_net, self.encoder, self.game.num_actions,
                                   self.game.num_players, self.model_config),
            "policy": {"simulations": self.algo.eval.simulations,
                       "search": to_mapping(self.algo.search),
                       "temperature": self.algo.eval.temperature},
            "counters": dict(self.counters),
            "learner": self.learner.state_dict(),
            "replay": self.replay.state_dict() if keep else None,
            "rng": {"learner": numpy_rng_state(self.rng), "torch": torch.get_rng_state()},
            "history": self.history,
        }

    def _restore(self, payload: dict) -> None:
        self.net.load_state_dict(payload["model"]["weights"])
        self.learner.load_state_dict(payload["learner"])
        if payload.get("replay") is not None:
            self.replay.load_state_dict(payload["replay"])
        self.rng = restore_numpy_rng(payload["rng"]["learner"])
        torch.set_rng_state(payload["rng"]["torch"])
        self.counters = dict(payload["counters"])
        self.history = list(payload.get("history") or [])

    def save(self) -> Path:
        return save_checkpoint(self.run_dir / "checkpoints" / "last.pt", self.payload())

    # -- the loop --------------------------------------------------------------------------

    def warm_start(self) -> dict:
        """Teacher games into the buffer and learner steps on them, then the student round's
        games (the network playing, the teacher labelling) and steps on those (once per run)."""
        config = self.algo.warm_start
        start = time.perf_counter()
        outcomes = Outcomes(self.game, self.algo.rewards)
        rounds = [("teacher", config.games, config.steps)]
        if config.student_games:
            rounds.append(("student", config.student_games, config.student_steps))
        for player, games, steps in rounds:
            student = self.policy(simulations=0) if player == "student" else None
            samples = teacher_samples(self.game, self.encoder, config, outcomes, self.seed,
                                      student=student)
            self.replay.add(samples)
            if config.keep:
                self.replay.pin()
            stats = self.learner.train(self.replay, steps, self.rng)
            who = config.teacher if student is None else "network"
            print(f"warm start: {games} {who} vs {config.opponent} games labelled by "
                  f"{config.teacher}, {len(samples)} samples, {steps} steps, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
        self.counters["warm_started"] = True
        self.counters["seconds"] += time.perf_counter() - start
        return {f"warm_start/{k}": v for k, v in stats.items()}

    def iteration(self, runner) -> dict:
        c = self.counters
        runner.set_weights({k: v.detach().clone() for k, v in self.net.state_dict().items()})
        seeds = [game_seed(self.seed, c["games"] + i)
                 for i in range(self.algo.games_per_iteration)]
        start = time.perf_counter()
        records = runner.play(seeds)
        played = time.perf_counter() - start
        samples = Samples.concat([r.samples for r in records])
        self.replay.add(samples)
        stats = self.learner.train(self.replay, self.learner.steps_for(len(samples)), self.rng)
        c["iteration"] += 1
        c["games"] += len(records)
        c["samples"] += len(samples)
        stats.update(selfplay_metrics(records, played))
        stats.update({"replay/size": len(self.replay), "counters/games": c["games"],
                      "counters/samples": c["samples"]})
        self.last_records = records
        return stats

    def run(self) -> TrainResult:
        algo = self.algo
        runner = make_runner(self.runner_config, SelfPlayFactory(
            self.env_config, self.model_config, algo.search, algo.selfplay, algo.rewards))
        limit = algo.time_limit_minutes
        path = None
        if algo.warm_start.games and not self.counters["warm_started"]:
            self.logger.log(self.warm_start(), step=0)
        try:
            while self.counters["iteration"] < algo.iterations:
                start = time.perf_counter()
                stats = self.iteration(runner)
                i = self.counters["iteration"]
                if algo.eval.enabled and algo.eval.every and i % algo.eval.every == 0:
                    stats.update(self._evaluate(algo.eval.opponents, algo.eval.games, i))
                self.counters["seconds"] += time.perf_counter() - start
                stats["time/minutes"] = self.counters["seconds"] / 60
                self.history.append({"iteration": i, **_scalars(stats)})
                self.logger.log(stats, step=i)
                print(progress_line(stats, i, algo.iterations), flush=True)
                out_of_time = limit is not None and self.counters["seconds"] >= 60 * limit
                last = i == algo.iterations or out_of_time
                if last or (algo.checkpoint.every and i % algo.checkpoint.every == 0):
                    path = self.save()
                if out_of_time:
                    break
        finally:
            runner.close()
        if path is None:
            path = self.save()
        final = {}
        if algo.eval.enabled and algo.eval.final_games:
            final = evaluate(self.policy(), self.env_config, algo.eval.final_opponents,
                             algo.eval.final_games, algo.eval.seed + 1)
            final_metrics = metrics(final, prefix="final")
            self.logger.log(final_metrics, step=self.counters["iteration"])
            self.logger.summary(final_metrics)
        self.logger.log_checkpoint(path, f"{self.game.name}-alphazero",
                                   {"iteration": self.counters["iteration"]})
        return TrainResult(path, dict(self.counters), final, self.history)

    def _evaluate(self, opponents, games: int, step: int) -> dict:
        results = evaluate(self.policy(), self.env_config, opponents, games,
                           self.algo.eval.seed)
        if self.last_records:
            actions = self.last_records[0].actions
            self.logger.log_game("games/selfplay", lambda: game_frames(self.env_config, actions),
                                 step=step)
        return metrics(results)


def progress_line(stats: dict, iteration: int, iterations: int) -> str:
    """One console line per iteration: counters, losses, self-play speed, evaluation."""
    parts = [f"iter {iteration}/{iterations}", f"{stats['time/minutes']:.1f} min",
             f"games {stats['counters/games']}",
             f"len {stats['selfplay/game_length']:.0f}",
             f"decided {stats['selfplay/decided_rate']:.2f}",
             f"sims/s {stats['selfplay/simulations_per_s']:.0f}"]
    if "loss/total" in stats:
        parts += [f"loss p {stats['loss/policy']:.3f} v {stats['loss/value']:.3f}"]
    return " | ".join(parts + win_rate_parts(stats))


def _scalars(stats: dict) -> dict:
    return {k: float(v) for k, v in stats.items() if isinstance(v, (int, float, np.number))}


def train(config: dict, run_dir: Path, logger, resume: dict | None = None) -> TrainResult:
    """Entry point for train.py (``algo.name: alphazero``)."""
    return AlphaZero(config, run_dir, logger, resume).run()
