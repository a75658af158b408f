"""The pretrained zoo: trained agents shipped with the project, one folder per agent,

    zoo/<name>/policy.onnx     the network, exported by export.py (its own metadata inside)
    zoo/<name>/metadata.json   game, env config, network, how it plays, training command and
                               commit, measured figures (:data:`METADATA_FILE`)

played by the agent spec ``zoo:<name>`` (options like ``onnx:PATH``'s: ``zoo:nobles_2p:sims=200``)
in evaluate.py, play.py and every other agent spec. ``python export.py checkpoint=PATH
zoo=<name>`` adds one. The folder is this package's, so it is installed with the project;
the environment variable :data:`ZOO_ENV` points the zoo elsewhere. Guide: docs/zoo.md.

Torch-free: a zoo agent runs on onnxruntime (:mod:`policies.onnx_policy`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from policies.metadata import env_config_mismatch

ZOO_ENV = "BOARDGAME_RL_ZOO"
"""Environment variable: a folder to use as the zoo instead of this package's."""
POLICY_FILE = "policy.onnx"
METADATA_FILE = "metadata.json"
NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")
"""What a zoo name may be: a folder name that a spec (``zoo:NAME:options``) can hold."""


def root() -> Path:
    """The zoo folder: ``$BOARDGAME_RL_ZOO`` when set, else this package's folder."""
    return Path(os.environ.get(ZOO_ENV) or Path(__file__).resolve().parent)


def names() -> list[str]:
    """The agents in the zoo, sorted."""
    folder = root()
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / METADATA_FILE).is_file())


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise ValueError(f"zoo name {name!r} must be lower-case letters, digits, '_', '.' or '-' "
                         "(starting with a letter or digit), e.g. nobles_2p")
    return name


def metadata(name: str) -> dict:
    """The metadata of the zoo agent ``name``; an unknown name is a ``ValueError`` listing
    the available ones."""
    path = root() / name / METADATA_FILE
    if not NAME.fullmatch(name) or not path.is_file():
        available = names()
        listed = (f"available: {', '.join(available)}" if available else
                  "the zoo has no agents yet (python export.py checkpoint=PATH zoo=NAME adds one)")
        raise ValueError(f"unknown zoo agent {name!r}; {listed} (zoo folder {root()})")
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"zoo agent {name!r}: cannot read {path} ({error})") from None


def policy_file(name: str, game) -> Path:
    """The ONNX file of the zoo agent ``name``, after checking that it was trained on ``game``
    (same game, player count and rules settings): a ``ValueError`` saying how they differ."""
    entry = metadata(name)
    mismatch = env_config_mismatch(entry["env_config"], game)
    if mismatch:
        fitting = [other for other in names()
                   if not env_config_mismatch(metadata(other)["env_config"], game)]
        raise ValueError(f"zoo agent {name!r} was trained {mismatch} (zoo agents of this game: "
                         f"{', '.join(fitting) or 'none'})")
    return root() / name / entry.get("files", {}).get("policy", POLICY_FILE)
