"""Blockade — PettingZoo AEC environment.

| | |
|---|---|
| Import | `from envs import blockade; env = blockade.env(num_players=2)` |
| Actions | Discrete |
| Parallel API | No |
| Manual control | No |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2, 3, 4 |
| Action shape | (1,) |
| Action values | Discrete(284) on the 14 x 11 board |
| Observation shape | {"observation": (5n+11, 14, 11), "action_mask": (284,)} |
| Observation values | observation float32 in [0, 1]; action_mask int8 0/1 |

Players race their two pawns from their corner to the diagonally opposite corner of a 14-row by
11-column board, and wall each other in. Full rules: `docs/blockade.md` (RULES.md section 1).

**Turn.** Move one of your pawns 1 or 2 steps (straight, or L-shaped if one of the two routes is
open; never through walls or pawns), then place one wall (two cells long) from your 9 vertical
and 9 horizontal walls. A turn with no pawn move starts at the wall phase; a turn with no wall
left ends after the move; with neither it passes; if nobody can act the game is a draw. Each
half of the turn is one env step: `agent_selection` stays on the same player for the wall.

**Seats.** 2 players: NW, SE; 3: NW, NE, SE; 4: NW, NE, SE, SW, in turn order.

**Win.** `win_condition="both"` (seed rule): both pawns on your two goal squares, the start
squares of the opposite corner; `"any"`: one pawn on either.

**Rules.** `rules="seed"` (default) plays the seed's rules above; `rules="lakeside"` the game as
Lakeside published it: d4/h4 against h11/d11, one pawn home wins, every wall must leave every
pawn a path to its goals (`path_rule="open"`), pawns jump over pawns (`jumps=True`), 200 turns.
Keys given with a preset override it. `metadata["rules"]` and `repr(env.unwrapped)` say which
rules an env plays.

**Observation.** Planes from the observing agent's point of view, the board mirrored so that
its corner is NW; `envs/blockade/encoder.py` documents every plane. `action_mask` marks the
legal actions of the agent to move (all zeros for the others). Actions are always in board
coordinates; `Encoder.view_to_board_actions(player)` maps a network's view actions back.

**Actions.** `0..23` pawn moves `12*pawn + k`, offsets k = N S W E NN SS WW EE NW NE SW SE;
`24..283` walls `24 + o*130 + (r-1)*10 + (c-1)`, `o` 0 = vertical, 1 = horizontal, anchor
`(r, c)` the grid point at the wall's middle.

**Rewards.** At the end only: the winner +1, everyone else -1/(n-1); draws 0. Reaching
`max_turns` (default 100 * n turns) truncates the episode with rewards 0. An illegal action
under `env()` ends the game with -1 for the offender (PettingZoo's TerminateIllegalWrapper);
`raw_env.step` raises `IllegalActionError`. A value that is no action at all (not an integer
in range, a bool, `None` while the agent is to move) raises `IllegalActionError`, a
`ValueError` naming it, and changes nothing.

**Options.** `reset(seed=..., options={"position": d})` starts from a position dict
(`state.to_dict()` format). `render_mode="ansi"` returns the text board, `"rgb_array"` an image.

**Version history.** v0: first release.
"""

from __future__ import annotations

from envs.blockade.encoder import Encoder
from envs.blockade.engine import Game
from envs.blockade.render import draw
from envs.core import BoardGameEnv, wrap


class raw_env(BoardGameEnv):
    metadata = {**BoardGameEnv.metadata, "name": "blockade_v0"}

    def __init__(self, render_mode: str | None = None, **config):
        game = Game(**config)
        super().__init__(game, Encoder(game), draw, render_mode)
        # Which rules this env plays: the preset and the rule keys it resolved to.
        self.metadata = {**self.metadata, "rules": {
            "rules": game.rules, "win_condition": game.win_condition,
            "path_rule": game.path_rule, "jumps": game.jumps}}

    def __repr__(self) -> str:
        return f"blockade_v0({self.game!r})"


def env(**kwargs):
    return wrap(raw_env(**kwargs))
