"""PPO's rollout split into shards that any runner plays (training/runner.py).

The run's ``rollout.num_envs`` games are split into ``rollout.shards`` shards
(``RolloutConfig.shard_sizes``), each a :class:`training.ppo.rollout.Rollout` of its own games with
its own generator, seeded from the run seed and the shard's index. A shard's next rollout
depends only on its state, the weights and the opponent pool: not on which worker plays it nor
on the other shards, so ``runner=local``, ``processes`` and ``ray`` give the same data for the
same ``shards`` (one shard: exactly the unsharded rollout).

In the runner's terms:

- an item is a shard's state: plain data (its index, its generator, its games in flight as
  action histories, ``Rollout.state_dict``), which the learner keeps between iterations and
  saves in checkpoints;
- the round (:class:`RolloutRound`) is the learner's weights, its opponent pool's state and the
  weights of snapshots that have left the pool while a game of some shard still faces one;
- a result (:class:`ShardResult`) is the shard's transitions with their GAE advantages and
  returns, its finished games and its new state.

Each shard plays against its own copy of the round's pool: the scores its finished games record
steer its own later draws (the prioritised scheme) but not another shard's, whichever worker
plays which. The learner records every shard's games in its pool afterwards, in shard order.

A worker keeps the shards it has played in memory: when a task's shard state equals the state
the worker returned for it last, it plays on from there; otherwise (another worker played the
shard since, a new worker after a restart, a resume) it rebuilds the shard from the state by
replaying its games' actions. Both give the same rollout; the state travels with every task
either way (kilobytes: actions), so nothing depends on where a shard was played before.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import torch

import envs
from agents import make_agent
from models.features import make_encoder
from models.nets import ModelConfig, network_for
from training.pool import OpponentPool, PoolConfig
from training.ppo.rollout import Episode, Rollout, RolloutConfig, gae
from training.ppo.shaping import Potential, ShapingConfig
from training.rewards import Outcomes, RewardConfig
from training.saving import numpy_rng_state, restore_numpy_rng


def new_shard(run_seed: int, index: int) -> dict:
    """Shard ``index``'s state before its first rollout: no games yet, a generator seeded from
    the run seed and the index. (Shard 0's is the unsharded rollout's ``[seed, 4]``: numpy's
    seed sequences ignore trailing zeros.)"""
    return {"index": index, "rng": numpy_rng_state(np.random.default_rng([run_seed, 4, index])),
            "games": [], "agent_steps": 0}


@dataclass
class RolloutRound:
    """What the learner sends the rollout workers for one iteration."""

    weights: dict  # the learner's network
    pool: dict  # its OpponentPool.state_dict()
    retired: dict[int, dict]  # snapshot key -> weights: left the pool, still faced in a game


@dataclass
class Transitions:
    """A rollout's learner transitions, ready for PPO's update: what was played and the GAE
    advantages and returns (``training.ppo.rollout.gae``) of each."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    logp: np.ndarray
    value: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray

    def __len__(self) -> int:
        return len(self.action)

    @classmethod
    def concat(cls, parts: list[Transitions]) -> Transitions:
        if len(parts) == 1:
            return parts[0]
        return cls(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in cls.__dataclass_fields__))


@dataclass
class ShardResult:
    state: dict  # the shard after this rollout: the item of its next one
    transitions: Transitions
    episodes: list[Episode]  # games finished in this rollout, in the order they ended
    agent_steps: int  # decisions of every seat in this rollout


class RolloutWorker:
    """Plays shards: ``start_round(r)`` takes the learner's latest, ``play(shards)`` returns a
    :class:`ShardResult` per shard state, in order."""

    def __init__(self, game, encoder, net: torch.nn.Module, config: RolloutConfig,
                 pool_config: PoolConfig, outcomes: Outcomes, potential: Potential, gamma: float,
                 gae_lambda: float, make_net, make_agent):
        self.game, self.encoder, self.net = game, encoder, net
        self.config, self.pool_config = config, pool_config
        self.outcomes, self.potential = outcomes, potential
        self.gamma, self.gae_lambda = gamma, gae_lambda
        self.make_net, self.make_agent = make_net, make_agent
        self.round: RolloutRound | None = None
        self.played: dict[int, tuple[dict, Rollout]] = {}  # index -> (state returned, rollout)

    def start_round(self, rollout_round: RolloutRound) -> None:
        self.net.load_state_dict(rollout_round.weights)
        self.round = rollout_round

    def play(self, shards: list[dict]) -> list[ShardResult]:
        return [self._play(shard) for shard in shards]

    def _play(self, shard: dict) -> ShardResult:
        rollout = self._rollout(shard)
        batch, episodes, stats = rollout.collect()
        advantages, returns = gae(batch, self.gamma, self.gae_lambda, rollout.num_envs)
        state = {"index": shard["index"], **rollout.state_dict()}
        self.played[shard["index"]] = (state, rollout)
        return ShardResult(state, Transitions(batch.obs, batch.mask, batch.action, batch.logp,
                                              batch.value, advantages, returns),
                           episodes, stats["rollout/agent_steps"])

    def _rollout(self, shard: dict) -> Rollout:
        """The shard as ``shard`` describes it, against its own copy of the round's pool."""
        pool = OpponentPool(self.pool_config)
        pool.load_state_dict(self.round.pool)
        played = self.played.get(shard["index"])
        if played is not None and played[0] == shard:
            rollout = played[1]
            rollout.attach(pool, self.round.retired)
            return rollout
        rollout = Rollout(self.game, self.encoder, self.net, pool, self.config,
                          self.config.shard_sizes()[shard["index"]], self.outcomes,
                          self.potential, self.gamma, restore_numpy_rng(shard["rng"]),
                          self.make_net, self.make_agent)
        rollout.load_state_dict(shard, self.round.retired)
        return rollout


@dataclass(frozen=True)
class RolloutFactory:
    """Builds a rollout worker from plain data (picklable for worker processes and actors)."""

    env_config: dict
    model_config: ModelConfig
    rollout: RolloutConfig
    pool: PoolConfig
    rewards: RewardConfig
    shaping: ShapingConfig
    gamma: float
    gae_lambda: float

    def __call__(self) -> RolloutWorker:
        game = envs.make_game(self.env_config)
        encoder = make_encoder(game, self.model_config.features)
        make_net = partial(network_for, game, encoder, self.model_config)
        return RolloutWorker(game, encoder, make_net().eval(), self.rollout, self.pool,
                             Outcomes(game, self.rewards),
                             Potential(game, self.shaping, self.rewards), self.gamma,
                             self.gae_lambda, make_net, make_agent)
