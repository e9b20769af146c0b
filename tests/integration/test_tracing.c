/* Exact call tracing on a real runtime: the Tracing app's known counts (fib(20) = 21891 calls, a
 * million calls of a trivial method, a 5-frame chain that throws and is caught 100 times, real
 * IL tail calls, 8 threads on one method), both routings, include/exclude, hooks=empty, and
 * .NET Core 2.0, whose Linux JIT has no probes. The app's output, error output and exit code are
 * compared with an unprofiled run every time. */
#include <glib/gstdio.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 300

typedef ItestScratch Fixture;

static const char *const plain_env[] = {ITEST_NO_PROFILER_ENV, NULL};

/* Runs Tracing with `args` under `host` without and with the profiler ([tracing] body given);
 * both must agree on stdout, stderr and exit code 0. Returns the profile. */
static JsonNode *run_traced(Fixture *f, const char *host, const char *const *args, const char *tracing_body,
                            const char *const *extra_env) {
  g_autofree char *dll = itest_app("Tracing");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)host);
  g_ptr_array_add(argv, dll);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  g_autoptr(GPtrArray) penv = g_ptr_array_new();
  for (const char *const *e = plain_env; *e; e++)
    g_ptr_array_add(penv, (gpointer)*e);
  for (const char *const *e = extra_env; e && *e; e++)
    g_ptr_array_add(penv, (gpointer)*e);
  g_ptr_array_add(penv, NULL);
  g_autoptr(ItestRun) plain =
      itest_run((const char *const *)argv->pdata, (const char *const *)penv->pdata, f->dir, TIMEOUT);
  itest_assert_exit(plain, 0);

  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n[tracing]\n%s", f->output, tracing_body);
  g_autofree char *cfg = itest_write_file(f->dir, "trace.conf", text);
  g_auto(GStrv) base = itest_profiler_env(cfg);
  g_autoptr(GPtrArray) env = g_ptr_array_new();
  for (char **e = base; *e; e++)
    g_ptr_array_add(env, *e);
  for (const char *const *e = extra_env; e && *e; e++)
    g_ptr_array_add(env, (gpointer)*e);
  g_ptr_array_add(env, NULL);
  g_unlink(f->profile);
  g_autoptr(ItestRun) run =
      itest_run((const char *const *)argv->pdata, (const char *const *)env->pdata, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, plain->out);
  g_assert_cmpstr(run->err, ==, plain->err);
  return itest_load_json(f->profile);
}

static JsonObject *tracing_of(JsonObject *rt) {
  g_assert_true(json_object_has_member(rt, "tracing"));
  return json_object_get_object_member(rt, "tracing");
}

/* calls of a function; -1 when it has no "calls" (not traced). Fails when the function is absent. */
static gint64 calls(JsonObject *rt, const char *name) {
  JsonObject *f = itest_runtime_function(rt, name);
  if (!f)
    g_test_message("no function %s in the profile", name);
  g_assert_nonnull(f);
  return json_object_has_member(f, "calls") ? json_object_get_int_member(f, "calls") : -1;
}

static gint64 member(JsonObject *o, const char *name) {
  g_assert_true(json_object_has_member(o, name));
  return json_object_get_int_member(o, name);
}

/* Node times: a caller's inclusive time covers its callees' (a nanosecond of rounding each), and
 * exclusive time is within inclusive time. */
static void assert_call_tree(JsonObject *rt) {
  JsonArray *tree = json_object_get_array_member(rt, "call_tree");
  guint n = json_array_get_length(tree);
  g_assert_cmpuint(n, >, 10);
  g_autoptr(GHashTable) inclusive = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GHashTable) child_sum = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GHashTable) child_count = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  for (guint i = 0; i < n; i++) {
    JsonObject *node = json_array_get_object_element(tree, i);
    gint64 id = member(node, "id"), parent = member(node, "parent");
    gint64 inc = member(node, "inclusive_ns"), exc = member(node, "exclusive_ns");
    g_assert_cmpint(exc, <=, inc);
    g_assert_cmpint(member(node, "calls"), >, 0);
    g_hash_table_insert(inclusive, g_memdup2(&id, sizeof id), g_memdup2(&inc, sizeof inc));
    if (!parent)
      continue;
    gint64 *sum = g_hash_table_lookup(child_sum, &parent);
    gint64 *count = g_hash_table_lookup(child_count, &parent);
    if (!sum) {
      sum = g_new0(gint64, 1);
      count = g_new0(gint64, 1);
      g_hash_table_insert(child_sum, g_memdup2(&parent, sizeof parent), sum);
      g_hash_table_insert(child_count, g_memdup2(&parent, sizeof parent), count);
    }
    *sum += inc;
    *count += 1;
  }
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, child_sum);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    gint64 *inc = g_hash_table_lookup(inclusive, key);
    g_assert_nonnull(inc);
    g_assert_cmpint(*inc + *(gint64 *)g_hash_table_lookup(child_count, key), >=, *(gint64 *)value);
  }
}

static void assert_exact_counts(JsonObject *rt) {
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Fib"), ==, 21891);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Trivial"), ==, 1000000);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Shared"), ==, 800000);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Catcher"), ==, 1);
  const char *levels[] = {"Sxs.Tests.Tracing.Level1", "Sxs.Tests.Tracing.Level2", "Sxs.Tests.Tracing.Level3",
                          "Sxs.Tests.Tracing.Level4", "Sxs.Tests.Tracing.Level5"};
  gint64 previous = G_MAXINT64;
  for (guint i = 0; i < G_N_ELEMENTS(levels); i++) {
    g_assert_cmpint(calls(rt, levels[i]), ==, 100);
    /* Each level's time covers the levels it calls. */
    gint64 inc = member(itest_runtime_function(rt, levels[i]), "inclusive_ns");
    g_assert_cmpint(inc, <=, previous);
    previous = inc;
  }
  JsonObject *t = tracing_of(rt);
  /* The throwing chain leaves 5 frames per throw through unwinding; every stack ends empty. */
  g_assert_cmpint(member(t, "unwound"), ==, 500);
  g_assert_cmpint(member(t, "open_frames"), ==, 0);
  g_assert_cmpint(member(t, "depth_overflows"), ==, 0);
  JsonObject *fib = itest_runtime_function(rt, "Sxs.Tests.Tracing.Fib");
  g_assert_cmpint(member(fib, "exclusive_ns"), <=, member(fib, "inclusive_ns"));
  assert_call_tree(rt);
}

static void check_routing(Fixture *f, const char *routing) {
  g_autofree char *body = g_strdup_printf("enabled=true\nrouting=%s\n", routing);
  const char *all[] = {"all", NULL};
  g_autoptr(JsonNode) doc = run_traced(f, itest_env("SXS_DOTNET"), all, body, NULL);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  JsonObject *t = tracing_of(rt);
  g_assert_true(json_object_get_boolean_member(t, "enabled"));
  g_assert_cmpstr(json_object_get_string_member(t, "path"), ==, "fast");
  g_assert_cmpstr(json_object_get_string_member(t, "routing"), ==, routing);
  g_assert_cmpint(member(t, "functions_hooked"), ==, member(t, "functions_mapped"));
  assert_exact_counts(rt);

  /* Real IL tail calls (Ping and Pong tail-call each other): each replaces its caller's frame. */
  const char *tail[] = {"tailpair", NULL};
  g_autoptr(JsonNode) tdoc = run_traced(f, itest_env("SXS_DOTNET"), tail, body, NULL);
  JsonObject *trt = itest_profile_runtime(tdoc, 1);
  g_assert_cmpint(calls(trt, "Sxs.Tests.TailCalls.Ping"), ==, 1001);
  g_assert_cmpint(calls(trt, "Sxs.Tests.TailCalls.Pong"), ==, 1000);
  g_assert_cmpint(member(tracing_of(trt), "tailcalls"), ==, 2000);
  g_assert_cmpint(member(tracing_of(trt), "open_frames"), ==, 0);
  /* Not nested: every Ping and Pong node hangs off the same caller. */
  JsonArray *tree = json_object_get_array_member(trt, "call_tree");
  gint64 parent = -1;
  guint seen = 0;
  for (guint i = 0; i < json_array_get_length(tree); i++) {
    JsonObject *node = json_array_get_object_element(tree, i);
    const char *name = json_object_get_string_member(node, "name");
    if (!g_str_has_prefix(name, "Sxs.Tests.TailCalls.P"))
      continue;
    if (parent < 0)
      parent = member(node, "parent");
    g_assert_cmpint(member(node, "parent"), ==, parent);
    seen++;
  }
  g_assert_cmpuint(seen, ==, 2);
}

static void test_mapper2(Fixture *f, gconstpointer data) {
  (void)data;
  check_routing(f, "mapper2");
}

/* The slow path: the runtime's stubs call plain C hooks; the counts are the same. */
static void test_slow_path(Fixture *f, gconstpointer data) {
  (void)data;
  const char *all[] = {"all", NULL};
  g_autoptr(JsonNode) doc = run_traced(f, itest_env("SXS_DOTNET"), all, "enabled=true\npath=slow\n", NULL);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_cmpstr(json_object_get_string_member(tracing_of(rt), "path"), ==, "slow");
  assert_exact_counts(rt);
}

static void test_closure(Fixture *f, gconstpointer data) {
  (void)data;
  check_routing(f, "closure");
}

/* include/exclude: an excluded function gets no probes (no calls counted), the others stay exact;
 * a pattern that matches nothing is reported in one log line. */
static void test_include_exclude(Fixture *f, gconstpointer data) {
  (void)data;
  const char *args[] = {"all", NULL};
  g_autoptr(JsonNode) doc = run_traced(f, itest_env("SXS_DOTNET"), args,
                                       "enabled=true\ninclude=Sxs.Tests.*, Nothing.Like.This*\n"
                                       "exclude=Sxs.Tests.Tracing.Trivial\n",
                                       NULL);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Trivial"), ==, -1);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Fib"), ==, 21891);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Shared"), ==, 800000);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Loop"), ==, 1);
  /* Nothing outside the included namespace was counted. */
  JsonArray *fns = json_object_get_array_member(rt, "functions");
  for (guint i = 0; i < json_array_get_length(fns); i++) {
    JsonObject *fn = json_array_get_object_element(fns, i);
    if (json_object_has_member(fn, "calls"))
      g_assert_true(g_str_has_prefix(json_object_get_string_member(fn, "name"), "Sxs.Tests."));
  }
  JsonObject *t = tracing_of(rt);
  g_assert_cmpint(member(t, "functions_hooked"), <, member(t, "functions_mapped"));
  g_autofree char *log_path = g_strconcat(f->output, ".log", NULL);
  g_autofree char *log = itest_read_file(log_path);
  g_assert_nonnull(strstr(log, "[tracing] include pattern \"Nothing.Like.This*\" matched none of the "));
  g_assert_null(strstr(log, "\"Sxs.Tests.*\" matched none"));
}

/* An invalid pattern: one clear line, no profiling, the app as it is. */
static void test_invalid_pattern(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Tracing");
  g_autofree char *cfg = itest_write_file(f->dir, "bad.conf", "[profiler]\n[tracing]\nenabled=true\ninclude=Foo[\n");
  g_auto(GStrv) env = itest_profiler_env(cfg);
  const char *argv[] = {itest_env("SXS_DOTNET"), dll, "fib", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, (const char *const *)env, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, "fib n=20 result=6765 calls=21891\n");
  g_assert_cmpstr(run->err, ==, "");
  g_autoptr(GDir) d = g_dir_open(f->dir, 0, NULL);
  guint logs = 0;
  for (const char *n; (n = g_dir_read_name(d));) {
    g_assert_false(g_str_has_suffix(n, ".json"));
    if (g_str_has_suffix(n, ".log")) {
      g_autofree char *path = g_build_filename(f->dir, n, NULL);
      g_autofree char *log = itest_read_file(path);
      g_assert_nonnull(strstr(log, "include pattern \"Foo[\" contains '[', which is reserved"));
      g_assert_nonnull(strstr(log, "profiling is off"));
      logs++;
    }
  }
  g_assert_cmpuint(logs, ==, 1);
}

/* hooks=empty: functions are mapped, probes run, nothing is counted. */
static void test_hooks_empty(Fixture *f, gconstpointer data) {
  (void)data;
  const char *args[] = {"fib", NULL};
  g_autoptr(JsonNode) doc = run_traced(f, itest_env("SXS_DOTNET"), args, "enabled=true\nhooks=empty\n", NULL);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  JsonObject *t = tracing_of(rt);
  g_assert_cmpstr(json_object_get_string_member(t, "hooks"), ==, "empty");
  g_assert_cmpint(member(t, "functions_mapped"), >, 10);
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Fib"), ==, -1);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(rt, "call_tree")), ==, 0);
}

/* timing=off: exact counts and the call tree, no times (and no clock reads). */
static void test_timing_off(Fixture *f, gconstpointer data) {
  (void)data;
  const char *args[] = {"fib", NULL};
  g_autoptr(JsonNode) doc = run_traced(f, itest_env("SXS_DOTNET"), args, "enabled=true\ntiming=off\n", NULL);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_false(json_object_get_boolean_member(tracing_of(rt), "timing"));
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Fib"), ==, 21891);
  g_assert_false(json_object_has_member(itest_runtime_function(rt, "Sxs.Tests.Tracing.Fib"), "inclusive_ns"));
  JsonArray *tree = json_object_get_array_member(rt, "call_tree");
  g_assert_cmpuint(json_array_get_length(tree), >, 20);
  g_assert_false(json_object_has_member(json_array_get_object_element(tree, 0), "inclusive_ns"));
}

/* .NET Core 2.0 accepts the hooks but its Linux JIT emits no probes: tracing is off for it, with
 * the reason, and the app runs as it does without the profiler. */
static void test_core20(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *host = g_build_filename(itest_env("SXS_RUNTIMES_DIR"), "dotnet", NULL);
  const char *env[] = {"CLR_ICU_VERSION_OVERRIDE=72", NULL};
  const char *args[] = {"fib", NULL};
  g_autoptr(JsonNode) doc = run_traced(f, host, args, "enabled=true\n", env);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_cmpstr(json_object_get_string_member(rt, "status"), ==, "profiling");
  JsonObject *t = tracing_of(rt);
  g_assert_false(json_object_get_boolean_member(t, "enabled"));
  g_assert_nonnull(strstr(json_object_get_string_member(t, "reason"), "no ELT3"));
  g_assert_cmpint(calls(rt, "Sxs.Tests.Tracing.Fib"), ==, -1);
  g_autofree char *log_path = g_strconcat(f->output, ".log", NULL);
  g_autofree char *log = itest_read_file(log_path);
  g_assert_nonnull(strstr(log, ": tracing is off: "));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Fixture, NULL, itest_scratch_setup, fn, itest_scratch_teardown)
  ADD("/tracing/exact/mapper2", test_mapper2);
  ADD("/tracing/exact/closure", test_closure);
  ADD("/tracing/exact/slow-path", test_slow_path);
  ADD("/tracing/include-exclude", test_include_exclude);
  ADD("/tracing/invalid-pattern", test_invalid_pattern);
  ADD("/tracing/hooks-empty", test_hooks_empty);
  ADD("/tracing/timing-off", test_timing_off);
  ADD("/tracing/core20-off", test_core20);
#undef ADD
  return g_test_run();
}
