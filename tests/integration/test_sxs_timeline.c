/* The timeline on real runtimes: tests/apps/Phases runs about 1 s of Alpha.Spin, 1 s asleep, 1 s
 * of Beta.Spin and a storm of 200 forced collections, printing each phase's start and end on the
 * monotonic clock, its collections and the runtime's own pause total. Under the profiler at 999 Hz
 * (on .NET 10 and 8.0):
 *   - `report --from/--to` at each phase's window keeps that phase's function at >= 95 % of the
 *     window's samples (and the sleep's window none of either function's), and `--phases` finds an
 *     Alpha phase, an idle one and a Beta one where they were;
 *   - the trace file (X.trace.json) has one GC slice per collection the runtime counted, its pause
 *     slices add up to within 10 % of GC.GetTotalPauseDuration, and every sample of the profile's
 *     timeline lies on its thread's track, inside a nest of slices as deep as its stack whose
 *     innermost is its leaf function;
 *   - the speedscope file's thread profile lists the samples in time order (Alpha's before Beta's).
 * And a process killed with SIGKILL during its sleep: the profile rebuilt from its spool keeps
 * the timeline of what it did (Alpha's samples inside Alpha's window); a 1 s window (--timeline 1)
 * keeps only the last second in detail and says where detail starts. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "itest.h"

#define TIMEOUT 300

/* What Phases printed. */
typedef struct {
  double frequency;
  gint64 start[4], end[4]; /* alpha, idle, beta, storm: ticks */
  gint64 gc_count, storm, pause_us;
} PhasesOut;

static const char *const phase_names[4] = {"alpha", "idle", "beta", "storm"};

static void parse_phases(const char *out, PhasesOut *p, gboolean finished) {
  memset(p, 0, sizeof *p);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  guint seen = 0;
  for (char **l = lines; *l; l++) {
    if (g_str_has_prefix(*l, "frequency "))
      p->frequency = g_ascii_strtod(*l + strlen("frequency "), NULL);
    for (int i = 0; i < 4; i++) {
      g_autofree char *prefix = g_strdup_printf("phase %s ", phase_names[i]);
      if (g_str_has_prefix(*l, prefix)) {
        char *rest = NULL;
        p->start[i] = g_ascii_strtoll(*l + strlen(prefix), &rest, 10);
        p->end[i] = g_ascii_strtoll(rest, NULL, 10);
        seen |= 1u << i;
      }
    }
    if (g_str_has_prefix(*l, "gc count="))
      g_assert_cmpint(sscanf(*l, "gc count=%" G_GINT64_FORMAT " storm=%" G_GINT64_FORMAT " pause_us=%" G_GINT64_FORMAT,
                             &p->gc_count, &p->storm, &p->pause_us),
                      ==, 3);
  }
  g_assert_cmpfloat(p->frequency, >, 0);
  g_assert_cmpuint(seen & 1, ==, 1);
  if (finished) {
    g_assert_cmpuint(seen, ==, 15);
    g_assert_cmpint(p->storm, >=, 200);
  }
}

/* A phase's window in seconds since the process started, as the profile's timeline counts. */
static void window_s(const PhasesOut *p, int phase, JsonObject *timeline, double *ret_from, double *ret_to) {
  double mono_start = (double)json_object_get_int_member(timeline, "monotonic_start_us");
  g_assert_cmpfloat(mono_start, >, 0);
  *ret_from = ((double)p->start[phase] / p->frequency * 1e6 - mono_start) / 1e6;
  *ret_to = ((double)p->end[phase] / p->frequency * 1e6 - mono_start) / 1e6;
  g_test_message("%s: %.3f s to %.3f s", phase_names[phase], *ret_from, *ret_to);
  g_assert_cmpfloat(*ret_from, >, 0);
  g_assert_cmpfloat(*ret_to, >, *ret_from);
}

/* Runs Phases on runtime (runsxs) under the profiler at 999 Hz with `extra` config lines. */
static ItestRun *run_phases(ItestScratch *s, const char *runtime, const char *args, const char *extra) {
  g_autofree char *cfg_text = g_strdup_printf("[profiler]\noutput=%s\nformats=json,trace,speedscope\n"
                                              "[sampling]\nenabled=true\nfrequency=999\n%s",
                                              s->output, extra ? extra : "");
  g_autofree char *cfg = itest_write_file(s->dir, "sxsprof.conf", cfg_text);
  g_autofree char *app = itest_app("Phases");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "--st", runtime, app, args, NULL};
  g_auto(GStrv) env = itest_profiler_env(cfg);
  return itest_run(argv, (const char *const *)env, s->dir, TIMEOUT);
}

/* `sxsprof report PROFILE --from A --to B --format folded -o PREFIX`: the samples whose stack has
 * `function`, and all of them. */
static void window_share(ItestScratch *s, double from, double to, const char *function, gint64 *ret_hits,
                         gint64 *ret_all) {
  g_autofree char *a = g_strdup_printf("%.6f", from), *b = g_strdup_printf("%.6f", to);
  g_autofree char *prefix = g_build_filename(s->dir, "cut", NULL);
  g_autofree char *folded_path = g_strconcat(prefix, ".folded", NULL);
  g_unlink(folded_path); /* a window without samples writes none */
  const char *argv[] = {
      itest_env("SXS_SXSPROF"), "report", s->profile, "--from", a, "--to", b, "--format", "folded", "-o", prefix, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_autofree char *folded = itest_read_file(folded_path);
  g_auto(GStrv) lines = g_strsplit(folded, "\n", -1);
  *ret_hits = *ret_all = 0;
  for (char **l = lines; *l; l++) {
    const char *space = strrchr(*l, ' ');
    if (!**l || !space)
      continue;
    gint64 n = g_ascii_strtoll(space + 1, NULL, 10);
    *ret_all += n;
    if (strstr(*l, function))
      *ret_hits += n;
  }
}

/* One X slice of the trace. */
typedef struct {
  guint64 tid;
  double ts, dur;
  const char *name;
} Slice;

/* The profile's timeline samples: (thread, time, stack) checked against the trace's slices. */
static void check_trace_samples(JsonObject *root, JsonArray *events) {
  JsonObject *timeline = json_object_get_object_member(root, "timeline");
  JsonArray *stacks = json_object_get_array_member(json_object_get_object_member(root, "samples"), "stacks");
  g_autoptr(GArray) slices = g_array_new(FALSE, FALSE, sizeof(Slice));
  for (guint i = 0; i < json_array_get_length(events); i++) {
    JsonObject *e = json_array_get_object_element(events, i);
    const char *cat = json_object_has_member(e, "cat") ? json_object_get_string_member(e, "cat") : "";
    if (!g_str_equal(json_object_get_string_member(e, "ph"), "X") ||
        (!g_str_equal(cat, "managed") && !g_str_equal(cat, "native")))
      continue;
    Slice sl = {.tid = (guint64)json_object_get_int_member(e, "tid"),
                .ts = json_object_get_double_member(e, "ts"),
                .dur = json_object_get_double_member(e, "dur"),
                .name = json_object_get_string_member(e, "name")};
    g_array_append_val(slices, sl);
  }
  JsonArray *threads = json_object_get_array_member(timeline, "threads");
  guint checked = 0;
  for (guint i = 0; i < json_array_get_length(threads); i++) {
    JsonObject *th = json_array_get_object_element(threads, i);
    guint64 tid = (guint64)json_object_get_int_member(th, "os_tid");
    JsonArray *t = json_object_get_array_member(th, "t"), *sidx = json_object_get_array_member(th, "s");
    g_assert_cmpuint(json_array_get_length(t), ==, json_array_get_length(sidx));
    double at = 0, prev = -1;
    /* This thread's slices alone. */
    g_autoptr(GArray) mine = g_array_new(FALSE, FALSE, sizeof(Slice));
    for (guint k = 0; k < slices->len; k++)
      if (g_array_index(slices, Slice, k).tid == tid)
        g_array_append_val(mine, g_array_index(slices, Slice, k));
    for (guint j = 0; j < json_array_get_length(t); j++) {
      at += (double)json_array_get_int_element(t, j);
      g_assert_cmpfloat(at, >=, prev); /* time order */
      prev = at;
      JsonObject *stack = json_array_get_object_element(stacks, (guint)json_array_get_int_element(sidx, j));
      g_assert_cmpint(json_object_get_int_member(stack, "os_tid"), ==, (gint64)tid);
      JsonArray *frames = json_object_get_array_member(stack, "frames");
      guint depth = json_array_get_length(frames);
      /* The slices covering the sample: as many as its frames, the shortest its leaf. */
      guint covering = 0;
      const Slice *inner = NULL;
      for (guint k = 0; k < mine->len; k++) {
        const Slice *sl = &g_array_index(mine, Slice, k);
        if (sl->ts <= at && at < sl->ts + sl->dur) {
          covering++;
          if (!inner || sl->ts > inner->ts || (sl->ts == inner->ts && sl->dur < inner->dur))
            inner = sl;
        }
      }
      if (covering != depth || !inner)
        g_test_message("thread %" G_GUINT64_FORMAT " sample %u at %.0f us: %u slices for %u frames", tid, j, at,
                       covering, depth);
      g_assert_cmpuint(covering, ==, depth);
      g_assert_nonnull(inner);
      JsonObject *leaf = json_array_get_object_element(frames, 0);
      const char *leaf_name = json_object_get_string_member(leaf, "name");
      /* The trace names a native function without its offset (module!symbol+0x12 -> symbol). */
      g_assert_true(g_str_has_prefix(leaf_name, inner->name) || strstr(leaf_name, inner->name) != NULL);
      checked++;
    }
  }
  /* Every sample of the timeline was checked (a loaded machine samples less than 999 Hz). */
  g_assert_cmpuint(checked, >, 600);
}

/* Reads the speedscope file's profile of the thread that ran the phases: its samples in order, to
 * see that Alpha.Spin's all come before Beta.Spin's. */
static void check_speedscope_order(const char *path) {
  g_autoptr(JsonNode) doc = itest_load_json(path);
  JsonObject *root = json_node_get_object(doc);
  JsonArray *frames = json_object_get_array_member(json_object_get_object_member(root, "shared"), "frames");
  gint64 alpha = -1, beta = -1;
  for (guint i = 0; i < json_array_get_length(frames); i++) {
    const char *name = json_object_get_string_member(json_array_get_object_element(frames, i), "name");
    if (strstr(name, "Alpha.Spin"))
      alpha = i;
    if (strstr(name, "Beta.Spin"))
      beta = i;
  }
  g_assert_cmpint(alpha, >=, 0);
  g_assert_cmpint(beta, >=, 0);
  JsonArray *profiles = json_object_get_array_member(root, "profiles");
  gboolean found = FALSE;
  for (guint i = 0; i < json_array_get_length(profiles); i++) {
    JsonObject *p = json_array_get_object_element(profiles, i);
    if (!g_str_equal(json_object_get_string_member(p, "type"), "sampled"))
      continue;
    JsonArray *samples = json_object_get_array_member(p, "samples");
    gint64 last_alpha = -1, first_beta = -1, n_alpha = 0, n_beta = 0;
    for (guint j = 0; j < json_array_get_length(samples); j++) {
      JsonArray *st = json_array_get_array_element(samples, j);
      for (guint d = 0; d < json_array_get_length(st); d++) {
        gint64 f = json_array_get_int_element(st, d);
        if (f == alpha) {
          last_alpha = j;
          n_alpha++;
        }
        if (f == beta) {
          if (first_beta < 0)
            first_beta = j;
          n_beta++;
        }
      }
    }
    if (n_alpha == 0 && n_beta == 0)
      continue;
    found = TRUE;
    g_test_message("speedscope: %" G_GINT64_FORMAT " Alpha samples, the last at %" G_GINT64_FORMAT "; %" G_GINT64_FORMAT
                   " Beta samples, the first at %" G_GINT64_FORMAT,
                   n_alpha, last_alpha, n_beta, first_beta);
    g_assert_cmpint(n_alpha, >, 300);
    g_assert_cmpint(n_beta, >, 300);
    g_assert_cmpint(last_alpha, <, first_beta);
  }
  g_assert_true(found);
}

static JsonObject *member(JsonObject *o, const char *name) {
  g_assert_true(json_object_has_member(o, name));
  return json_object_get_object_member(o, name);
}

/* The SVG's activity strip dragged across Alpha's window in Chromium: the graph redrawn holds
 * Alpha.Spin across (nearly) its whole width and no Beta.Spin; a double-click gives the whole run
 * back. speedscope opens the speedscope file and the trace file without a dialog, exception or
 * console error, in its time-order view, with the main thread's profile named. */
static void check_in_browser(ItestScratch *s, double alpha_from, double alpha_to) {
  g_autofree char *node = g_find_program_in_path("node");
  g_autofree char *chromium = g_find_program_in_path("chromium");
  if (node == NULL || chromium == NULL) {
    g_test_fail_printf("%s is not installed: run tests/setup.sh", node == NULL ? "node" : "chromium");
    return;
  }
  g_autofree char *svg_prefix = g_build_filename(s->dir, "graph", NULL);
  const char *rargv[] = {itest_env("SXS_SXSPROF"), "report", s->profile, "--format", "svg", "-o", svg_prefix, NULL};
  g_autoptr(ItestRun) r = itest_run(rargv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(r, 0);
  g_autofree char *svg = g_strconcat(svg_prefix, ".svg", NULL);
  g_autofree char *trace = g_strconcat(s->output, ".trace.json", NULL);
  g_autofree char *ss = g_strconcat(s->output, ".speedscope.json", NULL);
  g_autofree char *script =
      g_build_filename(itest_env("SXS_SOURCE_DIR"), "tests", "integration", "browser_timeline.js", NULL);
  g_autofree char *release =
      g_build_filename(itest_env("SXS_NODE_TOOLS_DIR"), "node_modules", "speedscope", "dist", "release", NULL);
  g_autofree char *profile_dir = g_build_filename(s->dir, "chromium-profile", NULL);
  g_assert_cmpint(g_mkdir_with_parents(profile_dir, 0700), ==, 0);
  g_autofree char *from = g_strdup_printf("%.3f", alpha_from + 0.05), *to = g_strdup_printf("%.3f", alpha_to - 0.05);
  const char *argv[] = {node,         script,      chromium, profile_dir, svg,   from, to,
                        "Alpha.Spin", "Beta.Spin", release,  ss,          trace, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, TIMEOUT);
  if (run->exit_code != 0)
    g_test_message("%s", run->err);
  itest_assert_exit(run, 0);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  g_assert_true(json_parser_load_from_data(parser, run->out, -1, &error));
  JsonObject *rep = json_node_get_object(json_parser_get_root(parser));
  JsonObject *strip = member(rep, "strip"), *before = member(rep, "before"), *dragged = member(rep, "dragged"),
             *reset = member(rep, "reset");
  g_test_message("strip: %" G_GINT64_FORMAT " steps of %" G_GINT64_FORMAT " us; Alpha %.0f, Beta %.0f wide; "
                 "after the drag Alpha %.0f, Beta %.0f of %.0f: %s",
                 json_object_get_int_member(strip, "buckets"), json_object_get_int_member(strip, "step_us"),
                 json_object_get_double_member(before, "a"), json_object_get_double_member(before, "b"),
                 json_object_get_double_member(dragged, "a"), json_object_get_double_member(dragged, "b"),
                 json_object_get_double_member(dragged, "root"), json_object_get_string_member(dragged, "range"));
  g_assert_cmpint(json_object_get_int_member(strip, "step_us"), ==, 100000);
  g_assert_cmpint(json_object_get_int_member(strip, "buckets"), >=, 30);
  g_assert_cmpfloat(json_object_get_double_member(before, "a"), >, 300);
  g_assert_cmpfloat(json_object_get_double_member(before, "b"), >, 300);
  g_assert_cmpfloat(json_object_get_double_member(dragged, "a"), >=,
                    0.95 * json_object_get_double_member(dragged, "root"));
  g_assert_cmpfloat(json_object_get_double_member(dragged, "b"), ==, 0);
  g_assert_true(json_object_get_boolean_member(dragged, "selShown"));
  g_assert_true(g_str_has_suffix(json_object_get_string_member(dragged, "range"),
                                 "samples (double-click the strip for the whole run)"));
  g_assert_cmpfloat(json_object_get_double_member(reset, "a"), ==, json_object_get_double_member(before, "a"));
  g_assert_cmpfloat(json_object_get_double_member(reset, "b"), ==, json_object_get_double_member(before, "b"));
  g_assert_false(json_object_get_boolean_member(reset, "selShown"));
  JsonObject *svg_errors = member(rep, "svgErrors");
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(svg_errors, "exceptions")), ==, 0);
  JsonArray *opened = json_object_get_array_member(rep, "speedscope");
  g_assert_cmpuint(json_array_get_length(opened), ==, 2);
  for (guint i = 0; i < 2; i++) {
    JsonObject *o = json_array_get_object_element(opened, i);
    const char *title = json_object_get_string_member(o, "title"), *text = json_object_get_string_member(o, "text");
    g_test_message("speedscope opened %s: \"%s\"; %s", json_object_get_string_member(o, "file"), title, text);
    g_assert_true(g_str_has_suffix(title, " - speedscope"));
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "dialogs")), ==, 0);
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "exceptions")), ==, 0);
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "consoleErrors")), ==, 0);
    g_assert_cmpint(json_object_get_int_member(o, "canvases"), >, 0);
    g_assert_nonnull(strstr(text, "Time Order"));
    /* The threads' profiles by their names: the speedscope file's, and the trace's tracks. */
    g_assert_nonnull(strstr(text, i == 0 ? "cpu samples, thread" : "[rt1 "));
  }
}

static void test_phases(ItestScratch *s, gconstpointer data) {
  const char *runtime = data;
  g_autoptr(ItestRun) run = run_phases(s, runtime, "1000 200", NULL);
  itest_assert_exit(run, 0);
  PhasesOut p;
  parse_phases(run->out, &p, TRUE);
  g_autoptr(JsonNode) doc = itest_load_json(s->profile);
  JsonObject *root = json_node_get_object(doc);
  g_assert_true(json_object_has_member(root, "timeline"));
  JsonObject *timeline = json_object_get_object_member(root, "timeline");
  g_assert_cmpint(json_object_get_int_member(timeline, "folded_samples"), ==, 0);

  /* Each phase's window: its function alone. */
  static const char *const functions[4] = {"Alpha.Spin", NULL, "Beta.Spin", NULL};
  for (int ph = 0; ph < 3; ph++) {
    double from, to;
    window_s(&p, ph, timeline, &from, &to);
    gint64 hits = 0, all = 0, others = 0, all2 = 0;
    if (functions[ph]) {
      window_share(s, from, to, functions[ph], &hits, &all);
      g_test_message("%s window: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " samples in %s", phase_names[ph], hits,
                     all, functions[ph]);
      g_assert_cmpint(all, >, 300);
      g_assert_cmpfloat((double)hits, >=, 0.95 * (double)all);
      window_share(s, from, to, functions[2 - ph], &others, &all2);
      g_assert_cmpint(others, ==, 0);
    } else {
      window_share(s, from + 0.02, to - 0.02, "Alpha.Spin", &hits, &all);
      window_share(s, from + 0.02, to - 0.02, "Beta.Spin", &others, &all2);
      g_test_message("idle window: %" G_GINT64_FORMAT " samples", all);
      g_assert_cmpint(hits + others, ==, 0);
    }
  }

  /* diff cuts each side to the window: the profile against itself over Alpha's window compares that
   * window's samples on both sides. */
  {
    double from, to;
    window_s(&p, 0, timeline, &from, &to);
    gint64 hits = 0, all = 0;
    window_share(s, from, to, "Alpha.Spin", &hits, &all);
    g_autofree char *a = g_strdup_printf("%.6f", from), *b = g_strdup_printf("%.6f", to);
    const char *argv[] = {itest_env("SXS_SXSPROF"), "diff", s->profile, s->profile, "--from", a, "--to", b, NULL};
    g_autoptr(ItestRun) d = itest_run(argv, NULL, s->dir, TIMEOUT);
    itest_assert_exit(d, 0);
    g_autofree char *expected = g_strdup_printf("(%" G_GINT64_FORMAT " samples), new ", all);
    g_test_message("%.200s", d->out);
    g_assert_nonnull(strstr(d->out, expected));
  }

  /* --phases: an Alpha phase, then idle, then a Beta phase, each about where it was. */
  {
    const char *argv[] = {itest_env("SXS_SXSPROF"), "report", s->profile, "--phases", NULL};
    g_autoptr(ItestRun) ph = itest_run(argv, NULL, s->dir, TIMEOUT);
    itest_assert_exit(ph, 0);
    g_test_message("%s", ph->out);
    const char *a = strstr(ph->out, "top: Alpha.Spin");
    const char *b = strstr(ph->out, "top: Beta.Spin");
    g_assert_nonnull(a);
    g_assert_nonnull(b);
    const char *idle = strstr(a, " idle ");
    g_assert_true(idle && idle < b);
    /* The Alpha phase's line starts within 0.2 s of Alpha's start. */
    const char *line = a;
    while (line > ph->out && line[-1] != '\n')
      line--;
    double from, to;
    window_s(&p, 0, timeline, &from, &to);
    g_assert_cmpfloat(fabs(g_ascii_strtod(line, NULL) - from), <, 0.2);
  }

  /* The trace: one GC slice per collection, the pauses' sum, every sample on its track. */
  g_autofree char *trace_path = g_strconcat(s->output, ".trace.json", NULL);
  g_autoptr(JsonNode) trace = itest_load_json(trace_path);
  JsonObject *troot = json_node_get_object(trace);
  g_assert_cmpstr(json_object_get_string_member(troot, "displayTimeUnit"), ==, "ms");
  JsonArray *events = json_object_get_array_member(troot, "traceEvents");
  gint64 gcs = 0;
  double pause_us = 0;
  for (guint i = 0; i < json_array_get_length(events); i++) {
    JsonObject *e = json_array_get_object_element(events, i);
    const char *ph = json_object_get_string_member(e, "ph");
    /* The trace-event format's fields: every event has ph, pid and (but counters) tid and ts. */
    g_assert_true(json_object_has_member(e, "pid"));
    g_assert_true(json_object_has_member(e, "name"));
    if (!g_str_equal(ph, "M"))
      g_assert_true(json_object_has_member(e, "ts"));
    if (g_str_equal(ph, "X"))
      g_assert_true(json_object_has_member(e, "dur") && json_object_has_member(e, "tid"));
    else
      g_assert_true(g_str_equal(ph, "M") || g_str_equal(ph, "C") || g_str_equal(ph, "i"));
    if (!g_str_equal(ph, "X") || !json_object_has_member(e, "cat") ||
        !g_str_equal(json_object_get_string_member(e, "cat"), "gc"))
      continue;
    if (g_str_has_prefix(json_object_get_string_member(e, "name"), "GC gen"))
      gcs++;
    else if (g_str_equal(json_object_get_string_member(e, "name"), "GC pause"))
      pause_us += json_object_get_double_member(e, "dur");
  }
  g_test_message("trace: %" G_GINT64_FORMAT " GCs (the runtime: %" G_GINT64_FORMAT "), pauses %.0f us (the "
                 "runtime: %" G_GINT64_FORMAT " us)",
                 gcs, p.gc_count, pause_us, p.pause_us);
  g_assert_cmpint(gcs, ==, p.gc_count);
  g_assert_cmpint(p.pause_us, >, 0);
  g_assert_cmpfloat(fabs(pause_us - (double)p.pause_us), <=, 0.10 * (double)p.pause_us);
  check_trace_samples(root, events);

  g_autofree char *ss = g_strconcat(s->output, ".speedscope.json", NULL);
  check_speedscope_order(ss);
  if (g_str_equal(runtime, "10.0")) {
    double from, to;
    window_s(&p, 0, timeline, &from, &to);
    check_in_browser(s, from, to);
  }
}

/* SIGKILL in the sleep: the spool's profile keeps the timeline of Alpha's second. */
static void test_killed(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *cfg_text =
      g_strdup_printf("[profiler]\noutput=%s\n[sampling]\nenabled=true\nfrequency=999\n", s->output);
  g_autofree char *cfg = itest_write_file(s->dir, "sxsprof.conf", cfg_text);
  g_autofree char *app = itest_app("Phases");
  g_autofree char *out_path = g_build_filename(s->dir, "out.txt", NULL);
  const char *argv[] = {itest_env("SXS_RUNSXS"), "--st", "10.0", app, "1000 0", NULL};
  g_auto(GStrv) env = itest_profiler_env(cfg);
  g_autofree char *err_path = g_build_filename(s->dir, "err.txt", NULL);
  g_autoptr(ItestProc) proc = itest_spawn(argv, (const char *const *)env, s->dir, out_path, err_path, FALSE);
  g_assert_true(itest_wait_for_text(out_path, "phase alpha ", 60));
  g_usleep(500 * 1000); /* into the sleep, past a spool write or two */
  kill(proc->pid, SIGKILL);
  g_assert_cmpint(itest_proc_wait(proc, 30), ==, 128 + SIGKILL);
  g_autofree char *out = itest_read_file(out_path);
  PhasesOut p;
  parse_phases(out, &p, FALSE);
  g_autofree char *spool = g_strconcat(s->output, ".spool", NULL);
  g_assert_true(g_file_test(spool, G_FILE_TEST_EXISTS));
  g_assert_false(g_file_test(s->profile, G_FILE_TEST_EXISTS));
  g_autofree char *rebuilt = g_build_filename(s->dir, "rebuilt", NULL);
  const char *rargv[] = {itest_env("SXS_SXSPROF"), "report", spool, "--format", "json", "-o", rebuilt, NULL};
  g_autoptr(ItestRun) r = itest_run(rargv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(r, 0);
  g_autofree char *rebuilt_json = g_strconcat(rebuilt, ".json", NULL);
  g_autoptr(JsonNode) doc = itest_load_json(rebuilt_json);
  JsonObject *root = json_node_get_object(doc);
  JsonObject *timeline = json_object_get_object_member(root, "timeline");
  double from, to;
  window_s(&p, 0, timeline, &from, &to);
  JsonArray *stacks = json_object_get_array_member(json_object_get_object_member(root, "samples"), "stacks");
  JsonArray *threads = json_object_get_array_member(timeline, "threads");
  gint64 in_alpha = 0, alpha_total = 0;
  for (guint i = 0; i < json_array_get_length(threads); i++) {
    JsonObject *th = json_array_get_object_element(threads, i);
    JsonArray *t = json_object_get_array_member(th, "t"), *sidx = json_object_get_array_member(th, "s");
    double at = 0;
    for (guint j = 0; j < json_array_get_length(t); j++) {
      at += (double)json_array_get_int_element(t, j);
      JsonObject *stack = json_array_get_object_element(stacks, (guint)json_array_get_int_element(sidx, j));
      JsonArray *frames = json_object_get_array_member(stack, "frames");
      gboolean alpha = FALSE;
      for (guint k = 0; k < json_array_get_length(frames); k++)
        alpha |= strstr(json_object_get_string_member(json_array_get_object_element(frames, k), "name"),
                        "Alpha.Spin") != NULL;
      if (alpha) {
        alpha_total++;
        in_alpha += at >= from * 1e6 && at <= to * 1e6;
      }
    }
  }
  g_test_message("rebuilt: %" G_GINT64_FORMAT " Alpha samples on the timeline, %" G_GINT64_FORMAT " in its window",
                 alpha_total, in_alpha);
  g_assert_cmpint(alpha_total, >, 300);
  g_assert_cmpint(in_alpha, ==, alpha_total);
}

/* [timeline] window=1: the last second in detail; Alpha's second folded into seconds; a cut
 * before the detail is refused with a clear message. */
static void test_window(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autoptr(ItestRun) run = run_phases(s, "10.0", "1000 20", "[timeline]\nwindow=1\n");
  itest_assert_exit(run, 0);
  PhasesOut p;
  parse_phases(run->out, &p, FALSE);
  g_autoptr(JsonNode) doc = itest_load_json(s->profile);
  JsonObject *timeline = json_object_get_object_member(json_node_get_object(doc), "timeline");
  g_assert_cmpint(json_object_get_int_member(timeline, "window_us"), ==, 1000000);
  double detail_from = (double)json_object_get_int_member(timeline, "detail_from_us") / 1e6;
  double end = (double)json_object_get_int_member(timeline, "end_us") / 1e6;
  double from, to;
  window_s(&p, 0, timeline, &from, &to);
  g_test_message("detail from %.3f s, end %.3f s", detail_from, end);
  g_assert_cmpfloat(detail_from, >, to);
  g_assert_cmpfloat(end - detail_from, <, 1.5);
  gint64 folded = json_object_get_int_member(timeline, "folded_samples");
  g_assert_cmpint(folded, >, 300);
  JsonArray *seconds = json_object_get_array_member(timeline, "seconds");
  gint64 sum = 0;
  for (guint i = 0; i < json_array_get_length(seconds); i++)
    sum += json_array_get_int_element(json_array_get_array_element(seconds, i), 2);
  g_assert_cmpint(sum, ==, folded);
  g_autofree char *a = g_strdup_printf("%.3f", from), *b = g_strdup_printf("%.3f", to);
  const char *argv[] = {itest_env("SXS_SXSPROF"), "report", s->profile, "--from", a, "--to", b, NULL};
  g_autoptr(ItestRun) cut = itest_run(argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(cut, 2);
  g_assert_nonnull(strstr(cut->err, "where the profile's detail starts"));
  g_assert_cmpstr(cut->out, ==, "");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/sxs/timeline/phases/10.0", ItestScratch, "10.0", itest_scratch_setup, test_phases,
             itest_scratch_teardown);
  g_test_add("/sxs/timeline/phases/8.0", ItestScratch, "8.0", itest_scratch_setup, test_phases, itest_scratch_teardown);
  g_test_add("/sxs/timeline/killed", ItestScratch, NULL, itest_scratch_setup, test_killed, itest_scratch_teardown);
  g_test_add("/sxs/timeline/window", ItestScratch, NULL, itest_scratch_setup, test_window, itest_scratch_teardown);
  return g_test_run();
}
