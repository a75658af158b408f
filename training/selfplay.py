"""Self-play: many games at once in one process, each with its own search tree and generator,
their leaf evaluations batched together through :func:`search.puct.search`.

A game's course depends only on its seed and the network weights, never on which other games
share the process or the batch, so any split of seeds over workers gives the same records.

With ``teacher_share`` > 0, that share of the network's decisions in games against a random
seat gets the teacher's choice (``teacher``, an agent spec) as its policy target instead of the
search's: the warm start's student round (DAgger) carried on through self-play, so the
teacher keeps labelling the positions the current network reaches in the games it is evaluated
in. Which decisions are labelled, and the teacher's tie-breaking, come from generators of the
game's own seed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Annotated

import numpy as np

from envs.core import sample_chance
from models.evaluator import NetworkEvaluator
from search.puct import SearchConfig, search
from training.replay import Samples
from training.rewards import Outcomes


@dataclass(frozen=True)
class SelfPlayConfig:
    concurrent_games: int = 32
    temperature: Annotated[float, ">= 0"] = 1.0
    temperature_moves: Annotated[int, ">= 0"] = 20
    max_moves: int | None = None
    random_opponent_fraction: float = 0.0
    teacher: str = "heuristic"
    teacher_share: float = 0.0

    def __post_init__(self):
        if not 0.0 <= self.teacher_share <= 1.0:
            raise ValueError(f"selfplay.teacher_share must be in [0, 1], got {self.teacher_share}")
        if not 0.0 <= self.random_opponent_fraction <= 1.0:
            raise ValueError("selfplay.random_opponent_fraction must be in [0, 1], got "
                             f"{self.random_opponent_fraction}")
        if self.concurrent_games < 1:
            raise ValueError(f"selfplay.concurrent_games must be >= 1, got {self.concurrent_games}")
        if self.max_moves is not None and self.max_moves < 1:
            raise ValueError(f"selfplay.max_moves must be >= 1 or null, got {self.max_moves}")


@dataclass
class GameRecord:
    """One finished self-play game: its training samples and what is needed to replay it."""

    seed: int
    samples: Samples
    outcome: np.ndarray  # value per player (engine returns, or adjudicated)
    moves: int  # decisions played
    cut: bool  # stopped by selfplay.max_moves before the game ended
    random_seat: int | None  # the seat played at random (selfplay.random_opponent_fraction)
    truncated: bool  # ended by the engine's turn limit without a result
    actions: list[int] = field(default_factory=list)  # every applied action, chance included
    simulations: int = 0
    teacher_labels: int = 0  # recorded decisions whose policy target is the teacher's choice


class _Game:
    def __init__(self, game, seed: int, random_opponent_fraction: float):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.state = game.new_initial_state()
        self.actions: list[int] = []
        self.obs, self.masks, self.policies, self.players = [], [], [], []
        self.decisions: list[int] = []  # the game's decision count at each recorded position
        self.leads: list[np.ndarray | None] = []  # position values for rewards.position_weight
        self.simulations = 0
        self.teacher_labels = 0
        self.label_rng = np.random.default_rng([seed, 1])  # which decisions the teacher labels
        self.moves = 0
        # A seat played uniformly at random (not recorded): games the network can win, so the
        # win signal appears even while self-play between equals never finishes.
        self.random_seat = None
        if random_opponent_fraction and self.rng.random() < random_opponent_fraction:
            self.random_seat = int(self.rng.integers(game.num_players))

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
    """Plays self-play games with the given network; ``play(seeds)`` returns their records in
    seed order."""

    def __init__(self, game, encoder, net, search_config: SearchConfig, config: SelfPlayConfig,
                 outcomes: Outcomes):
        self.game = game
        self.encoder = encoder
        self.net = net
        self.search_config = search_config
        self.config = config
        self.outcomes = outcomes
        self.evaluator = NetworkEvaluator(net, encoder, game.num_players)
        self.teacher = None
        if config.teacher_share:
            from agents import make_agent

            self.teacher = make_agent(config.teacher, game)

    def set_weights(self, weights: dict) -> None:
        self.net.load_state_dict(weights)
        self.evaluator.refresh()

    def play(self, seeds: list[int]) -> list[GameRecord]:
        pending = deque(seeds)
        active: list[_Game] = []
        records: dict[int, GameRecord] = {}
        while pending or active:
            while pending and len(active) < self.config.concurrent_games:
                g = _Game(self.game, pending.popleft(), self.config.random_opponent_fraction)
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
        """One decision in every game: search where there is a choice, then act."""
        masks = [g.state.legal_actions_mask() for g in games]
        randomly = [g.state.current_player() == g.random_seat for g in games]
        choice = [i for i, m in enumerate(masks) if m.sum() > 1 and not randomly[i]]
        results = dict(zip(choice, search([games[i].state for i in choice], self.evaluator,
                                          self.search_config, [games[i].rng for i in choice],
                                          add_noise=True, terminal_value=self.outcomes),
                           strict=True))
        for i, g in enumerate(games):
            g.moves += 1
            if randomly[i]:
                legal = np.flatnonzero(masks[i])
                g.apply(int(legal[g.rng.integers(len(legal))]))
                continue
            player = g.state.current_player()
            perm = self.evaluator.maps.perms[player]
            board_policy = np.zeros(self.game.num_actions, dtype=np.float32)
            if i in results:
                r = results[i]
                board_policy[r.actions] = r.policy
                action = self._choose(g, r)
                g.simulations += self.search_config.simulations
                if (self.teacher is not None and g.random_seat is not None
                        and g.label_rng.random() < self.config.teacher_share):
                    self.teacher.reset(self.game, player, int(g.label_rng.integers(2**31)))
                    board_policy[:] = 0.0
                    board_policy[self.teacher.act(g.state.clone())] = 1.0
                    g.teacher_labels += 1
            else:
                action = int(np.flatnonzero(masks[i])[0])
                board_policy[action] = 1.0
            g.obs.append(self.encoder.encode(g.state, player))
            g.masks.append(masks[i][perm])
            g.policies.append(board_policy[perm])
            g.players.append(player)
            g.decisions.append(g.moves)
            g.leads.append(self.outcomes.position_value(g.state))
            g.apply(action)

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

    def _finish(self, g: _Game, cut: bool) -> GameRecord:
        outcome = self.outcomes(g.state)
        maps = self.evaluator.maps
        if not g.players:  # only the random seat moved
            n, a = self.game.num_players, self.game.num_actions
            samples = Samples(np.zeros((0, *self.encoder.shape), np.float32),
                              np.zeros((0, a), bool), np.zeros((0, a), np.float32),
                              np.zeros((0, n), np.float32))
        else:
            # g.moves counts the decision being recorded, so the last one is 1 from the end.
            targets = self.outcomes.targets(outcome, g.leads,
                                            [g.moves - d + 1 for d in g.decisions])
            values = np.stack([maps.values_to_rel(v, p)
                               for v, p in zip(targets, g.players, strict=True)])
            samples = Samples(np.stack(g.obs), np.stack(g.masks), np.stack(g.policies),
                              values.astype(np.float32))
        return GameRecord(seed=g.seed, samples=samples, outcome=outcome, moves=g.moves,
                          cut=cut and not g.state.is_terminal(), random_seat=g.random_seat,
                          truncated=g.state.is_terminal() and g.state.is_truncated(),
                          actions=g.actions, simulations=g.simulations,
                          teacher_labels=g.teacher_labels)

