"""evaluate.py end to end on tiny game counts (W&B disabled), its one-line errors, and
checkpoint agents built from a real (untrained) checkpoint file."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import envs
from agents import make_agent
from arena import load_records, play_match, replay
from arena.backends import Venue
from arena.match import AgentSummary, MatchResult
from arena.report import LOG_WIDTH, report_console, results_table
from arena.stats import Rating

ROOT = Path(__file__).resolve().parents[2]


def evaluate(*overrides, out: Path):
    return subprocess.run(
        [sys.executable, "evaluate.py", "logger=disabled", f"hydra.run.dir={out}", *overrides],
        cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_round_robin_writes_tables_json_csv_chart_records_and_gifs(tmp_path):
    run = evaluate("env=nobles", "agents=[heuristic,random,mcts]", "games=2",
                   "agent_options.mcts.simulations=4", "gif_games=[1]", "save_records=true",
                   out=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "heuristic vs random (2 games)" in run.stdout
    assert "Elo, random = 0 [95% CI]" in run.stdout
    assert "evaluation: 6/6 games" in run.stdout  # output to a pipe: progress as lines
    results = json.loads((tmp_path / "results.json").read_text())
    assert [m["lineup"] for m in results["matches"]] == [
        ["heuristic", "random"], ["heuristic", "mcts"], ["random", "mcts"]]
    assert all(m["games"] == 2 for m in results["matches"])
    ratings = {r["name"]: r for r in results["ratings"]}
    assert set(ratings) == {"heuristic", "random", "mcts"} and ratings["random"]["rating"] == 0
    assert len(results["games"]) == 6
    with open(tmp_path / "results.csv") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 6
    assert all(int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == 2 for r in rows)
    with Image.open(tmp_path / "ratings.png") as chart:
        assert chart.width > 400
    records = load_records(tmp_path / "games.jsonl")
    assert len(records) == 6
    assert all(list(replay(r))[-1].is_terminal() for r in records)
    gifs = sorted(p.name for p in tmp_path.glob("*.gif"))
    assert gifs == ["lineup0_game1.gif", "lineup1_game1.gif", "lineup2_game1.gif"]


def test_versus_schedule_for_four_players(tmp_path):
    run = evaluate("env=nobles", "env.num_players=4", "schedule=versus", "agents=[heuristic]",
                   "games=3", "chart=false", out=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "rounded up from 3 to 4" in run.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["matches"][0]["lineup"] == ["heuristic", "random", "random#2", "random#3"]
    assert results["matches"][0]["games"] == 4
    assert "W-S-D-L" in run.stdout and "Elo, random = 0 [95% CI]" in run.stdout
    ratings = {r["name"]: r["rating"] for r in results["ratings"]}
    assert set(ratings) == {"heuristic", "random"} and ratings["random"] == 0
    assert not (tmp_path / "ratings.png").exists()


def compose_evaluation(*overrides):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        return compose(config_name="evaluate", overrides=["logger=disabled", *overrides])


def prepare(*overrides):
    """evaluate.py's config checks in-process, on the config Hydra composes."""
    import evaluate as entry_point

    return entry_point.prepare(compose_evaluation(*overrides))


def test_the_check_before_start_builds_the_agents_once_for_the_run(monkeypatch):
    """Hydra's check before start and the run that follows it in the same process build the
    agents (zoo networks, checkpoints) once; a later evaluation builds its own."""
    import evaluate as entry_point
    from training.launch import _KEPT as kept

    built, build = [], entry_point.build_agents
    monkeypatch.setattr(entry_point, "build_agents",
                        lambda *args: built.append(args) or build(*args))
    cfg = compose_evaluation("env=nobles", "agents=[heuristic,random]")
    entry_point.check_config(cfg)
    (checked,) = kept.values()
    assert entry_point.prepare(cfg)[2] is checked and len(built) == 1 and not kept
    assert entry_point.prepare(cfg)[2] is not checked and len(built) == 2


@pytest.mark.parametrize("overrides, message", [
    (["agents=[heuristic,minimax]"], "unknown agent 'minimax'; valid agents: random, "
                                     "heuristic, mcts, checkpoint:PATH, onnx:PATH, zoo:NAME"),
    (["agents=[heuristic,checkpoint:nowhere.pt]"], "checkpoint not found: nowhere.pt"),
    (["env.num_players=4", "agents=[heuristic,random]"], "a round robin of a 4-player game "
                                                         "needs at least 4 agents"),
    (["agents=[heuristic,random]", "games=0"], "config games=0: must be an integer >= 1"),
    (["agents=[heuristic,random]", "games=abc"], "config games='abc': must be an integer"),
    (["agents=[heuristic,random]", "+colour=blue"],
     "unknown config key(s) colour; valid keys: agent_options"),
    (["agents=[heuristic,heuristic]"], "agents lists an agent twice"),
    (["agents=[mcts,random]", "agent_options.mcts.rollout=greedy"], "rollout must be one of"),
    (["agents=[heuristic,random]", "+env.board=huge"], "unexpected keyword argument 'board'"),
])
def test_bad_input_is_refused_before_any_game(overrides, message):
    with pytest.raises((ValueError, TypeError, FileNotFoundError)) as error:
        prepare("env=nobles", *overrides)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_the_cli_reports_bad_input_as_one_line(tmp_path):
    run = evaluate("env=nobles", "agents=[heuristic,minimax]", out=tmp_path)
    assert run.returncode != 0
    assert run.stderr.strip() == ("error: unknown agent 'minimax'; valid agents: random, "
                                  "heuristic, mcts, checkpoint:PATH, onnx:PATH, zoo:NAME")
    assert not (tmp_path / "results.json").exists()


@pytest.fixture(scope="module")
def nobles_checkpoint(tmp_path_factory):
    """An untrained but complete checkpoint for 2-player Nobles, written by the training code."""
    checkpoint = pytest.importorskip("training.saving")
    from envs.nobles import Encoder
    from models.checkpoint import model_payload
    from models.nets import ModelConfig, build_network

    env_config = {"name": "nobles", "num_players": 2}
    game = envs.make_game(env_config)
    encoder = Encoder(game)
    config = ModelConfig(channels=4, blocks=0, hidden=8, policy_channels=1)
    net = build_network(encoder.shape, game.num_actions, game.num_players, config)
    path = tmp_path_factory.mktemp("checkpoints") / "nobles.pt"
    checkpoint.save_checkpoint(path, {
        "algo": "test", "config": {}, "env_config": env_config,
        "model": model_payload(net, encoder, game.num_actions, game.num_players, config),
        "acting": {"simulations": 0, "search": {}, "temperature": 0.0}, "counters": {}})
    return path


def test_checkpoint_agent_plays_its_game(nobles_checkpoint):
    result = play_match({"name": "nobles"}, [f"checkpoint:{nobles_checkpoint}", "random"], 2,
                        seed=0)
    assert sum(s.games for s in result.summaries) == 4


@pytest.mark.parametrize("simulations, temperature", [(0, 0.0), (0, 1.0), (4, 0.0)])
def test_batched_games_are_the_games_played_one_at_a_time(nobles_checkpoint, simulations,
                                                          temperature):
    """batch_games plays several games at once, the network agent's moves of all of them in
    one batch: the same moves, in the same games, as one game at a time."""
    from agents.network import checkpoint_agent

    def match(batch_games):
        agent = checkpoint_agent(nobles_checkpoint, sims=simulations, temperature=temperature)
        calls = []
        evaluate = agent.evaluate
        agent.evaluate = lambda states: calls.append(len(states)) or evaluate(states)
        result = play_match({"name": "nobles"}, [agent, "heuristic"], 6, seed=3,
                            record=True, venue=Venue(batch_games=batch_games))
        return [(g.index, g.seats, g.returns, g.record.actions) for g in result.games], calls

    one_at_a_time, single_calls = match(1)
    batched, batched_calls = match(4)
    assert batched == one_at_a_time
    assert max(single_calls) == 1 and max(batched_calls) > 1
    assert len(batched_calls) < len(single_calls)


def test_checkpoint_of_another_game_is_refused(nobles_checkpoint, tmp_path):
    with pytest.raises(ValueError, match="trained on 'nobles', not 'blockade'"):
        make_agent(f"checkpoint:{nobles_checkpoint}", envs.make_game({"name": "blockade"}))
    with pytest.raises(ValueError, match="num_players=2 but the game has num_players=4"):
        make_agent(f"checkpoint:{nobles_checkpoint}",
                   envs.make_game({"name": "nobles", "num_players": 4}))
    with pytest.raises(ValueError, match="trained on 'nobles', not 'blockade'"):
        prepare("env=blockade", f"agents=[checkpoint:{nobles_checkpoint},random]")


def test_long_agent_names_get_short_labels_and_a_legend(nobles_checkpoint, tmp_path):
    """Tables fit 80 columns when an agent is a checkpoint path; the files keep full names."""
    spec = f"checkpoint:{nobles_checkpoint}"
    run = evaluate("env=nobles", f"agents=[{spec},random]", "games=2", "chart=false",
                   out=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"checkpoint-1 = {spec}" in run.stdout
    lines = run.stdout.splitlines()
    title = next(i for i, line in enumerate(lines) if "checkpoint-1 vs random (2 games)" in line)
    table = lines[title:title + 7]
    assert table[-2].split()[0] == "random" and all(len(line) <= 80 for line in table)
    assert json.loads((tmp_path / "results.json").read_text())["matches"][0]["lineup"] == \
        [spec, "random"]
    log = (tmp_path / "evaluate.log").read_text()
    assert "checkpoint-1 vs random (2 games)" in log and "\x1b" not in log


def test_labels_keep_a_zoo_name_and_shorten_option_keys_before_numbering():
    from arena.report import short_labels

    labels = short_labels(["zoo:blockade_lakeside_2p", "mcts:simulations=400,rollout=random",
                           "mcts:simulations=100,rollout=random",
                           "checkpoint:outputs/train/nobles/2026-12-05/checkpoints/last.pt",
                           "zoo:nobles_4p:game_value_weight=1,game_value_rollout=12"])
    assert list(labels.values()) == ["zoo:blockade_lakeside_2p", "mcts:s=400,r=random",
                                     "mcts:s=100,r=random", "checkpoint-1",
                                     "zoo:nobles_4p:gvw=1,gvr=12"]


def test_a_four_player_table_in_a_log_keeps_every_figure():
    """Written to a pipe (a run in the background), a 4-player table with its share column is
    not cut to rich's default of 80 columns: every figure stays readable in the log."""
    names = ["checkpoint-1", "heuristic", "heuristic#2", "heuristic#3"]
    wins = [22, 73, 55, 53]
    summaries = [AgentSummary(name, 200, w, 3, 0, 197 - w, w / 200, -0.193, 0.0738, 0.1609,
                              0.0032) for name, w in zip(names, wins, strict=True)]
    ratings = {name: Rating(name, 231.37, 183.01, 280.04) for name in names}
    result = MatchResult({"name": "nobles"}, names, games=[None] * 200, summaries=summaries)
    console = report_console()
    assert console.width == LOG_WIDTH  # pytest captures stdout: not a terminal
    with console.capture() as printed:
        console.print(results_table(result, title="trained vs heuristic", ratings=ratings))
    rows = [line.split() for line in printed.get().splitlines()
            if line.split()[:1] and line.split()[0] in names]
    assert [row[:2] for row in rows] == [[name, f"{w}-3-0-{197 - w}"]
                                         for name, w in zip(names, wins, strict=True)]
    assert all(row[-1] == "3.2" and "[183," in row for row in rows), printed.get()
    assert "…" not in printed.get()


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_ctrl_c_writes_the_games_finished_so_far_marked_partial(tmp_path, stop):
    """Ctrl-C, or a plain `kill` (SIGTERM: also what stops a job started in the background,
    where SIGINT is ignored), writes the finished games marked partial."""
    import os
    import signal
    import time

    process = subprocess.Popen(
        [sys.executable, "evaluate.py", "logger=disabled", f"hydra.run.dir={tmp_path}",
         "env=nobles", "agents=[heuristic,random]", "games=100000", "chart=false"],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait for a few finished games
            time.sleep(2)
            log = tmp_path / "evaluate.log"
            if log.exists() and "interrupted" not in log.read_text():
                break
        time.sleep(15)
        os.killpg(process.pid, getattr(signal, stop))
        out, err = process.communicate(timeout=120)
    finally:  # never leave a 100,000-game evaluation running behind a failed test
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    assert "interrupted: writing the" in out
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["partial"] is True
    assert 0 < len(results["games"]) < 100000


def test_resume_plays_only_the_missing_games_and_gets_the_uninterrupted_result(tmp_path):
    """A stopped evaluation resumed with ``resume=<folder>`` keeps its games and plays the
    others: the same games, in every lineup, as one uninterrupted run; the stopped folder is
    left as it was."""
    settings = ["env=nobles", "agents=[heuristic,random,mcts]", "games=4",
                "agent_options.mcts.simulations=4", "chart=false"]
    whole = evaluate(*settings, out=tmp_path / "whole")
    assert whole.returncode == 0, whole.stderr
    expected = json.loads((tmp_path / "whole" / "results.json").read_text())
    stopped = dict(expected, partial=True)  # stopped in the second lineup, after its game 0
    stopped["games"] = expected["games"][:4] + expected["games"][4:5]
    (tmp_path / "stopped").mkdir()
    stopped_text = json.dumps(stopped)
    (tmp_path / "stopped" / "results.json").write_text(stopped_text)
    run = evaluate(*settings, f"resume={tmp_path / 'stopped'}", out=tmp_path / "resumed")
    assert run.returncode == 0, run.stderr
    assert "5 games played already" in run.stdout
    assert "evaluation: 7/7 games" in run.stdout  # only the missing ones were played
    resumed = json.loads((tmp_path / "resumed" / "results.json").read_text())
    assert resumed["partial"] is False

    def outcomes(results):
        return [{k: g[k] for k in ("lineup", "index", "seats", "returns", "turns", "truncated")}
                for g in results["games"]]

    assert outcomes(resumed) == outcomes(expected)
    assert [m["agents"][0]["wins"] for m in resumed["matches"]] == \
        [m["agents"][0]["wins"] for m in expected["matches"]]
    assert (tmp_path / "stopped" / "results.json").read_text() == stopped_text


def test_resume_with_more_games_extends_a_finished_evaluation(tmp_path):
    """A finished evaluation resumed with a larger ``games=`` plays only the games it lacks: the
    result equals one run of that many games (every game is seeded by its number alone)."""
    settings = ["env=nobles", "agents=[heuristic,random]", "chart=false"]
    whole = evaluate(*settings, "games=6", out=tmp_path / "whole")
    short = evaluate(*settings, "games=2", out=tmp_path / "short")
    assert whole.returncode == 0 and short.returncode == 0, whole.stderr + short.stderr
    run = evaluate(*settings, "games=6", f"resume={tmp_path / 'short'}", out=tmp_path / "more")
    assert run.returncode == 0, run.stderr
    assert "2 games played already" in run.stdout and "evaluation: 4/4 games" in run.stdout

    def outcomes(folder):
        results = json.loads((tmp_path / folder / "results.json").read_text())
        return [{k: g[k] for k in ("lineup", "index", "seats", "returns", "turns")}
                for g in results["games"]]

    assert outcomes("more") == outcomes("whole") and len(outcomes("more")) == 6
    fewer = evaluate(*settings, "games=1", f"resume={tmp_path / 'whole'}", out=tmp_path / "x")
    assert fewer.returncode != 0 and "nothing to resume" in fewer.stderr, fewer.stderr


@pytest.mark.parametrize("change, message", [
    ("seed=1", "other seed=0 (now 1)"),
    ("env.num_players=3", "was played with env"),
    ("save_records=true", "cannot write records"),
    ("finished", "not partial"),
])
def test_resume_refuses_a_file_that_does_not_fit(tmp_path, change, message):
    settings = ["env=nobles", "agents=[heuristic,random]", "games=2", "chart=false"]
    first = evaluate(*settings, out=tmp_path / "first")
    assert first.returncode == 0, first.stderr
    results_file = tmp_path / "first" / "results.json"
    if change != "finished":
        results_file.write_text(json.dumps(dict(json.loads(results_file.read_text()),
                                                partial=True)))
    overrides = [] if change == "finished" else [change]
    run = evaluate(*settings, *overrides, f"resume={results_file}", out=tmp_path / "again")
    assert run.returncode != 0
    assert message in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_games_on_ray_are_the_games_of_one_process(tmp_path):
    """backend=ray plays each game as a Ray task on a Ray started for the evaluation (the
    project's packages, zoo included, shipped to its workers): the same games as workers=1."""
    pytest.importorskip("ray")
    settings = ["env=nobles", "agents=[zoo:nobles_2p,heuristic]", "games=4", "chart=false"]
    alone = evaluate(*settings, out=tmp_path / "alone")
    assert alone.returncode == 0, alone.stderr
    on_ray = evaluate(*settings, "workers=2", "backend=ray", out=tmp_path / "ray")
    assert on_ray.returncode == 0, on_ray.stderr
    games = [json.loads((tmp_path / folder / "results.json").read_text())["games"]
             for folder in ("alone", "ray")]
    for game in games[0] + games[1]:
        del game["think_seconds"]
    assert games[0] == games[1]
