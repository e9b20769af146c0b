/* Native code addresses to names: the ELF function symbols of module files (and of their debug files),
 * read once and cached, and the perf map other code generators in the process write. No unwinding, no
 * managed code of the profiled runtimes, no DWARF (no inlined frames, no source lines), no demangling. */
#pragma once

#include <stdint.h>

#include "sxs_modmap.h"

#include <glib.h>

/*
 * SxsSymbolCache: the function symbols of module files, read once per file path and kept for the
 * life of the cache, as link-time addresses (the same file loaded at two bases shares one entry);
 * and the process's perf map (/tmp/perf-PID.map), read again when it has grown and a lookup misses.
 *
 * Context: any thread, concurrent calls allowed (one GMutex guards it; the first lookup in a file
 * reads the file under that lock). Allocates and does file I/O: never from a signal handler or a
 * hot path.
 */
typedef struct SxsSymbolCache SxsSymbolCache;

SxsSymbolCache *sxs__symbols_cache_new(void);
/* A cache that also looks for debug files under each absolute folder of debug_dirs (NULL-terminated,
 * may be NULL; relative ones are ignored), after /usr/lib/debug: [symbols] debug_dirs=. */
SxsSymbolCache *sxs__symbols_cache_new_full(const char *const *debug_dirs);
void sxs__symbols_cache_free(SxsSymbolCache *cache);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsSymbolCache, sxs__symbols_cache_free)

/* Where a module file's names came from, in the order they are looked for. */
typedef enum {
  SXS_SYMBOLS_SOURCE_NONE = 0,  /* no symbols (or an unreadable file) */
  SXS_SYMBOLS_SOURCE_SYMTAB,    /* the file's own .symtab */
  SXS_SYMBOLS_SOURCE_DYNSYM,    /* only its .dynsym (and PLT entries): no debug symbols found */
  SXS_SYMBOLS_SOURCE_DEBUGDATA, /* .dynsym and the .symtab of its .gnu_debugdata (MiniDebugInfo) */
  SXS_SYMBOLS_SOURCE_BUILD_ID,  /* .dynsym and <root>/.build-id/xx/yyyy.debug, of the same build ID */
  SXS_SYMBOLS_SOURCE_DEBUGLINK, /* .dynsym and the file its .gnu_debuglink names, of the same CRC */
} SxsSymbolsSource;

/* The module name of frames named from the perf map. */
#define SXS_SYMBOLS_PERF_MAP_MODULE "[perf-map]"

/*
 * The function symbol of module that contains addr (a run-time address) and addr's offset from
 * the symbol's start. The module's file is read on first use (64-bit little-endian ELF, every
 * offset and size checked against the file size), its names from the first of, as debuggers look:
 *   1. its own .symtab;
 *   2. else its .dynsym, with the .symtab of the first of: its .gnu_debugdata section (an
 *      xz-compressed ELF, MiniDebugInfo; liblzma is opened at the first one); the file
 *      <root>/.build-id/xx/yyyy.debug named by its build ID; the file its .gnu_debuglink names,
 *      beside it, in .debug/ beside it, under <root>/<its folder>/, and in each configured root.
 *      Roots are /usr/lib/debug then the configured ones. A debug file is used only when its
 *      build ID is the module's (a build-ID file without one is refused), or, for a debug link
 *      where either file has no build ID, when its CRC-32 is the one the link records.
 * PLT entries are named foo@plt (from .rela.plt). Only STT_FUNC and STT_GNU_IFUNC symbols with a
 * non-zero size count, each for its own extent only (no guess from size-0 symbols: an address
 * they would claim gets -ENOENT). Among aliases at one address the name a person knows wins: not
 * a glibc-internal __GI_ alias, the fewest leading '_' (getpid over __getpid, open over
 * __libc_open64), global over weak over local, then the longest, as perf picks
 * (__memmove_avx_unaligned_erms over __memcpy_avx_unaligned_erms); "@@GLIBC_2.34" version
 * suffixes are cut.
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
 * Where the names of the module file at path come from (reading it now when it was not yet), and
 * the debug file's path (g_free; NULL when none) in *ret_debug_path when it is not NULL.
 * Context: see SxsSymbolCache.
 */
SxsSymbolsSource sxs__symbols_source(SxsSymbolCache *cache, const char *path, char **ret_debug_path);

/* What a cache holds: files read, function symbols kept (and perf map entries), and the bytes they
 * take (the symbols, their names without the string chunks' slack). */
typedef struct {
  guint files;
  gsize symbols;
  gsize bytes;
} SxsSymbolsStats;
/* Context: see SxsSymbolCache; *ret is zeroed for a NULL cache. */
void sxs__symbols_cache_stats(SxsSymbolCache *cache, SxsSymbolsStats *ret);

/*
 * The entry of this process's perf map (/tmp/perf-PID.map: "START SIZE name" lines in hex, as a
 * runtime with DOTNET_PerfMapEnabled or another code generator writes them) that covers addr,
 * the latest line when several start at one address. The lines added since the last read are
 * read when a lookup misses and the file grew, at most every 50 ms (generators write it at every
 * method). Returns 0 (*ret_symbol owned by the cache until it is freed), -ENOENT, or
 * -EINVAL for NULL arguments. Context: see SxsSymbolCache.
 */
int sxs__symbols_lookup_perf_map(SxsSymbolCache *cache, uintptr_t addr, const char **ret_symbol, uintptr_t *ret_offset);

/*
 * A printable name for addr: "libc.so.6!qsort+0x2a" (module name, symbol, offset from the
 * symbol), "libc.so.6+0x28a3f" (offset from the module's base, i.e. the link-time address, for
 * addr2line) when no symbol covers it or cache is NULL, "[perf-map]!name+0x8" when no module of
 * map contains it and the process's perf map names it, or "0x7f12345678". The address is taken as is: callers symbolizing a return address pass addr - 1.
 * Returns a string to g_free; never NULL.
 *
 * Context: see SxsSymbolCache; the map must not be refreshed meanwhile.
 */
char *sxs__symbols_describe(SxsSymbolCache *cache, const SxsModuleMap *map, uintptr_t addr);
