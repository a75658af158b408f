"""The Barricade PettingZoo env, its renders and the observation encoder."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from test_barricade_rules import load, play, position

from envs import barricade
from envs.barricade.engine import VARIANTS
from envs.core import IllegalActionError


def random_states(game, count, seed=0):
    """States met along random games."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        s = game.new_initial_state()
        for _ in range(rng.integers(1, 400)):
            if s.is_terminal():
                break
            actions = s.legal_actions()
            s.apply_action(actions[rng.integers(len(actions))])
        states.append(s)
    return states


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_and_seed(variant):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(barricade.env(variant=variant), num_cycles=300, verbose_progress=False)
        seed_test(lambda: barricade.env(variant=variant), num_cycles=300)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_plays_to_the_end_through_the_api(variant):
    env = barricade.env(variant=variant)
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps, final = 0, {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                assert all(env.terminations.values()) and not any(env.truncations.values())
                final[agent] = reward
                env.step(None)
                continue
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()
            assert agent == f"player_{env.unwrapped.game_state.current_player()}"
            env.step(np.int32(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        state = env.unwrapped.game_state
        assert state.is_terminal() and steps > 0
        expected = state.returns()
        assert final == {"player_0": expected[0], "player_1": expected[1]}


def test_final_rewards_appear_at_the_step_that_ends_the_game():
    env = barricade.env()
    env.reset(seed=0, options={"position": position(["b12", "d13", "f13"], ["c9", "d1", "f8"])})
    state = env.unwrapped.game_state
    env.step(state.string_to_action("S0 b12-b13"))  # the third placement: 9 to 1
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_blocked_agent_sees_only_forfeits_in_its_mask():
    env = barricade.env()
    env.reset(seed=0, options={"position": position(
        ["d5", "d13", "f13"], ["d6", "a10", "g10"], guards=(("a3", "tray"), ("c5", "e5")))})
    obs = env.observe("player_0")
    assert np.flatnonzero(obs["action_mask"]).tolist() == [138, 139]
    assert not env.observe("player_1")["action_mask"].any()


def test_illegal_action_under_env_ends_the_game_and_names_the_move():
    env = barricade.env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"illegal action 1 \(S0 -line\)"):
        env.step(1)
    assert all(env.terminations.values()) and env.rewards["player_0"] == -1


def test_raw_env_raises_on_illegal_actions_and_keeps_the_state():
    env = barricade.raw_env()
    env.reset(seed=0)
    before = env.game_state.to_dict()
    for bad in (1, 143, -1, 2.5, "S0 b1-b2"):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert env.game_state.to_dict() == before


def test_reset_with_a_bad_position_keeps_the_running_game():
    env = barricade.raw_env(variant="capture")
    env.reset(seed=0)
    before = env.game_state.to_dict()
    with pytest.raises(ValueError, match="variant"):
        env.reset(options={"position": {**before, "variant": "standard"}})
    assert env.game_state.to_dict() == before


def test_render_modes_show_the_position():
    env = barricade.env(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    text_env = barricade.env(render_mode="ansi")
    text_env.reset(seed=0)
    board = text_env.render()
    assert "South (player 0) to move" in board and "North base" in board
    with pytest.raises(ValueError, match="render_mode"):
        barricade.env(render_mode="human")


def test_picture_changes_with_pieces_trays_forfeits_and_scores():
    game = barricade.Game()
    draw = barricade.draw
    start = draw(game.new_initial_state())
    moved = game.new_initial_state()
    play(moved, "S0 b1-b2", "G0 c5")
    assert draw(moved).shape == start.shape
    assert np.any(draw(moved) != start, axis=2).sum() > 500
    # Forfeits and scores appear too: a position differing only in those draws differently.
    blocked = load(["d5", "d13", "f13"], ["d6", "a10", "g10"],
                   guards=(("a3", "tray"), ("c5", "e5")))
    after = blocked.clone()
    play(after, "forfeit G0")
    assert np.any(draw(after) != draw(blocked))


def mirrored(pos):
    """The same position with the players' roles swapped: lines mirrored, sides exchanged."""
    def flip(v):
        return v if v in ("tray", "out") else [14 - v[0], v[1]]

    out = {
        "scouts": [[flip(v) for v in side] for side in reversed(pos["scouts"])],
        "guards": [[flip(v) for v in side] for side in reversed(pos["guards"])],
        "placed_order": list(reversed(pos["placed_order"])),
        "to_move": 1 - pos["to_move"], "half": pos["half"], "first_half": None,
        "sweep": [None if sw is None else {**sw, "stations": [flip(v) for v in sw["stations"]]}
                  for sw in reversed(pos["sweep"])],
        "turn": pos["turn"],
    }
    if "forfeit_made" in pos:
        out["forfeit_made"] = pos["forfeit_made"]
    first = pos["first_half"]
    if first is not None:
        out["first_half"] = first if first["kind"] == "guard" else {
            **first, "from": flip(first["from"]), "d": {0: 1, 1: 0}.get(first["d"], first["d"])}
    return out


@pytest.mark.parametrize("variant", ["standard", "breakthrough"])
def test_north_sees_what_south_sees_in_the_mirrored_position(variant):
    game = barricade.Game(variant=variant)
    enc = barricade.Encoder(game)
    for s in random_states(game, 15, seed=4):
        d = s.to_dict()
        twin = game.state_from_dict(mirrored(d))
        for p in range(2):
            np.testing.assert_array_equal(enc.encode(s, p), enc.encode(twin, 1 - p))
        # The same view action is legal in both, once mapped to each player's board actions.
        if not s.is_terminal():
            p = s.current_player()
            perm, twin_perm = enc.view_to_board_actions(p), enc.view_to_board_actions(1 - p)
            np.testing.assert_array_equal(s.legal_actions_mask()[perm],
                                          twin.legal_actions_mask()[twin_perm])


def test_encoder_planes_from_each_side():
    game = barricade.Game()
    enc = barricade.Encoder(game)
    s = load(["d5", "d13", "f1"], ["c12", "b1", "f13"], guards=(("c7", "tray"), ("out", "e9")))
    south, north = enc.encode(s, 0), enc.encode(s, 1)
    assert enc.shape == (36, 13, 7) and south.dtype == np.float32
    assert south[0, 4, 3] == 1 and south[1, 12, 3] == 1 and south[3, 12, 3] == 1  # d5, d13
    assert north[2, 12, 5] == 0 and north[2, 0, 5] == 1  # North's own S2 home on f13 = row 0
    assert north[1, 12, 1] == 1 and north[3, 12, 1] == 1  # North's S1 placed on b1
    assert south[6, 6, 2] == 1 and north[8, 6, 2] == 1  # South G0 on c7 (line 7 = row 6 both)
    assert north[19].min() == 1 and south[22].min() == 0.5  # North's G0 out
    assert south[14].min() == 1 and north[14].max() == 0  # South acts
    assert south[27].min() == pytest.approx(1 / 3) and south[32].min() == 1


def test_observations_stay_in_bounds_with_the_space_dtype():
    env = barricade.raw_env(variant="intercept")
    env.reset(seed=1)
    space = env.observation_space("player_0")["observation"]
    for s in random_states(env.game, 10, seed=5):
        for p in range(2):
            obs = env.encoder.encode(s, p)
            assert obs.dtype == space.dtype and space.contains(obs)


def test_view_to_board_actions_is_a_permutation_that_mirrors_north():
    enc = barricade.Encoder(barricade.Game())
    assert (enc.view_to_board_actions(0) == np.arange(143)).all()
    north = enc.view_to_board_actions(1)
    assert sorted(north) == list(range(143))
    s = barricade.Game().new_initial_state()
    assert north[0] == 1 and north[6] == 6  # forward in North's view is line-1 on the board
    assert s.action_to_string(int(north[s.string_to_action("G1 c3")])) == "G1 c11"
    assert north[140] == 140


def test_the_env_config_is_the_games_keywords_at_their_defaults():
    import envs

    config = envs.default_config("barricade")
    assert config.pop("name") == "barricade"
    game = barricade.Game(**config)
    assert (game.variant, game.sweep_turns, game.max_turns) == ("standard", 6, 200)
    assert barricade.env(**config).unwrapped.metadata["name"] == "barricade_v0"
