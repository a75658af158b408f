"""Two tiny games on the engine contract of envs.core, for testing search and training without
the real games: an n-player race with a chance node, and a game given as an explicit tree."""

from __future__ import annotations

import numpy as np

from envs.core import CHANCE, TERMINAL, IllegalActionError, check_action, winner_returns

STEP, DASH, KNOCK = 0, 1, 2
DASH_OK, DASH_SLIP = 0, 1


class RaceGame:
    """n players race along a track of ``length``; first to reach the end wins.

    Actions: 0 step 1; 1 dash 2 (with ``chance``, a chance node follows: success with
    probability ``dash_p``, else no move); 2 knock the leading opponent back 1 (legal if that
    opponent is not at 0). ``max_turns`` truncates with returns 0.
    """

    name = "race"
    num_actions = 3

    def __init__(self, num_players: int = 2, length: int = 4, chance: bool = True,
                 dash_p: float = 0.5, max_turns: int = 40):
        self.num_players = num_players
        self.length = length
        self.chance = chance
        self.dash_p = dash_p
        self.max_turns = max_turns

    def new_initial_state(self) -> RaceState:
        return RaceState(self, [0] * self.num_players, 0)

    def state_from_dict(self, d: dict) -> RaceState:
        return RaceState(self, list(d["positions"]), d["to_move"], d.get("turn", 0))


class RaceState:
    def __init__(self, game: RaceGame, positions: list[int], to_move: int, turn: int = 0):
        self.game = game
        self.positions = positions
        self.to_move = to_move
        self.turn = turn
        self.dashing = False

    def clone(self) -> RaceState:
        s = RaceState(self.game, self.positions[:], self.to_move, self.turn)
        s.dashing = self.dashing
        return s

    def winner(self) -> int | None:
        for p, pos in enumerate(self.positions):
            if pos >= self.game.length:
                return p
        return None

    def is_truncated(self) -> bool:
        return self.winner() is None and self.turn >= self.game.max_turns

    def is_terminal(self) -> bool:
        return self.winner() is not None or self.turn >= self.game.max_turns

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return CHANCE if self.dashing else self.to_move

    def _leader(self) -> int:
        others = [p for p in range(self.game.num_players) if p != self.to_move]
        return max(others, key=lambda p: (self.positions[p], -p))

    def legal_actions_mask(self) -> np.ndarray:
        mask = np.zeros(3, dtype=bool)
        if self.current_player() >= 0:
            mask[[STEP, DASH]] = True
            mask[KNOCK] = self.positions[self._leader()] > 0
        return mask

    def legal_actions(self) -> list[int]:
        if self.is_chance_node():
            return [a for a, _ in self.chance_outcomes()]
        return [int(a) for a in np.flatnonzero(self.legal_actions_mask())]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(DASH_OK, self.game.dash_p), (DASH_SLIP, 1.0 - self.game.dash_p)]

    def _end_turn(self) -> None:
        self.turn += 1
        self.to_move = (self.to_move + 1) % self.game.num_players

    def apply_action(self, action: int) -> None:
        action = check_action(action, 3)
        if self.dashing:
            if action not in (DASH_OK, DASH_SLIP):
                raise IllegalActionError(f"chance outcome {action} does not exist")
            self.dashing = False
            if action == DASH_OK:
                self.positions[self.to_move] += 2
            self._end_turn()
            return
        if not self.legal_actions_mask()[action]:
            raise IllegalActionError(f"action {action} is illegal here")
        if action == STEP:
            self.positions[self.to_move] += 1
        elif action == DASH:
            if self.game.chance:
                self.dashing = True
                return
            self.positions[self.to_move] += 2
        else:
            self.positions[self._leader()] -= 1
        self._end_turn()

    def returns(self) -> np.ndarray:
        w = self.winner()
        return winner_returns(self.game.num_players, [] if w is None else [w])

    def to_dict(self) -> dict:
        return {"positions": self.positions[:], "to_move": self.to_move, "turn": self.turn}

    def action_to_string(self, action: int) -> str:
        return ["step", "dash", "knock"][action]

    def __str__(self) -> str:
        return f"Race{self.positions} to_move={self.to_move}"


class RaceEncoder:
    """Planes (n, 1, length + 1): plane k one-hot of the position of player (me + k) mod n."""

    def __init__(self, game: RaceGame):
        self.game = game
        self.shape = (game.num_players, 1, game.length + 1)

    def encode(self, state: RaceState, player: int) -> np.ndarray:
        n = self.game.num_players
        out = np.zeros((n, 1, self.game.length + 1), dtype=np.float32)
        for k in range(n):
            out[k, 0, min(state.positions[(player + k) % n], self.game.length)] = 1.0
        return out

    def view_to_board_actions(self, player: int) -> np.ndarray:
        return np.arange(3, dtype=np.int64)


class FlatRaceEncoder(RaceEncoder):
    """The same features as one flat vector, to exercise the network for 1-D observations."""

    def __init__(self, game: RaceGame):
        super().__init__(game)
        self.shape = (game.num_players * (game.length + 1),)

    def encode(self, state: RaceState, player: int) -> np.ndarray:
        return super().encode(state, player).reshape(-1)


class TreeGame:
    """A game given as an explicit tree. A node is ``{"player": p, "children": [...]}``,
    ``{"chance": [probs], "children": [...]}`` or ``{"returns": [...]}``; action ``i`` is
    child ``i``."""

    name = "tree"
    max_turns = 100

    def __init__(self, tree: dict, num_players: int):
        self.tree = tree
        self.num_players = num_players
        self.num_actions = _max_branching(tree)

    def new_initial_state(self) -> TreeState:
        return TreeState(self, self.tree, ())


def _max_branching(node: dict) -> int:
    children = node.get("children", [])
    return max([len(children)] + [_max_branching(c) for c in children])


class TreeState:
    def __init__(self, game: TreeGame, node: dict, path: tuple):
        self.game = game
        self.node = node
        self.path = path

    def clone(self) -> TreeState:
        return TreeState(self.game, self.node, self.path)

    def current_player(self) -> int:
        if "returns" in self.node:
            return TERMINAL
        return CHANCE if "chance" in self.node else self.node["player"]

    def is_terminal(self) -> bool:
        return "returns" in self.node

    def is_truncated(self) -> bool:
        return False

    def is_chance_node(self) -> bool:
        return "chance" in self.node

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(enumerate(self.node["chance"]))

    def legal_actions_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=bool)
        if not self.is_terminal():
            mask[: len(self.node["children"])] = True
        return mask

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.legal_actions_mask())]

    def apply_action(self, action: int) -> None:
        if not 0 <= action < len(self.node.get("children", [])):
            raise IllegalActionError(f"action {action} is illegal here")
        self.node = self.node["children"][action]
        self.path = self.path + (action,)

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.game.num_players)
        return np.asarray(self.node["returns"], dtype=np.float64)


def exact_values(node: dict, num_players: int) -> np.ndarray:
    """max^n with expectation at chance nodes: the value vector search should converge to."""
    if "returns" in node:
        return np.asarray(node["returns"], dtype=np.float64)
    values = [exact_values(c, num_players) for c in node["children"]]
    if "chance" in node:
        return sum(p * v for p, v in zip(node["chance"], values, strict=True))
    return max(values, key=lambda v: v[node["player"]])


def uniform_evaluator(game):
    """Uniform priors and zero values: search relies on terminal values alone."""

    def evaluate(states):
        n = len(states)
        return np.zeros((n, game.num_actions)), np.zeros((n, game.num_players))

    return evaluate


def hashed_evaluator(game):
    """Deterministic, state-dependent priors and values (unlike the uniform one), whatever else
    shares the batch."""

    def evaluate(states):
        logits, values = [], []
        for s in states:
            r = np.random.default_rng(abs(hash(str(s.to_dict()))) % 2**32)
            logits.append(r.normal(size=game.num_actions))
            values.append(r.uniform(-1, 1, size=game.num_players))
        return np.array(logits), np.array(values)

    return evaluate
