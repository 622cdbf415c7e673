#!/usr/bin/env python3
"""Per-answer ranks of a relation-popularity baseline on FB15k-237 (kgeval's bundled system output).

Usage: make_popularity_ranks.py FB15K237_DIR OUT.tsv.gz

The baseline scores a candidate e of the tail question (s, p, ?) by the number of train triples
(x, p, e), and of the head question (?, p, o) by the number of train triples (e, p, x): it never
looks at the given entity, so most candidates tie (at 0 and at every small count). For every
test triple and side it writes the fully filtered counts (every known answer of train, valid and
test removed except the target) in kgeval's rich rank layout, with the realistic rank
(n_greater + (n_equal + 1) / 2) in the rank column. The entity set is every entity of the three
splits (14,541). Pure Python 3, no dependency; deterministic (gzip mtime 0).

It also prints the micro and macro values a naive implementation of the spec's definitions
gives for every tie policy; testdata/kgc/SOURCES.md records them.
"""

import bisect
import gzip
import math
import sys
from collections import defaultdict


def read(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t")) for line in f if line.strip()]


def main():
    base, out = sys.argv[1], sys.argv[2]
    train, valid, test = (read(f"{base}/{s}.txt.gz") for s in ("train", "valid", "test"))
    entities = []
    seen = set()
    for h, _, t in train + valid + test:
        for e in (h, t):
            if e not in seen:
                seen.add(e)
                entities.append(e)
    n_entities = len(entities)
    # popularity[(p, side)][e]: side "tail" counts e as tail of p (scores tail questions).
    popularity = defaultdict(lambda: defaultdict(int))
    for h, p, t in train:
        popularity[(p, "tail")][t] += 1
        popularity[(p, "head")][h] += 1
    # Sorted scores over every entity (zeros included) per (relation, side).
    sorted_scores = {}

    def scores_of(p, side):
        key = (p, side)
        if key not in sorted_scores:
            counts = popularity[key]
            values = sorted(counts.values())
            sorted_scores[key] = [0] * (n_entities - len(values)) + values
        return sorted_scores[key]

    known = defaultdict(set)  # (side, p, anchor) -> answers
    for h, p, t in train + valid + test:
        known[("head", p, t)].add(h)
        known[("tail", p, h)].add(t)

    rows = []
    for side in ("head", "tail"):
        for h, p, t in test:
            anchor, answer = (t, h) if side == "head" else (h, t)
            pop = popularity[(p, side)]
            x = pop.get(answer, 0)
            values = scores_of(p, side)
            greater = len(values) - bisect.bisect_right(values, x)
            equal = bisect.bisect_right(values, x) - bisect.bisect_left(values, x)
            others = known[(side, p, anchor)] - {answer}
            greater -= sum(1 for k in others if pop.get(k, 0) > x)
            equal -= sum(1 for k in others if pop.get(k, 0) == x)
            candidates = n_entities - len(others)
            rows.append((h, p, t, side, greater, equal, candidates))

    with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
        lines = ["# filter: train valid test\n", "head\trelation\ttail\tside\trank\tn_greater\tn_equal\tnum_candidates\n"]
        for h, p, t, side, g, e, n in rows:
            lines.append(f"{h}\t{p}\t{t}\t{side}\t{g + (e + 1) / 2!r}\t{g}\t{e}\t{n}\n")
        f.write("".join(lines).encode())

    policies = {
        "optimistic": lambda g, e: g + 1,
        "pessimistic": lambda g, e: g + e,
        "realistic": lambda g, e: g + (e + 1) / 2,
        "rounded-mean": lambda g, e: g + e // 2 + 1,
    }
    # Aggregated questions: answers per (side, p, anchor) from test.
    answers = defaultdict(list)
    rank_of = {}
    for h, p, t, side, g, e, n in rows:
        anchor, answer = (t, h) if side == "head" else (h, t)
        if answer not in answers[(side, p, anchor)]:
            answers[(side, p, anchor)].append(answer)
        rank_of[(side, p, anchor, answer)] = (g, e)
    print(f"pairs {len(rows)} questions {len(answers)} entities {n_entities}")
    for name, rank in policies.items():
        ranks = [rank(g, e) for *_, g, e, _n in rows]
        mrr = math.fsum(1 / r for r in ranks) / len(ranks)
        mr = math.fsum(ranks) / len(ranks)
        hits = [sum(1 for r in ranks if r <= k) / len(ranks) for k in (1, 3, 10)]
        best = [min(rank(*rank_of[(*q, a)]) for a in answers[q]) for q in answers]
        macro_mrr = math.fsum(1 / r for r in best) / len(best)
        macro_mr = math.fsum(best) / len(best)
        macro_hits = [sum(1 for r in best if r <= k) / len(best) for k in (1, 3, 10)]
        print(f"{name}: micro mr {mr!r} mrr {mrr!r} hits@1,3,10 {hits!r}")
        print(f"{name}: macro mr {macro_mr!r} mrr {macro_mrr!r} hits@1,3,10 {macro_hits!r}")
    tied = sum(1 for *_, g, e, _n in rows if e > 1)
    print(f"tied pairs {tied}")


if __name__ == "__main__":
    main()
