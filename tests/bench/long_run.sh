#!/usr/bin/env bash
# A profiled server over a long run: does anything grow but what the program's code adds? The
# SDK's web template (BUILD/real/web) is loaded without pause over loopback (`ab -k -c 8`, batch
# after batch) for MINUTES, once without a profiler and once under `sxsprof run -q --sample=HZ`
# for each HZ, one run after the other; every 10 s the server's resident set (VmRSS), the run's
# spool and its profile (rewritten every flush=, 60 s) are measured. The growth that counts is
# from the end of the first minute to the end, per 10 minutes; the target is under 2 MB per 10
# minutes for the RSS over the server's own and for the spool. A variant HZ:WINDOW runs with
# `--timeline WINDOW` (the timeline's detail kept for the last WINDOW only). The tables go into
# docs/PERFORMANCE.md ("A long run", set SXS_BENCH_NO_DOC=1 to leave it alone).
#
# Usage: tests/bench/long_run.sh BUILD [MINUTES] [HZ[:WINDOW]...]      (default 10 minutes, 99 and 999 Hz)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
source "$root/tests/bench/lib.sh"
build=$(cd "${1:?usage: long_run.sh BUILD [MINUTES] [HZ...]}" && pwd)
minutes=${2:-10}
shift $(($# >= 2 ? 2 : $#))
hzs=("$@")
((${#hzs[@]})) || hzs=(99 999)
die() { echo "long_run: $*" >&2; exit 1; }
((minutes >= 5)) || die "MINUTES is at least 5 (the spool is compared over minutes 1-3 and the last 3)"
web_dll=${SXS_WEB_DLL:-$(ls "$build"/real/web/bin/Release/net*/web.dll 2>/dev/null | head -n 1 || true)}
[[ -n $web_dll && -f $web_dll ]] || die "no web fixture in $build/real/web (tests/setup/build-apps.sh $build)"
command -v ab >/dev/null || die "needs ab from apache2-utils (tests/setup.sh)"
tmp=$(mktemp -d)
server=""
cleanup() { [[ -n $server ]] && kill -KILL "$server" 2>/dev/null; pkill -P $$ ab 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
clean_env=(env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH -u SXSPROF_CONFIG
    DOTNET_CLI_TELEMETRY_OPTOUT=1 ASPNETCORE_ENVIRONMENT=Production Logging__LogLevel__Default=Warning)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
bytes_of() { local t=0 f; for f in "$@"; do [[ -f $f ]] && t=$((t + $(stat -c %s "$f" 2>/dev/null || echo 0))); done; echo $t; }

# What the profiles in folder OUT say: samples, distinct stacks, frames in the table, bytes, the
# timeline's detail bytes and the stacks recorder's bytes (summed over the processes).
profile_facts() {
    python3 - "$1" <<'PY'
import glob, json, os, sys
n = st = fr = size = tl = rb = 0
for path in glob.glob(sys.argv[1] + "/*.json"):
    if path.endswith(".speedscope.json"):
        continue
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        continue
    stacks = d["samples"]["stacks"]
    n += sum(s["count"] for s in stacks)
    st += len(stacks)
    fr += len(d.get("frame_table") or [])
    size += os.path.getsize(path)
    tl += (d.get("timeline") or {}).get("detail_bytes", 0)
    rb += (d.get("stack_walks") or {}).get("recorder_bytes", 0)
print(n, st, fr, size, tl, rb)
PY
}

# one VARIANT ("none" or a frequency): writes "seconds rss_kib spool_bytes profile_bytes" lines to $tmp/VARIANT
one() {
    local v=$1 port out=$tmp/out-$1 i wrapper
    port=$(free_port)
    mkdir -p "$out"
    if [[ $v == none ]]; then
        "${clean_env[@]}" dotnet "$web_dll" --urls "http://127.0.0.1:$port" >"$tmp/web.log" 2>&1 &
    else
        local window=()
        [[ $v == *:* ]] && window=(--timeline "${v#*:}")
        "${clean_env[@]}" "$build/bin/sxsprof" run -q --sample="${v%%:*}" "${window[@]}" -o "$out/" -- \
            dotnet "$web_dll" --urls "http://127.0.0.1:$port" >"$tmp/web.log" 2>&1 &
    fi
    wrapper=$!
    server=""
    for ((i = 0; i < 600; i++)); do
        if [[ -z $server ]]; then
            for p in $wrapper $(pgrep -P "$wrapper" || true); do
                [[ $(cat "/proc/$p/comm" 2>/dev/null) == dotnet ]] && grep -qF "$web_dll" "/proc/$p/cmdline" 2>/dev/null &&
                    { server=$p; break; }
            done
        fi
        [[ -n $server ]] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    [[ -n $server ]] || { cat "$tmp/web.log" >&2; die "the server under $v did not start"; }
    # Load without pause until the run is over.
    ( while :; do ab -q -k -n 20000 -c 8 "http://127.0.0.1:$port/" >/dev/null 2>&1 || sleep 0.2; done ) &
    local load=$!
    local start; start=$(date +%s)
    : >"$tmp/$v"
    for ((s = 10; s <= minutes * 60; s += 10)); do
        sleep $((start + s - $(date +%s) > 0 ? start + s - $(date +%s) : 0))
        shopt -s nullglob
        local spools=("$out"/*.spool) profiles=()
        for f in "$out"/*.json; do [[ $f == *.speedscope.json ]] || profiles+=("$f"); done
        shopt -u nullglob
        echo "$s $(kib "$server") $(bytes_of "${spools[@]}") $(bytes_of "${profiles[@]}")" >>"$tmp/$v"
        # The first profile (written at 60 s): what the recorder and the timeline held then.
        if [[ $s == 70 && $v != none ]]; then profile_facts "$out" >"$tmp/$v.first"; fi
    done
    kill "$load" 2>/dev/null; wait "$load" 2>/dev/null || true
    pkill -P $$ ab 2>/dev/null || true
    kill -TERM "$server"
    for ((i = 0; i < 1200; i++)); do kill -0 "$wrapper" 2>/dev/null || break; sleep 0.1; done
    wait "$wrapper" 2>/dev/null || true
    server=""
    if [[ $v != none ]]; then
        profile_facts "$out" >"$tmp/$v.final"
    fi
    echo "bench: $v done: $(tail -1 "$tmp/$v")"
    rm -rf "$out"
}

one none
for hz in "${hzs[@]}"; do one "$hz"; done

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# value of column C at second S of VARIANT
at() { awk -v s="$2" -v c="$3" '$1 == s { print $c }' "$tmp/$1"; }
# the lowest and the largest value of column C over seconds [FROM, TO] of VARIANT
lowest() { awk -v a="$2" -v b="$3" -v c="$4" '$1 >= a && $1 <= b && (m == "" || $c < m) { m = $c } END { print m }' "$tmp/$1"; }
largest() { awk -v c="$2" '$c > m { m = $c } END { print m + 0 }' "$tmp/$1"; }
last=$((minutes * 60))
section=$tmp/section
{
    echo "<!-- bench:long_run -->"
    echo "## A long run: memory and files over $minutes minutes of load"
    echo
    echo "The web template under continuous \`ab -k -c 8\` load for $minutes minutes, without a profiler and under"
    echo "\`sxsprof run -q --sample=HZ\`, one run after the other; every 10 s the server's RSS, the spool and"
    echo "the profile (rewritten every 60 s) are measured. Growth counts from the end of the first minute to"
    echo "the end, per 10 minutes. The resident set rises while the profile is written (every 60 s, the model"
    echo "and its text built and freed): RSS at a minute is the lowest of that minute's six measures (what"
    echo "the process holds between writes), and the largest RSS seen is the writes' peak. A run with"
    echo "\`--timeline WINDOW\` keeps the timeline's detail (every sample's time) for the last WINDOW only,"
    echo "older time folded into samples per second and thread. The spool is a log rewritten as one batch"
    echo "of everything once it is twice that batch: its size saws between the two, so its growth is"
    echo "of its lowest size (just after a rewrite) over minutes 1 to 3 and over the last 3, and its"
    echo "largest size is given beside it."
    echo
    echo '```'
    echo "tests/bench/long_run.sh BUILD $minutes ${hzs[*]}      # $(date -u +%Y-%m-%d)"
    echo '```'
    echo
    echo "| run | RSS at 1 min (MB) | RSS at the end (MB) | RSS growth per 10 min (MB) | largest RSS (MB) | spool, lowest in minutes 1-3 (MB) | spool, lowest in the last 3 minutes (MB) | spool growth per 10 min (MB) | largest spool (MB) | profile at the end (MB) | samples | distinct stacks | frames in the table | timeline's detail at the end (MB) | its growth per 10 min (MB) | stacks recorder at the end (MB) | its growth per 10 min (MB) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for v in none "${hzs[@]}"; do
        r1=$(lowest "$v" 60 110 2); r2=$(lowest "$v" $((last - 50)) "$last" 2); rmax=$(largest "$v" 2); p2=$(at "$v" "$last" 4)
        s1=$(lowest "$v" 60 180 3); s2=$(lowest "$v" $((last - 170)) "$last" 3); smax=$(largest "$v" 3)
        rg=$(awk -v a="$r1" -v b="$r2" -v m="$minutes" 'BEGIN { printf "%.1f", (b - a) / 1024 * 10 / (m - 1) }')
        # per 10 minutes over the time between the two windows' starts (60 s and last - 170 s)
        sg=$(awk -v a="$s1" -v b="$s2" -v last="$last" 'BEGIN { printf "%.1f", (b - a) / 1048576 * 600 / (last - 230) }')
        if [[ $v == none ]]; then
            echo "| no profiler | $(awk -v k="$r1" 'BEGIN{printf "%.1f", k/1024}') | $(awk -v k="$r2" 'BEGIN{printf "%.1f", k/1024}') | $rg | $(awk -v k="$rmax" 'BEGIN{printf "%.1f", k/1024}') | – | – | – | – | – | – | – | – | – | – | – | – |"
        else
            read -r n st fr _ tl rb <"$tmp/$v.final"
            read -r _ _ _ _ tl1 rb1 <"$tmp/$v.first" 2>/dev/null || tl1="" rb1=""
            # per 10 minutes from the first profile (60 s) to the last
            per10() { [[ -n $2 ]] && awk -v a="$2" -v b="$1" -v last="$last" 'BEGIN { printf "%.1f", (b - a) / 1048576 * 600 / (last - 60) }' || echo "–"; }
            label="${v%%:*} Hz"
            [[ $v == *:* ]] && label+=", --timeline ${v#*:}"
            echo "| $label | $(awk -v k="$r1" 'BEGIN{printf "%.1f", k/1024}') | $(awk -v k="$r2" 'BEGIN{printf "%.1f", k/1024}') | $rg | $(awk -v k="$rmax" 'BEGIN{printf "%.1f", k/1024}') | $(mb "$s1") | $(mb "$s2") | $sg | $(mb "$smax") | $(mb "$p2") | $n | $st | $fr | $(mb "$tl") | $(per10 "$tl" "$tl1") | $(mb "$rb") | $(per10 "$rb" "$rb1") |"
        fi
    done
    echo
    echo "Every 10 s (seconds: RSS MB, spool MB, profile MB):"
    echo
    echo '```'
    for v in none "${hzs[@]}"; do
        echo "$v: $(awk '$1 % 60 == 0 { printf "%d: %.0f/%.1f/%.1f  ", $1, $2 / 1024, $3 / 1048576, $4 / 1048576 }' "$tmp/$v")"
    done
    echo '```'
    echo "<!-- /bench:long_run -->"
} >"$section"
cat "$section"
[[ -n "${SXS_BENCH_NO_DOC:-}" ]] || bench_write_section "$root/docs/PERFORMANCE.md" "<!-- bench:long_run -->" \
    "<!-- /bench:long_run -->" "$section" "$tmp"
