"""Tables from Python read as strictly as text and as the CLI reads them: one column per role
(a second column for a role raises naming both, an unknown column warns), ids without
whitespace or control characters, no rows an error (a reader already read too)."""

import warnings

import pytest

import kgeval
import kgeval.rank
import kgeval.trec

pa = pytest.importorskip("pyarrow")

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}


def test_a_second_column_for_a_role_raises_naming_both():
    twice = pa.Table.from_arrays(
        [pa.array(["q1", "q1"]), pa.array(["d1", "d2"]), pa.array([1.0, 2.0]), pa.array([2.0, 1.0])],
        names=["qid", "docno", "score", "score"],
    )
    with pytest.raises(kgeval.Error, match=r"run run: found columns score and score, both a score column; keep one"):
        kgeval.trec.evaluate(QRELS, twice, "map")
    aliases = pa.table({"qid": ["q1", "q1"], "query_id": ["q2", "q2"], "docno": ["d1", "d2"], "score": [1.0, 2.0]})
    with pytest.raises(kgeval.Error, match=r"found columns qid and query_id, both a query id column; keep one"):
        kgeval.trec.evaluate(QRELS, aliases, "map")
    with pytest.raises(kgeval.Error, match=r"found columns qid and query_id, both a query id column; keep one"):
        kgeval.trec.RelevanceEvaluator(QRELS, {"map"}).evaluate(aliases)
    qrels = pa.table({"qid": ["q1"], "docno": ["d1"], "rel": pa.array([1], pa.int32()), "label": pa.array([0], pa.int32())})
    with pytest.raises(kgeval.Error, match=r"qrels: found columns rel and label, both a relevance column; keep one"):
        kgeval.trec.evaluate(qrels, {"q1": {"d1": 1.0}}, "map")


def test_polars_duckdb_and_pandas_follow_the_same_rule():
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    table = pa.table({"qid": ["q1", "q1"], "query_id": ["q2", "q2"], "docno": ["d1", "d2"], "score": [1.0, 2.0]})
    with pytest.raises(kgeval.Error, match=r"both a query id column"):
        kgeval.trec.evaluate(QRELS, pl.from_arrow(table), "map")
    with pytest.raises(kgeval.Error, match=r"both a query id column"):
        kgeval.trec.evaluate(QRELS, duckdb.connect().from_arrow(table), "map")
    with pytest.raises(kgeval.Error, match=r"found columns qid and query_id, both a query id column; keep one"):
        kgeval.trec.evaluate(QRELS, table.to_pandas(), "map")
    frame = pd.DataFrame([["q1", "d1", 1.0]], columns=["qid", "docno", "score"])
    assert kgeval.trec.evaluate(QRELS, frame, "map", per_query=False) == {"map": 1.0}


def test_unknown_columns_warn_once():
    table = pa.table({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [2.0, 1.0], "rank": [1, 2], "scroe": [0.0, 0.0]})
    with pytest.warns(UserWarning, match=r"run run: found 1 column kgeval does not read \(scroe\); ignored") as caught:
        result = kgeval.trec.evaluate(QRELS, table, "map", per_query=False)
    assert len([w for w in caught if "does not read" in str(w.message)]) == 1
    assert result == {"map": 1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kgeval.trec.evaluate(QRELS, table.drop_columns(["scroe"]), "map")


def test_ids_with_line_breaks_tabs_or_escapes_raise_with_the_row():
    forged = pa.table({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, 2.0], "tag": ["x", "x\nmap\tall\t0.9999"]})
    # The streaming path reads no tag; the general path (judged_docs_only) names the run by it.
    with pytest.raises(kgeval.ParseError, match=r"run: row 2, column tag: found the run tag"):
        kgeval.trec.RelevanceEvaluator(QRELS, {"map"}, judged_docs_only_flag=True).evaluate(forged)
    escaped = pa.table({"qid": ["q1", "q1\x1b[31m"], "docno": ["d1", "d2"], "score": [1.0, 2.0]})
    with pytest.raises(kgeval.ParseError, match=r"run run: row 2, column qid: found the qid \"q1\\u\{1b\}\[31m\"") as error:
        kgeval.trec.evaluate(QRELS, escaped, "map")
    assert "\x1b" not in str(error.value)
    dictionary = pa.table({"qid": ["q1", "q1"], "docno": pa.array(["d1", "d 2"]).dictionary_encode(), "score": [1.0, 2.0]})
    with pytest.raises(kgeval.ParseError, match=r"row 2, column docno: found the docno \"d 2\" holding U\+0020 \(whitespace\)"):
        kgeval.trec.evaluate(QRELS, dictionary, "map")
    qrels = pa.table({"qid": ["q1"], "docno": ["d\u00a01"], "rel": pa.array([1], pa.int32())})
    with pytest.raises(kgeval.ParseError, match=r"qrels: row 1, column docno"):
        kgeval.trec.evaluate(qrels, {"q1": {"d1": 1.0}}, "map")


def test_no_rows_raise_as_an_empty_text_run_does():
    empty = pa.table({"qid": pa.array([], pa.string()), "docno": pa.array([], pa.string()), "score": pa.array([], pa.float64())})
    for complete in (False, True):
        with pytest.raises(kgeval.ParseError, match=r"run run: found no rows"):
            kgeval.trec.evaluate(QRELS, empty, "map", complete=complete)
    table = pa.table({"qid": ["q1"], "docno": ["d1"], "score": [1.0]})
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    reader.read_all()
    with pytest.raises(kgeval.ParseError, match=r"run run: found no rows"):
        kgeval.trec.evaluate(QRELS, reader, "map", complete=True)
    # A table without a row for a judged topic: an error, or every qrels topic at 0 with `complete`.
    other = pa.table({"qid": ["q9"], "docno": ["d1"], "score": [1.0]})
    with pytest.raises(kgeval.Error, match=r"no topic in common"):
        kgeval.trec.evaluate(QRELS, other, "map")
    assert kgeval.trec.evaluate(QRELS, other, "map", complete=True, per_query=False) == {"map": 0.0}


def test_rank_tables_follow_the_column_rule():
    submission = pa.table({"qid": ["a"], "query_id": ["b"], "candidate": ["x"]})
    with pytest.raises(kgeval.Error, match=r"submission: found columns qid and query_id, both a qid column; keep one"):
        kgeval.rank.evaluate(submission, gold={"a": "x"})
    twice = pa.Table.from_arrays([pa.array(["a"]), pa.array(["x"]), pa.array(["y"])], names=["qid", "candidate", "candidate"])
    with pytest.raises(kgeval.Error, match=r"submission: found columns candidate and candidate"):
        kgeval.rank.evaluate(twice, gold={"a": "x"})
