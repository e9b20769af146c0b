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
 *   AllocationSampled (the allocating thread, .NET 10) --> sxs__events_allocation_sampled(rt, type, size)
 *        the upscaled sample: 1 / P objects and size / P bytes (below)
 *   GCHeapStats (the GC's thread, the runtime suspended) --> sxs__events_heap(rt, bytes)
 *        the heap's size after this GC, kept in the runtime's record (last, largest, count)
 *
 * Upscaling, .NET 10 and later (AllocationSampled, the runtime's randomized sampling): each byte
 * allocated is a trial with probability p = 1/102400, an object sampled at its first success, so an
 * object of s bytes is sampled with probability P = 1 - (1 - p)^s. Each sample is credited 1 / P
 * objects and s / P bytes (the runtime's design document's weighted estimator): unbiased for every
 * type and stack, whatever the order of allocations, the spread shrinking with the samples.
 *
 * Upscaling before (GCAllocationTick): the runtime counts bytes as it hands out allocation contexts
 * (about 8 KB for small objects, one for each larger one) and raises a tick when the count crosses
 * about 100 KB (per heap, small and large objects apart), naming the object whose context crossed
 * it, which is credited the ~100 KB. For one kind of object at a time that is unbiased in
 * expectation; interleaved, it is not: a 64 KiB array takes a context of its own with the next
 * small objects' room in it, so with 16 KiB of small objects after each array the arrays were
 * credited 99 to 100 % of the bytes against 80 % true (measured on 8.0 and 10.0). Object counts
 * are bytes divided by the sampled object's size, an estimate for types of one size.
 *
 * The type is named by the runtime the event came from (callback/), never by another: a ClassID
 * means something only to its own runtime. What this file adds to the stacks is the exact count of
 * events and of events whose stack could not be walked. */
#include "sxs_events.h"

#include <math.h>
#include <time.h>

#include <sys/syscall.h>
#include <unistd.h>

#include "sxs_stacks.h"
#include "sxs_timeline_rec.h"

static uint32_t this_thread(void) {
  return (uint32_t)syscall(SYS_gettid);
}

/* Exact counts per profile, updated with atomics from any thread. */
static guint64 events_seen[SXS_PROFILE_N_KINDS];
static guint64 events_unwalked[SXS_PROFILE_N_KINDS];
static guint64 events_value[SXS_PROFILE_N_KINDS]; /* ns waited, bytes allocated: stacks or not */

void sxs__events_exception(SxsRuntime *rt, const char *type) {
  __atomic_add_fetch(&events_seen[SXS_PROFILE_EXCEPTIONS], 1, __ATOMIC_RELAXED);
  guint64 at = sxs__timeline_rec_now_us();
  SxsStackHandle *h = sxs__stacks_record_typed(SXS_PROFILE_EXCEPTIONS, rt->id, type ? type : "?", 1, 0);
  if (!h)
    __atomic_add_fetch(&events_unwalked[SXS_PROFILE_EXCEPTIONS], 1, __ATOMIC_RELAXED);
  sxs__timeline_rec_event(SXS_TIMELINE_EXCEPTION, rt->id, this_thread(), at, 0, 0, 0,
                          type ? g_intern_string(type) : NULL, sxs__stacks_handle_id(h));
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
  guint64 end = sxs__timeline_rec_now_us(), us = ns / 1000;
  sxs__timeline_rec_event(SXS_TIMELINE_LOCK_WAIT, rt->id, this_thread(), end > us ? end - us : 0, us, 0, 0, NULL,
                          sxs__stacks_handle_id(w->stack));
}

/* An allocation sample's stack, and its moment on the timeline. */
static void allocation_recorded(SxsRuntime *rt, const char *type, guint64 objects, guint64 bytes) {
  const char *name = g_intern_string(type && *type ? type : "?");
  guint64 at = sxs__timeline_rec_now_us();
  SxsStackHandle *h = sxs__stacks_record_typed(SXS_PROFILE_ALLOCATIONS, rt->id, name, objects, bytes);
  if (!h)
    __atomic_add_fetch(&events_unwalked[SXS_PROFILE_ALLOCATIONS], 1, __ATOMIC_RELAXED);
  sxs__timeline_rec_event(SXS_TIMELINE_ALLOCATION, rt->id, this_thread(), at, 0, bytes, (int)MIN(objects, G_MAXINT),
                          name, sxs__stacks_handle_id(h));
}

void sxs__events_allocation(SxsRuntime *rt, const char *type, guint64 bytes, guint64 size) {
  __atomic_add_fetch(&events_seen[SXS_PROFILE_ALLOCATIONS], 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&events_value[SXS_PROFILE_ALLOCATIONS], bytes, __ATOMIC_RELAXED);
  guint64 objects = size > 0 ? MAX(bytes / size, 1) : 1;
  allocation_recorded(rt, type, objects, bytes);
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
  sxs__timeline_rec_event(SXS_TIMELINE_HEAP, rt->id, this_thread(), sxs__timeline_rec_now_us(), 0, bytes, 0, NULL, 0);
}

/* x rounded down or up at random, up with the probability of its fraction: a sample that stands
 * for 2.11 objects (a 64 KiB array) counts 2 or 3, right on average, where rounding to the nearest
 * would undercount such arrays by 5 %. A per-thread xorshift: no lock, no allocation. */
static guint64 round_at_random(double x) {
  static __thread guint64 state;
  if (!state)
    state = ((guint64)now_ns() ^ (guint64)(guintptr)&state) | 1;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  double below = floor(x), chance = (double)(state >> 11) * 0x1.0p-53;
  return (guint64)below + (chance < x - below ? 1 : 0);
}

void sxs__events_allocation_sampled(SxsRuntime *rt, const char *type, guint64 size) {
  /* P = 1 - (1 - p)^s without losing it for small s: -expm1(s * log1p(-p)). */
  double chance = -expm1((double)MAX(size, 1) * log1p(-1.0 / 102400.0));
  guint64 objects = round_at_random(1.0 / chance);
  guint64 bytes = round_at_random((double)size / chance);
  __atomic_add_fetch(&events_seen[SXS_PROFILE_ALLOCATIONS], 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&events_value[SXS_PROFILE_ALLOCATIONS], bytes, __ATOMIC_RELAXED);
  allocation_recorded(rt, type, MAX(objects, 1), bytes);
}

#define SXS_EVENTS_ALLOCATION_SAMPLING                                                                                 \
  "per runtime (its allocation_sampling): AllocationSampled (.NET 10 and later): every byte a trial with probability " \
  "1/102400, an object of s bytes sampled with probability P = 1 - (1 - 1/102400)^s and credited 1/P objects and "     \
  "s/P bytes; GCAllocationTick (.NET 5 to 9): one sample per ~100 KB allocated (per heap, small and large objects "    \
  "apart), the bytes since the last sample credited to the object that crossed the threshold (biased when small "      \
  "objects are allocated between larger ones), objects = those bytes / its size"

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
