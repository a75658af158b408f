"""Barricade's standing (envs/barricade/standing.py): the distance fields it projects the race
with, against a plain search, and the fields it keeps against fresh ones."""

from collections import deque

import numpy as np
import pytest

from envs import barricade
from envs.barricade.engine import DELTAS, EMPTY_OCC, FORWARD
from envs.barricade.standing import (
    LINES_FROM_GOAL,
    UNREACHABLE,
    Projection,
    projection_of,
)


def searched_field(blocked: set[int], player: int) -> list[int]:
    """Steps to the nearest free goal station by a breadth-first search backward from the goal
    line: a Scout steps forward or sideways onto a station that is not blocked."""
    dist = [UNREACHABLE] * len(EMPTY_OCC)
    free = [x for x in LINES_FROM_GOAL[player][0] if EMPTY_OCC[x] != 2 and x not in blocked]
    queue = deque(free)
    for x in free:
        dist[x] = 0
    forward = DELTAS[FORWARD[player]]
    while queue:
        y = queue.popleft()
        for x in (y - forward, y - 1, y + 1):  # the stations one step before y
            if 0 <= x < len(EMPTY_OCC) and EMPTY_OCC[x] != 2 and x not in blocked \
                    and dist[x] == UNREACHABLE:
                dist[x] = dist[y] + 1
                queue.append(x)
    return dist


@pytest.mark.parametrize("variant", ["standard", "intercept"])
def test_distance_fields_equal_a_plain_search_and_kept_ones_fresh_ones(variant):
    """On every position of random games, each player's field equals a breadth-first search
    around its blocked stations, and the field kept per blocked stations (the ``evaluate``
    hook's, shared by the game's callers) equals one a fresh ``Projection`` works out."""
    game = barricade.Game(variant=variant)
    kept = projection_of(game)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            for player in range(2):
                field = kept.field(state, player)
                assert field == Projection(game).field(state, player)
                blocked = Projection(game)._blocked(state, player)
                assert list(field) == searched_field(blocked, player)
                checked += 1
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    assert checked > 100 and len(kept._fields) > 1
