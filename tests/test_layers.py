"""The packages are layers (cluster.PACKAGES, bottom first): a module imports only from its own
package and those below it, so nothing imports upwards and the packages have no import cycle;
and every package of pyproject.toml has its place among them."""

import ast
import re
from pathlib import Path

import pytest

from cluster import PACKAGES

ROOT = Path(__file__).resolve().parents[1]
LAYER = {name: index for index, name in enumerate(PACKAGES)}


def imported_packages(path: Path) -> set[tuple[str, int]]:
    """The project packages ``path`` imports (at any depth of the module), with the line."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        found |= {(name.split(".")[0], node.lineno) for name in names
                  if name.split(".")[0] in LAYER}
    return found


def upward_imports(package: str) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line} imports {imported}"
            for path in sorted((ROOT / package).rglob("*.py"))
            for imported, line in sorted(imported_packages(path))
            if LAYER[imported] > LAYER[package]]


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_imports_only_itself_and_the_layers_below(package):
    assert upward_imports(package) == []


def test_an_upward_import_is_found(tmp_path, monkeypatch):
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "bad.py").write_text("def f():\n    from training import trainer\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert upward_imports("envs") == ["envs/bad.py:2 imports training"]


def test_every_installed_package_is_a_layer():
    text = (ROOT / "pyproject.toml").read_text()
    include = re.search(r"include = \[(.*?)\]", text, re.S).group(1)
    assert sorted(re.findall(r'"(\w+)\*"', include)) == sorted(PACKAGES)
