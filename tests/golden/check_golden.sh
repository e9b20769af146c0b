#!/usr/bin/env bash
# Saved profiles render to the same bytes as they did when their views were kept here: every view
# of tests/unit/data/*.json (speedscope, folded, SVG, pprof, the summary, by line and per event
# profile) is rendered with `sxsprof report` and compared byte for byte with tests/golden/. A
# change that means to change a view regenerates them (SXS_GOLDEN_UPDATE=1) and the diff shows
# what changed; one that does not must leave them alone.
#
# Each saved profile is kept in every profile version sxsprof has written: tests/unit/data/*.json
# in version 1 (every frame of every stack written out), tests/unit/data/v2/ the same profiles in
# version 2 (a frame table, stacks as indices), made with `sxsprof report X.json --format json`.
# Every view of a version-2 twin must be byte for byte the view of its version-1 profile.
#
# Usage: tests/golden/check_golden.sh SOURCE_DIR SXSPROF
set -uo pipefail
src=$(cd "${1:?usage: check_golden.sh SOURCE_DIR SXSPROF}" && pwd)
sxsprof=${2:?usage: check_golden.sh SOURCE_DIR SXSPROF}
golden="$src/tests/golden"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 2

shopt -s nullglob
fixtures=(tests/unit/data/*.json)
if [[ ${#fixtures[@]} -eq 0 ]]; then
    echo "check_golden: no saved profiles in tests/unit/data" >&2
    exit 1
fi
# Each view: its file name, then the report's arguments.
render() {
    local name=$1 fixture=$2
    "$sxsprof" report "$fixture" --format all -o "$tmp/$name" >"$tmp/$name.summary" 2>/dev/null || return 1
    "$sxsprof" report "$fixture" --lines --format folded -o "$tmp/$name.lines" >/dev/null 2>&1
    "$sxsprof" report "$fixture" --by component --format folded -o "$tmp/$name.components" >/dev/null 2>&1
    for view in calls exceptions contention allocations; do
        "$sxsprof" report "$fixture" --view "$view" --format folded -o "$tmp/$name.$view" >/dev/null 2>&1
    done
    return 0
}

mkdir -p "$tmp/twins"
twins=0
for fixture in "${fixtures[@]}"; do
    name=$(basename "$fixture" .json)
    if ! render "$name" "$fixture"; then
        echo "check_golden: sxsprof report $fixture failed" >&2
        exit 1
    fi
    rm -f "$tmp/$name.json"
    twin="tests/unit/data/v2/$name.json"
    if [[ ! -f "$twin" ]] || ! grep -q '"version": 2' "$twin"; then
        echo "check_golden: no version-2 twin $twin of $fixture" >&2
        exit 1
    fi
    ( tmp=$tmp/twins; render "$name" "$twin" ) || { echo "check_golden: sxsprof report $twin failed" >&2; exit 1; }
    rm -f "$tmp/twins/$name.json"
    for f in "$tmp/twins/$name".*; do
        twins=$((twins + 1))
        # A summary's first line names the file it read.
        if [[ $f == *.summary ]]; then
            same() { cmp -s <(tail -n +2 "$1") <(tail -n +2 "$2"); }
        else
            same() { cmp -s "$1" "$2"; }
        fi
        if ! same "$f" "$tmp/$(basename "$f")"; then
            echo "check_golden: $twin renders $(basename "$f") differently from $fixture" >&2
            bad_twin=1
        fi
    done
done
[[ -z "${bad_twin:-}" ]] || exit 1
rm -rf "$tmp/twins"

if [[ "${SXS_GOLDEN_UPDATE:-}" == 1 ]]; then
    rm -f "$golden"/*.out
    for f in "$tmp"/*; do cp "$f" "$golden/$(basename "$f").out"; done
    echo "check_golden: $(ls "$tmp" | wc -l) views written to tests/golden"
    exit 0
fi

bad=0 compared=0
for f in "$tmp"/*; do
    want="$golden/$(basename "$f").out"
    compared=$((compared + 1))
    if [[ ! -f "$want" ]]; then
        echo "check_golden: $(basename "$f") is new: no tests/golden/$(basename "$want")" >&2
        bad=1
    elif ! cmp -s "$f" "$want"; then
        echo "check_golden: $(basename "$f") differs from tests/golden/$(basename "$want"):" >&2
        case "$f" in
        *.gz) cmp "$f" "$want" >&2 ;;
        *) diff "$want" "$f" | head -20 >&2 ;;
        esac
        bad=1
    fi
done
for want in "$golden"/*.out; do
    [[ -f "$tmp/$(basename "$want" .out)" ]] || { echo "check_golden: $(basename "$want") is no longer rendered" >&2; bad=1; }
done
[[ $bad -eq 0 ]] || exit 1
echo "check_golden: $compared views of ${#fixtures[@]} saved profiles, byte for byte as kept; $twins views of their version-2 twins the same"
