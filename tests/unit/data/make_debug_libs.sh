#!/usr/bin/env bash
# Builds the libraries the symbol tests read their names from, the ways distributions ship them:
#   full.so             unstripped (its own .symtab), with a build ID
#   full.debug          its debug file (objcopy --only-keep-debug)
#   stripped.so         full.so stripped: .dynsym only; its debug file found by build ID
#   other.debug         the debug file of another build of the same source (another build ID)
#   mini.so             stripped, with .gnu_debugdata: the xz'd .symtab of the functions .dynsym
#                       lacks, as Fedora's find-debuginfo makes it (MiniDebugInfo)
#   linked.so           stripped, with a .gnu_debuglink to linked.debug (name and CRC)
#   linked.debug        the file that link names
#   noid-full.so        full.so built without a build ID
#   noid.so, noid.debug noid-full.so stripped with a debug link to noid.debug: matched by CRC alone
#   build-id            stripped.so's build ID in hex
#
# Usage: make_debug_libs.sh OUT_DIR   (gcc, binutils and xz; tests/setup/install-deps.sh has them)
set -euo pipefail
out=$1
mkdir -p "$out"
cd "$out"

cat >lib.c <<'SRC'
#include <unistd.h>
/* Local: only a symbol table names it, never .dynsym. */
static __attribute__((noinline)) int hidden_worker(int x) {
  return x * 7 + (int)getpid() % 3;
}
int exported_entry(int x) {
  return hidden_worker(x) + 2;
}
SRC

cc=${CC:-cc}
"$cc" -shared -fPIC -O1 -g -fno-plt -Wl,--build-id=sha1 -o full.so lib.c
# The same code under another build ID: the same addresses, so only the ID tells them apart.
"$cc" -shared -fPIC -O1 -g -fno-plt -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 -o other.so lib.c
"$cc" -shared -fPIC -O1 -g -Wl,--build-id=sha1 -o plt.so lib.c

objcopy --only-keep-debug full.so full.debug
objcopy --only-keep-debug other.so other.debug
strip --strip-all -o stripped.so full.so
readelf -n full.so | sed -n 's/.*Build ID: *//p' >build-id

# MiniDebugInfo: the function symbols .dynsym lacks, in a symbol-only ELF, xz-compressed, added as
# .gnu_debugdata to the stripped library.
nm -D --format=posix --defined-only full.so | awk '{print $1}' | sort -u >dynsyms
nm --format=posix --defined-only full.debug | awk '$2 ~ /^[Tt]$/ {print $1}' | sort -u >funcsyms
comm -13 dynsyms funcsyms >keep_symbols
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep_symbols full.debug mini.debug
rm -f mini.debug.xz
xz --format=xz --keep mini.debug
strip --strip-all -o mini.so full.so
objcopy --add-section .gnu_debugdata=mini.debug.xz mini.so

# A debug link: the name and CRC of linked.debug, computed when it is added.
cp full.debug linked.debug
strip --strip-all -o linked.so full.so
objcopy --add-gnu-debuglink=linked.debug linked.so
# Without build IDs, the debug link's CRC is all that ties the files.
"$cc" -shared -fPIC -O1 -g -fno-plt -Wl,--build-id=none -o noid-full.so lib.c
objcopy --only-keep-debug noid-full.so noid.debug
strip --strip-all -o noid.so noid-full.so
objcopy --add-gnu-debuglink=noid.debug noid.so
echo done >made
