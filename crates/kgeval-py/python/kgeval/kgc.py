"""Knowledge-graph completion: a dense score matrix from numpy (or any buffer), ranked in Rust
without a copy, with PyKEEN's metric names and ``kgeval kgc``'s own output.

One shot, or batch by batch as a training loop produces scores::

    import kgeval.kgc

    splits = dict(test="test.txt", filters=["train.txt", "valid.txt"],
                  entities="entities.txt", questions="questions.txt")
    result = kgeval.kgc.evaluate(scores, **splits)            # scores: (questions, entities)
    result.to_flat_dict()["both.realistic.hits_at_10"]        # PyKEEN's names
    result.kgeval                                             # == `kgeval kgc --format json`

    evaluator = kgeval.kgc.Evaluator(**splits, ties="realistic")
    for first_row, block in batches:                          # rows first_row .. + len(block)
        evaluator.add_batch(first_row, block)
    result = evaluator.finalize()

Rows are the lines of ``questions`` (``qid<TAB>entity<TAB>relation``, kgc-sparsity's
``trec_queries.txt``; ``kgeval kgc --write-questions`` writes it for a test split), columns the
entities of ``entities``, in order. Every option left ``None`` takes ``kgeval kgc``'s default
(realistic ties, exact score ties, NaN an error, Hits@1,3,10).

``scores`` is a 2-D ``numpy.ndarray`` of float32, float16 or float64 in C order (borrowed: no
copy is made, and the GIL is released while rows are ranked), anything ``numpy.asarray`` turns
into one without copying (a ``torch.Tensor`` on the CPU, a ``memoryview``), or the path of a
``.npy`` file. A Fortran-order or strided array, or one in non-native byte order, is copied
block by block (about 8 MiB of rows at a time), never whole.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, Iterator, Optional, Tuple

from kgeval._kgeval import InvalidInput, KgcEvaluator, ScoreTable, kgc_evaluate

__all__ = ["evaluate", "Evaluator", "KgcResult", "PYKEEN_METRICS"]

# Rows copied per block from an array that cannot be borrowed (Fortran order, strided, swapped
# bytes): about this many bytes at a time.
_COPY_BLOCK_BYTES = 8 << 20

# PyKEEN's RankBasedEvaluator names of the metrics kgeval computes, and kgeval's names (the
# `micro_` values of a scope: one rank per (triple, side), fully filtered, as PyKEEN's). PyKEEN's
# adjusted/z Hits@k use k = 10 (its default).
PYKEEN_METRICS: Dict[str, str] = {
    "arithmetic_mean_rank": "micro_mr",
    "inverse_harmonic_mean_rank": "micro_mrr",
    "adjusted_arithmetic_mean_rank": "micro_amr",
    "adjusted_arithmetic_mean_rank_index": "micro_amri",
    "z_arithmetic_mean_rank": "micro_zmr",
    "adjusted_inverse_harmonic_mean_rank": "micro_amrr",
    "z_inverse_harmonic_mean_rank": "micro_zmrr",
    "adjusted_hits_at_k": "micro_ahits@10",
    "z_hits_at_k": "micro_zhits@10",
}

_ALIASES = {
    "mr": "arithmetic_mean_rank",
    "mean_rank": "arithmetic_mean_rank",
    "mrr": "inverse_harmonic_mean_rank",
    "mean_reciprocal_rank": "inverse_harmonic_mean_rank",
    "amr": "adjusted_arithmetic_mean_rank",
    "amri": "adjusted_arithmetic_mean_rank_index",
    "zmr": "z_arithmetic_mean_rank",
    "amrr": "adjusted_inverse_harmonic_mean_rank",
    "zmrr": "z_inverse_harmonic_mean_rank",
}

_SIDES = ("both", "head", "tail")


class KgcResult:
    """One system's KGC evaluation.

    ``kgeval``: the whole ``kgeval kgc --format json`` document; ``system``: its one system
    (``scopes``, ``conventions``, ``ties``, ``warnings`` …); ``to_flat_dict()`` /
    ``to_dict()`` / ``get_metric()``: PyKEEN's ``MetricResults`` names for the metrics kgeval
    computes (:data:`PYKEEN_METRICS` and ``hits_at_k`` for every ``k``), under the rank type
    of ``ties``. PyKEEN's geometric, harmonic-mean, median and dispersion statistics and
    ``count`` are not computed by kgeval, so they are absent.
    """

    def __init__(self, native: Tuple[str, ScoreTable]) -> None:
        document, table = native
        #: The per-question score table: pass the result to :func:`kgeval.compare`.
        self.table: ScoreTable = table
        self.kgeval: Dict[str, Any] = json.loads(document)
        self.system: Dict[str, Any] = self.kgeval["systems"][0]

    @property
    def name(self) -> str:
        """The system's name."""
        return self.system["system"]

    @property
    def ties(self) -> str:
        """The tie policy: PyKEEN's rank type (``realistic``, ``optimistic``, ``pessimistic``)
        or LibKGE's ``rounded-mean``."""
        return self.system["conventions"]["tie_policy"]

    @property
    def warnings(self) -> "list[Dict[str, Any]]":
        """The warnings of the evaluation (what ``kgeval kgc`` prints on stderr)."""
        return list(self.system.get("warnings", []))

    def scope(self, side: str = "both") -> Dict[str, float]:
        """kgeval's values of one side (``both``, ``head``, ``tail``) under kgeval's names
        (``micro_mrr``, ``macro_hits@10``, ``map_cut_20`` …)."""
        return dict(self.system["scopes"][side])

    def _pykeen(self, side: str) -> Iterator[Tuple[str, float]]:
        values = self.system["scopes"][side]
        for k in self.system["ks"]:
            yield f"hits_at_{k}", values[f"micro_hits@{k}"]
        for theirs, ours in PYKEEN_METRICS.items():
            if ours in values:
                yield theirs, values[ours]

    def to_dict(self) -> Dict[str, Dict[str, Dict[str, float]]]:
        """PyKEEN's nested ``{side: {rank_type: {metric: value}}}``."""
        return {side: {self.ties: dict(self._pykeen(side))} for side in _SIDES}

    def to_flat_dict(self) -> Dict[str, float]:
        """PyKEEN's ``{"side.rank_type.metric": value}`` (``both.realistic.hits_at_10``)."""
        return {
            f"{side}.{rank_type}.{metric}": value
            for side, by_type in self.to_dict().items()
            for rank_type, metrics in by_type.items()
            for metric, value in metrics.items()
        }

    def get_metric(self, name: str) -> float:
        """A value by PyKEEN's name: ``metric``, ``side.metric`` or ``side.rank_type.metric``
        (side default ``both``); ``hits@10``, ``mrr`` and ``mr`` are understood too."""
        parts = name.split(".")
        side, rank_type, metric = "both", self.ties, parts[-1]
        if len(parts) == 2:
            side = parts[0]
        elif len(parts) == 3:
            side, rank_type = parts[0], parts[1]
        elif len(parts) != 1:
            raise InvalidInput(f"metric: found {name!r}, expected metric, side.metric or side.rank_type.metric")
        metric = metric.lower().replace("@", "_at_")
        metric = _ALIASES.get(metric, metric)
        by_type = self.to_dict().get(side)
        if by_type is None:
            raise InvalidInput(f"metric {name!r}: found side {side!r}, expected both, head or tail")
        if rank_type not in by_type:
            raise InvalidInput(
                f"metric {name!r}: found rank type {rank_type!r}, expected {self.ties!r} (the ties this evaluation used)"
            )
        try:
            return by_type[rank_type][metric]
        except KeyError:
            known = ", ".join(sorted(by_type[rank_type]))
            raise InvalidInput(f"metric {name!r}: found {metric!r}, expected one of {known}") from None

    def __repr__(self) -> str:
        both = self.system["scopes"]["both"]
        return f"KgcResult({self.name!r}, ties={self.ties!r}, mrr={both['micro_mrr']:.6g}, mr={both['micro_mr']:.6g})"


def _options(
    test: Any,
    *,
    filters: Any = None,
    entities: Any = None,
    questions: Any = None,
    ranks: Any = None,
    run: Any = None,
    queries: Any = None,
    name: Optional[str] = None,
    ties: Optional[str] = None,
    tie_tolerance: "str | Tuple[float, float] | None" = None,
    nan: Optional[str] = None,
    k: "int | Iterable[int] | None" = None,
    relation_weights: Any = None,
    categories_from: Any = None,
    category_threshold: Optional[float] = None,
    category_inclusive: Optional[bool] = None,
    judgments: Any = None,
    pool_depths: Any = None,
    max_depth: Optional[int] = None,
    ir_measures: "str | Iterable[str] | None" = None,
    per_item: Optional[bool] = None,
) -> Dict[str, Any]:
    """The native module's option dict: paths as text, one-or-many as lists."""

    def path(value: Any) -> Optional[str]:
        return None if value is None else os.fspath(value)

    def paths(value: Any) -> "list[str] | None":
        if value is None:
            return None
        if isinstance(value, (str, os.PathLike)):
            return [os.fspath(value)]
        return [os.fspath(v) for v in value]

    if isinstance(tie_tolerance, tuple):
        tie_tolerance = f"{tie_tolerance[0]!r},{tie_tolerance[1]!r}"
    if isinstance(k, int):
        k = [k]
    if isinstance(ir_measures, str):
        ir_measures = [ir_measures]
    if isinstance(relation_weights, os.PathLike):
        relation_weights = os.fspath(relation_weights)
    return {
        "test": path(test),
        "filters": paths(filters),
        "entities": path(entities),
        "questions": path(questions),
        "ranks": path(ranks),
        "run": path(run),
        "queries": path(queries),
        "name": name,
        "ties": ties,
        "tie_tolerance": tie_tolerance,
        "nan": nan,
        "k": None if k is None else [int(x) for x in k],
        "relation_weights": relation_weights,
        "categories_from": paths(categories_from),
        "category_threshold": category_threshold,
        "category_inclusive": category_inclusive,
        "judgments": path(judgments),
        "pool_depths": path(pool_depths),
        "max_depth": max_depth,
        "ir_measures": None if ir_measures is None else list(ir_measures),
        "per_item": per_item,
    }


def _array(value: Any, what: str) -> Any:
    """``value`` as a numpy array without a copy (a tensor through ``.detach()`` and its
    ``__array__``, a buffer through ``numpy.asarray``)."""
    import numpy

    if isinstance(value, numpy.ndarray):
        return value
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach()
        if getattr(getattr(value, "device", None), "type", "cpu") != "cpu":
            value = value.cpu()
        return value.numpy()
    try:
        return numpy.asarray(value)
    except Exception as error:  # noqa: BLE001 - any failure is a bad input here
        raise InvalidInput(f"{what}: found {type(value).__name__}, expected a 2-D array ({error})") from None


def _borrowable(array: Any) -> bool:
    """Whether the native module can borrow the array as it is (or refuses it as it is: a
    dtype that is not a float, a shape that is not 2-D)."""
    floats = array.dtype.kind == "f" and array.dtype.itemsize in (2, 4, 8)
    if not floats or array.ndim != 2:
        return True
    return bool(array.flags.c_contiguous and array.dtype.isnative)


def _copied_blocks(array: Any) -> Iterator[Tuple[int, Any]]:
    """``(first_row, block)``: C-order native-byte-order copies of about 8 MiB of rows."""
    import numpy

    step = max(1, _COPY_BLOCK_BYTES // max(1, array.shape[1] * array.dtype.itemsize))
    dtype = array.dtype.newbyteorder("=")
    for first in range(0, array.shape[0], step):
        yield first, numpy.ascontiguousarray(array[first : first + step], dtype=dtype)


def evaluate(scores: Any = None, test: Any = None, **options: Any) -> KgcResult:
    """Evaluates one system's output on ``test`` (the evaluated split).

    ``scores``: a 2-D score matrix (see the module's text) with ``questions`` and
    ``entities``; or the path of a ``.npy`` file; or ``None`` with ``ranks=PATH`` (a rank
    file) or ``run=PATH`` with ``queries=PATH`` (a TREC run), as ``kgeval kgc`` takes them.

    Options (``None``: ``kgeval kgc``'s default): ``filters`` (train, valid: known answers,
    removed from every ranking), ``entities``, ``questions``, ``name`` (the system's name),
    ``ties`` (``realistic``, ``optimistic``, ``pessimistic``, ``rounded-mean``),
    ``tie_tolerance`` (``"atol,rtol"`` or a pair), ``nan`` (``error`` or ``worst``), ``k``
    (Hits@k cut-offs), ``relation_weights``, ``categories_from``, ``category_threshold``,
    ``category_inclusive``, ``judgments``, ``pool_depths``, ``max_depth``, ``ir_measures``,
    ``per_item``. Raises :class:`kgeval.InvalidInput` (wrong shape or dtype, a NaN score, a
    test question without a row …) or :class:`kgeval.ParseError` (a malformed file).
    """
    if test is None:
        raise InvalidInput("test: found None, expected the path of the evaluated split")
    native = _options(test, **options)
    if scores is None or isinstance(scores, (str, os.PathLike)):
        return KgcResult(kgc_evaluate(None if scores is None else os.fspath(scores), native))
    array = _array(scores, "scores")
    if _borrowable(array):
        return KgcResult(kgc_evaluate(array, native))
    evaluator = Evaluator(test, **options)
    for first, block in _copied_blocks(array):
        evaluator.add_batch(first, block)
    return evaluator.finalize()


class Evaluator:
    """A KGC evaluation fed its score matrix in blocks of rows, in any order (PyKEEN's and
    LibKGE's batch loops): the splits, filters and question list are read once; each block
    is ranked when added (and may be freed afterwards); ``finalize()`` evaluates once every
    row was given. The result equals :func:`evaluate` on the whole matrix.

    Takes :func:`evaluate`'s options but ``ranks``, ``run`` and ``queries``; ``questions`` and
    ``entities`` are needed.
    """

    def __init__(self, test: Any = None, **options: Any) -> None:
        if test is None:
            raise InvalidInput("test: found None, expected the path of the evaluated split")
        self._native = KgcEvaluator(_options(test, **options))

    @property
    def rows(self) -> int:
        """The rows the matrix has (the lines of ``questions``)."""
        return self._native.rows

    @property
    def columns(self) -> int:
        """The columns every row has (the entities of ``entities``)."""
        return self._native.columns

    @property
    def given_rows(self) -> int:
        """The rows given so far."""
        return self._native.given_rows

    def add_batch(self, first_row: int, block: Any) -> None:
        """Ranks rows ``first_row .. first_row + len(block)`` (0-based) of a 2-D block,
        borrowed (copied whole when it cannot be: Fortran order, strided, swapped bytes). A
        block that fails (a NaN score, a row given before, the wrong width) adds no row."""
        if isinstance(first_row, bool) or not isinstance(first_row, int) or first_row < 0:
            raise InvalidInput(f"first_row: found {first_row!r}, expected a row index ≥ 0")
        array = _array(block, "block")
        if not _borrowable(array):
            import numpy

            array = numpy.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))
        self._native.add_batch(first_row, array)

    def finalize(self) -> KgcResult:
        """The evaluation of every row given (an error names the first row never given)."""
        return KgcResult(self._native.finalize())
