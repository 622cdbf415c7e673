#!/usr/bin/env python3
"""`kgeval compare --qrels Q --run ...` against `ranx.compare` (paired Student t).

Usage: ranx_agreement.py KGEVAL_BINARY [--cases N] [--seed S]

Generates N seeded cases (qrels with graded relevance 0-3, 3-5 runs of 5-60 documents per
query, scores distinct within a query so that no tie-breaking convention matters, every query
in the qrels and every run, at least one relevant document per query; every fifth case adds
an exact copy of one run). For each case it runs
`kgeval compare --qrels --run ... -m map -m ndcg_cut.10 -m recip_rank -m P.10 -m recall.10
--correction none --format json` and `ranx.compare(..., stat_test="student")` on the same
files and compares each system's mean (1e-12) and every pair's paired-t p-value (1e-9; ranx
calls scipy.stats.ttest_rel). A pair whose per-query scores are identical is the one
documented difference: scipy's p is NaN there, kgeval's is 1. Prints one summary line; exits 1
on any disagreement.
"""

import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from ranx import Qrels, Run, compare

# (kgeval -m measure, kgeval table name, ranx metric)
METRICS = [
    ("map", "map", "map"),
    ("ndcg_cut.10", "ndcg_cut_10", "ndcg@10"),
    ("recip_rank", "recip_rank", "mrr"),
    ("P.10", "P_10", "precision@10"),
    ("recall.10", "recall_10", "recall@10"),
]
MEAN_TOLERANCE = 1e-12
P_TOLERANCE = 1e-9


def make_case(rng: random.Random, index: int):
    n_queries = rng.randint(8, 40)
    n_runs = rng.randint(3, 5)
    docs = [f"d{i}" for i in range(80)]
    qrels, runs = {}, {f"r{r}": {} for r in range(n_runs)}
    for q in range(n_queries):
        qid = f"q{index}_{q}"
        judged = rng.sample(docs, rng.randint(2, 30))
        qrels[qid] = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
        if all(rel == 0 for rel in qrels[qid].values()):
            qrels[qid][judged[0]] = 1
        for name in runs:
            retrieved = rng.sample(docs, rng.randint(5, 60))
            # Distinct scores: a random permutation of distinct values.
            scores = rng.sample(range(1, 10_000), len(retrieved))
            runs[name][qid] = {d: s / 1000.0 for d, s in zip(retrieved, scores)}
    if index % 5 == 0:
        # A copy of the first run: every per-query difference is 0 (the documented case).
        runs["copy"] = {qid: dict(scored) for qid, scored in runs["r0"].items()}
    return qrels, runs


def write_case(directory: Path, qrels, runs):
    q = directory / "qrels.txt"
    with q.open("w") as f:
        for qid, judged in qrels.items():
            for d, rel in judged.items():
                f.write(f"{qid} 0 {d} {rel}\n")
    paths = {}
    for name, run in runs.items():
        p = directory / f"{name}.txt"
        with p.open("w") as f:
            for qid, scored in run.items():
                ranked = sorted(scored.items(), key=lambda kv: -kv[1])
                for rank, (d, score) in enumerate(ranked, 1):
                    f.write(f"{qid} Q0 {d} {rank} {score!r} {name}\n")
        paths[name] = p
    return q, paths


def main() -> int:
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    binary = args[0]
    cases = int(args[args.index("--cases") + 1]) if "--cases" in args else 40
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 20261124
    rng = random.Random(seed)
    failures = []
    means = p_values = identical = 0
    max_mean_diff = max_p_diff = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for index in range(cases):
            qrels, runs = make_case(rng, index)
            q, paths = write_case(directory, qrels, runs)
            cmd = [binary, "compare", "--qrels", str(q), "--correction", "none", "--format", "json"]
            for name, path in paths.items():
                cmd += ["--run", f"{name}={path}"]
            for measure, _, _ in METRICS:
                cmd += ["-m", measure]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                failures.append(f"case {index}: kgeval exited {out.returncode}: {out.stderr.strip()}")
                continue
            ours = {m["metric"]: m for m in json.loads(out.stdout)["metrics"]}
            report = compare(
                qrels=Qrels(qrels),
                runs=[Run(run, name=name) for name, run in runs.items()],
                metrics=[ranx for _, _, ranx in METRICS],
                stat_test="student",
            ).to_dict()
            for _, table_name, ranx_name in METRICS:
                block = ours.get(table_name)
                if block is None:
                    failures.append(f"case {index}: kgeval has no {table_name}")
                    continue
                for name in runs:
                    theirs = report[name]["scores"][ranx_name]
                    mine = block["means"][name]
                    means += 1
                    max_mean_diff = max(max_mean_diff, abs(mine - theirs))
                    if abs(mine - theirs) > MEAN_TOLERANCE:
                        failures.append(f"case {index} {table_name} {name} mean: kgeval {mine} ranx {theirs}")
                for pair in block["pairs"]:
                    a, b = pair["system_a"], pair["system_b"]
                    theirs = report[a]["comparisons"][b][ranx_name]
                    mine = pair["p_value"]
                    p_values += 1
                    if theirs is None or math.isnan(theirs):
                        # scipy: identical per-query scores give NaN; kgeval documents p = 1.
                        if mine == 1.0 and pair["wins"] == 0 and pair["losses"] == 0:
                            identical += 1
                        else:
                            failures.append(f"case {index} {table_name} {a}-{b}: ranx NaN, kgeval {mine}")
                        continue
                    max_p_diff = max(max_p_diff, abs(mine - theirs))
                    if abs(mine - theirs) > P_TOLERANCE:
                        failures.append(f"case {index} {table_name} {a}-{b} p: kgeval {mine} ranx {theirs}")
    print(
        f"ranx agreement: {cases} cases, {means} means (max diff {max_mean_diff:.1e}), {p_values} paired-t "
        f"p-values (max diff {max_p_diff:.1e}; {identical} identical pairs: ranx NaN, kgeval 1), "
        f"{len(failures)} disagreements"
    )
    for f in failures[:20]:
        print("  " + f)
    if p_values < 200:
        print("too few comparisons: the generator is broken", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
