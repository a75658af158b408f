"""Blockade's derived input planes (``model.features``), appended to its encoder's planes.

- ``goal_steps`` (what ``auto`` stands for): two planes per relative seat, one per goal square
  of that seat (the outer one, then the inner one), with every cell's walking distance to it
  (single steps around walls, pawns ignored) divided by ``rows + cols`` (25 steps on the
  default board) and capped at 1, so one step is worth 0.04; cells that far or walled off are
  1. One plane per goal square, not one to the nearer goal, because under ``win_condition:
  both`` the second pawn must head for the square the first one does not hold. A race on a
  walled board is a shortest-path problem that a small conv net cannot solve from local planes
  in a few layers; these maps make "which move brings my pawn closer" a local question: the
  policy head compares the plane at each move's destination. They depend only on the walls, so
  they are cached per wall layout.
  The scale matters: divided by the number of cells (154) instead, a step was worth 0.0065 and
  a network trained from the teacher's games alone followed the maps far less well (67-73%
  against random, against 82%; docs/experiments/alphazero_blockade.md), so that variant is gone.

- ``race_steps``: one constant plane per relative seat with that seat's race distance (steps
  still needed to meet the win condition, :func:`envs.blockade.distances.race_distances`) over
  the same ``rows + cols``, capped at 1. The race lead decides most positions of the published
  rules, and it is a minimum over pawns and goals of the ``goal_steps`` maps read at the pawns'
  cells: a global quantity that a small conv net's value head would have to assemble across the
  board, given here as an input (as KataGo gives its net global features).

The wrappers keep the encoder contract (``shape``, ``encode``, ``view_to_board_actions``), so
search, self-play, symmetries and checkpoints use it like the game's own encoder.
"""

from __future__ import annotations

import numpy as np

from envs.blockade.distances import (
    goal_distances,
    goal_distances_of_states,
    race_distances_of_states,
)
from envs.blockade.encoder import FLIPS, board_cells_in_view, seat_groups


class DistancePlanes:
    """A Blockade encoder with two goal-distance planes per relative seat appended: walking
    steps to each goal square divided by ``horizon`` and capped at 1."""

    def __init__(self, game, encoder, horizon: int):
        self.game = game
        self.encoder = encoder
        self.horizon = horizon
        c, h, w = encoder.shape
        self.shape = (c + 2 * game.num_players, h, w)
        self.planes = encoder.planes  # the game's planes come first, unchanged
        self.action_layout = encoder.action_layout
        self._flips = [FLIPS[corner] for corner in game.corners]
        # For encode_many: [seat, view cell] -> board cell, [seat, relative seat] -> seat.
        self._board_cell = board_cells_in_view(game)
        n = game.num_players
        self._seat_order = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n

    def _board_maps(self, state) -> np.ndarray:
        """[num_players, 2, rows, cols] scaled distance maps in board coordinates, kept in the
        state's wall cache beside the distances they come from."""
        maps = state.wall_cache.get(self)
        if maps is None:
            game = self.game
            maps = self._scaled(goal_distances(game, state).reshape(game.num_players, 2,
                                                                    game.rows, game.cols))
            state.wall_cache[self] = maps
        return maps

    def _view_maps(self, state, player: int) -> np.ndarray:
        """The maps in ``player``'s view (its seat first, board flipped to its corner), kept in
        the wall cache per seat: the positions of a search subtree share walls and mover."""
        key = (self, player)
        maps = state.wall_cache.get(key)
        if maps is None:
            n, game = self.game.num_players, self.game
            maps = self._board_maps(state)[[(player + i) % n for i in range(n)]].reshape(
                2 * n, game.rows, game.cols)
            flip_rows, flip_cols = self._flips[player]
            maps = np.ascontiguousarray(maps[:, ::-1 if flip_rows else 1,
                                             ::-1 if flip_cols else 1])
            state.wall_cache[key] = maps
        return maps

    def _scaled(self, steps: np.ndarray) -> np.ndarray:
        return (np.minimum(steps, self.horizon) * np.float32(1.0 / self.horizon)).astype(
            np.float32)

    def encode(self, state, player: int) -> np.ndarray:
        return np.concatenate([self.encoder.encode(state, player), self._view_maps(state, player)])

    def encode_many(self, states, players) -> np.ndarray:
        """:meth:`encode` of several positions at once: ``[B, C, H, W]``; the goal distances of
        the batch's new wall layouts come from one search, and each seat's view of them from
        one ``np.take``."""
        game, n = self.game, self.game.num_players
        players = np.asarray(players, dtype=np.int64)
        dist = goal_distances_of_states(game, states)  # [B, seat, goal, cell]
        view = np.empty_like(dist)
        for player, rows in seat_groups(players):
            view[rows] = np.take(dist[rows][:, self._seat_order[player]],
                                 self._board_cell[player], axis=3)
        maps = self._scaled(view)
        return np.concatenate([self.encoder.encode_many(states, players),
                               maps.reshape(len(states), 2 * n, game.rows, game.cols)], axis=1)

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return self.encoder.view_to_board_actions(player)


class RacePlanes:
    """An encoder with one constant plane per relative seat appended: that seat's race distance
    divided by ``horizon`` and capped at 1."""

    def __init__(self, game, encoder, horizon: int):
        self.game, self.encoder, self.horizon = game, encoder, horizon
        c, h, w = encoder.shape
        self.shape = (c + game.num_players, h, w)
        self.planes = encoder.planes
        self.action_layout = encoder.action_layout
        n = game.num_players
        self._seat_order = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n

    def _planes(self, states, players: np.ndarray) -> np.ndarray:
        race = race_distances_of_states(states)  # [B, seat]
        view = np.take_along_axis(race, self._seat_order[players], axis=1)
        scaled = np.minimum(view, self.horizon).astype(np.float32) / np.float32(self.horizon)
        _, h, w = self.shape
        return np.broadcast_to(scaled[:, :, None, None], (len(states), len(scaled[0]), h, w))

    def encode(self, state, player: int) -> np.ndarray:
        return np.concatenate([self.encoder.encode(state, player),
                               self._planes([state], np.array([player]))[0]])

    def encode_many(self, states, players) -> np.ndarray:
        players = np.asarray(players, dtype=np.int64)
        return np.concatenate([self.encoder.encode_many(states, players),
                               self._planes(states, players)], axis=1)

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return self.encoder.view_to_board_actions(player)


FEATURES = {
    "goal_steps": lambda game, encoder: DistancePlanes(game, encoder, game.rows + game.cols),
    "race_steps": lambda game, encoder: RacePlanes(game, encoder, game.rows + game.cols),
}
"""Blockade's derived planes by name: ``(game, encoder) -> encoder`` with them appended."""
