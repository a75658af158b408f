"""Untrained but complete checkpoints of the tiny network (configs/model/tiny.yaml) and their
exported files, for the export, play and README tests. Exports are slow (the ONNX exporter
traces the network), so each game config is exported once per test session and shared."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

import envs

ROOT = Path(__file__).resolve().parents[1]

GAME_CONFIGS = [
    {"name": "blockade", "num_players": 2}, {"name": "blockade", "num_players": 3},
    {"name": "blockade", "num_players": 4}, {"name": "barricade"},
    {"name": "nobles", "num_players": 2}, {"name": "nobles", "num_players": 3},
    {"name": "nobles", "num_players": 4},
]

_EXPORTS: dict[str, dict[str, Path]] = {}
_FOLDER: list[Path] = []


def config_id(env_config: dict) -> str:
    return "-".join(str(v) for v in env_config.values())


def tiny_checkpoint(path: Path, env_config: dict, seed: int = 0,
                    acting: dict | None = None) -> Path:
    """A checkpoint of a randomly initialised tiny network, its batch-norm statistics made up
    too (so that an export in training mode, or without them, would not match)."""
    import torch
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from models.checkpoint import model_payload
    from models.features import make_encoder, resolve_features
    from models.nets import ModelConfig, action_layout, build_network
    from training.saving import save_checkpoint
    from typedconfig import from_mapping

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        tiny = OmegaConf.to_container(compose("config", overrides=["model=tiny"]).model)
    # The whole env config, as a training run records it (every key, with the overrides).
    env_config = {**envs.default_config(env_config["name"]), **env_config}
    game = envs.make_game(env_config)
    tiny["features"] = list(resolve_features(game, tiny["features"]))
    config = from_mapping(ModelConfig, tiny, "model")
    encoder = make_encoder(game, config.features)
    torch.manual_seed(seed)
    net = build_network(encoder.shape, game.num_actions, game.num_players, config,
                        action_layout(encoder))
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
    save_checkpoint(path, {
        "algo": "alphazero", "config": {"model": tiny, "env": env_config},
        "env_config": env_config,
        "model": model_payload(net, encoder, game.num_actions, game.num_players, config),
        "acting": acting or {"simulations": 0, "temperature": 0.5,
                             "search": {"simulations": 8, "root": "gumbel"}},
        "counters": {"iteration": 0},
        "history": [{"iteration": 0, "eval/random/win_rate": 0.5}]})
    return path


def exported(env_config: dict) -> dict[str, Path]:
    """The files of ``export_checkpoint`` (both formats) for a tiny checkpoint of
    ``env_config``, plus ``checkpoint``; made once per session, shared read-only."""
    key = config_id(env_config)
    if key not in _EXPORTS:
        from models.export import ExportConfig, export_checkpoint

        if not _FOLDER:
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="policy-files-")))
            atexit.register(shutil.rmtree, _FOLDER[0], True)
        folder = _FOLDER[0] / key
        checkpoint = tiny_checkpoint(folder / "last.pt", env_config)
        files = export_checkpoint(ExportConfig(str(checkpoint), out_dir=str(folder)))
        _EXPORTS[key] = {**files, "checkpoint": checkpoint}
    return _EXPORTS[key]


def copy_exported(env_config: dict, destination: Path) -> dict[str, Path]:
    """:func:`exported`'s files copied into ``destination`` (for tests that change them)."""
    files = {}
    for kind, path in exported(env_config).items():
        files[kind] = destination / path.name
        shutil.copyfile(path, files[kind])
    return files


def random_positions(game, count: int, seed: int, keep: float = 0.2) -> list:
    """``count`` decision positions of seeded random games (chance drawn by probability), each
    decision kept with probability ``keep`` so that they come from several games."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(states) < count:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                continue
            if rng.random() < keep:
                states.append(state.clone())
            actions = state.legal_actions()
            state.apply_action(actions[rng.integers(len(actions))])
    return states


def sidecar(files: dict[str, Path]) -> dict:
    return json.loads(files["metadata"].read_text())
