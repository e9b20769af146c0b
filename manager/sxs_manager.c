/* The process-wide profiler manager: config, log, runtime registry, thread registry, profile.
 *
 *            runtime 1 (libcoreclr.so #1)            runtime 2 (libcoreclr.so #2)
 *                     |                                        |
 *     DllGetClassObject / CreateInstance          DllGetClassObject / CreateInstance
 *                     v                                        v
 *             SxsCallback #1  ---------.          .------  SxsCallback #2
 *          (callback/, per runtime)    |          |     (callback/, per runtime)
 *                                      v          v
 *                           +--------------------------------+
 *                           | manager (this file, singleton) |
 *                           |  runtimes: id -> SxsRuntime    |
 *                           |  threads: (id, ThreadID) -> .. |
 *                           |  config, log, profile writer   |
 *                           +--------------------------------+
 *
 * Every callback object holds a pointer to its own SxsRuntime and only ever records into it, so
 * an ID handed out by one runtime never reaches another. The registry never forgets a runtime:
 * declined ones are reported too. The profile is written at each runtime's Shutdown and again at
 * process exit (a destructor), because not every runtime gets a Shutdown. Nothing here runs on a
 * hot or signal path. */
#include "sxs_manager.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sxs_json.h"
#include "sxs_policy.h"

typedef struct {
  int runtime_id;
  uint64_t thread_id;
} SxsThreadKey;

/* The singleton. `lock` guards runtimes, next_id and threads; `write_lock` serializes profile
 * writes; `log_lock` serializes log lines. Each SxsRuntime has its own lock for its tables. */
typedef struct {
  GMutex lock;
  GMutex write_lock;
  GMutex log_lock;
  SxsConfig *config;    /* NULL when the config failed; then config_error says why */
  char *config_error;
  char *profile_path;   /* <output>.json, after any fallback */
  FILE *log;            /* not owned when it is stderr */
  gboolean log_owned;
  GHashTable *runtimes; /* int id -> SxsRuntime* ; owned, freed only by reset_for_tests */
  int next_id;
  GHashTable *threads;  /* SxsThreadKey* -> SxsThreadRecord* ; both owned */
  char *last_written;   /* the document last written, guarded by write_lock */
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

static void thread_record_free(gpointer p) {
  SxsThreadRecord *t = p;
  g_free(t->name);
  g_free(t);
}

static void function_record_free(gpointer p) {
  SxsFunctionRecord *f = p;
  g_free(f->name);
  g_free(f->module);
  g_free(f);
}

static void runtime_free(gpointer p) {
  SxsRuntime *rt = p;
  g_hash_table_unref(rt->functions);
  g_hash_table_unref(rt->modules);
  g_mutex_clear(&rt->lock);
  g_free(rt->reason);
  g_free(rt->version);
  g_free(rt->clr_version);
  g_free(rt->path);
  g_free(rt);
}

void sxs__manager_log(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_mutex_lock(&manager.log_lock);
  FILE *out = manager.log ? manager.log : stderr;
  fprintf(out, "sxsprof[%d]: %s\n", (int)getpid(), msg);
  fflush(out);
  g_mutex_unlock(&manager.log_lock);
}

/* Keeps the library mapped until the process ends. Each runtime's loader may dlclose it (after a
 * decline, or at its own teardown) while another runtime still uses it, and the exit-time writer
 * must still be there when the process exits. */
static void pin_library(void) {
  Dl_info info;
  if (dladdr((void *)pin_library, &info) == 0 || !info.dli_fname)
    return;
  if (!g_str_has_suffix(info.dli_fname, ".so"))
    return; /* linked statically into a test program */
  void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
  (void)h; /* the handle is deliberately kept: NODELETE pins the object */
}

static void open_log(void) {
  manager.log = stderr;
  manager.log_owned = FALSE;
  if (!manager.config || !manager.config->log_path)
    return;
  FILE *f = fopen(manager.config->log_path, "a");
  if (!f) {
    int e = errno;
    sxs__manager_log("cannot open log file %s: %s; logging to stderr instead",
                     manager.config->log_path, g_strerror(e));
    return;
  }
  setvbuf(f, NULL, _IOLBF, 0);
  manager.log = f;
  manager.log_owned = TRUE;
}

/* Picks the profile path: the configured prefix, else ./sxsprof-<pid>, else /tmp/sxsprof-<pid>. */
static void choose_profile_path(void) {
  g_autofree char *msg = NULL;
  const char *configured = manager.config->output;
  if (sxs__config_check_output(configured, &msg) == 0) {
    manager.profile_path = g_strconcat(configured, ".json", NULL);
    return;
  }
  g_autofree char *cwd = g_get_current_dir();
  g_autofree char *here = g_strdup_printf("%s/sxsprof-%d", cwd, (int)getpid());
  g_autofree char *tmp = g_strdup_printf("%s/sxsprof-%d", g_get_tmp_dir(), (int)getpid());
  const char *fallback = NULL;
  g_autofree char *msg2 = NULL;
  if (sxs__config_check_output(here, &msg2) == 0)
    fallback = here;
  else
    fallback = tmp;
  manager.profile_path = g_strconcat(fallback, ".json", NULL);
  sxs__manager_log("%s; the profile goes to %s instead", msg, manager.profile_path);
}

/* SXSPROF_OUTPUT (set by the sxsprof launcher, which must know where the profile goes) wins
 * over the config file's output=. */
static void apply_env_overrides(void) {
  const char *output = g_getenv("SXSPROF_OUTPUT");
  if (!manager.config || !output || !*output)
    return;
  g_free(manager.config->output);
  if (g_path_is_absolute(output)) {
    manager.config->output = g_strdup(output);
  } else {
    g_autofree char *cwd = g_get_current_dir();
    manager.config->output = g_build_filename(cwd, output, NULL);
  }
}

static void manager_init(void) {
  g_mutex_init(&manager.lock);
  g_mutex_init(&manager.write_lock);
  g_mutex_init(&manager.log_lock);
  manager.runtimes = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, runtime_free);
  manager.threads = g_hash_table_new_full(thread_key_hash, thread_key_equal, g_free, thread_record_free);
  manager.next_id = 1;

  g_autoptr(GError) error = NULL;
  manager.config = sxs__config_load_env(&error);
  if (!manager.config) {
    manager.config_error = g_strdup(error ? error->message : "unknown config error");
    sxs__manager_log("%s; profiling is off for this process", manager.config_error);
    return;
  }
  apply_env_overrides();
  open_log();
  choose_profile_path();
}

void sxs__manager_ensure(void) {
  if (g_once_init_enter(&manager_ready)) {
    pin_library();
    manager_init();
    g_once_init_leave(&manager_ready, 1);
  }
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
    if (o == except || o->status == SXS_RUNTIME_DECLINED ||
        (profiled_only && o->status != SXS_RUNTIME_PROFILING))
      continue;
    SxsRuntimeIdentity *ident = g_new0(SxsRuntimeIdentity, 1);
    ident->id = o->id;
    ident->version = o->version;
    ident->path = o->path;
    g_ptr_array_add(out, ident);
  }
  return out;
}

SxsRuntime *sxs__manager_admit(const char *path, const char *version) {
  sxs__manager_ensure();
  SxsRuntime *rt = g_new0(SxsRuntime, 1);
  g_mutex_init(&rt->lock);
  rt->functions = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, function_record_free);
  rt->modules = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
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
    if (sxs__policy_at_create(manager.config, &me, (const SxsRuntimeIdentity *const *)admitted->pdata,
                              admitted->len, &reason) == SXS_DECISION_PROFILE) {
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

gboolean sxs__manager_initialize(SxsRuntime *rt, const char *path, const char *version,
                                 const char *clr_version, const SxsCapabilities *caps) {
  g_autofree char *reason = NULL;
  g_mutex_lock(&manager.lock);
  g_mutex_lock(&rt->lock);
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
  g_mutex_unlock(&rt->lock);

  if (!manager.config) {
    reason = g_strdup_printf("config error: %s", manager.config_error);
  } else {
    g_autoptr(GPtrArray) profiled = identities_locked(rt, TRUE);
    SxsRuntimeIdentity me = {.id = rt->id, .version = rt->version, .path = rt->path};
    if (sxs__policy_at_initialize(manager.config, &me, (const SxsRuntimeIdentity *const *)profiled->pdata,
                                  profiled->len, &reason) == SXS_DECISION_PROFILE)
      g_clear_pointer(&reason, g_free);
  }
  if (reason)
    decline_locked(rt, reason);
  else
    rt->status = SXS_RUNTIME_PROFILING;
  g_mutex_unlock(&manager.lock);

  if (reason && manager.config) {
    g_autofree char *who = describe(rt);
    sxs__manager_log("%s declined: %s", who, reason);
  }
  return reason == NULL;
}

void sxs__manager_bind(SxsRuntime *rt, gpointer instance, gpointer info) {
  g_mutex_lock(&rt->lock);
  rt->instance = instance;
  rt->info = info;
  g_mutex_unlock(&rt->lock);
}

void sxs__manager_decline(SxsRuntime *rt, const char *reason) {
  g_mutex_lock(&manager.lock);
  decline_locked(rt, reason);
  g_mutex_unlock(&manager.lock);
  g_autofree char *who = describe(rt);
  sxs__manager_log("%s declined: %s", who, reason);
}

void sxs__manager_record_jit(SxsRuntime *rt, uint64_t function_id, const char *name, const char *module) {
  sxs__counter_add(&rt->counters.jit_compiled);
  g_mutex_lock(&rt->lock);
  SxsFunctionRecord *f = g_hash_table_lookup(rt->functions, &function_id);
  if (!f) {
    f = g_new0(SxsFunctionRecord, 1);
    f->name = g_strdup(name ? name : "?");
    f->module = g_strdup(module ? module : "?");
    guint64 *key = g_new(guint64, 1);
    *key = function_id;
    g_hash_table_insert(rt->functions, key, f);
  }
  f->jit_compiled++;
  g_mutex_unlock(&rt->lock);
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

void sxs__manager_thread_destroyed(SxsRuntime *rt, uint64_t thread_id) {
  g_mutex_lock(&manager.lock);
  thread_record_locked(rt, thread_id)->destroyed = TRUE;
  g_mutex_unlock(&manager.lock);
}

void sxs__manager_runtime_shutdown(SxsRuntime *rt) {
  g_mutex_lock(&rt->lock);
  rt->shut_down = TRUE;
  g_mutex_unlock(&rt->lock);
  sxs__manager_write_profile();
}

static const char *status_name(SxsRuntimeStatus s) {
  switch (s) {
  case SXS_RUNTIME_PROFILING: return "profiling";
  case SXS_RUNTIME_DECLINED: return "declined";
  case SXS_RUNTIME_PENDING: break;
  }
  return "pending";
}

static int compare_functions(gconstpointer a, gconstpointer b) {
  const SxsFunctionRecord *x = *(SxsFunctionRecord *const *)a, *y = *(SxsFunctionRecord *const *)b;
  int c = strcmp(x->name, y->name);
  return c ? c : strcmp(x->module, y->module);
}

static int compare_threads(gconstpointer a, gconstpointer b) {
  const SxsThreadRecord *x = *(SxsThreadRecord *const *)a, *y = *(SxsThreadRecord *const *)b;
  if (x->os_tid != y->os_tid)
    return (x->os_tid > y->os_tid) - (x->os_tid < y->os_tid);
  return (x->thread_id > y->thread_id) - (x->thread_id < y->thread_id);
}

/* Writes one runtime object. Called with manager.lock held; takes rt->lock. */
static void render_runtime_locked(SxsJsonWriter *w, SxsRuntime *rt) {
  g_mutex_lock(&rt->lock);
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "id", rt->id);
  sxs__json_member_string(w, "version", rt->version);
  sxs__json_member_string(w, "clr_version", rt->clr_version);
  sxs__json_member_string(w, "path", rt->path);
  sxs__json_member_string(w, "status", status_name(rt->status));
  sxs__json_member_string(w, "reason", rt->reason);
  sxs__json_member_int(w, "info_version", rt->caps.info_version);
  sxs__json_key(w, "capabilities");
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "event_mask2", rt->caps.event_mask2);
  sxs__json_member_bool(w, "basic_gc", rt->caps.basic_gc);
  sxs__json_end_object(w);
  sxs__json_member_bool(w, "shutdown_seen", rt->shut_down);

  sxs__json_key(w, "counters");
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "jit_compiled", sxs__counter_get(&rt->counters.jit_compiled));
  sxs__json_member_int(w, "modules_loaded", sxs__counter_get(&rt->counters.modules_loaded));
  sxs__json_member_int(w, "exceptions", sxs__counter_get(&rt->counters.exceptions));
  sxs__json_member_int(w, "gcs", sxs__counter_get(&rt->counters.gcs));
  sxs__json_member_int(w, "threads_created", sxs__counter_get(&rt->counters.threads_created));
  sxs__json_end_object(w);

  g_autoptr(GPtrArray) fns = g_ptr_array_sized_new(g_hash_table_size(rt->functions));
  GHashTableIter fit;
  gpointer fvalue;
  g_hash_table_iter_init(&fit, rt->functions);
  while (g_hash_table_iter_next(&fit, NULL, &fvalue))
    g_ptr_array_add(fns, fvalue);
  g_ptr_array_sort(fns, compare_functions);
  sxs__json_key(w, "functions");
  sxs__json_begin_array(w);
  for (guint i = 0; i < fns->len; i++) {
    SxsFunctionRecord *f = fns->pdata[i];
    sxs__json_begin_object(w);
    sxs__json_member_string(w, "name", f->name);
    sxs__json_member_string(w, "module", f->module);
    sxs__json_member_int(w, "jit_compiled", f->jit_compiled);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  g_mutex_unlock(&rt->lock);

  g_autoptr(GPtrArray) threads = g_ptr_array_new();
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, manager.threads);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SxsThreadRecord *t = value;
    if (t->runtime_id == rt->id)
      g_ptr_array_add(threads, t);
  }
  g_ptr_array_sort(threads, compare_threads);
  sxs__json_key(w, "threads");
  sxs__json_begin_array(w);
  for (guint i = 0; i < threads->len; i++) {
    SxsThreadRecord *t = threads->pdata[i];
    sxs__json_begin_object(w);
    sxs__json_member_int(w, "os_tid", t->os_tid);
    sxs__json_member_string(w, "name", t->name);
    sxs__json_member_bool(w, "destroyed", t->destroyed);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

char *sxs__manager_render_profile(gsize *ret_len) {
  sxs__manager_ensure();
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(TRUE);
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "format", "sxsprof");
  sxs__json_member_int(w, "version", 1);
  sxs__json_member_int(w, "pid", getpid());
  sxs__json_member_string(w, "mode", manager.config ? sxs__config_mode_name(manager.config->mode) : NULL);
  sxs__json_member_string(w, "config", manager.config ? manager.config->source : NULL);
  sxs__json_key(w, "runtimes");
  sxs__json_begin_array(w);
  g_mutex_lock(&manager.lock);
  g_autoptr(GPtrArray) all = runtimes_sorted_locked();
  for (guint i = 0; i < all->len; i++)
    render_runtime_locked(w, all->pdata[i]);
  g_mutex_unlock(&manager.lock);
  sxs__json_end_array(w);
  sxs__json_end_object(w);
  return sxs__json_writer_steal(w, ret_len);
}

int sxs__manager_write_profile(void) {
  sxs__manager_ensure();
  if (!manager.config || !manager.profile_path)
    return -EINVAL;
  g_mutex_lock(&manager.write_lock);
  gsize len = 0;
  g_autofree char *text = sxs__manager_render_profile(&len);
  int r = 0;
  /* The exit-time write usually follows a Shutdown write of the same document: the file is
   * already right, and a second replace (with its fsync) would only cost the process time. */
  if (!manager.last_written || !g_str_equal(manager.last_written, text) ||
      !g_file_test(manager.profile_path, G_FILE_TEST_EXISTS)) {
    r = sxs__file_write_atomic(manager.profile_path, text, len);
    if (r < 0) {
      sxs__manager_log("cannot write the profile to %s: %s", manager.profile_path, g_strerror(-r));
    } else {
      g_free(manager.last_written);
      manager.last_written = g_steal_pointer(&text);
    }
  }
  g_mutex_unlock(&manager.write_lock);
  return r;
}

/* Process exit (or the library's final unload): write the profile once more, whatever Shutdown
 * calls did or did not arrive. Runs on the exiting thread; other runtime threads may still be
 * delivering callbacks, which the locks keep consistent. */
__attribute__((destructor)) static void manager_at_exit(void) {
  if (!g_atomic_pointer_get(&manager_ready) || !manager.config)
    return;
  g_mutex_lock(&manager.lock);
  guint n = g_hash_table_size(manager.runtimes);
  g_mutex_unlock(&manager.lock);
  if (n == 0)
    return;
  if (sxs__manager_write_profile() == 0)
    sxs__manager_log("profile of %u runtime%s written to %s", n, n == 1 ? "" : "s", manager.profile_path);
}

void sxs__manager_reset_for_tests(void) {
  sxs__manager_ensure();
  g_mutex_lock(&manager.lock);
  g_hash_table_remove_all(manager.runtimes);
  g_hash_table_remove_all(manager.threads);
  manager.next_id = 1;
  sxs__config_free(manager.config);
  g_free(manager.config_error);
  manager.config_error = NULL;
  g_clear_pointer(&manager.profile_path, g_free);
  g_mutex_lock(&manager.write_lock);
  g_clear_pointer(&manager.last_written, g_free);
  g_mutex_unlock(&manager.write_lock);
  if (manager.log_owned)
    fclose(manager.log);
  manager.log = stderr;
  manager.log_owned = FALSE;
  g_autoptr(GError) error = NULL;
  manager.config = sxs__config_load_env(&error);
  if (!manager.config)
    manager.config_error = g_strdup(error ? error->message : "unknown config error");
  g_mutex_unlock(&manager.lock);
  if (manager.config) {
    apply_env_overrides();
    open_log();
    choose_profile_path();
  }
}
