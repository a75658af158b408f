"""Runners move work between the learner and self-play workers through a narrow interface:

    runner.start_round(work_round)    # the learner's latest (weights, ...), to every worker
    results = runner.play(items)      # one result per item, in item order, played with it
    runner.close()                    # the workers end

An item is what a worker plays and a result what it returns for it: AlphaZero's are game seeds
and finished games (training/alphazero/selfplay.py), PPO's rollout shards and their transitions
(training/ppo/shards.py).

A worker is any object with ``start_round(work_round)`` and ``play(items)``, built by a
picklable factory (the round is plain data: training/alphazero/selfplay.py's ``Round``,
training/ppo/shards.py's ``RolloutRound``). Because a result depends only on its item and
the round, every runner returns the same results for the same items; a distributed runner
(remote workers, a queue) only has to keep that interface. ``local`` runs the worker in this
process; ``processes`` splits the items over worker processes (one torch thread each), which
uses both cores of a 2-core machine; ``ray`` plays them on Ray actors, on this machine or a
cluster (training/ray_runner.py).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Annotated, Protocol

import torch

from cluster.processes import ignore_ctrl_c_and_end_with
from training.device import learner_device

RUNNERS = ("local", "processes", "ray")


class Worker(Protocol):
    def start_round(self, work_round) -> None: ...
    def play(self, items: list) -> list: ...


@dataclass(frozen=True)
class RunnerConfig:
    """``runner``: where self-play (PPO: the rollout's shards) runs; the learner stays in the
    main process. The data are the same under every runner."""

    # local (this one process) | processes (worker processes) | ray (Ray actors, on this machine
    # or a cluster: docs/cluster.md)
    name: str = "local"
    # worker processes or actors; each plays a share of every iteration's games (PPO: shards)
    workers: int = 2
    # torch threads per process (workers * threads <= cores); 1 is fastest for the small nets
    # and robust when other jobs share the cores
    torch_threads: int = 1
    # processes and ray: dead workers replaced (their unfinished games played again) before
    # the run stops with an error
    max_restarts: Annotated[int, ">= 0"] = 10
    # the learner's gradient steps: cpu | cuda | cuda:N | auto (cuda when torch sees one, else
    # cpu); self-play, evaluation and checkpoints stay on the CPU (training/device.py)
    learner_device: str = "cpu"
    # ray: null = start a Ray on this machine for the run | auto = join the cluster this machine
    # is part of (`ray start`) | ray://host:10001 = a cluster through Ray Client
    address: str | None = None
    # ray: CPUs reserved per actor; with address=null Ray gets workers * cpus_per_worker CPUs
    cpus_per_worker: Annotated[float, "> 0"] = 1.0
    # ray: games (PPO: shards) per task sent to an actor (null = an equal share per actor);
    # smaller tasks balance fast and slow actors and lose less to a dead one
    games_per_task: Annotated[int, ">= 1"] | None = None
    # ray: send this checkout's packages to the workers (runtime_env py_modules); false = the
    # workers import the installed package
    ship_code: bool = True

    def __post_init__(self):
        if self.name not in RUNNERS:
            raise ValueError(f"runner.name must be one of {RUNNERS}, got {self.name!r}")
        if self.workers < 1 or self.torch_threads < 1:
            raise ValueError("runner.workers and runner.torch_threads must be >= 1")
        if self.address is not None and not (self.address == "auto" or ":" in self.address):
            raise ValueError(f"runner.address={self.address!r}: must be null (a local Ray), auto "
                             "(the cluster this machine joined), ray://host:port or host:port")
        learner_device(self.learner_device)  # a CUDA device torch does not see fails here


class LocalRunner:
    """The worker in this process."""

    restarts = 0  # workers replaced after dying: none here, a dead local worker is the run

    def __init__(self, make_worker: Callable[[], Worker]):
        self.worker = make_worker()

    def start_round(self, work_round) -> None:
        self.worker.start_round(work_round)

    def play(self, items: list) -> list:
        return self.worker.play(list(items))

    def close(self) -> None:
        pass


_WORKER: Worker | None = None


def _init_worker(make_worker: Callable[[], Worker], torch_threads: int, parent: int) -> None:
    global _WORKER
    ignore_ctrl_c_and_end_with(parent)
    torch.set_num_threads(torch_threads)
    _WORKER = make_worker()


def _play_chunk(work_round, items: list) -> list:
    _WORKER.start_round(work_round)
    return _WORKER.play(items)


class ProcessRunner:
    """Self-play in a pool of worker processes. A worker that dies (killed, or a SIGTERM sent to
    the run's whole process group, as job schedulers do) breaks the pool: a new pool replaces it
    and the chunks of items that had not come back are played again, so every item comes back
    complete and the results are the same as if nothing had happened."""

    def __init__(self, make_worker: Callable[[], Worker], workers: int, torch_threads: int,
                 max_restarts: int):
        self.make_worker, self.workers, self.torch_threads = make_worker, workers, torch_threads
        self.max_restarts = max_restarts
        self.restarts = 0
        self.round = None
        self.busy = False  # a play() is under way, or was cut short
        self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker,
                                   initargs=(self.make_worker, self.torch_threads, os.getpid()))

    def start_round(self, work_round) -> None:
        self.round = work_round

    def play(self, items: list) -> list:
        """The items in ``workers`` chunks, one per worker; the chunks a broken pool loses are
        played again by a new one."""
        self.busy = True  # stays so when play is cut short (Ctrl-C): close terminates then
        results = self._play(list(items))
        self.busy = False
        return results

    def _play(self, items: list) -> list:
        size = -(-len(items) // self.workers)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        results: dict[int, list] = {}
        while len(results) < len(chunks):
            futures: dict[int, Future] = {}
            try:
                for index, chunk in enumerate(chunks):
                    if index not in results:
                        futures[index] = self.pool.submit(_play_chunk, self.round, chunk)
                for index, future in futures.items():
                    results[index] = future.result()
            except BrokenProcessPool:
                for index, future in futures.items():  # chunks done before the pool broke
                    if future.done() and not future.cancelled() and future.exception() is None:
                        results[index] = future.result()
                self._replace_pool(len(chunks) - len(results))
        return [result for index in range(len(chunks)) for result in results[index]]

    def _replace_pool(self, lost_chunks: int) -> None:
        self.pool.shutdown(wait=True)
        if self.restarts >= self.max_restarts:
            raise RuntimeError(f"self-play workers died {self.restarts + 1} times; "
                               f"runner.max_restarts={self.max_restarts} reached")
        self.restarts += 1
        print(f"a self-play worker died: new worker processes replay {lost_chunks} unfinished "
              f"task(s) (restart {self.restarts}/{self.max_restarts})", flush=True)
        self.pool = self._new_pool()

    def close(self) -> None:
        """Stop the workers now: items still running are abandoned (the items and their round
        are the caller's to keep), and every worker process has ended when this returns."""
        # Idle workers (a run's normal end) exit on their own, running their exit handlers (a
        # terminated worker leaves the semaphores its ONNX export made to the resource
        # tracker's "leaked" warning). Busy ones are terminated (Python 3.14:
        # pool.terminate_workers()): the pool's own thread notices the ends, fails the futures
        # and joins the processes; shutdown waits for it.
        if self.busy:
            for process in list((self.pool._processes or {}).values()):
                process.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)


def make_runner(config: RunnerConfig, make_worker: Callable[[], Worker]):
    torch.set_num_threads(config.torch_threads)  # the learner's, and the local worker's
    if config.name == "local":
        return LocalRunner(make_worker)
    if config.name == "ray":
        from training.ray_runner import RayRunner

        return RayRunner(make_worker, config)
    return ProcessRunner(make_worker, config.workers, config.torch_threads, config.max_restarts)
