"""Typed configs from Hydra's YAML: nested dataclasses built from plain mappings, with a clear
error naming any unknown or mistyped key (a typo must not silently fall back to a default)."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def from_mapping(cls: type[T], values: Any, where: str = "") -> T:
    """``cls(**values)`` recursively for dataclass fields; unknown keys raise ``ValueError``."""
    if dataclasses.is_dataclass(values):
        return values
    if values is None:
        values = {}
    if not isinstance(values, typing.Mapping):
        raise ValueError(f"config {where or cls.__name__} must be a mapping, got {values!r}")
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - fields)
    if unknown:
        raise ValueError(f"unknown config key(s) {', '.join(unknown)} in {where or cls.__name__}; "
                         f"valid keys: {', '.join(sorted(fields))}")
    kwargs = {}
    for name, value in values.items():
        hint = hints[name]
        path = f"{where}.{name}" if where else name
        if dataclasses.is_dataclass(hint):
            kwargs[name] = from_mapping(hint, value, path)
        elif isinstance(value, typing.Sequence) and not isinstance(value, str):
            kwargs[name] = tuple(value)
        else:
            kwargs[name] = value
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
