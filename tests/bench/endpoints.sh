#!/usr/bin/env bash
# What --endpoints costs, side by side in one run: a server under `ab` load, its CPU time (user +
# system of the server process, from /proc, over the load alone) with no profiler, sampled at
# HZ, and sampled at HZ with --endpoints, in turn (the order rotates each round), ROUNDS times.
# Two servers: the SDK's web template (BUILD/real/web: GET / answers "Hello World!", the cheapest
# request there is, so the events per request weigh the most; its requests never leave their
# thread, so only the hosting events are asked for) and tests/apps-web/Endpoints on
# .NET 10 (GET /light/{id}: three bursts of work with awaits between them that hop threads, the
# most TPL events per unit of work). The medians, the ratios and the command go into
# docs/PERFORMANCE.md ("Endpoints").
#
# Usage: tests/bench/endpoints.sh BUILD [ROUNDS] [REQUESTS] [HZ]   (default 7 rounds, 20000 requests, 99 Hz;
#   the Endpoints app gets a fifth of the requests, each doing about 3 ms of work)
#   BUILD: a build folder with bin/sxsprof, real/web (tests/setup/build-apps.sh) and
#   apps/published/web10. Needs ab.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
source "$root/tests/bench/lib.sh"
usage="usage: endpoints.sh BUILD [ROUNDS] [REQUESTS] [HZ]"
build=$(cd "${1:?$usage}" && pwd)
rounds=${2:-7}
requests=${3:-20000}
hz=${4:-99}
dotnet=${SXS_DOTNET:-dotnet}
web_dll=$(ls "$build"/real/web/bin/Release/net*/web.dll 2>/dev/null | head -n 1 || true)
ep_dll=$build/apps/published/web10/Endpoints.dll
[[ -n $web_dll && -f $web_dll ]] || { echo "endpoints: no web fixture in $build/real/web" >&2; exit 1; }
[[ -f $ep_dll ]] || { echo "endpoints: no $ep_dll (tests/setup.sh)" >&2; exit 1; }
command -v ab >/dev/null || { echo "endpoints: needs ab (apache2-utils)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$tmp"' EXIT
clean_env=(env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH -u SXSPROF_CONFIG
    DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_gcServer=0)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# one SERVER MODE ROUND: appends the server's CPU seconds over the load to $tmp/SERVER-MODE
one() {
    local server=$1 mode=$2 r=$3 port dll path pid app_pid
    port=$(free_port)
    local n=$requests
    local warmup=$requests
    if [[ $server == web ]]; then dll=$web_dll; path=/; else dll=$ep_dll; path=/light/7; n=$((requests / 5)); warmup=$n; fi
    local -a cmd=("$dotnet" "$dll" --urls "http://127.0.0.1:$port")
    case $mode in
        none) "${clean_env[@]}" "${cmd[@]}" >"$tmp/out" 2>&1 & ;;
        sample) "${clean_env[@]}" "$build/bin/sxsprof" run -q --sample="$hz" --format json -o "$tmp/p-$mode" -- \
            "${cmd[@]}" >"$tmp/out" 2>&1 & ;;
        endpoints) "${clean_env[@]}" "$build/bin/sxsprof" run -q --sample="$hz" --endpoints --format json \
            -o "$tmp/p-$mode" -- "${cmd[@]}" >"$tmp/out" 2>&1 & ;;
    esac
    pid=$!
    for _ in $(seq 300); do
        curl -sf "http://127.0.0.1:$port$path" >/dev/null 2>&1 && break
        sleep 0.1
    done
    app_pid=$pid
    [[ $mode == none ]] || app_pid=$(pgrep -P "$pid" | head -n 1)
    # Warm-up (long enough that the runtime's tier-1 compilations, in the background for seconds
    # after the first requests, are over: measured otherwise, the JIT was 15 % of the server's CPU),
    # then the load measured.
    ab -q -n "$warmup" -c 4 "http://127.0.0.1:$port$path" >/dev/null
    local before after
    before=$(cpu_ticks "$app_pid")
    ab -q -n "$n" -c 4 "http://127.0.0.1:$port$path" >"$tmp/ab" 2>&1
    after=$(cpu_ticks "$app_pid")
    grep -q "Failed requests:        0" "$tmp/ab" || { echo "endpoints: failed requests" >&2; cat "$tmp/ab" >&2; exit 1; }
    kill -TERM "$app_pid"
    wait "$pid" || true
    awk -v a="$after" -v b="$before" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f\n", (a - b) / hz }' \
        >>"$tmp/$server-$mode"
    # Whether the TPL's events were asked for (a request left its thread): "endpoints-awaits" is
    # in the profile's features_off while they were not.
    if [[ $mode == endpoints ]]; then
        if grep -q '"endpoints-awaits"' "$tmp/p-$mode.json"; then echo no; else echo yes; fi >>"$tmp/$server-awaits"
    fi
    echo "bench: $server $mode round $r: $(tail -n 1 "$tmp/$server-$mode") s CPU"
}

modes=(none sample endpoints)
for ((r = 0; r < rounds; r++)); do
    for server in web light; do
        for ((k = 0; k < 3; k++)); do
            one "$server" "${modes[$(((r + k) % 3))]}" "$r"
        done
    done
done

section=$tmp/section
{
    echo "<!-- bench:endpoints -->"
    echo "### Endpoints: what --endpoints costs a server under load"
    echo
    echo "\`tests/bench/endpoints.sh BUILD $rounds $requests $hz\` ($(date -u +%Y-%m-%d), $(nproc) cores): the server's"
    echo "CPU seconds (user + system, from /proc) over $requests requests (the Endpoints app: $((requests / 5))) of"
    echo "\`ab -c 4\` after as many of warm-up,"
    echo "medians of $rounds rounds, each round the three modes in turn, their order rotating."
    echo
    echo "| server | no profiler | --sample=$hz | --sample=$hz --endpoints | endpoints / sampling alone |"
    echo "|---|---|---|---|---|"
    for server in web light; do
        n=$(bench_median 2 <"$tmp/$server-none")
        s=$(bench_median 2 <"$tmp/$server-sample")
        e=$(bench_median 2 <"$tmp/$server-endpoints")
        label="web template, GET /"
        [[ $server == light ]] && label="Endpoints app (.NET 10), GET /light/{id}"
        printf '| %s | %s s | %s s | %s s | %s |\n' "$label" "$n" "$s" "$e" \
            "$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%+.1f %%", 100 * (e - s) / s }')"
    done
    echo
    # Each round's endpoints / sampling ratio (the two ran minutes apart, not at once): their
    # median, and the smallest and largest, which hold the true median with a confidence of
    # 1 - 2 / 2^rounds (98 % for 7 rounds, the sign test's interval).
    for server in web light; do
        paste -d' ' "$tmp/$server-sample" "$tmp/$server-endpoints" | awk -v server="$server" -v n="$rounds" '
            { r[NR] = 100 * ($2 - $1) / $1 }
            END {
                for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
                m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
                label = server == "web" ? "web template" : "Endpoints app"
                printf "%s, endpoints over sampling alone round by round: median %+.1f %%, from %+.1f to %+.1f %% (%.0f %% interval of the median)\n", label, m, r[1], r[NR], 100 * (1 - 2 / 2 ^ NR)
            }'
        echo
    done
    echo "The TPL's events asked for (a request left its thread), round by round: web template" \
        "$(paste -sd' ' "$tmp/web-awaits"); Endpoints app $(paste -sd' ' "$tmp/light-awaits")."
    echo
    echo "Every round's figures (s): "
    for server in web light; do
        for mode in none sample endpoints; do
            echo "- $server, $mode: $(paste -sd' ' "$tmp/$server-$mode")"
        done
    done
    echo "<!-- /bench:endpoints -->"
} >"$section"
cat "$section"
bench_write_section "$root/docs/PERFORMANCE.md" "<!-- bench:endpoints -->" "<!-- /bench:endpoints -->" "$section" "$tmp"
