"""Evaluation during and after training, through the arena: the trained agent against
baseline agents, with win rates (95% Wilson interval) and its rating on the one Elo scale
(arena/stats.py, random = 0).

The learning curve's rating: the opponents are fixed anchors whose ratings stay put for the
whole run (``eval.anchor_ratings``, the others measured once from games between the anchors),
and the trained agent's rating against them is comparable from one evaluation to the next.

Algorithm-agnostic: it takes a :class:`agents.network.NetworkAgent`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from rich.console import Console

import envs
from arena.backends import Venue
from arena.match import play_match
from arena.report import ProgressLine, report_console, results_table
from arena.stats import Rating, rate, wilson_interval


@dataclass(frozen=True)
class TrainingEvalConfig:
    """``algo.eval``: the evaluations during and after a training run, through the arena
    (``evaluate.py``'s own config is :class:`arena.tournament.EvalConfig`)."""

    # false = no evaluation at all (the arena is not needed)
    enabled: bool = True
    # evaluate every this many iterations (0 = only at the end)
    every: int = 5
    # games per opponent at each periodic evaluation
    games: int = 20
    # agent specs of the periodic evaluation: the anchors of the learning curve
    # (learning_curve.png, eval/rating), e.g. '[random,heuristic,"mcts:simulations=200"]'
    opponents: tuple[str, ...] = ("random",)
    # games per opponent in the final evaluation (0 = none)
    final_games: int = 200
    # agent specs of the final evaluation (final_evaluation.json)
    final_opponents: tuple[str, ...] = ("random", "heuristic")
    # the trained agent's search simulations (0 = it plays from the network's policy); also
    # what checkpoint:PATH agents use unless told otherwise (checkpoint:PATH:sims=200)
    simulations: int = 0
    # with simulations 0: sample from softmax(logits / temperature) (0 = always the most likely
    # action, which can shuttle a pawn between two squares of nearly equal value)
    temperature: float = 0.0
    # games played at once; the trained agent's moves in all of them go through the network in
    # one batch (the same games as one at a time)
    batch_games: int = 32
    # evaluation match seed
    seed: int = 12345
    # Elo of anchors held fixed (random = the scale's zero); opponents not listed are rated
    # once, at the first evaluation, from games between the anchors; the trained agent's rating
    # against them is logged as eval/rating
    anchor_ratings: dict = field(default_factory=lambda: {"random": 0.0})
    # games per pair of anchors for that one-off rating
    anchor_games: int = 20

    def __post_init__(self):
        if self.every < 0 or self.final_games < 0 or self.simulations < 0:
            raise ValueError("eval.every, eval.final_games and eval.simulations must be >= 0")
        if self.games < 1 or self.batch_games < 1:
            raise ValueError("eval.games and eval.batch_games must be >= 1")
        if self.anchor_games < 1:
            raise ValueError(f"eval.anchor_games must be >= 1, got {self.anchor_games}")
        for spec, rating in self.anchor_ratings.items():
            if isinstance(rating, bool) or not isinstance(rating, (int, float)):
                raise ValueError(f"eval.anchor_ratings: the rating of {spec!r} must be a number, "
                                 f"got {rating!r}")
        if self.temperature < 0:
            raise ValueError(f"eval.temperature must be >= 0, got {self.temperature}")


def evaluate(agent, env_config: dict, opponents, games: int, seed: int,
             progress: Callable[[object], None] | None = None, batch_games: int = 1) -> dict:
    """One match per opponent: the trained agent against ``num_players - 1`` copies of it,
    ``batch_games`` games at once (its moves in one network batch). Returns ``{opponent:
    MatchResult}``; ``progress`` is called with each finished game."""
    n = envs.make_game(env_config).num_players
    games = match_games(games, n)
    return {opp: play_match(env_config, [agent] + [opp] * (n - 1), games, seed,
                            progress=progress, venue=Venue(batch_games=batch_games))
            for opp in opponents}


def match_games(games: int, num_players: int) -> int:
    """``games`` rounded up to whole seat rotations."""
    return max(num_players, -(-games // num_players) * num_players)


def metrics(results: dict, prefix: str = "eval") -> dict:
    """Scalars for the logger per opponent: win rate with interval, win share (a shared first
    place counting its share), the rates of shared first places and draws, mean return."""
    out = {}
    for opp, result in results.items():
        s = result.summaries[0]
        key = f"{prefix}/{opp}"
        share_low, share_high = wilson_interval(s.win_share * s.games, s.games)
        out.update({f"{key}/win_rate": s.win_rate, f"{key}/win_low": s.win_low,
                    f"{key}/win_high": s.win_high, f"{key}/win_share": s.win_share,
                    f"{key}/share_low": share_low, f"{key}/share_high": share_high,
                    f"{key}/shared_rate": s.shared / s.games,
                    f"{key}/draw_rate": s.draws / s.games, f"{key}/mean_return": s.mean_return})
    return out


def anchor_ratings(env_config: dict, config: TrainingEvalConfig, known: dict,
                   say: Callable[[str], None] = print) -> dict[str, float]:
    """The Elo rating of every anchor (``config.opponents``): those of ``config.anchor_ratings``
    as given, then those in ``known`` (measured earlier in the run) as they were; the rest
    measured once from ``config.anchor_games`` games of each of them against every other
    anchor, the known ones held fixed (none known: the first anchor is 0)."""
    anchors = list(config.opponents)
    ratings = {a: float(r) for a, r in {**known, **config.anchor_ratings}.items() if a in anchors}
    missing = [a for a in anchors if a not in ratings]
    if not missing:
        return ratings
    if not ratings:
        ratings[anchors[0]] = 0.0
        missing = missing[1:]
        if not missing:
            return ratings
    n = envs.make_game(env_config).num_players
    pairs = [(i, j) for i, a in enumerate(anchors) for j, b in enumerate(anchors)
             if i < j and (a in missing or b in missing)]
    games = match_games(config.anchor_games, n)
    say(f"rating the anchors {', '.join(missing)} once for this run: {games} games per pair of "
        f"anchors, {len(pairs)} pairs (eval.anchor_ratings gives them without games)")
    progress = ProgressLine("anchor games", games * len(pairs))
    matches = {(i, j): play_match(env_config, [anchors[i]] + [anchors[j]] * (n - 1),
                                        games, config.seed + 2, progress=progress)
               for i, j in pairs}
    return {r.name: r.rating for r in rate(list(matches.values()), ratings)}


def trained_rating(results: dict, anchors: dict[str, float]):
    """The trained agent's :class:`arena.stats.Rating` from its matches (``{opponent:
    MatchResult}``) against the opponents with a rating in ``anchors``; ``None`` without any."""
    rated = [opp for opp in results if opp in anchors]
    if not rated:
        return None
    trained = results[rated[0]].names[0]  # the agent's lineup name in its matches
    fitted = rate([results[opp] for opp in rated], {opp: anchors[opp] for opp in rated})
    return next(rating for rating in fitted if rating.name == trained)


def rating_metrics(rating, prefix: str = "eval") -> dict:
    if rating is None:
        return {}
    return {f"{prefix}/rating": rating.rating, f"{prefix}/rating_low": rating.low,
            f"{prefix}/rating_high": rating.high}


def score(results: dict) -> float | None:
    """One number for a run: the trained agent's win rate averaged over the opponents of an
    evaluation (what a hyperparameter sweep maximises); None when nothing was evaluated."""
    if not results:
        return None
    return float(np.mean([r.summaries[0].win_rate for r in results.values()]))


def win_rate_parts(stats: dict) -> list[str]:
    """Console-line parts for the periodic evaluations in ``stats`` (metrics' eval/ keys)."""
    parts = [f"{k.split('/')[1]} win {v:.2f}" for k, v in stats.items()
             if k.startswith("eval/") and k.endswith("/win_rate")]
    if "eval/rating" in stats:
        parts.append(f"Elo {stats['eval/rating']:.0f}")
    return parts


def table_ratings(results: dict, trained, anchors: dict[str, float]) -> dict[str, Rating]:
    """The ratings a final table shows: the trained agent's and its rated opponents'."""
    ratings = {name: Rating(name, value, value, value) for name, value in anchors.items()}
    if trained is not None:
        ratings[trained.name] = trained
    return ratings


def print_tables(results: dict, ratings: dict[str, Rating],
                 console: Console | None = None) -> None:
    console = console or report_console()
    for opp, result in results.items():
        console.print(results_table(result, title=f"trained vs {opp}", ratings=ratings))
