"""Self-play throughput of the runners: positions (recorded samples) per second of AlphaZero
self-play with the default config (2-player Blockade, model=small, 16 simulations), the same
seeds and weights for every runner, in one run:

- ``local``: the worker in this process,
- ``processes``: 2 worker processes (the default run's runner),
- ``ray 1`` and ``ray 2``: 1 and 2 Ray actors on a local Ray (``runner=ray``).

Each runner first plays one warm-up round (worker start, imports; its seconds are the
``start s`` column, Ray's own start included), then ``--rounds`` timed rounds of ``--games``
games; the table gives the mean rate and the range over rounds. Ray's overhead is its rate
against ``processes`` with as many workers.

Then a paper estimate for a cluster: ``nodes * cores_per_node`` actors at the measured
one-actor rate, against the learner's limit (the positions per second its gradient steps
consume at ``learner.sample_reuse``, measured here); an iteration alternates the two, so the
run's rate is ``1 / (1 / self-play + 1 / learner)``.

    python benchmarks/runner_speed.py                      # 16 games x 3 rounds
    python benchmarks/runner_speed.py --games 32 --rounds 5
"""

from __future__ import annotations

import argparse
import subprocess
import time
from pathlib import Path

import numpy as np
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from rich.console import Console
from rich.table import Table

from configs.store import register
from training.alphazero.algorithm import AlphaZero, SelfPlayFactory, game_seed
from training.alphazero.selfplay import Round
from training.launch import name_features
from training.replay import Samples
from training.runner import RunnerConfig, make_runner
from typedconfig import from_mapping

ROOT = Path(__file__).resolve().parents[1]
RUNNERS = [("local", "local", 1), ("processes 2", "processes", 2), ("ray 1", "ray", 1),
           ("ray 2", "ray", 2)]


def default_config() -> dict:
    register()  # the config groups' defaults, as every entry point registers them
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=["logger=disabled", "runner=local"])
    config = OmegaConf.to_container(cfg, resolve=False)
    config["logger"].pop("dir", None)  # ${hydra:...}: only set inside a Hydra job
    config = OmegaConf.to_container(OmegaConf.create(config), resolve=True)
    name_features(config)
    return config


def measure(algorithm: AlphaZero, runner_name: str, workers: int, games: int,
            rounds: int) -> dict:
    config = from_mapping(RunnerConfig, {"name": runner_name, "workers": workers})
    start = time.perf_counter()
    a = algorithm.algo
    runner = make_runner(config, SelfPlayFactory(algorithm.env_config, algorithm.model_config,
                                                 a.search, a.selfplay, a.rewards))
    runner.start_round(Round(algorithm.net.state_dict()))
    runner.play([game_seed(0, 10**6 + i) for i in range(workers)])  # start every worker
    started = time.perf_counter() - start
    rates, records = [], []
    for r in range(rounds):
        seeds = [game_seed(0, r * games + i) for i in range(games)]
        start = time.perf_counter()
        records = runner.play(seeds)
        rates.append(sum(len(x.samples) for x in records) / (time.perf_counter() - start))
    runner.close()
    return {"rates": np.array(rates), "start": started, "records": records}


def learner_rate(algorithm: AlphaZero, records: list, steps: int) -> float:
    """Positions per second the learner consumes: its steps' samples over sample_reuse."""
    algorithm.replay.add(Samples.concat([r.samples for r in records]))
    config = algorithm.algo.learner
    start = time.perf_counter()
    algorithm.learner.train(algorithm.replay, steps, np.random.default_rng(0))
    seconds = time.perf_counter() - start
    return steps * config.batch_size / config.sample_reuse / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="games per timed round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--learner-steps", type=int, default=50)
    parser.add_argument("--cores-per-node", type=int, default=16,
                        help="actors per node in the cluster estimate")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = default_config()
    algorithm = AlphaZero({**config, "algo": {**config["algo"],
                                              "learner": {**config["algo"]["learner"],
                                                          "min_samples": 1}}})
    results = {}
    for label, name, workers in RUNNERS:
        results[label] = measure(algorithm, name, workers, args.games, args.rounds)
        print(f"{label}: {results[label]['rates'].mean():.0f} positions/s", flush=True)
    learn = learner_rate(algorithm, results["local"]["records"], args.learner_steps)

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    table = Table("runner", "positions/s", "range", "vs processes 2", "start s",
                  title=f"AlphaZero self-play, {args.games} games x {args.rounds} rounds, "
                        f"commit {commit}")
    base = results["processes 2"]["rates"].mean()
    for label, r in results.items():
        rates = r["rates"]
        table.add_row(label, f"{rates.mean():.0f}", f"{rates.min():.0f}-{rates.max():.0f}",
                      f"{rates.mean() / base:.2f}x", f"{r['start']:.1f}")
    console = Console()
    console.print(table)
    per_actor = results["ray 1"]["rates"].mean()
    estimate = Table("nodes", "actors", "self-play positions/s", "learner limit",
                     "run positions/s", title="paper estimate: measured one-actor rate x "
                                              "actors, learner measured here")
    for nodes in (1, 8, 64):
        actors = nodes * args.cores_per_node
        selfplay = actors * per_actor
        estimate.add_row(str(nodes), str(actors), f"{selfplay:.0f}", f"{learn:.0f}",
                         f"{1 / (1 / selfplay + 1 / learn):.0f}")
    console.print(estimate)


if __name__ == "__main__":
    main()
