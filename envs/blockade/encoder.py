"""Blockade observation planes from one player's point of view.

The board is mirrored so that the observing player's corner is NW: NE mirrors the columns, SW
the rows, SE both (the board is not square, so no rotation). Walls keep their orientation under
these mirrors. Seats are listed relative to the observer (0 = observer, 1 = next in turn order,
...). Planes, each ``rows x cols``, for ``n`` players:

| planes | content |
|---|---|
| 0 .. 2n-1 | pawn k of relative seat i in plane 2i+k (actions name the pawn: `12*pawn + k`) |
| 2n .. 3n-1 | goal squares of relative seat i |
| 3n .. 3n+3 | edge blocked (wall or board edge) going up, down, left, right from the cell |
| 3n+4, 3n+5 | a V / H wall may still be anchored at this cell's top-left corner |
| 3n+6, 3n+7 | a V / H wall is anchored at this cell's top-left corner |
| 3n+8 .. 5n+7 | walls left / initial supply: seat i's vertical, then horizontal |
| 5n+8 | 1 if the observer is to act |
| 5n+9 | 1 in the wall phase, 0 in the move phase |
| 5n+10 | turns played / max_turns |

``Encoder.planes`` names these ranges (``pawns``, ``goals``, ``blocked``, ``wall_free``,
``wall_placed``, ``walls_left``, ``to_act``, ``phase``, ``progress``) for code that permutes
planes, such as symmetry augmentation.

Anchor planes are 0 in row 0 and column 0 (no anchor there).

``Encoder.action_layout`` tells a network where the view actions lie: the moves of the
observer's pawn ``k`` (actions ``12k..12k+11``) belong to the cell marked in plane ``k`` and
lead to that cell plus ``MOVE_OFFSETS[j]`` (offsets hold in every view, as the flip maps the
actions with the board), and
wall ``o`` at view anchor ``(r, c)`` to the 2x2 cells around that anchor (``models/nets.py``'s
spatial policy head reads them there).
"""

from __future__ import annotations

import numpy as np

from envs.blockade.engine import (
    DOWN,
    LEFT,
    MOVE_OFFSETS,
    NUM_MOVE_ACTIONS,
    PAWNS_PER_PLAYER,
    RIGHT,
    UP,
    Game,
)

FLIPS = {"NW": (False, False), "NE": (False, True), "SE": (True, True), "SW": (True, False)}
"""Corner -> (mirror rows, mirror columns) that brings it to NW."""


class Encoder:
    def __init__(self, game: Game):
        self.game = game
        n, rows, cols = game.num_players, game.rows, game.cols
        self.planes = {
            "pawns": slice(0, 2 * n), "goals": slice(2 * n, 3 * n),
            "blocked": slice(3 * n, 3 * n + 4), "wall_free": slice(3 * n + 4, 3 * n + 6),
            "wall_placed": slice(3 * n + 6, 3 * n + 8),
            "walls_left": slice(3 * n + 8, 5 * n + 8), "to_act": slice(5 * n + 8, 5 * n + 9),
            "phase": slice(5 * n + 9, 5 * n + 10), "progress": slice(5 * n + 10, 5 * n + 11),
        }
        self.shape = (5 * n + 11, rows, cols)
        self.action_layout = {"piece_planes": tuple(range(PAWNS_PER_PLAYER)),
                              "moves_per_piece": len(MOVE_OFFSETS), "anchor_kinds": 2,
                              "move_offsets": tuple(MOVE_OFFSETS)}
        self._flips = [FLIPS[corner] for corner in game.corners]
        self._perms = [self._action_permutation(*flip) for flip in self._flips]
        # Everything that depends on the seat only is precomputed in view coordinates: the
        # goal planes, where each board cell lands, the direction bits swapped by the mirror,
        # and which board anchor each view anchor shows.
        self._templates, self._view_cell, self._board_cell, self._edge_planes = [], [], [], []
        self._board_wall = []
        for player, ((flip_rows, flip_cols), board_cell) in enumerate(
                zip(self._flips, board_cells_in_view(game), strict=True)):
            view_cell = np.argsort(board_cell)
            template = np.zeros(self.shape, dtype=np.float32)
            for i in range(n):
                goals = [view_cell[x] for x in game.goal_cells[(player + i) % n]]
                template[2 * n + i].reshape(-1)[goals] = 1.0
            # Open-direction bits (as seen after the mirror) -> the four "blocked" planes.
            bits = np.arange(256, dtype=np.uint8)
            if flip_rows:
                bits = _swap_bits(bits, UP, DOWN)
            if flip_cols:
                bits = _swap_bits(bits, LEFT, RIGHT)
            edge_planes = (bits[None, :] & np.array([[UP], [DOWN], [LEFT], [RIGHT]])) == 0
            walls = self._perms[player][NUM_MOVE_ACTIONS:] - NUM_MOVE_ACTIONS
            self._templates.append(template)
            self._view_cell.append(view_cell)
            self._board_cell.append(board_cell)
            self._edge_planes.append(edge_planes.astype(np.float32))
            self._board_wall.append(walls)  # view wall w shows board wall walls[w]
        # Board pawn j (pawn j % 2 of player j // 2) goes to its plane in the observer's view.
        self._pawn_planes = [
            np.array([2 * ((j // 2 - player) % n) + j % 2 for j in range(2 * n)])
            for player in range(n)
        ]
        self._supply_order = [
            [2 * ((player + i) % n) + o for i in range(n) for o in range(2)] for player in range(n)
        ]
        self._supply_scale = 1.0 / max(game.walls_per_orientation, 1)
        # The per-seat tables stacked [seat, ...], for encode_many's gathers over a batch.
        self._templates, self._view_cell, self._board_cell, self._edge_planes, \
            self._board_wall, self._pawn_planes = (
                np.stack(tables) for tables in (self._templates, self._view_cell,
                                                self._board_cell, self._edge_planes,
                                                self._board_wall, self._pawn_planes))

    def _static(self, state, player: int) -> np.ndarray:
        """Goals, blocked edges and anchors: they depend on the walls only, so they are built
        once per wall layout and seat and kept in the state's wall cache (do not modify)."""
        key = (self, player)
        static = state.wall_cache.get(key)
        if static is None:
            game = self.game
            n, rows, cols = game.num_players, game.rows, game.cols
            static = self._templates[player].copy()
            open_ = np.frombuffer(state.open, dtype=np.uint8)[self._board_cell[player]]
            static.reshape(static.shape[0], -1)[3 * n: 3 * n + 4] = (
                self._edge_planes[player][:, open_])
            walls = state.wall_status[:, self._board_wall[player]]
            static[3 * n + 4: 3 * n + 8, 1:, 1:] = walls.reshape(4, rows - 1, cols - 1)
            state.wall_cache[key] = static
        return static

    def _scalars(self, state, player: int) -> list[float]:
        """Values of the constant planes: supplies (relative seats), to-act, phase, progress."""
        walls_left = state.walls_left
        scalars = [walls_left[j] * self._supply_scale for j in self._supply_order[player]]
        scalars.append(state.current_player() == player)
        scalars.append(state.phase)
        scalars.append(state.turn / self.game.max_turns)
        return scalars

    def encode(self, state, player: int) -> np.ndarray:
        n = self.game.num_players
        planes = self._static(state, player).copy()
        flat = planes.reshape(planes.shape[0], -1)
        flat[self._pawn_planes[player], self._view_cell[player][state.pawns]] = 1.0
        flat[3 * n + 8:] = np.minimum(self._scalars(state, player), 1.0)[:, None]
        return planes

    def encode_many(self, states, players) -> np.ndarray:
        """:meth:`encode` of several positions at once, ``[B, C, H, W]``, without the wall
        cache: a search batch's leaves mostly bring new wall layouts, whose planes
        :meth:`_static` would build one by one. The positions of each observing seat share its
        tables, so each plane group is one ``np.take`` per seat."""
        game, n = self.game, self.game.num_players
        players = np.asarray(players, dtype=np.int64)
        batch, cells = len(states), game.num_cells
        planes = self._templates[players]  # goals in place, the rest zero
        flat = planes.reshape(batch, planes.shape[1], cells)
        opened = np.frombuffer(b"".join(bytes(s.open) for s in states),
                               dtype=np.uint8).reshape(batch, cells)
        walls = np.stack([s.wall_status for s in states])  # [B, free/placed, anchors]
        pawns = np.array([s.pawns for s in states], dtype=np.int64)
        for player, rows in seat_groups(players):
            view_open = np.take(opened[rows], self._board_cell[player], axis=1)
            flat[rows, 3 * n: 3 * n + 4] = np.take(self._edge_planes[player], view_open,
                                                   axis=1).transpose(1, 0, 2)
            planes[rows, 3 * n + 4: 3 * n + 8, 1:, 1:] = np.take(
                walls[rows], self._board_wall[player], axis=2).reshape(
                    len(rows), 4, game.rows - 1, game.cols - 1)
            flat[rows[:, None], self._pawn_planes[player],
                 self._view_cell[player][pawns[rows]]] = 1.0
        scalars = np.array([self._scalars(s, int(p)) for s, p in zip(states, players,
                                                                     strict=True)])
        flat[:, 3 * n + 8:] = np.minimum(scalars, 1.0)[:, :, None]
        return planes

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
            # Anchors live on interior grid points: (r, c) mirrors to (rows - r, c).
            r = game.rows - r if flip_rows else r
            c = game.cols - c if flip_cols else c
            perm[NUM_MOVE_ACTIONS + w] = NUM_MOVE_ACTIONS + game.wall_index(o, r, c)
        return perm


def board_cells_in_view(game: Game) -> np.ndarray:
    """``[seat, view cell]``: the board cell that each cell of a seat's view shows (the board
    mirrored to bring the seat's corner to NW)."""
    cells = np.arange(game.num_cells).reshape(game.rows, game.cols)
    return np.stack([cells[::-1 if flip_rows else 1, ::-1 if flip_cols else 1].reshape(-1)
                     for flip_rows, flip_cols in (FLIPS[corner] for corner in game.corners)])


def seat_groups(players: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """``(seat, rows)`` for each seat among ``players``: the batch rows observed from it."""
    return [(int(p), np.flatnonzero(players == p)) for p in np.unique(players)]


def _swap_bits(values: np.ndarray, a: int, b: int) -> np.ndarray:
    """``values`` with bits ``a`` and ``b`` exchanged."""
    has_a, has_b = (values & a) != 0, (values & b) != 0
    out = values & ~np.uint8(a | b)
    return out | np.where(has_a, b, 0).astype(np.uint8) | np.where(has_b, a, 0).astype(np.uint8)
