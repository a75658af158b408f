"""One game's engine and env speed, this checkout against another (before/after a change).

    git worktree add --detach ../old main
    python benchmarks/env_speed_ab.py ../old --game blockade --rules lakeside seed
    python benchmarks/env_speed_ab.py ../old --game nobles --players 4

(The other checkout is imported by path, this one by the script's location: the editable
install does not get in the way.)

Both versions load into one process (the other checkout's ``envs`` package first, then this
one's) and play the same random games as ``env_speed.py``'s rows (engine, engine with the
observation every ply, PettingZoo env), in interleaved rounds whose order alternates. Rates are
plies per second of process CPU time, best round counts: on a shared machine a burst of load
then hits both versions alike and shows less than in wall-clock time.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import numpy as np
from env_speed import engine_game, pettingzoo_game

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("engine", "engine + observation", "PettingZoo env")


def load_game(checkout: Path, name: str):
    """The game package ``envs.<name>`` of ``checkout``, imported afresh: modules already
    loaded from another checkout are dropped from ``sys.modules`` (the package returned keeps
    its own, so both versions live side by side)."""
    for module in [m for m in sys.modules if m == "envs" or m.startswith("envs.")]:
        del sys.modules[module]
    sys.path.insert(0, str(checkout))
    try:
        return importlib.import_module(f"envs.{name}")
    finally:
        sys.path.remove(str(checkout))


def rate(module, config: dict, kind: str, games: int) -> float:
    """Plies per CPU second over ``games`` random games (seed 0) of one kind."""
    rng = np.random.default_rng(0)
    game = module.Game(**config)
    play_one = (engine_game(game, rng) if kind == "engine"
                else engine_game(game, rng, module.Encoder(game)) if kind == KINDS[1]
                else pettingzoo_game(module.env(**config), rng))
    start = time.process_time()
    plies = sum(play_one() for _ in range(games))
    return plies / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout (the 'old' column)")
    parser.add_argument("--game", default="blockade")
    parser.add_argument("--rules", nargs="+", default=[None],
                        help="rule presets to measure (the game's default if not given)")
    parser.add_argument("--players", type=int, help="seats (the game's default if not given)")
    parser.add_argument("--games", type=int, default=3, help="games per round and row")
    parser.add_argument("--rounds", type=int, default=16, help="interleaved rounds; best counts")
    args = parser.parse_args()
    versions = {"old": load_game(args.other.resolve(), args.game),
                "new": load_game(ROOT, args.game)}
    best = {}
    for rules in args.rules:
        config = {} if rules is None else {"rules": rules}
        if args.players:
            config["num_players"] = args.players
        for round_ in range(args.rounds):
            order = ("old", "new") if round_ % 2 == 0 else ("new", "old")
            for kind in KINDS:
                for version in order:
                    key = rules, kind, version
                    best[key] = max(best.get(key, 0.0),
                                    rate(versions[version], config, kind, args.games))
        for kind in KINDS:
            old, new = best[rules, kind, "old"], best[rules, kind, "new"]
            seats = f", {args.players} seats" if args.players else ""
            print(f"{args.game} {rules or 'default'}{seats}: {kind}: old {old:,.0f}, new "
                  f"{new:,.0f} plies/s (CPU), {new / old:.2f}x")


if __name__ == "__main__":
    main()
