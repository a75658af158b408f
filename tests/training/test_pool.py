"""The opponent pool: each sampling scheme's distribution (exact and drawn), snapshots entering
and leaving, results steering the prioritised scheme, baselines, and checkpoint round trips."""

import numpy as np
import pytest
import torch

from training.pool import OpponentPool, PoolConfig


def pool_with(n, **config):
    pool = OpponentPool(PoolConfig(**config))
    for i in range(n):
        pool.add({"w": torch.full((2,), float(i))}, iteration=5 * i)
    return pool


def drawn_frequencies(pool, draws=20000, seed=0):
    rng = np.random.default_rng(seed)
    keys = [pool.sample(rng).key for _ in range(draws)]
    return {k: keys.count(k) / draws for k in set(keys)}


def test_uniform_scheme_weighs_every_snapshot_alike():
    pool = pool_with(4, scheme="uniform")
    np.testing.assert_allclose(pool.probabilities(), [0.25] * 4)
    freq = drawn_frequencies(pool)
    assert set(freq) == {0, 1, 2, 3}
    assert all(abs(f - 0.25) < 0.02 for f in freq.values())


def test_latest_scheme_puts_its_fraction_on_the_newest_snapshot():
    pool = pool_with(5, scheme="latest", latest_share=0.6)
    np.testing.assert_allclose(pool.probabilities(), [0.1, 0.1, 0.1, 0.1, 0.6])
    freq = drawn_frequencies(pool)
    assert abs(freq[4] - 0.6) < 0.02 and abs(freq[0] - 0.1) < 0.02
    assert pool_with(1, scheme="latest").probabilities().tolist() == [1.0]


def test_prioritised_scheme_favours_snapshots_that_beat_the_learner():
    pool = pool_with(3, scheme="prioritised", priority_power=2.0, score_decay=0.5)
    np.testing.assert_allclose(pool.probabilities(), [1 / 3] * 3)  # no results yet: all 1/2
    pool.record(0, 1.0)  # snapshot 0 beat the learner: score 0.5 -> 0.75
    pool.record(2, 0.0)  # the learner beat snapshot 2: 0.5 -> 0.25
    assert [e.score for e in pool.snapshots] == [0.75, 0.5, 0.25]
    assert [e.games for e in pool.snapshots] == [1, 0, 1]
    weights = np.array([0.75, 0.5, 0.25]) ** 2
    np.testing.assert_allclose(pool.probabilities(), weights / weights.sum())
    freq = drawn_frequencies(pool)
    assert freq[0] > freq[1] > freq[2]
    pool.config = PoolConfig(scheme="prioritised", score_decay=1.0)
    for key in range(3):  # the learner now beats everyone: uniform, not a division by zero
        pool.record(key, 0.0)
    np.testing.assert_allclose(pool.probabilities(), [1 / 3] * 3)


def test_snapshots_are_copies_and_the_oldest_leaves_a_full_pool():
    weights = {"w": torch.zeros(2)}
    pool = OpponentPool(PoolConfig(capacity=3))
    dropped = []
    for i in range(5):
        dropped.append([e.key for e in pool.add(weights, iteration=i)])
        weights["w"] += 1  # training goes on: the snapshot must not change with it
    assert dropped == [[], [], [], [0], [1]]  # the snapshots that left, for games still on
    assert [e.key for e in pool.snapshots] == [2, 3, 4]
    assert [float(e.weights["w"][0]) for e in pool.snapshots] == [2.0, 3.0, 4.0]
    assert pool.entry(0) is None and pool.entry(3).iteration == 3
    pool.record(0, 1.0)  # a result against a snapshot that has left is dropped quietly


def test_baselines_are_drawn_with_their_fraction():
    pool = pool_with(2, scheme="uniform", baselines=("heuristic", "random"),
                     baseline_share=0.3)
    freq = drawn_frequencies(pool)
    assert abs(freq["heuristic"] + freq["random"] - 0.3) < 0.02
    assert abs(freq["heuristic"] - freq["random"]) < 0.03
    pool.record("heuristic", 1.0)
    assert pool.entry("heuristic").games == 1


def test_state_dict_round_trip_keeps_keys_scores_and_weights():
    pool = pool_with(3, scheme="prioritised", baselines=("random",), baseline_share=0.1)
    pool.record(1, 1.0)
    pool.record("random", 0.0)
    copy = OpponentPool(pool.config)
    copy.load_state_dict(pool.state_dict())
    assert [(e.key, e.iteration, e.score, e.games) for e in copy.snapshots] == \
        [(e.key, e.iteration, e.score, e.games) for e in pool.snapshots]
    assert copy.entry("random").score == pool.entry("random").score
    assert copy.next_id == 3
    torch.testing.assert_close(copy.snapshots[2].weights["w"], pool.snapshots[2].weights["w"])
    np.testing.assert_allclose(copy.probabilities(), pool.probabilities())


def test_bad_pool_configs_are_named():
    with pytest.raises(ValueError, match="scheme"):
        PoolConfig(scheme="newest")
    with pytest.raises(ValueError, match="latest_share"):
        PoolConfig(latest_share=1.5)
    with pytest.raises(ValueError, match="baselines"):
        PoolConfig(baseline_share=0.2)
    with pytest.raises(ValueError, match="no snapshot"):
        OpponentPool(PoolConfig()).sample(np.random.default_rng(0))
