#!/usr/bin/env python3
"""Agreement of `kgeval.align` / `kgeval.rank` (profile ontoaligner) with OntoAligner itself.

Usage: ontoaligner_agreement.py [--cases N] [--seed S]

Opt-in (not run by .ci/run): `pip install ontoaligner` pulls torch, transformers and more.
Needs the kgeval Python package (`xtask/python.sh` builds it into .venv) and ontoaligner in
the same environment. For N seeded cases (generated_case: overlapping references and
predictions over small entity sets, repeated predictions with other scores, repeated
references, unscored predictions, empty prediction lists) it compares, key for key:

- `ontoaligner.utils.metrics.evaluation_report(predicts, references, beta)` with
  `kgeval.align.evaluate(references, predicts, profile="ontoaligner", beta=beta)`;
- `hit_at_k` (k = 1, 3, 5), `mrr` and `evaluation_report` again with
  `kgeval.rank.evaluate(predicts, gold=references, profile="ontoaligner", ks=[1, 3, 5])` (cases
  with at least one prediction).

Values must agree to 1e-12, counts exactly. Exits 1 on any disagreement, printing the first few.
The pytest suite (crates/kgeval-py/tests/test_align.py) runs the same cases against a
restatement of `evaluation_report`.
"""

import argparse
import random
import sys

TOLERANCE = 1e-12


def generated_case(rng: random.Random, index: int):
    """References and predictions over small entity sets: overlaps, repeated predictions (the
    same pair with other scores), repeated references, unscored predictions, and an empty
    prediction list every 17th case."""
    n = rng.randrange(2, 25)
    sources = [f"http://src.example/e{i}" for i in range(n)]
    targets = [f"http://tgt.example/t{i}" for i in range(n + 3)]
    references = [
        {"source": rng.choice(sources), "target": rng.choice(targets), "relation": "="}
        for _ in range(rng.randrange(1, n + 1))
    ]
    predictions = []
    for _ in range(0 if index % 17 == 0 else rng.randrange(1, 3 * n)):
        if rng.random() < 0.4:
            pick = rng.choice(references)
            cell = {"source": pick["source"], "target": pick["target"]}
        else:
            cell = {"source": rng.choice(sources), "target": rng.choice(targets)}
        if rng.random() < 0.9:
            cell["score"] = round(rng.random(), 3)
        predictions.append(cell)
    return references, predictions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261124)
    args = parser.parse_args()

    import kgeval.align
    import kgeval.rank
    from ontoaligner.utils import metrics

    rng = random.Random(args.seed)
    failures = []
    compared = 0
    for index in range(args.cases):
        references, predictions = generated_case(rng, index)
        beta = 1 if index % 3 else rng.choice([0.5, 2])
        theirs = metrics.evaluation_report(predicts=predictions, references=references, beta=beta)
        ours = kgeval.align.evaluate(references, predictions, profile="ontoaligner", beta=beta)
        if list(ours) != list(theirs):
            failures.append((index, "keys", list(ours), list(theirs)))
        for key, value in theirs.items():
            compared += 1
            if abs(ours.get(key, float("nan")) - value) > TOLERANCE:
                failures.append((index, key, ours.get(key), value))
        if not predictions:
            continue
        board = kgeval.rank.evaluate(predictions, gold=references, profile="ontoaligner", ks=[1, 3, 5], beta=beta)
        for key, value in theirs.items():
            compared += 1
            mine = board["evaluation_report"].get(key, float("nan"))
            if abs(mine - value) > TOLERANCE:
                failures.append((index, f"rank {key}", mine, value))
        for k in (1, 3, 5):
            compared += 1
            value = metrics.hit_at_k(predicts=predictions, references=references, k=k)
            if abs(board["hit_at_k"][f"hit_at_{k}"] - value) > TOLERANCE:
                failures.append((index, f"hit_at_{k}", board["hit_at_k"][f"hit_at_{k}"], value))
        compared += 1
        value = metrics.mrr(predicts=predictions, references=references)
        if abs(board["mrr"] - value) > TOLERANCE:
            failures.append((index, "mrr", board["mrr"], value))
    import collections
    print("disagreements by key:", dict(collections.Counter(f[1] for f in failures)))
    for failure in failures[:10]:
        print("disagreement (case, key, kgeval, ontoaligner):", failure)
    print(f"{args.cases} cases, {compared} values compared, {len(failures)} disagreements")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
