"""The learner: gradient steps on replay samples for a policy-value network (AlphaZero's, and
the warm start's of both algorithms).

Loss per sample: cross-entropy between the policy target (the search's or the teacher's) and
the network's policy over legal view actions (illegal logits masked out), plus ``value_weight``
times the mean squared error of the value vector. Weight decay is AdamW's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

import numpy as np
import torch

from training.replay import ReplayBuffer, Samples

Augment = Callable[[Samples, np.random.Generator], Samples]


@dataclass(frozen=True)
class LearnerConfig:
    """``algo.learner``: AlphaZero's gradient steps on the replay buffer."""

    # samples per gradient step
    batch_size: int = 128
    # AdamW learning rate
    lr: float = 1e-3
    # AdamW weight decay
    weight_decay: Annotated[float, ">= 0"] = 1e-4
    # weight of the value MSE beside the policy cross-entropy
    value_weight: Annotated[float, ">= 0"] = 1.0
    # gradient steps per iteration = new samples * this / batch_size
    sample_reuse: float = 4.0
    # no learning until the buffer holds this many samples
    min_samples: Annotated[int, ">= 0"] = 256
    # gradient clipping
    max_grad_norm: Annotated[float, "> 0"] = 10.0
    # map each sample by a random board symmetry where the game has one (Barricade's file
    # mirror; square 2-player Blockade boards)
    augment: bool = True

    def __post_init__(self):
        if self.batch_size < 1 or self.lr <= 0 or self.sample_reuse <= 0:
            raise ValueError("learner batch_size, lr and sample_reuse must be positive, got "
                             f"{self.batch_size}, {self.lr}, {self.sample_reuse}")


def masked_log_policy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)


class Learner:
    """Gradient steps on ``net``, on the device its parameters are on (the batches go there)."""

    def __init__(self, net: torch.nn.Module, config: LearnerConfig, augment: Augment | None = None):
        self.net = net
        self.device = next(net.parameters()).device
        self.config = config
        self.augment = augment
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=config.lr,
                                           weight_decay=config.weight_decay)
        self.steps = 0

    def steps_for(self, new_samples: int) -> int:
        """Gradient steps so that each new sample is drawn ``sample_reuse`` times on average."""
        return int(np.ceil(new_samples * self.config.sample_reuse / self.config.batch_size))

    def train(self, replay: ReplayBuffer, steps: int, rng: np.random.Generator) -> dict:
        """``steps`` gradient steps on batches drawn by ``rng``; mean metrics, or {} when the
        buffer is still below ``min_samples``."""
        if len(replay) < self.config.min_samples or steps == 0:
            return {}
        self.net.train()
        totals = {"loss/policy": 0.0, "loss/value": 0.0, "loss/total": 0.0,
                  "policy/entropy": 0.0}
        start = time.perf_counter()
        for _ in range(steps):
            batch = replay.sample(self.config.batch_size, rng)
            if self.augment is not None:
                batch = self.augment(batch, rng)
            metrics = self._step(batch)
            for k in totals:
                totals[k] += metrics[k]
        elapsed = time.perf_counter() - start
        out = {k: v / steps for k, v in totals.items()}
        out["learner/samples_per_s"] = steps * self.config.batch_size / max(elapsed, 1e-9)
        out["learner/steps"] = self.steps
        return out

    def _step(self, batch: Samples) -> dict:
        obs, mask, target_policy, target_value = (
            torch.from_numpy(x).to(self.device)
            for x in (batch.obs, batch.mask, batch.policy, batch.value))
        logits, values = self.net(obs)
        log_p = masked_log_policy(logits, mask)
        policy_loss = -(target_policy * log_p).sum() / len(obs)
        value_loss = ((values - target_value) ** 2).mean()
        loss = policy_loss + self.config.value_weight * value_loss
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.config.max_grad_norm)
        self.optimizer.step()
        self.steps += 1
        with torch.no_grad():
            entropy = -(log_p.exp() * log_p.masked_fill(~mask, 0.0)).sum(dim=1).mean()
        return {"loss/policy": policy_loss.item(), "loss/value": value_loss.item(),
                "loss/total": loss.item(), "policy/entropy": entropy.item()}

    def state_dict(self) -> dict:
        return {"optimizer": self.optimizer.state_dict(), "steps": self.steps}

    def load_state_dict(self, state: dict) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.steps = int(state["steps"])
