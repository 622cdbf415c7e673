"""kgeval.spark in Spark's local mode (local[2]): generated runs and qrels written as a
partitioned Parquet dataset, read by Spark and evaluated partition by partition, equal the
one-machine evaluation of the same rows (per query and summary to 1e-12; with the topics
kept, the default, trec_eval's text byte for byte); KGC counts spread over partitions equal the dense path.

Needs pyspark and a Java runtime: without them the module is skipped with the reason, unless
KGEVAL_REQUIRE_SPARK=1 (set by .ci/run, which installs both), where it fails instead."""

import importlib.util
import math
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

import kgeval
import kgeval.kgc
import kgeval.trec

pa = pytest.importorskip("pyarrow")
import pyarrow.dataset  # noqa: E402
import pyarrow.parquet  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
MEASURES = ["map", "gm_map", "P.5,10", "ndcg_cut.10", "recip_rank", "bpref", "num_q", "num_rel", "num_ret", "Rprec"]


def _missing():
    """Why Spark cannot run here, or None."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install pyspark==4.0.1)"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (apt-get install openjdk-17-jre-headless)"
    return None


@pytest.fixture(scope="module")
def spark():
    reason = _missing()
    if reason is not None:
        if os.environ.get("KGEVAL_REQUIRE_SPARK") == "1":
            pytest.fail(f"KGEVAL_REQUIRE_SPARK=1 but {reason}")
        pytest.skip(f"SKIPPED Spark tests: {reason}")
    from pyspark.sql import SparkSession

    # The executors' Python is this one (the venv with kgeval and pyarrow).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("kgeval-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def generated(seed, topics=120, runs=("run",)):
    """Qrels and runs as Arrow tables: graded relevance (some -1 and 0), tied scores, topics
    without judgments, judged topics without run lines; each run row carries a bucket (the
    dataset's partition column) unrelated to its qid."""
    rng = random.Random(seed)
    q = {"qid": [], "docno": [], "rel": []}
    r = {"run": [], "qid": [], "docno": [], "score": [], "bucket": []}
    for t in range(topics):
        qid = f"q{t:03d}"
        if rng.random() < 0.85:
            for doc in rng.sample(range(60), rng.randint(1, 12)):
                q["qid"].append(qid)
                q["docno"].append(f"d{doc}")
                q["rel"].append(rng.randint(-1, 3))
        for name in runs:
            if rng.random() < 0.85:
                for doc in rng.sample(range(60), rng.randint(1, 30)):
                    r["run"].append(name)
                    r["qid"].append(qid)
                    r["docno"].append(f"d{doc}")
                    r["score"].append(rng.choice([0.25, 0.5, 0.75, rng.random()]))
                    r["bucket"].append(rng.randrange(5))
    qrels = pa.table({"qid": q["qid"], "docno": q["docno"], "rel": pa.array(q["rel"], pa.int64())})
    return qrels, pa.table(r)


def dataset(table, folder):
    """`table` written as a hive-partitioned Parquet dataset (by bucket); its folder."""
    pyarrow.dataset.write_dataset(
        table, folder, format="parquet", partitioning=["bucket"], partitioning_flavor="hive"
    )
    return str(folder)


def one_run(table, name="run"):
    """The rows of run `name` without the run and bucket columns."""
    import pyarrow.compute as pc

    return table.filter(pc.equal(table["run"], name)).select(["qid", "docno", "score"])


def per_query_dict(frame):
    """A per-query DataFrame as {(run, qid, measure): value}."""
    table = frame.toArrow()
    keys = zip(table["run"].to_pylist(), table["qid"].to_pylist(), table["measure"].to_pylist())
    values = dict(zip(keys, table["value"].to_pylist()))
    assert len(values) == table.num_rows  # no row twice
    return values


def assert_close(got, want):
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert math.isclose(got[key], value, rel_tol=1e-12, abs_tol=1e-12), (key, got[key], value)


@pytest.mark.parametrize("complete", [False, True])
def test_partitioned_parquet_equals_the_one_machine_evaluation(spark, tmp_path, complete):
    qrels, runs = generated(7 + complete)
    run_df = spark.read.parquet(dataset(runs, tmp_path / "run"))
    qrels_df = spark.createDataFrame(qrels.to_pandas())
    # keep_topics=False: compact accumulators (exact sums), their mean equal to 1e-12.
    result = kgeval.spark.evaluate(qrels_df, run_df.drop("run"), MEASURES, partitions=3, complete=complete, keep_topics=False)
    run = one_run(runs)
    whole = kgeval.trec.evaluate(qrels, run, MEASURES, complete=complete)
    want = {("run", qid, m): v for qid, values in whole.items() for m, v in values.items()}
    assert_close(per_query_dict(result.per_query), want)
    summary = kgeval.trec.evaluate(qrels, run, MEASURES, per_query=False, complete=complete)
    assert_close(result.summary, summary)
    assert result.runs == ["run"]
    result.per_query.unpersist()


def test_the_merged_summary_is_the_one_machine_text_byte_for_byte(spark, tmp_path):
    qrels, runs = generated(11, topics=200)
    run_df = spark.read.parquet(dataset(runs, tmp_path / "run")).drop("run")
    result = kgeval.spark.evaluate(qrels, run_df, MEASURES, partitions=5, per_query=False)
    run = one_run(runs)
    assert result.per_query is None
    assert result.summary == kgeval.trec.evaluate(qrels, run, MEASURES, per_query=False)
    # trec_eval's text as `kgeval trec` prints it for the same rows on one machine.
    folder = tmp_path / "one"
    folder.mkdir()
    pyarrow.parquet.write_table(qrels, folder / "qrels.parquet", compression="snappy")
    pyarrow.parquet.write_table(run, folder / "run.parquet", compression="snappy")
    from conftest import kgeval_binary

    binary = kgeval_binary()
    if binary is None:
        pytest.skip("no kgeval binary (cargo build -p kgeval-cli, or set KGEVAL_BIN)")
    args = [binary, "trec", *[f"-m{m}" for m in MEASURES], "qrels.parquet", "run.parquet"]
    done = subprocess.run(args, cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert result.text() == kgeval.trec.accumulate(qrels, run, MEASURES).text(qrels)
    assert result.text() == done.stdout


def test_several_runs_in_one_dataframe(spark, tmp_path):
    names = ("bm25", "dense", "mixed")
    qrels, runs = generated(3, topics=80, runs=names)
    run_df = spark.read.parquet(dataset(runs, tmp_path / "runs"))
    qrels_df = spark.createDataFrame(qrels.to_pandas())
    result = kgeval.spark.evaluate(qrels_df, run_df, ["map", "P.5", "num_q"], run_column="run")
    assert result.runs == sorted(names)
    got = per_query_dict(result.per_query)
    for name in names:
        whole = kgeval.trec.evaluate(qrels, one_run(runs, name), ["map", "P.5", "num_q"])
        want = {(name, q, m): v for q, values in whole.items() for m, v in values.items()}
        assert_close({k: v for k, v in got.items() if k[0] == name}, want)
        summary = kgeval.trec.evaluate(qrels, one_run(runs, name), ["map", "P.5", "num_q"], per_query=False)
        assert_close(result.summaries[name], summary)
        assert result.text(name).startswith("num_q                 \tall\t")
    with pytest.raises(kgeval.InvalidInput, match="3 runs"):
        result.summary
    assert qrels_df.count() == qrels.num_rows


def one_sided(seed, topics=50):
    """Qrels and a run (Arrow tables) whose topics are partly unjudged (run only) and partly
    unretrieved (qrels only)."""
    rng = random.Random(seed)
    q = {"qid": [], "docno": [], "rel": []}
    r = {"qid": [], "docno": [], "score": []}
    for t in range(topics):
        qid, kind = f"q{t:03d}", t % 5  # 0: run only, 1: qrels only, else both
        if kind != 0:
            for doc in rng.sample(range(20), 4):
                q["qid"].append(qid)
                q["docno"].append(f"d{doc}")
                q["rel"].append(rng.randint(0, 2))
        if kind != 1:
            for doc in rng.sample(range(20), 6):
                r["qid"].append(qid)
                r["docno"].append(f"d{doc}")
                r["score"].append(rng.choice([0.5, rng.random()]))
    qrels = pa.table({"qid": q["qid"], "docno": q["docno"], "rel": pa.array(q["rel"], pa.int64())})
    return qrels, pa.table(r)


@pytest.mark.parametrize("complete", [False, True])
def test_default_shuffle_partitions_with_unjudged_and_unretrieved_topics(spark, complete):
    # Spark's default 200 shuffle partitions (the session's fixture asks for 4): most
    # partitions hold one topic, so some hold only topics the qrels do not judge, and the
    # qrels topics that no partition holds count under -c.
    spark.conf.unset("spark.sql.shuffle.partitions")
    try:
        assert spark.conf.get("spark.sql.shuffle.partitions") == "200"
        qrels, run = one_sided(13)
        run_df = spark.createDataFrame(run.to_pandas())
        result = kgeval.spark.evaluate(qrels, run_df, MEASURES, complete=complete)
        got = per_query_dict(result.per_query)
        result.per_query.unpersist()
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "4")
    whole = kgeval.trec.evaluate(qrels, run, MEASURES, complete=complete)
    assert any(qid.endswith(("1", "6")) for qid in whole) == complete  # t % 5 == 1: qrels only
    assert_close(got, {("run", qid, m): v for qid, values in whole.items() for m, v in values.items()})
    assert_close(result.summary, kgeval.trec.evaluate(qrels, run, MEASURES, per_query=False, complete=complete))
    assert result.text() == kgeval.trec.accumulate(qrels, run, MEASURES, complete=complete).text(qrels)


def test_errors_come_before_the_job(spark):
    run_df = spark.createDataFrame([("q1", "d1", 1.0)], "qid string, docno string, score double")
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(kgeval.InvalidInput, match="not_a_measure"):
        kgeval.spark.evaluate(qrels, run_df, ["not_a_measure"])
    with pytest.raises(kgeval.InvalidInput, match="expected a Spark DataFrame"):
        kgeval.spark.evaluate(qrels, {"q1": {"d1": 1.0}}, ["map"])
    with pytest.raises(kgeval.ParseError, match="expected a score column"):
        kgeval.spark.evaluate(qrels, run_df.drop("score"), ["map"])
    with pytest.raises(kgeval.InvalidInput, match="run_column"):
        kgeval.spark.evaluate(qrels, run_df, ["map"], run_column="system")
    # A bad row fails the job with kgeval's message (inside Spark's PythonException).
    twice = spark.createDataFrame([("q1", "d1", 1.0), ("q1", "d1", 0.5)], "qid string, docno string, score double")
    with pytest.raises(Exception, match="document d1 is retrieved twice"):
        kgeval.spark.evaluate(qrels, twice, ["map"])
    # No topic of the run is judged: the summary is the one-machine evaluation's error.
    other = spark.createDataFrame([("q9", "d1", 1.0)], "qid string, docno string, score double")
    result = kgeval.spark.evaluate(qrels, other, ["num_q"])
    with pytest.raises(kgeval.InvalidInput, match="no topic in common"):
        kgeval.trec.evaluate(qrels, {"q9": {"d1": 1.0}}, ["num_q"])
    with pytest.raises(kgeval.InvalidInput, match="no topic in common"):
        result.summary
    assert result.per_query.count() == 0
    # Under -c the judged topic counts, with no line retrieved.
    result = kgeval.spark.evaluate(qrels, other, ["num_q", "num_ret", "map"], complete=True)
    assert result.summary == {"num_q": 1.0, "num_ret": 0.0, "map": 0.0}
    assert sorted(result.per_query.collect()) == [("run", "q1", "map", 0.0), ("run", "q1", "num_ret", 0.0)]


def _example():
    spec = importlib.util.spec_from_file_location("kgc_shards", HERE.parent / "examples" / "kgc_shards.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kgc_counts_over_partitions_equal_the_dense_path(spark, tmp_path):
    ex = _example()
    data = ex.make_data(seed=5)
    ids, scores, targets, masks, groups = ex.rows_of(data)
    # Each answer's counts from two column shards (counted here with numpy): two rows per
    # id, in different files of the dataset, summed by the merge.
    rows = {"question_id": [], "greater": [], "tied": [], "group": [], "bucket": []}
    for i in range(len(ids)):
        target = scores[i, targets[i]]
        for h, columns in enumerate(numpy.array_split(numpy.arange(scores.shape[1]), 2)):
            keep = numpy.zeros(scores.shape[1], bool)
            keep[columns] = True
            keep &= ~masks[i]
            keep[targets[i]] = False
            rows["question_id"].append(int(ids[i]))
            rows["greater"].append(int((scores[i, keep] > target).sum()))
            rows["tied"].append(int((scores[i, keep] == target).sum()))
            rows["group"].append(int(groups[i]))
            rows["bucket"].append(h)
    frame = spark.read.parquet(dataset(pa.table(rows), tmp_path / "counts"))
    merged = kgeval.spark.kgc(frame.repartition(3))
    local = kgeval.kgc.RankAccumulator()
    local.add_counts(rows["question_id"], rows["greater"], rows["tied"], groups=rows["group"])
    assert merged == local
    assert ex.largest_difference(merged.finalize(), ex.dense(data)) < 1e-12
    scored = kgeval.kgc.RankAccumulator()
    scored.add_scores(ids, scores, targets, filter_mask=masks, groups=groups)
    got, want = merged.finalize(k=[1, 3, 10]), scored.finalize(k=[1, 3, 10])
    for policy, values in got.items():
        assert values.keys() <= want[policy].keys()  # the score blocks also know `compared`
        assert_close(values, {name: want[policy][name] for name in values})


def test_docs_spark_md_blocks_run(spark):
    spec = importlib.util.spec_from_file_location("docs_blocks", HERE / "docs_blocks.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    page = ROOT / "docs" / "spark.md"
    assert runner.run(page) == len(runner.blocks(page)) >= 2


import kgeval.spark  # noqa: E402  (after the skips: the module itself imports without pyspark)
