"""Blockade's hooks (:class:`envs.core.Hooks`): the race lead, the race counted in turns for
search leaves, the decisions it still lasts, the transpose symmetry of square 2-player boards
and the goal-distance planes.

Under the seed rule (``win_condition: both``) random play never reaches a win before the turn
limit, so games cut short are scored by the race: ``D_i`` is player i's walking distance to
its win condition (:func:`envs.blockade.distances.race_distances`) and its value
``tanh((min over j != i of D_j - D_i) / scale)``: its lead over the closest rival.
"""

from __future__ import annotations

import math

import numpy as np

from envs.blockade.distances import race_distances, race_distances_of_states
from envs.blockade.engine import MOVE_OFFSETS, NUM_MOVE_ACTIONS
from envs.blockade.features import FEATURES
from envs.core import Hooks, Symmetry, margins


def adjudicate(state, scale: float) -> np.ndarray:
    """Every player's race lead: tanh of its closest rival's distance minus its own."""
    return margins(-race_distances(state), scale)


TURN_SCALE = 3.0
"""Turns of lead that make a race evaluation of tanh(1) ~ 0.76."""


def turn_leads(state, turns: list[float]) -> list[float]:
    """Every player's prospects from the turns each still needs to finish (``math.inf``: never):
    when each would finish, counted in single turns from now with the turn order (who moves
    first gets there first), against the first of its rivals to finish; tanh of the lead in
    rounds over :data:`TURN_SCALE`, +-1 when only one of the two can finish before the turn
    limit. The race evaluation of :func:`evaluate` and of the heuristic."""
    n, to_move = state.game.num_players, state.to_move
    remaining = state.game.max_turns - state.turn
    finish = []
    for p in range(n):
        # Turns of the others before p moves again (a player placing its wall has moved).
        before = (p - to_move) % n if state.phase == 0 else (p - to_move - 1) % n
        done = before + 1 + (turns[p] - 1) * n
        finish.append(done if done <= remaining else math.inf)
    values = []
    for p in range(n):
        rival = min(finish[q] for q in range(n) if q != p)
        if finish[p] == rival:  # both never, or an exact tie
            values.append(0.0)
        else:
            lead = (rival - finish[p]) / n
            values.append(math.tanh(lead / TURN_SCALE) if math.isfinite(lead)
                          else math.copysign(1.0, lead))
    return values


def evaluate(state) -> np.ndarray:
    """Every player's prospects by the race in turns (:func:`turn_leads`), each walking its
    shortest path two steps a turn, other pawns ignored: the heuristic's evaluation without its
    detours around pawns, cheap enough for every search leaf."""
    if state.is_terminal():
        return np.asarray(state.returns(), dtype=np.float64)
    d = race_distances(state)
    cells = state.game.num_cells
    turns = [math.inf if x >= cells else (x + 1) // 2 for x in d]
    return np.asarray(turn_leads(state, turns), dtype=np.float64)


def decisions_left(state) -> float:
    """About how many decisions the race still lasts: one decision of every player per step of
    the leader's race (a turn is a move and a wall, and a move goes up to two steps), capped by
    the two decisions per turn left before the turn limit."""
    game = state.game
    steps = race_distances(state).min()
    return min(game.num_players * steps, 2 * (game.max_turns - state.turn))


class RaceLead:
    """Each player's lead in the race, in [-1, 1]: the others' mean walking distance to their
    goals minus its own, over a cap of twice the board's perimeter (a walled-in player's
    distance is capped there too). Linear, unlike :func:`adjudicate`'s tanh, so the pull towards
    the goals stays as strong after the opponent is walled in (PPO's shaping potential)."""

    def __init__(self, game):
        self.cap = 2.0 * (game.rows + game.cols)

    def __call__(self, states, scale: float) -> np.ndarray:
        d = np.minimum(race_distances_of_states(states), self.cap)
        n = d.shape[1]
        return ((d.sum(axis=1, keepdims=True) - d) / (n - 1) - d) / self.cap


def symmetries(game, encoder) -> list[Symmetry]:
    """2 players on a square board: the transpose about the observer's diagonal (both corners
    lie on it). Up/down edges trade with left/right, vertical walls with horizontal ones. The
    default 14 x 11 board, and 3 or 4 players (where it would swap the seats before and after
    the observer), have no symmetry."""
    if game.num_players != 2 or game.rows != game.cols:
        return []
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


HOOKS = Hooks(adjudicate=adjudicate, evaluate=evaluate, potential=RaceLead,
              decisions_left=decisions_left, symmetries=symmetries, features=FEATURES,
              auto_features=("goal_steps",),
              encoder_versions={"blockade": 1, "goal_steps": 1, "race_steps": 1})
