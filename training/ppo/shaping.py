"""Potential-based reward shaping for PPO (Ng, Harada and Russell 1999).

Between two decisions of a seat, its reward gains ``gamma * phi(s') - phi(s)`` (``phi`` = 0 at
the end of the game); whatever ``phi`` is, the optimal policies stay the same, while every move
gets a signal long before the game's result. ``phi`` is ``weight`` times the seat's lead in
[-1, 1]: the game's ``potential`` hook (:class:`envs.core.Hooks`; Blockade: the linear race
lead), else its ``adjudicate`` hook of each state (Barricade's and Nobles' score leads).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import envs
from envs.core import Lead
from training.rewards import RewardConfig

POTENTIALS = ("none", "distance")


@dataclass(frozen=True)
class ShapingConfig:
    """``algo.shaping``: potential-based reward shaping."""

    # none | distance: reward gamma * phi(s') - phi(s) between a seat's decisions (phi = 0 at
    # the end), phi = weight * its lead (the game's potential or adjudicate hook)
    potential: str = "none"
    # phi in [-weight, weight]
    weight: float = 0.5

    def __post_init__(self):
        if self.potential not in POTENTIALS:
            raise ValueError(f"shaping.potential must be one of {', '.join(POTENTIALS)}, "
                             f"got {self.potential!r}")
        if self.weight < 0:
            raise ValueError(f"shaping.weight must be >= 0, got {self.weight}")


def each_state(adjudicate: Callable) -> Lead:
    """A lead of several states from a game's ``adjudicate`` hook of one."""
    return lambda states, scale: np.stack([adjudicate(s, scale) for s in states])


def check_potential(game, shaping: ShapingConfig) -> None:
    """A ``distance`` potential needs the game's ``potential`` or ``adjudicate`` hook: a
    ``ValueError`` saying so when it has neither (checked before any worker starts)."""
    hooks = envs.game_hooks(game)
    if (shaping.potential == "distance" and shaping.weight > 0
            and hooks.potential is None and hooks.adjudicate is None):
        raise ValueError(f"no distance potential for game {game.name!r} (its hooks have "
                         f"no potential or adjudicate); set algo.shaping.potential=none")


class Potential:
    """``phi(states)``: ``[len(states), num_players]``, every player's potential in each state,
    ``weight`` times its lead; zero everywhere when shaping is off."""

    def __init__(self, game, shaping: ShapingConfig, rewards: RewardConfig):
        check_potential(game, shaping)
        self.lead = None
        if shaping.potential == "distance" and shaping.weight > 0:
            hooks = envs.game_hooks(game)
            self.lead = (hooks.potential(game) if hooks.potential is not None
                         else each_state(hooks.adjudicate))
        self.weight = shaping.weight
        self.scale = rewards.scale
        self.num_players = game.num_players

    def __call__(self, states) -> np.ndarray:
        if self.lead is None:
            return np.zeros((len(states), self.num_players))
        return self.weight * self.lead(states, self.scale)
