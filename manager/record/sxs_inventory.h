/* sxs_inventory: the function inventory ([profiler] inventory=true, on with tracing): every
 * function a runtime JIT-compiles, inlines or takes precompiled, with its counts and its name.
 * A runtime's callbacks only queue (FunctionID, kind); a thread of the profiler's names the new
 * ones through the runtime's guarded Info and records them in the registry. It does not speak COM
 * and sets no event mask (callback/sxs_features.c does). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_manager.h"
#include "sxs_profile.h"

/* The inventory of one runtime: its queue and what the naming thread did with it. Owned by the
 * inventory; never freed (a JIT event may arrive after Shutdown, and ops are never withdrawn). */
typedef struct SxsInventoryRuntime SxsInventoryRuntime;

/* A queue for runtime `rt`, whose functions are named through ops->function_name(instance, ...)
 * (guarded against Shutdown there); starts the naming thread on first use. NULL when out of memory
 * or when the thread cannot start (the feature is then off). Context: Initialize. */
SxsInventoryRuntime *sxs__inventory_runtime_new(SxsRuntime *rt, const SxsRuntimeOps *ops, gpointer instance);

/* Queues one event of a function: an append under the queue's own short lock, and every
 * SXS_INVENTORY_WAKE_AT events a wake-up of the naming thread. No call into the runtime, no
 * metadata read. Context: a runtime thread in a JIT, loader or catch-up callback. */
void sxs__inventory_add(SxsInventoryRuntime *inv, uint64_t function_id, SxsCodeKind kind);

/* Waits until the naming thread has handled every event queued before the call, for one runtime
 * (or for every runtime: inv NULL), at most timeout_ms. TRUE when it has. Context: any thread but
 * the naming thread; takes no registry lock. */
gboolean sxs__inventory_drain(SxsInventoryRuntime *inv, int timeout_ms);

/* A module of the runtime is about to go (ModuleUnloadStarted): its FunctionIDs must not be named
 * after this returns. Drains the runtime's queue (up to timeout_ms); when that does not finish in
 * time, what is still queued is recorded without names (counts stay exact) and one line is
 * logged. Context: the runtime's unloading thread. */
void sxs__inventory_module_unloading(SxsInventoryRuntime *inv, int timeout_ms);

/* The inventory's part of a runtime in the profile (SxsRuntimeModel.inventory). */
void sxs__inventory_fill(int runtime_id, SxsRuntimeModel *r);

/* Test support: names what is queued, then forgets every runtime (the registry is about to free
 * them); the runtimes' inventories stay allocated, reachable from their callback instances. */
void sxs__inventory_reset_for_tests(void);

/* How many events a queue holds before the naming thread is woken early (it also runs every
 * SXS_INVENTORY_PERIOD_MS). */
#define SXS_INVENTORY_WAKE_AT 4096
#define SXS_INVENTORY_PERIOD_MS 50
