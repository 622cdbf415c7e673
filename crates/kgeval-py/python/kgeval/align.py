"""``kgeval.align``: ontology alignments against (partial) references, with MELT's, the
Alignment API's, OAEI SEALS', OntoAligner's or DISO's conventions.

An alignment is a path (Alignment-API RDF/XML, Turtle, N-Triples, TSV/CSV, SSSOM; gzip
accepted) or an OntoAligner-style list of dicts ``{"source", "target", "score"}`` (plus an
optional ``"relation"``: ``=`` when absent; ``score`` 1.0 when absent), or a data frame with
those columns. Everything is scored by the Rust facade, the same code as ``kgeval align``::

    import kgeval.align
    result = kgeval.align.evaluate("reference.rdf", matchings, mode="partial")
    result.precision, result.recall, result.f1, result.tp, result.fp, result.fn
    result.to_pandas()  # one row per pair x reference x type, plus MICRO and MACRO

    # OntoAligner's metrics.evaluation_report, key for key:
    kgeval.align.evaluate(dataset["reference"], matchings, profile="ontoaligner")
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from kgeval._kgeval import ScoreTable, align_evaluate

__all__ = ["evaluate", "evaluate_track", "AlignmentResult", "AlignmentTrack"]

# The types of the per-type breakdown, in MELT's order (keys of the JSON's ``by_type``).
_TYPES = ("classes", "properties", "object_properties", "datatype_properties", "instances")
_COUNTS = ("precision", "recall", "f1", "tp", "fp", "fn", "ignored", "correspondences")


def _is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "to_dict")


def _alignment(value: Any) -> Any:
    """A path as ``str``, a data frame as its records, anything else as given (the native
    module checks it)."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if _is_frame(value):
        return value.to_dict("records")
    return value


def _is_single(value: Any) -> bool:
    """Whether ``value`` is one system's alignment (a path, a frame, a list of cell dicts)
    rather than several systems."""
    if isinstance(value, (str, os.PathLike)) or _is_frame(value):
        return True
    if isinstance(value, Mapping):
        return False
    if isinstance(value, Sequence):
        # An empty list is one system that found nothing (scored 0, as an empty file is).
        return len(value) == 0 or isinstance(value[0], Mapping)
    return False


def _systems(value: Any) -> List[Tuple[Optional[str], Any]]:
    """``[(name or None, alignment)]`` from one alignment, a mapping ``{name: alignment}`` or a
    list of alignments / ``(name, alignment)`` tuples."""
    if _is_single(value):
        return [(None, _alignment(value))]
    if isinstance(value, Mapping):
        return [(str(name), _alignment(a)) for name, a in value.items()]
    out = []
    for item in value:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            out.append((item[0], _alignment(item[1])))
        else:
            out.append((None, _alignment(item)))
    return out


class AlignmentTrack(dict):
    """``{system: AlignmentResult}`` with the per-item score table of every system as
    ``.table``: ``kgeval.compare(track)`` tests which systems differ significantly."""

    def __init__(self, results: Dict[str, "AlignmentResult"], table: ScoreTable) -> None:
        super().__init__(results)
        self.table = table


class AlignmentResult:
    """One system's scores, as ``kgeval align --format json`` gives them.

    ``precision``, ``recall``, ``f1`` and the counts ``tp``, ``fp``, ``fn``, ``ignored``,
    ``correspondences`` are the micro values of the primary reference (pooled counts over the
    pairs; with one pair, that pair's). ``macro`` holds the macro ones, ``secondary`` the
    secondary reference's (or ``None``), ``by_type`` the per-type breakdown (classes,
    properties, object/datatype properties, instances) of each pair that has ontologies,
    ``pairs`` every pair's entry, ``evaluation_report`` OntoAligner's dict under the
    ``ontoaligner`` profile.
    """

    def __init__(
        self,
        entry: Dict[str, Any],
        warnings: Sequence[str] = (),
        labels: Optional[str] = None,
        table: Optional[ScoreTable] = None,
    ) -> None:
        self._entry = entry
        #: The per-item score table of the call that produced this result (every system of
        #: it): pass the result to :func:`kgeval.compare`.
        self.table = table
        self.system: str = entry["system"]
        self.profile: str = entry["profile"]
        self.mode: str = entry["mode"]
        self.conventions: Dict[str, Any] = entry["conventions"]
        self.pairs: List[Dict[str, Any]] = entry["pairs"]
        micro = entry["micro"]["primary"]
        self.precision: float = micro["precision"]
        self.recall: float = micro["recall"]
        self.f1: float = micro["f1"]
        self.tp: int = micro["tp"]
        self.fp: int = micro["fp"]
        self.fn: int = micro["fn"]
        self.ignored: int = micro["ignored"]
        self.correspondences: int = micro["correspondences"]
        self.macro: Dict[str, Any] = entry["macro"]["primary"]
        self.secondary: Optional[Dict[str, Any]] = entry["micro"]["secondary"]
        self.by_type: Dict[str, Dict[str, Any]] = {p["name"]: p["by_type"] for p in self.pairs if p.get("by_type")}
        reports = [p["primary"].get("evaluation_report") for p in self.pairs]
        self.evaluation_report: Optional[Dict[str, Any]] = reports[0] if len(reports) == 1 else None
        self.warnings: List[str] = list(warnings)
        self.labels_tsv: Optional[str] = labels

    def to_dict(self) -> Dict[str, Any]:
        """The system's entry of ``kgeval align --format json`` (a copy)."""
        return copy.deepcopy(self._entry)

    def rows(self) -> List[Dict[str, Any]]:
        """One row per pair x reference (primary, secondary) x type (``all`` and the types of
        the breakdown), then the ``MICRO`` and ``MACRO`` rows, as MELT's CSV lists them."""
        out = []

        def add(pair: str, reference: str, kind: str, scores: Mapping[str, Any]) -> None:
            row = {"system": self.system, "pair": pair, "reference": reference, "type": kind}
            row.update({k: scores[k] for k in _COUNTS})
            out.append(row)

        for pair in self.pairs:
            for reference in ("primary", "secondary"):
                if pair.get(reference):
                    add(pair["name"], reference, "all", pair[reference])
            for kind in _TYPES:
                if pair.get("by_type") and pair["by_type"].get(kind):
                    add(pair["name"], "primary", kind, pair["by_type"][kind])
        for aggregate in ("micro", "macro"):
            for reference in ("primary", "secondary"):
                scores = self._entry[aggregate][reference]
                if scores:
                    add(aggregate.upper(), reference, "all", scores)
        return out

    def to_pandas(self) -> Any:
        """:meth:`rows` as a ``pandas.DataFrame`` (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def __repr__(self) -> str:
        return (
            f"AlignmentResult(system={self.system!r}, precision={self.precision:.4f}, recall={self.recall:.4f}, "
            f"f1={self.f1:.4f}, tp={self.tp}, fp={self.fp}, fn={self.fn})"
        )


def evaluate_track(
    pairs: Iterable[Mapping[str, Any]],
    *,
    mode: Optional[str] = None,
    profile: Optional[str] = None,
    threshold: Optional[float] = None,
    beta: Optional[float] = None,
    best_threshold: Optional[bool] = None,
    macro_harmonic: Optional[bool] = None,
    expected_pairs: Optional[int] = None,
    collect_labels: Optional[bool] = None,
) -> AlignmentTrack:
    """Scores every system over the test cases it has, as ``kgeval align --manifest`` does.

    ``pairs``: dicts with ``name``, ``reference``, ``systems`` (one alignment, a mapping
    ``{name: alignment}`` or a list of alignments / ``(name, alignment)``), and optionally
    ``track`` (systems named ``track:system``), ``secondary``, ``exclusion``, ``baseline``
    (alignments), ``onto1`` and ``onto2`` (ontology paths: the per-type breakdown and residual
    recall). Returns ``{system: AlignmentResult}`` in first-seen order. Options as
    :func:`evaluate`.
    """
    native = []
    for pair in pairs:
        entry = dict(pair)
        entry["reference"] = _alignment(entry.get("reference"))
        for key in ("secondary", "exclusion", "baseline", "onto1", "onto2"):
            if entry.get(key) is not None:
                entry[key] = _alignment(entry[key])
        entry["systems"] = _systems(entry.get("systems", []))
        native.append(entry)
    document, warnings, labels, table = align_evaluate(
        native,
        profile=profile,
        mode=mode,
        threshold=threshold,
        beta=beta,
        best_threshold=best_threshold,
        macro_harmonic=macro_harmonic,
        expected_pairs=expected_pairs,
        collect_labels=collect_labels,
    )
    systems = json.loads(document)["systems"]
    return AlignmentTrack({s["system"]: AlignmentResult(s, warnings, labels, table) for s in systems}, table)


def evaluate(
    reference: Any,
    system: Any,
    *,
    mode: Optional[str] = None,
    profile: Optional[str] = None,
    threshold: Optional[float] = None,
    beta: Optional[float] = None,
    onto1: Any = None,
    onto2: Any = None,
    secondary: Any = None,
    exclusion: Any = None,
    baseline: Any = None,
    name: Optional[str] = None,
    best_threshold: Optional[bool] = None,
    collect_labels: Optional[bool] = None,
) -> Union[AlignmentResult, Dict[str, Any]]:
    """Scores one test case: ``system`` against ``reference``.

    ``reference`` and ``system``: a path or a list of ``{"source", "target", "score"}`` dicts
    (OntoAligner's matchings and ``dataset["reference"]``) or a data frame with those columns.
    Several systems: a mapping ``{name: alignment}`` or a list of paths / ``(name,
    alignment)`` tuples (a path names its system by its file stem, as ``kgeval align`` does;
    a list of dicts is named ``system``; an empty list is a system that found nothing).

    ``profile``: ``melt`` (default), ``alignapi``, ``oaei-seals``, ``ontoaligner``, ``diso``.
    ``mode``: how complete the reference is (``complete``, ``partial``, ``partial-source``,
    ``partial-target``, ``partial-none``; default: the profile's). ``threshold`` keeps
    cells with ``score >= threshold``; ``beta`` is the F-measure's β (default 1); ``onto1`` /
    ``onto2`` (paths) give the per-type breakdown and residual recall.

    Returns an :class:`AlignmentResult`; with several systems ``{name: AlignmentResult}``.
    With ``profile="ontoaligner"``: OntoAligner's ``evaluation_report`` dict
    (``intersection``, ``precision``, ``recall``, ``f-score`` ×100, ``predictions-len``,
    ``reference-len``), or ``{name: dict}`` for several systems.
    """
    single = _is_single(system)
    pair: Dict[str, Any] = {"name": name, "reference": reference, "systems": system}
    for key, value in (("onto1", onto1), ("onto2", onto2), ("secondary", secondary), ("exclusion", exclusion), ("baseline", baseline)):
        if value is not None:
            pair[key] = value
    results = evaluate_track(
        [pair], mode=mode, profile=profile, threshold=threshold, beta=beta, best_threshold=best_threshold, collect_labels=collect_labels
    )
    if profile == "ontoaligner":
        reports = {n: r.evaluation_report for n, r in results.items()}
        return next(iter(reports.values())) if single else reports
    return next(iter(results.values())) if single else results
