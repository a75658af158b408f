"""The numbers a match is judged by: Wilson score intervals for win rates, and ratings on one
Elo scale for any seat count.

The rating model is Plackett–Luce's first place (Luce's choice model): every agent has a
strength ``s``, and the first place of a game goes to a seat with probability proportional to
its agent's strength (``s_a / sum of s over the seats``; an agent holding several seats, as in
``one agent against three copies``, has the sum of their chances). A shared first place splits
the win; a game every seat ends equal gives each an equal share. With two seats this is
Bradley–Terry with draws as half a win each. The Elo rating is ``400 log10(s)``: 400 points are
a factor 10 in strength (in the odds of a two-player game), and the anchors (``random``, at 0,
wherever it plays) fix the scale's zero. Maximum likelihood by Newton's method; each pair of
agents that met gets one virtual shared game (a prior that keeps an agent that never lost
finite); 95% intervals from a bootstrap over the games."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
ELO_PER_NATURAL_UNIT = 400.0 / math.log(10.0)
"""Elo points per unit of log-strength: 400 Elo = a factor 10 in strength."""
ANCHOR = "random"
"""The agent at 0 on the rating scale wherever it plays."""


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (well-behaved at 0% and 100%, unlike
    the normal approximation). No trials: the whole range (0, 1)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # The interval always holds p; rounding alone can leave 0 wins a low bound of 1e-17.
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


@dataclass(frozen=True)
class Rating:
    name: str
    rating: float
    low: float
    high: float
    """``rating`` and its 95% interval."""


def scale(ratings: Iterable[Rating | dict] = (), labels: dict[str, str] | None = None) -> str:
    """What a rating is, for table headers, plot axes and result files: ``Elo, random = 0``
    or, where random did not play, the agent held at 0 in its place (:func:`fit_ratings`'
    first agent, or the first anchor of a training run), named by its label in ``labels``
    where it has one (the table's ``checkpoint-1``, not its path). ``ratings``:
    :class:`Rating` objects or ladder rows (``agent``, ``rating``, ``low``, ``high``)."""
    held = []
    for r in ratings:
        name, values = ((r.name, (r.rating, r.low, r.high)) if isinstance(r, Rating)
                        else (r["agent"], (r["rating"], r["low"], r["high"])))
        if values == (0.0, 0.0, 0.0):
            held.append(name)
    zero = ANCHOR if not held or ANCHOR in held else held[0]
    return f"Elo, {(labels or {}).get(zero, zero)} = 0"


def base_name(name: str) -> str:
    """A lineup label without its repeat mark: ``heuristic#2`` -> ``heuristic``."""
    return name.split("#", 1)[0]


def first_places(returns: Sequence[float]) -> np.ndarray:
    """Each seat's share of first place: the seats with the highest return split it; when every
    seat ends equal (a draw) each has an equal share."""
    returns = np.asarray(returns, dtype=np.float64)
    best = returns == returns.max()
    return best / best.sum()


@dataclass
class RatedGames:
    """Games as the rating model reads them: ``seats[g, a]`` seats of game ``g`` held by agent
    ``names[a]`` and ``firsts[g, a]`` its share of first place, one row per distinct game
    pattern, ``counts[g]`` games of it."""

    names: list[str]
    seats: np.ndarray
    firsts: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, games: Sequence[tuple[Sequence[str], Sequence[float]]]) -> RatedGames:
        """From ``(agent name per seat, returns per seat)`` of every game."""
        names = sorted({base_name(name) for players, _ in games for name in players})
        index = {name: i for i, name in enumerate(names)}
        patterns: Counter = Counter()
        for players, returns in games:
            seats, firsts = np.zeros(len(names)), np.zeros(len(names))
            for name, share in zip(players, first_places(returns), strict=True):
                seats[index[base_name(name)]] += 1
                firsts[index[base_name(name)]] += share
            patterns[(tuple(seats), tuple(np.round(firsts, 12)))] += 1
        rows = list(patterns)
        return cls(names, np.array([r[0] for r in rows]).reshape(-1, len(names)),
                   np.array([r[1] for r in rows]).reshape(-1, len(names)),
                   np.array([patterns[r] for r in rows], dtype=np.float64))


def games_of(matches: Sequence) -> list[tuple[list[str], list[float]]]:
    """``(agent name per seat, returns per seat)`` of every game of arena matches."""
    return [([m.names[agent] for agent in g.seats], list(g.returns))
            for m in matches for g in m.games]


def _prior(games: RatedGames, weight: float) -> RatedGames:
    """One virtual two-seat game, first place shared, per pair of agents that met."""
    met = (games.seats[:, :, None] > 0) & (games.seats[:, None, :] > 0)
    pairs = [(a, b) for a, b in itertools.combinations(range(len(games.names)), 2)
             if met[:, a, b].any()]
    seats = np.zeros((len(pairs), len(games.names)))
    for row, (a, b) in enumerate(pairs):
        seats[row, [a, b]] = 1
    return RatedGames(games.names, seats, seats / 2, np.full(len(pairs), weight))


def _maximum_likelihood(seats: np.ndarray, firsts: np.ndarray, counts: np.ndarray,
                        theta: np.ndarray, free: np.ndarray, iterations: int = 100,
                        tolerance: float = 1e-10) -> np.ndarray:
    """Log-strengths maximising the likelihood, the entries not ``free`` held as given."""
    theta = theta.copy()
    for _ in range(iterations):
        weights = seats * np.exp(theta - theta.max())
        p = weights / weights.sum(axis=1, keepdims=True)  # each agent's chance of first place
        gradient = counts @ (firsts - p)
        hessian = np.einsum("g,ga,gb->ab", counts, p, p) - np.diag(counts @ p)
        step = np.linalg.solve(hessian[np.ix_(free, free)], -gradient[free])
        largest = np.max(np.abs(step))
        theta[free] += step / max(1.0, largest)  # at most a factor e in strength per step
        if largest < tolerance:
            break
    return theta


def fit_ratings(games: RatedGames, fixed: dict[str, float] | None = None,
                bootstrap: int = 200, seed: int = 0, prior: float = 1.0) -> list[Rating]:
    """Every agent's Elo rating with its 95% bootstrap interval, best first. ``fixed`` holds
    some agents at given ratings (anchors, interval width 0); without one, :data:`ANCHOR` is
    held at 0 when it played, else the first agent. Every other agent must have met an anchor
    through the games, or its rating is undetermined (a ``ValueError``)."""
    names = games.names
    if fixed is None:
        fixed = {ANCHOR if ANCHOR in names else names[0]: 0.0}
    unknown = sorted(set(fixed) - set(names))
    if unknown:
        raise ValueError(f"anchor(s) {', '.join(unknown)} played no rated game")
    free = np.array([name not in fixed for name in names])
    theta = np.array([fixed.get(name, 0.0) / ELO_PER_NATURAL_UNIT for name in names])
    met = (games.seats[:, :, None] > 0) & (games.seats[:, None, :] > 0)
    reached = ~free
    for _ in range(len(names)):
        reached = reached | (met.any(axis=0)[:, reached].any(axis=1))
    if not reached.all():
        lost = [name for name, r in zip(names, reached, strict=True) if not r]
        raise ValueError(f"no games link {', '.join(lost)} to an anchor "
                         f"({', '.join(fixed)}): their ratings are undetermined")
    virtual = _prior(games, prior)
    seats = np.concatenate([games.seats, virtual.seats])
    firsts = np.concatenate([games.firsts, virtual.firsts])
    real = len(games.counts)

    def fit(counts: np.ndarray, start: np.ndarray) -> np.ndarray:
        return _maximum_likelihood(seats, firsts, np.concatenate([counts, virtual.counts]),
                                   start, free)

    theta = fit(games.counts, theta) if free.any() else theta
    rng = np.random.default_rng(seed)
    total = int(games.counts.sum())
    samples = np.array([fit(rng.multinomial(total, games.counts / total).astype(np.float64),
                            theta) for _ in range(bootstrap if free.any() and real else 0)])
    low, high = ((np.percentile(samples, 2.5, axis=0), np.percentile(samples, 97.5, axis=0))
                 if len(samples) else (theta, theta))
    ratings = [Rating(name, float(ELO_PER_NATURAL_UNIT * t), float(ELO_PER_NATURAL_UNIT * lo),
                      float(ELO_PER_NATURAL_UNIT * hi))
               for name, t, lo, hi in zip(names, theta, low, high, strict=True)]
    return sorted(ratings, key=lambda r: -r.rating)


def rate(matches: Sequence, fixed: dict[str, float] | None = None, **options) -> list[Rating]:
    """:func:`fit_ratings` of every game of arena matches; none when only copies of one agent
    played."""
    games = RatedGames.of(games_of(matches))
    return fit_ratings(games, fixed, **options) if len(games.names) > 1 else []


def pairwise_scores(matches: Sequence) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Every game of ``matches`` (any player count) as comparisons between each pair of its
    agents of different names (copies, ``x#2``, count as ``x``): 1 to the higher return, 1/2
    each for an equal one. Returns the names (sorted), ``scores[i, j]`` what ``i`` scored against
    ``j`` and ``games[i, j]`` the comparisons (the 2-player score heatmap)."""
    names = sorted({base_name(name) for m in matches for name in m.names})
    position = {name: i for i, name in enumerate(names)}
    scores = np.zeros((len(names), len(names)))
    games = np.zeros((len(names), len(names)))
    for match in matches:
        index = [position[base_name(name)] for name in match.names]
        for game in match.games:
            returns = game.agent_returns()
            for a, b in itertools.combinations(range(len(index)), 2):
                i, j = index[a], index[b]
                if i == j:
                    continue
                score = 1.0 if returns[a] > returns[b] else 0.5 if returns[a] == returns[b] else 0.0
                scores[i, j] += score
                scores[j, i] += 1.0 - score
                games[i, j] += 1
                games[j, i] += 1
    return names, scores, games
