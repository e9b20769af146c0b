#!/usr/bin/env bash
# Compiles every C# test app under tests/apps/<Name>/ into BUILD_DIR/apps/<Name>/<Name>.dll.
#
# Usage: tests/setup/build-apps.sh [BUILD_DIR]        (default: build, relative to the repo root)
#
# Each folder tests/apps/<Name>/ is one app: all its *.cs files (subfolders included) are
# compiled with the SDK's own C# compiler against the .NET Core 2.0.0 framework assemblies,
# so one dll runs on 2.0, 8 and 10. Next to the dll goes <Name>.runtimeconfig.json, which
# asks for 2.0.0 and rolls forward to the newest major version (`dotnet X.dll` on the SDK's
# runtime); the 2.0 host runs it on 2.0.0 itself.
#
# A file named `unsafe` in an app folder adds -unsafe+. A file named `variants` lists more builds
# of the same sources, one a line: `<folder> <flags>` compiles BUILD_DIR/apps/<folder>/<Name>.dll
# with <flags> in place of -debug:embedded (a portable PDB beside the dll, none, ...); `#` starts a
# comment. An app whose dlls are newer than all its sources (and than this script) is skipped. On a compile error the compiler's output is
# printed and the script exits non-zero after trying the other apps.
#
# It also makes the real-program fixtures in BUILD_DIR/real/, projects the SDK's own templates
# create (nothing of them is kept in the repository), with the SDK's target framework:
#   real/hello  `dotnet new console`, restored only (tests build it with --no-restore)
#   real/web    `dotnet new web`, restored and built in Release:
#               real/web/bin/Release/net<N>.0/web.dll, started as
#               `dotnet web.dll --urls http://127.0.0.1:<port>`
#   real/worktests  `dotnet new xunit` with tests/setup/worktests/*.cs in place of the template's
#               test (one test doing measurable work), restored (packages from the NuGet registry)
#               and built: tests run `dotnet test --no-build` in it
# Both need nothing beyond the SDK and its packs, so they work offline. A fixture is done when
# its .sxs-ready stamp is newer than this script; otherwise its folder is made afresh.
#
# And the published apps in BUILD_DIR/apps/published/, each `dotnet publish` of a test app's
# sources (runtime and app-host packs come from NuGet, as for any user):
#   published/sc10/SxsSample    self-contained on the SDK's runtime: the runtime beside the app,
#                               started by its own executable (the app host)
#   published/sf10/SxsSample    single file: the runtime linked into the executable, no
#                               libcoreclr.so on disk
#   published/fd10/SxsSample    framework-dependent, started by its app host (SxsSample.dll too)
#   published/sc31/SxsSample    self-contained on .NET Core 3.1: a 3.1 runtime in a folder named
#                               after the app, with no .version
#   published/aot10/SxsHello    NativeAOT (linked with gcc): no CoreCLR at all
# All five are one MSBuild run, so the SDK starts once; they are done when their .sxs-ready stamp
# is newer than this script and the apps' sources.
#
# Environment: SXS_RUNTIMES_DIR (default ~/.local/share/sxsprof/dotnet) holds the 2.0.0
# framework; SXS_DOTNET (default: dotnet on PATH) is the SDK's dotnet.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_root=$(cd "$script_dir/../.." && pwd)
apps_src="$src_root/tests/apps"

build_dir=${1:-build}
case "$build_dir" in
    /*) ;;
    *) build_dir="$src_root/$build_dir" ;;
esac
apps_out="$build_dir/apps"

runtimes_dir=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}
fx_dir="$runtimes_dir/shared/Microsoft.NETCore.App/2.0.0"
dotnet=${SXS_DOTNET:-dotnet}

die() { echo "build-apps: $*" >&2; exit 1; }

real_out="$build_dir/real"

# The SDK commands of the fixtures: no telemetry, banner or first-run work, no MSBuild nodes
# or compiler servers left running afterwards, and never under a profiler the caller set up.
sdk() {
    env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH \
        DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
        MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0 "$dotnet" "$@"
}

# A machine without the registry may hold the test template's packages in a local feed: restores
# take them from there when it exists.
restore_sources=()
[[ -d /opt/nuget/packages ]] && restore_sources=(--source /opt/nuget/packages)

# Makes one fixture, real/<name>, from the template <template>: created, then restored, and
# built too when <build> is 1 (in Release when <build> is 1, in Debug when it is 2). The .cs files of
# tests/setup/<name>/, when there is such a folder, replace the template's own test file. Prints one
# line; on failure prints the SDK's output and returns 1.
make_fixture() {
    local name=$1 template=$2 build=$3
    local dir="$real_out/$name"
    local log="$real_out/$name.log"
    local fresh=1 src
    for src in "${BASH_SOURCE[0]}" "$script_dir/$name"/*.cs; do
        [[ -e "$src" && "$src" -nt "$dir/.sxs-ready" ]] && fresh=0
    done
    if [[ -f "$dir/.sxs-ready" && $fresh -eq 1 ]]; then
        echo "build-apps: fixture $name up to date in $dir"
        return 0
    fi
    rm -rf "$dir"
    mkdir -p "$real_out"
    local config=Release
    [[ $build -eq 2 ]] && config=Debug
    if sdk new "$template" --name "$name" --output "$dir" --no-restore >"$log" 2>&1 &&
        { [[ ! -d "$script_dir/$name" ]] ||
          { rm -f "$dir/UnitTest1.cs" && cp "$script_dir/$name"/*.cs "$dir/"; }; } &&
        sdk restore "$dir/$name.csproj" "${restore_sources[@]}" >>"$log" 2>&1 &&
        { [[ $build -eq 0 ]] ||
          sdk build "$dir/$name.csproj" -c "$config" --no-restore -nodeReuse:false \
              -p:UseSharedCompilation=false >>"$log" 2>&1; }; then
        touch "$dir/.sxs-ready"
        if [[ $build -ge 1 ]]; then
            echo "build-apps: made fixture $name (dotnet new $template, restored, built $config) in $dir"
        else
            echo "build-apps: made fixture $name (dotnet new $template, restored) in $dir"
        fi
        return 0
    fi
    echo "build-apps: FAILED fixture $name:" >&2
    cat "$log" >&2
    return 1
}

# The published apps (see the top of this file). One traversal project publishes them all.
publish_apps() {
    local out="$apps_out/published"
    local stamp="$out/.sxs-ready"
    local src_dir="$build_dir/published-src"
    local -a sources
    mapfile -t sources < <(find "$apps_src/SxsSample" "$apps_src/SxsHello" -name '*.cs' -type f | LC_ALL=C sort)
    if [[ -f "$stamp" ]]; then
        local fresh=1 f
        for f in "${sources[@]}" "${BASH_SOURCE[0]}"; do
            [[ "$f" -nt "$stamp" ]] && { fresh=0; break; }
        done
        if [[ $fresh -eq 1 ]]; then
            echo "build-apps: published apps up to date in $out"
            return 0
        fi
    fi
    rm -rf "$out" "$src_dir"
    mkdir -p "$src_dir" "$out"
    local sdk_major
    sdk_major=$("$dotnet" --version 2>/dev/null | cut -d. -f1)
    # variant  app  target framework  extra properties
    local -a variants=(
        "sc10 SxsSample net$sdk_major.0 SelfContained=true"
        "sf10 SxsSample net$sdk_major.0 SelfContained=true;PublishSingleFile=true"
        "fd10 SxsSample net$sdk_major.0 SelfContained=false;UseAppHost=true"
        "sc31 SxsSample netcoreapp3.1 SelfContained=true;CheckEolTargetFramework=false;DisableTransitiveFrameworkReferenceDownloads=true"
        "aot10 SxsHello net$sdk_major.0 PublishAot=true;SelfContained=true;CppCompilerAndLinker=gcc"
    )
    # The 3.1 runtime the set-up installed (install-runtimes.sh), whose packs the registry serves.
    local v31
    v31=$(ls "$runtimes_dir/shared/Microsoft.NETCore.App" 2>/dev/null | grep '^3\.1\.' | sort -V | tail -n 1)
    [[ -n "$v31" ]] || { echo "build-apps: no 3.1 runtime in $runtimes_dir (run tests/setup/install-runtimes.sh)" >&2; return 1; }
    local items="" v name app tfm props
    for v in "${variants[@]}"; do
        read -r name app tfm props <<<"$v"
        mkdir -p "$src_dir/$name"
        cat >"$src_dir/$name/$app.csproj" <<EOF
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>$tfm</TargetFramework>
    <RuntimeIdentifier>linux-x64</RuntimeIdentifier>
    <EnableDefaultCompileItems>false</EnableDefaultCompileItems>
    <ImplicitUsings>disable</ImplicitUsings>
    <Nullable>disable</Nullable>
    <InvariantGlobalization>true</InvariantGlobalization>
    <NoWarn>\$(NoWarn);IL3000;NETSDK1138</NoWarn>
    <DebugType>none</DebugType>
  </PropertyGroup>
  <ItemGroup>
    <Compile Include="$apps_src/$app/**/*.cs" />
  </ItemGroup>
  <!-- 3.1: the version the registry serves, runtime pack and app host alike, not the SDK's newest. -->
  <Target Name="SxsPin31" BeforeTargets="ProcessFrameworkReferences"
          Condition="'\$(TargetFramework)' == 'netcoreapp3.1'">
    <ItemGroup>
      <KnownFrameworkReference Condition="'%(Identity)' == 'Microsoft.NETCore.App' and '%(TargetFramework)' == 'netcoreapp3.1'"
                               LatestRuntimeFrameworkVersion="$v31" />
      <KnownAppHostPack Condition="'%(Identity)' == 'Microsoft.NETCore.App' and '%(TargetFramework)' == 'netcoreapp3.1'"
                        AppHostPackVersion="$v31" />
    </ItemGroup>
  </Target>
</Project>
EOF
        items+="    <P Include=\"$name/$app.csproj\" Properties=\"$props;PublishDir=$out/$name/\" />"$'\n'
    done
    cat >"$src_dir/publish.proj" <<EOF
<Project>
  <ItemGroup>
$items  </ItemGroup>
  <Target Name="Restore">
    <MSBuild Projects="@(P)" Targets="Restore" Properties="%(P.Properties)" />
  </Target>
  <Target Name="Publish">
    <MSBuild Projects="@(P)" Targets="Publish" Properties="%(P.Properties)" BuildInParallel="true" />
  </Target>
</Project>
EOF
    local log="$out.log"
    if sdk msbuild "$src_dir/publish.proj" -restore -t:Publish -p:Configuration=Release -m:2 -nodeReuse:false \
            -p:UseSharedCompilation=false -v:m >"$log" 2>&1; then
        touch "$stamp"
        echo "build-apps: published ${#variants[@]} apps (self-contained 10 and 3.1, single file, app host, NativeAOT) in $out"
        return 0
    fi
    echo "build-apps: FAILED publishing apps:" >&2
    cat "$log" >&2
    return 1
}

make_fixtures() {
    local bad=0
    make_fixture hello console 0 || bad=1
    make_fixture web web 1 || bad=1
    make_fixture worktests xunit 2 || bad=1
    publish_apps || bad=1
    [[ $bad -eq 0 ]] || die "some fixtures failed"
}

[[ -d "$apps_src" ]] || { echo "build-apps: no $apps_src, nothing to build"; exit 0; }
[[ -f "$fx_dir/System.Private.CoreLib.dll" ]] ||
    die "no .NET Core 2.0.0 framework in $fx_dir (run tests/setup/install-runtimes.sh)"

# The variants of app NAME: "<folder> <flags...>" lines of tests/apps/NAME/variants.
variants_of() {
    local f="$apps_src/$1/variants"
    [[ -f "$f" ]] || return 0
    grep -v -E '^[[:space:]]*(#|$)' "$f" || true
}

# Collect the apps and decide which are out of date before paying for any dotnet start-up.
apps=()
stale=()
for dir in "$apps_src"/*/; do
    [[ -d "$dir" ]] || continue
    name=$(basename "$dir")
    mapfile -t sources < <(find "$dir" -name '*.cs' -type f | LC_ALL=C sort)
    if [[ ${#sources[@]} -eq 0 ]]; then
        echo "build-apps: $name has no .cs files, skipped" >&2
        continue
    fi
    apps+=("$name")
    up_to_date=1
    outs=("$name")
    while read -r out _; do
        outs+=("$out")
    done < <(variants_of "$name")
    for out in "${outs[@]}"; do
        dll="$apps_out/$out/$name.dll"
        if [[ ! -f "$dll" || ! -f "$apps_out/$out/$name.runtimeconfig.json" ]]; then
            up_to_date=0
            break
        fi
        for f in "${sources[@]}" "$dir/unsafe" "$dir/variants" "${BASH_SOURCE[0]}"; do
            if [[ -e "$f" && "$f" -nt "$dll" ]]; then
                up_to_date=0
                break 2
            fi
        done
    done
    [[ $up_to_date -eq 1 ]] || stale+=("$name")
done

if [[ ${#stale[@]} -eq 0 ]]; then
    echo "build-apps: ${#apps[@]} apps up to date in $apps_out"
    make_fixtures
    exit 0
fi

# Locate the newest SDK's csc.dll: `dotnet --list-sdks` prints "10.0.401 [/usr/share/dotnet/sdk]".
sdk_line=$("$dotnet" --list-sdks 2>/dev/null | tail -n 1) || true
[[ -n "$sdk_line" ]] || die "no .NET SDK found by '$dotnet --list-sdks'"
sdk_ver=${sdk_line%% *}
sdk_base=${sdk_line#*[}
sdk_base=${sdk_base%]}
csc="$sdk_base/$sdk_ver/Roslyn/bincore/csc.dll"
[[ -f "$csc" ]] || die "compiler not found at $csc"

# The reference set: every managed assembly of 2.0.0 except the facades whose types clash
# with System.Private.CoreLib and the reference assemblies (mscorlib, netstandard, ...).
refs=()
for f in "$fx_dir"/*.dll; do
    base=$(basename "$f")
    case "$base" in
        mscorlib.dll | netstandard.dll | Microsoft.VisualBasic.dll | System.dll | \
        System.Core.dll | System.Xml*.dll | System.Data.dll | System.Net.dll | \
        System.Numerics.dll | System.ComponentModel.DataAnnotations.dll | \
        System.Runtime.Serialization.dll | System.ServiceModel.Web.dll | \
        System.Transactions.dll | System.Web.dll | System.Windows.dll | \
        System.Configuration.dll | System.Drawing.dll | \
        System.IO.Compression.FileSystem.dll | System.ServiceProcess.dll | WindowsBase.dll)
            continue ;;
        lib*.dll | SOS.NETCore.dll)
            continue ;;
    esac
    refs+=("-r:$f")
done

runtimeconfig='{"runtimeOptions":{"tfm":"netcoreapp2.0","rollForward":"LatestMajor","framework":{"name":"Microsoft.NETCore.App","version":"2.0.0"}}}'

# Compile one build of an app (into folder OUT, with DEBUG_FLAGS in place of -debug:embedded)
# under a temporary name and move it into place only on success, so a failed build never leaves
# a dll that looks up to date. A PDB the flags make goes beside the dll. Output goes to
# $out_dir/.log.
compile_one() {
    local name=$1 out=$2
    shift 2
    local dir="$apps_src/$name"
    local out_dir="$apps_out/$out"
    local -a sources flags
    mapfile -t sources < <(find "$dir" -name '*.cs' -type f | LC_ALL=C sort)
    flags=(-nologo -noconfig -nostdlib -optimize+ "$@" -deterministic
           -target:exe -langversion:latest -warn:4)
    [[ -e "$dir/unsafe" ]] && flags+=(-unsafe+)
    mkdir -p "$out_dir"
    # Compiled under its final file name (the assembly name comes from it) in a private
    # folder, then moved into place.
    local stage="$out_dir/.stage"
    rm -rf "$stage"
    mkdir -p "$stage"
    if "$dotnet" "$csc" "${flags[@]}" "${refs[@]}" "-out:$stage/$name.dll" \
            "${sources[@]}" >"$out_dir/.log" 2>&1; then
        printf '%s\n' "$runtimeconfig" >"$out_dir/$name.runtimeconfig.json"
        rm -f "$out_dir/$name.pdb"
        [[ -f "$stage/$name.pdb" ]] && mv -f "$stage/$name.pdb" "$out_dir/$name.pdb"
        mv -f "$stage/$name.dll" "$out_dir/$name.dll"
        rm -rf "$stage"
        return 0
    fi
    rm -rf "$stage"
    return 1
}

# Every build of one app: its own (PDB embedded), then its variants. The app's .log gathers the
# compilers' output.
compile_app() {
    local name=$1 out flags
    compile_one "$name" "$name" -debug:embedded || return 1
    while read -r -u 3 out flags; do
        # shellcheck disable=SC2086 # the flags are words
        compile_one "$name" "$out" $flags || { cat "$apps_out/$out/.log" >>"$apps_out/$name/.log"; return 1; }
        cat "$apps_out/$out/.log" >>"$apps_out/$name/.log"
    done 3< <(variants_of "$name")
}

# Two compilers at a time (the machines have two cores); results are reported in order.
jobs=${SXS_BUILD_APPS_JOBS:-2}
declare -A pid_of
failed=0
report() {
    local name=$1
    if wait "${pid_of[$name]}"; then
        echo "build-apps: built $name"
        # Warnings are worth seeing, but only when there are any.
        grep -q 'warning' "$apps_out/$name/.log" 2>/dev/null && cat "$apps_out/$name/.log"
    else
        echo "build-apps: FAILED $name:" >&2
        cat "$apps_out/$name/.log" >&2
        failed=1
    fi
    return 0
}

running=()
for name in "${stale[@]}"; do
    compile_app "$name" &
    pid_of[$name]=$!
    running+=("$name")
    if [[ ${#running[@]} -ge $jobs ]]; then
        report "${running[0]}"
        running=("${running[@]:1}")
    fi
done
for name in "${running[@]}"; do
    report "$name"
done

if [[ $failed -ne 0 ]]; then
    make_fixtures
    die "some apps failed to compile"
fi
echo "build-apps: ${#stale[@]} of ${#apps[@]} apps rebuilt in $apps_out"
make_fixtures
