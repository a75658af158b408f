"""The pretrained zoo: ``export.py zoo=NAME`` writes an entry (ONNX network and metadata) from a
run's checkpoint, ``zoo:NAME`` plays in evaluate.py, play.py and every agent spec, an agent of
another game or an unknown name fails with one line saying what is there, and the entries are
package data of the installed project. The zoo is a temporary folder ($BOARDGAME_RL_ZOO) holding
an entry made from a tiny untrained checkpoint, so no binary fixture is committed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest
import yaml
from policy_files import ROOT, tiny_checkpoint

import envs
import zoo
from agents import make_agent, parse_spec
from arena.match import play_match
from zoo import ZOO_ENV

NOBLES = {"name": "nobles", "num_players": 2}
OVERRIDES = ["algo=ppo", "env=nobles", "seed=3"]
FINAL = {"iteration": 7, "minutes": 3.1, "games": 200, "seed": 12346, "opponents": ["random"],
         "date": "2026-12-01",
         "metrics": {"final/random/win_rate": 0.9, "final/random/win_low": 0.85,
                     "final/random/win_high": 0.94, "final/random/win_share": 0.9,
                     "final/random/shared_rate": 0.0, "final/random/draw_rate": 0.05}}


def test_final_figure_reads_back_shared_first_places_or_refuses_to_guess():
    """A 4-seat final evaluation: 2 wins alone and 1 first place shared by two (win share
    2.5/200, its interval the share's, not the logged win rate's); without the shared rate only
    a win share equal to the win rate is readable."""
    key, metrics = "final/zoo:nobles_4p", {"final/zoo:nobles_4p/win_rate": 0.01,
                                           "final/zoo:nobles_4p/win_share": 0.0125,
                                           "final/zoo:nobles_4p/shared_rate": 0.005,
                                           "final/zoo:nobles_4p/share_low": 0.004,
                                           "final/zoo:nobles_4p/share_high": 0.036,
                                           "final/zoo:nobles_4p/draw_rate": 0.0}
    figure = zoo.final_figure(metrics, key, 200)
    assert figure == {"games": 200, "wins": 2, "shared": 1, "draws": 0, "losses": 197,
                      "score": 0.0125, "low": 0.004, "high": 0.036}
    del metrics[f"{key}/share_low"]
    with pytest.raises(ValueError, match="a win share without its interval"):
        zoo.final_figure(metrics, key, 200)
    metrics[f"{key}/share_low"] = 0.004
    del metrics[f"{key}/shared_rate"]
    with pytest.raises(ValueError, match="shared first places without their count"):
        zoo.final_figure(metrics, key, 200)
    metrics[f"{key}/win_share"] = 0.01
    assert zoo.final_figure(metrics, key, 200)["shared"] == 0


def export_cli(*overrides, zoo_root: Path):
    return subprocess.run([sys.executable, "export.py", *overrides], cwd=ROOT,
                          env={**os.environ, ZOO_ENV: str(zoo_root)},
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def zoo_root(tmp_path_factory) -> Path:
    """A zoo holding ``nobles_2p``, added by the command line from a checkpoint in a run folder
    (with the Hydra overrides and the final evaluation a training run leaves there)."""
    run = tmp_path_factory.mktemp("run")
    checkpoint = tiny_checkpoint(run / "checkpoints" / "last.pt", NOBLES)
    (run / ".hydra").mkdir()
    (run / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(OVERRIDES))
    (run / "final_evaluation.json").write_text(json.dumps(FINAL))
    root = tmp_path_factory.mktemp("zoo")
    done = export_cli(f"checkpoint={checkpoint}", "zoo=nobles_2p", zoo_root=root)
    assert done.returncode == 0, done.stderr
    assert str(root / "nobles_2p" / "policy.onnx") in done.stdout
    return root


@pytest.fixture
def in_zoo(zoo_root, monkeypatch) -> Path:
    monkeypatch.setenv(ZOO_ENV, str(zoo_root))
    return zoo_root


def test_an_entry_holds_the_network_and_what_a_user_needs_to_know(in_zoo):
    entry = zoo.metadata("nobles_2p")
    assert (in_zoo / "nobles_2p" / entry["files"]["policy"]).is_file()
    assert entry["game"] == "nobles" and entry["num_players"] == 2
    assert entry["env_config"]["name"] == "nobles" and entry["env_config"]["num_players"] == 2
    assert entry["network"]["parameters"] > 0 and entry["network"]["encoder"].startswith("nobles")
    assert entry["training"]["command"] == "python train.py " + " ".join(OVERRIDES)
    [figure] = entry["figures"]  # the run's final evaluation, as a record docs/generate.py reads
    assert (figure["measure"], figure["agent"], figure["opponent"]) == (
        "vs random", "zoo:nobles_2p", "random")
    assert (figure["wins"], figure["draws"], figure["losses"], figure["games"]) == (180, 10, 10,
                                                                                    200)
    assert (figure["score"], figure["low"], figure["high"], figure["seed"]) == (0.9, 0.85, 0.94,
                                                                               12346)
    assert figure["date"] == "2026-12-01"
    assert entry["policy"]["temperature"] == 0.5  # how the run's evaluation played it
    assert entry["added"]["commit"]


def test_an_entry_is_never_overwritten_and_names_are_checked(in_zoo):
    from models.export import ExportConfig

    before = {p.name: p.stat().st_mtime_ns for p in (in_zoo / "nobles_2p").iterdir()}
    with pytest.raises(ValueError, match=r"^zoo agent 'nobles_2p' exists already \("
                                         r".*; remove that folder to replace it"):
        zoo.add(ExportConfig("unused.pt", zoo="nobles_2p"))
    assert {p.name: p.stat().st_mtime_ns for p in (in_zoo / "nobles_2p").iterdir()} == before
    with pytest.raises(ValueError, match="zoo name 'Nobles:2p' must be lower-case"):
        zoo.add(ExportConfig("unused.pt", zoo="Nobles:2p"))
    with pytest.raises(ValueError, match="zoo=NAME writes .*: drop out_dir and name"):
        ExportConfig("unused.pt", zoo="nobles_2p", out_dir="somewhere")


def test_a_zoo_agent_plays_through_any_agent_spec(in_zoo):
    assert parse_spec("zoo:nobles_2p:sims=2,temperature=0") == (
        "zoo", {"sims": 2, "temperature": 0, "name": "nobles_2p"})
    game = envs.make_game(NOBLES)
    agent = make_agent("zoo:nobles_2p:sims=2", game)
    assert agent.acting.simulations == 2
    result = play_match(NOBLES, [agent, "random"], 2, seed=0)
    assert len(result.games) == 2 and all(g.moves[0] > 0 for g in result.games)


def test_how_an_entry_plays_is_set_by_export_and_changed_without_a_checkpoint(zoo_root, tmp_path,
                                                                            monkeypatch):
    """``play={...}`` sets the policy a new entry plays by; ``zoo=NAME play={...}`` alone changes
    an existing entry's: the policy inside policy.onnx (what the agent reads) and
    metadata.json's copy together, the network and the rest of the metadata kept. A wrong
    option is one line and leaves the files as they were."""
    import onnx

    from agents.network import Acting

    root = tmp_path / "zoo"
    shutil.copytree(zoo_root, root)
    monkeypatch.setenv(ZOO_ENV, str(root))
    folder, game = root / "nobles_2p", envs.make_game(NOBLES)
    before = zoo.metadata("nobles_2p")
    graph = onnx.load(folder / zoo.POLICY_FILE).graph
    done = export_cli("zoo=nobles_2p", "play={sims: 3, temperature: 0, game_value_weight: 0.5}",
                      zoo_root=root)
    assert done.returncode == 0, done.stderr
    entry = zoo.metadata("nobles_2p")
    acting = make_agent("zoo:nobles_2p", game).acting
    assert (acting.simulations, acting.temperature, acting.search.game_value_weight) == (3, 0, 0.5)
    assert acting == Acting.from_dict(entry["policy"], "metadata.json")
    assert {k: v for k, v in entry.items() if k != "policy"} == {
        k: v for k, v in before.items() if k != "policy"}
    assert onnx.load(folder / zoo.POLICY_FILE).graph == graph

    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    done = export_cli("zoo=nobles_2p", "play={temprature: 0}", zoo_root=root)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "error: unknown play agent option(s) temprature; valid: sims, simulations, temperature, "
        "c_puct, chance, dirichlet_concentration, dirichlet_share, fpu_reduction, "
        "game_value_rollout, game_value_weight, gumbel_c_scale, gumbel_c_visit, gumbel_considered, "
        "opponent_model, policy_temperature, root"]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == files

    checkpoint = tiny_checkpoint(tmp_path / "run" / "checkpoints" / "last.pt", NOBLES)
    (tmp_path / "run" / "final_evaluation.json").write_text(json.dumps(FINAL))
    done = export_cli(f"checkpoint={checkpoint}", "zoo=nobles_2p_fast", "play={sims: 2}",
                      zoo_root=root)
    assert done.returncode == 0, done.stderr
    assert make_agent("zoo:nobles_2p_fast", game).acting.simulations == 2
    entry = zoo.metadata("nobles_2p_fast")
    assert entry["policy"]["simulations"] == 2
    # The run's final evaluation played its own way (no search): its figure says so, and is
    # not the entry's default play.
    [figure] = entry["figures"]
    assert (figure["measure"], figure["agent"]) == ("vs random, sims=0",
                                                     "zoo:nobles_2p_fast:sims=0")


def test_evaluate_and_play_take_zoo_agents(in_zoo, tmp_path):
    env = {**os.environ, ZOO_ENV: str(in_zoo)}
    evaluated = subprocess.run(
        [sys.executable, "evaluate.py", "env=nobles", "agents=[zoo:nobles_2p,random]", "games=2",
         "logger=disabled", "chart=false", f"hydra.run.dir={tmp_path}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert evaluated.returncode == 0, evaluated.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["matches"][0]["lineup"] == ["zoo:nobles_2p", "random"]
    played = subprocess.run(
        [sys.executable, "play.py", "env=nobles", "agents=[human,zoo:nobles_2p]"],
        cwd=ROOT, env=env, input="hint\nquit\n", capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr
    assert "hint from zoo:nobles_2p: value for you" in played.stdout


def test_a_zoo_agent_of_another_game_is_refused_in_one_line(in_zoo):
    with pytest.raises(ValueError, match=r"^zoo agent 'nobles_2p' was trained on 'nobles', not "
                                         r"'blockade' \(zoo agents of this game: none\)$"):
        make_agent("zoo:nobles_2p", envs.make_game({"name": "blockade"}))
    with pytest.raises(ValueError, match="zoo agent 'nobles_2p' was trained with num_players=2 "
                                         "but the game has num_players=4"):
        make_agent("zoo:nobles_2p", envs.make_game({**NOBLES, "num_players": 4}))


def test_an_unknown_name_lists_the_agents_there_are(in_zoo, tmp_path, monkeypatch):
    game = envs.make_game(NOBLES)
    with pytest.raises(ValueError, match=r"^unknown zoo agent 'nobles_4p'; available: "
                                         r"nobles_2p \(zoo folder "):
        make_agent("zoo:nobles_4p", game)
    with pytest.raises(ValueError, match="zoo agent needs a name: zoo:NAME"):
        make_agent("zoo:", game)
    monkeypatch.setenv(ZOO_ENV, str(tmp_path))
    with pytest.raises(ValueError, match="the zoo has no agents yet"):
        make_agent("zoo:nobles_2p", game)


def test_zoo_entries_install_with_the_project():
    """Without $BOARDGAME_RL_ZOO the zoo is the ``zoo`` package's folder, and pyproject.toml
    ships that package with an entry's files as package data."""
    tomllib = pytest.importorskip("tomllib")
    assert os.environ.get(ZOO_ENV) is None
    assert zoo.root() == ROOT / "zoo"
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert any(fnmatch("zoo", p) for p in setuptools["packages"]["find"]["include"])
    patterns = setuptools["package-data"]["zoo"]
    for file in (zoo.POLICY_FILE, zoo.METADATA_FILE):
        assert any(fnmatch(f"nobles_2p/{file}", p) for p in patterns)


@pytest.mark.parametrize("name", zoo.names())
def test_a_shipped_entry_plays_as_its_metadata_says(name):
    """metadata.json's ``policy`` is what users read (and results.md shows); the agent plays by
    the policy inside ``policy.onnx``: the two must not drift apart."""
    from agents.network import Acting

    assert os.environ.get(ZOO_ENV) is None
    entry = zoo.metadata(name)
    agent = make_agent(f"zoo:{name}", envs.make_game(entry["env_config"]))
    assert agent.acting == Acting.from_dict(entry["policy"], f"zoo {name}: policy")
