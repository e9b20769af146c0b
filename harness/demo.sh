#!/usr/bin/env bash
# The demo: set everything up, profile a sample .NET app, then two runtimes of different
# versions in one process, then a real `dotnet build` (every process of it), and print where
# each profile went with a short summary.

set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash tests/setup.sh build >/dev/null
out=build/demo
mkdir -p "$out"
runtimes=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}

echo "== one runtime: sxsprof run -- dotnet build/apps/Demo/Demo.dll"
build/bin/sxsprof run --output "$out/single" -- dotnet build/apps/Demo/Demo.dll

if [[ -x build/bin/runsxs && -d "$runtimes/shared/Microsoft.NETCore.App/2.0.0" ]]; then
    echo
    echo "== two runtimes in one process (10.0 and 2.0.0), both profiled (mode pick-all):"
    echo "   sxsprof run -- runsxs 10.0 Demo.dll \"\" 2.0.0 Demo.dll \"\""
    build/bin/sxsprof run --output "$out/sxs" -- \
        build/bin/runsxs 10.0 build/apps/Demo/Demo.dll "" 2.0.0 build/apps/Demo/Demo.dll ""
fi

if [[ -f build/real/hello/hello.csproj ]]; then
    echo
    echo "== a real build (the SDK's console template), every .NET process of it profiled:"
    echo "   sxsprof run -o $out/build/ -- dotnet build"
    rm -rf "$out/build" && mkdir -p "$out/build"
    (cd build/real/hello &&
        DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 "$root/build/bin/sxsprof" run -o "$root/$out/build/" -- \
            dotnet build --no-restore --no-incremental -nodeReuse:false)
fi
