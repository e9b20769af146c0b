#!/usr/bin/env bash
# What the profiler loaded by the environment alone, with the defaults, adds to a hello-world
# start: `dotnet hello.dll` of the SDK's console template without a profiler, with this build's
# library (CORECLR_ENABLE_PROFILING, CORECLR_PROFILER, CORECLR_PROFILER_PATH, SXSPROF_OUTPUT, as
# tests/bench/real.sh's hello row) and, given BASE_LIB, with another build's library (the one
# before a change). Every start goes through `env`, so the variants differ only in the profiler.
# Rounds are interleaved, each starting one variant further on; the table gives, per variant, the
# median wall and CPU time (user + system, from getrusage) of a start and the median of the
# per-round differences to no profiler in the same round (less noisy than the difference of the
# medians on a loaded machine). Prints the table and writes it to its section of
# docs/PERFORMANCE.md (SXS_BENCH_NO_DOC=1 leaves the file alone).
#
# Usage: tests/bench/hello.sh [ROUNDS]                    (default 60; build first)
#        BASE_LIB=/path/to/libsxsprof.so tests/bench/hello.sh [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
rounds=${1:-60}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/bench/hello.sh [ROUNDS]" >&2; exit 2; }
lib=$root/build/lib/libsxsprof.so
[[ -f $lib ]] || { echo "bench: build first (no $lib)" >&2; exit 1; }
[[ -z ${BASE_LIB:-} || -f $BASE_LIB ]] || { echo "bench: BASE_LIB $BASE_LIB is no file" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
unset CORECLR_ENABLE_PROFILING CORECLR_PROFILER CORECLR_PROFILER_PATH SXSPROF_CONFIG SXSPROF_OUTPUT

dotnet new console --name hello --output "$tmp/hello" >/dev/null
dotnet build "$tmp/hello/hello.csproj" -nodeReuse:false -p:UseSharedCompilation=false >/dev/null
dll=$(ls "$tmp"/hello/bin/Debug/net*/hello.dll)

variants=(none env)
libs=("" "$lib")
names=("no profiler" "loaded by the environment, defaults (this build)")
if [[ -n ${BASE_LIB:-} ]]; then
    variants+=(base)
    libs+=("$BASE_LIB")
    names+=("loaded by the environment, defaults (BASE_LIB)")
fi
nv=${#variants[@]}

# children_us FILE: user + system time of this shell's finished children so far, in microseconds
# (bash's `times` reads getrusage(RUSAGE_CHILDREN), to the millisecond). `times` must run in this
# shell, not in a subshell of a command substitution: FILE takes its output.
children_us() {
    times >"$1"
    awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
                   printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1e6 }' "$1"
}

# one start of variant k in round r: its wall and CPU time in $tmp/w.r.k and $tmp/c.r.k (us)
start_once() {
    local r=$1 k=$2 t0 t1 c0 c1
    local cmd=(env -u CORECLR_ENABLE_PROFILING)
    [[ -n ${libs[$k]} ]] && cmd=(env CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"
                                 "CORECLR_PROFILER_PATH=${libs[$k]}" "SXSPROF_OUTPUT=$tmp/out-$k/p")
    mkdir -p "$tmp/out-$k"
    children_us "$tmp/times" >"$tmp/c0"
    t0=$(date +%s%N)
    "${cmd[@]}" dotnet "$dll" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; echo "bench: ${variants[$k]} failed" >&2; exit 1; }
    t1=$(date +%s%N)
    children_us "$tmp/times" >"$tmp/c1"
    c0=$(cat "$tmp/c0") c1=$(cat "$tmp/c1")
    grep -q 'Hello, World!' "$tmp/out" || { echo "bench: ${variants[$k]} printed no greeting" >&2; exit 1; }
    echo $(((t1 - t0) / 1000)) >"$tmp/w.$r.$k"
    echo $((c1 - c0)) >"$tmp/c.$r.$k"
}

echo "bench: $rounds rounds of ${variants[*]}, interleaved"
start_once 0 0 # warm-up, not counted
start_once 0 1
for ((r = 1; r <= rounds; r++)); do
    for ((j = 0; j < nv; j++)); do start_once "$r" $(((r + j) % nv)); done
done
load=$(cut -d' ' -f1-3 /proc/loadavg)

ms() { awk '{ printf "%.2f\n", $1 / 1000 }'; }
signed_ms() { awk '{ printf "%+.2f\n", $1 / 1000 }'; }
section=$tmp/section
{
    echo "<!-- hello results -->"
    echo
    echo "Command: \`tests/bench/hello.sh $rounds\`${BASE_LIB:+ (BASE_LIB set)} (commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)), $(date -u +%Y-%m-%d), $(nproc) cores, load average $load; per start, medians over $rounds interleaved rounds:"
    echo
    echo "| variant | wall ms | wall added (paired) | CPU ms | CPU added (paired) |"
    echo "|---|---|---|---|---|"
    for ((k = 0; k < nv; k++)); do
        w=$(for ((r = 1; r <= rounds; r++)); do cat "$tmp/w.$r.$k"; done | bench_median 0 | ms)
        c=$(for ((r = 1; r <= rounds; r++)); do cat "$tmp/c.$r.$k"; done | bench_median 0 | ms)
        dw=$(for ((r = 1; r <= rounds; r++)); do echo $(($(cat "$tmp/w.$r.$k") - $(cat "$tmp/w.$r.0"))); done |
             bench_median 0 | signed_ms)
        dc=$(for ((r = 1; r <= rounds; r++)); do echo $(($(cat "$tmp/c.$r.$k") - $(cat "$tmp/c.$r.0"))); done |
             bench_median 0 | signed_ms)
        echo "| ${names[$k]} | $w | $dw | $c | $dc |"
    done
    echo
    echo "<!-- end hello results -->"
} >"$section"
cat "$section"
[[ -n ${SXS_BENCH_NO_DOC:-} ]] ||
    bench_write_section docs/PERFORMANCE.md "<!-- hello results -->" "<!-- end hello results -->" "$section" "$tmp"
