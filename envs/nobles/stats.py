"""Random-play statistics of Nobles, the numbers in docs/nobles.md: how long games last, how they
end, how often blockades, captures and passes happen when every player picks uniformly among its
legal movers.

    python -m envs.nobles.stats --games 2000 --seed 0

prints one Markdown table row per (players, mode).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

import numpy as np

from envs.nobles.engine import HOME, Game


@dataclass
class Tally:
    games: int = 0
    turns: list[int] = field(default_factory=list)
    noble_home: int = 0
    noble_home_wins: int = 0
    shared_wins: int = 0
    moves: int = 0
    passes: int = 0
    blockaded_moves: int = 0
    trimmed_steps: int = 0
    own_guard_stops: int = 0
    capture_moves: int = 0
    guards_captured: int = 0
    nobles_captured: int = 0
    games_with_blockade: int = 0
    games_with_capture: int = 0
    final_scores: list[int] = field(default_factory=list)


def play_random_game(game: Game, rng: np.random.Generator, tally: Tally) -> None:
    state = game.new_initial_state()
    rolls, probs = zip(*state.chance_outcomes(), strict=True)
    blockaded = captured = False
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rolls[rng.choice(len(rolls), p=probs)])
            if state.roll is None:
                tally.passes += 1
            continue
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        event = state.events[0]
        tally.moves += 1
        if event.blocker >= 0:
            tally.blockaded_moves += 1
            tally.trimmed_steps += event.trimmed_steps
            blockaded = True
        elif event.trimmed_steps:
            tally.own_guard_stops += 1
        if event.captured_guards or event.captured_nobles:
            tally.capture_moves += 1
            tally.guards_captured += sum(count for _, count in event.captured_guards)
            tally.nobles_captured += len(event.captured_nobles)
            captured = True
    tally.games += 1
    tally.turns.append(state.turn)
    tally.games_with_blockade += blockaded
    tally.games_with_capture += captured
    best = max(state.scores)
    winners = [i for i, s in enumerate(state.scores) if s == best]
    tally.shared_wins += len(winners) > 1
    if HOME in state.nobles:
        tally.noble_home += 1
        tally.noble_home_wins += state.nobles.index(HOME) in winners
    tally.final_scores.extend(state.scores)


HEADER = ("| players | mode | games | turns: mean (median, max) | ended by a Noble Home | "
          "... and its owner won | shared wins | blockaded moves | trimmed steps / game | "
          "own-Guard stops / game | captures / game (Guards, Nobles) | games with a blockade | "
          "games with a capture | passes / game | mean final score |")


def row(n: int, mode: str, t: Tally) -> str:
    g = t.games
    return (f"| {n} | {mode} | {g} | {np.mean(t.turns):.1f} ({np.median(t.turns):.0f}, "
            f"{max(t.turns)}) | "
            f"{t.noble_home / g:.1%} | {t.noble_home_wins / max(t.noble_home, 1):.1%} | "
            f"{t.shared_wins / g:.1%} | {t.blockaded_moves / t.moves:.2%} of moves, "
            f"{t.blockaded_moves / g:.2f} / game | {t.trimmed_steps / g:.2f} | "
            f"{t.own_guard_stops / g:.2f} | {t.capture_moves / g:.2f} "
            f"({t.guards_captured / g:.2f}, {t.nobles_captured / g:.2f}) | "
            f"{t.games_with_blockade / g:.1%} | {t.games_with_capture / g:.1%} | "
            f"{t.passes / g:.2f} | {np.mean(t.final_scores):.1f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per configuration")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--modes", nargs="+", default=["journey", "brawl"])
    args = parser.parse_args(argv)
    print(HEADER)
    print("|" + "---|" * HEADER.count(" | ") + "---|")
    for n in args.players:
        for mode in args.modes:
            game = Game(num_players=n, mode=mode)
            rng = np.random.default_rng([args.seed, n, len(mode)])
            tally = Tally()
            for _ in range(args.games):
                play_random_game(game, rng, tally)
            print(row(n, mode, tally), flush=True)


if __name__ == "__main__":
    main()
