#!/usr/bin/env python3
"""`kgeval.kgc.evaluate` against PyKEEN's `RankBasedEvaluator` (opt-in peer check, issue 16).

Usage (in a venv with pykeen, torch, numpy and kgeval installed; not part of `.ci/run`, since
PyKEEN pulls torch, gigabytes):

    pykeen_agreement.py [--seed S] [--entities N] [--test T] [--train R]
    pykeen_agreement.py --bench FB15K237_FOLDER [--batch B] [--kgeval-only]

Agreement: a seeded knowledge graph (train and test triples over N entities, 7 relations) and
a fixed random score matrix, one row per test question (scores drawn from 40 values, so most
answers tie with other candidates; a second matrix of continuous scores). PyKEEN is fed the
rows of every (test triple, side) through its evaluator API exactly as its own evaluation loop
does (`pykeen.evaluation.evaluator._evaluate_batch` without a model: the sparse positive
filter over train + test, `filter_scores_` to NaN, the true score written back,
`process_scores_`, `finalize`); kgeval gets the matrix once. Every metric both compute
(`kgeval.kgc.PYKEEN_METRICS`, Hits@1,3,10) on every side is compared for `optimistic`,
`pessimistic` and `realistic` ties: PyKEEN aggregates in float32, so the tolerance is 1e-5
relative (printed: the largest difference seen). Exits 1 on a disagreement.

Bench: the FB15k-237 splits (`testdata/kgc/fb15k-237`, gzipped), a dense float32 matrix of
22,850 questions × 14,541 entities (1.3 GB; FB15k-237's 20,466 test triples on both sides),
random scores: kgeval's time (one call, matrix borrowed) against PyKEEN's evaluator on the
40,932 (triple, side) rows (filter + `process_scores_` + `finalize`; gathering each batch's
rows from the matrix, which stands in for `model.predict`, timed apart). Wall and CPU time.
"""

import argparse
import gzip
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy
import torch
from pykeen.evaluation import RankBasedEvaluator
from pykeen.evaluation.evaluator import create_sparse_positive_filter_, filter_scores_

import kgeval.kgc

TIES = ("optimistic", "pessimistic", "realistic")
SIDES = ("head", "tail")
RELATIVE = 1e-5


def make_graph(rng, entities, relations, train, test):
    """Distinct triples: `train` and `test` disjoint."""
    seen, triples = set(), []
    while len(triples) < train + test:
        triple = (int(rng.integers(entities)), int(rng.integers(relations)), int(rng.integers(entities)))
        if triple not in seen:
            seen.add(triple)
            triples.append(triple)
    return numpy.array(triples[:train], dtype=numpy.int64), numpy.array(triples[train:], dtype=numpy.int64)


def read_split(path, ids_e, ids_r):
    opener = gzip.open if str(path).endswith(".gz") else open
    rows = []
    with opener(path, "rt") as lines:
        for line in lines:
            h, r, t = line.rstrip("\n").split("\t")
            rows.append((ids_e.setdefault(h, len(ids_e)), ids_r.setdefault(r, len(ids_r)), ids_e.setdefault(t, len(ids_e))))
    return numpy.array(rows, dtype=numpy.int64)


def questions(test):
    """kgeval's question list: one row per distinct (side, anchor, relation), tails first;
    and, per side, the matrix row of every test triple."""
    index, lines, row_of = {}, [], {side: [] for side in SIDES}
    for side in ("tail", "head"):
        for h, r, t in test:
            anchor = h if side == "tail" else t
            key = (side, anchor, r)
            if key not in index:
                index[key] = len(lines)
                lines.append(key)
            row_of[side].append(index[key])
    return lines, {side: numpy.array(rows) for side, rows in row_of.items()}


def write_case(folder, names_e, names_r, train, test, lines):
    folder = Path(folder)
    write = lambda name, rows: (folder / name).write_text("".join("\t".join(row) + "\n" for row in rows))  # noqa: E731
    write("entities.txt", [[e] for e in names_e])
    write("train.txt", [[names_e[h], names_r[r], names_e[t]] for h, r, t in train])
    write("test.txt", [[names_e[h], names_r[r], names_e[t]] for h, r, t in test])
    write("questions.txt", [[f"{side}{i}", names_e[a], names_r[r]] for i, (side, a, r) in enumerate(lines)])
    return dict(
        test=folder / "test.txt",
        filters=[folder / "train.txt"],
        entities=folder / "entities.txt",
        questions=folder / "questions.txt",
    )


def pykeen_evaluate(matrix, test, all_positive, row_of, batch=256):
    """PyKEEN's filtered RankBasedEvaluator over the (triple, side) rows; returns the flat
    dict and the seconds spent gathering rows (the stand-in for model.predict)."""
    evaluator = RankBasedEvaluator(filtered=True, clear_on_finalize=True)
    test_t, positives = torch.from_numpy(test), torch.from_numpy(all_positive)
    gather = 0.0
    for side in SIDES:
        column = 0 if side == "head" else 2
        for start in range(0, len(test), batch):
            hrt = test_t[start : start + batch]
            began = time.perf_counter()
            scores = torch.from_numpy(matrix[row_of[side][start : start + batch]])
            gather += time.perf_counter() - began
            positive_filter, _ = create_sparse_positive_filter_(hrt_batch=hrt, all_pos_triples=positives, filter_col=column)
            true_scores = scores[torch.arange(0, hrt.shape[0]), hrt[:, column]]
            scores = filter_scores_(scores=scores, filter_batch=positive_filter)
            scores[torch.arange(0, hrt.shape[0]), hrt[:, column]] = true_scores
            evaluator.process_scores_(hrt_batch=hrt, target=side, scores=scores, true_scores=true_scores.unsqueeze(-1))
    result = evaluator.finalize()
    return {k: float(v) for k, v in result.to_flat_dict().items()}, gather


def agreement(args):
    rng = numpy.random.default_rng(args.seed)
    train, test = make_graph(rng, args.entities, 7, args.train, args.test)
    names_e = [f"e{i}" for i in range(args.entities)]
    names_r = [f"r{i}" for i in range(7)]
    lines, row_of = questions(test)
    all_positive = numpy.concatenate([train, test])
    worst, compared, failures = 0.0, 0, []
    with tempfile.TemporaryDirectory() as folder:
        files = write_case(folder, names_e, names_r, train, test, lines)
        shape = (len(lines), args.entities)
        matrices = {
            "40 values (ties)": rng.integers(0, 40, size=shape).astype(numpy.float32),
            "continuous": rng.standard_normal(size=shape, dtype=numpy.float32),
        }
        for label, matrix in matrices.items():
            theirs, _ = pykeen_evaluate(matrix, test, all_positive, row_of)
            for ties in TIES:
                ours = kgeval.kgc.evaluate(matrix, ties=ties, **files).to_flat_dict()
                for key, value in ours.items():
                    side, rank_type, metric = key.split(".")
                    if rank_type != ties or key not in theirs:
                        failures.append((label, key, value, theirs.get(key)))
                        continue
                    compared += 1
                    difference = abs(value - theirs[key])
                    scale = max(1.0, abs(theirs[key]))
                    worst = max(worst, difference / scale)
                    if difference > RELATIVE * scale:
                        failures.append((label, key, value, theirs[key]))
    print(
        f"pykeen_agreement: {len(test)} test triples ({len(lines)} questions) x {args.entities} entities, "
        f"{len(train)} train triples, seed {args.seed}: {compared} values compared (2 matrices x 3 tie policies), "
        f"largest relative difference {worst:.3g}"
    )
    for failure in failures[:10]:
        print("  disagreement:", failure)
    return 1 if failures else 0


def cpu_seconds():
    return time.process_time()


def bench(args):
    folder = Path(args.bench)
    ids_e, ids_r = {}, {}
    with gzip.open(folder / "entities.txt.gz", "rt") as lines:
        for line in lines:
            ids_e.setdefault(line.rstrip("\n"), len(ids_e))
    train = read_split(folder / "train.txt.gz", ids_e, ids_r)
    valid = read_split(folder / "valid.txt.gz", ids_e, ids_r)
    test = read_split(folder / "test.txt.gz", ids_e, ids_r)
    lines, row_of = questions(test)
    names_e = list(ids_e)
    names_r = list(ids_r)
    rng = numpy.random.default_rng(args.seed)
    matrix = rng.random((len(lines), len(names_e)), dtype=numpy.float32)
    print(f"bench: {matrix.shape[0]} x {matrix.shape[1]} float32 ({matrix.nbytes / 1e9:.2f} GB), {len(test)} test triples")
    with tempfile.TemporaryDirectory() as tmp:
        files = write_case(tmp, names_e, names_r, numpy.concatenate([train, valid]), test, lines)
        wall, cpu = time.perf_counter(), cpu_seconds()
        ours = kgeval.kgc.evaluate(matrix, **files)
        ours_wall, ours_cpu = time.perf_counter() - wall, cpu_seconds() - cpu
        print(f"kgeval.kgc.evaluate: wall {ours_wall:.2f} s, CPU {ours_cpu:.2f} s (all threads)")
        if args.kgeval_only:
            return 0
        wall, cpu = time.perf_counter(), cpu_seconds()
        all_positive = numpy.concatenate([train, valid, test])
        theirs, gather = pykeen_evaluate(matrix, test, all_positive, row_of, batch=args.batch)
        their_wall, their_cpu = time.perf_counter() - wall, cpu_seconds() - cpu
        print(
            f"PyKEEN RankBasedEvaluator: wall {their_wall:.2f} s (of which {gather:.2f} s gathering rows), "
            f"CPU {their_cpu:.2f} s (all threads); torch threads {torch.get_num_threads()}"
        )
        print(f"ratio (wall, without gathering): {(their_wall - gather) / ours_wall:.1f}x")
        for key in ("both.realistic.inverse_harmonic_mean_rank", "both.realistic.arithmetic_mean_rank", "both.realistic.hits_at_10"):
            print(f"  {key}: kgeval {ours.to_flat_dict()[key]:.9g}, PyKEEN {theirs[key]:.9g}")
            assert math.isclose(ours.to_flat_dict()[key], theirs[key], rel_tol=RELATIVE), key
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--entities", type=int, default=1500)
    parser.add_argument("--test", type=int, default=1200)
    parser.add_argument("--train", type=int, default=12000)
    parser.add_argument("--bench", metavar="FB15K237_FOLDER")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--kgeval-only", action="store_true", help="with --bench: time kgeval alone")
    args = parser.parse_args()
    sys.exit(bench(args) if args.bench else agreement(args))


if __name__ == "__main__":
    main()
