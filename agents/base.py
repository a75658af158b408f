"""The one interface every agent follows, so that the arena, evaluation and training can pit any
two of them against each other without knowing what they are.

An agent is told which game and seat it plays and gets a seed before each game (``reset``); it
then answers ``act(state)`` with a legal board action whenever its seat is to move. It may keep
whatever per-game state it likes between those calls. It never sees chance nodes: the arena rolls
the dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, game, player: int, seed: int) -> None:
        """Prepare for a new game of ``game`` in seat ``player``; all randomness of the coming
        game must derive from ``seed``, so that the same seed plays the same game."""

    def act(self, state) -> int:
        """A legal board action for ``state``, a decision node of this agent's seat. The state
        belongs to the caller: clone it before changing it."""


@runtime_checkable
class BatchingAgent(Agent, Protocol):
    """An agent whose moves in many concurrent games are best answered together: a network
    agent, whose positions then go through the network in one batch (the arena's
    ``batch_games``). Its moves must be the ones ``act`` would choose game by game."""

    def fork(self) -> BatchingAgent:
        """A twin for one more concurrent game: its own per-game state (``reset``), the same
        network."""

    def act_batch(self, forks: Sequence[BatchingAgent], states: Sequence) -> list[int]:
        """``forks[i].act(states[i])`` for every ``i`` (forks of this agent), answered
        together."""


@runtime_checkable
class SearchingAgent(Agent, Protocol):
    """An agent whose move comes out of a search over several moves (plain MCTS): it can say how
    its search spread, which makes a richer teacher's label than its one move (expert
    iteration's tree-policy target)."""

    def act_with_policy(self, state) -> tuple[int, dict[int, float]]:
        """``act``'s move and the share of the search's root visits each searched action got."""


def teacher_label(teacher: Agent, state, num_actions: int) -> tuple[int, np.ndarray]:
    """``teacher``'s move in ``state`` and the policy target it teaches there, over all
    ``num_actions`` board actions: its search's visit shares when it searches
    (:class:`SearchingAgent`), else one-hot on its move."""
    policy = np.zeros(num_actions, dtype=np.float32)
    if isinstance(teacher, SearchingAgent):
        move, shares = teacher.act_with_policy(state)
        policy[list(shares)] = list(shares.values())
    else:
        move = teacher.act(state)
        policy[move] = 1.0
    return move, policy
