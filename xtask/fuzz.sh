#!/usr/bin/env bash
# Builds and runs every fuzz target (or one) for N seconds each; fails on the first crash.
# Usage: xtask/fuzz.sh [--seconds N] [--target T] [--max-len BYTES] [--runs N] [--sanitizer S]
#                      [--jobs J] [--build-only]
# (needs `cargo +nightly` and cargo-fuzz). --runs stops a target after N executions (or N
# seconds, whichever comes first); --sanitizer is cargo-fuzz's (address by default; `none` runs
# the safe-Rust targets about 8x faster: the 10^7-execution campaign in docs/PERFORMANCE.md).
# Each target prints libFuzzer's final stats (stat::number_of_executed_units is the execution count).
# --jobs runs J targets at once (each libFuzzer process is single-threaded; .ci/run passes the
# core count), each into its own log, printed whole when it ends.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=20 target="" max_len="" runs="" sanitizer=address build_only="" jobs=1
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --target) target=$2; shift 2 ;;
        --max-len) max_len=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --sanitizer) sanitizer=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --build-only) build_only=1; shift ;;
        *) echo "usage: xtask/fuzz.sh [--seconds N] [--target T] [--max-len BYTES] [--runs N] [--sanitizer S] [--jobs J] [--build-only]" >&2; exit 2 ;;
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
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
run_one() {
    # -rss_limit_mb catches runaway allocation, -timeout catches hangs (10 s per input).
    cargo +nightly fuzz run -O -s "$sanitizer" "$1" "corpus/$1" -- -max_total_time="$seconds" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 ${max_len:+-max_len="$max_len"} ${runs:+-runs="$runs"}
}
# Waits for the oldest running target, prints its log, fails on its failure.
finish_oldest() {
    local t=${running[0]} pid=${pids[0]} rc=0
    running=("${running[@]:1}") pids=("${pids[@]:1}")
    wait "$pid" || rc=$?
    echo "== fuzz $t for ${seconds}s"
    cat "$logs/$t.log"
    if [ "$rc" != 0 ]; then
        echo "fuzz target $t failed (rc $rc)"
        for other in "${pids[@]}"; do kill "$other" 2>/dev/null || true; done
        exit "$rc"
    fi
}
running=() pids=()
for t in $targets; do
    run_one "$t" > "$logs/$t.log" 2>&1 &
    running+=("$t") pids+=($!)
    [ "${#pids[@]}" -lt "$jobs" ] || finish_oldest
done
while [ "${#pids[@]}" -gt 0 ]; do finish_oldest; done
