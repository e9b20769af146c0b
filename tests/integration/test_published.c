/* Apps as users ship them (tests/setup/build-apps.sh, apps/published/), and runtimes wherever they
 * sit: the product version read from the runtime itself, with the features that follow from it.
 *
 *   published/sc10/SxsSample   self-contained 10, started by its app host   sampled, traced, attached
 *   published/sf10/SxsSample   single file: no libcoreclr.so on disk        sampled, traced, attached
 *   published/sc31/SxsSample   self-contained 3.1 (no .version)            version 3.1.3 from CoreLib
 *   published/fd10/SxsSample   app host of a framework-dependent app       = dotnet SxsSample.dll
 *   published/aot10/SxsHello   NativeAOT                                   said so, no profile
 *   a copy of 3.1 / 2.0 / 8 in a folder named after nothing, without .version (runsxs PATH)
 *   a private dotnet root found through DOTNET_ROOT by the app host
 */
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TIMEOUT 180

typedef ItestScratch Fixture;

static char *published(const char *variant, const char *exe) {
  char *path = g_build_filename(itest_env("SXS_APPS_DIR"), "published", variant, exe, NULL);
  if (!g_file_test(path, G_FILE_TEST_IS_EXECUTABLE))
    g_test_message("missing %s (run tests/setup/build-apps.sh)", path);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_EXECUTABLE));
  return path;
}

static char *write_config(Fixture *f, const char *body) {
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n%s", f->output, body);
  return itest_write_file(f->dir, "sxsprof.conf", text);
}

static ItestRun *run_with(Fixture *f, const char *const *argv, const char *config_body, const char *const *more_env) {
  g_autofree char *cfg = write_config(f, config_body);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  if (more_env) {
    GStrvBuilder *b = g_strv_builder_new();
    g_strv_builder_addv(b, (const char **)env);
    g_strv_builder_addv(b, (const char **)more_env);
    g_strfreev(env);
    env = g_strv_builder_end(b);
    g_strv_builder_unref(b);
  }
  g_remove(f->profile);
  return itest_run(argv, (const char *const *)env, f->dir, TIMEOUT);
}

/* The one runtime of the profile. */
static JsonObject *only_runtime(JsonNode *doc) {
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 1);
  return itest_profile_runtime(doc, 1);
}

static gint64 frames_count(JsonObject *stack) {
  return json_array_get_length(json_object_get_array_member(stack, "frames"));
}

static const char *frame_name(JsonObject *stack, guint i) {
  JsonObject *fr = json_array_get_object_element(json_object_get_array_member(stack, "frames"), i);
  return json_object_get_string_member(fr, "name");
}

/* Samples with Hot.Spin as their leaf among all samples: at least lo. The heaviest such stack goes
 * down, in order, through SxsSample.HotCold and SxsSample.Main (managed), the runtime, and the host
 * executable's main (`<exe>!main+0x..`) to its _start. */
static void assert_hot_samples(JsonNode *doc, const char *exe_name, double lo) {
  JsonObject *s = json_object_get_object_member(json_node_get_object(doc), "samples");
  g_assert_true(json_object_get_boolean_member(s, "enabled"));
  JsonArray *stacks = json_object_get_array_member(s, "stacks");
  gint64 total = 0, hot = 0, best = 0;
  JsonObject *heaviest = NULL;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    gint64 count = json_object_get_int_member(st, "count");
    total += count;
    if (frames_count(st) > 0 && g_str_equal(frame_name(st, 0), "Hot.Spin")) {
      hot += count;
      if (count > best) {
        best = count;
        heaviest = st;
      }
    }
  }
  g_test_message("Hot.Spin: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " samples", hot, total);
  /* 99 Hz of CPU time for 2 s; fewer when the machine is busy with other work. */
  g_assert_cmpint(total, >=, 30);
  g_assert_cmpfloat((double)hot / (double)total, >=, lo);
  g_assert_nonnull(heaviest);
  guint n = (guint)frames_count(heaviest);
  /* A loop the JIT replaced on the stack (OSR, 7 and later) runs above its first version's frame:
   * Hot.Spin may be there twice, and a frame replaced so is not always seen. What must be there is
   * Main, above the runtime. */
  guint at = 1;
  while (at < n && g_str_equal(frame_name(heaviest, at), "Hot.Spin"))
    at++;
  g_assert_cmpuint(at, <=, 2);
  if (g_str_equal(frame_name(heaviest, at), "SxsSample.HotCold"))
    at++;
  g_assert_cmpstr(frame_name(heaviest, at), ==, "SxsSample.Main");
  at--;
  g_autofree char *main_prefix = g_strdup_printf("%s!main+0x", exe_name);
  g_autofree char *start_prefix = g_strdup_printf("%s!_start+0x", exe_name);
  guint main_at = 0;
  for (guint i = at + 2; i < n; i++)
    if (g_str_has_prefix(frame_name(heaviest, i), main_prefix))
      main_at = i;
  if (main_at == 0)
    for (guint i = 0; i < n; i++)
      g_test_message("frame %u: %s", i, frame_name(heaviest, i));
  g_assert_cmpuint(main_at, >, at + 2);
  g_assert_true(g_str_has_prefix(frame_name(heaviest, n - 1), start_prefix));
}

/* Exact calls: HotCold once, Hot.Spin and Cold.Walk once per round each. */
static void assert_traced(JsonObject *rt) {
  JsonObject *tracing = json_object_get_object_member(rt, "tracing");
  g_assert_true(json_object_get_boolean_member(tracing, "enabled"));
  gint64 hot = json_object_get_int_member(itest_runtime_function(rt, "Hot.Spin"), "calls");
  gint64 cold = json_object_get_int_member(itest_runtime_function(rt, "Cold.Walk"), "calls");
  gint64 rounds = json_object_get_int_member(itest_runtime_function(rt, "SxsSample.HotCold"), "calls");
  g_test_message("Hot.Spin %" G_GINT64_FORMAT ", Cold.Walk %" G_GINT64_FORMAT, hot, cold);
  g_assert_cmpint(rounds, ==, 1);
  g_assert_cmpint(hot, >=, 20);
  g_assert_cmpint(hot, ==, cold);
}

/* The profile's version of the runtime and where it was read from. */
static void assert_version(JsonObject *rt, const char *version, const char *source) {
  g_assert_cmpstr(json_object_get_string_member(rt, "version"), ==, version);
  g_assert_cmpstr(json_object_get_string_member(rt, "version_source"), ==, source);
}

#define FROM_API "runtime"
#define FROM_CORELIB "corelib"
#define FROM_DEPS "deps.json"

/* The SDK's runtime version (10.0.12): what the SDK's dotnet runs. */
static char *sdk_runtime_version(void) {
  const char *argv[] = {itest_env("SXS_DOTNET"), "--list-runtimes", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, NULL, 60);
  itest_assert_exit(run, 0);
  g_autoptr(GRegex) re = g_regex_new("^Microsoft\\.NETCore\\.App (\\S+) ", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) mi = NULL;
  g_assert_true(g_regex_match(re, run->out, 0, &mi));
  char *v = NULL;
  while (g_match_info_matches(mi)) {
    g_free(v);
    v = g_match_info_fetch(mi, 1);
    g_match_info_next(mi, NULL);
  }
  return v;
}

typedef struct {
  const char *variant;
  const char *version; /* NULL: the SDK's runtime */
  const char *source;
  gboolean single_file;
} Published;

/* A published SxsSample started by its own executable: sampled down to the host's main, traced
 * exactly, its version from the runtime itself. */
static void test_published_app(Fixture *f, gconstpointer data) {
  const Published *p = data;
  g_autofree char *exe = published(p->variant, "SxsSample");
  g_autofree char *folder = g_path_get_dirname(exe);
  g_autofree char *coreclr = g_build_filename(folder, "libcoreclr.so", NULL);
  g_assert_cmpint(g_file_test(coreclr, G_FILE_TEST_EXISTS), ==, !p->single_file);
  g_autofree char *sdk = sdk_runtime_version();
  const char *version = p->version ? p->version : sdk;
  const char *argv[] = {exe, "hotcold", "2", NULL};

  g_autoptr(ItestRun) run = run_with(f, argv, "[sampling]\nenabled=true\n", NULL);
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "hotcold seconds=2 "));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *rt = only_runtime(doc);
  assert_version(rt, version, p->source);
  g_assert_cmpstr(json_object_get_string_member(rt, "status"), ==, "profiling");
  /* The runtime's code is its libcoreclr.so beside the app, or the executable itself. */
  g_autofree char *real_exe = realpath(exe, NULL);
  g_autofree char *real_coreclr = p->single_file ? NULL : realpath(coreclr, NULL);
  g_assert_cmpstr(json_object_get_string_member(rt, "path"), ==, p->single_file ? real_exe : real_coreclr);
  assert_hot_samples(doc, "SxsSample", 0.6);

  g_autoptr(ItestRun) traced = run_with(f, argv, "[tracing]\nenabled=true\ninclude=Hot.*,Cold.*,SxsSample.*\n", NULL);
  itest_assert_exit(traced, 0);
  g_autoptr(JsonNode) tdoc = itest_load_json(f->profile);
  JsonObject *trt = only_runtime(tdoc);
  g_assert_true(json_object_get_boolean_member(json_object_get_object_member(trt, "capabilities"), "elt3"));
  assert_traced(trt);
}

/* The path of the diagnostics socket of pid, once the runtime made it. */
static gboolean wait_for_socket(GPid pid, int timeout_sec) {
  g_autofree char *prefix = g_strdup_printf("dotnet-diagnostic-%d-", (int)pid);
  const char *tmp = g_getenv("TMPDIR") ? g_getenv("TMPDIR") : "/tmp";
  for (int i = 0; i < timeout_sec * 20; i++) {
    g_autoptr(GDir) d = g_dir_open(tmp, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d)))
      if (g_str_has_prefix(name, prefix))
        return TRUE;
    g_usleep(50000);
  }
  return FALSE;
}

/* sxsprof attach to a running self-contained or single-file app: it samples the hot loop. */
static void test_attach(Fixture *f, gconstpointer data) {
  const Published *p = data;
  g_autofree char *exe = published(p->variant, "SxsSample");
  const char *argv[] = {exe, "hotcold", "6", NULL};
  g_autofree char *out = g_build_filename(f->dir, "app.out", NULL);
  g_autofree char *err = g_build_filename(f->dir, "app.err", NULL);
  const char *env[] = {"CORECLR_ENABLE_PROFILING", NULL};
  g_autoptr(ItestProc) app = itest_spawn(argv, env, f->dir, out, err, FALSE);
  g_assert_true(wait_for_socket(app->pid, 30));
  g_autofree char *pid = g_strdup_printf("%d", (int)app->pid);
  const char *attach[] = {
      itest_env("SXS_SXSPROF"), "attach", pid, "--sample", "--duration", "2", "-o", f->output, NULL};
  /* The socket's file is there a moment before the runtime listens on it (connecting is refused
   * then, or the connection is closed unanswered), and before it takes requests (it answers "not
   * yet"): each is retried. */
  g_autoptr(ItestRun) run = NULL;
  for (int i = 0; i < 20; i++) {
    g_clear_pointer(&run, itest_run_free);
    run = itest_run(attach, NULL, f->dir, TIMEOUT);
    if (run->exit_code == 0 ||
        (!strstr(run->err, "CORPROF_E_NOT_YET_AVAILABLE") && !strstr(run->err, "Connection refused") &&
         !strstr(run->err, "does not answer as a .NET runtime")))
      break;
    g_usleep(200000);
  }
  itest_assert_exit(run, 0);
  g_assert_cmpint(itest_proc_wait(app, 60), ==, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *rt = only_runtime(doc);
  g_assert_true(json_object_get_boolean_member(rt, "attached"));
  g_autofree char *sdk = sdk_runtime_version();
  g_assert_cmpstr(json_object_get_string_member(rt, "version"), ==, sdk);
  JsonObject *s = json_object_get_object_member(json_node_get_object(doc), "samples");
  JsonArray *stacks = json_object_get_array_member(s, "stacks");
  gint64 total = 0, hot = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    total += json_object_get_int_member(st, "count");
    if (frames_count(st) > 0 && g_str_equal(frame_name(st, 0), "Hot.Spin"))
      hot += json_object_get_int_member(st, "count");
  }
  g_test_message("attached: Hot.Spin %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT, hot, total);
  g_assert_cmpint(total, >=, 50);
  g_assert_cmpfloat((double)hot / (double)total, >=, 0.6);
}

/* g_ptr_array_sort's comparator for strings (it passes pointers to the elements). */
static int compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of a runtime's functions of module SxsSample.dll, sorted, joined. */
static char *app_functions(JsonObject *rt) {
  JsonArray *fns = json_object_get_array_member(rt, "functions");
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  for (guint i = 0; i < json_array_get_length(fns); i++) {
    JsonObject *fn = json_array_get_object_element(fns, i);
    if (json_object_has_member(fn, "module") &&
        g_str_equal(json_object_get_string_member(fn, "module"), "SxsSample.dll"))
      g_ptr_array_add(names, (gpointer)json_object_get_string_member(fn, "name"));
  }
  g_ptr_array_sort(names, compare_names);
  g_ptr_array_add(names, NULL);
  return g_strjoinv(",", (char **)names->pdata);
}

/* The app host of a framework-dependent app is profiled as `dotnet SxsSample.dll` is: the same
 * runtime, the same functions in the inventory, the same share of samples in the hot loop. */
static void test_app_host(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *exe = published("fd10", "SxsSample");
  g_autofree char *dll = g_strconcat(exe, ".dll", NULL);
  const char *by_host[] = {exe, "hotcold", "2", NULL};
  const char *by_dotnet[] = {itest_env("SXS_DOTNET"), dll, "hotcold", "2", NULL};
  const char *const *argvs[] = {by_host, by_dotnet};
  g_autofree char *functions[2] = {NULL, NULL};
  g_autofree char *versions[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    g_autoptr(ItestRun) run = run_with(f, argvs[i], "inventory=true\n[sampling]\nenabled=true\n", NULL);
    itest_assert_exit(run, 0);
    g_autoptr(JsonNode) doc = itest_load_json(f->profile);
    JsonObject *rt = only_runtime(doc);
    functions[i] = app_functions(rt);
    versions[i] = g_strdup(json_object_get_string_member(rt, "version"));
    JsonObject *s = json_object_get_object_member(json_node_get_object(doc), "samples");
    g_assert_cmpint(json_object_get_int_member(s, "taken"), >=, 20);
    const char *program = json_object_get_string_member(
        json_object_get_object_member(json_node_get_object(doc), "process"), "executable");
    g_test_message("%s: %s", program, functions[i]);
  }
  g_assert_cmpstr(versions[0], ==, versions[1]);
  g_assert_cmpstr(functions[0], ==, functions[1]);
  g_assert_nonnull(strstr(functions[0], "Hot.Spin"));
}

/* A NativeAOT program has no CoreCLR: the launcher says so instead of "no runtime loaded". */
static void test_native_aot(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *exe = published("aot10", "SxsHello");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "-o", f->output, "--", exe, "7", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, f->dir, TIMEOUT);
  itest_assert_exit(run, 7);
  g_assert_true(g_str_has_prefix(run->out, "hello from "));
  g_autofree char *line = g_strdup_printf("sxsprof: %s is a NativeAOT program: compiled ahead of time, it has no "
                                          "CoreCLR and so no CoreCLR profiling API to load the profiler; no profile "
                                          "was written\n",
                                          exe);
  g_assert_cmpstr(run->err, ==, line);
  g_assert_false(g_file_test(f->profile, G_FILE_TEST_EXISTS));
}

/* ---- runtimes in folders that do not say their version ---- */

/* The installed framework folder of a version prefix ("3.1" -> .../3.1.3). */
static char *installed(const char *prefix) {
  g_autofree char *base = g_build_filename(itest_env("SXS_RUNTIMES_DIR"), "shared", "Microsoft.NETCore.App", NULL);
  g_autoptr(GDir) d = g_dir_open(base, 0, NULL);
  g_assert_nonnull(d);
  const char *name;
  char *best = NULL;
  while ((name = g_dir_read_name(d)))
    if (g_str_has_prefix(name, prefix) && (!best || itest_version_cmp(name, best) > 0)) {
      g_free(best);
      best = g_strdup(name);
    }
  if (!best)
    g_test_message("no %s* runtime in %s (run tests/setup.sh)", prefix, base);
  g_assert_nonnull(best);
  g_autofree char *v = best;
  return g_build_filename(base, v, NULL);
}

/* A copy of a runtime folder (hard links), named `name`, without its .version. */
static char *copy_runtime(Fixture *f, const char *from, const char *name) {
  char *dst = g_build_filename(f->dir, name, NULL);
  const char *cp[] = {"cp", "-al", from, dst, NULL};
  g_autoptr(ItestRun) run = itest_run(cp, NULL, NULL, 60);
  itest_assert_exit(run, 0);
  g_autofree char *dot = g_build_filename(dst, ".version", NULL);
  g_remove(dot);
  g_assert_false(g_file_test(dot, G_FILE_TEST_EXISTS));
  return dst;
}

typedef struct {
  const char *prefix; /* installed runtime copied */
  const char *source; /* where its version must come from */
  gboolean elt3;      /* tracing on */
} Renamed;

/* runsxs runs a runtime from a folder named after nothing, without .version: the profile still
 * gives its product version, and tracing follows from that version, not from the folder. */
static void test_renamed(Fixture *f, gconstpointer data) {
  const Renamed *r = data;
  g_autofree char *from = installed(r->prefix);
  g_autofree char *version = g_path_get_basename(from);
  g_autofree char *copy = copy_runtime(f, from, "some-runtime");
  g_autofree char *app = itest_app("Counts");
  const char *argv[] = {itest_env("SXS_RUNSXS"), copy, app, "3 2 1", NULL};
  g_autoptr(ItestRun) run = run_with(f, argv, "[tracing]\nenabled=true\ninclude=Sxs.Tests.*\n", NULL);
  itest_assert_exit(run, 0);
  g_autofree char *runsxs_line = g_strdup_printf("runsxs: [1] %s ", version);
  g_assert_nonnull(strstr(run->out, runsxs_line));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *rt = only_runtime(doc);
  assert_version(rt, version, r->source);
  g_autofree char *path = g_build_filename(copy, "libcoreclr.so", NULL);
  g_assert_cmpstr(json_object_get_string_member(rt, "path"), ==, path);
  g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 3);
  JsonObject *caps = json_object_get_object_member(rt, "capabilities");
  g_assert_cmpint(json_object_get_boolean_member(caps, "elt3"), ==, r->elt3);
  JsonObject *tracing = json_object_get_object_member(rt, "tracing");
  g_assert_cmpint(json_object_get_boolean_member(tracing, "enabled"), ==, r->elt3);
  JsonObject *fn = itest_runtime_function(rt, "Sxs.Tests.Counts.Worker.Fail");
  g_assert_nonnull(fn);
  if (r->elt3)
    g_assert_cmpint(json_object_get_int_member(fn, "calls"), ==, 3);
  else
    g_assert_false(json_object_has_member(fn, "calls"));
}

/* An app host finds its runtime through DOTNET_ROOT, in a private root whose runtime folder has no
 * .version: the profile gives the runtime's own version and its path in that root. */
static void test_dotnet_root(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *sdk = sdk_runtime_version();
  g_autofree char *dotnet = realpath(itest_env("SXS_DOTNET"), NULL);
  g_autofree char *sdk_root = g_path_get_dirname(dotnet);
  g_autofree char *root = g_build_filename(f->dir, "root", NULL);
  g_autofree char *fxr_dir = g_build_filename(root, "host", "fxr", NULL);
  g_autofree char *fw_dir = g_build_filename(root, "shared", "Microsoft.NETCore.App", NULL);
  g_assert_cmpint(g_mkdir_with_parents(fxr_dir, 0755), ==, 0);
  g_assert_cmpint(g_mkdir_with_parents(fw_dir, 0755), ==, 0);
  g_autofree char *fxr_from = g_build_filename(sdk_root, "host", "fxr", sdk, NULL);
  g_autofree char *fxr_to = g_build_filename(fxr_dir, sdk, NULL);
  g_assert_cmpint(symlink(fxr_from, fxr_to), ==, 0);
  g_autofree char *fw_from = g_build_filename(sdk_root, "shared", "Microsoft.NETCore.App", sdk, NULL);
  g_autofree char *fw_copy = copy_runtime(f, fw_from, "fw");
  g_autofree char *fw_to = g_build_filename(fw_dir, sdk, NULL);
  g_assert_cmpint(g_rename(fw_copy, fw_to), ==, 0);

  g_autofree char *exe = published("fd10", "SxsSample");
  const char *argv[] = {exe, "hotcold", "1", NULL};
  g_autofree char *root_env = g_strdup_printf("DOTNET_ROOT=%s", root);
  const char *env[] = {root_env, NULL};
  g_autoptr(ItestRun) run = run_with(f, argv, "[sampling]\nenabled=true\n", env);
  itest_assert_exit(run, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *rt = only_runtime(doc);
  assert_version(rt, sdk, FROM_API);
  g_autofree char *path = g_build_filename(fw_to, "libcoreclr.so", NULL);
  g_autofree char *real = realpath(path, NULL);
  g_assert_cmpstr(json_object_get_string_member(rt, "path"), ==, real);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  static const Published sc10 = {"sc10", NULL, FROM_API, FALSE};
  static const Published sf10 = {"sf10", NULL, FROM_API, TRUE};
  static const Published sc31 = {"sc31", "3.1.3", FROM_CORELIB, FALSE};
  g_test_add("/published/self-contained/10", Fixture, &sc10, itest_scratch_setup, test_published_app,
             itest_scratch_teardown);
  g_test_add("/published/single-file/10", Fixture, &sf10, itest_scratch_setup, test_published_app,
             itest_scratch_teardown);
  g_test_add("/published/self-contained/3.1", Fixture, &sc31, itest_scratch_setup, test_published_app,
             itest_scratch_teardown);
  g_test_add("/published/attach/self-contained", Fixture, &sc10, itest_scratch_setup, test_attach,
             itest_scratch_teardown);
  g_test_add("/published/attach/single-file", Fixture, &sf10, itest_scratch_setup, test_attach, itest_scratch_teardown);
  g_test_add("/published/app-host", Fixture, NULL, itest_scratch_setup, test_app_host, itest_scratch_teardown);
  g_test_add("/published/native-aot", Fixture, NULL, itest_scratch_setup, test_native_aot, itest_scratch_teardown);
  static const Renamed r31 = {"3.1.", FROM_CORELIB, TRUE};
  static const Renamed r20 = {"2.0.", FROM_DEPS, FALSE};
  static const Renamed r8 = {"8.0.", FROM_API, TRUE};
  g_test_add("/published/version/renamed/3.1", Fixture, &r31, itest_scratch_setup, test_renamed,
             itest_scratch_teardown);
  g_test_add("/published/version/renamed/2.0", Fixture, &r20, itest_scratch_setup, test_renamed,
             itest_scratch_teardown);
  g_test_add("/published/version/renamed/8", Fixture, &r8, itest_scratch_setup, test_renamed, itest_scratch_teardown);
  g_test_add("/published/version/dotnet-root", Fixture, NULL, itest_scratch_setup, test_dotnet_root,
             itest_scratch_teardown);
  return g_test_run();
}
