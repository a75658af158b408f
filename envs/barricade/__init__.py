"""Barricade (2 players, Scouts and Guards, a double move a turn, four rule variants): rules
engine (``Game``, ``State``), observation ``Encoder``, board picture ``draw`` and the PettingZoo
env (``env``, ``raw_env``)."""

from envs.barricade.encoder import Encoder
from envs.barricade.engine import Game, State
from envs.barricade.env import env, raw_env
from envs.barricade.hooks import HOOKS
from envs.barricade.render import draw

__all__ = ["HOOKS", "Encoder", "Game", "State", "draw", "env", "raw_env"]
