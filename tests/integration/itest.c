/* Shared support for integration tests: child processes with a timeout, temp folders, profiles.
 * Does not know anything about the profiler's internals; it only reads what a run leaves behind. */
#include "itest.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Runs in the child between fork and exec: a process group of its own, so a timeout can kill the
 * child and everything it started. */
static void itest_child_setup(gpointer user_data) {
  (void)user_data;
  setpgid(0, 0);
}

static gint64 itest_now_ms(void) {
  return g_get_monotonic_time() / 1000;
}

/* Appends what is readable on *fd to buf; closes the descriptor and sets it to -1 at end of file. */
static void itest_drain(int *fd, GString *buf) {
  char chunk[8192];
  for (;;) {
    ssize_t n = read(*fd, chunk, sizeof chunk);
    if (n > 0) {
      g_string_append_len(buf, chunk, n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    close(*fd);
    *fd = -1;
    return;
  }
}

/* Environment for a child: the current one with `env` applied ("K=V" sets, "K" removes). */
static char **itest_environ(const char *const *env) {
  char **envp = g_get_environ();
  for (const char *const *e = env; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    if (eq) {
      g_autofree char *key = g_strndup(*e, eq - *e);
      envp = g_environ_setenv(envp, key, eq + 1, TRUE);
    } else {
      envp = g_environ_unsetenv(envp, *e);
    }
  }
  return envp;
}

ItestRun *itest_run_signal(const char *const *argv, const char *const *env, const char *cwd, int timeout_sec,
                           int signal_after_ms, int signo) {
  ItestRun *run = g_new0(ItestRun, 1);
  g_auto(GStrv) envp = itest_environ(env);

  GPid pid = 0;
  int out_fd = -1, err_fd = -1;
  g_autoptr(GError) error = NULL;
  if (!g_spawn_async_with_pipes(cwd, (char **)argv, envp,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDIN_FROM_DEV_NULL,
                                itest_child_setup, NULL, &pid, NULL, &out_fd, &err_fd, &error)) {
    run->exit_code = 127;
    run->out = g_strdup("");
    run->err = g_strdup_printf("itest_run: cannot start %s: %s\n", argv[0], error->message);
    return run;
  }
  /* Also set from the parent: the kill below must not race with the child's own setpgid. */
  setpgid(pid, pid);
  fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
  fcntl(err_fd, F_SETFL, fcntl(err_fd, F_GETFL) | O_NONBLOCK);

  GString *out = g_string_new(NULL), *err = g_string_new(NULL);
  gint64 deadline = timeout_sec > 0 ? itest_now_ms() + (gint64)timeout_sec * 1000 : G_MAXINT64;
  gint64 drain_deadline = G_MAXINT64; /* set once the child has exited */
  gint64 signal_at = signal_after_ms > 0 ? itest_now_ms() + signal_after_ms : G_MAXINT64;
  gboolean exited = FALSE;
  int status = 0;
  while (out_fd >= 0 || err_fd >= 0 || !exited) {
    if (!exited) {
      pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        exited = TRUE;
        drain_deadline = itest_now_ms() + 5000;
      }
    }
    gint64 now = itest_now_ms();
    if (!exited && now >= signal_at) {
      kill(pid, signo);
      signal_at = G_MAXINT64;
    }
    if (!run->timed_out && now >= deadline) {
      run->timed_out = TRUE;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      /* Whatever the killed group still holds open is closed within a moment. */
      deadline = now + 2000;
    } else if (run->timed_out && now >= deadline) {
      break;
    }
    struct pollfd fds[2];
    nfds_t nfds = 0;
    if (out_fd >= 0)
      fds[nfds++] = (struct pollfd){.fd = out_fd, .events = POLLIN};
    if (err_fd >= 0)
      fds[nfds++] = (struct pollfd){.fd = err_fd, .events = POLLIN};
    gint64 wait_ms = MIN(deadline - now, 50);
    if (nfds > 0) {
      poll(fds, nfds, (int)MAX(wait_ms, 0));
    } else {
      g_usleep((gulong)MAX(wait_ms, 0) * 1000);
    }
    if (out_fd >= 0)
      itest_drain(&out_fd, out);
    if (err_fd >= 0)
      itest_drain(&err_fd, err);
    /* Pipes held open by a grandchild after the child exited: stop reading after a grace period
     * rather than wait forever. */
    if (exited && itest_now_ms() >= drain_deadline)
      break;
  }
  if (out_fd >= 0)
    close(out_fd);
  if (err_fd >= 0)
    close(err_fd);
  if (!exited) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  g_spawn_close_pid(pid);

  if (WIFEXITED(status))
    run->exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    run->exit_code = 128 + WTERMSIG(status);
  else
    run->exit_code = -1;
  run->out = g_string_free(out, FALSE);
  run->err = g_string_free(err, FALSE);
  return run;
}

ItestRun *itest_run(const char *const *argv, const char *const *env, const char *cwd, int timeout_sec) {
  return itest_run_signal(argv, env, cwd, timeout_sec, 0, 0);
}

void itest_run_free(ItestRun *run) {
  if (!run)
    return;
  g_free(run->out);
  g_free(run->err);
  g_free(run);
}

const char *itest_env(const char *name) {
  const char *value = g_getenv(name);
  if (!value || !*value)
    g_printerr("itest: %s is not set (run the test through ctest)\n", name);
  g_assert_nonnull(value);
  g_assert_cmpstr(value, !=, "");
  return value;
}

char *itest_app(const char *name) {
  g_autofree char *file = g_strconcat(name, ".dll", NULL);
  char *path = g_build_filename(itest_env("SXS_APPS_DIR"), name, file, NULL);
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
    g_printerr("itest: app not built: %s (run tests/setup/build-apps.sh)\n", path);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
  return path;
}

char **itest_profiler_env(const char *config) {
  GPtrArray *env = g_ptr_array_new();
  g_ptr_array_add(env, g_strdup("CORECLR_ENABLE_PROFILING=1"));
  g_ptr_array_add(env, g_strdup("CORECLR_PROFILER={0560F28C-910E-4FDA-94A2-5FACD8966E48}"));
  g_ptr_array_add(env, g_strconcat("CORECLR_PROFILER_PATH=", itest_env("SXS_PROFILER"), NULL));
  if (config)
    g_ptr_array_add(env, g_strconcat("SXSPROF_CONFIG=", config, NULL));
  else
    g_ptr_array_add(env, g_strdup("SXSPROF_CONFIG"));
  /* A launcher's variables would change where the profile goes and which process owns it. */
  g_ptr_array_add(env, g_strdup("SXSPROF_OUTPUT"));
  g_ptr_array_add(env, g_strdup("SXSPROF_OWNER_PID"));
  g_ptr_array_add(env, g_strdup("SXSPROF_RUN_ID"));
  g_ptr_array_add(env, g_strdup("SXSPROF_LAUNCHER"));
  g_ptr_array_add(env, NULL);
  return (char **)g_ptr_array_free(env, FALSE);
}

char *itest_tmpdir(void) {
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp("sxs-itest-XXXXXX", &error);
  g_assert_no_error(error);
  return dir;
}

static int itest_remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb;
  (void)type;
  (void)ftw;
  remove(path);
  return 0;
}

void itest_rmtree(const char *path) {
  if (!path || !*path || g_strcmp0(path, "/") == 0)
    return;
  nftw(path, itest_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void itest_scratch_setup(ItestScratch *s, gconstpointer data) {
  (void)data;
  s->dir = itest_tmpdir();
  s->output = g_build_filename(s->dir, "prof", NULL);
  s->profile = g_strconcat(s->output, ".json", NULL);
}

void itest_scratch_teardown(ItestScratch *s, gconstpointer data) {
  (void)data;
  itest_rmtree(s->dir);
  g_free(s->dir);
  g_free(s->output);
  g_free(s->profile);
}

char *itest_write_file(const char *dir, const char *name, const char *text) {
  char *path = g_build_filename(dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_file_set_contents(path, text, -1, &error);
  g_assert_no_error(error);
  return path;
}

/* A version-2 stack's frames written out as version 1 had them: each index into the frame table
 * replaced by a copy of that frame, with its "sp" ("0x..." as version 1 spelled it). */
static void itest_expand_stacks(JsonArray *table, JsonObject *holder) {
  if (!holder || !json_object_has_member(holder, "stacks"))
    return;
  JsonArray *stacks = json_object_get_array_member(holder, "stacks");
  for (guint i = 0; stacks && i < json_array_get_length(stacks); i++) {
    JsonObject *st = json_array_get_object_element(stacks, i);
    JsonArray *indices = json_object_get_array_member(st, "frames");
    JsonArray *sps = json_object_has_member(st, "sp") ? json_object_get_array_member(st, "sp") : NULL;
    g_assert_nonnull(indices);
    JsonArray *frames = json_array_new();
    guint64 sp = 0;
    for (guint j = 0; j < json_array_get_length(indices); j++) {
      gint64 k = json_array_get_int_element(indices, j);
      g_assert_cmpint(k, >=, 0);
      g_assert_cmpint(k, <, json_array_get_length(table));
      /* A copy of its own (json_node_copy would share the table's object). */
      JsonObject *from = json_array_get_object_element(table, (guint)k);
      JsonObject *frame = json_object_new();
      GList *names = json_object_get_members(from);
      for (GList *n = names; n; n = n->next)
        json_object_set_member(frame, n->data, json_node_copy(json_object_get_member(from, n->data)));
      g_list_free(names);
      if (sps) {
        sp += (guint64)json_array_get_int_element(sps, j);
        g_autofree char *text = g_strdup_printf("0x%" G_GINT64_MODIFIER "x", sp);
        json_object_set_string_member(frame, "sp", text);
      }
      json_array_add_object_element(frames, frame);
    }
    json_object_set_array_member(st, "frames", frames);
    json_object_remove_member(st, "sp");
  }
}

JsonNode *itest_load_json(const char *path) {
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  if (!json_parser_load_from_file(parser, path, &error))
    g_printerr("itest: cannot parse %s: %s\n", path, error->message);
  g_assert_no_error(error);
  JsonNode *root = json_node_copy(json_parser_get_root(parser));
  g_assert_nonnull(root);
  JsonObject *o = JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
  if (o && json_object_has_member(o, "frame_table")) {
    JsonArray *table = json_object_get_array_member(o, "frame_table");
    itest_expand_stacks(table, o);
    static const char *const holders[] = {"samples", "exceptions", "contention", "allocations"};
    for (guint i = 0; i < G_N_ELEMENTS(holders); i++)
      if (json_object_has_member(o, holders[i]))
        itest_expand_stacks(table, json_object_get_object_member(o, holders[i]));
  }
  return root;
}

/* The "runtimes" array of a profile, or NULL. */
static JsonArray *itest_profile_runtimes(JsonNode *profile) {
  if (!profile || !JSON_NODE_HOLDS_OBJECT(profile))
    return NULL;
  JsonObject *root = json_node_get_object(profile);
  if (!json_object_has_member(root, "runtimes"))
    return NULL;
  JsonNode *node = json_object_get_member(root, "runtimes");
  return JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
}

JsonObject *itest_profile_runtime(JsonNode *profile, gint64 id) {
  JsonArray *runtimes = itest_profile_runtimes(profile);
  if (!runtimes)
    return NULL;
  for (guint i = 0; i < json_array_get_length(runtimes); i++) {
    JsonNode *node = json_array_get_element(runtimes, i);
    if (!JSON_NODE_HOLDS_OBJECT(node))
      continue;
    JsonObject *rt = json_node_get_object(node);
    if (json_object_has_member(rt, "id") && json_object_get_int_member(rt, "id") == id)
      return rt;
  }
  return NULL;
}

guint itest_profile_runtime_count(JsonNode *profile) {
  JsonArray *runtimes = itest_profile_runtimes(profile);
  return runtimes ? json_array_get_length(runtimes) : 0;
}

gint64 itest_runtime_counter(JsonObject *runtime, const char *name) {
  g_assert_nonnull(runtime);
  JsonObject *counters =
      json_object_has_member(runtime, "counters") ? json_object_get_object_member(runtime, "counters") : NULL;
  if (!counters || !json_object_has_member(counters, name))
    g_printerr("itest: runtime has no counter %s\n", name);
  g_assert_nonnull(counters);
  g_assert_true(json_object_has_member(counters, name));
  return json_object_get_int_member(counters, name);
}

/* functions[] of a runtime object, or NULL. */
static JsonArray *itest_runtime_functions(JsonObject *runtime) {
  if (!runtime || !json_object_has_member(runtime, "functions"))
    return NULL;
  JsonNode *node = json_object_get_member(runtime, "functions");
  return JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
}

JsonObject *itest_runtime_function(JsonObject *runtime, const char *name) {
  JsonArray *functions = itest_runtime_functions(runtime);
  if (!functions)
    return NULL;
  for (guint i = 0; i < json_array_get_length(functions); i++) {
    JsonNode *node = json_array_get_element(functions, i);
    if (!JSON_NODE_HOLDS_OBJECT(node))
      continue;
    JsonObject *fn = json_node_get_object(node);
    if (g_strcmp0(json_object_get_string_member_with_default(fn, "name", NULL), name) == 0)
      return fn;
  }
  return NULL;
}

guint itest_runtime_count_functions(JsonObject *runtime, const char *prefix) {
  JsonArray *functions = itest_runtime_functions(runtime);
  guint count = 0;
  if (!functions)
    return 0;
  for (guint i = 0; i < json_array_get_length(functions); i++) {
    JsonNode *node = json_array_get_element(functions, i);
    if (!JSON_NODE_HOLDS_OBJECT(node))
      continue;
    const char *name = json_object_get_string_member_with_default(json_node_get_object(node), "name", NULL);
    if (name && g_str_has_prefix(name, prefix))
      count++;
  }
  return count;
}

ItestProc *itest_spawn(const char *const *argv, const char *const *env, const char *cwd, const char *out_path,
                       const char *err_path, gboolean with_stdin_pipe) {
  g_auto(GStrv) envp = itest_environ(env);
  int in_pipe[2] = {-1, -1};
  if (with_stdin_pipe)
    g_assert_cmpint(pipe2(in_pipe, O_CLOEXEC), ==, 0);
  int out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  g_assert_cmpint(out_fd, >=, 0);
  g_assert_cmpint(err_fd, >=, 0);
  pid_t pid = fork();
  g_assert_cmpint(pid, >=, 0);
  if (pid == 0) {
    setpgid(0, 0);
    int in_fd = with_stdin_pipe ? in_pipe[0] : open("/dev/null", O_RDONLY);
    dup2(in_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    if (cwd && chdir(cwd) != 0)
      _exit(126);
    execvpe(argv[0], (char *const *)argv, envp);
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_fd);
  close(err_fd);
  ItestProc *p = g_new0(ItestProc, 1);
  p->pid = pid;
  p->out_path = g_strdup(out_path);
  p->err_path = g_strdup(err_path);
  p->stdin_fd = -1;
  if (with_stdin_pipe) {
    close(in_pipe[0]);
    p->stdin_fd = in_pipe[1];
  }
  return p;
}

void itest_proc_close_stdin(ItestProc *p) {
  if (p->stdin_fd >= 0)
    close(p->stdin_fd);
  p->stdin_fd = -1;
}

int itest_proc_wait(ItestProc *p, int timeout_sec) {
  gint64 deadline = itest_now_ms() + (gint64)timeout_sec * 1000;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(p->pid, &status, WNOHANG);
    if (r == p->pid)
      break;
    if (itest_now_ms() >= deadline) {
      kill(-p->pid, SIGKILL);
      kill(p->pid, SIGKILL);
      waitpid(p->pid, &status, 0);
      p->pid = 0;
      return -1;
    }
    g_usleep(20 * 1000);
  }
  p->pid = 0;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

void itest_proc_free(ItestProc *p) {
  if (!p)
    return;
  itest_proc_close_stdin(p);
  if (p->pid > 0) {
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
    waitpid(p->pid, NULL, 0);
  }
  g_free(p->out_path);
  g_free(p->err_path);
  g_free(p);
}

char *itest_read_file(const char *path) {
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return g_strdup("");
  return text;
}

gboolean itest_wait_for_text(const char *path, const char *needle, int timeout_sec) {
  gint64 deadline = itest_now_ms() + (gint64)timeout_sec * 1000;
  for (;;) {
    g_autofree char *text = itest_read_file(path);
    if (strstr(text, needle))
      return TRUE;
    if (itest_now_ms() >= deadline)
      return FALSE;
    g_usleep(50 * 1000);
  }
}

/* Numeric component-wise comparison of "a.b.c" versions. */
int itest_version_cmp(const char *a, const char *b) {
  while (*a || *b) {
    long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);
    if (x != y)
      return x < y ? -1 : 1;
    if (*a == '.')
      a++;
    if (*b == '.')
      b++;
    if ((!*a) != (!*b))
      return *a ? 1 : -1;
    if (!g_ascii_isdigit(*a) || !g_ascii_isdigit(*b))
      break;
  }
  return 0;
}
