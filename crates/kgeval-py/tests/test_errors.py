"""Bad input through the API: a kgeval.Error subclass with a clear message, never a crash."""

import math

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
