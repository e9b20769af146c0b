/* sxs_process: the identity of the profiled process and the names of its profile and log.
 *
 * A build (`dotnet build`) or a test run starts many .NET processes, and each inherits the
 * CORECLR_* variables and loads the profiler. They must never write over each other:
 *
 *   launcher (sxsprof run) --fork/exec--> program  [SXSPROF_OWNER_PID = its pid] -> <prefix>.json
 *                                           |--> MSBuild node  -> <prefix>.<pid>.json
 *                                           '--> compiler      -> <prefix>.<pid>.json
 *
 * Without the launcher, the first profiled process of a tree owns <prefix>.json: a process whose
 * ancestor has the profiler mapped is a child and takes a pid-named file. */
#include "sxs_process.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole content of a /proc file (they report size 0, so g_file_get_contents reads them in
 * a loop). NULL when unreadable. */
static char *read_proc(const char *path, gsize *ret_len) {
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(path, &text, &len, NULL))
    return NULL;
  if (ret_len)
    *ret_len = len;
  return text;
}

/* Field `index` (1-based, as in proc(5)) of /proc/<pid>/stat, after the command name, which may
 * hold spaces and parentheses. */
static gboolean stat_field(const char *stat, int index, guint64 *ret_value) {
  const char *p = strrchr(stat, ')');
  if (!p || index < 3)
    return FALSE;
  p++;
  for (int field = 3; *p; field++) {
    while (*p == ' ')
      p++;
    if (field == index) {
      char *end = NULL;
      guint64 v = g_ascii_strtoull(p, &end, 10);
      if (end == p)
        return FALSE;
      *ret_value = v;
      return TRUE;
    }
    while (*p && *p != ' ')
      p++;
  }
  return FALSE;
}

static gint64 start_time_ms(void) {
  g_autofree char *stat = read_proc("/proc/self/stat", NULL);
  g_autofree char *sys = read_proc("/proc/stat", NULL);
  guint64 ticks = 0;
  if (!stat || !sys || !stat_field(stat, 22, &ticks))
    return 0;
  const char *b = strstr(sys, "\nbtime ");
  if (!b)
    return 0;
  guint64 boot = g_ascii_strtoull(b + 7, NULL, 10);
  long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0)
    return 0;
  return (gint64)(boot * 1000 + ticks * 1000 / (guint64)hz);
}

SxsProcessInfo *sxs__process_info_self(void) {
  SxsProcessInfo *p = g_new0(SxsProcessInfo, 1);
  p->pid = (int)getpid();
  p->ppid = (int)getppid();
  p->executable = g_file_read_link("/proc/self/exe", NULL);
  gsize len = 0;
  g_autofree char *cmdline = read_proc("/proc/self/cmdline", &len);
  GPtrArray *args = g_ptr_array_new();
  for (gsize i = 0; cmdline && i < len;) {
    gsize n = strnlen(cmdline + i, len - i);
    g_ptr_array_add(args, g_strndup(cmdline + i, n));
    i += n + 1;
  }
  g_ptr_array_add(args, NULL);
  p->argv = (char **)g_ptr_array_free(args, FALSE);
  p->start_unix_ms = start_time_ms();
  const char *run_id = g_getenv(SXS_RUN_ID_ENV);
  p->run_id = run_id && *run_id ? g_strdup(run_id) : NULL;
  return p;
}

SxsProcessInfo *sxs__process_info_copy(const SxsProcessInfo *p) {
  SxsProcessInfo *c = g_new0(SxsProcessInfo, 1);
  *c = *p;
  c->executable = g_strdup(p->executable);
  c->argv = g_strdupv(p->argv);
  c->run_id = g_strdup(p->run_id);
  return c;
}

void sxs__process_info_free(SxsProcessInfo *p) {
  if (!p)
    return;
  g_free(p->executable);
  g_strfreev(p->argv);
  g_free(p->run_id);
  g_free(p);
}

static char *sanitize(const char *name) {
  GString *out = g_string_new(NULL);
  for (const char *c = name; *c; c++)
    g_string_append_c(out, (g_ascii_isalnum(*c) || strchr("._+-", *c)) ? *c : '_');
  if (out->len == 0)
    g_string_append(out, "process");
  return g_string_free(out, FALSE);
}

char *sxs__process_program_name(const char *executable, const char *const *argv) {
  const char *exe = executable ? executable : (argv && argv[0] ? argv[0] : "process");
  g_autofree char *base = g_path_get_basename(exe);
  if (g_str_equal(base, "dotnet") && argv && argv[0]) {
    guint i = 1;
    if (argv[i] && g_str_equal(argv[i], "exec"))
      i++;
    /* `dotnet exec` options come before the assembly: skip "--name value" pairs. */
    while (argv[i] && g_str_has_prefix(argv[i], "--") && argv[i + 1])
      i += 2;
    if (argv[i] && g_str_has_suffix(argv[i], ".dll")) {
      g_autofree char *dll = g_path_get_basename(argv[i]);
      dll[strlen(dll) - 4] = '\0';
      if (*dll)
        return sanitize(dll);
    }
  }
  return sanitize(base);
}

/* Does /proc/<pid>/maps list `library`? */
static gboolean maps_library(int pid, const char *library) {
  g_autofree char *path = g_strdup_printf("/proc/%d/maps", pid);
  g_autofree char *maps = read_proc(path, NULL);
  if (!maps)
    return FALSE;
  for (const char *p = strstr(maps, library); p; p = strstr(p + 1, library)) {
    size_t n = strlen(library);
    if ((p == maps || p[-1] == ' ') && (p[n] == '\n' || p[n] == '\0'))
      return TRUE;
  }
  return FALSE;
}

static int parent_of(int pid) {
  g_autofree char *path = g_strdup_printf("/proc/%d/stat", pid);
  g_autofree char *stat = read_proc(path, NULL);
  guint64 ppid = 0;
  if (!stat || !stat_field(stat, 4, &ppid))
    return 0;
  return (int)ppid;
}

gboolean sxs__process_owns_prefix(int pid, const char *owner_env, const char *library) {
  if (owner_env && *owner_env) {
    char *end = NULL;
    long owner = strtol(owner_env, &end, 10);
    return end && *end == '\0' && owner == pid;
  }
  if (!library)
    return TRUE;
  /* Bounded: a tree deeper than this is not a build's. */
  int ancestor = parent_of(pid);
  for (int depth = 0; ancestor > 1 && depth < 64; depth++) {
    if (maps_library(ancestor, library))
      return FALSE;
    ancestor = parent_of(ancestor);
  }
  return TRUE;
}

void sxs__process_output_paths(const char *output, gboolean is_folder, gboolean owner, int pid, const char *program,
                               char **ret_profile, char **ret_log) {
  if (is_folder) {
    g_autofree char *name = g_strdup_printf("%s-%d.json", program ? program : "process", pid);
    *ret_profile = g_build_filename(output, name, NULL);
    *ret_log = g_build_filename(output, "sxsprof.log", NULL);
    return;
  }
  *ret_profile = owner ? g_strconcat(output, ".json", NULL) : g_strdup_printf("%s.%d.json", output, pid);
  *ret_log = g_strconcat(output, ".log", NULL);
}

char *sxs__process_command_line(char *const *argv, guint max_chars) {
  GString *line = g_string_new(NULL);
  for (char *const *a = argv; a && *a; a++) {
    if (line->len > 0)
      g_string_append_c(line, ' ');
    if ((*a)[0] == '\0' || strpbrk(*a, " \t\n'\"\\$") != NULL) {
      g_autofree char *quoted = g_shell_quote(*a);
      g_string_append(line, quoted);
    } else {
      g_string_append(line, *a);
    }
  }
  if (max_chars > 3 && g_utf8_validate(line->str, line->len, NULL) && g_utf8_strlen(line->str, -1) > max_chars) {
    const char *cut = g_utf8_offset_to_pointer(line->str, max_chars - 3);
    g_string_truncate(line, cut - line->str);
    g_string_append(line, "...");
  }
  return g_string_free(line, FALSE);
}
