"""What a drawing of a Barricade board needs beside a position (``state.to_dict()``): the
stations with their kind, the white tracks between them, the sweep lines and the scoring
values, as the engine defines them. JSON-ready; the web page draws from it
(``web/static/games/barricade.js``)."""

from __future__ import annotations

from envs.barricade.engine import (
    BASE_LINE,
    DELTAS,
    FILES,
    LINES,
    PLAYER_NAMES,
    SCORE_VALUES,
    STATION_KIND,
    SWEEP_LINES,
    Game,
    coords,
)

UP, RIGHT = 0, 3
"""Scout step directions (``DELTAS``) that name every track once: to the station above and to
the one on the right."""


def tracks() -> list[tuple[int, int]]:
    """Every white track as a pair of stations (grid cells); Base Stations connect only to the
    station in front of them."""
    pairs = []
    for x, kind in enumerate(STATION_KIND):
        if kind == "none":
            continue
        for d in (UP, RIGHT):
            t = x + DELTAS[d]
            if t < len(STATION_KIND) and STATION_KIND[t] != "none" and \
                    not (d == RIGHT and kind == "base"):
                pairs.append((x, t))
    return pairs


def layout(game: Game) -> dict:
    return {
        "lines": LINES,
        "files": FILES,
        "stations": [[*coords(x), kind] for x, kind in enumerate(STATION_KIND) if kind != "none"],
        "tracks": [[list(coords(a)), list(coords(b))] for a, b in tracks()],
        "base_lines": list(BASE_LINE),
        "sweep_lines": list(SWEEP_LINES),
        "sweep_turns": game.sweep_turns,
        "score_values": list(SCORE_VALUES),
        "player_names": list(PLAYER_NAMES),
    }
