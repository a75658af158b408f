"""Agents that play any game of :mod:`envs` through one interface (:class:`agents.base.Agent`):
``random``, ``heuristic`` (one per game), ``mcts`` (plain UCT) and ``checkpoint:PATH`` (a trained
policy). :func:`make_agent` builds one from a spec string."""

from __future__ import annotations

import yaml

from agents.base import Agent
from agents.checkpoint import CheckpointAgent
from agents.heuristic import HeuristicAgent
from agents.mcts import MCTSAgent
from agents.random_agent import RandomAgent

AGENT_NAMES = ("random", "heuristic", "mcts", "checkpoint:PATH")


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mcts:simulations=1000,rollout=random"`` -> ``("mcts", {...})``; a checkpoint's text
    after the colon is its path, kept whole as option ``path``."""
    name, _, rest = spec.partition(":")
    if name == "checkpoint":
        if not rest:
            raise ValueError("checkpoint agent needs a path: checkpoint:PATH")
        return name, {"path": rest}
    options = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"agent spec {spec!r}: options are written key=value, got {item!r}")
        options[key.strip()] = yaml.safe_load(value)
    return name, options


def make_agent(spec: str, game, **options) -> Agent:
    """An agent for ``game`` from a spec: ``random``, ``heuristic``, ``mcts`` or
    ``checkpoint:PATH``, optionally with inline options (``mcts:simulations=1000``) that take
    precedence over ``options``. Unknown names and options are a ``ValueError`` saying what is
    valid."""
    name, inline = parse_spec(spec)
    options = {**options, **inline}
    if name == "checkpoint":
        path = options.pop("path")
        if options:
            raise ValueError(f"checkpoint agents take no options, got {', '.join(options)}")
        return CheckpointAgent(path, game)
    builders = {"random": RandomAgent, "heuristic": HeuristicAgent, "mcts": MCTSAgent}
    if name not in builders:
        raise ValueError(f"unknown agent {spec!r}; valid agents: {', '.join(AGENT_NAMES)}")
    if name != "mcts" and options:
        raise ValueError(f"{name} agents take no options, got {', '.join(options)}")
    return builders[name](game, **options)
