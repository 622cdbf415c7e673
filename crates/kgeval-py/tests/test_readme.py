"""The README's Python section runs as written, from the repository root (its asserts are the
figures it quotes)."""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_readme_python_section_runs_as_written(monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "one Python block in the README's Python section"
    assert blocks[0].count("assert ") >= 7
    monkeypatch.chdir(ROOT)
    exec(compile(blocks[0], "README.md (Python section)", "exec"), {"__name__": "readme"})
    assert os.getcwd() == str(ROOT)
