"""Game records: every position of a game (``state.to_dict()``) with the actions between them,
saved as JSON lines, and a replay that proves a record is exactly what the rules produce."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import envs
from arena.media import write_gif


@dataclass
class GameRecord:
    env_config: dict
    """The ``env`` config the game was played under (``name`` plus Game keywords)."""
    players: list[str]
    """The agent in each seat."""
    actions: list[int]
    """Every action in order, chance outcomes included."""
    positions: list[dict]
    """``positions[0]`` is the start, ``positions[k + 1]`` the position after ``actions[k]``."""
    returns: list[float]
    """Final returns per seat."""
    index: int = 0
    """The game's number within its match (it fixes the game's seeds)."""

    def make_game(self):
        return envs.make_game(self.env_config)


def save_records(records: Iterable[GameRecord], path: str | Path) -> None:
    with open(path, "w") as file:
        for record in records:
            file.write(json.dumps(asdict(record), separators=(",", ":")) + "\n")


def load_records(path: str | Path) -> list[GameRecord]:
    with open(path) as file:
        return [GameRecord(**json.loads(line)) for line in file if line.strip()]


def _plain(position: dict) -> dict:
    """A position as it reads back from JSON (tuples become lists), for comparisons."""
    return json.loads(json.dumps(position))


def replay(record: GameRecord) -> Iterator:
    """The states of a recorded game, from its first position (the start, or any position a
    game was continued from) to the end, rebuilt by applying its actions. A ``ValueError`` names
    the first step where the rules disagree with the record."""
    if len(record.positions) != len(record.actions) + 1:
        raise ValueError(f"record has {len(record.actions)} actions but "
                         f"{len(record.positions)} positions (expected one more)")
    state = record.make_game().state_from_dict(record.positions[0])
    yield state.clone()
    for step, (action, position) in enumerate(
            zip(record.actions, record.positions[1:], strict=True), start=1):
        state.apply_action(action)
        if _plain(state.to_dict()) != _plain(position):
            raise ValueError(f"record diverges at step {step}: action {action} does not lead "
                             "to the recorded position")
        yield state.clone()
    if [float(r) for r in state.returns()] != [float(r) for r in record.returns]:
        raise ValueError(f"record's returns {record.returns} differ from the replayed "
                         f"{list(state.returns())}")


def render_gif(record: GameRecord, path: str | Path, frame_ms: int = 400,
               final_frame_ms: int = 2000) -> Path:
    """An animated GIF of a recorded game drawn with the game's own ``draw``: one frame per
    decision position (dice rolls are shown in the position after them) and the final one."""
    draw = envs.game_module(record.env_config["name"]).draw
    frames = [draw(s) for s in replay(record) if not s.is_chance_node()]
    return write_gif(frames, path, frame_ms, final_frame_ms)
