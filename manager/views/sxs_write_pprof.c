/* The pprof writer: one kind of a view as a gzip-compressed pprof Profile (pprof/profile.proto), the
 * file `go tool pprof`, Pyroscope and most profile viewers read. It does not decide what a stack
 * holds (sxs_view does) nor where the file goes.
 *
 * How a view becomes a profile:
 *
 *   SxsView, by line                         Profile
 *   frames[i] (used by this kind) ---------> Location {line: [{its function, its line}], mapping_id}
 *     their functions (one per label) -----> Function {name: label "[rt1 10.0.12] A.B.C",
 *                                                       system_name: "A.B.C" (an async method's
 *                                                       state machine as the runtime names it), filename: the source
 *                                                       file (else the module), start_line}
 *   runtime 1 (its managed frames) --------> Mapping  {filename: the runtime's path, else "[rt1 ..]"}
 *   native module libc.so.6 ---------------> Mapping  {filename: "libc.so.6"}
 *   group (thread 42 "Main") / stack ------> Sample   {location_id: LEAF FIRST, value: [...],
 *                                                       label: thread "Main", thread_id 42}
 *
 * Samples weigh [samples/count, cpu|wall/nanoseconds] (count, count x the sampler's period), call
 * trees [calls/count, time/nanoseconds] (only calls when untimed), event stacks [events/count].
 * The event profiles ride along as types of their own in Go's names: [exceptions/count],
 * [contentions/count, delay/nanoseconds], [alloc_objects/count, alloc_space/bytes]; a sample of
 * one kind is 0 in the others' types, so `pprof -sample_index=exceptions` shows only exceptions.
 * Every mapping says it has functions, so that pprof never looks for binaries to symbolize. A
 * function's name and system name differ (tagged and untagged), which also keeps pprof from
 * trying to demangle it. Stacks are not merged across groups: each group's stacks keep their
 * labels, and pprof sums what it shows. Managed frames with lines make a location per line, so
 * `pprof -lines` and `list` show lines, and by function (the default) they add up per function.
 */
#include "sxs_process.h"
#include "sxs_view.h"

#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"

/* The profile's string table while it is filled: every string once, "" at index 0. */
typedef struct {
  GStringChunk *chunk; /* the copies; owned */
  GHashTable *index;   /* string in chunk -> its index + 1; owned, keys borrowed from chunk */
  GPtrArray *strings;  /* char* in chunk, by index; owned (the array only) */
} PprofStrings;

static void pprof_strings_init(PprofStrings *st) {
  st->chunk = g_string_chunk_new(4096);
  st->index = g_hash_table_new(g_str_hash, g_str_equal);
  st->strings = g_ptr_array_new();
  g_ptr_array_add(st->strings, g_string_chunk_insert(st->chunk, ""));
  g_hash_table_insert(st->index, st->strings->pdata[0], GUINT_TO_POINTER(1));
}

static void pprof_strings_fini(PprofStrings *st) {
  g_ptr_array_unref(st->strings);
  g_hash_table_unref(st->index);
  g_string_chunk_free(st->chunk);
}

/* The index of s in the table, added when new; NULL is the empty string. */
static int64_t pprof_string(PprofStrings *st, const char *s) {
  if (s == NULL)
    return 0;
  gpointer hit = g_hash_table_lookup(st->index, s);
  if (hit != NULL)
    return GPOINTER_TO_UINT(hit) - 1;
  char *copy = g_string_chunk_insert(st->chunk, s);
  g_ptr_array_add(st->strings, copy);
  g_hash_table_insert(st->index, copy, GUINT_TO_POINTER(st->strings->len));
  return st->strings->len - 1;
}

/* Everything the Profile message points to, allocated here and freed at once: protobuf-c packs
 * from plain structs, it does not own them. */
typedef struct {
  PprofStrings strings;
  GPtrArray *blocks;      /* g_free'd on fini: struct arrays and the pointer arrays into them */
  GHashTable *mapping_of; /* "rt:<id>" or "native:<module>" -> mapping id; owned keys */
  GHashTable *filenames;  /* mapping filenames used, so that no two mappings share one; owned keys */
  GPtrArray *mappings;    /* Perftools__Profiles__Mapping*, owned by blocks */
} PprofBuild;

static gpointer pprof_alloc(PprofBuild *b, gsize n, gsize size) {
  gpointer p = g_malloc0_n(MAX(n, 1), size);
  g_ptr_array_add(b->blocks, p);
  return p;
}

/* The mapping a frame's location belongs to: its runtime for managed frames, its module for native
 * ones (0, none, when the module is unknown). */
static uint64_t pprof_mapping_id(PprofBuild *b, const SxsView *v, const SxsViewFrame *f) {
  g_autofree char *key = f->managed ? g_strdup_printf("rt:%d", f->runtime_id)
                                    : (f->module[0] != '\0' ? g_strconcat("native:", f->module, NULL) : NULL);
  if (key == NULL)
    return 0;
  gpointer hit = g_hash_table_lookup(b->mapping_of, key);
  if (hit != NULL)
    return GPOINTER_TO_UINT(hit);

  g_autofree char *tag = f->managed ? g_strdup(sxs__view_runtime_tag(v, f->runtime_id)) : NULL;
  const SxsRuntimeModel *r = f->managed ? sxs__view_runtime(v, f->runtime_id) : NULL;
  g_autofree char *filename =
      f->managed ? g_strdup(r != NULL && r->path != NULL && r->path[0] != '\0' ? r->path : tag) : g_strdup(f->module);
  /* pprof merges mappings that share a file name and touch: keep them apart. */
  if (g_hash_table_contains(b->filenames, filename)) {
    char *apart = g_strdup_printf("%s %s", filename, tag != NULL ? tag : "[native]");
    g_free(filename);
    filename = apart;
  }
  g_hash_table_add(b->filenames, g_strdup(filename));

  Perftools__Profiles__Mapping *m = pprof_alloc(b, 1, sizeof *m);
  perftools__profiles__mapping__init(m);
  m->id = b->mappings->len + 1;
  m->filename = pprof_string(&b->strings, filename);
  m->has_functions = TRUE;
  g_ptr_array_add(b->mappings, m);
  g_hash_table_insert(b->mapping_of, g_steal_pointer(&key), GUINT_TO_POINTER(m->id));
  return m->id;
}

static Perftools__Profiles__ValueType *pprof_value_type(PprofBuild *b, const char *type, const char *unit) {
  Perftools__Profiles__ValueType *t = pprof_alloc(b, 1, sizeof *t);
  perftools__profiles__value_type__init(t);
  t->type = pprof_string(&b->strings, type);
  t->unit = pprof_string(&b->strings, unit);
  return t;
}

static Perftools__Profiles__Label *pprof_label(PprofBuild *b, const char *key, const char *str, int64_t num) {
  Perftools__Profiles__Label *l = pprof_alloc(b, 1, sizeof *l);
  perftools__profiles__label__init(l);
  l->key = pprof_string(&b->strings, key);
  l->str = pprof_string(&b->strings, str);
  l->num = str == NULL ? num : 0;
  return l;
}

/* A stack's samples of one endpoint (--endpoints), from its group's timeline. */
typedef struct {
  guint32 stack;
  guint label;
  guint64 weight;
} LabelRun;

static int compare_label_runs(gconstpointer a, gconstpointer b) {
  const LabelRun *x = a, *y = b;
  if (x->stack != y->stack)
    return x->stack < y->stack ? -1 : 1;
  return x->label < y->label ? -1 : x->label > y->label;
}

/* A sample group's stacks split by endpoint: runs (stack, label, weight) of labels > 0, by stack
 * then label; NULL when none of its samples has a label. */
static GArray *label_runs(const SxsViewGroup *g) {
  if (g->kind != SXS_VIEW_SAMPLES || !g->timeline)
    return NULL;
  GArray *runs = NULL;
  for (guint i = 0; i < g->timeline->len; i++) {
    const SxsViewSample *s = &g_array_index(g->timeline, SxsViewSample, i);
    if (!s->label)
      continue;
    if (!runs)
      runs = g_array_new(FALSE, FALSE, sizeof(LabelRun));
    LabelRun r = {.stack = s->stack, .label = s->label, .weight = s->weight};
    g_array_append_val(runs, r);
  }
  if (!runs)
    return NULL;
  g_array_sort(runs, compare_label_runs);
  guint kept = 0;
  for (guint i = 0; i < runs->len; i++) {
    LabelRun r = g_array_index(runs, LabelRun, i);
    LabelRun *last = kept ? &g_array_index(runs, LabelRun, kept - 1) : NULL;
    if (last && last->stack == r.stack && last->label == r.label)
      last->weight += r.weight;
    else
      g_array_index(runs, LabelRun, kept++) = r;
  }
  g_array_set_size(runs, kept);
  return runs;
}

/* The labels every sample of group g carries: whose thread, which event, which runtime. */
static Perftools__Profiles__Label **pprof_group_labels(PprofBuild *b, const SxsView *v, const SxsViewGroup *g,
                                                       size_t *ret_n) {
  Perftools__Profiles__Label **labels = pprof_alloc(b, 4, sizeof *labels);
  size_t n = 0;
  if (g->kind == SXS_VIEW_EVENTS && g->event != NULL)
    labels[n++] = pprof_label(b, "event", g->event, 0);
  if (g->kind == SXS_VIEW_CALLS || sxs__view_profile_of_kind(g->kind) < SXS_PROFILE_N_KINDS) {
    const char *tag = sxs__view_runtime_tag(v, g->runtime_id);
    /* The label is the tag without its brackets: "rt1 10.0.12". */
    g_autofree char *bare = g_strndup(tag + 1, strlen(tag) - 2);
    labels[n++] = pprof_label(b, "runtime", bare, 0);
  }
  if (g->thread_name != NULL && g->thread_name[0] != '\0')
    labels[n++] = pprof_label(b, "thread", g->thread_name, 0);
  if (g->thread != 0)
    labels[n++] = pprof_label(b, "thread_id", NULL, g->thread);
  *ret_n = n;
  return labels;
}

/* Compresses len bytes as one gzip member. NULL when zlib fails (out of memory). */
static char *pprof_gzip(const guint8 *data, gsize len, gsize *ret_len) {
  z_stream zs = {0};
  /* 15 + 16: the largest window, with a gzip header and trailer instead of zlib's. */
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return NULL;
  gsize cap = deflateBound(&zs, len);
  char *out = g_malloc(cap);
  zs.next_in = (Bytef *)data;
  zs.avail_in = len;
  zs.next_out = (Bytef *)out;
  zs.avail_out = cap;
  int rc = deflate(&zs, Z_FINISH);
  gsize n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    g_free(out);
    return NULL;
  }
  *ret_len = n;
  return out;
}

/*
 * Renders the stacks of o->kind (the view's primary kind when o is NULL or asks for
 * SXS_VIEW_N_KINDS) as a gzip-compressed pprof profile (see the top of the file). NULL with
 * *ret_why set when that kind has no stack. Context: any thread; allocates.
 */
static char *write_pprof(const SxsView *v, SxsViewKind kind, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);

char *sxs__write_pprof(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why) {
  SxsViewKind kind = v != NULL ? sxs__view_resolve_kind(v, o) : SXS_VIEW_N_KINDS;
  if (v == NULL || kind >= SXS_VIEW_N_KINDS) {
    if (ret_why != NULL)
      *ret_why = g_strdup("the profile holds no samples, traced calls or event stacks for pprof");
    return NULL;
  }
  /* pprof keeps lines and functions apart itself: its locations are lines. */
  SxsView *lv = sxs__view_by_line(v);
  char *out = write_pprof(lv, kind, o, ret_len, ret_why);
  sxs__view_free_other(v, lv);
  return out;
}

static char *write_pprof(const SxsView *v, SxsViewKind kind, const SxsRenderOptions *o, gsize *ret_len,
                         char **ret_why) {
  /* The kinds this file holds: o->kind alone when asked for; else the primary kind, with the event
   * profiles beside it as sample types of their own (their samples 0 in the other types). */
  SxsViewKind kinds[1 + SXS_PROFILE_N_KINDS];
  guint n_kinds = 0;
  kinds[n_kinds++] = kind;
  if (o == NULL || o->kind >= SXS_VIEW_N_KINDS)
    for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
      SxsViewKind pk = sxs__view_kind_of_profile((SxsProfileKind)k);
      SxsViewIter probe;
      sxs__view_iter_init(&probe, v, pk);
      if (pk != kind && sxs__view_iter_next_stack(&probe) != NULL)
        kinds[n_kinds++] = pk;
    }

  /* Which frames these kinds use, and how many samples and locations of samples they make. */
  guint n_frames = v->frames->len;
  g_autofree uint64_t *location_of = g_new0(uint64_t, MAX(n_frames, 1)); /* frame -> location id */
  gsize n_samples = 0, n_ids = 0;
  SxsViewIter it;
  for (guint k = 0; k < n_kinds; k++) {
    sxs__view_iter_init(&it, v, kinds[k]);
    for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
      n_samples++;
      n_ids += s->depth;
      for (guint d = 0; d < s->depth; d++)
        location_of[s->frames[d]] = 1;
    }
  }
  /* Samples of requests are split by endpoint: one pprof sample per stack and endpoint. */
  g_autoptr(GHashTable) runs_of = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
  for (guint i = 0; i < v->groups->len; i++) {
    const SxsViewGroup *g = v->groups->pdata[i];
    GArray *runs = label_runs(g);
    if (!runs)
      continue;
    g_hash_table_insert(runs_of, (gpointer)g, runs);
    for (guint j = 0; j < runs->len; j++) {
      guint32 stack = g_array_index(runs, LabelRun, j).stack;
      n_samples++;
      n_ids += stack < g->stacks->len ? g_array_index(g->stacks, SxsViewStack, stack).depth : 0;
    }
  }
  if (n_samples == 0) {
    if (ret_why != NULL)
      *ret_why = g_strdup_printf("the profile holds no %s stacks for pprof", sxs__view_kind_name(kind));
    return NULL;
  }

  PprofBuild b = {
      .blocks = g_ptr_array_new_with_free_func(g_free),
      .mapping_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
      .filenames = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
      .mappings = g_ptr_array_new(),
  };
  pprof_strings_init(&b.strings);
  Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
  /* pprof takes the first mapping for the program ("File:"): the process's executable, which its
   * own native frames (dotnet, runsxs) map into. */
  if (v->model->process && v->model->process->executable && v->model->process->executable[0]) {
    g_autofree char *base = g_path_get_basename(v->model->process->executable);
    Perftools__Profiles__Mapping *m = pprof_alloc(&b, 1, sizeof *m);
    perftools__profiles__mapping__init(m);
    m->id = 1;
    m->filename = pprof_string(&b.strings, v->model->process->executable);
    m->has_functions = TRUE;
    g_ptr_array_add(b.mappings, m);
    g_hash_table_insert(b.mapping_of, g_strconcat("native:", base, NULL), GUINT_TO_POINTER(m->id));
    g_hash_table_add(b.filenames, g_strdup(v->model->process->executable));
  }

  /* What a sample's values are: each kind's types in a run of slots, the first kind's first. */
  gboolean timed = FALSE, ns_from_period = FALSE, events_from_period = FALSE;
  size_t first_slot[1 + SXS_PROFILE_N_KINDS];
  Perftools__Profiles__ValueType **types = pprof_alloc(&b, 2 * n_kinds, sizeof *types);
  for (guint k = 0; k < n_kinds; k++) {
    first_slot[k] = p.n_sample_type;
    switch (kinds[k]) {
    case SXS_VIEW_SAMPLES: {
      const char *what = g_strcmp0(v->sample_mode, "wall") == 0 ? "wall" : "cpu";
      types[p.n_sample_type++] = pprof_value_type(&b, "samples", "count");
      if (v->sample_event != NULL && v->event_period > 0) {
        /* A hardware event's samples: its count, as perf names it (cycles/count). */
        events_from_period = TRUE;
        types[p.n_sample_type++] = pprof_value_type(&b, v->sample_event, "count");
        p.period_type = pprof_value_type(&b, v->sample_event, "count");
        p.period = (int64_t)MIN(v->event_period, (guint64)INT64_MAX);
      } else if (v->period_ns > 0) {
        ns_from_period = TRUE;
        types[p.n_sample_type++] = pprof_value_type(&b, what, "nanoseconds");
        p.period_type = pprof_value_type(&b, what, "nanoseconds");
        p.period = (int64_t)v->period_ns;
        /* The wall time sampling ran (its CPU time, in cpu mode, is a comment below); older
         * profiles: the time the ticks covered (in cpu mode the CPU time sampled), else the ticks'
         * periods. */
        if (v->model != NULL && v->model->samples.wall_ns > 0)
          p.duration_nanos = (int64_t)MIN(v->model->samples.wall_ns, (guint64)INT64_MAX);
        else if (v->model != NULL && v->model->samples.duration_ns > 0)
          p.duration_nanos = (int64_t)MIN(v->model->samples.duration_ns, (guint64)INT64_MAX);
        else if (v->model != NULL && v->model->samples.ticks > 0)
          p.duration_nanos = (int64_t)sxs__saturating_mul(v->model->samples.ticks, v->period_ns, SXS_PROFILE_MAX_NS);
      }
      break;
    }
    case SXS_VIEW_CALLS:
      types[p.n_sample_type++] = pprof_value_type(&b, "calls", "count");
      if (g_str_equal(sxs__view_kind_unit(v, kinds[k]), "nanoseconds")) {
        timed = TRUE;
        types[p.n_sample_type++] = pprof_value_type(&b, "time", "nanoseconds");
      }
      break;
    /* Go's names for these profiles, so that -sample_index=alloc_space and the like work. */
    case SXS_VIEW_EXCEPTIONS: types[p.n_sample_type++] = pprof_value_type(&b, "exceptions", "count"); break;
    case SXS_VIEW_CONTENTION:
      types[p.n_sample_type++] = pprof_value_type(&b, "contentions", "count");
      types[p.n_sample_type++] = pprof_value_type(&b, "delay", "nanoseconds");
      break;
    case SXS_VIEW_ALLOCATIONS:
      types[p.n_sample_type++] = pprof_value_type(&b, "alloc_objects", "count");
      types[p.n_sample_type++] = pprof_value_type(&b, "alloc_space", "bytes");
      break;
    default: types[p.n_sample_type++] = pprof_value_type(&b, "events", "count"); break;
    }
  }
  p.sample_type = types;
  /* The default is the primary kind's last type (time, bytes, delay when it has one). */
  p.default_sample_type = types[(n_kinds > 1 ? first_slot[1] : p.n_sample_type) - 1]->type;

  /* One location per frame used, in the view's frame order; one function per label. */
  Perftools__Profiles__Function *functions = pprof_alloc(&b, n_frames, sizeof *functions);
  Perftools__Profiles__Location *locations = pprof_alloc(&b, n_frames, sizeof *locations);
  Perftools__Profiles__Line *lines = pprof_alloc(&b, n_frames, sizeof *lines);
  Perftools__Profiles__Line **line_ptrs = pprof_alloc(&b, n_frames, sizeof *line_ptrs);
  p.function = pprof_alloc(&b, n_frames, sizeof *p.function);
  p.location = pprof_alloc(&b, n_frames, sizeof *p.location);
  g_autoptr(GHashTable) function_of = g_hash_table_new(g_str_hash, g_str_equal); /* label -> function id */
  for (guint i = 0; i < n_frames; i++) {
    if (location_of[i] == 0)
      continue;
    const SxsViewFrame *f = g_ptr_array_index(v->frames, i);
    const char *fname = o && o->untagged && f->managed ? f->name : f->label;
    uint64_t function_id = GPOINTER_TO_SIZE(g_hash_table_lookup(function_of, fname));
    if (function_id == 0) {
      Perftools__Profiles__Function *fn = &functions[p.n_function];
      perftools__profiles__function__init(fn);
      fn->id = function_id = p.n_function + 1;
      fn->name = pprof_string(&b.strings, fname);
      fn->system_name = pprof_string(&b.strings, f->raw_name ? f->raw_name : f->name);
      fn->filename = pprof_string(&b.strings, f->file ? f->file : f->module);
      fn->start_line = f->start_line;
      p.function[p.n_function++] = fn;
      g_hash_table_insert(function_of, (gpointer)fname, GSIZE_TO_POINTER(function_id));
    }
    size_t k = p.n_location;
    perftools__profiles__line__init(&lines[k]);
    lines[k].function_id = function_id;
    lines[k].line = f->line;
    line_ptrs[k] = &lines[k];
    Perftools__Profiles__Location *loc = &locations[k];
    perftools__profiles__location__init(loc);
    loc->id = k + 1;
    loc->mapping_id = pprof_mapping_id(&b, v, f);
    loc->n_line = 1;
    loc->line = &line_ptrs[k];
    p.location[p.n_location++] = loc;
    location_of[i] = loc->id;
  }
  p.n_mapping = b.mappings->len;
  p.mapping = (Perftools__Profiles__Mapping **)b.mappings->pdata;

  /* One sample per stack of each group, leaf first. */
  Perftools__Profiles__Sample *samples = pprof_alloc(&b, n_samples, sizeof *samples);
  p.sample = pprof_alloc(&b, n_samples, sizeof *p.sample);
  uint64_t *ids = pprof_alloc(&b, n_ids, sizeof *ids);
  int64_t *values = pprof_alloc(&b, n_samples * p.n_sample_type, sizeof *values);
  size_t n_labels = 0;
  Perftools__Profiles__Label **labels = NULL;
  const SxsViewGroup *labelled = NULL;
  const GPtrArray *endpoints = v->model ? v->model->timeline.labels : NULL;
  for (guint k = 0; k < n_kinds; k++) {
    sxs__view_iter_init(&it, v, kinds[k]);
    const GArray *runs = NULL;
    guint run = 0;
    for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
      if (it.group != labelled) {
        labels = pprof_group_labels(&b, v, it.group, &n_labels);
        labelled = it.group;
        runs = g_hash_table_lookup(runs_of, it.group);
        run = 0;
      }
      guint32 stack_index = (guint32)(it.next_stack_index - 1);
      /* This stack's samples of each endpoint, then the rest (of no request). */
      guint64 rest = s->count;
      for (;;) {
        guint64 count = rest;
        guint endpoint = 0;
        if (runs && run < runs->len && g_array_index(runs, LabelRun, run).stack == stack_index) {
          const LabelRun *r = &g_array_index(runs, LabelRun, run++);
          count = MIN(r->weight, rest);
          endpoint = r->label;
          rest -= count;
        } else if (rest == 0 && s->count > 0) {
          break;
        }
        Perftools__Profiles__Sample *sm = &samples[p.n_sample];
        perftools__profiles__sample__init(sm);
        sm->n_location_id = s->depth;
        sm->location_id = ids;
        for (guint d = 0; d < s->depth; d++)
          ids[d] = location_of[s->frames[s->depth - 1 - d]];
        ids += s->depth;
        sm->n_value = p.n_sample_type;
        sm->value = values;
        int64_t *slot = values + first_slot[k];
        /* The view's counts and weights stay within int64 (SXS_PROFILE_MAX_NS). */
        slot[0] = (int64_t)MIN(count, SXS_PROFILE_MAX_NS);
        if (kinds[k] == SXS_VIEW_SAMPLES && ns_from_period)
          slot[1] = (int64_t)sxs__saturating_mul(count, v->period_ns, SXS_PROFILE_MAX_NS);
        else if (kinds[k] == SXS_VIEW_SAMPLES && events_from_period)
          slot[1] = (int64_t)sxs__saturating_mul(count, v->event_period, SXS_PROFILE_MAX_NS);
        else if (kinds[k] == SXS_VIEW_CALLS && timed)
          slot[1] = (int64_t)MIN(s->weight, SXS_PROFILE_MAX_NS);
        else if (kinds[k] == SXS_VIEW_CONTENTION || kinds[k] == SXS_VIEW_ALLOCATIONS)
          slot[1] = (int64_t)MIN(s->weight, SXS_PROFILE_MAX_NS);
        values += p.n_sample_type;
        sm->n_label = n_labels;
        sm->label = labels;
        if (endpoint && endpoints && endpoint <= endpoints->len) {
          /* The group's labels and the endpoint's. */
          Perftools__Profiles__Label **with = pprof_alloc(&b, n_labels + 1, sizeof *with);
          memcpy(with, labels, n_labels * sizeof *with);
          with[n_labels] = pprof_label(&b, "endpoint", endpoints->pdata[endpoint - 1], 0);
          sm->n_label = n_labels + 1;
          sm->label = with;
        }
        p.sample[p.n_sample++] = sm;
        if (!endpoint)
          break;
      }
    }
  }

  /* When and what: the process's start, and comments `pprof -comments` shows. */
  const SxsProcessInfo *proc = v->model != NULL ? v->model->process : NULL;
  if (proc != NULL && proc->start_unix_ms > 0)
    p.time_nanos = (int64_t)sxs__saturating_mul((guint64)proc->start_unix_ms, 1000000, SXS_PROFILE_MAX_NS);
  g_autofree char *command = proc != NULL ? sxs__process_command_line(proc->argv, 0) : NULL;
  int64_t *comments = pprof_alloc(&b, 5, sizeof *comments);
  comments[p.n_comment++] = pprof_string(&b.strings, "sxsprof");
  if (command != NULL && command[0] != '\0')
    comments[p.n_comment++] = pprof_string(&b.strings, command);
  /* How the sampler kept its rate, when it ran. */
  if (v->model != NULL && v->model->samples.ticks > 0 && (v->period_ns > 0 || v->sample_event != NULL)) {
    g_autofree char *rate = sxs__view_sampling_rate(&v->model->samples);
    g_autofree char *comment = g_strdup_printf("%s sampling: %s",
                                               v->sample_event  ? v->sample_event
                                               : v->sample_mode ? v->sample_mode
                                                                : "cpu",
                                               rate);
    const SxsSamplesModel *sm = &v->model->samples;
    if (sm->engine != NULL) {
      g_free(comment);
      comment = g_strdup_printf("%s sampling: %s; %s engine (%s)", v->sample_event ? v->sample_event : "cpu", rate,
                                sm->engine, sm->engine_reason ? sm->engine_reason : "?");
    }
    comments[p.n_comment++] = pprof_string(&b.strings, comment);
    /* ... the CPU time cpu mode sampled (Duration is the wall time), ... */
    if (sm->mode != NULL && g_str_equal(sm->mode, "cpu") && sm->wall_ns > 0 && sm->duration_ns > 0 &&
        sm->event_unit != NULL && g_str_equal(sm->event_unit, "nanoseconds")) {
      g_autofree char *cpu = g_strdup_printf("cpu time sampled: %.2f s, over %.2f s of wall time",
                                             (double)sm->duration_ns / 1e9, (double)sm->wall_ns / 1e9);
      comments[p.n_comment++] = pprof_string(&b.strings, cpu);
    }
    /* ... and at which rate each thread that ran most was sampled (cpu mode). */
    g_autofree char *rates = sxs__view_thread_rates(sm, 5);
    if (rates) {
      g_autofree char *line = g_strdup_printf("per thread: %s", rates);
      comments[p.n_comment++] = pprof_string(&b.strings, line);
    }
  }
  p.comment = comments;

  p.n_string_table = b.strings.strings->len;
  p.string_table = (char **)b.strings.strings->pdata;

  gsize packed_len = perftools__profiles__profile__get_packed_size(&p);
  g_autofree guint8 *packed = g_malloc(MAX(packed_len, 1));
  perftools__profiles__profile__pack(&p, packed);
  gsize out_len = 0;
  char *out = pprof_gzip(packed, packed_len, &out_len);

  pprof_strings_fini(&b.strings);
  g_ptr_array_unref(b.mappings);
  g_hash_table_unref(b.filenames);
  g_hash_table_unref(b.mapping_of);
  g_ptr_array_unref(b.blocks);
  if (out == NULL) {
    if (ret_why != NULL)
      *ret_why = g_strdup("could not compress the pprof profile (out of memory)");
    return NULL;
  }
  if (ret_len != NULL)
    *ret_len = out_len;
  return out;
}
