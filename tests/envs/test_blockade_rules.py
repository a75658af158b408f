"""RULES.md section 1, scenario by scenario."""

import numpy as np
import pytest
from blockade_positions import with_walls

from envs import blockade
from envs.blockade.engine import MOVE_OFFSETS, NUM_MOVE_ACTIONS, parse_cell
from envs.core import TERMINAL, IllegalActionError


def position(pawns, walls=(), to_move=0, phase="move", turn=0, walls_left=None, n=2):
    """A position dict with pawns given in text notation, e.g. [["c3", "d4"], ["i12", "h11"]].
    The placed walls come out of the players' supplies in turn unless ``walls_left`` is given."""
    if walls_left is None:
        walls_left = with_walls({"num_players": n}, walls)["walls_left"]
    return {
        "game": "blockade", "num_players": n, "rows": 14, "cols": 11,
        "pawns": [[list(parse_cell(sq, 14, 11)) for sq in pair] for pair in pawns],
        "walls": [list(w) for w in walls],
        "walls_left": walls_left,
        "to_move": to_move, "phase": phase, "turn": turn,
    }


FAR = ["a1", "k1"]  # player 1's pawns parked out of the way
GAME = blockade.Game()


def load(pawns, **kwargs):
    game = kwargs.pop("game", GAME)
    return game.state_from_dict(position(pawns, **kwargs))


def move(state, source, target):
    return state.string_to_action(f"{source}-{target}")


def legal_targets(state, source):
    """Text names of the cells the pawn on ``source`` may move to."""
    targets = set()
    for a in state.legal_actions():
        if a < NUM_MOVE_ACTIONS:
            text = state.action_to_string(a)
            if text.startswith(source + "-"):
                targets.add(text.split("-")[1])
    return targets


def test_initial_position_matches_the_table():
    s = GAME.new_initial_state()
    d = s.to_dict()
    assert d["pawns"] == [[[2, 2], [3, 3]], [[11, 8], [10, 7]]]
    assert d["walls_left"] == [[9, 9], [9, 9]] and d["phase"] == "move" and d["to_move"] == 0
    assert GAME.num_actions == 284
    # c3's pawn cannot step diagonally onto d4, where its partner stands.
    assert "d4" not in legal_targets(s, "c3") and "c4" in legal_targets(s, "c3")


def test_one_and_two_step_moves_on_an_open_board():
    s = load([["f7", "a14"], FAR])
    assert legal_targets(s, "f7") == {
        "f6", "f8", "e7", "g7", "f5", "f9", "d7", "h7", "e6", "g6", "e8", "g8"}


def test_a_wall_blocks_the_step_across_it_and_the_straight_move_beyond():
    # V at anchor (6,6) separates column f from g in rows 6 and 7 (text rows 6, 7).
    s = load([["f7", "a14"], FAR], walls=[["V", 6, 6]])
    targets = legal_targets(s, "f7")
    assert "g7" not in targets and "h7" not in targets
    # The L-move to g6 still has the open route f7-f6-g6? No: V(6,6) also blocks f6|g6.
    assert "g6" not in targets
    # g8 is reachable through f8 (V(6,6) does not reach row 8).
    assert "g8" in targets


def test_l_move_needs_one_open_route_and_fails_when_both_are_closed():
    # Target g6 from f7: routes f7-f6-g6 and f7-g7-g6.
    open_route = load([["f7", "a14"], FAR], walls=[["H", 6, 6]])  # blocks f6|f7 and g6|g7
    assert "g6" not in legal_targets(open_route, "f7")
    only_horizontal_first = load([["f7", "a14"], FAR], walls=[["H", 6, 5]])  # f6|f7, e6|e7
    assert "g6" in legal_targets(only_horizontal_first, "f7")  # via g7
    pawn_on_one_route = load([["f7", "g7"], FAR], walls=[["H", 6, 5]])
    assert "g6" not in legal_targets(pawn_on_one_route, "f7")  # f6 route walled, g7 occupied


def test_pawns_block_and_are_never_jumped():
    s = load([["f7", "a14"], ["f8", "k1"]])
    targets = legal_targets(s, "f7")
    assert "f8" not in targets and "f9" not in targets  # no landing on, no jumping over
    assert "e8" in targets and "g8" in targets  # around it by an L
    with pytest.raises(IllegalActionError):
        s.apply_action(s.string_to_action("f7-f9"))


def test_a_move_never_ends_where_it_started_and_nothing_moves_off_the_board():
    s = load([["a1", "a14"], ["k14", "k1"]])
    targets = legal_targets(s, "a1")
    assert targets == {"a2", "b1", "a3", "c1", "b2"}


def test_after_a_move_the_same_player_places_a_wall():
    s = GAME.new_initial_state()
    s.apply_action(move(s, "c3", "c5"))
    assert s.current_player() == 0 and s.to_dict()["phase"] == "wall"
    mask = s.legal_actions_mask()
    assert not mask[:NUM_MOVE_ACTIONS].any() and mask[NUM_MOVE_ACTIONS:].all()
    s.apply_action(s.string_to_action("Vf6"))
    d = s.to_dict()
    assert d["walls"] == [["V", 5, 5]] and d["walls_left"][0] == [8, 9]
    assert d["to_move"] == 1 and d["phase"] == "move" and d["turn"] == 1


def test_walls_may_not_overlap_or_cross_but_may_touch():
    s = load([["f2", "a14"], FAR], walls=[["V", 5, 4]], phase="wall")
    legal = set(s.legal_actions())

    def wall(o, r, c):
        return s.string_to_action(f"{o}{chr(ord('a') + c)}{r + 1}")

    for blocked in (wall("V", 4, 4), wall("V", 5, 4), wall("V", 6, 4), wall("H", 5, 4)):
        assert blocked not in legal
    for free in (wall("V", 3, 4), wall("V", 7, 4), wall("H", 5, 3), wall("H", 4, 4),
                 wall("H", 5, 5)):
        assert free in legal
    h = load([["f2", "a14"], FAR], walls=[["H", 5, 4]], phase="wall")
    h_legal = set(h.legal_actions())
    for blocked in (wall("H", 5, 3), wall("H", 5, 4), wall("H", 5, 5), wall("V", 5, 4)):
        assert blocked not in h_legal


def test_no_wall_on_the_outer_edge():
    s = GAME.new_initial_state()
    for text in ("Va1", "Hf1", "Va7"):
        with pytest.raises(ValueError):
            s.string_to_action(text)
    with pytest.raises(ValueError, match="interior"):
        GAME.state_from_dict(position([["c3", "d4"], ["i12", "h11"]], walls=[["V", 0, 3]]))


def test_a_player_may_wall_anyone_in_completely():
    # Box player 1's pawn on a14 into its corner: H at (13,1)... a14 is (13,0); walls around
    # a14 and b14: V at anchor (13,2) separates b14|c14 and b13|c13; H at (13,1) separates
    # a13|a14 and b13|b14.
    walls = [["V", 13, 2]]
    s = load([["f7", "g7"], ["a14", "k1"]], walls=walls, phase="wall", to_move=0)
    s.apply_action(s.string_to_action("Hb14"))  # anchor (13,1): a13|a14 and b13|b14
    assert s.to_dict()["walls"][-1] == ["H", 13, 1]
    assert "a14-b14" in {s.action_to_string(a) for a in s.legal_actions()}


def test_boxed_in_player_starts_its_turn_in_the_wall_phase():
    # Player 1's pawns on a1 and b1 with b1's exits and a1's exits walled:
    # V(1,2): b1|c1 and b2|c2; H(1,1): a1|a2 and b1|b2.
    walls = [["V", 1, 2], ["H", 1, 1]]
    s = load([["f7", "g7"], ["a1", "b1"]], walls=walls, to_move=1)
    assert s.current_player() == 1 and s.to_dict()["phase"] == "wall"
    assert not s.legal_actions_mask()[:NUM_MOVE_ACTIONS].any()


def test_without_walls_the_turn_ends_after_the_move():
    s = load([["f7", "g7"], FAR], walls_left=[[0, 0], [9, 9]])
    s.apply_action(move(s, "f7", "f5"))
    assert s.current_player() == 1 and s.to_dict()["turn"] == 1


def test_only_horizontal_walls_left_means_only_horizontal_anchors():
    s = load([["f7", "g7"], FAR], walls_left=[[0, 3], [9, 9]], phase="wall")
    walls = [a - NUM_MOVE_ACTIONS for a in s.legal_actions()]
    assert walls and all(w >= GAME.anchors_per_orientation for w in walls)


def test_with_neither_move_nor_wall_the_turn_passes():
    walls = [["V", 1, 2], ["H", 1, 1]]
    s = load([["f7", "g7"], ["a1", "b1"]], walls=walls, walls_left=[[9, 9], [0, 0]], to_move=1)
    assert s.current_player() == 0 and s.to_dict()["turn"] == 1  # player 1's turn passed


def test_deadlock_is_a_draw_as_soon_as_it_exists():
    # Both players boxed in and out of walls: nobody can act.
    walls = [["V", 1, 2], ["H", 1, 1], ["V", 13, 2], ["H", 13, 1]]
    s = load([["a1", "b1"], ["a14", "b14"]], walls=walls, walls_left=[[0, 0], [0, 0]])
    assert s.is_terminal() and not s.is_truncated()
    assert s.current_player() == TERMINAL
    np.testing.assert_array_equal(s.returns(), [0.0, 0.0])
    assert not s.legal_actions_mask().any()


def test_win_condition_both_needs_both_pawns_on_goal_squares():
    # Player 0's goals are i12 and h11 (SE start squares).
    s = load([["i10", "h11"], FAR])
    s.apply_action(move(s, "i10", "i12"))
    assert s.is_terminal() and s.winner == 0 and s.to_dict()["turn"] == 1
    np.testing.assert_array_equal(s.returns(), [1.0, -1.0])
    one = load([["i10", "a14"], FAR])
    one.apply_action(move(one, "i10", "i12"))
    assert not one.is_terminal() and one.to_dict()["phase"] == "wall"


def test_win_condition_any_needs_one_pawn_and_no_wall_follows():
    game = blockade.Game(win_condition="any")
    s = load([["i10", "a14"], FAR], game=game)
    s.apply_action(move(s, "i10", "i12"))
    assert s.is_terminal() and s.winner == 0 and len(s.to_dict()["walls"]) == 0


def test_a_pawn_of_another_player_may_block_a_goal_square():
    s = load([["i10", "h11"], ["i12", "k1"]])
    assert "i12" not in legal_targets(s, "i10")


def test_four_player_seating_goals_and_returns():
    game = blockade.Game(num_players=4)
    s = game.new_initial_state()
    assert s.to_dict()["pawns"] == [
        [[2, 2], [3, 3]], [[2, 8], [3, 7]], [[11, 8], [10, 7]], [[11, 2], [10, 3]]]
    corners = {0: "SE", 1: "SW", 2: "NW", 3: "NE"}
    starts = {"NW": {(2, 2), (3, 3)}, "NE": {(2, 8), (3, 7)}, "SE": {(11, 8), (10, 7)},
              "SW": {(11, 2), (10, 3)}}
    for p, corner in corners.items():
        assert {game.coords(x) for x in game.goal_cells[p]} == starts[corner]
    order = []
    for _ in range(4):
        order.append(s.current_player())
        s.apply_action(s.legal_actions()[0])
        s.apply_action(s.legal_actions()[0])
    assert order == [0, 1, 2, 3]
    win = game.state_from_dict(position(
        [["a1", "a2"], ["c11", "d11"], ["k1", "k2"], ["k14", "k13"]], n=4, to_move=1))
    win.apply_action(win.string_to_action("c11-c12"))  # player 1 (NE) reaches SW: c12, d11
    np.testing.assert_allclose(win.returns(), [-1 / 3, 1.0, -1 / 3, -1 / 3])


def test_three_players_sit_nw_ne_se():
    game = blockade.Game(num_players=3)
    assert game.state_from_dict(game.new_initial_state().to_dict()).to_dict()["pawns"] == [
        [[2, 2], [3, 3]], [[2, 8], [3, 7]], [[11, 8], [10, 7]]]
    assert game.num_actions == 284


def test_reaching_max_turns_truncates_with_zero_returns():
    game = blockade.Game(max_turns=3)
    s = game.new_initial_state()
    plies = 0
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
        plies += 1
    assert s.is_truncated() and s.to_dict()["turn"] == 3 and plies == 6
    np.testing.assert_array_equal(s.returns(), [0.0, 0.0])


def test_default_max_turns_is_100_per_player():
    assert blockade.Game(num_players=3).max_turns == 300


def test_loaded_winning_position_is_terminal_and_two_winners_are_invalid():
    s = load([["i12", "h11"], FAR])
    assert s.is_terminal() and s.winner == 0
    game = blockade.Game(win_condition="any")
    with pytest.raises(ValueError, match="win condition"):
        game.state_from_dict(position([["i12", "a14"], ["c3", "k1"]]))


def test_wall_phase_position_with_no_wall_to_place_moves_on():
    s = load([["f7", "g7"], FAR], walls_left=[[0, 0], [9, 9]], phase="wall")
    assert s.current_player() == 1 and s.to_dict()["turn"] == 1


def test_offsets_follow_the_rules_table():
    assert MOVE_OFFSETS == ((-1, 0), (1, 0), (0, -1), (0, 1), (-2, 0), (2, 0), (0, -2), (0, 2),
                            (-1, -1), (-1, 1), (1, -1), (1, 1))
    s = load([["f7", "a14"], FAR])
    assert s.string_to_action("f7-f5") == 4 and s.string_to_action("a14-a13") == 12
    assert s.string_to_action("Ve6") == 24 + 0 * 130 + 4 * 10 + 3
    assert s.string_to_action("He6") == 24 + 1 * 130 + 4 * 10 + 3
