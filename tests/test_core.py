"""The shared contract helpers in envs/core.py and envs/__init__.py."""

import numpy as np
import pytest

import envs
from envs.core import IllegalActionError, check_action, winner_returns


@pytest.mark.parametrize("n, winners, expected", [
    (2, [0], [1.0, -1.0]),
    (4, [2], [-1 / 3, -1 / 3, 1.0, -1 / 3]),
    (4, [0, 3], [1 / 3, -1 / 3, -1 / 3, 1 / 3]),   # (n-w)/(w(n-1)) = 2/6
    (3, [0, 1], [0.25, 0.25, -0.5]),              # 1/(2*2)
    (3, [0, 1, 2], [0.0, 0.0, 0.0]),              # everyone tied: a draw
    (2, [], [0.0, 0.0]),
])
def test_winner_returns_follow_the_rules_and_sum_to_zero(n, winners, expected):
    returns = winner_returns(n, winners)
    np.testing.assert_allclose(returns, expected)
    assert abs(returns.sum()) < 1e-12


def test_check_action_accepts_numpy_integers_and_rejects_the_rest():
    assert check_action(np.int32(3), 5) == 3 and check_action(np.int64(4), 5) == 4
    for bad in (5, -1, 1.0, True, None, "1"):
        with pytest.raises(IllegalActionError):
            check_action(bad, 5)


def test_make_game_by_name_and_clear_errors():
    game = envs.make_game("blockade", num_players=3)
    assert game.num_players == 3 and game.name == "blockade"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        envs.make_game("chess")
    with pytest.raises(TypeError, match="colour"):
        envs.make_game("blockade", colour="red")
