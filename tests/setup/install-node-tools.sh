#!/usr/bin/env bash
# Installs the npm packages the view tests read their formats back with: speedscope (its file
# format schema), ajv (validates against that schema) and pprof-format (decodes pprof).
#
# Usage: tests/setup/install-node-tools.sh
#
# Into $SXS_NODE_TOOLS_DIR (default ~/.local/share/sxsprof/node), versions pinned; idempotent:
# when the pinned versions are there it only reads three package.json files.
set -euo pipefail

dir=${SXS_NODE_TOOLS_DIR:-$HOME/.local/share/sxsprof/node}
pkgs=(speedscope@1.25.0 pprof-format@2.3.2 ajv@8.20.0)

present=1
for p in "${pkgs[@]}"; do
    name=${p%@*} version=${p##*@}
    f="$dir/node_modules/$name/package.json"
    if [[ ! -f "$f" ]] || ! grep -q "\"version\": \"$version\"" "$f"; then
        present=0
    fi
done
if [[ $present -eq 1 ]]; then
    echo "install-node-tools: ${#pkgs[@]} packages present in $dir"
    exit 0
fi
mkdir -p "$dir"
[[ -f "$dir/package.json" ]] || echo '{"name": "sxsprof-test-tools", "private": true}' >"$dir/package.json"
echo "install-node-tools: installing ${pkgs[*]} into $dir"
npm install --no-audit --no-fund --silent --prefix "$dir" "${pkgs[@]}" >/dev/null 2>&1 ||
    npm install --no-audit --no-fund --prefix "$dir" "${pkgs[@]}"
echo "install-node-tools: done"
