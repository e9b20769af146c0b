/* runsxs end to end: several real runtimes in one process, --st and concurrent, private copies,
 * cross-runtime calls through libsxsbridge.so, bad input and apps that end the process.
 * Every case starts runsxs in a fresh process with a timeout and checks each app's own output
 * lines, the per-runtime summary lines and the exit status. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itest.h"

#define RUN_TIMEOUT 90      /* itest_run's limit for one runsxs process */
#define RUNSXS_TIMEOUT "60" /* runsxs's own --timeout, shorter so it reports first */

/* --- finding the frameworks a case expects ------------------------------------------------ */

/* The framework folders the tests know about: the SDK's and $SXS_RUNTIMES_DIR's. */
static char **framework_roots(void) {
  char real[PATH_MAX];
  const char *dotnet = itest_env("SXS_DOTNET");
  g_autofree char *dotnet_dir = g_path_get_dirname(realpath(dotnet, real) ? real : dotnet);
  char **roots = g_new0(char *, 3);
  roots[0] = g_build_filename(dotnet_dir, "shared", "Microsoft.NETCore.App", NULL);
  roots[1] = g_build_filename(itest_env("SXS_RUNTIMES_DIR"), "shared", "Microsoft.NETCore.App", NULL);
  return roots;
}

/* The newest installed framework whose version starts with the components of `prefix` ("10",
 * "8", "2.0"), as its real folder path and its version; NULL when none is installed. */
static char *find_framework(const char *prefix, char **ret_version) {
  g_auto(GStrv) roots = framework_roots();
  g_autofree char *best = NULL, *best_version = NULL;
  g_autofree char *dotted = g_strconcat(prefix, ".", NULL);
  for (char **r = roots; *r; r++) {
    g_autoptr(GDir) dir = g_dir_open(*r, 0, NULL);
    const char *name;
    while (dir && (name = g_dir_read_name(dir))) {
      if (strcmp(name, prefix) != 0 && !g_str_has_prefix(name, dotted))
        continue;
      g_autofree char *path = g_build_filename(*r, name, NULL);
      g_autofree char *lib = g_build_filename(path, "libcoreclr.so", NULL);
      if (!g_file_test(lib, G_FILE_TEST_IS_REGULAR))
        continue;
      if (best_version && itest_version_cmp(name, best_version) <= 0)
        continue;
      char real[PATH_MAX];
      g_free(best);
      g_free(best_version);
      best = g_strdup(realpath(path, real) ? real : path);
      best_version = g_strdup(name);
    }
  }
  if (best && ret_version)
    *ret_version = g_steal_pointer(&best_version);
  return g_steal_pointer(&best);
}

/* Like find_framework, but skips the test case when the runtime is missing. */
static gboolean need_framework(const char *prefix, char **ret_dir, char **ret_version) {
  char *dir = find_framework(prefix, ret_version);
  if (!dir) {
    g_autofree char *msg = g_strdup_printf("no %s runtime installed (run tests/setup.sh)", prefix);
    g_test_skip(msg);
    return FALSE;
  }
  *ret_dir = dir;
  return TRUE;
}

/* Where runsxs keeps private copy `n` of the framework in `dir`. */
static char *expected_copy(const char *dir, const char *version, int n) {
  const char *cache = g_getenv("XDG_CACHE_HOME");
  g_autofree char *home = cache && *cache && g_path_is_absolute(cache)
                              ? g_strdup(cache)
                              : g_build_filename(g_get_home_dir(), ".cache", NULL);
  g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, dir, -1);
  hash[12] = '\0';
  g_autofree char *leaf = g_strdup_printf("%s-%s-copy%d", version, hash, n);
  return g_build_filename(home, "sxsprof", "frameworks", leaf, NULL);
}

/* What Environment.Version prints on a framework version: .NET Core 2.x reports the desktop
 * CLR's 4.0.30319.42000, later versions their own version. */
static const char *environment_version(const char *version) {
  return g_str_has_prefix(version, "2.") ? "4.0.30319.42000" : version;
}

/* --- running runsxs ------------------------------------------------------------------------- */

/* Runs runsxs with --timeout and the given arguments (NULL-terminated), plus environment. */
static ItestRun *runsxs_run_env(const char *const *env, const char *const *args) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (char *)itest_env("SXS_RUNSXS"));
  g_ptr_array_add(argv, "--timeout");
  g_ptr_array_add(argv, RUNSXS_TIMEOUT);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (char *)*a);
  g_ptr_array_add(argv, NULL);
  ItestRun *run = itest_run((const char *const *)argv->pdata, env, NULL, RUN_TIMEOUT);
  g_test_message("stdout:\n%s\nstderr:\n%s", run->out, run->err);
  return run;
}

#define runsxs_run(...) runsxs_run_env(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define runsxs_run_with(env, ...) runsxs_run_env(env, (const char *const[]){__VA_ARGS__, NULL})

/* Number of lines of `text` equal to `line`. */
static guint count_lines(const char *text, const char *line) {
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint n = 0;
  for (char **l = lines; *l; l++)
    n += strcmp(*l, line) == 0;
  return n;
}

/* Lines of `text` starting with `prefix`, in order. */
static GPtrArray *lines_with_prefix(const char *text, const char *prefix) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++) {
    if (g_str_has_prefix(*l, prefix))
      g_ptr_array_add(out, g_strdup(*l));
  }
  return out;
}

static void assert_has_line(const ItestRun *run, const char *line) {
  if (count_lines(run->out, line) != 1)
    g_test_message("expected exactly once on stdout: %s", line);
  g_assert_cmpuint(count_lines(run->out, line), ==, 1);
}

static void assert_stderr_contains(const ItestRun *run, const char *text) {
  if (!strstr(run->err, text))
    g_test_message("expected on stderr: %s", text);
  g_assert_nonnull(strstr(run->err, text));
}

/* Asserts the summary: exactly `count` lines, line i equal to expected[i], and they are the last
 * lines of stdout. */
static void assert_summary(const ItestRun *run, const char *const *expected, guint count) {
  g_autoptr(GPtrArray) got = lines_with_prefix(run->out, "runsxs: [");
  g_assert_cmpuint(got->len, ==, count);
  for (guint i = 0; i < count; i++)
    g_assert_cmpstr(got->pdata[i], ==, expected[i]);
  g_autofree char *last = g_strconcat(expected[count - 1], "\n", NULL);
  g_assert_true(g_str_has_suffix(run->out, last));
}

/* One runtime of a hello scenario: which framework, which folder it must run from. */
typedef struct {
  char *version;
  char *dir;  /* folder runsxs must load it from */
  char *args; /* SxsHello's arguments, also printed back */
  int exit_code;
} Hello;

/* Up to four runtimes of a scenario, cleared automatically (g_auto). */
typedef struct {
  Hello h[4];
} HelloSet;

static void hello_set_clear(HelloSet *set) {
  for (guint i = 0; i < G_N_ELEMENTS(set->h); i++) {
    g_free(set->h[i].version);
    g_free(set->h[i].dir);
    g_free(set->h[i].args);
  }
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(HelloSet, hello_set_clear)

/* Checks every runtime's two SxsHello lines and the summary of a hello scenario. */
static void assert_hello_run(const ItestRun *run, const Hello *hello, guint count) {
  g_autoptr(GPtrArray) summary = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < count; i++) {
    const Hello *h = &hello[i];
    g_auto(GStrv) words = g_strsplit(h->args, " ", -1);
    g_autofree char *joined = g_strjoinv(",", words);
    g_autofree char *hello_line = g_strdup_printf("hello from %s args=%s", environment_version(h->version), joined);
    assert_has_line(run, hello_line);
    g_autofree char *marker = g_strdup_printf("runtime-marker=%s/System.Private.CoreLib.dll", h->dir);
    assert_has_line(run, marker);
    g_ptr_array_add(summary, g_strdup_printf("runsxs: [%u] %s %s exit=%d", i + 1, h->version, h->dir, h->exit_code));
  }
  assert_summary(run, (const char *const *)summary->pdata, count);
}

/* --- mixed versions, --st and concurrent -------------------------------------------------- */

/* A scenario: runtime prefixes; "10c" means the 10 framework again (a private copy). */
typedef struct {
  const char *name;
  const char *runtimes[4];
} Mix;

static const Mix mixes[] = {
    {"10+2.0", {"10", "2.0"}},
    {"10+10copy", {"10", "10c"}},
    {"10+10copy+2.0", {"10", "10c", "2.0"}},
    {"10+8", {"10", "8"}},
};

typedef struct {
  const Mix *mix;
  gboolean single_thread;
} MixCase;

static void test_mix(gconstpointer data) {
  const MixCase *mc = data;
  g_autofree char *app = itest_app("SxsHello");
  g_auto(HelloSet) set = {0};
  Hello *hello = set.h;
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  if (mc->single_thread)
    g_ptr_array_add(argv, "--st");
  guint count = 0;
  for (; count < G_N_ELEMENTS(mc->mix->runtimes) && mc->mix->runtimes[count]; count++) {
    const char *spec = mc->mix->runtimes[count];
    gboolean copy = strcmp(spec, "10c") == 0;
    Hello *h = &hello[count];
    if (!need_framework(copy ? "10" : spec, &h->dir, &h->version))
      return;
    if (copy) {
      char *copy_dir = expected_copy(h->dir, h->version, 1);
      g_free(h->dir);
      h->dir = copy_dir;
    }
    /* Distinct arguments per runtime, so each app's lines can be told apart. */
    h->args = g_strdup_printf("0 rt%u", count + 1);
    g_ptr_array_add(argv, copy ? "10" : (char *)spec);
    g_ptr_array_add(argv, app);
    g_ptr_array_add(argv, h->args);
  }
  g_ptr_array_add(argv, NULL);
  g_autoptr(ItestRun) run = runsxs_run_env(NULL, (const char *const *)argv->pdata);
  itest_assert_exit(run, 0);
  assert_hello_run(run, hello, count);
}

/* The process exits with the first non-zero app exit code in command-line order, not the
 * first one to finish. */
static void test_exit_code_order(void) {
  g_autofree char *app = itest_app("SxsHello");
  g_auto(HelloSet) set = {0};
  Hello *hello = set.h;
  if (!need_framework("10", &hello[0].dir, &hello[0].version) ||
      !need_framework("2.0", &hello[1].dir, &hello[1].version) ||
      !need_framework("8", &hello[2].dir, &hello[2].version))
    return;
  hello[0].args = g_strdup("0");
  hello[1].args = g_strdup("sleep 300 5");
  hello[1].exit_code = 5;
  hello[2].args = g_strdup("6");
  hello[2].exit_code = 6;
  g_autoptr(ItestRun) run = runsxs_run("10", app, "0", "2.0", app, "sleep 300 5", "8", app, "6");
  itest_assert_exit(run, 5);
  /* SxsHello prints its arguments joined by ',': "sleep,300,5". */
  assert_hello_run(run, hello, 3);
}

/* A private copy is reused by the next run, and a damaged one is detected and rebuilt. */
static void test_copy_cache(void) {
  g_autofree char *app = itest_app("SxsHello");
  g_autofree char *dir = NULL, *version = NULL;
  if (!need_framework("2.0", &dir, &version))
    return;
  g_autofree char *tmp = itest_tmpdir();
  g_autofree char *cache_env = g_strconcat("XDG_CACHE_HOME=", tmp, NULL);
  const char *env[] = {cache_env, NULL};
  g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, dir, -1);
  hash[12] = '\0';
  g_autofree char *leaf = g_strdup_printf("%s-%s-copy1", version, hash);
  g_autofree char *copy = g_build_filename(tmp, "sxsprof", "frameworks", leaf, NULL);
  g_autofree char *made = g_strdup_printf("made a private copy of %s in %s", dir, copy);
  g_autofree char *line2 = g_strdup_printf("runsxs: [2] %s %s exit=0", version, copy);

  /* First run: the copy is made. */
  {
    g_autoptr(ItestRun) run = runsxs_run_with(env, "2.0", app, "", "2.0", app, "");
    itest_assert_exit(run, 0);
    assert_stderr_contains(run, made);
    assert_has_line(run, line2);
    g_autofree char *marker = g_strdup_printf("runtime-marker=%s/System.Private.CoreLib.dll", copy);
    assert_has_line(run, marker);
  }
  /* Second run: reused, nothing copied. */
  {
    g_autoptr(ItestRun) run = runsxs_run_with(env, "2.0", app, "", "2.0", app, "");
    itest_assert_exit(run, 0);
    g_assert_null(strstr(run->err, "made a private copy"));
    assert_has_line(run, line2);
  }
  /* A partial copy (completion marker missing, a file gone) is rebuilt. */
  {
    g_autofree char *marker_file = g_build_filename(copy, ".runsxs-copy-complete", NULL);
    g_autofree char *corelib = g_build_filename(copy, "System.Private.CoreLib.dll", NULL);
    g_assert_cmpint(unlink(marker_file), ==, 0);
    g_assert_cmpint(unlink(corelib), ==, 0);
    g_autoptr(ItestRun) run = runsxs_run_with(env, "2.0", app, "", "2.0", app, "");
    itest_assert_exit(run, 0);
    assert_stderr_contains(run, made);
    assert_has_line(run, line2);
    g_assert_true(g_file_test(corelib, G_FILE_TEST_IS_REGULAR));
  }
  /* A stale copy (its marker describes another source state) is rebuilt too. */
  {
    g_autofree char *marker_file = g_build_filename(copy, ".runsxs-copy-complete", NULL);
    g_autofree char *stale = itest_write_file(copy, ".runsxs-copy-complete", "runsxs framework copy 1\nstale\n");
    g_autoptr(ItestRun) run = runsxs_run_with(env, "2.0", app, "", "2.0", app, "");
    itest_assert_exit(run, 0);
    assert_stderr_contains(run, made);
    g_autofree char *text = NULL;
    g_assert_true(g_file_get_contents(marker_file, &text, NULL, NULL));
    g_assert_nonnull(strstr(text, "digest="));
  }
  itest_rmtree(tmp);
}

/* --- the bridge ----------------------------------------------------------------------------- */

/* Twice() computed in the other runtime, both directions, concurrent start. */
static void test_bridge_twice(gconstpointer data) {
  gboolean single_thread = GPOINTER_TO_INT(data);
  g_autofree char *app = itest_app("SxsBridge");
  g_autofree char *d10 = NULL, *v10 = NULL, *d2 = NULL, *v2 = NULL;
  if (!need_framework("10", &d10, &v10) || !need_framework("2.0", &d2, &v2))
    return;
  g_autoptr(ItestRun) run = single_thread ? runsxs_run("--st", "10", app, "", "2.0", app, "twice 1 21")
                                          : runsxs_run("10", app, "twice 2 21", "2.0", app, "twice 1 5");
  itest_assert_exit(run, 0);
  if (single_thread) {
    /* Runtime 1 has finished its Main but is not shut down yet: runtime 2 can still call it. */
    assert_has_line(run, "bridge ready");
    assert_has_line(run, "bridge twice(21) in runtime 1 = 42");
  } else {
    assert_has_line(run, "bridge twice(21) in runtime 2 = 42");
    assert_has_line(run, "bridge twice(5) in runtime 1 = 10");
  }
  g_autofree char *l1 = g_strdup_printf("runsxs: [1] %s %s exit=0", v10, d10);
  g_autofree char *l2 = g_strdup_printf("runsxs: [2] %s %s exit=0", v2, d2);
  assert_summary(run, (const char *const[]){l1, l2}, 2);
}

/* Each runtime has its own statics: Count() called 3 times in runtime 1 from runtime 2 while
 * runtime 1's own Main never calls it. */
static void test_bridge_count(void) {
  g_autofree char *app = itest_app("SxsBridge");
  g_autofree char *d10 = NULL, *v10 = NULL;
  if (!need_framework("10", &d10, &v10))
    return;
  g_autoptr(ItestRun) run = runsxs_run("10", app, "", "10", app, "count 1 3");
  itest_assert_exit(run, 0);
  assert_has_line(run, "bridge count in runtime 1 = 3, here = 0");
}

/* managed A -> native -> managed B -> native -> managed A ...: every level runs in the runtime
 * it should, alternating, and the result counts the levels. */
static void test_bridge_pingpong(gconstpointer data) {
  gboolean single_thread = GPOINTER_TO_INT(data);
  g_autofree char *app = itest_app("SxsBridge");
  g_autofree char *d10 = NULL, *v10 = NULL, *d2 = NULL, *v2 = NULL;
  if (!need_framework("10", &d10, &v10) || !need_framework("2.0", &d2, &v2))
    return;
  const int depth = 7;
  /* With --st runtime 2 is not started before runtime 1 finished, so runtime 2 starts the game. */
  int first = single_thread ? 2 : 1, second = single_thread ? 1 : 2;
  g_autofree char *cmd = g_strdup_printf("pingpong %d %d %d", first, second, depth);
  g_autoptr(ItestRun) run =
      single_thread ? runsxs_run("--st", "10", app, "", "2.0", app, cmd) : runsxs_run("10", app, cmd, "2.0", app, "");
  itest_assert_exit(run, 0);
  g_autoptr(GPtrArray) pings = lines_with_prefix(run->out, "ping ");
  g_assert_cmpuint(pings->len, ==, depth + 1);
  for (int level = 0; level <= depth; level++) {
    int rt = level % 2 == 0 ? first : second;
    g_autofree char *want =
        g_strdup_printf("ping depth=%d runtime=%d corelib=%s", depth - level, rt, rt == 1 ? d10 : d2);
    g_assert_cmpstr(pings->pdata[level], ==, want);
  }
  g_autofree char *result = g_strdup_printf("pingpong depth=%d result=%d", depth, depth + 1);
  assert_has_line(run, result);
}

/* A call to a missing method or an impossible runtime index returns INT32_MIN with one message
 * (an index above the registry's size fails at once instead of waiting for a start). */
static void test_bridge_failures(void) {
  g_autofree char *app = itest_app("SxsBridge");
  g_autofree char *d10 = NULL, *v10 = NULL;
  if (!need_framework("10", &d10, &v10))
    return;
  g_autoptr(ItestRun) run = runsxs_run("10", app, "missing 2", "10", app, "twice 99 1");
  itest_assert_exit(run, 1);
  assert_has_line(run, "bridge missing = -2147483648");
  assert_has_line(run, "bridge twice(1) in runtime 99 = -2147483648");
  assert_stderr_contains(run, "sxs_bridge_call: runtime 2: coreclr_create_delegate(SxsBridge, "
                              "Sxs.Tests.SxsBridge, NoSuchMethod) failed: 0x");
  assert_stderr_contains(run, "sxs_bridge_call: no runtime 99 (indexes are 1..64)");
}

/* --- bad input: nothing starts, exit 2 ------------------------------------------------------ */

static void assert_usage_error(const ItestRun *run, const char *message) {
  itest_assert_exit(run, 2);
  g_assert_null(strstr(run->out, "hello from"));
  assert_stderr_contains(run, message);
}

static void test_bad_unknown_version(void) {
  g_autofree char *app = itest_app("SxsHello");
  g_autofree char *d10 = NULL, *v10 = NULL;
  if (!need_framework("10", &d10, &v10))
    return;
  g_autoptr(ItestRun) run = runsxs_run("10", app, "", "77.1", app, "");
  assert_usage_error(run, "runsxs: [2] no installed runtime matches version 77.1; installed: ");
  /* The message lists what is installed. */
  g_autofree char *listed = g_strdup_printf("%s (%s)", v10, d10);
  assert_stderr_contains(run, listed);
}

static void test_bad_missing_framework(void) {
  g_autofree char *app = itest_app("SxsHello");
  g_autoptr(ItestRun) run = runsxs_run("/nonexistent/Microsoft.NETCore.App/9.9.9", app, "");
  assert_usage_error(run, "runsxs: [1] framework folder /nonexistent/Microsoft.NETCore.App/9.9.9 does not exist");
}

static void test_bad_framework_without_coreclr(void) {
  g_autofree char *app = itest_app("SxsHello");
  g_autofree char *tmp = itest_tmpdir();
  g_autoptr(ItestRun) run = runsxs_run(tmp, app, "");
  g_autofree char *msg = g_strdup_printf("runsxs: [1] framework folder %s has no libcoreclr.so", tmp);
  assert_usage_error(run, msg);
  itest_rmtree(tmp);
}

static void test_bad_missing_app(void) {
  g_autofree char *d10 = NULL, *v10 = NULL;
  if (!need_framework("10", &d10, &v10))
    return;
  g_autoptr(ItestRun) run = runsxs_run("10", "/nonexistent/App.dll", "");
  assert_usage_error(run, "runsxs: [1] app /nonexistent/App.dll: no such file");
}

static void test_bad_operands(void) {
  g_autofree char *app = itest_app("SxsHello");
  {
    g_autoptr(ItestRun) run = runsxs_run("10", app);
    assert_usage_error(run, "runsxs: expected RUNTIME APP \"ARGS\" triples, got 2 operands");
  }
  {
    g_autoptr(ItestRun) run = runsxs_run("10", app, "'unterminated");
    assert_usage_error(run, "runsxs: [1] cannot split ARGS");
  }
  {
    g_autoptr(ItestRun) run = runsxs_run("--frobnicate", "10", app, "");
    assert_usage_error(run, "runsxs: unknown option --frobnicate");
  }
}

static void test_help(void) {
  const char *argv[] = {itest_env("SXS_RUNSXS"), "--help", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, NULL, 30);
  itest_assert_exit(run, 0);
  g_assert_true(g_str_has_prefix(run->out, "Usage: runsxs [--st] [--timeout SEC]"));
}

/* --- apps and runtimes that fail ---------------------------------------------------------- */

/* An exception escaping Main makes the runtime print it and abort the whole process (10.0 and
 * 2.0 alike); runsxs reports who aborted and what the others had done. */
static void test_app_throws(gconstpointer data) {
  const char *thrower = data; /* "10" or "2.0" */
  g_autofree char *app = itest_app("SxsHello");
  g_autofree char *d10 = NULL, *v10 = NULL, *d2 = NULL, *v2 = NULL;
  if (!need_framework("10", &d10, &v10) || !need_framework("2.0", &d2, &v2))
    return;
  gboolean ten_throws = strcmp(thrower, "10") == 0;
  /* --st: the other runtime ran first and finished, so its line has its exit code. */
  g_autoptr(ItestRun) run = ten_throws ? runsxs_run("--st", "2.0", app, "3", "10", app, "throw")
                                       : runsxs_run("--st", "10", app, "3", "2.0", app, "throw");
  itest_assert_exit(run, 134);
  assert_stderr_contains(run, "SxsHelloException: sxs hello unhandled");
  assert_stderr_contains(run, ten_throws ? "Unhandled exception." : "Unhandled Exception:");
  g_autofree char *who =
      g_strdup_printf("runsxs: [2] %s: the runtime aborted the process (SIGABRT", ten_throws ? v10 : v2);
  assert_stderr_contains(run, who);
  g_autofree char *l1 = g_strdup_printf("runsxs: [1] %s %s exit=3", ten_throws ? v2 : v10, ten_throws ? d2 : d10);
  g_autofree char *l2 = g_strdup_printf("runsxs: [2] %s %s exit=134", ten_throws ? v10 : v2, ten_throws ? d10 : d2);
  assert_summary(run, (const char *const[]){l1, l2}, 2);
}

/* Environment.Exit(n) calls exit(n) for the whole process: the status is n, the summary marks
 * the exiting runtime with n and a runtime still running with "none". */
static void test_app_environment_exit(void) {
  g_autofree char *app = itest_app("SxsHello");
  g_autofree char *d10 = NULL, *v10 = NULL, *d2 = NULL, *v2 = NULL;
  if (!need_framework("10", &d10, &v10) || !need_framework("2.0", &d2, &v2))
    return;
  g_autoptr(ItestRun) run = runsxs_run("10", app, "sleep 20000", "2.0", app, "exit 7");
  itest_assert_exit(run, 7);
  g_autofree char *who = g_strdup_printf("runsxs: [2] %s: the app called exit(7) (Environment.Exit): "
                                         "the whole process ends now; not finished: [1] %s",
                                         v2, v10);
  assert_stderr_contains(run, who);
  g_autofree char *l1 = g_strdup_printf("runsxs: [1] %s %s exit=none", v10, d10);
  g_autofree char *l2 = g_strdup_printf("runsxs: [2] %s %s exit=7", v2, d2);
  assert_summary(run, (const char *const[]){l1, l2}, 2);
}

/* Two runtimes from one libcoreclr.so (copying disabled): the second coreclr_initialize fails
 * with HOST_E_INVALIDOPERATION, the others still run, and the status is 125 unless an earlier
 * app failed. */
static void test_init_failure(gconstpointer data) {
  gboolean single_thread = GPOINTER_TO_INT(data);
  g_autofree char *app = itest_app("SxsHello");
  g_auto(HelloSet) set = {0};
  Hello *hello = set.h;
  if (!need_framework("2.0", &hello[0].dir, &hello[0].version) ||
      !need_framework("2.0", &hello[1].dir, &hello[1].version) ||
      !need_framework("10", &hello[2].dir, &hello[2].version))
    return;
  const char *env[] = {"RUNSXS_NO_COPY=1", NULL};
  g_autoptr(ItestRun) run = single_thread
                                ? runsxs_run_with(env, "--st", "2.0", app, "0 a", "2.0", app, "0 b", "10", app, "0 c")
                                : runsxs_run_with(env, "2.0", app, "0 a", "2.0", app, "0 b", "10", app, "0 c");
  itest_assert_exit(run, 125);
  g_autofree char *msg = g_strdup_printf("runsxs: [2] %s: coreclr_initialize failed: 0x80131022 "
                                         "(HOST_E_INVALIDOPERATION: ",
                                         hello[1].version);
  assert_stderr_contains(run, msg);
  g_autofree char *h1 = g_strdup_printf("hello from %s args=0,a", environment_version(hello[0].version));
  g_autofree char *h3 = g_strdup_printf("hello from %s args=0,c", hello[2].version);
  assert_has_line(run, h1);
  assert_has_line(run, h3);
  g_assert_null(strstr(run->out, "args=0,b"));
  g_autofree char *l1 = g_strdup_printf("runsxs: [1] %s %s exit=0", hello[0].version, hello[0].dir);
  g_autofree char *l2 = g_strdup_printf("runsxs: [2] %s %s exit=125", hello[1].version, hello[1].dir);
  g_autofree char *l3 = g_strdup_printf("runsxs: [3] %s %s exit=0", hello[2].version, hello[2].dir);
  assert_summary(run, (const char *const[]){l1, l2, l3}, 3);
}

/* --timeout: exit 124, the unfinished runtime named, the finished one reported. */
static void test_timeout(void) {
  g_autofree char *app = itest_app("SxsHello");
  g_autofree char *d10 = NULL, *v10 = NULL, *d2 = NULL, *v2 = NULL;
  if (!need_framework("10", &d10, &v10) || !need_framework("2.0", &d2, &v2))
    return;
  const char *argv[] = {itest_env("SXS_RUNSXS"), "--timeout", "2", "10", app, "sleep 60000", "2.0", app, "4", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, NULL, 30);
  g_test_message("stdout:\n%s\nstderr:\n%s", run->out, run->err);
  itest_assert_exit(run, 124);
  g_autofree char *msg = g_strdup_printf("runsxs: timed out after 2 s; not finished: [1] %s (running its app)", v10);
  assert_stderr_contains(run, msg);
  g_autofree char *l1 = g_strdup_printf("runsxs: [1] %s %s exit=none", v10, d10);
  g_autofree char *l2 = g_strdup_printf("runsxs: [2] %s %s exit=4", v2, d2);
  assert_summary(run, (const char *const[]){l1, l2}, 2);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  static MixCase cases[2 * G_N_ELEMENTS(mixes)];
  for (guint i = 0; i < G_N_ELEMENTS(mixes); i++) {
    for (int st = 0; st < 2; st++) {
      MixCase *mc = &cases[2 * i + st];
      mc->mix = &mixes[i];
      mc->single_thread = st;
      g_autofree char *path = g_strdup_printf("/runsxs/%s/%s", st ? "st" : "concurrent", mixes[i].name);
      g_test_add_data_func(path, mc, test_mix);
    }
  }
  g_test_add_func("/runsxs/exit-code-order", test_exit_code_order);
  g_test_add_func("/runsxs/copy-cache", test_copy_cache);
  g_test_add_data_func("/runsxs/bridge/twice/concurrent", GINT_TO_POINTER(0), test_bridge_twice);
  g_test_add_data_func("/runsxs/bridge/twice/st", GINT_TO_POINTER(1), test_bridge_twice);
  g_test_add_func("/runsxs/bridge/count", test_bridge_count);
  g_test_add_data_func("/runsxs/bridge/pingpong/concurrent", GINT_TO_POINTER(0), test_bridge_pingpong);
  g_test_add_data_func("/runsxs/bridge/pingpong/st", GINT_TO_POINTER(1), test_bridge_pingpong);
  g_test_add_func("/runsxs/bridge/failures", test_bridge_failures);
  g_test_add_func("/runsxs/bad/unknown-version", test_bad_unknown_version);
  g_test_add_func("/runsxs/bad/missing-framework", test_bad_missing_framework);
  g_test_add_func("/runsxs/bad/framework-without-coreclr", test_bad_framework_without_coreclr);
  g_test_add_func("/runsxs/bad/missing-app", test_bad_missing_app);
  g_test_add_func("/runsxs/bad/operands", test_bad_operands);
  g_test_add_func("/runsxs/help", test_help);
  g_test_add_data_func("/runsxs/fail/throws/10", "10", test_app_throws);
  g_test_add_data_func("/runsxs/fail/throws/2.0", "2.0", test_app_throws);
  g_test_add_func("/runsxs/fail/environment-exit", test_app_environment_exit);
  g_test_add_data_func("/runsxs/fail/init/concurrent", GINT_TO_POINTER(0), test_init_failure);
  g_test_add_data_func("/runsxs/fail/init/st", GINT_TO_POINTER(1), test_init_failure);
  g_test_add_func("/runsxs/fail/timeout", test_timeout);
  return g_test_run();
}
