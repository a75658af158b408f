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

WALLS_TO_UPDATE = 4
"""Most walls by which :meth:`Encoder._planes_since_last` updates a seat's last layout planes:
each costs about a tenth of building them anew."""

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
        # Per seat, in view coordinates: the goal planes, where each board cell lands, the
        # slice steps of its mirror and the board direction bits that its view's up, down,
        # left and right read (the mirror swaps them).
        self._templates, self._view_cell, self._mirror_steps, self._view_directions = [], [], [], []
        for player, ((flip_rows, flip_cols), board_cell) in enumerate(
                zip(self._flips, board_cells_in_view(game), strict=True)):
            view_cell = np.argsort(board_cell)
            template = np.zeros(self.shape, dtype=np.float32)
            for i in range(n):
                goals = [view_cell[x] for x in game.goal_cells[(player + i) % n]]
                template[2 * n + i].reshape(-1)[goals] = 1.0
            self._templates.append(template)
            self._view_cell.append(view_cell)
            self._mirror_steps.append((-1 if flip_rows else 1, -1 if flip_cols else 1))
            up, down = (DOWN, UP) if flip_rows else (UP, DOWN)
            left, right = (RIGHT, LEFT) if flip_cols else (LEFT, RIGHT)
            self._view_directions.append(
                np.array([up, down, left, right], dtype=np.uint8)[:, None, None])
        # Board pawn j (pawn j % 2 of player j // 2) goes to its plane in the observer's view.
        self._pawn_planes = [
            np.array([2 * ((j // 2 - player) % n) + j % 2 for j in range(2 * n)])
            for player in range(n)
        ]
        self._supply_order = [
            [2 * ((player + i) % n) + o for i in range(n) for o in range(2)] for player in range(n)
        ]
        self._supply_scale = 1.0 / max(game.walls_per_orientation, 1)
        # For encode: [seat][board pawn j][board cell] -> index of that pawn's cell in the
        # flattened planes, and where the to-act, phase and progress planes lie there.
        self._pawn_index = [
            (pawn_planes[:, None] * game.num_cells + view_cell[None, :]).tolist()
            for pawn_planes, view_cell in zip(self._pawn_planes, self._view_cell, strict=True)]
        self._to_act_cells, self._phase_cells, self._progress_cells = (
            slice(self.planes[name].start * game.num_cells,
                  self.planes[name].stop * game.num_cells)
            for name in ("to_act", "phase", "progress"))
        self._wall_changes = [self._wall_change_indices(player) for player in range(n)]
        # Per seat, (walls, supplies, layout planes) of the last layout built: the next one is
        # those planes and a few changed entries (only its values are ever reused: a position
        # with other walls or supplies gets its own, so results never depend on it).
        self._last_layout: list[tuple | None] = [None] * n
        # Each seat's key of its layout planes in a state's wall cache (made once: encode reads
        # it every ply).
        self._layout_keys = [(self, player) for player in range(n)]
        # The per-seat tables stacked [seat, ...], for encode_many's gathers over a batch.
        self._templates, self._view_cell, self._pawn_planes = (
            np.stack(tables) for tables in (self._templates, self._view_cell, self._pawn_planes))

    def _wall_planes(self, player: int, open_cells: np.ndarray, wall_status: np.ndarray):
        """The blocked-edge planes (``[..., 4, rows, cols]`` bool) and the anchor planes
        (``[..., 4, rows - 1, cols - 1]``: free V, free H, placed V, placed H) of ``player``'s
        view, from the board's open-direction bits ``open_cells`` (``[..., rows, cols]``) and
        ``wall_status`` (``[..., 2, anchors]``): the mirror is a slice, as anchors mirror with
        the cells (anchor ``(r, c)`` to ``(rows - r, c)``)."""
        rows_step, cols_step = self._mirror_steps[player]
        view_open = open_cells[..., None, ::rows_step, ::cols_step]
        blocked = (view_open & self._view_directions[player]) == 0
        anchors = wall_status.reshape(*wall_status.shape[:-2], 4, self.game.rows - 1,
                                      self.game.cols - 1)[..., ::rows_step, ::cols_step]
        return blocked, anchors

    def _wall_change_indices(self, player: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per wall index, where placing it changes ``player``'s layout planes, as indices
        into the flattened planes: the entries it sets to 1 (its blocked edges and its
        placed anchor) and those it sets to 0 (the free anchors it conflicts with)."""
        game, cells = self.game, self.game.num_cells
        rows_step, cols_step = self._mirror_steps[player]
        directions = self._view_directions[player].reshape(-1).tolist()
        view_cell = self._view_cell[player]
        anchor_rows, anchor_cols = game.rows - 1, game.cols - 1

        def anchor_entry(status_row: int, u: int) -> int:
            orientation, anchor = divmod(u, game.anchors_per_orientation)
            r, c = divmod(anchor, anchor_cols)
            r = r if rows_step == 1 else anchor_rows - 1 - r
            c = c if cols_step == 1 else anchor_cols - 1 - c
            plane = self.planes["wall_free"].start + 2 * status_row + orientation
            return plane * cells + (r + 1) * game.cols + c + 1

        blocked = self.planes["blocked"].start
        return [(np.array([(blocked + directions.index(d)) * cells + view_cell[x]
                           for x, d in game.wall_edges[w]] + [anchor_entry(1, w)]),
                 np.array([anchor_entry(0, u) for u in game.wall_conflicts[w]]))
                for w in range(2 * game.anchors_per_orientation)]

    def _layout_planes(self, state, player: int) -> np.ndarray:
        """Goals, blocked edges, anchors, supplies, and to-act 1 and phase 0, the common case
        that :meth:`encode` corrects: they depend on the walls only (the supplies change with
        them), so they are built once per wall layout and seat and kept in the state's wall
        cache (do not modify); from the seat's last ones when those are few walls back."""
        key = self._layout_keys[player]
        planes = state.wall_cache.get(key)
        if planes is None:
            planes = self._planes_since_last(state, player)
            if planes is None:
                planes = self._build_layout_planes(state, player)
            state.wall_cache[key] = planes
            self._last_layout[player] = (state.walls[:], state.walls_left[:], planes)
        return planes

    def _build_layout_planes(self, state, player: int) -> np.ndarray:
        game = self.game
        planes = self._templates[player].copy()
        blocked, anchors = self._wall_planes(
            player, np.frombuffer(state.open, dtype=np.uint8).reshape(game.rows, game.cols),
            state.wall_status)
        planes[self.planes["blocked"]] = blocked
        planes[self.planes["wall_free"].start: self.planes["wall_placed"].stop, 1:, 1:] = \
            anchors
        supplies = state.walls_left
        planes[self.planes["walls_left"]] = np.array(
            [min(supplies[j] * self._supply_scale, 1.0) for j in self._supply_order[player]],
            dtype=np.float32)[:, None, None]
        planes[self.planes["to_act"]] = 1.0
        return planes

    def _planes_since_last(self, state, player: int) -> np.ndarray | None:
        """The layout planes of ``state`` from the last ones built for ``player``, when the
        state's walls are those walls and at most :data:`WALLS_TO_UPDATE` more (in a game, the
        walls placed since the seat's last turn): each wall changes a few entries (its edges
        and anchors), and the supplies that differ their planes; ``None`` otherwise."""
        last = self._last_layout[player]
        if last is None:
            return None
        walls, supplies, before = last
        if not 0 <= len(state.walls) - len(walls) <= WALLS_TO_UPDATE \
                or state.walls[:len(walls)] != walls:
            return None
        planes = before.copy()
        flat = planes.reshape(-1)
        for w in state.walls[len(walls):]:
            set_to_one, set_to_zero = self._wall_changes[player][w]
            flat[set_to_one] = 1.0
            flat[set_to_zero] = 0.0
        cells, start = self.game.num_cells, self.planes["walls_left"].start
        for slot, j in enumerate(self._supply_order[player]):
            if state.walls_left[j] != supplies[j]:
                flat[(start + slot) * cells:(start + slot + 1) * cells] = min(
                    state.walls_left[j] * self._supply_scale, 1.0)
        return planes

    def _scalars(self, state, player: int) -> list[float]:
        """Values of the constant planes: supplies (relative seats), to-act, phase, progress."""
        walls_left = state.walls_left
        scalars = [walls_left[j] * self._supply_scale for j in self._supply_order[player]]
        scalars.append(state.current_player() == player)
        scalars.append(state.phase)
        scalars.append(state.turn / self.game.max_turns)
        return scalars

    def encode(self, state, player: int) -> np.ndarray:
        planes = self._layout_planes(state, player).copy()
        flat = planes.reshape(-1)
        for index, x in zip(self._pawn_index[player], state.pawns, strict=True):
            flat[index[x]] = 1.0
        if state.current_player() != player:
            flat[self._to_act_cells] = 0.0
        if state.phase:
            flat[self._phase_cells] = 1.0
        flat[self._progress_cells] = min(state.turn / self.game.max_turns, 1.0)
        return planes

    def encode_many(self, states, players) -> np.ndarray:
        """:meth:`encode` of several positions at once, ``[B, C, H, W]``, without the wall
        cache: a search batch's leaves mostly bring new wall layouts, whose planes
        :meth:`_layout_planes` would build one by one. The positions of each observing seat
        share its tables, so each plane group is one operation per seat."""
        game, n = self.game, self.game.num_players
        players = np.asarray(players, dtype=np.int64)
        batch, cells = len(states), game.num_cells
        planes = self._templates[players]  # goals in place, the rest zero
        flat = planes.reshape(batch, planes.shape[1], cells)
        opened = np.frombuffer(b"".join(bytes(s.open) for s in states),
                               dtype=np.uint8).reshape(batch, game.rows, game.cols)
        walls = np.stack([s.wall_status for s in states])  # [B, free/placed, anchors]
        pawns = np.array([s.pawns for s in states], dtype=np.int64)
        anchor_planes = slice(self.planes["wall_free"].start, self.planes["wall_placed"].stop)
        for player, rows in seat_groups(players):
            blocked, anchors = self._wall_planes(player, opened[rows], walls[rows])
            planes[rows, self.planes["blocked"]] = blocked
            planes[rows, anchor_planes, 1:, 1:] = anchors
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

