"""Board symmetries in the acting player's view, for augmenting training samples.

A symmetry maps an observation and its view actions to those of an equivalent position: the
network should give the transformed position the transformed policy and the same values.

- Barricade: the mirror of the files (file f <-> 8 - f). Scouts 0 and 2 trade places (Scout
  ``i`` starts on file ``2 + 2i``), sideways steps swap direction, Guard targets mirror.
- Blockade, 2 players on a square board: the transpose about the observer's diagonal (both
  corners lie on it). Up/down edges trade with left/right, vertical walls with horizontal
  ones. The default 14 x 11 board, and 3 or 4 players (where it would swap the seats before
  and after the observer), have no symmetry.
- Nobles: none (a one-way track).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Symmetry:
    name: str
    planes: np.ndarray  # new plane i is old plane planes[i] (before the spatial transform)
    transpose: bool  # swap H and W
    mirror_w: bool  # reverse W
    actions: np.ndarray  # view action a becomes actions[a]

    def obs(self, obs: np.ndarray) -> np.ndarray:
        """Transform a batch [B, C, H, W] of observations."""
        out = obs[:, self.planes]
        if self.transpose:
            out = out.transpose(0, 1, 3, 2)
        if self.mirror_w:
            out = out[..., ::-1]
        return np.ascontiguousarray(out)

    def per_action(self, values: np.ndarray) -> np.ndarray:
        """Transform a batch [B, A] of per-action values (policy, mask)."""
        out = np.empty_like(values)
        out[:, self.actions] = values
        return out


def barricade_symmetries(game, encoder) -> list[Symmetry]:
    from envs.barricade.engine import FORFEIT_SCOUT, GUARD_ACTIONS, NUM_CROSS

    planes = np.arange(encoder.shape[0])
    planes[[0, 2]] = [2, 0]  # own Scout 0 <-> 2
    planes[[23, 25]] = [25, 23]  # own Scout 0 <-> 2 forfeited
    actions = np.arange(game.num_actions)
    for s in range(3):
        for d, mirrored in enumerate((0, 1, 3, 2)):
            actions[4 * s + d] = 4 * (2 - s) + mirrored
        actions[FORFEIT_SCOUT + s] = FORFEIT_SCOUT + 2 - s
    for g in range(2):
        for i in range(NUM_CROSS):
            row, col = divmod(i, 7)
            actions[GUARD_ACTIONS + NUM_CROSS * g + i] = GUARD_ACTIONS + NUM_CROSS * g + 7 * row \
                + 6 - col
    return [Symmetry("mirror files", planes, False, True, actions)]


def blockade_symmetries(game, encoder) -> list[Symmetry]:
    if game.num_players != 2 or game.rows != game.cols:
        return []
    from envs.blockade.engine import MOVE_OFFSETS, NUM_MOVE_ACTIONS

    n = game.num_players
    named = encoder.planes
    planes = np.arange(encoder.shape[0])
    e = named["blocked"].start  # up, down, left, right -> left, right, up, down
    planes[e:e + 4] = [e + 2, e + 3, e, e + 1]
    for name in ("wall_free", "wall_placed"):  # anchors: V <-> H
        first = named[name].start
        planes[first:first + 2] = [first + 1, first]
    for i in range(n):  # walls left per seat: vertical <-> horizontal
        first = named["walls_left"].start + 2 * i
        planes[first:first + 2] = [first + 1, first]
    actions = np.arange(game.num_actions)
    for k in range(NUM_MOVE_ACTIONS):
        pawn, offset = divmod(k, 12)
        dr, dc = MOVE_OFFSETS[offset]
        actions[k] = 12 * pawn + MOVE_OFFSETS.index((dc, dr))
    for w in range(2 * game.anchors_per_orientation):
        o, r, c = game.wall_of_index(w)
        actions[NUM_MOVE_ACTIONS + w] = NUM_MOVE_ACTIONS + game.wall_index(1 - o, c, r)
    return [Symmetry("transpose", planes, True, False, actions)]


SYMMETRIES = {"barricade": barricade_symmetries, "blockade": blockade_symmetries}


def symmetries(game, encoder) -> list[Symmetry]:
    """The non-identity symmetries of ``game``'s views (empty when it has none)."""
    build = SYMMETRIES.get(game.name)
    return build(game, encoder) if build else []


def augmenter(syms: list[Symmetry]):
    """``augment(batch, rng)`` for :class:`training.replay.Samples`: each sample kept or
    mapped by a symmetry, uniformly at random. None when there is nothing to augment with."""
    if not syms:
        return None

    def augment(batch, rng: np.random.Generator):
        choice = rng.integers(0, len(syms) + 1, size=len(batch))
        obs, mask, policy = batch.obs.copy(), batch.mask.copy(), batch.policy.copy()
        for k, sym in enumerate(syms, start=1):
            rows = np.flatnonzero(choice == k)
            if len(rows):
                obs[rows] = sym.obs(batch.obs[rows])
                mask[rows] = sym.per_action(batch.mask[rows])
                policy[rows] = sym.per_action(batch.policy[rows])
        return type(batch)(obs, mask, policy, batch.value)

    return augment
