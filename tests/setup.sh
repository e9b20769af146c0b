#!/usr/bin/env bash
# Prepares a machine to build and test sxsprof: Debian packages, the extra .NET runtimes,
# the benchmarks' .NET tools, the C build and the C# test apps.
#
# Usage: tests/setup.sh [BUILD_DIR]          (default: build, relative to the repo root)
#
# Every step is idempotent; on a machine that is already set up the whole script takes about
# a second. Environment: SXS_RUNTIMES_DIR (default ~/.local/share/sxsprof/dotnet).
# Exits non-zero when any step fails; the C# apps are built even when the C build fails.
set -euo pipefail

src_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-build}
case "$build_dir" in
    /*) ;;
    *) build_dir="$src_root/$build_dir" ;;
esac
export SXS_RUNTIMES_DIR=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}

step() { echo "setup: $*"; }

step "packages"
bash "$src_root/tests/setup/install-deps.sh"

step "node tools"
bash "$src_root/tests/setup/install-node-tools.sh"

# Only the benchmarks use them: a registry that cannot serve them leaves the tests unharmed.
step "benchmark tools"
bash "$src_root/tests/setup/install-tools.sh" ||
    echo "setup: benchmark tools not installed (tests/bench/real.sh needs dotnet-trace)" >&2

step "runtimes"
bash "$src_root/tests/setup/install-runtimes.sh"

# Configure and build; the output is shown only when something goes wrong.
status=0
log="$build_dir/setup.log"
mkdir -p "$build_dir"
step "configure and build in $build_dir"
# A configured tree with the same options is left to `cmake --build`, which re-runs CMake
# by itself when a CMakeLists.txt changed.
cache="$build_dir/CMakeCache.txt"
configured=0
if [[ -f "$cache" && -f "$build_dir/Makefile" ]] &&
   grep -qx 'SXS_WERROR:BOOL=ON' "$cache" &&
   grep -qxF "SXS_RUNTIMES_DIR:PATH=$SXS_RUNTIMES_DIR" "$cache"; then
    configured=1
fi
if [[ $configured -eq 0 ]] &&
   ! cmake -S "$src_root" -B "$build_dir" -DSXS_WERROR=ON \
        "-DSXS_RUNTIMES_DIR=$SXS_RUNTIMES_DIR" >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: cmake configure failed" >&2
    status=1
elif ! cmake --build "$build_dir" -j2 >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: C build failed" >&2
    status=1
fi

step "C# test apps"
bash "$src_root/tests/setup/build-apps.sh" "$build_dir" || status=1

if [[ $status -eq 0 ]]; then
    step "done"
else
    echo "setup: FAILED (see above)" >&2
fi
exit $status
