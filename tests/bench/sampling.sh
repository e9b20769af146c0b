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
s = json.load(open(sys.argv[1]))["samples"]
total = sum(x["count"] for x in s["stacks"])
hot = sum(x["count"] for x in s["stacks"] if x["frames"] and x["frames"][0]["name"] == "Hot.Spin")
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

# One capture of a deep mixed stack: two runtimes, ten bridge levels, the innermost throwing.
SXS_DEEP_THROWS=1500000 profiled deep build/bin/runsxs 10.0 "$deep" "deep 1 2 10" 10.0 "$deep" "" >/dev/null
read -r taken frames capture resolve < <(python3 - "$tmp/prof-deep.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["samples"]
t = s["taken"]
print(t, s["frames"] / t, s["capture_ns"] / t, s["resolve_ns"] / t)
PY
)

rows=()
for i in "${!configs[@]}"; do
    c=${configs[$i]}
    sh=-
    case $c in sig*|sus*|perf*) sh="$(share "$c") %" ;; esac
    rows+=("$(awk -v l="${labels[$i]}" -v v="${med[$c]}" -v p="${med[plain]}" -v s="$sh" 'BEGIN {
        printf "| %s | %.2f | %+.1f %% | %s |", l, v, 100 * (v - p) / p, s }')")
done
printf '%s\n' "${rows[@]}"
capture_us=$(awk -v v="$capture" 'BEGIN { printf "%.2f", v / 1000 }')
resolve_us=$(awk -v v="$resolve" 'BEGIN { printf "%.2f", v / 1000 }')
frames_r=$(awk -v v="$frames" 'BEGIN { printf "%.0f", v }')
echo "deep stack: $taken captures of $frames_r frames: capture $capture_us us, resolution $resolve_us us"

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
    echo "One capture in the signal handler of a $frames_r-frame stack (two runtimes under runsxs,"
    echo "SxsStitch \`deep 1 2 10\` sampled at 999 Hz, mean of $taken captures): **$capture_us µs**;"
    echo "its resolution on the sampler thread (classification through the owners cache, the"
    echo "aggregation lookup, naming when the stack is new): $resolve_us µs."
    echo
    echo "$end"
} >"$tmp/section"
bench_write_section "$doc" "$begin" "$end" "$tmp/section" "$tmp"
