"""How a trained network picks a move, whatever runs it (a PyTorch module, an ONNX file): from
its policy, the most likely legal action or one sampled at a temperature, or by a noise-free
PUCT/Gumbel search over its evaluations. Torch-free."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence

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
    return choose_actions([state], evaluate, [rng], simulations, temperature, search_config)[0]


def choose_actions(states, evaluate: Evaluator, rngs, simulations: int = 0,
                   temperature: float = 0.0, search_config: SearchConfig | None = None
                   ) -> list[int]:
    """:func:`choose_action` for many states at once, state ``i`` drawing from ``rngs[i]``:
    one network batch for all of them (one per simulation round with search). Each choice is
    the one :func:`choose_action` makes for its state alone."""
    actions: list[int | None] = [None] * len(states)
    pending = []
    for i, state in enumerate(states):
        legal = np.flatnonzero(state.legal_actions_mask())
        if len(legal) == 1:
            actions[i] = int(legal[0])
        else:
            pending.append((i, legal))
    if pending and not simulations:
        logits, _ = evaluate([states[i] for i, _ in pending])
        for row, (i, legal) in enumerate(pending):
            actions[i] = pick_from_logits(logits[row], legal, temperature, rngs[i])
    elif pending:
        config = dataclasses.replace(search_config or SearchConfig(), simulations=simulations)
        results = search([states[i] for i, _ in pending], evaluate, config,
                         [rngs[i] for i, _ in pending], add_noise=False)
        for (i, _), result in zip(pending, results, strict=True):
            actions[i] = (result.selected if result.selected is not None
                          else int(result.actions[np.argmax(result.visits)]))
    return actions


def acting_options(kind: str, settings: dict, options: dict) -> tuple[int, float, SearchConfig]:
    """How a ``kind`` agent (``onnx``, ``checkpoint``) plays: its policy's ``settings`` (a
    checkpoint's ``policy`` entry: ``simulations``, ``temperature``, ``search``) overridden by
    ``options``: ``sims`` (or ``simulations``; 0 = from the network's policy, more = a
    noise-free search of that many simulations), ``temperature`` and any :class:`SearchConfig`
    field. Unknown options and negative values are one ``ValueError``."""
    options = dict(options)
    if "sims" in options:
        options["simulations"] = options.pop("sims")
    valid = {"simulations", "temperature", *settings["search"]}
    unknown = sorted(set(options) - valid)
    if unknown:
        raise ValueError(f"unknown {kind} agent option(s) {', '.join(unknown)}; valid: sims, "
                         f"{', '.join(sorted(valid))}")
    simulations = int(options.pop("simulations", settings["simulations"]))
    temperature = float(options.pop("temperature", settings["temperature"]))
    if simulations < 0 or temperature < 0:
        raise ValueError(f"{kind} agent sims and temperature must be >= 0, got {simulations} "
                         f"and {temperature}")
    return simulations, temperature, SearchConfig(**{**settings["search"], **options})


class NetworkActing:
    """``act``, ``fork`` and ``act_batch`` of a player that picks its moves by
    :func:`choose_action`: from ``self.evaluate`` with ``self.simulations``,
    ``self.temperature`` and ``self.search_config``, drawing from its own generator
    ``self.rng``. The PyTorch policy of checkpoints and the ONNX agent act alike through it."""

    def act(self, state) -> int:
        return choose_action(state, self.evaluate, self.rng, self.simulations, self.temperature,
                             self.search_config)

    def fork(self):
        """A twin for one more concurrent game (the arena's ``batch_games``): its own
        generator, the same network."""
        twin = copy.copy(self)
        twin.rng = np.random.default_rng(0)
        return twin

    def act_batch(self, forks: Sequence, states: Sequence) -> list[int]:
        """``forks[i].act(states[i])`` for every ``i``, in one network batch."""
        return choose_actions(states, self.evaluate, [fork.rng for fork in forks],
                              self.simulations, self.temperature, self.search_config)
