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
        pkg = unit["pkg_id"].split("#")[-1] if "#" in unit["pkg_id"] else unit["pkg_id"]
        found.add((pkg, tuple(sorted(unit["features"])), unit["profile"]["opt_level"], unit["mode"], tuple(unit["target"]["kind"])))
    return found


def ours(unit):
    name = unit[0]
    return name.startswith("pyo3") or "kgeval-py" in name or name.startswith("kgeval-py")


def main():
    workspace = units(["test", "--workspace", "--no-run"])
    wheel = units(["rustc", "-p", "kgeval-py", "--lib", "--features", "pyo3/extension-module", "--crate-type", "cdylib"])
    missing = sorted(u for u in wheel - workspace if not ours(u))
    for unit in missing:
        print("only in the wheel build:", unit)
    print(f"{len(wheel)} wheel units, {len(workspace)} workspace units, {len(missing)} wheel units not in the workspace build (pyo3 aside)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
