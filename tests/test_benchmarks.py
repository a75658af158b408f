"""The benchmark scripts stay importable: nothing else imports them, so a moved module broke
two of them once without a failing test (their runs are minutes: `python benchmarks/X.py`)."""

import importlib.util
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
