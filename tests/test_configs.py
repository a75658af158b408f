"""One source per default: every config group's defaults come from its dataclass
(configs/store.py), the YAML presets and recipes change only what they set (a key restating
the value it would have anyway, or one its dataclass lacks, fails here), every setting has a
comment in its dataclass, and ``--cfg job`` still shows every effective value."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from typedconfig import field_comments

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs"
PRESET_GROUPS = ("env", "model", "runner", "logger", "eval")


def leaves(mapping: dict, prefix: str = ""):
    for key, value in mapping.items():
        if isinstance(value, dict) and value:
            yield from leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def settings_it_does_not_change(path: Path) -> list[str]:
    """The keys of a preset or recipe that name no setting of its config, or restate the value
    the config has without it (composed from what its defaults list starts from)."""
    body = OmegaConf.to_container(OmegaConf.load(path))
    group, primary, overrides = path.parent.name, "config", []
    for entry in body.pop("defaults", []):
        if isinstance(entry, str) and entry != "_self_":  # a preset built on another one
            overrides.append(f"+{group}={entry}" if group == "experiment" else f"{group}={entry}")
        elif isinstance(entry, dict):
            overrides += [f"{key.removeprefix('override /').split('@')[0]}={value}"
                          for key, value in entry.items()]
    if group == "eval":  # evaluate.py's settings, at the top level (@package _global_)
        primary = "evaluate"
    elif group in PRESET_GROUPS:
        body = {group: body}
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        base = compose(primary, overrides=overrides)
    wrong = []
    for key, value in leaves(body):
        before = OmegaConf.select(base, key, default=KeyError)
        if OmegaConf.is_config(before):
            before = OmegaConf.to_container(before)
        if before is KeyError or before == value:
            wrong.append(key)
    return wrong


YAMLS = sorted(p for folder in (*PRESET_GROUPS, "experiment") for p in (CONFIGS / folder)
               .glob("*.yaml"))


@pytest.mark.parametrize("path", YAMLS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_preset_or_recipe_sets_only_what_it_changes(path):
    assert settings_it_does_not_change(path) == []


def test_a_restated_default_or_an_unknown_key_is_caught(tmp_path):
    preset = tmp_path / "model" / "restating.yaml"
    preset.parent.mkdir()
    preset.write_text("defaults:\n  - small\n  - _self_\nchannels: 32\nblocks: 2\nwidth: 3\n")
    assert settings_it_does_not_change(preset) == ["model.channels", "model.width"]


def config_classes() -> list[type]:
    from arena.tournament import EvalConfig
    from models.export import ExportConfig
    from models.nets import ModelConfig
    from training.alphazero import AlphaZeroConfig
    from training.logging import LoggerConfig
    from training.ppo import PPOConfig
    from training.runner import RunnerConfig
    from ui.settings import PlayConfig

    found, todo = [], [AlphaZeroConfig, PPOConfig, ModelConfig, RunnerConfig, LoggerConfig,
                        EvalConfig, ExportConfig, PlayConfig]
    while todo:
        cls = todo.pop()
        if cls in found:
            continue
        found.append(cls)
        for field in dataclasses.fields(cls):
            default = (field.default_factory() if field.default_factory is not dataclasses.MISSING
                       else field.default)
            if dataclasses.is_dataclass(default):
                todo.append(type(default))
    return found


@pytest.mark.parametrize("cls", config_classes(), ids=lambda c: c.__name__)
def test_every_setting_has_a_comment_in_its_dataclass(cls):
    comments = field_comments(cls)
    lacking = [f.name for f in dataclasses.fields(cls) if f.name not in comments]
    assert not lacking, f"{cls.__name__}: no comment above {', '.join(lacking)}"


def test_cfg_job_shows_every_effective_value():
    done = subprocess.run([sys.executable, "train.py", "--cfg", "job"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    shown = OmegaConf.create(done.stdout)
    assert shown.algo.search.simulations == 16 and shown.algo.search.root == "gumbel"
    assert shown.algo.learner.batch_size == 128 and shown.model.hidden == 128
    assert shown.env.rows == 14 and shown.runner.name == "processes"
