"""The one interface every agent follows, so that the arena, evaluation and training can pit any
two of them against each other without knowing what they are.

An agent is told which game and seat it plays and gets a seed before each game (``reset``); it
then answers ``act(state)`` with a legal board action whenever its seat is to move. It may keep
whatever per-game state it likes between those calls. It never sees chance nodes: the arena rolls
the dice.
"""

from __future__ import annotations

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
