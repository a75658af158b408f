"""The diagnostic scripts of docs/experiments/ end to end on tiny budgets (their real runs are
minutes; the figures they give are in docs/experiments/strength.md)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_selfplay_targets_table():
    """With the heuristic as the reference, the heuristic's own row agrees with it on every
    position; a one-simulation search visits no child, so its target is the network's policy
    and its top move the network's on every position."""
    done = subprocess.run(
        [sys.executable, "docs/experiments/selfplay_targets.py", "zoo:nobles_2p",
         "--env", "{name: nobles, num_players: 2}", "--reference", "heuristic",
         "--players", "random", "--positions", "6", "--variant", "sims=1",
         "--variant", "sims=8"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1:]
            for line in done.stdout.splitlines() if line.startswith("| ")}
    assert rows["`heuristic`"][0] == "1.000"
    assert rows["`heuristic`, another seed"][0] == "1.000"
    assert rows["self-play target, `sims=1`"][1] == "1.000 |"
    agreement = float(rows["self-play target, `sims=8`"][0])
    assert 0.0 <= agreement <= 1.0


def test_policy_capacity_labels_agree_with_the_teacher():
    """docs/experiments/policy_capacity.py: each position's label is the teacher's move, legal
    in the mover's view, and the afterstate at the label's index is the position after that
    move; then both networks train and report on the held-out positions."""
    import importlib.util

    import numpy as np

    import envs
    from agents import make_agent
    from envs.core import sample_chance
    from models.features import make_encoder

    spec = importlib.util.spec_from_file_location(
        "policy_capacity", ROOT / "docs/experiments/policy_capacity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    game = envs.make_game({"name": "nobles", "num_players": 3})
    encoder = make_encoder(game, ["capture_odds"])
    rows = module.labelled_positions(game, encoder, "random", "heuristic", 1, 0)
    assert len(rows) > 20
    for obs, mask, label, after, index in rows:
        assert mask[label] and len(after) == mask.sum()
        assert obs.shape == after[index].shape == encoder.shape
    state, teacher, player = game.new_initial_state(), make_agent("heuristic", game), \
        make_agent("random", game)
    player.reset(game, 0, 0)
    rng = np.random.default_rng(0)  # the first game's decisions, as the script walks them
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        state.apply_action(sample_chance(state, rng) if state.is_chance_node()
                           else player.act(state.clone()))
    teacher.reset(game, state.current_player(), 0)
    move = teacher.act(state.clone())
    child = state.clone()
    child.apply_action(move)
    assert np.array_equal(rows[0][0], encoder.encode(state, state.current_player()))
    assert np.array_equal(rows[0][3][rows[0][4]], encoder.encode(child, state.current_player()))

    done = subprocess.run(
        [sys.executable, "docs/experiments/policy_capacity.py", "--env",
         "{name: nobles, num_players: 2}", "--games", "2", "--epochs", "2", "--held-out", "20"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| ")
            and not line.startswith("| network") and not line.startswith("|---")]
    assert [r[0] for r in rows] == ["| policy head"] * 2 + ["| afterstate scorer"] * 2
    assert all(0.0 <= float(r[2]) <= 1.0 and 0.0 <= float(r[3].rstrip(" |")) <= 1.0
               for r in rows)
