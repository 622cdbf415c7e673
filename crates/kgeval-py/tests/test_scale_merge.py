"""Partitioned and sharded evaluation (issue 30 items 3 and 5): trec summary accumulators merged
from random partitions equal the one-machine evaluation; KGC rank accumulators fed by column or
row shards (in-process and by four worker processes) equal the dense path."""

import importlib.util
import math
import pickle
import random
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

import kgeval
import kgeval.kgc
import kgeval.trec

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "kgc_shards.py"
MEASURES = ["map", "gm_map", "P.5,10", "ndcg_cut.10", "recip_rank", "bpref", "num_q", "num_rel", "num_ret", "Rprec"]


def generated(seed):
    """Qrels and a run with ties, graded relevance, unjudged topics and topics without run lines."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(rng.randint(1, 40)):
        qid = f"q{t:02d}"
        if rng.random() < 0.85:
            qrels[qid] = {f"d{rng.randrange(30)}": rng.randint(-1, 3) for _ in range(rng.randint(1, 8))}
        if rng.random() < 0.85:
            run[qid] = {f"d{rng.randrange(30)}": rng.choice([0.25, 0.5, 0.75, rng.random()]) for _ in range(rng.randint(1, 20))}
    if not run:
        run["q00"] = {"d0": 1.0}
    return qrels, run


def partitions(run, parts, rng):
    out = [dict() for _ in range(parts)]
    for qid, docs in run.items():
        out[rng.randrange(parts)][qid] = docs
    return out


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("complete", [False, True])
def test_random_partitions_merge_to_the_one_machine_summary(seed, complete):
    rng = random.Random(1000 + seed)
    qrels, run = generated(seed)
    try:
        whole = kgeval.trec.evaluate(qrels, run, MEASURES, per_query=False, complete=complete)
    except kgeval.InvalidInput:
        pytest.skip("no topic in common")
    parts = [kgeval.trec.accumulate(qrels, p, MEASURES, complete=complete, keep_topics=False) for p in partitions(run, rng.randint(1, 16), rng)]
    assert all(part.complete == bool(complete) for part in parts)
    merged = []
    for _ in range(3):
        order = parts[:]
        rng.shuffle(order)
        merged.append(kgeval.trec.Accumulator.merge_all(order))
    assert len({m.to_bytes() for m in merged}) == 1
    assert merged[0] == merged[1]
    back = pickle.loads(pickle.dumps(merged[0]))
    summary = back.finalize(qrels)
    assert summary.keys() == whole.keys()
    for name, value in whole.items():
        assert math.isclose(summary[name], value, rel_tol=1e-12, abs_tol=1e-12), name
    # The default keeps every topic's values: the one-machine summary, byte for byte.
    kept = [kgeval.trec.accumulate(qrels, p, MEASURES, complete=complete) for p in partitions(run, 5, rng)]
    rng.shuffle(kept)
    ledger = pickle.loads(pickle.dumps(kgeval.trec.Accumulator.merge_all(kept)))
    assert ledger.finalize(qrels) == whole  # the one-machine sums, bit for bit
    lines = back.text(qrels).splitlines()
    assert [line.split("\t")[0].strip() for line in lines] == list(summary)
    for line in lines:
        name, _, printed = line.split("\t")[:3]
        assert printed == (f"{int(summary[name.strip()])}" if name.startswith("num_") else f"{summary[name.strip()]:6.4f}")


def test_per_query_rows_duplicates_and_bad_bytes():
    qrels, run = generated(3)
    rows, accumulator = kgeval.trec.accumulate(qrels, run, ["map", "P.5"], per_query=True)
    assert rows == kgeval.trec.evaluate(qrels, run, ["map", "P.5"])
    assert accumulator.topics == len(rows)
    with pytest.raises(kgeval.InvalidInput, match="topics are in two partitions"):
        accumulator.merge(kgeval.trec.accumulate(qrels, run, ["map", "P.5"]))
    with pytest.raises(kgeval.InvalidInput, match="accumulators differ"):
        accumulator.merge(kgeval.trec.accumulate(qrels, {}, ["map"]))
    with pytest.raises(kgeval.InvalidInput, match="expected the qrels"):
        kgeval.trec.accumulate(qrels, run, "map", complete=True).finalize()
    with pytest.raises(kgeval.InvalidInput, match="found no kgeval accumulator"):
        kgeval.trec.Accumulator.from_bytes(b"not an accumulator")
    with pytest.raises(kgeval.InvalidInput, match="truncated or malformed"):
        kgeval.trec.Accumulator.from_bytes(accumulator.to_bytes()[:-3])
    with pytest.raises(kgeval.InvalidInput, match="expected a trec summary accumulator"):
        kgeval.trec.Accumulator.from_bytes(kgeval.kgc.RankAccumulator().to_bytes())


def example():
    spec = importlib.util.spec_from_file_location("kgc_shards", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("shards", [1, 3, 4])
def test_column_and_row_shards_equal_the_dense_path_under_every_scope(shards):
    ex = example()
    data = ex.make_data(seed=shards)
    ids, scores, targets, masks, groups = ex.rows_of(data)
    n = len(data["test"])
    dense = ex.dense(data)
    columns = numpy.array_split(numpy.arange(scores.shape[1]), shards)
    by_scope = {}
    for scope, chosen in (("both", ids >= 0), ("head", ids < n), ("tail", ids >= n)):
        accumulators = []
        for part in columns:
            first, last = part[0], part[-1] + 1
            inside = (targets >= first) & (targets < last)
            accumulator = kgeval.kgc.RankAccumulator()
            # float32 blocks here: the scores are multiples of 0.25, exact in any precision.
            accumulator.add_scores(ids[chosen], scores[chosen, first:last].astype(numpy.float32),
                                   numpy.where(inside, targets - first, -1)[chosen],
                                   target_scores=scores[chosen][numpy.arange(chosen.sum()), targets[chosen]],
                                   filter_mask=masks[chosen, first:last],
                                   groups=groups[chosen] if scope == "both" else None)
            accumulators.append(accumulator)
        random.Random(shards).shuffle(accumulators)
        by_scope[scope] = kgeval.kgc.RankAccumulator.merge_all(accumulators).finalize()
    for rank_type in ("optimistic", "pessimistic", "realistic"):
        scopes = dense.kgeval[rank_type]["systems"][0]["scopes"]
        for scope, values in by_scope.items():
            expected = scopes[scope]
            assert set(values[rank_type]) <= set(expected) | set()
            for name, value in values[rank_type].items():
                assert math.isclose(value, expected[name], rel_tol=1e-12, abs_tol=1e-12), (rank_type, scope, name)
        assert "macro_mrr" in by_scope["both"][rank_type] and "map_cut_20" in by_scope["both"][rank_type]
    # Counts handed over directly (a model computing them on its device) give the same.
    counted = kgeval.kgc.RankAccumulator()
    greater = numpy.array([(s[~m & (numpy.arange(len(s)) != t)] > s[t]).sum() for s, m, t in zip(scores, masks, targets)])
    tied = numpy.array([(s[~m & (numpy.arange(len(s)) != t)] == s[t]).sum() for s, m, t in zip(scores, masks, targets)])
    compared = numpy.array([(~m).sum() - 1 for m in masks])
    counted.add_counts(ids, greater, tied, compared=compared, groups=groups)
    assert counted.finalize() == by_scope["both"]


def test_four_worker_processes_on_four_shards():
    for mode in ("columns", "rows"):
        done = subprocess.run([sys.executable, str(EXAMPLE), mode], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert "largest difference from the dense path" in done.stdout


class DLPackOnly:
    """An array offering only the DLPack protocol (as a torch tensor does)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_blocks_merge_and_bad_inputs():
    scores = numpy.array([[0.5, 0.9, 0.5], [0.1, 0.2, 0.3]], dtype=numpy.float64)
    a = kgeval.kgc.RankAccumulator()
    a.add_scores(DLPackOnly(numpy.array([0, 1])), DLPackOnly(scores), numpy.array([0, 2]))
    b = kgeval.kgc.RankAccumulator()
    b.add_counts([1, 0], [0, 1], [0, 1], compared=[2, 2])
    assert a == b
    assert a.finalize(k=1)["pessimistic"]["micro_mr"] == 2.0
    assert pickle.loads(pickle.dumps(a)) == a
    grouped = kgeval.kgc.RankAccumulator()
    grouped.add_counts([0], [0], [0], groups=[1])
    for call, message in [
        (lambda: a.add_scores([0], scores, [0]), "scores: found 2 rows, expected 1"),
        (lambda: a.add_scores([0, 1], scores.astype(int), [0, 0]), "scores: found dtype int64, expected float16"),
        (lambda: a.add_scores([0, 1], scores[0], [0, 0]), "scores: found shape (3,), expected a 2-D array"),
        (lambda: a.add_scores([0, 1], scores, [0, 3]), "targets[1]: found 3, expected a column of the block (0 to 2)"),
        (lambda: a.add_scores([0, 1], scores, [0, -1]), "targets[1]: found -1 without target_scores"),
        (lambda: a.add_scores([0, 1], scores, [0, 0], filter_mask=numpy.zeros((2, 2), bool)), "filter_mask: found shape (2, 2)"),
        (lambda: a.add_scores([0, 1], numpy.full((2, 3), numpy.nan), [0, 0]), "found NaN, expected a number"),
        (lambda: a.add_counts([0, 1], [0], [0, 0]), "greater: found 1 values, expected 2"),
        (lambda: a.add_counts([0, -1], [0, 0], [0, 0]), "question_ids[1]: found -1, expected an id"),
        (lambda: a.add_counts([0.5], [0], [0]), "question_ids: found dtype float64, expected an integer dtype"),
        (lambda: grouped.add_counts([0], [0], [0], groups=[7]), "answer 0: found group 7, expected group 1"),
        (lambda: kgeval.kgc.RankAccumulator().finalize(), "found no answer"),
        (lambda: kgeval.kgc.RankAccumulator.from_bytes(b"KGEVACC\x00\x02\x01\x00"), "truncated or malformed"),
    ]:
        with pytest.raises(kgeval.Error) as error:
            call()
        assert message in str(error.value)
        assert "\n" not in str(error.value)
    # A failed batch adds nothing.
    assert a == b


@pytest.mark.parametrize("measures, golden", [("official", "out.test"), ("all_trec", "out.test.a")])
def test_partition_files_merge_to_trec_eval_s_own_output(tmp_path, measures, golden):
    """results.test cut into one run file per topic, accumulated from the files and merged in
    reverse: trec_eval 10.0's out.test / out.test.a (NIST's conformance data) byte for byte."""
    data = Path(__file__).resolve().parents[3] / "testdata" / "trec_eval" / "test"
    topics = {}
    for line in (data / "results.test").read_text().splitlines(keepends=True):
        topics.setdefault(line.split()[0], []).append(line)
    paths = []
    for i, lines in enumerate(topics.values()):
        paths.append(tmp_path / f"part{i}.txt")
        paths[-1].write_text("".join(lines))
    assert len(paths) == 3
    for keep_topics in (False, True, None):
        accumulators = [kgeval.trec.accumulate(data / "qrels.test", path, measures, keep_topics=keep_topics)
                        for path in reversed(paths)]
        merged = kgeval.trec.Accumulator.merge_all(accumulators)
        assert merged.text(data / "qrels.test") == (data / golden).read_text()


def test_accumulate_reads_arrow_qrels_and_runs():
    pa = pytest.importorskip("pyarrow")
    qrels, run = generated(5)
    q_table = pa.table(
        {
            "qid": [q for q, docs in qrels.items() for _ in docs],
            "docno": [d for docs in qrels.values() for d in docs],
            "rel": [r for docs in qrels.values() for r in docs.values()],
        }
    )
    r_table = pa.table(
        {
            "query_id": [q for q, docs in run.items() for _ in docs],
            "doc_id": [d for docs in run.values() for d in docs],
            "score": [s for docs in run.values() for s in docs.values()],
        }
    )
    rows, arrow = kgeval.trec.accumulate(q_table, r_table, MEASURES, per_query=True, complete=True)
    want_rows, want = kgeval.trec.accumulate(qrels, run, MEASURES, per_query=True, complete=True)
    assert rows == want_rows
    assert arrow == want
    assert arrow.finalize(q_table) == want.finalize(qrels)


def _side_tables(pa, qrels, run):
    """``qrels`` and ``run`` (dicts) as Arrow tables, typed even when they hold no row."""
    q_table = pa.table(
        {
            "qid": pa.array([q for q, docs in qrels.items() for _ in docs], pa.string()),
            "docno": pa.array([d for docs in qrels.values() for d in docs], pa.string()),
            "rel": pa.array([r for docs in qrels.values() for r in docs.values()], pa.int64()),
        }
    )
    r_table = pa.table(
        {
            "qid": pa.array([q for q, docs in run.items() for _ in docs], pa.string()),
            "docno": pa.array([d for docs in run.values() for d in docs], pa.string()),
            "score": pa.array([s for docs in run.values() for s in docs.values()], pa.float64()),
        }
    )
    return q_table, r_table


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("arrow", [False, True])
def test_partitions_holding_one_side_alone_merge_to_the_one_machine_evaluation(complete, arrow):
    pa = pytest.importorskip("pyarrow")
    # b*: judged and retrieved; r*: retrieved only; j*: judged only.
    qrels = {f"b{i}": {f"d{d}": (d + i) % 4 - 1 for d in range(5)} for i in range(6)}
    qrels.update({f"j{i}": {f"d{d}": (d + i) % 3 for d in range(3)} for i in range(4)})
    run = {f"b{i}": {f"d{(2 * d + i) % 9}": ((7 * d + i) % 5) / 4 for d in range(8)} for i in range(6)}
    run.update({f"r{i}": {f"d{d}": float(d + i) for d in range(3)} for i in range(4)})
    # Each partition gets the run lines and the judgments of its topics: mixed, run only,
    # qrels only, neither, mixed with both kinds of one-sided topics.
    layout = [["b0", "b1", "b2", "r0"], ["r1", "r2"], ["j0", "j1"], [], ["b3", "b4", "b5", "j2", "j3", "r3"]]
    rows, merged = {}, None
    for topics in layout:
        part_qrels = {q: qrels[q] for q in topics if q in qrels}
        part_run = {q: run[q] for q in topics if q in run}
        if arrow:
            part_qrels, part_run = _side_tables(pa, part_qrels, part_run)
        part_rows, accumulator = kgeval.trec.accumulate(part_qrels, part_run, MEASURES, per_query=True, complete=complete)
        assert not rows.keys() & part_rows.keys()
        rows.update(part_rows)
        merged = accumulator if merged is None else merged.merge(accumulator)
    whole = kgeval.trec.evaluate(qrels, run, MEASURES, complete=complete)
    absent = merged.absent_topics(qrels)
    assert sorted(absent) == (["j0", "j1", "j2", "j3"] if complete else [])
    rows.update(absent)
    assert rows == whole
    assert merged.finalize(qrels) == kgeval.trec.evaluate(qrels, run, MEASURES, per_query=False, complete=complete)
    assert merged.text(qrels) == kgeval.trec.accumulate(qrels, run, MEASURES, complete=complete).text(qrels)


@pytest.mark.parametrize("complete", [False, True])
def test_partitions_with_no_judged_topic_finalise_as_one_machine(complete):
    pa = pytest.importorskip("pyarrow")
    qrels, run = {"j0": {"d0": 1, "d1": 0}}, {"r0": {"d0": 1.0}}
    q_table, r_table = _side_tables(pa, qrels, run)
    empty_q, empty_r = _side_tables(pa, {}, {})
    merged = kgeval.trec.accumulate(empty_q, r_table, ["map", "num_q"], complete=complete)
    merged.merge(kgeval.trec.accumulate(q_table, empty_r, ["map", "num_q"], complete=complete))
    if complete:
        assert merged.finalize(qrels) == kgeval.trec.evaluate(qrels, run, ["map", "num_q"], per_query=False, complete=True)
        assert merged.finalize(qrels) == {"map": 0.0, "num_q": 1.0}
    else:
        with pytest.raises(kgeval.InvalidInput, match="no topic in common"):
            kgeval.trec.evaluate(qrels, run, ["map"], complete=False)
        with pytest.raises(kgeval.InvalidInput, match="no topic in common"):
            merged.finalize(qrels)
    # An empty side still names its columns.
    with pytest.raises(kgeval.ParseError, match="qrels"):
        kgeval.trec.accumulate(pa.table({"qid": pa.array([], pa.string())}), r_table, ["map"])
