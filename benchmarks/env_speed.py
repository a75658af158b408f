"""Environment speed: our engines and PettingZoo envs against named peers, in one run.

    pip install -e ".[bench]" && python benchmarks/env_speed.py [--seconds 3]

(In a git worktree other than the one installed, prefix ``PYTHONPATH=.``: the script's own
folder comes first on the path, so ``envs`` would otherwise come from the editable install.)

Every row plays uniformly random legal moves for a fixed wall-clock budget and reports plies
(engine) or agent steps (env) per second on one core:
- ours: each game's engine raw, the engine with the observation built every ply, and the
  PettingZoo env (``env()`` with its standard wrappers); Blockade also as ``lakeside``;
- OpenSpiel ``quoridor`` (C++ through pybind): raw, with ``observation_tensor`` every ply, and
  through shimmy's PettingZoo wrapper; PettingZoo's ``connect_four_v3``.
Peers that are not installed are listed as missing, not silently dropped.
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np
from rich.console import Console
from rich.table import Table

import envs
from envs.core import sample_chance

VARIANTS = {"blockade": [{}, {"rules": "lakeside"}]}
"""Rule sets measured per game beyond the default: Blockade as published (``lakeside``: the
open-path rule, which OpenSpiel's quoridor also checks on every wall, and jumps)."""


def time_loop(seconds: float, play_one) -> float:
    """Calls ``play_one()`` (one game, returns its ply count) until ``seconds`` have passed;
    plies per second."""
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        plies += play_one()
    return plies / (time.perf_counter() - start)


def best_of_rounds(loops: dict, seconds: float, rounds: int) -> dict:
    """Each loop timed ``rounds`` times, interleaved with the others so that a burst of load
    from other processes hits all rows alike; the best round counts."""
    best = dict.fromkeys(loops, 0.0)
    for _ in range(rounds):
        for key, play_one in loops.items():
            best[key] = max(best[key], time_loop(seconds / rounds, play_one))
    return best


def engine_game(game, rng, encoder=None):
    def play_one() -> int:
        state, plies = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            if encoder is not None:
                encoder.encode(state, state.current_player())
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
            plies += 1
        return plies

    return play_one


def pettingzoo_game(env, rng):
    """Steps an AEC env with random masked actions; the mask comes from the observation dict
    (our envs, connect four) or from ``info`` (shimmy)."""
    seeds = iter(range(10**9))

    def play_one() -> int:
        env.reset(seed=next(seeds))
        steps = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
            actions = np.flatnonzero(mask)
            env.step(int(actions[rng.integers(len(actions))]))
            steps += 1
        return steps

    return play_one


def openspiel_game(game, rng, observe: bool):
    def play_one() -> int:
        state, plies = game.new_initial_state(), 0
        while not state.is_terminal():
            if observe:
                state.observation_tensor(state.current_player())
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
            plies += 1
        return plies

    return play_one


def measure(seconds: float, rounds: int, games: list[str]) -> list[tuple[str, str, float | None]]:
    loops, missing = {}, []
    rng = np.random.default_rng(0)
    for name in games:
        module = envs.game_module(name)
        if not hasattr(module, "env"):
            missing.append((name, "not built yet"))
            continue
        for config in VARIANTS.get(name, [{}]):
            game = module.Game(**config)
            label = " ".join([name, *map(str, config.values()), f"({game.num_players}p)"])
            loops[label, "engine"] = engine_game(game, rng)
            loops[label, "engine + observation"] = engine_game(game, rng, module.Encoder(game))
            loops[label, "PettingZoo env"] = pettingzoo_game(module.env(**config), rng)
    try:
        pyspiel = importlib.import_module("pyspiel")
        quoridor = pyspiel.load_game("quoridor")
        loops["OpenSpiel quoridor", "engine (C++)"] = openspiel_game(quoridor, rng, False)
        loops["OpenSpiel quoridor", "engine + observation_tensor (C++)"] = openspiel_game(
            quoridor, rng, True)
    except ImportError:
        missing.append(("OpenSpiel quoridor", "missing: pip install open_spiel"))
    try:
        from shimmy import OpenSpielCompatibilityV0

        loops["OpenSpiel quoridor", "PettingZoo env (shimmy)"] = pettingzoo_game(
            OpenSpielCompatibilityV0(game_name="quoridor"), rng)
    except ImportError:
        missing.append(("OpenSpiel quoridor", "missing: pip install shimmy"))
    try:
        from pettingzoo.classic import connect_four_v3

        loops["PettingZoo connect_four_v3", "PettingZoo env"] = pettingzoo_game(
            connect_four_v3.env(), rng)
    except ImportError:
        missing.append(("PettingZoo connect_four_v3", "missing: pip install pygame"))
    speeds = best_of_rounds(loops, seconds, rounds)
    return [(game, kind, value) for (game, kind), value in speeds.items()] + [
        (game, why, None) for game, why in missing]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="time budget per row")
    parser.add_argument("--rounds", type=int, default=4,
                        help="interleaved rounds per row; the best counts")
    parser.add_argument("--games", nargs="+", choices=envs.GAMES, default=list(envs.GAMES),
                        help="our games to measure (the peers are always measured)")
    args = parser.parse_args()
    rows = measure(args.seconds, args.rounds, args.games)
    speeds = {(game, kind): value for game, kind, value in rows}
    reference = {
        "engine": speeds.get(("OpenSpiel quoridor", "engine (C++)")),
        "engine + observation": speeds.get(
            ("OpenSpiel quoridor", "engine + observation_tensor (C++)")),
        "PettingZoo env": speeds.get(("OpenSpiel quoridor", "PettingZoo env (shimmy)")),
    }
    table = Table(title=f"Random play, plies or agent steps per second (best of {args.rounds} "
                  f"rounds, {args.seconds:g} s a row)")
    table.add_column("game")
    table.add_column("what")
    table.add_column("per second", justify="right")
    table.add_column("x quoridor (same kind)", justify="right")
    for game, kind, value in rows:
        ref = reference.get(kind)
        ratio = f"{value / ref:.2f}x" if value and ref and not game.startswith("OpenSpiel") else ""
        table.add_row(game, kind, f"{value:,.0f}" if value else "-", ratio)
    Console(width=110).print(table)


if __name__ == "__main__":
    main()
