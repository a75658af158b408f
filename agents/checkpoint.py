"""A trained policy as an agent: a thin adapter over ``training.checkpoint.load_policy``.

The training package owns the file format and decides how the policy acts (greedy network
policy or network-guided search, as the checkpoint's own config says). This adapter only
checks, before any game is played, that the file exists and that the checkpoint was trained on
the game being evaluated, so that a mismatch is one clear error rather than a crash mid-match.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import envs


def _load_policy(path: str, game):
    try:
        checkpoint = importlib.import_module("training.checkpoint")
    except ModuleNotFoundError as error:
        if error.name not in ("training", "training.checkpoint"):
            raise
        raise ValueError(f"checkpoint agent {path!r} needs the training package "
                         "(training.checkpoint.load_policy), which is not available yet") from None
    return checkpoint.load_policy(path, game=game)


def check_trained_on(env_config: dict, game, path: str) -> None:
    """The checkpoint's ``env`` config must describe the evaluated game: same name and the same
    value for every config field (defaults resolved on both sides, e.g. ``max_turns: null``)."""
    config = dict(env_config)
    name = config.pop("name", None)
    if name != game.name:
        raise ValueError(f"checkpoint {path} was trained on {name!r} but the game is {game.name!r}")
    trained = envs.make_game(name, **config)
    for field in config:
        if getattr(trained, field) != getattr(game, field):
            raise ValueError(f"checkpoint {path} was trained with {field}="
                             f"{getattr(trained, field)!r} but the game has {field}="
                             f"{getattr(game, field)!r}")


class CheckpointAgent:
    name = "checkpoint"

    def __init__(self, path: str, game):
        if not Path(path).is_file():
            raise FileNotFoundError(f"checkpoint not found: {path}")
        self.path = path
        self._policy = _load_policy(path, game)
        check_trained_on(self._policy.env_config, game, path)

    def reset(self, game, player: int, seed: int) -> None:
        self._policy.reset(seed)

    def act(self, state) -> int:
        return self._policy.act(state)
