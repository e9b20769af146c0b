#!/usr/bin/env bash
# What the profiler costs merely loaded, with and without the function inventory, side by side in
# one run: each workload without a profiler; with the library loaded through the environment
# alone (the defaults, then inventory=true); and under `sxsprof run -q` (the defaults, then
# --inventory: the launcher, its spool check and its views included). The variants are
# interleaved (plain, loaded, loaded+inventory, run, run+inventory, plain, ...) so that machine
# noise hits them alike. Reports the medians of wall and CPU time (user + system of the whole
# process tree) and their ratios to the plain run, and rewrites its section of
# docs/PERFORMANCE.md.
#
#   build   `dotnet build --no-incremental` of the SDK's console template (build/real/hello, copied
#           to a scratch folder): the build host and the compiler, each profiled
#   hello   `dotnet hello.dll` of the same project: one runtime's start and exit, timed over 10
#           starts in a row (CPU times have a resolution of 10 ms), per start
#
# Usage: tests/bench/inventory.sh [ROUNDS]     (default 3; tests/setup.sh first)
#        BASE_LIB=/path/to/other/libsxsprof.so tests/bench/inventory.sh [ROUNDS]
#                                             also loads that library with its defaults (an
#                                             earlier build, to compare before and after)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
rounds=${1:-3}
sxsprof=$root/build/bin/sxsprof
[[ -x $sxsprof && -f build/lib/libsxsprof.so ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
[[ -f build/real/hello/hello.csproj ]] || { echo "bench: no build/real/hello (tests/setup.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
unset CORECLR_ENABLE_PROFILING SXSPROF_CONFIG SXSPROF_OUTPUT

# A copy of the project of its own, restored and built once, so that the runs build the same
# thing each time and nothing of the checkout's build folder changes.
cp -r build/real/hello/. "$tmp/hello"
rm -rf "$tmp/hello/bin" "$tmp/hello/obj"
dotnet restore "$tmp/hello/hello.csproj" >/dev/null
dotnet build "$tmp/hello/hello.csproj" --no-restore -nodeReuse:false -p:UseSharedCompilation=false >/dev/null
dll=$(find "$tmp/hello/bin" -name hello.dll | head -n 1)
[[ -f $dll ]] || { echo "bench: the project did not build" >&2; exit 1; }

build_cmd=(dotnet build "$tmp/hello/hello.csproj" --no-restore --no-incremental -nodeReuse:false
           -p:UseSharedCompilation=false)
hello_cmd=(dotnet "$dll")

# one WORKLOAD VARIANT run: appends "<wall s> <cpu s>" to $tmp/WORKLOAD.VARIANT (hello: 10 starts,
# per start)
measure() {
    local workload=$1 variant=$2 cmd repeat=1
    if [[ $workload == build ]]; then cmd=("${build_cmd[@]}"); else cmd=("${hello_cmd[@]}"); fi
    local load=(env CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"
                "CORECLR_PROFILER_PATH=$root/build/lib/libsxsprof.so" "SXSPROF_OUTPUT=$tmp/prof/")
    case $variant in
        loaded) cmd=("${load[@]}" "${cmd[@]}") ;;
        loaded-inventory) cmd=("${load[@]}" "SXSPROF_CONFIG=$tmp/inventory.conf" "${cmd[@]}") ;;
        loaded-base) cmd=("${load[@]}" "CORECLR_PROFILER_PATH=$BASE_LIB" "${cmd[@]}") ;;
        run) cmd=("$sxsprof" run -q -o "$tmp/prof/" -- "${cmd[@]}") ;;
        run-inventory) cmd=("$sxsprof" run -q --inventory -o "$tmp/prof/" -- "${cmd[@]}") ;;
    esac
    if [[ $workload == hello ]]; then
        repeat=10
        cmd=(sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do "$@" || exit 1; done' sh "${cmd[@]}")
    fi
    rm -rf "$tmp/prof"
    mkdir -p "$tmp/prof"
    /usr/bin/time -f "%e %U %S" -o "$tmp/t" "${cmd[@]}" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err" >&2; echo "bench: $workload $variant failed" >&2; exit 1; }
    awk -v n="$repeat" '{printf "%.4f %.4f\n", $1 / n, ($2 + $3) / n}' "$tmp/t" >>"$tmp/$workload.$variant"
}

printf '[profiler]\ninventory=true\n' >"$tmp/inventory.conf"
variants=(plain loaded loaded-inventory run run-inventory)
[[ -n ${BASE_LIB:-} ]] && variants+=(loaded-base)
load0=$(cut -d' ' -f1 /proc/loadavg)
for workload in build hello; do
    measure "$workload" plain
    : >"$tmp/$workload.plain"   # the first run warms the page cache
    for ((r = 0; r < rounds; r++)); do
        for v in "${variants[@]}"; do
            measure "$workload" "$v"
        done
    done
done

{
    echo "<!-- inventory.sh begin -->"
    echo "\`tests/bench/inventory.sh $rounds\` ($(date -u +%Y-%m-%d), $(nproc) cores, load average" \
         "$load0 at the start and $(cut -d' ' -f1 /proc/loadavg) at the end; medians of $rounds interleaved rounds; hello: per start, each" \
         "round's 10 starts timed together):"
    echo
    echo "| workload | what | wall s (min–max) | CPU s | wall ratio | CPU ratio | wall, CPU over plain (ms) |"
    echo "|---|---|---|---|---|---|---|"
    for workload in build hello; do
        pw=$(cut -d' ' -f1 "$tmp/$workload.plain" | bench_median 4)
        pc=$(cut -d' ' -f2 "$tmp/$workload.plain" | bench_median 4)
        for v in "${variants[@]}"; do
            w=$(cut -d' ' -f1 "$tmp/$workload.$v" | bench_median 4)
            lo=$(cut -d' ' -f1 "$tmp/$workload.$v" | sort -n | head -n 1)
            hi=$(cut -d' ' -f1 "$tmp/$workload.$v" | sort -n | tail -n 1)
            c=$(cut -d' ' -f2 "$tmp/$workload.$v" | bench_median 4)
            case $v in
                plain) what="no profiler" ;;
                loaded) what="library loaded, defaults" ;;
                loaded-inventory) what="library loaded, \`inventory=true\`" ;;
                run) what="\`sxsprof run -q\` (defaults)" ;;
                run-inventory) what="\`sxsprof run -q --inventory\`" ;;
                loaded-base) what="library loaded, defaults, of the build before (\`BASE_LIB\`)" ;;
            esac
            name=$([[ $workload == build ]] && echo "\`dotnet build --no-incremental\`, console template" ||
                   echo "\`dotnet hello.dll\` (start and exit)")
            awk -v n="$name" -v what="$what" -v w="$w" -v lo="$lo" -v hi="$hi" -v c="$c" -v pw="$pw" -v pc="$pc" 'BEGIN {
                printf "| %s | %s | %.3f (%.3f–%.3f) | %.3f | %.3f | %.3f | %+.0f, %+.0f |\n", n, what, w, lo, hi, c, w / pw,
                       c / pc, 1000 * (w - pw), 1000 * (c - pc) }'
        done
    done
    echo "<!-- inventory.sh end -->"
} >"$tmp/section"
cat "$tmp/section"
bench_write_section docs/PERFORMANCE.md "<!-- inventory.sh begin -->" "<!-- inventory.sh end -->" "$tmp/section" "$tmp"
