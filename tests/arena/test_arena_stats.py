"""Interval and rating math against values known in closed form or from the literature."""

import math

import numpy as np
import pytest

from arena.report import ladder_table
from arena.stats import (
    ELO_PER_NATURAL_UNIT,
    Z95,
    RatedGames,
    Rating,
    fit_ratings,
    scale,
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


def test_wilson_interval_holds_the_observed_rate_exactly_at_0_and_100_percent():
    """The interval contains the rate it is of, to the last bit: rounding left 0 of 7 at a low
    bound of 2.8e-17, and a learning curve's error bar (rate - low) then came out negative and
    the plot was skipped."""
    for trials in range(1, 201):
        for wins in range(trials + 1):
            low, high = wilson_interval(wins, trials)
            assert 0.0 <= low <= wins / trials <= high <= 1.0, (wins, trials)
    assert wilson_interval(0, 7)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_wilson_interval_is_symmetric_and_shrinks_with_more_games():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(1 - high)
    narrow = wilson_interval(500, 1000)
    assert narrow[1] - narrow[0] < high - low


def two_player(results: dict[tuple[str, str], tuple[int, int, int]]) -> RatedGames:
    """Games from ``{(a, b): (a's wins, draws, b's wins)}``."""
    games = []
    for (a, b), (wins, draws, losses) in results.items():
        games += ([([a, b], [1, -1])] * wins + [([a, b], [0, 0])] * draws
                  + [([a, b], [-1, 1])] * losses)
    return RatedGames.of(games)


def by_name(ratings) -> dict:
    return {r.name: r for r in ratings}


def test_two_players_75_of_100_is_400_log10_3_above_the_anchor():
    ratings = by_name(fit_ratings(two_player({("a", "b"): (75, 0, 25)}), {"b": 0.0},
                                  bootstrap=0, prior=0))
    assert ratings["a"].rating == pytest.approx(400 * math.log10(3))
    assert (ratings["b"].rating, ratings["b"].low, ratings["b"].high) == (0.0, 0.0, 0.0)


def test_consistent_strengths_are_recovered_and_random_is_the_zero():
    # Strengths 4 : 2 : 1 give exactly these scores (a draw counting half), so the fit is exact;
    # random is held at 0 without being asked.
    games = two_player({("a", "b"): (18, 4, 8), ("a", "random"): (24, 0, 6),
                        ("b", "random"): (20, 0, 10)})
    ratings = by_name(fit_ratings(games, bootstrap=0, prior=0))
    step = 400 * math.log10(2)
    assert [ratings[n].rating for n in ("a", "b", "random")] == pytest.approx(
        [2 * step, step, 0.0], abs=1e-6)


def independent_bradley_terry(scores: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Bradley-Terry by Hunter's MM algorithm on a score matrix (draws as half), mean 0."""
    strength = np.ones(len(scores))
    for _ in range(5000):
        strength = scores.sum(axis=1) / (games / (strength[:, None] + strength[None, :])).sum(1)
        strength /= math.exp(np.log(strength).mean())
    return ELO_PER_NATURAL_UNIT * np.log(strength)


def test_with_two_seats_plackett_luce_is_bradley_terry():
    results = {("a", "b"): (17, 3, 10), ("a", "c"): (25, 2, 3), ("b", "c"): (21, 5, 4)}
    ratings = by_name(fit_ratings(two_player(results), {"c": 0.0}, bootstrap=0, prior=0))
    scores, games = np.zeros((3, 3)), np.zeros((3, 3))
    index = {"a": 0, "b": 1, "c": 2}
    for (x, y), (wins, draws, losses) in results.items():
        i, j = index[x], index[y]
        scores[i, j], scores[j, i] = wins + draws / 2, losses + draws / 2
        games[i, j] = games[j, i] = wins + draws + losses
    expected = independent_bradley_terry(scores, games)
    assert [ratings[n].rating for n in "abc"] == pytest.approx(expected - expected[2], abs=1e-4)


def test_one_agent_against_three_copies_at_parity_is_level_and_half_the_wins_is_three_times():
    def versus(wins_in_8: int) -> list:
        games = []
        for k in range(80):
            first = 0 if k % 8 < wins_in_8 else 1 + k % 3
            games.append((["x", "random", "random#2", "random#3"],
                          [1.0 if seat == first else -1 / 3 for seat in range(4)]))
        return games

    level = by_name(fit_ratings(RatedGames.of(versus(2)), bootstrap=0, prior=0))
    assert level["x"].rating == pytest.approx(0.0, abs=1e-6)  # 25%: parity with three
    half = by_name(fit_ratings(RatedGames.of(versus(4)), bootstrap=0, prior=0))
    assert half["x"].rating == pytest.approx(400 * math.log10(3))  # x / (x + 3) = 1/2


def test_a_shared_first_place_splits_the_win():
    shared = RatedGames.of([(["a", "b", "c"], [0.5, 0.5, -1.0])])
    assert shared.firsts.tolist() == [[0.5, 0.5, 0.0]]
    assert RatedGames.of([(["a", "b"], [0, 0])]).firsts.tolist() == [[0.5, 0.5]]


def test_the_bootstrap_interval_holds_the_rating_and_narrows_with_more_games():
    few = by_name(fit_ratings(two_player({("a", "random"): (15, 0, 5)})))["a"]
    many = by_name(fit_ratings(two_player({("a", "random"): (150, 0, 50)})))["a"]
    assert few.low < few.rating < few.high and many.low < many.rating < many.high
    assert many.high - many.low < few.high - few.low


def test_the_prior_keeps_an_unbeaten_agent_finite():
    ratings = by_name(fit_ratings(two_player({("a", "random"): (10, 0, 0)}), bootstrap=0))
    # One virtual shared game: 10.5 : 0.5 odds.
    assert ratings["a"].rating == pytest.approx(400 * math.log10(21))


def test_stronger_results_rate_higher_and_anchors_stay_fixed():
    anchors = {"random": 0.0, "heuristic": 400.0}
    previous = -math.inf
    for wins in ((5, 0), (30, 10), (40, 40)):
        games = two_player({("trained", "random"): (wins[0], 0, 40 - wins[0]),
                            ("trained", "heuristic"): (wins[1], 0, 40 - wins[1])})
        ratings = by_name(fit_ratings(games, anchors))
        assert {n: ratings[n].rating for n in anchors} == pytest.approx(anchors)
        assert ratings["trained"].rating > previous
        previous = ratings["trained"].rating
    assert math.isfinite(previous)


def test_the_scale_names_its_zero_where_random_did_not_play():
    """Without random, the first agent is held at 0 (an exploiter's target, a round robin of
    checkpoints): the header says so rather than claiming random = 0."""
    with_random = fit_ratings(two_player({("a", "random"): (30, 0, 10)}), bootstrap=20)
    without = fit_ratings(two_player({("heuristic", "mcts"): (30, 0, 10)}), bootstrap=20)
    assert scale(with_random) == "Elo, random = 0"
    assert scale(without) == "Elo, heuristic = 0"
    rows = [{"agent": r.name, "rating": r.rating, "low": r.low, "high": r.high, "games": 40,
             "ms_per_move": 1.0} for r in without]
    header = [column.header for column in ladder_table(rows, {}, "ladder").columns]
    assert "Elo, heuristic = 0 [95% CI]" in header


def test_every_agent_needs_games_linking_it_to_an_anchor():
    games = two_player({("a", "random"): (5, 0, 5), ("b", "c"): (3, 0, 3)})
    with pytest.raises(ValueError, match="no games link b, c to an anchor"):
        fit_ratings(games)
    with pytest.raises(ValueError, match="anchor.s. d played no rated game"):
        fit_ratings(games, {"d": 0.0})


def test_a_long_agent_name_goes_by_its_label_in_headers_and_the_chart(tmp_path):
    """A checkpoint's spec as an agent name (its path and options, 130 characters) squeezed the
    chart's plot to nothing (matplotlib: "Tight layout not applied") and filled the ratings
    header; both now name the agent by its table label and the chart writes the spec below."""
    import warnings

    from PIL import Image

    from arena import play_match
    from arena.report import short_labels, write_chart

    long = ("checkpoint:/work/jobs/a_training_run/checkpoints/last.pt:sims=200,"
            "policy_temperature=1000,game_value_weight=0.5,game_value_rollout=6")
    ratings = [Rating(long, 0.0, 0.0, 0.0), Rating("heuristic", -24.0, -70.0, 23.0)]
    labels = short_labels([r.name for r in ratings])
    assert scale(ratings, labels) == "Elo, checkpoint-1 = 0"
    match = play_match({"name": "nobles", "num_players": 4}, ["random"] * 4, 1, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_chart(tmp_path / "ratings.png", "nobles", [match], ratings, labels)
    with Image.open(tmp_path / "ratings.png") as chart:
        assert chart.width > 400 and chart.height > 300
