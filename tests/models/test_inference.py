"""Inference backends and the evaluation cache (models/inference.py): the ONNX backend gives the
torch network's outputs on real positions, also after the weights change; int8 stays close; the
cache returns what the network would; self-play plays the same games with each exact option."""

import logging

import numpy as np
import pytest
import torch
from tiny_games import RaceEncoder, RaceGame

from envs import blockade, nobles
from models.export import ONNX_LOGGERS, reference_positions
from models.features import make_encoder
from models.inference import EvaluationCache, make_evaluator
from models.nets import ModelConfig, action_layout, build_network
from search.puct import SearchConfig
from training.alphazero.selfplay import Round, SelfPlay, SelfPlayConfig
from training.rewards import Outcomes, RewardConfig

torch.set_num_threads(1)
TINY = ModelConfig(channels=8, blocks=1, hidden=16, policy_channels=2)
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning",
                                        "ignore:`torch.jit.script` is deprecated")


def network(game, encoder, seed):
    torch.manual_seed(seed)
    net = build_network(encoder.shape, game.num_actions, game.num_players, TINY,
                        action_layout(encoder)).eval()
    for module in net.modules():  # batch norm as after training, not the identity
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return net


GAMES = {
    "blockade (conv, spatial head, distance planes)":
        lambda: (g := blockade.Game(), make_encoder(g, ["auto"])),
    "nobles 3p (MLP)": lambda: (g := nobles.Game(num_players=3), make_encoder(g, [])),
}


@pytest.mark.parametrize("setup", GAMES.values(), ids=GAMES.keys())
def test_onnx_backends_give_the_networks_outputs_before_and_after_a_refresh(setup):
    game, encoder = setup()
    states = [s for seed in range(3) for s in reference_positions(game, 12, seed)]
    net = network(game, encoder, 0)
    exact = make_evaluator(net, encoder, game.num_players, "torch")
    others = [make_evaluator(net, encoder, game.num_players, backend)
              for backend in ("onnx", "auto")]  # auto: onnx under 16 positions, torch above
    for weights in (None, network(game, encoder, 1).state_dict()):
        if weights is not None:
            net.load_state_dict(weights)
            for evaluator in (exact, *others):
                evaluator.refresh()
        for batch in (states, states[:5]):
            expected = exact(batch)
            for evaluator in others:
                for a, b in zip(expected, evaluator(batch), strict=True):
                    assert np.abs(a - b).max() < 1e-4
        onnx = others[0]
        np.testing.assert_allclose(onnx(states[:1])[0][0], onnx(states)[0][0], atol=1e-6)


def test_int8_backend_stays_close_to_the_network():
    game = blockade.Game()
    encoder = make_encoder(game, ["auto"])
    net = network(game, encoder, 0)
    states = reference_positions(game, 16, 5)
    (logits, values), (q_logits, q_values) = (
        make_evaluator(net, encoder, 2, backend)(states) for backend in ("torch", "onnx-int8"))
    legal = np.stack([s.legal_actions_mask() for s in states])
    assert np.abs(values - q_values).max() < 0.05
    assert np.abs(logits - q_logits)[legal].max() < 0.25


class CountingNet(torch.nn.Module):
    """A fixed function of the observation that counts the positions it is asked about."""

    def __init__(self, num_actions, num_players):
        super().__init__()
        self.num_actions, self.num_players = num_actions, num_players
        self.seen = 0

    def forward(self, obs):
        self.seen += obs.shape[0]
        flat = obs.flatten(1)
        logits = flat.sum(1, keepdim=True) * torch.arange(self.num_actions) / 100.0
        return logits, torch.tanh(flat[:, :self.num_players] - flat.mean(1, keepdim=True))


def test_cache_returns_what_the_network_would_and_runs_each_new_position_once():
    game = blockade.Game(num_players=3)
    encoder = blockade.Encoder(game)
    states = reference_positions(game, 10, 0)
    net = CountingNet(game.num_actions, 3)
    plain = make_evaluator(net, encoder, 3)
    plain.runner.optimize = False  # the counting module as it is, not a frozen copy
    plain.refresh()
    cached = make_evaluator(net, encoder, 3, cache_size=8)
    cached.runner.optimize = False
    cached.refresh()
    batch = states[:6] + states[:3]  # repeats within a batch
    expected = plain(batch)
    net.seen = 0
    for a, b in zip(cached(batch), expected, strict=True):
        np.testing.assert_array_equal(a, b)
    assert net.seen == 6  # each distinct position once
    for a, b in zip(cached(states[2:6]), expected, strict=True):
        np.testing.assert_array_equal(a, b[2:6])
    assert net.seen == 6  # all four from the cache
    assert cached.cache.hits == 3 + 4 and cached.cache.lookups == 9 + 4
    cached(states)  # 10 positions, room for 8: the oldest go
    assert len(cached.cache.entries) == 8
    cached.refresh()
    assert not cached.cache.entries


def test_cache_keeps_the_most_recently_used():
    cache = EvaluationCache(2)
    obs = np.arange(3 * 4, dtype=np.float32).reshape(3, 4)

    def run(batch):
        return batch * 2, batch[:, :1]

    cache(obs[:2], run)
    cache(obs[:1], run)  # row 0 used again: row 1 is now the oldest
    cache(obs[2:], run)
    assert cache(obs[:1], run)[0].tolist() == [(obs[0] * 2).tolist()]
    assert cache.hits == 2


def test_selfplay_plays_the_same_games_with_onnx_and_the_cache():
    game = RaceGame(num_players=2, length=4, max_turns=24)
    encoder = RaceEncoder(game)

    def records(**inference):
        torch.manual_seed(0)
        net = build_network(encoder.shape, game.num_actions, 2,
                            ModelConfig(channels=4, blocks=1, hidden=8))
        worker = SelfPlay(game, encoder, net, SearchConfig(simulations=12, root="puct"),
                          SelfPlayConfig(concurrent_games=4, temperature_moves=4),
                          Outcomes(game, RewardConfig(adjudication="none")), **inference)
        worker.start_round(Round(net.state_dict()))
        return worker.play([21, 22, 23, 24, 25])

    reference = records()
    for inference in ({"inference_cache": 64}, {"inference": "onnx", "inference_cache": 64}):
        for a, b in zip(reference, records(**inference), strict=True):
            assert a.actions == b.actions
            np.testing.assert_allclose(a.samples.policy, b.samples.policy, atol=1e-6)


def test_unknown_backend_and_negative_cache_are_errors():
    game = blockade.Game()
    encoder = blockade.Encoder(game)
    net = network(game, encoder, 0)
    with pytest.raises(ValueError, match="backend"):
        make_evaluator(net, encoder, 2, "tensorrt")
    with pytest.raises(ValueError, match="cache_size"):
        make_evaluator(net, encoder, 2, cache_size=-1)


def test_onnx_backends_export_and_refresh_without_the_exporters_notices(caplog):
    """Hydra sets the root logger to INFO: the exporter's and its graph passes' notices would
    then print a dozen lines at every self-play round's export; only their errors show."""
    for name in ONNX_LOGGERS:  # as in a fresh process
        logging.getLogger(name).setLevel(logging.NOTSET)
    caplog.set_level(logging.INFO)
    game = nobles.Game(num_players=3)
    encoder = make_encoder(game, [])
    net = network(game, encoder, 0)
    evaluator = make_evaluator(net, encoder, game.num_players, "onnx-int8")
    net.load_state_dict(network(game, encoder, 1).state_dict())
    evaluator.refresh()
    assert [r.name for r in caplog.records if r.name.startswith(ONNX_LOGGERS)] == []
