"""The entry points' Hydra main: ``@entry_point("config")`` in place of ``@hydra.main``, so that
train.py, evaluate.py, play.py and export.py refuse a bad command line alike: Hydra's errors
about it (an unknown key or group option, an override it cannot parse) become one line naming
the key and the closest valid names, with exit code 2 (:func:`typedconfig.refuse`), as the
entry points' own checks do."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

import hydra
from hydra.errors import CompactHydraException, MissingConfigException, OverrideParseException
from omegaconf.errors import OmegaConfBaseException

from typedconfig import did_you_mean, refuse

CONFIGS = Path(__file__).parent


def entry_point(config_name: str) -> Callable[[Callable], Callable[[], object]]:
    """``hydra.main`` for ``configs/<config_name>.yaml``, its command-line errors refused in
    one line."""
    def decorate(task: Callable) -> Callable[[], object]:
        hydra_main = hydra.main(version_base="1.3", config_path=str(CONFIGS),
                                config_name=config_name)(task)

        @functools.wraps(task)
        def main() -> object:
            # Hydra prints its own errors in several lines and exits 1 unless asked to raise
            # them; raised, they reach the handler below (and any other error its traceback).
            os.environ.setdefault("HYDRA_FULL_ERROR", "1")
            try:
                return hydra_main()
            except CompactHydraException as error:
                refuse(command_line_error(error))

        return main

    return decorate


def command_line_error(error: CompactHydraException) -> str:
    """Hydra's error about the command line in one line: the key or option at fault, what is
    valid there and the closest valid name."""
    if isinstance(error, MissingConfigException) and error.options is not None:
        group, _, option = str(error.missing_cfg_file).rpartition("/")
        return (f"{group}={option}: no such {group}; valid: {', '.join(sorted(error.options))}"
                + did_you_mean(option, error.options))
    cause = error.__cause__
    if isinstance(cause, OmegaConfBaseException) and cause.full_key:
        parent = cause.parent_node
        valid = sorted(k for k in (parent.keys() if parent is not None else ()) if k != "hydra")
        where = cause.full_key.rpartition(".")[0] or "the config"
        return (f"unknown key {cause.full_key}; valid keys in {where}: {', '.join(valid)}"
                + did_you_mean(str(cause.key), valid))
    if isinstance(error, OverrideParseException):
        return (f"cannot read {error.override!r}: {str(error).splitlines()[0]}; put a value "
                """holding '=' or ':' in quotes, e.g. 'agents=[random,"mcts:simulations=200"]'""")
    return " ".join(line.strip() for line in str(error).splitlines() if line.strip())
