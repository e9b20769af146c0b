/* sxs_timeline: a profile's timeline read back: cutting a profile to a window of its run, and the
 * run's busy and idle phases found from its activity. The model's types are sxs_profile.h's. */
#pragma once

#include <glib.h>

#include "sxs_profile.h"

/*
 * Cuts m to the samples and events of [from_us, to_us) (microseconds since the process started):
 * each sampled stack counts its samples in the window (stacks with none go), each event
 * profile's stacks the events in it (exceptions, lock waits with their time, allocations with
 * their bytes), the timeline keeps what is inside. Stacks recorded at runtime events ([stacks]
 * on=) and traced call trees carry no time: they go (a call tree is the whole run's). FALSE with
 * *ret_why (one line) when m has no timeline, or the window lies before the detail it keeps
 * (then nothing is changed).
 */
gboolean sxs__timeline_slice(SxsProfileModel *m, guint64 from_us, guint64 to_us, char **ret_why);

/*
 * Cuts m to what was done for the requests of one endpoint label (--endpoints; "GET /orders/{id}"):
 * samples, event profiles and timeline events with that label, as sxs__timeline_slice does for a
 * window. FALSE with *ret_why (one line, naming the labels there are) when m has no labels or not
 * that one.
 */
gboolean sxs__timeline_slice_label(SxsProfileModel *m, const char *label, char **ret_why);

/* What the timeline holds for one label (0: samples and events of no request). */
typedef struct {
  guint label;
  const char *name; /* borrowed from the model's labels; NULL for label 0 */
  guint64 samples;  /* sample weight (periods) */
  guint64 requests, request_us;
  guint64 alloc_bytes;
  guint64 lock_waits, lock_wait_us;
  guint64 exceptions;
} SxsTimelineLabelTotals;

/* Each label's totals (label 0 among them), most samples first; NULL when m has no labels. Free
 * with g_array_unref. */
GArray *sxs__timeline_label_totals(const SxsProfileModel *m);

/* A stretch of the run: busy (the sampled threads ran) or idle, and what ran most. */
typedef struct {
  guint64 start_us, end_us;
  gboolean busy;
  guint64 samples;
  char *top; /* the leaf function most of its samples are in, or NULL; owned */
  guint64 top_samples;
} SxsTimelinePhase;

/* The run's phases from its samples in steps of step_us: a step is busy when it holds at least a
 * fifth of the samples of the busiest steps (their 95th percentile); stretches shorter than
 * min_us join their neighbours; a busy stretch whose top function changes is split there. NULL
 * when m has no timeline with samples. Free with g_array_unref (which frees the tops). */
GArray *sxs__timeline_phases(const SxsProfileModel *m, guint64 step_us, guint64 min_us);
