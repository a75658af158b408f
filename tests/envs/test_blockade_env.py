"""The Blockade PettingZoo env, positions, text notation and the observation encoder."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs import blockade
from envs.blockade.engine import MOVE_OFFSETS, NUM_MOVE_ACTIONS
from envs.core import IllegalActionError


def random_states(game, count, seed=0, max_plies=400):
    """States met along random games, for checks over many positions."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        s = game.new_initial_state()
        for _ in range(rng.integers(1, max_plies)):
            if s.is_terminal():
                break
            actions = s.legal_actions()
            s.apply_action(actions[rng.integers(len(actions))])
        states.append(s)
    return states


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pettingzoo_api_and_seed(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(blockade.env(num_players=num_players), num_cycles=200, verbose_progress=False)
        seed_test(lambda: blockade.env(num_players=num_players), num_cycles=200)


def test_env_plays_to_the_end_and_flags_everyone_at_once():
    env = blockade.env(num_players=3, max_turns=30)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert all(env.truncations.values())  # the turn limit: everyone truncated at once
            env.step(None)
            continue
        assert obs["action_mask"].dtype == np.int8
        env.step(np.int64(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert env.unwrapped.game_state.to_dict()["turn"] == 30 and steps > 30


def test_final_rewards_appear_at_the_winning_step():
    env = blockade.env()
    pos = {"game": "blockade", "num_players": 2, "rows": 14, "cols": 11,
           "pawns": [[[9, 8], [10, 7]], [[0, 0], [0, 10]]], "walls": [],
           "walls_left": [[9, 9], [9, 9]], "to_move": 0, "phase": "move", "turn": 0}
    env.reset(seed=0, options={"position": pos})
    state = env.unwrapped.game_state
    env.step(state.string_to_action("i10-i12"))
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_illegal_action_under_env_ends_the_game_and_names_the_move():
    env = blockade.env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"illegal action 11 \(c3-d4\)"):
        env.step(11)
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1


def test_raw_env_raises_on_illegal_actions_and_keeps_the_state():
    env = blockade.raw_env()
    env.reset(seed=0)
    before = env.game_state.to_dict()
    for bad in (11, 300, -1, 2.5, "c3-c5"):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert env.game_state.to_dict() == before


def test_render_modes():
    env = blockade.env(num_players=4, render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    text_env = blockade.env(render_mode="ansi")
    text_env.reset(seed=0)
    board = text_env.render()
    assert "player 0 to move" in board and "c" in board.splitlines()[0]
    with pytest.raises(ValueError, match="render_mode"):
        blockade.env(render_mode="human")


def test_observation_is_the_same_picture_mirrored_for_the_opposite_seat():
    game = blockade.Game()
    enc = blockade.Encoder(game)
    s = game.new_initial_state()
    s.apply_action(s.string_to_action("c3-c5"))
    s.apply_action(s.string_to_action("Vf6"))
    view0, view1 = enc.encode(s, 0), enc.encode(s, 1)
    # Player 1 sees its own pawns 0 and 1 in planes 0 and 1, in the NW corner.
    assert view1[0, 2, 2] == 1 and view1[1, 3, 3] == 1
    assert view0[0, 4, 2] == 1 and view0[1, 3, 3] == 1  # pawn 0 moved c3-c5
    assert view0[2:4].sum() == 2 and view1[2:4].sum() == 2
    # The wall: V at (5,5) in board terms is V at (14-5, 11-5) = (9,6) for player 1.
    placed = enc.planes["wall_placed"].start
    assert view0[placed, 5, 5] == 1 and view1[placed, 9, 6] == 1
    assert enc.encode(s, 0).shape == enc.shape


@pytest.mark.parametrize("num_players", [2, 4])
def test_view_actions_map_to_board_actions_consistently(num_players):
    """For every seat, a legal view action found from the *view* planes maps to a legal board
    action: pawn moves by the mirrored offset, walls on the mirrored anchor."""
    game = blockade.Game(num_players=num_players)
    enc = blockade.Encoder(game)
    for s in random_states(game, 20, seed=num_players):
        if s.is_terminal():
            continue
        p = s.current_player()
        view = enc.encode(s, p)
        perm = enc.view_to_board_actions(p)
        assert sorted(perm) == list(range(game.num_actions))
        mask = s.legal_actions_mask()
        for v in range(game.num_actions):
            b = perm[v]
            if v >= NUM_MOVE_ACTIONS:  # a wall: the view's free-anchor plane says if legal
                o, r, c = game.wall_of_index(v - NUM_MOVE_ACTIONS)
                free = view[enc.planes["wall_free"].start + o, r, c] == 1
                supply = s.walls_left[2 * p + o] > 0
                assert mask[b] == (s.phase == 1 and free and supply)
            else:
                assert (b // 12) == (v // 12)
        # Pawn moves: playing perm[v] on the board moves the pawn by view offset v in the view.
        flip_rows, flip_cols = enc._flips[p]
        for v in range(NUM_MOVE_ACTIONS):
            if not mask[perm[v]]:
                continue
            r, c = game.coords(s.pawns[2 * p + v // 12])
            r = game.rows - 1 - r if flip_rows else r
            c = game.cols - 1 - c if flip_cols else c
            dr, dc = MOVE_OFFSETS[v % 12]
            after = s.clone()
            after.apply_action(int(perm[v]))
            pawn_plane = enc.encode(after, p)[v // 12]
            assert pawn_plane[r + dr, c + dc] == 1 and pawn_plane[r, c] == 0


def test_observations_stay_in_bounds_with_the_space_dtype():
    env = blockade.raw_env(num_players=4)
    env.reset(seed=1)
    space = env.observation_space("player_0")["observation"]
    for s in random_states(env.game, 10, seed=5):
        for p in range(4):
            obs = env.encoder.encode(s, p)
            assert obs.dtype == space.dtype and space.contains(obs)


def test_position_round_trip_and_action_text_round_trip():
    for n in (2, 3, 4):
        game = blockade.Game(num_players=n)
        for s in random_states(game, 8, seed=n):
            d = s.to_dict()
            again = game.state_from_dict(d)
            assert again.to_dict() == d
            assert str(again) == str(s)
            for a in range(game.num_actions):
                assert s.string_to_action(s.action_to_string(a)) == a


BASE = {"game": "blockade", "num_players": 2, "rows": 14, "cols": 11,
        "pawns": [[[2, 2], [3, 3]], [[11, 8], [10, 7]]], "walls": [["V", 5, 4]],
        "walls_left": [[8, 9], [9, 9]], "to_move": 0, "phase": "move", "turn": 0}


@pytest.mark.parametrize("change, message", [
    ({"game": "nobles"}, "not 'blockade'"),
    ({"num_players": 4}, "num_players"),
    ({"rows": 9}, "rows"),
    ({"pawns": [[[2, 2], [3, 3]]]}, "2 players"),
    ({"pawns": [[[2, 2], [2, 2]], [[11, 8], [10, 7]]]}, "share"),
    ({"pawns": [[[2, 2], [14, 3]], [[11, 8], [10, 7]]]}, "not a square"),
    ({"walls": [["V", 5, 4], ["V", 6, 4]]}, "overlaps"),
    ({"walls": [["V", 5, 4], ["H", 5, 4]]}, "overlaps or crosses"),
    ({"walls": [["D", 5, 4]]}, "'V' or 'H'"),
    ({"walls": [["V", 14, 4]]}, "interior"),
    ({"walls_left": [[9, -1], [9, 9]]}, "walls_left"),
    ({"walls_left": [[8, 10], [9, 9]]}, "impossible horizontal wall supply"),
    ({"walls_left": [[9, 9], [9, 9]]}, r"impossible vertical wall supply: 1 placed"),
    ({"to_move": 2}, "to_move"),
    ({"phase": "jump"}, "phase"),
    ({"turn": -3}, "turn"),
    ({"turn": "3"}, "turn"),
])
def test_invalid_positions_say_what_is_wrong(change, message):
    game = blockade.Game()
    with pytest.raises(ValueError, match=message):
        game.state_from_dict({**BASE, **change})
    with pytest.raises(ValueError, match="lacks"):
        game.state_from_dict({k: v for k, v in BASE.items() if k != "turn"})


def test_env_reset_with_a_bad_position_keeps_the_running_game():
    env = blockade.raw_env()
    env.reset(seed=0)
    before = env.game_state.to_dict()
    with pytest.raises(ValueError):
        env.reset(options={"position": {**BASE, "phase": "jump"}})
    assert env.game_state.to_dict() == before


@pytest.mark.parametrize("config, message", [
    ({"num_players": 5}, "num_players"),
    ({"win_condition": "all"}, "win_condition"),
    ({"max_turns": 0}, "max_turns"),
    ({"start_squares": {"XX": [[0, 0], [1, 1]]}}, "corner"),
])
def test_invalid_configs_say_what_is_wrong(config, message):
    with pytest.raises(ValueError, match=message):
        blockade.Game(**config)


@pytest.mark.parametrize("config", [
    {"num_players": 3},
    {"num_players": 4, "path_rule": "open", "jumps": True, "win_condition": "any"},
    {"rules": "lakeside"},
])
def test_cached_wall_planes_never_go_stale(config):
    """Along random games, and on clones that branch off, each encoding equals a fresh
    encoder's encoding of the same position reloaded (which starts with an empty cache and
    builds its planes whole, where the encoder along the game updates each seat's last ones
    by the walls placed since: every mirror of the board, each seat skipping some plies)."""
    game = blockade.Game(**config)
    enc = blockade.Encoder(game)
    rng = np.random.default_rng(11)
    state = game.new_initial_state()
    for _ in range(120):
        if state.is_terminal():
            break
        branch = state.clone()
        branch.apply_action(branch.legal_actions()[rng.integers(len(branch.legal_actions()))])
        for s in (state, branch):
            fresh = blockade.Encoder(game)
            reloaded = game.state_from_dict(s.to_dict())
            for p in range(game.num_players):
                if rng.random() < 0.7:
                    np.testing.assert_array_equal(enc.encode(s, p), fresh.encode(reloaded, p))
        state.apply_action(state.legal_actions()[rng.integers(len(state.legal_actions()))])
