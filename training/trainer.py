"""The loop every algorithm shares. An algorithm (training/alphazero/, training/ppo/) brings
its training state and one step, :meth:`training.algorithm.Algorithm.iteration`; this module
runs it:

    algorithm.start()                      # once per run (a warm start), then a checkpoint
    until algo.iterations or algo.time_limit_minutes is reached:
        step = algorithm.iteration(number, progress)
        every eval.every iterations:       the trained policy against eval.opponents (arena),
                                           its rating against them (fixed anchors) and
                                           learning_curve.png
        every checkpoint.every iterations: checkpoints/last.pt (and replay.pt)
        every checkpoint.keep_every:       a copy kept as checkpoints/iteration_NNNNNN.pt
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

import numpy as np
import torch

from arena.media import best_effort
from arena.report import ProgressLine
from models.checkpoint import git_commit
from training.algorithm import Algorithm, Step
from training.curve import write_learning_curve
from training.evaluation import (
    anchor_ratings,
    evaluate,
    match_games,
    metrics,
    rating_metrics,
    table_ratings,
    trained_rating,
    win_rate_parts,
)
from training.logging import RunLogger
from training.saving import (
    kept_checkpoint,
    load_replay,
    remove_stale_temporaries,
    replay_path,
    save_checkpoint,
    save_replay,
)

INTERRUPTED_EXIT_CODE = 130


@dataclass
class TrainResult:
    checkpoint: Path | None
    counters: dict  # the loop's (iteration, seconds, started) and the algorithm's own
    final_eval: dict  # opponent -> arena MatchResult ({} when evaluation is off or stopped)
    final_ratings: dict = field(default_factory=dict)  # name -> Rating: trained and anchors
    history: list[dict] = field(default_factory=list)  # per-iteration scalars
    interrupted: bool = False


@dataclass
class LoopCounters:
    """What the loop counts: iterations done, seconds of work (warm start, iterations and
    periodic evaluations; not the final evaluation) and whether the warm start ran."""

    iteration: int = 0
    seconds: float = 0.0
    started: bool = False


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
            notify(sys.__stderr__, "\nsecond interrupt: exiting now\n")
            os._exit(INTERRUPTED_EXIT_CODE)
        self.requested = True
        if self.at_once:
            raise Interrupted
        notify(sys.__stdout__, "\ninterrupt: finishing this iteration, then writing a "
                               "checkpoint (interrupt again to quit at once)\n")


def notify(stream, text: str) -> None:
    """``text`` on ``stream``'s file descriptor in one ``os.write``, as a signal handler has to
    say things: printing through Python's buffered streams raised "reentrant call" and killed
    the run when the signal came while the main thread was writing the console (the log tee
    flushes every line). train.log keeps the loop's own line about the stop instead."""
    try:
        os.write(stream.fileno(), text.encode())
    except (AttributeError, OSError, ValueError):  # no descriptor behind it: nothing to tell
        pass


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


def run_progress(algo, loop: LoopCounters) -> float:
    """The share of the run done, in [0, 1]: by iterations when they are limited, else by
    time (so a time-only run anneals over its budget)."""
    if algo.iterations is not None:
        return min(1.0, loop.iteration / algo.iterations)
    return min(1.0, loop.seconds / (60 * algo.time_limit_minutes))


def limit_reached(algo, loop: LoopCounters) -> bool:
    return ((algo.iterations is not None and loop.iteration >= algo.iterations)
            or (algo.time_limit_minutes is not None
                and loop.seconds >= 60 * algo.time_limit_minutes))


def progress_parts(algo, loop: LoopCounters) -> list[str]:
    """The iteration, the minutes and the time left, each against the limit expected to end
    the run (``iter 12/200`` when the iterations will, ``3.2/10 min`` when the time will)."""
    minutes = loop.seconds / 60
    by_time = (None if algo.time_limit_minutes is None
               else 60 * algo.time_limit_minutes - loop.seconds)
    by_iterations = (None if algo.iterations is None
                     else loop.seconds / loop.iteration * (algo.iterations - loop.iteration))
    iterations_end_it = by_time is None or (by_iterations is not None
                                            and by_iterations <= by_time)
    parts = [f"iter {loop.iteration}" + (f"/{algo.iterations}" if iterations_end_it else ""),
             f"{minutes:.1f} min" if iterations_end_it
             else f"{minutes:.1f}/{algo.time_limit_minutes:g} min"]
    left = by_iterations if iterations_end_it else by_time
    if left > 0:
        parts.append(f"~{left / 60:.1f} min left")
    return parts


def scalars(metrics: dict) -> dict:
    return {k: float(v) for k, v in metrics.items() if isinstance(v, (int, float, np.number))}


class Trainer:
    """Runs an :class:`training.algorithm.Algorithm` in ``run_dir``; ``resume`` is a loaded
    checkpoint (and ``resume_path`` where it lies, for its replay file)."""

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
        self.loop = LoopCounters()
        self.history: list[dict] = []
        self.anchors: dict[str, float] = {}  # Elo of the evaluation's anchors, fixed for the run
        self.stop = StopRequest()
        if resume is not None:
            algorithm.load_state_dict(resume)
            self.loop = LoopCounters(**{f.name: resume["counters"][f.name]
                                        for f in dataclasses.fields(LoopCounters)})
            self.history = list(resume["history"])
            self.anchors = dict(resume["anchors"])
            torch.set_rng_state(resume["rng"]["torch"])
            # a kept copy is never written again, so only here are its killed saves cleaned
            remove_stale_temporaries(self.checkpoint.parent)
            self._restore_replay(Path(resume_path))

    def _restore_replay(self, checkpoint: Path) -> None:
        if not hasattr(self.algorithm, "replay_state") or self.algorithm.replay_state() is None:
            return
        path = replay_path(checkpoint)
        state = load_replay(path, self.loop.iteration) if path.is_file() else None
        if state is None:
            self.say(f"warning: no replay buffer of iteration {self.loop.iteration} at {path}: "
                     "resuming with an empty buffer (the run goes on, but not exactly as it "
                     "would have)")
            return
        self.algorithm.load_replay_state(state)

    def counters(self) -> dict:
        return {**dataclasses.asdict(self.loop), **self.algorithm.counters}

    def payload(self) -> dict:
        a = self.algorithm
        return {"algo": a.name, "config": a.config, "env_config": a.config["env"],
                "model": a.model(), "acting": a.acting().to_dict(),
                "counters": self.counters(), "history": self.history,
                "anchors": self.anchors, "commit": self.commit,
                "state": a.state_dict(), "rng": {"torch": torch.get_rng_state()}}

    def save(self, keep: bool = False) -> Path:
        """Write last.pt (and the replay beside it); with ``keep`` also a copy named by the
        iteration, which later saves leave as it is."""
        replay = self.algorithm.replay_state() if hasattr(self.algorithm, "replay_state") \
            else None
        if replay is not None:
            save_replay(replay_path(self.checkpoint), self.loop.iteration, replay)
        payload = self.payload()
        if keep:
            save_checkpoint(kept_checkpoint(self.checkpoint, self.loop.iteration), payload)
        return save_checkpoint(self.checkpoint, payload)

    def run(self) -> TrainResult:
        with self.stop:
            try:
                return self._run()
            except Interrupted:
                saved = self.checkpoint.is_file() and self.loop.started
                self.say(f"interrupted: checkpoint {self.checkpoint} (resume with python "
                         f"train.py resume={self.checkpoint})" if saved else
                         "interrupted during the warm start: nothing was saved")
                return self._result({}, interrupted=True, saved=saved)
            finally:
                self.algorithm.close()

    def _result(self, final: dict, interrupted: bool = False, saved: bool = True,
                ratings: dict | None = None) -> TrainResult:
        return TrainResult(self.checkpoint if saved else None, self.counters(), final,
                           ratings or {}, self.history, interrupted)

    def _run(self) -> TrainResult:
        algo = self.algo
        if self.loop.iteration:
            self.say(f"resuming at iteration {self.loop.iteration} "
                     f"({self.loop.seconds / 60:.1f} min): runs to {limits_text(algo)}")
        if not self.loop.started:
            self._start()
        elif limit_reached(algo, self.loop):
            self.say(f"the checkpoint already reached its limit ({limits_text(algo)}); give a "
                     "higher algo.iterations or algo.time_limit_minutes to go on")
            return self._result({})
        last = False
        while not last:  # at least one iteration: a limit stops after the iteration crossing it
            step = self._iteration(self.loop.iteration + 1)
            number = self.loop.iteration
            last = limit_reached(algo, self.loop) or self.stop.requested
            if last or (algo.console_every and number % algo.console_every == 0):
                self.say(" | ".join(progress_parts(algo, self.loop) + step.console
                                    + win_rate_parts(step.metrics)))
            keep = bool(algo.checkpoint.keep_every) and number % algo.checkpoint.keep_every == 0
            if last or keep or number % algo.checkpoint.every == 0:
                self.save(keep)
        self.algorithm.close()  # the workers are not needed for the final evaluation
        if self.stop.requested:
            self.say(f"stopped at iteration {number}: checkpoint {self.checkpoint} "
                     f"(resume with python train.py resume={self.checkpoint})")
            return self._result({}, interrupted=True)
        final, ratings = self._final_evaluation()
        self.logger.log_checkpoint(self.checkpoint, f"{self.algorithm.game.name}-"
                                   f"{self.algorithm.name}", {"iteration": number})
        return self._result(final, ratings=ratings)

    def _start(self) -> None:
        """The algorithm's warm start (a Ctrl-C stops it at once: nothing to keep yet), then
        the first checkpoint."""
        self.stop.at_once = True
        start = time.perf_counter()
        metrics = self.algorithm.start()
        self.loop.seconds += time.perf_counter() - start
        self.loop.started = True
        self.stop.at_once = False
        self.logger.log(metrics, step=0)
        self.save()

    def _iteration(self, number: int) -> Step:
        """Iteration ``number``, its periodic evaluation when one is due, its history entry
        and its metrics logged."""
        eval_config = self.algo.eval
        start = time.perf_counter()
        step = self.algorithm.iteration(number, run_progress(self.algo, self.loop))
        self.loop.iteration = number
        evaluated = eval_config.enabled and eval_config.every and number % eval_config.every == 0
        if evaluated:
            step.metrics.update(self._evaluate(number))
        self.loop.seconds += time.perf_counter() - start
        step.metrics["time/minutes"] = self.loop.seconds / 60
        self.history.append({"iteration": number, **scalars(step.metrics)})
        if evaluated:
            self._draw_curve()
        self.logger.log(step.metrics, step=number)
        return step

    def _final_evaluation(self) -> tuple[dict, dict]:
        """The trained agent against ``eval.final_opponents`` (a Ctrl-C stops it at once: the
        checkpoint is written), into final_evaluation.json, W&B's summary and the curve.
        Returns the matches and the ratings its tables show."""
        a, config = self.algorithm, self.algo.eval
        if not (config.enabled and config.final_games):
            return {}, {}
        self.stop.at_once = True
        games = match_games(config.final_games, a.game.num_players)
        final = evaluate(a.agent(), a.config["env"], config.final_opponents, config.final_games,
                         config.seed + 1,
                         ProgressLine("final evaluation", games * len(config.final_opponents)),
                         config.batch_games)
        self.stop.at_once = False
        anchors = {name: rating for name, rating in {**config.anchor_ratings,
                                                    **self.anchors}.items() if name in final}
        trained = trained_rating(final, anchors)
        final_metrics = {**metrics(final, prefix="final"), **rating_metrics(trained, "final")}
        self.logger.log(final_metrics, step=self.loop.iteration)
        self.logger.summary(final_metrics)
        self._draw_curve({**final_metrics, "games": games,
                          "time/minutes": self.loop.seconds / 60})
        self.final_file.write_text(json.dumps(
            {"iteration": self.loop.iteration, "minutes": self.loop.seconds / 60,
             "games": games, "seed": config.seed + 1, "opponents": list(config.final_opponents),
             "date": time.strftime("%Y-%m-%d", time.gmtime()),  # the zoo figures' date
             "metrics": final_metrics}, indent=1))
        return final, table_ratings(final, trained, anchors)

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
        actions = a.sample_game() if hasattr(a, "sample_game") else None
        if actions:
            self.logger.log_game(f"games/{a.name}", lambda: game_frames(a.game, actions),
                                 step=number)
        return {**metrics(results), **rating_metrics(trained_rating(results, self.anchors))}
