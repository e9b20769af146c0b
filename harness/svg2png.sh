#!/usr/bin/env bash
# Renders a flame graph SVG to a PNG with headless Chromium, as a browser shows it (the PNG in
# the README is made this way from the demo's flame graph).
#
# Usage: harness/svg2png.sh GRAPH.svg OUT.png [WIDTH]      (default width 1200 px)
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: harness/svg2png.sh GRAPH.svg OUT.png [WIDTH]" >&2; exit 2; }
svg=$(realpath "$1")
out=$(realpath -m "$2")
width=${3:-1200}
# The graph's height, from the SVG's own height attribute.
tag=$(grep -m1 -o '<svg [^>]*>' "$svg" || true)
height=${tag#* height=\"}
height=${height%%[\".]*}
[[ $height =~ ^[0-9]+$ ]] || height=800
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --window-size="$width,$height" --screenshot="$out" "file://$svg" >/dev/null 2>&1
[[ -s $out ]] || { echo "svg2png: chromium wrote no PNG" >&2; exit 1; }
echo "svg2png: $out"
