/* The view of a profile: frames tagged by runtime, groups per thread / runtime / event, merged
 * trees and per-frame totals, on the synthetic fixture. */
#include <glib.h>
#include <string.h>

#include "sxs_view.h"
#include "sxs_view_fixture.h"

static const SxsViewFrame *frame_by_label(const SxsView *v, const char *label) {
  for (guint i = 0; i < v->frames->len; i++) {
    const SxsViewFrame *f = v->frames->pdata[i];
    if (g_str_equal(f->label, label))
      return f;
  }
  return NULL;
}

static void test_labels(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_assert_nonnull(frame_by_label(v, FIXTURE_HOT_LABEL));
  g_assert_nonnull(frame_by_label(v, FIXTURE_GENERIC_LABEL));
  g_assert_nonnull(frame_by_label(v, FIXTURE_QUOTES_LABEL));
  g_assert_nonnull(frame_by_label(v, FIXTURE_UNICODE_LABEL));
  g_autofree char *long_label = fixture_long_label();
  g_assert_nonnull(frame_by_label(v, long_label));
  /* Native names lose their offset: every libc frame is one frame. */
  const SxsViewFrame *libc = frame_by_label(v, FIXTURE_LIBC_LABEL);
  g_assert_nonnull(libc);
  g_assert_false(libc->managed);
  g_assert_cmpstr(libc->name, ==, "__libc_start_main");
  g_assert_cmpstr(libc->module, ==, "libc.so.6");
  const SxsViewFrame *hot = frame_by_label(v, FIXTURE_HOT_LABEL);
  g_assert_cmpint(hot->runtime_id, ==, 1);
  g_assert_cmpstr(hot->name, ==, FIXTURE_HOT_NAME);
  g_assert_cmpstr(hot->module, ==, "App.dll");
}

static void test_groups(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  /* Two sample threads, one call tree, one event kind with stacks. */
  g_assert_cmpuint(v->groups->len, ==, 4);
  const SxsViewGroup *main = v->groups->pdata[0], *worker = v->groups->pdata[1];
  g_assert_cmpint(main->kind, ==, SXS_VIEW_SAMPLES);
  g_assert_cmpuint(main->thread, ==, 100);
  g_assert_cmpuint(main->total, ==, 80);
  g_assert_cmpuint(worker->total, ==, 20);
  g_assert_cmpstr(worker->thread_name, ==, FIXTURE_WORKER_THREAD);
  const SxsViewStack *top = &g_array_index(main->stacks, SxsViewStack, 0);
  g_assert_cmpuint(top->weight, ==, FIXTURE_HOT_SAMPLES);
  g_assert_cmpuint(top->depth, ==, 3);
  g_assert_cmpstr(((SxsViewFrame *)v->frames->pdata[top->frames[0]])->label, ==, FIXTURE_LIBC_LABEL);
  g_assert_cmpstr(((SxsViewFrame *)v->frames->pdata[top->frames[2]])->label, ==, FIXTURE_HOT_LABEL);
  const SxsViewGroup *calls = v->groups->pdata[2];
  g_assert_cmpint(calls->kind, ==, SXS_VIEW_CALLS);
  g_assert_cmpstr(calls->unit, ==, "nanoseconds");
  g_assert_cmpuint(calls->total, ==, FIXTURE_CALLS_TOTAL_NS);
  g_assert_cmpuint(calls->total_count, ==, 16);
  const SxsViewGroup *events = v->groups->pdata[3];
  g_assert_cmpstr(events->event, ==, "exception");
  g_assert_cmpuint(events->total, ==, FIXTURE_EXCEPTIONS);
  g_assert_cmpint(sxs__view_primary_kind(v), ==, SXS_VIEW_SAMPLES);
  g_assert_cmpuint(v->period_ns, ==, 10000000);
}

static void test_filter(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  SxsViewFilter by_runtime = {.runtime_id = 2};
  g_autoptr(SxsView) v = sxs__view_new(m, &by_runtime);
  g_assert_cmpuint(v->groups->len, ==, 1);
  g_assert_cmpuint(((SxsViewGroup *)v->groups->pdata[0])->total, ==, 15);
  SxsViewFilter by_thread = {.thread = FIXTURE_WORKER_THREAD};
  g_autoptr(SxsView) w = sxs__view_new(m, &by_thread);
  g_assert_cmpuint(((SxsViewGroup *)w->groups->pdata[0])->total, ==, 20);
  /* Event stacks know their thread by id; the runtime's thread records give its name. */
  SxsThreadRecord *rec = g_new0(SxsThreadRecord, 1);
  rec->runtime_id = 1;
  rec->os_tid = 100;
  rec->name = g_strdup("Main");
  g_ptr_array_add(((SxsRuntimeModel *)m->runtimes->pdata[0])->threads, rec);
  SxsViewFilter by_name = {.thread = "Main"};
  g_autoptr(SxsView) named = sxs__view_new(m, &by_name);
  guint64 events = 0;
  for (guint i = 0; i < named->groups->len; i++)
    if (((SxsViewGroup *)named->groups->pdata[i])->kind == SXS_VIEW_EVENTS)
      events += ((SxsViewGroup *)named->groups->pdata[i])->total;
  g_assert_cmpuint(events, ==, FIXTURE_EXCEPTIONS);
  SxsViewFilter by_tid = {.thread = "100"};
  g_autoptr(SxsView) t = sxs__view_new(m, &by_tid);
  g_assert_cmpuint(((SxsViewGroup *)t->groups->pdata[0])->total, ==, 80);
}

static void test_tree(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_autoptr(SxsViewTree) t = sxs__view_tree_new(v, SXS_VIEW_SAMPLES, NULL);
  const SxsViewNode *root = &g_array_index(t->nodes, SxsViewNode, 0);
  g_assert_cmpuint(root->total, ==, FIXTURE_SAMPLES_TOTAL);
  g_assert_cmpuint(root->n_children, ==, 1); /* libc */
  const SxsViewNode *libc = sxs__view_tree_child(t, root, 0);
  g_assert_cmpuint(libc->total, ==, 100);
  g_assert_cmpuint(libc->n_children, ==, 4);
  /* Every node weighs at least its children together. */
  for (guint i = 0; i < t->nodes->len; i++) {
    const SxsViewNode *n = &g_array_index(t->nodes, SxsViewNode, i);
    guint64 sum = n->self;
    for (guint c = 0; c < n->n_children; c++)
      sum += sxs__view_tree_child(t, n, c)->total;
    g_assert_cmpuint(sum, ==, n->total);
  }
  g_autoptr(GArray) totals = sxs__view_frame_totals(v, SXS_VIEW_SAMPLES, SXS_VIEW_ALL_RUNTIMES);
  const SxsViewFrameTotal *first = &g_array_index(totals, SxsViewFrameTotal, 0);
  g_assert_cmpstr(((SxsViewFrame *)v->frames->pdata[first->frame])->label, ==, FIXTURE_HOT_LABEL);
  g_assert_cmpuint(first->self, ==, 70);
  g_autoptr(GArray) rt2 = sxs__view_frame_totals(v, SXS_VIEW_SAMPLES, 2);
  g_assert_cmpuint(rt2->len, ==, 1);
}

/* Two processes' profiles as one: the second's runtimes get the next ids, their frames with them. */
static void test_merge(void) {
  g_autoptr(SxsProfileModel) a = fixture_model();
  g_autoptr(SxsProfileModel) b = fixture_model();
  sxs__profile_model_merge(a, b);
  g_assert_cmpuint(a->runtimes->len, ==, 4);
  g_assert_cmpint(((SxsRuntimeModel *)a->runtimes->pdata[2])->id, ==, 3);
  g_assert_cmpint(((SxsRuntimeModel *)a->runtimes->pdata[3])->id, ==, 4);
  g_assert_cmpuint(b->runtimes->len, ==, 0);
  g_assert_cmpuint(b->samples.stacks->len, ==, 0);
  g_assert_cmpuint(a->walks.events[0], ==, 2 * FIXTURE_EXCEPTIONS);
  g_autoptr(SxsView) v = sxs__view_new(a, NULL);
  g_assert_nonnull(frame_by_label(v, "[rt3 10.0.1] App.Program.Hot"));
  g_assert_nonnull(frame_by_label(v, "[rt4 8.0.11] Lib.Box<T>.Run<int>"));
  g_autoptr(GArray) totals = sxs__view_frame_totals(v, SXS_VIEW_SAMPLES, 3);
  const SxsViewFrameTotal *first = &g_array_index(totals, SxsViewFrameTotal, 0);
  g_assert_cmpuint(first->self, ==, FIXTURE_HOT_SAMPLES);
  /* Timed and untimed call trees together weigh calls. */
  ((SxsRuntimeModel *)a->runtimes->pdata[2])->tracing.timing = FALSE;
  g_autoptr(SxsView) mixed = sxs__view_new(a, NULL);
  g_assert_cmpstr(sxs__view_kind_unit(mixed, SXS_VIEW_CALLS), ==, "calls");
  for (guint i = 0; i < mixed->groups->len; i++) {
    const SxsViewGroup *g = mixed->groups->pdata[i];
    if (g->kind == SXS_VIEW_CALLS)
      g_assert_cmpuint(g->total, ==, 16);
  }
}

static void test_empty(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_assert_cmpuint(v->groups->len, ==, 0);
  g_assert_cmpint(sxs__view_primary_kind(v), ==, SXS_VIEW_N_KINDS);
}

static const SxsViewFrame *frame_at_line(const SxsView *v, const char *label, guint32 line) {
  for (guint i = 0; i < v->frames->len; i++) {
    const SxsViewFrame *f = v->frames->pdata[i];
    if (g_str_equal(f->label, label) && f->line == line)
      return f;
  }
  return NULL;
}

/* Lines: a view by function has one frame per function, with its file and first line; a view by
 * line one per line, and every format names the line. */
static void test_lines(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  fixture_add_lines(m);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  const SxsViewFrame *hot = frame_by_label(v, FIXTURE_HOT_LABEL);
  g_assert_nonnull(hot);
  g_assert_cmpstr(hot->file, ==, FIXTURE_LINES_FILE);
  g_assert_cmpuint(hot->start_line, ==, 40);
  g_assert_cmpuint(hot->line, ==, 0);
  g_assert_null(frame_at_line(v, FIXTURE_HOT_LABEL, 42));
  g_autofree char *title = sxs__view_frame_title(hot, TRUE);
  g_assert_cmpstr(title, ==, FIXTURE_HOT_LABEL " (Program.cs:40)");
  g_autofree char *plain = sxs__view_frame_title(frame_by_label(v, FIXTURE_COLD_LABEL), FALSE);
  g_assert_cmpstr(plain, ==, "App.Program.Cold");

  g_autoptr(SxsView) byline = sxs__view_by_line(v);
  g_assert_true(byline != v);
  g_assert_true(byline->filter.by_line);
  const SxsViewFrame *at42 = frame_at_line(byline, FIXTURE_HOT_LABEL, 42);
  const SxsViewFrame *at43 = frame_at_line(byline, FIXTURE_HOT_LABEL, 43);
  g_assert_nonnull(at42);
  g_assert_nonnull(at43);
  g_assert_cmpuint(at42->start_line, ==, 40);
  g_autofree char *title42 = sxs__view_frame_title(at42, FALSE);
  g_assert_cmpstr(title42, ==, "App.Program.Hot (Program.cs:42)");
  g_assert_nonnull(frame_at_line(byline, FIXTURE_MAIN_LABEL, 12));
  g_assert_nonnull(frame_at_line(byline, FIXTURE_MAIN_LABEL, 0)); /* Cold's caller, without a line */
  g_assert_true(sxs__view_by_line(byline) == byline);

  /* Folded by line, and by function as ever. */
  SxsRenderOptions o = {.kind = SXS_VIEW_SAMPLES};
  g_autofree char *folded = sxs__write_folded(byline, &o, NULL, NULL);
  g_assert_nonnull(strstr(folded, FIXTURE_MAIN_LABEL " (Program.cs:12);" FIXTURE_HOT_LABEL " (Program.cs:42) 50\n"));
  g_assert_nonnull(strstr(folded, FIXTURE_MAIN_LABEL " (Program.cs:12);" FIXTURE_HOT_LABEL " (Program.cs:43) 20\n"));
  g_autofree char *by_function = sxs__write_folded(v, &o, NULL, NULL);
  g_assert_nonnull(strstr(by_function, ";" FIXTURE_HOT_LABEL " 70\n"));
  g_assert_null(strstr(by_function, "Program.cs"));
  /* The SVG's hover text: where the function begins, or its line. */
  g_autofree char *svg = sxs__write_svg(v, &o, NULL, NULL);
  g_assert_nonnull(strstr(svg, "<title>" FIXTURE_HOT_LABEL " (Program.cs:40)&#10;total "));
  g_autofree char *svg_lines = sxs__write_svg(byline, &o, NULL, NULL);
  g_assert_nonnull(strstr(svg_lines, "<title>" FIXTURE_HOT_LABEL " (Program.cs:42)&#10;total "));
  /* speedscope: the file and the line. */
  g_autofree char *ss = sxs__write_speedscope(v, &o, NULL, NULL);
  g_assert_nonnull(strstr(ss, "{\"name\":\"" FIXTURE_HOT_LABEL "\",\"file\":\"" FIXTURE_LINES_FILE "\",\"line\":40}"));
  g_autofree char *ss_lines = sxs__write_speedscope(byline, &o, NULL, NULL);
  g_assert_nonnull(strstr(ss_lines, "{\"name\":\"" FIXTURE_HOT_LABEL " (Program.cs:43)\",\"file\":\"" FIXTURE_LINES_FILE
                                    "\",\"line\":43}"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/model/labels", test_labels);
  g_test_add_func("/views/model/groups", test_groups);
  g_test_add_func("/views/model/filter", test_filter);
  g_test_add_func("/views/model/tree", test_tree);
  g_test_add_func("/views/model/merge", test_merge);
  g_test_add_func("/views/model/empty", test_empty);
  g_test_add_func("/views/model/lines", test_lines);
  return g_test_run();
}
