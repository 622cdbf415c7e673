#!/usr/bin/env python3
"""Writes the 200-topic tie-heavy trec_eval case (qrels, run) deterministically.

Usage: make.py OUT_DIR   (writes OUT_DIR/qrels and OUT_DIR/run; see ../SOURCES.md)

Scores come from a handful of values, so most documents share their score with others and
trec_eval's tie order (docno descending) decides the ranking. Judgments are graded 0-4 with
some 12s (relstring's '>'), -1 (pooled but unjudged: infAP, relstring '.') and retrieved
documents outside the pool (unpooled: '-'). Some topics have no relevant document, a few
qrels topics have no run line (-c) and a few run topics have no qrels. No topic's judgments
are all negative (trec_eval's undefined behaviour, see trec_agreement.py).
"""

import random
import sys
from pathlib import Path


def main(out: Path) -> None:
    rng = random.Random(20261124)
    qrels_lines, run_lines = [], []
    docs = [f"D{i}" for i in range(120)] + [f"doc-{i:03d}" for i in range(40)]
    for t in range(200):
        qid = f"q{t}" if t % 7 else str(t)  # "105" < "14" < "q1" in strcmp order
        in_qrels = t % 50 != 17
        in_run = True  # trec_eval 10.0 exits 4 on a qrels topic without run lines unless -c
        if in_qrels:
            judged = rng.sample(docs, rng.randint(5, 70))
            kind = t % 9
            for i, d in enumerate(judged):
                if kind == 0:
                    rel = rng.choice([0, 0, -1])  # no relevant document
                elif kind == 1:
                    rel = 1 if i == 0 else 0  # exactly one
                else:
                    rel = rng.choice([0, 0, 0, 1, 1, 2, 3, 4, -1, 12 if t % 5 == 0 else 0])
                if i == 0 and rel < 0:
                    rel = 0
                qrels_lines.append(f"{qid} 0 {d} {rel}")
        if in_run or not in_qrels:
            n = rng.choice([1, 2, 3, 7, rng.randint(10, 40), rng.randint(40, 110)])
            retrieved = rng.sample(docs, n)
            values = [round(rng.uniform(0, 10), 2) for _ in range(rng.randint(1, 4))]
            for rank, d in enumerate(retrieved, 1):
                score = rng.choice(values) if rng.random() < 0.8 else round(rng.uniform(0, 10), 4)
                run_lines.append((qid, d, rank, score))
    rng.shuffle(run_lines)
    with (out / "qrels").open("w") as f:
        f.write("\n".join(qrels_lines) + "\n")
    with (out / "run").open("w") as f:
        for qid, d, rank, score in run_lines:
            f.write(f"{qid} Q0 {d} {rank} {score} ties200\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
