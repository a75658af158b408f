"""Training machinery: replay buffer, checkpoints (atomic, validated), the sparse-reward remedy,
self-play determinism, the learner, and in-process runs that train, checkpoint, resume and
evaluate."""

import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch
from blockade_positions import with_walls
from dying_worker import DyingWorker, is_seed
from hydra import compose, initialize_config_dir
from tiny_games import RaceEncoder, RaceGame

import envs
from agents.network import Acting, NetworkAgent, checkpoint_agent
from envs import blockade, nobles
from envs.blockade.distances import race_distances as blockade_race_distances
from models.checkpoint import CheckpointError, load_checkpoint
from models.evaluator import NetworkEvaluator
from models.nets import ModelConfig, action_layout, build_network
from search.puct import SearchConfig
from training.alphazero.selfplay import Round, SelfPlay, SelfPlayConfig
from training.evaluation import TrainingEvalConfig
from training.launch import run
from training.learner import Learner, LearnerConfig
from training.replay import ReplayBuffer, Samples
from training.rewards import Outcomes, RewardConfig
from training.saving import load_replay, replay_path, save_checkpoint

torch.set_num_threads(1)  # small batches: one thread is fastest, and robust to a busy machine
ROOT = Path(__file__).resolve().parents[2]


def random_samples(n, shape=(3, 2, 2), actions=5, players=2, seed=0):
    r = np.random.default_rng(seed)
    return Samples(r.random((n, *shape)).astype(np.float32), r.random((n, actions)) > 0.3,
                   r.random((n, actions)).astype(np.float32),
                   r.uniform(-1, 1, (n, players)).astype(np.float32))


def test_replay_buffer_overwrites_oldest_and_round_trips():
    buf = ReplayBuffer(10, (3, 2, 2), 5, 2)
    first, second = random_samples(7, seed=1), random_samples(6, seed=2)
    buf.add(first)
    buf.add(second)
    assert len(buf) == 10 and buf.added == 13
    # Slots 0..2 were overwritten by the last three of `second`, 3..6 keep `first`.
    np.testing.assert_array_equal(buf.value[:3], second.value[3:])
    np.testing.assert_array_equal(buf.value[3:7], first.value[3:])
    copy = ReplayBuffer(10, (3, 2, 2), 5, 2)
    copy.load_state_dict(buf.state_dict())
    for name in ("obs", "mask", "policy", "value"):
        np.testing.assert_array_equal(getattr(copy, name), getattr(buf, name))
    assert copy.added == buf.added
    with pytest.raises(ValueError, match="shape"):
        ReplayBuffer(10, (4, 2, 2), 5, 2).load_state_dict(buf.state_dict())


def test_pinned_samples_are_never_overwritten_and_survive_a_checkpoint():
    buf = ReplayBuffer(10, (3, 2, 2), 5, 2)
    teacher = random_samples(4, seed=3)
    buf.add(teacher)
    buf.pin()
    selfplay = [random_samples(5, seed=4 + i) for i in range(3)]
    for part in selfplay:
        buf.add(part)
    assert len(buf) == 10
    np.testing.assert_array_equal(buf.value[:4], teacher.value)  # 15 later samples, 6 slots
    newest = np.concatenate([p.value for p in selfplay])[-6:]
    # The six ring slots hold the newest six, written cyclically after the pinned four.
    np.testing.assert_array_equal(np.sort(buf.value[4:], axis=0), np.sort(newest, axis=0))
    copy = ReplayBuffer(10, (3, 2, 2), 5, 2)
    copy.load_state_dict(buf.state_dict())
    more = random_samples(3, seed=9)
    buf.add(more)
    copy.add(more)  # a resumed buffer writes where the original would
    np.testing.assert_array_equal(copy.value, buf.value)
    np.testing.assert_array_equal(copy.value[:4], teacher.value)
    with pytest.raises(ValueError, match="full"):
        full = ReplayBuffer(4, (3, 2, 2), 5, 2)
        full.add(teacher)
        full.pin()


def test_distance_adjudication_favours_the_player_nearer_its_goals():
    game = blockade.Game()
    position = game.new_initial_state().to_dict()
    position["pawns"] = [[[9, 6], [10, 6]], [[11, 8], [10, 7]]]  # player 0 near SE goals
    state = game.state_from_dict(position)
    d = blockade_race_distances(state)
    # (10,6)->(10,7) 1 + (9,6)->(11,8) 4, or (9,6)->(10,7) 2 + (10,6)->(11,8) 3; pawns ignored.
    assert d.tolist() == [5, 26]
    values = Outcomes(game, RewardConfig(adjudication="distance", scale=6.0, cap=1.0))(state)
    assert values[0] > 0.5 and values[1] < -0.5
    capped = Outcomes(game, RewardConfig(adjudication="distance", scale=6.0, cap=0.5))(state)
    np.testing.assert_allclose(capped, 0.5 * values)
    # Without the remedy an unfinished game is worth nothing; with it, walls count.
    assert not Outcomes(game, RewardConfig(adjudication="none"))(state).any()
    with_walls(position, [["H", 10, 6], ["V", 10, 7]])
    walled = game.state_from_dict(position)
    assert blockade_race_distances(walled)[0] > d[0]


def test_a_walled_in_opponent_is_worth_less_than_a_win():
    # Player 1's pawns sealed in their corner: its distance is huge and the lead saturates.
    # Without the cap the position would be worth +1 to player 0, exactly a win, so the search
    # could not tell the winning move from any other (the agent shuffled until the turn limit).
    game = blockade.Game()
    position = game.new_initial_state().to_dict()
    position["pawns"] = [[[11, 8], [10, 9]], [[12, 0], [13, 1]]]
    with_walls(position, [["H", 12, 1], ["V", 13, 2]])  # (12,0),(12,1),(13,0),(13,1) sealed
    state = game.state_from_dict(position)
    assert blockade_race_distances(state)[1] > game.num_cells
    uncapped = Outcomes(game, RewardConfig(cap=1.0, position_weight=0.5))
    capped = Outcomes(game, RewardConfig(cap=0.5, position_weight=0.5))
    assert uncapped(state)[0] > 0.999
    assert capped(state)[0] <= 0.5 and capped.position_value(state)[0] <= 0.5
    position["pawns"][0] = [[11, 8], [10, 7]]
    won = game.state_from_dict(position)
    assert capped(won)[0] == 1.0
    with pytest.raises(ValueError, match="rewards.cap"):
        RewardConfig(cap=0.0)


def test_discounted_leads_still_tell_how_far_a_won_race_is():
    # Player 1 sealed in its corner: its lead saturates at the cap, so undiscounted leads are
    # the same one step or fifteen from the goals. Discounted by the race's length they fall
    # with the distance, and near the turn limit only the decisions left before it count.
    game = blockade.Game()
    position = game.new_initial_state().to_dict()
    with_walls(position, [["H", 12, 1], ["V", 13, 2]])
    flat = Outcomes(game, RewardConfig(position_weight=0.5, discount=0.98))
    discounted = Outcomes(game, RewardConfig(position_weight=0.5, discount=0.98,
                                             discount_leads=True))
    leads, flat_leads = [], []
    for own in ([[11, 8], [9, 7]], [[11, 8], [6, 7]], [[4, 4], [6, 7]]):
        position["pawns"] = [own, [[12, 0], [13, 1]]]
        state = game.state_from_dict(position)
        steps = blockade_race_distances(state)[0]
        leads.append(discounted.position_value(state)[0])
        flat_leads.append(flat.position_value(state)[0])
        np.testing.assert_allclose(leads[-1], flat_leads[-1] * 0.98 ** (2 * steps))
    assert leads[0] > leads[1] > leads[2] > 0
    np.testing.assert_allclose(flat_leads, flat_leads[0], atol=1e-3)
    position["turn"] = game.max_turns - 1
    late = game.state_from_dict(position)
    np.testing.assert_allclose(discounted.position_value(late),
                               flat.position_value(late) * 0.98 ** 2)
    # Games without a race length keep their leads; so does an undiscounted run.
    nobles_game = nobles.Game()
    state = nobles_game.new_initial_state()
    nobles_leads = Outcomes(nobles_game, RewardConfig(position_weight=0.5, discount=0.9,
                                                      discount_leads=True))
    np.testing.assert_array_equal(nobles_leads.position_value(state),
                                  Outcomes(nobles_game, RewardConfig(position_weight=0.5))
                                  .position_value(state))
    undiscounted = Outcomes(game, RewardConfig(position_weight=0.5, discount_leads=True))
    np.testing.assert_array_equal(undiscounted.position_value(late), flat.position_value(late))


def test_decided_games_keep_engine_returns_and_unknown_games_fail_clearly():
    game = blockade.Game()
    position = game.new_initial_state().to_dict()
    position["pawns"] = [[[11, 8], [10, 7]], [[5, 5], [6, 6]]]
    won = game.state_from_dict(position)
    assert won.is_terminal()
    np.testing.assert_array_equal(Outcomes(game, RewardConfig())(won), [1, -1])
    with pytest.raises(ValueError, match="no adjudicator"):
        Outcomes(RaceGame(), RewardConfig(adjudication="distance"))
    with pytest.raises(ValueError, match="adjudication"):
        RewardConfig(adjudication="magic")


def test_nobles_cut_games_are_adjudicated_by_score_lead():
    game = nobles.Game(num_players=3)
    position = game.new_initial_state().to_dict()
    position["scores"] = [40, 0, -20]
    state = game.state_from_dict(position)
    values = Outcomes(game, RewardConfig())(state)
    assert values[0] > 0 > values[2]


def race_selfplay(concurrent, players=3, seed=0):
    torch.manual_seed(seed)
    game = RaceGame(num_players=players, length=4, max_turns=24)
    encoder = RaceEncoder(game)
    net = build_network(encoder.shape, 3, players, ModelConfig(channels=4, blocks=1, hidden=8))
    return SelfPlay(game, encoder, net, SearchConfig(simulations=12, root="puct"),
                    SelfPlayConfig(concurrent_games=concurrent, temperature_moves=4),
                    Outcomes(game, RewardConfig(adjudication="none")))


def test_teacher_labels_replace_search_targets_in_games_against_random():
    game = blockade.Game(rows=8, cols=8, max_turns=24)
    encoder = blockade.Encoder(game)
    torch.manual_seed(0)
    net = build_network(encoder.shape, game.num_actions, 2,
                        ModelConfig(channels=4, blocks=1, hidden=8), action_layout(encoder))

    def play(concurrent, share, fraction=1.0):
        worker = SelfPlay(game, encoder, net, SearchConfig(simulations=4),
                          SelfPlayConfig(concurrent_games=concurrent, teacher_share=share,
                                         random_opponent_share=fraction),
                          Outcomes(game, RewardConfig()))
        return worker.play([3, 4, 5])

    labelled, together, plain = play(1, 1.0), play(3, 1.0), play(3, 0.0)
    for a, b, c in zip(labelled, together, plain, strict=True):
        assert a.actions == b.actions == c.actions  # the teacher changes targets, not play
        np.testing.assert_array_equal(a.samples.policy, b.samples.policy)
        choices = a.samples.mask.sum(axis=1) > 1
        assert a.teacher_labels == choices.sum() > 0 and c.teacher_labels == 0
        labels = a.samples.policy[choices]
        assert np.all(labels.max(axis=1) == 1.0)  # one-hot: the teacher's one choice
        assert a.samples.mask[choices][np.arange(len(labels)), labels.argmax(axis=1)].all()
        assert not np.array_equal(labels, c.samples.policy[choices])
    # Network-vs-network games keep the search's targets.
    assert all(r.teacher_labels == 0 for r in play(3, 1.0, fraction=0.0))
    with pytest.raises(ValueError, match="teacher_share"):
        SelfPlayConfig(teacher_share=1.5)


def test_selfplay_records_do_not_depend_on_concurrency():
    seeds = [11, 12, 13, 14, 15]
    alone = race_selfplay(1).play(seeds)
    together = race_selfplay(4).play(seeds)
    for a, b in zip(alone, together, strict=True):
        assert a.seed == b.seed and a.actions == b.actions
        np.testing.assert_allclose(a.samples.policy, b.samples.policy)
        np.testing.assert_array_equal(a.samples.value, b.samples.value)


def test_selfplay_value_targets_are_the_outcome_from_each_movers_seat():
    record = race_selfplay(2).play([3])[0]
    assert record.outcome.sum() == pytest.approx(0.0) and record.outcome.max() == 1.0
    winner = int(np.argmax(record.outcome))
    # Relative seat 0 of each sample is the mover: +1 exactly on the winner's own moves.
    movers = [p % 3 for p in range(record.moves)]  # the race has no skipped turns
    for value, mover in zip(record.samples.value, movers, strict=True):
        assert value[0] == (1.0 if mover == winner else -0.5)
    assert np.allclose(record.samples.policy.sum(axis=1), 1.0)


def test_learner_fits_a_fixed_set_of_samples():
    worker = race_selfplay(4)
    samples = Samples.concat([r.samples for r in worker.play(list(range(8)))])
    buf = ReplayBuffer(1000, worker.encoder.shape, 3, 3)
    buf.add(samples)
    learner = Learner(worker.net, LearnerConfig(batch_size=32, lr=0.01, min_samples=1))
    rng = np.random.default_rng(0)
    before = learner.train(buf, 1, rng)
    after = learner.train(buf, 60, rng)
    assert after["loss/value"] < before["loss/value"]
    assert after["loss/total"] < before["loss/total"]


def test_checkpoint_is_written_atomically_and_validated(tmp_path):
    path = tmp_path / "ck.pt"
    payload = {"algo": "alphazero", "config": {}, "env_config": {"name": "blockade"},
               "model": {}, "acting": {}, "counters": {"iteration": 3}}
    save_checkpoint(path, payload)
    assert [p.name for p in tmp_path.iterdir()] == ["ck.pt"]  # no temp file left behind
    assert load_checkpoint(path)["counters"] == {"iteration": 3}
    with pytest.raises(CheckpointError, match="not found"):
        load_checkpoint(tmp_path / "missing.pt")
    data = path.read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(tmp_path / "cut.pt")
    (tmp_path / "noise.pt").write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(tmp_path / "noise.pt")
    torch.save({"weights": torch.zeros(3)}, tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match="not a boardgame-rl-checkpoint"):
        load_checkpoint(tmp_path / "foreign.pt")
    torch.save({**payload, "format": "boardgame-rl-checkpoint", "version": 99},
               tmp_path / "future.pt")
    with pytest.raises(CheckpointError, match="version 99"):
        load_checkpoint(tmp_path / "future.pt")


TINY_RUN = [
    "env.rows=8", "env.cols=8", "env.max_turns=40", "model=tiny", "logger=disabled",
    "runner=local",
    "algo.games_per_iteration=4", "algo.search.simulations=6", "algo.selfplay.max_moves=16",
    "algo.selfplay.concurrent_games=4", "algo.learner.min_samples=8",
    "algo.learner.batch_size=16", "algo.eval.every=0", "algo.eval.final_games=0",
    "algo.checkpoint.every=1", "algo.warm_start.games=0", "algo.time_limit_minutes=null",
]


def compose_config(tmp_path, overrides):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose("config", overrides=[*overrides, f"logger.dir={tmp_path}"])


def train_tiny(tmp_path, name, overrides):
    cfg = compose_config(tmp_path, TINY_RUN + overrides)
    return run(cfg, tmp_path / name, overrides=TINY_RUN + overrides)


SMALL_BUDGET = ["algo.selfplay.past_self_share=0.5", "algo.pool.snapshot_every=1",
                "algo.selfplay.opponent_share=0.4", "algo.selfplay.opponents=[heuristic,random]",
                "algo.rewards.search_value_weight=0.3",
                "algo.selfplay.teacher_games=all", "algo.selfplay.teacher_share=0.5",
                "algo.selfplay.teacher_fade=0.5"]


WORKERS = ["runner=processes", "runner.workers=2", *SMALL_BUDGET]


@pytest.mark.parametrize("techniques", [[], SMALL_BUDGET, WORKERS],
                         ids=["plain", "small-budget", "worker-processes"])
def test_resumed_run_matches_an_uninterrupted_one(tmp_path, techniques):
    """The small-budget techniques keep a run exact: the pool of past selves is in the
    checkpoint, the teacher's fade is a function of the progress, which opponent plays and how
    draw from each game's own generator; so do worker processes."""
    straight = train_tiny(tmp_path, "straight", [*techniques, "algo.iterations=2"])
    first = train_tiny(tmp_path, "first", [*techniques, "algo.iterations=1"])
    resumed = train_tiny(tmp_path, "resumed", [*techniques, "algo.iterations=2",
                                               f"resume={first.checkpoint}"])
    a, b = load_checkpoint(straight.checkpoint), load_checkpoint(resumed.checkpoint)
    assert a["counters"]["games"] == b["counters"]["games"] == 8
    for k, v in a["model"]["weights"].items():
        torch.testing.assert_close(v, b["model"]["weights"][k], rtol=0, atol=0)
    replay_a, replay_b = (load_replay(replay_path(r.checkpoint), 2)
                          for r in (straight, resumed))
    for k in ("obs", "policy", "value"):
        torch.testing.assert_close(replay_a[k], replay_b[k], rtol=0, atol=0)
    assert a["state"]["learner"]["steps"] == b["state"]["learner"]["steps"] > 0
    losses = [(h.get("loss/total"), h["selfplay/game_length"]) for h in a["history"]]
    assert losses == [(h.get("loss/total"), h["selfplay/game_length"]) for h in b["history"]]
    if techniques:
        assert [h["selfplay/teacher_share"] for h in a["history"]] == [0.5, 0.0]
        assert len(a["state"]["pool"]["snapshots"]) == 2
        assert sum(h["selfplay/past_self_games"] for h in a["history"]) > 0


def test_resume_refuses_another_game_or_network(tmp_path):
    first = train_tiny(tmp_path, "first", ["algo.iterations=1"])
    with pytest.raises(CheckpointError, match="different model"):
        train_tiny(tmp_path, "other", ["algo.iterations=2", f"resume={first.checkpoint}",
                                       "model.channels=12"])


def test_checkpoints_name_their_features_and_refuse_older_formats(tmp_path):
    """A run records ``auto`` as the feature names it stood for, so a later change of ``auto``
    cannot change a trained network's input; a file of an older format is refused with a clear
    error (no conversion of our own old files)."""

    result = train_tiny(tmp_path, "run", ["algo.iterations=1"])
    payload = load_checkpoint(result.checkpoint)
    assert payload["model"]["config"]["features"] == list(blockade.HOOKS.auto_features)
    assert payload["config"]["model"]["features"] == list(blockade.HOOKS.auto_features)
    torch.save({**payload, "version": 1}, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="format version 1, this code reads version 3"):
        load_checkpoint(tmp_path / "old.pt")


def test_tiny_run_trains_checkpoints_and_evaluates(tmp_path):
    result = train_tiny(tmp_path, "run", ["algo.iterations=2", "algo.eval.every=2",
                                          "algo.warm_start.games=2", "algo.warm_start.steps=3",
                                          "algo.warm_start.keep=true",
                                          "algo.warm_start.student_games=1",
                                          "algo.warm_start.student_steps=2",
                                          "algo.eval.games=2", "algo.eval.final_games=2",
                                          "algo.eval.final_opponents=[random]"])
    assert result.counters["iteration"] == 2 and result.counters["started"]
    replay = load_replay(replay_path(result.checkpoint), 2)
    assert 0 < replay["pinned"] < replay["size"]  # the teacher's samples, then self-play's
    assert "eval/random/win_rate" in result.history[-1]
    assert result.final_eval["random"].summaries[0].games == 2
    game = envs.make_game(load_checkpoint(result.checkpoint)["env_config"])
    state = game.new_initial_state()
    assert state.legal_actions_mask()[checkpoint_agent(result.checkpoint).act(state)]
    from agents import make_agent

    agent = make_agent(f"checkpoint:{result.checkpoint}", game)
    agent.reset(game, 0, seed=1)
    assert state.legal_actions_mask()[agent.act(state)]
    with pytest.raises(ValueError, match="trained with rows=8"):
        make_agent(f"checkpoint:{result.checkpoint}", blockade.Game())


FACTORY_ARGS = ({"name": "blockade", "rows": 8, "cols": 8, "max_turns": 20},
                ModelConfig(channels=4, blocks=1, hidden=8), SearchConfig(simulations=4),
                SelfPlayConfig(max_moves=12), RewardConfig())


def random_weights(factory, seed):
    torch.manual_seed(seed)
    return factory().net.state_dict()


def assert_same_games(records, expected):
    assert [r.seed for r in records] == [r.seed for r in expected]  # every game once, in order
    for a, b in zip(records, expected, strict=True):
        assert a.actions == b.actions
        np.testing.assert_allclose(a.samples.policy, b.samples.policy, atol=1e-6)


def test_process_runner_returns_the_same_records_as_the_local_one():
    """Round after round: the workers take up each round's weights."""
    from training.alphazero.algorithm import SelfPlayFactory
    from training.runner import RunnerConfig, make_runner

    factory = SelfPlayFactory(*FACTORY_ARGS)
    rounds = [Round(random_weights(factory, seed)) for seed in (0, 1)]
    seeds = [[5, 6, 7], [8, 9]]
    records = {}
    for name in ("local", "processes"):
        runner = make_runner(RunnerConfig(name=name, workers=2, torch_threads=1), factory)
        records[name] = []
        for selfplay_round, part in zip(rounds, seeds, strict=True):
            runner.start_round(selfplay_round)
            records[name].append(runner.play(part))
        runner.close()
    for a, b in zip(records["local"], records["processes"], strict=True):
        assert_same_games(b, a)


def test_a_dead_worker_process_is_replaced_and_its_games_replayed(tmp_path, capsys):
    """The worker dies: a new pool plays its lost chunk again (one restart, max_restarts=1),
    and the next items go to the new pool."""
    from training.alphazero.algorithm import SelfPlayFactory
    from training.runner import ProcessRunner, RunnerConfig, make_runner

    factory = SelfPlayFactory(*FACTORY_ARGS)
    weights = random_weights(factory, 0)
    seeds, more = [5, 6, 7, 8], [9, 10]
    local = make_runner(RunnerConfig(name="local"), factory)
    local.start_round(Round(weights))
    expected, expected_more = local.play(seeds), local.play(more)
    dying = partial(DyingWorker, factory, str(tmp_path / "died"), partial(is_seed, 7))
    runner = ProcessRunner(dying, workers=2, torch_threads=1, max_restarts=1)
    try:
        runner.start_round(Round(weights))
        records, records_more = runner.play(seeds), runner.play(more)
    finally:
        runner.close()
    assert runner.restarts == 1 and "a self-play worker died" in capsys.readouterr().out
    assert_same_games(records, expected)
    assert_same_games(records_more, expected_more)


def two_worker_runner():
    """A process runner of two self-play workers, its round started."""
    from training.alphazero.algorithm import SelfPlayFactory
    from training.runner import ProcessRunner

    factory = SelfPlayFactory(*FACTORY_ARGS)
    runner = ProcessRunner(factory, workers=2, torch_threads=1, max_restarts=0)
    runner.start_round(Round(random_weights(factory, 0)))
    return runner


def assert_close_ends_workers_at_once(runner):
    processes = list(runner.pool._processes.values())
    start = time.perf_counter()
    runner.close()
    assert time.perf_counter() - start < 5
    assert processes and not any(p.is_alive() for p in processes)


def test_closing_the_process_runner_ends_its_workers_at_once():
    runner = two_worker_runner()
    runner.play([1, 2])  # the workers are up
    assert_close_ends_workers_at_once(runner)
    runner.close()  # again: nothing left to do


def test_a_play_cut_short_leaves_busy_workers_that_closing_ends_at_once(monkeypatch):
    """Idle workers exit on their own at close (their exit handlers run); workers still playing
    the chunks of a play that Ctrl-C cut short are terminated, not waited for."""
    from concurrent.futures import Future

    runner = two_worker_runner()

    def ctrl_c(self, timeout=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(Future, "result", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        runner.play(list(range(4000)))  # minutes of games in two chunks
    monkeypatch.undo()
    assert_close_ends_workers_at_once(runner)


def test_warm_start_samples_carry_the_teachers_choices_and_the_outcome():
    from training.warmstart import WarmStartConfig, teacher_samples

    game = blockade.Game(rows=8, cols=8, max_turns=40)
    encoder = blockade.Encoder(game)
    samples = teacher_samples(game, encoder, WarmStartConfig(games=2), Outcomes(
        game, RewardConfig()), seed=0)
    assert len(samples) > 0
    assert np.all(samples.policy.sum(axis=1) == 1.0)
    chosen = samples.policy.argmax(axis=1)
    assert samples.mask[np.arange(len(samples)), chosen].all()  # labels are legal view actions
    # The heuristic beats random: the first game's winner is the teacher (seat 0, first mover).
    assert samples.value[0, 0] == 1.0


def test_student_games_record_the_students_positions_with_the_teachers_labels():
    from models.evaluator import ViewMaps
    from training.warmstart import WarmStartConfig, teacher_samples

    class FirstLegal:  # a poor student: the first legal action, always
        def __init__(self):
            self.moves = []

        def reset(self, game, player, seed):
            pass

        def act(self, state):
            action = int(np.flatnonzero(state.legal_actions_mask())[0])
            self.moves.append(action)
            return action

    game = blockade.Game(rows=8, cols=8, max_turns=40)
    encoder = blockade.Encoder(game)
    student = FirstLegal()
    samples = teacher_samples(game, encoder, WarmStartConfig(games=5, student_games=1),
                              Outcomes(game, RewardConfig()), seed=0, student=student)
    # One game, the student in seat 0: every recorded decision is one of its own.
    assert len(samples) == len(student.moves) > 0
    labels = samples.policy.argmax(axis=1)
    assert samples.mask[np.arange(len(samples)), labels].all()
    played = np.argsort(ViewMaps(encoder, 2).perms[0])[student.moves]
    # The teacher would not have played the student's moves; the labels are its own choices.
    assert (labels != played).mean() > 0.5
    assert samples.value[0, 0] <= RewardConfig().cap  # the student did not win; adjudicated


def test_random_opponent_games_record_only_the_network_seats():
    worker = race_selfplay(2)
    worker.config = SelfPlayConfig(concurrent_games=2, random_opponent_share=1.0)
    for record in worker.play([1, 2, 3]):
        assert record.random_seat is not None
        # Race turns rotate 0, 1, 2: the recorded samples are the other seats' moves only.
        assert len(record.samples) == record.moves - sum(
            1 for t in range(record.moves) if t % 3 == record.random_seat)


SMOKE = ["model=tiny", "logger=disabled", "algo.iterations=1", "algo.games_per_iteration=2",
         "algo.search.simulations=4", "algo.selfplay.max_moves=12", "algo.learner.min_samples=4",
         "algo.learner.batch_size=8", "algo.eval.enabled=false",
         "algo.warm_start.games=0"]


@pytest.mark.parametrize("env", [
    ["env=nobles", "env.num_players=3", "env.max_turns=30"],
    ["env=nobles", "env.num_players=4", "env.mode=brawl", "env.max_turns=30",
     "algo.search.chance=sample", "algo.search.root=puct"],
    ["env=barricade", "env.variant=intercept", "env.max_turns=20"],
    ["env=blockade", "env.num_players=3", "env.rows=8", "env.cols=8", "env.max_turns=30"],
], ids=["nobles-3", "nobles-4-brawl", "barricade", "blockade-3"])
def test_every_game_trains_and_its_checkpoint_plays(tmp_path, env):
    overrides = SMOKE + env
    result = run(compose_config(tmp_path, overrides), tmp_path / "run", overrides=overrides)
    agent = checkpoint_agent(result.checkpoint)
    state = envs.make_game(load_checkpoint(result.checkpoint)["env_config"]).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.legal_actions_mask()[agent.act(state)]


def test_the_trained_agent_plays_with_its_own_leaf_mix_and_self_play_keeps_the_searchs(
        tmp_path):
    overrides = [*SMOKE, "env=barricade", "env.max_turns=20", "algo.search.game_value_weight=0.5",
                 "algo.play_game_value_weight=0", "algo.eval.simulations=4"]
    result = run(compose_config(tmp_path, overrides), tmp_path / "run", overrides=overrides)
    payload = load_checkpoint(result.checkpoint)
    assert payload["config"]["algo"]["search"]["game_value_weight"] == 0.5  # self-play's
    assert payload["acting"]["search"]["game_value_weight"] == 0.0  # the agent's
    assert checkpoint_agent(result.checkpoint).acting.search.game_value_weight == 0.0


def test_barricade_cut_games_are_adjudicated_by_placed_scouts_and_progress():
    from envs import barricade

    game = barricade.Game()
    position = game.new_initial_state().to_dict()
    position["scouts"] = [[[13, 2], [6, 4], [1, 6]], [[12, 2], [13, 4], [13, 6]]]
    position["placed_order"] = [[0], []]
    state = game.state_from_dict(position)
    values = Outcomes(game, RewardConfig())(state)
    assert values[0] > 0 > values[1]  # 1 point + progress against 0.1 of progress


def test_position_weight_mixes_each_positions_race_lead_into_the_target():
    game = blockade.Game()
    outcomes = Outcomes(game, RewardConfig(position_weight=0.25))
    start = game.new_initial_state()
    position = start.to_dict()
    position["pawns"] = [[[9, 6], [10, 6]], [[11, 8], [10, 7]]]
    ahead = game.state_from_dict(position)
    leads = [outcomes.position_value(s) for s in (start, ahead)]
    np.testing.assert_allclose(leads[0], [0, 0])  # symmetric start: nobody leads
    assert leads[1][0] > 0.45  # the lead of 21 steps, tanh(21 / 6), times the default cap 0.5
    final = np.array([1.0, -1.0])
    targets = outcomes.targets(final, leads, [2, 1])
    np.testing.assert_allclose(targets[0], 0.75 * final)
    np.testing.assert_allclose(targets[1], 0.75 * final + 0.25 * leads[1])
    discounted = Outcomes(game, RewardConfig(position_weight=0.25, discount=0.9))
    targets = discounted.targets(final, leads, [2, 1])
    np.testing.assert_allclose(targets[0], 0.75 * 0.81 * final)  # 2 decisions from the end
    np.testing.assert_allclose(targets[1], 0.75 * 0.9 * final + 0.25 * leads[1])
    with pytest.raises(ValueError, match="rewards.discount"):
        RewardConfig(discount=1.5)
    assert Outcomes(game, RewardConfig()).position_value(ahead) is None
    with pytest.raises(ValueError, match="needs rewards.adjudication"):
        RewardConfig(adjudication="none", position_weight=0.5)


def test_policy_temperature_samples_legal_actions_reproducibly_and_zero_is_greedy():
    game = blockade.Game(rows=8, cols=8)
    encoder = blockade.Encoder(game)
    torch.manual_seed(0)
    net = build_network(encoder.shape, game.num_actions, 2,
                        ModelConfig(channels=4, blocks=0, hidden=8), action_layout(encoder))
    state = game.new_initial_state()
    legal = set(state.legal_actions())

    def plays(temperature, seed):
        agent = NetworkAgent(NetworkEvaluator(net.eval(), encoder, 2), Acting(0, temperature))
        agent.reset(game, 0, seed)
        return [agent.act(state) for _ in range(40)]

    greedy = plays(0.0, 1)
    assert len(set(greedy)) == 1 and greedy == plays(0.0, 2)
    sampled = plays(1.0, 1)
    assert set(sampled) <= legal and len(set(sampled)) > 1  # 21 legal moves, untrained net
    assert sampled == plays(1.0, 1) and sampled != plays(1.0, 2)
    assert set(plays(1e-6, 3)) == set(greedy)  # a low temperature approaches the argmax
    with pytest.raises(ValueError, match="eval.temperature"):
        TrainingEvalConfig(temperature=-1.0)
