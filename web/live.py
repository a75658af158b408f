"""Live games: one :class:`LiveGame` per browser tab, kept in a bounded :class:`GameStore` that
drops games left idle, with agents from one :class:`AgentMaker` per process, which loads each
network once and hands every game a fork of it.

The engine is the only authority: every move is applied to the server's state, and every answer
is the whole :func:`game_view` of the game after it, so the page redraws from what the server
holds. Each change bumps the game's ``version``; a request made for an older version is refused,
so two tabs (or a double click) cannot play one move twice."""

from __future__ import annotations

import importlib
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from agents import make_agent, parse_spec
from arena.game import game_seeds, options_for
from arena.records import GameRecord
from envs.core import (
    CHANCE,
    PLAYER_COLOR_NAMES,
    PLAYER_COLORS,
    IllegalActionError,
    game_package,
    sample_chance,
)
from ui.terminal import HUMAN, Hints, pick_hints
from web.catalog import Folders

NETWORK_KINDS = ("checkpoint", "onnx", "zoo")
SHARED_NETWORKS = 8
"""Networks kept loaded at most (the least recently used one is dropped beyond)."""


class Refused(Exception):
    """A request the server turns down: an HTTP status and one line saying why."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class AgentMaker:
    """Agents from specs, checked against the allowed folders: a ``checkpoint:`` or ``onnx:``
    path must be one the server lists. A network is loaded once per spec and game config, and
    each seat plays a fork of it (its own generator, the same network)."""

    def __init__(self, folders: Folders, agent_options: dict):
        self.folders = folders
        self.agent_options = agent_options
        self._networks: OrderedDict[tuple, object] = OrderedDict()
        self._lock = threading.Lock()

    def make(self, spec: str, game, env_config: dict):
        """The agent ``spec`` for ``game``; a ``ValueError`` saying why it cannot be made."""
        try:
            return self._make(spec, game, env_config)
        except TypeError as error:  # an option of the wrong type, e.g. mcts:simulations=abc
            raise ValueError(f"agent {spec}: {error}") from None

    def _make(self, spec: str, game, env_config: dict):
        name, options = parse_spec(spec)
        if name in ("checkpoint", "onnx"):
            self.folders.resolve(options["path"], name)
        build_options = options_for(spec, self.agent_options)
        if name not in NETWORK_KINDS:
            return make_agent(spec, game, **build_options)
        key = (spec, repr(sorted(env_config.items())))
        with self._lock:  # one load per network, also when two games ask at once
            network = self._networks.get(key)
            if network is None:
                try:
                    network = make_agent(spec, game, **build_options)
                except (OSError, RuntimeError, KeyError) as error:  # a file that does not load
                    raise ValueError(f"cannot load {spec}: {error}") from None
                self._networks[key] = network
                if len(self._networks) > SHARED_NETWORKS:
                    self._networks.popitem(last=False)
            self._networks.move_to_end(key)
        return network.fork()


@dataclass
class LiveGame:
    """One game between people (``None`` in ``agents``) and agents, with every position since
    its start, the points a person's move can be taken back to, and the dice generator."""

    id: str
    config: str
    env_config: dict
    game: object
    specs: list[str]
    agents: list
    hints: Hints
    dice: np.random.Generator
    state: object
    actions: list[int] = field(default_factory=list)
    positions: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)  # step_view of each action
    undo_points: list[int] = field(default_factory=list)  # len(actions) before a person's move
    resigned: int | None = None
    version: int = 0
    seen: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def over(self) -> bool:
        return self.resigned is not None or self.state.is_terminal()

    def seat_name(self, seat: int) -> str:
        return f"player {seat} ({self.specs[seat]})"

    def check(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise Refused(409, f"the game has moved on (version {self.version}, not {version}): "
                               "reload it")

    def changed(self) -> None:
        self.version += 1

    def apply(self, action: int) -> None:
        """``action`` played, then the dice rolled until someone is to decide (or it is over)."""
        step = step_view(self.state, action)
        self.state.apply_action(action)
        self.actions.append(action)
        self.positions.append(self.state.to_dict())
        self.steps.append(step)
        while self.state.current_player() == CHANCE:
            self.apply(sample_chance(self.state, self.dice))

    def record(self) -> GameRecord:
        return GameRecord(self.env_config, list(self.specs), list(self.actions),
                          list(self.positions), [float(r) for r in self.state.returns()])


def new_game(config: str, env_config: dict, game, specs: list[str], seed: int,
             agents: AgentMaker, hint_agent: str | None) -> LiveGame:
    """A game of ``game`` between ``specs`` (``human`` or agent specs, one per seat), seeded as
    ``play.py`` seeds the terminal game, so the same seed and moves replay it."""
    n = game.num_players
    if len(specs) != n:
        raise ValueError(f"{game.name} with {n} players needs {n} seats, got {len(specs)}")
    dice_seed, agent_seeds = game_seeds(seed, 0, n)
    seat_agents = [None if spec == HUMAN else agents.make(spec, game, env_config)
                   for spec in specs]
    for seat, agent in enumerate(seat_agents):
        if agent is not None:
            agent.reset(game, seat, agent_seeds[seat])
    if hint_agent:
        hints = Hints(game, agents.make(hint_agent, game, env_config), hint_agent)
    else:
        hints = pick_hints(game, specs, seat_agents, None, agents.agent_options)
    state = game.new_initial_state()
    live = LiveGame(secrets.token_urlsafe(9), config, env_config, game, list(specs), seat_agents,
                    hints, np.random.default_rng(dice_seed), state, positions=[state.to_dict()])
    while live.state.current_player() == CHANCE:
        live.apply(sample_chance(live.state, live.dice))
    return live


def play_move(live: LiveGame, action: int, version: int | None) -> None:
    """A person's move: refused unless a person is to move; an illegal one with the engine's
    reason, the game unchanged."""
    live.check(version)
    seat = _seat_to_move(live)
    if live.agents[seat] is not None:
        raise Refused(409, f"it is {live.seat_name(seat)}'s turn, not a person's")
    before = len(live.actions)
    try:
        live.apply(action)
    except IllegalActionError as error:
        raise Refused(422, str(error)) from None
    live.undo_points.append(before)
    live.changed()


def advance(live: LiveGame, version: int | None) -> None:
    """The agent to move plays its move."""
    live.check(version)
    seat = _seat_to_move(live)
    agent = live.agents[seat]
    if agent is None:
        raise Refused(409, f"player {seat} is a person: the page sends their moves")
    live.apply(agent.act(live.state.clone()))
    live.changed()


def undo(live: LiveGame, version: int | None) -> None:
    """Back to before the last person's move (the agents' replies since go too; the dice rolled
    before that move stay)."""
    live.check(version)
    if live.resigned is not None:
        raise Refused(409, "the game was resigned")
    if not live.undo_points:
        raise Refused(409, "nothing to undo: no person has moved yet")
    length = live.undo_points.pop()
    del live.actions[length:]
    del live.positions[length + 1:]
    del live.steps[length:]
    live.state = live.game.state_from_dict(live.positions[-1])
    live.changed()


def resign(live: LiveGame, seat: int, version: int | None) -> None:
    """Person ``seat`` gives up: the game is over and that seat has lost."""
    live.check(version)
    if live.over:
        raise Refused(409, "the game is over")
    if not 0 <= seat < len(live.specs) or live.agents[seat] is not None:
        raise Refused(400, f"seat {seat} is not a person's seat")
    live.resigned = seat
    live.changed()


def preview(live: LiveGame, action: int) -> dict:
    """The position ``action`` would lead to (before any dice), the game unchanged."""
    _seat_to_move(live)
    after = live.state.clone()
    try:
        after.apply_action(action)
    except IllegalActionError as error:
        raise Refused(422, str(error)) from None
    return after.to_dict()


def analysis(live: LiveGame, count: int) -> dict:
    """The hint agent's top moves and every seat's value of the position."""
    _seat_to_move(live)
    hint = live.hints.hint(live.state, count)
    return {"label": hint.label, "values": hint.values,
            "moves": [{"action": a, "text": live.state.action_to_string(a), "probability": p}
                      for a, p in hint.moves]}


def _seat_to_move(live: LiveGame) -> int:
    if live.over:
        raise Refused(409, "the game is over")
    return live.state.current_player()


def seats_view(specs: list[str]) -> list[dict]:
    """Each seat's spec and colour (the colours of the game's pictures and GIFs)."""
    return [{"spec": spec, "human": spec == HUMAN, "color_name": PLAYER_COLOR_NAMES[s],
             "color": "#" + "".join(f"{v:02x}" for v in PLAYER_COLORS[s])}
            for s, spec in enumerate(specs)]


def result_view(state, resigned: int | None) -> dict | None:
    """How the game ended (``None`` while it goes on): the engine's returns, the winners (the
    seats with the highest positive return), whether it hit the turn limit, who resigned."""
    if resigned is None and not state.is_terminal():
        return None
    returns = [float(r) for r in state.returns()]
    if resigned is not None:
        winners = [s for s in range(len(returns)) if s != resigned]
    elif max(returns) > 0:
        winners = [s for s, r in enumerate(returns) if r == max(returns)]
    else:
        winners = []
    return {"returns": returns, "winners": winners, "resigned": resigned,
            "truncated": resigned is None and bool(state.is_truncated())}


def step_view(state, action: int) -> dict:
    """``action`` in ``state`` as the move list shows it: who played it (-1: the dice) and its
    notation; an action out of range is an ``IllegalActionError``."""
    return {"seat": state.current_player(), "action": action,
            "text": state.action_to_string(action)}


def layout_of(game) -> dict:
    """What the page needs to draw ``game`` beside a position: the ``layout(game)`` of the
    game package's ``layout`` module (``envs/<game>/layout.py``), empty for a game without."""
    try:
        module = importlib.import_module(f"{game_package(game).__name__}.layout")
    except ImportError:
        return {}
    return module.layout(game)


def game_view(live: LiveGame) -> dict:
    """All the page needs to draw the game and take the next move."""
    state = live.state
    decision = not live.over and state.current_player() >= 0
    legal = np.flatnonzero(state.legal_actions_mask()).tolist() if decision else []
    return {
        "id": live.id, "version": live.version, "config": live.config,
        "env_config": live.env_config, "game": live.game.name,
        "seats": seats_view(live.specs), "layout": layout_of(live.game),
        "position": state.to_dict(), "to_move": -1 if live.over else state.current_player(),
        "legal": [{"action": a, "text": state.action_to_string(a)} for a in legal],
        "result": result_view(state, live.resigned),
        "history": live.steps,
        "can_undo": bool(live.undo_points) and live.resigned is None,
        "hints_from": live.hints.label,
    }


class GameStore:
    """The live games by id: at most ``max_games``, each dropped after ``idle_seconds`` without
    a request."""

    def __init__(self, max_games: int, idle_seconds: float):
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self._games: dict[str, LiveGame] = {}
        self._lock = threading.Lock()

    def add(self, live: LiveGame) -> None:
        with self._lock:
            self._expire()
            if len(self._games) >= self.max_games:
                raise Refused(429, f"{self.max_games} games are live already (web.max_games): "
                                   "finish or leave one, or wait until one times out")
            self._games[live.id] = live

    def get(self, game_id: str) -> LiveGame:
        with self._lock:
            self._expire()
            live = self._games.get(game_id)
            if live is None:
                raise Refused(404, f"no live game {game_id!r} (unknown, or dropped after "
                                   f"{self.idle_seconds / 60:g} idle minutes)")
            live.seen = time.monotonic()
            return live

    def __len__(self) -> int:
        return len(self._games)

    def _expire(self) -> None:
        now = time.monotonic()
        for game_id in [i for i, g in self._games.items() if now - g.seen > self.idle_seconds]:
            del self._games[game_id]

