"""An exported network (``export.py``'s ``NAME.onnx``) at work without PyTorch: this module needs
numpy, onnxruntime and the ``envs`` package (plus ``models.features``, ``models.views`` and
``models.policy_file``, which are torch-free), never torch or the training code.

    network = OnnxNetwork("blockade_2p.onnx")  # fails here if the file does not fit
    env = network.env(render_mode="ansi")      # the game's env, observing what the network sees
    ...
    action = network.action(observation, seat) # an env observation dict -> a legal board action

:func:`onnx_agent` is the ``onnx:PATH`` (and ``zoo:NAME``) agent spec
(``onnx:PATH:sims=200,temperature=0``): the network as its training run played it, or with a
search on top.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort

import envs
from agents.network import Acting, NetworkAgent, pick_from_logits
from envs.core import BoardGameEnv, wrap
from models.features import make_encoder
from models.policy_file import (
    METADATA_KEY,
    SELF_CHECK_TOLERANCE,
    PolicyFileError,
    check_metadata,
)
from models.views import ViewMaps, encode_batch


def _reason(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def read_onnx(path: str | Path, threads: int = 1) -> tuple[ort.InferenceSession, dict | None]:
    """An onnxruntime session of ``path`` and the metadata it carries (``None`` when it has
    none); :class:`PolicyFileError` for a missing file or one onnxruntime cannot load."""
    path = Path(path)
    if not path.is_file():
        raise PolicyFileError(f"policy file not found: {path}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # noqa: BLE001 - onnxruntime raises its own kinds for bad files
        raise PolicyFileError(f"{path} is corrupt or not an ONNX file ({_reason(error)})") from None
    text = session.get_modelmeta().custom_metadata_map.get(METADATA_KEY)
    try:
        metadata = json.loads(text) if text else None
    except json.JSONDecodeError:
        metadata = None
    return session, metadata


class OnnxNetwork:
    """The network graph of an exported policy file, checked against ``game`` (default: the
    game it was trained on) and the installed ``envs`` when loaded: format, rules settings, encoder
    versions, observation shape, action mapping and the stored outputs on its reference
    positions. Anything that does not fit is one :class:`PolicyFileError` line.

    ``threads``: onnxruntime threads; one suits these small networks at batch 1, and keeps
    evaluation's worker processes from competing for the cores."""

    def __init__(self, path: str | Path, game=None, threads: int = 1, seed: int = 0):
        self.path = Path(path)
        where = f"policy {self.path}"
        self.session, metadata = read_onnx(self.path, threads)
        check_metadata(metadata, where, graph="network")
        self.metadata = metadata
        if game is None:
            game = envs.make_game(metadata["env_config"])
        else:
            mismatch = envs.config_mismatch(metadata["env_config"], game)
            if mismatch:
                raise PolicyFileError(f"{where} was trained {mismatch}")
        self.game = game
        self.encoder = make_encoder(game, metadata["encoder"]["features"])
        self.maps = ViewMaps(self.encoder, game.num_players)
        self.rng = np.random.default_rng(seed)
        self._check_against_envs(where)

    def _check_against_envs(self, where: str) -> None:
        metadata, name = self.metadata, self.metadata["encoder"]["name"]
        if list(self.encoder.shape) != list(metadata["observation"]["shape"]):
            raise PolicyFileError(f"{where} takes {name} observations of shape "
                                  f"{tuple(metadata['observation']['shape'])}, the installed "
                                  f"envs encodes {tuple(self.encoder.shape)}")
        if not np.array_equal(self.maps.perms, metadata["actions"]["view_to_board"]):
            raise PolicyFileError(f"{where}: the installed envs maps view actions to board "
                                  f"actions differently from the {name} encoder it was "
                                  "exported with")
        check = metadata["self_check"]
        try:
            states = [self.game.state_from_dict(p) for p in check["positions"]]
            obs = np.stack([self.encoder.encode(s, p)
                            for s, p in zip(states, check["players"], strict=True)])
            logits, values = self.network(obs)
        except Exception as error:  # noqa: BLE001 - any failure here means the file does not fit
            raise PolicyFileError(f"{where} fails on its own reference positions "
                                  f"({_reason(error)})") from None
        difference = max(float(np.abs(logits - np.asarray(check["logits"])).max()),
                         float(np.abs(values - np.asarray(check["values"])).max()))
        if not difference <= SELF_CHECK_TOLERANCE:
            raise PolicyFileError(f"{where} gives outputs on its reference positions that differ "
                                  f"by {difference:.3g} from those stored at export: the "
                                  f"installed envs encodes {name} observations differently "
                                  "(export the checkpoint again with this code)")

    def network(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The raw graph: observations ``[B, *shape]`` -> view logits ``[B, A]`` and relative
        values ``[B, n]`` (float32; ``metadata['actions']`` and ``['values']`` say how to read
        them)."""
        logits, values = self.session.run(
            ["logits", "values"], {"observation": np.ascontiguousarray(observations,
                                                                       dtype=np.float32)})
        return logits, values

    def evaluate(self, states) -> tuple[np.ndarray, np.ndarray]:
        """``(board logits [B, A], absolute values [B, n])`` of decision nodes: the evaluator
        that search and hints take."""
        players = np.array([s.current_player() for s in states], dtype=np.int64)
        logits, values = self.network(encode_batch(self.encoder, states, players))
        return (self.maps.logits_to_board(logits, players),
                self.maps.values_to_abs(values.astype(np.float64), players))

    def action(self, observation: dict, player: int, temperature: float = 0.0,
               rng: np.random.Generator | None = None) -> int:
        """A legal board action from the observation dict of seat ``player``, the seat to act,
        in an env from :meth:`env`: the most likely one, or with ``temperature`` > 0 one drawn
        from ``softmax(logits / temperature)`` by ``rng`` (default: the network's own, seeded
        by ``seed``)."""
        obs = np.asarray(observation["observation"], dtype=np.float32)
        if obs.shape != tuple(self.encoder.shape):
            raise ValueError(f"observation has shape {obs.shape}, this network takes "
                             f"{tuple(self.encoder.shape)} ({self.metadata['encoder']['name']}): "
                             "play in the env from network.env(), whose observations include "
                             "the derived planes")
        legal = np.flatnonzero(observation["action_mask"])
        if not len(legal):
            raise ValueError(f"the observation's action mask has no legal action: seat {player} "
                             "is not the one to act")
        logits, _ = self.network(obs[None])
        board = self.maps.logits_to_board(logits, np.array([player]))[0]
        return pick_from_logits(board, legal, temperature, rng or self.rng)

    def env(self, render_mode: str | None = None):
        """The PettingZoo env of the network's game (wrapped like ``envs.<game>.env()``) whose
        observations are exactly the network's input."""
        draw = envs.game_package(self.game).draw
        return wrap(BoardGameEnv(self.game, self.encoder, draw, render_mode))


def onnx_agent(path: str | Path, game, name: str = "onnx", **options) -> NetworkAgent:
    """``onnx:PATH`` as an agent: it plays as its training run's evaluation did (the file's
    ``policy`` metadata), unless options say otherwise: ``sims``, ``temperature`` and any
    search setting (:meth:`agents.network.Acting.with_options`)."""
    network = OnnxNetwork(path, game)
    acting = Acting.from_dict(network.metadata["policy"], f"policy {path}: policy")
    return NetworkAgent(network.evaluate, acting.with_options(name, options), name,
                        envs.game_hooks(network.game).evaluate)
