/* The trace writer: a profile's timeline in the trace-event format (the JSON object form, with
 * "traceEvents"), which Perfetto, chrome://tracing and speedscope open. Times are microseconds
 * since the process started.
 *
 *   process <pid>  ── one track per sampled thread ("Main (4242) [rt1 10.0.12]"): its samples as
 *                     nested slices, one per frame, a slice lasting while consecutive samples keep
 *                     that frame (a run of equal stacks is one slice per frame); a gap of more than
 *                     two periods (the thread did not run) closes everything
 *                  ── per runtime: "GC rt1" (collections: generation, reason), "GC pauses rt1"
 *                  ── per thread that waited: "lock waits, thread <tid>"; that compiled: "JIT, thread
 *                     <tid>" (each compilation, named when the profile knows the function)
 *                  ── instants: exceptions (on the thread), modules loaded, threads started and
 *                     ended, runtimes started and stopped (on the process)
 *                  ── counters every 100 ms: "CPU ms" per thread, "allocated MB/s" per runtime; the
 *                     heap after each GC per runtime (both with the allocation profile)
 *
 * Pseudo-tracks get thread ids above any OS one (Linux's pid_max is at most 2^22). */
#include <string.h>

#include "sxs_json.h"
#include "sxs_view.h"

#define TRACE_PSEUDO_TID 0x40000000u
#define TRACE_COUNTER_STEP_US 100000

typedef struct {
  guint32 frame;
  guint64 start_us;
} TraceOpen;

typedef struct {
  SxsJsonWriter *w;
  const SxsView *v;
  int pid;
} Trace;

static void trace_meta(Trace *t, const char *what, guint32 tid, const char *name, gint64 sort) {
  sxs__json_begin_object_inline(t->w);
  sxs__json_member_string(t->w, "name", what);
  sxs__json_member_string(t->w, "ph", "M");
  sxs__json_member_int(t->w, "pid", t->pid);
  sxs__json_member_uint(t->w, "tid", tid);
  sxs__json_key(t->w, "args");
  sxs__json_begin_object_inline(t->w);
  if (name)
    sxs__json_member_string(t->w, "name", name);
  else
    sxs__json_member_int(t->w, "sort_index", sort);
  sxs__json_end_object(t->w);
  sxs__json_end_object(t->w);
}

static void trace_thread_track(Trace *t, guint32 tid, const char *name, gint64 sort) {
  trace_meta(t, "thread_name", tid, name, 0);
  trace_meta(t, "thread_sort_index", tid, NULL, sort);
}

/* A complete slice ("X"). */
static void trace_slice(Trace *t, guint32 tid, const char *name, const char *cat, guint64 start, guint64 dur,
                        const char *arg_key, const char *arg_value) {
  sxs__json_begin_object_inline(t->w);
  sxs__json_member_string(t->w, "name", name);
  sxs__json_member_string(t->w, "cat", cat);
  sxs__json_member_string(t->w, "ph", "X");
  sxs__json_member_uint(t->w, "ts", start);
  sxs__json_member_uint(t->w, "dur", dur);
  sxs__json_member_int(t->w, "pid", t->pid);
  sxs__json_member_uint(t->w, "tid", tid);
  if (arg_key) {
    sxs__json_key(t->w, "args");
    sxs__json_begin_object_inline(t->w);
    sxs__json_member_string(t->w, arg_key, arg_value);
    sxs__json_end_object(t->w);
  }
  sxs__json_end_object(t->w);
}

static void trace_close_frames(Trace *t, guint32 tid, GArray *open, guint keep, guint64 at) {
  while (open->len > keep) {
    const TraceOpen *o = &g_array_index(open, TraceOpen, open->len - 1);
    const SxsViewFrame *f = t->v->frames->pdata[o->frame];
    const char *tag = f->managed ? sxs__view_runtime_tag(t->v, f->runtime_id) : "[native]";
    trace_slice(t, tid, f->name, f->managed ? "managed" : "native", o->start_us,
                at > o->start_us ? at - o->start_us : 0, "module", f->module && *f->module ? f->module : tag);
    g_array_set_size(open, open->len - 1);
  }
}

/* A thread's samples as nested slices. */
static void trace_samples(Trace *t, const SxsViewGroup *g, guint64 period_us) {
  g_autoptr(GArray) open = g_array_new(FALSE, FALSE, sizeof(TraceOpen));
  guint64 last = 0;
  for (guint i = 0; i < g->timeline->len; i++) {
    const SxsViewSample *s = &g_array_index(g->timeline, SxsViewSample, i);
    const SxsViewStack *st = &g_array_index(g->stacks, SxsViewStack, s->stack);
    if (open->len && s->t_us > last + 2 * period_us)
      trace_close_frames(t, g->thread, open, 0, last + period_us);
    guint common = 0;
    while (common < open->len && common < st->depth &&
           g_array_index(open, TraceOpen, common).frame == st->frames[common])
      common++;
    trace_close_frames(t, g->thread, open, common, s->t_us);
    for (guint d = common; d < st->depth; d++) {
      TraceOpen o = {.frame = st->frames[d], .start_us = s->t_us};
      g_array_append_val(open, o);
    }
    last = s->t_us + (s->weight > 1 ? (s->weight - 1) * period_us : 0);
  }
  trace_close_frames(t, g->thread, open, 0, last + period_us);
}

static void trace_instant(Trace *t, guint32 tid, const char *name, const char *cat, guint64 at, gboolean process) {
  sxs__json_begin_object_inline(t->w);
  sxs__json_member_string(t->w, "name", name);
  sxs__json_member_string(t->w, "cat", cat);
  sxs__json_member_string(t->w, "ph", "i");
  sxs__json_member_string(t->w, "s", process ? "p" : "t");
  sxs__json_member_uint(t->w, "ts", at);
  sxs__json_member_int(t->w, "pid", t->pid);
  sxs__json_member_uint(t->w, "tid", tid);
  sxs__json_end_object(t->w);
}

/* A request (--endpoints) as an async span named by its endpoint: requests overlap on a thread (one
 * awaits while another runs), so each is its own span, by id. */
static void trace_request(Trace *t, const SxsTimelineModel *tl, const SxsTimelineEvent *e, guint id) {
  const char *endpoint = e->label && e->label <= tl->labels->len ? tl->labels->pdata[e->label - 1] : "request";
  for (int end = 0; end < 2; end++) {
    sxs__json_begin_object_inline(t->w);
    sxs__json_member_string(t->w, "name", endpoint);
    sxs__json_member_string(t->w, "cat", "request");
    sxs__json_member_string(t->w, "ph", end ? "e" : "b");
    sxs__json_member_uint(t->w, "id", id);
    sxs__json_member_uint(t->w, "ts", e->start_us + (end ? e->dur_us : 0));
    sxs__json_member_int(t->w, "pid", t->pid);
    sxs__json_member_uint(t->w, "tid", e->thread);
    sxs__json_end_object(t->w);
  }
}

static const char *gc_reason(int reason) {
  return reason == 1 ? "induced" : "other";
}

/* The runtime's events: GCs and pauses on tracks of their own, lock waits on their thread's lock
 * track, the rest as instants. */
static void trace_events(Trace *t, const SxsTimelineModel *tl, GHashTable *lock_tracks, GHashTable *jit_tracks) {
  for (guint i = 0; i < tl->events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(tl->events, SxsTimelineEvent, i);
    char name[160];
    guint32 rt_track = TRACE_PSEUDO_TID + (guint32)MAX(e->runtime_id, 0) * 4;
    switch (e->kind) {
    case SXS_TIMELINE_GC:
      g_snprintf(name, sizeof name, "GC gen%" G_GUINT64_FORMAT " (%s)", e->value, gc_reason(e->reason));
      trace_slice(t, rt_track, name, "gc", e->start_us, e->dur_us, NULL, NULL);
      break;
    case SXS_TIMELINE_PAUSE: trace_slice(t, rt_track + 1, "GC pause", "gc", e->start_us, e->dur_us, NULL, NULL); break;
    case SXS_TIMELINE_LOCK_WAIT:
      g_hash_table_add(lock_tracks, GUINT_TO_POINTER(e->thread));
      trace_slice(t, TRACE_PSEUDO_TID + 0x10000000u + e->thread, "lock wait", "contention", e->start_us, e->dur_us,
                  NULL, NULL);
      break;
    case SXS_TIMELINE_EXCEPTION:
      g_snprintf(name, sizeof name, "exception %s", e->name ? e->name : "?");
      trace_instant(t, e->thread, name, "exception", e->start_us, FALSE);
      break;
    case SXS_TIMELINE_ALLOCATION:
    case SXS_TIMELINE_HEAP: break; /* counters, below */
    case SXS_TIMELINE_REQUEST: trace_request(t, tl, e, i + 1); break;
    case SXS_TIMELINE_JIT:
      g_hash_table_add(jit_tracks, GUINT_TO_POINTER(e->thread));
      if (e->name)
        g_snprintf(name, sizeof name, "JIT %s", e->name);
      else
        g_snprintf(name, sizeof name, "JIT function 0x%" G_GINT64_MODIFIER "x", e->value);
      trace_slice(t, TRACE_PSEUDO_TID + 0x20000000u + e->thread, name, "jit", e->start_us, e->dur_us, NULL, NULL);
      break;
    default:
      g_snprintf(name, sizeof name, "%s%s%s", sxs__timeline_event_name(e->kind), e->name ? " " : "",
                 e->name ? e->name : "");
      trace_instant(t, e->thread, name, "process", e->start_us, TRUE);
      break;
    }
  }
}

static void trace_counter(Trace *t, const char *name, guint64 ts, const char *key, double value) {
  sxs__json_begin_object_inline(t->w);
  sxs__json_member_string(t->w, "name", name);
  sxs__json_member_string(t->w, "ph", "C");
  sxs__json_member_uint(t->w, "ts", ts);
  sxs__json_member_int(t->w, "pid", t->pid);
  sxs__json_key(t->w, "args");
  sxs__json_begin_object_inline(t->w);
  sxs__json_member_double(t->w, key, value);
  sxs__json_end_object(t->w);
  sxs__json_end_object(t->w);
}

/* A counter summed per TRACE_COUNTER_STEP_US from values in time order: each step with a sum is
 * written, and a 0 at the step after a run of them (so the counter falls back between bursts). */
typedef struct {
  gboolean open;
  guint64 step;
  double sum;
} TraceSum;

static void trace_sum_flush(Trace *t, TraceSum *c, const char *name, const char *key, double scale) {
  if (!c->open)
    return;
  trace_counter(t, name, c->step * TRACE_COUNTER_STEP_US, key, c->sum * scale);
  c->open = FALSE;
}

static void trace_sum_add(Trace *t, TraceSum *c, const char *name, const char *key, double scale, guint64 at_us,
                          double value) {
  guint64 step = at_us / TRACE_COUNTER_STEP_US;
  if (c->open && step != c->step) {
    guint64 last = c->step;
    trace_sum_flush(t, c, name, key, scale);
    if (step > last + 1)
      trace_counter(t, name, (last + 1) * TRACE_COUNTER_STEP_US, key, 0);
  }
  if (!c->open)
    *c = (TraceSum){.open = TRUE, .step = step};
  c->sum += value;
}

/* "CPU ms" per thread and "allocated MB/s" per runtime, every TRACE_COUNTER_STEP_US, from their
 * records in time order (nothing is kept per step: a long run costs what its records do); the heap
 * after each GC. */
static void trace_counters(Trace *t, const SxsTimelineModel *tl, guint64 period_us) {
  const SxsView *v = t->v;
  for (guint gi = 0; gi < v->groups->len; gi++) {
    const SxsViewGroup *g = v->groups->pdata[gi];
    if (g->kind != SXS_VIEW_SAMPLES || !g->timeline || period_us == 0)
      continue;
    g_autofree char *name = g->thread_name ? g_strdup_printf("CPU ms, %s (%u)", g->thread_name, g->thread)
                                           : g_strdup_printf("CPU ms, thread %u", g->thread);
    TraceSum c = {0};
    for (guint i = 0; i < g->timeline->len; i++) {
      const SxsViewSample *s = &g_array_index(g->timeline, SxsViewSample, i);
      trace_sum_add(t, &c, name, "ms", (double)period_us / 1000.0, s->t_us, (double)s->weight);
    }
    trace_sum_flush(t, &c, name, "ms", (double)period_us / 1000.0);
  }
  /* Per runtime: its allocation samples' bytes, and the heap after each GC. */
  g_autoptr(GHashTable) sums = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  g_autoptr(GHashTable) names = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  const double per_second = 1e6 / TRACE_COUNTER_STEP_US / 1e6; /* bytes a step -> MB a second */
  for (guint i = 0; i < tl->events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(tl->events, SxsTimelineEvent, i);
    if (e->kind == SXS_TIMELINE_HEAP) {
      g_autofree char *name = g_strdup_printf("heap after GC MB, rt%d", e->runtime_id);
      trace_counter(t, name, e->start_us, "MB", (double)e->value / 1e6);
      continue;
    }
    if (e->kind != SXS_TIMELINE_ALLOCATION)
      continue;
    TraceSum *c = g_hash_table_lookup(sums, GINT_TO_POINTER(e->runtime_id));
    if (!c) {
      c = g_new0(TraceSum, 1);
      g_hash_table_insert(sums, GINT_TO_POINTER(e->runtime_id), c);
      g_hash_table_insert(names, GINT_TO_POINTER(e->runtime_id),
                          g_strdup_printf("allocated MB/s, rt%d", e->runtime_id));
    }
    trace_sum_add(t, c, g_hash_table_lookup(names, GINT_TO_POINTER(e->runtime_id)), "MB/s", per_second, e->start_us,
                  (double)e->value);
  }
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, sums);
  while (g_hash_table_iter_next(&it, &key, &value))
    trace_sum_flush(t, value, g_hash_table_lookup(names, key), "MB/s", per_second);
}

/* The runtime a thread's samples are of: the one whose managed frames they hold, "" when none or
 * several. */
static const char *thread_runtime(const SxsView *v, const SxsViewGroup *g) {
  int found = 0;
  for (guint i = 0; i < g->stacks->len; i++) {
    const SxsViewStack *s = &g_array_index(g->stacks, SxsViewStack, i);
    for (guint d = 0; d < s->depth; d++) {
      const SxsViewFrame *f = v->frames->pdata[s->frames[d]];
      if (!f->managed)
        continue;
      if (found && found != f->runtime_id)
        return "";
      found = f->runtime_id;
    }
  }
  return found ? sxs__view_runtime_tag(v, found) : "";
}

char *sxs__write_trace(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why) {
  (void)o;
  const SxsProfileModel *m = v->model;
  if (!m->timeline.present) {
    *ret_why = g_strdup("the profile has no timeline");
    return NULL;
  }
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(TRUE);
  Trace t = {.w = w, .v = v, .pid = m->process ? m->process->pid : 0};
  guint64 period_us = v->frequency > 0 ? MAX(1000000 / (guint64)v->frequency, 1) : 10000;
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "displayTimeUnit", "ms");
  sxs__json_key(w, "otherData");
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "producer", "sxsprof");
  sxs__json_member_string(w, "clock", "microseconds since the process started");
  sxs__json_member_uint(w, "start_unix_us", m->timeline.start_unix_us);
  sxs__json_member_uint(w, "detail_from_us", m->timeline.detail_from_us);
  sxs__json_end_object(w);
  sxs__json_key(w, "traceEvents");
  sxs__json_begin_array(w);
  g_autofree char *pname = NULL;
  if (m->process && m->process->argv && m->process->argv[0]) {
    g_autofree char *cmd = g_strjoinv(" ", m->process->argv);
    pname = g_strdup_printf("%.120s (pid %d)", cmd, t.pid);
  } else {
    pname = g_strdup_printf("pid %d", t.pid);
  }
  trace_meta(&t, "process_name", 0, pname, 0);
  /* Tracks: threads by id, then the runtimes' GC tracks, then lock tracks. */
  gint64 sort = 0;
  for (guint i = 0; i < v->groups->len; i++) {
    const SxsViewGroup *g = v->groups->pdata[i];
    if (g->kind != SXS_VIEW_SAMPLES || !g->timeline)
      continue;
    const char *rt = thread_runtime(v, g);
    g_autofree char *name = g->thread_name && *g->thread_name
                                ? g_strdup_printf("%s (%u)%s%s", g->thread_name, g->thread, *rt ? " " : "", rt)
                                : g_strdup_printf("thread %u%s%s", g->thread, *rt ? " " : "", rt);
    trace_thread_track(&t, g->thread, name, sort++);
    trace_samples(&t, g, period_us);
  }
  for (guint i = 0; i < m->runtimes->len; i++) {
    const SxsRuntimeModel *r = m->runtimes->pdata[i];
    const char *tag = sxs__view_runtime_tag(v, r->id);
    g_autofree char *gc = g_strdup_printf("GC %s", tag);
    g_autofree char *pauses = g_strdup_printf("GC pauses %s", tag);
    trace_thread_track(&t, TRACE_PSEUDO_TID + (guint32)r->id * 4, gc, sort++);
    trace_thread_track(&t, TRACE_PSEUDO_TID + (guint32)r->id * 4 + 1, pauses, sort++);
  }
  g_autoptr(GHashTable) lock_tracks = g_hash_table_new(g_direct_hash, g_direct_equal);
  g_autoptr(GHashTable) jit_tracks = g_hash_table_new(g_direct_hash, g_direct_equal);
  trace_events(&t, &m->timeline, lock_tracks, jit_tracks);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, lock_tracks);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    g_autofree char *name = g_strdup_printf("lock waits, thread %u", GPOINTER_TO_UINT(key));
    trace_thread_track(&t, TRACE_PSEUDO_TID + 0x10000000u + GPOINTER_TO_UINT(key), name, sort++);
  }
  g_hash_table_iter_init(&it, jit_tracks);
  while (g_hash_table_iter_next(&it, &key, NULL)) {
    g_autofree char *name = g_strdup_printf("JIT, thread %u", GPOINTER_TO_UINT(key));
    trace_thread_track(&t, TRACE_PSEUDO_TID + 0x20000000u + GPOINTER_TO_UINT(key), name, sort++);
  }
  trace_counters(&t, &m->timeline, period_us);
  sxs__json_end_array(w);
  sxs__json_end_object(w);
  return sxs__json_writer_steal(w, ret_len);
}
