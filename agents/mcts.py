"""Plain MCTS as an agent: :mod:`search.uct` with the game's heuristic evaluation for cut-off
rollouts and its action ranking for progressive widening."""

from __future__ import annotations

import dataclasses

from agents.heuristic import heuristic_for, heuristic_module
from search.uct import UCT, UCTConfig
from typedconfig import from_mapping

ROLLOUTS = ("cutoff", "random")
OPTIONS = (*(f.name for f in dataclasses.fields(UCTConfig)), "rollout", "priors")
"""The keyword options of ``mcts`` agents."""


class MCTSAgent:
    """Options (keywords): ``simulations``, ``exploration``, ``rollout`` (``cutoff``: at most
    ``rollout_depth`` random actions, then the heuristic's evaluation; ``random``: random play
    to the end of the game), ``rollout_depth``, ``widening``, ``widening_exponent`` and
    ``priors`` (grow children in the heuristic's order rather than a random one). Defaults come
    from the game's ``MCTS_DEFAULTS``, then :class:`search.uct.UCTConfig`."""

    name = "mcts"

    def __init__(self, game, **options):
        settings = {**heuristic_module(game.name).MCTS_DEFAULTS, **options}
        rollout = settings.pop("rollout", "cutoff")
        priors = settings.pop("priors", True)
        if rollout not in ROLLOUTS:
            raise ValueError(f"mcts rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        unknown = sorted(set(settings) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown mcts option(s) {', '.join(unknown)}; valid: "
                             f"{', '.join(sorted(OPTIONS))}")
        if rollout == "random":
            settings["rollout_depth"] = None
        elif settings.get("rollout_depth", 0) is None:
            raise ValueError("mcts rollout=cutoff needs an integer rollout_depth; "
                             "use rollout=random to play rollouts to the end")
        self.config = from_mapping(UCTConfig, settings, "mcts agent")
        heuristic = heuristic_for(game)
        self._search = UCT(game.num_players, self.config, evaluate=heuristic.evaluate,
                           order=heuristic.order if priors else None)

    def reset(self, game, player: int, seed: int) -> None:
        self._search.seed(seed)

    def act(self, state) -> int:
        return self._search.best_action(state)

    def act_with_policy(self, state) -> tuple[int, dict[int, float]]:
        move, visits = self._search.decide(state)
        total = sum(visits.values())
        return move, {action: count / total for action, count in visits.items()}
