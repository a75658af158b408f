"""Speed of the AlphaZero loop per recipe (configs/experiment/): self-play decisions per second
and the learner's samples per second, each on one core (one self-play worker, one torch
thread), with the recipe's search, network and games at once, once the teacher has faded
(untrained weights: speed hardly depends on them, though game lengths do).

A training iteration spends ``games_per_iteration * decisions per game / (workers * pos/s)``
seconds in self-play and ``new samples * sample_reuse / learn/s`` seconds in the learner; the
last column is the learner's share of the iteration on 2 workers, so both figures together
say whether self-play or the learner is the bottleneck.

    python benchmarks/selfplay_speed.py                              # every AlphaZero recipe
    python benchmarks/selfplay_speed.py --recipes nobles_2p --games 16
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from rich.console import Console
from rich.table import Table

from configs.store import register
from training.alphazero.algorithm import SelfPlayFactory
from training.alphazero.selfplay import Round
from training.learner import Learner, LearnerConfig
from training.replay import ReplayBuffer, Samples
from typedconfig import from_mapping

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2  # self-play workers of the recipes (runner=processes)


def recipe_config(name: str, overrides: list[str]) -> dict:
    register()  # the config groups' defaults, as every entry point registers them
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[f"+experiment={name}", *overrides])
    return {k: OmegaConf.to_container(cfg[k], resolve=True) for k in ("algo", "env", "model")}


def measure(config: dict, games: int, seed: int) -> dict:
    from models.nets import model_config
    from search.puct import SearchConfig
    from training.alphazero.selfplay import SelfPlayConfig
    from training.rewards import RewardConfig

    algo = config["algo"]
    model = model_config(config["model"])
    factory = SelfPlayFactory(config["env"], model, from_mapping(SearchConfig, algo["search"]),
                              from_mapping(SelfPlayConfig, algo["selfplay"]),
                              from_mapping(RewardConfig, algo["rewards"]))
    torch.manual_seed(seed)
    worker = factory()
    worker.start_round(Round(worker.net.state_dict(), teacher_share=0.0))  # after the fade
    start = time.perf_counter()
    records = worker.play([seed * 1000 + i for i in range(games)])
    played = time.perf_counter() - start
    samples = Samples.concat([r.samples for r in records])
    learner_config = from_mapping(LearnerConfig, algo["learner"])
    replay = ReplayBuffer(len(samples), worker.encoder.shape, worker.game.num_actions,
                          worker.game.num_players)
    replay.add(samples)
    learner = Learner(worker.net, dataclasses.replace(learner_config, min_samples=1))
    steps = max(1, learner.steps_for(len(samples)))
    stats = learner.train(replay, steps, np.random.default_rng(seed))
    positions = sum(r.moves for r in records) / played
    learn_seconds = len(samples) * learner_config.sample_reuse / stats["learner/samples_per_s"]
    return {"pos/s": positions, "sims/s": sum(r.simulations for r in records) / played,
            "learn/s": stats["learner/samples_per_s"],
            "learner share": learn_seconds / (learn_seconds + played / WORKERS)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", nargs="+", default=["blockade_seed", "blockade_any",
                                                         "barricade", "nobles_2p", "nobles_4p"])
    parser.add_argument("--games", type=int, default=32, help="self-play games per row")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    table = Table(title=f"AlphaZero loop speed, one core, {args.games} games a row")
    for column in ("recipe", "variant", "pos/s", "sims/s", "learn/s", "learner share"):
        table.add_column(column, justify="left" if column in ("recipe", "variant") else "right")
    for name in args.recipes:
        variants = {"recipe": []}
        for variant, overrides in variants.items():
            row = measure(recipe_config(name, overrides), args.games, args.seed)
            table.add_row(name, variant, f"{row['pos/s']:.1f}", f"{row['sims/s']:.0f}",
                          f"{row['learn/s']:.0f}", f"{row['learner share']:.0%}")
    Console().print(table)


if __name__ == "__main__":
    main()
