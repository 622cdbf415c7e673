"""kgeval.rank: the CLI's leaderboard on the bundled DISO data (paths and the same data as
lists), DeepOnto / Bio-ML / Bio-LLM figures, OntoAligner's ranking metrics, bad input."""

import ast
import csv
import json

import pytest

import random

import kgeval
import kgeval.rank

import ontoaligner_agreement  # the opt-in peer script's generator

NIL = "https://oaei.ontologymatching.org/2026/diso/NIL"
SYNTHETIC = "ranking/diso-synthetic"
POOLS = "ranking/diso-oaei/pools"
DEEPONTO = "ranking/deeponto-assets"
CONTRACT = "ranking/oaei-bioml-eval-contract"


def jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def tsv_gold(path):
    return dict(line.split("\t") for line in path.read_text().splitlines() if line.strip())


def bioml_rows(path):
    """A Bio-ML / DeepOnto candidates TSV as a DeepOnto user holds it (literals evaluated)."""
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for row in rows:
        row["TgtCandidates"] = ast.literal_eval(row["TgtCandidates"])
    return rows


@pytest.mark.filterwarnings("ignore:.*(sibling-gold|identical-pools)")
def test_diso_task2_paths_and_lists_equal_the_cli_json(testdata):
    """testdata/golden/diso-synthetic-task2.json is `kgeval rank --manifest
    testdata/ranking/diso-synthetic/task2.toml --format json` (cargo xtask fixtures)."""
    golden = json.loads((testdata / "golden" / "diso-synthetic-task2.json").read_text())
    system = "lexical (synthetic demo)"
    names = ("uco-stix", "stix-d3fend")
    # The envelope's warnings (printed on stderr by the CLI) come as Python warnings.
    with pytest.warns(UserWarning, match=r"the pool holds the gold of sibling qid\(s\) 68 \(same source\) \[sibling-gold\]"):
        from_paths = kgeval.rank.evaluate(
            pairs={
                n: {
                    "pools": testdata / POOLS / n / "pools.jsonl",
                    "gold": testdata / SYNTHETIC / n / "gold.tsv",
                    "submission": testdata / SYNTHETIC / n / "lexical.jsonl",
                }
                for n in names
            },
            system=system,
        )
    assert from_paths == golden
    with pytest.warns(UserWarning, match="sibling-gold"):
        in_memory = kgeval.rank.evaluate(
            pairs=[
                {
                    "name": n,
                    "pools": jsonl(testdata / POOLS / n / "pools.jsonl"),
                    "gold": tsv_gold(testdata / SYNTHETIC / n / "gold.tsv"),
                    "submission": jsonl(testdata / SYNTHETIC / n / "lexical.jsonl"),
                }
                for n in names
            ],
            system=system,
        )
    assert in_memory == golden
    # The published layout: per pair overall / matched / NIL / per_type, and MACRO.
    assert in_memory["uco-stix"]["overall"]["queries"] == 217
    assert in_memory["uco-stix"]["matched"]["queries"] + in_memory["uco-stix"]["NIL"]["queries"] == 217
    assert in_memory["MACRO"]["mrr"] == (in_memory["uco-stix"]["overall"]["mrr"] + in_memory["stix-d3fend"]["overall"]["mrr"]) / 2


@pytest.mark.filterwarnings("ignore:.*(sibling-gold|identical-pools)")
def test_diso_submission_as_dicts_of_qids(testdata):
    # {qid: {iri: score}} (pytrec_eval-like) and {qid: [iri, ...]} (rankings) as a DISO user holds them.
    pair = "uco-stix"
    pools = testdata / POOLS / pair / "pools.jsonl"
    gold = testdata / SYNTHETIC / pair / "gold.tsv"
    lines = jsonl(testdata / SYNTHETIC / pair / "lexical.jsonl")
    as_file = kgeval.rank.evaluate(testdata / SYNTHETIC / pair / "lexical.jsonl", gold=gold, pools=pools)
    scores = {str(line["qid"]): line["scores"] for line in lines}
    assert kgeval.rank.evaluate(scores, gold=gold, pools=pools, system="lexical", name=pair) == as_file
    pairs = {q: sorted(s.items(), key=lambda kv: kv[1], reverse=True) for q, s in scores.items()}
    assert kgeval.rank.evaluate(pairs, gold=gold, pools=pools, system="lexical", name=pair) == as_file
    assert as_file["system"] == "lexical"


def test_deeponto_rows_as_deeponto_users_hold_them(testdata):
    # SOURCES.md: unscored lists rank the golds 98, 96, 96; scored (stable sort) 60, 99, 78.
    for file, mrr in (
        ("example_candidate_mappings.tsv", (1 / 98 + 2 / 96) / 3),
        ("example_scored_candidate_mappings.tsv", (1 / 60 + 1 / 99 + 1 / 78) / 3),
    ):
        path = testdata / DEEPONTO / file
        from_file = kgeval.rank.evaluate(path, profile="deeponto")
        rows = bioml_rows(path)
        from_rows = kgeval.rank.evaluate(rows, profile="deeponto", system=path.stem, name=path.stem)
        assert from_rows == from_file, file
        assert from_rows["MACRO"]["mrr"] == pytest.approx(mrr, abs=1e-15)
        assert (from_rows["MACRO"]["hits_at_1"], from_rows["MACRO"]["hits_at_10"]) == (0.0, 0.0)
    assert kgeval.rank.evaluate(testdata / DEEPONTO / "example_candidate_mappings.tsv", profile="deeponto")["MACRO"]["mrr"] == 0.010345804988662131
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(bioml_rows(testdata / DEEPONTO / "example_scored_candidate_mappings.tsv"))
    assert kgeval.rank.evaluate(frame, profile="deeponto")["MACRO"]["mrr"] == pytest.approx((1 / 60 + 1 / 99 + 1 / 78) / 3, abs=1e-15)


def test_bioml_contract_in_memory(testdata):
    # metric-contract-v1.json: mrr 0.75, hits_at_1 0.5, hits_at_5 = hits_at_10 = 1.0, 2 queries.
    gold = tsv_gold(testdata / CONTRACT / "equivalence-local-gold.tsv")
    gold.pop("SrcEntity")
    with (testdata / CONTRACT / "equivalence-local-submission.tsv").open() as f:
        submission = {r["SrcEntity"]: list(ast.literal_eval(r["TgtCandidates"])) for r in csv.DictReader(f, delimiter="\t")}
    board = kgeval.rank.evaluate(submission, gold=gold, profile="bioml")
    macro = board["MACRO"]
    assert (macro["mrr"], macro["hits_at_1"], macro["hits_at_5"], macro["hits_at_10"], macro["queries"]) == (0.75, 0.5, 1.0, 1.0, 2)
    assert board["conventions"]["ties"] == "lexicographic"


def test_biollm_notebook_figures_from_rows(testdata):
    # biollm_eval.ipynb (DeepOnto, threshold 0.0): P 0.643 (36/56), R 0.72, Hits@1 0.86, MRR 0.9266666666666667.
    path = testdata / "ranking/bioml-biollm/biollm_result.tsv"
    from_file = kgeval.rank.evaluate(path, profile="biollm")
    from_rows = kgeval.rank.evaluate(bioml_rows(path), profile="biollm", system=path.stem, name=path.stem)
    assert from_rows == from_file
    assert (from_rows["P"], from_rows["R"], from_rows["Hits@1"], from_rows["MRR"]) == (36 / 56, 0.72, 0.86, 0.9266666666666667)


def test_ontoaligner_ranking_metrics_in_memory(testdata):
    references = [{"source": "s:a", "target": "t:1"}, {"source": "s:b", "target": "t:3"}]
    predictions = [
        {"source": "s:a", "target": "t:2", "score": 0.9},
        {"source": "s:a", "target": "t:1", "score": 0.8},
        {"source": "s:b", "target": "t:3", "score": 0.7},
        {"source": "s:b", "target": "t:4", "score": 0.1},
        {"source": "s:b", "target": "t:4", "score": 0.05},
    ]
    board = kgeval.rank.evaluate(predictions, gold=references, profile="ontoaligner", ks=[1, 2])
    # Hit@1: only s:b's target is first; Hit@2: both; MRR (1/2 + 1) / 2.
    assert board["hit_at_k"] == {"hit_at_1": 0.5, "hit_at_2": 1.0} and board["mrr"] == 0.75
    report = board["evaluation_report"]
    # The repeated (s:b, t:4) is one pair (OntoAligner 1.9.4 counts unique pairs).
    assert (report["intersection"], report["predictions-len"], report["reference-len"]) == (2, 4, 2)
    assert report["precision"] == 50.0 and report["recall"] == 100.0


# `hit_at_k` and `mrr` restated from sciknoworg/OntoAligner, ontoaligner/utils/metrics.py at
# commit 28cb2932c95e3f0ccdb23c4d116eb8a726f22149 (tag v1.9.1); the package itself (it pulls
# torch) is compared by the opt-in xtask/peer/ontoaligner_agreement.py.


def _pred_map(predicts):
    pred_map = {}
    for p in predicts:
        source = p.get("source")
        target = p.get("target")
        if source is None or target is None:
            continue
        score = float(p.get("score", 0.0))
        pred_map.setdefault(source, {})
        if target not in pred_map[source] or score > pred_map[source][target]:
            pred_map[source][target] = score
    return pred_map


def ontoaligner_hit_at_k(predicts, references, k=1):
    if k <= 0:
        return 0.0
    pred_map = _pred_map(predicts)
    if not references:
        return 0.0
    hits = 0
    n = len(references)
    for ref in references:
        candidates = pred_map.get(ref.get("source"), {})
        if not candidates:
            continue
        ranked = sorted(candidates.items(), key=lambda x: x[1], reverse=True)
        if ref.get("target") in {item for item, _ in ranked[:k]}:
            hits += 1
    return hits / n if n else 0.0


def ontoaligner_mrr(predicts, references):
    pred_map = _pred_map(predicts)
    if not references:
        return 0.0
    rr_sum = 0.0
    n = len(references)
    for ref in references:
        candidates = pred_map.get(ref.get("source"), {})
        if not candidates:
            continue
        ranked = sorted(candidates.items(), key=lambda x: x[1], reverse=True)
        for i, (item, _score) in enumerate(ranked):
            if item == ref.get("target"):
                rr_sum += 1.0 / (i + 1)
                break
    return rr_sum / n if n else 0.0


def test_ontoaligner_hit_at_k_and_mrr_on_generated_predictions():
    rng = random.Random(20261124)
    compared = 0
    for index in range(300):
        references, predictions = ontoaligner_agreement.generated_case(rng, index)
        if not predictions:
            continue
        board = kgeval.rank.evaluate(predictions, gold=references, profile="ontoaligner", ks=[1, 3, 5])
        for k in (1, 3, 5):
            assert board["hit_at_k"][f"hit_at_{k}"] == pytest.approx(ontoaligner_hit_at_k(predictions, references, k), abs=1e-12), (index, k)
        assert board["mrr"] == pytest.approx(ontoaligner_mrr(predictions, references), abs=1e-12), index
        compared += 1
    assert compared > 250


def test_a_bad_ties_value_lists_every_value_accepted():
    gold = {"q1": "t:a"}
    with pytest.raises(kgeval.InvalidInput) as raised:
        kgeval.rank.evaluate({"q1": ["t:a"]}, gold=gold, profile="bioml", ties="random")
    message = str(raised.value)
    prefix = 'ties: found "random", expected '
    assert message.startswith(prefix), message
    head, last = message[len(prefix):].rsplit(" or ", 1)
    listed = head.split(", ") + [last]
    # Every policy (expected included) and every other name of an order, each accepted.
    for name in ("stable", "lexicographic", "trec-eval", "optimistic", "pessimistic", "realistic", "expected", "rounded-mean", "trec"):
        assert name in listed, (name, message)
    for name in listed:
        result = kgeval.rank.evaluate({"q1": ["t:a"]}, gold=gold, profile="bioml", ties=name)
        assert result["conventions"]["ties"] and result["submission"]["overall"]["mrr"] == 1.0, name


def test_bad_input_raises_clear_errors(testdata):
    gold = {"q1": "t:a"}
    with pytest.raises(kgeval.InvalidInput, match=r"submission: found an empty list, expected at least one query"):
        kgeval.rank.evaluate([], gold=gold, profile="bioml")
    with pytest.raises(kgeval.InvalidInput, match=r'submission\[0\]: found no "qid" key, expected one'):
        kgeval.rank.evaluate([{"ranking": ["t:a"]}], gold=gold, profile="bioml")
    with pytest.raises(kgeval.InvalidInput, match=r"submission\[0\]: found score 'high', expected a number"):
        kgeval.rank.evaluate({"q1": {"t:a": "high"}}, gold=gold, profile="bioml")
    with pytest.raises(kgeval.InvalidInput, match=r'submission:1: qid "q1": found score NaN for "t:a", expected a finite number'):
        kgeval.rank.evaluate({"q1": {"t:a": float("nan")}}, gold=gold, profile="bioml")
    with pytest.raises(kgeval.InvalidInput, match=r"gold: found an empty list, expected at least one gold answer"):
        kgeval.rank.evaluate({"q1": ["t:a"]}, gold={}, profile="bioml")
    with pytest.raises(kgeval.InvalidInput, match=r'profile: found "disso", expected diso, bioml'):
        kgeval.rank.evaluate({"q1": ["t:a"]}, gold=gold, profile="disso")
    with pytest.raises(kgeval.InvalidInput, match=r'ties: found "random", expected stable'):
        kgeval.rank.evaluate({"q1": ["t:a"]}, gold=gold, ties="random")
    with pytest.raises(kgeval.InvalidInput, match=r'the diso profile needs --pools'):
        kgeval.rank.evaluate({"q1": ["t:a"]}, gold=gold)
    with pytest.raises(kgeval.InvalidInput, match=r'pools:2: found qid "0" again \(first at 1\)'):
        pool = {"qid": 0, "source": "s:x", "candidates": ["t:a", NIL]}
        kgeval.rank.evaluate({"0": ["t:a", NIL]}, gold={"0": "t:a"}, pools=[pool, pool])
    with pytest.raises(kgeval.InvalidInput, match=r"expected at least one pair"):
        kgeval.rank.evaluate()
    # A validation error names the item by its position, as a file's line.
    twice = [{"qid": "q1", "ranking": ["t:a"]}, {"qid": "q1", "ranking": ["t:b"]}]
    with pytest.raises(kgeval.InvalidInput, match=r"^submission:2: duplicate qid q1 \(first at line 1\)$"):
        kgeval.rank.evaluate(twice, gold=gold, profile="bioml")


def test_rank_results_go_to_compare_with_their_score_tables(testdata):
    # Each result is a kgeval.Evaluation with the per-query score table as .table; two
    # systems' results compare directly. The second system reverses the first's order.
    import warnings as python_warnings

    pair = "uco-stix"
    kw = dict(pools=testdata / POOLS / pair / "pools.jsonl", gold=testdata / SYNTHETIC / pair / "gold.tsv")
    rows = [json.loads(line) for line in (testdata / SYNTHETIC / pair / "lexical.jsonl").read_text().splitlines()]
    reversed_scores = {row["qid"]: {iri: -score for iri, score in row["scores"].items()} for row in rows}
    with python_warnings.catch_warnings():
        python_warnings.simplefilter("ignore")
        lexical = kgeval.rank.evaluate(testdata / SYNTHETIC / pair / "lexical.jsonl", system="lexical", **kw)
        reverse = kgeval.rank.evaluate(reversed_scores, system="reverse", **kw)
    assert isinstance(lexical, kgeval.Evaluation)
    assert lexical.table.systems == ["lexical"]
    result = kgeval.compare([lexical, reverse], metrics=["mrr"])
    assert result["systems"] == ["lexical", "reverse"]
    means = result["metrics"][0]["means"]
    # The mean per-query reciprocal rank is the pair's MRR on the leaderboard.
    assert means["lexical"] == pytest.approx(lexical[pair]["overall"]["mrr"], abs=1e-12)
    assert means["reverse"] == pytest.approx(reverse[pair]["overall"]["mrr"], abs=1e-12)
    assert means["lexical"] > means["reverse"]
