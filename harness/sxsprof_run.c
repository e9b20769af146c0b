/* sxsprof run: runs a .NET command with the profiler loaded.
 *
 *   sxsprof run [options] [--] COMMAND [ARGS...]
 *
 * `run` behaves like the program it runs: the program keeps the launcher's stdin, stdout, stderr,
 * working folder and process group; SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the launcher are
 * passed on; the launcher exits with the program's status (128 + N when signal N killed it).
 * The profiled processes write their profile data only. After the program ends the launcher
 * rebuilds the profile of every process that died without writing it (a signal, SIGKILL) from its
 * spool, renders the views of every profile of the run, relays the profiler's log lines, lists
 * every process of the run and what became of it, and prints the summary, all on stderr, so that
 * the program's stdout stays exactly its own. It does not profile anything itself. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sxs_config.h"
#include "sxs_formats.h"
#include "sxs_json.h"
#include "sxs_modules.h"
#include "sxs_process.h"
#include "sxs_spool.h"
#include "sxs_status.h"
#include "sxsprof.h"

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

/* "SIGTERM" for 15. */
static const char *signal_name(int sig, char *buf, gsize size) {
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev)
    g_snprintf(buf, size, "SIG%s", abbrev);
  else
    g_snprintf(buf, size, "signal %d", sig);
  return buf;
}

/* What became of a process that left a spool and no profile: from the program's status when it is
 * the program itself, else from what the spool says. */
static char *spool_note(const SxsSpoolRead *spool, pid_t child, int status) {
  char buf[32];
  int pid = spool->model->process ? spool->model->process->pid : 0;
  if (pid == child && WIFSIGNALED(status))
    return WTERMSIG(status) == SIGKILL ? g_strdup("rebuilt from its spool: it was killed by SIGKILL")
                                       : g_strdup_printf("rebuilt from its spool: it died from %s",
                                                         signal_name(WTERMSIG(status), buf, sizeof buf));
  if (spool->signal)
    return g_strdup_printf("rebuilt from its spool: it died from %s", signal_name(spool->signal, buf, sizeof buf));
  if (pid == child)
    return g_strdup_printf("rebuilt from its spool: it exited with status %d before writing it",
                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return g_strdup("rebuilt from its spool: it was killed without warning (SIGKILL, or the OOM killer)");
}

/* The spools of this run (processes that died before writing their profile): each one's profile
 * is written beside it and the spool removed. Returns profile path -> what became of its process. */
static GHashTable *rebuild_run_spools(const char *output, gboolean is_folder, const char *run_id, pid_t child,
                                      int status) {
  GHashTable *notes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) spools = sxsprof_output_files(output, is_folder, SXS_SPOOL_SUFFIX);
  for (guint i = 0; i < spools->len; i++) {
    const char *path = spools->pdata[i];
    g_autoptr(GError) error = NULL;
    g_autoptr(SxsSpoolRead) spool = sxs__spool_load(path, &error);
    if (!spool || !spool->model->process || g_strcmp0(spool->model->process->run_id, run_id) != 0)
      continue;
    g_autofree char *profile = sxs__spool_profile_path(path);
    gsize len = 0;
    g_autofree char *text = sxs__profile_render_json(spool->model, &len);
    int r = sxs__file_write_atomic(profile, text, len, SXS_FILE_SYNC);
    if (r < 0) {
      fprintf(stderr, "sxsprof: cannot write the profile rebuilt from %s to %s: %s\n", path, profile, g_strerror(-r));
      continue;
    }
    g_unlink(path);
    g_hash_table_insert(notes, g_steal_pointer(&profile), spool_note(spool, child, status));
  }
  return notes;
}

/* Every profile of this run: the files the output names that record run_id. */
static GPtrArray *find_run_profiles(const char *output, gboolean is_folder, const char *run_id) {
  GPtrArray *found = g_ptr_array_new_with_free_func(sxsprof_profile_free);
  g_autoptr(GPtrArray) files = sxsprof_output_files(output, is_folder, ".json");
  for (guint i = 0; i < files->len; i++) {
    const char *path = files->pdata[i];
    g_autofree char *why = NULL;
    SxsprofProfile *p = sxsprof_profile_load(path, 0, &why);
    if (!p)
      continue;
    if (!p->model->process || g_strcmp0(p->model->process->run_id, run_id) != 0) {
      sxsprof_profile_free(p);
      continue;
    }
    g_ptr_array_add(found, p);
  }
  sxsprof_profiles_sort(found);
  return found;
}

/* The views of every profile of the run, rendered here rather than in the profiled processes. */
static void render_run_views(GPtrArray *profiles, guint formats) {
  guint files = formats & SXS_FORMATS_ALL_FILES & ~SXS_FORMAT_BIT(SXS_FORMAT_JSON);
  if (!files)
    return;
  for (guint i = 0; i < profiles->len; i++) {
    const SxsprofProfile *p = profiles->pdata[i];
    g_autofree char *base = sxs__formats_base(p->path);
    SxsprofRender r = {.formats = files,
                       .base = base,
                       .render = {.top = 10, .kind = SXS_VIEW_N_KINDS},
                       .summary_out = stderr,
                       .progress = isatty(STDERR_FILENO),
                       .quiet = TRUE,
                       .each = TRUE};
    sxsprof_render(p->model, &r);
  }
}

/* Parses run's options; returns the index of the command, or -1 after printing why. */
static int parse_run_options(int argc, char **argv, SxsprofRunOptions *o) {
  int i = 0;
  o->formats = SXS_FORMATS_DEFAULT_FILES | SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY);
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
    if (g_str_equal(a, "--wall")) {
      o->wall = TRUE;
      continue;
    }
    if (g_str_equal(a, "--inventory")) {
      o->inventory = TRUE;
      continue;
    }
    if (g_str_equal(a, "--endpoints")) {
      o->endpoints = TRUE;
      continue;
    }
    if (g_str_equal(a, "--trace")) {
      o->trace = TRUE;
      continue;
    }
    if (g_str_equal(a, "--exceptions") || g_str_equal(a, "--lock") || g_str_equal(a, "--alloc")) {
      o->profiles[g_str_equal(a, "--lock")    ? SXS_PROFILE_CONTENTION
                  : g_str_equal(a, "--alloc") ? SXS_PROFILE_ALLOCATIONS
                                              : SXS_PROFILE_EXCEPTIONS] = TRUE;
      continue;
    }
    if (g_str_equal(a, "--sample") || g_str_has_prefix(a, "--sample=")) {
      o->sample = a[8] == '=' ? a + 9 : "";
      /* "--sample 200 dotnet app.dll" would run a program called 200. */
      if (a[8] == '\0' && i + 1 < argc && argv[i + 1][0] && strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1])) {
        fprintf(stderr, "sxsprof: a sampling frequency goes with '=': --sample=%s; the program was not started\n",
                argv[i + 1]);
        return -1;
      }
      continue;
    }
    /* --name VALUE or --name=VALUE */
    g_autofree char *name = g_strndup(a, strcspn(a, "="));
    const char *inline_value = a[strlen(name)] == '=' ? a + strlen(name) + 1 : NULL;
    const char **slot = g_str_equal(name, "--config") || g_str_equal(name, "-c")   ? &o->config
                        : g_str_equal(name, "--output") || g_str_equal(name, "-o") ? &o->output
                        : g_str_equal(name, "--mode")                              ? &o->mode
                        : g_str_equal(name, "--runtime")                           ? &o->runtime
                        : g_str_equal(name, "--flush")                             ? &o->flush
                        : g_str_equal(name, "--format")                            ? &o->format
                        : g_str_equal(name, "--include")                           ? &o->include
                        : g_str_equal(name, "--exclude")                           ? &o->exclude
                        : g_str_equal(name, "--stacks-on")                         ? &o->stacks_on
                        : g_str_equal(name, "--symbols")                           ? &o->symbols
                        : g_str_equal(name, "--debug-dir")                         ? &o->debug_dir
                        : g_str_equal(name, "--engine")                            ? &o->engine
                        : g_str_equal(name, "--event")                             ? &o->event
                        : g_str_equal(name, "--timeline")                          ? &o->timeline
                                                                                   : NULL;
    if (!slot) {
      fprintf(stderr, "sxsprof: unknown option \"%s\"\n%s", a, sxsprof_usage);
      return -1;
    }
    if (sxsprof_take_value(argc, argv, &i, inline_value, slot) < 0)
      return -1;
  }
  if (i >= argc) {
    fprintf(stderr, "sxsprof: run needs a command, e.g. sxsprof run -- dotnet app.dll\n");
    return -1;
  }
  if (o->format) {
    g_autofree char *problem = NULL;
    if (!sxs__config_parse_formats(o->format, TRUE, &o->formats, &problem)) {
      fprintf(stderr, "sxsprof: --format: %s; the program was not started\n", problem);
      return -1;
    }
  }
  return i;
}

/* After the run: each profile, the views beside the program's own, its summary, and where its
 * flame graph is. */
static void run_report(GPtrArray *profiles, const SxsprofRunOptions *opt, const SxsConfig *cfg, pid_t child,
                       const char *command, time_t started) {
  gboolean child_listed = FALSE;
  for (guint i = 0; i < profiles->len; i++) {
    const SxsprofProfile *p = profiles->pdata[i];
    child_listed |= p->model->process && p->model->process->pid == child;
  }
  guint n = profiles->len + !child_listed;
  /* Busiest first: the process that did the work is the one summarised, not a starter that only
   * started it and waited (pwsh, `dotnet test`'s host, a shell script's dotnet). */
  g_autoptr(GPtrArray) busiest = g_ptr_array_new();
  for (guint i = 0; i < profiles->len; i++)
    g_ptr_array_add(busiest, profiles->pdata[i]);
  sxsprof_profiles_sort_busiest(busiest);
  fprintf(stderr, "sxsprof: %u process%s of the run%s:\n", n, n == 1 ? "" : "es", n > 1 ? ", busiest first" : "");
  for (guint i = 0; i < busiest->len; i++) {
    const SxsprofProfile *p = busiest->pdata[i];
    sxsprof_profile_list_line(p, stderr);
    const SxsprofProfile *worker = sxsprof_profile_waited_for(p, busiest);
    if (worker)
      fprintf(stderr,
              "sxsprof:   pid %d only started pid %d and waited for it (%" G_GUINT64_FORMAT
              " samples and events of its own)\n",
              p->model->process->pid, worker->model->process->pid, sxsprof_profile_activity(p));
  }
  if (!child_listed)
    fprintf(stderr, "sxsprof: pid %d (%s): no .NET runtime loaded the profiler, so it wrote no profile\n", (int)child,
            command);
  /* The busiest process; when none has any work, the program itself (the process the launcher
   * started), else the first. */
  const SxsprofProfile *main_profile = busiest->pdata[0];
  if (sxsprof_profile_activity(main_profile) == 0) {
    for (guint i = 0; i < profiles->len; i++) {
      const SxsprofProfile *p = profiles->pdata[i];
      if (p->model->process && p->model->process->pid == child)
        main_profile = p;
    }
  }
  sxsprof_print_views(main_profile, opt->formats, started);
  if (profiles->len > 1) {
    /* How to see them all together: the folder, the files themselves, or a pattern. */
    g_autoptr(GString) how = g_string_new(NULL);
    if (cfg->output_is_folder) {
      g_string_append(how, cfg->output);
    } else if (profiles->len <= 4) {
      for (guint i = 0; i < profiles->len; i++)
        g_string_append_printf(how, "%s%s", i ? " " : "", ((const SxsprofProfile *)profiles->pdata[i])->path);
    } else {
      g_string_append_printf(how, "%s.json %s.[0-9]*.json", cfg->output, cfg->output);
    }
    fprintf(stderr, "sxsprof: all %u together: sxsprof report %s\n", profiles->len, how->str);
  }
  sxsprof_print_flame_graph(main_profile, opt->formats, started);
}

/* Is the program (a path, or a name looked up in PATH) a NativeAOT executable? It exports the
 * NativeAOT runtime's DotNetRuntimeDebugHeader and no CoreCLR's MetaDataGetDispenser. */
static gboolean is_native_aot(const char *program) {
  g_autofree char *path = strchr(program, '/') ? g_strdup(program) : g_find_program_in_path(program);
  return path && sxs__modules_exports(path, "DotNetRuntimeDebugHeader") &&
         !sxs__modules_exports(path, "MetaDataGetDispenser");
}

int sxsprof_run_main(int argc, char **argv) {
  SxsprofRunOptions opt = {0};
  int cmd = parse_run_options(argc, argv, &opt);
  if (cmd < 0)
    return 2;
  g_autofree char *library = sxsprof_find_library();
  if (!library) {
    fprintf(stderr, "sxsprof: cannot find libsxsprof.so next to this program; set SXSPROF_LIBRARY\n");
    return 2;
  }
  /* The program writes its profile; the launcher renders the views after it ended. */
  opt.json_in_process = TRUE;
  g_auto(SxsprofPrepared) prepared = {0};
  if (sxsprof_prepare(&opt, 0, "the program was not started", &prepared) != 0)
    return 2;
  guint user_formats = prepared.user ? prepared.user->formats : SXS_FORMATS_DEFAULT_FILES;
  const char *config_path = prepared.path;
  SxsConfig *cfg = prepared.cfg;
  gboolean explicit_output = prepared.explicit_output;
  /* The user's config chose the output: the profiler reads it there, and no variable is set. */
  gboolean config_output = prepared.user && sxs__config_output_explicit(prepared.user);
  /* The views of this run are the files written since now (second resolution: a second back). */
  time_t started = time(NULL) - 1;
  /* Without --format, the files are what the config's formats= says (all but the trace when it says
   * nothing). */
  if (!opt.format)
    opt.formats = user_formats | SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY);
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
  gint64 log_offset = sxsprof_file_size(log_path);

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
    g_autofree char *default_output = sxs__config_default_output(cwd, (int)getpid());
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
    g_autofree char *launcher = g_strdup_printf("%d", (int)getppid());
    g_setenv(SXS_LAUNCHER_ENV, launcher, TRUE);
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
    cfg->output = sxs__config_default_output(cwd, (int)child);
  }
  if (cfg->log_kind == SXS_LOG_DEFAULT && !log_path) {
    g_autofree char *unused = NULL;
    sxs__process_output_paths(cfg->output, cfg->output_is_folder, TRUE, (int)child, "x", &unused, &log_path);
    log_offset = 0;
  }
  sigprocmask(SIG_SETMASK, &old_mask, NULL);

  /* On a terminal, a status line while the program runs: the wait wakes every 100 ms to see
   * whether the program ended, and redraws the line every second. */
  g_autoptr(SxsStatus) line =
      sxs_status_wanted(opt.quiet) ? sxs_status_new(cfg->output, cfg->output_is_folder, started) : NULL;
  int status = 0;
  for (gint64 next = g_get_monotonic_time() + G_USEC_PER_SEC;;) {
    pid_t r = waitpid(child, &status, line ? WNOHANG : 0);
    if (r == child || (r < 0 && errno != EINTR))
      break;
    if (r == 0) {
      g_usleep(100 * 1000);
      if (g_get_monotonic_time() >= next) {
        if (sxs_status_terminal_free((int)child))
          sxs_status_progress(line, "running");
        else
          sxs_status_clear(line);
        next += G_USEC_PER_SEC;
      }
    }
  }
  child_pid = 0;
  sxs_status_clear(line);
  g_unlink(prepared.path);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !g_file_test(log_path ? log_path : "", G_FILE_TEST_EXISTS))
    return 127;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  /* What the processes could not write themselves, then the views of every profile. */
  g_autoptr(GHashTable) notes = rebuild_run_spools(cfg->output, cfg->output_is_folder, run_id, child, status);
  g_autoptr(GPtrArray) profiles = find_run_profiles(cfg->output, cfg->output_is_folder, run_id);
  for (guint i = 0; i < profiles->len; i++) {
    SxsprofProfile *p = profiles->pdata[i];
    p->note = g_strdup(g_hash_table_lookup(notes, p->path));
  }
  if (profiles->len > 0)
    sxs_status_show(line, "sxsprof: writing the views of %u process%s...", profiles->len,
                    profiles->len == 1 ? "" : "es");
  render_run_views(profiles, opt.formats);
  sxs_status_clear(line);
  if (opt.quiet)
    return code;

  gboolean relayed = cfg->log_kind != SXS_LOG_STDERR && sxsprof_relay_log(log_path, log_offset);
  g_autofree char *command = sxs__process_command_line(argv + cmd, 60);
  if (profiles->len == 0) {
    g_autofree char *folder = cfg->output_is_folder ? g_strdup(cfg->output) : g_path_get_dirname(cfg->output);
    struct statvfs fs;
    if (is_native_aot(argv[cmd]))
      fprintf(stderr,
              "sxsprof: %s is a NativeAOT program: compiled ahead of time, it has no CoreCLR and so no CoreCLR "
              "profiling API to load the profiler; no profile was written\n",
              argv[cmd]);
    else if (relayed)
      fprintf(stderr, "sxsprof: no profile was written (the profiler's lines above say why)\n");
    else if (statvfs(folder, &fs) == 0 && fs.f_bavail == 0)
      fprintf(stderr, "sxsprof: no profile was written: the output folder %s is full (no space left on its device)\n",
              folder);
    else
      fprintf(stderr, "sxsprof: no .NET runtime loaded the profiler in %s, so no profile was written\n", command);
    return code;
  }
  run_report(profiles, &opt, cfg, child, command, started);
  return code;
}
