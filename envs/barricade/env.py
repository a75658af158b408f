"""Barricade — PettingZoo AEC environment.

| | |
|---|---|
| Import | `from envs import barricade; env = barricade.env(variant="standard")` |
| Actions | Discrete |
| Parallel API | No |
| Manual control | No |
| Agents | `agents = ['player_0', 'player_1']` (South, North) |
| Action shape | (1,) |
| Action values | Discrete(143) |
| Observation shape | {"observation": (36, 13, 7), "action_mask": (143,)} |
| Observation values | observation float32 in [0, 1]; action_mask int8 0/1 |

Two players, South (`player_0`, moves first) and North (`player_1`), each with 3 Scouts starting
in their own Base Stations and 2 Guards in the tray, race their Scouts through a board of 13
lines by 7 files into the opponent's Base Stations. Full rules, board picture and the house
rules: `docs/barricade.md` (RULES.md section 2).

**Board.** Base Stations on lines 1 (South) and 13 (North) at files b, d, f; Outer Stations on
lines 2 and 12; Cross Stations on lines 3..11. Tracks join neighbouring stations.

**Turn.** A double move of two half-moves, each one env step (`agent_selection` stays on the
player for the second): one Scout steps twice, two Scouts step once each, or one Scout steps and
one Guard enters from the tray or jumps to any empty Cross Station, in either order. A Scout
steps forward or sideways, never backward, onto an empty station; on lines 2 and 12 it steps
sideways only if it cannot step forward; it may not step sideways and straight back in one
turn; once in an opponent Base Station it is placed. A Guard half-move may open a turn only if
a Scout step follows it. If no legal second half-move exists, the turn ends after the first.

**Blocking.** With no legal turn the player forfeits (the mask then holds only forfeit
actions): a Guard (`standard`, `breakthrough`), a Scout (`capture`, `intercept`); with nothing
to forfeit the turn passes. `intercept`: at the start of a turn every Scout of the player with
no legal step is forfeited automatically. `breakthrough`: at the start of a turn in which one of
the player's Scouts in play has no legal step, the player forfeits one Guard, then plays on.

**End and score.** The 1st, 2nd, 3rd placed Scout scores 1, 3, 5. The game ends when a player
has no Scout in play (all placed, or in `capture`/`intercept` also lost: then the opponent
scores the next values for each of its Scouts still in play), when a Rocking Horse Sweep
completes (`sweep_turns`, default 6, consecutive turns of one sideways step by the same Scout
between the same two stations of line 4, 6, 8 or 10), or after `max_turns` (default 200)
turns. Higher score wins.

**Observation.** Planes from the observing agent's side (lines mirrored for North, so its own
Base line is row 0); `envs/barricade/encoder.py` documents all 36. `action_mask` marks the legal
actions of the agent to move (all zeros for the other). Actions are in board coordinates;
`Encoder.view_to_board_actions(player)` maps a network's view actions back.

**Actions.** `0..11` Scout steps `4*scout + d`, d 0 = line+1, 1 = line-1, 2 = file-1,
3 = file+1; `12..137` Guard `g` to a Cross Station `12 + 63*g + 7*(line-3) + (file-1)`;
`138..139` forfeit Guard `g`; `140..142` forfeit Scout `s`.

**Rewards.** At the end only: the higher score +1, the other -1; equal scores 0. The game
always terminates (never truncates). An illegal action under `env()` ends the game with -1 for
the offender (PettingZoo's TerminateIllegalWrapper); `raw_env.step` raises `IllegalActionError`.
A value that is no action at all (not an integer in range, a bool, `None` while the agent is
to move) raises `IllegalActionError`, a `ValueError` naming it, and changes nothing.

**Options.** Config `variant` (`standard` | `capture` | `intercept` | `breakthrough`),
`sweep_turns`, `max_turns`. `reset(seed=..., options={"position": d})` starts from a position
dict (`state.to_dict()` format). `render_mode="ansi"` returns the text board, `"rgb_array"` an
image.

**Version history.** v0: first release.
"""

from __future__ import annotations

from envs.barricade.encoder import Encoder
from envs.barricade.engine import Game
from envs.barricade.render import draw
from envs.core import BoardGameEnv, wrap


class raw_env(BoardGameEnv):
    metadata = {**BoardGameEnv.metadata, "name": "barricade_v0"}

    def __init__(self, render_mode: str | None = None, **config):
        game = Game(**config)
        super().__init__(game, Encoder(game), draw, render_mode)


def env(**kwargs):
    return wrap(raw_env(**kwargs))
