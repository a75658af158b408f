"""The shared contract helpers in envs/core.py and envs/__init__.py."""

import numpy as np
import pytest

import envs
from envs.core import IllegalActionError, check_action, margins, winner_returns


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


@pytest.mark.parametrize("scores, leads", [
    ([3.0, 1.0], [2.0, -2.0]),                    # two players: the lead over the other
    ([5.0, 4.0, 0.0], [1.0, -1.0, -5.0]),         # over the best other, not the others' mean
    ([2.0, 2.0, 1.0, 0.0], [0.0, 0.0, -1.0, -2.0]),  # tied leaders lead nobody
])
def test_margins_are_each_players_lead_over_its_best_rival(scores, leads):
    np.testing.assert_allclose(margins(np.array(scores), 2.0), np.tanh(np.array(leads) / 2.0))


def test_check_action_accepts_numpy_integers_and_rejects_the_rest():
    assert check_action(np.int32(3), 5) == 3 and check_action(np.int64(4), 5) == 4
    for bad in (5, -1, 1.0, True, None, "1"):
        with pytest.raises(IllegalActionError):
            check_action(bad, 5)


def test_make_game_by_name_and_clear_errors():
    game = envs.make_game({"name": "blockade", "num_players": 3})
    assert game.num_players == 3 and game.name == "blockade"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        envs.make_game({"name": "chess"})
    with pytest.raises(ValueError, match="needs a 'name'"):
        envs.make_game({"num_players": 3})
    with pytest.raises(TypeError, match="colour"):
        envs.make_game({"name": "blockade", "colour": "red"})



@pytest.mark.parametrize("game", ["blockade", "barricade", "nobles"])
@pytest.mark.parametrize("optimized", [False, True], ids=["python", "python -O"])
def test_env_step_rejects_non_actions_with_a_value_error_naming_them(game, optimized):
    """Whatever the wrappers, a value that is not an action raises a ValueError that names it
    and leaves the game as it was; also under ``python -O`` (no assert does the checking)."""
    import subprocess
    import sys

    script = f"""
import numpy as np
import envs
env = envs.game_module({game!r}).env()
env.reset(seed=0)
before = env.unwrapped.game_state.to_dict()
for bad in [10**9, -1, 3.7, True, np.bool_(False), "5", None, 1.0]:
    try:
        env.step(bad)
    except ValueError as error:
        assert repr(bad) in str(error), (bad, str(error))
    else:
        raise SystemExit(f"no error for {{bad!r}}")
    assert env.unwrapped.game_state.to_dict() == before
    assert not any(env.terminations.values())
legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
env.step(legal)
print("ok")
"""
    flags = ["-O"] if optimized else []
    done = subprocess.run([sys.executable, *flags, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_dead_agent_steps_take_only_none():
    env = envs.game_module("blockade").env(max_turns=1)
    env.reset(seed=0)
    while not all(env.truncations.values()) and not all(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    with pytest.raises(ValueError, match="None"):
        env.step(0)
    env.step(None)


@pytest.mark.parametrize("game", ["blockade", "barricade", "nobles"])
def test_reset_seed_makes_games_deterministic(game):
    """The same seed to ``reset`` and to the action spaces gives the same game (dice included),
    and another seed another game."""
    def play(seed):
        env = envs.game_module(game).env()
        env.reset(seed=seed)
        for agent in env.possible_agents:
            env.action_space(agent).seed(seed)
        moves = []
        for agent in env.agent_iter(300):
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else env.action_space(agent).sample(obs["action_mask"])
            moves.append(action)
            env.step(action)
        return moves

    assert play(7) == play(7)
    assert play(7) != play(8)
