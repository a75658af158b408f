"""A trained policy as an agent: a thin adapter over ``training.checkpoint.load_policy``.

The training package owns the file format and decides how the policy acts (the network's
policy, greedy or sampled at a temperature, or network-guided search, as the checkpoint's own
config says). Everything is checked when the agent is built, before any game: that the file
exists, and — by ``load_policy(path, game=game)`` — that it is an intact checkpoint trained on
the evaluated game (same name and config fields). Each failure is one ``ValueError`` /
``FileNotFoundError`` line, not a crash mid-match.
"""

from __future__ import annotations

import importlib
from pathlib import Path


def _load_policy(path: str, game):
    try:
        checkpoint = importlib.import_module("training.checkpoint")
    except ModuleNotFoundError as error:
        if error.name not in ("training", "training.checkpoint"):
            raise
        raise ValueError(f"checkpoint agent {path!r} needs the training package "
                         "(training.checkpoint.load_policy), which is not available") from None
    return checkpoint.load_policy(path, game=game)


class CheckpointAgent:
    name = "checkpoint"

    def __init__(self, path: str, game):
        if not Path(path).is_file():
            raise FileNotFoundError(f"checkpoint not found: {path}")
        self.path = path
        self._policy = _load_policy(path, game)

    def reset(self, game, player: int, seed: int) -> None:
        self._policy.reset(seed)

    def act(self, state) -> int:
        return self._policy.act(state)

    def evaluate(self, states):
        """The network's board logits and values per seat (``play.py``'s hints)."""
        return self._policy.evaluator(states)
