"""Nobles observation: a flat float32 vector from one player's point of view.

A track game wants positions along the track, not a picture, so the observation is 1-D. Seats
are rotated so the observer is slot 0 and slot ``j`` is player ``(observer + j) mod n``; every
main-track place is written in the observer's own progress frame (index ``t - 1`` for the tile
the observer reaches at progress ``t``), so "two tiles ahead of my Guard" looks the same from
every seat. Actions are in the mover's own progress already, so the action view is the identity.

Layout (``n`` players, ``SLOT = 276`` features per slot, total ``n * 276 + 11 + n + 1``):

per slot ``j`` (offset ``j * 276``):

- ``[0, 208)`` Guards on the main track, tile-major thermometer: ``4 * (t - 1) + c`` is 1 when
  at least ``c + 1`` of the slot's Guards stand on observer-frame tile ``t`` (c = 0..3), so
  group sizes, which decide blockades, are explicit.
- ``[208, 260)`` the slot's Noble on observer-frame tile ``t`` (one-hot, index ``208 + t - 1``).
- ``260`` Guards in the Yard / 4; ``261..265`` Guards on Home path tiles 1..5 / 4;
  ``266`` Guards at Home / 4.
- ``267`` Noble in the Yard; ``268..272`` Noble on Home path tiles 1..5; ``273`` Noble at Home.
- ``274`` the slot's combat score squashed: ``0.5 + 0.5 * tanh(score / 100)``.
- ``275`` its lead over the observer, squashed the same way (0.5 for slot 0).

global (offset ``n * 276``):

- ``11`` features: the current roll one-hot (2..12); all zero at a chance node or the end.
- ``n`` features: the slot of the player to move (one-hot; all zero at the end).
- ``1`` feature: ``turn / max_turns``.
"""

from __future__ import annotations

import math

import numpy as np

from envs.nobles.engine import (
    GUARDS_PER_PLAYER,
    HOME,
    HOME_PATH_START,
    TRACK_TILES,
    Game,
    State,
    pieces_key,
)

SLOT = 4 * TRACK_TILES + TRACK_TILES + 14 + 2
_NOBLE_TRACK = 4 * TRACK_TILES
_GUARD_OFF = _NOBLE_TRACK + TRACK_TILES  # Yard, Home path 1..5, Home
_NOBLE_OFF = _GUARD_OFF + 7
_SCORE = _NOBLE_OFF + 7
SCORE_SCALE = 100.0
KEPT_POSITIONS = 1 << 9
"""Positions whose per-slot features an encoder keeps per observer (then it starts afresh):
most leaves of a search share their pieces with a sibling a roll apart."""


class Encoder:
    def __init__(self, game: Game):
        self.game = game
        n = game.num_players
        self.shape = (n * SLOT + 11 + n + 1,)
        self._global = n * SLOT
        # _guard_base[observer][other][p]: index of the thermometer's first feature (track) or
        # of the count feature (Yard, Home path, Home) for other's Guards at progress p.
        # _noble_index likewise for the Noble.
        self._guard_base = np.zeros((n, n, HOME + 1), dtype=np.int64)
        self._noble_index = np.zeros((n, n, HOME + 1), dtype=np.int64)
        for me in range(n):
            frame = {tile: t for t, tile in enumerate(game.tiles[me]) if tile}
            for j in range(n):
                other = (me + j) % n
                base = j * SLOT
                for p in range(HOME + 1):
                    if 1 <= p <= TRACK_TILES:
                        t = frame[game.tiles[other][p]]
                        self._guard_base[me, other, p] = base + 4 * (t - 1)
                        self._noble_index[me, other, p] = base + _NOBLE_TRACK + t - 1
                    else:
                        off = 0 if p == 0 else p - HOME_PATH_START + 1
                        self._guard_base[me, other, p] = base + _GUARD_OFF + off
                        self._noble_index[me, other, p] = base + _NOBLE_OFF + off
        # Nested lists: indexing them with Python ints is faster than numpy scalar indexing.
        self._guard_base = self._guard_base.tolist()
        self._noble_index = self._noble_index.tolist()
        self._identity = np.arange(game.num_actions, dtype=np.int64)
        self._kept: dict[tuple, np.ndarray] = {}

    def encode(self, state: State, player: int) -> np.ndarray:
        n, g = self.game.num_players, self._global
        obs = np.zeros(self.shape, dtype=np.float32)
        key = (player, pieces_key(state))
        slots = self._kept.get(key)
        if slots is None:
            self._write_slots(obs, state, player)
            if len(self._kept) >= KEPT_POSITIONS:
                self._kept.clear()
            self._kept[key] = obs[:g].copy()
        else:
            obs[:g] = slots
        if not state.is_terminal():
            if state.roll is not None:
                obs[g + state.roll - 2] = 1.0
            obs[g + 11 + (state.to_move - player) % n] = 1.0
        obs[g + 11 + n] = state.turn / self.game.max_turns
        return obs

    def _write_slots(self, obs: np.ndarray, state: State, player: int) -> None:
        """The per-slot features (``obs[:n * SLOT]``, zero before): they depend on the pieces
        and scores only, so :meth:`encode` keeps them per observer and :func:`pieces_key`."""
        n = self.game.num_players
        guard_base = self._guard_base[player]
        noble_index = self._noble_index[player]
        my_score = state.scores[player]
        for other in range(n):
            obs[noble_index[other][state.nobles[other]]] = 1.0
            row = state.guards[other]
            for p in set(row):
                count = row.count(p)
                base = guard_base[other][p]
                if 1 <= p <= TRACK_TILES:
                    obs[base:base + count] = 1.0
                else:
                    obs[base] = count / GUARDS_PER_PLAYER
            j = (other - player) % n
            score = state.scores[other]
            obs[j * SLOT + _SCORE] = 0.5 + 0.5 * math.tanh(score / SCORE_SCALE)
            obs[j * SLOT + _SCORE + 1] = 0.5 + 0.5 * math.tanh((score - my_score) / SCORE_SCALE)

    def view_to_board_actions(self, player: int) -> np.ndarray:
        """The identity: actions are numbered by the mover's own progress in every seat."""
        return self._identity.copy()
