"""Nobles heuristic: one-ply lookahead over the legal movers of the roll, judged by each
player's *standing* — an estimate of the combat score it will end with.

A player's standing is its score now, plus the worth of how far its pieces have come (Home is
worth ``noble_home`` / ``guard_home`` points, a piece halfway there about half of that, as the
race may end first), plus the blockades it holds in front of opponents' pieces, minus what it
expects to lose to captures before its next turn: for each of its pieces on a capturable tile,
the chance that some opponent's next roll lands a mover exactly there (2d6 odds over the
distinct distances of that opponent's movers) times the piece's worth and the opponent's
capture bonus. Groups of two or more Guards can only be captured by a group of four.

- **Moves**: the mover whose result leaves the best standing relative to the best opponent, so
  captures, safe tiles (Castles, entering tiles, the Home path), blockades in front of
  opponents and a Noble run when it is safe all come out of one number. Moving the Noble Home
  ends the game: taken when it wins, avoided when it loses.
- **Evaluation** for MCTS: ``tanh`` of each player's standing lead over its best opponent.
"""

from __future__ import annotations

import math

from agents.heuristic import ScoredChoice, ranked, successors
from envs.nobles.engine import (
    CASTLES,
    ENTERING_TILES,
    GUARDS_PER_PLAYER,
    HOME,
    NOBLE_ACTION,
    progress_of,
    shared_tile,
)

ROLL_ODDS = [0.0, 0.0] + [(6 - abs(v - 7)) / 36 for v in range(2, 13)]
"""Chance of a 2d6 sum of 0..12."""
HOME_SHARE = 0.5
"""Worth of a piece's progress, as a share of its Home bonus at full progress."""
BLOCKADE_REACH = 12
"""Opponent pieces this many steps or fewer behind a blockade are what it is worth to hold."""

MCTS_DEFAULTS = {"exploration": 1.0, "rollout_depth": 6}
"""At most ~10 movers per roll: no widening needed; a few random turns then the standing."""


class Heuristic(ScoredChoice):
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

    # ----- standing -----
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

    def _leads(self, state) -> list[float]:
        standings = [self.standing(state, p) for p in range(self.n)]
        return [standings[p] - max(standings[q] for q in range(self.n) if q != p)
                for p in range(self.n)]

    # ----- agent and search hooks (choose: ScoredChoice) -----
    def evaluate(self, state) -> list[float]:
        if state.is_terminal():
            return state.returns().tolist()
        return [math.tanh(lead / self.scale) for lead in self._leads(state)]

    def order(self, state, actions: list[int]) -> list[int]:
        return ranked(self._scores(state, actions))

    def _scores(self, state, actions: list[int]) -> list[tuple[float, int]]:
        player = state.to_move
        scored = []
        for action, child in successors(state, actions):
            if child.is_terminal():
                # The end: a win beats anything, a loss is the last resort.
                score = 1e6 * child.returns()[player] + self._leads(child)[player]
            else:
                score = self._leads(child)[player]
            if action == NOBLE_ACTION and not child.is_terminal():
                score += 1e-6  # among equals, the Noble runs
            scored.append((score, action))
        return scored

