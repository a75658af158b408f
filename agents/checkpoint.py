"""Trained policies as agents: :class:`PolicyAgent` wraps a :class:`agents.policy.Policy` (a
training run's policy, a loaded checkpoint); :class:`CheckpointAgent` is the
``checkpoint:PATH`` spec, a thin adapter over :func:`agents.policy.load_policy`.

The checkpoint says how the policy acts (the network's policy, greedy or sampled at a
temperature, or network-guided search, as the checkpoint's own config says); inline options
(``checkpoint:PATH:sims=200``) override it. Everything is
checked when the agent is built, before any game: that the file exists, and — by
``load_policy(path, game=game)`` — that it is an intact checkpoint trained on the evaluated game
(same name and config fields). Each failure is one ``ValueError`` / ``FileNotFoundError`` line,
not a crash mid-match.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path

from policies.acting import acting_options


class PolicyAgent:
    """A trained policy as an agent. A batching agent (:class:`agents.base.BatchingAgent`): the
    arena can play many games of it at once, its positions evaluated in one network batch."""

    def __init__(self, policy, name: str = "trained"):
        self.policy = policy
        self.name = name

    def reset(self, game, player: int, seed: int) -> None:
        self.policy.reset(seed)

    def act(self, state) -> int:
        return self.policy.act(state)

    def fork(self) -> PolicyAgent:
        twin = copy.copy(self)
        twin.policy = self.policy.fork()
        return twin

    def act_batch(self, forks: Sequence[PolicyAgent], states: Sequence) -> list[int]:
        return self.policy.act_batch([fork.policy for fork in forks], states)

    def evaluate(self, states):
        """The network's board logits and values per seat (``play.py``'s hints)."""
        return self.policy.evaluate(states)


class CheckpointAgent(PolicyAgent):
    """``checkpoint:PATH`` as an agent: it plays as the checkpoint's config says, unless options
    say otherwise (``checkpoint:PATH:sims=200``): ``sims``, ``temperature`` and any search
    setting, as for ``onnx:PATH`` (:func:`policies.acting.acting_options`)."""

    name = "checkpoint"

    def __init__(self, path: str, game, **options):
        if not Path(path).is_file():
            raise FileNotFoundError(f"checkpoint not found: {path}")
        from agents.policy import load_policy  # torch is loaded only for checkpoint agents

        policy = load_policy(path, game=game)
        policy.simulations, policy.temperature, policy.search_config = acting_options(
            "checkpoint", policy.settings(), options)
        super().__init__(policy, name="checkpoint")
        self.path = path
