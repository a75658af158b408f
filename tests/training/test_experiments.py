"""The recipes of configs/experiment/: each composes with Hydra and passes the config check a run
makes before it starts, and one of them trains end to end on a tiny budget."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from training.launch import check_config, run

ROOT = Path(__file__).resolve().parents[2]
# The exploiter is not a training recipe: it needs a target (tested in tests/arena/test_ladder.py).
EXPERIMENTS = sorted(p.stem for p in (ROOT / "configs" / "experiment").glob("*.yaml")
                     if p.stem != "exploit")


def compose_experiment(tmp_path, name, overrides=()):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose("config", overrides=[f"+experiment={name}", *overrides,
                                            f"logger.dir={tmp_path}"])


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_composes_and_passes_the_config_check(tmp_path, name):
    text = (ROOT / "configs" / "experiment" / f"{name}.yaml").read_text()
    assert text.startswith("# @package _global_\n")
    if "override /env: blockade_lakeside" in text and not (
            ROOT / "configs" / "env" / "blockade_lakeside.yaml").is_file():
        pytest.skip("needs configs/env/blockade_lakeside.yaml (the Blockade-variants branch)")
    cfg = compose_experiment(tmp_path, name)
    check_config(cfg)
    algo = OmegaConf.to_container(cfg.algo, resolve=True)
    assert algo["time_limit_minutes"] == 60 and algo["iterations"] is None
    assert algo["name"] == ("ppo" if name.endswith("_ppo") else "alphazero")
    assert "heuristic" in algo["eval"]["final_opponents"]


TINY = ["model=tiny", "logger=disabled", "runner=local", "env.max_turns=40",
        "algo.iterations=2", "algo.games_per_iteration=4",
        "algo.selfplay.concurrent_games=4", "algo.search.simulations=4",
        "algo.pool.snapshot_every=1",
        "algo.learner.min_samples=8", "algo.learner.batch_size=16",
        "algo.warm_start.games=2", "algo.warm_start.steps=2",
        "algo.warm_start.student_games=1", "algo.warm_start.student_steps=1",
        "algo.eval.every=2", "algo.eval.games=4", "algo.eval.simulations=2",
        "algo.eval.final_games=0"]
"""Two iterations of a few games: every technique of a recipe runs once."""


@pytest.mark.parametrize("name, extra", [
    ("nobles_4p", []),
    ("nobles_3p", []),
    ("barricade", ["algo.selfplay.max_moves=12", "algo.warm_start.max_moves=12"]),
    ("blockade_open_3p", ["algo.selfplay.max_moves=12", "algo.warm_start.max_moves=12"]),
    ("blockade_open_4p", ["algo.selfplay.max_moves=12", "algo.warm_start.max_moves=12"]),
])
def test_a_recipe_trains_end_to_end_on_a_tiny_budget(tmp_path, name, extra):
    """The AlphaZero recipes of issue 37 (teacher fade, search-value targets, past selves and
    opponents, the game's evaluation at the leaves), cut down to two iterations of a few games."""
    overrides = [*TINY, *extra]
    cfg = compose_experiment(tmp_path, name, overrides)
    result = run(cfg, tmp_path / "run", overrides=[f"+experiment={name}", *overrides])
    assert result.counters["iteration"] == 2 and result.checkpoint.is_file()
    last = result.history[-1]
    assert "eval/heuristic/win_rate" in last and "loss/policy" in last
    first_share = cfg.algo.selfplay.teacher_share
    assert result.history[0]["selfplay/teacher_share"] == first_share  # fading over the run
    assert last["selfplay/teacher_share"] < first_share
