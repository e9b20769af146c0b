#!/usr/bin/env bash
# What the event profiles cost, side by side with no profiler and with dotnet-trace collecting the
# same events from the runtime (EventPipe, the file written by the tool's own process), in one run
# interleaved round by round so that machine noise hits all alike. Three workloads of the Profiles
# app (tests/apps/Profiles):
#   alloc       `alloc 150000 150000000`: 150,000 64 KiB arrays and 150 million 32-byte objects
#               (14.6 GB); sxsprof run --alloc (on .NET 10: AllocationSampled and the GC keyword at
#               Informational); dotnet-trace with the same keywords (0x80000000001:4), with the GC
#               keyword at Verbose (0x1:5, where GCAllocationTick is) and with --profile gc-verbose
#   lock        `locks 4 30000 64`: 4 threads take one lock 30,000 times each, yielding while they
#               hold it (tens of thousands of waits); sxsprof run --lock; dotnet-trace with the
#               Contention keyword (0x4000:4)
#   handoff     `contention 3000 1`: 3000 times, the main thread waits for a lock another thread
#               holds for 1 ms: exactly one contention a round, whatever the profiler does to the
#               threads' timing (which moves the churning one's count of waits and its run time);
#               the same three configurations
#   exceptions  `exceptions 150000 150000`: 300,000 exceptions thrown and caught; sxsprof run
#               --exceptions; dotnet-trace with the Exception keyword (0x8000:4)
# sxsprof writes its profile and every view (the default --format all); dotnet-trace a .nettrace
# (events with their managed stacks, and the rundown of method names at the end). Reported: the
# median wall and CPU (user + system, the tool's process included) seconds of each, their ratios
# to no profiler, the events sxsprof recorded and its CPU time per event over no profiler, and the size of dotnet-trace's file. Rewrites the
# event profiles' section of docs/PERFORMANCE.md.
#
# Usage: tests/bench/events.sh [BUILD_DIR] [ROUNDS]      (default: build, 5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
build=${1:-build}
[[ $build = /* ]] || build=$root/$build
rounds=${2:-5}
apps=$build/apps
[[ -f $apps/Profiles/Profiles.dll ]] || apps=$(sed -n 's/^SXS_APPS_DIR:PATH=//p' "$build/CMakeCache.txt")
app=$apps/Profiles/Profiles.dll
sxsprof=$build/bin/sxsprof
[[ -x $sxsprof && -f $app ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }
trace=$(bench_dotnet_trace) || { echo "bench: cannot install dotnet-trace" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

declare -A args=([alloc]="alloc 150000 150000000" [lock]="locks 4 30000 64" [handoff]="contention 3000 1"
                 [exceptions]="exceptions 150000 150000")
declare -A option=([alloc]=--alloc [lock]=--lock [handoff]=--lock [exceptions]=--exceptions)
declare -A providers=([alloc]=Microsoft-Windows-DotNETRuntime:0x1:5 [lock]=Microsoft-Windows-DotNETRuntime:0x4000:4
                      [handoff]=Microsoft-Windows-DotNETRuntime:0x4000:4 [exceptions]=Microsoft-Windows-DotNETRuntime:0x8000:4)
declare -A kind=([alloc]=allocations [lock]=contention [handoff]=contention [exceptions]=exceptions)
workloads=(alloc lock handoff exceptions)
# configurations of a workload: plain, sxsprof, dotnet-trace (providers), and for alloc gc-verbose
configs_of() {
    echo plain sxsprof trace
    [[ $1 == alloc ]] && echo sampled verbose
    return 0
}

# "wall cpu" seconds of a command, its output discarded
measure() {
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$tmp/time"
}
run_one() {
    local w=$1 c=$2
    # shellcheck disable=SC2086 # the app's arguments are words
    case $c in
        plain) measure dotnet "$app" ${args[$w]} ;;
        sxsprof) rm -rf "$tmp/sxs-$w"*; measure "$sxsprof" run -q "${option[$w]}" -o "$tmp/sxs-$w" -- dotnet "$app" ${args[$w]} ;;
        trace) measure "$trace" collect --providers "${providers[$w]}" -o "$tmp/trace-$w.nettrace" -- dotnet "$app" ${args[$w]} ;;
        sampled) measure "$trace" collect --providers Microsoft-Windows-DotNETRuntime:0x80000000001:4 \
                     -o "$tmp/sampled-$w.nettrace" -- dotnet "$app" ${args[$w]} ;;
        verbose) measure "$trace" collect --profile gc-verbose -o "$tmp/verbose-$w.nettrace" -- dotnet "$app" ${args[$w]} ;;
    esac
}
events_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["events"])' "$tmp/sxs-$1.json" "${kind[$1]}"; }

echo "bench: $rounds rounds; dotnet-trace $("$trace" --version | cut -d+ -f1)"
dotnet "$app" exceptions 1 1 >/dev/null
for ((r = 0; r < rounds; r++)); do
    for w in "${workloads[@]}"; do
        for c in $(configs_of "$w"); do
            read -r wall cpu < <(run_one "$w" "$c") || { echo "bench: $w $c failed" >&2; exit 1; }
            echo "$wall" >>"$tmp/wall-$w-$c"
            echo "$cpu" >>"$tmp/cpu-$w-$c"
        done
        events_of "$w" >>"$tmp/events-$w"
        stat -c %s "$tmp/trace-$w.nettrace" >>"$tmp/size-$w-trace"
        if [[ $w == alloc ]]; then
            stat -c %s "$tmp/verbose-$w.nettrace" >>"$tmp/size-$w-verbose"
            stat -c %s "$tmp/sampled-$w.nettrace" >>"$tmp/size-$w-sampled"
        fi
    done
done

label() {
    case $2 in
        plain) echo "no profiler" ;;
        sxsprof) echo "\`sxsprof run -q ${option[$1]}\`" ;;
        trace) echo "\`dotnet-trace collect --providers ${providers[$1]}\`" ;;
        sampled) echo "\`dotnet-trace collect --providers Microsoft-Windows-DotNETRuntime:0x80000000001:4\`" ;;
        verbose) echo "\`dotnet-trace collect --profile gc-verbose\`" ;;
    esac
}
rows=()
for w in "${workloads[@]}"; do
    pw=$(bench_median 3 <"$tmp/wall-$w-plain")
    pc=$(bench_median 3 <"$tmp/cpu-$w-plain")
    for c in $(configs_of "$w"); do
        mw=$(bench_median 3 <"$tmp/wall-$w-$c")
        mc=$(bench_median 3 <"$tmp/cpu-$w-$c")
        case $c in
            sxsprof)
                n=$(bench_median 0 <"$tmp/events-$w")
                what=$(awk -v n="$n" -v mc="$mc" -v pc="$pc" 'BEGIN { printf "%d events, %.1f µs CPU each", n, 1e6 * (mc - pc) / n }') ;;
            trace|sampled|verbose) what="$(awk '{ printf "%.1f MB file", $1 / 1e6 }' < <(bench_median 0 <"$tmp/size-$w-$c"))" ;;
            *) what="" ;;
        esac
        rows+=("$(awk -v w="$w" -v l="$(label "$w" "$c")" -v mw="$mw" -v mc="$mc" -v pw="$pw" -v pc="$pc" -v x="$what" 'BEGIN {
            printf "| %s | %s | %.2f | **%.2f** | %.2f | **%.2f** | %s |", w, l, mw, mw / pw, mc, mc / pc, x }')")
    done
done
printf '%s\n' "${rows[@]}"

doc=docs/PERFORMANCE.md
begin='<!-- events results -->'
end='<!-- end events results -->'
{
    echo "$begin"
    echo
    echo "Command: \`tests/bench/events.sh build $rounds\` on $(nproc) cores, $(date -u +%Y-%m-%d), .NET $(dotnet --list-runtimes |
        sed -n 's/^Microsoft.NETCore.App \([0-9.]*\) .*/\1/p' | tail -1), dotnet-trace $("$trace" --version | cut -d+ -f1)."
    echo "Medians of $rounds interleaved rounds; CPU is user + system of the whole command (the program,"
    echo "and the launcher or dotnet-trace's own process); ratios are to no profiler. sxsprof's CPU per"
    echo "event is its CPU time over no profiler divided by the events it recorded (the launcher, the"
    echo "profiler's start and the views included)."
    echo
    echo "| workload | configuration | wall s | wall ratio | CPU s | CPU ratio | recorded |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "$end"
} >"$tmp/section"
bench_write_section "$doc" "$begin" "$end" "$tmp/section" "$tmp"
