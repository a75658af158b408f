"""The README's Python examples run as written."""

import re
from pathlib import Path

from policy_files import copy_exported

README = Path(__file__).parents[1] / "README.md"


def test_readme_python_examples_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)  # the example saves blockade.png
    copy_exported({"name": "blockade", "num_players": 2}, tmp_path)  # export.py's files
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert (tmp_path / "blockade.png").stat().st_size > 0
