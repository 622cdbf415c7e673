#!/usr/bin/env python3
"""Per-question agreement of `kgeval kgc`'s macro MAP@20 / nDCG@20 with pytrec_eval.

Usage: kgc_pytrec_agreement.py KGEVAL_BINARY [--cases N] [--seed S]

Generates N seeded KGC cases (entities, train and test triples with several answers per
question, one untied score per question and entity). For each case it writes the fully
filtered per-answer counts (kgeval's rich rank file) and a TREC run of the scores (every entity,
or the top k), runs `kgeval kgc --format json --per-item` on both, and compares every question's
`map_cut_20` and `ndcg_cut_20` with pytrec_eval on the list seed 004 defines: the question's
scores without the train answers (other test answers stay), relevant = the test answers. With the
rank file kgeval derives the list from the ranks (the j-th answer by rank at r + j); with the run
it evaluates the filtered run. Also checks macro MRR (full ranking) against pytrec_eval's
`recip_rank`. Tolerance 1e-12; exits 1 on any disagreement, printing the first few.
"""

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytrec_eval

TOLERANCE = 1e-12
MEASURES = {"map_cut.20", "ndcg_cut.20", "recip_rank"}


def make_case(rng: random.Random):
    """Entities, train and test triples, and scores[(side, relation, anchor)][entity]."""
    n = rng.randint(25, 90)
    entities = [f"/m/e{i}" for i in range(n)]
    relations = [f"/r/{c}" for c in "abcd"[: rng.randint(1, 4)]]
    test = []
    for _ in range(rng.randint(5, 30)):
        h, r, t = rng.choice(entities), rng.choice(relations), rng.choice(entities)
        test.append((h, r, t))
        for _ in range(rng.choice([0, 0, 1, 2, 5])):  # more answers for one side
            other = rng.choice(entities)
            test.append((h, r, other) if rng.random() < 0.5 else (other, r, t))
    test = list(dict.fromkeys(test))
    train = [(rng.choice(entities), rng.choice(relations), rng.choice(entities)) for _ in range(rng.randint(0, 3 * n))]
    train = [t for t in dict.fromkeys(train) if t not in set(test)]
    return entities, relations, train, test


def questions_of(test):
    """kgc-sparsity's rule: head{i} per distinct (tail, relation), tail{i} per (head, relation)."""
    order = []
    answers = {}
    for side in ("head", "tail"):
        count = 0
        for h, r, t in test:
            key = (side, r, t if side == "head" else h)
            if key not in answers:
                answers[key] = []
                order.append((f"{side}{count}", key))
                count += 1
            answer = h if side == "head" else t
            if answer not in answers[key]:
                answers[key].append(answer)
    return order, answers


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    binary = Path(args[0]).resolve()
    cases = int(args[args.index("--cases") + 1]) if "--cases" in args else 60
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 20_261_121
    rng = random.Random(seed)
    failures, compared = [], 0
    for case in range(cases):
        entities, _, train, test = make_case(rng)
        order, answers = questions_of(test)
        known_train = {}
        for h, r, t in train:
            known_train.setdefault(("head", r, t), set()).add(h)
            known_train.setdefault(("tail", r, h), set()).add(t)
        values = rng.sample(range(1, 10**9), len(order) * len(entities))
        scores = {key: dict(zip(entities, values[i * len(entities):(i + 1) * len(entities)])) for i, (_, key) in enumerate(order)}
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            (d / "entities.txt").write_text("".join(e + "\n" for e in entities))
            (d / "train.txt").write_text("".join("\t".join(t) + "\n" for t in train))
            (d / "test.txt").write_text("".join("\t".join(t) + "\n" for t in test))
            (d / "questions.txt").write_text("".join(f"{qid}\t{key[2]}\t{key[1]}\n" for qid, key in order))
            # Fully filtered counts: every known answer but the target removed.
            lines = ["# filter: train test\n", "head\trelation\ttail\tside\trank\tn_greater\tn_equal\tnum_candidates\n"]
            for side in ("head", "tail"):
                for h, r, t in test:
                    key = (side, r, t if side == "head" else h)
                    answer = h if side == "head" else t
                    removed = (known_train.get(key, set()) | set(answers[key])) - {answer}
                    own = scores[key][answer]
                    greater = sum(1 for e, s in scores[key].items() if e not in removed and s > own)
                    lines.append(f"{h}\t{r}\t{t}\t{side}\t{greater + 1}\t{greater}\t1\t{len(entities) - len(removed)}\n")
            (d / "ranks.tsv").write_text("".join(lines))
            depth = len(entities) if rng.random() < 0.5 else rng.randint(3, 30)
            run_lines, pytrec_run = [], {}
            for qid, key in order:
                ranked = sorted(scores[key].items(), key=lambda x: -x[1])[:depth]
                run_lines += [f"{qid} Q0 {e} {i + 1} {s} gen\n" for i, (e, s) in enumerate(ranked)]
                pytrec_run[qid] = {e: float(s) for e, s in ranked if e not in known_train.get(key, set())}
            (d / "run.txt").write_text("".join(run_lines))
            qrels = {qid: {a: 1 for a in answers[key]} for qid, key in order}
            full_run = {
                qid: {e: float(s) for e, s in scores[key].items() if e not in known_train.get(key, set())}
                for qid, key in order
            }
            expected_full = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(full_run)
            expected_run = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(pytrec_run)
            base = [str(binary), "kgc", "--test", "test.txt", "--filter", "train.txt", "--entities", "entities.txt",
                    "--format", "json", "--per-item"]
            for label, extra, expected in [
                ("ranks", ["--ranks", "ranks.tsv"], expected_full),
                ("run", ["--run", "run.txt", "--queries", "questions.txt"], expected_run),
            ]:
                out = subprocess.run(base + extra, cwd=d, capture_output=True, text=True)
                if out.returncode != 0:
                    failures.append(f"case {case} {label}: exit {out.returncode}: {out.stderr.strip()}")
                    continue
                system = json.loads(out.stdout)["systems"][0]
                got = {}
                for row in system["per_item"]:
                    got.setdefault(row["item"], {})[row["metric"]] = row["value"]
                for qid, _ in order:
                    for measure in ("map_cut_20", "ndcg_cut_20"):
                        want = expected.get(qid, {}).get(measure, 0.0)
                        have = got.get(qid, {}).get(measure)
                        compared += 1
                        if have is None or abs(have - want) > TOLERANCE:
                            failures.append(f"case {case} {label} {qid} {measure}: kgeval {have}, pytrec_eval {want}")
                if label == "ranks":
                    mrr = sum(expected[qid]["recip_rank"] for qid, _ in order) / len(order)
                    have = system["scopes"]["both"]["macro_mrr"]
                    compared += 1
                    if abs(have - mrr) > TOLERANCE:
                        failures.append(f"case {case} macro_mrr: kgeval {have}, pytrec_eval recip_rank {mrr}")
    if failures:
        print(f"{len(failures)} disagreements of {compared} values; first:")
        for f in failures[:10]:
            print("  " + f)
        sys.exit(1)
    print(f"kgc: {compared} values agree with pytrec_eval on {cases} generated cases")


if __name__ == "__main__":
    main()
