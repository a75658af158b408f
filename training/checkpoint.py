"""Checkpoint files for every algorithm, and the trained policy they hold.

A checkpoint is one ``torch.save`` dict of plain data and tensors (so it loads with
``weights_only=True``: no code runs on load): ``format`` and ``version``, ``algo``, the full
run ``config``, ``env_config``, ``model`` (architecture and weights), ``policy`` (how the
trained agent acts), ``counters``, ``history`` and ``state``: whatever else the algorithm needs
to resume (optimiser, opponent pool, RNG states). The replay buffer, the bulk of a run, is a
separate file beside it (``replay.pt``), which a resume uses when present. Both are written to
a temporary file in the same folder and renamed over the target, so a crash never leaves a
half-written file under the real name.

:func:`load_policy` is what ``agents/checkpoint.py`` (``checkpoint:PATH`` agents) calls.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch

import envs
from models.evaluator import NetworkEvaluator
from models.features import make_encoder
from models.nets import ActionLayout, ModelConfig, action_layout, build_network
from policies.acting import choose_action
from policies.metadata import env_config_mismatch
from search.puct import SearchConfig
from training.config import from_mapping, to_mapping

FORMAT = "boardgame-rl-checkpoint"
REPLAY_FORMAT = "boardgame-rl-replay"
VERSION = 2
"""2: the trainer skeleton's layout (``state``, ``rng.torch``, ``history``; the replay buffer in
its own file beside the checkpoint). Files of version 1 are refused with a clear error."""
REQUIRED = ("algo", "config", "env_config", "model", "policy", "counters")


ROOT = Path(__file__).resolve().parents[1]


def git_commit() -> str | None:
    """The commit of this code (``+dirty`` with uncommitted changes), if it is a git checkout."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")


class CheckpointError(ValueError):
    """A checkpoint file that is missing, corrupt, or does not fit this run."""


def remove_stale_temporaries(path: str | Path) -> None:
    """Delete what a killed save left beside ``path`` (``.last.pt.*.tmp``): never loaded."""
    path = Path(path)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)


def write_atomically(path: str | Path, data: dict) -> Path:
    """``torch.save(data)`` to a temporary file beside ``path``, then renamed over it: a crash or
    a full disk never leaves a half-written file under the real name, and the previous file
    stays as it was. An OS error is a :class:`CheckpointError` naming the path."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise CheckpointError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise CheckpointError(f"cannot write {path}: {error.strerror or error} (the "
                                  "previous file there, if any, is intact)") from None
        raise
    return path


def save_checkpoint(path: str | Path, payload: dict) -> Path:
    """Write ``payload`` (with format and version added) atomically to ``path``."""
    missing = [k for k in REQUIRED if k not in payload]
    if missing:
        raise ValueError(f"checkpoint payload lacks {', '.join(missing)}")
    return write_atomically(path, {"format": FORMAT, "version": VERSION, **payload})


def _read(path: Path, what: str) -> dict:
    if not path.is_file():
        raise CheckpointError(f"{what} not found: {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a damaged file
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"{what} {path} is corrupt or not a {what} ({reason})") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path} is not a {what} file")
    return payload


def load_checkpoint(path: str | Path) -> dict:
    """The payload of a checkpoint, validated; :class:`CheckpointError` with one clear line for
    a missing, corrupt, foreign or incompatible file."""
    path = Path(path)
    payload = _read(path, "checkpoint")
    if payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a {FORMAT} file")
    if payload.get("version") != VERSION:
        raise CheckpointError(f"checkpoint {path} has format version {payload.get('version')}, "
                              f"this code reads version {VERSION}: train it again with this "
                              "version (older formats are not converted)")
    missing = [k for k in REQUIRED if k not in payload]
    if missing:
        raise CheckpointError(f"checkpoint {path} is incomplete: no {', '.join(missing)}")
    return payload


def replay_path(checkpoint: str | Path) -> Path:
    """Where the replay buffer of ``checkpoint`` lies: ``replay.pt`` beside it (a separate file
    so that the checkpoint a user keeps or shares stays small)."""
    return Path(checkpoint).with_name("replay.pt")


def save_replay(path: str | Path, iteration: int, replay: dict) -> Path:
    return write_atomically(path, {"format": REPLAY_FORMAT, "version": VERSION,
                                   "iteration": int(iteration), "replay": replay})


def load_replay(path: str | Path, iteration: int) -> dict | None:
    """The replay buffer saved with the checkpoint of ``iteration``; ``None`` when the file is
    of another iteration (a save killed between the two files)."""
    payload = _read(Path(path), "replay buffer")
    if payload.get("format") != REPLAY_FORMAT or payload.get("version") != VERSION:
        raise CheckpointError(f"{path} is not a version {VERSION} {REPLAY_FORMAT} file")
    return payload["replay"] if payload.get("iteration") == iteration else None


def model_payload(net: torch.nn.Module, encoder, num_actions: int, num_players: int,
                  config: ModelConfig) -> dict:
    """What rebuilds ``net`` (:func:`build_model`): its config, the encoder's shape and action
    layout, the game's sizes, and the weights."""
    layout = action_layout(encoder)
    return {"config": to_mapping(config), "obs_shape": [int(d) for d in encoder.shape],
            "action_layout": None if layout is None else to_mapping(layout),
            "num_actions": int(num_actions), "num_players": int(num_players),
            "weights": {k: v.detach().clone() for k, v in net.state_dict().items()}}


def build_model(model: dict, where: str = "checkpoint") -> torch.nn.Module:
    """The network a checkpoint's ``model`` entry describes, with its weights loaded."""
    config = from_mapping(ModelConfig, model["config"], "model")
    layout = model.get("action_layout")
    net = build_network(tuple(model["obs_shape"]), model["num_actions"], model["num_players"],
                        config, None if layout is None else ActionLayout(**layout))
    try:
        net.load_state_dict(model["weights"])
    except RuntimeError as error:
        raise CheckpointError(f"{where}: weights do not fit the network "
                              f"({str(error).splitlines()[0]})") from None
    return net.eval()


def numpy_rng_state(rng: np.random.Generator) -> dict:
    return rng.bit_generator.state


def restore_numpy_rng(state: dict) -> np.random.Generator:
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return rng


def make_env_game(env_config: dict):
    config = dict(env_config)
    return envs.make_game(config.pop("name"), **config)


class Policy:
    """A trained network that plays: from its policy (``simulations == 0``; the most likely
    legal action, or with ``temperature`` > 0 one sampled from ``softmax(logits /
    temperature)``) or by a noise-free PUCT/Gumbel search of ``simulations`` simulations."""

    def __init__(self, env_config: dict, game, net: torch.nn.Module, simulations: int,
                 search_config: SearchConfig | None = None, features: tuple[str, ...] = (),
                 temperature: float = 0.0):
        self.env_config = dict(env_config)
        self.game = game
        self.net = net
        self.simulations = simulations
        self.temperature = temperature
        self.search_config = search_config or SearchConfig()
        encoder = make_encoder(game, features)
        self.evaluator = NetworkEvaluator(net, encoder, game.num_players)
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def settings(self) -> dict:
        """How it acts, as a checkpoint's ``policy`` entry (:func:`load_policy` reads it)."""
        return {"simulations": self.simulations, "search": to_mapping(self.search_config),
                "temperature": self.temperature}

    def act(self, state) -> int:
        return choose_action(state, self.evaluator, self.rng, self.simulations, self.temperature,
                             self.search_config)


def check_env_config(env_config: dict, game, where: str) -> None:
    """``game`` must be the game ``env_config`` describes (defaults resolved on both sides)."""
    mismatch = env_config_mismatch(env_config, game)
    if mismatch:
        raise CheckpointError(f"{where} was trained {mismatch}")


def load_policy(path: str | Path, game=None) -> Policy:
    """The trained agent of a checkpoint, for ``game`` (default: the game it was trained on)."""
    payload = load_checkpoint(path)
    env_config = payload["env_config"]
    if game is None:
        game = make_env_game(env_config)
    else:
        check_env_config(env_config, game, f"checkpoint {path}")
    net = build_model(payload["model"], f"checkpoint {path}")
    policy = payload["policy"]
    search_config = from_mapping(SearchConfig, policy.get("search") or {}, "policy.search")
    features = tuple(payload["model"]["config"].get("features") or ())
    return Policy(env_config, game, net, int(policy["simulations"]), search_config, features,
                  float(policy["temperature"]))
