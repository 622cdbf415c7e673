#!/usr/bin/env python3
"""Agreement of kgeval's Kendall tau with scipy.stats.kendalltau (scipy 1.17.1).

Usage: scipy_kendall_agreement.py [KENDALL_CASES_BINARY] [--cases N] [--seed S]

Generates N seeded random cases (default 300) plus fixed edge cases, runs kgeval-meta's
`kendall_cases` example on them (the built binary given as the first argument, else
`cargo run -q -p kgeval-meta --example kendall_cases`), and compares tau-b and tau-c with
their p-values (method 'auto') to scipy's to 1e-10 (absolute; NaN must match NaN). Cases:
heavy ties (values from a handful of levels, on one or both sides), small no-tie cases
(n <= 33: the exact p-value path), no-tie cases of 34..3000 (the asymptotic path; n > 33 with
one discordant pair: exact), lengths 0..2 and constant vectors (NaN). Prints a one-line
summary; exits 1 on any disagreement, printing the first few.
"""

import argparse
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


def make_cases(rng: random.Random, n_cases: int):
    cases = []
    for i in range(n_cases):
        kind = i % 4
        if kind == 0:  # ties on both sides
            n = rng.randint(3, 120)
            levels_x, levels_y = rng.randint(2, 6), rng.randint(2, 6)
            x = [float(rng.randrange(levels_x)) for _ in range(n)]
            y = [float(rng.randrange(levels_y)) for _ in range(n)]
        elif kind == 1:  # ties on one side, continuous on the other
            n = rng.randint(3, 200)
            x = [round(rng.uniform(-1, 1), 2) for _ in range(n)]
            y = [rng.gauss(0, 1) for _ in range(n)]
            if rng.random() < 0.5:
                x, y = y, x
        elif kind == 2:  # small, no ties: exact p-values
            n = rng.randint(2, 33)
            x = rng.sample(range(1000), n)
            y = [v + rng.gauss(0, 200) for v in x] if rng.random() < 0.7 else rng.sample(range(1000), n)
            x = [float(v) for v in x]
        else:  # larger, no ties: asymptotic
            n = rng.randint(34, 3000)
            x = [rng.random() for _ in range(n)]
            noise = rng.choice([0.01, 0.3, 3.0])
            y = [v + rng.gauss(0, noise) for v in x]
        cases.append({"x": x, "y": y})
    # Edge cases: n = 0, 1, 2; constant vectors; n > 33 with 0 or 1 discordant pair (exact);
    # perfect (anti-)agreement; a tie between -0.0 and 0.0.
    cases += [
        {"x": [], "y": []},
        {"x": [1.0], "y": [2.0]},
        {"x": [1.0, 2.0], "y": [2.0, 1.0]},
        {"x": [3.0, 3.0, 3.0], "y": [1.0, 2.0, 3.0]},
        {"x": [1.0, 2.0, 3.0], "y": [5.0, 5.0, 5.0]},
        {"x": [float(v) for v in range(50)], "y": [float(v) for v in range(50)]},
        {"x": [float(v) for v in range(50)], "y": [float(v) for v in [1, 0] + list(range(2, 50))]},
        {"x": [float(v) for v in range(40)], "y": [float(-v) for v in range(40)]},
        {"x": [-0.0, 0.0, 1.0, 2.0], "y": [1.0, 2.0, 3.0, 4.0]},
        {"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "y": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]},
    ]
    return cases


def run_kgeval(binary, cases):
    command = [binary] if binary else ["cargo", "run", "-q", "-p", "kgeval-meta", "--example", "kendall_cases"]
    out = subprocess.run(command, input=json.dumps(cases), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def same(ours, theirs):
    theirs = float(theirs)
    if ours is None:
        return math.isnan(theirs)
    return not math.isnan(theirs) and abs(ours - theirs) <= TOLERANCE


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?")
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = make_cases(rng, args.cases)
    results = run_kgeval(args.binary, cases)
    if len(results) != len(cases):
        print(f"kendall agreement: {len(results)} results for {len(cases)} cases")
        return 1
    failures, methods, ties = [], {}, 0
    for index, (case, ours) in enumerate(zip(cases, results)):
        x, y = np.array(case["x"]), np.array(case["y"])
        if len(set(case["x"])) < len(case["x"]) or len(set(case["y"])) < len(case["y"]):
            ties += 1
        if "error" in ours:
            failures.append((index, "error", ours["error"], None))
            continue
        methods[ours["method"]] = methods.get(ours["method"], 0) + 1
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy warns on n < 2 and constant input
            b = stats.kendalltau(x, y, variant="b") if len(x) else None
            c = stats.kendalltau(x, y, variant="c") if len(x) else None
        expected = {
            "tau_b": b.statistic if b else math.nan,
            "p_b": b.pvalue if b else math.nan,
            "tau_c": c.statistic if c else math.nan,
            "p_c": c.pvalue if c else math.nan,
        }
        for key, want in expected.items():
            if not same(ours[key], want):
                failures.append((index, key, ours[key], float(want)))
    compared = 4 * len(cases)
    print(
        f"kendall agreement with scipy {scipy.__version__}: "
        f"{len(cases)} cases ({ties} with ties; methods {dict(sorted(methods.items()))}), "
        f"{compared} values (tau-b, tau-c, their p-values) to {TOLERANCE:g}: "
        f"{len(failures)} disagreement(s)"
    )
    for index, key, ours, theirs in failures[:10]:
        print(f"  case {index} {key}: kgeval {ours} scipy {theirs}  (n = {len(cases[index]['x'])})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
