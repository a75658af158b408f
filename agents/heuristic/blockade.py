"""Blockade heuristic: a race on shortest-path distance, with walls thrown in the leader's way.

Distances are breadth-first searches on bitboards (one Python int per direction holding the
cells a pawn may leave that way, one shift per direction per layer), from each goal square
outwards, over the walls and around other players' pawns (a pawn-blocked square that walls
alone would leave reachable costs ``PAWN_DETOUR`` extra steps, as pawns move away in time).

- A player's **race** is the number of turns it needs to finish: its pawns matched to its goal
  squares the cheaper way, ``ceil(steps / 2)`` turns per pawn (a pawn moves up to 2 steps a
  turn, one pawn a turn); under ``win_condition: any`` only the closer pawn counts.
- **Moves**: the pawn move that shortens the own race most (ties: fewer steps, then random).
- A goal square held by a pawn that is itself walled off from its own goals is lost for good:
  the player it belongs to counts as trapped.
- **Walls**: every legal wall is tried; it scores how many steps it adds to the leading
  opponent's race (plus a quarter of what it adds to the other opponents') minus what it adds
  to the own; cutting a corridor without lengthening it counts ``CORRIDOR_CUT`` steps. Walling
  a pawn or a goal square in for good counts as ``TRAPPED`` steps. Among equal walls, one clear
  of the own pawns and goals and nearest the leader's goal squares is laid, so walls pile up
  where the last one will seal a goal.
- **Pawn safety**: the best few moves are judged by the race left after the opponent's most
  damaging answering wall (under ``path_rule: open`` only a wall that leaves every pawn a path).
- **Jumps** (``jumps: true``): other pawns are no obstacle to the race, as a pawn passes over
  them; the moves tried are the engine's, jumps included.
- **Evaluation** for MCTS: ``tanh`` of each player's lead in turns over its best opponent,
  counting who moves next; a player that cannot finish within the turn limit is scored as
  trapped.
"""

from __future__ import annotations

import math

import numpy as np

from agents.heuristic import ScoredChoice, ranked, successors
from envs.blockade import paths
from envs.blockade.distances import DIRECTIONS, bfs_layers, state_masks
from envs.blockade.engine import MOVE_OFFSETS, NUM_MOVE_ACTIONS
from envs.blockade.hooks import turn_leads

TRAPPED = 100
"""Steps a player walled in for good is charged (beyond any real distance)."""
PAWN_DETOUR = 4
"""Extra steps charged when only other players' pawns, not walls, block the way."""
CORRIDOR_CUT = 0.25
"""Steps a wall is charged for cutting a player's corridor without lengthening its race."""
THREAT_CHECKS = 4
"""Pawn moves (the best by race) checked against the most damaging answering wall."""

MCTS_DEFAULTS = {"exploration": 0.7, "rollout_depth": 4, "widening": 2.0,
                 "widening_exponent": 0.5}
"""Blockade offers ~200 walls a turn: widen slowly, in the heuristic's order, and score leaves
after a few random actions by the race evaluation."""


class Heuristic(ScoredChoice):
    def __init__(self, game):
        self.game = game
        self.cols = game.cols
        self.full = (1 << game.num_cells) - 1
        self.n = game.num_players
        self.goals = [sorted(cells) for cells in game.goal_cells]
        self.both = game.win_condition == "both"
        self.pawns_block = not game.jumps
        self.open_paths = game.path_rule == "open"
        # Per wall: (direction index, bit) pairs to clear from the direction masks.
        self.wall_clears = [
            [(DIRECTIONS.index(d), 1 << x) for x, d in edges] for edges in game.wall_edges
        ]
        self.wall_pairs = [
            ((1 << edges[0][0]) | (1 << edges[1][0]), (1 << edges[2][0]) | (1 << edges[3][0]))
            for edges in game.wall_edges
        ]
        self.wall_cells = [
            (r - 0.5, c - 0.5) for r, c in
            (game.wall_of_index(w)[1:] for w in range(2 * game.anchors_per_orientation))
        ]

    # ----- distances -----
    def masks(self, state) -> list[int]:
        """Per direction (up, down, left, right): the cells a pawn may leave that way."""
        return state_masks(state)

    def _layers(self, masks: list[int], source: int, passable: int, targets: int) -> list[int]:
        """BFS layers (bitboards) from the cells in ``source`` through ``passable`` cells, until
        every cell in ``targets`` is reached or nothing new is."""
        return bfs_layers(masks, self.cols, source, passable, targets)

    def _distances(self, masks, goal_bits: int, pawns: list[int], passable: int) -> list[int]:
        """Steps from the goal cells in ``goal_bits`` to each pawn cell (``TRAPPED`` if none)."""
        targets = 0
        for x in pawns:
            targets |= 1 << x
        layers = self._layers(masks, goal_bits, passable | targets, targets)
        distances = []
        for x in pawns:
            bit = 1 << x
            distances.append(next((k for k, layer in enumerate(layers) if layer & bit), TRAPPED))
        return distances

    def _pawn_distances(self, masks, goal_bits, pawns, blockers: int) -> list[int]:
        """Distances around other pawns, falling back to walls only (plus a detour) for a pawn
        that other pawns alone cut off."""
        distances = self._distances(masks, goal_bits, pawns, self.full & ~blockers | goal_bits)
        if TRAPPED in distances:
            walls_only = self._distances(masks, goal_bits, pawns, self.full)
            distances = [d if d < TRAPPED else min(TRAPPED, w + PAWN_DETOUR)
                         for d, w in zip(distances, walls_only, strict=True)]
        return distances

    def _stuck(self, masks, cell: int, owner: int) -> bool:
        """Whether ``owner``'s pawn on ``cell`` is walled off from all its goal squares, so that
        it will never leave a goal square of someone else that it stands on."""
        goal_bits = sum(1 << g for g in self.goals[owner])
        return self._distances(masks, goal_bits, [cell], self.full)[0] >= TRAPPED

    def _blockers(self, pawns: list[int], player: int) -> int:
        if not self.pawns_block:
            return 0
        bits = 0
        for q, x in enumerate(pawns):
            if q // 2 != player:
                bits |= 1 << x
        return bits

    def _path_cells(self, masks, source: int, target: int, passable: int) -> int:
        """The cells on some shortest path between the single cells ``source`` and ``target``
        (both bits), or every cell when there is none (so that nothing is ruled out)."""
        forward = self._layers(masks, source, passable | target, target)
        if not forward[-1] & target:
            return self.full
        depth = len(forward) - 1
        backward = self._layers(masks, target, passable | source, source)
        cells = 0
        for k in range(depth + 1):
            cells |= forward[k] & backward[depth - k]
        return cells

    def corridor(self, masks, pawns: list[int], player: int) -> int:
        """Cells a wall must touch to lengthen ``player``'s race: its pawns' shortest paths to
        its goal squares, and the paths home of other pawns that hold those goal squares (walling
        one of those in blocks the goal for good)."""
        passable = self.full & ~self._blockers(pawns, player)
        cells = 0
        for x in pawns[2 * player: 2 * player + 2]:
            for g in self.goals[player]:
                if x != g:
                    cells |= self._path_cells(masks, 1 << x, 1 << g, passable | (1 << g))
        for q, x in enumerate(pawns):
            if q // 2 != player and x in self.goals[player]:
                for g in self.goals[q // 2]:
                    cells |= self._path_cells(masks, 1 << x, 1 << g, self.full)
        return cells

    def race(self, masks, pawns: list[int], player: int) -> tuple[int, int]:
        """(turns, steps) ``player`` needs to finish from pawn cells ``pawns`` (all players'),
        ``TRAPPED`` turns if it cannot."""
        own = pawns[2 * player: 2 * player + 2]
        blockers = self._blockers(pawns, player)
        g0, g1 = self.goals[player]
        for q, x in enumerate(pawns):
            if x in (g0, g1) and q // 2 != player and self._stuck(masks, x, q // 2):
                return TRAPPED, TRAPPED
        if not self.both:
            d = min(self._pawn_distances(masks, (1 << g0) | (1 << g1), own, blockers))
            return (TRAPPED if d >= TRAPPED else (d + 1) // 2), d
        a0, b0 = self._pawn_distances(masks, 1 << g0, own, blockers)
        a1, b1 = self._pawn_distances(masks, 1 << g1, own, blockers)
        best = min(((a0 + 1) // 2 + (b1 + 1) // 2, a0 + b1), ((a1 + 1) // 2 + (b0 + 1) // 2,
                                                               a1 + b0))
        return (TRAPPED, TRAPPED) if best[1] >= TRAPPED else best

    # ----- evaluation -----
    def evaluate(self, state) -> list[float]:
        if state.is_terminal():
            return state.returns().tolist()
        masks = self.masks(state)
        turns = [self.race(masks, state.pawns, p)[0] for p in range(self.n)]
        return turn_leads(state, [math.inf if t >= TRAPPED else t for t in turns])

    # ----- choices (choose: ScoredChoice) -----
    def order(self, state, actions: list[int]) -> list[int]:
        """A cheap version of ``choose``'s ranking for tree search, called at every expanded
        node: moves by the race they leave (distances looked up in one BFS per goal square),
        walls by which players' corridors they cut rather than by re-running the race."""
        return ranked(self._scores(state, actions, exact=False))

    def _scores(self, state, actions: list[int], exact: bool = True) -> list[tuple[tuple, int]]:
        if actions[0] < NUM_MOVE_ACTIONS:
            if exact:
                return self._move_scores(state, actions)
            return self._quick_move_scores(state, actions)
        return self._wall_scores(state, actions, exact)

    def _quick_move_scores(self, state, actions):
        masks = self.masks(state)
        player, pawns, game = state.to_move, state.pawns, self.game
        passable = self.full & ~self._blockers(pawns, player)
        layers = [self._layers(masks, 1 << g, passable, self.full) for g in self.goals[player]]

        def steps(cell, goal):
            bit = 1 << cell
            return next((k for k, layer in enumerate(layers[goal]) if layer & bit), TRAPPED)

        own = pawns[2 * player: 2 * player + 2]
        scored = []
        for action in actions:
            k, offset = divmod(action, 12)
            r, c = game.coords(own[k])
            dr, dc = MOVE_OFFSETS[offset]
            cells = list(own)
            cells[k] = game.cell(r + dr, c + dc)
            a0, a1, b0, b1 = (steps(cells[0], 0), steps(cells[0], 1), steps(cells[1], 0),
                              steps(cells[1], 1))
            if self.both:
                race = min(((a0 + 1) // 2 + (b1 + 1) // 2, a0 + b1),
                           ((a1 + 1) // 2 + (b0 + 1) // 2, a1 + b0))
            else:
                d = min(a0, a1, b0, b1)
                race = ((d + 1) // 2, d)
            scored.append(((-race[0], -race[1]), action))
        return scored

    def _move_scores(self, state, actions):
        """Moves by the race they leave; the best few are then judged by the race left after
        the most damaging wall an opponent could answer with (so pawns keep out of pockets
        that one wall closes)."""
        masks = self.masks(state)
        player = state.to_move
        scored = []
        for action, child in successors(state, actions):
            if child.is_terminal():
                return [((math.inf,), action)]
            turns, steps = self.race(masks, child.pawns, player)
            scored.append(((-turns, -steps), action, child.pawns))
        scored.sort(key=lambda item: item[0], reverse=True)
        free_walls = np.flatnonzero(state.wall_free).tolist()
        closing = paths.wall_layout(state).closing_bits if self.open_paths else None
        judged = []
        for rank, (score, action, pawns) in enumerate(scored):
            if rank < THREAT_CHECKS:
                worst = self._worst_wall(masks, pawns, player, free_walls, closing)
                score = (-worst[0], -worst[1], *score)
            else:
                score = (-math.inf, -math.inf, *score)
            judged.append((score, action))
        return judged

    def _worst_wall(self, masks, pawns, player: int, walls: list[int],
                    closing: int | None = None) -> tuple[int, int]:
        """``player``'s race after the one wall (of ``walls``) that lengthens it most; with
        ``closing`` (the bitset of the open-path rule's walls that may cut a path) a wall
        leaving some pawn without a path is skipped, being illegal."""
        corridor = self.corridor(masks, pawns, player)
        worst = self.race(masks, pawns, player)
        for w in walls:
            first, second = self.wall_pairs[w]
            if corridor & first != first and corridor & second != second:
                continue
            walled = list(masks)
            for direction, bit in self.wall_clears[w]:
                walled[direction] &= ~bit
            if closing is not None and closing >> w & 1 and paths.cut_off_pawn(self.game, pawns,
                                                                           walled):
                continue
            worst = max(worst, self.race(walled, pawns, player))
        return worst

    def _wall_gains(self, state, masks, actions, player: int, exact: bool) -> list[float]:
        """Per wall action: steps it adds to the leading opponent's race (a quarter for other
        opponents) minus the steps it adds to ``player``'s. Only walls cutting a player's
        corridor are searched for that player; without ``exact`` a cut counts as one step."""
        pawns, n = state.pawns, self.n
        weights = {}
        before = {p: self.race(masks, pawns, p)[1] for p in range(n)}
        opponents = sorted((q for q in range(n) if q != player), key=lambda q: before[q])
        for q in opponents:
            weights[q] = 1.0 if q == opponents[0] else 0.25
        weights[player] = -1.0
        corridors = {p: self.corridor(masks, pawns, p) for p in weights}
        gains = []
        for action in actions:
            w = action - NUM_MOVE_ACTIONS
            first, second = self.wall_pairs[w]
            walled = None
            gain = 0.0
            for p, weight in weights.items():
                corridor = corridors[p]
                if corridor & first != first and corridor & second != second:
                    continue
                if not exact:
                    gain += weight
                    continue
                if walled is None:
                    walled = list(masks)
                    for direction, bit in self.wall_clears[w]:
                        walled[direction] &= ~bit
                # A cut that lengthens nothing still narrows the corridor: a little for it.
                added = self.race(walled, pawns, p)[1] - before[p]
                gain += weight * (added if added else CORRIDOR_CUT)
            gains.append(gain)
        return gains

    def _wall_scores(self, state, actions, exact: bool):
        """Walls by gain; among equal gains, walls that keep clear of the own pawns and goal
        squares, nearest the leading opponent's goal squares (sealing a goal square in ends
        that opponent's race for good, and walls there do not box in the own pawns)."""
        masks = self.masks(state)
        pawns, player = state.pawns, state.to_move
        gains = self._wall_gains(state, masks, actions, player, exact)
        races = [self.race(masks, pawns, q)[1] if q != player else math.inf
                 for q in range(self.n)]
        leader = races.index(min(races))
        coords = self.game.coords
        targets = [coords(g) for g in self.goals[leader]]
        own_pawns = [coords(x) for x in pawns[2 * player: 2 * player + 2]]
        own_goals = [coords(g) for g in self.goals[player]]
        scored = []
        for action, gain in zip(actions, gains, strict=True):
            r, c = self.wall_cells[action - NUM_MOVE_ACTIONS]
            near = min(abs(r - tr) + abs(c - tc) for tr, tc in targets)
            clear = (min(abs(r - pr) + abs(c - pc) for pr, pc in own_pawns) > 2
                     and min(abs(r - gr) + abs(c - gc) for gr, gc in own_goals) >= 3)
            scored.append(((gain, clear, -near), action))
        return scored
