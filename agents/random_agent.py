"""The weakest baseline: a legal action drawn uniformly at random from a seeded generator."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Uniform over the legal actions; the same seed gives the same choices."""

    name = "random"

    def __init__(self, game=None):
        self._rng = np.random.default_rng(0)

    def reset(self, game, player: int, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def act(self, state) -> int:
        actions = state.legal_actions()
        return int(actions[self._rng.integers(len(actions))])
