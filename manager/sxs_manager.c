/* The process-wide registry: config in force, log, runtimes, threads, functions and modules.
 *
 *            runtime 1 (libcoreclr.so #1)            runtime 2 (libcoreclr.so #2)
 *                     |                                        |
 *     DllGetClassObject / CreateInstance          DllGetClassObject / CreateInstance
 *                     v                                        v
 *             SxsCallback #1  ---------.          .------  SxsCallback #2
 *          (callback/, per runtime)    |          |     (callback/, per runtime)
 *                                      v          v
 *                           +---------------------------------+
 *                           | registry (this file, singleton) |
 *                           |  runtimes: id -> SxsRuntime     |
 *                           |  threads: (id, ThreadID) -> ..  |
 *                           |  config, log, profile path      |
 *                           +---------------------------------+
 *
 * Every callback object holds a pointer to its own SxsRuntime and only ever records into it, so
 * an ID handed out by one runtime never reaches another. The registry never forgets a runtime:
 * declined ones are reported too. It is the bottom of manager/: the recorders (record/) and the
 * output (output/) call it, it calls none of them, and it writes no profile: output/ copies it
 * through sxs__manager_copy() and writes.
 *
 * Lock order: manager.lock, then a runtime's lock; log_lock is a leaf. Nothing here runs on a hot
 * or signal path. */
#include "sxs_manager.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sxs_policy.h"

typedef struct {
  int runtime_id;
  uint64_t thread_id;
} SxsThreadKey;

/* The singleton. `lock` guards runtimes, next_id, threads and profile_path; `log_lock` guards
 * log_fd and log_path. Each SxsRuntime has its own lock for its tables. config, config_error,
 * process and library_path are written once at creation (and by an attach's config, or by
 * reset_for_tests, with no runtime profiled) and read without a lock afterwards. */
typedef struct {
  GMutex lock;
  GMutex log_lock;
  SxsConfig *config; /* NULL when the config failed; then config_error says why */
  char *config_error;
  SxsProcessInfo *process; /* this process: pid, parent, command line */
  char *library_path;      /* this library's file, NULL when linked into a test program */
  char *profile_path;      /* where this process's profile goes, after any fallback */
  int log_fd;              /* -1: no log (yet); STDERR_FILENO with log=stderr (not owned) */
  char *log_path;          /* the log file, or "stderr", or NULL */
  gboolean log_pending;    /* log_path is to be opened at the first line */
  GHashTable *runtimes;    /* int id -> SxsRuntime* ; owned, freed only by reset_for_tests */
  int next_id;
  GHashTable *threads; /* SxsThreadKey* -> SxsThreadRecord* ; both owned */
  gint quiet;          /* sxs__manager_set_quiet: atomic */
} SxsManager;

static SxsManager manager;
static gsize manager_ready;

static guint thread_key_hash(gconstpointer p) {
  const SxsThreadKey *k = p;
  return g_int64_hash(&k->thread_id) ^ (guint)k->runtime_id * 2654435761u;
}

static gboolean thread_key_equal(gconstpointer a, gconstpointer b) {
  const SxsThreadKey *x = a, *y = b;
  return x->runtime_id == y->runtime_id && x->thread_id == y->thread_id;
}

static void runtime_free(gpointer p) {
  SxsRuntime *rt = p;
  g_hash_table_unref(rt->changed_functions);
  g_hash_table_unref(rt->functions);
  g_hash_table_unref(rt->modules);
  g_hash_table_unref(rt->features_off);
  g_mutex_clear(&rt->lock);
  g_free(rt->reason);
  g_free(rt->version);
  g_free(rt->clr_version);
  g_free(rt->version_source);
  g_free(rt->path);
  g_free(rt);
}

void sxs__manager_log(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_autofree char *line = g_strdup_printf("sxsprof[%d]: %s\n", (int)getpid(), msg);
  size_t len = strlen(line);
  g_mutex_lock(&manager.log_lock);
  if (manager.log_fd < 0 && manager.log_pending) {
    /* Opened on the first line, so a process with nothing to say leaves no empty log behind. */
    manager.log_fd = open(manager.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    manager.log_pending = FALSE;
    if (manager.log_fd < 0)
      g_clear_pointer(&manager.log_path, g_free);
  }
  if (manager.log_fd >= 0) {
    /* One write per line: with O_APPEND, lines of processes sharing the log stay whole. */
    ssize_t n;
    do
      n = write(manager.log_fd, line, len);
    while (n < 0 && errno == EINTR);
  }
  g_mutex_unlock(&manager.log_lock);
}

/* Keeps the library mapped until the process ends, and returns its path (NULL when linked
 * statically into a test program). Each runtime's loader may dlclose it (after a decline, or at
 * its own teardown) while another runtime still uses it, and the exit-time writer must still be
 * there when the process exits. */
static char *pin_library(void) {
  Dl_info info;
  if (dladdr((void *)pin_library, &info) == 0 || !info.dli_fname)
    return NULL;
  if (!g_str_has_suffix(info.dli_fname, ".so"))
    return NULL;
  void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
  (void)h; /* the handle is deliberately kept: NODELETE pins the object */
  char *resolved = realpath(info.dli_fname, NULL);
  char *path = g_strdup(resolved ? resolved : info.dli_fname);
  free(resolved);
  return path;
}

/* Opens the log named by the config (or, when the config failed, the default one beside the
 * default profile). A log that cannot be opened leaves the profiler silent: it never falls back
 * to the process's stderr. Called with no runtime active yet. */
static void open_log(SxsLogKind kind, const char *path) {
  g_mutex_lock(&manager.log_lock);
  if (manager.log_fd > STDERR_FILENO)
    close(manager.log_fd);
  manager.log_fd = -1;
  manager.log_pending = FALSE;
  g_clear_pointer(&manager.log_path, g_free);
  if (kind == SXS_LOG_STDERR) {
    manager.log_fd = STDERR_FILENO;
    manager.log_path = g_strdup("stderr");
  } else if (path) {
    manager.log_path = g_strdup(path);
    manager.log_pending = TRUE;
  }
  g_mutex_unlock(&manager.log_lock);
}

/* SXSPROF_OUTPUT (set by the sxsprof launcher, which must know where profiles go) wins over the
 * config file's output=. A bad value is logged and ignored. Returns TRUE when an output was given
 * explicitly (by the variable or the config). */
static gboolean apply_env_output(SxsConfig *cfg, char **ret_why) {
  const char *output = g_getenv(SXS_OUTPUT_ENV);
  if (output && *output) {
    g_autoptr(GError) error = NULL;
    if (sxs__config_set_output(cfg, output, SXS_OUTPUT_ENV, &error))
      return TRUE;
    *ret_why = g_strdup(error->message);
  }
  return sxs__config_output_explicit(cfg);
}

/* Picks this process's profile and log files (see sxs_process.h) and falls back to
 * ./sxsprof-<pid>.json, then /tmp/sxsprof-<pid>.json, when the output cannot be written. */
static void choose_paths(SxsConfig *cfg, gboolean explicit_output) {
  gboolean owner = !explicit_output || cfg->output_is_folder ||
                   sxs__process_owns_prefix(manager.process->pid, g_getenv(SXS_OWNER_PID_ENV), manager.library_path);
  g_autofree char *program =
      sxs__process_program_name(manager.process->executable, (const char *const *)manager.process->argv);
  g_autofree char *profile = NULL, *log = NULL;
  sxs__process_output_paths(cfg->output, cfg->output_is_folder, owner, manager.process->pid, program, &profile, &log);
  g_autofree char *problem = NULL;
  if (sxs__config_check_output(cfg->output, cfg->output_is_folder, &problem) < 0) {
    g_autofree char *here = sxs__config_default_output(NULL, manager.process->pid);
    g_autofree char *tmp = sxs__config_default_output(g_get_tmp_dir(), manager.process->pid);
    const char *fallback = sxs__config_check_output(here, FALSE, NULL) == 0 ? here : tmp;
    g_free(profile);
    g_free(log);
    sxs__process_output_paths(fallback, FALSE, TRUE, manager.process->pid, program, &profile, &log);
  }
  g_mutex_lock(&manager.lock);
  manager.profile_path = g_strdup(profile);
  g_mutex_unlock(&manager.lock);
  open_log(cfg->log_kind, cfg->log_kind == SXS_LOG_FILE ? cfg->log_path : log);
  if (problem)
    sxs__manager_log("%s; the profile goes to %s instead", problem, manager.profile_path);
}

/* Loads the config and decides where this process's profile and log go. Called at creation and
 * by reset_for_tests, with no runtime active. */
static void load_config(void) {
  g_autoptr(GError) error = NULL;
  manager.config = sxs__config_load_env(&error);
  g_autofree char *env_problem = NULL;
  if (!manager.config) {
    manager.config_error = g_strdup(error ? error->message : "unknown config error");
    /* The error is logged where the default log would be, never on the program's stderr. */
    g_autoptr(SxsConfig) fallback = sxs__config_new_default();
    gboolean explicit_output = apply_env_output(fallback, &env_problem);
    choose_paths(fallback, explicit_output);
    g_clear_pointer(&manager.profile_path, g_free);
    sxs__manager_log("%s; profiling is off for this process", manager.config_error);
    return;
  }
  gboolean explicit_output = apply_env_output(manager.config, &env_problem);
  choose_paths(manager.config, explicit_output);
  if (env_problem)
    sxs__manager_log("%s; using %s", env_problem, manager.profile_path);
}

/* GLib messages of the library's own domain (a failed g_return_if_fail, a warning) are lines of
 * the log like any other: GLib's default handler would print them on the program's stderr.
 * Context: any thread; the log takes its own lock and logs nothing itself. */
static void log_glib_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
  (void)data;
  const char *what = level & G_LOG_LEVEL_ERROR      ? "error"
                     : level & G_LOG_LEVEL_CRITICAL ? "critical"
                     : level & G_LOG_LEVEL_WARNING  ? "warning"
                                                    : "message";
  sxs__manager_log("%s %s: %s", domain ? domain : "GLib", what, message ? message : "");
}

static void manager_init(void) {
  g_mutex_init(&manager.lock);
  g_mutex_init(&manager.log_lock);
  manager.log_fd = -1;
  g_log_set_handler(G_LOG_DOMAIN, G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, log_glib_message, NULL);
  manager.runtimes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, runtime_free);
  manager.threads = g_hash_table_new_full(thread_key_hash, thread_key_equal, g_free, sxs__thread_record_free);
  manager.next_id = 1;
  manager.process = sxs__process_info_self();
  load_config();
}

void sxs__manager_ensure(void) {
  if (g_once_init_enter(&manager_ready)) {
    manager.library_path = pin_library();
    manager_init();
    g_once_init_leave(&manager_ready, 1);
  }
}

gboolean sxs__manager_active(void) {
  return g_atomic_pointer_get(&manager_ready) && manager.config != NULL;
}

gboolean sxs__manager_config_failed(void) {
  sxs__manager_ensure();
  return manager.config == NULL;
}

static int compare_runtime_ids(gconstpointer a, gconstpointer b) {
  const SxsRuntime *x = *(SxsRuntime *const *)a, *y = *(SxsRuntime *const *)b;
  return (x->id > y->id) - (x->id < y->id);
}

/* The registered runtimes in id order. Called with manager.lock held. */
static GPtrArray *runtimes_sorted_locked(void) {
  GPtrArray *all = g_ptr_array_new();
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, manager.runtimes);
  while (g_hash_table_iter_next(&it, NULL, &value))
    g_ptr_array_add(all, value);
  g_ptr_array_sort(all, compare_runtime_ids);
  return all;
}

static char *describe(const SxsRuntime *rt) {
  return g_strdup_printf("runtime %d (%s at %s)", rt->id, rt->version ? rt->version : "unknown version",
                         rt->path ? rt->path : "unknown path");
}

static void decline_locked(SxsRuntime *rt, const char *reason) {
  g_mutex_lock(&rt->lock);
  rt->status = SXS_RUNTIME_DECLINED;
  g_free(rt->reason);
  rt->reason = g_strdup(reason);
  g_mutex_unlock(&rt->lock);
}

/* Identities of the registered runtimes other than `except`, for the policy: every runtime not
 * declined, or only those already profiled. Called with manager.lock held; the identities borrow
 * the runtimes' strings. */
static GPtrArray *identities_locked(const SxsRuntime *except, gboolean profiled_only) {
  g_autoptr(GPtrArray) all = runtimes_sorted_locked();
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < all->len; i++) {
    SxsRuntime *o = all->pdata[i];
    if (o == except || o->status == SXS_RUNTIME_DECLINED || (profiled_only && o->status != SXS_RUNTIME_PROFILING))
      continue;
    SxsRuntimeIdentity *ident = g_new0(SxsRuntimeIdentity, 1);
    ident->id = o->id;
    ident->version = o->version;
    ident->path = o->path;
    ident->selector_match = o->selector_match;
    g_ptr_array_add(out, ident);
  }
  return out;
}

SxsRuntime *sxs__manager_admit(const char *path, const char *version) {
  sxs__manager_ensure();
  SxsRuntime *rt = g_new0(SxsRuntime, 1);
  g_mutex_init(&rt->lock);
  rt->functions = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, sxs__function_record_free);
  rt->changed_functions = g_hash_table_new(g_direct_hash, g_direct_equal);
  rt->modules = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  rt->features_off = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  rt->path = g_strdup(path);
  rt->version = g_strdup(version);
  rt->status = SXS_RUNTIME_PENDING;

  g_autofree char *reason = NULL;
  g_mutex_lock(&manager.lock);
  rt->id = manager.next_id++;
  if (!manager.config) {
    reason = g_strdup_printf("config error: %s", manager.config_error);
  } else {
    g_autoptr(GPtrArray) admitted = identities_locked(rt, FALSE);
    SxsRuntimeIdentity me = {.id = rt->id, .version = rt->version, .path = rt->path};
    if (sxs__policy_at_create(manager.config, &me, (const SxsRuntimeIdentity *const *)admitted->pdata, admitted->len,
                              &reason) == SXS_DECISION_PROFILE) {
      g_clear_pointer(&reason, g_free);
    }
  }
  if (reason) {
    rt->status = SXS_RUNTIME_DECLINED;
    rt->reason = g_strdup(reason);
  }
  g_hash_table_insert(manager.runtimes, GINT_TO_POINTER(rt->id), rt);
  g_mutex_unlock(&manager.lock);

  /* A config error was already reported once; one line per runtime would only repeat it. */
  if (reason && manager.config) {
    g_autofree char *who = describe(rt);
    sxs__manager_log("%s declined: %s", who, reason);
  }
  return rt;
}

void sxs__manager_version_source(SxsRuntime *rt, const char *source) {
  g_mutex_lock(&rt->lock);
  g_free(rt->version_source);
  rt->version_source = g_strdup(source);
  g_mutex_unlock(&rt->lock);
}

void sxs__manager_allocation_sampling(SxsRuntime *rt, const char *event) {
  g_mutex_lock(&rt->lock);
  rt->allocation_sampling = event;
  g_mutex_unlock(&rt->lock);
}

gboolean sxs__manager_initialize(SxsRuntime *rt, const char *path, const char *version, const char *clr_version,
                                 const SxsCapabilities *caps) {
  g_autofree char *reason = NULL;
  /* Matching the selector resolves paths: done before any lock is taken. Only this runtime's
   * own thread writes its identity, so reading it here is safe. */
  int match = SXS_MATCH_UNKNOWN;
  if (manager.config && manager.config->mode == SXS_MODE_PICK_ONE)
    match = sxs__config_selector_matches(manager.config, version ? version : rt->version, path ? path : rt->path)
                ? SXS_MATCH_YES
                : SXS_MATCH_NO;
  g_mutex_lock(&manager.lock);
  g_mutex_lock(&rt->lock);
  rt->selector_match = match;
  if (path) {
    g_free(rt->path);
    rt->path = g_strdup(path);
  }
  if (version) {
    g_free(rt->version);
    rt->version = g_strdup(version);
  }
  g_free(rt->clr_version);
  rt->clr_version = g_strdup(clr_version);
  if (caps)
    rt->caps = *caps;
  if (caps && caps->attached)
    rt->attached_unix_ms = g_get_real_time() / 1000;
  g_mutex_unlock(&rt->lock);

  if (!manager.config) {
    reason = g_strdup_printf("config error: %s", manager.config_error);
  } else {
    g_autoptr(GPtrArray) profiled = identities_locked(rt, TRUE);
    SxsRuntimeIdentity me = {.id = rt->id, .version = rt->version, .path = rt->path, .selector_match = match};
    if (sxs__policy_at_initialize(manager.config, &me, (const SxsRuntimeIdentity *const *)profiled->pdata,
                                  profiled->len, &reason) == SXS_DECISION_PROFILE)
      g_clear_pointer(&reason, g_free);
  }
  if (reason) {
    decline_locked(rt, reason);
  } else {
    g_mutex_lock(&rt->lock);
    rt->status = SXS_RUNTIME_PROFILING;
    g_mutex_unlock(&rt->lock);
  }
  g_mutex_unlock(&manager.lock);

  if (reason && manager.config) {
    g_autofree char *who = describe(rt);
    sxs__manager_log("%s declined: %s", who, reason);
  }
  return reason == NULL;
}

void sxs__manager_attach_ops(SxsRuntime *rt, const SxsRuntimeOps *ops, gpointer instance) {
  g_mutex_lock(&rt->lock);
  rt->ops = ops;
  rt->ops_instance = ops ? instance : NULL;
  g_mutex_unlock(&rt->lock);
}

/* The instance stays alive while the runtime can call the profiler, and the operation guards
 * itself against Shutdown; the lock is not held across the call into the runtime. */
int sxs__manager_function_name(SxsRuntime *rt, uint64_t function_id, char **ret_name, char **ret_module) {
  g_mutex_lock(&rt->lock);
  const SxsRuntimeOps *ops = rt->ops;
  gpointer instance = rt->ops_instance;
  g_mutex_unlock(&rt->lock);
  if (!ops || !ops->function_name)
    return -ESHUTDOWN;
  return ops->function_name(instance, function_id, ret_name, ret_module);
}

guint sxs__manager_stitch_targets(SxsStitchTarget *out, SxsStitchRuntime *ret_runtimes, guint max, const char **skipped,
                                  guint max_skipped, guint *ret_n_skipped) {
  guint n = 0, n_skipped = 0;
  g_mutex_lock(&manager.lock);
  g_autoptr(GPtrArray) all = runtimes_sorted_locked();
  for (guint i = 0; i < all->len; i++) {
    SxsRuntime *rt = all->pdata[i];
    const char *why = NULL;
    g_mutex_lock(&rt->lock);
    if (rt->status == SXS_RUNTIME_DECLINED)
      why = "declined";
    else if (rt->shut_down)
      why = "shut down";
    else if (rt->status != SXS_RUNTIME_PROFILING || !rt->ops || !rt->ops->owns_ip || !rt->ops->walk)
      why = "starting";
    else if (g_hash_table_contains(rt->features_off, "stacks"))
      why = "stacks off";
    else if (n == max)
      why = "too many runtimes";
    if (!why)
      out[n++] = (SxsStitchTarget){
          .runtime = rt,
          .stitch = {.runtime_id = rt->id,
                     .user = rt->ops_instance,
                     .owns_ip = rt->ops->owns_ip,
                     .walk = rt->ops->walk},
          .ops = rt->ops,
          .can_suspend = rt->caps.suspend,
      };
    else if (n_skipped < max_skipped)
      skipped[n_skipped++] = why;
    g_mutex_unlock(&rt->lock);
  }
  g_mutex_unlock(&manager.lock);
  for (guint i = 0; ret_runtimes && i < n; i++)
    ret_runtimes[i] = out[i].stitch;
  if (ret_n_skipped)
    *ret_n_skipped = n_skipped;
  return n;
}

SxsRuntime *sxs__manager_runtime(int id) {
  sxs__manager_ensure();
  g_mutex_lock(&manager.lock);
  SxsRuntime *rt = manager.runtimes ? g_hash_table_lookup(manager.runtimes, GINT_TO_POINTER(id)) : NULL;
  g_mutex_unlock(&manager.lock);
  return rt;
}

int sxs__manager_recorded_function(SxsRuntime *rt, uint64_t function_id, char **ret_name, char **ret_module) {
  g_mutex_lock(&rt->lock);
  SxsFunctionRecord *f = g_hash_table_lookup(rt->functions, &function_id);
  if (f) {
    *ret_name = g_strdup(f->name);
    *ret_module = g_strdup(f->module);
  }
  g_mutex_unlock(&rt->lock);
  return f ? 0 : -ENOENT;
}

void sxs__manager_capabilities(SxsRuntime *rt, SxsCapabilities *ret_caps) {
  g_mutex_lock(&rt->lock);
  *ret_caps = rt->caps;
  g_mutex_unlock(&rt->lock);
}

const SxsConfig *sxs__manager_config(void) {
  sxs__manager_ensure();
  return manager.config;
}

void sxs__manager_feature_off(SxsRuntime *rt, const char *feature, const char *why) {
  g_mutex_lock(&rt->lock);
  g_hash_table_replace(rt->features_off, g_strdup(feature), g_strdup(why));
  g_mutex_unlock(&rt->lock);
  g_autofree char *who = describe(rt);
  sxs__manager_log("%s: %s is off: %s", who, feature, why);
}

void sxs__manager_feature_on(SxsRuntime *rt, const char *feature) {
  g_mutex_lock(&rt->lock);
  gboolean was_off = g_hash_table_remove(rt->features_off, feature);
  g_mutex_unlock(&rt->lock);
  g_autofree char *who = describe(rt);
  if (was_off)
    sxs__manager_log("%s: %s is on", who, feature);
}

void sxs__manager_decline(SxsRuntime *rt, const char *reason) {
  g_mutex_lock(&manager.lock);
  decline_locked(rt, reason);
  g_mutex_unlock(&manager.lock);
  g_autofree char *who = describe(rt);
  sxs__manager_log("%s declined: %s", who, reason);
}

/* The record of a function, created on first sight. Called with rt->lock held. */
static SxsFunctionRecord *function_record_locked(SxsRuntime *rt, uint64_t function_id, const char *name,
                                                 const char *module) {
  SxsFunctionRecord *f = g_hash_table_lookup(rt->functions, &function_id);
  if (!f) {
    f = g_new0(SxsFunctionRecord, 1);
    f->name = g_strdup(name ? name : "?");
    f->module = g_strdup(module ? module : "?");
    f->function_id = function_id;
    guint64 *key = g_new(guint64, 1);
    *key = function_id;
    g_hash_table_insert(rt->functions, key, f);
  }
  return f;
}

void sxs__manager_record_function(SxsRuntime *rt, uint64_t function_id, SxsCodeKind kind, const char *name,
                                  const char *module) {
  if (kind == SXS_CODE_JIT)
    sxs__counter_add(&rt->counters.jit_compiled);
  g_mutex_lock(&rt->lock);
  SxsFunctionRecord *f = function_record_locked(rt, function_id, name, module);
  switch (kind) {
  case SXS_CODE_JIT: f->jit_compiled++; break;
  case SXS_CODE_INLINED: f->inlined++; break;
  case SXS_CODE_PRECOMPILED: f->precompiled++; break;
  case SXS_CODE_NAMED: break;
  }
  g_hash_table_add(rt->changed_functions, f);
  g_mutex_unlock(&rt->lock);
}

char *sxs__manager_recorded_name(SxsRuntime *rt, uint64_t function_id) {
  g_mutex_lock(&rt->lock);
  SxsFunctionRecord *f = g_hash_table_lookup(rt->functions, &function_id);
  char *name = f ? g_strdup(f->name) : NULL;
  g_mutex_unlock(&rt->lock);
  return name;
}

gboolean sxs__manager_function_known(SxsRuntime *rt, uint64_t function_id) {
  g_mutex_lock(&rt->lock);
  gboolean known = g_hash_table_contains(rt->functions, &function_id);
  g_mutex_unlock(&rt->lock);
  return known;
}

void sxs__manager_record_module(SxsRuntime *rt, uint64_t module_id, const char *file_name) {
  sxs__counter_add(&rt->counters.modules_loaded);
  guint64 *key = g_new(guint64, 1);
  *key = module_id;
  g_mutex_lock(&rt->lock);
  g_hash_table_replace(rt->modules, key, g_strdup(file_name ? file_name : "?"));
  g_mutex_unlock(&rt->lock);
}

gboolean sxs__manager_module_known(SxsRuntime *rt, uint64_t module_id) {
  g_mutex_lock(&rt->lock);
  gboolean known = g_hash_table_contains(rt->modules, &module_id);
  g_mutex_unlock(&rt->lock);
  return known;
}

char *sxs__manager_module_name(SxsRuntime *rt, uint64_t module_id) {
  g_mutex_lock(&rt->lock);
  char *name = g_strdup(g_hash_table_lookup(rt->modules, &module_id));
  g_mutex_unlock(&rt->lock);
  return name;
}

/* Looks up or creates the record of (runtime, thread). Called with manager.lock held. */
static SxsThreadRecord *thread_record_locked(SxsRuntime *rt, uint64_t thread_id) {
  SxsThreadKey key = {.runtime_id = rt->id, .thread_id = thread_id};
  SxsThreadRecord *t = g_hash_table_lookup(manager.threads, &key);
  if (!t) {
    t = g_new0(SxsThreadRecord, 1);
    t->runtime_id = rt->id;
    t->thread_id = thread_id;
    g_hash_table_insert(manager.threads, g_memdup2(&key, sizeof key), t);
  }
  return t;
}

void sxs__manager_thread_created(SxsRuntime *rt, uint64_t thread_id) {
  sxs__counter_add(&rt->counters.threads_created);
  g_mutex_lock(&manager.lock);
  SxsThreadRecord *t = thread_record_locked(rt, thread_id);
  /* ThreadIDs are Thread* values and may be reused after ThreadDestroyed. */
  t->destroyed = FALSE;
  t->os_tid = 0;
  g_clear_pointer(&t->name, g_free);
  g_mutex_unlock(&manager.lock);
}

void sxs__manager_thread_os_id(SxsRuntime *rt, uint64_t thread_id, uint32_t os_tid) {
  g_mutex_lock(&manager.lock);
  thread_record_locked(rt, thread_id)->os_tid = os_tid;
  g_mutex_unlock(&manager.lock);
}

void sxs__manager_thread_named(SxsRuntime *rt, uint64_t thread_id, const char *name) {
  g_mutex_lock(&manager.lock);
  SxsThreadRecord *t = thread_record_locked(rt, thread_id);
  g_free(t->name);
  t->name = g_strdup(name);
  g_mutex_unlock(&manager.lock);
}

uint32_t sxs__manager_thread_destroyed(SxsRuntime *rt, uint64_t thread_id) {
  g_mutex_lock(&manager.lock);
  SxsThreadRecord *t = thread_record_locked(rt, thread_id);
  t->destroyed = TRUE;
  uint32_t os_tid = t->os_tid;
  g_mutex_unlock(&manager.lock);
  return os_tid;
}

guint sxs__manager_runtime_shutdown(SxsRuntime *rt) {
  g_mutex_lock(&rt->lock);
  rt->shut_down = TRUE;
  g_mutex_unlock(&rt->lock);
  guint live = 0;
  g_mutex_lock(&manager.lock);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, manager.runtimes);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SxsRuntime *other = value;
    g_mutex_lock(&other->lock);
    live += other->status == SXS_RUNTIME_PROFILING && !other->shut_down;
    g_mutex_unlock(&other->lock);
  }
  g_mutex_unlock(&manager.lock);
  return live;
}

/* Copies one runtime for the profile, with its functions or without. Called with manager.lock
 * held; takes rt->lock. */
static SxsRuntimeModel *snapshot_runtime_locked(SxsRuntime *rt, gboolean with_functions) {
  SxsRuntimeModel *r = sxs__runtime_model_new();
  g_mutex_lock(&rt->lock);
  r->id = rt->id;
  r->status = rt->status;
  r->reason = g_strdup(rt->reason);
  r->version = g_strdup(rt->version);
  r->clr_version = g_strdup(rt->clr_version);
  r->version_source = g_strdup(rt->version_source);
  r->path = g_strdup(rt->path);
  r->caps = rt->caps;
  r->attached_unix_ms = rt->attached_unix_ms;
  r->shut_down = rt->shut_down;
  r->counters.jit_compiled = sxs__counter_get(&rt->counters.jit_compiled);
  r->counters.modules_loaded = sxs__counter_get(&rt->counters.modules_loaded);
  r->counters.modules_unloaded = sxs__counter_get(&rt->counters.modules_unloaded);
  r->counters.exceptions = sxs__counter_get(&rt->counters.exceptions);
  r->counters.gcs = sxs__counter_get(&rt->counters.gcs);
  r->counters.threads_created = sxs__counter_get(&rt->counters.threads_created);
  r->allocation_sampling = g_strdup(rt->allocation_sampling);
  r->heap.gcs = __atomic_load_n(&rt->heap.gcs, __ATOMIC_ACQUIRE);
  r->heap.after_last_gc = __atomic_load_n(&rt->heap.after_last_gc, __ATOMIC_RELAXED);
  r->heap.after_gc_max = __atomic_load_n(&rt->heap.after_gc_max, __ATOMIC_RELAXED);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, rt->functions);
  while (with_functions && g_hash_table_iter_next(&it, NULL, &value))
    g_ptr_array_add(r->functions, sxs__function_record_copy(value));
  g_hash_table_iter_init(&it, rt->features_off);
  while (g_hash_table_iter_next(&it, &key, &value))
    g_hash_table_insert(r->features_off, g_strdup(key), g_strdup(value));
  g_mutex_unlock(&rt->lock);

  g_hash_table_iter_init(&it, manager.threads);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SxsThreadRecord *t = value;
    if (t->runtime_id == rt->id)
      g_ptr_array_add(r->threads, sxs__thread_record_copy(t));
  }
  return r;
}

static SxsProfileModel *copy_model(gboolean with_functions) {
  sxs__manager_ensure();
  SxsProfileModel *m = sxs__profile_model_new();
  m->process = sxs__process_info_copy(manager.process);
  m->mode = manager.config ? g_strdup(sxs__config_mode_name(manager.config->mode)) : NULL;
  m->config = manager.config ? g_strdup(manager.config->source) : NULL;
  g_mutex_lock(&manager.log_lock);
  m->log = g_strdup(manager.log_path);
  g_mutex_unlock(&manager.log_lock);
  g_mutex_lock(&manager.lock);
  g_autoptr(GPtrArray) all = runtimes_sorted_locked();
  for (guint i = 0; i < all->len; i++)
    g_ptr_array_add(m->runtimes, snapshot_runtime_locked(all->pdata[i], with_functions));
  g_mutex_unlock(&manager.lock);
  /* Sorting thousands of names happens outside the locks. */
  for (guint i = 0; i < m->runtimes->len; i++)
    sxs__runtime_model_sort(m->runtimes->pdata[i]);
  return m;
}

SxsProfileModel *sxs__manager_copy(void) {
  return copy_model(TRUE);
}

SxsProfileModel *sxs__manager_copy_without_functions(void) {
  return copy_model(FALSE);
}

GPtrArray *sxs__manager_function_changes(gboolean all) {
  GPtrArray *out = g_ptr_array_new_with_free_func(sxs__function_change_free);
  sxs__manager_ensure();
  g_mutex_lock(&manager.lock);
  g_autoptr(GPtrArray) rts = runtimes_sorted_locked();
  for (guint i = 0; i < rts->len; i++) {
    SxsRuntime *rt = rts->pdata[i];
    g_mutex_lock(&rt->lock);
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, all ? rt->functions : rt->changed_functions);
    while (g_hash_table_iter_next(&it, NULL, &value)) { /* a set's values are its keys */
      SxsFunctionChange *c = g_new0(SxsFunctionChange, 1);
      c->runtime_id = rt->id;
      c->function = sxs__function_record_copy(value);
      g_ptr_array_add(out, c);
    }
    g_hash_table_remove_all(rt->changed_functions);
    g_mutex_unlock(&rt->lock);
  }
  g_mutex_unlock(&manager.lock);
  return out;
}

void sxs__function_change_free(gpointer p) {
  SxsFunctionChange *c = p;
  sxs__function_record_free(c->function);
  g_free(c);
}

guint sxs__manager_runtime_count(void) {
  sxs__manager_ensure();
  g_mutex_lock(&manager.lock);
  guint n = g_hash_table_size(manager.runtimes);
  g_mutex_unlock(&manager.lock);
  return n;
}

int sxs__manager_pid(void) {
  sxs__manager_ensure();
  return manager.process ? manager.process->pid : 0;
}

void sxs__manager_set_quiet(gboolean quiet) {
  g_atomic_int_set(&manager.quiet, quiet ? 1 : 0);
}

gboolean sxs__manager_quiet(void) {
  return g_atomic_int_get(&manager.quiet) != 0;
}

char *sxs__manager_profile_path(void) {
  sxs__manager_ensure();
  g_mutex_lock(&manager.lock);
  char *path = g_strdup(manager.profile_path);
  g_mutex_unlock(&manager.lock);
  return path;
}

int sxs__manager_attach_config(const char *config_path, const char *run_id, char **ret_why) {
  sxs__manager_ensure();
  g_autoptr(GError) error = NULL;
  SxsConfig *cfg = sxs__config_load(config_path, &error);
  if (!cfg) {
    *ret_why = g_strdup(error->message);
    return -EINVAL;
  }
  /* A new attach after an earlier one's stop: stacks on events record again (the sampler runs
   * once per process, so it does not start again: said in the log). */
  if (sxs__manager_quiet() && cfg->sampling.enabled)
    sxs__manager_log("attach: sampling ran in this process and was stopped by an earlier attach's stop; this attach "
                     "takes no samples (functions and stacks on events are recorded)");
  sxs__manager_set_quiet(FALSE);
  g_mutex_lock(&manager.lock);
  gboolean profiled = FALSE;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, manager.runtimes);
  while (g_hash_table_iter_next(&it, NULL, &value))
    profiled |= ((SxsRuntime *)value)->status == SXS_RUNTIME_PROFILING;
  g_mutex_unlock(&manager.lock);
  if (profiled && manager.config) {
    sxs__manager_log("attach: a runtime of this process is already profiled; the attached runtime shares its "
                     "config (%s), not %s",
                     manager.config->source ? manager.config->source : "the defaults", config_path);
    sxs__config_free(cfg);
    return 0;
  }
  /* No runtime reads the old config any more (none is profiled); it is kept, not freed, for a
   * reader that took its pointer a moment ago. */
  g_free(manager.process->run_id);
  manager.process->run_id = g_strdup(run_id);
  g_mutex_lock(&manager.lock);
  g_clear_pointer(&manager.profile_path, g_free);
  g_mutex_unlock(&manager.lock);
  g_clear_pointer(&manager.config_error, g_free);
  manager.config = cfg;
  choose_paths(cfg, TRUE);
  return 0;
}

void sxs__manager_reset_for_tests(void) {
  sxs__manager_ensure();
  g_mutex_lock(&manager.lock);
  g_hash_table_remove_all(manager.runtimes);
  g_hash_table_remove_all(manager.threads);
  manager.next_id = 1;
  sxs__config_free(manager.config);
  manager.config = NULL;
  g_clear_pointer(&manager.config_error, g_free);
  g_clear_pointer(&manager.profile_path, g_free);
  g_mutex_unlock(&manager.lock);
  sxs__process_info_free(manager.process);
  manager.process = sxs__process_info_self();
  load_config();
}
