#!/usr/bin/env bash
# Call tracing's cost per call, side by side in one run: the CallBench app (50 million calls of
# a trivial non-inlined method, timed by the app around the loop only) under every configuration,
# interleaved round by round (plain, loaded, hooks=empty, ... plain, loaded, ...) so that machine
# noise hits all alike. Reports the median ns per call of each, the cost over hooks=empty and over
# no profiler, memory per traced function, and rewrites the call-tracing section of
# docs/PERFORMANCE.md.
#
# Usage: tests/bench/tracing.sh [ROUNDS]        (default 9; run tests/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
rounds=${1:-9}
lib=$root/build/lib/libsxsprof.so
bench=build/apps/CallBench/CallBench.dll
tracing_app=build/apps/Tracing/Tracing.dll
exitcode=build/apps/ExitCode/ExitCode.dll
[[ -f $lib && -f $bench ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { bench_median 3; }

# config NAME BODY: a config file for one configuration
config() { printf '[profiler]\noutput=%s/prof-%s\nflush=0\n%s' "$tmp" "$1" "$2" >"$tmp/$1.conf"; }
config loaded ''
config empty $'[tracing]\nenabled=true\nhooks=empty\n'
config notiming $'[tracing]\nenabled=true\ntiming=off\n'
config mapper2 $'[tracing]\nenabled=true\n'
config closure $'[tracing]\nenabled=true\nrouting=closure\n'
config slow $'[tracing]\nenabled=true\npath=slow\n'

profiled() {
    local name=$1; shift
    env -u SXSPROF_OUTPUT CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}" \
        "CORECLR_PROFILER_PATH=$lib" "SXSPROF_CONFIG=$tmp/$name.conf" "$@"
}
plain() { env -u CORECLR_ENABLE_PROFILING "$@"; }

# ns per call that CallBench printed (runtime 1's when several ran)
ns_of() { grep -o 'ns_per_call=[0-9.]*' | head -n 1 | cut -d= -f2; }

configs=(plain loaded empty notiming mapper2 closure slow runsxs1 runsxs2)
labels=("no profiler" "sxsprof loaded, tracing off" "hooks=empty (probes only)" \
        "tracing, timing=off (counts and call tree)" "full tracing, routing=mapper2" \
        "full tracing, routing=closure" "full tracing, path=slow (the runtime's stubs)" \
        "full tracing, 1 runtime under runsxs" \
        "full tracing, 2 runtimes in the process (runsxs 10.0 + 10.0 copy)")
run_one() {
    case $1 in
        plain) plain dotnet "$bench" ;;
        loaded|empty|notiming|mapper2|closure|slow) profiled "$1" dotnet "$bench" ;;
        runsxs1) profiled mapper2 build/bin/runsxs 10.0 "$bench" "" ;;
        runsxs2) profiled mapper2 build/bin/runsxs 10.0 "$bench" "" 10.0 "$exitcode" "0" ;;
    esac
}

echo "bench: $rounds rounds, each configuration once per round"
dotnet "$bench" 1000 >/dev/null  # warm the page cache
for ((r = 0; r < rounds; r++)); do
    for c in "${configs[@]}"; do
        out=$(run_one "$c" 2>"$tmp/err") || { cat "$tmp/err" >&2; echo "bench: $c failed" >&2; exit 1; }
        echo "$out" | ns_of >>"$tmp/$c"
    done
done

declare -A med
for c in "${configs[@]}"; do med[$c]=$(median <"$tmp/$c"); done

# Memory: peak RSS of the Tracing app ("all") without tracing, with hooks=empty (the runtime's
# own share: ENTERLEAVE makes it JIT what it would otherwise take precompiled, and the function
# table) and with full tracing (plus every thread's shadow stack and call tree pages).
rss() {
    local name=$1; shift
    /usr/bin/time -f %M -o "$tmp/rss" env -u SXSPROF_OUTPUT CORECLR_ENABLE_PROFILING=1 \
        "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}" "CORECLR_PROFILER_PATH=$lib" \
        "SXSPROF_CONFIG=$tmp/$name.conf" dotnet "$tracing_app" all >/dev/null 2>&1
    tail -n 1 "$tmp/rss"
}
rss_loaded=$(for i in 1 2 3; do rss loaded; done | median)
rss_empty=$(for i in 1 2 3; do rss empty; done | median)
rss_full=$(for i in 1 2 3; do rss mapper2; done | median)
mapped=$(grep -o '"functions_mapped": [0-9]*' "$tmp/prof-mapper2.json" | head -n 1 | grep -o '[0-9]*$')
per_fn=$(awk -v a="$rss_loaded" -v b="$rss_full" -v n="$mapped" 'BEGIN { printf "%.0f", (b - a) * 1024 / n }')
empty_mib=$(awk -v a="$rss_loaded" -v b="$rss_empty" 'BEGIN { printf "%+.1f", (b - a) / 1024 }')
full_mib=$(awk -v a="$rss_empty" -v b="$rss_full" 'BEGIN { printf "%.1f", (b - a) / 1024 }')
paths=$(grep -c '"parent":' "$tmp/prof-mapper2.json")

rows=()
for i in "${!configs[@]}"; do
    c=${configs[$i]}
    rows+=("$(awk -v l="${labels[$i]}" -v v="${med[$c]}" -v p="${med[plain]}" -v e="${med[empty]}" 'BEGIN {
        printf "| %s | %.2f | %+.2f | %+.2f |", l, v, v - p, v - e }')")
done
printf '%s\n' "${rows[@]}"
echo "memory: peak RSS $rss_loaded KiB without tracing, $rss_empty KiB with hooks=empty, $rss_full KiB traced; $mapped functions mapped"

doc=docs/PERFORMANCE.md
begin='<!-- tracing results -->'
end='<!-- end tracing results -->'
{
    echo "$begin"
    echo
    echo "Command: \`tests/bench/tracing.sh $rounds\` on $(nproc) cores, $(date -u +%Y-%m-%d)."
    echo "Median ns per call of CallBench's trivial method (50 million calls, timed by the app"
    echo "around its loop) over $rounds interleaved rounds."
    echo
    echo "| configuration | ns per call | over no profiler | over hooks=empty |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Memory (the Tracing app, \`all\`, median peak RSS of 3 runs): $rss_loaded KiB without tracing,"
    echo "$rss_empty KiB with hooks=empty, $rss_full KiB with full tracing; $mapped functions mapped, so"
    echo "about $per_fn bytes of peak RSS per traced function, all included. The profiler's own part"
    echo "is a 40-byte table entry and a 48-byte index entry per function, a 40-byte call-tree node"
    echo "per distinct call path per thread, and a shadow stack per thread that calls traced code"
    echo "(mapped at 2.7 MiB with the tree, touched only as deep as the stack and as wide as the tree"
    echo "go). hooks=empty already includes the table and the runtime JIT-compiling what it would"
    echo "otherwise take precompiled (ReadyToRun is off under ENTERLEAVE): $empty_mib MiB. The further"
    echo "+$full_mib MiB of full tracing are the threads' stacks and trees and, at exit, the profile's call"
    echo "tree ($paths call paths for this app) copied and rendered to JSON."
    echo
    echo "$end"
} >"$tmp/section"
bench_write_section "$doc" "$begin" "$end" "$tmp/section" "$tmp"
