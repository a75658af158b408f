"""Blockade board picture: grid with coordinates, goal squares tinted in their owner's colour,
pawns as coloured discs, vertical walls green and horizontal walls blue, and a side panel with
each player's walls left, the player to act and the result."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from envs.blockade.engine import PHASES, State
from envs.core import PLAYER_COLOR_NAMES, PLAYER_COLORS, load_font

CELL = 36
MARGIN = 28
PANEL = 210
WALL_WIDTH = 6
V_WALL_COLOR = (40, 160, 60)
H_WALL_COLOR = (40, 90, 220)
GRID_COLOR = (190, 180, 160)
BOARD_COLOR = (245, 238, 220)


def _tint(color, amount=0.3):
    return tuple(int(255 - (255 - v) * amount) for v in color)


def draw(state: State) -> np.ndarray:
    game = state.game
    width = 2 * MARGIN + game.cols * CELL + PANEL
    height = max(2 * MARGIN + game.rows * CELL, 260)
    image = Image.new("RGB", (width, height), (255, 255, 255))
    pen = ImageDraw.Draw(image)
    font, small = load_font(15), load_font(12)

    def corner(r, c):
        return MARGIN + c * CELL, MARGIN + r * CELL

    for r in range(game.rows):
        for c in range(game.cols):
            x0, y0 = corner(r, c)
            fill = BOARD_COLOR
            for p in range(game.num_players):
                if game.cell(r, c) in game.goal_cells[p]:
                    fill = _tint(PLAYER_COLORS[p])
            pen.rectangle([x0, y0, x0 + CELL, y0 + CELL], fill=fill, outline=GRID_COLOR)
    for c in range(game.cols):
        pen.text((MARGIN + c * CELL + CELL // 2, MARGIN // 2), chr(ord("a") + c),
                 fill=(90, 90, 90), font=small, anchor="mm")
    for r in range(game.rows):
        pen.text((MARGIN // 2, MARGIN + r * CELL + CELL // 2), str(r + 1),
                 fill=(90, 90, 90), font=small, anchor="mm")

    for i, x in enumerate(state.pawns):
        p, k = divmod(i, 2)
        r, c = game.coords(x)
        x0, y0 = corner(r, c)
        pad = 5
        pen.ellipse([x0 + pad, y0 + pad, x0 + CELL - pad, y0 + CELL - pad],
                    fill=PLAYER_COLORS[p], outline=(30, 30, 30), width=2)
        pen.text((x0 + CELL // 2, y0 + CELL // 2), str(k), fill=(255, 255, 255), font=small,
                 anchor="mm")

    for w in state.walls:
        o, r, c = game.wall_of_index(w)
        x, y = corner(r, c)
        if o == 0:
            pen.line([x, y - CELL + 2, x, y + CELL - 2], fill=V_WALL_COLOR, width=WALL_WIDTH)
        else:
            pen.line([x - CELL + 2, y, x + CELL - 2, y], fill=H_WALL_COLOR, width=WALL_WIDTH)

    px, py = 2 * MARGIN + game.cols * CELL, MARGIN
    pen.text((px, py), "Blockade", fill=(0, 0, 0), font=load_font(18))
    py += 30
    for p in range(game.num_players):
        pen.ellipse([px, py + 2, px + 14, py + 16], fill=PLAYER_COLORS[p])
        marker = " <" if state.outcome is None and state.to_move == p else ""
        pen.text((px + 20, py), f"P{p} {PLAYER_COLOR_NAMES[p]}{marker}", fill=(0, 0, 0),
                 font=font)
        py += 20
        pen.text((px + 20, py), f"V walls {state.walls_left[2 * p]}", fill=V_WALL_COLOR,
                 font=font)
        pen.text((px + 110, py), f"H walls {state.walls_left[2 * p + 1]}", fill=H_WALL_COLOR,
                 font=font)
        py += 26
    pen.text((px, py), f"turn {state.turn}/{game.max_turns}", fill=(0, 0, 0), font=font)
    py += 22
    pen.text((px, py), _status_line(state), fill=(0, 0, 0), font=font)
    return np.asarray(image)


def _status_line(state: State) -> str:
    if state.outcome == "win":
        return f"P{state.winner} wins"
    if state.outcome == "draw":
        return "draw (deadlock)"
    if state.outcome == "truncated":
        return "turn limit"
    return f"P{state.to_move} to {PHASES[state.phase]}"

