#!/usr/bin/env bash
# The layering of the source tree, checked over its #include lines: each room may include its own
# headers and those of the rooms below it, never one above (docs/design.md, "The map").
#
#   callback/      -> output record registry config views profile stitch abi
#   manager/output -> record registry config views profile stitch abi
#   manager/record -> registry config profile stitch abi
#   manager/       -> config views profile stitch abi     (the registry: sxs_manager, sxs_policy)
#   config         -> profile stitch abi                  (the grammars: manager/sxs_config,
#                                                          manager/sxs_attach)
#   manager/views  -> profile
#   manager/profile-> (nothing)
#   stitch/        -> abi
#   callback/abi   -> (nothing)
#   harness/       -> config views profile stitch abi     (never the registry, nor the runtime
#                                                          side of the profiler)
#
# The sources are the files in the tree (whether git tracks them or not). Every quoted include
# must name a header of the tree, by base name or by a path from the including file's folder or
# from the top (only the generated pprof header is not in the tree); an include that names
# nothing the check knows is an error, never skipped.
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

# Sets `room` to the room of a path from the top (no subshell: the check runs over every include).
room_of() {
    case "$1" in
        callback/abi/*) room=abi ;;
        callback/*) room=callback ;;
        manager/output/*) room=output ;;
        manager/record/*) room=record ;;
        manager/views/*) room=views ;;
        manager/profile/*) room=profile ;;
        manager/sxs_config.[ch] | manager/sxs_attach.[ch]) room=config ;;
        manager/*) room=registry ;;
        stitch/*) room=stitch ;;
        harness/*) room=harness ;;
        *) room=other ;;
    esac
}

declare -A allowed=(
    [callback]="output record registry config views profile stitch abi"
    [output]="record registry config views profile stitch abi"
    [record]="registry config profile stitch abi"
    [registry]="config views profile stitch abi"
    [config]="profile stitch abi"
    [views]="profile"
    [profile]=""
    [stitch]="abi"
    [abi]=""
    [harness]="config views profile stitch abi"
)

sources=()
while IFS= read -r f; do sources+=("$f"); done < <(find callback manager stitch harness -type f -name '*.[chS]' | LC_ALL=C sort)
if [[ ${#sources[@]} -eq 0 ]]; then
    echo "check_layers: no sources under $src (callback/ manager/ stitch/ harness/)" >&2
    exit 1
fi

# Every header of the tree by base name (the build includes by base name, so each is unique) and
# by its path from the top.
declare -A header_room=() header_path=()
for h in "${sources[@]}"; do
    [[ "$h" == *.h ]] || continue
    base=${h##*/}
    if [[ -n "${header_room[$base]:-}" ]]; then
        echo "check_layers: two headers named $base (${header_path[$base]} and $h)" >&2
        exit 1
    fi
    room_of "$h"
    header_room[$base]=$room
    header_path[$base]=$h
done
# Generated from views/pprof/profile.proto.
header_room[profile.pb-c.h]=views
header_path[profile.pb-c.h]=manager/views/pprof/profile.pb-c.h

# Sets `to` to the room of one quoted include seen from file $1, or to nothing when it names no
# header we know. A path is normalized without a subshell ("a/../b" and "./" folded).
include_room() {
    local from=$1 inc=$2 p part
    to=
    if [[ "$inc" != */* ]]; then
        to=${header_room[$inc]:-}
        return
    fi
    for p in "${from%/*}/$inc" "$inc"; do
        local -a parts=() out=()
        IFS=/ read -ra parts <<<"$p"
        for part in "${parts[@]}"; do
            case "$part" in
                "" | .) ;;
                ..) [[ ${#out[@]} -gt 0 ]] && unset 'out[${#out[@]}-1]' ;;
                *) out+=("$part") ;;
            esac
        done
        p=$(IFS=/; echo "${out[*]}")
        if [[ -f "$p" || "$p" == "${header_path[${inc##*/}]:-}" ]]; then
            room_of "$p"
            to=$room
            return
        fi
    done
}

bad=0
checked=0
# Every quoted include of every source, as "file<TAB>header" lines, in one pass.
while IFS=$'\t' read -r f inc; do
    room_of "$f"
    from=$room
    include_room "$f" "$inc"
    if [[ -z "$to" ]]; then
        echo "check_layers: $f includes \"$inc\", which is no header of the tree" >&2
        bad=1
        continue
    fi
    checked=$((checked + 1))
    [[ "$to" == "$from" ]] && continue
    if [[ " ${allowed[$from]} " != *" $to "* ]]; then
        echo "check_layers: $f ($from) includes $inc ($to): $from may include only: ${allowed[$from]:-nothing}" >&2
        bad=1
    fi
done < <(awk 'match($0, /^[ \t]*#[ \t]*include[ \t]*"[^"]*"/) { s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s); print FILENAME "\t" s }' "${sources[@]}")

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
echo "check_layers: $checked includes in ${#sources[@]} files, none upward"
