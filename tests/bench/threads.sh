#!/usr/bin/env bash
# The sampler with many threads, side by side in one run: tests/apps/Threads with 500 threads
# (all napping in Thread.Sleep, or 498 napping and 2 spinning) for a fixed wall time, interleaved
# round by round, without a profiler and with the sampler in wall mode at 99 Hz and 999 Hz and in
# cpu mode at 99 Hz. Reported per configuration: median user+system CPU seconds and the overhead
# over no profiler, and from the profiles the ticks a second achieved (and their share of the rate
# asked), the ticks missed, the threads sampled a tick, the samples of blocked threads walked
# without a signal, the samples dropped. Then tests/apps/Syscalls (threads looping on read,
# nanosleep, epoll_wait and poll) in wall mode at 999 Hz: the calls that failed with EINTR.
# Rewrites the many-threads section of docs/PERFORMANCE.md.
#
# Usage: tests/bench/threads.sh [ROUNDS]        (default 3; run tests/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
rounds=${1:-3}
seconds=5
threads=500
lib=$root/build/lib/libsxsprof.so
apps=${SXS_APPS_DIR:-build/apps}
app=$apps/Threads/Threads.dll
syscalls=$apps/Syscalls/Syscalls.dll
[[ -f $lib && -f $app && -f $syscalls ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

config() { printf '[profiler]\noutput=%s/prof-%s\nflush=0\n[sampling]\nenabled=true\n%s' "$tmp" "$1" "$2" >"$tmp/$1.conf"; }
config wall99 $'frequency=99\nmode=wall\n'
config wall999 $'frequency=999\nmode=wall\n'
config cpu99 $'frequency=99\nmode=cpu\n'
config sys999 $'frequency=999\nmode=wall\n'

prof_env=(env -u SXSPROF_OUTPUT CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"
          "CORECLR_PROFILER_PATH=$lib")
# CPU seconds (user + system) of a command, the command's output discarded
cpu_of() {
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time"
}
# "achieved_hz percent_of_asked ticks_missed sampled_per_tick blocked_walks_percent dropped" of a profile
rate_of() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["samples"]
dropped = sum(s["dropped"].values())
taken = max(s["taken"], 1)
print("%.1f %.1f %d %.1f %.0f %d" % (s["achieved_hz"], 100.0 * s["achieved_hz"] / s["frequency"], s["ticks_missed"],
                                      s["sampled_per_tick"], 100.0 * s["blocked_walks"] / taken, dropped))
PY
}

workloads=("all" "spin")
declare -A spinning=([all]=0 [spin]=2)
configs=(plain wall99 wall999 cpu99)
declare -A labels=([plain]="no profiler" [wall99]="sxsprof, wall, 99 Hz" [wall999]="sxsprof, wall, 999 Hz"
                   [cpu99]="sxsprof, cpu, 99 Hz")

echo "bench: $rounds rounds of ${#workloads[@]} workloads x ${#configs[@]} configurations, $seconds s each"
dotnet "$app" 10 1 0.1 >/dev/null
for ((r = 0; r < rounds; r++)); do
    for w in "${workloads[@]}"; do
        for c in "${configs[@]}"; do
            args=("$app" "$threads" "${spinning[$w]}" "$seconds")
            if [[ $c == plain ]]; then
                cpu_of env -u CORECLR_ENABLE_PROFILING dotnet "${args[@]}" >>"$tmp/$w-$c"
            else
                cpu_of "${prof_env[@]}" "SXSPROF_CONFIG=$tmp/$c.conf" dotnet "${args[@]}" >>"$tmp/$w-$c"
                rate_of "$tmp/prof-$c.json" >>"$tmp/rate-$w-$c"
            fi
        done
    done
    "${prof_env[@]}" "SXSPROF_CONFIG=$tmp/sys999.conf" dotnet "$syscalls" 3 >"$tmp/sys.out" || true
    sed -n 's/.* eintr=\([0-9]*\) .*/\1/p' "$tmp/sys.out" >>"$tmp/sys-eintr"
    rate_of "$tmp/prof-sys999.json" >>"$tmp/rate-sys"
done

# the median of column COL of a file of rows
col_median() { awk -v c="$2" '{ print $c }' "$1" | bench_median 1; }
rows=()
for w in "${workloads[@]}"; do
    plain=$(bench_median 3 <"$tmp/$w-plain")
    for c in "${configs[@]}"; do
        cpu=$(bench_median 3 <"$tmp/$w-$c")
        what="$threads napping"
        [[ $w == spin ]] && what="$((threads - 2)) napping, 2 spinning"
        if [[ $c == plain ]]; then
            rows+=("| $what | ${labels[$c]} | $cpu | | | | | | |")
        else
            f=$tmp/rate-$w-$c
            rows+=("$(awk -v w="$what" -v l="${labels[$c]}" -v v="$cpu" -v p="$plain" \
                -v hz="$(col_median "$f" 1)" -v pc="$(col_median "$f" 2)" -v m="$(col_median "$f" 3)" \
                -v t="$(col_median "$f" 4)" -v b="$(col_median "$f" 5)" -v d="$(col_median "$f" 6)" 'BEGIN {
                printf "| %s | %s | %.2f | %+.0f %% | **%s** (%s %%) | %s | %s | %s %% | %s |", w, l, v, 100 * (v - p) / p, hz, pc, m, t, b, d }')")
        fi
    done
done
sys_eintr=$(awk '{ n += $1 } END { print n + 0 }' "$tmp/sys-eintr")
sys_rate=$(col_median "$tmp/rate-sys" 1)
printf '%s\n' "${rows[@]}"
echo "syscalls at 999 Hz, wall: $sys_eintr calls failed with EINTR in $rounds runs; $sys_rate Hz achieved"

doc=docs/PERFORMANCE.md
begin='<!-- threads results -->'
end='<!-- end threads results -->'
{
    echo "$begin"
    echo
    echo "Command: \`tests/bench/threads.sh $rounds\` on $(nproc) cores, $(date -u +%Y-%m-%d), load average"
    echo "$(cut -d' ' -f1-3 /proc/loadavg) at the end (the machine was shared). Medians of $rounds interleaved rounds of"
    echo "Threads \`$threads <spinning> $seconds\` (the process's whole life: start-up of the threads included)."
    echo
    echo "| threads | configuration | CPU s | over no profiler | ticks/s achieved (of asked) | ticks missed | threads a tick | walked blocked, no signal | samples dropped |"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Syscalls \`3\` (threads looping on read, nanosleep, epoll_wait and poll through P/Invoke, no"
    echo "retry of their own) in wall mode at 999 Hz, $rounds runs: **$sys_eintr** calls failed with EINTR"
    echo "($sys_rate ticks/s achieved)."
    echo
    echo "$end"
} >"$tmp/section"
bench_write_section "$doc" "$begin" "$end" "$tmp/section" "$tmp"
