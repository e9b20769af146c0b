/* sxs_stacks: the stitched stacks recorded at runtime events ([stacks] on=), aggregated, and how
 * the walks went. The walking is stitch/'s; this keeps what the profile reports. */
#pragma once

#include <glib.h>

#include "sxs_config.h"
#include "sxs_manager.h"
#include "sxs_profile.h"
#include "sxs_stitch.h"
#include "sxs_walk_resources.h"

/* The kind of the sampler's stacks, beside the events of [stacks] on= (SxsStackEvents). */
#define SXS_STACKS_SAMPLE ((SxsStackEvents)(1 << 7))
/* The kinds of the event profiles' stacks (SxsProfileKind k). */
#define SXS_STACKS_PROFILE(k) ((SxsStackEvents)(1 << (8 + (int)(k))))

/* Distinct stacks are kept up to [stacks] max_distinct= (SxsConfig.stacks_max_distinct); a stack new
 * beyond that is counted under its leaf alone, with one frame for its callers that says so (the
 * profile's stack_walks.stacks_merged counts them): what the recorder holds stays bounded on a long
 * run whose stacks keep varying. */

/*
 * Records the stitched stack of the calling thread for one event: walks it (every runtime's
 * frames and the native ones), names its frames the first time that stack is seen, and counts it.
 * A walk started while this thread is already walking (an event raised by the walk itself) is not
 * made, only counted. Never fails the caller: problems end up in the profile's counters.
 *
 * Context: a runtime's callback on the thread the event happened on (ExceptionThrown,
 * JITCompilationStarted, GarbageCollectionStarted); normal context, no profiler lock held.
 * Allocates (per thread once; per new stack).
 */
void sxs__stacks_record(SxsStackEvents event);

/*
 * Records the stitched stack of the calling thread for one event of an event profile (exceptions,
 * contention, allocations) of runtime runtime_id: aggregated per (runtime, type, thread, frames),
 * counting count events that add value (nanoseconds, bytes; 0 for exceptions). type is copied.
 * Returns the stack's handle, for adding to it later (a wait's time once it ends), or NULL when no
 * stack could be recorded (the caller counts the event as unwalked).
 *
 * Context: a runtime's callback on the thread the event happened on; normal context, no profiler
 * lock held. Allocates (per thread once; per new stack).
 */
typedef struct SxsStackHandle SxsStackHandle;
SxsStackHandle *sxs__stacks_record_typed(SxsProfileKind kind, int runtime_id, const char *type, guint64 count,
                                         guint64 value);
/* A stack's id: 1, 2, ... in the order stacks were first counted, the same in the spool's changes
 * and on the timeline; 0 for NULL. Context: any thread. */
guint sxs__stacks_handle_id(const SxsStackHandle *handle);
/* Adds count and value to a stack recorded by sxs__stacks_record_typed. A handle stays valid until
 * sxs__stacks_reset_for_tests. Context: any thread; takes stacks_lock. */
void sxs__stacks_add_to(SxsStackHandle *handle, guint64 count, guint64 value);

/* Copies the recorded stacks and the walk counters into m (which must have none yet); ret_by_id
 * (optional) receives each stack's id (sxs__stacks_handle_id) -> its copy in m. Context: any
 * thread; takes the stacks lock, then registry locks (to name frames recorded unnamed). */
void sxs__stacks_fill(SxsProfileModel *m, GHashTable *ret_by_id);

/* The walk counters alone (no stacks) into m. Context: any thread; takes the stacks lock. */
void sxs__stacks_fill_counters(SxsProfileModel *m);

/* One stack's change since the last report: `id` names the stack in the spool (1, 2, ... in the
 * order stacks were first reported); `model` (owned) is a copy of its frames and names, with
 * count and value 0, at its first report (and at every report of `all`); delta is what its count
 * grew by, value_delta what its value (nanoseconds waited, bytes allocated) grew by. */
typedef struct {
  guint id;
  guint64 delta;
  guint64 value_delta;
  SxsStackModel *model;
} SxsStackChange;

/* The stacks new or counted since the last call, as SxsStackChange; with `all`, every stack with
 * its frames and its whole count (a spool starting afresh). Context: the output thread; takes the
 * stacks lock, then registry locks (names found since). Free with sxs__stacks_changes_free. */
GArray *sxs__stacks_changes(gboolean all);
void sxs__stacks_changes_free(GArray *changes);

/* Managed code may have gone or come (a module unloaded, a runtime initialized or shut down, a
 * garbage collection that may free dynamic methods' code): forget the names of frames met before
 * and which runtime owns which code address (sxs__walk_resources_code_changed). Context: any
 * thread; short locks. */
void sxs__stacks_code_changed(void);

/* Counts a sampled stack of thread, already classified and stitched (leaf first, strictly rising
 * sp), weight times: named when new, aggregated with the other samples of that thread. res: the
 * walk's (between sxs__walk_resources_enter and leave); targets: the runtimes its managed frames are of (for naming). Returns
 * where it was counted, for counting it again with sxs__stacks_add_to, or NULL when the table was
 * full. Context: the sampler thread (no managed code, no lock held). */
SxsStackHandle *sxs__stacks_add_stitched(const SxsWalkResources *res, uint32_t thread, const char *thread_name,
                                         const SxsStackFrame *frames, guint n, guint64 weight,
                                         const SxsStitchTarget *targets, guint n_targets);

/* Thread thread (an OS thread id) is now called name: its sampled stacks recorded so far say so
 * too. Context: the sampler thread; takes the stacks lock. */
void sxs__stacks_rename_thread(uint32_t thread, const char *name);

/* Test support: forget every stack and counter. No walk may be under way. */
void sxs__stacks_reset_for_tests(void);
