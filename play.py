"""Play a game against any agents, in the terminal or in the browser:

    python play.py env=nobles agents=[human,onnx:outputs/.../export/nobles_2p.onnx]
    python play.py ui=web          # a page on http://127.0.0.1:8000: every game, any seats

The terminal shows the board after every move and reads your moves in the game's notation;
``help`` lists the commands (legal moves, hints, undo, save as a record or a GIF, load a record
or position). The web page draws the board, takes clicks, watches and replays games. Settings:
ui/settings.py (PlayConfig); guide: docs/play.md. A bad setting is one line and exit code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from configs.cli import entry_point
from configs.store import register

register()  # the config groups' defaults, from their dataclasses
ENV_CONFIGS = Path(__file__).parent / "configs" / "env"


def play_config() -> type:
    from ui.settings import PlayConfig

    return PlayConfig


@entry_point("play", groups=("env",), settings=lambda: [("", play_config())])
def main(cfg: DictConfig) -> None:
    from typedconfig import from_mapping, refuse
    from ui.settings import PlayConfig
    from ui.terminal import TerminalGame

    values = OmegaConf.to_container(cfg, resolve=True)
    env_config = values.pop("env")
    try:
        play = from_mapping(PlayConfig, values)
        if play.ui == "web":
            from web.config import WebConfig
            from web.server import serve

            serve(WebConfig(play, env_config, HydraConfig.get().runtime.choices["env"],
                            str(ENV_CONFIGS)))
            return
        game = TerminalGame(env_config, play, sys.stdin, sys.stdout)
    except (ValueError, TypeError, FileNotFoundError) as error:
        refuse(error)
    game.run()


if __name__ == "__main__":
    main()
