"""The benchmark scripts stay importable: nothing else imports them, so a moved module broke
two of them once without a failing test (their runs are minutes: `python benchmarks/X.py`)."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.mark.parametrize("script", sorted(p.name for p in BENCHMARKS.glob("*.py")))
def test_benchmark_script_imports(script, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the scripts import each other by name
    spec = importlib.util.spec_from_file_location(f"benchmark_{script[:-3]}", BENCHMARKS / script)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None)), f"{script} has no main()"



@pytest.mark.parametrize("call", ["rollout_speed.ppo_config('nobles', {}, [])",
                                  "runner_speed.default_config()",
                                  "selfplay_speed.recipe_config('nobles_2p', [])"])
def test_benchmark_configs_compose_outside_pytest(call):
    """A benchmark registers the config groups' defaults itself, as the entry points do: run
    as a user runs it (a fresh interpreter, no conftest), three once stopped at "Could not load
    'logger/offline'"."""
    code = f"import {call.split('.')[0]}\n{call}\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=BENCHMARKS, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(BENCHMARKS.parent)})
    assert done.returncode == 0, done.stderr[-2000:]
