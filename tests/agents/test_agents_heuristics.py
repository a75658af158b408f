"""The heuristics (and MCTS on top of them) make the moves each game's strategy calls for, in
positions set up for it."""

import random

import pytest

import envs
from agents import make_agent
from agents.heuristic import heuristic_for
from agents.heuristic.blockade import TRAPPED


def position(name, **fields):
    game = envs.make_game({"name": name})
    return game, game.state_from_dict({"game": name, **fields})


def blockade_position(**fields):
    return position("blockade", num_players=2, rows=14, cols=11,
                    walls_left=[[5, 5], [5, 5]], turn=10, **fields)


@pytest.mark.parametrize("spec", ["heuristic", "mcts:simulations=50"])
def test_blockade_agents_take_a_win_in_one(spec):
    # Player 0 has one pawn on i12 and the other two steps left of its second goal, h11.
    game, state = blockade_position(pawns=[[[11, 8], [10, 5]], [[6, 2], [7, 3]]], walls=[],
                                    to_move=0, phase="move")
    agent = make_agent(spec, game)
    agent.reset(game, 0, seed=1)
    state.apply_action(agent.act(state))
    assert state.is_terminal() and state.returns()[0] == 1.0


def test_blockade_heuristic_seals_a_goal_square_with_the_last_wall():
    # Player 1's goal square c3 is walled on three sides; the fourth wall shuts it for good.
    game, state = blockade_position(pawns=[[[8, 3], [9, 4]], [[6, 5], [7, 6]]],
                                    walls=[["V", 2, 2], ["H", 2, 3], ["V", 3, 3]],
                                    to_move=0, phase="wall")
    heuristic = heuristic_for(game)
    action = heuristic.choose(state, random.Random(0))
    assert state.action_to_string(action) == "Hc4"
    state.apply_action(action)
    masks = heuristic.masks(state)
    assert heuristic.race(masks, state.pawns, 1)[0] == TRAPPED
    assert heuristic.race(masks, state.pawns, 0)[0] < TRAPPED


def test_nobles_heuristic_runs_the_noble_home_only_when_that_wins():
    fields = dict(num_players=2, mode="journey", nobles=[55, 10],
                  guards=[[0, 0, 0, 0], [0, 0, 0, 0]], to_move=0, roll=3, turn=20)
    game, winning = position("nobles", scores=[0, 0], **fields)
    heuristic = heuristic_for(game)
    assert heuristic.choose(winning, random.Random(0)) == 0  # Home: +60, game over, won
    _, losing = position("nobles", scores=[0, 100], **fields)
    assert heuristic.choose(losing, random.Random(0)) != 0  # Home would end it 60 to 100


def test_nobles_heuristic_captures_the_opponent_noble():
    # A Guard at progress 10 rolls 5 onto tile 15, where seat 2's Noble stands (progress 41).
    game, state = position("nobles", num_players=2, mode="journey", nobles=[20, 41],
                           guards=[[0, 0, 0, 10], [0, 0, 0, 0]], scores=[0, 0], to_move=0,
                           roll=5, turn=20)
    action = heuristic_for(game).choose(state, random.Random(0))
    assert action == 1 + 4 * 10
    state.apply_action(action)
    assert state.to_dict()["nobles"][1] == 0 and state.to_dict()["scores"][0] == 30


def test_barricade_heuristic_completes_a_rocking_horse_sweep_that_wins():
    # South leads 1-0 and its Scout 0 has swept c4-d4 five times: the sixth ends the game.
    game, state = position(
        "barricade", variant="standard",
        scouts=[[[4, 4], [13, 2], [1, 6]], [[12, 2], [13, 4], [13, 6]]],
        guards=[["tray", "tray"], ["tray", "tray"]], placed_order=[[1], []], to_move=0,
        half=0, first_half=None, sweep=[{"scout": 0, "stations": [[4, 3], [4, 4]], "count": 5},
                                        None], turn=30)
    heuristic = heuristic_for(game)
    rng = random.Random(0)
    while state.current_player() == 0:
        state.apply_action(heuristic.choose(state, rng))
    assert state.is_terminal() and state.returns()[0] == 1.0


def test_barricade_intercept_heuristic_keeps_a_scout_out_of_a_one_guard_trap():
    game = envs.make_game({"name": "barricade", "variant": "intercept"})
    heuristic = heuristic_for(game)
    base = dict(game="barricade", variant="intercept", guards=[["tray", "tray"], ["tray", "tray"]],
                placed_order=[[], []], to_move=1, half=0, first_half=None, sweep=[None, None],
                turn=20)
    # South's Scout on a5 (file a: no left step) beside its own Scout on b5 has one way on, a6;
    # North moves next and can put a Guard there: that Scout counts as lost.
    trapped = game.state_from_dict({**base, "scouts": [[[5, 1], [5, 2], [1, 6]],
                                                       [[13, 2], [13, 4], [13, 6]]]})
    free = game.state_from_dict({**base, "scouts": [[[5, 1], [5, 3], [1, 6]],
                                                    [[13, 2], [13, 4], [13, 6]]]})
    assert heuristic.evaluate(trapped)[0] < heuristic.evaluate(free)[0]
