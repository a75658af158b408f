"""Symmetry augmentation: transforming a position's observation and legal mask must give the
observation and mask of the mirrored (Barricade) or transposed (square 2-player Blockade)
position, for both players' views."""

import numpy as np
import pytest

from envs import barricade, blockade, nobles
from models.evaluator import ViewMaps
from models.features import make_encoder
from models.symmetry import augmenter, symmetries
from training.replay import Samples


def mirror_file(station):
    return [station[0], 8 - station[1]] if isinstance(station, list) else station


def mirror_barricade(d: dict) -> dict:
    """The same position with files mirrored and Scouts 0 and 2 relabelled."""
    out = dict(d)
    out["scouts"] = [[mirror_file(x) for x in reversed(row)] for row in d["scouts"]]
    out["guards"] = [[mirror_file(x) for x in row] for row in d["guards"]]
    out["placed_order"] = [[2 - s for s in row] for row in d["placed_order"]]
    first = d["first_half"]
    if first and first["kind"] == "scout":
        out["first_half"] = {**first, "scout": 2 - first["scout"],
                             "from": mirror_file(first["from"]),
                             "d": {0: 0, 1: 1, 2: 3, 3: 2}[first["d"]]}
    out["sweep"] = [None if s is None else {**s, "scout": 2 - s["scout"],
                                            "stations": [mirror_file(x) for x in s["stations"]]}
                    for s in d["sweep"]]
    return out


def transpose_blockade(d: dict) -> dict:
    out = dict(d)
    out["pawns"] = [[[c, r] for r, c in pawns] for pawns in d["pawns"]]
    out["walls"] = [["H" if o == "V" else "V", c, r] for o, r, c in d["walls"]]
    out["walls_left"] = [[h, v] for v, h in d["walls_left"]]
    return out


def random_states(game, count, seed):
    rng = np.random.default_rng(seed)
    state, states = game.new_initial_state(), []
    while len(states) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        state.apply_action(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            states.append(state.clone())
    return states


@pytest.mark.parametrize("game,transform,features", [
    (barricade.Game(), mirror_barricade, []),
    (barricade.Game(variant="intercept"), mirror_barricade, []),
    (blockade.Game(rows=9, cols=9), transpose_blockade, []),
    (blockade.Game(rows=9, cols=9), transpose_blockade, ["goal_steps"]),
    (blockade.Game(rows=9, cols=9), transpose_blockade, ["goal_steps", "race_steps"]),
])
def test_symmetry_maps_observation_and_mask_of_the_equivalent_position(game, transform,
                                                                       features):
    encoder = make_encoder(game, features)
    (sym,) = symmetries(game, encoder)
    maps = ViewMaps(encoder, game.num_players)
    for state in random_states(game, 60, seed=3):
        image = game.state_from_dict(transform(state.to_dict()))
        mover = state.current_player()
        for p in range(game.num_players):
            np.testing.assert_array_equal(sym.obs(encoder.encode(state, p)[None])[0],
                                          encoder.encode(image, p))
        view_mask = state.legal_actions_mask()[maps.perms[mover]]
        image_mask = image.legal_actions_mask()[maps.perms[mover]]
        np.testing.assert_array_equal(sym.per_action(view_mask[None])[0], image_mask)


def test_games_without_symmetry_get_no_augmentation():
    for game in (blockade.Game(), blockade.Game(num_players=4, rows=9, cols=9), nobles.Game()):
        encoder = blockade.Encoder(game) if game.name == "blockade" else nobles.Encoder(game)
        assert symmetries(game, encoder) == [] and augmenter([]) is None


def test_augmenter_transforms_a_random_subset_consistently():
    game = barricade.Game()
    encoder = barricade.Encoder(game)
    syms = symmetries(game, encoder)
    states = random_states(game, 32, seed=5)
    maps = ViewMaps(encoder, 2)
    obs = np.stack([encoder.encode(s, s.current_player()) for s in states])
    mask = np.stack([s.legal_actions_mask()[maps.perms[s.current_player()]] for s in states])
    policy = (mask / mask.sum(axis=1, keepdims=True)).astype(np.float32)
    batch = Samples(obs, mask, policy, np.zeros((32, 2), np.float32))
    out = augmenter(syms)(batch, np.random.default_rng(0))
    changed = [i for i in range(32) if not np.array_equal(out.obs[i], obs[i])]
    assert 0 < len(changed) < 32
    for i in changed:
        np.testing.assert_array_equal(out.obs[i], syms[0].obs(obs[i:i + 1])[0])
        np.testing.assert_array_equal(out.policy[i], syms[0].per_action(policy[i:i + 1])[0])
    np.testing.assert_array_equal(out.value, batch.value)
