#!/usr/bin/env bash
# Longer soak of the runsxs signal repairs: the SxsStress app in several runtimes at once,
# many times. For people checking a change by hand; CI runs the short version
# (tests/integration/test_sxs_stress.c).
#
# Usage: tests/integration/soak.sh [-n RUNS] [-s SECONDS] [-b BUILD_DIR] [-- runsxs options]
#   -n RUNS     runs per scenario (default 20)
#   -s SECONDS  stress duration of each run (default 30)
#   -b DIR      build folder holding bin/runsxs and apps/SxsStress (default: build)
# Options after "--" go to runsxs (e.g. --no-signal-fixes to watch the faults).
#
# Scenarios: 10 + 2.0, and 10 + a private copy of 10 + 2.0, each runtime calling a peer through
# libsxsbridge. A run fails when runsxs exits non-zero, dies of a signal, is still running
# after SECONDS + 60 s, or a runtime printed no "stress ok" line. Failed runs keep their output
# in a folder that is printed at the end. Exit status: 0 when every run passed.
set -uo pipefail

runs=20
seconds=30
build=build
while getopts "n:s:b:h" opt; do
    case "$opt" in
        n) runs=$OPTARG ;;
        s) seconds=$OPTARG ;;
        b) build=$OPTARG ;;
        *) sed -n '2,16p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift
extra=("$@")

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
case "$build" in
    /*) ;;
    *) build="$src_root/$build" ;;
esac
runsxs="$build/bin/runsxs"
app="$build/apps/SxsStress/SxsStress.dll"
[[ -x "$runsxs" ]] || { echo "soak: no $runsxs (build the runsxs target)" >&2; exit 2; }
[[ -f "$app" ]] || { echo "soak: no $app (run tests/setup/build-apps.sh)" >&2; exit 2; }

logs=$(mktemp -d "${TMPDIR:-/tmp}/sxs-soak.XXXXXX")
limit=$((seconds + 60))
failed=0
total=0

# run NAME EXPECTED_LINES runsxs-operands...
run() {
    local name=$1 expected=$2
    shift 2
    local out="$logs/$name.$total.out" err="$logs/$name.$total.err"
    local start=$SECONDS rc
    # A fresh process group, so a hung run is killed with everything it started.
    setsid timeout -s KILL "$limit" "$runsxs" "${extra[@]}" "$@" >"$out" 2>"$err"
    rc=$?
    local ok
    ok=$(grep -c '^stress ok ' "$out")
    total=$((total + 1))
    if [[ $rc -eq 0 && $ok -eq $expected ]]; then
        printf 'soak: %-6s run %3d ok    %3ds\n' "$name" "$total" $((SECONDS - start))
        rm -f "$out" "$err"
    else
        failed=$((failed + 1))
        local why="exit $rc"
        [[ $rc -eq 137 ]] && why="hung (killed after ${limit}s)"
        [[ $rc -gt 128 && $rc -ne 137 ]] && why="died of signal $((rc - 128))"
        printf 'soak: %-6s run %3d FAIL  %s, %d of %d stress lines (%s)\n' \
            "$name" "$total" "$why" "$ok" "$expected" "$out"
    fi
}

for ((i = 0; i < runs; i++)); do
    run two 2 10.0 "$app" "$seconds 2" 2.0.0 "$app" "$seconds 1"
    run three 3 10.0 "$app" "$seconds 3" 10.0 "$app" "$seconds 1" 2.0.0 "$app" "$seconds 2"
done

if [[ $failed -eq 0 ]]; then
    rmdir "$logs" 2>/dev/null
    echo "soak: all $total runs passed"
    exit 0
fi
echo "soak: $((total - failed)) of $total runs passed; logs of the failed runs are in $logs"
exit 1
