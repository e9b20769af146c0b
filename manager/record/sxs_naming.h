/* sxs_naming: functions named off the program's threads. A thread of the profiler's reads the
 * names, through each runtime's guarded Info, of
 *   - the function inventory's events ([profiler] inventory=true, on with tracing): every function
 *     a runtime JIT-compiles, inlines or takes precompiled, whose callbacks only queue it here;
 *   - frames of stacks that could not be named where they were met (a thread holding its runtime
 *     suspended for a GC, or a runtime that refuses metadata reads on another runtime's callback
 *     thread); the stacks take the names at the next snapshot.
 * It records them in the registry. It does not speak COM and sets no event mask
 * (callback/sxs_features.c does). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_manager.h"
#include "sxs_profile.h"

/* One runtime's queue: what its callbacks and stacks queued, and what the naming thread did with
 * it. Owned by this module; never freed (a JIT event may arrive after Shutdown). */
typedef struct SxsNamingQueue SxsNamingQueue;

/* A queue for runtime `rt`, whose functions are named through ops->function_name(instance, ...)
 * (guarded against Shutdown there). NULL when out of memory. The naming thread starts with the
 * first event. Context: Initialize. */
SxsNamingQueue *sxs__naming_queue_new(SxsRuntime *rt, const SxsRuntimeOps *ops, gpointer instance);

/* The runtime keeps the inventory: the profile says so. Starts the naming thread; FALSE when it
 * cannot start (the inventory is then off). Context: Initialize. */
gboolean sxs__naming_inventory_on(SxsNamingQueue *q);

/* Queues one inventory event of a function: an append under the queue's own short lock, and every
 * SXS_NAMING_WAKE_AT events a wake-up of the naming thread. No call into the runtime, no metadata
 * read. Context: a runtime thread in a JIT, loader or catch-up callback. */
void sxs__naming_add(SxsNamingQueue *q, uint64_t function_id, SxsCodeKind kind);

/* A frame's function that could not be named where it was met: named on the naming thread and
 * recorded (SXS_CODE_NAMED), unless it cannot be named there either. 0, or -ENOENT when the runtime
 * has no queue. Context: any thread but a signal handler; takes the module's locks (leaf locks). */
int sxs__naming_later(SxsRuntime *rt, uint64_t function_id);

/* Waits until the naming thread has handled every event queued before the call, for one runtime
 * (or for every runtime: q NULL), at most timeout_ms. TRUE when it has. Context: any thread but
 * the naming thread; holds no registry lock. */
gboolean sxs__naming_drain(SxsNamingQueue *q, int timeout_ms);

/* A module of the runtime is about to go (ModuleUnloadStarted): its FunctionIDs must not be named
 * after this returns. Drains the runtime's queue (up to timeout_ms); when that does not finish in
 * time, what is still queued is recorded without names (inventory counts stay exact) and one line
 * is logged. Context: the runtime's unloading thread. */
void sxs__naming_module_unloading(SxsNamingQueue *q, int timeout_ms);

/* The inventory's part of a runtime in the profile (SxsRuntimeModel.inventory). */
void sxs__naming_fill(int runtime_id, SxsRuntimeModel *r);

/* Test support: names what is queued, then forgets every runtime (the registry is about to free
 * them); the queues stay allocated, reachable from their callback instances. */
void sxs__naming_reset_for_tests(void);

/* How many events a queue holds before the naming thread is woken early (it also runs every
 * SXS_NAMING_PERIOD_MS). */
#define SXS_NAMING_WAKE_AT 4096
#define SXS_NAMING_PERIOD_MS 50
