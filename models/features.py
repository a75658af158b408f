"""Derived input features appended to a game's observation planes (``model.features``).

- ``goal_steps`` (Blockade, what ``auto`` stands for): two planes per relative seat, one per
  goal square of that seat (the outer one, then the inner one), with every cell's walking
  distance to it (single steps around walls, pawns ignored) divided by ``rows + cols`` (25
  steps on the default board) and capped at 1, so one step is worth 0.04; cells that far or
  walled off are 1. One plane per goal square, not one to the nearer goal, because under
  ``win_condition: both`` the second pawn must head for the square the first one does not
  hold. A race on a walled board is a shortest-path problem that a small conv net cannot solve
  from local planes in a few layers; these maps make "which move brings my pawn closer" a
  local question: the policy head compares the plane at each move's destination. They depend
  only on the walls, so they are cached per wall layout.
- ``distance`` (Blockade): the same maps divided by the number of cells (154) instead, what
  ``auto`` meant before 2026-11-30 (checkpoints that say ``auto`` and were written then are
  read with it, :data:`LEGACY_AUTO`). A step is worth 0.0065 there, and a network trained
  from the teacher's games alone followed the maps far less well: 67-73% against random
  against 82% with ``goal_steps`` (docs/experiments/alphazero_blockade.md).

The wrapper keeps the encoder contract (``shape``, ``encode``, ``view_to_board_actions``), so
search, self-play, symmetries and checkpoints use it like the game's own encoder.
"""

from __future__ import annotations

import numpy as np

import envs


def _direction_bits() -> np.ndarray:
    """[4, 1]: the open-edge bits for up, down, left, right."""
    from envs.blockade.engine import DOWN, LEFT, RIGHT, UP

    return np.array([[UP], [DOWN], [LEFT], [RIGHT]], dtype=np.uint8)


def walk_distances(game, state, sources) -> np.ndarray:
    """Blockade: single-step distance from the nearest of ``sources`` (cells) to every cell,
    through open edges (walls respected, pawns ignored); ``game.num_cells`` if unreachable."""
    return walk_distances_from_each(game, state, [sources])[0]


def walk_distances_from_each(game, state, source_sets) -> np.ndarray:
    """:func:`walk_distances` for several source sets at once: ``[len(source_sets), cells]``."""
    return walk_distances_of_states(game, [state], source_sets)[0]


def walk_distances_of_states(game, states, source_sets) -> np.ndarray:
    """:func:`walk_distances_from_each` for several positions at once:
    ``[len(states), len(source_sets), cells]``.

    Breadth-first layers on bitboards, one shift per direction per layer. The searches run side
    by side in one integer, one lane of ``num_cells`` bits per (position, source set): a shift
    never carries a bit across a lane's edge because the board's outer edges are closed in the
    open-edge masks, so all the searches cost the Python operations of one (a search batch's
    new wall layouts in one go). The layers are then unpacked at once (a cell's distance is the
    number of layers that had not reached it)."""
    cols, far = game.cols, game.num_cells
    sets, positions = len(source_sets), len(states)
    cells = np.frombuffer(b"".join(bytes(s.open) for s in states), dtype=np.uint8)
    can_leave = (cells.reshape(positions, 1, 1, far) & _direction_bits()[:, None]) != 0
    # [direction, position, source set, cell] -> one bitboard per direction over all lanes.
    lanes = np.broadcast_to(can_leave, (positions, 4, sets, far)).transpose(1, 0, 2, 3)
    packed = np.packbits(lanes.reshape(4, -1), axis=1, bitorder="little")
    up, down, left, right = (int.from_bytes(row.tobytes(), "little") for row in packed)
    seeds = np.zeros((sets, far), dtype=bool)
    for lane, sources in enumerate(source_sets):
        seeds[lane, list(sources)] = True
    seen = int.from_bytes(np.packbits(np.broadcast_to(seeds, (positions, sets, far)).reshape(-1),
                                      bitorder="little").tobytes(), "little")
    frontier, layers = seen, []
    while frontier:
        layers.append(seen)
        step = ((frontier & up) >> cols) | ((frontier & down) << cols) \
            | ((frontier & left) >> 1) | ((frontier & right) << 1)
        frontier = step & ~seen
        seen |= frontier
    bits = positions * sets * far
    size = (bits + 7) // 8
    reached = np.unpackbits(np.frombuffer(b"".join(v.to_bytes(size, "little") for v in layers),
                                          dtype=np.uint8).reshape(len(layers), size),
                            axis=1, count=bits, bitorder="little")
    dist = len(layers) - reached.sum(axis=0, dtype=np.int64)
    dist[reached[-1] == 0] = far
    return dist.reshape(positions, sets, far)


GOAL_DISTANCES = "goal_distances"
"""Key of :func:`goal_distances`' entry in a Blockade state's wall cache."""


def goal_squares(game) -> list[list[int]]:
    """Each player's two goal cells in a fixed order (the opposite corner's outer, then inner
    start square), so that every seat's maps mean the same in its view."""
    from envs.blockade.engine import OPPOSITE_CORNER

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
    """Blockade: ``[num_players, 2, cells]`` walking distance from every cell to each goal
    square of each player (:func:`goal_squares` order; ``num_cells`` if walled off). It depends
    on the walls only, so it is kept in the state's wall cache, which every state with the same
    walls shares: the distance planes, the race adjudicator and the shaping potential all read
    the one search."""
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
    ``[B, num_players * 2]`` (:attr:`State.pawns` rows)."""
    batch, n = maps.shape[:2]
    return np.take_along_axis(maps, np.asarray(pawns).reshape(batch, n, 1, 2), axis=3)


class DistancePlanes:
    """A Blockade encoder with two goal-distance planes per relative seat appended: walking
    steps to each goal square divided by ``horizon`` and capped at 1."""

    def __init__(self, game, encoder, horizon: int):
        from envs.blockade.encoder import FLIPS, board_cells_in_view

        self.game = game
        self.encoder = encoder
        self.horizon = horizon
        c, h, w = encoder.shape
        self.shape = (c + 2 * game.num_players, h, w)
        self.planes = encoder.planes  # the game's planes come first, unchanged
        self.action_layout = encoder.action_layout
        self._flips = [FLIPS[corner] for corner in game.corners]
        # For encode_many: [seat, view cell] -> board cell, [seat, relative seat] -> seat.
        self._board_cell = board_cells_in_view(game)
        n = game.num_players
        self._seat_order = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n

    def _board_maps(self, state) -> np.ndarray:
        """[num_players, 2, rows, cols] scaled distance maps in board coordinates, kept in the
        state's wall cache beside the distances they come from."""
        maps = state.wall_cache.get(self)
        if maps is None:
            game = self.game
            maps = self._scaled(goal_distances(game, state).reshape(game.num_players, 2,
                                                                    game.rows, game.cols))
            state.wall_cache[self] = maps
        return maps

    def _view_maps(self, state, player: int) -> np.ndarray:
        """The maps in ``player``'s view (its seat first, board flipped to its corner), kept in
        the wall cache per seat: the positions of a search subtree share walls and mover."""
        key = (self, player)
        maps = state.wall_cache.get(key)
        if maps is None:
            n, game = self.game.num_players, self.game
            maps = self._board_maps(state)[[(player + i) % n for i in range(n)]].reshape(
                2 * n, game.rows, game.cols)
            flip_rows, flip_cols = self._flips[player]
            maps = np.ascontiguousarray(maps[:, ::-1 if flip_rows else 1,
                                             ::-1 if flip_cols else 1])
            state.wall_cache[key] = maps
        return maps

    def _scaled(self, steps: np.ndarray) -> np.ndarray:
        return (np.minimum(steps, self.horizon) * np.float32(1.0 / self.horizon)).astype(
            np.float32)

    def encode(self, state, player: int) -> np.ndarray:
        return np.concatenate([self.encoder.encode(state, player), self._view_maps(state, player)])

    def encode_many(self, states, players) -> np.ndarray:
        """:meth:`encode` of several positions at once: ``[B, C, H, W]``; the goal distances of
        the batch's new wall layouts come from one search, and each seat's view of them from
        one ``np.take``."""
        from envs.blockade.encoder import seat_groups

        game, n = self.game, self.game.num_players
        players = np.asarray(players, dtype=np.int64)
        dist = goal_distances_of_states(game, states)  # [B, seat, goal, cell]
        view = np.empty_like(dist)
        for player, rows in seat_groups(players):
            view[rows] = np.take(dist[rows][:, self._seat_order[player]],
                                 self._board_cell[player], axis=3)
        maps = self._scaled(view)
        return np.concatenate([self.encoder.encode_many(states, players),
                               maps.reshape(len(states), 2 * n, game.rows, game.cols)], axis=1)

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return self.encoder.view_to_board_actions(player)


WRAPPERS = {
    "goal_steps": lambda game, encoder: DistancePlanes(game, encoder, game.rows + game.cols),
    "distance": lambda game, encoder: DistancePlanes(game, encoder, game.num_cells),
}
AUTO = {"blockade": ("goal_steps",)}
"""What ``auto`` expands to per game (nothing for games not listed)."""


LEGACY_AUTO = {"blockade": ("distance",)}
"""What ``auto`` meant in checkpoints written before runs recorded their features by name
(:func:`training.checkpoint.load_checkpoint` reads those with this)."""


def resolve_features(game_name: str, features, auto=None) -> tuple[str, ...]:
    """The feature names ``features`` stands for in ``game_name``, ``auto`` expanded (by
    ``auto``, default :data:`AUTO`) and every name checked. Runs record these, not ``auto``,
    so that a checkpoint keeps its input when ``AUTO`` changes."""
    auto = AUTO if auto is None else auto
    names = tuple(f for name in features for f in (auto.get(game_name, ()) if name == "auto"
                                                    else (name,)))
    for name in names:
        if name not in WRAPPERS:
            raise ValueError(f"unknown model feature {name!r}; choose from {', '.join(WRAPPERS)}")
        if game_name != "blockade":
            raise ValueError(f"model feature {name!r} is only defined for blockade, "
                             f"not {game_name!r}")
    return names


def make_encoder(game, features: tuple[str, ...] | list[str] = ()):
    """The game's own encoder, with the named derived features appended in order; ``auto``
    stands for the features defined for this game (so one model config fits every game)."""
    encoder = envs.game_module(game.name).Encoder(game)
    for name in resolve_features(game.name, features):
        encoder = WRAPPERS[name](game, encoder)
    return encoder
