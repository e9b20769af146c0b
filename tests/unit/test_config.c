/* Unit tests of the config file parser: every rejected config with its exact one-line message,
 * accepted configs (CRLF, BOM, escapes, paths made absolute, [tracing], [stacks], [sampling]), selector
 * matching, include=/exclude= matching, output checks. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sxs_config.h"
#include "sxs_scratch.h"

#include "sxs_config_cases.h"

typedef struct {
  char *dir; /* fresh folder per test, removed afterwards */
} Fixture;

static void fixture_setup(Fixture *f, gconstpointer data) {
  (void)data;
  f->dir = sxs_scratch_new("sxsprof-config");
}

static void fixture_teardown(Fixture *f, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(f->dir);
}

/* Replaces every "@DIR@" in template with the fixture's folder. */
static char *with_dir(const Fixture *f, const char *template) {
  GString *s = g_string_new(template);
  g_string_replace(s, "@DIR@", f->dir, 0);
  return g_string_free(s, FALSE);
}

static char *write_file(const Fixture *f, const char *name, const char *data, gssize len) {
  char *path = g_build_filename(f->dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_file_set_contents(path, data, len, &error);
  g_assert_no_error(error);
  return path;
}

static void make_coreclr_folder(const char *folder) {
  g_assert_cmpint(g_mkdir_with_parents(folder, 0755), ==, 0);
  g_autofree char *lib = g_build_filename(folder, "libcoreclr.so", NULL);
  g_autoptr(GError) error = NULL;
  g_file_set_contents(lib,
                      "\x7f"
                      "ELF",
                      -1, &error);
  g_assert_no_error(error);
}

/* Loads path and checks that it fails with exactly this code and message, on one line. */
static void assert_load_error(const char *path, int code, const char *expected) {
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsConfig) cfg = sxs__config_load(path, &error);
  g_assert_null(cfg);
  g_assert_nonnull(error);
  g_assert_cmpstr(error->message, ==, expected);
  g_assert_error(error, SXS_CONFIG_ERROR, code);
  g_assert_null(strchr(error->message, '\n'));
}

static SxsConfig *load_ok(const char *path) {
  g_autoptr(GError) error = NULL;
  SxsConfig *cfg = sxs__config_load(path, &error);
  g_assert_no_error(error);
  g_assert_nonnull(cfg);
  return cfg;
}

static SxsConfig *load_text_ok(const Fixture *f, const char *text) {
  g_autofree char *path = write_file(f, "sxsprof.ini", text, -1);
  SxsConfig *cfg = load_ok(path);
  g_assert_cmpstr(cfg->source, ==, path);
  return cfg;
}

static void test_bad_case(Fixture *f, gconstpointer data) {
  const BadCase *c = data;
  if (c->touch)
    g_free(write_file(f, c->touch, "not a runtime\n", -1));
  /* Texts with an explicit length hold a NUL byte and no @DIR@. */
  g_autofree char *text = c->len ? g_memdup2(c->text, (gsize)c->len) : with_dir(f, c->text);
  gssize len = c->len ? c->len : (gssize)strlen(text);
  g_autofree char *path = write_file(f, "sxsprof.ini", text, len);
  g_autofree char *suffix = with_dir(f, c->message);
  g_autofree char *expected = g_strconcat(path, suffix, NULL);
  assert_load_error(path, c->code, expected);
}

/* ---- Rejected files ---- */

static void test_file_missing(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *path = g_build_filename(f->dir, "absent.ini", NULL);
  g_autofree char *expected = g_strconcat(path, ": no such file; expected an existing config file", NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_FILE, expected);
}

static void test_file_not_a_directory(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *plain = write_file(f, "plain", "x", -1);
  g_autofree char *path = g_build_filename(plain, "sxsprof.ini", NULL);
  g_autofree char *expected =
      g_strconcat(path, ": cannot open (Not a directory); expected a readable config file", NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_FILE, expected);
}

/* Runs fn in a child process that has dropped root privileges (to nobody), since root reads and
 * writes through any permission bits. Skips when privileges cannot be dropped. */
static void run_unprivileged(void (*fn)(gconstpointer), gconstpointer data) {
  pid_t pid = fork();
  g_assert_cmpint(pid, >=, 0);
  if (pid == 0) {
    if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
      _exit(77);
    fn(data);
    _exit(0);
  }
  int status = 0;
  g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
  g_assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    g_test_skip("running as root and cannot drop privileges to test permissions");
    return;
  }
  g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

static void unreadable_check(gconstpointer data) {
  const char *path = data;
  g_autofree char *expected =
      g_strconcat(path, ": cannot open (Permission denied); expected a readable config file", NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_FILE, expected);
}

static void test_file_unreadable(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *path = write_file(f, "sxsprof.ini", "[profiler]\n", -1);
  g_assert_cmpint(chmod(f->dir, 0755), ==, 0);
  g_assert_cmpint(chmod(path, 0000), ==, 0);
  if (geteuid() == 0)
    run_unprivileged(unreadable_check, path);
  else
    unreadable_check(path);
}

static void test_file_empty_name(void) {
  assert_load_error("", SXS_CONFIG_ERROR_FILE, "(config): the config file name is empty; expected a path");
}

static void test_file_directory(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *expected = g_strconcat(f->dir, ": is a folder; expected a config file", NULL);
  assert_load_error(f->dir, SXS_CONFIG_ERROR_FILE, expected);
}

static void test_file_device(Fixture *f, gconstpointer data) {
  (void)f, (void)data;
  assert_load_error("/dev/null", SXS_CONFIG_ERROR_FILE, "/dev/null: is not a regular file; expected a config file");
}

static void test_file_fifo(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *path = g_build_filename(f->dir, "fifo", NULL);
  g_assert_cmpint(mkfifo(path, 0600), ==, 0);
  g_autofree char *expected = g_strconcat(path, ": is not a regular file; expected a config file", NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_FILE, expected); /* must not block waiting for a writer */
}

static void test_file_too_large(Fixture *f, gconstpointer data) {
  (void)data;
  gsize len = SXS_CONFIG_MAX_SIZE + 1;
  g_autofree char *text = g_malloc(len);
  memset(text, '#', len);
  g_autofree char *path = write_file(f, "sxsprof.ini", text, (gssize)len);
  g_autofree char *expected =
      g_strconcat(path, ": is 1048577 bytes; expected a config file of at most 1 MiB (1048576 bytes)", NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_FILE, expected);
}

/* A sparse 4 GiB file is refused from its size alone, without reading it. */
static void test_file_huge_sparse(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *path = write_file(f, "sxsprof.ini", "[profiler]\n", -1);
  g_assert_cmpint(truncate(path, (off_t)4 << 30), ==, 0);
  g_autofree char *expected =
      g_strconcat(path, ": is 4294967296 bytes; expected a config file of at most 1 MiB (1048576 bytes)", NULL);
  gint64 start = g_get_monotonic_time();
  assert_load_error(path, SXS_CONFIG_ERROR_FILE, expected);
  g_assert_cmpint(g_get_monotonic_time() - start, <, G_USEC_PER_SEC);
}

static void test_file_exactly_max(Fixture *f, gconstpointer data) {
  (void)data;
  gsize len = SXS_CONFIG_MAX_SIZE;
  g_autofree char *text = g_malloc(len);
  memset(text, ' ', len);
  const char head[] = "[profiler]\nmode=pick-first\n#";
  memcpy(text, head, sizeof head - 1);
  text[len - 1] = '\n';
  g_autofree char *path = write_file(f, "sxsprof.ini", text, (gssize)len);
  g_autoptr(SxsConfig) cfg = load_ok(path);
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_FIRST);
}

/* ---- Accepted configs ---- */

static void test_defaults(void) {
  g_autoptr(SxsConfig) cfg = sxs__config_new_default();
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *name = g_strdup_printf("sxsprof-%ld", (long)getpid());
  g_autofree char *output = g_build_filename(cwd, name, NULL);
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_ALL);
  g_assert_cmpint(cfg->selector_kind, ==, SXS_SELECTOR_NONE);
  g_assert_null(cfg->selector);
  g_assert_cmpstr(cfg->output, ==, output);
  g_assert_true(g_path_is_absolute(cfg->output));
  g_assert_false(cfg->output_is_folder);
  g_assert_cmpint(cfg->log_kind, ==, SXS_LOG_DEFAULT);
  g_assert_null(cfg->log_path);
  g_assert_cmpint(cfg->flush_seconds, ==, 60);
  g_assert_cmpuint(cfg->stacks_on, ==, 0);
  g_assert_false(cfg->inventory);
  g_assert_null(cfg->source);
}

/* [profiler] inventory=: off by default, on when asked, and on with tracing (which names the
 * functions it counts through it); tracing asked off leaves it as it is. */
static void test_inventory(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) absent = load_text_ok(f, "[profiler]\n");
  g_assert_false(absent->inventory);
  g_autoptr(SxsConfig) on = load_text_ok(f, "[profiler]\ninventory=true\n");
  g_assert_true(on->inventory);
  g_autoptr(SxsConfig) off = load_text_ok(f, "[profiler]\ninventory=false\n[tracing]\nenabled=false\n");
  g_assert_false(off->inventory);
  g_autoptr(SxsConfig) traced = load_text_ok(f, "[tracing]\nenabled=true\n[profiler]\n");
  g_assert_true(traced->inventory);
  g_autoptr(SxsConfig) both = load_text_ok(f, "[profiler]\ninventory=true\n[tracing]\nenabled=true\n");
  g_assert_true(both->inventory);
  g_assert_true(both->tracing.enabled);
}

static void test_env(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(GError) error = NULL;
  g_unsetenv(SXS_CONFIG_ENV);
  g_autoptr(SxsConfig) unset = sxs__config_load_env(&error);
  g_assert_no_error(error);
  g_assert_cmpint(unset->mode, ==, SXS_MODE_PICK_ALL);
  g_assert_null(unset->source);

  g_setenv(SXS_CONFIG_ENV, "", TRUE);
  g_autoptr(SxsConfig) empty = sxs__config_load_env(&error);
  g_assert_no_error(error);
  g_assert_null(empty->source);

  g_autofree char *path = write_file(f, "env.ini", "[profiler]\nmode=pick-first\n", -1);
  g_setenv(SXS_CONFIG_ENV, path, TRUE);
  g_autoptr(SxsConfig) named = sxs__config_load_env(&error);
  g_assert_no_error(error);
  g_assert_cmpint(named->mode, ==, SXS_MODE_PICK_FIRST);
  g_assert_cmpstr(named->source, ==, path);

  g_autofree char *missing = g_build_filename(f->dir, "missing.ini", NULL);
  g_setenv(SXS_CONFIG_ENV, missing, TRUE);
  g_autoptr(SxsConfig) none = sxs__config_load_env(&error);
  g_assert_null(none);
  g_assert_error(error, SXS_CONFIG_ERROR, SXS_CONFIG_ERROR_FILE);
  g_unsetenv(SXS_CONFIG_ENV);
}

static void test_group_only(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[profiler]\n");
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_ALL);
  g_assert_cmpstr(cfg->output, ==, defaults->output);
  g_assert_null(cfg->log_path);
  g_assert_null(cfg->selector);
}

static void test_full(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "# sxsprof settings\n"
                                             "\n"
                                             "  [profiler]  \n"
                                             "  # which runtimes\n"
                                             "mode = pick-one\n"
                                             "runtime=\t10.0   \n"
                                             "output=/tmp/profiles/app\n"
                                             "log = /tmp/profiles/sxsprof.log\n");
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_ONE);
  g_assert_cmpint(cfg->selector_kind, ==, SXS_SELECTOR_VERSION);
  g_assert_cmpstr(cfg->selector, ==, "10.0");
  g_assert_cmpstr(cfg->output, ==, "/tmp/profiles/app");
  g_assert_false(cfg->output_is_folder);
  g_assert_cmpint(cfg->log_kind, ==, SXS_LOG_FILE);
  g_assert_cmpstr(cfg->log_path, ==, "/tmp/profiles/sxsprof.log");
}

/* output= ending in / (or /. or /..) names a folder: profiles go there, one per process. */
static void test_output_folder(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) slash = load_text_ok(f, "[profiler]\noutput=/tmp/profiles/\n");
  g_assert_cmpstr(slash->output, ==, "/tmp/profiles");
  g_assert_true(slash->output_is_folder);
  g_autoptr(SxsConfig) dotdot = load_text_ok(f, "[profiler]\noutput=/tmp/profiles/a/..\n");
  g_assert_cmpstr(dotdot->output, ==, "/tmp/profiles");
  g_assert_true(dotdot->output_is_folder);
  g_autoptr(SxsConfig) prefix = load_text_ok(f, "[profiler]\noutput=/tmp/profiles/app\n");
  g_assert_false(prefix->output_is_folder);
}

static void test_log_and_flush(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) to_stderr = load_text_ok(f, "[profiler]\nlog=stderr\nflush=0\n");
  g_assert_cmpint(to_stderr->log_kind, ==, SXS_LOG_STDERR);
  g_assert_null(to_stderr->log_path);
  g_assert_cmpint(to_stderr->flush_seconds, ==, 0);
  g_autoptr(SxsConfig) most = load_text_ok(f, "[profiler]\nflush=86400\n");
  g_assert_cmpint(most->flush_seconds, ==, 86400);
  g_autoptr(SxsConfig) padded = load_text_ok(f, "[profiler]\nflush = 007\n");
  g_assert_cmpint(padded->flush_seconds, ==, 7);
}

/* The launcher's SXSPROF_OUTPUT has the grammar of output=. */
static void test_set_output(void) {
  g_autoptr(SxsConfig) cfg = sxs__config_new_default();
  g_autoptr(GError) error = NULL;
  g_assert_true(sxs__config_set_output(cfg, "/tmp/runs/", "SXSPROF_OUTPUT", &error));
  g_assert_cmpstr(cfg->output, ==, "/tmp/runs");
  g_assert_true(cfg->output_is_folder);
  g_assert_true(sxs__config_set_output(cfg, "/tmp/runs/app", "SXSPROF_OUTPUT", &error));
  g_assert_cmpstr(cfg->output, ==, "/tmp/runs/app");
  g_assert_false(cfg->output_is_folder);
  g_assert_false(sxs__config_set_output(cfg, "~/x", "SXSPROF_OUTPUT", &error));
  g_assert_cmpstr(error->message, ==, "SXSPROF_OUTPUT=\"~/x\" starts with ~, which is not expanded; " OUTPUT_EXPECTED);
  g_assert_cmpstr(cfg->output, ==, "/tmp/runs/app");
}

static void test_modes(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) first = load_text_ok(f, "[profiler]\nmode=pick-first\n");
  g_assert_cmpint(first->mode, ==, SXS_MODE_PICK_FIRST);
  g_autoptr(SxsConfig) all = load_text_ok(f, "[profiler]\nmode=pick-all\n");
  g_assert_cmpint(all->mode, ==, SXS_MODE_PICK_ALL);
  g_autoptr(SxsConfig) one = load_text_ok(f, "[profiler]\nmode=pick-one\nruntime=2.0.0\n");
  g_assert_cmpint(one->mode, ==, SXS_MODE_PICK_ONE);
  g_assert_cmpstr(one->selector, ==, "2.0.0");
  g_autoptr(SxsConfig) major = load_text_ok(f, "[profiler]\nruntime=10\nmode=pick-one\n");
  g_assert_cmpstr(major->selector, ==, "10");
  g_autoptr(SxsConfig) four = load_text_ok(f, "[profiler]\nmode=pick-one\nruntime=4.6.25519.02\n");
  g_assert_cmpstr(four->selector, ==, "4.6.25519.02");
}

static void test_mode_names(void) {
  g_assert_cmpstr(sxs__config_mode_name(SXS_MODE_PICK_FIRST), ==, "pick-first");
  g_assert_cmpstr(sxs__config_mode_name(SXS_MODE_PICK_ONE), ==, "pick-one");
  g_assert_cmpstr(sxs__config_mode_name(SXS_MODE_PICK_ALL), ==, "pick-all");
  g_assert_cmpstr(sxs__config_mode_name((SxsMode)42), ==, "unknown");
}

static void test_crlf(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg =
      load_text_ok(f, "# written on Windows\r\n[profiler]\r\nmode=pick-one\r\nruntime=8.0\r\nlog=/tmp/x.log\r\n");
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_ONE);
  g_assert_cmpstr(cfg->selector, ==, "8.0");
  g_assert_cmpstr(cfg->log_path, ==, "/tmp/x.log");
}

static void test_crlf_line_numbers(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *path = write_file(f, "sxsprof.ini", "[profiler]\r\n\r\nmode=pick-one\r\n", -1);
  g_autofree char *expected =
      g_strconcat(path,
                  ":3: mode=pick-one needs a runtime= line; expected runtime= with a version prefix such as 10.0 or an "
                  "absolute path of a runtime folder or of a libcoreclr.so",
                  NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_VALUE, expected);
}

static void test_bom(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "\xef\xbb\xbf[profiler]\nmode=pick-first\n");
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_FIRST);
}

static void test_no_final_newline(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[profiler]\nmode=pick-first");
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_FIRST);
}

static void test_escapes(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg =
      load_text_ok(f, "[profiler]\noutput=/tmp/my\\sprofiles/app\\s\nlog=/tmp/caf\xc3\xa9.log\n");
  g_assert_cmpstr(cfg->output, ==, "/tmp/my profiles/app ");
  g_assert_cmpstr(cfg->log_path, ==, "/tmp/caf\xc3\xa9.log");
}

static void test_relative_paths(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *cwd = g_get_current_dir();
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[profiler]\noutput=out/../profiles/app\nlog=sxsprof.log\n");
  g_autofree char *output = g_build_filename(cwd, "profiles", "app", NULL);
  g_autofree char *log = g_build_filename(cwd, "sxsprof.log", NULL);
  g_assert_cmpstr(cfg->output, ==, output);
  g_assert_cmpstr(cfg->log_path, ==, log);
}

static void test_runtime_folder(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *folder = g_build_filename(f->dir, "shared", "Microsoft.NETCore.App", "10.0.12", NULL);
  make_coreclr_folder(folder);
  g_autofree char *text = g_strdup_printf("[profiler]\nmode=pick-one\nruntime=%s//\n", folder);
  g_autoptr(SxsConfig) cfg = load_text_ok(f, text);
  g_autofree char *canonical = realpath(folder, NULL);
  g_assert_cmpint(cfg->selector_kind, ==, SXS_SELECTOR_PATH);
  g_assert_cmpstr(cfg->selector, ==, canonical);
}

static void test_runtime_file(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *folder = g_build_filename(f->dir, "10.0.12", NULL);
  make_coreclr_folder(folder);
  g_autofree char *text = g_strdup_printf("[profiler]\nmode=pick-one\nruntime=%s/./libcoreclr.so\n", folder);
  g_autoptr(SxsConfig) cfg = load_text_ok(f, text);
  g_autofree char *lib = g_build_filename(folder, "libcoreclr.so", NULL);
  g_autofree char *canonical = realpath(lib, NULL);
  g_assert_cmpint(cfg->selector_kind, ==, SXS_SELECTOR_PATH);
  g_assert_cmpstr(cfg->selector, ==, canonical);
}

static void test_runtime_symlink(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *folder = g_build_filename(f->dir, "10.0.12", NULL);
  make_coreclr_folder(folder);
  g_autofree char *link = g_build_filename(f->dir, "current", NULL);
  g_assert_cmpint(symlink(folder, link), ==, 0);
  g_autofree char *text = g_strdup_printf("[profiler]\nmode=pick-one\nruntime=%s\n", link);
  g_autoptr(SxsConfig) cfg = load_text_ok(f, text);
  g_autofree char *canonical = realpath(folder, NULL);
  g_assert_cmpstr(cfg->selector, ==, canonical);
}

/* ---- Selector matching ---- */

typedef struct {
  const char *selector, *version;
  gboolean matches;
} VersionMatch;

static void test_selector_version(void) {
  static const VersionMatch cases[] = {
      {"10", "10.0.12", TRUE},      {"10.0", "10.0.12", TRUE},       {"1", "10.0.12", FALSE},
      {"2.0.0", "2.0.0", TRUE},     {"8.0", "8.0.33", TRUE},         {"2.0", "2.0.0", TRUE},
      {"2", "2.0.0", TRUE},         {"8.0.3", "8.0.33", FALSE},      {"10.0.12", "10.0.12", TRUE},
      {"10.0.1", "10.0.12", FALSE}, {"2.0.0.0", "2.0.0", FALSE},     {"10", "9.0.1", FALSE},
      {"010", "10.0.1", TRUE},      {"10.0", "10.0.0-rc.1.2", TRUE}, {"10.0.0", "10.0.0+abcdef", TRUE},
      {"8", "80.0.0", FALSE},       {"10.0", "garbage", FALSE},      {"10.0", "", FALSE},
      {"10", "10..1", FALSE},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    SxsConfig cfg = {
        .mode = SXS_MODE_PICK_ONE, .selector_kind = SXS_SELECTOR_VERSION, .selector = (char *)cases[i].selector};
    gboolean got = sxs__config_selector_matches(&cfg, cases[i].version, "/x/libcoreclr.so");
    g_test_message("selector %s against version %s", cases[i].selector, cases[i].version);
    g_assert_cmpint(got, ==, cases[i].matches);
  }
  SxsConfig cfg = {.mode = SXS_MODE_PICK_ONE, .selector_kind = SXS_SELECTOR_VERSION, .selector = "10"};
  g_assert_false(sxs__config_selector_matches(&cfg, NULL, "/x/libcoreclr.so"));
}

static void test_selector_none(void) {
  g_autoptr(SxsConfig) cfg = sxs__config_new_default();
  g_assert_true(sxs__config_selector_matches(cfg, "10.0.12", "/x/libcoreclr.so"));
  g_assert_true(sxs__config_selector_matches(cfg, NULL, NULL));
}

static void test_selector_path(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *a = g_build_filename(f->dir, "a", "10.0.12", NULL);
  g_autofree char *b = g_build_filename(f->dir, "b", "10.0.12", NULL);
  make_coreclr_folder(a);
  make_coreclr_folder(b);
  g_autofree char *lib_a = g_build_filename(a, "libcoreclr.so", NULL);
  g_autofree char *lib_b = g_build_filename(b, "libcoreclr.so", NULL);
  g_autofree char *link = g_build_filename(f->dir, "via-link", NULL);
  g_assert_cmpint(symlink(a, link), ==, 0);
  g_autofree char *lib_link = g_build_filename(link, "libcoreclr.so", NULL);

  g_autofree char *folder_text = g_strdup_printf("[profiler]\nmode=pick-one\nruntime=%s\n", a);
  g_autoptr(SxsConfig) by_folder = load_text_ok(f, folder_text);
  g_assert_true(sxs__config_selector_matches(by_folder, "10.0.12", lib_a));
  g_assert_true(sxs__config_selector_matches(by_folder, NULL, lib_a));
  g_assert_true(sxs__config_selector_matches(by_folder, "10.0.12", lib_link));
  g_assert_false(sxs__config_selector_matches(by_folder, "10.0.12", lib_b));
  g_assert_false(sxs__config_selector_matches(by_folder, "10.0.12", NULL));
  g_assert_false(sxs__config_selector_matches(by_folder, "10.0.12", "/nonexistent/10.0.12/libcoreclr.so"));

  g_autofree char *file_text = g_strdup_printf("[profiler]\nmode=pick-one\nruntime=%s\n", lib_b);
  g_autoptr(SxsConfig) by_file = load_text_ok(f, file_text);
  g_assert_true(sxs__config_selector_matches(by_file, "10.0.12", lib_b));
  g_assert_false(sxs__config_selector_matches(by_file, "10.0.12", lib_a));
  g_assert_false(sxs__config_selector_matches(by_file, "10.0.12", lib_link));
}

/* ---- Output folder checks ---- */

static void assert_output(const char *prefix, int expected_r, const char *expected_message) {
  char *message = (char *)"untouched";
  int r = sxs__config_check_output(prefix, FALSE, &message);
  g_assert_cmpint(r, ==, expected_r);
  if (expected_message) {
    g_assert_cmpstr(message, ==, expected_message);
    g_free(message);
  } else {
    g_assert_cmpstr(message, ==, "untouched");
  }
}

static void test_output_ok(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *prefix = g_build_filename(f->dir, "app", NULL);
  assert_output(prefix, 0, NULL);
  g_assert_cmpint(sxs__config_check_output(prefix, FALSE, NULL), ==, 0);
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  char *message = NULL;
  int r = sxs__config_check_output(defaults->output, FALSE, &message);
  if (r < 0) /* the current folder may legitimately be read-only; then the message says so */
    g_assert_nonnull(message);
  g_free(message);
}

static void test_output_missing(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *folder = g_build_filename(f->dir, "no", "such", NULL);
  g_autofree char *prefix = g_build_filename(folder, "app", NULL);
  g_autofree char *expected = g_strdup_printf("The output folder %s does not exist", folder);
  assert_output(prefix, -ENOENT, expected);
  assert_output("/proc/sxsprof-x/out", -ENOENT, "The output folder /proc/sxsprof-x does not exist");
  g_assert_cmpint(sxs__config_check_output(prefix, FALSE, NULL), ==, -ENOENT);
}

static void test_output_file_as_folder(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *plain = write_file(f, "plain", "x", -1);
  g_autofree char *prefix = g_build_filename(plain, "app", NULL);
  g_autofree char *expected = g_strdup_printf("The output folder %s is not a folder", plain);
  assert_output(prefix, -ENOTDIR, expected);

  g_autofree char *deeper = g_build_filename(plain, "sub", "app", NULL);
  g_autofree char *expected_deeper =
      g_strdup_printf("The output folder %s/sub cannot be used (Not a directory)", plain);
  assert_output(deeper, -ENOTDIR, expected_deeper);
}

static void not_writable_check(gconstpointer data) {
  const char *folder = data;
  g_autofree char *prefix = g_build_filename(folder, "app", NULL);
  g_autofree char *expected = g_strdup_printf("The output folder %s is not writable (Permission denied)", folder);
  assert_output(prefix, -EACCES, expected);
}

static void test_output_not_writable(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *folder = g_build_filename(f->dir, "read-only", NULL);
  g_assert_cmpint(g_mkdir(folder, 0555), ==, 0);
  g_assert_cmpint(chmod(f->dir, 0755), ==, 0);
  if (geteuid() == 0)
    run_unprivileged(not_writable_check, folder);
  else
    not_writable_check(folder);
}

static void test_output_json_is_folder(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *json = g_build_filename(f->dir, "app.json", NULL);
  g_assert_cmpint(g_mkdir(json, 0755), ==, 0);
  g_autofree char *prefix = g_build_filename(f->dir, "app", NULL);
  g_autofree char *expected = g_strdup_printf("The output file %s is a folder", json);
  assert_output(prefix, -EISDIR, expected);
}

/* Folders that exist and say they are writable, to root too, but hold no file: refused with what
 * creating one says, and nothing is left behind where it could be. */
static void test_output_cannot_hold_files(Fixture *f, gconstpointer data) {
  (void)data;
  assert_output("/proc/p", -ENOENT,
                "The output folder /proc cannot hold a file (creating one fails: No such file or directory)");
  char *message = NULL;
  g_assert_cmpint(sxs__config_check_output("/sys/kernel", TRUE, &message), <, 0);
  g_assert_true(g_str_has_prefix(message, "The output folder /sys/kernel "));
  g_free(message);
  g_autofree char *prefix = g_build_filename(f->dir, "app", NULL);
  assert_output(prefix, 0, NULL);
  g_autoptr(GDir) dir = g_dir_open(f->dir, 0, NULL);
  g_assert_null(g_dir_read_name(dir));
}

/* <prefix>.json that is a FIFO (or a device): the profile would replace it. */
static void test_output_json_not_regular(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *json = g_build_filename(f->dir, "app.json", NULL);
  g_assert_cmpint(mkfifo(json, 0600), ==, 0);
  g_autofree char *prefix = g_build_filename(f->dir, "app", NULL);
  g_autofree char *expected = g_strdup_printf("The output file %s exists and is not a regular file", json);
  assert_output(prefix, -EEXIST, expected);
}

static void test_output_bad_prefix(void) {
  assert_output("", -EINVAL, "The output path is empty");
  assert_output(NULL, -EINVAL, "The output path is empty");
  assert_output("/tmp/", -EISDIR, "The output prefix /tmp/ names a folder, not a file prefix");
}

static void test_output_folder_check(Fixture *f, gconstpointer data) {
  (void)data;
  char *message = NULL;
  g_assert_cmpint(sxs__config_check_output(f->dir, TRUE, &message), ==, 0);
  g_assert_null(message);
  g_autofree char *missing = g_build_filename(f->dir, "none", NULL);
  g_assert_cmpint(sxs__config_check_output(missing, TRUE, &message), ==, -ENOENT);
  g_autofree char *expected = g_strdup_printf("The output folder %s does not exist", missing);
  g_assert_cmpstr(message, ==, expected);
  g_free(message);
  g_autofree char *plain = write_file(f, "plain", "x", -1);
  g_assert_cmpint(sxs__config_check_output(plain, TRUE, NULL), ==, -ENOTDIR);
}

/* ---- [tracing] ---- */

static void assert_tracing_defaults(const SxsTracingConfig *t) {
  g_assert_false(t->enabled);
  g_assert_false(t->inlining_allowed);
  g_assert_cmpint(t->routing, ==, SXS_ROUTING_MAPPER2);
  g_assert_cmpint(t->hooks, ==, SXS_HOOKS_FULL);
  g_assert_false(t->timing_off);
  g_assert_false(t->slow_path);
  g_assert_null(t->include);
  g_assert_null(t->exclude);
  g_assert_null(t->matcher);
}

static void test_tracing_defaults(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  assert_tracing_defaults(&defaults->tracing);
  g_autoptr(SxsConfig) absent = load_text_ok(f, "[profiler]\nmode=pick-first\n");
  assert_tracing_defaults(&absent->tracing);
  g_autoptr(SxsConfig) empty = load_text_ok(f, "[tracing]\n[profiler]\n");
  assert_tracing_defaults(&empty->tracing);
  g_assert_true(sxs__config_traces(absent, "MyApp.Program.Main"));
}

static void test_tracing_all_keys(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[profiler]\n"
                                             "mode = pick-one\n"
                                             "runtime = 8.0\n"
                                             "\n"
                                             "# exact call counts of the app's own code\n"
                                             "  [tracing]  \n"
                                             "enabled = true\n"
                                             "inlining = allowed\n"
                                             "routing = closure\n"
                                             "hooks = empty\n"
                                             "include = MyApp.*, Other.Type.Method\n"
                                             "exclude = *..ctor\n");
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_ONE);
  g_assert_cmpstr(cfg->selector, ==, "8.0");
  g_assert_true(cfg->tracing.enabled);
  g_assert_true(cfg->tracing.inlining_allowed);
  g_assert_cmpint(cfg->tracing.routing, ==, SXS_ROUTING_CLOSURE);
  g_assert_cmpint(cfg->tracing.hooks, ==, SXS_HOOKS_EMPTY);
  const char *const include[] = {"MyApp.*", "Other.Type.Method", NULL};
  const char *const exclude[] = {"*..ctor", NULL};
  g_assert_true(g_strv_equal((const char *const *)cfg->tracing.include, include));
  g_assert_true(g_strv_equal((const char *const *)cfg->tracing.exclude, exclude));
  g_assert_nonnull(cfg->tracing.matcher);
}

/* [tracing] first, then [profiler]: each key still lands in its own group. */
static void test_tracing_first(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[tracing]\n"
                                             "enabled=true\n"
                                             "inlining=disabled\n"
                                             "routing=mapper2\n"
                                             "hooks=full\n"
                                             "[profiler]\n"
                                             "mode=pick-first\n"
                                             "flush=5\n");
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_FIRST);
  g_assert_cmpint(cfg->flush_seconds, ==, 5);
  g_assert_true(cfg->tracing.enabled);
  g_assert_false(cfg->tracing.inlining_allowed);
  g_assert_cmpint(cfg->tracing.routing, ==, SXS_ROUTING_MAPPER2);
  g_assert_cmpint(cfg->tracing.hooks, ==, SXS_HOOKS_FULL);
  g_assert_null(cfg->tracing.include);
  g_assert_null(cfg->tracing.matcher);
}

static void test_tracing_crlf(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(
      f, "\xef\xbb\xbf[tracing]\r\nenabled=true\r\nexclude=System.*, Microsoft.*\r\n[profiler]\r\nmode=pick-all\r\n");
  g_assert_true(cfg->tracing.enabled);
  const char *const exclude[] = {"System.*", "Microsoft.*", NULL};
  g_assert_true(g_strv_equal((const char *const *)cfg->tracing.exclude, exclude));
  g_assert_null(cfg->tracing.include);
  g_assert_false(sxs__config_traces(cfg, "System.String.Concat"));
  g_assert_true(sxs__config_traces(cfg, "MyApp.Program.Main"));

  g_autofree char *path = write_file(f, "sxsprof.ini", "[profiler]\r\n[tracing]\r\n\r\nhooks=nope\r\n", -1);
  g_autofree char *expected = g_strconcat(path, ":4: unknown hooks \"nope\"; expected full or empty", NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_VALUE, expected);
}

/* enabled=false switches tracing off and leaves every other [tracing] key as it is. */
static void test_tracing_disabled_keeps_keys(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg =
      load_text_ok(f, "[profiler]\n[tracing]\nenabled=false\ninlining=allowed\nrouting=closure\n"
                      "hooks=empty\ntiming=off\npath=slow\ninclude=MyApp.*\nexclude=MyApp.Generated.*\n");
  g_assert_false(cfg->tracing.enabled);
  g_assert_true(cfg->tracing.timing_off);
  g_assert_true(cfg->tracing.slow_path);
  g_assert_true(cfg->tracing.inlining_allowed);
  g_assert_cmpint(cfg->tracing.routing, ==, SXS_ROUTING_CLOSURE);
  g_assert_cmpint(cfg->tracing.hooks, ==, SXS_HOOKS_EMPTY);
  g_assert_cmpstr(cfg->tracing.include[0], ==, "MyApp.*");
  g_assert_false(sxs__config_traces(cfg, "MyApp.Generated.Code.M"));
  g_assert_true(sxs__config_traces(cfg, "MyApp.Program.Main"));
}

/* Patterns are separated by any run of commas and white space, escaped white space included;
 * names from the metadata (generic arity, compiler-generated names, UTF-8 letters) pass as is. */
static void test_tracing_pattern_list(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[profiler]\n[tracing]\n"
                                             "include = MyApp.* ,Other.Type.Method\tThird.*,,, Ns.List`1.Add  "
                                             "Program.<Main>$\\sCaf\xc3\xa9.*\\tA.B..ctor,Ns.Outer.Inner.M?,\n");
  const char *const include[] = {"MyApp.*",       "Other.Type.Method", "Third.*",
                                 "Ns.List`1.Add", "Program.<Main>$",   "Caf\xc3\xa9.*",
                                 "A.B..ctor",     "Ns.Outer.Inner.M?", NULL};
  g_assert_true(g_strv_equal((const char *const *)cfg->tracing.include, include));
  g_assert_null(cfg->tracing.exclude);
}

/* 512 bytes per pattern and 256 patterns per key are accepted; one more is refused. */
static void test_tracing_pattern_limits(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *longest = g_strnfill(511, 'A');
  g_autofree char *ok_text = g_strdup_printf("[profiler]\n[tracing]\ninclude=%s*\n", longest);
  g_autoptr(SxsConfig) ok = load_text_ok(f, ok_text);
  g_assert_cmpuint(strlen(ok->tracing.include[0]), ==, 512);
  g_autofree char *name = g_strconcat(longest, ".Type.M", NULL);
  g_assert_true(sxs__config_traces(ok, name));

  g_autofree char *too_long = g_strnfill(513, 'A');
  g_autofree char *long_text = g_strdup_printf("[profiler]\n[tracing]\nenabled=true\nexclude=Ok.*, %s\n", too_long);
  g_autofree char *long_path = write_file(f, "long.ini", long_text, -1);
  g_autofree char *quoted_head = g_strnfill(60, 'A'); /* quotes are cut after 60 characters */
  g_autofree char *long_expected = g_strconcat(long_path, ":4: exclude pattern \"", quoted_head,
                                               "...\" is 513 bytes long; expected patterns of at most 512 bytes", NULL);
  assert_load_error(long_path, SXS_CONFIG_ERROR_VALUE, long_expected);

  for (int n = 256; n <= 257; n++) {
    g_autoptr(GString) text = g_string_new("[profiler]\n[tracing]\ninclude =");
    for (int i = 0; i < n; i++)
      g_string_append_printf(text, " Ns.Type%d.*,", i);
    g_string_append_c(text, '\n');
    g_autofree char *path = write_file(f, "many.ini", text->str, -1);
    if (n == 256) {
      g_autoptr(SxsConfig) cfg = load_ok(path);
      g_assert_cmpuint(g_strv_length(cfg->tracing.include), ==, 256);
      g_assert_true(sxs__config_traces(cfg, "Ns.Type255.M"));
      g_assert_false(sxs__config_traces(cfg, "Ns.Type256.M"));
    } else {
      g_autofree char *expected =
          g_strconcat(path, ":3: include= holds 257 patterns; expected at most 256 patterns", NULL);
      assert_load_error(path, SXS_CONFIG_ERROR_VALUE, expected);
    }
  }
}

/* ---- [stacks] ---- */

static void test_stacks_defaults(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  g_assert_cmpuint(defaults->stacks_on, ==, 0);
  g_autoptr(SxsConfig) absent = load_text_ok(f, "[profiler]\n[tracing]\nenabled=true\n");
  g_assert_cmpuint(absent->stacks_on, ==, 0);
  g_autoptr(SxsConfig) empty = load_text_ok(f, "[stacks]\n[profiler]\n");
  g_assert_cmpuint(empty->stacks_on, ==, 0);
}

typedef struct {
  const char *value; /* of on= */
  guint events;
} StacksCase;

static void test_stacks_on(Fixture *f, gconstpointer data) {
  (void)data;
  static const StacksCase cases[] = {
      {"exception", SXS_STACKS_EXCEPTION},
      {"jit", SXS_STACKS_JIT},
      {"gc", SXS_STACKS_GC},
      {"jit, gc", SXS_STACKS_JIT | SXS_STACKS_GC},
      {"gc jit", SXS_STACKS_JIT | SXS_STACKS_GC},
      {"exception,jit,gc", SXS_STACKS_EXCEPTION | SXS_STACKS_JIT | SXS_STACKS_GC},
      {" ,gc ,, exception\tjit, ", SXS_STACKS_EXCEPTION | SXS_STACKS_JIT | SXS_STACKS_GC},
      {"exception\\sgc", SXS_STACKS_EXCEPTION | SXS_STACKS_GC}, /* an escaped space separates too */
      {"none", 0},
      {" none ,", 0},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = g_strdup_printf("[profiler]\n[stacks]\non = %s\n", cases[i].value);
    g_test_message("on = %s", cases[i].value);
    g_autoptr(SxsConfig) cfg = load_text_ok(f, text);
    g_assert_cmpuint(cfg->stacks_on, ==, cases[i].events);
  }
}

/* formats=: names and all, the JSON always there, one message for a wrong name. */
static void test_formats(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  g_assert_cmpuint(defaults->formats, ==, SXS_FORMAT_BIT(SXS_FORMAT_JSON));
  g_autoptr(SxsConfig) two = load_text_ok(f, "[profiler]\nformats = svg, pprof\n");
  g_assert_cmpuint(two->formats, ==, SXS_FORMAT_BIT(SXS_FORMAT_SVG) | SXS_FORMAT_BIT(SXS_FORMAT_PPROF));
  g_autoptr(SxsConfig) all = load_text_ok(f, "[profiler]\nformats=all\n");
  g_assert_cmpuint(all->formats, ==, SXS_FORMATS_ALL_FILES);
  g_autofree char *bad = write_file(f, "bad.ini", "[profiler]\nformats=json,flamegraph\n", -1);
  g_autofree char *expected =
      g_strdup_printf("%s:2: unknown format \"flamegraph\"; expected a comma-separated list of json, speedscope, "
                      "folded, svg, pprof or trace, or all",
                      bad);
  assert_load_error(bad, SXS_CONFIG_ERROR_VALUE, expected);
  /* summary is a format of the launcher and the report, not a file the profiler writes. */
  g_autofree char *summary = write_file(f, "summary.ini", "[profiler]\nformats=summary\n", -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsConfig) none = sxs__config_load(summary, &error);
  g_assert_null(none);
  g_assert_nonnull(strstr(error->message, "unknown format \"summary\""));
  guint set = 0;
  g_autofree char *problem = NULL;
  g_assert_true(sxs__config_parse_formats("summary,folded", TRUE, &set, &problem));
  g_assert_cmpuint(set, ==, SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY) | SXS_FORMAT_BIT(SXS_FORMAT_FOLDED));
  g_assert_false(sxs__config_parse_formats(" , ", TRUE, &set, &problem));
  g_assert_true(g_str_has_prefix(problem, "no format given; "));
}

/* All three groups, in any order, each key landing in its own group. */
static void test_stacks_with_other_groups(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[stacks]\n"
                                             "on = exception, gc\n"
                                             "[tracing]\n"
                                             "enabled = true\n"
                                             "[profiler]\n"
                                             "mode = pick-first\n");
  g_assert_cmpuint(cfg->stacks_on, ==, SXS_STACKS_EXCEPTION | SXS_STACKS_GC);
  g_assert_true(cfg->tracing.enabled);
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_FIRST);
  g_autoptr(SxsConfig) crlf = load_text_ok(f, "[profiler]\r\nflush=0\r\n[stacks]\r\non=jit\r\n");
  g_assert_cmpuint(crlf->stacks_on, ==, SXS_STACKS_JIT);
  g_assert_cmpint(crlf->flush_seconds, ==, 0);
}

static void test_stack_event_names(void) {
  g_assert_cmpstr(sxs__config_stack_event_name(SXS_STACKS_EXCEPTION), ==, "exception");
  g_assert_cmpstr(sxs__config_stack_event_name(SXS_STACKS_JIT), ==, "jit");
  g_assert_cmpstr(sxs__config_stack_event_name(SXS_STACKS_GC), ==, "gc");
  g_assert_null(sxs__config_stack_event_name((SxsStackEvents)0));
  g_assert_null(sxs__config_stack_event_name((SxsStackEvents)(SXS_STACKS_JIT | SXS_STACKS_GC)));
  g_assert_null(sxs__config_stack_event_name((SxsStackEvents)(1 << 3)));
}

/* ---- [sampling] ---- */

static void assert_sampling_defaults(const SxsSamplingConfig *s) {
  g_assert_false(s->enabled);
  g_assert_cmpint(s->frequency, ==, 99);
  g_assert_cmpint(s->frequency, ==, SXS_SAMPLING_FREQUENCY_DEFAULT);
  g_assert_cmpint(s->mode, ==, SXS_SAMPLING_CPU);
  g_assert_cmpint(s->walker, ==, SXS_WALKER_AUTO);
}

static void test_sampling_defaults(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  assert_sampling_defaults(&defaults->sampling);
  g_autoptr(SxsConfig) absent = load_text_ok(f, "[profiler]\n[tracing]\nenabled=true\n[stacks]\non=gc\n");
  assert_sampling_defaults(&absent->sampling);
  g_autoptr(SxsConfig) empty = load_text_ok(f, "[sampling]\n[profiler]\n");
  assert_sampling_defaults(&empty->sampling);
  g_autoptr(SxsConfig) empty_last = load_text_ok(f, "[profiler]\n\n[sampling]\n# nothing yet\n");
  assert_sampling_defaults(&empty_last->sampling);
}

static void test_sampling_all_keys(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[profiler]\n"
                                             "mode = pick-first\n"
                                             "\n"
                                             "# the sampler\n"
                                             "  [sampling]  \n"
                                             "enabled = true\n"
                                             "frequency = 1000\n"
                                             "mode = wall\n"
                                             "walker = signal\n");
  g_assert_cmpint(cfg->mode, ==, SXS_MODE_PICK_FIRST);
  g_assert_true(cfg->sampling.enabled);
  g_assert_cmpint(cfg->sampling.frequency, ==, 1000);
  g_assert_cmpint(cfg->sampling.mode, ==, SXS_SAMPLING_WALL);
  g_assert_cmpint(cfg->sampling.walker, ==, SXS_WALKER_SIGNAL);
  g_assert_false(cfg->tracing.enabled);

  g_autoptr(SxsConfig) other = load_text_ok(f, "[sampling]\r\nenabled=false\r\nfrequency=0010000\r\nmode=cpu\r\n"
                                               "walker=suspend\r\n[profiler]\r\n");
  g_assert_false(other->sampling.enabled);
  g_assert_cmpint(other->sampling.frequency, ==, 10000);
  g_assert_cmpint(other->sampling.mode, ==, SXS_SAMPLING_CPU);
  g_assert_cmpint(other->sampling.walker, ==, SXS_WALKER_SUSPEND);
  g_assert_cmpint(other->mode, ==, SXS_MODE_PICK_ALL);

  g_autoptr(SxsConfig) lowest = load_text_ok(f, "[profiler]\n[sampling]\nfrequency=1\nwalker=auto\n");
  g_assert_cmpint(lowest->sampling.frequency, ==, 1);
  g_assert_cmpint(lowest->sampling.walker, ==, SXS_WALKER_AUTO);
  g_assert_false(lowest->sampling.enabled);
}

/* [lines]: on by default, off with enabled=false; paths= made absolute, in order. */
static void test_lines(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) plain = load_text_ok(f, "[profiler]\n");
  g_assert_true(plain->lines.enabled);
  g_assert_null(plain->lines.paths);
  g_autoptr(SxsConfig) off = load_text_ok(f, "[profiler]\n[lines]\nenabled=false\n");
  g_assert_false(off->lines.enabled);
  g_autoptr(SxsConfig) paths = load_text_ok(f, "[lines]\nenabled=true\npaths=/opt/sym:rel/pdbs\n[profiler]\n");
  g_assert_true(paths->lines.enabled);
  g_assert_nonnull(paths->lines.paths);
  g_assert_cmpuint(g_strv_length(paths->lines.paths), ==, 2);
  g_assert_cmpstr(paths->lines.paths[0], ==, "/opt/sym");
  g_autofree char *rel = g_canonicalize_filename("rel/pdbs", NULL);
  g_assert_cmpstr(paths->lines.paths[1], ==, rel);
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  g_assert_true(defaults->lines.enabled);
}

/* [symbols] debug_dirs=: none by default; folders made absolute, in order. */
static void test_symbols(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) plain = load_text_ok(f, "[profiler]\n");
  g_assert_null(plain->symbols.debug_dirs);
  g_autoptr(SxsConfig) dirs = load_text_ok(f, "[symbols]\ndebug_dirs=/opt/dbg:rel/dbg\n[profiler]\n");
  g_assert_nonnull(dirs->symbols.debug_dirs);
  g_assert_cmpuint(g_strv_length(dirs->symbols.debug_dirs), ==, 2);
  g_assert_cmpstr(dirs->symbols.debug_dirs[0], ==, "/opt/dbg");
  g_autofree char *rel = g_canonicalize_filename("rel/dbg", NULL);
  g_assert_cmpstr(dirs->symbols.debug_dirs[1], ==, rel);
}

/* enabled= of [tracing] and of [sampling], and mode= of [profiler] and of [sampling], are
 * separate keys: both accepted in one file, each with its own value. */
static void test_sampling_shared_key_names(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) a = load_text_ok(f, "[tracing]\nenabled=true\n[sampling]\nenabled=false\n[profiler]\n");
  g_assert_true(a->tracing.enabled);
  g_assert_false(a->sampling.enabled);
  g_autoptr(SxsConfig) b = load_text_ok(f, "[profiler]\n[sampling]\nenabled=true\n[tracing]\nenabled=false\n");
  g_assert_false(b->tracing.enabled);
  g_assert_true(b->sampling.enabled);
  g_autoptr(SxsConfig) c = load_text_ok(f, "[profiler]\nmode=pick-first\n[sampling]\nmode=wall\n");
  g_assert_cmpint(c->mode, ==, SXS_MODE_PICK_FIRST);
  g_assert_cmpint(c->sampling.mode, ==, SXS_SAMPLING_WALL);

  /* All four groups, in any order, each key landing in its own group. */
  g_autoptr(SxsConfig) all = load_text_ok(f, "[sampling]\n"
                                             "enabled = true\n"
                                             "mode = wall\n"
                                             "[stacks]\n"
                                             "on = jit\n"
                                             "[tracing]\n"
                                             "enabled = true\n"
                                             "[profiler]\n"
                                             "mode = pick-one\n"
                                             "runtime = 10.0\n");
  g_assert_true(all->sampling.enabled);
  g_assert_cmpint(all->sampling.mode, ==, SXS_SAMPLING_WALL);
  g_assert_cmpint(all->sampling.frequency, ==, 99);
  g_assert_cmpuint(all->stacks_on, ==, SXS_STACKS_JIT);
  g_assert_true(all->tracing.enabled);
  g_assert_cmpint(all->mode, ==, SXS_MODE_PICK_ONE);
  g_assert_cmpstr(all->selector, ==, "10.0");

  /* A bad value is reported for the group it was written in. */
  g_autofree char *path =
      write_file(f, "sxsprof.ini", "[profiler]\n[tracing]\nenabled=true\n[sampling]\nenabled=on\n", -1);
  g_autofree char *expected =
      g_strconcat(path, ":5: enabled=\"on\" is not true or false; expected true or false", NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_VALUE, expected);
}

/* An out-of-range frequency= is named as written, cut like a quote after 60 characters. */
static void test_sampling_frequency_long(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *zeros = g_strnfill(69, '0');
  g_autofree char *text = g_strdup_printf("[profiler]\n[sampling]\nfrequency=1%s\n", zeros);
  g_autofree char *path = write_file(f, "sxsprof.ini", text, -1);
  g_autofree char *head = g_strnfill(59, '0');
  g_autofree char *expected =
      g_strconcat(path, ":3: frequency=1", head, "... is out of range; " FREQUENCY_EXPECTED, NULL);
  assert_load_error(path, SXS_CONFIG_ERROR_VALUE, expected);

  g_autofree char *padded = g_strdup_printf("[profiler]\n[sampling]\nfrequency=%s42\n", zeros);
  g_autoptr(SxsConfig) cfg = load_text_ok(f, padded);
  g_assert_cmpint(cfg->sampling.frequency, ==, 42);
}

static void test_sampling_names(void) {
  g_assert_cmpstr(sxs__config_sampling_mode_name(SXS_SAMPLING_CPU), ==, "cpu");
  g_assert_cmpstr(sxs__config_sampling_mode_name(SXS_SAMPLING_WALL), ==, "wall");
  g_assert_cmpstr(sxs__config_sampling_mode_name((SxsSamplingMode)42), ==, "unknown");
  g_assert_cmpstr(sxs__config_walker_name(SXS_WALKER_AUTO), ==, "auto");
  g_assert_cmpstr(sxs__config_walker_name(SXS_WALKER_SIGNAL), ==, "signal");
  g_assert_cmpstr(sxs__config_walker_name(SXS_WALKER_SUSPEND), ==, "suspend");
  g_assert_cmpstr(sxs__config_walker_name((SxsWalkerKind)42), ==, "unknown");
}

/* ---- sxs__config_traces ---- */

typedef struct {
  const char *include, *exclude; /* the values of include= and exclude=, NULL: no such line */
  const char *name;
  gboolean traced;
} TraceCase;

static const TraceCase trace_cases[] = {
    /* include only; '*' spans dots */
    {"MyApp.*", NULL, "MyApp.Program.Main", TRUE},
    {"MyApp.*", NULL, "MyApp.Deep.Nested.Type.M", TRUE},
    {"MyApp.*", NULL, "MyApp.", TRUE},
    {"MyApp.*", NULL, "MyApp", FALSE},
    {"MyApp.*", NULL, "MyAppX.Program.Main", FALSE},
    {"MyApp.*", NULL, "System.String.Concat", FALSE},
    {"MyApp.*", NULL, "Other.MyApp.M", FALSE},
    {"*.Main", NULL, "A.B.Main", TRUE},
    {"*.Main", NULL, "A.Main.X", FALSE},
    {"MyApp.*, Other.Type.Method", NULL, "Other.Type.Method", TRUE},
    {"MyApp.*, Other.Type.Method", NULL, "Other.Type.Method2", FALSE},
    {"A.B", NULL, "AxB", FALSE}, /* '.' is literal */
    {"*", NULL, "", TRUE},
    {"*", NULL, "Anything.At.All", TRUE},
    /* exclude only */
    {NULL, "System.*", "System.String.Concat", FALSE},
    {NULL, "System.*", "MyApp.Program.Main", TRUE},
    {NULL, "System.*", "SystemX.Y.Z", TRUE},
    /* both: exclude wins */
    {"MyApp.*", "*.get_*, *..ctor", "MyApp.Program.Main", TRUE},
    {"MyApp.*", "*.get_*, *..ctor", "MyApp.Person.get_Name", FALSE},
    {"MyApp.*", "*.get_*, *..ctor", "MyApp.Person..ctor", FALSE},
    {"MyApp.*", "*.get_*, *..ctor", "MyApp.Person..cctor", TRUE},
    {"MyApp.*", "*.get_*, *..ctor", "Other.Person.get_Name", FALSE},
    {"MyApp.*", "MyApp.*", "MyApp.Program.Main", FALSE},
    /* '?': exactly one character, a whole UTF-8 character */
    {"MyApp.Program.M?in", NULL, "MyApp.Program.Main", TRUE},
    {"MyApp.Program.M?in", NULL, "MyApp.Program.Mein", TRUE},
    {"MyApp.Program.M?in", NULL, "MyApp.Program.Min", FALSE},
    {"MyApp.Program.M?in", NULL, "MyApp.Program.Maain", FALSE},
    {"MyApp.Program.M?in", NULL, "MyApp.Program.M.in", TRUE},
    {"Ns.Caf?.M", NULL, "Ns.Caf\xc3\xa9.M", TRUE},
    {"Ns.Caf?.M", NULL, "Ns.Cafe.M", TRUE},
    {"Ns.Caf?.M", NULL, "Ns.Caf.M", FALSE},
    {"*?\xc3\xa9", NULL, "\xc3\xa9\xc3\xa9", TRUE},
    {"*??\xc3\xa9", NULL, "\xc3\xa9\xc3\xa9", FALSE},
    /* constructors */
    {"*..ctor", NULL, "Ns.Type..ctor", TRUE},
    {"*..ctor", NULL, "Ns.Type..cctor", FALSE},
    {"*..ctor", NULL, "Ns.Type.ctor", FALSE},
    {"Ns.Type..?ctor", NULL, "Ns.Type..cctor", TRUE},
    {"Ns.Type..?ctor", NULL, "Ns.Type..ctor", FALSE},
    /* nested types */
    {"Ns.Outer.Inner.M", NULL, "Ns.Outer.Inner.M", TRUE},
    {"Ns.Outer.Inner.M", NULL, "Ns.Outer.Inner.M2", FALSE},
    {"Ns.Outer.Inner.M", NULL, "Ns.Outer.M", FALSE},
    {"Ns.Outer.*.M", NULL, "Ns.Outer.Inner.M", TRUE},
    {"Ns.Outer.*.M", NULL, "Ns.Outer.A.B.M", TRUE},
    /* generic arity */
    {"Ns.List`1.Add", NULL, "Ns.List`1.Add", TRUE},
    {"Ns.List`1.Add", NULL, "Ns.List`2.Add", FALSE},
    {"Ns.List`1.Add", NULL, "Ns.List.Add", FALSE},
    {"Ns.List`?.*", NULL, "Ns.List`2.Add", TRUE},
    {"*`1.*", NULL, "System.Collections.Generic.List`1.Add", TRUE},
    /* compiler-generated names */
    {"Program.<Main>$", NULL, "Program.<Main>$", TRUE},
    {"*.<>c.*", NULL, "MyApp.Program.<>c.<Main>b__0_0", TRUE},
    /* backtracking over several stars */
    {"*a*b*c", NULL, "xaxbxc", TRUE},
    {"*a*b*c", NULL, "aXbYcZc", TRUE},
    {"*a*b*c", NULL, "abcab", FALSE},
    {"a**b", NULL, "ab", TRUE},
    {"*A.*.B*", NULL, "A.A.x.B", TRUE},
    /* no patterns at all */
    {NULL, NULL, "Anything", TRUE},
    {NULL, NULL, "", TRUE},
};

static void test_traces_cases(Fixture *f, gconstpointer data) {
  (void)data;
  for (size_t i = 0; i < G_N_ELEMENTS(trace_cases); i++) {
    const TraceCase *c = &trace_cases[i];
    g_autoptr(GString) text = g_string_new("[profiler]\n[tracing]\nenabled=true\n");
    if (c->include)
      g_string_append_printf(text, "include=%s\n", c->include);
    if (c->exclude)
      g_string_append_printf(text, "exclude=%s\n", c->exclude);
    g_autoptr(SxsConfig) cfg = load_text_ok(f, text->str);
    g_test_message("include=%s exclude=%s name %s", c->include, c->exclude, c->name);
    g_assert_cmpint(sxs__config_traces(cfg, c->name), ==, c->traced);
  }
}

static void test_traces_null(Fixture *f, gconstpointer data) {
  (void)data;
  g_assert_true(sxs__config_traces(NULL, "MyApp.Program.Main"));
  g_assert_true(sxs__config_traces(NULL, NULL));
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  g_assert_true(sxs__config_traces(defaults, NULL));
  /* A NULL name is taken as "": only patterns that match the empty string match it. */
  g_autoptr(SxsConfig) star = load_text_ok(f, "[profiler]\n[tracing]\ninclude=*\n");
  g_assert_true(sxs__config_traces(star, NULL));
  g_autoptr(SxsConfig) app = load_text_ok(f, "[profiler]\n[tracing]\ninclude=MyApp.*\n");
  g_assert_false(sxs__config_traces(app, NULL));
}

typedef struct {
  const SxsConfig *cfg;
  gint mismatches;
} TraceThreads;

static gpointer traces_thread(gpointer data) {
  TraceThreads *t = data;
  for (int i = 0; i < 20000; i++) {
    gboolean want = i % 3 != 0;
    const char *name = i % 3 == 0 ? "MyApp.Person..ctor" : i % 3 == 1 ? "MyApp.Program.Main" : "MyApp.A.B.C.Run";
    if (sxs__config_traces(t->cfg, name) != want)
      g_atomic_int_inc(&t->mismatches);
  }
  return NULL;
}

/* JIT threads ask at the same time: the matcher is shared, read-only. */
static void test_traces_threads(Fixture *f, gconstpointer data) {
  (void)data;
  g_autoptr(SxsConfig) cfg = load_text_ok(f, "[profiler]\n[tracing]\ninclude=MyApp.*\nexclude=*..ctor\n");
  TraceThreads t = {.cfg = cfg};
  GThread *threads[4];
  for (size_t i = 0; i < G_N_ELEMENTS(threads); i++)
    threads[i] = g_thread_new("traces", traces_thread, &t);
  for (size_t i = 0; i < G_N_ELEMENTS(threads); i++)
    g_thread_join(threads[i]);
  g_assert_cmpint(g_atomic_int_get(&t.mismatches), ==, 0);
}

#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_setup, fn, fixture_teardown)

/* The parser never has GLib log anything: in a profiled program that would be a line on the
 * program's stderr (GKeyFile's decoder once warned of a GError set twice on "\\x\\"). */
static void fail_on_glib_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
  (void)level;
  (void)data;
  g_printerr("unexpected message of domain %s: %s\n", domain ? domain : "(none)", message);
  abort();
}

/* Every key is one row of the config's table: a group, a name unique in it, a line of help, and a
 * row of docs/config.md's table in its group's section ("## Keys" for [profiler]). */
static void test_key_table(void) {
  const char *src = g_getenv("SXS_SOURCE_DIR");
  g_assert_nonnull(src);
  g_autofree char *path = g_build_filename(src, "docs", "config.md", NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (int k = 0; k < SXS_CONFIG_N_KEYS; k++) {
    const char *group = sxs__config_key_group((SxsConfigKey)k), *name = sxs__config_key_name((SxsConfigKey)k);
    const char *help = sxs__config_key_help((SxsConfigKey)k);
    g_assert_nonnull(group);
    g_assert_nonnull(name);
    g_assert_true(help && *help);
    for (int j = 0; j < k; j++)
      g_assert_false(strcmp(group, sxs__config_key_group((SxsConfigKey)j)) == 0 &&
                     strcmp(name, sxs__config_key_name((SxsConfigKey)j)) == 0);
    g_autofree char *heading = g_strdup_printf("`[%s]`", group);
    g_autofree char *cell = g_strdup_printf("`%s`", name);
    gboolean in_section = FALSE, documented = FALSE;
    for (guint i = 0; lines[i] && !documented; i++) {
      if (g_str_has_prefix(lines[i], "## "))
        in_section =
            strcmp(group, "profiler") == 0 ? strcmp(lines[i], "## Keys") == 0 : strstr(lines[i], heading) != NULL;
      else if (in_section && lines[i][0] == '|' && strstr(lines[i], cell))
        documented = TRUE;
    }
    if (!documented)
      g_test_message("[%s] %s= has no row in docs/config.md", group, name);
    g_assert_true(documented);
  }
  /* The ends of the table. */
  g_assert_null(sxs__config_key_name(SXS_CONFIG_N_KEYS));
  g_assert_cmpstr(sxs__config_key_group(SXS_KEY_SAMPLING_FREQUENCY), ==, "sampling");
  g_assert_cmpstr(sxs__config_key_name(SXS_KEY_SAMPLING_FREQUENCY), ==, "frequency");
  g_assert_cmpint(sxs__config_profile_key(SXS_PROFILE_CONTENTION), ==, SXS_KEY_CONTENTION_ENABLED);
}

/* A key set through the table reads back as the same key, and the output it sets is explicit. */
static void test_keyfile_set(void) {
  g_autoptr(GKeyFile) kf = g_key_file_new();
  sxs__config_keyfile_set(kf, SXS_KEY_SAMPLING_FREQUENCY, "250");
  sxs__config_keyfile_set(kf, SXS_KEY_PROFILER_OUTPUT, "/tmp/x");
  g_assert_true(sxs__config_keyfile_has(kf, SXS_KEY_SAMPLING_FREQUENCY));
  g_assert_false(sxs__config_keyfile_has(kf, SXS_KEY_SAMPLING_MODE));
  g_autofree char *value = g_key_file_get_value(kf, "sampling", "frequency", NULL);
  g_assert_cmpstr(value, ==, "250");
  gsize len = 0;
  g_autofree char *data = g_key_file_to_data(kf, &len, NULL);
  g_autofree char *file = NULL;
  int fd = g_file_open_tmp("sxs-config-XXXXXX.ini", &file, NULL);
  g_assert_cmpint(fd, >=, 0);
  close(fd);
  g_assert_true(g_file_set_contents(file, data, (gssize)len, NULL));
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsConfig) cfg = sxs__config_load(file, &error);
  g_unlink(file);
  g_assert_no_error(error);
  g_assert_cmpint(cfg->sampling.frequency, ==, 250);
  g_assert_cmpstr(cfg->output, ==, "/tmp/x");
  g_assert_true(sxs__config_output_explicit(cfg));
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  g_assert_false(sxs__config_output_explicit(defaults));
  g_autofree char *expected = sxs__config_default_output(NULL, (int)getpid());
  g_assert_cmpstr(defaults->output, ==, expected);
  g_autofree char *in_tmp = sxs__config_default_output("/tmp", 42);
  g_assert_cmpstr(in_tmp, ==, "/tmp/sxsprof-42");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_log_set_handler("GLib", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, fail_on_glib_message, NULL);

  for (size_t i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
    g_autofree char *path = g_strdup_printf("/manager/config/error/%s", bad_cases[i].name);
    g_test_add(path, Fixture, &bad_cases[i], fixture_setup, test_bad_case, fixture_teardown);
  }
  ADD("/manager/config/error/file-missing", test_file_missing);
  ADD("/manager/config/error/file-not-a-directory", test_file_not_a_directory);
  ADD("/manager/config/error/file-unreadable", test_file_unreadable);
  ADD("/manager/config/error/file-is-folder", test_file_directory);
  g_test_add_func("/manager/config/error/file-empty-name", test_file_empty_name);
  ADD("/manager/config/error/file-device", test_file_device);
  ADD("/manager/config/error/file-fifo", test_file_fifo);
  ADD("/manager/config/error/file-too-large", test_file_too_large);
  ADD("/manager/config/error/file-huge-sparse", test_file_huge_sparse);
  ADD("/manager/config/error/crlf-line-numbers", test_crlf_line_numbers);

  g_test_add_func("/manager/config/load/defaults", test_defaults);
  g_test_add_func("/manager/config/load/mode-names", test_mode_names);
  ADD("/manager/config/load/env", test_env);
  ADD("/manager/config/load/group-only", test_group_only);
  ADD("/manager/config/load/full", test_full);
  ADD("/manager/config/load/modes", test_modes);
  ADD("/manager/config/load/inventory", test_inventory);
  ADD("/manager/config/load/crlf", test_crlf);
  ADD("/manager/config/load/bom", test_bom);
  ADD("/manager/config/load/no-final-newline", test_no_final_newline);
  ADD("/manager/config/load/escapes", test_escapes);
  ADD("/manager/config/load/relative-paths", test_relative_paths);
  ADD("/manager/config/load/exactly-max-size", test_file_exactly_max);
  ADD("/manager/config/load/runtime-folder", test_runtime_folder);
  ADD("/manager/config/load/runtime-file", test_runtime_file);
  ADD("/manager/config/load/runtime-symlink", test_runtime_symlink);

  g_test_add_func("/manager/config/selector/version", test_selector_version);
  g_test_add_func("/manager/config/selector/none", test_selector_none);
  ADD("/manager/config/selector/path", test_selector_path);

  ADD("/manager/config/output/ok", test_output_ok);
  ADD("/manager/config/output/missing-folder", test_output_missing);
  ADD("/manager/config/output/folder-is-file", test_output_file_as_folder);
  ADD("/manager/config/output/not-writable", test_output_not_writable);
  ADD("/manager/config/output/cannot-hold-files", test_output_cannot_hold_files);
  ADD("/manager/config/output/json-not-regular", test_output_json_not_regular);
  ADD("/manager/config/output/json-is-folder", test_output_json_is_folder);
  g_test_add_func("/manager/config/output/bad-prefix", test_output_bad_prefix);
  ADD("/manager/config/output/folder-check", test_output_folder_check);
  ADD("/manager/config/load/output-folder", test_output_folder);
  ADD("/manager/config/load/log-and-flush", test_log_and_flush);
  g_test_add_func("/manager/config/load/set-output", test_set_output);

  ADD("/manager/config/tracing/defaults", test_tracing_defaults);
  ADD("/manager/config/tracing/all-keys", test_tracing_all_keys);
  ADD("/manager/config/tracing/before-profiler", test_tracing_first);
  ADD("/manager/config/tracing/crlf", test_tracing_crlf);
  ADD("/manager/config/tracing/disabled-keeps-keys", test_tracing_disabled_keeps_keys);
  ADD("/manager/config/tracing/pattern-list", test_tracing_pattern_list);
  ADD("/manager/config/tracing/pattern-limits", test_tracing_pattern_limits);
  ADD("/manager/config/stacks/defaults", test_stacks_defaults);
  ADD("/manager/config/stacks/on", test_stacks_on);
  ADD("/manager/config/profiler/formats", test_formats);
  ADD("/manager/config/stacks/with-other-groups", test_stacks_with_other_groups);
  g_test_add_func("/manager/config/stacks/event-names", test_stack_event_names);
  ADD("/manager/config/sampling/defaults", test_sampling_defaults);
  ADD("/manager/config/sampling/all-keys", test_sampling_all_keys);
  ADD("/manager/config/sampling/shared-key-names", test_sampling_shared_key_names);
  ADD("/manager/config/lines", test_lines);
  ADD("/manager/config/symbols", test_symbols);
  ADD("/manager/config/sampling/frequency-long", test_sampling_frequency_long);
  g_test_add_func("/manager/config/sampling/names", test_sampling_names);
  g_test_add_func("/manager/config/keys/table", test_key_table);
  g_test_add_func("/manager/config/keys/keyfile-set", test_keyfile_set);
  ADD("/manager/config/traces/cases", test_traces_cases);
  ADD("/manager/config/traces/null", test_traces_null);
  ADD("/manager/config/traces/threads", test_traces_threads);

  return g_test_run();
}
