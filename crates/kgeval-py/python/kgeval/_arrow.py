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
    ``roles`` maps a role to the names its column may have; roles in ``optional`` may be
    absent (``None``). Ids come as ``list[str]``, numbers as numpy arrays. The rule of every
    table reader: a role found at most once (two of its names, or one name twice, raise
    :class:`kgeval.InvalidInput` naming both), a column that plays no role one
    ``UserWarning`` naming it. Raises :class:`kgeval.InvalidInput` naming a missing role or a
    bad column."""
    from kgeval._kgeval import arrow_columns

    table = arrow_columns(value, what)
    return by_role(list(table), what, roles, optional, lambda name: table[name])


def by_role(names: "list[str]", what: str, roles: "Dict[str, tuple]", optional: "tuple", get: Any) -> Dict[str, Any]:
    """``{role: get(name)}`` for the one column of each role among ``names`` (see
    :func:`columns`); ``None`` for an absent optional role."""
    import warnings

    from kgeval._kgeval import InvalidInput

    out: Dict[str, Any] = {}
    for role, aliases in roles.items():
        present = [n for n in names if n in aliases]
        if len(present) > 1:
            raise InvalidInput(f"{what}: found columns {present[0]} and {present[1]}, both a {role} column; keep one")
        if not present and role not in optional:
            raise InvalidInput(
                f"{what}: found columns {', '.join(map(str, names)) or 'none'}, expected a {role} column named one of {', '.join(aliases)}"
            )
        out[role] = get(present[0]) if present else None
    known = {n for aliases in roles.values() for n in aliases}
    unknown = [n for n in names if n not in known]
    if unknown:
        s = "" if len(unknown) == 1 else "s"
        listed = ", ".join(repr(n) if not str(n).isprintable() or " " in str(n) else str(n) for n in unknown[:10])
        more = f", … ({len(unknown) - 10} more)" if len(unknown) > 10 else ""
        warnings.warn(
            f"{what}: found {len(unknown)} column{s} kgeval does not read ({listed}{more}); ignored [unknown-column]",
            stacklevel=3,
        )
    return out
