"""PPO rollout throughput beside the raw PettingZoo env, per game, in one run.

    python benchmarks/rollout_speed.py [--seconds 4] [--rounds 4] [--threads 1] [--game NAME]
                                       [--runner processes] [--runner ray]
                                       [HYDRA_OVERRIDE ...]   # e.g. model=tiny

Rows per game (default config of each game, plus 4-player Nobles):
- ``PettingZoo env``: random masked actions through ``env()`` with its standard wrappers
  (benchmarks/env_speed.py's loop), one core;
- ``PPO rollout``: ``PPO.collect()`` as ``train.py algo=ppo`` runs it (default PPO config and
  network without the warm start, opponents from the pool, GAE), agent steps of every seat per
  second, env stepping and network inference together, with ``runner=local`` (``--threads``
  torch threads);
- one more per ``--runner``: ``processes 2x2`` (2 worker processes) or ``ray 2x2`` (2 actors
  on a local Ray), both with ``algo.rollout.shards=2`` and one torch thread per worker.

The target is a rollout at >= 50% of the env's steps/s: the policy must not dominate. Rows are
timed in interleaved rounds (per game: the workers of other games' rows are stopped) and the
best round counts, so load from other processes hits all alike.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from env_speed import best_of_rounds, pettingzoo_game
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from rich.console import Console
from rich.table import Table

import envs
from configs.store import register
from training.launch import name_features
from training.ppo import PPO

CONFIG_DIR = str(Path(__file__).resolve().parents[1] / "configs")
GAMES = [("blockade", {}), ("barricade", {}), ("nobles", {}), ("nobles", {"num_players": 4})]
"""(game, env config beside its defaults)"""
RUNNERS = {"local": ["runner=local"],
           "processes": ["runner=processes", "runner.workers=2", "algo.rollout.shards=2"],
           "ray": ["runner=ray", "runner.workers=2", "algo.rollout.shards=2"]}
"""--runner choices: the overrides of each"""


def ppo_config(game: str, env_config: dict, extra: list[str]) -> dict:
    """``train.py algo=ppo env=GAME`` with the ``env_config`` settings and ``extra`` overrides,
    without evaluation or warm start."""
    overrides = [f"env.{k}={v}" for k, v in env_config.items()] + extra
    register()  # the config groups' defaults, as every entry point registers them
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        cfg = compose("config", overrides=["algo=ppo", f"env={game}", "logger=disabled",
                                           "algo.eval.enabled=false",
                                           "algo.warm_start.games=0", *overrides])
    config = OmegaConf.to_container(cfg, resolve=False)
    config["logger"] = {"mode": "disabled"}  # its dir is ${hydra:...}: only inside a Hydra job
    config = OmegaConf.to_container(OmegaConf.create(config), resolve=True)
    name_features(config)
    return config


def ppo_run(game: str, env_config: dict, extra: list[str]) -> PPO:
    """The PPO run of :func:`ppo_config`, started (its first snapshot in the pool) with its
    games under way, as in training."""
    ppo = PPO(ppo_config(game, env_config, extra))
    ppo.start()
    ppo.collect()
    return ppo


def rollout_loop(ppo: PPO):
    def play_one() -> int:
        results, _ = ppo.collect()
        return sum(r.agent_steps for r in results)

    return play_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="time budget per row")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds; best counts")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--runner", action="append", choices=["processes", "ray"],
                        help="also these runners, with 2 workers and 2 shards (repeatable)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the PPO run")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of the local rollout (1: as runner=local runs it)")
    args = parser.parse_args()
    runners = ["local", *(args.runner or [])]
    rng = np.random.default_rng(0)
    speeds = {}
    for game, env_config in GAMES:
        if args.game and game not in args.game:
            continue
        runs = {name: ppo_run(game, env_config, [*RUNNERS[name], *args.overrides])
                for name in runners}
        label = f"{game} ({runs['local'].game.num_players}p)"
        loops = {(label, "env"): pettingzoo_game(envs.game_module(game).env(**env_config), rng)}
        loops.update({(label, name): rollout_loop(ppo) for name, ppo in runs.items()})
        torch.set_num_threads(args.threads)
        try:
            speeds.update(best_of_rounds(loops, args.seconds, args.rounds))
        finally:
            for ppo in runs.values():
                ppo.close()
    title = (f"Agent steps per second (best of {args.rounds} rounds, {args.seconds:g} s a row; "
             f"local rollout with {args.threads} torch threads)")
    columns = ["game", "PettingZoo env", "PPO rollout",
               *(f"{name} 2x2" for name in runners[1:]), "rollout / env"]
    table = Table(*columns, title=title)
    for column in table.columns[1:]:
        column.justify = "right"
    for label in dict.fromkeys(label for label, _ in speeds):
        env = speeds[label, "env"]
        table.add_row(label, f"{env:,.0f}", *(f"{speeds[label, name]:,.0f}" for name in runners),
                      f"{speeds[label, 'local'] / env:.0%}")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
