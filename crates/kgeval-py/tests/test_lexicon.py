"""kgeval.lexicon against ``kgeval lexicon --format json`` and hand-worked values."""

import json

import pytest

import kgeval

FOAF = "testdata/lemon/matoll-foaf.ttl"
FOAF_URIS = "testdata/lemon/matoll-foaf-uris.txt"


def _relative(value):
    from conftest import REPO

    return json.loads(json.dumps(value).replace(str(REPO) + "/", ""))


def test_equals_the_cli_json_on_the_foaf_lexicons(testdata, kgeval_cli):
    lemon = testdata / "lemon"
    systems = [lemon / "matoll-foaf_2.ttl", ("foaf3", lemon / "matoll-foaf_3.ttl")]
    for mode, per_item in [(None, False), ("qald3-script", True)]:
        ours = kgeval.lexicon.evaluate(lemon / "matoll-foaf.ttl", systems, lemon / "matoll-foaf-uris.txt", mode=mode, per_item=per_item)
        args = ["lexicon", "--gold", FOAF, "--uris", FOAF_URIS, "--format", "json"]
        args += ["--system", "testdata/lemon/matoll-foaf_2.ttl", "--system", "foaf3=testdata/lemon/matoll-foaf_3.ttl"]
        args += ["--mode", mode] if mode else []
        args += ["--per-item"] if per_item else []
        assert _relative(ours) == _relative(kgeval_cli(*args))
        assert [s["system"] for s in ours["systems"]] == ["matoll-foaf_2", "foaf3"]


def test_hand_worked_foaf_numbers(testdata):
    # matoll-foaf_2.ttl drops one of foaf:friend's gold entries' counterparts and adds one:
    # friend P 3/4, R 1 (gold know, friend, acquainted; extra love); micro 6 matched, 1 extra, 1 missing.
    lemon = testdata / "lemon"
    result = kgeval.lexicon.evaluate(lemon / "matoll-foaf.ttl", lemon / "matoll-foaf_2.ttl", lemon / "matoll-foaf-uris.txt")
    (system,) = result["systems"]
    friend = next(u for u in system["uris"] if u["uri"] == "http://xmlns.com/foaf/0.1/friend")
    assert (friend["precision"], friend["recall"]) == (0.75, 1.0)
    micro = system["micro"]
    assert (micro["matched"], micro["extra"], micro["missing"]) == (6, 1, 1)
    assert micro["precision"] == micro["recall"] == 6 / 7


def test_bytes_in_memory_equal_the_files(testdata):
    lemon = testdata / "lemon"
    gold, uris = (lemon / "matoll-foaf.ttl").read_bytes(), (lemon / "matoll-foaf-uris.txt").read_bytes()
    system = (lemon / "matoll-foaf_2.ttl").read_bytes()
    from_bytes = kgeval.lexicon.evaluate(gold, {"matoll-foaf_2": system}, uris)
    from_files = kgeval.lexicon.evaluate(lemon / "matoll-foaf.ttl", lemon / "matoll-foaf_2.ttl", lemon / "matoll-foaf-uris.txt")
    (ours,), (theirs,) = from_bytes["systems"], from_files["systems"]
    for key in ["system", "conventions", "uris", "average", "micro"]:
        assert ours[key] == theirs[key], key
    # The warnings are the same, located in the in-memory names ("gold.ttl", "matoll-foaf_2.ttl").
    assert [w["message"] for w in ours["warnings"]] == [w["message"] for w in theirs["warnings"]]
    assert {w["location"].split(":")[0] for w in ours["warnings"]} == {"gold.ttl", "matoll-foaf_2.ttl"}
    assert from_bytes.table.rows() == from_files.table.rows()


def test_bad_input_raises_kgeval_errors(testdata):
    lemon = testdata / "lemon"
    gold, uris = lemon / "matoll-foaf.ttl", lemon / "matoll-foaf-uris.txt"
    with pytest.raises(kgeval.ParseError) as e:
        kgeval.lexicon.evaluate(gold, lemon / "bad/malformed.ttl", uris)
    assert e.value.path.endswith("malformed.ttl") and e.value.line == 7 and "invalid Turtle" in str(e.value)
    with pytest.raises(kgeval.ParseError) as e:
        kgeval.lexicon.evaluate(gold, gold, lemon / "bad/garbage-uris.txt")
    assert (e.value.line, e.value.column) == (4, 1)
    with pytest.raises(kgeval.ParseError, match="found no lemon:entry"):
        kgeval.lexicon.evaluate(gold, {"x": b"@prefix lemon: <http://lemon-model.net/lemon#> .\n<a> lemon:entries <b> .\n"}, uris)
    with pytest.raises(kgeval.InvalidInput, match=r'mode: found "script", expected paper or qald3-script'):
        kgeval.lexicon.evaluate(gold, gold, uris, mode="script")
    with pytest.raises(kgeval.ReadError):
        kgeval.lexicon.evaluate(gold, lemon / "missing.ttl", uris)
