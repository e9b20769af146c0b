/* sxs_events: the event profiles, recorded from runtime callbacks.
 *
 *   ExceptionThrown (the throwing thread) --> sxs__events_exception(rt, type)
 *        |  count the event (exact, per profile)
 *        v
 *   sxs__stacks_record_typed(kind, rt->id, type, 1, 0): the stitched stack of this thread,
 *   aggregated per (runtime, type, thread, frames) beside the other stacks
 *
 *   ContentionStart (the waiting thread) --> sxs__events_contention_start(rt)
 *        count it, walk and record the stack now (count 1), keep its handle and the time
 *   ContentionStop (the same thread)     --> sxs__events_contention_stop(rt, ns)
 *        add the wait (the runtime's DurationNs, else the time since the start) to that stack
 *
 *   GCAllocationTick (the allocating thread) --> sxs__events_allocation(rt, type, bytes, size)
 *        the upscaled sample: bytes (the ~100 KB since the last tick) and bytes / size objects
 *   GCHeapStats (the GC's thread, the runtime suspended) --> sxs__events_heap(rt, bytes)
 *        the heap's size after this GC, kept in the runtime's record (last, largest, count)
 *
 * Upscaling: the runtime raises an allocation tick when the bytes allocated (per heap, small and
 * large objects apart) cross about 100 KB, naming the object that crossed. An object of s bytes is
 * that object with probability about s / 100 KB, and is then credited the whole 100 KB, so the
 * expected bytes credited to a type or a stack are the bytes it allocated: unbiased, with a spread
 * that shrinks with the number of ticks (a profile of a few MB is noise). Object counts are bytes
 * divided by the sampled object's size, an estimate for types of one size (arrays of varied
 * lengths are off). .NET 10's randomized allocation sampling is not used yet.
 *
 * The type is named by the runtime the event came from (callback/), never by another: a ClassID
 * means something only to its own runtime. What this file adds to the stacks is the exact count of
 * events and of events whose stack could not be walked. */
#include "sxs_events.h"

#include <time.h>

#include "sxs_stacks.h"

/* Exact counts per profile, updated with atomics from any thread. */
static guint64 events_seen[SXS_PROFILE_N_KINDS];
static guint64 events_unwalked[SXS_PROFILE_N_KINDS];
static guint64 events_value[SXS_PROFILE_N_KINDS]; /* ns waited, bytes allocated: stacks or not */

void sxs__events_exception(SxsRuntime *rt, const char *type) {
  __atomic_add_fetch(&events_seen[SXS_PROFILE_EXCEPTIONS], 1, __ATOMIC_RELAXED);
  if (!sxs__stacks_record_typed(SXS_PROFILE_EXCEPTIONS, rt->id, type ? type : "?", 1, 0))
    __atomic_add_fetch(&events_unwalked[SXS_PROFILE_EXCEPTIONS], 1, __ATOMIC_RELAXED);
}

/* The wait under way on this thread: which runtime's, its stack, when it began. */
typedef struct {
  gboolean open;
  int runtime_id;
  SxsStackHandle *stack; /* NULL when the walk failed */
  gint64 start_ns;
} ContentionWait;

static __thread ContentionWait contention_wait;

static gint64 now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gint64)ts.tv_sec * G_GINT64_CONSTANT(1000000000) + ts.tv_nsec;
}

void sxs__events_contention_start(SxsRuntime *rt) {
  ContentionWait *w = &contention_wait;
  __atomic_add_fetch(&events_seen[SXS_PROFILE_CONTENTION], 1, __ATOMIC_RELAXED);
  w->stack = sxs__stacks_record_typed(SXS_PROFILE_CONTENTION, rt->id, NULL, 1, 0);
  if (!w->stack)
    __atomic_add_fetch(&events_unwalked[SXS_PROFILE_CONTENTION], 1, __ATOMIC_RELAXED);
  w->runtime_id = rt->id;
  w->open = TRUE;
  /* After the walk: the wait is the runtime's, not ours. */
  w->start_ns = now_ns();
}

void sxs__events_contention_stop(SxsRuntime *rt, gint64 duration_ns) {
  ContentionWait *w = &contention_wait;
  if (!w->open || w->runtime_id != rt->id)
    return;
  w->open = FALSE;
  guint64 ns = duration_ns >= 0 ? (guint64)duration_ns : (guint64)MAX(now_ns() - w->start_ns, 0);
  __atomic_add_fetch(&events_value[SXS_PROFILE_CONTENTION], ns, __ATOMIC_RELAXED);
  if (w->stack)
    sxs__stacks_add_to(w->stack, 0, ns);
}

void sxs__events_allocation(SxsRuntime *rt, const char *type, guint64 bytes, guint64 size) {
  __atomic_add_fetch(&events_seen[SXS_PROFILE_ALLOCATIONS], 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&events_value[SXS_PROFILE_ALLOCATIONS], bytes, __ATOMIC_RELAXED);
  guint64 objects = size > 0 ? MAX(bytes / size, 1) : 1;
  if (!sxs__stacks_record_typed(SXS_PROFILE_ALLOCATIONS, rt->id, type && *type ? type : "?", objects, bytes))
    __atomic_add_fetch(&events_unwalked[SXS_PROFILE_ALLOCATIONS], 1, __ATOMIC_RELAXED);
}

void sxs__events_heap(SxsRuntime *rt, guint64 bytes) {
  SxsHeapModel *h = &rt->heap;
  __atomic_store_n(&h->after_last_gc, bytes, __ATOMIC_RELAXED);
  guint64 max = __atomic_load_n(&h->after_gc_max, __ATOMIC_RELAXED);
  while (bytes > max &&
         !__atomic_compare_exchange_n(&h->after_gc_max, &max, bytes, TRUE, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
  /* Last: a snapshot that sees the count sees the sizes it counts. */
  __atomic_add_fetch(&h->gcs, 1, __ATOMIC_RELEASE);
}

#define SXS_EVENTS_ALLOCATION_SAMPLING                                                                                 \
  "GCAllocationTick: one sample per ~100 KB allocated (per heap, small and large objects apart), the bytes since "     \
  "the last sample credited to the object that crossed the threshold; objects = those bytes / its size"

void sxs__events_fill(SxsProfileModel *m) {
  const SxsConfig *cfg = sxs__manager_config();
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
    SxsEventProfileModel *p = &m->profiles[k];
    p->enabled = cfg && cfg->profiles[k];
    p->events = __atomic_load_n(&events_seen[k], __ATOMIC_RELAXED);
    p->unwalked = __atomic_load_n(&events_unwalked[k], __ATOMIC_RELAXED);
    p->value = __atomic_load_n(&events_value[k], __ATOMIC_RELAXED);
    if (k == SXS_PROFILE_ALLOCATIONS && p->enabled && !p->sampling)
      p->sampling = g_strdup(SXS_EVENTS_ALLOCATION_SAMPLING);
  }
}

void sxs__events_reset_for_tests(void) {
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
    __atomic_store_n(&events_seen[k], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&events_unwalked[k], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&events_value[k], 0, __ATOMIC_RELAXED);
  }
}
