"""PUCT Monte-Carlo tree search for 2 to 4 players and chance, batched over many trees.

One search runs many independent trees at once (one per concurrent game). Each round every tree
descends to one leaf, or with a Gumbel root to one leaf in each of several root children (the
simulations of a sequential-halving phase, which do not depend on each other's results); the
leaves of all trees go to the evaluator as a single batch, so the network runs on batches
instead of single positions. Results do not depend on which other trees share the batch, nor on
how many leaves a tree sends at once: every tree has its own random generator.

- Values are vectors with one entry per player (absolute seat order). A decision node picks the
  child that maximises the value of *its* player to move (max^n), so 3 and 4 players need no
  zero-sum assumption. ``opponent_model="paranoid"`` (Sturtevant & Korf, 2000) instead lets every
  other seat pick the child that minimises the root player's value, as if all of them played
  against it: a model of opponents who gang up on the leader.
- Chance nodes are never evaluated: search steps through them to an outcome, either sampled from
  the outcome probabilities (``chance="sample"``) or chosen so that visits track the
  probabilities, with the probability-weighted mean of the outcomes' values backed up
  (``chance="expectation"``: lower variance, same fixed point).
- Root exploration is Dirichlet noise with PUCT, or (``root="gumbel"``) Gumbel-top-k sampling
  with sequential halving (Danihelka et al., 2022), which plans well with few simulations and
  gives an improved-policy training target.
- Leaf values may mix the network's value with a game's own evaluation of the leaf
  (``game_value_weight`` w: ``(1 - w) * network + w * game``), as AlphaGo mixed its value
  network with rollouts: where a young network judges positions worse than the game's
  hand-written judgement, the search plans with both. The caller passes that evaluation
  (``game_value``, a game's ``evaluate`` hook); nothing here knows a game. With
  ``game_value_rollout`` k the evaluation scores the position k random actions after the leaf
  (AlphaGo's rollouts, cut off as plain MCTS's are), drawn from a generator the tree seeds.

The evaluator is any callable ``evaluate(states) -> (logits, values)``: ``logits`` float array
[B, num_actions] over board actions (illegal ones are ignored), ``values`` [B, num_players] in
absolute seat order. :class:`models.evaluator.NetworkEvaluator` wraps a network and an encoder.
"""

from __future__ import annotations

import gc
import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Annotated

import numpy as np

from envs.core import CHANCE, TERMINAL, draw_index, sample_chance

Evaluator = Callable[[Sequence], tuple[np.ndarray, np.ndarray]]
TerminalValue = Callable[[object], np.ndarray]
GameValue = Callable[[object], np.ndarray]
"""A state's value for every player by the game's own judgement (``Hooks.evaluate``)."""

CHANCE_MODES = ("sample", "expectation")
OPPONENT_MODELS = ("maxn", "paranoid")
ROOT_MODES = ("puct", "gumbel")


@dataclass(frozen=True)
class SearchConfig:
    """Knobs of one search (``algo.search``; AlphaZero's own defaults are in
    :class:`training.alphazero.AlphaZeroConfig`)."""

    # simulations per move (the root's evaluation counts as one)
    simulations: int = 100
    # exploration weight of the prior in PUCT
    c_puct: Annotated[float, ">= 0"] = 1.5
    # unvisited children start at the node's value minus this
    fpu_reduction: float = 0.0
    # root noise Dir(alpha) with alpha = this / legal actions
    dirichlet_concentration: Annotated[float, "> 0"] = 10.0
    # weight of the noise in the root priors (PUCT root only)
    dirichlet_share: float = 0.25
    # sample: draw chance outcomes | expectation: visit them in proportion and back up their
    # probability-weighted mean
    chance: str = "sample"
    # puct (Dirichlet noise, visit-count targets) | gumbel (Gumbel-top-k with sequential
    # halving; better with few simulations)
    root: str = "puct"
    # Gumbel root: actions considered (halved each phase)
    gumbel_considered: int = 16
    # Gumbel sigma(q) = (c_visit + max visits) * c_scale * q, q in [0, 1]
    gumbel_c_visit: Annotated[float, ">= 0"] = 50.0
    # Gumbel c_scale of that formula
    gumbel_c_scale: Annotated[float, "> 0"] = 1.0
    # leaf value = (1 - w) * the network's + w * the game's own evaluation (its `evaluate`
    # hook: Nobles' standing), as AlphaGo mixed its value net with rollouts; also how the
    # trained agent searches when it plays (0 = the network alone)
    game_value_weight: Annotated[float, "0..1"] = 0.0
    # priors = softmax(logits / this) over the legal moves: above 1 flattens the network's
    # priors toward uniform (Leela Chess Zero's policy softmax temperature), 1 = as trained
    policy_temperature: Annotated[float, "> 0"] = 1.0
    # maxn: each seat maximises its own value | paranoid: every other seat minimises the root
    # player's (they play against it together)
    opponent_model: str = "maxn"
    # random actions (chance outcomes by their odds) from a leaf before the game's own
    # evaluation scores it, as plain MCTS's cut-off rollouts do: where dice decide, it judges
    # where the next rolls may take the position (0 = the leaf itself)
    game_value_rollout: Annotated[int, ">= 0"] = 0

    def __post_init__(self):
        if self.simulations < 1:
            raise ValueError(f"search simulations must be >= 1, got {self.simulations}")
        if self.chance not in CHANCE_MODES:
            raise ValueError(f"search chance must be one of {CHANCE_MODES}, got {self.chance!r}")
        if self.root not in ROOT_MODES:
            raise ValueError(f"search root must be one of {ROOT_MODES}, got {self.root!r}")
        if self.opponent_model not in OPPONENT_MODELS:
            raise ValueError(f"search opponent_model must be one of {OPPONENT_MODELS}, got "
                             f"{self.opponent_model!r}")
        if not 0.0 <= self.dirichlet_share <= 1.0:
            raise ValueError(f"dirichlet_share must be in [0, 1], got {self.dirichlet_share}")
        if self.gumbel_considered < 1:
            raise ValueError(f"gumbel_considered must be >= 1, got {self.gumbel_considered}")
        if not self.policy_temperature > 0.0:
            raise ValueError(f"policy_temperature must be > 0, got {self.policy_temperature}")
        if not 0.0 <= self.game_value_weight <= 1.0:
            raise ValueError(f"game_value_weight must be in [0, 1], got "
                             f"{self.game_value_weight}")
        if self.game_value_rollout < 0:
            raise ValueError(f"game_value_rollout must be >= 0, got {self.game_value_rollout}")
        if self.game_value_rollout and not self.game_value_weight:
            raise ValueError("game_value_rollout rolls out before the game's evaluation, which "
                             "a search only reads with game_value_weight > 0")


@dataclass
class SearchResult:
    """What a search says about its root (arrays aligned with ``actions``)."""

    actions: np.ndarray  # legal board actions at the root
    visits: np.ndarray  # visit count of each
    q: np.ndarray  # mean value of each for the player to move (prior-based value if unvisited)
    child_values: np.ndarray  # [actions, players] mean value vector of each (zero if unvisited)
    policy: np.ndarray  # training target: visit distribution (PUCT) or improved policy (Gumbel)
    value: np.ndarray  # root value vector, absolute seat order
    selected: int | None  # the Gumbel root's chosen action; None with a PUCT root


class Node:
    """A position in the tree with its children's statistics in numpy arrays.

    ``player`` is the player to move, :data:`CHANCE` or :data:`TERMINAL`. A decision node is
    expanded (``actions`` set) once evaluated; a chance node is expanded when created. A
    decision node's mover maximises ``sign`` times the value of seat ``seat`` (its own, or
    with paranoid opponents minus the root player's).
    """

    __slots__ = ("state", "player", "actions", "priors", "logits", "cum", "child_n", "child_w",
                 "child_q", "scaled_priors", "prior_u", "children", "visits", "value", "seat",
                 "sign")

    def __init__(self, state, terminal_value: TerminalValue):
        self.state = state
        self.player = state.current_player()
        self.actions = None
        self.visits = 0
        self.value = None
        if self.player == TERMINAL:
            self.value = np.asarray(terminal_value(state), dtype=np.float64)
        elif self.player == CHANCE:
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            self._set_children(np.asarray(outcomes, dtype=np.int64),
                               np.asarray(probs, dtype=np.float64))
            self.cum = list(accumulate(probs))

    def _set_children(self, actions: np.ndarray, priors: np.ndarray) -> None:
        self.actions = actions
        self.priors = priors
        self.child_n = np.zeros(len(actions), dtype=np.float64)
        self.child_w = None  # sized once the number of players is known (expand or backup)
        self.children: dict[int, Node] = {}  # by index; few of a node's actions get visited

    def child(self, index: int, terminal_value: TerminalValue) -> Node:
        node = self.children.get(index)
        if node is None:
            state = self.state.clone()
            state.apply_action(int(self.actions[index]))
            node = self.children[index] = Node(state, terminal_value)
        return node

    def mean_values(self) -> np.ndarray:
        """Mean value vector of each child; rows of unvisited children are zero."""
        return self.child_w / np.maximum(self.child_n, 1.0)[:, None]


class _GumbelRoot:
    """Sequential halving over the top-k root actions by Gumbel noise plus logits."""

    def __init__(self, node: Node, config: SearchConfig, budget: int, rng, add_noise: bool):
        k = len(node.actions)
        self.config = config
        self.g = rng.gumbel(size=k) if add_noise else np.zeros(k)
        m = min(config.gumbel_considered, k)
        self.remaining = np.argsort(-(self.g + node.logits), kind="stable")[:m]
        self.phases = max(1, math.ceil(math.log2(m))) if m > 1 else 1
        self.budget = max(budget, 1)
        self.queue: deque[int] = deque()
        self.node = node
        self._fill()

    def _fill(self) -> None:
        visits = max(1, self.budget // (self.phases * len(self.remaining)))
        for _ in range(visits):
            self.queue.extend(int(i) for i in self.remaining)

    def next_is_free(self, pending_children: set[int]) -> bool:
        """Whether the next queued simulation goes down a child other than
        ``pending_children`` within this phase (the next phase is chosen on all its results)."""
        return bool(self.queue) and self.queue[0] not in pending_children

    def next_index(self) -> int:
        if not self.queue:
            if len(self.remaining) > 1:
                scores = self.scores()[self.remaining]
                keep = max(1, math.ceil(len(self.remaining) / 2))
                self.remaining = self.remaining[np.argsort(-scores, kind="stable")[:keep]]
            self._fill()
        return self.queue.popleft()

    def sigma(self, q: np.ndarray) -> np.ndarray:
        """The monotone transform of [-1, 1] values that weighs them against logits. Values are
        not stretched to the root's own min and max (mctx's default): with 16 simulations most
        root values are one network evaluation each, and stretching their noise made the policy
        targets random (20% against random after the 10-minute run)."""
        c = self.config
        q01 = (q + 1.0) / 2.0
        return (c.gumbel_c_visit + self.node.child_n.max()) * c.gumbel_c_scale * q01

    def completed_q(self) -> np.ndarray:
        """Visited actions' Q; unvisited ones get the mixed value estimate of the paper."""
        node = self.node
        q = node.mean_values()[:, node.player]
        visited = node.child_n > 0
        total = node.child_n.sum()
        v_hat = node.value[node.player]
        if total == 0:
            return np.full(len(q), v_hat)
        mass = node.priors[visited].sum()
        v_mix = (v_hat + total / mass * (node.priors[visited] * q[visited]).sum()) / (1 + total)
        return np.where(visited, q, v_mix)

    def scores(self) -> np.ndarray:
        return self.g + self.node.logits + self.sigma(self.completed_q())

    def selected_index(self) -> int:
        scores = self.scores()[self.remaining]
        return int(self.remaining[int(np.argmax(scores))])

    def improved_policy(self) -> np.ndarray:
        z = self.node.logits + self.sigma(self.completed_q())
        z = np.exp(z - z.max())
        return z / z.sum()


class _Tree:
    """One search tree with its own generator and simulation count."""

    def __init__(self, state, config: SearchConfig, rng, add_noise: bool,
                 terminal_value: TerminalValue, simulations: int):
        if state.current_player() < 0:
            raise ValueError("search needs a decision node at the root, "
                             f"got current_player()={state.current_player()}")
        self.config = config
        self.rng = rng
        # Rollouts draw from a stream of their own: a Gumbel phase's leaves are rolled out after
        # all of them have descended, so sharing the descents' stream (sampled chance) would
        # make the search depend on how many leaves go to one batch.
        self.rollout_rng = (np.random.default_rng(int(rng.integers(1 << 62)))
                            if config.game_value_rollout else None)
        self.add_noise = add_noise
        self.terminal_value = terminal_value
        self.root = Node(state, terminal_value)
        self.simulations = simulations
        self.done = 0
        self.gumbel: _GumbelRoot | None = None

    def descend(self) -> list[tuple[Node, list]]:
        """Run simulations until the next one needs an evaluation that is not yet back: the
        leaves to evaluate as ``(leaf, path)`` pairs, none when the budget is spent.
        Simulations that end on a terminal node are backed up on the spot.

        With a Gumbel root, a phase of sequential halving queues its simulations over distinct
        root children in turn; a simulation below one child reads only that child's subtree,
        and the root picks the next phase's children only once the phase is over. So a call
        takes queued simulations until the queue would revisit a child whose leaf is still out,
        or the phase ends: several leaves for one network batch, with the same result as one at
        a time. A PUCT root's choice depends on every result before it."""
        leaves, pending_children = [], set()
        while self.done + len(leaves) < self.simulations:
            if leaves and not (self.gumbel is not None
                               and self.gumbel.next_is_free(pending_children)):
                break
            node, path = self.root, []
            while node.actions is not None:
                index = self._select(node, is_root=not path)
                path.append((node, index))
                node = node.child(index, self.terminal_value)
            if node.player != TERMINAL:
                leaves.append((node, path))
                if path:
                    pending_children.add(path[0][1])
                continue
            self._backup(path, node.value)
        return leaves

    def _select(self, node: Node, is_root: bool) -> int:
        if node.player == CHANCE:
            if self.config.chance == "sample":
                return draw_index(node.cum, self.rng)
            return int(np.argmax(node.priors * (node.visits + 1) - node.child_n))
        if is_root and self.gumbel is not None:
            return self.gumbel.next_index()
        return int(np.argmax(node.child_q + math.sqrt(node.visits + 1) * node.prior_u))

    def expand(self, node: Node, path: list, legal: np.ndarray, priors: np.ndarray,
               value: np.ndarray) -> None:
        """Attach the evaluation of leaf ``node``: its legal-action mask and the network's
        priors over all board actions (:func:`legal_softmax`), and its value vector."""
        actions = legal.nonzero()[0]
        node._set_children(actions, priors[actions])
        node.child_w = np.zeros((len(actions), len(value)), dtype=np.float64)
        node.value = np.asarray(value, dtype=np.float64)
        node.seat, node.sign = node.player, 1.0
        if self.config.opponent_model == "paranoid" and node.player != self.root.player:
            node.seat, node.sign = self.root.player, -1.0
        # The mover's mean value per child, kept up to date by backups; unvisited children
        # start at the node's own value (first-play urgency) minus fpu_reduction.
        node.child_q = np.empty(len(actions))
        node.child_q.fill(node.sign * node.value[node.seat] - self.config.fpu_reduction)
        if not path:
            self._prepare_root(node)
        node.scaled_priors = self.config.c_puct * node.priors
        node.prior_u = node.scaled_priors.copy()  # c * P / (1 + N), N = 0 so far
        self._backup(path, node.value)

    def _prepare_root(self, node: Node) -> None:
        c = self.config
        if c.root == "gumbel":
            node.logits = np.log(node.priors)  # normalised: the priors' logits up to a constant
            self.gumbel = _GumbelRoot(node, c, self.simulations - 1, self.rng, self.add_noise)
        elif self.add_noise and c.dirichlet_share > 0 and len(node.actions) > 1:
            alpha = c.dirichlet_concentration / len(node.actions)
            noise = self.rng.dirichlet(np.full(len(node.actions), alpha))
            node.priors = (1 - c.dirichlet_share) * node.priors + c.dirichlet_share * noise

    def _backup(self, path: list, value: np.ndarray) -> None:
        self.done += 1
        expectation = self.config.chance == "expectation"
        for node, index in reversed(path):
            if node.child_w is None:
                node.child_w = np.zeros((len(node.actions), len(value)), dtype=np.float64)
            node.child_n[index] += 1
            node.child_w[index] += value
            node.visits += 1
            if node.player >= 0:
                n = node.child_n[index]
                node.child_q[index] = node.sign * node.child_w[index, node.seat] / n
                node.prior_u[index] = node.scaled_priors[index] / (1.0 + n)
            elif expectation:
                seen = node.child_n > 0
                weights = node.priors[seen]
                value = weights @ node.mean_values()[seen] / weights.sum()

    def result(self) -> SearchResult:
        root = self.root
        q = root.mean_values()[:, root.player]
        q = np.where(root.child_n > 0, q, root.value[root.player])
        value = (root.value + root.child_w.sum(axis=0)) / (1 + root.visits)
        if self.gumbel is not None:
            policy = self.gumbel.improved_policy()
            selected = int(root.actions[self.gumbel.selected_index()])
        else:
            policy = root.child_n / max(root.child_n.sum(), 1.0)
            selected = None
        return SearchResult(actions=root.actions, visits=root.child_n.copy(), q=q,
                            child_values=root.mean_values(), policy=policy, value=value,
                            selected=selected)


def legal_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax of each row of ``logits`` over its legal entries (float64, 0 elsewhere): a
    batch's priors at once, which per leaf would be a dozen small numpy calls each."""
    z = np.where(legal, logits, -np.inf).astype(np.float64)
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


def rollout_value(state, depth: int, rng, game_value: GameValue,
                  terminal_value: TerminalValue) -> np.ndarray:
    """The game's evaluation of ``state`` after up to ``depth`` uniformly random actions, chance
    outcomes drawn by their odds (a copy is played; the end of the game is scored by
    ``terminal_value``)."""
    if depth:
        state = state.clone()
        for _ in range(depth):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                actions = state.legal_actions()
                state.apply_action(int(actions[rng.integers(len(actions))]))
    return terminal_value(state) if state.is_terminal() else game_value(state)


def search(states: Sequence, evaluate: Evaluator, config: SearchConfig,
           rngs: Sequence[np.random.Generator], add_noise: bool = True,
           terminal_value: TerminalValue | None = None,
           simulations: Sequence[int] | None = None,
           game_value: GameValue | None = None) -> list[SearchResult]:
    """Search every state (each a decision node) with ``config.simulations`` simulations (or
    ``simulations[i]`` for state ``i``: playout-cap randomisation mixes budgets), one tree per
    state, evaluating the leaves of all trees together (one batch a round: a leaf per tree, or
    with a Gumbel root up to ``gumbel_considered`` per tree). ``rngs[i]`` drives tree ``i``
    (noise, sampled chance, Gumbel); the states themselves are not modified.
    ``terminal_value(state)`` scores terminal nodes (default ``state.returns()``; the
    sparse-reward remedy adjudicates truncated games here).
    ``game_value(state)``: the game's own evaluation, mixed into every leaf's value with
    ``config.game_value_weight`` (needed when that weight is above 0)."""
    if len(rngs) != len(states):
        raise ValueError(f"need one generator per state: {len(rngs)} for {len(states)}")
    mix = config.game_value_weight
    if mix and game_value is None:
        raise ValueError("search game_value_weight > 0 needs the game's evaluation (a game "
                         "whose hooks have evaluate)")
    terminal_value = terminal_value or (lambda s: s.returns())
    if simulations is None:
        simulations = [config.simulations] * len(states)
    if len(simulations) != len(states) or min(simulations, default=1) < 1:
        raise ValueError(f"need one simulation budget >= 1 per state, got {list(simulations)}")
    trees = [_Tree(s.clone(), config, rng, add_noise, terminal_value, int(n))
             for s, rng, n in zip(states, rngs, simulations, strict=True)]
    # The trees hold no reference cycles (refcounting frees them), but their many small objects
    # would make the cyclic collector walk them again and again while they grow.
    collecting = gc.isenabled()
    gc.disable()
    try:
        while True:
            pending = [(tree, leaf) for tree in trees for leaf in tree.descend()]
            if not pending:
                break
            leaves = [node.state for _, (node, _) in pending]
            logits, values = evaluate(leaves)
            if mix:
                depth = config.game_value_rollout
                judged = ([game_value(s) for s in leaves] if not depth else
                          [rollout_value(s, depth, tree.rollout_rng, game_value, terminal_value)
                           for s, (tree, _) in zip(leaves, pending, strict=True)])
                values = (1.0 - mix) * values + mix * np.stack(judged)
            legal = np.stack([state.legal_actions_mask() for state in leaves])
            if config.policy_temperature != 1.0:
                logits = logits / config.policy_temperature
            priors = legal_softmax(logits, legal)
            for i, (tree, (node, path)) in enumerate(pending):
                tree.expand(node, path, legal[i], priors[i], values[i])
    finally:
        if collecting:
            gc.enable()
    return [tree.result() for tree in trees]
