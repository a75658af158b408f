"""Blockade observation planes from one player's point of view.

The board is mirrored so that the observing player's corner is NW: NE mirrors the columns, SW
the rows, SE both (the board is not square, so no rotation). Walls keep their orientation under
these mirrors. Seats are listed relative to the observer (0 = observer, 1 = next in turn order,
...). Planes, each ``rows x cols``, for ``n`` players:

| planes | content |
|---|---|
| 0 .. n-1 | pawns of relative seat i (1 on their cells) |
| n .. 2n-1 | goal squares of relative seat i |
| 2n .. 2n+3 | edge blocked (wall or board edge) going up, down, left, right from the cell |
| 2n+4, 2n+5 | a V / H wall is anchored at this cell's top-left corner |
| 2n+6, 2n+7 | a V / H wall may still be anchored at this cell's top-left corner |
| 2n+8 .. 4n+7 | walls left / initial supply: seat i's vertical, then horizontal |
| 4n+8 | 1 if the observer is to act |
| 4n+9 | 1 in the wall phase, 0 in the move phase |
| 4n+10 | turns played / max_turns |

Anchor planes are 0 in row 0 and column 0 (no anchor there).
"""

from __future__ import annotations

import numpy as np

from envs.blockade.engine import DOWN, LEFT, MOVE_OFFSETS, NUM_MOVE_ACTIONS, RIGHT, UP, Game

FLIPS = {"NW": (False, False), "NE": (False, True), "SE": (True, True), "SW": (True, False)}
"""Corner -> (mirror rows, mirror columns) that brings it to NW."""


class Encoder:
    def __init__(self, game: Game):
        self.game = game
        n = game.num_players
        self.shape = (4 * n + 11, game.rows, game.cols)
        self._flips = [FLIPS[corner] for corner in game.corners]
        self._perms = [self._action_permutation(*flip) for flip in self._flips]
        # Goal planes need no per-state work: precompute them in board coordinates.
        self._goal_planes = np.zeros((n, game.rows, game.cols), dtype=np.float32)
        for p in range(n):
            for x in game.goal_cells[p]:
                self._goal_planes[p][game.coords(x)] = 1.0
        self._edge_bits = np.array([UP, DOWN, LEFT, RIGHT], dtype=np.uint8)[:, None, None]

    def encode(self, state, player: int) -> np.ndarray:
        game = self.game
        n, rows, cols = game.num_players, game.rows, game.cols
        flip_rows, flip_cols = self._flips[player]
        planes = np.zeros(self.shape, dtype=np.float32)
        seats = [(player + i) % n for i in range(n)]
        flat = planes[:n].reshape(n, -1)
        for i, p in enumerate(seats):
            flat[i, state.pawns[2 * p]] = 1.0
            flat[i, state.pawns[2 * p + 1]] = 1.0
            planes[n + i] = self._goal_planes[p]
        open_ = np.frombuffer(state.open, dtype=np.uint8).reshape(rows, cols)
        planes[2 * n: 2 * n + 4] = (open_ & self._edge_bits) == 0
        anchors = game.anchors_per_orientation
        placed = np.zeros(2 * anchors, dtype=np.float32)
        placed[state.walls] = 1.0
        planes[2 * n + 4: 2 * n + 6, 1:, 1:] = placed.reshape(2, rows - 1, cols - 1)
        planes[2 * n + 6: 2 * n + 8, 1:, 1:] = state.wall_free.reshape(2, rows - 1, cols - 1)
        supply = game.walls_per_orientation or 1
        for i, p in enumerate(seats):
            planes[2 * n + 8 + 2 * i] = state.walls_left[2 * p] / supply
            planes[2 * n + 9 + 2 * i] = state.walls_left[2 * p + 1] / supply
        np.clip(planes[2 * n + 8: 4 * n + 8], 0.0, 1.0, out=planes[2 * n + 8: 4 * n + 8])
        planes[4 * n + 8] = float(state.current_player() == player)
        planes[4 * n + 9] = float(state.phase == 1)
        planes[4 * n + 10] = min(state.turn / game.max_turns, 1.0)
        return self._flip(planes, flip_rows, flip_cols)

    def _flip(self, planes: np.ndarray, flip_rows: bool, flip_cols: bool) -> np.ndarray:
        if not (flip_rows or flip_cols):
            return planes
        n = self.game.num_players
        anchor = slice(2 * n + 4, 2 * n + 8)
        # Anchors live on interior grid points: (r, c) mirrors to (rows - r, c), one off from
        # the cell mirror r -> rows - 1 - r, so their region is mirrored on its own.
        anchors = planes[anchor, 1:, 1:]
        out = planes[:, ::-1 if flip_rows else 1, ::-1 if flip_cols else 1].copy()
        out[anchor, 1:, 1:] = anchors[:, ::-1 if flip_rows else 1, ::-1 if flip_cols else 1]
        out[anchor, 0, :] = 0.0
        out[anchor, :, 0] = 0.0
        if flip_rows:
            out[[2 * n, 2 * n + 1]] = out[[2 * n + 1, 2 * n]]
        if flip_cols:
            out[[2 * n + 2, 2 * n + 3]] = out[[2 * n + 3, 2 * n + 2]]
        return out

    def view_to_board_actions(self, player: int) -> np.ndarray:
        """Permutation ``p`` with ``board_action = p[view_action]`` for ``player``'s view."""
        return self._perms[player]

    def _action_permutation(self, flip_rows: bool, flip_cols: bool) -> np.ndarray:
        game = self.game
        perm = np.arange(game.num_actions, dtype=np.int64)
        sr, sc = (-1 if flip_rows else 1), (-1 if flip_cols else 1)
        for k in range(NUM_MOVE_ACTIONS):
            pawn, offset = divmod(k, 12)
            dr, dc = MOVE_OFFSETS[offset]
            perm[k] = 12 * pawn + MOVE_OFFSETS.index((sr * dr, sc * dc))
        for w in range(2 * game.anchors_per_orientation):
            o, r, c = game.wall_of_index(w)
            r = game.rows - r if flip_rows else r
            c = game.cols - c if flip_cols else c
            perm[NUM_MOVE_ACTIONS + w] = NUM_MOVE_ACTIONS + game.wall_index(o, r, c)
        return perm
