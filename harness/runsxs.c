/* runsxs: runs several CoreCLR runtimes, of the same or different versions, in one process.
 *
 *   main thread                 runtime thread 1            runtime thread 2   (--st: one thread
 *   parse, resolve, copy        signals_thread_start        ...                 runs 1, 2, ...
 *   start threads ───────────►  barrier ◄────────────────── barrier             in turn)
 *   wait (timeout) ◄─────────   init, register bridge,      init, ...
 *                               execute Main ──► finished
 *   all finished: ask each  ──► coreclr_shutdown_2
 *   to shut down, last first
 *   print one line per runtime, exit with the first non-zero app exit code
 *
 * coreclr_initialize and coreclr_execute_assembly run on the same thread (CoreCLR 2.0 crashes
 * otherwise); runtimes are shut down only once every app has finished, so cross-runtime calls
 * through libsxsbridge.so keep working until the end. The signal-chain repairs live in
 * runsxs_signals.c, the per-runtime diagnostics sockets (--diagnostics) in runsxs_diag.c; this
 * file only calls them at the documented points. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "runsxs_diag.h"
#include "runsxs_framework.h"
#include "runsxs_host.h"
#include "sxs_bridge.h"

#include "runsxs_signals.h"

/* Exit statuses of runsxs itself (apps' own codes pass through). */
enum {
  RUNSXS_EXIT_USAGE = 2,         /* bad command line or input; nothing was started */
  RUNSXS_EXIT_TIMEOUT = 124,     /* --timeout expired */
  RUNSXS_EXIT_INIT_FAILED = 125, /* a runtime failed to load or initialize */
  RUNSXS_EXIT_EXEC_FAILED = 126, /* coreclr_execute_assembly returned an error HRESULT */
};

#define RUNSXS_DEFAULT_TIMEOUT 120

typedef enum {
  SLOT_PENDING,  /* not started yet */
  SLOT_STARTING, /* in coreclr_initialize */
  SLOT_RUNNING,  /* in the app's Main */
  SLOT_FINISHED, /* Main returned, or the runtime failed; exit_code is valid */
} SlotPhase;

/* One runtime and its progress. phase, exit_code, started, shutdown_* are guarded by
 * run.lock; rt is touched only by the thread running it after start. */
typedef struct {
  RunsxsRuntime *rt;
  pthread_t thread;
  SlotPhase phase;
  int exit_code;
  gboolean started;            /* coreclr_initialize succeeded */
  gboolean shutdown_requested; /* main asks the runtime's thread to shut it down */
  gboolean shutdown_done;
  gboolean shares_lib; /* loads the same libcoreclr.so as another slot (RUNSXS_NO_COPY) */
  int lib_group;       /* index in run.slots of the first slot loading the same library */
  char *abort_line;    /* "runsxs: [i] VERSION DIR exit=" for the SIGABRT report */
} RunsxsSlot;

/* Process-wide state of the harness (a program, not a library). Owner: main(); `lock` guards
 * the slots' progress fields, `changed` is broadcast on every change. */
static struct {
  RunsxsSlot *slots;
  int count;
  gboolean single_thread;
  char *bridge_dir;
  pthread_mutex_t lock;
  pthread_cond_t changed; /* CLOCK_MONOTONIC */
  pthread_barrier_t start_barrier;
  atomic_int summary_printed; /* set once by whoever prints the summary */
} run = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The slot whose runtime the current thread is running; lets the exit handler tell which app
 * called exit(). */
static __thread RunsxsSlot *current_slot;

static void usage(FILE *to) {
  fprintf(to,
          "Usage: runsxs [--st] [--timeout SEC] [--no-signal-fixes] [--diagnostics] RUNTIME APP \"ARGS\" "
          "[RUNTIME APP \"ARGS\" ...]\n"
          "\n"
          "Runs several .NET runtimes in one process, each running one app.\n"
          "\n"
          "  RUNTIME  a version or version prefix (10.0, 10.0.12, 8, 2.0.0; the newest installed\n"
          "           match wins) or the path of a .../shared/Microsoft.NETCore.App/<version> folder\n"
          "  APP      a managed assembly (.dll)\n"
          "  ARGS     the app's arguments as one string, split like a shell would (\"\" = none)\n"
          "\n"
          "  --st, /st           start the runtimes one after another on one thread\n"
          "                      (default: all at once, each on its own thread)\n"
          "  --timeout SEC       give up after SEC seconds, exit 124 (default %d, 0 = never)\n"
          "  --no-signal-fixes   do not repair the runtimes' signal chains\n"
          "  --diagnostics       give runtime N (3.0 or later) its own diagnostics IPC socket,\n"
          "                      ${TMPDIR:-/tmp}/sxsprof-runsxs-<pid>-rt<N>.sock, instead of the\n"
          "                      shared dotnet-diagnostic-<pid>-<key>-socket\n"
          "  -h, --help          this text\n"
          "\n"
          "Prints \"runsxs: [INDEX] VERSION FRAMEWORK-FOLDER exit=CODE\" per runtime at the end and\n"
          "exits with the first non-zero app exit code (0 if all apps returned 0); 2 = bad input,\n"
          "124 = timeout, 125 = a runtime failed to start, 126 = a runtime could not run its app.\n"
          "An app calling Environment.Exit(n) ends the whole process with n; an exception escaping\n"
          "Main aborts it (134). runsxs still prints the lines, with exit=none for unfinished ones.\n"
          "A framework used twice runs from a private copy under ~/.cache/sxsprof/frameworks\n"
          "(RUNSXS_NO_COPY=1 disables copying). Installed frameworks are searched under the\n"
          "dotnet on PATH, $DOTNET_ROOT, /usr/share/dotnet and $SXS_RUNTIMES_DIR.\n",
          RUNSXS_DEFAULT_TIMEOUT);
}

/* --- reporting ---------------------------------------------------------------------------- */

/* Prints the per-runtime lines. `exiting` (may be NULL) is the slot whose app called exit(),
 * with `exit_status` its status. Caller holds run.lock. */
static void print_summary_locked(const RunsxsSlot *exiting, int exit_status) {
  for (int i = 0; i < run.count; i++) {
    const RunsxsSlot *s = &run.slots[i];
    const RunsxsRuntime *rt = s->rt;
    if (s->phase == SLOT_FINISHED)
      printf("runsxs: [%d] %s %s exit=%d\n", rt->index, rt->fw->version, rt->dir, s->exit_code);
    else if (s == exiting)
      printf("runsxs: [%d] %s %s exit=%d\n", rt->index, rt->fw->version, rt->dir, exit_status);
    else
      printf("runsxs: [%d] %s %s exit=none\n", rt->index, rt->fw->version, rt->dir);
  }
  fflush(stdout);
}

/* Names the runtimes that have not finished, for the timeout and exit() messages. */
static char *unfinished_list_locked(const RunsxsSlot *except) {
  GString *s = g_string_new(NULL);
  static const char *const what[] = {"not started", "initializing", "running its app", "finished"};
  for (int i = 0; i < run.count; i++) {
    const RunsxsSlot *slot = &run.slots[i];
    if (slot == except)
      continue;
    if (slot->phase != SLOT_FINISHED)
      g_string_append_printf(s, "%s[%d] %s (%s)", s->len ? ", " : "", slot->rt->index, slot->rt->fw->version,
                             what[slot->phase]);
    else if (slot->started && slot->shutdown_requested && !slot->shutdown_done)
      g_string_append_printf(s, "%s[%d] %s (shutting down)", s->len ? ", " : "", slot->rt->index,
                             slot->rt->fw->version);
  }
  return g_string_free(s, FALSE);
}

/* SIGTERM or SIGINT reached the runtimes: each is about to run its ProcessExit and shut down,
 * and a runtime that has begun to shut down aborts the process when a foreign thread enters it.
 * From here on the bridge refuses calls. The diagnostics sockets go now: a runtime may end the
 * process with the signal itself (10.0 on SIGTERM, every runtime on SIGINT), and then no exit
 * handler runs. Context: a signal handler; async-signal-safe. */
static void on_termination_signal(void) {
  sxs_bridge_close(0);
  runsxs_diag_remove_sockets();
}

/* The exit() every runtime's import binds to (runsxs is linked -rdynamic). When one runtime ends
 * the process (Environment.Exit, or its own SIGTERM handling), its shutdown runs inside exit()
 * while the other runtimes' threads keep running; a thread that then calls into the runtime
 * being shut down through the bridge makes that runtime abort the whole process. So the bridge
 * is closed, and calls already inside a runtime are given a moment to return, before the real
 * exit() starts tearing runtimes down. Context: the thread that called exit(). */
__attribute__((visibility("default"), noreturn)) void exit(int status) {
  sxs_bridge_close(2000);
  void (*real_exit)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
  if (real_exit)
    real_exit(status);
  _exit(status);
}

/* Runs inside exit(), which a runtime calls for Environment.Exit (and after an unhandled
 * exception on some versions): the process ends with `status` whatever runsxs would have
 * chosen, so at least report what each runtime did. Also runs after main's own exit(), when the
 * summary has already been printed. Context: the thread that called exit(). */
static void on_process_exit(int status, void *arg) {
  (void)arg;
  runsxs_diag_remove_sockets();
  if (atomic_exchange(&run.summary_printed, 1))
    return;
  pthread_mutex_lock(&run.lock);
  RunsxsSlot *exiting = current_slot;
  if (exiting && exiting->phase == SLOT_FINISHED)
    exiting = NULL;
  g_autofree char *others = unfinished_list_locked(exiting);
  if (exiting)
    fprintf(stderr,
            "runsxs: [%d] %s: the app called exit(%d) (Environment.Exit): the whole process ends "
            "now%s%s\n",
            exiting->rt->index, exiting->rt->fw->version, status, *others ? "; not finished: " : "", others);
  else
    fprintf(stderr, "runsxs: exit(%d) called by a thread of a runtime: the whole process ends now%s%s\n", status,
            *others ? "; not finished: " : "", others);
  fflush(stderr);
  print_summary_locked(exiting, status);
  pthread_mutex_unlock(&run.lock);
}

/* Writes all of text with write(2). Context: async-signal-safe. */
static void write_all(int fd, const char *text, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, text, len);
    if (n <= 0) {
      if (n < 0 && errno == EINTR)
        continue;
      return;
    }
    text += n;
    len -= (size_t)n;
  }
}

static void write_str(int fd, const char *text) {
  write_all(fd, text, strlen(text));
}

/* Writes a non-negative decimal. Context: async-signal-safe. */
static void write_uint(int fd, unsigned int value) {
  char buf[16];
  int at = (int)sizeof buf;
  do {
    buf[--at] = (char)('0' + value % 10);
    value /= 10;
  } while (value && at > 0);
  write_all(fd, buf + at, sizeof buf - (size_t)at);
}

/* SIGABRT: every runtime measured (2.0, 8.0, 10.0) aborts the process after printing an exception
 * that escaped Main (also a missing entry point, reported as MissingMethodException) and on
 * fatal errors. Reports which runtime aborted and what the others had done, then lets the
 * abort go on with the default action. The lines were formatted before the runtimes started;
 * progress fields are read without the lock, which at worst shows a slightly stale state.
 * Context: any thread; async-signal-safe. */
static void on_abort_signal(int signo) {
  if (!atomic_exchange(&run.summary_printed, 1)) {
    RunsxsSlot *aborting = current_slot;
    write_str(STDERR_FILENO, "runsxs: ");
    if (aborting) {
      write_str(STDERR_FILENO, "[");
      write_uint(STDERR_FILENO, (unsigned int)aborting->rt->index);
      write_str(STDERR_FILENO, "] ");
      write_str(STDERR_FILENO, aborting->rt->fw->version);
      write_str(STDERR_FILENO, ": the runtime aborted the process (SIGABRT; usually an "
                               "exception escaped Main, see above)\n");
    } else {
      write_str(STDERR_FILENO, "a thread not started by runsxs aborted the process (SIGABRT)\n");
    }
    for (int i = 0; i < run.count; i++) {
      RunsxsSlot *s = &run.slots[i];
      write_str(STDOUT_FILENO, s->abort_line);
      if (__atomic_load_n(&s->phase, __ATOMIC_ACQUIRE) == SLOT_FINISHED) {
        int code = __atomic_load_n(&s->exit_code, __ATOMIC_RELAXED);
        if (code < 0) {
          write_str(STDOUT_FILENO, "-");
          write_uint(STDOUT_FILENO, (unsigned int)-code);
        } else {
          write_uint(STDOUT_FILENO, (unsigned int)code);
        }
      } else if (s == aborting) {
        write_uint(STDOUT_FILENO, 128 + SIGABRT);
      } else {
        write_str(STDOUT_FILENO, "none");
      }
      write_str(STDOUT_FILENO, "\n");
    }
  }
  runsxs_diag_remove_sockets();
  signal(signo, SIG_DFL);
  raise(signo);
}

/* Installs on_abort_signal. The runtimes' own SIGABRT handlers, where they have one, chain to it. */
static void install_abort_report(void) {
  for (int i = 0; i < run.count; i++) {
    const RunsxsRuntime *rt = run.slots[i].rt;
    run.slots[i].abort_line = g_strdup_printf("runsxs: [%d] %s %s exit=", rt->index, rt->fw->version, rt->dir);
  }
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = on_abort_signal;
  sigemptyset(&act.sa_mask);
  act.sa_flags = SA_RESETHAND;
  sigaction(SIGABRT, &act, NULL);
}

/* --- runtime threads ---------------------------------------------------------------------- */

static void slot_set_phase(RunsxsSlot *s, SlotPhase phase) {
  pthread_mutex_lock(&run.lock);
  s->phase = phase;
  pthread_cond_broadcast(&run.changed);
  pthread_mutex_unlock(&run.lock);
}

static void slot_finish(RunsxsSlot *s, int exit_code, gboolean started) {
  pthread_mutex_lock(&run.lock);
  s->exit_code = exit_code;
  s->started = started;
  s->phase = SLOT_FINISHED;
  pthread_cond_broadcast(&run.changed);
  pthread_mutex_unlock(&run.lock);
}

/* Initializes one runtime and runs its app, on the calling thread. */
static void slot_run(RunsxsSlot *s) {
  RunsxsRuntime *rt = s->rt;
  current_slot = s;
  slot_set_phase(s, SLOT_STARTING);
  g_autofree char *message = NULL;
  if (s->shares_lib) {
    /* Slots sharing one libcoreclr.so (RUNSXS_NO_COPY) initialize in command-line order, one at a
     * time: concurrent first initializations of one library race inside CoreCLR (both may
     * "succeed" and then share one runtime); in order, the later ones fail cleanly with
     * HOST_E_INVALIDOPERATION. */
    pthread_mutex_lock(&run.lock);
    for (RunsxsSlot *o = run.slots; o < s; o++) {
      while (o->lib_group == s->lib_group && o->phase < SLOT_RUNNING)
        pthread_cond_wait(&run.changed, &run.lock);
    }
    pthread_mutex_unlock(&run.lock);
  }
  runsxs_diag_thread_runtime(rt->index);
  int hr = runsxs_host_start(rt, run.bridge_dir, &message);
  runsxs_diag_thread_runtime(0);
  if (hr > 0) {
    fprintf(stderr,
            "runsxs: [%d] %s: coreclr_initialize returned 0x%08x: this libcoreclr.so was already "
            "running; the app shares that runtime\n",
            rt->index, rt->fw->version, (unsigned int)hr);
    fflush(stderr);
  }
  if (hr < 0) {
    fprintf(stderr, "runsxs: [%d] %s: %s\n", rt->index, rt->fw->version, message);
    fflush(stderr);
    slot_finish(s, RUNSXS_EXIT_INIT_FAILED, FALSE);
    return;
  }
  g_autofree char *lib_path = g_build_filename(rt->dir, "libcoreclr.so", NULL);
  runsxs_signals_runtime_loaded(rt->index, lib_path);
  sxs_bridge_register(rt->index, (void *)rt->create_delegate, rt->host_handle, rt->domain_id);

  /* Marked started before Main runs: if the app ends the process, the exit handler must know it
   * was this one. */
  pthread_mutex_lock(&run.lock);
  s->started = TRUE;
  s->phase = SLOT_RUNNING;
  pthread_cond_broadcast(&run.changed);
  pthread_mutex_unlock(&run.lock);

  int exit_code = 0;
  hr = runsxs_host_execute(rt, &exit_code);
  if (hr < 0) {
    fprintf(stderr, "runsxs: [%d] %s: coreclr_execute_assembly(%s) failed: 0x%08x (%s)\n", rt->index, rt->fw->version,
            rt->app_path, (unsigned int)hr, runsxs_hresult_describe((unsigned int)hr));
    fflush(stderr);
    exit_code = RUNSXS_EXIT_EXEC_FAILED;
  }
  slot_finish(s, exit_code, TRUE);
}

/* Waits until main asks for this runtime's shutdown, then shuts it down on this thread. */
static void slot_shutdown(RunsxsSlot *s) {
  pthread_mutex_lock(&run.lock);
  while (!s->shutdown_requested)
    pthread_cond_wait(&run.changed, &run.lock);
  gboolean started = s->started;
  pthread_mutex_unlock(&run.lock);

  if (started) {
    current_slot = s;
    sxs_bridge_unregister(s->rt->index);
    int hr = runsxs_host_shutdown(s->rt);
    if (hr < 0)
      fprintf(stderr, "runsxs: [%d] %s: coreclr_shutdown_2 failed: 0x%08x (%s)\n", s->rt->index, s->rt->fw->version,
              (unsigned int)hr, runsxs_hresult_describe((unsigned int)hr));
  }
  pthread_mutex_lock(&run.lock);
  s->shutdown_done = TRUE;
  pthread_cond_broadcast(&run.changed);
  pthread_mutex_unlock(&run.lock);
}

/* Concurrent mode: one thread per runtime, all released together by the barrier. */
static void *runtime_thread(void *arg) {
  RunsxsSlot *s = arg;
  runsxs_signals_thread_start();
  pthread_barrier_wait(&run.start_barrier);
  slot_run(s);
  slot_shutdown(s);
  return NULL;
}

/* --st: one thread starts the runtimes one after another and later shuts them down, last first. */
static void *sequential_thread(void *arg) {
  (void)arg;
  runsxs_signals_thread_start();
  for (int i = 0; i < run.count; i++)
    slot_run(&run.slots[i]);
  for (int i = run.count - 1; i >= 0; i--)
    slot_shutdown(&run.slots[i]);
  return NULL;
}

/* --- main ----------------------------------------------------------------------------------- */

/* Waits until pred(slot) holds for every slot, or the deadline (CLOCK_MONOTONIC, NULL: none)
 * passes. Returns FALSE on timeout. Caller holds run.lock. */
static gboolean wait_all_locked(gboolean (*pred)(const RunsxsSlot *), const struct timespec *deadline) {
  for (;;) {
    gboolean all = TRUE;
    for (int i = 0; i < run.count && all; i++)
      all = pred(&run.slots[i]);
    if (all)
      return TRUE;
    int rc = deadline ? pthread_cond_timedwait(&run.changed, &run.lock, deadline)
                      : pthread_cond_wait(&run.changed, &run.lock);
    if (rc == ETIMEDOUT)
      return FALSE;
  }
}

static gboolean slot_is_finished(const RunsxsSlot *s) {
  return s->phase == SLOT_FINISHED;
}

/* Reports a timeout and ends the process at once: a runtime stuck in managed code can be neither
 * joined nor shut down. Caller holds run.lock. */
static G_NORETURN void timeout_exit_locked(int timeout_sec) {
  atomic_store(&run.summary_printed, 1);
  g_autofree char *unfinished = unfinished_list_locked(NULL);
  fprintf(stderr, "runsxs: timed out after %d s; not finished: %s\n", timeout_sec, unfinished);
  print_summary_locked(NULL, 0);
  fflush(stderr);
  runsxs_diag_remove_sockets();
  _exit(RUNSXS_EXIT_TIMEOUT);
}

/* The folder of libsxsbridge.so as loaded by this process, so managed code loads the same file. */
static char *bridge_folder(void) {
  Dl_info info;
  if (!dladdr((void *)sxs_bridge_call, &info) || !info.dli_fname)
    return NULL;
  char real[PATH_MAX];
  if (!realpath(info.dli_fname, real))
    return NULL;
  return g_path_get_dirname(real);
}

/* Splits the ARGS operand like a shell; "" or only blanks mean no arguments. */
static char **parse_app_args(const char *text, GError **error) {
  g_autofree char *trimmed = g_strstrip(g_strdup(text));
  if (!*trimmed)
    return g_new0(char *, 1);
  char **argv = NULL;
  if (!g_shell_parse_argv(text, NULL, &argv, error))
    return NULL;
  return argv;
}

/* Identity of a framework's libcoreclr.so: glibc's dlopen deduplicates by device and inode. */
typedef struct {
  dev_t dev;
  ino_t ino;
} LibId;

static gboolean lib_id(const char *dir, LibId *ret_id) {
  g_autofree char *lib = g_build_filename(dir, "libcoreclr.so", NULL);
  struct stat st;
  if (stat(lib, &st) != 0)
    return FALSE;
  ret_id->dev = st.st_dev;
  ret_id->ino = st.st_ino;
  return TRUE;
}

/* TRUE when this process has already loaded dir/libcoreclr.so (or a file with its inode). */
static gboolean lib_already_loaded(const char *dir) {
  g_autofree char *lib = g_build_filename(dir, "libcoreclr.so", NULL);
  void *h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return FALSE;
  dlclose(h);
  return TRUE;
}

/* Chooses the folder each runtime loads: the framework itself the first time it is used, a
 * private copy (1, 2, ...) every further time, since a loaded libcoreclr.so cannot start a
 * second runtime. RUNSXS_NO_COPY=1 turns copying off (to reproduce the failure). */
static gboolean assign_folders(GError **error) {
  gboolean no_copy = g_strcmp0(g_getenv("RUNSXS_NO_COPY"), "1") == 0;
  g_autoptr(GArray) used = g_array_new(FALSE, FALSE, sizeof(LibId));
  for (int i = 0; i < run.count; i++) {
    RunsxsRuntime *rt = run.slots[i].rt;
    for (int copy = 0;; copy++) {
      g_autofree char *dir = NULL;
      gboolean created = FALSE;
      if (copy == 0) {
        dir = g_strdup(rt->fw->dir);
      } else {
        dir = runsxs_framework_private_copy(rt->fw, copy, &created, error);
        if (!dir)
          return FALSE;
        if (created)
          fprintf(stderr, "runsxs: [%d] %s: made a private copy of %s in %s\n", rt->index, rt->fw->version, rt->fw->dir,
                  dir);
      }
      LibId id;
      if (!lib_id(dir, &id)) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s has no libcoreclr.so", dir);
        return FALSE;
      }
      gboolean clash = lib_already_loaded(dir);
      for (guint u = 0; u < used->len && !clash; u++) {
        const LibId *o = &g_array_index(used, LibId, u);
        clash = o->dev == id.dev && o->ino == id.ino;
      }
      if (!clash || no_copy) {
        run.slots[i].lib_group = i;
        for (guint u = 0; u < used->len; u++) {
          const LibId *o = &g_array_index(used, LibId, u);
          if (o->dev == id.dev && o->ino == id.ino) {
            run.slots[u].shares_lib = TRUE;
            run.slots[i].shares_lib = TRUE;
            run.slots[i].lib_group = run.slots[u].lib_group;
            break;
          }
        }
        g_free(rt->dir);
        rt->dir = g_steal_pointer(&dir);
        rt->copy = copy;
        g_array_append_val(used, id);
        rt->native_aliases = runsxs_framework_native_aliases(rt->dir, error);
        if (error && *error)
          return FALSE;
        break;
      }
      if (copy >= 64) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "no usable private copy of %s (64 tried)", rt->fw->dir);
        return FALSE;
      }
    }
  }
  return TRUE;
}

typedef struct {
  gboolean single_thread;
  gboolean signal_fixes;
  gboolean diagnostics; /* --diagnostics: a diagnostics socket per runtime */
  int timeout_sec;
  char **operands; /* borrowed from argv */
  int operand_count;
} RunsxsOptions;

/* Parses options (only before the first operand; "--" ends them). Returns 0, 1 for --help,
 * or -1 after printing a message. */
static int parse_options(int argc, char **argv, RunsxsOptions *opt) {
  opt->single_thread = FALSE;
  opt->signal_fixes = TRUE;
  opt->diagnostics = FALSE;
  opt->timeout_sec = RUNSXS_DEFAULT_TIMEOUT;
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(a, "--st") == 0 || g_ascii_strcasecmp(a, "/st") == 0) {
      opt->single_thread = TRUE;
    } else if (strcmp(a, "--no-signal-fixes") == 0) {
      opt->signal_fixes = FALSE;
    } else if (strcmp(a, "--diagnostics") == 0) {
      opt->diagnostics = TRUE;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "/?") == 0) {
      return 1;
    } else if (strcmp(a, "--timeout") == 0 || g_str_has_prefix(a, "--timeout=")) {
      const char *value = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
      guint64 sec = 0;
      if (!value || !g_ascii_string_to_unsigned(value, 10, 0, 86400 * 365, &sec, NULL)) {
        fprintf(stderr, "runsxs: --timeout needs a number of seconds (0 = no timeout)\n");
        return -1;
      }
      opt->timeout_sec = (int)sec;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "runsxs: unknown option %s (see runsxs --help)\n", a);
      return -1;
    } else {
      break;
    }
  }
  opt->operands = argv + i;
  opt->operand_count = argc - i;
  if (opt->operand_count == 0 || opt->operand_count % 3 != 0) {
    fprintf(stderr, "runsxs: expected RUNTIME APP \"ARGS\" triples, got %d operand%s (see runsxs --help)\n",
            opt->operand_count, opt->operand_count == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

/* Resolves every triple into a slot; prints one message and returns FALSE on bad input. */
static gboolean prepare_slots(const RunsxsOptions *opt) {
  run.count = opt->operand_count / 3;
  run.slots = g_new0(RunsxsSlot, run.count);
  for (int i = 0; i < run.count; i++) {
    const char *spec = opt->operands[3 * i], *app = opt->operands[3 * i + 1], *args = opt->operands[3 * i + 2];
    g_autoptr(GError) error = NULL;
    RunsxsFramework *fw = runsxs_framework_resolve(spec, &error);
    if (!fw) {
      fprintf(stderr, "runsxs: [%d] %s\n", i + 1, error->message);
      return FALSE;
    }
    char real[PATH_MAX];
    if (!realpath(app, real) || !g_file_test(real, G_FILE_TEST_IS_REGULAR)) {
      fprintf(stderr, "runsxs: [%d] app %s: %s\n", i + 1, app,
              g_file_test(app, G_FILE_TEST_EXISTS) ? "not a file" : "no such file");
      runsxs_framework_free(fw);
      return FALSE;
    }
    char **app_argv = parse_app_args(args, &error);
    if (!app_argv) {
      fprintf(stderr, "runsxs: [%d] cannot split ARGS \"%s\": %s\n", i + 1, args, error->message);
      runsxs_framework_free(fw);
      return FALSE;
    }
    run.slots[i].rt = runsxs_runtime_new(i + 1, spec, fw, real, app_argv);
  }
  return TRUE;
}

int main(int argc, char **argv) {
  RunsxsOptions opt;
  int rc = parse_options(argc, argv, &opt);
  if (rc == 1) {
    usage(stdout);
    return 0;
  }
  if (rc < 0)
    return RUNSXS_EXIT_USAGE;
  if (runsxs_signals_setup(opt.signal_fixes) < 0)
    fprintf(stderr, "runsxs: warning: the signal-chain repairs could not be installed\n");
  runsxs_signals_thread_start();

  if (!prepare_slots(&opt))
    return RUNSXS_EXIT_USAGE;
  run.single_thread = opt.single_thread;
  run.bridge_dir = bridge_folder();
  if (!run.bridge_dir) {
    fprintf(stderr, "runsxs: cannot locate libsxsbridge.so\n");
    return RUNSXS_EXIT_USAGE;
  }
  g_autoptr(GError) error = NULL;
  if (!assign_folders(&error)) {
    fprintf(stderr, "runsxs: %s\n", error->message);
    return RUNSXS_EXIT_USAGE;
  }
  if (opt.diagnostics) {
    g_autofree RunsxsRuntime **rts = g_new0(RunsxsRuntime *, run.count);
    for (int i = 0; i < run.count; i++)
      rts[i] = run.slots[i].rt;
    if (!runsxs_diag_setup(rts, run.count, &error)) {
      fprintf(stderr, "runsxs: %s\n", error->message);
      return RUNSXS_EXIT_USAGE;
    }
  }

  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&run.changed, &attr);
  pthread_condattr_destroy(&attr);
  on_exit(on_process_exit, NULL);
  runsxs_signals_set_termination_hook(on_termination_signal);
  install_abort_report();
  /* Our own lines must not sit in a stdio buffer when a runtime ends the process. */
  fflush(stdout);
  fflush(stderr);

  struct timespec deadline_storage, *deadline = NULL;
  if (opt.timeout_sec > 0) {
    clock_gettime(CLOCK_MONOTONIC, &deadline_storage);
    deadline_storage.tv_sec += opt.timeout_sec;
    deadline = &deadline_storage;
  }

  if (run.single_thread) {
    pthread_t thread;
    int err = pthread_create(&thread, NULL, sequential_thread, NULL);
    if (err) {
      fprintf(stderr, "runsxs: cannot create a thread: %s\n", g_strerror(err));
      return RUNSXS_EXIT_USAGE;
    }
    for (int i = 0; i < run.count; i++)
      run.slots[i].thread = thread;
  } else {
    pthread_barrier_init(&run.start_barrier, NULL, (unsigned int)run.count);
    for (int i = 0; i < run.count; i++) {
      int err = pthread_create(&run.slots[i].thread, NULL, runtime_thread, &run.slots[i]);
      if (err) {
        /* The barrier would never open; nothing has run yet, so simply leave. */
        fprintf(stderr, "runsxs: cannot create a thread: %s\n", g_strerror(err));
        _exit(RUNSXS_EXIT_USAGE);
      }
    }
  }

  pthread_mutex_lock(&run.lock);
  if (!wait_all_locked(slot_is_finished, deadline))
    timeout_exit_locked(opt.timeout_sec);
  /* Shut the runtimes down one at a time, the last one first. */
  for (int i = run.count - 1; i >= 0; i--) {
    run.slots[i].shutdown_requested = TRUE;
    pthread_cond_broadcast(&run.changed);
    while (!run.slots[i].shutdown_done) {
      int err = deadline ? pthread_cond_timedwait(&run.changed, &run.lock, deadline)
                         : pthread_cond_wait(&run.changed, &run.lock);
      if (err == ETIMEDOUT)
        timeout_exit_locked(opt.timeout_sec);
    }
  }
  /* Every runtime is shut down: no diagnostics server answers any more. */
  runsxs_diag_remove_sockets();
  atomic_store(&run.summary_printed, 1);
  print_summary_locked(NULL, 0);
  int status = 0;
  for (int i = 0; i < run.count && status == 0; i++)
    status = run.slots[i].exit_code;
  pthread_mutex_unlock(&run.lock);

  if (run.single_thread) {
    pthread_join(run.slots[0].thread, NULL);
  } else {
    for (int i = 0; i < run.count; i++)
      pthread_join(run.slots[i].thread, NULL);
  }
  /* A process status holds 8 bits; a non-zero code must not turn into success. */
  if (status != 0 && (status & 0xff) == 0)
    status = 1;
  fflush(stdout);
  return status & 0xff;
}
