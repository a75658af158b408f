"""play.py's terminal game, driven by lines of input: moves in the game's notation, helpful
errors, the legal moves, dice, hints from a network agent or the heuristic, undo, records and
GIFs saved and continued from, and the command line itself."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from PIL import Image
from policy_files import ROOT, exported

import envs
from arena import load_records, replay
from ui.settings import PlayConfig
from ui.terminal import TerminalGame

NOBLES = {"name": "nobles", "num_players": 2}
BLOCKADE = {"name": "blockade", "num_players": 2, "rows": 8, "cols": 8, "max_turns": 60}


class Script:
    """Input lines for a :class:`TerminalGame`; a callable line is asked for its text with the
    game, when the game reads it (so it can name a legal move of the position then)."""

    def __init__(self, *lines):
        self.lines = list(lines)
        self.game: TerminalGame | None = None

    def readline(self) -> str:
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        return (line(self.game) if callable(line) else line) + "\n"


def first_legal(game: TerminalGame) -> str:
    """The first legal move of the position (``quit`` once the game is over)."""
    if game.state.is_terminal():
        return "quit"
    return game.state.action_to_string(game.state.legal_actions()[0])


def session(env_config, *lines, **settings):
    script, output = Script(*lines), io.StringIO()
    game = TerminalGame(env_config, PlayConfig(**settings), script, output)
    script.game = game
    return game, output


def test_a_human_plays_a_game_to_the_end_against_an_agent():
    moves = [first_legal] * 400
    game, output = session(NOBLES, *moves, "quit", agents=["human", "heuristic"], seed=2)
    returns = game.run()
    text = output.getvalue()
    assert game.state.is_terminal()
    assert returns == [float(r) for r in game.state.returns()]
    assert "dice: roll" in text  # every roll is shown
    assert "player 1 (heuristic) plays" in text
    assert text.count("Nobles (journey, 2 players)") >= len(game.actions) // 2  # the boards
    assert "the game " in text and "returns [" in text
    assert "the game player" not in text  # "the game is over: player 1 (heuristic) wins"
    record = game.record()
    assert list(replay(record))[-1].to_dict() == game.state.to_dict()


def test_bad_moves_explain_themselves_and_list_the_legal_moves_on_request():
    game, output = session(BLOCKADE, "help", "c3-c6", "Vb2", "zz", "-1", "moves", "quit",
                           agents=["human", "random"])
    game.run()
    text = output.getvalue()
    assert "undo          take back your last move" in text
    assert "a pawn moves at most 2 steps; type moves for the legal moves" in text
    assert "action 24 (Vb2) is illegal for player 0 in the move phase" in text
    assert "'zz' is neither a move like 'c3-c5' nor a wall like 'Vd4'" in text
    assert "'-1' is neither a move" in text
    legal = [game.state.action_to_string(a) for a in game.state.legal_actions()]
    assert f"{len(legal)} legal moves: " + ", ".join(legal) in text
    assert game.actions == []


def test_undo_takes_back_the_move_and_the_agents_reply():
    start = None

    def remember(g):
        nonlocal start
        start = g.state.to_dict()
        return first_legal(g)

    game, output = session(NOBLES, remember, "undo", "undo", "quit",
                           agents=["human", "random"], seed=1)
    game.run()
    assert game.state.to_dict() == start  # the roll of that turn stays what it was
    assert "took back your last move" in output.getvalue()
    assert "nothing to undo: you have not moved yet" in output.getvalue()


@pytest.mark.parametrize("kind", ["onnx", "checkpoint"])
def test_hints_come_from_a_network_agent_with_its_value(kind):
    files = exported(NOBLES)
    spec = f"{kind}:{files['network.onnx' if kind == 'onnx' else 'checkpoint']}"
    game, output = session(NOBLES, "hint", "quit", agents=["human", spec], hint_moves=3)
    game.run()
    lines = output.getvalue().split(f"hint from {spec}: value for you ")[1].splitlines()
    assert -1.0 <= float(lines[0].split()[0]) <= 1.0
    ranked = [line.split() for line in lines[1:4]]
    assert [r[0] for r in ranked] == ["1.", "2.", "3."]
    percents = [int(r[2].rstrip("%")) for r in ranked]
    assert percents == sorted(percents, reverse=True)
    legal = {game.state.action_to_string(a) for a in game.state.legal_actions()}
    assert {r[1] for r in ranked} <= legal


def test_hints_fall_back_to_the_heuristic():
    game, output = session(BLOCKADE, "hint", "quit", agents=["human", "random"], hint_moves=2)
    game.run()
    text = output.getvalue()
    assert "hint from the heuristic: value for you" in text
    assert "  2. " in text and "  3. " not in text


def test_a_saved_record_and_gif_load_and_continue(tmp_path):
    record_path, gif_path = tmp_path / "game.json", tmp_path / "game.gif"
    game, output = session(NOBLES, first_legal, first_legal, f"save {record_path}",
                           f"save {gif_path}", "quit", agents=["human", "random"], seed=4)
    game.run()
    assert f"saved the game record: {record_path}" in output.getvalue()
    (record,) = load_records(record_path)
    assert record.actions == game.actions and record.players == ["human", "random"]
    with Image.open(gif_path) as gif:
        assert gif.n_frames == sum(not s.is_chance_node() for s in replay(record))

    again, output = session(NOBLES, "quit", agents=["human", "random"], load=str(record_path))
    again.run()
    assert again.state.to_dict() == game.state.to_dict()
    assert again.actions == game.actions


def test_a_position_loads_and_a_record_of_another_game_is_refused(tmp_path):
    game = envs.make_game(BLOCKADE)
    state = game.new_initial_state()
    state.apply_action(state.string_to_action("c3-c5"))
    position = tmp_path / "position.json"
    position.write_text(json.dumps(state.to_dict()))
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    played, output = session(BLOCKADE, "undo", first_legal, f"save {tmp_path / 'g.json'}",
                             f"load {tmp_path / 'missing.json'}", f"load {garbage}", "quit",
                             agents=["human", "human"], load=str(position))
    played.run()
    assert played.positions[0] == json.loads(json.dumps(state.to_dict()))
    text = output.getvalue()
    assert "nothing to undo" in text
    assert f"could not load {tmp_path / 'missing.json'}: no saved game or position" in text
    assert f"could not load {garbage}: {garbage} is not JSON" in text
    assert len(played.actions) == 1  # a failed load keeps the game
    (record,) = load_records(tmp_path / "g.json")
    assert len(list(replay(record))) == 2  # a record may start from any position

    with pytest.raises(ValueError, match="was played with num_players=2 but the game has "
                                         "num_players=4"):
        session({**BLOCKADE, "num_players": 4}, agents=["human"] * 4,
                load=str(tmp_path / "g.json"))
    with pytest.raises(ValueError, match="needs 2 agents"):
        session(BLOCKADE, agents=["human"])


def play_cli(*overrides, stdin: str):
    return subprocess.run([sys.executable, "play.py", *overrides], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_the_command_line_plays_from_stdin_and_reports_bad_settings(tmp_path):
    done = play_cli("env=nobles", "agents=[human,random]", "seed=3",
                    stdin=f"moves\nN\nsave {tmp_path / 'g.json'}\nquit\n")
    assert done.returncode == 0, done.stderr
    assert "legal moves: " in done.stdout and "dice: roll" in done.stdout
    assert (tmp_path / "g.json").is_file()
    assert not (ROOT / ".hydra").exists()
    done = play_cli("env=nobles", "agents=[human,alphabeta]", stdin="")
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: unknown agent 'alphabeta'")
