"""Blockade rules engine (RULES.md section 1): ``Game`` holds the config and precomputed
tables, ``State`` one position, cheap to clone.

Representation, chosen for speed under search:
- cells are ints ``r * cols + c``; ``State.pawns`` is a flat list, pawn ``k`` of player ``p``
  at index ``2 * p + k``;
- ``State.open`` is a bytearray, one bitmask per cell of the directions a pawn may step
  (board edges and walls cleared), updated when a wall is placed;
- ``State.wall_status`` is a 2 x (all wall anchors, both orientations) bool array: row 0
  (``wall_free``) the anchors that may still take a wall, updated from precomputed conflict
  lists, so the wall half of the legal mask is one array copy; row 1 (``wall_placed``) the
  anchors holding a wall. One array, so encoders gather both rows at once.
- legal actions are cached per position as a list and as a mask, each built on first use (a
  turn's pawn moves when the turn starts, as that also tells whether it starts with a move);
- ``State.wall_cache`` is a dict that the engine (the pawn moves each cell's walls allow),
  the open-path rule and encoders fill with what depends on the walls only, or on the wall
  supplies, which change with them (keyed by their own keys). Clones share it, and a wall
  placement starts a new one, so it is valid for every state that shares it: search siblings
  that differ by pawn moves reuse it, and so does every move once the walls run out.
"""

from __future__ import annotations

import numpy as np

from envs.blockade import paths
from envs.core import (
    ChanceFreeState,
    IllegalActionError,
    check_action,
    check_config_matches,
    winner_returns,
)

UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
DIRECTIONS = ((UP, -1, 0), (DOWN, 1, 0), (LEFT, 0, -1), (RIGHT, 0, 1))

MOVE_OFFSETS = (
    (-1, 0), (1, 0), (0, -1), (0, 1),
    (-2, 0), (2, 0), (0, -2), (0, 2),
    (-1, -1), (-1, 1), (1, -1), (1, 1),
)
"""Pawn move ``k`` of RULES.md: action ``12 * pawn + k`` moves by ``MOVE_OFFSETS[k]``."""
MOVE_NAMES = ("N", "S", "W", "E", "NN", "SS", "WW", "EE", "NW", "NE", "SW", "SE")
"""Compass names of the offsets, used in action text when the target lies off the board."""
NUM_MOVE_ACTIONS = 24
PAWNS_PER_PLAYER = 2

SEAT_CORNERS = {2: ("NW", "SE"), 3: ("NW", "NE", "SE"), 4: ("NW", "NE", "SE", "SW")}
OPPOSITE_CORNER = {"NW": "SE", "SE": "NW", "NE": "SW", "SW": "NE"}
WIN_CONDITIONS = ("both", "any")
PATH_RULES = ("none", "open")
PHASES = ("move", "wall")

RULE_PRESETS = {
    "seed": {"win_condition": "both", "path_rule": "none", "jumps": False, "max_turns": None,
             "start_squares": None},
    "lakeside": {"win_condition": "any", "path_rule": "open", "jumps": True, "max_turns": 200,
                 "start_squares": {"NW": ((3, 3), (3, 7)), "SE": ((10, 7), (10, 3))}},
}
"""RULES.md's presets: ``seed`` (the seed's rules, the default) and ``lakeside`` (the game as
Lakeside published it in 1975). A key given explicitly to ``Game`` overrides its preset value;
``max_turns`` ``None`` means ``100 * num_players``."""
LAKESIDE_BOARD = (2, 14, 11)
"""``num_players, rows, cols`` the ``lakeside`` preset's start squares are made for."""
PAWN_MOVES_KEY = "pawn_moves"
"""``State.wall_cache`` key of the pawn moves per cell as the walls allow them."""
WALL_ACTIONS_KEY = "wall_actions"
"""``State.wall_cache`` key (with a player's supply case) of a wall phase's candidates."""


def default_start_squares(rows: int, cols: int) -> dict[str, tuple[tuple[int, int], ...]]:
    """RULES.md's corner table, mirrored for any board size: two squares on each corner's
    diagonal, at distance 2 and 3 from the corner."""
    last_r, last_c = rows - 1, cols - 1
    return {
        "NW": ((2, 2), (3, 3)),
        "NE": ((2, last_c - 2), (3, last_c - 3)),
        "SE": ((last_r - 2, last_c - 2), (last_r - 3, last_c - 3)),
        "SW": ((last_r - 2, 2), (last_r - 3, 3)),
    }


def cell_name(r: int, c: int) -> str:
    """Text notation: column letter, then row number counted from 1 at the top (``(3,3)`` is
    ``d4``)."""
    return f"{chr(ord('a') + c)}{r + 1}"


def parse_cell(text: str, rows: int, cols: int) -> tuple[int, int]:
    text = text.strip().lower()
    if len(text) < 2 or not text[0].isalpha() or not text[1:].isdigit():
        raise ValueError(f"{text!r} is not a cell like 'd4'")
    r, c = int(text[1:]) - 1, ord(text[0]) - ord("a")
    if not (0 <= r < rows and 0 <= c < cols):
        raise ValueError(f"cell {text!r} is off the {rows}x{cols} board")
    return r, c


class Game:
    """Blockade's config and the tables every state shares.

    Args:
        num_players: 2, 3 or 4.
        rows, cols: board size (the seed's board is 14 x 11).
        rules: preset ``"seed"`` (default) or ``"lakeside"`` (RULE_PRESETS); the keys below
            left at ``None`` take the preset's value.
        win_condition: ``"both"`` (seed: both pawns on your goal squares) or ``"any"``.
        max_turns: turns of all players before truncation (the seed preset's ``None`` =
            ``100 * num_players``).
        start_squares: mapping corner (``NW NE SE SW``) -> two ``[r, c]`` squares, replacing
            those of RULES.md's table; ``None`` = the preset's (seed: the table).
        walls_per_orientation: each player's supply of vertical and of horizontal walls.
        path_rule: ``"none"`` (seed: walls may shut anyone in) or ``"open"`` (every pawn keeps
            a path to every goal square of its owner).
        jumps: whether the middle cell of a 2-step move may hold a pawn (jumped over).
    """

    name = "blockade"

    def __init__(
        self,
        num_players: int = 2,
        rows: int = 14,
        cols: int = 11,
        win_condition: str | None = None,
        max_turns: int | None = None,
        start_squares: dict | None = None,
        walls_per_orientation: int = 9,
        path_rule: str | None = None,
        jumps: bool | None = None,
        rules: str = "seed",
    ):
        if rules not in RULE_PRESETS:
            raise ValueError(f"rules must be one of {', '.join(RULE_PRESETS)}, got {rules!r}")
        preset = RULE_PRESETS[rules]
        if rules == "lakeside" and start_squares is None and (num_players, rows, cols) != \
                LAKESIDE_BOARD:
            raise ValueError(
                f"rules='lakeside' has start squares for 2 players on the 14x11 board only; "
                f"give start_squares for num_players={num_players!r} rows={rows!r} "
                f"cols={cols!r}")
        win_condition = preset["win_condition"] if win_condition is None else win_condition
        path_rule = preset["path_rule"] if path_rule is None else path_rule
        jumps = preset["jumps"] if jumps is None else jumps
        max_turns = preset["max_turns"] if max_turns is None else max_turns
        start_squares = preset["start_squares"] if start_squares is None else start_squares
        if num_players not in SEAT_CORNERS:
            raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if not (isinstance(rows, int) and isinstance(cols, int) and rows >= 8 and cols >= 8):
            raise ValueError(f"the board must be at least 8x8, got rows={rows!r} cols={cols!r}")
        if win_condition not in WIN_CONDITIONS:
            raise ValueError(f"win_condition must be 'both' or 'any', got {win_condition!r}")
        if path_rule not in PATH_RULES:
            raise ValueError(f"path_rule must be 'none' or 'open', got {path_rule!r}")
        if not isinstance(jumps, bool):
            raise ValueError(f"jumps must be true or false, got {jumps!r}")
        if max_turns is None:
            max_turns = 100 * num_players
        if not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
        if not isinstance(walls_per_orientation, int) or walls_per_orientation < 0:
            raise ValueError(
                f"walls_per_orientation must be a non-negative integer, "
                f"got {walls_per_orientation!r}"
            )
        self.num_players = num_players
        self.rows, self.cols = rows, cols
        self.rules = rules
        self.win_condition = win_condition
        self.max_turns = max_turns
        self.walls_per_orientation = walls_per_orientation
        self.path_rule = path_rule
        self.jumps = jumps
        self.corners = SEAT_CORNERS[num_players]
        self.start_squares = self._check_start_squares(start_squares)
        self.num_cells = rows * cols
        self.anchors_per_orientation = (rows - 1) * (cols - 1)
        self.num_actions = NUM_MOVE_ACTIONS + 2 * self.anchors_per_orientation
        self._build_tables()

    def _check_start_squares(self, start_squares) -> dict[str, tuple[tuple[int, int], ...]]:
        squares = default_start_squares(self.rows, self.cols)
        for corner, pair in (start_squares or {}).items():
            if corner not in squares:
                raise ValueError(f"start_squares: unknown corner {corner!r}; use NW NE SE SW")
            pair = tuple(tuple(int(v) for v in sq) for sq in pair)
            if len(pair) != 2 or any(len(sq) != 2 for sq in pair) or pair[0] == pair[1]:
                raise ValueError(f"start_squares[{corner}] must be two distinct [r, c] squares")
            for r, c in pair:
                if not (0 <= r < self.rows and 0 <= c < self.cols):
                    raise ValueError(f"start_squares[{corner}]: ({r},{c}) is off the board")
            squares[corner] = pair
        cells = [sq for corner in self.corners for sq in squares[corner]]
        if len(set(cells)) != len(cells):
            raise ValueError("start_squares: two seated corners share a square")
        return squares

    def _build_tables(self) -> None:
        rows, cols = self.rows, self.cols
        cell = self.cell
        self.start_cells = [
            [cell(*sq) for sq in self.start_squares[corner]] for corner in self.corners
        ]
        self.goal_cells = [
            frozenset(cell(*sq) for sq in self.start_squares[OPPOSITE_CORNER[corner]])
            for corner in self.corners
        ]
        # Neighbour of each cell in each direction (-1 off the board) and the open mask of an
        # empty board.
        self.step = {d: [-1] * self.num_cells for d, _, _ in DIRECTIONS}
        self.empty_open = bytearray(self.num_cells)
        for r in range(rows):
            for c in range(cols):
                for d, dr, dc in DIRECTIONS:
                    if 0 <= r + dr < rows and 0 <= c + dc < cols:
                        self.step[d][cell(r, c)] = cell(r + dr, c + dc)
                        self.empty_open[cell(r, c)] |= d
        self.neighbours = [
            [(d, self.step[d][x]) for d, _, _ in DIRECTIONS if self.step[d][x] >= 0]
            for x in range(self.num_cells)
        ]
        # Per cell, the moves by MOVE_OFFSETS that stay on the board, in order of offset k and
        # with the open edges each route needs: single steps as (k, direction, target), 2 steps
        # as (k, target, d1, middle, d2, e1, other middle, e2) for the routes d1 then d2 and,
        # L-shaped moves only (else e1 = 0), e1 then e2.
        direction_of = {(dr, dc): d for d, dr, dc in DIRECTIONS}
        self.move_steps = [dr * cols + dc for dr, dc in MOVE_OFFSETS]  # in cell numbers
        self.single_steps, self.double_steps = [], []
        for r in range(rows):
            for c in range(cols):
                singles, doubles = [], []
                for k, (dr, dc) in enumerate(MOVE_OFFSETS):
                    if not (0 <= r + dr < rows and 0 <= c + dc < cols):
                        continue
                    target = cell(r + dr, c + dc)
                    if abs(dr) + abs(dc) == 1:
                        singles.append((k, direction_of[dr, dc], target))
                    elif dr == 0 or dc == 0:
                        d = direction_of[dr // 2, dc // 2]
                        doubles.append((k, target, d, cell(r + dr // 2, c + dc // 2), d, 0, 0, 0))
                    else:
                        vertical, horizontal = direction_of[dr, 0], direction_of[0, dc]
                        doubles.append((k, target, vertical, cell(r + dr, c), horizontal,
                                        horizontal, cell(r, c + dc), vertical))
                self.single_steps.append(singles)
                self.double_steps.append(doubles)
        # Per cell, the bitboard of the cells a move from it may reach or pass through.
        self.nearby = [sum(1 << target for _, _, target in self.single_steps[x])
                       | sum(1 << target for _, target, *_ in self.double_steps[x])
                       for x in range(self.num_cells)]
        # Per wall index (0..2A-1, orientation-major): the two cell pairs it separates, as
        # (cell, direction) for both sides, and the wall indices it rules out.
        self.wall_edges = []
        self.wall_neighbourhood = []
        self.wall_conflicts = []
        for o in range(2):
            for r in range(1, rows):
                for c in range(1, cols):
                    a, b = cell(r - 1, c - 1), cell(r - 1, c)
                    d, e = cell(r, c - 1), cell(r, c)
                    if o == 0:  # V: cuts left-right between the two cell pairs
                        edges = ((a, RIGHT), (b, LEFT), (d, RIGHT), (e, LEFT))
                        same = [(r - 1, c), (r, c), (r + 1, c)]
                    else:  # H: cuts up-down
                        edges = ((a, DOWN), (d, UP), (b, DOWN), (e, UP))
                        same = [(r, c - 1), (r, c), (r, c + 1)]
                    conflicts = [
                        self.wall_index(o, rr, cc)
                        for rr, cc in same
                        if 1 <= rr < rows and 1 <= cc < cols
                    ]
                    conflicts.append(self.wall_index(1 - o, r, c))
                    self.wall_edges.append(edges)
                    # The cells whose moves a wall may change: its edges' cells and their
                    # neighbours (a move's routes read the open edges of its cell and of the
                    # cells next to it).
                    cells = {x for x, _ in edges}
                    self.wall_neighbourhood.append(sorted(
                        cells | {y for x in cells for _, y in self.neighbours[x]}))
                    self.wall_conflicts.append(np.array(conflicts, dtype=np.int64))
        self.goal_bits = [sum(1 << x for x in goals) for goals in self.goal_cells]
        self.path_tables = (
            paths.PathTables(self, (UP, DOWN, LEFT, RIGHT)) if self.path_rule == "open" else None
        )

    def cell(self, r: int, c: int) -> int:
        return r * self.cols + c

    def coords(self, x: int) -> tuple[int, int]:
        return divmod(x, self.cols)

    def wall_index(self, orientation: int, r: int, c: int) -> int:
        """Index of wall ``V`` (0) or ``H`` (1) at anchor ``(r, c)`` among all walls; its action
        is ``24 + wall_index``."""
        return orientation * self.anchors_per_orientation + (r - 1) * (self.cols - 1) + (c - 1)

    def wall_of_index(self, w: int) -> tuple[int, int, int]:
        o, rest = divmod(w, self.anchors_per_orientation)
        r, c = divmod(rest, self.cols - 1)
        return o, r + 1, c + 1

    def new_initial_state(self) -> State:
        state = State(self)
        state._start_turn()
        return state

    def state_from_dict(self, position: dict) -> State:
        return State.from_dict(self, position)

    def __repr__(self) -> str:
        return (
            f"blockade.Game(rules={self.rules!r}, num_players={self.num_players}, "
            f"rows={self.rows}, cols={self.cols}, win_condition={self.win_condition!r}, "
            f"path_rule={self.path_rule!r}, jumps={self.jumps}, max_turns={self.max_turns})"
        )


class State(ChanceFreeState):
    """One Blockade position. See the module docstring for the representation."""

    __slots__ = (
        "game", "pawns", "open", "wall_status", "wall_free", "wall_placed", "walls", "walls_left",
        "to_move", "phase", "turn", "winner", "outcome", "_mask", "_legal", "wall_cache",
    )

    def __init__(self, game: Game):
        self.game = game
        self.pawns = [x for cells in game.start_cells for x in cells]
        self.open = bytearray(game.empty_open)
        self.wall_status = np.zeros((2, 2 * game.anchors_per_orientation), dtype=bool)
        self.wall_status[0] = True
        self.wall_free, self.wall_placed = self.wall_status
        self.walls: list[int] = []  # wall indices in the order placed
        self.walls_left = [game.walls_per_orientation] * (2 * game.num_players)
        self.to_move = 0
        self.phase = 0  # index into PHASES
        self.turn = 0
        self.winner = -1
        self.outcome: str | None = None  # None while playing, else "win", "draw", "truncated"
        self._mask: np.ndarray | None = None
        self._legal: list[int] | None = None
        self.wall_cache: dict = {}

    # ----- contract (its turn methods: ChanceFreeState) -----
    def is_truncated(self) -> bool:
        return self.outcome == "truncated"

    def returns(self) -> np.ndarray:
        winners = [self.winner] if self.winner >= 0 else []
        return winner_returns(self.game.num_players, winners)

    def clone(self) -> State:
        other = object.__new__(State)
        other.game = self.game
        other.pawns = self.pawns[:]
        other.open = self.open[:]
        other.wall_status = self.wall_status.copy()
        other.wall_free, other.wall_placed = other.wall_status
        other.walls = self.walls[:]
        other.walls_left = self.walls_left[:]
        other.to_move = self.to_move
        other.phase = self.phase
        other.turn = self.turn
        other.winner = self.winner
        other.outcome = self.outcome
        other._mask = self._mask  # caches are never mutated in place, so safe to share
        other._legal = self._legal
        other.wall_cache = self.wall_cache
        return other

    def legal_actions_mask(self) -> np.ndarray:
        if self._mask is None:
            if self.outcome is None and self.phase == 1:
                self._mask = self._wall_actions(self.to_move)[0]
            else:
                mask = np.zeros(self.game.num_actions, dtype=bool)
                if self.outcome is None:
                    mask[self.legal_actions()] = True
                self._mask = mask
        return self._mask

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            if self.outcome is not None:
                self._legal = []
            elif self.phase == 0:
                self._legal = self._pawn_actions()
            else:
                self._legal = self._wall_actions(self.to_move)[1]
        return self._legal

    def apply_action(self, action) -> None:
        if type(action) is not int or not 0 <= action < self.game.num_actions:
            action = check_action(action, self.game.num_actions)
        if self.outcome is not None:
            raise IllegalActionError(f"action {action}: the game is over ({self.outcome})")
        if not self._is_legal(action):
            raise IllegalActionError(
                f"action {action} ({self.action_to_string(action)}) is illegal for player "
                f"{self.to_move} in the {PHASES[self.phase]} phase{self._path_cut_by(action)}"
            )
        self._mask = self._legal = None
        if action < NUM_MOVE_ACTIONS:
            self._move_pawn(action)
        else:
            self._place_wall(action - NUM_MOVE_ACTIONS)

    # ----- move generation -----
    def _pawn_moves(self, x: int) -> tuple[list[int], list[int], list[tuple]]:
        """The moves of a pawn on ``x`` as the walls allow them, pawns aside, in order of
        offset: as actions of the owner's pawn 0 and of its pawn 1 (``12 * pawn + k``), and as
        ``(k, target, middles)``, ``middles`` the cells a 2-step move may pass through (empty
        for 1 step, and under jumps, where pawns on the way do not matter). The walls alone
        decide them, so :meth:`_legal_moves_of` keeps them in the wall cache per cell: after
        the walls run out, every move of the game reads them there."""
        open_, jumps = self.open, self.game.jumps
        exits = open_[x]
        first_pawn, second_pawn, moves = [], [], []
        for k, d, y in self.game.single_steps[x]:
            if exits & d:
                first_pawn.append(k)
                second_pawn.append(12 + k)
                moves.append((k, y, ()))
        for k, z, d1, y1, d2, e1, y2, e2 in self.game.double_steps[x]:
            first = exits & d1 and open_[y1] & d2
            second = e1 and exits & e1 and open_[y2] & e2
            if first or second:
                first_pawn.append(k)
                second_pawn.append(12 + k)
                moves.append((k, z, () if jumps else (y1, y2) if first and second
                              else (y1,) if first else (y2,)))
        return first_pawn, second_pawn, moves

    def _legal_moves_of(self, i: int) -> list[int]:
        """The legal actions of the pawn ``self.pawns[i]`` (do not modify): onto an empty cell,
        and for 2 steps without jumps through an empty middle cell on some open route. With no
        other pawn within 2 steps, those the walls allow."""
        occupied, pawn = self.pawns, i % 2
        x = occupied[i]
        moves_of = self.wall_cache.get(PAWN_MOVES_KEY)
        if moves_of is None:
            moves_of = self.wall_cache[PAWN_MOVES_KEY] = [None] * self.game.num_cells
        entry = moves_of[x]
        if entry is None:
            entry = moves_of[x] = self._pawn_moves(x)
        nearby = self.game.nearby[x]
        for y in occupied:
            if nearby >> y & 1:
                break
        else:
            return entry[pawn]
        return [12 * pawn + k for k, z, via in entry[2] if z not in occupied
                and (not via or via[0] not in occupied or via[-1] not in occupied)]

    def _has_pawn_move(self, player: int) -> bool:
        return bool(self._legal_moves_of(2 * player) or self._legal_moves_of(2 * player + 1))

    def _wall_actions(self, player: int) -> tuple[np.ndarray, list[int]]:
        """The legal mask (over all actions) and the legal actions of ``player``'s wall phase:
        free anchors of an orientation with supply left and, under the open-path rule, leaving
        every pawn a path (do not modify either). What the walls and supplies decide is kept in
        the wall cache, per case of supply (which orientations have walls left): the mask, the
        actions, and the few walls that close a loop, the only ones the pawns' places may rule
        out (``paths``), so a wall phase usually starts without building anything."""
        walls_left = self.walls_left
        key = (WALL_ACTIONS_KEY, walls_left[2 * player] > 0, walls_left[2 * player + 1] > 0)
        entry = self.wall_cache.get(key)
        if entry is None:
            supply = self._wall_supply_mask(player)
            mask = np.zeros(self.game.num_actions, dtype=bool)
            mask[NUM_MOVE_ACTIONS:] = supply
            mask.flags.writeable = False  # shared by every state with these walls
            closing = paths.closing_walls(self, supply) if self.game.path_rule == "open" else []
            entry = self.wall_cache[key] = (mask, mask.nonzero()[0].tolist(), closing)
        mask, legal, closing = entry
        if closing:
            cut = paths.cutting_walls(self, closing)
            if cut:
                cut_actions = {NUM_MOVE_ACTIONS + w for w in cut}
                mask = mask.copy()
                mask[list(cut_actions)] = False
                legal = [a for a in legal if a not in cut_actions]
        return mask, legal

    def _wall_supply_mask(self, player: int) -> np.ndarray:
        """Anchors where ``player`` may place a wall now (free anchor and supply left)."""
        free = self.wall_free.copy()
        anchors = self.game.anchors_per_orientation
        if self.walls_left[2 * player] == 0:
            free[:anchors] = False
        if self.walls_left[2 * player + 1] == 0:
            free[anchors:] = False
        return free

    def _start_wall_phase(self) -> bool:
        """Enter the wall phase if the player to move has a wall to place, keeping the phase's
        legal mask and actions."""
        p = self.to_move
        if not (self.walls_left[2 * p] or self.walls_left[2 * p + 1]):
            return False
        mask, legal = self._wall_actions(p)
        if not legal:
            return False
        self.phase, self._mask, self._legal = 1, mask, legal
        return True

    def _has_wall(self, player: int) -> bool:
        return bool((self.walls_left[2 * player] or self.walls_left[2 * player + 1])
                    and self._wall_actions(player)[1])

    def _pawn_actions(self) -> list[int]:
        """The legal moves of the player to move, sorted (pawn 0's offsets, then pawn 1's)."""
        first = 2 * self.to_move
        return self._legal_moves_of(first) + self._legal_moves_of(first + 1)

    def _is_legal(self, action: int) -> bool:
        if action < NUM_MOVE_ACTIONS:
            return self.phase == 0 and action in self.legal_actions()
        if self.game.path_rule == "open":
            return self.phase == 1 and bool(self.legal_actions_mask()[action])
        w = action - NUM_MOVE_ACTIONS
        orientation = w // self.game.anchors_per_orientation
        return bool(
            self.phase == 1 and self.wall_free[w]
            and self.walls_left[2 * self.to_move + orientation] > 0
        )

    def _path_cut_by(self, action: int) -> str:
        """Why a wall that is otherwise legal breaks the open-path rule (the pawn it would cut
        off), or ``""``."""
        w = action - NUM_MOVE_ACTIONS
        if (self.game.path_rule != "open" or self.phase != 1 or w < 0
                or not self._wall_supply_mask(self.to_move)[w]):
            return ""
        game = self.game
        steps = paths.without_wall(paths.wall_layout(self).steps, game.path_tables, w)
        player, k, goal = paths.cut_off_pawn(game, self.pawns, steps)
        return (f": it would leave player {player}'s pawn on "
                f"{cell_name(*game.coords(self.pawns[2 * player + k]))} without a path to its "
                f"goal {cell_name(*game.coords(goal))} (path_rule: open)")

    # ----- transitions -----
    def _move_pawn(self, action: int) -> None:
        game, p = self.game, self.to_move
        k, offset = divmod(action, 12)
        self.pawns[2 * p + k] += game.move_steps[offset]  # legal, so on the board
        if self._meets_win_condition(p):
            self.winner = p
            self.outcome = "win"
            self.turn += 1
        elif not self._start_wall_phase():
            self._end_turn()

    def _place_wall(self, w: int) -> None:
        game = self.game
        for x, d in game.wall_edges[w]:
            self.open[x] &= ~d
        self.wall_free[game.wall_conflicts[w]] = False
        self.wall_placed[w] = True
        cache = paths.wall_cache_after(self.wall_cache, game.path_tables, w) \
            if game.path_tables else {}
        moves_of = self.wall_cache.get(PAWN_MOVES_KEY)
        if moves_of is not None:  # only the cells next to the wall's edges see new moves
            moves_of = moves_of[:]
            for x in game.wall_neighbourhood[w]:
                moves_of[x] = None
            cache[PAWN_MOVES_KEY] = moves_of
        self.wall_cache = cache
        self.walls.append(w)
        self.walls_left[2 * self.to_move + w // game.anchors_per_orientation] -= 1
        self._end_turn()

    def _end_turn(self) -> None:
        self.turn += 1
        self.to_move = (self.to_move + 1) % self.game.num_players
        self._start_turn()

    def _start_turn(self) -> None:
        """Advance through forced skips: a turn with no pawn move starts at the wall phase; a
        turn with neither passes; nobody able to act is a deadlock (draw)."""
        game = self.game
        for _ in range(game.num_players + 1):
            if self.turn >= game.max_turns:
                self.outcome = "truncated"
                return
            p = self.to_move
            moves = self._pawn_actions()
            if moves:
                self.phase = 0
                self._legal = moves  # the turn's legal actions, asked for next
                return
            if self._start_wall_phase():
                return
            if not any(
                self._has_pawn_move(q) or self._has_wall(q) for q in range(game.num_players)
            ):
                self.outcome = "draw"
                self.phase = 0
                return
            self.turn += 1
            self.to_move = (p + 1) % game.num_players
        raise AssertionError("a full round passed although some player can act")

    def _meets_win_condition(self, player: int) -> bool:
        goals = self.game.goal_cells[player]
        on_goal = (self.pawns[2 * player] in goals) + (self.pawns[2 * player + 1] in goals)
        return on_goal == 2 if self.game.win_condition == "both" else on_goal >= 1

    # ----- text -----
    def action_to_string(self, action) -> str:
        game = self.game
        action = check_action(action, game.num_actions)
        if action >= NUM_MOVE_ACTIONS:
            o, r, c = game.wall_of_index(action - NUM_MOVE_ACTIONS)
            return f"{'VH'[o]}{cell_name(r, c)}"
        k, offset = divmod(action, 12)
        r, c = game.coords(self.pawns[2 * self.to_move + k])
        dr, dc = MOVE_OFFSETS[offset]
        if 0 <= r + dr < game.rows and 0 <= c + dc < game.cols:
            return f"{cell_name(r, c)}-{cell_name(r + dr, c + dc)}"
        return f"{cell_name(r, c)}-{MOVE_NAMES[offset]}"

    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string`: ``"c3-c5"`` or ``"c3-NN"`` moves the player to
        move's pawn on c3; ``"Vd4"`` / ``"Hd4"`` is a wall whose anchor is the top-left corner of
        cell d4."""
        game = self.game
        text = text.strip()
        if text[:1].upper() in ("V", "H") and "-" not in text:
            r, c = parse_cell(text[1:], game.rows, game.cols)
            if r == 0 or c == 0:
                raise ValueError(f"{text!r}: a wall anchor must be an interior grid point")
            o = "VH".index(text[0].upper())
            return NUM_MOVE_ACTIONS + game.wall_index(o, r, c)
        source, sep, target = text.partition("-")
        if not (sep and source.strip() and target.strip()):  # "-1" names no cell: say so whole
            raise ValueError(f"{text!r} is neither a move like 'c3-c5' nor a wall like 'Vd4'")
        r, c = parse_cell(source, game.rows, game.cols)
        own = self.pawns[2 * self.to_move: 2 * self.to_move + 2]
        if game.cell(r, c) not in own:
            raise ValueError(f"{text!r}: player {self.to_move} has no pawn on {source.strip()}")
        k = own.index(game.cell(r, c))
        if target.strip().upper() in MOVE_NAMES:
            return 12 * k + MOVE_NAMES.index(target.strip().upper())
        tr, tc = parse_cell(target, game.rows, game.cols)
        if (tr - r, tc - c) not in MOVE_OFFSETS:
            raise ValueError(f"{text!r}: a pawn moves at most 2 steps")
        return 12 * k + MOVE_OFFSETS.index((tr - r, tc - c))

    def __str__(self) -> str:
        game = self.game
        owner_of = {x: i for i, x in enumerate(self.pawns)}
        goal_of = {x: p for p in range(game.num_players) for x in game.goal_cells[p]}
        lines = ["    " + " ".join(chr(ord("a") + c) for c in range(game.cols))]
        for r in range(game.rows):
            row = f"{r + 1:>3} "
            below = "    "
            for c in range(game.cols):
                x = game.cell(r, c)
                if x in owner_of:
                    row += str(owner_of[x] // 2)
                elif x in goal_of:
                    row += "abcd"[goal_of[x]]
                else:
                    row += "."
                if c < game.cols - 1:
                    row += " " if self.open[x] & RIGHT else "|"
                below += ("-" if r < game.rows - 1 and not self.open[x] & DOWN else " ") + " "
            lines.append(row)
            if r < game.rows - 1:
                lines.append(below.rstrip())
        lines.append("digits: pawns of players 0-3; letters a-d: goal squares of players 0-3; "
                     "| and -: walls")
        supplies = "  ".join(
            f"P{p} walls V{self.walls_left[2 * p]} H{self.walls_left[2 * p + 1]}"
            for p in range(game.num_players)
        )
        lines.append(supplies)
        lines.append(f"turn {self.turn}/{game.max_turns}  " + self._status())
        return "\n".join(lines)

    def _status(self) -> str:
        if self.outcome == "win":
            return f"player {self.winner} wins"
        if self.outcome == "draw":
            return "draw: nobody can act"
        if self.outcome == "truncated":
            return "turn limit reached (truncated)"
        return f"player {self.to_move} to {PHASES[self.phase]}"

    # ----- positions -----
    def to_dict(self) -> dict:
        game = self.game
        return {
            "game": "blockade",
            "num_players": game.num_players,
            "rows": game.rows,
            "cols": game.cols,
            "pawns": [
                [list(game.coords(self.pawns[2 * p + k])) for k in range(PAWNS_PER_PLAYER)]
                for p in range(game.num_players)
            ],
            "walls": [
                ["VH"[o], r, c] for o, r, c in (game.wall_of_index(w) for w in self.walls)
            ],
            "walls_left": [
                [self.walls_left[2 * p], self.walls_left[2 * p + 1]]
                for p in range(game.num_players)
            ],
            "to_move": self.to_move,
            "phase": PHASES[self.phase],
            "turn": self.turn,
        }

    @classmethod
    def from_dict(cls, game: Game, position: dict) -> State:
        if not isinstance(position, dict):
            raise ValueError(f"a position must be a dict, got {type(position).__name__}")
        if position.get("game", "blockade") != "blockade":
            raise ValueError(f"position is for game {position.get('game')!r}, not 'blockade'")
        check_config_matches(
            position, game, ("num_players", "rows", "cols", "win_condition", "max_turns")
        )
        missing = {"pawns", "walls", "walls_left", "to_move", "phase", "turn"} - set(position)
        if missing:
            raise ValueError(f"position lacks {', '.join(sorted(missing))}")
        n = game.num_players
        state = cls(game)
        state.pawns = _parse_pawns(game, position["pawns"])
        for entry in _as_list(position["walls"], "walls"):
            w = _parse_wall(game, entry)
            if not state.wall_free[w]:
                raise ValueError(f"wall {entry} overlaps or crosses an earlier wall")
            for x, d in game.wall_edges[w]:
                state.open[x] &= ~d
            state.wall_free[game.wall_conflicts[w]] = False
            state.wall_placed[w] = True
            state.walls.append(w)
        supplies = _as_list(position["walls_left"], "walls_left")
        if len(supplies) != n or any(
            not isinstance(s, (list, tuple)) or len(s) != 2 or not all(_is_count(v) for v in s)
            for s in supplies
        ):
            raise ValueError(f"walls_left must be {n} pairs [vertical, horizontal] of counts >= 0")
        state.walls_left = [int(v) for s in supplies for v in s]
        supply = game.walls_per_orientation
        for o, name in enumerate(("vertical", "horizontal")):
            left = state.walls_left[o::2]
            placed = sum(game.wall_of_index(w)[0] == o for w in state.walls)
            if max(left) > supply or placed + sum(left) > n * supply:
                raise ValueError(
                    f"impossible {name} wall supply: {placed} placed and {left} left, but the "
                    f"game has {supply} per player ({n * supply} in all)")
        to_move, phase, turn = position["to_move"], position["phase"], position["turn"]
        if not (_is_count(to_move) and to_move < n):
            raise ValueError(f"to_move must be a player 0..{n - 1}, got {to_move!r}")
        if phase not in PHASES:
            raise ValueError(f"phase must be 'move' or 'wall', got {phase!r}")
        if not _is_count(turn):
            raise ValueError(f"turn must be a count >= 0, got {turn!r}")
        state.to_move, state.phase, state.turn = int(to_move), PHASES.index(phase), int(turn)
        if game.path_rule == "open":
            cut_off = paths.cut_off_pawn(game, state.pawns, paths.wall_layout(state).steps)
            if cut_off is not None:
                player, k, goal = cut_off
                pawn = state.pawns[2 * player + k]
                raise ValueError(
                    f"player {player}'s pawn on {cell_name(*game.coords(pawn))} has no path to "
                    f"its goal {cell_name(*game.coords(goal))}, which path_rule 'open' forbids")
        state._settle()
        return state

    def _settle(self) -> None:
        """Bring a loaded position to where play would have it: a finished game ends, forced
        skips and passes are taken."""
        game = self.game
        winners = [p for p in range(game.num_players) if self._meets_win_condition(p)]
        if len(winners) > 1:
            raise ValueError(f"players {winners} all meet the win condition: invalid position")
        if winners:
            self.winner, self.outcome = winners[0], "win"
        elif self.turn >= game.max_turns:
            self.outcome = "truncated"
        elif self.phase == 0:
            self._start_turn()
        elif not self._has_wall(self.to_move):
            self._end_turn()


def _as_list(value, field: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{field} must be a list, got {type(value).__name__}")
    return list(value)


def _is_count(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0


def _parse_pawns(game: Game, pawns) -> list[int]:
    pawns = _as_list(pawns, "pawns")
    if len(pawns) != game.num_players:
        raise ValueError(f"pawns must list {game.num_players} players, got {len(pawns)}")
    cells = []
    for p, pair in enumerate(pawns):
        if not isinstance(pair, (list, tuple)) or len(pair) != PAWNS_PER_PLAYER:
            raise ValueError(f"pawns[{p}] must be two [r, c] squares")
        for sq in pair:
            if (
                not isinstance(sq, (list, tuple)) or len(sq) != 2
                or not all(_is_count(v) for v in sq)
                or not (sq[0] < game.rows and sq[1] < game.cols)
            ):
                raise ValueError(f"pawns[{p}]: {sq!r} is not a square of the board")
            cells.append(game.cell(int(sq[0]), int(sq[1])))
    if len(set(cells)) != len(cells):
        raise ValueError("two pawns share a square")
    return cells


def _parse_wall(game: Game, entry) -> int:
    if (
        not isinstance(entry, (list, tuple)) or len(entry) != 3
        or entry[0] not in ("V", "H") or not all(_is_count(v) for v in entry[1:])
    ):
        raise ValueError(f"wall {entry!r} must be ['V' or 'H', r, c]")
    o, r, c = "VH".index(entry[0]), int(entry[1]), int(entry[2])
    if not (1 <= r < game.rows and 1 <= c < game.cols):
        raise ValueError(
            f"wall {entry!r}: the anchor must be an interior grid point, r 1..{game.rows - 1} "
            f"and c 1..{game.cols - 1}"
        )
    return game.wall_index(o, r, c)


