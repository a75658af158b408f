"""Search speed: simulations/s of our batched PUCT search with the default network
(``model=small``: ModelConfig's defaults, its input features included), beside the
network's own forward throughput at the same batch size, and beside OpenSpiel's Python
``MCTSBot`` driving the same engine with the same network as a batch-1 evaluator.

Our search runs the network as ``models.evaluator.inference_module`` (frozen TorchScript, batch
norm folded, oneDNN), as training and checkpoint agents do. OpenSpiel is timed twice: with the
eager network (what a user of its ``MCTSBot`` would plug in) and with the same frozen module.

    python benchmarks/search_speed.py                      # Blockade, 2 players
    python benchmarks/search_speed.py --game nobles --simulations 64 --batches 1 16 64

Columns:
- ``sims/s``: simulations per second of wall time (``batch`` trees searched together).
- ``net pos/s``: the network alone (the frozen module the search runs), forward passes on
  random inputs of that batch size.
- ``overhead``: share of the search's wall time not spent inside the network's forward
  (selection, expansion, backup, encoding, engine moves): 1 - forward time / wall time.
- ``vs OpenSpiel``: our sims/s over OpenSpiel ``MCTSBot`` sims/s (PUCT child selection,
  no solver, same network weights, same engine states), with the eager network / with the
  frozen module in its evaluator.
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
from models.evaluator import NetworkEvaluator, inference_module
from models.features import make_encoder
from models.nets import ModelConfig, action_layout, build_network
from search.puct import SearchConfig, search


class TimedNet(torch.nn.Module):
    """The network, with the wall time spent in its forward passes added up."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.seconds = 0.0

    def forward(self, obs):
        start = time.perf_counter()
        out = self.net(obs)
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
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        if not state.is_terminal():
            positions.append(state)
    return positions


def forward_rate(net, shape, batch: int, seconds: float) -> float:
    x = torch.rand(batch, *shape)
    net.eval()
    with torch.inference_mode():
        net(x)
        start, calls = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            net(x)
            calls += 1
    return batch * calls / (time.perf_counter() - start)


def our_search(game, encoder, net, positions, simulations: int) -> tuple[float, float]:
    """(simulations/s, share of wall time inside the network)."""
    evaluator = NetworkEvaluator(net, encoder, game.num_players)
    timed = evaluator.module = TimedNet(evaluator.module)
    config = SearchConfig(simulations=simulations, root="puct", chance="sample")
    rngs = [np.random.default_rng(i) for i in range(len(positions))]
    start = time.perf_counter()
    search(positions, evaluator, config, rngs, add_noise=False)
    wall = time.perf_counter() - start
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


def openspiel_search(game, encoder, net, positions, simulations: int,
                     optimize: bool) -> float | None:
    """Simulations/s of OpenSpiel's Python MCTSBot on our engine states (which already speak
    pyspiel's state method names), or None when open_spiel is not installed; ``optimize``: the
    network as our frozen inference module, else eager."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError:
        return None
    game_type = SimpleNamespace(reward_model=pyspiel.GameType.RewardModel.TERMINAL,
                                dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL)
    shim = SimpleNamespace(get_type=lambda: game_type, max_utility=lambda: 1.0,
                           num_players=lambda: game.num_players)
    evaluator = OpenSpielEvaluator(NetworkEvaluator(net, encoder, game.num_players, optimize))
    bot = mcts.MCTSBot(shim, uct_c=1.5, max_simulations=simulations, evaluator=evaluator,
                       solve=False, random_state=np.random.RandomState(0),
                       child_selection_fn=mcts.SearchNode.puct_value)
    start = time.perf_counter()
    for state in positions:
        bot.mcts_search(state)
    return len(positions) * simulations / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="blockade", choices=envs.GAMES)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 64])
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
    os_positions = sample_positions(game, args.openspiel_positions, 1)
    os_eager, os_frozen = (openspiel_search(game, encoder, net, os_positions, args.simulations,
                                            optimize) for optimize in (False, True))
    frozen = inference_module(net)
    table = Table(title=f"{args.game} ({game.num_players} players), {args.simulations} "
                        f"simulations per search, default network, {args.threads} thread(s), "
                        f"input {encoder.shape}")
    for column in ("batch", "sims/s", "net pos/s", "overhead", "vs OpenSpiel"):
        table.add_column(column, justify="right")
    for batch in args.batches:
        positions = sample_positions(game, batch, 0)
        rate, net_share = our_search(game, encoder, net, positions, args.simulations)
        table.add_row(str(batch), f"{rate:.0f}",
                      f"{forward_rate(frozen, encoder.shape, batch, 2.0):.0f}",
                      f"{100 * (1 - net_share):.1f}%",
                      "n/a" if os_eager is None else
                      f"{rate / os_eager:.1f}x / {rate / os_frozen:.1f}x")
    console = Console()
    console.print(table)
    if os_eager is not None:
        console.print(f"OpenSpiel MCTSBot (Python, batch-1 evaluator): {os_eager:.0f} sims/s "
                      f"with the eager network, {os_frozen:.0f} with the frozen module")


if __name__ == "__main__":
    main()
