/* Which loaded module's code holds an address: a snapshot of code ranges, searched lock-free.
 * It reads no symbols (sxs_symbols.h), does not unwind, and does not know JIT-compiled code. */
#pragma once

#include <stdint.h>

#include "sxs_cfi.h"

#include <glib.h>

/*
 * One loaded object (the main program, a shared library, the vdso) as the snapshot saw it. The
 * strings are owned by the map that returned the module; the struct stays valid until that map's
 * next rebuild (sxs__modmap_refresh returning TRUE) or its free.
 */
typedef struct {
  const char *path; /* canonical file path (realpath); the main program's comes from /proc/self/exe;
                     * the loader's name when realpath fails (file deleted); "[vdso]" for the vdso */
  const char *name; /* basename of the name the loader knows ("libc.so.6", "libz.so.1", not the
                     * symlink target "libz.so.1.2.13"); the main program's is its file's basename */
  uintptr_t base;   /* dlpi_addr: run-time address minus link-time address (0 for ET_EXEC) */
  SxsEhFrame eh;    /* its unwind tables (eh.hdr 0: none) */
} SxsModule;

/*
 * SxsModuleMap: every loaded object's executable PT_LOAD ranges, sorted, so that classifying a
 * code address is a binary search with no loader lock. It is a snapshot: objects loaded after the
 * last refresh are unknown to it and unloaded ones are still in it.
 *
 * Context: built, refreshed and freed outside signal handlers (they allocate and take the loader
 * lock). sxs__modmap_find reads it without a lock, so the owner must never run a refresh while a
 * find on the same map may be running (e.g. the sampler refreshes between samples, before it
 * signals a thread, and never from the handler).
 */
typedef struct SxsModuleMap SxsModuleMap;

/* A map filled from the modules loaded now. Never NULL. */
SxsModuleMap *sxs__modmap_new(void);
void sxs__modmap_free(SxsModuleMap *map);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsModuleMap, sxs__modmap_free)

/*
 * Rebuilds the snapshot when the loader's load/unload counters (dlpi_adds, dlpi_subs) differ from
 * those of the last build (always, on a libc that lacks them); otherwise it stops after the first
 * dl_iterate_phdr callback. Returns
 * TRUE when it rebuilt (every SxsModule from an earlier find is then invalid), FALSE when nothing
 * changed or map is NULL.
 *
 * Context: any thread except a signal handler; takes the loader lock, allocates, and calls
 * realpath on each module when it rebuilds. Not concurrently with find on the same map.
 */
gboolean sxs__modmap_refresh(SxsModuleMap *map);

/*
 * TRUE when no object was loaded or unloaded since map was built (the loader's dlpi_adds and
 * dlpi_subs are those of the build); FALSE when something was, on a libc without the counters, or
 * for NULL. Reads the map without changing it, so a holder of an immutable map can decide to build
 * a new one while others keep reading the old.
 *
 * Context: any thread except a signal handler; takes the loader lock for one dl_iterate_phdr
 * callback.
 */
gboolean sxs__modmap_is_current(const SxsModuleMap *map);

/* The first module whose name (SxsModule.name) is name, or NULL. Context: any thread; no
 * allocation, no lock (a linear search: not for hot paths). */
const SxsModule *sxs__modmap_find_named(const SxsModuleMap *map, const char *name);

/* The loader's count of unloaded objects (dlpi_subs) when map was built; 0 without the counters.
 * Context: any thread; async-signal-safe. */
unsigned long long sxs__modmap_unloads(const SxsModuleMap *map);

/*
 * The module whose executable segments contain addr, or NULL (heap, stack, data, unmapped, a
 * module loaded after the last refresh, map NULL). Pure reads of the snapshot and a binary search
 * over its sorted code ranges: no allocation, no lock, no libc call.
 *
 * Context: any thread; async-signal-safe.
 */
const SxsModule *sxs__modmap_find(const SxsModuleMap *map, uintptr_t addr);

/*
 * sxs__modmap_find() for the addresses of one walk, which mostly fall in the module (or, for JIT
 * code, the gap between modules) of the address before: the cursor remembers the span of
 * addresses its last answer holds for and answers from it without a search. Start it as
 * {.map = map}; one cursor per walk, never shared between threads.
 * Context: as sxs__modmap_find (async-signal-safe).
 */
typedef struct {
  const SxsModuleMap *map;
  uintptr_t lo, hi; /* the last answer holds for [lo, hi); empty at first */
  const SxsModule *module;
  /* Optional: the executable mappings that are not writable, [lo, hi) pairs in address order
   * (JIT code where the runtime maps it W^X); NULL when the walk does not know them. */
  const uintptr_t (*code)[2];
  size_t n_code;
} SxsModmapCursor;
const SxsModule *sxs__modmap_find_cached(SxsModmapCursor *cursor, uintptr_t addr);
