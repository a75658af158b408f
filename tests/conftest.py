"""The suite mirrors the packages (tests/envs, tests/search, tests/training, ...); the helpers
the package folders share (tiny test games, position builders, the engine-contract checks,
exported policy files) stay here, importable from every folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from configs.store import register  # noqa: E402 - after the path set-up above

register()  # the config groups' defaults, as every entry point registers them before Hydra
