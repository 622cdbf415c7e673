"""docs/python.md's Python blocks run as written, from the repository root (their asserts are
the figures the page quotes)."""

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def _runner():
    spec = importlib.util.spec_from_file_location("docs_blocks", HERE / "docs_blocks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_python_block_of_docs_python_md_runs():
    runner = _runner()
    page = ROOT / "docs" / "python.md"
    assert len(runner.blocks(page)) >= 4
    assert runner.run(page) == len(runner.blocks(page))
