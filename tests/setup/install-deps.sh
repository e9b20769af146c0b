#!/usr/bin/env bash
# Installs the Debian packages sxsprof needs to build, test and run its runtimes.
#
# Usage: tests/setup/install-deps.sh
#
# Idempotent: when every package is already installed it only asks dpkg and returns.
# `apt-get update` runs only when something has to be installed. Needs root (or sudo).
set -euo pipefail

# Build: compiler, CMake, Ninja, pkg-config and the libraries CMake looks up; nm for the export check.
build_pkgs=(build-essential cmake ninja-build pkg-config libglib2.0-dev libjson-glib-dev libunwind-dev clang-format
            libffi-dev binutils)
# Native names: libc's full symbol table under /usr/lib/debug/.build-id (the demo's hottest native
# frames are libc's memmove/memset variants, which only it names); xz and binutils build the test
# libraries with MiniDebugInfo and debug links (tests/unit/data/make_debug_libs.sh); strace shows
# which thread opens the debug files, and when (tests/integration/test_native_names.c).
symbol_pkgs=(libc6-dbg xz-utils strace)
# Runtimes: what the .NET Core 2.0 and 8.0 native parts load (ICU 72 is Debian 12's; the
# 2.0 runtime is told so with CLR_ICU_VERSION_OVERRIDE=72).
runtime_pkgs=(libprotobuf-c1 libicu72 libunwind8 libuuid1 liblzma5 zlib1g libssl3 libcurl4 libgssapi-krb5-2)
# Fetching runtimes: npm packs are tarballs, NuGet packages are zips.
fetch_pkgs=(unzip tar gzip ca-certificates time)

# Views: pprof is encoded with protobuf-c (its compiler makes the C code from
# manager/views/pprof/profile.proto) and gzipped with zlib, `go tool pprof` reads it back, headless
# Chromium opens the flame graph.
view_pkgs=(libprotobuf-c-dev protobuf-c-compiler zlib1g-dev golang-go chromium fonts-dejavu-core)

# Benchmarks (tests/bench/): perf for `perf record` side by side with the sampler, ab (Apache's
# load generator: a fixed number of requests over loopback) for the web template under load.
bench_pkgs=(linux-perf apache2-utils)
# The status line is checked as a person sees it: in a terminal that tmux keeps (test_status).
bench_pkgs+=(tmux)

wanted=("${build_pkgs[@]}" "${symbol_pkgs[@]}" "${runtime_pkgs[@]}" "${fetch_pkgs[@]}" "${view_pkgs[@]}" "${bench_pkgs[@]}")
# Node.js and npm ship together in some images (not as Debian's npm package): take Debian's
# only when there is no npm at all.
if ! command -v npm >/dev/null 2>&1; then
    command -v node >/dev/null 2>&1 || wanted+=(nodejs)
    wanted+=(npm)
fi

# One dpkg-query for all of them; a package it does not know prints nothing.
declare -A installed
while read -r pkg status; do
    [[ "$status" == ii* ]] && installed[$pkg]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${wanted[@]}" 2>/dev/null || true)
missing=()
for pkg in "${wanted[@]}"; do
    [[ -n "${installed[$pkg]:-}" ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all ${#wanted[@]} packages present"
    exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
