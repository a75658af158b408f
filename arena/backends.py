"""Where a match's games are played when ``workers > 1``: a pool of worker processes on this
machine, or Ray tasks (here or on a cluster). A game depends only on its task, so every
backend plays the same games."""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import envs
from agents import make_agent
from arena.game import GameResult, game_seeds, lineup_names, options_for, play_game, rotation
from cluster.processes import ignore_ctrl_c_and_end_with

BACKENDS = ("processes", "ray")


@dataclass(frozen=True)
class Venue:
    """Where a match's games are played: with one worker in this process, ``batch_games`` at a
    time (a network agent answers the moves of all of them in one batch); with more, in
    ``workers`` processes (``backend`` processes) or as Ray tasks (``backend`` ray, on a Ray of
    ``workers`` CPUs here or the cluster at ``ray_address``), each process running its network
    agents on ``torch_threads`` threads. The games are the same anywhere."""

    workers: int = 1
    batch_games: int = 1
    backend: str = "processes"
    ray_address: str | None = None
    torch_threads: int = 1

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got "
                             f"{self.backend!r}")
        if min(self.workers, self.batch_games, self.torch_threads) < 1:
            raise ValueError(f"workers, batch_games and torch_threads must be at least 1, got "
                             f"{self.workers}, {self.batch_games} and {self.torch_threads}")


HERE = Venue()
"""One game at a time in this process."""


@dataclass(frozen=True)
class Task:
    """One game for a worker: plain data, so that it pickles under the spawn start method."""

    env_config: dict
    specs: tuple[str, ...]
    agent_options: dict
    index: int
    seed: int
    record: bool
    torch_threads: int


_PLAYERS: dict[str, tuple] = {}
"""Per worker process: the game and agents of each match it has played games of, built once."""


def _players(env_config: dict, specs: Sequence[str], agent_options: dict) -> tuple:
    key = json.dumps([env_config, list(specs), agent_options], sort_keys=True, default=str)
    if key not in _PLAYERS:
        game = envs.make_game(env_config)
        agents = [make_agent(spec, game, **options_for(spec, agent_options)) for spec in specs]
        _PLAYERS[key] = game, agents
    return _PLAYERS[key]


def set_torch_threads(threads: int) -> None:
    """One thread is fastest for our small nets at the evaluation's batch sizes, and several
    spin against each other on a busy machine (25x slower per move, measured on 2 shared
    cores, one position at a time). Only when torch is in use already: the arena itself needs
    no torch."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def _play_task(task: Task) -> GameResult:
    game, agents = _players(task.env_config, task.specs, task.agent_options)
    # A worker process starts with torch's default threads (one per core): with a worker per
    # core they spin against each other (a game of 3-seat Blockade at 200 simulations took
    # minutes instead of seconds). Set once its agents have imported torch.
    set_torch_threads(task.torch_threads)
    n = len(task.specs)
    dice_seed, agent_seeds = game_seeds(task.seed, task.index, n)
    return play_game(game, agents, lineup_names(task.specs), task.index,
                     rotation(task.index, n), dice_seed, agent_seeds, task.env_config,
                     task.record)




def process_results(tasks: Sequence[Task], workers: int):
    """The games of ``tasks`` played by a pool of ``workers`` processes, in task order."""
    context = multiprocessing.get_context("spawn")
    # Workers leave Ctrl-C to the main process, which stops the match, and end with it.
    with context.Pool(min(workers, len(tasks)), initializer=ignore_ctrl_c_and_end_with,
                      initargs=(os.getpid(),)) as pool:
        yield from pool.imap(_play_task, tasks)


RAY_TASK_RETRIES = 3
"""Times Ray replays a game whose worker died (killed, node lost): a game depends only on its
task, so the replay is the same game."""


def ray_results(tasks: Sequence[Task], workers: int, address: str | None):
    """The games of ``tasks`` as Ray tasks, in task order (each yielded as soon as it and
    those before it are done). ``address=None`` starts a Ray of ``workers`` CPUs on this
    machine for the match; ``auto`` or ``ray://host:port`` joins a cluster, whose CPUs all
    take games. Agents are built once per Ray worker process and match (``_players``), as in
    a process pool."""
    from cluster import import_ray, init_args

    ray = import_ray()
    owns_ray = not ray.is_initialized()
    if owns_ray:
        ray.init(**init_args(workers, address))
    try:
        play = ray.remote(num_cpus=1, max_retries=RAY_TASK_RETRIES)(_play_task)
        refs = [play.remote(task) for task in tasks]
        for ref in refs:
            yield ray.get(ref)
    finally:  # also when the caller stops early (Ctrl-C): games still queued are dropped
        if owns_ray:
            ray.shutdown()


def played_elsewhere(env_config: dict, lineup: Sequence[str], agent_options: dict,
                     indices: Sequence[int], seed: int, record: bool, venue: Venue):
    """The games ``indices`` of a match played by ``venue``'s backend, in game order (each
    yielded as soon as it and those before it are done)."""
    tasks = [Task(dict(env_config), tuple(lineup), agent_options, index, seed, record,
                  venue.torch_threads) for index in indices]
    if not tasks:
        return []
    if venue.backend == "ray":
        return ray_results(tasks, venue.workers, venue.ray_address)
    return process_results(tasks, venue.workers)
