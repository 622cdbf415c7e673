"""trec_eval's measures over qrels and runs given as paths, nested dicts or data frames.

``evaluate`` is the kgeval call; :class:`RelevanceEvaluator`, ``parse_run`` and ``parse_qrel``
have pytrec_eval's interface and output, so ``import kgeval.trec as pytrec_eval`` works::

    import kgeval.trec as pytrec_eval
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P_5"})
    per_query = evaluator.evaluate(run)     # {qid: {"map": ..., "ndcg_cut_10": ..., "P_5": ...}}

Measures are named as trec_eval's ``-m`` (``map``, ``P.5,10``, ``official``, ``all_trec``), as
it prints them (``P_5``, ``ndcg_cut_10``), or as ranx / ir_measures do (``ndcg@10``,
``precision@5``, ``mrr@10``, ``nDCG@10``, ``RR``, ``AP``).

``supported_measures`` and ``compute_aggregated_measure`` are pytrec_eval's too;
``judged_docs_only_flag=True`` is trec_eval's ``-J`` (unjudged documents removed first).

Known differences from pytrec_eval: summary-only measures (``num_q``, ``gm_map``, ``gm_bpref``, ``runid``) are not in
the per-query dicts (their summary is in ``evaluate(..., per_query=False)``).
"""

from __future__ import annotations

import collections
from typing import Any, Dict, Iterable, Mapping, Optional

from kgeval import _inputs
from kgeval._arrow import Result
from kgeval._kgeval import (
    InvalidInput,
    TrecEvaluator,
    trec_aggregate,
    trec_evaluate,
    trec_measure_names,
    trec_supported_measures,
)

__all__ = [
    "evaluate",
    "RelevanceEvaluator",
    "parse_run",
    "parse_qrel",
    "measure_names",
    "supported_measures",
    "compute_aggregated_measure",
    "accumulate",
    "Accumulator",
]

# Partitioned evaluation (issue 30 item 3): mergeable summary accumulators.
from kgeval._trec_merge import Accumulator, accumulate  # noqa: E402

#: pytrec_eval's ``supported_measures``: the trec_eval measure families kgeval computes.
supported_measures = frozenset(trec_supported_measures())


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """pytrec_eval's ``compute_aggregated_measure``: the sum of ``num_*`` per-query values,
    ``exp(mean)`` of ``gm_*`` ones (pytrec_eval's per-query ``gm_*`` values are logarithms),
    else the mean. Raises :class:`kgeval.Error` for no value or a value that is not finite."""
    if not isinstance(measure, str):
        raise InvalidInput(f"measure: found {type(measure).__name__}, expected a measure name")
    try:
        numbers = [float(v) for v in values]
    except (TypeError, ValueError) as error:
        raise InvalidInput(f"values: expected numbers ({error})") from None
    return trec_aggregate(measure, numbers)


def evaluate(
    qrels: Any,
    run: Any,
    measures: "str | Iterable[str] | None" = None,
    *,
    tie_break: Optional[str] = None,
    ties: Optional[str] = None,
    per_query: bool = True,
    complete: Optional[bool] = None,
    relevance_level: Optional[int] = None,
    ndcg_uses_level: Optional[bool] = None,
    max_docs: Optional[int] = None,
) -> Dict[str, Any]:
    """Evaluates ``run`` against ``qrels`` with trec_eval's definitions.

    ``qrels``: a path, ``{qid: {docid: relevance}}``, a data frame (``q_id``/``query_id``,
    ``doc_id``, ``score``/``relevance``), a ranx ``Qrels`` or an Arrow object (anything with
    ``__arrow_c_stream__``: a pyarrow Table, a polars DataFrame, a DuckDB relation; columns
    ``qid, docno, rel`` or ``query_id, doc_id, relevance``). ``run``: a path,
    ``{qid: {docid: score}}``, a data frame (``q_id``/``query_id``, ``doc_id``, ``score``), a
    ranx ``Run`` or an Arrow object (``qid, docno, score`` or ``query_id, doc_id, score``; read
    batch by batch without a copy, each topic evaluated once its rows are read when the rows
    of each qid come together — see docs/python.md). ``measures``: one name or several (default: trec_eval's official set).
    Options left ``None`` take kgeval's defaults: ``tie_break="docno-desc"`` (trec_eval's),
    ``ties="trec"`` (the tie-break's order; ``"expected"``: the exact mean over every order of
    each group of tied scores, ``"optimistic"``, ``"pessimistic"``; ``"range"`` gives the
    expected values too — see docs/ties.md),
    topics in both inputs (``complete=True``: every qrels topic, trec_eval ``-c``),
    ``relevance_level=1``, no ``max_docs`` cut.

    Returns ``{qid: {measure: value}}`` (pytrec_eval's shape) when ``per_query``, else
    ``{measure: value}``, trec_eval's summary (means; ``num_*`` summed; ``gm_*`` geometric):
    a dict with :meth:`~kgeval._arrow.Result.to_arrow` (the values as a pyarrow Table
    ``run, qid, measure, value``, summary rows under qid ``"all"``).
    """
    runs = trec_evaluate(
        _inputs.qrels(qrels),
        [("run", _inputs.run(run))],
        _inputs.measures(measures),
        complete=complete,
        level=relevance_level,
        ndcg_level=ndcg_uses_level,
        max_docs=max_docs,
        tie_break=tie_break,
        ties=ties,
        per_query=per_query,
    )
    out = runs["run"]
    return Result(out["per_query"] if per_query else out["summary"], out["arrow"])


def measure_names(measures: "str | Iterable[str] | None" = None) -> "list[str]":
    """The measure names ``evaluate`` outputs for ``measures``, in trec_eval's order
    (``["P.5,10"]`` → ``["P_5", "P_10"]``); raises :class:`kgeval.InvalidInput` for an unknown
    one."""
    return trec_measure_names(_inputs.measures(measures))


class RelevanceEvaluator:
    """pytrec_eval's ``RelevanceEvaluator``: qrels and measures once, then ``evaluate(run)``
    per run, returning ``{qid: {measure: value}}`` for the topics in both (topics whose qrels
    are empty dropped, as pytrec_eval does). ``ties`` (keyword only, not pytrec_eval's): as in
    :func:`evaluate`."""

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
        *,
        ties: Optional[str] = None,
    ) -> None:
        qrels = _inputs.qrels(query_relevance)
        if hasattr(qrels, "items"):
            qrels = {q: docs for q, docs in qrels.items() if len(docs) > 0}
            self._qids = frozenset(qrels)
        else:
            self._qids = None
        # The qrels are converted once, into the native evaluator; an unknown measure fails
        # here, as in pytrec_eval.
        self._native = TrecEvaluator(
            qrels,
            _inputs.measures(measures) or [],
            level=relevance_level,
            ties=ties,
            judged_only=bool(judged_docs_only_flag),
        )

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> Dict[str, Dict[str, float]]:
        """Per-topic values of the run ``scores`` (``{qid: {docid: score}}``); ``{}`` when no
        topic is in both the run and the qrels."""
        scores = _inputs.run(scores)
        if _inputs.is_arrow(scores):
            try:
                return self._native.evaluate(scores)
            except InvalidInput as error:
                # pytrec_eval's answer for a run with no topic in common: nothing.
                if "no topic in common" in str(error):
                    return {}
                raise
        if not scores:
            return {}
        if self._qids is not None and hasattr(scores, "keys") and self._qids.isdisjoint(scores.keys()):
            return {}
        return self._native.evaluate(scores)


def parse_run(f_run: Iterable[str]) -> Dict[str, Dict[str, float]]:
    """pytrec_eval's ``parse_run``: run lines (``qid Q0 docid rank score tag``) as a nested dict."""
    run: Dict[str, Dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query_id, _, object_id, _, score, _ = line.strip().split()
        assert object_id not in run[query_id]
        run[query_id][object_id] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> Dict[str, Dict[str, int]]:
    """pytrec_eval's ``parse_qrel``: qrels lines (``qid 0 docid rel``) as a nested dict."""
    qrel: Dict[str, Dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query_id, _, object_id, relevance = line.strip().split()
        assert object_id not in qrel[query_id]
        qrel[query_id][object_id] = int(relevance)
    return qrel
