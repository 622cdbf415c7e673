"""Bad input through the API: a kgeval.Error subclass with a clear message, never a crash."""

import math
import re

import pytest

import kgeval
import kgeval.trec

QRELS = {"q1": {"d1": 1}}
RUN = {"q1": {"d1": 1.0, "d2": 0.5}}


def test_unknown_measure():
    with pytest.raises(kgeval.InvalidInput, match="bogus_measure"):
        kgeval.trec.evaluate(QRELS, RUN, ["map", "bogus_measure"])


@pytest.mark.parametrize("score", [math.nan, math.inf])
def test_non_finite_score(score):
    with pytest.raises(kgeval.InvalidInput, match=r"run run: topic q1: document d2 has score .*, expected a finite score"):
        kgeval.trec.evaluate(QRELS, {"q1": {"d1": 1.0, "d2": score}}, "map")


def test_ragged_dicts():
    with pytest.raises(kgeval.InvalidInput, match=r"qrels\[\"q1\"\]: found int, expected a path, a dict"):
        kgeval.trec.evaluate({"q1": 3}, RUN, "map")
    with pytest.raises(kgeval.InvalidInput, match=r"run\[\"q1\"\]\[\"d1\"\]: found score 'high', expected a number"):
        kgeval.trec.evaluate(QRELS, {"q1": {"d1": "high"}}, "map")
    with pytest.raises(kgeval.InvalidInput, match=r"found relevance 0.5, expected an integer"):
        kgeval.trec.evaluate({"q1": {"d1": 0.5}}, RUN, "map")
    with pytest.raises(kgeval.InvalidInput, match="found columns of 2, 1 and 2 rows, expected one length"):
        kgeval.trec.evaluate(QRELS, (["q1", "q1"], ["d1"], [1.0, 2.0]), "map")


def test_duplicate_document_in_columns():
    with pytest.raises(kgeval.InvalidInput, match="document d1 is retrieved twice"):
        kgeval.trec.evaluate(QRELS, (["q1", "q1"], ["d1", "d1"], [1.0, 2.0]), "map")


def test_options():
    with pytest.raises(kgeval.InvalidInput, match="tie_break: found \"sideways\""):
        kgeval.trec.evaluate(QRELS, RUN, "map", tie_break="sideways")
    with pytest.raises(kgeval.InvalidInput, match="no topic in common"):
        kgeval.trec.evaluate(QRELS, {"q9": {"d1": 1.0}}, "map")


def test_parse_error_has_its_place(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(kgeval.ParseError) as caught:
        kgeval.trec.evaluate(qrels, str(qrels), "map")
    error = caught.value
    assert (error.path, error.line) == (str(qrels), 2)
    assert error.column >= 1
    assert str(error).startswith(f"{qrels}:2:")
    assert isinstance(error, kgeval.Error) and isinstance(error, ValueError)


def test_missing_file(tmp_path):
    with pytest.raises(kgeval.ReadError) as caught:
        kgeval.trec.evaluate(tmp_path / "nope", tmp_path / "nope2", "map")
    assert caught.value.path == str(tmp_path / "nope")


def test_relevance_labels_far_apart_score_and_past_two_to_the_fifty_three_are_named():
    # R = 3 (d1 at 2^40, d2 at 10^9, d4 at 1); relevant at ranks 2 and 3: AP = (1/2 + 2/3) / 3.
    # A label is its own gain; the ideal puts 2^40, 10^9, 1 at ranks 1-3.
    qrels = {"q1": {"d1": 2**40, "d2": 10**9, "d3": 0, "d4": 1}}
    run = {"q1": {"d3": 4.0, "d1": 3.0, "d2": 2.0, "d5": 1.0}}
    values = kgeval.trec.evaluate(qrels, run, ["map", "ndcg"])["q1"]
    l3 = math.log2(3)
    ndcg = (2**40 / l3 + 10**9 / 2) / (2**40 + 10**9 / l3 + 0.5)
    assert values["map"] == pytest.approx((0.5 + 2 / 3) / 3, rel=1e-15)
    assert values["ndcg"] == pytest.approx(ndcg, rel=1e-15)
    for label, shown in [(2**53 + 1, "9007199254740993"), (-(2**53) - 1, "-9007199254740993"),
                         (2**63, "9223372036854775808"), (2**70, "1180591620717411303424"),
                         (2.0**60, "1.152921504606847e+18")]:
        bad = {"q1": {"d1": 1, "d2": label}}
        expected = rf'qrels\["q1"\]\["d2"\]: found `{re.escape(shown)}` as the relevance, expected an integer from -2\^53 to 2\^53'
        with pytest.raises(kgeval.InvalidInput, match=expected):
            kgeval.trec.evaluate(bad, run, "map")
        with pytest.raises(kgeval.InvalidInput, match=expected):
            kgeval.trec.RelevanceEvaluator(bad, {"map"})
    with pytest.raises(kgeval.InvalidInput, match=r"qrels row 1: found `9007199254740993` as the relevance"):
        kgeval.trec.evaluate((["q1", "q1"], ["d1", "d2"], [1, 2**53 + 1]), run, "map")


def test_an_arrow_qrels_label_past_two_to_the_fifty_three_names_its_row():
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "rel": pa.array([2**40, 2**53 + 1], pa.int64())})
    with pytest.raises(kgeval.Error, match=r"qrels: row 2: column `rel`: found `9007199254740993` as the relevance"):
        kgeval.trec.evaluate(table, {"q1": {"d1": 1.0}}, "map")
