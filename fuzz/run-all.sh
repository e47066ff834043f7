#!/usr/bin/env bash
# Runs every cargo-fuzz target of rigweb for N seconds each (default 60), one after
# the other in a single libFuzzer process (one core), and prints per-target
# executions, exec/s, coverage and any crash.
#
#   fuzz/run-all.sh [SECONDS] [extra libFuzzer args...]
#   FUZZ_TARGETS="bcd civ_frames" fuzz/run-all.sh 30     # a subset
#   FUZZ_SANITIZER=none fuzz/run-all.sh                  # no ASan
#
# Needs `cargo install cargo-fuzz`. libFuzzer's instrumentation flags are nightly
# features; on the stable toolchain they are unlocked with RUSTC_BOOTSTRAP=1.
# Exit status: 0 when no target crashed, 1 otherwise, 2 when the build failed.
set -u -o pipefail

cd "$(dirname "$0")/.."
secs="${1:-60}"
shift $(($# > 0 ? 1 : 0))
extra=("$@")

export RUSTC_BOOTSTRAP=1
san="${FUZZ_SANITIZER:-address}"
logs=fuzz/target/run-logs
mkdir -p "$logs"

if ! cargo fuzz build --sanitizer "$san" >"$logs/build.log" 2>&1; then
    if [ "$san" = address ]; then
        echo "ASan build failed (see $logs/build.log); falling back to --sanitizer none"
        san=none
        cargo fuzz build --sanitizer none >"$logs/build.log" 2>&1 ||
            { echo "build failed:"; tail -20 "$logs/build.log"; exit 2; }
    else
        echo "build failed:"; tail -20 "$logs/build.log"; exit 2
    fi
fi

targets="${FUZZ_TARGETS:-$(cargo fuzz list)}"
echo "sanitizer: $san, ${secs}s per target, logs in $logs/"
printf '%-16s %12s %9s %6s %7s  %s\n' target executions exec/s cov corpus result
crashed=0
for t in $targets; do
    mkdir -p "fuzz/corpus/$t" "fuzz/seeds/$t"
    log="$logs/$t.log"
    dict=()
    [ -f "fuzz/dicts/$t.dict" ] && dict=(-dict="fuzz/dicts/$t.dict")
    dirs=("fuzz/corpus/$t" "fuzz/seeds/$t")
    [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
    # The first corpus dir receives new inputs; seeds and past crashes are read only.
    cargo fuzz run --sanitizer "$san" "$t" "${dirs[@]}" -- \
        -max_total_time="$secs" -max_len=8192 -timeout=10 -print_final_stats=1 \
        ${dict[@]+"${dict[@]}"} ${extra[@]+"${extra[@]}"} >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$last")
    if [ $rc -eq 0 ]; then
        result=ok
    else
        crashed=1
        result="CRASH (exit $rc)"
    fi
    printf '%-16s %12s %9s %6s %7s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
        "${corp:-?}" "$result"
    if [ $rc -ne 0 ]; then
        grep -E "panicked at|^ERROR:|SUMMARY:|Test unit written to|cargo fuzz run" "$log" |
            head -8 | sed 's/^/    /'
    fi
done
exit $crashed
