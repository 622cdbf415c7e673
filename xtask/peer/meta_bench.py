#!/usr/bin/env python3
"""Peer timings for `cargo xtask bench meta` on the same score matrix.

Usage: meta_bench.py MATRIX [--iterations B] [--fisher-iterations B2] [--kendall N]

MATRIX: first line `K N`, then one line of K scores per item (kgeval's generated workload).
Times, each after a warm-up call (numba compiles on first use):
- ranx 0.3.21 `compare`'s statistics step (`ranx.statistical_tests.compute_statistical_significance`,
  the call `compare` makes after evaluating the runs) with stat_test="tukey": scipy's
  *parametric* Tukey HSD (`scipy.stats.tukey_hsd`, studentised range, unpaired) -- ranx has no
  randomised Tukey HSD;
- the same with stat_test="student" (paired t, every ordered pair);
- ranx's Fisher randomisation test (numba, parallel, np.random per thread: not reproducible
  across thread counts) on ONE pair at B2 permutations, extrapolated linearly to B and to the
  K(K-1) ordered pairs `compare` tests (it runs each unordered pair twice);
- scipy.stats.kendalltau (tau-b) on two N-long vectors.
Prints report lines `label seconds`.
"""

import sys
import time

import numpy as np
import scipy
from scipy import stats


def line(label, seconds, note=""):
    print(f"{label:<62} {seconds:>10.3f}{note}")


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    flag = lambda name, default: int(args[args.index(name) + 1]) if name in args else default
    iterations = flag("--iterations", 10_000)
    fisher_b = flag("--fisher-iterations", 100)
    n_kendall = flag("--kendall", 1_000_000)
    matrix = np.loadtxt(args[0], skiprows=1)
    k, n = matrix.shape[1], matrix.shape[0]
    from ranx.statistical_tests import compute_statistical_significance
    from ranx.statistical_tests.fisher_randomization_test import fisher_randomization_test

    names = [f"s{s}" for s in range(k)]
    scores = {name: {"score": np.ascontiguousarray(matrix[:, s])} for s, name in enumerate(names)}
    small = {name: {"score": v["score"][:50].copy()} for name, v in scores.items()}
    from importlib.metadata import version

    print(f"peers: ranx {version('ranx')}, numba {version('numba')}, scipy {scipy.__version__}, numpy {np.__version__}")
    for test in ["tukey", "student"]:
        compute_statistical_significance(names, small, stat_test=test)
        start = time.perf_counter()
        compute_statistical_significance(names, scores, stat_test=test)
        label = "ranx compare statistics, tukey (parametric scipy tukey_hsd)" if test == "tukey" else "ranx compare statistics, student (paired t, all pairs)"
        line(label, time.perf_counter() - start)
    a, b = scores[names[0]]["score"], scores[names[1]]["score"]
    fisher_randomization_test(a[:50].copy(), b[:50].copy(), 10, 0.05, 42)
    start = time.perf_counter()
    fisher_randomization_test(a, b, fisher_b, 0.05, 42)
    one = time.perf_counter() - start
    line(f"ranx fisher_randomization_test, 1 pair, B = {fisher_b}", one)
    total = one * iterations / fisher_b * k * (k - 1)
    line(f"  … extrapolated: B = {iterations}, {k * (k - 1)} ordered pairs", total)
    rng = np.random.default_rng(7)
    x = rng.random(n_kendall)
    y = x + rng.random(n_kendall)
    stats.kendalltau(x[:100], y[:100])
    start = time.perf_counter()
    stats.kendalltau(x, y)
    line(f"scipy.stats.kendalltau (tau-b), n = {n_kendall}", time.perf_counter() - start)


if __name__ == "__main__":
    main()
