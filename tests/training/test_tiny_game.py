"""A new game plugs in by its package alone: tests/tiny_race.py (engine, encoder, hooks, env)
trains end to end through AlphaZero and PPO by the code path of train.py, with no edit outside
that file."""

from pathlib import Path

import numpy as np
import pytest
import tiny_race
import torch
from contract import check_mask_is_exactly_the_accepted_actions, play_random
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from pettingzoo.test import api_test

import envs
from agents.network import checkpoint_agent
from models.checkpoint import load_checkpoint
from models.features import make_encoder
from training.launch import run
from training.rewards import Outcomes, RewardConfig

ROOT = Path(__file__).resolve().parents[2]
ENV = {"name": "tiny_race", "length": 5, "max_turns": 16}
ALGOS = {
    "alphazero": ["algo=alphazero", "algo.iterations=2", "algo.games_per_iteration=4",
                  "algo.search.simulations=4", "algo.selfplay.concurrent_games=4",
                  "algo.learner.min_samples=8", "algo.learner.batch_size=8",
                  "algo.time_limit_minutes=null",
                  "algo.warm_start.teacher=random",  # a game without a heuristic
                  "algo.selfplay.teacher=random"],
    "ppo": ["algo=ppo", "algo.iterations=2", "algo.rollout.num_envs=4",
            "algo.rollout.num_steps=8", "algo.optim.minibatch_size=16",
            "algo.optim.update_epochs=1", "algo.pool.baselines=[random]",
            "algo.shaping.potential=distance"],
}
COMMON = ["model=tiny", "logger=disabled", "runner=local", "algo.eval.every=0",
          "algo.eval.final_games=0", "algo.checkpoint.every=1", "algo.warm_start.games=0"]


def test_the_game_is_found_by_its_name_and_keeps_the_contract():
    game = envs.make_game(ENV)
    assert isinstance(game, tiny_race.Game) and envs.game_package(game) is tiny_race
    assert envs.game_hooks(game) is tiny_race.HOOKS
    state = play_random(game.new_initial_state(), np.random.default_rng(0), 3)
    check_mask_is_exactly_the_accepted_actions(state)
    api_test(tiny_race.env(**{k: v for k, v in ENV.items() if k != "name"}), num_cycles=30)


def test_its_hooks_reach_the_encoder_and_the_adjudicator():
    game = envs.make_game(ENV)
    encoder = make_encoder(game, ["auto"])
    assert isinstance(encoder, tiny_race.SquaresToGo) and encoder.shape == (4, 1, 6)
    state = game.state_from_dict({"squares": [3, 1], "to_move": 0, "turn": 16})
    assert state.is_truncated()
    value = Outcomes(game, RewardConfig(adjudication="distance"))(state)
    assert value[0] > 0 > value[1]  # the runner ahead wins the adjudication


@pytest.mark.parametrize("algo", ["alphazero", "ppo"])
def test_it_trains_end_to_end(tmp_path, algo):
    torch.manual_seed(0)
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[*ALGOS[algo], *COMMON, f"logger.dir={tmp_path}"])
    cfg.env = OmegaConf.create(ENV)
    result = run(cfg, tmp_path / algo)
    payload = load_checkpoint(result.checkpoint)
    assert payload["env_config"] == ENV
    assert payload["model"]["config"]["features"] == ["to_go"]
    assert len(payload["history"]) == 2
    agent = checkpoint_agent(result.checkpoint)  # the trained agent plays the game
    state = envs.make_game(ENV).new_initial_state()
    assert state.legal_actions_mask()[agent.act(state)]


def test_a_play_leaf_mix_needs_a_game_with_an_evaluation(tmp_path):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[*ALGOS["alphazero"], *COMMON,
                                           "algo.play_game_value_weight=0.5",
                                           f"logger.dir={tmp_path}"])
    cfg.env = OmegaConf.create(ENV)  # tiny_race has no evaluate hook
    with pytest.raises(ValueError, match="algo.play_game_value_weight needs a game with an "
                                         "evaluate hook"):
        run(cfg, tmp_path / "run")
