"""Can the network learn a fixed player's moves? Imitation of a teacher, by supervised learning.

    PYTHONPATH=. python docs/experiments/policy_capacity.py \
        --env "{name: nobles, num_players: 4}" --features capture_odds --games 300

A policy that self-play cannot teach may still be one the network cannot represent. This
separates the two: the teacher (``--teacher``, default the game's ``heuristic``, deterministic)
labels every decision with more than one legal move in games between copies of ``--players``,
and two networks learn those labels alone, with no search and no noise in the targets:

- **policy head**: the network of ``--model`` options (``models/nets.py``, as training builds
  it) on the position, one logit per action, masked to the legal ones;
- **afterstate scorer**: a two-layer MLP that scores the position after each legal move, seen
  from the mover's seat (the encoding TD-Gammon evaluated), its scores the logits.

The first ``--held-out`` positions are held out; the table gives the top-1 agreement with the
teacher on the training positions and on the held-out ones every few epochs. A network that
fits its training positions but not the held-out ones cannot generalise the teacher's rule
from this input. Seeded: the same arguments give the same figures.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
import yaml

import envs
from agents import make_agent
from agents.heuristic import successors
from envs.core import sample_chance
from models.features import make_encoder
from models.nets import ModelConfig, network_for
from models.views import ViewMaps


def labelled_positions(game, encoder, players: str, teacher: str, games: int, seed: int,
                       afterstates: bool = True):
    """Per decision with more than one legal move: the position's encoding, its legal mask
    and the teacher's move (both in the mover's view), and (``afterstates``, else ``None``)
    the encodings of the position after each legal move with the index of the teacher's
    among them."""
    maps = ViewMaps(encoder, game.num_players)
    player, labeller = make_agent(players, game), make_agent(teacher, game)
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        state = game.new_initial_state()
        player.reset(game, 0, seed + g)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            mover, legal = state.current_player(), state.legal_actions()
            if len(legal) > 1:
                labeller.reset(game, mover, seed + g)
                move = labeller.act(state.clone())
                after = np.stack([encoder.encode(child, mover) for _, child
                                  in successors(state, legal)]) if afterstates else None
                rows.append((encoder.encode(state, mover),
                             maps.policy_to_view(state.legal_actions_mask(), mover),
                             maps.inverse[mover][move], after, legal.index(move)))
            state.apply_action(player.act(state.clone()))
    return rows


def train(logits_of, parameters, labels, train_rows, test_rows, epochs: int, report: int,
          label: str) -> None:
    optimiser = torch.optim.Adam(parameters, lr=1e-3)
    for epoch in range(1, epochs + 1):
        order = train_rows[torch.randperm(len(train_rows))]
        for i in range(0, len(order), 256):
            batch = order[i:i + 256]
            loss = torch.nn.functional.cross_entropy(logits_of(batch), labels[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        if epoch % report == 0 or epoch == epochs:
            with torch.no_grad():
                def agreement(rows):
                    return (logits_of(rows).argmax(1) == labels[rows]).float().mean().item()
                print(f"| {label} | {epoch} | {agreement(train_rows[:len(test_rows)]):.3f} | "
                      f"{agreement(test_rows):.3f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help='e.g. "{name: nobles, num_players: 4}"')
    parser.add_argument("--features", nargs="*", default=[], help="derived input features")
    parser.add_argument("--model", default="{}", help="ModelConfig options, e.g. '{hidden: 512}'")
    parser.add_argument("--teacher", default="heuristic")
    parser.add_argument("--players", default="heuristic:epsilon=0.2")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--held-out", type=int, default=5000)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--networks", nargs="+", choices=("policy", "afterstate"),
                        default=["policy", "afterstate"],
                        help="which to train (the afterstates take the memory: one encoding "
                             "per legal move)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    game = envs.make_game(yaml.safe_load(args.env))
    encoder = make_encoder(game, args.features)
    model = ModelConfig(**yaml.safe_load(args.model), features=tuple(args.features))
    afterstates = "afterstate" in args.networks
    rows = labelled_positions(game, encoder, args.players, args.teacher, args.games, args.seed,
                              afterstates)
    held_out = min(args.held_out, len(rows) // 2)
    test_rows, train_rows = torch.arange(held_out), torch.arange(held_out, len(rows))
    obs = torch.tensor(np.stack([r[0] for r in rows]), dtype=torch.float32)
    masks = torch.tensor(np.stack([r[1] for r in rows]))
    print(f"{len(rows)} positions labelled by `{args.teacher}` in {args.games} games of "
          f"`{args.players}` ({game.name}, {game.num_players} players), {held_out} held out; "
          f"{masks.sum(1).float().mean():.2f} legal moves on average, so uniform choice agrees "
          f"{(1.0 / masks.sum(1).float()).mean():.3f}\n")
    print("| network | epochs | top-1 = teacher, training positions | held-out positions |")
    print("|---|---|---|---|")
    report = max(1, args.epochs // 4)
    if "policy" in args.networks:
        net = network_for(game, encoder, model)
        train(lambda b: net(obs[b])[0].masked_fill(~masks[b], -1e9), net.parameters(),
              torch.tensor([r[2] for r in rows]), train_rows, test_rows, args.epochs, report,
              "policy head")
    if not afterstates:
        return
    widest = max(len(r[3]) for r in rows)
    after = torch.zeros((len(rows), widest, *obs.shape[1:]))
    present = torch.zeros((len(rows), widest), dtype=torch.bool)
    for i, r in enumerate(rows):
        after[i, :len(r[3])] = torch.from_numpy(r[3])
        present[i, :len(r[3])] = True
    width = model.hidden
    scorer = torch.nn.Sequential(torch.nn.Flatten(-obs.ndim + 1), torch.nn.Linear(
        obs[0].numel(), width), torch.nn.ReLU(), torch.nn.Linear(width, width), torch.nn.ReLU(),
        torch.nn.Linear(width, 1))
    train(lambda b: scorer(after[b]).squeeze(-1).masked_fill(~present[b], -1e9),
          scorer.parameters(), torch.tensor([r[4] for r in rows]), train_rows, test_rows,
          args.epochs, report, "afterstate scorer")


if __name__ == "__main__":
    main()
