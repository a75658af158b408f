"""Time a move: milliseconds per move of agents (zoo entries at their default play, the same
entry at other options, any agent spec) on the same positions, beside a peer measured in the same
run: by default plain MCTS with 1,000 simulations, the yardstick of the strength issue (a zoo
entry plays at most a third of its time a move).

    python benchmarks/move_time.py zoo:nobles_3p zoo:nobles_3p:sims=100
    python benchmarks/move_time.py zoo:blockade_open_3p --positions 30
    python benchmarks/move_time.py heuristic --env '{"name": "barricade"}'
    python benchmarks/move_time.py zoo:nobles_3p zoo:nobles_3p+one-leaf

A spec ending in ``+one-leaf`` is that agent searching as before a Gumbel tree sent a whole
halving phase's leaves to one batch (one leaf a round: the same moves, more network calls).

The positions are decision points (more than one legal move) drawn at random from games of the
heuristic in every seat, seeded, in the game of the first zoo agent (its rules and seat count) or
of ``--env``. Every agent (the peer first) moves from each position once, one thread; the
positions are timed in two halves, agents interleaved, so that a burst of load from other
processes hits all alike.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import torch
from rich.console import Console
from rich.table import Table
from throughput import ONE_LEAF, searching_as

import envs
import zoo
from agents import make_agent, parse_spec
from envs.core import sample_chance


def game_config(agents: list[str], env: str | None) -> dict:
    """``--env`` as a mapping, else the rules of the first zoo agent among ``agents``."""
    if env is not None:
        config = json.loads(env)
        if not isinstance(config, dict) or "name" not in config:
            raise SystemExit(f"--env must be a JSON object with a game name, got {env!r}")
        return config
    for spec in agents:
        kind, options = parse_spec(spec)
        if kind == "zoo":
            return zoo.metadata(options["name"])["env_config"]
    raise SystemExit("no zoo agent to take the game from: give --env '{\"name\": ...}'")


def sample_positions(game, count: int, seed: int) -> list:
    """``count`` decision points of heuristic self-play: each one kept with probability 5%."""
    rng = random.Random(seed)
    heuristic = make_agent("heuristic", game)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state()
        heuristic.reset(game, 0, rng.randrange(2**31))
        while not state.is_terminal() and len(positions) < count:
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            if len(state.legal_actions()) > 1 and rng.random() < 0.05:
                positions.append(state.clone())
            state.apply_action(heuristic.act(state))
    return positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+", help="agent specs to time")
    parser.add_argument("--peer", default="mcts:simulations=1000",
                        help="the agent every other is compared with")
    parser.add_argument("--env", help="the game as a JSON env config (default: the first zoo "
                                      "agent's rules)")
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = game_config(args.agents, args.env)
    game = envs.make_game(config)
    positions = sample_positions(game, args.positions, args.seed)
    agents = {}
    for spec in dict.fromkeys([args.peer, *args.agents]):
        agent = make_agent(spec.removesuffix(ONE_LEAF), game)
        agent.reset(game, 0, args.seed)
        agent.act(positions[0].clone())  # first-call costs (sessions, caches) do not count
        agents[spec] = agent
    seconds = dict.fromkeys(agents, 0.0)
    half = len(positions) // 2
    for part in (positions[:half], positions[half:]):
        for spec, agent in agents.items():
            with searching_as(spec):
                start = time.perf_counter()
                for state in part:
                    agent.act(state.clone())
                seconds[spec] += time.perf_counter() - start
    table = Table(title=f"ms per move, {config['name']} {game.num_players}p "
                        f"({', '.join(f'{k}={v}' for k, v in config.items() if k != 'name')}), "
                        f"{len(positions)} positions of heuristic games, seed {args.seed}, "
                        "1 thread")
    for column in ("agent", "ms/move", f"x {args.peer}"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for spec, total in seconds.items():
        table.add_row(spec, f"{1000 * total / len(positions):.1f}",
                      f"{total / seconds[args.peer]:.2f}")
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
