"""Invariants of Barricade under random play and on random crowded positions (hypothesis drives
both), checked against a slow reference of RULES.md section 2 written from the position dicts
alone, so that the engine's fast legal mask is compared with the rules, not with itself."""

import numpy as np
from contract import check_mask_is_exactly_the_accepted_actions
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import barricade
from envs.barricade.engine import VARIANTS

STATIONS = (
    {(line, f) for line in (1, 13) for f in (2, 4, 6)}
    | {(line, f) for line in range(2, 13) for f in range(1, 8)}
)
CROSS = sorted((line, f) for line, f in STATIONS if 3 <= line <= 11)
DIRECTIONS = {(1, 0): 0, (-1, 0): 1, (0, -1): 2, (0, 1): 3}
OPPONENT_BASE_LINE = (13, 1)
VALUES = (1, 3, 5)
GAMES = {v: barricade.Game(variant=v) for v in VARIANTS}


def guard_action(g, station):
    return 12 + 63 * g + 7 * (station[0] - 3) + station[1] - 1


def tracks(station):
    """(direction, neighbour) along the white tracks: same file between adjacent lines, along a
    line only on lines 2..12."""
    line, f = station
    for (dl, df), d in DIRECTIONS.items():
        other = (line + dl, f + df)
        if other in STATIONS and (df == 0 or 2 <= line <= 12):
            yield d, other


def in_play(scout, p):
    return scout != "out" and scout[0] != OPPONENT_BASE_LINE[p]


def reference_steps(scouts, p, occupied, back=None):
    """Legal single steps ``4*s + d`` of player ``p``'s Scouts; ``back`` = (scout, station)
    it may not return to this turn."""
    forward = 1 if p == 0 else -1
    steps = set()
    for s, here in enumerate(scouts):
        if not in_play(here, p):
            continue
        here = tuple(here)
        ahead = (here[0] + forward, here[1])
        can_go_forward = ahead in STATIONS and ahead not in occupied
        for d, there in tracks(here):
            if there[0] - here[0] == -forward or there in occupied or back == (s, there):
                continue
            if there[0] == here[0] and here[0] in (2, 12) and can_go_forward:
                continue
            steps.add(4 * s + d)
    return steps


def reference_legal(position, variant):
    """The legal actions at a decision point, or None where the rules say the engine should
    not stop (a turn that passes, a Variation II Scout still to forfeit)."""
    p = position["to_move"]
    scouts, guards = position["scouts"][p], position["guards"][p]
    occupied = {
        tuple(v) for side in position["scouts"] + position["guards"] for v in side
        if v not in ("out", "tray")
    }
    empty_cross = [q for q in CROSS if q not in occupied]
    live_guards = [g for g in range(2) if guards[g] != "out"]
    first = position["first_half"]
    if position["half"] == 1:
        if first["kind"] == "guard":
            return reference_steps(scouts, p, occupied) or None
        back = (first["scout"], tuple(first["from"])) if first["d"] >= 2 else None
        legal = reference_steps(scouts, p, occupied, back)
        legal |= {guard_action(g, q) for g in live_guards for q in empty_cross}
        return legal or None
    steps = reference_steps(scouts, p, occupied)
    movers = {a // 4 for a in steps}
    stuck = [s for s in range(3) if in_play(scouts[s], p) and s not in movers]
    if stuck and variant == "intercept":
        return None
    if (stuck and variant == "breakthrough" and not position.get("forfeit_made")
            and live_guards):
        return {138 + g for g in live_guards}
    legal = set(steps)
    for g in live_guards:
        old = {tuple(guards[g])} if guards[g] != "tray" else set()
        for q in empty_cross:
            if reference_steps(scouts, p, (occupied - old) | {q}):
                legal.add(guard_action(g, q))
    if legal:
        return legal
    if variant in ("capture", "intercept"):
        return {140 + s for s in range(3) if in_play(scouts[s], p)}
    if live_guards and not position.get("forfeit_made"):
        return {138 + g for g in live_guards}
    return None


def reference_scores(position, terminal):
    scores = [sum(VALUES[: len(position["placed_order"][p])]) for p in range(2)]
    if terminal:
        for p in range(2):
            side = position["scouts"][p]
            if "out" in side and not any(in_play(v, p) for v in side):
                q = 1 - p
                n = len(position["placed_order"][q])
                scores[q] += sum(VALUES[n: n + sum(in_play(v, q) for v in position["scouts"][q])])
    return scores


def check_state(state):
    """Every invariant of a state, the legal mask against the reference included."""
    d = state.to_dict()
    pieces = [tuple(v) for side in d["scouts"] + d["guards"] for v in side
              if v not in ("out", "tray")]
    assert len(set(pieces)) == len(pieces), "two pieces share a station"
    assert all(tuple(v) in STATIONS for side in d["scouts"] for v in side if v != "out")
    assert all(3 <= v[0] <= 11 for side in d["guards"] for v in side
               if v not in ("out", "tray")), "a Guard off the Cross Stations"
    for p in range(2):
        on_base = {s for s, v in enumerate(d["scouts"][p])
                   if v != "out" and v[0] == OPPONENT_BASE_LINE[p]}
        assert set(d["placed_order"][p]) == on_base
    assert state.scores() == reference_scores(d, state.is_terminal())
    assert 0 <= d["turn"] <= state.game.max_turns
    mask = state.legal_actions_mask()
    if state.is_terminal():
        assert not mask.any()
        s = state.scores()
        assert list(state.returns()) == ([0.0, 0.0] if s[0] == s[1] else
                                         [1.0, -1.0] if s[0] > s[1] else [-1.0, 1.0])
        return
    expected = reference_legal(d, state.game.variant)
    assert expected is not None, f"the engine stopped where the rules move on: {d}"
    assert set(np.flatnonzero(mask).tolist()) == expected, d
    forfeits = mask[138:].any()
    assert not (forfeits and mask[:138].any()), "forfeits mixed with moves in a mask"


def random_crowded_position(rng, variant):
    """A valid position with the pieces packed into two lines and, half of the time, the
    exits of the mover's Scouts filled with other pieces, so that blocking is common."""
    low = int(rng.integers(1, 13))
    window = [s for s in sorted(STATIONS) if low <= s[0] <= low + 1]
    free = set(STATIONS)
    to_move = int(rng.integers(2))
    scouts_forfeit = variant in ("capture", "intercept")

    def take(options):
        options = [s for s in options if s in free]
        if not options:
            return None
        choice = options[rng.integers(len(options))]
        free.discard(choice)
        return list(choice)

    scouts = [[None] * 3, [None] * 3]
    guards = [[None] * 2, [None] * 2]
    for p in (to_move, 1 - to_move):
        for i in range(3):
            roll = rng.random()
            if roll < 0.1 and scouts_forfeit:
                scouts[p][i] = "out"
            elif roll < 0.3:
                scouts[p][i] = take([s for s in STATIONS if s[0] == OPPONENT_BASE_LINE[p]])
            scouts[p][i] = scouts[p][i] or take(window) or take(sorted(STATIONS))
        if p == to_move and rng.random() < 0.5:  # trap: fill the exits with blockers
            blockers = [(1 - p, "guard", 0), (1 - p, "guard", 1), (p, "guard", 0),
                        (1 - p, "scout", 0), (1 - p, "scout", 1), (1 - p, "scout", 2)]
            for here in scouts[p]:
                if not in_play(here, p):
                    continue
                for _, there in tracks(tuple(here)):
                    if there not in free or there[0] - here[0] == (-1 if p == 0 else 1):
                        continue
                    for owner, kind, i in blockers:
                        table = guards if kind == "guard" else scouts
                        if table[owner][i] is None and (kind == "scout" or there in CROSS):
                            table[owner][i] = list(there)
                            free.discard(there)
                            break
    for p in range(2):
        for i in range(2):
            if guards[p][i] is None:
                roll = rng.random()
                if roll < 0.25:
                    guards[p][i] = "tray"
                elif roll < 0.45 and not scouts_forfeit:
                    guards[p][i] = "out"
                else:
                    guards[p][i] = take([s for s in window if s in CROSS]) or "tray"
        for i in range(3):
            scouts[p][i] = scouts[p][i] or take(window) or take(sorted(STATIONS))
    placed = []
    for p in range(2):
        order = [s for s in range(3) if scouts[p][s] != "out"
                 and scouts[p][s][0] == OPPONENT_BASE_LINE[p]]
        placed.append([int(s) for s in rng.permutation(order)])
    position = {"scouts": scouts, "guards": guards, "placed_order": placed, "to_move": to_move,
                "half": 0, "first_half": None, "sweep": [None, None],
                "turn": int(rng.integers(0, 150))}
    if variant == "breakthrough" and "out" in guards[to_move]:
        position["forfeit_made"] = bool(rng.random() < 0.5)
    return position


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant_and_follows_the_reference(variant, seed):
    game = GAMES[variant]
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        check_state(state)
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
    check_state(state)


@settings(max_examples=300, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_crowded_positions_follow_the_reference_through_blocks_and_forfeits(variant, seed):
    game = GAMES[variant]
    rng = np.random.default_rng(seed)
    state = game.state_from_dict(random_crowded_position(rng, variant))
    for _ in range(12):
        check_state(state)
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])


@settings(max_examples=20, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1),
       plies=st.integers(0, 200), crowded=st.booleans())
def test_mask_equals_the_set_of_accepted_actions(variant, seed, plies, crowded):
    game = GAMES[variant]
    rng = np.random.default_rng(seed)
    state = (game.state_from_dict(random_crowded_position(rng, variant)) if crowded
             else game.new_initial_state())
    for _ in range(plies if not crowded else plies % 8):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
    check_mask_is_exactly_the_accepted_actions(state)


@settings(max_examples=20, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1),
       plies=st.integers(0, 250))
def test_clones_are_independent_and_positions_and_actions_round_trip(variant, seed, plies):
    game = GAMES[variant]
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
    snapshot = state.to_dict()
    copy = state.clone()
    while not copy.is_terminal():
        copy.apply_action(copy.legal_actions()[-1])
    assert state.to_dict() == snapshot
    reloaded = game.state_from_dict(snapshot)
    assert reloaded.to_dict() == snapshot and str(reloaded) == str(state)
    np.testing.assert_array_equal(reloaded.legal_actions_mask(), state.legal_actions_mask())
    assert reloaded.current_player() == state.current_player()
    for a in range(143):
        assert state.string_to_action(state.action_to_string(a)) == a


@settings(max_examples=8, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_same_seed_same_game(variant, seed):
    def play():
        rng = np.random.default_rng(seed)
        state = GAMES[variant].new_initial_state()
        history = []
        while not state.is_terminal():
            actions = state.legal_actions()
            history.append(actions[rng.integers(len(actions))])
            state.apply_action(history[-1])
        return history, state.to_dict()

    assert play() == play()
