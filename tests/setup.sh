#!/usr/bin/env bash
# Prepares a machine to build and test sxsprof: Debian packages, the npm tools, the extra .NET
# runtimes, the benchmarks' .NET tools, the C build and the C# test apps.
#
# Usage: tests/setup.sh [BUILD_DIR]          (default: build, relative to the repo root)
#
# The steps, and what each waits for:
#
#   packages ──┬── node tools                                   (npm)
#              ├── runtimes ── fetch ──┐                        (npm pack, NuGet: network)
#              └── C build ────────────┴── C# apps              (CPU)
#
# The steps that wait on the network run in the background while the C build compiles: node tools,
# runtimes (each runtime fetched at the same time, tests/setup/install-runtimes.sh), then the fetch
# (`tests/setup/build-apps.sh --fetch`: the fixtures made from their templates and restored, the
# published apps' packages restored). The C# build (tests/setup/build-apps.sh) comes last, when the
# C build and the fetch are done. Each step's output goes to BUILD_DIR/setup/<step>.log and is
# shown when the step ends (the C build's only when it fails), with the time the step took.
#
# Every step is idempotent; on a machine that is already set up the whole script takes about
# a second. Environment: SXS_RUNTIMES_DIR (default ~/.local/share/sxsprof/dotnet).
# Exits non-zero when any step fails, after every step that does not need the failed one has run
# (the C# apps are built even when the C build fails).
set -euo pipefail

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-build}
case "$build_dir" in
    /*) ;;
    *) build_dir="$src_root/$build_dir" ;;
esac
export SXS_RUNTIMES_DIR=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}
setup_start=$EPOCHREALTIME

# Seconds since $1 (an $EPOCHREALTIME), with one decimal.
since() {
    local now=$EPOCHREALTIME
    local us=$(( (${now/./} - ${1/./}) / 100000 ))
    printf '%d.%d' $((us / 10)) $((us % 10))
}

step_packages() { bash "$src_root/tests/setup/install-deps.sh"; }
step_node() { bash "$src_root/tests/setup/install-node-tools.sh"; }
step_runtimes() { bash "$src_root/tests/setup/install-runtimes.sh"; }
step_fetch() { bash "$src_root/tests/setup/build-apps.sh" --fetch "$build_dir"; }
# Only the benchmarks use them: a registry that cannot serve them leaves the tests unharmed.
step_tools() {
    bash "$src_root/tests/setup/install-tools.sh" ||
        echo "setup: benchmark tools not installed (tests/bench/real.sh needs dotnet-trace)"
    return 0
}
step_csharp() { bash "$src_root/tests/setup/build-apps.sh" "$build_dir"; }

# Configure and build. A configured tree with the same options is left to `cmake --build`, which
# re-runs CMake by itself when a CMakeLists.txt changed. A new tree is made for Ninja, which
# builds the same compiler commands as Make with a quarter less CPU time (no recursive make,
# no CMake process per target to scan dependencies); a tree configured before keeps its generator.
step_cbuild() {
    local cache="$build_dir/CMakeCache.txt"
    local -a generator=()
    [[ -f "$cache" ]] || ! command -v ninja >/dev/null 2>&1 || generator=(-G Ninja)
    if ! { [[ -f "$cache" ]] &&
           { [[ -f "$build_dir/Makefile" ]] || [[ -f "$build_dir/build.ninja" ]]; } &&
           grep -qx 'SXS_WERROR:BOOL=ON' "$cache" &&
           grep -qxF "SXS_RUNTIMES_DIR:PATH=$SXS_RUNTIMES_DIR" "$cache"; }; then
        cmake "${generator[@]}" -S "$src_root" -B "$build_dir" -DSXS_WERROR=ON \
              "-DSXS_RUNTIMES_DIR=$SXS_RUNTIMES_DIR" || { echo "setup: cmake configure failed"; return 1; }
    fi
    cmake --build "$build_dir" -j2 || { echo "setup: C build failed"; return 1; }
}

# The steps: name, the steps it waits for, and whether its output is shown when it succeeds.
steps=(packages node runtimes fetch tools cbuild csharp)
declare -A after=([packages]="" [node]="packages" [runtimes]="packages" [fetch]="runtimes" [tools]="fetch"
                  [cbuild]="packages" [csharp]="runtimes fetch cbuild")
declare -A title=([packages]="packages" [node]="node tools" [runtimes]="runtimes" [tools]="benchmark tools"
                  [fetch]="C# packages (fixtures, published apps)" [cbuild]="configure and build in $build_dir"
                  [csharp]="C# test apps")
declare -A quiet=([cbuild]=1)
# The C# apps are built even when the C build failed; any other failed step stops the steps
# that wait for it.
declare -A needs_success=([node]="packages" [runtimes]="packages" [fetch]="runtimes" [cbuild]="packages"
                          [csharp]="runtimes")

log_dir="$build_dir/setup"
mkdir -p "$log_dir"
declare -A state pid_of started
for s in "${steps[@]}"; do state[$s]=waiting; done

# Ends the steps still running (and what they started) when the script ends early.
kill_tree() {
    local child
    for child in $(pgrep -P "$1" 2>/dev/null || true); do
        kill_tree "$child"
    done
    kill "$1" 2>/dev/null || true
}
cleanup() {
    local s
    for s in "${steps[@]}"; do
        [[ ${state[$s]} == running ]] && kill_tree "${pid_of[$s]}"
    done
    return 0
}
trap cleanup EXIT

start() {
    local s=$1
    echo "setup: ${title[$s]}"
    started[$s]=$EPOCHREALTIME
    "step_$s" >"$log_dir/$s.log" 2>&1 </dev/null &
    pid_of[$s]=$!
    state[$s]=running
}

# Reports a step that ended: its output (on stderr when it failed) and its time.
finish() {
    local s=$1 rc=$2
    if [[ $rc -eq 0 ]]; then
        state[$s]=ok
        [[ -n ${quiet[$s]:-} ]] || cat "$log_dir/$s.log"
        echo "setup: ${title[$s]}: done in $(since "${started[$s]}") s"
    else
        state[$s]=failed
        cat "$log_dir/$s.log" >&2
        echo "setup: ${title[$s]}: FAILED after $(since "${started[$s]}") s (log: $log_dir/$s.log)" >&2
    fi
}

# Starts every waiting step whose predecessors have ended; one whose needed predecessor failed
# is skipped.
start_ready() {
    local s p ready
    for s in "${steps[@]}"; do
        [[ ${state[$s]} == waiting ]] || continue
        ready=1
        for p in ${after[$s]}; do
            [[ ${state[$p]} == ok || ${state[$p]} == failed || ${state[$p]} == skipped ]] || ready=0
        done
        [[ $ready -eq 1 ]] || continue
        for p in ${needs_success[$s]:-}; do
            if [[ ${state[$p]} != ok ]]; then
                state[$s]=skipped
                echo "setup: ${title[$s]}: skipped ($p failed)" >&2
                continue 2
            fi
        done
        start "$s"
    done
}

start_ready
while :; do
    running=0
    for s in "${steps[@]}"; do [[ ${state[$s]} == running ]] && running=1; done
    [[ $running -eq 1 ]] || break
    rc=0
    wait -n -p done_pid || rc=$?
    for s in "${steps[@]}"; do
        if [[ ${state[$s]} == running && ${pid_of[$s]} == "${done_pid:-}" ]]; then
            finish "$s" "$rc"
        fi
    done
    start_ready
done

status=0
for s in "${steps[@]}"; do
    [[ ${state[$s]} == ok ]] || status=1
done
if [[ $status -eq 0 ]]; then
    echo "setup: done in $(since "$setup_start") s"
else
    echo "setup: FAILED (see above) after $(since "$setup_start") s" >&2
fi
exit $status
