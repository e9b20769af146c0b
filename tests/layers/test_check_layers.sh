#!/usr/bin/env bash
# The layering check must be able to fail: on a copy of the tree (a git checkout whose planted
# files git does not track yet), each planted upward or unknown include must make
# check_layers.sh exit 1 and name the file; the untouched copy must pass.
#
# Usage: tests/layers/test_check_layers.sh SOURCE_DIR
set -uo pipefail
src=$(cd "${1:?usage: test_check_layers.sh SOURCE_DIR}" && pwd)
check="$src/tests/layers/check_layers.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

copy="$tmp/tree"
mkdir -p "$copy"
cp -r "$src/callback" "$src/manager" "$src/stitch" "$src/harness" "$copy/"
git -C "$copy" init -q && git -C "$copy" add -A && git -C "$copy" -c user.name=t -c user.email=t@t commit -qm tree || exit 2

failures=0
fail() { echo "test_check_layers: FAIL: $*" >&2; failures=$((failures + 1)); }

if ! out=$(bash "$check" "$copy" 2>&1); then
    fail "the untouched tree does not pass: $out"
fi

# plant FILE INCLUDE WHAT: FILE (new, untracked) includes INCLUDE; the check must fail naming FILE.
plant() {
    local file=$1 inc=$2 what=$3 out
    printf '#include "%s"\n' "$inc" >"$copy/$file"
    [[ -z "$(git -C "$copy" ls-files -- "$file")" ]] || fail "$file is tracked"
    if out=$(bash "$check" "$copy" 2>&1); then
        fail "$what: passed ($out)"
    elif [[ "$out" != *"$file"*"$inc"* ]]; then
        fail "$what: failed without naming $file and $inc: $out"
    else
        echo "test_check_layers: refused, as it must: $what"
    fi
    rm -f "$copy/$file"
}

plant stitch/sxs_planted.c sxs_sampler.h "stitch including a recorder (by base name)"
plant stitch/sxs_planted.c ../manager/record/sxs_sampler.h "stitch including a recorder (by a relative path)"
plant stitch/sxs_planted.c manager/record/sxs_sampler.h "stitch including a recorder (by a path from the top)"
plant harness/sxs_planted.c sxs_manager.h "the harness including the registry"
plant manager/profile/sxs_planted.h sxs_config.h "the profile model including the config grammar"
plant manager/sxs_planted.c sxs_no_such_header.h "an include of no header of the tree"
plant manager/views/sxs_planted.c ../record/sxs_stacks.h "a view including a recorder (relative path)"

# What is allowed stays allowed: the harness may include the config grammar.
printf '#include "sxs_config.h"\n#include "../manager/sxs_attach.h"\n' >"$copy/harness/sxs_planted.c"
out=$(bash "$check" "$copy" 2>&1) || fail "the harness including the config grammar was refused: $out"
rm -f "$copy/harness/sxs_planted.c"

if [[ $failures -ne 0 ]]; then
    echo "test_check_layers: $failures failed" >&2
    exit 1
fi
echo "test_check_layers: 8 plants checked"
