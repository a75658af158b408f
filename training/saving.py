"""Writing checkpoint files for every algorithm (the format and its reading are in
``models/checkpoint.py``, where agents read it too), and the replay buffer beside them.

A checkpoint is one ``torch.save`` dict of plain data and tensors (so it loads with
``weights_only=True``: no code runs on load): ``format`` and ``version``, ``algo``, the full
run ``config``, ``env_config``, ``model`` (architecture and weights), ``acting`` (how the
trained agent acts), ``counters``, ``history`` and ``state``: whatever else the algorithm needs
to resume (optimiser, opponent pool, RNG states). The replay buffer, the bulk of a run, is a
separate file beside it (``replay.pt``), which a resume uses when present. Both are written to
a temporary file in the same folder and renamed over the target, so a crash never leaves a
half-written file under the real name.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import torch

from models.checkpoint import FORMAT, REQUIRED, VERSION, CheckpointError, read_file

REPLAY_FORMAT = "boardgame-rl-replay"


def remove_stale_temporaries(folder: str | Path, name: str = "*") -> None:
    """Delete what killed saves of ``name`` (every file, by default) left in ``folder``
    (``.last.pt.*.tmp``, ``.iteration_000020.pt.*.tmp``): never loaded."""
    for stale in Path(folder).glob(f".{name}.*.tmp"):
        stale.unlink(missing_ok=True)


def write_atomically(path: str | Path, data: dict) -> Path:
    """``torch.save(data)`` to a temporary file beside ``path``, then renamed over it: a crash or
    a full disk never leaves a half-written file under the real name, and the previous file
    stays as it was. An OS error is a :class:`CheckpointError` naming the path."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(path.parent, path.name)
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


def kept_checkpoint(checkpoint: str | Path, iteration: int) -> Path:
    """Where a copy of ``checkpoint`` kept at ``iteration`` lies (``algo.checkpoint.keep_every``):
    beside it, named by the iteration, so that a folder lists them in the run's order."""
    return Path(checkpoint).with_name(f"iteration_{iteration:06d}.pt")


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
    payload = read_file(Path(path), "replay buffer")
    if payload.get("format") != REPLAY_FORMAT or payload.get("version") != VERSION:
        raise CheckpointError(f"{path} is not a version {VERSION} {REPLAY_FORMAT} file")
    return payload["replay"] if payload.get("iteration") == iteration else None


def numpy_rng_state(rng: np.random.Generator) -> dict:
    return rng.bit_generator.state


def restore_numpy_rng(state: dict) -> np.random.Generator:
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return rng


