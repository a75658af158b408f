"""Barricade's standing: the projected outcome of a position, the game's own judgement of it
(the heuristic plays by it, plain MCTS scores its rollouts with it, and network search may mix
it into its leaf values through the ``evaluate`` hook).

- **Distances**: per player, one sweep over the lines from the goal line back (Scouts never step
  backward) gives every station's number of steps to a free opponent Base Station, forward or
  sideways, around opponent Guards, placed Scouts and opponent Scouts on their Outer line in
  front of the goals (other Scouts move away in time; own Guards can be moved).
- **Projection**: each player's Scouts (in Variation II without those that cannot step, or could
  be shut in by one Guard move before their owner's turn: they are forfeited at their owner's
  turn), nearest first, are placed when its steps (two a turn) have covered their distances;
  the game ends when the first player would have placed all, when a running Rocking Horse
  Sweep would complete while its owner leads, or at the turn limit. The projected scores at
  that moment (1, 3, 5, and in Variations I/II the finisher's opponent's bonus for Scouts still
  in play), plus a small term for the steps still to go, give each player's value
  ``tanh(lead / 2.5)``.
"""

from __future__ import annotations

import functools
import math

from envs.barricade.engine import (
    BACKWARD,
    CROSS_INDEX,
    DELTAS,
    EMPTY_OCC,
    FORWARD,
    LINES,
    NUM_GUARDS,
    OPP_BASE,
    OUT,
    SCORE_VALUES,
    STATION_KIND,
    WIDTH,
    cell,
    coords,
)
from envs.core import kept

UNREACHABLE = 99
LEAD_SCALE = 2.5
STEP_WEIGHT = 0.1
"""Score points per turn of race lead, to rank positions whose projected scores tie."""

GOAL_LINE = (LINES, 1)
"""The line of each player's opponent Base Stations (South aims at 13, North at 1)."""

LINE_STATIONS = {line: [cell(line, f) for f in range(1, 8)] for line in range(1, LINES + 1)}
"""The stations of each line, files a-g: the same in every variant, so a ``Projection`` has
nothing to build."""

LINES_FROM_GOAL = tuple(
    tuple(LINE_STATIONS[line] for line in (range(LINES, 0, -1) if p == 0 else range(1, LINES + 1)))
    for p in range(2))
"""Each player's lines in the order its distance sweep takes them: its goal line first."""

GRID_CELLS = len(STATION_KIND)


FIELDS_KEPT = 1 << 12
"""Distance fields :meth:`Projection.field` keeps (then it starts afresh)."""


class Projection:
    """The projected outcome of one ``Game``'s positions; :meth:`evaluate` turns it into values."""

    def __init__(self, game):
        self.game = game
        self._fields: dict[tuple, tuple[int, ...]] = {}

    # ----- distances -----
    def _blocked(self, state, player: int) -> set[int]:
        """Stations a Scout of ``player`` cannot count on passing: opponent Guards, Scouts
        placed for good, and opponent Scouts on their own Outer line (in front of ``player``'s
        goals, where nothing makes them move on; a Scout still in its Base is left out, as its
        own race takes it away)."""
        q = 1 - player
        blocked = {x for x in state.guards[2 * q: 2 * q + NUM_GUARDS] if x >= 0}
        for p in range(2):
            blocked.update(x for x in state.scouts[3 * p: 3 * p + 3] if x >= 0 and OPP_BASE[p][x])
        outer_line = GOAL_LINE[player] + DELTAS[BACKWARD[player]] // WIDTH
        blocked.update(x for x in state.scouts[3 * q: 3 * q + 3]
                       if x >= 0 and coords(x)[0] == outer_line)
        return blocked

    def field(self, state, player: int) -> tuple[int, ...]:
        """Steps from each station (a grid cell) to a free goal for ``player``'s Scouts,
        :data:`UNREACHABLE` where there is none. It depends on the stations
        :meth:`_blocked` lists alone, which most moves (Scout steps) leave as they were: kept
        per player and blocked stations."""
        blocked = frozenset(self._blocked(state, player))
        return kept(self._fields, (player, blocked), lambda: self._field(player, blocked),
                    FIELDS_KEPT)

    @staticmethod
    def _field(player: int, blocked: frozenset[int]) -> tuple[int, ...]:
        forward = DELTAS[FORWARD[player]]
        dist = [UNREACHABLE] * GRID_CELLS
        lines = LINES_FROM_GOAL[player]
        for x in lines[0]:
            if EMPTY_OCC[x] != 2 and x not in blocked:
                dist[x] = 0
        for stations in lines[1:]:
            row = [x for x in stations if EMPTY_OCC[x] != 2 and x not in blocked]
            for x in row:
                ahead = dist[x + forward]
                if ahead < UNREACHABLE:
                    dist[x] = ahead + 1
            for x in row:  # sideways, left to right then right to left
                if dist[x - 1] + 1 < dist[x]:
                    dist[x] = dist[x - 1] + 1
            for x in reversed(row):
                if dist[x + 1] + 1 < dist[x]:
                    dist[x] = dist[x + 1] + 1
        return tuple(dist)

    def scouts_in_play(self, state, player: int) -> list[int]:
        return [x for x in state.scouts[3 * player: 3 * player + 3]
                if x >= 0 and not OPP_BASE[player][x]]

    def _doomed(self, state, player: int, x: int) -> bool:
        """Variation II forfeits a Scout with no single step at its owner's turn: one stuck
        now, or one whose only free step is onto a Cross Station an opponent Guard can take
        before the owner moves again."""
        occ = state.occ
        free = [t for t in (x + DELTAS[FORWARD[player]], x - 1, x + 1) if occ[t] == 0]
        if not free:
            return True
        opponent_moves_first = not (state.to_move == player and state.half == 0)
        return opponent_moves_first and len(free) == 1 and CROSS_INDEX[free[0]] >= 0

    # ----- projection -----
    def _turn_time(self, state, player: int, steps: int) -> float:
        """Global turn (counting both players' turns from now) at which ``player`` has made
        ``steps`` more Scout steps, two a turn."""
        mid_turn = state.to_move == player and state.half == 1
        turns = math.ceil((steps + mid_turn) / 2)
        first = 0 if state.to_move == player else 1
        return first + 2 * (turns - 1) if steps > 0 else 0

    def evaluate(self, state) -> list[float]:
        if state.is_terminal():
            return state.returns().tolist()
        return self._values(state, [self.field(state, p) for p in range(2)])

    def _values(self, state, fields) -> list[float]:
        placed = [len(state.placed[p]) for p in range(2)]
        times, remaining, lost = [], [], []
        intercept = self.game.variant == "intercept"
        for p in range(2):
            scouts = self.scouts_in_play(state, p)
            alive = [x for x in scouts if not (intercept and self._doomed(state, p, x))]
            lost.append(len(alive) < len(scouts) or OUT in state.scouts[3 * p: 3 * p + 3])
            distances = sorted(fields[p][x] for x in alive)
            total, when = 0, []
            for d in distances:
                total += d
                when.append(self._turn_time(state, p, total) if d < UNREACHABLE else math.inf)
            times.append(when)
            remaining.append(total)
        end = min((when[-1] for when in times if when), default=math.inf)
        end = min(end, self.game.max_turns - state.turn)
        for p in range(2):  # a running sweep ends the game when its owner would lead then
            sweep = state.sweep[p]
            if sweep is not None:
                sweep_end = self._turn_time(state, p, 2 * (self.game.sweep_turns - sweep[3]))
                scores = self._projected(placed, times, lost, sweep_end)
                if sweep_end < end and scores[p] > scores[1 - p]:
                    end = sweep_end
        scores = self._projected(placed, times, lost, end)
        leads = [scores[p] - scores[1 - p]
                 + STEP_WEIGHT * (remaining[1 - p] - remaining[p]) / 2 for p in range(2)]
        return [math.tanh(lead / LEAD_SCALE) for lead in leads]

    def _projected(self, placed, times, lost, end) -> list[int]:
        counts = [placed[p] + sum(1 for t in times[p] if t <= end) for p in range(2)]
        scores = [sum(SCORE_VALUES[:c]) for c in counts]
        if self.game.scouts_forfeit:
            for p in range(2):
                if lost[p] and counts[p] == placed[p] + len(times[p]):
                    # p runs out of Scouts: the opponent scores its Scouts still in play.
                    q = 1 - p
                    scores[q] = sum(SCORE_VALUES[:placed[q] + len(times[q])])
        return scores


@functools.lru_cache(maxsize=16)
def projection_of(game) -> Projection:
    """One :class:`Projection` per game, so that what it keeps serves every caller."""
    return Projection(game)
