/* SxsIpMap: a fixed-size, lock-free table from code addresses to 64-bit values, for facts about
 * return addresses that do not change while the code stays loaded (how to step out of a frame,
 * which runtime owns the code). It never removes an entry: its owner replaces the whole table
 * when the code it describes may have gone. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct SxsIpMap SxsIpMap;

/* A table of 2^capacity_log2 slots (16 bytes each), capacity_log2 from 4 to 24; NULL for another
 * capacity or when out of memory. Context: normal context (allocates). */
SxsIpMap *sxs__ipmap_new(unsigned capacity_log2);
/* Frees the table; no thread may still use it. Accepts NULL. */
void sxs__ipmap_free(SxsIpMap *map);

/*
 * The value stored for ip: true and *ret_value, or false (never stored, a writer still writing it,
 * map NULL). Open addressing with at most 16 probes; a reader never waits.
 * Context: any thread; async-signal-safe (atomic loads only).
 */
bool sxs__ipmap_lookup(const SxsIpMap *map, uintptr_t ip, uint64_t *ret_value);

/*
 * Asks the CPU to bring ip's first probe slot into its caches, without waiting for it: a walk
 * about to look up several addresses one after the other (each step needs the previous one's
 * result) starts all their memory reads at once. No effect on the table's contents.
 * Context: any thread; async-signal-safe (a prefetch never faults).
 */
void sxs__ipmap_prefetch(const SxsIpMap *map, uintptr_t ip);

/*
 * Stores value for ip unless ip is already there (the first value stays) or its 16 probe slots are
 * all taken (then nothing is stored). Two writers storing one ip at the same moment may both store
 * it (one finds the other's slot claimed, not yet published, and takes another): a wasted slot;
 * waiting instead could deadlock a signal handler that interrupted the other writer. ip 0 and UINTPTR_MAX are never stored. A writer claims an
 * empty slot by a compare-and-swap of its key, writes the value, then publishes the key with a
 * release store, so a reader that finds ip reads the whole value.
 * Context: any thread; async-signal-safe (atomics only; no lock, no allocation).
 */
void sxs__ipmap_insert(SxsIpMap *map, uintptr_t ip, uint64_t value);

/* Calls fn for every published entry. Context: any thread; entries published meanwhile may be
 * missed. */
void sxs__ipmap_foreach(const SxsIpMap *map, void (*fn)(uintptr_t ip, uint64_t value, void *user_data),
                        void *user_data);
