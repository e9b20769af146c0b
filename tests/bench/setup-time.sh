#!/usr/bin/env bash
# The set-up as a fresh machine runs it: a fresh clone, nothing downloaded yet (runtimes, npm tools,
# NuGet packages and NuGet's and npm's download caches all empty, in a temporary folder), then
# `tests/setup.sh build` with the seconds since the start before every line it prints, the load
# average before, during (every 30 s) and after, and the CPU time of the whole set-up. Only the
# Debian packages are taken as installed (the set-up checks them and goes on).
#
# Usage: tests/bench/setup-time.sh [REV]       (default HEAD; REV of this repository)
#        SXS_KEEP=1 keeps the temporary folder and says where it is.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rev=${1:-HEAD}
[[ -x /usr/bin/time ]] || { echo "bench: needs GNU time" >&2; exit 1; }

base=$(mktemp -d "${TMPDIR:-/tmp}/sxs-setup-time.XXXXXX")
loadpid=
finish() {
    [[ -z $loadpid ]] || kill "$loadpid" 2>/dev/null || true
    if [[ -n ${SXS_KEEP:-} ]]; then
        echo "bench: kept $base"
    else
        rm -rf "$base"
    fi
}
trap finish EXIT

git clone -q "$root" "$base/src"
git -C "$base/src" checkout -q "$(git -C "$root" rev-parse "$rev")"
export SXS_RUNTIMES_DIR=$base/runtimes SXS_NODE_TOOLS_DIR=$base/node NUGET_PACKAGES=$base/nuget \
    NUGET_HTTP_CACHE_PATH=$base/nuget-http npm_config_cache=$base/npm
cd "$base/src"

echo "bench: $(git log -1 --format='%h %s' | cut -c1-80)"
echo "bench: load before $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$EPOCHREALTIME
since() {
    local now=$EPOCHREALTIME
    local ms=$(( (${now/./} - ${t0/./}) / 1000 ))
    printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}
( while sleep 30; do echo "bench: load at $(since) s: $(cut -d' ' -f1-3 /proc/loadavg)"; done ) &
loadpid=$!
rc=0
/usr/bin/time -o "$base/cpu" -f '%U %S' bash tests/setup.sh build 2>&1 |
    while IFS= read -r line; do printf '%7s  %s\n' "$(since)" "$line"; done || rc=$?
kill "$loadpid" 2>/dev/null || true
loadpid=
read -r user sys < <(tail -n 1 "$base/cpu") || true
echo "bench: exit $rc, $(since) s, CPU ${user:-?} s user + ${sys:-?} s sys; load after $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$rc"
