"""``kgeval.rank``: local ranking with NIL abstention (DISO-OAEI Task 2, Bio-ML, DeepOnto,
OntoAligner, Bio-LLM), scored by the Rust facade, the same code as ``kgeval rank``.

Inputs are paths (every file form ``kgeval rank`` reads) or what a Python user holds:

- a submission as ``{qid: [iri, ...]}`` (best first), ``{qid: {iri: score}}``,
  ``{qid: [(iri, score), ...]}``, a list of DISO JSONL objects (``{"qid", "ranking"}`` /
  ``{"qid", "scores"}``), or DeepOnto / Bio-ML rows (dicts or a data frame with ``SrcEntity``,
  ``TgtEntity``, ``TgtCandidates``: the gold travels with them);
- a gold key as ``{qid: gold}`` or a list of ``{"qid", "gold"}`` (``UnMatched`` = NIL);
- pools as a list of DISO ``pools.jsonl`` objects (``{"qid", "source", "type", "candidates"}``);
- a submission or a gold key as an Arrow table (anything with ``__arrow_c_stream__``: pyarrow,
  polars, DuckDB): submission rows ``qid, candidate[, score]`` (``candidate`` also ``iri``,
  ``target``; with ``score`` the candidates are scored, without it ranked in row order, best
  first), gold rows ``qid, gold`` (``gold`` also ``target``);
- under ``profile="ontoaligner"``: predictions ``[{"source", "target", "score"}]`` and
  references ``[{"source", "target"}]``.

::

    import kgeval.rank
    board = kgeval.rank.evaluate(ranked, gold=gold, pools="uco-stix/pools.jsonl")
    board["uco-stix"]["overall"]["mrr"]
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from kgeval import _arrow
from kgeval._evaluation import Evaluation
from kgeval._kgeval import rank_evaluate

__all__ = ["evaluate"]


def _is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "to_dict") and hasattr(value, "iloc")


def _is_arrow(value: Any) -> bool:
    return hasattr(value, "__arrow_c_stream__") and not _is_frame(value)


def _path_or(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if _is_frame(value):
        return value.to_dict("records")
    return value


def _first(value: Any) -> Any:
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) > 0:
        return value[0]
    return None


# Arrow tables (anything with ``__arrow_c_stream__``): a submission's and a gold key's columns.
_QID = ("qid", "query_id")
_CANDIDATE = ("candidate", "iri", "target", "docno", "doc_id")
_GOLD = ("gold", "target")


def _arrow_submission(value: Any) -> Dict[str, Any]:
    """Rows ``qid, candidate[, score]``: with scores ``{qid: {candidate: score}}``, without
    ``{qid: [candidate, ...]}`` in row order (best first)."""
    cols = _arrow.columns(value, "submission", {"qid": _QID, "candidate": _CANDIDATE, "score": ("score",)}, ("score",))
    if cols["score"] is None:
        ranked: Dict[str, List[str]] = {}
        for qid, candidate in zip(cols["qid"], cols["candidate"]):
            ranked.setdefault(qid, []).append(candidate)
        return {"submission": [{"qid": q, "ranking": r} for q, r in ranked.items()]}
    scored: Dict[str, Dict[str, float]] = {}
    for qid, candidate, score in zip(cols["qid"], cols["candidate"], cols["score"].tolist()):
        scored.setdefault(qid, {})[candidate] = score
    return {"submission": [{"qid": q, "scores": s} for q, s in scored.items()]}


def _submission(value: Any) -> Dict[str, Any]:
    """The native pair fields of a submission: ``submission`` or ``bioml_rows``."""
    if _is_arrow(value):
        return _arrow_submission(value)
    value = _path_or(value)
    if isinstance(value, Mapping):
        queries = []
        for qid, given in value.items():
            if isinstance(given, Mapping) or (_first(given) is not None and not isinstance(_first(given), str)):
                queries.append({"qid": qid, "scores": given})
            else:
                queries.append({"qid": qid, "ranking": given})
        return {"submission": queries}
    first = _first(value)
    if isinstance(first, Mapping) and "SrcEntity" in first:
        return {"bioml_rows": value}
    if isinstance(first, Mapping) and "source" in first and "qid" not in first:
        # OntoAligner predictions: each a query of its source with one candidate (an
        # unscored one ranked, i.e. scored as OntoAligner scores it).
        queries = []
        for item in value:
            if isinstance(item, Mapping) and item.get("score") is not None:
                queries.append({"qid": item.get("source"), "scores": [(item.get("target"), item["score"])]})
            elif isinstance(item, Mapping):
                queries.append({"qid": item.get("source"), "ranking": [item.get("target")]})
            else:
                queries.append(item)
        return {"submission": queries}
    return {"submission": value}


def _gold(value: Any) -> Any:
    if _is_arrow(value):
        cols = _arrow.columns(value, "gold", {"qid": _QID, "gold": _GOLD})
        return [{"qid": q, "gold": g} for q, g in zip(cols["qid"], cols["gold"])]
    value = _path_or(value)
    if isinstance(value, Mapping):
        return [{"qid": qid, "gold": gold} for qid, gold in value.items()]
    first = _first(value)
    if isinstance(first, Mapping) and "source" in first and "qid" not in first:
        return [{"qid": r.get("source"), "gold": r.get("target")} if isinstance(r, Mapping) else r for r in value]
    return value


def _pair(name: Optional[str], submission: Any, gold: Any = None, pools: Any = None) -> Dict[str, Any]:
    pair: Dict[str, Any] = {"name": name}
    pair.update(_submission(submission))
    if gold is not None:
        pair["gold"] = _gold(gold)
    if pools is not None:
        pair["pools"] = _path_or(pools)
    return pair


def evaluate(
    submission: Any = None,
    *,
    gold: Any = None,
    pools: Any = None,
    pairs: "Union[Mapping[str, Mapping[str, Any]], Iterable[Mapping[str, Any]], None]" = None,
    profile: Optional[str] = None,
    system: Optional[str] = None,
    name: Optional[str] = None,
    ties: Optional[str] = None,
    tau: Optional[float] = None,
    ks: Optional[Sequence[int]] = None,
    nil: Optional[str] = None,
    pool_size: Optional[int] = None,
    allow_missing: Optional[bool] = None,
    repair: Optional[bool] = None,
    sweep_tau: Optional[bool] = None,
    tau_grid: Optional[Sequence[float]] = None,
    threshold: Optional[float] = None,
    block_size: Optional[int] = None,
    beta: Optional[float] = None,
    per_item: bool = False,
) -> Evaluation:
    """Scores one system's rankings; returns the leaderboard dict ``kgeval rank --format json``
    prints (per pair ``overall``, ``matched``, ``NIL``, ``per_type``, then ``MACRO``/``MICRO``;
    Bio-LLM and OntoAligner their own figures).

    One pair: ``submission`` with ``gold`` and ``pools`` (``name`` names the pair; default:
    the pools' folder, else the submission's stem). Several: ``pairs={name: {"submission",
    "gold", "pools"}}`` or a list of such dicts with a ``"name"``. ``system`` names the system
    (default: the first submission's stem; ``submission`` for one in memory).

    ``profile``: ``diso`` (default; needs pools), ``bioml``, ``deeponto``, ``ontoaligner``,
    ``biollm``. Options left ``None`` take the profile's defaults (``kgeval rank --help``):
    ``ties``, ``tau`` (NIL's confidence in scored submissions), ``ks`` (Hits@k cut-offs),
    ``nil`` (the NIL IRI), ``pool_size`` (0: unchecked), ``allow_missing``, ``repair``,
    ``sweep_tau`` / ``tau_grid``, ``threshold`` (Bio-LLM), ``block_size`` (Bio-ML BLOCK
    files), ``beta`` (OntoAligner).
    """
    native: List[Dict[str, Any]] = []
    if pairs is not None:
        if submission is not None:
            from kgeval import InvalidInput

            raise InvalidInput("found submission and pairs, expected one or the other")
        items = pairs.items() if isinstance(pairs, Mapping) else ((p.get("name"), p) for p in pairs)
        for pair_name, pair in items:
            native.append(_pair(pair_name, pair.get("submission"), pair.get("gold"), pair.get("pools")))
    elif submission is not None:
        native.append(_pair(name, submission, gold, pools))
    document, found, table = rank_evaluate(
        native,
        profile=profile,
        system=system,
        ties=ties,
        tau=tau,
        ks=list(ks) if ks is not None else None,
        nil=nil,
        pool_size=pool_size,
        allow_missing=allow_missing,
        repair=repair,
        sweep_tau=sweep_tau,
        tau_grid=list(tau_grid) if tau_grid is not None else None,
        threshold=threshold,
        block_size=block_size,
        beta=beta,
        per_item=per_item,
    )
    for line in found:
        warnings.warn(line, stacklevel=2)
    return Evaluation(json.loads(document), table)
