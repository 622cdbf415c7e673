"""kgeval.compare against ``kgeval compare --format json``, the kgc-sparsity paper's Kendall
tau and a hand-worked t test; results of other families fed directly."""

import json
import math

import pytest

import kgeval
import kgeval.trec

SPARSITY = "testdata/kgc/kgc-sparsity/result"
TREC = "testdata/trec_eval/test"


def test_kgc_sparsity_kendall_tau_as_published(testdata):
    result = testdata / "kgc/kgc-sparsity/result"
    # Seed 004 (testdata/kgc/derived/expected_kendall.tsv): micro MRR tau-b(S, S-C) = -0.2308,
    # tau-b(O, S) = 0.7949.
    for left, right, expected in [("FB-Test-S", "FB-Test-S-C", -0.2307692308), ("FB-Test-O", "FB-Test-S", 0.7948717949)]:
        out = kgeval.compare(result / left / "evaluation.csv", against=result / right / "evaluation.csv", metrics=["micro_mrr", "macro_mrr"])
        row = next(r for r in out["agreement"]["rows"] if r["metric"] == "micro_mrr")
        assert abs(row["tau_b"] - expected) < 1e-10, row


def test_kgc_sparsity_equals_the_cli(testdata, kgeval_cli):
    ours = kgeval.compare(
        f"{testdata}/kgc/kgc-sparsity/result/FB-Test-S/evaluation.csv",
        against=f"{testdata}/kgc/kgc-sparsity/result/FB-Test-S-C/evaluation.csv",
        metrics=["micro_mrr", "macro_mrr"],
        tau="c",
    )
    theirs = kgeval_cli(
        "compare", f"{SPARSITY}/FB-Test-S/evaluation.csv", "--against", f"{SPARSITY}/FB-Test-S-C/evaluation.csv",
        "-m", "micro_mrr", "-m", "macro_mrr", "--tau", "c", "--format", "json",
    )
    assert _relative(ours) == _relative(theirs)


def _relative(value):
    from conftest import REPO

    return json.loads(json.dumps(value).replace(str(REPO) + "/", ""))


def test_trec_results_equal_the_cli_on_per_query_files(testdata, tmp_path, kgeval_cli):
    qrels = testdata / "trec_eval/test/qrels.test"
    runs = {"full": "results.test", "trunc": "results.trunc"}
    results = {name: kgeval.trec.evaluate(qrels, testdata / "trec_eval/test" / run, ["map", "P.10"]) for name, run in runs.items()}
    for name, run in runs.items():
        kgeval_cli_write(kgeval_cli, tmp_path / f"{name}.json", "trec", f"{TREC}/qrels.test", f"{TREC}/{run}", "-m", "map", "-m", "P.10", "--format", "json", "--per-item")
    for options, flags in [({"missing": "zero"}, ["--missing", "zero"]), ({"missing": "drop", "test": "bootstrap", "iterations": 200, "seed": 7}, ["--missing", "drop", "--test", "bootstrap", "-B", "200", "--seed", "7"])]:
        ours = kgeval.compare(results, **options)
        theirs = kgeval_cli("compare", f"full={tmp_path}/full.json", f"trunc={tmp_path}/trunc.json", "--format", "json", *flags)
        assert ours["conventions"].pop("input_format") == "evaluation"
        assert theirs["conventions"].pop("input_format") == "per-item-json"
        assert ours == theirs
        # The per-query files themselves, and the runs evaluated in-process, through Python.
        files = kgeval.compare({"full": tmp_path / "full.json", "trunc": tmp_path / "trunc.json"}, **options)
        files["conventions"].pop("input_format")
        assert files == theirs
        in_process = kgeval.compare(qrels=qrels, runs={n: testdata / "trec_eval/test" / r for n, r in runs.items()}, metrics=["map", "P.10"], **options)
        assert in_process["metrics"] == theirs["metrics"]


def kgeval_cli_write(kgeval_cli, path, *args):
    path.write_text(json.dumps(kgeval_cli(*args)))


def test_hand_worked_t_test_on_dicts_and_frames():
    scores = {"A": {"q1": 0.5, "q2": 0.25, "q3": 1.0}, "B": {"q1": 0.25, "q2": 0.25, "q3": 0.5}}
    out = kgeval.compare(scores, metric="ap")
    (m,) = out["metrics"]
    assert m["metric"] == "ap" and m["means"] == {"A": 1.75 / 3, "B": 1.0 / 3}
    (pair,) = m["pairs"]
    # Differences 0.25, 0, 0.5: mean 0.25, sd 0.25, t = sqrt(3) on 2 degrees of freedom;
    # the t(2) CDF is 1/2 + t / (2 sqrt(2 + t^2)), so p = 1 - sqrt(3/5).
    assert abs(pair["statistic"] - math.sqrt(3)) < 1e-12
    assert abs(pair["p_value"] - (1 - math.sqrt(0.6))) < 1e-12
    assert (pair["wins"], pair["ties"], pair["losses"]) == (2, 1, 0)
    pandas = pytest.importorskip("pandas")
    wide = pandas.DataFrame(scores)
    assert kgeval.compare(wide, metric="ap")["metrics"] == out["metrics"]
    long = pandas.DataFrame([(s, i, "ap", v) for s, items in scores.items() for i, v in items.items()], columns=["system", "item", "metric", "value"])
    assert kgeval.compare(long)["metrics"] == out["metrics"]
    nested = {s: {i: {"ap": v} for i, v in items.items()} for s, items in scores.items()}
    assert kgeval.compare(list(nested.items()))["metrics"] == out["metrics"]


def test_family_results_plug_in_through_their_score_table(testdata, tmp_path, kgeval_cli):
    gold = testdata / "qald/qald3/dbpedia-test-answers.xml"
    result = kgeval.qald.evaluate(gold, {"unanswered": testdata / "qald/qald3/dbpedia-test-questions.xml", "gold": gold})
    ours = kgeval.compare(result, metrics=["f1"])
    path = tmp_path / "qald.json"
    path.write_text(json.dumps(kgeval_cli("qald", "--gold", "testdata/qald/qald3/dbpedia-test-answers.xml", "--system", "unanswered=testdata/qald/qald3/dbpedia-test-questions.xml", "--system", "gold=testdata/qald/qald3/dbpedia-test-answers.xml", "--per-item", "--format", "json")))
    theirs = kgeval_cli("compare", str(path), "-m", "f1", "--format", "json")
    assert ours["conventions"].pop("input_format") == "evaluation"
    theirs["conventions"].pop("input_format")
    assert ours == theirs
    # Means as the qald result says: 4/99 and 1.
    assert ours["metrics"][0]["means"] == {"unanswered": 4 / 99, "gold": 1.0}
    # Two results side by side, each named (a result of one system is renamed).
    lemon = testdata / "lemon"
    a = kgeval.lexicon.evaluate(lemon / "matoll-foaf.ttl", lemon / "matoll-foaf_2.ttl", lemon / "matoll-foaf-uris.txt")
    b = kgeval.lexicon.evaluate(lemon / "matoll-foaf.ttl", lemon / "matoll-foaf_3.ttl", lemon / "matoll-foaf-uris.txt")
    both = kgeval.compare({"two": a, "three": b}, metrics=["f1"])
    assert both["systems"] == ["two", "three"]
    assert kgeval.compare([a, b], metrics=["f1"])["systems"] == ["matoll-foaf_2", "matoll-foaf_3"]


def test_bad_input_raises_kgeval_errors(testdata):
    scores = {"A": {"q1": 0.5, "q2": 0.25}, "B": {"q1": 0.25, "q2": 0.5}}
    with pytest.raises(kgeval.InvalidInput, match=r'test: found "z", expected t, wilcoxon, bootstrap, fisher or tukey'):
        kgeval.compare(scores, test="z")
    with pytest.raises(kgeval.InvalidInput, match="without a system name"):
        kgeval.compare([{"q1": 0.5}])
    with pytest.raises(kgeval.InvalidInput, match=r"A\[\"q2\"\]: found 'x', expected a number"):
        kgeval.compare({"A": {"q1": 0.5, "q2": "x"}, "B": {"q1": 0.25, "q2": 0.5}})
    with pytest.raises(kgeval.InvalidInput, match="paths beside tables in memory"):
        kgeval.compare({"A": scores["A"], "B": testdata / "trec_eval/test/out.test.aq"})
    with pytest.raises(kgeval.InvalidInput, match="unknown metric `ndcg`"):
        kgeval.compare(scores, metrics=["ndcg"])
    with pytest.raises(kgeval.InvalidInput, match="missing value"):
        kgeval.compare({"A": {"q1": 0.5, "q2": 0.25}, "B": {"q1": 0.25}})
    with pytest.raises(kgeval.InvalidInput, match="alpha"):
        kgeval.compare(scores, alpha=2.0)
    with pytest.raises(kgeval.InvalidInput):
        kgeval.compare({"A": {"q1": float("nan"), "q2": 0.25}, "B": {"q1": 0.25, "q2": 0.5}})
    with pytest.raises(kgeval.ParseError) as e:
        kgeval.compare(testdata / "trec_eval/test/qrels.test", input_format="long-csv")
    assert e.value.line == 1
    with pytest.raises(kgeval.ReadError):
        kgeval.compare(["nothing-here.json", "nor-here.json"])


def test_published_qald3_table_from_the_per_question_rows(testdata):
    # testdata/qald/SOURCES.md: the QALD-3 Task 1 overview (R / P / F as printed) is the mean
    # of the per-question rows over the 99 DBpedia test questions, a question without a row
    # scoring 0 (missing="zero"; the six systems' rows cover all 99), F the harmonic mean of
    # macro P and R. kgeval's values: squall2sparql .8848/.9187/.9015, CASIA .3622/.3522/.3572.
    import csv

    rows = csv.DictReader((testdata / "qald/qald3/qald3_task1_results_per_question.tsv").open(encoding="utf-8"), delimiter="\t")
    scores: dict = {}
    for r in rows:
        if r["dataset"] == "dbpedia-test":
            scores.setdefault(r["system"], {})[r["question_id"]] = {"precision": float(r["precision"]), "recall": float(r["recall"])}
    out = kgeval.compare(scores, metrics=["recall", "precision"], missing="zero")
    recall, precision = ({m["metric"]: m for m in out["metrics"]}[k] for k in ["recall", "precision"])
    assert recall["items"] == precision["items"] == 99
    published = {
        "squall2sparql": (0.885, 0.919, 0.901),
        "CASIA": (0.362, 0.352, 0.357),
        "Scalewelis": (0.328, 0.333, 0.331),
        "RTV": (0.338, 0.325, 0.331),
        "Intui2": (0.324, 0.325, 0.325),
        "SWIP": (0.160, 0.172, 0.166),
    }
    for system, (r, p, f) in published.items():
        ours_r, ours_p = recall["means"][system], precision["means"][system]
        ours_f = 2 * ours_p * ours_r / (ours_p + ours_r)
        assert abs(ours_r - r) <= 0.011 and abs(ours_p - p) <= 0.011 and abs(ours_f - f) <= 0.011, system
    assert abs(recall["means"]["squall2sparql"] - 0.8848) < 5e-5 and abs(precision["means"]["squall2sparql"] - 0.9187) < 5e-5
    assert abs(recall["means"]["CASIA"] - 0.3622) < 5e-5 and abs(precision["means"]["CASIA"] - 0.3522) < 5e-5
    # The leaderboard puts squall2sparql alone on top, significantly above every other system.
    top = precision["leaderboard"][0]
    assert top["system"] == "squall2sparql" and len(top["beats"]) == 5, top


def test_sensitivity_on_trec_results_equals_the_cli(testdata, tmp_path, kgeval_cli):
    qrels = testdata / "trec_eval/test/qrels.test"
    runs = {"full": "results.test", "trunc": "results.trunc"}
    for name, run in runs.items():
        kgeval_cli_write(kgeval_cli, tmp_path / f"{name}.json", "trec", f"{TREC}/qrels.test", f"{TREC}/{run}", "-m", "map", "-m", "P.10", "--format", "json", "--per-item")
    results = {name: kgeval.trec.evaluate(qrels, testdata / "trec_eval/test" / run, ["map", "P.10"]) for name, run in runs.items()}
    ours = kgeval.compare(results, sensitivity=True, ratios=[0.5, 1.0], repeats=5, missing="zero", seed=3)
    theirs = kgeval_cli(
        "compare", "--sensitivity", "--ratios", "0.5,1.0", "--repeats", "5", "--missing", "zero", "--seed", "3",
        f"full={tmp_path}/full.json", f"trunc={tmp_path}/trunc.json", "--format", "json",
    )
    assert ours["conventions"].pop("input_format") == "evaluation"
    theirs["conventions"].pop("input_format")
    assert ours == theirs
    curve = ours["sensitivity"]
    # All 3 items: the full ordering itself, tau 1 for both metrics. Half of them (2 items):
    # with two systems every tau is +1 or -1, so a mean of 0.2 over 5 subsets is 3 agreeing
    # and 2 reversed, whose sample sd is sqrt((3 * 0.8^2 + 2 * 1.2^2) / 4) = sqrt(1.2).
    half, full = curve["points"]
    assert (half["size"], full["size"]) == (2, 3)
    for metric in ["map", "P_10"]:
        assert (full["metrics"][metric]["mean_tau"], full["metrics"][metric]["sd_tau"]) == (1.0, 0.0)
        assert half["metrics"][metric]["mean_tau"] == 0.2  # seed 3: deterministic
        assert abs(half["metrics"][metric]["sd_tau"] - math.sqrt(1.2)) < 1e-12
    with pytest.raises(kgeval.InvalidInput, match="two analyses"):
        kgeval.compare(results, against=results, sensitivity=True, missing="zero")
