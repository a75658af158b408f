"""Nobles heuristic: one-ply lookahead over the legal movers of the roll, judged by each
player's *standing* (:mod:`envs.nobles.standing`) — an estimate of the combat score it will end
with: its score now, the worth of its pieces' progress and of the blockades it holds, minus
what it expects to lose to captures before its next turn.

- **Moves**: the mover whose result leaves the best standing relative to the best opponent, so
  captures, safe tiles (Castles, entering tiles, the Home path), blockades in front of
  opponents and a Noble run when it is safe all come out of one number. Moving the Noble Home
  ends the game: taken when it wins, avoided when it loses.
- **Evaluation** for MCTS: ``tanh`` of each player's standing lead over its best opponent.
"""

from __future__ import annotations

from agents.heuristic import ScoredChoice, ranked, successors
from envs.nobles.engine import NOBLE_ACTION
from envs.nobles.standing import Standing

MCTS_DEFAULTS = {"exploration": 1.0, "rollout_depth": 6}
"""At most ~10 movers per roll: no widening needed; a few random turns then the standing."""


class Heuristic(ScoredChoice):
    def __init__(self, game):
        self.game = game
        self.standing = Standing(game)

    # ----- agent and search hooks (choose: ScoredChoice) -----
    def evaluate(self, state) -> list[float]:
        return self.standing.evaluate(state)

    def order(self, state, actions: list[int]) -> list[int]:
        return ranked(self._scores(state, actions))

    def _scores(self, state, actions: list[int]) -> list[tuple[float, int]]:
        player = state.to_move
        scored = []
        for action, child in successors(state, actions):
            if child.is_terminal():
                # The end: a win beats anything, a loss is the last resort.
                score = 1e6 * child.returns()[player] + self.standing.leads(child)[player]
            else:
                score = self.standing.leads(child)[player]
            if action == NOBLE_ACTION and not child.is_terminal():
                score += 1e-6  # among equals, the Noble runs
            scored.append((score, action))
        return scored

