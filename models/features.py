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

import numpy as np

import envs

FEATURES = ("distance",)


def open_masks(game, state) -> tuple[int, int, int, int]:
    """Bitboards (bit ``x`` = cell ``x``) of the cells a pawn may leave up, down, left, right."""
    from envs.blockade.engine import DOWN, LEFT, RIGHT, UP

    cells = np.frombuffer(bytes(state.open), dtype=np.uint8)
    return tuple(int.from_bytes(np.packbits((cells & d) != 0, bitorder="little").tobytes(),
                                "little") for d in (UP, DOWN, LEFT, RIGHT))


def walk_distances(game, state, sources) -> np.ndarray:
    """Blockade: single-step distance from the nearest of ``sources`` (cells) to every cell,
    through open edges (walls respected, pawns ignored); ``game.num_cells`` if unreachable."""
    return walk_distances_from_each(game, state, [sources])[0]


def walk_distances_from_each(game, state, source_sets) -> np.ndarray:
    """:func:`walk_distances` for several source sets at once: ``[len(source_sets), cells]``.

    Breadth-first layers on bitboards, one shift per direction per layer. The searches run side
    by side in one integer, one lane of ``num_cells`` bits each: a shift never carries a bit
    across a lane's edge because the board's outer edges are closed in the open-edge masks, so
    k searches cost the Python operations of one. The layers are then unpacked at once (a
    cell's distance is the number of layers that had not reached it)."""
    cols, far = game.cols, game.num_cells
    lanes = len(source_sets)
    spread = sum(1 << (lane * far) for lane in range(lanes))  # a mask's copy in every lane
    up, down, left, right = (m * spread for m in open_masks(game, state))
    seen = 0
    for lane, sources in enumerate(source_sets):
        for x in sources:
            seen |= 1 << (lane * far + x)
    frontier, layers = seen, []
    while frontier:
        layers.append(seen)
        step = ((frontier & up) >> cols) | ((frontier & down) << cols) \
            | ((frontier & left) >> 1) | ((frontier & right) << 1)
        frontier = step & ~seen
        seen |= frontier
    bits = lanes * far
    size = (bits + 7) // 8
    reached = np.unpackbits(np.frombuffer(b"".join(v.to_bytes(size, "little") for v in layers),
                                          dtype=np.uint8).reshape(len(layers), size),
                            axis=1, count=bits, bitorder="little").reshape(len(layers), lanes, far)
    dist = len(layers) - reached.sum(axis=0).astype(np.int64)
    dist[reached[-1] == 0] = far
    return dist


class DistancePlanes:
    """A Blockade encoder with two goal-distance planes per relative seat appended."""

    def __init__(self, game, encoder):
        from envs.blockade.encoder import FLIPS
        from envs.blockade.engine import OPPOSITE_CORNER

        self.game = game
        self.encoder = encoder
        c, h, w = encoder.shape
        self.shape = (c + 2 * game.num_players, h, w)
        self.planes = encoder.planes  # the game's planes come first, unchanged
        self.action_layout = encoder.action_layout
        self._flips = [FLIPS[corner] for corner in game.corners]
        # Goal squares in the same order for every seat (outer, inner), so the planes of all
        # seats mean the same in their views.
        self._goals = [[game.cell(*sq) for sq in game.start_squares[OPPOSITE_CORNER[corner]]]
                       for corner in game.corners]

    def _board_maps(self, state) -> np.ndarray:
        """[num_players, 2, rows, cols] distance maps in board coordinates, kept in the state's
        wall cache (shared by every state with the same walls)."""
        maps = state.wall_cache.get(self)
        if maps is None:
            game = self.game
            dist = walk_distances_from_each(game, state, [[g] for goals in self._goals
                                                          for g in goals])
            maps = (dist.reshape(game.num_players, 2, game.rows, game.cols)
                    / np.float32(game.num_cells)).astype(np.float32)
            state.wall_cache[self] = maps
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
