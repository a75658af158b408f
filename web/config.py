"""The web player's settings: ``configs/play.yaml``'s ``host``, ``port`` and ``web`` keys beside
the play settings the terminal player reads too (every key explained in that file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ui.terminal import PlayConfig
from web.catalog import Folders, env_choices

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass
class WebConfig:
    play: PlayConfig
    """The room's first seats (``agents``), ``agent_options``, ``seed``, hints, GIF frames."""
    env: dict
    """The env config play.py started with: the room's first choice."""
    env_choice: str
    """Its name in ``env_folder`` (``blockade_lakeside``)."""
    env_folder: str
    """``configs/env``: the presets the room offers beside each game's defaults."""
    host: str = "127.0.0.1"
    port: int = 8000
    folders: list[str] = field(default_factory=lambda: ["outputs"])
    exports: str = "outputs/play"
    max_games: int = 16
    idle_minutes: float = 60

    def __post_init__(self):
        if self.play.load:
            raise ValueError("load= is for ui=terminal; the page replays records from its "
                             "Replay list (files below web.folders)")
        if isinstance(self.port, bool) or not isinstance(self.port, int) \
                or not 0 <= self.port <= 65535:
            raise ValueError(f"port must be 0..65535 (0: any free port), got {self.port!r}")
        if isinstance(self.max_games, bool) or not isinstance(self.max_games, int) \
                or self.max_games < 1:
            raise ValueError(f"web.max_games must be a positive integer, got {self.max_games!r}")
        if not isinstance(self.idle_minutes, (int, float)) or not self.idle_minutes > 0:
            raise ValueError(f"web.idle_minutes must be positive, got {self.idle_minutes!r}")
        if not self.folders_allowed.contains(Path(self.exports)):
            raise ValueError(f"web.exports ({self.exports}) must lie in one of web.folders "
                             f"({', '.join(self.folders)})")
        if self.env_choice not in env_choices(self.env_folder):
            raise ValueError(f"env {self.env_choice!r} is not a config of the env group")

    @property
    def folders_allowed(self) -> Folders:
        return Folders.of(list(self.folders))

    @property
    def exposed(self) -> bool:
        """Whether ``host`` lets other machines reach the server."""
        return self.host not in LOOPBACK_HOSTS
