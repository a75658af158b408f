"""Potential-based reward shaping for PPO (Ng, Harada and Russell 1999).

Between two decisions of a seat, its reward gains ``gamma * phi(s') - phi(s)`` (``phi`` = 0 at
the end of the game); whatever ``phi`` is, the optimal policies stay the same, while every move
gets a signal long before the game's result. ``phi`` is ``weight`` times the seat's lead in
[-1, 1]: in the Blockade race (walking distances to the goals, as training/rewards.py measures
them), in Barricade's and Nobles' scores (rewards.py's adjudicators).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from envs.blockade.engine import DOWN, LEFT, RIGHT, UP
from training.rewards import ADJUDICATORS, RewardConfig

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


class BlockadeRace:
    """training/rewards.py's ``blockade_race_distances`` (walking distances around walls, pawns
    ignored, a walled-in pawn ``num_cells`` away), fast enough to run at every decision.

    The breadth-first layers from each goal square are bitboards (one shift per direction per
    layer) and depend only on the walls, which change a few dozen times a game: they are cached
    by wall layout, so most calls are a few bit tests. tests/test_ppo.py checks it against
    rewards.py's function on random positions.
    """

    CACHE = 20_000

    def __init__(self, game):
        self.game = game
        self.goals = [sorted(cells) for cells in game.goal_cells]
        self.cache: OrderedDict[bytes, list] = OrderedDict()

    def _layers(self, state) -> list[list[list[int]]]:
        key = bytes(state.open)
        layers = self.cache.get(key)
        if layers is None:
            cells = np.frombuffer(key, dtype=np.uint8)
            masks = [int.from_bytes(np.packbits((cells & d) != 0, bitorder="little").tobytes(),
                                    "little") for d in (UP, DOWN, LEFT, RIGHT)]
            layers = [[self._bfs(masks, g) for g in goals] for goals in self.goals]
            self.cache[key] = layers
            if len(self.cache) > self.CACHE:
                self.cache.popitem(last=False)
        return layers

    def _bfs(self, masks: list[int], source: int) -> list[int]:
        up, down, left, right = masks
        cols = self.game.cols
        seen = frontier = 1 << source
        layers = [frontier]
        while True:
            frontier = (((frontier & up) >> cols) | ((frontier & down) << cols)
                        | ((frontier & left) >> 1) | ((frontier & right) << 1)) & ~seen
            if not frontier:
                return layers
            seen |= frontier
            layers.append(frontier)

    def _distance(self, layers: list[int], cell: int) -> int:
        bit = 1 << cell
        return next((k for k, layer in enumerate(layers) if layer & bit), self.game.num_cells)

    def __call__(self, state) -> np.ndarray:
        """D_i of every player: steps still needed to meet the win condition."""
        both = self.game.win_condition == "both"
        totals = []
        for p, (near, far) in enumerate(self._layers(state)):
            a, b = state.pawns[2 * p], state.pawns[2 * p + 1]
            da, db = self._distance(near, a), self._distance(near, b)
            fa, fb = self._distance(far, a), self._distance(far, b)
            totals.append(min(da + fb, fa + db) if both else min(da, db, fa, fb))
        return np.asarray(totals, dtype=np.float64)


class BlockadeLead:
    """Each player's lead in the Blockade race, in [-1, 1]: the others' mean walking distance to
    their goals minus its own, over a cap of twice the board's perimeter (a walled-in player's
    distance is capped there too). Linear, unlike the adjudicator's tanh, so the pull towards
    the goals stays as strong after the opponent is walled in."""

    def __init__(self, game):
        self.race = BlockadeRace(game)
        self.cap = 2.0 * (game.rows + game.cols)

    def __call__(self, state, scale: float) -> np.ndarray:
        d = np.minimum(self.race(state), self.cap)
        return ((d.sum() - d) / (len(d) - 1) - d) / self.cap


LEADS: dict[str, Callable] = {
    "blockade": BlockadeLead,
    "barricade": lambda game: ADJUDICATORS["barricade"],  # score lead (placed Scouts, progress)
    "nobles": lambda game: ADJUDICATORS["nobles"],  # combat-score lead
}
"""Game name -> (game -> lead(state, scale)): every player's lead in [-1, 1], the potential."""


class Potential:
    """``phi(state)``: every player's potential, ``weight`` times its lead (:data:`LEADS`);
    disabled when shaping is off."""

    def __init__(self, game, shaping: ShapingConfig, rewards: RewardConfig):
        self.lead = None
        if shaping.potential == "distance" and shaping.weight > 0:
            if game.name not in LEADS:
                raise ValueError(f"no distance potential for game {game.name!r} (have "
                                 f"{', '.join(LEADS)}); set algo.shaping.potential=none")
            self.lead = LEADS[game.name](game)
        self.weight = shaping.weight
        self.scale = rewards.scale

    @property
    def enabled(self) -> bool:
        return self.lead is not None

    def __call__(self, state) -> np.ndarray:
        return self.weight * self.lead(state, self.scale)
