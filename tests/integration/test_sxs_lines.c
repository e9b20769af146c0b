/* Source lines end to end: the Lines app (a hot loop on a known line, called from a known line)
 * sampled under `sxsprof run`, with its portable PDB beside it, embedded in it, of another build,
 * in a folder given, or with none; tiered code; two runtimes in one process; traced call trees;
 * `sxsprof report --lines`. The lines expected are found in the app's source by their markers,
 * and checked in what people read: `go tool pprof -lines` and `list`, the folded stacks, the
 * speedscope frames, the SVG's hover text, and the profile itself. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 180

/* The app's source, as the compiler named it in the PDB. */
static char *lines_source(void) {
  return g_build_filename(itest_env("SXS_SOURCE_DIR"), "tests", "apps", "Lines", "Lines.cs", NULL);
}

/* The 1-based line of Lines.cs holding marker. */
static gint64 marker_line(const char *marker) {
  g_autofree char *path = lines_source();
  g_autofree char *text = itest_read_file(path);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strstr(lines[i], marker))
      return i + 1;
  g_error("no %s in %s", marker, path);
}

/* $SXS_APPS_DIR/<folder>/Lines.dll. */
static char *lines_build(const char *folder) {
  char *path = g_build_filename(itest_env("SXS_APPS_DIR"), folder, "Lines.dll", NULL);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  return path;
}

/* `sxsprof run --sample=999 [extra] -o output -- dotnet dll ms`: exit 0, the app's own exit. */
static void run_sampled(ItestScratch *s, const char *dll, const char *ms, const char *const *extra,
                        const char *const *env) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_SXSPROF"));
  g_ptr_array_add(argv, "run");
  g_ptr_array_add(argv, "-q");
  g_ptr_array_add(argv, "--sample=999");
  for (guint i = 0; extra && extra[i]; i++)
    g_ptr_array_add(argv, (gpointer)extra[i]);
  g_ptr_array_add(argv, "-o");
  g_ptr_array_add(argv, s->output);
  g_ptr_array_add(argv, "--");
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_DOTNET"));
  g_ptr_array_add(argv, (gpointer)dll);
  g_ptr_array_add(argv, (gpointer)ms);
  g_ptr_array_add(argv, NULL);
  g_autoptr(ItestRun) run = itest_run((const char *const *)argv->pdata, env, s->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, "");
}

/* A `go tool pprof` command's output, with a home and cache of the scenario's own. */
static char *go_pprof(ItestScratch *s, const char *const *args) {
  g_autofree char *home = g_build_filename(s->dir, "gohome", NULL);
  g_autofree char *home_env = g_strconcat("HOME=", home, NULL);
  g_autofree char *cache_env = g_strconcat("GOCACHE=", home, "/cache", NULL);
  const char *env[] = {home_env, cache_env, NULL};
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, "go");
  g_ptr_array_add(argv, "tool");
  g_ptr_array_add(argv, "pprof");
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  g_autoptr(ItestRun) run = itest_run((const char *const *)argv->pdata, env, s->dir, 120);
  itest_assert_exit(run, 0);
  return g_strdup(run->out);
}

/* The first row of a `pprof -top` table (the one under the "flat%" header). */
static char *top_row(const char *out) {
  g_auto(GStrv) rows = g_strsplit(out, "\n", -1);
  for (char **r = rows; *r; r++)
    if (strstr(*r, "flat%") && r[1])
      return g_strdup(r[1]);
  g_error("no table in:\n%s", out);
}

/* The source line `go tool pprof -lines` puts first: its file and line from "... file:line". */
static void pprof_top_line(ItestScratch *s, char **ret_row, char **ret_file, gint64 *ret_line) {
  g_autofree char *pb = g_strconcat(s->output, ".pb.gz", NULL);
  const char *args[] = {"-lines", "-top", "-nodecount=8", pb, NULL};
  g_autofree char *out = go_pprof(s, args);
  char *row = top_row(out);
  const char *space = strrchr(row, ' ');
  const char *colon = strrchr(row, ':');
  g_assert_nonnull(space);
  g_assert_nonnull(colon);
  g_assert_true(colon > space);
  *ret_file = g_strndup(space + 1, colon - space - 1);
  *ret_line = g_ascii_strtoll(colon + 1, NULL, 10);
  *ret_row = row;
}

/* Calls fn(frame, its callee (NULL for the leaf), index in its stack, stack count, data) for every
 * frame of every sample stack. */
typedef void (*FrameFn)(JsonObject *frame, JsonObject *callee, guint index, gint64 count, gpointer data);
static void each_sample_frame(JsonNode *profile, FrameFn fn, gpointer data) {
  JsonArray *stacks =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(profile), "samples"), "stacks");
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    JsonArray *frames = json_object_get_array_member(st, "frames");
    for (guint j = 0; j < json_array_get_length(frames); j++)
      fn(json_array_get_object_element(frames, j), j ? json_array_get_object_element(frames, j - 1) : NULL, j,
         json_object_get_int_member(st, "count"), data);
  }
}

/* Lines of one function's frames: line -> samples, callers (not the leaf) and leaves apart. */
typedef struct {
  const char *name;
  const char *callee;   /* callers: only the frames calling this function (NULL: all) */
  const char *file;     /* the file they must name */
  GHashTable *leaf;     /* line -> gint64* */
  GHashTable *caller;   /* line -> gint64* */
  gint64 without;       /* samples of frames without a line */
  gint64 foreign_files; /* samples of frames naming another file */
} FunctionLines;

static void add_count(GHashTable *t, gint64 line, gint64 count) {
  gint64 *v = g_hash_table_lookup(t, GINT_TO_POINTER(line));
  if (!v) {
    v = g_new0(gint64, 1);
    g_hash_table_insert(t, GINT_TO_POINTER(line), v);
  }
  *v += count;
}

static void collect_function_lines(JsonObject *frame, JsonObject *callee, guint index, gint64 count, gpointer data) {
  FunctionLines *fl = data;
  if (g_strcmp0(json_object_get_string_member_with_default(frame, "name", ""), fl->name) != 0)
    return;
  if (callee && fl->callee && g_strcmp0(json_object_get_string_member_with_default(callee, "name", ""), fl->callee))
    return;
  if (!json_object_has_member(frame, "line")) {
    fl->without += count;
    return;
  }
  if (g_strcmp0(json_object_get_string_member(frame, "file"), fl->file) != 0)
    fl->foreign_files += count;
  add_count(index == 0 ? fl->leaf : fl->caller, json_object_get_int_member(frame, "line"), count);
}

static FunctionLines *function_lines(JsonNode *profile, const char *name, const char *callee, const char *file) {
  FunctionLines *fl = g_new0(FunctionLines, 1);
  fl->name = name;
  fl->callee = callee;
  fl->file = file;
  fl->leaf = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  fl->caller = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  each_sample_frame(profile, collect_function_lines, fl);
  return fl;
}

static void function_lines_free(FunctionLines *fl) {
  g_hash_table_unref(fl->leaf);
  g_hash_table_unref(fl->caller);
  g_free(fl);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FunctionLines, function_lines_free)

static gint64 count_at(GHashTable *t, gint64 line) {
  gint64 *v = g_hash_table_lookup(t, GINT_TO_POINTER(line));
  return v ? *v : 0;
}

static gint64 count_all(GHashTable *t) {
  gint64 sum = 0;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init(&it, t);
  while (g_hash_table_iter_next(&it, NULL, &v))
    sum += *(gint64 *)v;
  return sum;
}

/* The profile's "lines"."modules" entry of a module (in any runtime), or NULL. */
static JsonObject *lines_module(JsonNode *profile, const char *module, gint64 runtime) {
  JsonArray *mods =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(profile), "lines"), "modules");
  for (guint i = 0; i < json_array_get_length(mods); i++) {
    JsonObject *m = json_array_get_object_element(mods, i);
    if (g_strcmp0(json_object_get_string_member(m, "module"), module) == 0 &&
        (runtime == 0 || json_object_get_int_member(m, "runtime") == runtime))
      return m;
  }
  return NULL;
}

/* Everything a run of a Lines build with its PDB shows: the hot line first in pprof -lines and in
 * list, Outer's frames on the line of its call, speedscope's frames and the SVG's hover text
 * naming lines, the profile saying where the PDB came from. */
static void check_lines_run(ItestScratch *s, const char *pdb_where) {
  g_autofree char *source = lines_source();
  gint64 hot = marker_line("LINE:hot"), call = marker_line("LINE:call");

  g_autofree char *row = NULL, *file = NULL;
  gint64 line = 0;
  pprof_top_line(s, &row, &file, &line);
  g_test_message("pprof -lines first: %s", row);
  g_assert_nonnull(strstr(row, "Sxs.Lines.Program.Hot"));
  g_assert_cmpstr(file, ==, source);
  g_assert_cmpint(line, >=, hot - 1);
  g_assert_cmpint(line, <=, hot + 1);

  /* list: the hot line's source text with its samples. */
  g_autofree char *pb = g_strconcat(s->output, ".pb.gz", NULL);
  const char *list_args[] = {"-list", "Program.Hot", pb, NULL};
  g_autofree char *list = go_pprof(s, list_args);
  g_autofree char *hot_row_prefix = g_strdup_printf("%" G_GINT64_FORMAT ":", hot);
  gboolean hot_listed = FALSE;
  g_auto(GStrv) list_rows = g_strsplit(list, "\n", -1);
  for (char **r = list_rows; *r; r++)
    /* "  591.59ms   591.59ms     52: ...": a flat value, not ".". */
    if (strstr(*r, hot_row_prefix) && strstr(*r, "LINE:hot") && (*r)[strspn(*r, " ")] != '.')
      hot_listed = TRUE;
  if (!hot_listed)
    g_test_message("%s", list);
  g_assert_true(hot_listed);

  g_autoptr(JsonNode) profile = itest_load_json(s->profile);
  /* Hot: its samples on its own lines, most on the hot line or the loop's; Outer, as Hot's caller,
   * only ever on the line of its call. */
  g_autoptr(FunctionLines) hot_fl = function_lines(profile, "Sxs.Lines.Program.Hot", NULL, source);
  g_assert_cmpint(hot_fl->foreign_files, ==, 0);
  gint64 hot_total = count_all(hot_fl->leaf);
  g_assert_cmpint(hot_total, >, 300);
  g_assert_cmpint(count_at(hot_fl->leaf, hot) + count_at(hot_fl->leaf, hot - 1), >=, hot_total * 9 / 10);
  g_autoptr(FunctionLines) outer = function_lines(profile, "Sxs.Lines.Program.Outer", "Sxs.Lines.Program.Hot", source);
  g_assert_cmpint(outer->foreign_files, ==, 0);
  g_assert_cmpint(outer->without, ==, 0);
  g_assert_cmpint(count_all(outer->caller), >, 300);
  g_assert_cmpint(count_at(outer->caller, call), ==, count_all(outer->caller));

  /* The function records say where each method begins: Hot at its first statement. */
  JsonObject *rt = itest_profile_runtime(profile, 1);
  JsonObject *hot_fn = itest_runtime_function(rt, "Sxs.Lines.Program.Hot");
  g_assert_nonnull(hot_fn);
  g_assert_cmpstr(json_object_get_string_member(hot_fn, "file"), ==, source);
  g_assert_cmpint(json_object_get_int_member(hot_fn, "line"), ==, hot - 2);

  JsonObject *mod = lines_module(profile, "Lines.dll", 1);
  g_assert_nonnull(mod);
  g_assert_cmpstr(json_object_get_string_member(mod, "pdb"), ==, "found");
  g_assert_cmpstr(json_object_get_string_member(mod, "where"), ==, pdb_where);

  /* speedscope: Hot's frame names its file and where it begins. */
  g_autofree char *ss_path = g_strconcat(s->output, ".speedscope.json", NULL);
  g_autoptr(JsonNode) ss = itest_load_json(ss_path);
  JsonArray *frames =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(ss), "shared"), "frames");
  gboolean ss_hot = FALSE;
  for (guint i = 0; i < json_array_get_length(frames); i++) {
    JsonObject *f = json_array_get_object_element(frames, i);
    if (!g_str_has_suffix(json_object_get_string_member(f, "name"), "] Sxs.Lines.Program.Hot"))
      continue;
    g_assert_cmpstr(json_object_get_string_member(f, "file"), ==, source);
    g_assert_cmpint(json_object_get_int_member(f, "line"), ==, hot - 2);
    ss_hot = TRUE;
  }
  g_assert_true(ss_hot);

  /* The SVG: Hot's hover text ends with where it begins. */
  g_autofree char *svg_path = g_strconcat(s->output, ".svg", NULL);
  g_autofree char *svg = itest_read_file(svg_path);
  g_autofree char *hover =
      g_strdup_printf("] Sxs.Lines.Program.Hot (Lines.cs:%" G_GINT64_FORMAT ")&#10;total ", hot - 2);
  g_assert_nonnull(strstr(svg, hover));
}

static void test_pdb_beside(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *dll = lines_build("LinesPdb");
  run_sampled(s, dll, "3000", NULL, NULL);
  g_autofree char *pdb = g_build_filename(itest_env("SXS_APPS_DIR"), "LinesPdb", "Lines.pdb", NULL);
  check_lines_run(s, pdb);
}

static void test_pdb_embedded(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *dll = lines_build("Lines");
  run_sampled(s, dll, "3000", NULL, NULL);
  check_lines_run(s, "embedded");
}

static void assert_no_line(JsonObject *frame, JsonObject *callee, guint index, gint64 count, gpointer data) {
  (void)callee;
  (void)index;
  (void)count;
  (void)data;
  g_assert_false(json_object_has_member(frame, "file"));
  g_assert_false(json_object_has_member(frame, "line"));
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The app's own frames of a folded file: "Sxs.Lines.Program.X" names, as a sorted list. */
static char *app_frames(const char *folded_path) {
  g_autofree char *text = itest_read_file(folded_path);
  g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) rows = g_strsplit_set(text, ";\n ", -1);
  for (char **r = rows; *r; r++)
    if (g_str_has_prefix(*r, "Sxs.Lines."))
      g_hash_table_add(names, g_strdup(*r));
  g_autofree const char **keys = (const char **)g_hash_table_get_keys_as_array(names, NULL);
  qsort(keys, g_hash_table_size(names), sizeof *keys, compare_names);
  return g_strjoinv(",", (char **)keys);
}

/* No PDB: no frame has a line, the PDB is said to be missing, and the views are what they were:
 * the same functions, Hot on top. */
static void test_no_pdb(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *dll = lines_build("LinesNoPdb");
  run_sampled(s, dll, "2000", NULL, NULL);
  g_autoptr(JsonNode) profile = itest_load_json(s->profile);
  each_sample_frame(profile, assert_no_line, NULL);
  JsonObject *rt = itest_profile_runtime(profile, 1);
  JsonObject *hot_fn = itest_runtime_function(rt, "Sxs.Lines.Program.Hot");
  g_assert_nonnull(hot_fn);
  g_assert_false(json_object_has_member(hot_fn, "file"));
  JsonObject *mod = lines_module(profile, "Lines.dll", 1);
  g_assert_nonnull(mod);
  g_assert_cmpstr(json_object_get_string_member(mod, "pdb"), ==, "missing");
  g_assert_cmpstr(json_object_get_string_member(mod, "where"), ==, "the assembly records no PDB");

  g_autofree char *pb = g_strconcat(s->output, ".pb.gz", NULL);
  const char *args[] = {"-top", "-nodecount=3", pb, NULL};
  g_autofree char *out = go_pprof(s, args);
  g_autofree char *first = top_row(out);
  g_assert_nonnull(strstr(first, "] Sxs.Lines.Program.Hot"));
  g_assert_null(strstr(out, "Lines.cs"));
  const char *lines_args[] = {"-lines", "-top", "-nodecount=3", pb, NULL};
  g_autofree char *by_line = go_pprof(s, lines_args);
  g_assert_null(strstr(by_line, "Lines.cs"));

  /* The same functions as a build with its PDB, no line in any name. */
  g_autofree char *folded = g_strconcat(s->output, ".folded", NULL);
  g_autofree char *without = app_frames(folded);
  g_assert_cmpstr(without, ==, "Sxs.Lines.Program.Hot,Sxs.Lines.Program.Main,Sxs.Lines.Program.Outer");
  g_autofree char *folded_text = itest_read_file(folded);
  g_assert_null(strstr(folded_text, "Lines.cs"));
  g_autofree char *svg_path = g_strconcat(s->output, ".svg", NULL);
  g_autofree char *svg = itest_read_file(svg_path);
  g_assert_null(strstr(svg, "Lines.cs"));
}

/* A PDB of another build beside the assembly is not used, and the profile and the log say so; the
 * right one in a folder given with --symbols is. */
static void test_mismatch_and_symbols(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *app_dir = g_build_filename(s->dir, "app", NULL);
  g_assert_cmpint(g_mkdir(app_dir, 0755), ==, 0);
  const char *copies[][2] = {
      {"LinesPdb", "Lines.dll"}, {"LinesPdb", "Lines.runtimeconfig.json"}, {"LinesOther", "Lines.pdb"}};
  for (guint i = 0; i < G_N_ELEMENTS(copies); i++) {
    g_autofree char *from = g_build_filename(itest_env("SXS_APPS_DIR"), copies[i][0], copies[i][1], NULL);
    g_autofree char *to = g_build_filename(app_dir, copies[i][1], NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(from, &text, &len, NULL));
    g_assert_true(g_file_set_contents(to, text, (gssize)len, NULL));
  }
  g_autofree char *dll = g_build_filename(app_dir, "Lines.dll", NULL);
  g_autofree char *other = g_build_filename(app_dir, "Lines.pdb", NULL);
  run_sampled(s, dll, "1500", NULL, NULL);
  g_autoptr(JsonNode) profile = itest_load_json(s->profile);
  each_sample_frame(profile, assert_no_line, NULL);
  JsonObject *mod = lines_module(profile, "Lines.dll", 1);
  g_assert_nonnull(mod);
  g_assert_cmpstr(json_object_get_string_member(mod, "pdb"), ==, "mismatch");
  g_assert_cmpstr(json_object_get_string_member(mod, "where"), ==, other);
  g_autofree char *log_path = g_strconcat(s->output, ".log", NULL);
  g_autofree char *log = itest_read_file(log_path);
  g_autofree char *said = g_strdup_printf("lines: Lines.dll: the PDB %s is of another build", other);
  g_assert_nonnull(strstr(log, said));
  g_assert_null(strstr(strstr(log, said) + 1, said)); /* said once */

  g_autofree char *symbols = g_build_filename(itest_env("SXS_APPS_DIR"), "LinesPdb", NULL);
  const char *extra[] = {"--symbols", symbols, NULL};
  g_autofree char *second = g_build_filename(s->dir, "second", NULL);
  g_free(s->output);
  s->output = g_strdup(second);
  g_free(s->profile);
  s->profile = g_strconcat(second, ".json", NULL);
  run_sampled(s, dll, "3000", extra, NULL);
  g_autofree char *good = g_build_filename(symbols, "Lines.pdb", NULL);
  check_lines_run(s, good);
}

/* Tiered code: Hot runs at tier 0 first and at tier 1 later; frames of both resolve to its lines. */
static void test_tiered(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *dll = lines_build("Lines");
  /* The runtime waits longer before it counts calls, so that tier 0 is sampled for a while. */
  const char *env[] = {"DOTNET_TC_CallCountingDelayMs=400", NULL};
  run_sampled(s, dll, "3000", NULL, env);
  g_autoptr(JsonNode) profile = itest_load_json(s->profile);
  JsonArray *retiered =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(profile), "lines"), "retiered");
  gint64 versions = 0;
  for (guint i = 0; i < json_array_get_length(retiered); i++) {
    JsonObject *m = json_array_get_object_element(retiered, i);
    if (g_strcmp0(json_object_get_string_member(m, "name"), "Sxs.Lines.Program.Hot") == 0)
      versions = json_object_get_int_member(m, "code_versions");
  }
  g_assert_cmpint(versions, >=, 2);
  /* Every sample of Hot, whichever its code, is on a line of Hot's body. */
  g_autofree char *source = lines_source();
  gint64 hot = marker_line("LINE:hot");
  g_autoptr(FunctionLines) fl = function_lines(profile, "Sxs.Lines.Program.Hot", NULL, source);
  g_assert_cmpint(fl->without, ==, 0);
  g_assert_cmpint(fl->foreign_files, ==, 0);
  gint64 body = 0;
  for (gint64 l = hot - 2; l <= hot + 1; l++)
    body += count_at(fl->leaf, l);
  g_assert_cmpint(body, ==, count_all(fl->leaf));
  g_assert_cmpint(count_at(fl->leaf, hot), >, count_all(fl->leaf) / 3);
}

/* Two runtimes in one process, each running its own app: each runtime's frames carry its own
 * app's lines, from its own PDB. */
static void test_two_runtimes(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *lines_dll = lines_build("Lines");
  g_autofree char *sample = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_SXSPROF"),
                        "run",
                        "-q",
                        "--sample=499",
                        "-o",
                        s->output,
                        itest_env("SXS_RUNSXS"),
                        "10.0",
                        lines_dll,
                        "3000",
                        "2.0.0",
                        sample,
                        "spin Two 3",
                        NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) profile = itest_load_json(s->profile);
  /* Which runtime is which: ids follow the order they loaded in. */
  gint64 lines_rt = 0, sample_rt = 0;
  for (gint64 id = 1; id <= 2; id++) {
    JsonObject *rt = itest_profile_runtime(profile, id);
    g_assert_nonnull(rt);
    if (itest_runtime_function(rt, "Sxs.Lines.Program.Hot"))
      lines_rt = id;
    if (itest_runtime_function(rt, "RuntimeTwo.Spin"))
      sample_rt = id;
  }
  g_assert_cmpint(lines_rt, !=, 0);
  g_assert_cmpint(sample_rt, !=, 0);
  g_assert_cmpint(lines_rt, !=, sample_rt);
  g_assert_cmpstr(json_object_get_string_member(itest_profile_runtime(profile, sample_rt), "version"), ==, "2.0.0");

  g_autofree char *source = lines_source();
  g_autofree char *sample_source =
      g_build_filename(itest_env("SXS_SOURCE_DIR"), "tests", "apps", "SxsSample", "SxsSample.cs", NULL);
  g_autoptr(FunctionLines) hot = function_lines(profile, "Sxs.Lines.Program.Hot", NULL, source);
  g_assert_cmpint(count_all(hot->leaf), >, 100);
  g_assert_cmpint(hot->foreign_files, ==, 0);
  g_assert_cmpint(hot->without, ==, 0);
  g_autoptr(FunctionLines) spin = function_lines(profile, "RuntimeTwo.Spin", NULL, sample_source);
  g_assert_cmpint(count_all(spin->leaf), >, 100);
  g_assert_cmpint(spin->foreign_files, ==, 0);
  g_assert_cmpint(spin->without, ==, 0);

  /* Every frame with a line names the file of its own runtime's app. */
  JsonArray *stacks =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(profile), "samples"), "stacks");
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonArray *frames = json_object_get_array_member(json_array_get_object_element(stacks, i), "frames");
    for (guint j = 0; j < json_array_get_length(frames); j++) {
      JsonObject *f = json_array_get_object_element(frames, j);
      if (!json_object_has_member(f, "file"))
        continue;
      gint64 id = json_object_get_int_member(f, "runtime");
      g_assert_cmpstr(json_object_get_string_member(f, "file"), ==, id == lines_rt ? source : sample_source);
    }
  }
  JsonObject *lm = lines_module(profile, "Lines.dll", lines_rt);
  JsonObject *sm = lines_module(profile, "SxsSample.dll", sample_rt);
  g_assert_nonnull(lm);
  g_assert_nonnull(sm);
  g_assert_cmpstr(json_object_get_string_member(lm, "where"), ==, "embedded");
  g_assert_cmpstr(json_object_get_string_member(sm, "where"), ==, "embedded");
  g_assert_null(lines_module(profile, "Lines.dll", sample_rt));
}

/* Traced calls: a call tree's frames are functions, each with the line it begins on. */
static void test_traced(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *dll = lines_build("Lines");
  const char *argv[] = {itest_env("SXS_SXSPROF"),
                        "run",
                        "-q",
                        "--include",
                        "Sxs.Lines.*",
                        "--format",
                        "json,speedscope",
                        "-o",
                        s->output,
                        "--",
                        itest_env("SXS_DOTNET"),
                        dll,
                        "300",
                        NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_autofree char *source = lines_source();
  gint64 hot = marker_line("LINE:hot");
  g_autoptr(JsonNode) profile = itest_load_json(s->profile);
  JsonObject *hot_fn = itest_runtime_function(itest_profile_runtime(profile, 1), "Sxs.Lines.Program.Hot");
  g_assert_nonnull(hot_fn);
  g_assert_cmpint(json_object_get_int_member(hot_fn, "calls"), >, 1000);
  g_assert_cmpstr(json_object_get_string_member(hot_fn, "file"), ==, source);
  g_assert_cmpint(json_object_get_int_member(hot_fn, "line"), ==, hot - 2);
  g_autofree char *ss_path = g_strconcat(s->output, ".speedscope.json", NULL);
  g_autoptr(JsonNode) ss = itest_load_json(ss_path);
  JsonArray *frames =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(ss), "shared"), "frames");
  guint found = 0;
  for (guint i = 0; i < json_array_get_length(frames); i++) {
    JsonObject *f = json_array_get_object_element(frames, i);
    const char *name = json_object_get_string_member(f, "name");
    if (!strstr(name, "] Sxs.Lines.Program."))
      continue;
    g_assert_cmpstr(json_object_get_string_member(f, "file"), ==, source);
    g_assert_cmpint(json_object_get_int_member(f, "line"), >, 0);
    if (g_str_has_suffix(name, ".Hot")) {
      g_assert_cmpint(json_object_get_int_member(f, "line"), ==, hot - 2);
      found++;
    }
  }
  g_assert_cmpuint(found, ==, 1);
}

/* sxsprof report --lines: the summary and the folded stacks by line. */
static void test_report_lines(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *dll = lines_build("Lines");
  run_sampled(s, dll, "2000", NULL, NULL);
  gint64 hot = marker_line("LINE:hot"), call = marker_line("LINE:call");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "report", s->profile, "--lines", "--top", "3", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, s->dir, 60);
  itest_assert_exit(run, 0);
  /* The first row of the first "by self" table is the hot line. */
  const char *table = strstr(run->out, "top 3 by self:");
  g_assert_nonnull(table);
  const char *row = strchr(strchr(table, '\n') + 1, '\n') + 1;
  g_autofree char *first = g_strndup(row, strcspn(row, "\n"));
  g_autofree char *hot_at = g_strdup_printf("Sxs.Lines.Program.Hot (Lines.cs:%" G_GINT64_FORMAT ")", hot);
  g_assert_nonnull(strstr(first, hot_at));

  g_autofree char *out = g_build_filename(s->dir, "bylines", NULL);
  const char *folded_argv[] = {
      itest_env("SXS_SXSPROF"), "report", s->profile, "--lines", "--format", "folded", "-o", out, NULL};
  g_autoptr(ItestRun) fold = itest_run(folded_argv, NULL, s->dir, 60);
  itest_assert_exit(fold, 0);
  g_autofree char *folded_path = g_strconcat(out, ".folded", NULL);
  g_autofree char *folded = itest_read_file(folded_path);
  g_autofree char *path = g_strdup_printf("] Sxs.Lines.Program.Outer (Lines.cs:%" G_GINT64_FORMAT ");[rt1 10.0.", call);
  g_assert_nonnull(strstr(folded, path));
  g_assert_nonnull(strstr(folded, hot_at));
}

/* A process killed without a word (SIGKILL, no launcher): the profile rebuilt from its spool keeps
 * the frames' lines, so `report --lines` of the spool puts the hot line first, as of a profile the
 * process wrote itself. */
static void test_killed(ItestScratch *s, gconstpointer data) {
  (void)data;
  g_autofree char *dll = lines_build("Lines");
  gint64 hot = marker_line("LINE:hot"), call = marker_line("LINE:call");
  g_autofree char *prefix = g_build_filename(s->dir, "killed", NULL);
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n[sampling]\nenabled=true\nfrequency=999\n", prefix);
  g_autofree char *cfg = itest_write_file(s->dir, "killed.conf", text);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  const char *argv[] = {itest_env("SXS_DOTNET"), dll, "60000", NULL};
  g_autofree char *out = g_build_filename(s->dir, "killed.out", NULL);
  g_autofree char *err = g_build_filename(s->dir, "killed.err", NULL);
  g_autoptr(ItestProc) p = itest_spawn(argv, (const char *const *)env, s->dir, out, err, FALSE);
  g_autofree char *spool = g_strconcat(prefix, ".spool", NULL);
  /* Past start-up, with samples of the loop in the spool (it is written every 100 ms). */
  g_usleep(3 * G_USEC_PER_SEC);
  g_assert_cmpint(kill(p->pid, SIGKILL), ==, 0);
  g_assert_cmpint(itest_proc_wait(p, TIMEOUT), ==, 128 + SIGKILL);
  g_assert_true(g_file_test(spool, G_FILE_TEST_IS_REGULAR));

  const char *report_argv[] = {itest_env("SXS_SXSPROF"), "report", spool, "--lines", "--top", "3", NULL};
  g_autoptr(ItestRun) run = itest_run(report_argv, NULL, s->dir, 60);
  itest_assert_exit(run, 0);
  const char *table = strstr(run->out, "top 3 by self:");
  g_assert_nonnull(table);
  const char *row = strchr(strchr(table, '\n') + 1, '\n') + 1;
  g_autofree char *first = g_strndup(row, strcspn(row, "\n"));
  g_autofree char *hot_at = g_strdup_printf("Sxs.Lines.Program.Hot (Lines.cs:%" G_GINT64_FORMAT ")", hot);
  g_test_message("first row: %s", first);
  g_assert_nonnull(strstr(first, hot_at));
  /* Outer, Hot's caller, on the line of its call. */
  g_autofree char *caller = g_strdup_printf("Sxs.Lines.Program.Outer (Lines.cs:%" G_GINT64_FORMAT ")", call);
  g_assert_nonnull(strstr(run->out, caller));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, ItestScratch, NULL, itest_scratch_setup, fn, itest_scratch_teardown)
  ADD("/lines/sampled/pdb-beside", test_pdb_beside);
  ADD("/lines/sampled/pdb-embedded", test_pdb_embedded);
  ADD("/lines/sampled/no-pdb", test_no_pdb);
  ADD("/lines/sampled/mismatch-and-symbols", test_mismatch_and_symbols);
  ADD("/lines/sampled/tiered", test_tiered);
  ADD("/lines/sampled/two-runtimes", test_two_runtimes);
  ADD("/lines/traced", test_traced);
  ADD("/lines/report", test_report_lines);
  ADD("/lines/killed", test_killed);
  return g_test_run();
}
