"""Environment speed: our engines and PettingZoo envs against named peers, in one run.

    pip install -e ".[bench]" && python benchmarks/env_speed.py [--seconds 3]

Every row plays uniformly random legal moves for a fixed wall-clock budget and reports plies
(engine) or agent steps (env) per second on one core:
- ours: each game's engine raw, the engine with the observation built every ply, and the
  PettingZoo env (``env()`` with its standard wrappers);
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


def time_loop(seconds: float, play_one) -> float:
    """Calls ``play_one()`` (one game, returns its ply count) until ``seconds`` have passed;
    plies per second."""
    plies, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        plies += play_one()
    return plies / (time.perf_counter() - start)


def engine_game(game, rng, encoder=None):
    def play_one() -> int:
        state, plies = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
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
            env.step(int(rng.choice(np.flatnonzero(mask))))
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


def measure(seconds: float) -> list[tuple[str, str, float | None]]:
    rows: list[tuple[str, str, float | None]] = []
    rng = np.random.default_rng(0)
    for name in envs.GAMES:
        module = envs.game_module(name)
        if not hasattr(module, "env"):
            rows.append((name, "not built yet", None))
            continue
        game = module.Game()
        label = f"{name} ({game.num_players}p)"
        rows.append((label, "engine", time_loop(seconds, engine_game(game, rng))))
        rows.append((label, "engine + observation",
                     time_loop(seconds, engine_game(game, rng, module.Encoder(game)))))
        rows.append((label, "PettingZoo env", time_loop(seconds, pettingzoo_game(module.env(),
                                                                                 rng))))
    try:
        pyspiel = importlib.import_module("pyspiel")
        quoridor = pyspiel.load_game("quoridor")
        rows.append(("OpenSpiel quoridor", "engine (C++)",
                     time_loop(seconds, openspiel_game(quoridor, rng, observe=False))))
        rows.append(("OpenSpiel quoridor", "engine + observation_tensor (C++)",
                     time_loop(seconds, openspiel_game(quoridor, rng, observe=True))))
    except ImportError:
        rows.append(("OpenSpiel quoridor", "missing: pip install open_spiel", None))
    try:
        from shimmy import OpenSpielCompatibilityV0

        shimmy_env = OpenSpielCompatibilityV0(game_name="quoridor")
        rows.append(("OpenSpiel quoridor", "PettingZoo env (shimmy)",
                     time_loop(seconds, pettingzoo_game(shimmy_env, rng))))
    except ImportError:
        rows.append(("OpenSpiel quoridor", "missing: pip install shimmy", None))
    try:
        from pettingzoo.classic import connect_four_v3

        rows.append(("PettingZoo connect_four_v3", "PettingZoo env",
                     time_loop(seconds, pettingzoo_game(connect_four_v3.env(), rng))))
    except ImportError:
        rows.append(("PettingZoo connect_four_v3", "missing: pip install pygame", None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget per row")
    args = parser.parse_args()
    rows = measure(args.seconds)
    speeds = {(game, kind): value for game, kind, value in rows}
    reference = {
        "engine": speeds.get(("OpenSpiel quoridor", "engine (C++)")),
        "engine + observation": speeds.get(
            ("OpenSpiel quoridor", "engine + observation_tensor (C++)")),
        "PettingZoo env": speeds.get(("OpenSpiel quoridor", "PettingZoo env (shimmy)")),
    }
    table = Table(title=f"Random play, plies or agent steps per second ({args.seconds:g} s a row)")
    table.add_column("game")
    table.add_column("what")
    table.add_column("per second", justify="right")
    table.add_column("x quoridor (same kind)", justify="right")
    for game, kind, value in rows:
        ref = reference.get(kind)
        ratio = f"{value / ref:.2f}x" if value and ref and not game.startswith("OpenSpiel") else ""
        table.add_row(game, kind, f"{value:,.0f}" if value else "-", ratio)
    Console().print(table)


if __name__ == "__main__":
    main()
