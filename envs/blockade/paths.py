"""The open-path rule (RULES.md section 1, ``path_rule: open``): a wall is legal only if every
pawn keeps a wall-free path to every goal square of its owner.

Connectivity, not distance, is what counts, and pawns never block: the rule holds for a player
when its two pawns and two goal squares (its *terminals*) lie in one region of the walled board.
Checking every anchor with a fresh search of the board would be needless work; instead:

1. **Only closing walls can cut a path** (kept per wall layout). Walls run along grid lines
   between grid points, and the board's edge is one long wall. A new wall splits a region of
   cells exactly when it closes a loop of walls, i.e. when two of its three grid points (ends
   and anchor) are already joined by walls or the edge: a union of grid points per layout,
   updated in one step per wall. Every other wall is legal without a search; early in a game
   no wall closes a loop, later a handful do (5 of about 200 free anchors on average in random
   Lakeside play).
2. **A check searches the smaller side.** A closing wall cuts two edges; for each, two searches
   grow in lockstep from the edge's two cells and stop at the first contact (no split there)
   or as soon as one side stops growing: that side is a whole region, usually a small pocket,
   and the wall is illegal when it holds part, not all, of some player's terminals. Every
   player is checked by the same search, and as the region does not depend on the pawns it is
   kept with the layout for every position with the same walls.

Searches run on bitboards: a set of cells is an int with bit ``r * cols + c``, and four ints
hold the cells that may step up, down, left and right, so one growth step of a search is a few
shifts on the whole board at once. ``tests/envs/test_blockade_lakeside.py`` checks the result
against one plain search per anchor and player.
"""

from __future__ import annotations

import numpy as np

PATH_LAYOUT_KEY = "open_path_layout"
"""``State.wall_cache`` key of the :class:`WallLayout` of the state's walls."""


class PathTables:
    """What the open-path rule needs of a board, built once per ``Game``; ``directions`` are the
    engine's direction bits up, down, left, right (the order of every step-mask tuple here)."""

    def __init__(self, game, directions: tuple[int, int, int, int]):
        rows, cols = game.rows, game.cols
        # Step masks of the empty board: the cells that may step in each direction.
        self.empty_steps = tuple(
            sum(1 << x for x in range(game.num_cells) if game.empty_open[x] & d)
            for d in directions
        )
        # Per wall: the bits it clears from the four step masks, and the two cell pairs it
        # separates (the engine lists each edge from both of its cells).
        self.wall_clear = []
        self.wall_sides = []
        for edges in game.wall_edges:
            clear = dict.fromkeys(directions, 0)
            for x, d in edges:
                clear[d] |= 1 << x
            self.wall_clear.append(tuple(~clear[d] for d in directions))
            self.wall_sides.append(((edges[0][0], edges[1][0]), (edges[2][0], edges[3][0])))
        # Per wall: its cells (bitboard), and those of each half.
        self.half_cells = [((1 << a) | (1 << b), (1 << d) | (1 << e))
                           for (a, b), (d, e) in self.wall_sides]
        self.wall_cells = [half | other_half for half, other_half in self.half_cells]
        # Per wall: its three grid points (end, anchor, end) as ids, every point of the board's
        # edge sharing id 0, since the edge joins them all.
        def point(r, c):
            return 0 if r in (0, rows) or c in (0, cols) else r * (cols + 1) + c

        points = []
        for w in range(2 * game.anchors_per_orientation):
            o, r, c = game.wall_of_index(w)
            if o == 0:
                points.append((point(r - 1, c), point(r, c), point(r + 1, c)))
            else:
                points.append((point(r, c - 1), point(r, c), point(r, c + 1)))
        self.wall_points = points
        self.num_walls = len(points)
        # Per grid point: the walls (bitsets over wall indices) that have it as first end, as
        # anchor, as second end; a group of joined points ORs those of its points.
        num_points = (rows + 1) * (cols + 1)
        roles = [[0, 0, 0] for _ in range(num_points)]
        for w, wall_points in enumerate(points):
            for role, q in enumerate(wall_points):
                roles[q][role] |= 1 << w
        # Per wall: the walls it rules out (itself among them), as a bitset.
        self.conflict_bits = [sum(1 << u for u in conflicts.tolist())
                              for conflicts in game.wall_conflicts]
        self.empty_layout = WallLayout(
            self.empty_steps, list(range(num_points)), [(q,) for q in range(num_points)],
            [tuple(role) for role in roles], (1 << self.num_walls) - 1)


class WallLayout:
    """What depends on the walls only: the four step masks; the grid points joined by walls or
    the board's edge, as groups (``group``: each point's group, named by its smallest point;
    ``members`` and ``roles``: per group its points and the walls that have one of them as
    first end, anchor or second end, as bitsets); ``free_bits`` and ``closing_bits``, bitsets
    over wall indices: the anchors still free, and the walls that would close a loop (two of
    their points in one group); and ``regions``, per closing wall checked so far, the regions
    it would split off (:func:`split_regions`), which do not depend on the pawns: positions
    that share the walls (search siblings) share them. Kept in ``State.wall_cache``; a wall
    placed makes the next one in a few list and bitset operations (:meth:`with_wall`)."""

    __slots__ = ("steps", "group", "members", "roles", "free_bits", "closing_bits", "regions")

    def __init__(self, steps: tuple[int, int, int, int], group: list[int],
                 members: list[tuple[int, ...]], roles: list[tuple[int, int, int]],
                 free_bits: int, closing_bits: int | None = None):
        self.steps = steps
        self.group = group
        self.members = members
        self.roles = roles
        self.free_bits = free_bits
        if closing_bits is None:
            closing_bits = 0
            for g in set(group):
                closing_bits |= _closing_in(roles[g])
        self.closing_bits = closing_bits
        self.regions: dict[int, tuple[int, ...]] = {}

    def labels(self, tables: PathTables, w: int) -> tuple[int, int, int]:
        """The groups of wall ``w``'s first end, anchor and second end."""
        group = self.group
        end, anchor, other_end = tables.wall_points[w]
        return group[end], group[anchor], group[other_end]

    def with_wall(self, tables: PathTables, w: int) -> WallLayout:
        steps = without_wall(self.steps, tables, w)
        free_bits = self.free_bits & ~tables.conflict_bits[w]
        joined_groups = set(self.labels(tables, w))
        if len(joined_groups) == 1:
            layout = WallLayout(steps, self.group, self.members, self.roles, free_bits,
                                self.closing_bits)
            layout.regions = self._kept_regions(tables, w, set(), closes=True)
            return layout
        target = min(joined_groups)
        group, members, roles = self.group[:], self.members[:], self.roles[:]
        points, (first, anchor, second) = members[target], roles[target]
        for g in joined_groups - {target}:
            for q in members[g]:
                group[q] = target
            points += members[g]
            other_first, other_anchor, other_second = roles[g]
            first, anchor, second = first | other_first, anchor | other_anchor, \
                second | other_second
        members[target], roles[target] = points, (first, anchor, second)
        layout = WallLayout(steps, group, members, roles, free_bits,
                            self.closing_bits | _closing_in(roles[target]))
        layout.regions = self._kept_regions(tables, w, joined_groups,
                                            closes=len(joined_groups) < 3)
        return layout

    def _kept_regions(self, tables: PathTables, w: int, merged: set[int],
                      closes: bool) -> dict:
        """The regions known here that still hold once wall ``w`` is placed (joining the
        groups ``merged`` here; ``closes``: whether it closes a loop), so that the next wall
        phase searches only what ``w`` may have changed.

        Those of a wall ``u`` hold when (1) at most one of ``u``'s groups is among the merged
        ones, so its points are joined alike before and after and the same halves of ``u``
        separate cells. If ``w`` closes no loop, (1) is enough: ``w`` then closes none with
        ``u`` standing either (two of its points would have to lie in groups that ``u`` joins),
        so with or without ``u`` it splits no region of the board, and ``u``'s regions are the
        same cells after ``w`` as before. Otherwise they also need (2) that no region holds a
        cell of ``w``'s edges, so each stays whole; (3) that no region holds cells of both
        halves of ``u``, so no path runs through one from one half to the other. Then a set of
        cells connected with ``w`` placed (each player's pawns and goals) stays connected with
        ``u`` placed too exactly when it lies wholly in or wholly outside each region: a path
        around ``u`` never needs a region, and a half of ``u`` with both cells outside the
        regions was no cut before and is none now, by (1).
        ``tests/envs/test_blockade_lakeside.py`` checks every wall phase of whole games."""
        touched = tables.wall_cells[w]
        free_bits, group = self.free_bits & ~tables.conflict_bits[w], self.group
        kept = {}
        for u, regions in self.regions.items():
            end, anchor, other_end = tables.wall_points[u]
            if not free_bits >> u & 1 or (
                    (group[end] in merged) + (group[anchor] in merged)
                    + (group[other_end] in merged) > 1):
                continue  # a wall that can no longer be placed needs no regions either
            if not closes:
                kept[u] = regions
                continue
            half, other_half = tables.half_cells[u]
            for region in regions:
                if region & touched or (region & half and region & other_half):
                    break
            else:
                kept[u] = regions
        return kept


def _closing_in(roles: tuple[int, int, int]) -> int:
    """The walls (bitset) with two of their points in the group whose ``roles`` these are."""
    first, anchor, second = roles
    return (first & anchor) | (anchor & second) | (first & second)


def without_wall(steps, tables: PathTables, w: int) -> tuple[int, int, int, int]:
    """The step masks ``steps`` once wall ``w`` stands."""
    up, down, left, right = steps
    keep_up, keep_down, keep_left, keep_right = tables.wall_clear[w]
    return up & keep_up, down & keep_down, left & keep_left, right & keep_right


def wall_layout(state) -> WallLayout:
    layout = state.wall_cache.get(PATH_LAYOUT_KEY)
    if layout is None:
        tables = state.game.path_tables
        layout = tables.empty_layout
        for w in state.walls:
            layout = layout.with_wall(tables, w)
        state.wall_cache[PATH_LAYOUT_KEY] = layout
    return layout


def wall_cache_after(wall_cache: dict, tables: PathTables, w: int) -> dict:
    """The new wall cache of a state that places wall ``w``: its layout, in one step from the old
    one when that is known."""
    layout = wall_cache.get(PATH_LAYOUT_KEY)
    return {} if layout is None else {PATH_LAYOUT_KEY: layout.with_wall(tables, w)}


def grow(reach: int, steps: tuple[int, int, int, int], cols: int) -> int:
    """Bitboard ``reach`` and every cell one open step away from it."""
    up, down, left, right = steps
    return (reach | ((reach & right) << 1) | ((reach & left) >> 1)
            | ((reach & down) << cols) | ((reach & up) >> cols))


def reach_until(source: int, targets: int, steps, cols: int) -> int:
    """The cells reachable from cell ``source``, searched until they hold all of bitboard
    ``targets`` (then possibly fewer) or no more can be reached."""
    reach = 1 << source
    while reach & targets != targets:
        grown = grow(reach, steps, cols)
        if grown == reach:
            break
        reach = grown
    return reach


def joined(source: int, targets: int, steps, cols: int) -> bool:
    """Whether every cell of bitboard ``targets`` is reachable from cell ``source``; the search
    stops as soon as they all are."""
    return reach_until(source, targets, steps, cols) & targets == targets


def cut_side(a: int, b: int, steps, cols: int) -> int:
    """0 if cells ``a`` and ``b`` are joined; else the region (bitboard) of whichever of the two
    a lockstep search from both finished first."""
    side_a, side_b = 1 << a, 1 << b
    up, down, left, right = steps
    while True:  # grow() inlined: this loop is most of a wall phase's time
        grown = (side_a | ((side_a & right) << 1) | ((side_a & left) >> 1)
                 | ((side_a & down) << cols) | ((side_a & up) >> cols))
        if grown & side_b:
            return 0
        if grown == side_a:
            return side_a
        side_a, side_b = side_b, grown


def loop_edges(sides, end: int, anchor: int, other_end: int):
    """Of a closing wall's two edges ``sides`` (the halves end-anchor and anchor-other end),
    those whose cells may end up apart, from the labels of its grid points: a half that closes
    a loop of its own, or the first half when only the wall as a whole closes one (then both
    halves lie on the same loop and separate the same two regions)."""
    first, second = end == anchor, anchor == other_end
    if first and second:
        return sides
    return sides[1:] if second else sides[:1]


def split_regions(steps, sides, cols: int) -> tuple[int, ...]:
    """Regions (bitboards) that a new wall splits off, on the board of ``steps`` (the wall
    standing), ``sides`` being the cell pairs across its edges that may have been split
    (:func:`loop_edges`): a set of cells lies in one region exactly when it lies wholly in, or
    wholly outside, each of them.

    Removing two edges leaves at most three regions where there was one. Each edge whose cells
    were split gives one whole region; when both give the same one, the edges' other cells may
    still lie in two different regions, searched for explicitly."""
    regions, others = [], []
    for a, b in sides:
        side = cut_side(a, b, steps, cols)
        if side:
            regions.append(side)
            others.append(b if side >> a & 1 else a)
    if len(regions) == 2 and regions[0] == regions[1]:
        beyond = reach_until(others[0], 1 << others[1], steps, cols)
        if not beyond >> others[1] & 1:
            regions[1] = beyond
    return tuple(regions)


def terminal_sets(game, pawns: list[int]) -> list[int]:
    """Per player, the bitboard of its two pawns and its goal squares."""
    return [(1 << pawns[2 * p]) | (1 << pawns[2 * p + 1]) | game.goal_bits[p]
            for p in range(game.num_players)]


def closing_walls(state, candidates: np.ndarray) -> list[int]:
    """The walls of ``candidates`` (bool over wall indices) that close a loop on the state's
    walls: the only ones the open-path rule may forbid, depending on where the pawns stand."""
    layout = wall_layout(state)
    closing, bits = [], layout.closing_bits & layout.free_bits
    while bits:  # a handful of free walls close a loop: their bits one by one
        w = (bits & -bits).bit_length() - 1
        if candidates[w]:
            closing.append(w)
        bits &= bits - 1
    return closing


def cutting_walls(state, closing: list[int]) -> list[int]:
    """Those walls of ``closing`` (:func:`closing_walls`) that would leave some pawn without a
    path to one of its goals."""
    layout = wall_layout(state)
    game = state.game
    tables, cols = game.path_tables, game.cols
    sets = terminal_sets(game, state.pawns)
    known = layout.regions
    cut = []
    for w in closing:
        regions = known.get(w)
        if regions is None:
            sides = loop_edges(tables.wall_sides[w], *layout.labels(tables, w))
            regions = known[w] = split_regions(without_wall(layout.steps, tables, w), sides,
                                               cols)
        if splits_a_set(regions, sets):
            cut.append(w)
    return cut


def splits_a_set(regions: tuple[int, ...], sets: list[int]) -> bool:
    """Whether some bitboard of ``sets`` lies partly in, partly outside, one of ``regions``."""
    for region in regions:
        for cells in sets:
            inside = cells & region
            if inside and inside != cells:
                return True
    return False


def cut_off_pawn(game, pawns: list[int], steps) -> tuple[int, int, int] | None:
    """The first ``(player, pawn k, goal cell)`` without a path on the board of ``steps``, or
    ``None`` when every pawn reaches every goal of its owner."""
    for player in range(game.num_players):
        for k in range(2):
            for goal in sorted(game.goal_cells[player]):
                if not joined(pawns[2 * player + k], 1 << goal, steps, game.cols):
                    return player, k, goal
    return None
