"""The robustness panel (``evaluate.py schedule=panel``): opponents of diverse styles that no
recipe trains against, listed here and nowhere else. An agent is judged by its **worst** score
over them beside the average: an agent that only learned to beat the opponent it trained with
shows it here.

The members, for every game:

- ``heuristic:epsilon=0.25``: the game's heuristic playing a random move in a quarter of its
  turns (the heuristic's style, with the slips a person makes);
- ``mcts:simulations=100,rollout=random`` and ``mcts:simulations=400,rollout=random``: plain
  UCT with random play to the end, at two budgets (no game knowledge at all);
- ``mcts:simulations=200``: UCT whose cut-off rollouts the heuristic scores;
- every zoo agent of the same game and rules (``zoo:NAME``), but the one being judged: earlier
  trained agents, of other algorithms.

A training config whose opponents (AlphaZero's ``selfplay.opponents`` where it plays games,
PPO's ``pool.baselines``, the warm start's ``opponent``) include a member is refused by the
config check (:func:`check_not_trained_against`).
"""

from __future__ import annotations

from collections.abc import Sequence

import envs
import zoo
from agents import parse_spec

MEMBERS = ("heuristic:epsilon=0.25", "mcts:simulations=100,rollout=random",
           "mcts:simulations=400,rollout=random", "mcts:simulations=200")
"""The members every game's panel has (the zoo's agents of the game come on top)."""


def same_agent(a: str, b: str) -> bool:
    """Whether two specs name the same agent (options compared as values, in any order)."""
    return parse_spec(a) == parse_spec(b)


def panel(game, judged: Sequence[str] = ()) -> list[str]:
    """The panel of ``game``: :data:`MEMBERS` and the zoo agents trained on it, without any of
    the ``judged`` agents."""
    zoo_agents = [f"zoo:{name}" for name in zoo.names()
                  if not envs.config_mismatch(zoo.metadata(name)["env_config"], game)]
    return [spec for spec in (*MEMBERS, *zoo_agents)
            if not any(same_agent(spec, agent) for agent in judged)]


def check_not_trained_against(opponents: Sequence[str], game, where: str) -> None:
    """A ``ValueError`` naming the first of ``opponents`` that is a member of ``game``'s panel:
    an agent trained against it would be judged on it."""
    for spec in opponents:
        if any(same_agent(spec, member) for member in panel(game)):
            raise ValueError(f"{where}={spec!r} is a member of the evaluation panel "
                             "(arena/panel.py): an agent must not train against the opponents "
                             "it is judged by; choose another")
