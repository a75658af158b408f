"""Nobles PettingZoo env, encoder and renders: API and seed checks for every config, the roll in
the observation, the seat rotation, positions through reset, renders, a full Brawl game."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs import nobles
from envs.nobles.encoder import SLOT
from envs.nobles.engine import HOME, NOBLE_ACTION, guard_action, progress_of, tile_of

CONFIGS = [(n, mode) for n in (2, 3, 4) for mode in ("journey", "brawl")]
SEED_EXAMPLE = {"nobles": [0, 0], "guards": [[7, 7, 0, 0], [37, 37, 37, 0]], "scores": [0, 0],
                "to_move": 0, "roll": 7, "turn": 0}


@pytest.mark.parametrize("n, mode", CONFIGS)
def test_api(n, mode):
    with warnings.catch_warnings():
        # pettingzoo warns that Dict observation spaces are unusual; board games use them.
        warnings.simplefilter("ignore", UserWarning)
        api_test(nobles.env(num_players=n, mode=mode), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("n, mode", CONFIGS)
def test_seed(n, mode):
    seed_test(lambda: nobles.env(num_players=n, mode=mode), num_cycles=100)


def play(env, seed, policy_seed, max_steps=10_000):
    """Random legal play; returns the list of (agent, roll, action) and the final rewards."""
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    log = []
    for agent in env.agent_iter(max_steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        log.append((agent, env.unwrapped.game_state.roll, action))
        env.step(action)
    return log, env.unwrapped.game_state


def test_same_seed_same_dice_and_game():
    a, end_a = play(nobles.env(num_players=3), seed=5, policy_seed=1)
    b, end_b = play(nobles.env(num_players=3), seed=5, policy_seed=1)
    c, _ = play(nobles.env(num_players=3), seed=6, policy_seed=1)
    assert a == b and end_a.to_dict() == end_b.to_dict()
    assert [r for _, r, _ in a] != [r for _, r, _ in c]


def test_four_player_brawl_game_through_the_api_shows_rolls_and_scores():
    env = nobles.env(num_players=4, mode="brawl", render_mode="ansi")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    seen_penalty = seen_capture = False
    for _ in env.agent_iter(20_000):
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.unwrapped.game_state
        assert env.agent_selection == f"player_{state.current_player()}"
        assert f"roll {state.roll}" in env.render()
        assert obs["observation"][4 * SLOT + state.roll - 2] == 1.0
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        text = env.render()
        seen_penalty |= "trimmed by" in text and "'s blockade (-" in text
        seen_capture |= "captured" in text
    state = env.unwrapped.game_state
    assert state.is_terminal()
    assert all(env.terminations.values()) or not env.agents
    assert seen_capture and seen_penalty
    assert "game over" in str(state)


def test_final_rewards_follow_the_scores():
    env = nobles.env(num_players=2)
    env.reset(seed=0, options={"position": {**SEED_EXAMPLE, "nobles": [57, 0],
                                            "scores": [0, 100], "roll": 3}})
    env.step(NOBLE_ACTION)
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_seed_example_through_reset_position():
    for mode, penalty in (("journey", -40), ("brawl", -120)):
        env = nobles.env(mode=mode, render_mode="ansi")
        env.reset(seed=0, options={"position": SEED_EXAMPLE})
        assert env.agent_selection == "player_0"
        obs = env.observe("player_0")
        assert obs["action_mask"][1 + 4 * 7 + 1] == 1
        env.step(1 + 4 * 7 + 1)
        state = env.unwrapped.game_state
        assert state.scores == [penalty, 0] and state.guards[0] == (0, 0, 10, 10)
        assert f"8 step(s) trimmed by gold's blockade ({penalty:+d})" in env.render()


def test_reset_with_a_passing_roll_advances():
    env = nobles.env(num_players=2)
    d = {**SEED_EXAMPLE, "guards": [[1, HOME, HOME, HOME], [28, 28, 0, 0]], "roll": 4}
    env.reset(seed=0, options={"position": d})
    assert env.agent_selection == "player_1"
    assert env.unwrapped.game_state.turn == 1


def test_illegal_action_ends_the_game_with_a_warning():
    env = nobles.env(num_players=2)
    env.reset(seed=0, options={"position": SEED_EXAMPLE})
    with pytest.warns(UserWarning, match=r"illegal action 200 \(G49x4\)"):
        env.step(200)
    assert env.rewards["player_0"] == -1


def test_raw_env_raises_on_illegal_action_and_accepts_numpy_ints():
    env = nobles.raw_env(num_players=2)
    env.reset(seed=0, options={"position": SEED_EXAMPLE})
    with pytest.raises(ValueError, match="illegal"):
        env.step(200)
    env.step(np.int32(1 + 4 * 7 + 1))
    assert env.unwrapped.game_state.scores == [-40, 0]


# -- encoder ---------------------------------------------------------------------------------

def test_observation_is_from_the_observer_with_seats_rotated():
    game = nobles.Game(num_players=3)
    state = game.state_from_dict({"nobles": [5, 0, 0], "guards": [[0] * 4, [10, 10, 10, 0],
                                                                  [0] * 4],
                                  "scores": [0, 0, 0], "to_move": 1, "roll": 6, "turn": 0})
    enc = nobles.Encoder(game)
    own = enc.encode(state, 1)
    assert own.shape == enc.shape == (3 * SLOT + 11 + 3 + 1,) and own.dtype == np.float32
    # Player 1's group of 3 at its progress 10 is in slot 0 at tile 10: thermometer 1, 1, 1, 0.
    assert own[4 * 9: 4 * 10].tolist() == [1, 1, 1, 0]
    # Player 0's Noble (slot 2 for observer 1) in observer 1's frame.
    t = progress_of(1, tile_of(0, 5))
    assert own[2 * SLOT + 208 + t - 1] == 1
    # The roll and the player to move (slot 0 for observer 1, slot 1 for observer 0).
    g = 3 * SLOT
    assert own[g + 4] == 1 and own[g + 11] == 1
    other = enc.encode(state, 0)
    assert other[g + 11 + 1] == 1
    t = progress_of(0, tile_of(1, 10))
    assert other[SLOT + 4 * (t - 1): SLOT + 4 * t].tolist() == [1, 1, 1, 0]
    assert np.array_equal(enc.view_to_board_actions(2), np.arange(233))


def test_two_player_observation_is_seat_symmetric():
    """Seats 0 and 2 are a half turn apart: swapping the players gives the same observations."""
    game = nobles.Game(num_players=2, mode="brawl")
    a = {"nobles": [12, 54], "guards": [[0, 3, 3, 40], [1, 9, 27, HOME]], "scores": [25, -15],
         "to_move": 0, "roll": 8, "turn": 17}
    b = {**a, "nobles": a["nobles"][::-1], "guards": a["guards"][::-1],
         "scores": a["scores"][::-1], "to_move": 1}
    enc = nobles.Encoder(game)
    sa, sb = game.state_from_dict(a), game.state_from_dict(b)
    assert np.array_equal(enc.encode(sa, 0), enc.encode(sb, 1))
    assert np.array_equal(enc.encode(sa, 1), enc.encode(sb, 0))
    assert sa.legal_actions() == sb.legal_actions()


def test_observation_bounds_over_a_game():
    env = nobles.env(num_players=4, mode="brawl")
    env.reset(seed=11)
    space = env.observation_space("player_0")["observation"]
    for _ in env.agent_iter(2000):
        obs, _, term, trunc, _ = env.last()
        assert space.contains(obs["observation"])
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


# -- renders ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4])
def test_rgb_render(n):
    env = nobles.env(num_players=n, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert not np.array_equal(env.render(), image)


def test_text_board_shows_stacks_shared_tiles_and_legal_moves():
    game = nobles.Game(num_players=2)
    state = game.state_from_dict({"nobles": [9, progress_of(2, 9)], "guards": [[4, 4, 4, 0],
                                                                               [0] * 4],
                                  "scores": [0, 0], "to_move": 0, "roll": 5, "turn": 0})
    text = str(state)
    assert "R3" in text and "**" in text  # a stack of 3 and the shared castle
    assert "legal: N, GYx1, G4x1, G4x2, G4x3" in text
    assert "roll 5" in text
    assert state.legal_actions() == [NOBLE_ACTION, guard_action(0, 1), guard_action(4, 1),
                                     guard_action(4, 2), guard_action(4, 3)]
