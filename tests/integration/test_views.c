/* The views end to end: `sxsprof run` with the sampler on a real app writes every format, the
 * app's hot method is the widest frame of the flame graph (and the top of pprof, the folded
 * stacks and the summary); under runsxs both runtimes' frames are there, tagged; a program that
 * is not .NET runs unchanged; and `sxsprof report` turns bad input into one clear message, a
 * non-zero exit and no files. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 180

static const char *const view_suffixes[] = {".json", ".speedscope.json", ".folded", ".svg", ".pb.gz"};

/* Stacks of a folded file: stack -> weight. Fails the test on a malformed line. */
static GHashTable *read_folded(const char *path, guint64 *ret_total) {
  g_autofree char *text = itest_read_file(path);
  GHashTable *stacks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  guint64 total = 0;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l && **l; l++) {
    char *space = strrchr(*l, ' ');
    g_assert_nonnull(space);
    char *end = NULL;
    guint64 w = g_ascii_strtoull(space + 1, &end, 10);
    g_assert_true(end && *end == '\0' && w > 0);
    g_assert_false(g_hash_table_contains(stacks, *l)); /* one line per distinct stack */
    guint64 *v = g_new(guint64, 1);
    *v = w;
    g_hash_table_insert(stacks, g_strndup(*l, space - *l), v);
    total += w;
  }
  *ret_total = total;
  return stacks;
}

/* The frame with the most self weight (leaf of the most samples) in folded stacks. */
static char *widest_leaf(GHashTable *stacks) {
  g_autoptr(GHashTable) self = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, stacks);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    const char *leaf = strrchr(k, ';') ? strrchr(k, ';') + 1 : k;
    guint64 *s = g_hash_table_lookup(self, leaf);
    if (!s) {
      s = g_new0(guint64, 1);
      g_hash_table_insert(self, g_strdup(leaf), s);
    }
    *s += *(guint64 *)v;
  }
  char *best = NULL;
  guint64 best_w = 0;
  g_hash_table_iter_init(&it, self);
  while (g_hash_table_iter_next(&it, &k, &v))
    if (*(guint64 *)v > best_w) {
      best_w = *(guint64 *)v;
      g_free(best);
      best = g_strdup(k);
    }
  return best;
}

/* Sum of the weights of stacks holding a frame that contains needle. */
static guint64 weight_with(GHashTable *stacks, const char *needle) {
  guint64 w = 0;
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, stacks);
  while (g_hash_table_iter_next(&it, &k, &v))
    if (strstr(k, needle))
      w += *(guint64 *)v;
  return w;
}

/* The data-name of the SVG frame with the largest data-self: the widest leaf of the graph. */
static char *svg_widest_self(const char *svg) {
  char *best = NULL;
  guint64 best_self = 0;
  for (const char *p = strstr(svg, "data-self=\""); p; p = strstr(p + 1, "data-self=\"")) {
    guint64 self = g_ascii_strtoull(p + strlen("data-self=\""), NULL, 10);
    if (self <= best_self)
      continue;
    /* The name of the same element: the data-name before it, within its tag. */
    const char *tag = p;
    while (tag > svg && *tag != '<')
      tag--;
    const char *name = g_strstr_len(tag, p - tag + 1024, "data-name=\"");
    g_assert_nonnull(name);
    name += strlen("data-name=\"");
    const char *end = strchr(name, '"');
    best_self = self;
    g_free(best);
    best = g_strndup(name, end - name);
  }
  return best;
}

/* `sxsprof run --sample` on SxsSample hotcold: every file, Hot.Spin the widest frame in all of them. */
static void test_run_hotcold(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample=199", "-o", s->output, "--",
                        itest_env("SXS_DOTNET"),  app,   "hotcold",      "3",  NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  /* The program's stdout is its own. */
  g_assert_true(g_str_has_prefix(run->out, "hotcold seconds=3 "));
  g_assert_cmpuint(strlen(run->out), ==, strchr(run->out, '\n') - run->out + 1);
  for (guint i = 0; i < G_N_ELEMENTS(view_suffixes); i++) {
    g_autofree char *path = g_strconcat(s->output, view_suffixes[i], NULL);
    g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  }
  g_autofree char *svg_path = g_strconcat(s->output, ".svg", NULL);
  g_autofree char *where = g_strdup_printf("sxsprof: flame graph: %s\n", svg_path);
  g_assert_nonnull(strstr(run->err, where));

  /* Folded: Hot.Spin is the widest leaf, in ~90 % of the samples under SxsSample.Main. */
  g_autofree char *folded = g_strconcat(s->output, ".folded", NULL);
  guint64 total = 0;
  g_autoptr(GHashTable) stacks = read_folded(folded, &total);
  g_autofree char *leaf = widest_leaf(stacks);
  g_assert_true(g_str_has_prefix(leaf, "[rt1 10."));
  g_assert_true(g_str_has_suffix(leaf, "] Hot.Spin"));
  guint64 main_w = weight_with(stacks, "] SxsSample.Main"), hot = weight_with(stacks, "] Hot.Spin");
  g_assert_cmpuint(main_w, >, 100);
  g_assert_cmpfloat((double)hot / (double)main_w, >=, 0.80);

  /* The SVG: the same frame is its widest leaf. */
  g_autofree char *svg = itest_read_file(svg_path);
  g_autofree char *svg_leaf = svg_widest_self(svg);
  g_assert_nonnull(svg_leaf);
  g_assert_true(g_str_has_suffix(svg_leaf, "] Hot.Spin"));

  /* pprof: go tool pprof puts it first by flat samples. */
  g_autofree char *pprof_path = g_strconcat(s->output, ".pb.gz", NULL);
  g_autofree char *home = g_build_filename(s->dir, "gohome", NULL);
  g_autofree char *home_env = g_strconcat("HOME=", home, NULL);
  g_autofree char *cache_env = g_strconcat("GOCACHE=", home, "/cache", NULL);
  const char *env[] = {home_env, cache_env, NULL};
  const char *pprof_argv[] = {"go", "tool", "pprof", "-top", "-nodecount=5", pprof_path, NULL};
  g_autoptr(ItestRun) top = itest_run(pprof_argv, env, s->dir, 120);
  itest_assert_exit(top, 0);
  g_auto(GStrv) lines = g_strsplit(top->out, "\n", -1);
  const char *first = NULL;
  for (char **l = lines; *l; l++)
    if (strstr(*l, "flat%") && l[1]) {
      first = l[1];
      break;
    }
  g_assert_nonnull(first);
  g_assert_nonnull(strstr(first, "Hot.Spin"));

  /* speedscope: valid against the published schema. */
  g_autofree char *validator =
      g_build_filename(itest_env("SXS_SOURCE_DIR"), "tests", "unit", "speedscope_validate.js", NULL);
  g_autofree char *ss = g_strconcat(s->output, ".speedscope.json", NULL);
  const char *node_argv[] = {"node", validator, ss, NULL};
  g_autoptr(ItestRun) valid = itest_run(node_argv, NULL, s->dir, 60);
  itest_assert_exit(valid, 0);

  /* The summary on stderr names Hot.Spin first among runtime 1's functions by self. */
  const char *table = strstr(run->err, "runtime 1 (10.");
  g_assert_nonnull(table);
  const char *header = strchr(table, '\n') + 1;
  const char *row = strchr(header, '\n') + 1;
  g_autofree char *first_row = g_strndup(row, strchr(row, '\n') - row);
  g_assert_true(g_str_has_suffix(first_row, "%  Hot.Spin"));
}

/* Two runtimes under runsxs, each spinning in its own function: both, tagged, in the views. */
static void test_run_two_runtimes(ItestScratch *s, gconstpointer data) {
  const char *second = data; /* "8.0", "3.1" */
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_SXSPROF"),
                        "run",
                        "--sample",
                        "--format",
                        "folded,svg,summary",
                        "-o",
                        s->output,
                        itest_env("SXS_RUNSXS"),
                        "10.0",
                        app,
                        "spin One 2",
                        second,
                        app,
                        "spin Two 2",
                        NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_autofree char *folded = g_strconcat(s->output, ".folded", NULL);
  guint64 total = 0;
  g_autoptr(GHashTable) stacks = read_folded(folded, &total);
  g_assert_cmpuint(weight_with(stacks, "] RuntimeOne.Spin"), >, 0);
  g_assert_cmpuint(weight_with(stacks, "] RuntimeTwo.Spin"), >, 0);
  /* Each spin under its own runtime's tag (ids follow the order the runtimes loaded in, which
   * two threads starting at once may swap): "[rtN 10.0.x] RuntimeOne.Spin", "[rtM 8.0.y]
   * RuntimeTwo.Spin", N != M, and every frame of that function with that tag. */
  g_autofree char *tag_one = NULL, *tag_two = NULL;
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init(&it, stacks);
  while (g_hash_table_iter_next(&it, &k, NULL)) {
    g_auto(GStrv) frames = g_strsplit(k, ";", -1);
    for (char **fr = frames; *fr; fr++) {
      char **tag = g_str_has_suffix(*fr, "] RuntimeOne.Spin")   ? &tag_one
                   : g_str_has_suffix(*fr, "] RuntimeTwo.Spin") ? &tag_two
                                                                : NULL;
      if (!tag)
        continue;
      g_autofree char *this_tag = g_strndup(*fr, strchr(*fr, ']') - *fr + 1);
      if (!*tag)
        *tag = g_strdup(this_tag);
      g_assert_cmpstr(*tag, ==, this_tag);
    }
  }
  g_assert_nonnull(tag_one);
  g_assert_nonnull(tag_two);
  g_assert_true(g_str_has_prefix(tag_one, "[rt") && strstr(tag_one, " 10.0."));
  g_autofree char *second_version = g_strdup_printf(" %s.", second);
  g_assert_true(g_str_has_prefix(tag_two, "[rt") && strstr(tag_two, second_version));
  g_assert_cmpstr(tag_one, !=, tag_two);
  g_autofree char *svg = g_strconcat(s->output, ".svg", NULL);
  g_autofree char *text = itest_read_file(svg);
  g_assert_nonnull(strstr(text, tag_one));
  g_assert_nonnull(strstr(text, tag_two));
  /* Only the formats asked for. */
  g_autofree char *pprof = g_strconcat(s->output, ".pb.gz", NULL);
  g_assert_false(g_file_test(pprof, G_FILE_TEST_EXISTS));
}

/* A program that is not .NET: it runs as it would, and the launcher says no runtime came. */
static void test_run_not_dotnet(ItestScratch *s, gconstpointer data) {
  (void)data;
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "-o", s->output, "--", "sh", "-c", "echo out; exit 3", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, 60);
  itest_assert_exit(run, 3);
  g_assert_cmpstr(run->out, ==, "out\n");
  g_assert_cmpstr(run->err, ==,
                  "sxsprof: no .NET runtime loaded the profiler in sh -c 'echo out; exit 3', so no profile was "
                  "written\n");
  g_autoptr(GDir) dir = g_dir_open(s->dir, 0, NULL);
  g_assert_null(g_dir_read_name(dir));
}

static int compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the files in dir, sorted, joined by spaces. */
static char *list_dir(const char *dir) {
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *n;
  while (d && (n = g_dir_read_name(d)))
    g_ptr_array_add(names, g_strdup(n));
  g_ptr_array_sort(names, compare_names);
  g_ptr_array_add(names, NULL);
  return g_strjoinv(" ", (char **)names->pdata);
}

typedef struct {
  const char *name;
  const char *file_text; /* the input file's content; NULL: no file */
  const char *args;      /* extra arguments, space-separated; IN is the input, OUT the output prefix */
  const char *message;   /* the expected stderr, with IN and OUT replaced */
} BadInput;

static const char valid_profile[] =
    "{\"format\": \"sxsprof\", \"version\": 1, \"pid\": 7, \"process\": {\"pid\": 7, \"ppid\": 1, \"executable\": "
    "null, \"command_line\": [\"x\"], \"start_time\": null, \"start_unix_ms\": 0, \"run_id\": null}, \"mode\": "
    "\"pick-all\", \"config\": null, \"log\": null, \"runtimes\": []}";

static const BadInput bad_inputs[] = {
    {"missing", NULL, "report IN", "sxsprof: cannot open IN: No such file or directory\n"},
    {"empty", "", "report IN", "sxsprof: IN is empty\n"},
    {"not-json", "hello\n", "report IN", NULL},
    {"truncated", "{\"format\": \"sxsprof\", \"version\": 1, \"runtimes\": [", "report IN", NULL},
    {"not-sxsprof", "{\"traceEvents\": []}", "report IN", NULL},
    {"future", "{\"format\": \"sxsprof\", \"version\": 99, \"runtimes\": {}}", "report IN", NULL},
    {"blocked-folder", valid_profile, "report IN -o IN/x", NULL},
    {"unknown-format", valid_profile, "report IN --format svg,flame -o OUT", NULL},
    {"run-no-command", NULL, "run -o OUT", "sxsprof: run needs a command, e.g. sxsprof run -- dotnet app.dll\n"},
};

static void test_bad_input(ItestScratch *s, gconstpointer data) {
  const BadInput *b = data;
  g_autofree char *in = g_build_filename(s->dir, "in.json", NULL);
  if (b->file_text)
    g_assert_true(g_file_set_contents(in, b->file_text, -1, NULL));
  g_autofree char *outdir = g_build_filename(s->dir, "out", NULL);
  g_assert_cmpint(g_mkdir(outdir, 0755), ==, 0);
  g_autofree char *out = g_build_filename(outdir, "y", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(argv, g_strdup(itest_env("SXS_SXSPROF")));
  g_auto(GStrv) words = g_strsplit(b->args, " ", -1);
  for (char **w = words; *w; w++) {
    GString *a = g_string_new(*w);
    g_string_replace(a, "IN", in, 0);
    g_string_replace(a, "OUT", out, 0);
    g_ptr_array_add(argv, g_string_free(a, FALSE));
  }
  g_ptr_array_add(argv, NULL);
  g_autoptr(ItestRun) run = itest_run((const char *const *)argv->pdata, NULL, s->dir, 60);
  g_test_message("%s: exit %d, stderr: %s", b->name, run->exit_code, run->err);
  g_assert_cmpint(run->exit_code, !=, 0);
  g_assert_false(run->timed_out);
  g_assert_cmpstr(run->out, ==, "");
  /* One line, from sxsprof, naming the problem. */
  g_assert_true(g_str_has_prefix(run->err, "sxsprof: "));
  g_assert_cmpuint(strlen(run->err), >, 20);
  g_assert_true(strchr(run->err, '\n') == run->err + strlen(run->err) - 1);
  if (b->message) {
    GString *want = g_string_new(b->message);
    g_string_replace(want, "IN", in, 0);
    g_string_replace(want, "OUT", out, 0);
    g_assert_cmpstr(run->err, ==, want->str);
    g_string_free(want, TRUE);
  }
  if (g_str_equal(b->name, "future"))
    g_assert_nonnull(strstr(run->err, "newer sxsprof"));
  if (g_str_equal(b->name, "not-sxsprof"))
    g_assert_nonnull(strstr(run->err, "not an sxsprof profile"));
  if (g_str_equal(b->name, "truncated"))
    g_assert_nonnull(strstr(run->err, "truncated"));
  if (g_str_equal(b->name, "unknown-format"))
    g_assert_nonnull(strstr(run->err, "\"flame\""));
  if (g_str_equal(b->name, "blocked-folder"))
    g_assert_nonnull(strstr(run->err, "cannot create the output folder"));
  /* Nothing written: the output folder is empty, the input as it was. */
  g_autofree char *left = list_dir(outdir);
  g_assert_cmpstr(left, ==, "");
}

/* report over a saved profile: only the formats asked for, the summary's --top honoured. */
static void test_report_formats(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "--format", "json", "-o", s->output, "--",
                        itest_env("SXS_DOTNET"),  app,   "hotcold",  "1",        NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_autofree char *before = list_dir(s->dir);
  g_assert_cmpstr(before, ==, "prof.json prof.log");
  g_autofree char *y = g_build_filename(s->dir, "y", NULL);
  const char *rargv[] = {
      itest_env("SXS_SXSPROF"), "report", s->profile, "--format", "folded,svg,summary", "--top", "2", "-o", y, NULL};
  g_autoptr(ItestRun) report = itest_run(rargv, NULL, s->dir, 60);
  itest_assert_exit(report, 0);
  g_autofree char *after = list_dir(s->dir);
  g_assert_cmpstr(after, ==, "prof.json prof.log y.folded y.svg");
  g_assert_nonnull(strstr(report->out, "Hot.Spin"));
  g_assert_nonnull(strstr(report->out, "top 2 by self"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/views/run/hotcold", ItestScratch, NULL, itest_scratch_setup, test_run_hotcold, itest_scratch_teardown);
  g_test_add("/views/run/two-runtimes/10+9", ItestScratch, "9.0", itest_scratch_setup, test_run_two_runtimes,
             itest_scratch_teardown);
  g_test_add("/views/run/two-runtimes/10+8", ItestScratch, "8.0", itest_scratch_setup, test_run_two_runtimes,
             itest_scratch_teardown);
  g_test_add("/views/run/two-runtimes/10+3.1", ItestScratch, "3.1", itest_scratch_setup, test_run_two_runtimes,
             itest_scratch_teardown);
  g_test_add("/views/run/two-runtimes/10+2.0", ItestScratch, "2.0", itest_scratch_setup, test_run_two_runtimes,
             itest_scratch_teardown);
  g_test_add("/views/run/not-dotnet", ItestScratch, NULL, itest_scratch_setup, test_run_not_dotnet,
             itest_scratch_teardown);
  g_test_add("/views/report/formats", ItestScratch, NULL, itest_scratch_setup, test_report_formats,
             itest_scratch_teardown);
  for (guint i = 0; i < G_N_ELEMENTS(bad_inputs); i++) {
    g_autofree char *path = g_strdup_printf("/views/report/bad-input/%s", bad_inputs[i].name);
    g_test_add(path, ItestScratch, &bad_inputs[i], itest_scratch_setup, test_bad_input, itest_scratch_teardown);
  }
  return g_test_run();
}
