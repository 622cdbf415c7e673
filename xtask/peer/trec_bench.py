#!/usr/bin/env python3
"""The peer side of `cargo xtask bench trec`: load a TREC qrels and run from files and evaluate
map, ndcg_cut.10, recip_rank and P.10 averaged over the topics, as a user of the library would.

Usage: trec_bench.py pytrec_eval|ranx QRELS RUN

Prints one `measure<TAB>all<TAB>value` line per measure (trec_eval's layout), so the harness
can show the numbers next to kgeval's.
"""

import sys


def read_qrels(path):
    qrels = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 4 and not line.startswith("#"):
                qrels.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    return qrels


def read_run(path):
    run = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and not fields[0].startswith("#"):
                run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return run


def with_pytrec_eval(qrels_path, run_path):
    import pytrec_eval

    qrels, run = read_qrels(qrels_path), read_run(run_path)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "recip_rank", "P.10"})
    per_topic = evaluator.evaluate(run)
    names = [("map", "map"), ("ndcg_cut_10", "ndcg_cut_10"), ("recip_rank", "recip_rank"), ("P_10", "P_10")]
    return {shown: sum(t[key] for t in per_topic.values()) / len(per_topic) for key, shown in names}


def with_ranx(qrels_path, run_path):
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    scores = evaluate(qrels, run, ["map", "ndcg@10", "mrr", "precision@10"])
    return {"map": scores["map"], "ndcg@10": scores["ndcg@10"], "mrr": scores["mrr"], "P@10": scores["precision@10"]}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("pytrec_eval", "ranx"):
        sys.exit(__doc__)
    tool, qrels_path, run_path = sys.argv[1:]
    scores = (with_pytrec_eval if tool == "pytrec_eval" else with_ranx)(qrels_path, run_path)
    for name, value in scores.items():
        print(f"{name:<22}\tall\t{value:.4f}")


if __name__ == "__main__":
    main()
