"""Evaluate agents against each other in one game:

    python evaluate.py env=blockade agents=[heuristic,random,mcts] games=200

plays every lineup with seats rotated, prints tables with a progress bar, and writes
results.json, results.csv, ratings.png (and games.jsonl / GIFs when asked) under
outputs/eval/<game>/<time>/, logging the same to W&B when the logger is on. Settings:
configs/evaluate.yaml and configs/eval/*.yaml (``eval=strength``, ``eval=versus_random``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from arena.evaluation import EvalConfig, check_agents, lineups, log_to_wandb, run_evaluation


@hydra.main(version_base=None, config_path="configs", config_name="evaluate")
def main(cfg: DictConfig) -> None:
    values = OmegaConf.to_container(cfg, resolve=True)
    env_config = values.pop("env")
    logger = values.pop("logger")
    try:
        config = EvalConfig.from_dict(values)
        game = check_agents(env_config, config.agents, config.agent_options)
        lineups(config, game.num_players)
    except (ValueError, TypeError, FileNotFoundError) as error:
        sys.exit(f"error: {error}")
    evaluation = run_evaluation(env_config, config, Path(HydraConfig.get().runtime.output_dir))
    log_to_wandb(logger, OmegaConf.to_container(cfg, resolve=True), evaluation)


if __name__ == "__main__":
    main()
