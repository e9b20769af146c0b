#!/usr/bin/env bash
# Fails unless the profiler library exports exactly the intended dynamic symbols.
set -u
lib=${1:?usage: check_exports.sh libsxsprof.so}
[ -f "$lib" ] || { echo "not built: $lib"; exit 1; }
got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRrVvIi]$/ {print $3}' | sort -u)
want="DllGetClassObject"
if [ "$got" != "$want" ]; then
  echo "exported symbols differ"; echo "want: $want"; echo "got:"; echo "$got"; exit 1
fi
echo "ok: only DllGetClassObject is exported"
