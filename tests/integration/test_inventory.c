/* The function inventory ([profiler] inventory=, --inventory) on real runtimes: off by default,
 * with nothing compiled or named into the profile while the sampler still names the hot function;
 * on, with the app's functions listed, named, and counted exactly, and named on a thread of the
 * profiler's rather than on the program's. */
#include <string.h>

#include "itest.h"

#define TIMEOUT 180

typedef ItestScratch Fixture;

/* Runs SxsSample hotcold 2 on `runtime` ("dotnet": the SDK's 10, else a runsxs RUNTIME such as
 * "8.0") with the profiler and a config of [profiler] lines `profiler` and the groups `groups`. */
static JsonNode *run_hotcold(Fixture *f, const char *runtime, const char *profiler, const char *groups) {
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n%s%s", f->output, profiler, groups);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", text);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  g_autofree char *app = itest_app("SxsSample");
  const char *by_dotnet[] = {itest_env("SXS_DOTNET"), app, "hotcold", "2", NULL};
  const char *by_runsxs[] = {itest_env("SXS_RUNSXS"), runtime, app, "hotcold 2", NULL};
  g_autoptr(ItestRun) run =
      itest_run(g_str_equal(runtime, "dotnet") ? by_dotnet : by_runsxs, (const char *const *)env, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "hotcold seconds=2 "));
  g_assert_cmpstr(run->err, ==, "");
  return itest_load_json(f->profile);
}

static JsonObject *inventory_of(JsonObject *rt) {
  g_assert_true(json_object_has_member(rt, "inventory"));
  return json_object_get_object_member(rt, "inventory");
}

/* The runtime the app ran in: the profile's only one, profiled, of the version asked for. */
static JsonObject *app_runtime(JsonNode *doc, const char *runtime) {
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 1);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_cmpstr(json_object_get_string_member(rt, "status"), ==, "profiling");
  const char *version = json_object_get_string_member(rt, "version");
  g_assert_true(g_str_has_prefix(version, g_str_equal(runtime, "dotnet") ? "10." : runtime));
  return rt;
}

/* The sum of one count over a runtime's functions. */
static gint64 sum_of(JsonObject *rt, const char *count) {
  JsonArray *fns = json_object_get_array_member(rt, "functions");
  gint64 sum = 0;
  for (guint i = 0; i < json_array_get_length(fns); i++)
    sum += json_object_get_int_member(json_array_get_object_element(fns, i), count);
  return sum;
}

/* Samples whose leaf frame is the managed function `name`. */
static gint64 leaf_samples(JsonNode *doc, const char *name) {
  JsonObject *samples = json_object_get_object_member(json_node_get_object(doc), "samples");
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  gint64 n = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *s = json_array_get_object_element(stacks, i);
    JsonArray *frames = json_object_get_array_member(s, "frames");
    if (json_array_get_length(frames) == 0)
      continue;
    JsonObject *leaf = json_array_get_object_element(frames, 0);
    if (g_str_equal(json_object_get_string_member(leaf, "kind"), "managed") &&
        g_str_equal(json_object_get_string_member(leaf, "name"), name))
      n += json_object_get_int_member(s, "count");
  }
  return n;
}

/* The defaults: no inventory. Nothing is compiled into the profile (no JIT or cache-search
 * callbacks, so the counter stays 0) and no function is named or listed; with the sampler on,
 * the samples still name the hot function (from its instruction pointers, on the sampler's
 * thread), and the only functions listed are those the samples met, with nothing counted. */
static void test_off(Fixture *f, gconstpointer data) {
  const char *runtime = data;
  {
    g_autoptr(JsonNode) doc = run_hotcold(f, runtime, "", "");
    JsonObject *rt = app_runtime(doc, runtime);
    JsonObject *inv = inventory_of(rt);
    g_assert_false(json_object_get_boolean_member(inv, "enabled"));
    g_assert_cmpint(json_object_get_int_member(inv, "events"), ==, 0);
    g_assert_cmpint(json_object_get_int_member(inv, "named"), ==, 0);
    g_assert_cmpint(itest_runtime_counter(rt, "jit_compiled"), ==, 0);
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(rt, "functions")), ==, 0);
    g_assert_cmpint(itest_runtime_counter(rt, "modules_loaded"), >=, 2);
  }
  g_autoptr(JsonNode) doc = run_hotcold(f, runtime, "", "[sampling]\nenabled=true\n");
  JsonObject *rt = app_runtime(doc, runtime);
  g_assert_false(json_object_get_boolean_member(inventory_of(rt), "enabled"));
  g_assert_cmpint(itest_runtime_counter(rt, "jit_compiled"), ==, 0);
  gint64 hot = leaf_samples(doc, "Hot.Spin");
  g_test_message("%s: %" G_GINT64_FORMAT " samples in Hot.Spin", runtime, hot);
  g_assert_cmpint(hot, >=, 20);
  JsonObject *spin = itest_runtime_function(rt, "Hot.Spin");
  g_assert_nonnull(spin);
  g_assert_cmpstr(json_object_get_string_member(spin, "module"), ==, "SxsSample.dll");
  g_assert_cmpint(sum_of(rt, "jit_compiled") + sum_of(rt, "inlined") + sum_of(rt, "precompiled"), ==, 0);
}

/* inventory=true: every JIT-compiled function of the app listed under its own name and module,
 * Main (called once, no loop) compiled exactly once; the counter is the sum of the functions'
 * compilations, and every event queued is in a function's counts. The names were read on one
 * thread, neither the process's main thread nor any thread of the runtime's. */
static void test_on(Fixture *f, gconstpointer data) {
  const char *runtime = data;
  g_autoptr(JsonNode) doc = run_hotcold(f, runtime, "inventory=true\n", "");
  JsonObject *rt = app_runtime(doc, runtime);
  JsonObject *inv = inventory_of(rt);
  g_assert_true(json_object_get_boolean_member(inv, "enabled"));
  static const char *const compiled[] = {"SxsSample.Main", "SxsSample.HotCold", "SxsSample.TryParseSeconds", "Hot.Spin",
                                         "Cold.Walk"};
  for (guint i = 0; i < G_N_ELEMENTS(compiled); i++) {
    JsonObject *fn = itest_runtime_function(rt, compiled[i]);
    if (!fn)
      g_test_message("%s: %s is not in the inventory", runtime, compiled[i]);
    g_assert_nonnull(fn);
    g_assert_cmpstr(json_object_get_string_member(fn, "module"), ==, "SxsSample.dll");
    g_assert_cmpint(json_object_get_int_member(fn, "jit_compiled"), >=, 1);
    g_assert_cmpint(json_object_get_int_member(fn, "precompiled"), ==, 0);
  }
  JsonObject *main_fn = itest_runtime_function(rt, "SxsSample.Main");
  g_assert_cmpint(json_object_get_int_member(main_fn, "jit_compiled"), ==, 1);
  g_assert_cmpint(json_object_get_int_member(main_fn, "inlined"), ==, 0);
  gint64 jit = sum_of(rt, "jit_compiled"), inlined = sum_of(rt, "inlined"), precompiled = sum_of(rt, "precompiled");
  g_test_message("%s: %" G_GINT64_FORMAT " JIT-compiled, %" G_GINT64_FORMAT " inlined, %" G_GINT64_FORMAT
                 " precompiled, %" G_GINT64_FORMAT " events, %" G_GINT64_FORMAT " named",
                 runtime, jit, inlined, precompiled, json_object_get_int_member(inv, "events"),
                 json_object_get_int_member(inv, "named"));
  g_assert_cmpint(itest_runtime_counter(rt, "jit_compiled"), ==, jit);
  g_assert_cmpint(json_object_get_int_member(inv, "events"), ==,
                  jit + inlined + precompiled + json_object_get_int_member(inv, "dropped"));
  g_assert_cmpint(json_object_get_int_member(inv, "named"), ==,
                  json_array_get_length(json_object_get_array_member(rt, "functions")));
  /* The framework runs precompiled (ReadyToRun) code: taken, named, never JIT-compiled first. */
  g_assert_cmpint(precompiled, >, 0);

  /* Named off the program's threads. */
  JsonArray *namers = json_object_get_array_member(inv, "naming_threads");
  g_assert_cmpuint(json_array_get_length(namers), ==, 1);
  gint64 namer = json_array_get_int_element(namers, 0);
  g_assert_cmpint(namer, >, 0);
  g_assert_cmpint(namer, !=, json_object_get_int_member(json_node_get_object(doc), "pid"));
  JsonArray *threads = json_object_get_array_member(rt, "threads");
  g_assert_cmpuint(json_array_get_length(threads), >=, 1);
  for (guint i = 0; i < json_array_get_length(threads); i++)
    g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(threads, i), "os_tid"), !=, namer);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  static const char *const runtimes[] = {"dotnet", "8.0", "3.1"};
  for (guint i = 0; i < G_N_ELEMENTS(runtimes); i++) {
    const char *label = g_str_equal(runtimes[i], "dotnet") ? "10" : runtimes[i];
    g_autofree char *off = g_strdup_printf("/inventory/off/%s", label);
    g_autofree char *on = g_strdup_printf("/inventory/on/%s", label);
    g_test_add(off, Fixture, runtimes[i], itest_scratch_setup, test_off, itest_scratch_teardown);
    g_test_add(on, Fixture, runtimes[i], itest_scratch_setup, test_on, itest_scratch_teardown);
  }
  return g_test_run();
}
