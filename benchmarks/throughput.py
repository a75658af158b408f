"""Self-play throughput per recipe (configs/experiment/) with each inference option side by side
in one run: decisions (positions) and simulations per second of CPU time of one self-play worker
(one thread), with the recipe's network, search and games, untrained weights, the teacher faded.
CPU time, not wall time: on a shared machine the worker's waits for a core do not count, and
per CPU-second is what a training budget buys.

    python benchmarks/throughput.py                                  # every AlphaZero recipe
    python benchmarks/throughput.py --recipes blockade_seed --games 32 --repeats 5

A variant is ``BACKEND`` or ``BACKEND+cache`` (:func:`models.inference.make_evaluator`;
``+cache`` keeps ``search_speed.CACHE_SIZE`` outputs); ``BACKEND+one-leaf`` is the search as it
was before a Gumbel tree sent a whole halving phase's leaves to one batch (one leaf per tree a
round): the same search, so its games are the same up to the last bits in which torch's outputs
differ between batch sizes. Every variant plays the same seeds with the same weights, in
interleaved repeats whose order alternates (a burst of load from other processes then hits all
alike); each figure is the median over the repeats, and ``x torch`` is the ratio of medians to
the first variant (``torch``: main's self-play). ``same games``: the share of games whose every
action equals the first variant's; ``cache hits``: the share of evaluations the cache
answered.

(In a git worktree other than the one installed, prefix ``PYTHONPATH=.``: the script's own
folder comes first on the path, so ``models`` would otherwise come from the editable install.)
"""

from __future__ import annotations

import argparse
import contextlib
import time
from unittest import mock

import numpy as np
import torch
from rich.console import Console
from rich.table import Table
from search_speed import inference_evaluator
from selfplay_speed import recipe_config

from models.nets import model_config
from search.puct import SearchConfig, _GumbelRoot
from training.alphazero.algorithm import SelfPlayFactory
from training.alphazero.selfplay import Round, SelfPlayConfig
from training.rewards import RewardConfig
from typedconfig import from_mapping

VARIANTS = ["torch", "torch+one-leaf", "torch+cache", "onnx", "onnx+cache", "auto",
            "onnx-int8+cache"]


def workers(recipe: str, variants: list[str], seed: int) -> dict:
    """One self-play worker per variant, each with the same seeded network."""
    config = recipe_config(recipe, [])
    algo = config["algo"]
    factory = SelfPlayFactory(config["env"], model_config(config["model"]),
                              from_mapping(SearchConfig, algo["search"]),
                              from_mapping(SelfPlayConfig, algo["selfplay"]),
                              from_mapping(RewardConfig, algo["rewards"]))
    built = {}
    for variant in variants:
        torch.manual_seed(seed)
        worker = factory()
        worker.evaluator = inference_evaluator(worker.net, worker.encoder,
                                               worker.game.num_players,
                                               variant.removesuffix(ONE_LEAF))
        worker.start_round(Round(worker.net.state_dict(), teacher_share=0.0))  # after the fade
        built[variant] = worker
    return built


ONE_LEAF = "+one-leaf"
"""The suffix of a variant (or move_time.py's agent spec) that searches as before phase
batching."""


def searching_as(name: str):
    """A context in which the search is the one ``name`` asks for: with :data:`ONE_LEAF`, the
    search before phase batching (a Gumbel tree never sends a second leaf to a batch), else
    the search as it is."""
    if name.endswith(ONE_LEAF):
        return mock.patch.object(_GumbelRoot, "next_is_free", lambda self, pending: False)
    return contextlib.nullcontext()


def measure(recipe: str, variants: list[str], games: int, repeats: int, seed: int) -> list[dict]:
    built = workers(recipe, variants, seed)
    seeds = [seed * 1000 + i for i in range(games)]
    rates = {v: {"pos/s": [], "sims/s": []} for v in variants}
    actions = {}
    for repeat in range(repeats):
        for variant in variants if repeat % 2 == 0 else variants[::-1]:
            with searching_as(variant):
                start = time.process_time()
                records = built[variant].play(seeds)
                seconds = time.process_time() - start
            rates[variant]["pos/s"].append(sum(r.moves for r in records) / seconds)
            rates[variant]["sims/s"].append(sum(r.simulations for r in records) / seconds)
            actions[variant] = [r.actions for r in records]
    first = variants[0]
    rows = []
    for variant in variants:
        cache = built[variant].evaluator.cache
        rows.append({"recipe": recipe, "variant": variant,
                     **{k: float(np.median(v)) for k, v in rates[variant].items()},
                     "ratio": float(np.median(rates[variant]["pos/s"])
                                    / np.median(rates[first]["pos/s"])),
                     "same": float(np.mean([a == b for a, b in zip(
                         actions[variant], actions[first], strict=True)])),
                     "hits": None if cache is None else cache.hits / max(cache.lookups, 1)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", nargs="+", default=["blockade_seed", "blockade_lakeside",
                                                         "barricade", "nobles_2p", "nobles_4p"])
    parser.add_argument("--variants", nargs="+", default=VARIANTS)
    parser.add_argument("--games", type=int, default=16, help="self-play games per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    table = Table(title=f"Self-play throughput per CPU second, one worker, one thread, "
                        f"{args.games} games, median of {args.repeats} interleaved repeats")
    for column in ("recipe", "variant", "pos/s", "sims/s", f"x {args.variants[0]}",
                   "same games", "cache hits"):
        table.add_column(column, justify="left" if column in ("recipe", "variant") else "right")
    console = Console(width=120)
    for recipe in args.recipes:
        for row in measure(recipe, args.variants, args.games, args.repeats, args.seed):
            cells = [row["recipe"], row["variant"], f"{row['pos/s']:.1f}",
                     f"{row['sims/s']:.0f}", f"{row['ratio']:.2f}x", f"{row['same']:.0%}",
                     "" if row["hits"] is None else f"{row['hits']:.1%}"]
            console.print(" | ".join(cells))  # as they come: a long run shows its progress
            table.add_row(*cells)
    console.print(table)


if __name__ == "__main__":
    main()
