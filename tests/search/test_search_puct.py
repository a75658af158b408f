"""PUCT search on tiny contract games: value vectors for 2-4 players, chance nodes, forced wins,
Gumbel root, and batched search agreeing with one tree at a time."""

import numpy as np
import pytest
from tiny_games import RaceGame, TreeGame, exact_values, hashed_evaluator, uniform_evaluator

from search.puct import SearchConfig, _GumbelRoot, rollout_value, search


def rngs(n, seed=0):
    return [np.random.default_rng([seed, i]) for i in range(n)]


def run(game, state, simulations, **kw):
    config = SearchConfig(simulations=simulations, **{k: v for k, v in kw.items()
                                                      if k != "add_noise"})
    return search([state], uniform_evaluator(game), config, rngs(1),
                  add_noise=kw.get("add_noise", False))[0]


def leaf(*returns):
    return {"returns": list(returns)}


# Player 0 would like A's first leaf, but player 1 moves there and picks what is best for
# player 1; under B player 2 moves. max^n: A -> [-1, .5, .5], B -> [.3, -1, .1]; player 0 picks B.
THREE_PLAYERS = {"player": 0, "children": [
    {"player": 1, "children": [leaf(1, 0, -1), leaf(-1, 0.5, 0.5)]},
    {"player": 2, "children": [leaf(0.2, 0.9, -1), leaf(0.3, -1, 0.1)]},
]}

# Four players, three plies deep, every mover sees a different best leaf.
FOUR_PLAYERS = {"player": 3, "children": [
    {"player": 1, "children": [
        {"player": 2, "children": [leaf(1, -1, 0.2, -0.2), leaf(-1, 0.5, 0.6, -0.1)]},
        {"player": 0, "children": [leaf(0.1, 0.9, -1, 0.0), leaf(0.4, -0.3, 0.0, -0.1)]},
    ]},
    {"player": 2, "children": [
        {"player": 0, "children": [leaf(-0.5, 0, 0.5, 0.3), leaf(0.5, 0, -0.5, 0.1)]},
        leaf(0.0, 0.0, 0.4, -0.4),
    ]},
]}

# Player 0: action 0 is a gamble (expectation 0.25 * 1 + 0.75 * -1 = -0.5), action 1 a sure -0.4.
CHANCE_TWO = {"player": 0, "children": [
    {"chance": [0.25, 0.75], "children": [leaf(1, -1), leaf(-1, 1)]},
    leaf(-0.4, 0.4),
]}

# Three players with decisions below a chance node: the expectation of max^n values.
CHANCE_THREE = {"player": 0, "children": [
    {"chance": [0.5, 0.5], "children": [
        {"player": 1, "children": [leaf(1, -0.5, -0.5), leaf(-0.5, 0.2, 0.3)]},
        {"player": 2, "children": [leaf(0.8, -1, 0.2), leaf(0.6, 0.0, -0.6)]},
    ]},
    {"player": 1, "children": [leaf(0.3, 0.4, -0.7), leaf(0.5, 0.1, -0.6)]},
]}


@pytest.mark.parametrize("tree,players", [(THREE_PLAYERS, 3), (FOUR_PLAYERS, 4),
                                          (CHANCE_THREE, 3)])
@pytest.mark.parametrize("chance", ["sample", "expectation"])
def test_value_vectors_converge_to_max_n(tree, players, chance):
    game = TreeGame(tree, players)
    result = run(game, game.new_initial_state(), 3000, chance=chance, c_puct=1.0)
    best = int(result.actions[np.argmax(result.visits)])
    child_values = [exact_values(c, players) for c in tree["children"]]
    mover = tree["player"]
    assert best == int(np.argmax([v[mover] for v in child_values]))
    # The most visited child's mean vector is its max^n value; the root's mean mixes in
    # exploration of worse children.
    best_index = int(np.argmax(result.visits))
    np.testing.assert_allclose(result.child_values[best_index], child_values[best], atol=0.1)
    np.testing.assert_allclose(result.value, exact_values(tree, players), atol=0.15)


# Player 1 below A gives player 0 0.6 by taking its own best leaf (0.9 against -0.5); B is a
# sure 0.2. max^n trusts player 1 to take its own best leaf (A: 0.6), paranoid expects it to hurt
# player 0 (A: -1) and picks B.
TRUST_OR_NOT = {"player": 0, "children": [
    {"player": 1, "children": [leaf(0.6, 0.9, -1), leaf(-1, -0.5, 0.6)]},
    leaf(0.2, 0.4, -0.6),
]}


@pytest.mark.parametrize("model,best,value", [("maxn", 0, 0.6), ("paranoid", 1, 0.2)])
@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_paranoid_opponents_minimise_the_root_players_value(model, best, value, root):
    game = TreeGame(TRUST_OR_NOT, 3)
    result = run(game, game.new_initial_state(), 400, opponent_model=model, root=root,
                 c_puct=1.0)
    chosen = int(result.actions[np.argmax(result.visits)]) if root == "puct" else result.selected
    assert chosen == best
    assert result.q[best] == pytest.approx(value, abs=0.1)
    # Player 1's own node still reports its values in absolute seat order.
    assert result.child_values[1] == pytest.approx([0.2, 0.4, -0.6])


def test_first_visits_back_up_each_childs_vector_unchanged():
    game = TreeGame(THREE_PLAYERS, 3)
    state = game.new_initial_state()
    evaluate_calls = []

    def exact(states):
        evaluate_calls.append(len(states))
        values = np.stack([exact_values(s.node, 3) for s in states])
        return np.zeros((len(states), game.num_actions)), values

    # 1 root evaluation + one visit to each root child, each evaluated exactly.
    result = search([state], exact, SearchConfig(simulations=3), rngs(1), add_noise=False)[0]
    assert list(result.visits) == [1, 1]
    np.testing.assert_allclose(result.q, [-1, 0.3])  # each child's value for player 0


@pytest.mark.parametrize("temperature, share", [(1.0, 0.8), (2.0, 2 / 3), (1e6, 0.5)])
def test_policy_temperature_flattens_the_priors_the_visits_follow(temperature, share):
    """Priors = softmax(logits / T): logits (ln 4, 0) give (0.8, 0.2) as trained, (2/3, 1/3) at
    T = 2 and uniform as T grows; between two equal children PUCT's visits follow the priors."""
    game = TreeGame({"player": 0, "children": [leaf(0, 0), leaf(0, 0)]}, 2)

    def peaked(states):
        return np.tile([np.log(4.0), 0.0], (len(states), 1)), np.zeros((len(states), 2))

    config = SearchConfig(simulations=301, policy_temperature=temperature)
    result = search([game.new_initial_state()], peaked, config, rngs(1), add_noise=False)[0]
    assert result.visits[0] / 300 == pytest.approx(share, abs=0.01)


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_leaf_values_mix_the_network_with_the_games_own_evaluation(weight):
    """With game_value_weight w every evaluated leaf is worth (1 - w) x the network's vector +
    w x the game's evaluation: here the network says 0 and the game knows the exact values."""
    game = TreeGame(THREE_PLAYERS, 3)
    result = search([game.new_initial_state()], uniform_evaluator(game),
                    SearchConfig(simulations=3, game_value_weight=weight), rngs(1),
                    add_noise=False, game_value=lambda s: exact_values(s.node, 3))[0]
    np.testing.assert_allclose(result.q, [-1.0 * weight, 0.3 * weight])
    np.testing.assert_allclose(result.child_values[1], np.multiply([0.3, -1, 0.1], weight))
    with pytest.raises(ValueError, match="game_value_weight > 0 needs"):
        search([game.new_initial_state()], uniform_evaluator(game),
               SearchConfig(simulations=3, game_value_weight=0.5), rngs(1))


def test_rollouts_score_a_leaf_by_the_position_random_actions_later():
    """With game_value_rollout k the game's evaluation judges the leaf k random actions on: here
    the game knows nothing (zeros) and one action from a depth-1 node ends the game, so the one
    leaf visited is worth the returns of one of its own children."""
    game = TreeGame(THREE_PLAYERS, 3)
    knows_nothing = lambda s: np.zeros(3)  # noqa: E731
    seen = set()
    for seed in range(12):
        result = search([game.new_initial_state()], uniform_evaluator(game),
                        SearchConfig(simulations=2, game_value_weight=1.0, game_value_rollout=1),
                        rngs(1, seed), add_noise=False, game_value=knows_nothing)[0]
        assert result.visits.tolist() == [1, 0]
        seen.add(tuple(result.child_values[0]))
    assert seen == {(1.0, 0.0, -1.0), (-1.0, 0.5, 0.5)}  # A's two children, drawn at random
    still = search([game.new_initial_state()], uniform_evaluator(game),
                   SearchConfig(simulations=2, game_value_weight=1.0), rngs(1), add_noise=False,
                   game_value=knows_nothing)[0]
    assert still.child_values[0].tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="game_value_rollout"):
        SearchConfig(game_value_rollout=2)  # no game evaluation to roll out to


def test_a_rollout_plays_a_copy_and_stops_at_the_end_of_the_game():
    game = RaceGame(num_players=2, length=100, chance=False)
    state = game.new_initial_state()
    judged = []
    value = rollout_value(state, 5, np.random.default_rng(0),
                          lambda s: judged.append(s.turn) or np.full(2, 0.25),
                          lambda s: s.returns())
    assert judged == [5] and value.tolist() == [0.25, 0.25] and state.turn == 0
    race = RaceGame(num_players=2, length=1, chance=True)
    end = rollout_value(race.new_initial_state(), 50, np.random.default_rng(0),
                        lambda s: pytest.fail("the game ended: its returns count"),
                        lambda s: np.asarray(s.returns(), dtype=float))
    assert sorted(end.tolist()) == [-1.0, 1.0]


def test_expectation_through_chance_node_is_exact_on_terminal_outcomes():
    game = TreeGame(CHANCE_TWO, 2)
    result = run(game, game.new_initial_state(), 400, chance="expectation")
    q = dict(zip(result.actions.tolist(), result.q, strict=True))
    assert q[1] == pytest.approx(-0.4)
    assert q[0] == pytest.approx(-0.5, abs=0.02)
    assert int(result.actions[np.argmax(result.visits)]) == 1


def test_sampled_chance_converges_to_expectation():
    game = TreeGame(CHANCE_TWO, 2)
    result = run(game, game.new_initial_state(), 2000, chance="sample")
    q = dict(zip(result.actions.tolist(), result.q, strict=True))
    assert q[0] == pytest.approx(-0.5, abs=0.15)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_forced_win_in_one_without_chance(players, root):
    # Player 0 at 2 of 4: the dash wins now; a step lets the player at 3 win first.
    game = RaceGame(num_players=players, length=4, chance=False)
    state = game.state_from_dict({"positions": [2] + [3] * (players - 1), "to_move": 0})
    result = run(game, state, 24, root=root)
    chosen = result.selected if root == "gumbel" else result.actions[np.argmax(result.visits)]
    assert int(chosen) == 1


@pytest.mark.parametrize("chance", ["sample", "expectation"])
def test_forced_win_in_one_prefers_sure_win_over_gamble(chance):
    game = RaceGame(num_players=3, length=4, chance=True)
    state = game.state_from_dict({"positions": [3, 3, 3], "to_move": 0})
    result = run(game, state, 100, chance=chance)
    assert int(result.actions[np.argmax(result.visits)]) == 0
    assert result.q[list(result.actions).index(0)] == pytest.approx(1.0)


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_batched_search_equals_one_tree_at_a_time(root):
    game = RaceGame(num_players=3, length=6, chance=True)
    states = [game.state_from_dict({"positions": p, "to_move": t})
              for p, t in [([0, 0, 0], 0), ([2, 1, 4], 1), ([5, 3, 0], 2), ([1, 1, 1], 0)]]
    config = SearchConfig(simulations=50, root=root)
    evaluate = hashed_evaluator(game)
    batched = search(states, evaluate, config, rngs(4), add_noise=True)
    for i, state in enumerate(states):
        single = search([state], evaluate, config, [rngs(4)[i]], add_noise=True)[0]
        np.testing.assert_array_equal(single.visits, batched[i].visits)
        np.testing.assert_allclose(single.q, batched[i].q)
        np.testing.assert_allclose(single.policy, batched[i].policy)
        assert single.selected == batched[i].selected


@pytest.mark.parametrize("chance", ["sample", "expectation"])
@pytest.mark.parametrize("add_noise", [True, False])
@pytest.mark.parametrize("rollout", [0, 3])
def test_gumbel_phases_batched_within_a_tree_equal_one_leaf_at_a_time(monkeypatch, chance,
                                                                       add_noise, rollout):
    """A Gumbel tree sends the leaves of one halving phase's simulations (distinct root
    children) to one batch; the search must be the one that evaluates them one by one, rollouts
    before the game's evaluation included (they draw in another order than the descents)."""
    game = RaceGame(num_players=3, length=8, chance=True)
    states = [game.state_from_dict({"positions": p, "to_move": t})
              for p, t in [([0, 0, 0], 0), ([2, 1, 4], 1), ([5, 3, 0], 2)]]
    config = SearchConfig(simulations=60, root="gumbel", chance=chance, gumbel_considered=4,
                          game_value_weight=0.5 if rollout else 0.0, game_value_rollout=rollout)
    game_value = lambda s: np.tanh(np.asarray(s.positions, dtype=float) / 8)  # noqa: E731
    hashed = hashed_evaluator(game)
    sizes = []

    def evaluate(leaves):
        sizes.append(len(leaves))
        return hashed(leaves)

    batched = search(states, evaluate, config, rngs(3), add_noise=add_noise,
                     game_value=game_value)
    assert max(sizes) > len(states)  # several leaves of a tree in one batch
    calls = len(sizes)
    monkeypatch.setattr(_GumbelRoot, "next_is_free", lambda self, pending: False)
    one_by_one = search(states, evaluate, config, rngs(3), add_noise=add_noise,
                        game_value=game_value)
    assert len(sizes) - calls > calls
    for a, b in zip(batched, one_by_one, strict=True):
        np.testing.assert_array_equal(a.visits, b.visits)
        np.testing.assert_array_equal(a.child_values, b.child_values)
        np.testing.assert_array_equal(a.policy, b.policy)
        np.testing.assert_array_equal(a.value, b.value)
        assert a.selected == b.selected


def test_visits_count_every_simulation_after_the_root_evaluation():
    game = RaceGame(num_players=2, length=8)
    result = run(game, game.new_initial_state(), 37, add_noise=True)
    assert result.visits.sum() == 36
    assert result.policy.sum() == pytest.approx(1.0)


def test_gumbel_improved_policy_is_a_distribution_over_legal_actions():
    game = RaceGame(num_players=2, length=8)
    state = game.state_from_dict({"positions": [1, 2], "to_move": 0})
    result = run(game, state, 8, root="gumbel", gumbel_considered=2, add_noise=True)
    assert result.policy.sum() == pytest.approx(1.0)
    assert result.selected in result.actions.tolist()
    assert result.visits.sum() == 7
    assert (result.visits > 0).sum() <= 2  # only the considered actions are simulated


def test_search_leaves_states_untouched_and_rejects_chance_roots():
    game = RaceGame(num_players=2, length=4)
    state = game.state_from_dict({"positions": [1, 2], "to_move": 0})
    before = state.to_dict()
    run(game, state, 30)
    assert state.to_dict() == before
    state.apply_action(1)  # a dash: the chance node follows
    with pytest.raises(ValueError, match="decision node"):
        run(game, state, 10)


@pytest.mark.parametrize("bad", [dict(simulations=0), dict(chance="mean"), dict(root="alpha"),
                                 dict(dirichlet_share=1.5), dict(game_value_weight=1.5),
                                 dict(opponent_model="all"), dict(policy_temperature=0)])
def test_bad_config_is_a_clear_error(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        SearchConfig(**bad)
