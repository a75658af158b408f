"""Game engines and PettingZoo environments: ``envs.blockade``, ``envs.barricade``,
``envs.nobles``, all on the contract of :mod:`envs.core`."""

from envs.core import GAMES, game_hooks, game_module, game_package, make_game, sample_chance

__all__ = ["GAMES", "game_hooks", "game_module", "game_package", "make_game", "sample_chance"]
