/* Real programs, profiled without being changed: `dotnet build` of a project made by the SDK's
 * console template (the build host and the compiler each write their own profile), an ASP.NET
 * Core app made by the SDK's web template stopped by SIGTERM sent to the launcher, an app that
 * dies from an unhandled exception after flushed work, a program in a pipe, and every signal the
 * launcher passes on. The program's output, error output and exit status are compared with an
 * unprofiled run of the same program each time. */
#include <arpa/inet.h>
#include <math.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "itest.h"

#define TIMEOUT 300

typedef ItestScratch Fixture;

/* Nothing of a profiler the test itself may run under, and no launcher variables. */
static const char *const clean_env[] = {ITEST_NO_PROFILER_ENV,
                                        "DOTNET_CLI_TELEMETRY_OPTOUT=1",
                                        "DOTNET_NOLOGO=1",
                                        "DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1",
                                        "MSBUILDDISABLENODEREUSE=1",
                                        "DOTNET_CLI_USE_MSBUILD_SERVER=0",
                                        NULL};

static const char *member_str(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING ? json_node_get_string(n) : NULL;
}

static JsonObject *process_of(JsonNode *doc) {
  JsonObject *o = json_node_get_object(doc);
  g_assert_true(json_object_has_member(o, "process"));
  return json_object_get_object_member(o, "process");
}

/* Does the profile's command line have an argument ending in `suffix`? */
static gboolean command_has(JsonNode *doc, const char *suffix) {
  JsonArray *argv = json_object_get_array_member(process_of(doc), "command_line");
  for (guint i = 0; i < json_array_get_length(argv); i++)
    if (g_str_has_suffix(json_array_get_string_element(argv, i), suffix))
      return TRUE;
  return FALSE;
}

/* Number of functions of runtime 1 whose name contains `part` and, when given, whose module is
 * `module`. */
static guint count_functions(JsonNode *doc, const char *part, const char *module) {
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_nonnull(rt);
  JsonArray *fns = json_object_get_array_member(rt, "functions");
  guint n = 0;
  for (guint i = 0; i < json_array_get_length(fns); i++) {
    JsonObject *f = json_array_get_object_element(fns, i);
    if (strstr(member_str(f, "name"), part) && (!module || g_strcmp0(member_str(f, "module"), module) == 0))
      n++;
  }
  return n;
}

/* Text without the lines that start with `prefix` (elapsed-time lines of a build). */
static char *drop_lines(const char *text, const char *prefix) {
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GString *s = g_string_new(NULL);
  for (char **l = lines; *l; l++) {
    if (g_str_has_prefix(*l, prefix))
      continue;
    g_string_append(s, *l);
    if (l[1])
      g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}

static guint count_lines(const char *text, const char *needle) {
  guint n = 0;
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++)
    n += strstr(*l, needle) != NULL;
  return n;
}

/* The profiles in dir (not the speedscope views beside them): file name -> parsed document. */
static GHashTable *profiles_in(const char *dir) {
  GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)json_node_unref);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  for (const char *n; d && (n = g_dir_read_name(d));) {
    if (!g_str_has_suffix(n, ".json") || g_str_has_suffix(n, ".speedscope.json"))
      continue;
    g_autofree char *path = g_build_filename(dir, n, NULL);
    g_hash_table_insert(t, g_strdup(n), itest_load_json(path));
  }
  return t;
}

/* ---- dotnet build ---- */

static void test_dotnet_build(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *project = g_build_filename(itest_env("SXS_BUILD_DIR"), "real", "hello", NULL);
  g_assert_true(g_file_test(project, G_FILE_TEST_IS_DIR));
  const char *dotnet = itest_env("SXS_DOTNET");
  const char *build[] = {
      dotnet, "build", "--no-restore", "--no-incremental", "-nodeReuse:false", "-p:UseSharedCompilation=false", NULL};
  g_autoptr(ItestRun) plain = itest_run(build, clean_env, project, TIMEOUT);
  itest_assert_exit(plain, 0);
  g_assert_nonnull(strstr(plain->out, "Build succeeded."));

  const char *profiled_argv[] = {itest_env("SXS_SXSPROF"),
                                 "run",
                                 "--quiet",
                                 "--inventory",
                                 "--sample",
                                 "-o",
                                 f->output,
                                 "--",
                                 dotnet,
                                 "build",
                                 "--no-restore",
                                 "--no-incremental",
                                 "-nodeReuse:false",
                                 "-p:UseSharedCompilation=false",
                                 NULL};
  g_autoptr(ItestRun) run = itest_run(profiled_argv, clean_env, project, TIMEOUT);
  itest_assert_exit(run, 0);
  /* The build's output is the build's own, apart from how long it took. */
  g_autofree char *plain_out = drop_lines(plain->out, "Time Elapsed ");
  g_autofree char *run_out = drop_lines(run->out, "Time Elapsed ");
  g_assert_cmpstr(run_out, ==, plain_out);
  g_assert_cmpstr(run->err, ==, plain->err);

  /* At least the build host and the compiler, each in its own file, with distinct pids. */
  g_autoptr(GHashTable) profiles = profiles_in(f->dir);
  g_assert_cmpuint(g_hash_table_size(profiles), >=, 2);
  JsonNode *host = g_hash_table_lookup(profiles, "prof.json");
  g_assert_nonnull(host);
  g_assert_true(command_has(host, "build"));
  g_autoptr(GHashTable) pids = g_hash_table_new(g_direct_hash, g_direct_equal);
  JsonNode *compiler = NULL;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, profiles);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    JsonObject *proc = process_of(value);
    gint64 pid = json_object_get_int_member(proc, "pid");
    g_assert_false(g_hash_table_contains(pids, GINT_TO_POINTER((int)pid)));
    g_hash_table_add(pids, GINT_TO_POINTER((int)pid));
    if (value != host) {
      g_autofree char *expected = g_strdup_printf("prof.%" G_GINT64_FORMAT ".json", pid);
      g_assert_cmpstr(key, ==, expected);
    }
    g_assert_nonnull(member_str(proc, "run_id"));
    g_assert_cmpstr(member_str(proc, "run_id"), ==, member_str(process_of(host), "run_id"));
    if (command_has(value, "/csc") || command_has(value, "csc.dll"))
      compiler = value;
  }
  g_assert_nonnull(compiler);
  g_assert_cmpuint(count_functions(compiler, "Microsoft.CodeAnalysis.CSharp.", "Microsoft.CodeAnalysis.CSharp.dll"), >=,
                   10);

  /* One shared log, every line naming its process, one "written" line per profile. */
  g_autofree char *log_path = g_strconcat(f->output, ".log", NULL);
  g_autofree char *log = itest_read_file(log_path);
  g_auto(GStrv) lines = g_strsplit(log, "\n", -1);
  for (char **l = lines; *l && **l; l++)
    g_assert_true(g_str_has_prefix(*l, "sxsprof["));
  g_assert_cmpuint(count_lines(log, "written to "), ==, g_hash_table_size(profiles));

  /* report over the folder: each process, then everything merged. */
  const char *report_argv[] = {itest_env("SXS_SXSPROF"), "report", f->dir, NULL};
  g_autoptr(ItestRun) report = itest_run(report_argv, clean_env, NULL, 60);
  itest_assert_exit(report, 0);
  g_autofree char *count = g_strdup_printf("%u profiles, ", g_hash_table_size(profiles));
  g_assert_nonnull(strstr(report->out, count));
  g_assert_nonnull(strstr(report->out, "merged:\n"));
  g_assert_nonnull(strstr(report->out, "Microsoft.CodeAnalysis.CSharp.dll"));
  g_assert_cmpuint(count_lines(report->out, "profile " /* one header per process */), >=, 2);

  /* Where the compiler's time went by component: the JIT and the framework among them, every
   * share summing to 100 % (each printed to 0.1). */
  g_autofree char *compiler_path = NULL;
  g_hash_table_iter_init(&it, profiles);
  while (g_hash_table_iter_next(&it, &key, &value))
    if (value == compiler)
      compiler_path = g_build_filename(f->dir, key, NULL);
  const char *summary_argv[] = {itest_env("SXS_SXSPROF"), "report", compiler_path, NULL};
  g_autoptr(ItestRun) summary = itest_run(summary_argv, clean_env, NULL, 60);
  itest_assert_exit(summary, 0);
  g_test_message("%s", summary->out);
  const char *at = strstr(summary->out, "  by component (a sample counts in the component of its leaf frame):\n");
  g_assert_nonnull(at);
  g_auto(GStrv) rows = g_strsplit(strchr(strchr(at, '\n') + 1, '\n') + 1, "\n", -1);
  double shares = 0;
  guint n = 0;
  gboolean jit = FALSE, framework = FALSE;
  for (char **r = rows; *r; r++) {
    guint64 samples = 0;
    double share = 0;
    char name[64] = "";
    if (sscanf(*r, " %" G_GUINT64_FORMAT " %lf%% %63s", &samples, &share, name) != 3)
      break;
    shares += share;
    n++;
    jit |= g_str_equal(name, "JIT");
    framework |= g_str_equal(name, "framework");
  }
  g_assert_cmpuint(n, >=, 3);
  g_assert_true(jit && framework);
  g_assert_cmpfloat(fabs(shares - 100.0), <=, 0.05 * n + 1e-9);
}

/* ---- dotnet test ---- */

/* `dotnet test` of a project made by the SDK's xunit template, with one test doing measurable
 * work: three .NET processes (the CLI, vstest.console, testhost). The test platform kills testhost
 * when it has not exited shortly after the run: then its profile is rebuilt from its spool;
 * else testhost wrote it on its way out (whichever came first, the profile names the test method
 * and the work it calls). The launcher lists all three. */
static void test_dotnet_test(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *project = g_build_filename(itest_env("SXS_BUILD_DIR"), "real", "worktests", NULL);
  g_assert_true(g_file_test(project, G_FILE_TEST_IS_DIR));
  g_autofree char *folder = g_build_filename(f->dir, "out", NULL);
  g_autofree char *output = g_strconcat(folder, "/", NULL);
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run",  "--sample",   "--inventory", "-o", output, "--",
                        itest_env("SXS_DOTNET"),  "test", "--no-build", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, clean_env, project, TIMEOUT);
  g_test_message("stdout:\n%s\nstderr:\n%s", run->out, run->err);
  itest_assert_exit(run, 0);
  g_assert_nonnull(strstr(run->out, "Passed!  - Failed:     0, Passed:     1, Skipped:     0, Total:     1"));

  /* Three processes, each with its profile; testhost's rebuilt from its spool. */
  g_assert_nonnull(strstr(run->err, "sxsprof: 3 processes of the run, busiest first:\n"));
  g_assert_cmpuint(count_lines(run->err, "): 1 runtime ("), ==, 3);
  g_assert_cmpuint(count_lines(run->err, " (dotnet test --no-build): 1 runtime ("), ==, 1);
  g_assert_cmpuint(count_lines(run->err, "vstest.console.dll"), ==, 1);
  g_autoptr(GHashTable) profiles = profiles_in(folder);
  g_assert_cmpuint(g_hash_table_size(profiles), ==, 3);
  JsonNode *testhost = NULL;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, profiles);
  while (g_hash_table_iter_next(&it, &key, &value))
    if (g_str_has_prefix(key, "testhost-"))
      testhost = value;
  g_assert_nonnull(testhost);
  gint64 pid = json_object_get_int_member(process_of(testhost), "pid");
  g_autofree char *line = g_strdup_printf("sxsprof: pid %" G_GINT64_FORMAT " (", pid);
  const char *listed = strstr(run->err, line);
  g_assert_nonnull(listed);
  g_autofree char *listed_line = g_strndup(listed, strcspn(listed, "\n"));
  g_autofree char *file = g_strdup_printf("/testhost-%" G_GINT64_FORMAT ".json", pid);
  g_assert_nonnull(strstr(listed_line, file));
  g_autofree char *written = g_strdup_printf("sxsprof[%" G_GINT64_FORMAT "]: profile of 1 runtime written to ", pid);
  if (strstr(run->err, written)) {
    g_test_message("testhost exited before the test platform killed it");
    g_assert_true(g_str_has_suffix(listed_line, file));
  } else {
    g_assert_true(g_str_has_suffix(
        listed_line, ".json, rebuilt from its spool: it was killed without warning (SIGKILL, or the OOM killer)"));
  }
  g_assert_cmpuint(count_functions(testhost, "Sxs.Tests.Work.WorkTests.ComputesHashes", "worktests.dll"), ==, 1);
  g_assert_cmpuint(count_functions(testhost, "Sxs.Tests.Work.Hashes.Compute", "worktests.dll"), ==, 1);
  /* The work's samples, under the test method. */
  JsonObject *samples = json_object_get_object_member(json_node_get_object(testhost), "samples");
  JsonArray *stacks = json_object_get_array_member(samples, "stacks");
  gint64 work = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *s = json_array_get_object_element(stacks, i);
    JsonArray *frames = json_object_get_array_member(s, "frames");
    gboolean test = FALSE, compute = FALSE;
    for (guint j = 0; j < json_array_get_length(frames); j++) {
      const char *name = member_str(json_array_get_object_element(frames, j), "name");
      test |= g_strcmp0(name, "Sxs.Tests.Work.WorkTests.ComputesHashes") == 0;
      compute |= g_strcmp0(name, "Sxs.Tests.Work.Hashes.Compute") == 0;
    }
    if (test && compute)
      work += json_object_get_int_member(s, "count");
  }
  g_test_message("testhost: %" G_GINT64_FORMAT " samples of the test's work", work);
  g_assert_cmpint(work, >=, 20);
}

/* ---- ASP.NET Core ---- */

/* One GET / over loopback; the body in *ret_body. FALSE when the exchange failed. */
static gboolean http_get(int port, char **ret_body) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  struct timeval tv = {.tv_sec = 20};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  /* HTTP/1.0: the answer is not chunked and the server closes the connection after it. */
  static const char request[] = "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0 ||
      write(fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) {
    close(fd);
    return FALSE;
  }
  g_autoptr(GString) response = g_string_new(NULL);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    g_string_append_len(response, buf, n);
  close(fd);
  const char *body = strstr(response->str, "\r\n\r\n");
  if (!g_str_has_prefix(response->str, "HTTP/1.") || strncmp(response->str + 8, " 200 ", 5) != 0 || !body)
    return FALSE;
  *ret_body = g_strdup(body + 4);
  return TRUE;
}

static char *web_dll(void) {
  g_autofree char *bin = g_build_filename(itest_env("SXS_BUILD_DIR"), "real", "web", "bin", "Release", NULL);
  g_autoptr(GDir) d = g_dir_open(bin, 0, NULL);
  g_assert_nonnull(d);
  for (const char *n; (n = g_dir_read_name(d));) {
    char *dll = g_build_filename(bin, n, "web.dll", NULL);
    if (g_file_test(dll, G_FILE_TEST_IS_REGULAR))
      return dll;
    g_free(dll);
  }
  g_assert_not_reached();
}

static void test_web_sigterm(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = web_dll();
  g_autofree char *content_root = g_path_get_dirname(dll);
  g_autofree char *out = g_build_filename(f->dir, "web.out", NULL);
  g_autofree char *err = g_build_filename(f->dir, "web.err", NULL);
  const char *argv[] = {
      itest_env("SXS_SXSPROF"), "run", "--inventory", "-o", f->output, "--", itest_env("SXS_DOTNET"), dll, "--urls",
      "http://127.0.0.1:0",     NULL};
  g_autoptr(ItestProc) launcher = itest_spawn(argv, clean_env, content_root, out, err, FALSE);
  static const char listening[] = "Now listening on: http://127.0.0.1:";
  if (!itest_wait_for_text(out, listening, 120)) {
    g_autofree char *o = itest_read_file(out), *e = itest_read_file(err);
    g_test_message("stdout:\n%s\nstderr:\n%s", o, e);
  }
  g_assert_true(itest_wait_for_text(out, listening, 1));
  g_autofree char *text = itest_read_file(out);
  int port = atoi(strstr(text, listening) + strlen(listening));
  g_assert_cmpint(port, >, 0);

  for (int i = 0; i < 500; i++) {
    g_autofree char *body = NULL;
    g_assert_true(http_get(port, &body));
    g_assert_cmpstr(body, ==, "Hello World!");
  }

  /* SIGTERM to the launcher, as a supervisor would send it: the app shuts down gracefully. */
  g_assert_cmpint(kill(launcher->pid, SIGTERM), ==, 0);
  int code = itest_proc_wait(launcher, 120);
  g_autofree char *app_out = itest_read_file(out);
  g_autofree char *app_err = itest_read_file(err);
  if (code != 0)
    g_test_message("stdout:\n%s\nstderr:\n%s", app_out, app_err);
  g_assert_cmpint(code, ==, 0);
  g_assert_nonnull(strstr(app_out, "Application is shutting down..."));
  /* Everything on stderr is the launcher's, after the app ended: its list names the profile. */
  g_assert_nonnull(strstr(app_err, ": 1 runtime ("));
  g_assert_nonnull(strstr(app_err, f->profile));
  g_auto(GStrv) lines = g_strsplit(app_err, "\n", -1);
  g_assert_true(g_str_has_prefix(lines[0], "sxsprof"));

  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  g_assert_true(command_has(doc, "web.dll"));
  g_assert_cmpuint(count_functions(doc, "Microsoft.AspNetCore.Server.Kestrel.", NULL), >=, 10);
  /* The request handler, the template's MapGet("/") lambda, is named even though the JIT only
   * ever inlines it. */
  g_assert_cmpuint(count_functions(doc, "Program.<>c.<<Main>$>b__0_0", "web.dll"), ==, 1);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_true(json_object_get_boolean_member(rt, "shutdown_seen"));
}

/* ---- Unhandled exception, flush ---- */

static void assert_unhandled_profile(const char *path, gint64 started_ms) {
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  g_autoptr(JsonNode) doc = itest_load_json(path);
  g_assert_cmpuint(count_functions(doc, "Sxs.Tests.Unhandled.Work", "Unhandled.dll"), ==, 1);
  g_assert_cmpuint(count_functions(doc, "Sxs.Tests.Unhandled.Step", "Unhandled.dll"), ==, 1);
  JsonObject *proc = process_of(doc);
  g_assert_cmpint(json_object_get_int_member(proc, "pid"), >, 1);
  g_assert_cmpint(json_object_get_int_member(proc, "ppid"), >, 0);
  g_assert_true(g_str_has_suffix(member_str(proc, "executable"), "/dotnet"));
  g_assert_true(command_has(doc, "Unhandled.dll"));
  g_assert_nonnull(member_str(proc, "start_time"));
  /* Process start times have clock-tick resolution (10 ms). */
  gint64 start = json_object_get_int_member(proc, "start_unix_ms");
  g_assert_cmpint(start, >=, started_ms - 1000);
  g_assert_cmpint(start, <=, g_get_real_time() / 1000);
}

static void test_unhandled_flush(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Unhandled");
  const char *dotnet = itest_env("SXS_DOTNET");
  const char *plain_argv[] = {dotnet, dll, "2500", NULL};
  g_autoptr(ItestRun) plain = itest_run(plain_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(plain, 134);
  g_assert_cmpstr(plain->out, ==, "work done\n");
  g_assert_nonnull(strstr(plain->err, "deliberate"));

  /* Through the launcher: same status, same output; the program's stderr comes first. */
  gint64 started = g_get_real_time() / 1000;
  const char *argv[] = {
      itest_env("SXS_SXSPROF"), "run", "--inventory", "--flush", "1", "-o", f->output, "--", dotnet, dll, "2500", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(run, 134);
  g_assert_cmpstr(run->out, ==, plain->out);
  g_assert_true(g_str_has_prefix(run->err, plain->err));
  assert_unhandled_profile(f->profile, started);

  /* The profiler alone (no launcher): not one byte of its own on the program's stdout or stderr. */
  g_autofree char *prefix = g_build_filename(f->dir, "direct", NULL);
  g_autofree char *cfg_text = g_strdup_printf("[profiler]\nflush=1\ninventory=true\noutput=%s\n", prefix);
  g_autofree char *cfg = itest_write_file(f->dir, "flush.conf", cfg_text);
  g_autofree char *config_var = g_strconcat("SXSPROF_CONFIG=", cfg, NULL);
  g_autofree char *path_var = g_strconcat("CORECLR_PROFILER_PATH=", itest_env("SXS_PROFILER"), NULL);
  const char *env[] = {"SXSPROF_OUTPUT",
                       "SXSPROF_OWNER_PID",
                       "SXSPROF_RUN_ID",
                       "CORECLR_ENABLE_PROFILING=1",
                       "CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}",
                       path_var,
                       config_var,
                       "DOTNET_CLI_TELEMETRY_OPTOUT=1",
                       NULL};
  started = g_get_real_time() / 1000;
  g_autoptr(ItestRun) direct = itest_run(plain_argv, env, f->dir, TIMEOUT);
  itest_assert_exit(direct, 134);
  g_assert_cmpstr(direct->out, ==, plain->out);
  g_assert_cmpstr(direct->err, ==, plain->err);
  g_autofree char *direct_profile = g_strconcat(prefix, ".json", NULL);
  assert_unhandled_profile(direct_profile, started);
}

/* ---- Pipes ---- */

static void test_pipe(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Cat");
  g_autofree char *plain_cmd = g_strdup_printf("printf 'a\\nb\\n' | '%s' '%s' | sort", itest_env("SXS_DOTNET"), dll);
  g_autofree char *run_cmd = g_strdup_printf("printf 'a\\nb\\n' | '%s' run --inventory -- '%s' '%s' | sort",
                                             itest_env("SXS_SXSPROF"), itest_env("SXS_DOTNET"), dll);
  g_autofree char *quiet_cmd = g_strdup_printf("printf 'b\\nc\\na\\n' | '%s' run -q -- '%s' '%s' | sort",
                                               itest_env("SXS_SXSPROF"), itest_env("SXS_DOTNET"), dll);
  const char *plain_argv[] = {"/bin/sh", "-c", plain_cmd, NULL};
  const char *run_argv[] = {"/bin/sh", "-c", run_cmd, NULL};
  const char *quiet_argv[] = {"/bin/sh", "-c", quiet_cmd, NULL};
  g_autoptr(ItestRun) plain = itest_run(plain_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(plain, 0);
  g_assert_cmpstr(plain->out, ==, "a\nb\n");
  g_autoptr(ItestRun) run = itest_run(run_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, plain->out);
  g_assert_nonnull(strstr(run->err, "Sxs.Tests.Cat.CopyLine"));
  g_autoptr(ItestRun) quiet = itest_run(quiet_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(quiet, 0);
  g_assert_cmpstr(quiet->out, ==, "a\nb\nc\n");
  g_assert_cmpstr(quiet->err, ==, "");
}

/* ---- Signals sent to the launcher ---- */

static void test_signal(Fixture *f, gconstpointer data) {
  int signo = GPOINTER_TO_INT(data);
  g_autofree char *dll = itest_app("Unhandled");
  const char *dotnet = itest_env("SXS_DOTNET");
  /* Work long enough that only the signal ends it; sent once the runtime is well under way. */
  const char *plain_argv[] = {dotnet, dll, "20000", NULL};
  g_autoptr(ItestRun) plain = itest_run_signal(plain_argv, clean_env, f->dir, TIMEOUT, 2000, signo);
  g_assert_false(plain->timed_out);
  g_assert_cmpint(plain->exit_code, >, 128);
  g_assert_cmpint(plain->exit_code, !=, 134);
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "-q", "-o", f->output, "--", dotnet, dll, "20000", NULL};
  g_autoptr(ItestRun) run = itest_run_signal(argv, clean_env, f->dir, TIMEOUT, 2000, signo);
  g_assert_false(run->timed_out);
  g_assert_cmpint(run->exit_code, ==, plain->exit_code);
  g_assert_cmpstr(run->out, ==, plain->out);
}

/* ---- Launcher options ---- */

static void test_bad_config(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Counts");
  g_autofree char *cfg = itest_write_file(f->dir, "bad.conf", "[profiler]\nmode=pick-some\n");
  const char *argv[] = {
      itest_env("SXS_SXSPROF"), "run", "--config", cfg, "--", itest_env("SXS_DOTNET"), dll, "1", "0", "0", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(run, 2);
  g_assert_cmpstr(run->out, ==, "");
  g_autofree char *expected =
      g_strdup_printf("sxsprof: %s:2: unknown mode \"pick-some\" (did you mean pick-one?); expected pick-first, "
                      "pick-one or pick-all; the program was not started\n",
                      cfg);
  g_assert_cmpstr(run->err, ==, expected);

  const char *opt_argv[] = {itest_env("SXS_SXSPROF"), "run", "--mode", "pick-one", "--",
                            itest_env("SXS_DOTNET"),  dll,   NULL};
  g_autoptr(ItestRun) opt = itest_run(opt_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(opt, 2);
  g_assert_cmpuint(count_lines(opt->err, "sxsprof: "), ==, 1);
  g_assert_nonnull(strstr(opt->err, "sxsprof: bad option: mode=pick-one needs a runtime= line"));

  const char *flush_argv[] = {itest_env("SXS_SXSPROF"), "run", "--flush", "soon", "--",
                              itest_env("SXS_DOTNET"),  dll,   NULL};
  g_autoptr(ItestRun) flush = itest_run(flush_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(flush, 2);
  g_assert_nonnull(strstr(flush->err, "flush=\"soon\" is not a whole number of seconds"));

  /* An output folder that cannot be made (a file stands in its way) stops the run before it
   * starts; one that does not exist yet is made, as mkdir -p would. */
  g_autofree char *blocker = itest_write_file(f->dir, "blocker", "");
  g_autofree char *blocked = g_build_filename(blocker, "sub", "x", NULL);
  const char *missing_argv[] = {itest_env("SXS_SXSPROF"), "run", "-o", blocked, "--",
                                itest_env("SXS_DOTNET"),  dll,   NULL};
  g_autoptr(ItestRun) missing = itest_run(missing_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(missing, 2);
  g_autofree char *expected_missing = g_strdup_printf(
      "sxsprof: cannot create the output folder %s/sub: Not a directory; the program was not started\n", blocker);
  g_assert_cmpstr(missing->err, ==, expected_missing);
  /* No profile anywhere: nothing ran. */
  g_autoptr(GHashTable) profiles = profiles_in(f->dir);
  g_assert_cmpuint(g_hash_table_size(profiles), ==, 0);
}

/* output= a folder: <folder>/<program>-<pid>.json and <folder>/sxsprof.log; the folder and its
 * parents are made when they do not exist. */
static void test_output_folder(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Counts");
  g_autofree char *folder = g_build_filename(f->dir, "new", "profiles", NULL);
  g_autofree char *output = g_strconcat(folder, "/", NULL);
  const char *argv[] = {
      itest_env("SXS_SXSPROF"), "run", "-o", output, "--", itest_env("SXS_DOTNET"), dll, "3", "0", "0", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, "counts exceptions=3 gcs=0 threads=0\n");
  g_autoptr(GHashTable) profiles = profiles_in(folder);
  g_assert_cmpuint(g_hash_table_size(profiles), ==, 1);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, profiles);
  g_assert_true(g_hash_table_iter_next(&it, &key, &value));
  gint64 pid = json_object_get_int_member(process_of(value), "pid");
  g_autofree char *expected = g_strdup_printf("Counts-%" G_GINT64_FORMAT ".json", pid);
  g_assert_cmpstr(key, ==, expected);
  g_assert_cmpint(itest_runtime_counter(itest_profile_runtime(value, 1), "exceptions"), ==, 3);
  g_autofree char *log_path = g_build_filename(folder, "sxsprof.log", NULL);
  g_autofree char *log = itest_read_file(log_path);
  g_autofree char *line =
      g_strdup_printf("sxsprof[%" G_GINT64_FORMAT "]: profile of 1 runtime written to %s/%s\n", pid, folder, expected);
  g_assert_cmpstr(log, ==, line);
  /* The launcher relayed the log and listed the profile. */
  g_assert_true(g_str_has_prefix(run->err, line));
  g_assert_nonnull(strstr(run->err, expected));
}

/* A starter that runs its work in a child (`dotnet Starter.dll` starting `dotnet Starter.dll work`):
 * the busiest process is listed, summarised and pointed to first, and the starter is named as
 * one that only waited for it. */
static void test_starter(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Starter");
  g_autofree char *folder = g_build_filename(f->dir, "out", NULL);
  g_autofree char *output = g_strconcat(folder, "/", NULL);
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "-o", output, "--",
                        itest_env("SXS_DOTNET"),  dll,   "1.5",      NULL};
  g_autoptr(ItestRun) run = itest_run(argv, clean_env, f->dir, TIMEOUT);
  g_test_message("stdout:\n%s\nstderr:\n%s", run->out, run->err);
  itest_assert_exit(run, 0);
  int child = 0, starter = 0;
  const char *at = strstr(run->out, "starter child=");
  g_assert_nonnull(at);
  g_assert_cmpint(sscanf(at, "starter child=%d", &child), ==, 1);
  g_autoptr(GHashTable) profiles = profiles_in(folder);
  g_assert_cmpuint(g_hash_table_size(profiles), ==, 2);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, profiles);
  while (g_hash_table_iter_next(&it, &key, &value))
    if (json_object_get_int_member(process_of(value), "pid") != child)
      starter = (int)json_object_get_int_member(process_of(value), "pid");
  g_assert_cmpint(starter, >, 0);

  /* The child first, then the starter, named as such. */
  g_autofree char *first = g_strdup_printf("sxsprof: 2 processes of the run, busiest first:\n"
                                           "sxsprof: pid %d (dotnet Starter.dll work 1.5): 1 runtime (",
                                           child);
  g_assert_nonnull(strstr(run->err, first));
  g_autofree char *waited =
      g_strdup_printf("sxsprof:   pid %d only started pid %d and waited for it (", starter, child);
  g_assert_nonnull(strstr(run->err, waited));
  /* The summary is the child's: its hot function tops the table by self. */
  g_autofree char *summary = g_strdup_printf("\npid %d: ", child);
  const char *sum = strstr(run->err, summary);
  g_assert_nonnull(sum);
  const char *self = strstr(sum, "top 10 by self:\n");
  g_assert_nonnull(self);
  const char *row = strchr(strchr(self, '\n') + 1, '\n') + 1; /* past the column headings */
  g_autofree char *top = g_strndup(row, strcspn(row, "\n"));
  g_assert_true(g_str_has_suffix(top, "Sxs.Starter.Work.Hot"));
  g_autofree char *graph = g_strdup_printf("sxsprof: flame graph: %s/Starter-%d.svg\n", folder, child);
  g_assert_nonnull(strstr(run->err, graph));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
#define ADD(path, fn, data) g_test_add(path, Fixture, data, itest_scratch_setup, fn, itest_scratch_teardown)
  ADD("/programs/dotnet-build", test_dotnet_build, NULL);
  ADD("/programs/web/sigterm", test_web_sigterm, NULL);
  ADD("/programs/dotnet-test", test_dotnet_test, NULL);
  ADD("/programs/unhandled-exception/flush", test_unhandled_flush, NULL);
  ADD("/programs/pipe", test_pipe, NULL);
  ADD("/programs/signal/SIGINT", test_signal, GINT_TO_POINTER(SIGINT));
  ADD("/programs/signal/SIGTERM", test_signal, GINT_TO_POINTER(SIGTERM));
  ADD("/programs/signal/SIGHUP", test_signal, GINT_TO_POINTER(SIGHUP));
  ADD("/programs/signal/SIGQUIT", test_signal, GINT_TO_POINTER(SIGQUIT));
  ADD("/programs/launcher/bad-config", test_bad_config, NULL);
  ADD("/programs/launcher/output-folder", test_output_folder, NULL);
  ADD("/programs/launcher/starter", test_starter, NULL);
#undef ADD
  return g_test_run();
}
