/* libsxsprof loaded by several runtimes in one process (runsxs): one callback instance per runtime,
 * exact per-runtime counters, no function of one app under another runtime, and the pick-first /
 * pick-one / pick-all policies, each under sequential (--st) and concurrent starts.
 *
 * The line-up is the same in every scenario:
 *   [1] 10.0 (the SDK's own folder)   Counts "7 2 1"   7 exceptions, 2 GCs, 1 thread
 *   [2] 2.0.0                         Demo   ""        no exceptions
 *   [3] 10.0 (a private copy)         ExitCode "0"     no exceptions
 * Profile entries are matched to runsxs indexes by the folder of their libcoreclr.so. */
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 240
#define N_RUNTIMES 3

typedef ItestScratch Fixture;

typedef struct {
  char *folder[N_RUNTIMES + 1]; /* framework folder of runsxs index i (1-based), canonical */
  JsonNode *doc;
} Outcome;

static void outcome_clear(Outcome *o) {
  for (int i = 0; i <= N_RUNTIMES; i++)
    g_free(o->folder[i]);
  if (o->doc)
    json_node_unref(o->doc);
}

static char *canonical(const char *path) {
  char *r = realpath(path, NULL);
  g_assert_nonnull(r);
  char *out = g_strdup(r);
  free(r);
  return out;
}

/* Runs the line-up under runsxs with the profiler and the given config body. */
static void run_lineup(Fixture *f, gboolean sequential, const char *config_body, Outcome *ret) {
  /* Each runtime's functions listed under it: the inventory is what these scenarios check. */
  g_autofree char *cfg_text = g_strdup_printf("[profiler]\n%sinventory=true\noutput=%s\n", config_body, f->output);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  g_autofree char *counts = itest_app("Counts");
  g_autofree char *demo = itest_app("Demo");
  g_autofree char *exitcode = itest_app("ExitCode");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_RUNSXS"));
  if (sequential)
    g_ptr_array_add(argv, "--st");
  const char *rest[] = {"10.0", counts, "7 2 1", "2.0.0", demo, "", "10.0", exitcode, "0", NULL};
  for (const char **a = rest; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  g_auto(GStrv) env = itest_profiler_env(cfg);

  g_autoptr(ItestRun) run = itest_run((const char *const *)argv->pdata, (const char *const *)env, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  /* Each app's output, whatever the interleaving. */
  g_assert_nonnull(strstr(run->out, "counts exceptions=7 gcs=2 threads=1\n"));
  g_assert_nonnull(strstr(run->out, "exiting with 0\n"));

  memset(ret, 0, sizeof *ret);
  g_auto(GStrv) lines = g_strsplit(run->out, "\n", -1);
  for (char **l = lines; *l; l++) {
    int index = 0;
    char version[64], folder[4096];
    if (sscanf(*l, "runsxs: [%d] %63s %4095s exit=0", &index, version, folder) == 3 && index >= 1 &&
        index <= N_RUNTIMES) {
      g_assert_null(ret->folder[index]);
      ret->folder[index] = canonical(folder);
    }
  }
  for (int i = 1; i <= N_RUNTIMES; i++) {
    if (!ret->folder[i])
      g_test_message("runsxs output:\n%s", run->out);
    g_assert_nonnull(ret->folder[i]);
  }
  /* Index 3 is a private copy of index 1's framework: another folder, the same version. */
  g_assert_cmpstr(ret->folder[1], !=, ret->folder[3]);
  ret->doc = itest_load_json(f->profile);
  g_assert_cmpuint(itest_profile_runtime_count(ret->doc), ==, N_RUNTIMES);
}

/* The profile entry of runsxs index i: its libcoreclr.so lies in that index's folder. */
static JsonObject *entry_of(Outcome *o, int index) {
  JsonObject *found = NULL;
  for (gint64 id = 1; id <= N_RUNTIMES; id++) {
    JsonObject *rt = itest_profile_runtime(o->doc, id);
    g_assert_nonnull(rt);
    const char *path = json_object_get_string_member(rt, "path");
    g_assert_nonnull(path);
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *canon = canonical(dir);
    if (g_str_equal(canon, o->folder[index])) {
      g_assert_null(found); /* exactly one entry per runtime */
      found = rt;
    }
  }
  g_assert_nonnull(found);
  return found;
}

static const char *status_of(JsonObject *rt) {
  return json_object_get_string_member(rt, "status");
}

/* What each profiled runtime must show: its own app's functions and counts, and nothing else's. */
static void assert_profiled_entry(Outcome *o, int index) {
  JsonObject *rt = entry_of(o, index);
  g_assert_cmpstr(status_of(rt), ==, "profiling");
  g_assert_true(json_node_is_null(json_object_get_member(rt, "reason")));
  guint counts_fns = itest_runtime_count_functions(rt, "Sxs.Tests.Counts.");
  guint demo_fns = itest_runtime_count_functions(rt, "Sxs.Demo.");
  guint exit_fns = itest_runtime_count_functions(rt, "Sxs.Tests.ExitCode.");
  switch (index) {
  case 1:
    g_assert_cmpstr(json_object_get_string_member(rt, "version"), ==,
                    json_object_get_string_member(entry_of(o, 3), "version"));
    g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 7);
    g_assert_cmpint(itest_runtime_counter(rt, "gcs"), ==, 2);
    g_assert_cmpint(itest_runtime_counter(rt, "threads_created"), >=, 2);
    g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.Counts.Worker.ThrowAndCatch"));
    g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.Counts.Worker.Run"));
    g_assert_cmpuint(counts_fns, >=, 5);
    g_assert_cmpuint(demo_fns, ==, 0);
    g_assert_cmpuint(exit_fns, ==, 0);
    break;
  case 2:
    g_assert_cmpstr(json_object_get_string_member(rt, "version"), ==, "2.0.0");
    g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 0);
    g_assert_nonnull(itest_runtime_function(rt, "Sxs.Demo.Primes.Sieve"));
    g_assert_cmpuint(counts_fns, ==, 0);
    g_assert_cmpuint(exit_fns, ==, 0);
    break;
  case 3:
    g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 0);
    g_assert_cmpint(itest_runtime_counter(rt, "gcs"), ==, 0);
    g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.ExitCode.Main"));
    g_assert_cmpuint(counts_fns, ==, 0);
    g_assert_cmpuint(demo_fns, ==, 0);
    break;
  default: g_assert_not_reached();
  }
}

static void assert_declined_entry(Outcome *o, int index, const char *reason_part) {
  JsonObject *rt = entry_of(o, index);
  g_assert_cmpstr(status_of(rt), ==, "declined");
  const char *reason = json_object_get_string_member(rt, "reason");
  g_assert_nonnull(reason);
  if (!strstr(reason, reason_part))
    g_test_message("reason: %s", reason);
  g_assert_nonnull(strstr(reason, reason_part));
  g_assert_cmpint(itest_runtime_counter(rt, "jit_compiled"), ==, 0);
  g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 0);
}

static void pick_all(Fixture *f, gboolean sequential) {
  Outcome o;
  run_lineup(f, sequential, "mode=pick-all\n", &o);
  g_assert_cmpstr(json_object_get_string_member(json_node_get_object(o.doc), "mode"), ==, "pick-all");
  for (int i = 1; i <= N_RUNTIMES; i++)
    assert_profiled_entry(&o, i);
  /* One callback instance per runtime: three distinct ids 1..3. */
  for (gint64 id = 1; id <= N_RUNTIMES; id++)
    g_assert_nonnull(itest_profile_runtime(o.doc, id));
  outcome_clear(&o);
}

static void test_pick_all_st(Fixture *f, gconstpointer d) {
  (void)d;
  pick_all(f, TRUE);
}
static void test_pick_all_concurrent(Fixture *f, gconstpointer d) {
  (void)d;
  pick_all(f, FALSE);
}

static void pick_one_version(Fixture *f, gboolean sequential) {
  Outcome o;
  run_lineup(f, sequential, "mode=pick-one\nruntime=2.0\n", &o);
  assert_profiled_entry(&o, 2);
  assert_declined_entry(&o, 1, "does not match");
  assert_declined_entry(&o, 3, "does not match");
  outcome_clear(&o);
}

static void test_pick_one_version_st(Fixture *f, gconstpointer d) {
  (void)d;
  pick_one_version(f, TRUE);
}
static void test_pick_one_version_concurrent(Fixture *f, gconstpointer d) {
  (void)d;
  pick_one_version(f, FALSE);
}

/* By path: the private copy of 10.0 is picked, the original folder of the same version is not. */
static void pick_one_path(Fixture *f, gboolean sequential) {
  Outcome first;
  run_lineup(f, sequential, "mode=pick-all\n", &first); /* learns (and creates) the copy's folder */
  g_autofree char *body = g_strdup_printf("mode=pick-one\nruntime=%s\n", first.folder[3]);
  outcome_clear(&first);
  g_unlink(f->profile);
  Outcome o;
  run_lineup(f, sequential, body, &o);
  assert_profiled_entry(&o, 3);
  assert_declined_entry(&o, 1, "does not match");
  assert_declined_entry(&o, 2, "does not match");
  outcome_clear(&o);
}

static void test_pick_one_path_st(Fixture *f, gconstpointer d) {
  (void)d;
  pick_one_path(f, TRUE);
}
static void test_pick_one_path_concurrent(Fixture *f, gconstpointer d) {
  (void)d;
  pick_one_path(f, FALSE);
}

static void test_pick_first_st(Fixture *f, gconstpointer d) {
  (void)d;
  Outcome o;
  run_lineup(f, TRUE, "mode=pick-first\n", &o);
  /* Sequential: the first runtime on the command line is the first to load the profiler. */
  assert_profiled_entry(&o, 1);
  assert_declined_entry(&o, 2, "pick-first");
  assert_declined_entry(&o, 3, "pick-first");
  outcome_clear(&o);
}

static void test_pick_first_concurrent(Fixture *f, gconstpointer d) {
  (void)d;
  Outcome o;
  run_lineup(f, FALSE, "mode=pick-first\n", &o);
  /* Concurrent: whichever runtime loaded first (id 1) is the only one profiled. */
  int profiled = 0;
  for (int i = 1; i <= N_RUNTIMES; i++) {
    JsonObject *rt = entry_of(&o, i);
    if (g_str_equal(status_of(rt), "profiling")) {
      profiled++;
      g_assert_cmpint(json_object_get_int_member(rt, "id"), ==, 1);
      assert_profiled_entry(&o, i);
    } else {
      assert_declined_entry(&o, i, "pick-first");
    }
  }
  g_assert_cmpint(profiled, ==, 1);
  outcome_clear(&o);
}

/* Stress in 10 and 2.0 at once, calling into each other, with the profiler in both (pick-all):
 * the process survives, and each runtime's exception count is exactly what its own app counted
 * (thrown + NullReference on the main thread and the pool + divide-by-zero), not the other's. */
static void test_stress_profiled(Fixture *f, gconstpointer d) {
  (void)d;
  g_autofree char *cfg_text = g_strdup_printf("[profiler]\nmode=pick-all\ninventory=true\noutput=%s\n", f->output);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  g_autofree char *app = itest_app("SxsStress");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "10.0", app, "3 2", "2.0.0", app, "3 1", NULL};
  g_auto(GStrv) env = itest_profiler_env(cfg);
  g_autoptr(ItestRun) run = itest_run(argv, (const char *const *)env, f->dir, 90);
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 2);

  g_autoptr(GRegex) re = g_regex_new("^stress ok seconds=3 gcs=(\\d+) exceptions=(\\d+) nre=(\\d+) nre_pool=(\\d+) "
                                     "div0=(\\d+) spins=\\d+ bridge=(\\d+) clr=([0-9.]+)$",
                                     G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) mi = NULL;
  guint seen = 0;
  g_regex_match(re, run->out, 0, &mi);
  for (; g_match_info_matches(mi); g_match_info_next(mi, NULL)) {
    gint64 v[7];
    for (int g = 1; g <= 6; g++) {
      g_autofree char *t = g_match_info_fetch(mi, g);
      v[g] = g_ascii_strtoll(t, NULL, 10);
    }
    g_autofree char *clr = g_match_info_fetch(mi, 7);
    /* .NET Core 2.0 reports Environment.Version 4.0.30319.42000. */
    const char *version = g_str_has_prefix(clr, "4.0.") ? "2.0.0" : clr;
    JsonObject *rt = NULL;
    for (gint64 id = 1; id <= 2; id++) {
      JsonObject *o = itest_profile_runtime(doc, id);
      if (g_str_equal(json_object_get_string_member(o, "version"), version))
        rt = o;
    }
    g_assert_nonnull(rt);
    g_assert_cmpstr(json_object_get_string_member(rt, "status"), ==, "profiling");
    gint64 app_exceptions = v[2] + v[3] + v[4] + v[5];
    g_assert_cmpint(app_exceptions, >, 0);
    g_assert_cmpint(v[6], >, 0); /* bridge calls happened */
    if (itest_runtime_counter(rt, "exceptions") != app_exceptions)
      g_test_message("runtime %s: profile %" G_GINT64_FORMAT " exceptions, app %" G_GINT64_FORMAT, version,
                     itest_runtime_counter(rt, "exceptions"), app_exceptions);
    g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, app_exceptions);
    g_assert_cmpint(itest_runtime_counter(rt, "gcs"), >=, v[1]);
    g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.SxsStress.Main"));
    seen++;
  }
  if (seen != 2)
    g_test_message("stdout:\n%s", run->out);
  g_assert_cmpuint(seen, ==, 2);
}

/* SIGTERM while 10 and 2.0 run the stress mix and call into each other, with the profiler in
 * both: the process ends in order (no crash signal, no hang), the runtimes' ProcessExit ran as
 * far as the runtimes allow (2.0's does; 10.0 does not handle SIGTERM itself), and the profile
 * holds both runtimes. Repeated, because what it guards against were races. */
static void test_sigterm_profiled(Fixture *f, gconstpointer d) {
  (void)d;
  g_autofree char *cfg_text = g_strdup_printf("[profiler]\nmode=pick-all\ninventory=true\noutput=%s\n", f->output);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  g_autofree char *app = itest_app("SxsStress");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "10.0", app, "30 2", "2.0.0", app, "30 1", NULL};
  g_auto(GStrv) env = itest_profiler_env(cfg);
  for (int attempt = 0; attempt < 3; attempt++) {
    g_unlink(f->profile);
    g_autoptr(ItestRun) run =
        itest_run_signal(argv, (const char *const *)env, f->dir, 60, 3000 + 700 * attempt, SIGTERM);
    if (run->timed_out || run->exit_code >= 128)
      g_test_message("attempt %d: exit %d\nstdout tail:\n%s\nstderr:\n%s", attempt, run->exit_code,
                     run->out + (strlen(run->out) > 2000 ? strlen(run->out) - 2000 : 0), run->err);
    g_assert_false(run->timed_out);
    g_assert_cmpint(run->exit_code, <, 128);
    g_assert_nonnull(strstr(run->out, "stress process-exit clr=4.0."));
    g_autoptr(JsonNode) doc = itest_load_json(f->profile);
    g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 2);
    for (gint64 id = 1; id <= 2; id++) {
      JsonObject *rt = itest_profile_runtime(doc, id);
      g_assert_cmpstr(json_object_get_string_member(rt, "status"), ==, "profiling");
      g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), >, 0);
      g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.SxsStress.Main"));
      if (g_str_equal(json_object_get_string_member(rt, "version"), "2.0.0"))
        g_assert_true(json_object_get_boolean_member(rt, "shutdown_seen"));
    }
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Fixture, NULL, itest_scratch_setup, fn, itest_scratch_teardown)
  ADD("/sxs/profiler/pick-all/st", test_pick_all_st);
  ADD("/sxs/profiler/pick-all/concurrent", test_pick_all_concurrent);
  ADD("/sxs/profiler/pick-one/version/st", test_pick_one_version_st);
  ADD("/sxs/profiler/pick-one/version/concurrent", test_pick_one_version_concurrent);
  ADD("/sxs/profiler/pick-one/path/st", test_pick_one_path_st);
  ADD("/sxs/profiler/pick-one/path/concurrent", test_pick_one_path_concurrent);
  ADD("/sxs/profiler/pick-first/st", test_pick_first_st);
  ADD("/sxs/profiler/pick-first/concurrent", test_pick_first_concurrent);
  ADD("/sxs/profiler/stress/pick-all", test_stress_profiled);
  ADD("/sxs/profiler/stress/sigterm", test_sigterm_profiled);
#undef ADD
  return g_test_run();
}
