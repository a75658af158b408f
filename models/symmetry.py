"""Board symmetries in the acting player's view, for augmenting training samples: each game
lists its own (``HOOKS.symmetries``, :class:`envs.core.Symmetry`); this module applies them to
replay batches."""

from __future__ import annotations

import numpy as np

import envs
from envs.core import Symmetry


def symmetries(game, encoder) -> list[Symmetry]:
    """The non-identity symmetries of ``game``'s views (empty when it has none)."""
    build = envs.game_hooks(game).symmetries
    return build(game, encoder) if build else []


def augmenter(syms: list[Symmetry]):
    """``augment(batch, rng)`` for :class:`training.replay.Samples`: each sample kept or
    mapped by a symmetry, uniformly at random. None when there is nothing to augment with."""
    if not syms:
        return None

    def augment(batch, rng: np.random.Generator):
        choice = rng.integers(0, len(syms) + 1, size=len(batch))
        obs, mask, policy = batch.obs.copy(), batch.mask.copy(), batch.policy.copy()
        for k, sym in enumerate(syms, start=1):
            rows = np.flatnonzero(choice == k)
            if len(rows):
                obs[rows] = sym.obs(batch.obs[rows])
                mask[rows] = sym.per_action(batch.mask[rows])
                policy[rows] = sym.per_action(batch.policy[rows])
        return type(batch)(obs, mask, policy, batch.value)

    return augment
