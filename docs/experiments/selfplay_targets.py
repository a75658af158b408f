"""How good are a network's self-play policy targets? Each against a reference player's move.

    PYTHONPATH=. python docs/experiments/selfplay_targets.py zoo:nobles_4p \
        --env "{name: nobles, num_players: 4}" \
        --variant "sims=24,gumbel_considered=8,game_value_weight=0.5" \
        --variant "sims=24,gumbel_considered=8,game_value_weight=1,policy_temperature=1000"

An AlphaZero policy learns what its self-play search makes of each position (the Gumbel root's
improved policy, or the visit shares). If that target picks worse moves than a cheap heuristic,
self-play teaches the network to play worse than the heuristic, however long it runs. This
measures it: on ``--positions`` decisions (more than one legal move) of games between copies of
``--players``, the top-1 move of each policy against the move of ``--reference`` (itself shown
with a second seed: how far the reference agrees with itself):

- the heuristic's move, the network's policy alone, uniform choice (expected agreement);
- for each ``--variant`` (spec options of the network agent: ``sims`` and any search setting),
  the target that self-play would train on: a Gumbel search with noise, its improved policy,
  and how often that target's top move is the network's own (how far the target follows the
  prior instead of improving on it).

Everything is seeded: the same arguments give the same figures.
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import yaml

import envs
from agents import make_agent
from envs.core import sample_chance
from search.puct import search


def positions(game, players: str, count: int, seed: int) -> list:
    """``count`` decision positions with more than one legal move, drawn from games between
    copies of ``players``, at most a few from each game."""
    rng = np.random.default_rng(seed)
    agent = make_agent(players, game)
    found, g = [], 0
    while len(found) < count:
        state, kept = game.new_initial_state(), []
        agent.reset(game, 0, seed + g)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            if len(state.legal_actions()) > 1:
                kept.append(state.clone())
            state.apply_action(agent.act(state.clone()))
        found += [kept[i] for i in rng.choice(len(kept), min(5, len(kept)), replace=False)]
        g += 1
    return found[:count]


def moves_of(spec: str, game, states, seed: int) -> np.ndarray:
    agent = make_agent(spec, game)
    chosen = []
    for i, state in enumerate(states):
        agent.reset(game, state.current_player(), seed + i)
        chosen.append(agent.act(state.clone()))
    return np.array(chosen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", help="zoo:NAME or checkpoint:PATH (no options)")
    parser.add_argument("--env", required=True, help='e.g. "{name: nobles, num_players: 4}"')
    parser.add_argument("--variant", action="append", default=[],
                        help="spec options of one self-play search (repeatable)")
    parser.add_argument("--reference", default="mcts:simulations=1000")
    parser.add_argument("--players", default="heuristic:epsilon=0.2",
                        help="the agent whose games give the positions")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = envs.make_game(yaml.safe_load(args.env))
    states = positions(game, args.players, args.positions, args.seed)
    reference = moves_of(args.reference, game, states, 1000)
    rows = [(f"`{args.reference}`, another seed", moves_of(args.reference, game, states, 5000),
             None),
            ("`heuristic`", moves_of("heuristic", game, states, 0), None)]
    network = make_agent(args.spec, game)
    logits, _ = network.evaluate(states)
    legal = [np.flatnonzero(s.legal_actions_mask()) for s in states]
    prior_top = np.array([lg[np.argmax(row[lg])] for lg, row in zip(legal, logits, strict=True)])
    rows.append((f"`{args.spec}`, the network's policy alone", prior_top, None))
    for variant in args.variant:
        agent = make_agent(f"{args.spec}:{variant}", game)
        config = dataclasses.replace(agent.acting.search, simulations=agent.acting.simulations,
                                     root="gumbel")
        found = search(states, agent.evaluate, config,
                       [np.random.default_rng([args.seed, i]) for i in range(len(states))],
                       add_noise=True, game_value=agent.game_value)
        target_top = np.array([r.actions[np.argmax(r.policy)] for r in found])
        rows.append((f"self-play target, `{variant}`", target_top, prior_top))
    uniform = np.mean([1.0 / len(lg) for lg in legal])
    print(f"{len(states)} positions of `{args.players}` games ({game.name}, "
          f"{game.num_players} players), against `{args.reference}`:\n")
    print("| policy | top-1 = reference | top-1 = the network's |")
    print("|---|---|---|")
    print(f"| uniform choice (expected) | {uniform:.3f} | |")
    for label, top, prior in rows:
        follows = "" if prior is None else f"{(top == prior).mean():.3f}"
        print(f"| {label} | {(top == reference).mean():.3f} | {follows} |")


if __name__ == "__main__":
    main()
