#!/usr/bin/env bash
# The cost of one stitched stack walk of a 64-frame mixed stack, side by side in one run: two
# runtimes in one runsxs process, Deep.Level calling across them through libsxsbridge ten levels
# deep (64 frames at the throw: managed frames of both runtimes, the bridge's native frames, IL
# stubs, the runtime's exception dispatch and the host), where the innermost level throws and
# catches an exception 2000 times and times its own loop. Three configurations, interleaved round
# by round: no profiler, sxsprof with stacks off, sxsprof with [stacks] on=exception (one stitched
# walk per exception). The walk's cost is the difference of the last two; its breakdown comes from
# the profile's stack_walks (time per step summed over the walks). Rewrites the stitch section of
# docs/PERFORMANCE.md.
#
# The app's 200 warm-up throws come from a site of their own, so each profiled run names two
# stacks: the first reads every module's symbols, the second finds them cached.
#
# Usage: tests/bench/stitch.sh [ROUNDS]        (default 7; run tests/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
rounds=${1:-7}
levels=10
lib=$root/build/lib/libsxsprof.so
app=build/apps/SxsStitch/SxsStitch.dll
[[ -f $lib && -f $app && -x build/bin/runsxs ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { bench_median 1; }

printf '[profiler]\noutput=%s/prof-off\nflush=0\n' "$tmp" >"$tmp/off.conf"
printf '[profiler]\noutput=%s/prof-on\nflush=0\n[stacks]\non=exception\n' "$tmp" >"$tmp/on.conf"

run_one() {
    local cmd=(build/bin/runsxs 10.0 "$app" "deep 1 2 $levels" 10.0 "$app" "")
    case $1 in
        plain) env -u CORECLR_ENABLE_PROFILING "${cmd[@]}" ;;
        off|on) env -u SXSPROF_OUTPUT CORECLR_ENABLE_PROFILING=1 \
                    "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}" "CORECLR_PROFILER_PATH=$lib" \
                    "SXSPROF_CONFIG=$tmp/$1.conf" "${cmd[@]}" ;;
    esac
}

# One line of the profile's stack_walks per round: per-walk ns of each step, frames per stack, and
# the naming of the round's one new stack.
breakdown() {
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["stack_walks"]
m = w["made"]
t = w["time_ns"]
n = w["stacks_named"]
assert m > 0 and w["failed"] == 0 and n >= 2, w
print(m, w["frames"] / m, w["native_frames"] / m, t["native_walk"] / m, t["classification"] / m,
      t["runtime_walks"] / m, t["merge"] / m, t["naming_first_stack"],
      (t["naming"] - t["naming_first_stack"]) / (n - 1), w["runtime_walks"] / m)
PY
}

echo "bench: $rounds rounds, each configuration once per round"
run_one plain >/dev/null  # warm the page cache
for ((r = 0; r < rounds; r++)); do
    for c in plain off on; do
        out=$(run_one "$c" 2>"$tmp/err") || { cat "$tmp/err" >&2; echo "bench: $c failed" >&2; exit 1; }
        echo "$out" | grep -o 'ns_per_throw=[0-9]*' | cut -d= -f2 >>"$tmp/$c"
    done
    breakdown "$tmp/prof-on.json" >>"$tmp/steps"
done

declare -A med
for c in plain off on; do med[$c]=$(median <"$tmp/$c"); done
col() { awk -v k="$1" '{print $k}' "$tmp/steps" | median; }
walks=$(col 1 | xargs printf '%.0f'); frames=$(col 2 | xargs printf '%.0f'); native_frames=$(col 3 | xargs printf '%.0f')
ns_native=$(col 4); ns_classify=$(col 5); ns_dss=$(col 6); ns_merge=$(col 7); ns_naming=$(col 8)
ns_naming_cached=$(col 9); dss_per_walk=$(col 10 | xargs printf '%.0f')
walk=$(awk -v a="${med[on]}" -v b="${med[off]}" 'BEGIN { printf "%.1f", (a - b) / 1000 }')
steps=$(awk -v a="$ns_native" -v b="$ns_classify" -v c="$ns_merge" 'BEGIN { printf "%.2f", (a + b + c) / 1000 }')
inside=$(awk -v a="$ns_native" -v b="$ns_classify" -v c="$ns_dss" -v d="$ns_merge" \
    'BEGIN { printf "%.2f", (a + b + c + d) / 1000 }')
rest=$(awk -v w="$walk" -v i="$inside" 'BEGIN { printf "%.2f", w - i }')
us() { awk -v v="$1" 'BEGIN { printf "%.2f", v / 1000 }'; }

cat <<TXT
median ns per exception: no profiler ${med[plain]}, stacks off ${med[off]}, on=exception ${med[on]}
stitched walk: $walk us per exception ($frames frames; $native_frames native frames read)
  native walk $(us "$ns_native") us, classification $(us "$ns_classify") us, DoStackSnapshot ($dss_per_walk runtimes) $(us "$ns_dss") us, merge $(us "$ns_merge") us
  native walk + classification + merge: $steps us; naming a new stack: $(us "$ns_naming") us first, $(us "$ns_naming_cached") us cached
TXT

doc=docs/PERFORMANCE.md
begin='<!-- stitch results -->'
end='<!-- end stitch results -->'
{
    echo "$begin"
    echo
    echo "Command: \`tests/bench/stitch.sh $rounds\` on $(nproc) cores, $(date -u +%Y-%m-%d)."
    echo "Medians over $rounds interleaved rounds; each round's profiled run makes $walks walks of one"
    echo "$frames-frame stack (two 10.0 runtimes under runsxs, $levels bridge levels)."
    echo
    echo "| configuration | ns per exception (thrown and caught) |"
    echo "|---|---|"
    echo "| no profiler | ${med[plain]} |"
    echo "| sxsprof, stacks off | ${med[off]} |"
    echo "| sxsprof, \`[stacks] on=exception\` | ${med[on]} |"
    echo
    echo "| step of one stitched walk ($frames frames) | µs |"
    echo "|---|---|"
    echo "| whole walk, names cached (on − off) | **$walk** |"
    echo "| native walk ($native_frames frames, step cache warm) | $(us "$ns_native") |"
    echo "| classification (GetFunctionFromIP of the frames outside ELF modules) | $(us "$ns_classify") |"
    echo "| DoStackSnapshot, $dss_per_walk runtimes | $(us "$ns_dss") |"
    echo "| merge by stack pointer | $(us "$ns_merge") |"
    echo "| **native walk + classification + merge** | **$steps** |"
    echo "| the rest (module-map check, runtime list, counters, aggregation lookup) | $rest |"
    echo "| naming the first stack (every module's ELF symbols read, metadata asked) | $(us "$ns_naming") |"
    echo "| naming a further new stack (symbols and function names cached) | $(us "$ns_naming_cached") |"
    echo "| naming a stack seen before | 0 (its names are kept with it) |"
    echo
    echo "$end"
} >"$tmp/section"
bench_write_section "$doc" "$begin" "$end" "$tmp/section" "$tmp"
