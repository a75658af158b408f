"""Nobles' standing: an estimate of the combat score each player will end with, the game's own
judgement of a position (the heuristic plays by it, plain MCTS scores its rollouts with it, and
network search may mix it into its leaf values through the ``evaluate`` hook).

A player's standing is its score now, plus the worth of how far its pieces have come (Home is
worth ``noble_home`` / ``guard_home`` points, a piece halfway there about half of that, as the
race may end first), plus the blockades it holds in front of opponents' pieces, minus what it
expects to lose to captures before its next turn: for each of its pieces on a capturable tile,
the chance that some opponent's next roll lands a mover exactly there (2d6 odds over the
distinct distances of that opponent's movers) times the piece's worth and the opponent's
capture bonus. Groups of two or more Guards can only be captured by a group of four.
"""

from __future__ import annotations

import math

from envs.nobles.engine import (
    CASTLES,
    ENTERING_TILES,
    GUARDS_PER_PLAYER,
    HOME,
    progress_of,
    shared_tile,
)

ROLL_ODDS = [0.0, 0.0] + [(6 - abs(v - 7)) / 36 for v in range(2, 13)]
"""Chance of a 2d6 sum of 0..12."""
HOME_SHARE = 0.5
"""Worth of a piece's progress, as a share of its Home bonus at full progress."""
BLOCKADE_REACH = 12
"""Opponent pieces this many steps or fewer behind a blockade are what it is worth to hold."""


class Standing:
    """The standings of one ``Game``'s positions; :meth:`evaluate` turns them into values."""

    def __init__(self, game):
        self.game = game
        self.n = game.num_players
        self.seats = game.seats
        self.scoring = game.scoring
        self.penalty = -game.scoring["blockade_step"]
        self.scale = max(30.0, 0.6 * max(game.scoring["noble_home"],
                                          game.scoring["noble_captured"]))
        # tiles[q][p]: absolute tile of q's progress p (0 off the main track).
        self.tiles = game.tiles

    def _noble_worth(self, progress: int) -> float:
        return HOME_SHARE * self.scoring["noble_home"] * progress / HOME

    def _guard_worth(self, progress: int) -> float:
        return HOME_SHARE * self.scoring["guard_home"] * progress / HOME

    def _reach_odds(self, state, attacker: int, tile: int, groups_only: bool) -> float:
        """Chance that ``attacker``'s next roll lets one of its movers end exactly on ``tile``
        (``groups_only``: only a group of four Guards, the one mover a blockade cannot stop)."""
        target = progress_of(self.seats[attacker], tile)
        starts = set()
        row = state.guards[attacker]
        if groups_only:
            starts.update(p for p in set(row) if row.count(p) == GUARDS_PER_PLAYER)
        else:
            starts.update(p for p in row if p < target)
            noble = state.nobles[attacker]
            if 0 < noble < target:
                starts.add(noble)
        distances = {target - p for p in starts if p < target}
        return sum(ROLL_ODDS[d] for d in distances if d <= 12)

    def _risk(self, state, player: int, progress: int, groups_only: bool) -> float:
        """Chance that the piece of ``player`` at ``progress`` is captured before its turn."""
        tile = self.tiles[player][progress]
        if tile == 0 or shared_tile(tile):
            return 0.0
        survive = 1.0
        for q in range(self.n):
            if q != player:
                survive *= 1.0 - self._reach_odds(state, q, tile, groups_only)
        return 1.0 - survive

    def _blockade_worth(self, state, player: int, progress: int, size: int) -> float:
        tile = self.tiles[player][progress]
        if size < 2 or tile == 0 or tile in CASTLES:
            return 0.0
        worth = 0.0
        for q in range(self.n):
            if q == player or tile == ENTERING_TILES[self.seats[q]]:
                continue
            at = progress_of(self.seats[q], tile)
            behind = [at - p for p in state.guards[q] if 0 < p < at]
            if 0 < state.nobles[q] < at:
                behind += [at - state.nobles[q]] * 2  # a blocked Noble counts double
            worth += self.penalty * sum(1 for d in behind if d <= BLOCKADE_REACH)
        return worth

    def standing(self, state, player: int) -> float:
        scoring = self.scoring
        value = float(state.scores[player])
        noble = state.nobles[player]
        if noble < HOME:
            value += self._noble_worth(noble)
            risk = self._risk(state, player, noble, groups_only=False) if noble else 0.0
            value -= risk * (self._noble_worth(noble) + scoring["noble_captured"])
        row = state.guards[player]
        for p in set(row):
            if p == HOME or p == 0:
                continue
            size = row.count(p)
            value += size * self._guard_worth(p)
            risk = self._risk(state, player, p, groups_only=size >= 2)
            value -= risk * size * (self._guard_worth(p) + scoring["guard_captured"])
            value += self._blockade_worth(state, player, p, size)
        return value

    def leads(self, state) -> list[float]:
        """Every player's standing minus the best other player's."""
        standings = [self.standing(state, p) for p in range(self.n)]
        return [standings[p] - max(standings[q] for q in range(self.n) if q != p)
                for p in range(self.n)]

    def evaluate(self, state) -> list[float]:
        """Every player's prospects in [-1, 1]: the returns of a finished game, else ``tanh``
        of its standing lead over its best opponent."""
        if state.is_terminal():
            return state.returns().tolist()
        return [math.tanh(lead / self.scale) for lead in self.leads(state)]
