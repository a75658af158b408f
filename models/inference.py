"""How the network runs under search: the inference backend and the cache of its evaluations.

:func:`make_evaluator` builds the :class:`models.evaluator.NetworkEvaluator` that search, self-play
and network agents call (``evaluate(states) -> (board logits, absolute values)``); after the
network's weights change, ``refresh()`` takes them up. Backends (``benchmarks/throughput.py``
measures them side by side):

- ``torch``: a frozen TorchScript copy (:func:`models.evaluator.inference_module`).
- ``onnx``: the network exported once to ONNX (the ``torch.export``-based exporter of
  :mod:`models.export`) and run by onnxruntime; ``refresh`` writes the current weights into the
  exported graph, so a new round costs ~0.1 s, not an export's seconds. Float32 like ``torch``:
  outputs agree to about 1e-6, and onnxruntime's are the same whatever else shares the batch
  (frozen TorchScript's differ in the last bits between batches of under 8 and larger ones).
- ``auto``: ``onnx`` for batches under :data:`AUTO_TORCH_BATCH`, ``torch`` for larger ones:
  onnxruntime's per-call cost is a third of TorchScript's (3x the positions per second at
  batch 1, 1.1-1.2x at 8-16), while at 32 and more the frozen conv net through oneDNN runs
  1.05-1.3x faster. Float32; outputs then depend on the batch size in the last bits.
- ``onnx-int8``: the ``onnx`` graph quantized to 8-bit integers (weights per channel,
  activations calibrated on positions of seeded random games), through onnxruntime's
  quantizer. Its outputs differ from the network's by about 1e-2, which changes some moves:
  an option to measure, not an exact backend.

``cache_size`` > 0 keeps that many of the network's outputs, keyed by the observation's bytes
(so what the network would return, with ``onnx`` bit for bit: the observation is all it sees),
and drops the oldest first; ``refresh`` empties it. Positions repeat within a search
(transpositions) and more between a game's consecutive searches, whose subtrees overlap: ~10% of
self-play's evaluations.
"""

from __future__ import annotations

import logging
import tempfile
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import onnxscript.optimizer
import torch
from onnx import numpy_helper

from models.evaluator import NetworkEvaluator, TorchRunner
from models.export import quiet_onnx_loggers, reference_positions

BACKENDS = ("torch", "onnx", "auto", "onnx-int8")
AUTO_TORCH_BATCH = 16
"""``auto``: batches of this many positions or more run through torch."""
CALIBRATION_GAMES, CALIBRATION_POSITIONS = 8, 64
"""``onnx-int8``'s activation ranges come from this many positions spread over each of this many
seeded games of random moves."""


def export_graph(net: torch.nn.Module, shape: Sequence[int]) -> onnx.ModelProto:
    """``net`` as an ONNX graph ``observation [B, *shape] -> logits, values`` whose weights are
    initializers named after ``net.state_dict()``'s keys: the exporter's graph optimizations off,
    which would fold batch norm into new, unnamed tensors (:meth:`OnnxRunner.refresh` runs them
    after writing the weights in)."""
    example = torch.zeros(2, *shape)
    quiet_onnx_loggers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(
            net.eval(), (example,), input_names=["observation"], output_names=["logits", "values"],
            dynamo=True, optimize=False, external_data=False, verbose=False,
            dynamic_shapes=({0: torch.export.Dim("batch")},))
    model = program.model_proto
    initializers = {tensor.name for tensor in model.graph.initializer}
    unnamed = [name for name, _ in net.named_parameters() if name not in initializers]
    if unnamed:
        raise ValueError(f"the ONNX export did not keep these weights under their names, so a "
                         f"refresh could not update them: {', '.join(unnamed)}")
    return model


class _Calibration:
    """onnxruntime's calibration reader over fixed observations, in batches."""

    def __init__(self, obs: np.ndarray, batch: int = 64):
        self.batches = iter([{"observation": obs[i:i + batch]} for i in range(0, len(obs), batch)])

    def get_next(self) -> dict | None:
        return next(self.batches, None)


def quantize(model: bytes, calibration: np.ndarray) -> bytes:
    """An ONNX network graph (``observation -> logits, values``) with its convolutions and
    matrix products in 8 bits: weights per output channel, activations by ranges seen on the
    ``calibration`` observations (onnxruntime's static quantization, QDQ format)."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    with tempfile.TemporaryDirectory() as folder:
        optimized, quantized = Path(folder, "float.onnx"), Path(folder, "int8.onnx")
        # onnxruntime's own graph optimizations first (batch norm folded into the
        # convolutions), so that the quantized convolutions carry it.
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(optimized)
        ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        # The quantizer's advice and notices (through the root logger) are not ours to act
        # on: a batch-norm scale it cannot quantize per channel stays float.
        logging.disable(logging.WARNING)
        try:
            quantize_static(optimized, quantized, _Calibration(calibration),
                            quant_format=QuantFormat.QDQ, per_channel=True,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
        finally:
            logging.disable(logging.NOTSET)
        return quantized.read_bytes()


def calibration_observations(encoder) -> np.ndarray:
    """What ``onnx-int8`` calibrates on: positions spread over seeded games of random moves
    (:data:`CALIBRATION_GAMES`), each in its mover's view."""
    positions = [state for seed in range(CALIBRATION_GAMES)
                 for state in reference_positions(encoder.game, CALIBRATION_POSITIONS, seed)]
    return np.stack([encoder.encode(s, s.current_player()) for s in positions])


class OnnxRunner:
    """Observations -> (view logits, relative values) through onnxruntime: ``net`` exported once,
    its current weights written into the graph on each :meth:`refresh`; with ``calibration``
    observations the graph is quantized to int8 first (``onnx-int8``)."""

    def __init__(self, net: torch.nn.Module, shape: Sequence[int], threads: int = 1,
                 calibration: np.ndarray | None = None):
        self.net = net
        self.graph = export_graph(net, shape)
        self.calibration = calibration
        self.options = ort.SessionOptions()
        self.options.intra_op_num_threads = threads
        self.options.inter_op_num_threads = 1
        self.refresh()

    def refresh(self) -> None:
        weights = self.net.state_dict()
        for tensor in self.graph.graph.initializer:
            if tensor.name in weights:
                tensor.CopyFrom(numpy_helper.from_array(
                    weights[tensor.name].detach().cpu().numpy(), tensor.name))
        # The exporter's optimizer, which export_graph kept off, on the graph with these
        # weights: onnxruntime runs the graph as exported at half the speed (~0.1 s a refresh).
        model = onnxscript.optimizer.optimize(self.graph).SerializeToString()
        if self.calibration is not None:
            model = quantize(model, self.calibration)
        self.session = ort.InferenceSession(model, self.options,
                                            providers=["CPUExecutionProvider"])

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, values = self.session.run(["logits", "values"], {"observation": obs})
        return logits, values


class SplitRunner:
    """``small`` for batches under ``threshold`` positions, ``large`` for the others."""

    def __init__(self, small, large, threshold: int):
        self.small, self.large, self.threshold = small, large, threshold

    def refresh(self) -> None:
        self.small.refresh()
        self.large.refresh()

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (self.small if len(obs) < self.threshold else self.large)(obs)


class EvaluationCache:
    """The network's outputs (view logits, relative values) of up to ``size`` observations, the
    least recently used dropped first. Keyed by Python's 64-bit hash of the observation's bytes
    (~4 us for Blockade's 15 KB, 3% of the network's time): a lookup answers for another
    observation only if their hashes collide, about once in 2**64 / size lookups."""

    def __init__(self, size: int):
        self.size = size
        self.entries: OrderedDict[int, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self.hits = 0
        self.lookups = 0

    def clear(self) -> None:
        self.entries.clear()

    def __call__(self, obs: np.ndarray, run) -> tuple[np.ndarray, np.ndarray]:
        """``run(obs)``'s outputs, running it only on the rows not cached (each distinct row
        once)."""
        keys = [hash(row.tobytes()) for row in obs]
        entries = self.entries
        missing: dict[int, int] = {}  # key -> row of the batch it is first computed from
        for i, key in enumerate(keys):
            if key in entries:
                entries.move_to_end(key)
            elif key not in missing:
                missing[key] = i
        self.lookups += len(keys)
        self.hits += len(keys) - len(missing)
        new = {}
        if missing:
            logits, values = run(obs if len(missing) == len(keys) else obs[list(missing.values())])
            new = {key: (logits[j], values[j]) for j, key in enumerate(missing)}
        if len(new) < len(keys):  # from the cache before this batch's new rows push any out
            rows = [new[key] if key in new else entries[key] for key in keys]
            logits, values = np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])
        entries.update(new)
        while len(entries) > self.size:
            entries.popitem(last=False)
        return logits, values


def make_evaluator(net: torch.nn.Module, encoder, num_players: int, backend: str = "torch",
                   cache_size: int = 0, threads: int | None = None) -> NetworkEvaluator:
    """The evaluator of ``net`` for search (module docstring: ``backend``, ``cache_size``);
    ``threads``: onnxruntime's threads (default: torch's)."""
    if backend not in BACKENDS:
        raise ValueError(f"inference backend must be one of {', '.join(BACKENDS)}, got "
                         f"{backend!r}")
    if cache_size < 0:
        raise ValueError(f"inference cache_size must be >= 0, got {cache_size}")
    threads = threads or torch.get_num_threads()
    if backend == "torch":
        runner = TorchRunner(net)
    elif backend == "auto":
        runner = SplitRunner(OnnxRunner(net, encoder.shape, threads), TorchRunner(net),
                             AUTO_TORCH_BATCH)
    else:
        calibration = calibration_observations(encoder) if backend == "onnx-int8" else None
        runner = OnnxRunner(net, encoder.shape, threads, calibration)
    cache = EvaluationCache(cache_size) if cache_size else None
    return NetworkEvaluator(net, encoder, num_players, runner=runner, cache=cache)
