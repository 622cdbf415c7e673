"""kgeval.trec against pytrec_eval (in-process, 1e-12) and ranx (tie-free runs)."""

import math
import random

import pytest

import kgeval
import kgeval.trec

pytrec_eval = pytest.importorskip("pytrec_eval")
trec_agreement = pytest.importorskip("trec_agreement")

TOLERANCE = 1e-12


def generated_cases():
    """The CLI peer check's 250 cases, same seed, same generator."""
    rng = random.Random(20261121)
    for index in range(250):
        qrels, run = trec_agreement.make_case(rng, index)
        level = 2 if index % 5 == 4 else 1
        if set(qrels) & set(run):
            yield index, qrels, run, level


def test_pytrec_eval_agreement_on_the_250_generated_cases():
    compared = ties = cases = 0
    failures = []
    for index, qrels, run, level in generated_cases():
        cases += 1
        theirs = pytrec_eval.RelevanceEvaluator(qrels, set(trec_agreement.MEASURES), relevance_level=level).evaluate(run)
        ours = kgeval.trec.evaluate(qrels, run, trec_agreement.MEASURES, relevance_level=level)
        assert set(ours) == set(theirs), f"case {index}: topics"
        for qid, values in theirs.items():
            assert set(ours[qid]) == set(values), f"case {index} {qid}: measures"
            for measure, value in values.items():
                compared += 1
                if abs(ours[qid][measure] - value) > TOLERANCE:
                    failures.append((index, qid, measure, ours[qid][measure], value))
        for docs in run.values():
            scores = list(docs.values())
            ties += len(scores) != len(set(scores))
    assert failures == []
    # The generator still stresses what it should: many values, many tied topics.
    assert cases > 200 and compared > 5000 and ties > 100, (cases, compared, ties)


def test_relevance_evaluator_output_equals_pytrec_eval_key_for_key():
    import kgeval.trec as kg_pytrec_eval  # the drop-in spelling

    measures = {"map", "P_5", "ndcg_cut_10", "recip_rank", "recall.5,10", "num_ret", "bpref", "Rprec", "success_1"}
    for index, qrels, run, level in list(generated_cases())[:60]:
        theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)
        ours = kg_pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)
        assert list(sorted(ours)) == list(sorted(theirs)), index
        for qid in theirs:
            assert sorted(ours[qid]) == sorted(theirs[qid]), (index, qid)
            for measure, value in theirs[qid].items():
                assert type(ours[qid][measure]) is type(value) is float
                assert ours[qid][measure] == pytest.approx(value, abs=TOLERANCE), (index, qid, measure)


def test_relevance_evaluator_pytrec_conventions():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {}, "q3": {"d9": 1}}
    evaluator = kgeval.trec.RelevanceEvaluator(qrels, {"P.1,2", "recip_rank"})
    # q2's empty judgments are dropped, q3 has no run line: only q1 is evaluated.
    out = evaluator.evaluate({"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d1": 1.0}})
    assert out == {"q1": {"P_1": 0.0, "P_2": 0.5, "recip_rank": 0.5}}
    assert evaluator.evaluate({}) == {}
    assert evaluator.evaluate({"zz": {"d1": 1.0}}) == {}
    with pytest.raises(ValueError, match="bogus"):
        kgeval.trec.RelevanceEvaluator(qrels, {"bogus"})


def test_summary_and_tie_break_and_paths(tmp_path):
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    # a and z tie: trec_eval breaks ties by docno descending (z first).
    run = {"q1": {"z": 1.0, "a": 1.0, "b": 0.5}, "q2": {"c": 3.0, "d": 4.0}}
    summary = kgeval.trec.evaluate(qrels, run, ["recip_rank", "num_q", "num_rel_ret"], per_query=False)
    assert summary == {"recip_rank": (0.5 + 0.5) / 2, "num_q": 2.0, "num_rel_ret": 3.0}
    asc = kgeval.trec.evaluate(qrels, run, "recip_rank", tie_break="docno-asc")
    assert asc["q1"]["recip_rank"] == 1.0
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 1\nq2 0 c 1\n")
    (tmp_path / "run").write_text("q1 Q0 z 1 1.0 t\nq1 Q0 a 2 1.0 t\nq1 Q0 b 3 0.5 t\nq2 Q0 c 1 3.0 t\nq2 Q0 d 2 4.0 t\n")
    from_files = kgeval.trec.evaluate(tmp_path / "qrels", str(tmp_path / "run"), "recip_rank")
    assert from_files == kgeval.trec.evaluate(qrels, run, "recip_rank")
    # Qrels from a file, run in memory.
    assert kgeval.trec.evaluate(tmp_path / "qrels", run, "recip_rank") == from_files
    # -c: every qrels topic, q3 scoring 0.
    qrels["q3"] = {"x": 1}
    complete = kgeval.trec.evaluate(qrels, run, "recip_rank", complete=True)
    assert complete["q3"] == {"recip_rank": 0.0}


def test_measure_names_of_every_idiom():
    assert kgeval.trec.measure_names(["P.5,10", "ndcg@10", "mrr@10", "P_3", "nDCG@5", "AP"]) == kgeval.trec.measure_names(
        ["P.5,10", "ndcg@10", "mrr@10", "P_3", "nDCG@5", "AP"]
    )
    names = kgeval.trec.measure_names(["P.5,10", "ndcg_cut_10", "map"])
    assert names == ["map", "P_5", "P_10", "ndcg_cut_10"]


def test_data_frames_with_ranx_and_ir_measures_columns():
    pd = pytest.importorskip("pandas")
    qrels = {"q1": {"a": 1, "b": 2}, "q2": {"c": 1}}
    run = {"q1": {"a": 0.3, "b": 0.9, "x": 0.5}, "q2": {"c": 0.1, "d": 0.7}}
    expected = kgeval.trec.evaluate(qrels, run, ["map", "ndcg_cut_10"])
    ranx_qrels = pd.DataFrame([(q, d, r) for q, docs in qrels.items() for d, r in docs.items()], columns=["q_id", "doc_id", "score"])
    ranx_run = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()], columns=["q_id", "doc_id", "score"])
    irm_qrels = ranx_qrels.rename(columns={"q_id": "query_id", "score": "relevance"})
    irm_run = ranx_run.rename(columns={"q_id": "query_id"})
    assert kgeval.trec.evaluate(ranx_qrels, ranx_run, ["map", "ndcg_cut_10"]) == expected
    assert kgeval.trec.evaluate(irm_qrels, irm_run, ["map", "ndcg_cut_10"]) == expected
    with pytest.raises(kgeval.InvalidInput, match="expected a document id column"):
        kgeval.trec.evaluate(ranx_qrels.rename(columns={"doc_id": "document"}), ranx_run, "map")


def test_ranx_means_on_tie_free_runs():
    ranx = pytest.importorskip("ranx")
    rng = random.Random(7)
    qrels, run = {}, {}
    for q in range(30):
        docs = [f"d{i}" for i in range(40)]
        qrels[f"q{q}"] = {d: rng.choice([1, 1, 2, 3]) for d in rng.sample(docs, 6)}
        scores = rng.sample(range(1, 10_000), 25)  # distinct: no ties
        run[f"q{q}"] = {d: s / 100 for d, s in zip(rng.sample(docs, 25), scores)}
    pairs = {"map": "map", "precision@5": "P_5", "recall@10": "recall_10", "mrr": "recip_rank", "ndcg@10": "ndcg_cut_10"}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(pairs))
    ours = kgeval.trec.evaluate(qrels, run, list(pairs), per_query=False)
    for ranx_name, trec_name in pairs.items():
        # ranx's ndcg uses the relevance as gain, as trec_eval's does.
        assert ours[trec_name] == pytest.approx(theirs[ranx_name], abs=1e-9), ranx_name


def test_relevance_evaluator_keeps_the_qrels_it_was_given():
    # pytrec_eval converts the qrels once, in the constructor: changing the dict afterwards
    # changes nothing. kgeval holds them natively, converted once, likewise.
    qrels = {"q1": {"d1": 1, "d2": 0}}
    run = {"q1": {"d2": 2.0, "d1": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    ours = kgeval.trec.RelevanceEvaluator(qrels, {"recip_rank"})
    qrels["q1"]["d2"] = 1
    assert theirs.evaluate(run) == ours.evaluate(run) == {"q1": {"recip_rank": 0.5}}
    # ... and evaluates any number of runs against them.
    assert ours.evaluate({"q1": {"d1": 3.0}}) == {"q1": {"recip_rank": 1.0}}


def test_ids_beyond_ascii_and_int_ids():
    # Non-ASCII ids are taken as their UTF-8 text; int ids as their decimal text.
    qrels = {"q1": {"dé": 1, "文档": 1, "7": 1}}
    run = {"q1": {"文档": 3.0, "x": 2.0, "dé": 1.0, 7: 0.5}}
    # Ranked 文档 (rel), x, dé (rel), 7 (rel): AP = (1/1 + 2/3 + 3/4) / 3.
    out = kgeval.trec.evaluate(qrels, run, ["map", "num_rel_ret"])
    assert out["q1"]["map"] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, abs=1e-15)
    assert out["q1"]["num_rel_ret"] == 3.0
    assert out == kgeval.trec.evaluate(qrels, (["q1"] * 4, ["文档", "x", "dé", "7"], [3.0, 2.0, 1.0, 0.5]), ["map", "num_rel_ret"])


def test_an_id_that_is_not_unicode_text_is_invalid_input():
    # A lone surrogate has no UTF-8 form: a kgeval error naming the place, not a
    # UnicodeEncodeError from deep inside.
    with pytest.raises(kgeval.InvalidInput, match=r"run\[\"q1\"\]: found id '\\udc80', expected text encodable as UTF-8"):
        kgeval.trec.evaluate({"q1": {"d1": 1}}, {"q1": {"\udc80": 1.0}}, "map")
    with pytest.raises(kgeval.InvalidInput, match=r"qrels row 0: found id '\\udc80'"):
        kgeval.trec.evaluate((["\udc80"], ["d1"], [1]), {"q1": {"d1": 1.0}}, "map")


def test_columns_with_a_topic_in_two_stretches():
    # Rows of one topic need not be adjacent; documents keep their order within the topic.
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}}
    columns = (["q1", "q2", "q1", "q2"], ["z", "c", "a", "d"], [1.0, 3.0, 1.0, 4.0])
    as_dict = {"q1": {"z": 1.0, "a": 1.0}, "q2": {"c": 3.0, "d": 4.0}}
    for tie_break in ("docno-desc", "input"):
        ours = kgeval.trec.evaluate(qrels, columns, ["recip_rank", "num_ret"], tie_break=tie_break)
        assert ours == kgeval.trec.evaluate(qrels, as_dict, ["recip_rank", "num_ret"], tie_break=tie_break)
    # docno-desc puts z before a; input order keeps z first as well; q2 ranks d (4.0) first.
    assert ours == {"q1": {"recip_rank": 0.5, "num_ret": 2.0}, "q2": {"recip_rank": 0.5, "num_ret": 2.0}}
    with pytest.raises(kgeval.InvalidInput, match="topic q1: document a is retrieved twice"):
        kgeval.trec.evaluate(qrels, (["q1", "q2", "q1"], ["a", "c", "a"], [1.0, 1.0, 2.0]), "map")


def test_dicts_evaluated_while_walked_equal_the_general_conversion():
    # A dict of str ids and numeric scores is evaluated batch by batch while it is walked
    # (src/trec_stream.rs); columns take the general conversion. Same values key for key,
    # over several batches (> 32,768 entries), with ties, int and numpy scores, a
    # defaultdict, an empty topic and topics without qrels.
    import collections

    numpy = pytest.importorskip("numpy")
    rng = random.Random(20261125)
    qrels = {f"q{t}": {f"d{rng.randrange(2000)}": rng.choice([-1, 0, 1, 2]) for _ in range(40)} for t in range(0, 240, 2)}
    run = collections.defaultdict(dict)
    for t in range(200):
        for _ in range(rng.randrange(1, 1200)):
            kind = rng.randrange(10)
            score = rng.randrange(20) / 4
            run[f"q{t}"][f"d{rng.randrange(2000)}"] = int(score) if kind == 0 else numpy.float64(score) if kind == 1 else score
    run["q7"] = {}
    entries = sum(len(docs) for docs in run.values())
    assert entries > 2 * 32_768
    columns = (
        [q for q, docs in run.items() for _ in docs],
        [d for docs in run.values() for d in docs],
        [float(s) for docs in run.values() for s in docs.values()],
    )
    for measures, options in (("all_trec", {}), (["map", "P_10", "ndcg_cut_10"], {"tie_break": "input", "relevance_level": 2, "complete": True})):
        ours = kgeval.trec.evaluate(qrels, run, measures, **options)
        assert len(ours) == (100 if not options else 120)
        assert ours == kgeval.trec.evaluate(qrels, columns, measures, **options)
    evaluator = kgeval.trec.RelevanceEvaluator(qrels, {"map", "ndcg"})
    assert evaluator.evaluate(run) == evaluator.evaluate(dict(run))
    ours = evaluator.evaluate(run)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate({q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()})
    assert set(ours) == set(theirs)
    for qid in theirs:
        for measure, value in theirs[qid].items():
            assert ours[qid][measure] == pytest.approx(value, abs=TOLERANCE)
    # An int docid in the last topic leaves the fast path after batches were sent: the
    # general conversion gives the same values (7 as "7").
    run["q199"][7] = 1.0
    with_int = kgeval.trec.evaluate(qrels, run, "map")
    assert with_int == kgeval.trec.evaluate(qrels, (columns[0] + ["q199"], columns[1] + ["7"], columns[2] + [1.0]), "map")


def test_problems_found_while_walking_name_the_first_topic():
    # Two topics with a score that is not finite, in different batches: the earlier one (in
    # the dict's order) is reported, as the general conversion does.
    qrels = {"q0": {"d0": 1}}
    run = {f"q{t}": {f"d{i}": float(i) for i in range(400)} for t in range(200)}
    run["q150"]["d3"] = float("nan")
    run["q20"]["d5"] = float("inf")
    message = r"run run: topic q20: document d5 has score inf, expected a finite score"
    with pytest.raises(kgeval.InvalidInput, match=message):
        kgeval.trec.evaluate(qrels, run, "map")
    with pytest.raises(kgeval.InvalidInput, match=message):
        kgeval.trec.RelevanceEvaluator(qrels, {"map"}).evaluate(run)


def test_a_str_subclass_can_repeat_a_docno_and_is_still_checked():
    # Keys of one dict are distinct by equality; a str subclass may redefine equality, so
    # two keys can carry one text: such a topic is checked for repeated docnos.
    class Distinct(str):
        __hash__ = object.__hash__

        def __eq__(self, other):
            return self is other

    run = {"q1": {Distinct("d1"): 1.0, "d1": 2.0}}
    assert len(run["q1"]) == 2
    with pytest.raises(kgeval.InvalidInput, match="run run: topic q1: document d1 is retrieved twice"):
        kgeval.trec.RelevanceEvaluator({"q1": {"d1": 1}}, {"map"}).evaluate(run)


def test_ties_policies_by_hand_and_equal_to_the_command_line(testdata, kgeval_cli):
    # The spec's example: d1 (relevant), d2, d3 all at 0.5. trec_eval ranks d3, d2, d1.
    qrels = {"q1": {"d1": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.5}}
    measures = ["recip_rank", "P.1"]
    expected_rr = (1 + 1 / 2 + 1 / 3) / 3
    for ties, (rr, p1) in {
        None: (1 / 3, 0.0),
        "trec": (1 / 3, 0.0),
        "expected": (expected_rr, 1 / 3),
        "range": (expected_rr, 1 / 3),
        "optimistic": (1.0, 1.0),
        "pessimistic": (1 / 3, 0.0),
    }.items():
        got = kgeval.trec.evaluate(qrels, run, measures, ties=ties)["q1"]
        assert got["recip_rank"] == pytest.approx(rr, abs=1e-15), ties
        assert got["P_1"] == pytest.approx(p1, abs=1e-15), ties
        evaluator = kgeval.trec.RelevanceEvaluator(qrels, {"recip_rank", "P.1"}, ties=ties)
        assert evaluator.evaluate(run)["q1"]["recip_rank"] == pytest.approx(rr, abs=1e-15), ties
    with pytest.raises(kgeval.InvalidInput, match="ties"):
        kgeval.trec.evaluate(qrels, run, measures, ties="realistic")
    # A tie-heavy run from files: the command line's summary, value for value.
    qrels_path, run_path = testdata / "trec_eval/ties200/qrels", testdata / "trec_eval/ties200/run"
    ours = kgeval.trec.evaluate(str(qrels_path), str(run_path), ["map", "ndcg_cut.10", "bpref"], ties="expected", per_query=False)
    cli = kgeval_cli("trec", "--ties", "expected", "-m", "map", "-m", "ndcg_cut.10", "-m", "bpref", "--format", "json", qrels_path, run_path)
    for name in ("map", "ndcg_cut_10", "bpref"):
        assert ours[name] == cli["runs"][0]["summary"][name], name
