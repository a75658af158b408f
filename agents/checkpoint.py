"""A trained policy as an agent: a thin adapter over :func:`agents.policy.load_policy`.

The checkpoint says how the policy acts (the network's
policy, greedy or sampled at a temperature, or network-guided search, as the checkpoint's own
config says). Everything is checked when the agent is built, before any game: that the file
exists, and — by ``load_policy(path, game=game)`` — that it is an intact checkpoint trained on
the evaluated game (same name and config fields). Each failure is one ``ValueError`` /
``FileNotFoundError`` line, not a crash mid-match.
"""

from __future__ import annotations

from pathlib import Path


class CheckpointAgent:
    name = "checkpoint"

    def __init__(self, path: str, game):
        if not Path(path).is_file():
            raise FileNotFoundError(f"checkpoint not found: {path}")
        from agents.policy import load_policy  # torch is loaded only for checkpoint agents

        self.path = path
        self._policy = load_policy(path, game=game)

    def reset(self, game, player: int, seed: int) -> None:
        self._policy.reset(seed)

    def act(self, state) -> int:
        return self._policy.act(state)

    def evaluate(self, states):
        """The network's board logits and values per seat (``play.py``'s hints)."""
        return self._policy.evaluator(states)
