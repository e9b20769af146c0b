#!/usr/bin/env bash
# Two builds side by side in one run: the same workloads with build A's and build B's profiler
# (and sxsprof for the report), interleaved A, B, A, B, ... so machine noise hits both alike.
# For a change that must not move the figures (a restructuring): it reports medians and B/A.
#
#   loaded      SxsSample hotcold, profiler loaded, nothing asked: CPU seconds
#   sig999      the same sampled at 999 Hz by the signal walker: CPU seconds, capture p50 (us)
#   sus999      the same by the suspend walker: CPU seconds, capture p50 (us)
#   trace       CallBench under exact tracing: ns per call
#   report      sxsprof report --format all of a generated 100,000-sample profile: seconds
#
# Usage: tests/bench/ab.sh BUILD_A BUILD_B [ROUNDS] [SECONDS]   (default 5 rounds, 4 s each)
# Both builds must have bin/sxsprof, lib/libsxsprof.so; the apps and generator come from BUILD_B.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
. "$root/tests/bench/lib.sh"
a=$(cd "${1:?usage: ab.sh BUILD_A BUILD_B [ROUNDS] [SECONDS]}" && pwd)
b=$(cd "${2:?usage: ab.sh BUILD_A BUILD_B [ROUNDS] [SECONDS]}" && pwd)
rounds=${3:-5}
seconds=${4:-4}
apps=$b/apps
[[ -d $apps ]] || apps=$(sed -n 's/^SXS_APPS_DIR:PATH=//p' "$b/CMakeCache.txt")
for d in "$a" "$b"; do
    [[ -f $d/lib/libsxsprof.so && -x $d/bin/sxsprof ]] || { echo "bench: $d is not a build" >&2; exit 1; }
done
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

config() { printf '[profiler]\noutput=%s/prof-%s\nflush=0\n%s' "$tmp" "$1" "$2" >"$tmp/$1.conf"; }
config loaded ''
config sig999 $'[sampling]\nenabled=true\nfrequency=999\nwalker=signal\n'
config sus999 $'[sampling]\nenabled=true\nfrequency=999\nwalker=suspend\n'
config trace $'[tracing]\nenabled=true\n'
# profiled BUILD CONFIG: the environment that loads BUILD's profiler with CONFIG, into $prof
profiled() {
    prof=(env -u SXSPROF_OUTPUT CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"
          "CORECLR_PROFILER_PATH=$1/lib/libsxsprof.so" "SXSPROF_CONFIG=$tmp/$2.conf")
}
cpu_of() {
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time"
}
wall_of() {
    /usr/bin/time -f '%e' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    cat "$tmp/time"
}
p50_of() { sed -n 's/.*"capture_ns_p50": *\([0-9]*\).*/\1/p' "$1" | head -1 | awk '{ printf "%.2f\n", $1 / 1000 }'; }

"$b/tests/bench/sxs_gen_profile" "$tmp/gen.json" 2000 20 5000 100000 >/dev/null
echo "bench: $rounds rounds, A = $a, B = $b"
for ((r = 0; r < rounds; r++)); do
    for side in A B; do
        d=$a; [[ $side == B ]] && d=$b
        profiled "$d" loaded
        cpu_of "${prof[@]}" dotnet "$apps/SxsSample/SxsSample.dll" hotcold "$seconds" >>"$tmp/loaded-$side"
        for w in sig999 sus999; do
            profiled "$d" "$w"
            cpu_of "${prof[@]}" dotnet "$apps/SxsSample/SxsSample.dll" hotcold "$seconds" >>"$tmp/$w-$side"
            p50_of "$tmp/prof-$w.json" >>"$tmp/$w-p50-$side"
        done
        profiled "$d" trace
        "${prof[@]}" dotnet "$apps/CallBench/CallBench.dll" 2>/dev/null |
            sed -n "s/.*ns_per_call=\([0-9.]*\).*/\1/p" | head -1 >>"$tmp/trace-$side"
        rm -rf "$tmp/out"; mkdir "$tmp/out"
        wall_of "$d/bin/sxsprof" report "$tmp/gen.json" --format all -o "$tmp/out/x" >>"$tmp/report-$side"
    done
done
row() {
    local what=$1 file=$2
    local ma mb
    ma=$(bench_median 3 <"$tmp/$file-A"); mb=$(bench_median 3 <"$tmp/$file-B")
    printf '| %s | %s | %s | %s |\n' "$what" "$ma" "$mb" "$(awk -v x="$ma" -v y="$mb" 'BEGIN { printf (x > 0 ? "%.3f" : "-"), y / x }')"
}
{
    echo "| workload | A | B | B / A |"
    echo "|---|---|---|---|"
    row "loaded, nothing asked (CPU s)" loaded
    row "signal walker 999 Hz (CPU s)" sig999
    row "signal walker 999 Hz, capture p50 (us)" sig999-p50
    row "suspend walker 999 Hz (CPU s)" sus999
    row "suspend walker 999 Hz, capture p50 (us)" sus999-p50
    row "exact tracing (ns per call)" trace
    row "report --format all, 100,000 samples (s)" report
}
