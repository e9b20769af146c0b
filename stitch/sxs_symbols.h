/* Native code addresses to names: the ELF function symbols of module files, read once and cached.
 * No unwinding, no managed (JIT) code, no DWARF (no inlined frames, no source lines), no demangling. */
#pragma once

#include <stdint.h>

#include "sxs_modmap.h"

#include <glib.h>

/*
 * SxsSymbolCache: the function symbols of module files, read once per file path and kept for the
 * life of the cache, as link-time addresses (the same file loaded at two bases shares one entry).
 *
 * Context: any thread, concurrent calls allowed (one GMutex guards it; the first lookup in a file
 * reads the file under that lock). Allocates and does file I/O: never from a signal handler or a
 * hot path.
 */
typedef struct SxsSymbolCache SxsSymbolCache;

SxsSymbolCache *sxs__symbols_cache_new(void);
void sxs__symbols_cache_free(SxsSymbolCache *cache);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsSymbolCache, sxs__symbols_cache_free)

/*
 * The function symbol of module that contains addr (a run-time address) and addr's offset from
 * the symbol's start. The module's file is read on first use (64-bit little-endian ELF, every
 * offset and size checked against the file size); .symtab when the file has one, else .dynsym;
 * only STT_FUNC and STT_GNU_IFUNC symbols with a non-zero size count (no guess from size-0
 * symbols: an address they would claim gets -ENOENT). Among aliases at one address the name
 * with the fewest leading '_' wins (getpid over __getpid), then global over weak over local.
 * Link-time values map to run time as st_value + base for ET_DYN and st_value for ET_EXEC.
 *
 * On success *ret_symbol receives the raw (mangled) name, owned by the cache and valid until it
 * is freed, and *ret_offset the offset; both untouched on failure. Returns 0, -ENOENT when no
 * symbol covers addr or the module has no file (the vdso), -EINVAL for a file that is not a
 * readable 64-bit little-endian ELF (garbage, truncated, wrong class) or for NULL arguments, or
 * the -errno of open(). A failure to read a file is remembered: the file is not read again.
 *
 * Context: see SxsSymbolCache; not async-signal-safe.
 */
int sxs__symbols_lookup(SxsSymbolCache *cache, const SxsModule *module, uintptr_t addr, const char **ret_symbol,
                        uintptr_t *ret_offset);

/*
 * A printable name for addr: "libc.so.6!qsort+0x2a" (module name, symbol, offset from the
 * symbol), "libc.so.6+0x28a3f" (offset from the module's base, i.e. the link-time address, for
 * addr2line) when no symbol covers it or cache is NULL, or "0x7f12345678" when no module of map
 * contains it. The address is taken as is: callers symbolizing a return address pass addr - 1.
 * Returns a string to g_free; never NULL.
 *
 * Context: see SxsSymbolCache; the map must not be refreshed meanwhile.
 */
char *sxs__symbols_describe(SxsSymbolCache *cache, const SxsModuleMap *map, uintptr_t addr);
