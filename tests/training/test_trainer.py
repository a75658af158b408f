"""The loop every algorithm shares (training/trainer.py): no lost work (a checkpoint right after
the warm start, stale temporaries cleaned, a failed save that keeps the previous file), resumed
runs that extend to the limits the command line gives, and a clean stop on Ctrl-C."""

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

from models.checkpoint import CheckpointError, load_checkpoint
from training.launch import run, run_folder
from training.saving import replay_path, save_checkpoint
from training.trainer import StopRequest

ROOT = Path(__file__).resolve().parents[2]
ALPHAZERO = ["env.rows=8", "env.cols=8", "env.max_turns=40", "model=tiny", "logger=disabled",
             "runner=local", "algo.games_per_iteration=4", "algo.search.simulations=6",
             "algo.selfplay.max_moves=16", "algo.selfplay.concurrent_games=4",
             "algo.learner.min_samples=8", "algo.learner.batch_size=16", "algo.eval.every=0",
             "algo.eval.final_games=0", "algo.checkpoint.every=5", "algo.warm_start.games=2",
             "algo.warm_start.steps=2", "algo.warm_start.student_games=0",
             "algo.time_limit_minutes=null"]
PPO = ["algo=ppo", "env.rows=8", "env.cols=8", "env.max_turns=12", "model.hidden=16",
       "logger=disabled", "algo.rollout.num_envs=4", "algo.rollout.num_steps=8",
       "algo.optim.minibatch_size=16", "algo.optim.update_epochs=1", "algo.checkpoint.every=5",
       "algo.eval.every=0", "algo.eval.final_games=0", "algo.warm_start.games=0",
       "algo.time_limit_minutes=null"]


def train(tmp_path, name, overrides, capsys=None):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, f"logger.dir={tmp_path}"])
    result = run(cfg, tmp_path / name, overrides=overrides)
    return result, (capsys.readouterr().out if capsys else "")


def test_a_checkpoint_follows_the_warm_start_before_any_iteration(tmp_path, monkeypatch):
    """A crash in the first iteration loses nothing of the warm start: the run resumes from
    the checkpoint written after it, without warming up again."""
    from training.alphazero import AlphaZero

    def crash(self, number, progress):
        raise RuntimeError("killed in iteration 1")

    monkeypatch.setattr(AlphaZero, "iteration", crash)
    with pytest.raises(RuntimeError, match="killed"):
        train(tmp_path, "crashed", [*ALPHAZERO, "algo.iterations=2"])
    checkpoint = tmp_path / "crashed" / "checkpoints" / "last.pt"
    payload = load_checkpoint(checkpoint)
    assert payload["counters"]["started"] and payload["counters"]["iteration"] == 0
    assert replay_path(checkpoint).is_file()
    monkeypatch.undo()
    result, _ = train(tmp_path, "resumed", [*ALPHAZERO, "algo.iterations=2",
                                            f"resume={checkpoint}"])
    assert result.counters["iteration"] == 2


def test_stale_temporaries_are_removed_on_save_and_resume(tmp_path):
    first, _ = train(tmp_path, "run", [*ALPHAZERO, "algo.iterations=1"])
    stale = first.checkpoint.parent / ".last.pt.killed.tmp"
    stale_kept = first.checkpoint.parent / ".iteration_000001.pt.killed.tmp"
    for path in (stale, stale_kept):
        path.write_bytes(b"half a checkpoint")
    train(tmp_path, "run", [*ALPHAZERO, "algo.iterations=2", f"resume={first.checkpoint}"])
    assert not stale.exists() and not stale_kept.exists()
    stale.write_bytes(b"half a checkpoint")
    save_checkpoint(first.checkpoint, {k: v for k, v in load_checkpoint(first.checkpoint).items()
                                       if k not in ("format", "version")})
    assert not stale.exists()


def test_a_failed_save_names_the_path_and_keeps_the_previous_file(tmp_path, monkeypatch):
    first, _ = train(tmp_path, "run", [*ALPHAZERO, "algo.iterations=1"])
    before = first.checkpoint.read_bytes()
    payload = {k: v for k, v in load_checkpoint(first.checkpoint).items()
               if k not in ("format", "version")}

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(torch, "save", disk_full)
    with pytest.raises(CheckpointError) as error:
        save_checkpoint(first.checkpoint, payload)
    assert str(error.value).startswith(f"cannot write {first.checkpoint}: No space left")
    assert first.checkpoint.read_bytes() == before
    assert not list(first.checkpoint.parent.glob(".*.tmp"))


@pytest.mark.parametrize("algo", ["alphazero", "ppo"])
def test_resume_runs_to_the_limits_the_command_line_gives(tmp_path, capsys, algo):
    base = ALPHAZERO if algo == "alphazero" else PPO
    first, _ = train(tmp_path, "run", [*base, "algo.iterations=1"], capsys)
    assert first.counters["iteration"] == 1
    again, out = train(tmp_path, "again", [*base, "algo.iterations=1",
                                           f"resume={first.checkpoint}"], capsys)
    assert again.counters["iteration"] == 1 and "already reached its limit" in out
    more, out = train(tmp_path, "more", [*base, "algo.iterations=3",
                                         f"resume={first.checkpoint}"], capsys)
    assert more.counters["iteration"] == 3
    assert "resuming at iteration 1" in out and "runs to iteration 3\n" in out
    # A time limit given alone replaces the checkpoint's iteration limit.
    minutes = round(more.counters["seconds"] / 60 + 0.01, 3)
    timed, out = train(tmp_path, "timed", [*base, f"algo.time_limit_minutes={minutes}",
                                           f"resume={more.checkpoint}"], capsys)
    assert f"runs to {minutes:g} minutes\n" in out and timed.counters["iteration"] > 3


def test_time_only_runs_anneal_by_time(tmp_path):
    from training.trainer import LoopCounters, progress_parts, run_progress

    class Limits:
        iterations = None
        time_limit_minutes = 2.0

    assert run_progress(Limits, LoopCounters(50, 60.0, True)) == 0.5
    # The progress line counts against the limit that ends the run: the time, here.
    assert progress_parts(Limits, LoopCounters(50, 60.0, True)) == [
        "iter 50", "1.0/2 min", "~1.0 min left"]
    Limits.iterations = 200
    assert progress_parts(Limits, LoopCounters(50, 60.0, True))[:2] == ["iter 50", "1.0/2 min"]
    Limits.iterations = 80
    assert progress_parts(Limits, LoopCounters(50, 60.0, True)) == [
        "iter 50/80", "1.0 min", "~0.6 min left"]


def interrupted_run(tmp_path, args, wait_for: str, signum=signal.SIGINT):
    """``python train.py args`` sent ``signum`` once ``wait_for`` appears on its output, to its
    whole process group, as a terminal's Ctrl-C is (the workers get it too)."""
    process = subprocess.Popen([sys.executable, "train.py", *args], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    lines = []
    deadline = time.monotonic() + 240
    for line in process.stdout:
        lines.append(line)
        if wait_for in line:
            os.killpg(process.pid, signum)
            break
        assert time.monotonic() < deadline, "".join(lines)
    out, err = process.communicate(timeout=240)
    return process.returncode, "".join(lines) + out, err, process.pid  # pid = the group's id


def group_ends(pgid: int, seconds: float = 10) -> bool:
    """Whether every process of group ``pgid`` ends within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


CLI = [*ALPHAZERO, "runner=processes", "runner.workers=2", "algo.warm_start.games=0",
       "algo.iterations=50"]


def test_ctrl_c_writes_a_checkpoint_that_resumes_exactly(tmp_path):
    cli = CLI
    code, out, err, pgid = interrupted_run(tmp_path, [*cli, f"hydra.run.dir={tmp_path / 'a'}"],
                                           wait_for="iter 1/50")
    checkpoint = tmp_path / "a" / "checkpoints" / "last.pt"
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert f"resume with python train.py resume={checkpoint}" in out
    assert group_ends(pgid), "a process of the run outlived it"  # workers, tracker
    payload = load_checkpoint(checkpoint)
    stopped = payload["counters"]["iteration"]
    assert stopped >= 1
    # The resumed run's weights equal those of a run that never stopped.
    straight = subprocess.run([sys.executable, "train.py", *cli, f"algo.iterations={stopped + 1}",
                               f"hydra.run.dir={tmp_path / 'b'}"], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
    resumed = subprocess.run([sys.executable, "train.py", *cli, f"algo.iterations={stopped + 1}",
                              f"resume={checkpoint}", f"hydra.run.dir={tmp_path / 'c'}"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert straight.returncode == resumed.returncode == 0, resumed.stderr
    a = load_checkpoint(tmp_path / "b" / "checkpoints" / "last.pt")["model"]["weights"]
    b = load_checkpoint(tmp_path / "c" / "checkpoints" / "last.pt")["model"]["weights"]
    for key, value in a.items():
        torch.testing.assert_close(value, b[key], rtol=0, atol=0)


def test_sigkill_of_the_main_process_leaves_no_worker_behind(tmp_path):
    """``kill -9`` gives the run no chance to stop its workers: they end with it all the same
    (cluster/processes.py), and so does the resource tracker."""
    process = subprocess.Popen([sys.executable, "train.py", *CLI,
                                f"hydra.run.dir={tmp_path / 'a'}"], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        for line in process.stdout:
            if "iter 1/50" in line:
                break
        process.kill()
        process.wait(timeout=30)
        assert group_ends(process.pid), "a worker outlived the killed run"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def test_sigterm_to_the_process_group_replaces_the_workers_and_saves(tmp_path):
    """A job scheduler's SIGTERM reaches the workers too, which die of it: new ones replay the
    iteration's games, and the run stops with a checkpoint as on Ctrl-C."""
    code, out, err, _ = interrupted_run(tmp_path, [*CLI, f"hydra.run.dir={tmp_path / 'a'}"],
                                     wait_for="iter 1/50", signum=signal.SIGTERM)
    assert code == 130, err
    assert "a self-play worker died" in out and "Traceback" not in err, out + err
    checkpoint = load_checkpoint(tmp_path / "a" / "checkpoints" / "last.pt")
    assert 2 <= checkpoint["counters"]["iteration"] < 50


def test_a_stop_signal_while_the_console_is_being_written_is_no_crash(monkeypatch, capfd):
    """A SIGTERM that came while the main thread wrote the console (the log tee flushes every
    line) once ended a run in "RuntimeError: reentrant call" from the handler's print: the
    handler now writes its notice to the file descriptor, past Python's streams."""
    class Busy:  # a console stream the main thread is inside of
        def write(self, text):
            raise RuntimeError("reentrant call inside <_io.BufferedWriter name='train.log'>")

        def flush(self):
            self.write("")

    stop = StopRequest()
    monkeypatch.setattr(sys, "stdout", Busy())
    monkeypatch.setattr(sys, "stderr", Busy())
    stop._handle(signal.SIGTERM, None)
    assert stop.requested
    assert "interrupt: finishing this iteration" in capfd.readouterr().out


def test_ctrl_c_in_the_warm_start_says_that_nothing_was_saved(tmp_path):
    args = [*ALPHAZERO, "algo.warm_start.games=400", "algo.iterations=2",
            f"hydra.run.dir={tmp_path / 'a'}"]
    code, out, err, _ = interrupted_run(tmp_path, args, wait_for="warm start:")
    assert code == 130 and "Traceback" not in err, err
    assert "interrupted during the warm start: nothing was saved" in out
    assert not (tmp_path / "a" / "checkpoints" / "last.pt").exists()


@pytest.mark.parametrize("override, message", [
    ("algo.checkpoint.every=0", "algo.checkpoint.every=0: must be an integer >= 1"),
    ("algo.time_limit_minutes=-1", "algo.time_limit_minutes=-1: must be a number > 0 or null"),
    ("algo.selfplay.teacher_share=1.5", "teacher_share"),
    ("algo.search.simulations=many", "algo.search.simulations='many': must be an integer"),
    ("algo.eval.opponents=random", "algo.eval.opponents='random': must be a list of a string"),
    ("seed=1.5", "seed=1.5: must be an integer"),
    ("logger.mode=cloud", "logger.mode='cloud': must be one of offline, online, disabled"),
    ("env.num_players=7", "num_players"),
])
def test_a_bad_config_is_one_line_before_any_folder_or_work(tmp_path, override, message):
    folder = tmp_path / "run"
    done = subprocess.run([sys.executable, "train.py", override, f"hydra.run.dir={folder}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not folder.exists() and not os.listdir(tmp_path)


def test_an_unwritable_output_folder_is_one_clear_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for script in ("train.py", "evaluate.py"):
        done = subprocess.run([sys.executable, script, f"hydra.run.dir={blocker / 'run'}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert lines == [f"error: cannot write the output folder {blocker / 'run'}: {blocker} "
                         "is not a writable folder (Not a directory); choose another with "
                         "hydra.run.dir=..."]


def test_optional_outputs_that_fail_only_warn(tmp_path, monkeypatch):
    """A broken chart or GIF writer costs the picture, not the evaluation's results."""
    import arena.tournament as evaluation

    def broken(*args, **kwargs):
        raise ImportError("matplotlib is broken")

    monkeypatch.setattr(evaluation, "write_chart", broken)
    monkeypatch.setattr(evaluation, "render_gif", broken)
    config = evaluation.EvalConfig.from_dict({"agents": ["random", "heuristic"], "games": 2,
                                              "gif_games": [0]})
    env = {"name": "blockade", "rows": 8, "cols": 8, "max_turns": 10}
    with pytest.warns(UserWarning, match="ratings chart skipped: ImportError: matplotlib"):
        result = evaluation.run_evaluation(env, config, tmp_path)
    assert (tmp_path / "results.json").is_file() and (tmp_path / "results.csv").is_file()
    assert "chart" not in result.files and not any(k.startswith("gif") for k in result.files)


def test_a_resumed_run_writes_into_its_own_folder_and_log(tmp_path):
    """No stray folder: the resume goes on in the first run's folder, its train.log holds what
    both runs printed, and the first run's Hydra config files stay as they were."""
    tiny = ALPHAZERO
    first = subprocess.run([sys.executable, str(ROOT / "train.py"), *tiny, "algo.iterations=1"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    (run_dir,) = (tmp_path / "outputs" / "train" / "blockade").iterdir()
    overrides = (run_dir / ".hydra" / "overrides.yaml").read_text()
    checkpoint = Path("outputs/train/blockade") / run_dir.name / "checkpoints" / "last.pt"
    resumed = subprocess.run([sys.executable, str(ROOT / "train.py"), *tiny,
                              "algo.iterations=2", f"resume={checkpoint}"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert [p.name for p in (tmp_path / "outputs" / "train" / "blockade").iterdir()] == \
        [run_dir.name]
    assert (run_dir / ".hydra" / "overrides.yaml").read_text() == overrides
    assert len(list((run_dir / ".hydra").glob("resumed-*/overrides.yaml"))) == 1
    log = (run_dir / "train.log").read_text()
    assert "warm start: 2 heuristic vs random games first" in log
    assert "iter 1/1" in log and "resuming at iteration 1" in log and "iter 2/2" in log
    assert load_checkpoint(run_dir / "checkpoints" / "last.pt")["counters"]["iteration"] == 2


def test_kept_checkpoints_hold_the_run_along_the_way_and_resume_as_a_branch(tmp_path, capsys):
    """algo.checkpoint.keep_every leaves a copy per so many iterations (checkpoint.every is 5
    here: the copies are saves of their own); resuming one branches into a new folder and
    leaves the run's later last.pt as it was."""
    first, _ = train(tmp_path, "run", [*ALPHAZERO, "algo.iterations=4",
                                       "algo.checkpoint.keep_every=2"], capsys)
    kept = sorted(first.checkpoint.parent.glob("iteration_*.pt"))
    assert [p.name for p in kept] == ["iteration_000002.pt", "iteration_000004.pt"]
    assert [load_checkpoint(p)["counters"]["iteration"] for p in kept] == [2, 4]
    assert run_folder(str(first.checkpoint), "fresh") == str(first.checkpoint.parent.parent)
    assert run_folder(str(kept[0]), "fresh") == "fresh"
    branch, out = train(tmp_path, "branch", [*ALPHAZERO, "algo.iterations=3",
                                             f"resume={kept[0]}"], capsys)
    assert branch.counters["iteration"] == 3 and "no replay buffer of iteration 2" in out
    assert load_checkpoint(first.checkpoint)["counters"]["iteration"] == 4


def test_periodic_evaluations_draw_a_learning_curve_that_a_resume_continues(tmp_path, capsys):
    """Each periodic evaluation rates the trained agent against anchors fixed for the whole run
    (random at 0 by config, the heuristic measured once) and redraws learning_curve.png; the
    checkpoint keeps the history and the anchors, so a resumed run extends the same curve."""
    from PIL import Image

    evaluated = [*PPO, "algo.eval.every=1", "algo.eval.games=2",
                 "algo.eval.opponents=[random,heuristic]", "algo.eval.anchor_games=2"]
    first, out = train(tmp_path, "run", [*evaluated, "algo.iterations=2"], capsys)
    assert out.count("rating the anchors heuristic once") == 1
    curve = tmp_path / "run" / "learning_curve.png"
    with Image.open(curve) as image:
        assert image.format == "PNG" and min(image.size) > 100
    rated = [h for h in first.history if "eval/rating" in h]
    assert [h["iteration"] for h in rated] == [1, 2]
    for h in rated:
        assert h["eval/rating_low"] < h["eval/rating"] < h["eval/rating_high"]
        assert {"eval/random/win_rate", "eval/heuristic/win_rate"} <= set(h)
    anchors = load_checkpoint(first.checkpoint)["anchors"]
    assert set(anchors) == {"random", "heuristic"} and anchors["random"] == 0
    curve.unlink()
    more, out = train(tmp_path, "run", [*evaluated, "algo.iterations=3",
                                        f"resume={first.checkpoint}"], capsys)
    assert "rating the anchors" not in out and curve.is_file()
    assert [h["iteration"] for h in more.history if "eval/rating" in h] == [1, 2, 3]
    assert load_checkpoint(more.checkpoint)["anchors"] == anchors


def test_the_final_evaluation_ends_the_learning_curve(tmp_path, monkeypatch):
    """A run's final evaluation is drawn as the curve's last point, also in a run without
    periodic evaluations; the drawing gets its figures and the games per opponent."""
    import training.curve as curve
    import training.trainer as trainer

    drawn = []

    def spy(history, anchors, path, title, final=None):
        drawn.append(final)
        return curve.write_learning_curve(history, anchors, path, title, final)

    monkeypatch.setattr(trainer, "write_learning_curve", spy)
    result, _ = train(tmp_path, "run", [*PPO, "algo.iterations=1", "algo.eval.final_games=2",
                                        "algo.eval.final_opponents=[random]"])
    assert not any("eval/rating" in h for h in result.history)
    [final] = drawn
    assert final["games"] == 2 and final["time/minutes"] > 0
    assert 0 <= final["final/random/win_rate"] <= 1 and "final/rating" in final
    assert (tmp_path / "run" / "learning_curve.png").is_file()


def test_a_broken_learning_curve_only_warns(tmp_path, monkeypatch):
    import training.trainer as trainer

    def broken(*args, **kwargs):
        raise ImportError("matplotlib is broken")

    monkeypatch.setattr(trainer, "write_learning_curve", broken)
    with pytest.warns(UserWarning, match="learning curve .* skipped: ImportError"):
        result, _ = train(tmp_path, "run", [*ALPHAZERO, "algo.eval.every=1", "algo.eval.games=2",
                                            "algo.iterations=1"])
    assert "eval/rating" in result.history[-1] and result.checkpoint.is_file()


def test_one_rating_in_the_final_table_w_and_b_and_the_learning_curve(tmp_path, monkeypatch,
                                                                      capsys):
    """The trained agent's final rating is one number wherever the run shows it: the final
    table's row, W&B's summary (final/rating), final_evaluation.json and the curve's last
    point; the progress line's Elo is the periodic eval/rating of the history."""
    import training.curve as curve
    import training.trainer as trainer
    from training.logging import RunLogger

    summaries, drawn = [], []
    monkeypatch.setattr(RunLogger, "summary", lambda self, values: summaries.append(values))

    def spy(history, anchors, path, title, final=None):
        drawn.append(final)
        return curve.write_learning_curve(history, anchors, path, title, final)

    monkeypatch.setattr(trainer, "write_learning_curve", spy)
    result, out = train(tmp_path, "run", [*ALPHAZERO, "algo.iterations=1", "algo.eval.every=1",
                                          "algo.eval.games=2", "algo.eval.final_games=4",
                                          "algo.eval.final_opponents=[random]"], capsys)
    rating = result.final_ratings["trained"].rating
    [summary] = summaries
    written = json.loads((tmp_path / "run" / "final_evaluation.json").read_text())
    final = written["metrics"]
    assert written["date"] == time.strftime("%Y-%m-%d", time.gmtime())  # zoo figures carry it
    assert summary["final/rating"] == final["final/rating"] == drawn[-1]["final/rating"] == rating
    assert f"Elo {result.history[-1]['eval/rating']:.0f}" in out
