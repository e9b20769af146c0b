/* The profiler in one real runtime: exact counters, function names, policies, bad input.
 *
 * Every scenario runs a real C# app from tests/apps in a fresh `dotnet` process (the SDK's own
 * runtime, and the .NET Core 2.0 host where noted), once without the profiler and once with it,
 * and checks that the app's stdout and exit code did not change and that the profile says
 * exactly what the app did. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

#define TIMEOUT 120

typedef ItestScratch Fixture;

/* The SDK runtime's version and folder, from `dotnet --list-runtimes`. */
static void sdk_runtime(char **ret_version, char **ret_folder) {
  const char *argv[] = {itest_env("SXS_DOTNET"), "--list-runtimes", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, NULL, 60);
  itest_assert_exit(run, 0);
  g_auto(GStrv) lines = g_strsplit(run->out, "\n", -1);
  for (char **l = lines; *l; l++) {
    if (!g_str_has_prefix(*l, "Microsoft.NETCore.App "))
      continue;
    g_auto(GStrv) parts = g_strsplit(*l, " ", 3);
    g_autofree char *base = g_strndup(parts[2] + 1, strlen(parts[2]) - 2); /* strip [ ] */
    *ret_version = g_strdup(parts[1]);
    *ret_folder = g_build_filename(base, parts[1], NULL);
    return;
  }
  g_assert_not_reached();
}

/* Environment for a profiled run: the profiler, the config, and the extra entries. */
static char **profiled_env(const char *config, const char *const *extra) {
  g_auto(GStrv) base = itest_profiler_env(config);
  GPtrArray *env = g_ptr_array_new();
  for (char **e = base; *e; e++)
    g_ptr_array_add(env, g_strdup(*e));
  for (const char *const *e = extra; e && *e; e++)
    g_ptr_array_add(env, g_strdup(*e));
  g_ptr_array_add(env, NULL);
  return (char **)g_ptr_array_free(env, FALSE);
}

static const char *const plain_env[] = {"CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER", "CORECLR_PROFILER_PATH",
                                        "SXSPROF_CONFIG",           "SXSPROF_OUTPUT",   NULL};

/* Runs app with args under `dotnet`, without and then with the profiler; asserts both runs have
 * the same stdout and exit code `code`; returns the profiled run. */
static ItestRun *run_both(const char *host, const char *app, const char *const *args, const char *config,
                          const char *cwd, const char *const *extra_env, int code) {
  g_autofree char *dll = itest_app(app);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)host);
  g_ptr_array_add(argv, dll);
  for (const char *const *a = args; a && *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);

  g_autoptr(GPtrArray) penv = g_ptr_array_new();
  for (const char *const *e = plain_env; *e; e++)
    g_ptr_array_add(penv, (gpointer)*e);
  for (const char *const *e = extra_env; e && *e; e++)
    g_ptr_array_add(penv, (gpointer)*e);
  g_ptr_array_add(penv, NULL);
  g_autoptr(ItestRun) plain =
      itest_run((const char *const *)argv->pdata, (const char *const *)penv->pdata, cwd, TIMEOUT);
  itest_assert_exit(plain, code);

  g_auto(GStrv) env = profiled_env(config, extra_env);
  ItestRun *profiled = itest_run((const char *const *)argv->pdata, (const char *const *)env, cwd, TIMEOUT);
  itest_assert_exit(profiled, code);
  /* The profiler writes nothing on the program's stdout or stderr, whatever happens. */
  g_assert_cmpstr(profiled->out, ==, plain->out);
  g_assert_cmpstr(profiled->err, ==, plain->err);
  return profiled;
}

/* The log a profile prefix gets by default: <prefix>.log. "" when it was never written. */
static char *prefix_log(const char *output) {
  g_autofree char *path = g_strconcat(output, ".log", NULL);
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return g_strdup("");
  return text;
}

/* The log of a process that fell back to its default output, ./sxsprof-<pid>.log in dir; its
 * path in *ret_path. "" when there is none. */
static char *fallback_log(const char *dir, char **ret_path) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *n; d && (n = g_dir_read_name(d));) {
    if (g_str_has_prefix(n, "sxsprof-") && g_str_has_suffix(n, ".log")) {
      g_autofree char *path = g_build_filename(dir, n, NULL);
      char *text = NULL;
      g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
      if (ret_path)
        *ret_path = g_steal_pointer(&path);
      return text;
    }
  }
  return g_strdup("");
}

/* A config; inventory: list every function compiled or taken precompiled ([profiler]
 * inventory=true), for the scenarios that check the functions of the profile. */
static char *config_text(const char *mode, const char *runtime, const char *output, const char *log,
                         gboolean inventory) {
  GString *s = g_string_new("[profiler]\n");
  if (inventory)
    g_string_append(s, "inventory=true\n");
  if (mode)
    g_string_append_printf(s, "mode=%s\n", mode);
  if (runtime)
    g_string_append_printf(s, "runtime=%s\n", runtime);
  if (output)
    g_string_append_printf(s, "output=%s\n", output);
  if (log)
    g_string_append_printf(s, "log=%s\n", log);
  return g_string_free(s, FALSE);
}

static const char *member_string(JsonObject *o, const char *name) {
  g_assert_true(json_object_has_member(o, name));
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_NULL(n) ? NULL : json_node_get_string(n);
}

/* Counts the lines of text that contain `needle`. */
static guint count_lines(const char *text, const char *needle) {
  guint n = 0;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++)
    n += strstr(*l, needle) != NULL;
  return n;
}

/* The document-level fields every profile has. */
static void assert_document(JsonNode *doc, const char *mode, guint runtimes) {
  JsonObject *o = json_node_get_object(doc);
  g_assert_cmpstr(member_string(o, "format"), ==, "sxsprof");
  g_assert_cmpint(json_object_get_int_member(o, "version"), ==, 2);
  g_assert_cmpint(json_object_get_int_member(o, "pid"), >, 1);
  g_assert_cmpstr(member_string(o, "mode"), ==, mode);
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, runtimes);
}

/* The Counts app's own methods with their module. A method the run never called was never
 * compiled and must not be listed: Fail runs only when exceptions > 0, Run only when threads > 0. */
static void assert_counts_functions(JsonObject *rt, gboolean threw, gboolean threaded) {
  static const char *const always[] = {"Sxs.Tests.Counts.Main", "Sxs.Tests.Counts.Collect",
                                       "Sxs.Tests.Counts.Worker.ThrowAndCatch"};
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  for (guint i = 0; i < G_N_ELEMENTS(always); i++)
    g_ptr_array_add(names, (gpointer)always[i]);
  if (threw)
    g_ptr_array_add(names, "Sxs.Tests.Counts.Worker.Fail");
  else
    g_assert_null(itest_runtime_function(rt, "Sxs.Tests.Counts.Worker.Fail"));
  if (threaded)
    g_ptr_array_add(names, "Sxs.Tests.Counts.Worker.Run");
  else
    g_assert_null(itest_runtime_function(rt, "Sxs.Tests.Counts.Worker.Run"));
  for (guint i = 0; i < names->len; i++) {
    const char *name = names->pdata[i];
    JsonObject *fn = itest_runtime_function(rt, name);
    if (!fn)
      g_test_message("missing function %s", name);
    g_assert_nonnull(fn);
    g_assert_cmpstr(member_string(fn, "module"), ==, "Counts.dll");
    g_assert_cmpint(json_object_get_int_member(fn, "jit_compiled"), >=, 1);
  }
  /* Nothing of another app, and no runtime-internal name mangled into the app's namespace. */
  g_assert_null(itest_runtime_function(rt, "Sxs.Demo.Primes.Sieve"));
}

/* Starts a scenario's log afresh: every process appends to <prefix>.log. */
static void clear_log(Fixture *f) {
  g_autofree char *path = g_strconcat(f->output, ".log", NULL);
  g_unlink(path);
}

static void check_counts(Fixture *f, const char *host, const char *const *extra_env, const char *exceptions,
                         const char *gcs, const char *threads, const char *expect_version) {
  clear_log(f);
  g_autofree char *cfg_text = config_text("pick-all", NULL, f->output, NULL, TRUE);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  const char *args[] = {exceptions, gcs, threads, NULL};
  g_autoptr(ItestRun) run = run_both(host, "Counts", args, cfg, f->dir, extra_env, 0);
  g_autofree char *line = g_strdup_printf("counts exceptions=%s gcs=%s threads=%s\n", exceptions, gcs, threads);
  g_assert_cmpstr(run->out, ==, line);

  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  assert_document(doc, "pick-all", 1);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_nonnull(rt);
  g_assert_cmpstr(member_string(rt, "status"), ==, "profiling");
  g_assert_cmpstr(member_string(rt, "version"), ==, expect_version);
  g_assert_true(g_str_has_suffix(member_string(rt, "path"), "/libcoreclr.so"));
  g_assert_true(g_file_test(member_string(rt, "path"), G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, g_ascii_strtoll(exceptions, NULL, 10));
  g_assert_cmpint(itest_runtime_counter(rt, "gcs"), ==, g_ascii_strtoll(gcs, NULL, 10));
  /* The app's threads plus the runtime's own (main, finalizer, ...). */
  g_assert_cmpint(itest_runtime_counter(rt, "threads_created"), >=, g_ascii_strtoll(threads, NULL, 10) + 1);
  g_assert_cmpint(itest_runtime_counter(rt, "modules_loaded"), >=, 2);
  g_assert_cmpint(itest_runtime_counter(rt, "jit_compiled"), >=, 5);
  assert_counts_functions(rt, !g_str_equal(exceptions, "0"), !g_str_equal(threads, "0"));
  /* The profiler says where the profile went, and nothing else, in its log beside the profile;
   * every line names the process. */
  g_assert_cmpstr(run->err, ==, "");
  g_autofree char *log = prefix_log(f->output);
  g_assert_cmpuint(count_lines(log, "sxsprof["), ==, 1);
  g_assert_nonnull(strstr(log, f->profile));
}

static void test_counts_exact(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *version = NULL, *folder = NULL;
  sdk_runtime(&version, &folder);
  check_counts(f, itest_env("SXS_DOTNET"), NULL, "7", "3", "2", version);
}

static void test_counts_other_numbers(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *version = NULL, *folder = NULL;
  sdk_runtime(&version, &folder);
  check_counts(f, itest_env("SXS_DOTNET"), NULL, "0", "0", "0", version);
  g_unlink(f->profile);
  check_counts(f, itest_env("SXS_DOTNET"), NULL, "23", "5", "4", version);
}

static void test_counts_core20(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *host = g_build_filename(itest_env("SXS_RUNTIMES_DIR"), "dotnet", NULL);
  g_assert_true(g_file_test(host, G_FILE_TEST_IS_EXECUTABLE));
  const char *env[] = {"CLR_ICU_VERSION_OVERRIDE=72", NULL};
  check_counts(f, host, env, "7", "3", "2", "2.0.0");
}

static void test_exit_codes(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *cfg_text = config_text(NULL, NULL, f->output, NULL, TRUE);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  const char *by_return[] = {"7", NULL};
  g_autoptr(ItestRun) a = run_both(itest_env("SXS_DOTNET"), "ExitCode", by_return, cfg, f->dir, NULL, 7);
  g_assert_cmpstr(a->out, ==, "exiting with 7\n");
  g_assert_true(g_file_test(f->profile, G_FILE_TEST_IS_REGULAR));
  g_unlink(f->profile);

  /* Environment.Exit ends the process from managed code: the exit-time writer still runs. */
  const char *by_exit[] = {"42", "exit", NULL};
  g_autoptr(ItestRun) b = run_both(itest_env("SXS_DOTNET"), "ExitCode", by_exit, cfg, f->dir, NULL, 42);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  assert_document(doc, "pick-all", 1);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_cmpstr(member_string(rt, "status"), ==, "profiling");
  g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.ExitCode.Main"));
}

/* pick-one over the one runtime there is: a selector that does not match declines it, the app
 * runs unprofiled, and the profile says why in one line. */
static void check_pick_one(Fixture *f, const char *selector, gboolean expect_profiled) {
  clear_log(f);
  g_autofree char *cfg_text = config_text("pick-one", selector, f->output, NULL, FALSE);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  const char *args[] = {"3", "1", "1", NULL};
  g_autoptr(ItestRun) run = run_both(itest_env("SXS_DOTNET"), "Counts", args, cfg, f->dir, NULL, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  assert_document(doc, "pick-one", 1);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  if (expect_profiled) {
    g_assert_cmpstr(member_string(rt, "status"), ==, "profiling");
    g_assert_null(member_string(rt, "reason"));
    g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 3);
    g_autofree char *log = prefix_log(f->output);
    g_assert_cmpuint(count_lines(log, "declined"), ==, 0);
  } else {
    g_assert_cmpstr(member_string(rt, "status"), ==, "declined");
    const char *reason = member_string(rt, "reason");
    g_assert_nonnull(reason);
    g_assert_nonnull(strstr(reason, "pick-one"));
    g_assert_nonnull(strstr(reason, "does not match"));
    g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 0);
    g_assert_cmpint(itest_runtime_counter(rt, "jit_compiled"), ==, 0);
    g_autofree char *log = prefix_log(f->output);
    g_assert_cmpuint(count_lines(log, "declined"), ==, 1);
    g_assert_nonnull(strstr(log, reason));
  }
}

static void test_pick_one_version(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *version = NULL, *folder = NULL;
  sdk_runtime(&version, &folder);
  g_auto(GStrv) parts = g_strsplit(version, ".", -1);
  check_pick_one(f, parts[0], TRUE); /* "10" */
  g_unlink(f->profile);
  check_pick_one(f, version, TRUE); /* "10.0.12" */
  g_unlink(f->profile);
  check_pick_one(f, "2.0", FALSE);
  g_unlink(f->profile);
  check_pick_one(f, "1", FALSE); /* a prefix of "10" as text, not as a version */
}

static void test_pick_one_path(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *version = NULL, *folder = NULL;
  sdk_runtime(&version, &folder);
  check_pick_one(f, folder, TRUE);
  g_unlink(f->profile);
  g_autofree char *lib = g_build_filename(folder, "libcoreclr.so", NULL);
  check_pick_one(f, lib, TRUE);
  g_unlink(f->profile);
  g_autofree char *other =
      g_build_filename(itest_env("SXS_RUNTIMES_DIR"), "shared", "Microsoft.NETCore.App", "2.0.0", NULL);
  check_pick_one(f, other, FALSE);
}

/* pick-first with one runtime profiles it. */
static void test_pick_first(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *cfg_text = config_text("pick-first", NULL, f->output, NULL, FALSE);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  const char *args[] = {"2", "0", "0", NULL};
  g_autoptr(ItestRun) run = run_both(itest_env("SXS_DOTNET"), "Counts", args, cfg, f->dir, NULL, 0);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  assert_document(doc, "pick-first", 1);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_cmpstr(member_string(rt, "status"), ==, "profiling");
  g_assert_cmpint(itest_runtime_counter(rt, "exceptions"), ==, 2);
}

/* A bad config: one precise line in the log (never on the program's stderr), the app unchanged,
 * and no profile written. */
typedef struct {
  const char *name;
  const char *text;   /* written to dir/bad.conf; NULL: see `path` */
  const char *path;   /* used instead of a written file ("DIR" = the scratch folder itself) */
  const char *expect; /* substring of the one message */
} BadConfig;

static const BadConfig bad_configs[] = {
    {"missing-file", NULL, "/nonexistent/sxsprof.conf", "/nonexistent/sxsprof.conf"},
    {"directory", NULL, "DIR", "is a folder"},
    {"syntax", "[profiler]\nmode pick-all\n", NULL, ":2:"},
    {"unknown-mode", "[profiler]\nmode=pick-some\n", NULL, "pick-some"},
    {"unknown-key", "[profiler]\nmdoe=pick-all\n", NULL, "mdoe"},
    {"empty-runtime", "[profiler]\nmode=pick-one\nruntime=\n", NULL, ":3:"},
    {"nonsense-runtime", "[profiler]\nmode=pick-one\nruntime=ten\n", NULL, "ten"},
    {"pick-one-without-runtime", "[profiler]\nmode=pick-one\n", NULL, "runtime"},
};

static void test_bad_config(Fixture *f, gconstpointer data) {
  const BadConfig *bc = data;
  g_autofree char *path = NULL;
  if (bc->text)
    path = itest_write_file(f->dir, "bad.conf", bc->text);
  else if (g_str_equal(bc->path, "DIR"))
    path = g_strdup(f->dir);
  else
    path = g_strdup(bc->path);
  const char *args[] = {"4", "1", "1", NULL};
  g_autoptr(ItestRun) run = run_both(itest_env("SXS_DOTNET"), "Counts", args, path, f->dir, NULL, 0);
  g_assert_cmpstr(run->out, ==, "counts exceptions=4 gcs=1 threads=1\n");
  g_assert_cmpstr(run->err, ==, "");
  g_autofree char *log = fallback_log(f->dir, NULL);
  g_assert_cmpuint(count_lines(log, "sxsprof["), ==, 1);
  if (!strstr(log, bc->expect))
    g_test_message("log: %s", log);
  g_assert_nonnull(strstr(log, bc->expect));
  g_assert_nonnull(strstr(log, "profiling is off"));
  /* Nothing written anywhere the run could have put a profile. */
  g_autoptr(GDir) d = g_dir_open(f->dir, 0, NULL);
  for (const char *n; (n = g_dir_read_name(d));)
    g_assert_false(g_str_has_suffix(n, ".json"));
}

static void test_huge_config(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(GString) big = g_string_new("[profiler]\nmode=pick-all\n");
  while (big->len < 3 * 1024 * 1024)
    g_string_append(big, "# padding padding padding padding padding padding padding padding\n");
  g_autofree char *path = itest_write_file(f->dir, "huge.conf", big->str);
  const char *args[] = {"1", "0", "0", NULL};
  g_autoptr(ItestRun) run = run_both(itest_env("SXS_DOTNET"), "Counts", args, path, f->dir, NULL, 0);
  g_autofree char *log = fallback_log(f->dir, NULL);
  g_assert_cmpuint(count_lines(log, "sxsprof["), ==, 1);
  g_assert_nonnull(strstr(log, "huge.conf"));
  g_assert_nonnull(strstr(log, "profiling is off"));
}

/* An output folder that does not exist: the profile goes to the current folder instead. */
static void test_output_fallback(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *cfg_text = config_text("pick-all", NULL, "/nonexistent-sxsprof/out/prof", NULL, FALSE);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  const char *args[] = {"5", "0", "0", NULL};
  g_autoptr(ItestRun) run = run_both(itest_env("SXS_DOTNET"), "Counts", args, cfg, f->dir, NULL, 0);
  g_autofree char *log = fallback_log(f->dir, NULL);
  g_assert_nonnull(strstr(log, "/nonexistent-sxsprof/out"));
  g_autofree char *found = NULL;
  g_autoptr(GDir) d = g_dir_open(f->dir, 0, NULL);
  for (const char *n; (n = g_dir_read_name(d));)
    if (g_str_has_prefix(n, "sxsprof-") && g_str_has_suffix(n, ".json"))
      found = g_build_filename(f->dir, n, NULL);
  g_assert_nonnull(found);
  g_assert_nonnull(strstr(log, found));
  g_autoptr(JsonNode) doc = itest_load_json(found);
  g_assert_cmpint(itest_runtime_counter(itest_profile_runtime(doc, 1), "exceptions"), ==, 5);
}

/* log= sends the profiler's lines to a file; stderr stays the app's own. */
static void test_log_file(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *log = g_build_filename(f->dir, "sxsprof.log", NULL);
  g_autofree char *cfg_text = config_text("pick-one", "2.0", f->output, log, FALSE);
  g_autofree char *cfg = itest_write_file(f->dir, "sxsprof.conf", cfg_text);
  const char *args[] = {"1", "0", "0", NULL};
  g_autoptr(ItestRun) run = run_both(itest_env("SXS_DOTNET"), "Counts", args, cfg, f->dir, NULL, 0);
  g_assert_cmpstr(run->err, ==, "");
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
  g_assert_cmpuint(count_lines(text, "declined"), ==, 1);
  g_assert_cmpuint(count_lines(text, "written to"), ==, 1);
}

/* The launcher: same stdout and exit code, a profile, a summary naming the app's methods (with
 * --inventory, which lists them). */
static void test_launcher(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Demo");
  const char *plain_argv[] = {itest_env("SXS_DOTNET"), dll, NULL};
  g_autoptr(ItestRun) plain = itest_run(plain_argv, plain_env, f->dir, TIMEOUT);
  itest_assert_exit(plain, 0);
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--inventory", "--output", f->output, "--",
                        itest_env("SXS_DOTNET"),  dll,   NULL};
  const char *env[] = {"SXSPROF_CONFIG", "SXSPROF_OUTPUT", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, env, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, plain->out);
  g_autofree char *written = g_strdup_printf("written to %s\n", f->profile);
  g_autofree char *header = g_strdup_printf(") -> %s\n", f->profile); /* the list line of the profile */
  g_assert_nonnull(strstr(run->err, written));
  g_assert_nonnull(strstr(run->err, header));
  g_assert_nonnull(strstr(run->err, "Sxs.Demo.Primes.Sieve"));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_nonnull(itest_runtime_function(rt, "Sxs.Demo.Primes.Sieve"));

  const char *report_argv[] = {itest_env("SXS_SXSPROF"), "report", f->profile, NULL};
  g_autoptr(ItestRun) report = itest_run(report_argv, NULL, f->dir, TIMEOUT);
  itest_assert_exit(report, 0);
  g_assert_nonnull(strstr(report->out, "runtime 1: "));
  g_assert_nonnull(strstr(report->out, "Demo.dll"));

  const char *bad_argv[] = {itest_env("SXS_SXSPROF"), "report", "/nonexistent.json", NULL};
  g_autoptr(ItestRun) bad = itest_run(bad_argv, NULL, f->dir, TIMEOUT);
  itest_assert_exit(bad, 1);
  g_assert_cmpuint(count_lines(bad->err, "/nonexistent.json"), ==, 1);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Fixture, NULL, itest_scratch_setup, fn, itest_scratch_teardown)
  ADD("/profiler/counts/exact", test_counts_exact);
  ADD("/profiler/counts/other-numbers", test_counts_other_numbers);
  ADD("/profiler/counts/core20", test_counts_core20);
  ADD("/profiler/exit-codes", test_exit_codes);
  ADD("/profiler/pick-one/version", test_pick_one_version);
  ADD("/profiler/pick-one/path", test_pick_one_path);
  ADD("/profiler/pick-first/single", test_pick_first);
  ADD("/profiler/config/huge", test_huge_config);
  ADD("/profiler/output/fallback", test_output_fallback);
  ADD("/profiler/log-file", test_log_file);
  ADD("/profiler/launcher", test_launcher);
#undef ADD
  for (guint i = 0; i < G_N_ELEMENTS(bad_configs); i++) {
    g_autofree char *path = g_strdup_printf("/profiler/config/bad/%s", bad_configs[i].name);
    g_test_add(path, Fixture, &bad_configs[i], itest_scratch_setup, test_bad_config, itest_scratch_teardown);
  }
  return g_test_run();
}
