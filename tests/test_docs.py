"""The pages that show measured figures are generated from the files that hold them
(docs/generate.py): a figure changed in a zoo entry's metadata, docs/figures.json or a ladder
must be regenerated into docs/results.md, docs/ladder.md and the README's zoo table, so the
copies cannot drift apart."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_generated_pages_are_up_to_date():
    done = subprocess.run([sys.executable, "docs/generate.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_changed_figure_makes_them_stale(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "docs"))
    import generate

    entry = ROOT / "zoo" / "nobles_2p" / "metadata.json"
    data = json.loads(entry.read_text())
    data["figures"][0]["score"] = 0.5
    copy = tmp_path / "zoo" / "nobles_2p"
    copy.mkdir(parents=True)
    (copy / "metadata.json").write_text(json.dumps(data))
    monkeypatch.setattr(generate, "zoo_entries", lambda: [data])
    first = data["figures"][0]
    assert f"50.0% [{100 * first['low']:.1f}, {100 * first['high']:.1f}]" in generate.results_page()
    assert generate.main(["--check"]) == 1


def test_results_md_is_a_page_of_what_stands_not_a_history():
    assert len((ROOT / "docs" / "results.md").read_text().splitlines()) < 300


def anchors(page: Path) -> set[str]:
    """The fragment names a Markdown page offers: GitHub's slug of every heading (lower case,
    punctuation but hyphens dropped, spaces as hyphens, repeats numbered) and explicit ids."""
    import re

    found, seen = set(), {}
    for line in page.read_text().splitlines():
        found.update(re.findall(r'<a id="([^"]+)"', line))
        if line.startswith("#"):
            slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return found


def test_every_link_between_the_pages_leads_somewhere():
    """A relative link of README.md or docs/ names a file that exists and, with a fragment, a
    heading or id on that page: figures and guides move, links must follow."""
    import re

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []
