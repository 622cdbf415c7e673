"""kgeval.align: MELT's numbers on the bundled OAEI 2018 files, the CLI's JSON, OntoAligner's
evaluation_report on generated predictions, bad input."""

import json
import random
import sys
from pathlib import Path

import pytest

import kgeval
import kgeval.align

# The opt-in peer script's generator (it imports ontoaligner only when run).
import ontoaligner_agreement

CONFERENCE = "alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1"
CMT_CONFERENCE_REF = "alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf"
CMT_CONFOF_REF = "alignment/melt/examples/simpleHobbitMatcher/src/test/resources/localtrack/cmt-confof/reference.rdf"
CMT = "alignment/melt/matching-eval/src/test/resources/cmt.owl"
CONFERENCE_OWL = "alignment/melt/matching-eval/src/test/resources/conference.owl"


def conference_pairs(testdata, systems=("AML",)):
    return [
        {
            "name": case,
            "track": "conference",
            "reference": testdata / reference,
            "systems": {s: testdata / CONFERENCE / case / s / "systemAlignment.rdf" for s in systems},
        }
        for case, reference in (("cmt-conference", CMT_CONFERENCE_REF), ("cmt-confof", CMT_CONFOF_REF))
    ]


def test_melt_micro_figures_of_aml_over_the_conference_test_cases(testdata):
    # MELT's aggregated performance.csv (OAEI 2018): AML micro P 17/22, R 17/31.
    aml = kgeval.align.evaluate_track(conference_pairs(testdata), mode="complete")["conference:AML"]
    assert (aml.tp, aml.fp, aml.fn) == (17, 5, 14)
    assert aml.precision == 17 / 22
    assert aml.recall == 17 / 31
    assert aml.f1 == 2 * (17 / 22) * (17 / 31) / (17 / 22 + 17 / 31)
    # MELT's cmt-conference/AML/performance.csv ALL row: P 8/12, R 8/15.
    first = aml.pairs[0]["primary"]
    assert (first["precision"], first["recall"], first["tp"], first["fp"], first["fn"]) == (8 / 12, 8 / 15, 8, 4, 7)


def test_one_pair_with_ontologies_has_the_type_breakdown(testdata):
    result = kgeval.align.evaluate(
        testdata / CMT_CONFERENCE_REF,
        testdata / CONFERENCE / "cmt-conference/AML/systemAlignment.rdf",
        onto1=testdata / CMT,
        onto2=testdata / CONFERENCE_OWL,
    )
    assert result.system == "systemAlignment"
    assert (result.precision, result.recall, result.correspondences) == (8 / 12, 8 / 15, 12)
    classes = result.by_type["cmt-conference"]["classes"]
    assert (classes["tp"], classes["fp"], classes["fn"]) == (7, 4, 5)
    assert classes["precision"] == 7 / 11
    frame_rows = result.rows()
    kinds = [(r["pair"], r["type"]) for r in frame_rows]
    assert ("cmt-conference", "all") in kinds and ("cmt-conference", "classes") in kinds and ("MICRO", "all") in kinds
    assert "AlignmentResult(system='systemAlignment', precision=0.6667" in repr(result)


def test_to_pandas(testdata):
    pd = pytest.importorskip("pandas")
    aml = kgeval.align.evaluate_track(conference_pairs(testdata))["conference:AML"]
    frame = aml.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    micro = frame[(frame["pair"] == "MICRO") & (frame["reference"] == "primary")].iloc[0]
    assert (micro["tp"], micro["fp"], micro["fn"], micro["precision"]) == (17, 5, 14, 17 / 22)
    assert list(frame.columns[:4]) == ["system", "pair", "reference", "type"]


def test_results_equal_the_cli_json_of_the_oaei_2018_track(testdata, monkeypatch):
    """testdata/golden/oaei2018.json is `kgeval align --manifest testdata/tracks/oaei2018.toml
    --format json` (cargo xtask fixtures; the CLI golden test keeps it current), run from the
    repository root: its warnings name the files as the manifest resolves them."""
    tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else pytest.importorskip("tomli")
    monkeypatch.chdir(testdata.parent)
    manifest_path = Path("testdata") / "tracks" / "oaei2018.toml"
    manifest = tomllib.loads(manifest_path.read_text())
    base = manifest_path.parent
    pairs = []
    for pair in manifest["pair"]:
        entry = {k: (base / v if k in ("reference", "onto1", "onto2") else v) for k, v in pair.items() if k != "systems"}
        entry["systems"] = {name: base / path for name, path in pair["systems"].items()}
        pairs.append(entry)
    ours = kgeval.align.evaluate_track(pairs, profile=manifest["profile"], mode=manifest["completeness"])
    golden = json.loads((testdata / "golden" / "oaei2018.json").read_text())
    assert any(p["warnings"] for s in golden["systems"] for p in s["pairs"])  # paths compared too
    assert list(ours) == [s["system"] for s in golden["systems"]]
    for entry in golden["systems"]:
        assert ours[entry["system"]].to_dict() == entry, entry["system"]


def tsv_cells(path):
    """A MELT TSV (source, target, confidence[, relation]) as OntoAligner-style dicts."""
    cells = []
    for line in path.read_text().splitlines():
        source, target, score, *rest = line.split("\t")
        cell = {"source": source, "target": target, "score": float(score)}
        if rest:
            cell["relation"] = rest[0]
        cells.append(cell)
    return cells


def test_lists_score_as_the_same_cells_in_a_file(tmp_path):
    rng = random.Random(3)
    reference = [{"source": f"http://a/{i}", "target": f"http://b/{i}", "relation": "="} for i in range(30)]
    system = []
    for _ in range(60):
        i = rng.randrange(40)
        j = i if rng.random() < 0.5 else rng.randrange(40)  # half of them right when i < 30
        system.append({"source": f"http://a/{i}", "target": f"http://b/{j}", "score": rng.random()})
    (tmp_path / "ref.tsv").write_text("".join(f"{c['source']}\t{c['target']}\t1.0\t=\n" for c in reference))
    (tmp_path / "sys.tsv").write_text("".join(f"{c['source']}\t{c['target']}\t{c['score']!r}\n" for c in system))
    for mode in ("complete", "partial", "partial-source"):
        from_lists = kgeval.align.evaluate(reference, {"sys": system}, mode=mode, name="ref", threshold=0.3)["sys"]
        from_files = kgeval.align.evaluate(tmp_path / "ref.tsv", tmp_path / "sys.tsv", mode=mode, threshold=0.3)
        assert from_lists.to_dict()["pairs"][0]["primary"] == from_files.to_dict()["pairs"][0]["primary"], mode
        assert from_lists.tp > 0 and from_lists.fp > 0
    # A data frame with the same columns is the same input.
    pd = pytest.importorskip("pandas")
    frame = kgeval.align.evaluate(pd.DataFrame(reference), pd.DataFrame(system))
    assert frame.to_dict()["micro"] == kgeval.align.evaluate(reference, system).to_dict()["micro"]
    assert frame.system == "system"


# --- OntoAligner's evaluation_report, restated -------------------------------------------
# A faithful re-statement of `evaluation_report` (and the functions it calls) from
# sciknoworg/OntoAligner, ontoaligner/utils/metrics.py of the PyPI release 1.9.4 (2026): both
# lists reduced to sets of (source, target) pairs. (v1.9.1, commit 28cb2932, divided by the list
# lengths, duplicates included.) `pip install ontoaligner` pulls torch, so the package itself is
# checked by the opt-in xtask/peer/ontoaligner_agreement.py (0 disagreements on 300 cases).


def _calculate_intersection(predicts, references):
    predict_set = {(pred["source"], pred["target"]) for pred in predicts}
    reference_set = {(ref["source"], ref["target"]) for ref in references}
    return len(predict_set & reference_set)


def _precision_score(predicts, references):
    intersection = _calculate_intersection(predicts=predicts, references=references)
    predict_set = {(predict["source"], predict["target"]) for predict in predicts}
    return intersection / len(predict_set) if len(predict_set) != 0 else 0


def _recall_score(predicts, references):
    intersection = _calculate_intersection(predicts=predicts, references=references)
    reference_set = {(reference["source"], reference["target"]) for reference in references}
    return intersection / len(reference_set) if len(reference_set) != 0 else 0


def _f1_measurement(predicts, references, beta=1):
    precision = _precision_score(predicts=predicts, references=references)
    recall = _recall_score(predicts=predicts, references=references)
    beta_square = beta * beta
    return (
        ((1 + beta_square) * precision * recall) / (beta_square * precision + recall)
        if (beta_square * precision + recall) != 0
        else 0
    )


def ontoaligner_evaluation_report(predicts, references, beta=1):
    intersection = _calculate_intersection(predicts=predicts, references=references)
    precision = _precision_score(predicts=predicts, references=references)
    recall = _recall_score(predicts=predicts, references=references)
    f_score = _f1_measurement(predicts=predicts, references=references, beta=beta)
    predict_set = {(predict["source"], predict["target"]) for predict in predicts}
    reference_set = {(reference["source"], reference["target"]) for reference in references}
    return {
        "intersection": intersection,
        "precision": precision * 100,
        "recall": recall * 100,
        "f-score": f_score * 100,
        "predictions-len": len(predict_set),
        "reference-len": len(reference_set),
    }


def test_ontoaligner_evaluation_report_on_generated_predictions():
    rng = random.Random(20261124)
    duplicates = 0
    for index in range(300):
        references, predictions = ontoaligner_agreement.generated_case(rng, index)
        beta = 1 if index % 3 else rng.choice([0.5, 2])
        theirs = ontoaligner_evaluation_report(predictions, references, beta=beta)
        ours = kgeval.align.evaluate(references, predictions, profile="ontoaligner", beta=beta)
        assert list(ours) == list(theirs), index
        for key, value in theirs.items():
            assert ours[key] == pytest.approx(value, abs=1e-12), (index, key, ours, theirs)
        assert type(ours["intersection"]) is int and type(ours["predictions-len"]) is int
        duplicates += len({(p["source"], p["target"]) for p in predictions}) < len(predictions)
    assert duplicates > 50  # the generator exercises repeated predictions


def test_ontoaligner_report_of_the_bundled_aml_file(testdata):
    # As `kgeval align --profile ontoaligner` (tests/it/conventions.rs): 8 of 12 in 15.
    report = kgeval.align.evaluate(
        testdata / CMT_CONFERENCE_REF, {"AML": testdata / CONFERENCE / "cmt-conference/AML/systemAlignment.rdf"}, profile="ontoaligner"
    )["AML"]
    assert (report["intersection"], report["predictions-len"], report["reference-len"]) == (8, 12, 15)
    assert report["precision"] == pytest.approx(800 / 12, abs=1e-12)


def test_several_systems_and_name_collisions():
    reference = [{"source": "a", "target": "b"}, {"source": "c", "target": "d"}]
    good = [{"source": "a", "target": "b", "score": 0.9}]
    bad = [{"source": "a", "target": "x", "score": 0.9}]
    results = kgeval.align.evaluate(reference, {"good": good, "bad": bad})
    assert list(results) == ["good", "bad"]
    assert (results["good"].precision, results["good"].recall, results["bad"].f1) == (1.0, 0.5, 0.0)
    listed = kgeval.align.evaluate(reference, [("good", good), ("bad", bad)])
    assert {n: r.to_dict() for n, r in listed.items()} == {n: r.to_dict() for n, r in results.items()}
    with pytest.raises(kgeval.InvalidInput, match='found two systems named "good"'):
        kgeval.align.evaluate(reference, [("good", good), ("good", bad)])


def test_bad_input_raises_clear_errors():
    reference = [{"source": "a", "target": "b"}]
    with pytest.raises(kgeval.InvalidInput, match=r'system\[1\]: found no "target" key, expected source and target'):
        kgeval.align.evaluate(reference, [{"source": "a", "target": "b"}, {"source": "a"}])
    with pytest.raises(kgeval.InvalidInput, match=r"system\[0\]: found score 'high', expected a number"):
        kgeval.align.evaluate(reference, [{"source": "a", "target": "b", "score": "high"}])
    with pytest.raises(kgeval.InvalidInput, match=r"system\[0\]: found score NaN, expected a finite number"):
        kgeval.align.evaluate(reference, [{"source": "a", "target": "b", "score": float("nan")}])
    with pytest.raises(kgeval.InvalidInput, match=r"reference\[0\]: found source 3, expected a str"):
        kgeval.align.evaluate([{"source": 3, "target": "b"}], reference)
    with pytest.raises(kgeval.InvalidInput, match=r"system s\[0\]: found tuple, expected a dict with source, target"):
        kgeval.align.evaluate(reference, {"s": [("a", "b")]})
    with pytest.raises(kgeval.InvalidInput, match=r'reference\[0\]: found relation "sameish", expected ='):
        kgeval.align.evaluate([{"source": "a", "target": "b", "relation": "sameish"}], reference)
    with pytest.raises(kgeval.InvalidInput, match=r"reference: an empty list: found no correspondence in the reference"):
        kgeval.align.evaluate([], reference)
    with pytest.raises(kgeval.InvalidInput, match=r'pair "reference": expected at least one system'):
        kgeval.align.evaluate(reference, {})
    nothing = kgeval.align.evaluate(reference, [])  # a system that found nothing
    assert (nothing.precision, nothing.recall, nothing.fn, nothing.correspondences) == (0.0, 0.0, 1, 0)
    with pytest.raises(kgeval.InvalidInput, match=r'mode: found "half", expected complete, partial'):
        kgeval.align.evaluate(reference, reference, mode="half")
    with pytest.raises(kgeval.InvalidInput, match=r'profile: found "ontoalligner", expected melt, alignapi'):
        kgeval.align.evaluate(reference, reference, profile="ontoalligner")
    with pytest.raises(kgeval.InvalidInput, match=r"threshold: expected a finite number"):
        kgeval.align.evaluate(reference, reference, threshold=float("inf"))
    with pytest.raises(kgeval.InvalidInput, match=r"system s: found int, expected a path or a list of dicts"):
        kgeval.align.evaluate(reference, {"s": 3})


def test_files_errors_keep_their_place(tmp_path, testdata):
    bad = tmp_path / "bad.tsv"
    bad.write_text("http://a/1\thttp://b/1\t0.5\nhttp://a/2\thttp://b/2\tmuch\n")
    with pytest.raises(kgeval.ParseError) as caught:
        kgeval.align.evaluate(testdata / CMT_CONFERENCE_REF, bad)
    assert (caught.value.path, caught.value.line) == (str(bad), 2)
    with pytest.raises(kgeval.ReadError):
        kgeval.align.evaluate(tmp_path / "missing.rdf", bad)


def test_a_track_goes_to_compare_with_its_score_table(testdata):
    # evaluate_track's result carries the per-item (per test case) score table of every
    # system: kgeval.compare takes it as it is, no conversion in Python.
    track = kgeval.align.evaluate_track(conference_pairs(testdata, ("AML", "LogMap")), mode="complete")
    assert isinstance(track, kgeval.align.AlignmentTrack)
    assert track.table.systems == ["conference:AML", "conference:LogMap"]
    assert all(result.table is track.table for result in track.values())
    result = kgeval.compare(track, metrics=["precision", "f1"])
    assert result["systems"] == ["conference:AML", "conference:LogMap"]
    means = {m["metric"]: m["means"] for m in result["metrics"]}
    # Macro over the two test cases, from MELT's per-case performance.csv rows.
    aml, logmap = track["conference:AML"], track["conference:LogMap"]
    assert means["precision"]["conference:AML"] == pytest.approx((8 / 12 + 9 / 10) / 2, abs=1e-15)
    for name, one in (("conference:AML", aml), ("conference:LogMap", logmap)):
        f1s = [pair["primary"]["f1"] for pair in one.pairs]
        assert means["f1"][name] == pytest.approx(sum(f1s) / len(f1s), abs=1e-15)
