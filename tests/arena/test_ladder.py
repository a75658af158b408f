"""evaluate.py's ladder and robustness panel, and the exploiter recipe: end to end on tiny game
counts, resume and incremental addition playing exactly the missing games, the panel's worst
score, bad input refused before any game, and one rating wherever a run shows it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

import arena.panel
from arena import ladder
from arena.tournament import EvalConfig, run_evaluation

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs"))
import generate  # noqa: E402
import record  # noqa: E402

NOBLES = {"name": "nobles", "num_players": 2, "mode": "journey", "scoring": None,
          "max_turns": 300}


def evaluate(*overrides, out: Path):
    return subprocess.run(
        [sys.executable, "evaluate.py", "logger=disabled", f"hydra.run.dir={out}", *overrides],
        cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_a_ladder_rates_every_agent_with_random_at_zero(tmp_path, monkeypatch):
    run = evaluate("env=nobles", "schedule=ladder",
                   'agents=[random,heuristic,"mcts:simulations=8"]', "games=4", "ladder_blocks=1",
                   out=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Elo, random = 0 [95% CI]" in run.stdout
    data = json.loads((tmp_path / "ladder.json").read_text())
    ratings = {row["agent"]: row for row in data["ratings"]}
    assert set(ratings) == {"random", "heuristic", "mcts:simulations=8"}
    assert ratings["random"]["rating"] == 0
    assert all(r["low"] <= r["rating"] <= r["high"] for r in ratings.values())
    assert len(data["blocks"]) == 4  # two agents after the first: 1 + 1 blocks each
    # published to docs/ladders/<config>/ by docs/record.py, rendered by docs/generate.py
    docs = tmp_path / "docs"
    record.publish_ladder(tmp_path, docs / "ladders" / "nobles_2p",
                          {"command": "evaluate.py schedule=ladder", "commit": "abc",
                           "date": "2026-12-05"})
    monkeypatch.setattr(generate, "DOCS", docs)
    page = generate.ladder_page()
    top = data["ratings"][0]
    assert f"| `{top['agent']}` | {top['rating']:.0f} [" in page
    assert "![nobles_2p](ladders/nobles_2p/ladder.png)" in page and "Commit abc" in page
    assert (docs / "ladders" / "nobles_2p" / "ladder.png").is_file()
    assert all(len(b["games"]) == 4 for b in data["blocks"])
    assert (tmp_path / "ladder.csv").is_file() and (tmp_path / "ladder.png").is_file()


def ladder_config(agents, **settings) -> EvalConfig:
    return EvalConfig.from_dict({"agents": agents, "schedule": "ladder", "games": 4,
                                 "ladder_blocks": 1, "chart": False, **settings})


def played_games(path: Path) -> list:
    return [(b["lineup"], g["index"], g["returns"])
            for b in json.loads((path / "ladder.json").read_text())["blocks"] for g in b["games"]]


def test_resume_and_a_new_agent_play_exactly_the_missing_games(tmp_path, monkeypatch):
    two = ["random", "heuristic"]
    run_evaluation(NOBLES, ladder_config(two), tmp_path / "a")
    before = played_games(tmp_path / "a")
    assert len(before) == 8
    # A stopped ladder: its last block lost three games; the resume plays those three only.
    stored = json.loads((tmp_path / "a" / "ladder.json").read_text())
    stored["blocks"][-1]["games"] = stored["blocks"][-1]["games"][:1]
    (tmp_path / "a" / "ladder.json").write_text(json.dumps(stored))
    count = []
    original = ladder.play_match

    def counting(*args, **kwargs):
        result = original(*args, **kwargs)
        count.append(len(result.games) - len(kwargs["played"]))
        return result

    monkeypatch.setattr(ladder, "play_match", counting)
    run_evaluation(NOBLES, ladder_config(two, resume=str(tmp_path / "a")), tmp_path / "a")
    assert sum(count) == 3 and played_games(tmp_path / "a") == before
    count.clear()
    three = [*two, "mcts:simulations=4"]
    run_evaluation(NOBLES, ladder_config(three, resume=str(tmp_path / "a")), tmp_path / "a")
    after = played_games(tmp_path / "a")
    assert after[:8] == before and len(after) == 16 and sum(count) == 8  # its 2 blocks only
    assert all("mcts:simulations=4" in lineup for lineup, _, _ in after[8:])
    # The same plan from scratch plays the same games.
    run_evaluation(NOBLES, ladder_config(three), tmp_path / "b")
    assert played_games(tmp_path / "b") == after


@pytest.mark.parametrize("overrides, message", [
    (["agents=[random]"], "a ladder needs at least 2 agents"),
    (["agents=[random,heuristic]", "games=2"], "games=2 is too few for a rating interval"),
    (["agents=[random,nobody]"], "unknown agent 'nobody'"),
])
def test_bad_ladder_input_is_one_line_before_any_game(tmp_path, overrides, message):
    run = evaluate("env=nobles", "schedule=ladder", *overrides, out=tmp_path / "run")
    assert run.returncode == 2 and run.stderr.startswith(f"error: {message}"), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run" / "ladder.json").exists()


def test_a_ladder_of_another_game_is_refused_on_resume(tmp_path):
    run_evaluation(NOBLES, ladder_config(["random", "heuristic"]), tmp_path / "a")
    run = evaluate("env=nobles", "env.num_players=3", "schedule=ladder",
                   "agents=[random,heuristic]", "games=4", "ladder_blocks=1",
                   f"resume={tmp_path / 'a'}", out=tmp_path / "a")
    assert run.returncode == 2 and "resume: the ladder at" in run.stderr
    assert "num_players': 2" in run.stderr
    assert not list((tmp_path / "a" / ".hydra").glob("resumed-*"))  # nothing written


def test_the_panel_reports_each_score_the_worst_and_the_mean(tmp_path, monkeypatch):
    monkeypatch.setattr(arena.panel, "MEMBERS", ("heuristic:epsilon=0.25", "random"))
    config = EvalConfig.from_dict({"agents": ["heuristic"], "schedule": "panel", "games": 4,
                                   "chart": False})
    evaluation = run_evaluation(NOBLES, config, tmp_path)
    scores = json.loads((tmp_path / "panel.json").read_text())["heuristic"]
    # the members, and every zoo agent of this game and its rules
    assert set(scores["scores"]) == {"heuristic:epsilon=0.25", "random", "zoo:nobles_2p",
                                     "zoo:nobles_2p_ppo"}
    assert scores["worst"] == min(scores["scores"].values())
    assert scores["mean"] == pytest.approx(sum(scores["scores"].values()) / 4)
    assert all(0 <= s <= 1 for s in scores["scores"].values())
    assert len(evaluation.matches) == 4
    # docs/record.py turns it into figure records; the zoo table shows the worst
    figures = tmp_path / "figures.json"
    figures.write_text(json.dumps({"sections": []}))
    monkeypatch.setattr(record, "FIGURES", figures)
    record.main(["panel", str(tmp_path), "--command", "evaluate.py schedule=panel", "--commit",
                 "abc"])
    (reference,) = json.loads(figures.read_text())["references"]
    assert reference["agent"] == "heuristic" and reference["env_config"] == NOBLES
    assert {r["opponent"]: r["score"] for r in reference["figures"]} == scores["scores"]
    monkeypatch.setattr(generate, "DOCS", tmp_path)
    worst = 100 * scores["worst"]
    (row,) = [line for line in generate.results_page().splitlines()
              if line.startswith("| `heuristic`")]
    assert f"{worst:.1f}% [" in row and f"(vs `{scores['worst_member']}`, worst of 4)" in row


def test_a_versus_evaluation_becomes_one_record_per_judged_agent(tmp_path, monkeypatch):
    config = EvalConfig.from_dict({"agents": ["heuristic", "mcts:simulations=4"],
                                   "schedule": "versus", "opponent": "random", "games": 4,
                                   "chart": False})
    evaluation = run_evaluation(NOBLES, config, tmp_path)
    figures = tmp_path / "figures.json"
    figures.write_text(json.dumps({"sections": []}))
    monkeypatch.setattr(record, "FIGURES", figures)
    for _ in range(2):  # recording again replaces the record of the same measure
        record.main(["versus", str(tmp_path), "--command", "evaluate.py schedule=versus",
                     "--commit", "abc"])
    references = json.loads(figures.read_text())["references"]
    assert [r["agent"] for r in references] == ["heuristic", "mcts:simulations=4"]
    for reference, match in zip(references, evaluation.matches, strict=True):
        (figure,) = reference["figures"]
        summary = match.summaries[0]
        assert (figure["measure"], figure["opponent"]) == ("vs random", "random")
        assert (figure["games"], figure["wins"], figure["draws"], figure["losses"]) == (
            4, summary.wins, summary.draws, summary.losses)
        assert figure["low"] <= figure["score"] == summary.wins / 4 <= figure["high"]
        assert (figure["command"], figure["commit"]) == ("evaluate.py schedule=versus", "abc")
    with pytest.raises(SystemExit, match="is not a schedule=panel evaluation"):
        record.main(["panel", str(tmp_path), "--command", "c", "--commit", "abc"])


def train_config(*overrides):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return compose("config", overrides=list(overrides))


def test_a_recipe_training_against_a_panel_member_is_refused_but_an_exploiter_may():
    from training.launch import check_config

    with pytest.raises(ValueError, match="algo.pool.baselines='mcts:simulations=200' is a "
                                         "member of the evaluation panel"):
        check_config(train_config("algo=ppo", "env=nobles",
                                  'algo.pool.baselines=["mcts:simulations=200"]'))
    with pytest.raises(ValueError, match="algo.selfplay.opponents='heuristic:epsilon=0.25'"):
        check_config(train_config("env=nobles", "algo.selfplay.opponent_share=0.2",
                                  'algo.selfplay.opponents=[heuristic,"heuristic:epsilon=0.25"]'))
    check_config(train_config("+experiment=exploit", "env=nobles", "exploit=zoo:nobles_2p"))
    with pytest.raises(ValueError, match="needs exploit=SPEC"):
        check_config(train_config("+experiment=exploit", "env=nobles"))


def test_the_check_before_start_reads_a_resumed_checkpoint_once_for_the_run(tmp_path,
                                                                            monkeypatch):
    """train.py's check before start validates ``resume=`` by reading the checkpoint; the run
    after it in the same process takes that read (a checkpoint can hold a replay buffer of
    hundreds of MB), and a file written since then is read again."""
    import training.launch as launch

    path = tmp_path / "last.pt"
    path.write_bytes(b"one")
    cfg = train_config("env=nobles", "logger=disabled", f"resume={path}")
    plain = OmegaConf.to_container(cfg, resolve=False)
    plain["logger"].pop("dir")  # ${hydra:...}: set when a job starts
    config = {**OmegaConf.to_container(OmegaConf.create(plain), resolve=True), "resume": None}
    launch.name_features(config)
    reads = []
    monkeypatch.setattr(launch, "load_checkpoint", lambda file: reads.append(file) or {
        "algo": "alphazero", "config": config})
    launch.check_config(cfg)
    assert launch.resumed(cfg, [])[1]["env"] == config["env"] and len(reads) == 1
    launch.check_config(cfg)
    path.write_bytes(b"two, written since the check")
    launch.resumed(cfg, [])
    assert len(reads) == 3


def test_an_exploiter_trains_against_its_target_and_measures_it(tmp_path):
    from training.launch import run

    overrides = ["+experiment=exploit", "exploit=heuristic", "env=nobles", "runner=local",
                 "logger=disabled", "algo.time_limit_minutes=null", "algo.iterations=2",
                 "algo.rollout.num_envs=4", "algo.rollout.num_steps=8",
                 "algo.optim.minibatch_size=16", "algo.eval.every=0", "algo.eval.final_games=4"]
    cfg = train_config(*overrides, f"logger.dir={tmp_path}")
    result = run(cfg, tmp_path / "run", overrides)
    assert list(result.final_eval) == ["heuristic"]
    assert result.final_eval["heuristic"].summaries[0].games == 4
    config = OmegaConf.to_container(cfg, resolve=True)
    assert config["algo"]["pool"]["baselines"] == ["heuristic"]
    final = json.loads((tmp_path / "run" / "final_evaluation.json").read_text())
    assert final["opponents"] == ["heuristic"] and "final/heuristic/win_rate" in final["metrics"]
    ((target, env_config, figure),) = record.exploiter_records(tmp_path / "run", {})
    summary = result.final_eval["heuristic"].summaries[0]
    assert (target, env_config["name"]) == ("heuristic", "nobles")
    assert (figure["wins"], figure["draws"], figure["losses"]) == (
        summary.wins, summary.draws, summary.losses)
    assert figure["agent"] == "PPO exploiter (2 iterations)"


def test_a_figure_of_a_zoo_spec_with_options_goes_to_its_entry(tmp_path, monkeypatch):
    entry = tmp_path / "zoo" / "nobles_2p"
    entry.mkdir(parents=True)
    metadata = json.loads((record.ROOT / "zoo" / "nobles_2p" / "metadata.json").read_text())
    (entry / "metadata.json").write_text(json.dumps({**metadata, "figures": []}))
    monkeypatch.setattr(record, "ROOT", tmp_path)
    figure = {"measure": "vs heuristic, 8 simulations", "agent": "zoo:nobles_2p:sims=8"}
    assert record.store("zoo:nobles_2p:sims=8", NOBLES, figure) == entry / "metadata.json"
    assert json.loads((entry / "metadata.json").read_text())["figures"] == [figure]
