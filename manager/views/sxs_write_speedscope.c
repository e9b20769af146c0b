/* The speedscope writer: a view as one speedscope file (https://www.speedscope.app), one profile per
 * group. It does not decide what a group holds (sxs_view does) nor where the file goes.
 *
 * Sample and event groups are speedscope "sampled" profiles: each distinct stack once, root first,
 * with its weight. A call group is a merged call tree with no timeline of its own, so it becomes an
 * "evented" profile laid out depth first: a node opens where its parent's previous child closed,
 * its children follow one after another, and it closes its own total later (the gap after the
 * last child is its self time):
 *
 *     Main (total 100)                                 O Main   @0
 *     +-- Work (40)     +-- Parse (30)    | self 30 |  O Work   @0    C Work  @40
 *     0               40              70          100  O Parse  @40   C Parse @70
 *                                                      C Main   @100
 *
 * So opens and closes nest like a stack and their times never go back, as speedscope requires.
 */
#include "sxs_view.h"

#include "sxs_json.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* A node of the call tree whose events are being written: where it opened and where its next child
 * opens (where the previous one closed). */
typedef struct {
  guint32 node;
  guint32 next_child;
  guint64 start;
  guint64 cursor;
} SpeedscopeOpen;

/* The value a stack of a sampled profile weighs in the profile's unit: samples become nanoseconds
 * when the sampler's period is known, so that speedscope shows times. */
static guint64 speedscope_sample_weight(const SxsView *v, const SxsViewGroup *g, const SxsViewStack *s) {
  if (g->kind == SXS_VIEW_SAMPLES && v->period_ns > 0)
    return sxs__saturating_mul(s->weight, v->period_ns, SXS_PROFILE_MAX_NS);
  /* A hardware event's samples: its count (speedscope has no unit for it: "none"). */
  if (g->kind == SXS_VIEW_SAMPLES && v->sample_event != NULL && v->event_period > 0)
    return sxs__saturating_mul(s->weight, v->event_period, SXS_PROFILE_MAX_NS);
  return s->weight;
}

static const char *speedscope_unit(const SxsView *v, const SxsViewGroup *g) {
  switch (g->kind) {
  case SXS_VIEW_SAMPLES: return v->period_ns > 0 ? "nanoseconds" : "none";
  case SXS_VIEW_CALLS: return g_strcmp0(g->unit, "nanoseconds") == 0 ? "nanoseconds" : "none";
  case SXS_VIEW_CONTENTION: return "nanoseconds";
  case SXS_VIEW_ALLOCATIONS: return "bytes";
  default: return "none";
  }
}

/* Does the group's timeline hold all of its samples (then they are written in time order, and
 * speedscope's "Time Order" view is the thread's timeline)? */
static gboolean speedscope_timed(const SxsViewGroup *g) {
  if (!g->timeline || g->kind != SXS_VIEW_SAMPLES)
    return FALSE;
  guint64 n = 0;
  for (guint i = 0; i < g->timeline->len; i++)
    n += g_array_index(g->timeline, SxsViewSample, i).weight;
  return n == g->total;
}

/* A sampled profile in time order: one sample per timeline sample. */
static void speedscope_write_timed(SxsJsonWriter *w, const SxsView *v, const SxsViewGroup *g) {
  guint64 end = 0;
  sxs__json_member_string(w, "type", "sampled");
  sxs__json_member_string(w, "name", g->name);
  sxs__json_member_string(w, "unit", speedscope_unit(v, g));
  sxs__json_key(w, "samples");
  sxs__json_begin_array(w);
  for (guint i = 0; i < g->timeline->len; i++) {
    const SxsViewStack *s = &g_array_index(g->stacks, SxsViewStack, g_array_index(g->timeline, SxsViewSample, i).stack);
    sxs__json_begin_array_inline(w);
    for (guint d = 0; d < s->depth; d++)
      sxs__json_uint(w, s->frames[d]);
    sxs__json_end_array(w);
  }
  sxs__json_end_array(w);
  sxs__json_key(w, "weights");
  sxs__json_begin_array_inline(w);
  for (guint i = 0; i < g->timeline->len; i++) {
    const SxsViewSample *ts = &g_array_index(g->timeline, SxsViewSample, i);
    SxsViewStack one = {.weight = ts->weight};
    guint64 weight = speedscope_sample_weight(v, g, &one);
    sxs__json_uint(w, weight);
    end = sxs__saturating_add(end, weight, SXS_PROFILE_MAX_NS);
  }
  sxs__json_end_array(w);
  sxs__json_member_uint(w, "startValue", 0);
  sxs__json_member_uint(w, "endValue", end);
}

static void speedscope_write_sampled(SxsJsonWriter *w, const SxsView *v, const SxsViewGroup *g) {
  guint64 end = 0;
  if (speedscope_timed(g)) {
    speedscope_write_timed(w, v, g);
    return;
  }

  sxs__json_member_string(w, "type", "sampled");
  sxs__json_member_string(w, "name", g->name);
  sxs__json_member_string(w, "unit", speedscope_unit(v, g));
  sxs__json_key(w, "samples");
  sxs__json_begin_array(w);
  for (guint i = 0; i < g->stacks->len; i++) {
    const SxsViewStack *s = &g_array_index(g->stacks, SxsViewStack, i);
    sxs__json_begin_array(w);
    for (guint d = 0; d < s->depth; d++)
      sxs__json_uint(w, s->frames[d]);
    sxs__json_end_array(w);
  }
  sxs__json_end_array(w);
  sxs__json_key(w, "weights");
  sxs__json_begin_array(w);
  for (guint i = 0; i < g->stacks->len; i++) {
    guint64 weight = speedscope_sample_weight(v, g, &g_array_index(g->stacks, SxsViewStack, i));
    sxs__json_uint(w, weight);
    end = sxs__saturating_add(end, weight, SXS_PROFILE_MAX_NS);
  }
  sxs__json_end_array(w);
  sxs__json_member_uint(w, "startValue", 0);
  sxs__json_member_uint(w, "endValue", end);
}

static void speedscope_event(SxsJsonWriter *w, const char *type, guint32 frame, guint64 at) {
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "type", type);
  sxs__json_member_uint(w, "frame", frame);
  sxs__json_member_uint(w, "at", at);
  sxs__json_end_object(w);
}

/* Writes the group's call tree as open and close events, depth first and without recursion (call
 * trees can be thousands of frames deep). Nodes that weigh nothing are left out: they would open
 * and close at the same instant and speedscope draws nothing for them. A node closes no earlier
 * than its last child, so the events nest even if a tree's totals were inconsistent. */
static void speedscope_write_evented(SxsJsonWriter *w, const SxsView *v, const SxsViewGroup *g) {
  g_autoptr(SxsViewTree) t = sxs__view_tree_new(v, SXS_VIEW_CALLS, g);
  g_autoptr(GArray) open = g_array_new(FALSE, FALSE, sizeof(SpeedscopeOpen));
  guint64 end = 0;

  sxs__json_member_string(w, "type", "evented");
  sxs__json_member_string(w, "name", g->name);
  sxs__json_member_string(w, "unit", speedscope_unit(v, g));
  sxs__json_key(w, "events");
  sxs__json_begin_array(w);
  if (t != NULL && t->nodes->len > 0) {
    SpeedscopeOpen root = {0, 0, 0, 0};
    g_array_append_val(open, root);
  }
  while (open->len > 0) {
    SpeedscopeOpen *top = &g_array_index(open, SpeedscopeOpen, open->len - 1);
    const SxsViewNode *n = &g_array_index(t->nodes, SxsViewNode, top->node);
    if (top->next_child < n->n_children) {
      guint32 child = t->children[n->first_child + top->next_child++];
      const SxsViewNode *c = &g_array_index(t->nodes, SxsViewNode, child);
      if (c->total == 0)
        continue;
      SpeedscopeOpen o = {child, 0, top->cursor, top->cursor};
      speedscope_event(w, "O", c->frame, o.start);
      g_array_append_val(open, o); /* may move the array: top is not used after this */
      continue;
    }
    guint64 close = MAX(sxs__saturating_add(top->start, n->total, SXS_PROFILE_MAX_NS), top->cursor);
    if (top->node != 0)
      speedscope_event(w, "C", n->frame, close);
    end = MAX(end, close);
    g_array_set_size(open, open->len - 1);
    if (open->len > 0) /* the next sibling opens where this node closed */
      g_array_index(open, SpeedscopeOpen, open->len - 1).cursor = close;
  }
  sxs__json_end_array(w);
  sxs__json_member_uint(w, "startValue", 0);
  sxs__json_member_uint(w, "endValue", end);
}

/* "app (pid 4242)", from what the model knows of the process. */
static char *speedscope_document_name(const SxsView *v) {
  const SxsProcessInfo *p = v->model != NULL ? v->model->process : NULL;
  if (p == NULL)
    return g_strdup("sxsprof profile");
  g_autofree char *program = sxs__process_program_name(p->executable, (const char *const *)p->argv);
  return g_strdup_printf("%s (pid %d)", program, p->pid);
}

/*
 * Renders every group with stacks as a speedscope profile, in the view's group order, and makes the
 * heaviest group of the primary kind the one speedscope opens. o->kind is not used: speedscope
 * shows several profiles in one file. NULL with *ret_why set when no group has a stack.
 * Context: any thread; allocates.
 */
char *sxs__write_speedscope(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why) {
  (void)o;
  SxsViewKind primary = v != NULL ? sxs__view_primary_kind(v) : SXS_VIEW_N_KINDS;
  if (primary == SXS_VIEW_N_KINDS) {
    if (ret_why != NULL)
      *ret_why = g_strdup("the profile holds no samples, traced calls or event stacks for speedscope to show");
    return NULL;
  }

  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  g_autofree char *name = speedscope_document_name(v);
  guint n_profiles = 0, active = 0;
  guint64 active_total = 0;
  gboolean have_active = FALSE;

  sxs__json_begin_object(w);
  sxs__json_member_string(w, "$schema", SPEEDSCOPE_SCHEMA);
  sxs__json_member_string(w, "exporter", "sxsprof");
  sxs__json_member_string(w, "name", name);
  sxs__json_key(w, "shared");
  sxs__json_begin_object(w);
  sxs__json_key(w, "frames");
  sxs__json_begin_array(w);
  for (guint i = 0; i < v->frames->len; i++) {
    const SxsViewFrame *f = g_ptr_array_index(v->frames, i);
    sxs__json_begin_object(w);
    /* A frame with a source file names it and its line (in a view by function, where the
     * function begins); the others name their module as their file. */
    g_autofree char *title = f->line ? sxs__view_frame_title(f, TRUE) : NULL;
    sxs__json_member_string(w, "name", title ? title : f->label);
    if (f->file != NULL) {
      sxs__json_member_string(w, "file", f->file);
      if (f->line || f->start_line)
        sxs__json_member_uint(w, "line", f->line ? f->line : f->start_line);
    } else if (f->module != NULL && f->module[0] != '\0') {
      sxs__json_member_string(w, "file", f->module);
    }
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);

  sxs__json_key(w, "profiles");
  sxs__json_begin_array(w);
  SxsViewIter it;
  sxs__view_iter_init(&it, v, SXS_VIEW_N_KINDS);
  for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));) {
    if (g->stacks->len == 0)
      continue;
    sxs__json_begin_object(w);
    if (g->kind == SXS_VIEW_CALLS)
      speedscope_write_evented(w, v, g);
    else
      speedscope_write_sampled(w, v, g);
    sxs__json_end_object(w);
    if (g->kind == primary && (!have_active || g->total > active_total)) {
      have_active = TRUE;
      active = n_profiles;
      active_total = g->total;
    }
    n_profiles++;
  }
  sxs__json_end_array(w);
  sxs__json_member_uint(w, "activeProfileIndex", active);
  sxs__json_end_object(w);

  if (!sxs__json_writer_complete(w)) {
    if (ret_why != NULL)
      *ret_why = g_strdup("internal error: the speedscope document is not well-formed JSON");
    return NULL;
  }
  return sxs__json_writer_steal(w, ret_len);
}
