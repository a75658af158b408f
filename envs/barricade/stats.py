"""Random-play statistics of Barricade, the numbers in docs/barricade.md: how long games last,
how they end, who wins, how often pieces are forfeited and turns pass when both players pick
uniformly among their legal actions.

    python -m envs.barricade.stats --games 2000 --seed 0

prints one Markdown table row per variant.
"""

from __future__ import annotations

import argparse
import collections

import numpy as np

from envs.barricade.engine import OUT, VARIANTS, Game

ENDS = ("placed all its Scouts", "has no Scout left in play", "Rocking Horse Sweep",
        "turn limit reached")
HEADER = ("| variant | games | turns: mean (median, max) | all Scouts placed | no Scout left | "
          "Sweep | turn limit | South / North / draw | Guards forfeited / game | "
          "Scouts forfeited / game | passed turns / game | mean score (winner, loser) |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def variant_row(variant: str, games: int, seed: int) -> str:
    game = Game(variant=variant)
    rng = np.random.default_rng(seed)
    turns, ends, results = [], collections.Counter(), collections.Counter()
    guards_out = scouts_out = passes = 0
    winner_scores, loser_scores = [], []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            before = state.turn
            state.apply_action(legal[rng.integers(len(legal))])
            passes += max(state.turn - before - 1, 0)  # turns that ended with no action
        turns.append(state.turn)
        ends[next(end for end in ENDS if end in state.outcome)] += 1
        scores = state.scores()
        if scores[0] == scores[1]:
            results["draw"] += 1
        else:
            results[("South", "North")[int(scores[1] > scores[0])]] += 1
            winner_scores.append(max(scores))
            loser_scores.append(min(scores))
        guards_out += state.guards.count(OUT)
        scouts_out += state.scouts.count(OUT)

    def share(count: int) -> str:
        return f"{100 * count / games:.1f}%"

    return (
        f"| {variant} | {games} | {np.mean(turns):.1f} ({np.median(turns):.0f}, {max(turns)}) | "
        + " | ".join(share(ends[end]) for end in ENDS)
        + f" | {share(results['South'])} / {share(results['North'])} / "
        f"{share(results['draw'])} | {guards_out / games:.3f} | {scouts_out / games:.3f} | "
        f"{passes / games:.3f} | {np.mean(winner_scores):.1f}, {np.mean(loser_scores):.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(HEADER)
    for variant in VARIANTS:
        print(variant_row(variant, args.games, args.seed), flush=True)


if __name__ == "__main__":
    main()
