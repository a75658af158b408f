"""PPO rollout throughput beside the raw PettingZoo env, per game, in one run.

    python benchmarks/rollout_speed.py [--seconds 4] [--rounds 4] [--threads 1] [--game NAME]
                                       [HYDRA_OVERRIDE ...]   # e.g. model=tiny

Rows per game (default config of each game, plus 4-player Nobles):
- ``PettingZoo env``: random masked actions through ``env()`` with its standard wrappers
  (benchmarks/env_speed.py's loop), one core;
- ``PPO rollout``: ``training.rollout.Rollout.collect()`` as ``train.py algo=ppo`` builds it
  (default PPO config and network, opponents from the pool), agent steps of every seat per
  second, env stepping and network inference together, with ``--threads`` torch threads.

The target is a rollout at >= 50% of the env's steps/s: the policy must not dominate. Rows are
timed in interleaved rounds and the best round counts, so load from other processes hits both
alike.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import torch
from env_speed import best_of_rounds, pettingzoo_game
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from rich.console import Console
from rich.table import Table

import envs
from training.logging import RunLogger
from training.ppo import PPO

CONFIG_DIR = str(Path(__file__).resolve().parents[1] / "configs")
GAMES = [("blockade", {}), ("barricade", {}), ("nobles", {}), ("nobles", {"num_players": 4})]
"""(game, env config beside its defaults)"""


def ppo_rollout(game: str, env_config: dict, run_dir: str, extra: list[str]):
    """A loop over ``collect()`` of the PPO run for ``game`` (default config plus ``extra``
    overrides); returns agent steps."""
    overrides = [f"env.{k}={v}" for k, v in env_config.items()] + extra
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        cfg = compose("config", overrides=["algo=ppo", f"env={game}", "logger=disabled",
                                           "algo.eval.enabled=false", *overrides])
    config = OmegaConf.to_container(cfg, resolve=False)
    config["logger"] = {"mode": "disabled"}
    ppo = PPO(config, run_dir, RunLogger(config["logger"], config, run_dir))
    ppo.start()
    ppo.rollout.collect()  # games under way, as in training

    def play_one() -> int:
        return ppo.rollout.collect()[2]["rollout/agent_steps"]

    return play_one, ppo.game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="time budget per row")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds; best counts")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the PPO run")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of the rollout (1: as runner=local runs it)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    loops, labels = {}, {}
    with tempfile.TemporaryDirectory() as run_dir:
        for game, env_config in GAMES:
            if args.game and game not in args.game:
                continue
            play, g = ppo_rollout(game, env_config, run_dir, args.overrides)
            label = f"{game} ({g.num_players}p)"
            loops[label, "env"] = pettingzoo_game(envs.game_module(game).env(**env_config), rng)
            loops[label, "rollout"] = play
            labels[label] = g
        torch.set_num_threads(args.threads)
        speeds = best_of_rounds(loops, args.seconds, args.rounds)
    table = Table(title=f"Agent steps per second (best of {args.rounds} rounds, {args.seconds:g}"
                  f" s a row; rollout with {args.threads} torch threads)")
    for column in ("game", "PettingZoo env", "PPO rollout", "rollout / env"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for label in labels:
        env, rollout = speeds[label, "env"], speeds[label, "rollout"]
        table.add_row(label, f"{env:,.0f}", f"{rollout:,.0f}", f"{rollout / env:.0%}")
    Console(width=100).print(table)


if __name__ == "__main__":
    main()
