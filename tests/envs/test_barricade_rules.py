"""RULES.md section 2 (Barricade), scenario by scenario, and the house rules of
docs/barricade.md. Positions are written in text notation: file letter a-g, line 1-13."""

import numpy as np
import pytest

from envs import barricade
from envs.barricade.engine import VARIANTS
from envs.core import TERMINAL, IllegalActionError

GAMES = {v: barricade.Game(variant=v) for v in VARIANTS}
OPPONENT_BASE = ({"b13", "d13", "f13"}, {"b1", "d1", "f1"})


def at(name: str) -> list[int]:
    """``"d5"`` -> ``[5, 4]`` ([line, file])."""
    return [int(name[1:]), "abcdefg".index(name[0]) + 1]


def position(south, north, guards=(("tray", "tray"), ("tray", "tray")), placed=None,
             to_move=0, half=0, first_half=None, sweep=(None, None), turn=0, **extra):
    """A position dict from station names; ``placed`` defaults to the Scouts standing in an
    opponent Base Station, in index order."""
    def piece(v):
        return v if v in ("tray", "out") else at(v)

    sides = (south, north)
    if placed is None:
        placed = [[s for s, v in enumerate(sides[p]) if v in OPPONENT_BASE[p]] for p in range(2)]
    return {
        "game": "barricade",
        "scouts": [[piece(v) for v in side] for side in sides],
        "guards": [[piece(v) for v in side] for side in guards],
        "placed_order": placed, "to_move": to_move, "half": half, "first_half": first_half,
        "sweep": list(sweep), "turn": turn, **extra,
    }


def load(south, north, variant="standard", **kwargs):
    game = kwargs.pop("game", GAMES[variant])
    return game.state_from_dict(position(south, north, **kwargs))


def legal(state, prefix=""):
    """Text of the legal actions (those starting with ``prefix``)."""
    return {t for t in map(state.action_to_string, state.legal_actions()) if t.startswith(prefix)}


def play(state, *moves):
    for move in moves:
        state.apply_action(state.string_to_action(move))


def guard_targets(state, guard):
    return {t.split()[1] for t in legal(state, f"G{guard} ")}


CROSS = {f"{f}{line}" for f in "abcdefg" for line in range(3, 12)}
HOME = (["b1", "d1", "f1"], ["b13", "d13", "f13"])
# A blocked South Scout: d5 hemmed in by North Guards on c5, e5 and North Scout 0 on d6.
BLOCKERS = {"north": ["d6", "a10", "g10"], "guards": (("tray", "tray"), ("c5", "e5"))}


# ----- board and actions -----

def test_initial_position_is_the_rules_format():
    s = GAMES["standard"].new_initial_state()
    assert s.to_dict() == {
        "game": "barricade", "variant": "standard",
        "scouts": [[[1, 2], [1, 4], [1, 6]], [[13, 2], [13, 4], [13, 6]]],
        "guards": [["tray", "tray"], ["tray", "tray"]],
        "placed_order": [[], []], "to_move": 0, "half": 0, "first_half": None,
        "sweep": [None, None], "turn": 0,
    }
    assert s.current_player() == 0 and GAMES["standard"].num_actions == 143
    # Each Scout steps forward out of its Base; either Guard may enter any Cross Station.
    assert legal(s, "S") == {"S0 b1-b2", "S1 d1-d2", "S2 f1-f2"}
    assert guard_targets(s, 0) == CROSS and guard_targets(s, 1) == CROSS


def test_board_has_6_base_14_outer_and_63_cross_stations_in_the_text_board():
    board = str(GAMES["standard"].new_initial_state()).splitlines()
    rows = {int(r.split()[0]): r for r in board[2:15]}
    assert rows[13].split()[1:4] == ["s0", "s1", "s2"] and rows[1].split()[1:4] == [
        "S0", "S1", "S2"]
    assert rows[12].split().count("o") == 7 and rows[2].split().count("o") == 7
    assert sum(rows[line].split().count("+") for line in range(3, 12)) == 63


@pytest.mark.parametrize("text, action", [
    ("S0 +line", 0), ("S0 -line", 1), ("S1 -file", 6), ("S2 +file", 11),
    ("G0 a3", 12), ("G0 c5", 12 + 7 * 2 + 2), ("G1 a3", 75), ("G1 g11", 137),
    ("forfeit G0", 138), ("forfeit G1", 139), ("forfeit S0", 140), ("forfeit S2", 142),
])
def test_action_numbers_follow_the_rules_table(text, action):
    s = GAMES["standard"].new_initial_state()
    assert s.string_to_action(text) == action


def test_action_text_uses_stations_and_falls_back_to_directions():
    s = GAMES["standard"].new_initial_state()
    assert s.action_to_string(0) == "S0 b1-b2"  # line+1
    assert s.action_to_string(1) == "S0 -line"  # off the board
    assert s.action_to_string(2) == "S0 -file"  # no station a1
    assert s.string_to_action("s0 B1-b2") == 0
    for a in range(143):
        assert s.string_to_action(s.action_to_string(a)) == a
    for bad in ("S0 b1-b3", "S3 +line", "G0 b2", "G2 c5", "forfeit G2", "S1 b1-b2", "jump"):
        with pytest.raises(ValueError):
            s.string_to_action(bad)


# ----- Scout movement -----

def test_scouts_step_forward_or_sideways_never_backward():
    s = load(["d5", "d1", "f1"], ["b13", "d9", "f13"])
    assert legal(s, "S0") == {"S0 d5-d6", "S0 d5-c5", "S0 d5-e5"}
    north = load(["d5", "d1", "f1"], ["b13", "d9", "f13"], to_move=1)
    assert legal(north, "S1") == {"S1 d9-d8", "S1 d9-c9", "S1 d9-e9"}
    edge = load(["a5", "d1", "f1"], HOME[1])
    assert legal(edge, "S0") == {"S0 a5-a6", "S0 a5-b5"}
    with pytest.raises(IllegalActionError, match="never step backward"):
        s.apply_action(s.string_to_action("S0 d5-d4"))


def test_base_stations_connect_only_to_the_station_in_front():
    s = load(["b1", "d1", "f1"], HOME[1])
    assert legal(s, "S0") == {"S0 b1-b2"}
    with pytest.raises(IllegalActionError, match="no track"):
        s.apply_action(s.string_to_action("S0 -file"))


def test_no_piece_shares_a_station_and_nothing_jumps():
    s = load(["d5", "c5", "f1"], HOME[1], guards=(("tray", "tray"), ("d6", "tray")))
    assert legal(s, "S0") == {"S0 d5-e5"}
    with pytest.raises(IllegalActionError, match="d6 is occupied"):
        s.apply_action(s.string_to_action("S0 d5-d6"))


def test_on_line_2_a_scout_steps_sideways_only_if_it_cannot_step_forward():
    s = load(["c2", "d1", "f1"], HOME[1])
    assert legal(s, "S0") == {"S0 c2-c3"}
    with pytest.raises(IllegalActionError, match="lines 2 and 12"):
        s.apply_action(s.string_to_action("S0 c2-b2"))
    blocked = load(["c2", "d1", "f1"], HOME[1], guards=(("tray", "tray"), ("c3", "tray")))
    assert legal(blocked, "S0") == {"S0 c2-b2", "S0 c2-d2"}
    # North on its own Outer line 12: the same rule, forward being line 11.
    north = load(HOME[0], ["b13", "c12", "f13"], to_move=1)
    assert legal(north, "S1") == {"S1 c12-c11"}


def test_on_line_12_south_must_enter_a_free_base_station_and_may_slide_where_none_is():
    no_track = load(["a12", "d1", "f1"], HOME[1])  # there is no Base Station a13
    assert legal(no_track, "S0") == {"S0 a12-b12"}
    base_free = load(["b12", "d1", "f1"], ["c9", "d13", "f13"])
    assert legal(base_free, "S0") == {"S0 b12-b13"}
    base_taken = load(["b12", "d1", "f1"], HOME[1])  # North's Scout 0 still at home on b13
    assert legal(base_taken, "S0") == {"S0 b12-a12", "S0 b12-c12"}
    # North mirrors it on line 2.
    north = load(["c9", "d1", "f1"], ["b2", "d13", "f13"], to_move=1)
    assert legal(north, "S0") == {"S0 b2-b1"}


def test_line_2_rule_is_judged_at_the_moment_of_each_half_move():
    # S1 on c3 blocks S0's forward step, so S0 may slide; once S1 moves on, S0 must go forward.
    s = load(["c2", "c3", "f1"], HOME[1])
    assert legal(s, "S0") == {"S0 c2-b2", "S0 c2-d2"}
    play(s, "S1 c3-c4")
    assert legal(s, "S0") == {"S0 c2-c3"}
    # A Guard half-move onto c3 blocks the forward step: S0 may slide in the second half.
    t = load(["c2", "d1", "f1"], HOME[1])
    play(t, "G0 c3")
    assert legal(t, "S0") == {"S0 c2-b2", "S0 c2-d2"}


def test_no_sideways_and_straight_back_in_one_turn():
    s = load(["d5", "d1", "f1"], HOME[1])
    play(s, "S0 d5-e5")
    assert legal(s, "S0") == {"S0 e5-e6", "S0 e5-f5"}
    with pytest.raises(IllegalActionError, match="straight back"):
        s.apply_action(s.string_to_action("S0 e5-d5"))
    play(s, "S0 e5-f5")  # on, in the same direction, is fine
    play(s, "S0 b13-b12", "S0 b12-b11")  # North
    assert "S0 f5-e5" in legal(s, "S0")  # a new turn: back is allowed again


def test_a_scout_in_an_opponent_base_is_placed_and_scores_1_3_5():
    s = load(["b12", "d12", "f12"], ["c9", "d8", "e9"])
    play(s, "S0 b12-b13", "S1 d12-d13")
    assert s.to_dict()["placed_order"] == [[0, 1], []] and s.scores() == [4, 0]
    play(s, "S0 c9-c8", "S0 c8-c7")
    assert legal(s, "S") == {"S2 f12-f13"}  # the placed Scouts never move again
    play(s, "S2 f12-f13")  # the third placement ends the game at once, mid-turn
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.scores() == [9, 0] and list(s.returns()) == [1.0, -1.0]
    assert s.to_dict()["turn"] == 3 and "placed all its Scouts" in s.outcome
    with pytest.raises(IllegalActionError, match="game is over"):
        s.apply_action(0)


# ----- Guards and the double move -----

def test_guards_enter_any_empty_cross_station_and_jump_between_them():
    s = GAMES["standard"].new_initial_state()
    play(s, "S0 b1-b2", "G0 c5")
    play(s, "S0 b13-b12", "S0 b12-b11")
    assert "c5" not in guard_targets(s, 0) | guard_targets(s, 1)
    assert "b11" not in guard_targets(s, 0)  # occupied by a North Scout
    assert guard_targets(s, 0) == CROSS - {"c5", "b11"}
    play(s, "G0 g11", "S0 b2-b3")  # a jump, then the Scout step
    d = s.to_dict()
    assert d["guards"][0] == [[11, 7], "tray"]
    with pytest.raises(ValueError, match="Cross Stations"):
        GAMES["standard"].state_from_dict({**d, "guards": [[[2, 3], "tray"], ["tray", "tray"]]})


def test_the_three_kinds_of_double_move():
    g = GAMES["standard"]
    one_scout_twice = g.new_initial_state()
    play(one_scout_twice, "S0 b1-b2", "S0 b2-b3")
    two_scouts = g.new_initial_state()
    play(two_scouts, "S0 b1-b2", "S2 f1-f2")
    scout_then_guard = g.new_initial_state()
    play(scout_then_guard, "S0 b1-b2", "G1 d7")
    guard_then_scout = g.new_initial_state()
    play(guard_then_scout, "G1 d7")
    assert guard_then_scout.current_player() == 0 and not legal(guard_then_scout, "G")
    with pytest.raises(IllegalActionError, match="a Guard already moved"):
        guard_then_scout.apply_action(guard_then_scout.string_to_action("G0 d8"))
    play(guard_then_scout, "S1 d1-d2")
    for s in (one_scout_twice, two_scouts, scout_then_guard, guard_then_scout):
        assert s.current_player() == 1 and s.to_dict()["turn"] == 1


def test_a_guard_half_move_may_open_a_turn_only_if_a_scout_step_follows():
    # South's only step is S0 d5-d6 (S1, S2 placed): a Guard on d6 would leave none.
    s = load(["d5", "d13", "f13"], ["a10", "d1", "f1"],
             guards=(("tray", "tray"), ("c5", "e5")))
    assert legal(s, "S") == {"S0 d5-d6"}
    assert guard_targets(s, 0) == guard_targets(s, 1) == CROSS - {"c5", "e5", "d5", "a10", "d6"}
    with pytest.raises(IllegalActionError, match="no Scout could step"):
        s.apply_action(s.string_to_action("G0 d6"))
    # As a second half-move the Guard may go anywhere empty: the turn ends with it.
    play(s, "S0 d5-d6")
    assert "d5" in guard_targets(s, 0)


def test_a_guard_on_the_forward_station_of_line_2_unblocks_the_slide():
    open_sides = load(["c2", "d13", "f13"], ["b2", "a10", "f1"])
    assert "c3" in guard_targets(open_sides, 0)  # then S0 slides to d2
    closed_sides = load(["c2", "d13", "f13"], ["b2", "d2", "f1"])
    assert "c3" not in guard_targets(closed_sides, 0)
    assert "c4" in guard_targets(closed_sides, 0)


def test_a_guard_that_blocks_its_own_scout_may_jump_away_to_free_it():
    s = load(["d5", "d13", "f13"], ["a10", "b1", "f1"],
             guards=(("d6", "tray"), ("c5", "e5")))
    assert not legal(s, "S")
    assert guard_targets(s, 0) == CROSS - {"d6", "c5", "e5", "d5", "a10"}
    assert not guard_targets(s, 1)  # entering from the tray frees nothing
    play(s, "G0 a3")
    assert legal(s) == {"S0 d5-d6"}


def test_the_turn_ends_after_the_first_half_move_when_no_second_exists():
    s = load(["c5", "d13", "f13"], ["c7", "b1", "f1"], guards=(("out", "out"), ("b6", "d6")))
    play(s, "S0 c5-c6")  # now hemmed in on c6, with no Guard to move
    assert s.current_player() == 1 and s.to_dict()["turn"] == 1 and s.to_dict()["half"] == 0


# ----- blocking and forfeits -----

def test_standard_blocked_player_forfeits_a_guard_then_the_second_then_passes():
    s = load(["d5", "d13", "f13"], BLOCKERS["north"], guards=(("a3", "tray"), ("c5", "e5")))
    assert legal(s) == {"forfeit G0", "forfeit G1"}  # the mask holds only forfeits
    with pytest.raises(IllegalActionError, match="blocked"):
        s.apply_action(s.string_to_action("G1 a4"))
    play(s, "forfeit G0")  # the Guard on the board leaves it
    d = s.to_dict()
    assert d["guards"][0] == ["out", "tray"] and d["to_move"] == 1 and d["turn"] == 1
    play(s, "S1 a10-a9", "S1 a9-a8")
    assert legal(s) == {"forfeit G1"}
    play(s, "forfeit G1")
    play(s, "S1 a8-a7", "S1 a7-a6")
    # Blocked with no Guard left: South's turn passes on its own, North moves unopposed.
    d = s.to_dict()
    assert d["to_move"] == 1 and d["turn"] == 5 and d["guards"][0] == ["out", "out"]


def test_capture_blocked_player_forfeits_a_scout_and_loses_all_scores_the_opponent():
    # South: S0 hemmed in on d5, S1 at home behind North's Scout 1 on b2, S2 placed.
    s = load(["d5", "b1", "f13"], ["d6", "b2", "g10"], variant="capture",
             guards=(("tray", "tray"), ("c5", "e5")))
    assert legal(s) == {"forfeit S0", "forfeit S1"}
    play(s, "forfeit S1")
    assert s.to_dict()["scouts"][0][1] == "out" and not s.is_terminal()
    assert legal(s, "S1") == {"S1 b2-b1"}  # b1 is free now: North's Scout must enter it
    play(s, "S1 b2-b1", "S2 g10-g9")
    assert s.scores() == [1, 1]
    assert legal(s) == {"forfeit S0"}
    play(s, "forfeit S0")
    # South has no Scout in play after losing some: North scores 3 and 5 for its two Scouts
    # still in play, after the 1 of its placed one.
    assert s.is_terminal() and "no Scout left in play" in s.outcome
    assert s.scores() == [1, 9] and list(s.returns()) == [-1.0, 1.0]


def test_capture_forfeits_only_scouts_and_standard_only_guards():
    capture = load(["d5", "d13", "f13"], **BLOCKERS, variant="capture")
    assert legal(capture) == {"forfeit S0"}
    with pytest.raises(IllegalActionError, match="forfeits Scouts, not Guards"):
        capture.apply_action(138)
    standard = load(["d5", "d13", "f13"], **BLOCKERS)
    with pytest.raises(IllegalActionError, match="only Variations I and II"):
        standard.apply_action(140)


def test_intercept_forfeits_every_stuck_scout_at_turn_start_even_if_others_can_move():
    # Loading a position at the start of South's turn already takes the forfeit.
    s = load(["d5", "b1", "f13"], **BLOCKERS, variant="intercept")
    d = s.to_dict()
    assert d["scouts"][0] == ["out", [1, 2], [13, 6]] and d["to_move"] == 0
    assert legal(s, "S") == {"S1 b1-b2"}
    # In play: North closes the trap on its turn; the forfeit comes at South's turn start.
    t = load(["d5", "b1", "f13"], ["d7", "a10", "g10"], variant="intercept",
             guards=(("tray", "tray"), ("c5", "e5")), to_move=1)
    assert t.to_dict()["scouts"][0][0] == [5, 4]
    play(t, "S0 d7-d6", "S1 a10-a9")
    assert t.to_dict()["scouts"][0][0] == "out" and t.current_player() == 0


def test_intercept_ends_the_game_when_the_last_scout_in_play_is_forfeited():
    s = load(["d5", "d13", "f13"], **BLOCKERS, variant="intercept")
    assert s.is_terminal() and s.scores() == [4, 9]


def test_breakthrough_a_stuck_scout_costs_one_guard_then_the_turn_is_played():
    s = load(["d5", "b1", "f13"], **BLOCKERS, variant="breakthrough")
    assert legal(s) == {"forfeit G0", "forfeit G1"}
    with pytest.raises(IllegalActionError, match="must be forfeited first"):
        s.apply_action(s.string_to_action("S1 b1-b2"))
    play(s, "forfeit G1")
    d = s.to_dict()
    assert d["to_move"] == 0 and d["half"] == 0 and d["forfeit_made"] is True
    assert d["guards"][0] == ["tray", "out"]
    assert s.game.state_from_dict(d).to_dict() == d  # the extra field carries the forfeit
    assert legal(s, "S") == {"S1 b1-b2"} and not legal(s, "forfeit")
    play(s, "S1 b1-b2", "S1 b2-b3")
    assert s.to_dict()["forfeit_made"] is False and s.current_player() == 1


def test_breakthrough_fully_blocked_forfeits_one_guard_and_the_turn_passes():
    s = load(["d5", "b1", "f13"], ["d6", "b2", "g10"], variant="breakthrough",
             guards=(("tray", "tray"), ("c5", "e5")))
    play(s, "forfeit G0")
    d = s.to_dict()
    assert d["to_move"] == 1 and d["turn"] == 1 and d["guards"][0] == ["out", "tray"]


def test_breakthrough_without_guards_plays_on_with_a_stuck_scout():
    s = load(["d5", "b1", "f13"], **{**BLOCKERS, "guards": (("out", "out"), ("c5", "e5"))},
             variant="breakthrough")
    assert legal(s) == {"S1 b1-b2"}


# ----- Rocking Horse Sweep -----

def sweep_game(sweep_turns=6):
    game = barricade.Game(sweep_turns=sweep_turns)
    return game.state_from_dict(position(["d4", "d1", "f1"], HOME[1]))


def north_turn(s, i):
    play(s, f"S0 b{13 - i}-b{12 - i}", f"G0 g{3 + i}")


def test_a_full_rocking_horse_sweep_ends_the_game_at_the_end_of_the_sixth_turn():
    s = sweep_game()
    for i in range(6):
        step = "S0 d4-e4" if i % 2 == 0 else "S0 e4-d4"
        play(s, step)
        assert not s.is_terminal()  # mid-turn: the count moves at the end of the turn
        play(s, f"G0 a{3 + i}")
        sweep = s.to_dict()["sweep"][0]
        assert sweep == {"scout": 0, "stations": [[4, 4], [4, 5]], "count": i + 1}
        if i < 5:
            assert not s.is_terminal()
            north_turn(s, i)
    assert s.is_terminal() and "Rocking Horse Sweep" in s.outcome
    assert s.scores() == [0, 0] and list(s.returns()) == [0.0, 0.0]  # scores decide: a draw


def test_sweep_turns_is_configurable():
    s = sweep_game(sweep_turns=2)
    play(s, "S0 d4-e4", "G0 a3")
    north_turn(s, 0)
    play(s, "S0 e4-d4", "G0 a4")
    assert s.is_terminal()


@pytest.mark.parametrize("third_turn, expected", [
    (["S0 d4-d5", "G0 a5"], None),  # another move of that Scout breaks the sweep
    (["S1 d1-d2", "S1 d2-d3"], None),  # a turn without a step of it breaks it
    (["S0 d4-e4", "S0 e4-f4"], None),  # two steps of the sweeping Scout are not a sweep turn
    (["S0 d4-c4", "G0 a5"], {"scout": 0, "stations": [[4, 3], [4, 4]], "count": 1}),  # new pair
    (["S0 d4-e4", "S2 f1-f2"], {"scout": 0, "stations": [[4, 4], [4, 5]], "count": 3}),
])
def test_what_continues_breaks_or_restarts_a_sweep(third_turn, expected):
    s = sweep_game()
    play(s, "S0 d4-e4", "G0 a3")
    north_turn(s, 0)
    play(s, "S0 e4-d4", "G0 a4")
    north_turn(s, 1)
    play(s, *third_turn)
    assert s.to_dict()["sweep"][0] == expected


def test_two_scouts_stepping_sideways_the_sweeping_one_keeps_its_count_the_other_starts_none():
    s = load(["d4", "d6", "f1"], HOME[1])
    play(s, "S0 d4-e4", "G0 a3")
    north_turn(s, 0)
    play(s, "S0 e4-d4", "S1 d6-e6")
    assert s.to_dict()["sweep"][0]["scout"] == 0 and s.to_dict()["sweep"][0]["count"] == 2
    fresh = load(["d4", "d6", "f1"], HOME[1])
    play(fresh, "S0 d4-e4", "S1 d6-e6")  # nobody was sweeping: neither starts
    assert fresh.to_dict()["sweep"][0] is None


def test_sweeps_happen_only_on_lines_4_6_8_10():
    for line, starts in ((5, False), (6, True), (10, True), (11, False)):
        s = load([f"d{line}", "d1", "f1"], HOME[1])
        play(s, f"S0 d{line}-e{line}", "G0 a3")
        assert (s.to_dict()["sweep"][0] is not None) == starts


# ----- end of the game -----

def test_reaching_max_turns_ends_the_game_and_scores_decide():
    game = barricade.Game(max_turns=4)
    s = game.state_from_dict(position(["b12", "d1", "f1"], ["c9", "d13", "f13"]))
    play(s, "S0 b12-b13", "S1 d1-d2")  # South leads 1-0
    play(s, "S0 c9-c8", "S0 c8-c7")
    play(s, "S1 d2-d3", "S1 d3-d4")
    assert not s.is_terminal()
    play(s, "S0 c7-c6", "S0 c6-c5")
    assert s.is_terminal() and not s.is_truncated() and s.outcome == "turn limit reached"
    assert list(s.returns()) == [1.0, -1.0]
    at_limit = game.state_from_dict({**s.to_dict()})
    assert at_limit.is_terminal() and at_limit.to_dict() == s.to_dict()


def test_returns_are_zero_until_the_end_and_for_equal_scores():
    s = GAMES["standard"].new_initial_state()
    assert list(s.returns()) == [0.0, 0.0]
    tie = barricade.Game(max_turns=1).new_initial_state()
    play(tie, "S0 b1-b2", "S0 b2-b3")
    assert tie.is_terminal() and list(tie.returns()) == [0.0, 0.0]


# ----- positions, errors -----

BASE = position(["d5", "d1", "f1"], HOME[1])


@pytest.mark.parametrize("change, message", [
    ({"game": "nobles"}, "not 'barricade'"),
    ({"variant": "capture"}, "variant"),
    ({"colour": "red"}, "unknown fields colour"),
    ({"scouts": [[[5, 4], [1, 4]], HOME]}, "two lists"),
    ({"scouts": [[[5, 4], [1, 4], [1, 3]], [[13, 2], [13, 4], [13, 6]]]}, "not a station"),
    ({"scouts": [[[5, 4], [1, 4], [1, 6]], [[5, 4], [13, 4], [13, 6]]]}, "share a station"),
    ({"scouts": [["out", [1, 4], [1, 6]], [[13, 2], [13, 4], [13, 6]]]}, "never forfeits"),
    ({"guards": [[[12, 3], "tray"], ["tray", "tray"]]}, "Cross Stations"),
    ({"guards": [[[5, 4], "tray"], ["tray", "tray"]]}, "share a station"),
    ({"guards": [["pocket", "tray"], ["tray", "tray"]]}, "not a station"),
    ({"placed_order": [[0], []]}, "placed_order"),
    ({"placed_order": [[], [], []]}, "placed_order"),
    ({"to_move": 2}, "to_move"),
    ({"to_move": True}, "to_move"),
    ({"half": 1}, "first_half"),
    ({"first_half": {"kind": "guard"}}, "null when half is 0"),
    ({"half": 1, "first_half": {"kind": "guard"}}, "no Guard"),
    ({"half": 1, "first_half": {"kind": "scout", "scout": 0, "from": [4, 4], "d": 1}},
     "not where a step"),
    ({"half": 1, "first_half": {"kind": "scout", "scout": 0, "from": [5, 3]}}, "must have"),
    ({"sweep": [{"scout": 0, "stations": [[5, 4], [5, 5]], "count": 1}, None]}, "line 4, 6"),
    ({"sweep": [{"scout": 0, "stations": [[4, 4], [4, 5]], "count": 1}, None]},
     "does not stand"),
    ({"sweep": [{"scout": 0, "stations": [[4, 4], [4, 5]], "count": 9}, None]}, "count"),
    ({"sweep": [None]}, "sweep must be two"),
    ({"turn": -1}, "turn"),
    ({"turn": 201}, "turn"),
    ({"forfeit_made": True}, "only for variant breakthrough"),
])
def test_invalid_positions_say_what_is_wrong(change, message):
    with pytest.raises(ValueError, match=message):
        GAMES["standard"].state_from_dict({**BASE, **change})
    with pytest.raises(ValueError, match="lacks turn"):
        GAMES["standard"].state_from_dict({k: v for k, v in BASE.items() if k != "turn"})


def test_variant_specific_position_checks():
    with pytest.raises(ValueError, match="never Guards"):
        GAMES["capture"].state_from_dict(
            {**BASE, "guards": [["out", "tray"], ["tray", "tray"]]})
    with pytest.raises(ValueError, match="no Guard out"):
        GAMES["breakthrough"].state_from_dict({**BASE, "forfeit_made": True})


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    s = load(["d5", "d1", "f1"], HOME[1])
    before = s.to_dict()
    for bad in (1, 143, -1, 2.5, "0", True, s.string_to_action("G0 d5"), 138, 142):
        with pytest.raises(IllegalActionError):
            s.apply_action(bad)
    assert s.to_dict() == before
    s.apply_action(np.int64(s.string_to_action("S0 d5-d6")))  # numpy integers are fine
    assert s.to_dict()["half"] == 1


@pytest.mark.parametrize("config, message", [
    ({"variant": "blitz"}, "variant"),
    ({"sweep_turns": 0}, "sweep_turns"),
    ({"max_turns": 2.5}, "max_turns"),
    ({"max_turns": True}, "max_turns"),
])
def test_invalid_configs_say_what_is_wrong(config, message):
    with pytest.raises(ValueError, match=message):
        barricade.Game(**config)


# ----- the evaluate hook (search leaves) -----

def test_the_evaluate_hook_favours_the_side_nearer_its_goals_and_values_an_ended_game_by_returns():
    """Hooks.evaluate (what network search mixes into its leaves): the projected score lead,
    the same for either side of the board (mirrored positions give mirrored values), zero-sum,
    and a finished game is worth its returns."""
    from envs.barricade.hooks import HOOKS

    south_ahead = HOOKS.evaluate(load(["b12", "d12", "f12"], HOME[1]))
    north_ahead = HOOKS.evaluate(load(HOME[0], ["b2", "d2", "f2"]))
    assert south_ahead[0] > 0.99 and south_ahead.sum() == pytest.approx(0.0)
    np.testing.assert_allclose(north_ahead, south_ahead[::-1])
    race = ["b12", "d1", "f1"], ["b2", "d13", "f13"]  # one Scout each, one step from a goal
    assert HOOKS.evaluate(load(*race, to_move=0))[0] > 0.5  # the side to move gets there first
    assert HOOKS.evaluate(load(*race, to_move=1))[1] > 0.5
    ended = load(["b13", "d13", "f13"], ["a5", "c5", "e5"])
    assert ended.is_terminal()
    np.testing.assert_allclose(HOOKS.evaluate(ended), ended.returns())
