"""kgeval.trec's pytrec_eval module-level API (issue 27 item 6): supported_measures,
compute_aggregated_measure and judged_docs_only_flag, checked against pytrec_eval itself."""

import pytest
import pytrec_eval

import kgeval
import kgeval.trec

QRELS = {"q1": {"d1": 1, "d2": 0, "d5": 2}, "q2": {"d3": 2, "d6": 0}, "q3": {"d7": 1}}
RUN = {
    "q1": {"d1": 0.9, "d2": 1.3, "d9": 2.0, "d5": 0.1},
    "q2": {"d3": 0.4, "d4": 0.8, "d6": 0.5},
    "q3": {"d8": 3.0, "d7": 1.0},
}
MEASURES = {"map", "P_1", "P_5", "recip_rank", "ndcg", "ndcg_cut_10", "num_ret", "num_rel_ret", "bpref", "Rprec"}


def test_supported_measures_cover_pytrec_evals():
    assert isinstance(kgeval.trec.supported_measures, frozenset)
    # Every measure pytrec_eval supports, and trec_eval 10's newer ones (rbp, dcg, yaap …).
    assert set(pytrec_eval.supported_measures) <= kgeval.trec.supported_measures
    assert {"rbp", "dcg"} <= kgeval.trec.supported_measures - set(pytrec_eval.supported_measures)


@pytest.mark.parametrize("flag", [False, True])
def test_judged_docs_only_flag_agrees_with_pytrec_eval(flag):
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, MEASURES, judged_docs_only_flag=flag).evaluate(RUN)
    ours = kgeval.trec.RelevanceEvaluator(QRELS, MEASURES, judged_docs_only_flag=flag).evaluate(RUN)
    assert set(ours) == set(theirs)
    for qid in theirs:
        assert set(ours[qid]) == set(theirs[qid])
        for measure, value in theirs[qid].items():
            assert ours[qid][measure] == pytest.approx(value, abs=1e-12), (flag, qid, measure)


def test_the_flag_changes_the_values():
    plain = kgeval.trec.RelevanceEvaluator(QRELS, {"P_1"}).evaluate(RUN)
    judged = kgeval.trec.RelevanceEvaluator(QRELS, {"P_1"}, judged_docs_only_flag=True).evaluate(RUN)
    assert plain["q1"]["P_1"] == 0.0 and judged["q3"]["P_1"] == 1.0 and plain["q3"]["P_1"] == 0.0


@pytest.mark.parametrize(
    "measure, values",
    [("map", [0.5, 0.25, 1.0]), ("num_ret", [3.0, 4.0, 0.0]), ("gm_map", [-0.5, -2.0]), ("P_5", [0.2])],
)
def test_compute_aggregated_measure_agrees_with_pytrec_eval(measure, values):
    assert kgeval.trec.compute_aggregated_measure(measure, values) == pytest.approx(
        pytrec_eval.compute_aggregated_measure(measure, values), abs=1e-12
    )


def test_aggregating_per_query_values_gives_the_summary():
    per_query = kgeval.trec.RelevanceEvaluator(QRELS, {"map", "num_ret"}).evaluate(RUN)
    summary = kgeval.trec.evaluate(QRELS, RUN, ["map", "num_ret"], per_query=False)
    for measure in ("map", "num_ret"):
        values = [v[measure] for v in per_query.values()]
        assert kgeval.trec.compute_aggregated_measure(measure, values) == pytest.approx(summary[measure])


@pytest.mark.parametrize(
    "measure, values, message",
    [
        ("map", [], "values: found none"),
        ("map", [0.5, float("nan")], "values[1]: found NaN"),
        ("map", ["x"], "values: expected numbers"),
        (3, [0.5], "measure: found int"),
    ],
)
def test_bad_aggregation_arguments_are_kgeval_errors(measure, values, message):
    with pytest.raises(kgeval.Error) as caught:
        kgeval.trec.compute_aggregated_measure(measure, values)
    assert message in str(caught.value)
