#!/usr/bin/env python3
"""In-process TREC benchmark of `kgeval.trec` against pytrec_eval and ranx on runs held as
dicts (issue 16): Q topics x D documents per topic, seeded, no score ties.

Usage: python_bench.py [--topics Q] [--docs D] [--seed S] [--no-ranx]

Prints wall and CPU (process) seconds per tool for map, P_10, ndcg_cut_10, recip_rank, and
checks that the three agree on the means (1e-9). Build kgeval first (xtask/python.sh).
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


def timed(label, fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    print(f"{label:>12}: {time.perf_counter() - wall:8.2f} s wall {time.process_time() - cpu:8.2f} s CPU")
    return out


def main():
    topics, docs, seed = arg("--topics", 10_000), arg("--docs", 1_000), arg("--seed", 20261124)
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(topics):
        q = f"q{t}"
        qrels[q] = {f"d{rng.randrange(docs * 2)}": rng.choice([0, 1, 1, 2]) for _ in range(20)}
        scores = rng.sample(range(docs * 50), docs)
        run[q] = {f"d{i}": s / 7.0 for i, s in enumerate(scores)}
    print(f"{topics} topics x {docs} documents ({topics * docs} run entries)")
    ours = timed("kgeval", lambda: kgeval.trec.evaluate(qrels, run, MEASURES, per_query=False))
    per_q = timed("pytrec_eval", lambda: pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run))
    for m in MEASURES:
        mean = sum(v[m] for v in per_q.values()) / len(per_q)
        assert abs(mean - ours[m]) < 1e-9, (m, mean, ours[m])
    if "--no-ranx" not in sys.argv:
        import ranx

        q, r = ranx.Qrels(qrels), ranx.Run(run)
        ranx.evaluate(q, r, list(RANX.values()))  # numba compiles on the first call
        theirs = timed("ranx", lambda: ranx.evaluate(q, r, list(RANX.values())))
        for m, name in RANX.items():
            assert abs(theirs[name] - ours[m]) < 1e-9, (m, theirs[name], ours[m])
    print("means agree")


if __name__ == "__main__":
    main()
