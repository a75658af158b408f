"""Evaluation during and after training, through the arena: the trained policy against
baseline agents, with win rates (95% Wilson interval for two players) and ratings.

Algorithm-agnostic: it takes a :class:`training.checkpoint.Policy`. With ``enabled: false`` no
evaluation runs (and the arena is not needed); with ``enabled: true`` a missing arena package is
an error, never a silent skip.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.console import Console


@dataclass(frozen=True)
class EvalConfig:
    enabled: bool = True
    every: int = 5
    games: int = 20
    opponents: tuple[str, ...] = ("random",)
    final_games: int = 200
    final_opponents: tuple[str, ...] = ("random", "heuristic")
    simulations: int = 0
    temperature: float = 0.0
    seed: int = 12345

    def __post_init__(self):
        if self.every < 0 or self.games < 1 or self.final_games < 0 or self.simulations < 0:
            raise ValueError("eval.every, eval.final_games and eval.simulations must be >= 0 and "
                             "eval.games >= 1")
        if self.temperature < 0:
            raise ValueError(f"eval.temperature must be >= 0, got {self.temperature}")


class PolicyAgent:
    """A :class:`~training.checkpoint.Policy` as an arena agent (in-process, ``workers=1``)."""

    def __init__(self, policy, name: str = "trained"):
        self.policy = policy
        self.name = name

    def reset(self, game, player: int, seed: int) -> None:
        self.policy.reset(seed)

    def act(self, state) -> int:
        return self.policy.act(state)


def _arena():
    try:
        import arena
    except ModuleNotFoundError as error:
        raise RuntimeError("evaluation needs the arena package; install it or set "
                           "algo.eval.enabled=false") from error
    return arena


def evaluate(policy, env_config: dict, opponents, games: int, seed: int,
             progress: Callable[[object], None] | None = None) -> dict:
    """One match per opponent: the trained agent against ``num_players - 1`` copies of it.
    Returns ``{opponent: MatchResult}``; ``progress`` is called with each finished game."""
    arena = _arena()
    agent = PolicyAgent(policy)
    n = policy.game.num_players
    games = match_games(games, n)
    return {opp: arena.play_match(env_config, [agent] + [opp] * (n - 1), games, seed,
                                  progress=progress)
            for opp in opponents}


def match_games(games: int, num_players: int) -> int:
    """``games`` rounded up to whole seat rotations."""
    return max(num_players, -(-games // num_players) * num_players)


def metrics(results: dict, prefix: str = "eval") -> dict:
    """Scalars for the logger: win rate with interval, mean return and rating per opponent."""
    out = {}
    for opp, result in results.items():
        s = result.summaries[0]
        rating = next((r for r in result.ratings if r.name == result.names[0]), None)
        key = f"{prefix}/{opp}"
        out.update({f"{key}/win_rate": s.win_rate, f"{key}/win_low": s.win_low,
                    f"{key}/win_high": s.win_high, f"{key}/draw_rate": s.draws / s.games,
                    f"{key}/mean_return": s.mean_return})
        if rating is not None:
            out[f"{key}/rating"] = rating.rating
    return out


def score(results: dict) -> float | None:
    """One number for a run: the trained agent's win rate averaged over the opponents of an
    evaluation (what a hyperparameter sweep maximises); None when nothing was evaluated."""
    if not results:
        return None
    return float(np.mean([r.summaries[0].win_rate for r in results.values()]))


def win_rate_parts(stats: dict) -> list[str]:
    """Console-line parts for the periodic evaluations in ``stats`` (metrics' eval/ keys)."""
    return [f"{k.split('/')[1]} win {v:.2f}" for k, v in stats.items()
            if k.startswith("eval/") and k.endswith("/win_rate")]


def print_tables(results: dict, console: Console | None = None) -> None:
    from arena.report import results_table

    console = console or Console()
    for opp, result in results.items():
        console.print(results_table(result, title=f"trained vs {opp}"))
