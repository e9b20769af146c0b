#!/usr/bin/env bash
# What profiling costs real programs, side by side in one run, against `perf record -g` and
# `dotnet-trace collect` on the same work (the targets of the "Pay only for what was asked"
# work). Three workloads, each run without a profiler, under `sxsprof run -q` with nothing asked
# (the defaults: profiler loaded, every view written at exit), with `--sample` (99 Hz) and
# `--sample=999`, under `perf record -F 99 -g` with the runtime's perf map
# (DOTNET_PerfMapEnabled=1) and under `dotnet-trace collect` (its default profile, CPU sampling):
#
#   build   `dotnet build --no-incremental` of a console project made from the SDK's template in
#           a scratch folder (restored once, not timed), no build server and no node reuse: the
#           build host and the compiler (csc) are both profiled. Wall and CPU (user + system of
#           the whole process tree, the tool's own processes included) per build.
#   web     the SDK's web template (BUILD/real/web, tests/setup/build-apps.sh) on loopback under
#           `ab -k` (apache2-utils), a fixed number of requests after a fixed warm-up: the
#           server's CPU over the load phase (utime + stime from /proc/PID/stat, startup
#           excluded), requests per second, and the tool's own processes' CPU over the phase.
#   hello   a hello-world start (the console project's dll): wall per process, run after run,
#           without a profiler, under `sxsprof run -q`, and with the profiler loaded by the
#           environment alone (one process, no launcher).
#
# Rounds are interleaved (every variant once per round, in turn, each round starting one variant
# further on) so machine noise hits all alike; the tables give medians, the ratios over no
# profiler in the same round (median and range), the target of each and whether the median meets
# it, and, for every sxsprof variant, the sampler's capture p50 / p99 and the resolution time per
# sample read from the profiles. Every run's numbers are printed too ("bench: raw ..."). The
# tables are printed and written as the first section of docs/PERFORMANCE.md (set
# SXS_BENCH_NO_DOC=1 to leave it alone).
#
# Usage: tests/bench/real.sh BUILD [ROUNDS]        (default 3 rounds)
#   BUILD: a build folder with bin/sxsprof and lib/libsxsprof.so (real/web from its build-apps
#   run, or SXS_WEB_DLL=path/web.dll). Needs perf, ab, GNU time and dotnet-trace
#   (tests/setup.sh installs them; dotnet-trace in $SXS_TOOLS_DIR, default
#   ~/.local/share/sxsprof/tools). Environment: SXS_BENCH_HELLO_RUNS (default 20 per variant),
#   SXS_BENCH_REQUESTS (default 20000), SXS_BENCH_WARMUP (default 3000), SXS_BENCH_CONCURRENCY
#   (default 8), SXS_BENCH_VARIANTS (above), SXS_BENCH_WORKLOADS (default "build web hello": which of
#   the three run; the tables of the others are left out, and the document's section is written only
#   when all three ran).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
. "$root/tests/bench/lib.sh"
bench_build_rounds "usage: tests/bench/real.sh BUILD [ROUNDS]" 3 "$@"
hello_runs=${SXS_BENCH_HELLO_RUNS:-20}
requests=${SXS_BENCH_REQUESTS:-20000}
warmup=${SXS_BENCH_WARMUP:-3000}
concurrency=${SXS_BENCH_CONCURRENCY:-8}
tools_dir=${SXS_TOOLS_DIR:-$HOME/.local/share/sxsprof/tools}
sxsprof=$build/bin/sxsprof
lib=$build/lib/libsxsprof.so
dotnet_trace=$tools_dir/dotnet-trace
before=${SXS_BENCH_BEFORE:-}
web_dll=${SXS_WEB_DLL:-$(ls "$build"/real/web/bin/Release/net*/web.dll 2>/dev/null | head -n 1 || true)}

die() { echo "bench: $*" >&2; exit 1; }
[[ -x $sxsprof && -f $lib ]] || die "$build is not a build (no bin/sxsprof, lib/libsxsprof.so)"
[[ -z $before || (-x $before/bin/sxsprof && -f $before/lib/libsxsprof.so) ]] ||
    die "SXS_BENCH_BEFORE=$before is not a build (no bin/sxsprof, lib/libsxsprof.so)"
[[ -n $web_dll && -f $web_dll ]] || die "no web fixture in $build/real/web (tests/setup/build-apps.sh $build)"
[[ -x /usr/bin/time ]] || die "needs GNU time (tests/setup.sh)"
command -v perf >/dev/null || die "needs perf (tests/setup.sh)"
command -v ab >/dev/null || die "needs ab from apache2-utils (tests/setup.sh)"
[[ -x $dotnet_trace ]] || die "needs dotnet-trace in $tools_dir (tests/setup/install-tools.sh)"
tck=$(getconf CLK_TCK)

tmp=$(mktemp -d)
server_pid=""
cleanup() {
    [[ -n $server_pid ]] && kill -TERM "$server_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# Every command runs in the same clean environment: no profiler, config or perf map inherited,
# no telemetry or first-run work, no MSBuild node reuse nor server, no compiler server.
clean_env=(env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH
           -u SXSPROF_CONFIG -u SXSPROF_OUTPUT -u SXSPROF_LIBRARY -u SXSPROF_LAUNCHER -u SXSPROF_OWNER_PID
           -u DOTNET_PerfMapEnabled -u DOTNET_EnableWriteXorExecute
           DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
           MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0 UseSharedCompilation=false)

# SXS_BENCH_VARIANTS picks some (e.g. "none s99 t99 s999 t999": the sampler's two engines side by
# side; t99 and t999 are --sample with --engine timer, p99 and p999 with --engine perf (every
# thread on a counter), s99 and s999 the default engine). With
# SXS_BENCH_BEFORE=BUILD0 (another build, e.g. of the commit before a change), b99 and b999 are
# --sample and --sample=999 with that build's sxsprof: "none b99 s99" measures a change side by side.
read -r -a variants <<<"${SXS_BENCH_VARIANTS:-none loaded s99 s999 perf99 trace}"
[[ ${variants[0]} == none ]] || die "SXS_BENCH_VARIANTS must start with none (the base of every ratio)"
for v in "${variants[@]}"; do
    [[ ($v != b99 && $v != b999) || -n $before ]] || die "$v needs SXS_BENCH_BEFORE (a build to compare with)"
done
declare -A label=(
    [none]="no profiler"
    [loaded]="\`sxsprof run -q\` (defaults: loaded, nothing asked)"
    [s99]="\`sxsprof run -q --sample\` (99 Hz)"
    [s999]="\`sxsprof run -q --sample=999\`"
    [t99]="\`sxsprof run -q --sample --engine timer\`"
    [b99]="\`sxsprof run -q --sample\` (99 Hz), the build before"
    [b999]="\`sxsprof run -q --sample=999\`, the build before"
    [t999]="\`sxsprof run -q --sample=999 --engine timer\`"
    [p99]="\`sxsprof run -q --sample --engine perf\`"
    [p999]="\`sxsprof run -q --sample=999 --engine perf\`"
    [perf99]="\`perf record -F 99 -g\`, DOTNET_PerfMapEnabled=1"
    [trace]="\`dotnet-trace collect\` (default profile)"
)

# wrap VARIANT NAME: the command prefix that runs a program under VARIANT into $wrap; NAME
# names its output files in $tmp/out-NAME (emptied first).
wrap() {
    local v=$1 out=$tmp/out-$2
    rm -rf "$out"; mkdir -p "$out"
    case $v in
        none) wrap=("${clean_env[@]}") ;;
        loaded) wrap=("${clean_env[@]}" "$sxsprof" run -q -o "$out/p" --) ;;
        s99) wrap=("${clean_env[@]}" "$sxsprof" run -q --sample -o "$out/p" --) ;;
        s999) wrap=("${clean_env[@]}" "$sxsprof" run -q --sample=999 -o "$out/p" --) ;;
        b99) wrap=("${clean_env[@]}" "$before/bin/sxsprof" run -q --sample -o "$out/p" --) ;;
        b999) wrap=("${clean_env[@]}" "$before/bin/sxsprof" run -q --sample=999 -o "$out/p" --) ;;
        t99) wrap=("${clean_env[@]}" "$sxsprof" run -q --sample --engine timer -o "$out/p" --) ;;
        t999) wrap=("${clean_env[@]}" "$sxsprof" run -q --sample=999 --engine timer -o "$out/p" --) ;;
        p99) wrap=("${clean_env[@]}" "$sxsprof" run -q --sample --engine perf -o "$out/p" --) ;;
        p999) wrap=("${clean_env[@]}" "$sxsprof" run -q --sample=999 --engine perf -o "$out/p" --) ;;
        perf99) wrap=("${clean_env[@]}" DOTNET_PerfMapEnabled=1 "DOTNET_PerfMapJitDumpPath=$out"
                      perf record -q -F 99 -g -o "$out/perf.data" --) ;;
        trace) wrap=("${clean_env[@]}" "$dotnet_trace" collect -o "$out/trace.nettrace" --) ;;
    esac
}

# sxs_stats FOLDER: from the profiles in FOLDER (one per process), prints "processes compiler
# taken p50 p99 resolve": how many processes wrote a profile, 1 when one of them is the C#
# compiler, samples taken in all, the capture p50 and p99 in µs (the largest over the processes,
# as `sxsprof report` merges them) and the resolution time per sample in µs (the profiles carry
# the sum, resolve_ns: summed over the processes and divided by the samples taken). "-" where
# nothing was sampled.
sxs_stats() {
    python3 - "$1" <<'PY'
import glob, json, os, sys
procs = csc = taken = resolve = 0
p50 = p99 = 0
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    if f.endswith(".speedscope.json"):
        continue
    try:
        d = json.load(open(f))
    except ValueError:
        continue
    if "samples" not in d:
        continue
    procs += 1
    cmd = " ".join(d.get("process", {}).get("command_line") or [])
    if os.path.basename(d.get("process", {}).get("executable") or "") == "csc" or "csc.dll" in cmd:
        csc = 1
    s = d["samples"]
    if s.get("enabled") and s.get("taken"):
        taken += s["taken"]
        resolve += s["resolve_ns"]
        p50 = max(p50, s["capture_ns_p50"])
        p99 = max(p99, s["capture_ns_p99"])
if taken:
    print(procs, csc, taken, "%.1f" % (p50 / 1000), "%.1f" % (p99 / 1000), "%.0f" % (resolve / taken / 1000))
else:
    print(procs, csc, "-", "-", "-", "-")
PY
}

# median of a file's numbers, "-" when it holds none
med() {
    if [[ -s $1 ]] && grep -q '[0-9]' "$1"; then grep '[0-9]' "$1" | bench_median "${2:-3}"; else echo "-"; fi
}
# met VALUE OP LIMIT: "yes" or "**no**"
met() { awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { ok = (op == "<=") ? v + 0 <= l + 0 : v + 0 >= l + 0; print ok ? "yes" : "**no**" }'; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# Which commit the build was made from (its CMake source folder), for the record.
build_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
build_rev=unknown
if [[ -n $build_src ]] && git -C "$build_src" rev-parse --short HEAD >/dev/null 2>&1; then
    build_rev=$(git -C "$build_src" rev-parse --short HEAD)
    [[ -z $(git -C "$build_src" status --porcelain --untracked-files=no 2>/dev/null) ]] || build_rev="$build_rev+changes"
fi
sdk_version=$("${clean_env[@]}" dotnet --version)
load_start=$(loadavg)
echo "bench: BUILD $build (commit $build_rev), SDK $sdk_version, $rounds rounds, $(nproc) cores, load average $load_start"

# --- the console project, made once from the template (offline: it needs no package) ---
proj=$tmp/hello/hello.csproj
"${clean_env[@]}" dotnet new console --name hello --output "$tmp/hello" --no-restore >"$tmp/new.log" 2>&1 ||
    { cat "$tmp/new.log" >&2; die "dotnet new console failed"; }
"${clean_env[@]}" dotnet restore "$proj" >"$tmp/restore.log" 2>&1 || { cat "$tmp/restore.log" >&2; die "restore failed"; }
build_cmd=(dotnet build "$proj" --no-restore --no-incremental -nodeReuse:false -p:UseSharedCompilation=false
           --disable-build-servers)

# one build under VARIANT: appends "wall cpu" to $tmp/build-VARIANT, the profiles' numbers to
# $tmp/build-VARIANT.sxs
build_once() {
    local v=$1
    local extra=()
    # dotnet-trace starts the build host with a diagnostic port that suspends the runtime until
    # the tool connects; the compiler would inherit it and wait forever: the compiler task is
    # given an empty one (only the build host is traced).
    [[ $v == trace ]] && extra=(-p:CscEnvironment=DOTNET_DiagnosticPorts=)
    wrap "$v" "build-$v"
    if ! /usr/bin/time -f '%e %U %S' -o "$tmp/time" timeout -k 10 900 "${wrap[@]}" "${build_cmd[@]}" "${extra[@]}" \
            >"$tmp/build.log" 2>&1; then
        cat "$tmp/build.log" >&2; die "build under $v failed"
    fi
    awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$tmp/time" >>"$tmp/build-$v"
    cut -d' ' -f1 /proc/loadavg >>"$tmp/load"
    case $v in loaded|s99|s999|b99|b999) sxs_stats "$tmp/out-build-$v" >>"$tmp/build-$v.sxs" ;; esac
}

# --- the web template under load ---
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# cpu_ticks PID...: utime + stime of these processes, in clock ticks (0 for one that is gone)
cpu_ticks() {
    local t=0 p f
    for p in "$@"; do
        f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
        f=${f##*) }
        t=$((t + $(awk '{ print $12 + $13 }' <<<"$f")))
    done
    echo "$t"
}
# descendants PID: PID and every process under it
descendants() {
    local p=$1 c
    echo "$p"
    for c in $(pgrep -P "$p" || true); do descendants "$c"; done
}
# one server run under VARIANT: appends "server_cpu_s rps tool_cpu_s" to $tmp/web-VARIANT
web_once() {
    local v=$1 port url wrapper p t0 s0 s1 others o0 o1 i
    port=$(free_port)
    url="http://127.0.0.1:$port/"
    wrap "$v" "web-$v"
    "${wrap[@]}" dotnet "$web_dll" --urls "http://127.0.0.1:$port" >"$tmp/web.log" 2>&1 &
    wrapper=$!
    server_pid=""
    for ((i = 0; i < 600; i++)); do
        if [[ -z $server_pid ]]; then
            for p in $(descendants "$wrapper"); do
                # the runtime's host, not a tool whose command line names the dll too
                [[ $(cat "/proc/$p/comm" 2>/dev/null) == dotnet ]] && grep -qF "$web_dll" "/proc/$p/cmdline" 2>/dev/null &&
                    { server_pid=$p; break; }
            done
        fi
        [[ -n $server_pid ]] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        kill -0 "$wrapper" 2>/dev/null || { cat "$tmp/web.log" >&2; die "web server under $v exited"; }
        sleep 0.1
    done
    [[ $i -lt 600 ]] || { cat "$tmp/web.log" >&2; die "web server under $v did not answer in 60 s"; }
    ab -q -k -n "$warmup" -c "$concurrency" "$url" >"$tmp/ab.out" 2>&1 ||
        { cat "$tmp/ab.out" "$tmp/web.log" >&2; die "warm-up under $v failed"; }
    mapfile -t others < <(descendants "$wrapper" | grep -vx "$server_pid")
    s0=$(cpu_ticks "$server_pid"); o0=$(cpu_ticks "${others[@]}")
    ab -q -k -n "$requests" -c "$concurrency" "$url" >"$tmp/ab.out" 2>&1 || { cat "$tmp/ab.out" >&2; die "ab under $v failed"; }
    s1=$(cpu_ticks "$server_pid"); o1=$(cpu_ticks "${others[@]}")
    local done_n failed rps
    done_n=$(awk '/^Complete requests:/ { print $3 }' "$tmp/ab.out")
    failed=$(awk '/^Failed requests:/ { print $3 }' "$tmp/ab.out")
    rps=$(awk '/^Requests per second:/ { print $4 }' "$tmp/ab.out")
    [[ $done_n == "$requests" && $failed == 0 ]] || { cat "$tmp/ab.out" >&2; die "ab under $v: $done_n done, $failed failed"; }
    # Stopped as a service is: the runtime shuts down and the profiler writes at Shutdown.
    kill -TERM "$server_pid"
    for ((i = 0; i < 1200; i++)); do kill -0 "$wrapper" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$wrapper" 2>/dev/null; then
        echo "bench: web server under $v still running 120 s after SIGTERM: killed" >&2
        kill -KILL $(descendants "$wrapper") 2>/dev/null || true
    fi
    wait "$wrapper" || true
    server_pid=""
    awk -v s=$((s1 - s0)) -v o=$((o1 - o0)) -v r="$rps" -v t="$tck" 'BEGIN { printf "%.2f %.1f %.2f\n", s / t, r, o / t }' \
        >>"$tmp/web-$v"
    cut -d' ' -f1 /proc/loadavg >>"$tmp/load"
    case $v in loaded|s99|s999|b99|b999) sxs_stats "$tmp/out-web-$v" >>"$tmp/web-$v.sxs" ;; esac
}

# --- a hello-world start ---
hello_dll=$tmp/hello/bin/Debug/net${sdk_version%%.*}.0/hello.dll
hello_variants=(none run env)
# one start under VARIANT: appends its wall time in ms to $tmp/hello-VARIANT
hello_once() {
    local v=$1 t0 t1
    case $v in
        none) wrap none hello ;;
        run) wrap loaded hello ;;
        env) wrap none hello
             wrap+=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"
                    "CORECLR_PROFILER_PATH=$lib" "SXSPROF_OUTPUT=$tmp/out-hello/p") ;;
    esac
    t0=$(date +%s%N)
    "${wrap[@]}" dotnet "$hello_dll" >"$tmp/hello.out" 2>&1 || { cat "$tmp/hello.out" >&2; die "hello under $v failed"; }
    t1=$(date +%s%N)
    grep -q 'Hello, World!' "$tmp/hello.out" || { cat "$tmp/hello.out" >&2; die "hello under $v printed no greeting"; }
    awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f\n", d / 1e6 }' >>"$tmp/hello-$v"
}

read -r -a workloads <<<"${SXS_BENCH_WORKLOADS:-build web hello}"
runs() { [[ " ${workloads[*]} " == *" $1 "* ]]; }
for w in "${workloads[@]}"; do [[ $w == build || $w == web || $w == hello ]] || die "unknown workload $w"; done
echo "bench: warming up (one plain build, one server run)"
if runs build; then build_once none; : >"$tmp/build-none"; fi
if runs web; then web_once none; : >"$tmp/web-none"; fi
: >"$tmp/load"
for ((r = 1; r <= rounds; r++)); do
    # Each round starts one variant further on, so that none always runs first or last.
    order=("${variants[@]:$(((r - 1) % ${#variants[@]}))}" "${variants[@]:0:$(((r - 1) % ${#variants[@]}))}")
    if runs build; then
        for v in "${order[@]}"; do build_once "$v"; done
        echo "bench: round $r/$rounds: builds done (load average $(loadavg))"
    fi
    if runs web; then
        for v in "${order[@]}"; do web_once "$v"; done
        echo "bench: round $r/$rounds: web runs done (load average $(loadavg))"
    fi
done
if runs hello; then
    for ((i = 0; i < hello_runs; i++)); do
        for v in "${hello_variants[@]}"; do hello_once "$v"; done
    done
fi
load_end=$(loadavg)
# every run's numbers, round by round, for whoever wants more than the medians
for f in "$tmp"/build-* "$tmp"/web-* "$tmp"/hello-*; do
    [[ -f $f && -s $f ]] || continue
    echo "bench: raw ${f##*/}: $(paste -sd';' "$f" | sed 's/;/; /g')"
done

# --- tables ---
col() { awk -v c="$2" '{ print $c }' "$1"; }
# paired FILE BASE COLUMN ratio|pct|diff DECIMALS: for each round (line), VARIANT's COLUMN against
# no profiler's in the same round (a ratio, a percentage over it, or a difference); prints the
# median and the range "m (lo–hi)", or only the median when there is one round. Pairing by round
# keeps a load that drifts between rounds out of the comparison.
paired() {
    local out
    out=$(paste -d' ' "$1" "$2" | awk -v c="$3" -v m="$4" -v n="$(awk '{ print NF }' "$1" | head -n 1)" '{
        v = $c; b = $(n + c)
        if (m == "ratio") print v / b; else if (m == "pct") print 100 * (v - b) / b; else print v - b }' |
        sort -g)
    local lo hi md
    lo=$(head -n 1 <<<"$out"); hi=$(tail -n 1 <<<"$out"); md=$(bench_median 6 <<<"$out")
    awk -v md="$md" -v lo="$lo" -v hi="$hi" -v d="$5" -v m="$4" -v k="$(wc -l <<<"$out")" 'BEGIN {
        f = (m == "ratio") ? "%." d "f" : "%+." d "f"
        s = sprintf(f, md); if (k > 1) s = s sprintf(" (" f "–" f ")", lo, hi); print s }'
}
# the median of a paired comparison, for the targets
paired_median() { paired "$@" | cut -d' ' -f1; }
# paired_interval FILE BASE COLUMN: VARIANT's COLUMN over no profiler's in the same round, in
# percent, as the mean of the rounds and its 95 % confidence interval (Student's t over the rounds'
# differences): "+m % [lo, hi]", "-" with fewer than 2 rounds.
paired_interval() {
    paste -d' ' "$1" "$2" | awk -v c="$3" -v n="$(awk '{ print NF }' "$1" | head -n 1)" '
        { v = $c; b = $(n + c); d[++k] = 100 * (v - b) / b; sum += d[k] }
        END {
            if (k < 2) { print "-"; exit }
            mean = sum / k; for (i = 1; i <= k; i++) ss += (d[i] - mean) ^ 2
            # two-sided 95 % quantiles of Student t for 1 .. 30 degrees of freedom, then the normal
            split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 " \
                  "2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
            q = (k - 1 <= 30) ? t[k - 1] : 1.960
            h = q * sqrt(ss / (k - 1)) / sqrt(k)
            printf "%+.1f %% [%+.1f, %+.1f]\n", mean, mean - h, mean + h
        }'
}
# sxs_cols FILE: the profiles' median numbers as table cells: processes, samples, p50, p99, resolve
sxs_cols() {
    if [[ ! -s $1 ]]; then echo "| - | - | - | - | -"; return; fi
    local procs csc taken p50 p99 res
    procs=$(col "$1" 1 | bench_median 0)
    csc=$(awk '$2 == 0 { n++ } END { print n + 0 }' "$1")
    [[ $csc -eq 0 ]] || procs="$procs (compiler not profiled in $csc runs)"
    col "$1" 3 >"$tmp/c"; taken=$(med "$tmp/c" 0)
    col "$1" 4 >"$tmp/c"; p50=$(med "$tmp/c" 1)
    col "$1" 5 >"$tmp/c"; p99=$(med "$tmp/c" 1)
    col "$1" 6 >"$tmp/c"; res=$(med "$tmp/c" 0)
    echo "| $procs | $taken | $p50 | $p99 | $res"
}
declare -A build_target=([loaded]=1.03 [s99]=1.05 [s999]=1.15 [b99]=1.05 [b999]=1.15)
build_rows=()
shown=("${variants[@]}")
runs build || shown=()
for v in "${shown[@]}"; do
    col "$tmp/build-$v" 1 >"$tmp/c"; w=$(med "$tmp/c" 2)
    col "$tmp/build-$v" 2 >"$tmp/c"; c=$(med "$tmp/c" 2)
    wr=1.00 cr=1.00
    if [[ $v != none ]]; then
        wr=$(paired "$tmp/build-$v" "$tmp/build-none" 1 ratio 2)
        cr=$(paired "$tmp/build-$v" "$tmp/build-none" 2 ratio 2)
    fi
    target=- ok=-
    if [[ -n ${build_target[$v]:-} ]]; then
        target="≤ ×${build_target[$v]}"; ok=$(met "${wr%% *}" "<=" "${build_target[$v]}")
    fi
    stats="| - | - | - | - | -"
    case $v in loaded|s99|s999|b99|b999) stats=$(sxs_cols "$tmp/build-$v.sxs") ;; esac
    build_rows+=("| ${label[$v]} | $w | ×$wr | $target | $ok | $c | ×$cr $stats |")
done

declare -A web_target=([s99]=1 [s999]=5 [b99]=1 [b999]=5)
web_rows=()
shown=("${variants[@]}")
runs web || shown=()
for v in "${shown[@]}"; do
    col "$tmp/web-$v" 1 >"$tmp/c"; s=$(med "$tmp/c" 2)
    col "$tmp/web-$v" 2 >"$tmp/c"; q=$(med "$tmp/c" 1)
    col "$tmp/web-$v" 3 >"$tmp/c"; o=$(med "$tmp/c" 2)
    pct=+0.0 qr=1.00 interval=-
    if [[ $v != none ]]; then
        pct=$(paired "$tmp/web-$v" "$tmp/web-none" 1 pct 1)
        qr=$(paired "$tmp/web-$v" "$tmp/web-none" 2 ratio 2)
        interval=$(paired_interval "$tmp/web-$v" "$tmp/web-none" 1)
    fi
    target=- ok=-
    if [[ -n ${web_target[$v]:-} ]]; then
        target="≤ +${web_target[$v]} %"; ok=$(met "${pct%% *}" "<=" "${web_target[$v]}")
    fi
    # the profiles' columns without the processes' count (one server)
    stats="| - | - | - | -"
    case $v in loaded|s99|s999|b99|b999) stats=$(sxs_cols "$tmp/web-$v.sxs" | sed 's/^| [^|]* |/|/') ;; esac
    pct_cell="${pct%% *} %"
    [[ $pct == *" "* ]] && pct_cell="$pct_cell ${pct#* }"
    web_rows+=("| ${label[$v]} | $s | $pct_cell | $interval | $target | $ok | $q | ×$qr | $o $stats |")
done

declare -A hello_label=([none]="no profiler" [run]="\`sxsprof run -q\` (launcher + profiler, defaults)"
                        [env]="profiler loaded by the environment (CORECLR_*), defaults")
hello_rows=()
runs hello || hello_variants=()
for v in "${hello_variants[@]}"; do
    h=$(med "$tmp/hello-$v" 1)
    add=+0.0
    [[ $v == none ]] || add=$(paired_median "$tmp/hello-$v" "$tmp/hello-none" 1 diff 1)
    target=- ok=-
    if [[ $v != none ]]; then target="≤ +3 ms"; ok=$(met "$add" "<=" 3); fi
    hello_rows+=("| ${hello_label[$v]} | $h | $add | $target | $ok |")
done

cmd="tests/bench/real.sh BUILD $rounds"
[[ -z ${SXS_BENCH_WORKLOADS:-} ]] || cmd="SXS_BENCH_WORKLOADS=\"${workloads[*]}\" $cmd"
[[ -z ${SXS_BENCH_VARIANTS:-} ]] || cmd="SXS_BENCH_VARIANTS=\"${variants[*]}\" $cmd"
{
    echo "Command: \`$cmd\` (BUILD from commit $build_rev), $(date -u +%Y-%m-%d), $(nproc) cores, SDK $sdk_version;"
    echo "load average $load_start at the start, $load_end at the end (1-minute load after each run:"
    echo "$(sort -g "$tmp/load" | head -n 1) to $(sort -g "$tmp/load" | tail -n 1)). Medians of $rounds interleaved rounds (hello: $hello_runs starts per variant);"
    echo "ratios and differences are taken round by round against no profiler in the same round: their"
    echo "median, and in brackets the lowest and highest; *met* compares that median with the target."
    echo "Capture p50 / p99: the sampler's time in the signal handler per capture (the largest"
    echo "over a run's processes); resolve: resolve_ns / taken of the profiles (the time to resolve and"
    echo "aggregate one sample on the sampler thread, summed over the processes)."
    echo
    if runs build; then
    echo "\`dotnet build --no-incremental\` of the SDK's console template (no build server, no node reuse;"
    echo "CPU: user + system of the whole process tree, the tool's processes included):"
    echo
    echo "| variant | wall s | wall ratio | target | met | CPU s | CPU ratio | processes profiled | samples | capture p50 µs | capture p99 µs | resolve µs / sample |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${build_rows[@]}"
    echo
    echo "dotnet-trace traces the build host only: the compiler is kept from inheriting its diagnostic port"
    echo "(\`-p:CscEnvironment=DOTNET_DiagnosticPorts=\`), where it would wait for the tool forever."
    echo
    fi
    if runs web; then
    echo "The SDK's web template, \`ab -k -c $concurrency\` on loopback, $requests requests after $warmup of warm-up;"
    echo "server CPU over the load phase (/proc/PID/stat); tool CPU: the tool's own processes over the"
    echo "same phase (perf, dotnet-trace, the launcher); the samples and capture times are the whole run's"
    echo "(startup, warm-up, load):"
    echo
    echo "| variant | server CPU s | CPU over no profiler | mean, 95 % interval | target | met | requests/s | requests/s ratio | tool CPU s | samples | capture p50 µs | capture p99 µs | resolve µs / sample |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${web_rows[@]}"
    echo
    echo "*mean, 95 % interval*: the mean over the rounds of the server CPU over no profiler (each round"
    echo "against its own no-profiler run) and its 95 % confidence interval (Student's t)."
    echo
    fi
    if runs hello; then
    echo "A hello-world start (\`dotnet hello.dll\` of the console project), wall per process:"
    echo
    echo "| variant | wall ms | ms added | target | met |"
    echo "|---|---|---|---|---|"
    printf '%s\n' "${hello_rows[@]}"
    fi
} >"$tmp/tables"
echo
cat "$tmp/tables"

[[ ${SXS_BENCH_NO_DOC:-0} == 1 ]] && exit 0
runs build && runs web && runs hello || { echo "bench: not every workload ran: docs/PERFORMANCE.md left alone"; exit 0; }
doc=$root/docs/PERFORMANCE.md
begin='<!-- real results -->'
end='<!-- end real results -->'
{
    echo "$begin"
    echo
    cat "$tmp/tables"
    echo
    echo "$end"
} >"$tmp/section"
if ! grep -qF "$begin" "$doc"; then
    # The first time: just below the title, the first table of the document.
    awk -v b="$begin" -v e="$end" 'NR == 1 { print; print ""; print "## Real programs"; print ""; print b; print e; next } { print }' \
        "$doc" >"$tmp/doc"
    cp "$tmp/doc" "$doc"
fi
bench_write_section "$doc" "$begin" "$end" "$tmp/section" "$tmp"
