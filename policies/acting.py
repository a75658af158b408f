"""How a trained network picks a move, whatever runs it (a PyTorch module, an ONNX file): from
its policy, the most likely legal action or one sampled at a temperature, or by a noise-free
PUCT/Gumbel search over its evaluations. Torch-free."""

from __future__ import annotations

import dataclasses

import numpy as np

from search.puct import Evaluator, SearchConfig, search


def pick_from_logits(logits: np.ndarray, legal: np.ndarray, temperature: float,
                     rng: np.random.Generator) -> int:
    """The legal action (of ``legal``, board actions) with the largest logit or, with
    ``temperature`` > 0, one drawn from ``softmax(logits / temperature)`` over the legal ones."""
    scores = np.asarray(logits)[legal].astype(np.float64)
    if not temperature:
        return int(legal[np.argmax(scores)])
    weights = np.exp((scores - scores.max()) / temperature)
    return int(legal[rng.choice(len(legal), p=weights / weights.sum())])


def choose_action(state, evaluate: Evaluator, rng: np.random.Generator, simulations: int = 0,
                  temperature: float = 0.0, search_config: SearchConfig | None = None) -> int:
    """A legal board action for ``state`` (a decision node). ``evaluate(states) -> (board
    logits, absolute values)``. ``simulations == 0``: :func:`pick_from_logits` on the
    network's logits; otherwise the choice of a noise-free search of ``simulations``
    simulations (``search_config`` gives its other settings)."""
    legal = np.flatnonzero(state.legal_actions_mask())
    if len(legal) == 1:
        return int(legal[0])
    if not simulations:
        logits, _ = evaluate([state])
        return pick_from_logits(logits[0], legal, temperature, rng)
    config = dataclasses.replace(search_config or SearchConfig(), simulations=simulations)
    result = search([state], evaluate, config, [rng], add_noise=False)[0]
    if result.selected is not None:
        return result.selected
    return int(result.actions[np.argmax(result.visits)])
