"""Pipelined self-play against play-then-learn (``algo.pipeline``, issue 19 item 7, issue 21):
short AlphaZero runs with ``runner=processes``, the same config and seed, pipeline off and on
in alternating order (on a shared machine, interleaving spreads the other jobs' load over
both), each a fresh ``train.py`` process. From each run's checkpoint history, over the
iterations after the first (its time holds the workers' start, and it has nothing to overlap):

- ``s/iter``: wall seconds per iteration (the trainer's clock: self-play wait, learner,
  checkpoint);
- ``pos/s``: self-play decisions per wall second over those iterations, the run's throughput
  (pipelined runs play other games, with one iteration stale weights, so game lengths differ:
  compare this, not iterations alone);
- ``wait s`` and ``learn s``: per iteration, the main process waiting for games
  (``time/selfplay_s``) and training (``time/learner_s``);
- ``wait share``: wait / (wait + learn), the share of those in which the learner idled.

    python benchmarks/pipeline_speed.py                       # default Blockade, 2 rounds
    python benchmarks/pipeline_speed.py --rounds 3 env=nobles algo.games_per_iteration=32

Arguments after the options are Hydra overrides added to the defaults below.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from models.checkpoint import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = ["logger=disabled", "runner=processes", "runner.workers=2", "algo.iterations=4",
            "algo.time_limit_minutes=null", "algo.games_per_iteration=8",
            "algo.warm_start.games=0", "algo.eval.every=0", "algo.eval.final_games=0",
            "algo.checkpoint.every=1000"]


def train(overrides: list[str], pipeline: bool, folder: Path) -> dict:
    """One run; its per-iteration figures after the first, and its process's wall seconds."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "train.py", *overrides, f"algo.pipeline={pipeline}",
                    f"hydra.run.dir={folder}"], cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT), "WANDB_MODE": "disabled"})
    wall = time.perf_counter() - start
    history = load_checkpoint(folder / "checkpoints" / "last.pt")["history"]
    seconds = np.diff([60 * h["time/minutes"] for h in history])
    games = np.diff([h["counters/games"] for h in history])
    later = history[1:]
    moves = games * np.array([h["selfplay/game_length"] for h in later])
    wait = np.array([h["time/selfplay_s"] for h in later])
    learn = np.array([h["time/learner_s"] for h in later])
    return {"s/iter": seconds.mean(), "pos/s": moves.sum() / seconds.sum(),
            "wait s": wait.mean(), "learn s": learn.mean(),
            "wait share": wait.sum() / (wait.sum() + learn.sum()), "run s": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs (off, on)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides after the defaults")
    args = parser.parse_args()
    overrides = [*DEFAULTS, *args.overrides]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    columns = ["s/iter", "pos/s", "wait s", "learn s", "wait share", "run s"]
    table = Table("round", "pipeline", *columns,
                  title=f"AlphaZero, runner=processes, commit {commit}: "
                        f"{' '.join(args.overrides) or 'defaults'}")
    results: dict[bool, list[dict]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = (False, True) if r % 2 == 0 else (True, False)
            for pipeline in order:
                result = train(overrides, pipeline, Path(tmp) / f"{r}-{pipeline}")
                results[pipeline].append(result)
                print(f"round {r + 1} pipeline {pipeline}: "
                      + ", ".join(f"{k} {v:.2f}" for k, v in result.items()), flush=True)
                table.add_row(str(r + 1), str(pipeline).lower(),
                              *(f"{result[c]:.2f}" for c in columns))
    for pipeline, runs in results.items():
        table.add_row("mean", str(pipeline).lower(),
                      *(f"{np.mean([run[c] for run in runs]):.2f}" for c in columns))
    Console().print(table)


if __name__ == "__main__":
    main()
