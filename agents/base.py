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
