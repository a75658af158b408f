"""What an exported policy file says about itself, and the checks that a file fits the game and
the installed ``envs`` package before it plays. Torch-free.

Every file ``export.py`` writes carries one metadata dict (JSON: in the ONNX file's
``metadata_props`` under :data:`METADATA_KEY`, in a TorchScript file as the extra file
``metadata.json``, and beside them as ``NAME.json``). Its fields:

- ``format``, ``version``: :data:`FORMAT` and :data:`VERSION`; ``graph``: ``network`` (raw
  logits and values) or ``greedy`` (masked most likely action), absent in the side file.
- ``game``, ``env_config``: the game and every rules setting it was trained under.
- ``encoder``: ``name`` (the game's encoder plus derived features, e.g.
  ``blockade+goal_steps``), ``game``, ``features`` and ``versions`` (:data:`ENCODER_VERSIONS`).
- ``observation``: ``shape`` and ``dtype`` of one observation (a batch adds a leading axis).
- ``num_actions``, ``num_players``.
- ``actions``: the perspective and action mapping. An observation is always in the view of the
  seat ``player`` that acts (its corner or side made the same for every seat), and the network
  numbers actions in that view: ``board_action = view_to_board[player][view_action]``.
- ``values``: ``values[k]`` is the predicted return, in (-1, 1), of seat ``(player + k) mod n``.
- ``policy``: how the trained agent acts (``simulations``, ``temperature``, ``search``), the
  defaults of ``onnx:PATH`` agents.
- ``graphs``: the inputs and outputs of both graphs.
- ``training``: ``algo``, ``command`` and ``commit`` when known, ``config`` (the full run
  config), ``counters`` and ``figures`` (the run's last periodic evaluation).
- ``exported``: the date and the commit of the code that exported it.
- ``self_check``: a few positions (``state.to_dict()``), the seat whose view each is encoded
  in, and the network's outputs on them; loading a file re-encodes them with the installed
  ``envs`` and compares, so an encoder that changed since the export fails on load.
"""

from __future__ import annotations

import envs

FORMAT = "boardgame-rl-policy"
VERSION = 1
METADATA_KEY = "boardgame_rl"
"""Key of the metadata JSON in an ONNX file's ``metadata_props``."""
TORCHSCRIPT_METADATA = "metadata.json"
"""Name of the metadata JSON among a TorchScript file's extra files."""

ENCODER_VERSIONS = {"blockade": 1, "barricade": 1, "nobles": 1, "goal_steps": 1, "race_steps": 1,
                    "capture_odds": 1}
"""Version of each game's observation encoder and of each derived feature (models/features.py).
Bump one when what it writes changes: files exported before the bump fail on load, saying so,
instead of playing on inputs their network never saw. A change nobody bumped is caught by the
self-check on load, on the file's reference positions."""

REQUIRED = ("game", "env_config", "encoder", "observation", "num_actions", "num_players",
            "actions", "values", "policy", "self_check")
"""Fields every file's metadata has (loading reads them)."""

SELF_CHECK_TOLERANCE = 1e-4
"""Largest difference between the outputs stored at export and those of the loaded file on the
same positions (onnxruntime and PyTorch agree to about 1e-6 on these networks)."""


class PolicyFileError(ValueError):
    """An exported policy file that is missing, damaged, or does not fit this game or code."""


def encoder_description(game_name: str, features) -> dict:
    """The ``encoder`` metadata of the game's encoder with ``features`` appended."""
    features = list(features)
    return {"name": "+".join([game_name, *features]), "game": game_name, "features": features,
            "versions": {part: ENCODER_VERSIONS[part] for part in [game_name, *features]}}


def env_config_mismatch(env_config: dict, game) -> str | None:
    """How ``game`` differs from the game ``env_config`` describes (defaults resolved on both
    sides), to follow "trained" or "played": ``on 'nobles', not 'blockade'`` or ``with
    num_players=2 but the game has num_players=4``; ``None`` when it does not."""
    config = dict(env_config)
    name = config.pop("name", None)
    if name != game.name:
        return f"on {name!r}, not {game.name!r}"
    made_for = envs.make_game(env_config)
    for field in config:
        if getattr(made_for, field) != getattr(game, field):
            return (f"with {field}={getattr(made_for, field)!r} but the game has "
                    f"{field}={getattr(game, field)!r}")
    return None


def check_metadata(metadata, where: str, graph: str | None = None) -> None:
    """``metadata`` must be this format's, of this version, of ``graph`` (when given), with an
    encoder this code has at the same version; :class:`PolicyFileError` otherwise."""
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise PolicyFileError(f"{where} is not a {FORMAT} file (no metadata); export one with "
                              "python export.py checkpoint=PATH")
    if metadata.get("version") != VERSION:
        raise PolicyFileError(f"{where} has format version {metadata.get('version')}, this code "
                              f"reads version {VERSION}; export the checkpoint again")
    missing = [key for key in REQUIRED if key not in metadata]
    if missing:
        raise PolicyFileError(f"{where} has incomplete metadata: no {', '.join(missing)}")
    if graph is not None and metadata.get("graph") != graph:
        raise PolicyFileError(f"{where} holds the {metadata.get('graph')} graph, not the "
                              f"{graph} graph")
    encoder = metadata["encoder"]
    for part, version in encoder["versions"].items():
        if part not in ENCODER_VERSIONS:
            raise PolicyFileError(f"{where} needs encoder part {part!r}, which this code does "
                                  "not have")
        if ENCODER_VERSIONS[part] != version:
            raise PolicyFileError(f"{where} was exported with {part} encoder version {version}, "
                                  f"this code encodes version {ENCODER_VERSIONS[part]}; export "
                                  "the checkpoint again with this code")
