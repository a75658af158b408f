"""A tiny game package in one module, to show that a game plugs in by its package alone: the
engine contract of :mod:`envs.core` (``Game``, ``State``), an ``Encoder``, ``draw``, the
PettingZoo ``env`` and the ``HOOKS`` that training asks for. ``env.name: tiny_race`` (this
module's import path) trains it with ``training.launch.run`` as ``train.py`` does.

The rules: 2 players race along a track of ``length`` squares, from square 0; whoever reaches
the last square first wins. A turn is ``walk`` (one square) or ``roll`` (a chance node: a die
moves the runner 0, 1, 2 or 3 squares, each with probability 1/4). At ``max_turns`` turns the
game is truncated (returns 0), and the runner further ahead leads.
"""

from __future__ import annotations

import numpy as np

from envs.core import (
    CHANCE,
    TERMINAL,
    BoardGameEnv,
    Hooks,
    IllegalActionError,
    check_action,
    check_config_matches,
    margins,
    winner_returns,
    wrap,
)

WALK, ROLL = 0, 1
ACTION_NAMES = ("walk", "roll")
DIE = (0, 1, 2, 3)
"""Squares a roll moves; chance outcome ``k`` is ``DIE[k]``, each with probability 1/4."""


class Game:
    name = "tiny_race"
    num_players = 2
    num_actions = 2

    def __init__(self, length: int = 6, max_turns: int = 20):
        if length < 2:
            raise ValueError(f"length must be at least 2, got {length}")
        self.length = length
        self.max_turns = max_turns

    def new_initial_state(self) -> State:
        return State(self, [0, 0], 0, 0)

    def state_from_dict(self, position: dict) -> State:
        check_config_matches(position, self, ("length",))
        squares = [int(x) for x in position["squares"]]
        if len(squares) != 2 or not all(0 <= x <= self.length for x in squares):
            raise ValueError(f"squares must be two numbers in 0..{self.length}, got {squares}")
        return State(self, squares, int(position["to_move"]), int(position.get("turn", 0)))


class State:
    def __init__(self, game: Game, squares: list[int], to_move: int, turn: int):
        self.game = game
        self.squares = squares
        self.to_move = to_move
        self.turn = turn
        self.rolling = False

    def clone(self) -> State:
        other = State(self.game, self.squares[:], self.to_move, self.turn)
        other.rolling = self.rolling
        return other

    def winner(self) -> int | None:
        return next((p for p, x in enumerate(self.squares) if x >= self.game.length), None)

    def is_terminal(self) -> bool:
        return self.winner() is not None or self.turn >= self.game.max_turns

    def is_truncated(self) -> bool:
        return self.winner() is None and self.turn >= self.game.max_turns

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return CHANCE if self.rolling else self.to_move

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(k, 1.0 / len(DIE)) for k in range(len(DIE))] if self.rolling else []

    def legal_actions_mask(self) -> np.ndarray:
        return np.full(self.game.num_actions, self.current_player() >= 0)

    def legal_actions(self) -> list[int]:
        if self.rolling:
            return [k for k, _ in self.chance_outcomes()]
        return [int(a) for a in np.flatnonzero(self.legal_actions_mask())]

    def apply_action(self, action: int) -> None:
        if self.is_terminal():
            raise IllegalActionError("the game is over")
        if self.rolling:
            outcome = check_action(action, len(DIE))
            self._advance(DIE[outcome])
            return
        action = check_action(action, self.game.num_actions)
        if action == ROLL:
            self.rolling = True
        else:
            self._advance(1)

    def _advance(self, squares: int) -> None:
        self.rolling = False
        self.squares[self.to_move] = min(self.squares[self.to_move] + squares, self.game.length)
        self.turn += 1
        self.to_move = 1 - self.to_move

    def returns(self) -> np.ndarray:
        winner = self.winner()
        return winner_returns(2, [] if winner is None else [winner])

    def to_dict(self) -> dict:
        return {"length": self.game.length, "squares": self.squares[:],
                "to_move": self.to_move, "turn": self.turn}

    def action_to_string(self, action: int) -> str:
        return f"die {DIE[action]}" if self.rolling else ACTION_NAMES[action]

    def string_to_action(self, text: str) -> int:
        if text not in ACTION_NAMES:
            raise IllegalActionError(f"unknown action {text!r}; use walk or roll")
        return ACTION_NAMES.index(text)

    def __str__(self) -> str:
        return " | ".join(f"player {p}: {x}/{self.game.length}" for p, x in enumerate(self.squares))


class Encoder:
    """Planes (2, 1, length + 1): plane k one-hot of the square of seat (me + k) mod 2."""

    def __init__(self, game: Game):
        self.game = game
        self.shape = (2, 1, game.length + 1)

    def encode(self, state: State, player: int) -> np.ndarray:
        planes = np.zeros(self.shape, dtype=np.float32)
        for k in range(2):
            planes[k, 0, state.squares[(player + k) % 2]] = 1.0
        return planes

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return np.arange(self.game.num_actions, dtype=np.int64)


class SquaresToGo:
    """A derived plane (feature ``to_go``): every cell holds the seat's squares still to run
    over the track's length, so the network sees the race's margin at once."""

    def __init__(self, game: Game, encoder):
        self.game, self.encoder = game, encoder
        c, h, w = encoder.shape
        self.shape = (c + 2, h, w)

    def encode(self, state: State, player: int) -> np.ndarray:
        to_go = [(self.game.length - state.squares[(player + k) % 2]) / self.game.length
                 for k in range(2)]
        extra = np.broadcast_to(np.float32(to_go)[:, None, None], (2, *self.shape[1:]))
        return np.concatenate([self.encoder.encode(state, player), extra])

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return self.encoder.view_to_board_actions(player)


def adjudicate(state: State, scale: float) -> np.ndarray:
    """The lead in squares."""
    return margins(np.asarray(state.squares, dtype=np.float64), scale)


def decisions_left(state: State) -> float:
    """The leader's squares still to run, one decision each (walking)."""
    return float(state.game.length - max(state.squares))


HOOKS = Hooks(adjudicate=adjudicate, decisions_left=decisions_left,
              features={"to_go": SquaresToGo}, auto_features=("to_go",))


def draw(state: State) -> np.ndarray:
    """A 2-row strip, one row per runner, its squares so far lit."""
    picture = np.zeros((2, state.game.length + 1, 3), dtype=np.uint8)
    for p, x in enumerate(state.squares):
        picture[p, : x + 1] = 255
    return picture


class raw_env(BoardGameEnv):  # noqa: N801 (PettingZoo's name)
    def __init__(self, render_mode: str | None = None, **config):
        game = Game(**config)
        super().__init__(game, Encoder(game), draw, render_mode=render_mode)


def env(**kwargs):
    return wrap(raw_env(**kwargs))
