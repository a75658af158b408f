"""A game in the terminal between people and agents (``play.py``): the text board after every
move, moves typed in the game's notation, the legal moves and hints on request, undo, dice
rolls shown, and the game saved as a record (JSON) or a GIF, or continued from one.

:class:`TerminalGame` reads commands from any text stream and writes to any other, so tests
drive it with a list of lines."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np

import envs
from agents import make_agent
from agents.heuristic import heuristic_for
from arena.game import game_seeds, options_for
from arena.records import GameRecord, render_gif, replay, save_records
from envs.core import CHANCE, IllegalActionError, sample_chance
from search.puct import legal_softmax
from ui.settings import PlayConfig

HUMAN = "human"

HELP = """commands:
  <move>        play a move in the game's notation (e.g. {example}), or its action number
  moves         list the legal moves
  hint          the hint agent's top moves and its value of the position for you
  undo          take back your last move (and the agents' replies)
  board         show the board again
  save PATH     save the game: PATH.gif as an animation, any other name as a record (JSON)
  load PATH     continue from a saved record or position (JSON)
  quit          leave (also end of input)"""


@dataclass
class Hint:
    """A hint agent's view of a position: its top moves, best first, each with its probability
    under the network (``None``: ranked by the heuristic, which gives no probabilities), and its
    value of the position for every seat, from -1 (loss) to +1 (win)."""

    label: str
    moves: list[tuple[int, float | None]]
    values: list[float]


class Hints:
    """Top moves and a value for the player to move: from a network's policy and value (an agent
    with ``evaluate``, such as ``onnx:`` and ``checkpoint:`` agents), else from the game's
    heuristic (its move ranking and evaluation)."""

    def __init__(self, game, agent, label: str):
        self.evaluate = getattr(agent, "evaluate", None)
        self.label = label if self.evaluate else "the heuristic"
        self.heuristic = None if self.evaluate else heuristic_for(game)

    def hint(self, state, count: int) -> Hint:
        """The top ``count`` moves of ``state`` (a decision node) and every seat's value."""
        legal = state.legal_actions_mask()
        if self.evaluate:
            logits, values = self.evaluate([state])
            probs = legal_softmax(logits, legal[None])[0]
            ranked = np.argsort(-probs, kind="stable")[:min(count, int(legal.sum()))]
            moves = [(int(a), float(probs[a])) for a in ranked]
            values = values[0]
        else:
            ranked = self.heuristic.order(state, state.legal_actions())[:count]
            moves = [(int(a), None) for a in ranked]
            values = self.heuristic.evaluate(state)
        return Hint(self.label, moves, [float(v) for v in values])

    def lines(self, state, count: int) -> list[str]:
        hint = self.hint(state, count)
        moves = [f"{state.action_to_string(a):>12}" + ("" if p is None else f"  {p:4.0%}")
                 for a, p in hint.moves]
        value = hint.values[state.current_player()]
        return [f"hint from {hint.label}: value for you {value:+.2f} (-1 loss .. +1 win)",
                *(f"  {i}. {move}" for i, move in enumerate(moves, start=1))]


def pick_hints(game, specs: Sequence[str], agents: Sequence, hint_agent: str | None,
               agent_options: dict) -> Hints:
    """The hints of a game between ``agents`` (one per seat, ``None`` for a person, built from
    ``specs``): from ``hint_agent`` when given, else from the first seat's agent with a network,
    else from the heuristic."""
    if hint_agent:
        return Hints(game, make_agent(hint_agent, game, **options_for(hint_agent, agent_options)),
                     hint_agent)
    for spec, agent in zip(specs, agents, strict=True):
        if hasattr(agent, "evaluate"):
            return Hints(game, agent, spec)
    return Hints(game, None, "")


class TerminalGame:
    """One game of ``env_config`` between ``config.agents`` (one spec per seat in turn order,
    ``human`` for a person), read from ``input`` and written to ``output``."""

    def __init__(self, env_config: dict, config: PlayConfig, input: TextIO, output: TextIO):
        self.env_config = dict(env_config)
        self.config = config
        self.game = envs.make_game(self.env_config)
        n = self.game.num_players
        if len(config.agents) != n:
            raise ValueError(f"{self.game.name} with {n} players needs {n} agents (one per seat, "
                             f"human for you), got {len(config.agents)}: {config.agents}")
        self.input, self.output = input, output
        dice_seed, agent_seeds = game_seeds(config.seed, 0, n)
        self.dice = np.random.default_rng(dice_seed)
        self.agents = [None if spec == HUMAN else
                       make_agent(spec, self.game, **options_for(spec, config.agent_options))
                       for spec in config.agents]
        for seat, agent in enumerate(self.agents):
            if agent is not None:
                agent.reset(self.game, seat, agent_seeds[seat])
        self.hints = pick_hints(self.game, config.agents, self.agents, config.hint_agent,
                                config.agent_options)
        self.state = self.game.new_initial_state()
        self.actions: list[int] = []
        self.positions = [self.state.to_dict()]
        self.undo_points: list[int] = []  # len(actions) before each human move
        if config.load:
            self.load(config.load)

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.output)

    def seat_name(self, seat: int) -> str:
        spec = self.config.agents[seat]
        return f"player {seat} ({'you' if spec == HUMAN else spec})"

    # -- the game ----------------------------------------------------------------------------

    def apply(self, action: int) -> None:
        self.state.apply_action(action)
        self.actions.append(action)
        self.positions.append(self.state.to_dict())

    def roll_dice(self) -> None:
        while self.state.current_player() == CHANCE:
            outcome = sample_chance(self.state, self.dice)
            self.say(f"dice: {self.state.action_to_string(outcome)}")
            self.apply(outcome)

    def run(self) -> list[float]:
        """Play until the game ends and the player quits (or the input ends); returns the
        final (or current) returns per seat."""
        self.say(f"{self.game.name}: " + ", ".join(self.seat_name(s)
                                                    for s in range(self.game.num_players)),
                 "type a move, or help")
        self.roll_dice()
        self.show_position()
        while True:
            if self.state.is_terminal():
                if not self.command(self.ask("game over; undo, save PATH, load PATH or quit")):
                    break
                continue
            seat = self.state.current_player()
            agent = self.agents[seat]
            if agent is None:
                if not self.command(self.ask(self.seat_name(seat))):
                    break
                continue
            action = agent.act(self.state.clone())
            self.say(f"{self.seat_name(seat)} plays {self.state.action_to_string(action)}")
            self.apply(action)
            self.after_move()
        return [float(r) for r in self.state.returns()]

    def after_move(self) -> None:
        self.roll_dice()
        self.show_position()

    def show_position(self) -> None:
        """The board, and the result once the game is over."""
        self.say(str(self.state))
        if not self.state.is_terminal():
            return
        returns = self.state.returns()
        if self.state.is_truncated():
            result = "ended at the turn limit"
        elif returns.max() > 0:
            winners = [self.seat_name(s) for s in np.flatnonzero(returns == returns.max())]
            result = "is over: " + " and ".join(winners) + (" wins" if len(winners) == 1
                                                             else " win")
        else:
            result = "is a draw"
        self.say(f"the game {result}; returns {[round(float(r), 3) for r in returns]}")

    def ask(self, prompt: str) -> str | None:
        print(f"{prompt}> ", end="", file=self.output, flush=True)
        line = self.input.readline()
        return None if not line else line.strip()

    # -- commands ----------------------------------------------------------------------------

    def command(self, line: str | None) -> bool:
        """Carry out one line of input; ``False`` to stop."""
        if line is None or line in ("quit", "q", "exit"):
            return False
        word, _, argument = line.partition(" ")
        handlers = {"help": self.show_help, "moves": self.show_moves, "hint": self.show_hint,
                    "undo": self.undo, "board": self.show_position}
        if word in handlers and not argument:
            handlers[word]()
        elif word in ("save", "load"):
            self.save_or_load(word, argument.strip())
        elif line:
            self.play_move(line)
        return True

    def show_help(self) -> None:
        example = ", ".join(repr(self.state.action_to_string(a))
                            for a in self.state.legal_actions()[:2]) or "'c3-c5'"
        self.say(HELP.format(example=example))

    def show_moves(self) -> None:
        if self.state.is_terminal():
            self.say("the game is over: no moves")
            return
        # The engine's order (sorted as text, Barricade's a10 came before a3); a comma between
        # moves, as a move may hold a space (Barricade's "G0 a10").
        names = [self.state.action_to_string(a) for a in self.state.legal_actions()]
        self.say(f"{len(names)} legal moves: " + ", ".join(names))

    def show_hint(self) -> None:
        if self.state.is_terminal():
            self.say("the game is over: no hints")
            return
        self.say(*self.hints.lines(self.state, self.config.hint_moves))

    def play_move(self, text: str) -> None:
        if self.state.is_terminal() or self.agents[self.state.current_player()] is not None:
            self.say(f"{text!r} is not a command (help lists them)")
            return
        try:
            action = int(text) if text.isdigit() else self.state.string_to_action(text)
            before = len(self.actions)
            self.apply(action)
        except (ValueError, IllegalActionError) as error:  # bad notation, or not legal here
            self.say(f"{error}; type moves for the legal moves, help for the commands")
            return
        self.undo_points.append(before)
        self.after_move()

    def undo(self) -> None:
        if not self.undo_points:
            self.say("nothing to undo: you have not moved yet")
            return
        self.restore(self.undo_points.pop())
        self.say("took back your last move")
        self.show_position()

    def restore(self, length: int) -> None:
        """Back to the position after the first ``length`` actions."""
        del self.actions[length:]
        del self.positions[length + 1:]
        self.state = self.game.state_from_dict(self.positions[-1])

    def record(self) -> GameRecord:
        return GameRecord(self.env_config, list(self.config.agents), list(self.actions),
                          list(self.positions), [float(r) for r in self.state.returns()])

    def save_or_load(self, word: str, path: str) -> None:
        if not path:
            self.say(f"{word} needs a file: {word} PATH")
            return
        try:
            if word == "load":
                self.load(path)
                self.say(f"continuing from {path}")
                self.show_position()
            elif path.endswith(".gif"):
                render_gif(self.record(), path, self.config.gif_frame_ms)
                self.say(f"saved the game as an animation: {path}")
            else:
                save_records([self.record()], path)
                self.say(f"saved the game record: {path} (play.py load={path} continues it)")
        except (OSError, ValueError) as error:
            self.say(f"could not {word} {path}: {error}")

    def load(self, path: str) -> None:
        """Continue from a record (``save``'s JSON, or a one-game JSON lines file) or a single
        position (``state.to_dict()`` JSON); an error says why a file does not fit, and the
        game so far is kept."""
        data = read_saved(path)
        if "actions" not in data:  # a position
            state = self.game.state_from_dict(data)
            self.state, self.actions, self.positions = state, [], [state.to_dict()]
        else:
            try:
                record = GameRecord(**data)
            except TypeError as error:
                raise ValueError(f"{path} is not a game record ({error})") from None
            mismatch = envs.config_mismatch(record.env_config, self.game)
            if mismatch:
                raise ValueError(f"{path} was played {mismatch}: start play.py with the "
                                 f"record's env ({record.env_config})")
            *_, state = replay(record)
            self.state = state
            self.actions, self.positions = list(record.actions), list(record.positions)
        self.undo_points = []
        self.roll_dice()


def read_saved(path: str) -> dict:
    """The one JSON object in ``path``: a game record or a position, as one JSON document or
    one line of JSON lines."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"no saved game or position at {path}")
    text = Path(path).read_text()
    try:
        entries = [json.loads(text)]
    except json.JSONDecodeError:
        try:
            entries = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            raise ValueError(f"{path} is not JSON: neither a saved game nor a position") from None
    if len(entries) != 1 or not isinstance(entries[0], dict):
        raise ValueError(f"{path} holds {len(entries)} entries, expected one game record or "
                         "position")
    return entries[0]


def play(env_config: dict, config: PlayConfig, input: TextIO, output: TextIO) -> Sequence[float]:
    return TerminalGame(env_config, config, input, output).run()
