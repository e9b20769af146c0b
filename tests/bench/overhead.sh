#!/usr/bin/env bash
# Profiler overhead, measured side by side in one run: each workload runs N times without and N
# times with libsxsprof.so, interleaved (plain, profiled, plain, ...) so machine noise hits both
# alike. Reports medians of wall time and of peak RSS, and their ratios, and rewrites the results
# section of docs/PERFORMANCE.md.
#
# Usage: tests/bench/overhead.sh [RUNS]        (default 11; run tests/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
runs=${1:-11}
apps=build/apps
lib=$root/build/lib/libsxsprof.so
runtimes=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}
timebin=/usr/bin/time
[[ -x $timebin ]] || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
[[ -f $lib ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median of numbers on stdin
median() { bench_median 3; }

# one run: prints "<seconds> <maxrss_kb>"
measure() {
    local profiled=$1; shift
    local envs=(env -u CORECLR_ENABLE_PROFILING -u SXSPROF_CONFIG DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1)
    if [[ $profiled == 1 ]]; then
        envs=(env -u SXSPROF_CONFIG DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 CORECLR_ENABLE_PROFILING=1
              "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"
              "CORECLR_PROFILER_PATH=$lib" "SXSPROF_OUTPUT=$tmp/prof")
    fi
    local t0 t1
    t0=$(date +%s%N)
    "$timebin" -f "%M" -o "$tmp/t" "${envs[@]}" CLR_ICU_VERSION_OVERRIDE=72 "$@" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; echo "bench: workload failed: $*" >&2; exit 1; }
    t1=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000 )) $(tail -n 1 "$tmp/t")"
}

results=()
bench() {
    local name=$1; shift
    : >"$tmp/plain"; : >"$tmp/prof"
    measure 0 "$@" >/dev/null   # warm the page cache
    for ((i = 0; i < runs; i++)); do
        measure 0 "$@" >>"$tmp/plain"
        measure 1 "$@" >>"$tmp/prof"
    done
    local tp tq mp mq
    tp=$(cut -d' ' -f1 "$tmp/plain" | median); tq=$(cut -d' ' -f1 "$tmp/prof" | median)
    mp=$(cut -d' ' -f2 "$tmp/plain" | median); mq=$(cut -d' ' -f2 "$tmp/prof" | median)
    local line
    line=$(awk -v n="$name" -v tp="$tp" -v tq="$tq" -v mp="$mp" -v mq="$mq" 'BEGIN {
        printf "| %s | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f |", n, tp/1000, tq/1000, tq/tp, mp/1024, mq/1024, mq/mp }')
    echo "$line"
    results+=("$line")
}

echo "bench: $runs runs each, interleaved"
bench "Demo (10.0, ~0.5 s of work)" dotnet $apps/Demo/Demo.dll
bench "Counts: 200000 exceptions, 20 GCs, 8 threads (10.0)" dotnet $apps/Counts/Counts.dll 200000 20 8
bench "ExitCode (10.0, startup only)" dotnet $apps/ExitCode/ExitCode.dll 0
bench "Demo (2.0.0)" "$runtimes/dotnet" $apps/Demo/Demo.dll
if [[ -f build/real/hello/hello.csproj ]]; then
    # Startup-heavy: the build host and the compiler each load the profiler and name every
    # function they JIT-compile or take precompiled (tens of thousands).
    bench "dotnet build of a console project (build host + compiler)" dotnet build build/real/hello/hello.csproj \
        --no-restore --no-incremental -nodeReuse:false -p:UseSharedCompilation=false
fi
if [[ -x build/bin/runsxs ]]; then
    bench "runsxs: Demo on 10.0 + Demo on 2.0.0, concurrent" build/bin/runsxs 10.0 $apps/Demo/Demo.dll "" 2.0.0 $apps/Demo/Demo.dll ""
fi

doc=docs/PERFORMANCE.md
{
    sed '/^<!-- results -->/,$d' "$doc"
    echo "<!-- results -->"
    echo
    echo "Command: \`tests/bench/overhead.sh $runs\` on $(nproc) cores, $(date -u +%Y-%m-%d)."
    echo "Medians of $runs interleaved runs each; ratio = profiled / plain."
    echo
    echo "| workload | wall plain (ms) | wall profiled (ms) | wall ratio | peak RSS plain (MiB) | peak RSS profiled (MiB) | RSS ratio |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${results[@]}"
} >"$tmp/doc"
cp "$tmp/doc" "$doc"
echo "bench: results written to $doc"
