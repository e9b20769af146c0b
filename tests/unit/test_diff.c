/* The diff model (manager/views/sxs_diff.c) and its writers on synthetic profiles: names matched
 * without their runtime tag, native frames by module and symbol whatever the address,
 * compiler-generated ordinals normalized (or not, --exact-names), the noise rule's numbers, shares
 * and absolute weights, per frame and per node totals, the two-column folded file, the summary's
 * tables, the SVG's colours, and event profiles (allocations by type and stack). */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "sxs_diff.h"
#include "sxs_view.h"

static void add_frame(SxsStackModel *s, gboolean managed, int runtime_id, const char *name, const char *module,
                      guintptr ip) {
  SxsStackFrameModel f = {.managed = managed,
                          .runtime_id = managed ? runtime_id : 0,
                          .name = g_strdup(name),
                          .module = g_strdup(module),
                          .ip = ip};
  g_array_append_val(s->frames, f);
}

static SxsProfileModel *model_new(const char *version, int runtime_id) {
  SxsProfileModel *m = sxs__profile_model_new();
  m->process = g_new0(SxsProcessInfo, 1);
  m->process->pid = 1;
  SxsRuntimeModel *r = sxs__runtime_model_new();
  r->id = runtime_id;
  r->status = SXS_RUNTIME_PROFILING;
  r->version = g_strdup(version);
  g_ptr_array_add(m->runtimes, r);
  m->samples.enabled = TRUE;
  m->samples.frequency = 100;
  m->samples.mode = g_strdup("cpu");
  return m;
}

/* A sample stack, leaf first: leaf <- App.Main <- libc.so.6!__libc_start_main (+off). */
static SxsStackModel *sample(SxsProfileModel *m, int rt, const char *leaf, guint64 count, guintptr libc_off) {
  SxsStackModel *s = sxs__stack_model_new(NULL, 100);
  s->count = count;
  if (leaf[0] == '!') {
    /* a native leaf: "!module!symbol+0xNN" or "!module+0xNN" */
    const char *name = leaf + 1;
    g_autofree char *module = g_strndup(name, strcspn(name, "!+"));
    add_frame(s, FALSE, 0, name, module, 0x7f0000000000 + libc_off);
  } else {
    add_frame(s, TRUE, rt, leaf, "App.dll", 0x7e0000001000);
  }
  add_frame(s, TRUE, rt, "App.Main", "App.dll", 0x7e0000002000);
  g_autofree char *libc = g_strdup_printf("libc.so.6!__libc_start_main+0x%x", (unsigned)libc_off);
  add_frame(s, FALSE, 0, libc, "/lib/x86_64-linux-gnu/libc.so.6", 0x7f0000001000 + libc_off);
  g_ptr_array_add(m->samples.stacks, s);
  return s;
}

static const SxsDiffFrameTotal *frame_total(const SxsDiff *d, GArray *totals, const char *key) {
  for (guint i = 0; i < totals->len; i++) {
    const SxsDiffFrameTotal *t = &g_array_index(totals, SxsDiffFrameTotal, i);
    if (g_str_equal(((const SxsDiffFrame *)d->frames->pdata[t->frame])->key, key))
      return t;
  }
  return NULL;
}

/* Base: 10.0 as rt1, Work 700 / Other 300, a closure numbered 12_0; new: 8.0 as rt2, Work 300 /
 * Other 700, the same closure numbered 3_1, libc at other offsets. */
static void two_models(SxsProfileModel **ret_base, SxsProfileModel **ret_new) {
  SxsProfileModel *b = model_new("10.0.1", 1), *n = model_new("8.0.11", 2);
  sample(b, 1, "App.Work", 690, 0x10);
  sample(b, 1, "App.Other", 300, 0x10);
  sample(b, 1, "App.<>c__DisplayClass12_0.<Run>b__12_0", 10, 0x10);
  sample(n, 2, "App.Work", 290, 0x20);
  sample(n, 2, "App.Other", 700, 0x24);
  sample(n, 2, "App.<>c__DisplayClass3_1.<Run>b__3_1", 10, 0x20);
  *ret_base = b;
  *ret_new = n;
}

static void test_normalize(void) {
  static const char *const cases[][2] = {
      {"App.<>c__DisplayClass12_0.<Work>b__0", "App.<>c__DisplayClass#.<Work>b__#"},
      {"App.<>c.<Main>b__12_0", "App.<>c.<Main>b__#"},
      {"App.<Run>d__5.MoveNext", "App.<Run>d__#.MoveNext"},
      {"App.Program.<<Main>$>g__Local|0_0", "App.Program.<<Main>$>g__Local|#"},
      {"App.<>c.<>9__12_0", "App.<>c.<>9__#"},
      {"App.Program.Work2", "App.Program.Work2"},
      {"App.Vector3.Dot_1", "App.Vector3.Dot_1"},
      {"App.<Main>$", "App.<Main>$"},
      {"Lib.Box<T>.Run<int>", "Lib.Box<T>.Run<int>"},
      {"", ""},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *got = sxs__diff_normalize_name(cases[i][0]);
    g_assert_cmpstr(got, ==, cases[i][1]);
  }
}

static void test_noise(void) {
  /* Shares: 700 of 1000 against 300 of 1000: p = 0.5, se = sqrt(0.25 * 0.002) = 0.02236. */
  guint64 w[2] = {700, 300}, W[2] = {1000, 1000};
  SxsDiffChange c = sxs__diff_noise(w, w, W, W, FALSE);
  g_assert_cmpfloat_with_epsilon(c.before, 0.7, 1e-12);
  g_assert_cmpfloat_with_epsilon(c.after, 0.3, 1e-12);
  g_assert_cmpfloat_with_epsilon(c.change, -0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon(c.error, sqrt(0.25 * 0.002), 1e-12);
  g_assert_true(c.beyond);
  /* 10 of 1000 against 13 of 1000: se = sqrt(0.0115 * 0.9885 * 0.002) = 0.00477; 0.003 is noise. */
  guint64 small[2] = {10, 13};
  c = sxs__diff_noise(small, small, W, W, FALSE);
  g_assert_cmpfloat_with_epsilon(c.error, sqrt(0.0115 * 0.9885 * 0.002), 1e-12);
  g_assert_false(c.beyond);
  /* Just past 3 errors, and just under: 100 against 100 + k of 10000 each. */
  guint64 big[2] = {10000, 10000};
  guint64 at[2] = {100, 147};
  c = sxs__diff_noise(at, at, big, big, FALSE);
  g_assert_cmpfloat(fabs(c.change), >, 3 * c.error);
  g_assert_true(c.beyond);
  guint64 under[2] = {100, 146};
  c = sxs__diff_noise(under, under, big, big, FALSE);
  g_assert_cmpfloat(fabs(c.change), <, 3 * c.error);
  g_assert_false(c.beyond);
  /* Absolute: 100 against 140 samples: se = sqrt(240) = 15.49; 40 < 46.5 is noise, 50 is not. */
  guint64 a[2] = {100, 140};
  c = sxs__diff_noise(a, a, big, big, TRUE);
  g_assert_cmpfloat_with_epsilon(c.change, 40, 1e-9);
  g_assert_cmpfloat_with_epsilon(c.error, sqrt(240), 1e-9);
  g_assert_false(c.beyond);
  guint64 a2[2] = {100, 150};
  g_assert_true(sxs__diff_noise(a2, a2, big, big, TRUE).beyond);
  /* Weights that are not counts (bytes): the error scales with the frame's bytes per event over
   * the whole's: 10 events of 1000 bytes among 1000 events of 100 bytes. */
  guint64 bytes[2] = {10000, 10000}, events[2] = {10, 10}, Wb[2] = {100000, 100000}, Nb[2] = {1000, 1000};
  c = sxs__diff_noise(bytes, events, Wb, Nb, FALSE);
  g_assert_cmpfloat_with_epsilon(c.change, 0, 1e-12);
  g_assert_cmpfloat_with_epsilon(c.error, sqrt(0.01 * 0.99 * 0.002) * 10, 1e-12);
  g_assert_false(c.beyond);
  /* Nothing changed: never beyond. */
  guint64 same[2] = {5, 5};
  g_assert_false(sxs__diff_noise(same, same, big, big, FALSE).beyond);
}

static void test_match(void) {
  SxsProfileModel *bm, *nm;
  two_models(&bm, &nm);
  g_autoptr(SxsView) bv = sxs__view_new(bm, NULL);
  g_autoptr(SxsView) nv = sxs__view_new(nm, NULL);
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_N_KINDS, NULL);
  g_assert_cmpint(d->kind, ==, SXS_VIEW_SAMPLES);
  g_assert_cmpstr(d->unit, ==, "samples");
  g_assert_cmpuint(d->total[0], ==, 1000);
  g_assert_cmpuint(d->total[1], ==, 1000);
  /* rt1 10.0 and rt2 8.0 meet; libc at two offsets and two module paths is one frame; the closure
   * is one whatever its ordinals: 5 frames, 3 frame sequences, each once per runtime. */
  g_assert_cmpuint(d->frames->len, ==, 5);
  g_assert_cmpuint(d->stacks->len, ==, 6);
  for (int id = 1; id <= 2; id++) {
    g_autoptr(SxsDiff) r = sxs__diff_restrict(d, id);
    g_assert_cmpuint(r->stacks->len, ==, 3);
    g_assert_true(r->frames == d->frames);
    g_assert_cmpuint(r->total[0], ==, id == 1 ? 1000 : 0);
    g_assert_cmpuint(r->total[1], ==, id == 2 ? 1000 : 0);
  }
  g_autoptr(GArray) totals = sxs__diff_frame_totals(d);
  const SxsDiffFrameTotal *work = frame_total(d, totals, "App.Work");
  const SxsDiffFrameTotal *other = frame_total(d, totals, "App.Other");
  const SxsDiffFrameTotal *libc = frame_total(d, totals, "[native] libc.so.6!__libc_start_main");
  const SxsDiffFrameTotal *closure = frame_total(d, totals, "App.<>c__DisplayClass#.<Run>b__#");
  g_assert_nonnull(work);
  g_assert_nonnull(other);
  g_assert_nonnull(libc);
  g_assert_nonnull(closure);
  g_assert_cmpuint(work->self[0], ==, 690);
  g_assert_cmpuint(work->self[1], ==, 290);
  g_assert_cmpfloat_with_epsilon(work->self_change.change, -0.4, 1e-12);
  g_assert_true(work->self_change.beyond);
  g_assert_cmpfloat_with_epsilon(other->self_change.change, 0.4, 1e-12);
  g_assert_true(other->self_change.beyond);
  g_assert_cmpuint(libc->total[0], ==, 1000);
  g_assert_cmpuint(libc->total[1], ==, 1000);
  g_assert_cmpuint(libc->self[0] + libc->self[1], ==, 0);
  g_assert_false(libc->total_change.beyond);
  g_assert_cmpuint(closure->self[0], ==, 10);
  g_assert_cmpuint(closure->self[1], ==, 10);
  g_assert_false(closure->self_change.beyond);

  /* --exact-names: the two closures are two frames, one gone and one new. */
  SxsDiffOptions exact = {.exact_names = TRUE};
  g_autoptr(SxsDiff) e = sxs__diff_new(bv, nv, SXS_VIEW_SAMPLES, &exact);
  g_assert_cmpuint(e->frames->len, ==, 6);
  g_autoptr(GArray) et = sxs__diff_frame_totals(e);
  const SxsDiffFrameTotal *old = frame_total(e, et, "App.<>c__DisplayClass12_0.<Run>b__12_0");
  const SxsDiffFrameTotal *fresh = frame_total(e, et, "App.<>c__DisplayClass3_1.<Run>b__3_1");
  g_assert_nonnull(old);
  g_assert_nonnull(fresh);
  g_assert_cmpuint(old->self[1], ==, 0);
  g_assert_cmpuint(fresh->self[0], ==, 0);

  /* --absolute: weights, not shares. */
  SxsDiffOptions absolute = {.absolute = TRUE};
  g_autoptr(SxsDiff) a = sxs__diff_new(bv, nv, SXS_VIEW_SAMPLES, &absolute);
  g_autoptr(GArray) at = sxs__diff_frame_totals(a);
  g_assert_cmpfloat_with_epsilon(frame_total(a, at, "App.Work")->self_change.change, -400, 1e-9);

  /* The tree: root 1000/1000, libc -> Main -> {closure, Other, Work} sorted by key. */
  g_autoptr(SxsDiffTree) t = sxs__diff_tree_new(d);
  const SxsDiffNode *root = &g_array_index(t->nodes, SxsDiffNode, 0);
  g_assert_cmpuint(root->total[0], ==, 1000);
  g_assert_cmpuint(root->n_children, ==, 1);
  const SxsDiffNode *lib = &g_array_index(t->nodes, SxsDiffNode, t->children[root->first_child]);
  const SxsDiffNode *main_node = &g_array_index(t->nodes, SxsDiffNode, t->children[lib->first_child]);
  g_assert_cmpstr(((SxsDiffFrame *)d->frames->pdata[main_node->frame])->key, ==, "App.Main");
  g_assert_cmpuint(main_node->n_children, ==, 3);
  const char *expect[] = {"App.<>c__DisplayClass#.<Run>b__#", "App.Other", "App.Work"};
  guint64 expect_new[] = {10, 700, 290};
  for (guint i = 0; i < 3; i++) {
    const SxsDiffNode *c = &g_array_index(t->nodes, SxsDiffNode, t->children[main_node->first_child + i]);
    g_assert_cmpstr(((SxsDiffFrame *)d->frames->pdata[c->frame])->key, ==, expect[i]);
    g_assert_cmpuint(c->self[1], ==, expect_new[i]);
  }
  sxs__profile_model_free(bm);
  sxs__profile_model_free(nm);
}

static void test_native_match(void) {
  SxsProfileModel *b = model_new("10.0.1", 1), *n = model_new("10.0.1", 1);
  sample(b, 1, "!libfoo.so!compute+0x10", 60, 0x10);
  sample(b, 1, "!libfoo.so+0x1234", 40, 0x10); /* no symbol */
  sample(n, 1, "!libfoo.so!compute+0x99", 30, 0x30);
  sample(n, 1, "!libfoo.so+0x5678", 70, 0x30); /* another address, no symbol either */
  g_autoptr(SxsView) bv = sxs__view_new(b, NULL);
  g_autoptr(SxsView) nv = sxs__view_new(n, NULL);
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_SAMPLES, NULL);
  g_autoptr(GArray) totals = sxs__diff_frame_totals(d);
  const SxsDiffFrameTotal *compute = frame_total(d, totals, "[native] libfoo.so!compute");
  const SxsDiffFrameTotal *unknown = frame_total(d, totals, "[native] libfoo.so!?");
  g_assert_nonnull(compute);
  g_assert_nonnull(unknown);
  g_assert_cmpuint(compute->self[0], ==, 60);
  g_assert_cmpuint(compute->self[1], ==, 30);
  g_assert_cmpuint(unknown->self[0], ==, 40);
  g_assert_cmpuint(unknown->self[1], ==, 70);
  sxs__profile_model_free(b);
  sxs__profile_model_free(n);
}

static void test_folded_and_summary(void) {
  SxsProfileModel *bm, *nm;
  two_models(&bm, &nm);
  g_autoptr(SxsView) bv = sxs__view_new(bm, NULL);
  g_autoptr(SxsView) nv = sxs__view_new(nm, NULL);
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_SAMPLES, NULL);
  gsize len = 0;
  g_autofree char *folded = sxs__diff_write_folded(d, &len, NULL);
  g_assert_cmpuint(len, ==, strlen(folded));
  g_assert_cmpstr(folded, ==,
                  "[native] libc.so.6!__libc_start_main;App.Main;App.<>c__DisplayClass#.<Run>b__# 10 10\n"
                  "[native] libc.so.6!__libc_start_main;App.Main;App.Other 300 700\n"
                  "[native] libc.so.6!__libc_start_main;App.Main;App.Work 690 290\n");
  SxsDiffRenderOptions o = {.name = {"a.json", "b.json"}, .top = 10, .note = "pprof: go tool pprof -diff_base x y"};
  g_autofree char *summary = sxs__diff_write_summary(d, &o, &len, NULL);
  g_assert_nonnull(strstr(summary, "diff of samples: base a.json (1000 samples), new b.json (1000 samples)\n"));
  g_assert_nonnull(strstr(summary, "  self growths beyond noise: 1\n"));
  g_assert_nonnull(strstr(summary, "     30.0%      70.0%   +40.0 pt ±6.7   App.Other\n"));
  g_assert_nonnull(strstr(summary, "  self shrinks beyond noise: 1\n"));
  g_assert_nonnull(strstr(summary, "     69.0%      29.0%   -40.0 pt ±6.7   App.Work\n"));
  /* The closure, Main and libc did not change at all: not "within noise" either. */
  g_assert_null(strstr(summary, "within noise:"));
  g_assert_true(g_str_has_suffix(summary, "  pprof: go tool pprof -diff_base x y\n"));
  sxs__profile_model_free(bm);
  sxs__profile_model_free(nm);
}

/* The SVG: NEW's widths (BASE's negated), colours by the sign of the self change. */
static void test_svg_colours(void) {
  SxsProfileModel *bm, *nm;
  two_models(&bm, &nm);
  g_autoptr(SxsView) bv = sxs__view_new(bm, NULL);
  g_autoptr(SxsView) nv = sxs__view_new(nm, NULL);
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_SAMPLES, NULL);
  for (int negated = 0; negated < 2; negated++) {
    SxsDiffRenderOptions o = {.negated = negated};
    gsize len = 0;
    g_autofree char *svg = sxs__diff_write_svg(d, &o, &len, NULL);
    g_assert_nonnull(svg);
    /* Other grew (+0.4): red in NEW's graph, blue in the negated one; Work the other way. */
    const char *other = strstr(svg, "data-name=\"App.Other\"");
    const char *work = strstr(svg, "data-name=\"App.Work\"");
    g_assert_nonnull(other);
    g_assert_nonnull(work);
    g_assert_nonnull(strstr(other, "data-change=\"0.4\""));
    const char *of = strstr(other, "fill=\"#"), *wf = strstr(work, "fill=\"#");
    g_assert_true(g_str_has_prefix(of, negated ? "fill=\"#2626ff\"" : "fill=\"#ff2626\""));
    g_assert_true(g_str_has_prefix(wf, negated ? "fill=\"#ff2626\"" : "fill=\"#2626ff\""));
    /* Widths: NEW's 700 of 1000 for Other, BASE's 300 in the negated graph. */
    g_autofree char *width = g_strdup_printf("width=\"%.2f\"", 1180.0 * (negated ? 0.3 : 0.7));
    g_assert_nonnull(strstr(other, width));
    g_assert_nonnull(strstr(svg, "sxsSearch"));
  }
  sxs__profile_model_free(bm);
  sxs__profile_model_free(nm);
}

/* Allocations: by type (the leaf) and stack, in bytes, the noise from the samples the bytes stand for. */
static void test_allocations(void) {
  SxsProfileModel *m[2] = {model_new("10.0.1", 1), model_new("10.0.1", 1)};
  /* Byte[] then Small, in samples of SXS_DIFF_ALLOCATION_SAMPLE bytes */
  guint64 bytes[2][2] = {{80 * SXS_DIFF_ALLOCATION_SAMPLE, 20 * SXS_DIFF_ALLOCATION_SAMPLE},
                         {20 * SXS_DIFF_ALLOCATION_SAMPLE, 80 * SXS_DIFF_ALLOCATION_SAMPLE}};
  for (int side = 0; side < 2; side++)
    for (int t = 0; t < 2; t++) {
      SxsStackModel *s = sxs__stack_model_new("allocations", 100);
      s->runtime_id = 1;
      s->type = g_strdup(t == 0 ? "System.Byte[]" : "App.Small");
      s->count = bytes[side][t] / (t == 0 ? 65560 : 32); /* upscaled objects */
      s->value = bytes[side][t];
      add_frame(s, TRUE, 1, t == 0 ? "App.Big" : "App.Tiny", "App.dll", 0x1000);
      add_frame(s, TRUE, 1, "App.Main", "App.dll", 0x2000);
      g_ptr_array_add(m[side]->profiles[SXS_PROFILE_ALLOCATIONS].stacks, s);
      m[side]->profiles[SXS_PROFILE_ALLOCATIONS].enabled = TRUE;
    }
  g_autoptr(SxsView) bv = sxs__view_new(m[0], NULL);
  g_autoptr(SxsView) nv = sxs__view_new(m[1], NULL);
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_ALLOCATIONS, NULL);
  g_assert_cmpstr(d->unit, ==, "bytes");
  g_assert_cmpuint(d->total[0], ==, 100 * SXS_DIFF_ALLOCATION_SAMPLE);
  g_assert_cmpuint(d->total_count[0], ==, 100); /* samples, not objects */
  g_autoptr(GArray) totals = sxs__diff_frame_totals(d);
  const SxsDiffFrameTotal *big = frame_total(d, totals, "System.Byte[]");
  const SxsDiffFrameTotal *small = frame_total(d, totals, "App.Small");
  g_assert_nonnull(big);
  g_assert_nonnull(small);
  g_assert_cmpfloat_with_epsilon(big->self_change.change, -0.6, 1e-12);
  g_assert_cmpfloat_with_epsilon(small->self_change.change, 0.6, 1e-12);
  g_assert_true(small->self_change.beyond);
  /* Byte[]: 80 + 20 samples of 200: p = 0.5, se = sqrt(0.25 * (1/100 + 1/100)). */
  g_assert_cmpfloat_with_epsilon(big->self_change.error, sqrt(0.25 * 0.02), 1e-12);
  g_assert_true(big->self_change.beyond);
  g_assert_nonnull(frame_total(d, totals, "App.Big"));
  sxs__profile_model_free(m[0]);
  sxs__profile_model_free(m[1]);
}

/* Contention: delay in nanoseconds over few waits: a wait three times as long is within noise when
 * it is two waits against two (the error scales with the delay per wait). */
static void test_contention(void) {
  SxsProfileModel *m[2] = {model_new("10.0.1", 1), model_new("10.0.1", 1)};
  guint64 delay[2][2] = {{500000000, 500000000}, {1500000000, 500000000}}; /* Contend, Other */
  for (int side = 0; side < 2; side++)
    for (int t = 0; t < 2; t++) {
      SxsStackModel *s = sxs__stack_model_new("contention", 100);
      s->runtime_id = 1;
      s->count = 2;
      s->value = delay[side][t];
      add_frame(s, TRUE, 1, t == 0 ? "App.Locks.Contend" : "App.Locks.Other", "App.dll", 0x1000);
      g_ptr_array_add(m[side]->profiles[SXS_PROFILE_CONTENTION].stacks, s);
      m[side]->profiles[SXS_PROFILE_CONTENTION].enabled = TRUE;
    }
  g_autoptr(SxsView) bv = sxs__view_new(m[0], NULL);
  g_autoptr(SxsView) nv = sxs__view_new(m[1], NULL);
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_CONTENTION, NULL);
  g_assert_cmpstr(d->unit, ==, "nanoseconds");
  g_assert_cmpuint(d->total_count[1], ==, 4);
  g_autoptr(GArray) totals = sxs__diff_frame_totals(d);
  const SxsDiffFrameTotal *contend = frame_total(d, totals, "App.Locks.Contend");
  g_assert_nonnull(contend);
  g_assert_cmpfloat_with_epsilon(contend->self_change.change, 0.25, 1e-12);
  /* p = 4 / 8, se = sqrt(0.25 * (1/4 + 1/4)) scaled by 5e8 ns a wait over 3.75e8 overall. */
  g_assert_cmpfloat_with_epsilon(contend->self_change.error, sqrt(0.125) * 5e8 / 3.75e8, 1e-12);
  g_assert_false(contend->self_change.beyond);
  sxs__profile_model_free(m[0]);
  sxs__profile_model_free(m[1]);
}

/* --lines: a managed frame is its name and (File.cs:line): the line that grew is told from its
 * neighbour in the same function. */
static void test_lines(void) {
  SxsProfileModel *m[2] = {model_new("10.0.1", 1), model_new("10.0.1", 1)};
  guint64 counts[2][2] = {{600, 400}, {200, 800}}; /* lines 10 and 11 of App.Work */
  for (int side = 0; side < 2; side++)
    for (guint line = 10; line <= 11; line++) {
      SxsStackModel *s = sample(m[side], 1, "App.Work", counts[side][line - 10], 0x10);
      SxsStackFrameModel *leaf = &g_array_index(s->frames, SxsStackFrameModel, 0);
      leaf->file = g_strdup("/src/App/Program.cs");
      leaf->line = line;
    }
  SxsViewFilter by_line = {.by_line = TRUE};
  g_autoptr(SxsView) bv = sxs__view_new(m[0], &by_line);
  g_autoptr(SxsView) nv = sxs__view_new(m[1], &by_line);
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_SAMPLES, NULL);
  g_autoptr(GArray) totals = sxs__diff_frame_totals(d);
  const SxsDiffFrameTotal *l10 = frame_total(d, totals, "App.Work (Program.cs:10)");
  const SxsDiffFrameTotal *l11 = frame_total(d, totals, "App.Work (Program.cs:11)");
  g_assert_nonnull(l10);
  g_assert_nonnull(l11);
  g_assert_cmpfloat_with_epsilon(l10->self_change.change, -0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon(l11->self_change.change, 0.4, 1e-12);
  SxsDiffRenderOptions o = {.top = 10};
  g_autofree char *summary = sxs__diff_write_summary(d, &o, NULL, NULL);
  g_assert_nonnull(strstr(summary, "     40.0%      80.0%   +40.0 pt ±6.6   App.Work (Program.cs:11)\n"));
  g_assert_nonnull(strstr(summary, "     60.0%      20.0%   -40.0 pt ±6.6   App.Work (Program.cs:10)\n"));
  sxs__profile_model_free(m[0]);
  sxs__profile_model_free(m[1]);
}

/* A restricted diff's summary: one runtime's part of two profiles of two runtimes. */
static void test_per_runtime(void) {
  SxsProfileModel *m[2] = {model_new("10.0.1", 1), model_new("10.0.1", 1)};
  for (int side = 0; side < 2; side++) {
    SxsRuntimeModel *r = sxs__runtime_model_new();
    r->id = 2;
    r->status = SXS_RUNTIME_PROFILING;
    r->version = g_strdup("8.0.11");
    g_ptr_array_add(m[side]->runtimes, r);
    sample(m[side], 1, "App.Work", 500, 0x10);              /* runtime 1: unchanged */
    sample(m[side], 2, "App.Work", side ? 900 : 100, 0x10); /* runtime 2: nine times as much */
  }
  g_autoptr(SxsView) bv = sxs__view_new(m[0], NULL);
  g_autoptr(SxsView) nv = sxs__view_new(m[1], NULL);
  SxsDiffOptions absolute = {.absolute = TRUE};
  g_autoptr(SxsDiff) d = sxs__diff_new(bv, nv, SXS_VIEW_SAMPLES, &absolute);
  g_autoptr(SxsDiff) r1 = sxs__diff_restrict(d, 1);
  g_autoptr(SxsDiff) r2 = sxs__diff_restrict(d, 2);
  SxsDiffRenderOptions o = {.top = 10};
  g_autofree char *s1 = sxs__diff_write_summary(r1, &o, NULL, NULL);
  g_autofree char *s2 = sxs__diff_write_summary(r2, &o, NULL, NULL);
  g_assert_nonnull(strstr(s1, "  self growths beyond noise: 0 (none)\n"));
  g_assert_nonnull(strstr(s1, "  self shrinks beyond noise: 0 (none)\n"));
  g_assert_nonnull(strstr(s2, "  self growths beyond noise: 1\n"));
  g_assert_nonnull(strstr(s2, "        100        900       +800 ±95       App.Work\n"));
  g_autofree char *all = sxs__diff_write_summary(d, &o, NULL, NULL);
  g_assert_nonnull(strstr(all, "        600       1400       +800 ±134      App.Work\n"));
  sxs__profile_model_free(m[0]);
  sxs__profile_model_free(m[1]);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/diff/normalize", test_normalize);
  g_test_add_func("/diff/noise", test_noise);
  g_test_add_func("/diff/match", test_match);
  g_test_add_func("/diff/native", test_native_match);
  g_test_add_func("/diff/folded-summary", test_folded_and_summary);
  g_test_add_func("/diff/svg-colours", test_svg_colours);
  g_test_add_func("/diff/allocations", test_allocations);
  g_test_add_func("/diff/contention", test_contention);
  g_test_add_func("/diff/lines", test_lines);
  g_test_add_func("/diff/per-runtime", test_per_runtime);
  return g_test_run();
}
