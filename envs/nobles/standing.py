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

import functools
import math

from envs.core import kept
from envs.nobles.engine import (
    CASTLES,
    ENTERING_TILES,
    GUARDS_PER_PLAYER,
    HOME,
    TRACK_TILES,
    pieces_key,
    shared_tile,
)

ROLL_WAYS = [0, 0] + [6 - abs(v - 7) for v in range(2, 13)]
"""Ways, of 36, that 2d6 sum to 0..12 (whole numbers: a sum of them does not depend on its
order, as a sum of floats would)."""
HOME_SHARE = 0.5
"""Worth of a piece's progress, as a share of its Home bonus at full progress."""
BLOCKADE_REACH = 12
"""Opponent pieces this many steps or fewer behind a blockade are what it is worth to hold."""
MEMO_POSITIONS = 1 << 12
"""Positions whose standings, leads and values a :class:`Standing` keeps (then it starts
afresh)."""


@functools.lru_cache(maxsize=4096)
def reach_ways(starts: frozenset[int]) -> tuple[int, ...]:
    """For each progress 0..52 of a player's own track, the ways of 36 that its next roll
    takes one of its movers at ``starts`` exactly there (few sets of starts recur, as a move
    changes one player's pieces only: cached)."""
    ways = [0] * (TRACK_TILES + 1)
    for start in starts:
        for target in range(start + 2, min(start + 12, TRACK_TILES) + 1):
            ways[target] += ROLL_WAYS[target - start]
    return tuple(ways)


@functools.lru_cache(maxsize=4096)
def player_reach(guards: tuple[int, ...], noble: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:meth:`Standing.reach` of one player with these Guards (a sorted row) and Noble: a move
    changes one player's pieces, so the others' recur from position to position (cached)."""
    distinct = set(guards)
    groups = frozenset(p for p in distinct if guards.count(p) == GUARDS_PER_PLAYER)
    if noble > 0:
        distinct.add(noble)
    return reach_ways(frozenset(distinct)), reach_ways(groups)


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
        # tiles[q][p]: absolute tile of q's progress p (0 off the main track); frames[q][r][p]:
        # r's progress of that tile
        self.tiles = game.tiles
        self.frames = game.frames
        # capturable[q][p]: a piece of q at progress p can be captured (the main track, off
        # Castles and entering tiles)
        self.capturable = tuple(tuple(bool(tile) and not shared_tile(tile) for tile in row)
                                for row in game.tiles)
        # blockading[q][p]: two Guards of q at progress p hold opponents up (off Castles)
        self.blockading = tuple(tuple(bool(tile) and tile not in CASTLES for tile in row)
                                for row in game.tiles)
        self.entering = tuple(ENTERING_TILES[seat] for seat in self.seats)
        self.opponents = tuple(tuple(q for q in range(self.n) if q != p) for p in range(self.n))
        self.noble_home_share = HOME_SHARE * self.scoring["noble_home"]
        self.guard_home_share = HOME_SHARE * self.scoring["guard_home"]
        self._memo: dict[tuple, tuple] = {}

    def reach(self, state) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
        """Per player, :func:`reach_ways` of the distinct progresses its movers start from (its
        Guards', the Yard's 0 included, and its Noble's once on the board), and of those
        holding a group of all four Guards (the one mover a blockade cannot stop)."""
        movers, groups = [], []
        for row, noble in zip(state.guards, state.nobles, strict=True):
            ways, group_ways = player_reach(row, noble)
            movers.append(ways)
            groups.append(group_ways)
        return movers, groups

    def standings(self, state) -> list[float]:
        """Every player's standing (the module's docstring says what it counts)."""
        return list(self._kept(state)[0])

    def _kept(self, state) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        """The standings, :meth:`leads` and values (``tanh(lead / scale)``) of a position,
        counted once per position (pieces and scores): a search asks for a leaf's values and
        for its ``standing`` input feature, and its leaves a roll apart share them."""
        return kept(self._memo, pieces_key(state), lambda: self._count(state), MEMO_POSITIONS)

    def _count(self, state) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        standings = self._standings(state)
        best = max(standings)
        first = standings.index(best)
        second = max(standings[:first] + standings[first + 1:])  # the best of the others
        leads = [standing - (second if p == first else best)
                 for p, standing in enumerate(standings)]
        return (tuple(standings), tuple(leads),
                tuple(math.tanh(lead / self.scale) for lead in leads))

    def _standings(self, state) -> list[float]:
        # One pass, the capture risk and blockade worth written inline: this runs for every new
        # position of a search or rollout, and a method call per piece and opponent cost 1.2x
        # (2 seats) to 1.3x (4) its time. Risk: the chance that some opponent's next roll lands
        # a mover (for a group of Guards, a group of four) exactly on the piece. The float
        # operations are those of one piece at a time, in the same order (same bits).
        movers, groups = self.reach(state)
        guards, nobles = state.guards, state.nobles
        noble_captured = self.scoring["noble_captured"]
        guard_captured = self.scoring["guard_captured"]
        penalty = self.penalty
        values = []
        for player in range(self.n):
            value = float(state.scores[player])
            frame = self.frames[player]
            capturable = self.capturable[player]
            opponents = self.opponents[player]
            noble = nobles[player]
            if noble < HOME:
                worth = self.noble_home_share * noble / HOME
                value += worth
                if noble and capturable[noble]:
                    survive = 1.0
                    for q in opponents:
                        survive *= 1.0 - movers[q][frame[q][noble]] / 36
                    value -= (1.0 - survive) * (worth + noble_captured)
            row = guards[player]
            for p in set(row):
                if p == HOME or p == 0:
                    continue
                size = row.count(p)
                worth = self.guard_home_share * p / HOME
                value += size * worth
                if capturable[p]:
                    ways = groups if size >= 2 else movers
                    survive = 1.0
                    for q in opponents:
                        survive *= 1.0 - ways[q][frame[q][p]] / 36
                    value -= (1.0 - survive) * size * (worth + guard_captured)
                if size >= 2 and self.blockading[player][p]:
                    # what the blockade costs the opponents whose pieces it holds up
                    tile = self.tiles[player][p]
                    held = 0.0
                    for q in opponents:
                        if tile == self.entering[q]:
                            continue
                        at = frame[q][p]
                        behind = 0
                        for g in guards[q]:
                            if 0 < g < at and at - g <= BLOCKADE_REACH:
                                behind += 1
                        if 0 < nobles[q] < at and at - nobles[q] <= BLOCKADE_REACH:
                            behind += 2  # a blocked Noble counts double
                        held += penalty * behind
                    value += held
            values.append(value)
        return values

    def leads(self, state) -> list[float]:
        """Every player's standing minus the best other player's."""
        return list(self._kept(state)[1])

    def values(self, state) -> list[float]:
        """Every player's ``tanh(lead / scale)``, finished game or not."""
        return list(self._kept(state)[2])

    def evaluate(self, state) -> list[float]:
        """Every player's prospects in [-1, 1]: the returns of a finished game, else
        :meth:`values`."""
        if state.is_terminal():
            return state.returns().tolist()
        return self.values(state)


@functools.lru_cache(maxsize=16)
def standing_of(game) -> Standing:
    """One :class:`Standing` per game (its tables are built once)."""
    return Standing(game)
