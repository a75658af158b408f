"""Nobles property tests over random play: pieces are conserved, scores move only by the table's
amounts, the mask is exactly the set of accepted actions, positions and action strings round
trip, and random games end."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from contract import check_mask_is_exactly_the_accepted_actions
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.nobles import Encoder, Game
from envs.nobles.engine import HOME, NOBLE_ACTION

configs = st.tuples(st.sampled_from([2, 3, 4]), st.sampled_from(["journey", "brawl"]))


def roll(state, rng):
    actions, probs = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(actions[rng.choice(len(actions), p=probs)])


def check_move(before, action, after):
    """Compare two states around one decision with the rules' bookkeeping, from pieces alone."""
    game, player, v = before.game, before.to_move, before.roll
    table = game.scoring
    n = game.num_players
    # Conservation: one Noble and four Guards each, in range; captured pieces went to the Yard.
    captured_guards = captured_nobles = 0
    for other in range(n):
        assert len(after.guards[other]) == 4 and list(after.guards[other]) == sorted(
            after.guards[other])
        assert all(0 <= p <= HOME for p in (*after.guards[other], after.nobles[other]))
        if other == player:
            continue
        lost = Counter(before.guards[other]) - Counter(after.guards[other])
        gained = Counter(after.guards[other]) - Counter(before.guards[other])
        assert set(gained) <= {0} and sum(gained.values()) == sum(lost.values())
        captured_guards += sum(lost.values())
        if after.nobles[other] != before.nobles[other]:
            assert after.nobles[other] == 0
            captured_nobles += 1
        assert after.scores[other] == before.scores[other]
    # The mover: size k, start and destination.
    if action == NOBLE_ACTION:
        k, start, dest = 1, before.nobles[player], after.nobles[player]
        assert Counter(after.guards[player]) == Counter(before.guards[player])
        homes_guard, homes_noble = 0, int(dest == HOME)
    else:
        start, k = divmod(action - 1, 4)
        k += 1
        moved = Counter(before.guards[player]) - Counter(after.guards[player])
        arrived = Counter(after.guards[player]) - Counter(before.guards[player])
        assert moved == Counter({start: k}) and len(arrived) == 1
        dest = next(iter(arrived))
        assert arrived[dest] == k and after.nobles[player] == before.nobles[player]
        homes_guard, homes_noble = k * int(dest == HOME), 0
    assert start < dest <= min(start + v, HOME)
    if captured_guards or captured_nobles:
        tile = game.tiles[player][dest]
        assert tile and tile not in (9, 22, 35, 48, 1, 14, 27, 40)
    trimmed = 0 if dest == HOME else start + v - dest
    delta = after.scores[player] - before.scores[player]
    rest = delta - (table["guard_captured"] * captured_guards
                    + table["noble_captured"] * captured_nobles
                    + table["guard_home"] * homes_guard + table["noble_home"] * homes_noble)
    penalty = table["blockade_step"] * k * trimmed
    if action == NOBLE_ACTION and trimmed:
        assert rest in (0, penalty)  # own Guards cost nothing, an opponent blockade does
    else:
        assert rest == penalty  # only opponents can stop Guards
    assert after.turn == before.turn + 1 and after.to_move == (player + 1) % n


@settings(max_examples=100, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_the_books(config, seed):
    n, mode = config
    game = Game(num_players=n, mode=mode)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            roll(state, rng)
            continue
        before = state.clone()
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        check_move(before, action, state)
    assert state.returns().sum() == pytest.approx(0.0)
    best = max(state.scores)
    assert all((state.returns()[i] > 0) == (s == best) for i, s in enumerate(state.scores)
               ) or len(set(state.scores)) == 1


def random_decision_state(n, mode, seed, plies):
    game = Game(num_players=n, mode=mode)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        while state.is_chance_node():
            roll(state, rng)
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    while state.is_chance_node():
        roll(state, rng)
    return state


@settings(max_examples=100, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 250))
def test_mask_equals_accepted_actions(config, seed, plies):
    check_mask_is_exactly_the_accepted_actions(random_decision_state(*config, seed, plies))


@settings(max_examples=100, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 250))
def test_positions_notation_and_encoding_round_trip(config, seed, plies):
    state = random_decision_state(*config, seed, plies)
    d = state.to_dict()
    again = state.game.state_from_dict(d)
    assert again.to_dict() == d and again.legal_actions() == state.legal_actions()
    for action in range(233):
        assert state.string_to_action(state.action_to_string(action)) == action
    encoder = Encoder(state.game)
    for player in range(state.game.num_players):
        obs = encoder.encode(state, player)
        assert obs.shape == encoder.shape and obs.min() >= 0 and obs.max() <= 1
        assert np.array_equal(obs, encoder.encode(again, player))
    assert str(state)


pieces = st.integers(0, HOME)


@settings(max_examples=100, deadline=None)
@given(nobles=st.lists(pieces, min_size=2, max_size=2),
       guards=st.lists(st.lists(pieces, min_size=4, max_size=4), min_size=2, max_size=2),
       roll=st.one_of(st.none(), st.integers(2, 12)), to_move=st.integers(0, 1))
def test_arbitrary_positions_load_or_fail_cleanly(nobles, guards, roll, to_move):
    game = Game(num_players=2)
    d = {"nobles": nobles, "guards": guards, "scores": [0, 0], "to_move": to_move,
         "roll": roll, "turn": 5}
    try:
        state = game.state_from_dict(d)
    except ValueError as error:
        assert str(error)
        return
    out = state.to_dict()
    assert [sorted(g) for g in guards] == out["guards"] and out["nobles"] == nobles
    if roll is not None and state.roll is None and not state.is_terminal():
        assert out["turn"] == 6 and out["to_move"] == 1 - to_move  # the roll passed
    else:
        assert game.state_from_dict(out).to_dict() == out


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("mode", ["journey", "brawl"])
def test_random_games_end(n, mode):
    game = Game(num_players=n, mode=mode)
    rng = np.random.default_rng(n)
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                roll(state, rng)
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert state.turn <= game.max_turns
        assert HOME in state.nobles or state.turn == game.max_turns
