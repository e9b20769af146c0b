/* sxs_walk_resources: what every walk of this process's stacks reads, and how long it lives.
 *
 *   sampler / event callback ──> sxs__walk_resources_enter ──> SxsWalkResources ──> sxs__stitch_* ──> stacks
 *                                  (map refreshed when the           │
 *                                   loader's counters moved)          └──> sxs__walk_resources_leave
 *
 * The module map is immutable once built; the step cache and the owners cache are lock-free tables
 * filled as walks go. When the loader's counters move a new map replaces the old one (and a new
 * step cache after an unload: addresses freed there may be taken by another module), and when
 * managed code may have gone (sxs__walk_resources_code_changed) a new owners cache replaces the
 * old. A replaced one is retired, not freed, while any walk that may have loaded it is in flight:
 * each walk is bracketed by enter and leave, and what was retired is freed once no walk is in
 * flight. The symbol cache frames are named with is made once and kept. */
#pragma once

#include "sxs_ipmap.h"
#include "sxs_modmap.h"
#include "sxs_symbols.h"
#include "sxs_unwind.h"

/* What a walk reads, valid between sxs__walk_resources_enter() and sxs__walk_resources_leave(). */
typedef struct {
  const SxsModuleMap *map; /* immutable */
  SxsUnwindCache *steps;   /* lock-free; step rules of map's modules and of JIT-compiled code */
  SxsIpMap *owners;        /* lock-free; which runtime owns code outside every module */
  SxsSymbolCache *symbols; /* native names; has its own lock (never from a signal handler) */
} SxsWalkResources;

/*
 * Takes the walk resources (the module map rebuilt first when the loader's counters moved) and
 * keeps them from being freed until the matching sxs__walk_resources_leave. debug_dirs: the
 * folders searched for native debug files besides /usr/lib/debug ([symbols] debug_dirs=), read
 * only by the first call (which makes the symbol cache); may be NULL.
 * Context: normal context (takes the resources' lock, and the loader's lock for one
 * dl_iterate_phdr callback, all of it when the map is rebuilt). Allocates when it rebuilds.
 */
void sxs__walk_resources_enter(SxsWalkResources *ret, const char *const *debug_dirs);

/* The walk is done with what its enter gave; frees what was retired once no walk is in flight.
 * Context: normal context (may take the resources' lock). */
void sxs__walk_resources_leave(void);

/* The walk of res will not read its owners cache again: it keeps the map, the steps and the
 * symbols (for long: the timer handlers'), and owners caches replaced meanwhile need not wait for
 * it to be freed. Its end is then sxs__walk_resources_leave_map, not _leave. Sets res->owners to
 * NULL. Context: normal context (may take the resources' lock). */
void sxs__walk_resources_drop_owners(SxsWalkResources *res);
/* The end of a walk that dropped its owners. Context: normal context (may take the lock). */
void sxs__walk_resources_leave_map(void);

/* Managed code may have gone or come (a module unloaded, a runtime initialized or shut down, a
 * garbage collection that may free dynamic methods' code): the owners cache is replaced by an
 * empty one. Context: normal context; a short lock. */
void sxs__walk_resources_code_changed(void);

/* How many walks are between enter and leave now (for tests and assertions). Context: any thread. */
int sxs__walk_resources_in_flight(void);
/* How many replaced owners caches wait to be freed (for tests). Context: normal context. */
guint sxs__walk_resources_retired_owners(void);
