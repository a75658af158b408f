"""Agents: building them from specs, clear errors, determinism, and legal play in every game
and variant."""

import random

import numpy as np
import pytest

import envs
from agents import AGENT_NAMES, make_agent, parse_spec
from agents.base import teacher_label
from agents.heuristic import heuristic_for
from arena import play_match
from envs import nobles

# Every game and rule variant, shortened where a game could otherwise run long.
VARIANTS = [
    {"name": "blockade", "num_players": 2, "max_turns": 60},
    {"name": "blockade", "num_players": 3, "max_turns": 45},
    {"name": "blockade", "num_players": 4, "max_turns": 40},
    {"name": "blockade", "num_players": 2, "win_condition": "any", "max_turns": 60},
    {"name": "blockade", "num_players": 2, "rows": 9, "cols": 8, "max_turns": 60},
    {"name": "nobles", "num_players": 2, "mode": "journey"},
    {"name": "nobles", "num_players": 2, "mode": "brawl"},
    {"name": "nobles", "num_players": 3, "mode": "journey"},
    {"name": "nobles", "num_players": 4, "mode": "brawl", "max_turns": 120},
    {"name": "barricade", "variant": "standard", "max_turns": 80},
    {"name": "barricade", "variant": "capture", "max_turns": 80},
    {"name": "barricade", "variant": "intercept", "max_turns": 80},
    {"name": "barricade", "variant": "breakthrough", "max_turns": 80},
]


def variant_id(config):
    return "-".join(str(v) for k, v in config.items() if k != "max_turns")


@pytest.mark.parametrize("env_config", VARIANTS, ids=variant_id)
def test_every_agent_plays_only_legal_moves(env_config):
    # The arena applies every chosen action through the engine, which raises on an illegal one;
    # heuristic, random and MCTS share one game here so each meets the others' positions.
    n = envs.make_game(env_config).num_players
    lineup = (["heuristic", "mcts:simulations=12", "random", "heuristic"])[:n]
    result = play_match(env_config, lineup, n, seed=7)
    assert all(g.turns > 0 for g in result.games)
    assert all(sum(g.moves) > 0 for g in result.games)


@pytest.mark.parametrize("env_config", VARIANTS[::2], ids=variant_id)
def test_evaluation_is_a_value_per_player_in_range(env_config):
    game = envs.make_game(env_config)
    heuristic = heuristic_for(game)
    rng = random.Random(0)
    state = game.new_initial_state()
    for _ in range(40):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        values = heuristic.evaluate(state)
        assert len(values) == game.num_players
        assert all(-1.0 <= v <= 1.0 for v in values)
        actions = state.legal_actions()
        assert sorted(heuristic.order(state, actions)) == actions
        state.apply_action(rng.choice(actions))


@pytest.mark.parametrize("spec", ["random", "heuristic", "mcts:simulations=16"])
def test_same_seed_same_choices(spec):
    game = envs.make_game({"name": "blockade"})
    state = game.new_initial_state()
    choices = []
    for _ in range(2):
        agent = make_agent(spec, game)
        agent.reset(game, 0, seed=42)
        choices.append([agent.act(state) for _ in range(3)])
    assert choices[0] == choices[1]


def test_spec_parsing():
    assert parse_spec("mcts") == ("mcts", {})
    assert parse_spec("mcts:simulations=1000,rollout=random") == (
        "mcts", {"simulations": 1000, "rollout": "random"})
    assert parse_spec("checkpoint:runs/a,b=c.pt") == ("checkpoint", {"path": "runs/a,b=c.pt"})


@pytest.mark.parametrize("spec", ["checkpoint:runs/a.pt:sims=200:temperature=0",
                                  "zoo:nobles_2p:sims=2:temperature=0",
                                  "mcts:simulations=200:rollout=random"])
def test_options_written_with_colons_say_how_to_write_them(spec):
    with pytest.raises(ValueError, match="options follow one colon, separated by commas"):
        parse_spec(spec)


def test_inline_options_override_keyword_options():
    game = envs.make_game({"name": "nobles"})
    agent = make_agent("mcts:simulations=7", game, simulations=300, exploration=0.5)
    assert agent.config.simulations == 7
    assert agent.config.exploration == 0.5


@pytest.mark.parametrize("spec, options, message", [
    ("alphabeta", {}, "unknown agent 'alphabeta'; valid agents: " + ", ".join(AGENT_NAMES)),
    ("random", {"simulations": 5}, "random agents take no options"),
    ("mcts", {"depth": 3}, "unknown mcts option"),
    ("mcts", {"rollout": "greedy"}, "rollout must be one of cutoff, random"),
    ("mcts", {"simulations": 0}, "simulations must be at least 1"),
    ("mcts:simulations", {}, "options are written key=value"),
    ("checkpoint:", {}, "checkpoint agent needs a path"),
])
def test_bad_specs_are_one_clear_value_error(spec, options, message):
    game = envs.make_game({"name": "blockade"})
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        make_agent(spec, game, **options)


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    game = envs.make_game({"name": "blockade"})
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        make_agent(f"checkpoint:{tmp_path / 'none.pt'}", game)


def test_corrupt_checkpoint_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.pt"
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="corrupt or not a checkpoint"):
        make_agent(f"checkpoint:{path}", envs.make_game({"name": "blockade"}))


def test_checkpoint_agent_plays_the_same_moves_with_the_onnx_backend(tmp_path):
    from policy_files import tiny_checkpoint

    from envs.core import sample_chance

    config = {"name": "nobles", "num_players": 2}
    path = tiny_checkpoint(tmp_path / "last.pt", config,
                           acting={"simulations": 8, "temperature": 0.0,
                                   "search": {"simulations": 8, "root": "gumbel"}})
    game = envs.make_game(config)
    agents = [make_agent(f"checkpoint:{path}:inference={backend}", game)
              for backend in ("torch", "onnx")]
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    for agent in agents:
        agent.reset(game, 0, seed=1)
    for _ in range(12):
        while state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        if state.is_terminal():
            break
        moves = {agent.act(state.clone()) for agent in agents}
        assert len(moves) == 1
        state.apply_action(moves.pop())
    with pytest.raises(ValueError, match="backend"):
        make_agent(f"checkpoint:{path}:inference=gpu", game)


def test_teacher_label_is_the_visit_share_of_a_searching_agent_and_one_hot_otherwise():
    game = nobles.Game(num_players=3)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[-1])
    mcts = make_agent("mcts:simulations=60", game)
    mcts.reset(game, state.current_player(), 5)
    move, policy = teacher_label(mcts, state, game.num_actions)
    mcts.reset(game, state.current_player(), 5)
    assert move == mcts.act(state)  # the label's move is the agent's own
    assert policy.sum() == pytest.approx(1.0)
    assert set(np.flatnonzero(policy)) <= set(state.legal_actions())
    assert len(np.flatnonzero(policy)) > 1 and policy[move] == policy.max()
    heuristic = make_agent("heuristic", game)
    heuristic.reset(game, state.current_player(), 5)
    move, policy = teacher_label(heuristic, state, game.num_actions)
    assert policy[move] == 1.0 and policy.sum() == 1.0
