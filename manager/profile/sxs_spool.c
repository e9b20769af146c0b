/* sxs_spool: the spool's text and the reader that rebuilds a profile from it (see sxs_spool.h). */
#include "sxs_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sxs_profile_read.h"

void sxs__spool_append_string(SxsText *out, const char *s) {
  if (!s || !*s) {
    sxs__text_append_c(out, '-');
    return;
  }
  if (s[0] == '-' && s[1] == '\0') {
    sxs__text_append(out, "\\-");
    return;
  }
  for (const char *p = s; *p; p++) {
    switch (*p) {
    case '\\': sxs__text_append(out, "\\\\"); break;
    case '\t': sxs__text_append(out, "\\t"); break;
    case '\n': sxs__text_append(out, "\\n"); break;
    default: sxs__text_append_c(out, *p); break;
    }
  }
}

/* The string a field holds (NULL for "-"). Caller frees. */
static char *field_string(const char *s, gsize len) {
  if (len == 1 && s[0] == '-')
    return NULL;
  GString *out = g_string_sized_new(len);
  for (gsize i = 0; i < len; i++) {
    if (s[i] == '\\' && i + 1 < len) {
      char c = s[++i];
      g_string_append_c(out, c == 't' ? '\t' : c == 'n' ? '\n' : c);
    } else {
      g_string_append_c(out, s[i]);
    }
  }
  return g_string_free(out, FALSE);
}

typedef struct {
  const char *s;
  gsize len;
} Field;

/* Splits a line into at most max fields at tabs; the count. */
static guint split_fields(const char *line, gsize len, Field *fields, guint max) {
  guint n = 0;
  gsize start = 0;
  for (gsize i = 0; i <= len && n < max; i++) {
    if (i == len || line[i] == '\t') {
      fields[n++] = (Field){line + start, i - start};
      start = i + 1;
    }
  }
  return n;
}

static guint64 field_u64(const Field *f, int base) {
  char buf[32];
  gsize n = MIN(f->len, sizeof buf - 1);
  memcpy(buf, f->s, n);
  buf[n] = '\0';
  return g_ascii_strtoull(buf, NULL, base);
}

/* A signed decimal field. */
static gint64 field_i64(const Field *f) {
  char buf[32];
  gsize n = MIN(f->len, sizeof buf - 1);
  memcpy(buf, f->s, n);
  buf[n] = '\0';
  return g_ascii_strtoll(buf, NULL, 10);
}

typedef struct {
  gboolean managed;
  int runtime_id;
  char *name;
  char *module;
  char *file;   /* managed frames with lines: the source file; else NULL */
  guint32 line; /* its line; 0: none */
} FrameName;

static void frame_name_free(gpointer p) {
  FrameName *f = p;
  g_free(f->name);
  g_free(f->module);
  g_free(f->file);
  g_free(f);
}

typedef struct {
  int runtime_id;
  SxsFunctionRecord *f;
} SpoolFunction;

static void spool_function_free(gpointer p) {
  SpoolFunction *sf = p;
  sxs__function_record_free(sf->f);
  g_free(sf);
}

/* What the records say, applied in order. */
typedef struct {
  const char *skeleton; /* the last S document, in the text */
  gsize skeleton_len;
  const char *traced; /* the last T document, in the text */
  gsize traced_len;
  GHashTable *functions; /* "rt:fid" -> SpoolFunction* */
  GHashTable *frames;    /* frame id -> FrameName* */
  GHashTable *stacks;    /* stack id -> SxsStackModel* */
  GArray *samples;       /* SpoolSample: the timeline's samples */
  GArray *events;        /* SxsTimelineEvent, stack the id (GUINT_TO_POINTER) until the rebuild */
  GArray *seconds;       /* SxsTimelineSecond */
  GPtrArray *labels;     /* char*, the endpoints by label - 1 (L records) */
  int signal;
} SpoolState;

typedef struct {
  guint64 t_us;
  guint id;
  guint32 weight;
  guint label;
} SpoolSample;

static void apply_function(SpoolState *st, const Field *f, guint n) {
  if (n < 8)
    return;
  SpoolFunction *sf = g_new0(SpoolFunction, 1);
  sf->runtime_id = (int)field_u64(&f[1], 10);
  sf->f = g_new0(SxsFunctionRecord, 1);
  sf->f->function_id = field_u64(&f[2], 16);
  sf->f->jit_compiled = (guint)field_u64(&f[3], 10);
  sf->f->inlined = (guint)field_u64(&f[4], 10);
  sf->f->precompiled = (guint)field_u64(&f[5], 10);
  sf->f->name = field_string(f[6].s, f[6].len);
  sf->f->module = field_string(f[7].s, f[7].len);
  if (!sf->f->name)
    sf->f->name = g_strdup("?");
  if (!sf->f->module)
    sf->f->module = g_strdup("?");
  char *key = g_strdup_printf("%d:%" G_GINT64_MODIFIER "x", sf->runtime_id, sf->f->function_id);
  g_hash_table_replace(st->functions, key, sf);
}

static void apply_frame(SpoolState *st, const Field *f, guint n) {
  if (n < 6)
    return;
  FrameName *fn = g_new0(FrameName, 1);
  fn->managed = f[2].len == 1 && f[2].s[0] == 'm';
  fn->runtime_id = (int)field_u64(&f[3], 10);
  fn->name = field_string(f[4].s, f[4].len);
  fn->module = field_string(f[5].s, f[5].len);
  /* Spools written before frames carried lines have no file and line fields. */
  if (n >= 8) {
    fn->file = field_string(f[6].s, f[6].len);
    fn->line = (guint32)MIN(field_u64(&f[7], 10), G_MAXUINT32);
    if (!fn->file || !fn->file[0] || fn->line == 0) {
      g_clear_pointer(&fn->file, g_free);
      fn->line = 0;
    }
  }
  g_hash_table_replace(st->frames, GUINT_TO_POINTER((guint)field_u64(&f[1], 16)), fn);
}

static void apply_stack(SpoolState *st, const Field *f, guint n) {
  if (n < 6)
    return;
  g_autofree char *event = field_string(f[2].s, f[2].len);
  SxsStackModel *s = sxs__stack_model_new(event ? event : "sample", (uint32_t)field_u64(&f[3], 10));
  s->thread_name = field_string(f[4].s, f[4].len);
  /* The event profiles' stacks also carry their runtime and type. */
  if (n >= 8) {
    s->runtime_id = (int)field_u64(&f[6], 10);
    s->type = field_string(f[7].s, f[7].len);
  }
  /* <frame id>:<sp>[-|+]... (the first frame's stack pointer, then each one's distance from the
   * one before, "-" before a fall), or, as spools wrote before, <frame id>:<ip>:<sp> */
  const char *p = f[5].s, *end = f[5].s + f[5].len;
  uintptr_t before = 0;
  while (p < end) {
    const char *comma = memchr(p, ',', end - p);
    const char *stop = comma ? comma : end;
    Field parts[3];
    guint k = 0;
    const char *q = p;
    for (const char *c = p; c <= stop && k < 3; c++) {
      if (c == stop || *c == ':') {
        parts[k++] = (Field){q, c - q};
        q = c + 1;
      }
    }
    if (k >= 2) {
      FrameName *fn = g_hash_table_lookup(st->frames, GUINT_TO_POINTER((guint)field_u64(&parts[0], 16)));
      SxsStackFrameModel m = {0};
      if (k == 3) {
        m.ip = (uintptr_t)field_u64(&parts[1], 16);
        m.sp = (uintptr_t)field_u64(&parts[2], 16);
      } else {
        gboolean down = parts[1].len > 0 && parts[1].s[0] == '-';
        Field d = down ? (Field){parts[1].s + 1, parts[1].len - 1} : parts[1];
        uintptr_t v = (uintptr_t)field_u64(&d, 16);
        m.sp = s->frames->len == 0 ? v : down ? before - v : before + v;
      }
      before = m.sp;
      if (fn) {
        m.managed = fn->managed;
        m.runtime_id = fn->runtime_id;
        m.name = g_strdup(fn->name ? fn->name : "?");
        m.module = g_strdup(fn->module ? fn->module : "");
        m.file = g_strdup(fn->file);
        m.line = fn->line;
      } else {
        m.name = g_strdup("?");
        m.module = g_strdup("");
      }
      g_array_append_val(s->frames, m);
    }
    p = stop + 1;
  }
  g_hash_table_replace(st->stacks, GUINT_TO_POINTER((guint)field_u64(&f[1], 16)), s);
}

static void apply_weight(SpoolState *st, const Field *f, guint n) {
  if (n < 3)
    return;
  SxsStackModel *s = g_hash_table_lookup(st->stacks, GUINT_TO_POINTER((guint)field_u64(&f[1], 16)));
  if (s) {
    s->count += field_u64(&f[2], 10);
    if (n >= 4)
      s->value += field_u64(&f[3], 10);
  }
}

/* P <t_us> <id>:<delta>[*weight][@label],... */
static void apply_samples(SpoolState *st, const Field *f, guint n) {
  if (n < 3)
    return;
  gint64 t = (gint64)field_u64(&f[1], 10);
  const char *p = f[2].s, *end = f[2].s + f[2].len;
  while (p < end) {
    const char *comma = memchr(p, ',', (gsize)(end - p));
    const char *stop = comma ? comma : end;
    g_autofree char *item = g_strndup(p, (gsize)(stop - p));
    char *rest = NULL;
    guint64 id = g_ascii_strtoull(item, &rest, 16);
    if (rest && *rest == ':') {
      gint64 d = g_ascii_strtoll(rest + 1, &rest, 10);
      guint64 w = 1, label = 0;
      if (rest && *rest == '*')
        w = g_ascii_strtoull(rest + 1, &rest, 10);
      if (rest && *rest == '@')
        label = g_ascii_strtoull(rest + 1, NULL, 10);
      t += d;
      SpoolSample s = {.t_us = t > 0 ? (guint64)t : 0,
                       .id = (guint)id,
                       .weight = (guint32)CLAMP(w, 1, G_MAXUINT32),
                       .label = (guint)MIN(label, G_MAXUINT16)};
      g_array_append_val(st->samples, s);
    }
    p = stop + 1;
  }
}

/* V <kind> <rt> <thread> <start_us> <dur_us> <value> <reason> <stack id> <name|-> [<label>] */
static void apply_event(SpoolState *st, const Field *f, guint n) {
  if (n < 10)
    return;
  g_autofree char *kind = field_string(f[1].s, f[1].len);
  SxsTimelineEvent e = {0};
  if (!sxs__timeline_event_parse(kind, &e.kind))
    return;
  e.runtime_id = (int)field_i64(&f[2]);
  e.thread = (uint32_t)field_u64(&f[3], 10);
  e.start_us = field_u64(&f[4], 10);
  e.dur_us = field_u64(&f[5], 10);
  e.value = field_u64(&f[6], 10);
  e.reason = (int)field_i64(&f[7]);
  e.stack = GUINT_TO_POINTER((guint)field_u64(&f[8], 16));
  e.name = field_string(f[9].s, f[9].len);
  e.label = n >= 11 ? (guint)MIN(field_u64(&f[10], 10), G_MAXUINT16) : 0;
  g_array_append_val(st->events, e);
}

/* L <label> <name>: an endpoint's name (label from 1). */
static void apply_label(SpoolState *st, const Field *f, guint n) {
  if (n < 3)
    return;
  guint64 label = field_u64(&f[1], 10);
  if (label == 0 || label > G_MAXUINT16)
    return;
  while (st->labels->len < label)
    g_ptr_array_add(st->labels, g_strdup("?"));
  g_free(st->labels->pdata[label - 1]);
  st->labels->pdata[label - 1] = field_string(f[2].s, f[2].len);
}

/* Q <second> <thread> <samples> */
static void apply_second(SpoolState *st, const Field *f, guint n) {
  if (n < 4)
    return;
  SxsTimelineSecond q = {
      .second = field_u64(&f[1], 10), .thread = (uint32_t)field_u64(&f[2], 10), .samples = field_u64(&f[3], 10)};
  g_array_append_val(st->seconds, q);
}

/* One record line (without its newline); S and T carry their document after it. */
static void apply_line(SpoolState *st, const char *line, gsize len) {
  Field f[12];
  guint n = split_fields(line, len, f, G_N_ELEMENTS(f));
  if (n == 0 || f[0].len != 1)
    return;
  switch (f[0].s[0]) {
  case 'F': apply_function(st, f, n); break;
  case 'N': apply_frame(st, f, n); break;
  case 'K': apply_stack(st, f, n); break;
  case 'W': apply_weight(st, f, n); break;
  case 'P': apply_samples(st, f, n); break;
  case 'V': apply_event(st, f, n); break;
  case 'Q': apply_second(st, f, n); break;
  case 'L': apply_label(st, f, n); break;
  case 'X':
    if (n >= 2)
      st->signal = (int)field_u64(&f[1], 10);
    break;
  default: break;
  }
}

static SxsRuntimeModel *runtime_by_id(SxsProfileModel *m, int id) {
  for (guint i = 0; i < m->runtimes->len; i++)
    if (((SxsRuntimeModel *)m->runtimes->pdata[i])->id == id)
      return m->runtimes->pdata[i];
  return NULL;
}

/* The traced runtimes' part (T) over the model: tracing summaries and call trees, and the traced
 * functions' calls and times, matched to the functions by name and module. */
static void apply_traced(SxsProfileModel *m, SxsProfileModel *traced) {
  for (guint i = 0; i < traced->runtimes->len; i++) {
    SxsRuntimeModel *t = traced->runtimes->pdata[i];
    SxsRuntimeModel *r = runtime_by_id(m, t->id);
    if (!r)
      continue;
    SxsTracingModel swap = r->tracing;
    r->tracing = t->tracing;
    t->tracing = swap;
    GPtrArray *tree = r->call_tree;
    r->call_tree = t->call_tree;
    t->call_tree = tree;
    g_autoptr(GHashTable) by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint j = 0; j < r->functions->len; j++) {
      SxsFunctionRecord *f = r->functions->pdata[j];
      g_hash_table_insert(by_name, g_strconcat(f->name, "\t", f->module, NULL), f);
    }
    for (guint j = 0; j < t->functions->len; j++) {
      SxsFunctionRecord *tf = t->functions->pdata[j];
      if (!tf->traced)
        continue;
      g_autofree char *key = g_strconcat(tf->name, "\t", tf->module, NULL);
      SxsFunctionRecord *f = g_hash_table_lookup(by_name, key);
      if (!f) {
        f = sxs__function_record_copy(tf);
        g_ptr_array_add(r->functions, f);
        continue;
      }
      f->traced = TRUE;
      f->calls = tf->calls;
      f->inclusive_ns = tf->inclusive_ns;
      f->exclusive_ns = tf->exclusive_ns;
    }
  }
}

/* A document record (S or T) at *at: "<letter> <bytes>\n<document>\n". Moves *at past it; FALSE
 * when the document does not fit in the text. */
static gboolean take_document(const char *text, gsize len, gsize *at, gsize line_len, const char **ret_doc,
                              gsize *ret_doc_len) {
  Field f[2];
  if (split_fields(text + *at, line_len, f, 2) < 2)
    return FALSE;
  guint64 bytes = field_u64(&f[1], 10);
  gsize start = *at + line_len + 1;
  if (start > len || bytes > len - start || start + bytes >= len || text[start + bytes] != '\n')
    return FALSE;
  *ret_doc = text + start;
  *ret_doc_len = (gsize)bytes;
  *at = start + bytes + 1;
  return TRUE;
}

static gboolean spool_error(GError **error, int code, const char *source, const char *what) {
  g_set_error(error, SXS_PROFILE_READ_ERROR, code, "%s %s", source, what);
  return FALSE;
}

/* The model the records applied to st make, over the last profile document (S) and the last
 * traced part (T). NULL with error set when there is no profile document to start from. */
/* The timeline's records into m, their stack ids resolved (before the stacks leave st): samples of
 * stacks that hold none (never counted) are left out. */
static void rebuild_timeline(SpoolState *st, SxsProfileModel *m) {
  SxsTimelineModel *t = &m->timeline;
  if (!t->present && st->samples->len == 0 && st->events->len == 0)
    return;
  t->present = TRUE;
  guint64 end = 0;
  for (guint i = 0; i < st->samples->len; i++) {
    const SpoolSample *s = &g_array_index(st->samples, SpoolSample, i);
    SxsStackModel *stack = g_hash_table_lookup(st->stacks, GUINT_TO_POINTER(s->id));
    end = MAX(end, s->t_us);
    if (!stack || stack->count == 0 || !g_str_equal(stack->event, "sample"))
      continue;
    SxsTimelineSample ts = {.t_us = s->t_us, .stack = stack, .weight = s->weight, .label = s->label};
    sxs__vec_append_val(t->samples, ts);
  }
  for (guint i = 0; i < st->events->len; i++) {
    SxsTimelineEvent *e = &g_array_index(st->events, SxsTimelineEvent, i);
    guint id = GPOINTER_TO_UINT(e->stack);
    SxsStackModel *stack = id ? g_hash_table_lookup(st->stacks, GUINT_TO_POINTER(id)) : NULL;
    e->stack = stack && stack->count > 0 ? stack : NULL;
    end = MAX(end, e->start_us + e->dur_us);
    sxs__vec_append_val(t->events, *e);
    e->name = NULL;
  }
  g_array_set_size(st->events, 0);
  sxs__vec_append_vals(t->seconds, st->seconds->data, st->seconds->len);
  if (st->labels->len) {
    g_ptr_array_set_size(t->labels, 0);
    for (guint i = 0; i < st->labels->len; i++)
      g_ptr_array_add(t->labels, g_strdup(st->labels->pdata[i]));
  }
  sxs__timeline_model_check_labels(t);
  sxs__vec_sort(t->samples, sxs__timeline_sample_compare);
  sxs__vec_sort(t->events, sxs__timeline_event_compare);
  t->end_us = MAX(t->end_us, end);
  /* A spool not compacted since holds samples older than the detail its process still kept. */
  if (t->samples->len)
    t->detail_from_us = MIN(t->detail_from_us, sxs__vec_index(t->samples, SxsTimelineSample, 0).t_us);
}

static SxsProfileModel *rebuild(SpoolState *st, const char *source, const char *skeleton, gsize skeleton_len,
                                const char *traced, gsize traced_len, guint batches, GError **error) {
  if (!skeleton) {
    spool_error(error, SXS_PROFILE_READ_ERROR_TRUNCATED, source,
                batches ? "holds no profile (its process ended before it wrote one)"
                        : "holds no complete batch (its process ended before it wrote one)");
    return NULL;
  }
  g_autoptr(GError) inner = NULL;
  SxsProfileModel *m = sxs__profile_read(skeleton, skeleton_len, &inner);
  if (!m) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_INVALID, "%s: %s", source, inner->message);
    return NULL;
  }
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, st->functions);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SpoolFunction *sf = value;
    SxsRuntimeModel *rt = runtime_by_id(m, sf->runtime_id);
    if (rt) {
      g_ptr_array_add(rt->functions, sf->f);
      sf->f = NULL;
    }
  }
  if (traced) {
    g_autoptr(SxsProfileModel) t = sxs__profile_read(traced, traced_len, NULL);
    if (t)
      apply_traced(m, t);
  }
  rebuild_timeline(st, m);
  g_hash_table_iter_init(&it, st->stacks);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SxsStackModel *s = value;
    if (s->count == 0)
      continue;
    GPtrArray *to = g_str_equal(s->event, "sample") ? m->samples.stacks : m->stacks;
    for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
      if (g_str_equal(s->event, sxs__profile_kind_name(k)))
        to = m->profiles[k].stacks;
    g_ptr_array_add(to, s);
    g_hash_table_iter_steal(&it);
  }
  g_ptr_array_sort(m->stacks, sxs__stack_model_compare);
  g_ptr_array_sort(m->samples.stacks, sxs__stack_model_compare);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    g_ptr_array_sort(m->profiles[k].stacks, sxs__stack_model_compare);
  for (guint i = 0; i < m->runtimes->len; i++)
    sxs__runtime_model_sort(m->runtimes->pdata[i]);
  return m;
}

SxsSpoolRead *sxs__spool_read(const char *source, const char *text, gsize len, GError **error) {
  gsize magic = strlen(SXS_SPOOL_MAGIC);
  if (len < magic || memcmp(text, SXS_SPOOL_MAGIC, magic) != 0) {
    spool_error(error, SXS_PROFILE_READ_ERROR_NOT_PROFILE, source, "is not an sxsprof spool");
    return NULL;
  }
  SpoolState st = {
      .functions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, spool_function_free),
      .frames = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, frame_name_free),
      .stacks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, sxs__stack_model_free),
      .samples = g_array_new(FALSE, FALSE, sizeof(SpoolSample)),
      .events = g_array_new(FALSE, FALSE, sizeof(SxsTimelineEvent)),
      .seconds = g_array_new(FALSE, FALSE, sizeof(SxsTimelineSecond)),
      .labels = g_ptr_array_new_with_free_func(g_free),
  };
  /* Records are applied batch by batch: a batch's lines are collected (as offsets) and applied at
   * its E line, so a torn last batch leaves no trace. */
  g_autoptr(GArray) pending = g_array_new(FALSE, FALSE, sizeof(gsize) * 2);
  const char *skeleton = NULL, *traced = NULL;
  gsize skeleton_len = 0, traced_len = 0;
  const char *batch_skeleton = NULL, *batch_traced = NULL;
  gsize batch_skeleton_len = 0, batch_traced_len = 0;
  guint batches = 0;
  gboolean in_batch = FALSE;
  gsize at = magic;
  while (at < len) {
    const char *nl = memchr(text + at, '\n', len - at);
    if (!nl)
      break; /* a line cut short */
    gsize line_len = (gsize)(nl - (text + at));
    char kind = line_len >= 1 ? text[at] : '\0';
    if (kind == 'S' || kind == 'T') {
      const char *doc = NULL;
      gsize doc_len = 0;
      if (!take_document(text, len, &at, line_len, &doc, &doc_len))
        break;
      if (kind == 'S') {
        batch_skeleton = doc;
        batch_skeleton_len = doc_len;
      } else {
        batch_traced = doc;
        batch_traced_len = doc_len;
      }
      continue;
    }
    if (kind == 'B') {
      in_batch = TRUE;
      g_array_set_size(pending, 0);
      batch_skeleton = batch_traced = NULL;
    } else if (kind == 'E' && in_batch) {
      for (guint i = 0; i < pending->len; i++) {
        gsize *span = &g_array_index(pending, gsize, i * 2);
        apply_line(&st, text + span[0], span[1]);
      }
      if (batch_skeleton) {
        skeleton = batch_skeleton;
        skeleton_len = batch_skeleton_len;
      }
      if (batch_traced) {
        traced = batch_traced;
        traced_len = batch_traced_len;
      }
      g_array_set_size(pending, 0);
      in_batch = FALSE;
      batches++;
    } else if (in_batch) {
      gsize span[2] = {at, line_len};
      g_array_append_vals(pending, span, 1);
    }
    at += line_len + 1;
  }
  gboolean torn = in_batch || at < len;

  SxsSpoolRead *r = NULL;
  SxsProfileModel *m = rebuild(&st, source, skeleton, skeleton_len, traced, traced_len, batches, error);
  if (m) {
    r = g_new0(SxsSpoolRead, 1);
    r->model = m;
    r->signal = st.signal;
    r->batches = batches;
    r->torn = torn;
  }
  g_hash_table_unref(st.functions);
  g_hash_table_unref(st.frames);
  g_hash_table_unref(st.stacks);
  for (guint i = 0; i < st.events->len; i++)
    g_free(g_array_index(st.events, SxsTimelineEvent, i).name);
  g_array_unref(st.samples);
  g_array_unref(st.events);
  g_array_unref(st.seconds);
  g_ptr_array_unref(st.labels);
  return r;
}

void sxs__spool_tally_init(SxsSpoolTally *t) {
  *t = (SxsSpoolTally){.sample = g_hash_table_new(g_direct_hash, g_direct_equal)};
}

void sxs__spool_tally_clear(SxsSpoolTally *t) {
  g_clear_pointer(&t->sample, g_hash_table_unref);
}

#define SPOOL_TALLY_MAX_READ (64u << 20)

gboolean sxs__spool_tally_update(SxsSpoolTally *t, const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return FALSE;
  }
  if ((guint64)st.st_ino != t->inode || (guint64)st.st_size < t->offset) {
    t->inode = (guint64)st.st_ino;
    t->offset = 0;
    t->samples = 0;
    g_hash_table_remove_all(t->sample);
  }
  gsize want = (gsize)MIN((guint64)st.st_size - t->offset, SPOOL_TALLY_MAX_READ);
  g_autofree char *text = g_malloc(want + 1);
  gsize len = 0;
  while (len < want) {
    ssize_t n = pread(fd, text + len, want - len, (off_t)(t->offset + len));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    len += (gsize)n;
  }
  close(fd);
  gsize at = 0;
  if (t->offset == 0) {
    gsize magic = strlen(SXS_SPOOL_MAGIC);
    if (len < magic || memcmp(text, SXS_SPOOL_MAGIC, magic) != 0)
      return TRUE;
    at = magic;
  }
  while (at < len) {
    const char *nl = memchr(text + at, '\n', len - at);
    if (!nl)
      break;
    gsize line_len = (gsize)(nl - (text + at));
    char kind = line_len >= 1 ? text[at] : '\0';
    if (kind == 'S' || kind == 'T') {
      const char *doc;
      gsize doc_len;
      if (!take_document(text, len, &at, line_len, &doc, &doc_len))
        break;
      continue;
    }
    Field f[3];
    guint n = split_fields(text + at, line_len, f, G_N_ELEMENTS(f));
    if (kind == 'K' && n >= 3 && f[2].len == strlen("sample") && memcmp(f[2].s, "sample", f[2].len) == 0)
      g_hash_table_add(t->sample, GUINT_TO_POINTER((guint)field_u64(&f[1], 16)));
    else if (kind == 'W' && n >= 3 && g_hash_table_contains(t->sample, GUINT_TO_POINTER((guint)field_u64(&f[1], 16))))
      t->samples += field_u64(&f[2], 10);
    at += line_len + 1;
  }
  t->offset += at;
  return TRUE;
}

SxsSpoolRead *sxs__spool_load(const char *path, GError **error) {
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) inner = NULL;
  if (!g_file_get_contents(path, &text, &len, &inner)) {
    g_set_error(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_FILE, "%s", inner->message);
    return NULL;
  }
  return sxs__spool_read(path, text, len, error);
}

void sxs__spool_read_free(SxsSpoolRead *r) {
  if (!r)
    return;
  sxs__profile_model_free(r->model);
  g_free(r);
}

char *sxs__spool_path(const char *profile_path) {
  gsize n = strlen(profile_path);
  if (g_str_has_suffix(profile_path, ".json"))
    n -= strlen(".json");
  g_autofree char *base = g_strndup(profile_path, n);
  return g_strconcat(base, SXS_SPOOL_SUFFIX, NULL);
}

char *sxs__spool_profile_path(const char *spool_path) {
  gsize n = strlen(spool_path);
  if (g_str_has_suffix(spool_path, SXS_SPOOL_SUFFIX))
    n -= strlen(SXS_SPOOL_SUFFIX);
  g_autofree char *base = g_strndup(spool_path, n);
  return g_strconcat(base, ".json", NULL);
}
