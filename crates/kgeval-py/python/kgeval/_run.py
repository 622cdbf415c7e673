"""``kgeval.run``: a whole campaign into a report folder, as ``kgeval run MANIFEST -o DIR``."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

from kgeval._kgeval import InvalidInput
from kgeval._kgeval import run_campaign as _run_campaign

__all__ = ["run"]


def run(manifest: "str | os.PathLike[str]", out: "str | os.PathLike[str]", *, precision: Optional[int] = None) -> Dict[str, Any]:
    """Runs the campaign ``manifest`` (TOML) into the folder ``out`` and returns
    ``results.json`` as a dict.

    ``out`` gets what ``kgeval run`` writes: ``index.html``, ``tables.tex``, ``report.md``,
    ``results.json``, one CSV per task and the ``.kgeval-run`` marker, all or nothing. It must
    be new, empty or an earlier output (only the files its marker lists are replaced); a
    folder holding the manifest or an input is refused before any work. A task that fails
    keeps its error in the report and the others still run: the returned dict lists them under
    ``"failed"`` (``{name: message}``), and nothing is raised for them.
    """
    if not isinstance(manifest, (str, os.PathLike)) or not isinstance(out, (str, os.PathLike)):
        raise InvalidInput(
            f"run: found manifest={type(manifest).__name__}, out={type(out).__name__}, expected two paths"
        )
    if precision is not None and (isinstance(precision, bool) or not isinstance(precision, int) or precision < 0):
        raise InvalidInput(f"run: precision: found {precision!r}, expected a whole number from 0 to 17")
    text, failed = _run_campaign(os.fspath(manifest), os.fspath(out), precision=precision)
    results = json.loads(text)
    results["failed"] = dict(failed)
    return results
