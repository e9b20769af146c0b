#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh machine: set-up (packages, runtimes, build,
# test apps), every ctest test, then the unit tests again under AddressSanitizer+UBSan.
#
# Usage: tests/run.sh            (extra arguments go to the main ctest run, e.g. -R profiler)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash tests/setup.sh build

echo "tests: ctest (build/)"
ctest --test-dir build --output-on-failure -j2 -LE slow "$@"

echo "tests: unit tests under AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/)"
# The unit tests that read real assemblies and PDBs take them from the main build's apps.
cmake -S . -B build-asan -DSXS_UNIT_ONLY=ON -DSXS_SANITIZE=ON -DSXS_WERROR=ON \
    -DCMAKE_BUILD_TYPE=Debug -DSXS_APPS_DIR="$root/build/apps" >build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
cmake --build build-asan -j2 >build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan -L unit --output-on-failure -j2
