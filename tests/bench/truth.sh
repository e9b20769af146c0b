#!/usr/bin/env bash
# Stack truth of two builds side by side: every configuration of test_sxs_sampling_truth (runtimes 10, 8, 3.1 and
# 10+8 in one process; the signal and suspend walkers; cpu and wall mode) run with BUILD's test and apps, once with
# BEFORE's profiler and once with BUILD's, configuration by configuration in turn, so that machine noise hits both
# alike. Prints, per configuration, the share of all samples whose managed chain is exactly the program's, how many
# patterns reach 99.5 % (with at least 20 samples) and how many samples hold a bare address; then BUILD's share per
# pattern. The test's holds are not what is measured here: a configuration whose test fails (BEFORE's profiler
# may not meet BUILD's holds) still has its table, printed before the test's verdict; a run that fails is named on
# stderr with the test's reason, and one that ends without its table (the profiled program crashed, the test timed
# out) has a row reading `no table (exit N)`.
#
# Usage: tests/bench/truth.sh BUILD [BEFORE]     (BEFORE: a build of the commit to compare with; none: BUILD alone)
set -euo pipefail
build=$(cd "${1:?usage: tests/bench/truth.sh BUILD [BEFORE]}" && pwd)
before=${2:+$(cd "$2" && pwd)}
ctest_file=$build/tests/CTestTestfile.cmake
[[ -f $ctest_file && -x $build/tests/integration/test_sxs_sampling_truth ]] || {
    echo "bench: $build is not a build with its tests" >&2
    exit 1
}
[[ -z $before || -f $before/lib/libsxsprof.so ]] || { echo "bench: $before has no lib/libsxsprof.so" >&2; exit 1; }
# The environment ctest gives the test (tests/CMakeLists.txt): SXS_* paths and G_DEBUG.
env_line=$(grep -A1 'test_sxs_sampling_truth\]=\] PROPERTIES' "$ctest_file" | sed -n 's/.*ENVIRONMENT "\([^"]*\)".*/\1/p')
[[ -n $env_line ]] || { echo "bench: no environment for test_sxs_sampling_truth in $ctest_file" >&2; exit 1; }
IFS=';' read -r -a test_env <<<"$env_line"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
labels=()
[[ -n $before ]] && labels+=(before)
labels+=(after)
configs=()
for r in 10 8 3.1 10+8; do for w in signal suspend; do for m in cpu wall; do configs+=("$r/$w/$m"); done; done; done
echo "bench: BUILD $build${before:+, BEFORE $before}, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for c in "${configs[@]}"; do
    for l in "${labels[@]}"; do
        lib=$build/lib/libsxsprof.so
        [[ $l == before ]] && lib=$before/lib/libsxsprof.so
        rc=0
        env "${test_env[@]}" SXS_PROFILER="$lib" SXS_TRUTH_TABLE=1 \
            "$build/tests/integration/test_sxs_sampling_truth" -p "/sxs/sampling-truth/$c" \
            >"$tmp/$l-${c//\//_}.out" 2>"$tmp/$l-${c//\//_}.txt" || rc=$?
        echo "$rc" >"$tmp/$l-${c//\//_}.rc"
        # A run that failed is said here with the test's own reason: after its table (a hold not met; the table is in
        # the rows below), or without it (the profiled program crashed, the test timed out; its row says so).
        if ((rc != 0)); then
            why=$(grep -h -m1 -E 'assertion failed|ERROR' "$tmp/$l-${c//\//_}.out" "$tmp/$l-${c//\//_}.txt" || true)
            what="ended without its table"
            grep -q '^  all patterns' "$tmp/$l-${c//\//_}.txt" && what="failed after its table"
            echo "bench: $c with the $l build's profiler $what (exit $rc): ${why:-no reason printed}" >&2
        fi
    done
    echo "bench: $c done (load average $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
python3 - "$tmp" "${labels[*]}" "${configs[@]}" <<'PY'
import re, sys
tmp, labels, configs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
row = re.compile(r"^  (\S+)\s+(\d+)\s+(\d+)\s+([\d.]+)%\s+(\d+)")
def read(label, config):
    rows = {}
    try:
        text = open(f"{tmp}/{label}-{config.replace('/', '_')}.txt").read()
    except OSError:
        return rows
    for line in text.splitlines():
        m = row.match(line)
        if m:
            rows[(m.group(1), int(m.group(2)))] = (int(m.group(3)), float(m.group(4)), int(m.group(5)))
    return rows
def exit_code(label, config):
    try:
        return int(open(f"{tmp}/{label}-{config.replace('/', '_')}.rc").read())
    except (OSError, ValueError):
        return None
def summary(rows, rc):
    if not rows:
        return (f"no table (exit {rc})" if rc else "-"), "-", "-"
    total = sum(r[0] for r in rows.values())
    exact = sum(r[0] * r[1] / 100 for r in rows.values())
    bare = sum(r[2] for r in rows.values())
    good = sum(1 for r in rows.values() if r[0] >= 20 and r[1] >= 99.5)
    return (f"{100 * exact / total:.1f} %" if total else "-", f"{good} of {len(rows)}",
            f"{100 * bare / total:.1f} %" if total else "-")
data = {(l, c): read(l, c) for l in labels for c in configs}
head = "| configuration |"
sep = "|---|"
for l in labels:
    head += f" {l}: exact | {l}: patterns ≥ 99.5 % | {l}: samples with a bare address |"
    sep += "---|---|---|"
print(head)
print(sep)
for c in configs:
    line = f"| {c.replace('/', ' ')} |"
    for l in labels:
        line += " " + " | ".join(summary(data[(l, c)], exit_code(l, c))) + " |"
    print(line)
print()
print("Per pattern, " + labels[-1] + " (share exact, samples):")
print()
print("| pattern | rt | " + " | ".join(c.replace('/', ' ') for c in configs) + " |")
print("|---|---|" + "---|" * len(configs))
keys = []
for c in configs:
    for k in data[(labels[-1], c)]:
        if k not in keys:
            keys.append(k)
keys.sort(key=lambda k: k[1])
for k in keys:
    cells = []
    for c in configs:
        r = data[(labels[-1], c)].get(k)
        cells.append(f"{r[1]:.1f} ({r[0]})" if r else "–")
    print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")
PY
