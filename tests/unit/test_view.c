/* The view of a profile: frames tagged by runtime, groups per thread / runtime / event, merged
 * trees and per-frame totals, on the synthetic fixture. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "sxs_formats.h"

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

/* An async method's state machine is shown as the method a person wrote, its raw name kept; other
 * compiler-generated names are left alone. */
static void test_async_names(void) {
  static const char *const cases[][2] = {
      {"App.Reader.<ReadBufferAsync>d__72.MoveNext", "App.Reader.ReadBufferAsync [async]"},
      {"Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol.<ProcessRequests>d__237`1.MoveNext",
       "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol.ProcessRequests [async]"},
      {"Program.<<Main>$>d__0.MoveNext", "Program.<Main>$ [async]"},
      {"<Run>d__5.MoveNext", "Run [async]"},
      {"App.Reader.ReadBufferAsync", NULL},
      {"App.Reader.<ReadBufferAsync>d__72.Dispose", NULL},
      {"App.Program.<>c.<Main>b__0_0", NULL},
      {"App.Reader.<>d__1.MoveNext", NULL},
      {"App.Reader.<Read>d__.MoveNext", NULL},
      {"App.Reader.<Read>d__3x.MoveNext", NULL},
      {"App.Reader.<Read>d__3`.MoveNext", NULL},
      {".MoveNext", NULL},
      {"", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *shown = sxs__view_async_name(cases[i][0]);
    g_assert_cmpstr(shown, ==, cases[i][1]);
  }
  g_assert_null(sxs__view_async_name(NULL));

  /* In a view: two state machines of one method are one frame, shown as the method; its raw name
   * stays (SVG hover, pprof system_name); the folded file and the SVG show the method. */
  g_autoptr(SxsProfileModel) m = fixture_model();
  SxsStackModel *s = fixture_sample(m, 9, "Pool", 5);
  fixture_frame(s, TRUE, 1, "App.Reader.<ReadBufferAsync>d__72.MoveNext", "App.dll", 0x7f0000005000);
  fixture_frame(s, TRUE, 1, "App.Program.Main", "App.dll", 0x7f0000006000);
  fixture_libc(s);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  const SxsViewFrame *f = frame_by_label(v, "[rt1 10.0.1] App.Reader.ReadBufferAsync [async]");
  g_assert_nonnull(f);
  g_assert_cmpstr(f->name, ==, "App.Reader.ReadBufferAsync [async]");
  g_assert_cmpstr(f->raw_name, ==, "App.Reader.<ReadBufferAsync>d__72.MoveNext");
  g_assert_null(frame_by_label(v, FIXTURE_HOT_LABEL)->raw_name);
  SxsRenderOptions o = {.kind = SXS_VIEW_N_KINDS};
  g_autofree char *folded = sxs__write_folded(v, &o, NULL, NULL);
  g_assert_nonnull(
      strstr(folded, ";[rt1 10.0.1] App.Program.Main;[rt1 10.0.1] App.Reader.ReadBufferAsync [async] 5\n"));
  g_assert_null(strstr(folded, "d__72"));
  g_autofree char *svg = sxs__write_svg(v, &o, NULL, NULL);
  g_assert_nonnull(strstr(svg, "data-name=\"[rt1 10.0.1] App.Reader.ReadBufferAsync [async]\""));
  g_assert_nonnull(strstr(svg, "&#10;App.Reader.&lt;ReadBufferAsync&gt;d__72.MoveNext&#10;total "));
}

/* Native names of PLT entries and perf maps: the offset is the last "+0x", so an IRELATIVE PLT
 * entry keeps its whole name, and every offset in one function is one frame. */
static void test_native_names(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  SxsStackModel *s = fixture_sample(m, 7, "Plt", 3);
  fixture_frame(s, FALSE, 0, "libc.so.6!*ABS*+0x9d6c0@plt+0x4", "libc.so.6", 0x7f0000002004);
  fixture_frame(s, FALSE, 0, "[perf-map]!stub<Thunk>+0x8", "", 0x7f0000003008);
  fixture_frame(s, FALSE, 0, "[perf-map]!stub<Thunk>+0x10", "", 0x7f0000003010);
  fixture_libc(s);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  const SxsViewFrame *plt = frame_by_label(v, "[native] libc.so.6!*ABS*+0x9d6c0@plt");
  g_assert_nonnull(plt);
  g_assert_cmpstr(plt->name, ==, "*ABS*+0x9d6c0@plt");
  const SxsViewFrame *stub = frame_by_label(v, "[native] [perf-map]!stub<Thunk>");
  g_assert_nonnull(stub);
  g_assert_cmpstr(stub->name, ==, "stub<Thunk>");
  guint stubs = 0;
  for (guint i = 0; i < v->frames->len; i++)
    stubs += g_str_has_prefix(((const SxsViewFrame *)v->frames->pdata[i])->label, "[native] [perf-map]!");
  g_assert_cmpuint(stubs, ==, 1);
}

/* The summary says once how many samples sit in runtime libraries no symbol names, and in which;
 * named runtime frames and other libraries' unnamed ones do not count. */
static void test_unnamed_runtime(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  static const struct {
    const char *name, *module;
    guint64 count;
  } leaves[] = {
      {"libcoreclr.so+0x5fb3cb", "libcoreclr.so", 5},
      {"libcoreclr.so+0x459304", "libcoreclr.so", 4},
      {"libclrjit.so+0x10", "libclrjit.so", 2},
      {"libcoreclr.so!coreclr_execute_assembly+0x5", "libcoreclr.so", 6},
      {"libfoo.so+0x20", "libfoo.so", 9},
  };
  for (guint i = 0; i < G_N_ELEMENTS(leaves); i++) {
    SxsStackModel *s = fixture_sample(m, 8, "Runtime", leaves[i].count);
    fixture_frame(s, FALSE, 0, leaves[i].name, leaves[i].module, 0x7f0000004000 + i);
    fixture_libc(s);
  }
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  gsize len = 0;
  g_autofree char *error = NULL;
  g_autofree char *summary = sxs__write_summary(v, NULL, &len, &error);
  const char *note = strstr(summary, "unnamed runtime code: 11 samples (");
  g_assert_nonnull(note);
  g_assert_nonnull(strstr(note, "in libclrjit.so, libcoreclr.so, which carry no symbols"));
  g_assert_null(strstr(note + 1, "unnamed runtime code"));
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

/* Counts add up without wrapping: at 1 Hz a sample of the largest count stands for more
 * nanoseconds than an int64 holds, and 1100 stacks of it sum past 2^63; both stop at
 * SXS_PROFILE_MAX_NS. Merged counters stop at SXS_PROFILE_MAX_COUNT, which a profile can hold. */
static void test_saturation(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  m->samples.enabled = TRUE;
  m->samples.frequency = 1;
  m->samples.ticks = SXS_PROFILE_MAX_COUNT;
  for (guint i = 0; i < 1100; i++) {
    SxsStackModel *s = fixture_sample(m, 7, "T", SXS_PROFILE_MAX_COUNT);
    g_autofree char *name = g_strdup_printf("App.F%u", i);
    fixture_frame(s, TRUE, 1, name, "App.dll", 0x1000 + i);
  }
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  const SxsViewGroup *g = v->groups->pdata[0];
  g_assert_cmpuint(g->total, ==, SXS_PROFILE_MAX_NS);
  g_assert_cmpuint(g->total_count, ==, SXS_PROFILE_MAX_NS);
  g_autoptr(SxsViewTree) t = sxs__view_tree_new(v, SXS_VIEW_SAMPLES, NULL);
  g_assert_cmpuint(g_array_index(t->nodes, SxsViewNode, 0).total, ==, SXS_PROFILE_MAX_NS);

  gsize len = 0;
  g_autofree char *error = NULL;
  g_autofree char *summary = sxs__write_summary(v, NULL, &len, &error);
  g_assert_nonnull(strstr(summary, " 9223372036854775807 samples on 1 thread"));
  g_assert_null(strstr(summary, "18446744073709551"));
  g_autofree char *speedscope = sxs__write_speedscope(v, NULL, &len, &error);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_assert_true(json_parser_load_from_data(parser, speedscope, (gssize)len, NULL));
  JsonObject *profile = json_array_get_object_element(
      json_object_get_array_member(json_node_get_object(json_parser_get_root(parser)), "profiles"), 0);
  JsonArray *weights = json_object_get_array_member(profile, "weights");
  g_assert_cmpuint(json_array_get_length(weights), ==, 1100);
  for (guint i = 0; i < json_array_get_length(weights); i++)
    g_assert_cmpint(json_array_get_int_element(weights, i), ==, G_MAXINT64);
  g_assert_cmpint(json_object_get_int_member(profile, "endValue"), ==, G_MAXINT64);
  g_autofree char *folded = sxs__write_folded(v, NULL, &len, &error);
  g_assert_nonnull(strstr(folded, "[rt1] App.F0 9007199254740991\n"));

  g_autoptr(SxsProfileModel) other = sxs__profile_model_new();
  other->samples.ticks = SXS_PROFILE_MAX_COUNT;
  other->walks.ns_native = SXS_PROFILE_MAX_NS;
  m->walks.ns_native = 5;
  guint64 max = SXS_PROFILE_MAX_COUNT;
  g_hash_table_insert(other->walks.failures, g_strdup("EFAULT"), g_memdup2(&max, sizeof max));
  g_hash_table_insert(m->walks.failures, g_strdup("EFAULT"), g_memdup2(&max, sizeof max));
  sxs__profile_model_merge(m, other);
  g_assert_cmpuint(m->samples.ticks, ==, SXS_PROFILE_MAX_COUNT);
  g_assert_cmpuint(m->walks.ns_native, ==, SXS_PROFILE_MAX_NS);
  g_assert_cmpuint(*(guint64 *)g_hash_table_lookup(m->walks.failures, "EFAULT"), ==, SXS_PROFILE_MAX_COUNT);
}

/* A model made by hand (not read from a file, which refuses it) whose call tree's parents form a
 * cycle: its paths stop at SXS_PROFILE_MAX_CALL_DEPTH frames instead of running forever. */
static void test_cyclic_tree(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  SxsRuntimeModel *r = fixture_runtime(m, 1, "10.0.1");
  r->tracing.timing = TRUE;
  fixture_call(r, 1, 2, "A", 1, 10, 10);
  fixture_call(r, 2, 1, "B", 1, 10, 10);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  const SxsViewGroup *g = v->groups->pdata[0];
  g_assert_cmpint(g->kind, ==, SXS_VIEW_CALLS);
  g_assert_cmpuint(g->stacks->len, ==, 2);
  for (guint i = 0; i < g->stacks->len; i++)
    g_assert_cmpuint(g_array_index(g->stacks, SxsViewStack, i).depth, ==, SXS_PROFILE_MAX_CALL_DEPTH);
}

/* The view files a model renders to, written under dir/p with flags; the return of
 * sxs__formats_write, and its error. */
static int write_views(const SxsProfileModel *m, const char *dir, SxsFormatsFlags flags, char **ret_why) {
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_autofree char *base = g_build_filename(dir, "p", NULL);
  guint formats = SXS_FORMATS_ALL_FILES & ~SXS_FORMAT_BIT(SXS_FORMAT_JSON);
  return sxs__formats_write(v, base, formats, NULL, flags, NULL, NULL, NULL, NULL, ret_why);
}

static char *read_view(const char *dir, const char *suffix) {
  g_autofree char *path = g_strconcat(dir, "/p", suffix, NULL);
  char *text = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &text, &len, NULL));
  return text;
}

/* Files of dir other than the four views: temp files left behind. */
static guint leftovers(const char *dir) {
  guint n = 0;
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *name; (name = g_dir_read_name(d));)
    n += strstr(name, ".tmp.") != NULL;
  return n;
}

#define WRITE_DIR_ENV "SXS_TEST_WRITE_DIR"

/* Runs in a subprocess with a file size limit between the sizes of the views (a disk that fills
 * up while they are written): writes that pass it fail with EFBIG. */
static void write_failed_child(void) {
  const char *dir = g_getenv(WRITE_DIR_ENV);
  g_autofree char *limit_text = read_view(dir, ".limit");
  struct rlimit limit = {g_ascii_strtoull(limit_text, NULL, 10), RLIM_INFINITY};
  signal(SIGXFSZ, SIG_IGN);
  g_assert_cmpint(setrlimit(RLIMIT_FSIZE, &limit), ==, 0);
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autofree char *error = NULL;
  gboolean all = g_str_has_suffix(g_test_get_path(), "all-or-nothing");
  int r = write_views(m, dir, all ? SXS_FORMATS_ALL_OR_NOTHING : SXS_FORMATS_DROP_STALE, &error);
  g_assert_cmpint(r, ==, -EFBIG);
  printf("%s\n", error);
}

/* A write that fails part-way leaves every older file whole (the report: all or nothing) or
 * replaces the ones that fit and names each one that did not (the profiler); no temp file stays. */
static void test_write_failed(gconstpointer data) {
  const char *mode = data;
  if (g_test_subprocess()) {
    write_failed_child();
    return;
  }
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp("sxs-views-XXXXXX", &error);
  g_assert_no_error(error);
  /* The older views: of a profile with one sample stack less. */
  g_autoptr(SxsProfileModel) old = fixture_model();
  g_ptr_array_remove_index(old->samples.stacks, old->samples.stacks->len - 1);
  g_autofree char *unused = NULL;
  g_assert_cmpint(write_views(old, dir, SXS_FORMATS_ALL_OR_NOTHING, &unused), ==, 4);
  static const char *const suffixes[] = {".speedscope.json", ".folded", ".svg", ".pb.gz"};
  char *before[4], *after[4];
  for (guint i = 0; i < 4; i++)
    before[i] = read_view(dir, suffixes[i]);
  /* The new views' sizes: the limit lets the folded stacks and pprof through, not the others. */
  g_autoptr(SxsProfileModel) m = fixture_model();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  gsize sizes[4];
  for (guint i = 0; i < 4; i++) {
    static const SxsFormat f[] = {SXS_FORMAT_SPEEDSCOPE, SXS_FORMAT_FOLDED, SXS_FORMAT_SVG, SXS_FORMAT_PPROF};
    g_autofree char *why = NULL;
    g_free(sxs__formats_render(v, f[i], NULL, &sizes[i], &why));
  }
  gsize limit = MAX(sizes[1], sizes[3]) + 1;
  g_assert_cmpuint(limit, <, MIN(sizes[0], sizes[2]));
  g_autofree char *limit_path = g_build_filename(dir, "p.limit", NULL);
  g_autofree char *limit_text = g_strdup_printf("%" G_GSIZE_FORMAT, limit);
  g_assert_true(g_file_set_contents(limit_path, limit_text, -1, NULL));
  g_setenv(WRITE_DIR_ENV, dir, TRUE);
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed();
  g_unlink(limit_path);
  g_autofree char *speedscope = g_strdup_printf("cannot write %s/p.speedscope.json: %s", dir, g_strerror(EFBIG));
  g_autofree char *svg = g_strdup_printf("cannot write %s/p.svg: %s", dir, g_strerror(EFBIG));
  for (guint i = 0; i < 4; i++)
    after[i] = read_view(dir, suffixes[i]);
  if (g_str_equal(mode, "all-or-nothing")) {
    g_autofree char *expected = g_strconcat(speedscope, "\n", NULL);
    g_test_trap_assert_stdout(expected);
    for (guint i = 0; i < 4; i++)
      g_assert_cmpstr(after[i], ==, before[i]);
  } else {
    g_autofree char *expected = g_strconcat(speedscope, "\n", svg, "\n", NULL);
    g_test_trap_assert_stdout(expected);
    g_assert_cmpstr(after[0], ==, before[0]);
    g_assert_cmpstr(after[2], ==, before[2]);
    g_assert_cmpstr(after[1], !=, before[1]);
    g_assert_cmpuint(strlen(after[1]), ==, sizes[1]);
  }
  g_assert_cmpuint(leftovers(dir), ==, 0);
  for (guint i = 0; i < 4; i++) {
    g_free(before[i]);
    g_free(after[i]);
    g_autofree char *path = g_strconcat(dir, "/p", suffixes[i], NULL);
    g_unlink(path);
  }
  g_rmdir(dir);
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
  g_test_add_func("/views/model/native-names", test_native_names);
  g_test_add_func("/views/model/async-names", test_async_names);
  g_test_add_func("/views/summary/unnamed-runtime", test_unnamed_runtime);
  g_test_add_func("/views/model/groups", test_groups);
  g_test_add_func("/views/model/filter", test_filter);
  g_test_add_func("/views/model/tree", test_tree);
  g_test_add_func("/views/model/merge", test_merge);
  g_test_add_func("/views/model/empty", test_empty);
  g_test_add_func("/views/model/saturation", test_saturation);
  g_test_add_func("/views/model/cyclic-tree", test_cyclic_tree);
  g_test_add_data_func("/views/formats/write-failed/all-or-nothing", "all-or-nothing", test_write_failed);
  g_test_add_data_func("/views/formats/write-failed/each-on-its-own", "each-on-its-own", test_write_failed);
  g_test_add_func("/views/model/lines", test_lines);
  return g_test_run();
}
