"""Strength per CPU-hour: the rating of each run's periodic evaluations against the CPU-hours of
training that preceded it, one panel per run, from the history its checkpoint keeps.

    PYTHONPATH=. python docs/experiments/cpu_hour_curves.py \
        "Nobles 2p=outputs/train/nobles/RUN" "Barricade=outputs/train/barricade/RUN" \
        --cores 2 --out docs/images/strength_per_cpu_hour.png

Each ``LABEL=RUN_DIR`` names a training run folder (``checkpoints/last.pt`` inside it). A run's
CPU-hours are its training wall time times ``--cores`` (the cores it had to itself; a run that
shared the machine gets less done per CPU-hour than this says). The rating is the one the run's
learning curve shows (Elo with the run's fixed anchors, the heuristic at 0 in the recipes), with
its 95% interval; the run's final 200-game evaluation, when it had one, is the last point.
``--evaluations`` adds the checkpoints of a run that an ``evaluate.py`` run played (its
results.json; their games rated again on the run's scale), each at the CPU-hours it was saved:
the copies ``algo.checkpoint.keep_every`` kept along the run, rated on 200 games where the
periodic evaluations play 20:

    python evaluate.py env=nobles env.num_players=3 schedule=versus opponent=heuristic \
        'agents=["checkpoint:RUN/checkpoints/iteration_000040.pt", ...]' games=200 seed=12346
    PYTHONPATH=. python docs/experiments/cpu_hour_curves.py "Nobles 3p=RUN" \
        --evaluations outputs/eval/nobles/DATE/results.json

Prints a markdown table of the same points.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agents import parse_spec
from arena.stats import RatedGames, fit_ratings
from models.checkpoint import load_checkpoint
from training.curve import draw_anchors, evaluated


def run_points(run_dir: Path, cores: float) -> tuple[list[tuple], tuple | None, dict]:
    """(CPU-hours, rating, low, high) at each periodic evaluation of the run, the same at its
    final evaluation (``final_evaluation.json``; None without one), and the run's anchors."""
    payload = load_checkpoint(run_dir / "checkpoints" / "last.pt")
    points = [(entry["time/minutes"] * cores / 60.0, entry["eval/rating"],
               entry["eval/rating_low"], entry["eval/rating_high"])
              for entry in evaluated(payload["history"])]
    final, path = None, run_dir / "final_evaluation.json"
    if path.exists():
        record = json.loads(path.read_text())
        metrics = record["metrics"]
        final = (record["minutes"] * cores / 60.0, metrics["final/rating"],
                 metrics["final/rating_low"], metrics["final/rating_high"])
    return points, final, payload.get("anchors", {})


def kept_points(run_dir: Path, evaluations: list[Path], cores: float,
                anchors: dict) -> list[tuple]:
    """(CPU-hours, rating, low, high, games) of each checkpoint of ``run_dir`` that one of the
    ``evaluations`` (evaluate.py's results.json) played, in the order of CPU-hours: its games
    rated again with the run's ``anchors`` held (an evaluation without ``random`` holds its
    first agent at 0)."""
    folder = (run_dir / "checkpoints").resolve()
    points = []
    for evaluation in evaluations:
        record = json.loads(evaluation.read_text())
        rated = RatedGames.of([(game["seats"], game["returns"]) for game in record["games"]])
        fixed = {name: value for name, value in anchors.items() if name in rated.names}
        ratings = {r.name: r for r in fit_ratings(rated, fixed or None)}
        for index, name in enumerate(rated.names):
            if not name.startswith("checkpoint:"):
                continue
            path = Path(parse_spec(name)[1]["path"])
            if path.resolve().parent != folder:
                continue
            seconds = load_checkpoint(path)["counters"]["seconds"]
            games = int(rated.seats[:, index] @ rated.counts)  # the seats it held
            rating = ratings[name]
            points.append((seconds * cores / 3600.0, rating.rating, rating.low, rating.high,
                           games))
    return sorted(points)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="LABEL=RUN_DIR")
    parser.add_argument("--cores", type=float, default=2.0)
    parser.add_argument("--out", default="docs/images/strength_per_cpu_hour.png")
    parser.add_argument("--evaluations", nargs="*", type=Path, default=[],
                        help="evaluate.py results.json files that rate checkpoints of the runs")
    args = parser.parse_args()
    runs = []
    for spec in args.runs:
        label, sep, folder = spec.partition("=")
        if not sep:
            parser.error(f"expected LABEL=RUN_DIR, got {spec!r}")
        points, final, anchors = run_points(Path(folder), args.cores)
        runs.append((label, points, final, anchors,
                     kept_points(Path(folder), args.evaluations, args.cores, anchors)))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # one scale for every panel: the runs are compared on it
    figure, axes = plt.subplots(1, len(runs), figsize=(4 * len(runs), 3.6), squeeze=False,
                                sharex=True, sharey=True)
    print("| run | CPU-hours | evaluation | rating [95% CI] |\n|---|---|---|---|")
    for axis, (label, points, final, anchors, kept) in zip(axes[0], runs, strict=True):
        hours, rating, low, high = (np.array(column) for column in zip(*points, strict=True))
        axis.fill_between(hours, low, high, alpha=0.25, label="periodic (20 games)")
        axis.plot(hours, rating, "o-")
        if kept:
            k_hours, k_rating, k_low, k_high, _ = (np.array(c) for c in zip(*kept, strict=True))
            axis.errorbar(k_hours, k_rating, yerr=[k_rating - k_low, k_high - k_rating],
                          fmt="s-", color="C1", capsize=3, label="kept checkpoints")
        if final is not None:
            axis.errorbar([final[0]], [final[1]], yerr=[[final[1] - final[2]],
                                                        [final[3] - final[1]]],
                          fmt="*", color="black", markersize=10, capsize=3, label="final")
        if final is not None or kept:
            axis.legend(loc="lower right", fontsize=8)
        draw_anchors(axis, anchors)
        axis.set_title(label)
        axis.set_xlabel("CPU-hours of training")
        axis.grid(alpha=0.3)
        rows = [(*p, "periodic") for p in points] + [(*p[:4], f"kept, {p[4]} games")
                                                     for p in kept]
        rows = sorted(rows) + ([(*final, "final")] if final else [])
        for hours_, rating_, low_, high_, kind in rows:
            print(f"| {label} | {hours_:.2f} | {kind} | {rating_:.0f} [{low_:.0f}, "
                  f"{high_:.0f}] |")
    axes[0][0].set_ylabel("Elo (anchors fixed, 95% interval)")
    figure.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out, dpi=100)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
