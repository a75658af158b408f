"""The learning curve of a run (``learning_curve.png`` in its folder), drawn from the trainer's
history at every periodic evaluation: the trained agent's rating against the fixed anchors
with its 95% interval, and its win rate against each anchor with its Wilson interval, over the
training minutes (iterations on the top axis). The final evaluation, when the run ends with
one, is the curve's last point (a star with its interval bar: more games, other opponents
possibly). A resumed run's history goes on where it stopped, so its curve does too."""

from __future__ import annotations

from pathlib import Path

import numpy as np

WIN_RATE = "/win_rate"


def evaluated(history: list[dict]) -> list[dict]:
    """The history entries of iterations with a periodic evaluation that gave a rating."""
    return [entry for entry in history if "eval/rating" in entry]


def minutes_to_iterations(history: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """The (minutes, iterations) points the top axis interpolates between: every iteration of the
    history and the run's start, so iterations before the first and after the last evaluation
    are placed right too (the evaluated points alone would clamp there). Past the last iteration
    the run's mean pace goes on: an axis whose range ends beyond the run (the margin after a
    final evaluation) would otherwise clamp there, and matplotlib then spreads the clamped
    range over the whole axis, every tick off by the margin."""
    minutes = [0.0, *[entry["time/minutes"] for entry in history]]
    iterations = [0.0, *[entry["iteration"] for entry in history]]
    if minutes[-1] > 0:
        minutes.append(10 * minutes[-1])
        iterations.append(10 * iterations[-1])
    return np.array(minutes), np.array(iterations)


def anchor_names(points: list[dict], prefix: str = "eval/") -> list[str]:
    """The opponents evaluated against, in the order they first appear (``eval/<opp>/...``)."""
    names: dict[str, None] = {}
    for entry in points:
        for key in entry:
            if key.startswith(prefix) and key.endswith(WIN_RATE):
                names[key[len(prefix):-len(WIN_RATE)]] = None
    return list(names)


def write_learning_curve(history: list[dict], anchors: dict[str, float], path: str | Path,
                         title: str, final: dict | None = None) -> Path | None:
    """Draw the curve into ``path`` (PNG); ``None`` (and no file) before the first rating.
    ``final``: the final evaluation's ``final/...`` metrics with its ``time/minutes`` and
    ``games`` (per opponent)."""
    points = evaluated(history)
    if not points and final is None:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    minutes = np.array([entry["time/minutes"] for entry in points])
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    rating = [entry["eval/rating"] for entry in points]
    line, = top.plot(minutes, rating, "o-", label="trained agent")
    _interval(top, minutes, rating, [e["eval/rating_low"] for e in points],
              [e["eval/rating_high"] for e in points], line.get_color(), "95% interval")
    if final is not None:
        _final_point(top, final, "final/rating", "final/rating_low", "final/rating_high",
                     "black", f"final evaluation ({final['games']} games each)")
    draw_anchors(top, anchors)
    top.set_ylabel("Elo (Bradley-Terry, anchors fixed)")
    top.legend(loc="lower right", fontsize=8)
    top.grid(alpha=0.3)
    if len(points) < 2:  # one point alone gives the axis no range
        top.set_xlim(0, 1.2 * max([*minutes, final["time/minutes"] if final else 0.0]) + 1e-3)
    if history:
        axis_minutes, axis_iterations = minutes_to_iterations(history)
        iteration_axis = top.secondary_xaxis("top", functions=(
            lambda m: np.interp(m, axis_minutes, axis_iterations),
            lambda i: np.interp(i, axis_iterations, axis_minutes)))
        iteration_axis.set_xlabel("iteration")
        # whole iterations only: a short run's axis would tick at 0.2, 0.4, ...
        iteration_axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    colours = {}
    for name in anchor_names(points):
        key = f"eval/{name}"
        rows = [e for e in points if key + WIN_RATE in e]
        x = [e["time/minutes"] for e in rows]
        line, = bottom.plot(x, [e[key + WIN_RATE] for e in rows], "o-", label=f"vs {name}")
        colours[name] = line.get_color()
        if all(key + "/win_low" in e for e in rows):
            _interval(bottom, x, [e[key + WIN_RATE] for e in rows],
                      [e[key + "/win_low"] for e in rows], [e[key + "/win_high"] for e in rows],
                      line.get_color())
    for name in anchor_names([final] if final else [], prefix="final/"):
        key = f"final/{name}"
        _final_point(bottom, final, key + WIN_RATE, key + "/win_low", key + "/win_high",
                     colours.get(name), f"vs {name}, final" if name in colours
                     else f"vs {name} (final only)")
    bottom.set_ylim(0, 1)
    bottom.set_ylabel("win rate (95% interval)")
    bottom.set_xlabel("training minutes")
    bottom.legend(loc="best", fontsize=8)
    bottom.grid(alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def draw_anchors(axes, anchors: dict[str, float]) -> None:
    """Each anchor's fixed rating as a grey dashed line, labelled at the left edge."""
    for name, value in anchors.items():
        axes.axhline(value, color="grey", linestyle="--", linewidth=0.8)
        axes.annotate(f"{name} ({value:.0f})", (0, value), xycoords=("axes fraction", "data"),
                      xytext=(2, 2), textcoords="offset points", fontsize=8, color="grey")


def _interval(axes, x, y, low, high, colour, label: str | None = None) -> None:
    """The 95% intervals of the points ``(x, y)``: a band between them, or an error bar where a
    point stands alone (a band through one point has no width)."""
    if len(x) >= 2:
        axes.fill_between(x, low, high, alpha=0.25, color=colour, label=label)
    elif len(x) == 1:
        axes.errorbar(x, y, yerr=_error_bar(y[0], low[0], high[0]), fmt="none", capsize=4,
                      color=colour, alpha=0.6, label=label)


def _error_bar(y: float, low: float, high: float) -> list[list[float]]:
    """matplotlib's ``yerr`` for ``y`` in ``[low, high]``. An interval of no width (a rating all
    of whose bootstrap samples agree) can sit an ulp off its own estimate, and matplotlib
    refuses a negative bar: the plot was skipped."""
    return [[max(0.0, y - low)], [max(0.0, high - y)]]


def _final_point(axes, final: dict, value: str, low: str, high: str, colour, label: str) -> None:
    """The final evaluation's ``value`` as a star with its interval as an error bar."""
    if value not in final:
        return
    y = final[value]
    error = _error_bar(y, final.get(low, y), final.get(high, y))
    axes.errorbar([final["time/minutes"]], [y], yerr=error, fmt="*", markersize=12,
                  capsize=4, color=colour, label=label)
