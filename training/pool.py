"""The opponent pool of PPO self-play: past snapshots of the learner, and optionally baseline
agents, with the schemes that pick who sits at the opponents' seats of the next game.

Playing only the latest weights against themselves lets a policy chase its own tail (it learns
to beat the current version, forgets how to beat older ones, and cycles). Drawing opponents
from a pool of past snapshots keeps old weaknesses punished. Schemes over the snapshots:

- ``uniform``: every snapshot alike.
- ``latest``: the newest snapshot gets ``latest_share`` of the mass, the rest share the
  remainder uniformly (OpenAI Five played 80% latest, 20% past).
- ``prioritised``: weight ``p ** priority_power`` where ``p`` is how often the snapshot has
  beaten the learner lately (an exponential moving average of its game scores: 1 the learner
  lost, 1/2 neither won, 0 the learner won; 1/2 before any game). AlphaStar's "prioritised
  fictitious self-play": the learner spends its games on the opponents it still loses to.

Baselines (agent specs such as ``heuristic`` or ``random``) are drawn with a fixed probability
``baseline_share``, uniformly among them; their scores are tracked for logging alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SCHEMES = ("uniform", "latest", "prioritised")


@dataclass(frozen=True)
class PoolConfig:
    """``algo.pool``: the opponent pool (AlphaZero: its past selves; PPO: who plays the
    opponents' seats)."""

    # uniform | latest (latest_share on the newest snapshot, the rest uniform) | prioritised
    # (the snapshots the learner loses to most, AlphaStar's PFSP)
    scheme: str = "latest"
    # snapshots kept; the oldest leaves first
    capacity: int = 20
    # the weights join the pool at the start and every this many iterations
    snapshot_every: int = 5
    # scheme latest: the newest snapshot's share
    latest_share: float = 0.5
    # scheme prioritised: weight = (the snapshot's score against the learner) ** this
    priority_power: float = 2.0
    # step of the moving average of each opponent's scores
    score_decay: float = 0.05
    # PPO: agent specs that may also take the opponents' seats, e.g. [heuristic]
    baselines: tuple[str, ...] = ()
    # PPO: share of games against a baseline (uniform among them)
    baseline_share: float = 0.0

    def __post_init__(self):
        if self.scheme not in SCHEMES:
            raise ValueError(f"pool.scheme must be one of {', '.join(SCHEMES)}, "
                             f"got {self.scheme!r}")
        if self.capacity < 1 or self.snapshot_every < 1:
            raise ValueError("pool.capacity and pool.snapshot_every must be >= 1, got "
                             f"{self.capacity} and {self.snapshot_every}")
        for key in ("latest_share", "score_decay", "baseline_share"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                raise ValueError(f"pool.{key} must be in [0, 1], got {getattr(self, key)}")
        if self.priority_power < 0:
            raise ValueError(f"pool.priority_power must be >= 0, got {self.priority_power}")
        if self.baseline_share > 0 and not self.baselines:
            raise ValueError("pool.baseline_share > 0 needs at least one pool.baselines spec")


@dataclass
class Entry:
    """One opponent: a snapshot (``key`` its id, an int) or a baseline (``key`` its spec)."""

    key: int | str
    iteration: int = 0
    weights: dict | None = None
    score: float = 0.5  # moving average of its game scores against the learner
    games: int = 0


@dataclass
class OpponentPool:
    config: PoolConfig
    snapshots: list[Entry] = field(default_factory=list)
    baselines: list[Entry] = field(default_factory=list)
    next_id: int = 0

    def __post_init__(self):
        if not self.baselines:
            self.baselines = [Entry(spec) for spec in self.config.baselines]

    def add(self, weights: dict, iteration: int) -> list[Entry]:
        """A snapshot of ``weights`` (copied); the oldest leaves when the pool is full. Returns
        the snapshots that left: games in flight may still face them (PPO keeps their weights
        until those games end)."""
        entry = Entry(self.next_id, iteration, {k: v.detach().clone() for k, v in
                                                weights.items()})
        self.next_id += 1
        self.snapshots.append(entry)
        dropped = self.snapshots[:-self.config.capacity]
        del self.snapshots[:-self.config.capacity]
        return dropped

    def probabilities(self) -> np.ndarray:
        """The scheme's distribution over ``snapshots`` (oldest first)."""
        n = len(self.snapshots)
        if n == 0:
            raise ValueError("the opponent pool holds no snapshot yet")
        c = self.config
        if c.scheme == "uniform" or n == 1:
            return np.full(n, 1.0 / n)
        if c.scheme == "latest":
            p = np.full(n, (1.0 - c.latest_share) / (n - 1))
            p[-1] = c.latest_share
            return p
        weights = np.array([e.score for e in self.snapshots]) ** c.priority_power
        if weights.sum() <= 0:  # the learner beats everyone: fall back to uniform
            return np.full(n, 1.0 / n)
        return weights / weights.sum()

    def sample(self, rng: np.random.Generator) -> Entry:
        if self.baselines and rng.random() < self.config.baseline_share:
            return self.baselines[int(rng.integers(len(self.baselines)))]
        p = self.probabilities()
        index = int(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right"))
        return self.snapshots[min(index, len(p) - 1)]

    def entry(self, key: int | str) -> Entry | None:
        """The entry with ``key``, or None once a snapshot has left the pool."""
        for e in (self.snapshots if isinstance(key, int) else self.baselines):
            if e.key == key:
                return e
        return None

    def record(self, key: int | str, score: float) -> None:
        """One finished game against ``key``: ``score`` 1 it beat the learner, 0 it lost."""
        e = self.entry(key)
        if e is not None:
            e.score += self.config.score_decay * (score - e.score)
            e.games += 1

    def state_dict(self) -> dict:
        def plain(e: Entry) -> dict:
            return {"key": e.key, "iteration": e.iteration, "weights": e.weights,
                    "score": e.score, "games": e.games}

        return {"snapshots": [plain(e) for e in self.snapshots],
                "baselines": [plain(e) for e in self.baselines], "next_id": self.next_id}

    def load_state_dict(self, state: dict) -> None:
        self.snapshots = [Entry(**e) for e in state["snapshots"]]
        saved = {e["key"]: Entry(**e) for e in state["baselines"]}  # a resume may change them
        self.baselines = [saved.get(spec) or Entry(spec) for spec in self.config.baselines]
        self.next_id = int(state["next_id"])
