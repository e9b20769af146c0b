#!/usr/bin/env bash
# Installs the .NET tools the benchmarks compare sxsprof with: dotnet-trace (the runtime's own
# EventPipe tracer; tests/bench/real.sh runs `dotnet-trace collect` on the same work).
#
# Usage: tests/setup/install-tools.sh
#
# Into $SXS_TOOLS_DIR (default ~/.local/share/sxsprof/tools) with `dotnet tool install
# --tool-path`, the version pinned (the registry's copy holds only some versions); idempotent:
# when the pinned version is there it only reads the tool's store folder.
set -euo pipefail

dir=${SXS_TOOLS_DIR:-$HOME/.local/share/sxsprof/tools}
dotnet=${SXS_DOTNET:-dotnet}
tools=(dotnet-trace@10.0.750501)

for t in "${tools[@]}"; do
    name=${t%@*} version=${t##*@}
    if [[ -x "$dir/$name" && -d "$dir/.store/$name/$version" ]]; then
        echo "install-tools: $name $version present in $dir"
        continue
    fi
    mkdir -p "$dir"
    # Another version in the way: `dotnet tool install` refuses to replace it.
    [[ -e "$dir/$name" ]] && "$dotnet" tool uninstall --tool-path "$dir" "$name" >/dev/null
    echo "install-tools: installing $name $version into $dir"
    DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 \
        "$dotnet" tool install --tool-path "$dir" "$name" --version "$version" >/dev/null
done
echo "install-tools: done"
