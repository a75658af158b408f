"""Draw the rule-set pictures of docs/blockade.md: ``python docs/blockade_figures.py``.

blockade_seed_2p.png and blockade_lakeside_2p.png: the position after the same number of turns
of the heuristic against itself (seed 0) under the seed's rules and under ``rules="lakeside"``.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from agents import make_agent
from envs import blockade

OUT = Path(__file__).parent / "images"
TURNS = 12
"""Turns played before the picture: the seed game's goals are sealed by then, the Lakeside
game is well under way."""
RULES = {"blockade_seed_2p.png": "seed", "blockade_lakeside_2p.png": "lakeside"}


def heuristic_game(rules: str, turns: int) -> blockade.State:
    game = blockade.Game(rules=rules)
    agents = [make_agent("heuristic", game) for _ in range(game.num_players)]
    for player, agent in enumerate(agents):
        agent.reset(game, player, seed=player)
    state = game.new_initial_state()
    while not state.is_terminal() and state.turn < turns:
        state.apply_action(agents[state.current_player()].act(state))
    return state


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, rules in RULES.items():
        Image.fromarray(blockade.draw(heuristic_game(rules, TURNS))).save(OUT / name)
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
