/* sxsprof_common: what the launcher's commands (run, report, attach) share: the usage, the
 * profiler's library and the config a program runs with, option values, the profiler's log, reading
 * saved profiles, rendering them, and listing the views of a run. No command calls another's code:
 * each lives in its own file (sxsprof_run.c, sxsprof_report.c, sxsprof_attach.c) and main
 * (sxsprof_main.c) dispatches. */
#include <errno.h>
#include <math.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sxs_config.h"
#include "sxs_formats.h"
#include "sxs_spool.h"
#include "sxs_timeline.h"
#include "sxsprof.h"

const char sxsprof_usage[] =
    "usage:\n"
    "  sxsprof run [options] [--] COMMAND [ARGS...]\n"
    "      -o, --output PREFIX|FOLDER/   where the profile and its views go (default ./sxsprof-<pid>)\n"
    "      --format LIST                 json,speedscope,folded,svg,pprof,trace,summary or all (default: all\n"
    "                                    but trace)\n"
    "      --sample[=HZ]                 sample every thread (CPU time, 99 Hz by default)\n"
    "      --wall                        sample wall-clock time instead of CPU time\n"
    "      --engine auto|perf|timer      what raises CPU samples (default auto: perf_events where allowed)\n"
    "      --event cycles|instructions|cache-misses|branch-misses   sample on a hardware counter (implies\n"
    "                                    --sample; needs a PMU)\n"
    "      --trace                       trace every call exactly (Enter/Leave hooks; implies --inventory)\n"
    "      --include PATTERNS            trace only these functions (implies --trace)\n"
    "      --exclude PATTERNS            do not trace these functions (implies --trace)\n"
    "      --stacks-on EVENTS            record stacks at exception,jit,gc\n"
    "      --exceptions                  profile exceptions: every one thrown, by type and throwing stack\n"
    "      --lock                        profile lock contention: every wait, its time and stack (.NET 5+)\n"
    "      --alloc                       profile allocations: sampled every ~100 KB, by type and stack (.NET 5+)\n"
    "      --inventory                   list every function JIT-compiled, inlined or run precompiled, with counts\n"
    "      --endpoints                   label samples, allocations, lock waits and exceptions with the HTTP\n"
    "                                    endpoint of the request they were for (ASP.NET Core, .NET 5+)\n"
    "      --symbols DIR                 look for PDBs in DIR too (after each assembly's own folder)\n"
    "      --debug-dir DIR               look for native debug files in DIR too (after /usr/lib/debug)\n"
    "      --mode pick-first|pick-one|pick-all, --runtime SELECTOR   which runtimes to profile\n"
    "      --flush SECONDS               rewrite the profile this often (0: at exit only)\n"
    "      --timeline WINDOW             keep every sample's time for the last WINDOW of the run (90s, 10m,\n"
    "                                    2h; default the whole run, up to 64 MiB of it)\n"
    "      -c, --config FILE             a config file; the options above override it\n"
    "      -q, --quiet                   print nothing after the program ends\n"
    "  sxsprof report PROFILE.json|FOLDER ... [options]\n"
    "      --format LIST                 as above (default: summary; all with -o)\n"
    "      -o, --output PREFIX           write the views to PREFIX.<format>\n"
    "      --top N                       rows per summary table (default 10)\n"
    "      --runtime ID                  only stacks with frames of runtime ID\n"
    "      --thread T                    only samples and stacks of thread T (OS id or name)\n"
    "      --from T, --to T              only what happened from T to T: seconds since the program started\n"
    "                                    (2.5, 2500ms) or a share of the run (25%)\n"
    "      --phases                      print the run's busy and idle phases (with their --from/--to)\n"
    "      --view samples|calls|events   what folded, svg and pprof show (default: samples if any);\n"
    "             |exceptions|contention|allocations   also an event profile alone\n"
    "      --max-size SIZE               read profiles of at most SIZE bytes (K, M, G; default 1G)\n"
    "      --lines                       managed frames by source line, not by function\n"
    "      --by component                samples under their component (application, framework, JIT, GC,\n"
    "                                    runtime, libc, other native, kernel) as the graphs' first level\n"
    "      --label endpoint=VALUE        only what was done for the requests of one endpoint (--endpoints):\n"
    "                                    --label 'endpoint=GET /orders/{id}'\n"
    "      --by endpoint                 also the file views of each endpoint, as PREFIX.endpoint.<name>.*\n"
    "      --compare A,B                 runtime B against runtime A of one profile (index, version or path);\n"
    "                                    options as for diff\n"
    "  sxsprof diff BASE NEW [options]   what changed from BASE to NEW (profiles, spools or folders of them)\n"
    "      --format LIST                 folded,svg,pprof,summary or all (default: summary; all with -o)\n"
    "      -o, --output PREFIX           write PREFIX.folded (base new columns), PREFIX.svg, PREFIX.negated.svg,\n"
    "                                    PREFIX.base.pb.gz and PREFIX.new.pb.gz (for go tool pprof -diff_base)\n"
    "      --view KIND                   samples, calls, exceptions, contention or allocations\n"
    "      --absolute                    compare weights (equal-length runs), not shares of each side's total\n"
    "      --exact-names                 match compiler-generated names (<>c__DisplayClass12_0) exactly\n"
    "      --top N, --runtime ID, --thread T, --lines, --from T, --to T   as for report (each side cut to\n"
    "                                    the window of its own run)\n"
    "  sxsprof attach PID [options]      profile a running .NET process (.NET Core 3.0 or later)\n"
    "      --runtime N|VERSION|PATH      which of its runtimes: runsxs's index N, a version prefix, or a\n"
    "                                    runtime folder (named after its version); needed when it runs several\n"
    "      --duration SEC                stop after SEC seconds (default: at Ctrl-C)\n"
    "      -o, --output PREFIX|FOLDER/   where the profile goes (default ./sxsprof-<pid>)\n"
    "      --sample[=HZ], --wall, --engine E, --event E, --stacks-on EVENTS, --inventory, --format LIST,\n"
    "      --timeline WINDOW, --endpoints,\n"
    "      --mode MODE, -c FILE, -q\n"
    "                                    as for run\n";

char *sxsprof_find_library(void) {
  const char *env = g_getenv("SXSPROF_LIBRARY");
  if (env && *env)
    return g_canonicalize_filename(env, NULL);
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

char *sxsprof_write_run_config(const SxsprofRunOptions *o, GError **error) {
  g_autoptr(GKeyFile) kf = g_key_file_new();
  if (o->config && !g_key_file_load_from_file(kf, o->config, G_KEY_FILE_KEEP_COMMENTS, error))
    return NULL;
  if (o->config_output)
    sxs__config_keyfile_set(kf, SXS_KEY_PROFILER_OUTPUT, o->config_output);
  if (o->mode)
    sxs__config_keyfile_set(kf, SXS_KEY_PROFILER_MODE, o->mode);
  if (o->runtime)
    sxs__config_keyfile_set(kf, SXS_KEY_PROFILER_RUNTIME, o->runtime);
  if (o->flush)
    sxs__config_keyfile_set(kf, SXS_KEY_PROFILER_FLUSH, o->flush);
  /* The files the profiler writes: the profile and every file view asked for, or the profile
   * alone when the launcher renders the views. */
  g_autoptr(GString) files = g_string_new("json");
  for (int f = SXS_FORMAT_JSON + 1; f < SXS_FORMAT_SUMMARY && !o->json_in_process; f++)
    if (o->formats & SXS_FORMAT_BIT(f))
      g_string_append_printf(files, ",%s", sxs__format_name((SxsFormat)f));
  if (o->json_in_process || o->format || !o->config || !sxs__config_keyfile_has(kf, SXS_KEY_PROFILER_FORMATS))
    sxs__config_keyfile_set(kf, SXS_KEY_PROFILER_FORMATS, files->str);
  if (o->inventory)
    sxs__config_keyfile_set(kf, SXS_KEY_PROFILER_INVENTORY, "true");
  if (o->engine)
    sxs__config_keyfile_set(kf, SXS_KEY_SAMPLING_ENGINE, o->engine);
  if (o->timeline)
    sxs__config_keyfile_set(kf, SXS_KEY_TIMELINE_WINDOW, o->timeline);
  if (o->event)
    sxs__config_keyfile_set(kf, SXS_KEY_SAMPLING_EVENT, o->event);
  if (o->sample || o->wall || o->event) {
    sxs__config_keyfile_set(kf, SXS_KEY_SAMPLING_ENABLED, "true");
    if (o->sample && *o->sample)
      sxs__config_keyfile_set(kf, SXS_KEY_SAMPLING_FREQUENCY, o->sample);
    if (o->wall)
      sxs__config_keyfile_set(kf, SXS_KEY_SAMPLING_MODE, "wall");
  }
  if (o->trace || o->include || o->exclude)
    sxs__config_keyfile_set(kf, SXS_KEY_TRACING_ENABLED, "true");
  if (o->include)
    sxs__config_keyfile_set(kf, SXS_KEY_TRACING_INCLUDE, o->include);
  if (o->exclude)
    sxs__config_keyfile_set(kf, SXS_KEY_TRACING_EXCLUDE, o->exclude);
  if (o->stacks_on)
    sxs__config_keyfile_set(kf, SXS_KEY_STACKS_ON, o->stacks_on);
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    if (o->profiles[k])
      sxs__config_keyfile_set(kf, sxs__config_profile_key((SxsProfileKind)k), "true");
  if (o->endpoints)
    sxs__config_keyfile_set(kf, SXS_KEY_LABELS_ENDPOINTS, "true");
  if (o->symbols) {
    g_autofree char *absolute = g_canonicalize_filename(o->symbols, NULL);
    sxs__config_keyfile_set(kf, SXS_KEY_LINES_PATHS, absolute);
  }
  if (o->debug_dir) {
    g_autofree char *absolute = g_canonicalize_filename(o->debug_dir, NULL);
    sxs__config_keyfile_set(kf, SXS_KEY_SYMBOLS_DEBUG_DIRS, absolute);
  }
  gsize len = 0;
  g_autofree char *text = g_key_file_to_data(kf, &len, NULL);
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp("sxsprof-XXXXXX.conf", &path, error);
  if (fd < 0)
    return NULL;
  close(fd);
  if (!g_file_set_contents(path, text, len, error)) {
    g_unlink(path);
    return NULL;
  }
  return g_steal_pointer(&path);
}

gint64 sxsprof_file_size(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 ? (gint64)st.st_size : 0;
}

gboolean sxsprof_relay_log(const char *path, gint64 offset) {
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!path || !g_file_get_contents(path, &text, &len, NULL) || (gsize)offset >= len)
    return FALSE;
  fwrite(text + offset, 1, len - offset, stderr);
  if (text[len - 1] != '\n')
    fputc('\n', stderr);
  return TRUE;
}

int sxsprof_take_value(int argc, char **argv, int *i, const char *inline_value, const char **slot) {
  if (inline_value) {
    *slot = inline_value;
  } else if (*i + 1 >= argc) {
    fprintf(stderr, "sxsprof: %s needs a value\n", argv[*i]);
    return -1;
  } else {
    *slot = argv[++*i];
  }
  return 0;
}

/* Is path a regular file written since the run began (not left over from an earlier run)? */
static gboolean written_since(const char *path, time_t started) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime >= started;
}

void sxsprof_print_views(const SxsprofProfile *p, guint formats, time_t started) {
  g_autofree char *base = sxs__formats_base(p->path);
  g_autoptr(GString) views = g_string_new(NULL);
  for (int f = SXS_FORMAT_JSON + 1; f < SXS_FORMAT_SUMMARY; f++) {
    g_autofree char *path = g_strconcat(base, sxs__format_suffix((SxsFormat)f), NULL);
    if ((formats & SXS_FORMAT_BIT(f)) && written_since(path, started))
      g_string_append_printf(views, "%s%s", views->len ? ", " : "", path);
    /* The event profiles' own folded and SVG files. */
    for (int k = 0; k < SXS_PROFILE_N_KINDS; k++) {
      g_autofree char *kind_path =
          g_strdup_printf("%s.%s%s", base, sxs__profile_kind_name((SxsProfileKind)k), sxs__format_suffix((SxsFormat)f));
      if ((formats & SXS_FORMAT_BIT(f)) && written_since(kind_path, started))
        g_string_append_printf(views, ", %s", kind_path);
    }
  }
  if (views->len)
    fprintf(stderr, "sxsprof: views: %s\n", views->str);
  if (formats & SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY)) {
    SxsprofRender r = {.formats = SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY),
                       .render = {.top = 10, .color = isatty(STDERR_FILENO), .kind = SXS_VIEW_N_KINDS},
                       .summary_out = stderr};
    sxsprof_render(p->model, &r);
  }
}

void sxsprof_print_flame_graph(const SxsprofProfile *p, guint formats, time_t started) {
  g_autofree char *base = sxs__formats_base(p->path);
  g_autofree char *svg = g_strconcat(base, ".svg", NULL);
  const SxsProfileModel *m = p->model;
  gboolean stacks = m->samples.stacks->len > 0 || m->stacks->len > 0;
  for (guint i = 0; !stacks && i < m->runtimes->len; i++)
    stacks = ((const SxsRuntimeModel *)m->runtimes->pdata[i])->call_tree->len > 0;
  if ((formats & SXS_FORMAT_BIT(SXS_FORMAT_SVG)) && written_since(svg, started))
    fprintf(stderr, "sxsprof: flame graph: %s\n", svg);
  else if ((formats & SXS_FORMAT_BIT(SXS_FORMAT_SVG)) && stacks)
    fprintf(stderr, "sxsprof: no flame graph: %s could not be written (the lines above say why)\n", svg);
  else if ((formats & SXS_FORMAT_BIT(SXS_FORMAT_SVG)) && m->samples.enabled)
    fprintf(stderr, "sxsprof: no flame graph: sampling was on, but the process ran no code while it was sampled\n");
  else if (formats & SXS_FORMAT_BIT(SXS_FORMAT_SVG))
    fprintf(stderr, "sxsprof: no flame graph: no stacks were recorded (turn on --sample, --trace, --stacks-on or "
                    "--exceptions, --lock or --alloc)\n");
}

void sxsprof_profile_free(gpointer p) {
  SxsprofProfile *pr = p;
  g_free(pr->path);
  g_free(pr->note);
  sxs__profile_model_free(pr->model);
  g_free(pr);
}

SxsprofProfile *sxsprof_profile_load(const char *path, guint64 max_size, char **ret_why) {
  g_autoptr(GError) error = NULL;
  SxsProfileModel *m = NULL;
  if (g_str_has_suffix(path, SXS_SPOOL_SUFFIX)) {
    SxsSpoolRead *spool = sxs__spool_load(path, &error);
    if (spool)
      m = g_steal_pointer(&spool->model);
    sxs__spool_read_free(spool);
  } else {
    m = sxs__profile_load(path, max_size, &error);
  }
  if (!m) {
    if (g_error_matches(error, SXS_PROFILE_READ_ERROR, SXS_PROFILE_READ_ERROR_TOO_LARGE))
      *ret_why = g_strdup_printf("%s (sxsprof report --max-size SIZE reads larger ones)", error->message);
    else
      *ret_why = g_strdup(error->message);
    return NULL;
  }
  SxsprofProfile *p = g_new0(SxsprofProfile, 1);
  p->path = g_strdup(path);
  p->model = m;
  return p;
}

char *sxsprof_profile_command(const SxsprofProfile *p, guint max) {
  g_autoptr(GString) s = g_string_new(NULL);
  char **argv = p->model->process ? p->model->process->argv : NULL;
  for (guint i = 0; argv && argv[i]; i++) {
    const char *arg = argv[i];
    if (i > 0)
      g_string_append_c(s, ' ');
    if (i == 0 || (g_str_has_suffix(arg, ".dll") && strchr(arg, '/'))) {
      g_autofree char *base = g_path_get_basename(arg);
      g_string_append(s, base);
    } else {
      g_string_append(s, arg);
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

void sxsprof_profile_list_line(const SxsprofProfile *p, FILE *out) {
  g_autofree char *command = sxsprof_profile_command(p, 60);
  const GPtrArray *rts = p->model->runtimes;
  g_autoptr(GString) s = g_string_new(NULL);
  g_string_printf(s, "%u runtime%s", rts->len, rts->len == 1 ? "" : "s");
  for (guint i = 0; i < rts->len; i++) {
    const SxsRuntimeModel *r = rts->pdata[i];
    g_string_append(s, i == 0 ? " (" : ", ");
    g_string_append(s, r->version ? r->version : "?");
    if (r->status != SXS_RUNTIME_PROFILING)
      g_string_append_printf(s, " %s", sxs__runtime_status_name(r->status));
  }
  if (rts->len)
    g_string_append_c(s, ')');
  fprintf(out, "sxsprof: pid %d (%s): %s -> %s%s%s\n", p->model->process ? p->model->process->pid : 0, command, s->str,
          p->path, p->note ? ", " : "", p->note ? p->note : "");
}

guint64 sxsprof_profile_activity(const SxsprofProfile *p) {
  const SxsProfileModel *m = p->model;
  guint64 n = m->samples.taken + m->stacks->len;
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    n += m->profiles[k].events;
  for (guint i = 0; i < m->runtimes->len; i++)
    n += ((const SxsRuntimeModel *)m->runtimes->pdata[i])->call_tree->len;
  return n;
}

/* Busiest first, then by pid. */
static int compare_activity(gconstpointer a, gconstpointer b) {
  const SxsprofProfile *x = *(const SxsprofProfile *const *)a, *y = *(const SxsprofProfile *const *)b;
  guint64 ax = sxsprof_profile_activity(x), ay = sxsprof_profile_activity(y);
  if (ax != ay)
    return ax > ay ? -1 : 1;
  int px = x->model->process ? x->model->process->pid : 0, py = y->model->process ? y->model->process->pid : 0;
  return px < py ? -1 : px > py;
}

void sxsprof_profiles_sort_busiest(GPtrArray *profiles) {
  g_ptr_array_sort(profiles, compare_activity);
}

/* The pid of p's parent process. */
static int profile_ppid(const SxsprofProfile *p) {
  return p->model->process ? p->model->process->ppid : 0;
}

const SxsprofProfile *sxsprof_profile_waited_for(const SxsprofProfile *p, const GPtrArray *profiles) {
  int pid = p->model->process ? p->model->process->pid : 0;
  guint64 own = sxsprof_profile_activity(p);
  const SxsprofProfile *busiest = NULL;
  for (guint i = 0; pid > 0 && i < profiles->len; i++) {
    const SxsprofProfile *q = profiles->pdata[i];
    /* A descendant: q's parent chain, through the run's own processes, reaches p. */
    gboolean below = FALSE;
    const SxsprofProfile *up = q;
    for (guint depth = 0; up && depth < profiles->len && !below; depth++) {
      int ppid = profile_ppid(up);
      below = ppid == pid;
      const SxsprofProfile *next = NULL;
      for (guint j = 0; j < profiles->len && !below; j++) {
        const SxsprofProfile *r = profiles->pdata[j];
        if (r->model->process && r->model->process->pid == ppid)
          next = r;
      }
      up = next;
    }
    guint64 theirs = sxsprof_profile_activity(q);
    if (below && theirs > 10 * own && (!busiest || theirs > sxsprof_profile_activity(busiest)))
      busiest = q;
  }
  return busiest;
}

gboolean sxsprof_make_output_folder(const char *output, gboolean is_folder, const char *outcome) {
  g_autofree char *folder = is_folder ? g_strdup(output) : g_path_get_dirname(output);
  if (g_mkdir_with_parents(folder, 0777) != 0) {
    int e = errno;
    fprintf(stderr, "sxsprof: cannot create the output folder %s: %s; %s\n", folder, g_strerror(e), outcome);
    return FALSE;
  }
  return TRUE;
}

void sxsprof_prepared_clear(SxsprofPrepared *p) {
  if (p->path)
    g_unlink(p->path);
  g_clear_pointer(&p->path, g_free);
  g_clear_pointer(&p->user, sxs__config_free);
  g_clear_pointer(&p->cfg, sxs__config_free);
  g_clear_pointer(&p->config_output, g_free);
}

/* An explicit output: its folder made, and checked to take the profile. */
static gboolean prepare_output(const SxsConfig *cfg, const char *outcome) {
  if (!sxsprof_make_output_folder(cfg->output, cfg->output_is_folder, outcome))
    return FALSE;
  g_autofree char *problem = NULL;
  if (sxs__config_check_output(cfg->output, cfg->output_is_folder, &problem) < 0) {
    fprintf(stderr, "sxsprof: %s; %s\n", problem, outcome);
    return FALSE;
  }
  return TRUE;
}

/* With a target: the output written into the config, "<path>" or "<folder>/". NULL after
 * printing why. */
static char *prepare_target_output(const SxsprofRunOptions *o, const SxsConfig *user, int target, const char *outcome) {
  g_autoptr(SxsConfig) chosen = NULL;
  const SxsConfig *out = user;
  if (!user || !sxs__config_output_explicit(user) || o->output) {
    chosen = sxs__config_new_default();
    g_autofree char *fallback = sxs__config_default_output(NULL, target);
    g_autoptr(GError) error = NULL;
    if (!sxs__config_set_output(chosen, o->output ? o->output : fallback, "--output", &error)) {
      fprintf(stderr, "sxsprof: %s\n", error->message);
      return NULL;
    }
    out = chosen;
  }
  if (!prepare_output(out, outcome))
    return NULL;
  return g_strconcat(out->output, out->output_is_folder ? "/" : "", NULL);
}

int sxsprof_prepare(SxsprofRunOptions *o, int target, const char *outcome, SxsprofPrepared *ret) {
  SxsprofPrepared p = {0};
  if (o->config) {
    g_autoptr(GError) error = NULL;
    p.user = sxs__config_load(o->config, &error);
    if (!p.user) {
      fprintf(stderr, "sxsprof: %s; %s\n", error->message, outcome);
      return 2;
    }
  }
  if (target > 0) {
    p.config_output = prepare_target_output(o, p.user, target, outcome);
    if (!p.config_output) {
      sxsprof_prepared_clear(&p);
      return 2;
    }
    o->config_output = p.config_output;
  }
  {
    g_autoptr(GError) error = NULL;
    p.path = sxsprof_write_run_config(o, &error);
    if (!p.path) {
      fprintf(stderr, "sxsprof: cannot prepare the config: %s; %s\n", error->message, outcome);
      sxsprof_prepared_clear(&p);
      return 2;
    }
  }
  {
    g_autoptr(GError) error = NULL;
    p.cfg = sxs__config_load(p.path, &error);
    if (!p.cfg) {
      /* The generated file's line numbers mean nothing to the user: the problem is an option's. */
      const char *msg = error->message;
      fprintf(stderr, "sxsprof: bad option: %s; %s\n",
              g_str_has_prefix(msg, p.path) && strstr(msg, ": ") ? strstr(msg, ": ") + 2 : msg, outcome);
      sxsprof_prepared_clear(&p);
      return 2;
    }
  }
  if (target == 0 && o->output) {
    g_autoptr(GError) error = NULL;
    if (!sxs__config_set_output(p.cfg, o->output, "--output", &error)) {
      fprintf(stderr, "sxsprof: %s\n", error->message);
      sxsprof_prepared_clear(&p);
      return 2;
    }
  }
  p.explicit_output = sxs__config_output_explicit(p.cfg);
  if (target == 0 && p.explicit_output && !prepare_output(p.cfg, outcome)) {
    sxsprof_prepared_clear(&p);
    return 2;
  }
  *ret = p;
  return 0;
}

static int compare_profiles(gconstpointer a, gconstpointer b) {
  const SxsprofProfile *x = *(const SxsprofProfile *const *)a, *y = *(const SxsprofProfile *const *)b;
  int px = x->model->process ? x->model->process->pid : 0, py = y->model->process ? y->model->process->pid : 0;
  if (px != py)
    return px < py ? -1 : 1;
  return strcmp(x->path, y->path);
}

void sxsprof_profiles_sort(GPtrArray *profiles) {
  g_ptr_array_sort(profiles, compare_profiles);
}

gboolean sxsprof_load_folder(const char *folder, guint64 max_size, GPtrArray *profiles, guint *ret_skipped) {
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open(folder, 0, &error);
  if (!dir) {
    fprintf(stderr, "sxsprof: cannot read folder %s: %s\n", folder, error->message);
    return FALSE;
  }
  guint skipped = 0;
  const char *name;
  while ((name = g_dir_read_name(dir))) {
    gboolean spool = g_str_has_suffix(name, SXS_SPOOL_SUFFIX);
    if ((!g_str_has_suffix(name, ".json") && !spool) || sxs__formats_is_view_file(name))
      continue;
    g_autofree char *path = g_build_filename(folder, name, NULL);
    /* A profile and a spool of one process: the newer one holds more. */
    g_autofree char *other = spool ? sxs__spool_profile_path(path) : sxs__spool_path(path);
    struct stat mine, theirs;
    if (stat(path, &mine) == 0 && stat(other, &theirs) == 0) {
      gint64 m = (gint64)mine.st_mtim.tv_sec * 1000000000 + mine.st_mtim.tv_nsec;
      gint64 t = (gint64)theirs.st_mtim.tv_sec * 1000000000 + theirs.st_mtim.tv_nsec;
      if (spool ? t >= m : t > m)
        continue;
    }
    g_autofree char *why = NULL;
    SxsprofProfile *p = sxsprof_profile_load(path, max_size, &why);
    if (p)
      g_ptr_array_add(profiles, p);
    else
      skipped++;
  }
  *ret_skipped = skipped;
  return TRUE;
}

/* "\r<text>" on a terminal's stderr, cleared by an empty text. */
static void progress(const SxsprofRender *r, const char *text) {
  if (!r->progress)
    return;
  fprintf(stderr, "\r\033[K%s", text);
  fflush(stderr);
}

/* The progress line of each format rendered; data: the SxsprofRender. */
static void render_progress(SxsFormat f, guint index, guint count, gpointer data) {
  g_autofree char *line = g_strdup_printf("sxsprof: rendering %s (%u/%u)...", sxs__format_name(f), index + 1, count);
  progress(data, line);
}

int sxsprof_render(const SxsProfileModel *model, const SxsprofRender *r) {
  progress(r, "sxsprof: building the view...");
  g_autoptr(SxsView) view = sxs__view_new(model, &r->filter);
  guint files = r->formats & SXS_FORMATS_ALL_FILES;
  if (files && r->base) {
    g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *skipped = NULL, *error = NULL;
    int n = sxs__formats_write(view, r->base, files, &r->render,
                               SXS_FORMATS_SYNC | (r->each ? 0 : SXS_FORMATS_ALL_OR_NOTHING), render_progress,
                               (gpointer)r, written, &skipped, &error);
    progress(r, "");
    if (n < 0 && !r->each) {
      fprintf(stderr, "sxsprof: %s; nothing was written\n", error);
      return 1;
    }
    /* Each file that could not be written, one line each; the others were. */
    g_auto(GStrv) failed = g_strsplit(n < 0 && error ? error : "", "\n", -1);
    for (char **l = failed; *l && **l; l++)
      fprintf(stderr, "sxsprof: %s\n", *l);
    g_auto(GStrv) lines = g_strsplit(skipped ? skipped : "", "\n", -1);
    for (char **l = lines; !r->quiet && *l && **l; l++)
      fprintf(stderr, "sxsprof: not written: %s\n", *l);
    for (guint i = 0; !r->quiet && i < written->len; i++)
      fprintf(stderr, "sxsprof: wrote %s\n", (const char *)written->pdata[i]);
  }
  progress(r, "");
  if (r->formats & SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY)) {
    gsize len = 0;
    g_autofree char *why = NULL;
    g_autofree char *text = sxs__formats_render(view, SXS_FORMAT_SUMMARY, &r->render, &len, &why);
    if (text)
      fwrite(text, 1, len, r->summary_out);
  }
  return 0;
}

SxsProfileModel *sxsprof_profiles_merge(GPtrArray *profiles) {
  if (profiles->len > 1) {
    /* Threads of different processes may share an OS thread id: name them with their pid. */
    for (guint i = 0; i < profiles->len; i++) {
      const SxsProfileModel *m = ((SxsprofProfile *)profiles->pdata[i])->model;
      int pid = m->process ? m->process->pid : 0;
      for (guint j = 0; j < m->samples.stacks->len; j++) {
        SxsStackModel *st = m->samples.stacks->pdata[j];
        char *named = st->thread_name ? g_strdup_printf("%s, pid %d", st->thread_name, pid)
                                      : g_strdup_printf("%u, pid %d", st->thread, pid);
        g_free(st->thread_name);
        st->thread_name = named;
      }
    }
  }
  SxsProfileModel *merged = ((SxsprofProfile *)profiles->pdata[0])->model;
  for (guint i = 1; i < profiles->len; i++)
    sxs__profile_model_merge(merged, ((SxsprofProfile *)profiles->pdata[i])->model);
  return merged;
}

gboolean sxsprof_load_path(const char *path, guint64 max_size, GPtrArray *profiles) {
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    guint before = profiles->len, skipped = 0;
    if (!sxsprof_load_folder(path, max_size, profiles, &skipped))
      return FALSE;
    if (profiles->len == before) {
      fprintf(stderr, "sxsprof: no sxsprof profile in folder %s\n", path);
      return FALSE;
    }
    if (skipped)
      fprintf(stderr, "sxsprof: %u .json file%s in %s %s not sxsprof profiles, skipped\n", skipped,
              skipped == 1 ? "" : "s", path, skipped == 1 ? "is" : "are");
  } else {
    g_autofree char *why = NULL;
    SxsprofProfile *p = sxsprof_profile_load(path, max_size, &why);
    if (!p) {
      fprintf(stderr, "sxsprof: %s\n", why);
      return FALSE;
    }
    g_ptr_array_add(profiles, p);
  }
  sxsprof_profiles_sort(profiles);
  return TRUE;
}

#define DIFF_FORMATS                                                                                                   \
  (SXS_FORMAT_BIT(SXS_FORMAT_FOLDED) | SXS_FORMAT_BIT(SXS_FORMAT_SVG) | SXS_FORMAT_BIT(SXS_FORMAT_PPROF) |             \
   SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY))

gboolean sxsprof_diff_formats(const char *list, gboolean has_output, guint *ret_formats) {
  guint formats = SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY) | (has_output ? DIFF_FORMATS : 0);
  if (list) {
    g_autofree char *problem = NULL;
    if (!sxs__config_parse_formats(list, TRUE, &formats, &problem)) {
      fprintf(stderr, "sxsprof: --format: %s\n", problem);
      return FALSE;
    }
    if (g_str_equal(list, "all"))
      formats &= DIFF_FORMATS;
    if (formats & ~DIFF_FORMATS) {
      fprintf(stderr, "sxsprof: --format: a comparison renders folded, svg, pprof and summary only\n");
      return FALSE;
    }
  }
  if ((formats & ~SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY)) && !has_output) {
    fprintf(stderr, "sxsprof: --format with files needs -o PREFIX for a comparison\n");
    return FALSE;
  }
  *ret_formats = formats;
  return TRUE;
}

/* Runtime ids both models profiled, ascending. */
static GArray *common_runtimes(const SxsProfileModel *a, const SxsProfileModel *b) {
  GArray *ids = g_array_new(FALSE, FALSE, sizeof(int));
  for (guint i = 0; i < a->runtimes->len; i++) {
    const SxsRuntimeModel *x = a->runtimes->pdata[i];
    for (guint j = 0; x->status == SXS_RUNTIME_PROFILING && j < b->runtimes->len; j++) {
      const SxsRuntimeModel *y = b->runtimes->pdata[j];
      if (y->id == x->id && y->status == SXS_RUNTIME_PROFILING) {
        g_array_append_val(ids, x->id);
        break;
      }
    }
  }
  return ids;
}

/* One file of a diff, rendered before any is written. */
typedef struct {
  char *path;
  char *bytes;
  gsize len;
} DiffFile;

static void diff_file_clear(gpointer p) {
  DiffFile *f = p;
  g_free(f->path);
  g_free(f->bytes);
}

int sxsprof_render_diff(const SxsprofDiffRender *r) {
  g_autoptr(SxsView) base = sxs__view_new(r->model[0], &r->filter[0]);
  g_autoptr(SxsView) fresh = sxs__view_new(r->model[1], &r->filter[1]);
  g_autoptr(SxsDiff) diff = sxs__diff_new(base, fresh, r->kind, &r->options);
  if (diff->kind >= SXS_VIEW_N_KINDS || (diff->total[0] == 0 && diff->total[1] == 0)) {
    fprintf(stderr, "sxsprof: neither side holds %s stacks to compare\n",
            r->kind < SXS_VIEW_N_KINDS ? sxs__view_kind_name(r->kind) : "samples, calls or event");
    return 1;
  }
  for (int side = 0; side < 2; side++)
    if (diff->total[side] == 0)
      fprintf(stderr, "sxsprof: %s holds no %s stacks: everything is %s\n", r->name[side],
              sxs__view_kind_name(diff->kind), side ? "gone" : "new");
  g_autoptr(GArray) files = g_array_new(FALSE, TRUE, sizeof(DiffFile));
  g_array_set_clear_func(files, diff_file_clear);
  SxsDiffRenderOptions o = {.name = {r->name[0], r->name[1]}, .top = r->top, .color = r->color};
  g_autofree char *note = NULL;
  if (r->base && (r->formats & SXS_FORMAT_BIT(SXS_FORMAT_FOLDED))) {
    DiffFile f = {.path = g_strconcat(r->base, ".folded", NULL)};
    g_autofree char *why = NULL;
    f.bytes = sxs__diff_write_folded(diff, &f.len, &why);
    g_array_append_val(files, f);
  }
  if (r->base && (r->formats & SXS_FORMAT_BIT(SXS_FORMAT_SVG))) {
    for (int negated = 0; negated < 2; negated++) {
      DiffFile f = {.path = g_strconcat(r->base, negated ? ".negated.svg" : ".svg", NULL)};
      SxsDiffRenderOptions so = o;
      so.negated = negated;
      g_autofree char *why = NULL;
      f.bytes = sxs__diff_write_svg(diff, &so, &f.len, &why);
      g_array_append_val(files, f);
    }
  }
  if (r->base && (r->formats & SXS_FORMAT_BIT(SXS_FORMAT_PPROF))) {
    static const char *const suffix[2] = {".base.pb.gz", ".new.pb.gz"};
    const SxsView *views[2] = {base, fresh};
    SxsRenderOptions po = {.kind = diff->kind, .untagged = r->untagged};
    for (int side = 0; side < 2; side++) {
      DiffFile f = {.path = g_strconcat(r->base, suffix[side], NULL)};
      g_autofree char *why = NULL;
      f.bytes = sxs__write_pprof(views[side], &po, &f.len, &why);
      g_array_append_val(files, f);
    }
    note = g_strdup_printf("pprof: go tool pprof -diff_base %s%s %s%s", r->base, suffix[0], r->base, suffix[1]);
    o.note = note;
  }
  for (guint i = 0; i < files->len; i++) {
    const DiffFile *f = &g_array_index(files, DiffFile, i);
    if (!f->bytes) {
      fprintf(stderr, "sxsprof: cannot render %s; nothing was written\n", f->path);
      return 1;
    }
  }
  for (guint i = 0; i < files->len; i++) {
    const DiffFile *f = &g_array_index(files, DiffFile, i);
    g_autoptr(GError) error = NULL;
    if (!g_file_set_contents(f->path, f->bytes, (gssize)f->len, &error)) {
      fprintf(stderr, "sxsprof: cannot write %s: %s\n", f->path, error->message);
      return 1;
    }
    fprintf(stderr, "sxsprof: wrote %s\n", f->path);
  }
  if (!(r->formats & SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY)))
    return 0;
  gsize len = 0;
  g_autofree char *text = sxs__diff_write_summary(diff, &o, &len, NULL);
  if (text)
    fwrite(text, 1, len, stdout);
  if (!r->per_runtime || r->filter[0].runtime_id > 0 || r->filter[1].runtime_id > 0)
    return 0;
  g_autoptr(GArray) ids = common_runtimes(r->model[0], r->model[1]);
  for (guint i = 0; ids->len > 1 && i < ids->len; i++) {
    int id = g_array_index(ids, int, i);
    g_autoptr(SxsDiff) d = sxs__diff_restrict(diff, id);
    g_autofree char *tag_b = g_strdup(sxs__view_runtime_tag(base, id)),
                    *tag_n = g_strdup(sxs__view_runtime_tag(fresh, id));
    g_autofree char *name_b = g_strdup_printf("%s %s", r->name[0], tag_b);
    g_autofree char *name_n = g_strdup_printf("%s %s", r->name[1], tag_n);
    SxsDiffRenderOptions ro = {.name = {name_b, name_n}, .top = r->top, .color = r->color};
    gsize rlen = 0;
    g_autofree char *rt = sxs__diff_write_summary(d, &ro, &rlen, NULL);
    fprintf(stdout, "runtime %d:\n", id);
    if (rt)
      fwrite(rt, 1, rlen, stdout);
  }
  return 0;
}

gboolean sxsprof_parse_view(const char *view, SxsViewKind *ret_kind) {
  if (sxs__view_kind_parse(view, ret_kind))
    return TRUE;
  fprintf(stderr, "sxsprof: --view takes samples, calls, events, exceptions, contention or allocations, not \"%s\"\n",
          view);
  return FALSE;
}

gboolean sxsprof_diff_setup(const char *format, const char *output, const char *view, guint *ret_formats,
                            SxsViewKind *ret_kind, char **ret_base) {
  if (!sxsprof_diff_formats(format, output != NULL, ret_formats))
    return FALSE;
  if (view && !sxsprof_parse_view(view, ret_kind))
    return FALSE;
  if (!output)
    return TRUE;
  g_autofree char *base = sxs__formats_base(output);
  if (!sxsprof_make_output_folder(base, FALSE, "nothing was written"))
    return FALSE;
  *ret_base = g_steal_pointer(&base);
  return TRUE;
}

GPtrArray *sxsprof_output_files(const char *output, gboolean is_folder, const char *suffix) {
  GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *folder = is_folder ? g_strdup(output) : g_path_get_dirname(output);
  g_autofree char *base = is_folder ? NULL : g_path_get_basename(output);
  g_autoptr(GDir) dir = g_dir_open(folder, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name(dir))) {
    if (!g_str_has_suffix(name, suffix) || sxs__formats_is_view_file(name))
      continue;
    if (!is_folder) {
      size_t bl = strlen(base);
      if (strncmp(name, base, bl) != 0 || name[bl] != '.')
        continue;
      const char *rest = name + bl;
      size_t digits = rest[0] == '.' ? strspn(rest + 1, "0123456789") : 0;
      if (!g_str_equal(rest, suffix) && !(digits > 0 && g_str_equal(rest + 1 + digits, suffix)))
        continue;
    }
    g_ptr_array_add(found, g_build_filename(folder, name, NULL));
  }
  return found;
}

gboolean sxsprof_parse_moment(const char *option, const char *value, SxsprofMoment *ret) {
  char *end = NULL;
  double v = value && *value ? g_ascii_strtod(value, &end) : -1;
  double scale = 1;
  gboolean percent = FALSE;
  if (end && g_str_equal(end, "%"))
    percent = TRUE;
  else if (end && g_str_equal(end, "ms"))
    scale = 1e-3;
  else if (end && (g_str_equal(end, "s") || *end == '\0'))
    scale = 1;
  else
    v = -1;
  if (!(v >= 0) || (percent && v > 100) || v * scale > 1e9) {
    fprintf(stderr,
            "sxsprof: %s needs a time of the run: seconds since the program started (2.5, 2.5s, 2500ms) or a "
            "share of it (25%%), not \"%s\"\n",
            option, value ? value : "");
    return FALSE;
  }
  *ret = (SxsprofMoment){.given = TRUE, .percent = percent, .value = v * scale};
  return TRUE;
}

/* A moment in microseconds since the process started; a share is of what the timeline holds, from
 * its first record to its last (an attached process's run before the attach is not in it). */
static guint64 moment_us(const SxsprofMoment *m, guint64 first_us, guint64 end_us) {
  if (!m->percent)
    return (guint64)llround(m->value * 1e6);
  return first_us + (guint64)llround((double)(end_us - first_us) * m->value / 100.0);
}

/* The first time a timeline records (a sample's or an event's), 0 when none. */
static guint64 timeline_first_us(const SxsTimelineModel *t) {
  guint64 first = G_MAXUINT64;
  if (t->samples->len)
    first = sxs__vec_index(t->samples, SxsTimelineSample, 0).t_us;
  if (t->events->len)
    first = MIN(first, sxs__vec_index(t->events, SxsTimelineEvent, 0).start_us);
  if (t->seconds->len)
    first = MIN(first, sxs__vec_index(t->seconds, SxsTimelineSecond, 0).second * 1000000);
  return first == G_MAXUINT64 ? 0 : first;
}

gboolean sxsprof_label_profiles(GPtrArray *profiles, const char *label) {
  const char *eq = strchr(label, '=');
  if (!eq || (gsize)(eq - label) != strlen("endpoint") || strncmp(label, "endpoint", strlen("endpoint")) != 0 ||
      !eq[1]) {
    fprintf(stderr, "sxsprof: --label takes endpoint=VALUE (e.g. --label 'endpoint=GET /orders/{id}'), not \"%s\"\n",
            label);
    return FALSE;
  }
  for (guint i = 0; i < profiles->len; i++) {
    SxsprofProfile *p = profiles->pdata[i];
    g_autofree char *why = NULL;
    if (!sxs__timeline_slice_label(p->model, eq + 1, &why)) {
      fprintf(stderr, "sxsprof: %s: cannot cut to --label %s: %s\n", p->path, label, why);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean sxsprof_slice_profiles(GPtrArray *profiles, const SxsprofMoment *from, const SxsprofMoment *to) {
  for (guint i = 0; i < profiles->len; i++) {
    SxsprofProfile *p = profiles->pdata[i];
    guint64 end = p->model->timeline.end_us, first = MIN(timeline_first_us(&p->model->timeline), end);
    if (p->model->timeline.present && end == 0) {
      fprintf(stderr, "sxsprof: %s: cannot cut to --from/--to: its timeline holds nothing\n", p->path);
      return FALSE;
    }
    guint64 a = from->given ? moment_us(from, first, end) : 0;
    /* The end of the run (100 %, or past the last record) includes the last record. */
    guint64 b = to->given ? moment_us(to, first, end) : G_MAXUINT64;
    if (b >= end)
      b = G_MAXUINT64;
    g_autofree char *why = NULL;
    if (!sxs__timeline_slice(p->model, a, b, &why)) {
      fprintf(stderr, "sxsprof: %s: cannot cut to --from/--to: %s\n", p->path, why);
      return FALSE;
    }
  }
  return TRUE;
}
