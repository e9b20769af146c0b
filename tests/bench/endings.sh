#!/usr/bin/env bash
# What keeping the data through any ending costs and buys, measured on the ManyFunctions app
# (N functions JIT-compiled, then a loop), sampled at 99 Hz:
#   - the output thread's CPU time per second of run while the spool is kept (SXS_SPOOL_PERIOD_MS),
#     and the spool's size at the end;
#   - the time from SIGTERM to the process's death, under `sxsprof run` (the spool only; the
#     launcher rebuilds and renders) and with the profiler's variables only (the process writes its
#     profile and every view itself), for 100 and 50,000 functions.
# Each number is the median of RUNS runs. Writes its table into docs/PERFORMANCE.md.
#
# Usage: tests/bench/endings.sh [BUILD_DIR] [RUNS]      (default: build, 3)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/lib.sh"
build=${1:-build}
[[ "$build" = /* ]] || build="$root/$build"
runs=${2:-3}
app="$build/apps/ManyFunctions/ManyFunctions.dll"
sxsprof="$build/bin/sxsprof"
lib="$build/lib/libsxsprof.so"
[[ -f "$app" && -x "$sxsprof" ]] || { echo "endings: build first (cmake --build, tests/setup/build-apps.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export DOTNET_CLI_TELEMETRY_OPTOUT=1

# Seconds from SIGTERM to the death of pid.
death() {
    python3 - "$1" <<'PY'
import os, select, sys, time
pid = int(sys.argv[1]); fd = os.pidfd_open(pid); t = time.monotonic()
os.kill(pid, 15); select.select([fd], [], [], 60); print("%.3f" % (time.monotonic() - t))
PY
}

# CPU seconds of the thread named sxsprof-output of pid.
output_cpu() {
    local pid=$1 t
    for t in /proc/"$pid"/task/*; do
        if [[ "$(cat "$t/comm" 2>/dev/null)" == sxsprof-output ]]; then
            awk '{sub(/.*\) /, ""); print ($12 + $13) / 100}' "$t/stat"
            return
        fi
    done
    echo 0
}

wait_started() {
    local out=$1 i
    for i in $(seq 1 600); do grep -q started "$out" 2>/dev/null && return 0; sleep 0.2; done
    return 1
}

# One run: MODE (launcher|direct) N -> "death_s output_cpu_per_s spool_bytes"
one() {
    local mode=$1 n=$2 dir="$tmp/$1-$2" pid
    rm -rf "$dir"; mkdir -p "$dir"
    if [[ $mode == launcher ]]; then
        "$sxsprof" run -q --sample -o "$dir/p" -- dotnet "$app" "$n" >"$dir/out" 2>/dev/null &
        local launcher=$!
        sleep 0.5
        pid=$(cat /proc/$launcher/task/$launcher/children | awk '{print $1}')
    else
        printf '[profiler]\noutput=%s/p\nformats=all\n[sampling]\nenabled=true\n' "$dir" >"$dir/c.conf"
        CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{0560F28C-910E-4FDA-94A2-5FACD8966E48}' \
            CORECLR_PROFILER_PATH="$lib" SXSPROF_CONFIG="$dir/c.conf" dotnet "$app" "$n" >"$dir/out" &
        pid=$!
    fi
    wait_started "$dir/out"
    local c0; c0=$(output_cpu "$pid")
    sleep 5
    local c1; c1=$(output_cpu "$pid")
    local size; size=$(stat -c %s "$dir/p.spool" 2>/dev/null || echo 0)
    local d; d=$(death "$pid")
    wait || true
    echo "$d $(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.4f", (b - a) / 5}') $size"
}

section="$tmp/section"
{
    echo "<!-- bench:endings begin -->"
    echo "## Every ending: the spool, and the time from a signal to death"
    echo
    echo "The output thread appends what changed to the spool every 100 ms; when a signal ends the"
    echo "process, under \`sxsprof run\` the process only brings the spool up to date (the launcher"
    echo "rebuilds the profile and renders the views after it died), so its time from the signal to its"
    echo "death does not grow with the profile; with the profiler's variables only it writes the profile"
    echo "and every view itself before it lets the signal go on (at most 5 s)."
    echo
    echo "Measured by \`tests/bench/endings.sh build $runs\` (median of $runs runs; the machine's load as it was):"
    echo
    echo "| functions | profiler | SIGTERM to death | output thread CPU while running | spool after 5 s |"
    echo "|---|---|---|---|---|"
} >"$section"
for n in 100 50000; do
    for mode in launcher direct; do
        : >"$tmp/deaths"; : >"$tmp/cpus"; : >"$tmp/sizes"
        for r in $(seq 1 "$runs"); do
            read -r d c s < <(one "$mode" "$n")
            echo "$d" >>"$tmp/deaths"; echo "$c" >>"$tmp/cpus"; echo "$s" >>"$tmp/sizes"
        done
        d=$(bench_median 3 <"$tmp/deaths"); c=$(bench_median 4 <"$tmp/cpus"); s=$(bench_median 0 <"$tmp/sizes")
        label=$([[ $mode == launcher ]] && echo "sxsprof run (spool only)" || echo "variables only (profile + views)")
        printf '| %s | %s | %.0f ms | %.2f %% of a CPU | %s KiB |\n' "$n" "$label" \
            "$(awk -v d="$d" 'BEGIN {print d * 1000}')" "$(awk -v c="$c" 'BEGIN {print c * 100}')" \
            "$(( s / 1024 ))" | tee -a "$section"
    done
done
echo "<!-- bench:endings end -->" >>"$section"
bench_write_section "$root/docs/PERFORMANCE.md" "<!-- bench:endings begin -->" "<!-- bench:endings end -->" "$section" "$tmp"
