/* Every ending keeps the profile: the Endings app (a console loop with no signal handling of its
 * own, sampled at 99 Hz) ended by SIGINT to its process group as a terminal sends it, SIGTERM to
 * the launcher, SIGHUP and SIGQUIT under `sxsprof run`; SIGTERM and SIGINT with the profiler's
 * variables only; Environment.Exit(3) from a worker thread, an unhandled exception, a P/Invoke of
 * abort() and a SIGSEGV in native code; SIGKILL, rebuilt from the spool by the launcher and by
 * `sxsprof report`. Each time: the exit status as without the profiler, samples of the loop that
 * match its CPU time, the loop's function on top, every view, and the launcher's list, exactly. */
#include <arpa/inet.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "itest.h"

#define TIMEOUT 180
#define RUN_MS 3000
#define HZ 99

typedef ItestScratch Fixture;

static const char *const clean_env[] = {ITEST_NO_PROFILER_ENV, "DOTNET_CLI_TELEMETRY_OPTOUT=1", NULL};

/* CPU time (user + system, in clock ticks of 10 ms) the main thread of process pid (the loop's)
 * used so far; -1 when gone. */
static gint64 cpu_ticks(int pid) {
  g_autofree char *path = g_strdup_printf("/proc/%d/task/%d/stat", pid, pid);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return -1;
  const char *p = strrchr(text, ')');
  g_assert_nonnull(p);
  g_auto(GStrv) f = g_strsplit(p + 2, " ", -1);
  /* After "pid (comm) ": state is field 3, utime 14 and stime 15. */
  g_assert_cmpuint(g_strv_length(f), >, 13);
  return g_ascii_strtoll(f[11], NULL, 10) + g_ascii_strtoll(f[12], NULL, 10);
}

/* The one child of the launcher (the program it runs). */
static int child_of(int pid) {
  g_autofree char *path = g_strdup_printf("/proc/%d/task/%d/children", pid, pid);
  for (int i = 0; i < 200; i++) {
    g_autofree char *text = NULL;
    if (g_file_get_contents(path, &text, NULL, NULL) && g_ascii_isdigit(text[0]))
      return (int)g_ascii_strtoll(text, NULL, 10);
    g_usleep(50 * 1000);
  }
  g_assert_not_reached();
}

/* Samples of the main thread (the loop's: its OS thread id is the pid), those of them whose leaf
 * is `leaf`, and all samples. */
static void loop_samples(JsonNode *doc, const char *leaf, gint64 *ret_loop, gint64 *ret_leaf, gint64 *ret_all) {
  JsonObject *root = json_node_get_object(doc);
  gint64 pid = json_object_get_int_member(json_object_get_object_member(root, "process"), "pid");
  JsonArray *stacks = json_object_get_array_member(json_object_get_object_member(root, "samples"), "stacks");
  gint64 loop = 0, top = 0, all = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *s = json_array_get_object_element(stacks, i);
    gint64 count = json_object_get_int_member(s, "count");
    JsonArray *frames = json_object_get_array_member(s, "frames");
    all += count;
    if (json_array_get_length(frames) > 0 &&
        g_str_equal(json_object_get_string_member(json_array_get_object_element(frames, 0), "name"), leaf))
      top += count;
    if (json_object_get_int_member(s, "os_tid") == pid)
      loop += count;
  }
  *ret_loop = loop;
  *ret_leaf = top;
  *ret_all = all;
}

/* The profile at path holds the loop's samples: within 20 % of the loop's CPU time at 99 Hz
 * (at least min_share of it when the process was killed without warning), Step on top of most. */
static void assert_loop_profile(const char *path, gint64 loop_ticks, double min_share) {
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  g_autoptr(JsonNode) doc = itest_load_json(path);
  gint64 loop = 0, step = 0, all = 0;
  loop_samples(doc, "Sxs.Tests.Endings.Step", &loop, &step, &all);
  double expected = (double)loop_ticks / 100.0 * HZ;
  g_test_message("%s: %" G_GINT64_FORMAT " loop samples (%" G_GINT64_FORMAT " in Step, %" G_GINT64_FORMAT
                 " in all) for %.0f expected",
                 path, loop, step, all, expected);
  g_assert_cmpfloat(expected, >, 20);
  g_assert_cmpfloat((double)loop, >=, expected * min_share);
  g_assert_cmpfloat((double)loop, <=, expected * 1.2 + 2);
  g_assert_cmpint(step * 2, >, all);
  g_assert_nonnull(itest_runtime_function(itest_profile_runtime(doc, 1), "Sxs.Tests.Endings.Step"));
}

/* Every view beside base, with `function` in it (the loop's by default). */
static void assert_views_of(const char *base, const char *function) {
  static const char *const suffixes[] = {".speedscope.json", ".folded", ".svg", ".pb.gz"};
  for (guint i = 0; i < G_N_ELEMENTS(suffixes); i++) {
    g_autofree char *path = g_strconcat(base, suffixes[i], NULL);
    GStatBuf st;
    g_assert_cmpint(g_stat(path, &st), ==, 0);
    g_assert_cmpint(st.st_size, >, 100);
    if (i < 3) {
      g_autofree char *text = itest_read_file(path);
      g_assert_nonnull(strstr(text, function));
    }
  }
}

static void assert_views(const char *base) {
  assert_views_of(base, "Sxs.Tests.Endings.Step");
}

static char *runtime_version(const char *profile) {
  g_autoptr(JsonNode) doc = itest_load_json(profile);
  return g_strdup(json_object_get_string_member(itest_profile_runtime(doc, 1), "version"));
}

/* Starts `sxsprof run --sample -o DIR/p -- dotnet Endings.dll ARGS` (or the program alone with
 * the profiler's variables when env is given), waits for the loop to begin, then for `ms` more. */
typedef struct {
  ItestProc *proc;
  int program; /* the dotnet process */
  gint64 loop_start_ticks;
  char *out, *err;
} Started;

static Started start(Fixture *f, const char *const *argv, const char *const *env, gboolean launcher) {
  Started s = {0};
  s.out = g_build_filename(f->dir, "out.txt", NULL);
  s.err = g_build_filename(f->dir, "err.txt", NULL);
  s.proc = itest_spawn(argv, env, f->dir, s.out, s.err, FALSE);
  s.program = launcher ? child_of(s.proc->pid) : s.proc->pid;
  g_assert_true(itest_wait_for_text(s.out, "started ", 60));
  s.loop_start_ticks = cpu_ticks(s.program);
  return s;
}

static void started_clear(Started *s) {
  itest_proc_free(s->proc);
  g_free(s->out);
  g_free(s->err);
}

static const char *signal_text(int signo) {
  switch (signo) {
  case SIGINT: return "SIGINT";
  case SIGTERM: return "SIGTERM";
  case SIGHUP: return "SIGHUP";
  case SIGQUIT: return "SIGQUIT";
  case SIGKILL: return "SIGKILL";
  case SIGABRT: return "SIGABRT";
  case SIGSEGV: return "SIGSEGV";
  default: g_assert_not_reached();
  }
}

/* How the plain program (no profiler) ends with `signo` sent after the loop began. */
static int plain_status(Fixture *f, int signo) {
  g_autofree char *dll = itest_app("Endings");
  const char *argv[] = {itest_env("SXS_DOTNET"), dll, "loop", NULL};
  Started s = start(f, argv, clean_env, FALSE);
  g_usleep(500 * 1000);
  g_assert_cmpint(kill(s.proc->pid, signo), ==, 0);
  int code = itest_proc_wait(s.proc, TIMEOUT);
  g_autofree char *out = itest_read_file(s.out);
  g_assert_cmpstr(out, ==, "started loop\n");
  started_clear(&s);
  return code;
}

/* ---- under the launcher ---- */

typedef enum { TO_GROUP, TO_LAUNCHER } Target;

static void launcher_signal(Fixture *f, int signo, Target target) {
  int plain = plain_status(f, signo);
  g_assert_cmpint(plain, ==, 128 + signo);
  g_autofree char *dll = itest_app("Endings");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "-o", f->output, "--",
                        itest_env("SXS_DOTNET"),  dll,   "loop",     NULL};
  Started s = start(f, argv, clean_env, TRUE);
  g_usleep(RUN_MS * 1000);
  gint64 ticks = cpu_ticks(s.program) - s.loop_start_ticks;
  /* A terminal's Ctrl-C reaches every process of the foreground group. */
  g_assert_cmpint(target == TO_GROUP ? kill(-s.proc->pid, signo) : kill(s.proc->pid, signo), ==, 0);
  int code = itest_proc_wait(s.proc, TIMEOUT);
  g_autofree char *out = itest_read_file(s.out);
  g_autofree char *err = itest_read_file(s.err);
  g_test_message("stderr:\n%s", err);
  g_assert_cmpint(code, ==, plain);
  g_assert_cmpstr(out, ==, "started loop\n");

  assert_loop_profile(f->profile, ticks, 0.8);
  assert_views(f->output);
  g_autofree char *spool = g_strconcat(f->output, ".spool", NULL);
  g_assert_false(g_file_test(spool, G_FILE_TEST_EXISTS));
  g_autofree char *version = runtime_version(f->profile);
  g_autofree char *listing =
      g_strdup_printf("sxsprof: 1 process of the run:\n"
                      "sxsprof: pid %d (dotnet Endings.dll loop): 1 runtime (%s) -> %s, rebuilt from its spool: it "
                      "died from %s\n",
                      s.program, version, f->profile, signal_text(signo));
  g_assert_true(g_str_has_prefix(err, listing));
  g_autofree char *views = g_strdup_printf("sxsprof: views: %s.speedscope.json, %s.folded, %s.svg, %s.pb.gz\n",
                                           f->output, f->output, f->output, f->output);
  g_assert_nonnull(strstr(err, views));
  started_clear(&s);
}

static void test_sigint_group(Fixture *f, gconstpointer data) {
  (void)data;
  launcher_signal(f, SIGINT, TO_GROUP);
}

static void test_sigterm_launcher(Fixture *f, gconstpointer data) {
  (void)data;
  launcher_signal(f, SIGTERM, TO_LAUNCHER);
}

static void test_sighup(Fixture *f, gconstpointer data) {
  (void)data;
  launcher_signal(f, SIGHUP, TO_LAUNCHER);
}

static void test_sigquit(Fixture *f, gconstpointer data) {
  (void)data;
  launcher_signal(f, SIGQUIT, TO_LAUNCHER);
}

/* Exact call tracing ended by SIGTERM under the launcher: the calls counted up to the end, and
 * the call tree, come back from the spool. */
static void test_sigterm_traced(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Endings");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--include", "Sxs.Tests.*", "-o", f->output, "--",
                        itest_env("SXS_DOTNET"),  dll,   "loop",      NULL};
  Started s = start(f, argv, clean_env, TRUE);
  g_usleep(RUN_MS * 1000);
  g_assert_cmpint(kill(s.proc->pid, SIGTERM), ==, 0);
  g_assert_cmpint(itest_proc_wait(s.proc, TIMEOUT), ==, 128 + SIGTERM);
  g_autofree char *err = itest_read_file(s.err);
  g_assert_nonnull(strstr(err, "rebuilt from its spool: it died from SIGTERM\n"));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  JsonObject *tracing = json_object_get_object_member(rt, "tracing");
  g_assert_true(json_object_get_boolean_member(tracing, "enabled"));
  JsonObject *main_fn = itest_runtime_function(rt, "Sxs.Tests.Endings.Main");
  JsonObject *step = itest_runtime_function(rt, "Sxs.Tests.Endings.Step");
  g_assert_nonnull(main_fn);
  g_assert_nonnull(step);
  g_assert_cmpint(json_object_get_int_member(main_fn, "calls"), ==, 1);
  g_test_message("Step called %" G_GINT64_FORMAT " times", json_object_get_int_member(step, "calls"));
  g_assert_cmpint(json_object_get_int_member(step, "calls"), >, 1000);
  g_assert_cmpuint(json_array_get_length(json_object_get_array_member(rt, "call_tree")), >=, 3);
  started_clear(&s);
}

/* ---- the profiler's variables only ---- */

static char **direct_env(Fixture *f, const char *extra_config) {
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\nformats=all\n[sampling]\nenabled=true\n%s", f->output,
                                          extra_config ? extra_config : "");
  g_autofree char *cfg = itest_write_file(f->dir, "endings.conf", text);
  g_auto(GStrv) profiler = itest_profiler_env(cfg);
  GPtrArray *env = g_ptr_array_new();
  for (char **e = profiler; *e; e++)
    g_ptr_array_add(env, g_strdup(*e));
  g_ptr_array_add(env, g_strdup("DOTNET_CLI_TELEMETRY_OPTOUT=1"));
  g_ptr_array_add(env, NULL);
  return (char **)g_ptr_array_free(env, FALSE);
}

static void test_direct_signal(Fixture *f, gconstpointer data) {
  int signo = GPOINTER_TO_INT(data);
  int plain = plain_status(f, signo);
  g_autofree char *dll = itest_app("Endings");
  g_auto(GStrv) env = direct_env(f, NULL);
  const char *argv[] = {itest_env("SXS_DOTNET"), dll, "loop", NULL};
  Started s = start(f, argv, (const char *const *)env, FALSE);
  g_usleep(RUN_MS * 1000);
  gint64 ticks = cpu_ticks(s.program) - s.loop_start_ticks;
  g_assert_cmpint(kill(s.proc->pid, signo), ==, 0);
  int code = itest_proc_wait(s.proc, TIMEOUT);
  g_autofree char *out = itest_read_file(s.out);
  g_autofree char *err = itest_read_file(s.err);
  g_assert_cmpint(code, ==, plain);
  g_assert_cmpstr(out, ==, "started loop\n");
  g_assert_cmpstr(err, ==, "");
  /* The process wrote its profile and views itself, and removed its spool. */
  assert_loop_profile(f->profile, ticks, 0.8);
  assert_views(f->output);
  g_autofree char *spool = g_strconcat(f->output, ".spool", NULL);
  g_assert_false(g_file_test(spool, G_FILE_TEST_EXISTS));
  started_clear(&s);
}

/* ---- endings from inside ---- */

typedef struct {
  const char *how;
  int status;         /* the plain program's */
  const char *reason; /* the launcher's note, NULL when the process wrote its profile */
} Inside;

static const Inside inside_cases[] = {
    {"exit", 3, NULL},
    {"throw", 128 + SIGABRT, "rebuilt from its spool: it died from SIGABRT"},
    {"abort", 128 + SIGABRT, "rebuilt from its spool: it died from SIGABRT"},
    {"segv", 128 + SIGSEGV, "rebuilt from its spool: it died from SIGSEGV"},
};

static void test_inside(Fixture *f, gconstpointer data) {
  const Inside *c = data;
  g_autofree char *dll = itest_app("Endings");
  const char *plain_argv[] = {itest_env("SXS_DOTNET"), dll, c->how, "2500", "3", NULL};
  g_autoptr(ItestRun) plain = itest_run(plain_argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(plain, c->status);
  g_autofree char *started_line = g_strdup_printf("started %s\n", c->how);
  g_assert_cmpstr(plain->out, ==, started_line);

  /* Under the launcher. */
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "-o",   f->output, "--",
                        itest_env("SXS_DOTNET"),  dll,   c->how,     "2500", "3",       NULL};
  g_autoptr(ItestRun) run = itest_run(argv, clean_env, f->dir, TIMEOUT);
  itest_assert_exit(run, c->status);
  g_assert_cmpstr(run->out, ==, plain->out);
  g_assert_true(g_str_has_prefix(run->err, plain->err));
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  gint64 loop = 0, step = 0, all = 0;
  loop_samples(doc, "Sxs.Tests.Endings.Step", &loop, &step, &all);
  g_test_message("%s: %" G_GINT64_FORMAT " loop samples", c->how, loop);
  g_assert_cmpint(loop, >=, 40);
  g_assert_cmpint(step * 2, >, all);
  assert_views(f->output);
  gint64 pid = json_object_get_int_member(json_object_get_object_member(json_node_get_object(doc), "process"), "pid");
  g_autofree char *version = runtime_version(f->profile);
  g_autofree char *line =
      g_strdup_printf("sxsprof: pid %" G_GINT64_FORMAT " (dotnet Endings.dll %s 2500 3): 1 runtime "
                      "(%s) -> %s%s%s\n",
                      pid, c->how, version, f->profile, c->reason ? ", " : "", c->reason ? c->reason : "");
  g_autofree char *listing = g_strconcat("sxsprof: 1 process of the run:\n", line, NULL);
  g_assert_nonnull(strstr(run->err, listing));

  /* The profiler's variables only: the process writes its profile itself, except where no handler
   * of the profiler's runs: a fault in native code, and the runtime's own crash path after an
   * unhandled exception (it restores the default action of SIGABRT before it raises it). There the
   * spool keeps the data, and `sxsprof report` reads it. */
  g_autofree char *direct_prefix = g_build_filename(f->dir, "direct", NULL);
  g_autofree char *text =
      g_strdup_printf("[profiler]\noutput=%s\nformats=json\n[sampling]\nenabled=true\n", direct_prefix);
  g_autofree char *cfg = itest_write_file(f->dir, "direct.conf", text);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  g_autoptr(ItestRun) direct = itest_run(plain_argv, (const char *const *)env, f->dir, TIMEOUT);
  itest_assert_exit(direct, c->status);
  g_assert_cmpstr(direct->out, ==, plain->out);
  g_assert_cmpstr(direct->err, ==, plain->err);
  g_autofree char *direct_json = g_strconcat(direct_prefix, ".json", NULL);
  g_autofree char *direct_spool = g_strconcat(direct_prefix, ".spool", NULL);
  gboolean native_fault = g_str_equal(c->how, "segv") || g_str_equal(c->how, "throw");
  g_assert_cmpint(g_file_test(direct_json, G_FILE_TEST_EXISTS), ==, !native_fault);
  g_assert_cmpint(g_file_test(direct_spool, G_FILE_TEST_EXISTS), ==, native_fault);
  const char *report_argv[] = {itest_env("SXS_SXSPROF"), "report", native_fault ? direct_spool : direct_json, NULL};
  g_autoptr(ItestRun) report = itest_run(report_argv, clean_env, f->dir, 60);
  itest_assert_exit(report, 0);
  g_assert_nonnull(strstr(report->out, "Sxs.Tests.Endings.Step"));
}

/* ---- SIGKILL ---- */

static void test_sigkill(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Endings");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "-o", f->output, "--",
                        itest_env("SXS_DOTNET"),  dll,   "loop",     NULL};
  Started s = start(f, argv, clean_env, TRUE);
  g_usleep(RUN_MS * 1000);
  gint64 ticks = cpu_ticks(s.program) - s.loop_start_ticks;
  g_assert_cmpint(kill(s.program, SIGKILL), ==, 0);
  int code = itest_proc_wait(s.proc, TIMEOUT);
  g_autofree char *err = itest_read_file(s.err);
  g_test_message("stderr:\n%s", err);
  g_assert_cmpint(code, ==, 128 + SIGKILL);
  assert_loop_profile(f->profile, ticks, 0.9);
  assert_views(f->output);
  g_autofree char *version = runtime_version(f->profile);
  g_autofree char *listing = g_strdup_printf(
      "sxsprof: 1 process of the run:\n"
      "sxsprof: pid %d (dotnet Endings.dll loop): 1 runtime (%s) -> %s, rebuilt from its spool: it was killed by "
      "SIGKILL\n",
      s.program, version, f->profile);
  g_assert_true(g_str_has_prefix(err, listing));
  started_clear(&s);

  /* Without the launcher: the spool stays, and `sxsprof report` rebuilds the same from it. */
  g_autofree char *prefix = g_build_filename(f->dir, "direct", NULL);
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n[sampling]\nenabled=true\n", prefix);
  g_autofree char *cfg = itest_write_file(f->dir, "direct.conf", text);
  g_auto(GStrv) env = itest_profiler_env(cfg);
  const char *direct_argv[] = {itest_env("SXS_DOTNET"), dll, "loop", NULL};
  Started d = start(f, direct_argv, (const char *const *)env, FALSE);
  g_usleep(RUN_MS * 1000);
  ticks = cpu_ticks(d.program) - d.loop_start_ticks;
  g_assert_cmpint(kill(d.program, SIGKILL), ==, 0);
  g_assert_cmpint(itest_proc_wait(d.proc, TIMEOUT), ==, 128 + SIGKILL);
  started_clear(&d);
  g_autofree char *spool = g_strconcat(prefix, ".spool", NULL);
  g_autofree char *json = g_strconcat(prefix, ".json", NULL);
  g_assert_true(g_file_test(spool, G_FILE_TEST_IS_REGULAR));
  g_assert_false(g_file_test(json, G_FILE_TEST_EXISTS));
  g_autofree char *rebuilt = g_build_filename(f->dir, "rebuilt", NULL);
  const char *report_argv[] = {itest_env("SXS_SXSPROF"), "report", spool, "--format", "all", "-o", rebuilt, NULL};
  g_autoptr(ItestRun) report = itest_run(report_argv, clean_env, f->dir, 60);
  itest_assert_exit(report, 0);
  g_assert_nonnull(strstr(report->out, "Sxs.Tests.Endings.Step"));
  g_autofree char *rebuilt_json = g_strconcat(rebuilt, ".json", NULL);
  assert_loop_profile(rebuilt_json, ticks, 0.9);
  assert_views(rebuilt);
}

/* ---- a TCP server ---- */

/* Sends `requests` lines "<rounds>" on one connection to 127.0.0.1:port, checks every answer. */
static void tcp_client(int port, int requests, int rounds) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint(fd, >=, 0);
  struct timeval tv = {.tv_sec = 30};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  g_assert_cmpint(connect(fd, (struct sockaddr *)&addr, sizeof addr), ==, 0);
  FILE *in = fdopen(dup(fd), "r");
  g_autofree char *request = g_strdup_printf("%d\n", rounds);
  g_autofree char *prefix = g_strdup_printf("%d ", rounds);
  char line[128];
  for (int i = 0; i < requests; i++) {
    g_assert_cmpint(write(fd, request, strlen(request)), ==, (ssize_t)strlen(request));
    g_assert_nonnull(fgets(line, sizeof line, in));
    g_assert_true(g_str_has_prefix(line, prefix));
  }
  fclose(in);
  close(fd);
}

/* A server of the test's own, under the launcher, stopped by SIGTERM after a few thousand
 * requests from clients over loopback: its profile (with the inventory) has the request-handling
 * functions. */
static void test_tcp_server(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("TcpServer");
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "--inventory", "-o", f->output, "--",
                        itest_env("SXS_DOTNET"),  dll,   NULL};
  g_autofree char *out = g_build_filename(f->dir, "out.txt", NULL);
  g_autofree char *err = g_build_filename(f->dir, "err.txt", NULL);
  g_autoptr(ItestProc) proc = itest_spawn(argv, clean_env, f->dir, out, err, FALSE);
  int server = child_of(proc->pid);
  g_assert_true(itest_wait_for_text(out, "listening ", 60));
  g_autofree char *text = itest_read_file(out);
  int port = atoi(strstr(text, "listening ") + strlen("listening "));
  g_assert_cmpint(port, >, 0);
  /* 4 clients one after the other, 1000 requests each. */
  for (int c = 0; c < 4; c++)
    tcp_client(port, 1000, 200000);
  g_assert_cmpint(kill(proc->pid, SIGTERM), ==, 0);
  int code = itest_proc_wait(proc, TIMEOUT);
  g_autofree char *errors = itest_read_file(err);
  g_test_message("stderr:\n%s", errors);
  g_assert_cmpint(code, ==, 128 + SIGTERM);

  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  JsonObject *rt = itest_profile_runtime(doc, 1);
  g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.TcpServer.HandleConnection"));
  g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.TcpServer.HandleRequest"));
  g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.TcpServer.Checksum"));
  /* The requests' work is where the samples are. */
  JsonArray *stacks =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(doc), "samples"), "stacks");
  gint64 handling = 0, all = 0;
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *s = json_array_get_object_element(stacks, i);
    JsonArray *frames = json_object_get_array_member(s, "frames");
    gint64 count = json_object_get_int_member(s, "count");
    all += count;
    gboolean checksum = FALSE, request = FALSE;
    for (guint j = 0; j < json_array_get_length(frames); j++) {
      const char *name = json_object_get_string_member(json_array_get_object_element(frames, j), "name");
      checksum |= g_str_equal(name, "Sxs.Tests.TcpServer.Checksum");
      request |= g_str_equal(name, "Sxs.Tests.TcpServer.HandleConnection");
    }
    if (checksum && request)
      handling += count;
  }
  g_test_message("%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " samples handle requests", handling, all);
  g_assert_cmpint(handling * 2, >, all);
  assert_views_of(f->output, "Sxs.Tests.TcpServer.Checksum");
  g_autofree char *version = runtime_version(f->profile);
  g_autofree char *listing =
      g_strdup_printf("sxsprof: 1 process of the run:\n"
                      "sxsprof: pid %d (dotnet TcpServer.dll): 1 runtime (%s) -> %s, rebuilt from its spool: it died "
                      "from SIGTERM\n",
                      server, version, f->profile);
  g_assert_true(g_str_has_prefix(errors, listing));
}

/* ---- signal to death ---- */

/* How long process pid takes to die after SIGTERM, in ms. */
static double time_to_death(int pid) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  g_assert_cmpint(fd, >=, 0);
  gint64 t0 = g_get_monotonic_time();
  g_assert_cmpint(kill(pid, SIGTERM), ==, 0);
  struct pollfd p = {.fd = fd, .events = POLLIN};
  g_assert_cmpint(poll(&p, 1, 60000), ==, 1);
  close(fd);
  return (double)(g_get_monotonic_time() - t0) / 1000.0;
}

/* Under the launcher the profiled process only brings its spool up to date when a signal ends it:
 * its time from the signal to its death does not grow with its profile (an inventory of 50,000
 * functions against a few hundred). */
static void test_signal_to_death(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("ManyFunctions");
  double ms[2];
  const char *counts[] = {"100", "50000"};
  for (int i = 0; i < 2; i++) {
    g_autofree char *prefix = g_strdup_printf("%s-%s", f->output, counts[i]);
    const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "--inventory", "-o", prefix, "--",
                          itest_env("SXS_DOTNET"),  dll,   counts[i],  NULL};
    g_autofree char *started = g_strdup_printf("started %s", counts[i]);
    Started s = start(f, argv, clean_env, TRUE);
    g_assert_true(itest_wait_for_text(s.out, started, 120));
    g_usleep(1000 * 1000);
    ms[i] = time_to_death(s.program);
    g_assert_cmpint(itest_proc_wait(s.proc, TIMEOUT), ==, 128 + SIGTERM);
    g_autofree char *profile = g_strconcat(prefix, ".json", NULL);
    g_autoptr(JsonNode) doc = itest_load_json(profile);
    guint n = itest_runtime_count_functions(itest_profile_runtime(doc, 1), "Sxs.Generated.Functions.F");
    g_test_message("%s functions: %u in the profile, %.0f ms from SIGTERM to death", counts[i], n, ms[i]);
    g_assert_cmpuint(n, ==, (guint)atoi(counts[i]));
    started_clear(&s);
  }
  g_assert_cmpfloat(ms[1], <, ms[0] + 300);
}

/* ---- two runtimes in one process ---- */

/* runsxs with 10.0 and 2.0 running the loop, both profiled (pick-all), SIGTERM to the launcher:
 * the status is runsxs's own without the profiler, and each runtime's samples are kept, tagged. */
static void test_runsxs_sigterm(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *dll = itest_app("Endings");
  const char *runsxs = itest_env("SXS_RUNSXS");
  const char *plain_argv[] = {runsxs, "10.0", dll, "loop", "2.0.0", dll, "loop", NULL};
  g_autoptr(ItestRun) plain = itest_run_signal(plain_argv, clean_env, f->dir, TIMEOUT, 4000, SIGTERM);
  g_assert_false(plain->timed_out);
  const char *argv[] = {itest_env("SXS_SXSPROF"),
                        "run",
                        "--sample",
                        "--mode",
                        "pick-all",
                        "-o",
                        f->output,
                        "--",
                        runsxs,
                        "10.0",
                        dll,
                        "loop",
                        "2.0.0",
                        dll,
                        "loop",
                        NULL};
  g_autoptr(ItestRun) run = itest_run_signal(argv, clean_env, f->dir, TIMEOUT, 5000, SIGTERM);
  g_test_message("stdout:\n%s\nstderr:\n%s", run->out, run->err);
  itest_assert_exit(run, plain->exit_code);
  g_autoptr(JsonNode) doc = itest_load_json(f->profile);
  g_assert_cmpuint(itest_profile_runtime_count(doc), ==, 2);
  /* The runtimes start concurrently: either may be runtime 1. */
  gboolean seen_ten = FALSE, seen_two = FALSE;
  for (gint64 id = 1; id <= 2; id++) {
    JsonObject *rt = itest_profile_runtime(doc, id);
    const char *version = json_object_get_string_member(rt, "version");
    seen_ten |= g_str_has_prefix(version, "10.0.");
    seen_two |= g_str_equal(version, "2.0.0");
    g_assert_cmpstr(json_object_get_string_member(rt, "status"), ==, "profiling");
    g_assert_nonnull(itest_runtime_function(rt, "Sxs.Tests.Endings.Step"));
  }
  g_assert_true(seen_ten && seen_two);
  /* Each runtime's loop in the samples, its frames tagged with that runtime. */
  JsonArray *stacks =
      json_object_get_array_member(json_object_get_object_member(json_node_get_object(doc), "samples"), "stacks");
  gint64 by_runtime[3] = {0};
  for (guint i = 0; i < json_array_get_length(stacks); i++) {
    JsonObject *s = json_array_get_object_element(stacks, i);
    JsonObject *leaf = json_array_get_object_element(json_object_get_array_member(s, "frames"), 0);
    if (g_str_equal(json_object_get_string_member(leaf, "name"), "Sxs.Tests.Endings.Step")) {
      gint64 r = json_object_get_int_member(leaf, "runtime");
      g_assert_true(r == 1 || r == 2);
      by_runtime[r] += json_object_get_int_member(s, "count");
    }
  }
  g_test_message("Step samples: runtime 1 %" G_GINT64_FORMAT ", runtime 2 %" G_GINT64_FORMAT, by_runtime[1],
                 by_runtime[2]);
  g_assert_cmpint(by_runtime[1], >, 20);
  g_assert_cmpint(by_runtime[2], >, 20);
  g_autofree char *folded_path = g_strconcat(f->output, ".folded", NULL);
  g_autofree char *folded = itest_read_file(folded_path);
  for (gint64 id = 1; id <= 2; id++) {
    g_autofree char *tag = g_strdup_printf("[rt%" G_GINT64_FORMAT " %s] Sxs.Tests.Endings.Step", id,
                                           json_object_get_string_member(itest_profile_runtime(doc, id), "version"));
    g_assert_nonnull(strstr(folded, tag));
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  /* The programs must see these signals as a terminal's would: not ignored. */
  signal(SIGINT, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
#define ADD(path, fn, data) g_test_add(path, Fixture, data, itest_scratch_setup, fn, itest_scratch_teardown)
  ADD("/endings/launcher/SIGINT-group", test_sigint_group, NULL);
  ADD("/endings/launcher/SIGTERM", test_sigterm_launcher, NULL);
  ADD("/endings/launcher/SIGHUP", test_sighup, NULL);
  ADD("/endings/launcher/SIGQUIT", test_sigquit, NULL);
  ADD("/endings/launcher/SIGTERM-traced", test_sigterm_traced, NULL);
  ADD("/endings/direct/SIGTERM", test_direct_signal, GINT_TO_POINTER(SIGTERM));
  ADD("/endings/direct/SIGINT", test_direct_signal, GINT_TO_POINTER(SIGINT));
  for (guint i = 0; i < G_N_ELEMENTS(inside_cases); i++) {
    g_autofree char *path = g_strdup_printf("/endings/inside/%s", inside_cases[i].how);
    ADD(path, test_inside, &inside_cases[i]);
  }
  ADD("/endings/SIGKILL", test_sigkill, NULL);
  ADD("/endings/tcp-server/SIGTERM", test_tcp_server, NULL);
  ADD("/endings/launcher/signal-to-death", test_signal_to_death, NULL);
  ADD("/endings/runsxs/pick-all/SIGTERM", test_runsxs_sigterm, NULL);
#undef ADD
  return g_test_run();
}
