"""Play a game in the terminal against any agents:

    python play.py env=nobles agents=[human,onnx:outputs/.../export/nobles_2p.onnx]

shows the board after every move and reads your moves in the game's notation; ``help`` lists
the commands (legal moves, hints, undo, save as a record or a GIF, load a record or position).
Settings: configs/play.yaml; guide: docs/play.md.
"""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig, OmegaConf

from configs.store import register

register()  # the config groups' defaults, from their dataclasses


@hydra.main(version_base="1.3", config_path="configs", config_name="play")
def main(cfg: DictConfig) -> None:
    from ui.terminal import PlayConfig, TerminalGame

    values = OmegaConf.to_container(cfg, resolve=True)
    env_config = values.pop("env")
    try:
        game = TerminalGame(env_config, PlayConfig(**values), sys.stdin, sys.stdout)
    except (ValueError, TypeError, FileNotFoundError) as error:
        sys.exit(f"error: {error}")
    game.run()


if __name__ == "__main__":
    main()
