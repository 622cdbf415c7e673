"""Python idioms (data frames, ranx objects, path-likes) turned into what the native module
takes: a path, a nested dict, columns ``(ids, docids, values)``, or an Arrow object (anything
with ``__arrow_c_stream__``: pyarrow, polars, DuckDB), passed through as is. Nothing here decides a
default or validates a value: the native module and the facade do."""

from __future__ import annotations

import os
from typing import Any, Iterable, Sequence, Tuple

# Column names by library: ranx (q_id, doc_id, score) and ir_measures (query_id, doc_id,
# relevance / score), then the TREC file's own (qid, docno, rel / score).
_ID_COLUMNS = ("q_id", "query_id", "qid")
_DOC_COLUMNS = ("doc_id", "docno", "docid")
_QRELS_VALUES = ("relevance", "score", "rel", "label")
_RUN_VALUES = ("score", "rank_score")


def _is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "iloc")


def _pick(columns: Sequence[str], names: Tuple[str, ...], what: str, role: str) -> str:
    for name in names:
        if name in columns:
            return name
    from kgeval import InvalidInput

    raise InvalidInput(
        f"{what}: found columns {list(columns)}, expected a {role} column named one of {', '.join(names)}"
    )


def _one_each(columns: Sequence[str], what: str, values: Tuple[str, ...]) -> None:
    """The rule of every table reader (as the Arrow reader's): each role's column found once
    (two of its names, or one name twice, raise :class:`kgeval.InvalidInput` naming both)."""
    for role, names in (("query id", _ID_COLUMNS), ("document id", _DOC_COLUMNS), ("value", values)):
        present = [c for c in columns if c in names]
        if len(present) > 1:
            from kgeval import InvalidInput

            raise InvalidInput(f"{what}: found columns {present[0]} and {present[1]}, both a {role} column; keep one")


def is_arrow(value: Any) -> bool:
    """Whether ``value`` offers the Arrow PyCapsule stream interface (``__arrow_c_stream__``)
    and is not a pandas frame (those keep their own column path)."""
    return hasattr(value, "__arrow_c_stream__") and not _is_frame(value)


def to_native(value: Any, what: str, values: Tuple[str, ...]) -> Any:
    """A path, a nested mapping or columns: data frames become columns, ranx ``Qrels`` and
    ``Run`` objects their dict, path-likes their path; anything else goes through as is."""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if _is_frame(value):
        columns = [str(c) for c in value.columns]
        _one_each(columns, what, values)
        q = _pick(columns, _ID_COLUMNS, what, "query id")
        d = _pick(columns, _DOC_COLUMNS, what, "document id")
        v = _pick(columns, values, what, "value")
        # Ids as str, converted column-wise by pandas (not one Python call per row).
        return (value[q].astype(str).tolist(), value[d].astype(str).tolist(), value[v].tolist())
    if is_arrow(value):
        # pyarrow, polars, DuckDB…: read natively through the Arrow C stream (no copy).
        return value
    if type(value).__name__ in ("Qrels", "Run") and hasattr(value, "to_dict"):
        return value.to_dict()
    return value


def qrels(value: Any) -> Any:
    """Qrels as the native module takes them."""
    return to_native(value, "qrels", _QRELS_VALUES)


def run(value: Any, what: str = "run") -> Any:
    """A run as the native module takes it."""
    return to_native(value, what, _RUN_VALUES)


def measures(value: "str | Iterable[str] | None") -> "list[str] | None":
    """One measure or several, as a list (``None``: the facade's default)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return [str(m) for m in value]
