#!/usr/bin/env python3
"""kgeval.spark against Spark's own `RankingEvaluator` on the same data, in Spark's local mode
(issue 30): Q topics x D documents per topic (default 10,000 x 1,000 = 10 M run rows), seeded,
no score ties, 20 graded judgments per topic (python_bench.py's workload), written once as
Parquet (the run as a dataset of 8 files, the qrels as one file) into FOLDER.

Usage: spark_bench.py [--topics Q] [--docs D] [--seed S] [--runs R] [--master local[2]] [--folder FOLDER]

Times (best of R, wall, from the Parquet files to the numbers on the driver):
- kgeval.spark: read the run and the qrels, ``kgeval.spark.evaluate(qrels, run, [map,
  P.10, recall.10, map_cut.10, ndcg_cut.10])`` with the per-query DataFrame (cached) and the
  merged summary, counting the per-query rows (so they are computed);
- Spark: the preparation RankingEvaluator needs (per topic, the documents ranked by score
  — ties by docno descending, trec_eval's order — and the relevant documents, as arrays of
  doubles: one groupBy per input and a join, cached), then `RankingEvaluator.evaluate` once
  per metric (meanAveragePrecision, precisionAtK, recallAtK, meanAveragePrecisionAtK,
  ndcgAtK, k = 10): both parts timed (each best of R), and their sum.
Prints both sets of values side by side. Build a release wheel first (xtask/python.sh).
"""

import os
import sys
import time
from pathlib import Path

import numpy
import pyarrow
import pyarrow.dataset
import pyarrow.parquet

import kgeval.spark
import kgeval.trec

MEASURES = ["map", "P.10", "recall.10", "map_cut.10", "ndcg_cut.10"]
# kgeval's printed name of each RankingEvaluator metric's trec_eval counterpart.
SPARK = {
    "meanAveragePrecision": "map",
    "precisionAtK": "P_10",
    "recallAtK": "recall_10",
    "meanAveragePrecisionAtK": "map_cut_10",
    "ndcgAtK": "ndcg_cut_10",
}


def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def write_data(folder: Path, topics: int, docs: int, seed: int) -> None:
    """The run (qid, docno, doc, score; ``doc`` the docno's number, for RankingEvaluator's
    numeric arrays) as 8 Parquet files, the qrels (qid, docno, doc, rel) as one."""
    rng = numpy.random.default_rng(seed)
    qids = numpy.repeat(numpy.arange(topics), docs)
    doc = numpy.tile(numpy.arange(docs), topics)
    # Distinct scores within a topic: a permutation of a larger range, divided by 7.
    score = numpy.concatenate([rng.choice(docs * 50, size=docs, replace=False) for _ in range(topics)]) / 7.0
    run = pyarrow.table(
        {
            "qid": pyarrow.array([f"q{q}" for q in range(topics)]).take(pyarrow.array(qids)),
            "docno": pyarrow.array([f"d{d}" for d in range(docs * 2)]).take(pyarrow.array(doc)),
            "doc": doc.astype(numpy.int64),
            "score": score,
        }
    )
    per_file = -(-run.num_rows // 8)
    pyarrow.dataset.write_dataset(
        run, folder / "run", format="parquet", max_rows_per_file=per_file, max_rows_per_group=min(per_file, 1 << 20)
    )
    judged = numpy.stack([rng.choice(docs * 2, size=20, replace=False) for _ in range(topics)]).ravel()
    rel = rng.choice([0, 1, 1, 2], size=topics * 20)
    qrels = pyarrow.table(
        {
            "qid": pyarrow.array([f"q{q}" for q in range(topics)]).take(pyarrow.array(numpy.repeat(numpy.arange(topics), 20))),
            "docno": pyarrow.array([f"d{d}" for d in range(docs * 2)]).take(pyarrow.array(judged)),
            "doc": judged.astype(numpy.int64),
            "rel": rel.astype(numpy.int64),
        }
    )
    pyarrow.parquet.write_table(qrels, folder / "qrels.parquet")


def timed(label, fn, runs):
    best = None
    for _ in range(runs):
        started = time.perf_counter()
        out = fn()
        wall = time.perf_counter() - started
        if best is None or wall < best[0]:
            best = (wall, out)
    print(f"{label:>58}: {best[0]:8.3f} s", flush=True)
    return best


def ours(spark, folder: Path):
    run = spark.read.parquet(str(folder / "run")).select("qid", "docno", "score")
    qrels = spark.read.parquet(str(folder / "qrels.parquet")).select("qid", "docno", "rel")
    result = kgeval.spark.evaluate(qrels, run, MEASURES, partitions=spark.sparkContext.defaultParallelism * 2)
    rows = result.per_query.count()
    summary = result.summary
    result.per_query.unpersist()
    return rows, summary


def prepared(spark, folder: Path):
    """The DataFrame RankingEvaluator reads: per topic, `prediction` (the run's documents by
    score descending, ties by docno descending) and `label` (the documents judged relevant,
    rel >= 1), as arrays of doubles; topics of the run only (an inner join: trec_eval's
    topics)."""
    from pyspark.sql import functions as F

    run = spark.read.parquet(str(folder / "run"))
    qrels = spark.read.parquet(str(folder / "qrels.parquet"))
    ranked = run.groupBy("qid").agg(
        F.sort_array(F.collect_list(F.struct(F.col("score"), F.col("docno"), F.col("doc").cast("double").alias("d"))), asc=False).alias("r")
    )
    ranked = ranked.select("qid", F.col("r.d").alias("prediction"))
    relevant = qrels.where(F.col("rel") >= 1).groupBy("qid").agg(F.collect_list(F.col("doc").cast("double")).alias("label"))
    frame = ranked.join(qrels.select("qid").distinct(), "qid").join(relevant, "qid", "left")
    frame = frame.select("prediction", F.coalesce("label", F.array().cast("array<double>")).alias("label")).cache()
    frame.count()
    return frame


def theirs(frame):
    from pyspark.ml.evaluation import RankingEvaluator

    values = {}
    for metric in SPARK:
        values[metric] = RankingEvaluator(metricName=metric, k=10).evaluate(frame)
    return values


def main():
    topics, docs, seed, runs = arg("--topics", 10_000), arg("--docs", 1_000), arg("--seed", 20261124), arg("--runs", 2)
    master = arg("--master", "local[2]")
    folder = Path(arg("--folder", "target/spark-bench"))
    marker = folder / f"{topics}x{docs}-{seed}"
    if not marker.exists():
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*"):
            if old.is_file():
                old.unlink()
        import shutil

        shutil.rmtree(folder / "run", ignore_errors=True)
        started = time.perf_counter()
        write_data(folder, topics, docs, seed)
        marker.touch()
        print(f"wrote {topics * docs} run rows to {folder} in {time.perf_counter() - started:.1f} s", flush=True)

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(master)
        .appName("kgeval-spark-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "6g")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    import pyspark

    print(f"{topics} topics x {docs} documents ({topics * docs} run rows), pyspark {pyspark.__version__}, {master}, best of {runs}", flush=True)
    ours_wall, (rows, summary) = timed("kgeval.spark.evaluate (per-query rows + summary)", lambda: ours(spark, folder), runs)
    frames = []

    def prepare():
        for old in frames:
            old.unpersist(blocking=True)
        frames.append(prepared(spark, folder))
        return frames[-1]

    prep_wall, _ = timed("RankingEvaluator's input: groupBy, sort, join (cached)", prepare, runs)
    frame = frames[-1]
    eval_wall, values = timed("RankingEvaluator.evaluate x 5 metrics", lambda: theirs(frame), runs)
    print(f"{'RankingEvaluator, preparation + 5 metrics':>58}: {prep_wall + eval_wall:8.3f} s")
    print(f"per-query rows: {rows}; kgeval.spark / RankingEvaluator (wall): {ours_wall / (prep_wall + eval_wall):.2f}")
    print(f"{'metric':<26} {'trec_eval measure':<12} {'kgeval':>12} {'Spark':>12} {'difference':>12}")
    for metric, measure in SPARK.items():
        print(f"{metric:<26} {measure:<12} {summary[measure]:12.6f} {values[metric]:12.6f} {values[metric] - summary[measure]:12.2e}")
    spark.stop()


if __name__ == "__main__":
    main()
