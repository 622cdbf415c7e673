"""Runs every ```python block of a Markdown page (docs/python.md), in order, from the
repository root: `python docs_blocks.py docs/python.md`. Used by xtask/python.sh in a fresh
venv (the installed wheel and its declared dependencies only) and by test_docs.py."""

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def blocks(page: Path) -> "list[str]":
    """The ```python blocks of `page`, in order."""
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def run(page: Path) -> int:
    """Runs each block of `page` in its own namespace from the repository root; the count."""
    found = blocks(page)
    if not found:
        raise SystemExit(f"{page}: found no ```python block, expected at least one")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for i, block in enumerate(found):
            exec(compile(block, f"{page} (python block {i + 1})", "exec"), {"__name__": f"docs_block_{i + 1}"})
    finally:
        os.chdir(cwd)
    return len(found)


if __name__ == "__main__":
    page = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "python.md"
    print(f"{page}: {run(page.resolve())} python blocks ran")
