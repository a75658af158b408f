"""Barricade's hooks (:class:`envs.core.Hooks`): the score lead of games cut short, the standing
of a position for search leaves (:mod:`envs.barricade.standing`), and the mirror of the
files."""

from __future__ import annotations

import numpy as np

from envs.barricade.engine import FORFEIT_SCOUT, GUARD_ACTIONS, NUM_CROSS
from envs.barricade.standing import projection_of
from envs.core import Hooks, Symmetry, margins


def adjudicate(state, scale: float) -> np.ndarray:
    """Points of the Scouts placed so far (1, 3, 5 in order) plus a tenth of a point per line
    the Scouts still in play have advanced, as a lead over the opponent."""
    position = state.to_dict()
    points = []
    for player, (scouts, placed) in enumerate(zip(position["scouts"], position["placed_order"],
                                                  strict=True)):
        score = float(sum((1, 3, 5)[: len(placed)]))
        for s, station in enumerate(scouts):
            if isinstance(station, list) and s not in placed:
                score += 0.1 * (station[0] - 1 if player == 0 else 13 - station[0])
        points.append(score)
    return margins(np.asarray(points), scale / 2.0)


def evaluate(state) -> np.ndarray:
    """Both players' prospects: tanh of the projected score lead, the evaluation the heuristic
    plays by and plain MCTS scores its rollouts with."""
    return np.asarray(projection_of(state.game).evaluate(state), dtype=np.float64)


def symmetries(game, encoder) -> list[Symmetry]:
    """The mirror of the files (file f <-> 8 - f). Scouts 0 and 2 trade places (Scout ``i``
    starts on file ``2 + 2i``), sideways steps swap direction, Guard targets mirror."""
    planes = np.arange(encoder.shape[0])
    planes[[0, 2]] = [2, 0]  # own Scout 0 <-> 2
    planes[[23, 25]] = [25, 23]  # own Scout 0 <-> 2 forfeited
    actions = np.arange(game.num_actions)
    for s in range(3):
        for d, mirrored in enumerate((0, 1, 3, 2)):
            actions[4 * s + d] = 4 * (2 - s) + mirrored
        actions[FORFEIT_SCOUT + s] = FORFEIT_SCOUT + 2 - s
    for g in range(2):
        for i in range(NUM_CROSS):
            row, col = divmod(i, 7)
            actions[GUARD_ACTIONS + NUM_CROSS * g + i] = GUARD_ACTIONS + NUM_CROSS * g + 7 * row \
                + 6 - col
    return [Symmetry("mirror files", planes, False, True, actions)]


HOOKS = Hooks(adjudicate=adjudicate, evaluate=evaluate, symmetries=symmetries,
              encoder_versions={"barricade": 1})
