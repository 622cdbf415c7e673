"""Sharded KGC evaluation with four worker processes.

One score matrix (head and tail prediction for every test triple, one column per entity) is
split four ways — by columns (each worker holds a quarter of the candidate entities of every
question) or by rows (each worker holds a quarter of the questions) — and each worker feeds a
`kgeval.kgc.RankAccumulator` with its score block, the answers' columns and a filter mask.
The workers send their accumulators back as bytes; the parent merges them and finalises. The
result equals the dense evaluation of the whole matrix (`kgeval.kgc.evaluate`) to 1e-12.

Run: `python crates/kgeval-py/examples/kgc_shards.py [columns|rows]` (prints the realistic
metrics and the largest difference from the dense path).
"""

from __future__ import annotations

import multiprocessing
import sys
from typing import Dict, List, Tuple

import numpy

import kgeval.kgc

WORKERS = 4


def make_data(seed: int = 30) -> Dict[str, numpy.ndarray]:
    """A small generated graph: 60 entities, 4 relations, train and test triples, and scores
    with many ties (rounded to 0.25) so that every tie policy differs."""
    rng = numpy.random.default_rng(seed)
    n_entities, n_relations = 60, 4
    triples = numpy.unique(rng.integers(0, [n_entities, n_relations, n_entities], size=(400, 3)), axis=0)
    rng.shuffle(triples)
    test, train = triples[:80], triples[80:]
    head = numpy.round(rng.normal(size=(len(test), n_entities)) * 4) / 4
    tail = numpy.round(rng.normal(size=(len(test), n_entities)) * 4) / 4
    return {"test": test, "train": train, "head": head, "tail": tail, "n_entities": numpy.array(n_entities)}


def rows_of(data: Dict[str, numpy.ndarray]) -> Tuple[numpy.ndarray, ...]:
    """Every (triple, side) answer as a row: id, scores, the answer's column, the filter mask
    (every other known answer of the question: train and test) and the question (macro group)."""
    test, train = data["test"], data["train"]
    known = numpy.concatenate([train, test])
    n, n_entities = len(test), int(data["n_entities"])
    ids, scores, targets, masks, groups = [], [], [], [], []
    questions: Dict[Tuple[int, int, int], int] = {}
    first_rows: Dict[Tuple[int, int, int], int] = {}
    for side, block in ((0, data["head"]), (1, data["tail"])):
        for i, (h, r, t) in enumerate(test):
            mask = numpy.zeros(n_entities, dtype=bool)
            if side == 0:  # (?, r, t): other known heads
                mask[known[(known[:, 1] == r) & (known[:, 2] == t)][:, 0]] = True
                target, key = h, (0, r, t)
            else:  # (h, r, ?): other known tails
                mask[known[(known[:, 0] == h) & (known[:, 1] == r)][:, 2]] = True
                target, key = t, (1, h, r)
            mask[target] = False
            # As the dense path: test triples sharing a question use the first one's row.
            first = first_rows.setdefault(key, i)
            ids.append(side * n + i)
            scores.append(block[first])
            targets.append(target)
            masks.append(mask)
            groups.append(questions.setdefault(key, len(questions)))
    return tuple(numpy.array(x) for x in (ids, scores, targets, masks, groups))


def worker(args: Tuple[str, int, Dict[str, numpy.ndarray]]) -> bytes:
    """One worker: its shard of every row (columns) or its rows, counted into an accumulator."""
    mode, index, data = args
    ids, scores, targets, masks, groups = rows_of(data)
    accumulator = kgeval.kgc.RankAccumulator()
    if mode == "columns":
        columns = numpy.array_split(numpy.arange(scores.shape[1]), WORKERS)[index]
        first, last = columns[0], columns[-1] + 1
        inside = (targets >= first) & (targets < last)
        accumulator.add_scores(
            ids,
            scores[:, first:last],
            numpy.where(inside, targets - first, -1),  # -1: the answer's column is elsewhere
            target_scores=scores[numpy.arange(len(ids)), targets],
            filter_mask=masks[:, first:last],
            groups=groups,
        )
    else:
        rows = numpy.array_split(numpy.arange(len(ids)), WORKERS)[index]
        accumulator.add_scores(ids[rows], scores[rows], targets[rows], filter_mask=masks[rows], groups=groups[rows])
    return accumulator.to_bytes()


def sharded(data: Dict[str, numpy.ndarray], mode: str) -> Dict[str, Dict[str, float]]:
    """Four processes, one shard each; their accumulators merged in the parent."""
    with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
        parts: List[bytes] = pool.map(worker, [(mode, i, data) for i in range(WORKERS)])
    merged = kgeval.kgc.RankAccumulator.merge_all(kgeval.kgc.RankAccumulator.from_bytes(p) for p in parts)
    return merged.finalize()


def dense(data: Dict[str, numpy.ndarray]) -> "kgeval.kgc.MappedResult":
    """The whole matrix, evaluated at once (PyKEEN's filtered setting)."""
    return kgeval.kgc.evaluate(
        test=data["test"],
        filters=[data["train"]],
        head_scores=data["head"],
        tail_scores=data["tail"],
        num_entities=int(data["n_entities"]),
        num_relations=4,
    )


# kgeval's names of PyKEEN's keys in MappedResult (micro, both sides).
PAIRS = {
    "micro_mr": "arithmetic_mean_rank",
    "micro_mrr": "inverse_harmonic_mean_rank",
    "micro_hits@1": "hits_at_1",
    "micro_hits@10": "hits_at_10",
}


def largest_difference(merged: Dict[str, Dict[str, float]], whole: "kgeval.kgc.MappedResult") -> float:
    """The largest |sharded − dense| over the micro metrics of every rank type."""
    flat = whole.to_flat_dict()
    return max(
        abs(merged[policy][ours] - flat[f"both.{policy}.{theirs}"])
        for policy in ("optimistic", "pessimistic", "realistic")
        for ours, theirs in PAIRS.items()
    )


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "columns"
    data = make_data()
    merged = sharded(data, mode)
    difference = largest_difference(merged, dense(data))
    print(f"{WORKERS} workers, {mode} shards: realistic MRR {merged['realistic']['micro_mrr']:.6f}, "
          f"expected MRR {merged['expected']['micro_mrr']:.6f}; largest difference from the dense path {difference:.1e}")
    assert difference < 1e-12, difference


if __name__ == "__main__":
    main()
