/* Unit tests of the call-tracing engine without a runtime: the function table (client IDs), the
 * hooks' shadow stacks and call trees driven directly from C, and the profile's view of them.
 * Each test uses runtimes of its own (trace slots are never given back), so the tests are
 * independent; the registry is reset between them. */
#include <glib/gstdio.h>
#include <string.h>

#include "sxs_manager.h"
#include "sxs_output.h"
#include "sxs_trace.h"
#include "sxs_scratch.h"

typedef struct {
  char *dir;
} Fixture;

static void fixture_setup(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = sxs_scratch_new("sxs-trace");
  g_autofree char *path = g_build_filename(f->dir, "sxsprof.conf", NULL);
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s/prof\nflush=0\n[tracing]\nenabled=true\n", f->dir);
  g_assert_true(g_file_set_contents(path, text, -1, NULL));
  g_setenv("SXSPROF_CONFIG", path, TRUE);
  g_unsetenv("SXSPROF_OUTPUT");
  sxs__output_reset_for_tests();
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(f->dir);
  g_unsetenv("SXSPROF_CONFIG");
  sxs__output_reset_for_tests();
}

/* A profiled runtime with a trace slot, and its functions named "T.<letter>" for FunctionIDs
 * 0x100, 0x200, ... */
typedef struct {
  SxsRuntime *rt;
  SxsTraceRuntime *tr;
} TracedRuntime;

static TracedRuntime traced_runtime(const char *version) {
  TracedRuntime t;
  t.rt = sxs__manager_admit("/x/libcoreclr.so", version);
  SxsCapabilities caps = {.info_version = 15, .event_mask2 = TRUE, .basic_gc = TRUE, .elt3 = TRUE};
  g_assert_true(sxs__manager_initialize(t.rt, NULL, NULL, version, &caps));
  t.tr = sxs__trace_runtime_new(t.rt, &sxs__manager_config()->tracing);
  g_assert_nonnull(t.tr);
  sxs__trace_runtime_set_path(t.tr, "fast", "mapper2");
  return t;
}

static uintptr_t map(TracedRuntime *t, uint64_t fid, const char *name) {
  sxs__manager_record_function(t->rt, fid, SXS_CODE_JIT, name, "t.dll");
  int hook = -1;
  uintptr_t id = sxs__trace_map(t->tr, fid, &hook);
  g_assert_cmpint(hook, ==, 1);
  g_assert_cmpuint(id, !=, 0);
  return id;
}

static SxsRuntimeModel *model_of(SxsProfileModel *m, int id) {
  for (guint i = 0; i < m->runtimes->len; i++) {
    SxsRuntimeModel *r = m->runtimes->pdata[i];
    if (r->id == id)
      return r;
  }
  g_assert_not_reached();
}

static const SxsFunctionRecord *function(SxsRuntimeModel *r, const char *name) {
  for (guint i = 0; i < r->functions->len; i++) {
    const SxsFunctionRecord *f = r->functions->pdata[i];
    if (g_str_equal(f->name, name))
      return f;
  }
  return NULL;
}

static guint64 calls_of(SxsRuntimeModel *r, const char *name) {
  const SxsFunctionRecord *f = function(r, name);
  g_assert_nonnull(f);
  g_assert_true(f->traced);
  return f->calls;
}

/* Every node's inclusive time covers its children's, and its exclusive time is within it. */
static void assert_tree_times(SxsRuntimeModel *r) {
  g_autoptr(GHashTable) child_sum = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  for (guint i = 0; i < r->call_tree->len; i++) {
    const SxsCallNode *n = r->call_tree->pdata[i];
    g_assert_cmpuint(n->exclusive_ns, <=, n->inclusive_ns);
    if (!n->parent)
      continue;
    guint64 *sum = g_hash_table_lookup(child_sum, GUINT_TO_POINTER(n->parent));
    if (!sum) {
      sum = g_new0(guint64, 1);
      g_hash_table_insert(child_sum, GUINT_TO_POINTER(n->parent), sum);
    }
    *sum += n->inclusive_ns;
  }
  for (guint i = 0; i < r->call_tree->len; i++) {
    const SxsCallNode *n = r->call_tree->pdata[i];
    guint64 *sum = g_hash_table_lookup(child_sum, GUINT_TO_POINTER(n->id));
    /* Ticks are converted per node, so allow one nanosecond of rounding per child. */
    if (sum)
      g_assert_cmpuint(n->inclusive_ns + 64, >=, *sum);
  }
}

static void fib(uintptr_t id, int n) {
  sxs__trace_enter(id);
  if (n >= 2) {
    fib(id, n - 1);
    fib(id, n - 2);
  }
  sxs__trace_leave(id);
}

/* Exact counts, one tree path per recursion depth, every frame closed. */
static void test_exact(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t = traced_runtime("10.0.12");
  uintptr_t main_id = map(&t, 0x100, "T.Main");
  uintptr_t fib_id = map(&t, 0x200, "T.Fib");
  uintptr_t triv_id = map(&t, 0x300, "T.Trivial");
  /* The mapper asked again for the same function: the same client ID. */
  int hook = 0;
  g_assert_cmpuint(sxs__trace_map(t.tr, 0x200, &hook), ==, fib_id);
  g_assert_cmpint(hook, ==, 1);

  sxs__trace_enter(main_id);
  fib(fib_id, 20);
  for (int i = 0; i < 1000; i++) {
    sxs__trace_enter(triv_id);
    sxs__trace_leave(triv_id);
  }
  sxs__trace_leave(main_id);

  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  SxsRuntimeModel *r = model_of(m, t.rt->id);
  g_assert_true(r->tracing.enabled);
  g_assert_cmpstr(r->tracing.path, ==, "fast");
  g_assert_cmpuint(r->tracing.functions_mapped, ==, 3);
  g_assert_cmpuint(calls_of(r, "T.Main"), ==, 1);
  g_assert_cmpuint(calls_of(r, "T.Fib"), ==, 21891);
  g_assert_cmpuint(calls_of(r, "T.Trivial"), ==, 1000);
  g_assert_cmpuint(r->tracing.open_frames, ==, 0);
  /* Main -> Fib x20 levels, Main -> Trivial. */
  g_assert_cmpuint(r->call_tree->len, ==, 1 + 20 + 1);
  const SxsFunctionRecord *main_fn = function(r, "T.Main"), *fib_fn = function(r, "T.Fib");
  g_assert_cmpuint(main_fn->inclusive_ns, >=, fib_fn->inclusive_ns);
  g_assert_cmpuint(fib_fn->exclusive_ns, <=, fib_fn->inclusive_ns);
  assert_tree_times(r);
}

/* A tail call replaces the caller's frame: A tail-calls B, B tail-calls A, ... under Main, and
 * every one of them is a child of Main, not of each other. */
static void test_tailcall(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t = traced_runtime("10.0.12");
  uintptr_t main_id = map(&t, 0x100, "T.Main");
  uintptr_t a = map(&t, 0x200, "T.Ping");
  uintptr_t b = map(&t, 0x300, "T.Pong");
  sxs__trace_enter(main_id);
  sxs__trace_enter(a);
  for (int i = 0; i < 500; i++) {
    sxs__trace_tailcall(a);
    sxs__trace_enter(b);
    sxs__trace_tailcall(b);
    sxs__trace_enter(a);
  }
  sxs__trace_leave(a);
  sxs__trace_leave(main_id);
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  SxsRuntimeModel *r = model_of(m, t.rt->id);
  g_assert_cmpuint(calls_of(r, "T.Ping"), ==, 501);
  g_assert_cmpuint(calls_of(r, "T.Pong"), ==, 500);
  g_assert_cmpuint(r->tracing.tailcalls, ==, 1000);
  g_assert_cmpuint(r->tracing.open_frames, ==, 0);
  g_assert_cmpuint(r->call_tree->len, ==, 3);
  for (guint i = 0; i < r->call_tree->len; i++) {
    const SxsCallNode *n = r->call_tree->pdata[i];
    if (!g_str_equal(n->name, "T.Main"))
      g_assert_cmpuint(n->parent, ==, 1);
  }
}

/* An exception unwinds three frames: the unwind callbacks pop exactly those, the catching frame
 * stays, and the frames named by an unwind callback but never entered (untraced) are left alone. */
static void test_unwind(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t = traced_runtime("10.0.12");
  uintptr_t catcher = map(&t, 0x100, "T.Catcher");
  uintptr_t l1 = map(&t, 0x200, "T.L1"), l2 = map(&t, 0x300, "T.L2"), l3 = map(&t, 0x400, "T.L3");
  for (int round = 0; round < 100; round++) {
    sxs__trace_enter(catcher);
    sxs__trace_enter(l1);
    sxs__trace_enter(l2);
    sxs__trace_enter(l3);
    /* L3 throws; the runtime unwinds L3, L2, L1 and names the catching frame without a Leave. */
    uint64_t unwound[] = {0x400, 0x999 /* an untraced frame in between */, 0x300, 0x200};
    for (size_t i = 0; i < G_N_ELEMENTS(unwound); i++) {
      sxs__trace_unwind_enter(t.tr, unwound[i]);
      sxs__trace_unwind_leave(t.tr);
    }
    sxs__trace_unwind_enter(t.tr, 0x100);
    sxs__trace_leave(catcher);
  }
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  SxsRuntimeModel *r = model_of(m, t.rt->id);
  g_assert_cmpuint(calls_of(r, "T.Catcher"), ==, 100);
  g_assert_cmpuint(calls_of(r, "T.L3"), ==, 100);
  g_assert_cmpuint(r->tracing.unwound, ==, 300);
  g_assert_cmpuint(r->tracing.open_frames, ==, 0);
  g_assert_cmpuint(r->call_tree->len, ==, 4);
}

/* A Leave whose frame is not on top (the frames above missed their Leave) pops down to it. */
static void test_resync(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t = traced_runtime("10.0.12");
  uintptr_t a = map(&t, 0x100, "T.A"), b = map(&t, 0x200, "T.B"), c = map(&t, 0x300, "T.C");
  sxs__trace_enter(a);
  sxs__trace_enter(b);
  sxs__trace_enter(c);
  sxs__trace_leave(a); /* B and C never left */
  sxs__trace_leave(b); /* nothing open for B any more: ignored */
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  SxsRuntimeModel *r = model_of(m, t.rt->id);
  g_assert_cmpuint(r->tracing.open_frames, ==, 0);
  g_assert_cmpuint(calls_of(r, "T.C"), ==, 1);
}

static void deep(uintptr_t id, int n) {
  sxs__trace_enter(id);
  if (n > 0)
    deep(id, n - 1);
  sxs__trace_leave(id);
}

/* Deeper than a shadow stack holds: counted, and correct again once it shrinks back. */
static void test_depth_overflow(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t = traced_runtime("10.0.12");
  uintptr_t d = map(&t, 0x100, "T.Deep");
  uintptr_t after = map(&t, 0x200, "T.After");
  deep(d, SXS_TRACE_MAX_DEPTH + 99); /* SXS_TRACE_MAX_DEPTH + 100 frames */
  sxs__trace_enter(after);
  sxs__trace_leave(after);
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  SxsRuntimeModel *r = model_of(m, t.rt->id);
  g_assert_cmpuint(calls_of(r, "T.Deep"), ==, SXS_TRACE_MAX_DEPTH + 100);
  g_assert_cmpuint(calls_of(r, "T.After"), ==, 1);
  g_assert_cmpuint(r->tracing.depth_overflows, ==, 100);
  g_assert_cmpuint(r->tracing.open_frames, ==, 0);
  /* T.After is a root again, not a child of the deep chain. */
  for (guint i = 0; i < r->call_tree->len; i++) {
    const SxsCallNode *n = r->call_tree->pdata[i];
    if (g_str_equal(n->name, "T.After"))
      g_assert_cmpuint(n->parent, ==, 0);
  }
}

/* An exception unwinds a recursion deeper than the shadow stack: the frames above its capacity
 * (only counted) and those below (on the stack) are all popped, and the stack is usable again. */
static void test_unwind_overflow(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t = traced_runtime("10.0.12");
  uintptr_t d = map(&t, 0x100, "T.Deep");
  uintptr_t after = map(&t, 0x200, "T.After");
  const int frames = SXS_TRACE_MAX_DEPTH + 10;
  for (int i = 0; i < frames; i++)
    sxs__trace_enter(d);
  for (int i = 0; i < frames; i++) {
    sxs__trace_unwind_enter(t.tr, 0x100);
    sxs__trace_unwind_leave(t.tr);
  }
  sxs__trace_enter(after);
  sxs__trace_leave(after);
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  SxsRuntimeModel *r = model_of(m, t.rt->id);
  g_assert_cmpuint(r->tracing.unwound, ==, (guint64)frames);
  g_assert_cmpuint(r->tracing.open_frames, ==, 0);
  g_assert_cmpuint(calls_of(r, "T.Deep"), ==, (guint64)frames);
  for (guint i = 0; i < r->call_tree->len; i++) {
    const SxsCallNode *n = r->call_tree->pdata[i];
    if (g_str_equal(n->name, "T.After"))
      g_assert_cmpuint(n->parent, ==, 0);
  }
}

typedef struct {
  uintptr_t id;
  int calls;
} ThreadWork;

static gpointer thread_calls(gpointer data) {
  const ThreadWork *w = data;
  for (int i = 0; i < w->calls; i++) {
    sxs__trace_enter(w->id);
    sxs__trace_leave(w->id);
  }
  return NULL;
}

/* Threads that come and go (a thread pool) reuse the states of the ended ones: 40 threads one
 * after the other map one state, and every call is still counted. */
static void test_thread_reuse(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t = traced_runtime("10.0.12");
  uintptr_t id = map(&t, 0x100, "T.Work");
  ThreadWork w = {id, 1000};
  for (int i = 0; i < 40; i++)
    g_thread_join(g_thread_new("pool", thread_calls, &w));
  g_assert_cmpuint(sxs__trace_thread_states(t.rt->id), ==, 1);
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  g_assert_cmpuint(calls_of(model_of(m, t.rt->id), "T.Work"), ==, 40000);
}

/* Two runtimes, one of them called from eight threads at once: each runtime's counts are its
 * own; the same FunctionID in both runtimes gets two client IDs. */
static void test_runtimes_and_threads(Fixture *f, gconstpointer data) {
  (void)f;
  (void)data;
  TracedRuntime t1 = traced_runtime("10.0.12"), t2 = traced_runtime("8.0.33");
  uintptr_t shared1 = map(&t1, 0x100, "T.Shared");
  uintptr_t shared2 = map(&t2, 0x100, "T.Shared");
  g_assert_cmpuint(shared1, !=, shared2);
  ThreadWork w1 = {shared1, 100000}, w2 = {shared2, 7};
  GThread *threads[8];
  for (int i = 0; i < 8; i++)
    threads[i] = g_thread_new("tracer", thread_calls, &w1);
  thread_calls(&w2);
  for (int i = 0; i < 8; i++)
    g_thread_join(threads[i]);
  g_autoptr(SxsProfileModel) m = sxs__output_snapshot();
  g_assert_cmpuint(calls_of(model_of(m, t1.rt->id), "T.Shared"), ==, 800000);
  g_assert_cmpuint(calls_of(model_of(m, t2.rt->id), "T.Shared"), ==, 7);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD("/manager/trace/exact", test_exact);
  ADD("/manager/trace/tailcall", test_tailcall);
  ADD("/manager/trace/unwind", test_unwind);
  ADD("/manager/trace/resync", test_resync);
  ADD("/manager/trace/depth-overflow", test_depth_overflow);
  ADD("/manager/trace/runtimes-and-threads", test_runtimes_and_threads);
  ADD("/manager/trace/unwind-overflow", test_unwind_overflow);
  ADD("/manager/trace/thread-reuse", test_thread_reuse);
#undef ADD
  return g_test_run();
}
