/* Shared support for integration tests: run real processes with a timeout, read profiles. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

/* The outcome of one child process. */
typedef struct {
  int exit_code;      /* exit status, or 128+signal when killed by a signal */
  gboolean timed_out; /* killed because it ran past its timeout */
  char *out;          /* everything it wrote to stdout */
  char *err;          /* everything it wrote to stderr */
} ItestRun;

/* Runs argv (argv[0] looked up in PATH) with the current environment plus `env` ("K=V" strings;
 * "K" alone removes K), in `cwd` (NULL: the current folder), stdin from /dev/null. Kills the whole
 * process group after timeout_sec. Never returns NULL. */
ItestRun *itest_run(const char *const *argv, const char *const *env, const char *cwd, int timeout_sec);
/* Like itest_run, and sends signal `signo` to the child (not its group) signal_after_ms after
 * the start, if it is still running then. */
ItestRun *itest_run_signal(const char *const *argv, const char *const *env, const char *cwd, int timeout_sec,
                           int signal_after_ms, int signo);
void itest_run_free(ItestRun *run);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ItestRun, itest_run_free)

/* The value of a SXS_* variable set by ctest; fails the test when it is missing. */
const char *itest_env(const char *name);

/* $SXS_APPS_DIR/<name>/<name>.dll; fails the test when it does not exist. */
char *itest_app(const char *name);

/* Numeric component-wise comparison of "a.b.c" versions: <0, 0, >0. */
int itest_version_cmp(const char *a, const char *b);

/* Environment entries that load libsxsprof.so into a runtime, with SXSPROF_CONFIG=config (NULL:
 * variable removed) and the launcher's variables (SXSPROF_OUTPUT, SXSPROF_OWNER_PID,
 * SXSPROF_RUN_ID) removed. Returns a NULL-terminated array for g_strfreev. */
char **itest_profiler_env(const char *config);

/* The variables a run unsets so that neither a profiler the test itself runs under nor a
 * launcher's variables reach the program: the start of an env list for itest_run. */
#define ITEST_NO_PROFILER_ENV                                                                                          \
  "CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER", "CORECLR_PROFILER_PATH", "SXSPROF_CONFIG", "SXSPROF_OUTPUT",         \
      "SXSPROF_OWNER_PID", "SXSPROF_RUN_ID", "SXSPROF_LAUNCHER"

/* A fresh temporary folder for one scenario (removed by the caller with itest_rmtree). */
char *itest_tmpdir(void);
void itest_rmtree(const char *path);

/* A scratch folder for one g_test case, and the profile prefix inside it: use as a g_test fixture
 * (g_test_add(path, ItestScratch, data, itest_scratch_setup, fn, itest_scratch_teardown)). */
typedef struct {
  char *dir;     /* removed at teardown */
  char *output;  /* dir/prof: the output= prefix */
  char *profile; /* dir/prof.json */
} ItestScratch;
void itest_scratch_setup(ItestScratch *s, gconstpointer data);
void itest_scratch_teardown(ItestScratch *s, gconstpointer data);

/* Writes `text` to dir/name and returns the full path. */
char *itest_write_file(const char *dir, const char *name, const char *text);

/* Parses a JSON file; fails the test with the parser's message when it cannot. Caller unrefs. A
 * profile of version 2 comes back with its stacks' frames written out as objects from its frame
 * table (each with its "sp" as "0x..."), as version 1 had them, so tests read one shape. */
JsonNode *itest_load_json(const char *path);

/* The runtimes array's member whose "id" is `id`, or NULL. */
JsonObject *itest_profile_runtime(JsonNode *profile, gint64 id);
/* Number of runtimes in the profile. */
guint itest_profile_runtime_count(JsonNode *profile);
/* counters.<name> of a runtime object; fails the test when absent. */
gint64 itest_runtime_counter(JsonObject *runtime, const char *name);
/* The functions[] entry with this exact name, or NULL. */
JsonObject *itest_runtime_function(JsonObject *runtime, const char *name);
/* Number of functions[] entries whose name starts with `prefix`. */
guint itest_runtime_count_functions(JsonObject *runtime, const char *prefix);

/* Asserts that the run exited with `code` and did not time out, printing its output otherwise. */
#define itest_assert_exit(run, code)                                                                                   \
  do {                                                                                                                 \
    if ((run)->timed_out || (run)->exit_code != (code))                                                                \
      g_test_message("stdout:\n%s\nstderr:\n%s", (run)->out, (run)->err);                                              \
    g_assert_false((run)->timed_out);                                                                                  \
    g_assert_cmpint((run)->exit_code, ==, (code));                                                                     \
  } while (0)

/* A process left running in the background, its stdout and stderr going to files, stdin from
 * /dev/null (or a pipe the test holds: stdin_fd), in a process group of its own. */
typedef struct {
  GPid pid;
  char *out_path;
  char *err_path;
  int stdin_fd; /* write end of the child's stdin when started with a pipe; -1 otherwise */
} ItestProc;

/* Starts argv like itest_run (env and cwd alike), stdout to out_path and stderr to err_path;
 * with_stdin_pipe gives the child a pipe as stdin that stays open until itest_proc_close_stdin.
 * Fails the test when it cannot start. */
ItestProc *itest_spawn(const char *const *argv, const char *const *env, const char *cwd, const char *out_path,
                       const char *err_path, gboolean with_stdin_pipe);
void itest_proc_close_stdin(ItestProc *p);
/* Waits up to timeout_sec for the process; returns its exit status (128+signal when killed), or
 * -1 when it timed out (it is then killed with its group). */
int itest_proc_wait(ItestProc *p, int timeout_sec);
/* Kills the group if the process still runs. Accepts NULL. */
void itest_proc_free(ItestProc *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ItestProc, itest_proc_free)

/* The whole content of a file, "" when it does not exist. */
char *itest_read_file(const char *path);
/* Waits up to timeout_sec until `path` contains `needle`; TRUE when it does. */
gboolean itest_wait_for_text(const char *path, const char *needle, int timeout_sec);
