"""Nobles' derived input features (``model.features``), appended to its encoder's vector.

- ``capture_odds``: per relative seat, one feature per main-track tile of the observer's frame
  (``52`` each, ``n * 52`` in all, slot ``j`` at offset ``j * 52``, tile ``t`` at ``t - 1``):
  the chance that a lone piece of that seat standing on the tile is captured before that seat
  moves again, if each other player gets one roll and takes any mover that lands there. A
  player's movers are its pieces in the Yard or on the main track; one roll of 2d6 brings a mover
  ``d`` steps on with chance ``(6 - |d - 7|) / 36``, and the distances from one player's distinct
  starts to a tile differ, so that player's chance of landing there is their sum. Castles and
  entering tiles, where nothing is captured, are 0. Blockades on the way and groups (which only
  a moving group of four can capture) are left out, as in the heuristic's capture risk.

  The danger of a tile is what the heuristic weighs every move by, and the game turns on it with
  three opponents: a piece left where the next players can hit it feeds them points. The raw
  observation holds every piece, but adding up 2d6 odds over each opponent's movers, through
  four rotated frames, is arithmetic a small network learns slowly; here it is an input (as
  Blockade's ``goal_steps`` give the walking distances).

- ``standing``: per relative seat, the game's own judgement of the position
  (:mod:`envs.nobles.standing`, what the heuristic plays by and the search's ``evaluate`` hook
  returns): ``n`` values ``tanh(lead / scale)``, each seat's standing lead over its best
  opponent, then ``n`` values ``standing / scale``, each seat's estimated final score (the
  level, which tells how far the game has run). Slot ``j`` is the seat ``j`` places after the
  observer.

  The network's value otherwise learns from outcomes alone what the standing already knows,
  and mixed into the search's leaves a value that knows less than the standing costs the
  search more than it adds (docs/experiments/strength.md). With the standing as an input the
  value head reads it, and has only the correction to learn.

The wrappers keep the encoder contract (``shape``, ``encode``, ``view_to_board_actions``).
"""

from __future__ import annotations

import numpy as np

from envs.core import kept
from envs.nobles.encoder import KEPT_POSITIONS
from envs.nobles.engine import ROLL_PROBABILITIES, TRACK_TILES, pieces_key, shared_tile
from envs.nobles.standing import standing_of

ROLL_ODDS = np.array([dict(ROLL_PROBABILITIES).get(d, 0.0) for d in range(TRACK_TILES + 1)])
"""Chance of moving exactly ``d`` steps with one roll, ``d`` = 0..52."""


class CaptureOdds:
    """A Nobles encoder with the per-seat capture chance of every main-track tile appended."""

    def __init__(self, game, encoder):
        self.game = game
        self.encoder = encoder
        n = game.num_players
        self.shape = (encoder.shape[0] + n * TRACK_TILES,)
        # _landing[q, p, i]: chance that player q's mover at progress p (0 = Yard .. 52) ends
        # its next move on absolute tile i + 1 (only moves that stay on the main track).
        self._landing = np.zeros((n, TRACK_TILES + 1, TRACK_TILES))
        for q in range(n):
            for p in range(TRACK_TILES + 1):
                for target in range(max(p, 1), TRACK_TILES + 1):
                    tile = game.tiles[q][target]
                    self._landing[q, p, tile - 1] = ROLL_ODDS[target - p]
        safe = np.array([shared_tile(tile) for tile in range(1, TRACK_TILES + 1)])
        self._landing[:, :, safe] = 0.0
        # _view[observer]: [slot, frame tile] -> flat index into the [player, absolute tile]
        # danger table, so one gather rotates seats and track into the observer's frame.
        seats = np.arange(n)
        players = (seats[:, None] + seats[None, :]) % n  # [observer, slot] -> player
        self._view = np.stack([
            (players[me][:, None] * TRACK_TILES
             + np.array(game.tiles[me][1:TRACK_TILES + 1]) - 1).ravel()
            for me in range(n)])
        self._kept: dict[tuple, np.ndarray] = {}

    def danger(self, state) -> np.ndarray:
        """``[num_players, 52]``: each player's capture chance on each absolute tile."""
        starts = np.zeros(self._landing.shape[:2])
        for q, (noble, guards) in enumerate(zip(state.nobles, state.guards, strict=True)):
            for p in (noble, *guards):
                if p <= TRACK_TILES:
                    starts[q, p] = 1.0
        # A player's odds add up to at most 24/36 (five movers), so every miss is above 0 and
        # the others' product is the whole product over one's own.
        miss = 1.0 - np.einsum("qp,qpt->qt", starts, self._landing)
        return 1.0 - miss.prod(axis=0, keepdims=True) / miss

    def encode(self, state, player: int) -> np.ndarray:
        odds = kept(self._kept, (player, pieces_key(state)),
                    lambda: self.danger(state).ravel()[self._view[player]].astype(np.float32),
                    KEPT_POSITIONS)
        return np.concatenate([self.encoder.encode(state, player), odds])

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return self.encoder.view_to_board_actions(player)


class StandingFeatures:
    """A Nobles encoder with every seat's standing lead and standing appended (relative
    seats)."""

    def __init__(self, game, encoder):
        self.game = game
        self.encoder = encoder
        self.standing = standing_of(game)
        n = game.num_players
        self.shape = (encoder.shape[0] + 2 * n,)
        self._view = [[(player + j) % n for j in range(n)] for player in range(n)]
        self._kept: dict[tuple, np.ndarray] = {}

    def values(self, state, player: int) -> np.ndarray:
        """``[2n]``: ``tanh(lead / scale)`` then ``standing / scale`` of each relative seat."""
        standing, scale = self.standing, self.standing.scale
        values, standings = standing.values(state), standing.standings(state)  # one count, kept
        seats = self._view[player]
        return np.array([values[p] for p in seats] + [standings[p] / scale for p in seats],
                        dtype=np.float32)

    def encode(self, state, player: int) -> np.ndarray:
        values = kept(self._kept, (player, pieces_key(state)), lambda: self.values(state, player),
                      KEPT_POSITIONS)
        return np.concatenate([self.encoder.encode(state, player), values])

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return self.encoder.view_to_board_actions(player)


FEATURES = {"capture_odds": CaptureOdds, "standing": StandingFeatures}
