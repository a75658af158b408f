"""Hyperparameter sweeps (Hydra multirun, configs/sweep/*.yaml): every job of a sweep writes
``result.json`` in its folder (:func:`write_result`, called by train.py), and
``python -m training.sweep multirun/<sweep folder>`` collects them into one table, best score
first, printed and written to ``<sweep folder>/results.csv``.

The score is the final evaluation's win rate averaged over ``algo.eval.final_opponents``
(training/evaluation.py's ``score``), what train.py returns and the Optuna sweeper maximises.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from arena.report import report_console
from training.evaluation import metrics, score
from training.trainer import TrainResult

RESULT_FILE = "result.json"
TABLE_FILE = "results.csv"


def write_result(run_dir: str | Path, result: TrainResult, overrides: list[str]) -> Path:
    """``<run_dir>/result.json``: the job's overrides, score, final metrics and counters."""
    path = Path(run_dir) / RESULT_FILE
    path.write_text(json.dumps({
        "overrides": list(overrides), "score": score(result.final_eval),
        "interrupted": result.interrupted,
        "checkpoint": None if result.checkpoint is None else str(result.checkpoint),
        "iterations": result.counters.get("iteration"),
        "minutes": round(result.counters.get("seconds", 0.0) / 60, 2),
        "final": metrics(result.final_eval, prefix="final")}, indent=1))
    return path


def collect(sweep_dir: str | Path) -> list[dict]:
    """Every job's result under ``sweep_dir``, best score first (unscored jobs last)."""
    rows = [{"job": str(path.parent.relative_to(sweep_dir)), **json.loads(path.read_text())}
            for path in sorted(Path(sweep_dir).rglob(RESULT_FILE))]
    return sorted(rows, key=lambda r: (r["score"] is None, -(r["score"] or 0.0)))


def parameters(row: dict) -> dict[str, str]:
    """A job's overrides as ``{key: value}``."""
    return dict(o.split("=", 1) for o in row["overrides"] if "=" in o)


def write_table(rows: list[dict], path: str | Path, console: Console | None = None) -> None:
    """The rows as ``path`` (CSV, every override a column) and as a table on the console (the
    overrides that differ between jobs as columns, the common ones in the caption)."""
    keys = list(dict.fromkeys(k for row in rows for k in parameters(row)))
    varying = [k for k in keys if len({parameters(r).get(k) for r in rows}) > 1]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["job", "score", "iterations", "minutes", *keys])
        for row in rows:
            values = parameters(row)
            writer.writerow([row["job"], row["score"], row["iterations"], row["minutes"],
                             *(values.get(k, "") for k in keys)])
    common = " ".join(f"{k}={v}" for k, v in parameters(rows[0]).items() if k not in varying)
    table = Table("job", "score", *varying, "iterations", "minutes",
                  title=f"{len(rows)} jobs, best first", caption=f"all jobs: {common}")
    for row in rows:
        values = parameters(row)
        table.add_row(row["job"], "-" if row["score"] is None else f"{row['score']:.3f}",
                      *(values.get(k, "") for k in varying), str(row["iterations"]),
                      str(row["minutes"]))
    (console or report_console()).print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep_dir", help="the sweep's folder (hydra.sweep.dir), e.g. "
                        "multirun/2026-01-31/12-00-00")
    args = parser.parse_args(argv)
    rows = collect(args.sweep_dir)
    if not rows:
        print(f"error: no {RESULT_FILE} under {args.sweep_dir}: not a sweep folder, or no job "
              "has finished yet", file=sys.stderr)
        return 2
    write_table(rows, Path(args.sweep_dir) / TABLE_FILE)
    print(f"table: {Path(args.sweep_dir) / TABLE_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
