"""Barricade board picture: the dark board with its white tracks, Base Stations (rings in the
owner's colour), Outer Stations (discs) and Cross Stations (crosses), line numbers and file
letters, a label column naming each line's stations and the sweep lines; Scouts as discs and
Guards as squares in the player's colour; a panel per player with score, placed Scouts, Guards
in the tray and forfeited pieces; the half-move in progress as an arrow and a sweep as a
highlighted track. ``docs/barricade_figures.py`` draws the pictures of docs/barricade.md
with it.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from envs.barricade.engine import (
    BASE_LINE,
    DELTAS,
    FILES,
    LINES,
    OPP_BASE,
    OUT,
    PLAYER_NAMES,
    SCORE_VALUES,
    STATION_KIND,
    SWEEP_LINES,
    TRAY,
    State,
    coords,
)
from envs.core import PLAYER_COLOR_NAMES, PLAYER_COLORS, load_font

STEP = 46  # pixels between neighbouring stations
LEFT = 58  # x of file a (room for line numbers)
MARGIN = 40  # y room above line 13 for the file letters
LABELS = 96  # label column right of the board
PANEL = 250
TITLE = 40
BOARD_COLOR = (28, 70, 52)
TRACK_COLOR = (235, 235, 225)
SWEEP_COLOR = (250, 200, 40)
HALF_MOVE_COLOR = (255, 120, 20)
LEGEND = 44
TEXT = (30, 30, 30)
SCOUT_R, GUARD_R = 15, 13


def _xy(x: int) -> tuple[int, int]:
    line, file = coords(x)
    return LEFT + (file - 1) * STEP, TITLE + MARGIN + (LINES - line) * STEP


def _tint(color, amount=0.45):
    return tuple(int(255 - (255 - v) * amount) for v in color)


def _ink(color):
    """Black or white, whichever reads better on ``color``."""
    return (20, 20, 20) if 0.3 * color[0] + 0.59 * color[1] + 0.11 * color[2] > 150 else \
        (255, 255, 255)


def _draw_scout(pen, x, y, player, index, font, placed=False):
    if placed:
        pen.ellipse([x - SCOUT_R - 6, y - SCOUT_R - 6, x + SCOUT_R + 6, y + SCOUT_R + 6],
                    fill=(20, 20, 20), outline=(255, 255, 255), width=3)
    pen.ellipse([x - SCOUT_R, y - SCOUT_R, x + SCOUT_R, y + SCOUT_R],
                fill=PLAYER_COLORS[player], outline=(255, 255, 255), width=2)
    pen.text((x, y), f"S{index}", fill=_ink(PLAYER_COLORS[player]), font=font, anchor="mm")


def _draw_guard(pen, x, y, player, index, font):
    pen.rounded_rectangle([x - GUARD_R, y - GUARD_R, x + GUARD_R, y + GUARD_R], radius=4,
                          fill=PLAYER_COLORS[player], outline=(20, 20, 20), width=2)
    pen.text((x, y), f"G{index}", fill=_ink(PLAYER_COLORS[player]), font=font, anchor="mm")


def _draw_out(pen, x, y, r=16):
    pen.line([x - r, y - r, x + r, y + r], fill=(20, 20, 20), width=2)
    pen.line([x - r, y + r, x + r, y - r], fill=(20, 20, 20), width=2)


def _draw_board(pen, font, small) -> None:
    width = (FILES - 1) * STEP
    height = (LINES - 1) * STEP
    pen.rounded_rectangle(
        [LEFT - 26, TITLE + MARGIN - 26, LEFT + width + 26, TITLE + MARGIN + height + 26],
        radius=10, fill=BOARD_COLOR,
    )
    for x, kind in enumerate(STATION_KIND):
        if kind == "none":
            continue
        for d in (0, 3):  # each track once: to the station above and to the right
            t = x + DELTAS[d]
            if t < len(STATION_KIND) and STATION_KIND[t] != "none" and \
                    not (d == 3 and kind == "base"):
                pen.line([_xy(x), _xy(t)], fill=TRACK_COLOR, width=4)
    for x, kind in enumerate(STATION_KIND):
        px, py = _xy(x)
        if kind == "base":
            owner = BASE_LINE.index(coords(x)[0])
            pen.ellipse([px - 18, py - 18, px + 18, py + 18], fill=_tint(PLAYER_COLORS[owner]),
                        outline=PLAYER_COLORS[owner], width=4)
        elif kind == "outer":
            pen.ellipse([px - 10, py - 10, px + 10, py + 10], fill=TRACK_COLOR,
                        outline=(150, 150, 140), width=2)
        elif kind == "cross":
            pen.rectangle([px - 9, py - 3, px + 9, py + 3], fill=TRACK_COLOR)
            pen.rectangle([px - 3, py - 9, px + 3, py + 9], fill=TRACK_COLOR)
    for file in range(1, FILES + 1):
        px = LEFT + (file - 1) * STEP
        pen.text((px, TITLE + 6), "abcdefg"[file - 1], fill=TEXT, font=small, anchor="mm")
        pen.text((px, TITLE + MARGIN + height + 34), "abcdefg"[file - 1], fill=TEXT,
                 font=small, anchor="mm")
    label_x = LEFT + width + 34
    for line in range(1, LINES + 1):
        py = TITLE + MARGIN + (LINES - line) * STEP
        pen.text((LEFT - 34, py), str(line), fill=TEXT, font=small, anchor="rm")
        label = {1: "South Base", 2: "Outer", 12: "Outer", 13: "North Base"}.get(line, "Cross")
        if line in SWEEP_LINES:
            label += " ~ sweep"
        pen.text((label_x, py), label, fill=TEXT, font=small, anchor="lm")


def draw(state: State) -> np.ndarray:
    """The position as an H x W x 3 uint8 image."""
    game = state.game
    board_w = LEFT + 30 + (FILES - 1) * STEP + LABELS
    height = TITLE + 2 * MARGIN + (LINES - 1) * STEP + LEGEND
    image = Image.new("RGB", (board_w + PANEL, height), (250, 248, 240))
    pen = ImageDraw.Draw(image)
    font, small, big = load_font(13), load_font(12), load_font(18)
    pen.text((10, 10), f"Barricade — {game.variant}", fill=TEXT, font=big)
    _draw_board(pen, font, small)

    if state.first is not None and state.first[0] == "scout":
        start = state.first[2]
        pen.line([_xy(start), _xy(start + DELTAS[state.first[3]])], fill=HALF_MOVE_COLOR,
                 width=8)
        sx, sy = _xy(start)
        pen.ellipse([sx - 7, sy - 7, sx + 7, sy + 7], fill=HALF_MOVE_COLOR)
    for p in range(2):
        sweep = state.sweep[p]
        if sweep is not None:
            (ax, ay), (bx, by) = _xy(sweep[1]), _xy(sweep[2])
            pen.line([ax, ay - 20, bx, by - 20], fill=SWEEP_COLOR, width=3)
            pen.text(((ax + bx) // 2, ay - 27), f"{sweep[3]}/{game.sweep_turns}",
                     fill=SWEEP_COLOR, font=small, anchor="mm")
    for i, x in enumerate(state.scouts):
        if x >= 0:
            p, s = divmod(i, 3)
            _draw_scout(pen, *_xy(x), p, s, small, placed=bool(OPP_BASE[p][x]))
    for i, x in enumerate(state.guards):
        if x >= 0:
            _draw_guard(pen, *_xy(x), i // 2, i % 2, small)

    _draw_panel(pen, state, board_w, font, small, big)
    _draw_legend(pen, height - LEGEND + 12, small)
    return np.asarray(image)


def _draw_legend(pen, y, font) -> None:
    x = 10
    _draw_scout(pen, x + 15, y + 10, 0, 0, font)
    pen.text((x + 36, y + 10), "Scout", fill=TEXT, font=font, anchor="lm")
    x += 90
    _draw_scout(pen, x + 15, y + 10, 0, 1, font, placed=True)
    pen.text((x + 40, y + 10), "placed Scout", fill=TEXT, font=font, anchor="lm")
    x += 135
    _draw_guard(pen, x + 13, y + 10, 0, 0, font)
    pen.text((x + 32, y + 10), "Guard", fill=TEXT, font=font, anchor="lm")
    x += 85
    pen.line([x, y + 10, x + 30, y + 10], fill=HALF_MOVE_COLOR, width=8)
    pen.text((x + 38, y + 10), "first half-move", fill=TEXT, font=font, anchor="lm")
    x += 150
    pen.line([x, y + 10, x + 30, y + 10], fill=SWEEP_COLOR, width=3)
    pen.text((x + 38, y + 10), "Rocking Horse Sweep (count)", fill=TEXT, font=font,
             anchor="lm")


def _draw_panel(pen, state: State, left: int, font, small, big) -> None:
    game = state.game
    scores = state.scores()
    half_height = (TITLE + 2 * MARGIN + (LINES - 1) * STEP) // 2
    for p, top in ((1, TITLE + 10), (0, TITLE + half_height + 10)):
        x, y = left, top
        to_act = state.outcome is None and state.to_move == p
        pen.text((x, y), f"{PLAYER_NAMES[p]}  player_{p}  ({PLAYER_COLOR_NAMES[p]})"
                 + ("  ◀ to move" if to_act else ""), fill=PLAYER_COLORS[p], font=font)
        y += 22
        pen.text((x, y), f"score {scores[p]}", fill=TEXT, font=big)
        y += 28
        placed = "  ".join(f"S{s}+{SCORE_VALUES[k]}" for k, s in enumerate(state.placed[p]))
        pen.text((x, y), f"placed: {placed or '-'}", fill=TEXT, font=small)
        y += 24
        pen.text((x, y + 8), "tray", fill=TEXT, font=small, anchor="lm")
        for g in range(2):
            if state.guards[2 * p + g] == TRAY:
                _draw_guard(pen, x + 52 + 34 * g, y + 8, p, g, small)
        y += 34
        pen.text((x, y + 8), "out", fill=TEXT, font=small, anchor="lm")
        cx = x + 52
        for g in range(2):
            if state.guards[2 * p + g] == OUT:
                _draw_guard(pen, cx, y + 8, p, g, small)
                _draw_out(pen, cx, y + 8)
                cx += 34
        for s in range(3):
            if state.scouts[3 * p + s] == OUT:
                _draw_scout(pen, cx, y + 8, p, s, small)
                _draw_out(pen, cx, y + 8)
                cx += 36
        y += 34
        sweep = state.sweep[p]
        if sweep is not None:
            pen.text((x, y), f"sweep: S{sweep[0]} {sweep[3]}/{game.sweep_turns}",
                     fill=TEXT, font=small)
    y = TITLE + 2 * MARGIN + (LINES - 1) * STEP - 30
    pen.text((left, y), f"turn {state.turn}/{game.max_turns}", fill=TEXT, font=font)
    pen.text((left, y + 20), _status(state), fill=TEXT, font=small)


def _status(state: State) -> str:
    if state.outcome is not None:
        scores = state.scores()
        if scores[0] == scores[1]:
            return f"game over: draw {scores[0]}-{scores[1]}"
        return f"game over: {PLAYER_NAMES[int(scores[1] > scores[0])]} wins " \
               f"{scores[0]}-{scores[1]}"
    if state.legal_actions_mask()[138:].any():
        return f"{PLAYER_NAMES[state.to_move]} must forfeit"
    return f"{PLAYER_NAMES[state.to_move]}: half-move {state.half + 1} of 2"
