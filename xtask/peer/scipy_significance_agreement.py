#!/usr/bin/env python3
"""kgeval-meta's paired t and Wilcoxon signed-rank tests against scipy (1.17.1).

Usage: scipy_significance_agreement.py SIGNIFICANCE_CASES_BINARY [--tables N] [--seed S]

Generates N seeded score tables (2 to 5 systems, 2 to 80 items; continuous scores, scores on a
coarse grid (ties), 0/1 scores, copied systems (all-zero differences) and shifted copies
(constant differences); small n so that Wilcoxon's exact, permutation and normal paths are all
taken), sends every system pair to `kgeval-meta/examples/significance_cases` and compares with
`scipy.stats.ttest_rel(x, y)` and `scipy.stats.wilcoxon(x, y)` (defaults): statistic and p-value
to 1e-10 (|a - b| <= 1e-10 max(1, |b|)). Documented differences: where scipy returns NaN
(differences of zero variance and zero mean for t; all differences zero with n > 13 for
Wilcoxon) kgeval returns t = 0, p = 1 and p = 1: checked, counted, not failures. Where
differences are equal only up to float rounding (within 1e-12 of the pair's largest score
magnitude: shifted copies), kgeval takes them as equal (`EQUAL_TOLERANCE`): the t test has zero
variance (t = ±inf, p = 0; t = 0, p = 1 at zero mean) and Wilcoxon sees the ties and zeros;
those are checked against scipy on the snapped differences and counted as documented.
Prints one summary line; exits 1 on any disagreement, printing the first few.
"""

import json
import math
import random
import subprocess
import sys
import warnings

import numpy as np
import scipy
from scipy import stats

TOLERANCE = 1e-10
EQUAL_TOLERANCE = 1e-12


def snapped(x, y):
    """kgeval's snapping of the differences x - y (significance.rs `snap_differences`): sorted
    by magnitude, each run within the tolerance of its first magnitude takes that magnitude
    (signs kept); a run starting within the tolerance of 0 becomes 0."""
    tol = EQUAL_TOLERANCE * max(float(np.abs(x).max()), float(np.abs(y).max()))
    d = (x - y).tolist()
    out = list(d)
    order = sorted(range(len(d)), key=lambda i: abs(d[i]))
    start = 0
    while start < len(order):
        first = abs(d[order[start]])
        value = 0.0 if first <= tol else first
        end = start
        while end < len(order) and abs(d[order[end]]) - first <= tol:
            i = order[end]
            out[i] = math.copysign(value, d[i]) if value else 0.0
            end += 1
        start = end
    return np.array(out), out != d


def make_table(rng: random.Random):
    k = rng.randint(2, 5)
    n = rng.choice([rng.randint(2, 13), rng.randint(2, 13), rng.randint(14, 50), rng.randint(51, 80)])
    kind = rng.choice(["continuous", "grid", "binary", "mixed"])
    systems = []
    for s in range(k):
        if s > 0 and rng.random() < 0.15:
            systems.append(list(systems[-1]))  # identical: all differences zero
            continue
        if s > 0 and rng.random() < 0.1:
            shift = rng.choice([0.25, -0.5, 0.125])
            systems.append([v + shift for v in systems[-1]])  # constant difference
            continue
        if kind == "continuous":
            col = [rng.random() for _ in range(n)]
        elif kind == "grid":
            col = [rng.randint(0, 8) / 8 for _ in range(n)]
        elif kind == "binary":
            col = [float(rng.random() < 0.4 + 0.1 * s) for _ in range(n)]
        else:
            col = [rng.choice([0.0, 1.0, 0.5, rng.random()]) for _ in range(n)]
        systems.append(col)
    return systems


def value(v):
    """A number of the example's output ("inf", "-inf", "nan" arrive as strings)."""
    return float(v)


def close(ours, theirs):
    if math.isinf(theirs) or math.isinf(ours):
        return ours == theirs
    return abs(ours - theirs) <= TOLERANCE * max(1.0, abs(theirs))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    binary = args[0]
    tables = int(args[args.index("--tables") + 1]) if "--tables" in args else 250
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 14
    rng = random.Random(seed)
    cases = []
    for _ in range(tables):
        table = make_table(rng)
        for a in range(len(table)):
            for b in range(a + 1, len(table)):
                cases.append({"x": table[a], "y": table[b]})
    out = subprocess.run([binary], input=json.dumps(cases), capture_output=True, text=True, check=True)
    results = [json.loads(line) for line in out.stdout.splitlines()]
    if len(results) != len(cases):
        sys.exit(f"expected {len(cases)} results, got {len(results)}")
    failures, documented = [], 0
    methods = {"exact": 0, "permutation": 0, "normal": 0}
    max_dt = max_dw = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case, ours in zip(cases, results):
            x, y = np.array(case["x"]), np.array(case["y"])
            if "error" in ours:
                failures.append(f"n={len(x)}: kgeval error {ours['error']}")
                continue
            t = stats.ttest_rel(x, y)
            w = stats.wilcoxon(x, y)
            methods[ours["w_method"]] += 1
            ot, otp, ow, owp = (value(ours[k]) for k in ("t", "t_p", "w", "w_p"))
            d, changed = snapped(x, y)
            if changed:
                documented += 2
                if np.all(d == d[0]):
                    expected_t = (0.0, 1.0) if d[0] == 0.0 else (math.copysign(math.inf, d[0]), 0.0)
                else:
                    one = stats.ttest_1samp(d, 0.0)
                    expected_t = (float(one.statistic), float(one.pvalue))
                if not (close(ot, expected_t[0]) and close(otp, expected_t[1])):
                    failures.append(f"t n={len(x)} (snapped): kgeval {ot} {otp}, expected {expected_t}")
                ws = stats.wilcoxon(d) if np.any(d != 0.0) else None
                expected_w = 1.0 if ws is None or math.isnan(ws.pvalue) else float(ws.pvalue)
                if not close(owp, expected_w):
                    failures.append(f"wilcoxon n={len(x)} (snapped): kgeval p={owp}, expected {expected_w}")
                continue
            if math.isnan(t.pvalue):
                documented += 1
                if not (ot == 0.0 and otp == 1.0):
                    failures.append(f"t n={len(x)}: scipy NaN, kgeval t={ot} p={otp} (expected 0, 1)")
            elif not (close(ot, float(t.statistic)) and close(otp, float(t.pvalue))):
                failures.append(f"t n={len(x)} x={x.tolist()} y={y.tolist()}: kgeval {ot} {otp}, scipy {t.statistic} {t.pvalue}")
            else:
                max_dt = max(max_dt, abs(otp - float(t.pvalue)))
            if math.isnan(w.pvalue):
                documented += 1
                if owp != 1.0:
                    failures.append(f"wilcoxon n={len(x)}: scipy NaN, kgeval p={owp} (expected 1)")
            elif not (close(ow, float(w.statistic)) and close(owp, float(w.pvalue))):
                failures.append(
                    f"wilcoxon n={len(x)} ({ours['w_method']}) d={(x - y).tolist()}: kgeval {ow} {owp}, scipy {w.statistic} {w.pvalue}"
                )
            else:
                max_dw = max(max_dw, abs(owp - float(w.pvalue)))
    print(
        f"scipy {scipy.__version__} agreement: {tables} tables, {len(cases)} pairs; ttest_rel and wilcoxon "
        f"within {TOLERANCE:g}: {len(cases) * 2 - len(failures) - documented} of {len(cases) * 2} "
        f"(max |dp| t {max_dt:.1e}, wilcoxon {max_dw:.1e}); wilcoxon paths exact {methods['exact']}, "
        f"permutation {methods['permutation']}, normal {methods['normal']}; documented (NaN, equal up to rounding) "
        f"{documented}; disagreements {len(failures)}"
    )
    for f in failures[:5]:
        print("  " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
