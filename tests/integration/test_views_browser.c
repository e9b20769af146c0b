/* The SVG flame graph in a real browser: headless Chromium opens the views fixture's flame graph
 * from a file, and what a user would see and do is checked: the hot function's name on screen, a
 * screenshot that holds a drawing in the frames' colours, search highlighting and its percentage,
 * zoom by click and by the script's API, hover details and Ctrl-F.
 *
 * The graph comes from the unit test binary (tests/unit/test_write_svg with SXS_SVG_OUT set writes
 * the fixture's graph), and tests/integration/browser_svg.js drives Chromium and reports what it
 * saw as JSON; this file asserts on that report. No Chromium process outlives the test. */
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "itest.h"

#define TIMEOUT 120

/* tests/unit/sxs_view_fixture.h: FIXTURE_HOT_LABEL, 70 of its 100 samples, all of them in the leaf;
 * its caller is App.Program.Main (80 samples), whose other callee is App.Program.Cold (10). */
#define HOT_LABEL "[rt1 10.0.1] App.Program.Hot"
#define HOT_NAME "App.Program.Hot"
#define MAIN_LABEL "[rt1 10.0.1] App.Program.Main"
#define COLD_LABEL "[rt1 10.0.1] App.Program.Cold"

static JsonObject *member(JsonObject *o, const char *name) {
  g_assert_true(json_object_has_member(o, name));
  return json_object_get_object_member(o, name);
}

static double num(JsonObject *o, const char *name) {
  g_assert_true(json_object_has_member(o, name));
  return json_object_get_double_member(o, name);
}

static const char *str(JsonObject *o, const char *name) {
  g_assert_true(json_object_has_member(o, name));
  return json_object_get_string_member(o, name);
}

/* With do_kill, kills every process whose command line mentions `needle` (the test's own Chromium profile
 * folder, so nothing else matches); returns how many there were. */
static guint find_leftovers(const char *needle, gboolean do_kill) {
  guint n = 0;
  DIR *proc = opendir("/proc");
  g_assert_nonnull(proc);
  for (struct dirent *e; (e = readdir(proc)) != NULL;) {
    if (strspn(e->d_name, "0123456789") != strlen(e->d_name))
      continue;
    g_autofree char *path = g_strdup_printf("/proc/%s/cmdline", e->d_name);
    g_autofree char *cmdline = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &cmdline, &len, NULL))
      continue;
    for (gsize i = 0; i + 1 < len; i++)
      if (cmdline[i] == '\0')
        cmdline[i] = ' ';
    if (strstr(cmdline, needle) != NULL) {
      if (do_kill) {
        g_test_message("left running: %s %s", e->d_name, cmdline);
        kill((pid_t)g_ascii_strtoll(e->d_name, NULL, 10), SIGKILL);
      }
      n++;
    }
  }
  closedir(proc);
  return n;
}

static void test_flame_graph(void) {
  g_autofree char *node = g_find_program_in_path("node");
  g_autofree char *chromium = g_find_program_in_path("chromium");
  if (node == NULL || chromium == NULL) {
    g_test_fail_printf("%s is not installed: run tests/setup.sh", node == NULL ? "node" : "chromium");
    return;
  }
  g_autofree char *tmp = itest_tmpdir();
  g_autofree char *svg = g_build_filename(tmp, "fixture.svg", NULL);
  g_autofree char *png = g_build_filename(tmp, "fixture.png", NULL);
  g_autofree char *profile_dir = g_build_filename(tmp, "chromium-profile", NULL);
  g_autofree char *writer = g_build_filename(itest_env("SXS_BUILD_DIR"), "tests", "unit", "test_write_svg", NULL);
  g_autofree char *script =
      g_build_filename(itest_env("SXS_SOURCE_DIR"), "tests", "integration", "browser_svg.js", NULL);
  g_assert_true(g_file_test(writer, G_FILE_TEST_IS_EXECUTABLE));
  g_assert_true(g_file_test(script, G_FILE_TEST_EXISTS));

  /* The fixture's flame graph. */
  g_autofree char *out_env = g_strconcat("SXS_SVG_OUT=", svg, NULL);
  const char *writer_argv[] = {writer, NULL};
  const char *writer_env[] = {out_env, NULL};
  g_autoptr(ItestRun) written = itest_run(writer_argv, writer_env, NULL, 60);
  itest_assert_exit(written, 0);
  g_autofree char *text = itest_read_file(svg);
  g_assert_true(g_str_has_prefix(text, "<?xml"));

  /* Chromium opens it. */
  g_assert_cmpint(g_mkdir_with_parents(profile_dir, 0700), ==, 0);
  const char *argv[] = {node, script, chromium, svg, profile_dir, png, HOT_LABEL, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, tmp, TIMEOUT);
  /* Chromium's renderers end a moment after the browser they served (longer on a loaded machine): a process
   * still there after 5 s is one left running. */
  for (int i = 0; i < 50 && find_leftovers(profile_dir, FALSE) > 0; i++)
    g_usleep(100 * 1000);
  guint leftovers = find_leftovers(profile_dir, TRUE);
  itest_assert_exit(run, 0);
  g_assert_cmpuint(leftovers, ==, 0);

  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  json_parser_load_from_data(parser, run->out, -1, &error);
  g_assert_no_error(error);
  JsonObject *report = json_node_get_object(json_parser_get_root(parser));
  g_test_message("report: %s", run->out);

  /* After load: the title, every frame, the API, and the hot function's whole name on screen. */
  JsonObject *load = member(report, "load");
  g_assert_cmpstr(str(load, "title"), ==, "Flame graph of App (dotnet, pid 4242)");
  g_assert_cmpint((gint64)num(load, "frames"), ==, 12);
  double full = num(load, "fullWidth"), pad = num(load, "pad");
  g_assert_cmpfloat(full, ==, 1180);
  JsonArray *api = json_object_get_array_member(load, "api");
  g_assert_cmpuint(json_array_get_length(api), ==, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_true(g_str_has_suffix(json_array_get_string_element(api, i), ":function"));
  JsonArray *texts = json_object_get_array_member(load, "visibleTexts");
  gboolean hot_shown = FALSE;
  for (guint i = 0; i < json_array_get_length(texts); i++)
    hot_shown |= g_strcmp0(json_array_get_string_element(texts, i), HOT_NAME) == 0;
  g_assert_true(hot_shown);
  JsonObject *hot = member(load, "hot"), *parent = member(load, "parent"), *sibling = member(load, "sibling");
  g_assert_cmpstr(str(parent, "name"), ==, MAIN_LABEL);
  g_assert_cmpstr(str(sibling, "name"), ==, COLD_LABEL);
  double hot_x = num(hot, "x"), hot_w = num(hot, "w");
  g_assert_cmpfloat_with_epsilon(hot_w, full * 0.70, 0.01);
  JsonObject *hot_box = member(load, "hotBox"); /* drawn where its attributes say, at scale 1 */
  g_assert_cmpfloat_with_epsilon(num(hot_box, "w"), hot_w, 0.5);
  g_assert_cmpfloat_with_epsilon(num(hot_box, "x"), hot_x, 0.5);

  /* The screenshot: a real drawing (many colours from frames and text), with the hot frame in its
   * own fill colour. */
  JsonObject *shot = member(report, "screenshot");
  g_assert_cmpfloat(num(shot, "bytes"), >, 5000);
  g_assert_cmpfloat(num(shot, "width"), ==, 1200);
  g_assert_cmpfloat(num(shot, "colors"), >, 20);
  g_assert_cmpstr(str(shot, "hotPixel"), ==, str(hot, "fill"));
  struct stat st;
  g_assert_cmpint(g_stat(png, &st), ==, 0);
  g_assert_cmpint(st.st_size, ==, (gint64)num(shot, "bytes"));

  /* Search: 70% for the hot function, only its rect turns the match colour; a caller's prefix
   * counts Main once (80%), not Main plus its callees; lower case ignores case; /regex/ works;
   * reset restores every colour. */
  JsonObject *search = member(report, "search");
  g_assert_cmpfloat_with_epsilon(num(search, "percent"), 70.0, 1e-9);
  JsonArray *changed = json_object_get_array_member(search, "changed");
  g_assert_cmpuint(json_array_get_length(changed), ==, 1);
  JsonObject *c = json_array_get_object_element(changed, 0);
  g_assert_cmpstr(str(c, "name"), ==, HOT_LABEL);
  g_assert_cmpstr(str(c, "was"), ==, str(hot, "fill"));
  g_assert_cmpstr(str(c, "now"), ==, str(load, "matchFill"));
  g_assert_cmpstr(str(search, "matched"), ==, "Matched: 70.00% (1 frames)");
  g_assert_cmpstr(str(search, "control"), ==, "Reset search");
  g_assert_cmpfloat_with_epsilon(num(search, "parentPercent"), 80.0, 1e-9);
  g_assert_cmpfloat_with_epsilon(num(search, "lowerPercent"), 70.0, 1e-9);
  g_assert_cmpfloat_with_epsilon(num(search, "regexPercent"), 80.0, 1e-9);
  g_assert_cmpfloat(num(search, "nonePercent"), ==, 0);
  g_assert_true(json_object_get_boolean_member(search, "restored"));
  g_assert_cmpstr(str(search, "controlAfter"), ==, "Search");

  /* sxsZoom(hot): it spans the graph, Main (its caller) too, Cold and unrelated frames hide;
   * sxsResetZoom() puts every frame back where it was. */
  JsonObject *zoom = member(report, "zoom"), *zoomed = member(zoom, "zoomed"), *reset = member(zoom, "reset");
  g_assert_true(json_object_get_boolean_member(zoomed, "ok"));
  g_assert_cmpfloat_with_epsilon(num(member(zoomed, "hot"), "w"), full, 0.01);
  g_assert_cmpfloat_with_epsilon(num(member(zoomed, "hot"), "x"), pad, 0.01);
  g_assert_cmpfloat_with_epsilon(num(member(zoomed, "hotBox"), "w"), full, 0.5);
  g_assert_cmpstr(str(member(zoomed, "hot"), "display"), !=, "none");
  g_assert_cmpfloat_with_epsilon(num(member(zoomed, "parent"), "w"), full, 0.01);
  g_assert_cmpstr(str(member(zoomed, "sibling"), "display"), ==, "none");
  g_assert_cmpstr(str(member(zoomed, "other"), "display"), ==, "none");
  g_assert_cmpstr(str(zoomed, "resetControl"), ==, "ctl");
  g_assert_cmpfloat_with_epsilon(num(member(reset, "hot"), "w"), hot_w, 0.01);
  g_assert_cmpfloat_with_epsilon(num(member(reset, "hot"), "x"), hot_x, 0.01);
  g_assert_cmpfloat_with_epsilon(num(member(reset, "parent"), "w"), num(parent, "w"), 0.01);
  g_assert_cmpstr(str(member(reset, "sibling"), "display"), !=, "none");
  g_assert_cmpstr(str(member(reset, "other"), "display"), !=, "none");
  g_assert_cmpstr(str(member(reset, "sibling"), "text"), ==, str(sibling, "text"));
  g_assert_cmpstr(str(reset, "resetControl"), ==, "ctl off");

  /* By hand: hovering shows the details, a click zooms, a click on the root unzooms. */
  g_assert_true(g_str_has_prefix(str(report, "hover"), HOT_LABEL " | total 70 samples, 70.00%"));
  g_assert_cmpfloat_with_epsilon(num(member(member(report, "click"), "hot"), "w"), full, 0.01);
  g_assert_cmpstr(str(member(member(report, "click"), "sibling"), "display"), ==, "none");
  g_assert_cmpfloat_with_epsilon(num(member(member(report, "clickRoot"), "hot"), "w"), hot_w, 0.01);
  g_assert_cmpstr(str(member(member(report, "clickRoot"), "sibling"), "display"), !=, "none");

  /* Ctrl-F asks what to search (answered with the hot label), Esc clears it. */
  JsonObject *ctrl_f = member(report, "ctrlF");
  g_assert_cmpstr(str(ctrl_f, "dialog"), ==, "prompt");
  g_assert_cmpstr(str(ctrl_f, "matched"), ==, "Matched: 70.00% (1 frames)");
  g_assert_cmpstr(str(ctrl_f, "afterEscape"), ==, "");

  /* And the script never failed. */
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(report, "exceptions")), ==, 0);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(report, "consoleErrors")), ==, 0);

  itest_rmtree(tmp);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/browser/svg", test_flame_graph);
  return g_test_run();
}
