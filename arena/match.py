"""Matches between agents: one lineup's games with seats rotated (arena/game.py), played here
or by a backend (arena/backends.py), with the same results whatever the number of workers, and
each agent's summary of them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

import envs
from agents import make_agent
from arena.backends import HERE, Venue, played_elsewhere
from arena.game import (
    GameResult,
    can_batch,
    game_seeds,
    lineup_names,
    options_for,
    play_game,
    play_games_batched,
    rotation,
)
from arena.records import GameRecord
from arena.stats import first_places, wilson_interval


@dataclass
class AgentSummary:
    name: str
    games: int
    wins: int
    """Games it won alone."""
    shared: int
    """Games whose first place it shared with others (not every seat: that is a draw)."""
    draws: int
    """Games every seat ended equal."""
    losses: int
    win_share: float
    """Fraction of games won, a win shared by ``w`` tied winners counting ``1/w``."""
    mean_return: float
    win_low: float
    win_high: float
    """95% Wilson interval of the win rate (games won alone)."""
    seconds_per_move: float
    seat_shares: list[float] = field(default_factory=list)
    """Its win share in each seat of the turn order (seat 0 moves first), over the games it
    sat there: in 3-4 seat games the seats can differ several-fold (docs/evaluation.md), so a
    share is read against the opponent's own by seat."""

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

    @property
    def records(self) -> list[GameRecord]:
        return [g.record for g in self.games if g.record is not None]


def play_match(env_config: dict, lineup: Sequence, num_games: int, seed: int, *,
               agents: Sequence | None = None, agent_options: dict | None = None,
               played: Sequence[GameResult] = (), record: bool = False,
               progress: Callable[[GameResult], None] | None = None,
               venue: Venue = HERE) -> MatchResult:
    """Play ``num_games`` games of the ``env_config`` game between the ``lineup`` (one per
    seat: spec strings, or ``Agent`` instances when played in this process), seats rotated.
    ``agents``: the lineup's agents built already from its spec strings (a distinct instance
    per seat), played instead of new ones (an evaluation builds each agent once for all its
    lineups); the specs still name them, and worker processes build their own.
    ``agent_options`` maps an agent name (``"mcts"``) or a whole spec to keyword options.
    ``played``: games of this match played already (a resumed evaluation): only the other game
    numbers are played, and the result holds all of them in game order, the same games as one
    uninterrupted match. ``record`` keeps each game's record; ``progress`` is called with each
    finished game, in game order; ``venue`` says where the games are played (the same games
    anywhere). Returns the games with each agent's summary."""
    game = envs.make_game(env_config)
    if len(lineup) != game.num_players:
        raise ValueError(f"{game.name} with {game.num_players} players needs "
                         f"{game.num_players} agents, got {len(lineup)}")
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    if venue.workers > 1 and any(not isinstance(spec, str) for spec in lineup):
        raise ValueError("agent instances can only play with workers=1; pass spec strings "
                         "to play in worker processes")
    done = {g.index for g in played}
    if len(done) != len(played) or not done <= set(range(num_games)):
        raise ValueError(f"played games must have distinct numbers in 0..{num_games - 1}, got "
                         f"{sorted(g.index for g in played)}")
    agent_options = dict(agent_options or {})
    names = lineup_names(lineup)
    todo = [index for index in range(num_games) if index not in done]
    if venue.workers == 1:
        agents = agents or [spec if not isinstance(spec, str)
                            else make_agent(spec, game, **options_for(spec, agent_options))
                            for spec in lineup]
        games = play_here(game, lineup, agents, names, todo, seed, env_config, record,
                          venue.batch_games, agent_options, progress)
    else:
        if agents is None and todo:  # fail here, with one clear error, not inside a worker
            for spec in lineup:
                make_agent(spec, game, **options_for(spec, agent_options))
        games = []
        for result in played_elsewhere(env_config, lineup, agent_options, todo, seed, record,
                                       venue):
            games.append(result)
            if progress:
                progress(result)
    return match_result(env_config, names, sorted([*played, *games], key=lambda g: g.index))


def play_here(game, lineup: Sequence, agents: Sequence, names: Sequence[str],
              indices: Sequence[int], seed: int, env_config: dict, record: bool,
              batch_games: int, agent_options: dict,
              progress: Callable[[GameResult], None] | None) -> list[GameResult]:
    """The games ``indices`` in this process: ``batch_games`` at a time where an agent batches
    its moves, else one by one."""
    if batch_games > 1 and can_batch(lineup, agents):
        return play_games_batched(game, lineup, agents, names, indices, seed, env_config,
                                  record, batch_games, agent_options, progress)
    n, games = len(agents), []
    for index in indices:
        dice_seed, agent_seeds = game_seeds(seed, index, n)
        result = play_game(game, agents, names, index, rotation(index, n), dice_seed,
                           agent_seeds, env_config, record)
        games.append(result)
        if progress:
            progress(result)
    return games


def match_result(env_config: dict, names: Sequence[str], games: list[GameResult]) -> MatchResult:
    """The games of one lineup with their per-agent summaries."""
    return MatchResult(dict(env_config), list(names), games, summarize(names, games))


def summarize(names: Sequence[str], games: Sequence[GameResult]) -> list[AgentSummary]:
    """Per lineup agent: games won alone, first places shared, draws (every seat equal),
    losses; the win share (a shared first place counting its share)."""
    summaries = []
    for i, name in enumerate(names):
        shares = [float(first_places(g.returns)[g.seats.index(i)]) for g in games]
        drawn = [len(set(g.returns)) == 1 for g in games]
        wins = int(sum(share == 1 for share in shares))
        shared = int(sum(0 < share < 1 and not draw for share, draw in zip(shares, drawn,
                                                                            strict=True)))
        draws = int(sum(drawn))
        low, high = wilson_interval(wins, len(games))
        moves = sum(g.moves[i] for g in games)
        seconds = sum(g.think_seconds[i] for g in games)
        won = [0.0 if draw else share for share, draw in zip(shares, drawn, strict=True)]
        by_seat = [[w for w, g in zip(won, games, strict=True) if g.seats.index(i) == seat]
                   for seat in range(len(names))]
        summaries.append(AgentSummary(
            name, len(games), wins, shared, draws, len(games) - wins - shared - draws,
            sum(won) / len(games) if games else 0.0,
            float(np.mean([g.agent_returns()[i] for g in games])) if games else 0.0, low,
            high, seconds / moves if moves else 0.0,
            [sum(seat) / len(seat) if seat else 0.0 for seat in by_seat]))
    return summaries


