"""What a drawing of a Nobles board needs beside a position (``state.to_dict()``, which holds
every piece as its owner's progress): the 15 x 15 cross the text board and ``render.py`` use,
with the grid cell of each player's every progress, the Castles, entering tiles, Yards and
Home paths. JSON-ready; the web page draws from it (``web/static/games/nobles.js``)."""

from __future__ import annotations

from envs.nobles.engine import (
    CASTLES,
    ENTERING_TILES,
    GRID,
    HOME,
    HOME_CELLS,
    TRACK_CELLS,
    YARD_ORIGIN,
    Game,
    cell_of,
)

YARD_SIZE = 6


def layout(game: Game) -> dict:
    return {
        "grid": GRID,
        "track": [list(cell) for cell in TRACK_CELLS],  # tiles 1..52 in order
        "castles": sorted(CASTLES),
        "entering": list(ENTERING_TILES),  # per seat
        "seats": list(game.seats),  # per player
        "yards": [[min(r, GRID - YARD_SIZE), min(c, GRID - YARD_SIZE)]  # top-left, per seat
                  for r, c in YARD_ORIGIN],
        "home": [[list(cell) for cell in cells] for cells in HOME_CELLS],  # per seat
        # Per player, the cell of each progress 0..58 (None: the Yard).
        "cells": [[None if progress == 0 else list(cell_of(game, player, progress))
                   for progress in range(HOME + 1)] for player in range(game.num_players)],
    }
