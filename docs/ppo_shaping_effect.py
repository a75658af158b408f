"""The sparse-reward remedies for PPO on 2-player Blockade, on and off, measured.

    python docs/ppo_shaping_effect.py [--minutes 5] [--games 20] [--seed 0] [HYDRA_OVERRIDE ...]

Trains one short PPO run per setting (same seed, same time budget, otherwise the default config
of ``train.py algo=ppo``) and plays each run's greedy policy against ``random`` (seats
alternating), reporting the race distance left to its own goals at the end (walking steps,
training/rewards.py), how often the opponent ended walled in for good, and wins. Settings:

- none: engine returns only (a truncated game pays 0 to everyone);
- adjudication: a truncated game pays each player's race lead (AlphaZero's remedy);
- shaping: potential-based shaping on the race lead (the PPO default).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from hydra import compose, initialize_config_dir
from rich.console import Console
from rich.table import Table

import envs
from agents import make_agent
from agents.network import checkpoint_agent
from envs.blockade.distances import race_distances as blockade_race_distances
from models.checkpoint import load_checkpoint
from training.launch import run

SETTINGS = {
    "none": ["algo.rewards.adjudication=none", "algo.shaping.potential=none"],
    "adjudication": ["algo.rewards.adjudication=distance", "algo.shaping.potential=none"],
    "shaping": ["algo.rewards.adjudication=none", "algo.shaping.potential=distance"],
}
CONFIG_DIR = str(Path(__file__).resolve().parents[1] / "configs")


def train(setting: str, minutes: float, seed: int, out: Path, extra: list[str]):
    overrides = ["algo=ppo", "env=blockade", "logger=disabled", f"logger.dir={out}", f"seed={seed}",
                 f"algo.time_limit_minutes={minutes}", "algo.eval.enabled=false",
                 *extra, *SETTINGS[setting]]
    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    return run(cfg, out / setting, overrides)


def play_vs_random(checkpoint: Path, games: int) -> dict:
    policy = checkpoint_agent(checkpoint)
    game = envs.make_game(load_checkpoint(checkpoint)["env_config"])
    own, walled, wins = [], 0, 0
    cap = 2 * (game.rows + game.cols)  # beyond any open walk: a pawn walled in for good
    for index in range(games):
        me = index % 2
        opponent = make_agent("random", game)
        opponent.reset(game, 1 - me, index)
        policy.reset(game, me, index)
        state = game.new_initial_state()
        while not state.is_terminal():
            mover = policy if state.current_player() == me else opponent
            state.apply_action(mover.act(state))
        distances = blockade_race_distances(state)
        own.append(min(distances[me], cap))
        walled += distances[1 - me] >= cap
        wins += state.returns()[me] > 0
    return {"own": float(np.mean(own)), "walled": walled / games, "wins": wins}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="training budget per setting")
    parser.add_argument("--games", type=int, default=20, help="games against random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides for every setting")
    args = parser.parse_args()
    table = Table(title=f"PPO on Blockade, {args.minutes:g} minutes per setting, greedy policy "
                  f"vs random ({args.games} games)")
    for column in ("remedy", "iterations", "race steps left", "opponent walled in", "wins"):
        table.add_column(column, justify="left" if column == "remedy" else "right")
    with tempfile.TemporaryDirectory() as out:
        for setting in SETTINGS:
            result = train(setting, args.minutes, args.seed, Path(out), args.overrides)
            measured = play_vs_random(result.checkpoint, args.games)
            table.add_row(setting, str(result.counters["iteration"]),
                          f"{measured['own']:.1f}", f"{measured['walled']:.0%}",
                          f"{measured['wins']}/{args.games}")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
