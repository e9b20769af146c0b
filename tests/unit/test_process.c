/* Unit tests of sxs_process: the identity a profile records, the program name of folder output,
 * which process owns <prefix>.json, and the profile and log paths of each process of a tree. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "sxs_process.h"

static void check_name(const char *exe, const char *const *argv, const char *expected) {
  g_autofree char *name = sxs__process_program_name(exe, argv);
  g_assert_cmpstr(name, ==, expected);
}

static void test_program_name(void) {
  const char *web[] = {"dotnet", "/srv/app/web.dll", "--urls", "http://127.0.0.1:0", NULL};
  check_name("/usr/share/dotnet/dotnet", web, "web");
  const char *exec[] = {"dotnet", "exec", "--runtimeconfig", "csc.runtimeconfig.json", "/sdk/Roslyn/csc.dll", NULL};
  check_name("/usr/share/dotnet/dotnet", exec, "csc");
  const char *build[] = {"dotnet", "build", "--no-restore", NULL};
  check_name("/usr/share/dotnet/dotnet", build, "dotnet");
  const char *apphost[] = {"/sdk/Roslyn/bincore/csc", "/noconfig", NULL};
  check_name("/sdk/Roslyn/bincore/csc", apphost, "csc");
  const char *spaces[] = {"my app", NULL};
  check_name("/opt/my app", spaces, "my_app");
  const char *none[] = {NULL};
  check_name(NULL, none, "process");
  const char *runsxs[] = {"runsxs", "10.0", "a.dll", "", NULL};
  check_name("/work/build/bin/runsxs", runsxs, "runsxs");
}

static void check_paths(const char *output, gboolean is_folder, gboolean owner, int pid, const char *program,
                        const char *profile, const char *log) {
  g_autofree char *p = NULL, *l = NULL;
  sxs__process_output_paths(output, is_folder, owner, pid, program, &p, &l);
  g_assert_cmpstr(p, ==, profile);
  g_assert_cmpstr(l, ==, log);
}

static void test_output_paths(void) {
  check_paths("/tmp/run/prof", FALSE, TRUE, 4242, "web", "/tmp/run/prof.json", "/tmp/run/prof.log");
  check_paths("/tmp/run/prof", FALSE, FALSE, 4243, "csc", "/tmp/run/prof.4243.json", "/tmp/run/prof.log");
  check_paths("/tmp/run", TRUE, TRUE, 4244, "web", "/tmp/run/web-4244.json", "/tmp/run/sxsprof.log");
  check_paths("/tmp/run", TRUE, FALSE, 4245, "csc", "/tmp/run/csc-4245.json", "/tmp/run/sxsprof.log");
}

static void test_owner_env(void) {
  g_assert_true(sxs__process_owns_prefix(123, "123", NULL));
  g_assert_false(sxs__process_owns_prefix(124, "123", NULL));
  g_assert_false(sxs__process_owns_prefix(123, "123x", NULL));
  g_assert_false(sxs__process_owns_prefix(123, "-123", NULL));
  /* No owner named and no library to look for: the process is on its own. */
  g_assert_true(sxs__process_owns_prefix(123, NULL, NULL));
  g_assert_true(sxs__process_owns_prefix(123, "", NULL));
}

/* A library this test process has mapped: libglib's file, from /proc/self/maps. */
static char *mapped_glib(void) {
  g_autofree char *maps = NULL;
  g_assert_true(g_file_get_contents("/proc/self/maps", &maps, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(maps, "\n", -1);
  for (char **l = lines; *l; l++) {
    const char *path = strchr(*l, '/');
    if (path && strstr(path, "libglib-2.0.so"))
      return g_strdup(path);
  }
  g_assert_not_reached();
}

/* Without SXSPROF_OWNER_PID, a child whose parent has the library mapped is not the owner; a
 * process none of whose ancestors maps it is. */
static void test_owner_ancestors(void) {
  g_autofree char *glib = mapped_glib();
  pid_t child = fork();
  g_assert_cmpint(child, >=, 0);
  if (child == 0) {
    gboolean child_of_mapper = sxs__process_owns_prefix(getpid(), NULL, glib);
    gboolean nobody_maps = sxs__process_owns_prefix(getpid(), NULL, "/nonexistent/libsxsprof-test.so");
    _exit(!child_of_mapper && nobody_maps ? 0 : 1);
  }
  int status = 0;
  g_assert_cmpint(waitpid(child, &status, 0), ==, child);
  g_assert_true(WIFEXITED(status));
  g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

static void test_info_self(void) {
  g_setenv(SXS_RUN_ID_ENV, "77-1234", TRUE);
  g_autoptr(SxsProcessInfo) p = sxs__process_info_self();
  g_unsetenv(SXS_RUN_ID_ENV);
  g_assert_cmpint(p->pid, ==, getpid());
  g_assert_cmpint(p->ppid, ==, getppid());
  g_assert_true(g_str_has_suffix(p->executable, "/test_process"));
  g_assert_nonnull(p->argv[0]);
  g_assert_true(g_str_has_suffix(p->argv[0], "test_process"));
  g_assert_cmpstr(p->run_id, ==, "77-1234");
  gint64 now_ms = g_get_real_time() / 1000;
  g_assert_cmpint(p->start_unix_ms, <=, now_ms);
  g_assert_cmpint(p->start_unix_ms, >, now_ms - 10 * 60 * 1000);
  g_autoptr(SxsProcessInfo) copy = sxs__process_info_copy(p);
  g_assert_cmpstr(copy->executable, ==, p->executable);
  g_assert_cmpstr(copy->argv[0], ==, p->argv[0]);
  g_assert_cmpstr(copy->run_id, ==, p->run_id);
  g_assert_cmpint(copy->start_unix_ms, ==, p->start_unix_ms);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/manager/process/program-name", test_program_name);
  g_test_add_func("/manager/process/output-paths", test_output_paths);
  g_test_add_func("/manager/process/owner/env", test_owner_env);
  g_test_add_func("/manager/process/owner/ancestors", test_owner_ancestors);
  g_test_add_func("/manager/process/info-self", test_info_self);
  return g_test_run();
}
