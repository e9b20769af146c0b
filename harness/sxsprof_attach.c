/* sxsprof attach: loads the profiler into a runtime of a running process through the runtime's
 * diagnostics IPC, lets it profile until --duration ends or Ctrl-C, and gets its profile back.
 *
 *   sxsprof attach                                       target process (runtime 3.0 or later)
 *   --------------                                       -------------------------------------
 *   find the runtime's socket(s), pick one (--runtime)
 *   write the config; listen on the control socket
 *   AttachProfiler(clsid, libsxsprof.so, client data) -> runtime loads the profiler
 *                                                  <- OK, or an error HRESULT (named)
 *   accept (within 30 s)                           <- profiler connects once it has caught up
 *                                                  <- "attached <runtime id> <version> ..."
 *   --duration over, SIGINT or SIGTERM: "stop"     ->
 *                                                  <- "written <profile>" or "error <message>"
 *   the profile's views and summary, as `run` prints them
 *
 * Which runtime (--runtime): a number that is one of the process's runtime indexes (runsxs
 * --diagnostics gives runtime N its own socket) picks that runtime; any other version ("8.0",
 * "10") picks the runtime whose product version begins with its components; a path (a
 * libcoreclr.so or its folder) picks the runtime whose product version is the folder's name
 * (build metadata ignored; a runsxs private copy <version>-<hash>-copy<N> stands for <version>).
 * Without --runtime a process with one runtime is attached to, one with several is refused with
 * their list.
 *
 * It does not start programs (that is `run`), and it never signals or stops the target. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sxs_config.h"
#include "sxs_attach.h"
#include "sxs_diag.h"
#include "sxs_process.h"
#include "sxs_version.h"
#include "sxs_status.h"
#include "sxsprof.h"

/* How long the runtime may wait for a concurrent GC before it gives up the attach. */
#define ATTACH_TIMEOUT_MS 10000
/* How long the profiler may take, after the runtime said OK, to connect and say "attached". */
#define ATTACH_REPORT_SECONDS 30
/* How long the profiler may take to write the profile once asked to stop. */
#define ATTACH_STOP_SECONDS 60

typedef struct {
  SxsprofRunOptions run;
  const char *runtime; /* --runtime: N, VERSION or PATH */
  double seconds;      /* --duration; 0: until a signal */
  pid_t pid;
  time_t started; /* when the attach began (a second back): files written since are its own */
} AttachOptions;

/* ---- Options ---- */

static gboolean all_digits(const char *s) {
  return s && *s && strspn(s, "0123456789") == strlen(s);
}

/* Parses attach's options; returns 0, or -1 after printing why. */
static int parse_attach_options(int argc, char **argv, AttachOptions *o) {
  o->run.formats = SXS_FORMATS_DEFAULT_FILES | SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY);
  const char *pid_text = NULL, *duration = NULL, *sample_number = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] == '\0') {
      if (pid_text && sample_number)
        fprintf(stderr, "sxsprof: a sampling frequency goes with '=': --sample=%s\n", sample_number);
      else if (pid_text)
        fprintf(stderr, "sxsprof: attach takes one process id, not \"%s\" and \"%s\"\n", pid_text, a);
      if (pid_text)
        return -1;
      pid_text = a;
      continue;
    }
    if (g_str_equal(a, "--quiet") || g_str_equal(a, "-q")) {
      o->run.quiet = TRUE;
      continue;
    }
    if (g_str_equal(a, "--wall")) {
      o->run.wall = TRUE;
      continue;
    }
    if (g_str_equal(a, "--inventory")) {
      o->run.inventory = TRUE;
      continue;
    }
    if (g_str_equal(a, "--endpoints")) {
      o->run.endpoints = TRUE;
      continue;
    }
    if (g_str_equal(a, "--sample") || g_str_has_prefix(a, "--sample=")) {
      o->run.sample = a[8] == '=' ? a + 9 : "";
      if (a[8] == '\0' && i + 1 < argc && all_digits(argv[i + 1]))
        sample_number = argv[i + 1];
      continue;
    }
    /* --name VALUE or --name=VALUE */
    g_autofree char *name = g_strndup(a, strcspn(a, "="));
    const char *inline_value = a[strlen(name)] == '=' ? a + strlen(name) + 1 : NULL;
    const char **slot = g_str_equal(name, "--config") || g_str_equal(name, "-c")   ? &o->run.config
                        : g_str_equal(name, "--output") || g_str_equal(name, "-o") ? &o->run.output
                        : g_str_equal(name, "--mode")                              ? &o->run.mode
                        : g_str_equal(name, "--runtime")                           ? &o->runtime
                        : g_str_equal(name, "--duration")                          ? &duration
                        : g_str_equal(name, "--format")                            ? &o->run.format
                        : g_str_equal(name, "--stacks-on")                         ? &o->run.stacks_on
                        : g_str_equal(name, "--engine")                            ? &o->run.engine
                        : g_str_equal(name, "--event")                             ? &o->run.event
                        : g_str_equal(name, "--timeline")                          ? &o->run.timeline
                                                                                   : NULL;
    if (!slot) {
      fprintf(stderr, "sxsprof: unknown option \"%s\" for attach\n%s", a, sxsprof_usage);
      return -1;
    }
    if (sxsprof_take_value(argc, argv, &i, inline_value, slot) < 0)
      return -1;
  }
  if (!pid_text) {
    fprintf(stderr, "sxsprof: attach needs a process id, e.g. sxsprof attach 1234\n");
    return -1;
  }
  guint64 pid = 0;
  if (!all_digits(pid_text) || !g_ascii_string_to_unsigned(pid_text, 10, 1, INT_MAX, &pid, NULL)) {
    fprintf(stderr, "sxsprof: \"%s\" is not a process id\n", pid_text);
    return -1;
  }
  o->pid = (pid_t)pid;
  if (duration) {
    char *end = NULL;
    o->seconds = g_ascii_strtod(duration, &end);
    if (!*duration || *end || !isfinite(o->seconds) || o->seconds <= 0 || o->seconds > 1e9) {
      fprintf(stderr, "sxsprof: --duration %s is not a number of seconds above 0\n", duration);
      return -1;
    }
  }
  if (o->run.format) {
    g_autofree char *problem = NULL;
    if (!sxs__config_parse_formats(o->run.format, TRUE, &o->run.formats, &problem)) {
      fprintf(stderr, "sxsprof: --format: %s\n", problem);
      return -1;
    }
  }
  return 0;
}

/* ---- Choosing the runtime ---- */

/* "[1] 10.0.12" */
static char *endpoint_label(const SxsDiagEndpoint *e) {
  const char *version = e->version ? e->version : "(version unknown)";
  if (e->index == 0)
    return g_strdup_printf("[default] %s", version);
  return g_strdup_printf("[%d] %s", e->index, version);
}

/* "[1] 10.0.12, [2] 8.0.33". The default socket of a process with several runtimes and no
 * numbered sockets reaches only the runtime that bound it first: the list says so. */
static char *endpoints_list(GPtrArray *eps) {
  g_autoptr(GString) s = g_string_new(NULL);
  gboolean shared = FALSE;
  for (guint i = 0; i < eps->len; i++) {
    const SxsDiagEndpoint *e = eps->pdata[i];
    g_autofree char *label = endpoint_label(e);
    g_string_append_printf(s, "%s%s", i ? ", " : "", label);
    shared |= e->index == 0;
  }
  if (shared)
    g_string_append(s, "; its other runtimes cannot be reached: runsxs --diagnostics gives each a socket");
  return g_string_free(g_steal_pointer(&s), FALSE);
}

/* Does the runtime's product version begin with `prefix` (exact: equal to it, build metadata
 * ignored)? */
static gboolean version_matches(const SxsDiagEndpoint *e, const SxsVersion *want, gboolean exact) {
  SxsVersion have;
  if (!e->version || !sxs__version_parse(e->version, &have))
    return FALSE;
  return exact ? sxs__version_compare(&have, want) == 0 : sxs__version_starts_with(&have, want);
}

/* The runtime `selector` names among eps (see the top of the file), or NULL after printing why. */
static const SxsDiagEndpoint *choose_runtime(pid_t pid, GPtrArray *eps, const char *selector) {
  g_autofree char *list = endpoints_list(eps);
  if (!selector) {
    if (eps->len == 1)
      return eps->pdata[0];
    fprintf(stderr, "sxsprof: process %d runs %u runtimes (%s); choose one with --runtime N, VERSION or PATH\n",
            (int)pid, eps->len, list);
    return NULL;
  }
  if (all_digits(selector)) {
    for (guint i = 0; i < eps->len; i++) {
      const SxsDiagEndpoint *e = eps->pdata[i];
      if (e->index > 0 && g_ascii_strtoull(selector, NULL, 10) == (guint64)e->index)
        return e;
    }
  }
  /* A path, or a version. */
  g_autofree char *folder_version = NULL;
  const char *what = selector;
  gboolean exact = FALSE;
  if (strchr(selector, '/') || g_file_test(selector, G_FILE_TEST_EXISTS)) {
    g_autofree char *resolved = realpath(selector, NULL);
    if (!resolved) {
      fprintf(stderr, "sxsprof: --runtime %s: %s\n", selector, g_strerror(errno));
      return NULL;
    }
    g_autofree char *folder =
        g_file_test(resolved, G_FILE_TEST_IS_DIR) ? g_strdup(resolved) : g_path_get_dirname(resolved);
    folder_version = sxs_diag_folder_version(folder);
    if (!folder_version) {
      fprintf(stderr, "sxsprof: --runtime %s: the folder %s is not named after a runtime version (such as 10.0.12)\n",
              selector, folder);
      return NULL;
    }
    what = folder_version;
    exact = TRUE;
  }
  SxsVersion want;
  if (!sxs__version_parse(what, &want)) {
    fprintf(stderr, "sxsprof: --runtime %s is not a runtime index, version or path (process %d runs %s)\n", selector,
            (int)pid, list);
    return NULL;
  }
  const SxsDiagEndpoint *match = NULL;
  guint matches = 0;
  for (guint i = 0; i < eps->len; i++)
    if (version_matches(eps->pdata[i], &want, exact)) {
      match = eps->pdata[i];
      matches++;
    }
  if (matches == 1)
    return match;
  if (matches > 1) {
    fprintf(stderr, "sxsprof: %u runtimes of process %d are version %s (%s); choose one with --runtime N\n", matches,
            (int)pid, what, list);
  } else if (all_digits(selector)) {
    fprintf(stderr, "sxsprof: process %d has no runtime %s, by index or version (it runs %s)\n", (int)pid, selector,
            list);
  } else {
    fprintf(stderr, "sxsprof: process %d has no runtime of version %s (it runs %s)\n", (int)pid, what, list);
  }
  return NULL;
}

/* Says why a process that exists has no endpoint. */
static void explain_no_channel(pid_t pid) {
  g_autofree char *mapped = sxs_diag_mapped_runtime_version(pid);
  SxsVersion v;
  if (mapped && sxs__version_parse(mapped, &v) && v.part[0] < 3) {
    fprintf(stderr,
            "sxsprof: process %d runs .NET Core %s, which has no diagnostics channel; attaching needs .NET Core 3.0 or "
            "later\n",
            (int)pid, mapped);
    return;
  }
  g_autofree char *socket_path = NULL;
  if (sxs_diag_default_socket(pid, &socket_path) == 0) {
    int fd = sxs_diag_connect(socket_path, 3000);
    if (fd < 0) {
      fprintf(stderr, "sxsprof: the diagnostics channel of process %d does not answer (%s: %s)\n", (int)pid,
              socket_path, g_strerror(-fd));
      return;
    }
    close(fd);
    fprintf(stderr, "sxsprof: the diagnostics channel of process %d (%s) does not answer as a .NET runtime\n", (int)pid,
            socket_path);
    return;
  }
  fprintf(stderr,
          "sxsprof: process %d has no .NET diagnostics channel (not .NET, .NET Core 2.x, or started with "
          "DOTNET_EnableDiagnostics=0)\n",
          (int)pid);
}

/* The .NET processes below pid (children first, then theirs), by pid: those with a diagnostics
 * channel. */
static GArray *dotnet_descendants(pid_t pid) {
  GArray *found = g_array_new(FALSE, FALSE, sizeof(pid_t));
  g_autoptr(GArray) parents = g_array_new(FALSE, FALSE, sizeof(pid_t));
  g_array_append_val(parents, pid);
  for (guint level = 0; level < 4 && parents->len; level++) {
    g_autoptr(GArray) next = g_array_new(FALSE, FALSE, sizeof(pid_t));
    g_autoptr(GDir) proc = g_dir_open("/proc", 0, NULL);
    const char *name;
    while (proc && (name = g_dir_read_name(proc))) {
      if (!g_ascii_isdigit(name[0]))
        continue;
      g_autofree char *stat_path = g_strdup_printf("/proc/%s/stat", name);
      g_autofree char *stat = NULL;
      if (!g_file_get_contents(stat_path, &stat, NULL, NULL))
        continue;
      /* pid (comm) state ppid ...: the command may hold spaces and parentheses. */
      const char *close = strrchr(stat, ')');
      int ppid = 0;
      if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1)
        continue;
      for (guint i = 0; i < parents->len; i++) {
        if (g_array_index(parents, pid_t, i) != ppid)
          continue;
        pid_t child = (pid_t)atoi(name);
        g_array_append_val(next, child);
        int err = 0;
        g_autoptr(GPtrArray) eps = sxs_diag_find_endpoints(child, &err);
        if (eps && eps->len > 0)
          g_array_append_val(found, child);
      }
    }
    g_array_set_size(parents, 0);
    g_array_append_vals(parents, next->data, next->len);
  }
  return found;
}

/* After an attach that found no work: when the target's .NET work is in a child (a starter, a
 * wrapper), says so and names it. */
static void explain_idle(pid_t pid) {
  g_autoptr(GArray) children = dotnet_descendants(pid);
  if (children->len == 0) {
    fprintf(stderr, "sxsprof: process %d ran no code while it was profiled (no samples or events)\n", (int)pid);
    return;
  }
  pid_t child = g_array_index(children, pid_t, 0);
  g_autofree char *cmdline_path = g_strdup_printf("/proc/%d/cmdline", (int)child);
  g_autofree char *cmdline = NULL;
  gsize len = 0;
  g_autofree char *command = NULL;
  if (g_file_get_contents(cmdline_path, &cmdline, &len, NULL) && len > 0) {
    for (gsize i = 0; i + 1 < len; i++)
      if (cmdline[i] == '\0')
        cmdline[i] = ' ';
    command = g_strdup(cmdline);
  }
  fprintf(stderr,
          "sxsprof: process %d ran no code while it was profiled (no samples or events): it only waits for its "
          "child %d%s%s%s, which runs .NET; to profile the work: sxsprof attach %d\n",
          (int)pid, (int)child, command ? " (" : "", command ? command : "", command ? ")" : "", (int)child);
}

/* ---- Signals ---- */

static volatile sig_atomic_t attach_signals;
/* Removed by a second signal, which exits at once: the control socket and the config. */
static char attach_cleanup[2][PATH_MAX];

/* The first SIGINT or SIGTERM asks for the profile (the main loop sends "stop"); a second one
 * exits at once, without it.
 * Context: signal handler; async-signal-safe. */
static void attach_on_signal(int signo) {
  if (attach_signals++ == 0)
    return;
  for (int i = 0; i < 2; i++)
    if (attach_cleanup[i][0])
      unlink(attach_cleanup[i]);
  static const char msg[] = "\nsxsprof: interrupted again; exiting without the profile\n";
  ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)unused;
  _exit(128 + signo);
}

/* ---- The control connection ---- */

/* The profiler's side of the control connection, as it has spoken so far. */
typedef struct {
  int listen_fd, fd;
  GString *in;      /* received, not yet a whole line */
  char *runtime_id; /* from "attached <runtime id> <version> ..." */
  char *version;
  char *written; /* from "written <profile path>" */
  char *error;   /* from "error <message>" */
  gboolean closed;
} Control;

static int control_listen(const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof addr.sun_path)
    return -ENAMETOOLONG;
  strcpy(addr.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return -errno;
  /* A leftover of an earlier sxsprof that had this pid. */
  unlink(path);
  mode_t old_mask = umask(0177); /* the socket is created 0600: only this user may connect */
  int r = bind(fd, (struct sockaddr *)&addr, sizeof addr);
  umask(old_mask);
  if (r == 0)
    r = listen(fd, 4);
  if (r < 0) {
    r = -errno;
    close(fd);
    return r;
  }
  return fd;
}

/* Takes the whole lines received so far. */
static void control_lines(Control *c) {
  char *nl;
  while ((nl = memchr(c->in->str, '\n', c->in->len))) {
    g_autofree char *line = g_strndup(c->in->str, (gsize)(nl - c->in->str));
    g_string_erase(c->in, 0, nl - c->in->str + 1);
    if (g_str_has_prefix(line, "attached ") && !c->runtime_id) {
      g_auto(GStrv) words = g_strsplit(line + 9, " ", 3);
      c->runtime_id = g_strdup(words[0] ? words[0] : "?");
      c->version = g_strdup(words[0] && words[1] ? words[1] : "?");
    } else if (g_str_has_prefix(line, "written ") && !c->written) {
      c->written = g_strdup(line + 8);
    } else if (g_str_has_prefix(line, "error ") && !c->error) {
      c->error = g_strdup(line + 6);
    }
  }
}

/* Reads what the profiler sent; sets closed at end of stream. */
static void control_read(Control *c) {
  char buf[4096];
  for (;;) {
    ssize_t n = recv(c->fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n > 0) {
      g_string_append_len(c->in, buf, n);
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
      c->closed = TRUE;
    break;
  }
  control_lines(c);
}

/* The profile a target that ended while it was profiled wrote at its exit, when the output is a
 * prefix and <prefix>.json (or <prefix>.<pid>.json) was written since the attach began; NULL
 * otherwise. */
static char *profile_written_at_exit(const AttachOptions *o) {
  const char *output = o->run.config_output;
  if (!output || g_str_has_suffix(output, "/"))
    return NULL;
  for (int i = 0; i < 2; i++) {
    g_autofree char *path =
        i == 0 ? g_strconcat(output, ".json", NULL) : g_strdup_printf("%s.%d.json", output, (int)o->pid);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime >= o->started)
      return g_steal_pointer(&path);
  }
  return NULL;
}

/* Says that the target ended, and how when that can still be told: its parent may not have
 * collected its exit status yet. watch_fd (a pidfd, or -1) is readable once it has ended; the
 * control connection closes a moment before, so it is waited for up to a second. FALSE when the
 * target still runs. *ret_written: the profile its exit wrote, if any (then it is named as such). */
static gboolean report_target_end(const AttachOptions *o, int watch_fd, char **ret_written) {
  pid_t pid = o->pid;
  if (watch_fd >= 0) {
    struct pollfd pfd = {.fd = watch_fd, .events = POLLIN};
    while (poll(&pfd, 1, 1000) < 0 && errno == EINTR)
      ;
    if (!(pfd.revents & POLLIN))
      return FALSE;
  } else if (!(kill(pid, 0) < 0 && errno == ESRCH)) {
    int unused;
    if (sxs_diag_process_exit(pid, &unused) == -EBUSY)
      return FALSE;
  }
  int status;
  g_autofree char *how = sxs_diag_process_exit(pid, &status) == 0 ? sxs_diag_describe_exit(status) : NULL;
  *ret_written = profile_written_at_exit(o);
  if (*ret_written)
    fprintf(stderr, "sxsprof: process %d %s while it was profiled; the profile is what its exit wrote\n", (int)pid,
            how ? how : "ended");
  else if (how)
    fprintf(stderr, "sxsprof: process %d %s before the profiler wrote a profile\n", (int)pid, how);
  else
    fprintf(stderr,
            "sxsprof: process %d ended before the profiler wrote a profile (its exit status went to its parent)\n",
            (int)pid);
  return TRUE;
}

/* Waits for the profiler to connect and report, asks it to stop when the duration is over or a
 * signal came, and waits for its answer. Returns 0 with c->written set, or 1 after printing why;
 * a target that ends meanwhile is reported at once, with its exit status when it can be known.
 * Signals are blocked on entry; they are let through only while it waits (ppoll). */
static int control_serve(Control *c, const AttachOptions *o, const char *label, const char *target,
                         const sigset_t *wait_mask, int watch_fd, SxsStatus *line) {
  gint64 next_draw = g_get_monotonic_time() + G_USEC_PER_SEC;
  gint64 report_deadline = g_get_monotonic_time() + ATTACH_REPORT_SECONDS * G_USEC_PER_SEC;
  gint64 stop_at = 0, stop_deadline = 0;
  gboolean stop_sent = FALSE, told_stopping = FALSE;
  for (;;) {
    gint64 now = g_get_monotonic_time();
    if (!c->runtime_id && now >= report_deadline) {
      sxs_status_clear(line);
      fprintf(stderr, "sxsprof: the profiler loaded into %s but did not report back within %d s\n", target,
              ATTACH_REPORT_SECONDS);
      return 1;
    }
    if (attach_signals && !told_stopping && !o->run.quiet) {
      sxs_status_clear(line);
      fprintf(stderr, "sxsprof: stopping: the profile is being written (interrupt again to quit without it)\n");
      told_stopping = TRUE;
    }
    if (c->runtime_id && !stop_sent && (attach_signals || (stop_at && now >= stop_at))) {
      static const char stop[] = "stop\n";
      if (send(c->fd, stop, sizeof stop - 1, MSG_NOSIGNAL) < 0) {
        sxs_status_clear(line);
        fprintf(stderr, "sxsprof: cannot ask the profiler in %s to stop: %s\n", target, g_strerror(errno));
        return 1;
      }
      stop_sent = TRUE;
      /* A target that no longer answers must not hang a scripted run. */
      stop_deadline = now + ATTACH_STOP_SECONDS * G_USEC_PER_SEC;
    }
    if (stop_sent && now >= stop_deadline) {
      sxs_status_clear(line);
      fprintf(stderr, "sxsprof: the profiler in %s did not answer the stop within %d s\n", target, ATTACH_STOP_SECONDS);
      return 1;
    }
    gint64 until = !c->runtime_id ? report_deadline : stop_sent ? stop_deadline : stop_at ? stop_at : 0;
    /* On a terminal, while the profile is taken: the status line, redrawn every second. */
    if (line && c->runtime_id && !stop_sent) {
      if (now >= next_draw) {
        if (sxs_status_terminal_free((int)o->pid))
          sxs_status_progress(line, "attached");
        else
          sxs_status_clear(line);
        next_draw = now + G_USEC_PER_SEC;
      }
      until = until ? MIN(until, next_draw) : next_draw;
    }
    struct timespec ts, *timeout = NULL;
    if (until) {
      gint64 left = MAX(until - now, 0);
      ts.tv_sec = (time_t)(left / G_USEC_PER_SEC);
      ts.tv_nsec = (long)(left % G_USEC_PER_SEC) * 1000;
      timeout = &ts;
    }
    struct pollfd pfd[2] = {{.fd = c->fd >= 0 ? c->fd : c->listen_fd, .events = POLLIN},
                            {.fd = watch_fd, .events = POLLIN}};
    int r = ppoll(pfd, watch_fd >= 0 ? 2 : 1, timeout, wait_mask);
    if (r < 0 && errno != EINTR) {
      sxs_status_clear(line);
      fprintf(stderr, "sxsprof: waiting for the profiler failed: %s\n", g_strerror(errno));
      return 1;
    }
    if (r <= 0)
      continue;
    /* The target ended: what the profiler sent before is still read (its "written" may be there). */
    if (!(pfd[0].revents & POLLIN) && (pfd[1].revents & POLLIN)) {
      if (c->fd >= 0)
        control_read(c);
      if (c->written)
        return 0;
      sxs_status_clear(line);
      report_target_end(o, watch_fd, &c->written);
      return c->written ? 0 : 1;
    }
    if (c->fd < 0) {
      c->fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      continue;
    }
    gboolean had_report = c->runtime_id != NULL;
    control_read(c);
    if (c->runtime_id && !had_report) {
      if (o->seconds > 0)
        stop_at = g_get_monotonic_time() + (gint64)(o->seconds * G_USEC_PER_SEC);
      if (!o->run.quiet) {
        g_autofree char *until_text =
            o->seconds > 0 ? g_strdup_printf("for %g s", o->seconds) : g_strdup("until Ctrl-C");
        sxs_status_clear(line);
        fprintf(stderr, "sxsprof: profiling runtime %s of process %d %s\n", label, (int)o->pid, until_text);
      }
    }
    if (c->error) {
      sxs_status_clear(line);
      fprintf(stderr, "sxsprof: the profiler in %s failed: %s\n", target, c->error);
      return 1;
    }
    if (c->written)
      return 0;
    if (c->closed) {
      sxs_status_clear(line);
      if (report_target_end(o, watch_fd, &c->written))
        return c->written ? 0 : 1;
      if (!c->runtime_id)
        fprintf(stderr, "sxsprof: the profiler in %s closed the control connection before it reported\n", target);
      else
        fprintf(stderr, "sxsprof: the profiler in %s closed the control connection without writing a profile\n",
                target);
      return 1;
    }
  }
}

/* Why an AttachProfiler request got no answer. */
static const char *attach_failure(int r) {
  switch (-r) {
  case ETIMEDOUT: return "the runtime did not answer in time";
  case ECONNRESET: return "the runtime closed the connection without answering";
  case EPROTO: return "the answer is not the diagnostics protocol";
  case EMSGSIZE: return "the request does not fit in one message (paths too long)";
  case EINVAL: return "the profiler's path is not valid UTF-8";
  default: return g_strerror(-r);
  }
}

/* HRESULTs of an attach that are about the library itself: the message names it. */
static gboolean library_problem(guint32 hr) {
  return hr == 0x80070002u || hr == 0x80070003u || hr == 0x80070005u || hr == 0x8007000Bu || hr == 0x8007007Eu;
}

/* Where the profiler's log lines go, and what to relay of them. */
typedef struct {
  char *path; /* NULL: the target's stderr */
  gint64 offset;
} AttachLog;

/* From the AttachProfiler request to the profile: returns the exit status. */
static int attach_run(const AttachOptions *o, const SxsDiagEndpoint *ep, const char *library, const char *config,
                      const SxsConfig *cfg, const char *control_path, guint formats, const AttachLog *log) {
  g_autofree char *label = endpoint_label(ep);
  g_autofree char *target = g_strdup_printf("runtime %s of process %d", label, (int)o->pid);
  SxsDiagGuid clsid;
  sxs_diag_guid_parse(SXS_PROFILER_CLSID, &clsid);
  g_autofree char *run_id = g_strdup_printf("%d-%" G_GINT64_FORMAT, (int)getpid(), g_get_real_time());
  SxsAttachRequest request = {.config = (char *)config, .control = (char *)control_path, .run_id = run_id};
  gsize data_len = 0;
  g_autofree char *data = sxs__attach_request_format(&request, &data_len);

  Control c = {.fd = -1, .in = g_string_new(NULL)};
  c.listen_fd = control_listen(control_path);
  if (c.listen_fd < 0) {
    fprintf(stderr, "sxsprof: cannot listen on %s: %s\n", control_path, g_strerror(-c.listen_fd));
    g_string_free(c.in, TRUE);
    return 1;
  }
  g_strlcpy(attach_cleanup[0], control_path, sizeof attach_cleanup[0]);

  /* The views of this attach are the files written since now (second resolution: a second back). */
  time_t started = time(NULL) - 1;
  guint32 hr = 0;
  int code = 1;
  int r = sxs_diag_attach_profiler(ep->path, ATTACH_TIMEOUT_MS, &clsid, library, data, data_len, &hr);
  if (r < 0) {
    fprintf(stderr, "sxsprof: the attach request to %s failed: %s\n", target, attach_failure(r));
  } else if (hr != 0) {
    g_autofree char *why = sxs_diag_hresult_describe(hr);
    g_autofree char *which = library_problem(hr) ? g_strdup_printf(" (%s)", library) : g_strdup("");
    fprintf(stderr, "sxsprof: %s refused the profiler: %s%s\n", target, why, which);
  } else {
    sigset_t block, wait_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &wait_mask);
    sigdelset(&wait_mask, SIGINT);
    sigdelset(&wait_mask, SIGTERM);
    sigdelset(&wait_mask, SIGHUP);
    int watch_fd = sxs_diag_process_watch(o->pid);
    g_autoptr(SxsStatus) line =
        sxs_status_wanted(o->run.quiet) ? sxs_status_new(cfg->output, cfg->output_is_folder, started) : NULL;
    code = control_serve(&c, o, label, target, &wait_mask, watch_fd, line);
    sxs_status_clear(line);
    if (watch_fd >= 0)
      close(watch_fd);
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    if (!o->run.quiet)
      sxsprof_relay_log(log->path, log->offset);
  }
  if (code == 0) {
    fprintf(stderr, "sxsprof: attached to runtime %s of pid %d (runtime %s in the profile); profile: %s\n", label,
            (int)o->pid, c.runtime_id ? c.runtime_id : "?", c.written);
    if (!o->run.quiet) {
      g_autofree char *why = NULL;
      SxsprofProfile *p = sxsprof_profile_load(c.written, 0, &why);
      if (p) {
        if (sxsprof_profile_activity(p) == 0)
          explain_idle(o->pid);
        sxsprof_print_views(p, formats, started);
        sxsprof_print_flame_graph(p, formats, started);
        sxsprof_profile_free(p);
      } else {
        fprintf(stderr, "sxsprof: %s\n", why);
        code = 1;
      }
    }
  }
  if (c.fd >= 0)
    close(c.fd);
  close(c.listen_fd);
  g_unlink(control_path);
  g_string_free(c.in, TRUE);
  g_free(c.runtime_id);
  g_free(c.version);
  g_free(c.written);
  g_free(c.error);
  return code;
}

int sxsprof_attach_main(int argc, char **argv) {
  AttachOptions o = {0};
  if (parse_attach_options(argc, argv, &o) < 0)
    return 2;
  if (kill(o.pid, 0) < 0) {
    if (errno == ESRCH)
      fprintf(stderr, "sxsprof: no process %d\n", (int)o.pid);
    else
      fprintf(stderr, "sxsprof: no permission to attach to process %d (it runs as another user)\n", (int)o.pid);
    return 1;
  }
  g_autofree char *library = sxsprof_find_library();
  if (!library) {
    fprintf(stderr, "sxsprof: cannot find libsxsprof.so next to this program; set SXSPROF_LIBRARY\n");
    return 2;
  }
  int err = 0;
  g_autoptr(GPtrArray) eps = sxs_diag_find_endpoints(o.pid, &err);
  if (!eps) {
    if (err == -ESRCH)
      fprintf(stderr, "sxsprof: no process %d\n", (int)o.pid);
    else
      fprintf(stderr, "sxsprof: cannot inspect process %d: %s\n", (int)o.pid, g_strerror(-err));
    return 1;
  }
  if (eps->len == 0) {
    explain_no_channel(o.pid);
    return 1;
  }
  const SxsDiagEndpoint *ep = choose_runtime(o.pid, eps, o.runtime);
  if (!ep)
    return 1;

  g_auto(SxsprofPrepared) prepared = {0};
  if (sxsprof_prepare(&o.run, (int)o.pid, "nothing was attached", &prepared) != 0)
    return 2;
  const char *config = prepared.path;
  SxsConfig *cfg = prepared.cfg;
  guint formats = o.run.format ? o.run.formats : cfg->formats | SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY);
  g_strlcpy(attach_cleanup[1], config, sizeof attach_cleanup[1]);
  /* The profiler's log lines of this attach are those appended from now on. */
  AttachLog log = {0};
  if (cfg->log_kind == SXS_LOG_FILE) {
    log.path = g_strdup(cfg->log_path);
  } else if (cfg->log_kind == SXS_LOG_DEFAULT) {
    g_autofree char *unused = NULL;
    sxs__process_output_paths(cfg->output, cfg->output_is_folder, TRUE, (int)o.pid, "x", &unused, &log.path);
  }
  log.offset = sxsprof_file_size(log.path);

  const char *tmpdir = g_getenv("TMPDIR");
  g_autofree char *tmp = g_canonicalize_filename(tmpdir && *tmpdir ? tmpdir : "/tmp", NULL);
  g_autofree char *control_path = g_strdup_printf("%s/sxsprof-attach-%d.sock", tmp, (int)getpid());

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = attach_on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time counts the signals */
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL); /* a closed terminal: as Ctrl-C, so nothing is left in /tmp */
  signal(SIGPIPE, SIG_IGN);

  o.started = time(NULL) - 1;
  int code = attach_run(&o, ep, library, config, cfg, control_path, formats, &log);
  g_unlink(config);
  g_free(log.path);
  return code;
}
