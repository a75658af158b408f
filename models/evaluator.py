"""The bridge between a network and search: encode states in the mover's view, run the network
on the batch, and map its outputs back to board actions and absolute seats."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence

import numpy as np
import torch

from models.views import ViewMaps, encode_batch


def inference_module(net: torch.nn.Module) -> torch.nn.Module:
    """A frozen copy of ``net`` for inference: TorchScript with batch norm folded into the
    convolutions and oneDNN layouts (about 1.7x the eager forward throughput of the default
    Blockade net at batch 64 on one CPU core, 1.2x at batch 1; benchmarks/search_speed.py).
    ``torch.compile`` would be the successor, but its compile time and a recompile per batch
    size cost more than they save in a minutes-long run. A network that TorchScript cannot
    compile is used as it is."""
    copied = copy.deepcopy(net).eval()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*torch\.jit.*deprecated", category=Warning)
        try:
            return torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(copied)))
        except Exception:  # noqa: BLE001 - any scripting failure: keep the eager module
            return copied


class TorchRunner:
    """Observations -> (view logits, relative values) as numpy arrays, through
    :func:`inference_module`'s frozen copy of ``net`` (``optimize``) or ``net`` itself; call
    :meth:`refresh` after changing ``net``'s weights."""

    def __init__(self, net: torch.nn.Module, optimize: bool = True):
        self.net = net
        self.optimize = optimize
        self.refresh()

    def refresh(self) -> None:
        self.module = inference_module(self.net) if self.optimize else self.net

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.module.eval()
        with torch.inference_mode():
            logits, values = self.module(torch.from_numpy(obs))
        return logits.numpy(), values.numpy()


class NetworkEvaluator:
    """``evaluate(states) -> (board logits [B, A], absolute values [B, n])`` for search.

    The network runs through ``runner`` (observations -> view logits, relative values; default
    a :class:`TorchRunner`, frozen with ``optimize``; :func:`models.inference.make_evaluator`
    builds the others), and through ``cache`` (:class:`models.inference.EvaluationCache`) when
    given: call :meth:`refresh` after changing ``net``'s weights."""

    def __init__(self, net: torch.nn.Module, encoder, num_players: int, optimize: bool = True,
                 runner=None, cache=None):
        self.net = net
        self.encoder = encoder
        self.maps = ViewMaps(encoder, num_players)
        self.runner = runner if runner is not None else TorchRunner(net, optimize)
        self.cache = cache
        self.batches = 0
        self.positions = 0

    def refresh(self) -> None:
        """Take up ``net``'s current weights (and forget the cached outputs of the old ones)."""
        self.runner.refresh()
        if self.cache is not None:
            self.cache.clear()

    def encode(self, states: Sequence) -> tuple[np.ndarray, np.ndarray]:
        players = np.array([s.current_player() for s in states], dtype=np.int64)
        return encode_batch(self.encoder, states, players), players

    def __call__(self, states: Sequence) -> tuple[np.ndarray, np.ndarray]:
        obs, players = self.encode(states)
        if self.cache is None:
            logits, values = self.runner(obs)
        else:
            logits, values = self.cache(obs, self.runner)
        self.batches += 1
        self.positions += len(states)
        return (self.maps.logits_to_board(logits, players),
                self.maps.values_to_abs(values.astype(np.float64), players))
