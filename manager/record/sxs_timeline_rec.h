/* sxs_timeline_rec: when each sample and event happened (the profile's "timeline"), kept compactly
 * in memory: full detail for the last [timeline] window= of the run up to SXS_TIMELINE_CAP_BYTES,
 * older samples folded into counts per second and thread. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_profile.h"

/* The most memory the timeline's detail takes (samples 8 bytes each, events 48): past it the oldest
 * detail is folded into seconds. 64 MiB: about 8 million samples, 23 hours of one busy thread at
 * 99 Hz, 14 minutes of 100 at 99 Hz. */
#define SXS_TIMELINE_CAP_BYTES ((guint64)64 << 20)

/* Microseconds of the monotonic clock since the process started (its start as the kernel counts
 * it; since the first call when that cannot be read). Context: any thread, normal context. */
guint64 sxs__timeline_rec_now_us(void);

/* A sample of thread counted `weight` times on stack stack_id (sxs__stacks_handle_id), captured at
 * at_ns (CLOCK_MONOTONIC; 0: now), for the request of `label` (sxs_activity; 0: none). Context: the
 * sampler thread; takes the timeline's lock (a leaf). */
void sxs__timeline_rec_sample(guint stack_id, uint32_t thread, guint64 weight, guint64 at_ns, guint label);

/* An event (SxsTimelineEvent's fields; name is interned, stack_id 0 for none); raised on its own
 * thread, it is the request's that thread works for (sxs_activity). Context: any thread, normal
 * context; takes the timeline's lock (a leaf). */
void sxs__timeline_rec_event(SxsTimelineEventKind kind, int runtime_id, uint32_t thread, guint64 start_us,
                             guint64 dur_us, guint64 value, int reason, const char *name, guint stack_id);
/* The same with its label given. */
void sxs__timeline_rec_event_label(SxsTimelineEventKind kind, int runtime_id, uint32_t thread, guint64 start_us,
                                   guint64 dur_us, guint64 value, int reason, const char *name, guint stack_id,
                                   guint label);

/* The recorder's settings into m->timeline (present, window, cap, end, what was folded), and with
 * stacks_by_id (stack id -> SxsStackModel* of m, from sxs__stacks_fill) its samples, events and
 * seconds. Context: any thread; takes the timeline's lock. */
void sxs__timeline_rec_fill(SxsProfileModel *m, GHashTable *stacks_by_id);

/* What was recorded since the last call (everything kept with `all`), for the spool. */
typedef struct {
  guint64 t_us;
  guint id;
  guint32 weight;
  guint label;
} SxsTimelineRecSample;
typedef struct {
  SxsTimelineEventKind kind;
  int runtime_id;
  uint32_t thread;
  guint64 start_us, dur_us, value;
  int reason;
  const char *name; /* interned */
  guint stack_id;
  guint label;
} SxsTimelineRecEvent;
typedef struct {
  SxsVec *samples; /* SxsTimelineRecSample, by time */
  SxsVec *events;  /* SxsTimelineRecEvent */
  SxsVec *seconds; /* SxsTimelineSecond (all: the folded seconds) */
} SxsTimelineRecChanges;
void sxs__timeline_rec_changes(gboolean all, SxsTimelineRecChanges *ret);
void sxs__timeline_rec_changes_clear(SxsTimelineRecChanges *c);

/* Test support: forget everything. */
void sxs__timeline_rec_reset_for_tests(void);
