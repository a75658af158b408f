"""Replays of recorded games (the arena's ``games.jsonl``, the terminal's and the page's saved
records): every game of a record file in short, and one game as every position with the move
between them, rebuilt and checked by :func:`arena.records.replay`, so the page steps through
exactly what the rules produce."""

from __future__ import annotations

from pathlib import Path

from arena.records import GameRecord, load_records, replay
from web.live import layout_of, result_view, seats_view, step_view

MAX_RECORD_BYTES = 64 * 2**20
"""A record file larger than this is refused rather than read into memory."""


def read_records(path: Path) -> list[GameRecord]:
    """The games of a record file; a ``ValueError`` says why it is not one."""
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise ValueError(f"{path} is larger than {MAX_RECORD_BYTES // 2**20} MiB")
    try:
        records = load_records(path)
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a file of game records ({error})") from None
    if not records:
        raise ValueError(f"{path} holds no game")
    return records


def games_view(records: list[GameRecord]) -> list[dict]:
    """Each game of a file in short: its game, players, length and returns."""
    return [{"index": i, "game": r.env_config.get("name"), "players": r.players,
             "actions": len(r.actions), "returns": r.returns} for i, r in enumerate(records)]


def replay_view(records: list[GameRecord], index: int) -> dict:
    """Game ``index`` of a file as the page replays it: every position, the steps between them,
    the layout to draw them on and the result."""
    if not 0 <= index < len(records):
        raise ValueError(f"the file holds games 0..{len(records) - 1}, not {index}")
    record = records[index]
    try:
        game = record.make_game()
        states = list(replay(record))
    except (ValueError, TypeError, KeyError) as error:
        raise ValueError(f"game {index} does not replay: {error}") from None
    if len(record.players) != game.num_players:
        raise ValueError(f"game {index} names {len(record.players)} players for "
                         f"{game.num_players} seats")
    final = states[-1]
    return {
        "env_config": record.env_config, "game": game.name,
        "seats": seats_view(record.players), "layout": layout_of(game),
        "positions": [s.to_dict() for s in states],
        "steps": [step_view(s, a) for s, a in zip(states, record.actions, strict=False)],
        "result": result_view(final, None),
    }
