"""Game engines and PettingZoo environments: ``envs.blockade``, ``envs.barricade``,
``envs.nobles``, all on the contract of :mod:`envs.core`."""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES = ("blockade", "barricade", "nobles")


def game_module(name: str) -> ModuleType:
    """The package of a game by name (``"blockade"`` -> ``envs.blockade``)."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    return importlib.import_module(f"envs.{name}")


def make_game(name: str, **config):
    """A ``Game`` by name with its config keywords, e.g. ``make_game("nobles", num_players=4)``.
    Unknown keywords are a ``TypeError`` naming them."""
    return game_module(name).Game(**config)

