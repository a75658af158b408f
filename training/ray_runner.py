"""``runner=ray``: self-play workers as Ray actors, the learner in this (the driver) process.

The runner keeps training/runner.py's interface (``start_round``, ``play``, ``close``), so
AlphaZero and PPO are the same code under every runner and an item (a game's seed, a PPO
rollout shard) gives the same result everywhere:

- A round (the weights and what else the learner sends: training/alphazero/selfplay.py's
  ``Round``, training/ppo/shards.py's ``RolloutRound``) goes through Ray's object store once per
  ``start_round`` (``ray.put``) under a version number. Each task carries the version and a
  reference to the round it was submitted with; an actor whose version differs fetches and
  loads them first, and every result names the version it was played with, so a result of
  other weights can never reach the learner unnoticed.
- An iteration's items are cut into tasks of ``games_per_task`` items (games, or PPO's rollout
  shards). Every actor gets a first task; each actor that finishes gets the next one and
  results are gathered as they come (``ray.wait``), so a fast actor takes more tasks instead
  of waiting for the slowest one. The results still come back in item order: the learner
  step needs the whole iteration's results (as with the local runner), and the order fixes
  what it learns from.
- A task returns only whole results (whole games, whole rollouts). An actor that dies (its
  process killed, its node lost) loses its task: the runner logs a line, counts the restart
  (``runner/restarts`` in W&B), starts a fresh actor and gives it the same items again, which
  plays them the same way; no part of a lost task ever reaches the learner.

``runner.address=null`` starts a small Ray on this machine for the run (``workers *
cpus_per_worker`` CPUs, no dashboard) and stops it at the end; ``auto`` or ``ray://host:port``
joins a running cluster (docs/cluster.md). With ``ship_code`` the project's packages travel to
the workers through Ray's runtime environment (``py_modules``), so the cluster runs the code of
this checkout; its Python dependencies must be installed on every node.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from cluster import import_ray, init_args


class SelfPlayActor:
    """What runs in a Ray actor: one worker and the weights version it holds."""

    def __init__(self, make_worker: Callable, torch_threads: int):
        torch.set_num_threads(torch_threads)
        self.worker = make_worker()
        self.version = -1

    def play(self, version: int, work_round: list, items: list) -> tuple[int, list]:
        """One task: ``work_round`` is ``[ObjectRef]`` of the round (in a list so that Ray
        passes the reference and the actor fetches the round's weights only when its version
        is stale)."""
        if version != self.version:
            import ray

            self.worker.start_round(ray.get(work_round[0]))
            self.version = version
        return self.version, self.worker.play(items)

    def pid(self) -> int:
        import os

        return os.getpid()


@dataclass
class RaySubmitted:
    """Items sent to a :class:`RayRunner`: the round's version and reference, the tasks, their
    results so far, those not yet given to an actor and those running (result reference ->
    actor index, that actor, task index)."""

    version: int
    round_ref: Any
    tasks: list[list]
    results: list[list | None]
    waiting: deque[int]
    running: dict = field(default_factory=dict)


class RayRunner:
    """Self-play on Ray actors; ``config`` is the run's :class:`training.runner.RunnerConfig`."""

    def __init__(self, make_worker: Callable, config,
                 say: Callable[[str], None] = lambda line: print(line, flush=True)):
        ray = self.ray = import_ray()
        self.config = config
        self.make_worker = make_worker
        self.say = say
        self.owns_ray = not ray.is_initialized()
        if self.owns_ray:
            ray.init(**init_args(config.workers, config.address, config.cpus_per_worker,
                                config.ship_code))
        self.actor_class = ray.remote(num_cpus=config.cpus_per_worker,
                                      max_restarts=0)(SelfPlayActor)
        self.actors = [self._start_actor() for _ in range(config.workers)]
        self.version = 0
        self.round_ref = None
        self.restarts = 0

    def _start_actor(self):
        return self.actor_class.remote(self.make_worker, self.config.torch_threads)

    def start_round(self, work_round) -> None:
        self.version += 1
        self.round_ref = self.ray.put(work_round)

    def tasks(self, items: list) -> list[list]:
        size = self.config.games_per_task or -(-len(items) // self.config.workers)
        return [items[i:i + size] for i in range(0, len(items), size)]

    def play(self, items: list) -> list:
        return self._collect(self._submit(items))

    def _submit(self, items: list) -> RaySubmitted:
        if self.round_ref is None:
            raise RuntimeError("RayRunner.play before start_round: the actors have no weights")
        tasks = self.tasks(list(items))
        handle = RaySubmitted(self.version, self.round_ref, tasks, [None] * len(tasks),
                              deque(range(len(tasks))))
        self._dispatch(handle)
        return handle

    def _dispatch(self, handle: RaySubmitted) -> None:
        """The next waiting tasks of ``handle`` to the actors running none of its tasks."""
        busy = {index for index, _, _ in handle.running.values()}
        for index, actor in enumerate(self.actors):
            if handle.waiting and index not in busy:
                task = handle.waiting.popleft()
                ref = actor.play.remote(handle.version, [handle.round_ref], handle.tasks[task])
                handle.running[ref] = (index, actor, task)

    def _collect(self, handle: RaySubmitted) -> list:
        ray = self.ray
        while handle.waiting or handle.running:
            self._dispatch(handle)
            [ref], _ = ray.wait(list(handle.running), num_returns=1)
            index, actor, task = handle.running.pop(ref)
            try:
                version, results = ray.get(ref)
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as error:
                self._replace(index, actor, error)
                handle.waiting.appendleft(task)
            else:
                if version != handle.version:
                    raise RuntimeError(f"worker {index} returned results of weights version "
                                       f"{version}, not their round's {handle.version}")
                handle.results[task] = results
        return [result for part in handle.results for result in part]

    def _replace(self, index: int, actor, error: Exception) -> None:
        """A fresh actor in place of a dead one (unless it was replaced already)."""
        if self.actors[index] is not actor:
            return
        self.restarts += 1
        if self.restarts > self.config.max_restarts:
            raise RuntimeError(f"runner=ray: {self.restarts} workers died in this run, more "
                               f"than runner.max_restarts={self.config.max_restarts}; last: "
                               f"{type(error).__name__}") from error
        self.say(f"runner: worker {index} died ({type(error).__name__}); started a new one, "
                 f"which replays its unfinished task (restart {self.restarts})")
        self.ray.kill(actor)  # a node that is only unreachable may come back
        self.actors[index] = self._start_actor()

    def close(self) -> None:
        """Kill the actors now: tasks still running are abandoned."""
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []
        if self.owns_ray and self.ray.is_initialized():
            self.ray.shutdown()

