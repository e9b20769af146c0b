/* sxsprof: runs a .NET command with the profiler loaded, and summarizes profiles.
 *
 *   sxsprof run [--config FILE] [--output PREFIX] [--mode MODE] [--runtime SEL] [--] COMMAND [ARGS...]
 *   sxsprof report [--top N] PROFILE.json
 *
 * `run` sets the CORECLR_* variables for the child, waits for it, prints where the profile went
 * and a summary, and exits with the child's exit status. It does not profile anything itself. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SXS_PROFILER_CLSID "{0560F28C-910E-4FDA-94A2-5FACD8966E48}"

static const char usage_text[] =
    "usage:\n"
    "  sxsprof run [--config FILE] [--output PREFIX] [--mode pick-first|pick-one|pick-all]\n"
    "              [--runtime SELECTOR] [--] COMMAND [ARGS...]\n"
    "  sxsprof report [--top N] PROFILE.json\n";

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

static gint64 member_int(JsonObject *o, const char *name) {
  return json_object_has_member(o, name) ? json_object_get_int_member(o, name) : 0;
}

static const char *member_str(JsonObject *o, const char *name) {
  if (!json_object_has_member(o, name) || JSON_NODE_HOLDS_NULL(json_object_get_member(o, name)))
    return NULL;
  return json_object_get_string_member(o, name);
}

/* Prints the summary of one profile document. Returns 0, or 1 when it cannot be read. */
static int report(const char *path, int top) {
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  if (!json_parser_load_from_file(parser, path, &error)) {
    fprintf(stderr, "sxsprof: cannot read profile %s: %s\n", path, error->message);
    return 1;
  }
  JsonNode *root = json_parser_get_root(parser);
  if (!JSON_NODE_HOLDS_OBJECT(root) ||
      g_strcmp0(member_str(json_node_get_object(root), "format"), "sxsprof") != 0) {
    fprintf(stderr, "sxsprof: %s is not an sxsprof profile (no \"format\":\"sxsprof\")\n", path);
    return 1;
  }
  JsonObject *doc = json_node_get_object(root);
  JsonArray *runtimes = json_object_get_array_member(doc, "runtimes");
  printf("profile %s: pid %" G_GINT64_FORMAT ", mode %s, %u runtime%s\n", path, member_int(doc, "pid"),
         member_str(doc, "mode") ? member_str(doc, "mode") : "?", json_array_get_length(runtimes),
         json_array_get_length(runtimes) == 1 ? "" : "s");
  for (guint i = 0; i < json_array_get_length(runtimes); i++) {
    JsonObject *rt = json_array_get_object_element(runtimes, i);
    printf("runtime %" G_GINT64_FORMAT ": %s %s  %s\n", member_int(rt, "id"),
           member_str(rt, "version") ? member_str(rt, "version") : "?", member_str(rt, "status"),
           member_str(rt, "path") ? member_str(rt, "path") : "?");
    if (member_str(rt, "reason"))
      printf("  reason: %s\n", member_str(rt, "reason"));
    if (g_strcmp0(member_str(rt, "status"), "profiling") != 0)
      continue;
    JsonObject *c = json_object_get_object_member(rt, "counters");
    printf("  jit_compiled=%" G_GINT64_FORMAT " modules_loaded=%" G_GINT64_FORMAT " exceptions=%" G_GINT64_FORMAT
           " gcs=%" G_GINT64_FORMAT " threads_created=%" G_GINT64_FORMAT "\n",
           member_int(c, "jit_compiled"), member_int(c, "modules_loaded"), member_int(c, "exceptions"),
           member_int(c, "gcs"), member_int(c, "threads_created"));
    JsonArray *fns = json_object_get_array_member(rt, "functions");
    g_autoptr(GHashTable) per_module = g_hash_table_new(g_str_hash, g_str_equal);
    g_autoptr(GPtrArray) app_functions = g_ptr_array_new();
    for (guint j = 0; j < json_array_get_length(fns); j++) {
      JsonObject *f = json_array_get_object_element(fns, j);
      const char *module = member_str(f, "module") ? member_str(f, "module") : "?";
      guint n = GPOINTER_TO_UINT(g_hash_table_lookup(per_module, module));
      g_hash_table_insert(per_module, (gpointer)module, GUINT_TO_POINTER(n + 1));
      if (!is_framework_module(module))
        g_ptr_array_add(app_functions, (gpointer)member_str(f, "name"));
    }
    g_autoptr(GPtrArray) modules = g_ptr_array_new();
    GHashTableIter mit;
    gpointer mkey;
    g_hash_table_iter_init(&mit, per_module);
    while (g_hash_table_iter_next(&mit, &mkey, NULL))
      g_ptr_array_add(modules, mkey);
    g_ptr_array_sort_with_data(modules, compare_counts, per_module);
    printf("  functions by module:");
    for (guint j = 0; j < modules->len && j < (guint)top; j++)
      printf("%s %s %u", j ? "," : "", (char *)modules->pdata[j],
             GPOINTER_TO_UINT(g_hash_table_lookup(per_module, modules->pdata[j])));
    if (modules->len > (guint)top)
      printf(", and %u more", modules->len - top);
    printf("\n");
    if (app_functions->len) {
      printf("  application functions (%u):", app_functions->len);
      for (guint j = 0; j < app_functions->len && j < (guint)top; j++)
        printf("%s %s", j ? "," : "", (char *)app_functions->pdata[j]);
      if (app_functions->len > (guint)top)
        printf(", ...");
      printf("\n");
    }
  }
  return 0;
}

static int cmd_report(int argc, char **argv) {
  int top = 10;
  const char *path = NULL;
  for (int i = 0; i < argc; i++) {
    if (g_str_equal(argv[i], "--top") && i + 1 < argc) {
      char *end = NULL;
      long v = strtol(argv[++i], &end, 10);
      if (!end || *end || v < 1 || v > 100000) {
        fprintf(stderr, "sxsprof: --top needs a number from 1 to 100000, not \"%s\"\n", argv[i]);
        return 2;
      }
      top = (int)v;
    } else if (!path) {
      path = argv[i];
    } else {
      fprintf(stderr, "sxsprof: report takes one profile, got \"%s\" too\n%s", argv[i], usage_text);
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "sxsprof: report needs a profile file\n%s", usage_text);
    return 2;
  }
  return report(path, top);
}

/* Writes a config file for --mode/--runtime when the user gave no --config. */
static char *write_generated_config(const char *mode, const char *runtime, GError **error) {
  g_autoptr(GString) text = g_string_new("[profiler]\n");
  if (mode)
    g_string_append_printf(text, "mode=%s\n", mode);
  if (runtime)
    g_string_append_printf(text, "runtime=%s\n", runtime);
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp("sxsprof-XXXXXX.conf", &path, error);
  if (fd < 0)
    return NULL;
  close(fd);
  if (!g_file_set_contents(path, text->str, text->len, error))
    return NULL;
  return g_steal_pointer(&path);
}

static int cmd_run(int argc, char **argv) {
  const char *config = NULL, *output = NULL, *mode = NULL, *runtime = NULL;
  int i = 0;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (g_str_equal(a, "--")) {
      i++;
      break;
    }
    if (a[0] != '-')
      break;
    const char **slot = g_str_equal(a, "--config") ? &config
                        : g_str_equal(a, "--output") ? &output
                        : g_str_equal(a, "--mode")   ? &mode
                        : g_str_equal(a, "--runtime") ? &runtime
                                                      : NULL;
    if (!slot) {
      fprintf(stderr, "sxsprof: unknown option \"%s\"\n%s", a, usage_text);
      return 2;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "sxsprof: %s needs a value\n", a);
      return 2;
    }
    *slot = argv[++i];
  }
  if (i >= argc) {
    fprintf(stderr, "sxsprof: run needs a command, e.g. sxsprof run -- dotnet app.dll\n");
    return 2;
  }
  if (config && (mode || runtime)) {
    fprintf(stderr, "sxsprof: --mode and --runtime go into the config file; with --config, set them there\n");
    return 2;
  }
  g_autofree char *library = find_library();
  if (!library) {
    fprintf(stderr, "sxsprof: cannot find libsxsprof.so next to this program; set SXSPROF_LIBRARY\n");
    return 2;
  }
  g_autofree char *generated = NULL;
  if (mode || runtime) {
    g_autoptr(GError) error = NULL;
    generated = write_generated_config(mode, runtime, &error);
    if (!generated) {
      fprintf(stderr, "sxsprof: cannot write a temporary config: %s\n", error->message);
      return 2;
    }
    config = generated;
  }
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *output_abs = output ? (g_path_is_absolute(output) ? g_strdup(output)
                                                                     : g_build_filename(cwd, output, NULL))
                                       : NULL;

  fflush(stdout);
  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "sxsprof: fork failed: %s\n", g_strerror(errno));
    return 2;
  }
  if (child == 0) {
    g_autofree char *default_output = g_strdup_printf("%s/sxsprof-%d", cwd, (int)getpid());
    g_setenv("CORECLR_ENABLE_PROFILING", "1", TRUE);
    g_setenv("CORECLR_PROFILER", SXS_PROFILER_CLSID, TRUE);
    g_setenv("CORECLR_PROFILER_PATH", library, TRUE);
    g_setenv("SXSPROF_OUTPUT", output_abs ? output_abs : default_output, TRUE);
    if (config)
      g_setenv("SXSPROF_CONFIG", config, TRUE);
    execvp(argv[i], argv + i);
    fprintf(stderr, "sxsprof: cannot run %s: %s\n", argv[i], g_strerror(errno));
    _exit(127);
  }
  /* The child gets terminal signals itself; the launcher waits for it. */
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR)
    ;
  if (generated)
    g_unlink(generated);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return 127;
  g_autofree char *profile = output_abs ? g_strconcat(output_abs, ".json", NULL)
                                         : g_strdup_printf("%s/sxsprof-%d.json", cwd, (int)child);
  fflush(stdout);
  if (g_file_test(profile, G_FILE_TEST_EXISTS)) {
    /* The summary goes to stderr so the command's own stdout stays exactly as it was. */
    int saved = dup(STDOUT_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    report(profile, 10);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
  } else {
    fprintf(stderr, "sxsprof: no profile at %s (was the command a .NET program?)\n", profile);
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
