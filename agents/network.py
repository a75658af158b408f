"""A network that plays, whatever runs it: a training run's PyTorch module, a checkpoint file
(``checkpoint:PATH``), an exported ONNX file (``onnx:PATH``, :mod:`agents.onnx_file`) or a zoo
entry (``zoo:NAME``). :class:`NetworkAgent` picks its moves from an evaluator
(``evaluate(states) -> (board logits [B, A], absolute values [B, n])``) as its
:class:`Acting` says: from the network's policy (the most likely legal action, or one sampled
at a temperature), or by a noise-free PUCT/Gumbel search over its evaluations.

Torch-free at import: torch loads only when a checkpoint is read (:func:`checkpoint_agent`),
so ONNX and zoo agents run without it.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, get_type_hints

import numpy as np

from search.puct import Evaluator, GameValue, SearchConfig, search
from typedconfig import check_value, from_mapping, to_mapping


@dataclass(frozen=True)
class Acting:
    """How a network agent picks its moves: ``simulations == 0`` from the network's policy
    (the most likely legal action, or with ``temperature`` > 0 one drawn from
    ``softmax(logits / temperature)``), else the choice of a noise-free search of that many
    simulations with ``search``'s other settings. A checkpoint stores it as ``acting``, an
    exported file as its ``policy`` metadata (:meth:`to_dict`)."""

    simulations: Annotated[int, ">= 0"] = 0
    temperature: Annotated[float, ">= 0"] = 0.0
    search: SearchConfig = field(default_factory=SearchConfig)

    def to_dict(self) -> dict:
        return to_mapping(self)

    @classmethod
    def from_dict(cls, values: dict, where: str) -> Acting:
        return from_mapping(cls, values, where)

    def with_options(self, kind: str, options: dict) -> Acting:
        """This acting overridden by a ``kind`` agent's (``onnx``, ``checkpoint``, ``zoo``)
        spec options: ``sims`` (or ``simulations``), ``temperature`` and any
        :class:`SearchConfig` field. An unknown option or a value of the wrong type or range
        is one ``ValueError`` naming it."""
        options = dict(options)
        if "sims" in options:  # checked under the name the spec wrote
            options["simulations"] = check_value(
                options.pop("sims"), get_type_hints(Acting, include_extras=True)["simulations"],
                f"{kind} agent.sims")
        values = self.to_dict()
        search_fields = set(values["search"]) - {"simulations"}
        unknown = sorted(set(options) - {"simulations", "temperature", *search_fields})
        if unknown:
            raise ValueError(f"unknown {kind} agent option(s) {', '.join(unknown)}; valid: "
                             f"sims, simulations, temperature, {', '.join(sorted(search_fields))}")
        for key, value in options.items():
            (values["search"] if key in search_fields else values)[key] = value
        return from_mapping(Acting, values, f"{kind} agent")


def pick_from_logits(logits: np.ndarray, legal: np.ndarray, temperature: float,
                     rng: np.random.Generator) -> int:
    """The legal action (of ``legal``, board actions) with the largest logit or, with
    ``temperature`` > 0, one drawn from ``softmax(logits / temperature)`` over the legal ones."""
    scores = np.asarray(logits)[legal].astype(np.float64)
    if not temperature:
        return int(legal[np.argmax(scores)])
    weights = np.exp((scores - scores.max()) / temperature)
    return int(legal[rng.choice(len(legal), p=weights / weights.sum())])


def choose_actions(states, evaluate: Evaluator, rngs, acting: Acting,
                   game_value: GameValue | None = None) -> list[int]:
    """A legal board action for each state (decision nodes), state ``i`` drawing from
    ``rngs[i]``: one network batch for all of them (one per simulation round with search).
    Each choice is the one made for its state alone. ``game_value``: the game's own evaluation
    (its ``evaluate`` hook), for a search that mixes it into its leaves."""
    actions: list[int | None] = [None] * len(states)
    pending = []
    for i, state in enumerate(states):
        legal = np.flatnonzero(state.legal_actions_mask())
        if len(legal) == 1:
            actions[i] = int(legal[0])
        else:
            pending.append((i, legal))
    if pending and not acting.simulations:
        logits, _ = evaluate([states[i] for i, _ in pending])
        for row, (i, legal) in enumerate(pending):
            actions[i] = pick_from_logits(logits[row], legal, acting.temperature, rngs[i])
    elif pending:
        config = dataclasses.replace(acting.search, simulations=acting.simulations)
        results = search([states[i] for i, _ in pending], evaluate, config,
                         [rngs[i] for i, _ in pending], add_noise=False, game_value=game_value)
        for (i, _), result in zip(pending, results, strict=True):
            actions[i] = (result.selected if result.selected is not None
                          else int(result.actions[np.argmax(result.visits)]))
    return actions


class NetworkAgent:
    """A network as an agent (:class:`agents.base.BatchingAgent`): the arena can play many
    games of it at once, its positions evaluated in one network batch. ``evaluate`` is also
    what hints and analysis read (board logits and each seat's value). ``game_value``: the
    game's ``evaluate`` hook, which a search with ``game_value_weight`` > 0 mixes in."""

    def __init__(self, evaluate: Evaluator, acting: Acting, name: str = "network",
                 game_value: GameValue | None = None):
        self.evaluate = evaluate
        self.acting = acting
        self.name = name
        self.game_value = game_value
        self.rng = np.random.default_rng(0)

    def reset(self, game, player: int, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, state) -> int:
        return choose_actions([state], self.evaluate, [self.rng], self.acting,
                              self.game_value)[0]

    def fork(self) -> NetworkAgent:
        """A twin for one more concurrent game: its own generator, the same network."""
        twin = copy.copy(self)
        twin.rng = np.random.default_rng(0)
        return twin

    def act_batch(self, forks: Sequence[NetworkAgent], states: Sequence) -> list[int]:
        """``forks[i].act(states[i])`` for every ``i``, in one network batch."""
        return choose_actions(states, self.evaluate, [fork.rng for fork in forks], self.acting,
                              self.game_value)


def checkpoint_agent(path: str | Path, game=None, name: str = "checkpoint",
                     **options) -> NetworkAgent:
    """The trained agent of a checkpoint file, for ``game`` (default: the game it was trained
    on), playing as the checkpoint's ``acting`` says unless ``options`` say otherwise (as for
    ``onnx:PATH``: :meth:`Acting.with_options`); option ``inference`` picks the network's
    backend (:func:`models.inference.make_evaluator`: ``torch``, ``onnx``, ...). Everything is
    checked here, before any game: that the file exists and is an intact checkpoint trained on
    ``game``; each failure is one ``ValueError`` / ``FileNotFoundError`` line."""
    import envs
    from models.checkpoint import CheckpointError, build_model, load_checkpoint
    from models.features import make_encoder
    from models.inference import make_evaluator

    if not Path(path).is_file():
        raise FileNotFoundError(f"checkpoint not found: {path}")
    payload = load_checkpoint(path)
    env_config = payload["env_config"]
    if game is None:
        game = envs.make_game(env_config)
    else:
        mismatch = envs.config_mismatch(env_config, game)
        if mismatch:
            raise CheckpointError(f"checkpoint {path} was trained {mismatch}")
    net = build_model(payload["model"], f"checkpoint {path}")
    encoder = make_encoder(game, payload["model"]["config"].get("features") or ())
    options = dict(options)
    backend = options.pop("inference", "torch")
    acting = Acting.from_dict(payload["acting"], "acting").with_options(name, options)
    return NetworkAgent(make_evaluator(net, encoder, game.num_players, backend), acting, name,
                        envs.game_hooks(game).evaluate)
