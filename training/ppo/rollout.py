"""Vectorised self-play rollouts for PPO: ``num_envs`` games stepped in lockstep.

The engines are stepped directly (the PettingZoo env is a façade over the same engine): the
observation is the game's ``Encoder`` output from the mover's view, exactly what the env shows
(plus any ``model.features`` planes, as every consumer of the network sees them), and chance
nodes are resolved as the env resolves them, by drawing an outcome with the engine's
probabilities from a seeded generator.

One rollout step gives every game one decision of the learner: a single batched forward pass
over all games, masked sampling, then the opponents' seats play (batched per opponent
snapshot, one forward for all games facing it) until each game is back at a learner seat or
over. A finished game is restarted at once with fresh seats and a fresh opponent from the pool.
So a rollout is a ``[num_steps, num_envs]`` grid of learner transitions, as in single-agent PPO.

Rewards of a learner transition accrue until that seat's next decision: the game's result when
it ends (engine returns, or ``rewards.adjudication`` for a truncated game) and, with shaping on,
``gamma * phi(next) - phi(now)`` for the seat's potential ``phi`` (0 at the end). Potential-based
shaping (Ng et al. 1999) leaves the optimal policies unchanged while giving every move a signal.

Everything random (seats, opponents, dice, sampled actions, baseline agents' seeds) comes from
one generator, so a rollout depends only on its generator's state, its games in flight, the
weights and the opponent pool. Its state (``state_dict``: the generator and the games in flight
as their action histories) is plain data, rebuilt by replaying the actions, which makes a resume
exact and lets any worker play it on (training/ppo/shards.py: a run's ``num_envs`` games
split into ``shards`` such rollouts).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import torch

from agents.base import BatchingAgent
from envs.core import sample_chance
from models.views import ViewMaps, encode_batch
from training.learner import masked_log_policy
from training.pool import Entry, OpponentPool
from training.ppo.shaping import Potential
from training.rewards import Outcomes
from training.saving import numpy_rng_state, restore_numpy_rng


@contextmanager
def without_onednn() -> Iterator[None]:
    """PyTorch's own CPU convolutions inside the block: for the rollout's narrow convolutions
    (the compact net's 25 -> 8 channels, 3x3) they run about 1.7x faster at batch 64 than
    oneDNN's, which reorders the weights on every call; training's backward keeps oneDNN,
    faster there (benchmarks/rollout_speed.py)."""
    previous = torch.backends.mkldnn.enabled
    torch.backends.mkldnn.enabled = False
    try:
        yield
    finally:
        torch.backends.mkldnn.enabled = previous


def resolve_chance(state, rng: np.random.Generator, actions: list[int]) -> None:
    """Draw chance outcomes with the engine's probabilities until a decision or the end."""
    while state.is_chance_node():
        chosen = sample_chance(state, rng)
        state.apply_action(chosen)
        actions.append(chosen)


def sample_masked(log_policy: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row drawn from ``exp(log_policy)``: one uniform draw per row, placed on
    the row's cumulative probabilities (a third of the Gumbel-max trick's cost, which draws a
    variate per action). Masked actions carry log-probabilities near -1e9
    (``masked_log_policy``), so probability 0: the cumulative sum does not rise over them and
    no draw lands on one."""
    cumulative = np.cumsum(np.exp(log_policy), axis=1)
    u = rng.random(len(cumulative)) * cumulative[:, -1]
    actions = (cumulative <= u[:, None]).sum(axis=1)
    past_end = actions == cumulative.shape[1]  # u rounded up to the total: p ~ 2^-53
    actions[past_end] = log_policy[past_end].argmax(axis=1)
    return actions


@dataclass(frozen=True)
class RolloutConfig:
    """``algo.rollout``."""

    # games stepped in lockstep; one batched forward pass per step
    num_envs: int = 64
    # learner decisions per game per iteration (batch = envs * steps)
    num_steps: int = 32
    # seats per game the learner plays; the others are one opponent from the pool
    # (= num_players: plain latest-vs-latest self-play)
    learner_seats: int = 1
    # independent rollouts the games are split into, each with its own games and generator:
    # runner=processes/ray play them on their workers (set it to runner.workers or a multiple);
    # the data depend on shards, not on the runner (training/ppo/shards.py)
    shards: int = 1

    def __post_init__(self):
        if self.num_envs < 1 or self.num_steps < 1 or self.learner_seats < 1:
            raise ValueError("num_envs, num_steps and learner_seats must be >= 1, got "
                             f"{self.num_envs}, {self.num_steps}, {self.learner_seats}")
        if not 1 <= self.shards <= self.num_envs:
            raise ValueError(f"rollout.shards must be in [1, num_envs={self.num_envs}], got "
                             f"{self.shards}")

    def check(self, game) -> None:
        if self.learner_seats > game.num_players:
            raise ValueError(f"learner_seats={self.learner_seats} exceeds the game's "
                             f"{game.num_players} players")

    def shard_sizes(self) -> list[int]:
        """Games per shard: ``num_envs`` split as evenly as it goes, the larger shards first."""
        small, larger = divmod(self.num_envs, self.shards)
        return [small + (i < larger) for i in range(self.shards)]


@dataclass
class Batch:
    """Learner transitions of one rollout, flat ``[num_steps * num_envs]`` in step order.

    ``next_index[j]``: the same seat's next transition in this batch (-1: none); ``done[j]``:
    the game ended before that seat moved again; ``bootstrap[j]``: the value estimate where the
    rollout stopped, for transitions with neither.
    """

    obs: np.ndarray
    mask: np.ndarray  # legal view actions
    action: np.ndarray  # view actions
    logp: np.ndarray
    value: np.ndarray
    reward: np.ndarray
    done: np.ndarray
    next_index: np.ndarray
    bootstrap: np.ndarray

    @classmethod
    def empty(cls, size: int, obs_shape, num_actions: int) -> Batch:
        return cls(np.zeros((size, *obs_shape), np.float32), np.zeros((size, num_actions), bool),
                   np.zeros(size, np.int64), np.zeros(size, np.float32),
                   np.zeros(size, np.float32), np.zeros(size, np.float32),
                   np.zeros(size, bool), np.full(size, -1, np.int64),
                   np.zeros(size, np.float32))


def gae(batch: Batch, gamma: float, lam: float, num_envs: int) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns by GAE(lambda) along each seat's chain of transitions
    (``next_index``), newest step first; a chain ends in a finished game (value 0) or in the
    rollout's bootstrap value."""
    adv = np.zeros_like(batch.reward)
    for row in reversed(range(0, len(adv), num_envs)):
        j = np.arange(row, row + num_envs)
        nxt, done = batch.next_index[j], batch.done[j]
        linked = (nxt >= 0) & ~done
        next_value = np.where(linked, batch.value[nxt], np.where(done, 0.0, batch.bootstrap[j]))
        delta = batch.reward[j] + gamma * next_value - batch.value[j]
        adv[j] = delta + gamma * lam * np.where(linked, adv[nxt], 0.0)
    return adv, adv + batch.value


@dataclass
class Episode:
    """A finished game, from the learner's side."""

    opponent: int | str | None  # pool key; None when the learner held every seat
    learner_return: float  # engine return, mean over the learner's seats (unshaped)
    decisions: int  # agent steps of all seats
    truncated: bool

    def opponent_score(self) -> float:
        """The opponent's score, as the pool records it: 1 it won, 1/2 neither, 0 it lost."""
        return 0.5 - 0.5 * float(np.sign(self.learner_return))


@dataclass
class Slot:
    """One game of the vector, with who plays which seat."""

    state: object
    learner: np.ndarray  # bool per seat
    opponent: Entry | None
    agent_seeds: dict[int, int]  # baseline agents: seat -> the seed it was reset with
    actions: list[int] = field(default_factory=list)  # every applied action, chance included
    decisions: int = 0
    open: dict[int, int] = field(default_factory=dict)  # seat -> transition awaiting its next
    phi: dict[int, float] = field(default_factory=dict)  # seat -> potential at that transition


class Rollout:
    """A vector of ``num_envs`` games and the step loop; ``collect()`` returns one rollout's
    transitions. The opponents come from ``pool``, whose scores the finished games update.

    ``make_net()`` builds a network of the learner's shape for opponent snapshots;
    ``make_agent(spec, game)`` builds baseline agents (``agents.make_agent``).
    """

    def __init__(self, game, encoder, net: torch.nn.Module, pool: OpponentPool,
                 config: RolloutConfig, num_envs: int, outcomes: Outcomes, potential: Potential,
                 gamma: float, rng: np.random.Generator,
                 make_net: Callable[[], torch.nn.Module], make_agent: Callable | None = None):
        config.check(game)
        self.game = game
        self.encoder = encoder
        self.net = net
        self.pool = pool
        self.config = config
        self.num_envs = num_envs
        self.outcomes = outcomes
        self.potential = potential
        self.gamma = gamma
        self.rng = rng
        self.make_net = make_net
        self.make_agent = make_agent
        self.maps = ViewMaps(encoder, game.num_players)
        self.opponent_nets: dict[int, torch.nn.Module] = {}
        self.agents: dict = {}  # (slot, seat, spec) -> its Agent; spec -> the one built first
        self.slots: list[Slot] = []
        self.agent_steps = 0

    # -- games ------------------------------------------------------------------------------

    def _new_game(self, index: int) -> Slot:
        n, k = self.game.num_players, self.config.learner_seats
        learner = np.zeros(n, bool)
        learner[self.rng.choice(n, k, replace=False)] = True
        opponent = self.pool.sample(self.rng) if k < n else None
        seeds = {}
        if opponent is not None and isinstance(opponent.key, str):
            for seat in np.flatnonzero(~learner):
                seeds[int(seat)] = int(self.rng.integers(2**31))
        slot = Slot(self.game.new_initial_state(), learner, opponent, seeds)
        for seat, seed in seeds.items():
            self._agent(index, seat, opponent.key).reset(self.game, seat, seed)
        resolve_chance(slot.state, self.rng, slot.actions)
        return slot

    def _agent(self, index: int, seat: int, spec: str):
        """The baseline agent ``spec`` of slot ``index``'s seat: one per seat of every game,
        forks of one built agent where it has a network (loaded once, not per seat)."""
        key = (index, seat, spec)
        if key not in self.agents:
            if self.make_agent is None:
                raise ValueError(f"baseline opponent {spec!r} needs make_agent")
            if spec not in self.agents:
                self.agents[spec] = self.make_agent(spec, self.game)
            base = self.agents[spec]
            self.agents[key] = (base.fork() if isinstance(base, BatchingAgent)
                                else self.make_agent(spec, self.game))
        return self.agents[key]

    def _opponent_net(self, entry: Entry) -> torch.nn.Module:
        net = self.opponent_nets.get(entry.key)
        if net is None:
            in_use = {s.opponent.key for s in self.slots if s.opponent is not None}
            for key in [k for k in self.opponent_nets if k not in in_use]:
                del self.opponent_nets[key]
            net = self.make_net()
            net.load_state_dict(entry.weights)
            self.opponent_nets[entry.key] = net.eval()
        return net

    def _apply(self, slot: Slot, action: int) -> None:
        slot.state.apply_action(action)
        slot.actions.append(action)
        slot.decisions += 1
        self.agent_steps += 1
        resolve_chance(slot.state, self.rng, slot.actions)

    def _learner_to_move(self, slot: Slot) -> bool:
        return slot.learner[slot.state.current_player()]

    # -- the step loop ----------------------------------------------------------------------

    def start(self) -> None:
        """Fresh games in every slot, each advanced to a learner decision."""
        self.slots = [self._new_game(i) for i in range(self.num_envs)]
        self._advance(None, [])

    def collect(self) -> tuple[Batch, list[Episode], dict]:
        if not self.slots:
            self.start()
        n_envs, steps = self.num_envs, self.config.num_steps
        batch = Batch.empty(n_envs * steps, self.encoder.shape, self.game.num_actions)
        episodes: list[Episode] = []
        start, agent_steps = time.perf_counter(), self.agent_steps
        for t in range(steps):
            self._learner_step(batch, t * n_envs)
            self._advance(batch, episodes)
        self._bootstrap(batch)
        seconds = time.perf_counter() - start
        return batch, episodes, {"rollout/agent_steps": self.agent_steps - agent_steps,
                                 "rollout/seconds": seconds}

    def _learner_step(self, batch: Batch, row: int) -> None:
        """One batched decision of the learner in every game."""
        perms = self.maps.perms
        players = [slot.state.current_player() for slot in self.slots]
        rows = slice(row, row + len(self.slots))
        batch.obs[rows] = encode_batch(self.encoder, [slot.state for slot in self.slots], players)
        for i, (slot, player) in enumerate(zip(self.slots, players, strict=True)):
            batch.mask[row + i] = slot.state.legal_actions_mask()[perms[player]]
        logits, values = self._forward(self.net, batch.obs[rows])
        log_policy = masked_log_policy(logits, torch.from_numpy(batch.mask[rows])).numpy()
        actions = sample_masked(log_policy, self.rng)
        batch.action[rows] = actions
        batch.logp[rows] = log_policy[np.arange(len(actions)), actions]
        batch.value[rows] = values[:, 0].numpy()
        phis = self.potential([slot.state for slot in self.slots])
        for i, (slot, player, action) in enumerate(zip(self.slots, players, actions,
                                                        strict=True)):
            self._link(batch, slot, player, row + i, float(phis[i, player]))
            self._apply(slot, int(perms[player][action]))

    def _forward(self, net: torch.nn.Module, obs: np.ndarray) -> tuple[torch.Tensor, ...]:
        with torch.inference_mode(), without_onednn():
            return net(torch.from_numpy(obs))

    def _link(self, batch: Batch, slot: Slot, seat: int, j: int, phi: float) -> None:
        """Transition ``j`` of ``seat``, at potential ``phi``, becomes the successor of its open
        one."""
        previous = slot.open.get(seat)
        if previous is not None:
            batch.next_index[previous] = j
            batch.reward[previous] += self.gamma * phi - slot.phi[seat]
        slot.open[seat] = j
        slot.phi[seat] = phi

    def _advance(self, batch: Batch | None, episodes: list[Episode]) -> None:
        """Opponents play, batched per opponent, until every game waits for the learner;
        finished games are scored and restarted."""
        while True:
            for i, slot in enumerate(self.slots):
                if slot.state.is_terminal():
                    self._finish(batch, slot, episodes)
                    self.slots[i] = self._new_game(i)
            waiting = [i for i, s in enumerate(self.slots) if not self._learner_to_move(s)]
            if not waiting:
                return
            groups: dict[int | str, list[int]] = {}
            for i in waiting:
                groups.setdefault(self.slots[i].opponent.key, []).append(i)
            for indices in groups.values():
                self._opponents_move(indices)

    def _opponents_move(self, indices: list[int]) -> None:
        entry = self.slots[indices[0]].opponent
        if isinstance(entry.key, str):  # a baseline agent per seat
            agents = [self._agent(i, self.slots[i].state.current_player(), entry.key)
                      for i in indices]
            states = [self.slots[i].state for i in indices]
            base = self.agents[entry.key]
            # A network agent answers all its games in one search, one network batch per
            # simulation step, with the moves its act() would choose game by game: an
            # exploiter of a searching zoo agent spends its minutes learning, not waiting.
            actions = (base.act_batch(agents, states) if isinstance(base, BatchingAgent)
                       else [agent.act(state) for agent, state in zip(agents, states,
                                                                      strict=True)])
            for i, action in zip(indices, actions, strict=True):
                self._apply(self.slots[i], int(action))
            return
        net, perms = self._opponent_net(entry), self.maps.perms
        players = [self.slots[i].state.current_player() for i in indices]
        obs = encode_batch(self.encoder, [self.slots[i].state for i in indices], players)
        mask = np.stack([self.slots[i].state.legal_actions_mask()[perms[p]]
                         for i, p in zip(indices, players, strict=True)])
        logits, _ = self._forward(net, obs)
        log_policy = masked_log_policy(logits, torch.from_numpy(mask)).numpy()
        for i, p, action in zip(indices, players, sample_masked(log_policy, self.rng),
                                strict=True):
            self._apply(self.slots[i], int(perms[p][action]))

    def _finish(self, batch: Batch | None, slot: Slot, episodes: list[Episode]) -> None:
        outcome = self.outcomes(slot.state)
        returns = slot.state.returns()
        for seat, j in slot.open.items():
            if batch is not None:
                batch.reward[j] += outcome[seat] - slot.phi[seat]
                batch.done[j] = True
        episode = Episode(None if slot.opponent is None else slot.opponent.key,
                          float(np.mean(returns[slot.learner])), slot.decisions,
                          bool(slot.state.is_truncated()))
        if slot.opponent is not None:
            self.pool.record(slot.opponent.key, episode.opponent_score())
        episodes.append(episode)

    def _bootstrap(self, batch: Batch) -> None:
        """Close the rollout: every open transition gets the shaping up to here and the value of
        the current position from its seat's view (the mover's own for the usual one seat)."""
        pending = [(slot, seat, j) for slot in self.slots for seat, j in slot.open.items()]
        if not pending:  # every game ended on the last step
            return
        obs = encode_batch(self.encoder, [slot.state for slot, _, _ in pending],
                           [seat for _, seat, _ in pending])
        _, values = self._forward(self.net, obs)
        phis = self.potential([slot.state for slot, _, _ in pending])
        for (slot, seat, j), value, phi in zip(pending, values[:, 0].numpy(), phis,
                                               strict=True):
            batch.reward[j] += self.gamma * float(phi[seat]) - slot.phi[seat]
            batch.bootstrap[j] = value
        for slot in self.slots:
            slot.open, slot.phi = {}, {}

    # -- state ------------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """The generator and the games in flight as plain data: seats, opponent key, baseline
        seeds and the actions played so far."""
        games = [{"learner": slot.learner.tolist(), "actions": list(slot.actions),
                  "decisions": slot.decisions,
                  "agent_seeds": {str(k): v for k, v in slot.agent_seeds.items()},
                  "opponent": None if slot.opponent is None else slot.opponent.key}
                 for slot in self.slots]
        return {"rng": numpy_rng_state(self.rng), "games": games,
                "agent_steps": self.agent_steps}

    def load_state_dict(self, state: dict, retired: dict[int, dict]) -> None:
        """Rebuild the games by replaying their actions; baseline agents replay their moves too,
        so their per-game state is as it was. ``retired``: the weights of snapshots that have
        left the pool, by key, for games that still face one."""
        self.rng = restore_numpy_rng(state["rng"])
        self.slots = []
        for index, g in enumerate(state["games"]):
            seeds = {int(k): v for k, v in g["agent_seeds"].items()}
            slot = Slot(self.game.new_initial_state(), np.array(g["learner"], bool),
                        self._entry(g["opponent"], retired), seeds, decisions=g["decisions"])
            for seat, seed in seeds.items():
                self._agent(index, seat, g["opponent"]).reset(self.game, seat, seed)
            for action in g["actions"]:
                player = slot.state.current_player()
                if player in seeds:
                    replayed = self._agent(index, player, g["opponent"]).act(slot.state)
                    assert replayed == action, "baseline agent replays differently"
                slot.state.apply_action(action)
                slot.actions.append(action)
            self.slots.append(slot)
        self.agent_steps = int(state["agent_steps"])

    def attach(self, pool: OpponentPool, retired: dict[int, dict]) -> None:
        """Play on against ``pool`` (a new round's copy of the learner's): the games in flight
        face the same opponents, looked up by key."""
        self.pool = pool
        for slot in self.slots:
            slot.opponent = self._entry(None if slot.opponent is None else slot.opponent.key,
                                        retired)

    def _entry(self, key: int | str | None, retired: dict[int, dict]) -> Entry | None:
        if key is None:
            return None
        entry = self.pool.entry(key)
        if entry is None:  # a snapshot that has left the pool since the game began
            entry = Entry(key, weights=retired[key])
        return entry
