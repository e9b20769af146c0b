#!/usr/bin/env bash
# How large a profile is, by the build that wrote it, on the same work side by side: the profile
# JSON, its bytes per sample and per distinct stack, and the spool's bytes, for `dotnet build` of a
# console project (the build host and csc, both profiled) under `sxsprof run --sample=HZ`, with the
# profiler of the build BEFORE and of the build AFTER, in turn, ROUNDS times. Then the profiles the
# AFTER build wrote are read back: `sxsprof report X.json --format folded` must give the run's own
# folded file byte for byte. The medians go into docs/PERFORMANCE.md ("Profile size").
#
# Usage: tests/bench/profile_size.sh BEFORE AFTER [ROUNDS] [HZ]   (default 3 rounds, 999 Hz)
#   BEFORE, AFTER: build folders with bin/sxsprof and lib/libsxsprof.so.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
source "$root/tests/bench/lib.sh"
before=$(cd "${1:?usage: profile_size.sh BEFORE AFTER [ROUNDS] [HZ]}" && pwd)
after=$(cd "${2:?usage: profile_size.sh BEFORE AFTER [ROUNDS] [HZ]}" && pwd)
rounds=${3:-3}
hz=${4:-999}
dotnet=${SXS_DOTNET:-dotnet}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
clean_env=(env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH -u SXSPROF_CONFIG)

# A console project, restored once.
"$dotnet" new console -o "$tmp/app" >/dev/null
"$dotnet" restore "$tmp/app" >/dev/null

# once BUILD LABEL ROUND: one profiled build; appends "bytes samples stacks spool_max" per profile
once() {
    local build=$1 label=$2 r=$3 out=$tmp/out-$2-$3
    mkdir -p "$out"
    # The spool's largest size while the build runs, sampled every 100 ms.
    ( max=0; while sleep 0.1; do for f in "$out"/*.spool; do [[ -f $f ]] || continue
          s=$(stat -c %s "$f" 2>/dev/null || echo 0); ((s > max)) && max=$s; done
          echo "$max" >"$out/spool-max.new" && mv "$out/spool-max.new" "$out/spool-max"; done ) &
    local watcher=$!
    "${clean_env[@]}" "$build/bin/sxsprof" run -q --sample="$hz" -o "$out/" -- \
        "$dotnet" build --no-incremental -nodeReuse:false -p:UseSharedCompilation=false "$tmp/app" >/dev/null 2>&1
    kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null || true
    local spool_max; spool_max=$(cat "$out/spool-max" 2>/dev/null || true)
    [[ $spool_max =~ ^[0-9]+$ ]] || spool_max=0
    python3 - "$spool_max" "$out"/*.json >>"$tmp/$label" <<'PY'
import json, os, sys
spool = int(sys.argv[1])
total = samples = stacks = 0
for path in sys.argv[2:]:
    if path.endswith(".speedscope.json"):
        continue
    d = json.load(open(path))
    total += os.path.getsize(path)
    st = d["samples"]["stacks"]
    samples += sum(s["count"] for s in st)
    stacks += len(st)
print(total, samples, stacks, spool)
PY
    if [[ $label == after ]]; then
        for j in "$out"/*.json; do
            [[ $j == *.speedscope.json ]] && continue
            "$after/bin/sxsprof" report "$j" --format folded -o "$tmp/back" >/dev/null 2>&1
            if ! cmp -s "$tmp/back.folded" "${j%.json}.folded"; then
                echo "profile_size: $j does not read back to its run's folded file" >&2
                exit 1
            fi
        done
    fi
    rm -rf "$out"
}

for r in $(seq 1 "$rounds"); do
    if ((r % 2)); then once "$before" before "$r"; once "$after" after "$r"
    else once "$after" after "$r"; once "$before" before "$r"; fi
    echo "bench: round $r: before $(tail -1 "$tmp/before"), after $(tail -1 "$tmp/after") (bytes samples stacks spool)"
done

col() { awk -v c="$2" '{print $c}' "$tmp/$1" | bench_median 0; }
per() { awk -v a="$2" -v b="$3" '{ if ($b > 0) printf "%.1f\n", $a / $b }' "$tmp/$1" | bench_median 1; }
b_bytes=$(col before 1); a_bytes=$(col after 1)
ratio=$(awk -v b="$b_bytes" -v a="$a_bytes" 'BEGIN { printf "%.1f", b / a }')
section=$tmp/section
{
    echo "<!-- bench:profile_size -->"
    echo "## Profile size"
    echo
    echo "The profile JSON of \`dotnet build\` of a console project (the build host and csc, both"
    echo "profiled) at $hz Hz, by the build before the frame table (profile version 1: every frame of"
    echo "every stack written out) and after it (version 2), side by side, $rounds rounds, medians:"
    echo
    echo '```'
    echo "tests/bench/profile_size.sh BEFORE AFTER $rounds $hz      # $(date -u +%Y-%m-%d)"
    echo '```'
    echo
    echo "| build | profile bytes | samples | distinct stacks | bytes per sample | bytes per stack | spool's largest size |"
    echo "|---|---|---|---|---|---|---|"
    echo "| before | $b_bytes | $(col before 2) | $(col before 3) | $(per before 1 2) | $(per before 1 3) | $(col before 4) |"
    echo "| after | $a_bytes | $(col after 2) | $(col after 3) | $(per after 1 2) | $(per after 1 3) | $(col after 4) |"
    echo
    echo "The profile is ${ratio}x smaller, and every profile the later build wrote reads back through"
    echo "\`sxsprof report\` to its run's folded file byte for byte. A profile's size follows its"
    echo "distinct stacks and frames, not its samples: a stack seen again adds to a count."
    echo "<!-- /bench:profile_size -->"
} >"$section"
cat "$section"
[[ -n "${SXS_BENCH_NO_DOC:-}" ]] || bench_write_section "$root/docs/PERFORMANCE.md" "<!-- bench:profile_size -->" \
    "<!-- /bench:profile_size -->" "$section" "$tmp"
