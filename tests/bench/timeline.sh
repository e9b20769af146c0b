#!/usr/bin/env bash
# What the timeline costs, side by side with a build without it, on 100 busy threads at 99 Hz:
# tests/apps/Threads with 100 spinning threads for SECONDS under `sxsprof run -q --wall --sample`
# (wall mode samples every thread every tick: 9,900 samples a second on any number of cores, as
# 100 busy threads on 100 cores would give in cpu mode), by the build BEFORE and the build AFTER,
# in turn, ROUNDS times. Measured per run: the program's peak resident set (GNU time), the
# profile's bytes, the samples on the timeline and the largest size the spool reached. The
# medians, and what they come to over an hour (the timeline's detail stops growing at its 64 MiB
# cap; the folded seconds go on at 24 bytes per thread per second), go into docs/PERFORMANCE.md
# ("The timeline's cost").
#
# Usage: tests/bench/timeline.sh BEFORE AFTER [SECONDS] [ROUNDS]   (default 60 s, 3 rounds)
#   BEFORE, AFTER: build folders with bin/sxsprof and lib/libsxsprof.so; AFTER's apps are run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
source "$root/tests/bench/lib.sh"
usage="usage: timeline.sh BEFORE AFTER [SECONDS] [ROUNDS]"
before=$(cd "${1:?$usage}" && pwd)
after=$(cd "${2:?$usage}" && pwd)
seconds=${3:-60}
rounds=${4:-3}
threads=100
dotnet=${SXS_DOTNET:-dotnet}
app=$after/apps/Threads/Threads.dll
[[ -f $app ]] || { echo "timeline: no $app (tests/setup.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "timeline: needs GNU time" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clean_env=(env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH -u SXSPROF_CONFIG
    DOTNET_CLI_TELEMETRY_OPTOUT=1)

# one BUILD NAME ROUND: appends "peak_kib profile_bytes timeline_samples spool_max_bytes detail_bytes"
# to $tmp/NAME
one() {
    local build=$1 name=$2 r=$3 out=$tmp/$2-$3 spool_max=0 size
    mkdir -p "$out"
    "${clean_env[@]}" /usr/bin/time -f "%M" -o "$out/time" "$build/bin/sxsprof" run -q --wall --sample \
        --format json -o "$out/p" -- "$dotnet" "$app" "$threads" "$threads" "$seconds" >"$out/stdout" 2>"$out/stderr" &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        size=$(stat -c %s "$out/p.spool" 2>/dev/null || echo 0)
        ((size > spool_max)) && spool_max=$size
        sleep 1
    done
    wait "$pid" || { echo "timeline: $name run $r failed:" >&2; cat "$out/stderr" >&2; exit 1; }
    local counts
    counts=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
t = p.get("timeline")
print(sum(len(th["t"]) for th in t["threads"]) if t else 0, t.get("detail_bytes", 0) if t else 0)' "$out/p.json")
    echo "$(tail -n 1 "$out/time") $(stat -c %s "$out/p.json") ${counts% *} $spool_max ${counts#* }" >>"$tmp/$name"
    echo "bench: raw $name round $r: $(tail -n 1 "$tmp/$name")"
}

for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then one "$before" before "$r"; one "$after" after "$r"; else one "$after" after "$r"; one "$before" before "$r"; fi
done

col() { awk -v c="$2" '{print $c}' "$tmp/$1" | bench_median 0; }
b_rss=$(col before 1); a_rss=$(col after 1)
b_json=$(col before 2); a_json=$(col after 2)
a_samples=$(col after 3)
b_spool=$(col before 4); a_spool=$(col after 4)
a_detail=$(col after 5)
calc() { awk "BEGIN { $1 }"; }
rate=$(calc "printf \"%.0f\", $a_samples / $seconds")
detail_per=$(calc "printf \"%.1f\", $a_detail / $a_samples")
json_per=$(calc "printf \"%.1f\", ($a_json - $b_json) / $a_samples")
busy=$((threads * 99))
hour=$((busy * 3600))
cap_samples=$(calc "printf \"%.0f\", 64 * 1048576 / 8")
cap_minutes=$(calc "printf \"%.1f\", $cap_samples / $busy / 60")
seconds_mib=$(calc "printf \"%.1f\", $threads * 3600 * 24 / 1048576")
hour_mem=$(calc "printf \"%.0f\", 64 + $seconds_mib")
hour_json=$(calc "printf \"%.0f\", ($cap_samples * $json_per + $threads * 3600 * 20) / 1e6")
window_mib=$(calc "printf \"%.0f\", $busy * 600 * 8 / 1048576")
section=$tmp/section
{
    echo "<!-- bench:timeline -->"
    echo "## The timeline's cost"
    echo
    echo "$threads threads spinning for $seconds s under \`sxsprof run -q --wall --sample\` (99 Hz), by the build"
    echo "before the timeline and the build with it, in turn, $rounds rounds, medians. On 2 cores the wall"
    echo "sampler walks about $rate threads a second (a thread it skips counts several periods in one sample);"
    echo "the timeline's costs are per sample recorded:"
    echo
    echo '```'
    echo "tests/bench/timeline.sh BEFORE AFTER $seconds $rounds      # $(date -u +%Y-%m-%d)"
    echo '```'
    echo
    echo "| build | peak RSS (KiB) | profile bytes | samples on the timeline | timeline's memory (bytes) | spool's largest size |"
    echo "|---|---|---|---|---|---|"
    echo "| before | $b_rss | $b_json | - | - | $b_spool |"
    echo "| after | $a_rss | $a_json | $a_samples | $a_detail | $a_spool |"
    echo
    echo "A sample takes $detail_per bytes of the profiler's memory (8 in a chunk of 8,192, the chunk under way"
    echo "counted whole) and $json_per bytes of the profile. $threads busy threads at 99 Hz (cpu mode on $threads cores,"
    echo "or every thread walked every tick) make $busy samples a second, $hour an hour: the detail"
    echo "reaches its 64 MiB cap after $cap_minutes minutes ($cap_samples samples, kept in full), and the"
    echo "older time is kept as samples per second per thread, $seconds_mib MiB an hour for $threads threads: about"
    echo "$hour_mem MiB of memory after an hour, and a profile of about $hour_json MB. \`--timeline 10m\` keeps"
    echo "ten minutes in detail instead: about $window_mib MiB. The peak RSS is $((a_rss - b_rss)) KiB higher with"
    echo "the timeline: its detail, and at exit its copy in the profile being written (the model's"
    echo "samples, 24 bytes each, and the JSON text)."
    echo "<!-- /bench:timeline -->"
} >"$section"
cat "$section"
[[ -n "${SXS_BENCH_NO_DOC:-}" ]] || bench_write_section "$root/docs/PERFORMANCE.md" "<!-- bench:timeline -->" \
    "<!-- /bench:timeline -->" "$section" "$tmp"
