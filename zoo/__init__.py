"""The pretrained zoo: trained agents shipped with the project, one folder per agent,

    zoo/<name>/policy.onnx     the network, exported by export.py (its own metadata inside)
    zoo/<name>/metadata.json   game, env config, network, how it plays, training command and
                               commit, measured figures (:data:`METADATA_FILE`)

played by the agent spec ``zoo:<name>`` (options like ``onnx:PATH``'s: ``zoo:nobles_2p:sims=200``)
in evaluate.py, play.py and every other agent spec. ``python export.py checkpoint=PATH
zoo=<name>`` adds one. The folder is this package's, so it is installed with the project;
the environment variable :data:`ZOO_ENV` points the zoo elsewhere. Guide: docs/zoo.md.

Torch-free, but for :func:`add`: a zoo agent runs on onnxruntime (:mod:`agents.onnx_file`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import envs

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
                         "(starting with a letter or digit), e.g. mygame_2p")
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
    mismatch = envs.config_mismatch(entry["env_config"], game)
    if mismatch:
        fitting = [other for other in names()
                   if not envs.config_mismatch(metadata(other)["env_config"], game)]
        raise ValueError(f"zoo agent {name!r} was trained {mismatch} (zoo agents of this game: "
                         f"{', '.join(fitting) or 'none'})")
    return entry_policy_path(name, entry)


def entry_policy_path(name: str, entry: dict) -> Path:
    """Where the ONNX file of the zoo agent ``name`` is, by its metadata ``entry``."""
    return root() / name / entry.get("files", {}).get("policy", POLICY_FILE)


def final_figure(metrics: dict, key: str, games: int) -> dict:
    """Wins, shared first places, draws and losses of ``games`` against one opponent (``key``:
    ``final/<opponent>``), read back from the rates a final evaluation logs
    (training/evaluation.py's ``metrics``), with the win share (a shared first place counting
    its share) as ``score`` and the Wilson interval of that share as ``low``/``high``. Where the
    shared rate is not logged, a win share equal to the win rate means there were none (and the
    win rate's interval is the share's); otherwise the counts cannot be known, and that is an
    error rather than a guess."""
    rate, share = metrics[f"{key}/win_rate"], metrics[f"{key}/win_share"]
    if f"{key}/shared_rate" in metrics:
        shared = round(metrics[f"{key}/shared_rate"] * games)
    elif abs(rate - share) < 1e-9:
        shared = 0
    else:
        raise ValueError(f"{key}: shared first places without their count (no shared_rate): "
                         "evaluate the checkpoint again")
    wins, draws = round(rate * games), round(metrics[f"{key}/draw_rate"] * games)
    if f"{key}/share_low" in metrics:
        low, high = metrics[f"{key}/share_low"], metrics[f"{key}/share_high"]
    elif abs(rate - share) < 1e-9:
        low, high = metrics[f"{key}/win_low"], metrics[f"{key}/win_high"]
    else:
        raise ValueError(f"{key}: a win share without its interval (no share_low): evaluate "
                         "the checkpoint again")
    return {"games": games, "wins": wins, "shared": shared, "draws": draws,
            "losses": games - wins - shared - draws, "score": share, "low": low, "high": high}


def play_options(measured: dict, plays: dict) -> str:
    """The agent-spec options (``sims=100,game_value_weight=0``) under which an entry that plays
    by the policy ``plays`` plays as ``measured`` did; empty when they are the same."""
    def as_options(policy: dict) -> dict:
        return {"sims": policy["simulations"], "temperature": policy["temperature"],
                **{k: v for k, v in policy["search"].items() if k != "simulations"}}

    now = as_options(plays)
    return ",".join(f"{key}={value}" for key, value in as_options(measured).items()
                    if now.get(key) != value)


def run_figures(name: str, checkpoint: Path, training: dict, measured: dict,
                plays: dict) -> list[dict]:
    """The training run's final evaluation (``final_evaluation.json`` in the run folder,
    ``<run>/checkpoints/last.pt`` -> ``<run>``) as figure records (docs/generate.py's format),
    one per opponent; none without it. The run played by the policy ``measured``; where the
    entry ``plays`` otherwise (export.py's ``play``), the records name the spec it was
    measured at (``zoo:NAME:sims=100``), not the entry's default."""
    final = checkpoint.resolve().parent.parent / "final_evaluation.json"
    if not final.is_file():
        return []
    data = json.loads(final.read_text())
    metrics, games = data["metrics"], data["games"]
    options = play_options(measured, plays)
    agent = f"zoo:{name}" + (f":{options}" if options else "")
    records = []
    for opponent in data["opponents"]:
        key = f"final/{opponent}"
        records.append({
            "measure": f"vs {opponent}" + (f", {options}" if options else ""), "agent": agent,
            "opponent": opponent,
            **final_figure(metrics, key, games),
            "command": training["command"], "seed": data["seed"], "commit": training["commit"],
            "date": data.get("date", ""), "note": "the training run's final evaluation"})
    return records


def entry_metadata(name: str, prepared, figures: list[dict] | None) -> dict:
    """The ``metadata.json`` of a zoo entry: a readable summary of a
    :class:`models.export.Prepared` checkpoint; the ONNX file beside it carries the full export
    metadata."""
    from models.checkpoint import git_commit

    payload, metadata = prepared.payload, prepared.metadata
    counters = payload["counters"]
    training = {"algo": payload["algo"], "command": metadata["training"]["command"],
                "commit": payload.get("commit"), "seed": payload["config"].get("seed"),
                "iterations": counters.get("iteration"),
                "minutes": round(counters.get("seconds", 0.0) / 60, 2)}
    return {
        "name": name, "game": metadata["game"], "num_players": metadata["num_players"],
        "env_config": metadata["env_config"],
        "network": {"model": payload["model"]["config"], "encoder": metadata["encoder"]["name"],
                    "observation_shape": metadata["observation"]["shape"],
                    "parameters": sum(p.numel() for p in prepared.net.parameters())},
        "policy": metadata["policy"], "training": training,
        "figures": (figures if figures is not None
                    else run_figures(name, prepared.checkpoint, training, payload["acting"],
                                     metadata["policy"])),
        "added": {"date": metadata["exported"]["date"], "commit": git_commit(),
                  "checkpoint": str(prepared.checkpoint)},
        "files": {"policy": POLICY_FILE},
    }


def add(config, play=None) -> dict[str, Path]:
    """Write the zoo entry ``config.zoo`` (an :class:`models.export.ExportConfig`):
    ``policy.onnx`` and ``metadata.json`` in a new folder of the zoo (an existing one is an
    error: remove it to replace the agent); ``play`` changes the run's ``policy`` as in
    :func:`models.export.prepare`. Needs torch (it exports the checkpoint)."""
    from models.export import onnx_bytes, onnx_models, prepare, write_atomically

    folder = root() / check_name(config.zoo)
    if folder.exists():
        raise ValueError(f"zoo agent {config.zoo!r} exists already ({folder}); remove that "
                         "folder to replace it, or choose another name")
    prepared = prepare(config, play)
    network = onnx_models(prepared.greedy, prepared.example, config.opset)["network"]
    policy = onnx_bytes(network, {**prepared.metadata, "graph": "network"})
    entry = json.dumps(entry_metadata(config.zoo, prepared, config.figures), indent=1).encode()
    folder.mkdir(parents=True)
    return {"policy": write_atomically(folder / POLICY_FILE, policy),
            "metadata": write_atomically(folder / METADATA_FILE, entry)}


def change_policy(name: str, play) -> dict[str, Path]:
    """Change how the zoo agent ``name`` plays by default and keep its network: ``play`` maps the
    ``policy`` inside its ``policy.onnx`` (what ``zoo:NAME`` plays by) to the new one, which
    replaces it there and in ``metadata.json`` (a copy for readers). Nothing is written when
    ``play`` refuses the change. Needs torch (:mod:`models.export` writes the file)."""
    import onnx

    from models.export import onnx_bytes, write_atomically
    from models.policy_file import METADATA_KEY

    entry = metadata(name)
    path = entry_policy_path(name, entry)
    try:
        model = onnx.load(path)
        exported = json.loads({p.key: p.value for p in model.metadata_props}[METADATA_KEY])
    except Exception as error:  # a missing, truncated or foreign file: whatever onnx raises
        raise ValueError(f"zoo agent {name!r}: cannot read the policy in {path} ({error!r})") \
            from None
    exported["policy"] = entry["policy"] = play(exported["policy"])
    return {"policy": write_atomically(path, onnx_bytes(model, exported)),
            "metadata": write_atomically(root() / name / METADATA_FILE,
                                         json.dumps(entry, indent=1).encode())}
