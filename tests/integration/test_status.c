/* The status line of `sxsprof run`, as a person sees it: the run is started in a tmux pane of a
 * fixed size and the pane's screen is read while it runs and after it ended.
 *
 *   - the program's output goes to a file: "sxsprof: running N s, 1 process profiled, M samples"
 *     is redrawn in place with growing counts, and gone from the screen and the scrollback once the
 *     summary is printed;
 *   - -q: never drawn;
 *   - the program writes to the same terminal: never drawn while it runs (its lines would land on
 *     it), and the program's line is on the screen whole;
 *   - stderr not a terminal (a file): nothing of it in the file, no carriage return. */
#include <string.h>
#include <unistd.h>

#include "itest.h"

#define PANE_COLUMNS 160
#define PANE_ROWS 40
#define ROUNDS "1500"

/* The screen and scrollback of the session's pane. Caller frees. */
static char *capture(const char *session) {
  const char *argv[] = {"tmux", "capture-pane", "-p", "-J", "-S", "-2000", "-t", session, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, NULL, 20);
  g_assert_cmpint(run->exit_code, ==, 0);
  return g_strdup(run->out);
}

/* The samples of the last status line on the screen, or -1 when there is none; its text (caller
 * frees) in *ret_line. */
static gint64 status_samples(const char *screen, char **ret_line) {
  g_autoptr(GRegex) re =
      g_regex_new("^sxsprof: running ([0-9]+) s, 1 process profiled, ([0-9,]+) samples$", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr(GMatchInfo) m = NULL;
  gint64 samples = -1;
  if (g_regex_match(re, screen, 0, &m)) {
    for (; g_match_info_matches(m); g_match_info_next(m, NULL)) {
      g_autofree char *count = g_match_info_fetch(m, 2);
      g_autoptr(GString) digits = g_string_new(NULL);
      for (const char *c = count; *c; c++)
        if (*c != ',')
          g_string_append_c(digits, *c);
      samples = g_ascii_strtoll(digits->str, NULL, 10);
      if (ret_line) {
        g_free(*ret_line);
        *ret_line = g_match_info_fetch(m, 0);
      }
    }
  }
  return samples;
}

typedef struct {
  char *session;
  char *dir;
  char *done; /* the file the pane's shell writes sxsprof's exit status to */
} Pane;

/* A pane's names: its session and a fresh folder. */
static void pane_new(Pane *p, const char *name) {
  p->dir = itest_tmpdir();
  p->session = g_strdup_printf("sxs-status-%d-%s", (int)getpid(), name);
  p->done = g_build_filename(p->dir, "done", NULL);
}

/* Starts `command` (a shell command line) in the pane, a new detached tmux session. */
static void pane_launch(Pane *p, const char *command) {
  g_autofree char *script = g_strdup_printf("%s; echo $? > %s; sleep 600", command, p->done);
  g_autofree char *x = g_strdup_printf("%d", PANE_COLUMNS), *y = g_strdup_printf("%d", PANE_ROWS);
  const char *argv[] = {"tmux", "new-session", "-d", "-s", p->session, "-x", x, "-y", y, script, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, NULL, 20);
  g_assert_cmpint(run->exit_code, ==, 0);
}

static void pane_stop(Pane *p) {
  const char *argv[] = {"tmux", "kill-session", "-t", p->session, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, NULL, NULL, 20);
  itest_rmtree(p->dir);
  g_free(p->session);
  g_free(p->dir);
  g_free(p->done);
}

static gboolean pane_done(const Pane *p) {
  return g_file_test(p->done, G_FILE_TEST_EXISTS);
}

/* The command line that profiles Shift (its output to `out`, or to the terminal when NULL). */
static char *profile_command(const Pane *p, const char *options, const char *out) {
  g_autofree char *app = itest_app("Shift");
  g_autofree char *program =
      out ? g_strdup_printf("sh -c 'exec %s %s split 50 %s >%s 2>&1'", itest_env("SXS_DOTNET"), app, ROUNDS, out)
          : g_strdup_printf("%s %s split 50 %s", itest_env("SXS_DOTNET"), app, ROUNDS);
  return g_strdup_printf("env -u CORECLR_ENABLE_PROFILING %s run --sample %s -o %s/out/ -- %s",
                         itest_env("SXS_SXSPROF"), options, p->dir, program);
}

/* Reads the pane until the run ended (at most 120 s): the sample counts of the status lines seen,
 * in order, into counts; the final screen returned (caller frees). */
static char *watch(Pane *p, GArray *counts) {
  gint64 deadline = g_get_monotonic_time() + 120 * G_USEC_PER_SEC;
  while (!pane_done(p) && g_get_monotonic_time() < deadline) {
    g_usleep(300 * 1000);
    g_autofree char *screen = capture(p->session);
    g_autofree char *line = NULL;
    gint64 n = status_samples(screen, &line);
    if (n >= 0 && !pane_done(p)) {
      g_test_message("seen: %s", line);
      g_array_append_val(counts, n);
    }
  }
  g_assert_true(pane_done(p));
  g_usleep(200 * 1000);
  return capture(p->session);
}

/* Profiles Shift in a new pane `name` with `options`, its output to a file of the pane's folder
 * (its path in *ret_out, caller frees) or, when ret_out is NULL, to the terminal; the status lines'
 * counts seen while it ran into counts; the final screen returned (caller frees). */
static char *pane_profile(Pane *p, const char *name, const char *options, char **ret_out, GArray *counts) {
  pane_new(p, name);
  char *out = ret_out ? g_build_filename(p->dir, "program.out", NULL) : NULL;
  g_autofree char *command = profile_command(p, options, out);
  pane_launch(p, command);
  if (ret_out)
    *ret_out = out;
  return watch(p, counts);
}

static void test_redrawn_then_gone(void) {
  Pane p = {0};
  g_autofree char *out = NULL;
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(gint64));
  g_autofree char *screen = pane_profile(&p, "run", "", &out, counts);
  g_test_message("final screen:\n%s", screen);
  /* Drawn, with counts that grow, never going back. */
  g_assert_cmpuint(counts->len, >=, 2);
  for (guint i = 1; i < counts->len; i++)
    g_assert_cmpint(g_array_index(counts, gint64, i), >=, g_array_index(counts, gint64, i - 1));
  g_assert_cmpint(g_array_index(counts, gint64, counts->len - 1), >, g_array_index(counts, gint64, 0));
  /* Gone: nowhere on the screen or in the scrollback once the summary is there. */
  g_assert_nonnull(strstr(screen, "sxsprof: flame graph: "));
  g_assert_null(strstr(screen, "sxsprof: running"));
  g_assert_null(strstr(screen, "writing the views"));
  g_autofree char *program_out = NULL;
  g_assert_true(g_file_get_contents(out, &program_out, NULL, NULL));
  g_assert_cmpstr(program_out, ==, "split percent=50 rounds=" ROUNDS "\n");
  pane_stop(&p);
}

static void test_quiet(void) {
  Pane p = {0};
  g_autofree char *out = NULL;
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(gint64));
  g_autofree char *screen = pane_profile(&p, "quiet", "-q", &out, counts);
  g_assert_cmpuint(counts->len, ==, 0);
  g_assert_null(strstr(screen, "sxsprof"));
  pane_stop(&p);
}

/* The program writes to the terminal: no line drawn while it runs; its own line whole. */
static void test_program_on_terminal(void) {
  Pane p = {0};
  g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(gint64));
  g_autofree char *screen = pane_profile(&p, "shared", "", NULL, counts);
  g_assert_cmpuint(counts->len, ==, 0);
  g_assert_null(strstr(screen, "sxsprof: running"));
  g_autoptr(GRegex) whole = g_regex_new("^split percent=50 rounds=" ROUNDS "$", G_REGEX_MULTILINE, 0, NULL);
  g_assert_true(g_regex_match(whole, screen, 0, NULL));
  g_assert_nonnull(strstr(screen, "sxsprof: flame graph: "));
  pane_stop(&p);
}

/* stderr a file: the launcher's lines only, no carriage return, no status. */
static void test_not_a_terminal(void) {
  g_autofree char *dir = itest_tmpdir();
  g_autofree char *app = itest_app("Shift");
  g_autofree char *output = g_strdup_printf("%s/out/", dir);
  const char *argv[] = {itest_env("SXS_SXSPROF"), "run", "--sample", "-o", output, "--",
                        itest_env("SXS_DOTNET"),  app,   "split",    "50", "400",  NULL};
  const char *env[] = {ITEST_NO_PROFILER_ENV, NULL};
  g_autoptr(ItestRun) run = itest_run(argv, env, NULL, 120);
  g_assert_cmpint(run->exit_code, ==, 0);
  g_assert_nonnull(strstr(run->err, "sxsprof: flame graph: "));
  g_assert_null(strchr(run->err, '\r'));
  g_assert_null(strstr(run->err, "\033["));
  g_assert_null(strstr(run->err, "running"));
  itest_rmtree(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/status/tmux/redrawn-then-gone", test_redrawn_then_gone);
  g_test_add_func("/status/tmux/quiet", test_quiet);
  g_test_add_func("/status/tmux/program-on-terminal", test_program_on_terminal);
  g_test_add_func("/status/not-a-terminal", test_not_a_terminal);
  return g_test_run();
}
