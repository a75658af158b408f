"""Plain UCT (search/uct.py) on tiny games with known answers: max^n for three players, chance
nodes by expectation, progressive widening in a given order, cut-off and full rollouts."""

import pytest
from tiny_games import RaceGame, TreeGame, exact_values

from search.uct import UCT, UCTConfig


def leaf(*returns):
    return {"returns": list(returns)}


def best(game, tree_config, evaluate=None, seed=0, order=None):
    search = UCT(game.num_players, tree_config, evaluate=evaluate, order=order, seed=seed)
    return search.best_action(game.new_initial_state())


def test_max_n_lets_each_player_maximise_its_own_value():
    # Player 0's action 0 holds its best leaf, but player 1 would then pick its own best,
    # leaving player 0 with -1; max^n sees that and takes the safe 0.
    tree = {"player": 0, "children": [
        {"player": 1, "children": [leaf(1, -1, 0), leaf(-1, 0.5, 0.5)]},
        leaf(0, 0, 0),
    ]}
    game = TreeGame(tree, 3)
    assert exact_values(tree, 3)[0] == 0
    assert best(game, UCTConfig(simulations=300, rollout_depth=None)) == 1


def test_chance_nodes_are_judged_by_expectation():
    coin = {"chance": [0.5, 0.5], "children": [leaf(1, -1), leaf(-1, 1)]}
    loaded = {"chance": [0.9, 0.1], "children": [leaf(1, -1), leaf(-1, 1)]}
    tree = {"player": 0, "children": [coin, leaf(0.3, -0.3), loaded]}
    game = TreeGame(tree, 2)
    assert best(game, UCTConfig(simulations=600, rollout_depth=None)) == 2
    without_loaded = TreeGame({"player": 0, "children": [coin, leaf(0.3, -0.3)]}, 2)
    assert best(without_loaded, UCTConfig(simulations=600, rollout_depth=None)) == 1


def test_progressive_widening_caps_children_and_follows_the_order():
    tree = {"player": 0, "children": [leaf(0.01 * i, -0.01 * i) for i in range(40)]}
    game = TreeGame(tree, 2)
    config = UCTConfig(simulations=100, rollout_depth=None, widening=1.0, widening_exponent=0.5)
    reversed_order = lambda state, actions: sorted(actions, reverse=True)  # noqa: E731
    search = UCT(2, config, order=reversed_order)
    visits = search.decide(game.new_initial_state())[1]
    assert len(visits) <= 11  # ceil(1 * sqrt(100 + 1))
    assert min(visits) >= 29  # grown best-first: only the top of the order was tried
    assert max(visits, key=visits.get) == 39
    _, plain = UCT(2, UCTConfig(simulations=100, rollout_depth=None)).decide(
        game.new_initial_state())
    assert len(plain) == 40


def test_cut_off_rollouts_use_the_evaluation_and_full_rollouts_reach_the_end():
    game = RaceGame(num_players=2, length=6, chance=True)
    calls = []

    def evaluate(state):
        calls.append(state.to_dict())
        lead = state.positions[0] - state.positions[1]
        return [lead / 6, -lead / 6]

    UCT(2, UCTConfig(simulations=50, rollout_depth=2), evaluate=evaluate).decide(
        game.new_initial_state())
    assert calls and all(max(c["positions"]) < 6 for c in calls)
    before = len(calls)
    UCT(2, UCTConfig(simulations=50, rollout_depth=None), evaluate=evaluate).decide(
        game.new_initial_state())
    assert len(calls) == before  # rolled out to the end: no evaluation needed


def test_search_is_deterministic_for_a_seed():
    game = RaceGame(num_players=3, length=5, chance=True)
    config = UCTConfig(simulations=120, rollout_depth=None)
    first = UCT(3, config, seed=4).decide(game.new_initial_state())[1]
    again = UCT(3, config, seed=4).decide(game.new_initial_state())[1]
    assert first == again


@pytest.mark.parametrize("settings, message", [
    ({"simulations": 0}, "simulations"),
    ({"exploration": -1.0}, "exploration"),
    ({"rollout_depth": -2}, "rollout_depth"),
    ({"widening": 1.0, "widening_exponent": 1.5}, "widening"),
])
def test_bad_settings_are_rejected(settings, message):
    with pytest.raises(ValueError, match=message):
        UCTConfig(**settings)


def test_cut_off_rollouts_need_an_evaluation():
    with pytest.raises(ValueError, match="evaluation function"):
        UCT(2, UCTConfig(rollout_depth=3))

