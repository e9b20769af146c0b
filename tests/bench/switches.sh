#!/usr/bin/env bash
# What the cpu-mode engines cost threads that run in short slices, side by side in one run:
# tests/apps/Threads with pong pairs (two threads that each run a burst of some 20 µs, wake the
# other and wait for it: each comes on a CPU tens of thousands of times a second) beside one
# spinning thread, for a fixed wall time, without a profiler and under `sxsprof run --sample` with
# each engine (auto: counters, and timers for threads in short slices; perf: a counter on every
# thread; timer: the CPU-time timers) at 99 and 999 Hz. Rounds are interleaved. Reported per
# configuration: the bursts the pairs made (their throughput: the machine's 2 cores are all busy,
# so what a profiler takes from them shows as fewer bursts) and its ratio to no profiler, the
# spinning thread's captures per second of its CPU time (the rate asked), and the pong threads'
# share of CPU time sampled by a timer. First, without a runtime (BUILD/tests/bench/sxs_bench_switch):
# two threads bouncing a byte over two pipes, each with nothing, a sampling task-clock counter, a
# counting-only one, or a CPU-time timer: the CPU a round trip takes under each. Rewrites the
# "Threads in short slices" section of docs/PERFORMANCE.md (SXS_BENCH_NO_DOC=1 leaves it alone).
#
# Usage: tests/bench/switches.sh BUILD [ROUNDS]        (default 5; run tests/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
. "$root/tests/bench/lib.sh"
bench_build_rounds "usage: tests/bench/switches.sh BUILD [ROUNDS]" 5 "$@"
seconds=4
sxsprof=$build/bin/sxsprof
app=${SXS_APPS_DIR:-$root/build/apps}/Threads/Threads.dll
switch=$build/tests/bench/sxs_bench_switch
[[ -x $sxsprof && -f $app && -x $switch ]] ||
    { echo "bench: needs $sxsprof, $switch and $app (tests/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

configs=(none auto99 perf99 timer99 auto999 perf999 timer999)
declare -A label=([none]="no profiler")
for c in "${configs[@]:1}"; do
    label[$c]="\`--sample=${c//[a-z]/} --engine ${c//[0-9]/}\`"
done

# The bursts of a run of Threads (its last line's bounces=).
bursts_of() { sed -n 's/.* bounces=\([0-9]*\).*/\1/p' "$1"; }
# "spin_hz pong_timer_percent" of a profile
rates_of() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["samples"]
spin = cpu = timer = 0.0
for r in s.get("thread_rates", []):
    if r["thread"] == "spin-0":
        spin = r["achieved_hz"]
    elif r["thread"].startswith("pong-"):
        cpu += r["cpu_ns"]
        timer += r.get("timer_ns", 0)
print("%.1f %.0f" % (spin, 100.0 * timer / cpu if cpu else 0))
PY
}

modes=(none counter counting timer)
echo "bench: $rounds rounds of ${#modes[@]} modes of sxs_bench_switch, 200000 round trips each"
for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < ${#modes[@]}; k++)); do
        m=${modes[(k + r) % ${#modes[@]}]}
        "$switch" "$m" 200000 99 | tee -a "$tmp/switch-$m" | sed 's/^/bench: raw switch /'
    done
done
{
    echo "| each thread has | CPU µs a round trip (median) | over nothing |"
    echo "|---|---|---|"
    base=$(awk '{ print $2 }' "$tmp/switch-none" | bench_median 3)
    for m in "${modes[@]}"; do
        v=$(awk '{ print $2 }' "$tmp/switch-$m" | bench_median 3)
        echo "| $m | $v | $(awk -v v="$v" -v b="$base" 'BEGIN { printf "%+.2f µs", v - b }') |"
    done
} >"$tmp/switch-table"
cat "$tmp/switch-table"

echo "bench: $rounds rounds of ${#configs[@]} configurations, $seconds s each"
dotnet "$app" 2 1 0.2 20 1 >/dev/null
for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < ${#configs[@]}; k++)); do
        c=${configs[(k + r) % ${#configs[@]}]}
        args=(dotnet "$app" 2 1 "$seconds" 20 1)
        if [[ $c == none ]]; then
            "${args[@]}" >"$tmp/out"
        else
            "$sxsprof" run -q --sample="${c//[a-z]/}" --engine "${c//[0-9]/}" --format json -o "$tmp/p" -- "${args[@]}" \
                >"$tmp/out"
            rates_of "$tmp/p.json" >>"$tmp/rates-$c"
        fi
        b=$(bursts_of "$tmp/out")
        echo "bench: raw round $((r + 1)) $c bursts=$b"
        echo "$b" >>"$tmp/bursts-$c"
    done
done

col() { awk -v c="$2" '{ print $c }' "$1"; }
none=$(bench_median 0 <"$tmp/bursts-none")
{
    echo "| configuration | bursts in ${seconds} s (median) | over no profiler | spin-0's captures per CPU second | pong threads' CPU moved to a timer (auto) |"
    echo "|---|---|---|---|---|"
    for c in "${configs[@]}"; do
        b=$(bench_median 0 <"$tmp/bursts-$c")
        ratio=$(awk -v b="$b" -v n="$none" 'BEGIN { printf "%+.1f %%", 100 * (b - n) / n }')
        if [[ $c == none ]]; then
            echo "| ${label[$c]} | $b | - | - | - |"
        else
            hz=$(col "$tmp/rates-$c" 1 | bench_median 1)
            on_timer=$(col "$tmp/rates-$c" 2 | bench_median 0)
            echo "| ${label[$c]} | $b | $ratio | $hz | $on_timer % |"
        fi
    done
} >"$tmp/table"
cat "$tmp/table"

[[ -n ${SXS_BENCH_NO_DOC:-} ]] && exit 0
begin="<!-- switches: begin -->"
end="<!-- switches: end -->"
{
    echo "$begin"
    echo "## Threads in short slices"
    echo
    echo "\`tests/bench/switches.sh BUILD $rounds\` ($(date -u +%F), commit $(git -C "$root" rev-parse --short HEAD)):"
    echo "Threads with one spinning thread and a pong pair (two threads that each run a ~20 µs burst,"
    echo "wake the other and wait), $seconds s of wall time, $rounds interleaved rounds, medians. A perf_events"
    echo "counter that samples costs its thread at every context switch (the kernel arms and cancels"
    echo "its timer as the thread comes and goes); \`engine=auto\` moves such threads to CPU-time timers"
    echo "(config.md, \`engine\`). Fewer bursts = what the profiler took from the program."
    echo
    cat "$tmp/table"
    echo
    echo "Without a runtime (sxs_bench_switch: two threads bouncing a byte over two pipes, 200,000 round"
    echo "trips, two blocks and two wakes each; counter = a sampling task-clock counter at 99 Hz as the perf"
    echo "engine sets it, counting = one that only counts, timer = a CPU-time timer at 99 Hz):"
    echo
    cat "$tmp/switch-table"
    echo "$end"
} >"$tmp/section"
bench_write_section "$root/docs/PERFORMANCE.md" "$begin" "$end" "$tmp/section" "$tmp"
