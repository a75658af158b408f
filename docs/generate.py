"""Render the pages that show measured figures from the files that hold them, so that a number
lives in one file:

- docs/results.md: every zoo agent's figures (``zoo/<name>/metadata.json``: ``figures``), the
  reference agents' figures and the other measured sections (docs/figures.json) and the
  ladders' summaries;
- docs/ladder.md: one ladder per game config (docs/ladders/<config>/ladder.json, written by
  ``evaluate.py schedule=ladder``, with its ladder.png);
- README.md: the zoo table between its ``<!-- zoo table -->`` markers.

    python docs/generate.py          # rewrite the three
    python docs/generate.py --check  # exit 1 if any is out of date (tests/test_docs.py)

A zoo figure is a record: ``measure`` (what it says, e.g. ``vs heuristic``), ``agent`` (the spec
as played), ``opponent``, ``games``, ``wins``/``shared``/``draws``/``losses``, ``score`` with its
95% interval (``low``, ``high``: the win rate, or the win share with 3-4 seats), ``command``,
``seed``, ``commit``, ``date``, and an optional ``note``. docs/record.py writes them from a
finished panel evaluation or exploiter run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ZOO_TABLE = re.compile(r"(<!-- zoo table -->\n).*?(<!-- /zoo table -->)", re.S)
COLUMNS = {"vs heuristic": "vs heuristic", "vs MCTS": "vs mcts", "panel (worst)": "panel vs",
           "exploiter": "exploiter"}
"""The zoo table's figure columns: header -> the start of the measures that fill it (what
follows a comma in a measure is shown beside the figure; of the panel's, only the worst)."""


def percent(record: dict) -> str:
    return (f"{100 * record['score']:.1f}% [{100 * record['low']:.1f}, "
            f"{100 * record['high']:.1f}]")


def cell(record: dict) -> str:
    """A figure as a table shows it: the score with its interval, or for a record without a
    win or a loss that every game was drawn; a record without a loss says so."""
    if not record["wins"] and not record["losses"] and not record.get("shared"):
        return f"no loss: all {record['games']} drawn"
    return percent(record) + (", no loss" if not record["losses"] and record["draws"] else "")


def anchor(name: str, record: dict) -> str:
    return re.sub(r"[^a-z0-9]+", "-", f"{name} {record['measure']}".lower()).strip("-")


def zoo_entries() -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted((ROOT / "zoo").glob("*/metadata.json"))]


def reference_entries() -> list[dict]:
    """The agents every zoo figure is read against (docs/figures.json ``references``: an agent
    spec, its game config and its figures), in the zoo entries' shape."""
    references = json.loads((DOCS / "figures.json").read_text()).get("references", [])
    return [{"name": f"{r['agent']} ({game_label(as_entry(r))})", **as_entry(r)}
            for r in references]


def as_entry(reference: dict) -> dict:
    return {**reference, "game": reference["env_config"]["name"]}


def column_cells(entry: dict, prefix: str, link: str) -> str:
    """A zoo table cell: the figures whose measure starts with ``prefix``, each linked to its
    provenance, with what follows a comma in its measure beside it; of the panel's, the worst
    (with the member it was against)."""
    found = [r for r in entry.get("figures", []) if r["measure"].startswith(prefix)]
    if prefix == COLUMNS["panel (worst)"] and found:
        worst = min(found, key=lambda r: r["score"])
        return (f"[{cell(worst)}]({link}#{anchor(entry['name'], worst)}) "
                f"(vs `{worst['opponent']}`, worst of {len(found)})")
    return "<br>".join(f"[{cell(r)}]({link}#{anchor(entry['name'], r)})"
                       + "".join(f" ({part.strip()})" for part in r["measure"].split(",")[1:])
                       for r in found) or "–"


def game_label(entry: dict) -> str:
    config = {k: v for k, v in entry["env_config"].items() if k not in ("name", "num_players")
              and v is not None}
    rules = ", ".join(f"{k}={v}" for k, v in config.items() if k in ("rules", "variant", "mode",
                                                                      "path_rule"))
    return f"{entry['game']} {entry['num_players']}p" + (f" ({rules})" if rules else "")


def zoo_table(entries: list[dict], references: list[dict], link: str) -> list[str]:
    """One row per zoo agent, then per reference agent: what it is, how it plays, and its
    figures (linked to their provenance in results.md)."""
    lines = ["| agent | game | trained | plays with | " + " | ".join(COLUMNS) + " |",
             "|---" * (4 + len(COLUMNS)) + "|"]
    for entry in [*entries, *references]:
        cells = [column_cells(entry, prefix, link) for prefix in COLUMNS.values()]
        if "training" in entry:
            training, sims = entry["training"], entry["policy"]["simulations"]
            mix = entry["policy"]["search"].get("game_value_weight", 0.0) if sims else 0.0
            leaves = f", leaf value {1 - mix:g} network + {mix:g} game evaluation" if mix else ""
            about = (f"`zoo:{entry['name']}` | {game_label(entry)} | {training['algo']}, "
                     f"{training['minutes']:.0f} min | "
                     f"{f'{sims} simulations' if sims else 'its policy'}{leaves}")
        else:
            about = f"`{entry['agent']}` | {game_label(entry)} | not trained | its rules"
        lines.append(f"| {about} | " + " | ".join(cells) + " |")
    return lines


def provenance(name: str, record: dict) -> list[str]:
    result = "-".join(str(record.get(k, 0)) for k in ("wins", "shared", "draws", "losses"))
    return [f"- <a id=\"{anchor(name, record)}\"></a>**{name}, {record['measure']}**: "
            f"{cell(record)} ({result} W-S-D-L over {record['games']} games, "
            f"`{record['agent']}` against `{record['opponent']}`); seed {record['seed']}, "
            f"commit {record['commit']}, {record['date']}"
            + (f"; {record['note']}" if record.get("note") else "")
            + f": `{record['command']}`"]


def ladder_summaries() -> list[tuple[str, dict]]:
    return [(path.parent.name, json.loads(path.read_text()))
            for path in sorted((DOCS / "ladders").glob("*/ladder.json"))]


def results_page() -> str:
    entries, references = zoo_entries(), reference_entries()
    sections = json.loads((DOCS / "figures.json").read_text())["sections"]
    lines = ["# Measured results", "",
             "What stands today, each figure with its command, seed, commit and date; generated "
             "by `python docs/generate.py` from the files that hold the figures (the zoo's "
             "metadata, docs/figures.json, docs/ladders/). How the figures came about, and "
             "everything tried before: [docs/experiments/](experiments/).", "",
             "All figures: seats rotated, 95% intervals (Wilson for win rates and shares, "
             "bootstrap for ratings); a win share counts a shared first place by its share; "
             "with 3-4 seats the agent plays against copies of the opponent (1/n is parity).",
             "", "## The zoo", "", *zoo_table(entries, references, ""), "",
             "Panel: the worst score (share of first place, a draw 1/n) over the robustness panel "
             "(arena/panel.py), against the member named. Exploiter: what a fresh PPO agent "
             "trained 20 minutes against the agent alone wins against it "
             "(`+experiment=exploit`; lower is more robust). The hand-written `heuristic` of "
             "each game is measured the same way, as the reference.",
             ""]
    if (DOCS / "ladders").is_dir():
        lines += ["## Ladders", "", "Every zoo agent at several search budgets beside "
                  "`random`, `heuristic` and plain MCTS, on one Elo scale (random = 0): "
                  "[ladder.md](ladder.md).", ""]
        for config, ladder in ladder_summaries():
            best = ladder["ratings"][0]
            lines.append(f"- {config}: best `{best['agent']}` at {best['rating']:.0f} "
                         f"[{best['low']:.0f}, {best['high']:.0f}]")
        lines.append("")
    for section in sections:
        lines += [f"## {section['title']}", "", section["body"].rstrip(), "",
                  f"Measured {section['date']}, commit {section['commit']}:", "",
                  *(f"    {command}" for command in section["commands"]), ""]
    lines += ["## How each zoo figure was measured", ""]
    for entry in [*entries, *references]:
        for record in entry.get("figures", []):
            lines += provenance(entry["name"], record)
    return "\n".join(lines) + "\n"


def ladder_page() -> str:
    lines = ["# Ladders", "", "Generated by `python docs/generate.py` from docs/ladders/: "
             "each game config's agents on one Elo scale (Plackett-Luce first place, random "
             "= 0, 95% bootstrap intervals), from blocks of games between the pairs that inform "
             "most (arena/ladder.py). The plot: rating against milliseconds per move, one line "
             "per agent family across its search budgets.", ""]
    for config, ladder in ladder_summaries():
        settings = ladder["settings"]
        lines += [f"## {config}", "", f"`{json.dumps(ladder['env'])}`, {len(ladder['blocks'])} "
                  f"blocks of {settings['games']} games, seed {settings['seed']}"
                  + (", partial" if ladder["partial"] else ""), "",
                  "| agent | Elo (random = 0) | games | ms/move |", "|---|---|---|---|"]
        lines += [f"| `{r['agent']}` | {r['rating']:.0f} [{r['low']:.0f}, {r['high']:.0f}] | "
                  f"{r['games']} | {r['ms_per_move']:.1f} |" for r in ladder["ratings"]]
        lines += ["", f"![{config}](ladders/{config}/ladder.png)", ""]
        if ladder.get("command"):
            lines += [f"Commit {ladder['commit']}, {ladder['date']}:", "",
                      f"    {ladder['command']}", ""]
    return "\n".join(lines) + "\n"


def readme() -> str:
    text = (ROOT / "README.md").read_text()
    table = "\n".join(zoo_table(zoo_entries(), reference_entries(), "docs/results.md")) + "\n"
    return ZOO_TABLE.sub(lambda m: m.group(1) + table + m.group(2), text)


def pages() -> dict[Path, str]:
    return {DOCS / "results.md": results_page(), DOCS / "ladder.md": ladder_page(),
            ROOT / "README.md": readme()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a page differs from what the files generate")
    args = parser.parse_args(argv)
    stale = [path for path, text in pages().items()
             if not path.is_file() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: python docs/generate.py")
        return 1 if stale else 0
    for path in stale:
        path.write_text(pages()[path])
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
