"""PPO's rollout shards on any runner: a shard plays the same whichever worker plays it (beside
other shards or alone, held in memory or rebuilt from its state), so runner=processes and
runner=ray train as runner=local with the same algo.rollout.shards (metrics and weights to the
bit), also resumed from a checkpoint and with a worker dying mid-run."""

from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch
from dying_worker import DyingWorker, is_later_shard
from hydra import compose, initialize_config_dir

import training.ppo.algorithm
from models.checkpoint import CheckpointError, load_checkpoint
from models.nets import ModelConfig
from training.launch import run
from training.pool import OpponentPool, PoolConfig
from training.ppo import PPO
from training.ppo.rollout import RolloutConfig
from training.ppo.shaping import ShapingConfig
from training.ppo.shards import RolloutFactory, RolloutRound, new_shard
from training.rewards import RewardConfig

ROOT = Path(__file__).resolve().parents[2]
# Blockade games outlive the pool's snapshots (capacity 2, one an iteration): the shards go on
# facing retired ones, which the rounds and checkpoints must carry. A constant learning rate: a
# run of 2 iterations resumed to 3 is the run of 3.
TINY = ["algo=ppo", "env=blockade", "env.rows=8", "env.cols=8", "env.max_turns=30",
        "model.hidden=16", "logger=disabled", "algo.rollout.num_envs=4",
        "algo.rollout.num_steps=8", "algo.rollout.shards=2", "algo.optim.minibatch_size=16",
        "algo.optim.update_epochs=2", "algo.optim.anneal_lr=false",
        "algo.pool.snapshot_every=1", "algo.pool.capacity=2", "algo.pool.baselines=[random]",
        "algo.pool.baseline_share=0.3", "algo.checkpoint.every=1", "algo.eval.every=0",
        "algo.eval.final_games=0", "algo.warm_start.games=0", "algo.time_limit_minutes=null",
        "algo.iterations=3"]
TIMING = ("rollout/agent_steps_per_s", "rollout/seconds", "learner/samples_per_s",
          "time/minutes", "runner/restarts")


# -- one worker, several shards --------------------------------------------------------------

POOL = PoolConfig(scheme="prioritised", capacity=3, score_decay=0.5)
RACE = RolloutFactory({"name": "tiny_race", "length": 4, "max_turns": 12},
                      ModelConfig(kind="mlp", hidden=8, blocks=1),
                      RolloutConfig(num_envs=8, num_steps=12, shards=2), POOL,
                      RewardConfig(adjudication="none"), ShapingConfig(potential="none"),
                      0.99, 0.95)


def random_weights() -> dict:
    return RACE().net.state_dict()


def assert_same_results(a, b):
    assert a.state == b.state and a.episodes == b.episodes
    for field in ("obs", "action", "logp", "advantages", "returns"):
        np.testing.assert_array_equal(getattr(a.transitions, field),
                                      getattr(b.transitions, field))


def test_a_shard_plays_the_same_with_or_without_another_and_from_memory_or_its_state():
    """Each shard draws opponents from its own copy of the pool (three random snapshots whose
    scores its games move); a worker that holds a shard plays on as one that rebuilds it."""
    torch.manual_seed(0)
    pool = OpponentPool(POOL)
    for i in range(3):
        pool.add(random_weights(), i)
    first = RolloutRound(random_weights(), pool.state_dict(), {})
    shards = [new_shard(0, i) for i in range(2)]
    both, alone = RACE(), RACE()
    both.start_round(first)
    alone.start_round(first)
    together = both.play(shards)
    assert together[0].episodes and together[1].episodes  # results were recorded
    assert_same_results(alone.play(shards[1:])[0], together[1])
    # The next round: three new snapshots push the others out, which the games still face.
    dropped = [e for i in range(3) for e in pool.add(random_weights(), 3 + i)]
    second = RolloutRound(random_weights(), pool.state_dict(),
                          {e.key: e.weights for e in dropped})
    states = [r.state for r in together]
    assert {g["opponent"] for state in states for g in state["games"]} <= set(second.retired)
    fresh = RACE()
    for worker in (both, fresh):
        worker.start_round(second)
    for a, b in zip(both.play(states), fresh.play(states), strict=True):
        assert_same_results(a, b)


# -- whole runs ----------------------------------------------------------------------------------


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

    def scores(payload):
        return [(e["key"], e["score"], e["games"]) for e in payload["state"]["pool"]["snapshots"]]

    assert scores(a) == scores(b)


def test_worker_processes_resume_and_train_as_local_and_a_dead_one_is_replaced(
        local, tmp_path, monkeypatch, capsys):
    """Stopped after iteration 2 (with games facing a retired snapshot), resumed under worker
    processes; there shard 1's process dies in iteration 3, and a new pool plays the shard again
    from the state it was sent with. One test: worker processes take seconds to start."""
    first = train(tmp_path, "first", ["runner=local", "algo.iterations=2"])
    assert load_checkpoint(first.checkpoint)["state"]["retired"]

    def dying_factory(*args):
        return partial(DyingWorker, RolloutFactory(*args), str(tmp_path / "died"),
                       partial(is_later_shard, 1))

    monkeypatch.setattr(training.ppo.algorithm, "RolloutFactory", dying_factory)
    resumed = train(tmp_path, "resumed", ["runner=processes", "runner.workers=2",
                                          "algo.iterations=3", f"resume={first.checkpoint}"])
    assert "a self-play worker died" in capsys.readouterr().out
    assert [h["runner/restarts"] for h in resumed.history] == [0, 0, 1]
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
