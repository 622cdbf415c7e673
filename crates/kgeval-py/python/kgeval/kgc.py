"""Knowledge-graph completion: a dense score matrix from numpy (or any buffer), ranked in Rust
without a copy, with PyKEEN's metric names and ``kgeval kgc``'s own output.

All in memory, the PyKEEN way (no file, no question list): mapped triples as integer arrays of
shape (n, 3), one row of head-prediction and one of tail-prediction scores per test triple,
and every rank type (optimistic, pessimistic, realistic) in one result::

    result = kgeval.kgc.evaluate(test=test_triples, filters=[train_triples, valid_triples],
                                 head_scores=head, tail_scores=tail,   # (n_test, n_entities)
                                 num_entities=14541, num_relations=237)
    result.to_flat_dict()["both.realistic.hits_at_10"]

From files (the layout ``kgeval kgc`` reads), one shot or batch by batch as a training loop
produces scores::

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

from kgeval._kgeval import InvalidInput, KgcEvaluator, ScoreTable, kgc_evaluate, kgc_mapped

__all__ = ["evaluate", "Evaluator", "KgcResult", "MappedResult", "PYKEEN_METRICS", "RankAccumulator"]

# Sharded evaluation (issue 30 item 5): per-answer counts from many workers, merged.
from kgeval._kgc_shards import RankAccumulator  # noqa: E402

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


class MappedResult:
    """One model's in-memory evaluation under every rank type (PyKEEN's
    ``RankBasedMetricResults``): ``to_flat_dict()`` (``both.realistic.hits_at_10``),
    ``to_dict()`` (``{side: {rank_type: {metric: value}}}``), ``get_metric()``; ``kgeval``:
    ``kgeval kgc --format json``'s document of each rank type. Adjusted and z-scored metrics
    are under ``realistic`` only, as in PyKEEN.
    """

    def __init__(self, native: "Tuple[list, list]") -> None:
        flat, documents = native
        self._flat: Dict[str, float] = dict(flat)
        #: ``{rank_type: kgeval kgc --format json}``.
        self.kgeval: Dict[str, Dict[str, Any]] = {rank_type: json.loads(doc) for rank_type, doc in documents}

    @property
    def name(self) -> str:
        """The model's name."""
        return self.kgeval["realistic"]["systems"][0]["system"]

    def to_flat_dict(self) -> Dict[str, float]:
        """``{"side.rank_type.metric": value}``, PyKEEN's keys."""
        return dict(self._flat)

    def to_dict(self) -> Dict[str, Dict[str, Dict[str, float]]]:
        """PyKEEN's nested ``{side: {rank_type: {metric: value}}}``."""
        nested: Dict[str, Dict[str, Dict[str, float]]] = {}
        for key, value in self._flat.items():
            side, rank_type, metric = key.split(".", 2)
            nested.setdefault(side, {}).setdefault(rank_type, {})[metric] = value
        return nested

    def get_metric(self, name: str) -> float:
        """A value by PyKEEN's key: ``metric``, ``side.metric``, ``side.rank_type.metric`` or
        ``rank_type.metric`` (defaults: side ``both``, rank type ``realistic``)."""
        parts = name.split(".")
        sides, types = ("both", "head", "tail"), ("optimistic", "pessimistic", "realistic")
        side, rank_type = "both", "realistic"
        for part in parts[:-1]:
            if part in sides:
                side = part
            elif part in types:
                rank_type = part
            else:
                raise InvalidInput(f"metric {name!r}: found {part!r}, expected a side ({', '.join(sides)}) or a rank type ({', '.join(types)})")
        metric = _ALIASES.get(parts[-1].lower().replace("@", "_at_"), parts[-1].lower().replace("@", "_at_"))
        key = f"{side}.{rank_type}.{metric}"
        if key not in self._flat:
            known = sorted({k.split(".", 2)[2] for k in self._flat if k.startswith(f"{side}.{rank_type}.")})
            raise InvalidInput(f"metric {name!r}: found {metric!r}, expected one of {', '.join(known)}")
        return self._flat[key]

    def __repr__(self) -> str:
        f = self._flat
        return (
            f"MappedResult({self.name!r}, realistic mrr={f['both.realistic.inverse_harmonic_mean_rank']:.6g}, "
            f"hits@10={f.get('both.realistic.hits_at_10', float('nan')):.6g})"
        )


def _ids(value: Any, what: str) -> Any:
    """An (n, 3) integer numpy array as C-order int64 (a copy only when needed); an Arrow
    table (``__arrow_c_stream__``) of integer columns ``head, relation, tail`` (PyKEEN's
    names) becomes one."""
    import numpy

    if hasattr(value, "__arrow_c_stream__") and not hasattr(value, "iloc"):
        from kgeval import _arrow

        cols = _arrow.columns(value, what, {"head": ("head", "h"), "relation": ("relation", "r"), "tail": ("tail", "t")})
        for role, column in cols.items():
            if isinstance(column, list) or column.dtype.kind not in "iu":
                raise InvalidInput(f"{what}: column {role}: expected integer ids (mapped triples)")
        value = numpy.column_stack([cols["head"], cols["relation"], cols["tail"]])

    if not isinstance(value, numpy.ndarray):
        raise InvalidInput(
            f"{what}: found {type(value).__name__}, expected an integer numpy array of shape (n, 3) (head, relation, tail ids)"
        )
    if value.dtype.kind not in "iu":
        raise InvalidInput(f"{what}: found dtype {value.dtype}, expected an integer dtype (mapped triples are ids)")
    if value.ndim != 2 or value.shape[1] != 3:
        raise InvalidInput(f"{what}: found shape {value.shape}, expected (n, 3): one (head, relation, tail) id triple per row")
    if value.dtype.kind == "u" and value.size and int(value.max()) > numpy.iinfo(numpy.int64).max:
        raise InvalidInput(f"{what}: found an id above int64's range, expected ids from 0")
    return numpy.ascontiguousarray(value, dtype=numpy.int64)


def _score_block(value: Any, what: str) -> Any:
    """A 2-D score block as numpy, borrowed when it can be (C order, native float)."""
    import numpy

    if value is None:
        raise InvalidInput(f"{what}: found None, expected a (n_test, n_entities) float array")
    array = _array(value, what)
    if array.dtype.kind == "f" and array.dtype.itemsize in (2, 4, 8) and array.ndim == 2:
        if not (array.flags.c_contiguous and array.dtype.isnative):
            array = numpy.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))
    return array


def _evaluate_mapped(
    test: Any,
    *,
    head_scores: Any = None,
    tail_scores: Any = None,
    filters: Any = None,
    num_entities: Optional[int] = None,
    num_relations: Optional[int] = None,
    entity_labels: "Iterable[str] | None" = None,
    relation_labels: "Iterable[str] | None" = None,
    k: "int | Iterable[int] | None" = None,
    nan: Optional[str] = None,
    tie_tolerance: "str | Tuple[float, float] | None" = None,
    name: Optional[str] = None,
    **unknown: Any,
) -> MappedResult:
    if unknown:
        raise InvalidInput(
            f"found option {sorted(unknown)[0]!r}, expected (with mapped triples) head_scores, tail_scores, filters, "
            "num_entities, num_relations, entity_labels, relation_labels, k, nan, tie_tolerance, name"
        )
    if filters is None:
        filters = []
    elif not isinstance(filters, (list, tuple)):
        filters = [filters]
    if isinstance(tie_tolerance, tuple):
        tie_tolerance = f"{tie_tolerance[0]!r},{tie_tolerance[1]!r}"
    if isinstance(k, int):
        k = [k]
    for what, count in (("num_entities", num_entities), ("num_relations", num_relations)):
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            raise InvalidInput(f"{what}: found {count!r}, expected a count ≥ 0")
    options = {
        "num_entities": num_entities,
        "num_relations": num_relations,
        "entity_labels": None if entity_labels is None else [str(x) for x in entity_labels],
        "relation_labels": None if relation_labels is None else [str(x) for x in relation_labels],
        "k": None if k is None else [int(x) for x in k],
        "nan": nan,
        "tie_tolerance": tie_tolerance,
        "name": name,
    }
    return MappedResult(
        kgc_mapped(
            _ids(test, "test"),
            [_ids(f, f"filters[{i}]") for i, f in enumerate(filters)],
            _score_block(head_scores, "head_scores"),
            _score_block(tail_scores, "tail_scores"),
            options,
        )
    )


def evaluate(scores: Any = None, test: Any = None, **options: Any) -> "KgcResult | MappedResult":
    """Evaluates one system's output on ``test`` (the evaluated split).

    In memory, the PyKEEN way: ``test`` (and each of ``filters``) an integer numpy array of
    shape (n, 3) of (head, relation, tail) ids, or an Arrow table (pyarrow, polars, DuckDB)
    with integer columns ``head, relation, tail``; ``head_scores`` and ``tail_scores`` float
    arrays of shape (len(test), num_entities): row i scores every entity as the head (tail)
    of test triple i; ``num_entities`` and ``num_relations`` (or ``entity_labels`` and
    ``relation_labels``); ``k`` (default 1, 3, 5, 10), ``nan``, ``tie_tolerance``, ``name``.
    Returns a :class:`MappedResult` with every rank type. Test triples sharing a question are
    ranked in the first such triple's row. Every bad argument raises :class:`kgeval.Error`
    naming it and its 0-based index (``tail_scores[0, 3]: found NaN …``).

    From files:

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
        raise InvalidInput("test: found None, expected the path of the evaluated split or an (n, 3) id array")
    if not isinstance(test, (str, os.PathLike)):
        if scores is not None:
            raise InvalidInput("scores: found a score matrix with mapped triples, expected head_scores= and tail_scores=")
        return _evaluate_mapped(test, **options)
    for key in ("head_scores", "tail_scores"):
        if key in options:
            raise InvalidInput(f"{key}: expected test as an (n, 3) id array (mapped triples), found a path")
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
