/* Exact call tracing with several runtimes in one process (runsxs, concurrent start): every
 * runtime runs the Tracing app with counts of its own, and its profile entry must hold exactly
 * those: a call routed to the wrong runtime shows up as a wrong count. Both routings (FunctionID
 * mapper with clientData, and libffi closures), with 2 and 3 runtimes:
 *
 *   10.0 + 10.0 (a private copy)     fib 18 (8361 calls) | fib 16 (3193 calls)
 *   10.0 + 8.0                       fib 18              | loop 4321
 *   10.0 + 9.0 + 2.0.0               fib 18              | fib 15 (1973) | fib 16 (2.0: not traced)
 *   10.0 + 3.1 + 2.0.0               loop 4321           | fib 16 (3193) | fib 15 (2.0: not traced)
 * Profile entries are matched to runsxs indexes by the folder of their libcoreclr.so. */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 300
#define MAX_RUNTIMES 3

typedef ItestScratch Fixture;

typedef struct {
  const char *version; /* runsxs's runtime argument */
  const char *args;    /* the Tracing app's arguments */
  const char *counted; /* the function whose calls are known, NULL when tracing is off */
  gint64 calls;
  const char *line; /* what the app prints, traced or not */
} Lane;

static char *canonical(const char *path) {
  char *r = realpath(path, NULL);
  g_assert_nonnull(r);
  char *out = g_strdup(r);
  free(r);
  return out;
}

/* The profile's runtime whose libcoreclr.so lives in `folder`. */
static JsonObject *runtime_in(JsonNode *doc, const char *folder) {
  JsonArray *rts = json_object_get_array_member(json_node_get_object(doc), "runtimes");
  for (guint i = 0; i < json_array_get_length(rts); i++) {
    JsonObject *rt = json_array_get_object_element(rts, i);
    g_autofree char *dir = g_path_get_dirname(json_object_get_string_member(rt, "path"));
    g_autofree char *canon = canonical(dir);
    if (g_str_equal(canon, folder))
      return rt;
  }
  g_assert_not_reached();
}

static gint64 calls_of(JsonObject *rt, const char *name) {
  JsonObject *f = itest_runtime_function(rt, name);
  if (!f || !json_object_has_member(f, "calls"))
    return -1;
  return json_object_get_int_member(f, "calls");
}

static void run_lanes(Fixture *f, const char *routing, const Lane *lanes, int n) {
  g_autofree char *cfg_text =
      g_strdup_printf("[profiler]\noutput=%s\n[tracing]\nenabled=true\nrouting=%s\n", f->output, routing);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  g_autofree char *dll = itest_app("Tracing");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_RUNSXS"));
  for (int i = 0; i < n; i++) {
    g_ptr_array_add(argv, (gpointer)lanes[i].version);
    g_ptr_array_add(argv, dll);
    g_ptr_array_add(argv, (gpointer)lanes[i].args);
  }
  g_ptr_array_add(argv, NULL);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  g_unlink(f->profile);
  g_autoptr(ItestRun) run = itest_run((const char *const *)argv->pdata, (const char *const *)env, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  for (int i = 0; i < n; i++)
    g_assert_nonnull(strstr(run->out, lanes[i].line));

  /* Every lane's own output line, and where each runtime came from. */
  char *folder[MAX_RUNTIMES + 1] = {NULL};
  g_auto(GStrv) lines = g_strsplit(run->out, "\n", -1);
  for (char **l = lines; *l; l++) {
    int index = 0;
    char version[64], path[4096];
    if (sscanf(*l, "runsxs: [%d] %63s %4095s exit=0", &index, version, path) == 3 && index >= 1 && index <= n)
      folder[index] = canonical(path);
  }
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  for (int i = 0; i < n; i++) {
    g_assert_nonnull(folder[i + 1]);
    JsonObject *rt = runtime_in(doc, folder[i + 1]);
    JsonObject *t = json_object_get_object_member(rt, "tracing");
    g_test_message("[%d] %s %s: Fib=%" G_GINT64_FORMAT " Trivial=%" G_GINT64_FORMAT, i + 1, lanes[i].version,
                   lanes[i].args, calls_of(rt, "Sxs.Tests.Tracing.Fib"), calls_of(rt, "Sxs.Tests.Tracing.Trivial"));
    if (!lanes[i].counted) {
      g_assert_false(json_object_get_boolean_member(t, "enabled"));
      g_assert_cmpint(calls_of(rt, "Sxs.Tests.Tracing.Fib"), ==, -1);
      continue;
    }
    g_assert_true(json_object_get_boolean_member(t, "enabled"));
    g_assert_cmpstr(json_object_get_string_member(t, "routing"), ==, routing);
    g_assert_cmpint(json_object_get_int_member(t, "open_frames"), ==, 0);
    g_assert_cmpint(calls_of(rt, lanes[i].counted), ==, lanes[i].calls);
    /* What the other lanes ran is not here. */
    for (int j = 0; j < n; j++)
      if (lanes[j].counted && !g_str_equal(lanes[j].counted, lanes[i].counted))
        g_assert_cmpint(calls_of(rt, lanes[j].counted), ==, -1);
  }
  for (int i = 0; i <= MAX_RUNTIMES; i++)
    g_free(folder[i]);
}

#define FIB18 "fib n=18 result=2584 calls=8361\n"
static const Lane copies[] = {
    {"10.0", "fib 18", "Sxs.Tests.Tracing.Fib", 8361, FIB18},
    {"10.0", "fib 16", "Sxs.Tests.Tracing.Fib", 3193, "fib n=16 result=987 calls=3193\n"},
};
static const Lane ten_eight[] = {
    {"10.0", "fib 18", "Sxs.Tests.Tracing.Fib", 8361, FIB18},
    {"8.0", "loop 4321", "Sxs.Tests.Tracing.Trivial", 4321, "loop calls=4321\n"},
};
static const Lane three[] = {
    {"10.0", "fib 18", "Sxs.Tests.Tracing.Fib", 8361, FIB18},
    {"9.0", "fib 15", "Sxs.Tests.Tracing.Fib", 1973, "fib n=15 result=610 calls=1973\n"},
    {"2.0.0", "fib 16", NULL, 0, "fib n=16 result=987 calls=3193\n"},
};

static const Lane with_3_1[] = {
    {"10.0", "loop 4321", "Sxs.Tests.Tracing.Trivial", 4321, "loop calls=4321\n"},
    {"3.1", "fib 16", "Sxs.Tests.Tracing.Fib", 3193, "fib n=16 result=987 calls=3193\n"},
    {"2.0.0", "fib 15", NULL, 0, "fib n=15 result=610 calls=1973\n"},
};

static void test_copies(Fixture *f, gconstpointer data) {
  run_lanes(f, data, copies, G_N_ELEMENTS(copies));
}

static void test_ten_eight(Fixture *f, gconstpointer data) {
  run_lanes(f, data, ten_eight, G_N_ELEMENTS(ten_eight));
}

static void test_three(Fixture *f, gconstpointer data) {
  run_lanes(f, data, three, G_N_ELEMENTS(three));
}

static void test_with_3_1(Fixture *f, gconstpointer data) {
  run_lanes(f, data, with_3_1, G_N_ELEMENTS(with_3_1));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  const char *routings[] = {"mapper2", "closure"};
  for (guint r = 0; r < G_N_ELEMENTS(routings); r++) {
    g_autofree char *a = g_strdup_printf("/sxs/tracing/%s/10+10-copy", routings[r]);
    g_autofree char *b = g_strdup_printf("/sxs/tracing/%s/10+8", routings[r]);
    g_autofree char *c = g_strdup_printf("/sxs/tracing/%s/10+9+2.0", routings[r]);
    g_test_add(a, Fixture, routings[r], itest_scratch_setup, test_copies, itest_scratch_teardown);
    g_test_add(b, Fixture, routings[r], itest_scratch_setup, test_ten_eight, itest_scratch_teardown);
    g_test_add(c, Fixture, routings[r], itest_scratch_setup, test_three, itest_scratch_teardown);
    g_autofree char *d = g_strdup_printf("/sxs/tracing/%s/10+3.1+2.0", routings[r]);
    g_test_add(d, Fixture, routings[r], itest_scratch_setup, test_with_3_1, itest_scratch_teardown);
  }
  return g_test_run();
}
