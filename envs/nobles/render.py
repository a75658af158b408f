"""Nobles pictures: the text board of ``str(state)`` and the ``rgb_array`` image.

Both lay the track out as a 15×15 cross: the 52 loop tiles run clockwise round the arms, each
seat's Yard is a corner square, its Home path runs up the middle of an arm to Home beside the
centre. Seat 0 sits top-left and enters on tile 1 just below its Yard.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from envs.core import PLAYER_COLOR_NAMES, PLAYER_COLORS, load_font
from envs.nobles.engine import (
    CASTLES,
    ENTERING_TILES,
    GRID,
    HOME_CELLS,
    TRACK_CELLS,
    YARD_ORIGIN,
    event_lines,
    pieces_by_cell,
    status_line,
)

CELL = 36
PANEL = 330


def _tint(color, amount: float) -> tuple[int, int, int]:
    return tuple(int(255 - (255 - v) * amount) for v in color)


def draw(state) -> np.ndarray:
    """The board as an H×W×3 uint8 image: track, castles, yards, Home paths, stacked pieces
    with counts, and a panel with scores, the roll and the last events."""
    game = state.game
    size = GRID * CELL
    image = Image.new("RGB", (size + PANEL, size), (250, 248, 240))
    pen = ImageDraw.Draw(image)
    small, font, big = load_font(9), load_font(13), load_font(20)
    seat_player = {seat: player for player, seat in enumerate(game.seats)}

    def box(r, c):
        return (c * CELL, r * CELL, (c + 1) * CELL, (r + 1) * CELL)

    for seat in range(4):
        player = seat_player.get(seat)
        color = PLAYER_COLORS[player] if player is not None else (170, 170, 170)
        r0, c0 = YARD_ORIGIN[seat]
        r0, c0 = min(r0, GRID - 6), min(c0, GRID - 6)
        pen.rectangle((c0 * CELL, r0 * CELL, (c0 + 6) * CELL, (r0 + 6) * CELL),
                      fill=_tint(color, 0.35), outline=(60, 60, 60), width=2)
        for r, c in HOME_CELLS[seat]:
            pen.rectangle(box(r, c), fill=_tint(color, 0.45 if (r, c) != HOME_CELLS[seat][-1]
                                                else 0.85), outline=(60, 60, 60))
        if player is not None:
            _draw_yard(pen, state, player, c0, r0, font)
    for r, c in ((6, 6), (6, 8), (8, 6), (8, 8), (7, 7)):
        pen.rectangle(box(r, c), fill=(230, 225, 210), outline=(60, 60, 60))
    for tile, (r, c) in enumerate(TRACK_CELLS, start=1):
        fill = (255, 255, 255)
        if tile in ENTERING_TILES:
            seat = ENTERING_TILES.index(tile)
            player = seat_player.get(seat)
            fill = _tint(PLAYER_COLORS[player], 0.55) if player is not None else (215, 215, 215)
        if tile in CASTLES:
            fill = (190, 190, 200)
        pen.rectangle(box(r, c), fill=fill, outline=(60, 60, 60))
        if tile in CASTLES:
            x0, y0, x1, y1 = box(r, c)
            pen.rectangle((x0 + 6, y1 - 12, x1 - 6, y1 - 4), fill=(120, 120, 135))
            for i in range(3):
                cx = x0 + 8 + i * 9
                pen.rectangle((cx, y1 - 17, cx + 4, y1 - 12), fill=(120, 120, 135))
        pen.text((c * CELL + 2, r * CELL + 1), str(tile), fill=(110, 110, 110), font=small)
    for (r, c), tokens in pieces_by_cell(state).items():
        _draw_tokens(pen, box(r, c), tokens, font)
    _draw_panel(pen, state, size, font, big)
    return np.asarray(image, dtype=np.uint8)


def _draw_yard(pen, state, player, c0, r0, font) -> None:
    """The Yard's name, and its Noble and Guard stack one cell wide each, side by side."""
    x0, y0 = c0 * CELL, r0 * CELL
    pen.text((x0 + 8, y0 + 6), f"Yard {PLAYER_COLOR_NAMES[player]}", fill=(40, 40, 40),
             font=font)
    top = y0 + 2.5 * CELL
    if state.nobles[player] == 0:
        _draw_tokens(pen, (x0 + 2 * CELL, top, x0 + 3 * CELL, top + CELL), [(player, True, 0)],
                     font)
    guards = state.guards[player].count(0)
    if guards:
        _draw_tokens(pen, (x0 + 3 * CELL, top, x0 + 4 * CELL, top + CELL),
                     [(player, False, guards)], font)


def _draw_tokens(pen, cell_box, tokens, font) -> None:
    """Tokens on one cell: per player a Noble (gold ring, N) and a Guard stack (count)."""
    discs = []
    for player, noble, guards in tokens:
        if noble:
            discs.append((player, "N"))
        if guards:
            discs.append((player, str(guards)))
    x0, y0, x1, y1 = cell_box
    per_row = 1 if len(discs) == 1 else 2 if len(discs) <= 4 else 3
    w = (x1 - x0) / per_row
    rows = -(-len(discs) // per_row)
    top = y0 + ((y1 - y0) - rows * w) / 2
    for i, (player, label) in enumerate(discs):
        cx = x0 + (i % per_row + 0.5) * w
        cy = top + (i // per_row + 0.5) * w
        radius = w * 0.36
        if len(discs) == 1:  # leave the tile number in the corner readable
            cx, cy = cx + 0.06 * w, cy + 0.06 * w
        ring = (212, 175, 55) if label == "N" else (30, 30, 30)
        pen.ellipse((cx - radius, cy - radius, cx + radius, cy + radius),
                    fill=PLAYER_COLORS[player], outline=ring, width=3 if label == "N" else 1)
        pen.text((cx, cy), label, fill=(255, 255, 255), font=font, anchor="mm")


def _draw_panel(pen, state, x, font, big) -> None:
    game = state.game
    y = 10
    pen.text((x + 12, y), f"Nobles - {game.mode}", fill=(20, 20, 20), font=big)
    y += 30
    pen.text((x + 12, y), f"turn {state.turn}/{game.max_turns}", fill=(20, 20, 20), font=font)
    y += 24
    for player in range(game.num_players):
        pen.rectangle((x + 12, y + 2, x + 26, y + 16), fill=PLAYER_COLORS[player])
        marker = " <" if player == state.to_move and not state.is_terminal() else ""
        pen.text((x + 32, y), f"player {player}: {state.scores[player]:+d}{marker}",
                 fill=(20, 20, 20), font=font)
        y += 22
    y += 8
    roll = "-" if state.roll is None else str(state.roll)
    pen.text((x + 12, y), f"roll: {roll}", fill=(20, 20, 20), font=big)
    y += 30
    for line in _wrap(status_line(state), 40):
        pen.text((x + 12, y), line, fill=(20, 20, 20), font=font)
        y += 18
    y += 8
    for event in event_lines(state):
        for line in _wrap(event, 40):
            pen.text((x + 12, y), line, fill=(70, 70, 70), font=font)
            y += 18


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + [line] if line else lines
