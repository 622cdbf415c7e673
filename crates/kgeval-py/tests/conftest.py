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
