"""Interval and rating math against values known in closed form or from the literature."""

import math

import numpy as np
import pytest

from arena.stats import (
    ELO_PER_NATURAL_UNIT,
    Z95,
    anchored_ratings,
    bradley_terry,
    openskill_ratings,
    wilson_interval,
)


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


def versus_anchors(scores_per_anchor, games_per_anchor=40):
    """The trained agent (index 0) against anchors (the other indices), which never met."""
    n = len(scores_per_anchor) + 1
    scores, games = np.zeros((n, n)), np.zeros((n, n))
    for j, score in enumerate(scores_per_anchor, start=1):
        scores[0, j], scores[j, 0] = score, games_per_anchor - score
        games[0, j] = games[j, 0] = games_per_anchor
    return scores, games


def test_anchored_rating_is_the_log_odds_against_a_fixed_anchor():
    # 30 of 40 against an anchor held at 100: 100 + 400 log10(3); the anchor stays put and the
    # interval is 1.96 / sqrt(n p (1 - p)) natural units either side.
    scores, games = versus_anchors([30])
    trained, anchor = anchored_ratings(["trained", "random"], scores, games, {"random": 100.0},
                                       prior_draws=0)
    assert trained.rating == pytest.approx(100 + 400 * math.log10(3))
    assert (anchor.rating, anchor.low, anchor.high) == pytest.approx((100, 100, 100))
    half_width = Z95 * ELO_PER_NATURAL_UNIT / math.sqrt(40 * 0.75 * 0.25)
    assert trained.high - trained.rating == pytest.approx(half_width)
    assert trained.rating - trained.low == pytest.approx(half_width)


def test_anchored_ratings_agree_with_bradley_terry_up_to_the_shift():
    games = np.full((3, 3), 30) - np.diag([30] * 3)
    scores = np.array([[0, 17, 25], [13, 0, 21], [5, 9, 0]])
    free = bradley_terry(["a", "b", "c"], scores, games)
    anchored = anchored_ratings(["a", "b", "c"], scores, games, {"c": 0.0})
    by_name = {r.name: r.rating for r in free}
    assert [r.rating for r in anchored] == pytest.approx(
        [by_name[n] - by_name["c"] for n in "abc"], abs=1e-6)


def test_stronger_results_give_a_higher_rating_and_the_anchors_stay_fixed():
    anchors = {"random": 0.0, "heuristic": 400.0, "mcts": 600.0}
    names = ["trained", *anchors]
    previous = -math.inf
    for scores_per_anchor in ([5, 0, 0], [30, 10, 2], [38, 25, 15], [40, 40, 40]):
        scores, games = versus_anchors(scores_per_anchor)
        ratings = anchored_ratings(names, scores, games, anchors)
        assert {r.name: r.rating for r in ratings[1:]} == pytest.approx(anchors)
        assert ratings[0].low < ratings[0].rating < ratings[0].high
        assert ratings[0].rating > previous
        previous = ratings[0].rating
    assert math.isfinite(previous)  # unbeaten, yet finite (the prior's virtual draws)


def test_anchored_ratings_need_an_anchor_linked_to_every_agent():
    scores, games = versus_anchors([20])
    with pytest.raises(ValueError, match="at least one anchor"):
        anchored_ratings(["trained", "random"], scores, games, {})
    with pytest.raises(ValueError, match="no games link loner"):
        anchored_ratings(["trained", "random", "loner"], np.pad(scores, (0, 1)),
                         np.pad(games, (0, 1)), {"random": 0.0})
