"""Nobles rules, scenario by scenario (RULES.md section 3): the seed's worked example, every
blockade and capture rule, Home, scoring, the end, positions, notation and config."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import CHANCE, TERMINAL, IllegalActionError
from envs.nobles import Game
from envs.nobles.engine import HOME, NOBLE_ACTION, guard_action, progress_of, tile_of


def position(nobles=None, guards=None, scores=None, to_move=0, roll=None, turn=0, n=2):
    return {"nobles": nobles or [0] * n, "guards": guards or [[0] * 4 for _ in range(n)],
            "scores": scores or [0] * n, "to_move": to_move, "roll": roll, "turn": turn}


def load(n=2, mode="journey", **kwargs):
    return Game(num_players=n, mode=mode).state_from_dict(position(n=n, **kwargs))


def G(p, k=1):
    return guard_action(p, k)


# -- the seed's worked example -----------------------------------------------------------------

@pytest.mark.parametrize("mode, penalty", [("journey", -40), ("brawl", -120)])
def test_seed_example(mode, penalty):
    # Opponent group of 3 on tile 11 (seat 2 progress 37), our group of 2 on tile 7, roll 7.
    assert tile_of(2, 37) == 11
    state = load(mode=mode, guards=[[7, 7, 0, 0], [37, 37, 37, 0]], roll=7)
    action = 1 + 4 * 7 + 1
    assert state.action_to_string(action) == "G7x2"
    state.apply_action(action)
    d = state.to_dict()
    assert d["guards"][0] == [0, 0, 10, 10]  # stopped on tile 10, before the blockade
    assert d["scores"] == [penalty, 0]
    assert d["guards"][1] == [0, 37, 37, 37]  # no capture: the blockade stays
    event = state.events[0]
    assert (event.trimmed_steps, event.blocker, event.penalty) == (8, 1, penalty)
    assert f"({penalty:+d})" in str(state)


def test_seed_example_from_saved_position_round_trip():
    state = load(mode="brawl", guards=[[7, 7, 0, 0], [37, 37, 37, 0]], roll=7)
    saved = state.to_dict()
    again = Game(num_players=2, mode="brawl").state_from_dict(saved)
    assert again.to_dict() == saved
    again.apply_action(G(7, 2))
    assert again.scores == [-120, 0]


# -- chance nodes ------------------------------------------------------------------------------

def test_chance_node_outcomes_are_2d6():
    state = Game().new_initial_state()
    assert state.is_chance_node() and state.current_player() == CHANCE
    outcomes = dict(state.chance_outcomes())
    assert sorted(outcomes) == list(range(2, 13))
    assert outcomes[7] == pytest.approx(6 / 36) and outcomes[2] == pytest.approx(1 / 36)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert np.flatnonzero(state.legal_actions_mask()).tolist() == state.legal_actions()
    state.apply_action(np.int64(7))
    assert state.current_player() == 0 and state.roll == 7
    assert state.legal_actions() == [NOBLE_ACTION, G(0, 1), G(0, 2), G(0, 3), G(0, 4)]


@pytest.mark.parametrize("bad", [0, 1, 13, 100, -1, 7.0, "7", True])
def test_bad_roll_is_rejected(bad):
    state = Game().new_initial_state()
    with pytest.raises(IllegalActionError):
        state.apply_action(bad)
    assert state.is_chance_node() and state.to_dict()["roll"] is None


def test_roll_with_no_legal_mover_passes_the_turn():
    # Red's Noble waits behind its own Guard on the entering tile (tile 1); that Guard faces
    # gold's group of 2 on tile 2 (seat 2 progress 28); the other Guards are Home.
    state = load(nobles=[0, 0], guards=[[1, HOME, HOME, HOME], [28, 28, 0, 0]])
    state.apply_action(5)
    assert state.to_dict()["to_move"] == 1 and state.turn == 1 and state.is_chance_node()
    assert state.events[-1].action == -1 and state.events[-1].roll == 5
    assert "no legal mover" in str(state)


def test_loading_a_roll_with_no_legal_mover_passes():
    state = load(nobles=[0, 0], guards=[[1, HOME, HOME, HOME], [28, 28, 0, 0]], roll=9)
    assert state.is_chance_node() and state.to_move == 1 and state.turn == 1


# -- movement ----------------------------------------------------------------------------------

def test_leaving_the_yard_lands_on_the_entering_tile_first():
    state = load(roll=2)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 2
    state = load(roll=6, to_move=1)
    state.apply_action(G(0, 3))
    assert state.guards[1] == (0, 6, 6, 6)


def test_group_in_the_yard_moves_together():
    state = load(roll=4)
    assert G(0, 4) in state.legal_actions()
    state.apply_action(G(0, 4))
    assert state.guards[0] == (4, 4, 4, 4)


def test_only_as_many_guards_as_stand_there():
    state = load(guards=[[5, 5, 0, 0], [0, 0, 0, 0]], roll=3)
    assert G(5, 2) in state.legal_actions() and G(5, 3) not in state.legal_actions()
    before = state.to_dict()
    with pytest.raises(IllegalActionError, match="only 2 Guard"):
        state.apply_action(G(5, 3))
    assert state.to_dict() == before


def test_overshoot_stops_at_home_without_penalty():
    state = load(nobles=[55, 0], roll=12)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == HOME and state.scores == [60, 0] and state.is_terminal()


def test_guards_reaching_home_score_per_guard():
    state = load(mode="brawl", guards=[[56, 56, 56, 0], [0] * 4], roll=2)
    state.apply_action(G(56, 3))
    assert state.guards[0] == (0, HOME, HOME, HOME) and state.scores == [15, 0]
    assert not state.is_terminal()  # only a Noble ends the game


def test_home_path_is_entered_after_the_whole_loop():
    state = load(nobles=[50, 0], roll=5)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 55  # 51, 52, then Home path 53..55


def test_pieces_at_home_cannot_move():
    state = load(guards=[[HOME, HOME, HOME, HOME], [0] * 4], roll=3)
    assert state.legal_actions() == [NOBLE_ACTION]


# -- blockades ---------------------------------------------------------------------------------

def opp(p_seat0: int, seat: int = 2) -> int:
    """The opponent's progress of the tile seat 0 reaches at progress ``p_seat0``."""
    return progress_of(seat, tile_of(0, p_seat0))


@pytest.mark.parametrize("group, mover, blocked", [
    (1, 1, False), (2, 1, True), (2, 2, True), (2, 3, False), (2, 4, False),
    (3, 1, True), (3, 2, True), (3, 3, True), (3, 4, False),
    (4, 1, True), (4, 2, True), (4, 3, True), (4, 4, False),
])
def test_group_size_table(group, mover, blocked):
    guards = [[5] * mover + [0] * (4 - mover), [opp(8)] * group + [0] * (4 - group)]
    state = load(guards=guards, roll=6)
    state.apply_action(G(5, mover))
    assert state.guards[0].count(7 if blocked else 11) == mover
    assert state.scores[0] == (-5 * mover * 4 if blocked else 0)


def test_single_noble_blocked_by_group_of_two():
    state = load(nobles=[5, 0], guards=[[0] * 4, [opp(8), opp(8), 0, 0]], roll=6)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 7 and state.scores[0] == -5 * 4


def test_blockade_stops_at_any_point_not_only_the_end():
    # The group sits on the second step of a roll of 12.
    state = load(guards=[[5, 0, 0, 0], [opp(7), opp(7), 0, 0]], roll=12)
    state.apply_action(G(5))
    assert state.guards[0] == (0, 0, 0, 6) and state.scores[0] == -5 * 11


def test_blocked_on_the_first_step_is_not_a_legal_mover():
    state = load(guards=[[5, 0, 0, 0], [opp(6), opp(6), 0, 0]], roll=4)
    assert G(5) not in state.legal_actions()
    assert G(0) in state.legal_actions()
    before = state.to_dict()
    with pytest.raises(IllegalActionError, match="blocked on its first step"):
        state.apply_action(G(5))
    assert state.to_dict() == before


def test_guards_of_two_opponents_do_not_form_a_group():
    # One gold and one purple Guard share tile 14 (gold's own entering tile, a shared tile).
    guards = [[12, 0, 0, 0], [1, 0, 0, 0], [progress_of(2, 14), 0, 0, 0]]
    state = load(n=3, guards=guards, roll=4)
    state.apply_action(G(12))
    assert state.guards[0] == (0, 0, 0, 16) and state.scores[0] == 0


def test_guards_on_castles_do_not_blockade():
    castle = 9  # seat 0 progress 9
    state = load(nobles=[5, 0], guards=[[0] * 4, [opp(castle)] * 4], roll=6)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 11 and state.scores[0] == 0


def test_opponents_cannot_blockade_on_your_own_entering_tile():
    # Gold (seat 2) holds a group of 4 on red's entering tile 1; red leaves the Yard past it.
    state = load(guards=[[0] * 4, [opp(1)] * 4], roll=3)
    assert opp(1) == 27
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 3 and state.scores[0] == 0


def test_opponent_group_on_a_third_entering_tile_blockades():
    # 3 players: purple (seat 2) holds a group of 2 on gold's entering tile 14; red is blocked.
    guards = [[10, 0, 0, 0], [0] * 4, [progress_of(2, 14)] * 2 + [0, 0]]
    state = load(n=3, guards=guards, roll=6)
    state.apply_action(G(10))
    assert state.guards[0] == (0, 0, 0, 13) and state.scores[0] == -5 * 3
    assert state.events[0].blocker == 2
    # ...but gold, on its own entering tile, is not blocked by it.
    state = load(n=3, guards=guards, roll=2, to_move=1)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[1] == 2


def test_noble_blocked_by_a_single_own_guard_without_penalty():
    state = load(nobles=[5, 0], guards=[[8, 0, 0, 0], [0] * 4], roll=6)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 7 and state.scores[0] == 0
    assert state.events[0].blocker == -1 and state.events[0].trimmed_steps == 4


def test_own_guard_does_not_block_other_guards():
    state = load(guards=[[5, 8, 0, 0], [0] * 4], roll=6)
    state.apply_action(G(5))
    assert state.guards[0] == (0, 0, 8, 11)


def test_own_guard_does_not_block_the_noble_on_a_castle():
    state = load(nobles=[5, 0], guards=[[9, 0, 0, 0], [0] * 4], roll=6)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 11


def test_own_guard_does_not_block_the_noble_in_the_home_path():
    state = load(nobles=[51, 0], guards=[[54, 56, 0, 0], [0] * 4], roll=6)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 57


def test_own_guard_on_own_entering_tile_blocks_the_noble_leaving_the_yard():
    # House reading: the entering-tile exemption is for opponents only.
    state = load(guards=[[1, 0, 0, 0], [0] * 4], roll=5)
    assert NOBLE_ACTION not in state.legal_actions()


def test_opponent_blockade_and_own_guard_on_one_tile_costs_the_penalty():
    # Tile 14 is gold's (seat 1's) entering tile: it may hold red's Guard and gold's group.
    guards = [[progress_of(0, 14), 0, 0, 0], [1, 1, 0, 0], [0] * 4]
    state = load(n=3, nobles=[10, 0, 0], guards=guards, roll=6)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles[0] == 13 and state.scores[0] == -5 * 3 and state.events[0].blocker == 1


def test_moving_group_of_four_passes_every_blockade():
    state = load(guards=[[5] * 4, [opp(7)] * 4], roll=6)
    state.apply_action(G(5, 4))
    assert state.guards[0] == (11, 11, 11, 11) and state.scores[0] == 0


# -- captures ----------------------------------------------------------------------------------

def test_capture_sends_every_opponent_piece_home_to_the_yard():
    state = load(mode="brawl", nobles=[0, opp(10)], guards=[[4, 4, 4, 0], [opp(10), 0, 0, 0]],
                 roll=6)
    state.apply_action(G(4, 3))
    assert state.nobles[1] == 0 and state.guards[1] == (0, 0, 0, 0)
    assert state.scores[0] == 25 + 60
    assert "captured" in str(state)


@pytest.mark.parametrize("mover, victims", [(1, 1), (3, 2), (4, 3), (4, 4)])
def test_capture_by_any_group_that_gets_there(mover, victims):
    # Equal size suffices (4 on 4); smaller or equal groups are stopped before by the blockade.
    guards = [[4] * mover + [0] * (4 - mover), [opp(6)] * victims + [0] * (4 - victims)]
    state = load(guards=guards, roll=2)
    state.apply_action(G(4, mover))
    assert state.guards[0].count(6) == mover and state.guards[1] == (0, 0, 0, 0)
    assert state.scores == [10 * victims, 0]
    assert state.events[0].captured_guards == ((1, victims),)


def test_equal_groups_of_three_block_instead_of_capturing():
    state = load(guards=[[4, 4, 4, 0], [opp(6)] * 3 + [0]], roll=2)
    state.apply_action(G(4, 3))
    assert state.guards[0].count(5) == 3 and state.guards[1].count(opp(6)) == 3
    assert state.scores[0] == -5 * 3


def test_passing_over_pieces_does_not_capture():
    state = load(guards=[[4, 0, 0, 0], [opp(6), 0, 0, 0]], roll=5)
    state.apply_action(G(4))
    assert state.guards[1] == (0, 0, 0, opp(6)) and state.scores[0] == 0


def test_stopped_mover_captures_on_its_final_tile():
    # Purple's single Guard stands right before gold's blockade: red stops on it and takes it.
    guards = [[3, 0, 0, 0], [progress_of(1, tile_of(0, 8))] * 2 + [0, 0],
              [progress_of(2, tile_of(0, 7)), 0, 0, 0]]
    state = load(n=3, guards=guards, roll=9)
    state.apply_action(G(3))
    assert state.guards[0] == (0, 0, 0, 7) and state.guards[2] == (0, 0, 0, 0)
    assert state.scores[0] == -5 * 5 + 10


@pytest.mark.parametrize("where", [9, 14, 27])  # castle, gold's and purple's entering tiles
def test_no_captures_on_castles_or_entering_tiles(where):
    n = 4
    guards = [[where - 3, 0, 0, 0]] + [[0] * 4 for _ in range(n - 1)]
    guards[2] = [progress_of(2, where), 0, 0, 0]
    state = load(n=n, guards=guards, roll=3)
    state.apply_action(G(where - 3))
    assert state.guards[2] == (0, 0, 0, progress_of(2, where)) and state.scores[0] == 0


def test_noble_captures_too():
    state = load(nobles=[2, opp(6)], roll=4)
    state.apply_action(NOBLE_ACTION)
    assert state.nobles == [6, 0] and state.scores == [30, 0]


# -- end and returns ---------------------------------------------------------------------------

def test_noble_home_ends_but_the_score_decides():
    state = load(nobles=[57, 0], scores=[0, 100], roll=4)
    state.apply_action(NOBLE_ACTION)
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.scores == [60, 100]
    assert state.returns().tolist() == [-1.0, 1.0]
    with pytest.raises(IllegalActionError, match="over"):
        state.apply_action(2)


@pytest.mark.parametrize("scores, expected", [
    ([10, 10, 0, 0], [1 / 3, 1 / 3, -1 / 3, -1 / 3]),
    ([5, 5, 5, 0], [1 / 9, 1 / 9, 1 / 9, -1 / 3]),
    ([7, 7, 7, 7], [0, 0, 0, 0]),
    ([0, 3, 1, 2], [-1 / 3, 1, -1 / 3, -1 / 3]),
])
def test_tie_returns(scores, expected):
    state = load(n=4, nobles=[HOME, 0, 0, 0], scores=scores)
    assert state.is_terminal()
    np.testing.assert_allclose(state.returns(), expected)
    assert state.returns().sum() == pytest.approx(0.0)


def test_max_turns_ends_the_game_scores_decide():
    game = Game(max_turns=3)
    state = game.state_from_dict(position(scores=[0, 20], turn=2, to_move=0))
    state.apply_action(7)
    state.apply_action(NOBLE_ACTION)
    assert state.is_terminal() and not state.is_truncated() and state.turn == 3
    assert state.returns().tolist() == [-1.0, 1.0]


def test_passes_count_as_turns_up_to_max_turns():
    game = Game(max_turns=2)
    state = game.state_from_dict(position(guards=[[1, HOME, HOME, HOME], [28, 28, 0, 0]],
                                          turn=1))
    state.apply_action(3)
    assert state.is_terminal() and state.turn == 2


def test_returns_are_zero_before_the_end():
    assert Game(num_players=3).new_initial_state().returns().tolist() == [0, 0, 0]


# -- positions ---------------------------------------------------------------------------------

def test_initial_position_format():
    assert Game(num_players=2).new_initial_state().to_dict() == {
        "game": "nobles", "num_players": 2, "mode": "journey", "nobles": [0, 0],
        "guards": [[0, 0, 0, 0], [0, 0, 0, 0]], "scores": [0, 0], "to_move": 0, "roll": None,
        "turn": 0}


@pytest.mark.parametrize("change, message", [
    ({"num_players": 3}, "num_players"),
    ({"mode": "brawl"}, "mode"),
    ({"game": "blockade"}, "game"),
    ({"nobles": [0]}, "nobles"),
    ({"nobles": [0, 59]}, "nobles"),
    ({"guards": [[0, 0, 0], [0, 0, 0, 0]]}, "guards"),
    ({"guards": [[0, 0, 0, -1], [0, 0, 0, 0]]}, "guards"),
    ({"scores": [0, "1"]}, "scores"),
    ({"to_move": 2}, "to_move"),
    ({"roll": 1}, "roll"),
    ({"roll": 13}, "roll"),
    ({"turn": 301}, "turn"),
    ({"turn": -1}, "turn"),
    ({"extra": 1}, "unknown"),
    ({"nobles": [HOME, HOME]}, "more than one Noble"),
    ({"nobles": [HOME, 0], "roll": 5}, "over"),
    ({"nobles": [5, 0], "guards": [[0] * 4, [31, 0, 0, 0]]}, "only castles"),
])
def test_invalid_positions_are_rejected(change, message):
    d = {**position(), **change}
    with pytest.raises(ValueError, match=message):
        Game().state_from_dict(d)


def test_missing_key_and_non_dict_are_rejected():
    d = position()
    del d["turn"]
    with pytest.raises(ValueError, match="lacks"):
        Game().state_from_dict(d)
    with pytest.raises(ValueError, match="dict"):
        Game().state_from_dict([1, 2])


def test_shared_tiles_may_hold_several_players():
    # Tile 9 (castle) and tile 27 (an entering tile) may be shared.
    state = load(nobles=[9, opp(9)], guards=[[27, 0, 0, 0], [1, 0, 0, 0]])
    assert state.nobles == [9, opp(9)]


def test_guards_are_kept_sorted():
    d = position(guards=[[7, 0, 3, 0], [0] * 4])
    assert Game().state_from_dict(d).to_dict()["guards"][0] == [0, 0, 3, 7]


# -- notation and config -----------------------------------------------------------------------

def test_action_strings_round_trip():
    state = load(roll=5)
    for action in range(233):
        assert state.string_to_action(state.action_to_string(action)) == action
    assert state.action_to_string(G(0, 3)) == "GYx3"
    assert state.string_to_action("g0x3") == G(0, 3)
    for bad in ["", "X", "G58x1", "G3x5", "G3x0", "Gx1", "roll 5"]:
        with pytest.raises(ValueError):
            state.string_to_action(bad)
    chance = Game().new_initial_state()
    assert chance.action_to_string(9) == "roll 9" and chance.string_to_action("roll 9") == 9


def test_scoring_config():
    game = Game(mode="brawl", scoring={"guard_home": 7})
    assert game.scoring == {"blockade_step": -15, "guard_captured": 25, "noble_captured": 60,
                            "guard_home": 7, "noble_home": 30}
    state = game.state_from_dict(position(guards=[[57, 0, 0, 0], [0] * 4], roll=3))
    state.apply_action(G(57))
    assert state.scores[0] == 7


@pytest.mark.parametrize("config, message", [
    ({"num_players": 5}, "num_players"),
    ({"num_players": 1}, "num_players"),
    ({"mode": "melee"}, "mode"),
    ({"scoring": {"bonus": 1}}, "unknown scoring keys"),
    ({"scoring": {"guard_home": 1.5}}, "integer"),
    ({"scoring": [1, 2]}, "mapping"),
    ({"max_turns": 0}, "max_turns"),
])
def test_bad_config_is_rejected(config, message):
    with pytest.raises(ValueError, match=message):
        Game(**config)


def test_clone_is_independent():
    state = load(guards=[[4, 4, 0, 0], [opp(10), 0, 0, 0]], roll=6)
    copy = state.clone()
    copy.apply_action(G(4, 2))
    assert state.to_dict()["guards"] == [[0, 0, 4, 4], [0, 0, 0, opp(10)]]
    assert state.legal_actions() == [NOBLE_ACTION, G(0), G(0, 2), G(4), G(4, 2)]
    assert copy.guards[1] == (0, 0, 0, 0)


def test_the_evaluate_hook_scores_each_players_standing_lead_and_a_finished_game_by_returns():
    """Hooks.evaluate (what network search mixes into its leaves): tanh of each player's standing
    over its best opponent's, on the scale 0.6 x the Noble's Home bonus (Journey: 36 points);
    a finished game is worth its returns."""
    from envs.nobles.hooks import HOOKS

    values = HOOKS.evaluate(load(n=3, scores=[60, 0, 0]))
    np.testing.assert_allclose(values, np.tanh(np.array([60, -60, -60]) / 36.0))
    ended = load(n=3, nobles=[HOME, 0, 0], scores=[60, 10, 0])
    assert ended.is_terminal()
    np.testing.assert_allclose(HOOKS.evaluate(ended), ended.returns())


def _standing_piece_by_piece(game, state, player):
    """The standing as the module docstring words it, one piece and one opponent at a time."""
    from envs.nobles.engine import CASTLES, ENTERING_TILES, shared_tile
    from envs.nobles.standing import BLOCKADE_REACH, ROLL_WAYS

    def ways_to(q, target, groups_only):  # of 36: a mover of q lands exactly on q's `target`
        row = state.guards[q]
        starts = {p for p in row if p < HOME and (not groups_only or row.count(p) == 4)}
        if not groups_only and 0 < state.nobles[q] < HOME:
            starts.add(state.nobles[q])
        return sum(ROLL_WAYS[target - s] for s in starts if 2 <= target - s <= 12)

    def risk(progress, groups_only):
        tile = game.tiles[player][progress]
        if not tile or shared_tile(tile):
            return 0.0
        survive = 1.0
        for q in range(game.num_players):
            if q != player:
                survive *= 1.0 - ways_to(q, progress_of(game.seats[q], tile), groups_only) / 36
        return 1.0 - survive

    scoring = game.scoring
    value = float(state.scores[player])
    noble = state.nobles[player]
    if noble < HOME:
        worth = 0.5 * scoring["noble_home"] * noble / HOME
        lost = risk(noble, False) if noble else 0.0
        value += worth - lost * (worth + scoring["noble_captured"])
    row = state.guards[player]
    for p in set(row) - {0, HOME}:
        size, worth = row.count(p), 0.5 * scoring["guard_home"] * p / HOME
        value += size * worth - risk(p, size >= 2) * size * (worth + scoring["guard_captured"])
        tile = game.tiles[player][p]
        if size >= 2 and tile and tile not in CASTLES:
            for q in range(game.num_players):
                if q == player or tile == ENTERING_TILES[game.seats[q]]:
                    continue
                at = progress_of(game.seats[q], tile)
                behind = sum(1 for g in state.guards[q] if 0 < g < at and at - g <= BLOCKADE_REACH)
                behind += 2 * (0 < state.nobles[q] < at and at - state.nobles[q] <= BLOCKADE_REACH)
                value -= scoring["blockade_step"] * behind
    return value


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_standing_of_random_positions_is_the_docstrings_sum_piece_by_piece(players):
    """Standing's one-pass count (risks and blockades written inline, reaches cached) against a
    plain transcription of its docstring, on every position of random games."""
    from envs.nobles.standing import Standing

    game = Game(num_players=players)
    standing = Standing(game)
    rng = np.random.default_rng(players)
    checked = 0
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node():
                expected = [_standing_piece_by_piece(game, state, p) for p in range(players)]
                assert standing.standings(state) == pytest.approx(expected, abs=1e-9)
                checked += 1
            actions = state.legal_actions()
            state.apply_action(int(rng.choice(actions)))
    assert checked > 100


@pytest.mark.parametrize("groups", [False, True])
def test_the_standing_charges_each_piece_its_capture_odds_and_credits_its_blockades(groups):
    """A Guard's standing (envs/nobles/standing.py): its progress' worth, minus the chance that
    the opponent's next roll lands a mover exactly on it (2d6 odds over the distinct distances:
    7 -> 6/36, 5 -> 4/36, 12 -> 1/36) times what it would lose; a pair of Guards can only be hit
    by a group of four, and holds up the opponent's pieces up to 12 steps behind it (5 points
    each in Journey, a Noble counting twice)."""
    from envs.nobles.standing import Standing

    assert tile_of(0, 20) not in (9, 22, 35, 48, 1, 14, 27, 40)  # a tile where captures happen
    worth = 0.5 * 10 * 20 / 58  # half the Guard's Home bonus, at 20 of 58 steps
    if groups:
        # the Noble 7 behind cannot hit the pair; the group of four 5 behind can
        state = load(guards=[[20, 20, 0, 0], [opp(15)] * 4], nobles=[0, opp(13)])
        expected = 2 * worth - 4 / 36 * 2 * (worth + 10) + 5 * (4 + 2)
    else:
        state = load(guards=[[20, 0, 0, 0], [opp(13), opp(15), 0, 0]], nobles=[0, opp(8)])
        expected = worth - (6 + 4 + 1) / 36 * (worth + 10)
    assert Standing(state.game).standings(state)[0] == pytest.approx(expected)
