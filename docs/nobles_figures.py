"""Draw the pictures of docs/nobles.md: ``python docs/nobles_figures.py``.

nobles_track.png: a 4-player Brawl game after 60 turns of seeded random play (the track, castles,
yards, Home paths, stacks, scores and the last move). nobles_seed_example.png: the seed's worked
example right after the blockaded move (Journey, -40).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from envs import nobles

OUT = Path(__file__).parent / "images"


def random_play(state, turns: int, seed: int):
    rng = np.random.default_rng(seed)
    while state.turn < turns and not state.is_terminal():
        if state.is_chance_node():
            rolls, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rolls[rng.choice(len(rolls), p=probs)])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    while state.is_chance_node():  # show a roll to play
        state.apply_action(7)
    return state


def main() -> None:
    OUT.mkdir(exist_ok=True)
    game = nobles.Game(num_players=4, mode="brawl")
    state = random_play(game.new_initial_state(), turns=60, seed=4)
    Image.fromarray(nobles.draw(state)).save(OUT / "nobles_track.png")
    print(state, "\n")
    example = nobles.Game(num_players=2, mode="journey").state_from_dict(
        {"nobles": [0, 0], "guards": [[7, 7, 0, 0], [37, 37, 37, 0]], "scores": [0, 0],
         "to_move": 0, "roll": 7, "turn": 0})
    example.apply_action(example.string_to_action("G7x2"))
    Image.fromarray(nobles.draw(example)).save(OUT / "nobles_seed_example.png")
    print(example)


if __name__ == "__main__":
    main()
