"""Evaluate agents against each other in one game:

    python evaluate.py env=blockade agents=[heuristic,random,mcts] games=200

plays every lineup with seats rotated, prints tables with a progress bar (and the time left),
and writes results.json, results.csv, ratings.png (and games.jsonl / GIFs when asked) under
outputs/eval/<game>/<time>/, logging the same to W&B when the logger is on. Ctrl-C writes the
games finished so far, marked ``"partial": true`` (exit code 130), and
``resume=<its folder>`` later plays only the games missing (the same games an uninterrupted
run plays, written into that folder: configs/evaluate.yaml's ``run_folder``). ``workers=W``
plays in W processes, ``backend=ray`` as Ray tasks (here or on a cluster: docs/cluster.md),
with the same games. Settings:
configs/evaluate.yaml and configs/eval/*.yaml (``eval=strength``, ``eval=versus_random``).
Bad input is one line and exit code 2, before any game.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from arena.tournament import (
    EvalConfig,
    build_agents,
    log_to_wandb,
    resumed_games,
    run_evaluation,
)
from configs.cli import entry_point
from configs.store import register
from training.launch import computed_once, register_resolvers
from training.logging import check_credentials, console_copied_to
from typedconfig import refuse

register()  # the config groups' defaults, from their dataclasses
register_resolvers()  # before Hydra composes configs/evaluate.yaml, which uses them


def prepare(cfg: DictConfig, keep: bool = False) -> tuple[dict, EvalConfig, dict[str, list]]:
    """The env config, the typed evaluation config and every agent, built once for the whole
    run (:func:`arena.tournament.build_agents`, which also checks the schedule) and for the
    check before start (``keep``: :func:`training.launch.computed_once`); bad input raises
    ``ValueError``/``TypeError``/``FileNotFoundError`` with a one-line message, as does a
    ``resume`` file that does not fit the evaluation."""
    values = {key: OmegaConf.to_container(value, resolve=True)
              if OmegaConf.is_config(value) else value
              for key, value in cfg.items() if key not in ("logger", "hydra")}
    env_config = values.pop("env")
    config = EvalConfig.from_dict(values)
    resumed_games(env_config, config)  # a resume file that does not fit fails before any game
    key = ("evaluate", json.dumps([env_config, values], sort_keys=True, default=str))
    return env_config, config, computed_once(key, lambda: build_agents(env_config, config),
                                             keep=keep)


def check_config(cfg: DictConfig) -> None:
    """What Hydra's check before start (configs/evaluate.yaml) runs: :func:`prepare`, and
    W&B's credentials for an online logger."""
    prepare(cfg, keep=True)
    check_credentials(cfg.logger.mode)


@entry_point("evaluate", groups=("env", "eval", "logger"),
             settings=lambda: [("", EvalConfig)])
def main(cfg: DictConfig) -> None:
    try:
        env_config, config, agents = prepare(cfg)
    except (ValueError, TypeError, FileNotFoundError) as error:
        refuse(error)
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    # Ctrl-C and a plain `kill` stop an evaluation (the finished games are written, marked
    # partial), also when it was started from a job that ignores SIGINT (a shell's background
    # job passes the ignored signal on to every program it starts).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with console_copied_to(out_dir / "evaluate.log"):
        evaluation = run_evaluation(env_config, config, out_dir, agents=agents)
    run_config = OmegaConf.to_container(cfg, resolve=True)
    if evaluation.matches:
        log_to_wandb(run_config["logger"], run_config, evaluation, out_dir)
    if evaluation.partial:
        sys.exit(130)  # stopped by Ctrl-C, after writing the games finished so far


if __name__ == "__main__":
    main()
