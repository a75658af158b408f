"""Exported policies: ONNX and TorchScript graphs match the PyTorch network on real positions of
every game and player count, the greedy graph only plays legal moves, the metadata describes
the files, wrong files fail on load with one clear line, ``onnx:PATH`` agents play like their
checkpoint, and the ONNX runner works in a process where torch cannot be imported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import onnx
import pytest
import torch
from policy_files import (
    GAME_CONFIGS,
    ROOT,
    config_id,
    copy_exported,
    exported,
    random_positions,
    sidecar,
    tiny_checkpoint,
)

import envs
from agents import make_agent, parse_spec
from agents.network import NetworkAgent
from agents.onnx_file import OnnxNetwork
from arena.match import play_match
from models.checkpoint import build_model, load_checkpoint
from models.export import ExportConfig, training_command
from models.features import make_encoder
from models.policy_file import FORMAT, METADATA_KEY, TORCHSCRIPT_METADATA, PolicyFileError

POSITIONS = 200
TOLERANCE = 1e-5


def load_torchscript(path):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*torch\.jit.*deprecated", category=Warning)
        extra = {TORCHSCRIPT_METADATA: ""}
        module = torch.jit.load(str(path), _extra_files=extra)
    return module, json.loads(extra[TORCHSCRIPT_METADATA])


@pytest.fixture(scope="module", params=GAME_CONFIGS, ids=config_id)
def case(request):
    """One game config's exported files, its PyTorch network, and real positions with their
    observations, masks and movers."""
    env_config = request.param
    files = exported(env_config)
    payload = load_checkpoint(files["checkpoint"])
    game = envs.make_game(env_config)
    encoder = make_encoder(game, payload["model"]["config"]["features"])
    states = random_positions(game, POSITIONS, seed=1)
    players = np.array([s.current_player() for s in states])
    return {"files": files, "game": game, "net": build_model(payload["model"]),
            "states": states, "players": players,
            "obs": np.stack([encoder.encode(s, p) for s, p in zip(states, players, strict=True)]),
            "masks": np.stack([s.legal_actions_mask() for s in states]).astype(np.int8)}


def test_onnx_and_torchscript_match_pytorch_on_real_positions(case):
    with torch.no_grad():
        expected = [t.numpy() for t in case["net"](torch.from_numpy(case["obs"]))]
    network = OnnxNetwork(case["files"]["network.onnx"])
    scripted, _ = load_torchscript(case["files"]["network.torchscript"])
    with torch.no_grad():
        from_torchscript = [t.numpy() for t in scripted(torch.from_numpy(case["obs"]))]
    for outputs in (network.network(case["obs"]), from_torchscript):
        for got, want in zip(outputs, expected, strict=True):
            assert got.shape == want.shape
            assert np.abs(got - want).max() <= TOLERANCE


def test_greedy_graph_plays_the_best_legal_action(case):
    """Against the PyTorch network's logits mapped to board actions by the encoder's
    permutation: the same action wherever the best two legal logits are not a near tie, and a
    legal one everywhere."""
    import onnxruntime as ort

    evaluator_maps = OnnxNetwork(case["files"]["network.onnx"]).maps
    with torch.no_grad():
        logits = case["net"](torch.from_numpy(case["obs"]))[0].numpy()
    board = evaluator_maps.logits_to_board(logits, case["players"])
    masked = np.where(case["masks"] > 0, board, -np.inf)
    best = masked.argmax(axis=1)
    top2 = np.sort(masked, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-4
    inputs = {"observation": case["obs"], "action_mask": case["masks"],
              "player": case["players"].astype(np.int64)}
    session = ort.InferenceSession(str(case["files"]["greedy.onnx"]))
    from_onnx = session.run(["action"], inputs)[0]
    scripted, _ = load_torchscript(case["files"]["greedy.torchscript"])
    with torch.no_grad():
        from_torchscript = scripted(*(torch.from_numpy(v) for v in inputs.values())).numpy()
    for actions in (from_onnx, from_torchscript):
        assert actions.shape == (POSITIONS,)
        assert case["masks"][np.arange(POSITIONS), actions].all()
        assert (actions[clear] == best[clear]).all()


def test_metadata_is_embedded_in_every_file_and_describes_the_game(case):
    files, game = case["files"], case["game"]
    side = sidecar(files)
    assert side["format"] == FORMAT and side["game"] == game.name
    assert side["num_actions"] == game.num_actions and side["num_players"] == game.num_players
    assert side["observation"] == {"shape": list(case["obs"].shape[1:]), "dtype": "float32"}
    assert np.array_equal(side["actions"]["view_to_board"],
                          OnnxNetwork(files["network.onnx"]).maps.perms)
    assert len(side["values"]["layout"]) == game.num_players
    assert side["training"]["figures"] == {"iteration": 0, "eval/random/win_rate": 0.5}
    assert set(side["files"]) == {"network.onnx", "greedy.onnx", "network.torchscript",
                                  "greedy.torchscript"}
    assert all((files["metadata"].parent / name).is_file() for name in side["files"].values())
    expected = {k: v for k, v in side.items() if k != "files"}
    for graph in ("network", "greedy"):
        model = onnx.load(str(files[f"{graph}.onnx"]))
        props = {p.key: p.value for p in model.metadata_props}
        assert json.loads(props[METADATA_KEY]) == {**expected, "graph": graph}
        assert model.opset_import[0].version == ExportConfig("x").opset
        assert load_torchscript(files[f"{graph}.torchscript"])[1] == {**expected, "graph": graph}


def test_encoder_and_features_are_named():
    side = sidecar(exported(GAME_CONFIGS[0]))
    assert side["encoder"]["name"] == "blockade+goal_steps"
    assert side["encoder"]["versions"] == {"blockade": 1, "goal_steps": 1}
    assert sidecar(exported({"name": "nobles", "num_players": 2}))["encoder"]["name"] == "nobles"


def test_training_command_comes_from_the_run_folder(tmp_path):
    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    (run / ".hydra" / "overrides.yaml").write_text("- env=nobles\n- algo.iterations=3\n")
    assert training_command(run / "checkpoints" / "last.pt") == (
        "python train.py env=nobles algo.iterations=3")
    assert training_command(tmp_path / "elsewhere.pt") is None


NOBLES = {"name": "nobles", "num_players": 2}


def games_of(spec: str, seed: int) -> list:
    """Each game's returns and actions, 4 games of ``spec`` against random on Nobles 2p."""
    match = play_match(NOBLES, [spec, "random"], 4, seed=seed, record=True)
    return [(g.returns, r.actions) for g, r in zip(match.games, match.records, strict=True)]


def test_onnx_agent_plays_exactly_like_its_checkpoint():
    """Same seeds, same sampled moves (temperature 0.5 from the checkpoint's policy): the
    outputs agree to 1e-6, far too close to change a draw."""
    files = exported(NOBLES)
    assert (games_of(f"checkpoint:{files['checkpoint']}", seed=3)
            == games_of(f"onnx:{files['network.onnx']}", seed=3))


def test_onnx_agent_options_and_search():
    files = exported(NOBLES)
    game = envs.make_game(NOBLES)
    agent = make_agent(f"onnx:{files['network.onnx']}:sims=8,temperature=0", game)
    assert isinstance(agent, NetworkAgent)
    assert (agent.acting.simulations, agent.acting.temperature) == (8, 0.0)
    assert agent.acting.search.root == "gumbel"  # the checkpoint's search settings
    result = play_match(NOBLES, [agent, "random"], 2, seed=0)
    assert sum(s.games for s in result.summaries) == 4  # legal moves only, or it raises
    with pytest.raises(ValueError, match="unknown onnx agent option.*valid: sims"):
        make_agent(f"onnx:{files['network.onnx']}:depth=3", game)


def test_checkpoint_agent_searches_with_options_like_its_onnx_file():
    """``checkpoint:PATH:sims=8`` overrides the checkpoint's own way of playing, as
    ``onnx:PATH:sims=8`` does its file's: the same 8-simulation searches, the same games."""
    files = exported(NOBLES)
    game = envs.make_game(NOBLES)
    agent = make_agent(f"checkpoint:{files['checkpoint']}:sims=8,temperature=0", game)
    assert (agent.acting.simulations, agent.acting.temperature) == (8, 0.0)
    assert agent.acting.search.root == "gumbel"  # the checkpoint's search settings
    assert (games_of(f"checkpoint:{files['checkpoint']}:sims=8", seed=5)
            == games_of(f"onnx:{files['network.onnx']}:sims=8", seed=5))
    with pytest.raises(ValueError, match="unknown checkpoint agent option.*valid: sims"):
        make_agent(f"checkpoint:{files['checkpoint']}:depth=3", game)
    with pytest.raises(ValueError, match=r"checkpoint agent.sims=-1: must be an integer"):
        make_agent(f"checkpoint:{files['checkpoint']}:sims=-1", game)


@pytest.mark.parametrize("kind", ["onnx", "checkpoint"])
def test_network_file_spec_parsing(kind):
    assert parse_spec(f"{kind}:runs/a.x") == (kind, {"path": "runs/a.x"})
    assert parse_spec(f"{kind}:runs/a.x:sims=200,temperature=0") == (
        kind, {"path": "runs/a.x", "sims": 200, "temperature": 0})
    with pytest.raises(ValueError, match=f"{kind} agent needs a path"):
        parse_spec(f"{kind}:")


@pytest.fixture
def nobles_files(tmp_path):
    return copy_exported(NOBLES, tmp_path)


def rewrite_metadata(path, change):
    model = onnx.load(str(path))
    entry = next(p for p in model.metadata_props if p.key == METADATA_KEY)
    metadata = json.loads(entry.value)
    change(metadata)
    entry.value = json.dumps(metadata)
    onnx.save(model, str(path))


def test_wrong_files_fail_on_load_with_one_clear_line(nobles_files, tmp_path, monkeypatch):
    nobles = envs.make_game(NOBLES)
    path = nobles_files["network.onnx"]

    def refused(spec_path, game, message):
        with pytest.raises(PolicyFileError, match=message) as error:
            make_agent(f"onnx:{spec_path}", game)
        assert "\n" not in str(error.value)

    refused(tmp_path / "none.onnx", nobles, "policy file not found")
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(path.read_bytes()[:500])
    refused(corrupt, nobles, "is corrupt or not an ONNX file")
    bare = onnx.load(str(path))
    del bare.metadata_props[:]
    onnx.save(bare, str(tmp_path / "bare.onnx"))
    refused(tmp_path / "bare.onnx", nobles, "is not a boardgame-rl-policy file")
    refused(nobles_files["greedy.onnx"], nobles, "holds the greedy graph, not the network")
    refused(path, envs.make_game({"name": "blockade"}), "trained on 'nobles', not 'blockade'")
    refused(path, envs.make_game({"name": "nobles", "num_players": 4}),
            "trained with num_players=2 but the game has num_players=4")
    refused(path, envs.make_game({"name": "nobles", "mode": "brawl"}),
            "trained with mode='journey' but the game has mode='brawl'")

    rewrite_metadata(path, lambda m: m["encoder"]["versions"].update(nobles=0))
    refused(path, nobles, "exported with nobles encoder version 0, this code encodes version 1")


def test_an_encoder_changed_since_export_fails_on_load(nobles_files, monkeypatch):
    """Nobody bumped the version, but the observations differ: the self-check catches it."""
    import envs.nobles.encoder as encoder_module

    encode = encoder_module.Encoder.encode
    monkeypatch.setattr(encoder_module.Encoder, "encode",
                        lambda self, state, player: encode(self, state, player) * 0.5)
    with pytest.raises(PolicyFileError, match="encodes nobles observations differently"):
        OnnxNetwork(nobles_files["network.onnx"])


def test_export_cli_writes_torchscript_and_refuses_a_bad_checkpoint(tmp_path):
    checkpoint = tiny_checkpoint(tmp_path / "run" / "checkpoints" / "last.pt", NOBLES)
    done = subprocess.run([sys.executable, "export.py", f"checkpoint={checkpoint}",
                           "format=torchscript", "name=mine"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = checkpoint.parent / "export"
    assert sorted(p.name for p in out.iterdir()) == [
        "mine.greedy.torchscript.pt", "mine.json", "mine.torchscript.pt"]
    assert not (ROOT / ".hydra").exists()
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"no checkpoint here")
    done = subprocess.run([sys.executable, "export.py", f"checkpoint={bad}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error: checkpoint {bad} is corrupt or not a checkpoint (")
    assert not (tmp_path / "export").exists()


def test_bad_export_settings_are_refused():
    with pytest.raises(ValueError, match="format must be one of onnx, torchscript, both"):
        ExportConfig("last.pt", format="tflite")
    with pytest.raises(ValueError, match="reference_positions must be at least 2"):
        ExportConfig("last.pt", reference_positions=1)


TORCH_FREE = textwrap.dedent("""
    import sys

    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "training"):
                raise ImportError(f"{name} is blocked in this test")

    sys.meta_path.insert(0, NoTorch())
    from agents import make_agent
    from arena.match import play_match
    from agents.onnx_file import OnnxNetwork

    path = sys.argv[1]
    network = OnnxNetwork(path)
    env = network.env()
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        seat = env.possible_agents.index(agent)
        env.step(None if terminated or truncated else network.action(obs, seat, 0.5))
    assert env.unwrapped.game_state.is_terminal()
    match = play_match(network.metadata["env_config"], [f"onnx:{path}:sims=4", "random"], 2, 0)
    assert "torch" not in sys.modules and "onnxruntime" in sys.modules
    print("played without torch")
""")


@pytest.mark.parametrize("env_config", [GAME_CONFIGS[0], NOBLES], ids=config_id)
def test_the_onnx_runner_needs_no_torch(env_config):
    done = subprocess.run([sys.executable, "-c", TORCH_FREE,
                           str(exported(env_config)["network.onnx"])],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "played without torch" in done.stdout


def test_encoder_versions_come_from_the_game_and_a_bump_refuses_older_files(nobles_files,
                                                                           monkeypatch):
    """Each game states its encoder's and features' versions in its hooks (a part it does not
    list is version 1, so a new game exports without an edit elsewhere); bumping one makes the
    files exported before refuse to load."""
    import dataclasses

    import envs.nobles
    from models.policy_file import encoder_versions

    assert encoder_versions(envs.make_game(NOBLES)) == {"nobles": 1, "capture_odds": 1,
                                                        "standing": 1}
    bumped = dataclasses.replace(envs.nobles.HOOKS, encoder_versions={"nobles": 2})
    monkeypatch.setattr(envs.nobles, "HOOKS", bumped)
    assert encoder_versions(envs.make_game(NOBLES)) == {"nobles": 2, "capture_odds": 1,
                                                        "standing": 1}
    with pytest.raises(PolicyFileError, match="nobles encoder version 1, this code encodes "
                                              "version 2"):
        OnnxNetwork(nobles_files["network.onnx"])
