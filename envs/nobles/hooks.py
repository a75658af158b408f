"""Nobles' hooks (:class:`envs.core.Hooks`): the combat-score lead of games cut short, the
standing of a position for search leaves (:mod:`envs.nobles.standing`) and the derived
``capture_odds`` and ``standing`` features (:mod:`envs.nobles.features`). It has no board
symmetry (a one-way track)."""

from __future__ import annotations

import numpy as np

from envs.core import Hooks, margins
from envs.nobles.features import FEATURES
from envs.nobles.standing import standing_of


def adjudicate(state, scale: float) -> np.ndarray:
    """The combat-score lead (scores run about ten times a race's steps, hence the scale)."""
    return margins(np.asarray(state.to_dict()["scores"], dtype=np.float64), scale * 10.0)


def evaluate(state) -> np.ndarray:
    """Every player's prospects: tanh of its standing lead over its best opponent, the
    evaluation the heuristic plays by and plain MCTS scores its rollouts with."""
    return np.asarray(standing_of(state.game).evaluate(state), dtype=np.float64)


HOOKS = Hooks(adjudicate=adjudicate, evaluate=evaluate, features=FEATURES,
              encoder_versions={"nobles": 1, "capture_odds": 1, "standing": 1})
