/* sxsprof attach with bad input: each case starts a target of its own (or names none), runs
 * sxsprof attach against it, and checks the one message line on stderr word for word, the exit
 * status, and that the target still runs afterwards: an attach that fails never harms the
 * process. The runtime's own answers are named (ERROR_MOD_NOT_FOUND for a library it cannot
 * load, CORPROF_E_PROFILER_ALREADY_ACTIVE for a process profiled from its start).
 *
 * Targets and sxsprof run with TMPDIR set to the case's scratch folder, so that the runtime's
 * diagnostics socket, runsxs's per-runtime sockets and sxsprof's control socket are the case's
 * own. The versions in the expected messages are the names of the runtime folders the target
 * has mapped (/proc/<pid>/maps), not what sxsprof asked the runtime. */
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "itest.h"

#define TARGET_SECONDS "60" /* the targets outlive every case; each is killed at its end */
#define READY_TIMEOUT 60    /* seconds for a target's runtime to be up */
#define RUN_TIMEOUT 60      /* one sxsprof attach */

typedef ItestScratch Fixture;

/* ---- Targets ---- */

/* Starts argv in the case's folder with TMPDIR pointing there, no profiler unless `extra` loads
 * one, and the diagnostics channel at its defaults. */
static ItestProc *start_target(Fixture *f, const char *const *argv, char **extra) {
  g_autoptr(GPtrArray) env = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(env, g_strconcat("TMPDIR=", f->dir, NULL));
  const char *removed[] = {"CORECLR_ENABLE_PROFILING", "DOTNET_EnableDiagnostics", "DOTNET_EnableDiagnostics_IPC",
                           "DOTNET_DiagnosticPorts", "SXSPROF_CONFIG"};
  for (guint i = 0; i < G_N_ELEMENTS(removed); i++)
    g_ptr_array_add(env, g_strdup(removed[i]));
  for (char **e = extra; e && *e; e++)
    g_ptr_array_add(env, g_strdup(*e));
  g_ptr_array_add(env, NULL);
  g_autofree char *out = g_build_filename(f->dir, "target.out", NULL);
  g_autofree char *err = g_build_filename(f->dir, "target.err", NULL);
  return itest_spawn(argv, (const char *const *)env->pdata, f->dir, out, err, FALSE);
}

/* The process's /proc/<pid>/maps, "" when it is gone. */
static char *maps_of(GPid pid) {
  g_autofree char *path = g_strdup_printf("/proc/%d/maps", (int)pid);
  return itest_read_file(path);
}

/* The version folder of the libcoreclr.so the process has mapped whose name begins with
 * `prefix` ("10.", "8."), or NULL. */
static char *mapped_version(GPid pid, const char *prefix) {
  g_autofree char *maps = maps_of(pid);
  g_auto(GStrv) lines = g_strsplit(maps, "\n", -1);
  for (char **l = lines; *l; l++) {
    const char *file = strchr(*l, '/');
    if (!file || !g_str_has_suffix(file, "/libcoreclr.so"))
      continue;
    g_autofree char *dir = g_path_get_dirname(file);
    g_autofree char *name = g_path_get_basename(dir);
    if (g_str_has_prefix(name, prefix))
      return g_steal_pointer(&name);
  }
  return NULL;
}

/* Does the folder hold a socket whose name begins with `prefix`? */
static gboolean has_socket(const char *dir, const char *prefix) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name(d)))
    if (g_str_has_prefix(name, prefix))
      return TRUE;
  return FALSE;
}

/* Waits until the target maps `needle` (its app's assembly: the runtime has started and runs the
 * app) and its folder holds a socket for each prefix. Fails the case with the target's output
 * when that does not happen in time. */
static void wait_ready(Fixture *f, GPid pid, const char *needle, const char *const *socket_prefixes) {
  gint64 deadline = g_get_monotonic_time() + READY_TIMEOUT * G_USEC_PER_SEC;
  for (;;) {
    g_autofree char *maps = maps_of(pid);
    gboolean ready = strstr(maps, needle) != NULL;
    for (const char *const *p = socket_prefixes; ready && p && *p; p++)
      ready = has_socket(f->dir, *p);
    if (ready)
      return;
    if (g_get_monotonic_time() > deadline) {
      g_autofree char *out_path = g_build_filename(f->dir, "target.out", NULL);
      g_autofree char *err_path = g_build_filename(f->dir, "target.err", NULL);
      g_autofree char *out = itest_read_file(out_path), *err = itest_read_file(err_path);
      g_test_message("target not ready: stdout:\n%s\nstderr:\n%s", out, err);
      g_assert_not_reached();
    }
    g_usleep(50 * 1000);
  }
}

/* The target has not exited (a zombie would still have a /proc entry). */
static void assert_running(GPid pid) {
  g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
  g_autofree char *stat = itest_read_file(path);
  const char *paren = strrchr(stat, ')');
  g_assert_nonnull(paren);
  g_assert_cmpint(paren[1], ==, ' ');
  g_assert_true(paren[2] != 'Z' && paren[2] != 'X');
}

/* Is a framework of this version folder installed under $SXS_RUNTIMES_DIR or beside the SDK? */
static gboolean framework_installed(const char *prefix) {
  char *dotnet = realpath(itest_env("SXS_DOTNET"), NULL);
  g_autofree char *sdk = g_path_get_dirname(dotnet ? dotnet : itest_env("SXS_DOTNET"));
  free(dotnet);
  const char *roots[] = {itest_env("SXS_RUNTIMES_DIR"), sdk};
  for (guint r = 0; r < G_N_ELEMENTS(roots); r++) {
    g_autofree char *folder = g_build_filename(roots[r], "shared", "Microsoft.NETCore.App", NULL);
    g_autoptr(GDir) d = g_dir_open(folder, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d)))
      if (g_str_has_prefix(name, prefix))
        return TRUE;
  }
  return FALSE;
}

/* The app run on the SDK's runtime, hot for longer than any case. */
static ItestProc *start_dotnet_app(Fixture *f, char **extra_env) {
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "hotcold", TARGET_SECONDS, NULL};
  ItestProc *p = start_target(f, argv, extra_env);
  g_autofree char *sock = g_strdup_printf("dotnet-diagnostic-%d-", (int)p->pid);
  const char *prefixes[] = {sock, NULL};
  wait_ready(f, p->pid, "/SxsSample.dll", prefixes);
  return p;
}

/* ---- sxsprof attach ---- */

/* sxsprof attach ARGS... in the case's folder with TMPDIR there; `library` sets SXSPROF_LIBRARY
 * (NULL: the library beside sxsprof). */
static ItestRun *attach(Fixture *f, const char *const *args, const char *library) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_SXSPROF"));
  g_ptr_array_add(argv, "attach");
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  g_autofree char *tmpdir = g_strconcat("TMPDIR=", f->dir, NULL);
  g_autofree char *lib = library ? g_strconcat("SXSPROF_LIBRARY=", library, NULL) : g_strdup("SXSPROF_LIBRARY");
  const char *env[] = {tmpdir, lib, NULL};
  return itest_run((const char *const *)argv->pdata, env, f->dir, RUN_TIMEOUT);
}

/* The run failed with `code` and said exactly `line` (one line) on stderr, nothing on stdout. */
static void assert_said(const ItestRun *run, int code, const char *line) {
  itest_assert_exit(run, code);
  g_autofree char *expected = g_strconcat(line, "\n", NULL);
  g_assert_cmpstr(run->err, ==, expected);
  g_assert_cmpstr(run->out, ==, "");
}

/* Nothing of the attach is left behind: no control socket, no generated config. */
static void assert_no_leftovers(Fixture *f) {
  g_autoptr(GDir) d = g_dir_open(f->dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name(d))) {
    g_assert_false(g_str_has_prefix(name, "sxsprof-attach-"));
    g_assert_false(g_str_has_suffix(name, ".conf") && g_str_has_prefix(name, "sxsprof-"));
  }
}

/* ---- Cases ---- */

/* Bad command lines are refused before anything is looked at (exit 2). */
static void test_command_line(Fixture *f, gconstpointer data) {
  (void)data;
  const struct {
    const char *args[4];
    const char *line;
  } cases[] = {
      {{NULL}, "sxsprof: attach needs a process id, e.g. sxsprof attach 1234"},
      {{"12x", NULL}, "sxsprof: \"12x\" is not a process id"},
      {{"0", NULL}, "sxsprof: \"0\" is not a process id"},
      {{"1", "2", NULL}, "sxsprof: attach takes one process id, not \"1\" and \"2\""},
      {{"--sample", "200", "1", NULL}, "sxsprof: a sampling frequency goes with '=': --sample=200"},
      {{"1", "--duration", "0", NULL}, "sxsprof: --duration 0 is not a number of seconds above 0"},
      {{"1", "--format", "png", NULL}, NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(ItestRun) run = attach(f, cases[i].args, NULL);
    if (cases[i].line) {
      assert_said(run, 2, cases[i].line);
    } else {
      itest_assert_exit(run, 2);
      g_assert_true(g_str_has_prefix(run->err, "sxsprof: --format: "));
      g_assert_nonnull(strstr(run->err, "png"));
    }
  }
}

/* A pid no process can have (pids stay below pid_max). */
static void test_no_such_process(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *max = itest_read_file("/proc/sys/kernel/pid_max");
  g_autofree char *pid = g_strdup_printf("%d", atoi(max));
  const char *args[] = {pid, NULL};
  g_autoptr(ItestRun) run = attach(f, args, NULL);
  g_autofree char *line = g_strdup_printf("sxsprof: no process %s", pid);
  assert_said(run, 1, line);
}

/* A process that is not .NET has no diagnostics channel. */
static void test_not_dotnet(Fixture *f, gconstpointer data) {
  (void)data;
  const char *argv[] = {"sleep", TARGET_SECONDS, NULL};
  g_autoptr(ItestProc) target = start_target(f, argv, NULL);
  wait_ready(f, target->pid, "sleep", NULL);
  g_autofree char *pid = g_strdup_printf("%d", (int)target->pid);
  const char *args[] = {pid, "--duration", "1", NULL};
  g_autoptr(ItestRun) run = attach(f, args, NULL);
  g_autofree char *line = g_strdup_printf("sxsprof: process %s has no .NET diagnostics channel (not .NET, .NET Core "
                                          "2.x, or started with DOTNET_EnableDiagnostics=0)",
                                          pid);
  assert_said(run, 1, line);
  assert_running(target->pid);
  assert_no_leftovers(f);
}

/* .NET Core 2.0 came before the diagnostics IPC: the message says so, by version. */
static void test_netcore20(Fixture *f, gconstpointer data) {
  (void)data;
  if (!framework_installed("2.0.")) {
    g_test_skip("no .NET Core 2.0 framework installed (tests/setup.sh installs it)");
    return;
  }
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_RUNSXS"), "2.0.0", app, "hotcold " TARGET_SECONDS, NULL};
  g_autoptr(ItestProc) target = start_target(f, argv, NULL);
  /* 2.0 reads the app's assembly without mapping it: its runtime library is what tells. */
  wait_ready(f, target->pid, "/libcoreclr.so", NULL);
  g_autofree char *version = mapped_version(target->pid, "2.0.");
  g_assert_nonnull(version);
  g_autofree char *pid = g_strdup_printf("%d", (int)target->pid);
  const char *args[] = {pid, NULL};
  g_autoptr(ItestRun) run = attach(f, args, NULL);
  g_autofree char *line = g_strdup_printf(
      "sxsprof: process %s runs .NET Core %s, which has no diagnostics channel; attaching needs .NET Core 3.0 or later",
      pid, version);
  assert_said(run, 1, line);
  assert_running(target->pid);
}

/* A process with one runtime has no runtime 2, by index or by version. */
static void test_no_such_runtime(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(ItestProc) target = start_dotnet_app(f, NULL);
  g_autofree char *version = mapped_version(target->pid, "");
  g_autofree char *pid = g_strdup_printf("%d", (int)target->pid);
  const char *args[] = {pid, "--runtime", "2", NULL};
  g_autoptr(ItestRun) run = attach(f, args, NULL);
  g_autofree char *line =
      g_strdup_printf("sxsprof: process %s has no runtime 2, by index or version (it runs [1] %s)", pid, version);
  assert_said(run, 1, line);
  assert_running(target->pid);
  assert_no_leftovers(f);
}

/* A library the runtime cannot load: the request reaches the runtime, which answers with an error
 * HRESULT, named; the process keeps running. */
static void test_library_missing(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(ItestProc) target = start_dotnet_app(f, NULL);
  g_autofree char *version = mapped_version(target->pid, "");
  g_autofree char *pid = g_strdup_printf("%d", (int)target->pid);
  g_autofree char *library = g_build_filename(f->dir, "missing", "libsxsprof.so", NULL);
  const char *args[] = {pid, "--duration", "1", NULL};
  g_autoptr(ItestRun) run = attach(f, args, library);
  g_autofree char *line = g_strdup_printf("sxsprof: runtime [1] %s of process %s refused the profiler: "
                                          "ERROR_MOD_NOT_FOUND (0x8007007E): the runtime could not load the profiler "
                                          "library (%s)",
                                          version, pid, library);
  assert_said(run, 1, line);
  assert_running(target->pid);
  assert_no_leftovers(f);
}

/* A process profiled from its start: the runtime takes one profiler and says so. */
static void test_already_profiled(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *text = g_strdup_printf("[profiler]\noutput=%s\n", f->output);
  g_autofree char *config = itest_write_file(f->dir, "startup.conf", text);
  g_auto(GStrv) env = itest_profiler_env(config);
  g_autoptr(ItestProc) target = start_dotnet_app(f, env);
  g_autofree char *version = mapped_version(target->pid, "");
  g_autofree char *pid = g_strdup_printf("%d", (int)target->pid);
  const char *args[] = {pid, "--duration", "1", NULL};
  g_autoptr(ItestRun) run = attach(f, args, NULL);
  g_autofree char *line = g_strdup_printf("sxsprof: runtime [1] %s of process %s refused the profiler: "
                                          "CORPROF_E_PROFILER_ALREADY_ACTIVE (0x8013136A): a profiler is already "
                                          "loaded in this runtime (it takes only one)",
                                          version, pid);
  assert_said(run, 1, line);
  assert_running(target->pid);
  assert_no_leftovers(f);
}

/* Two runtimes under runsxs --diagnostics: without --runtime the attach is refused with their
 * list; an index or a version that none has is refused with it too. */
static void test_several_runtimes(Fixture *f, gconstpointer data) {
  (void)data;
  if (!framework_installed("8.0.")) {
    g_test_skip("no .NET 8.0 framework installed (tests/setup.sh installs it)");
    return;
  }
  g_autofree char *app = itest_app("SxsSample");
  const char *argv[] = {itest_env("SXS_RUNSXS"),
                        "--diagnostics",
                        "10.0",
                        app,
                        "hotcold " TARGET_SECONDS,
                        "8.0",
                        app,
                        "hotcold " TARGET_SECONDS,
                        NULL};
  g_autoptr(ItestProc) target = start_target(f, argv, NULL);
  g_autofree char *rt1 = g_strdup_printf("sxsprof-runsxs-%d-rt1.sock", (int)target->pid);
  g_autofree char *rt2 = g_strdup_printf("sxsprof-runsxs-%d-rt2.sock", (int)target->pid);
  const char *prefixes[] = {rt1, rt2, NULL};
  wait_ready(f, target->pid, "/SxsSample.dll", prefixes);
  g_autofree char *v10 = mapped_version(target->pid, "10.");
  g_autofree char *v8 = mapped_version(target->pid, "8.");
  g_assert_nonnull(v10);
  g_assert_nonnull(v8);
  g_autofree char *pid = g_strdup_printf("%d", (int)target->pid);
  g_autofree char *list = g_strdup_printf("[1] %s, [2] %s", v10, v8);

  const char *none[] = {pid, NULL};
  g_autoptr(ItestRun) run = attach(f, none, NULL);
  g_autofree char *line = g_strdup_printf(
      "sxsprof: process %s runs 2 runtimes (%s); choose one with --runtime N, VERSION or PATH", pid, list);
  assert_said(run, 1, line);

  const char *index3[] = {pid, "--runtime", "3", NULL};
  g_autoptr(ItestRun) run3 = attach(f, index3, NULL);
  g_autofree char *line3 =
      g_strdup_printf("sxsprof: process %s has no runtime 3, by index or version (it runs %s)", pid, list);
  assert_said(run3, 1, line3);

  const char *v9[] = {pid, "--runtime", "9.0", NULL};
  g_autoptr(ItestRun) run9 = attach(f, v9, NULL);
  g_autofree char *line9 = g_strdup_printf("sxsprof: process %s has no runtime of version 9.0 (it runs %s)", pid, list);
  assert_said(run9, 1, line9);

  assert_running(target->pid);
  assert_no_leftovers(f);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add("/attach/bad/command-line", Fixture, NULL, itest_scratch_setup, test_command_line, itest_scratch_teardown);
  g_test_add("/attach/bad/no-such-process", Fixture, NULL, itest_scratch_setup, test_no_such_process,
             itest_scratch_teardown);
  g_test_add("/attach/bad/not-dotnet", Fixture, NULL, itest_scratch_setup, test_not_dotnet, itest_scratch_teardown);
  g_test_add("/attach/bad/netcore-2.0", Fixture, NULL, itest_scratch_setup, test_netcore20, itest_scratch_teardown);
  g_test_add("/attach/bad/no-such-runtime", Fixture, NULL, itest_scratch_setup, test_no_such_runtime,
             itest_scratch_teardown);
  g_test_add("/attach/bad/library-missing", Fixture, NULL, itest_scratch_setup, test_library_missing,
             itest_scratch_teardown);
  g_test_add("/attach/bad/already-profiled", Fixture, NULL, itest_scratch_setup, test_already_profiled,
             itest_scratch_teardown);
  g_test_add("/attach/bad/several-runtimes", Fixture, NULL, itest_scratch_setup, test_several_runtimes,
             itest_scratch_teardown);
  return g_test_run();
}
