#!/usr/bin/env bash
# The layering of the source tree, checked over its #include lines: each room may include its own
# headers and those of the rooms below it, never one above (docs/design.md, "The map").
#
#   callback/      -> output record registry views profile stitch abi
#   manager/output -> record registry views profile stitch abi
#   manager/record -> registry profile stitch abi
#   manager/       -> views profile stitch abi            (the registry and the config grammar)
#   manager/views  -> profile
#   manager/profile-> (nothing)
#   stitch/        -> abi
#   callback/abi   -> (nothing)
#   harness/       -> registry views profile stitch abi   (never the runtime side of the profiler)
#
# It also checks that the launcher's commands (harness/sxsprof_<command>.c) call no function of
# another command: what they share lives in sxsprof_common.c (with nm over the built objects when
# a build folder is given).
#
# Usage: tests/layers/check_layers.sh SOURCE_DIR [BUILD_DIR]     exits 1 and names every bad include
set -uo pipefail
src=${1:?usage: check_layers.sh SOURCE_DIR [BUILD_DIR]}
build=${2:-}
cd "$src" || exit 2

room_of() {
    case "$1" in
        callback/abi/*) echo abi ;;
        callback/*) echo callback ;;
        manager/output/*) echo output ;;
        manager/record/*) echo record ;;
        manager/views/*) echo views ;;
        manager/profile/*) echo profile ;;
        manager/*) echo registry ;;
        stitch/*) echo stitch ;;
        harness/*) echo harness ;;
        *) echo other ;;
    esac
}

declare -A allowed=(
    [callback]="output record registry views profile stitch abi"
    [output]="record registry views profile stitch abi"
    [record]="registry profile stitch abi"
    [registry]="views profile stitch abi"
    [views]="profile"
    [profile]=""
    [stitch]="abi"
    [abi]=""
    [harness]="registry views profile stitch abi"
)

# Every header of the tree by base name (the build includes by base name, so each is unique).
declare -A header_room=()
while IFS= read -r h; do
    base=${h##*/}
    if [[ -n "${header_room[$base]:-}" ]]; then
        echo "check_layers: two headers named $base" >&2
        exit 1
    fi
    header_room[$base]=$(room_of "$h")
done < <(git ls-files -- 'callback/*.h' 'manager/*.h' 'stitch/*.h' 'harness/*.h' 2>/dev/null ||
         find callback manager stitch harness -name '*.h')
# Generated from views/pprof/profile.proto.
header_room[profile.pb-c.h]=views

bad=0
checked=0
while IFS= read -r f; do
    from=$(room_of "$f")
    while IFS= read -r inc; do
        to=${header_room[$inc]:-}
        [[ -z "$to" || "$to" == "$from" ]] && continue
        checked=$((checked + 1))
        if [[ " ${allowed[$from]} " != *" $to "* ]]; then
            echo "check_layers: $f ($from) includes $inc ($to): $from may include only: ${allowed[$from]:-nothing}" >&2
            bad=1
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(git ls-files -- 'callback/*.[chS]' 'manager/*.[chS]' 'stitch/*.[chS]' 'harness/*.[chS]' 2>/dev/null)

# The launcher's commands: none calls into another (nm over the built objects).
if [[ -n "$build" ]]; then
    objdir="$build/harness/CMakeFiles/sxsprof_cli.dir"
    if [[ ! -d "$objdir" ]]; then
        echo "check_layers: no objects of sxsprof in $objdir (build first)" >&2
        exit 1
    fi
    declare -A defined_in=()
    for o in "$objdir"/sxsprof_*.c.o; do
        cmd=$(basename "$o" .c.o)
        while read -r sym; do defined_in[$sym]=$cmd; done < <(nm --defined-only -g "$o" | awk '$2 ~ /[TDBR]/ {print $3}')
    done
    for o in "$objdir"/sxsprof_*.c.o; do
        cmd=$(basename "$o" .c.o)
        while read -r sym; do
            owner=${defined_in[$sym]:-}
            [[ -z "$owner" || "$owner" == "$cmd" || "$owner" == sxsprof_common ]] && continue
            # main dispatches to each command's entry point, and only main does.
            [[ "$cmd" == sxsprof_main && "$sym" == sxsprof_*_main ]] && continue
            echo "check_layers: harness/$cmd.c calls $sym of harness/$owner.c (shared helpers belong in sxsprof_common.c)" >&2
            bad=1
        done < <(nm -u "$o" | awk '{print $2}')
    done
fi

if [[ $bad -ne 0 ]]; then
    exit 1
fi
echo "check_layers: $checked includes across rooms, all downward"
