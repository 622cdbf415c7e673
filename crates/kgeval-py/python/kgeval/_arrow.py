"""Arrow out: results that export themselves as an Arrow table ``(run, qid, measure, value)``
through the Arrow PyCapsule interface; pyarrow is needed only by :meth:`Result.to_arrow`."""

from __future__ import annotations

from typing import Any, Dict


class Result(dict):
    """What :func:`kgeval.trec.evaluate` returns: the dict it always returned
    (``{qid: {measure: value}}``, or ``{measure: value}`` with ``per_query=False``), plus the
    same values as an Arrow table.

    :meth:`to_arrow` gives a ``pyarrow.Table`` with columns ``run`` (``"run"``), ``qid``,
    ``measure`` (trec_eval's printed names: ``P_10``, ``ndcg_cut_10``) and ``value``
    (float64): one row per topic and measure (when ``per_query``), then the summary rows under
    qid ``"all"`` (as ``kgeval trec --format csv`` and trec_eval ``-q`` name them).
    :meth:`arrow_stream` gives an object with ``__arrow_c_stream__`` for any other consumer
    (``polars.DataFrame(result.arrow_stream())``, DuckDB), no pyarrow needed.
    """

    def __init__(self, data: Dict[str, Any], native: Any) -> None:
        super().__init__(data)
        self._native = native

    def __reduce__(self) -> Any:
        # Pickled (multiprocessing, caches) and deep-copied as the plain dict it always was:
        # the native rows do not travel.
        return (dict, (dict(self),))

    def arrow_stream(self) -> Any:
        """The rows as an object with ``__arrow_c_stream__`` (each call a new stream)."""
        return self._native

    def to_arrow(self) -> Any:
        """The rows as a ``pyarrow.Table`` (imported without a copy). Raises ``ImportError``
        naming the package when pyarrow is not installed."""
        try:
            import pyarrow
        except ImportError:
            raise ImportError(
                "kgeval: Result.to_arrow() needs pyarrow (pip install pyarrow); "
                "without it, pass result.arrow_stream() to polars or DuckDB"
            ) from None
        return pyarrow.table(self._native)


def columns(value: Any, what: str, roles: "Dict[str, tuple]", optional: "tuple" = ()) -> Dict[str, Any]:
    """The columns of a small Arrow table (anything with ``__arrow_c_stream__``), by role:
    ``roles`` maps a role to the names its column may have (the first present wins); roles in
    ``optional`` may be absent (``None``). Ids come as ``list[str]``, numbers as numpy arrays.
    Raises :class:`kgeval.InvalidInput` naming a missing role or a bad column."""
    from kgeval._kgeval import InvalidInput, arrow_columns

    table = arrow_columns(value, what)
    out: Dict[str, Any] = {}
    for role, names in roles.items():
        name = next((n for n in names if n in table), None)
        if name is None and role not in optional:
            raise InvalidInput(
                f"{what}: found columns {', '.join(table) or 'none'}, expected a {role} column named one of {', '.join(names)}"
            )
        out[role] = None if name is None else table[name]
    return out
