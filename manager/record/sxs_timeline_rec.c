/* sxs_timeline_rec: the timeline's recorder (see sxs_timeline_rec.h).
 *
 *   sampler thread ── sample (stack id, weight) ──┐
 *   runtime callbacks ── event ───────────────────┤ lock (a leaf) ──> chunks of 8-byte samples
 *                                                 │                   events, 48 bytes each
 *                                                 └─ past the window or the cap: the oldest chunk
 *                                                    folded into samples per second and thread
 *
 * A sample is 8 bytes: microseconds after its chunk's base (a chunk spans at most 71 minutes) and
 * its stack's id (24 bits, the stacks recorder's ids) with its weight less one (8 bits; a heavier
 * sample is several). Samples are numbered from the first ever recorded, so that what the spool
 * has been given is a number. */
#include "sxs_timeline_rec.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sxs_activity.h"
#include "sxs_config.h"
#include "sxs_manager.h"

#define CHUNK_SAMPLES 8192
#define ID_BITS 24
#define ID_MAX ((1u << ID_BITS) - 1)
#define WEIGHT_MAX 256u
#define CHUNK_SLACK_US ((guint64)10 * 1000000)

typedef struct {
  guint32 dt_us;
  guint32 id_weight; /* id | (weight - 1) << 24 */
} Rec;

/* Sample i of chunk c: its time, stack id and weight. */
#define REC_T(c, i) ((c)->base_us + (c)->recs[i].dt_us)
#define REC_ID(c, i) ((c)->recs[i].id_weight & ID_MAX)
#define REC_WEIGHT(c, i) (((c)->recs[i].id_weight >> ID_BITS) + 1)

typedef struct {
  guint64 first;   /* the number of its first sample */
  guint64 base_us; /* dt_us counts from here */
  guint64 last_us; /* its last sample's time */
  guint head;      /* samples before this one were folded */
  guint n;
  guint16 *labels; /* each sample's label (sxs_activity), NULL until one has a label */
  Rec recs[CHUNK_SAMPLES];
} Chunk;

/* Sample i's label. */
#define REC_LABEL(c, i) ((c)->labels ? (c)->labels[i] : 0)

typedef struct {
  guint64 start_us;
  guint64 value;
  const char *name;
  guint32 dur_us;
  guint32 thread;
  guint32 stack_id;
  gint32 reason;
  gint16 runtime_id;
  guint16 label;
  guint8 kind;
} EventRec;
G_STATIC_ASSERT(sizeof(EventRec) == 48);

static struct {
  GMutex lock;
  GQueue chunks;           /* Chunk*, oldest first */
  guint64 next_sample;     /* the number the next sample gets */
  guint64 reported_sample; /* samples before this number were given to the spool */
  GArray *events;          /* EventRec, as recorded */
  guint events_head;       /* events before this index were dropped (the array is compacted now and then) */
  guint64 events_dropped;  /* events dropped in all: the number of the event at events_head */
  guint64 reported_event;  /* events (counted from the first ever) given to the spool */
  GArray *threads;         /* guint32 by stack id: the thread of the stack */
  GArray *seconds;         /* SxsTimelineSecond, by second as folded (older time than the detail) */
  guint64 cur_second;      /* the second being folded into, and its threads' places in `seconds` */
  GHashTable *cur_threads; /* thread -> index + 1 */
  guint64 folded_samples;
  guint64 detail_from_us;
  guint64 lost;       /* samples of stacks past ID_MAX (not kept) */
  guint64 last_us;    /* the latest time recorded: a sample's, or an event's end */
  guint label_arrays; /* chunks with an array of labels */
} tl;

static gint64 base_mono_us;
static guint64 start_unix_us;

/* The process's start on the monotonic clock: the kernel's start time (clock ticks since boot,
 * /proc/self/stat field 22) against CLOCK_BOOTTIME now. */
static gpointer clock_init(gpointer data) {
  (void)data;
  gint64 mono = g_get_monotonic_time();
  base_mono_us = mono;
  start_unix_us = (guint64)g_get_real_time();
  FILE *f = fopen("/proc/self/stat", "re");
  if (!f)
    return NULL;
  char buf[1024];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')');
  unsigned long long start_ticks = 0;
  /* After "pid (comm)": state is field 3, starttime field 22. */
  if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                   &start_ticks) != 1)
    return NULL;
  long hz = sysconf(_SC_CLK_TCK);
  struct timespec boot;
  if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
    return NULL;
  gint64 boot_us = (gint64)boot.tv_sec * 1000000 + boot.tv_nsec / 1000;
  gint64 elapsed = boot_us - (gint64)(start_ticks * 1000000ull / (unsigned long long)hz);
  if (elapsed < 0 || elapsed > mono)
    return NULL;
  base_mono_us = mono - elapsed;
  start_unix_us = (guint64)(g_get_real_time() - elapsed);
  return NULL;
}

static void clock_once(void) {
  static GOnce once = G_ONCE_INIT;
  g_once(&once, clock_init, NULL);
}

guint64 sxs__timeline_rec_now_us(void) {
  clock_once();
  gint64 d = g_get_monotonic_time() - base_mono_us;
  return d > 0 ? (guint64)d : 0;
}

static guint64 window_us(void) {
  const SxsConfig *cfg = sxs__manager_config();
  return cfg ? (guint64)cfg->timeline_window_s * 1000000 : 0;
}

static guint64 detail_bytes_locked(void) {
  return (guint64)tl.label_arrays * CHUNK_SAMPLES * sizeof(guint16) + (guint64)tl.chunks.length * sizeof(Chunk) +
         (tl.events ? (guint64)tl.events->len * sizeof(EventRec) : 0) +
         (tl.threads ? (guint64)tl.threads->len * sizeof(guint32) : 0);
}

/* One sample into its second's count for its thread. Samples are folded oldest first, so the
 * seconds grow at the end of the array: the current second's threads are found by a small table,
 * an older second's (a sample recorded late) by a search back. */
static void fold_sample_locked(guint64 t_us, guint id, guint64 weight) {
  uint32_t thread = id < tl.threads->len ? g_array_index(tl.threads, guint32, id) : 0;
  guint64 second = t_us / 1000000;
  tl.folded_samples += weight;
  if (second > tl.cur_second || tl.seconds->len == 0) {
    tl.cur_second = second;
    g_hash_table_remove_all(tl.cur_threads);
  }
  if (second == tl.cur_second) {
    guint at = GPOINTER_TO_UINT(g_hash_table_lookup(tl.cur_threads, GUINT_TO_POINTER(thread)));
    if (!at) {
      SxsTimelineSecond s = {.second = second, .thread = thread};
      g_array_append_val(tl.seconds, s);
      at = tl.seconds->len;
      g_hash_table_insert(tl.cur_threads, GUINT_TO_POINTER(thread), GUINT_TO_POINTER(at));
    }
    g_array_index(tl.seconds, SxsTimelineSecond, at - 1).samples += weight;
    return;
  }
  for (guint i = tl.seconds->len; i-- > 0;) {
    SxsTimelineSecond *s = &g_array_index(tl.seconds, SxsTimelineSecond, i);
    if (s->second < second)
      break;
    if (s->second == second && s->thread == thread) {
      s->samples += weight;
      return;
    }
  }
  /* An older second with no count for this thread yet: appended (the seconds are sorted and
   * merged when read out). */
  SxsTimelineSecond s = {.second = second, .thread = thread, .samples = weight};
  g_array_append_val(tl.seconds, s);
}

/* The oldest n live events go: the head moves on; the array is compacted once half of it is dropped
 * ones, so that dropping costs nothing per event on average. */
static void drop_oldest_events_locked(guint n) {
  tl.events_head += n;
  tl.events_dropped += n;
  if (tl.events_head >= 4096 && tl.events_head * 2 >= tl.events->len) {
    g_array_remove_range(tl.events, 0, tl.events_head);
    tl.events_head = 0;
  }
}

/* The events before detail_from_us go. */
static void drop_events_locked(void) {
  guint drop = 0;
  while (tl.events_head + drop < tl.events->len &&
         g_array_index(tl.events, EventRec, tl.events_head + drop).start_us < tl.detail_from_us)
    drop++;
  if (drop)
    drop_oldest_events_locked(drop);
}

/* The oldest chunk's samples before `before` (all of them: G_MAXUINT64) into seconds; the chunk
 * goes when none is left. */
static void fold_oldest_locked(guint64 before) {
  Chunk *c = g_queue_peek_head(&tl.chunks);
  if (!c)
    return;
  while (c->head < c->n) {
    guint64 t = REC_T(c, c->head);
    if (t >= before)
      break;
    fold_sample_locked(t, REC_ID(c, c->head), REC_WEIGHT(c, c->head));
    tl.detail_from_us = MAX(tl.detail_from_us, t + 1);
    c->head++;
  }
  if (c->head == c->n) {
    tl.detail_from_us = MAX(tl.detail_from_us, c->last_us + 1);
    tl.label_arrays -= c->labels != NULL;
    g_free(c->labels);
    g_free(g_queue_pop_head(&tl.chunks));
  }
  drop_events_locked();
}

static void ensure_locked(void) {
  if (tl.events)
    return;
  tl.events = g_array_new(FALSE, FALSE, sizeof(EventRec));
  tl.threads = g_array_new(FALSE, TRUE, sizeof(guint32));
  tl.seconds = g_array_new(FALSE, FALSE, sizeof(SxsTimelineSecond));
  tl.cur_threads = g_hash_table_new(g_direct_hash, g_direct_equal);
}

/* Keeps the detail within the window and the cap: folds chunks that are older, or too many. */
static void bound_locked(guint64 now_us) {
  guint64 window = window_us();
  while (tl.chunks.length > 1 && detail_bytes_locked() > SXS_TIMELINE_CAP_BYTES)
    fold_oldest_locked(G_MAXUINT64);
  while (window && now_us > window && tl.chunks.length > 0) {
    Chunk *oldest = g_queue_peek_head(&tl.chunks);
    if (oldest->head < oldest->n && REC_T(oldest, oldest->head) >= now_us - window)
      break;
    fold_oldest_locked(now_us - window);
  }
  if (window && now_us > window && tl.detail_from_us < now_us - window && tl.events_head < tl.events->len &&
      g_array_index(tl.events, EventRec, tl.events_head).start_us < now_us - window) {
    tl.detail_from_us = now_us - window;
    drop_events_locked();
  }
  /* Events alone past the cap: the oldest half goes. */
  guint live = tl.events->len - tl.events_head;
  if (detail_bytes_locked() > SXS_TIMELINE_CAP_BYTES && live > 1) {
    guint drop = live / 2;
    tl.detail_from_us =
        MAX(tl.detail_from_us, g_array_index(tl.events, EventRec, tl.events_head + drop - 1).start_us + 1);
    drop_oldest_events_locked(drop);
    if (tl.events_head > 0) {
      g_array_remove_range(tl.events, 0, tl.events_head);
      tl.events_head = 0;
    }
  }
}

void sxs__timeline_rec_sample(guint stack_id, uint32_t thread, guint64 weight, guint64 at_ns, guint label) {
  if (weight == 0)
    return;
  guint64 now = sxs__timeline_rec_now_us();
  if (at_ns) {
    gint64 at = (gint64)(at_ns / 1000) - base_mono_us;
    if (at > 0 && (guint64)at <= now)
      now = (guint64)at;
  }
  g_mutex_lock(&tl.lock);
  ensure_locked();
  if (stack_id == 0 || stack_id > ID_MAX) {
    tl.lost += weight;
    g_mutex_unlock(&tl.lock);
    return;
  }
  if (stack_id >= tl.threads->len)
    g_array_set_size(tl.threads, MAX(stack_id + 1, tl.threads->len * 2));
  g_array_index(tl.threads, guint32, stack_id) = thread;
  while (weight > 0) {
    guint32 w = (guint32)MIN(weight, WEIGHT_MAX);
    weight -= w;
    Chunk *c = g_queue_peek_tail(&tl.chunks);
    if (!c || c->n == CHUNK_SAMPLES || now < c->base_us || now - c->base_us > G_MAXUINT32) {
      c = g_new(Chunk, 1);
      c->first = tl.next_sample;
      /* A little in the past: the samples of one batch come in thread order, each with its own
       * capture time, some earlier than the one that opens the chunk. */
      c->base_us = now > CHUNK_SLACK_US ? now - CHUNK_SLACK_US : 0;
      c->last_us = now;
      c->head = 0;
      c->n = 0;
      c->labels = NULL;
      g_queue_push_tail(&tl.chunks, c);
    }
    if (label && !c->labels) {
      c->labels = g_new0(guint16, CHUNK_SAMPLES);
      tl.label_arrays++;
    }
    if (c->labels)
      c->labels[c->n] = (guint16)MIN(label, G_MAXUINT16);
    c->recs[c->n++] = (Rec){.dt_us = (guint32)(now - c->base_us), .id_weight = stack_id | (w - 1) << ID_BITS};
    c->last_us = MAX(c->last_us, now);
    tl.last_us = MAX(tl.last_us, now);
    tl.next_sample++;
  }
  bound_locked(now);
  g_mutex_unlock(&tl.lock);
}

void sxs__timeline_rec_event(SxsTimelineEventKind kind, int runtime_id, uint32_t thread, guint64 start_us,
                             guint64 dur_us, guint64 value, int reason, const char *name, guint stack_id) {
  /* An event raised on its own thread is the label of the request that thread works for. */
  sxs__timeline_rec_event_label(kind, runtime_id, thread, start_us, dur_us, value, reason, name, stack_id,
                                sxs__activity_thread_label(thread));
}

void sxs__timeline_rec_event_label(SxsTimelineEventKind kind, int runtime_id, uint32_t thread, guint64 start_us,
                                   guint64 dur_us, guint64 value, int reason, const char *name, guint stack_id,
                                   guint label) {
  EventRec e = {.label = (guint16)MIN(label, G_MAXUINT16),
                .start_us = start_us,
                .value = value,
                .dur_us = (guint32)MIN(dur_us, G_MAXUINT32),
                .thread = thread,
                .stack_id = stack_id,
                .runtime_id = (gint16)runtime_id,
                .kind = (guint8)kind,
                .reason = reason,
                .name = name};
  g_mutex_lock(&tl.lock);
  ensure_locked();
  g_array_append_val(tl.events, e);
  tl.last_us = MAX(tl.last_us, start_us + dur_us);
  bound_locked(start_us + dur_us);
  g_mutex_unlock(&tl.lock);
}

static int compare_seconds(gconstpointer a, gconstpointer b) {
  const SxsTimelineSecond *x = a, *y = b;
  if (x->second != y->second)
    return x->second < y->second ? -1 : 1;
  return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* The folded seconds, by second and thread, a second's threads merged (a late sample's entry). */
static void seconds_locked(SxsVec *out) {
  guint first = out->len;
  sxs__vec_append_vals(out, tl.seconds->data, tl.seconds->len);
  sxs__vec_sort(out, compare_seconds);
  guint kept = first;
  for (guint i = first; i < out->len; i++) {
    SxsTimelineSecond s = sxs__vec_index(out, SxsTimelineSecond, i);
    SxsTimelineSecond *last = kept > first ? &sxs__vec_index(out, SxsTimelineSecond, kept - 1) : NULL;
    if (last && last->second == s.second && last->thread == s.thread)
      last->samples += s.samples;
    else
      sxs__vec_index(out, SxsTimelineSecond, kept++) = s;
  }
  sxs__vec_truncate(out, kept);
}

/* An event record as the recorder gives it out. */
static SxsTimelineRecEvent rec_event(const EventRec *r) {
  return (SxsTimelineRecEvent){.kind = r->kind,
                               .runtime_id = r->runtime_id,
                               .thread = r->thread,
                               .start_us = r->start_us,
                               .dur_us = r->dur_us,
                               .value = r->value,
                               .reason = r->reason,
                               .name = r->name,
                               .stack_id = r->stack_id,
                               .label = r->label};
}

void sxs__timeline_rec_fill(SxsProfileModel *m, GHashTable *stacks_by_id) {
  SxsTimelineModel *t = &m->timeline;
  clock_once();
  g_mutex_lock(&tl.lock);
  ensure_locked();
  t->present = TRUE;
  t->window_us = window_us();
  t->cap_bytes = SXS_TIMELINE_CAP_BYTES;
  t->detail_bytes = stacks_by_id ? detail_bytes_locked() + (guint64)tl.seconds->len * sizeof(SxsTimelineSecond) : 0;
  t->detail_from_us = tl.detail_from_us;
  /* The last thing recorded, not now: a profile of an idle program stays the same document. */
  t->end_us = stacks_by_id ? tl.last_us : 0;
  t->start_unix_us = start_unix_us;
  t->monotonic_start_us = base_mono_us > 0 ? (guint64)base_mono_us : 0;
  t->folded_samples = tl.folded_samples;
  t->dropped_events = tl.events_dropped;
  if (stacks_by_id) {
    for (GList *l = tl.chunks.head; l; l = l->next) {
      const Chunk *c = l->data;
      for (guint i = c->head; i < c->n; i++) {
        SxsStackModel *s = g_hash_table_lookup(stacks_by_id, GUINT_TO_POINTER(REC_ID(c, i)));
        if (!s)
          continue;
        SxsTimelineSample ts = {.t_us = REC_T(c, i), .stack = s, .weight = REC_WEIGHT(c, i), .label = REC_LABEL(c, i)};
        sxs__vec_append_val(t->samples, ts);
      }
    }
    for (guint i = tl.events_head; i < tl.events->len; i++) {
      SxsTimelineRecEvent r = rec_event(&g_array_index(tl.events, EventRec, i));
      SxsTimelineEvent e = {.kind = r.kind,
                            .runtime_id = r.runtime_id,
                            .thread = r.thread,
                            .start_us = r.start_us,
                            .dur_us = r.dur_us,
                            .value = r.value,
                            .reason = r.reason,
                            .name = g_strdup(r.name),
                            .label = r.label,
                            .stack =
                                r.stack_id ? g_hash_table_lookup(stacks_by_id, GUINT_TO_POINTER(r.stack_id)) : NULL};
      sxs__vec_append_val(t->events, e);
    }
    seconds_locked(t->seconds);
  }
  g_mutex_unlock(&tl.lock);
  if (stacks_by_id && sxs__activity_any()) {
    g_ptr_array_unref(t->labels);
    t->labels = sxs__activity_labels();
    sxs__timeline_model_check_labels(t);
  }
  /* JIT compilations by their function's name, where the registry has it. */
  for (guint i = 0; i < t->events->len; i++) {
    SxsTimelineEvent *e = &sxs__vec_index(t->events, SxsTimelineEvent, i);
    SxsRuntime *rt = e->kind == SXS_TIMELINE_JIT && !e->name ? sxs__manager_runtime(e->runtime_id) : NULL;
    g_autofree char *module = NULL;
    if (rt)
      sxs__manager_recorded_function(rt, e->value, &e->name, &module);
  }
  sxs__vec_sort(t->samples, sxs__timeline_sample_compare);
  sxs__vec_sort(t->events, sxs__timeline_event_compare);
}

void sxs__timeline_rec_changes(gboolean all, SxsTimelineRecChanges *ret) {
  ret->samples = sxs__vec_new(sizeof(SxsTimelineRecSample));
  ret->events = sxs__vec_new(sizeof(SxsTimelineRecEvent));
  ret->seconds = sxs__vec_new(sizeof(SxsTimelineSecond));
  g_mutex_lock(&tl.lock);
  ensure_locked();
  guint64 from = all ? 0 : tl.reported_sample;
  for (GList *l = tl.chunks.head; l; l = l->next) {
    const Chunk *c = l->data;
    if (c->first + c->n <= from)
      continue;
    for (guint i = MAX(c->head, from > c->first ? (guint)(from - c->first) : 0); i < c->n; i++) {
      SxsTimelineRecSample s = {
          .t_us = REC_T(c, i), .id = REC_ID(c, i), .weight = REC_WEIGHT(c, i), .label = REC_LABEL(c, i)};
      sxs__vec_append_val(ret->samples, s);
    }
  }
  tl.reported_sample = tl.next_sample;
  guint64 first_event = tl.events_dropped; /* the number of the event at events_head */
  guint64 efrom = all ? first_event : MAX(tl.reported_event, first_event);
  for (guint64 i = tl.events_head + (efrom - first_event); i < tl.events->len; i++) {
    SxsTimelineRecEvent e = rec_event(&g_array_index(tl.events, EventRec, i));
    sxs__vec_append_val(ret->events, e);
  }
  tl.reported_event = first_event + (tl.events->len - tl.events_head);
  if (all)
    seconds_locked(ret->seconds);
  g_mutex_unlock(&tl.lock);
}

void sxs__timeline_rec_changes_clear(SxsTimelineRecChanges *c) {
  g_clear_pointer(&c->samples, sxs__vec_free);
  g_clear_pointer(&c->events, sxs__vec_free);
  g_clear_pointer(&c->seconds, sxs__vec_free);
}

void sxs__timeline_rec_reset_for_tests(void) {
  g_mutex_lock(&tl.lock);
  Chunk *c;
  while ((c = g_queue_pop_head(&tl.chunks))) {
    g_free(c->labels);
    g_free(c);
  }
  g_clear_pointer(&tl.events, g_array_unref);
  g_clear_pointer(&tl.threads, g_array_unref);
  g_clear_pointer(&tl.seconds, g_array_unref);
  g_clear_pointer(&tl.cur_threads, g_hash_table_unref);
  tl.cur_second = 0;
  tl.next_sample = tl.reported_sample = tl.reported_event = tl.events_dropped = 0;
  tl.events_head = 0;
  tl.folded_samples = tl.detail_from_us = tl.lost = tl.last_us = 0;
  tl.label_arrays = 0;
  g_mutex_unlock(&tl.lock);
}
