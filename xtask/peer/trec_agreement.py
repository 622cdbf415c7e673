#!/usr/bin/env python3
"""Per-topic agreement of `kgeval trec` with pytrec_eval (trec_eval 9.0.8 inside).

Usage: trec_agreement.py KGEVAL_BINARY [--cases N] [--seed S]

Generates N seeded qrels/run pairs built to stress the edge cases: heavy score ties (scores
drawn from a handful of values), graded and negative relevance, short runs, topics with no
relevant document (R = 0), topics only on one side, relevance levels 1 and 2. For each pair it
runs `kgeval trec --format json` and pytrec_eval on the same files and compares every
per-topic value of map, P.k, recall.k, ndcg, ndcg_cut.k, recip_rank, Rprec, bpref, success.k
(plus map_cut.k, set_P, set_recall, set_F, the counts, infAP, Rprec_mult, utility, binG, G,
ndcg_rel, Rndcg, relative_P, set_relative_P, set_map and num_nonrel_judged_ret) to 1e-12. Exits 1 on any
disagreement, printing the first few.
"""

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytrec_eval

MEASURES = [
    "map", "P.1,2,3,5,10", "recall.1,3,5,10", "ndcg", "ndcg_cut.1,3,5,10", "recip_rank",
    "Rprec", "bpref", "success.1,3,5", "map_cut.3,10", "set_P", "set_recall", "set_F",
    "num_ret", "num_rel", "num_rel_ret",
    # The rest of trec_eval's all_trec that pytrec_eval (trec_eval 9.0.8) has and computes as
    # 10.0 does. Left out: iprec_at_recall and 11pt_avg (10.0 rounds R * level with lround,
    # 9.0.8 added 0.9 and truncated), relstring (a string), gm_map and gm_bpref (summary
    # only), rbp, rbp_resid and unj (not in 9.0.8).
    "infAP", "Rprec_mult.0.2,1.0,2.0", "utility", "binG", "G", "ndcg_rel", "Rndcg",
    "relative_P.1,3,10", "set_relative_P", "set_map", "num_nonrel_judged_ret",
]
TOLERANCE = 1e-12


def make_case(rng: random.Random, index: int):
    """One qrels/run pair as dicts; ids include bytes that sort unlike numbers (D10 < D9)."""
    n_topics = rng.randint(1, 6)
    docs = [f"D{i}" for i in range(rng.randint(3, 40))]
    tie_values = [round(rng.uniform(-2, 2), 3) for _ in range(rng.randint(1, 4))]
    qrels, run = {}, {}
    for t in range(n_topics):
        qid = f"{index}-{t}" if rng.random() < 0.5 else f"q{t}"
        side = rng.random()
        if side > 0.1:  # in the qrels
            judged = rng.sample(docs, rng.randint(1, len(docs)))
            kind = rng.random()
            qrels[qid] = {}
            for d in judged:
                if kind < 0.15:
                    rel = rng.choice([0, -1])  # R = 0 topic
                else:
                    rel = rng.choice([0, 0, 1, 1, 2, 3, -1])
                qrels[qid][d] = rel
            # A topic whose judgments are all negative sends trec_eval (and so pytrec_eval)
            # into undefined behaviour (its rel-level table is never set; ndcg_cut can loop
            # forever); kgeval scores such a topic as R = 0. Keep one non-negative judgment.
            if all(rel < 0 for rel in qrels[qid].values()):
                qrels[qid][judged[0]] = 0
        if side < 0.9 or qid not in qrels:  # in the run
            length = rng.choice([1, 2, 3, rng.randint(1, len(docs))])
            retrieved = rng.sample(docs, min(length, len(docs)))
            run[qid] = {}
            for d in retrieved:
                if rng.random() < 0.6:
                    score = rng.choice(tie_values)
                else:
                    score = rng.uniform(-3, 3)
                run[qid][d] = score
    if not qrels:
        qrels["q-only"] = {"D0": 1}
    if not run:
        run["q-only"] = {"D0": 0.5}
    return qrels, run


def write_case(directory: Path, qrels, run):
    q = directory / "qrels"
    r = directory / "run"
    with q.open("w") as f:
        for qid, docs in qrels.items():
            for d, rel in docs.items():
                f.write(f"{qid} 0 {d} {rel}\n")
    with r.open("w") as f:
        for qid, docs in run.items():
            for rank, (d, score) in enumerate(docs.items(), 1):
                f.write(f"{qid} Q0 {d} {rank} {score!r} peer\n")
    return q, r


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    binary = args[0]
    cases = int(args[args.index("--cases") + 1]) if "--cases" in args else 250
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 20261121
    rng = random.Random(seed)
    failures = []
    compared = 0
    ties = 0
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for index in range(cases):
            qrels, run = make_case(rng, index)
            level = 2 if index % 5 == 4 else 1
            q, r = write_case(directory, qrels, run)
            common = set(qrels) & set(run)
            if not common:
                continue
            cmd = [binary, "trec", "--format", "json", "-l", str(level)]
            for m in MEASURES:
                cmd += ["-m", m]
            out = subprocess.run(cmd + [str(q), str(r)], capture_output=True, text=True)
            if out.returncode != 0:
                failures.append(f"case {index}: kgeval exited {out.returncode}: {out.stderr.strip()}")
                continue
            ours = json.loads(out.stdout)["runs"][0]
            ties += ours["topics_with_tied_scores"]
            # pytrec_eval 0.5 takes the relevance level as a keyword.
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=level)
            theirs = evaluator.evaluate(run)
            if set(theirs) != set(ours["topics"]):
                failures.append(f"case {index}: topics differ: {sorted(theirs)} vs {sorted(ours['topics'])}")
                continue
            for qid, values in theirs.items():
                for measure, value in values.items():
                    mine = ours["topics"][qid].get(measure)
                    compared += 1
                    if mine is None or abs(mine - value) > TOLERANCE:
                        failures.append(f"case {index} (level {level}) topic {qid} {measure}: kgeval {mine} pytrec_eval {value}")
    print(f"trec agreement: {cases} cases, {compared} per-topic values compared, {ties} topics with tied scores, "
          f"{len(failures)} disagreements")
    for f in failures[:20]:
        print("  " + f)
    if compared < 5000 or ties < 100:
        print("too few comparisons or ties: the generator is broken", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
