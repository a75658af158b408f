"""PPO by self-play against an opponent pool, for any game of the engine contract.

Masked PPO (Schulman et al. 2017) in the shape of CleanRL's ``ppo.py``: clipped surrogate,
GAE, optional value clipping, entropy bonus, per-minibatch advantage normalisation, gradient
clipping, linear learning-rate annealing. One network serves every seat: it sees the board from
the mover's view (the game's encoder) and outputs view-action logits and a value per relative
seat, of which PPO uses the mover's (relative seat 0). Illegal actions are masked out of the
policy everywhere (sampling, ratios, entropy).

Each iteration: ``rollout.num_steps`` lockstep steps of ``rollout.num_envs`` games
(training/ppo/rollout.py; the opponents' seats are played by snapshots from the pool,
training/pool.py) -> GAE -> ``update_epochs`` passes of minibatch updates -> every
``pool.snapshot_every`` iterations the current weights join the pool. The games are split into
``rollout.shards`` independent shards, which the runner's workers play (training/runner.py,
training/ppo/shards.py: each worker returns its shards' transitions with GAE done), so the
data are the same under every runner. Periodic evaluation goes through the arena
(training/evaluation.py); checkpoints hold the weights, the optimiser, the pool, the shards (their
games in flight and generators) and the minibatch generator, so a resumed run repeats an
uninterrupted one, under any runner.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Annotated

import numpy as np
import torch

from agents.network import Acting
from models.checkpoint import CheckpointError
from training.algorithm import CheckpointConfig, LoopConfig, NetworkAlgorithm, Step
from training.evaluation import TrainingEvalConfig
from training.learner import Learner, LearnerConfig, masked_log_policy
from training.pool import OpponentPool, PoolConfig
from training.ppo.rollout import Episode, RolloutConfig
from training.ppo.shaping import ShapingConfig, check_potential
from training.ppo.shards import (
    RolloutFactory,
    RolloutRound,
    ShardResult,
    Transitions,
    new_shard,
)
from training.rewards import Outcomes, RewardConfig
from training.runner import make_runner
from training.saving import numpy_rng_state, restore_numpy_rng
from training.warmstart import WarmStartConfig, warm_start


@dataclass(frozen=True)
class LossConfig:
    """``algo.loss``: the clipped PPO objective."""

    # discount per learner decision (Blockade: ~120 a game)
    gamma: float = 0.995
    # GAE(lambda) bias/variance trade-off
    gae_lambda: float = 0.95
    # PPO ratio clip (also the value clip)
    clip_coef: float = 0.2
    # clip the value update around the rollout's values
    clip_vloss: bool = True
    # weight of the value loss
    vf_coef: Annotated[float, ">= 0"] = 0.5
    # entropy bonus (over legal actions only)
    ent_coef: Annotated[float, ">= 0"] = 0.01
    # normalise advantages per minibatch
    norm_adv: bool = True

    def __post_init__(self):
        if not (0 < self.gamma <= 1 and 0 <= self.gae_lambda <= 1 and self.clip_coef > 0):
            raise ValueError("need 0 < gamma <= 1, 0 <= gae_lambda <= 1 and clip_coef > 0, got "
                             f"{self.gamma}, {self.gae_lambda}, {self.clip_coef}")


@dataclass(frozen=True)
class OptimConfig:
    """``algo.optim``: the update."""

    # Adam learning rate (eps 1e-5, as in CleanRL)
    lr: float = 2.5e-4
    # decay the learning rate linearly to 0 over the run
    anneal_lr: bool = True
    # passes over each rollout
    update_epochs: int = 4
    # transitions per gradient step
    minibatch_size: int = 512
    # gradient clipping
    max_grad_norm: Annotated[float, "> 0"] = 0.5

    def __post_init__(self):
        if self.lr <= 0 or self.update_epochs < 1 or self.minibatch_size < 1:
            raise ValueError("optim.lr, optim.update_epochs and optim.minibatch_size must be "
                             f"positive, got {self.lr}, {self.update_epochs}, "
                             f"{self.minibatch_size}")


@dataclass(frozen=True)
class PPOConfig(LoopConfig):
    """``algo=ppo``: every default of a PPO run. They train any game in about 10 minutes on
    2 CPU cores: a heuristic warm start, then self-play against the pool of past selves with
    random as a baseline in half the games, and shaped rewards (docs/ppo.md)."""

    name: str = "ppo"
    iterations: Annotated[int, ">= 1"] | None = 1000
    console_every: Annotated[int, ">= 0"] = 10
    time_limit_minutes: Annotated[float, "> 0"] | None = 10.0
    # the lockstep games of one iteration
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    # the clipped objective
    loss: LossConfig = field(default_factory=LossConfig)
    # the update
    optim: OptimConfig = field(default_factory=OptimConfig)
    # adjudication none: it pays a walled-in opponent's lead as much as a win, so the policy
    # would learn to trap and wait; shaping gives the dense signal without that (docs/ppo.md)
    rewards: RewardConfig = field(default_factory=lambda: RewardConfig(adjudication="none"))
    # each seat's lead as the shaping potential, in [-1, 1]
    shaping: ShapingConfig = field(default_factory=lambda: ShapingConfig(
        potential="distance", weight=1.0))
    # fitted to 80 heuristic games first: Blockade from scratch wins no game against random in
    # 10 minutes
    warm_start: WarmStartConfig = field(default_factory=lambda: WarmStartConfig(
        games=80, steps=400))
    # random as a baseline in half the games: Blockade self-play never finishes a game (both
    # sides wall each other in), so only games against random pay a real win (docs/ppo.md)
    pool: PoolConfig = field(default_factory=lambda: PoolConfig(
        baselines=("random",), baseline_share=0.5))
    # the trained agent samples the stochastic policy PPO optimises
    eval: TrainingEvalConfig = field(default_factory=lambda: TrainingEvalConfig(
        every=25, temperature=1.0))
    # PPO's iterations are short: a checkpoint every 10
    checkpoint: CheckpointConfig = field(default_factory=lambda: CheckpointConfig(every=10))

    def __post_init__(self):
        super().__post_init__()
        if self.warm_start.student_games or self.warm_start.keep:
            raise ValueError("algo.warm_start.student_games and keep: PPO's warm start has no "
                             "student round and no replay buffer to keep samples in "
                             "(AlphaZero's has both); set them to 0 and false")

    def opponents(self) -> dict[str, list[str]]:
        """The agent specs the network plays games against, by key (the panel's check)."""
        return {"algo.pool.baselines": list(self.pool.baselines) * bool(self.pool.baseline_share),
                "algo.warm_start.opponent": [self.warm_start.opponent] * bool(
                    self.warm_start.games)}


def ppo_loss(logits: torch.Tensor, values: torch.Tensor, mask: torch.Tensor,
             action: torch.Tensor, old_logp: torch.Tensor, old_value: torch.Tensor,
             advantages: torch.Tensor, returns: torch.Tensor,
             config: LossConfig) -> tuple[torch.Tensor, dict]:
    """The clipped PPO objective on one minibatch; ``values`` are the mover's."""
    log_policy = masked_log_policy(logits, mask)
    new_logp = log_policy.gather(1, action[:, None]).squeeze(1)
    log_ratio = new_logp - old_logp
    ratio = log_ratio.exp()
    if config.norm_adv:
        advantages = (advantages - advantages.mean()) / (advantages.std(correction=0) + 1e-8)
    c = config.clip_coef
    pg_loss = torch.max(-advantages * ratio, -advantages * ratio.clamp(1 - c, 1 + c)).mean()
    v_loss = (values - returns) ** 2
    if config.clip_vloss:
        clipped = old_value + (values - old_value).clamp(-c, c)
        v_loss = torch.max(v_loss, (clipped - returns) ** 2)
    v_loss = 0.5 * v_loss.mean()
    entropy = -(log_policy.exp() * log_policy.masked_fill(~mask, 0.0)).sum(1).mean()
    loss = pg_loss - config.ent_coef * entropy + config.vf_coef * v_loss
    with torch.no_grad():
        stats = {"loss/policy": pg_loss.item(), "loss/value": v_loss.item(),
                 "loss/entropy": entropy.item(), "loss/total": loss.item(),
                 "ppo/approx_kl": ((ratio - 1) - log_ratio).mean().item(),
                 "ppo/clip_fraction": ((ratio - 1).abs() > c).float().mean().item()}
    return loss, stats


def explained_variance(predicted: np.ndarray, target: np.ndarray) -> float:
    var = float(np.var(target))
    return float("nan") if var == 0 else 1.0 - float(np.var(target - predicted)) / var


def episode_metrics(episodes: list[Episode]) -> dict:
    """Win/draw rates of the learner in the rollout's finished games, overall and per baseline
    opponent (``rollout/vs_<spec>/win_rate``)."""
    if not episodes:
        return {}
    returns = np.array([e.learner_return for e in episodes])
    out = {"rollout/episodes": len(episodes),
           "rollout/episode_length": float(np.mean([e.decisions for e in episodes])),
           "rollout/win_rate": float(np.mean(returns > 0)),
           "rollout/draw_rate": float(np.mean(returns == 0)),
           "rollout/truncated_rate": float(np.mean([e.truncated for e in episodes])),
           "rollout/learner_return": float(returns.mean())}
    for spec in {e.opponent for e in episodes if isinstance(e.opponent, str)}:
        mine = [e.learner_return > 0 for e in episodes if e.opponent == spec]
        out[f"rollout/vs_{spec}/win_rate"] = float(np.mean(mine))
    return out


STATE_VERSION = 2
"""The layout of a PPO checkpoint's ``state``. 2: the rollout as shards (``shards``,
``retired``); files of version 1 (one rollout, ``state.rollout``) are refused with a clear
error."""


class PPO(NetworkAlgorithm):
    """The training state of one PPO run; :class:`training.trainer.Trainer` runs it."""

    name = "ppo"
    Config = PPOConfig

    def __init__(self, config: dict):
        super().__init__(config)
        algo = self.algo
        # A bad config fails here, not in a worker process.
        algo.rollout.check(self.game)
        self.outcomes = Outcomes(self.game, algo.rewards)
        check_potential(self.game, algo.shaping)
        self.optimizer = torch.optim.Adam(self.learning.trained.parameters(), lr=algo.optim.lr,
                                          eps=1e-5)
        self.pool = OpponentPool(algo.pool)
        self.retired: dict[int, dict] = {}  # snapshots that left the pool, still faced in a game
        self.rng = np.random.default_rng([self.seed, 3])  # minibatch order
        self.shards = [new_shard(self.seed, index) for index in range(algo.rollout.shards)]
        self.runner = make_runner(
            self.runner_config,
            RolloutFactory(self.env_config, self.model_config, algo.rollout, algo.pool,
                           algo.rewards, algo.shaping, algo.loss.gamma, algo.loss.gae_lambda))
        self.counters = {"agent_steps": 0, "learner_steps": 0, "episodes": 0}

    # -- what a checkpoint holds -----------------------------------------------------------

    def acting(self) -> Acting:
        return Acting(self.algo.eval.simulations, self.algo.eval.temperature)

    def state_dict(self) -> dict:
        return {"version": STATE_VERSION, "optimizer": self.optimizer.state_dict(),
                "pool": self.pool.state_dict(), "retired": self.retired, "shards": self.shards,
                "rng": numpy_rng_state(self.rng)}

    def load_state_dict(self, payload: dict) -> None:
        state = payload["state"]
        if state.get("version") != STATE_VERSION:
            raise CheckpointError(
                f"this PPO checkpoint's state has layout version {state.get('version', 1)}, "
                f"this code reads version {STATE_VERSION} (the rollout in shards): train it "
                "again with this version (older layouts are not converted)")
        sizes = self.algo.rollout.shard_sizes()
        saved = [len(shard["games"]) for shard in state["shards"]]
        if saved not in (sizes, [0] * len(sizes)):  # full shards, or none played yet
            raise CheckpointError(
                f"the checkpoint's rollout holds {saved} games per shard, algo.rollout.num_envs "
                f"and algo.rollout.shards give {sizes}: resume with the checkpoint's values")
        self.net.load_state_dict(payload["model"]["weights"])
        self.learning.reload()
        self.optimizer.load_state_dict(state["optimizer"])
        self.pool.load_state_dict(state["pool"])
        self.retired = dict(state["retired"])
        self.shards = list(state["shards"])
        self.rng = restore_numpy_rng(state["rng"])
        self.counters = {key: payload["counters"][key] for key in self.counters}

    # -- the steps -------------------------------------------------------------------------

    def start(self) -> dict:
        """The warm start if configured (training/warmstart.py: teacher-vs-opponent games
        labelled by the teacher, and supervised steps with the learner's default settings on
        their policy and value targets), then the pool's first snapshot."""
        learner = Learner(self.learning.trained, LearnerConfig(min_samples=1))
        metrics = warm_start(self.algo.warm_start, self.game, self.encoder, self.outcomes,
                             self.seed, learner, None, self.rng, self.learning.sync)
        self.net.eval()
        self.pool.add(self.net.state_dict(), 0)
        return metrics

    def collect(self) -> tuple[list[ShardResult], float]:
        """One rollout of every shard, played by the runner's workers with the current weights
        and pool; the shards move on, the pool records their finished games. Returns the
        shards' results and the seconds it took."""
        self.runner.start_round(RolloutRound(self.net.state_dict(), self.pool.state_dict(),
                                             self.retired))
        start = time.perf_counter()
        results = self.runner.play(self.shards)
        seconds = time.perf_counter() - start
        self.shards = [result.state for result in results]
        for episode in (e for result in results for e in result.episodes):
            if episode.opponent is not None:
                self.pool.record(episode.opponent, episode.opponent_score())
        return results, seconds

    def iteration(self, number: int, progress: float) -> Step:
        """A rollout against the pool (with GAE, in the workers) -> ``update_epochs`` passes of
        minibatch updates; every ``pool.snapshot_every`` iterations the current weights join the
        pool."""
        algo, c = self.algo, self.counters
        if algo.optim.anneal_lr:  # linear to 0 over the run
            lr = algo.optim.lr * (1.0 - progress)
            for group in self.optimizer.param_groups:
                group["lr"] = lr
        # Conv nets: batch norm in the update as in the rollout (running statistics).
        self.net.eval()
        self.learning.trained.eval()
        results, seconds = self.collect()
        data = Transitions.concat([result.transitions for result in results])
        episodes = [e for result in results for e in result.episodes]
        agent_steps = sum(result.agent_steps for result in results)
        start = time.perf_counter()
        stats = self.update(data)
        learn_seconds = time.perf_counter() - start
        c["episodes"] += len(episodes)
        c["agent_steps"] += agent_steps
        stats.update(episode_metrics(episodes))
        stats.update({
            "rollout/agent_steps": agent_steps, "rollout/seconds": seconds,
            "rollout/agent_steps_per_s": agent_steps / seconds,
            "learner/samples_per_s": len(data) * algo.optim.update_epochs / learn_seconds,
            "ppo/explained_variance": explained_variance(data.value, data.returns),
            "ppo/lr": self.optimizer.param_groups[0]["lr"],
            "ppo/advantage_std": float(data.advantages.std()),
            "pool/size": len(self.pool.snapshots),
            "pool/opponent_score": float(np.mean([e.score for e in self.pool.snapshots])),
            "counters/agent_steps": c["agent_steps"], "counters/episodes": c["episodes"],
            "runner/restarts": self.runner.restarts})
        if number % algo.pool.snapshot_every == 0:
            dropped = self.pool.add(self.net.state_dict(), number)
            self.retired.update((e.key, e.weights) for e in dropped)
        faced = {g["opponent"] for shard in self.shards for g in shard["games"]}
        self.retired = {k: w for k, w in self.retired.items() if k in faced}
        return Step(stats, self._console(stats))

    def update(self, data: Transitions) -> dict:
        """``update_epochs`` passes over the rollout in shuffled minibatches (CleanRL)."""
        o = self.algo.optim
        net, device = self.learning.trained, self.device
        tensors = [torch.from_numpy(x).to(device)
                   for x in (data.obs, data.mask, data.action, data.logp, data.value,
                             data.advantages, data.returns)]
        size = len(data)
        totals: dict[str, float] = {}
        updates = 0
        for _epoch in range(o.update_epochs):
            order = self.rng.permutation(size)
            for start in range(0, size, o.minibatch_size):
                mb = torch.from_numpy(order[start:start + o.minibatch_size]).to(device)
                obs, mask, action, logp, value, mb_adv, mb_ret = (x[mb] for x in tensors)
                logits, values = net(obs)
                loss, stats = ppo_loss(logits, values[:, 0], mask, action, logp, value, mb_adv,
                                       mb_ret, self.algo.loss)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                stats["ppo/grad_norm"] = float(torch.nn.utils.clip_grad_norm_(
                    net.parameters(), o.max_grad_norm))
                self.optimizer.step()
                updates += 1
                for k, v in stats.items():
                    totals[k] = totals.get(k, 0.0) + v
        self.counters["learner_steps"] += updates
        self.learning.sync()
        return {k: v / updates for k, v in totals.items()}

    @staticmethod
    def _console(stats: dict) -> list[str]:
        parts = [f"steps {stats['counters/agent_steps']}"]
        if "rollout/episodes" in stats:
            parts += [f"len {stats['rollout/episode_length']:.0f}",
                      f"won {stats['rollout/win_rate']:.2f}"]
        return parts + [f"loss p {stats['loss/policy']:.3f} v {stats['loss/value']:.3f}",
                        f"entropy {stats['loss/entropy']:.2f}",
                        f"kl {stats['ppo/approx_kl']:.4f}",
                        f"steps/s {stats['rollout/agent_steps_per_s']:.0f}"]

    def close(self) -> None:
        """Stop the runner's workers."""
        self.runner.close()
