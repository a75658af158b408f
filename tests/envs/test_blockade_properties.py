"""Invariants that random play must never break (hypothesis drives the games)."""

import numpy as np
from contract import check_mask_is_exactly_the_accepted_actions, play_random
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import blockade
from envs.blockade.engine import NUM_MOVE_ACTIONS

GAMES = {n: blockade.Game(num_players=n, max_turns=60 * n) for n in (2, 3, 4)}


def check_invariants(state):
    game = state.game
    assert len(set(state.pawns)) == len(state.pawns), "two pawns share a cell"
    assert all(0 <= x < game.num_cells for x in state.pawns)
    assert all(v >= 0 for v in state.walls_left), "a wall supply went negative"
    # No two walls overlap or cross: re-placing them one by one on an empty board must work.
    free = np.ones_like(state.wall_free)
    for w in state.walls:
        assert free[w], f"wall {game.wall_of_index(w)} overlaps or crosses another"
        free[game.wall_conflicts[w]] = False
    np.testing.assert_array_equal(free, state.wall_free)
    used = [0, 0]
    for w in state.walls:
        used[w // game.anchors_per_orientation] += 1
    supply = game.walls_per_orientation * game.num_players
    assert used[0] + sum(state.walls_left[0::2]) == supply
    assert used[1] + sum(state.walls_left[1::2]) == supply


@settings(max_examples=25, deadline=None)
@given(num_players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32 - 1))
def test_random_play_keeps_every_invariant(num_players, seed):
    game = GAMES[num_players]
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        check_invariants(state)
        actions = state.legal_actions()
        assert actions, "a non-terminal state with no legal action"
        phase_actions = [a < NUM_MOVE_ACTIONS for a in actions]
        assert all(phase_actions) or not any(phase_actions), "moves and walls mixed in a mask"
        state.apply_action(actions[rng.integers(len(actions))])
    check_invariants(state)
    assert state.returns().sum() == 0
    assert not state.legal_actions_mask().any()


@settings(max_examples=15, deadline=None)
@given(num_players=st.sampled_from([2, 4]), seed=st.integers(0, 2**32 - 1),
       plies=st.integers(0, 150))
def test_mask_equals_the_set_of_accepted_actions(num_players, seed, plies):
    state = play_random(GAMES[num_players].new_initial_state(), np.random.default_rng(seed), plies)
    check_mask_is_exactly_the_accepted_actions(state)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 120))
def test_clones_are_independent_and_positions_reload_identically(seed, plies):
    game = GAMES[2]
    state = play_random(game.new_initial_state(), np.random.default_rng(seed), plies)
    snapshot = state.to_dict()
    copy = state.clone()
    while not copy.is_terminal():
        copy.apply_action(copy.legal_actions()[0])
    assert state.to_dict() == snapshot
    reloaded = game.state_from_dict(snapshot)
    np.testing.assert_array_equal(reloaded.legal_actions_mask(), state.legal_actions_mask())
    assert reloaded.current_player() == state.current_player()
