"""``python train.py`` end to end as a user runs it: train, checkpoint, evaluate, resume, and a
corrupt checkpoint failing with one clear line."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TINY = ["env.rows=8", "env.cols=8", "env.max_turns=40", "model=tiny", "logger=disabled",
        "runner=local",
        "algo.iterations=2", "algo.games_per_iteration=4", "algo.search.simulations=6",
        "algo.selfplay.max_moves=16", "algo.learner.min_samples=8", "algo.eval.every=2",
        "algo.eval.games=2", "algo.eval.final_games=4", "algo.eval.final_opponents=[random]",
        "algo.warm_start.games=1", "algo.warm_start.steps=2", "algo.warm_start.student_games=1",
        "algo.warm_start.student_steps=2"]


def train(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "train.py", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_train_prints_the_evaluation_table_and_checkpoint_then_resumes(tmp_path):
    done = train(*TINY, f"hydra.run.dir={tmp_path / 'run'}")
    assert done.returncode == 0, done.stderr
    assert "trained vs random" in done.stdout
    checkpoint = tmp_path / "run" / "checkpoints" / "last.pt"
    assert f"checkpoint: {checkpoint}" in done.stdout.replace("\n", "")
    resumed = train(*TINY, "algo.iterations=3", f"resume={checkpoint}",
                    f"hydra.run.dir={tmp_path / 'resumed'}")
    assert resumed.returncode == 0, resumed.stderr
    assert (tmp_path / "resumed" / "checkpoints" / "last.pt").is_file()


def test_corrupt_checkpoint_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint at all" * 10)
    done = train(*TINY, f"resume={bad}", f"hydra.run.dir={tmp_path / 'run'}")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: checkpoint {bad} is corrupt or not a checkpoint (")


def test_bad_config_key_is_named(tmp_path):
    done = train(*TINY, "+algo.search.simulatoins=5", f"hydra.run.dir={tmp_path / 'run'}")
    assert done.returncode == 2
    assert "simulatoins" in done.stderr and "valid keys" in done.stderr
