"""Every third-party module the project imports is a declared dependency. A fresh install has
nothing else: the README's install command installs the core dependencies and the extras it
names, so a module that only a hand-installed package provides must fail here, not on a
user's machine nine minutes into a run."""

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).parents[1]
PROJECT = "boardgame-rl"
SKIPPED_FOLDERS = {".git", ".venv", "venv", "build", "outputs", "multirun", "wandb"}
ANY_EXTRA_FOLDERS = {"benchmarks"}
"""Scripts run by hand with the extras they document (``pip install -e ".[bench]"``)."""
DISTRIBUTION_OF = {"pyspiel": "open-spiel"}
"""Import names of optional packages that may not be installed here and differ from their
distribution's name (an installed package is looked up in its own metadata instead)."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def readme_extras() -> set[str]:
    """The extras the README's quick-start install commands name, e.g. ``.[dev]``."""
    commands = re.findall(r'pip install -e "\.\[([\w,-]+)\]"', (ROOT / "README.md").read_text())
    assert commands, "the README's quick start has no `pip install -e \".[...]\"` command"
    return {extra for names in commands for extra in names.split(",")}


def declared() -> tuple[set[str], set[str]]:
    """(distributions of the core and README extras, distributions of every extra)."""
    core, extras = set(), set()
    requirements = metadata.requires(PROJECT) or []
    wanted = readme_extras()
    for _ in requirements:  # an extra may pull in others: dev = ["boardgame-rl[ray,sweep]"]
        wanted |= {name for requirement in requirements
                   if (pulled := re.match(rf"{PROJECT}\[([\w,-]+)\]", requirement))
                   and extra_of(requirement) in wanted for name in pulled.group(1).split(",")}
    for requirement in requirements:
        name = canonical(re.match(r"[A-Za-z0-9._-]+", requirement).group())
        extras.add(name)
        if extra_of(requirement) in wanted | {None}:
            core.add(name)
    return core, extras


def extra_of(requirement: str) -> str | None:
    """The extra a requirement of the project's metadata belongs to (None: a core one)."""
    extra = re.search(r"""extra\s*==\s*['"]([\w-]+)['"]""", requirement)
    return extra and extra.group(1)


def python_files():
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if not any(p in SKIPPED_FOLDERS or p.startswith(".") for p in parts[:-1]):
            yield path


def imported_modules(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module.split(".")[0]


def test_every_imported_module_is_a_declared_dependency():
    core, every_extra = declared()
    local = {p.stem for p in python_files()} | {
        p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    providers = metadata.packages_distributions()
    problems = []
    for path in python_files():
        allowed = every_extra if path.relative_to(ROOT).parts[0] in ANY_EXTRA_FOLDERS else core
        for module in sorted(set(imported_modules(path))):
            if module in sys.stdlib_module_names or module in local:
                continue
            dists = {canonical(d) for d in providers.get(module, [])} or {
                canonical(DISTRIBUTION_OF.get(module, module))}
            where = path.relative_to(ROOT)
            if not dists & allowed:
                problems.append(f"{where}: imports {module} (from {', '.join(sorted(dists))}), "
                                "not declared in pyproject.toml's dependencies or the README's "
                                "extras (reinstall after editing pyproject.toml)")
    assert not problems, "\n".join(problems)


def test_the_check_sees_an_undeclared_module(tmp_path, monkeypatch):
    """The walk finds imports inside functions too (optional imports are still imports)."""
    script = tmp_path / "tool.py"
    script.write_text("def f():\n    import imageio.v2 as imageio\n    from numpy import array\n")
    assert set(imported_modules(script)) == {"imageio", "numpy"}
    core, _ = declared()
    assert "numpy" in core and "imageio" not in core
