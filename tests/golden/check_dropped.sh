#!/usr/bin/env bash
# Every reason the recorders drop a sample for is explained in plain words: in the summary's table
# (manager/views/sxs_write_summary.c, dropped_meaning) and in docs/usage.md's table. The reasons
# are read from the recorders' count_dropped() calls, so a new one without its words fails here.
#
# Usage: tests/golden/check_dropped.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: check_dropped.sh SOURCE_DIR}
cd "$src" || exit 2
# Every string literal in a count_dropped( ... ) call, ternaries included.
mapfile -t reasons < <(grep -ho 'count_dropped([^;]*;' manager/record/*.c | grep -o '"[^"]*"' | tr -d '"' | sort -u)
if [[ ${#reasons[@]} -lt 5 ]]; then
    echo "check_dropped: found only ${#reasons[@]} reasons in manager/record/*.c: the check reads them wrongly" >&2
    exit 1
fi
bad=0
for r in "${reasons[@]}"; do
    if ! grep -qF "{\"$r\"," manager/views/sxs_write_summary.c; then
        echo "check_dropped: \"$r\" has no meaning in the summary's table (sxs_write_summary.c dropped_meaning)" >&2
        bad=1
    fi
    if ! grep -qF "| \`$r\` |" docs/usage.md; then
        echo "check_dropped: \"$r\" has no row in docs/usage.md's table of dropped samples" >&2
        bad=1
    fi
done
[[ $bad -eq 0 ]] || exit 1
echo "check_dropped: ${#reasons[@]} reasons, each explained in the summary and the docs"
