"""Ontology lexicalization (QALD-3 Task 2): a lemon / OntoLex lexicon against a gold lexicon,
per class and property of a URI list::

    import kgeval
    result = kgeval.lexicon.evaluate("gold.ttl", {"mine": "mine.ttl"}, "uris.txt")
    result["systems"][0]["average"]["f_measure"]

Inputs are paths or the files' ``bytes`` (Turtle; the URI list: classes, a blank line,
properties). The result equals ``kgeval lexicon --format json`` (``per_item=True``:
``--per-item``) on the same files, as a dict with the score table as ``.table``.
"""

from __future__ import annotations

from typing import Any, Optional

from kgeval import _systems
from kgeval._evaluation import Evaluation
from kgeval._kgeval import lexicon_evaluate

__all__ = ["evaluate"]


def evaluate(
    gold: Any,
    system: Any,
    uris: Any,
    *,
    mode: Optional[str] = None,
    base_iri: Optional[str] = None,
    per_item: bool = False,
) -> Evaluation:
    """Scores submitted lexicons against the gold lexicon on the URIs of ``uris``.

    ``gold``, ``uris``: a path or ``bytes``. ``system``: one lexicon (path or bytes; named by
    the file stem, ``"system"`` for bytes), ``{name: lexicon}``, or a list of lexicons or
    ``(name, lexicon)`` pairs. Options left ``None`` take kgeval's defaults:
    ``mode="paper"`` (the published formulas; ``"qald3-script"``: the original script with
    its quirks), no ``base_iri``.

    Returns ``kgeval lexicon --format json`` as a dict, with ``.table``. Raises
    :class:`kgeval.ParseError`, :class:`kgeval.ReadError` or :class:`kgeval.InvalidInput`.
    """
    systems = _systems.systems(system, lambda _: False, lambda v: v)
    return Evaluation._from_native(
        lexicon_evaluate(gold, uris, systems, mode=mode, base_iri=base_iri, per_item=per_item)
    )
