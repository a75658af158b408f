"""Evaluation speed: milliseconds per move of a trained agent (the default network, untrained
weights: speed does not depend on them) in the two places it plays,

- ``training``: the training run's own evaluation (``training.evaluation.evaluate``, the
  policy as an in-process arena agent), and
- ``evaluate.py``: a ``checkpoint:PATH`` agent built from the saved file and played by
  ``arena.tournament.run_evaluation`` with its default settings,

both against ``random`` on the same game, seeds and number of games, in one run, each one game
at a time (``batch_games=1``) and with the default ``batch_games`` (many games at once, the
agent's moves in one network batch, as self-play batches its searches). Target: ``evaluate.py``
within 1.5x of ``training``.

    python benchmarks/eval_speed.py                  # Blockade, 2 players, 20 games
    python benchmarks/eval_speed.py --game nobles --games 40
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

import envs
from agents.network import Acting, NetworkAgent
from arena.tournament import EvalConfig, run_evaluation
from models.checkpoint import model_payload
from models.evaluator import NetworkEvaluator
from models.features import make_encoder, resolve_features
from models.nets import ModelConfig, action_layout, build_network
from training.evaluation import evaluate
from training.saving import save_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def checkpoint_of_default_network(game_name: str, folder: Path) -> tuple[Path, NetworkAgent]:
    env_config = {"name": game_name}
    game = envs.make_game({"name": game_name})
    config = ModelConfig(features=resolve_features(game, ModelConfig().features))
    encoder = make_encoder(game, config.features)
    net = build_network(encoder.shape, game.num_actions, game.num_players, config,
                        action_layout(encoder)).eval()
    acting = Acting(0, 0.5)
    agent = NetworkAgent(NetworkEvaluator(net, encoder, game.num_players), acting, "trained")
    path = save_checkpoint(folder / "last.pt", {
        "algo": "benchmark", "config": {}, "env_config": env_config,
        "model": model_payload(net, encoder, game.num_actions, game.num_players, config),
        "acting": acting.to_dict(), "counters": {}})
    return path, agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="blockade")
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    default_threads = torch.get_num_threads()
    batched = EvalConfig.batch_games
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        path, agent = checkpoint_of_default_network(args.game, Path(folder))
        for batch_games in (1, batched):
            torch.set_num_threads(1)  # as the training run sets it
            trained = evaluate(agent, {"name": args.game}, ["random"], args.games, seed=0,
                               batch_games=batch_games)
            rows["training's evaluation", batch_games] = trained["random"].summaries[0]
            torch.set_num_threads(default_threads)  # evaluate.py sets its own (torch_threads)
            config = EvalConfig.from_dict({"agents": [f"checkpoint:{path}", "random"],
                                           "games": args.games, "chart": False,
                                           "batch_games": batch_games})
            evaluation = run_evaluation({"name": args.game}, config,
                                        Path(folder) / f"eval{batch_games}", Console(quiet=True))
            rows["evaluate.py checkpoint:PATH", batch_games] = evaluation.matches[0].summaries[0]
    reference = rows["training's evaluation", batched].seconds_per_move
    table = Table(title=f"{args.game}: ms per move of a trained agent, {args.games} games "
                  "against random")
    for column in ("where", "batch_games", "ms/move", "× training (batched)"):
        table.add_column(column, justify="right")
    for (where, batch_games), summary in rows.items():
        table.add_row(where, str(batch_games), f"{1000 * summary.seconds_per_move:.2f}",
                      f"{summary.seconds_per_move / reference:.2f}")
    Console().print(table)


if __name__ == "__main__":
    main()
