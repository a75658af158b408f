"""Matches between agents: seats rotated, every game seeded from one seed, optionally in worker
processes, with the same results whatever the number of workers.

Seat rotation: in game ``g`` the lineup's agent ``i`` sits in seat ``(i + g) mod n``, so over any
multiple of ``n`` games every agent plays every seat equally often. The ``n`` games of one
rotation share their dice seed (the same rolls offered to every seating, which removes some of
the luck from dice games); each agent gets its own seed per game. All seeds derive from the
match seed through ``numpy.random.SeedSequence`` and depend only on the game's number, never on
which process plays it.
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

import envs
from agents import make_agent, parse_spec
from agents.base import BatchingAgent
from arena.records import GameRecord
from arena.stats import Rating, bradley_terry, openskill_ratings, wilson_interval
from envs.core import CHANCE, IllegalActionError, check_action, sample_chance


@dataclass
class GameResult:
    index: int
    seats: list[int]
    """``seats[s]``: the lineup index of the agent in seat ``s``."""
    returns: list[float]
    """Final returns per seat."""
    turns: int
    truncated: bool
    think_seconds: list[float]
    """Per lineup agent: total time spent in ``act``."""
    moves: list[int]
    """Per lineup agent: number of ``act`` calls."""
    record: GameRecord | None = None

    def agent_returns(self) -> list[float]:
        """Returns per lineup agent (rather than per seat)."""
        returns = [0.0] * len(self.seats)
        for seat, agent in enumerate(self.seats):
            returns[agent] = self.returns[seat]
        return returns


@dataclass
class AgentSummary:
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    win_share: float
    """Fraction of games won, a win shared by ``w`` tied winners counting ``1/w``."""
    mean_return: float
    win_low: float
    win_high: float
    """95% Wilson interval of the win rate."""
    seconds_per_move: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass
class MatchResult:
    env_config: dict
    names: list[str]
    """One label per lineup entry: its spec, with ``#2``, ``#3`` on repeats."""
    games: list[GameResult]
    summaries: list[AgentSummary] = field(default_factory=list)
    ratings: list[Rating] = field(default_factory=list)

    @property
    def records(self) -> list[GameRecord]:
        return [g.record for g in self.games if g.record is not None]


def game_seeds(seed: int, index: int, num_agents: int) -> tuple[int, list[int]]:
    """The dice seed and per-agent seeds of game ``index`` of a match seeded with ``seed``."""
    dice = np.random.SeedSequence(seed, spawn_key=(0, index // num_agents))
    agents = [np.random.SeedSequence(seed, spawn_key=(1, index, i)) for i in range(num_agents)]
    return int(dice.generate_state(1)[0]), [int(s.generate_state(1)[0]) for s in agents]


def rotation(index: int, num_players: int) -> list[int]:
    """``seats[s]`` = lineup index of the agent in seat ``s`` for game ``index``."""
    return [(s - index) % num_players for s in range(num_players)]


def lineup_names(agent_specs: Sequence) -> list[str]:
    """A label per lineup entry: the spec (or an instance's ``name``), ``#2``, ``#3`` on
    repeats, so that every seat's agent has its own row and rating."""
    names, seen = [], {}
    for spec in agent_specs:
        base = spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return names


def options_for(spec: str, agent_options: dict | None) -> dict:
    """Options of one spec from ``agent_options``, keyed by agent name (``mcts``) or by the
    whole spec; the whole spec's entry wins; ``None`` values mean "the agent's default" and are
    left out."""
    agent_options = agent_options or {}
    name, _ = parse_spec(spec)
    options = {**(agent_options.get(name) or {}), **(agent_options.get(spec) or {})}
    return {key: value for key, value in options.items() if value is not None}


def play_game(game, agents: Sequence, names: Sequence[str], index: int, seats: list[int],
              dice_seed: int, agent_seeds: list[int], env_config: dict,
              record: bool = False) -> GameResult:
    """One game: agents reset with their seeds, dice rolled from ``dice_seed``."""
    steps = game_steps(game, agents, names, index, seats, dice_seed, agent_seeds, env_config,
                       record)
    try:
        agent_index, state = next(steps)
        while True:
            start = time.perf_counter()
            action = agents[agent_index].act(state)
            agent_index, state = steps.send((action, time.perf_counter() - start))
    except StopIteration as finished:
        return finished.value


def game_steps(game, agents: Sequence, names: Sequence[str], index: int, seats: list[int],
               dice_seed: int, agent_seeds: list[int], env_config: dict, record: bool = False):
    """One game as a generator: it yields ``(lineup index, state)`` whenever an agent is to
    move, is sent ``(move, seconds spent finding it)``, and returns the :class:`GameResult`.
    The caller decides how the moves are found: one ``act`` at a time (:func:`play_game`) or
    many games' moves in one network batch (:func:`play_games_batched`)."""
    for agent_index, agent in enumerate(agents):
        agent.reset(game, seats.index(agent_index), agent_seeds[agent_index])
    dice = np.random.default_rng(dice_seed)
    state = game.new_initial_state()
    actions: list[int] = []
    positions = [state.to_dict()] if record else []
    think = [0.0] * len(agents)
    moves = [0] * len(agents)
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = sample_chance(state, dice)
            state.apply_action(action)
        else:
            agent_index = seats[player]
            action, seconds = yield agent_index, state.clone()
            think[agent_index] += seconds
            moves[agent_index] += 1
            try:
                action = check_action(action, game.num_actions)
                state.apply_action(action)
            except IllegalActionError as error:
                raise IllegalActionError(f"agent {names[agent_index]} in seat {player} played "
                                         f"an illegal action: {error}") from None
        if record:
            actions.append(action)
            positions.append(state.to_dict())
    returns = [float(r) for r in state.returns()]
    game_record = None
    if record:
        game_record = GameRecord(dict(env_config), [names[a] for a in seats], actions, positions,
                                 returns, index)
    return GameResult(index, seats, returns, int(state.to_dict().get("turn", 0)),
                      bool(state.is_truncated()), think, moves, game_record)


def can_batch(lineup: Sequence, agents: Sequence) -> bool:
    """Whether a lineup gains from :func:`play_games_batched`: some agent batches its moves,
    and every other one comes from a spec string (so each concurrent game gets its own
    instance)."""
    return (any(isinstance(a, BatchingAgent) for a in agents)
            and all(isinstance(a, BatchingAgent) or isinstance(spec, str)
                    for spec, a in zip(lineup, agents, strict=True)))


def play_games_batched(game, lineup: Sequence, bases: Sequence, names: Sequence[str],
                       indices: Sequence[int], seed: int, env_config: dict, record: bool,
                       batch_games: int, agent_options: dict | None = None,
                       progress: Callable[[GameResult], None] | None = None
                       ) -> list[GameResult]:
    """The games ``indices`` of a match between ``bases`` (built from ``lineup``),
    ``batch_games`` of them at a time: every batching agent's moves in those games are
    answered together (one network batch, its time shared among them), the other agents play
    as usual, one instance per concurrent game. Each game is the one :func:`play_game` plays
    with the same seeds. ``progress`` sees the games in order."""
    n = len(lineup)

    def instances() -> list:
        return [base.fork() if isinstance(base, BatchingAgent)
                else make_agent(spec, game, **options_for(spec, agent_options))
                for base, spec in zip(bases, lineup, strict=True)]

    queue = list(indices)
    running: dict[int, tuple] = {}  # game index -> (its agents, its generator, pending request)
    done: dict[int, GameResult] = {}
    emitted = 0
    while queue or running:
        while queue and len(running) < batch_games:
            index = queue.pop(0)
            agents = instances()
            dice_seed, agent_seeds = game_seeds(seed, index, n)
            steps = game_steps(game, agents, names, index, rotation(index, n), dice_seed,
                               agent_seeds, env_config, record)
            running[index] = (agents, steps, next(steps))
        # Moves of agents that do not batch are answered at once, game by game.
        answers: dict[int, tuple[int, float]] = {}
        for index, (agents, _, (agent_index, state)) in running.items():
            if not isinstance(bases[agent_index], BatchingAgent):
                start = time.perf_counter()
                action = agents[agent_index].act(state)
                answers[index] = action, time.perf_counter() - start
        for agent_index, base in enumerate(bases):
            waiting = [index for index, (_, _, request) in running.items()
                       if request[0] == agent_index and index not in answers]
            if waiting and isinstance(base, BatchingAgent):
                start = time.perf_counter()
                moves = base.act_batch([running[i][0][agent_index] for i in waiting],
                                       [running[i][2][1] for i in waiting])
                seconds = (time.perf_counter() - start) / len(waiting)
                answers.update((i, (move, seconds)) for i, move in zip(waiting, moves,
                                                                        strict=True))
        for index, answer in answers.items():
            agents, steps, _ = running[index]
            try:
                running[index] = (agents, steps, steps.send(answer))
            except StopIteration as finished:
                del running[index]
                done[index] = finished.value
        while emitted < len(indices) and indices[emitted] in done:
            if progress:
                progress(done[indices[emitted]])
            emitted += 1
    return [done[index] for index in indices]


@dataclass(frozen=True)
class _Task:
    """One game for a worker: plain data, so that it pickles under the spawn start method."""

    env_config: dict
    specs: tuple[str, ...]
    agent_options: dict
    index: int
    seed: int
    record: bool


_PLAYERS: dict[str, tuple] = {}
"""Per worker process: the game and agents of each match it has played games of, built once."""


def _players(env_config: dict, specs: Sequence[str], agent_options: dict) -> tuple:
    key = json.dumps([env_config, list(specs), agent_options], sort_keys=True, default=str)
    if key not in _PLAYERS:
        game = envs.make_game(env_config)
        agents = [make_agent(spec, game, **options_for(spec, agent_options)) for spec in specs]
        _PLAYERS[key] = game, agents
    return _PLAYERS[key]


def _play_task(task: _Task) -> GameResult:
    game, agents = _players(task.env_config, task.specs, task.agent_options)
    n = len(task.specs)
    dice_seed, agent_seeds = game_seeds(task.seed, task.index, n)
    return play_game(game, agents, lineup_names(task.specs), task.index,
                     rotation(task.index, n), dice_seed, agent_seeds, task.env_config,
                     task.record)


BACKENDS = ("processes", "ray")


def process_results(tasks: Sequence[_Task], workers: int):
    """The games of ``tasks`` played by a pool of ``workers`` processes, in task order."""
    context = multiprocessing.get_context("spawn")
    # Workers leave Ctrl-C to the main process, which stops the match.
    with context.Pool(min(workers, len(tasks)), initializer=signal.signal,
                      initargs=(signal.SIGINT, signal.SIG_IGN)) as pool:
        yield from pool.imap(_play_task, tasks)


RAY_TASK_RETRIES = 3
"""Times Ray replays a game whose worker died (killed, node lost): a game depends only on its
task, so the replay is the same game."""


def ray_results(tasks: Sequence[_Task], workers: int, address: str | None):
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


def play_match(env_config: dict, agent_specs: Sequence, num_games: int, seed: int,
               workers: int = 1, agent_options: dict | None = None, record: bool = False,
               progress: Callable[[GameResult], None] | None = None,
               batch_games: int = 1, agents: Sequence | None = None,
               played: Sequence[GameResult] = (), backend: str = "processes",
               ray_address: str | None = None) -> MatchResult:
    """Play ``num_games`` games of the ``env_config`` game between the lineup ``agent_specs``
    (one per seat: spec strings, or ``Agent`` instances when ``workers == 1``), seats rotated.
    ``agents``: the lineup's agents built already from its spec strings (a distinct instance
    per seat), played instead of new ones (an evaluation builds each agent once for all its
    lineups); the specs still name them, and worker processes build their own.

    ``agent_options`` maps an agent name (``"mcts"``) or a whole spec to keyword options.
    With ``batch_games`` > 1 (and ``workers == 1``) that many games are played at once and
    network agents answer all their moves in one batch (:func:`play_games_batched`); the games
    are the same as one at a time. ``progress`` is called with each finished game, in game
    order. ``played``: games of this match played already (a resumed evaluation): only the
    other game numbers are played, and the result holds all of them in game order, the same
    games as one uninterrupted match. With ``workers > 1``, ``backend`` says where the games
    play: ``processes`` (a pool on this machine) or ``ray`` (:func:`ray_results`). Returns the
    games with per-agent summaries and ratings (Bradley–Terry for two players, openskill for
    more).
    """
    game = envs.make_game(env_config)
    if len(agent_specs) != game.num_players:
        raise ValueError(f"{game.name} with {game.num_players} players needs "
                         f"{game.num_players} agents, got {len(agent_specs)}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if num_games < 1 or workers < 1:
        raise ValueError(f"num_games and workers must be at least 1, got {num_games} and "
                         f"{workers}")
    agent_options = dict(agent_options or {})
    names = lineup_names(agent_specs)
    instances = [spec for spec in agent_specs if not isinstance(spec, str)]
    if instances and workers > 1:
        raise ValueError("agent instances can only play with workers=1; pass spec strings "
                         "to play in worker processes")
    done = {g.index for g in played}
    if len(done) != len(played) or not done <= set(range(num_games)):
        raise ValueError(f"played games must have distinct numbers in 0..{num_games - 1}, got "
                         f"{sorted(g.index for g in played)}")
    todo = [index for index in range(num_games) if index not in done]
    games: list[GameResult] = []
    if todo and workers == 1:
        agents = agents or [spec if not isinstance(spec, str)
                            else make_agent(spec, game, **options_for(spec, agent_options))
                            for spec in agent_specs]
        n = len(agents)
        if batch_games > 1 and can_batch(agent_specs, agents):
            games = play_games_batched(game, agent_specs, agents, names, todo, seed,
                                       env_config, record, batch_games, agent_options, progress)
        else:
            for index in todo:
                dice_seed, agent_seeds = game_seeds(seed, index, n)
                result = play_game(game, agents, names, index, rotation(index, n), dice_seed,
                                   agent_seeds, env_config, record)
                games.append(result)
                if progress:
                    progress(result)
    elif todo:
        if agents is None:  # fail here, with one clear error, not inside a worker
            for spec in agent_specs:
                make_agent(spec, game, **options_for(spec, agent_options))
        tasks = [_Task(dict(env_config), tuple(agent_specs), agent_options, index, seed, record)
                 for index in todo]
        results = (ray_results(tasks, workers, ray_address) if backend == "ray"
                   else process_results(tasks, workers))
        for result in results:
            games.append(result)
            if progress:
                progress(result)
    return match_result(env_config, names, sorted([*played, *games], key=lambda g: g.index))


def match_result(env_config: dict, names: Sequence[str], games: list[GameResult]) -> MatchResult:
    """The games of one lineup with their per-agent summaries and ratings."""
    result = MatchResult(dict(env_config), list(names), games)
    result.summaries = summarize(names, games)
    result.ratings = rate([result])
    return result


def summarize(names: Sequence[str], games: Sequence[GameResult]) -> list[AgentSummary]:
    """Wins (positive return), draws (zero) and losses (negative) per lineup agent."""
    summaries = []
    for i, name in enumerate(names):
        returns = [g.agent_returns()[i] for g in games]
        wins = sum(r > 0 for r in returns)
        draws = sum(r == 0 for r in returns)
        share = sum(1.0 / sum(r > 0 for r in g.returns)
                    for g, r in zip(games, returns, strict=True) if r > 0)
        low, high = wilson_interval(wins, len(games))
        moves = sum(g.moves[i] for g in games)
        seconds = sum(g.think_seconds[i] for g in games)
        summaries.append(AgentSummary(
            name, len(games), wins, draws, len(games) - wins - draws,
            share / len(games) if games else 0.0,
            float(np.mean(returns)) if returns else 0.0, low, high,
            seconds / moves if moves else 0.0))
    return summaries


def pairwise_results(matches: Sequence[MatchResult]) -> tuple[list[str], np.ndarray,
                                                               np.ndarray]:
    """Two-player matches as matrices over the agent names (sorted): ``scores[i, j]`` is what
    ``i`` scored against ``j`` (a win 1, a draw 1/2) in ``games[i, j]`` games."""
    names = sorted({name for m in matches for name in m.names})
    position = {name: i for i, name in enumerate(names)}
    scores = np.zeros((len(names), len(names)))
    games = np.zeros((len(names), len(names)))
    for match in matches:
        a, b = (position[name] for name in match.names)
        for g in match.games:
            ra, rb = g.agent_returns()
            score = 1.0 if ra > rb else 0.5 if ra == rb else 0.0
            scores[a, b] += score
            scores[b, a] += 1.0 - score
            games[a, b] += 1
            games[b, a] += 1
    return names, scores, games


def rate(matches: Sequence[MatchResult]) -> list[Rating]:
    """Ratings of every agent name across matches of one game: Bradley–Terry (Elo scale) for
    two players, openskill for more. Best first."""
    if len(matches[0].names) == 2:
        ratings = bradley_terry(*pairwise_results(matches))
    else:
        names = sorted({name for m in matches for name in m.names})
        position = {name: i for i, name in enumerate(names)}
        results = [([position[name] for name in match.names], g.agent_returns())
                   for match in matches for g in match.games]
        ratings = openskill_ratings(names, results)
    return sorted(ratings, key=lambda r: -r.rating)
