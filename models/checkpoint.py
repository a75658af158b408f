"""Checkpoint files as the agents read them: the format's name and version, validated loading,
and the network a checkpoint describes. Writing them (and the replay buffer beside them) is the
trainer's, in ``training/saving.py``.

A checkpoint is one ``torch.save`` dict of plain data and tensors (so it loads with
``weights_only=True``: no code runs on load): ``format`` and ``version``, ``algo``, the full
run ``config``, ``env_config``, ``model`` (architecture and weights), ``acting`` (how the
trained agent acts), ``counters``, ``history`` and ``state``: whatever else the algorithm needs
to resume.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import torch

from models.nets import ActionLayout, ModelConfig, action_layout, build_network
from typedconfig import from_mapping, to_mapping

FORMAT = "boardgame-rl-checkpoint"
VERSION = 3
"""3: how the trained agent acts is ``acting`` (was ``policy``). Files of older versions are
refused with a clear error."""
REQUIRED = ("algo", "config", "env_config", "model", "acting", "counters")


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


def unreadable_because(path: Path, error: Exception) -> str:
    """Why torch could not load ``path``, in a few words: not PyTorch's advice to load it with
    ``weights_only=False``, which would run whatever code the file holds."""
    if not zipfile.is_zipfile(path):
        return "not a file written by torch.save"
    text = str(error).rpartition("WeightsUnpickler error:")[2].strip()
    return text.splitlines()[0] if text else type(error).__name__


def read_file(path: Path, what: str) -> dict:
    if not path.is_file():
        raise CheckpointError(f"{what} not found: {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many kinds for a damaged file
        raise CheckpointError(f"{what} {path} is corrupt or not a {what} "
                              f"({unreadable_because(path, error)})") from None
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path} is not a {what} file")
    return payload


def load_checkpoint(path: str | Path) -> dict:
    """The payload of a checkpoint, validated; :class:`CheckpointError` with one clear line for
    a missing, corrupt, foreign or incompatible file."""
    path = Path(path)
    payload = read_file(path, "checkpoint")
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
