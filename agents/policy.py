"""A trained network that plays, loaded from a checkpoint file (``checkpoint:PATH`` agents,
``play.py``, the trainer's evaluations): from its policy, or by a noise-free search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

import envs
from models.checkpoint import CheckpointError, build_model, load_checkpoint
from models.config import from_mapping, to_mapping
from models.evaluator import NetworkEvaluator
from models.features import make_encoder
from policies.acting import NetworkActing
from policies.metadata import env_config_mismatch
from search.puct import SearchConfig


class Policy(NetworkActing):
    """A trained network that plays: from its policy (``simulations == 0``; the most likely
    legal action, or with ``temperature`` > 0 one sampled from ``softmax(logits /
    temperature)``) or by a noise-free PUCT/Gumbel search of ``simulations`` simulations."""

    def __init__(self, env_config: dict, game, net: torch.nn.Module, simulations: int,
                 search_config: SearchConfig | None = None, features: tuple[str, ...] = (),
                 temperature: float = 0.0):
        self.env_config = dict(env_config)
        self.game = game
        self.net = net
        self.simulations = simulations
        self.temperature = temperature
        self.search_config = search_config or SearchConfig()
        encoder = make_encoder(game, features)
        self.evaluate = NetworkEvaluator(net, encoder, game.num_players)
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def settings(self) -> dict:
        """How it acts, as a checkpoint's ``policy`` entry (:func:`load_policy` reads it)."""
        return {"simulations": self.simulations, "search": to_mapping(self.search_config),
                "temperature": self.temperature}


def check_env_config(env_config: dict, game, where: str) -> None:
    """``game`` must be the game ``env_config`` describes (defaults resolved on both sides)."""
    mismatch = env_config_mismatch(env_config, game)
    if mismatch:
        raise CheckpointError(f"{where} was trained {mismatch}")


def load_policy(path: str | Path, game=None) -> Policy:
    """The trained agent of a checkpoint, for ``game`` (default: the game it was trained on)."""
    payload = load_checkpoint(path)
    env_config = payload["env_config"]
    if game is None:
        game = envs.make_game(env_config)
    else:
        check_env_config(env_config, game, f"checkpoint {path}")
    net = build_model(payload["model"], f"checkpoint {path}")
    policy = payload["policy"]
    search_config = from_mapping(SearchConfig, policy.get("search") or {}, "policy.search")
    features = tuple(payload["model"]["config"].get("features") or ())
    return Policy(env_config, game, net, int(policy["simulations"]), search_config, features,
                  float(policy["temperature"]))
