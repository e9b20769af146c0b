# Shared by the benchmarks in tests/bench/: sourced, not run.

# The median of the numbers on stdin, printed with DECIMALS decimals when it falls between two
# (an odd count prints the middle number as it came).
bench_median() {
    local decimals=${1:-3}
    sort -n | awk -v d="$decimals" '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.*f\n", d, (a[NR/2]+a[NR/2+1])/2}'
}

# Reads "BUILD [ROUNDS]" from the arguments after USAGE and DEFAULT: $build (BUILD as an absolute
# path) and $rounds (DEFAULT when not given); exits 2 with USAGE when either is wrong.
bench_build_rounds() {
    local usage=$1 default=$2
    shift 2
    build=$(cd "${1:?$usage}" && pwd)
    rounds=${2:-$default}
    [[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
}

# Puts the lines of SECTION_FILE into DOC between the marker lines BEGIN and END (SECTION_FILE
# holds both markers), replacing what was there, or, the first time, just above the line
# "<!-- results -->". TMP is a scratch folder.
bench_write_section() {
    local doc=$1 begin=$2 end=$3 section=$4 tmp=$5
    if grep -qF "$begin" "$doc"; then
        awk -v b="$begin" -v e="$end" -v f="$section" '
            $0 == b { while ((getline line < f) > 0) print line; skip = 1; next }
            $0 == e { skip = 0; next }
            !skip { print }' "$doc" >"$tmp/doc"
    else
        awk -v f="$section" '
            /^<!-- results -->/ && !done { while ((getline line < f) > 0) print line; print ""; done = 1 }
            { print }' "$doc" >"$tmp/doc"
    fi
    cp "$tmp/doc" "$doc"
    echo "bench: results written to $doc"
}

# Prints the path of dotnet-trace, installed by tests/setup/install-tools.sh (the one place its
# version is pinned) when it is not there, in ~/.local/share/sxsprof/tools (SXS_TOOLS_DIR). Nothing
# is fetched when it is installed already; the installer's output goes to stderr.
bench_dotnet_trace() {
    local dir=${SXS_TOOLS_DIR:-$HOME/.local/share/sxsprof/tools}
    bash "$(dirname "${BASH_SOURCE[0]}")/../setup/install-tools.sh" >&2 || return 1
    echo "$dir/dotnet-trace"
}
