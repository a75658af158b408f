"""Every config group's defaults, built from the config dataclasses and stored in Hydra's
ConfigStore, so that each default is stated once: in its dataclass, with its comment. The
YAML files beside this module hold only what a preset or a recipe changes; ``python train.py
--cfg job`` shows every effective value.

    env/<game>          the Game's keywords at their defaults (envs.default_config)
    model/small         ModelConfig (models/nets.py): the default network
    runner/local        RunnerConfig (training/runner.py)
    logger/offline      LoggerConfig (training/logging.py)
    algo/alphazero      AlphaZeroConfig (training/alphazero/algorithm.py)
    algo/ppo            PPOConfig (training/ppo/algorithm.py)
    eval/default        EvalConfig (arena/tournament.py), evaluate.py's settings
    export_defaults     ExportConfig (models/export.py), export.py's settings
    play_defaults       PlayConfig (ui/settings.py), play.py's settings

Every entry point calls :func:`register` before Hydra composes its config.
"""

from __future__ import annotations

from hydra.core.config_store import ConfigStore

import envs
from arena.tournament import EvalConfig
from models.export import ExportConfig
from models.nets import ModelConfig
from training.alphazero import AlphaZeroConfig
from training.logging import LoggerConfig
from training.ppo import PPOConfig
from training.runner import RunnerConfig
from typedconfig import to_mapping
from ui.settings import PlayConfig

ALGORITHMS = {
    "alphazero": (AlphaZeroConfig, "training.alphazero.AlphaZero",
                  # self-play on both cores (runner=local: one)
                  {"override /runner@_global_.runner": "processes"}),
    "ppo": (PPOConfig, "training.ppo.PPO",
            # cheap enough that rollouts stay near the env's speed (model/compact.yaml)
            {"override /model@_global_.model": "compact"}),
}


def register() -> None:
    store = ConfigStore.instance()
    for name in envs.GAMES:
        store.store(group="env", name=name, node=envs.default_config(name))
    store.store(group="model", name="small", node=to_mapping(ModelConfig()))
    store.store(group="runner", name="local", node=to_mapping(RunnerConfig()))
    store.store(group="logger", name="offline", node=to_mapping(LoggerConfig()))
    for name, (config, target, override) in ALGORITHMS.items():
        store.store(group="algo", name=name, node={"defaults": [override, "_self_"],
                                                   "_target_": target, **to_mapping(config())})
    store.store(group="eval", name="default", package="_global_",
                node=to_mapping(EvalConfig()))
    store.store(name="export_defaults", node=to_mapping(ExportConfig(checkpoint="???")))
    store.store(name="play_defaults", node=to_mapping(PlayConfig()))
