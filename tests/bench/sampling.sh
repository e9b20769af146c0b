#!/usr/bin/env bash
# The sampler's cost and accuracy, side by side in one run. A CPU-bound app (SxsSample hotcold:
# Hot.Spin about 90 % of the CPU, Cold.Walk about 10 %, one thread, fixed wall time) is run,
# interleaved round by round, without a profiler, with sxsprof loaded and sampling off, with the
# sampler at 99 Hz and 999 Hz (cpu mode), and under `perf record -g` at 99 Hz and 999 Hz with the
# runtime's perf map (DOTNET_PerfMapEnabled=1; DOTNET_EnableWriteXorExecute=0, without which perf
# cannot attribute .NET code at all). Reported: median user+system CPU seconds and the overhead
# over no profiler, the share of Hot.Spin each profiler saw, and, from a deep two-runtime stack
# (SxsStitch deep, 64 frames), the cost of one signal-handler capture and of its resolution.
# Rewrites the sampling section of docs/PERFORMANCE.md.
#
# Usage: tests/bench/sampling.sh [ROUNDS]        (default 5; run tests/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
rounds=${1:-3}
seconds=12
lib=$root/build/lib/libsxsprof.so
app=build/apps/SxsSample/SxsSample.dll
deep=build/apps/SxsStitch/SxsStitch.dll
[[ -f $lib && -f $app && -f $deep ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench: needs perf" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { bench_median 4; }

config() { printf '[profiler]\noutput=%s/prof-%s\nflush=0\n%s' "$tmp" "$1" "$2" >"$tmp/$1.conf"; }
config loaded ''
config sig99 $'[sampling]\nenabled=true\nfrequency=99\nwalker=signal\n'
config sig999 $'[sampling]\nenabled=true\nfrequency=999\nwalker=signal\n'
config sus99 $'[sampling]\nenabled=true\nfrequency=99\nwalker=suspend\n'
config sus999 $'[sampling]\nenabled=true\nfrequency=999\nwalker=suspend\n'
config deep $'[sampling]\nenabled=true\nfrequency=999\nmode=cpu\nwalker=signal\n'

prof_env=(env -u SXSPROF_OUTPUT CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"
          "CORECLR_PROFILER_PATH=$lib")
profiled() {
    local name=$1; shift
    "${prof_env[@]}" "SXSPROF_CONFIG=$tmp/$name.conf" "$@"
}
# CPU seconds (user + system) of a command, the command's output discarded
cpu_of() {
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time"
}
perf_cmd() {
    perf_argv=(env -u CORECLR_ENABLE_PROFILING DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0
               perf record -q -F "$1" -g -o "$tmp/perf-$1.data" -- dotnet "$app" hotcold "$seconds")
}
# share of Hot.Spin among the samples of a perf.data (by leaf symbol)
perf_share() {
    perf report -i "$1" --stdio --no-children --sort sym 2>/dev/null |
        awk '/%/ && !/^#/ { gsub("%", "", $1); total += $1; if ($0 ~ /Hot::Spin/) hot += $1 }
             END { printf "%.1f\n", total ? 100 * hot / total : 0 }'
}
# share of Hot.Spin among an sxsprof profile's samples
sxs_share() {
    python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s, table = doc["samples"], doc.get("frame_table") or []  # version 2: frames are indices into the table
def leaf(x):
    f = x["frames"][0]
    return (table[f] if isinstance(f, int) else f)["name"]
total = sum(x["count"] for x in s["stacks"])
hot = sum(x["count"] for x in s["stacks"] if x["frames"] and leaf(x) == "Hot.Spin")
print("%.1f" % (100.0 * hot / total if total else 0))
PY
}

configs=(plain loaded sig99 sig999 sus99 sus999 perf99 perf999)
labels=("no profiler" "sxsprof loaded, sampling off" "sxsprof, signal walker, 99 Hz" "sxsprof, signal walker, 999 Hz"
        "sxsprof, suspend walker, 99 Hz" "sxsprof, suspend walker, 999 Hz" "perf record -g, 99 Hz"
        "perf record -g, 999 Hz")
run_one() {
    case $1 in
        plain) cpu_of env -u CORECLR_ENABLE_PROFILING dotnet "$app" hotcold "$seconds" ;;
        loaded|sig99|sig999|sus99|sus999) cpu_of "${prof_env[@]}" "SXSPROF_CONFIG=$tmp/$1.conf" dotnet "$app" hotcold "$seconds" ;;
        perf99) perf_cmd 99; cpu_of "${perf_argv[@]}" ;;
        perf999) perf_cmd 999; cpu_of "${perf_argv[@]}" ;;
    esac
}

echo "bench: $rounds rounds of ${#configs[@]} configurations, ${seconds} s each"
dotnet "$app" hotcold 1 >/dev/null
for ((r = 0; r < rounds; r++)); do
    for c in "${configs[@]}"; do
        run_one "$c" >>"$tmp/$c" || { echo "bench: $c failed" >&2; exit 1; }
    done
    for c in sig99 sig999 sus99 sus999; do sxs_share "$tmp/prof-$c.json" >>"$tmp/share-$c"; done
    perf_share "$tmp/perf-99.data" >>"$tmp/share-perf99"
    perf_share "$tmp/perf-999.data" >>"$tmp/share-perf999"
done
declare -A med
for c in "${configs[@]}"; do med[$c]=$(median <"$tmp/$c"); done
share() { [[ -f $tmp/share-$1 ]] && median <"$tmp/share-$1" || echo "-"; }

# One capture of a deep mixed stack: two runtimes, twelve bridge levels, the innermost spinning
# in managed code (a stack that stays put), then ten levels with the innermost throwing (its leaf
# at ever new instructions of the runtime's exception dispatch, each first seen by the handler).
deep_stats() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["samples"]
t = s["taken"]
print(t, "%.0f" % (s["frames"] / t), "%.2f" % (s["capture_ns_p50"] / 1000), "%.2f" % (s["capture_ns_p90"] / 1000),
      "%.2f" % (s["capture_ns_p99"] / 1000), "%.0f" % (s["capture_ns_max"] / 1000), "%.2f" % (s["capture_ns"] / t / 1000),
      "%.2f" % (s["resolve_ns"] / t / 1000))
PY
}
SXS_DEEP_SPIN_MS=4000 profiled deep build/bin/runsxs 10.0 "$deep" "deep 1 2 12" 10.0 "$deep" "" >/dev/null
read -r spin_taken spin_frames spin_p50 spin_p90 spin_p99 spin_max spin_mean spin_resolve < <(deep_stats "$tmp/prof-deep.json")
SXS_DEEP_THROWS=1500000 profiled deep build/bin/runsxs 10.0 "$deep" "deep 1 2 10" 10.0 "$deep" "" >/dev/null
read -r throw_taken throw_frames throw_p50 throw_p90 throw_p99 throw_max throw_mean throw_resolve < <(deep_stats "$tmp/prof-deep.json")

rows=()
for i in "${!configs[@]}"; do
    c=${configs[$i]}
    sh=-
    case $c in sig*|sus*|perf*) sh="$(share "$c") %" ;; esac
    rows+=("$(awk -v l="${labels[$i]}" -v v="${med[$c]}" -v p="${med[plain]}" -v s="$sh" 'BEGIN {
        printf "| %s | %.2f | %+.1f %% | %s |", l, v, 100 * (v - p) / p, s }')")
done
printf '%s\n' "${rows[@]}"
echo "deep stack, spinning: $spin_taken captures of $spin_frames frames: p50 $spin_p50 us, p90 $spin_p90, p99 $spin_p99, max $spin_max, mean $spin_mean; resolution $spin_resolve us"
echo "deep stack, throwing: $throw_taken captures of $throw_frames frames: p50 $throw_p50 us, p90 $throw_p90, p99 $throw_p99, max $throw_max, mean $throw_mean; resolution $throw_resolve us"

doc=docs/PERFORMANCE.md
begin='<!-- sampling results -->'
end='<!-- end sampling results -->'
{
    echo "$begin"
    echo
    echo "Command: \`tests/bench/sampling.sh $rounds\` on $(nproc) cores, $(date -u +%Y-%m-%d)."
    echo "Median user+system CPU seconds of SxsSample \`hotcold $seconds\` (one thread, CPU-bound for"
    echo "$seconds s) over $rounds interleaved rounds, and the share of samples whose leaf is Hot.Spin"
    echo "(the app measures about 90 %)."
    echo
    echo "| configuration | CPU s | over no profiler | Hot.Spin share |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "One capture in the signal handler, sampled at 999 Hz (two runtimes under runsxs, SxsStitch"
    echo "\`deep\`; quantiles of the last 4096 captures, the mean and the longest of all):"
    echo
    echo "| stack | captures | frames | p50 µs | p90 µs | p99 µs | longest µs | mean µs | resolution µs (mean) |"
    echo "|---|---|---|---|---|---|---|---|---|"
    echo "| 12 levels, the innermost spinning in managed code | $spin_taken | $spin_frames | **$spin_p50** | $spin_p90 | $spin_p99 | $spin_max | $spin_mean | $spin_resolve |"
    echo "| 10 levels, the innermost throwing and catching | $throw_taken | $throw_frames | **$throw_p50** | $throw_p90 | $throw_p99 | $throw_max | $throw_mean | $throw_resolve |"
    echo
    echo "Resolution (on the sampler thread): classification through the owners cache, the aggregation"
    echo "lookup, naming when the stack is new."
    echo
    echo "$end"
} >"$tmp/section"
bench_write_section "$doc" "$begin" "$end" "$tmp/section" "$tmp"
