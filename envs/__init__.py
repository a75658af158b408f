"""Game engines and PettingZoo environments: ``envs.blockade``, ``envs.barricade``,
``envs.nobles``, all on the contract of :mod:`envs.core`."""

from envs.core import (
    GAMES,
    config_mismatch,
    default_config,
    game_hooks,
    game_module,
    game_package,
    make_game,
    sample_chance,
)

__all__ = ["GAMES", "config_mismatch", "default_config", "game_hooks", "game_module",
           "game_package", "make_game", "sample_chance"]
