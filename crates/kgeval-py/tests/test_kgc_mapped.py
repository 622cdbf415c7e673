"""kgeval.kgc.evaluate in memory, the PyKEEN way (issue 27 item 6): mapped triples, head and
tail score blocks, every rank type; each bad argument is a kgeval.Error naming it."""

import numpy
import pytest

import kgeval
import kgeval.kgc

TEST = numpy.array([[0, 0, 0], [1, 0, 2], [4, 0, 2]])
TAIL = numpy.array([[2, 2, 1, 3, 5], [1, 1, 3, 4, 0], [1, 1, 3, numpy.nan, 0]], dtype=numpy.float64)
HEAD = numpy.zeros((3, 5), dtype=numpy.float32)


def run(**overrides):
    args = dict(test=TEST, head_scores=HEAD, tail_scores=TAIL, num_entities=5, num_relations=1, nan="worst")
    args.update(overrides)
    return kgeval.kgc.evaluate(**args)


def test_pykeen_fixture_every_rank_type():
    flat = run().to_flat_dict()
    # PyKEEN's values: optimistic [3, 2, 1], pessimistic [4, 2, 1], realistic [3.5, 2, 1] of [5, 5, 4].
    assert flat["tail.optimistic.arithmetic_mean_rank"] == 2.0
    assert flat["tail.pessimistic.arithmetic_mean_rank"] == pytest.approx(7 / 3)
    assert flat["tail.realistic.arithmetic_mean_rank"] == pytest.approx(2.1666667)
    assert flat["tail.realistic.adjusted_arithmetic_mean_rank_index"] == pytest.approx(0.3636364)
    assert flat["tail.realistic.z_inverse_harmonic_mean_rank"] == pytest.approx(0.6989267)
    for k in (1, 3, 5, 10):
        for rank_type in ("optimistic", "pessimistic", "realistic"):
            assert f"both.{rank_type}.hits_at_{k}" in flat
    assert not any(key.startswith("both.optimistic.adjusted") for key in flat)


def test_labels_filters_dtypes_and_nested_dict():
    filters = [numpy.array([[0, 0, 1]], dtype=numpy.int32)]
    result = run(filters=filters, entity_labels=list("abcde"), relation_labels=["r"], num_entities=None,
                 num_relations=None, tail_scores=TAIL.astype(numpy.float32), k=[1, 10], name="TransE")
    assert result.name == "TransE"
    nested = result.to_dict()
    assert set(nested) == {"both", "head", "tail"}
    assert set(nested["both"]) == {"optimistic", "pessimistic", "realistic"}
    # (0, r, 1) is a known answer of (0, r, ?): the tie at score 2 is gone for the first triple.
    assert nested["tail"]["pessimistic"]["arithmetic_mean_rank"] == pytest.approx((3 + 2 + 1) / 3)
    assert "hits_at_5" not in nested["both"]["realistic"]
    assert result.kgeval["realistic"]["systems"][0]["system"] == "TransE"


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(nan=None), "tail_scores[2, 3]: found NaN, expected a number"),
        (dict(test=[[0, 0, 0]]), "test: found list, expected an integer numpy array of shape (n, 3)"),
        (dict(test=TEST.astype(float)), "test: found dtype float64, expected an integer dtype"),
        (dict(test=TEST[:, :2]), "test: found shape (3, 2), expected (n, 3)"),
        (dict(test=TEST.ravel()), "test: found shape (9,), expected (n, 3)"),
        (dict(test=numpy.array([[0, 0, 0], [1, 3, 2], [4, 0, 2]])), "test[1, 1]: found relation id 3, expected 0 to 0"),
        (dict(test=numpy.array([[0, 0, 0], [1, 0, 2], [-1, 0, 2]])), "test[2, 0]: found entity id -1, expected 0 to 4"),
        (dict(filters=[TEST, numpy.array([[9, 0, 0]])]), "filters[1][0, 0]: found entity id 9"),
        (dict(head_scores=None), "head_scores: found None"),
        (dict(head_scores=HEAD[:2]), "head_scores: found shape (2, 5), expected (3, 5)"),
        (dict(tail_scores=numpy.ones((3, 5), dtype=numpy.int64)), "tail_scores: found dtype int64"),
        (dict(tail_scores=TAIL[0]), "tail_scores: found a 1-D array"),
        (dict(num_entities=None), "num_entities: found None, expected a count"),
        (dict(num_entities=-1), "num_entities: found -1, expected a count"),
        (dict(entity_labels=list("abcda"), num_entities=None), 'entity_labels[4]: found "a" again (first at [0])'),
        (dict(entity_labels=list("abc")), "num_entities: found 5, expected 3"),
        (dict(k=[0]), "k[0]: found 0, expected positive cut-offs"),
        (dict(nan="ignore"), "nan: found \"ignore\", expected error or worst"),
        (dict(bogus=1), "found option 'bogus'"),
    ],
)
def test_every_bad_argument_is_a_kgeval_error(overrides, message):
    with pytest.raises(kgeval.Error) as caught:
        run(**overrides)
    assert message in str(caught.value), str(caught.value)


def test_a_score_matrix_beside_mapped_triples_is_refused():
    with pytest.raises(kgeval.Error, match="expected head_scores= and tail_scores="):
        kgeval.kgc.evaluate(TAIL, test=TEST, num_entities=5, num_relations=1)
    with pytest.raises(kgeval.Error, match="head_scores: expected test as an"):
        kgeval.kgc.evaluate(None, test="testdata/kgc/mini/test.txt", head_scores=HEAD)


def test_get_metric_defaults_and_errors():
    result = run()
    flat = result.to_flat_dict()
    assert result.get_metric("mrr") == flat["both.realistic.inverse_harmonic_mean_rank"]
    assert result.get_metric("pessimistic.hits@1") == flat["both.pessimistic.hits_at_1"]
    with pytest.raises(kgeval.Error, match="found 'sideways'"):
        result.get_metric("sideways.mrr")
    with pytest.raises(kgeval.Error, match="found 'nope'"):
        result.get_metric("nope")
