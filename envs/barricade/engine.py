"""Barricade rules engine (RULES.md section 2): ``Game`` holds the config, ``State`` one
position, cheap to clone.

Representation, chosen for speed under search:
- stations are ints ``line * 9 + file`` on a padded 15 x 9 grid (lines 0..14, files 0..8), so a
  step is one addition (``DELTAS``) and never leaves the array;
- ``State.occ`` is a bytearray over that grid: 0 an empty station, 1 an occupied one, 2 no
  station (padding and the gaps between Base Stations), so "may I step there" is ``occ[t] == 0``;
- ``State.scouts`` (6) and ``State.guards`` (4) are flat lists, piece ``i`` of player ``p`` at
  ``3 * p + i`` / ``2 * p + i``, holding a cell or ``OUT`` / ``TRAY``;
- the legal mask is computed once per decision, when the state settles after an action, and
  shared (read-only) between clones. The 126 Guard actions come from one numpy gather of the
  63 Cross Stations' occupancy, not from per-action loops.

Rules settled here beyond RULES.md (documented in docs/barricade.md, all tested):
- A Guard half-move may start a turn only if some Scout step is legal after it: every kind of
  double move contains a Scout step, so a player whose Scouts cannot step even after a Guard
  half-move is blocked (and forfeits), never "moves" a Guard alone.
- The line-2/12 rule and the no-sideways-and-back rule are judged at the moment of each
  half-move: a first half-move may free or block the forward station of a Scout on line 2/12.
- Variation II forfeits, at the start of a turn, all Scouts stuck at that moment at once; this
  also happens when a position at the start of a turn is loaded.
- "A whole round passes in which no player could move" cannot happen: a turn passes only for
  a blocked player with no Guard left (Variations I and II never pass), so both passing needs
  all four Guards out and every Scout in play stuck; a stuck Scout on lines 2..12 needs both
  sideways neighbours occupied, by stuck Scouts again (Guards are out, placed Scouts stand on
  Base lines), i.e. a full line of 7 Scouts, and a Scout in its own Base needs the Outer Station
  in front occupied by such a Scout. Passing therefore always hands the move to a player who
  can act, and no deadlock rule is needed.
- Two Scouts making one sideways step each on sweep lines in a turn that continues no sweep
  start none.
"""

from __future__ import annotations

import numpy as np

from envs.core import (
    ChanceFreeState,
    IllegalActionError,
    check_action,
    check_config_matches,
    winner_returns,
)

VARIANTS = ("standard", "capture", "intercept", "breakthrough")
NUM_ACTIONS = 143
NUM_SCOUTS, NUM_GUARDS = 3, 2
GUARD_ACTIONS = 12  # first Guard action
FORFEIT_GUARD = 138  # 138 + g
FORFEIT_SCOUT = 140  # 140 + s
NUM_CROSS = 63
LINES, FILES = 13, 7
SCORE_VALUES = (1, 3, 5)
SWEEP_LINES = (4, 6, 8, 10)
PLAYER_NAMES = ("South", "North")

TRAY, OUT = -1, -2
"""Guard in the tray / piece forfeited (Guards and Scouts)."""

WIDTH = 9  # files 0..8 of the padded grid
DELTAS = (WIDTH, -WIDTH, -1, 1)
"""Cell offset of Scout step ``d``: 0 = line+1, 1 = line-1, 2 = file-1, 3 = file+1."""
DIRECTION_NAMES = ("+line", "-line", "-file", "+file")
FORWARD = (0, 1)  # forward step d of South, North
BACKWARD = (1, 0)
OPPOSITE_SIDEWAYS = {2: 3, 3: 2}
BASE_FILES = (2, 4, 6)
BASE_LINE = (1, 13)  # own Base Station line of South, North


def cell(line: int, file: int) -> int:
    return line * WIDTH + file


def coords(x: int) -> tuple[int, int]:
    return divmod(x, WIDTH)


def station_name(x: int) -> str:
    """Text notation: file letter a..g, then the line number (``[1, 2]`` is ``b1``)."""
    line, file = coords(x)
    return f"{'abcdefg'[file - 1]}{line}"


def _build_board():
    kind = ["none"] * (15 * WIDTH)
    for file in BASE_FILES:
        kind[cell(1, file)] = kind[cell(13, file)] = "base"
    for file in range(1, FILES + 1):
        kind[cell(2, file)] = kind[cell(12, file)] = "outer"
        for line in range(3, 12):
            kind[cell(line, file)] = "cross"
    return kind


STATION_KIND = _build_board()
"""``"base" | "outer" | "cross" | "none"`` per grid cell."""
EMPTY_OCC = bytes(0 if k != "none" else 2 for k in STATION_KIND)
CROSS_CELLS = np.array(
    [cell(line, file) for line in range(3, 12) for file in range(1, FILES + 1)], dtype=np.int64
)
"""Cross Station of Guard target index ``i = 7*(line-3) + (file-1)``."""
CROSS_INDEX = [-1] * len(STATION_KIND)
for _i, _x in enumerate(CROSS_CELLS.tolist()):
    CROSS_INDEX[_x] = _i
GATE = bytes(int(STATION_KIND[x] == "outer") for x in range(len(STATION_KIND)))
"""Stations of lines 2 and 12, where a Scout steps sideways only if it cannot step forward."""
SWEEP_CELL = bytes(
    int(coords(x)[0] in SWEEP_LINES and STATION_KIND[x] != "none")
    for x in range(len(STATION_KIND))
)
OPP_BASE = tuple(
    bytes(int(STATION_KIND[x] == "base" and coords(x)[0] == BASE_LINE[1 - p])
          for x in range(len(STATION_KIND)))
    for p in range(2)
)
"""``OPP_BASE[p][x]``: x is an opponent Base Station of player p (a Scout there is placed)."""
START_SCOUTS = [cell(BASE_LINE[p], f) for p in range(2) for f in BASE_FILES]
NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=bool)
NO_ACTIONS.flags.writeable = False


def parse_station(text: str) -> int:
    """``"b1"`` -> its cell; ValueError for anything that is not a station."""
    text = text.strip().lower()
    if len(text) < 2 or text[0] not in "abcdefg" or not text[1:].isdigit():
        raise ValueError(f"{text!r} is not a station like 'd4' (file a-g, line 1-13)")
    line, file = int(text[1:]), "abcdefg".index(text[0]) + 1
    if not 1 <= line <= LINES or STATION_KIND[cell(line, file)] == "none":
        raise ValueError(f"{text!r} is not a station of the board")
    return cell(line, file)


class Game:
    """Barricade's config.

    Args:
        variant: ``standard`` | ``capture`` (Variation I) | ``intercept`` (II) |
            ``breakthrough`` (III).
        sweep_turns: consecutive turns of a Rocking Horse Sweep that end the game (default 6).
        max_turns: turns of both players together after which the game ends and scores decide.
    """

    name = "barricade"
    num_players = 2
    num_actions = NUM_ACTIONS

    def __init__(self, variant: str = "standard", sweep_turns: int = 6, max_turns: int = 200):
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
        for field, value in (("sweep_turns", sweep_turns), ("max_turns", max_turns)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{field} must be a positive integer, got {value!r}")
        self.variant = variant
        self.sweep_turns = sweep_turns
        self.max_turns = max_turns
        self.scouts_forfeit = variant in ("capture", "intercept")

    def new_initial_state(self) -> State:
        state = State(self)
        state._settle()
        return state

    def state_from_dict(self, position: dict) -> State:
        return State.from_dict(self, position)

    def __repr__(self) -> str:
        return (f"barricade.Game(variant={self.variant!r}, sweep_turns={self.sweep_turns}, "
                f"max_turns={self.max_turns})")


class State(ChanceFreeState):
    """One Barricade position. See the module docstring for the representation."""

    __slots__ = (
        "game", "scouts", "guards", "occ", "placed", "in_play", "to_move", "half", "first", "sweep",
        "turn", "forfeit_made", "outcome", "_mask",
    )

    def __init__(self, game: Game):
        self.game = game
        self.scouts = START_SCOUTS[:]
        self.guards = [TRAY] * 4
        self.occ = bytearray(EMPTY_OCC)
        for x in self.scouts:
            self.occ[x] = 1
        self.placed: list[list[int]] = [[], []]  # Scout indices in the order they were placed
        self.in_play = [NUM_SCOUTS, NUM_SCOUTS]  # Scouts neither placed nor out, per player
        self.to_move = 0
        self.half = 0
        # First half-move of the turn in progress: None, ("guard",) or ("scout", s, from, d).
        self.first: tuple | None = None
        self.sweep: list[tuple | None] = [None, None]  # (scout, cell a, cell b, count), a < b
        self.turn = 0
        self.forfeit_made = False  # Variation III: this turn's Guard forfeit is done
        self.outcome: str | None = None  # None while playing, else why the game ended
        self._mask = NO_ACTIONS

    # ----- contract (its turn methods: ChanceFreeState) -----
    def is_truncated(self) -> bool:
        return False

    def scores(self) -> list[int]:
        """1, 3, 5 for a player's 1st, 2nd, 3rd placed Scout; plus, once a player has no Scout
        in play after losing one (Variations I, II), the opponent's next values for each of its
        Scouts still in play."""
        scores = [sum(SCORE_VALUES[: len(self.placed[p])]) for p in range(2)]
        for p in range(2):
            if self.in_play[p] == 0 and OUT in self.scouts[3 * p: 3 * p + 3]:
                q = 1 - p
                n = len(self.placed[q])
                scores[q] += sum(SCORE_VALUES[n: n + self.in_play[q]])
        return scores

    def returns(self) -> np.ndarray:
        if self.outcome is None:
            return np.zeros(2)
        s = self.scores()
        return winner_returns(2, [] if s[0] == s[1] else [int(s[1] > s[0])])

    def clone(self) -> State:
        other = object.__new__(State)
        other.game = self.game
        other.scouts = self.scouts[:]
        other.guards = self.guards[:]
        other.occ = self.occ[:]
        other.placed = [self.placed[0][:], self.placed[1][:]]
        other.in_play = self.in_play[:]
        other.to_move = self.to_move
        other.half = self.half
        other.first = self.first
        other.sweep = self.sweep[:]
        other.turn = self.turn
        other.forfeit_made = self.forfeit_made
        other.outcome = self.outcome
        other._mask = self._mask  # read-only, replaced (never mutated) on every action
        return other

    def legal_actions_mask(self) -> np.ndarray:
        """Read-only bool array over the 143 actions."""
        return self._mask

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()

    def apply_action(self, action) -> None:
        action = check_action(action, NUM_ACTIONS)
        if self.outcome is not None:
            raise IllegalActionError(f"action {action}: the game is over ({self.outcome})")
        if not self._mask[action]:
            raise IllegalActionError(
                f"action {action} ({self.action_to_string(action)}) is illegal for "
                f"{PLAYER_NAMES[self.to_move]} (player {self.to_move}): "
                f"{self._why_illegal(action)}"
            )
        p = self.to_move
        if action < GUARD_ACTIONS:
            s, d = divmod(action, 4)
            x = self.scouts[3 * p + s]
            t = x + DELTAS[d]
            self.occ[x] = 0
            self.occ[t] = 1
            self.scouts[3 * p + s] = t
            if OPP_BASE[p][t]:
                self.placed[p].append(s)
                self.in_play[p] -= 1
            if self.half == 0 and self.in_play[p] > 0:
                self.half, self.first = 1, ("scout", s, x, d)
                self._settle()
            else:
                self._end_turn((s, x, d))
        elif action < FORFEIT_GUARD:
            g, i = divmod(action - GUARD_ACTIONS, NUM_CROSS)
            x, t = self.guards[2 * p + g], int(CROSS_CELLS[i])
            if x >= 0:
                self.occ[x] = 0
            self.occ[t] = 1
            self.guards[2 * p + g] = t
            if self.half == 0:
                self.half, self.first = 1, ("guard",)
                self._settle()
            else:
                self._end_turn()
        elif action < FORFEIT_SCOUT:
            x = self.guards[2 * p + action - FORFEIT_GUARD]
            if x >= 0:
                self.occ[x] = 0
            self.guards[2 * p + action - FORFEIT_GUARD] = OUT
            if self.game.variant == "breakthrough":
                # The forfeit opens the turn; _settle plays on or passes if still blocked.
                self.forfeit_made = True
                self._settle()
            else:
                self._end_turn()
        else:
            self._forfeit_scout(p, action - FORFEIT_SCOUT)
            self._end_turn()

    # ----- move generation -----
    def _scout_steps(self, p: int, back: int = -1) -> list[tuple[int, int]]:
        """(action, target cell) of every legal single Scout step of player ``p`` on the current
        board; ``back`` is an action barred by the no-sideways-and-back rule."""
        occ, opp_base = self.occ, OPP_BASE[p]
        fwd = FORWARD[p]
        fwd_delta = DELTAS[fwd]
        steps = []
        for s in range(NUM_SCOUTS):
            x = self.scouts[3 * p + s]
            if x < 0 or opp_base[x]:
                continue
            t = x + fwd_delta
            if occ[t] == 0:
                steps.append((4 * s + fwd, t))
                if GATE[x]:  # line 2/12: forward is possible, so it is the only step
                    continue
            if occ[x - 1] == 0 and 4 * s + 2 != back:
                steps.append((4 * s + 2, x - 1))
            if occ[x + 1] == 0 and 4 * s + 3 != back:
                steps.append((4 * s + 3, x + 1))
        return steps

    def _stuck_scouts(self, p: int, steps: list[tuple[int, int]]) -> list[int]:
        """Scouts of ``p`` in play with no legal single step (``steps`` from _scout_steps)."""
        movers = {a // 4 for a, _ in steps}
        opp_base = OPP_BASE[p]
        return [
            s for s in range(NUM_SCOUTS)
            if s not in movers and self.scouts[3 * p + s] >= 0
            and not opp_base[self.scouts[3 * p + s]]
        ]

    def _cross_empty(self) -> np.ndarray:
        return np.frombuffer(self.occ, dtype=np.uint8)[CROSS_CELLS] == 0

    def _unblocks_sideways(self, p: int, t: int) -> bool:
        """Would a Guard on ``t`` let a Scout of ``p`` on line 2/12 step sideways? (``t`` is its
        free forward station, so now it may only step forward.)"""
        back = DELTAS[BACKWARD[p]]
        x = t + back
        if not GATE[x] or x not in self.scouts[3 * p: 3 * p + 3]:
            return False
        return self.occ[x - 1] == 0 or self.occ[x + 1] == 0

    def _first_half_mask(self, p: int, steps: list[tuple[int, int]]) -> np.ndarray:
        """Legal first half-moves: Scout steps, and Guard half-moves after which some Scout step
        is legal."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        for a, _ in steps:
            mask[a] = True
        cross_empty = None
        by_source: dict[int, np.ndarray | None] = {}
        # A Guard leaving x can cost at most the two sideways targets of the one Scout behind x
        # on line 2/12 (then bound to step forward into x): with 4 distinct targets now, every
        # source keeps 2, enough for any destination (see below).
        plenty = len({t for _, t in steps}) >= 4
        for g in range(NUM_GUARDS):
            x = self.guards[2 * p + g]
            if x == OUT:
                continue
            if plenty:
                if cross_empty is None:
                    cross_empty = self._cross_empty()
                by_source[x] = cross_empty
            if x not in by_source:
                if x == TRAY:
                    after = steps
                else:  # the Guard leaves x: steps into x open (and line-2/12 rules shift)
                    self.occ[x] = 0
                    after = self._scout_steps(p)
                    self.occ[x] = 1
                targets = {t for _, t in after}
                # A Guard on the target Q removes only steps into Q (and may unblock a sideways
                # step on line 2/12), so with two distinct targets every Q keeps a step.
                if not targets:
                    by_source[x] = None
                else:
                    if cross_empty is None:
                        cross_empty = self._cross_empty()
                    allowed = cross_empty
                    if len(targets) == 1:
                        (t,) = targets
                        if CROSS_INDEX[t] >= 0 and not self._unblocks_sideways(p, t):
                            allowed = cross_empty.copy()
                            allowed[CROSS_INDEX[t]] = False
                    by_source[x] = allowed
            allowed = by_source[x]
            if allowed is not None:
                start = GUARD_ACTIONS + NUM_CROSS * g
                mask[start: start + NUM_CROSS] = allowed
        return mask

    def _second_half_mask(self, p: int) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        first = self.first
        back = -1
        if first[0] == "scout" and first[3] in OPPOSITE_SIDEWAYS:
            back = 4 * first[1] + OPPOSITE_SIDEWAYS[first[3]]
        for a, _ in self._scout_steps(p, back):
            mask[a] = True
        if first[0] == "scout":
            cross_empty = self._cross_empty()
            for g in range(NUM_GUARDS):
                if self.guards[2 * p + g] != OUT:
                    start = GUARD_ACTIONS + NUM_CROSS * g
                    mask[start: start + NUM_CROSS] = cross_empty
        return mask

    def _forfeit_mask(self, p: int, scouts: bool) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if scouts:
            opp_base = OPP_BASE[p]
            for s in range(NUM_SCOUTS):
                x = self.scouts[3 * p + s]
                mask[FORFEIT_SCOUT + s] = x >= 0 and not opp_base[x]
        else:
            for g in range(NUM_GUARDS):
                mask[FORFEIT_GUARD + g] = self.guards[2 * p + g] != OUT
        return mask

    def _has_guard(self, p: int) -> bool:
        return self.guards[2 * p] != OUT or self.guards[2 * p + 1] != OUT

    # ----- transitions -----
    def _forfeit_scout(self, p: int, s: int) -> None:
        self.occ[self.scouts[3 * p + s]] = 0
        self.scouts[3 * p + s] = OUT
        self.in_play[p] -= 1
        if self.sweep[p] is not None and self.sweep[p][0] == s:
            self.sweep[p] = None  # broken: the Scout can no longer step

    def _end_reason(self) -> str | None:
        for p in range(2):
            if self.in_play[p] == 0:
                lost = OUT in self.scouts[3 * p: 3 * p + 3]
                return f"{PLAYER_NAMES[p]} has no Scout left in play" if lost else \
                    f"{PLAYER_NAMES[p]} placed all its Scouts"
        for p in range(2):
            if self.sweep[p] is not None and self.sweep[p][3] >= self.game.sweep_turns:
                return f"{PLAYER_NAMES[p]} completed a Rocking Horse Sweep"
        if self.turn >= self.game.max_turns:
            return "turn limit reached"
        return None

    def _settle(self) -> None:
        """Advance to the next decision: end the game, end a turn with no legal second
        half-move, take turn-start forfeits of Variations II and III, pass blocked players with
        nothing to forfeit (the turn passes), and compute the legal mask."""
        game = self.game
        while True:
            self.outcome = self._end_reason()
            if self.outcome is not None:
                self._mask = NO_ACTIONS
                return
            p = self.to_move
            if self.half == 1:
                mask = self._second_half_mask(p)
                if mask.any():
                    break
                self._end_turn(settle=False)
                continue
            steps = self._scout_steps(p)
            stuck = self._stuck_scouts(p, steps)
            if stuck and game.variant == "intercept":
                for s in stuck:
                    self._forfeit_scout(p, s)
                continue
            if (stuck and game.variant == "breakthrough" and not self.forfeit_made
                    and self._has_guard(p)):
                mask = self._forfeit_mask(p, scouts=False)
                break
            mask = self._first_half_mask(p, steps)
            if mask.any():
                break
            # Blocked: no legal turn.
            if self.forfeit_made:  # Variation III: the one forfeit of this turn is made
                self._end_turn(settle=False)
                continue
            if game.scouts_forfeit:
                mask = self._forfeit_mask(p, scouts=True)
                break
            if self._has_guard(p):
                mask = self._forfeit_mask(p, scouts=False)
                break
            self._end_turn(settle=False)  # nothing to forfeit: the opponent moves unopposed
        mask.flags.writeable = False
        self._mask = mask

    def _end_turn(self, last_step: tuple | None = None, settle: bool = True) -> None:
        p = self.to_move
        steps = []
        if self.first is not None and self.first[0] == "scout":
            steps.append(self.first[1:])
        if last_step is not None:
            steps.append(last_step)
        self._update_sweep(p, steps)
        self.turn += 1
        self.to_move = 1 - p
        self.half = 0
        self.first = None
        self.forfeit_made = False
        if settle:
            self._settle()

    def _update_sweep(self, p: int, steps: list[tuple[int, int, int]]) -> None:
        """Rocking Horse Sweep bookkeeping at the end of ``p``'s turn; ``steps`` are its Scout
        steps ``(scout, from, d)``."""
        by_scout: dict[int, list[tuple[int, int]]] = {}
        for s, x, d in steps:
            by_scout.setdefault(s, []).append((x, d))
        single_sideways = {
            s: (moves[0][0], moves[0][0] + DELTAS[moves[0][1]])
            for s, moves in by_scout.items()
            if len(moves) == 1 and moves[0][1] >= 2
        }
        current = self.sweep[p]
        if current is not None:
            s, a, b, count = current
            if s in single_sideways and set(single_sideways[s]) == {a, b}:
                self.sweep[p] = (s, a, b, count + 1)
                return
        starts = [(s, x, t) for s, (x, t) in single_sideways.items() if SWEEP_CELL[x]]
        if len(starts) == 1:
            s, x, t = starts[0]
            self.sweep[p] = (s, min(x, t), max(x, t), 1)
        else:
            self.sweep[p] = None

    def _why_illegal(self, action: int) -> str:
        p, game = self.to_move, self.game
        mask = self._mask
        if mask[FORFEIT_GUARD:].any() and action < FORFEIT_GUARD:
            if game.variant == "breakthrough" and not self.forfeit_made:
                return "a Scout in play cannot step, so a Guard must be forfeited first"
            return "no legal turn exists (blocked), so a piece must be forfeited"
        if action >= FORFEIT_SCOUT:
            s = action - FORFEIT_SCOUT
            if not game.scouts_forfeit:
                return f"only Variations I and II forfeit Scouts (variant {game.variant})"
            if not mask[FORFEIT_SCOUT:].any():
                return "only a blocked player forfeits"
            return f"Scout {s} is not in play"
        if action >= FORFEIT_GUARD:
            if game.scouts_forfeit:
                return f"variant {game.variant} forfeits Scouts, not Guards"
            if not mask[FORFEIT_GUARD:].any():
                return "only a blocked player (or in Variation III one with a stuck Scout) " \
                       "forfeits a Guard"
            return f"Guard {action - FORFEIT_GUARD} is already out"
        if action >= GUARD_ACTIONS:
            g, i = divmod(action - GUARD_ACTIONS, NUM_CROSS)
            if self.guards[2 * p + g] == OUT:
                return f"Guard {g} is out"
            if self.first is not None and self.first[0] == "guard":
                return "a Guard already moved this turn; the second half-move is a Scout step"
            if self.occ[CROSS_CELLS[i]]:
                return f"{station_name(int(CROSS_CELLS[i]))} is occupied"
            return "after this Guard half-move no Scout could step, and every turn contains " \
                   "a Scout step"
        s, d = divmod(action, 4)
        x = self.scouts[3 * p + s]
        if x == OUT:
            return f"Scout {s} is out"
        if OPP_BASE[p][x]:
            return f"Scout {s} is placed in an opponent Base Station and never moves again"
        if d == BACKWARD[p]:
            return "Scouts never step backward"
        t = x + DELTAS[d]
        if STATION_KIND[t] == "none":
            return "there is no track in that direction"
        if self.occ[t]:
            return f"{station_name(t)} is occupied"
        if GATE[x]:
            return "on lines 2 and 12 a Scout steps sideways only if it cannot step forward"
        return "a Scout may not step sideways and straight back in one turn"

    # ----- text -----
    def action_to_string(self, action) -> str:
        """``S1 d4-e4`` (Scout 1 of the player to move steps), ``G0 c5`` (Guard 0 enters or
        jumps to c5), ``forfeit G1``, ``forfeit S2``. A step with no station to go to reads
        ``S1 +file`` (directions ``+line -line -file +file``)."""
        action = check_action(action, NUM_ACTIONS)
        if action >= FORFEIT_SCOUT:
            return f"forfeit S{action - FORFEIT_SCOUT}"
        if action >= FORFEIT_GUARD:
            return f"forfeit G{action - FORFEIT_GUARD}"
        if action >= GUARD_ACTIONS:
            g, i = divmod(action - GUARD_ACTIONS, NUM_CROSS)
            return f"G{g} {station_name(int(CROSS_CELLS[i]))}"
        s, d = divmod(action, 4)
        x = self.scouts[3 * self.to_move + s]
        if x >= 0 and STATION_KIND[x + DELTAS[d]] != "none":
            return f"S{s} {station_name(x)}-{station_name(x + DELTAS[d])}"
        return f"S{s} {DIRECTION_NAMES[d]}"

    def string_to_action(self, text: str) -> int:
        """Inverse of :meth:`action_to_string` (case-insensitive)."""
        words = text.strip().split()
        lower = [w.lower() for w in words]
        if len(words) == 2 and lower[0] == "forfeit" and lower[1][:1] in ("g", "s"):
            kind, index = lower[1][0], lower[1][1:]
            limit = NUM_GUARDS if kind == "g" else NUM_SCOUTS
            if not (index.isdigit() and int(index) < limit):
                raise ValueError(f"{text!r}: no such piece {words[1]!r}")
            return (FORFEIT_GUARD if kind == "g" else FORFEIT_SCOUT) + int(index)
        if len(words) != 2 or lower[0][:1] not in ("g", "s") or not lower[0][1:].isdigit():
            raise ValueError(
                f"{text!r} is not an action like 'S1 d4-e4', 'S1 +file', 'G0 c5' or 'forfeit G1'"
            )
        kind, index = lower[0][0], int(lower[0][1:])
        if kind == "g":
            if index >= NUM_GUARDS:
                raise ValueError(f"{text!r}: Guards are G0 and G1")
            i = CROSS_INDEX[parse_station(words[1])]
            if i < 0:
                raise ValueError(f"{text!r}: Guards stand only on Cross Stations (lines 3-11)")
            return GUARD_ACTIONS + NUM_CROSS * index + i
        if index >= NUM_SCOUTS:
            raise ValueError(f"{text!r}: Scouts are S0, S1 and S2")
        if lower[1] in DIRECTION_NAMES:
            return 4 * index + DIRECTION_NAMES.index(lower[1])
        source, sep, target = lower[1].partition("-")
        if not sep:
            raise ValueError(f"{text!r}: a step reads like 'S1 d4-e4' or 'S1 +file'")
        x, t = parse_station(source), parse_station(target)
        if self.scouts[3 * self.to_move + index] != x:
            raise ValueError(
                f"{text!r}: Scout {index} of {PLAYER_NAMES[self.to_move]} is not on {source}"
            )
        if t - x not in DELTAS:
            raise ValueError(f"{text!r}: a Scout steps to an adjacent station")
        return 4 * index + DELTAS.index(t - x)

    def __str__(self) -> str:
        token = {}
        for i, x in enumerate(self.scouts):
            if x >= 0:
                p, s = divmod(i, 3)
                token[x] = f"{'Ss'[p]}{s}" + ("*" if OPP_BASE[p][x] else "")
        for i, x in enumerate(self.guards):
            if x >= 0:
                token[x] = f"{'Gg'[i // 2]}{i % 2}"
        empty = {"base": "[ ]", "outer": "o", "cross": "+", "none": ""}
        side = {13: "North base", 12: "outer", 2: "outer", 1: "South base"}
        side.update({line: "sweep line" for line in SWEEP_LINES})
        rows = [f"Barricade ({self.game.variant})  turn {self.turn}/{self.game.max_turns}  "
                + self._status(),
                "      " + "   ".join("abcdefg")]
        for line in range(LINES, 0, -1):
            cells = [token.get(cell(line, f), empty[STATION_KIND[cell(line, f)]]).center(3)
                     for f in range(1, FILES + 1)]
            rows.append((f"{line:>3}  " + " ".join(cells) + "   " + side.get(line, "")).rstrip())
        scores = self.scores()
        for p in range(2):
            guards = ", ".join(
                f"G{g} " + {TRAY: "tray", OUT: "out"}.get(x, station_name(x) if x >= 0 else "")
                for g, x in enumerate(self.guards[2 * p: 2 * p + 2])
            )
            lost = [f"S{s}" for s in range(3) if self.scouts[3 * p + s] == OUT]
            sweep = self.sweep[p]
            line = (f"{PLAYER_NAMES[p]} ({'Ss'[p]}/{'Gg'[p]}): score {scores[p]}, placed "
                    f"{' '.join(f'S{s}' for s in self.placed[p]) or '-'}, {guards}, "
                    f"Scouts out {' '.join(lost) or '-'}")
            if sweep is not None:
                line += (f", sweep S{sweep[0]} {station_name(sweep[1])}-"
                         f"{station_name(sweep[2])} {sweep[3]}/{self.game.sweep_turns}")
            rows.append(line)
        rows.append("* placed Scout; [ ] Base Station, o Outer Station, + Cross Station")
        return "\n".join(rows)

    def _status(self) -> str:
        if self.outcome is not None:
            scores = self.scores()
            result = "draw" if scores[0] == scores[1] else \
                f"{PLAYER_NAMES[int(scores[1] > scores[0])]} wins"
            return f"game over: {self.outcome}; {scores[0]}-{scores[1]}, {result}"
        text = f"{PLAYER_NAMES[self.to_move]} (player {self.to_move}) to move"
        if self._mask[FORFEIT_GUARD:].any():
            return text + ", must forfeit"
        if self.half == 1:
            done = "a Guard" if self.first[0] == "guard" else \
                f"S{self.first[1]} {station_name(self.first[2])}-" \
                f"{station_name(self.first[2] + DELTAS[self.first[3]])}"
            return text + f", second half-move (first: {done})"
        return text + ", first half-move"

    # ----- positions -----
    def to_dict(self) -> dict:
        def where(x: int) -> list[int] | str:
            return "tray" if x == TRAY else "out" if x == OUT else list(coords(x))

        first = None
        if self.first is not None:
            first = {"kind": "guard"}
            if self.first[0] == "scout":
                _, s, x, d = self.first
                first = {"kind": "scout", "scout": s, "from": list(coords(x)), "d": d}
        position = {
            "game": "barricade",
            "variant": self.game.variant,
            "scouts": [[where(x) for x in self.scouts[3 * p: 3 * p + 3]] for p in range(2)],
            "guards": [[where(x) for x in self.guards[2 * p: 2 * p + 2]] for p in range(2)],
            "placed_order": [self.placed[0][:], self.placed[1][:]],
            "to_move": self.to_move,
            "half": self.half,
            "first_half": first,
            "sweep": [
                None if sw is None else
                {"scout": sw[0], "stations": [list(coords(sw[1])), list(coords(sw[2]))],
                 "count": sw[3]}
                for sw in self.sweep
            ],
            "turn": self.turn,
        }
        if self.game.variant == "breakthrough":
            position["forfeit_made"] = self.forfeit_made
        return position

    @classmethod
    def from_dict(cls, game: Game, position: dict) -> State:
        return _PositionReader(game, position).state()


FIELDS = ("game", "variant", "scouts", "guards", "placed_order", "to_move", "half",
          "first_half", "sweep", "turn", "forfeit_made", "sweep_turns", "max_turns")
REQUIRED = ("scouts", "guards", "placed_order", "to_move", "half", "first_half", "sweep", "turn")


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class _PositionReader:
    """Validates a position dict field by field, each error saying what is wrong."""

    def __init__(self, game: Game, position: dict):
        if not isinstance(position, dict):
            raise ValueError(f"a position must be a dict, got {type(position).__name__}")
        if position.get("game", "barricade") != "barricade":
            raise ValueError(f"position is for game {position.get('game')!r}, not 'barricade'")
        check_config_matches(position, game, ("variant", "sweep_turns", "max_turns"))
        unknown = set(position) - set(FIELDS)
        if unknown:
            raise ValueError(f"position has unknown fields {', '.join(sorted(unknown))}")
        missing = [f for f in REQUIRED if f not in position]
        if missing:
            raise ValueError(f"position lacks {', '.join(missing)}")
        self.game, self.position = game, position

    def _station(self, value, what: str) -> int:
        if (not isinstance(value, (list, tuple)) or len(value) != 2
                or not all(_is_int(v) for v in value)
                or not (1 <= value[0] <= LINES and 1 <= value[1] <= FILES)
                or STATION_KIND[cell(int(value[0]), int(value[1]))] == "none"):
            raise ValueError(f"{what}: {value!r} is not a station [line, file] of the board")
        return cell(int(value[0]), int(value[1]))

    def _pairs(self, field: str, size: int) -> list:
        value = self.position[field]
        if (not isinstance(value, (list, tuple)) or len(value) != 2
                or not all(isinstance(v, (list, tuple)) and len(v) == size for v in value)):
            raise ValueError(f"{field} must be two lists (South, North) of {size} entries")
        return [entry for side in value for entry in side]

    def state(self) -> State:
        game, pos = self.game, self.position
        state = State(game)
        state.occ = bytearray(EMPTY_OCC)
        scouts = []
        for i, entry in enumerate(self._pairs("scouts", NUM_SCOUTS)):
            what = f"scouts[{i // 3}][{i % 3}]"
            if entry == "out":
                if not game.scouts_forfeit:
                    raise ValueError(f"{what} is 'out', but variant {game.variant} never "
                                     "forfeits Scouts")
                scouts.append(OUT)
                continue
            scouts.append(self._station(entry, what))
        guards = []
        for i, entry in enumerate(self._pairs("guards", NUM_GUARDS)):
            what = f"guards[{i // 2}][{i % 2}]"
            if entry in ("tray", "out"):
                if entry == "out" and game.scouts_forfeit:
                    raise ValueError(f"{what} is 'out', but variant {game.variant} forfeits "
                                     "Scouts, never Guards")
                guards.append(TRAY if entry == "tray" else OUT)
                continue
            x = self._station(entry, what)
            if STATION_KIND[x] != "cross":
                raise ValueError(f"{what}: Guards stand only on Cross Stations (lines 3-11), "
                                 f"not on {entry!r}")
            guards.append(x)
        on_board = [x for x in scouts + guards if x >= 0]
        if len(set(on_board)) != len(on_board):
            raise ValueError("two pieces share a station")
        for x in on_board:
            state.occ[x] = 1
        state.scouts, state.guards = scouts, guards
        state.placed = self._placed_order(scouts)
        state.in_play = [
            sum(1 for x in scouts[3 * p: 3 * p + 3] if x >= 0 and not OPP_BASE[p][x])
            for p in range(2)
        ]
        to_move, half, turn = pos["to_move"], pos["half"], pos["turn"]
        if not (_is_int(to_move) and to_move in (0, 1)):
            raise ValueError(f"to_move must be 0 (South) or 1 (North), got {to_move!r}")
        if not (_is_int(half) and half in (0, 1)):
            raise ValueError(f"half must be 0 or 1, got {half!r}")
        if not (_is_int(turn) and 0 <= turn <= game.max_turns):
            raise ValueError(f"turn must be 0..max_turns={game.max_turns}, got {turn!r}")
        if turn == game.max_turns and half == 1:
            raise ValueError("a turn cannot be in progress when max_turns turns are played")
        state.to_move, state.half, state.turn = int(to_move), int(half), int(turn)
        state.first = self._first_half(state)
        state.sweep = [self._sweep(state, p) for p in range(2)]
        forfeit_made = pos.get("forfeit_made", False)
        if not isinstance(forfeit_made, bool):
            raise ValueError(f"forfeit_made must be true or false, got {forfeit_made!r}")
        if forfeit_made:
            if game.variant != "breakthrough":
                raise ValueError("forfeit_made is only for variant breakthrough")
            if OUT not in guards[2 * state.to_move: 2 * state.to_move + 2]:
                raise ValueError("forfeit_made is true but the player to move has no Guard out")
        state.forfeit_made = forfeit_made
        state._settle()
        return state

    def _placed_order(self, scouts: list[int]) -> list[list[int]]:
        orders = self.position["placed_order"]
        if not isinstance(orders, (list, tuple)) or len(orders) != 2:
            raise ValueError("placed_order must be two lists (South, North) of Scout indices")
        placed = []
        for p, order in enumerate(orders):
            if (not isinstance(order, (list, tuple))
                    or not all(_is_int(s) and 0 <= s < NUM_SCOUTS for s in order)
                    or len(set(order)) != len(order)):
                raise ValueError(f"placed_order[{p}] must list distinct Scout indices 0..2, "
                                 f"got {order!r}")
            on_base = {s for s in range(NUM_SCOUTS)
                       if scouts[3 * p + s] >= 0 and OPP_BASE[p][scouts[3 * p + s]]}
            if set(order) != on_base:
                raise ValueError(
                    f"placed_order[{p}] is {list(order)} but {PLAYER_NAMES[p]}'s Scouts in "
                    f"opponent Base Stations are {sorted(on_base)}"
                )
            placed.append([int(s) for s in order])
        return placed

    def _first_half(self, state: State) -> tuple | None:
        first = self.position["first_half"]
        p = state.to_move
        if state.half == 0:
            if first is not None:
                raise ValueError("first_half must be null when half is 0")
            return None
        if not isinstance(first, dict) or first.get("kind") not in ("scout", "guard"):
            raise ValueError("with half 1, first_half must be {'kind': 'guard'} or "
                             "{'kind': 'scout', 'scout': s, 'from': [line, file], 'd': d}")
        if first["kind"] == "guard":
            if set(first) != {"kind"}:
                raise ValueError(f"first_half {first!r}: a Guard half-move has only 'kind'")
            if not any(x >= 0 for x in state.guards[2 * p: 2 * p + 2]):
                raise ValueError("first_half is a Guard half-move but no Guard of the player "
                                 "to move is on the board")
            return ("guard",)
        if set(first) != {"kind", "scout", "from", "d"}:
            raise ValueError(f"first_half {first!r} must have kind, scout, from and d")
        s, d = first["scout"], first["d"]
        if not (_is_int(s) and 0 <= s < NUM_SCOUTS and _is_int(d) and 0 <= d < 4):
            raise ValueError(f"first_half {first!r}: scout must be 0..2 and d 0..3")
        x = self._station(first["from"], "first_half.from")
        t = x + DELTAS[d]
        if d == BACKWARD[p] or STATION_KIND[t] == "none" or state.scouts[3 * p + s] != t:
            raise ValueError(
                f"first_half {first!r}: Scout {s} of {PLAYER_NAMES[p]} is not where a step "
                f"from {first['from']} in direction {d} leads"
            )
        return ("scout", int(s), x, int(d))

    def _sweep(self, state: State, p: int) -> tuple | None:
        sweep = self.position["sweep"]
        if not isinstance(sweep, (list, tuple)) or len(sweep) != 2:
            raise ValueError("sweep must be two entries (South, North), each null or a dict")
        entry = sweep[p]
        if entry is None:
            return None
        if not isinstance(entry, dict) or set(entry) != {"scout", "stations", "count"}:
            raise ValueError(f"sweep[{p}] must be null or {{'scout', 'stations', 'count'}}")
        s, count, stations = entry["scout"], entry["count"], entry["stations"]
        if not (_is_int(s) and 0 <= s < NUM_SCOUTS):
            raise ValueError(f"sweep[{p}].scout must be 0..2, got {s!r}")
        if not (_is_int(count) and 1 <= count <= self.game.sweep_turns):
            raise ValueError(f"sweep[{p}].count must be 1..sweep_turns="
                             f"{self.game.sweep_turns}, got {count!r}")
        if not isinstance(stations, (list, tuple)) or len(stations) != 2:
            raise ValueError(f"sweep[{p}].stations must be two stations")
        a, b = sorted(self._station(v, f"sweep[{p}].stations") for v in stations)
        if b - a != 1 or not SWEEP_CELL[a]:
            raise ValueError(f"sweep[{p}].stations must be adjacent stations of line 4, 6, 8 "
                             f"or 10, got {stations!r}")
        x = state.scouts[3 * p + s]
        if state.first is not None and state.first[0] == "scout" and p == state.to_move \
                and state.first[1] == s:
            x = state.first[2]  # it moved in the turn in progress: where the turn began
        if x not in (a, b):
            raise ValueError(f"sweep[{p}]: Scout {s} does not stand on {stations!r}")
        return (int(s), a, b, int(count))
