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

Then, with ``student_games``, the student round: the warm-started network plays that many games
against the opponent, its decisions labelled by the teacher (DAgger), and the learner takes
``student_steps`` more steps on all the samples.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from envs.core import sample_chance
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
    student_games: int = 0
    student_steps: int = 0

    def __post_init__(self):
        if min(self.games, self.steps, self.student_games, self.student_steps) < 0:
            raise ValueError("warm_start.games, steps, student_games and student_steps must be "
                             ">= 0")


def teacher_samples(game, encoder, config: WarmStartConfig, outcomes: Outcomes,
                    seed: int, student=None, progress: Callable[[], None] | None = None
                    ) -> Samples:
    """Samples of ``config.games`` teacher-vs-opponent games, labelled by the teacher.

    With ``student`` (a trained agent: ``reset(game, seat, seed)``, ``act(state)``) it is the
    student that plays the teacher's seat, for ``config.student_games`` games, and only its own
    decisions are recorded, still labelled by the teacher: DAgger, the teacher's answers in the
    positions the student's own mistakes lead to, which the teacher's games never reach.
    ``progress`` is called after each game."""
    from agents import make_agent

    n = game.num_players
    maps = ViewMaps(encoder, n)
    teacher = make_agent(config.teacher, game)
    opponent = make_agent(config.opponent, game)
    parts = []
    stream, games = (3, config.games) if student is None else (4, config.student_games)
    for index in range(games):
        seeds = np.random.SeedSequence([seed, stream, index]).generate_state(n + 1)
        dice = np.random.default_rng(seeds[n])
        teacher_seat = index % n
        teacher.reset(game, teacher_seat, int(seeds[0]))
        if student is not None:
            student.reset(game, teacher_seat, int(seeds[0]))
        opponent.reset(game, (teacher_seat + 1) % n, int(seeds[1]))
        state = game.new_initial_state()
        obs, masks, policies, movers, leads, moments = [], [], [], [], [], []
        decisions = 0
        while not state.is_terminal():
            if config.max_moves is not None and decisions >= config.max_moves:
                break
            if state.is_chance_node():
                state.apply_action(sample_chance(state, dice))
                continue
            player = state.current_player()
            decisions += 1
            if student is not None and player != teacher_seat:
                state.apply_action(opponent.act(state.clone()))
                continue
            label = teacher.act(state.clone())
            if player != teacher_seat:
                action = opponent.act(state.clone())
            else:
                action = label if student is None else student.act(state.clone())
            perm = maps.perms[player]
            policy = np.zeros(game.num_actions, dtype=np.float32)
            policy[label] = 1.0
            obs.append(encoder.encode(state, player))
            masks.append(state.legal_actions_mask()[perm])
            policies.append(policy[perm])
            movers.append(player)
            moments.append(decisions)
            leads.append(outcomes.position_value(state))
            state.apply_action(action)
        if progress:
            progress()
        if not movers:
            continue
        targets = outcomes.targets(outcomes(state), leads,
                                   [decisions - d + 1 for d in moments])
        values = np.stack([maps.values_to_rel(v, p) for v, p in zip(targets, movers, strict=True)])
        values = values.astype(np.float32)
        parts.append(Samples(np.stack(obs), np.stack(masks), np.stack(policies), values))
    return Samples.concat(parts)
