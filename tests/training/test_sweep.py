"""2-job sweeps of tiny runs through train.py: the joblib launcher's grid and the Optuna
sweeper's search, each job's result.json, and python -m training.sweep's table."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir

from training.sweep import main as collect_sweep

ROOT = Path(__file__).resolve().parents[2]
TINY_JOB = ["env.rows=8", "env.cols=8", "env.max_turns=40", "model=tiny", "logger=disabled",
            "algo.iterations=1", "algo.games_per_iteration=2", "algo.search.simulations=4",
            "algo.selfplay.max_moves=12", "algo.selfplay.concurrent_games=2",
            "algo.learner.min_samples=8", "algo.learner.batch_size=16", "algo.eval.every=0",
            "algo.eval.final_games=2", "algo.warm_start.games=0",
            "algo.time_limit_minutes=null"]


def sweep(tmp_path, name, overrides):
    folder = tmp_path / name
    done = subprocess.run([sys.executable, "train.py", "-m", f"+sweep={name}", *TINY_JOB,
                           f"hydra.sweep.dir={folder}", *overrides], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return folder, [json.loads((folder / job / "result.json").read_text()) for job in "01"]


def test_a_joblib_grid_runs_every_job_and_is_tabulated(tmp_path, capsys):
    folder, results = sweep(tmp_path, "joblib", ["seed=1,2", "algo.learner.lr=1e-3"])
    assert sorted(next(o for o in r["overrides"] if o.startswith("seed=")) for r in results) \
        == ["seed=1", "seed=2"]
    assert all(0 <= r["score"] <= 1 and r["iterations"] == 1 for r in results)
    assert collect_sweep([str(folder)]) == 0
    with open(folder / "results.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["seed"] for r in rows) == ["1", "2"]
    assert [float(r["score"]) for r in rows] == sorted((r["score"] for r in results),
                                                       reverse=True)
    assert "seed" in capsys.readouterr().out


def test_optuna_reports_the_best_of_its_trials(tmp_path):
    folder, results = sweep(tmp_path, "optuna", ["hydra.sweeper.n_trials=2"])
    best = yaml.safe_load((folder / "optimization_results.yaml").read_text())
    assert best["best_value"] == max(r["score"] for r in results)
    # The search space's other key, algo.search.simulations, is fixed by the tiny job's
    # command line, which takes precedence over the config's parameters.
    assert set(best["best_params"]) == {"algo.learner.lr"}


def test_the_slurm_sweep_composes_with_one_worker_per_cpu():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=["+sweep=slurm"], return_hydra_config=True)
    launcher = cfg.hydra.launcher
    assert launcher._target_.endswith("SlurmLauncher") and cfg.hydra.sweeper.direction == \
        "maximize"
    assert cfg.runner.name == "processes"
