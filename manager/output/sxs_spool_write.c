/* sxs_spool_write: appends what changed to the spool, compacts it when it grew (see
 * sxs_spool_write.h; the format is sxs_spool.h's).
 *
 *   output thread, every SXS_SPOOL_PERIOD_MS
 *     registry ------- sxs__manager_copy_without_functions --> S (when its text changed)
 *              ------- sxs__manager_function_changes -------> F ...
 *     timeline ------- sxs__timeline_rec_changes -----------> Q (folded seconds) P (samples) V (events)
 *     stacks   ------- sxs__stacks_changes -----------------> N (new frame names) K (new stacks) W (counts)
 *     tracing  ------- every second: a full copy, traced ---> T (when its text changed)
 *     all of it as one batch, B ... E, one write(2)
 *
 * Lock order: spool_lock, then the registry's and the recorders' (taken inside their calls). */
#include "sxs_spool_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sxs_activity.h"
#include "sxs_manager.h"
#include "sxs_events.h"
#include "sxs_json.h"
#include "sxs_naming.h"
#include "sxs_sampler.h"
#include "sxs_spool.h"
#include "sxs_stacks.h"
#include "sxs_timeline_rec.h"
#include "sxs_trace.h"

/* A spool is rewritten as one batch of everything once it is twice that batch's size and at least
 * SPOOL_COMPACT_MIN: what a long run's batches add (the timeline's samples, counts) is then given
 * back every few minutes, the file within twice the state it records. */
#define SPOOL_COMPACT_MIN (2u << 20)
#define SPOOL_TRACED_PERIOD_US G_TIME_SPAN_SECOND
/* The skeleton's counters change at every batch: while nothing else in it changed, its document is
 * written at most this often (and at every batch of everything, and when the process is dying). */
#define SPOOL_SKELETON_PERIOD_US (10 * G_TIME_SPAN_SECOND)

/* A document's sxs__text_digest, once one was written. */
typedef struct {
  guint64 value;
  gboolean known;
} SpoolDigest;

/* The spool of this process. Everything is guarded by `lock`. */
static struct {
  GMutex lock;
  int fd; /* -1: none open */
  char *path;
  guint64 size;
  guint64 compact_at;    /* size past which the next append compacts */
  GHashTable *frame_ids; /* "m|n\trt\tname\tmodule" -> frame id (GUINT), for the open file */
  guint next_frame;
  guint64 seq;
  SpoolDigest skeleton; /* of the last S document written to the open file */
  guint64 shape;        /* skeleton_shape of it */
  gint64 skeleton_at;   /* when it was written (monotonic, us) */
  SpoolDigest traced;   /* of the last T document */
  gint64 traced_at;     /* when the last T was considered (monotonic, us) */
  gint64 traced_period; /* until the next T: a second, or 20 times what the last one took */
  guint labels_written; /* endpoints whose L record the open file has */
  guint labels_gen;     /* ... as they were shown then (sxs__activity_labels_gen) */
  SxsSpoolStats stats;
  gboolean broken; /* an append failed: the spool was removed and is kept no more */
} spool = {.fd = -1};

/* Appends "<letter> <bytes>\n<document>\n" when the document differs from *digest (or always). */
static void append_document(SxsText *b, char letter, const char *text, gsize len, SpoolDigest *digest,
                            gboolean always) {
  guint64 d = sxs__text_digest(text, len);
  if (!always && digest->known && digest->value == d)
    return;
  sxs__text_append_printf(b, "%c\t%" G_GSIZE_FORMAT "\n", letter, len);
  sxs__text_append_len(b, text, len);
  sxs__text_append_c(b, '\n');
  *digest = (SpoolDigest){.value = d, .known = TRUE};
}

/* What of the skeleton is not a counter: its runtimes, their states, threads and features off, and
 * the sampler's engine and state. */
static guint64 skeleton_shape(const SxsProfileModel *m) {
  g_autoptr(GString) s = g_string_new(NULL);
  for (guint i = 0; i < m->runtimes->len; i++) {
    const SxsRuntimeModel *r = m->runtimes->pdata[i];
    g_string_append_printf(s, "%d:%d:%d:%s:%u:%u;", r->id, (int)r->status, r->shut_down, r->reason ? r->reason : "",
                           r->threads->len, g_hash_table_size(r->features_off));
    for (guint j = 0; j < r->threads->len; j++) {
      const SxsThreadRecord *t = r->threads->pdata[j];
      g_string_append_printf(s, "%u:%s:%d,", t->os_tid, t->name ? t->name : "", t->destroyed);
    }
  }
  g_string_append_printf(s, "|%d:%s:%s:%s", m->samples.enabled, m->samples.engine ? m->samples.engine : "",
                         m->samples.off_reason ? m->samples.off_reason : "", m->samples.mode ? m->samples.mode : "");
  return sxs__text_digest(s->str, s->len);
}

/* The profile's small part: the registry without functions, the inventory's part, the sampler's
 * and the walks' counters, tracing's summary when nothing is traced (else T carries it). Written
 * when its runtimes, threads or the sampler's state changed; its counters change at every batch,
 * and while nothing else does it is written at most every SPOOL_SKELETON_PERIOD_US: a spool whose
 * writer is killed keeps them as they were up to then (the stacks' counts, W, and the timeline as
 * they were at the last batch). */
static void append_skeleton(SxsText *b, gboolean all, gboolean now) {
  g_autoptr(SxsProfileModel) m = sxs__manager_copy_without_functions();
  const SxsConfig *cfg = sxs__manager_config();
  if (!cfg || !cfg->tracing.enabled)
    for (guint i = 0; i < m->runtimes->len; i++) {
      SxsRuntimeModel *r = m->runtimes->pdata[i];
      sxs__trace_fill(r->id, r);
    }
  for (guint i = 0; i < m->runtimes->len; i++) {
    SxsRuntimeModel *r = m->runtimes->pdata[i];
    sxs__naming_fill(r->id, r);
  }
  sxs__stacks_fill_counters(m);
  sxs__sampler_fill(m);
  sxs__events_fill(m);
  sxs__timeline_rec_fill(m, NULL);
  guint64 shape = skeleton_shape(m);
  gint64 t = g_get_monotonic_time();
  if (!all && !now && spool.skeleton.known && shape == spool.shape && t - spool.skeleton_at < SPOOL_SKELETON_PERIOD_US)
    return;
  g_auto(SxsText) doc = sxs__profile_render_json_text(m);
  SpoolDigest before = spool.skeleton;
  append_document(b, 'S', doc.data, doc.len, &spool.skeleton, all);
  if (!before.known || before.value != spool.skeleton.value || all) {
    spool.shape = shape;
    spool.skeleton_at = t;
  }
}

static void append_functions(SxsText *b, gboolean all) {
  g_autoptr(GPtrArray) changes = sxs__manager_function_changes(all);
  for (guint i = 0; i < changes->len; i++) {
    const SxsFunctionChange *c = changes->pdata[i];
    const SxsFunctionRecord *f = c->function;
    sxs__text_append_printf(b, "F\t%d\t%" G_GINT64_MODIFIER "x\t%u\t%u\t%u\t", c->runtime_id, f->function_id,
                            f->jit_compiled, f->inlined, f->precompiled);
    sxs__spool_append_string(b, f->name);
    sxs__text_append_c(b, '\t');
    sxs__spool_append_string(b, f->module);
    sxs__text_append_c(b, '\n');
  }
}

/* The id of a frame's name in the open file, written as an N line the first time. */
static guint frame_id(SxsText *b, const SxsStackFrameModel *f) {
  g_auto(SxsText) key = {0};
  sxs__text_append(&key, f->managed ? "m\t" : "n\t");
  sxs__text_append_printf(&key, "%d\t", f->managed ? f->runtime_id : 0);
  sxs__spool_append_string(&key, f->name);
  sxs__text_append_c(&key, '\t');
  sxs__spool_append_string(&key, f->module);
  sxs__text_append_c(&key, '\t');
  sxs__spool_append_string(&key, f->line ? f->file : NULL);
  sxs__text_append_printf(&key, "\t%u", f->file ? f->line : 0);
  guint id = GPOINTER_TO_UINT(g_hash_table_lookup(spool.frame_ids, key.data));
  if (id)
    return id;
  id = ++spool.next_frame;
  sxs__text_append_printf(b, "N\t%x\t%s\n", id, key.data);
  g_hash_table_insert(spool.frame_ids, g_strdup(key.data), GUINT_TO_POINTER(id));
  return id;
}

static void append_stacks(SxsText *b, gboolean all) {
  GArray *changes = sxs__stacks_changes(all);
  g_auto(SxsText) frames = {0};
  for (guint i = 0; i < changes->len; i++) {
    const SxsStackChange *c = &g_array_index(changes, SxsStackChange, i);
    if (c->model) {
      sxs__text_truncate(&frames, 0);
      uintptr_t before = 0;
      for (guint j = 0; j < c->model->frames->len; j++) {
        const SxsStackFrameModel *f = &g_array_index(c->model->frames, SxsStackFrameModel, j);
        /* The first frame's stack pointer, then each one's distance from the one before (they rise). */
        uintptr_t d = j ? f->sp - before : f->sp;
        gboolean down = j && f->sp < before;
        sxs__text_append_printf(&frames, "%s%x:%s%" G_GINTPTR_MODIFIER "x", j ? "," : "", frame_id(b, f),
                                down ? "-" : "", (guintptr)(down ? before - f->sp : d));
        before = f->sp;
      }
      sxs__text_append_printf(b, "K\t%x\t", c->id);
      sxs__spool_append_string(b, c->model->event);
      sxs__text_append_printf(b, "\t%u\t", c->model->thread);
      sxs__spool_append_string(b, c->model->thread_name);
      sxs__text_append_printf(b, "\t%s\t%d\t", frames.len ? frames.data : "", c->model->runtime_id);
      sxs__spool_append_string(b, c->model->type);
      sxs__text_append_c(b, '\n');
    }
    if (c->delta || c->value_delta)
      sxs__text_append_printf(b, "W\t%x\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", c->id, c->delta,
                              c->value_delta);
  }
  sxs__stacks_changes_free(changes);
}

/* The timeline's samples (P, at most SPOOL_TIMELINE_LINE a line), events (V) and, with `all`, the
 * folded seconds (Q). Before the stacks' changes: every stack a sample names is then in them. */
#define SPOOL_TIMELINE_LINE 4096
static void append_timeline(SxsText *b, gboolean all) {
  SxsTimelineRecChanges c;
  sxs__timeline_rec_changes(all, &c);
  /* The endpoints' names before the samples that name them. */
  if (sxs__activity_any()) {
    /* A route template learnt may show earlier labels anew: all of them again (a later L record
     * of a label replaces its name). */
    guint gen = sxs__activity_labels_gen();
    g_autoptr(GPtrArray) labels = sxs__activity_labels();
    for (guint i = all || gen != spool.labels_gen ? 0 : spool.labels_written; i < labels->len; i++) {
      sxs__text_append_printf(b, "L\t%u\t", i + 1);
      sxs__spool_append_string(b, labels->pdata[i]);
      sxs__text_append_c(b, '\n');
    }
    spool.labels_written = labels->len;
    spool.labels_gen = gen;
  }
  for (guint i = 0; i < c.seconds->len; i++) {
    const SxsTimelineSecond *q = &g_array_index(c.seconds, SxsTimelineSecond, i);
    sxs__text_append_printf(b, "Q\t%" G_GUINT64_FORMAT "\t%u\t%" G_GUINT64_FORMAT "\n", q->second, q->thread,
                            q->samples);
  }
  for (guint i = 0; i < c.samples->len; i += SPOOL_TIMELINE_LINE) {
    guint end = MIN(c.samples->len, i + SPOOL_TIMELINE_LINE);
    guint64 prev = g_array_index(c.samples, SxsTimelineRecSample, i).t_us;
    sxs__text_append_printf(b, "P\t%" G_GUINT64_FORMAT "\t", prev);
    for (guint j = i; j < end; j++) {
      const SxsTimelineRecSample *s = &g_array_index(c.samples, SxsTimelineRecSample, j);
      /* Times within a batch may step back a little (a stack recorded before another's time was
       * taken): a signed delta. */
      gint64 d = (gint64)s->t_us - (gint64)prev;
      prev = s->t_us;
      sxs__text_append_printf(b, "%s%x:%" G_GINT64_FORMAT, j > i ? "," : "", s->id, d);
      if (s->weight != 1)
        sxs__text_append_printf(b, "*%u", s->weight);
      if (s->label)
        sxs__text_append_printf(b, "@%u", s->label);
    }
    sxs__text_append_c(b, '\n');
  }
  for (guint i = 0; i < c.events->len; i++) {
    const SxsTimelineRecEvent *e = &g_array_index(c.events, SxsTimelineRecEvent, i);
    sxs__text_append_printf(
        b, "V\t%s\t%d\t%u\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%d\t%x\t",
        sxs__timeline_event_name(e->kind), e->runtime_id, e->thread, e->start_us, e->dur_us, e->value, e->reason,
        e->stack_id);
    sxs__spool_append_string(b, e->name);
    if (e->label)
      sxs__text_append_printf(b, "\t%u", e->label);
    sxs__text_append_c(b, '\n');
  }
  sxs__timeline_rec_changes_clear(&c);
}

/* The traced runtimes' functions, call trees and summaries: a whole copy, so at most once a
 * second, and less often when it takes long (it never costs more than 5 % of the output thread's
 * time); also at every batch of everything, and when the process is dying. */
static void append_traced(SxsText *b, gboolean all, gboolean now) {
  const SxsConfig *cfg = sxs__manager_config();
  if (!cfg || !cfg->tracing.enabled)
    return;
  gint64 t = g_get_monotonic_time();
  if (!all && !now && t - spool.traced_at < MAX(spool.traced_period, SPOOL_TRACED_PERIOD_US))
    return;
  spool.traced_at = t;
  g_autoptr(SxsProfileModel) m = sxs__manager_copy();
  for (guint i = 0; i < m->runtimes->len; i++) {
    SxsRuntimeModel *r = m->runtimes->pdata[i];
    sxs__trace_fill(r->id, r);
    /* Only what tracing adds: the reader matches traced functions to the F records by name. */
    for (guint j = r->functions->len; j-- > 0;)
      if (!((SxsFunctionRecord *)r->functions->pdata[j])->traced)
        g_ptr_array_remove_index(r->functions, j);
  }
  g_auto(SxsText) doc = sxs__profile_render_json_text(m);
  append_document(b, 'T', doc.data, doc.len, &spool.traced, all);
  spool.traced_period = 20 * (g_get_monotonic_time() - t);
}

/* One batch: everything (all) or what changed. Called with spool.lock held. */
static void make_batch(SxsText *b, gboolean all, int signal) {
  sxs__text_append_printf(b, "B\t%" G_GUINT64_FORMAT "\n", ++spool.seq);
  append_skeleton(b, all, signal != 0);
  append_functions(b, all);
  append_timeline(b, all);
  append_stacks(b, all);
  append_traced(b, all, signal != 0);
  if (signal)
    sxs__text_append_printf(b, "X\t%d\n", signal);
  sxs__text_append_printf(b, "E\t%" G_GUINT64_FORMAT "\n", spool.seq);
}

static int write_all(int fd, const char *data, gsize len) {
  gsize done = 0;
  while (done < len) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? -errno : -EIO;
    done += (gsize)n;
  }
  return 0;
}

/* A new file at path with everything recorded so far (temp file, then rename: a reader never
 * sees a spool without its first batch). Called with spool.lock held; closes the open one. */
static int start_file(const char *path, int signal) {
  g_autofree char *tmp = g_strconcat(path, ".tmp", NULL);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  if (spool.frame_ids)
    g_hash_table_remove_all(spool.frame_ids);
  else
    spool.frame_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  spool.next_frame = 0;
  g_auto(SxsText) b = {0};
  sxs__text_append(&b, SXS_SPOOL_MAGIC);
  make_batch(&b, TRUE, signal);
  int r = write_all(fd, b.data, b.len);
  if (r == 0 && rename(tmp, path) != 0)
    r = -errno;
  if (r < 0) {
    close(fd);
    unlink(tmp);
    return r;
  }
  if (spool.fd >= 0)
    close(spool.fd);
  spool.fd = fd;
  if (spool.path != path) {
    g_free(spool.path);
    spool.path = g_strdup(path);
  }
  spool.size = b.len;
  spool.compact_at = MAX((guint64)SPOOL_COMPACT_MIN, 2 * spool.size);
  spool.stats.bytes += b.len;
  return 0;
}

int sxs__spool_append(int signal) {
  g_autofree char *profile = sxs__manager_profile_path();
  if (!profile)
    return -EINVAL;
  gint64 t0 = g_get_monotonic_time();
  int r = 0;
  g_mutex_lock(&spool.lock);
  if (spool.broken) {
    g_mutex_unlock(&spool.lock);
    return -EIO;
  }
  if (spool.fd < 0) {
    g_autofree char *path = sxs__spool_path(profile);
    r = start_file(path, signal);
    if (r < 0) {
      g_mutex_unlock(&spool.lock);
      return r;
    }
  } else if (spool.size >= spool.compact_at) {
    r = start_file(spool.path, signal);
    spool.stats.compactions += r == 0;
  } else {
    g_auto(SxsText) b = {0};
    make_batch(&b, FALSE, signal);
    r = write_all(spool.fd, b.data, b.len);
    spool.size += b.len;
    spool.stats.bytes += b.len;
  }
  if (r < 0 && spool.fd >= 0) {
    /* A batch that could not be written (a full disk) would leave later counts short: a spool that
     * misses one is no record of the run, so it goes (the output thread logs the failure once), and
     * the profile is left to the writes at the end. */
    close(spool.fd);
    spool.fd = -1;
    unlink(spool.path);
    spool.broken = TRUE;
  }
  spool.stats.batches++;
  spool.stats.ns += (guint64)(g_get_monotonic_time() - t0) * 1000;
  g_mutex_unlock(&spool.lock);
  return r;
}

void sxs__spool_remove(void) {
  g_mutex_lock(&spool.lock);
  if (spool.fd >= 0) {
    close(spool.fd);
    spool.fd = -1;
    unlink(spool.path);
  }
  spool.skeleton = spool.traced = (SpoolDigest){0};
  g_mutex_unlock(&spool.lock);
}

void sxs__spool_stats(SxsSpoolStats *ret_stats) {
  g_mutex_lock(&spool.lock);
  *ret_stats = spool.stats;
  g_mutex_unlock(&spool.lock);
}
