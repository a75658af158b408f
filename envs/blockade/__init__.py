"""Blockade (2-4 players, pawns and walls): rules engine (``Game``, ``State``), observation
``Encoder``, board picture ``draw`` and the PettingZoo env (``env``, ``raw_env``)."""

from envs.blockade.encoder import Encoder
from envs.blockade.engine import Game, State
from envs.blockade.env import env, raw_env
from envs.blockade.hooks import HOOKS
from envs.blockade.render import draw

__all__ = ["HOOKS", "Encoder", "Game", "State", "draw", "env", "raw_env"]
