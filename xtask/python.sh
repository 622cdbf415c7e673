#!/usr/bin/env bash
# The Python package's checks (issue 16): creates or reuses .venv, installs maturin, pytest and
# the pinned peers (pytrec_eval, ranx, pandas, pyarrow, polars, duckdb, pyspark), builds crates/kgeval-py's wheel once
# (`maturin build --release` into target/wheels, abi3 for CPython >= 3.9), installs that wheel
# into .venv and runs the pytest suite, then installs the same wheel into a brand-new venv
# (numpy comes as its declared dependency) and runs docs/python.md's examples there.
# Prints how long each step took. `.ci/run` calls it; run it alone from the repository root.
# KGEVAL_PY_PROFILE=dev builds without optimisations (faster to build, slower to run).
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
step_started=$started
step() {
  local now
  now=$(date +%s)
  if [ -n "${step_name:-}" ]; then
    echo "-- ${step_name}: $((now - step_started)) s"
  fi
  step_name="$1"
  step_started=$now
  echo "== python: $1"
}

step "venv and pinned tools"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
py=.venv/bin/python
$py -c "import maturin" 2>/dev/null || $py -m pip install --quiet "maturin==1.16.0"
$py -c "import pytest" 2>/dev/null || $py -m pip install --quiet "pytest==9.2.0"
$py -c "import numpy" 2>/dev/null || $py -m pip install --quiet numpy
$py -c "import pandas" 2>/dev/null || $py -m pip install --quiet pandas
$py -c "import pytrec_eval" 2>/dev/null || $py -m pip install --quiet "pytrec-eval-terrier==0.5.11"
$py -c "import ranx" 2>/dev/null || $py -m pip install --quiet "ranx==0.3.21"
# Arrow in and out (issue 30): the producers kgeval reads through __arrow_c_stream__.
$py -c "import pyarrow" 2>/dev/null || $py -m pip install --quiet "pyarrow==26.0.1"
$py -c "import polars" 2>/dev/null || $py -m pip install --quiet "polars==2.1.0"
$py -c "import duckdb" 2>/dev/null || $py -m pip install --quiet "duckdb==2.0.1"
# kgeval.spark's tests (Spark local mode; a Java runtime too): .ci/run builds the wheel in the
# background into KGEVAL_SPARK_WHEELS; without it pip fetches it.
$py -c "import pyspark" 2>/dev/null \
  || $py -m pip install --quiet ${KGEVAL_SPARK_WHEELS:+--find-links "$KGEVAL_SPARK_WHEELS"} "pyspark==4.0.1"

step "build the wheel once (maturin build) and install it into .venv"
release=--release
if [ "${KGEVAL_PY_PROFILE:-release}" = dev ]; then
  release=
fi
rm -f target/wheels/kgeval-*.whl
(
  cd crates/kgeval-py
  VIRTUAL_ENV="$PWD/../../.venv" PATH="$PWD/../../.venv/bin:$PATH" \
    ../../.venv/bin/maturin build --locked $release --quiet --interpreter ../../.venv/bin/python \
    --out ../../target/wheels
)
wheel=$(ls target/wheels/kgeval-*.whl)
$py -m pip install --quiet --force-reinstall --no-deps "$wheel"
$py -c "import kgeval; print('kgeval', kgeval.__version__, 'from', kgeval.__file__)"

step "pytest crates/kgeval-py/tests (the Spark tests apart)"
$py -m pytest -q crates/kgeval-py/tests --ignore=crates/kgeval-py/tests/test_spark.py

step "pytest test_spark.py: kgeval.spark in Spark's local[2], docs/spark.md"
# Skips with the reason when pyspark or Java is missing, unless KGEVAL_REQUIRE_SPARK=1.
$py -m pytest -q -rs crates/kgeval-py/tests/test_spark.py

step "fresh venv: the same wheel, its declared dependencies, the README's and docs/python.md's examples"
# A brand-new venv (no numpy preinstalled): pip installs the wheel with its dependencies,
# then every ```python block of docs/python.md runs there (crates/kgeval-py/tests/docs_blocks.py).
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
python3 -m venv "$fresh/venv"
"$fresh/venv/bin/python" -c "import numpy" 2>/dev/null && { echo "fresh venv already has numpy"; exit 1; }
"$fresh/venv/bin/python" -m pip install --quiet "$wheel"
"$fresh/venv/bin/python" crates/kgeval-py/tests/docs_blocks.py README.md
"$fresh/venv/bin/python" crates/kgeval-py/tests/docs_blocks.py docs/python.md

now=$(date +%s)
echo "-- ${step_name}: $((now - step_started)) s"
echo "== python: total $((now - started)) s"
