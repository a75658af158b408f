"""Checks of the engine contract (RULES.md section 4) shared by every game's tests."""

from __future__ import annotations

import numpy as np

from envs.core import IllegalActionError, sample_chance


def play_random(state, rng: np.random.Generator, plies: int):
    """Plays up to ``plies`` uniformly random legal actions on ``state`` (chance outcomes drawn
    by their probabilities, not counted as plies) and returns it."""
    done = 0
    while done < plies and not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
        done += 1
    return state


def check_mask_is_exactly_the_accepted_actions(state) -> None:
    """Every action is tried on a clone: ``apply_action`` accepts exactly the masked ones, a
    rejected one leaves the clone unchanged, and the original is never touched."""
    before = state.to_dict()
    mask = state.legal_actions_mask()
    assert mask.dtype == bool and mask.shape == (state.game.num_actions,)
    assert np.flatnonzero(mask).tolist() == sorted(state.legal_actions())
    for action in range(state.game.num_actions):
        trial = state.clone()
        try:
            trial.apply_action(action)
            accepted = True
        except IllegalActionError:
            accepted = False
            assert trial.to_dict() == before, f"rejected action {action} changed the state"
        assert accepted == bool(mask[action]), (
            f"mask and apply_action disagree on {action} ({state.action_to_string(action)})")
    assert state.to_dict() == before, "trying actions on clones changed the original"
