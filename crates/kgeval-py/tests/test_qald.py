"""kgeval.qald against ``kgeval qald --format json`` and hand-worked and published values."""

import json

import pytest

import kgeval

QALD3 = "testdata/qald/qald3"
SPARQL = "testdata/qald/sparql"


def test_equals_the_cli_json_on_the_qald3_files(testdata, kgeval_cli):
    gold = testdata / "qald/qald3/dbpedia-test-answers.xml"
    systems = {"unanswered": testdata / "qald/qald3/dbpedia-test-questions.xml", "gold": gold}
    for rule, per_item in [("qald3", False), ("gerbil", True)]:
        ours = kgeval.qald.evaluate(gold, systems, rule=rule, per_item=per_item)
        args = ["qald", "--gold", f"{QALD3}/dbpedia-test-answers.xml", "--rule", rule, "--format", "json"]
        args += ["--system", f"unanswered={QALD3}/dbpedia-test-questions.xml"]
        args += ["--system", f"gold={QALD3}/dbpedia-test-answers.xml"]
        theirs = kgeval_cli(*args, *(["--per-item"] if per_item else []))
        assert _without_paths(ours) == _without_paths(theirs)
        assert all(("per_item" in system) == per_item for system in ours["systems"])


def _without_paths(value):
    """The JSON with absolute and relative spellings of one file made equal."""
    text = json.dumps(value, sort_keys=True)
    return json.loads(text.replace(str(_repo()) + "/", ""))


def _repo():
    from conftest import REPO

    return REPO


def test_qald3_unanswered_and_gold_scores(testdata):
    # Every question present and unanswered: only the 4 out-of-scope questions (empty gold,
    # empty answer) score 1, so macro P = R = F = 4/99; the gold against itself scores 1.
    result = kgeval.qald.evaluate(
        testdata / "qald/qald3/dbpedia-test-answers.xml",
        [("unanswered", testdata / "qald/qald3/dbpedia-test-questions.xml"), ("gold", testdata / "qald/qald3/dbpedia-test-answers.xml")],
    )
    unanswered, gold = result["systems"]
    g = unanswered["global"]
    assert (g["questions"], g["right"], g["out_of_scope"]) == (99, 4, 4)
    assert (g["macro_precision"], g["macro_recall"], g["qald_f"]) == (4 / 99, 4 / 99, 4 / 99)
    assert g["micro_precision"] == 0.0
    assert gold["global"]["qald_f"] == 1.0 and gold["global"]["micro_f1"] == 1.0


def test_sparql_queries_on_the_embedded_store_hand_worked(testdata):
    # testdata/qald/SOURCES.md: 5 right, 1 partial (q5: all 5 cities for the 2 French ones),
    # macro P 0.9 over the 5 in-scope ... and micro TP 8, FP 3, FN 0.
    result = kgeval.qald.evaluate(
        testdata / "qald/sparql/gold.xml",
        testdata / "qald/sparql/system.json",
        data=[testdata / "qald/sparql/data.ttl", testdata / "qald/sparql/extra.rdf"],
    )
    (system,) = result["systems"]
    assert system["system"] == "system"
    g = system["global"]
    assert (g["right"], g["partial"]) == (5, 1)
    assert g["macro_precision"] == 5.4 / 6 and g["macro_recall"] == 1.0
    assert g["micro_precision"] == 8 / 11 and g["micro_recall"] == 1.0
    # Without the store the queries are not run: nothing answered.
    empty = kgeval.qald.evaluate(testdata / "qald/sparql/gold.xml", testdata / "qald/sparql/system.json")
    assert empty["systems"][0]["global"]["micro_precision"] == 0.0


def test_dicts_as_json_load_gives_them_equal_the_files(testdata, tmp_path, kgeval_cli):
    gold = json.loads((testdata / "qald/json/qald-9-test-multilingual.json").read_text(encoding="utf-8"))
    # A submission answering the first 100 questions as the gold does and 50 not at all.
    system = {"questions": gold["questions"][:100]}
    ours = kgeval.qald.evaluate(gold, system, rule="qald6")
    g = ours["systems"][0]["global"]
    assert (g["questions"], g["processed"]) == (150, 100)
    assert g["macro_precision"] == 100 / 150 and g["micro_precision"] == 1.0
    assert ours["systems"][0]["system"] == "system"
    # The same dicts written as files: the command line gives the same JSON.
    for name, value in [("gold.json", gold), ("system.json", system)]:
        (tmp_path / name).write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")
    theirs = kgeval_cli("qald", "--gold", "gold.json", "--system", "system.json", "--rule", "qald6", "--format", "json", cwd=tmp_path)
    assert ours == theirs
    named = kgeval.qald.evaluate(gold, {"mine": system}, rule="qald6")
    assert named["systems"][0]["system"] == "mine"
    assert named["systems"][0]["global"] == g


def test_options_reach_the_facade(testdata):
    gold, labels = testdata / "qald/sparql/gold.xml", testdata / "qald/sparql/labels.tsv"
    system = testdata / "qald/sparql/system-labels.xml"
    without = kgeval.qald.evaluate(gold, system)["systems"][0]
    with_labels = kgeval.qald.evaluate(gold, system, labels=labels)["systems"][0]
    # With the label map the label answers match: local micro P 1, TP 6 of 7 gold answers.
    assert (with_labels["local"]["micro_precision"], with_labels["local"]["micro_recall"]) == (1.0, 6 / 7)
    assert without["local"]["tp"] < with_labels["local"]["tp"] == 6
    assert with_labels["conventions"]["label_map"] == "5 IRIs"
    switched = kgeval.qald.evaluate(gold, system, normalisation={"trim": False, "respect_literal_type": True}, language="de")
    conventions = switched["systems"][0]["conventions"]
    assert "trim off" in conventions["normalisation"] and "respect-literal-type on" in conventions["normalisation"]
    assert conventions["language"] == "de"
    gerbil = kgeval.qald.evaluate(gold, system, rule="gerbil-qald")["systems"][0]
    assert gerbil["rule"] == "gerbil"


def test_result_carries_its_score_table(testdata):
    result = kgeval.qald.evaluate(
        testdata / "qald/qald3/dbpedia-test-answers.xml",
        {"unanswered": testdata / "qald/qald3/dbpedia-test-questions.xml"},
    )
    assert isinstance(result, dict) and isinstance(result.table, kgeval.ScoreTable)
    assert result.table.systems == ["unanswered"]
    rows = [r for r in result.table.rows() if r[2] == "f1"]
    assert len(rows) == 99 and sum(r[3] for r in rows) == 4.0


def test_bad_input_raises_kgeval_errors(testdata):
    gold = testdata / "qald/sparql/gold.xml"
    with pytest.raises(kgeval.ParseError) as e:
        kgeval.qald.evaluate(gold, testdata / "qald/bad/xml-mismatched-tag.xml")
    assert e.value.path.endswith("xml-mismatched-tag.xml") and e.value.line >= 1 and e.value.column >= 1
    with pytest.raises(kgeval.ParseError) as e:
        kgeval.qald.evaluate({"questions": [{"id": "1", "answers": "Berlin"}]}, gold)
    assert e.value.path == "gold.json" and e.value.line >= 1, str(e.value)
    with pytest.raises(kgeval.InvalidInput, match='xml-unknown-id.xml:2:1: found question id "99", expected an id of the gold' ):
        kgeval.qald.evaluate(gold, testdata / "qald/bad/xml-unknown-id.xml")
    with pytest.raises(kgeval.InvalidInput, match=r'rule: found "qald9", expected qald3, qald6 or gerbil'):
        kgeval.qald.evaluate(gold, gold, rule="qald9")
    with pytest.raises(kgeval.InvalidInput, match=r'found switch "trimm", expected one of trim'):
        kgeval.qald.evaluate(gold, gold, normalisation={"trimm": False})
    with pytest.raises(kgeval.InvalidInput, match="expected a positive number of seconds"):
        kgeval.qald.evaluate(gold, gold, timeout=0)
    with pytest.raises(kgeval.ReadError) as e:
        kgeval.qald.evaluate(gold, testdata / "qald/no-such-file.json")
    assert e.value.path.endswith("no-such-file.json")
    with pytest.raises(kgeval.InvalidInput, match="expected a path or bytes"):
        kgeval.qald.evaluate(gold, [42])
