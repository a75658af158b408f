"""Plain Monte Carlo tree search (UCT) over the engine contract, for any number of players and
with chance nodes; no network.

- **n players (max^n)**: every node keeps the sum of the value *vectors* backed up through it
  (one entry per player); at a decision node the player to move picks the child that is best
  for *itself* by UCB1. Two-player zero-sum games are the special case of that.
- **Chance nodes**: an outcome is sampled from ``chance_outcomes()`` on every visit; each
  outcome gets its own child.
- **Leaves** are scored by a rollout of uniformly random actions, either to the end of the game
  (``rollout_depth=None``) or cut off after ``rollout_depth`` actions and scored by an evaluation
  function mapping a state to a value vector in [-1, 1] (``rollout_depth=0`` scores the leaf
  itself). Random rollouts alone rarely finish a game whose random play wanders (Blockade
  usually runs to its turn limit), so the cut-off is the default.
- **Wide nodes**: with ``widening > 0`` a node may only have ``ceil(widening * visits ** alpha)``
  children (progressive widening), tried in the order an optional ``order`` function ranks the
  legal actions, best first. That keeps the search deep where a game offers far more moves than
  simulations (Barricade's ~130 Guard moves a half-move, Blockade's ~200 walls).

Nothing here names a game: the per-game evaluation and ordering functions are passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from envs.core import CHANCE, TERMINAL, draw_index, sample_chance

Evaluation = Callable[[object], Sequence[float]]
"""A state's value for every player, each in [-1, 1] (like ``returns()``)."""
ActionOrder = Callable[[object, list[int]], list[int]]
"""The legal actions of a state ranked best first for the player to move."""


@dataclass(frozen=True)
class UCTConfig:
    simulations: int = 200
    """Simulations (selection, expansion, rollout, backup) per move."""
    exploration: float = 1.0
    """UCB1 constant c in ``mean + c * sqrt(ln N / n)`` (values lie in [-1, 1])."""
    rollout_depth: int | None = 0
    """Random actions after the leaf before it is evaluated; None = roll out to the end."""
    widening: float = 0.0
    """Progressive widening: at most ``ceil(widening * visits ** widening_exponent)`` children
    per decision node; 0 expands every legal action before any is revisited."""
    widening_exponent: float = 0.5

    def __post_init__(self):
        if self.simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {self.simulations}")
        if self.exploration < 0:
            raise ValueError(f"exploration must be >= 0, got {self.exploration}")
        if self.rollout_depth is not None and self.rollout_depth < 0:
            raise ValueError(f"rollout_depth must be >= 0 or None, got {self.rollout_depth}")
        if self.widening < 0 or not 0 < self.widening_exponent <= 1:
            raise ValueError("widening must be >= 0 and widening_exponent in (0, 1], got "
                             f"{self.widening} and {self.widening_exponent}")


class _Node:
    """A state reached in the tree. ``untried`` (decision nodes) and ``outcomes`` (chance nodes)
    are filled on the first visit *through* the node, so leaves never pay for them."""

    __slots__ = ("player", "visits", "totals", "children", "untried", "outcomes", "cumulative")

    def __init__(self, player: int, num_players: int):
        self.player = player
        self.visits = 0
        self.totals = [0.0] * num_players
        self.children: dict[int, _Node] = {}
        self.untried: list[int] | None = None
        self.outcomes: list[int] | None = None
        self.cumulative: list[float] | None = None


class UCT:
    """One search per :meth:`decide` (or :meth:`best_action`) call, from a decision node that
    it does not modify; no tree is kept between calls."""

    def __init__(self, num_players: int, config: UCTConfig, evaluate: Evaluation | None = None,
                 order: ActionOrder | None = None, seed: int = 0):
        if config.rollout_depth is not None and evaluate is None:
            raise ValueError("cut-off rollouts (rollout_depth set) need an evaluation function")
        self.num_players = num_players
        self.config = config
        self._evaluate = evaluate
        self._order = order
        self._rng = random.Random(seed)

    def seed(self, seed: int) -> None:
        self._rng.seed(seed)

    def best_action(self, state) -> int:
        """The most visited root action (ties: the better mean for the player to move); no
        search when there is only one legal action."""
        return self.decide(state)[0]

    def decide(self, state) -> tuple[int, dict[int, int]]:
        """:meth:`best_action`'s move and the root's visit counts per searched action (a single
        legal action: that one, with one visit and no search)."""
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0], {actions[0]: 1}
        root = self._run(state)
        player = root.player
        best = max(root.children.items(),
                   key=lambda item: (item[1].visits, item[1].totals[player] / item[1].visits))[0]
        return best, {action: child.visits for action, child in root.children.items()}

    def _run(self, state) -> _Node:
        root = _Node(state.current_player(), self.num_players)
        for _ in range(self.config.simulations):
            self._simulate(root, state.clone())
        return root

    def _simulate(self, node: _Node, state) -> None:
        path = [node]
        while True:
            player = node.player
            if player == TERMINAL:
                value = state.returns()
                break
            if player == CHANCE:
                action = self._sample_outcome(node, state)
            else:
                action = self._select(node, state)
            child = node.children.get(action)
            state.apply_action(action)
            if child is None:
                child = _Node(state.current_player(), self.num_players)
                node.children[action] = child
                path.append(child)
                value = self._leaf_value(state)
                break
            node = child
            path.append(node)
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for p in range(self.num_players):
                totals[p] += value[p]

    def _select(self, node: _Node, state) -> int:
        """An untried action while the node may still widen, else the UCB1-best child."""
        if node.untried is None:
            actions = state.legal_actions()
            if self._order is not None:
                actions = self._order(state, actions)
            else:
                actions = list(actions)
                self._rng.shuffle(actions)
            actions.reverse()  # pop() from the end takes the best first
            node.untried = actions
        if node.untried:
            widening = self.config.widening
            if widening <= 0 or len(node.children) < math.ceil(
                    widening * (node.visits + 1) ** self.config.widening_exponent):
                return node.untried.pop()
        player = node.player
        explore = self.config.exploration * math.sqrt(math.log(node.visits))
        best_action, best_score = -1, -math.inf
        for action, child in node.children.items():
            visits = child.visits
            score = child.totals[player] / visits + explore / math.sqrt(visits)
            if score > best_score:
                best_action, best_score = action, score
        return best_action

    def _sample_outcome(self, node: _Node, state) -> int:
        if node.outcomes is None:
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            node.outcomes = list(outcomes)
            node.cumulative = list(accumulate(probs))
        return node.outcomes[draw_index(node.cumulative, self._rng)]

    def _leaf_value(self, state) -> Sequence[float]:
        depth = self.config.rollout_depth
        rng = self._rng
        steps = 0
        while not state.is_terminal():
            if depth is not None and steps >= depth:
                return self._evaluate(state)
            if state.is_chance_node():
                action = sample_chance(state, rng)
            else:
                actions = state.legal_actions()
                action = actions[rng.randrange(len(actions))]
            state.apply_action(action)
            steps += 1
        return state.returns()
