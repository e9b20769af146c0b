#!/usr/bin/env bash
# Builds the C# side of the tests: the test apps, the real-program fixtures and the published apps.
#
# Usage: tests/setup/build-apps.sh [--fetch] [BUILD_DIR]   (default: build, relative to the repo root)
#
#   --fetch   only the steps that take packages: the fixtures are made from their templates and
#             restored, the published apps' projects are written and restored. tests/setup.sh
#             runs this in the background while the C build runs.
#   (none)    the fetch steps first when they are not done yet, then one MSBuild run builds every
#             app, fixture and published app that is out of date (BUILD_DIR/csharp/build.proj,
#             written afresh each time and listing only those), two at a time (-m:2). Every
#             compiler of that run is one compiler server of its own, started for the run and
#             shut down at its end; no MSBuild node stays behind either.
#
# The apps: each folder tests/apps/<Name>/ is one app, compiled into BUILD_DIR/apps/<Name>/<Name>.dll.
# All its *.cs files (subfolders included) are compiled with the SDK's own C# compiler against the
# .NET Core 2.0.0 framework assemblies, so one dll runs on 2.0, 8 and 10. Next to the dll goes
# <Name>.runtimeconfig.json, which asks for 2.0.0 and rolls forward to the newest major version
# (`dotnet X.dll` on the SDK's runtime); the 2.0 host runs it on 2.0.0 itself.
#
# A file named `unsafe` in an app folder adds -unsafe+. A file named `variants` lists more builds
# of the same sources, one a line: `<folder> <flags>` compiles BUILD_DIR/apps/<folder>/<Name>.dll
# with <flags> in place of -debug:embedded (a portable PDB beside the dll, none, ...); `#` starts a
# comment. An app whose dlls are newer than all its sources (and than this script) is left alone;
# when nothing at all is out of date no dotnet process starts. A build is compiled into a private
# folder and moved into place only on success, so a failed build never leaves a dll that looks up
# to date. On a compile error the compiler's output is printed and the script exits non-zero
# after building everything else.
#
# The real-program fixtures in BUILD_DIR/real/, projects the SDK's own templates create (nothing of
# them is kept in the repository), with the SDK's target framework:
#   real/hello  `dotnet new console`, restored only (tests build it with --no-restore)
#   real/web    `dotnet new web`, restored and built in Release:
#               real/web/bin/Release/net<N>.0/web.dll, started as
#               `dotnet web.dll --urls http://127.0.0.1:<port>`
#   real/worktests  `dotnet new xunit` with tests/setup/worktests/*.cs in place of the template's
#               test (one test doing measurable work), restored (packages from the NuGet registry)
#               and built: tests run `dotnet test --no-build` in it
# Both need nothing beyond the SDK and its packs, so they work offline. A fixture is restored when
# its .sxs-restored stamp is newer than this script (and its .cs files), otherwise its folder is
# made afresh; it is done when its .sxs-ready stamp is newer than those too.
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
#   published/web10/Endpoints.dll   tests/apps-web/Endpoints, an ASP.NET Core app (Microsoft.NET.Sdk.Web),
#                               framework-dependent on the SDK's runtime: `dotnet Endpoints.dll`
#   published/web8/Endpoints    the same on .NET 8, self-contained (ASP.NET Core 8's runtime pack
#                               from NuGet: no shared framework of 8 is installed)
# One traversal project (BUILD_DIR/published-src/publish.proj) restores them all in the fetch step
# and publishes them all in the build; they are done when their .sxs-ready stamp is newer than
# this script and the apps' sources.
#
# Environment: SXS_RUNTIMES_DIR (default ~/.local/share/sxsprof/dotnet) holds the 2.0.0
# framework and the 3.1 runtime; SXS_DOTNET (default: dotnet on PATH) is the SDK's dotnet.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_root=$(cd "$script_dir/../.." && pwd)
apps_src="$src_root/tests/apps"
self="$script_dir/$(basename "${BASH_SOURCE[0]}")"

mode=build
if [[ ${1:-} == --fetch ]]; then
    mode=fetch
    shift
fi
build_dir=${1:-build}
case "$build_dir" in
    /*) ;;
    *) build_dir="$src_root/$build_dir" ;;
esac
apps_out="$build_dir/apps"
real_out="$build_dir/real"
published_out="$apps_out/published"
published_src="$build_dir/published-src"
csharp_dir="$build_dir/csharp"

runtimes_dir=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}
fx_dir="$runtimes_dir/shared/Microsoft.NETCore.App/2.0.0"
dotnet=${SXS_DOTNET:-dotnet}

die() { echo "build-apps: $*" >&2; exit 1; }

# The checks of what is out of date list files with globs, not child processes: a run with
# nothing to do stays about a second.
shopt -s globstar nullglob

# The SDK commands: no telemetry, banner or first-run work, no MSBuild nodes left running
# afterwards, and never under a profiler the caller set up.
sdk() {
    env -u CORECLR_ENABLE_PROFILING -u CORECLR_PROFILER -u CORECLR_PROFILER_PATH \
        DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
        MSBUILDDISABLENODEREUSE=1 DOTNET_CLI_USE_MSBUILD_SERVER=0 "$dotnet" "$@"
}

# A machine without the registry may hold the test template's packages in a local feed: the
# fixtures restore from there when it exists.
restore_sources=
[[ -d /opt/nuget/packages ]] && restore_sources=/opt/nuget/packages

# True when file $1 exists and is newer than every other argument that exists.
newer_than_all() {
    local stamp=$1 f
    shift
    [[ -f "$stamp" ]] || return 1
    for f in "$@"; do
        [[ -e "$f" && "$f" -nt "$stamp" ]] && return 1
    done
    return 0
}

# The fixtures: name, template, and what is done after the restore (none, Release or Debug build).
fixtures=("hello console none" "web web Release" "worktests xunit Debug")

# A fixture is made from this script and the .cs files of tests/setup/<name>/.
fixture_restored() {
    newer_than_all "$real_out/$1/.sxs-restored" "$self" "$script_dir/$1"/*.cs
}

fixture_ready() {
    newer_than_all "$real_out/$1/.sxs-ready" "$self" "$script_dir/$1"/*.cs "$real_out/$1/.sxs-restored"
}

# The published apps are made from this script and the sources of three apps.
web_src="$src_root/tests/apps-web"
published_ready() {
    newer_than_all "$published_out/.sxs-ready" "$self" "$apps_src/SxsSample"/**/*.cs "$apps_src/SxsHello"/**/*.cs \
        "$web_src"/**/*.cs
}

published_restored() {
    newer_than_all "$published_src/.sxs-restored" "$self" && [[ -f "$published_src/publish.proj" ]]
}

# Writes the published apps' projects and their traversal into $published_src (see the top of
# this file). Their restore and publish are parts of the fetch and build runs.
write_published_projects() {
    rm -rf "$published_src"
    mkdir -p "$published_src"
    local sdk_major
    sdk_major=$("$dotnet" --version 2>/dev/null | cut -d. -f1)
    # variant  app  target framework  extra properties (web*: an ASP.NET Core app of tests/apps-web)
    local -a variants=(
        "web10 Endpoints net$sdk_major.0 SelfContained=false;UseAppHost=false"
        "web8 Endpoints net8.0 SelfContained=true"
        "sc10 SxsSample net$sdk_major.0 SelfContained=true"
        "sf10 SxsSample net$sdk_major.0 SelfContained=true;PublishSingleFile=true"
        "fd10 SxsSample net$sdk_major.0 SelfContained=false;UseAppHost=true"
        "sc31 SxsSample netcoreapp3.1 SelfContained=true;CheckEolTargetFramework=false;DisableTransitiveFrameworkReferenceDownloads=true"
        "aot10 SxsHello net$sdk_major.0 PublishAot=true;SelfContained=true;CppCompilerAndLinker=gcc"
    )
    # The 3.1 runtime the set-up installed (install-runtimes.sh), whose packs the registry serves.
    local v31
    v31=$(ls "$runtimes_dir/shared/Microsoft.NETCore.App" 2>/dev/null | grep '^3\.1\.' | sort -V | tail -n 1) || true
    [[ -n "$v31" ]] || { echo "build-apps: no 3.1 runtime in $runtimes_dir (run tests/setup/install-runtimes.sh)" >&2; return 1; }
    local items="" v name app tfm props sdk sources
    for v in "${variants[@]}"; do
        read -r name app tfm props <<<"$v"
        sdk=Microsoft.NET.Sdk
        sources="$apps_src/$app"
        if [[ $name == web* ]]; then
            sdk=Microsoft.NET.Sdk.Web
            sources="$web_src/$app"
        fi
        mkdir -p "$published_src/$name"
        cat >"$published_src/$name/$app.csproj" <<EOF
<Project Sdk="$sdk">
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
    <Compile Include="$sources/**/*.cs" />
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
        items+="    <P Include=\"$name/$app.csproj\" Properties=\"$props;PublishDir=$published_out/$name/\" />"$'\n'
    done
    cat >"$published_src/publish.proj" <<EOF
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
}

# The fetch step: makes the fixtures that are not restored yet from their templates (`dotnet new`,
# the .cs files of tests/setup/<name>/ in place of the template's own test), writes the published
# apps' projects when they are not restored yet, and restores all of them in one MSBuild run.
# Prints one line per thing made; on failure prints the SDK's output and returns 1.
fetch() {
    local -a made=() restore_items=()
    local line name template after dir
    mkdir -p "$csharp_dir"
    local log="$csharp_dir/fetch.log"
    : >"$log"
    for line in "${fixtures[@]}"; do
        read -r name template after <<<"$line"
        fixture_ready "$name" && continue
        fixture_restored "$name" && continue
        dir="$real_out/$name"
        rm -rf "$dir"
        mkdir -p "$real_out"
        if ! sdk new "$template" --name "$name" --output "$dir" --no-restore >>"$log" 2>&1 ||
           { [[ -d "$script_dir/$name" ]] &&
             ! { rm -f "$dir/UnitTest1.cs" && cp "$script_dir/$name"/*.cs "$dir/"; }; }; then
            echo "build-apps: FAILED making fixture $name (dotnet new $template):" >&2
            cat "$log" >&2
            return 1
        fi
        made+=("$name")
        if [[ -n "$restore_sources" ]]; then
            restore_items+=("<F Include=\"$dir/$name.csproj\" Properties=\"RestoreSources=$restore_sources\" />")
        else
            restore_items+=("<F Include=\"$dir/$name.csproj\" />")
        fi
    done
    local published=0
    if ! published_ready && ! published_restored; then
        write_published_projects || return 1
        published=1
        restore_items+=("<F Include=\"$published_src/publish.proj\" Properties=\"Configuration=Release\" />")
    fi
    [[ ${#restore_items[@]} -gt 0 ]] || return 0

    local proj="$csharp_dir/fetch.proj"
    {
        echo '<Project>'
        echo '  <ItemGroup>'
        printf '    %s\n' "${restore_items[@]}"
        echo '  </ItemGroup>'
        echo '  <Target Name="Restore">'
        echo '    <MSBuild Projects="@(F)" Targets="Restore" Properties="%(F.Properties)" />'
        echo '  </Target>'
        echo '  <Target Name="Fetched" />'
        echo '</Project>'
    } >"$proj"
    if ! sdk msbuild "$proj" -restore -t:Fetched -nodeReuse:false -v:m -clp:NoSummary >>"$log" 2>&1; then
        echo "build-apps: FAILED restoring ${made[*]}$([[ $published -eq 1 ]] && echo ' published apps'):" >&2
        cat "$log" >&2
        return 1
    fi
    for name in "${made[@]}"; do
        touch "$real_out/$name/.sxs-restored"
        for line in "${fixtures[@]}"; do
            read -r _ template after <<<"$line"
            [[ $line == "$name "* ]] || continue
            if [[ $after == none ]]; then
                touch "$real_out/$name/.sxs-ready"
                echo "build-apps: made fixture $name (dotnet new $template, restored) in $real_out/$name"
            else
                echo "build-apps: made fixture $name (dotnet new $template, restored) in $real_out/$name; built next"
            fi
        done
    done
    if [[ $published -eq 1 ]]; then
        touch "$published_src/.sxs-restored"
        echo "build-apps: restored the published apps' projects in $published_src"
    fi
    return 0
}

if [[ $mode == fetch ]]; then
    fetch || die "fetching failed"
    exit 0
fi

[[ -d "$apps_src" ]] || { echo "build-apps: no $apps_src, nothing to build"; exit 0; }
[[ -f "$fx_dir/System.Private.CoreLib.dll" ]] ||
    die "no .NET Core 2.0.0 framework in $fx_dir (run tests/setup/install-runtimes.sh)"

# The variants of app NAME into the array `variants`: the "<folder> <flags...>" lines of
# tests/apps/NAME/variants.
read_variants() {
    local f="$apps_src/$1/variants" line
    variants=()
    [[ -f "$f" ]] || return 0
    while read -r line; do
        [[ -z "$line" || "$line" == \#* ]] || variants+=("$line")
    done <"$f"
}

# True when every build of app NAME (its own folder and its variants') has a dll and a
# runtimeconfig.json, and each dll is newer than the app's sources, its `unsafe` and `variants`
# files and this script.
app_up_to_date() {
    local name=$1 dir="$apps_src/$1" out dll v
    local -a sources=("$dir"/**/*.cs) outs=("$1") variants
    read_variants "$name"
    for v in "${variants[@]}"; do
        outs+=("${v%% *}")
    done
    for out in "${outs[@]}"; do
        dll="$apps_out/$out/$name.dll"
        [[ -f "$apps_out/$out/$name.runtimeconfig.json" ]] || return 1
        newer_than_all "$dll" "${sources[@]}" "$dir/unsafe" "$dir/variants" "$self" || return 1
    done
    return 0
}

# Decide what is out of date before paying for any dotnet start-up.
apps=()
stale=()
for dir in "$apps_src"/*/; do
    [[ -d "$dir" ]] || continue
    name=$(basename "$dir")
    sources=("$dir"/**/*.cs)
    if [[ ${#sources[@]} -eq 0 ]]; then
        echo "build-apps: $name has no .cs files, skipped" >&2
        continue
    fi
    apps+=("$name")
    app_up_to_date "$name" || stale+=("$name")
done
to_build=()
for line in "${fixtures[@]}"; do
    read -r name _ <<<"$line"
    fixture_ready "$name" || to_build+=("$name")
done
publish=0
published_ready || publish=1

if [[ ${#stale[@]} -eq 0 && ${#to_build[@]} -eq 0 && $publish -eq 0 ]]; then
    echo "build-apps: ${#apps[@]} apps, the fixtures and the published apps up to date in $build_dir"
    exit 0
fi

# What the fetch step has not done yet (this script run alone, or a failed fetch). When it fails
# the apps are built all the same, and the fixtures that are restored.
fetch_failed=0
fetch || fetch_failed=1
to_build=()
for line in "${fixtures[@]}"; do
    read -r name _ <<<"$line"
    fixture_ready "$name" || { fixture_restored "$name" && to_build+=("$name"); } || true
done
if [[ $publish -eq 1 ]] && ! published_restored; then
    publish=0
fi

# The newest SDK: `dotnet --list-sdks` prints "10.0.401 [/usr/share/dotnet/sdk]".
sdk_line=$("$dotnet" --list-sdks 2>/dev/null | tail -n 1) || true
[[ -n "$sdk_line" ]] || die "no .NET SDK found by '$dotnet --list-sdks'"
sdk_ver=${sdk_line%% *}
sdk_base=${sdk_line#*[}
sdk_base=${sdk_base%]}
roslyn="$sdk_base/$sdk_ver/Roslyn"
[[ -f "$roslyn/bincore/csc.dll" ]] || die "compiler not found at $roslyn/bincore/csc.dll"

# The reference set of the apps: every managed assembly of 2.0.0 except the facades whose types
# clash with System.Private.CoreLib and the reference assemblies (mscorlib, netstandard, ...).
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

# One part of the build per app build: the compiler's arguments (all but -noconfig, which the
# task passes, and -out) go into a response file, one a line.
parts=()
rsp_dir="$csharp_dir/apps"
rm -rf "$rsp_dir"
mkdir -p "$rsp_dir"
add_app_build() {
    local name=$1 out=$2
    shift 2
    local dir="$apps_src/$name"
    local -a sources flags
    mapfile -t sources < <(find "$dir" -name '*.cs' -type f | LC_ALL=C sort)
    flags=(-nologo -nostdlib -optimize+ "$@" -deterministic -target:exe -langversion:latest -warn:4)
    [[ -e "$dir/unsafe" ]] && flags+=(-unsafe+)
    printf '"%s"\n' "${flags[@]}" "${refs[@]}" "${sources[@]}" >"$rsp_dir/$out.rsp"
    mkdir -p "$apps_out/$out"
    printf '%s\n' "$runtimeconfig" >"$apps_out/$out/$name.runtimeconfig.json"
    parts+=("SxsKind=App;SxsApp=$name;SxsOut=$out")
}
for name in "${stale[@]}"; do
    add_app_build "$name" "$name" -debug:embedded
    read_variants "$name"
    for v in "${variants[@]}"; do
        read -r out flags <<<"$v"
        # shellcheck disable=SC2086 # the flags are words
        add_app_build "$name" "$out" $flags
    done
done
declare -A config_of
for line in "${fixtures[@]}"; do
    read -r name _ after <<<"$line"
    config_of[$name]=$after
done
for name in "${to_build[@]}"; do
    parts+=("SxsKind=Fixture;SxsProject=$real_out/$name/$name.csproj;SxsConfiguration=${config_of[$name]};SxsStamp=$real_out/$name/.sxs-ready")
done
if [[ $publish -eq 1 ]]; then
    rm -rf "$published_out"
    mkdir -p "$published_out"
    parts+=("SxsKind=Published")
fi

# The build: one project, built once per part with that part's properties, so MSBuild spreads
# the parts over its nodes. A part that fails leaves nothing that looks done (an app's dll is
# moved into place, a stamp touched, only on success) and does not stop the others.
proj="$csharp_dir/build.proj"
{
    cat <<EOF
<Project DefaultTargets="Build">
  <UsingTask TaskName="Microsoft.CodeAnalysis.BuildTasks.Csc" AssemblyFile="$roslyn/Microsoft.Build.Tasks.CodeAnalysis.dll" />
  <PropertyGroup>
    <SxsPartProperties>SxsKind;SxsApp;SxsOut;SxsProject;SxsConfiguration;SxsStamp</SxsPartProperties>
  </PropertyGroup>
  <ItemGroup>
EOF
    for part in "${parts[@]}"; do
        echo "    <Part Include=\"\$(MSBuildThisFileFullPath)\" Properties=\"$part\" />"
    done
    cat <<EOF
  </ItemGroup>
  <Target Name="Build">
    <MSBuild Projects="@(Part)" Targets="Part" BuildInParallel="true" />
  </Target>
  <Target Name="Part" DependsOnTargets="Build\$(SxsKind)" />
  <Target Name="BuildApp">
    <PropertyGroup>
      <Dir>$apps_out/\$(SxsOut)</Dir>
      <Stage>\$(Dir)/.stage</Stage>
    </PropertyGroup>
    <RemoveDir Directories="\$(Stage)" />
    <MakeDir Directories="\$(Stage)" />
    <Csc NoConfig="true" ResponseFiles="$rsp_dir/\$(SxsOut).rsp" OutputAssembly="\$(Stage)/\$(SxsApp).dll"
         UseSharedCompilation="\$(UseSharedCompilation)" SharedCompilationId="\$(SharedCompilationId)" />
    <Delete Files="\$(Dir)/\$(SxsApp).pdb" />
    <Move SourceFiles="\$(Stage)/\$(SxsApp).pdb" DestinationFolder="\$(Dir)" Condition="Exists('\$(Stage)/\$(SxsApp).pdb')" />
    <Move SourceFiles="\$(Stage)/\$(SxsApp).dll" DestinationFolder="\$(Dir)" />
    <RemoveDir Directories="\$(Stage)" />
  </Target>
  <Target Name="BuildFixture">
    <MSBuild Projects="\$(SxsProject)" Targets="Build" Properties="Configuration=\$(SxsConfiguration)"
             RemoveProperties="\$(SxsPartProperties)" />
    <Touch Files="\$(SxsStamp)" AlwaysCreate="true" />
  </Target>
  <Target Name="BuildPublished">
    <MSBuild Projects="$published_src/publish.proj" Targets="Publish" Properties="Configuration=Release"
             RemoveProperties="\$(SxsPartProperties)" />
    <Touch Files="$published_out/.sxs-ready" AlwaysCreate="true" />
  </Target>
</Project>
EOF
} >"$proj"

# The compiler server of this run, by a pipe name no other build uses; shut down however the
# script ends (the server would otherwise wait ten idle minutes before it quits).
server_id="sxsprof-build-apps-$$-$RANDOM"
stop_server() {
    sdk "$roslyn/bincore/VBCSCompiler.dll" -pipename:"$server_id" -shutdown >/dev/null 2>&1 || true
}
trap stop_server EXIT

log="$csharp_dir/build.log"
: >"$log"
ok=1
[[ ${#parts[@]} -eq 0 ]] ||
    sdk msbuild "$proj" -m:2 -nodeReuse:false -v:m -clp:NoSummary -p:UseSharedCompilation=true \
    "-p:SharedCompilationId=$server_id" >"$log" 2>&1 || ok=0

failed=0
built=0
for name in "${stale[@]}"; do
    if app_up_to_date "$name"; then
        echo "build-apps: built $name"
        built=$((built + 1))
    else
        echo "build-apps: FAILED $name" >&2
        failed=1
    fi
done
for name in "${to_build[@]}"; do
    if fixture_ready "$name"; then
        echo "build-apps: built fixture $name (${config_of[$name]}) in $real_out/$name"
    else
        echo "build-apps: FAILED fixture $name" >&2
        failed=1
    fi
done
if [[ $publish -eq 1 ]]; then
    if published_ready; then
        echo "build-apps: published $(grep -c '<P Include' "$published_src/publish.proj") apps" \
             "(self-contained 10 and 3.1, single file, app host, NativeAOT, ASP.NET Core on 10 and 8) in $published_out"
    else
        echo "build-apps: FAILED publishing apps" >&2
        failed=1
    fi
fi
if [[ $ok -eq 0 || $failed -eq 1 ]]; then
    echo "build-apps: the build's output ($log):" >&2
    cat "$log" >&2
    die "some apps or fixtures failed to build"
fi
# The compiler's warnings about the apps and fixtures are worth seeing, but only when there are any.
grep -E ': warning CS[0-9]+' "$log" || true
echo "build-apps: $built of ${#apps[@]} apps rebuilt in $apps_out"
[[ $fetch_failed -eq 0 ]] || die "some fixtures or published apps could not be fetched (see above)"
