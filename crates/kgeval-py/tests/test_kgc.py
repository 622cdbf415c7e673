"""kgeval.kgc: numpy score matrices (borrowed, no copy) equal `kgeval kgc` on the bundled
`.npy` files, PyKEEN's fixture values, batch by batch == one shot, bad input."""

import json
import os
import re
import subprocess
import threading
import time
import tracemalloc

import pytest

import kgeval
import kgeval.kgc
from conftest import kgeval_binary

numpy = pytest.importorskip("numpy")

MINI_FILES = ("test.txt", "train.txt", "entities.txt", "questions.txt")
TIES = ("realistic", "optimistic", "pessimistic", "rounded-mean")


@pytest.fixture
def mini(testdata):
    folder = testdata / "kgc" / "mini"
    return dict(
        test=folder / "test.txt",
        filters=[folder / "train.txt"],
        entities=folder / "entities.txt",
        questions=folder / "questions.txt",
        nan="worst",
        name="TransE",
    )


def same_but_input(ours, theirs):
    """kgeval's documents equal but the conventions' `input` line (an array has no file)."""
    ours, theirs = json.loads(json.dumps(ours)), json.loads(json.dumps(theirs))
    assert ours["systems"][0]["conventions"].pop("input").startswith("scores (in memory) (rows: ")
    assert theirs["systems"][0]["conventions"].pop("input").startswith("scores ")
    assert ours == theirs


@pytest.mark.parametrize("file", ["scores.npy", "scores-float64.npy"])
@pytest.mark.parametrize("ties", TIES)
def test_arrays_equal_the_npy_files(mini, testdata, file, ties):
    path = testdata / "kgc" / "mini" / file
    matrix = numpy.load(path)
    assert matrix.dtype == (numpy.float64 if "float64" in file else numpy.float32)
    from_file = kgeval.kgc.evaluate(path, ties=ties, **mini)
    for variant in (matrix, numpy.asfortranarray(matrix), matrix.astype(matrix.dtype.newbyteorder(">"))):
        same_but_input(kgeval.kgc.evaluate(variant, ties=ties, **mini).kgeval, from_file.kgeval)
    # float16 holds these small integers exactly: the same ranks.
    same_but_input(kgeval.kgc.evaluate(matrix.astype(numpy.float16), ties=ties, **mini).kgeval, from_file.kgeval)


def test_the_path_form_and_arrays_equal_the_cli(testdata, monkeypatch):
    binary = kgeval_binary()
    if binary is None:
        pytest.skip("no kgeval binary (KGEVAL_BIN, target/release or target/debug)")
    monkeypatch.chdir(testdata.parent)
    folder = "testdata/kgc/mini"
    args = ["kgc", "--test", f"{folder}/test.txt", "--filter", f"{folder}/train.txt", "--entities", f"{folder}/entities.txt"]
    args += ["--questions", f"{folder}/questions.txt", "--scores", f"TransE={folder}/scores.npy", "--nan", "worst"]
    args += ["--ties", "pessimistic", "--k", "1,10", "--format", "json"]
    cli = json.loads(subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout)
    options = dict(
        test=f"{folder}/test.txt",
        filters=f"{folder}/train.txt",
        entities=f"{folder}/entities.txt",
        questions=f"{folder}/questions.txt",
        nan="worst",
        ties="pessimistic",
        k=[1, 10],
        name="TransE",
    )
    assert kgeval.kgc.evaluate(f"{folder}/scores.npy", **options).kgeval == cli
    matrix = numpy.load(f"{folder}/scores.npy")
    same_but_input(kgeval.kgc.evaluate(matrix, **options).kgeval, cli)


def test_pykeen_fixture_values_under_pykeen_names(mini, testdata):
    """PyKEEN's rank fixture (tests/test_evaluators.py; testdata/kgc/npy/SOURCES.md): the tail
    rows; PyKEEN 1.11.1's RankBasedEvaluator gives these values (it computes in float32, so
    they agree to 5e-7; kgeval's exact fractions to 1e-15)."""
    matrix = numpy.load(testdata / "kgc" / "mini" / "scores.npy")
    realistic = kgeval.kgc.evaluate(matrix, **mini)
    flat = realistic.to_flat_dict()
    expected = {
        "arithmetic_mean_rank": 13 / 6,  # ranks 3.5, 2, 1
        "inverse_harmonic_mean_rank": (1 / 3.5 + 1 / 2 + 1) / 3,
        "hits_at_1": 1 / 3,
        "hits_at_3": 2 / 3,
        "hits_at_10": 1.0,
        "adjusted_arithmetic_mean_rank": 0.7647059104021857,
        "adjusted_arithmetic_mean_rank_index": 0.363636320287531,
        "z_arithmetic_mean_rank": 0.872871456889571,
        "adjusted_inverse_harmonic_mean_rank": 0.22451150740886894,
        "z_inverse_harmonic_mean_rank": 0.6989266942073429,
        "adjusted_hits_at_k": 0.0,
        "z_hits_at_k": 0.0,
    }
    for metric, value in expected.items():
        assert flat[f"tail.realistic.{metric}"] == pytest.approx(value, abs=5e-7), metric
    assert flat["tail.realistic.arithmetic_mean_rank"] == pytest.approx(13 / 6, abs=1e-15)
    assert flat["tail.realistic.inverse_harmonic_mean_rank"] == pytest.approx(25 / 42, abs=1e-15)
    assert realistic.to_dict()["tail"]["realistic"]["hits_at_1"] == flat["tail.realistic.hits_at_1"]
    assert realistic.get_metric("tail.hits@1") == pytest.approx(1 / 3, abs=1e-15)
    assert realistic.get_metric("head.realistic.mrr") == 1.0  # every head answer first
    assert realistic.get_metric("mrr") == flat["both.realistic.inverse_harmonic_mean_rank"]
    assert realistic.scope("tail")["micro_expected_mr"] == pytest.approx(2.8333333, abs=1e-7)
    # Optimistic [3, 2, 1] and pessimistic [4, 2, 1].
    optimistic = kgeval.kgc.evaluate(matrix, ties="optimistic", **mini).to_flat_dict()
    pessimistic = kgeval.kgc.evaluate(matrix, ties="pessimistic", **mini).to_flat_dict()
    assert optimistic["tail.optimistic.arithmetic_mean_rank"] == pytest.approx(2.0, abs=1e-15)
    assert pessimistic["tail.pessimistic.arithmetic_mean_rank"] == pytest.approx(7 / 3, abs=1e-15)
    assert pessimistic["tail.pessimistic.inverse_harmonic_mean_rank"] == pytest.approx((1 / 4 + 1 / 2 + 1) / 3, abs=1e-15)
    with pytest.raises(kgeval.InvalidInput, match="rank type 'optimistic'"):
        realistic.get_metric("tail.optimistic.mrr")


def test_batches_in_any_order_equal_one_shot(mini, testdata):
    matrix = numpy.load(testdata / "kgc" / "mini" / "scores.npy")
    one_shot = kgeval.kgc.evaluate(matrix, **mini)
    evaluator = kgeval.kgc.Evaluator(**mini)
    assert (evaluator.rows, evaluator.columns, evaluator.given_rows) == (6, 6, 0)
    for first, last in [(3, 6), (0, 2), (2, 3)]:
        evaluator.add_batch(first, matrix[first:last])
    assert evaluator.given_rows == 6
    assert evaluator.finalize().kgeval == one_shot.kgeval
    # Blocks that cannot be borrowed are copied whole (a strided view, another byte order).
    evaluator = kgeval.kgc.Evaluator(**mini)
    evaluator.add_batch(0, numpy.asfortranarray(matrix[:4]))
    evaluator.add_batch(4, matrix[4:].astype(">f4"))
    assert evaluator.finalize().kgeval == one_shot.kgeval
    with pytest.raises(kgeval.InvalidInput, match="finalized"):
        evaluator.finalize()


def synthetic_case(folder, questions, entities):
    """`questions` / 2 test triples (e_i, r0, e_{n+i}): a tail and a head question each."""
    half = questions // 2
    (folder / "entities.txt").write_text("".join(f"e{i}\n" for i in range(entities)))
    (folder / "test.txt").write_text("".join(f"e{i}\tr0\te{half + i}\n" for i in range(half)))
    lines = [f"tail{i}\te{i}\tr0\n" for i in range(half)] + [f"head{i}\te{half + i}\tr0\n" for i in range(half)]
    (folder / "questions.txt").write_text("".join(lines))
    return dict(test=folder / "test.txt", entities=folder / "entities.txt", questions=folder / "questions.txt")


def rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_large_float32_matrix_is_not_copied(tmp_path):
    """2,000 × 20,000 float32 (160 MB): neither Python allocations (tracemalloc) nor the
    process's resident memory (sampled while the GIL is released) grow by a fraction of it."""
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc")
    options = synthetic_case(tmp_path, 2000, 20000)
    matrix = numpy.random.default_rng(7).random((2000, 20000), dtype=numpy.float32)
    size = matrix.nbytes
    baseline = rss_bytes()
    peak = [baseline]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_bytes())
            time.sleep(0.002)

    sampler = threading.Thread(target=sample)
    tracemalloc.start()
    sampler.start()
    try:
        result = kgeval.kgc.evaluate(matrix, **options)
        evaluator = kgeval.kgc.Evaluator(**options)
        for first in range(0, 2000, 500):
            evaluator.add_batch(first, matrix[first : first + 500])
        batched = evaluator.finalize()
    finally:
        done.set()
        sampler.join()
        _, traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert traced < size / 20, f"Python allocated {traced} bytes for a {size}-byte matrix"
    assert peak[0] - baseline < size / 4, f"RSS grew {peak[0] - baseline} bytes for a {size}-byte matrix"
    assert batched.kgeval == result.kgeval
    # Uniform random scores: the answer's rank is about uniform over 20,000 candidates.
    assert 5000 < result.get_metric("mr") < 15000


def test_bad_input_raises_invalid_input_with_one_clear_line(mini, testdata):
    matrix = numpy.load(testdata / "kgc" / "mini" / "scores.npy")
    strict = dict(mini, nan="error")
    integers = numpy.nan_to_num(matrix).astype(numpy.int64)
    cases = [
        (matrix[0], strict, "scores: found a 1-D array of shape [6], expected a 2-D array (one row per question"),
        (matrix[None], strict, "scores: found a 3-D array of shape [1, 6, 6], expected a 2-D array"),
        (integers, strict, "scores: found dtype <i8 (int64), expected float64, float32 or float16"),
        (matrix.astype(numpy.complex128), strict, "found dtype <c16 (complex128), expected float64, float32 or float16"),
        (matrix.astype(object), strict, "found dtype |O (object), expected float64, float32 or float16"),
        (matrix, strict, "(in memory):4:6: found a NaN score (question tail0, entity column 6), expected a number"),
        (matrix[:, :5].copy(), mini, "found shape (6, 5), expected (6, 6): one row per question, one column per entity"),
        # A strided view is ranked by copied blocks: the width is checked block by block.
        (matrix[:, :5], mini, "(in memory): found rows of 5 columns, expected 6: one column per entity"),
        (matrix[:5], mini, "found shape (5, 6), expected (6, 6)"),
    ]
    for scores, options, message in cases:
        with pytest.raises(kgeval.InvalidInput, match=re.escape(message)):
            kgeval.kgc.evaluate(scores, **options)
    with pytest.raises(kgeval.ReadError, match="not a matrix"):
        kgeval.kgc.evaluate("not a matrix", **mini)
    with pytest.raises(kgeval.InvalidInput, match='ties: found "mean", expected optimistic'):
        kgeval.kgc.evaluate(matrix, **dict(mini, ties="mean"))
    with pytest.raises(kgeval.InvalidInput, match="test: found None"):
        kgeval.kgc.evaluate(matrix)

    evaluator = kgeval.kgc.Evaluator(**strict)
    with pytest.raises(kgeval.InvalidInput, match="found rows of 5 columns, expected 6: one column per entity"):
        evaluator.add_batch(0, matrix[:2, :5])
    with pytest.raises(kgeval.InvalidInput, match=r"found 2 rows from row 6, expected rows 1 to 6"):
        evaluator.add_batch(5, matrix[:2])
    with pytest.raises(kgeval.InvalidInput, match="first_row: found -1"):
        evaluator.add_batch(-1, matrix[:2])
    evaluator.add_batch(0, matrix[:3])
    with pytest.raises(kgeval.InvalidInput, match=r":4:6: found a NaN score \(question tail0"):
        evaluator.add_batch(3, matrix[3:])
    with pytest.raises(kgeval.InvalidInput, match=r":2: found row 2 \(question head1\) again, expected each row once"):
        evaluator.add_batch(1, matrix[1:2])
    assert evaluator.given_rows == 3
    with pytest.raises(kgeval.InvalidInput, match=r"found no scores for 3 of 6 rows \(the first: row 4, question tail0\)"):
        evaluator.finalize()


def test_buffers_and_lists_are_taken(mini, testdata):
    matrix = numpy.load(testdata / "kgc" / "mini" / "scores.npy")
    expected = kgeval.kgc.evaluate(matrix, **mini).kgeval
    assert kgeval.kgc.evaluate(memoryview(matrix), **mini).kgeval == expected
    assert kgeval.kgc.evaluate(matrix.tolist(), **mini).kgeval["systems"][0]["scopes"] == expected["systems"][0]["scopes"]
    with pytest.raises(kgeval.InvalidInput, match="1-D array"):
        kgeval.kgc.evaluate(memoryview(matrix.ravel()), **mini)
