#!/usr/bin/env bash
# Builds and runs every fuzz target (or one) for N seconds each; fails on the first crash.
# Usage: xtask/fuzz.sh [--seconds N] [--target T] [--max-len BYTES] [--runs N] [--sanitizer S]
#                      [--build-only]
# (needs `cargo +nightly` and cargo-fuzz). --runs stops a target after N executions (or N
# seconds, whichever comes first); --sanitizer is cargo-fuzz's (address by default; `none` runs
# the safe-Rust targets about 8x faster: the 10^7-execution campaign in docs/PERFORMANCE.md).
# Each target prints libFuzzer's final stats (stat::number_of_executed_units is the execution count).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=20 target="" max_len="" runs="" sanitizer=address build_only=""
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --target) target=$2; shift 2 ;;
        --max-len) max_len=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --sanitizer) sanitizer=$2; shift 2 ;;
        --build-only) build_only=1; shift ;;
        *) echo "usage: xtask/fuzz.sh [--seconds N] [--target T] [--max-len BYTES] [--runs N] [--sanitizer S] [--build-only]" >&2; exit 2 ;;
    esac
done
cd "$root/fuzz"
# One target directory per sanitizer: switching rebuilds everything otherwise.
suffix=""
[ "$sanitizer" = address ] || suffix="-$sanitizer"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/fuzz$suffix}"
"$root/fuzz/seed.sh"
cargo +nightly fuzz build -O -s "$sanitizer"
# --build-only: .ci/run builds the targets in the background while its peer checks run.
[ -z "$build_only" ] || exit 0
targets=$target
[ -n "$targets" ] || targets=$(cargo +nightly fuzz list)
for t in $targets; do
    echo "== fuzz $t for ${seconds}s"
    # -rss_limit_mb catches runaway allocation, -timeout catches hangs (10 s per input).
    cargo +nightly fuzz run -O -s "$sanitizer" "$t" "corpus/$t" -- -max_total_time="$seconds" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 ${max_len:+-max_len="$max_len"} ${runs:+-runs="$runs"}
done
