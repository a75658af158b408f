"""Nobles' hooks (:class:`envs.core.Hooks`): the combat-score lead of games cut short and the
derived ``capture_odds`` features (:mod:`envs.nobles.features`). It has no board symmetry (a
one-way track)."""

from __future__ import annotations

import numpy as np

from envs.core import Hooks, margins
from envs.nobles.features import FEATURES


def adjudicate(state, scale: float) -> np.ndarray:
    """The combat-score lead (scores run about ten times a race's steps, hence the scale)."""
    return margins(np.asarray(state.to_dict()["scores"], dtype=np.float64), scale * 10.0)


HOOKS = Hooks(adjudicate=adjudicate, features=FEATURES,
              encoder_versions={"nobles": 1, "capture_odds": 1})
