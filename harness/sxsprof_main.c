/* sxsprof: runs a .NET command with the profiler loaded, and summarizes profiles.
 *
 *   sxsprof run [options] [--] COMMAND [ARGS...]
 *   sxsprof report [--top N] PROFILE.json|FOLDER ...
 *
 * `run` behaves like the program it runs: the program keeps the launcher's stdin, stdout, stderr,
 * working folder and process group; SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the launcher are
 * passed on; the launcher exits with the program's status (128 + N when signal N killed it).
 * After the program ends it relays the profiler's log lines and lists every profile the program's
 * process tree wrote, on stderr, so that the program's stdout stays exactly its own. It does not
 * profile anything itself. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sxs_config.h"
#include "sxs_process.h"

#define SXS_PROFILER_CLSID "{0560F28C-910E-4FDA-94A2-5FACD8966E48}"

static const char usage_text[] =
    "usage:\n"
    "  sxsprof run [--config FILE] [--output PREFIX|FOLDER/] [--mode pick-first|pick-one|pick-all]\n"
    "              [--runtime SELECTOR] [--flush SECONDS] [--quiet] [--] COMMAND [ARGS...]\n"
    "  sxsprof report [--top N] PROFILE.json|FOLDER ...\n";

/* ---- Reading profiles ---- */

static gint64 member_int(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return 0;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_VALUE(n) ? json_node_get_int(n) : 0;
}

static const char *member_str(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string(n);
}

static JsonObject *member_obj(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static JsonArray *member_array(JsonObject *o, const char *name) {
  if (!o || !json_object_has_member(o, name))
    return NULL;
  JsonNode *n = json_object_get_member(o, name);
  return JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

/* One profile read from disk. */
typedef struct {
  char *path;
  JsonParser *parser; /* owns the document */
  JsonObject *doc;
} Profile;

static void profile_free(gpointer p) {
  Profile *pr = p;
  g_free(pr->path);
  g_clear_object(&pr->parser);
  g_free(pr);
}

/* Reads an sxsprof profile. NULL with *ret_error set (one sentence naming the file) otherwise. */
static Profile *profile_load(const char *path, char **ret_error) {
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  if (!json_parser_load_from_file(parser, path, &error)) {
    *ret_error = g_strdup_printf("cannot read profile %s: %s", path, error->message);
    return NULL;
  }
  JsonNode *root = json_parser_get_root(parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT(root) ||
      g_strcmp0(member_str(json_node_get_object(root), "format"), "sxsprof") != 0 ||
      !member_array(json_node_get_object(root), "runtimes")) {
    *ret_error = g_strdup_printf("%s is not an sxsprof profile (no \"format\":\"sxsprof\" with runtimes)", path);
    return NULL;
  }
  Profile *p = g_new0(Profile, 1);
  p->path = g_strdup(path);
  p->doc = json_node_get_object(root);
  p->parser = g_steal_pointer(&parser);
  return p;
}

static gint64 profile_pid(const Profile *p) {
  JsonObject *proc = member_obj(p->doc, "process");
  return proc ? member_int(proc, "pid") : member_int(p->doc, "pid");
}

/* The process's command line, joined by spaces and cut to `max` characters. */
static char *profile_command(const Profile *p, guint max) {
  JsonArray *argv = member_array(member_obj(p->doc, "process"), "command_line");
  g_autoptr(GString) s = g_string_new(NULL);
  for (guint i = 0; argv && i < json_array_get_length(argv); i++) {
    JsonNode *n = json_array_get_element(argv, i);
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
      continue;
    const char *arg = json_node_get_string(n);
    if (i == 0) {
      g_autofree char *base = g_path_get_basename(arg);
      g_string_append(s, base);
    } else {
      g_string_append_c(s, ' ');
      if (g_str_has_suffix(arg, ".dll") && strchr(arg, '/')) {
        g_autofree char *base = g_path_get_basename(arg);
        g_string_append(s, base);
      } else {
        g_string_append(s, arg);
      }
    }
  }
  if (s->len == 0)
    g_string_append(s, "?");
  if (g_utf8_strlen(s->str, -1) > max) {
    g_autofree char *cut = g_utf8_substring(s->str, 0, max - 3);
    g_string_assign(s, cut);
    g_string_append(s, "...");
  }
  return g_string_free(g_steal_pointer(&s), FALSE);
}

/* "2 runtimes (10.0.12, 2.0.0 declined)". */
static char *profile_runtimes(const Profile *p) {
  JsonArray *rts = member_array(p->doc, "runtimes");
  guint n = rts ? json_array_get_length(rts) : 0;
  g_autoptr(GString) s = g_string_new(NULL);
  g_string_printf(s, "%u runtime%s", n, n == 1 ? "" : "s");
  for (guint i = 0; i < n; i++) {
    JsonObject *rt = json_array_get_object_element(rts, i);
    const char *v = member_str(rt, "version");
    const char *status = member_str(rt, "status");
    g_string_append(s, i == 0 ? " (" : ", ");
    g_string_append(s, v ? v : "?");
    if (g_strcmp0(status, "profiling") != 0)
      g_string_append_printf(s, " %s", status ? status : "?");
  }
  if (n)
    g_string_append_c(s, ')');
  return g_string_free(g_steal_pointer(&s), FALSE);
}

static int compare_counts(gconstpointer a, gconstpointer b, gpointer table) {
  guint x = GPOINTER_TO_UINT(g_hash_table_lookup(table, *(const char *const *)a));
  guint y = GPOINTER_TO_UINT(g_hash_table_lookup(table, *(const char *const *)b));
  if (x != y)
    return x < y ? 1 : -1;
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static gboolean is_framework_module(const char *module) {
  return g_str_has_prefix(module, "System.") || g_str_equal(module, "mscorlib.dll") ||
         g_str_has_prefix(module, "Microsoft.") || g_str_equal(module, "netstandard.dll");
}

/* Counters and functions of one or more runtimes, added together. */
typedef struct {
  gint64 jit_compiled, modules_loaded, exceptions, gcs, threads_created;
  GHashTable *per_module;   /* module -> count of functions (borrowed keys) */
  GHashTable *app_seen;     /* application function names already listed (borrowed) */
  GPtrArray *app_functions; /* borrowed names, first-seen order */
} Tally;

static void tally_init(Tally *t) {
  memset(t, 0, sizeof *t);
  t->per_module = g_hash_table_new(g_str_hash, g_str_equal);
  t->app_seen = g_hash_table_new(g_str_hash, g_str_equal);
  t->app_functions = g_ptr_array_new();
}

static void tally_clear(Tally *t) {
  g_hash_table_unref(t->per_module);
  g_hash_table_unref(t->app_seen);
  g_ptr_array_unref(t->app_functions);
}

static void tally_add(Tally *t, JsonObject *rt) {
  JsonObject *c = member_obj(rt, "counters");
  t->jit_compiled += member_int(c, "jit_compiled");
  t->modules_loaded += member_int(c, "modules_loaded");
  t->exceptions += member_int(c, "exceptions");
  t->gcs += member_int(c, "gcs");
  t->threads_created += member_int(c, "threads_created");
  JsonArray *fns = member_array(rt, "functions");
  for (guint j = 0; fns && j < json_array_get_length(fns); j++) {
    JsonObject *f = json_array_get_object_element(fns, j);
    const char *module = member_str(f, "module") ? member_str(f, "module") : "?";
    const char *name = member_str(f, "name") ? member_str(f, "name") : "?";
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(t->per_module, module));
    g_hash_table_insert(t->per_module, (gpointer)module, GUINT_TO_POINTER(n + 1));
    if (!is_framework_module(module) && g_hash_table_add(t->app_seen, (gpointer)name))
      g_ptr_array_add(t->app_functions, (gpointer)name);
  }
}

static void tally_print(const Tally *t, FILE *out, int top) {
  fprintf(out,
          "  jit_compiled=%" G_GINT64_FORMAT " modules_loaded=%" G_GINT64_FORMAT " exceptions=%" G_GINT64_FORMAT
          " gcs=%" G_GINT64_FORMAT " threads_created=%" G_GINT64_FORMAT "\n",
          t->jit_compiled, t->modules_loaded, t->exceptions, t->gcs, t->threads_created);
  g_autoptr(GPtrArray) modules = g_ptr_array_new();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, t->per_module);
  while (g_hash_table_iter_next(&it, &key, NULL))
    g_ptr_array_add(modules, key);
  g_ptr_array_sort_with_data(modules, compare_counts, t->per_module);
  fprintf(out, "  functions by module:");
  for (guint j = 0; j < modules->len && j < (guint)top; j++)
    fprintf(out, "%s %s %u", j ? "," : "", (char *)modules->pdata[j],
            GPOINTER_TO_UINT(g_hash_table_lookup(t->per_module, modules->pdata[j])));
  if (modules->len > (guint)top)
    fprintf(out, ", and %u more", modules->len - top);
  fprintf(out, "\n");
  if (t->app_functions->len) {
    fprintf(out, "  application functions (%u):", t->app_functions->len);
    for (guint j = 0; j < t->app_functions->len && j < (guint)top; j++)
      fprintf(out, "%s %s", j ? "," : "", (char *)t->app_functions->pdata[j]);
    if (t->app_functions->len > (guint)top)
      fprintf(out, ", ...");
    fprintf(out, "\n");
  }
}

/* The summary of one profile: the process, then each runtime. */
static void report_one(const Profile *p, FILE *out, int top) {
  JsonArray *runtimes = member_array(p->doc, "runtimes");
  guint n = json_array_get_length(runtimes);
  g_autofree char *command = profile_command(p, 80);
  fprintf(out, "profile %s: pid %" G_GINT64_FORMAT ", mode %s, %u runtime%s\n", p->path, profile_pid(p),
          member_str(p->doc, "mode") ? member_str(p->doc, "mode") : "?", n, n == 1 ? "" : "s");
  fprintf(out, "  command: %s\n", command);
  for (guint i = 0; i < n; i++) {
    JsonObject *rt = json_array_get_object_element(runtimes, i);
    fprintf(out, "runtime %" G_GINT64_FORMAT ": %s %s  %s\n", member_int(rt, "id"),
            member_str(rt, "version") ? member_str(rt, "version") : "?",
            member_str(rt, "status") ? member_str(rt, "status") : "?",
            member_str(rt, "path") ? member_str(rt, "path") : "?");
    if (member_str(rt, "reason"))
      fprintf(out, "  reason: %s\n", member_str(rt, "reason"));
    if (g_strcmp0(member_str(rt, "status"), "profiling") != 0)
      continue;
    Tally t;
    tally_init(&t);
    tally_add(&t, rt);
    tally_print(&t, out, top);
    tally_clear(&t);
  }
}

/* One line per profile: pid, command, runtimes, where. */
static void list_line(const Profile *p, FILE *out) {
  g_autofree char *command = profile_command(p, 60);
  g_autofree char *runtimes = profile_runtimes(p);
  fprintf(out, "sxsprof: pid %" G_GINT64_FORMAT " (%s): %s -> %s\n", profile_pid(p), command, runtimes, p->path);
}

/* Several profiles: one line each, then everything added together. */
static void report_merged(GPtrArray *profiles, FILE *out, int top) {
  guint n_runtimes = 0, n_profiled = 0;
  Tally t;
  tally_init(&t);
  for (guint i = 0; i < profiles->len; i++) {
    const Profile *p = profiles->pdata[i];
    JsonArray *rts = member_array(p->doc, "runtimes");
    for (guint j = 0; j < json_array_get_length(rts); j++) {
      JsonObject *rt = json_array_get_object_element(rts, j);
      n_runtimes++;
      if (g_strcmp0(member_str(rt, "status"), "profiling") == 0) {
        n_profiled++;
        tally_add(&t, rt);
      }
    }
  }
  fprintf(out, "%u profiles, %u runtimes (%u profiled):\n", profiles->len, n_runtimes, n_profiled);
  for (guint i = 0; i < profiles->len; i++)
    list_line(profiles->pdata[i], out);
  fprintf(out, "merged:\n");
  tally_print(&t, out, top);
  tally_clear(&t);
}

static int compare_profiles(gconstpointer a, gconstpointer b) {
  const Profile *x = *(Profile *const *)a, *y = *(Profile *const *)b;
  gint64 px = member_int(member_obj(x->doc, "process"), "start_unix_ms");
  gint64 py = member_int(member_obj(y->doc, "process"), "start_unix_ms");
  if (px != py)
    return px < py ? -1 : 1;
  gint64 ix = profile_pid(x), iy = profile_pid(y);
  if (ix != iy)
    return ix < iy ? -1 : 1;
  return strcmp(x->path, y->path);
}

/* Adds every sxsprof profile in a folder (not its subfolders). Files that are not profiles are
 * counted in *skipped. Returns FALSE when the folder cannot be read. */
static gboolean load_folder(const char *folder, GPtrArray *profiles, guint *skipped) {
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open(folder, 0, &error);
  if (!dir) {
    fprintf(stderr, "sxsprof: cannot read folder %s: %s\n", folder, error->message);
    return FALSE;
  }
  const char *name;
  while ((name = g_dir_read_name(dir))) {
    if (!g_str_has_suffix(name, ".json"))
      continue;
    g_autofree char *path = g_build_filename(folder, name, NULL);
    g_autofree char *why = NULL;
    Profile *p = g_file_test(path, G_FILE_TEST_IS_REGULAR) ? profile_load(path, &why) : NULL;
    if (p)
      g_ptr_array_add(profiles, p);
    else
      (*skipped)++;
  }
  return TRUE;
}

static int cmd_report(int argc, char **argv) {
  int top = 10;
  g_autoptr(GPtrArray) paths = g_ptr_array_new();
  for (int i = 0; i < argc; i++) {
    if (g_str_equal(argv[i], "--top")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "sxsprof: --top needs a number from 1 to 100000\n");
        return 2;
      }
      char *end = NULL;
      long v = strtol(argv[++i], &end, 10);
      if (!end || *end || v < 1 || v > 100000) {
        fprintf(stderr, "sxsprof: --top needs a number from 1 to 100000, not \"%s\"\n", argv[i]);
        return 2;
      }
      top = (int)v;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "sxsprof: unknown option \"%s\"\n%s", argv[i], usage_text);
      return 2;
    } else {
      g_ptr_array_add(paths, argv[i]);
    }
  }
  if (paths->len == 0) {
    fprintf(stderr, "sxsprof: report needs a profile file or a folder of profiles\n%s", usage_text);
    return 2;
  }
  int status = 0;
  g_autoptr(GPtrArray) profiles = g_ptr_array_new_with_free_func(profile_free);
  for (guint i = 0; i < paths->len; i++) {
    const char *path = paths->pdata[i];
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
      guint before = profiles->len, skipped = 0;
      if (!load_folder(path, profiles, &skipped)) {
        status = 1;
      } else if (profiles->len == before) {
        fprintf(stderr, "sxsprof: no sxsprof profile in folder %s\n", path);
        status = 1;
      } else if (skipped) {
        fprintf(stderr, "sxsprof: %u .json file%s in %s %s not sxsprof profiles, skipped\n", skipped,
                skipped == 1 ? "" : "s", path, skipped == 1 ? "is" : "are");
      }
      continue;
    }
    g_autofree char *why = NULL;
    Profile *p = profile_load(path, &why);
    if (!p) {
      fprintf(stderr, "sxsprof: %s\n", why);
      status = 1;
      continue;
    }
    g_ptr_array_add(profiles, p);
  }
  g_ptr_array_sort(profiles, compare_profiles);
  for (guint i = 0; i < profiles->len; i++)
    report_one(profiles->pdata[i], stdout, top);
  if (profiles->len > 1)
    report_merged(profiles, stdout, top);
  return status;
}

/* ---- Running a program ---- */

/* The profiler library: $SXSPROF_LIBRARY, else ../lib/libsxsprof.so next to this program. */
static char *find_library(void) {
  const char *env = g_getenv("SXSPROF_LIBRARY");
  if (env && *env)
    return g_strdup(env);
  g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
  if (!exe)
    return NULL;
  g_autofree char *bindir = g_path_get_dirname(exe);
  g_autofree char *candidate = g_build_filename(bindir, "..", "lib", "libsxsprof.so", NULL);
  char resolved[PATH_MAX];
  if (!realpath(candidate, resolved))
    return NULL;
  return g_strdup(resolved);
}

/* Writes a config file for --mode/--runtime/--flush when the user gave no --config. */
static char *write_generated_config(const char *mode, const char *runtime, const char *flush, GError **error) {
  g_autoptr(GString) text = g_string_new("[profiler]\n");
  if (mode)
    g_string_append_printf(text, "mode=%s\n", mode);
  if (runtime)
    g_string_append_printf(text, "runtime=%s\n", runtime);
  if (flush)
    g_string_append_printf(text, "flush=%s\n", flush);
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp("sxsprof-XXXXXX.conf", &path, error);
  if (fd < 0)
    return NULL;
  close(fd);
  if (!g_file_set_contents(path, text->str, text->len, error)) {
    g_unlink(path);
    return NULL;
  }
  return g_steal_pointer(&path);
}

static volatile sig_atomic_t child_pid;

/* Passes a signal sent to the launcher on to the program. A signal the terminal generated
 * (Ctrl-C, Ctrl-\, hang-up) already reached the program, which shares the launcher's process
 * group, so only signals some process sent (kill, a supervisor) are passed on.
 * Context: signal handler; async-signal-safe. */
static void forward_signal(int signo, siginfo_t *info, void *ucontext) {
  (void)ucontext;
  int saved = errno;
  pid_t pid = (pid_t)child_pid;
  if (pid > 0 && (!info || info->si_code <= 0)) /* SI_USER, SI_QUEUE, SI_TKILL: sent by a process */
    kill(pid, signo);
  errno = saved;
}

static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* The size of a file, 0 when it does not exist. */
static gint64 file_size(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 ? (gint64)st.st_size : 0;
}

/* Copies what was appended to the log since `offset` to stderr. */
static void relay_log(const char *path, gint64 offset) {
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!path || !g_file_get_contents(path, &text, &len, NULL) || (gsize)offset >= len)
    return;
  fwrite(text + offset, 1, len - offset, stderr);
  if (text[len - 1] != '\n')
    fputc('\n', stderr);
}

/* Every profile of this run: the files the output names that record run_id. */
static GPtrArray *find_run_profiles(const char *output, gboolean is_folder, const char *run_id) {
  GPtrArray *found = g_ptr_array_new_with_free_func(profile_free);
  g_autofree char *folder = is_folder ? g_strdup(output) : g_path_get_dirname(output);
  g_autofree char *base = is_folder ? NULL : g_path_get_basename(output);
  g_autoptr(GDir) dir = g_dir_open(folder, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name(dir))) {
    if (!g_str_has_suffix(name, ".json"))
      continue;
    if (!is_folder) {
      /* <base>.json or <base>.<pid>.json */
      size_t bl = strlen(base);
      if (strncmp(name, base, bl) != 0 || name[bl] != '.')
        continue;
      const char *rest = name + bl + 1;
      size_t digits = strspn(rest, "0123456789");
      if (!g_str_equal(rest, "json") && !(digits > 0 && g_str_equal(rest + digits, ".json")))
        continue;
    }
    g_autofree char *path = g_build_filename(folder, name, NULL);
    g_autofree char *why = NULL;
    Profile *p = profile_load(path, &why);
    if (!p)
      continue;
    if (g_strcmp0(member_str(member_obj(p->doc, "process"), "run_id"), run_id) != 0) {
      profile_free(p);
      continue;
    }
    g_ptr_array_add(found, p);
  }
  g_ptr_array_sort(found, compare_profiles);
  return found;
}

typedef struct {
  const char *config, *output, *mode, *runtime, *flush;
  gboolean quiet;
} RunOptions;

/* Parses run's options; returns the index of the command, or -1 after printing why. */
static int parse_run_options(int argc, char **argv, RunOptions *o) {
  int i = 0;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (g_str_equal(a, "--")) {
      i++;
      break;
    }
    if (a[0] != '-')
      break;
    if (g_str_equal(a, "--quiet") || g_str_equal(a, "-q")) {
      o->quiet = TRUE;
      continue;
    }
    const char **slot = g_str_equal(a, "--config") || g_str_equal(a, "-c")   ? &o->config
                        : g_str_equal(a, "--output") || g_str_equal(a, "-o") ? &o->output
                        : g_str_equal(a, "--mode")                           ? &o->mode
                        : g_str_equal(a, "--runtime")                        ? &o->runtime
                        : g_str_equal(a, "--flush")                          ? &o->flush
                                                                             : NULL;
    if (!slot) {
      fprintf(stderr, "sxsprof: unknown option \"%s\"\n%s", a, usage_text);
      return -1;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "sxsprof: %s needs a value\n", a);
      return -1;
    }
    *slot = argv[++i];
  }
  if (i >= argc) {
    fprintf(stderr, "sxsprof: run needs a command, e.g. sxsprof run -- dotnet app.dll\n");
    return -1;
  }
  if (o->config && (o->mode || o->runtime || o->flush)) {
    fprintf(stderr, "sxsprof: --mode, --runtime and --flush go into the config file; with --config, set them there\n");
    return -1;
  }
  return i;
}

static int cmd_run(int argc, char **argv) {
  RunOptions opt = {0};
  int cmd = parse_run_options(argc, argv, &opt);
  if (cmd < 0)
    return 2;
  g_autofree char *library = find_library();
  if (!library) {
    fprintf(stderr, "sxsprof: cannot find libsxsprof.so next to this program; set SXSPROF_LIBRARY\n");
    return 2;
  }
  g_autofree char *generated = NULL;
  const char *config_path = opt.config;
  if (opt.mode || opt.runtime || opt.flush) {
    g_autoptr(GError) error = NULL;
    generated = write_generated_config(opt.mode, opt.runtime, opt.flush, &error);
    if (!generated) {
      fprintf(stderr, "sxsprof: cannot write a temporary config: %s\n", error->message);
      return 2;
    }
    config_path = generated;
  }

  /* A config the profiler would refuse is reported now, before the program starts. */
  g_autoptr(SxsConfig) cfg = NULL;
  {
    g_autoptr(GError) error = NULL;
    cfg = config_path ? sxs__config_load(config_path, &error) : sxs__config_new_default();
    if (!cfg) {
      const char *msg = error->message;
      /* A generated config's line numbers mean nothing to the user: name the options instead. */
      if (generated && g_str_has_prefix(msg, generated))
        fprintf(stderr, "sxsprof: bad --mode/--runtime/--flush: %s; the program was not started\n",
                strstr(msg, ": ") ? strstr(msg, ": ") + 2 : msg);
      else
        fprintf(stderr, "sxsprof: %s; the program was not started\n", msg);
      if (generated)
        g_unlink(generated);
      return 2;
    }
  }
  g_autoptr(SxsConfig) defaults = sxs__config_new_default();
  gboolean config_output = cfg->output_is_folder || !g_str_equal(cfg->output, defaults->output);
  if (opt.output) {
    g_autoptr(GError) error = NULL;
    if (!sxs__config_set_output(cfg, opt.output, "--output", &error)) {
      fprintf(stderr, "sxsprof: %s\n", error->message);
      if (generated)
        g_unlink(generated);
      return 2;
    }
  }
  gboolean explicit_output = opt.output || config_output;
  if (explicit_output) {
    g_autofree char *problem = NULL;
    if (sxs__config_check_output(cfg->output, cfg->output_is_folder, &problem) < 0) {
      fprintf(stderr, "sxsprof: %s; the program was not started\n", problem);
      if (generated)
        g_unlink(generated);
      return 2;
    }
  }
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *run_id = g_strdup_printf("%d-%" G_GINT64_FORMAT, (int)getpid(), g_get_real_time());

  /* The terminal signals are held until the handlers know the program's pid. */
  sigset_t forwarded, old_mask;
  sigemptyset(&forwarded);
  for (size_t s = 0; s < G_N_ELEMENTS(forwarded_signals); s++)
    sigaddset(&forwarded, forwarded_signals[s]);
  sigprocmask(SIG_BLOCK, &forwarded, &old_mask);

  /* Where this run's log lines will go, when that is known before the program's pid is: its
   * current end is where they begin. The default log (<cwd>/sxsprof-<pid>.log) is new. */
  g_autofree char *log_path = NULL;
  if (cfg->log_kind == SXS_LOG_FILE) {
    log_path = g_strdup(cfg->log_path);
  } else if (cfg->log_kind == SXS_LOG_DEFAULT && explicit_output) {
    g_autofree char *unused = NULL;
    sxs__process_output_paths(cfg->output, cfg->output_is_folder, TRUE, 0, "x", &unused, &log_path);
  }
  gint64 log_offset = file_size(log_path);

  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "sxsprof: fork failed: %s\n", g_strerror(errno));
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    return 2;
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    g_autofree char *default_output = g_strdup_printf("%s/sxsprof-%d", cwd, (int)getpid());
    g_autofree char *owner = g_strdup_printf("%d", (int)getpid());
    g_setenv("CORECLR_ENABLE_PROFILING", "1", TRUE);
    g_setenv("CORECLR_PROFILER", SXS_PROFILER_CLSID, TRUE);
    g_setenv("CORECLR_PROFILER_PATH", library, TRUE);
    if (opt.output)
      g_setenv(SXS_OUTPUT_ENV, cfg->output_is_folder ? g_strconcat(cfg->output, "/", NULL) : cfg->output, TRUE);
    else if (!config_output)
      g_setenv(SXS_OUTPUT_ENV, default_output, TRUE);
    else
      g_unsetenv(SXS_OUTPUT_ENV);
    g_setenv(SXS_OWNER_PID_ENV, owner, TRUE);
    g_setenv(SXS_RUN_ID_ENV, run_id, TRUE);
    if (config_path)
      g_setenv(SXS_CONFIG_ENV, config_path, TRUE);
    else
      g_unsetenv(SXS_CONFIG_ENV);
    execvp(argv[cmd], argv + cmd);
    fprintf(stderr, "sxsprof: cannot run %s: %s\n", argv[cmd], g_strerror(errno));
    _exit(127);
  }

  child_pid = child;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (size_t s = 0; s < G_N_ELEMENTS(forwarded_signals); s++)
    sigaction(forwarded_signals[s], &sa, NULL);
  signal(SIGPIPE, SIG_IGN); /* a closed stderr must not cut the launcher's own lines short */

  /* Where the profiles and the shared log go, as the profiler will decide it. */
  if (!explicit_output) {
    g_free(cfg->output);
    cfg->output = g_strdup_printf("%s/sxsprof-%d", cwd, (int)child);
  }
  if (cfg->log_kind == SXS_LOG_DEFAULT && !log_path) {
    g_autofree char *unused = NULL;
    sxs__process_output_paths(cfg->output, cfg->output_is_folder, TRUE, (int)child, "x", &unused, &log_path);
    log_offset = 0;
  }
  sigprocmask(SIG_SETMASK, &old_mask, NULL);

  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR)
    ;
  child_pid = 0;
  if (generated)
    g_unlink(generated);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !g_file_test(log_path ? log_path : "", G_FILE_TEST_EXISTS))
    return 127;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (opt.quiet)
    return code;

  if (cfg->log_kind != SXS_LOG_STDERR)
    relay_log(log_path, log_offset);
  g_autoptr(GPtrArray) profiles = find_run_profiles(cfg->output, cfg->output_is_folder, run_id);
  if (profiles->len == 0) {
    fprintf(stderr, "sxsprof: no profile was written (was the command a .NET program?)\n");
    return code;
  }
  fprintf(stderr, "sxsprof: %u profile%s written by the program's processes:\n", profiles->len,
          profiles->len == 1 ? "" : "s");
  for (guint i = 0; i < profiles->len; i++)
    list_line(profiles->pdata[i], stderr);
  /* The summary of the program itself (the process the launcher started), else the first. */
  const Profile *main_profile = profiles->pdata[0];
  for (guint i = 0; i < profiles->len; i++)
    if (profile_pid(profiles->pdata[i]) == child)
      main_profile = profiles->pdata[i];
  report_one(main_profile, stderr, 10);
  if (profiles->len > 1) {
    /* How to see them all together: the folder, the files themselves, or a pattern. */
    g_autoptr(GString) how = g_string_new(NULL);
    if (cfg->output_is_folder) {
      g_string_append(how, cfg->output);
    } else if (profiles->len <= 4) {
      for (guint i = 0; i < profiles->len; i++)
        g_string_append_printf(how, "%s%s", i ? " " : "", ((const Profile *)profiles->pdata[i])->path);
    } else {
      g_string_append_printf(how, "%s.json %s.*.json", cfg->output, cfg->output);
    }
    fprintf(stderr, "sxsprof: all %u together: sxsprof report %s\n", profiles->len, how->str);
  }
  return code;
}

int main(int argc, char **argv) {
  if (argc < 2 || g_str_equal(argv[1], "--help") || g_str_equal(argv[1], "-h")) {
    fputs(usage_text, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (g_str_equal(argv[1], "run"))
    return cmd_run(argc - 2, argv + 2);
  if (g_str_equal(argv[1], "report"))
    return cmd_report(argc - 2, argv + 2);
  fprintf(stderr, "sxsprof: unknown command \"%s\"\n%s", argv[1], usage_text);
  return 2;
}
