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
    HOME,
    HOME_PATH_START,
    NOBLE_ACTION,
    TRACK_TILES,
)

GRID = 15


def _track_cells() -> list[tuple[int, int]]:
    """(row, col) of tiles 1..52, clockwise from seat 0's entering tile."""
    arm = [(6, c) for c in range(6)] + [(r, 6) for r in range(5, -1, -1)] + [(0, 7)]
    cells = []
    for quarter in range(4):
        cells += [_rotate(cell, quarter) for cell in arm]
    return cells


def _rotate(cell: tuple[int, int], quarters: int) -> tuple[int, int]:
    """Rotate a grid cell clockwise by ``quarters`` quarter turns about the centre."""
    r, c = cell
    for _ in range(quarters):
        r, c = c, GRID - 1 - r
    return r, c


TRACK_CELLS = _track_cells()
# Per seat: cells of Home path tiles 1..5 and Home (progress 53..58).
HOME_CELLS = [[_rotate((7, c), seat) for c in range(1, 7)] for seat in range(4)]
YARD_ORIGIN = [_rotate((0, 0), seat) for seat in range(4)]  # one corner of each 6x6 yard
LETTERS = [name[0].upper() for name in PLAYER_COLOR_NAMES]


def cell_of(game, player: int, progress: int) -> tuple[int, int] | None:
    """Grid cell of a player's progress; None for the Yard."""
    if progress == 0:
        return None
    seat = game.seats[player]
    if progress <= TRACK_TILES:
        return TRACK_CELLS[game.tiles[player][progress] - 1]
    return HOME_CELLS[seat][progress - HOME_PATH_START]


def _pieces_by_cell(state) -> dict[tuple[int, int], list[tuple[int, bool, int]]]:
    """(player, noble?, guard count) tokens on each board cell."""
    cells: dict[tuple[int, int], dict[int, list[int]]] = {}
    for player in range(state.game.num_players):
        places = [(state.nobles[player], True)] + [(p, False) for p in state.guards[player]]
        for progress, is_noble in places:
            cell = cell_of(state.game, player, progress)
            if cell is None:
                continue
            entry = cells.setdefault(cell, {}).setdefault(player, [0, 0])
            entry[0 if is_noble else 1] += 1
    return {cell: [(player, nobles > 0, guards) for player, (nobles, guards) in sorted(by.items())]
            for cell, by in cells.items()}


def _progress_text(p: int) -> str:
    if p == 0:
        return "Y"
    if p == HOME:
        return "H"
    if p >= HOME_PATH_START:
        return f"h{p - HOME_PATH_START + 1}"
    return str(p)


def event_lines(state) -> list[str]:
    """The last move and any passes after it, in words."""
    lines = []
    for e in state.events:
        who = f"{PLAYER_COLOR_NAMES[e.player]} (player {e.player}) rolled {e.roll}"
        if e.action < 0:
            lines.append(f"{who}: no legal mover, turn passes")
            continue
        mover = "Noble" if e.action == NOBLE_ACTION else f"{(e.action - 1) % 4 + 1} Guard(s)"
        text = f"{who}: {mover} {_progress_text(e.start)}->{_progress_text(e.dest)}"
        if e.trimmed_steps:
            by = (f"{PLAYER_COLOR_NAMES[e.blocker]}'s blockade" if e.blocker >= 0
                  else "own Guard")
            text += f"; {e.trimmed_steps} step(s) trimmed by {by}"
            if e.blocker >= 0:
                text += f" ({e.penalty:+d})"
        for victim, count in e.captured_guards:
            text += f"; captured {count} {PLAYER_COLOR_NAMES[victim]} Guard(s)"
        for victim in e.captured_nobles:
            text += f"; captured the {PLAYER_COLOR_NAMES[victim]} Noble"
        if e.capture_points:
            text += f" ({e.capture_points:+d})"
        if e.home_points:
            text += f"; reached Home ({e.home_points:+d})"
        lines.append(text)
    return lines


def status_line(state) -> str:
    name = f"{PLAYER_COLOR_NAMES[state.to_move]} (player {state.to_move})"
    if state.is_terminal():
        best = max(state.scores)
        winners = [PLAYER_COLOR_NAMES[i] for i, s in enumerate(state.scores) if s == best]
        return f"game over: {' and '.join(winners)} win(s) with {best}"
    if state.roll is None:
        return f"{name} to roll"
    return f"{name} to move, roll {state.roll}"


def text_board(state) -> str:
    """The board as text: a cell shows each player's colour letter, ``N`` for the Noble and
    the number of Guards; ``**`` marks a cell shared by several players (see the piece list)."""
    game = state.game
    grid = [["   "] * GRID for _ in range(GRID)]
    for tile, (r, c) in enumerate(TRACK_CELLS, start=1):
        grid[r][c] = " # " if tile in CASTLES else " + " if tile in ENTERING_TILES else " . "
    for player in range(game.num_players):
        for r, c in HOME_CELLS[game.seats[player]][:-1]:
            grid[r][c] = " : "
        r, c = HOME_CELLS[game.seats[player]][-1]
        grid[r][c] = " H "
    for (r, c), tokens in _pieces_by_cell(state).items():
        if len(tokens) > 1:
            grid[r][c] = "** "
            continue
        player, noble, guards = tokens[0]
        grid[r][c] = (LETTERS[player] + ("N" if noble else "") + (str(guards) if guards else "")
                      ).ljust(3)
    lines = [f"Nobles ({game.mode}, {game.num_players} players), turn {state.turn}/"
             f"{game.max_turns}: {status_line(state)}"]
    lines += ["  " + "".join(row).rstrip() for row in grid]
    lines.append("  (# castle, + entering tile, : Home path, H Home; progress: Y Yard, "
                 "1..52 track, h1..h5 Home path, H Home)")
    for player in range(game.num_players):
        guards = " ".join(_progress_text(p) for p in state.guards[player])
        lines.append(f"  {LETTERS[player]} player {player} ({PLAYER_COLOR_NAMES[player]}, "
                     f"seat {game.seats[player]}): score {state.scores[player]:+d}, "
                     f"Noble {_progress_text(state.nobles[player])}, Guards {guards}")
    for line in event_lines(state):
        lines.append(f"  last: {line}")
    if state.roll is not None and not state.is_terminal():
        moves = ", ".join(state.action_to_string(a) for a in state.legal_actions())
        lines.append(f"  legal: {moves}")
    return "\n".join(lines)


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
    for (r, c), tokens in _pieces_by_cell(state).items():
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
