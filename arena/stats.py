"""The numbers a match is judged by: Wilson score intervals for win rates, Bradley–Terry ratings
on the Elo scale with standard errors for two-player games, and openskill (Plackett–Luce)
ratings for games of three or four."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
ELO_PER_NATURAL_UNIT = 400.0 / math.log(10.0)
"""Elo points per unit of the Bradley–Terry log-strength: 400 Elo = a factor 10 in odds."""


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (well-behaved at 0% and 100%, unlike
    the normal approximation). No trials: the whole range (0, 1)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Rating:
    name: str
    rating: float
    low: float
    high: float
    """``rating`` and its 95% interval."""


def bradley_terry(names: Sequence[str], scores: np.ndarray, games: np.ndarray,
                  prior_draws: float = 1.0, iterations: int = 10_000,
                  tolerance: float = 1e-10) -> list[Rating]:
    """Maximum-likelihood Bradley–Terry ratings on the Elo scale, centred on mean 0.

    ``scores[i, j]`` is what ``i`` scored against ``j`` (a win 1, a draw 0.5) over
    ``games[i, j] == games[j, i]`` games. ``prior_draws`` virtual draws are added to every pair
    that played, so an agent that never lost still gets a finite rating (0 = plain maximum
    likelihood). Fitted with Hunter's MM algorithm; intervals are ±1.96 standard errors from the
    observed Fisher information under the sum-to-zero constraint.
    """
    scores = np.asarray(scores, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    played = games > 0
    scores = scores + 0.5 * prior_draws * played
    games = games + prior_draws * played
    wins = scores.sum(axis=1)
    if np.any(wins <= 0):
        raise ValueError("Bradley-Terry needs every agent to score at least once "
                         "(use prior_draws > 0)")
    strength = np.ones(len(names))
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = wins / denominator
        updated /= math.exp(np.log(updated).mean())
        if np.max(np.abs(np.log(updated) - np.log(strength))) < tolerance:
            strength = updated
            break
        strength = updated
    theta = np.log(strength)
    p = strength[:, None] / (strength[:, None] + strength[None, :])
    information = games * p * p.T
    hessian = np.diag(information.sum(axis=1)) - information
    covariance = np.linalg.pinv(hessian)
    errors = np.sqrt(np.clip(np.diag(covariance), 0, None))
    return [Rating(name, float(ELO_PER_NATURAL_UNIT * t),
                   float(ELO_PER_NATURAL_UNIT * (t - Z95 * e)),
                   float(ELO_PER_NATURAL_UNIT * (t + Z95 * e)))
            for name, t, e in zip(names, theta, errors, strict=True)]


def openskill_ratings(names: Sequence[str], results: Sequence[tuple[Sequence[int],
                                                                    Sequence[float]]]
                      ) -> list[Rating]:
    """Plackett–Luce ratings (openskill) from multiplayer results, updated game by game in the
    given order. Each result is ``(participants, returns)``: indices into ``names`` and their
    returns; a higher return ranks higher, equal returns tie. The interval is mu ± 1.96 sigma."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=name) for name in names]
    for participants, returns in results:
        teams = [[ratings[i]] for i in participants]
        scores = [float(r) for r in returns]
        updated = model.rate(teams, scores=scores)
        for i, team in zip(participants, updated, strict=True):
            ratings[i] = team[0]
    return [Rating(name, r.mu, r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma)
            for name, r in zip(names, ratings, strict=True)]


def anchored_ratings(names: Sequence[str], scores: np.ndarray, games: np.ndarray,
                     fixed: dict[str, float], prior_draws: float = 1.0,
                     tolerance: float = 1e-10, iterations: int = 200) -> list[Rating]:
    """Maximum-likelihood Bradley–Terry ratings on the Elo scale with the agents of ``fixed``
    held at their given ratings (anchors: the scale does not drift as the others change).

    ``scores`` and ``games`` as in :func:`bradley_terry`, ``prior_draws`` likewise. Every other
    agent must have played, directly or through others, against an anchor. Fitted by Newton's
    method on the free ratings (the log-likelihood is concave); their intervals are ±1.96
    standard errors from the observed Fisher information, the anchors' intervals have width 0.
    """
    names = list(names)
    unknown = sorted(set(fixed) - set(names))
    if unknown or not fixed:
        raise ValueError(f"anchored ratings need at least one anchor among the agents, got "
                         f"{', '.join(unknown) or 'none'}")
    scores = np.asarray(scores, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    played = games > 0
    scores = scores + 0.5 * prior_draws * played
    games = games + prior_draws * played
    free = np.array([name not in fixed for name in names])
    theta = np.array([fixed.get(name, 0.0) / ELO_PER_NATURAL_UNIT for name in names])
    reached = ~free
    for _ in range(len(names)):
        reached = reached | (played[:, reached].any(axis=1))
    if not reached.all():
        lost = [name for name, r in zip(names, reached, strict=True) if not r]
        raise ValueError(f"no games link {', '.join(lost)} to an anchor: their ratings are "
                         "undetermined")
    information = np.zeros((free.sum(), free.sum()))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
        gradient = (scores - games * p).sum(axis=1)[free]
        weights = games * p * p.T
        information = (np.diag(weights.sum(axis=1)) - weights)[np.ix_(free, free)]
        if not free.any():
            break
        step = np.linalg.solve(information, gradient)
        largest = np.max(np.abs(step))
        theta[free] += step / max(1.0, largest)  # at most a factor e in odds per step
        if largest < tolerance:
            break
    errors = np.zeros(len(names))
    if free.any():
        errors[free] = np.sqrt(np.clip(np.diag(np.linalg.inv(information)), 0, None))
    return [Rating(name, float(ELO_PER_NATURAL_UNIT * t),
                   float(ELO_PER_NATURAL_UNIT * (t - Z95 * e)),
                   float(ELO_PER_NATURAL_UNIT * (t + Z95 * e)))
            for name, t, e in zip(names, theta, errors, strict=True)]


def base_name(name: str) -> str:
    """A lineup label without its repeat mark: ``heuristic#2`` -> ``heuristic``."""
    return name.split("#", 1)[0]


def pairwise_scores(matches: Sequence) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Every game of ``matches`` (any player count) as comparisons between each pair of its
    agents of different names (copies, ``x#2``, count as ``x``): 1 to the higher return, 1/2
    each for an equal one. Returns the names (sorted), ``scores[i, j]`` what ``i`` scored against
    ``j`` and ``games[i, j]`` the comparisons. (With more than two players the comparisons of
    one game are not independent.)"""
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


def rate(matches: Sequence) -> list[Rating]:
    """Ratings of every agent name across matches of one game: Bradley–Terry (Elo scale) for
    two players, openskill for more. Best first; none when only copies of one agent played."""
    if len({base_name(name) for m in matches for name in m.names}) < 2:
        return []
    if len(matches[0].names) == 2:
        ratings = bradley_terry(*pairwise_scores(matches))
    else:
        names = sorted({name for m in matches for name in m.names})
        position = {name: i for i, name in enumerate(names)}
        results = [([position[name] for name in match.names], g.agent_returns())
                   for match in matches for g in match.games]
        ratings = openskill_ratings(names, results)
    return sorted(ratings, key=lambda r: -r.rating)
