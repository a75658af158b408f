"""``play.py``'s settings beside ``env``, for both players: the game in the terminal and the
browser player (``ui=web``). Every default is stated here, with its comment; configs/play.yaml
only wires Hydra."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from agents.mcts import OPTIONS as MCTS_OPTIONS

UIS = ("terminal", "web")


@dataclass(frozen=True)
class WebSettings:
    """``web``: the browser player's files and limits."""

    # folders whose checkpoints (.pt), ONNX files and game records the page offers (the zoo's
    # too); no other file is read or written
    folders: tuple[str, ...] = ("outputs",)
    # where the page's "save record" and "save GIF" write (in one of the folders)
    exports: str = "outputs/play"
    # live games at once (one per browser tab); more are refused
    max_games: Annotated[int, ">= 1"] = 16
    # a game with no request for this long is dropped
    idle_minutes: Annotated[float, "> 0"] = 60.0


@dataclass
class PlayConfig:
    """``play.py``'s settings beside ``env`` (``python play.py --cfg job`` prints them)."""

    # terminal = type moves here | web = serve a page to play, watch and replay games in the
    # browser (every game and seat chosen there)
    ui: str = "terminal"
    # ui=web: address to listen on; 127.0.0.1 = this machine only (any other address lets
    # other machines in, with a warning)
    host: str = "127.0.0.1"
    # ui=web: port to listen on (0 = any free port; the address is printed)
    port: Annotated[int, "0..65535"] = 8000
    # ui=web: the page's files and limits
    web: WebSettings = field(default_factory=WebSettings)
    # one per seat, in turn order: human (you; several = hot seat) or any agent spec (ui=web:
    # the room's first choice): random | heuristic | mcts | checkpoint:PATH | onnx:PATH
    # (options inline: "onnx:PATH:sims=200") | zoo:NAME where available
    agents: list[str] = field(default_factory=lambda: ["human", "heuristic"])
    # keyword options per agent name or whole spec (null = the agent's default), as in
    # evaluate.py, e.g. agent_options.mcts.simulations=500
    agent_options: dict = field(default_factory=lambda: {"mcts": dict.fromkeys(MCTS_OPTIONS)})
    # dice and agents: the same seed and the same moves replay the game
    seed: int = 0
    # ui=terminal: a saved record (save PATH's JSON, or a one-game JSON lines file) or a
    # position (state.to_dict() JSON) to continue from
    load: str | None = None
    # agent spec whose top moves and value `hint` shows; null = the first seat's agent with a
    # network (onnx:, checkpoint:, zoo:), else the heuristic
    hint_agent: str | None = None
    # moves a hint lists
    hint_moves: Annotated[int, ">= 1"] = 5
    # milliseconds per frame of a GIF saved with `save PATH.gif`
    gif_frame_ms: int = 400

    def __post_init__(self):
        self.agents = [str(a) for a in self.agents]
        if self.ui not in UIS:
            raise ValueError(f"ui must be {' or '.join(UIS)}, got {self.ui!r}")
        if self.ui == "web" and self.load:
            raise ValueError("load= is for ui=terminal; the page replays records from its "
                             "Replay list (files below web.folders)")
