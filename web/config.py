"""The web player's configuration: play.py's settings (ui/settings.py) and the env config it
started with, checked together."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ui.settings import PlayConfig
from web.catalog import Folders, env_choices

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass
class WebConfig:
    play: PlayConfig
    """Every setting of play.py (ui/settings.py): the room's first seats, hints and GIF frames,
    ``host``, ``port`` and ``web``'s folders and limits."""
    env: dict
    """The env config play.py started with: the room's first choice."""
    env_choice: str
    """Its name in the env group (``blockade_lakeside``)."""
    env_folder: str
    """``configs/env``: the presets the room offers beside each game's defaults."""

    def __post_init__(self):
        web = self.play.web
        if not self.folders_allowed.contains(Path(web.exports)):
            raise ValueError(f"web.exports ({web.exports}) must lie in one of web.folders "
                             f"({', '.join(web.folders)})")
        if self.env_choice not in env_choices(self.env_folder):
            raise ValueError(f"env {self.env_choice!r} is not a config of the env group")

    @property
    def folders_allowed(self) -> Folders:
        return Folders.of(list(self.play.web.folders))

    @property
    def exposed(self) -> bool:
        """Whether ``host`` lets other machines reach the server."""
        return self.play.host not in LOOPBACK_HOSTS
