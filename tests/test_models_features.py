"""Derived input features: Blockade goal-distance planes in each player's view."""

import numpy as np
import pytest

from envs import blockade, nobles
from envs.blockade.engine import OPPOSITE_CORNER as OPPOSITE
from models.features import DistancePlanes, make_encoder, walk_distances


@pytest.mark.parametrize("players", [2, 3, 4])
def test_distance_planes_hold_each_seats_walking_distance_in_the_view(players):
    game = blockade.Game(num_players=players)
    encoder = make_encoder(game, ["distance"])
    assert isinstance(encoder, DistancePlanes)
    base = blockade.Encoder(game)
    state = game.new_initial_state()
    position = state.to_dict()
    position["walls"] = [["H", 5, 3], ["V", 7, 6], ["H", 9, 8]]
    state = game.state_from_dict(position)
    far = game.num_cells
    for p in range(players):
        obs = encoder.encode(state, p)
        assert obs.shape == encoder.shape == (base.shape[0] + 2 * players, *base.shape[1:])
        np.testing.assert_array_equal(obs[: base.shape[0]], base.encode(state, p))
        planes = obs[base.shape[0]:]
        for i in range(players):
            seat = (p + i) % players
            pawn_view = obs[i].astype(bool)  # plane i = pawns of relative seat i
            for k in range(2):
                plane = planes[2 * i + k]
                assert (plane == 0).sum() == 1  # its goal square, wherever the view puts it
                # Under the seat's pawns: each pawn's walking distance to that goal square.
                goal = game.cell(*game.start_squares[OPPOSITE[game.corners[seat]]][k])
                distances = walk_distances(game, state, [goal])
                expected = sorted(distances[x] for x in state.pawns[2 * seat: 2 * seat + 2])
                assert sorted(np.round(plane[pawn_view] * far)) == expected
    np.testing.assert_array_equal(encoder.view_to_board_actions(1),
                                  base.view_to_board_actions(1))


def test_unknown_or_unsupported_features_are_clear_errors():
    with pytest.raises(ValueError, match="unknown model feature"):
        make_encoder(blockade.Game(), ["magic"])
    with pytest.raises(ValueError, match="only defined for blockade"):
        make_encoder(nobles.Game(), ["distance"])
    assert isinstance(make_encoder(nobles.Game()), nobles.Encoder)


@pytest.mark.parametrize("players", [2, 4])
def test_pawn_identity_planes_mark_the_pawn_that_move_actions_name(players):
    game = blockade.Game(num_players=players)
    encoder = make_encoder(game, ["distance", "pawn_identity"])
    base_channels = blockade.Encoder(game).shape[0] + 2 * players  # after the distance planes
    state = game.new_initial_state()
    for p in range(players):
        obs = encoder.encode(state, p)
        planes = obs[base_channels:]
        assert planes.shape[0] == players and (planes.sum(axis=(1, 2)) == 1).all()
        for i in range(players):  # pawn 0 of seat i is one of that seat's pawns in the view
            assert obs[i][planes[i].astype(bool)].all()
    # View action "pawn 0 one step down" moves exactly the marked pawn one row down the view.
    for p in range(players):
        mover = game.new_initial_state()
        while mover.current_player() != p:
            mover.apply_action(mover.legal_actions()[0])
        before = np.argwhere(encoder.encode(mover, p)[base_channels])[0]
        mover.apply_action(int(encoder.view_to_board_actions(p)[1]))  # pawn 0, offset (1, 0)
        after = np.argwhere(encoder.encode(mover, p)[base_channels])[0]
        assert (after - before).tolist() == [1, 0]
