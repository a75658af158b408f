"""PUCT search on the real games: a forced win in one is found on every game and player count,
with uniform priors, Gumbel roots and a random network's priors."""

import numpy as np
import pytest
import torch
from contract import play_random
from tiny_games import hashed_evaluator, uniform_evaluator

from envs import barricade, blockade, nobles
from envs.core import sample_chance
from models.evaluator import NetworkEvaluator
from models.nets import ModelConfig, build_network
from search.puct import SearchConfig, _GumbelRoot, search

torch.set_num_threads(1)

OTHER_PAWNS = {1: [[2, 8], [3, 7]], 2: [[6, 6], [7, 5]], 3: [[11, 2], [10, 3]]}


def blockade_win_in_one(players):
    # Player 0 (NW) has a pawn on goal (11,8) and the other two steps from goal (10,7).
    game = blockade.Game(num_players=players)
    pawns = [[[11, 8], [8, 7]]] + [OTHER_PAWNS[p] for p in range(1, players)]
    return game, game.state_from_dict({
        "game": "blockade", "num_players": players, "rows": 14, "cols": 11, "pawns": pawns,
        "walls": [], "walls_left": [[9, 9]] * players, "to_move": 0, "phase": "move",
        "turn": 4})


def nobles_win_in_one(players):
    # Player 0's Noble is 6 from Home and 6 is rolled: reaching Home ends the game, +60.
    game = nobles.Game(num_players=players)
    return game, game.state_from_dict({
        "game": "nobles", "num_players": players, "mode": "journey",
        "nobles": [52] + [0] * (players - 1), "guards": [[0, 0, 0, 0]] * players,
        "scores": [0] * players, "to_move": 0, "roll": 6, "turn": 10})


def barricade_win_in_one():
    # The last turn of the game, after South's Guard half-move: stepping Scout 0 into a North
    # base scores 1 and wins when the turn limit ends the game; any other step draws 0-0.
    game = barricade.Game()
    return game, game.state_from_dict({
        "game": "barricade", "variant": "standard",
        "scouts": [[[12, 6], [6, 2], [6, 4]], [[8, 2], [8, 4], [8, 6]]],
        "guards": [[[7, 7], "tray"], ["tray", "tray"]], "placed_order": [[], []],
        "to_move": 0, "half": 1, "first_half": {"kind": "guard"}, "sweep": [None, None],
        "turn": 199})


POSITIONS = {
    "blockade-2": lambda: blockade_win_in_one(2),
    "blockade-3": lambda: blockade_win_in_one(3),
    "blockade-4": lambda: blockade_win_in_one(4),
    "nobles-2": lambda: nobles_win_in_one(2),
    "nobles-3": lambda: nobles_win_in_one(3),
    "nobles-4": lambda: nobles_win_in_one(4),
    "barricade": barricade_win_in_one,
}


def wins(state, action):
    """The move wins at once, or keeps the turn (Barricade's double move) with a win left."""
    after = state.clone()
    after.apply_action(action)
    if after.current_player() == 0:
        return any(wins(after, a) for a in after.legal_actions())
    return after.is_terminal() and after.returns()[0] == max(after.returns()) > 0


def random_network_evaluator(game):
    torch.manual_seed(0)
    encoder = (blockade if game.name == "blockade" else
               nobles if game.name == "nobles" else barricade).Encoder(game)
    net = build_network(encoder.shape, game.num_actions, game.num_players,
                        ModelConfig(channels=8, blocks=1, hidden=32))
    return NetworkEvaluator(net, encoder, game.num_players)


@pytest.mark.parametrize("name", POSITIONS)
@pytest.mark.parametrize("setup", ["puct-uniform", "gumbel-uniform", "puct-network"])
def test_forced_win_in_one_is_found(name, setup):
    game, state = POSITIONS[name]()
    legal = len(state.legal_actions())
    assert any(wins(state, a) for a in state.legal_actions())
    assert not all(wins(state, a) for a in state.legal_actions())
    root, evaluator = setup.split("-")
    evaluate = uniform_evaluator(game) if evaluator == "uniform" else \
        random_network_evaluator(game)
    # Uniform priors: about one visit per child suffices. A random network's priors may bury
    # the win, so PUCT needs more simulations to try it once.
    simulations = (2 if evaluator == "uniform" else 8) * legal + 2
    config = SearchConfig(simulations=simulations, root=root, gumbel_considered=legal,
                          c_puct=1.0)
    rng = [np.random.default_rng(1)]
    result = search([state], evaluate, config, rng, add_noise=(root == "gumbel"))[0]
    chosen = result.selected if root == "gumbel" else int(result.actions[np.argmax(result.visits)])
    assert wins(state, chosen), state.action_to_string(chosen)


@pytest.mark.parametrize("name", POSITIONS)
def test_gumbel_search_batched_within_a_tree_equals_one_leaf_at_a_time(monkeypatch, name):
    """The leaves of a halving phase's simulations go to one batch (several per tree): on each
    game's real moves and dice, the same search as one leaf at a time."""
    game, _ = POSITIONS[name]()
    rng = np.random.default_rng(3)
    states = []
    for plies in (6, 11):
        state = play_random(game.new_initial_state(), rng, plies)
        while state.is_chance_node():  # search starts at a decision
            state.apply_action(sample_chance(state, rng))
        states.append(state)
    config = SearchConfig(simulations=48, root="gumbel", chance="sample", gumbel_considered=8)
    evaluate = hashed_evaluator(game)
    batched = search(states, evaluate, config, [np.random.default_rng(i) for i in range(2)])
    monkeypatch.setattr(_GumbelRoot, "next_is_free", lambda self, pending: False)
    one_by_one = search(states, evaluate, config, [np.random.default_rng(i) for i in range(2)])
    for a, b in zip(batched, one_by_one, strict=True):
        np.testing.assert_array_equal(a.visits, b.visits)
        np.testing.assert_array_equal(a.child_values, b.child_values)
        assert a.selected == b.selected
