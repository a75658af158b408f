"""Nobles rules engine (RULES.md section 3): a 2d6 race of one Noble and four Guards per player
around a 52-tile loop, with the seed's blockades, house captures and a combat score.

A piece's place is its progress ``p`` in its owner's frame: 0 = Yard, 1..52 = main-track tiles
starting at the owner's entering tile, 53..57 = the private Home path, 58 = Home. Every turn
starts at a chance node (``roll`` is None) whose outcomes are the 2d6 sums 2..12; the rolled
player then moves the Noble or ``k`` Guards from one place. Legal movers are computed once per
roll from the piece lists (at most five movers exist) and cached, so the mask and
``apply_action`` are cheap; states share that cache and every other immutable part on clone.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from envs.core import (
    CHANCE,
    PLAYER_COLOR_NAMES,
    TERMINAL,
    IllegalActionError,
    check_action,
    check_config_matches,
    winner_returns,
)

TRACK_TILES = 52
HOME_PATH_START = 53
HOME = 58
GUARDS_PER_PLAYER = 4
NUM_ACTIONS = 1 + 4 * HOME  # 0 = Noble; 1 + 4*p + (k-1) for p in 0..57, k in 1..4
NOBLE_ACTION = 0
CASTLES = frozenset({9, 22, 35, 48})
ENTERING_TILES = (1, 14, 27, 40)
SEATS = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
MODES = ("journey", "brawl")
SCORING = {
    "journey": {"blockade_step": -5, "guard_captured": 10, "noble_captured": 30,
                "guard_home": 10, "noble_home": 60},
    "brawl": {"blockade_step": -15, "guard_captured": 25, "noble_captured": 60,
              "guard_home": 5, "noble_home": 30},
}
ROLL_PROBABILITIES = tuple((v, (6 - abs(v - 7)) / 36) for v in range(2, 13))
POSITION_KEYS = {"game", "num_players", "mode", "nobles", "guards", "scores", "to_move", "roll",
                 "turn"}


def pieces_key(state) -> tuple:
    """Where every piece stands and the scores: all of a position but the roll, the player to
    move and the turn. Positions a roll apart share it (the children of a search's chance
    node), so what depends on the pieces alone is kept per key (standings, observations)."""
    return tuple(state.nobles), tuple(state.guards), tuple(state.scores)


def guard_action(progress: int, k: int) -> int:
    """The action moving ``k`` Guards from own progress ``progress`` (0 = Yard)."""
    return 1 + 4 * progress + (k - 1)


def tile_of(seat: int, progress: int) -> int:
    """The absolute main-track tile (1..52) of a seat's progress 1..52."""
    return (13 * seat + progress - 1) % TRACK_TILES + 1


def progress_of(seat: int, tile: int) -> int:
    """A seat's progress (1..52) on absolute main-track tile ``tile``."""
    return (tile - 1 - 13 * seat) % TRACK_TILES + 1


def shared_tile(tile: int) -> bool:
    """Castles and entering tiles: no captures there, pieces of several players may share them."""
    return tile in CASTLES or tile in ENTERING_TILES


class Move(NamedTuple):
    """A legal mover's outcome for the current roll."""

    start: int  # progress the mover leaves
    dest: int  # progress it stops on
    size: int  # 1 for the Noble, else the number of Guards moving
    trimmed: int  # steps per piece lost to a blockade (0 when it ran its full roll or reached Home)
    blocker: int  # player whose blockade trimmed the move (penalised), or -1 (own Guards, none)


class Event(NamedTuple):
    """One entry of the last-events record shown by the text render (not part of a position)."""

    player: int
    roll: int
    action: int  # -1: no legal mover, the turn passed
    start: int = 0
    dest: int = 0
    trimmed_steps: int = 0  # summed over the moving pieces
    blocker: int = -1
    penalty: int = 0
    captured_guards: tuple[tuple[int, int], ...] = ()  # (victim player, count)
    captured_nobles: tuple[int, ...] = ()
    capture_points: int = 0
    home_points: int = 0


class Game:
    """Nobles config and tables.

    Args:
        num_players: 2, 3 or 4 (seats 0, 2 | 0, 1, 2 | 0, 1, 2, 3).
        mode: ``journey`` | ``brawl``: selects the default combat-score table.
        scoring: ``None`` = the mode's table from RULES.md; a mapping overrides single keys of
            it (signed amounts added to the score, e.g. ``blockade_step: -5``): blockade_step,
            guard_captured, noble_captured, guard_home, noble_home.
        max_turns: turns of all players together; reaching it ends the game, scores decide.
    """

    name = "nobles"

    def __init__(self, num_players: int = 2, mode: str = "journey",
                 scoring: Mapping | None = None, max_turns: int = 300):
        if isinstance(num_players, bool) or num_players not in SEATS:
            raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
        table = dict(SCORING[mode])
        if scoring is not None:
            if not isinstance(scoring, Mapping):
                raise ValueError(f"scoring must be null or a mapping, got {scoring!r}")
            unknown = sorted(str(key) for key in scoring if key not in table)
            if unknown:
                raise ValueError(f"unknown scoring keys {unknown}; valid keys: {sorted(table)}")
            for key, value in scoring.items():
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise ValueError(f"scoring[{key!r}] must be an integer, got {value!r}")
                table[key] = int(value)
        self.num_players = num_players
        self.mode = mode
        self.scoring = table
        self.max_turns = max_turns
        self.num_actions = NUM_ACTIONS
        self.seats = SEATS[num_players]
        # Per player: absolute tile of each progress 0..58 (0 off the main track).
        self.tiles = tuple(
            tuple(tile_of(seat, p) if 1 <= p <= TRACK_TILES else 0 for p in range(HOME + 1))
            for seat in self.seats
        )
        # frames[other][player][p]: player's progress of the tile at other's progress p (0 off
        # the main track); open_ground[player][q]: main-track progress q is not a Castle.
        self.frames = tuple(
            tuple(tuple(progress_of(seat, tile) if tile else 0 for tile in self.tiles[other])
                  for seat in self.seats)
            for other in range(num_players)
        )
        self.open_ground = tuple(
            tuple(bool(tile) and tile not in CASTLES for tile in self.tiles[player])
            for player in range(num_players)
        )

    def __repr__(self) -> str:
        return (f"nobles.Game(num_players={self.num_players}, mode={self.mode!r}, "
                f"scoring={self.scoring!r}, max_turns={self.max_turns})")

    def new_initial_state(self) -> State:
        n = self.num_players
        return State(self, [0] * n, [(0,) * GUARDS_PER_PLAYER] * n, [0] * n, 0, None, 0)

    def state_from_dict(self, position: dict) -> State:
        """A state from RULES.md's position format; ``ValueError`` saying what is wrong. A roll
        that leaves no legal mover passes the turn at once, as in play."""
        nobles, guards, scores, to_move, roll, turn = self._check_position(position)
        state = State(self, nobles, guards, scores, to_move, None, turn)
        if roll is not None:
            if state._over:
                raise ValueError("the game in this position is over, so roll must be null")
            state._set_roll(roll)
        return state

    def _check_position(self, d):
        if not isinstance(d, Mapping):
            raise ValueError(f"a position must be a dict, got {type(d).__name__}")
        unknown = sorted(str(key) for key in d if key not in POSITION_KEYS)
        if unknown:
            raise ValueError(f"unknown position keys {unknown}")
        missing = sorted(POSITION_KEYS - {"game", "num_players", "mode"} - set(d))
        if missing:
            raise ValueError(f"position lacks keys {missing}")
        if d.get("game", "nobles") != "nobles":
            raise ValueError(f"position is for game {d['game']!r}, not 'nobles'")
        check_config_matches(d, self, ("num_players", "mode"))
        n = self.num_players
        nobles = [_check_int(v, f"nobles[{i}]", 0, HOME) for i, v in
                  enumerate(_check_list(d["nobles"], "nobles", n))]
        guards = []
        for i, row in enumerate(_check_list(d["guards"], "guards", n)):
            row = _check_list(row, f"guards[{i}]", GUARDS_PER_PLAYER)
            guards.append(tuple(sorted(_check_int(v, f"guards[{i}]", 0, HOME) for v in row)))
        scores = [_check_int(v, f"scores[{i}]") for i, v in
                  enumerate(_check_list(d["scores"], "scores", n))]
        to_move = _check_int(d["to_move"], "to_move", 0, n - 1)
        roll = None if d["roll"] is None else _check_int(d["roll"], "roll", 2, 12)
        turn = _check_int(d["turn"], "turn", 0, self.max_turns)
        if nobles.count(HOME) > 1:
            raise ValueError("more than one Noble is at Home; the game ends when the first "
                             "arrives")
        owner = {}
        for player in range(n):
            for p in (nobles[player], *guards[player]):
                tile = self.tiles[player][p]
                if tile == 0 or shared_tile(tile):
                    continue
                if owner.setdefault(tile, player) != player:
                    raise ValueError(
                        f"tile {tile} holds pieces of players {owner[tile]} and {player}; only "
                        f"castles and entering tiles may be shared (a mover captures the rest)")
        return nobles, guards, scores, to_move, roll, turn


def _check_list(value, name: str, length: int) -> list:
    if not isinstance(value, (list, tuple)) or len(value) != length:
        raise ValueError(f"{name} must be a list of {length} entries, got {value!r}")
    return list(value)


def _check_int(value, name: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return value


class State:
    """One Nobles position. ``guards`` holds one sorted tuple per player (replaced, never
    mutated), so ``clone`` copies three short lists and shares everything else."""

    __slots__ = ("game", "nobles", "guards", "scores", "to_move", "roll", "turn", "_moves",
                 "_over", "events")

    def __init__(self, game: Game, nobles: list[int], guards: list[tuple[int, ...]],
                 scores: list[int], to_move: int, roll: int | None, turn: int):
        self.game = game
        self.nobles = nobles
        self.guards = guards
        self.scores = scores
        self.to_move = to_move
        self.roll = roll
        self.turn = turn
        self._moves: dict[int, Move] = {}
        self._over = HOME in nobles or turn >= game.max_turns
        self.events: tuple[Event, ...] = ()

    def clone(self) -> State:
        other = State.__new__(State)
        other.game = self.game
        other.nobles = self.nobles[:]
        other.guards = self.guards[:]
        other.scores = self.scores[:]
        other.to_move = self.to_move
        other.roll = self.roll
        other.turn = self.turn
        other._moves = self._moves
        other._over = self._over
        other.events = self.events
        return other

    # -- contract ---------------------------------------------------------------------------

    def current_player(self) -> int:
        if self._over:
            return TERMINAL
        return CHANCE if self.roll is None else self.to_move

    def is_chance_node(self) -> bool:
        return self.roll is None and not self._over

    def is_terminal(self) -> bool:
        return self._over

    def is_truncated(self) -> bool:
        return False

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance_node():
            raise ValueError("chance_outcomes() is only defined at a chance node")
        return list(ROLL_PROBABILITIES)

    def legal_actions(self) -> list[int]:
        if self.is_chance_node():
            return list(range(2, 13))
        return sorted(self._moves)

    def legal_actions_mask(self) -> np.ndarray:
        """The same actions as :meth:`legal_actions`: the legal movers at a decision node, the
        roll values 2..12 at a chance node, none at the end."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self._moves:
            mask[list(self._moves)] = True
        elif self.is_chance_node():
            mask[2:13] = True
        return mask

    def returns(self) -> np.ndarray:
        if not self._over:
            return np.zeros(self.game.num_players, dtype=np.float64)
        best = max(self.scores)
        return winner_returns(self.game.num_players,
                              [i for i, s in enumerate(self.scores) if s == best])

    def apply_action(self, action: int) -> None:
        if self._over:
            raise IllegalActionError(f"action {action!r}: the game is over")
        if type(action) is not int:
            action = check_action(action, NUM_ACTIONS)
        if self.roll is None:
            value = check_action(action, 13)
            if value < 2:
                raise IllegalActionError(f"roll {value} is not a 2d6 sum (2..12)")
            self._set_roll(value)
            return
        move = self._moves.get(action)
        if move is None:
            raise IllegalActionError(
                f"action {action} ({self.action_to_string(action)}) is illegal for player "
                f"{self.to_move} with roll {self.roll}: {self._why_illegal(action)}")
        self._play(action, move)

    # -- rules ------------------------------------------------------------------------------

    def _set_roll(self, value: int) -> None:
        """Set the roll; with no legal mover the turn passes (recorded as an event)."""
        self.roll = value
        self._moves = self._find_moves()
        if not self._moves:
            self.events = (*self.events, Event(self.to_move, value, -1))
            self._end_turn()

    def _end_turn(self) -> None:
        self._moves = {}
        self.roll = None
        self.turn += 1
        self.to_move = (self.to_move + 1) % self.game.num_players
        if self.turn >= self.game.max_turns:
            self._over = True

    def _blockades(self, player: int) -> tuple[tuple[tuple[int, int, int], ...],
                                               tuple[int, ...]]:
        """For ``player``'s movers, in its own progress frame: the opponent Guard groups that
        can blockade, as (progress, size, owner) sorted by progress (not on Castles, not on the
        player's entering tile, progress 1), and the progresses where its own Guards stop its
        Noble (the main track except Castles)."""
        game = self.game
        open_ground = game.open_ground[player]
        blocks = []
        for other, row in enumerate(self.guards):
            if other == player:
                continue
            frame = game.frames[other][player]
            i = 0
            while i < GUARDS_PER_PLAYER:  # rows are sorted: a group is a run of equal entries
                j = i + 1
                while j < GUARDS_PER_PLAYER and row[j] == row[i]:
                    j += 1
                if j - i >= 2:
                    q = frame[row[i]]
                    if q > 1 and open_ground[q]:
                        blocks.append((q, j - i, other))
                i = j
        blocks.sort()
        return tuple(blocks), tuple(sorted({p for p in self.guards[player] if open_ground[p]}))

    def _find_moves(self) -> dict[int, Move]:
        player = self.to_move
        roll = self.roll
        blocks, own = self._blockades(player)
        moves: dict[int, Move] = {}
        noble = self.nobles[player]
        if noble < HOME:
            move = _walk(noble, roll, 1, blocks, own)
            if move is not None:
                moves[NOBLE_ACTION] = move
        row = self.guards[player]
        for p in set(row):
            if p == HOME:
                continue
            for k in range(1, row.count(p) + 1):
                move = _walk(p, roll, k, blocks, None)
                if move is not None:
                    moves[guard_action(p, k)] = move
        return moves

    def _play(self, action: int, move: Move) -> None:
        game = self.game
        table = game.scoring
        player = self.to_move
        penalty = 0
        if move.blocker >= 0:
            penalty = table["blockade_step"] * move.trimmed * move.size
        if action == NOBLE_ACTION:
            self.nobles[player] = move.dest
        else:
            row = list(self.guards[player])
            for _ in range(move.size):
                row.remove(move.start)
            row.extend([move.dest] * move.size)
            row.sort()
            self.guards[player] = tuple(row)
        home_points = 0
        if move.dest == HOME:
            home_points = (table["noble_home"] if action == NOBLE_ACTION
                           else table["guard_home"] * move.size)
            if action == NOBLE_ACTION:
                self._over = True
        captured_guards, captured_nobles = self._capture(player, move.dest)
        capture_points = (table["guard_captured"] * sum(c for _, c in captured_guards)
                          + table["noble_captured"] * len(captured_nobles))
        self.scores[player] += penalty + home_points + capture_points
        self.events = (Event(player, self.roll, action, move.start, move.dest,
                             move.trimmed * move.size, move.blocker, penalty, captured_guards,
                             captured_nobles, capture_points, home_points),)
        self._end_turn()

    def _capture(self, player: int, dest: int):
        """Send every opponent piece on the mover's final tile back to its Yard."""
        tiles = self.game.tiles
        tile = tiles[player][dest]
        if tile == 0 or shared_tile(tile):
            return (), ()
        captured_guards = []
        captured_nobles = []
        for other in range(self.game.num_players):
            if other == player:
                continue
            at = progress_of(self.game.seats[other], tile)
            row = self.guards[other]
            count = row.count(at)
            if count:
                self.guards[other] = tuple(sorted(0 if p == at else p for p in row))
                captured_guards.append((other, count))
            if self.nobles[other] == at:
                self.nobles[other] = 0
                captured_nobles.append(other)
        return tuple(captured_guards), tuple(captured_nobles)

    def _why_illegal(self, action: int) -> str:
        player = self.to_move
        if action == NOBLE_ACTION:
            if self.nobles[player] == HOME:
                return "the Noble is at Home"
            return "the Noble is blocked on its first step"
        p, k = divmod(action - 1, 4)
        k += 1
        have = self.guards[player].count(p)
        if have < k:
            return f"only {have} Guard(s) at progress {p}"
        return f"the group of {k} is blocked on its first step"

    # -- notation and positions -------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """``N`` (the Noble), ``G<p>x<k>`` (k Guards from progress p; ``GYx<k>`` from the Yard);
        at a chance node ``roll <v>``."""
        if self.is_chance_node():
            value = check_action(action, 13)
            if value < 2:
                raise ValueError(f"roll {value} is not a 2d6 sum (2..12)")
            return f"roll {value}"
        action = check_action(action, NUM_ACTIONS)
        if action == NOBLE_ACTION:
            return "N"
        p, k = divmod(action - 1, 4)
        return f"G{'Y' if p == 0 else p}x{k + 1}"

    def string_to_action(self, text: str) -> int:
        s = text.strip().upper().replace(" ", "")
        if self.is_chance_node():
            if s.startswith("ROLL") and s[4:].isdigit() and 2 <= int(s[4:]) <= 12:
                return int(s[4:])
            raise ValueError(f"cannot read {text!r} as a roll ('roll 2'..'roll 12')")
        if s == "N":
            return NOBLE_ACTION
        where, _, k = s[1:].partition("X")
        where = "0" if where == "Y" else where
        if (s[:1] != "G" or not where.isdigit() or not k.isdigit()
                or not 0 <= int(where) < HOME or not 1 <= int(k) <= 4):
            raise ValueError(f"cannot read {text!r} as an action: 'N' moves the Noble, "
                             f"'G<p>x<k>' moves k (1..4) Guards from progress p (Y or 0..57)")
        return guard_action(int(where), int(k))

    def to_dict(self) -> dict:
        game = self.game
        return {"game": "nobles", "num_players": game.num_players, "mode": game.mode,
                "nobles": self.nobles[:], "guards": [list(row) for row in self.guards],
                "scores": self.scores[:], "to_move": self.to_move, "roll": self.roll,
                "turn": self.turn}

    def __str__(self) -> str:
        return text_board(self)

    def __repr__(self) -> str:
        return f"nobles.State({self.to_dict()!r})"


@functools.lru_cache(maxsize=1 << 14)
def _walk(start: int, roll: int, size: int, blocks: tuple[tuple[int, int, int], ...],
          own: tuple[int, ...] | None) -> Move | None:
    """Move a mover of ``size`` pieces ``roll`` steps from ``start``: it stops at Home, or on
    the tile before the first blockade that stops it. ``own`` (the Noble only) are the
    progresses where its own Guards block it; where they share a tile with an opponent
    blockade, the opponent's counts. None when it cannot advance even one step. Cached: the
    same few walks recur (a roll, a piece, the blockades ahead), and a move is immutable."""
    end = min(start + roll, HOME)
    stop, blocker = end, -1
    if size < 4:  # a moving group of four is never blockaded
        need = max(2, size)  # the smallest opponent group that stops it
        for q, group, owner in blocks:
            if q > end:
                break
            if q > start and group >= need:
                stop, blocker = q - 1, owner
                break
    if own is not None:
        for q in own:
            if q > start:
                if q <= stop:
                    stop, blocker = q - 1, -1
                break
    if stop == start:
        return None
    return Move(start, stop, size, 0 if stop == HOME else start + roll - stop, blocker)


# ----- the text board (str(state)); render.py draws the picture on the same geometry -----

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


def pieces_by_cell(state) -> dict[tuple[int, int], list[tuple[int, bool, int]]]:
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
    for (r, c), tokens in pieces_by_cell(state).items():
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
