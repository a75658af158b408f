"""Search speed: simulations/s of our batched search with the default network
(``model=small``: ModelConfig's defaults, its input features included), beside the
network's own forward throughput at the same batch size, and beside OpenSpiel's Python
``MCTSBot`` driving the same engine with the same network as a batch-1 evaluator.

Our search runs the network through each inference option of ``--inference``
(:func:`models.inference.make_evaluator`: ``torch`` is ``models.evaluator.inference_module``,
frozen TorchScript with batch norm folded and oneDNN, as training and checkpoint agents use it;
``onnx`` onnxruntime; ``+cache`` with the evaluation cache), with each root of ``--roots``:
``puct`` (one leaf a tree per network call) and ``gumbel`` (the root that the recipes and the zoo
agents search with, where a tree sends a halving phase's leaves in one call). OpenSpiel is
timed with the eager network (what a user of its ``MCTSBot`` would plug in), with the frozen
module, and with the network in onnxruntime, float and 8-bit (so that our 8-bit rows meet a peer
on the same runtime), the onnxruntime ones also behind an evaluation cache, as OpenSpiel's own
AlphaZero evaluator has one: ``MCTSBot`` asks for a leaf's value when it first reaches it and
for its priors when it expands it on a later visit, two network calls for one position without
a cache. The ratio is against the fastest.

    python benchmarks/search_speed.py                      # Blockade, 2 players
    python benchmarks/search_speed.py --game nobles --simulations 64 --batches 1 16 64
    python benchmarks/search_speed.py --roots gumbel --inference torch onnx-int8

Columns:
- ``sims/s``: simulations per second of wall time (``batch`` trees searched together).
- ``net pos/s``: the network alone (the runner of that inference option), forward passes on
  random inputs of that batch size.
- ``overhead``: share of the search's wall time not spent inside the network's forward
  (selection, expansion, backup, encoding, engine moves): 1 - forward time / wall time.
- ``vs OpenSpiel``: our sims/s over OpenSpiel ``MCTSBot`` sims/s (PUCT child selection,
  no solver, same network weights, same engine states) with its fastest evaluator.
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

import envs
from envs.core import sample_chance
from models.evaluator import NetworkEvaluator
from models.features import make_encoder
from models.inference import make_evaluator
from models.nets import ModelConfig, action_layout, build_network
from search.puct import ROOT_MODES, SearchConfig, search

CACHE_SIZE = 4096
"""Outputs kept by an inference variant's ``+cache``: in self-play every hit of 32 games at the
recipes' budgets falls within the last ~1,000 evaluations (LRU sizes 1,024 to 65,536 gave the
same hit rate within 0.5 points)."""

class TimedRunner:
    """An evaluator's runner (observations -> network outputs), with the wall time spent in it
    added up."""

    def __init__(self, runner):
        self.runner = runner
        self.seconds = 0.0

    def __call__(self, obs):
        start = time.perf_counter()
        out = self.runner(obs)
        self.seconds += time.perf_counter() - start
        return out


def sample_positions(game, count: int, seed: int) -> list:
    """Decision positions a few random moves into a game (distinct, reproducible)."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(2, 12))):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        if not state.is_terminal():
            positions.append(state)
    return positions


def forward_rate(runner, shape, batch: int, seconds: float) -> float:
    x = torch.rand(batch, *shape).numpy()
    runner(x)
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        runner(x)
        calls += 1
    return batch * calls / (time.perf_counter() - start)


def inference_evaluator(net, encoder, num_players: int, variant: str) -> NetworkEvaluator:
    """The evaluator of an inference variant: ``BACKEND`` or ``BACKEND+cache``
    (:data:`CACHE_SIZE` outputs kept)."""
    backend, _, cache = variant.partition("+")
    return make_evaluator(net, encoder, num_players, backend, CACHE_SIZE if cache else 0)


def our_search(evaluator: NetworkEvaluator, positions, simulations: int,
               root: str) -> tuple[float, float]:
    """(simulations/s, share of wall time inside the network)."""
    timed = evaluator.runner = TimedRunner(evaluator.runner)
    config = SearchConfig(simulations=simulations, root=root, chance="sample")
    rngs = [np.random.default_rng(i) for i in range(len(positions))]
    start = time.perf_counter()
    search(positions, evaluator, config, rngs, add_noise=False)
    wall = time.perf_counter() - start
    evaluator.runner = timed.runner
    if evaluator.cache is not None:
        evaluator.cache.clear()  # every repeat starts cold
    return len(positions) * simulations / wall, timed.seconds / wall


class OpenSpielEvaluator:
    """OpenSpiel's Evaluator interface over our network, one position per call."""

    def __init__(self, evaluator: NetworkEvaluator):
        self.evaluator = evaluator

    def evaluate(self, state):
        return self.evaluator([state])[1][0]

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        logits = self.evaluator([state])[0][0]
        legal = state.legal_actions()
        z = np.exp(logits[legal] - logits[legal].max())
        return list(zip(legal, z / z.sum(), strict=True))


def openspiel_search(game, evaluator: NetworkEvaluator, positions,
                     simulations: int) -> float | None:
    """Simulations/s of OpenSpiel's Python MCTSBot on our engine states (which already speak
    pyspiel's state method names), or None when open_spiel is not installed."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError:
        return None
    game_type = SimpleNamespace(reward_model=pyspiel.GameType.RewardModel.TERMINAL,
                                dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL)
    shim = SimpleNamespace(get_type=lambda: game_type, max_utility=lambda: 1.0,
                           num_players=lambda: game.num_players)
    bot = mcts.MCTSBot(shim, uct_c=1.5, max_simulations=simulations,
                       evaluator=OpenSpielEvaluator(evaluator),
                       solve=False, random_state=np.random.RandomState(0),
                       child_selection_fn=mcts.SearchNode.puct_value)
    start = time.perf_counter()
    for state in positions:
        bot.mcts_search(state)
    rate = len(positions) * simulations / (time.perf_counter() - start)
    if evaluator.cache is not None:
        evaluator.cache.clear()  # every repeat starts cold
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="blockade", choices=envs.GAMES)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--inference", nargs="+", default=["torch", "onnx", "onnx+cache"],
                        help="our search's inference options: BACKEND or BACKEND+cache")
    parser.add_argument("--roots", nargs="+", choices=ROOT_MODES, default=list(ROOT_MODES),
                        help="our search's root rules")
    parser.add_argument("--repeats", type=int, default=3,
                        help="interleaved repeats of every row; medians count")
    parser.add_argument("--openspiel-positions", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--no-features", action="store_true",
                        help="the game's own observation only (no model.features planes)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = {} if args.game == "barricade" else {"num_players": args.players}
    game = envs.make_game({"name": args.game, **config})
    model = ModelConfig()
    encoder = make_encoder(game, () if args.no_features else model.features)
    net = build_network(encoder.shape, game.num_actions, game.num_players, model,
                        action_layout(encoder)).eval()
    ours = {variant: inference_evaluator(net, encoder, game.num_players, variant)
            for variant in args.inference}
    peers = {"eager": NetworkEvaluator(net, encoder, game.num_players, optimize=False),
             "frozen": inference_evaluator(net, encoder, game.num_players, "torch"),
             "onnx": inference_evaluator(net, encoder, game.num_players, "onnx"),
             "onnx-int8": inference_evaluator(net, encoder, game.num_players, "onnx-int8"),
             "onnx+cache": inference_evaluator(net, encoder, game.num_players, "onnx+cache"),
             "onnx-int8+cache": inference_evaluator(net, encoder, game.num_players,
                                                    "onnx-int8+cache")}
    os_positions = sample_positions(game, args.openspiel_positions, 1)
    batches = {batch: sample_positions(game, batch, 0) for batch in args.batches}
    rates: dict = {}
    # Everything once per repeat, so that load hits all rows alike; the first repeat is a
    # warm-up (TorchScript optimizes a module on its first calls) and does not count.
    for repeat in range(args.repeats + 1):
        if repeat == 1:
            rates.clear()
        for name, evaluator in peers.items():
            rate = openspiel_search(game, evaluator, os_positions, args.simulations)
            rates.setdefault(("openspiel", name), []).append(rate)
        for variant, evaluator in ours.items():
            for root in args.roots:
                for batch, positions in batches.items():
                    rates.setdefault((variant, root, batch), []).append(
                        our_search(evaluator, positions, args.simulations, root))
    openspiel = {name: None if None in rates["openspiel", name]
                 else float(np.median(rates["openspiel", name])) for name in peers}
    best_peer = max((rate, name) for name, rate in openspiel.items() if rate is not None) \
        if openspiel["eager"] is not None else None
    table = Table(title=f"{args.game} ({game.num_players} players), {args.simulations} "
                        f"simulations per search, default network, {args.threads} thread(s), "
                        f"input {encoder.shape}, medians of {args.repeats} repeats")
    for column in ("inference", "root", "batch", "sims/s", "net pos/s", "overhead",
                   "vs OpenSpiel" + ("" if best_peer is None else f" ({best_peer[1]})")):
        table.add_column(column, justify="left" if column in ("inference", "root") else "right")
    for variant, evaluator in ours.items():
        net_rates = {batch: forward_rate(evaluator.runner, encoder.shape, batch, 1.0)
                     for batch in args.batches}
        for root in args.roots:
            for batch in args.batches:
                rate, net_share = np.median(rates[variant, root, batch], axis=0)
                table.add_row(variant, root, str(batch), f"{rate:.0f}", f"{net_rates[batch]:.0f}",
                              f"{100 * (1 - net_share):.1f}%",
                              "n/a" if best_peer is None else f"{rate / best_peer[0]:.1f}x")
    console = Console()
    console.print(table)
    if best_peer is not None:
        console.print("OpenSpiel MCTSBot (Python, batch-1 evaluator), sims/s: " + ", ".join(
            f"{rate:.0f} with the {name} network" for name, rate in openspiel.items()))


if __name__ == "__main__":
    main()
