/* Mixed-mode stacks stitched from real interleavings: managed code of one runtime calling, through
 * native code (libsxsbridge.so, libc's qsort), managed code of another runtime or of itself. The
 * profiler records the thread's stack at each exception ([stacks] on=exception); the tests read the
 * profile's "stacks" and check the frames in order, the runtime of every managed frame, the names
 * of the native frames between them, and that stack pointers strictly increase.
 *
 * tests/apps/SxsStitch: `chain O M I` runs A.Outer in runtime O, which calls the bridge into
 * runtime M's B.Middle, which calls the bridge into runtime I's A.Inner, which throws and catches.
 * Runtimes are numbered as runsxs numbers them (command-line order); the profile numbers them in
 * the order they loaded the profiler, so entries are matched by the folder of their libcoreclr.so. */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 180
#define MAX_RUNTIMES 3

typedef ItestScratch Fixture;

/* A stack as the test reads it: the profile's frames of one stack entry. */
typedef struct {
  JsonArray *frames;
  guint n;
} Stack;

static JsonObject *frame_at(const Stack *s, guint i) {
  return json_array_get_object_element(s->frames, i);
}

static const char *frame_name(const Stack *s, guint i) {
  return json_object_get_string_member(frame_at(s, i), "name");
}

static gboolean frame_managed(const Stack *s, guint i) {
  return g_str_equal(json_object_get_string_member(frame_at(s, i), "kind"), "managed");
}

static guint64 frame_sp(const Stack *s, guint i) {
  const char *text = json_object_get_string_member(frame_at(s, i), "sp");
  g_assert_true(g_str_has_prefix(text, "0x"));
  return g_ascii_strtoull(text + 2, NULL, 16);
}

static void dump_stack(const Stack *s) {
  for (guint i = 0; i < s->n; i++) {
    JsonObject *f = frame_at(s, i);
    g_test_message("  %-7s %s %s [%s] sp=%s", json_object_get_string_member(f, "kind"),
                   json_object_has_member(f, "runtime")
                       ? g_strdup_printf("rt%" G_GINT64_FORMAT, json_object_get_int_member(f, "runtime"))
                       : "   ",
                   frame_name(s, i), json_object_get_string_member(f, "module"),
                   json_object_get_string_member(f, "sp"));
  }
}

/* Every stack pointer above the one before: one frame per stack slot, leaf first. Native frames
 * are named (module!symbol+0x.., module+0x.. or the bare address of code in no module) and no
 * frame is the profiler's own. */
static void assert_well_formed(const Stack *s) {
  g_assert_cmpuint(s->n, >, 3);
  for (guint i = 0; i < s->n; i++) {
    if (i > 0 && frame_sp(s, i - 1) >= frame_sp(s, i)) {
      dump_stack(s);
      g_assert_cmphex(frame_sp(s, i - 1), <, frame_sp(s, i));
    }
    const char *name = frame_name(s, i);
    g_assert_nonnull(name);
    g_assert_cmpstr(name, !=, "");
    g_assert_null(strstr(name, "libsxsprof"));
    g_assert_cmpstr(json_object_get_string_member(frame_at(s, i), "module"), !=, "libsxsprof.so");
  }
}

/* The index of the first frame at or after `from` whose name is `name` and whose runtime is
 * `runtime_id`; fails when there is none. */
static guint find_managed(const Stack *s, guint from, const char *name, gint64 runtime_id) {
  for (guint i = from; i < s->n; i++)
    if (frame_managed(s, i) && g_str_equal(frame_name(s, i), name)) {
      gint64 rt = json_object_get_int_member(frame_at(s, i), "runtime");
      if (rt != runtime_id) {
        dump_stack(s);
        g_test_message("%s ran in runtime %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT, name, rt, runtime_id);
      }
      g_assert_cmpint(rt, ==, runtime_id);
      return i;
    }
  dump_stack(s);
  g_test_message("no managed frame %s after frame %u", name, from);
  g_assert_not_reached();
}

/* Between frames a and b (exclusive) every frame is native, and one of them is `symbol` of
 * `module` ("module!symbol+0x..") when symbol is not NULL. */
static void assert_native_between(const Stack *s, guint a, guint b, const char *module_symbol) {
  g_assert_cmpuint(a, <, b);
  gboolean seen = module_symbol == NULL;
  for (guint i = a + 1; i < b; i++) {
    if (frame_managed(s, i)) {
      dump_stack(s);
      g_test_message("frame %u (%s) between %s and %s is managed", i, frame_name(s, i), frame_name(s, a),
                     frame_name(s, b));
    }
    g_assert_false(frame_managed(s, i));
    if (module_symbol && g_str_has_prefix(frame_name(s, i), module_symbol))
      seen = TRUE;
  }
  if (!seen)
    dump_stack(s);
  g_assert_true(seen);
}

/* The stacks of `event` in the profile whose frames include a managed frame named `name`. */
static GPtrArray *stacks_with(JsonNode *doc, const char *event, const char *name) {
  GPtrArray *found = g_ptr_array_new();
  JsonArray *stacks = json_object_get_array_member(json_node_get_object(doc), "stacks");
  g_assert_nonnull(stacks);
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    if (!g_str_equal(json_object_get_string_member(st, "event"), event))
      continue;
    JsonArray *frames = json_object_get_array_member(st, "frames");
    for (guint j = 0; j < json_array_get_length(frames); j++) {
      JsonObject *f = json_array_get_object_element(frames, j);
      if (g_str_equal(json_object_get_string_member(f, "kind"), "managed") &&
          g_str_equal(json_object_get_string_member(f, "name"), name)) {
        g_ptr_array_add(found, st);
        break;
      }
    }
  }
  return found;
}

static Stack stack_of(JsonObject *st) {
  Stack s = {.frames = json_object_get_array_member(st, "frames")};
  s.n = json_array_get_length(s.frames);
  return s;
}

static char *canonical(const char *path) {
  char *r = realpath(path, NULL);
  g_assert_nonnull(r);
  char *out = g_strdup(r);
  free(r);
  return out;
}

/* The profile id of the runtime whose framework folder is `folder`. */
static gint64 profile_id_of(JsonNode *doc, const char *folder) {
  gint64 found = 0;
  for (gint64 id = 1; id <= (gint64)itest_profile_runtime_count(doc); id++) {
    JsonObject *rt = itest_profile_runtime(doc, id);
    g_autofree char *dir = g_path_get_dirname(json_object_get_string_member(rt, "path"));
    g_autofree char *canon = canonical(dir);
    if (g_str_equal(canon, folder)) {
      g_assert_cmpint(found, ==, 0);
      found = id;
    }
  }
  g_assert_cmpint(found, !=, 0);
  return found;
}

static char *write_config(Fixture *f, const char *on) {
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n[stacks]\non=%s\n", f->output, on);
  return itest_write_file(f->dir, "sxsprof.conf", text);
}

/* Runs argv twice, without and with the profiler: the same exit code, the same stdout lines (in
 * any order: the runtimes of runsxs print concurrently) and the same stderr. Returns the profiled
 * run. */
static ItestRun *run_both(Fixture *f, const char *const *argv, const char *on, int expected_exit) {
  g_autoptr(ItestRun) plain = itest_run(argv, NULL, f->dir, TIMEOUT);
  itest_assert_exit(plain, expected_exit);
  g_autofree char *cfg = write_config(f, on);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  ItestRun *run = itest_run(argv, (const char *const *)env, f->dir, TIMEOUT);
  itest_assert_exit(run, expected_exit);
  g_auto(GStrv) a = g_strsplit(plain->out, "\n", -1);
  g_auto(GStrv) b = g_strsplit(run->out, "\n", -1);
  g_assert_cmpuint(g_strv_length(a), ==, g_strv_length(b));
  for (char **l = a; *l; l++)
    g_assert_true(g_strv_contains((const char *const *)b, *l));
  g_assert_cmpstr(plain->err, ==, run->err);
  return run;
}

/* The framework folder runsxs used for index i, from its summary line. */
static char *runsxs_folder(const ItestRun *run, int index) {
  g_auto(GStrv) lines = g_strsplit(run->out, "\n", -1);
  for (char **l = lines; *l; l++) {
    int i = 0;
    char version[64], folder[4096];
    if (sscanf(*l, "runsxs: [%d] %63s %4095s exit=", &i, version, folder) == 3 && i == index)
      return canonical(folder);
  }
  g_test_message("no runsxs line for index %d in:\n%s", index, run->out);
  g_assert_not_reached();
}

/* One chain scenario: runsxs with the given runtimes (RUNTIME operands), the chain started in
 * runtime `outer` with A.Outer -> B.Middle (runtime `middle`) -> A.Inner (runtime `inner`). */
typedef struct {
  const char *runtimes[MAX_RUNTIMES];
  int outer, middle, inner;
} Chain;

static void test_chain(Fixture *f, gconstpointer data) {
  const Chain *c = data;
  g_autofree char *app = itest_app("SxsStitch");
  g_autofree char *cmd = g_strdup_printf("chain %d %d %d", c->outer, c->middle, c->inner);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_RUNSXS"));
  int n = 0;
  for (; n < MAX_RUNTIMES && c->runtimes[n]; n++) {
    g_ptr_array_add(argv, (gpointer)c->runtimes[n]);
    g_ptr_array_add(argv, app);
    g_ptr_array_add(argv, n + 1 == c->outer ? cmd : "");
  }
  g_ptr_array_add(argv, NULL);
  g_autoptr(ItestRun) run = run_both(f, (const char *const *)argv->pdata, "exception", 0);
  g_assert_nonnull(strstr(run->out, "chain result=42\n"));

  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, (guint)n);
  gint64 id[MAX_RUNTIMES + 1] = {0};
  for (int i = 1; i <= n; i++) {
    g_autofree char *folder = runsxs_folder(run, i);
    id[i] = profile_id_of(doc, folder);
  }

  /* The one exception of the run, thrown once: one stack, counted once. */
  g_autoptr(GPtrArray) stacks = stacks_with(doc, "exception", "A.Inner");
  g_assert_cmpuint(stacks->len, ==, 1);
  JsonObject *st = stacks->pdata[0];
  g_assert_cmpint(json_object_get_int_member(st, "count"), ==, 1);
  Stack s = stack_of(st);
  assert_well_formed(&s);

  /* Leaf first: A.Inner, the bridge, B.Middle, the bridge, A.Outer, Main, the runtime's entry. */
  guint inner = find_managed(&s, 0, "A.Inner", id[c->inner]);
  guint middle = find_managed(&s, inner + 1, "B.Middle", id[c->middle]);
  guint outer = find_managed(&s, middle + 1, "A.Outer", id[c->outer]);
  guint main_frame = find_managed(&s, outer + 1, "SxsStitch.Main", id[c->outer]);
  g_assert_cmpuint(main_frame, ==, outer + 1);
  assert_native_between(&s, inner, middle, "libsxsbridge.so!sxs_bridge_call+0x");
  assert_native_between(&s, middle, outer, "libsxsbridge.so!sxs_bridge_call+0x");
  /* Below Main: native frames only, down to the host that started the runtime. */
  assert_native_between(&s, main_frame, s.n, "libcoreclr.so!coreclr_execute_assembly+0x");
  g_assert_true(g_str_has_prefix(frame_name(&s, s.n - 1), "libc.so.6"));
  gboolean host = FALSE;
  for (guint i = main_frame + 1; i < s.n; i++)
    host |= g_str_has_prefix(frame_name(&s, i), "runsxs!runsxs_host_execute+0x");
  g_assert_true(host);

  /* Every runtime that owned a frame walked; nothing failed. */
  JsonObject *walks = json_object_get_object_member(json_node_get_object(doc), "stack_walks");
  g_assert_cmpint(json_object_get_int_member(walks, "made"), ==, 1);
  g_assert_cmpint(json_object_get_int_member(walks, "failed"), ==, 0);
  g_assert_cmpint(json_object_get_int_member(walks, "runtime_walks"), ==, c->inner == c->outer ? 2 : 3);
}

/* One runtime: Sorter.Run -> libc's qsort -> Sorter.Compare through a function pointer. */
static void test_qsort(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsStitch");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "qsort", NULL};
  g_autoptr(ItestRun) run = run_both(f, argv, "exception", 0);
  g_assert_nonnull(strstr(run->out, "qsort 1,2,3,4,5,7,8,9\n"));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  g_autoptr(GPtrArray) stacks = stacks_with(doc, "exception", "Sorter.Compare");
  g_assert_cmpuint(stacks->len, ==, 1);
  g_assert_cmpint(json_object_get_int_member(stacks->pdata[0], "count"), ==, 1);
  Stack s = stack_of(stacks->pdata[0]);
  assert_well_formed(&s);
  guint compare = find_managed(&s, 0, "Sorter.Compare", 1);
  guint sort = find_managed(&s, compare + 1, "Sorter.Run", 1);
  assert_native_between(&s, compare, sort, "libc.so.6!qsort");
  g_assert_cmpuint(find_managed(&s, sort + 1, "SxsStitch.Main", 1), ==, sort + 1);
  assert_native_between(&s, sort + 1, s.n, "libhostpolicy.so!corehost_main+0x");
}

/* 7 exceptions from one site and 3 from another: two stacks, counted 7 and 3, nothing else from
 * those sites, and the runtime's exception counter agrees. */
static void test_counts(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsStitch");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "counts", NULL};
  g_autoptr(ItestRun) run = run_both(f, argv, "exception", 0);
  g_assert_nonnull(strstr(run->out, "counts one=7 two=3\n"));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  const char *sites[] = {"Counts.SiteOne", "Counts.SiteTwo"};
  const gint64 expected[] = {7, 3};
  for (guint k = 0; k < 2; k++) {
    g_autoptr(GPtrArray) stacks = stacks_with(doc, "exception", sites[k]);
    g_assert_cmpuint(stacks->len, ==, 1);
    g_assert_cmpint(json_object_get_int_member(stacks->pdata[0], "count"), ==, expected[k]);
    Stack s = stack_of(stacks->pdata[0]);
    assert_well_formed(&s);
    guint fail = find_managed(&s, 0, "Counts.Fail", 1);
    g_assert_cmpuint(find_managed(&s, fail, sites[k], 1), ==, fail + 1);
  }
  /* Every exception the runtime reported was walked, and is in exactly one stack. */
  JsonArray *stacks = json_object_get_array_member(json_node_get_object(doc), "stacks");
  gint64 total = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++)
    total += json_object_get_int_member(json_array_get_object_element(stacks, i), "count");
  gint64 thrown = itest_runtime_counter(itest_profile_runtime(doc, 1), "exceptions");
  g_assert_cmpint(thrown, >=, 10);
  g_assert_cmpint(total, ==, thrown);
}

/* The runsxs stress workload (GCs, exceptions, hardware faults, threads coming and going, calls
 * between the runtimes) with a stack walk at every exception, JIT compilation and GC, repeated:
 * no crash, no hang, every event walked once, and the exception counts exact. */
static void test_stress(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsStress");
  g_autofree char *cfg = write_config(f, "exception, jit, gc");
  g_auto(GStrv) env = itest_profiler_env(cfg);
  const char *argv[] = {itest_env("SXS_RUNSXS"), "10.0", app, "2 2", "2.0.0", app, "2 1", NULL};
  g_autoptr(GRegex) re =
      g_regex_new("^stress ok seconds=2 gcs=(\\d+) exceptions=(\\d+) nre=(\\d+) nre_pool=(\\d+) div0=(\\d+) "
                  "spins=\\d+ bridge=\\d+ clr=([0-9.]+)$",
                  G_REGEX_MULTILINE, 0, NULL);
  for (int repeat = 0; repeat < 3; repeat++) {
    g_remove(f->profile);
    g_autoptr(ItestRun) run = itest_run(argv, (const char *const *)env, f->dir, 90);
    itest_assert_exit(run, 0);
    g_autoptr(JsonNode) doc = itest_load_json(f->profile);
    g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 2);
    /* The app's own count of exceptions per runtime (Environment.Version tells which). */
    gint64 app_exceptions[2] = {0, 0}, app_gcs[2] = {0, 0};
    g_autoptr(GMatchInfo) mi = NULL;
    guint lines = 0;
    g_regex_match(re, run->out, 0, &mi);
    while (g_match_info_matches(mi)) {
      g_autofree char *clr = g_match_info_fetch(mi, 6);
      int which = g_str_has_prefix(clr, "4.0.30319") ? 1 : 0; /* 2.0 reports the desktop CLR's version */
      for (int group = 2; group <= 5; group++) {
        g_autofree char *v = g_match_info_fetch(mi, group);
        app_exceptions[which] += g_ascii_strtoll(v, NULL, 10);
      }
      g_autofree char *gcs = g_match_info_fetch(mi, 1);
      app_gcs[which] = g_ascii_strtoll(gcs, NULL, 10);
      lines++;
      g_match_info_next(mi, NULL);
    }
    g_assert_cmpuint(lines, ==, 2);
    gint64 profile_exceptions = 0, profile_gcs = 0, profile_jit = 0;
    for (gint64 id = 1; id <= 2; id++) {
      JsonObject *rt = itest_profile_runtime(doc, id);
      int which = g_str_has_prefix(json_object_get_string_member(rt, "version"), "2.0") ? 1 : 0;
      g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, app_exceptions[which]);
      g_assert_cmpint(itest_runtime_counter(rt, "gcs"), >=, app_gcs[which]);
      profile_exceptions += itest_runtime_counter(rt, "exceptions");
      profile_gcs += itest_runtime_counter(rt, "gcs");
      profile_jit += itest_runtime_counter(rt, "jit_compiled");
    }
    /* Each event's stack is counted once: per event kind the stacks add up to the events. */
    JsonArray *stacks = json_object_get_array_member(json_node_get_object(doc), "stacks");
    gint64 by_event[3] = {0, 0, 0};
    for (guint i = 0; i < json_array_get_length(stacks); i++) {
      JsonObject *st = json_array_get_object_element(stacks, i);
      const char *event = json_object_get_string_member(st, "event");
      int k = g_str_equal(event, "exception") ? 0 : g_str_equal(event, "gc") ? 1 : 2;
      by_event[k] += json_object_get_int_member(st, "count");
      Stack s = stack_of(st);
      for (guint j = 1; j < s.n; j++)
        g_assert_cmphex(frame_sp(&s, j - 1), <, frame_sp(&s, j));
    }
    JsonObject *walks = json_object_get_object_member(json_node_get_object(doc), "stack_walks");
    JsonObject *events = json_object_get_object_member(walks, "events");
    g_assert_cmpint(json_object_get_int_member(walks, "stacks_dropped"), ==, 0);
    g_assert_cmpint(json_object_get_int_member(walks, "empty"), ==, 0);
    g_assert_cmpint(json_object_get_int_member(walks, "truncated"), ==, 0);
    /* Runtimes may be skipped (one shut down while the other still threw); events may not. */
    JsonObject *skipped = json_object_get_object_member(walks, "skipped");
    g_assert_false(json_object_has_member(skipped, "event during a walk"));
    g_assert_false(json_object_has_member(skipped, "stack bounds unknown"));
    /* Every event was seen by the stacks as the runtimes counted it, walked once, and counted in
     * exactly one stack. JIT events are compilations started; the runtime's counter is of those
     * that finished. */
    g_assert_cmpint(json_object_get_int_member(events, "exception"), ==, profile_exceptions);
    g_assert_cmpint(json_object_get_int_member(events, "gc"), ==, profile_gcs);
    g_assert_cmpint(json_object_get_int_member(events, "jit"), >=, profile_jit);
    g_assert_cmpint(by_event[0], ==, profile_exceptions);
    g_assert_cmpint(by_event[1], ==, profile_gcs);
    g_assert_cmpint(by_event[2], ==, json_object_get_int_member(events, "jit"));
    g_assert_cmpint(json_object_get_int_member(walks, "made"), ==,
                    profile_exceptions + profile_gcs + json_object_get_int_member(events, "jit"));
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  static const Chain two = {{"10.0", "10.0"}, 1, 2, 1};
  static const Chain swapped = {{"10.0", "10.0"}, 2, 1, 2};
  static const Chain three = {{"10.0", "9.0", "8.0"}, 1, 2, 3};
  static const Chain with_2_0 = {{"10.0", "2.0.0"}, 1, 2, 1};
  static const Chain from_2_0 = {{"10.0", "2.0.0"}, 2, 1, 2};
  static const Chain with_3_1 = {{"10.0", "3.1"}, 1, 2, 1};
  static const Chain from_3_1 = {{"10.0", "3.1"}, 2, 1, 2};
  static const Chain from_3_1_to_2_0 = {{"3.1", "2.0.0"}, 1, 2, 1};
  static const Chain from_2_0_to_3_1 = {{"3.1", "2.0.0"}, 2, 1, 2};
  g_test_add("/sxs/stitch/chain/10+10", Fixture, &two, itest_scratch_setup, test_chain, itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/10+10-swapped", Fixture, &swapped, itest_scratch_setup, test_chain,
             itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/10+9+8", Fixture, &three, itest_scratch_setup, test_chain, itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/10+2.0", Fixture, &with_2_0, itest_scratch_setup, test_chain, itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/2.0+10", Fixture, &from_2_0, itest_scratch_setup, test_chain, itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/10+3.1", Fixture, &with_3_1, itest_scratch_setup, test_chain, itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/3.1+10", Fixture, &from_3_1, itest_scratch_setup, test_chain, itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/3.1+2.0", Fixture, &from_3_1_to_2_0, itest_scratch_setup, test_chain,
             itest_scratch_teardown);
  g_test_add("/sxs/stitch/chain/2.0+3.1", Fixture, &from_2_0_to_3_1, itest_scratch_setup, test_chain,
             itest_scratch_teardown);
  g_test_add("/sxs/stitch/qsort-callback", Fixture, NULL, itest_scratch_setup, test_qsort, itest_scratch_teardown);
  g_test_add("/sxs/stitch/counts-7-3", Fixture, NULL, itest_scratch_setup, test_counts, itest_scratch_teardown);
  g_test_add("/sxs/stitch/stress", Fixture, NULL, itest_scratch_setup, test_stress, itest_scratch_teardown);
  return g_test_run();
}
