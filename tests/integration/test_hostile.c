/* Inputs and outputs that cannot be used, each answered with one line and never by a hang:
 *
 *   sxsprof report  /dev/zero, a link to it, a FIFO nobody writes, a folder, a symbolic link loop,
 *                   a file over --max-size;
 *   -o              /proc/x, a read-only folder, a full small tmpfs: refused before anything
 *                   runs, or one message for the failed write with every older file left whole;
 *   sxsprof run     the same outputs for a real program, which runs exactly as without them
 *                   when it runs at all; views that cannot be written each get their line.
 *
 * The tmpfs mounts are made in a mount namespace of this test's own (as root, or as the user in
 * a user namespace), so they vanish with it. */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"

#define TIMEOUT 120
/* A bad input is answered at once: well under this. */
#define ANSWER_MAX_US (10 * G_USEC_PER_SEC)

typedef ItestScratch Fixture;

static void fixture_teardown(Fixture *f, gconstpointer data) {
  /* Mounts first: the folder cannot be removed while one is in it. */
  g_autoptr(GDir) dir = g_dir_open(f->dir, 0, NULL);
  for (const char *name; dir && (name = g_dir_read_name(dir));) {
    g_autofree char *path = g_build_filename(f->dir, name, NULL);
    umount2(path, MNT_DETACH);
  }
  itest_scratch_teardown(f, data);
}

/* A tmpfs at dir/name with these mount options and flags; returns its path. */
static char *mount_tmpfs(const char *dir, const char *name, unsigned long flags, const char *options) {
  char *path = g_build_filename(dir, name, NULL);
  g_assert_cmpint(g_mkdir(path, 0755), ==, 0);
  if (mount("tmpfs", path, "tmpfs", flags, options) < 0)
    g_error("mount -t tmpfs -o %s %s: %s", options, path, g_strerror(errno));
  return path;
}

/* Fills the file system of folder, then frees `keep` bytes of it again. */
static void fill(const char *folder, gsize keep) {
  g_autofree char *path = g_build_filename(folder, "filler", NULL);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  g_assert_cmpint(fd, >=, 0);
  static const char block[4096];
  off_t size = 0;
  for (ssize_t n; (n = write(fd, block, sizeof block)) > 0;)
    size += n;
  g_assert_cmpint(errno, ==, ENOSPC);
  g_assert_cmpint(ftruncate(fd, size > (off_t)keep ? size - (off_t)keep : 0), ==, 0);
  close(fd);
}

static const char *sxsprof(void) {
  return itest_env("SXS_SXSPROF");
}

/* tests/unit/data/counts.json copied to dir/name: a real profile. */
static char *real_profile(const char *dir, const char *name) {
  g_autofree char *source = g_build_filename(itest_env("SXS_SOURCE_DIR"), "tests", "unit", "data", "counts.json", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(source, &text, &len, NULL));
  char *path = g_build_filename(dir, name, NULL);
  g_assert_true(g_file_set_contents(path, text, (gssize)len, NULL));
  return path;
}

/* `sxsprof report ARGS...` in dir; asserts it answered within ANSWER_MAX_US. */
static ItestRun *report(const char *dir, const char *const *args) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)sxsprof());
  g_ptr_array_add(argv, "report");
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  gint64 start = g_get_monotonic_time();
  ItestRun *run = itest_run((const char *const *)argv->pdata, NULL, dir, TIMEOUT);
  gint64 elapsed = g_get_monotonic_time() - start;
  g_test_message("report: exit %d in %.1f ms\nstdout:\n%s\nstderr:\n%s", run->exit_code, elapsed / 1e3, run->out,
                 run->err);
  g_assert_false(run->timed_out);
  g_assert_cmpint(elapsed, <, ANSWER_MAX_US);
  return run;
}

/* ---- Inputs ---- */

static void assert_refused_input(Fixture *f, const char *path, const char *line) {
  const char *args[] = {path, NULL};
  g_autoptr(ItestRun) run = report(f->dir, args);
  itest_assert_exit(run, 1);
  g_assert_cmpstr(run->out, ==, "");
  g_autofree char *expected = g_strdup_printf("sxsprof: %s\n", line);
  g_assert_cmpstr(run->err, ==, expected);
}

static void test_input_dev_zero(Fixture *f, gconstpointer data) {
  (void)data;
  assert_refused_input(f, "/dev/zero", "/dev/zero is a character device, not a profile; expected a regular file");
  g_autofree char *link = g_build_filename(f->dir, "zero.json", NULL);
  g_assert_cmpint(symlink("/dev/zero", link), ==, 0);
  g_autofree char *line = g_strdup_printf("%s is a character device, not a profile; expected a regular file", link);
  assert_refused_input(f, link, line);
}

static void test_input_fifo(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *fifo = g_build_filename(f->dir, "p.json", NULL);
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  g_autofree char *line = g_strdup_printf("%s is a FIFO, not a profile; expected a regular file", fifo);
  assert_refused_input(f, fifo, line);
}

static void test_input_folder(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *empty = g_build_filename(f->dir, "empty", NULL);
  g_assert_cmpint(g_mkdir(empty, 0755), ==, 0);
  g_autofree char *line = g_strdup_printf("no sxsprof profile in folder %s", empty);
  assert_refused_input(f, empty, line);
  /* A folder whose one .json is a FIFO: it is skipped, never opened for reading. */
  g_autofree char *fifo = g_build_filename(empty, "p.json", NULL);
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  assert_refused_input(f, empty, line);
}

static void test_input_symlink_loop(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *a = g_build_filename(f->dir, "a.json", NULL);
  g_autofree char *b = g_build_filename(f->dir, "b.json", NULL);
  g_assert_cmpint(symlink(b, a), ==, 0);
  g_assert_cmpint(symlink(a, b), ==, 0);
  g_autofree char *line = g_strdup_printf("cannot open %s: %s", a, g_strerror(ELOOP));
  assert_refused_input(f, a, line);
}

static void test_input_max_size(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *profile = real_profile(f->dir, "p.json");
  struct stat st;
  g_assert_cmpint(stat(profile, &st), ==, 0);
  const char *args[] = {"--max-size", "64K", profile, NULL};
  g_autoptr(ItestRun) run = report(f->dir, args);
  itest_assert_exit(run, 1);
  g_autofree char *expected =
      g_strdup_printf("sxsprof: %s is %lld bytes; expected a profile of at most 65536 bytes (sxsprof report "
                      "--max-size SIZE reads larger ones)\n",
                      profile, (long long)st.st_size);
  g_assert_cmpstr(run->err, ==, expected);
  const char *enough[] = {"--max-size", "1M", "--top", "3", profile, NULL};
  g_autoptr(ItestRun) ok = report(f->dir, enough);
  itest_assert_exit(ok, 0);
  g_assert_nonnull(strstr(ok->out, "runtime 1: 10.0.12 profiling"));
}

/* ---- report's outputs ---- */

static const char *const view_suffixes[] = {".speedscope.json", ".folded", ".svg", ".pb.gz"};

static void test_report_output_proc(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *profile = real_profile(f->dir, "p.json");
  const char *args[] = {profile, "-o", "/proc/x", NULL};
  g_autoptr(ItestRun) run = report(f->dir, args);
  itest_assert_exit(run, 2);
  g_assert_cmpstr(run->err, ==,
                  "sxsprof: The output folder /proc cannot hold a file (creating one fails: No such file or "
                  "directory) (-o /proc/x); nothing was written\n");
}

static void test_report_output_read_only(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *profile = real_profile(f->dir, "p.json");
  g_autofree char *ro = mount_tmpfs(f->dir, "ro", MS_RDONLY, "size=1m");
  g_autofree char *out = g_build_filename(ro, "v", NULL);
  const char *args[] = {profile, "-o", out, NULL};
  g_autoptr(ItestRun) run = report(f->dir, args);
  itest_assert_exit(run, 2);
  g_autofree char *expected = g_strdup_printf(
      "sxsprof: The output folder %s is not writable (Read-only file system) (-o %s); nothing was written\n", ro, out);
  g_assert_cmpstr(run->err, ==, expected);
}

/* The views of a first report fit; a second one finds the disk full: one line for the file that
 * failed, every older view left as it was, no temp file left behind. */
static void test_report_output_full(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *profile = real_profile(f->dir, "p.json");
  g_autofree char *small = mount_tmpfs(f->dir, "small", 0, "size=2m");
  g_autofree char *out = g_build_filename(small, "v", NULL);
  const char *args[] = {profile, "--format", "speedscope,folded,svg,pprof", "-o", out, NULL};
  g_autoptr(ItestRun) first = report(f->dir, args);
  itest_assert_exit(first, 0);
  char *before[G_N_ELEMENTS(view_suffixes)];
  for (guint i = 0; i < G_N_ELEMENTS(view_suffixes); i++) {
    g_autofree char *path = g_strconcat(out, view_suffixes[i], NULL);
    before[i] = itest_read_file(path);
    g_assert_cmpstr(before[i], !=, "");
  }
  fill(small, 8192);
  g_autoptr(ItestRun) second = report(f->dir, args);
  itest_assert_exit(second, 1);
  g_autofree char *prefix = g_strdup_printf("sxsprof: cannot write %s.", out);
  g_assert_true(g_str_has_prefix(second->err, prefix));
  g_assert_true(g_str_has_suffix(second->err, ": No space left on device; nothing was written\n"));
  g_assert_true(strchr(second->err, '\n') == second->err + strlen(second->err) - 1); /* one line */
  for (guint i = 0; i < G_N_ELEMENTS(view_suffixes); i++) {
    g_autofree char *path = g_strconcat(out, view_suffixes[i], NULL);
    g_autofree char *after = itest_read_file(path);
    g_assert_cmpstr(after, ==, before[i]);
    g_free(before[i]);
  }
  g_autoptr(GDir) dir = g_dir_open(small, 0, NULL);
  for (const char *name; (name = g_dir_read_name(dir));)
    g_assert_null(strstr(name, ".tmp."));
}

/* ---- run's outputs ---- */

static const char *const counts_args[] = {"3", "1", "1", NULL};
#define COUNTS_OUT "counts exceptions=3 gcs=1 threads=1\n"

/* `sxsprof run OPTIONS -- dotnet Counts.dll 3 1 1` in dir. */
static ItestRun *run_counts(const char *dir, const char *const *options) {
  g_autofree char *app = itest_app("Counts");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)sxsprof());
  g_ptr_array_add(argv, "run");
  for (const char *const *o = options; *o; o++)
    g_ptr_array_add(argv, (gpointer)*o);
  g_ptr_array_add(argv, "--");
  g_ptr_array_add(argv, (gpointer)itest_env("SXS_DOTNET"));
  g_ptr_array_add(argv, app);
  for (const char *const *a = counts_args; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  ItestRun *run = itest_run((const char *const *)argv->pdata, NULL, dir, TIMEOUT);
  g_test_message("run: exit %d\nstdout:\n%s\nstderr:\n%s", run->exit_code, run->out, run->err);
  return run;
}

static void test_run_output_proc(Fixture *f, gconstpointer data) {
  (void)data;
  const char *options[] = {"-o", "/proc/x", NULL};
  g_autoptr(ItestRun) run = run_counts(f->dir, options);
  itest_assert_exit(run, 2);
  g_assert_cmpstr(run->out, ==, ""); /* not started */
  g_assert_cmpstr(run->err, ==,
                  "sxsprof: The output folder /proc cannot hold a file (creating one fails: No such file or "
                  "directory); the program was not started\n");
}

static void test_run_output_read_only(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *ro = mount_tmpfs(f->dir, "ro", MS_RDONLY, "size=1m");
  g_autofree char *out = g_build_filename(ro, "p", NULL);
  const char *options[] = {"-o", out, NULL};
  g_autoptr(ItestRun) run = run_counts(f->dir, options);
  itest_assert_exit(run, 2);
  g_assert_cmpstr(run->out, ==, "");
  g_autofree char *expected = g_strdup_printf(
      "sxsprof: The output folder %s is not writable (Read-only file system); the program was not started\n", ro);
  g_assert_cmpstr(run->err, ==, expected);
}

/* A tmpfs the profile does not fit in (its log lines do): the program runs as it would, each
 * failed write of the profile is one relayed line, and the launcher says no profile was written,
 * not that no runtime loaded the profiler. */
static void test_run_output_full(Fixture *f, gconstpointer data) {
  (void)data;
  /* 16 KiB: a short run's profile (about 80 KB) never fits, whatever the load on the machine. */
  g_autofree char *small = mount_tmpfs(f->dir, "small", 0, "size=16k");
  g_autofree char *out = g_build_filename(small, "p", NULL);
  const char *options[] = {"--sample", "-o", out, NULL};
  g_autoptr(ItestRun) run = run_counts(f->dir, options);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, COUNTS_OUT);
  g_auto(GStrv) lines = g_strsplit(run->err, "\n", -1);
  /* Besides the profile's two failed writes (at the runtime's Shutdown and at exit), the spool
   * beside it decides the rest: when the disk filled under it, it is removed (said once, when the
   * log still has room) and no profile was written; when it was kept whole, the launcher rebuilds
   * the profile from it, or says in one line that it could not write that either (the spool stays
   * for sxsprof report). Never that no runtime loaded the profiler. */
  guint failures = 0;
  gboolean rebuilt = strstr(run->err, ", rebuilt from its spool: ") != NULL;
  g_autofree char *failure = g_strdup_printf("]: cannot write the profile to %s.json: No space left on device", out);
  g_autofree char *spool_failure = g_strdup_printf("]: cannot write the spool beside the profile (No space left on "
                                                   "device); a process killed now keeps only the last profile written");
  g_autofree char *rebuild_failure = g_strdup_printf(
      "sxsprof: cannot write the profile rebuilt from %s.spool to %s.json: No space left on device", out, out);
  /* On a loaded machine the spool may fill the folder before the log's lines are written: then
   * nothing is relayed, and the launcher says the folder is full instead. */
  g_autofree char *said = g_strdup_printf(
      "sxsprof: no profile was written: the output folder %s is full (no space left on its device)", small);
  gboolean said_full = FALSE;
  for (char **l = lines; !rebuilt && *l && **l; l++) {
    if (g_str_has_suffix(*l, failure))
      failures++;
    else if (g_str_equal(*l, said))
      said_full = TRUE;
    else if (!g_str_has_suffix(*l, spool_failure) && !g_str_equal(*l, rebuild_failure))
      g_assert_cmpstr(*l, ==, "sxsprof: no profile was written (the profiler's lines above say why)");
  }
  if (!rebuilt)
    g_assert_cmpuint(failures, ==, said_full ? 0 : 2);
  else
    g_assert_nonnull(strstr(run->err, failure));
  g_assert_null(strstr(run->err, "no .NET runtime loaded the profiler"));

  /* Nothing left at all: not even the log can be written, and the launcher says why. */
  g_autofree char *full = mount_tmpfs(f->dir, "full", 0, "size=64k");
  fill(full, 0);
  g_autofree char *out_full = g_build_filename(full, "p", NULL);
  const char *options_full[] = {"--sample", "-o", out_full, NULL};
  g_autoptr(ItestRun) none = run_counts(f->dir, options_full);
  itest_assert_exit(none, 0);
  g_assert_cmpstr(none->out, ==, COUNTS_OUT);
  g_autofree char *expected = g_strdup_printf(
      "sxsprof: no profile was written: the output folder %s is full (no space left on its device)\n", full);
  g_assert_cmpstr(none->err, ==, expected);
}

/* Two views cannot be written (folders hold their names): the launcher, which renders the views of
 * a run, says so in one line each; the profile and the other views are written. */
static void test_run_views_fail(Fixture *f, gconstpointer data) {
  (void)data;
  g_autofree char *svg = g_strconcat(f->output, ".svg", NULL);
  g_autofree char *pprof = g_strconcat(f->output, ".pb.gz", NULL);
  g_assert_cmpint(g_mkdir(svg, 0755), ==, 0);
  g_assert_cmpint(g_mkdir(pprof, 0755), ==, 0);
  const char *options[] = {"--sample", "-o", f->output, NULL};
  g_autoptr(ItestRun) run = run_counts(f->dir, options);
  itest_assert_exit(run, 0);
  g_assert_cmpstr(run->out, ==, COUNTS_OUT);
  g_autofree char *svg_line = g_strdup_printf("sxsprof: cannot write %s: %s\n", svg, g_strerror(EISDIR));
  g_autofree char *pprof_line = g_strdup_printf("sxsprof: cannot write %s: %s\n", pprof, g_strerror(EISDIR));
  g_assert_nonnull(strstr(run->err, svg_line));
  g_assert_nonnull(strstr(run->err, pprof_line));
  g_assert_true(g_file_test(f->profile, G_FILE_TEST_IS_REGULAR));
  g_autofree char *views = g_strdup_printf("sxsprof: views: %s.speedscope.json, %s.folded\n", f->output, f->output);
  g_assert_nonnull(strstr(run->err, views));
  g_autofree char *no_graph =
      g_strdup_printf("sxsprof: no flame graph: %s could not be written (the lines above say why)\n", svg);
  g_assert_true(g_str_has_suffix(run->err, no_graph));
  g_autoptr(GDir) dir = g_dir_open(f->dir, 0, NULL);
  for (const char *name; (name = g_dir_read_name(dir));)
    g_assert_null(strstr(name, ".tmp."));
}

/* A mount namespace of this process's own, so that its tmpfs mounts need no cleaning up and touch
 * nothing else: as root, or as the user mapped to root in a user namespace. */
static gboolean private_mounts(char **ret_why) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (uid != 0) {
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
      *ret_why = g_strdup_printf("unshare(CLONE_NEWUSER | CLONE_NEWNS): %s", g_strerror(errno));
      return FALSE;
    }
    g_autofree char *uid_map = g_strdup_printf("0 %u 1\n", (unsigned)uid);
    g_autofree char *gid_map = g_strdup_printf("0 %u 1\n", (unsigned)gid);
    if (!g_file_set_contents("/proc/self/setgroups", "deny", -1, NULL) ||
        !g_file_set_contents("/proc/self/uid_map", uid_map, -1, NULL) ||
        !g_file_set_contents("/proc/self/gid_map", gid_map, -1, NULL)) {
      *ret_why = g_strdup("cannot map the user into its namespace");
      return FALSE;
    }
  } else if (unshare(CLONE_NEWNS) < 0) {
    *ret_why = g_strdup_printf("unshare(CLONE_NEWNS): %s", g_strerror(errno));
    return FALSE;
  }
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
    *ret_why = g_strdup_printf("mount --make-rprivate /: %s", g_strerror(errno));
    return FALSE;
  }
  return TRUE;
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_autofree char *why = NULL;
  if (!private_mounts(&why)) {
    fprintf(stderr, "test_hostile: needs a mount namespace of its own (root, or user namespaces): %s\n", why);
    return 77;
  }
#define ADD(path, fn) g_test_add(path, Fixture, NULL, itest_scratch_setup, fn, fixture_teardown)
  ADD("/hostile/report/input/dev-zero", test_input_dev_zero);
  ADD("/hostile/report/input/fifo", test_input_fifo);
  ADD("/hostile/report/input/folder", test_input_folder);
  ADD("/hostile/report/input/symlink-loop", test_input_symlink_loop);
  ADD("/hostile/report/input/max-size", test_input_max_size);
  ADD("/hostile/report/output/proc", test_report_output_proc);
  ADD("/hostile/report/output/read-only", test_report_output_read_only);
  ADD("/hostile/report/output/full", test_report_output_full);
  ADD("/hostile/run/output/proc", test_run_output_proc);
  ADD("/hostile/run/output/read-only", test_run_output_read_only);
  ADD("/hostile/run/output/full", test_run_output_full);
  ADD("/hostile/run/views-fail", test_run_views_fail);
#undef ADD
  return g_test_run();
}
