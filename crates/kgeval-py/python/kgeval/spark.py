"""kgeval on Spark: trec_eval's measures over a run DataFrame of any size, and KGC metrics
over per-answer comparison counts, evaluated by the Rust engine inside Spark's Python
workers.

:func:`evaluate` repartitions the run by query id and hands each partition — many topics at
once, as Arrow record batches (``mapInArrow``) — to :func:`kgeval.trec.accumulate`, with the
qrels broadcast. Each partition gives its per-query rows and one mergeable
:class:`kgeval.trec.Accumulator`; the driver merges the accumulators (in any order, bit for
bit) and finalises them to :func:`kgeval.trec.evaluate`'s summary and trec_eval's text. The
Spark job runs once: the per-query rows are cached while the accumulators are collected.

:func:`kgc` does the same for KGC: each partition of a DataFrame of counts (per answer id,
the candidates scoring above and tying with the answer after filtering) feeds a
:class:`kgeval.kgc.RankAccumulator`; the driver merges them (the counts of an id met in
several partitions are summed) and returns the merged accumulator, whose ``finalize`` gives
every metric and tie policy of :func:`kgeval.kgc.evaluate`.

pyspark (4.0 or later) is imported only when these are called; the executors need
this package and pyarrow installed in the Python they run (docs/spark.md).
"""

from __future__ import annotations

import functools
from typing import Any, Dict, Iterable, Iterator, List, Optional

from kgeval import _inputs
from kgeval._kgc_shards import RankAccumulator
from kgeval._kgeval import Error, InvalidInput, arrow_column_names
from kgeval._trec_merge import Accumulator, accumulate

__all__ = ["evaluate", "kgc", "SparkEvaluation"]

#: The run name of a DataFrame without a run column (as :func:`kgeval.trec.evaluate` names
#: its one run in ``to_arrow()``).
_ONE_RUN = "run"
#: The output schema of the evaluation job: per-query rows (``accumulator`` null), then one
#: row per partition and run carrying its accumulator's bytes (``qid`` and ``measure`` null).
_TREC_SCHEMA = "run string, qid string, measure string, value double, accumulator binary"
_KGC_SCHEMA = "accumulator binary"
#: The columns of a KGC counts DataFrame, by role (``RankAccumulator.add_counts``' arrays).
_KGC_COLUMNS = {
    "question_id": ("question_id", "id"),
    "greater": ("greater",),
    "tied": ("tied",),
    "compared": ("compared",),
    "group": ("group", "groups"),
}


def _pyspark() -> Any:
    """``pyspark.sql.functions``, or :class:`kgeval.Error` saying what to install."""
    try:
        from pyspark.sql import functions
    except ImportError:
        raise Error(
            "kgeval.spark needs pyspark (pip install pyspark) and a Java runtime (17 or later)"
        ) from None
    return functions


def _check_frame(value: Any, what: str) -> None:
    """Raises :class:`kgeval.InvalidInput` unless ``value`` is a Spark DataFrame."""
    from pyspark.sql import DataFrame

    if not isinstance(value, DataFrame):
        raise InvalidInput(f"{what}: found {type(value).__name__}, expected a Spark DataFrame")


def _frame_to_arrow(frame: Any) -> Any:
    """A (small) Spark DataFrame collected to the driver as a ``pyarrow.Table``."""
    if not hasattr(frame, "toArrow"):
        raise Error("kgeval.spark needs pyspark 4.0 or later (DataFrame.toArrow)")
    return frame.toArrow()


class SparkEvaluation:
    """What :func:`evaluate` returns: the per-query rows as a Spark DataFrame and each run's
    merged accumulator, finalised on demand."""

    def __init__(self, per_query: Any, accumulators: Dict[str, Accumulator], qrels: Any) -> None:
        #: The per-query values as a Spark DataFrame ``run, qid, measure, value`` (measures
        #: under trec_eval's printed names, as :meth:`kgeval.trec.evaluate`'s ``to_arrow()``);
        #: ``None`` when ``per_query=False``. Cached: ``unpersist()`` it when done.
        self.per_query = per_query
        #: ``{run: Accumulator}``: every partition's accumulator of the run, merged.
        self.accumulators = accumulators
        self._qrels = qrels

    @property
    def runs(self) -> List[str]:
        """The runs evaluated, sorted."""
        return sorted(self.accumulators)

    def _one(self, run: Optional[str]) -> Accumulator:
        if run is None:
            if len(self.accumulators) != 1:
                raise InvalidInput(f"run: found {len(self.accumulators)} runs ({', '.join(self.runs)}), name one")
            return next(iter(self.accumulators.values()))
        if run not in self.accumulators:
            raise InvalidInput(f"run: found {run!r}, expected one of {', '.join(self.runs) or 'no run'}")
        return self.accumulators[run]

    @property
    def summary(self) -> Dict[str, float]:
        """``{measure: value}`` of the one run, as ``kgeval.trec.evaluate(..., per_query=False)``."""
        return self._one(None).finalize(self._qrels)

    @property
    def summaries(self) -> Dict[str, Dict[str, float]]:
        """``{run: {measure: value}}`` for every run."""
        return {run: self.accumulators[run].finalize(self._qrels) for run in self.runs}

    def text(self, run: Optional[str] = None) -> str:
        """trec_eval's summary lines of ``run`` (the one run by default), as ``kgeval trec``
        prints them."""
        return self._one(run).text(self._qrels)

    def __repr__(self) -> str:
        return f"kgeval.spark.SparkEvaluation(runs={self.runs!r})"


def _trec_worker(qrels_bc: Any, spec: Dict[str, Any], batches: Iterator[Any]) -> Iterator[Any]:
    """One partition (in a Spark Python worker): its record batches evaluated per run; yields
    the per-query rows and each run's accumulator bytes as record batches."""
    import pyarrow
    import pyarrow.compute as pc

    batches = list(batches)
    if not batches or not any(b.num_rows for b in batches):
        return
    table = pyarrow.Table.from_batches(batches)
    qrels = qrels_bc.value
    qid, run_column, qrels_qid = spec["qid"], spec["run_column"], spec["qrels_qid"]
    if qrels_qid is not None and qrels.schema.field(qrels_qid).type == table.schema.field(qid).type:
        # Only this partition's topics of the qrels are converted (a topic's measures read
        # its own judgments only; -c's missing topics are added on the driver). A partition
        # whose topics are judged nowhere gets no judgment: accumulate takes an empty side.
        qrels = qrels.filter(pc.is_in(qrels[qrels_qid], value_set=pc.unique(table[qid])))
    if run_column is None:
        parts = [(_ONE_RUN, table)]
    else:
        names = pc.unique(table[run_column])
        if names.null_count:
            raise InvalidInput(f"run column {run_column}: found a null, expected a run name on every row")
        parts = [
            (str(name), table.filter(pc.equal(table[run_column], name)).drop_columns([run_column]))
            for name in names.to_pylist()
        ]
    schema = pyarrow.schema(
        [
            ("run", pyarrow.string()),
            ("qid", pyarrow.string()),
            ("measure", pyarrow.string()),
            ("value", pyarrow.float64()),
            ("accumulator", pyarrow.binary()),
        ]
    )
    for name, part in parts:
        rows, native = accumulate(qrels, part, spec["measures"], per_query=True, **spec["options"])
        if spec["per_query"] and rows:
            qids: List[str] = []
            measures: List[str] = []
            values: List[float] = []
            for topic, topic_values in rows.items():
                for measure, value in topic_values.items():
                    qids.append(topic)
                    measures.append(measure)
                    values.append(value)
            n = len(values)
            yield pyarrow.RecordBatch.from_pydict(
                {
                    "run": [name] * n,
                    "qid": qids,
                    "measure": measures,
                    "value": pyarrow.array(values, pyarrow.float64()),
                    "accumulator": pyarrow.nulls(n, pyarrow.binary()),
                },
                schema=schema,
            )
        yield pyarrow.RecordBatch.from_pydict(
            {
                "run": [name],
                "qid": pyarrow.nulls(1, pyarrow.string()),
                "measure": pyarrow.nulls(1, pyarrow.string()),
                "value": pyarrow.nulls(1, pyarrow.float64()),
                "accumulator": [native.to_bytes()],
            },
            schema=schema,
        )


def evaluate(
    qrels: Any,
    run: Any,
    measures: "str | Iterable[str] | None" = None,
    *,
    run_column: Optional[str] = None,
    partitions: Optional[int] = None,
    per_query: bool = True,
    tie_break: Optional[str] = None,
    ties: Optional[str] = None,
    complete: Optional[bool] = None,
    relevance_level: Optional[int] = None,
    ndcg_uses_level: Optional[bool] = None,
    max_docs: Optional[int] = None,
    keep_topics: Optional[bool] = None,
) -> SparkEvaluation:
    """Evaluates the run DataFrame ``run`` against ``qrels`` on Spark, with
    :func:`kgeval.trec.evaluate`'s measures and options (``None``: kgeval's defaults).

    ``run``: a Spark DataFrame with columns ``qid, docno, score`` (or ``query_id, doc_id,
    score``; string ids, numeric scores) and, when ``run_column`` names one, a column naming
    the run of each row (several runs in one DataFrame, each evaluated on its own).
    ``qrels``: a Spark DataFrame ``qid, docno, rel`` (or ``query_id, doc_id, relevance``),
    collected to the driver and broadcast, or anything :func:`kgeval.trec.evaluate` takes
    (a pyarrow Table, a dict; a path must be readable on every executor).
    ``partitions``: the number of partitions the run is repartitioned into by query id
    (default: Spark's ``spark.sql.shuffle.partitions``). ``per_query=False`` skips the
    per-query rows. ``keep_topics``: as :func:`kgeval.trec.accumulate`.

    Returns a :class:`SparkEvaluation`: ``.per_query`` (DataFrame ``run, qid, measure,
    value``), ``.summary`` / ``.summaries`` and ``.text()`` (trec_eval's lines). Invalid
    measures or options raise :class:`kgeval.InvalidInput` before any Spark job starts.
    """
    functions = _pyspark()
    _check_frame(run, "run")
    import pyarrow

    spark = run.sparkSession
    qid, docno, score = arrow_column_names("run", run.columns, "run")
    if run_column is not None and run_column not in run.columns:
        raise InvalidInput(f"run_column: found {run_column!r}, expected one of the run's columns {', '.join(run.columns)}")
    if _is_frame(qrels):
        qrels = _frame_to_arrow(qrels)
    else:
        qrels = _inputs.qrels(qrels)
        if _inputs.is_arrow(qrels):
            qrels = pyarrow.table(qrels)
    qrels_qid = None
    if isinstance(qrels, pyarrow.Table):
        qrels_qid = arrow_column_names("qrels", qrels.column_names, "qrels")[0]
    options = {
        key: value
        for key, value in {
            "tie_break": tie_break,
            "ties": ties,
            "complete": complete,
            "relevance_level": relevance_level,
            "ndcg_uses_level": ndcg_uses_level,
            "max_docs": max_docs,
            "keep_topics": keep_topics,
        }.items()
        if value is not None
    }
    measures = _inputs.measures(measures)
    # The accumulator every run starts from: an empty partition, made here, so that bad
    # measures or options fail before the job and a run whose rows all miss the qrels still
    # finalises (under -c, to the qrels topics).
    empty = accumulate(qrels, {}, measures, **options).to_bytes()
    spec = {
        "qid": qid,
        "run_column": run_column,
        "qrels_qid": qrels_qid,
        "measures": measures,
        "options": options,
        "per_query": per_query,
    }
    columns = ([run_column] if run_column is not None else []) + [qid, docno, score]
    frame = run.select(*columns)
    frame = frame.repartition(partitions, qid) if partitions is not None else frame.repartition(qid)
    worker = functools.partial(_trec_worker, spark.sparkContext.broadcast(qrels), spec)
    out = frame.mapInArrow(worker, _TREC_SCHEMA)
    if per_query:
        out = out.persist()
    found = out.where(functions.col("accumulator").isNotNull()).select("run", "accumulator").collect()
    accumulators: Dict[str, Accumulator] = {}
    if run_column is None:
        accumulators[_ONE_RUN] = Accumulator.from_bytes(empty)
    for row in sorted(found, key=lambda r: r["run"]):
        merged = accumulators.setdefault(row["run"], Accumulator.from_bytes(empty))
        merged.merge(Accumulator.from_bytes(row["accumulator"]))
    rows = None
    if per_query:
        rows = out.where(functions.col("accumulator").isNull()).drop("accumulator")
        # Under complete=True, the rows of the qrels topics no partition of a run holds, as
        # the facade adds them when it finalises (none otherwise).
        absent = [
            (name, topic, measure, value)
            for name in sorted(accumulators)
            for topic, values in accumulators[name].absent_topics(qrels).items()
            for measure, value in values.items()
        ]
        if absent:
            rows = rows.unionByName(spark.createDataFrame(absent, "run string, qid string, measure string, value double"))
    return SparkEvaluation(rows, accumulators, qrels)


def _is_frame(value: Any) -> bool:
    """Whether ``value`` is a Spark DataFrame (pyspark imported)."""
    from pyspark.sql import DataFrame

    return isinstance(value, DataFrame)


def _kgc_worker(batches: Iterator[Any]) -> Iterator[Any]:
    """One partition of KGC counts (in a Spark Python worker) fed to a RankAccumulator; yields
    its bytes."""
    import pyarrow

    from kgeval import _arrow

    accumulator = RankAccumulator()
    for batch in batches:
        if not batch.num_rows:
            continue
        columns = _arrow.columns(
            pyarrow.Table.from_batches([batch]), "counts", _KGC_COLUMNS, optional=("compared", "group")
        )
        accumulator.add_counts(
            columns["question_id"],
            columns["greater"],
            columns["tied"],
            compared=columns["compared"],
            groups=columns["group"],
        )
    if accumulator.answers:
        yield pyarrow.RecordBatch.from_pydict({"accumulator": pyarrow.array([accumulator.to_bytes()], pyarrow.binary())})


def kgc(counts: Any) -> RankAccumulator:
    """Feeds a Spark DataFrame of KGC comparison counts, partition by partition, to
    :class:`kgeval.kgc.RankAccumulator` s and returns their merge.

    ``counts``: one row per answer (or per answer and candidate shard: the counts of an id in
    several rows are summed), integer columns ``question_id`` (an id of your choosing per
    answer), ``greater`` (candidates scoring strictly above the answer after filtering),
    ``tied`` (other candidates scoring the same) and optionally ``compared`` (the candidates
    compared, for the adjusted metrics) and ``group`` (the answer's aggregated question, for
    the macro metrics): :meth:`RankAccumulator.add_counts`' arrays. ``finalize(k=...,
    ir_measures=...)`` on the result gives every metric and tie policy."""
    _pyspark()
    _check_frame(counts, "counts")
    found = counts.mapInArrow(_kgc_worker, _KGC_SCHEMA).collect()
    return RankAccumulator.merge_all(RankAccumulator.from_bytes(row["accumulator"]) for row in found)
