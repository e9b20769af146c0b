/* The timeline read back (manager/profile/): the profile's "timeline" written and read again (per
 * thread deltas and stack indices, weights, events with their stacks, folded seconds), cutting a
 * profile to a window (samples, event profiles, events, seconds), the run's phases, and the spool's
 * timeline records (P, V, Q) rebuilt into the same model. */
#include <string.h>

#include <glib.h>

#include "sxs_profile_read.h"
#include "sxs_spool.h"
#include "sxs_timeline.h"

static SxsStackModel *stack(const char *event, uint32_t thread, const char *leaf, const char *caller) {
  SxsStackModel *s = sxs__stack_model_new(event, thread);
  const char *names[2] = {leaf, caller};
  for (int i = 0; i < 2; i++) {
    SxsStackFrameModel f = {.managed = TRUE,
                            .runtime_id = 1,
                            .name = g_strdup(names[i]),
                            .module = g_strdup("app.dll"),
                            .sp = 0x1000 + (uintptr_t)i * 0x10};
    g_array_append_val(s->frames, f);
  }
  return s;
}

static void add_sample(SxsProfileModel *m, guint64 t_us, SxsStackModel *s, guint32 weight) {
  SxsTimelineSample ts = {.t_us = t_us, .stack = s, .weight = weight};
  sxs__vec_append_val(m->timeline.samples, ts);
  s->count += weight;
}

static void add_event(SxsProfileModel *m, SxsTimelineEventKind kind, uint32_t thread, guint64 start, guint64 dur,
                      guint64 value, int reason, const char *name, SxsStackModel *s) {
  SxsTimelineEvent e = {.kind = kind,
                        .runtime_id = 1,
                        .thread = thread,
                        .start_us = start,
                        .dur_us = dur,
                        .value = value,
                        .reason = reason,
                        .name = g_strdup(name),
                        .stack = s};
  sxs__vec_append_val(m->timeline.events, e);
}

/* Two threads: 7 samples of Alpha at 0..0.6 s on 10, 5 of Beta (one weighing 3) at 2..2.4 s on 11;
 * a GC and its pause at 1 s, an exception at 0.3 s and at 2.1 s, a lock wait at 2.2 s, an
 * allocation of 4096 bytes (2 objects) at 0.5 s; one folded second. */
static SxsProfileModel *model(void) {
  SxsProfileModel *m = sxs__profile_model_new();
  m->process = g_new0(SxsProcessInfo, 1);
  m->process->pid = 10;
  m->process->argv = g_new0(char *, 1);
  m->samples.enabled = TRUE;
  m->samples.frequency = 10;
  SxsStackModel *alpha = stack("sample", 10, "App.Alpha", "App.Main");
  SxsStackModel *beta = stack("sample", 11, "App.Beta", "App.Worker");
  alpha->thread_name = g_strdup("main");
  g_ptr_array_add(m->samples.stacks, alpha);
  g_ptr_array_add(m->samples.stacks, beta);
  for (int i = 0; i < 7; i++)
    add_sample(m, (guint64)i * 100000, alpha, 1);
  for (int i = 0; i < 5; i++)
    add_sample(m, 2000000 + (guint64)i * 100000, beta, i == 2 ? 3 : 1);
  SxsStackModel *exc = stack("exceptions", 10, "App.Throw", "App.Main");
  exc->runtime_id = 1;
  exc->type = g_strdup("System.InvalidOperationException");
  g_ptr_array_add(m->profiles[SXS_PROFILE_EXCEPTIONS].stacks, exc);
  SxsStackModel *wait = stack("contention", 11, "App.Lock", "App.Worker");
  wait->runtime_id = 1;
  g_ptr_array_add(m->profiles[SXS_PROFILE_CONTENTION].stacks, wait);
  SxsStackModel *alloc = stack("allocations", 10, "App.Alloc", "App.Main");
  alloc->runtime_id = 1;
  alloc->type = g_strdup("System.Byte[]");
  g_ptr_array_add(m->profiles[SXS_PROFILE_ALLOCATIONS].stacks, alloc);
  exc->count = 2;
  wait->count = 1;
  wait->value = 50000000;
  alloc->count = 2;
  alloc->value = 4096;
  m->profiles[SXS_PROFILE_EXCEPTIONS].events = 2;
  m->profiles[SXS_PROFILE_CONTENTION].events = 1;
  m->profiles[SXS_PROFILE_ALLOCATIONS].events = 1;
  SxsTimelineModel *t = &m->timeline;
  t->present = TRUE;
  t->cap_bytes = 64 << 20;
  t->end_us = 2500000;
  t->monotonic_start_us = 123456789;
  add_event(m, SXS_TIMELINE_EXCEPTION, 10, 300000, 0, 0, 0, "System.InvalidOperationException", exc);
  add_event(m, SXS_TIMELINE_ALLOCATION, 10, 500000, 0, 4096, 2, "System.Byte[]", alloc);
  add_event(m, SXS_TIMELINE_GC, 12, 1000000, 2000, 2, 1, NULL, NULL);
  add_event(m, SXS_TIMELINE_PAUSE, 12, 999000, 3500, 0, 0, NULL, NULL);
  add_event(m, SXS_TIMELINE_EXCEPTION, 11, 2100000, 0, 0, 0, "System.InvalidOperationException", exc);
  add_event(m, SXS_TIMELINE_LOCK_WAIT, 11, 2200000, 50000, 0, 0, NULL, wait);
  SxsTimelineSecond sec = {.second = 0, .thread = 10, .samples = 4};
  sxs__vec_append_val(t->seconds, sec);
  return m;
}

static SxsProfileModel *round_trip(const SxsProfileModel *m) {
  gsize len = 0;
  g_autofree char *json = sxs__profile_render_json(m, &len);
  g_autoptr(GError) error = NULL;
  SxsProfileModel *back = sxs__profile_read(json, len, &error);
  g_assert_no_error(error);
  return back;
}

static const char *leaf(const SxsStackModel *s) {
  return g_array_index(s->frames, SxsStackFrameModel, 0).name;
}

static void test_round_trip(void) {
  g_autoptr(SxsProfileModel) m = model();
  g_autoptr(SxsProfileModel) back = round_trip(m);
  const SxsTimelineModel *t = &back->timeline;
  g_assert_true(t->present);
  g_assert_cmpuint(t->end_us, ==, 2500000);
  g_assert_cmpuint(t->monotonic_start_us, ==, 123456789);
  g_assert_cmpuint(t->samples->len, ==, 12);
  /* By time: Alpha's seven, then Beta's five, the third weighing 3. */
  for (guint i = 0; i < t->samples->len; i++) {
    const SxsTimelineSample *s = &sxs__vec_index(t->samples, SxsTimelineSample, i);
    g_assert_cmpuint(s->t_us, ==, i < 7 ? i * 100000 : 2000000 + (i - 7) * 100000);
    g_assert_cmpstr(leaf(s->stack), ==, i < 7 ? "App.Alpha" : "App.Beta");
    g_assert_cmpuint(s->stack->thread, ==, i < 7 ? 10 : 11);
    g_assert_cmpuint(s->weight, ==, i == 9 ? 3 : 1);
    g_assert_true(g_ptr_array_find(back->samples.stacks, s->stack, NULL));
  }
  g_assert_cmpuint(t->events->len, ==, 6);
  /* By start: the pause (0.999 s) comes before the GC (1 s). */
  static const SxsTimelineEventKind kinds[] = {SXS_TIMELINE_EXCEPTION, SXS_TIMELINE_ALLOCATION, SXS_TIMELINE_PAUSE,
                                               SXS_TIMELINE_GC,        SXS_TIMELINE_EXCEPTION,  SXS_TIMELINE_LOCK_WAIT};
  for (guint i = 0; i < t->events->len; i++)
    g_assert_cmpint(sxs__vec_index(t->events, SxsTimelineEvent, i).kind, ==, kinds[i]);
  const SxsTimelineEvent *gc = &sxs__vec_index(t->events, SxsTimelineEvent, 3);
  g_assert_cmpuint(gc->dur_us, ==, 2000);
  g_assert_cmpuint(gc->value, ==, 2);
  g_assert_cmpint(gc->reason, ==, 1);
  g_assert_null(gc->stack);
  const SxsTimelineEvent *exc = &sxs__vec_index(t->events, SxsTimelineEvent, 0);
  g_assert_cmpstr(exc->name, ==, "System.InvalidOperationException");
  g_assert_true(exc->stack == back->profiles[SXS_PROFILE_EXCEPTIONS].stacks->pdata[0]);
  const SxsTimelineEvent *wait = &sxs__vec_index(t->events, SxsTimelineEvent, 5);
  g_assert_true(wait->stack == back->profiles[SXS_PROFILE_CONTENTION].stacks->pdata[0]);
  g_assert_cmpuint(wait->dur_us, ==, 50000);
  g_assert_cmpuint(t->seconds->len, ==, 1);
  g_assert_cmpuint(sxs__vec_index(t->seconds, SxsTimelineSecond, 0).samples, ==, 4);
}

/* A stack index past the stacks is an error, not a crash. */
static void test_bad_index(void) {
  g_autoptr(SxsProfileModel) m = model();
  gsize len = 0;
  g_autofree char *json = sxs__profile_render_json(m, &len);
  char *at = strstr(json, "\"s\":");
  g_assert_nonnull(at);
  at = strchr(at, '[');
  g_assert_nonnull(at);
  g_assert_true(at[1] == '0' || at[1] == '1');
  at[1] = '7';
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) back = sxs__profile_read(json, len, &error);
  g_assert_null(back);
  g_assert_nonnull(strstr(error->message, "out of range"));
}

static void test_slice(void) {
  g_autoptr(SxsProfileModel) m = model();
  g_autofree char *why = NULL;
  /* [0.2 s, 2.15 s): Alpha's samples at 0.2 .. 0.6 (5), Beta's at 2.0 and 2.1 (2); the first
   * exception and the second, the allocation, the GC and its pause; not the lock wait. */
  g_assert_true(sxs__timeline_slice(m, 200000, 2150000, &why));
  g_assert_cmpuint(m->samples.stacks->len, ==, 2);
  SxsStackModel *a = m->samples.stacks->pdata[0], *b = m->samples.stacks->pdata[1];
  g_assert_cmpstr(leaf(a), ==, "App.Alpha");
  g_assert_cmpuint(a->count, ==, 5);
  g_assert_cmpstr(leaf(b), ==, "App.Beta");
  g_assert_cmpuint(b->count, ==, 2);
  g_assert_cmpuint(m->samples.weight, ==, 7);
  g_assert_cmpuint(m->timeline.samples->len, ==, 7);
  SxsEventProfileModel *exc = &m->profiles[SXS_PROFILE_EXCEPTIONS];
  g_assert_cmpuint(exc->events, ==, 2);
  g_assert_cmpuint(((SxsStackModel *)exc->stacks->pdata[0])->count, ==, 2);
  SxsEventProfileModel *alloc = &m->profiles[SXS_PROFILE_ALLOCATIONS];
  g_assert_cmpuint(alloc->value, ==, 4096);
  g_assert_cmpuint(((SxsStackModel *)alloc->stacks->pdata[0])->count, ==, 2);
  g_assert_cmpuint(m->profiles[SXS_PROFILE_CONTENTION].stacks->len, ==, 0);
  g_assert_cmpuint(m->profiles[SXS_PROFILE_CONTENTION].events, ==, 0);
  g_assert_cmpuint(m->timeline.events->len, ==, 5);
  g_assert_cmpuint(m->timeline.seconds->len, ==, 1);
  /* The cut profile writes and reads back as it is. */
  g_autoptr(SxsProfileModel) back = round_trip(m);
  g_assert_cmpuint(back->timeline.samples->len, ==, 7);
  /* Cut again to Beta's weighty sample alone. */
  g_assert_true(sxs__timeline_slice(back, 2200000, 2300000, &why));
  g_assert_cmpuint(back->samples.stacks->len, ==, 0);
  g_autoptr(SxsProfileModel) m2 = model();
  g_assert_true(sxs__timeline_slice(m2, 2200000, 2300000, &why));
  g_assert_cmpuint(m2->samples.stacks->len, ==, 1);
  g_assert_cmpuint(((SxsStackModel *)m2->samples.stacks->pdata[0])->count, ==, 3);
  g_assert_cmpuint(((SxsStackModel *)m2->profiles[SXS_PROFILE_CONTENTION].stacks->pdata[0])->value, ==, 50000000);
}

/* A span that began before the window and ends in it stays on the timeline, without its stack (the
 * window's profile does not count it, and its stack goes when nothing else does). */
static void test_slice_span(void) {
  g_autoptr(SxsProfileModel) m = model();
  g_autofree char *why = NULL;
  g_assert_true(sxs__timeline_slice(m, 2220000, 2300000, &why));
  g_assert_cmpuint(m->profiles[SXS_PROFILE_CONTENTION].stacks->len, ==, 0);
  guint waits = 0;
  for (guint i = 0; i < m->timeline.events->len; i++) {
    const SxsTimelineEvent *e = &sxs__vec_index(m->timeline.events, SxsTimelineEvent, i);
    if (e->kind == SXS_TIMELINE_LOCK_WAIT) {
      waits++;
      g_assert_null(e->stack);
    }
  }
  g_assert_cmpuint(waits, ==, 1);
  g_autoptr(SxsProfileModel) back = round_trip(m);
  g_assert_cmpuint(back->timeline.events->len, ==, m->timeline.events->len);
}

static void test_slice_refused(void) {
  g_autoptr(SxsProfileModel) m = model();
  m->timeline.detail_from_us = 1000000;
  g_autofree char *why = NULL;
  g_assert_false(sxs__timeline_slice(m, 0, 900000, &why));
  g_assert_nonnull(strstr(why, "where the profile's detail starts"));
  g_assert_cmpuint(m->timeline.samples->len, ==, 12);
  g_clear_pointer(&why, g_free);
  g_assert_false(sxs__timeline_slice(m, 500, 500, &why));
  g_clear_pointer(&why, g_free);
  g_autoptr(SxsProfileModel) none = sxs__profile_model_new();
  g_assert_false(sxs__timeline_slice(none, 0, 10, &why));
  g_assert_nonnull(strstr(why, "no timeline"));
}

/* 1 s of Alpha (10 samples a 100 ms), 1 s of nothing, 1 s of Beta: three phases. */
static void test_phases(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  SxsStackModel *alpha = stack("sample", 10, "App.Alpha", "App.Main");
  SxsStackModel *beta = stack("sample", 10, "App.Beta", "App.Main");
  g_ptr_array_add(m->samples.stacks, alpha);
  g_ptr_array_add(m->samples.stacks, beta);
  m->timeline.present = TRUE;
  for (guint64 t = 0; t < 1000000; t += 10000)
    add_sample(m, t, alpha, 1);
  for (guint64 t = 2000000; t < 3000000; t += 10000)
    add_sample(m, t, beta, 1);
  m->timeline.end_us = 3000000;
  g_autoptr(GArray) phases = sxs__timeline_phases(m, 100000, 300000);
  g_assert_nonnull(phases);
  g_assert_cmpuint(phases->len, ==, 3);
  const SxsTimelinePhase *p = &g_array_index(phases, SxsTimelinePhase, 0);
  g_assert_true(p->busy);
  g_assert_cmpuint(p->start_us, ==, 0);
  g_assert_cmpuint(p->end_us, ==, 1000000);
  g_assert_cmpstr(p->top, ==, "App.Alpha");
  g_assert_cmpuint(p->samples, ==, 100);
  p = &g_array_index(phases, SxsTimelinePhase, 1);
  g_assert_false(p->busy);
  g_assert_cmpuint(p->end_us, ==, 2000000);
  p = &g_array_index(phases, SxsTimelinePhase, 2);
  g_assert_true(p->busy);
  g_assert_cmpstr(p->top, ==, "App.Beta");
  g_assert_cmpuint(p->top_samples, ==, 100);
}

/* The spool's timeline records: samples (deltas that may step back, weights), events with and
 * without a stack, folded seconds; a torn batch's records are left out. */
static void test_spool(void) {
  g_autoptr(SxsProfileModel) sk = sxs__profile_model_new();
  sk->process = g_new0(SxsProcessInfo, 1);
  sk->process->pid = 7;
  sk->process->argv = g_new0(char *, 1);
  sk->samples.enabled = TRUE;
  sk->timeline.present = TRUE;
  sk->timeline.window_us = 60000000;
  gsize len = 0;
  g_autofree char *doc = sxs__profile_render_json(sk, &len);
  g_autoptr(GString) s = g_string_new(SXS_SPOOL_MAGIC);
  g_string_append(s, "B\t1\n");
  g_string_append_printf(s, "S\t%" G_GSIZE_FORMAT "\n%s\n", len, doc);
  g_string_append(s, "N\t1\tm\t1\tApp.Alpha\tapp.dll\t-\t0\n");
  g_string_append(s, "N\t2\tm\t1\tApp.Throw\tapp.dll\t-\t0\n");
  g_string_append(s, "Q\t0\t7\t40\n");
  g_string_append(s, "P\t1000000\t1:0,1:100000*2,3:-50000\n");
  g_string_append(s, "V\tgc\t1\t9\t1200000\t1500\t2\t1\t0\t-\n");
  g_string_append(s, "V\texception\t1\t7\t1100000\t0\t0\t0\t2\tSystem.Exception\n");
  g_string_append(s, "K\t1\tsample\t7\tmain\t1:0:1000\n");
  g_string_append(s, "K\t3\tsample\t8\t-\t1:0:2000\n");
  g_string_append(s, "K\t2\texceptions\t7\t-\t2:0:1000\t1\tSystem.Exception\n");
  g_string_append(s, "W\t1\t3\n");
  g_string_append(s, "W\t3\t1\n");
  g_string_append(s, "W\t2\t1\t0\n");
  g_string_append(s, "E\t1\n");
  g_string_append(s, "B\t2\n");
  g_string_append(s, "P\t5000000\t1:0\n"); /* torn: no E */
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsSpoolRead) r = sxs__spool_read("x.spool", s->str, s->len, &error);
  g_assert_no_error(error);
  const SxsTimelineModel *t = &r->model->timeline;
  g_assert_true(t->present);
  g_assert_cmpuint(t->window_us, ==, 60000000);
  g_assert_cmpuint(t->samples->len, ==, 3);
  /* 1.0 s (stack 1), 1.05 s (stack 3: stepped back 50 ms), 1.1 s (stack 1, weight 2). */
  const SxsTimelineSample *a = &sxs__vec_index(t->samples, SxsTimelineSample, 0);
  const SxsTimelineSample *b = &sxs__vec_index(t->samples, SxsTimelineSample, 1);
  const SxsTimelineSample *c = &sxs__vec_index(t->samples, SxsTimelineSample, 2);
  g_assert_cmpuint(a->t_us, ==, 1000000);
  g_assert_cmpuint(a->stack->thread, ==, 7);
  g_assert_cmpuint(b->t_us, ==, 1050000);
  g_assert_cmpuint(b->stack->thread, ==, 8);
  g_assert_cmpuint(c->t_us, ==, 1100000);
  g_assert_cmpuint(c->weight, ==, 2);
  g_assert_true(a->stack == c->stack);
  g_assert_cmpuint(t->events->len, ==, 2);
  const SxsTimelineEvent *e0 = &sxs__vec_index(t->events, SxsTimelineEvent, 0);
  const SxsTimelineEvent *e1 = &sxs__vec_index(t->events, SxsTimelineEvent, 1);
  g_assert_cmpint(e0->kind, ==, SXS_TIMELINE_EXCEPTION);
  g_assert_cmpstr(e0->name, ==, "System.Exception");
  g_assert_true(e0->stack == r->model->profiles[SXS_PROFILE_EXCEPTIONS].stacks->pdata[0]);
  g_assert_cmpint(e1->kind, ==, SXS_TIMELINE_GC);
  g_assert_cmpuint(e1->dur_us, ==, 1500);
  g_assert_cmpuint(e1->value, ==, 2);
  g_assert_null(e1->stack);
  g_assert_cmpuint(t->seconds->len, ==, 1);
  g_assert_cmpuint(t->end_us, ==, 1201500);
  /* And it renders and reads back with it. */
  g_autoptr(SxsProfileModel) back = round_trip(r->model);
  g_assert_cmpuint(back->timeline.samples->len, ==, 3);
}

/* The model with endpoint labels: Alpha's samples at 0.1 .. 0.5 s are "GET /a/{id}" (label 1), the
 * others none; Beta's at 2.0 and 2.1 s (one weighing 1, one 3 at 2.2 s) are "POST /b" (label 2);
 * the allocation is label 1's, the lock wait label 2's; a request event each. */
static SxsProfileModel *labelled_model(void) {
  SxsProfileModel *m = model();
  SxsTimelineModel *t = &m->timeline;
  g_ptr_array_add(t->labels, g_strdup("GET /a/{id}"));
  g_ptr_array_add(t->labels, g_strdup("POST /b"));
  for (guint i = 0; i < t->samples->len; i++) {
    SxsTimelineSample *s = &sxs__vec_index(t->samples, SxsTimelineSample, i);
    s->label = s->t_us >= 100000 && s->t_us <= 500000 ? 1 : s->t_us >= 2000000 && s->t_us <= 2200000 ? 2 : 0;
  }
  for (guint i = 0; i < t->events->len; i++) {
    SxsTimelineEvent *e = &sxs__vec_index(t->events, SxsTimelineEvent, i);
    e->label = e->kind == SXS_TIMELINE_ALLOCATION ? 1 : e->kind == SXS_TIMELINE_LOCK_WAIT ? 2 : 0;
  }
  add_event(m, SXS_TIMELINE_REQUEST, 10, 90000, 420000, 0, 0, NULL, NULL);
  sxs__vec_index(t->events, SxsTimelineEvent, t->events->len - 1).label = 1;
  add_event(m, SXS_TIMELINE_REQUEST, 11, 1990000, 300000, 0, 0, NULL, NULL);
  sxs__vec_index(t->events, SxsTimelineEvent, t->events->len - 1).label = 2;
  sxs__vec_sort(t->events, sxs__timeline_event_compare);
  return m;
}

static guint64 label_weight(const SxsTimelineModel *t, guint label) {
  guint64 w = 0;
  for (guint i = 0; i < t->samples->len; i++) {
    const SxsTimelineSample *s = &sxs__vec_index(t->samples, SxsTimelineSample, i);
    w += s->label == label ? s->weight : 0;
  }
  return w;
}

static void test_labels(void) {
  g_autoptr(SxsProfileModel) m = labelled_model();
  /* Written and read back with their labels. */
  g_autoptr(SxsProfileModel) back = round_trip(m);
  const SxsTimelineModel *t = &back->timeline;
  g_assert_cmpuint(t->labels->len, ==, 2);
  g_assert_cmpstr(t->labels->pdata[0], ==, "GET /a/{id}");
  g_assert_cmpstr(t->labels->pdata[1], ==, "POST /b");
  g_assert_cmpuint(label_weight(t, 1), ==, 5);
  g_assert_cmpuint(label_weight(t, 2), ==, 5);
  g_assert_cmpuint(label_weight(t, 0), ==, 4);
  /* The totals by label: samples, requests, bytes, waits. */
  g_autoptr(GArray) totals = sxs__timeline_label_totals(back);
  g_assert_nonnull(totals);
  g_assert_cmpuint(totals->len, ==, 3);
  gboolean seen[3] = {FALSE};
  for (guint i = 0; i < totals->len; i++) {
    const SxsTimelineLabelTotals *l = &g_array_index(totals, SxsTimelineLabelTotals, i);
    seen[l->label] = TRUE;
    g_assert_cmpuint(l->samples, ==, l->label == 0 ? 4 : 5);
    g_assert_cmpuint(l->requests, ==, l->label == 0 ? 0 : 1);
    g_assert_cmpuint(l->alloc_bytes, ==, l->label == 1 ? 4096 : 0);
    g_assert_cmpuint(l->lock_wait_us, ==, l->label == 2 ? 50000 : 0);
    g_assert_cmpstr(l->name, ==, l->label == 0 ? NULL : t->labels->pdata[l->label - 1]);
  }
  g_assert_true(seen[0] && seen[1] && seen[2]);
  /* Cut to POST /b: Beta's labelled samples (weight 5 in 3), its lock wait; not the allocation, the
   * exceptions, the GC. */
  g_autofree char *why = NULL;
  g_assert_true(sxs__timeline_slice_label(back, "POST /b", &why));
  g_assert_cmpuint(back->samples.stacks->len, ==, 1);
  g_assert_cmpstr(leaf(back->samples.stacks->pdata[0]), ==, "App.Beta");
  g_assert_cmpuint(((SxsStackModel *)back->samples.stacks->pdata[0])->count, ==, 5);
  g_assert_cmpuint(back->samples.weight, ==, 5);
  g_assert_cmpuint(back->profiles[SXS_PROFILE_CONTENTION].events, ==, 1);
  g_assert_cmpuint(back->profiles[SXS_PROFILE_ALLOCATIONS].events, ==, 0);
  g_assert_cmpuint(back->profiles[SXS_PROFILE_EXCEPTIONS].events, ==, 0);
  for (guint i = 0; i < back->timeline.events->len; i++)
    g_assert_cmpuint(sxs__vec_index(back->timeline.events, SxsTimelineEvent, i).label, ==, 2);
  g_assert_cmpuint(back->timeline.events->len, ==, 2);
  g_assert_cmpuint(back->timeline.seconds->len, ==, 0);
  /* An endpoint the profile does not have is refused, naming those it has. */
  g_autoptr(SxsProfileModel) m2 = labelled_model();
  g_clear_pointer(&why, g_free);
  g_assert_false(sxs__timeline_slice_label(m2, "GET /c", &why));
  g_assert_nonnull(strstr(why, "\"GET /a/{id}\", \"POST /b\""));
  g_assert_cmpuint(m2->timeline.samples->len, ==, 12);
  /* A profile without labels says how to get them. */
  g_autoptr(SxsProfileModel) m3 = model();
  g_clear_pointer(&why, g_free);
  g_assert_false(sxs__timeline_slice_label(m3, "GET /a/{id}", &why));
  g_assert_nonnull(strstr(why, "--endpoints"));
  g_assert_null(sxs__timeline_label_totals(m3));
}

/* The spool's labels: L records name them, P samples carry @label, V events a last field. */
static void test_spool_labels(void) {
  g_autoptr(GString) s = g_string_new(SXS_SPOOL_MAGIC);
  g_autoptr(SxsProfileModel) skel = sxs__profile_model_new();
  skel->process = g_new0(SxsProcessInfo, 1);
  skel->process->pid = 7;
  skel->process->argv = g_new0(char *, 1);
  skel->samples.enabled = TRUE;
  skel->timeline.present = TRUE;
  gsize len = 0;
  g_autofree char *json = sxs__profile_render_json(skel, &len);
  g_string_append(s, "B\t1\n");
  g_string_append_printf(s, "S\t%" G_GSIZE_FORMAT "\n%s\n", len, json);
  g_string_append(s, "N\t1\tm\t1\tApp.Main\tapp.dll\n");
  g_string_append(s, "L\t1\tGET /orders/{id}\n");
  g_string_append(s, "L\t2\tPOST /pay\n");
  g_string_append(s, "P\t1000\t1:0@2,1:10*3@1,1:10,1:10@9\n");
  g_string_append(s, "V\tlock-wait\t1\t7\t1005\t20\t0\t0\t0\t-\t2\n");
  g_string_append(s, "V\trequest\t1\t7\t900\t200\t0\t0\t0\t-\t1\n");
  g_string_append(s, "K\t1\tsample\t7\tmain\t1:0:1000\n");
  g_string_append(s, "W\t1\t6\n");
  g_string_append(s, "E\t1\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsSpoolRead) r = sxs__spool_read("x.spool", s->str, s->len, &error);
  g_assert_no_error(error);
  const SxsTimelineModel *t = &r->model->timeline;
  g_assert_cmpuint(t->labels->len, ==, 2);
  g_assert_cmpstr(t->labels->pdata[1], ==, "POST /pay");
  g_assert_cmpuint(t->samples->len, ==, 4);
  static const guint labels[] = {2, 1, 0, 0}; /* @9 names no label: none */
  static const guint weights[] = {1, 3, 1, 1};
  for (guint i = 0; i < 4; i++) {
    g_assert_cmpuint(sxs__vec_index(t->samples, SxsTimelineSample, i).label, ==, labels[i]);
    g_assert_cmpuint(sxs__vec_index(t->samples, SxsTimelineSample, i).weight, ==, weights[i]);
  }
  g_assert_cmpuint(t->events->len, ==, 2);
  g_assert_cmpint(sxs__vec_index(t->events, SxsTimelineEvent, 0).kind, ==, SXS_TIMELINE_REQUEST);
  g_assert_cmpuint(sxs__vec_index(t->events, SxsTimelineEvent, 0).label, ==, 1);
  g_assert_cmpuint(sxs__vec_index(t->events, SxsTimelineEvent, 1).label, ==, 2);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/timeline/labels", test_labels);
  g_test_add_func("/timeline/spool-labels", test_spool_labels);
  g_test_add_func("/timeline/round-trip", test_round_trip);
  g_test_add_func("/timeline/bad-index", test_bad_index);
  g_test_add_func("/timeline/slice", test_slice);
  g_test_add_func("/timeline/slice-span", test_slice_span);
  g_test_add_func("/timeline/slice-refused", test_slice_refused);
  g_test_add_func("/timeline/phases", test_phases);
  g_test_add_func("/timeline/spool", test_spool);
  return g_test_run();
}
