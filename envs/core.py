"""The engine contract shared by every game, and one PettingZoo AEC env over any engine.

A game package (``envs/blockade``, ``envs/barricade``, ``envs/nobles``) provides:

- ``Game(**config)``: config and sizes — ``name``, ``num_players``, ``num_actions``,
  ``max_turns``, ``new_initial_state()``, ``state_from_dict(d)`` (``ValueError`` saying why a
  position is invalid).
- ``State``: one position, cheap to ``clone()``; ``current_player()`` (a player index,
  :data:`CHANCE` or :data:`TERMINAL`), ``legal_actions_mask()``, ``legal_actions()``,
  ``apply_action(a)`` (:class:`IllegalActionError` and no change when illegal),
  ``chance_outcomes()``, ``is_terminal()``, ``is_truncated()``, ``returns()``, ``to_dict()``,
  ``action_to_string(a)``, ``string_to_action(s)``, ``str(state)``. A game without chance
  may take the turn methods from :class:`ChanceFreeState`.
- ``Encoder(game)``: ``shape``; ``encode(state, player)`` — float32 planes in [0, 1] from
  ``player``'s point of view; ``view_to_board_actions(player)`` — the permutation ``p`` with
  ``board_action = p[view_action]`` that goes with that view's flip (networks output logits in
  view actions, the engine takes board actions).
- ``draw(state) -> np.ndarray`` (H×W×3 uint8) for ``render_mode="rgb_array"``.
- ``HOOKS`` (optional): a :class:`Hooks` with the game knowledge that training and the networks
  may use beyond the rules (a lead for unfinished games, symmetries, derived input planes).

:func:`make_game` builds a ``Game`` from an env config (``{"name": ..., **keywords}``); a name
outside :data:`GAMES` is an import path, so a game plugs in by its package alone.
:func:`game_package` and :func:`game_hooks` find a game's package and hooks from the ``Game``.

:class:`BoardGameEnv` turns these into a PettingZoo ``AECEnv``; :func:`wrap` adds the wrappers
PettingZoo's classic board games use.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import sys
import warnings
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from types import ModuleType
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

CHANCE = -1
"""``current_player()`` at a chance node: the next action is an outcome of ``chance_outcomes()``."""
TERMINAL = -4
"""``current_player()`` once the game is over."""


class IllegalActionError(ValueError):
    """An action that is not legal in the state it was applied to; the state is unchanged."""


class State(Protocol):
    def current_player(self) -> int: ...
    def legal_actions_mask(self) -> np.ndarray: ...
    def legal_actions(self) -> list[int]: ...
    def apply_action(self, action: int) -> None: ...
    def chance_outcomes(self) -> list[tuple[int, float]]: ...
    def is_chance_node(self) -> bool: ...
    def is_terminal(self) -> bool: ...
    def is_truncated(self) -> bool: ...
    def returns(self) -> np.ndarray: ...
    def clone(self) -> State: ...
    def to_dict(self) -> dict: ...
    def action_to_string(self, action: int) -> str: ...
    def string_to_action(self, text: str) -> int: ...


class ChanceFreeState:
    """The contract's turn methods of a game without chance nodes whose state holds ``to_move``
    and ``outcome`` (None while the game goes on): a base of such games' ``State`` (Blockade,
    Barricade), which keep ``__slots__``."""

    __slots__ = ()

    def current_player(self) -> int:
        return TERMINAL if self.outcome is not None else self.to_move

    def is_chance_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def is_terminal(self) -> bool:
        return self.outcome is not None


class Game(Protocol):
    name: str
    num_players: int
    num_actions: int
    max_turns: int

    def new_initial_state(self) -> State: ...
    def state_from_dict(self, position: dict) -> State: ...


class Encoder(Protocol):
    shape: tuple[int, ...]

    def encode(self, state: State, player: int) -> np.ndarray: ...
    def view_to_board_actions(self, player: int) -> np.ndarray: ...


GAMES = ("blockade", "barricade", "nobles")
"""The games of this package, ``envs.<name>``."""


def game_module(name: str) -> ModuleType:
    """The package of a game by name: ``"blockade"`` -> ``envs.blockade``; any other name is
    the import path of a game package elsewhere (one exposing ``Game`` and ``Encoder``, e.g.
    the test game ``tiny_race``)."""
    if name in GAMES:
        return importlib.import_module(f"envs.{name}")
    try:
        module = importlib.import_module(name)
    except ImportError:
        module = None
    if module is None or not (hasattr(module, "Game") and hasattr(module, "Encoder")):
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}, or give "
                         f"the import path of a game package")
    return module


def make_game(env_config: Mapping[str, Any]) -> Game:
    """A ``Game`` from an env config: ``{"name": "nobles", "num_players": 4}``. Unknown keywords
    are a ``TypeError`` naming them."""
    if "name" not in env_config:
        raise ValueError(f"env config needs a 'name' (one of {', '.join(GAMES)}), got "
                         f"{dict(env_config)!r}")
    config = dict(env_config)
    return game_module(config.pop("name")).Game(**config)


def default_config(name: str) -> dict[str, Any]:
    """The env config of game ``name`` with every keyword its ``Game`` takes, at the
    constructor's defaults: ``{"name": "nobles", "num_players": 2, ...}``."""
    signature = inspect.signature(game_module(name).Game.__init__)
    return {"name": name, **{key: p.default for key, p in signature.parameters.items()
                             if key != "self" and p.default is not inspect.Parameter.empty}}


def config_mismatch(env_config: Mapping[str, Any], game: Game) -> str | None:
    """How ``game`` differs from the game ``env_config`` describes (defaults resolved on both
    sides), to follow "trained" or "played": ``on 'nobles', not 'blockade'`` or ``with
    num_players=2 but the game has num_players=4``; ``None`` when it does not."""
    config = dict(env_config)
    name = config.pop("name", None)
    if name != game.name:
        return f"on {name!r}, not {game.name!r}"
    made_for = make_game(env_config)
    # Keys given a value first: a preset's (None) keys differ only through the given ones.
    for field in sorted(config, key=lambda key: config[key] is None):
        if getattr(made_for, field) != getattr(game, field):
            return (f"with {field}={getattr(made_for, field)!r} but the game has "
                    f"{field}={getattr(game, field)!r}")
    return None


def _find_package(game: Game) -> ModuleType | None:
    name = type(game).__module__
    while name:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "Game", None) is type(game) \
                and hasattr(module, "Encoder"):
            return module
        name = name.rpartition(".")[0]
    return None


def game_package(game: Game) -> ModuleType:
    """The package that defines ``game``'s class beside its ``Encoder`` (and ``draw``,
    ``HOOKS``): the class's module or the nearest package above it."""
    package = _find_package(game)
    if package is None:
        raise ValueError(f"no game package found for {type(game).__qualname__} (a package "
                         f"exposing Game and Encoder)")
    return package


def game_hooks(game: Game) -> Hooks:
    """``game``'s :class:`Hooks`: its package's ``HOOKS``; none for a game without them (or a
    bare engine outside a package, as tests build)."""
    return getattr(_find_package(game), "HOOKS", NO_HOOKS)


def draw_index(cumulative: Sequence[float], rng) -> int:
    """An index drawn with probability proportional to its step in ``cumulative`` (running
    sums of probabilities or weights), from one ``rng.random()``: a numpy ``Generator`` or a
    ``random.Random``. The same draw as ``Generator.choice(n, p=...)`` and
    ``random.choices(..., weights)`` make, so swapping one for this keeps seeded games."""
    index = bisect_right(cumulative, rng.random() * cumulative[-1])
    return min(index, len(cumulative) - 1)


def sample_chance(state: State, rng) -> int:
    """One outcome of the chance node ``state``, drawn from ``chance_outcomes()`` by
    :func:`draw_index` (every chance draw of the project goes through here)."""
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    return int(outcomes[draw_index(list(accumulate(probs)), rng)])


@dataclass(frozen=True)
class Symmetry:
    """A board symmetry in the acting player's view: it maps an observation and its view
    actions to those of an equivalent position (the network should give the transformed
    position the transformed policy and the same values)."""

    name: str
    planes: np.ndarray  # new plane i is old plane planes[i] (before the spatial transform)
    transpose: bool  # swap H and W
    mirror_w: bool  # reverse W
    actions: np.ndarray  # view action a becomes actions[a]

    def obs(self, obs: np.ndarray) -> np.ndarray:
        """Transform a batch [B, C, H, W] of observations."""
        out = obs[:, self.planes]
        if self.transpose:
            out = out.transpose(0, 1, 3, 2)
        if self.mirror_w:
            out = out[..., ::-1]
        return np.ascontiguousarray(out)

    def per_action(self, values: np.ndarray) -> np.ndarray:
        """Transform a batch [B, A] of per-action values (policy, mask)."""
        out = np.empty_like(values)
        out[:, self.actions] = values
        return out


Lead = Callable[[Sequence[State], float], np.ndarray]
"""``lead(states, scale)``: ``[len(states), num_players]``, every player's lead in [-1, 1]."""


@dataclass(frozen=True)
class Hooks:
    """Game knowledge beyond the rules that generic code (``training/``, ``models/``) may ask a
    game for; every hook is optional, and a game without one gets what each field says.

    - ``adjudicate(state, scale)``: every player's value of an unfinished position in [-1, 1],
      by how far ahead it is (``scale``: the margin worth tanh(1)); scores games cut short
      (``rewards.adjudication: distance``) and the positions' own leads. None: no adjudication.
    - ``evaluate(state)``: every player's prospects in [-1, 1] by the game's own judgement
      (what its heuristic plays by), for search leaves mixed with a network's value
      (``search.game_value_weight``); None: a search cannot mix one in.
    - ``potential(game)``: the shaping lead :data:`Lead` of PPO's ``shaping.potential:
      distance``; None: ``adjudicate`` of each state (None too: no shaping).
    - ``decisions_left(state)``: about how many decisions the game still needs before its
      lead is cashed in, for ``rewards.discount_leads``; None: leads are not discounted.
    - ``symmetries(game, encoder)``: the non-identity :class:`Symmetry` of ``encoder``'s
      views, for augmenting training samples; None: none.
    - ``features``: derived input planes by name, ``(game, encoder) -> encoder`` appending
      them (same contract as ``Encoder``); ``auto_features``: what ``features: [auto]`` means.
    - ``encoder_versions``: the version of the game's encoder (under the game's name) and of
      each feature; bump one when what it writes changes, so that exported networks trained on
      the old input are refused on load. A part not listed is version 1.
    """

    adjudicate: Callable[[State, float], np.ndarray] | None = None
    evaluate: Callable[[State], np.ndarray] | None = None
    potential: Callable[[Game], Lead] | None = None
    decisions_left: Callable[[State], float] | None = None
    symmetries: Callable[[Game, Encoder], list[Symmetry]] | None = None
    features: Mapping[str, Callable[[Game, Encoder], Encoder]] = dataclasses.field(
        default_factory=dict)
    auto_features: tuple[str, ...] = ()
    encoder_versions: Mapping[str, int] = dataclasses.field(default_factory=dict)


NO_HOOKS = Hooks()


def margins(scores: np.ndarray, scale: float) -> np.ndarray:
    """tanh of each player's lead in ``scores`` (higher is better) over the best other player:
    the usual ``adjudicate`` of a game with a score. One player wins, so with 3-4 players being
    ahead of the others' mean is not enough: the second of three, ahead of the last, is behind
    where it counts. With two players the best other is the other."""
    scores = np.asarray(scores, dtype=np.float64)
    order = np.argsort(scores)
    best, second = scores[order[-1]], scores[order[-2]]
    rivals = np.where(np.arange(len(scores)) == order[-1], second, best)
    return np.tanh((scores - rivals) / scale)


def winner_returns(num_players: int, winners: list[int]) -> np.ndarray:
    """Returns shared by all games: ``w`` tied winners get (n−w)/(w·(n−1)) each, the others
    −1/(n−1); no winner, or everyone tied, is all zeros (a draw). Always sums to zero."""
    returns = np.zeros(num_players, dtype=np.float64)
    w = len(winners)
    if w == 0 or w == num_players:
        return returns
    returns[:] = -1.0 / (num_players - 1)
    returns[list(winners)] = (num_players - w) / (w * (num_players - 1))
    return returns


def check_action(action: Any, num_actions: int) -> int:
    """An action as a plain int, accepting numpy integers; anything else is illegal input."""
    if type(action) is int and 0 <= action < num_actions:  # the usual case, checked first
        return action
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"action must be an integer in 0..{num_actions - 1}, got "
                                 f"{action!r} ({type(action).__name__})")
    action = int(action)
    if not 0 <= action < num_actions:
        raise IllegalActionError(f"action {action} is out of range 0..{num_actions - 1}")
    return action


def check_config_matches(position: dict, game: Any, fields: tuple[str, ...]) -> None:
    """A position's config fields must equal the Game's: a 4-player position cannot load into a
    2-player game."""
    for field in fields:
        if field in position and position[field] != getattr(game, field):
            raise ValueError(
                f"position has {field}={position[field]!r} but the game has "
                f"{field}={getattr(game, field)!r}"
            )


def kept(store: dict, key, make: Callable[[], Any], limit: int):
    """``store[key]``, made by ``make()`` when missing: what a game works out per position and
    finds again for positions that share it (a search's leaves a roll apart, most moves that
    leave the walls as they were). A full store starts afresh (``limit`` entries)."""
    value = store.get(key)
    if value is None:
        if len(store) >= limit:
            store.clear()
        value = store[key] = make()
    return value


class BoardGameEnv(AECEnv):
    """A PettingZoo AEC env over any engine of the contract.

    Agents are ``player_0 .. player_{n-1}``. Chance nodes are resolved by the env itself with a
    generator seeded by ``reset(seed=...)``, so agents only ever see decision nodes. At the end
    every agent is flagged at once — all terminated, or all truncated when the engine says
    ``is_truncated()`` — and ``rewards`` hold ``state.returns()``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: Game, encoder: Encoder, draw, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.game = game
        self.encoder = encoder
        self._draw = draw
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape=encoder.shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self.game_state: State | None = None
        self._dice = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._dice = np.random.default_rng(seed)
        position = (options or {}).get("position")
        if position is None:
            self.game_state = self.game.new_initial_state()
        else:
            self.game_state = self.game.state_from_dict(position)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._resolve_chance()
        self._after_move()

    def observe(self, agent):
        player = self.agent_name_mapping[agent]
        state = self.game_state
        if state.current_player() == player:
            mask = state.legal_actions_mask().astype(np.int8)
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        return {"observation": self.encoder.encode(state, player), "action_mask": mask}

    def step(self, action) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        action = check_action(action, self.game.num_actions)
        self._cumulative_rewards[self.agent_selection] = 0.0
        self.game_state.apply_action(action)
        self._resolve_chance()
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def _resolve_chance(self) -> None:
        state = self.game_state
        while state.is_chance_node():
            state.apply_action(sample_chance(state, self._dice))

    def _after_move(self) -> None:
        """Point ``agent_selection`` at the player to move, or flag the end for everyone."""
        state = self.game_state
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if state.is_terminal():
            flags = self.truncations if state.is_truncated() else self.terminations
            for agent in self.agents:
                flags[agent] = True
            returns = state.returns()
            for agent in self.agents:
                self.rewards[agent] = float(returns[self.agent_name_mapping[agent]])
            if self.agent_selection not in self.agents:
                self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[state.current_player()]

    def render(self):
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi' "
                          "or 'rgb_array' when creating the env", stacklevel=2)
            return None
        if self.render_mode == "ansi":
            return str(self.game_state)
        return self._draw(self.game_state)

    def close(self) -> None:
        pass


class DirectAttributes:
    """Wrapper mixin: the AEC bookkeeping attributes read straight from the raw env.

    PettingZoo wrappers forward unknown attributes through ``__getattr__``, one failed lookup
    per wrapper layer; with the three standard wrappers that was a third of a step's time.
    Before ``reset`` the raw env lacks these attributes, so the lookup still falls through to
    the wrapper's ``__getattr__`` and its usual error.
    """

    def _bind_raw_env(self) -> None:
        self._raw_env = self.env.unwrapped


for _name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
              "_cumulative_rewards"):
    setattr(DirectAttributes, _name,
            property(lambda self, name=_name: getattr(self._raw_env, name)))


class NamedIllegalMoveWrapper(DirectAttributes, wrappers.TerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper, whose warning also names the illegal move.

    An action that is not an action at all (not an integer, a bool, ``None`` for an agent still
    to move, or outside ``0..num_actions-1``) raises :class:`IllegalActionError` (a
    ``ValueError`` naming it) and changes nothing; a legal-looking number that the rules forbid
    ends the game with ``illegal_reward`` for the offender. Both hold under ``python -O``,
    unlike PettingZoo's ``AssertOutOfBoundsWrapper``, which this replaces."""

    def __init__(self, env: AECEnv, illegal_reward: float):
        super().__init__(env, illegal_reward)
        self._bind_raw_env()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            super().step(action)  # PettingZoo's dead step: only None is accepted
            return
        action = check_action(action, self.env.unwrapped.game.num_actions)
        if self._prev_obs is None:
            self.observe(agent)
        if not self._prev_obs["action_mask"][action]:
            name = self.env.unwrapped.game_state.action_to_string(action)
            warnings.warn(f"{agent} played illegal action {action} ({name}); the game ends "
                          f"with {self._illegal_value} for {agent}", stacklevel=2)
        super().step(action)


PLAYER_COLORS = [(210, 40, 40), (230, 165, 0), (130, 60, 190), (60, 60, 60)]
"""Seat colours in every picture, players 0..3 (not green or blue: Blockade's walls are)."""
PLAYER_COLOR_NAMES = ["red", "gold", "purple", "black"]


def load_font(size: int):
    """A TrueType font when one is installed (DejaVu ships with matplotlib), else PIL's default."""
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        pass
    try:
        import matplotlib

        path = f"{matplotlib.get_data_path()}/fonts/ttf/DejaVuSans.ttf"
        return ImageFont.truetype(path, size)
    except (ImportError, OSError):
        return ImageFont.load_default(size)


def wrap(raw: BoardGameEnv) -> AECEnv:
    """The wrappers of PettingZoo's classic board games: illegal moves end the game (−1 for the
    offender), non-actions raise ``ValueError``, and the AEC call order is enforced."""
    return OrderEnforcing(NamedIllegalMoveWrapper(raw, illegal_reward=-1))


class OrderEnforcing(DirectAttributes, wrappers.OrderEnforcingWrapper):
    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._bind_raw_env()
