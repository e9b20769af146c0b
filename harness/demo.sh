#!/usr/bin/env bash
# The demo: set everything up, then profile a sample .NET app with the sampler on and show where
# its flame graph is; then two runtimes of different versions in one process, and a real
# `dotnet build` (every process of it). Each run prints its summary and the files it wrote.

set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash tests/setup.sh build >/dev/null
out=$root/build/demo
mkdir -p "$out"
runtimes=${SXS_RUNTIMES_DIR:-$HOME/.local/share/sxsprof/dotnet}

if [[ -x build/bin/runsxs ]] && ls -d "$runtimes"/shared/Microsoft.NETCore.App/8.0.* >/dev/null 2>&1; then
    echo "== two runtimes in one process (10.0 and 8.0), both sampled:"
    echo "   sxsprof run --sample -o $out/sxs -- runsxs 10.0 Demo.dll 20 8.0 Demo.dll 20"
    build/bin/sxsprof run --sample -o "$out/sxs" -- \
        build/bin/runsxs 10.0 build/apps/Demo/Demo.dll "20" 8.0 build/apps/Demo/Demo.dll "20"
    echo
fi

if [[ -f build/real/hello/hello.csproj ]]; then
    echo "== a real build (the SDK's console template), every .NET process of it profiled:"
    echo "   sxsprof run -o $out/build/ -- dotnet build"
    rm -rf "$out/build" && mkdir -p "$out/build"
    (cd build/real/hello &&
        DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 "$root/build/bin/sxsprof" run --format json,summary \
            -o "$out/build/" -- dotnet build --no-restore --no-incremental -nodeReuse:false)
    echo
fi

echo "== one runtime, sampled at 999 Hz: sxsprof run --sample=999 -o $out/demo -- dotnet Demo.dll 100"
build/bin/sxsprof run --sample=999 -o "$out/demo" -- dotnet build/apps/Demo/Demo.dll 100
echo
echo "demo: the flame graph is $out/demo.svg (open it in a browser; docs/flamegraph.png is one like it);"
echo "demo: speedscope: $out/demo.speedscope.json, pprof: go tool pprof -top $out/demo.pb.gz"
