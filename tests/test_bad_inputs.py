"""Bad input to any entry point (train.py, evaluate.py, play.py, export.py), as a new user types
it: refused before any work with exit code 2 and one line on stderr that names the key at
fault, and nothing written (no run folder, no ``.hydra/``, nothing in a resumed run's folder).
The entry points run in this process, as ``python <script>.py ARGS`` runs them, from an empty
folder that must stay empty."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest
from policy_files import tiny_checkpoint

BLOCKADE_RUN = "blockade-run"
"""The folder of a Blockade run's checkpoint (checkpoints/last.pt): resumed with the wrong game."""


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    tiny_checkpoint(folder / BLOCKADE_RUN / "checkpoints" / "last.pt", {"name": "blockade"})
    (folder / "random.pt").write_bytes(os.urandom(2000))
    return folder


CASES = [
    # Hydra's errors: an unknown group option, key or unreadable override
    ("train", ["env=chess"], "env=chess: no such env; valid: barricade, blockade,"),
    ("train", ["model=huge"], "model=huge: no such model; valid: compact, medium,"),
    ("train", ["foo=1"], "unknown key foo; valid keys in the config: algo, env,"),
    ("train", ["env=barricade", "env.num_players=4"], "unknown key env.num_players; valid keys "
                                                      "in env: max_turns, name,"),
    ("train", ["algo.search.simulatoins=5"], "(did you mean simulations?)"),
    ("train", ["algo.selfplay.teacher=mcts:simulations=5"],
     "cannot read 'algo.selfplay.teacher=mcts:simulations=5'"),
    ("evaluate", ["env=chess"], "env=chess: no such env"),
    ("evaluate", ["foo=1"], "unknown key foo"),
    ("play", ["env=chess"], "env=chess: no such env"),
    ("play", ["foo=1"], "unknown key foo"),
    ("export", ["foo=1"], "unknown key foo"),
    ("train", ["--badflag"], "unknown option --badflag; settings are key=value"),
    ("play", ["env=nobles", "--seed", "3"], "unknown option --seed"),
    # agent specs anywhere, and the numbers inside them
    ("train", ["algo.eval.opponents=[nonsense]"], "algo.eval.opponents='nonsense': unknown agent"),
    ("train", ["algo.eval.opponents=[checkpoint:missing.pt]"],
     "algo.eval.opponents='checkpoint:missing.pt': checkpoint not found: missing.pt"),
    ("train", ["algo.eval.final_opponents=[heuristc]"], "(did you mean heuristic?)"),
    ("train", ['algo.eval.opponents=["mcts:simulations=abc"]'],
     "algo.eval.opponents='mcts:simulations=abc': config mcts agent.simulations='abc': must be "
     "an integer"),
    ("train", ["algo=ppo", "algo.pool.baselines=[nonsense]"], "algo.pool.baselines='nonsense'"),
    ("evaluate", ['agents=[random,"mcts:simulations=abc"]'], "mcts agent.simulations='abc'"),
    ("evaluate", ["env=nobles", 'agents=[random,"zoo:nobles_2p:sims=abc"]'],
     "zoo agent.sims='abc'"),
    ("play", ["env=nobles", 'agents=[human,"zoo:nobles_2p:sims=abc"]'],
     "zoo agent.sims='abc'"),
    ("evaluate", ["games=abc"], "games='abc': must be an integer"),
    ("evaluate", ["workers=abc"], "workers='abc': must be an integer"),
    # checkpoints: not one, or of another game
    ("train", ["resume={files}/random.pt"], "random.pt is corrupt or not a checkpoint (not a "
                                            "file written by torch.save)"),
    ("evaluate", ['agents=[random,"checkpoint:{files}/random.pt"]'], "not a checkpoint"),
    ("export", ["checkpoint={files}/random.pt"], "not a checkpoint"),
    ("export", [], "which checkpoint? python export.py checkpoint=PATH"),
    ("train", ["env=nobles", f"resume={{files}}/{BLOCKADE_RUN}/checkpoints/last.pt"],
     "cannot resume a blockade run as nobles"),
    ("train", ["env=barricade", f"resume={{files}}/{BLOCKADE_RUN}/checkpoints/last.pt"],
     "cannot resume a blockade run as barricade"),
    # W&B online without credentials, an output folder that cannot be written
    ("train", ["logger=online"], "logger=online needs W&B credentials: run `wandb login`"),
    ("evaluate", ["logger=online"], "or use logger=offline"),
    ("train", ["hydra.run.dir=/proc/x"], "cannot write the output folder /proc/x"),
    # a sweep (checked once before its first job) that cannot produce a score
    ("train", ["-m", "seed=0,1", "algo.eval.final_games=0"], "give it algo.eval.final_games > 0"),
    ("train", ["-m", "seed=0,1", "algo.eval.opponents=[nonsense]"], "algo.eval.opponents"),
    ("train", ["-m", "seed=0,1", "hydra.sweep.dir=/proc/x"], "choose another with "
                                                               "hydra.sweep.dir="),
]


@pytest.mark.parametrize("script, args, message", CASES,
                         ids=[f"{s} {' '.join(a)}" for s, a, _ in CASES])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(script, args, message, files,
                                                         tmp_path, monkeypatch, capsys):
    before = sorted(files.rglob("*"))
    monkeypatch.chdir(tmp_path)  # where train.py and evaluate.py would make outputs/
    monkeypatch.setenv("HOME", str(tmp_path.parent))  # no W&B credentials in ~/.netrc
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")  # the entry point's own setting, undone after
    args = [arg.replace("{files}", str(files)) for arg in args]
    if script in ("train", "evaluate") and not any(a.startswith("logger=") for a in args):
        args = [*args, "logger=disabled"]
    monkeypatch.setattr(sys, "argv", [f"{script}.py", *args])
    with pytest.raises(SystemExit) as exit:
        importlib.import_module(script).main()
    assert exit.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert os.listdir(tmp_path) == [] and sorted(files.rglob("*")) == before
