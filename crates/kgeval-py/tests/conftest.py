"""Shared paths for the kgeval Python tests."""

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TESTDATA = REPO / "testdata"

# The peer scripts' generators are imported, not copied (xtask/peer/trec_agreement.py).
sys.path.insert(0, str(REPO / "xtask" / "peer"))


@pytest.fixture
def testdata() -> Path:
    return TESTDATA


def kgeval_binary():
    """The ``kgeval`` binary the CLI comparisons run: ``$KGEVAL_BIN`` (a relative path is
    taken from the repository root, since tests change folder), else target/debug/kgeval, else
    target/release/kgeval; None when none exists."""
    import os

    given = os.environ.get("KGEVAL_BIN")
    candidates = [REPO / given] if given else [REPO / "target" / "debug" / "kgeval", REPO / "target" / "release" / "kgeval"]
    return next((str(c) for c in candidates if c.is_file()), None)


# qald, lexicon, compare (issue 16 items 5, 6): the command line the results must equal.
@pytest.fixture
def kgeval_cli():
    """Runs the ``kgeval`` binary (``$KGEVAL_BIN``, else target/debug/kgeval, which
    ``.ci/run`` builds before the Python checks) from the repository root and returns its
    stdout parsed as JSON."""
    import json
    import subprocess

    binary = kgeval_binary()
    if binary is None:
        pytest.skip("no kgeval binary (cargo build -p kgeval-cli, or set KGEVAL_BIN)")

    def run(*args, cwd=REPO):
        done = subprocess.run([binary, *map(str, args)], cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return run
