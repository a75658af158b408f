"""Barricade observation planes from one player's point of view.

The board (13 lines x 7 files) is seen from the observer's side: row 0 is the observer's own
Base line and its forward direction is increasing row. For South (player 0) row ``r`` is line
``r + 1``; for North (player 1) the lines are mirrored, row ``r`` is line ``13 - r``. Files are
never mirrored (the board is symmetric under the line mirror alone), so Scout and Guard indices
keep their meaning. Each plane is ``13 x 7``; "scalar" planes repeat one number everywhere.

| plane | content |
|---|---|
| 0, 1, 2 | own Scout 0 / 1 / 2 (1 on its station, in play or placed) |
| 3 | own placed Scouts |
| 4 | opponent Scouts in play |
| 5 | opponent placed Scouts |
| 6, 7 | own Guard 0 / 1 on the board |
| 8 | opponent Guards on the board |
| 9 | stations (1 on every Base, Outer and Cross Station) |
| 10 | own Rocking Horse Sweep: count / sweep_turns on its two stations |
| 11 | opponent Rocking Horse Sweep, likewise |
| 12 | first half-move was a Scout step: 1 on the station it left |
| 13 | first half-move was a Scout step: 1 on the station it reached |
| 14 | scalar: 1 if the observer is to act |
| 15 | scalar: 1 in the second half-move of a turn |
| 16 | scalar: 1 if the first half-move was a Guard half-move |
| 17, 18 | scalar: own Guard 0 / 1 in the tray |
| 19, 20 | scalar: own Guard 0 / 1 forfeited |
| 21 | scalar: opponent Guards in the tray / 2 |
| 22 | scalar: opponent Guards forfeited / 2 |
| 23, 24, 25 | scalar: own Scout 0 / 1 / 2 forfeited |
| 26 | scalar: opponent Scouts forfeited / 3 |
| 27 | scalar: own placed Scouts / 3 |
| 28 | scalar: opponent placed Scouts / 3 |
| 29 | scalar: turns played / max_turns |
| 30 | scalar: Variation III Guard forfeit of this turn made |
| 31 | scalar: 1 if the player to act must forfeit (its mask holds only forfeits) |
| 32 .. 35 | scalar: variant one-hot (standard, capture, intercept, breakthrough) |

Actions in the view: a Scout step ``d`` 0 (line+1) / 1 (line-1) means forward / backward for
South but backward / forward for North, so North's view swaps them; Guard targets are mirrored
with the lines. :meth:`Encoder.view_to_board_actions` gives the permutation.
"""

from __future__ import annotations

import numpy as np

from envs.barricade.engine import (
    CROSS_CELLS,
    DELTAS,
    FORFEIT_GUARD,
    GUARD_ACTIONS,
    LINES,
    NUM_ACTIONS,
    NUM_CROSS,
    OPP_BASE,
    OUT,
    STATION_KIND,
    TRAY,
    VARIANTS,
    Game,
    coords,
)

NUM_PLANES = 36


def _view_index(player: int) -> list[int]:
    """Grid cell -> flat index ``row * 7 + file - 1`` in ``player``'s view (-1: no station)."""
    index = [-1] * len(STATION_KIND)
    for x, kind in enumerate(STATION_KIND):
        if kind != "none":
            line, file = coords(x)
            row = line - 1 if player == 0 else LINES - line
            index[x] = row * 7 + file - 1
    return index


class Encoder:
    def __init__(self, game: Game):
        self.game = game
        self.shape = (NUM_PLANES, LINES, 7)
        self._index = [_view_index(0), _view_index(1)]
        stations = np.zeros(LINES * 7, dtype=np.float32)
        stations[[i for i in self._index[0] if i >= 0]] = 1.0
        self._stations = stations
        self._variant = VARIANTS.index(game.variant)
        self._perms = [np.arange(NUM_ACTIONS, dtype=np.int64), self._north_permutation()]

    def encode(self, state, player: int) -> np.ndarray:
        planes = np.zeros(self.shape, dtype=np.float32)
        flat = planes.reshape(NUM_PLANES, -1)
        index = self._index[player]
        me, opp = player, 1 - player
        for s in range(3):
            x = state.scouts[3 * me + s]
            if x >= 0:
                flat[s, index[x]] = 1.0
                if OPP_BASE[me][x]:
                    flat[3, index[x]] = 1.0
            x = state.scouts[3 * opp + s]
            if x >= 0:
                flat[5 if OPP_BASE[opp][x] else 4, index[x]] = 1.0
        for g in range(2):
            x = state.guards[2 * me + g]
            if x >= 0:
                flat[6 + g, index[x]] = 1.0
            x = state.guards[2 * opp + g]
            if x >= 0:
                flat[8, index[x]] = 1.0
        flat[9] = self._stations
        for plane, p in ((10, me), (11, opp)):
            sweep = state.sweep[p]
            if sweep is not None:
                value = min(sweep[3] / self.game.sweep_turns, 1.0)
                flat[plane, index[sweep[1]]] = value
                flat[plane, index[sweep[2]]] = value
        first = state.first
        if first is not None and first[0] == "scout":
            flat[12, index[first[2]]] = 1.0
            flat[13, index[first[2] + DELTAS[first[3]]]] = 1.0
        acting = state.current_player() == player
        mask = state.legal_actions_mask()
        scalars = [
            (14, float(acting)),
            (15, float(state.half)),
            (16, float(first is not None and first[0] == "guard")),
            (21, sum(x == TRAY for x in state.guards[2 * opp: 2 * opp + 2]) / 2),
            (22, sum(x == OUT for x in state.guards[2 * opp: 2 * opp + 2]) / 2),
            (26, sum(x == OUT for x in state.scouts[3 * opp: 3 * opp + 3]) / 3),
            (27, len(state.placed[me]) / 3),
            (28, len(state.placed[opp]) / 3),
            (29, min(state.turn / self.game.max_turns, 1.0)),
            (30, float(state.forfeit_made)),
            (31, float(bool(mask[FORFEIT_GUARD:].any()))),
            (32 + self._variant, 1.0),
        ]
        for g in range(2):
            scalars.append((17 + g, float(state.guards[2 * me + g] == TRAY)))
            scalars.append((19 + g, float(state.guards[2 * me + g] == OUT)))
        for s in range(3):
            scalars.append((23 + s, float(state.scouts[3 * me + s] == OUT)))
        for plane, value in scalars:
            if value:
                flat[plane] = value
        return planes

    def view_to_board_actions(self, player: int) -> np.ndarray:
        """Permutation ``p`` with ``board_action = p[view_action]`` for ``player``'s view."""
        return self._perms[player]

    @staticmethod
    def _north_permutation() -> np.ndarray:
        perm = np.arange(NUM_ACTIONS, dtype=np.int64)
        for s in range(3):
            perm[4 * s], perm[4 * s + 1] = 4 * s + 1, 4 * s
        rows = len(CROSS_CELLS) // 7
        for g in range(2):
            for i in range(NUM_CROSS):
                row, col = divmod(i, 7)
                perm[GUARD_ACTIONS + NUM_CROSS * g + i] = (
                    GUARD_ACTIONS + NUM_CROSS * g + 7 * (rows - 1 - row) + col
                )
        return perm
