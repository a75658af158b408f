"""Derived input features appended to a game's observation planes (``model.features``).

- ``distance`` (Blockade): two planes per relative seat, one per goal square of that seat (the
  outer one, then the inner one), with every cell's walking distance to it (single steps around
  walls, pawns ignored), scaled to [0, 1] by the number of cells; cells walled off are 1. One
  plane per goal square, not one to the nearer goal, because under ``win_condition: both`` the
  second pawn must head for the square the first one does not hold. A race on a walled board is
  a shortest-path problem that a small conv net cannot solve from local planes in a few layers;
  these maps make "which move brings my pawn closer" a local question. They depend only on the
  walls, so they are cached per wall layout.

The wrapper keeps the encoder contract (``shape``, ``encode``, ``view_to_board_actions``), so
search, self-play, symmetries and checkpoints use it like the game's own encoder.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

import envs

FEATURES = ("distance",)


def walk_distances(game, state, sources) -> list[int]:
    """Blockade: single-step distance from the nearest of ``sources`` (cells) to every cell,
    through open edges (walls respected, pawns ignored); ``game.num_cells`` if unreachable."""
    far = game.num_cells
    dist = [far] * far
    for x in sources:
        dist[x] = 0
    frontier = list(sources)
    open_, neighbours = state.open, game.neighbours
    while frontier:
        nxt = []
        for x in frontier:
            d = dist[x] + 1
            for direction, y in neighbours[x]:
                if open_[x] & direction and dist[y] > d:
                    dist[y] = d
                    nxt.append(y)
        frontier = nxt
    return dist


class DistancePlanes:
    """A Blockade encoder with two goal-distance planes per relative seat appended."""

    CACHE = 50_000

    def __init__(self, game, encoder):
        from envs.blockade.encoder import FLIPS
        from envs.blockade.engine import OPPOSITE_CORNER

        self.game = game
        self.encoder = encoder
        c, h, w = encoder.shape
        self.shape = (c + 2 * game.num_players, h, w)
        self.planes = encoder.planes  # the game's planes come first, unchanged
        self._flips = [FLIPS[corner] for corner in game.corners]
        # Goal squares in the same order for every seat (outer, inner), so the planes of all
        # seats mean the same in their views.
        self._goals = [[game.cell(*sq) for sq in game.start_squares[OPPOSITE_CORNER[corner]]]
                       for corner in game.corners]
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def _board_maps(self, state) -> np.ndarray:
        """[num_players, 2, rows, cols] distance maps in board coordinates, cached per walls."""
        key = bytes(state.open)
        maps = self._cache.get(key)
        if maps is None:
            game = self.game
            maps = np.empty((game.num_players, 2, game.rows, game.cols), dtype=np.float32)
            for p, goals in enumerate(self._goals):
                for k, goal in enumerate(goals):
                    dist = np.asarray(walk_distances(game, state, [goal]), dtype=np.float32)
                    maps[p, k] = dist.reshape(game.rows, game.cols) / game.num_cells
            self._cache[key] = maps
            if len(self._cache) > self.CACHE:
                self._cache.popitem(last=False)
        return maps

    def encode(self, state, player: int) -> np.ndarray:
        n = self.game.num_players
        base = self.encoder.encode(state, player)
        maps = self._board_maps(state)[[(player + i) % n for i in range(n)]].reshape(
            2 * n, self.game.rows, self.game.cols)
        flip_rows, flip_cols = self._flips[player]
        maps = maps[:, ::-1 if flip_rows else 1, ::-1 if flip_cols else 1]
        return np.concatenate([base, maps])

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return self.encoder.view_to_board_actions(player)


WRAPPERS = {"distance": DistancePlanes}
AUTO = {"blockade": ("distance",)}
"""What ``auto`` expands to per game (nothing for games not listed)."""


def make_encoder(game, features: tuple[str, ...] | list[str] = ()):
    """The game's own encoder, with the named derived features appended in order; ``auto``
    stands for the features defined for this game (so one model config fits every game)."""
    encoder = envs.game_module(game.name).Encoder(game)
    names = [f for name in features for f in (AUTO.get(game.name, ()) if name == "auto"
                                                else (name,))]
    for name in names:
        if name not in FEATURES:
            raise ValueError(f"unknown model feature {name!r}; choose from {', '.join(FEATURES)}")
        if game.name != "blockade":
            raise ValueError(f"model feature {name!r} is only defined for blockade, "
                             f"not {game.name!r}")
        encoder = WRAPPERS[name](game, encoder)
    return encoder
