"""``kgeval.compare``: does system A really beat system B? Paired significance tests,
leaderboards with significance letters, the p-value matrix and discriminative power over
per-item scores; with ``against``, Kendall's tau and RBO between two result sets' system
orderings. The result equals ``kgeval compare --format json``.

Per-item scores come as:

- paths (``kgeval --per-item`` JSON of any family, trec_eval ``-q`` output, a long CSV
  ``system,item,metric,value``; with ``against``, also a wide system × metric CSV such as
  kgc-sparsity's ``evaluation.csv``): ``compare({"bm25": "bm25.json", "dense": "dense.json"})``;
- results of the other families, whose per-item score table they carry (``.table``):
  ``compare([kgeval.qald.evaluate(gold, {"A": a, "B": b})])``;
- values in memory: ``{system: {item: score}}`` (of the metric ``metric``), or
  ``{system: {item: {metric: score}}}`` such as ``kgeval.trec.evaluate(...)``'s per-query
  dicts: ``compare({"bm25": kgeval.trec.evaluate(qrels, bm25), "dense": ...})``;
- a pandas data frame, long (columns ``system``, ``item``, ``value`` and optionally
  ``metric``) or wide (items as the index, one column per system).
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, List, Mapping, Optional, Tuple

from kgeval._kgeval import InvalidInput, ScoreTable
from kgeval._kgeval import compare as _native_compare

__all__ = ["compare"]


def _is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "iloc")


def _table_of(value: Any) -> Optional[ScoreTable]:
    if isinstance(value, ScoreTable):
        return value
    table = getattr(value, "table", None)
    return table if isinstance(table, ScoreTable) else None


def _frame_systems(frame: Any, metric: str) -> List[Tuple[Optional[str], Any]]:
    """A long frame (system, item, [metric,] value) or a wide one (items × systems) as
    ``[(system, {item: {metric: value}})]``."""
    columns = [str(c) for c in frame.columns]
    if "system" in columns and "item" in columns:
        value = "value" if "value" in columns else "score" if "score" in columns else None
        if value is None:
            raise InvalidInput(f"data frame: found columns {columns}, expected a value (or score) column")
        out: dict = {}
        metrics = frame["metric"].tolist() if "metric" in columns else [metric] * len(frame)
        for s, i, m, v in zip(frame["system"].tolist(), frame["item"].tolist(), metrics, frame[value].tolist()):
            out.setdefault(str(s), {}).setdefault(str(i), {})[str(m)] = v
        return list(out.items())
    return [(str(c), {str(i): v for i, v in frame[c].items()}) for c in frame.columns]


def _entry(name: Optional[str], value: Any) -> Tuple[Optional[str], Any]:
    table = _table_of(value)
    if table is not None:
        return (name, table)
    if isinstance(value, os.PathLike):
        return (name, os.fspath(value))
    if _is_frame(value):
        return (name, {str(i): row for i, row in value.to_dict(orient="index").items()})
    return (name, value)


def _entries(systems: Any, metric: str) -> List[Tuple[Optional[str], Any]]:
    if systems is None:
        return []
    if _is_frame(systems):
        return _frame_systems(systems, metric)
    if isinstance(systems, (str, os.PathLike)) or _table_of(systems) is not None:
        return [_entry(None, systems)]
    if isinstance(systems, Mapping):
        return [_entry(str(name), value) for name, value in systems.items()]
    out = []
    for one in systems:
        if isinstance(one, tuple) and len(one) == 2 and isinstance(one[0], str):
            out.append(_entry(one[0], one[1]))
        else:
            out.append(_entry(None, one))
    return out


class CompareReport(dict):
    """``kgeval compare --format json`` as a dict, which also prints as ``kgeval compare``'s
    text table (``str(report)``), renders as the campaign's LaTeX table of the comparison
    (``report.to_latex()``: systems × metrics, best in bold, significance superscripts) and
    shows in a notebook (``_repr_html_``)."""

    def __init__(self, document: dict, text: str, latex: str) -> None:
        super().__init__(document)
        self._text = text
        self._latex = latex

    def __str__(self) -> str:
        return self._text

    def to_latex(self) -> str:
        """A LaTeX document (pdflatex) with the comparison's booktabs table."""
        return self._latex

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(self._text)}</pre>"


def compare(
    systems: Any = None,
    *,
    against: Any = None,
    metrics: "str | Iterable[str] | None" = None,
    metric: str = "score",
    test: Optional[str] = None,
    correction: Optional[str] = None,
    alpha: Optional[float] = None,
    iterations: Optional[int] = None,
    seed: Optional[int] = None,
    intervals: Optional[bool] = None,
    tau: Optional[str] = None,
    rbo_p: Optional[float] = None,
    missing: Optional[str] = None,
    input_format: Optional[str] = None,
    qrels: Any = None,
    runs: "Mapping[str, Any] | None" = None,
    sensitivity: Optional[bool] = None,
    ratios: "Iterable[float] | None" = None,
    repeats: Optional[int] = None,
    subsets: Any = None,
) -> CompareReport:
    """Compares every pair of systems on each metric (or, with ``against``, the system
    orderings of two result sets), as ``kgeval compare`` does.

    ``systems``: ``{name: scores}``, a list of scores or ``(name, scores)`` pairs, one path or
    result, or a data frame; scores as the module docstring lists them (paths and in-memory
    scores are not mixed in one call). ``qrels`` with ``runs`` (``{name: path}``) evaluates
    TREC runs first, as ``kgeval compare --qrels Q --run NAME=PATH``. ``metrics``: the metrics
    to compare (default: the inputs' headline metrics); ``metric`` names the values of
    ``{system: {item: score}}``.

    Options left ``None`` take kgeval's defaults: ``test="t"`` (also ``wilcoxon``,
    ``bootstrap``, ``fisher``, ``tukey``), ``correction="holm"`` (``bonferroni``, ``none``),
    ``alpha=0.05``, ``iterations`` 1000 (bootstrap) or 10000 (fisher, tukey), ``seed=42``, no
    ``intervals``, ``tau="b"``, ``rbo_p=0.9``, ``missing="error"`` (``zero``, ``drop``),
    ``input_format`` told by each file's content.

    ``sensitivity=True`` computes the data sensitivity of the ordering instead (seed 004
    §5.1): Kendall's tau between the ordering on random subsets of the items and on all of
    them, per ratio (default 0.01, 0.05, 0.1, 0.2, …, 0.9, 0.95; ``repeats`` 50 per ratio,
    drawn from ``seed``), or on the ``subsets`` of an index file (a path, or bytes).

    Returns a :class:`CompareReport`: ``kgeval compare --format json`` as a dict that prints
    as the text table and has ``to_latex()``: ``metrics[k]`` holds ``means``, the
    ``leaderboard`` (letters, tiers, ``beats``), ``pairs`` (p-values raw and adjusted, effect
    sizes, wins/ties/losses) and ``power``; with ``against``, ``agreement`` holds Kendall's
    tau and RBO per metric; with ``sensitivity``, ``sensitivity`` holds the curve. Raises :class:`kgeval.InvalidInput` (and :class:`ParseError`,
    :class:`ReadError` for files).
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    document, text, latex = _native_compare(
        _entries(systems, metric),
        _entries(against, metric),
        metrics=None if metrics is None else [str(m) for m in metrics],
        metric=metric,
        test=test,
        correction=correction,
        alpha=alpha,
        iterations=iterations,
        seed=seed,
        intervals=intervals,
        tau=tau,
        rbo_p=rbo_p,
        missing=missing,
        input_format=input_format,
        qrels=None if qrels is None else os.fspath(qrels),
        runs=None if runs is None else [(str(n), os.fspath(p)) for n, p in runs.items()],
        sensitivity=sensitivity,
        ratios=None if ratios is None else [float(r) for r in ratios],
        repeats=repeats,
        subsets=None if subsets is None or isinstance(subsets, (str, bytes)) else os.fspath(subsets),
    )
    return CompareReport(json.loads(document), text, latex)
