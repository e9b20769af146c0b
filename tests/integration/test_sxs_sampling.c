/* The sampler on real runtimes: tests/apps/SxsSample spends its CPU in known functions, and the
 * profile's "samples" must say so: the hot function's share, each runtime's own function under
 * runsxs, stacks that cross runtimes through the bridge, a sleeping thread seen in wall mode only,
 * and the stress workload sampled at 1 kHz with its exact counts intact. */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 180

typedef ItestScratch Fixture;

static char *write_config(Fixture *f, const char *sampling) {
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n[sampling]\nenabled=true\n%s", f->output, sampling);
  return itest_write_file(f->dir, "sxsprof.conf", text);
}

static ItestRun *run_profiled(Fixture *f, const char *const *argv, const char *sampling) {
  g_autofree char *cfg = write_config(f, sampling);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  return itest_run(argv, (const char *const *)env, f->dir, TIMEOUT);
}

/* The profile's samples, taken with `walker`. */
static JsonObject *samples_by(JsonNode *doc, const char *walker) {
  JsonObject *s = json_object_get_object_member(json_node_get_object(doc), "samples");
  g_assert_nonnull(s);
  g_assert_true(json_object_get_boolean_member(s, "enabled"));
  g_assert_cmpstr(json_object_get_string_member(s, "walker"), ==, walker);
  g_assert_true(json_node_is_null(json_object_get_member(s, "off_reason")));
  return s;
}

/* Does the stack hold a managed frame named name (of runtime runtime_id, when not 0)? */
static gboolean stack_has(JsonObject *stack, const char *name, gint64 runtime_id) {
  JsonArray *frames = json_object_get_array_member(stack, "frames");
  for (guint i = 0; i < json_array_get_length(frames); i++) {
    JsonObject *f = json_array_get_object_element(frames, i);
    if (g_str_equal(json_object_get_string_member(f, "kind"), "managed") &&
        g_str_equal(json_object_get_string_member(f, "name"), name) &&
        (runtime_id == 0 || json_object_get_int_member(f, "runtime") == runtime_id))
      return TRUE;
  }
  return FALSE;
}

/* Samples (counts) whose stack holds name; *ret_total receives all samples. */
static gint64 samples_with(JsonObject *samples, const char *name, gint64 runtime_id, gint64 *ret_total) {
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  gint64 with = 0, total = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    gint64 count = json_object_get_int_member(st, "count");
    total += count;
    if (stack_has(st, name, runtime_id))
      with += count;
  }
  if (ret_total)
    *ret_total = total;
  return with;
}

/* The share of the samples holding `name` among those holding `within` (NULL: all samples): so
 * that the runtime's start-up, whose CPU time does not shrink when the machine is busy, does not
 * count against the phase being measured. */
static void assert_share_within(JsonObject *samples, const char *name, gint64 runtime_id, const char *within, double lo,
                                double hi) {
  gint64 total = 0;
  gint64 with = samples_with(samples, name, runtime_id, &total);
  if (within)
    total = samples_with(samples, within, runtime_id, NULL);
  double share = total ? (double)with / (double)total : 0;
  g_test_message("%s: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " samples%s%s (%.1f %%)", name, with, total,
                 within ? " in " : "", within ? within : "", 100 * share);
  g_assert_cmpint(total, >=, 100);
  g_assert_cmpfloat(share, >=, lo);
  g_assert_cmpfloat(share, <=, hi);
}

static void assert_share(JsonObject *samples, const char *name, gint64 runtime_id, double lo, double hi) {
  assert_share_within(samples, name, runtime_id, NULL, lo, hi);
}

static char *canonical(const char *path) {
  char *r = realpath(path, NULL);
  g_assert_nonnull(r);
  char *out = g_strdup(r);
  free(r);
  return out;
}

/* The profile id of runsxs index `index`, matched by the folder of its libcoreclr.so. */
static gint64 profile_id(const ItestRun *run, JsonNode *doc, int index) {
  g_autofree char *folder = NULL;
  g_auto(GStrv) lines = g_strsplit(run->out, "\n", -1);
  for (char **l = lines; *l; l++) {
    int i = 0;
    char version[64], dir[4096];
    if (sscanf(*l, "runsxs: [%d] %63s %4095s exit=", &i, version, dir) == 3 && i == index)
      folder = canonical(dir);
  }
  g_assert_nonnull(folder);
  for (gint64 id = 1; id <= (gint64)itest_profile_runtime_count(doc); id++) {
    g_autofree char *dir = g_path_get_dirname(json_object_get_string_member(itest_profile_runtime(doc, id), "path"));
    g_autofree char *canon = canonical(dir);
    if (g_str_equal(canon, folder))
      return id;
  }
  g_assert_not_reached();
}

typedef struct {
  const char *runtime; /* "dotnet" (the SDK's 10), or a runsxs RUNTIME */
  const char *walker;
} HotCold;

/* Hot.Spin takes 90 % of the thread's CPU time, Cold.Walk 10 % (phases of CPU time, so whether the
 * machine is busy or not): so do the samples. */
static void test_hotcold(Fixture *f, gconstpointer data) {
  const HotCold *hc = data;
  g_autofree char *app = itest_app("SxsSample");
  g_autofree char *extra = g_strdup_printf("walker=%s\n", hc->walker);
  g_autoptr(ItestRun) run = NULL;
  if (g_str_equal(hc->runtime, "dotnet")) {
    const char *argv[] = {itest_env("SXS_DOTNET"), app, "hotcold", "3", NULL};
    run = run_profiled(f, argv, extra);
  } else {
    const char *argv[] = {itest_env("SXS_RUNSXS"), hc->runtime, app, "hotcold 3", NULL};
    run = run_profiled(f, argv, extra);
  }
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "hotcold seconds=3 "));
  g_assert_cmpstr(run->err, ==, "");
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_by(doc, hc->walker);
  g_assert_cmpstr(json_object_get_string_member(samples, "mode"), ==, "cpu");
  /* Cold.Walk runs 1 ms of the thread's CPU time per 10, however busy the machine is; the suspend
   * walker's CPU-time timers expire at the scheduler's tick, which a cycle of 10 ms of CPU time
   * can alias with for a whole run (2.7 % in one run of 8.0, 0.7 % in another): never nothing, at
   * least one sample of the 300. The perf engine's stratified periods do not alias: 1 %. The
   * aliasing goes either way: on a machine busy with other tests Hot.Spin read 79.3 % of 300 once
   * (9.0; 88-90 % in four runs on a quiet one), what Cold.Walk's bound of 20 % leaves it. */
  gboolean suspend = g_str_equal(hc->walker, "suspend");
  assert_share_within(samples, "Hot.Spin", 1, "SxsSample.Main", suspend ? 0.75 : 0.80, 1.0);
  double cold_lo = suspend ? 0.003 : 0.01;
  assert_share_within(samples, "Cold.Walk", 1, "SxsSample.Main", cold_lo, 0.20);
  /* Hot.Spin and Cold.Walk are both called by SxsSample.HotCold, never one by the other: a walk
   * made after the thread moved from one to the other is not stitched onto the capture. */
  g_assert_cmpint(samples_with(samples, "Hot.Spin", 0, NULL), >, 0);
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    g_assert_false(stack_has(st, "Hot.Spin", 0) && stack_has(st, "Cold.Walk", 0));
  }
  if (suspend) {
    /* One thread spinning where it was found before: most samples reuse its last walk, and the
     * runtime is suspended for the others only. */
    gint64 taken = json_object_get_int_member(samples, "taken");
    gint64 suspensions = json_object_get_int_member(samples, "suspensions");
    gint64 reused = json_object_get_int_member(samples, "walks_reused");
    g_test_message("taken %" G_GINT64_FORMAT ", suspensions %" G_GINT64_FORMAT ", reused %" G_GINT64_FORMAT, taken,
                   suspensions, reused);
    g_assert_cmpint(suspensions, >=, 1);
    g_assert_cmpint(reused, >=, taken / 2);
    g_assert_cmpint(suspensions + reused, <=, taken);
  } else {
    g_assert_cmpint(json_object_get_int_member(samples, "suspensions"), ==, 0);
    g_assert_cmpint(json_object_get_int_member(samples, "walks_reused"), ==, 0);
  }
}

/* Two runtimes, each spinning in its own function on its own thread: each function is counted
 * under its own runtime, and neither under the other. */
static void test_two_runtimes(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "10.0", app, "spin One 3", "10.0", app, "spin Two 3", NULL};
  g_autoptr(ItestRun) run = run_profiled(f, argv, "");
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  /* walker=auto: the signal walker, the threads' own CPU-time timers raising the signal. */
  JsonObject *samples = samples_by(doc, "signal");
  gint64 one = profile_id(run, doc, 1), two = profile_id(run, doc, 2);
  /* Two threads spinning on two cores: about half each (cpu mode counts CPU time, so a machine
   * busy with something else shifts the shares; the test runs alone). */
  assert_share(samples, "RuntimeOne.Spin", one, 0.25, 0.75);
  assert_share(samples, "RuntimeTwo.Spin", two, 0.25, 0.75);
  g_assert_cmpint(samples_with(samples, "RuntimeOne.Spin", two, NULL), ==, 0);
  g_assert_cmpint(samples_with(samples, "RuntimeTwo.Spin", one, NULL), ==, 0);
}

/* Runtime 1's Caller.Call calls runtime 2's Callee.Burn through the bridge: samples in Callee.Burn
 * show both runtimes' frames and the bridge between them, in stack order. */
static void test_bridge(Fixture *f, gconstpointer data) {
  const char *walker = data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "10.0", app, "bridge 2 3", "10.0", app, "", NULL};
  g_autofree char *extra = g_strdup_printf("walker=%s\n", walker);
  g_autoptr(ItestRun) run = run_profiled(f, argv, extra);
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_by(doc, walker);
  gint64 caller = profile_id(run, doc, 1), callee = profile_id(run, doc, 2);
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  gint64 crossing = 0, burning = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    if (!stack_has(st, "Callee.Burn", callee))
      continue;
    burning += json_object_get_int_member(st, "count");
    JsonArray *frames = json_object_get_array_member(st, "frames");
    int state = 0; /* 0: before Callee.Burn, 1: after it, 2: bridge seen, 3: Caller.Call seen */
    guint64 last_sp = 0;
    for (guint j = 0; j < json_array_get_length(frames); j++) {
      JsonObject *fr = json_array_get_object_element(frames, j);
      guint64 sp = g_ascii_strtoull(json_object_get_string_member(fr, "sp") + 2, NULL, 16);
      if (j > 0)
        g_assert_cmphex(sp, >, last_sp);
      last_sp = sp;
      const char *name = json_object_get_string_member(fr, "name");
      gboolean managed = g_str_equal(json_object_get_string_member(fr, "kind"), "managed");
      if (state == 0 && managed && g_str_equal(name, "Callee.Burn"))
        state = 1;
      else if (state == 1 && !managed && g_str_has_prefix(name, "libsxsbridge.so!sxs_bridge_call"))
        state = 2;
      else if (state == 2 && managed && g_str_equal(name, "Caller.Call") &&
               json_object_get_int_member(fr, "runtime") == caller)
        state = 3;
    }
    if (state == 3)
      crossing += json_object_get_int_member(st, "count");
  }
  g_test_message("Callee.Burn in %" G_GINT64_FORMAT " samples, %" G_GINT64_FORMAT " of them through the bridge",
                 burning, crossing);
  g_assert_cmpint(burning, >=, 100);
  g_assert_cmpint(crossing, >=, burning * 9 / 10);
}

/* A thread blocked in Thread.Sleep: in wall mode its stack is in the samples, in cpu mode not. */
static void test_wall_and_cpu(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "sleep", "2", NULL};
  const char *modes[] = {"wall", "cpu"};
  for (guint m = 0; m < 2; m++) {
    g_remove(f->profile);
    g_autofree char *extra = g_strdup_printf("mode=%s\n", modes[m]);
    g_autoptr(ItestRun) run = run_profiled(f, argv, extra);
    itest_assert_exit(run, 0);
    g_autoptr(JsonNode) doc = itest_load_json(f->profile);
    JsonObject *samples = samples_by(doc, "signal");
    g_assert_cmpstr(json_object_get_string_member(samples, "mode"), ==, modes[m]);
    gint64 total = 0, napping = samples_with(samples, "Sleeper.Nap", 1, &total);
    g_test_message("mode=%s: Sleeper.Nap in %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " samples", modes[m], napping,
                   total);
    if (m == 0) {
      g_assert_cmpint(napping, >=, 50); /* 2 s at 99 Hz: about 200 */
      /* Its samples are the sleeper thread's. */
      JsonArray *stacks = json_object_get_array_member(samples, "stacks");
      for (guint i = 0; i < json_array_get_length(stacks); i++) {
        JsonObject *st = json_array_get_object_element(stacks, i);
        if (stack_has(st, "Sleeper.Nap", 1))
          g_assert_cmpstr(json_object_get_string_member(st, "thread"), ==, "sleeper");
      }
    } else {
      g_assert_cmpint(napping, ==, 0);
      g_assert_cmpint(samples_with(samples, "Hot.Spin", 1, NULL), >=, 100);
    }
  }
}

/* walker=suspend in a process with a 2.0 runtime, which a profiler cannot suspend: one log line,
 * the signal walker instead, both runtimes sampled, the app unchanged. */
static void test_suspend_fallback(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "10.0", app, "spin One 2", "2.0.0", app, "spin Two 2", NULL};
  g_autoptr(ItestRun) run = run_profiled(f, argv, "walker=suspend\n");
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_by(doc, "signal");
  gint64 one = profile_id(run, doc, 1), two = profile_id(run, doc, 2);
  g_assert_cmpint(samples_with(samples, "RuntimeOne.Spin", one, NULL), >=, 50);
  g_assert_cmpint(samples_with(samples, "RuntimeTwo.Spin", two, NULL), >=, 50);
  g_autofree char *log_path = g_strconcat(f->output, ".log", NULL);
  g_autofree char *log = itest_read_file(log_path);
  g_autofree char *line = g_strdup_printf("sampling: walker=suspend: runtime %" G_GINT64_FORMAT
                                          " cannot be suspended by a profiler (it has no ICorProfilerInfo10: .NET "
                                          "Core 2.x); using the signal walker",
                                          two);
  g_assert_nonnull(strstr(log, line));
}

/* The StackTruth app's two dozen threads, each in its own chain, for 1.5 s, sampled in wall time at
 * 499 Hz with `more` config lines after [sampling]'s: exits 0. */
static void run_stack_truth(Fixture *f, const char *more) {
  g_autofree char *app = itest_app("StackTruth");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "1.5", "wall", NULL};
  g_autofree char *sampling = g_strconcat("frequency=499\nmode=wall\n", more, NULL);
  g_autoptr(ItestRun) run = run_profiled(f, argv, sampling);
  itest_assert_exit(run, 0);
}

/* [stacks] max_distinct= reached: the StackTruth app's two dozen threads, each in its own chain,
 * sampled in wall time with room for 16 distinct stacks. No sample is lost: every one is counted,
 * the stacks past the bound under their leaf alone with the frame that says so; the distinct ones
 * kept are at most the bound (besides those merged entries); the profile and the summary say how
 * many were merged. */
static void test_max_distinct(Fixture *f, gconstpointer data) {
  (void)data;
  run_stack_truth(f, "[stacks]\nmax_distinct=16\n");
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *samples = samples_by(doc, "signal");
  JsonObject *walks = json_object_get_object_member(json_node_get_object(doc), "stack_walks");
  gint64 merged_events = json_object_get_int_member(walks, "stacks_merged");
  g_assert_cmpint(merged_events, >, 0);
  g_assert_cmpint(json_object_get_int_member(walks, "stacks_dropped"), ==, 0);
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  gint64 total = 0, merged = 0, kept_stacks = 0, merged_stacks = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    JsonArray *frames = json_object_get_array_member(st, "frames");
    gint64 count = json_object_get_int_member(st, "count");
    total += count;
    guint n = json_array_get_length(frames);
    const char *last = json_object_get_string_member(json_array_get_object_element(frames, n - 1), "name");
    if (g_str_equal(last, "[more distinct stacks than the profile keeps]")) {
      /* The leaf and the frame for its callers, nothing else. */
      g_assert_cmpuint(n, ==, 2);
      merged += count;
      merged_stacks++;
    } else {
      kept_stacks++;
    }
  }
  g_test_message("%" G_GINT64_FORMAT " samples: %" G_GINT64_FORMAT " in %" G_GINT64_FORMAT
                 " stacks kept, %" G_GINT64_FORMAT " merged into %" G_GINT64_FORMAT " leaf stacks",
                 total, total - merged, kept_stacks, merged, merged_stacks);
  g_assert_cmpint(kept_stacks, <=, 16);
  g_assert_cmpint(merged, >, 0);
  /* Every sample counted: the stacks' counts are the samples' weight. */
  g_assert_cmpint(total, ==, json_object_get_int_member(samples, "weight"));
  const char *rargv[] = {itest_env("SXS_SXSPROF"), "report", f->profile, NULL};
  g_autoptr(ItestRun) report = itest_run(rargv, NULL, NULL, 60);
  g_assert_cmpint(report->exit_code, ==, 0);
  g_autofree char *line =
      g_strdup_printf("  stacks merged: %" G_GINT64_FORMAT " events met a new stack", merged_events);
  g_assert_nonnull(strstr(report->out, line));
}

/* The recorder keeps each distinct frame once and stacks share their callers (sxs_stacks.c): its
 * tree has a node per distinct path from an outermost frame (frames, and each frame's distance in
 * stack pointer from its caller), which the profile's stacks show, and far fewer than their frames. */
static void test_shared_callers(Fixture *f, gconstpointer data) {
  (void)data;
  run_stack_truth(f, "");
  /* As written: frames as indices into the frame table, stack pointers as distances. */
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  g_assert_true(json_parser_load_from_file(parser, f->profile, &error));
  JsonObject *root = json_node_get_object(json_parser_get_root(parser));
  JsonObject *walks = json_object_get_object_member(root, "stack_walks");
  JsonArray *stacks = json_object_get_array_member(json_object_get_object_member(root, "samples"), "stacks");
  guint n_stacks = json_array_get_length(stacks);
  g_autoptr(GHashTable) paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  gint64 frames = 0;
  for (guint i = 0; i < n_stacks; i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    JsonArray *idx = json_object_get_array_member(st, "frames"), *sp = json_object_get_array_member(st, "sp");
    guint n = json_array_get_length(idx);
    g_assert_cmpuint(json_array_get_length(sp), ==, n);
    frames += n;
    g_autoptr(GString) path = g_string_new(NULL);
    for (guint j = n; j-- > 0;) {
      /* Frame j's distance from its caller (frame j + 1) is the caller's entry in "sp". */
      gint64 distance = j + 1 < n ? json_array_get_int_element(sp, j + 1) : 0;
      g_string_append_printf(path, "%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ";", json_array_get_int_element(idx, j),
                             distance);
      if (!g_hash_table_contains(paths, path->str))
        g_hash_table_add(paths, g_strdup(path->str));
    }
  }
  gint64 nodes = json_object_get_int_member(walks, "stack_nodes");
  gint64 bytes = json_object_get_int_member(walks, "recorder_bytes");
  g_test_message("%u stacks of %" G_GINT64_FORMAT " frames in all: %u distinct paths, %" G_GINT64_FORMAT
                 " nodes, %" G_GINT64_FORMAT " bytes (%.0f a stack)",
                 n_stacks, frames, g_hash_table_size(paths), nodes, bytes, (double)bytes / MAX(n_stacks, 1));
  g_assert_cmpuint(n_stacks, >=, 20);
  g_assert_cmpint(json_object_get_int_member(walks, "stacks_named"), ==, n_stacks);
  /* Two functions of one name (a generic method's instantiations) are two frames to the recorder and
   * one in the frame table: its nodes may be more than the paths the profile shows, not fewer. */
  g_assert_cmpint(nodes, >=, g_hash_table_size(paths));
  g_assert_cmpint(nodes, <=, g_hash_table_size(paths) * 11 / 10);
  g_assert_cmpint(nodes * 2, <=, frames);
  g_assert_cmpint(bytes, >, 0);
}

/* The stress workload (GCs, exceptions, hardware faults, spinning threads, threads coming and
 * going, calls between the runtimes) sampled at 1 kHz, every thread (wall): no crash, no hang,
 * the app's own counts of exceptions equal to what the runtimes reported. */
static void test_stress(Fixture *f, gconstpointer data) {
  const char *variant = data; /* "signal" (wall mode), "timers" (cpu mode), "suspend" */
  gboolean suspend = g_str_equal(variant, "suspend"), timers = g_str_equal(variant, "timers");
  const char *walker = suspend ? "suspend" : "signal";
  g_autofree char *app = itest_app("SxsStress");
  /* The suspend walker needs runtimes that can be suspended: 10 and a private copy of 10. */
  const char *argv[] = {itest_env("SXS_RUNSXS"), "10.0", app, "2 2", suspend ? "10.0" : "2.0.0", app, "2 1", NULL};
  /* wall mode: the sampler signals every thread; cpu mode with the signal walker: the threads'
   * own CPU-time timers do, on threads that come and go every few milliseconds. */
  g_autofree char *extra =
      g_strdup_printf("frequency=%s\nmode=%s\nwalker=%s\n", suspend ? "200" : "1000", timers ? "cpu" : "wall", walker);
  g_autoptr(GRegex) re = g_regex_new("^stress ok seconds=2 gcs=\\d+ exceptions=(\\d+) nre=(\\d+) nre_pool=(\\d+) "
                                     "div0=(\\d+) spins=\\d+ bridge=\\d+ clr=([0-9.]+)$",
                                     G_REGEX_MULTILINE, 0, NULL);
  for (int repeat = 0; repeat < 2; repeat++) {
    g_remove(f->profile);
    g_autoptr(ItestRun) run = run_profiled(f, argv, extra);
    itest_assert_exit(run, 0);
    g_autoptr(JsonNode) doc = itest_load_json(f->profile);
    JsonObject *samples = samples_by(doc, walker);
    g_assert_cmpint(json_object_get_int_member(samples, "taken"), >=, suspend ? 400 : timers ? 500 : 1000);
    gint64 app_exceptions[2] = {0, 0};
    g_autoptr(GMatchInfo) mi = NULL;
    guint lines = 0;
    g_regex_match(re, run->out, 0, &mi);
    while (g_match_info_matches(mi)) {
      /* Each line is one runtime's; the profile's runtimes are matched to them as a set below. */
      int which = lines;
      for (int group = 1; group <= 4; group++) {
        g_autofree char *v = g_match_info_fetch(mi, group);
        app_exceptions[which] += g_ascii_strtoll(v, NULL, 10);
      }
      lines++;
      g_match_info_next(mi, NULL);
    }
    g_assert_cmpuint(lines, ==, 2);
    gint64 profile_exceptions[2] = {itest_runtime_counter(itest_profile_runtime(doc, 1), "exceptions"),
                                    itest_runtime_counter(itest_profile_runtime(doc, 2), "exceptions")};
    gboolean same = profile_exceptions[0] == app_exceptions[0] && profile_exceptions[1] == app_exceptions[1];
    gboolean swapped = profile_exceptions[0] == app_exceptions[1] && profile_exceptions[1] == app_exceptions[0];
    if (!same && !swapped)
      g_test_message("app: %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT "; profile: %" G_GINT64_FORMAT
                     " and %" G_GINT64_FORMAT,
                     app_exceptions[0], app_exceptions[1], profile_exceptions[0], profile_exceptions[1]);
    g_assert_true(same || swapped);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  static const HotCold hotcold[] = {
      {"dotnet", "signal"}, {"dotnet", "suspend"}, {"9.0", "signal"},  {"9.0", "suspend"},  {"8.0", "signal"},
      {"8.0", "suspend"},   {"3.1", "signal"},     {"3.1", "suspend"}, {"2.0.0", "signal"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(hotcold); i++) {
    g_autofree char *path =
        g_strdup_printf("/sxs/sampling/hotcold/%s/%s",
                        g_str_equal(hotcold[i].runtime, "dotnet") ? "10" : hotcold[i].runtime, hotcold[i].walker);
    g_test_add(path, Fixture, &hotcold[i], itest_scratch_setup, test_hotcold, itest_scratch_teardown);
  }
  g_test_add("/sxs/sampling/max-distinct", Fixture, NULL, itest_scratch_setup, test_max_distinct,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/shared-callers", Fixture, NULL, itest_scratch_setup, test_shared_callers,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/two-runtimes", Fixture, NULL, itest_scratch_setup, test_two_runtimes,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/bridge/signal", Fixture, "signal", itest_scratch_setup, test_bridge,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/bridge/suspend", Fixture, "suspend", itest_scratch_setup, test_bridge,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/wall-and-cpu", Fixture, NULL, itest_scratch_setup, test_wall_and_cpu,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/suspend-fallback", Fixture, NULL, itest_scratch_setup, test_suspend_fallback,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/stress/signal", Fixture, "signal", itest_scratch_setup, test_stress,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/stress/suspend", Fixture, "suspend", itest_scratch_setup, test_stress,
             itest_scratch_teardown);
  g_test_add("/sxs/sampling/stress/timers", Fixture, "timers", itest_scratch_setup, test_stress,
             itest_scratch_teardown);
  return g_test_run();
}
