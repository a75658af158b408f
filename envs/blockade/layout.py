"""What a drawing of a Blockade board needs beside a position (``state.to_dict()``, which has
the board size, pawns, walls and supplies): each player's goal squares, which the config
decides (seat corners, ``start_squares``, the rules preset). JSON-ready; the web page draws
from it (``web/static/games/blockade.js``)."""

from __future__ import annotations

from envs.blockade.engine import Game


def layout(game: Game) -> dict:
    return {
        "goals": [sorted(list(game.coords(x)) for x in cells) for cells in game.goal_cells],
        "walls_per_orientation": game.walls_per_orientation,
    }
