"""Typed configs from Hydra's YAML: nested dataclasses built from plain mappings, every value
checked against its field's type and range, with one clear error naming the key, the value and
what is allowed (a typo or a wrong value must not silently fall back to a default, nor fail an
hour into a run).

A range is a string beside the type in ``Annotated``, e.g. ``every: Annotated[int, ">= 1"]``,
``fraction: Annotated[float, "0..1"]`` (both ends included), ``lr: Annotated[float, "> 0"]``;
several strings must all hold (plain strings: a dataclass declares its ranges without
importing anything from here). :func:`field_comments` reads the comment above each field, what
``--help`` and the tests show of a setting. :func:`refuse` is how every entry point ends on
such an error.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import operator
import re
import sys
import types
import typing
from collections.abc import Iterable
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")

USAGE_ERROR = 2
"""The exit code of train.py, evaluate.py, play.py and export.py for any bad input: a setting,
an agent spec, a checkpoint, an output folder."""


def refuse(error: Exception | str) -> NoReturn:
    """End the program on a bad input: ``error`` as one line on stderr, exit code 2. Called
    before any work starts, so nothing was written."""
    print(f"error: {error}", file=sys.stderr, flush=True)
    sys.exit(USAGE_ERROR)


def did_you_mean(word: str, valid: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the valid name closest to a mistyped ``word``, else ``""``."""
    close = difflib.get_close_matches(word, list(valid), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


_COMPARISONS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}


def _in_range(value, constraint: str) -> bool:
    if ".." in constraint:
        low, high = (float(x) for x in constraint.split(".."))
        return low <= value <= high
    symbol, bound = constraint.split()
    return _COMPARISONS[symbol](value, float(bound))


def _describe(hint) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        ranges = [f"in [{c.replace('..', ', ')}]" if ".." in c else c for c in args[1:]]
        return f"{_describe(args[0])} {' and '.join(ranges)}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join("null" if a is type(None) else _describe(a) for a in args)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is tuple:
        return f"a list of {_describe(args[0])}"
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def check_value(value: Any, hint: Any, path: str) -> Any:
    """``value`` as the field of type ``hint`` holds it (a list becomes a tuple, an integer a
    float where a number is asked for); ``ValueError`` naming ``path`` when it does not fit."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)

    def wrong() -> ValueError:
        return ValueError(f"config {path}={value!r}: must be {_describe(hint)}")

    if origin is typing.Annotated:
        checked = check_value(value, args[0], path)
        if checked is not None and not all(_in_range(checked, c) for c in args[1:]):
            raise wrong()
        return checked
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for option in (a for a in args if a is not type(None)):
            try:
                return check_value(value, option, path)
            except ValueError:
                pass
        raise wrong()
    if origin is typing.Literal:
        if value not in args:
            raise wrong()
        return value
    if origin is tuple:
        if isinstance(value, str) or not isinstance(value, typing.Sequence):
            raise wrong()
        return tuple(check_value(v, args[0], f"{path}[{i}]") for i, v in enumerate(value))
    if hint is bool:
        if not isinstance(value, bool):
            raise wrong()
    elif hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong()
    elif hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong()
        return float(value)
    elif hint is str:
        if not isinstance(value, str):
            raise wrong()
    elif hint is dict and not isinstance(value, typing.Mapping):
        raise wrong()
    return value


def from_mapping(cls: type[T], values: Any, where: str = "") -> T:
    """``cls(**values)`` recursively for dataclass fields, each value checked against its
    field's type and range; unknown keys raise ``ValueError`` listing the valid ones."""
    if dataclasses.is_dataclass(values):
        return values
    if values is None:
        values = {}
    if not isinstance(values, typing.Mapping):
        raise ValueError(f"config {where or cls.__name__} must be a mapping, got {values!r}")
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {f.name for f in dataclasses.fields(cls)}
    values = {k: v for k, v in values.items() if k != "_target_"}  # Hydra's: the class to build
    unknown = sorted(set(values) - fields)
    if unknown:
        raise ValueError(f"unknown config key(s) {', '.join(unknown)}"
                         + (f" in {where}" if where else "")
                         + f"; valid keys: {', '.join(sorted(fields))}"
                         + did_you_mean(unknown[0], fields))
    kwargs = {}
    for name, value in values.items():
        hint = hints[name]
        path = f"{where}.{name}" if where else name
        if dataclasses.is_dataclass(hint):
            kwargs[name] = from_mapping(hint, value, path)
        else:
            kwargs[name] = check_value(value, hint, path)
    return cls(**kwargs)


def to_mapping(config: Any) -> dict:
    """A dataclass config as plain nested dicts (lists for tuples), e.g. for a checkpoint."""
    def plain(value):
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value

    return plain(dataclasses.asdict(config))


def field_comments(cls: type) -> dict[str, str]:
    """The comment above each field of the dataclass ``cls`` (and of the classes it extends),
    joined into one line: what ``--help`` shows of a setting. A field without one is absent."""
    comments: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass) or klass.__module__ == "builtins":
            continue
        try:
            lines = inspect.getsource(klass).splitlines()
        except (OSError, TypeError):
            continue
        start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("class "))
        body = len(lines[start + 1]) - len(lines[start + 1].lstrip())  # the body's indentation
        above: list[str] = []
        for line in lines[start + 1:]:
            text = line.strip()
            if text.startswith("#"):
                above.append(text.lstrip("# ").rstrip())
                continue
            match = re.match(rf" {{{body}}}(\w+)\s*:", line)
            if match and above:
                comments[match.group(1)] = " ".join(above)
            above = []
    return comments
