"""Arrow in and out (issue 30): pyarrow, polars and DuckDB inputs give exactly the dict
path's results; results come back as Arrow; bad columns raise kgeval.Error naming them."""

import json
import random
import subprocess

import pytest

import kgeval
import kgeval.kgc
import kgeval.rank
import kgeval.trec

pa = pytest.importorskip("pyarrow")
trec_agreement = pytest.importorskip("trec_agreement")

from test_trec import generated_cases  # noqa: E402  (the 250 cases, same seed)


def run_rows(run, shuffle=None):
    rows = [(qid, docno, score) for qid, docs in run.items() for docno, score in docs.items()]
    if shuffle is not None:
        shuffle.shuffle(rows)
    return rows


def run_table(run, shuffle=None, names=("qid", "docno", "score")):
    rows = run_rows(run, shuffle)
    return pa.table({names[0]: [r[0] for r in rows], names[1]: [r[1] for r in rows], names[2]: [r[2] for r in rows]})


def qrels_table(qrels, names=("qid", "docno", "rel")):
    rows = [(qid, docno, rel) for qid, docs in qrels.items() for docno, rel in docs.items()]
    return pa.table({names[0]: [r[0] for r in rows], names[1]: [r[1] for r in rows], names[2]: pa.array([r[2] for r in rows], pa.int32())})


def test_pyarrow_tables_give_the_dict_paths_results_on_the_250_cases():
    shuffle = random.Random(7)
    compared = 0
    for index, qrels, run, level in generated_cases():
        expected = kgeval.trec.evaluate(qrels, run, trec_agreement.MEASURES, relevance_level=level)
        # Grouped rows; and every third case shuffled (not grouped: read whole, then evaluated).
        table = run_table(run, shuffle if index % 3 == 0 else None, ("query_id", "doc_id", "score") if index % 2 else ("qid", "docno", "score"))
        got = kgeval.trec.evaluate(qrels_table(qrels), table, trec_agreement.MEASURES, relevance_level=level)
        assert got == expected, index
        summary = kgeval.trec.evaluate(qrels, run_table(run), trec_agreement.MEASURES, relevance_level=level, per_query=False)
        assert summary == kgeval.trec.evaluate(qrels, run, trec_agreement.MEASURES, relevance_level=level, per_query=False)
        compared += sum(len(v) for v in got.values())
    assert compared > 5000


def test_small_batches_split_topics_across_batch_boundaries():
    for index, qrels, run, level in list(generated_cases())[:80]:
        expected = kgeval.trec.evaluate(qrels, run, ["map", "P.1,3", "ndcg_cut.3", "bpref"], relevance_level=level)
        table = run_table(run)
        for size in (1, 2, 3, 7):
            reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=size))
            got = kgeval.trec.evaluate(qrels, reader, ["map", "P.1,3", "ndcg_cut.3", "bpref"], relevance_level=level)
            assert got == expected, (index, size)
            chunked = pa.Table.from_batches(table.to_batches(max_chunksize=size), table.schema)
            assert kgeval.trec.evaluate(qrels, chunked, "map", relevance_level=level) == kgeval.trec.evaluate(qrels, run, "map", relevance_level=level)


def test_id_and_score_types():
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d9": 1}}
    run = {"q1": {"d1": 0.5, "d2": 1.5, "d3": 0.5, "d4": 3.0}, "q2": {"d9": 2.0, "d1": 1.0}}
    expected = kgeval.trec.evaluate(qrels, run, ["map", "ndcg", "P.2"])
    base = run_table(run)
    variants = {
        "large_string": base.set_column(0, "qid", base["qid"].cast(pa.large_string())).set_column(1, "docno", base["docno"].cast(pa.large_string())),
        "dictionary": base.set_column(0, "qid", base["qid"].dictionary_encode()).set_column(1, "docno", base["docno"].dictionary_encode()),
        "float32": base.set_column(2, "score", base["score"].cast(pa.float32())),
        "int64 scores": base.set_column(2, "score", pa.chunked_array([pa.array([1, 3, 1, 6, 4, 2], pa.int64())])),
    }
    if hasattr(pa, "string_view"):
        variants["string_view"] = base.set_column(0, "qid", base["qid"].cast(pa.string_view())).set_column(1, "docno", base["docno"].cast(pa.string_view()))
    for name, table in variants.items():
        assert kgeval.trec.evaluate(qrels, table, ["map", "ndcg", "P.2"]) == expected, name
    q = qrels_table(qrels, ("query_id", "doc_id", "relevance"))
    q = q.set_column(2, "relevance", q["relevance"].cast(pa.int8()))
    assert kgeval.trec.evaluate(q, run, ["map", "ndcg", "P.2"]) == expected


def test_relevance_evaluator_takes_arrow_qrels_and_runs():
    for index, qrels, run, level in list(generated_cases())[:40]:
        theirs = kgeval.trec.RelevanceEvaluator(qrels, {"map", "P_5", "ndcg_cut_10"}, relevance_level=level).evaluate(run)
        ours = kgeval.trec.RelevanceEvaluator(qrels_table(qrels), {"map", "P_5", "ndcg_cut_10"}, relevance_level=level).evaluate(run_table(run))
        assert ours == theirs, index


def test_relevance_evaluator_with_no_topic_in_common_gives_nothing():
    evaluator = kgeval.trec.RelevanceEvaluator({"q1": {"d1": 1}}, {"map"})
    assert evaluator.evaluate({"q9": {"d1": 1.0}}) == {}
    assert evaluator.evaluate(pa.table({"qid": ["q9"], "docno": ["d1"], "score": [1.0]})) == {}


def test_polars_and_duckdb_inputs():
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    for index, qrels, run, level in list(generated_cases())[:60]:
        expected = kgeval.trec.evaluate(qrels, run, ["map", "P.1,3", "ndcg_cut.3", "recip_rank"], relevance_level=level)
        frame = pl.from_arrow(run_table(run))
        qframe = pl.from_arrow(qrels_table(qrels))
        assert kgeval.trec.evaluate(qframe, frame, ["map", "P.1,3", "ndcg_cut.3", "recip_rank"], relevance_level=level) == expected, index
        categorical = frame.with_columns(pl.col("qid").cast(pl.Categorical), pl.col("docno").cast(pl.Categorical))
        assert kgeval.trec.evaluate(qrels, categorical, ["map", "P.1,3", "ndcg_cut.3", "recip_rank"], relevance_level=level) == expected, index
        con = duckdb.connect()
        table = run_table(run, random.Random(index))
        relation = con.from_arrow(table)
        assert kgeval.trec.evaluate(qrels, relation, ["map", "P.1,3", "ndcg_cut.3", "recip_rank"], relevance_level=level) == expected, index


def test_missing_ill_typed_and_null_columns_raise_kgeval_errors():
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(kgeval.Error, match=r"run run: found columns qid, doc, score, expected a document id column named one of docno, doc_id, docid"):
        kgeval.trec.evaluate(qrels, pa.table({"qid": ["q1"], "doc": ["d1"], "score": [1.0]}))
    with pytest.raises(kgeval.Error, match=r"run run: column `score`: found Utf8, expected a float or integer type"):
        kgeval.trec.evaluate(qrels, pa.table({"qid": ["q1"], "docno": ["d1"], "score": ["1.0"]}))
    with pytest.raises(kgeval.Error, match=r"run run: column `qid`: found Int64, expected string ids"):
        kgeval.trec.evaluate(qrels, pa.table({"qid": [1], "docno": ["d1"], "score": [1.0]}))
    with pytest.raises(kgeval.Error, match=r"run run: row 2: column `docno` is null, expected an id"):
        kgeval.trec.evaluate(qrels, pa.table({"qid": ["q1", "q1"], "docno": ["d1", None], "score": [1.0, 2.0]}))
    with pytest.raises(kgeval.Error, match=r"run run: row 1: column `score` is null, expected a score"):
        kgeval.trec.evaluate(qrels, pa.table({"qid": ["q1"], "docno": ["d1"], "score": pa.array([None], pa.float64())}))
    with pytest.raises(kgeval.Error, match=r"qrels: column `rel`: found Float64, expected an integer type"):
        kgeval.trec.evaluate(pa.table({"qid": ["q1"], "docno": ["d1"], "rel": [1.0]}), {"q1": {"d1": 1.0}})
    with pytest.raises(kgeval.Error, match=r"run run: topic q1: document d1 is retrieved twice"):
        kgeval.trec.evaluate(qrels, pa.table({"qid": ["q1", "q1"], "docno": ["d1", "d1"], "score": [1.0, 2.0]}))
    with pytest.raises(kgeval.Error, match=r"expected a finite score"):
        kgeval.trec.evaluate(qrels, pa.table({"qid": ["q1"], "docno": ["d1"], "score": [float("nan")]}))
    # A one-shot stream whose topics are not grouped cannot be read twice: it says so.
    table = pa.table({"qid": ["q1", "q2", "q1"], "docno": ["d1", "d1", "d2"], "score": [1.0, 2.0, 3.0]})
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    with pytest.raises(kgeval.Error, match=r"run run: row 3: topic q1 comes back after other topics"):
        kgeval.trec.evaluate({"q1": {"d1": 1}, "q2": {"d1": 1}}, reader)


def _long_run(topics, docs, judged, seed):
    """A run of `topics` x `docs` rows as dicts, and as a generator of one batch per topic
    (built in Python, so reading a batch needs the GIL); qrels of `judged` docnos a topic."""
    rng = random.Random(seed)
    run = {f"q{t}": {f"d{i}": rng.random() for i in range(docs)} for t in range(topics)}
    qrels = {f"q{t}": {f"d{rng.randrange(docs)}": rng.choice([0, 1, 2]) for _ in range(judged)} for t in range(topics)}
    schema = pa.schema([("qid", pa.string()), ("docno", pa.string()), ("score", pa.float64())])

    def batches():
        for qid, scored in run.items():
            yield pa.record_batch([pa.array([qid] * len(scored)), pa.array(list(scored)), pa.array(list(scored.values()))], schema=schema)

    return qrels, run, lambda: pa.RecordBatchReader.from_batches(schema, batches())


def test_qrels_converted_while_the_first_arrow_run_is_read():
    # Dict qrels are converted while another thread reads the first Arrow run. Batches from a
    # Python generator need the GIL the conversion holds: their reading waits for it.
    measures = ["map", "P_10", "ndcg_cut_10"]
    qrels, run, reader = _long_run(1_100, 1_000, 5, 11)
    expected = kgeval.trec.evaluate(qrels, run, measures, per_query=False)
    assert kgeval.trec.evaluate(qrels, reader(), measures, per_query=False) == expected
    table = pa.Table.from_batches(list(reader()))
    # A one-shot stream read by C++ (no GIL) past the read-ahead (1,048,576 rows) while large
    # qrels (330,000 judgments) convert: the reading waits for them there.
    large, _, _ = _long_run(1_100, 1_000, 300, 12)
    assert kgeval.trec.evaluate(large, table.to_reader(), measures, per_query=False) == kgeval.trec.evaluate(large, run, measures, per_query=False)
    # Several runs (the engine's entry; the Python API passes one): the first read during the
    # conversion, the others after.
    from kgeval._kgeval import trec_evaluate

    both = trec_evaluate(qrels, [("a", reader()), ("b", table)], ["map"], per_query=False)
    assert both["a"]["summary"] == both["b"]["summary"] == {"map": expected["map"]}
    # Qrels that fail: their error, whether the run is long, fine or broken, and no wait.
    bad = dict(large, q5={"d1": "high"})
    for run_value in (reader(), table.to_reader(), table, pa.table({"qid": ["q1"], "doc": ["d1"], "score": [1.0]})):
        with pytest.raises(kgeval.Error, match=r"found relevance 'high', expected an integer"):
            kgeval.trec.evaluate(bad, run_value)


def test_to_arrow_rows_equal_the_dict_and_the_clis_csv(tmp_path):
    for index, qrels, run, level in list(generated_cases())[:30]:
        result = kgeval.trec.evaluate(qrels, run, ["map", "P.5", "num_q", "gm_map"], relevance_level=level)
        table = result.to_arrow()
        assert table.schema.names == ["run", "qid", "measure", "value"]
        assert str(table.schema.field("value").type) == "double"
        rows = table.to_pylist()
        per_topic = {}
        for row in rows:
            assert row["run"] == "run"
            if row["qid"] != "all":
                per_topic.setdefault(row["qid"], {})[row["measure"]] = row["value"]
        assert per_topic == dict(result)
        summary = kgeval.trec.evaluate(qrels, run, ["map", "P.5", "num_q", "gm_map"], relevance_level=level, per_query=False)
        assert {r["measure"]: r["value"] for r in rows if r["qid"] == "all"} == dict(summary)
        # per_query=False: the summary rows only.
        assert summary.to_arrow().to_pylist() == [r for r in rows if r["qid"] == "all"]


def test_results_pickle_and_copy_as_plain_dicts():
    import copy
    import pickle

    result = kgeval.trec.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0, "d2": 2.0}}, ["map"])
    for again in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
        assert type(again) is dict and again == result == {"q1": {"map": 0.5}}


def test_arrow_stream_goes_to_polars_without_pyarrow_calls():
    pl = pytest.importorskip("polars")
    result = kgeval.trec.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0, "d2": 2.0}}, ["map", "P.1"])
    frame = pl.DataFrame(result.arrow_stream())
    assert frame.columns == ["run", "qid", "measure", "value"]
    assert frame.filter(pl.col("qid") == "all")["value"].to_list() == [0.5, 0.0]


def _peak_rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def _reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def test_a_10_million_row_table_is_read_without_a_copy():
    np = pytest.importorskip("numpy")
    pc = pytest.importorskip("pyarrow.compute")
    if _peak_rss_kib() is None or not _reset_peak_rss():
        pytest.skip("no /proc peak RSS to measure")
    topics, depth = 10_000, 1_000
    rng = np.random.default_rng(5)
    qids = pa.DictionaryArray.from_arrays(np.repeat(np.arange(topics, dtype=np.int32), depth), pa.array([f"q{i}" for i in range(topics)]))
    docnos = pa.array([f"D{i}" for i in range(50_000)])
    doc_index = np.concatenate([rng.choice(50_000, depth, replace=False) for _ in range(topics // 100)] * 100).astype(np.int32)
    table = pa.table({
        "qid": pc.cast(qids, pa.string()),
        "docno": pc.take(docnos, pa.array(doc_index)),
        "score": rng.random(topics * depth),
    })
    assert table.num_rows == 10_000_000
    qrels = {f"q{i}": {f"D{j}": 1 for j in doc_index[i * depth : i * depth + 20 : 2]} for i in range(topics)}
    kgeval.trec.evaluate(qrels, table.slice(0, 1000), "map")  # warm up the pool and the module
    _reset_peak_rss()
    before = _peak_rss_kib()
    result = kgeval.trec.evaluate(qrels, table, ["num_q", "map"], per_query=False)
    grown = (_peak_rss_kib() - before) * 1024
    assert result["num_q"] == topics and result["map"] > 0
    # A copy of the columns into the engine (an interned run: 16 bytes per row, plus the ids)
    # would grow the peak by more than 160 MB; reading in place keeps it to the jobs in flight.
    assert grown < 0.15 * table.nbytes, (grown, table.nbytes)


@pytest.mark.filterwarnings("ignore:.*(sibling-gold|identical-pools|repaired)")
def test_rank_submission_and_gold_as_arrow_tables(testdata):
    import json as _json

    pair = "uco-stix"
    pools = testdata / "ranking/diso-oaei/pools" / pair / "pools.jsonl"
    gold_path = testdata / "ranking/diso-synthetic" / pair / "gold.tsv"
    lines = [_json.loads(l) for l in (testdata / "ranking/diso-synthetic" / pair / "lexical.jsonl").read_text().splitlines() if l.strip()]
    gold = dict(line.split("\t") for line in gold_path.read_text().splitlines() if line.strip())
    scores = {str(line["qid"]): line["scores"] for line in lines}
    expected = kgeval.rank.evaluate(scores, gold=gold, pools=pools, system="lexical", name=pair)
    rows = [(q, c, s) for q, cands in scores.items() for c, s in cands.items()]
    submission = pa.table({"qid": [r[0] for r in rows], "candidate": [r[1] for r in rows], "score": [r[2] for r in rows]})
    gold_table = pa.table({"qid": list(gold), "gold": list(gold.values())})
    assert kgeval.rank.evaluate(submission, gold=gold_table, pools=pools, system="lexical", name=pair) == expected
    # Without a score column: candidates ranked in row order, best first.
    ranked = sorted(rows, key=lambda r: (r[0], -r[2]))
    as_ranking = pa.table({"qid": [r[0] for r in ranked], "iri": [r[1] for r in ranked]})
    lists = {}
    for q, c, _ in ranked:
        lists.setdefault(q, []).append(c)
    from_arrow = kgeval.rank.evaluate(as_ranking, gold=gold, pools=pools, system="lexical", name=pair, repair=True)
    assert from_arrow == kgeval.rank.evaluate(lists, gold=gold, pools=pools, system="lexical", name=pair, repair=True)
    assert from_arrow["system"] == "lexical"
    with pytest.raises(kgeval.Error, match=r"submission: found columns qid, score, expected a candidate column named one of candidate"):
        kgeval.rank.evaluate(pa.table({"qid": ["q"], "score": [1.0]}), gold=gold, pools=pools)


def test_kgc_mapped_triples_as_arrow_tables():
    np = pytest.importorskip("numpy")
    test = np.array([[0, 0, 0], [1, 0, 2], [4, 0, 2]])
    tail = np.array([[2, 2, 1, 3, 5], [1, 1, 3, 4, 0], [1, 1, 3, 2, 0]], dtype=np.float64)
    head = np.zeros((3, 5), dtype=np.float32)
    expected = kgeval.kgc.evaluate(test=test, head_scores=head, tail_scores=tail, num_entities=5, num_relations=1, filters=[np.array([[0, 0, 1]])])
    table = pa.table({"head": pa.array(test[:, 0], pa.int32()), "relation": test[:, 1], "tail": pa.array(test[:, 2], pa.uint16())})
    known = pa.table({"h": [0], "r": [0], "t": [1]})
    got = kgeval.kgc.evaluate(test=table, head_scores=head, tail_scores=tail, num_entities=5, num_relations=1, filters=[known])
    assert got.to_flat_dict() == expected.to_flat_dict()
    with pytest.raises(kgeval.Error, match=r"test: column tail: expected integer ids"):
        kgeval.kgc.evaluate(test=table.set_column(2, "tail", pa.array(["a", "b", "c"])), head_scores=head, tail_scores=tail, num_entities=5, num_relations=1)
