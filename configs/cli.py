"""The entry points' Hydra main: ``@entry_point("config")`` in place of ``@hydra.main``, so that
train.py, evaluate.py, play.py and export.py refuse a bad command line alike: Hydra's errors
about it (an unknown key or group option, an override it cannot parse) become one line naming
the key and the closest valid names, with exit code 2 (:func:`typedconfig.refuse`), as the
entry points' own checks do. ``--help`` (or ``-h``) prints the script's own help: its
docstring, the config groups it reads with their options, and its settings with their defaults
and comments (Hydra's generic help lists groups a script does not use)."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import hydra
from hydra._internal.utils import get_args_parser  # the parser hydra.main reads
from hydra.errors import CompactHydraException, MissingConfigException, OverrideParseException
from omegaconf.errors import OmegaConfBaseException

from typedconfig import did_you_mean, field_comments, refuse

CONFIGS = Path(__file__).parent


def entry_point(config_name: str, groups: Sequence[str] = (),
                settings: Callable[[], Sequence[tuple[str, type]]] = tuple,
                ) -> Callable[[Callable], Callable[[], object]]:
    """``hydra.main`` for ``configs/<config_name>.yaml``, its command-line errors refused in
    one line. ``--help`` shows the calling module's docstring, the options of ``groups`` and
    the fields of the dataclasses ``settings()`` returns, as ``(key prefix, class)`` pairs
    (a function, so the classes are imported only for help)."""
    def decorate(task: Callable) -> Callable[[], object]:
        hydra_main = hydra.main(version_base="1.3", config_path=str(CONFIGS),
                                config_name=config_name)(task)

        @functools.wraps(task)
        def main() -> object:
            if {"--help", "-h"} & set(sys.argv[1:]):
                doc = sys.modules[task.__module__].__doc__ or ""
                print(help_text(doc, groups, settings()))
                return None
            _, unknown = get_args_parser().parse_known_args(sys.argv[1:])
            flags = [arg for arg in unknown if arg.startswith("-")]
            if flags:
                refuse(f"unknown option {flags[0]}; settings are key=value (--help lists them), "
                       "options are Hydra's: --help, --cfg job, --multirun, --info")
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


def group_options(group: str) -> list[str]:
    """The options of a config group: its dataclass defaults registered in Hydra's ConfigStore
    (configs/store.py) and its YAML presets."""
    from hydra.core.config_store import ConfigStore

    stored = ConfigStore.instance().repo.get(group, {})
    names = {name.removesuffix(".yaml") for name in stored}
    names.update(path.stem for path in (CONFIGS / group).glob("*.yaml"))
    return sorted(names)


def help_text(doc: str, groups: Sequence[str], settings: Sequence[tuple[str, type]]) -> str:
    """A script's ``--help``: its docstring, ``group=option`` choices, then ``key=default``
    with the comment the key's dataclass gives it."""
    lines = [doc.strip(), ""]
    if groups:
        lines.append("Config groups (group=option):")
        lines += [f"  {group}: {', '.join(group_options(group))}" for group in groups]
        lines.append("")
    for prefix, cls in settings:
        lines.append(f"Settings of {cls.__name__} (key=default):")
        lines += setting_lines(prefix, cls)
        lines.append("")
    lines.append("Every effective value: add --cfg job to the command line.")
    return "\n".join(lines)


def setting_lines(prefix: str, cls: type) -> list[str]:
    """``prefix + key=default`` and its comment for every field of ``cls``, the fields of a
    nested config class under its own key."""
    lines, comments = [], field_comments(cls)
    for item in dataclasses.fields(cls):
        if item.default is not dataclasses.MISSING:
            default = item.default
        elif item.default_factory is not dataclasses.MISSING:
            default = item.default_factory()
        else:
            default = "(required)"
        if dataclasses.is_dataclass(default):
            lines += setting_lines(f"{prefix}{item.name}.", type(default))
            continue
        lines.append(f"  {prefix}{item.name}={default}")
        if item.name in comments:
            lines.append(f"      {comments[item.name]}")
    return lines
