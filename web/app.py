"""The web player's HTTP interface (Starlette): the page and its assets, and a small JSON API
over :mod:`web.live` (games), :mod:`web.catalog` (what may be chosen) and :mod:`web.replay`.

Every request is checked here before anything runs: a body must be one JSON object of the
fields the route takes, each of the right type and range, at most :data:`MAX_BODY` bytes, sent
as ``application/json`` (which a page of another site cannot send without the browser asking
first, so it cannot drive a local game). Whatever is refused is a 4xx answer
``{"error": "one line"}``; the server never answers 500 to bad input.

    GET  /api/catalog                     env configs, defaults, record files
    POST /api/setup {config, env}         the game's seat count and the agents that fit it
    POST /api/games {config, env, seats, seed, hint_agent}        a new game (its view)
    GET  /api/games/ID                    the game's view (after a reload too)
    POST /api/games/ID/move {action, version}   a person's move
    POST /api/games/ID/advance {version}  the agent to move plays
    POST /api/games/ID/undo {version}; /resign {seat, version}
    POST /api/games/ID/preview {action}   the position a move leads to
    GET  /api/games/ID/analysis           the hint agent's top moves and values
    GET  /api/games/ID/export.json | export.gif   the game saved into web.exports, downloaded
    POST /api/replay {path, index}        a recorded game, every position
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import zoo
from agents import AGENT_NAMES
from arena.records import render_gif, save_records
from envs import config_mismatch
from envs.core import PLAYER_COLOR_NAMES
from ui.terminal import HUMAN
from web import live as games
from web.catalog import EnvChoice, env_choices, make_game
from web.config import LOOPBACK_HOSTS, WebConfig
from web.live import AgentMaker, GameStore, LiveGame, Refused, game_view
from web.replay import games_view, read_records, replay_view

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
MAX_SEED = 2**63 - 1
MAX_SETTING = 1000
"""Numbers the room may set in an env config: board sizes, turn limits and the like are small."""
MAX_ACTIONS = 20_000
"""Actions a game may have for the page to draw it (a Blockade board up to about 100 x 100)."""
HINT_MOVES_MAX = 50
BUILT_IN_AGENTS = [name for name in AGENT_NAMES if ":" not in name]
"""Agents every game has (random, heuristic, mcts); networks come from the zoo and the files."""


class Server:
    """What the routes share: the settings, the env configs, the live games, the agents."""

    def __init__(self, config: WebConfig):
        self.config = config
        self.folders = config.folders_allowed
        self.choices = env_choices(config.env_folder)
        self.store = GameStore(config.play.web.max_games, config.play.web.idle_minutes * 60)
        self.agents = AgentMaker(self.folders, config.play.agent_options)


# -- request checking ------------------------------------------------------------------------

async def read_json(request: Request, fields: dict[str, bool]) -> dict:
    """The request's JSON object, holding only ``fields`` (name -> required)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Refused(415, "send the body as Content-Type: application/json")
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        raise Refused(413, f"the body is larger than {MAX_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"the body is larger than {MAX_BODY} bytes")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise Refused(400, f"malformed JSON: {error}") from None
    if not isinstance(data, dict):
        raise Refused(400, f"the body must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise Refused(400, f"unknown field(s) {', '.join(map(repr, unknown))}; this request takes "
                           f"{', '.join(fields) or 'none'}")
    missing = [name for name, required in fields.items() if required and name not in data]
    if missing:
        raise Refused(400, f"missing field(s) {', '.join(missing)}")
    return data


def integer(data: dict, name: str, low: int, high: int, default=None) -> int | None:
    value = data.get(name, default)
    if value is None and name not in data:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(400, f"{name} must be an integer in {low}..{high}, got {value!r}")
    return value


def text(data: dict, name: str, default=None) -> str | None:
    value = data.get(name, default)
    if value is not None and not isinstance(value, str):
        raise Refused(400, f"{name} must be a string, got {type(value).__name__}")
    return value


def choice_of(server: Server, data: dict) -> tuple[EnvChoice, dict]:
    """The env config named by ``config`` and the ``env`` settings over it."""
    name = text(data, "config")
    if name not in server.choices:
        raise Refused(400, f"unknown env config {name!r}; choose one of "
                           f"{', '.join(server.choices)}")
    settings = data.get("env", {})
    if not isinstance(settings, dict) or not all(
            isinstance(v, (str, int, float, bool, type(None))) for v in settings.values()):
        raise Refused(400, "env must be an object of setting -> value (string, number, "
                           "boolean or null)")
    if any(isinstance(v, (int, float)) and not isinstance(v, bool)
           and not (math.isfinite(v) and abs(v) <= MAX_SETTING) for v in settings.values()):
        raise Refused(400, f"env settings must be numbers within -{MAX_SETTING}..{MAX_SETTING}")
    return server.choices[name], settings


def game_of(server: Server, request: Request) -> LiveGame:
    return server.store.get(request.path_params["game_id"])


def seats_of(data: dict) -> list[str]:
    seats = data["seats"]
    if not isinstance(seats, list) or not all(isinstance(s, str) and s for s in seats):
        raise Refused(400, "seats must be a list of agent specs (human, random, ...)")
    return seats


# -- routes ----------------------------------------------------------------------------------

async def index(request: Request):
    return FileResponse(STATIC / "index.html")


async def catalog(request: Request):
    server: Server = request.app.state.server
    config = server.config
    records = await run_in_threadpool(server.folders.files, "record")
    return JSONResponse({
        "configs": {name: {"values": c.values, "help": c.help}
                    for name, c in server.choices.items()},
        "defaults": {"config": config.env_choice,
                     "env": {k: v for k, v in config.env.items() if k != "name"},
                     "seats": config.play.agents, "seed": config.play.seed,
                     "hint_agent": config.play.hint_agent},
        "folders": [str(p) for p in server.folders.roots],
        "records": records,
    })


async def setup(request: Request):
    server: Server = request.app.state.server
    data = await read_json(request, {"config": True, "env": False})
    choice, settings = choice_of(server, data)

    def answer():
        env_config, game = make_game(choice, settings, MAX_ACTIONS)
        fitting = [f"zoo:{name}" for name in zoo.names()
                   if not config_mismatch(zoo.metadata(name)["env_config"], game)]
        files = [f"{kind}:{path}" for kind in ("checkpoint", "onnx")
                 for path in server.folders.files(kind)]
        return {"env_config": env_config, "num_players": game.num_players,
                "color_names": PLAYER_COLOR_NAMES[:game.num_players],
                "agents": [HUMAN, *BUILT_IN_AGENTS, *fitting, *files]}

    return JSONResponse(await run_in_threadpool(answer))


async def create_game(request: Request):
    server: Server = request.app.state.server
    data = await read_json(request, {"config": True, "env": False, "seats": True,
                                     "seed": False, "hint_agent": False})
    choice, settings = choice_of(server, data)
    seats = seats_of(data)
    seed = integer(data, "seed", 0, MAX_SEED, server.config.play.seed)
    hint_agent = text(data, "hint_agent") or None

    def start() -> LiveGame:
        env_config, game = make_game(choice, settings, MAX_ACTIONS)
        return games.new_game(choice.name, env_config, game, seats, seed, server.agents,
                              hint_agent)

    live = await run_in_threadpool(start)
    server.store.add(live)
    return JSONResponse(game_view(live), status_code=201)


async def show_game(request: Request):
    live = game_of(request.app.state.server, request)
    return JSONResponse(await run_in_threadpool(locked, live, game_view))


def locked(live: LiveGame, action, *args):
    """``action(live, *args)`` while holding the game (one request at a time changes it)."""
    with live.lock:
        return action(live, *args)


async def change(request: Request, fields: dict[str, bool], action, *args_of):
    """Read the body, apply ``action`` to the game and answer its view."""
    live = game_of(request.app.state.server, request)
    data = await read_json(request, fields)
    args = [read(data, live) for read in args_of]

    def run():
        with live.lock:
            action(live, *args)
            return game_view(live)

    return JSONResponse(await run_in_threadpool(run))


def action_field(data: dict, live: LiveGame) -> int:
    return integer(data, "action", 0, live.game.num_actions - 1)


def version_field(data: dict, live: LiveGame) -> int | None:
    return integer(data, "version", 0, MAX_SEED)


def seat_field(data: dict, live: LiveGame) -> int:
    return integer(data, "seat", 0, live.game.num_players - 1)


async def move(request: Request):
    return await change(request, {"action": True, "version": False}, games.play_move,
                        action_field, version_field)


async def advance(request: Request):
    return await change(request, {"version": False}, games.advance, version_field)


async def undo(request: Request):
    return await change(request, {"version": False}, games.undo, version_field)


async def resign(request: Request):
    return await change(request, {"seat": True, "version": False}, games.resign, seat_field,
                        version_field)


async def preview(request: Request):
    live = game_of(request.app.state.server, request)
    data = await read_json(request, {"action": True})
    action = action_field(data, live)
    position = await run_in_threadpool(locked, live, games.preview, action)
    return JSONResponse({"position": position})


async def analysis(request: Request):
    server: Server = request.app.state.server
    live = game_of(server, request)
    count = min(server.config.play.hint_moves, HINT_MOVES_MAX)
    return JSONResponse(await run_in_threadpool(locked, live, games.analysis, count))


async def export(request: Request):
    """The game saved as a record (JSON lines, one game) or a GIF into ``web.exports`` and sent
    as a download."""
    server: Server = request.app.state.server
    live = game_of(server, request)
    kind = request.path_params["kind"]
    if kind not in ("json", "gif"):
        raise Refused(404, f"export.{kind}: a game exports as export.json or export.gif")
    folder = Path(server.config.play.web.exports)
    path = folder / f"{live.config}-{live.id}-{live.version}.{kind}"

    def write():
        record = locked(live, LiveGame.record)
        folder.mkdir(parents=True, exist_ok=True)
        if kind == "gif":
            render_gif(record, path, server.config.play.gif_frame_ms)
        else:
            save_records([record], path)

    await run_in_threadpool(write)
    return FileResponse(path, filename=path.name,
                        media_type="image/gif" if kind == "gif" else "application/json")


async def replay(request: Request):
    server: Server = request.app.state.server
    data = await read_json(request, {"path": True, "index": False})
    name = text(data, "path")
    index = integer(data, "index", 0, MAX_SEED, 0)

    def load():
        records = read_records(server.folders.resolve(name, "record"))
        return {"games": games_view(records), "index": index,
                **replay_view(records, index)}

    return JSONResponse(await run_in_threadpool(load))


# -- errors ----------------------------------------------------------------------------------

def one_line(reason: str) -> str:
    return " ".join(reason.split()) or "bad request"


async def refused(request: Request, error: Refused):
    return JSONResponse({"error": one_line(error.reason)}, status_code=error.status)


async def bad_value(request: Request, error: ValueError):
    """What the engine, the agents or the catalogue refuse (a ``ValueError`` saying why)."""
    return JSONResponse({"error": one_line(str(error))}, status_code=400)


async def http_error(request: Request, error: HTTPException):
    return JSONResponse({"error": one_line(str(error.detail))}, status_code=error.status_code)


def create_app(config: WebConfig) -> Starlette:
    routes = [
        Route("/", index),
        Route("/api/catalog", catalog),
        Route("/api/setup", setup, methods=["POST"]),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game_id}", show_game),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/advance", advance, methods=["POST"]),
        Route("/api/games/{game_id}/undo", undo, methods=["POST"]),
        Route("/api/games/{game_id}/resign", resign, methods=["POST"]),
        Route("/api/games/{game_id}/preview", preview, methods=["POST"]),
        Route("/api/games/{game_id}/analysis", analysis),
        Route("/api/games/{game_id}/export.{kind:str}", export),
        Route("/api/replay", replay, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    # A loopback server answers only to its own names: a page of another site that renames
    # itself to 127.0.0.1 (DNS rebinding) is refused.
    hosts = ["*"] if config.exposed else list(LOOPBACK_HOSTS)
    app = Starlette(routes=routes,
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
                    exception_handlers={Refused: refused, ValueError: bad_value,
                                        HTTPException: http_error})
    app.state.server = Server(config)
    return app

