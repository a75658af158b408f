"""What an evaluation shows and writes: rich tables, JSON and CSV results, a PNG chart
(ratings with their intervals, and for two-player games the pairwise score heatmap), and
progress lines for long phases."""

from __future__ import annotations

import csv
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
from rich import box
from rich.console import Console
from rich.table import Table

from arena.match import MatchResult
from arena.stats import Rating, base_name, pairwise_scores, scale

SHORT_NAME = 32
"""Agent labels in tables are at most this long: a zoo name or an MCTS spec fits, with its
options' names cut to their first letter; a checkpoint's path does not."""

LOG_WIDTH = 120
"""Columns of the tables when the output goes to a file or a pipe (a run in the background):
rich would assume 80 there and cut the figures short."""


def report_console() -> Console:
    """The console for progress and tables: the terminal's width, or :data:`LOG_WIDTH` in a
    log."""
    return Console(width=None if sys.stdout.isatty() else LOG_WIDTH)


def short_labels(names: Sequence[str]) -> dict[str, str]:
    """A table label per agent name: the name itself; for a long one, the name with each
    option's key cut to the first letter of each of its words (``mcts:simulations=400,
    rollout=random`` -> ``mcts:s=400,r=random``, ``game_value_weight=1`` -> ``gvw=1``: keys
    that share a first word stay apart) or, still too long or not unique (a checkpoint's path),
    its kind and a number (``checkpoint:outputs/.../last.pt`` -> ``checkpoint-1``), so that
    tables stay narrow; :func:`legend` says which is which, and the result files keep the full
    names."""
    compact = {name: name if len(name) <= SHORT_NAME
               else re.sub(r"\b[a-z][a-z_]*=", _initials, name) for name in names}
    taken = Counter(compact.values())
    labels, count = {}, {}
    for name in names:
        if len(compact[name]) <= SHORT_NAME and taken[compact[name]] == 1:
            labels[name] = compact[name]
        else:
            kind = name.split(":", 1)[0][:12]
            count[kind] = count.get(kind, 0) + 1
            labels[name] = f"{kind}-{count[kind]}"
    return labels


def _initials(key: re.Match) -> str:
    """``game_value_weight=`` -> ``gvw=``."""
    return "".join(word[0] for word in key.group(0)[:-1].split("_") if word) + "="


def legend(labels: dict[str, str]) -> str:
    """One line per shortened label: ``checkpoint-1 = checkpoint:outputs/.../last.pt``."""
    return "\n".join(f"{short} = {name}" for name, short in labels.items() if short != name)


def results_table(result: MatchResult, title: str | None = None,
                  labels: dict[str, str] | None = None,
                  ratings: dict[str, Rating] | None = None) -> Table:
    """One row per agent of a match: its games won alone, first places shared (more than two
    players), draws (every seat equal) and losses, win rate with its 95% Wilson interval, win
    share (shared wins split; more than two players), that share by seat of the turn order, mean
    return, its rating on the one scale (``ratings`` by name, from every game of the evaluation)
    and thinking time per move.
    ``labels`` shorten agent names (:func:`short_labels`)."""
    labels = labels or short_labels(result.names)
    two_players = len(result.names) == 2
    games = len(result.games)
    lineup = " vs ".join(labels.get(n, n) for n in result.names)
    table = Table(title=title or f"{lineup} ({games} games)", box=box.SIMPLE, pad_edge=False)
    table.add_column("agent", no_wrap=True)
    columns = ["W-D-L" if two_players else "W-S-D-L", "win% [95% CI]",
               *([] if two_players else ["share"]), "by seat %", "return",
               *([f"{scale(ratings.values(), labels)} [95% CI]"] if ratings is not None
                 else []), "ms/move"]
    for column in columns:
        table.add_column(column, justify="right", no_wrap=True)
    for s in result.summaries:
        record = (f"{s.wins}-{s.draws}-{s.losses}" if two_players
                  else f"{s.wins}-{s.shared}-{s.draws}-{s.losses}")
        rating = [] if ratings is None else [format_rating(ratings.get(base_name(s.name)))]
        table.add_row(
            labels.get(s.name, s.name), record,
            f"{100 * s.win_rate:.1f} [{100 * s.win_low:.0f}, {100 * s.win_high:.0f}]",
            *([] if two_players else [f"{s.win_share:.3f}"]),
            "/".join(f"{100 * share:.0f}" for share in s.seat_shares), f"{s.mean_return:+.2f}",
            *rating, f"{1000 * s.seconds_per_move:.1f}")
    return table


def ratings_table(ratings: Sequence[Rating], title: str = "ratings",
                  labels: dict[str, str] | None = None) -> Table:
    labels = labels or short_labels([r.name for r in ratings])
    table = Table(title=title, box=box.SIMPLE)
    table.add_column("agent", no_wrap=True)
    table.add_column(f"{scale(ratings, labels)} [95% CI]", justify="right")
    for r in ratings:
        table.add_row(labels.get(r.name, r.name), format_rating(r))
    return table


def format_rating(rating: Rating | None) -> str:
    if rating is None:
        return "-"
    return f"{rating.rating:.0f} [{rating.low:.0f}, {rating.high:.0f}]"


def panel_table(scores: dict[str, dict], labels: dict[str, str]) -> Table:
    table = Table(title="robustness panel: score (share of first place; 1/n is parity)",
                  box=box.SIMPLE)
    table.add_column("agent", no_wrap=True)
    members = list(next(iter(scores.values()))["scores"]) if scores else []
    for member in members:
        table.add_column(labels.get(member, member), justify="right", overflow="fold")
    table.add_column("worst", justify="right")
    table.add_column("mean", justify="right")
    for agent, row in scores.items():
        table.add_row(labels.get(agent, agent),
                      *(f"{row['scores'][m]:.3f}" for m in members),
                      f"{row['worst']:.3f}", f"{row['mean']:.3f}")
    return table


def ladder_table(rows: Sequence[dict], labels: dict[str, str], title: str) -> Table:
    """A ladder's ratings (arena/ladder.py's rows), best first."""
    table = Table(title=title, box=box.SIMPLE)
    for column in ("agent", f"{scale(rows, labels)} [95% CI]", "games", "ms/move"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for row in rows:
        table.add_row(labels.get(row["agent"], row["agent"]),
                      "-" if row["rating"] is None else
                      f"{row['rating']:.0f} [{row['low']:.0f}, {row['high']:.0f}]",
                      str(row["games"]), f"{row['ms_per_move']:.1f}")
    return table


def match_summary(result: MatchResult) -> dict:
    """A match as plain data: lineup, per-agent summaries (win rate added), truncations."""
    agents = []
    for s in result.summaries:
        row = asdict(s)
        row["win_rate"] = s.win_rate
        agents.append(row)
    return {
        "lineup": result.names,
        "games": len(result.games),
        "truncated": sum(g.truncated for g in result.games),
        "mean_turns": float(np.mean([g.turns for g in result.games])),
        "agents": agents,
    }


def write_json(path: Path, env_config: dict, settings: dict, matches: Sequence[MatchResult],
               ratings: Sequence[Rating], partial: bool = False) -> None:
    """``partial``: the evaluation was stopped; the file holds the games finished by then."""
    data = {
        "partial": partial,
        "env": env_config,
        "settings": settings,
        "matches": [match_summary(m) for m in matches],
        "ratings": [asdict(r) for r in ratings],
        "games": [
            {"lineup": m.names, "index": g.index, "seats": [m.names[a] for a in g.seats],
             "returns": g.returns, "turns": g.turns, "truncated": g.truncated,
             "think_seconds": g.think_seconds, "moves": g.moves}
            for m in matches for g in m.games
        ],
    }
    path.write_text(json.dumps(data, indent=2))


CSV_COLUMNS = ("lineup", "agent", "games", "wins", "shared", "draws", "losses", "win_rate",
               "win_low", "win_high", "win_share", "mean_return", "seconds_per_move")


def csv_rows(matches: Sequence[MatchResult]) -> list[dict]:
    """One row per agent per match, with the columns of ``CSV_COLUMNS``."""
    rows = []
    for m in matches:
        for agent in match_summary(m)["agents"]:
            row = {"lineup": " vs ".join(m.names), "agent": agent["name"]}
            row.update({k: agent[k] for k in CSV_COLUMNS[2:]})
            rows.append(row)
    return rows


def write_csv(path: Path, matches: Sequence[MatchResult]) -> None:
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(csv_rows(matches))


def score_rates(matches: Sequence[MatchResult]) -> tuple[list[str], np.ndarray]:
    """``rates[i, j]`` = i's score rate against j (a win 1, a draw 1/2), NaN where they did not
    meet."""
    names, points, games = pairwise_scores(matches)
    return names, np.where(games > 0, points / np.maximum(games, 1), np.nan)


def write_chart(path: Path, title: str, matches: Sequence[MatchResult],
                ratings: Sequence[Rating], labels: dict[str, str]) -> None:
    """Ratings with 95% intervals; beside them, for two-player games, the pairwise score
    heatmap. Agents go by the tables' ``labels`` (:func:`short_labels`), the long names written
    under the plot, so that a checkpoint's path does not squeeze the plot to nothing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    two_players = len(matches[0].names) == 2
    figure, axes = plt.subplots(1, 2 if two_players else 1, figsize=(12 if two_players else 6,
                                                                     4.5), squeeze=False)
    ax = axes[0, 0]
    order = list(reversed(ratings))
    values = [r.rating for r in order]
    ax.errorbar(values, range(len(order)),
                xerr=[[r.rating - r.low for r in order], [r.high - r.rating for r in order]],
                fmt="o", capsize=4)
    ax.set_yticks(range(len(order)), [labels.get(r.name, r.name) for r in order])
    ax.set_xlabel(f"{scale(ratings, labels)}, 95% interval")
    ax.grid(axis="x", alpha=0.3)
    if two_players:
        names, scores = score_rates(matches)
        ax = axes[0, 1]
        image = ax.imshow(scores, vmin=0, vmax=1, cmap="RdYlGn")
        names = [labels.get(n, n) for n in names]
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
        ax.set_yticks(range(len(names)), names)
        for i in range(len(names)):
            for j in range(len(names)):
                if not np.isnan(scores[i, j]):
                    ax.text(j, i, f"{scores[i, j]:.2f}", ha="center", va="center")
        ax.set_title("score of row vs column")
        figure.colorbar(image, ax=ax)
    figure.suptitle(title)
    figure.tight_layout()
    names = legend(labels)
    if names:
        figure.text(0.01, 0.0, names, fontsize=7, va="top", family="monospace")
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


class ProgressLine:
    """Progress of a long phase as console lines (they read the same in train.log): at most one
    every ``every_s`` seconds and one at the end, each with the time spent and an estimate of
    the time left: ``warm start: 24/80 games, 31 s, about 72 s left``. The estimate waits for
    a tenth of the total: games played side by side (``batch_games``) finish in bunches, and
    the first one alone would predict many times the real time."""

    def __init__(self, what: str, total: int, unit: str = "games", every_s: float = 10.0):
        self.what, self.total, self.unit, self.every_s = what, total, unit, every_s
        self.start = self.last = time.perf_counter()
        self.done = 0

    def __call__(self, *_) -> None:
        self.done += 1
        now = time.perf_counter()
        if now - self.last < self.every_s and self.done < self.total:
            return
        self.last = now
        spent = now - self.start
        left = spent / self.done * (self.total - self.done)
        estimate = self.done < self.total and self.done * 10 >= self.total
        print(f"{self.what}: {self.done}/{self.total} {self.unit}, {spent:.0f} s"
              + (f", about {left:.0f} s left" if estimate else ""), flush=True)
