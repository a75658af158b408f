"""Self-play: many games at once in one process, each with its own search tree and generator,
their leaf evaluations batched together through :func:`search.puct.search`.

A game's course depends only on its seed and what the learner sent for the round
(:class:`Round`: the weights, a past snapshot, the teacher's share), never on which other games
share the process or the batch, so any split of seeds over workers gives the same records.

What each decision of the current network records (policy target, value target):

- Policy target: the search's (visit counts with a PUCT root, the improved policy with a Gumbel
  root).
- Teacher labels (``teacher_share`` > 0): that share of the decisions gets the
  teacher's label (``teacher``, an agent spec: a searching agent's visit shares, another's
  move; :func:`agents.base.teacher_label`) as its target instead, in games against a random
  seat (``teacher_games: vs_random``) or in every game (``all``): the warm start's student round
  (DAgger) carried on through self-play. The learner fades the share out over the run
  (``teacher_fade``), so the search's targets take over.
- Seats not recorded: the random seat (``random_opponent_share``) and, in the share
  ``past_self_share`` of games, every seat but one, played by a past snapshot of the network
  through a second evaluator (a pool of past selves: the network keeps beating its older
  versions instead of only its current self); or, in the share ``opponent_share``, every seat
  but one played by one agent of ``opponents``, drawn per game (e.g. the heuristic and a plain
  MCTS: players of other styles, as PPO's baseline opponents are).

Which decisions are teacher-labelled, the teacher's tie-breaking and who sits where all come
from generators of the game's own seed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Annotated

import numpy as np

import envs
from agents import make_agent
from agents.base import teacher_label
from envs.core import sample_chance
from models.inference import make_evaluator
from search.puct import SearchConfig, search
from training.replay import Samples
from training.rewards import Outcomes

TEACHER_GAMES = ("vs_random", "all")


@dataclass(frozen=True)
class SelfPlayConfig:
    """``algo.selfplay``: how the self-play games are played and recorded."""

    # games played at once per worker; the leaves of all go through the network in one batch
    concurrent_games: int = 32
    # PUCT root: sample moves with visits^(1/temperature) ...
    temperature: Annotated[float, ">= 0"] = 1.0
    # ... for this many decisions of a game, then play the most visited
    temperature_moves: Annotated[int, ">= 0"] = 20
    # cut a game after this many decisions (null = play to the game's end); a cut game is
    # valued by rewards.adjudication; games with a random seat always play to the end
    max_moves: int | None = None
    # share of games in which one seat plays uniformly at random (not recorded): games the
    # network can actually win, so real win signals appear while self-play between equals
    # never finishes
    random_opponent_share: float = 0.0
    # agent spec of the teacher whose labels replace the search's policy targets: its move, or
    # a searching agent's (mcts) visit shares (the warm start's own is algo.warm_start.teacher)
    teacher: str = "heuristic"
    # share of the network's decisions whose policy target is the teacher's label: the warm
    # start's student round (DAgger) carried on through self-play
    teacher_share: float = 0.0
    # fade teacher_share linearly to 0 over this share of the run (0.3 = gone after 30% of the
    # iterations, or of the time limit when iterations is null), so the search's own targets
    # take over; null = constant (imitates the teacher: cannot pass it)
    teacher_fade: float | None = None
    # games whose decisions the teacher labels: vs_random (games with a random seat) | all
    teacher_games: str = "vs_random"
    # share of games in which every seat but one is a past snapshot of the network from
    # algo.pool (not recorded): the network keeps beating its older selves
    past_self_share: float = 0.0
    # agent specs of the opponent seats, one drawn per game (cheap ones: they play most moves
    # of their games)
    opponents: tuple[str, ...] = ("heuristic",)
    # share of games in which every seat but one is played by one of `opponents` (not
    # recorded); drawn from the same games as past_self_share (the two add up to <= 1)
    opponent_share: float = 0.0

    def __post_init__(self):
        for key in ("teacher_share", "random_opponent_share", "past_self_share",
                    "opponent_share"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                raise ValueError(f"selfplay.{key} must be in [0, 1], got {getattr(self, key)}")
        if self.past_self_share + self.opponent_share > 1.0:
            raise ValueError("selfplay.past_self_share + selfplay.opponent_share must be <= 1 "
                             "(shares of the same games), got "
                             f"{self.past_self_share} + {self.opponent_share}")
        if self.teacher_fade is not None and not 0.0 < self.teacher_fade <= 1.0:
            raise ValueError("selfplay.teacher_fade must be in (0, 1] or null, got "
                             f"{self.teacher_fade}")
        if self.teacher_games not in TEACHER_GAMES:
            raise ValueError(f"selfplay.teacher_games must be one of {TEACHER_GAMES}, got "
                             f"{self.teacher_games!r}")
        if self.opponent_share and not self.opponents:
            raise ValueError("selfplay.opponent_share > 0 needs at least one selfplay.opponents "
                             "spec")
        if self.concurrent_games < 1:
            raise ValueError(f"selfplay.concurrent_games must be >= 1, got {self.concurrent_games}")
        if self.max_moves is not None and self.max_moves < 1:
            raise ValueError(f"selfplay.max_moves must be >= 1 or null, got {self.max_moves}")

    def teacher_share_at(self, progress: float) -> float:
        """The teacher's share when ``progress`` of the run is done: ``teacher_share``, falling
        linearly to 0 at ``teacher_fade`` of the run (constant without a fade)."""
        if self.teacher_fade is None:
            return self.teacher_share
        return self.teacher_share * max(0.0, 1.0 - progress / self.teacher_fade)


@dataclass
class Round:
    """What the learner sends self-play for one iteration."""

    weights: dict  # the current network's
    teacher_share: float = 0.0  # this round's share of teacher labels (after the fade)
    past_weights: dict | None = None  # a past snapshot for selfplay.past_self_share's games


@dataclass
class SelfPlayGame:
    """One finished self-play game: its training samples, its outcome and statistics, and its
    actions to replay it (an arena game's record is :class:`arena.records.GameRecord`)."""

    seed: int
    samples: Samples
    outcome: np.ndarray  # value per player (engine returns, or adjudicated)
    moves: int  # decisions played
    cut: bool  # stopped by selfplay.max_moves before the game ended
    random_seat: int | None  # the seat played at random (selfplay.random_opponent_share)
    truncated: bool  # ended by the engine's turn limit without a result
    actions: list[int] = field(default_factory=list)  # every applied action, chance included
    simulations: int = 0
    teacher_labels: int = 0  # recorded decisions whose policy target is the teacher's label
    network_seat: int | None = None  # with a past self or the opponent: the network's one seat
    others: str | None = None  # who played the other seats then: "past" or "opponent"
    opponent: int | None = None  # with "opponent": its index in selfplay.opponents


class _Game:
    def __init__(self, game, seed: int, config: SelfPlayConfig, past_self: bool):
        """``past_self``: this round has a past snapshot for ``config.past_self_share``."""
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.state = game.new_initial_state()
        self.actions: list[int] = []
        self.obs, self.masks, self.policies, self.players = [], [], [], []
        self.decisions: list[int] = []  # the game's decision count at each recorded position
        self.leads: list[np.ndarray | None] = []  # position values for rewards.position_weight
        self.search_values: list[np.ndarray | None] = []  # root values, rewards.search_value_weight
        self.simulations = 0
        self.teacher_labels = 0
        self.label_rng = np.random.default_rng([seed, 1])  # which decisions the teacher labels
        self.moves = 0
        # A seat played uniformly at random (not recorded): games the network can win, so the
        # win signal appears even while self-play between equals never finishes.
        self.random_seat = None
        if config.random_opponent_share and self.rng.random() < config.random_opponent_share:
            self.random_seat = int(self.rng.integers(game.num_players))
        # Or every seat but one played by the past snapshot or by an opponent agent (not
        # recorded): one draw, the past self's share at its bottom, the opponents' at its top.
        self.network_seat = None
        self.others = None
        self.opponent = None
        if self.random_seat is None and (past_self or config.opponent_share):
            u = self.rng.random()
            if past_self and u < config.past_self_share:
                self.others = "past"
            elif u >= 1.0 - config.opponent_share:
                self.others = "opponent"
                # Drawn only among several, so a single opponent leaves the games as they were.
                self.opponent = (int(self.rng.integers(len(config.opponents)))
                                 if len(config.opponents) > 1 else 0)
            if self.others is not None:
                self.network_seat = int(self.rng.integers(game.num_players))

    def seat(self, player: int) -> str:
        """Who plays ``player``'s seat: "random", "past", "opponent" or "network" (recorded)."""
        if player == self.random_seat:
            return "random"
        if self.network_seat is not None and player != self.network_seat:
            return self.others
        return "network"

    def apply(self, action: int) -> None:
        self.state.apply_action(action)
        self.actions.append(action)
        self.resolve_chance()

    def resolve_chance(self) -> None:
        """Roll the dice with the game's own generator up to the next decision."""
        while self.state.is_chance_node():
            outcome = sample_chance(self.state, self.rng)
            self.state.apply_action(outcome)
            self.actions.append(outcome)


class SelfPlay:
    """Plays self-play games with the given network; ``start_round(r)`` takes the learner's
    latest, ``play(seeds)`` returns the games' records in seed order. ``inference`` and
    ``inference_cache``: the evaluators' backend and cache size (:func:`make_evaluator`)."""

    def __init__(self, game, encoder, net, search_config: SearchConfig, config: SelfPlayConfig,
                 outcomes: Outcomes, past_net=None, inference: str = "torch",
                 inference_cache: int = 0):
        self.game = game
        self.encoder = encoder
        self.net = net
        self.search_config = search_config
        self.config = config
        self.outcomes = outcomes
        self.inference = {"backend": inference, "cache_size": inference_cache}
        self.evaluator = make_evaluator(net, encoder, game.num_players, **self.inference)
        self.game_value = envs.game_hooks(game).evaluate  # for search.game_value_weight
        self.teacher_share = config.teacher_share
        self.teacher = make_agent(config.teacher, game) if config.teacher_share else None
        self.opponents = ([make_agent(spec, game) for spec in config.opponents]
                          if config.opponent_share else [])
        self.past_net = past_net  # a second network of the same shape for past snapshots
        self.past_evaluator = None  # this round's: past_net's, when the round has past weights
        self._past_net_evaluator = None  # built once: an ONNX backend exports on building

    def start_round(self, selfplay_round: Round) -> None:
        r = selfplay_round
        self.net.load_state_dict(r.weights)
        self.evaluator.refresh()
        self.teacher_share = r.teacher_share
        self.past_evaluator = None
        if r.past_weights is not None:
            if self.past_net is None:
                raise ValueError("self-play got past weights but was built without a past_net")
            self.past_net.load_state_dict(r.past_weights)
            if self._past_net_evaluator is None:
                self._past_net_evaluator = make_evaluator(self.past_net, self.encoder,
                                                          self.game.num_players, **self.inference)
            else:
                self._past_net_evaluator.refresh()
            self.past_evaluator = self._past_net_evaluator

    def play(self, seeds: list[int]) -> list[SelfPlayGame]:
        pending = deque(seeds)
        active: list[_Game] = []
        records: dict[int, SelfPlayGame] = {}
        past_self = self.past_evaluator is not None
        while pending or active:
            while pending and len(active) < self.config.concurrent_games:
                g = _Game(self.game, pending.popleft(), self.config, past_self)
                g.resolve_chance()  # a game may open with a roll
                active.append(g)
            self._move(active)
            still = []
            for g in active:
                cut = (self.config.max_moves is not None and g.random_seat is None
                       and g.moves >= self.config.max_moves)
                if g.state.is_terminal() or cut:
                    records[g.seed] = self._finish(g, cut)
                else:
                    still.append(g)
            active = still
        return [records[s] for s in seeds]

    def _move(self, games: list[_Game]) -> None:
        """One decision in every game: search where there is a choice (the current network's
        seats and the past self's, each through its own evaluator), then act and record."""
        masks = [g.state.legal_actions_mask() for g in games]
        seats = [g.seat(g.state.current_player()) for g in games]
        results = {}
        for who, evaluator in (("network", self.evaluator), ("past", self.past_evaluator)):
            chosen = [i for i, m in enumerate(masks) if m.sum() > 1 and seats[i] == who]
            if not chosen:
                continue
            found = search([games[i].state for i in chosen], evaluator, self.search_config,
                           [games[i].rng for i in chosen], add_noise=True,
                           terminal_value=self.outcomes, game_value=self.game_value)
            results.update(zip(chosen, found, strict=True))
            for i in chosen:
                games[i].simulations += self.search_config.simulations
        for i, g in enumerate(games):
            g.moves += 1
            if seats[i] == "random":
                legal = np.flatnonzero(masks[i])
                g.apply(int(legal[g.rng.integers(len(legal))]))
                continue
            if seats[i] == "opponent":
                opponent = self.opponents[g.opponent]
                opponent.reset(self.game, g.state.current_player(), int(g.rng.integers(2**31)))
                g.apply(opponent.act(g.state.clone()))
                continue
            r = results.get(i)
            action = self._choose(g, r) if r is not None else int(np.flatnonzero(masks[i])[0])
            if seats[i] == "network":
                self._record(g, masks[i], r, action)
            g.apply(action)

    def _record(self, g: _Game, mask: np.ndarray, result, action: int) -> None:
        """The training sample of the network's decision at ``g``'s position: the policy target
        (the search's, the teacher's, or one-hot for a forced move)."""
        player = g.state.current_player()
        perm = self.evaluator.maps.perms[player]
        board_policy = np.zeros(self.game.num_actions, dtype=np.float32)
        if result is None:
            board_policy[action] = 1.0
        else:
            board_policy[result.actions] = result.policy
            if (self.teacher is not None
                    and (g.random_seat is not None or self.config.teacher_games == "all")
                    and g.label_rng.random() < self.teacher_share):
                self.teacher.reset(self.game, player, int(g.label_rng.integers(2**31)))
                _, board_policy = teacher_label(self.teacher, g.state.clone(),
                                                self.game.num_actions)
                g.teacher_labels += 1
        g.obs.append(self.encoder.encode(g.state, player))
        g.masks.append(mask[perm])
        g.policies.append(board_policy[perm])
        g.players.append(player)
        g.decisions.append(g.moves)
        g.leads.append(self.outcomes.position_value(g.state))
        g.search_values.append(None if result is None else result.value)

    def _choose(self, g: _Game, result) -> int:
        if result.selected is not None:
            return result.selected
        visits = result.visits
        c = self.config
        if len(g.players) < c.temperature_moves and c.temperature > 0:
            weights = visits ** (1.0 / c.temperature)
            cum = np.cumsum(weights)
            return int(result.actions[np.searchsorted(cum, g.rng.random() * cum[-1],
                                                      side="right")])
        return int(result.actions[int(np.argmax(visits))])

    def _finish(self, g: _Game, cut: bool) -> SelfPlayGame:
        outcome = self.outcomes(g.state)
        maps = self.evaluator.maps
        if not g.players:  # only the random seat, the past self or the opponent moved
            n, a = self.game.num_players, self.game.num_actions
            samples = Samples(np.zeros((0, *self.encoder.shape), np.float32),
                              np.zeros((0, a), bool), np.zeros((0, a), np.float32),
                              np.zeros((0, n), np.float32))
        else:
            # g.moves counts the decision being recorded, so the last one is 1 from the end.
            targets = self.outcomes.targets(outcome, g.leads,
                                            [g.moves - d + 1 for d in g.decisions],
                                            g.search_values)
            values = np.stack([maps.values_to_rel(v, p)
                               for v, p in zip(targets, g.players, strict=True)])
            samples = Samples(np.stack(g.obs), np.stack(g.masks), np.stack(g.policies),
                              values.astype(np.float32))
        return SelfPlayGame(seed=g.seed, samples=samples, outcome=outcome, moves=g.moves,
                          cut=cut and not g.state.is_terminal(), random_seat=g.random_seat,
                          truncated=g.state.is_terminal() and g.state.is_truncated(),
                          actions=g.actions, simulations=g.simulations,
                          teacher_labels=g.teacher_labels,
                          network_seat=g.network_seat, others=g.others, opponent=g.opponent)

