"""Turn a finished measurement into figure records (docs/generate.py's format) and store them
where the figures of that agent live: a zoo agent's in ``zoo/<name>/metadata.json``, any other
agent's (``heuristic``, the reference every zoo figure is read against) in docs/figures.json's
``references``, keyed by the agent and its game config. A record of the same measure replaces
the old one; then ``python docs/generate.py`` renders the pages.

    python docs/record.py versus EVALUATE_FOLDER --command "python evaluate.py ..." --commit C
    python docs/record.py panel EVALUATE_FOLDER --command "python evaluate.py ..." --commit C
    python docs/record.py exploiter TRAIN_FOLDER --command "python train.py ..." --commit C
    python docs/record.py ladder EVALUATE_FOLDER --name CONFIG --command "..." --commit C

``versus``: a ``schedule=versus`` evaluation (results.json): one record per judged agent, measure
``vs OPPONENT``, its score the win share (a shared first place counting its share) with that
share's Wilson interval. ``panel``: a ``schedule=panel`` evaluation (results.json): one record
per judged agent and panel member, measure ``panel vs MEMBER`` (the zoo table shows the
worst). ``exploiter``: a ``+experiment=exploit`` run (final_evaluation.json and the config in its
last checkpoint): one record, measure ``exploiter``, for the exploited agent; its score is what
the exploiter wins against it. ``ladder``: a finished ``schedule=ladder`` evaluation is copied
to docs/ladders/CONFIG/ (ladder.json with the command, commit and date added; ladder.png).
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import envs  # noqa: E402
import zoo  # noqa: E402
from agents import parse_spec  # noqa: E402
from arena.stats import base_name, wilson_interval  # noqa: E402
from models.checkpoint import load_checkpoint  # noqa: E402

FIGURES = ROOT / "docs" / "figures.json"


def finished_evaluation(folder: Path, schedule: str) -> dict:
    """The results.json of a finished ``schedule`` evaluation in ``folder``."""
    try:
        results = json.loads((folder / "results.json").read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise SystemExit(f"{folder}: no evaluation results to read ({error})") from None
    if results["settings"]["schedule"] != schedule:
        raise SystemExit(f"{folder} is not a schedule={schedule} evaluation (it is "
                         f"schedule={results['settings']['schedule']})")
    if results["partial"]:
        raise SystemExit(f"{folder} holds a partial evaluation: resume it first")
    return results


def versus_records(folder: Path, common: dict) -> list[tuple[str, dict, dict]]:
    """(judged agent, its env config, record) for every agent of a versus evaluation."""
    results = finished_evaluation(folder, "versus")
    opponent = results["settings"]["opponent"]
    return [judged_record(results, match, opponent, f"vs {opponent}",
                          match["agents"][0]["win_share"], common)
            for match in results["matches"]]


def panel_records(folder: Path, common: dict) -> list[tuple[str, dict, dict]]:
    """(judged agent, its env config, record) for every judged agent and panel member."""
    results = finished_evaluation(folder, "panel")
    # The panel's own score (a draw 1/n, a shared first place its share), as the panel table
    # and panel.json give it.
    panel = json.loads((folder / "panel.json").read_text())
    out = []
    for match in results["matches"]:
        judged, member = match["agents"][0]["name"], base_name(match["lineup"][1])
        out.append(judged_record(results, match, member, f"panel vs {member}",
                                 panel[judged]["scores"][member], common))
    return out


def judged_record(results: dict, match: dict, opponent: str, measure: str, score: float,
                  common: dict) -> tuple[str, dict, dict]:
    """(judged agent, its env config, record) of the first agent of one ``match`` of an
    evaluation's ``results``: its game counts, ``score`` with that share's Wilson interval."""
    judged = match["agents"][0]
    low, high = wilson_interval(score * judged["games"], judged["games"])
    return judged["name"], results["env"], {
        "measure": measure, "agent": judged["name"], "opponent": opponent,
        **{key: judged[key] for key in ("games", "wins", "shared", "draws", "losses")},
        "score": score, "low": low, "high": high, "seed": results["settings"]["seed"],
        **common}


def exploiter_records(folder: Path, common: dict) -> list[tuple[str, dict, dict]]:
    """The exploited agent, its env config and the exploiter's record against it."""
    config = load_checkpoint(folder / "checkpoints" / "last.pt")["config"]
    final = json.loads((folder / "final_evaluation.json").read_text())
    target = config["exploit"]
    if not target:
        raise SystemExit(f"{folder} is not an exploiter run (its config has no `exploit`)")
    key = f"final/{target}"
    metrics, games = final["metrics"], final["games"]
    if f"{key}/win_rate" not in metrics:
        raise SystemExit(f"{folder}/final_evaluation.json has no games against {target}")
    try:
        figure = zoo.final_figure(metrics, key, games)
    except ValueError as error:
        raise SystemExit(f"{folder}/final_evaluation.json: {error}") from None
    minutes = config["algo"]["time_limit_minutes"]
    budget = f"{minutes:g} min" if minutes else f"{final['iteration']} iterations"
    return [(target, config["env"], {
        "measure": "exploiter", "agent": f"PPO exploiter ({budget})", "opponent": target,
        **figure, "seed": final["seed"],
        "note": f"the exploiter trained {final['minutes']:.0f} minutes "
                f"({final['iteration']} iterations)", **common})]


def publish_ladder(folder: Path, target: Path, common: dict) -> Path:
    """Copy a finished ladder (ladder.json with ``common`` added, ladder.png) to ``target``."""
    data = json.loads((folder / "ladder.json").read_text())
    if data["partial"]:
        raise SystemExit(f"{folder} holds a partial ladder: resume it first")
    target.mkdir(parents=True, exist_ok=True)
    (target / "ladder.json").write_text(json.dumps({**data, **common}, indent=1) + "\n")
    shutil.copyfile(folder / "ladder.png", target / "ladder.png")
    return target


def store(agent: str, env_config: dict, record: dict) -> Path:
    """Put ``record`` among ``agent``'s figures (replacing one of the same measure); a zoo
    agent's, with options or not (``zoo:NAME:sims=32``), go to its entry."""
    if agent.startswith("zoo:"):
        path = ROOT / "zoo" / zoo.check_name(parse_spec(agent)[1]["name"]) / "metadata.json"
        entry = json.loads(path.read_text())
        mismatch = envs.config_mismatch(entry["env_config"], envs.make_game(env_config))
        if mismatch:
            raise SystemExit(f"{agent} was measured on another game config: {mismatch}")
        holder, data = entry, entry
    else:
        path = FIGURES
        data = json.loads(path.read_text())
        references = data.setdefault("references", [])
        holder = next((r for r in references if r["agent"] == agent
                       and r["env_config"] == env_config), None)
        if holder is None:
            holder = {"agent": agent, "env_config": env_config,
                      "num_players": envs.make_game(env_config).num_players, "figures": []}
            references.append(holder)
    figures = holder.setdefault("figures", [])
    figures[:] = [r for r in figures if r["measure"] != record["measure"]] + [record]
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


RECORDS = {"versus": versus_records, "panel": panel_records, "exploiter": exploiter_records}
"""The kinds of measurement that give figure records: kind -> its reader."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=tuple(RECORDS) + ("ladder",))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--name", help="ladder: its game config's name in docs/ladders/")
    parser.add_argument("--command", required=True, help="the command that measured it")
    parser.add_argument("--commit", required=True, help="the commit it ran at")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--note", help="a note shown with every record")
    args = parser.parse_args(argv)
    common = {"command": args.command, "commit": args.commit, "date": args.date,
              **({"note": args.note} if args.note else {})}
    if args.kind == "ladder":
        if not args.name:
            parser.error("ladder needs --name (e.g. nobles_2p)")
        target = ROOT / "docs" / "ladders" / args.name
        print(f"ladder -> {publish_ladder(args.folder, target, common)}")
        return 0
    found = RECORDS[args.kind](args.folder, common)
    for agent, env_config, record in found:
        path = store(agent, env_config, record)
        print(f"{agent}: {record['measure']} {100 * record['score']:.1f}% -> "
              f"{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
