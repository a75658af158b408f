"""What self-play records as targets: the fading teacher, playout-cap randomisation, value
targets mixed with the search's value, and games against a past self or the opponent agent. Each
is deterministic per seed whatever the concurrency."""

import numpy as np
import pytest
import torch
from tiny_games import RaceEncoder, RaceGame

from agents.heuristic import heuristic_for
from envs import nobles
from models.nets import ModelConfig, build_network
from search.puct import SearchConfig
from training.alphazero.selfplay import Round, SelfPlay, SelfPlayConfig
from training.rewards import Outcomes, RewardConfig

torch.set_num_threads(1)
SEEDS = [21, 22, 23, 24]
NO_ADJUDICATION = RewardConfig(adjudication="none")  # the race has no adjudicator


def race_net(players, seed):
    torch.manual_seed(seed)
    return build_network((players, 1, 5), 3, players,
                         ModelConfig(channels=4, blocks=1, hidden=8))


def worker(concurrent=4, players=2, rewards=NO_ADJUDICATION, past=False,
           **selfplay):
    game = RaceGame(num_players=players, length=4, max_turns=24)
    encoder = RaceEncoder(game)
    return SelfPlay(game, encoder, race_net(players, 0), SearchConfig(simulations=12, root="puct"),
                    SelfPlayConfig(concurrent_games=concurrent, temperature_moves=4, **selfplay),
                    Outcomes(game, rewards), race_net(players, 1) if past else None)


def nobles_3p_games(seeds, concurrent, max_turns, simulations, **selfplay):
    """Self-play records of 3-player Nobles for ``seeds``, ``concurrent`` games at once, by a
    small network of seed 0 (``selfplay``: the other SelfPlayConfig keys)."""
    game = nobles.Game(num_players=3, max_turns=max_turns)
    encoder = nobles.Encoder(game)
    torch.manual_seed(0)
    net = build_network(encoder.shape, game.num_actions, 3, ModelConfig(hidden=16))
    return SelfPlay(game, encoder, net, SearchConfig(simulations=simulations, root="puct"),
                    SelfPlayConfig(concurrent_games=concurrent, **selfplay),
                    Outcomes(game, RewardConfig())).play(seeds)


def same_records(a, b):
    for x, y in zip(a, b, strict=True):
        assert x.actions == y.actions and x.network_seat == y.network_seat
        assert x.others == y.others
        np.testing.assert_array_equal(x.samples.policy, y.samples.policy)
        np.testing.assert_array_equal(x.samples.value, y.samples.value)


def test_teacher_share_fades_linearly_to_zero_and_can_label_every_game():
    config = SelfPlayConfig(teacher_share=0.8, teacher_fade=0.5)
    assert [config.teacher_share_at(p) for p in (0.0, 0.25, 0.5, 0.9)] == \
        pytest.approx([0.8, 0.4, 0.0, 0.0])
    assert SelfPlayConfig(teacher_share=0.8).teacher_share_at(0.9) == 0.8  # no fade: constant
    with pytest.raises(ValueError, match="teacher_fade"):
        SelfPlayConfig(teacher_fade=0.0)
    with pytest.raises(ValueError, match="teacher_games"):
        SelfPlayConfig(teacher_games="some")
    # The race's heuristic teacher: a network-vs-network game is labelled with teacher_games=all
    # only, and a round's share of 0 (a faded teacher) labels nothing.
    labelled = worker(teacher="random", teacher_share=1.0, teacher_games="all")
    records = labelled.play(SEEDS)
    assert all(r.random_seat is None for r in records)
    assert sum(r.teacher_labels for r in records) > 0
    assert sum(r.teacher_labels for r in worker(teacher="random", teacher_share=1.0)
               .play(SEEDS)) == 0
    labelled.start_round(Round(labelled.net.state_dict(), teacher_share=0.0))
    assert sum(r.teacher_labels for r in labelled.play(SEEDS)) == 0


def test_search_value_weight_mixes_the_root_value_into_the_targets():
    outcomes = Outcomes(RaceGame(num_players=2), RewardConfig(adjudication="none",
                                                               search_value_weight=0.25))
    outcome, searched = np.array([1.0, -1.0]), np.array([0.2, -0.2])
    targets = outcomes.targets(outcome, [None, None], [2, 1], [searched, None])
    np.testing.assert_allclose(targets[0], 0.75 * outcome + 0.25 * searched)
    np.testing.assert_allclose(targets[1], outcome)  # a forced move has no search value
    mixed = worker(rewards=RewardConfig(adjudication="none", search_value_weight=0.5))
    plain = worker()
    for a, b in zip(mixed.play(SEEDS), plain.play(SEEDS), strict=True):
        assert a.actions == b.actions  # the targets change, not the play
        assert not np.array_equal(a.samples.value, b.samples.value)
        assert np.all(np.abs(a.samples.value) <= 1.0)
    with pytest.raises(ValueError, match="search_value_weight"):
        RewardConfig(search_value_weight=1.5)


def test_n_player_value_targets_hold_one_value_per_seat_summing_to_zero_as_returns_do():
    """Three seats, a hand-built Nobles position: seat 0 leads by 60 points. Its score lead
    (tanh of margins) and a search's root value each drift from a zero sum; the targets mix
    them with the outcome (seat 2 won) and subtract the seats' mean, so every target sums to
    zero like the returns, and the seats' differences are the mix's."""
    game = nobles.Game(num_players=3)
    position = game.new_initial_state().to_dict()
    position["scores"] = [60, 0, 0]
    state = game.state_from_dict(position)
    outcomes = Outcomes(game, RewardConfig(position_weight=0.5, search_value_weight=0.5))
    lead = outcomes.position_value(state)
    np.testing.assert_allclose(lead, 0.5 * np.tanh(np.array([60.0, -60.0, -60.0]) / 60.0))
    assert abs(lead.sum()) > 0.05  # tanh of margins does not sum to zero
    outcome = np.array([-0.5, -0.5, 1.0])  # engine returns: seat 2 won
    searched = np.array([0.4, 0.1, 0.0])
    targets = outcomes.targets(outcome, [lead, lead], [3, 1], [searched, None])
    raw = [0.5 * (0.5 * outcome + 0.5 * lead) + 0.5 * searched, 0.5 * outcome + 0.5 * lead]
    for target, mixed in zip(targets, raw, strict=True):
        assert target.shape == (3,) and target.sum() == pytest.approx(0.0, abs=1e-12)
        np.testing.assert_allclose(target, mixed - mixed.mean())
    plain = Outcomes(game, RewardConfig(adjudication="none"))
    np.testing.assert_allclose(plain.targets(outcome, [None], [1])[0], outcome)  # unchanged


def test_past_self_plays_the_other_seats_and_only_the_network_seat_is_recorded():
    def played(concurrent, past_seed):
        w = worker(concurrent=concurrent, players=3, past=True, past_self_share=1.0)
        w.start_round(Round(w.net.state_dict(), past_weights=race_net(3, past_seed).state_dict()))
        return w.play(SEEDS)

    records = played(4, past_seed=5)
    same_records(records, played(1, past_seed=5))
    for r in records:
        assert r.network_seat is not None
        # Race turns rotate 0, 1, 2: only the network seat's decisions are samples.
        assert len(r.samples) == sum(1 for t in range(r.moves) if t % 3 == r.network_seat)
    other = played(4, past_seed=6)
    assert any(a.actions != b.actions for a, b in zip(records, other, strict=True))
    # Without past weights in the round the games are plain self-play.
    w = worker(players=3, past=True, past_self_share=1.0)
    assert all(r.network_seat is None for r in w.play(SEEDS))
    plain = worker()
    with pytest.raises(ValueError, match="past_net"):
        plain.start_round(Round(plain.net.state_dict(), past_weights=plain.net.state_dict()))


def test_opponent_games_seat_the_heuristic_everywhere_but_the_network_seat():
    """With ``opponent_share: 1`` every game of 3-player Nobles has one network seat (recorded)
    and two seats the heuristic plays: each of their moves is one the heuristic scores best.
    The games are the same whatever the concurrency, and the share is validated."""
    game = nobles.Game(num_players=3, max_turns=45)

    def played(concurrent):
        return nobles_3p_games(SEEDS[:2], concurrent, 45, 6, opponents=("heuristic",),
                               opponent_share=1.0)

    records = played(2)
    same_records(records, played(1))
    heuristic = heuristic_for(game)
    for r in records:
        assert r.others == "opponent" and r.network_seat is not None
        state, network_moves, heuristic_moves = game.new_initial_state(), 0, 0
        for action in r.actions:
            if not state.is_chance_node():
                player, legal = state.current_player(), state.legal_actions()
                if player == r.network_seat:
                    network_moves += 1
                elif len(legal) > 1:
                    scores = dict((a, score) for score, a in heuristic._scores(state, legal))
                    assert scores[action] == max(scores.values())
                    heuristic_moves += 1
            state.apply_action(action)
        assert len(r.samples) == network_moves and heuristic_moves > 10
    with pytest.raises(ValueError, match="past_self_share \\+ selfplay.opponent_share"):
        SelfPlayConfig(past_self_share=0.5, opponent_share=0.6)
    with pytest.raises(ValueError, match="selfplay.opponents"):
        SelfPlayConfig(opponent_share=0.5, opponents=())
    assert all(r.others is None for r in worker(players=3).play(SEEDS))


def test_each_opponent_game_draws_one_of_several_opponents_for_all_its_other_seats():
    """With two opponents each game seats one of them (drawn from the game's seed) in every
    seat but the network's; both get games, and the draw does not depend on concurrency."""
    game = nobles.Game(num_players=3, max_turns=30)

    def played(concurrent):
        return nobles_3p_games(list(range(100, 108)), concurrent, 30, 4,
                               opponents=("heuristic", "random"), opponent_share=1.0)

    records = played(4)
    same_records(records, played(1))
    assert [r.opponent for r in records] == [r.opponent for r in played(1)]
    assert {r.opponent for r in records} == {0, 1}
    heuristic = heuristic_for(game)
    for r in (r for r in records if r.opponent == 0):
        state = game.new_initial_state()
        for action in r.actions:
            if not state.is_chance_node() and state.current_player() != r.network_seat \
                    and len(state.legal_actions()) > 1:
                scores = dict((a, score) for score, a in heuristic._scores(state,
                                                                            state.legal_actions()))
                assert scores[action] == max(scores.values())
            state.apply_action(action)


def test_a_searching_teacher_labels_with_its_visit_shares():
    """Plain MCTS as the teacher labels each decision with the share of its root visits per
    move (expert iteration's tree-policy target), not one-hot on its move: in 3-player Nobles
    its labels are distributions over the legal moves, some spread over more than one, and the
    same whatever the concurrency."""
    def played(concurrent):
        return nobles_3p_games(SEEDS[:2], concurrent, 30, 4, teacher="mcts:simulations=40",
                               teacher_share=1.0, teacher_games="all", temperature_moves=0)

    records = played(2)
    same_records(records, played(1))
    policies = np.concatenate([r.samples.policy for r in records])
    masks = np.concatenate([r.samples.mask for r in records])
    searched = masks.sum(axis=1) > 1  # one legal move is recorded one-hot without a search
    assert sum(r.teacher_labels for r in records) == searched.sum() > 10
    np.testing.assert_allclose(policies.sum(axis=1), 1.0, rtol=1e-5)
    assert not policies[~masks].any()
    spread = (policies[searched] > 0).sum(axis=1)
    assert (spread > 1).mean() > 0.5
    assert set(np.unique(policies[searched] * 40).round(4)) <= set(range(41))  # visits / 40
