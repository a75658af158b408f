"""Blockade's walking distances: the one breadth-first search on bitboards, and what is read
from it (goal-distance maps kept per wall layout, each player's race).

A board is one Python int per direction (up, down, left, right) holding the cells a pawn may
leave that way; a BFS layer is one shift per direction. Several searches can run side by side
in one int, one lane of ``num_cells`` bits each: a shift never carries a bit across a lane's
edge because the board's outer edges are closed in the open-edge masks. The heuristic agent
searches around pawns and hypothetical walls with :func:`bfs_layers`; the distance planes, the
race adjudicator and the shaping potential read :func:`goal_distances`, one search per wall
layout shared by every state with those walls.
"""

from __future__ import annotations

import numpy as np

from envs.blockade.engine import DOWN, LEFT, OPPOSITE_CORNER, RIGHT, UP

DIRECTIONS = (UP, DOWN, LEFT, RIGHT)
"""Open-edge bits in the order of :func:`direction_masks`."""


def direction_masks(open_cells: np.ndarray) -> list[int]:
    """Per direction (up, down, left, right): the bitboard of cells a pawn may leave that way,
    from ``open_cells`` (uint8 open-edge bits, any shape: its cells in row-major order are the
    bits, so stacked boards become lanes)."""
    flat = np.asarray(open_cells, dtype=np.uint8).reshape(-1)
    return [int.from_bytes(np.packbits((flat & d) != 0, bitorder="little").tobytes(), "little")
            for d in DIRECTIONS]


def state_masks(state) -> list[int]:
    """:func:`direction_masks` of one position's walls."""
    return direction_masks(np.frombuffer(bytes(state.open), dtype=np.uint8))


def bfs_layers(masks: list[int], cols: int, source: int, passable: int,
               targets: int) -> list[int]:
    """Breadth-first layers (bitboards): ``layers[k]`` holds the cells first reached after
    ``k`` steps from the cells in ``source`` through ``passable`` cells, until every cell in
    ``targets`` is reached or nothing new is."""
    up, down, left, right = masks
    seen = frontier = source
    layers = [source]
    while frontier and targets & ~seen:
        frontier = (((frontier & up) >> cols) | ((frontier & down) << cols)
                    | ((frontier & left) >> 1) | ((frontier & right) << 1)) & passable & ~seen
        seen |= frontier
        layers.append(frontier)
    return layers


def walk_distances(game, state, sources) -> np.ndarray:
    """Single-step distance from the nearest of ``sources`` (cells) to every cell, through
    open edges (walls respected, pawns ignored); ``game.num_cells`` if unreachable."""
    return walk_distances_from_each(game, state, [sources])[0]


def walk_distances_from_each(game, state, source_sets) -> np.ndarray:
    """:func:`walk_distances` for several source sets at once: ``[len(source_sets), cells]``."""
    return walk_distances_of_states(game, [state], source_sets)[0]


def walk_distances_of_states(game, states, source_sets) -> np.ndarray:
    """:func:`walk_distances_from_each` for several positions at once:
    ``[len(states), len(source_sets), cells]``: one lane per (position, source set), all
    searched by one :func:`bfs_layers` (a search batch's new wall layouts in one go), and the
    layers unpacked at once (a cell's distance is the number of cumulative layers that had not
    reached it)."""
    far, sets, positions = game.num_cells, len(source_sets), len(states)
    cells = np.frombuffer(b"".join(bytes(s.open) for s in states), dtype=np.uint8)
    masks = direction_masks(np.broadcast_to(cells.reshape(positions, 1, far),
                                            (positions, sets, far)))
    seeds = np.zeros((sets, far), dtype=bool)
    for lane, sources in enumerate(source_sets):
        seeds[lane, list(sources)] = True
    seen = int.from_bytes(np.packbits(np.broadcast_to(seeds, (positions, sets, far)).reshape(-1),
                                      bitorder="little").tobytes(), "little")
    bits = positions * sets * far
    everything = (1 << bits) - 1
    layers = bfs_layers(masks, game.cols, seen, everything, everything)
    if not layers[-1]:
        layers.pop()  # the search ran dry: its last layer is empty
    size = (bits + 7) // 8
    cumulative = []
    for layer in layers:
        seen |= layer
        cumulative.append(seen.to_bytes(size, "little"))
    reached = np.unpackbits(np.frombuffer(b"".join(cumulative), dtype=np.uint8).reshape(
        len(cumulative), size), axis=1, count=bits, bitorder="little")
    dist = len(cumulative) - reached.sum(axis=0, dtype=np.int64)
    dist[reached[-1] == 0] = far
    return dist.reshape(positions, sets, far)


GOAL_DISTANCES = "goal_distances"
"""Key of :func:`goal_distances`' entry in a state's wall cache."""


def goal_squares(game) -> list[list[int]]:
    """Each player's two goal cells in a fixed order (the opposite corner's outer, then inner
    start square), so that every seat's maps mean the same in its view."""
    return [[game.cell(*sq) for sq in game.start_squares[OPPOSITE_CORNER[corner]]]
            for corner in game.corners]


def prepare_goal_distances(game, states) -> None:
    """Compute :func:`goal_distances` for every wall layout among ``states`` not yet cached, in
    one search (a search batch's leaves, a rollout step's games)."""
    missing = list({id(s.wall_cache): s for s in states
                    if GOAL_DISTANCES not in s.wall_cache}.values())
    if not missing:
        return
    sources = [[g] for goals in goal_squares(game) for g in goals]
    dist = walk_distances_of_states(game, missing, sources)
    for state, maps in zip(missing, dist.reshape(len(missing), game.num_players, 2, -1),
                           strict=True):
        state.wall_cache[GOAL_DISTANCES] = maps


def goal_distances(game, state) -> np.ndarray:
    """``[num_players, 2, cells]`` walking distance from every cell to each goal square of each
    player (:func:`goal_squares` order; ``num_cells`` if walled off). It depends on the walls
    only, so it is kept in the state's wall cache, which every state with the same walls
    shares: the distance planes, the race adjudicator and the shaping potential all read the
    one search."""
    if GOAL_DISTANCES not in state.wall_cache:
        prepare_goal_distances(game, [state])
    return state.wall_cache[GOAL_DISTANCES]


def goal_distances_of_states(game, states) -> np.ndarray:
    """:func:`goal_distances` of several positions, ``[B, num_players, 2, cells]``: the new wall
    layouts among them searched together."""
    prepare_goal_distances(game, states)
    return np.stack([goal_distances(game, s) for s in states])


def pawn_goal_distances(maps: np.ndarray, pawns: np.ndarray) -> np.ndarray:
    """``d[b, p, g, k]``: walking distance of player ``p``'s pawn ``k`` to its goal ``g``, from
    ``maps`` ``[B, num_players, 2, cells]`` (:func:`goal_distances_of_states`) and ``pawns``
    ``[B, num_players * 2]`` (``State.pawns`` rows)."""
    batch, n = maps.shape[:2]
    return np.take_along_axis(maps, np.asarray(pawns).reshape(batch, n, 1, 2), axis=3)


def race_distances(state) -> np.ndarray:
    """Every player's steps still needed to meet the win condition (both pawns on the two goal
    squares, or one pawn on either; walls respected, pawns ignored, a walled-in pawn
    ``num_cells`` away). Read from the cached goal maps, so cheap enough for every decision."""
    return race_distances_of_states([state])[0]


def race_distances_of_states(states) -> np.ndarray:
    """:func:`race_distances` of several positions of one game: ``[B, num_players]``, read from
    their cached maps in one gather (a rollout step's games)."""
    game = states[0].game
    d = pawn_goal_distances(goal_distances_of_states(game, states),
                            np.array([s.pawns for s in states]))
    if game.win_condition == "both":
        totals = np.minimum(d[..., 0, 0] + d[..., 1, 1], d[..., 1, 0] + d[..., 0, 1])
    else:
        totals = d.reshape(len(states), game.num_players, 4).min(axis=2)
    return totals.astype(np.float64)
