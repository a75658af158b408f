"""PPO under runner=processes and runner=ray: with the same algo.rollout.shards, the same
training as runner=local (metrics and weights to the bit), also resumed from a checkpoint and
with a worker dying mid-run (its shards played again from their state)."""

from functools import partial
from pathlib import Path

import pytest
import torch
from dying_worker import DyingWorker, is_later_shard
from hydra import compose, initialize_config_dir

import training.ppo
from models.checkpoint import CheckpointError, load_checkpoint
from training.ppo import PPO
from training.rollout_shards import RolloutFactory
from training.run import run

ROOT = Path(__file__).resolve().parents[2]
# Games outlive the pool's snapshots (capacity 2, one a iteration): shards keep facing retired
# ones, which the rounds must carry.
TINY = ["algo=ppo", "env=blockade", "env.rows=8", "env.cols=8", "env.max_turns=30",
        "model.hidden=16", "logger=disabled", "algo.rollout.num_envs=4",
        "algo.rollout.num_steps=8", "algo.rollout.shards=2", "algo.optim.minibatch_size=16",
        "algo.optim.update_epochs=2", "algo.pool.snapshot_every=1", "algo.pool.capacity=2",
        "algo.pool.baselines=[random]", "algo.pool.baseline_fraction=0.3",
        "algo.checkpoint.every=1", "algo.eval.every=0", "algo.eval.final_games=0",
        "algo.warm_start.games=0", "algo.time_limit_minutes=null", "algo.iterations=3"]
TIMING = ("rollout/agent_steps_per_s", "rollout/seconds", "learner/samples_per_s",
          "time/minutes", "runner/restarts")


def train(tmp_path, name, overrides):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[*TINY, *overrides, f"logger.dir={tmp_path}"])
    return run(cfg, tmp_path / name, overrides=[*TINY, *overrides])


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    result = train(tmp_path_factory.mktemp("local"), "local", ["runner=local"])
    assert load_checkpoint(result.checkpoint)["state"]["retired"], "no retired snapshot faced"
    return result


def assert_same_training(result, expected):
    a, b = load_checkpoint(result.checkpoint), load_checkpoint(expected.checkpoint)
    for key, value in b["model"]["weights"].items():
        torch.testing.assert_close(a["model"]["weights"][key], value, rtol=0, atol=0)
    assert [{k: v for k, v in h.items() if k not in TIMING} for h in a["history"]] == \
        [{k: v for k, v in h.items() if k not in TIMING} for h in b["history"]]
    assert a["state"]["shards"] == b["state"]["shards"]  # the games in flight and generators
    assert a["state"]["pool"]["snapshots"][-1]["score"] == b["state"]["pool"]["snapshots"][-1][
        "score"]


def test_worker_processes_resume_and_train_as_local_and_a_dead_one_is_replaced(
        local, tmp_path, monkeypatch, capsys):
    """Stopped after iteration 1 (a time limit), resumed under worker processes; there shard
    1's process dies in iteration 2, and a new pool plays the shard again from the state it was
    sent with (no worker holds it in memory any more). One test: worker processes take seconds
    to start."""
    first = train(tmp_path, "first", ["runner=local", "algo.time_limit_minutes=1e-9"])
    assert first.counters["iteration"] == 1

    def dying_factory(*args):
        return partial(DyingWorker, RolloutFactory(*args), str(tmp_path / "died"),
                       partial(is_later_shard, 1))

    monkeypatch.setattr(training.ppo, "RolloutFactory", dying_factory)
    resumed = train(tmp_path, "resumed", ["runner=processes", "runner.workers=2",
                                          "algo.time_limit_minutes=null",
                                          f"resume={first.checkpoint}"])
    assert "a self-play worker died" in capsys.readouterr().out
    assert [h["runner/restarts"] for h in resumed.history] == [0, 1, 1]
    assert_same_training(resumed, local)
    monkeypatch.undo()
    with pytest.raises(CheckpointError, match=r"holds \[2, 2\] games per shard"):
        train(tmp_path, "reshard", ["runner=local", f"resume={resumed.checkpoint}",
                                    "algo.rollout.shards=4", "algo.iterations=4"])


def test_ray_actors_train_as_local_and_a_killed_one_is_replaced(local, tmp_path, monkeypatch):
    """Actor 0, killed after iteration 1, held shard 0 in memory: its replacement rebuilds it."""
    import ray

    iteration = PPO.iteration

    def kill_an_actor_after_the_first(self, number, progress):
        stats = iteration(self, number, progress)
        if number == 1:
            ray.kill(self.runner.actors[0])
        return stats

    monkeypatch.setattr(PPO, "iteration", kill_an_actor_after_the_first)
    result = train(tmp_path, "ray", ["runner=ray", "runner.workers=2"])
    assert [h["runner/restarts"] for h in result.history] == [0, 1, 1]
    assert_same_training(result, local)


def test_a_checkpoint_of_the_unsharded_layout_is_refused(local, tmp_path):
    payload = load_checkpoint(local.checkpoint)
    payload["state"] = {k: v for k, v in payload["state"].items() if k != "version"}
    old = tmp_path / "old.pt"
    torch.save(payload, old)
    with pytest.raises(CheckpointError, match="layout version 1, this code reads version 2"):
        train(tmp_path, "old", [f"resume={old}", "algo.iterations=4"])
