"""Export a checkpoint's network for use outside this code (``export.py`` drives it): ONNX and
TorchScript files of two graphs, each with the metadata of :mod:`models.policy_file`.

- ``NAME.onnx`` / ``NAME.torchscript.pt``: the network, ``observation [B, *shape] float32 ->
  logits [B, A], values [B, n]`` (view actions, relative seats).
- ``NAME.greedy.onnx`` / ``NAME.greedy.torchscript.pt``: ``observation, action_mask [B, A]
  int8 (board actions, the env's mask), player [B] int64 -> action [B] int64``, the legal
  board action with the largest logit: the action mapping is inside the graph.
- ``NAME.json``: the metadata, with the file names.

With ``zoo=NAME`` (:func:`zoo.add`) it writes a zoo entry instead: ``policy.onnx`` (the
network graph) and ``metadata.json`` (the summary :mod:`zoo` documents) in ``zoo/NAME/``.

ONNX comes from the ``torch.export``-based exporter (``torch.onnx.export(dynamo=True)``, which
needs onnxscript), the one PyTorch maintains; the batch axis is dynamic. TorchScript is
deprecated upstream but still what libtorch (C++) loads. Every file is written to a temporary
name and renamed, so a failed export never leaves a half-written file under a real name.
"""

from __future__ import annotations

import datetime
import io
import json
import logging
import os
import shlex
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch
import yaml
from torch import nn

import envs
from envs.core import sample_chance
from models.checkpoint import build_model, git_commit, load_checkpoint
from models.features import make_encoder
from models.policy_file import (
    FORMAT,
    METADATA_KEY,
    TORCHSCRIPT_METADATA,
    VERSION,
    encoder_description,
)
from models.views import ViewMaps

FORMATS = ("onnx", "torchscript", "both")


@dataclass(frozen=True)
class ExportConfig:
    """``export.py``'s settings (docs/export.md)."""

    # the checkpoint to export (train.py's checkpoints/last.pt); null only with zoo=NAME and
    # play: then the existing zoo entry NAME keeps its network and plays as `play` says
    checkpoint: str | None = None
    # onnx | torchscript | both: which kinds of files to write (each kind holds two graphs: the
    # network, and the masked greedy policy)
    format: str = "both"
    # folder for the files; null = an export/ folder beside the checkpoint
    out_dir: str | None = None
    # file name stem; null = <game>_<players>p, e.g. blockade_2p
    name: str | None = None
    # ONNX opset: 21 runs on onnxruntime 1.18 and every 1.2x release
    opset: int = 21
    # positions of one random game (seeded by `seed`) whose network outputs the metadata
    # stores; loading a file checks them, so a changed encoder fails on load (at least 2: they
    # also trace the graphs)
    reference_positions: int = 4
    # seed of that random game
    seed: int = 0
    # a name (e.g. nobles_2p): add the policy to the pretrained zoo as zoo/<name>/policy.onnx
    # (the network graph) + metadata.json, played by the agent spec zoo:<name> (docs/zoo.md);
    # format, out_dir and name do not apply. $BOARDGAME_RL_ZOO points the zoo elsewhere
    zoo: str | None = None
    # zoo only: the measured figures for metadata.json, a list of records (docs/generate.py
    # says their fields); null = the run's final evaluation (final_evaluation.json in its
    # folder), one record per opponent
    figures: list[dict] | None = None
    # how the exported policy plays unless an agent spec says otherwise: agent spec options
    # (sims, temperature, any search setting, e.g. {game_value_weight: 0}) over the run's own
    # (the checkpoint's `acting`); null = the run's. export.py checks and applies them
    play: dict | None = None

    def __post_init__(self):
        if self.checkpoint is None and (self.zoo is None or not self.play):
            raise ValueError("which checkpoint? python export.py checkpoint=PATH (or, to change "
                             "how a zoo entry plays: python export.py zoo=NAME "
                             "'play={game_value_weight: 0}')")
        if self.checkpoint is None and self.figures is not None:
            raise ValueError("figures come with a new zoo entry (checkpoint=PATH zoo=NAME); "
                             "add later figures to the entry's metadata.json")
        if self.zoo is not None and (self.out_dir is not None or self.name is not None):
            raise ValueError("zoo=NAME writes zoo/NAME/policy.onnx and metadata.json: drop "
                             "out_dir and name")
        if self.figures is not None and self.zoo is None:
            raise ValueError("figures are for zoo entries: give zoo=NAME too")
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {self.format!r}")
        if self.reference_positions < 2:
            raise ValueError("reference_positions must be at least 2 (they are also the "
                             f"example batch the graphs are traced with), got "
                             f"{self.reference_positions}")


class GreedyPolicy(nn.Module):
    """The network's most likely legal action in board numbering: view logits gathered into
    board order for the acting seat, illegal actions masked out, argmax."""

    def __init__(self, net: nn.Module, maps: ViewMaps):
        super().__init__()
        self.net = net
        # board_to_view[player, board_action] = the view action the network scores it under.
        self.register_buffer("board_to_view", torch.as_tensor(maps.inverse, dtype=torch.long))

    def choose(self, logits: torch.Tensor, action_mask: torch.Tensor,
               player: torch.Tensor) -> torch.Tensor:
        board = logits.gather(1, self.board_to_view.index_select(0, player))
        return board.masked_fill(action_mask == 0, float("-inf")).argmax(dim=1)

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor,
                player: torch.Tensor) -> torch.Tensor:
        return self.choose(self.net(observation)[0], action_mask, player)


class BothGraphs(nn.Module):
    """The greedy policy's action with the network's outputs beside it: the ONNX exporter
    traces this once (it takes seconds per trace), and both graphs are cut out of the result."""

    def __init__(self, greedy: GreedyPolicy):
        super().__init__()
        self.greedy = greedy

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor,
                player: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        logits, values = self.greedy.net(observation)
        return self.greedy.choose(logits, action_mask, player), logits, values


GRAPHS = {
    "network": {
        "inputs": {"observation": "float32 [batch, *observation.shape]: the acting seat's view"},
        "outputs": {"logits": "float32 [batch, num_actions]: policy logits over view actions",
                    "values": "float32 [batch, num_players]: predicted returns, relative seats"}},
    "greedy": {
        "inputs": {"observation": "float32 [batch, *observation.shape]: the acting seat's view",
                   "action_mask": "int8 [batch, num_actions]: 1 for the legal board actions "
                                  "(the env's action_mask)",
                   "player": "int64 [batch]: the acting seat, whose view the observation is"},
        "outputs": {"action": "int64 [batch]: the legal board action with the largest logit"}},
}


def reference_positions(game, count: int, seed: int) -> list:
    """``count`` decision positions of one seeded random game, spread over it (the start
    first), for the self-check and as the example batch of the export."""
    rng = np.random.default_rng(seed)
    state, decisions = game.new_initial_state(), []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        decisions.append(state.clone())
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
    picks = np.linspace(0, len(decisions) - 1, min(count, len(decisions))).round().astype(int)
    return [decisions[i] for i in picks]


def training_command(checkpoint: Path) -> str | None:
    """``python train.py`` with the overrides Hydra recorded in the checkpoint's run folder
    (``<run>/checkpoints/last.pt`` -> ``<run>/.hydra/overrides.yaml``), if that is there."""
    overrides = checkpoint.resolve().parent.parent / ".hydra" / "overrides.yaml"
    if not overrides.is_file():
        return None
    return " ".join(["python", "train.py", *map(shlex.quote, yaml.safe_load(overrides.read_text())
                                                or [])])


def last_figures(history: list[dict]) -> dict | None:
    """The run's last periodic evaluation (``eval/...`` metrics and their iteration)."""
    for entry in reversed(history or []):
        figures = {k: v for k, v in entry.items() if k.startswith("eval/")}
        if figures:
            return {"iteration": entry.get("iteration"), **figures}
    return None


def build_metadata(payload: dict, checkpoint: Path, game, encoder, maps: ViewMaps,
                   net: nn.Module, states: list, example: dict[str, torch.Tensor],
                   opset: int) -> dict:
    """The metadata of the module docstring of :mod:`models.policy_file`; ``example`` holds the
    greedy graph's inputs for ``states``, the reference positions."""
    features = payload["model"]["config"].get("features") or []
    with torch.no_grad():
        logits, values = net(example["observation"])
    n = game.num_players
    return {
        "format": FORMAT, "version": VERSION,
        "game": game.name, "env_config": dict(payload["env_config"]),
        "encoder": encoder_description(game, features),
        "observation": {"shape": [int(d) for d in encoder.shape], "dtype": "float32"},
        "num_actions": int(game.num_actions), "num_players": n,
        "actions": {"view_to_board": maps.perms.tolist(),
                    "meaning": "the observation of seat `player` is in that seat's view; "
                               "board_action = view_to_board[player][view_action]"},
        "values": {"layout": [f"seat (player + {k}) mod {n}" for k in range(n)],
                   "meaning": "values[k]: the predicted return, in (-1, 1), of seat "
                              "(player + k) mod num_players"},
        "policy": dict(payload["acting"]),
        "graphs": GRAPHS,
        "training": {"algo": payload["algo"], "command": training_command(checkpoint),
                     "commit": payload.get("commit"), "config": payload["config"],
                     "counters": payload["counters"],
                     "figures": last_figures(payload.get("history"))},
        "exported": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                         timespec="seconds"),
                     "commit": git_commit(), "checkpoint": str(checkpoint), "opset": opset,
                     "torch": torch.__version__},
        "self_check": {"positions": [s.to_dict() for s in states],
                       "players": example["player"].tolist(),
                       "logits": logits.tolist(), "values": values.tolist()},
    }


def write_atomically(path: Path, data: bytes) -> Path:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes it private; the file is for sharing
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


ONNX_LOGGERS = ("torch.onnx", "onnxscript", "onnx_ir")
"""The loggers of the ONNX exporter and its graph passes."""


def quiet_onnx_loggers() -> None:
    """Only errors from :data:`ONNX_LOGGERS`: their notices (torchvision is missing, constant
    folding skipped, initializers deduplicated) reach the root logger, which Hydra sets to INFO,
    and would print a dozen lines at every round's export in self-play."""
    for name in ONNX_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


def onnx_models(greedy: GreedyPolicy, inputs: dict[str, torch.Tensor],
                opset: int) -> dict[str, onnx.ModelProto]:
    """The ``network`` and ``greedy`` graphs (:data:`GRAPHS`) with a dynamic batch axis, cut
    out of one export of :class:`BothGraphs`."""
    batch = torch.export.Dim("batch")
    quiet_onnx_loggers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(
            BothGraphs(greedy), tuple(inputs.values()), input_names=list(inputs),
            output_names=["action", "logits", "values"], opset_version=opset, dynamo=True,
            external_data=False, verbose=False, dynamic_shapes=tuple({0: batch} for _ in inputs))
    extractor = onnx.utils.Extractor(program.model_proto)
    return {graph: extractor.extract_model(list(GRAPHS[graph]["inputs"]),
                                           list(GRAPHS[graph]["outputs"]))
            for graph in GRAPHS}


def onnx_bytes(model: onnx.ModelProto, metadata: dict) -> bytes:
    model.producer_name = "boardgame-rl export.py"
    onnx.helper.set_model_props(model, {METADATA_KEY: json.dumps(metadata)})
    onnx.checker.check_model(model)
    return model.SerializeToString()


def torchscript_bytes(module: nn.Module, metadata: dict) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*torch\.jit.*deprecated", category=Warning)
        torch.jit.save(torch.jit.script(module), buffer,
                       _extra_files={TORCHSCRIPT_METADATA: json.dumps(metadata)})
    return buffer.getvalue()


def example_inputs(encoder, states: list) -> dict[str, torch.Tensor]:
    """The greedy graph's inputs (:data:`GRAPHS`) for ``states``, each in its mover's view."""
    players = [s.current_player() for s in states]
    return {"observation": torch.from_numpy(np.stack(
                [encoder.encode(s, p) for s, p in zip(states, players, strict=True)])),
            "action_mask": torch.from_numpy(np.stack(
                [s.legal_actions_mask() for s in states]).astype(np.int8)),
            "player": torch.tensor(players, dtype=torch.long)}


@dataclass
class Prepared:
    """A loaded checkpoint, ready to export: its network, the greedy policy around it, the
    example inputs the graphs are traced with, and the metadata every file carries."""

    checkpoint: Path
    payload: dict
    game: object
    net: nn.Module
    greedy: GreedyPolicy
    example: dict[str, torch.Tensor]
    metadata: dict


PolicyChange = Callable[[dict], dict]
"""Maps the ``policy`` metadata (an ``Acting`` as a dict) to the one the files get: what
export.py makes of ``ExportConfig.play`` (the agents that check it are a layer above)."""


def prepare(config: ExportConfig, play: PolicyChange | None = None) -> Prepared:
    checkpoint = Path(config.checkpoint)
    payload = load_checkpoint(checkpoint)
    game = envs.make_game(payload["env_config"])
    net = build_model(payload["model"], f"checkpoint {checkpoint}")
    encoder = make_encoder(game, payload["model"]["config"].get("features") or ())
    maps = ViewMaps(encoder, game.num_players)
    states = reference_positions(game, config.reference_positions, config.seed)
    example = example_inputs(encoder, states)
    metadata = build_metadata(payload, checkpoint, game, encoder, maps, net, states, example,
                              config.opset)
    if play is not None:
        metadata["policy"] = play(metadata["policy"])
    return Prepared(checkpoint, payload, game, net, GreedyPolicy(net, maps).eval(), example,
                    metadata)


def export_checkpoint(config: ExportConfig, play: PolicyChange | None = None) -> dict[str, Path]:
    """Write the files ``config`` asks for; returns them by kind (``network.onnx``,
    ``greedy.onnx``, ``network.torchscript``, ``greedy.torchscript``, ``metadata``). Nothing is
    written before every file is ready, so a bad checkpoint (a
    :class:`models.checkpoint.CheckpointError`) or a failed export leaves no files."""
    prepared = prepare(config, play)
    checkpoint, game, net = prepared.checkpoint, prepared.game, prepared.net
    greedy, example, metadata = prepared.greedy, prepared.example, prepared.metadata
    name = config.name or f"{game.name}_{game.num_players}p"
    contents: dict[str, tuple[str, bytes]] = {}  # kind -> (file name, bytes)
    if config.format in ("onnx", "both"):
        for graph, model in onnx_models(greedy, example, config.opset).items():
            suffix = ".greedy" if graph == "greedy" else ""
            contents[f"{graph}.onnx"] = (f"{name}{suffix}.onnx", onnx_bytes(
                model, {**metadata, "graph": graph}))
    if config.format in ("torchscript", "both"):
        for graph, module in (("network", net), ("greedy", greedy)):
            suffix = ".greedy" if graph == "greedy" else ""
            contents[f"{graph}.torchscript"] = (f"{name}{suffix}.torchscript.pt",
                                                torchscript_bytes(module,
                                                                  {**metadata, "graph": graph}))
    side = {**metadata, "files": {kind: file for kind, (file, _) in contents.items()}}
    contents["metadata"] = (f"{name}.json", json.dumps(side, indent=1).encode())
    out_dir = Path(config.out_dir) if config.out_dir else checkpoint.parent / "export"
    out_dir.mkdir(parents=True, exist_ok=True)
    return {kind: write_atomically(out_dir / file, data)
            for kind, (file, data) in contents.items()}
