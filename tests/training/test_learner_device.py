"""``runner.learner_device``: the learner trains a copy of the network on its device and the CPU
network gets the trained weights. No GPU here: the copy path runs with a CPU device (training as
the network itself, bit for bit), and asking for CUDA on this machine is one clear error."""

import copy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hydra import compose, initialize_config_dir

import training.algorithm
from models.checkpoint import load_checkpoint
from models.nets import ModelConfig, build_network
from training.device import DeviceCopy, learner_device
from training.launch import run
from training.learner import Learner, LearnerConfig
from training.replay import ReplayBuffer, Samples

ROOT = Path(__file__).resolve().parents[2]
CPU = torch.device("cpu")


def replay_of_random_samples(n=64, shape=(3, 4, 4), actions=6, players=2):
    r = np.random.default_rng(0)
    replay = ReplayBuffer(n, shape, actions, players)
    replay.add(Samples(r.random((n, *shape)).astype(np.float32), r.random((n, actions)) > 0.3,
                       r.random((n, actions)).astype(np.float32),
                       r.uniform(-1, 1, (n, players)).astype(np.float32)))
    return replay


def test_a_device_copy_trains_like_the_network_itself_and_syncs_back():
    torch.manual_seed(0)
    net = build_network((3, 4, 4), 6, 2, ModelConfig(channels=8, blocks=1, hidden=16))
    same = copy.deepcopy(net)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    replay, config = replay_of_random_samples(), LearnerConfig(batch_size=16, min_samples=1)
    device_copy = DeviceCopy(net, CPU)
    Learner(device_copy.trained, config).train(replay, 5, np.random.default_rng(1))
    assert all(torch.equal(v, before[k]) for k, v in net.state_dict().items())  # not yet
    device_copy.sync()
    Learner(same, config).train(replay, 5, np.random.default_rng(1))
    trained = net.state_dict()
    assert any(not torch.equal(v, before[k]) for k, v in trained.items())
    for k, v in same.state_dict().items():
        assert torch.equal(v, trained[k]) and trained[k].device == CPU, k


def test_learner_device_names():
    assert learner_device("cpu") == CPU
    assert learner_device("auto") == (torch.device("cuda", torch.cuda.current_device())
                                      if torch.cuda.is_available() else CPU)
    with pytest.raises(ValueError, match=r"runner.learner_device='gpu': must be cpu, cuda"):
        learner_device("gpu")


ALPHAZERO = ["env.rows=8", "env.cols=8", "env.max_turns=40", "model=tiny", "logger=disabled",
             "runner=local", "algo.games_per_iteration=4", "algo.search.simulations=6",
             "algo.selfplay.max_moves=16", "algo.learner.min_samples=8",
             "algo.learner.batch_size=16", "algo.eval.every=0", "algo.eval.final_games=0",
             "algo.warm_start.games=1", "algo.warm_start.steps=2",
             "algo.warm_start.student_games=1", "algo.warm_start.student_steps=2",
             "algo.time_limit_minutes=null"]
PPO = ["algo=ppo", "env.rows=8", "env.cols=8", "env.max_turns=12", "model=tiny",
       "logger=disabled", "algo.rollout.num_envs=4", "algo.rollout.num_steps=8",
       "algo.optim.minibatch_size=16", "algo.optim.update_epochs=2", "algo.eval.every=0",
       "algo.eval.final_games=0", "algo.warm_start.games=1", "algo.warm_start.steps=2",
       "algo.time_limit_minutes=null"]


def train(tmp_path, name, overrides):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, f"logger.dir={tmp_path}"])
    return run(cfg, tmp_path / name, overrides=overrides)


@pytest.mark.parametrize("overrides", [ALPHAZERO, PPO], ids=["alphazero", "ppo"])
def test_a_device_copy_trains_and_resumes_as_the_cpu_network(tmp_path, monkeypatch, capsys,
                                                              overrides):
    """The learner's copy (here on the CPU) gets the same weights as the network trained in
    place (warm start, iterations, resumed from a checkpoint): the CPU network is synced after
    every training call, the optimiser's state saved and restored with the copy."""
    straight = train(tmp_path, "straight", [*overrides, "algo.iterations=2",
                                            "runner.learner_device=auto"])
    assert "learner on cpu (runner.learner_device=auto)" in capsys.readouterr().out
    copies = []
    def device_copy(net, device):
        copies.append(DeviceCopy(net, device))
        return copies[-1]

    monkeypatch.setattr(training.algorithm, "learner_net", device_copy)
    first = train(tmp_path, "first", [*overrides, "algo.iterations=1"])
    resumed = train(tmp_path, "resumed", [*overrides, "algo.iterations=2",
                                          f"resume={first.checkpoint}"])
    assert len(copies) == 2 and all(c.trained is not c.net for c in copies)
    a, b = load_checkpoint(straight.checkpoint), load_checkpoint(resumed.checkpoint)
    assert a["counters"]["iteration"] == b["counters"]["iteration"] == 2
    for k, v in a["model"]["weights"].items():
        torch.testing.assert_close(v, b["model"]["weights"][k], rtol=0, atol=0)
    assert [h.get("loss/total") for h in a["history"]] == \
        [h.get("loss/total") for h in b["history"]]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_is_one_clear_line_before_any_work(tmp_path):
    folder = tmp_path / "run"
    done = subprocess.run([sys.executable, "train.py", "runner.learner_device=cuda",
                           f"hydra.run.dir={folder}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: config runner.learner_device='cuda': torch ")
    assert "sees no CUDA device; use cpu or auto" in lines[0]
    assert not folder.exists()
