/* sxs_timeline: cutting a profile to a window of its run, and finding its phases (see
 * sxs_timeline.h). */
#include "sxs_timeline.h"

#include <string.h>

/* What a cut keeps: a window of time, and one label or any (ANY_LABEL). */
#define ANY_LABEL G_MAXUINT
typedef struct {
  guint64 from, to;
  guint label;
} Cut;

static gboolean in_window(guint64 t, guint64 from, guint64 to) {
  return t >= from && t < to;
}

static gboolean label_kept(const Cut *c, guint label) {
  return c->label == ANY_LABEL || c->label == label;
}

/* Recounts one event profile's stacks from the events of kind in the cut; stacks with none go. */
static void slice_profile(SxsProfileModel *m, SxsProfileKind k, SxsTimelineEventKind kind, const Cut *c) {
  guint64 from = c->from, to = c->to;
  SxsEventProfileModel *p = &m->profiles[k];
  for (guint i = 0; i < p->stacks->len; i++) {
    SxsStackModel *s = p->stacks->pdata[i];
    s->count = 0;
    s->value = 0;
  }
  guint64 events = 0, value = 0;
  SxsVec *ev = m->timeline.events;
  for (guint i = 0; i < ev->len; i++) {
    SxsTimelineEvent *e = &sxs__vec_index(ev, SxsTimelineEvent, i);
    if (e->kind != kind || !in_window(e->start_us, from, to) || !label_kept(c, e->label))
      continue;
    events++;
    guint64 v = kind == SXS_TIMELINE_LOCK_WAIT ? e->dur_us * 1000 : kind == SXS_TIMELINE_ALLOCATION ? e->value : 0;
    value += v;
    if (e->stack) {
      /* An allocation sample stands for reason objects (at least one). */
      e->stack->count += kind == SXS_TIMELINE_ALLOCATION && e->reason > 1 ? (guint64)e->reason : 1;
      e->stack->value += v;
    }
  }
  p->events = events;
  p->value = value;
  p->unwalked = 0;
  for (guint i = p->stacks->len; i-- > 0;)
    if (((SxsStackModel *)p->stacks->pdata[i])->count == 0)
      g_ptr_array_remove_index(p->stacks, i);
  g_ptr_array_sort(p->stacks, sxs__stack_model_compare);
}

/* The cut itself (see sxs__timeline_slice), once its bounds are known to be good. */
static void cut(SxsProfileModel *m, const Cut *c) {
  SxsTimelineModel *t = &m->timeline;
  guint64 from_us = c->from, to_us = c->to;
  SxsSamplesModel *sm = &m->samples;
  for (guint i = 0; i < sm->stacks->len; i++)
    ((SxsStackModel *)sm->stacks->pdata[i])->count = 0;
  guint64 weight = 0, taken = 0;
  guint kept = 0;
  for (guint i = 0; i < t->samples->len; i++) {
    SxsTimelineSample s = sxs__vec_index(t->samples, SxsTimelineSample, i);
    /* A sample of no weight would keep a stack that counts nothing (and is removed). */
    if (!in_window(s.t_us, from_us, to_us) || s.weight == 0 || !label_kept(c, s.label))
      continue;
    s.stack->count += s.weight;
    weight += s.weight;
    taken++;
    sxs__vec_index(t->samples, SxsTimelineSample, kept++) = s;
  }
  sxs__vec_truncate(t->samples, kept);
  for (guint i = sm->stacks->len; i-- > 0;)
    if (((SxsStackModel *)sm->stacks->pdata[i])->count == 0)
      g_ptr_array_remove_index(sm->stacks, i);
  g_ptr_array_sort(sm->stacks, sxs__stack_model_compare);
  sm->weight = weight;
  sm->taken = taken;
  if (sm->duration_ns && c->label == ANY_LABEL) {
    guint64 end = MIN(to_us, t->end_us ? t->end_us + 1 : to_us);
    guint64 window_ns = end > from_us ? MIN(end - from_us, SXS_PROFILE_MAX_NS / 1000) * 1000 : 0;
    double share = sm->duration_ns > window_ns ? (double)window_ns / (double)sm->duration_ns : 1.0;
    sm->ticks = (guint64)((double)sm->ticks * share);
    sm->duration_ns = MIN(sm->duration_ns, window_ns);
  }

  slice_profile(m, SXS_PROFILE_EXCEPTIONS, SXS_TIMELINE_EXCEPTION, c);
  slice_profile(m, SXS_PROFILE_CONTENTION, SXS_TIMELINE_LOCK_WAIT, c);
  slice_profile(m, SXS_PROFILE_ALLOCATIONS, SXS_TIMELINE_ALLOCATION, c);
  /* Events left point at stacks still there: remove those outside after the recount. */
  kept = 0;
  for (guint i = 0; i < t->events->len; i++) {
    SxsTimelineEvent e = sxs__vec_index(t->events, SxsTimelineEvent, i);
    gboolean starts = in_window(e.start_us, from_us, to_us);
    if ((starts || (e.dur_us && e.start_us < to_us && e.start_us + e.dur_us > from_us)) && label_kept(c, e.label)) {
      /* A span that began before the window was not counted in it: its stack may have gone. */
      if (!starts)
        e.stack = NULL;
      sxs__vec_index(t->events, SxsTimelineEvent, kept++) = e;
    } else {
      g_free(e.name);
    }
  }
  /* The elements moved keep their names: shrink without the clear function. */
  sxs__vec_set_clear_func(t->events, NULL);
  sxs__vec_truncate(t->events, kept);
  sxs__vec_set_clear_func(t->events, sxs__timeline_event_clear);
  kept = 0;
  for (guint i = 0; i < t->seconds->len; i++) {
    SxsTimelineSecond s = sxs__vec_index(t->seconds, SxsTimelineSecond, i);
    /* Folded seconds have no labels: a label's cut has none. */
    if (c->label == ANY_LABEL && s.second * 1000000 + 999999 >= from_us && s.second * 1000000 < to_us)
      sxs__vec_index(t->seconds, SxsTimelineSecond, kept++) = s;
  }
  sxs__vec_truncate(t->seconds, kept);
  g_ptr_array_set_size(m->stacks, 0);
  for (guint i = 0; i < m->runtimes->len; i++) {
    SxsRuntimeModel *r = m->runtimes->pdata[i];
    g_ptr_array_set_size(r->call_tree, 0);
  }
}

gboolean sxs__timeline_slice(SxsProfileModel *m, guint64 from_us, guint64 to_us, char **ret_why) {
  SxsTimelineModel *t = &m->timeline;
  if (!t->present) {
    *ret_why = g_strdup("the profile has no timeline (it was written by an sxsprof before 0.9, or merged from "
                        "several processes)");
    return FALSE;
  }
  if (to_us <= from_us) {
    *ret_why = g_strdup("the window is empty: --to must come after --from");
    return FALSE;
  }
  if (t->detail_from_us && to_us <= t->detail_from_us) {
    *ret_why = g_strdup_printf("the window ends before %.3f s, where the profile's detail starts (older time is "
                               "kept as samples per second only: [timeline] window=)",
                               (double)t->detail_from_us / 1e6);
    return FALSE;
  }
  cut(m, &(Cut){.from = from_us, .to = to_us, .label = ANY_LABEL});
  return TRUE;
}

/* The index + 1 of a label in t->labels, 0 when it has none of that name. */
static guint label_find(const SxsTimelineModel *t, const char *label) {
  for (guint i = 0; i < t->labels->len; i++)
    if (g_strcmp0(t->labels->pdata[i], label) == 0)
      return i + 1;
  return 0;
}

gboolean sxs__timeline_slice_label(SxsProfileModel *m, const char *label, char **ret_why) {
  SxsTimelineModel *t = &m->timeline;
  if (!t->present || t->labels->len == 0) {
    *ret_why = g_strdup("the profile has no endpoint labels (record with --endpoints: an ASP.NET Core app on .NET 5 "
                        "or later)");
    return FALSE;
  }
  guint found = label_find(t, label);
  if (!found) {
    g_autoptr(GString) known = g_string_new(NULL);
    for (guint i = 0; i < t->labels->len; i++)
      g_string_append_printf(known, "%s\"%s\"", i ? ", " : "", (const char *)t->labels->pdata[i]);
    *ret_why = g_strdup_printf("no endpoint \"%s\" in the profile; it has %s", label, known->str);
    return FALSE;
  }
  cut(m, &(Cut){.from = 0, .to = G_MAXUINT64, .label = found});
  return TRUE;
}

static int compare_label_totals(gconstpointer a, gconstpointer b) {
  const SxsTimelineLabelTotals *x = a, *y = b;
  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
  return x->label < y->label ? -1 : x->label > y->label;
}

GArray *sxs__timeline_label_totals(const SxsProfileModel *m) {
  const SxsTimelineModel *t = &m->timeline;
  if (!t->present || t->labels->len == 0)
    return NULL;
  guint n = t->labels->len + 1;
  GArray *out = g_array_sized_new(FALSE, TRUE, sizeof(SxsTimelineLabelTotals), n);
  g_array_set_size(out, n);
  for (guint i = 0; i < n; i++) {
    SxsTimelineLabelTotals *l = &g_array_index(out, SxsTimelineLabelTotals, i);
    l->label = i;
    l->name = i ? t->labels->pdata[i - 1] : NULL;
  }
  for (guint i = 0; i < t->samples->len; i++) {
    const SxsTimelineSample *s = &sxs__vec_index(t->samples, SxsTimelineSample, i);
    if (s->label < n)
      g_array_index(out, SxsTimelineLabelTotals, s->label).samples += s->weight;
  }
  for (guint i = 0; i < t->events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(t->events, SxsTimelineEvent, i);
    if (e->label >= n)
      continue;
    SxsTimelineLabelTotals *l = &g_array_index(out, SxsTimelineLabelTotals, e->label);
    switch (e->kind) {
    case SXS_TIMELINE_REQUEST:
      l->requests++;
      l->request_us += e->dur_us;
      break;
    case SXS_TIMELINE_ALLOCATION: l->alloc_bytes += e->value; break;
    case SXS_TIMELINE_LOCK_WAIT:
      l->lock_waits++;
      l->lock_wait_us += e->dur_us;
      break;
    case SXS_TIMELINE_EXCEPTION: l->exceptions++; break;
    default: break;
    }
  }
  g_array_sort(out, compare_label_totals);
  return out;
}

static int compare_u64(gconstpointer a, gconstpointer b) {
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* The name of a stack's leaf: its innermost managed frame when it has one (what the program ran),
 * else its leaf. */
static const char *leaf_name(const SxsStackModel *s) {
  for (guint i = 0; i < s->frames->len; i++) {
    const SxsStackFrameModel *f = &g_array_index(s->frames, SxsStackFrameModel, i);
    if (f->managed && f->name)
      return f->name;
  }
  return s->frames->len ? g_array_index(s->frames, SxsStackFrameModel, 0).name : NULL;
}

/* The first sample at or after t (the samples are in time order). */
static guint first_at(const SxsVec *samples, guint64 t) {
  guint lo = 0, hi = samples->len;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (sxs__vec_index(samples, SxsTimelineSample, mid).t_us < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The top leaf of the samples in [from_us, to_us); its samples into *ret_n, all of them into
 * *ret_samples. */
static const char *top_of(const SxsProfileModel *m, guint64 from_us, guint64 to_us, guint64 *ret_n,
                          guint64 *ret_samples) {
  g_autoptr(GHashTable) counts = g_hash_table_new(g_str_hash, g_str_equal);
  const char *top = NULL;
  guint64 best = 0, all = 0;
  const SxsVec *samples = m->timeline.samples;
  for (guint i = first_at(samples, from_us); i < samples->len; i++) {
    const SxsTimelineSample *s = &sxs__vec_index(samples, SxsTimelineSample, i);
    if (s->t_us >= to_us)
      break;
    all += s->weight;
    const char *name = leaf_name(s->stack);
    if (!name)
      continue;
    guint64 n = GPOINTER_TO_SIZE(g_hash_table_lookup(counts, name)) + s->weight;
    g_hash_table_insert(counts, (gpointer)name, GSIZE_TO_POINTER(n));
    if (n > best) {
      best = n;
      top = name;
    }
  }
  *ret_n = best;
  *ret_samples = all;
  return top;
}

#define PHASES_MAX_STEPS 100000

static void phase_clear(gpointer p) {
  g_free(((SxsTimelinePhase *)p)->top);
}

GArray *sxs__timeline_phases(const SxsProfileModel *m, guint64 step_us, guint64 min_us) {
  const SxsTimelineModel *t = &m->timeline;
  if (!t->present || t->samples->len == 0 || step_us == 0)
    return NULL;
  /* From the first sample's step to the last sample; at most PHASES_MAX_STEPS steps (longer steps
   * for a long run). */
  guint64 first = sxs__vec_index(t->samples, SxsTimelineSample, 0).t_us;
  guint64 end = sxs__vec_index(t->samples, SxsTimelineSample, t->samples->len - 1).t_us + 1;
  if ((end - first) / step_us >= PHASES_MAX_STEPS)
    step_us = (end - first) / PHASES_MAX_STEPS + 1;
  guint64 start = first / step_us * step_us;
  guint n = (guint)((end - start + step_us - 1) / step_us);
  g_autofree guint64 *steps = g_new0(guint64, n + 1);
  g_autofree char **tops = g_new0(char *, n + 1);
  for (guint i = 0; i < t->samples->len; i++) {
    const SxsTimelineSample *s = &sxs__vec_index(t->samples, SxsTimelineSample, i);
    if (s->t_us >= start)
      steps[MIN((s->t_us - start) / step_us, n)] += s->weight;
  }
  g_autoptr(GArray) sorted = g_array_sized_new(FALSE, FALSE, sizeof(guint64), n);
  g_array_append_vals(sorted, steps, n);
  g_array_sort(sorted, compare_u64);
  guint64 p95 = n ? g_array_index(sorted, guint64, MIN(n - 1, (guint)((double)n * 0.95))) : 0;
  guint64 threshold = MAX(p95 / 5, 1);
  /* Each step's top leaf, for splitting busy stretches where the work changes. */
  gboolean *busy = g_new0(gboolean, n + 1);
  for (guint i = 0; i < n; i++) {
    busy[i] = steps[i] >= threshold;
    guint64 best, all;
    tops[i] = busy[i] ? (char *)top_of(m, start + i * step_us, start + (i + 1) * step_us, &best, &all) : NULL;
  }
  /* Stretches of equal busy-ness (and, busy, equal top), then short ones folded into the one before. */
  GArray *phases = g_array_new(FALSE, TRUE, sizeof(SxsTimelinePhase));
  for (guint i = 0; i < n;) {
    guint j = i + 1;
    while (j < n && busy[j] == busy[i] && (!busy[i] || g_strcmp0(tops[j], tops[i]) == 0))
      j++;
    SxsTimelinePhase p = {.start_us = start + i * step_us, .end_us = MIN(start + j * step_us, end), .busy = busy[i]};
    SxsTimelinePhase *last = phases->len ? &g_array_index(phases, SxsTimelinePhase, phases->len - 1) : NULL;
    if (last && (p.end_us - p.start_us < min_us || (last->busy == p.busy && !p.busy)))
      last->end_us = p.end_us;
    else
      g_array_append_val(phases, p);
    i = j;
  }
  g_free(busy);
  /* Neighbours alike after the folding are one. */
  guint kept = 0;
  for (guint i = 0; i < phases->len; i++) {
    SxsTimelinePhase p = g_array_index(phases, SxsTimelinePhase, i);
    guint64 best, all;
    const char *top = top_of(m, p.start_us, p.end_us, &best, &all);
    if (kept) {
      SxsTimelinePhase *last = &g_array_index(phases, SxsTimelinePhase, kept - 1);
      if (last->busy == p.busy && (!p.busy || g_strcmp0(last->top, top) == 0)) {
        last->end_us = p.end_us;
        last->samples += all;
        if (top && g_strcmp0(last->top, top) == 0)
          last->top_samples += best;
        continue;
      }
    }
    p.samples = all;
    p.top = top ? g_strdup(top) : NULL;
    p.top_samples = best;
    g_array_index(phases, SxsTimelinePhase, kept++) = p;
  }
  g_array_set_size(phases, kept);
  g_array_set_clear_func(phases, phase_clear);
  return phases;
}
