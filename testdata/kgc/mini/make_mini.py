#!/usr/bin/env python3
"""Writes the mini KGC case (PyKEEN's rank fixture as three tail questions), the same scores in
float64 (scores-float64.npy) and the malformed score matrices of ../bad/. Pure Python 3,
deterministic. Run from this directory.

Entities e0..e5, test triples (e5, r_i, answer): r0 → e0, r1 → e2, r2 → e2. The tail rows are
PyKEEN's fixture [[2,2,1,3,5],[1,1,3,4,0],[1,1,3,nan,0]] over e0..e4 with the anchor e5 scored
NaN (under --nan worst: never a candidate), so the tail ranks are optimistic [3,2,1], pessimistic
[4,2,1], realistic [3.5,2,1] among [5,5,4] candidates. The head rows put the answer e5 first.
"""

import pickle
import struct

NAN = float("nan")
QUESTIONS = [("head0", "e0", "r0"), ("head1", "e2", "r1"), ("head2", "e2", "r2"),
             ("tail0", "e5", "r0"), ("tail1", "e5", "r1"), ("tail2", "e5", "r2")]
ROWS = [
    [1, 0, 0, 0, 0, 9],
    [0, 1, 0, 0, 0, 9],
    [0, 0, 1, 0, 0, 9],
    [2, 2, 1, 3, 5, NAN],
    [1, 1, 3, 4, 0, NAN],
    [1, 1, 3, NAN, 0, NAN],
]


def npy(path, rows, descr="<f4", fmt="<f", data=None):
    """A version-1.0 .npy file of `rows` in C order, packed with `fmt`; or the header and `data`."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, len(rows), len(rows[0]))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        if data is not None:
            f.write(data)
            return
        for row in rows:
            f.write(struct.pack(fmt[0] + fmt[1] * len(row), *row))


def main():
    with open("entities.txt", "w") as f:
        f.write("".join(f"e{i}\n" for i in range(6)))
    with open("test.txt", "w") as f:
        f.write("e5\tr0\te0\ne5\tr1\te2\ne5\tr2\te2\n")
    with open("train.txt", "w") as f:
        f.write("e3\tr0\te4\n")
    with open("questions.txt", "w") as f:
        f.write("".join("\t".join(q) + "\n" for q in QUESTIONS))
    npy("scores.npy", ROWS)
    # A run of every finite score (trec_eval order is recomputed by the reader).
    with open("run.txt", "w") as f:
        for (qid, _, _), row in zip(QUESTIONS, ROWS):
            for e, s in enumerate(row):
                if s == s:
                    f.write(f"{qid} Q0 e{e} 0 {float(s)!r} mini\n")
    # The fully filtered counts of the same scores (kgeval's rich rank layout, realistic rank).
    counts = [("e0", "r0", "e5", "head", 0, 1, 6), ("e2", "r1", "e5", "head", 0, 1, 6), ("e2", "r2", "e5", "head", 0, 1, 6),
              ("e5", "r0", "e0", "tail", 2, 2, 5), ("e5", "r1", "e2", "tail", 1, 1, 5), ("e5", "r2", "e2", "tail", 0, 1, 4)]
    with open("ranks.tsv", "w") as f:
        f.write("# filter: train test\nhead\trelation\ttail\tside\trank\tn_greater\tn_equal\tnum_candidates\n")
        for tail, r, head, side, g, e, n in counts:
            h, t = (head, tail) if side == "head" else (tail, head)
            f.write(f"{h}\t{r}\t{t}\t{side}\t{g + (e + 1) / 2!r}\t{g}\t{e}\t{n}\n")
    # Judgments for the run: e1 (a non-answer of tail0) judged Y, e3 N; the pool brought e1 in
    # at depth 2 and e3 at depth 1.
    with open("judgments.txt", "w") as f:
        f.write("e5\tr0\te0\tY\ne5\tr0\te1\tY\ne5\tr0\te3\tN\n")
    with open("pool_depths.txt", "w") as f:
        f.write("e5\tr0\te1\t2\ne5\tr0\te3\t1\n")
    npy("../bad/scores-wrong-shape.npy", ROWS[:5])
    npy("scores-float64.npy", ROWS, descr="<f8", fmt="<d")
    # Element types kgeval does not read: int32, complex128 (real, imaginary pairs), Python
    # objects (numpy pickles an object array after the header).
    integers = [[int(v) if v == v else -1 for v in row] for row in ROWS]
    npy("../bad/scores-int32.npy", integers, descr="<i4", fmt="<i")
    pairs = [v for row in ROWS for x in row for v in (x, 0.0)]
    npy("../bad/scores-complex128.npy", ROWS, descr="<c16", data=struct.pack("<%dd" % len(pairs), *pairs))
    npy("../bad/scores-object.npy", ROWS, descr="|O", data=pickle.dumps(ROWS, protocol=3))


if __name__ == "__main__":
    main()
