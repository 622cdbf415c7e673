#!/usr/bin/env python3
"""Checks that maturin's `-p kgeval-py` build reuses the workspace test build's artifacts:
the units (package id + features + profile + target kind) of
`cargo +nightly rustc -p kgeval-py --lib --features pyo3/extension-module --crate-type cdylib
--unit-graph -Z unstable-options` must all be in `cargo +nightly test --workspace --no-run
--unit-graph -Z unstable-options`, pyo3's own crates and kgeval-py itself aside
(extension-module changes their cfgs). Prints the units that differ; exits 1 if any.

Usage: python3 xtask/unit_graph.py   (from the repository root; needs the nightly toolchain)
"""

import json
import subprocess
import sys


def units(args):
    out = subprocess.run(["cargo", "+nightly", *args, "--unit-graph", "-Z", "unstable-options"], capture_output=True, text=True, check=True)
    graph = json.loads(out.stdout)
    found = set()
    for unit in graph["units"]:
        if unit["mode"] not in ("build", "run-custom-build"):
            continue
        # `registry+…#name@version`, or `path+file:///…/name#version` for our crates.
        source, _, tail = unit["pkg_id"].partition("#")
        pkg = tail if "@" in tail else f"{source.rstrip('/').rsplit('/', 1)[-1]}@{tail}"
        found.add((pkg, tuple(sorted(unit["features"])), unit["profile"]["opt_level"], unit["mode"], tuple(unit["target"]["kind"])))
    return found


def ours(unit):
    name = unit[0]
    return name.startswith("pyo3") or name.startswith("kgeval-py@")


def main():
    workspace = units(["test", "--workspace", "--no-run"])
    wheel = units(["rustc", "-p", "kgeval-py", "--lib", "--features", "pyo3/extension-module", "--crate-type", "cdylib"])
    differing = sorted(wheel - workspace)
    missing = [u for u in differing if not ours(u)]
    for unit in differing:
        print("only in the wheel build:" if unit in missing else "only in the wheel build (expected):", unit)
    print(f"{len(wheel)} wheel units, {len(workspace)} workspace units, {len(missing)} wheel units not in the workspace build (pyo3 aside)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
