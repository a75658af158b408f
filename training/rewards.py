"""The sparse-reward remedy: adjudicated value targets for games that end without a result.

Under Blockade's seed rule (``win_condition: both``) random play never reaches a win before the
turn limit, so the returns of early self-play are all zero and the value head learns nothing.
With ``adjudication: distance`` a game that is truncated by the engine, or cut short by the
self-play move cap (``selfplay.max_moves``), is scored by the game's ``adjudicate`` hook
(:class:`envs.core.Hooks`): how close each player is to winning, for Blockade
(envs/blockade/hooks.py)

    D_i = shortest walking distance (single steps around walls, pawns ignored) for player i to
          meet its win condition (both pawns on the two goal squares, or one pawn on either)
    v_i = tanh((min over j != i of D_j  -  D_i) / scale)

so a player ahead in the race gets a positive value, graded by the margin, and every
adjudicated value is multiplied by ``cap`` < 1. Real wins and losses keep their engine returns
(+1 / -1/(n-1)). The cap matters: once the opponent is walled in, its distance is huge and the
tanh saturates, so without it every position of that game is worth +1, exactly what a win is
worth: the search then sees no difference between the winning move and shuffling a pawn back
and forth until the turn limit, and self-play teaches the shuffle. With ``cap`` 0.5 a win is
worth twice the best lead at the limit. The same function scores truncated terminal nodes
inside the search tree, so search and value targets agree. ``adjudication: none`` keeps the
engine's returns (0 for a truncated game).

Barricade and Nobles end at their turn limit with scores deciding, so their engine returns are
never silent; for games cut by the move cap, Nobles is adjudicated by its combat-score lead and
Barricade by its score lead (placed Scouts, plus a little for Scouts' progress).

``discount`` < 1 shrinks the outcome by ``discount ** k`` for a position ``k`` decisions before
the end. Without it every position of a won race is worth the same, so neither the value head
nor the search can tell the move that finishes two turns earlier from one that shuffles a pawn
beside its goal; with it the sooner win is worth more.

``position_weight`` w > 0 mixes in a dense part: the value target of a position becomes
``(1 - w) * outcome + w * lead(position)``, the position's own adjudicated race lead. The
outcome of a long game says little about one move; the lead of the position says exactly
whether that move helped, so the value head (and through the search, the policy) learns to
race long before self-play games are decided. It biases values towards the adjudicator's
judgement, which is why the weight is a knob and real outcomes keep the larger share.

``discount_leads`` discounts that lead as the outcome is discounted, by the decisions the race
still needs before it can be cashed in (the game's ``decisions_left`` hook; Blockade: about one
decision of every player per step of the leader's race, at most the decisions left before the
turn limit). Once the opponent is
walled in its distance is huge and the lead saturates at the cap, so without this every
position of the rest of the game has the same dense target, whether the own pawns stand one
step or twenty from their goals; with it a position one step nearer is worth more, which is the
difference the search needs to finish a won race (the outcome's own discount is too small a
signal beside the value head's noise). Games without that hook (Barricade, Nobles) keep
their leads as they are.

``search_value_weight`` w > 0 mixes the search's root value of the position into its target
last: ``(1 - w) * target + w * search value``. The outcome of one game is a single noisy draw;
the search's value averages many continuations, so the mix lowers the target's variance at the
price of some bias towards the current network (the outcome keeps the larger share).

Every target then sums to zero over the seats, as every game's returns do (a win of one seat
is the others' loss): the leads (tanh of margins) and the search's values (the network's, or
mixed with a game's evaluation) need not, and with 3-4 players their sum drifts, which would
teach the value head that all seats are ahead at once. Subtracting the seats' mean keeps each
seat's lead over the others and removes only that drift; outcome-only targets are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import envs

ADJUDICATIONS = ("none", "distance")


@dataclass(frozen=True)
class RewardConfig:
    """``algo.rewards``: what a game is worth to each seat (value targets, PPO's returns)."""

    # none: engine returns only (a truncated Blockade game is 0) | distance: truncated or cut
    # games are scored by each seat's lead (the game's adjudicate hook: Blockade's race,
    # Barricade's and Nobles' scores)
    adjudication: str = "distance"
    # value = tanh(lead / scale): the lead worth tanh(1) (Blockade in steps)
    scale: float = 6.0
    # AlphaZero: value target = (1 - w) * outcome + w * the position's own lead, a dense signal
    # for every move (0 = outcome only)
    position_weight: float = 0.0
    # adjudicated values and position leads are scaled into [-cap, cap], so a real win (+1) is
    # worth more than any lead at the turn limit (1.0 = no cap: the agent learns to trap and
    # wait)
    cap: float = 0.5
    # AlphaZero: outcome part of a value target times discount^(decisions left): a sooner win
    # is worth more, so finishing beats shuffling beside the goal (1.0 = no discount)
    discount: float = 1.0
    # AlphaZero: position leads discounted too, by the decisions the race still needs
    discount_leads: bool = False
    # AlphaZero: value target = (1 - w) * the above + w * the search's root value of the
    # position: less variance than one game's outcome, some bias towards the current network
    search_value_weight: float = 0.0

    def __post_init__(self):
        if self.adjudication not in ADJUDICATIONS:
            raise ValueError(f"rewards.adjudication must be one of {ADJUDICATIONS}, "
                             f"got {self.adjudication!r}")
        if self.scale <= 0:
            raise ValueError(f"rewards.scale must be positive, got {self.scale}")
        if not 0.0 <= self.position_weight <= 1.0:
            raise ValueError(f"rewards.position_weight must be in [0, 1], got "
                             f"{self.position_weight}")
        if not 0.0 < self.discount <= 1.0:
            raise ValueError(f"rewards.discount must be in (0, 1], got {self.discount}")
        if not 0.0 < self.cap <= 1.0:
            raise ValueError(f"rewards.cap must be in (0, 1], got {self.cap}")
        if not 0.0 <= self.search_value_weight <= 1.0:
            raise ValueError(f"rewards.search_value_weight must be in [0, 1], got "
                             f"{self.search_value_weight}")
        if self.position_weight and self.adjudication == "none":
            raise ValueError("rewards.position_weight needs rewards.adjudication=distance")


class Outcomes:
    """Value of a finished or cut game for every player, with or without adjudication."""

    def __init__(self, game, config: RewardConfig):
        hooks = envs.game_hooks(game)
        self.adjudicate = None
        if config.adjudication == "distance":
            if hooks.adjudicate is None:
                raise ValueError(f"no adjudicator for game {game.name!r} (its hooks have no "
                                 f"adjudicate); set algo.rewards.adjudication=none")
            self.adjudicate = hooks.adjudicate
        self.scale = config.scale
        self.cap = config.cap
        self.position_weight = config.position_weight
        self.discount = config.discount
        self.search_value_weight = config.search_value_weight
        self.decisions_left = (hooks.decisions_left if config.discount_leads
                               and config.discount < 1.0 else None)
        self.num_players = game.num_players

    def __call__(self, state) -> np.ndarray:
        """Engine returns of a decided game; adjudicated values of a truncated or unfinished one
        (zeros without adjudication)."""
        if state.is_terminal() and not state.is_truncated():
            return np.asarray(state.returns(), dtype=np.float64)
        if self.adjudicate is None:
            return np.zeros(self.num_players)
        return self._adjudicated(state)

    def position_value(self, state) -> np.ndarray | None:
        """The race lead of a position itself, for value targets that mix it with the outcome
        (``position_weight``); None when no mixing is configured."""
        if not self.position_weight:
            return None
        lead = self._adjudicated(state)
        if self.decisions_left is None:
            return lead
        return lead * self.discount ** self.decisions_left(state)

    def _adjudicated(self, state) -> np.ndarray:
        """The adjudicator's values scaled into [-cap, cap]."""
        return self.cap * self.adjudicate(state, self.scale)

    def targets(self, outcome: np.ndarray, positions: list, steps_left: list[int],
                search_values: list | None = None) -> list[np.ndarray]:
        """Value targets (absolute seats) of a game's recorded positions: the outcome,
        discounted by ``discount ** steps_left`` (decisions from that position to the end), mixed
        with each position's own race lead when ``position_weight`` > 0, then with the search's
        root value of the position (``search_values``, None where nothing was searched) when
        ``search_value_weight`` > 0; each summing to zero over the seats, as returns do."""
        w = self.position_weight
        targets = [outcome * self.discount ** k for k in steps_left]
        if w:
            targets = [(1 - w) * t + w * lead for t, lead in zip(targets, positions, strict=True)]
        w = self.search_value_weight
        if w and search_values is not None:
            targets = [t if v is None else (1 - w) * t + w * v
                       for t, v in zip(targets, search_values, strict=True)]
        return [t - t.mean() for t in targets]
