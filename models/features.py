"""Derived input features appended to a game's observation planes (``model.features``).

A game defines its features in its hooks (``HOOKS.features``: name -> ``(game, encoder) ->
encoder``, e.g. Blockade's goal-distance planes in ``envs/blockade/features.py``) and what
``auto`` stands for (``HOOKS.auto_features``). The wrappers keep the encoder contract
(``shape``, ``encode``, ``view_to_board_actions``), so search, self-play, symmetries and
checkpoints use them like the game's own encoder.
"""

from __future__ import annotations

import envs


def resolve_features(game, features) -> tuple[str, ...]:
    """The feature names ``features`` stands for in ``game``, ``auto`` expanded and every name
    checked. Runs record these, not ``auto``, so that a checkpoint keeps its input when what
    ``auto`` means changes."""
    hooks = envs.game_hooks(game)
    names = tuple(f for name in features for f in (hooks.auto_features if name == "auto"
                                                    else (name,)))
    for name in names:
        if name not in hooks.features:
            raise ValueError(f"unknown model feature {name!r} for {game.name}; choose from "
                             f"{', '.join(hooks.features) or 'none (it defines no features)'}")
    return names


def make_encoder(game, features: tuple[str, ...] | list[str] = ()):
    """The game's own encoder, with the named derived features appended in order; ``auto``
    stands for the features defined for this game (so one model config fits every game)."""
    encoder = envs.game_package(game).Encoder(game)
    hooks = envs.game_hooks(game)
    for name in resolve_features(game, features):
        encoder = hooks.features[name](game, encoder)
    return encoder
