"""The loop every algorithm shares. An algorithm (training/alphazero.py, training/ppo.py) brings
its training state and one step, :meth:`Algorithm.iteration`; this module runs it:

    algorithm.start()                      # once per run (a warm start), then a checkpoint
    until algo.iterations or algo.time_limit_minutes is reached:
        stats = algorithm.iteration(number, progress)
        every eval.every iterations:       the trained policy against eval.opponents (arena),
                                           its rating against them (fixed anchors) and
                                           learning_curve.png
        every checkpoint.every iterations: checkpoints/last.pt (and replay.pt)
    the final evaluation against eval.final_opponents (final_evaluation.json)

The first Ctrl-C (SIGINT or SIGTERM) lets the current iteration finish, writes a checkpoint and
stops with one line saying how to resume; during the warm start or the final evaluation it stops
at once (nothing to keep, or the checkpoint is already written). A second Ctrl-C exits at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol

import numpy as np
import torch

import envs
from arena.media import best_effort
from arena.report import ProgressLine
from models.checkpoint import git_commit, model_payload
from models.features import make_encoder
from models.nets import action_layout, build_network, model_config
from training.checkpoint import (
    load_replay,
    remove_stale_temporaries,
    replay_path,
    save_checkpoint,
    save_replay,
)
from training.curve import write_learning_curve
from training.device import learner_device, learner_net
from training.evaluation import (
    TrainingEvalConfig,
    anchor_ratings,
    evaluate,
    match_games,
    metrics,
    rating_metrics,
    trained_rating,
    win_rate_parts,
)
from training.logging import RunLogger
from training.runner import RunnerConfig
from typedconfig import from_mapping

INTERRUPTED_EXIT_CODE = 130


@dataclass(frozen=True)
class CheckpointConfig:
    every: Annotated[int, ">= 1"] = 5


@dataclass(frozen=True)
class LoopConfig:
    """What this loop reads of every algorithm's ``algo`` config: its name, the limits, the
    console, evaluation and checkpoint cadences. An algorithm's config extends it, giving
    ``name``, ``iterations`` and ``console_every`` its own defaults."""

    name: str
    iterations: Annotated[int, ">= 1"] | None
    console_every: Annotated[int, ">= 0"]
    time_limit_minutes: Annotated[float, "> 0"] | None = None
    eval: TrainingEvalConfig = field(default_factory=TrainingEvalConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)

    def __post_init__(self):
        name = next(f.default for f in dataclasses.fields(self) if f.name == "name")
        if self.name != name:
            raise ValueError(f"{type(self).__name__} is for algo.name={name}, got {self.name!r}")
        if self.iterations is None and self.time_limit_minutes is None:
            raise ValueError("config algo.iterations and algo.time_limit_minutes are both null: "
                             "give at least one limit")


@dataclass
class TrainResult:
    checkpoint: Path
    counters: dict
    final_eval: dict  # opponent -> arena MatchResult ({} when evaluation is off or stopped)
    history: list[dict] = field(default_factory=list)  # per-iteration scalars
    interrupted: bool = False


class Algorithm(Protocol):
    """What the loop needs of an algorithm. ``counters`` holds at least ``iteration``,
    ``seconds`` and ``started`` (the loop keeps those) beside the algorithm's own counts."""

    name: str
    Config: type         # its ``algo`` config dataclass (checked before a run starts)
    game: Any
    config: dict         # the run's full config, saved in every checkpoint
    algo: Any            # its typed ``algo`` config: iterations, time_limit_minutes,
                         # console_every, eval, checkpoint and its own settings
    counters: dict
    device: torch.device  # where the learner's gradient steps run (runner.learner_device)

    def start(self) -> dict: ...                    # once per run, before iteration 1
    def iteration(self, number: int, progress: float) -> dict: ...
    def progress_parts(self, stats: dict) -> list[str]: ...   # its part of the console line
    def acting(self): ...                           # how its agent plays (agents.network)
    def agent(self): ...                            # the trained agent (a NetworkAgent)
    def model(self) -> dict: ...                    # checkpoint.model_payload of its network
    def state_dict(self) -> dict: ...               # the rest of what a resume needs
    def load_state_dict(self, payload: dict) -> None: ...
    def replay_state(self) -> dict | None: ...      # bulky data saved beside the checkpoint
    def load_replay_state(self, state: dict) -> None: ...
    def sample_game(self) -> list[int] | None: ...  # actions of a recent game, for a GIF
    def close(self) -> None: ...                    # after the last iteration (and again at exit)


class NetworkAlgorithm:
    """What the algorithms here start from: the run's config read into the typed ``algo``
    (the subclass's ``Config``), ``model_config`` and ``runner_config``, the game and its
    encoder, and the network, its initial weights drawn from the run's seed; ``model()`` is the
    network's part of a checkpoint. ``net`` stays on the CPU (self-play, evaluation,
    checkpoints); the learner trains ``learning.trained`` on ``device`` and calls
    ``learning.sync()`` after each training call (training/device.py). A subclass adds its own
    state and the rest of :class:`Algorithm`."""

    name: str
    Config: type

    def __init__(self, config: dict):
        self.config = config
        self.algo = from_mapping(self.Config, config["algo"], "algo")
        self.model_config = model_config(config["model"])
        self.runner_config = from_mapping(RunnerConfig, config["runner"], "runner")
        self.device = learner_device(self.runner_config.learner_device)
        self.env_config = dict(config["env"])
        self.seed = int(config["seed"])
        self.game = envs.make_game(self.env_config)
        self.encoder = make_encoder(self.game, self.model_config.features)
        torch.manual_seed(self.seed)
        self.net = self.make_net()
        self.learning = learner_net(self.net, self.device)

    def make_net(self) -> torch.nn.Module:
        """A network of the run's shape (fresh weights)."""
        return build_network(self.encoder.shape, self.game.num_actions, self.game.num_players,
                             self.model_config, action_layout(self.encoder))

    def model(self) -> dict:
        return model_payload(self.net, self.encoder, self.game.num_actions,
                             self.game.num_players, self.model_config)


class Interrupted(Exception):
    """Raised by the first Ctrl-C in a phase that stops at once."""


class StopRequest:
    """SIGINT/SIGTERM handling for the run: the first signal asks the loop to stop (or, when
    ``at_once`` is set, interrupts the phase); a second one exits the process at once."""

    def __init__(self):
        self.requested = False
        self.at_once = False
        self._previous: dict = {}

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum, frame) -> None:
        if self.requested:
            print("\nsecond interrupt: exiting now", file=sys.stderr, flush=True)
            os._exit(INTERRUPTED_EXIT_CODE)
        self.requested = True
        if self.at_once:
            raise Interrupted
        print("\ninterrupt: finishing this iteration, then writing a checkpoint "
              "(interrupt again to quit at once)", flush=True)


def game_frames(game, actions: list[int], limit: int = 200) -> list[np.ndarray]:
    """Pictures of a game replayed from its actions: every decision position, then the end."""
    import envs

    draw = envs.game_package(game).draw
    state = game.new_initial_state()
    frames = [draw(state)]
    for action in actions:
        state.apply_action(action)
        if not state.is_chance_node() and len(frames) < limit:
            frames.append(draw(state))
    if len(frames) == limit:
        frames.append(draw(state))
    return frames


def limits_text(algo) -> str:
    parts = []
    if algo.iterations is not None:
        parts.append(f"iteration {algo.iterations}")
    if algo.time_limit_minutes is not None:
        parts.append(f"{algo.time_limit_minutes:g} minutes")
    return " or ".join(parts) + (", whichever comes first" if len(parts) == 2 else "")


def progress(algo, counters: dict) -> float:
    """The share of the run done, in [0, 1]: by iterations when they are limited, else by
    time (so a time-only run anneals over its budget)."""
    if algo.iterations is not None:
        return min(1.0, counters["iteration"] / algo.iterations)
    return min(1.0, counters["seconds"] / (60 * algo.time_limit_minutes))


def limit_reached(algo, counters: dict) -> bool:
    return ((algo.iterations is not None and counters["iteration"] >= algo.iterations)
            or (algo.time_limit_minutes is not None
                and counters["seconds"] >= 60 * algo.time_limit_minutes))


def _scalars(stats: dict) -> dict:
    return {k: float(v) for k, v in stats.items() if isinstance(v, (int, float, np.number))}


class Trainer:
    """Runs an :class:`Algorithm` in ``run_dir``; ``resume`` is a loaded checkpoint (and
    ``resume_path`` where it lies, for its replay file)."""

    def __init__(self, algorithm: Algorithm, run_dir: str | Path, logger: RunLogger,
                 resume: dict | None = None, resume_path: str | Path | None = None,
                 say: Callable[[str], None] = lambda line: print(line, flush=True)):
        self.algorithm = algorithm
        self.algo = algorithm.algo
        self.checkpoint = Path(run_dir) / "checkpoints" / "last.pt"
        self.curve = Path(run_dir) / "learning_curve.png"
        self.final_file = Path(run_dir) / "final_evaluation.json"
        self.commit = git_commit()  # of the code that writes the checkpoints
        self.logger = logger
        self.say = say
        self.history: list[dict] = []
        self.anchors: dict[str, float] = {}  # Elo of the evaluation's anchors, fixed for the run
        self.stop = StopRequest()
        if resume is not None:
            algorithm.load_state_dict(resume)
            self.history = list(resume.get("history") or [])
            self.anchors = dict(resume.get("anchors") or {})
            torch.set_rng_state(resume["rng"]["torch"])
            self._restore_replay(Path(resume_path))

    def _restore_replay(self, checkpoint: Path) -> None:
        remove_stale_temporaries(checkpoint)
        path = replay_path(checkpoint)
        iteration = self.algorithm.counters["iteration"]
        if self.algorithm.replay_state() is None:
            return
        state = load_replay(path, iteration) if path.is_file() else None
        if state is None:
            self.say(f"warning: no replay buffer of iteration {iteration} at {path}: resuming "
                     "with an empty buffer (the run goes on, but not exactly as it would have)")
            return
        self.algorithm.load_replay_state(state)

    def payload(self) -> dict:
        a = self.algorithm
        return {"algo": a.name, "config": a.config, "env_config": a.config["env"],
                "model": a.model(), "acting": a.acting().to_dict(),
                "counters": dict(a.counters), "history": self.history,
                "anchors": self.anchors, "commit": self.commit,
                "state": a.state_dict(), "rng": {"torch": torch.get_rng_state()}}

    def save(self) -> Path:
        replay = self.algorithm.replay_state()
        if replay is not None:
            save_replay(replay_path(self.checkpoint), self.algorithm.counters["iteration"],
                        replay)
        return save_checkpoint(self.checkpoint, self.payload())

    def run(self) -> TrainResult:
        a, algo, c = self.algorithm, self.algo, self.algorithm.counters
        with self.stop:
            try:
                return self._run(a, algo, c)
            except Interrupted:
                saved = self.checkpoint.is_file() and c["started"]
                self.say(f"interrupted: checkpoint {self.checkpoint} (resume with python "
                         f"train.py resume={self.checkpoint})" if saved else
                         "interrupted during the warm start: nothing was saved")
                return TrainResult(self.checkpoint if saved else None, dict(c), {},
                                   self.history, interrupted=True)
            finally:
                a.close()

    def _run(self, a: Algorithm, algo, c: dict) -> TrainResult:
        if c["iteration"]:
            self.say(f"resuming at iteration {c['iteration']} ({c['seconds'] / 60:.1f} min): "
                     f"runs to {limits_text(algo)}")
        if not c["started"]:
            self.stop.at_once = True
            start = time.perf_counter()
            stats = a.start()
            c["seconds"] += time.perf_counter() - start
            c["started"] = True
            self.stop.at_once = False
            self.logger.log(stats, step=0)
            self.save()
        elif limit_reached(algo, c):
            self.say(f"the checkpoint already reached its limit ({limits_text(algo)}); give a "
                     "higher algo.iterations or algo.time_limit_minutes to go on")
            return TrainResult(self.checkpoint, dict(c), {}, self.history)
        last = False
        while not last:  # at least one iteration: a limit stops after the iteration crossing it
            start = time.perf_counter()
            number = c["iteration"] + 1
            stats = a.iteration(number, progress(algo, c))
            c["iteration"] = number
            evaluated = algo.eval.enabled and algo.eval.every and number % algo.eval.every == 0
            if evaluated:
                stats.update(self._evaluate(number))
            c["seconds"] += time.perf_counter() - start
            stats["time/minutes"] = c["seconds"] / 60
            self.history.append({"iteration": number, **_scalars(stats)})
            if evaluated:
                self._draw_curve()
            self.logger.log(stats, step=number)
            last = limit_reached(algo, c) or self.stop.requested
            if last or (algo.console_every and number % algo.console_every == 0):
                self.say(self._progress_line(stats, number))
            if last or number % algo.checkpoint.every == 0:
                self.save()
        # Pipelined self-play has the next iteration's games in flight: they stop here (the
        # checkpoint holds them) instead of slowing the final evaluation down.
        a.close()
        if self.stop.requested:
            self.say(f"stopped at iteration {c['iteration']}: checkpoint {self.checkpoint} "
                     f"(resume with python train.py resume={self.checkpoint})")
            return TrainResult(self.checkpoint, dict(c), {}, self.history, interrupted=True)
        final = {}
        if algo.eval.enabled and algo.eval.final_games:
            self.stop.at_once = True
            games = match_games(algo.eval.final_games, a.game.num_players)
            final = evaluate(a.agent(), a.config["env"], algo.eval.final_opponents,
                             algo.eval.final_games, algo.eval.seed + 1,
                             ProgressLine("final evaluation",
                                          games * len(algo.eval.final_opponents)),
                             algo.eval.batch_games)
            self.stop.at_once = False
            final_metrics = {**metrics(final, prefix="final"),
                             **rating_metrics(trained_rating(
                                 final, {**algo.eval.anchor_ratings, **self.anchors}), "final")}
            self.logger.log(final_metrics, step=c["iteration"])
            self.logger.summary(final_metrics)
            self._draw_curve({**final_metrics, "games": games,
                              "time/minutes": c["seconds"] / 60})
            self.final_file.write_text(json.dumps(
                {"iteration": c["iteration"], "minutes": c["seconds"] / 60, "games": games,
                 "seed": algo.eval.seed + 1, "opponents": list(algo.eval.final_opponents),
                 "metrics": final_metrics}, indent=1))
        self.logger.log_checkpoint(self.checkpoint, f"{a.game.name}-{a.name}",
                                   {"iteration": c["iteration"]})
        return TrainResult(self.checkpoint, dict(c), final, self.history)

    def _draw_curve(self, final: dict | None = None) -> None:
        """Redraw learning_curve.png (a failure to draw only warns: the run goes on)."""
        a = self.algorithm
        with best_effort(f"learning curve {self.curve}"):
            write_learning_curve(self.history, self.anchors, self.curve,
                                 f"{a.game.name} {a.game.num_players}p, {a.name}", final)

    def _evaluate(self, number: int) -> dict:
        a, config = self.algorithm, self.algo.eval
        self.anchors = anchor_ratings(a.config["env"], config, self.anchors, self.say)
        results = evaluate(a.agent(), a.config["env"], config.opponents, config.games,
                           config.seed, batch_games=config.batch_games)
        actions = a.sample_game()
        if actions:
            self.logger.log_game(f"games/{a.name}", lambda: game_frames(a.game, actions),
                                 step=number)
        return {**metrics(results), **rating_metrics(trained_rating(results, self.anchors))}

    def _progress_line(self, stats: dict, number: int) -> str:
        algo, seconds = self.algo, self.algorithm.counters["seconds"]
        total = f"/{algo.iterations}" if algo.iterations is not None else ""
        parts = [f"iter {number}{total}", f"{stats['time/minutes']:.1f} min"]
        left = [60 * algo.time_limit_minutes - seconds] if algo.time_limit_minutes else []
        if algo.iterations is not None:
            left.append(seconds / number * (algo.iterations - number))
        if min(left) > 0:
            parts.append(f"~{min(left) / 60:.1f} min left")
        return " | ".join(parts + self.algorithm.progress_parts(stats) + win_rate_parts(stats))
