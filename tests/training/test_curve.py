"""The learning curve's drawing, from a synthetic trainer history."""

import numpy as np
import pytest

from training.curve import minutes_to_iterations, write_learning_curve


def history(evaluated_at: set[int], iterations: int = 5) -> list[dict]:
    """Iteration i ends at minute 2 i; the evaluated ones carry a rating and a win rate."""
    rows = []
    for i in range(1, iterations + 1):
        row = {"iteration": i, "time/minutes": 2.0 * i}
        if i in evaluated_at:
            row.update({"eval/rating": 100.0 * i, "eval/rating_low": 100.0 * i - 50,
                        "eval/rating_high": 100.0 * i + 50, "eval/random/win_rate": 0.5,
                        "eval/random/win_low": 0.3, "eval/random/win_high": 0.7})
        rows.append(row)
    return rows


def test_the_iteration_axis_places_iterations_outside_the_evaluated_ones():
    """Iterations before the first and after the last evaluation sit at their own minutes (an
    axis built from the evaluated iterations alone clamped them to the nearest evaluation)."""
    minutes, iterations = minutes_to_iterations(history({2, 3}))
    assert np.interp([1.0, 2.0, 7.0, 10.0], minutes, iterations) == pytest.approx([0.5, 1, 3.5, 5])
    assert np.interp([1, 5], iterations, minutes) == pytest.approx([2.0, 10.0])


def test_a_curve_is_drawn_with_one_or_several_evaluations(tmp_path):
    from PIL import Image

    for evaluated_at in ({3}, {2, 4}):
        path = write_learning_curve(history(evaluated_at), {"random": 0.0},
                                    tmp_path / f"curve{len(evaluated_at)}.png", "test")
        with Image.open(path) as image:
            assert image.format == "PNG" and min(image.size) > 100
    assert write_learning_curve(history(set()), {"random": 0.0}, tmp_path / "none.png",
                                "test") is None


def test_strength_per_cpu_hour_reads_a_runs_checkpoint_and_final_evaluation(tmp_path):
    """docs/experiments/cpu_hour_curves.py: each periodic rating at its CPU-hours (minutes x
    cores / 60), the final evaluation last, as a table and a figure."""
    import json
    import os
    import subprocess
    import sys

    import torch
    from policy_files import ROOT, tiny_checkpoint

    from training.saving import save_checkpoint

    path = tiny_checkpoint(tmp_path / "run" / "checkpoints" / "last.pt",
                           {"name": "nobles", "num_players": 3})
    payload = torch.load(path, map_location="cpu", weights_only=False)
    save_checkpoint(path, {**payload, "history": history({2, 4}), "anchors": {"heuristic": 0.0}})
    (tmp_path / "run" / "final_evaluation.json").write_text(json.dumps(
        {"minutes": 12.0, "games": 200, "metrics": {"final/rating": 350.0,
                                                    "final/rating_low": 300.0,
                                                    "final/rating_high": 400.0}}))
    out = tmp_path / "curves.png"
    done = subprocess.run([sys.executable, "docs/experiments/cpu_hour_curves.py",
                           f"Nobles 3p={tmp_path / 'run'}", "--cores", "2", "--out", str(out)],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| Nobles 3p")]
    assert rows == ["| Nobles 3p | 0.13 | periodic | 200 [150, 250] |",
                    "| Nobles 3p | 0.27 | periodic | 400 [350, 450] |",
                    "| Nobles 3p | 0.40 | final | 350 [300, 400] |"]
    assert out.stat().st_size > 1000
