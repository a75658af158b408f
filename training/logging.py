"""Weights & Biases logging for any algorithm: scalars, the config, checkpoints as artifacts,
and sample games as GIFs. ``mode: disabled`` never imports wandb (tests stay fast and offline);
``offline`` writes to disk for a later ``wandb sync``.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arena.media import best_effort, import_wandb, write_gif

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BAR = "━"
"""rich's progress-bar glyph: a redrawn bar is the console's, not the log's."""


class Tee:
    """A console stream that also appends what it shows to a log file, as plain text: colours
    and cursor moves stripped, progress-bar redraws left out."""

    def __init__(self, stream, log):
        self.stream, self.log = stream, log

    def write(self, text: str) -> int:
        self.stream.write(text)
        lines = (ANSI.sub("", line.rsplit("\r", 1)[-1]) for line in text.split("\n"))
        self.log.write("\n".join(line for line in lines if BAR not in line))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()
        self.log.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


@contextmanager
def console_copied_to(path: str | Path) -> Iterator[None]:
    """Everything printed to stdout and stderr inside also goes to ``path`` (appended), so that
    ``train.log`` / ``evaluate.log`` hold what the console showed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as log:
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = Tee(sys.stdout, log), Tee(sys.stderr, log)
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved


LOGGER_MODES = ("offline", "online", "disabled")


@dataclass(frozen=True)
class LoggerConfig:
    """``logger``: Weights & Biases."""

    # offline: written to disk only, no network needed (`wandb sync` uploads later) | online:
    # live upload (needs network and `wandb login`) | disabled: no W&B at all
    mode: str = "offline"
    # W&B project name
    project: str = "boardgame-rl"
    # W&B team or user; null = your default
    entity: str | None = None
    # where the wandb/ folder is written; null = the run's folder
    dir: str | None = None
    # free-form run tags
    tags: tuple[str, ...] = ()
    # W&B run group (configs/sweep/*.yaml put each sweep's jobs in one)
    group: str | None = None

    def __post_init__(self):
        if self.mode not in LOGGER_MODES:
            raise ValueError(f"config logger.mode={self.mode!r}: must be one of "
                             f"{', '.join(LOGGER_MODES)}")


def check_credentials(mode: str) -> None:
    """``ValueError`` for ``logger.mode=online`` without W&B credentials, which wandb.init
    would only report after the run's folder is made. Looked up as wandb does, without a
    prompt or the network."""
    if mode != "online":
        return
    wandb = import_wandb()
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # wandb says where it found them
            logged_in = wandb.login(prompt=False, verify=False)
    except wandb.errors.Error as error:  # e.g. a malformed WANDB_API_KEY
        raise ValueError(f"logger=online: {error}") from None
    if not logged_in:
        raise ValueError("logger=online needs W&B credentials: run `wandb login` (or set "
                         "WANDB_API_KEY), or use logger=offline and `wandb sync` later")


class RunLogger:
    def __init__(self, logger_config: dict, run_config: dict, run_dir: str | Path,
                 name: str | None = None):
        self.mode = logger_config.get("mode", "disabled")
        self.run = None
        self.run_dir = Path(run_dir)
        if self.mode == "disabled":
            return
        wandb = import_wandb()
        directory = Path(logger_config.get("dir") or run_dir)
        directory.mkdir(parents=True, exist_ok=True)
        self._wandb = wandb
        self.run = wandb.init(mode=self.mode, project=logger_config.get("project"),
                              entity=logger_config.get("entity"),
                              group=logger_config.get("group"),
                              tags=list(logger_config.get("tags") or []), dir=str(directory),
                              config=run_config, name=name, reinit="finish_previous")

    @property
    def enabled(self) -> bool:
        return self.run is not None

    def log(self, metrics: dict, step: int) -> None:
        if self.run is not None and metrics:
            self.run.log(metrics, step=step)

    def log_game(self, key: str, frames: Callable[[], Sequence[np.ndarray]], step: int,
                 fps: int = 2) -> Path | None:
        """Draw a game (``frames()``, called only when logging is on), write it as a GIF in the
        run folder and log it; a failure is a warning (:func:`arena.media.best_effort`)."""
        if self.run is None:
            return None
        path = self.run_dir / "games" / f"{key.replace('/', '_')}_{step}.gif"
        with best_effort(f"GIF {path}"):
            write_gif(frames(), path, 1000 // fps)
            self.run.log({key: self._wandb.Video(str(path), format="gif")}, step=step)
            return path
        return None

    def log_checkpoint(self, path: str | Path, name: str, metadata: dict | None = None) -> None:
        if self.run is None:
            return
        with best_effort(f"W&B artifact of {path}"):
            artifact = self._wandb.Artifact(name, type="model", metadata=metadata or {})
            artifact.add_file(str(path))
            self.run.log_artifact(artifact)

    def summary(self, values: dict) -> None:
        if self.run is not None:
            self.run.summary.update(values)

    def finish(self) -> None:
        if self.run is not None:
            self.run.finish()
            self.run = None
