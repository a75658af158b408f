"""Warm start from a teacher: the second half of the sparse-reward remedy.

Before the first self-play iteration, ``games`` games are played between the teacher agent
(the game's ``heuristic`` by default) and an opponent (``random``), seats rotated. Every
decision of both sides becomes a sample whose policy target is the *teacher's* choice in that
position (so the random side's positions are labelled by the teacher too, DAgger-style) and
whose value target is the game's outcome for the mover (adjudicated when the game is not
decided). The samples go into the replay buffer and the learner takes ``steps`` steps on them,
so self-play starts from a network that already heads for the goals instead of from one whose
random games never end in a win. The samples stay in the buffer until self-play overwrites them,
or with ``keep`` for the whole run (pinned slots of the buffer: every batch then holds teacher
samples in their share of the buffer, which keeps the network from drifting away from what the
teacher knows while self-play's own targets are still noisy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.evaluator import ViewMaps
from training.replay import Samples
from training.rewards import Outcomes


@dataclass(frozen=True)
class WarmStartConfig:
    games: int = 0
    steps: int = 200
    teacher: str = "heuristic"
    opponent: str = "random"
    max_moves: int | None = None
    keep: bool = False

    def __post_init__(self):
        if self.games < 0 or self.steps < 0:
            raise ValueError("warm_start.games and warm_start.steps must be >= 0")


def teacher_samples(game, encoder, config: WarmStartConfig, outcomes: Outcomes,
                    seed: int) -> Samples:
    """Samples of ``config.games`` teacher-vs-opponent games, labelled by the teacher."""
    from agents import make_agent

    n = game.num_players
    maps = ViewMaps(encoder, n)
    teacher = make_agent(config.teacher, game)
    opponent = make_agent(config.opponent, game)
    parts = []
    for index in range(config.games):
        seeds = np.random.SeedSequence([seed, 3, index]).generate_state(n + 1)
        dice = np.random.default_rng(seeds[n])
        teacher_seat = index % n
        teacher.reset(game, teacher_seat, int(seeds[0]))
        opponent.reset(game, (teacher_seat + 1) % n, int(seeds[1]))
        state = game.new_initial_state()
        obs, masks, policies, movers, leads = [], [], [], [], []
        while not state.is_terminal():
            if config.max_moves is not None and len(movers) >= config.max_moves:
                break
            if state.is_chance_node():
                outcomes_, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(outcomes_[dice.choice(len(outcomes_), p=probs)]))
                continue
            player = state.current_player()
            label = teacher.act(state.clone())
            action = label if player == teacher_seat else opponent.act(state.clone())
            perm = maps.perms[player]
            policy = np.zeros(game.num_actions, dtype=np.float32)
            policy[label] = 1.0
            obs.append(encoder.encode(state, player))
            masks.append(state.legal_actions_mask()[perm])
            policies.append(policy[perm])
            movers.append(player)
            leads.append(outcomes.position_value(state))
            state.apply_action(action)
        if not movers:
            continue
        targets = outcomes.targets(outcomes(state), leads,
                                   list(range(len(movers), 0, -1)))
        values = np.stack([maps.values_to_rel(v, p) for v, p in zip(targets, movers, strict=True)])
        values = values.astype(np.float32)
        parts.append(Samples(np.stack(obs), np.stack(masks), np.stack(policies), values))
    return Samples.concat(parts)
