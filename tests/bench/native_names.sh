#!/usr/bin/env bash
# Native names, before and after, side by side in one run: `dotnet build --no-incremental` of the
# SDK's console template under `sxsprof run --sample=HZ` (every process of the build profiled),
# with build A's and build B's profiler and launcher, interleaved A, B, B, A, ... so machine noise
# hits both alike. Reported, as medians over the rounds and B against A:
#
#   build cpu     user + system seconds of the whole profiled build (every process of it: the
#                 profiled processes name their native frames, reading symbol tables, on the
#                 profiler's thread)
#   build rss     the largest resident set of one process of the build (GNU time's %M), MiB
#   samples       samples in the profiles; named: native frames of the profiles with a symbol
#                 (module!symbol or [perf-map]!...), unnamed: module+0x... and bare addresses
#   resolve cost  (build cpu B - build cpu A) / samples B, microseconds a sample
#   render cpu    user + system seconds of `sxsprof report --format all` of the build's profiles
#                 by the same build's launcher
# and, from B's tests/bench/sxs_bench_symbols, the tables of libc, ld.so, libcoreclr.so and
# libclrjit.so in one process, without and with their debug files: load time, lookup time, size.
#
# Usage: tests/bench/native_names.sh BUILD_A BUILD_B [ROUNDS] [HZ]   (default 5 rounds, 999 Hz)
# Both builds must have bin/sxsprof and lib/libsxsprof.so. With SXS_BENCH_WRITE=1 the table goes
# into docs/PERFORMANCE.md between its native-names markers.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
. "$root/tests/bench/lib.sh"
a=$(cd "${1:?usage: native_names.sh BUILD_A BUILD_B [ROUNDS] [HZ]}" && pwd)
b=$(cd "${2:?usage: native_names.sh BUILD_A BUILD_B [ROUNDS] [HZ]}" && pwd)
rounds=${3:-5}
hz=${4:-999}
for d in "$a" "$b"; do
    [[ -f $d/lib/libsxsprof.so && -x $d/bin/sxsprof ]] || { echo "bench: $d is not a build" >&2; exit 1; }
done
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clean_env=(env -u SXSPROF_CONFIG -u SXSPROF_OUTPUT -u CORECLR_ENABLE_PROFILING DOTNET_NOLOGO=1
           DOTNET_CLI_TELEMETRY_OPTOUT=1)

proj=$tmp/hello/hello.csproj
"${clean_env[@]}" dotnet new console --name hello --output "$tmp/hello" --no-restore >"$tmp/new.log" 2>&1 ||
    { cat "$tmp/new.log" >&2; exit 1; }
"${clean_env[@]}" dotnet restore "$proj" >"$tmp/restore.log" 2>&1 || { cat "$tmp/restore.log" >&2; exit 1; }
build_cmd=(dotnet build "$proj" --no-restore --no-incremental -nodeReuse:false -p:UseSharedCompilation=false
           --disable-build-servers)

# named PROFILES...: "samples named unnamed" over the native frames of the profiles' samples
named() {
    python3 - "$@" <<'PY'
import json, re, sys
samples = named = unnamed = 0
for path in sys.argv[1:]:
    doc = json.load(open(path))
    table = doc.get("frame_table") or []  # version 2: frames are indices into it
    for st in (doc.get("samples") or {}).get("stacks") or []:
        samples += st["count"]
        for f in st["frames"]:
            f = table[f] if isinstance(f, int) else f
            if f.get("kind") == "managed":
                continue
            if "!" in f["name"]:
                named += st["count"]
            else:
                unnamed += st["count"]
print(samples, named, unnamed)
PY
}

# once BUILD LABEL ROUND: one profiled build and its render; appends to $tmp/LABEL
once() {
    local build=$1 label=$2 r=$3 out=$tmp/out-$2-$3
    mkdir -p "$out"
    /usr/bin/time -f '%U %S %M' -o "$tmp/time" "${clean_env[@]}" "$build/bin/sxsprof" run -q --sample="$hz" \
        --format json -o "$out/" -- "${build_cmd[@]}" >"$tmp/build.log" 2>&1 ||
        { cat "$tmp/build.log" >&2; exit 1; }
    local cpu rss
    read -r cpu rss < <(awk '{ printf "%.2f %.1f\n", $1 + $2, $3 / 1024 }' "$tmp/time")
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$build/bin/sxsprof" report --format all -o "$out/view" "$out"/*.json \
        >/dev/null 2>&1 || { echo "bench: report failed" >&2; exit 1; }
    local render
    render=$(awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time")
    echo "$cpu $rss $render $(named "$out"/*.json)" >>"$tmp/$label"
    rm -rf "$out"
}

echo "bench: A=$a B=$b, $rounds rounds at $hz Hz, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)" >&2
for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then once "$a" A "$r"; once "$b" B "$r"; else once "$b" B "$r"; once "$a" A "$r"; fi
    echo "bench: round $r: A $(tail -1 "$tmp/A"), B $(tail -1 "$tmp/B")" >&2
done

col() { awk -v c="$2" '{ print $c }' "$tmp/$1" | bench_median 3; }
section=$tmp/section
{
    echo "<!-- native-names results -->"
    echo "\`tests/bench/native_names.sh A B $rounds $hz\`: \`sxsprof run --sample=$hz\` of \`dotnet build --no-incremental\`"
    echo "(console template, no build server), A and B interleaved, medians of $rounds rounds, $(nproc) shared cores."
    echo
    echo "| | A | B | B/A |"
    echo "|---|---:|---:|---:|"
    for spec in "build cpu (s):1" "largest process rss (MiB):2" "render cpu, report --format all (s):3" \
                "samples:4" "native frame samples named:5" "native frame samples unnamed:6"; do
        name=${spec%%:*}; c=${spec##*:}
        va=$(col A "$c"); vb=$(col B "$c")
        echo "| $name | $va | $vb | $(awk -v x="$va" -v y="$vb" 'BEGIN { if (x > 0) printf "%.2f", y / x; else print "-" }') |"
    done
    ca=$(col A 1); cb=$(col B 1); sb=$(col B 4)
    echo
    echo "Resolve cost: (build cpu B - A) / samples B = $(awk -v a="$ca" -v b="$cb" -v s="$sb" 'BEGIN { printf "%.0f", (b - a) * 1e6 / s }') µs a sample."
    if [[ -x $b/tests/bench/sxs_bench_symbols ]]; then
        echo
        echo "The symbol tables in one process (\`sxs_bench_symbols\`, thread CPU): \`own\` is the library's own tables only"
        echo "(as A reads it: a copy without build ID and debug link), \`debug\` with its debug file (B); 200,000 lookups"
        echo "of addresses spread over the library, the best of 5 runs."
        echo
        echo "| library | tables | load (µs) | lookup (ns) | symbols | KiB | addresses named |"
        echo "|---|---|---:|---:|---:|---:|---:|"
        libs=()
        for l in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2; do libs+=("$(readlink -f "$l")"); done
        fw=$(dirname "$(readlink -f "$(command -v dotnet)")")/shared/Microsoft.NETCore.App
        fw=$(ls -d "$fw"/*/ | sort -V | tail -1)
        libs+=("$fw/libcoreclr.so" "$fw/libclrjit.so")
        "$b/tests/bench/sxs_bench_symbols" "${libs[@]}" |
            awk '{ printf "| %s | %s | %s | %s | %s | %s | %s %% |\n", $1, $2, $3, $4, $5, $6, $7 }'
    fi
    echo "<!-- end native-names results -->"
} >"$section"
cat "$section"
if [[ ${SXS_BENCH_WRITE:-0} == 1 ]]; then
    bench_write_section "$root/docs/PERFORMANCE.md" "<!-- native-names results -->" "<!-- end native-names results -->" \
        "$section" "$tmp"
fi
