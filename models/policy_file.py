"""What an exported policy file says about itself, and the checks that a file fits the game and
the installed ``envs`` package before it plays. Torch-free.

Every file ``export.py`` writes carries one metadata dict (JSON: in the ONNX file's
``metadata_props`` under :data:`METADATA_KEY`, in a TorchScript file as the extra file
``metadata.json``, and beside them as ``NAME.json``). Its fields:

- ``format``, ``version``: :data:`FORMAT` and :data:`VERSION`; ``graph``: ``network`` (raw
  logits and values) or ``greedy`` (masked most likely action), absent in the side file.
- ``game``, ``env_config``: the game and every rules setting it was trained under.
- ``encoder``: ``name`` (the game's encoder plus derived features, e.g.
  ``blockade+goal_steps``), ``game``, ``features`` and ``versions`` (each part's version, as
  the game's hooks give it: ``envs.core.Hooks.encoder_versions``).
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

REQUIRED = ("game", "env_config", "encoder", "observation", "num_actions", "num_players",
            "actions", "values", "policy", "self_check")
"""Fields every file's metadata has (loading reads them)."""

SELF_CHECK_TOLERANCE = 1e-4
"""Largest difference between the outputs stored at export and those of the loaded file on the
same positions (onnxruntime and PyTorch agree to about 1e-6 on these networks)."""


class PolicyFileError(ValueError):
    """An exported policy file that is missing, damaged, or does not fit this game or code."""


def encoder_versions(game) -> dict[str, int]:
    """Version of ``game``'s observation encoder (under the game's name) and of each of its
    derived features: the game's ``Hooks.encoder_versions``, 1 for a part it does not list."""
    hooks = envs.game_hooks(game)
    return {part: int(hooks.encoder_versions.get(part, 1))
            for part in [game.name, *hooks.features]}


def encoder_description(game, features) -> dict:
    """The ``encoder`` metadata of ``game``'s encoder with ``features`` appended."""
    features = list(features)
    versions = encoder_versions(game)
    return {"name": "+".join([game.name, *features]), "game": game.name, "features": features,
            "versions": {part: versions[part] for part in [game.name, *features]}}


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
    try:
        game = envs.make_game(metadata["env_config"])
    except (ValueError, TypeError) as error:
        raise PolicyFileError(f"{where} was trained on a game this code cannot make "
                              f"({error})") from None
    installed = encoder_versions(game)
    for part, version in metadata["encoder"]["versions"].items():
        if part not in installed:
            raise PolicyFileError(f"{where} needs encoder part {part!r}, which this code does "
                                  "not have")
        if installed[part] != version:
            raise PolicyFileError(f"{where} was exported with {part} encoder version {version}, "
                                  f"this code encodes version {installed[part]}; export "
                                  "the checkpoint again with this code")
