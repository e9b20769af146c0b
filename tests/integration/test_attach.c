/* Attaching to running processes with `sxsprof attach`: the catch-up finds what a profile loaded
 * at startup finds, samples taken after the attach land in the loop's hot function, modules that
 * load and unload all the time during the attach harm nothing, a second attach to a profiled
 * runtime is refused, and one runtime of a runsxs process is attached to alone, then the other. */
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "itest.h"

#define TIMEOUT 120

/* Waits until the file at path holds needle (the app's start line), or fails. */
static void wait_for(const char *path, const char *needle) {
  g_assert_true(itest_wait_for_text(path, needle, 60));
}

/* Starts a program in the background, its stdout to dir/name.out. */
static ItestProc *start(const char *dir, const char *name, const char *const *argv) {
  g_autofree char *out = g_build_filename(dir, name, NULL);
  g_autofree char *err = g_strconcat(out, ".err", NULL);
  return itest_spawn(argv, NULL, dir, out, err, FALSE);
}

/* "sxsprof attach PID ARGS..." run to its end; the profile it names. */
static char *attach(const char *dir, int pid, const char *const *args, ItestRun **ret_run) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(argv, g_strdup(itest_env("SXS_SXSPROF")));
  g_ptr_array_add(argv, g_strdup("attach"));
  g_ptr_array_add(argv, g_strdup_printf("%d", pid));
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, g_strdup(*a));
  g_ptr_array_add(argv, NULL);
  ItestRun *run = itest_run((const char *const *)argv->pdata, NULL, dir, TIMEOUT);
  g_test_message("attach: exit %d\nstderr:\n%s", run->exit_code, run->err);
  *ret_run = run;
  const char *at = strstr(run->err, "; profile: ");
  if (!at)
    return NULL;
  at += strlen("; profile: ");
  return g_strndup(at, strcspn(at, "\n"));
}

/* Function names of a runtime of a profile: jit_only keeps those the JIT compiled. */
static GHashTable *function_names(JsonObject *runtime, gboolean jit_only) {
  GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  JsonArray *fns = json_object_get_array_member(runtime, "functions");
  for (guint i = 0; i < json_array_get_length(fns); i++) {
    JsonObject *f = json_array_get_object_element(fns, i);
    if (jit_only && json_object_get_int_member(f, "jit_compiled") == 0)
      continue;
    g_hash_table_add(names, g_strdup(json_object_get_string_member(f, "name")));
  }
  return names;
}

/* The runtime of a profile whose version starts with prefix, or NULL. */
static JsonObject *runtime_by_version(JsonNode *doc, const char *prefix) {
  JsonArray *rts = json_object_get_array_member(json_node_get_object(doc), "runtimes");
  for (guint i = 0; i < json_array_get_length(rts); i++) {
    JsonObject *r = json_array_get_object_element(rts, i);
    if (g_str_has_prefix(json_object_get_string_member(r, "version"), prefix))
      return r;
  }
  return NULL;
}

/* Samples with a frame named name over all samples. */
static double sample_share(JsonNode *doc, const char *name) {
  JsonArray *stacks =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(doc), "samples"), "stacks");
  gint64 all = 0, with = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *s = json_array_get_object_element(stacks, i);
    gint64 count = json_object_get_int_member(s, "count");
    all += count;
    JsonArray *frames = json_object_get_array_member(s, "frames");
    for (guint j = 0; j < json_array_get_length(frames); j++)
      if (g_strcmp0(json_object_get_string_member(json_array_get_object_element(frames, j), "name"), name) == 0) {
        with += count;
        break;
      }
  }
  g_test_message("%s in %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " samples", name, with, all);
  return all ? (double)with / (double)all : 0.0;
}

/* The app in its loop, attached to 2 s in with --inventory: every function the JIT compiled for a
 * profile loaded at startup is in the attached profile too (caught up, or seen by events after the attach), the
 * modules are the same, and the samples are the loop's. A second attach is refused. */
static void test_catch_up(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  /* The reference: the same app profiled from its start. */
  g_autofree char *ref = g_build_filename(s->dir, "ref", NULL);
  const char *ref_argv[] = {itest_env("SXS_SXSPROF"), "run", "--inventory", "--format", "json", "-q", "-o", ref, "--",
                            itest_env("SXS_DOTNET"),  app,   "hotcold",     "3",        NULL};
  g_autoptr(ItestRun) ref_run = itest_run(ref_argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(ref_run, 0);

  const char *argv[] = {itest_env("SXS_DOTNET"), app, "hotcold", "7", NULL};
  g_autoptr(ItestProc) proc = start(s->dir, "app.out", argv);
  g_usleep(2 * G_USEC_PER_SEC);
  g_autoptr(ItestRun) run = NULL;
  g_autofree char *out = g_build_filename(s->dir, "att", NULL);
  const char *args[] = {"--sample=199", "--inventory", "--duration", "2", "--format", "json,summary", "-o", out, NULL};
  g_autofree char *profile = attach(s->dir, (int)proc->pid, args, &run);
  itest_assert_exit(run, 0);
  g_assert_nonnull(profile);
  g_autofree char *want = g_strconcat(out, ".json", NULL);
  g_assert_cmpstr(profile, ==, want);

  /* The runtime already has the profiler: a second attach is refused, the app runs on. */
  g_autoptr(ItestRun) again = NULL;
  const char *again_args[] = {"--duration", "1", "-o", out, NULL};
  g_autofree char *none = attach(s->dir, (int)proc->pid, again_args, &again);
  g_assert_null(none);
  g_assert_cmpint(again->exit_code, !=, 0);
  g_assert_nonnull(strstr(again->err, "already"));

  g_assert_cmpint(itest_proc_wait(proc, TIMEOUT), ==, 0);
  g_autofree char *app_out = g_build_filename(s->dir, "app.out", NULL);
  wait_for(app_out, "hotcold seconds=7 ");

  /* The profile as the process left it at exit (JIT events after the stop included). */
  g_autoptr(JsonNode) doc = itest_load_json(profile);
  g_autofree char *ref_json = g_strconcat(ref, ".json", NULL);
  g_autoptr(JsonNode) ref_doc = itest_load_json(ref_json);
  JsonObject *rt = itest_profile_runtime(doc, 1), *ref_rt = itest_profile_runtime(ref_doc, 1);
  g_assert_true(json_object_get_boolean_member(rt, "attached"));
  g_assert_nonnull(json_object_get_string_member(rt, "attached_at"));
  g_assert_false(json_object_get_boolean_member(ref_rt, "attached"));
  g_autoptr(GHashTable) ref_jit = function_names(ref_rt, TRUE);
  g_autoptr(GHashTable) got = function_names(rt, FALSE);
  guint missing = 0;
  GHashTableIter it;
  gpointer name;
  g_hash_table_iter_init(&it, ref_jit);
  while (g_hash_table_iter_next(&it, &name, NULL))
    if (!g_hash_table_contains(got, name)) {
      g_test_message("missing after attach: %s", (const char *)name);
      missing++;
    }
  g_assert_cmpuint(g_hash_table_size(ref_jit), >, 5);
  g_assert_cmpuint(missing, ==, 0);
  g_assert_true(g_hash_table_contains(got, "Hot.Spin"));
  g_assert_true(g_hash_table_contains(got, "SxsSample.HotCold"));
  /* Every module: caught up plus loaded since, as many as from the start. */
  g_assert_cmpint(itest_runtime_counter(rt, "modules_loaded"), ==, itest_runtime_counter(ref_rt, "modules_loaded"));
  /* Samples from the attach on: the loop's hot function. */
  g_assert_cmpfloat(sample_share(doc, "Hot.Spin"), >=, 0.70);
}

/* Modules load and unload all the time (collectible contexts) while the profiler attaches and
 * records GC stacks: no stale ID is queried (the app exits normally), the unloads are counted. */
static void test_unloads(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  for (int round = 0; round < 4; round++) {
    g_autofree char *name = g_strdup_printf("app%d.out", round);
    const char *argv[] = {itest_env("SXS_DOTNET"), app, "alc", "5", NULL};
    g_autoptr(ItestProc) proc = start(s->dir, name, argv);
    g_usleep((1000 + 300 * round) * 1000);
    g_autofree char *out = g_strdup_printf("%s/alc%d", s->dir, round);
    const char *args[] = {"--stacks-on", "gc", "--inventory", "--duration", "1", "--format",
                          "json",        "-q", "-o",          out,          NULL};
    g_autoptr(ItestRun) run = NULL;
    g_autofree char *profile = attach(s->dir, (int)proc->pid, args, &run);
    if (run->exit_code != 0) {
      int status = itest_proc_wait(proc, TIMEOUT);
      g_autofree char *err_path = g_strdup_printf("%s/%s.err", s->dir, name);
      g_autofree char *err = itest_read_file(err_path);
      g_test_message("the app ended with %d; its stderr:\n%s", status, err);
    }
    itest_assert_exit(run, 0);
    g_assert_cmpint(itest_proc_wait(proc, TIMEOUT), ==, 0);
    g_autofree char *app_out = g_build_filename(s->dir, name, NULL);
    g_autofree char *text = itest_read_file(app_out);
    guint loads = 0;
    g_assert_cmpint(sscanf(strstr(text, "loads="), "loads=%u", &loads), ==, 1);
    g_autofree char *path = g_strconcat(out, ".json", NULL);
    g_autoptr(JsonNode) doc = itest_load_json(path);
    JsonObject *rt = itest_profile_runtime(doc, 1);
    gint64 unloaded = itest_runtime_counter(rt, "modules_unloaded");
    g_test_message("round %d: %u loads, %" G_GINT64_FORMAT " unloads seen", round, loads, unloaded);
    g_assert_cmpint(unloaded, >, 0);
    g_assert_cmpint(unloaded, <=, loads);
    g_autoptr(GHashTable) names = function_names(rt, FALSE);
    g_assert_true(g_hash_table_contains(names, "Plugin.Work"));
  }
}

/* runsxs with two runtimes, each with its own diagnostics port: runtime 2 is attached to alone,
 * runtime 1 never loads the profiler; then runtime 1 is attached to as well. */
static void test_runsxs(ItestScratch *s, gconstpointer data) {
  const char *second = data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {
      itest_env("SXS_RUNSXS"), "--diagnostics", "10.0", app, "spin One 9", second, app, "spin Two 9", NULL};
  g_autoptr(ItestProc) proc = start(s->dir, "app.out", argv);
  g_usleep(2500 * 1000);
  g_autofree char *out = g_build_filename(s->dir, "rt2", NULL);
  const char *args2[] = {"--runtime", "2", "--inventory", "--duration", "1", "--format", "json", "-q", "-o", out, NULL};
  g_autoptr(ItestRun) run2 = NULL;
  g_autofree char *profile = attach(s->dir, (int)proc->pid, args2, &run2);
  itest_assert_exit(run2, 0);
  g_assert_nonnull(profile);
  {
    g_autoptr(JsonNode) doc = itest_load_json(profile);
    g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 1);
    JsonObject *rt = runtime_by_version(doc, second);
    g_assert_nonnull(rt);
    g_autoptr(GHashTable) names = function_names(rt, FALSE);
    g_assert_true(g_hash_table_contains(names, "RuntimeTwo.Spin"));
    g_assert_false(g_hash_table_contains(names, "RuntimeOne.Spin"));
  }
  const char *args1[] = {"--runtime", "1", "--inventory", "--duration", "1", "--format", "json", "-q", "-o", out, NULL};
  g_autoptr(ItestRun) run1 = NULL;
  g_autofree char *profile1 = attach(s->dir, (int)proc->pid, args1, &run1);
  itest_assert_exit(run1, 0);
  g_assert_cmpstr(profile1, ==, profile);
  g_autoptr(JsonNode) doc = itest_load_json(profile1);
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 2);
  /* Each function under its own runtime (two copies of 10.0 have the same version). */
  JsonObject *one = NULL, *two = NULL;
  for (gint64 id = 1; id <= 2; id++) {
    JsonObject *rt = itest_profile_runtime(doc, id);
    g_assert_true(json_object_get_boolean_member(rt, "attached"));
    g_autoptr(GHashTable) names = function_names(rt, FALSE);
    if (g_hash_table_contains(names, "RuntimeOne.Spin"))
      one = rt;
    if (g_hash_table_contains(names, "RuntimeTwo.Spin"))
      two = rt;
  }
  g_assert_nonnull(one);
  g_assert_nonnull(two);
  g_assert_true(one != two);
  g_assert_true(g_str_has_prefix(json_object_get_string_member(one, "version"), "10.0."));
  g_assert_true(g_str_has_prefix(json_object_get_string_member(two, "version"), second));
  g_assert_cmpstr(json_object_get_string_member(one, "path"), !=, json_object_get_string_member(two, "path"));
  g_assert_cmpint(itest_proc_wait(proc, TIMEOUT), ==, 0);
}

/* "sxsprof attach PID ARGS..." started in the background, its stderr to dir/attach.err. */
static ItestProc *start_attach(const char *dir, int pid, const char *const *args) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(argv, g_strdup(itest_env("SXS_SXSPROF")));
  g_ptr_array_add(argv, g_strdup("attach"));
  g_ptr_array_add(argv, g_strdup_printf("%d", pid));
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, g_strdup(*a));
  g_ptr_array_add(argv, NULL);
  g_autofree char *out = g_build_filename(dir, "attach.out", NULL);
  g_autofree char *err = g_build_filename(dir, "attach.err", NULL);
  return itest_spawn((const char *const *)argv->pdata, NULL, dir, out, err, FALSE);
}

/* The target is killed while it is profiled: attach says so at once, with the signal (this test
 * is the target's parent and has not collected it yet, so its status is still there to read). */
static void test_target_killed(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "hotcold", "60", NULL};
  g_autoptr(ItestProc) proc = start(s->dir, "app.out", argv);
  g_usleep(2 * G_USEC_PER_SEC); /* its runtime up, with its diagnostics socket */
  const char *args[] = {"--sample", "--duration", "60", "-o", s->output, NULL};
  g_autoptr(ItestProc) attach = start_attach(s->dir, (int)proc->pid, args);
  g_autofree char *err_path = g_build_filename(s->dir, "attach.err", NULL);
  g_assert_true(itest_wait_for_text(err_path, "sxsprof: profiling runtime ", 60));
  g_assert_cmpint(kill(proc->pid, SIGKILL), ==, 0);
  gint64 killed = g_get_monotonic_time();
  int code = itest_proc_wait(attach, 30);
  gint64 answered = g_get_monotonic_time() - killed;
  g_autofree char *err = itest_read_file(err_path);
  g_test_message("attach: exit %d %.1f s after the kill\nstderr:\n%s", code, answered / 1e6, err);
  g_assert_cmpint(code, ==, 1);
  g_assert_cmpint(answered, <, 10 * G_USEC_PER_SEC);
  g_autofree char *line = g_strdup_printf(
      "sxsprof: process %d was killed by signal 9 (SIGKILL) before the profiler wrote a profile\n", (int)proc->pid);
  g_assert_nonnull(strstr(err, line));
  g_assert_null(strstr(err, "closed the control connection"));
  g_assert_cmpint(itest_proc_wait(proc, TIMEOUT), ==, 128 + SIGKILL);
}

/* The target ends by itself while it is profiled: its exit wrote the profile, which attach hands
 * over with its views, and says how the target ended. */
static void test_target_exits(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "hotcold", "6", NULL};
  g_autoptr(ItestProc) proc = start(s->dir, "app.out", argv);
  g_usleep(2 * G_USEC_PER_SEC);
  const char *args[] = {"--sample", "--duration", "60", "--format", "json,svg", "-o", s->output, NULL};
  g_autoptr(ItestProc) attach = start_attach(s->dir, (int)proc->pid, args);
  int code = itest_proc_wait(attach, TIMEOUT);
  g_autofree char *err_path = g_build_filename(s->dir, "attach.err", NULL);
  g_autofree char *err = itest_read_file(err_path);
  g_test_message("attach: exit %d\nstderr:\n%s", code, err);
  g_assert_cmpint(code, ==, 0);
  g_autofree char *line = g_strdup_printf(
      "sxsprof: process %d exited with status 0 while it was profiled; the profile is what its exit wrote\n",
      (int)proc->pid);
  g_assert_nonnull(strstr(err, line));
  g_autofree char *profile = g_strdup_printf("; profile: %s\n", s->profile);
  g_assert_nonnull(strstr(err, profile));
  g_autofree char *graph = g_strdup_printf("sxsprof: flame graph: %s.svg\n", s->output);
  g_assert_nonnull(strstr(err, graph));
  g_assert_cmpint(itest_proc_wait(proc, TIMEOUT), ==, 0);
  g_autoptr(JsonNode) doc = itest_load_json(s->profile);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_true(json_object_get_boolean_member(rt, "attached"));
  /* Without --inventory the catch-up lists no function and nothing is compiled into the profile. */
  g_assert_false(json_object_get_boolean_member(json_object_get_object_member(rt, "inventory"), "enabled"));
  g_assert_cmpint(itest_runtime_counter(rt, "jit_compiled"), ==, 0);
  g_autoptr(GHashTable) compiled = function_names(rt, TRUE);
  g_assert_cmpuint(g_hash_table_size(compiled), ==, 0);
}

/* An attach to a starter whose .NET work runs in its child: the profile is written (into a
 * folder -o names that did not exist), and the launcher says that the starter only waits and
 * names the child to attach to. */
static void test_starter(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("Starter");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "6", NULL};
  g_autoptr(ItestProc) proc = start(s->dir, "app.out", argv);
  g_usleep(2 * G_USEC_PER_SEC);
  g_autofree char *folder = g_build_filename(s->dir, "new", "folder", NULL);
  g_autofree char *output = g_strconcat(folder, "/", NULL);
  const char *args[] = {"--sample", "--duration", "2", "--format", "json,svg", "-o", output, NULL};
  g_autoptr(ItestRun) run = NULL;
  int starter = (int)proc->pid;
  g_autofree char *profile = attach(s->dir, starter, args, &run);
  g_assert_cmpint(run->exit_code, ==, 0);
  g_assert_nonnull(profile);
  g_assert_true(g_str_has_prefix(profile, folder));
  g_assert_true(g_file_test(profile, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint(itest_proc_wait(proc, TIMEOUT), ==, 0);
  g_autofree char *out_path = g_build_filename(s->dir, "app.out", NULL);
  g_autofree char *out = itest_read_file(out_path);
  int child = 0;
  const char *at = strstr(out, "starter child=");
  g_assert_nonnull(at);
  g_assert_cmpint(sscanf(at, "starter child=%d", &child), ==, 1);
  g_autofree char *said = g_strdup_printf("sxsprof: process %d ran no code while it was profiled (no samples or "
                                          "events): it only waits for its child %d (",
                                          starter, child);
  g_assert_nonnull(strstr(run->err, said));
  g_autofree char *how = g_strdup_printf("which runs .NET; to profile the work: sxsprof attach %d\n", child);
  g_assert_nonnull(strstr(run->err, how));
  g_assert_nonnull(
      strstr(run->err, "sxsprof: no flame graph: sampling was on, but the process ran no code while it was sampled\n"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/attach/catch-up", ItestScratch, NULL, itest_scratch_setup, test_catch_up, itest_scratch_teardown);
  g_test_add("/attach/target-killed", ItestScratch, NULL, itest_scratch_setup, test_target_killed,
             itest_scratch_teardown);
  g_test_add("/attach/target-exits", ItestScratch, NULL, itest_scratch_setup, test_target_exits,
             itest_scratch_teardown);
  g_test_add("/attach/unloads", ItestScratch, NULL, itest_scratch_setup, test_unloads, itest_scratch_teardown);
  g_test_add("/attach/starter", ItestScratch, NULL, itest_scratch_setup, test_starter, itest_scratch_teardown);
  g_test_add("/attach/runsxs/10+9", ItestScratch, "9.0", itest_scratch_setup, test_runsxs, itest_scratch_teardown);
  g_test_add("/attach/runsxs/10+8", ItestScratch, "8.0", itest_scratch_setup, test_runsxs, itest_scratch_teardown);
  g_test_add("/attach/runsxs/10+3.1", ItestScratch, "3.1", itest_scratch_setup, test_runsxs, itest_scratch_teardown);
  g_test_add("/attach/runsxs/10+10", ItestScratch, "10.0", itest_scratch_setup, test_runsxs, itest_scratch_teardown);
  return g_test_run();
}
