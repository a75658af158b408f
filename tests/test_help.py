"""Each entry point's ``--help`` is its own: its docstring, the config groups it reads with
their options, and its settings with defaults and comments; no group it does not use."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script, shown, absent", [
    ("train.py", ["algo: alphazero, ppo", "experiment: ", "algo.search.simulations=",
                  "algo.selfplay.teacher_share="], ["eval: "]),
    ("evaluate.py", ["eval: default", "schedule=round_robin", "agents=['heuristic', 'random']"],
     ["algo: ", "experiment: "]),
    ("play.py", ["env: barricade", "ui=terminal", "web.max_games="], ["algo: ", "eval: "]),
    ("export.py", ["checkpoint=None", "play=None", "opset="], ["Config groups", "algo: "]),
])
def test_help_lists_what_the_script_reads(tmp_path, script, shown, absent):
    done = subprocess.run([sys.executable, str(ROOT / script), "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    module_doc = (ROOT / script).read_text().split('"""')[1]
    assert done.stdout.startswith(module_doc.splitlines()[0])
    for text in shown:
        assert text in done.stdout, text
    for text in absent:
        assert text not in done.stdout, text
    assert list(tmp_path.iterdir()) == []  # help writes no run folder


def test_ppo_help_shows_ppo_settings(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "train.py"), "--help", "algo=ppo"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "Settings of PPOConfig" in done.stdout and "algo.search." not in done.stdout
