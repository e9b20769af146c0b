/* sxs_events: the event profiles (exceptions, lock contention, allocations): what each runtime
 * reports, recorded as typed stitched stacks (sxs_stacks) and exact event counts. */
#pragma once

#include <glib.h>

#include "sxs_manager.h"
#include "sxs_profile.h"

/*
 * An exception of type (Namespace.Type, NULL when it could not be named) was thrown in runtime rt:
 * counted, and its throwing stack recorded under rt and type.
 *
 * Context: rt's ExceptionThrown callback on the throwing thread; normal context, no lock held.
 */
void sxs__events_exception(SxsRuntime *rt, const char *type);

/*
 * A thread of runtime rt begins to wait for a lock: counted, and its stack recorded (count 1) under
 * rt; the wait's time is added to that stack when the matching stop comes.
 *
 * Context: rt's EventPipeEventDelivered (ContentionStart) on the waiting thread; normal context.
 */
void sxs__events_contention_start(SxsRuntime *rt);
/* The wait begun by this thread's last start ended: duration_ns as the runtime measured it (.NET 8
 * and later), or < 0 for the time since the start. A stop without a start is ignored. Context: the
 * same thread (ContentionStop). */
void sxs__events_contention_stop(SxsRuntime *rt, gint64 duration_ns);

/*
 * An allocation tick of runtime rt: `bytes` allocated since the last one (about 100 KB), the tick
 * raised by an object of `type` and `size` bytes (0: unknown). Recorded as an estimate of bytes
 * (all of them to this type and stack) and of objects (bytes / size, at least 1).
 *
 * Context: rt's EventPipeEventDelivered (GCAllocationTick) on the allocating thread.
 */
void sxs__events_allocation(SxsRuntime *rt, const char *type, guint64 bytes, guint64 size);

/*
 * An allocation of runtime rt sampled at random (AllocationSampled, .NET 10): an object of `type`
 * and `size` bytes. Recorded as the estimate it stands for: 1 / P objects and size / P bytes, P the
 * chance that an object of this size is sampled (see sxs_events.c).
 *
 * Context: rt's EventPipeEventDelivered (AllocationSampled) on the allocating thread.
 */
void sxs__events_allocation_sampled(SxsRuntime *rt, const char *type, guint64 size);

/*
 * A GC of runtime rt ended with `bytes` in its generations (their sizes added up, free space
 * included): the runtime's heap after its last GC and the largest after any, with the count, and
 * on the timeline.
 *
 * Context: rt's EventPipeEventDelivered (GCHeapStats) on the thread that ran the GC, while the
 * runtime is suspended: atomics, and the timeline's leaf lock (held by no thread the suspension
 * stopped: a thread in cooperative mode is suspended only at a safe point of managed code, never
 * inside the profiler).
 */
void sxs__events_heap(SxsRuntime *rt, guint64 bytes);

/* Fills m's event profiles: asked for or not (the config in force), the event counts, and the
 * stacks (from sxs_stacks, which must have been filled into m already). Context: any thread. */
void sxs__events_fill(SxsProfileModel *m);

/* Test support: forget every count. */
void sxs__events_reset_for_tests(void);
