"""Barricade heuristic: a race of Scouts to free opponent Base Stations, Guards thrown in front
of the most advanced opposing Scouts, and a Rocking Horse Sweep when ending the game now wins.

- **Evaluation**: the game's standing (:mod:`envs.barricade.standing`), the projected scores
  when the first player would have placed all its Scouts along its distances to free goals.
- **Moves**: the whole turn is planned — every first half-move with every second half-move
  after it — among Scout steps and Guard moves onto the stations in front of and beside the
  two most advanced opposing Scouts (all Guard moves when nothing else is legal), judged by the
  projection. A sweep step is one of those Scout steps: it is taken exactly when the projection
  says ending the game that way wins.
"""

from __future__ import annotations

from agents.heuristic import best_action, ranked
from envs.barricade.engine import CROSS_INDEX, DELTAS, FORWARD, GUARD_ACTIONS, NUM_CROSS
from envs.barricade.standing import projection_of

MCTS_DEFAULTS = {"exploration": 0.7, "rollout_depth": 2, "widening": 2.0,
                 "widening_exponent": 0.5}
"""~130 Guard moves per half-move: widen slowly, best-first in the heuristic's order."""


class Heuristic:
    def __init__(self, game):
        self.game = game
        self.projection = projection_of(game)

    def evaluate(self, state) -> list[float]:
        return self.projection.evaluate(state)

    # ----- choices -----
    def _guard_targets(self, state, player: int, opponent_field) -> list[int]:
        """Empty Cross Stations in front of and beside the two most advanced opposing Scouts."""
        q = 1 - player
        scouts = sorted(self.projection.scouts_in_play(state, q),
                        key=opponent_field.__getitem__)[:2]
        forward = DELTAS[FORWARD[q]]
        targets = []
        for x in scouts:
            for t in (x + forward, x + 2 * forward, x - 1, x + 1):
                if CROSS_INDEX[t] >= 0 and state.occ[t] == 0 and t not in targets:
                    targets.append(t)
        return targets

    def _candidates(self, state, targets: list[int]) -> list[int]:
        actions = state.legal_actions()
        if actions[-1] < GUARD_ACTIONS or actions[0] >= GUARD_ACTIONS + 2 * NUM_CROSS:
            return actions  # Scout steps only, or forfeits
        wanted = {CROSS_INDEX[t] for t in targets}
        chosen = [a for a in actions if a < GUARD_ACTIONS
                  or (a - GUARD_ACTIONS) % NUM_CROSS in wanted]
        return chosen or actions

    def _after(self, state, action: int) -> tuple[float, object]:
        child = state.clone()
        child.apply_action(action)
        return self.projection.evaluate(child)[state.to_move], child

    def choose(self, state, rng) -> int:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        player = state.to_move
        targets = self._guard_targets(state, player, self.projection.field(state, 1 - player))
        scored = []
        for action in self._candidates(state, targets):
            value, child = self._after(state, action)
            if child.current_player() == player and child.half == 1:
                value = max(self._after(child, second)[0]
                            for second in self._candidates(child, targets))
            scored.append((value, action))
        return best_action(scored, rng)

    def order(self, state, actions: list[int]) -> list[int]:
        """Cheap ranking for tree search: Scout steps by the steps they save (forward before
        sideways), then Guard moves onto blocking stations, then the rest."""
        player = state.to_move
        own = self.projection.field(state, player)
        targets = self._guard_targets(state, player, self.projection.field(state, 1 - player))
        wanted = {CROSS_INDEX[t]: rank for rank, t in enumerate(targets)}
        scored = []
        for action in actions:
            if action < GUARD_ACTIONS:
                s, d = divmod(action, 4)
                x = state.scouts[3 * player + s]
                saved = own[x] - own[x + DELTAS[d]]
                score = (2, saved, -own[x])
            elif action < GUARD_ACTIONS + 2 * NUM_CROSS:
                rank = wanted.get((action - GUARD_ACTIONS) % NUM_CROSS)
                score = (1, -rank, 0) if rank is not None else (0, 0, 0)
            else:
                score = (0, 0, 0)
            scored.append((score, action))
        return ranked(scored)

