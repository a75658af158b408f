"""Hand-written players, one module per game, each meant to be hard to beat without search.

A game's module ``agents.heuristic.<game>`` defines ``Heuristic(game)`` with

- ``choose(state, rng) -> int``: the heuristic's move (``rng`` a seeded ``random.Random`` that
  breaks ties);
- ``evaluate(state) -> list[float]``: every player's prospects in [-1, 1], the function plain
  MCTS scores its cut-off rollouts with;
- ``order(state, actions) -> list[int]``: the legal actions ranked best first, which MCTS uses
  to decide which children to grow first under progressive widening;

and ``MCTS_DEFAULTS``, the search settings that suit the game (overridable per agent). A
heuristic that scores actions gets ``choose`` from :class:`ScoredChoice` and ranks them with
:func:`ranked`.
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType

from envs import GAMES


def successors(state, actions):
    """``(action, child)`` for each action: the position that action leads to (one ply)."""
    for action in actions:
        child = state.clone()
        child.apply_action(action)
        yield action, child


def best_action(scored, rng) -> int:
    """The action of the best ``(score, action)`` pair, a tie broken by ``rng``."""
    best = max(score for score, _ in scored)
    return rng.choice([a for score, a in scored if score == best])


def ranked(scored) -> list[int]:
    """The actions of ``(score, action)`` pairs, best first (equal scores in their given
    order)."""
    return [a for _, a in sorted(scored, key=lambda item: item[0], reverse=True)]


class ScoredChoice:
    """``choose`` of a heuristic that scores every legal action (``_scores(state, actions)``:
    ``(score, action)`` pairs, higher better): the best one, ties broken by ``rng``."""

    def choose(self, state, rng) -> int:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        return best_action(self._scores(state, actions), rng)


def heuristic_module(game_name: str) -> ModuleType:
    if game_name not in GAMES:
        raise ValueError(f"no heuristic for game {game_name!r}; games: {', '.join(GAMES)}")
    return importlib.import_module(f"agents.heuristic.{game_name}")


def heuristic_for(game):
    """The game's ``Heuristic``, built for this ``Game`` (its board size and player count)."""
    return heuristic_module(game.name).Heuristic(game)


class HeuristicAgent:
    """The game's heuristic as an agent: deterministic given the seed (ties broken by it). With
    ``epsilon`` it plays a uniformly random legal move instead in that share of its turns (a
    sloppier player of the same style: ``heuristic:epsilon=0.25``)."""

    name = "heuristic"

    def __init__(self, game, epsilon: float = 0.0):
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) \
                or not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"heuristic epsilon must be a number in [0, 1], got {epsilon!r}")
        self._heuristic = heuristic_for(game)
        self._rng = random.Random(0)
        self.epsilon = float(epsilon)

    def reset(self, game, player: int, seed: int) -> None:
        self._rng.seed(seed)

    def act(self, state) -> int:
        if self.epsilon and self._rng.random() < self.epsilon:
            return self._rng.choice(state.legal_actions())
        return self._heuristic.choose(state, self._rng)
