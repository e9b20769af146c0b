#!/usr/bin/env bash
# What source lines cost the sampler, side by side in one run: two workloads sampled at 999 Hz with
# lines on and off ([lines] enabled=), interleaved round by round.
#   - Lines (tests/apps/Lines, its PDB embedded): one thread in a hot loop, few stacks, every
#     frame of the app with lines: the steady cost of looking lines up at each sample.
#   - `dotnet build` of the console template (build/real/hello): the SDK's compiler and MSBuild
#     in several processes, thousands of distinct stacks, assemblies without PDBs: the cost of
#     methods and code versions met for the first time (each asked of its runtime once, each
#     assembly's PDB looked for once).
# Reported: median user+system CPU seconds; from the profiles (summed over a build's processes),
# the sampler's resolution time per sample, lines' share of it, the time per stack looked up, and
# the time per distinct stack recorded (wall-clock times on the sampler thread: on a shared machine
# they include its preemptions). Then the in-process half, tests/bench/sxs_bench_lines.c: the same
# code resolving synthetic stacks of the Lines app's methods, in thread CPU time, the best of five
# runs, without a runtime's answers (those are in the first table's first-time column). Rewrites
# the lines section of docs/PERFORMANCE.md.
#
# Usage: tests/bench/lines.sh [ROUNDS]        (default 3; run tests/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
# shellcheck source=tests/bench/lib.sh
. tests/bench/lib.sh
rounds=${1:-3}
lib=$root/build/lib/libsxsprof.so
inproc=$root/build/tests/bench/sxs_bench_lines
app=build/apps/Lines/Lines.dll
hello=build/real/hello
[[ -f $lib && -x $inproc && -f $app && -f $hello/hello.csproj ]] || { echo "bench: build first (tests/setup.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

config() { # NAME LINES(true|false)
    printf '[profiler]\noutput=%s/out-%s/\nflush=0\n[sampling]\nenabled=true\nfrequency=999\n[lines]\nenabled=%s\n' \
        "$tmp" "$1" "$2" >"$tmp/$1.conf"
}
for w in app build; do config "$w-off" false; config "$w-on" true; done

prof_env=(env -u SXSPROF_OUTPUT -u SXSPROF_OWNER_PID CORECLR_ENABLE_PROFILING=1
          "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}" "CORECLR_PROFILER_PATH=$lib"
          DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0)
# CPU seconds (user + system, children included) of one profiled command, its profiles in out-NAME/.
run() { # NAME COMMAND...
    local name=$1; shift
    rm -rf "$tmp/out-$name"
    mkdir -p "$tmp/out-$name"
    /usr/bin/time -f '%U %S' -o "$tmp/time" "${prof_env[@]}" "SXSPROF_CONFIG=$tmp/$name.conf" "$@" \
        >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
    awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/time" >>"$tmp/cpu-$name"
    python3 - "$tmp/out-$name" >>"$tmp/stats-$name" <<'PY'
import glob, json, sys
taken = resolve = stacks = ns = first = distinct = methods = versions = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    if path.endswith(".speedscope.json"):
        continue
    p = json.load(open(path))
    s, l = p["samples"], p["lines"]
    taken += s["taken"]; resolve += s["resolve_ns"]; distinct += len(s["stacks"])
    stacks += l["stacks"]; ns += l["ns_resolving"]; first += l["ns_first"]
    methods += l["methods"]; versions += l["code_versions"]
print(taken, resolve, stacks, ns, first, distinct, methods, versions)
PY
}
app_run() { run "app-$1" dotnet "$app" 4000; }
build_run() {
    run "build-$1" dotnet build "$hello/hello.csproj" --no-restore --no-incremental -nodeReuse:false \
        -p:UseSharedCompilation=false -o "$tmp/hello-bin"
}

echo "bench: $rounds rounds of Lines (4 s) and dotnet build, each with lines off and on"
for ((r = 1; r <= rounds; r++)); do
    for c in off on; do app_run $c; done
    for c in off on; do build_run $c; done
    echo "bench: round $r done"
done

# The in-process half: ns per 20-frame stack, best of 5 (its own), median over the rounds.
for ((r = 1; r <= rounds; r++)); do
    SXSPROF_OUTPUT=$tmp/inproc "$inproc" build/apps >>"$tmp/inproc"
done

median() { bench_median 3; }
inproc_us() { awk -v c="$1" '$1 == c { print $2 / 1000 }' "$tmp/inproc" | median; }
col() { awk -v c="$2" '{ print $c }' "$tmp/stats-$1" | median; }
# per-configuration numbers: CPU s, resolution µs per sample, distinct stacks
row() { # WORKLOAD CONFIG
    local n="$1-$2"
    local cpu taken resolve
    cpu=$(median <"$tmp/cpu-$n")
    taken=$(col "$n" 1)
    resolve=$(col "$n" 2)
    awk -v c="$cpu" -v t="$taken" -v r="$resolve" -v d="$(col "$n" 6)" \
        'BEGIN { printf "%s | %.0f | %.2f | %.0f", c, t, (t > 0 ? r / t / 1000 : 0), d }'
}
lines_row() { # WORKLOAD: lookups, µs per lookup, ms first time, µs per distinct stack, methods, versions, share
    local n="$1-on"
    awk -v s="$(col "$n" 3)" -v ns="$(col "$n" 4)" -v f="$(col "$n" 5)" -v d="$(col "$n" 6)" \
        -v m="$(col "$n" 7)" -v v="$(col "$n" 8)" -v r="$(col "$n" 2)" \
        'BEGIN { printf "%.0f | %.2f | %.2f | %.1f | %.0f | %.0f | %.1f %%", s, (s > 0 ? (ns - f) / s / 1000 : 0),
                 (s > 0 ? ns / s / 1000 : 0), (d > 0 ? ns / d / 1000 : 0), m, v, (r > 0 ? 100 * ns / r : 0) }'
}

section=$tmp/section
{
    echo "<!-- lines results -->"
    echo
    echo "Command: \`tests/bench/lines.sh $rounds\` on $(nproc) cores, $(date +%Y-%m-%d)."
    echo "Medians over $rounds interleaved rounds, sampling at 999 Hz (signal walker, cpu mode); a build's"
    echo "numbers are summed over its processes (MSBuild, the compiler)."
    echo
    echo "| workload | lines | CPU s | samples | resolution µs / sample | distinct stacks |"
    echo "|---|---|---|---|---|---|"
    echo "| Lines, 4 s | off | $(row app off) |"
    echo "| Lines, 4 s | on | $(row app on) |"
    echo "| dotnet build (console) | off | $(row build off) |"
    echo "| dotnet build (console) | on | $(row build on) |"
    echo
    echo "With lines on, what looking lines up took (\`lines\` in the profiles):"
    echo
    echo "| workload | stacks looked up | µs / stack, lookups only | µs / stack, mean | µs / distinct stack | methods read | code versions read | share of resolution |"
    echo "|---|---|---|---|---|---|---|---|"
    echo "| Lines, 4 s | $(lines_row app) |"
    echo "| dotnet build (console) | $(lines_row build) |"
    echo
    echo "In-process (\`build/tests/bench/sxs_bench_lines\`): record/sxs_lines.c resolving synthetic stacks of"
    echo "20 managed frames, methods of the Lines app (its real assembly and PDB), an il_map that answers"
    echo "at once (64 map entries); thread CPU time per stack, best of 5 runs, median over $rounds:"
    echo
    echo "| stack | µs / stack | µs / frame |"
    echo "|---|---|---|"
    for c in known new nopdb; do
        label=$(case $c in known) echo "20 frames, all methods and code versions known";;
            new) echo "20 frames, each a method never met (points read, code version's segments built)";;
            nopdb) echo "20 frames, each a method never met, of an assembly without a PDB";; esac)
        us=$(inproc_us $c)
        echo "| $label | $us | $(awk -v u="$us" 'BEGIN { printf "%.3f", u / 20 }') |"
    done
    echo
    echo "<!-- end lines results -->"
} >"$section"
cat "$section"
bench_write_section docs/PERFORMANCE.md "<!-- lines results -->" "<!-- end lines results -->" "$section" "$tmp"
