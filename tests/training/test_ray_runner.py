"""runner=ray on a local Ray with 2 actors: the same records and checkpoints as runner=local,
dead actors replaced with their games replayed. One Ray for the module (starting one takes
seconds)."""

from functools import partial
from pathlib import Path

import dying_worker
import numpy as np
import pytest
import ray
import torch
from dying_worker import DyingWorker, is_seed
from hydra import compose, initialize_config_dir

from cluster import init_args
from models.checkpoint import load_checkpoint
from models.nets import ModelConfig
from search.puct import SearchConfig
from training.alphazero.algorithm import AlphaZero, SelfPlayFactory
from training.alphazero.selfplay import Round, SelfPlayConfig
from training.launch import run
from training.ray_runner import RayRunner
from training.rewards import RewardConfig
from training.runner import RunnerConfig, make_runner
from training.saving import load_replay, replay_path

ROOT = Path(__file__).resolve().parents[2]
RAY = RunnerConfig(name="ray", workers=2, torch_threads=1, games_per_task=1)
FACTORY = SelfPlayFactory({"name": "blockade", "rows": 8, "cols": 8, "max_turns": 20},
                          ModelConfig(channels=4, blocks=1, hidden=8), SearchConfig(simulations=4),
                          SelfPlayConfig(max_moves=12), RewardConfig())
SEEDS = [5, 6, 7, 8]
TINY_RUN = [
    "env.rows=8", "env.cols=8", "env.max_turns=40", "model=tiny", "logger=disabled",
    "algo.games_per_iteration=4", "algo.search.simulations=6", "algo.selfplay.max_moves=16",
    "algo.selfplay.concurrent_games=4", "algo.learner.min_samples=8",
    "algo.learner.batch_size=16", "algo.eval.every=0", "algo.eval.final_games=0",
    "algo.checkpoint.every=1", "algo.warm_start.games=0", "algo.time_limit_minutes=null",
]

ray.cloudpickle.register_pickle_by_value(dying_worker)  # to the actors, which lack tests/


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(**init_args(RAY.workers, RAY.address, RAY.cpus_per_worker, RAY.ship_code))
    yield
    ray.shutdown()


def random_weights(seed):
    torch.manual_seed(seed)
    return FACTORY().net.state_dict()


def local_records(weights, seeds=SEEDS):
    runner = make_runner(RunnerConfig(name="local"), FACTORY)
    runner.start_round(Round(weights))
    return runner.play(seeds)


def assert_same_games(records, expected):
    assert [r.seed for r in records] == [r.seed for r in expected]
    for a, b in zip(records, expected, strict=True):
        assert a.actions == b.actions and len(a.samples) == len(b.samples)
        np.testing.assert_allclose(a.samples.policy, b.samples.policy, atol=1e-6)
        np.testing.assert_array_equal(a.samples.obs, b.samples.obs)


def test_ray_actors_play_the_local_runners_games_and_follow_new_weights():
    runner = RayRunner(FACTORY, RAY)
    try:
        for seed in (0, 1):  # the second weights reach actors holding the first
            weights = random_weights(seed)
            runner.start_round(Round(weights))
            assert_same_games(runner.play(SEEDS), local_records(weights))
        assert runner.restarts == 0
    finally:
        runner.close()


def test_an_actor_dying_mid_task_is_replaced_and_its_games_replayed(tmp_path):
    lines = []
    runner = RayRunner(partial(DyingWorker, FACTORY, str(tmp_path / "died"),
                               partial(is_seed, SEEDS[1])), RAY, say=lines.append)
    try:
        weights = random_weights(0)
        runner.start_round(Round(weights))
        records = runner.play(SEEDS)
    finally:
        runner.close()
    assert runner.restarts == 1 and "worker 1 died" in lines[0], lines
    assert "replays its unfinished task" in lines[0]
    assert_same_games(records, local_records(weights))  # every game whole, none twice


def train_tiny(tmp_path, name, overrides):
    overrides = TINY_RUN + overrides
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, f"logger.dir={tmp_path}"])
    return run(cfg, tmp_path / name, overrides=overrides)


def test_a_ray_run_killed_midway_trains_and_resumes_as_a_local_run(tmp_path, monkeypatch):
    """An actor killed after iteration 1: a fresh one replays its tasks of iteration 2; the
    run resumes on Ray as a local run would."""
    iteration = AlphaZero.iteration

    def kill_an_actor_after_the_first(self, number, progress):
        stats = iteration(self, number, progress)
        if number == 1:
            ray.kill(self.runner.actors[0])
        return stats

    local = train_tiny(tmp_path, "local", ["runner=local", "algo.iterations=2"])
    monkeypatch.setattr(AlphaZero, "iteration", kill_an_actor_after_the_first)
    ray_run = train_tiny(tmp_path, "ray", ["runner=ray", "runner.games_per_task=1",
                                           "algo.iterations=2"])
    assert [h["runner/restarts"] for h in ray_run.history] == [0, 1]
    a, b = load_checkpoint(local.checkpoint), load_checkpoint(ray_run.checkpoint)
    assert a.keys() == b.keys() and a["model"].keys() == b["model"].keys()
    assert {**a["counters"], "seconds": 0} == {**b["counters"], "seconds": 0}
    assert b["counters"]["games"] == 8 and b["config"]["runner"]["name"] == "ray"
    # The first iteration's games (both runs start from the same weights) give the same
    # samples; the learned weights then differ in the last digits between the two runs (not
    # compared), and with them the later games.
    first = int(ray_run.history[0]["counters/samples"])
    replays = [load_replay(replay_path(r.checkpoint), 2) for r in (local, ray_run)]
    for key in ("obs", "mask", "policy"):
        torch.testing.assert_close(replays[1][key][:first], replays[0][key][:first])

    resumed = train_tiny(tmp_path, "resumed", ["runner=ray", "algo.iterations=3",
                                               f"resume={ray_run.checkpoint}"])
    assert resumed.counters["iteration"] == 3 and resumed.counters["games"] == 12
