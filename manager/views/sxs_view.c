/* sxs_view: the profile model as frames and weighted stacks, merged trees and per-frame totals.
 *
 *   SxsProfileModel                      SxsView
 *   samples.stacks (leaf first) ------>  groups "samples"  one per OS thread      frames: one table,
 *   runtimes[i].call_tree (nodes) ---->  groups "calls"    one per runtime        labels tagged with
 *   stacks (events, leaf first) ------>  groups "events"   one per event kind     the runtime
 *   profiles[k].stacks (typed) ------->  groups "exceptions", "contention", "allocations": one per
 *                                        runtime, the type as the leaf frame
 *
 * Every stack is root first, as folded stacks, speedscope and trees want it; pprof reverses it. */
#include "sxs_view.h"
#include "sxs_components.h"

#include <string.h>

static const char *const kind_names[SXS_VIEW_N_KINDS] = {"samples",    "calls",      "events",
                                                         "exceptions", "contention", "allocations"};

SxsViewKind sxs__view_kind_of_profile(SxsProfileKind k) {
  return k < SXS_PROFILE_N_KINDS ? (SxsViewKind)(SXS_VIEW_EXCEPTIONS + (int)k) : SXS_VIEW_N_KINDS;
}

SxsProfileKind sxs__view_profile_of_kind(SxsViewKind k) {
  return k >= SXS_VIEW_EXCEPTIONS && k < SXS_VIEW_N_KINDS ? (SxsProfileKind)(k - SXS_VIEW_EXCEPTIONS)
                                                          : SXS_PROFILE_N_KINDS;
}

/* Weights and counts add up saturating: a profile's sums never wrap (SXS_PROFILE_MAX_NS). */
static guint64 add(guint64 a, guint64 b) {
  return sxs__saturating_add(a, b, SXS_PROFILE_MAX_NS);
}

const char *sxs__view_kind_name(SxsViewKind k) {
  return k < SXS_VIEW_N_KINDS ? kind_names[k] : "none";
}

gboolean sxs__view_kind_parse(const char *name, SxsViewKind *ret_kind) {
  for (int k = 0; k < SXS_VIEW_N_KINDS; k++)
    if (name && g_str_equal(name, kind_names[k])) {
      *ret_kind = (SxsViewKind)k;
      return TRUE;
    }
  return FALSE;
}

static void frame_free(gpointer p) {
  SxsViewFrame *f = p;
  g_free(f->label);
  g_free(f->name);
  g_free(f->raw_name);
  g_free(f->module);
  g_free(f->file);
  g_free(f);
}

static void group_free(gpointer p) {
  SxsViewGroup *g = p;
  for (guint i = 0; i < g->stacks->len; i++)
    g_free(g_array_index(g->stacks, SxsViewStack, i).frames);
  g_array_unref(g->stacks);
  g_free(g->name);
  g_free(g->thread_name);
  g_free(g->event);
  if (g->timeline)
    g_array_unref(g->timeline);
  g_free(g);
}

void sxs__view_free(SxsView *v) {
  if (!v)
    return;
  g_ptr_array_unref(v->frames);
  g_ptr_array_unref(v->groups);
  g_hash_table_unref(v->tags);
  g_free((char *)v->filter.thread);
  g_free(v);
}

SxsView *sxs__view_by_line(const SxsView *v) {
  if (v->filter.by_line)
    return (SxsView *)v;
  SxsViewFilter f = v->filter;
  f.by_line = TRUE;
  return sxs__view_new(v->model, &f);
}

void sxs__view_free_other(const SxsView *v, SxsView *o) {
  if (o != v)
    sxs__view_free(o);
}

char *sxs__view_frame_title(const SxsViewFrame *f, gboolean tagged) {
  const char *text = tagged ? f->label : f->name;
  guint32 line = f->line ? f->line : f->start_line;
  if (!f->file || !line)
    return g_strdup(text);
  const char *slash = strrchr(f->file, '/'), *back = strrchr(f->file, '\\');
  const char *base = MAX(slash, back);
  return g_strdup_printf("%s (%s:%u)", text, base ? base + 1 : f->file, line);
}

/* State while a view is built: the frame table's index, and where functions begin. */
typedef struct {
  SxsView *v;
  GHashTable *by_label; /* label, and " file:line" in views by line (owned) -> index + 1 */
  GHashTable *starts;   /* "<runtime id> <name>" (owned) -> SxsFunctionRecord* with a file */
} Builder;

const SxsRuntimeModel *sxs__view_runtime(const SxsView *v, int runtime_id) {
  for (guint i = 0; v->model && i < v->model->runtimes->len; i++) {
    const SxsRuntimeModel *r = v->model->runtimes->pdata[i];
    if (r->id == runtime_id)
      return r;
  }
  return NULL;
}

const char *sxs__view_runtime_tag(const SxsView *v, int runtime_id) {
  const char *tag = g_hash_table_lookup(v->tags, GINT_TO_POINTER(runtime_id));
  if (tag)
    return tag;
  const SxsRuntimeModel *r = sxs__view_runtime(v, runtime_id);
  char *made = r && r->version && *r->version ? g_strdup_printf("[rt%d %s]", runtime_id, r->version)
                                              : g_strdup_printf("[rt%d]", runtime_id);
  g_hash_table_insert(v->tags, GINT_TO_POINTER(runtime_id), made);
  return made;
}

char *sxs__view_async_name(const char *name) {
  static const char move_next[] = ".MoveNext";
  gsize len = name ? strlen(name) : 0;
  if (len <= strlen(move_next) || !g_str_has_suffix(name, move_next))
    return NULL;
  /* The state machine's type: the segment before .MoveNext, "<Method>d__N" or "<Method>d__N`K". */
  const char *end = name + len - strlen(move_next), *type = end;
  while (type > name && type[-1] != '.')
    type--;
  const char *d = g_strrstr_len(type, end - type, ">d__");
  if (type[0] != '<' || d == NULL || d == type + 1)
    return NULL;
  const char *at = d + 4;
  if (at == end || !g_ascii_isdigit(*at))
    return NULL;
  while (at < end && g_ascii_isdigit(*at))
    at++;
  if (at < end && *at == '`') {
    at++;
    if (at == end)
      return NULL;
    while (at < end && g_ascii_isdigit(*at))
      at++;
  }
  if (at != end)
    return NULL;
  return g_strdup_printf("%.*s%.*s [async]", (int)(type - name), name, (int)(d - type - 1), type + 1);
}

/* The index of the frame with this label (and, in views by line, this file and line), added when
 * new. Takes name, raw_name (may be NULL) and module; file is copied. */
static guint32 intern_frame(Builder *b, char *label, char *name, char *raw_name, char *module, int runtime_id,
                            gboolean managed, const char *file, guint32 line) {
  g_autofree char *key = line ? g_strdup_printf("%s\t%s:%u", label, file, line) : g_strdup(label);
  gpointer hit = g_hash_table_lookup(b->by_label, key);
  if (hit) {
    g_free(label);
    g_free(name);
    g_free(raw_name);
    g_free(module);
    return GPOINTER_TO_UINT(hit) - 1;
  }
  SxsViewFrame *f = g_new0(SxsViewFrame, 1);
  f->label = label;
  f->name = name;
  f->raw_name = raw_name;
  f->module = module ? module : g_strdup("");
  f->runtime_id = runtime_id;
  f->managed = managed;
  f->line = line;
  if (managed) {
    g_autofree char *start_key = g_strdup_printf("%d %s", runtime_id, raw_name ? raw_name : name);
    const SxsFunctionRecord *start = g_hash_table_lookup(b->starts, start_key);
    if (start && (!file || g_strcmp0(start->file, file) == 0)) {
      f->file = g_strdup(start->file);
      f->start_line = start->line;
    } else {
      f->file = g_strdup(file);
    }
  }
  g_ptr_array_add(b->v->frames, f);
  g_hash_table_insert(b->by_label, g_steal_pointer(&key), GUINT_TO_POINTER(b->v->frames->len));
  return b->v->frames->len - 1;
}

/* A managed frame: file and line are its line's (a sampled or recorded frame's), NULL and 0 for a
 * call tree's; only views by line keep the line. */
static guint32 managed_frame(Builder *b, int runtime_id, const char *name, const char *module, const char *file,
                             guint32 line) {
  const char *n = name && *name ? name : "?";
  char *shown = sxs__view_async_name(n);
  char *label = g_strdup_printf("%s %s", sxs__view_runtime_tag(b->v, runtime_id), shown ? shown : n);
  gboolean keep = b->v->filter.by_line && file && line;
  return intern_frame(b, label, shown ? shown : g_strdup(n), shown ? g_strdup(n) : NULL, g_strdup(module), runtime_id,
                      TRUE, keep ? file : NULL, keep ? line : 0);
}

/* Native names are "module!symbol+0xoff", "module+0xoff" or "0x...": a function is one frame
 * whatever the offset of the return address within it. The offset is the last "+0x" (a PLT entry
 * of an IRELATIVE slot is "*ABS*+0x9d6c0@plt"). */
static guint32 native_frame(Builder *b, const char *name, const char *module) {
  const char *n = name && *name ? name : "?";
  const char *bang = strchr(n, '!');
  const char *plus = NULL;
  for (const char *at = bang; at && (at = strstr(at, "+0x")); at += 3)
    plus = at;
  g_autofree char *shown = plus ? g_strndup(n, plus - n) : g_strdup(n);
  char *label = g_strdup_printf("[native] %s", shown);
  char *symbol = g_strdup(bang ? shown + (bang - n) + 1 : shown);
  return intern_frame(b, label, symbol, NULL, g_strdup(module), 0, FALSE, NULL, 0);
}

static guint32 model_frame(Builder *b, const SxsStackFrameModel *f) {
  return f->managed ? managed_frame(b, f->runtime_id, f->name, f->module, f->file, f->line)
                    : native_frame(b, f->name, f->module);
}

/* Stacks of a group, deduplicated by frame sequence while it is filled. */
typedef struct {
  SxsViewGroup *g;
  GHashTable *index; /* GBytes of the frames -> stack index + 1 */
  GArray *models;    /* with a timeline: FillModel, each model stack added and where it went */
} GroupFill;

/* A model stack added to a group, and its index there before the group's stacks were sorted. */
typedef struct {
  const SxsStackModel *model;
  guint32 index;
} FillModel;

/* Where a sampled stack went: its group and its index there. */
typedef struct {
  SxsViewGroup *group;
  guint32 stack;
} SamplePlace;

static void group_fill_init(GroupFill *gf, SxsViewGroup *g) {
  gf->g = g;
  gf->models = NULL;
  gf->index = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
}

/* Adds a stack (frames owned) to the group; returns its index (before the group is sorted). */
static guint32 group_add(GroupFill *gf, guint32 *frames, guint depth, guint64 weight, guint64 count) {
  g_autoptr(GBytes) key = g_bytes_new_static(frames, depth * sizeof *frames);
  gpointer hit = g_hash_table_lookup(gf->index, key);
  if (hit) {
    SxsViewStack *s = &g_array_index(gf->g->stacks, SxsViewStack, GPOINTER_TO_UINT(hit) - 1);
    s->weight = add(s->weight, weight);
    s->count = add(s->count, count);
    g_free(frames);
    return GPOINTER_TO_UINT(hit) - 1;
  }
  SxsViewStack s = {.frames = frames, .depth = depth, .weight = weight, .count = count};
  g_array_append_val(gf->g->stacks, s);
  g_hash_table_insert(gf->index, g_bytes_new_static(frames, depth * sizeof *frames),
                      GUINT_TO_POINTER(gf->g->stacks->len));
  return gf->g->stacks->len - 1;
}

static int compare_stacks(gconstpointer a, gconstpointer b) {
  const SxsViewStack *x = a, *y = b;
  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  guint n = MIN(x->depth, y->depth);
  for (guint i = 0; i < n; i++)
    if (x->frames[i] != y->frames[i])
      return x->frames[i] < y->frames[i] ? -1 : 1;
  return (int)x->depth - (int)y->depth;
}

static int compare_stack_at(gconstpointer a, gconstpointer b, gpointer data) {
  const GArray *stacks = data;
  return compare_stacks(&g_array_index(stacks, SxsViewStack, *(const guint32 *)a),
                        &g_array_index(stacks, SxsViewStack, *(const guint32 *)b));
}

/* Sorts the group's stacks into view order; with places (the group's model stacks were noted),
 * records where each model stack went (SxsStackModel* -> SamplePlace*). */
static void group_fill_finish_placed(GroupFill *gf, SxsView *v, GHashTable *places) {
  g_hash_table_unref(gf->index);
  SxsViewGroup *g = gf->g;
  if (g->stacks->len == 0) {
    g_clear_pointer(&gf->models, g_array_unref);
    group_free(g);
    return;
  }
  if (gf->models) {
    guint n = g->stacks->len;
    g_autofree guint32 *order = g_new(guint32, n);
    g_autofree guint32 *moved_to = g_new(guint32, n);
    for (guint i = 0; i < n; i++)
      order[i] = i;
    g_qsort_with_data(order, (gint)n, sizeof *order, compare_stack_at, g->stacks);
    GArray *sorted = g_array_sized_new(FALSE, FALSE, sizeof(SxsViewStack), n);
    for (guint i = 0; i < n; i++) {
      g_array_append_val(sorted, g_array_index(g->stacks, SxsViewStack, order[i]));
      moved_to[order[i]] = i;
    }
    g_array_unref(g->stacks);
    g->stacks = sorted;
    for (guint i = 0; places && i < gf->models->len; i++) {
      const FillModel *fm = &g_array_index(gf->models, FillModel, i);
      SamplePlace *p = g_new(SamplePlace, 1);
      *p = (SamplePlace){.group = g, .stack = moved_to[fm->index]};
      g_hash_table_insert(places, (gpointer)fm->model, p);
    }
    g_clear_pointer(&gf->models, g_array_unref);
  } else {
    g_array_sort(g->stacks, compare_stacks);
  }
  for (guint i = 0; i < g->stacks->len; i++) {
    g->total = add(g->total, g_array_index(g->stacks, SxsViewStack, i).weight);
    g->total_count = add(g->total_count, g_array_index(g->stacks, SxsViewStack, i).count);
  }
  g_ptr_array_add(v->groups, g);
}

static void group_fill_finish(GroupFill *gf, SxsView *v) {
  group_fill_finish_placed(gf, v, NULL);
}

static SxsViewGroup *group_new(SxsViewKind kind, const char *unit) {
  SxsViewGroup *g = g_new0(SxsViewGroup, 1);
  g->kind = kind;
  g->unit = unit;
  g->stacks = g_array_new(FALSE, FALSE, sizeof(SxsViewStack));
  return g;
}

/* A recorded stack (leaf first) as frame indices, root first; NULL when the filter drops it. */
static guint32 *model_stack_frames(Builder *b, const SxsStackModel *s, const SxsViewFilter *filter) {
  if (filter && filter->runtime_id > 0) {
    gboolean has = FALSE;
    for (guint j = 0; j < s->frames->len && !has; j++) {
      const SxsStackFrameModel *f = &g_array_index(s->frames, SxsStackFrameModel, j);
      has = f->managed && f->runtime_id == filter->runtime_id;
    }
    if (!has)
      return NULL;
  }
  guint n = s->frames->len;
  guint32 *frames = g_new(guint32, MAX(n, 1));
  for (guint j = 0; j < n; j++)
    frames[n - 1 - j] = model_frame(b, &g_array_index(s->frames, SxsStackFrameModel, j));
  return frames;
}

/* OS thread id -> the first name the runtimes' thread records give it. */
static GHashTable *thread_names_new(const SxsProfileModel *m) {
  GHashTable *names = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < m->runtimes->len; i++) {
    const SxsRuntimeModel *r = m->runtimes->pdata[i];
    for (guint j = 0; j < r->threads->len; j++) {
      const SxsThreadRecord *t = r->threads->pdata[j];
      if (t->name && !g_hash_table_contains(names, GUINT_TO_POINTER(t->os_tid)))
        g_hash_table_insert(names, GUINT_TO_POINTER(t->os_tid), t->name);
    }
  }
  return names;
}

static gboolean thread_matches(const SxsViewFilter *filter, uint32_t tid, const char *name) {
  if (!filter || !filter->thread)
    return TRUE;
  char text[16];
  g_snprintf(text, sizeof text, "%u", tid);
  return g_str_equal(filter->thread, text) || (name && g_str_equal(filter->thread, name));
}

/* By OS thread id, then name: the same id in two merged processes is two threads. */
static int compare_stack_threads(gconstpointer a, gconstpointer b) {
  const SxsStackModel *x = *(const SxsStackModel *const *)a, *y = *(const SxsStackModel *const *)b;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return g_strcmp0(x->thread_name, y->thread_name);
}

/* With SxsViewFilter.by_component: the stack under a root frame of its leaf's component,
 * "[component] JIT" (frames root first; frees frames, returns the new array, one longer). */
static guint32 *component_rooted(Builder *b, guint32 *frames, guint depth, const char *thread_name) {
  guint32 *rooted = g_new(guint32, depth + 1);
  memcpy(rooted + 1, frames, depth * sizeof *frames);
  SxsComponent c =
      depth ? sxs__components_of_frame(b->v->frames->pdata[frames[depth - 1]], thread_name) : SXS_COMPONENT_NATIVE;
  const char *name = sxs__components_name(c);
  rooted[0] =
      intern_frame(b, g_strdup_printf("[component] %s", name), g_strdup(name), NULL, g_strdup(""), 0, FALSE, NULL, 0);
  g_free(frames);
  return rooted;
}

/* Each sample group's timeline, from the model's: every sample of a stack the view kept, on its
 * thread's group, in time order (places: SxsStackModel* -> SamplePlace*). */
static void add_sample_timelines(const SxsProfileModel *m, GHashTable *places) {
  const SxsVec *samples = m->timeline.samples;
  for (guint i = 0; i < samples->len; i++) {
    const SxsTimelineSample *ts = &sxs__vec_index(samples, SxsTimelineSample, i);
    const SamplePlace *p = g_hash_table_lookup(places, ts->stack);
    if (!p)
      continue;
    if (!p->group->timeline)
      p->group->timeline = g_array_new(FALSE, FALSE, sizeof(SxsViewSample));
    SxsViewSample vs = {.t_us = ts->t_us, .stack = p->stack, .weight = ts->weight, .label = ts->label};
    g_array_append_val(p->group->timeline, vs);
  }
}

static void add_samples(Builder *b, const SxsViewFilter *filter) {
  const SxsSamplesModel *sm = &b->v->model->samples;
  if (!sm->stacks || sm->stacks->len == 0)
    return;
  /* With a timeline, where each model stack goes, for the groups' timelines. */
  gboolean timed = b->v->model->timeline.present && b->v->model->timeline.samples->len > 0;
  g_autoptr(GHashTable) places = timed ? g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free) : NULL;
  /* One group per thread, threads in id order, a thread's stacks in the model's order. */
  g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new(sm->stacks->len);
  for (guint i = 0; i < sm->stacks->len; i++)
    g_ptr_array_add(sorted, sm->stacks->pdata[i]);
  g_ptr_array_sort(sorted, compare_stack_threads);
  const char *what = g_strcmp0(sm->mode, "wall") == 0 ? "wall" : "cpu";
  GroupFill gf = {0};
  for (guint i = 0; i < sorted->len; i++) {
    const SxsStackModel *s = sorted->pdata[i];
    if (!thread_matches(filter, s->thread, s->thread_name))
      continue;
    if (!gf.g || gf.g->thread != s->thread || g_strcmp0(gf.g->thread_name, s->thread_name) != 0) {
      if (gf.g)
        group_fill_finish_placed(&gf, b->v, places);
      SxsViewGroup *g = group_new(SXS_VIEW_SAMPLES, "samples");
      g->thread = s->thread;
      g->thread_name = g_strdup(s->thread_name);
      g->name = s->thread_name && *s->thread_name
                    ? g_strdup_printf("%s samples, thread %s (%u)", what, s->thread_name, s->thread)
                    : g_strdup_printf("%s samples, thread %u", what, s->thread);
      group_fill_init(&gf, g);
      if (timed)
        gf.models = g_array_new(FALSE, FALSE, sizeof(FillModel));
    }
    guint32 *frames = model_stack_frames(b, s, filter);
    if (!frames)
      continue;
    guint32 at = filter && filter->by_component
                     ? group_add(&gf, component_rooted(b, frames, s->frames->len, s->thread_name), s->frames->len + 1,
                                 s->count, s->count)
                     : group_add(&gf, frames, s->frames->len, s->count, s->count);
    if (gf.models) {
      FillModel fm = {.model = s, .index = at};
      g_array_append_val(gf.models, fm);
    }
  }
  if (gf.g)
    group_fill_finish_placed(&gf, b->v, places);
  if (places)
    add_sample_timelines(b->v->model, places);
}

static void add_events(Builder *b, const SxsViewFilter *filter) {
  static const char *const events[] = {"exception", "jit", "gc"};
  g_autoptr(GHashTable) names = filter && filter->thread ? thread_names_new(b->v->model) : NULL;
  for (guint e = 0; e < G_N_ELEMENTS(events); e++) {
    SxsViewGroup *g = group_new(SXS_VIEW_EVENTS, "events");
    g->event = g_strdup(events[e]);
    g->name = g_strdup_printf("%s stacks", events[e]);
    GroupFill gf;
    group_fill_init(&gf, g);
    for (guint i = 0; i < b->v->model->stacks->len; i++) {
      const SxsStackModel *s = b->v->model->stacks->pdata[i];
      if (g_strcmp0(s->event, events[e]) != 0 ||
          !thread_matches(filter, s->thread, names ? g_hash_table_lookup(names, GUINT_TO_POINTER(s->thread)) : NULL))
        continue;
      guint32 *frames = model_stack_frames(b, s, filter);
      if (frames)
        group_add(&gf, frames, s->frames->len, s->count, s->count);
    }
    group_fill_finish(&gf, b->v);
  }
}

static int compare_ints(gconstpointer a, gconstpointer b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

/* The unit of an event profile's stacks. */
static const char *profile_unit(SxsProfileKind k) {
  return k == SXS_PROFILE_CONTENTION ? "nanoseconds" : k == SXS_PROFILE_ALLOCATIONS ? "bytes" : "exceptions";
}

/* The event profiles: per kind, one group per runtime (the runtime the events happened in, whatever
 * runtimes its frames are of), each stack ending in a frame for its type. */
static void add_profiles(Builder *b, const SxsViewFilter *filter) {
  g_autoptr(GHashTable) names = filter && filter->thread ? thread_names_new(b->v->model) : NULL;
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
    const GPtrArray *stacks = b->v->model->profiles[k].stacks;
    if (!stacks || stacks->len == 0)
      continue;
    g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(int));
    for (guint i = 0; i < stacks->len; i++) {
      int id = ((const SxsStackModel *)stacks->pdata[i])->runtime_id;
      gboolean seen = FALSE;
      for (guint j = 0; j < ids->len && !seen; j++)
        seen = g_array_index(ids, int, j) == id;
      if (!seen && (!filter || filter->runtime_id <= 0 || filter->runtime_id == id))
        g_array_append_val(ids, id);
    }
    g_array_sort(ids, compare_ints);
    for (guint r = 0; r < ids->len; r++) {
      int id = g_array_index(ids, int, r);
      SxsViewGroup *g = group_new(sxs__view_kind_of_profile((SxsProfileKind)k), profile_unit((SxsProfileKind)k));
      g->runtime_id = id;
      g->name = g_strdup_printf("%s, %s", sxs__profile_kind_name((SxsProfileKind)k), sxs__view_runtime_tag(b->v, id));
      GroupFill gf;
      group_fill_init(&gf, g);
      for (guint i = 0; i < stacks->len; i++) {
        const SxsStackModel *s = stacks->pdata[i];
        if (s->runtime_id != id ||
            !thread_matches(filter, s->thread, names ? g_hash_table_lookup(names, GUINT_TO_POINTER(s->thread)) : NULL))
          continue;
        guint n = s->frames->len;
        guint depth = n + (s->type ? 1 : 0);
        guint32 *frames = g_new(guint32, MAX(depth, 1));
        for (guint j = 0; j < n; j++)
          frames[n - 1 - j] = model_frame(b, &g_array_index(s->frames, SxsStackFrameModel, j));
        if (s->type)
          frames[n] = managed_frame(b, id, s->type, "", NULL, 0);
        guint64 weight = k == SXS_PROFILE_EXCEPTIONS ? s->count : s->value;
        group_add(&gf, frames, depth, weight, s->count);
      }
      group_fill_finish(&gf, b->v);
    }
  }
}

/* A runtime's call tree: each node is the stack of its path, weighing its exclusive time. */
static void add_calls(Builder *b, const SxsRuntimeModel *r) {
  GPtrArray *nodes = r->call_tree;
  if (!nodes || nodes->len == 0)
    return;
  gboolean timed = r->tracing.timing;
  SxsViewGroup *g = group_new(SXS_VIEW_CALLS, timed ? "nanoseconds" : "calls");
  g->runtime_id = r->id;
  g->name = g_strdup_printf("calls, %s", sxs__view_runtime_tag(b->v, r->id));
  GroupFill gf;
  group_fill_init(&gf, g);

  g_autoptr(GHashTable) modules = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < r->functions->len; i++) {
    const SxsFunctionRecord *f = r->functions->pdata[i];
    if (f->name && f->module)
      g_hash_table_insert(modules, f->name, f->module);
  }
  /* Each node's parent as an index (G_MAXUINT32: a root, or a parent that is missing). */
  g_autoptr(GHashTable) index_of = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < nodes->len; i++)
    g_hash_table_insert(index_of, GUINT_TO_POINTER(((const SxsCallNode *)nodes->pdata[i])->id),
                        GUINT_TO_POINTER(i + 1));
  g_autofree guint32 *parent_of = g_new(guint32, nodes->len);
  g_autofree guint32 *frame_of = g_new(guint32, nodes->len);
  for (guint i = 0; i < nodes->len; i++) {
    const SxsCallNode *n = nodes->pdata[i];
    guint p = n->parent ? GPOINTER_TO_UINT(g_hash_table_lookup(index_of, GUINT_TO_POINTER(n->parent))) : 0;
    parent_of[i] = p ? p - 1 : G_MAXUINT32;
    frame_of[i] = managed_frame(b, r->id, n->name, n->name ? g_hash_table_lookup(modules, n->name) : NULL, NULL, 0);
  }

  g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(guint32));
  for (guint i = 0; i < nodes->len; i++) {
    const SxsCallNode *n = nodes->pdata[i];
    guint64 weight = timed ? n->exclusive_ns : n->calls;
    if (weight == 0 && n->calls == 0)
      continue;
    g_array_set_size(path, 0);
    /* Up to the root. A profile read from a file has no cycle and no path deeper than
     * SXS_PROFILE_MAX_CALL_DEPTH (sxs_profile_read checks); the bound keeps any other model's
     * cycle from running forever. */
    for (guint32 p = i; p != G_MAXUINT32 && path->len < SXS_PROFILE_MAX_CALL_DEPTH; p = parent_of[p])
      g_array_append_val(path, frame_of[p]);
    guint depth = path->len;
    guint32 *frames = g_new(guint32, depth);
    for (guint j = 0; j < depth; j++)
      frames[j] = g_array_index(path, guint32, depth - 1 - j);
    group_add(&gf, frames, depth, weight, n->calls);
  }
  group_fill_finish(&gf, b->v);
}

/* Call trees of runtimes that timed their calls weigh nanoseconds, the others calls; merged into
 * one graph they must weigh the same thing: calls, when any tree is untimed. */
static void unify_call_units(SxsView *v) {
  gboolean any_untimed = FALSE;
  for (guint i = 0; i < v->groups->len; i++) {
    const SxsViewGroup *g = v->groups->pdata[i];
    any_untimed |= g->kind == SXS_VIEW_CALLS && g_str_equal(g->unit, "calls");
  }
  for (guint i = 0; any_untimed && i < v->groups->len; i++) {
    SxsViewGroup *g = v->groups->pdata[i];
    if (g->kind != SXS_VIEW_CALLS || g_str_equal(g->unit, "calls"))
      continue;
    g->unit = "calls";
    g->total = 0;
    for (guint s = 0; s < g->stacks->len; s++) {
      SxsViewStack *st = &g_array_index(g->stacks, SxsViewStack, s);
      st->weight = st->count;
      g->total = add(g->total, st->weight);
    }
    g_array_sort(g->stacks, compare_stacks);
  }
}

SxsView *sxs__view_new(const SxsProfileModel *m, const SxsViewFilter *filter) {
  SxsView *v = g_new0(SxsView, 1);
  v->model = m;
  v->frames = g_ptr_array_new_with_free_func(frame_free);
  v->groups = g_ptr_array_new_with_free_func(group_free);
  v->tags = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  v->runtime_id = filter && filter->runtime_id > 0 ? filter->runtime_id : 0;
  if (filter) {
    v->filter = *filter;
    v->filter.thread = g_strdup(filter->thread);
  }
  Builder b = {.v = v,
               .by_label = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
               .starts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
  for (guint i = 0; i < m->runtimes->len; i++) {
    const SxsRuntimeModel *r = m->runtimes->pdata[i];
    for (guint j = 0; j < r->functions->len; j++) {
      const SxsFunctionRecord *f = r->functions->pdata[j];
      if (f->name && f->file && f->line)
        g_hash_table_replace(b.starts, g_strdup_printf("%d %s", r->id, f->name), (gpointer)f);
    }
  }
  if (m->samples.enabled || (m->samples.stacks && m->samples.stacks->len)) {
    v->frequency = m->samples.frequency;
    v->sample_mode = m->samples.mode;
    v->period_ns = m->samples.frequency > 0 ? G_GUINT64_CONSTANT(1000000000) / (guint64)m->samples.frequency : 0;
    /* A hardware event's samples stand for events, not time. */
    if (sxs__samples_hardware(&m->samples)) {
      v->sample_event = m->samples.event;
      v->event_period = m->samples.event_period;
      v->period_ns = 0;
    }
  }
  add_samples(&b, filter);
  for (guint i = 0; i < m->runtimes->len; i++) {
    const SxsRuntimeModel *r = m->runtimes->pdata[i];
    if (!filter || filter->runtime_id <= 0 || filter->runtime_id == r->id)
      add_calls(&b, r);
  }
  add_events(&b, filter);
  add_profiles(&b, filter);
  g_hash_table_unref(b.by_label);
  g_hash_table_unref(b.starts);
  unify_call_units(v);
  return v;
}

void sxs__view_iter_init(SxsViewIter *it, const SxsView *v, SxsViewKind kind) {
  *it = (SxsViewIter){.view = v, .kind = kind};
}

const SxsViewGroup *sxs__view_iter_next_group(SxsViewIter *it) {
  while (it->next_group_index < it->view->groups->len) {
    const SxsViewGroup *g = it->view->groups->pdata[it->next_group_index++];
    if (it->kind == SXS_VIEW_N_KINDS || g->kind == it->kind) {
      it->group = g;
      it->next_stack_index = 0;
      return g;
    }
  }
  it->group = NULL;
  return NULL;
}

const SxsViewStack *sxs__view_iter_next_stack(SxsViewIter *it) {
  while (!it->group || it->next_stack_index >= it->group->stacks->len)
    if (!sxs__view_iter_next_group(it))
      return NULL;
  return &g_array_index(it->group->stacks, SxsViewStack, it->next_stack_index++);
}

static gboolean kind_has_stacks(const SxsView *v, SxsViewKind k) {
  SxsViewIter it;
  sxs__view_iter_init(&it, v, k);
  return sxs__view_iter_next_stack(&it) != NULL;
}

SxsViewKind sxs__view_resolve_kind(const SxsView *v, const SxsRenderOptions *o) {
  return o && o->kind < SXS_VIEW_N_KINDS ? o->kind : sxs__view_primary_kind(v);
}

SxsViewKind sxs__view_primary_kind(const SxsView *v) {
  for (int k = 0; k < SXS_VIEW_N_KINDS; k++)
    if (kind_has_stacks(v, (SxsViewKind)k))
      return (SxsViewKind)k;
  return SXS_VIEW_N_KINDS;
}

const char *sxs__view_kind_unit(const SxsView *v, SxsViewKind k) {
  switch (k) {
  case SXS_VIEW_SAMPLES: return "samples";
  case SXS_VIEW_CALLS:
    /* Nanoseconds when every traced runtime timed its calls, else call counts. */
    SxsViewIter it;
    sxs__view_iter_init(&it, v, SXS_VIEW_CALLS);
    for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));)
      if (g_str_equal(g->unit, "calls"))
        return "calls";
    return "nanoseconds";
  case SXS_VIEW_EVENTS: return "events";
  case SXS_VIEW_EXCEPTIONS:
  case SXS_VIEW_CONTENTION:
  case SXS_VIEW_ALLOCATIONS: return profile_unit(sxs__view_profile_of_kind(k));
  default: return "none";
  }
}

/* ---- Trees ---- */

/* Edges are keyed (parent << 32 | frame); GLib's g_int64_hash keeps only the low half, which
 * would put every edge into one frame's bucket whatever its parent. */
static guint edge_hash(gconstpointer key) {
  guint64 k = *(const guint64 *)key * G_GUINT64_CONSTANT(0x9E3779B97F4A7C15);
  return (guint)(k >> 32);
}

void sxs__view_tree_free(SxsViewTree *t) {
  if (!t)
    return;
  g_array_unref(t->nodes);
  g_free(t->children);
  g_free(t);
}

typedef struct {
  const SxsView *v;
  const SxsViewTree *t;
} ChildSort;

static int compare_children(gconstpointer a, gconstpointer b, gpointer data) {
  const ChildSort *cs = data;
  const SxsViewNode *x = &g_array_index(cs->t->nodes, SxsViewNode, *(const guint32 *)a);
  const SxsViewNode *y = &g_array_index(cs->t->nodes, SxsViewNode, *(const guint32 *)b);
  const SxsViewFrame *fx = cs->v->frames->pdata[x->frame], *fy = cs->v->frames->pdata[y->frame];
  return strcmp(fx->label, fy->label);
}

SxsViewTree *sxs__view_tree_new(const SxsView *v, SxsViewKind k, const SxsViewGroup *group) {
  SxsViewTree *t = g_new0(SxsViewTree, 1);
  t->nodes = g_array_new(FALSE, TRUE, sizeof(SxsViewNode));
  t->unit = group ? group->unit : sxs__view_kind_unit(v, k);
  SxsViewNode root = {.frame = G_MAXUINT32, .parent = G_MAXUINT32};
  g_array_append_val(t->nodes, root);
  /* (parent << 32 | frame) -> node */
  g_autoptr(GHashTable) edges = g_hash_table_new_full(edge_hash, g_int64_equal, g_free, NULL);
  SxsViewIter it;
  sxs__view_iter_init(&it, v, group ? group->kind : k);
  for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
    if (group && it.group != group)
      continue;
    guint32 at = 0;
    SxsViewNode *root = &g_array_index(t->nodes, SxsViewNode, 0);
    root->total = add(root->total, s->weight);
    for (guint d = 0; d < s->depth; d++) {
      gint64 key = ((gint64)at << 32) | s->frames[d];
      gpointer hit = g_hash_table_lookup(edges, &key);
      guint32 next;
      if (hit) {
        next = GPOINTER_TO_UINT(hit) - 1;
      } else {
        SxsViewNode n = {.frame = s->frames[d], .parent = at};
        g_array_append_val(t->nodes, n);
        next = t->nodes->len - 1;
        g_hash_table_insert(edges, g_memdup2(&key, sizeof key), GUINT_TO_POINTER(next + 1));
        g_array_index(t->nodes, SxsViewNode, at).n_children++;
      }
      at = next;
      SxsViewNode *node = &g_array_index(t->nodes, SxsViewNode, at);
      node->total = add(node->total, s->weight);
    }
    SxsViewNode *leaf = &g_array_index(t->nodes, SxsViewNode, at);
    leaf->self = add(leaf->self, s->weight);
  }
  /* Children grouped per parent, in label order. */
  guint n = t->nodes->len;
  t->children = g_new(guint32, MAX(n, 1));
  guint32 next = 0;
  for (guint i = 0; i < n; i++) {
    SxsViewNode *node = &g_array_index(t->nodes, SxsViewNode, i);
    node->first_child = next;
    next += node->n_children;
    node->n_children = 0;
  }
  for (guint i = 1; i < n; i++) {
    SxsViewNode *parent = &g_array_index(t->nodes, SxsViewNode, g_array_index(t->nodes, SxsViewNode, i).parent);
    t->children[parent->first_child + parent->n_children++] = i;
  }
  ChildSort cs = {v, t};
  for (guint i = 0; i < n; i++) {
    const SxsViewNode *node = &g_array_index(t->nodes, SxsViewNode, i);
    if (node->n_children > 1)
      g_qsort_with_data(t->children + node->first_child, node->n_children, sizeof(guint32), compare_children, &cs);
  }
  return t;
}

/* ---- Per-frame totals ---- */

static int compare_totals(gconstpointer a, gconstpointer b, gpointer data) {
  const SxsView *v = data;
  const SxsViewFrameTotal *x = a, *y = b;
  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp(((const SxsViewFrame *)v->frames->pdata[x->frame])->label,
                ((const SxsViewFrame *)v->frames->pdata[y->frame])->label);
}

GArray *sxs__view_frame_totals(const SxsView *v, SxsViewKind k, int runtime_id) {
  guint n = v->frames->len;
  g_autofree guint64 *self = g_new0(guint64, MAX(n, 1));
  g_autofree guint64 *total = g_new0(guint64, MAX(n, 1));
  g_autofree guint32 *seen = g_new0(guint32, MAX(n, 1)); /* stamp of the last stack that counted it */
  guint32 stamp = 0;
  SxsViewIter it;
  sxs__view_iter_init(&it, v, k);
  for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
    stamp++;
    for (guint d = 0; d < s->depth; d++) {
      guint32 f = s->frames[d];
      if (seen[f] != stamp) {
        seen[f] = stamp;
        total[f] = add(total[f], s->weight);
      }
    }
    if (s->depth > 0)
      self[s->frames[s->depth - 1]] = add(self[s->frames[s->depth - 1]], s->weight);
  }
  GArray *out = g_array_new(FALSE, FALSE, sizeof(SxsViewFrameTotal));
  for (guint f = 0; f < n; f++) {
    const SxsViewFrame *frame = v->frames->pdata[f];
    if (total[f] == 0 || (runtime_id >= 0 && frame->runtime_id != runtime_id))
      continue;
    SxsViewFrameTotal row = {.frame = f, .self = self[f], .total = total[f]};
    g_array_append_val(out, row);
  }
  g_array_sort_with_data(out, compare_totals, (gpointer)v);
  return out;
}

char *sxs__view_thread_rates(const SxsSamplesModel *sm, guint max) {
  GString *s = g_string_new(NULL);
  guint shown = 0;
  for (guint i = 0; sm->thread_rates && i < sm->thread_rates->len && shown < max; i++) {
    const SxsThreadRateModel *r = sm->thread_rates->pdata[i];
    if (r->cpu_ns == 0 || r->captures == 0)
      continue;
    g_string_append_printf(s, "%s%s %.1f Hz (%.2f s CPU, %" G_GUINT64_FORMAT " lost", shown ? ", " : "",
                           r->name ? r->name : "?", (double)r->captures * 1e9 / (double)r->cpu_ns,
                           (double)r->cpu_ns / 1e9, r->expiries > r->captures ? r->expiries - r->captures : 0);
    if (r->timer_ns > 0)
      g_string_append_printf(s, ", %.0f%% on a timer", 100.0 * (double)MIN(r->timer_ns, r->cpu_ns) / (double)r->cpu_ns);
    g_string_append_c(s, ')');
    shown++;
  }
  if (shown == 0) {
    g_string_free(s, TRUE);
    return NULL;
  }
  return g_string_free(s, FALSE);
}

char *sxs__view_duration(guint64 ns) {
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\u00b5s"}};
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (guint i = 0; i < G_N_ELEMENTS(units); i++) {
    double value = (double)ns / units[i].scale;
    if (value < 1)
      continue;
    g_ascii_formatd(buf, sizeof buf, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value);
    if (strchr(buf, '.') != NULL) { /* "1.50" -> "1.5", "1.00" -> "1" */
      char *end = buf + strlen(buf);
      while (end[-1] == '0')
        *--end = '\0';
      if (end[-1] == '.')
        end[-1] = '\0';
    }
    return g_strdup_printf("%s %s", buf, units[i].unit);
  }
  return g_strdup_printf("%" G_GUINT64_FORMAT " ns", ns);
}

char *sxs__view_sampling_rate(const SxsSamplesModel *sm) {
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "%d Hz", sm->frequency);
  if (sm->ticks == 0 || sm->duration_ns == 0) /* no tick, or a profile that did not say */
    return g_string_free(s, FALSE);
  g_string_append_printf(s, " asked, %.1f achieved, %" G_GUINT64_FORMAT " tick%s missed", sxs__samples_achieved_hz(sm),
                         sm->ticks_missed, sm->ticks_missed == 1 ? "" : "s");
  double per_tick = (double)sm->taken / (double)sm->ticks;
  if (g_strcmp0(sm->mode, "wall") == 0 && sm->threads_per_tick > 0)
    g_string_append_printf(s, ", up to %" G_GUINT64_FORMAT " threads a tick (%.1f on average)", sm->threads_per_tick,
                           per_tick);
  else
    g_string_append_printf(s, ", %.1f samples a tick on average", per_tick);
  guint64 dropped = 0;
  if (sm->dropped) {
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, sm->dropped);
    while (g_hash_table_iter_next(&it, NULL, &value))
      dropped = sxs__saturating_add(dropped, *(const guint64 *)value, SXS_PROFILE_MAX_COUNT);
  }
  g_string_append_printf(s, ", %" G_GUINT64_FORMAT " sample%s dropped", dropped, dropped == 1 ? "" : "s");
  return g_string_free(s, FALSE);
}

char *sxs__view_size_text(guint64 bytes) {
  /* Plain spaces (GLib's sizes put a no-break space before the unit). */
  if (bytes >= G_GUINT64_CONSTANT(1) << 30)
    return g_strdup_printf("%.1f GiB", (double)bytes / (double)(G_GUINT64_CONSTANT(1) << 30));
  if (bytes >= 1 << 20)
    return g_strdup_printf("%.1f MiB", (double)bytes / (double)(1 << 20));
  if (bytes >= 1 << 10)
    return g_strdup_printf("%.1f KiB", (double)bytes / (double)(1 << 10));
  return g_strdup_printf("%" G_GUINT64_FORMAT " B", bytes);
}
