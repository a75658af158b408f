"""Nobles — PettingZoo AEC environment.

| | |
|---|---|
| Import | `from envs import nobles; env = nobles.env(num_players=4, mode="brawl")` |
| Actions | Discrete |
| Parallel API | No |
| Manual control | No |
| Agents | `agents = ["player_0", ..., "player_{n-1}"]` (n = 2, 3, 4) |
| Action shape | (1,) |
| Action values | Discrete(233) |
| Observation shape | (n·276 + n + 12,): 566 (2 players), 843 (3), 1120 (4) |
| Observation values | [0, 1] |

A dice race of one Noble and four Guards per player round a 52-tile loop into a private Home
path (RULES.md section 3; docs/nobles.md has the full rules with pictures). Each turn the env
rolls two dice itself (seeded by `reset(seed=...)`) and the player moves the Noble or `k` of
its Guards from one place by the sum. Groups of two or more Guards blockade: a mover stops on
the tile before a blockade and its owner loses combat score for every trimmed step; a mover
ending on a regular tile with opponent pieces captures them all. The game ends when a Noble
reaches Home, or after `max_turns` turns; the highest combat score wins (ties share the win).

Config: `num_players` (2, 3, 4; seats 0,2 / 0,1,2 / 0,1,2,3), `mode` (`journey` or `brawl`,
which picks the score table), `scoring` (None, or a mapping overriding keys of the table:
`blockade_step`, `guard_captured`, `noble_captured`, `guard_home`, `noble_home`), `max_turns`
(default 300, all players' turns together).

### Observation space

A dict: `observation`, a flat float32 vector from the observing agent's point of view, and
`action_mask` (int8, 1 for legal actions; only the agent to move has any). Seats are rotated
so the observer is slot 0; every main-track place is given in the observer's own progress
frame. Per slot (276 features): Guards on the 52 track tiles as a 4-level thermometer (at
least 1, 2, 3, 4 Guards; 208), the Noble on the track (52), Guards in the Yard, on Home path
tiles 1..5 and at Home (fractions of 4; 7), the Noble in the Yard, on the Home path or at Home
(7), the squashed combat score and the squashed lead over the observer (2). Then the current
roll (one-hot 2..12), the slot to move (one-hot n) and `turn / max_turns`. See
`envs/nobles/encoder.py` for the exact indices.

### Action space

`0` moves the Noble; `1 + 4·p + (k−1)` moves `k` (1..4) Guards from the mover's own progress
`p` (0 = Yard, 1..52 track, 53..57 Home path). Text notation `N`, `G<p>x<k>`, `GYx<k>`.

### Options and renders

`reset(seed=..., options={"position": d})` starts from a position dict (`state.to_dict()`
format, RULES.md section 3); a position whose roll leaves no legal mover passes that turn at
once. `render_mode="ansi"` returns the text board (`str(state)`): pieces, scores, the current
roll, the legal actions and the last events (the previous move with its trimmed steps and
penalty, captures and Home points, and any passed rolls after it). `"rgb_array"` draws the same.

### Rewards

Zero until the end; then the combat scores decide: a sole winner gets +1, the others
−1/(n−1); `w` tied winners get (n−w)/(w·(n−1)) each; all tied is 0 for everyone. An illegal
action ends the game with −1 for the offender (PettingZoo's TerminateIllegalWrapper). A value
that is no action at all (not an integer in range, a bool, `None` while the agent is to move)
raises `IllegalActionError`, a `ValueError` naming it, and changes nothing.

### Version history

* v0: initial release.
"""

from __future__ import annotations

from envs.core import BoardGameEnv, wrap
from envs.nobles.encoder import Encoder
from envs.nobles.engine import Game
from envs.nobles.render import draw


class raw_env(BoardGameEnv):
    metadata = {**BoardGameEnv.metadata, "name": "nobles_v0"}

    def __init__(self, render_mode: str | None = None, **config):
        game = Game(**config)
        super().__init__(game, Encoder(game), draw, render_mode=render_mode)


def env(**kwargs):
    return wrap(raw_env(**kwargs))
