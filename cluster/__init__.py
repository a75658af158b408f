"""Ray start-up, shared by self-play on Ray actors (``runner=ray``, training/ray_runner.py) and
evaluation games as Ray tasks (``evaluate.py backend=ray``, arena/backends.py): the import with
a clear error where Ray is missing, and ``ray.init``'s arguments. No project imports, so every
layer may use it."""

from __future__ import annotations

import importlib
import math

PACKAGES = ("typedconfig", "cluster", "envs", "models", "search", "zoo", "agents", "arena",
            "training", "ui", "web", "configs")
"""The project's packages (pyproject.toml's ``packages.find``), bottom layer first: a module
imports only from its own package and those before it (tests/test_layers.py checks); shipped
to Ray workers with ``ship_code``."""


def import_ray():
    """The ``ray`` module; a ``ValueError`` saying how to install it where it is missing."""
    try:
        import ray
    except ImportError:
        raise ValueError("Ray is not installed (runner=ray, evaluate.py backend=ray): "
                         "pip install -e '.[ray]'") from None
    return ray


def init_args(workers: int, address: str | None = None, cpus_per_worker: float = 1.0,
              ship_code: bool = True) -> dict:
    """``ray.init``'s arguments: ``address=None`` starts a Ray of our own with only the CPUs
    ``workers`` reserve (no dashboard); ``auto`` or ``ray://host:port`` joins a cluster. With
    ``ship_code`` the project's packages travel to the workers (Ray's ``py_modules``), so a
    cluster runs this checkout's code."""
    args = {"address": address, "include_dashboard": False, "log_to_driver": True,
            "logging_level": "warning"}
    if address is None:
        args["num_cpus"] = math.ceil(workers * cpus_per_worker)
    if ship_code:
        args["runtime_env"] = {"py_modules": [importlib.import_module(name)
                                              for name in PACKAGES]}
    return args
