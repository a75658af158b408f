"""Interval and rating math against values known in closed form or from the literature."""

import math

import numpy as np
import pytest

from arena.stats import ELO_PER_NATURAL_UNIT, Z95, bradley_terry, openskill_ratings, wilson_interval


def test_wilson_interval_matches_published_values():
    # 8 of 10: the textbook example, 0.490 to 0.943.
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_at_the_edges_is_closed_form():
    # 0 successes: the upper bound is z^2 / (n + z^2); all successes mirror it.
    z2 = Z95 * Z95
    assert wilson_interval(0, 10) == pytest.approx((0.0, z2 / (10 + z2)))
    assert wilson_interval(10, 10) == pytest.approx((10 / (10 + z2), 1.0))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_is_symmetric_and_shrinks_with_more_games():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(1 - high)
    narrow = wilson_interval(500, 1000)
    assert narrow[1] - narrow[0] < high - low


def test_bradley_terry_two_players_is_the_log_odds():
    # 75 of 100: Elo difference 400 log10(3), split around 0; the standard error of the
    # difference is 1 / sqrt(n p (1 - p)) natural units, half of it each under sum-zero.
    ratings = bradley_terry(["a", "b"], np.array([[0, 75], [25, 0]]),
                            np.array([[0, 100], [100, 0]]), prior_draws=0)
    assert ratings[0].rating == pytest.approx(200 * math.log10(3))
    assert ratings[1].rating == pytest.approx(-200 * math.log10(3))
    half_width = Z95 * ELO_PER_NATURAL_UNIT / math.sqrt(4 * 100 * 0.75 * 0.25)
    assert ratings[0].high - ratings[0].rating == pytest.approx(half_width)


def test_bradley_terry_recovers_consistent_strengths():
    # Strengths 4 : 2 : 1 produce exactly these expected scores, so the fit is exact.
    games = np.full((3, 3), 30) - np.diag([30] * 3)
    scores = np.array([[0, 20, 24], [10, 0, 20], [6, 10, 0]])
    ratings = bradley_terry(["a", "b", "c"], scores, games, prior_draws=0)
    step = 400 * math.log10(2)
    assert [r.rating for r in ratings] == pytest.approx([step, 0.0, -step], abs=1e-6)


def test_bradley_terry_prior_keeps_an_unbeaten_agent_finite():
    ratings = bradley_terry(["a", "b"], np.array([[0, 10], [0, 0]]),
                            np.array([[0, 10], [10, 0]]))
    # One virtual draw: 10.5 : 0.5 odds.
    assert ratings[0].rating - ratings[1].rating == pytest.approx(400 * math.log10(21))
    with pytest.raises(ValueError, match="score at least once"):
        bradley_terry(["a", "b"], np.array([[0, 10], [0, 0]]), np.array([[0, 10], [10, 0]]),
                      prior_draws=0)


def test_openskill_follows_the_library_and_ranks_the_winner_first():
    from openskill.models import PlackettLuce

    results = [([0, 1, 2], [1.0, -0.5, -0.5]), ([2, 0, 1], [0.0, 0.0, 0.0]),
               ([1, 2, 0], [-0.5, -0.5, 1.0])]
    ratings = openskill_ratings(["x", "y", "z"], results)
    model = PlackettLuce()
    direct = [model.rating() for _ in range(3)]
    for players, returns in results:
        updated = model.rate([[direct[i]] for i in players], scores=list(returns))
        for i, team in zip(players, updated, strict=True):
            direct[i] = team[0]
    assert [r.rating for r in ratings] == pytest.approx([d.mu for d in direct])
    assert ratings[0].high - ratings[0].rating == pytest.approx(Z95 * direct[0].sigma)
    assert ratings[0].rating > max(ratings[1].rating, ratings[2].rating)
