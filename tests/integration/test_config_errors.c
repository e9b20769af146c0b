/* The error table of docs/config.md under a real runtime: every rejected config of
 * tests/unit/sxs_config_cases.h, and every file that cannot be a config, given to a program that
 * writes on its stdout and its stderr and exits with 2. With the profiler loaded the program's
 * stdout, stderr and exit status are byte for byte those of a run without it; the profiler's one
 * line goes to the default log, profiling is off and no profile is written. The launcher refuses
 * the same file with one line on its stderr and does not start the program. Nothing from GLib
 * may show anywhere: the profiler never has it parse a config. */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"
#include "sxs_config_cases.h"

#define TIMEOUT 120

typedef ItestScratch Fixture;

/* One file that is not a config: its path (made in the fixture's folder) and message. */
typedef struct {
  const char *name;
  const char *message; /* after the path */
} BadFile;

static const BadFile bad_files[] = {
    {"missing", ": no such file; expected an existing config file"},
    {"folder", ": is a folder; expected a config file"},
    {"device", ": is not a regular file; expected a config file"},
    {"fifo", ": is not a regular file; expected a config file"},
    {"too-large", ": is 2097152 bytes; expected a config file of at most 1 MiB (1048576 bytes)"},
    {"through-a-file", ": cannot open (Not a directory); expected a readable config file"},
};

/* The program: ExitCode 3 x writes "exiting with 3" on stdout, its usage on stderr, exits 2. */
static ItestRun *run_program(const char *dir, const char *config) {
  g_autofree char *app = itest_app("ExitCode");
  const char *argv[] = {itest_env("SXS_DOTNET"), app, "3", "x", NULL};
  g_auto(GStrv) env = config ? itest_profiler_env(config) : NULL;
  const char *plain[] = {"CORECLR_ENABLE_PROFILING", "SXSPROF_CONFIG", NULL};
  return itest_run(argv, config ? (const char *const *)env : plain, dir, TIMEOUT);
}

static ItestRun *baseline;

/* The profiled run of config (a path), and the launcher's: path and message as the config
 * reader says them. */
static void check_config(Fixture *f, const char *path, const char *message) {
  if (!baseline) {
    baseline = run_program(f->dir, NULL);
    itest_assert_exit(baseline, 2);
    g_assert_cmpstr(baseline->out, ==, "exiting with 3\n");
    g_assert_true(g_str_has_prefix(baseline->err, "usage: ExitCode"));
  }
  g_autoptr(ItestRun) run = run_program(f->dir, path);
  g_test_message("profiled: exit %d\nstdout:\n%s\nstderr:\n%s", run->exit_code, run->out, run->err);
  itest_assert_exit(run, baseline->exit_code);
  g_assert_cmpstr(run->out, ==, baseline->out);
  g_assert_cmpstr(run->err, ==, baseline->err);

  /* The default log beside the default profile, in the program's folder: one line. */
  g_autofree char *log = NULL;
  g_autoptr(GDir) dir = g_dir_open(f->dir, 0, NULL);
  for (const char *name; (name = g_dir_read_name(dir));) {
    g_assert_false(g_str_has_suffix(name, ".json"));
    if (g_str_has_prefix(name, "sxsprof-") && g_str_has_suffix(name, ".log")) {
      g_assert_null(log);
      g_autofree char *log_path = g_build_filename(f->dir, name, NULL);
      log = itest_read_file(log_path);
    }
  }
  g_assert_nonnull(log);
  g_autofree char *line = g_strdup_printf("]: %s%s; profiling is off for this process\n", path, message);
  g_assert_true(g_str_has_prefix(log, "sxsprof["));
  g_assert_true(g_str_has_suffix(log, line));
  g_assert_cmpuint(strlen(strchr(log, '\n')), ==, 1); /* one line */

  const char *launcher[] = {itest_env("SXS_SXSPROF"), "run", "--config", path, "--", "true", NULL};
  g_autoptr(ItestRun) refused = itest_run(launcher, NULL, f->dir, TIMEOUT);
  itest_assert_exit(refused, 2);
  g_assert_cmpstr(refused->out, ==, "");
  g_autofree char *expected = g_strdup_printf("sxsprof: %s%s; the program was not started\n", path, message);
  g_assert_cmpstr(refused->err, ==, expected);
}

static void test_bad_case(Fixture *f, gconstpointer data) {
  const BadCase *c = data;
  if (c->touch)
    g_free(itest_write_file(f->dir, c->touch, "not a runtime\n"));
  g_autofree char *path = g_build_filename(f->dir, "sxsprof.ini", NULL);
  gsize len = c->len ? (gsize)c->len : strlen(c->text);
  g_autoptr(GString) text = g_string_new_len(c->text, (gssize)len);
  if (!c->len)
    g_string_replace(text, "@DIR@", f->dir, 0);
  g_assert_true(g_file_set_contents(path, text->str, (gssize)text->len, NULL));
  g_autoptr(GString) message = g_string_new(c->message);
  g_string_replace(message, "@DIR@", f->dir, 0);
  check_config(f, path, message->str);
}

static void test_bad_file(Fixture *f, gconstpointer data) {
  const BadFile *b = data;
  g_autofree char *path = NULL;
  if (g_str_equal(b->name, "missing")) {
    path = g_build_filename(f->dir, "absent.ini", NULL);
  } else if (g_str_equal(b->name, "folder")) {
    path = g_build_filename(f->dir, "conf.d", NULL);
    g_assert_cmpint(g_mkdir(path, 0755), ==, 0);
  } else if (g_str_equal(b->name, "device")) {
    path = g_strdup("/dev/null");
  } else if (g_str_equal(b->name, "fifo")) {
    path = g_build_filename(f->dir, "fifo.ini", NULL);
    g_assert_cmpint(mkfifo(path, 0600), ==, 0);
  } else if (g_str_equal(b->name, "too-large")) {
    path = g_build_filename(f->dir, "big.ini", NULL);
    g_autofree char *big = g_strnfill(2 * 1024 * 1024, '#');
    g_assert_true(g_file_set_contents(path, big, -1, NULL));
  } else {
    g_autofree char *file = itest_write_file(f->dir, "plain", "x");
    path = g_build_filename(file, "x.ini", NULL);
  }
  check_config(f, path, b->message);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
    g_autofree char *path = g_strdup_printf("/config-errors/case/%s", bad_cases[i].name);
    g_test_add(path, Fixture, &bad_cases[i], itest_scratch_setup, test_bad_case, itest_scratch_teardown);
  }
  for (guint i = 0; i < G_N_ELEMENTS(bad_files); i++) {
    g_autofree char *path = g_strdup_printf("/config-errors/file/%s", bad_files[i].name);
    g_test_add(path, Fixture, &bad_files[i], itest_scratch_setup, test_bad_file, itest_scratch_teardown);
  }
  int status = g_test_run();
  itest_run_free(baseline);
  return status;
}
