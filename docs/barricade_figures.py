"""Draw the pictures of docs/barricade.md: ``python docs/barricade_figures.py``.

barricade_board.png: the start position, every station kind labelled. barricade_midgame.png: a
made-up mid-game position showing placed Scouts, Guards on the board, in the tray and forfeited,
a Rocking Horse Sweep at 3 of 6 and a half-move in progress.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from envs import barricade

OUT = Path(__file__).parent / "images"
MIDGAME = {
    "scouts": [[[13, 2], [6, 3], [2, 5]], [[1, 4], [9, 6], [12, 1]]],
    "guards": [[[7, 3], "out"], [[8, 6], "tray"]],
    "placed_order": [[0], [0]],
    "to_move": 0, "half": 1,
    "first_half": {"kind": "scout", "scout": 1, "from": [6, 4], "d": 2},
    "sweep": [{"scout": 1, "stations": [[6, 3], [6, 4]], "count": 3}, None],
    "turn": 41,
}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    game = barricade.Game()
    pictures = {
        "barricade_board.png": game.new_initial_state(),
        "barricade_midgame.png": game.state_from_dict(MIDGAME),
    }
    for name, state in pictures.items():
        Image.fromarray(barricade.draw(state)).save(OUT / name)
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
