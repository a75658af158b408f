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
    # past the run at its mean pace (a clamped axis is stretched over the margin)
    assert np.interp([12.0, 20.0], minutes, iterations) == pytest.approx([6, 10])


def test_the_iteration_ticks_sit_at_their_minutes_with_a_margin_after_the_run(tmp_path,
                                                                             monkeypatch):
    import matplotlib.pyplot as plt

    drawn = []
    monkeypatch.setattr(plt, "close", drawn.append)
    final = {"final/rating": 300.0, "games": 200, "time/minutes": 10.0}
    write_learning_curve(history({3}), {"random": 0.0}, tmp_path / "c.png", "t", final)
    figure = drawn[-1]
    top = figure.axes[0]
    assert top.get_xlim()[1] > 11  # the margin after the run's 10 minutes
    (iteration_axis,) = top.child_axes
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for label in iteration_axis.get_xticklabels():
        if label.get_text():
            centre = label.get_window_extent(renderer).get_points().mean(axis=0)
            minute = top.transData.inverted().transform(centre)[0]
            assert minute == pytest.approx(2 * float(label.get_text()), abs=0.1)


def test_a_curve_is_drawn_with_one_or_several_evaluations(tmp_path):
    from PIL import Image

    for evaluated_at in ({3}, {2, 4}):
        path = write_learning_curve(history(evaluated_at), {"random": 0.0},
                                    tmp_path / f"curve{len(evaluated_at)}.png", "test")
        with Image.open(path) as image:
            assert image.format == "PNG" and min(image.size) > 100
    assert write_learning_curve(history(set()), {"random": 0.0}, tmp_path / "none.png",
                                "test") is None


def test_a_lone_evaluation_shows_its_interval_as_an_error_bar(tmp_path, monkeypatch):
    """A band through one point has no width: the first periodic evaluation of a long run was
    drawn without any interval."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.container import ErrorbarContainer

    drawn = []
    monkeypatch.setattr(plt, "close", drawn.append)
    for evaluated_at in ({3}, {2, 4}):
        write_learning_curve(history(evaluated_at), {"random": 0.0}, tmp_path / "c.png", "t")
        top, bottom = drawn[-1].axes[:2]
        for axes, (low, high) in ((top, (250, 350)), (bottom, (0.3, 0.7))):
            bars = [c for c in axes.containers if isinstance(c, ErrorbarContainer)]
            bands = [c for c in axes.collections if isinstance(c, PolyCollection)]
            if len(evaluated_at) == 1:
                assert len(bars) == 1 and not bands
                segment = bars[0].lines[2][0].get_segments()[0]
                assert segment[:, 1] == pytest.approx([low, high])
            else:
                assert len(bands) == 1 and not bars


def test_strength_per_cpu_hour_reads_a_runs_checkpoint_and_final_evaluation(tmp_path):
    """docs/experiments/cpu_hour_curves.py: each periodic rating at its CPU-hours (minutes x
    cores / 60), a kept checkpoint's rating from an evaluation at the CPU-hours it was saved
    (another run's checkpoint in that evaluation left out), the final evaluation last, as a
    table and a figure."""
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
    # A kept copy at 6 minutes, rated by an evaluate.py run beside another run's checkpoint.
    kept = path.with_name("iteration_000003.pt")
    save_checkpoint(kept, {**payload, "counters": {"iteration": 3, "seconds": 360.0}})
    other = tmp_path / "other" / "checkpoints" / "last.pt"
    save_checkpoint(other, {**payload, "counters": {"iteration": 9, "seconds": 60.0}})
    # The evaluation lists the kept copy first (so it held that copy at 0, not the heuristic);
    # the copy wins 3 of 4 games against two heuristics, the other run's copy 1 of 4.
    evaluation = tmp_path / "results.json"
    games = [{"seats": seats, "returns": returns}
             for name, wins in ((f"checkpoint:{kept}", 3), (f"checkpoint:{other}:sims=8", 1))
             for game in range(4)
             for seats, returns in [([name, "heuristic", "heuristic#2"],
                                     [1, -0.5, -0.5] if game < wins else [-0.5, 1, -0.5])]]
    evaluation.write_text(json.dumps({"games": games, "ratings": [
        {"name": f"checkpoint:{kept}", "rating": 0.0, "low": 0.0, "high": 0.0}]}))
    out = tmp_path / "curves.png"
    done = subprocess.run([sys.executable, "docs/experiments/cpu_hour_curves.py",
                           f"Nobles 3p={tmp_path / 'run'}", "--cores", "2", "--out", str(out),
                           "--evaluations", str(evaluation)],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| Nobles 3p")]
    assert [row for i, row in enumerate(rows) if i != 1] == [
        "| Nobles 3p | 0.13 | periodic | 200 [150, 250] |",
        "| Nobles 3p | 0.27 | periodic | 400 [350, 450] |",
        "| Nobles 3p | 0.40 | final | 350 [300, 400] |"]
    kept_row = rows[1].split(" | ")
    assert kept_row[1:3] == ["0.20", "kept, 4 games"]
    rating, low, high = (float(x) for x in kept_row[3].strip(" |").replace("[", "").replace(
        "]", "").replace(",", "").split())
    assert low < rating < high and rating > 100  # above the heuristic (at 0), not held at 0
    assert out.stat().st_size > 1000


def test_a_curve_is_drawn_when_an_interval_of_no_width_sits_an_ulp_off_its_value(tmp_path):
    """A rating all of whose bootstrap samples agree has an interval of no width, which rounding
    can put an ulp beside the rating itself (-381.6970037757299 in [-381.69700377572997, the
    same]); the error bar must not come out negative, which matplotlib refuses."""
    rows = history({3})
    rows[2].update({"eval/rating": -381.6970037757299,
                    "eval/rating_low": -381.69700377572997,
                    "eval/rating_high": -381.69700377572997})
    final = {"final/rating": 1.0 + 2e-16, "final/rating_low": 1.0, "final/rating_high": 1.0,
             "final/random/win_rate": 0.0, "final/random/win_low": 1e-17,
             "final/random/win_high": 0.3, "games": 7, "time/minutes": 10.0}
    assert write_learning_curve(rows, {"random": 0.0}, tmp_path / "c.png", "t", final).exists()
