/* sxs_events: the event profiles, recorded from runtime callbacks.
 *
 *   ExceptionThrown (the throwing thread) --> sxs__events_exception(rt, type)
 *        |  count the event (exact, per profile)
 *        v
 *   sxs__stacks_record_typed(kind, rt->id, type, 1, 0): the stitched stack of this thread,
 *   aggregated per (runtime, type, thread, frames) beside the other stacks
 *
 * The type is named by the runtime the event came from (callback/), never by another: a ClassID
 * means something only to its own runtime. What this file adds to the stacks is the exact count of
 * events and of events whose stack could not be walked. */
#include "sxs_events.h"

#include "sxs_stacks.h"

/* Exact counts per profile, updated with atomics from any thread. */
static guint64 events_seen[SXS_PROFILE_N_KINDS];
static guint64 events_unwalked[SXS_PROFILE_N_KINDS];

void sxs__events_exception(SxsRuntime *rt, const char *type) {
  __atomic_add_fetch(&events_seen[SXS_PROFILE_EXCEPTIONS], 1, __ATOMIC_RELAXED);
  if (!sxs__stacks_record_typed(SXS_PROFILE_EXCEPTIONS, rt->id, type ? type : "?", 1, 0))
    __atomic_add_fetch(&events_unwalked[SXS_PROFILE_EXCEPTIONS], 1, __ATOMIC_RELAXED);
}

void sxs__events_fill(SxsProfileModel *m) {
  const SxsConfig *cfg = sxs__manager_config();
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
    SxsEventProfileModel *p = &m->profiles[k];
    p->enabled = cfg && cfg->profiles[k];
    p->events = __atomic_load_n(&events_seen[k], __ATOMIC_RELAXED);
    p->unwalked = __atomic_load_n(&events_unwalked[k], __ATOMIC_RELAXED);
  }
}

void sxs__events_reset_for_tests(void) {
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
    __atomic_store_n(&events_seen[k], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&events_unwalked[k], 0, __ATOMIC_RELAXED);
  }
}
