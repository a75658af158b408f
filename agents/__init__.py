"""Agents that play any game of :mod:`envs` through one interface (:class:`agents.base.Agent`):
``random``, ``heuristic`` (one per game), ``mcts`` (plain UCT), and networks that play
(:mod:`agents.network`): ``checkpoint:PATH`` (a training run's), ``onnx:PATH`` (an exported
one, :mod:`agents.onnx_file`) and ``zoo:NAME`` (a pretrained one shipped in :mod:`zoo`).
:func:`make_agent` builds one from a spec string."""

from __future__ import annotations

import re

import yaml

from agents.base import Agent
from agents.heuristic import HeuristicAgent
from agents.mcts import MCTSAgent
from agents.network import checkpoint_agent
from agents.random_agent import RandomAgent
from typedconfig import did_you_mean

AGENT_NAMES = ("random", "heuristic", "mcts", "checkpoint:PATH", "onnx:PATH", "zoo:NAME")


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"mcts:simulations=1000,rollout=random"`` -> ``("mcts", {...})``; a checkpoint's or
    onnx file's path (option ``path``) may be followed by ``:options``
    (``checkpoint:PATH:sims=200``), and so may a zoo agent's name (``zoo:nobles_2p:sims=200``,
    the name kept as option ``name``)."""
    if len(re.findall(r":\w+=", spec)) > 1:  # zoo:NAME:sims=200:temperature=0
        raise ValueError(f"agent spec {spec!r}: options follow one colon, separated by commas "
                         "(zoo:nobles_2p:sims=200,temperature=0)")
    name, _, rest = spec.partition(":")
    if name in ("checkpoint", "onnx"):
        path, sep, tail = rest.rpartition(":")
        if not (sep and "=" in tail):
            path, tail = rest, ""
        if not path:
            raise ValueError(f"{name} agent needs a path: {name}:PATH or {name}:PATH:sims=200")
        return name, {**_parse_options(spec, tail), "path": path}
    if name == "zoo":
        zoo_name, _, tail = rest.partition(":")
        if not zoo_name:
            raise ValueError("zoo agent needs a name: zoo:NAME or zoo:NAME:sims=200")
        return name, {**_parse_options(spec, tail), "name": zoo_name}
    return name, _parse_options(spec, rest)


def _parse_options(spec: str, text: str) -> dict:
    """``"simulations=1000,rollout=random"`` -> ``{"simulations": 1000, ...}`` (YAML values)."""
    options = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"agent spec {spec!r}: options are written key=value, got {item!r}")
        options[key.strip()] = yaml.safe_load(value)
    return options


def make_agent(spec: str, game, **options) -> Agent:
    """An agent for ``game`` from a spec: ``random``, ``heuristic``, ``mcts``,
    ``checkpoint:PATH``, ``onnx:PATH`` or ``zoo:NAME``, optionally with inline options
    (``mcts:simulations=1000``) that take precedence over ``options``. Unknown names and
    options are a ``ValueError`` saying what is valid."""
    name, inline = parse_spec(spec)
    options = {**options, **inline}
    if name == "checkpoint":
        return checkpoint_agent(options.pop("path"), game, **options)
    if name == "onnx":
        from agents.onnx_file import onnx_agent  # onnxruntime loads only when asked for

        return onnx_agent(options.pop("path"), game, **options)
    if name == "zoo":
        from agents.onnx_file import onnx_agent
        from zoo import policy_file

        return onnx_agent(policy_file(options.pop("name"), game), game, name="zoo", **options)
    builders = {"random": RandomAgent, "heuristic": HeuristicAgent, "mcts": MCTSAgent}
    if name not in builders:
        raise ValueError(f"unknown agent {spec!r}; valid agents: {', '.join(AGENT_NAMES)}"
                         + did_you_mean(name, [n.partition(":")[0] for n in AGENT_NAMES]))
    if name == "heuristic":
        unknown = sorted(set(options) - {"epsilon"})
        if unknown:
            raise ValueError(f"unknown heuristic option(s) {', '.join(unknown)}; valid: epsilon")
    elif name != "mcts" and options:
        raise ValueError(f"{name} agents take no options, got {', '.join(options)}")
    return builders[name](game, **options)
