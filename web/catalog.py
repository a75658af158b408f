"""What the page may choose from: the env configs (every game at its defaults, and the presets
of ``configs/env/``; each key with its value and what it means), and the files in the allowed
folders — checkpoints, ONNX
networks and game records. The page only ever names a file from these lists; nothing typed into
the browser becomes a path."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

import envs
import zoo

RECORD_START = b'{"env_config"'
"""How every record file of the arena and the terminal player starts (``save_records`` writes
the ``GameRecord`` fields in order), so a listing tells records from other JSON without parsing
whole files."""
MAX_LISTED = 2000
"""Files listed per kind at most; entries looked at per folder walk at most is ten times that."""
FILE_KINDS = {"checkpoint": (".pt",), "onnx": (".onnx",), "record": (".json", ".jsonl")}
NOT_PLAYABLE = ".greedy.onnx"
"""Exported graphs that pick an action but give no policy or value: not agents."""
KEY_LINE = re.compile(r"^(\w+):[^#]*(?:#\s?(.*))?$")
COMMENT_LINE = re.compile(r"^\s+#\s?(.*)$")
ARGUMENT_LINE = re.compile(r"^ {8}([\w, ]+):\s*(.*)$")
"""A keyword's line in a ``Game`` docstring's ``Args:`` section (``rows, cols: board size``)."""


@dataclass(frozen=True)
class EnvChoice:
    """One ``configs/env/<name>.yaml``: its values (``name`` is the game) and, per key, the
    comment that explains it."""

    name: str
    values: dict
    help: dict[str, str]

    def env_config(self, settings: dict) -> dict:
        """This config with ``settings`` (key -> value; a string is read as YAML, as on the
        command line) over its values: a ``ValueError`` for a key it does not have."""
        unknown = sorted(repr(key) for key in settings if key not in self.values or key == "name")
        if unknown:
            raise ValueError(f"env {self.name} has no setting {', '.join(unknown)}; settings: "
                             f"{', '.join(k for k in self.values if k != 'name')}")
        config = dict(self.values)
        for key, value in settings.items():
            if isinstance(value, str):
                try:
                    value = yaml.safe_load(value) if value.strip() else None
                except yaml.YAMLError:
                    raise ValueError(f"env setting {key}: cannot read {value!r}") from None
            config[key] = value
        return config


def keyword_help(game_name: str) -> dict[str, str]:
    """What each keyword of the game's ``Game`` means, from its docstring's ``Args:`` section
    (a line naming several keywords serves each; continuation lines are joined)."""
    doc = envs.game_module(game_name).Game.__doc__ or ""
    help_of: dict[str, str] = {}
    keys: list[str] = []
    for line in doc.split("Args:", 1)[-1].splitlines():
        if match := ARGUMENT_LINE.match(line):
            keys = [key.strip() for key in match.group(1).split(",")]
            for key in keys:
                help_of[key] = match.group(2).strip()
        elif keys and line.startswith(" " * 12) and line.strip():
            for key in keys:
                help_of[key] = f"{help_of[key]} {line.strip()}"
        else:
            keys = []
    return help_of


def preset_comments(path: Path) -> dict[str, str]:
    """The comment of each key of a YAML preset (with its continuation lines)."""
    help_of, key = {}, None
    for line in path.read_text().splitlines():
        if match := KEY_LINE.match(line):
            key = match.group(1)
            help_of[key] = (match.group(2) or "").strip()
        elif key and (match := COMMENT_LINE.match(line)):
            help_of[key] = f"{help_of[key]} {match.group(1).strip()}".strip()
        else:
            key = None
    return help_of


def env_choices(folder: str | Path) -> dict[str, EnvChoice]:
    """The ``env`` config group by name: each game at its ``Game``'s defaults
    (``envs.default_config``), and each preset of ``folder`` (``configs/env``) over the game its
    defaults list starts from, as Hydra composes them."""
    choices = {name: EnvChoice(name, envs.default_config(name), keyword_help(name))
               for name in envs.GAMES}
    for path in sorted(Path(folder).glob("*.yaml")):
        values = yaml.safe_load(path.read_text())
        base = choices[next(entry for entry in values.pop("defaults") if entry != "_self_")]
        choices[path.stem] = EnvChoice(path.stem, {**base.values, **values},
                                       {**base.help, **preset_comments(path)})
    return choices


def make_game(choice: EnvChoice, settings: dict, max_actions: int):
    """The env config and ``Game`` of ``choice`` with ``settings``; a ``ValueError`` says what
    the engine refuses, or that the game has more than ``max_actions`` actions."""
    env_config = choice.env_config(settings)
    try:
        game = envs.make_game(env_config)
    except TypeError as error:
        raise ValueError(f"env {choice.name}: {error}") from None
    if game.num_actions > max_actions:
        raise ValueError(f"env {choice.name}: {game.num_actions} actions is more than the page "
                         f"draws ({max_actions}); choose a smaller board")
    return env_config, game


@dataclass(frozen=True)
class Folders:
    """The folders whose files the page may use (``play.yaml``'s ``web.folders`` and the zoo).
    A file is named by the path the listing shows (relative to the working folder where it lies
    below it), and only a listed name is accepted back."""

    roots: tuple[Path, ...]

    @classmethod
    def of(cls, folders: list[str]) -> Folders:
        return cls(tuple(Path(f) for f in folders) + (zoo.root(),))

    def files(self, kind: str) -> list[str]:
        """The listed files of ``kind`` (``checkpoint``, ``onnx``, ``record``), sorted."""
        suffixes = FILE_KINDS[kind]
        found = []
        for root in self.roots:
            for path in self._walk(root):
                if path.name.endswith(suffixes) and self._is_kind(path, kind):
                    found.append(shown(path))
                    if len(found) >= MAX_LISTED:
                        return sorted(found)
        return sorted(set(found))

    def resolve(self, name: str, kind: str) -> Path:
        """The file the listing shows as ``name``; a ``ValueError`` for any other name."""
        if name not in self.files(kind):
            raise ValueError(f"{name!r} is not one of the {kind} files the server lists (files "
                             f"below {', '.join(shown(r) for r in self.roots)})")
        return Path(name)

    def contains(self, path: Path) -> bool:
        real = path.resolve()
        return any(real.is_relative_to(root.resolve()) for root in self.roots)

    def _walk(self, root: Path):
        """Files below ``root`` that really lie there (links leading out are left out); hidden
        folders are skipped, and the walk stops after ``10 * MAX_LISTED`` entries."""
        if not root.is_dir():
            return
        seen = 0
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
            for name in sorted(names):
                seen += 1
                if seen > 10 * MAX_LISTED:
                    return
                path = Path(folder) / name
                if path.is_file() and self.contains(path):
                    yield path

    @staticmethod
    def _is_kind(path: Path, kind: str) -> bool:
        if kind == "onnx":
            return not path.name.endswith(NOT_PLAYABLE)
        if kind == "record":
            with open(path, "rb") as file:
                return file.read(len(RECORD_START)) == RECORD_START
        return True


def shown(path: Path) -> str:
    """``path`` as the page shows it: relative to the working folder when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())
