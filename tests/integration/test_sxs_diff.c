/* Comparisons on real runtimes: tests/apps/Shift run twice under `sxsprof run --sample`, its CPU
 * split 70/30 then 30/70 between Alpha.Spin and Beta.Spin, and `sxsprof diff` must name Beta as
 * grown and Alpha as shrunk by some 35-40 points and nothing else beyond noise; its two-column
 * folded file must add up to both profiles' totals; `go tool pprof -diff_base` on the two pprofs it
 * writes must agree; its differential flame graph, opened in headless Chromium, must hover, search
 * and zoom, and colour every frame by the sign of its change. And one process (runsxs) running
 * Shift on 8.0 and 10.0, where 10.0 does three times Gamma.Parse's work: `report --compare` names
 * Gamma.Parse, and only it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 300
#define HZ "--sample=499"

/* The two runs, made once for the whole binary. */
static char *runs_dir;

static void remove_runs(void) {
  if (runs_dir)
    itest_rmtree(runs_dir);
}

/* dir/r<percent>.json of `Shift split <percent> 1000` under sxsprof run (some 3 s of CPU). */
static const char *split_profile(int percent) {
  static char *paths[101];
  if (paths[percent])
    return paths[percent];
  g_autofree char *app = itest_app("Shift");
  if (!runs_dir) {
    runs_dir = itest_tmpdir();
    atexit(remove_runs);
    /* Once without the profiler first: the runtime's and the app's files read from disk by no
     * profiled run (a cold start is start-up time the first run alone would have). */
    const char *wargv[] = {itest_env("SXS_DOTNET"), app, "split", "50", "10", NULL};
    const char *wenv[] = {ITEST_NO_PROFILER_ENV, NULL};
    g_autoptr(ItestRun) warm = itest_run(wargv, wenv, runs_dir, TIMEOUT);
    itest_assert_exit(warm, 0);
  }
  g_autofree char *prefix = g_strdup_printf("%s/r%d", runs_dir, percent);
  g_autofree char *p = g_strdup_printf("%d", percent);
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", HZ,      "-q", "--format", "json", "-o", prefix, "--",
                        itest_env("SXS_DOTNET"),  app,   "split", p,    "1000",     NULL};
  /* Fully optimized code from the first call: no tier-up or on-stack replacement compiling
   * in the middle of one run and not the other (work that is real, but not the split's). */
  const char *env[] = {ITEST_NO_PROFILER_ENV, "DOTNET_TieredCompilation=0", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, env, runs_dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_autofree char *expected = g_strdup_printf("split percent=%d rounds=1000\n", percent);
  g_assert_cmpstr(run->out, ==, expected);
  paths[percent] = g_strconcat(prefix, ".json", NULL);
  return paths[percent];
}

/* The samples a profile holds. */
static gint64 profile_samples(const char *path) {
  g_autoptr(JsonNode) doc = itest_load_json(path);
  JsonObject *s = json_object_get_object_member(json_node_get_object(doc), "samples");
  JsonArray *stacks = json_object_get_array_member(s, "stacks");
  gint64 total = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++)
    total += json_object_get_int_member(json_array_get_object_element(stacks, i), "count");
  return total;
}

/* One row of a summary table: "  before  after  change ±noise  name" (shares: "30.6%  65.7%
 * +35.1 pt ±7.7"; absolute: "366  1006  +640 ±111"). */
typedef struct {
  char *name;
  double before, after, change, noise;
} Row;

static void row_free(gpointer p) {
  Row *r = p;
  g_free(r->name);
  g_free(r);
}

/* The rows of the table headed "  <title> beyond noise: N" in summary (the first such), checking
 * that N rows follow (when N <= 10). */
static GPtrArray *table(const char *summary, const char *title) {
  GPtrArray *rows = g_ptr_array_new_with_free_func(row_free);
  g_autofree char *head = g_strdup_printf("\n  %s beyond noise: ", title);
  const char *at = strstr(summary, head);
  g_assert_nonnull(at);
  guint n = (guint)g_ascii_strtoull(at + strlen(head), NULL, 10);
  if (n == 0)
    return rows;
  g_auto(GStrv) lines = g_strsplit(at + 1, "\n", 13);
  g_assert_true(strstr(lines[1], "before") && strstr(lines[1], "after"));
  for (guint i = 0; i < n && i < 10; i++) {
    const char *l = lines[2 + i];
    g_assert_nonnull(l);
    g_auto(GStrv) words = g_strsplit_set(g_strstrip(g_strdup(l)), " ", -1);
    /* drop empty words (columns are padded) */
    GPtrArray *w = g_ptr_array_new();
    for (char **x = words; *x; x++)
      if (**x)
        g_ptr_array_add(w, *x);
    g_ptr_array_add(w, NULL);
    g_assert_cmpuint(w->len, >=, 6);
    Row *r = g_new0(Row, 1);
    r->before = g_ascii_strtod(w->pdata[0], NULL);
    r->after = g_ascii_strtod(w->pdata[1], NULL);
    r->change = g_ascii_strtod(w->pdata[2], NULL);
    guint name_at = g_str_equal(w->pdata[3], "pt") ? 5 : 4;
    g_assert_true(g_str_has_prefix(w->pdata[name_at - 1], "±"));
    r->noise = g_ascii_strtod((const char *)w->pdata[name_at - 1] + strlen("±"), NULL);
    r->name = g_strjoinv(" ", (char **)&w->pdata[name_at]);
    g_ptr_array_add(rows, r);
    g_ptr_array_free(w, TRUE);
  }
  return rows;
}

/* The one row of a table that matters: `name`. With about a hundred functions each tested at 3
 * standard errors, one of them may pass the line by chance: any other row must be such a marginal
 * one (its change under twice its noise), never a real change; or, given `slack` points, a change
 * no larger than slack plus its noise (what two runs' differing start-ups move, see
 * outside_main_shift). */
static const Row *only_row_but(GPtrArray *rows, const char *name, double slack) {
  const Row *found = NULL;
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = rows->pdata[i];
    g_test_message("row: %s %+.1f (noise %.2f)", r->name, r->change, r->noise);
    if (g_str_equal(r->name, name)) {
      g_assert_null(found);
      found = r;
    } else if (fabs(r->change) >= 2 * r->noise) {
      g_assert_cmpfloat(fabs(r->change), <=, slack + r->noise);
    }
  }
  g_assert_nonnull(found);
  return found;
}

static const Row *only_row(GPtrArray *rows, const char *name) {
  return only_row_but(rows, name, 0);
}

/* `sxsprof diff r70 r30 -o dir/d`: its summary. */
static char *diff_70_30(const char *out_prefix) {
  const char *argv[] = {itest_env("SXS_SXSPROF"), "diff", split_profile(70), split_profile(30), "-o", out_prefix, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, runs_dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_test_message("%s", run->out);
  return g_strdup(run->out);
}

static void test_diff_split(void) {
  g_autofree char *prefix = g_strdup_printf("%s/split/d", split_profile(70) ? runs_dir : "");
  g_autofree char *summary = diff_70_30(prefix);

  /* The totals are the profiles'. */
  gint64 base_n = profile_samples(split_profile(70)), new_n = profile_samples(split_profile(30));
  g_autofree char *head = g_strdup_printf("diff of samples: base %s (%" G_GINT64_FORMAT
                                          " samples), new %s (%" G_GINT64_FORMAT " samples)\n",
                                          split_profile(70), base_n, split_profile(30), new_n);
  g_assert_true(g_str_has_prefix(summary, head));

  /* The folded file: "stack base new", columns adding up to each profile's samples. */
  g_autofree char *folded_path = g_strconcat(prefix, ".folded", NULL);
  g_autofree char *folded = itest_read_file(folded_path);
  g_auto(GStrv) lines = g_strsplit(folded, "\n", -1);
  gint64 sum[2] = {0, 0}, beta_w[2] = {0, 0}, main_w[2] = {0, 0};
  guint n_lines = 0;
  for (char **l = lines; *l && **l; l++, n_lines++) {
    char *second = strrchr(*l, ' ');
    g_assert_nonnull(second);
    *second = '\0';
    char *first = strrchr(*l, ' ');
    g_assert_nonnull(first);
    *first = '\0';
    gint64 w0 = g_ascii_strtoll(first + 1, NULL, 10), w1 = g_ascii_strtoll(second + 1, NULL, 10);
    g_assert_cmpint(w0 + w1, >, 0);
    sum[0] += w0;
    sum[1] += w1;
    if (g_str_has_suffix(*l, ";Beta.Spin")) {
      beta_w[0] += w0;
      beta_w[1] += w1;
    }
    if (strstr(*l, ";Shift.Main;") || g_str_has_suffix(*l, ";Shift.Main")) {
      main_w[0] += w0;
      main_w[1] += w1;
    }
  }
  g_assert_cmpuint(n_lines, >, 2);
  g_assert_cmpint(sum[0], ==, base_n);
  g_assert_cmpint(sum[1], ==, new_n);

  /* The share outside Shift.Main (the runtime's start-up, its other threads) moves between two
   * runs of one program (a cold start, a loaded machine: 3.8 % against 0.7 % under
   * coreclr_initialize in one CI run), and every share with it: Main's callers' totals by as much,
   * the start-up's functions by parts of it. A real change, rightly reported; not the split's. */
  double outside_shift = fabs(100.0 * (base_n - main_w[0]) / base_n - 100.0 * (new_n - main_w[1]) / new_n);
  g_test_message("share outside Shift.Main: %.1f%% then %.1f%%", 100.0 * (base_n - main_w[0]) / base_n,
                 100.0 * (new_n - main_w[1]) / new_n);
  g_assert_cmpfloat(outside_shift, <, 8.0);

  /* One grew, one shrank, by self and by total, by some 35-40 points (70/30 of the ~90 % of CPU
   * time the loop takes); nothing else beyond noise but what the start-up moved. */
  g_autoptr(GPtrArray) sg = table(summary, "self growths");
  g_autoptr(GPtrArray) ss = table(summary, "self shrinks");
  g_autoptr(GPtrArray) tg = table(summary, "total growths");
  g_autoptr(GPtrArray) ts = table(summary, "total shrinks");
  const Row *beta = only_row_but(sg, "Beta.Spin", outside_shift),
            *alpha = only_row_but(ss, "Alpha.Spin", outside_shift);
  g_assert_cmpfloat(beta->change, >, 25.0);
  g_assert_cmpfloat(beta->change, <, 45.0);
  g_assert_cmpfloat(alpha->change, <, -25.0);
  g_assert_cmpfloat(alpha->change, >, -45.0);
  g_assert_cmpfloat(fabs(beta->after - beta->before - beta->change), <, 0.11);
  g_assert_cmpfloat(alpha->before, >, 1.8 * alpha->after);
  only_row_but(tg, "Beta.Spin", outside_shift);
  only_row_but(ts, "Alpha.Spin", outside_shift);
  g_assert_nonnull(strstr(summary, "\n  within noise: "));
  /* Beta's lines in the folded file: its share in either. */
  g_assert_cmpfloat(fabs(100.0 * beta_w[0] / base_n - beta->before), <, 0.051);
  g_assert_cmpfloat(fabs(100.0 * beta_w[1] / new_n - beta->after), <, 0.051);

  /* go tool pprof -diff_base, as the summary says, normalized (base scaled to new's total): the
   * same changes in points. */
  g_autofree char *base_pb = g_strconcat(prefix, ".base.pb.gz", NULL);
  g_autofree char *new_pb = g_strconcat(prefix, ".new.pb.gz", NULL);
  g_autofree char *command = g_strdup_printf("pprof: go tool pprof -diff_base %s %s\n", base_pb, new_pb);
  g_assert_nonnull(strstr(summary, command));
  g_autofree char *go = g_find_program_in_path("go");
  if (!go) {
    g_test_fail_printf("go is not installed: run tests/setup.sh");
    return;
  }
  g_autofree char *gocache = g_build_filename(runs_dir, "gocache", NULL);
  g_autofree char *gocache_env = g_strconcat("GOCACHE=", gocache, NULL);
  const char *penv[] = {gocache_env, "GOFLAGS=-mod=mod", NULL};
  const char *pargv[] = {go, "tool", "pprof", "-top", "-normalize", "-diff_base", base_pb, new_pb, NULL};
  g_autoptr(ItestRun) pp = itest_run(pargv, penv, runs_dir, 120);
  itest_assert_exit(pp, 0);
  g_test_message("%s", pp->out);
  double seen[2] = {NAN, NAN};
  const char *names[2] = {"Alpha.Spin", "Beta.Spin"};
  g_auto(GStrv) plines = g_strsplit(pp->out, "\n", -1);
  for (char **l = plines; *l; l++)
    for (int k = 0; k < 2; k++) {
      g_autofree char *suffix = g_strconcat(" ", names[k], NULL);
      if (!g_str_has_suffix(*l, suffix))
        continue;
      /* "  506.93ms 35.13% 35.13%   504.76ms 34.98%  Beta.Spin": flat (signed), flat% */
      char *end = NULL;
      const char *p = *l;
      while (*p == ' ')
        p++;
      gboolean negative = *p == '-';
      const char *pct = strchr(p, ' ');
      g_assert_nonnull(pct);
      seen[k] = g_ascii_strtod(pct, &end) * (negative ? -1 : 1);
    }
  g_assert_false(isnan(seen[0]) || isnan(seen[1]));
  g_assert_cmpfloat(fabs(seen[0] - alpha->change), <, 0.3);
  g_assert_cmpfloat(fabs(seen[1] - beta->change), <, 0.3);
}

/* data-name -> data-change and fill of every frame of a diff SVG, checking the colour's sign: red
 * (#ffxxxx) for a positive change (negative in the negated graph), blue (#xxxxff) for a negative
 * one, white for none. Returns how many frames there were; *ret_hot_fill: name's fill. */
static guint check_colours(const char *svg, gboolean negated, const char *name, char **ret_hot_fill) {
  g_autoptr(GRegex) re = g_regex_new("<g class=\"f\" data-name=\"([^\"]*)\"[^>]* data-change=\"([^\"]*)\""
                                     "[^>]*>.*?<rect [^>]*fill=\"(#[0-9a-f]{6})\"",
                                     G_REGEX_DOTALL, 0, NULL);
  g_assert_nonnull(re);
  g_autoptr(GMatchInfo) m = NULL;
  guint n = 0, red = 0, blue = 0;
  g_regex_match(re, svg, 0, &m);
  for (; g_match_info_matches(m); g_match_info_next(m, NULL), n++) {
    g_autofree char *fname = g_match_info_fetch(m, 1), *change = g_match_info_fetch(m, 2),
                    *fill = g_match_info_fetch(m, 3);
    double c = g_ascii_strtod(change, NULL) * (negated ? -1 : 1);
    gboolean is_red = g_str_has_prefix(fill, "#ff") && !g_str_equal(fill, "#ffffff");
    gboolean is_blue = g_str_has_suffix(fill, "ff") && !g_str_has_prefix(fill, "#ff");
    if (c > 0)
      g_assert_true(is_red);
    else if (c < 0)
      g_assert_true(is_blue);
    else
      g_assert_cmpstr(fill, ==, "#ffffff");
    red += is_red;
    blue += is_blue;
    if (g_str_equal(fname, name) && !*ret_hot_fill)
      *ret_hot_fill = g_strdup(fill); /* the first in the file: the widest, the one looked up by name */
  }
  g_assert_cmpuint(red, >, 0);
  g_assert_cmpuint(blue, >, 0);
  return n;
}

static JsonObject *member(JsonObject *o, const char *name) {
  g_assert_true(json_object_has_member(o, name));
  return json_object_get_object_member(o, name);
}

/* The differential flame graph and its twin in headless Chromium (tests/integration/browser_svg.js). */
static void browse(const char *svg_path, gboolean negated, const char *hot, const char *hover_prefix) {
  g_autofree char *node = g_find_program_in_path("node");
  g_autofree char *chromium = g_find_program_in_path("chromium");
  if (node == NULL || chromium == NULL) {
    g_test_fail_printf("%s is not installed: run tests/setup.sh", node == NULL ? "node" : "chromium");
    return;
  }
  g_autofree char *svg = itest_read_file(svg_path);
  g_autofree char *hot_fill = NULL;
  check_colours(svg, negated, hot, &hot_fill);
  g_assert_nonnull(hot_fill);
  g_assert_true(g_str_has_prefix(hot_fill, "#ff") && !g_str_equal(hot_fill, "#ffffff")); /* red */

  g_autofree char *tmp = itest_tmpdir();
  g_autofree char *profile_dir = g_build_filename(tmp, "chromium-profile", NULL);
  g_autofree char *png = g_build_filename(tmp, "diff.png", NULL);
  g_autofree char *script =
      g_build_filename(itest_env("SXS_SOURCE_DIR"), "tests", "integration", "browser_svg.js", NULL);
  g_assert_cmpint(g_mkdir_with_parents(profile_dir, 0700), ==, 0);
  const char *argv[] = {node, script, chromium, svg_path, profile_dir, png, hot, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, tmp, TIMEOUT);
  itest_assert_exit(run, 0);
  g_autoptr(JsonParser) parser = json_parser_new();
  g_assert_true(json_parser_load_from_data(parser, run->out, -1, NULL));
  JsonObject *report = json_node_get_object(json_parser_get_root(parser));

  /* Drawn in its colour (the screenshot's pixel inside it), hovered with before, after, change and
   * noise, found by search, zoomed to the full width. */
  g_assert_cmpstr(json_object_get_string_member(member(report, "screenshot"), "hotPixel"), ==, hot_fill);
  const char *hover = json_object_get_string_member(report, "hover");
  g_test_message("hover: %s", hover);
  g_assert_true(g_str_has_prefix(hover, hover_prefix));
  g_assert_nonnull(strstr(hover, " | after: self "));
  g_assert_nonnull(strstr(hover, " | self change "));
  g_assert_nonnull(strstr(hover, " pt (noise ±"));
  g_assert_nonnull(strstr(hover, "), beyond noise | total change "));
  JsonObject *search = member(report, "search");
  g_assert_cmpfloat(json_object_get_double_member(search, "percent"), >, 20.0);
  g_assert_cmpfloat(json_object_get_double_member(search, "nonePercent"), ==, 0.0);
  g_assert_true(json_object_get_boolean_member(search, "restored"));
  double full = json_object_get_double_member(member(report, "load"), "fullWidth");
  g_assert_true(json_object_get_boolean_member(member(member(report, "zoom"), "zoomed"), "ok"));
  g_assert_cmpfloat(
      fabs(json_object_get_double_member(member(member(member(report, "zoom"), "zoomed"), "hot"), "w") - full), <,
      0.01);
  g_assert_cmpfloat(fabs(json_object_get_double_member(member(member(report, "click"), "hot"), "w") - full), <, 0.01);
  g_assert_cmpstr(json_object_get_string_member(member(report, "ctrlF"), "dialog"), ==, "prompt");
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(report, "exceptions")), ==, 0);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(report, "consoleErrors")), ==, 0);
  itest_rmtree(tmp);
}

static void test_diff_svg(void) {
  g_autofree char *prefix = g_strdup_printf("%s/svg/d", split_profile(70) ? runs_dir : "");
  g_autofree char *summary = diff_70_30(prefix);
  g_autofree char *svg = g_strconcat(prefix, ".svg", NULL);
  g_autofree char *negated = g_strconcat(prefix, ".negated.svg", NULL);
  /* NEW's shape: Beta is wide and red (grew); BASE's: Alpha is wide and red (shrank). */
  browse(svg, FALSE, "Beta.Spin", "Beta.Spin | before: self ");
  browse(negated, TRUE, "Alpha.Spin", "Alpha.Spin | before: self ");
}

/* runsxs, pick-all: Shift on 8.0 and 10.0 in one process, 10.0's Gamma.Parse doing 3x the work. */
static void test_compare_runtimes(void) {
  g_autofree char *tmp = itest_tmpdir();
  g_autofree char *app = itest_app("Shift");
  g_autofree char *output = g_build_filename(tmp, "cmp", NULL);
  g_autofree char *text =
      g_strdup_printf("[profiler]\noutput=%s\nmode=pick-all\n[sampling]\nenabled=true\nfrequency=499\n", output);
  g_autofree char *cfg = itest_write_file(tmp, "sxsprof.conf", text);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  const char *argv[] = {itest_env("SXS_RUNSXS"), "8.0", app, "version 300", "10.0", app, "version 300", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, (const char *const *)env, tmp, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "version major=8 gamma_chunks=700 rounds=300\n"));
  g_assert_nonnull(strstr(run->out, "version major=10 gamma_chunks=2100 rounds=300\n"));
  g_autofree char *profile = g_strconcat(output, ".json", NULL);

  /* Equal work but Gamma's: in samples (--absolute), on the working thread. */
  const char *cargv[] = {itest_env("SXS_SXSPROF"),
                         "report",
                         profile,
                         "--compare",
                         "8.0,10.0",
                         "--absolute",
                         "--thread",
                         "shift-work",
                         NULL};
  g_autoptr(ItestRun) cmp = itest_run(cargv, NULL, tmp, TIMEOUT);
  itest_assert_exit(cmp, 0);
  g_test_message("%s", cmp->out);
  /* runsxs numbers the runtimes as they start: either may be rt1. */
  g_assert_true(g_regex_match_simple("^diff of samples: base \\[rt[12] 8\\.0\\.[0-9]+\\] \\([0-9]+ samples\\), new "
                                     "\\[rt[12] 10\\.0\\.[0-9]+\\] \\([0-9]+ samples\\)\n",
                                     cmp->out, 0, 0));
  g_autoptr(GPtrArray) sg = table(cmp->out, "self growths");
  g_autoptr(GPtrArray) ss = table(cmp->out, "self shrinks");
  const Row *gamma = only_row(sg, "Gamma.Parse");
  g_assert_cmpuint(ss->len, ==, 0);
  g_assert_cmpfloat(gamma->after, >, 2.0 * gamma->before);
  g_assert_cmpfloat(gamma->after, <, 4.5 * gamma->before);
  /* Its callers' totals grew with it; Alpha and Beta did not move beyond noise. */
  g_autoptr(GPtrArray) tg = table(cmp->out, "total growths");
  gboolean gamma_total = FALSE;
  for (guint i = 0; i < tg->len; i++) {
    const Row *r = tg->pdata[i];
    g_assert_cmpstr(r->name, !=, "Alpha.Spin");
    g_assert_cmpstr(r->name, !=, "Beta.Spin");
    gamma_total |= g_str_equal(r->name, "Gamma.Parse");
  }
  g_assert_true(gamma_total);

  /* A runtime the profile does not have is named as such. */
  const char *bad[] = {itest_env("SXS_SXSPROF"), "report", profile, "--compare", "8.0,9.0", NULL};
  g_autoptr(ItestRun) b = itest_run(bad, NULL, tmp, TIMEOUT);
  itest_assert_exit(b, 2);
  g_assert_nonnull(strstr(b->err, "--compare: no runtime is \"9.0\"; the profile has "));
  g_assert_nonnull(strstr(b->err, " (8.0."));
  g_assert_nonnull(strstr(b->err, " (10.0."));
  itest_rmtree(tmp);
}

/* `sxsprof run <option> -- dotnet Profiles.dll <args>` into dir/<name>.json. */
static char *profiles_run(const char *dir, const char *name, const char *option, const char *const *args,
                          const char *expected_out) {
  g_autofree char *app = itest_app("Profiles");
  g_autofree char *prefix = g_build_filename(dir, name, NULL);
  const char *argv[12] = {itest_env("SXS_SXSPROF"), "run", option, "-q", "--format", "json", "-o", prefix, "--",
                          itest_env("SXS_DOTNET"),  app,   NULL};
  g_autoptr(GPtrArray) full = g_ptr_array_new();
  for (guint i = 0; argv[i]; i++)
    g_ptr_array_add(full, (gpointer)argv[i]);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add(full, (gpointer)args[i]);
  g_ptr_array_add(full, NULL);
  const char *env[] = {ITEST_NO_PROFILER_ENV, NULL};
  g_autoptr(ItestRun) run = itest_run((const char *const *)full->pdata, env, dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, expected_out);
  return g_strconcat(prefix, ".json", NULL);
}

static char *diff_view(const char *dir, const char *a, const char *b, const char *view, const char *extra) {
  const char *argv[] = {itest_env("SXS_SXSPROF"), "diff", a, b, "--view", view, extra, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_test_message("%s", run->out);
  return g_strdup(run->out);
}

/* Event profiles through --view: exceptions by type (300 + 200 thrown, then 100 + 400: exact
 * counts), allocations by type and stack (4000 64 KiB arrays and 2 M small objects, then 1000 and
 * 8 M: sampled, upscaled bytes). */
static void test_diff_events(void) {
  g_autofree char *tmp = itest_tmpdir();
  const char *e1_args[] = {"exceptions", "300", "200", NULL}, *e2_args[] = {"exceptions", "100", "400", NULL};
  g_autofree char *e1 = profiles_run(tmp, "e1", "--exceptions", e1_args, "exceptions a=300 b=200\n");
  g_autofree char *e2 = profiles_run(tmp, "e2", "--exceptions", e2_args, "exceptions a=100 b=400\n");
  g_autofree char *ex = diff_view(tmp, e1, e2, "exceptions", NULL);
  g_assert_true(g_str_has_prefix(ex, "diff of exceptions: "));
  g_assert_nonnull(strstr(ex, " (500 exceptions), new "));
  g_autoptr(GPtrArray) eg = table(ex, "self growths");
  g_autoptr(GPtrArray) es = table(ex, "self shrinks");
  const Row *arg = only_row(eg, "System.ArgumentException");
  const Row *inv = only_row(es, "System.InvalidOperationException");
  g_assert_cmpfloat(arg->before, ==, 40.0);
  g_assert_cmpfloat(arg->after, ==, 80.0);
  g_assert_cmpfloat(inv->before, ==, 60.0);
  g_assert_cmpfloat(inv->after, ==, 20.0);
  /* In counts: +200 and -200 exceptions. */
  g_autofree char *exa = diff_view(tmp, e1, e2, "exceptions", "--absolute");
  g_autoptr(GPtrArray) ega = table(exa, "self growths");
  g_assert_cmpfloat(only_row(ega, "System.ArgumentException")->change, ==, 200.0);

  const char *a1_args[] = {"alloc", "4000", "2000000", NULL}, *a2_args[] = {"alloc", "1000", "8000000", NULL};
  g_autofree char *a1 = profiles_run(tmp, "a1", "--alloc", a1_args, "alloc big=4000 small=2000000\n");
  g_autofree char *a2 = profiles_run(tmp, "a2", "--alloc", a2_args, "alloc big=1000 small=8000000\n");
  g_autofree char *al = diff_view(tmp, a1, a2, "allocations", NULL);
  g_assert_true(g_str_has_prefix(al, "diff of allocations: "));
  g_autoptr(GPtrArray) ag = table(al, "self growths");
  g_autoptr(GPtrArray) as = table(al, "self shrinks");
  /* 262 MB of arrays and 64 MB of small objects (80/20), then 66 and 256 MB (20/80). */
  const Row *small = only_row(ag, "Sxs.Tests.Small");
  const Row *big = only_row(as, "System.Byte[]");
  g_assert_cmpfloat(small->change, >, 45.0);
  g_assert_cmpfloat(small->change, <, 75.0);
  g_assert_cmpfloat(big->change, <, -45.0);
  g_assert_cmpfloat(big->change, >, -75.0);
  g_autoptr(GPtrArray) at = table(al, "total growths");
  for (guint i = 0; i < at->len; i++) {
    const char *name = ((Row *)at->pdata[i])->name;
    g_assert_true(g_str_equal(name, "Sxs.Tests.Small") || g_str_equal(name, "Sxs.Tests.Allocs.Small"));
  }
  itest_rmtree(tmp);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/diff/split", test_diff_split);
  g_test_add_func("/diff/svg", test_diff_svg);
  g_test_add_func("/diff/compare-runtimes", test_compare_runtimes);
  g_test_add_func("/diff/events", test_diff_events);
  return g_test_run();
}
