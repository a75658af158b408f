"""Networks and the network evaluator: shapes, TorchScript, view/board action and seat maps, and
batched search with a real network agreeing with one tree at a time."""

import numpy as np
import pytest
import torch
from tiny_games import FlatRaceEncoder, RaceEncoder, RaceGame

from envs import blockade
from models.evaluator import NetworkEvaluator, ViewMaps
from models.nets import (
    ActionLayout,
    ConvNet,
    FlatPolicyHead,
    MLPNet,
    ModelConfig,
    SpatialPolicyHead,
    action_layout,
    build_network,
)
from search.puct import SearchConfig, search

torch.set_num_threads(1)  # small batches: one thread is fastest, and robust to a busy machine
TINY = ModelConfig(channels=8, blocks=1, hidden=16, policy_channels=2)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
@pytest.mark.parametrize("shape,kind", [((19, 14, 11), ConvNet), ((40,), MLPNet)])
def test_network_kind_follows_observation_rank_and_outputs_fit(shape, kind):
    torch.manual_seed(0)
    net = build_network(shape, num_actions=284, num_players=3, config=TINY)
    assert isinstance(net, kind)
    logits, values = net(torch.rand(5, *shape))
    assert logits.shape == (5, 284) and values.shape == (5, 3)
    assert torch.all(values.abs() < 1)
    scripted = torch.jit.script(net.eval())
    for a, b in zip(scripted(torch.ones(2, *shape)), net(torch.ones(2, *shape)), strict=True):
        torch.testing.assert_close(a, b)


def test_unsupported_observation_shape_is_a_clear_error():
    with pytest.raises(ValueError, match="no network"):
        build_network((3, 4), 10, 2, TINY)
    with pytest.raises(ValueError, match="channels"):
        ModelConfig(channels=0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_view_maps_invert_each_other_on_blockade(players):
    game = blockade.Game(num_players=players)
    maps = ViewMaps(blockade.Encoder(game), players)
    rng = np.random.default_rng(0)
    for p in range(players):
        board = rng.random(game.num_actions)
        view = maps.policy_to_view(board, p)
        np.testing.assert_array_equal(maps.logits_to_board(view[None], np.array([p]))[0], board)
        values = rng.random(players)
        rel = maps.values_to_rel(values, p)
        assert rel[0] == values[p]  # relative seat 0 is the viewer
        np.testing.assert_array_equal(maps.values_to_abs(rel[None], np.array([p]))[0], values)


class SpikeNet(torch.nn.Module):
    """Logit spike on view action ``view_action``; value +0.5 for the viewer, -0.5 others."""

    def __init__(self, num_actions, num_players, view_action):
        super().__init__()
        self.num_actions, self.num_players, self.view_action = num_actions, num_players, view_action

    def forward(self, obs):
        logits = torch.zeros(obs.shape[0], self.num_actions)
        logits[:, self.view_action] = 10.0
        values = torch.full((obs.shape[0], self.num_players), -0.5)
        values[:, 0] = 0.5
        return logits, values


def test_evaluator_maps_view_outputs_to_board_actions_and_absolute_seats():
    game = blockade.Game(num_players=4)
    encoder = blockade.Encoder(game)
    view_action = 3  # pawn 0 east in the mover's view
    evaluator = NetworkEvaluator(SpikeNet(game.num_actions, 4, view_action), encoder, 4)
    state = game.new_initial_state()
    states = [game.state_from_dict({**state.to_dict(), "to_move": p}) for p in range(4)]
    logits, values = evaluator(states)
    for p in range(4):
        board_action = encoder.view_to_board_actions(p)[view_action]
        assert int(np.argmax(logits[p])) == board_action
        assert values[p][p] == 0.5 and (np.delete(values[p], p) == -0.5).all()
        # East (offset 3) in the view is west (offset 2) on the board for the NE and SE seats,
        # whose views mirror the columns.
        assert board_action == {0: 3, 1: 2, 2: 2, 3: 3}[p]


@pytest.mark.parametrize("encoder_cls", [RaceEncoder, FlatRaceEncoder])
def test_batched_search_with_a_network_equals_one_tree_at_a_time(encoder_cls):
    torch.manual_seed(0)
    game = RaceGame(num_players=3, length=6)
    encoder = encoder_cls(game)
    net = build_network(encoder.shape, game.num_actions, 3, TINY)
    evaluator = NetworkEvaluator(net, encoder, 3)
    states = [game.state_from_dict({"positions": p, "to_move": t})
              for p, t in [([0, 0, 0], 0), ([2, 1, 4], 1), ([5, 3, 0], 2)]]
    config = SearchConfig(simulations=40)
    batched = search(states, evaluator, config, [np.random.default_rng(i) for i in range(3)])
    for i, s in enumerate(states):
        single = search([s], evaluator, config, [np.random.default_rng(i)])[0]
        np.testing.assert_array_equal(single.visits, batched[i].visits)
        np.testing.assert_allclose(single.q, batched[i].q, atol=1e-5)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
def test_spatial_policy_head_is_the_blockade_default_and_scripts():
    game = blockade.Game()
    encoder = blockade.Encoder(game)
    net = build_network(encoder.shape, game.num_actions, 2, TINY, action_layout(encoder))
    assert isinstance(net.policy, SpatialPolicyHead)
    obs = torch.as_tensor(encoder.encode(game.new_initial_state(), 0))[None].repeat(3, 1, 1, 1)
    logits, values = net(obs)
    assert logits.shape == (3, game.num_actions) and values.shape == (3, 2)
    scripted = torch.jit.script(net.eval())
    for a, b in zip(scripted(obs), net(obs), strict=True):
        torch.testing.assert_close(a, b)
    flat = ModelConfig(channels=8, blocks=1, hidden=16, policy_channels=2, policy_head="flat")
    assert isinstance(build_network(encoder.shape, game.num_actions, 2, flat,
                                    action_layout(encoder)).policy, FlatPolicyHead)


def test_spatial_head_scores_each_move_at_its_destination():
    """With move offsets, move j of piece k gets piece k's destination score at the cell the
    move leads to (the rest of the logit comes from the features under the piece)."""
    offsets = ((-1, 0), (0, 2), (2, -2))
    layout = ActionLayout(piece_planes=(0, 1), moves_per_piece=3, anchor_kinds=1,
                          move_offsets=offsets)
    head = SpatialPolicyHead(4, layout)
    torch.nn.init.zeros_(head.moves.weight)
    torch.nn.init.zeros_(head.moves.bias)
    x = torch.randn(2, 4, 6, 7)
    obs = torch.zeros(2, 3, 6, 7)
    pawns = [[(3, 3), (2, 4)], [(5, 0), (0, 6)]]  # some destinations fall off the board
    for b, cells in enumerate(pawns):
        for k, (r, c) in enumerate(cells):
            obs[b, k, r, c] = 1
    logits = head(x, obs)
    scores = head.destination(x)
    for b, cells in enumerate(pawns):
        for k, (r, c) in enumerate(cells):
            for j, (dr, dc) in enumerate(offsets):
                inside = 0 <= r + dr < 6 and 0 <= c + dc < 7
                expected = scores[b, k, r + dr, c + dc] if inside else 0.0
                torch.testing.assert_close(logits[b, 3 * k + j], torch.as_tensor(expected))
    # A layout without offsets (checkpoints written before them) has no destination term.
    assert SpatialPolicyHead(4, ActionLayout((0, 1), 3, 1)).destination is None
    with pytest.raises(ValueError, match="2 move offsets for 3 moves"):
        ActionLayout((0, 1), 3, 1, move_offsets=offsets[:2])


def test_spatial_policy_head_needs_a_layout_that_covers_the_actions():
    spatial = ModelConfig(channels=8, blocks=1, hidden=16, policy_head="spatial")
    with pytest.raises(ValueError, match="action layout"):
        build_network((5, 6, 7), 10, 2, spatial)
    layout = ActionLayout(piece_planes=(0, 1), moves_per_piece=12, anchor_kinds=2)
    with pytest.raises(ValueError, match="covers 84 actions, the game has 10"):
        build_network((5, 6, 7), 10, 2, spatial, layout)
    with pytest.raises(ValueError, match="policy_head"):
        ModelConfig(policy_head="round")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_blockade_action_layout_matches_what_the_view_shows(players):
    """In every seat's view, view action 12k + j moves the pawn of plane k by offset j, and a
    wall at view anchor (r, c) changes the blocked-edge planes only in the 2x2 cells around
    (r, c): where the spatial head reads them."""
    game = blockade.Game(num_players=players)
    encoder = blockade.Encoder(game)
    layout = action_layout(encoder)
    blocked = encoder.planes["blocked"]
    anchors = (game.rows - 1) * (game.cols - 1)
    rng = np.random.default_rng(players)
    state, checked = game.new_initial_state(), 0
    while checked < 400 and not state.is_terminal():
        player = state.current_player()
        before = encoder.encode(state, player)
        view_to_board = encoder.view_to_board_actions(player)
        for view in rng.permutation(game.num_actions)[:40]:
            board = int(view_to_board[view])
            if board not in state.legal_actions():
                continue
            after = encoder.encode(_applied(state, board), player)
            moves = len(layout.piece_planes) * layout.moves_per_piece
            if view < moves:
                plane = layout.piece_planes[view // layout.moves_per_piece]
                (r, c), = np.argwhere(before[plane])
                dr, dc = layout.move_offsets[view % layout.moves_per_piece]
                assert after[plane, r + dr, c + dc] == 1
            else:
                r, c = divmod((view - moves) % anchors, game.cols - 1)  # anchor (r+1, c+1)
                changed = np.argwhere((after[blocked] != before[blocked]).any(axis=0))
                assert len(changed) and all(r <= y <= r + 1 and c <= x <= c + 1
                                            for y, x in changed)
            checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked >= 400


def _applied(state, action):
    child = state.clone()
    child.apply_action(action)
    return child
