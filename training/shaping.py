"""Potential-based reward shaping for PPO (Ng, Harada and Russell 1999).

Between two decisions of a seat, its reward gains ``gamma * phi(s') - phi(s)`` (``phi`` = 0 at
the end of the game); whatever ``phi`` is, the optimal policies stay the same, while every move
gets a signal long before the game's result. ``phi`` is ``weight`` times the seat's lead in
[-1, 1]: in the Blockade race (walking distances to the goals, as training/rewards.py measures
them), in Barricade's and Nobles' scores (rewards.py's adjudicators).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from training.rewards import ADJUDICATORS, RewardConfig, blockade_race_distances_of_states

POTENTIALS = ("none", "distance")


@dataclass(frozen=True)
class ShapingConfig:
    potential: str = "none"
    weight: float = 0.5

    def __post_init__(self):
        if self.potential not in POTENTIALS:
            raise ValueError(f"shaping.potential must be one of {', '.join(POTENTIALS)}, "
                             f"got {self.potential!r}")
        if self.weight < 0:
            raise ValueError(f"shaping.weight must be >= 0, got {self.weight}")


class BlockadeLead:
    """Each player's lead in the Blockade race, in [-1, 1]: the others' mean walking distance to
    their goals minus its own, over a cap of twice the board's perimeter (a walled-in player's
    distance is capped there too). Linear, unlike the adjudicator's tanh, so the pull towards
    the goals stays as strong after the opponent is walled in."""

    def __init__(self, game):
        self.cap = 2.0 * (game.rows + game.cols)

    def __call__(self, states, scale: float) -> np.ndarray:
        d = np.minimum(blockade_race_distances_of_states(states), self.cap)
        n = d.shape[1]
        return ((d.sum(axis=1, keepdims=True) - d) / (n - 1) - d) / self.cap


def each_state(adjudicator: Callable) -> Callable:
    """A lead of several states from an adjudicator of one (rewards.ADJUDICATORS)."""
    return lambda states, scale: np.stack([adjudicator(s, scale) for s in states])


LEADS: dict[str, Callable] = {
    "blockade": BlockadeLead,
    "barricade": lambda game: each_state(ADJUDICATORS["barricade"]),  # placed Scouts, progress
    "nobles": lambda game: each_state(ADJUDICATORS["nobles"]),  # combat-score lead
}
"""Game name -> (game -> lead(states, scale)): ``[len(states), num_players]``, every player's
lead in [-1, 1], the potential."""


class Potential:
    """``phi(states)``: ``[len(states), num_players]``, every player's potential in each state,
    ``weight`` times its lead (:data:`LEADS`); zero everywhere when shaping is off."""

    def __init__(self, game, shaping: ShapingConfig, rewards: RewardConfig):
        self.lead = None
        if shaping.potential == "distance" and shaping.weight > 0:
            if game.name not in LEADS:
                raise ValueError(f"no distance potential for game {game.name!r} (have "
                                 f"{', '.join(LEADS)}); set algo.shaping.potential=none")
            self.lead = LEADS[game.name](game)
        self.weight = shaping.weight
        self.scale = rewards.scale
        self.num_players = game.num_players

    def __call__(self, states) -> np.ndarray:
        if self.lead is None:
            return np.zeros((len(states), self.num_players))
        return self.weight * self.lead(states, self.scale)
