"""Optional outputs (pictures, animations, W&B media): written when they can be, never at the
cost of a run's results. A failure in one is a warning; the games, tables, checkpoints and
result files around it are written regardless."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np


@contextmanager
def best_effort(what: str) -> Iterator[None]:
    """Run an optional output; on any error, warn with ``what`` and the reason, and go on."""
    try:
        yield
    except Exception as error:  # an optional output must never end the run
        warnings.warn(f"{what} skipped: {type(error).__name__}: {error}", stacklevel=3)


def import_wandb():
    """The ``wandb`` module, told not to offer Weave (its LLM tracing): it takes our ``agents``
    package for the LLM library of that name and says so on every run."""
    os.environ.setdefault("WANDB_DISABLE_WEAVE", "true")
    import wandb

    return wandb


def write_gif(frames: Sequence[np.ndarray], path: str | Path, frame_ms: int,
              final_frame_ms: int | None = None) -> Path:
    """An animated GIF of RGB frames (H×W×3 uint8), looping, the last frame held for
    ``final_frame_ms`` (default: as long as the others)."""
    from PIL import Image

    images = [Image.fromarray(frame) for frame in frames]
    durations = [frame_ms] * (len(images) - 1) + [final_frame_ms or frame_ms]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0,
                   optimize=False)
    return path
