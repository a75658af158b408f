"""What ``train.py`` does for every algorithm: resolve the config (merging a resumed run's
config with the command line), set up logging, dispatch on ``algo.name``, and report."""

from __future__ import annotations

import importlib
from pathlib import Path

from omegaconf import DictConfig, OmegaConf
from rich.console import Console

from models.features import resolve_features
from training.checkpoint import CheckpointError, load_checkpoint
from training.evaluation import print_tables
from training.logging import RunLogger

ALGORITHMS = {"alphazero": "training.alphazero", "ppo": "training.ppo"}
"""algo.name -> module with ``train(config, run_dir, logger, resume) -> TrainResult``."""

CONFIG_GROUPS = ("env", "algo", "model", "logger", "runner")
FIXED_ON_RESUME = ("env", "model", "seed")
"""What a resumed run may not change: the game, the network and the seeds."""


def name_features(config: dict) -> None:
    """Replace ``auto`` in ``model.features`` by the names it stands for (what the checkpoint
    records, so that its network's input never depends on what ``auto`` means later)."""
    model = config["model"]
    model["features"] = list(resolve_features(config["env"]["name"], model.get("features") or ()))


def resumed_config(checkpoint_config: dict, current: DictConfig, overrides: list[str]) -> dict:
    """The checkpoint's config with this command line's overrides on top (``resume=PATH
    algo.iterations=60`` extends a run). Changing the game, network or seed is an error."""
    merged = OmegaConf.create(checkpoint_config)
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if key == "resume" or key.startswith("hydra"):
            continue
        value = current[key] if key in CONFIG_GROUPS else OmegaConf.select(current, key)
        OmegaConf.update(merged, key, value, force_add=True)
    merged.resume = current.resume
    merged = OmegaConf.to_container(merged, resolve=True)
    name_features(merged)
    for key in FIXED_ON_RESUME:
        if merged[key] != checkpoint_config[key]:
            raise CheckpointError(f"cannot resume with a different {key}: the checkpoint has "
                                  f"{checkpoint_config[key]!r}, this command line gives "
                                  f"{merged[key]!r}")
    return merged


def run(cfg: DictConfig, run_dir: str | Path, overrides: list[str] | None = None,
        console: Console | None = None):
    """Train as ``cfg`` says, writing into ``run_dir``; returns the algorithm's TrainResult."""
    console = console or Console()
    run_dir = Path(run_dir)
    resume = None
    if cfg.get("resume"):
        resume = load_checkpoint(cfg.resume)
        config = resumed_config(resume["config"], cfg, list(overrides or []))
        if resume["algo"] != config["algo"]["name"]:
            raise CheckpointError(f"checkpoint {cfg.resume} is from {resume['algo']}, "
                                  f"not {config['algo']['name']}")
    else:
        config = OmegaConf.to_container(cfg, resolve=True)
        name_features(config)
    name = config["algo"]["name"]
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algo.name {name!r}; choose one of {', '.join(ALGORITHMS)}")
    logger = RunLogger(config["logger"], config, run_dir, name=f"{name}-{config['env']['name']}")
    try:
        result = importlib.import_module(ALGORITHMS[name]).train(config, run_dir, logger, resume)
    finally:
        logger.finish()
    if result.final_eval:
        print_tables(result.final_eval, console)
    console.print(f"checkpoint: {result.checkpoint}")
    return result
