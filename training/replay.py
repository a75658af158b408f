"""A fixed-size replay buffer of self-play samples in preallocated numpy arrays.

A sample is one decision of a self-play game, all in the acting player's view: observation,
legal mask over view actions, the search's policy target over view actions, and the value
target per relative seat. Observations are stored as float16 (they lie in [0, 1]) to halve the
memory of a long buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class Samples:
    """A batch of samples, one row each."""

    obs: np.ndarray  # [B, *obs_shape] float
    mask: np.ndarray  # [B, A] bool, legal view actions
    policy: np.ndarray  # [B, A] float32, target over view actions
    value: np.ndarray  # [B, n] float32, target per relative seat

    def __len__(self) -> int:
        return len(self.obs)

    @staticmethod
    def concat(parts: list[Samples]) -> Samples:
        return Samples(*(np.concatenate([getattr(p, f) for p in parts])
                         for f in ("obs", "mask", "policy", "value")))


class ReplayBuffer:
    """Ring buffer: once full, new samples overwrite the oldest, except the first ``pinned``
    slots (:meth:`pin`), which hold their samples for good."""

    def __init__(self, capacity: int, obs_shape: tuple[int, ...], num_actions: int,
                 num_players: int):
        if capacity < 1:
            raise ValueError(f"replay capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self.obs = np.zeros((capacity, *obs_shape), dtype=np.float16)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.policy = np.zeros((capacity, num_actions), dtype=np.float32)
        self.value = np.zeros((capacity, num_players), dtype=np.float32)
        self.size = 0
        self.added = 0  # samples ever added past the pinned ones (the ring's write count)
        self.pinned = 0  # leading slots never overwritten

    def pin(self) -> None:
        """Keep every sample now in the buffer for good (the warm start's teacher samples);
        later samples cycle through the slots after them."""
        if self.size == self.capacity:
            raise ValueError("cannot pin a full replay buffer: no slots would be left to cycle")
        self.pinned, self.added = self.size, 0

    def __len__(self) -> int:
        return self.size

    def add(self, samples: Samples) -> None:
        n, ring = len(samples), self.capacity - self.pinned
        if n > ring:  # only the newest fit
            samples = Samples(samples.obs[-ring:], samples.mask[-ring:],
                              samples.policy[-ring:], samples.value[-ring:])
            self.added += n - ring
            n = ring
        index = self.pinned + (self.added + np.arange(n)) % ring
        self.obs[index] = samples.obs
        self.mask[index] = samples.mask
        self.policy[index] = samples.policy
        self.value[index] = samples.value
        self.added += n
        self.size = min(self.size + n, self.capacity)

    def sample(self, batch_size: int, rng: np.random.Generator) -> Samples:
        if self.size == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        index = rng.integers(0, self.size, size=batch_size)
        return Samples(self.obs[index].astype(np.float32), self.mask[index], self.policy[index],
                       self.value[index])

    def state_dict(self) -> dict:
        """Only the filled part, as tensors (loadable with ``torch.load(weights_only=True)``)."""
        n = self.size
        return {"capacity": self.capacity, "size": n, "added": self.added, "pinned": self.pinned,
                "obs": torch.from_numpy(self.obs[:n].copy()),
                "mask": torch.from_numpy(self.mask[:n].copy()),
                "policy": torch.from_numpy(self.policy[:n].copy()),
                "value": torch.from_numpy(self.value[:n].copy())}

    def load_state_dict(self, state: dict) -> None:
        n = int(state["size"])
        if n > self.capacity:
            raise ValueError(f"replay buffer in the checkpoint holds {n} samples but the "
                             f"configured capacity is {self.capacity}")
        for name in ("obs", "mask", "policy", "value"):
            array = state[name].numpy()
            target = getattr(self, name)
            if array.shape[1:] != target.shape[1:]:
                raise ValueError(f"replay {name} in the checkpoint has shape {array.shape[1:]}, "
                                 f"this run needs {target.shape[1:]}")
            target[:n] = array
        self.size = n
        self.pinned = int(state["pinned"])
        # Keep the ring's write position when the capacity is unchanged (exact resume).
        self.added = (int(state["added"]) if int(state["capacity"]) == self.capacity
                      else n - self.pinned)
