"""Nobles: a 2-4 player dice race of one Noble and four Guards each round a 52-tile loop, with
the seed's blockades, house captures and a combat score (RULES.md section 3). ``Game``/``State``
are the rules engine with 2d6 chance nodes, ``Encoder`` the flat per-player observation,
``draw`` the picture, and ``env()`` the PettingZoo AEC environment that rolls the dice itself."""

from envs.nobles.encoder import Encoder
from envs.nobles.engine import Game, State
from envs.nobles.env import env, raw_env
from envs.nobles.hooks import HOOKS
from envs.nobles.render import draw

__all__ = ["HOOKS", "Encoder", "Game", "State", "draw", "env", "raw_env"]
