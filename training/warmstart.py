"""Warm start from a teacher: the second half of the sparse-reward remedy.

Before the first self-play iteration, ``games`` games are played between the teacher agent (the
game's ``heuristic`` by default) and an opponent (``random``), seats rotated. Every decision of
both sides becomes a sample whose policy target is the *teacher's* label for that position (so
the random side's positions are labelled by the teacher too, DAgger-style: its move, or a
searching teacher's visit shares, :func:`agents.base.teacher_label`) and whose value target is
the game's outcome for the mover (adjudicated when the game is not decided). The samples go into
the replay buffer and the learner takes ``steps`` steps on them, so self-play starts from a
network that already heads for the goals instead of from one whose random games never end in a
win. The samples stay in the buffer until self-play overwrites them, or with ``keep`` for the
whole run (pinned slots of the buffer: every batch then holds teacher samples in their share of
the buffer, which keeps the network from drifting away from what the teacher knows while
self-play's own targets are still noisy).

Then, with ``student_games``, the student round: the warm-started network plays that many games
against the opponent, its decisions labelled by the teacher (DAgger), and the learner takes
``student_steps`` more steps on all the samples. :func:`warm_start` runs both rounds, for
AlphaZero (into its replay buffer) and PPO (on a buffer of the warm start's own).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agents.base import teacher_label
from arena.report import ProgressLine
from envs.core import sample_chance
from models.evaluator import ViewMaps
from training.learner import Learner
from training.replay import ReplayBuffer, Samples
from training.rewards import Outcomes


@dataclass(frozen=True)
class WarmStartConfig:
    """``algo.warm_start``: supervised steps on a teacher's games before self-play starts."""

    # teacher-vs-opponent games labelled by the teacher (0 = no warm start)
    games: int = 0
    # learner steps on their samples before the first iteration
    steps: int = 200
    # agent spec whose labels are the policy targets (agents.base.teacher_label)
    teacher: str = "heuristic"
    # agent spec it plays against (seats rotated)
    opponent: str = "random"
    # cut a teacher game after this many decisions (null = play it to its end)
    max_moves: int | None = None
    # AlphaZero: the teacher's samples stay in the replay buffer for the whole run (pinned
    # slots), so every batch keeps their share of teacher labels
    keep: bool = False
    # AlphaZero: then games of the warm-started network against the opponent, its decisions
    # labelled by the teacher (DAgger: the teacher's answers where its own mistakes lead)
    student_games: int = 0
    # AlphaZero: learner steps after adding those samples
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
            label, policy = teacher_label(teacher, state.clone(), game.num_actions)
            if player != teacher_seat:
                action = opponent.act(state.clone())
            else:
                action = label if student is None else student.act(state.clone())
            perm = maps.perms[player]
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


def warm_start(config: WarmStartConfig, game, encoder, outcomes: Outcomes, seed: int,
               learner: Learner, replay: ReplayBuffer | None, rng: np.random.Generator,
               sync: Callable[[], None], student: Callable[[], object] | None = None) -> dict:
    """The teacher round (``config.games`` games, ``config.steps`` learner steps) and, with
    ``config.student_games``, the student round (``student()``, the agent of the network as
    trained so far, plays; ``config.student_steps`` steps): samples into ``replay`` (pinned
    with ``config.keep``; ``None``: a buffer of just these samples), ``learner`` steps drawn by
    ``rng``, then ``sync()`` (the learner's weights to the network that plays). Returns the
    last round's learner metrics (``warm_start/...``); ``{}`` without a warm start."""
    if not config.games:
        return {}
    start = time.perf_counter()
    print(f"warm start: {config.games} {config.teacher} vs {config.opponent} games first; "
          "nothing is saved until it ends", flush=True)
    rounds = [("teacher", config.games, config.steps)]
    if config.student_games:
        rounds.append(("student", config.student_games, config.student_steps))
    for player, games, steps in rounds:
        agent = student() if player == "student" else None
        samples = teacher_samples(game, encoder, config, outcomes, seed, student=agent,
                                  progress=ProgressLine(f"warm start ({player})", games))
        buffer = replay if replay is not None else ReplayBuffer(
            len(samples), encoder.shape, game.num_actions, game.num_players)
        buffer.add(samples)
        if config.keep:
            buffer.pin()
        metrics = learner.train(buffer, steps, rng)
        sync()
        who = config.teacher if agent is None else "network"
        print(f"warm start: {games} {who} vs {config.opponent} games labelled by "
              f"{config.teacher}, {len(samples)} samples, {steps} steps, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    return {f"warm_start/{k}": v for k, v in metrics.items()}
