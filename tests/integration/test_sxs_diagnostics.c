/* runsxs --diagnostics end to end: every runtime of one process answers the diagnostics IPC
 * protocol on a socket of its own, ${TMPDIR}/sxsprof-runsxs-<pid>-rt<N>.sock.
 *
 * Each case runs runsxs in a fresh process with TMPDIR set to a scratch folder, waits until the
 * runtimes listen, asks each socket for ProcessInfo2 (the client below speaks the protocol
 * itself: header "DOTNET_IPC_V1\0", size, command set 0x04 Process, command 0x04 ProcessInfo2)
 * and checks that the answer comes from that runtime: its product version, its app's command
 * line, the process's pid. Then it checks the apps' output, the exit status and that the sockets
 * are gone. Without --diagnostics the runtimes keep fighting over the shared default name. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "itest.h"

#define RUN_TIMEOUT 150     /* itest's limit for one runsxs process */
#define RUNSXS_TIMEOUT "90" /* runsxs's own --timeout, shorter so it reports first */
#define LISTEN_TIMEOUT 60   /* seconds to wait for the runtimes' sockets */
#define SPIN "6"            /* seconds each SxsSample spins: the sockets are probed meanwhile */

/* --- installed frameworks ------------------------------------------------------------------- */

/* The version of the newest framework runsxs would pick for `prefix` ("10", "8", "2.0"): the
 * SDK's and $SXS_RUNTIMES_DIR's Microsoft.NETCore.App folders. NULL when none is installed. */
static char *installed_version(const char *prefix) {
  char real[PATH_MAX];
  const char *dotnet = itest_env("SXS_DOTNET");
  g_autofree char *dotnet_dir = g_path_get_dirname(realpath(dotnet, real) ? real : dotnet);
  g_autofree char *root1 = g_build_filename(dotnet_dir, "shared", "Microsoft.NETCore.App", NULL);
  g_autofree char *root2 = g_build_filename(itest_env("SXS_RUNTIMES_DIR"), "shared", "Microsoft.NETCore.App", NULL);
  const char *roots[] = {root1, root2};
  g_autofree char *dotted = g_strconcat(prefix, ".", NULL);
  char *best = NULL;
  for (guint r = 0; r < G_N_ELEMENTS(roots); r++) {
    g_autoptr(GDir) dir = g_dir_open(roots[r], 0, NULL);
    const char *name;
    while (dir && (name = g_dir_read_name(dir))) {
      if (strcmp(name, prefix) != 0 && !g_str_has_prefix(name, dotted))
        continue;
      g_autofree char *lib = g_build_filename(roots[r], name, "libcoreclr.so", NULL);
      if (!g_file_test(lib, G_FILE_TEST_IS_REGULAR) || (best && itest_version_cmp(name, best) <= 0))
        continue;
      g_free(best);
      best = g_strdup(name);
    }
  }
  return best;
}

/* Like installed_version, but skips the test case when the runtime is missing. */
static char *need_runtime(const char *prefix) {
  char *version = installed_version(prefix);
  if (!version) {
    g_autofree char *msg = g_strdup_printf("no %s runtime installed (run tests/setup.sh)", prefix);
    g_test_skip(msg);
  }
  return version;
}

/* --- a minimal diagnostics IPC client ----------------------------------------------------------- */

/* What a runtime answers to ProcessInfo2. */
typedef struct {
  guint64 pid;
  guint8 cookie[16]; /* the runtime instance's random cookie */
  char *command_line;
  char *os;
  char *arch;
  char *entry_assembly;
  char *version; /* the runtime's product version, e.g. 10.0.12 */
} DiagProcessInfo;

static void diag_process_info_free(DiagProcessInfo *info) {
  if (!info)
    return;
  g_free(info->command_line);
  g_free(info->os);
  g_free(info->arch);
  g_free(info->entry_assembly);
  g_free(info->version);
  g_free(info);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(DiagProcessInfo, diag_process_info_free)

static gboolean read_exactly(int fd, void *buf, size_t len) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = read(fd, (char *)buf + got, len - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    got += (size_t)n;
  }
  return TRUE;
}

/* Reads one protocol string at *at: a uint32 count of UTF-16 units (terminating NUL included),
 * then the units, little-endian. */
static char *take_string(const guint8 **at, const guint8 *end) {
  guint32 units;
  g_assert_cmpint(end - *at, >=, 4);
  memcpy(&units, *at, 4);
  units = GUINT32_FROM_LE(units);
  *at += 4;
  g_assert_cmpint(end - *at, >=, (gint64)units * 2);
  g_autofree gunichar2 *text = g_new0(gunichar2, units + 1);
  for (guint32 i = 0; i < units; i++)
    text[i] = (gunichar2)((*at)[2 * i] | ((*at)[2 * i + 1] << 8));
  *at += (size_t)units * 2;
  char *utf8 = g_utf16_to_utf8(text, -1, NULL, NULL, NULL);
  g_assert_nonnull(utf8);
  return utf8;
}

/* Connects to a diagnostics socket and asks for ProcessInfo2; fails the test on any protocol
 * error. */
static DiagProcessInfo *diag_process_info2(const char *socket_path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint(fd, >=, 0);
  struct timeval tv = {.tv_sec = 15};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  g_assert_cmpuint(strlen(socket_path), <, sizeof addr.sun_path);
  strcpy(addr.sun_path, socket_path);
  int rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
  if (rc != 0)
    g_test_message("connect(%s): %s", socket_path, g_strerror(errno));
  g_assert_cmpint(rc, ==, 0);

  static const char magic[14] = "DOTNET_IPC_V1";
  guint8 request[20] = {0};
  memcpy(request, magic, sizeof magic);
  request[14] = 20;   /* total size, little-endian uint16 */
  request[16] = 0x04; /* command set: Process */
  request[17] = 0x04; /* command: ProcessInfo2 */
  g_assert_cmpint(write(fd, request, sizeof request), ==, (ssize_t)sizeof request);

  guint8 header[20];
  g_assert_true(read_exactly(fd, header, sizeof header));
  g_assert_cmpmem(header, 14, magic, 14);
  g_assert_cmpuint(header[16], ==, 0xff); /* command set: Server (a response) */
  g_assert_cmpuint(header[17], ==, 0x00); /* OK */
  guint size = (guint)(header[14] | (header[15] << 8));
  g_assert_cmpuint(size, >, 20 + 24);
  g_autofree guint8 *payload = g_malloc(size - 20);
  g_assert_true(read_exactly(fd, payload, size - 20));
  close(fd);

  DiagProcessInfo *info = g_new0(DiagProcessInfo, 1);
  memcpy(&info->pid, payload, 8);
  info->pid = GUINT64_FROM_LE(info->pid);
  memcpy(info->cookie, payload + 8, 16);
  const guint8 *at = payload + 24, *end = payload + (size - 20);
  info->command_line = take_string(&at, end);
  info->os = take_string(&at, end);
  info->arch = take_string(&at, end);
  info->entry_assembly = take_string(&at, end);
  info->version = take_string(&at, end);
  g_assert_true(at == end);
  return info;
}

/* The error a runtime's diagnostics server answers ProcessInfo2 with: .NET Core 3.x, which has the
 * server but no Process commands (they came with 5.0), says UnknownCommand (0x80131385). */
static guint32 diag_process_info2_error(const char *socket_path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint(fd, >=, 0);
  struct timeval tv = {.tv_sec = 15};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strcpy(addr.sun_path, socket_path);
  g_assert_cmpint(connect(fd, (struct sockaddr *)&addr, sizeof addr), ==, 0);
  static const char magic[14] = "DOTNET_IPC_V1";
  guint8 request[20] = {0};
  memcpy(request, magic, sizeof magic);
  request[14] = 20;
  request[16] = 0x04;
  request[17] = 0x04;
  g_assert_cmpint(write(fd, request, sizeof request), ==, (ssize_t)sizeof request);
  guint8 answer[24];
  g_assert_true(read_exactly(fd, answer, sizeof answer));
  close(fd);
  g_assert_cmpmem(answer, 14, magic, 14);
  g_assert_cmpuint(answer[16], ==, 0xff); /* Server */
  g_assert_cmpuint(answer[17], ==, 0xff); /* Error */
  return (guint32)answer[20] | (guint32)answer[21] << 8 | (guint32)answer[22] << 16 | (guint32)answer[23] << 24;
}

/* Asks for ProcessInfo2 until the runtime runs its app: a runtime listens from early in
 * coreclr_initialize on, and names its entry assembly only once coreclr_execute_assembly has
 * begun (before that the name is empty). */
static DiagProcessInfo *diag_process_info2_running(const char *socket_path, int timeout_sec) {
  gint64 deadline = g_get_monotonic_time() + (gint64)timeout_sec * G_USEC_PER_SEC;
  for (;;) {
    DiagProcessInfo *info = diag_process_info2(socket_path);
    if (*info->entry_assembly || g_get_monotonic_time() >= deadline)
      return info;
    diag_process_info_free(info);
    g_usleep(50 * 1000);
  }
}

/* --- running runsxs --------------------------------------------------------------------------- */

/* One runtime of a case: which framework, which app with which arguments, whether it must get a
 * socket, and the line its app prints last. */
typedef struct {
  const char *prefix;  /* RUNTIME operand */
  const char *app;     /* test app name */
  const char *args;    /* its ARGS operand */
  const char *line;    /* a line its app prints */
  gboolean has_server; /* 3.0 or later: gets a socket */
} Runtime;

/* A case: two runtimes, concurrent or --st. */
typedef struct {
  Runtime rt[2];
  gboolean st;
} Case;

static const Case case_10_8 = {{{"10", "SxsSample", "spin One " SPIN, "spin name=One seconds=" SPIN, TRUE},
                                {"8", "SxsSample", "spin Two " SPIN, "spin name=Two seconds=" SPIN, TRUE}},
                               FALSE};
static const Case case_10_8_st = {{{"10", "SxsSample", "spin One " SPIN, "spin name=One seconds=" SPIN, TRUE},
                                   {"8", "SxsSample", "spin Two " SPIN, "spin name=Two seconds=" SPIN, TRUE}},
                                  TRUE};
static const Case case_10_10 = {{{"10", "SxsSample", "spin One " SPIN, "spin name=One seconds=" SPIN, TRUE},
                                 {"10", "SxsSample", "spin Two " SPIN, "spin name=Two seconds=" SPIN, TRUE}},
                                FALSE};
static const Case case_10_2 = {{{"10", "SxsSample", "spin One " SPIN, "spin name=One seconds=" SPIN, TRUE},
                                {"2.0", "SxsHello", "sleep 6000", "hello from 4.0.30319.42000 args=sleep,6000", FALSE}},
                               FALSE};

static const Case case_10_31 = {{{"10", "SxsSample", "spin One " SPIN, "spin name=One seconds=" SPIN, TRUE},
                                 {"3.1", "SxsSample", "spin Two " SPIN, "spin name=Two seconds=" SPIN, TRUE}},
                                FALSE};

/* runsxs's argv for a case (with or without --diagnostics); apps resolved through SXS_APPS_DIR. */
static GPtrArray *case_argv(const Case *c, gboolean diagnostics) {
  GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(argv, g_strdup(itest_env("SXS_RUNSXS")));
  g_ptr_array_add(argv, g_strdup("--timeout"));
  g_ptr_array_add(argv, g_strdup(RUNSXS_TIMEOUT));
  if (c->st)
    g_ptr_array_add(argv, g_strdup("--st"));
  if (diagnostics)
    g_ptr_array_add(argv, g_strdup("--diagnostics"));
  for (guint i = 0; i < G_N_ELEMENTS(c->rt); i++) {
    g_ptr_array_add(argv, g_strdup(c->rt[i].prefix));
    g_ptr_array_add(argv, itest_app(c->rt[i].app));
    g_ptr_array_add(argv, g_strdup(c->rt[i].args));
  }
  g_ptr_array_add(argv, NULL);
  return argv;
}

/* ${dir}/sxsprof-runsxs-<pid>-rt<index>.sock */
static char *runtime_socket(const char *dir, GPid pid, int index) {
  g_autofree char *name = g_strdup_printf("sxsprof-runsxs-%d-rt%d.sock", (int)pid, index);
  return g_build_filename(dir, name, NULL);
}

static gboolean is_socket(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* g_ptr_array_sort() comparator for an array of strings (it passes pointers to the elements). */
static int compare_strings(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names in dir that start with prefix, sorted. */
static GPtrArray *entries_with_prefix(const char *dir, const char *prefix) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name(d))) {
    if (g_str_has_prefix(name, prefix))
      g_ptr_array_add(names, g_strdup(name));
  }
  g_ptr_array_sort(names, compare_strings);
  return names;
}

/* Waits until every path in `paths` is a socket, or the process has exited, or time runs out. */
static gboolean wait_for_sockets(GPtrArray *paths, GPid pid, int timeout_sec) {
  gint64 deadline = g_get_monotonic_time() + (gint64)timeout_sec * G_USEC_PER_SEC;
  while (g_get_monotonic_time() < deadline) {
    gboolean all = TRUE;
    for (guint i = 0; i < paths->len && all; i++)
      all = is_socket(paths->pdata[i]);
    if (all)
      return TRUE;
    if (kill(pid, 0) != 0)
      return FALSE;
    g_usleep(50 * 1000);
  }
  return FALSE;
}

/* The lines of text, sorted: concurrent apps may interleave in any order. */
static GPtrArray *sorted_lines(const char *text) {
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  g_auto(GStrv) split = g_strsplit(text, "\n", -1);
  for (char **l = split; *l; l++) {
    if (**l)
      g_ptr_array_add(lines, g_strdup(*l));
  }
  g_ptr_array_sort(lines, compare_strings);
  return lines;
}

static guint count_line(const char *text, const char *line) {
  g_auto(GStrv) split = g_strsplit(text, "\n", -1);
  guint n = 0;
  for (char **l = split; *l; l++)
    n += strcmp(*l, line) == 0;
  return n;
}

/* The environment changes of a case's run: its sockets in dir (TMPDIR), no diagnostics setting
 * inherited from the caller (names without "=" are unset). */
static GStrv case_env(const char *dir) {
  char **env = g_new0(char *, 5);
  env[0] = g_strconcat("TMPDIR=", dir, NULL);
  env[1] = g_strdup("DOTNET_DiagnosticPorts");
  env[2] = g_strdup("DOTNET_EnableDiagnostics");
  env[3] = g_strdup("DOTNET_EnableDiagnostics_IPC");
  return env;
}

/* Starts case c under runsxs (with --diagnostics when asked) in case_env(dir), stdout and stderr
 * to out and err. */
static ItestProc *spawn_case(const Case *c, gboolean diagnostics, const char *dir, const char *out, const char *err) {
  g_auto(GStrv) env = case_env(dir);
  g_autoptr(GPtrArray) argv = case_argv(c, diagnostics);
  return itest_spawn((const char *const *)argv->pdata, (const char *const *)env, NULL, out, err, FALSE);
}

/* --- cases -------------------------------------------------------------------------------------- */

/* With --diagnostics, runtime N (3.0 or later) answers ProcessInfo2 on its own socket with its own
 * version and its own app's command line; nothing listens on the shared default name; the apps'
 * output and the exit status are those of a run without --diagnostics; the sockets are removed
 * at exit. */
static void test_per_runtime_sockets(gconstpointer data) {
  const Case *c = data;
  g_autofree char *first = need_runtime(c->rt[0].prefix);
  g_autofree char *second = first ? need_runtime(c->rt[1].prefix) : NULL;
  if (!first || !second)
    return;
  const char *versions[2] = {first, second};
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *out = g_build_filename(dir, "out.txt", NULL);
  g_autofree char *err = g_build_filename(dir, "err.txt", NULL);
  g_autoptr(ItestProc) proc = spawn_case(c, TRUE, dir, out, err);
  GPid pid = proc->pid;

  g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func(g_free);
  for (int i = 0; i < 2; i++) {
    if (c->rt[i].has_server)
      g_ptr_array_add(expected, runtime_socket(dir, pid, i + 1));
  }
  gboolean listening = wait_for_sockets(expected, pid, LISTEN_TIMEOUT);
  /* A runtime without a server is looked at once its app runs: it has started by then. */
  for (int i = 0; i < 2 && listening; i++) {
    if (!c->rt[i].has_server)
      listening = itest_wait_for_text(out, c->rt[i].line, LISTEN_TIMEOUT);
  }
  if (!listening) {
    g_autofree char *o = itest_read_file(out), *e = itest_read_file(err);
    g_test_message("stdout:\n%s\nstderr:\n%s", o, e);
    g_assert_not_reached();
  }

  DiagProcessInfo *infos[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    g_autofree char *path = runtime_socket(dir, pid, i + 1);
    if (!c->rt[i].has_server) {
      g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
      continue;
    }
    struct stat st;
    g_assert_cmpint(lstat(path, &st), ==, 0);
    g_assert_cmpint(st.st_mode & 0777, ==, 0600); /* the runtime's own permissions */
    if (atoi(c->rt[i].prefix) < 5) {
      g_assert_cmphex(diag_process_info2_error(path), ==, 0x80131385);
      continue;
    }
    infos[i] = diag_process_info2_running(path, LISTEN_TIMEOUT);
    g_test_message("[%d] %s: pid=%" G_GUINT64_FORMAT " version=%s entry=%s command line=%s", i + 1, path, infos[i]->pid,
                   infos[i]->version, infos[i]->entry_assembly, infos[i]->command_line);
    g_assert_cmpuint(infos[i]->pid, ==, (guint64)pid);
    g_assert_cmpstr(infos[i]->version, ==, versions[i]);
    g_assert_cmpstr(infos[i]->entry_assembly, ==, c->rt[i].app);
    g_assert_cmpstr(infos[i]->os, ==, "Linux");
    g_assert_true(g_str_has_suffix(infos[i]->command_line, c->rt[i].args));
  }
  /* Two runtime instances, even of one version: each has its own random cookie. */
  if (infos[0] && infos[1])
    g_assert_true(memcmp(infos[0]->cookie, infos[1]->cookie, sizeof infos[0]->cookie) != 0);
  diag_process_info_free(infos[0]);
  diag_process_info_free(infos[1]);
  /* Nobody holds the shared default name. */
  g_autofree char *shared = g_strdup_printf("dotnet-diagnostic-%d-", (int)pid);
  g_autoptr(GPtrArray) defaults = entries_with_prefix(dir, shared);
  g_assert_cmpuint(defaults->len, ==, 0);

  int status = itest_proc_wait(proc, RUN_TIMEOUT);
  g_autofree char *got_out = itest_read_file(out), *got_err = itest_read_file(err);
  g_test_message("stdout:\n%s\nstderr:\n%s", got_out, got_err);
  g_assert_cmpint(status, ==, 0);
  for (int i = 0; i < 2; i++) {
    g_assert_cmpuint(count_line(got_out, c->rt[i].line), ==, 1);
    g_autofree char *summary = g_strdup_printf("runsxs: [%d] %s ", i + 1, versions[i]);
    g_assert_nonnull(strstr(got_out, summary));
  }
  g_assert_null(strstr(got_err, "diagnostics socket"));
  g_autofree char *leftover = g_strdup_printf("sxsprof-runsxs-%d-", (int)pid);
  g_autoptr(GPtrArray) left = entries_with_prefix(dir, leftover);
  g_assert_cmpuint(left->len, ==, 0);

  /* The same command without --diagnostics prints the same lines and ends the same way. */
  g_autoptr(GPtrArray) plain_argv = case_argv(c, FALSE);
  g_auto(GStrv) env = case_env(dir);
  g_autoptr(ItestRun) plain =
      itest_run((const char *const *)plain_argv->pdata, (const char *const *)env, NULL, RUN_TIMEOUT);
  itest_assert_exit(plain, status);
  g_autoptr(GPtrArray) with_lines = sorted_lines(got_out);
  g_autoptr(GPtrArray) plain_lines = sorted_lines(plain->out);
  g_assert_cmpuint(with_lines->len, ==, plain_lines->len);
  for (guint i = 0; i < with_lines->len; i++)
    g_assert_cmpstr(with_lines->pdata[i], ==, plain_lines->pdata[i]);
  itest_rmtree(dir);
}

/* Without --diagnostics nothing changes: no per-runtime socket, and both runtimes compute the
 * same default name. With --st runtime 1 (10.0) binds it first; runtime 2 (8.0) starts while
 * runtime 1 is still alive, its bind() fails (EADDRINUSE) and it runs without a diagnostics
 * server, so the one default socket keeps answering for runtime 1. */
static void test_off(void) {
  g_autofree char *v10 = need_runtime("10");
  g_autofree char *v8 = v10 ? need_runtime("8") : NULL;
  if (!v10 || !v8)
    return;
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *out = g_build_filename(dir, "out.txt", NULL);
  g_autofree char *err = g_build_filename(dir, "err.txt", NULL);
  g_autoptr(ItestProc) proc = spawn_case(&case_10_8_st, FALSE, dir, out, err);
  GPid pid = proc->pid;

  /* Runtime 1's app has ended (runtime 1 lives on until the end); runtime 2 starts now. */
  g_assert_true(itest_wait_for_text(out, case_10_8_st.rt[0].line, LISTEN_TIMEOUT));
  g_usleep(2 * G_USEC_PER_SEC);
  g_autofree char *shared = g_strdup_printf("dotnet-diagnostic-%d-", (int)pid);
  g_autoptr(GPtrArray) defaults = entries_with_prefix(dir, shared);
  g_assert_cmpuint(defaults->len, ==, 1);
  g_assert_true(g_str_has_suffix(defaults->pdata[0], "-socket"));
  g_autofree char *path = g_build_filename(dir, defaults->pdata[0], NULL);
  g_autoptr(DiagProcessInfo) info = diag_process_info2_running(path, LISTEN_TIMEOUT);
  g_test_message("the shared default socket %s is answered by %s", path, info->version);
  g_assert_cmpstr(info->version, ==, v10);
  g_assert_true(g_str_has_suffix(info->command_line, case_10_8_st.rt[0].args));
  g_autofree char *own = g_strdup_printf("sxsprof-runsxs-%d-", (int)pid);
  g_autoptr(GPtrArray) owns = entries_with_prefix(dir, own);
  g_assert_cmpuint(owns->len, ==, 0);

  g_assert_cmpint(itest_proc_wait(proc, RUN_TIMEOUT), ==, 0);
  g_autofree char *got_out = itest_read_file(out);
  g_assert_cmpuint(count_line(got_out, case_10_8_st.rt[0].line), ==, 1);
  g_assert_cmpuint(count_line(got_out, case_10_8_st.rt[1].line), ==, 1);
  itest_rmtree(dir);
}

/* SIGTERM or SIGINT ends the process while both runtimes run: the runtimes end it with the signal
 * or through exit(), and the sockets are removed either way. */
static void test_removed_on_signal(gconstpointer data) {
  int signo = GPOINTER_TO_INT(data);
  g_autofree char *v10 = need_runtime("10");
  g_autofree char *v8 = v10 ? need_runtime("8") : NULL;
  if (!v10 || !v8)
    return;
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *out = g_build_filename(dir, "out.txt", NULL);
  g_autofree char *err = g_build_filename(dir, "err.txt", NULL);
  g_autoptr(ItestProc) proc = spawn_case(&case_10_8, TRUE, dir, out, err);
  GPid pid = proc->pid;
  g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(expected, runtime_socket(dir, pid, 1));
  g_ptr_array_add(expected, runtime_socket(dir, pid, 2));
  g_assert_true(wait_for_sockets(expected, pid, LISTEN_TIMEOUT));
  /* Both apps run (each runtime has named its entry assembly) when the signal comes. */
  for (guint i = 0; i < expected->len; i++) {
    g_autoptr(DiagProcessInfo) info = diag_process_info2_running(expected->pdata[i], LISTEN_TIMEOUT);
    g_assert_cmpstr(info->entry_assembly, ==, "SxsSample");
  }
  g_assert_cmpint(kill(pid, signo), ==, 0);
  int status = itest_proc_wait(proc, RUN_TIMEOUT);
  g_autofree char *got_err = itest_read_file(err);
  g_test_message("status %d, stderr:\n%s", status, got_err);
  g_assert_cmpint(status, ==, 128 + signo);
  for (guint i = 0; i < expected->len; i++)
    g_assert_false(g_file_test(expected->pdata[i], G_FILE_TEST_EXISTS));
  itest_rmtree(dir);
}

/* A socket name that cannot fit a socket address is refused before anything starts. */
static void test_name_too_long(void) {
  g_autofree char *v10 = need_runtime("10");
  if (!v10)
    return;
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *deep = g_build_filename(dir, "a-folder-name-long-enough-to-push-the-socket-name-past-108-bytes",
                                           "and-a-second-one-to-be-sure-of-it", NULL);
  g_assert_cmpint(g_mkdir_with_parents(deep, 0700), ==, 0);
  g_autofree char *env_tmp = g_strconcat("TMPDIR=", deep, NULL);
  const char *env[] = {env_tmp, NULL};
  g_autofree char *app = itest_app("SxsHello");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "--diagnostics", "10", app, "", NULL};
  g_autoptr(ItestRun) run = itest_run(argv, env, NULL, RUN_TIMEOUT);
  itest_assert_exit(run, 2);
  g_assert_cmpstr(run->out, ==, "");
  g_assert_nonnull(strstr(run->err, "runsxs: --diagnostics: the socket name "));
  g_assert_nonnull(strstr(run->err, "set TMPDIR to a shorter folder"));
  itest_rmtree(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_data_func("/sxs/diagnostics/10-and-8", &case_10_8, test_per_runtime_sockets);
  g_test_add_data_func("/sxs/diagnostics/10-and-8/st", &case_10_8_st, test_per_runtime_sockets);
  g_test_add_data_func("/sxs/diagnostics/10-and-10-copy", &case_10_10, test_per_runtime_sockets);
  g_test_add_data_func("/sxs/diagnostics/10-and-2.0", &case_10_2, test_per_runtime_sockets);
  g_test_add_data_func("/sxs/diagnostics/10-and-3.1", &case_10_31, test_per_runtime_sockets);
  g_test_add_func("/sxs/diagnostics/off", test_off);
  g_test_add_data_func("/sxs/diagnostics/removed/sigterm", GINT_TO_POINTER(SIGTERM), test_removed_on_signal);
  g_test_add_data_func("/sxs/diagnostics/removed/sigint", GINT_TO_POINTER(SIGINT), test_removed_on_signal);
  g_test_add_func("/sxs/diagnostics/name-too-long", test_name_too_long);
  return g_test_run();
}
