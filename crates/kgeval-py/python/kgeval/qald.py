"""QALD: question answering over linked data, any QALD dialect (XML or JSON), under the
QALD-3, QALD-6 or GERBIL rule::

    import json, kgeval
    gold = json.load(open("qald-9-test-multilingual.json"))
    result = kgeval.qald.evaluate(gold, {"mine": my_answers_dict}, rule="gerbil")
    result["systems"][0]["global"]["qald_f"]   # GERBIL's Macro F1 QALD
    kgeval.compare([result], metrics=["f1"])    # which systems differ significantly

Inputs are paths, ``bytes`` of a file, or QALD JSON dicts as ``json.load`` gives them. The
result equals ``kgeval qald --format json`` (``per_item=True``: ``--per-item``) on the same
files, as a dict with the score table as ``.table``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Mapping, Optional

from kgeval import _systems
from kgeval._evaluation import Evaluation
from kgeval._kgeval import qald_evaluate

__all__ = ["evaluate"]


def _is_dataset(value: Any) -> bool:
    return isinstance(value, Mapping) and ("questions" in value or "dataset" in value)


def _encode(value: Any) -> Any:
    """A path or bytes as they are; a QALD dict as its JSON text."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return value
    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False, indent=1).encode("utf-8")
    return value


def evaluate(
    gold: Any,
    system: Any,
    *,
    rule: Optional[str] = None,
    language: Optional[str] = None,
    data: "Iterable[Any] | None" = None,
    endpoint: Optional[str] = None,
    timeout: Optional[float] = None,
    gold_from_queries: Optional[bool] = None,
    labels: Any = None,
    normalisation: Optional[Mapping[str, bool]] = None,
    per_item: bool = False,
) -> Evaluation:
    """Scores submissions against the gold question set.

    ``gold``: a path, the file's ``bytes``, or a QALD dict. ``system``: one submission (path,
    bytes or dict; named by the file stem, ``"system"`` for a dict), ``{name: submission}``,
    or a list of submissions or ``(name, submission)`` pairs. Options left ``None`` take
    kgeval's defaults: ``rule="qald3"`` (also ``"qald6"``, ``"gerbil"``), ``language="en"``,
    no query execution (``data``: RDF files loaded into an embedded store, or ``endpoint``: a
    SPARQL endpoint, ``timeout`` 60 s, to run queries given without answers;
    ``gold_from_queries`` runs the gold's queries too), ``labels`` (an IRI → labels TSV) none,
    ``normalisation`` every step on except ``respect_literal_type`` (switches by name:
    ``trim``, ``boolean_case``, ``iri_percent_decoding``, ``numbers_as_decimals``,
    ``date_part``, ``respect_literal_type``).

    Returns ``kgeval qald --format json`` as a dict (``systems[i]["global"]`` and ``["local"]``
    hold macro/micro P, R, ``qald_f``, ``mean_f``; ``questions`` the per-question scores),
    with ``.table``. Raises :class:`kgeval.ParseError`, :class:`kgeval.ReadError` or
    :class:`kgeval.InvalidInput`.
    """
    systems = _systems.systems(system, _is_dataset, _encode)
    return Evaluation._from_native(
        qald_evaluate(
            _encode(gold),
            systems,
            rule=rule,
            language=language,
            data=None if data is None else [d if isinstance(d, (bytes, str)) else os.fspath(d) for d in data],
            endpoint=endpoint,
            timeout=timeout,
            gold_from_queries=gold_from_queries,
            labels=labels,
            normalisation=None if normalisation is None else [(str(k), bool(v)) for k, v in normalisation.items()],
            per_item=per_item,
        )
    )
