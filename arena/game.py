"""One game between agents, and many at once: seats rotated, every game seeded from the
match seed and its number.

Seat rotation: in game ``g`` the lineup's agent ``i`` sits in seat ``(i + g) mod n``, so over any
multiple of ``n`` games every agent plays every seat equally often. The ``n`` games of one
rotation share their dice seed (the same rolls offered to every seating, which removes some of
the luck from dice games); each agent gets its own seed per game. All seeds derive from the
match seed through ``numpy.random.SeedSequence`` and depend only on the game's number, never on
which process plays it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents import make_agent, parse_spec
from agents.base import BatchingAgent
from arena.records import GameRecord
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


