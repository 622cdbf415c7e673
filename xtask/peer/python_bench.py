#!/usr/bin/env python3
"""In-process TREC benchmark of `kgeval.trec` against pytrec_eval and ranx on runs held as
dicts (issue 16): Q topics x D documents per topic (default 10,000 x 1,000), seeded, no score
ties, 20 graded judgments per topic.

Usage: python_bench.py [--topics Q] [--docs D] [--seed S] [--runs R] [--no-ranx] [--arrow]

Times (best of R, wall, CPU: process CPU seconds, every thread, and the main thread's CPU
seconds: the part that holds the GIL) for map, P_10,
ndcg_cut_10, recip_rank:
- the pytrec_eval interface, per-query dicts out: `RelevanceEvaluator(qrels, measures)`
  then `.evaluate(run)`, for pytrec_eval and for `kgeval.trec` (its drop-in);
- `kgeval.trec.evaluate(qrels, run, per_query=False)`, the means only;
- ranx: `Qrels(qrels)`, `Run(run)` (its conversion from dicts), then `evaluate` (numba
  compiled beforehand on a small case).
- with ``--arrow``: the same run as a pyarrow table (``qid, docno, score``, grouped by qid),
  ``kgeval.trec.evaluate(qrels, table, per_query=False)`` (issue 30), timed in turns with the
  dicts' call (best of max(R, 5) each) for the ratio of the two.
Checks that all agree on the means (1e-9) and prints kgeval's speed-up over pytrec_eval.
Build kgeval first (xtask/python.sh).
"""

import random
import sys
import time

import kgeval.trec
import pytrec_eval

MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank"]
RANX = {"map": "map", "P_10": "precision@10", "ndcg_cut_10": "ndcg@10", "recip_rank": "mrr"}


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def timed(label, fn, runs):
    """Best of `runs` by wall time; prints wall, CPU (every thread) and the calling thread's
    CPU (the part that holds the GIL) and returns (wall, cpu, out)."""
    best = None
    for _ in range(runs):
        wall, cpu, main = time.perf_counter(), time.process_time(), time.thread_time()
        out = fn()
        wall, cpu, main = time.perf_counter() - wall, time.process_time() - cpu, time.thread_time() - main
        if best is None or wall < best[0]:
            best = (wall, cpu, out, main)
        del out
    print(f"{label:>44}: {best[0]:8.3f} s wall {best[1]:8.3f} s CPU {best[3]:8.3f} s main-thread CPU", flush=True)
    return best[:3]


def means(per_query):
    return {m: sum(v[m] for v in per_query.values()) / len(per_query) for m in MEASURES}


def workload(topics, docs, seed):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(topics):
        q = f"q{t}"
        qrels[q] = {f"d{rng.randrange(docs * 2)}": rng.choice([0, 1, 1, 2]) for _ in range(20)}
        scores = rng.sample(range(docs * 50), docs)
        run[q] = {f"d{i}": s / 7.0 for i, s in enumerate(scores)}
    return qrels, run


def main():
    topics, docs, seed = arg("--topics", 10_000), arg("--docs", 1_000), arg("--seed", 20261124)
    runs = arg("--runs", 3)
    qrels, run = workload(topics, docs, seed)
    print(f"{topics} topics x {docs} documents ({topics * docs} run entries), best of {runs}", flush=True)
    measures = set(MEASURES)

    theirs_wall, theirs_cpu, theirs = timed(
        "pytrec_eval RelevanceEvaluator + evaluate", lambda: pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run), runs
    )
    ours_wall, ours_cpu, ours = timed(
        "kgeval.trec RelevanceEvaluator + evaluate",
        lambda: kgeval.trec.RelevanceEvaluator(qrels, measures).evaluate(run),
        runs,
    )
    evaluator = kgeval.trec.RelevanceEvaluator(qrels, measures)
    again_wall, again_cpu, _ = timed("kgeval.trec evaluator.evaluate (qrels held)", lambda: evaluator.evaluate(run), runs)
    summary_wall, summary_cpu, summary = timed(
        "kgeval.trec.evaluate(per_query=False)", lambda: kgeval.trec.evaluate(qrels, run, MEASURES, per_query=False), runs
    )
    if "--arrow" in sys.argv:
        # The same run as a pyarrow table (issue 30): built outside the timing, grouped by qid.
        import pyarrow as pa

        table = pa.table({
            "qid": [q for q, docs in run.items() for _ in docs],
            "docno": [d for docs in run.values() for d in docs],
            "score": [s for docs in run.values() for s in docs.values()],
        })
        # The two kgeval calls are timed in turns (dicts, table, dicts, ...), best of each: this
        # machine's speed drifts by a third over seconds, so calls timed apart compare badly.
        pair = [None, None]
        for _ in range(max(runs, 5)):
            for side, label, value in ((0, "kgeval.trec.evaluate(dicts, means), in turns", run), (1, "kgeval.trec.evaluate(pyarrow table, means)", table)):
                got = timed(label, lambda: kgeval.trec.evaluate(qrels, value, MEASURES, per_query=False), 1)
                if pair[side] is None or got[0] < pair[side][0]:
                    pair[side] = got
        (dicts_wall, _, _), (arrow_wall, arrow_cpu, from_arrow) = pair
        for m in MEASURES:
            assert abs(from_arrow[m] - summary[m]) < 1e-12, (m, from_arrow[m], summary[m])
        print(
            f"pyarrow table vs dicts (means, best of {max(runs, 5)} in turns: {arrow_wall:.3f} s vs {dicts_wall:.3f} s): "
            f"{dicts_wall / arrow_wall:.1f}x wall; vs pytrec_eval: {theirs_wall / arrow_wall:.1f}x wall, {theirs_cpu / arrow_cpu:.1f}x CPU"
        )
    assert set(ours) == set(theirs) and all(set(ours[q]) == set(theirs[q]) for q in theirs)
    expected = means(theirs)
    for m in MEASURES:
        assert abs(means(ours)[m] - expected[m]) < 1e-9, (m, means(ours)[m], expected[m])
        assert abs(summary[m] - expected[m]) < 1e-9, (m, summary[m], expected[m])
    print(
        f"kgeval / pytrec_eval (per-query dicts): {theirs_wall / ours_wall:.1f}x wall, {theirs_cpu / ours_cpu:.1f}x CPU; "
        f"qrels held: {theirs_wall / again_wall:.1f}x wall, {theirs_cpu / again_cpu:.1f}x CPU; "
        f"means only: {theirs_wall / summary_wall:.1f}x wall, {theirs_cpu / summary_cpu:.1f}x CPU"
    )
    if "--no-ranx" not in sys.argv:
        import ranx

        small_q, small_r = workload(20, 50, seed)
        ranx.evaluate(ranx.Qrels(small_q), ranx.Run(small_r), list(RANX.values()))  # numba compiles here
        _, _, (q, r) = timed("ranx Qrels(qrels), Run(run) (conversion)", lambda: (ranx.Qrels(qrels), ranx.Run(run)), 1)
        _, _, got = timed("ranx evaluate", lambda: ranx.evaluate(q, r, list(RANX.values())), runs)
        for m, name in RANX.items():
            assert abs(got[name] - expected[m]) < 1e-9, (m, got[name], expected[m])
    print("means agree")


if __name__ == "__main__":
    main()
