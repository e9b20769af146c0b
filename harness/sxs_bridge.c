/* libsxsbridge.so: cross-runtime calls into static managed methods through coreclr_create_delegate.
 *
 *   runtime A (managed)                      runtime B (managed)
 *   [DllImport("sxsbridge")] ──► sxs_bridge_call(2, ...) ──► delegate from B's
 *                                  │ registry[2]                coreclr_create_delegate
 *                                  └ cache (2, asm, type, method) ─► static int Method(int)
 *
 * The host (runsxs) links this library and registers every runtime; each runtime's DllImport
 * resolves to the same file, so glibc hands back the same mapping and all of them see one
 * registry. It does not start runtimes and does not know which runtime is calling. */
#include "sxs_bridge.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One cached delegate: key (assembly simple name, type, method) within one runtime. */
typedef struct SxsBridgeDelegate {
  struct SxsBridgeDelegate *next;
  int (*fn)(int);
  char *assembly_name;
  char *type_name;
  char *method_name;
} SxsBridgeDelegate;

/* A registered runtime. `generation` changes on every register/unregister, so a delegate created
 * for a runtime that has gone away meanwhile is not cached under its successor. */
typedef struct {
  SxsBridgeCreateDelegateFn create_delegate;
  void *host_handle;
  unsigned int domain_id;
  unsigned int generation;
  SxsBridgeDelegate *delegates;
} SxsBridgeRuntime;

/* The registry. Owner: this library; every field of every slot is guarded by bridge_lock, which
 * is never held across a call into a runtime (creating a delegate can run managed code that
 * calls back into the bridge). */
static pthread_mutex_t bridge_lock = PTHREAD_MUTEX_INITIALIZER;
/* Calls inside a runtime right now, process-wide and on this thread; and whether the bridge is
 * closed. Updated without the lock: a call counts itself in before it looks at `closed`, so
 * sxs_bridge_close() never misses one that got past the check. */
static atomic_int bridge_in_flight;
static _Thread_local int bridge_depth;
static atomic_bool bridge_closed;
static atomic_flag bridge_closed_reported = ATOMIC_FLAG_INIT;
static pthread_cond_t bridge_registered = PTHREAD_COND_INITIALIZER; /* signalled on register */
static SxsBridgeRuntime bridge_runtimes[SXS_BRIDGE_MAX_RUNTIMES + 1];

static void bridge_delegate_free(SxsBridgeDelegate *d) {
  if (!d)
    return;
  free(d->assembly_name);
  free(d->type_name);
  free(d->method_name);
  free(d);
}

static void bridge_delegates_free(SxsBridgeDelegate *d) {
  while (d) {
    SxsBridgeDelegate *next = d->next;
    bridge_delegate_free(d);
    d = next;
  }
}

int sxs_bridge_register(int index, void *create_delegate_fn, void *host_handle, unsigned int domain_id) {
  if (index < 1 || index > SXS_BRIDGE_MAX_RUNTIMES || !create_delegate_fn)
    return -EINVAL;
  pthread_mutex_lock(&bridge_lock);
  SxsBridgeRuntime *rt = &bridge_runtimes[index];
  SxsBridgeDelegate *old = rt->delegates;
  rt->create_delegate = (SxsBridgeCreateDelegateFn)create_delegate_fn;
  rt->host_handle = host_handle;
  rt->domain_id = domain_id;
  rt->generation++;
  rt->delegates = NULL;
  pthread_cond_broadcast(&bridge_registered);
  pthread_mutex_unlock(&bridge_lock);
  bridge_delegates_free(old);
  return 0;
}

int sxs_bridge_wait(int index, int timeout_ms) {
  if (index < 1 || index > SXS_BRIDGE_MAX_RUNTIMES)
    return -EINVAL;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  if (timeout_ms >= 0) {
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000L;
    }
  }
  int ret = 0;
  pthread_mutex_lock(&bridge_lock);
  while (!bridge_runtimes[index].create_delegate) {
    int rc = timeout_ms >= 0 ? pthread_cond_timedwait(&bridge_registered, &bridge_lock, &deadline)
                             : pthread_cond_wait(&bridge_registered, &bridge_lock);
    if (rc == ETIMEDOUT) {
      ret = bridge_runtimes[index].create_delegate ? 0 : -ETIMEDOUT;
      break;
    }
  }
  pthread_mutex_unlock(&bridge_lock);
  return ret;
}

void sxs_bridge_unregister(int index) {
  if (index < 1 || index > SXS_BRIDGE_MAX_RUNTIMES)
    return;
  pthread_mutex_lock(&bridge_lock);
  SxsBridgeRuntime *rt = &bridge_runtimes[index];
  SxsBridgeDelegate *old = rt->delegates;
  rt->create_delegate = NULL;
  rt->host_handle = NULL;
  rt->domain_id = 0;
  rt->generation++;
  rt->delegates = NULL;
  pthread_mutex_unlock(&bridge_lock);
  bridge_delegates_free(old);
}

void sxs_bridge_close(int timeout_ms) {
  atomic_store(&bridge_closed, true);
  struct timespec step = {.tv_sec = 0, .tv_nsec = 1000000};
  for (int waited = 0; atomic_load(&bridge_in_flight) > bridge_depth; waited++) {
    if (timeout_ms >= 0 && waited >= timeout_ms)
      break;
    nanosleep(&step, NULL);
  }
}

/* The simple assembly name of a path: its file name without a ".dll" or ".exe" suffix. Returns a
 * malloc'ed string or NULL when out of memory. */
static char *bridge_assembly_name(const char *assembly_path) {
  const char *base = strrchr(assembly_path, '/');
  base = base ? base + 1 : assembly_path;
  size_t len = strlen(base);
  if (len > 4 && (strcmp(base + len - 4, ".dll") == 0 || strcmp(base + len - 4, ".exe") == 0))
    len -= 4;
  return strndup(base, len);
}

/* Looks up a cached delegate. Caller holds bridge_lock. */
static int (*bridge_find(const SxsBridgeRuntime *rt, const char *assembly_name, const char *type_name,
                         const char *method_name))(int) {
  for (const SxsBridgeDelegate *d = rt->delegates; d; d = d->next) {
    if (strcmp(d->assembly_name, assembly_name) == 0 && strcmp(d->type_name, type_name) == 0 &&
        strcmp(d->method_name, method_name) == 0)
      return d->fn;
  }
  return NULL;
}

int sxs_bridge_call(int runtime_index, const char *assembly_path, const char *type_name, const char *method_name,
                    int arg) {
  if (!assembly_path || !type_name || !method_name) {
    fprintf(stderr, "sxs_bridge_call: NULL assembly, type or method name\n");
    return INT32_MIN;
  }
  if (runtime_index < 1 || runtime_index > SXS_BRIDGE_MAX_RUNTIMES) {
    fprintf(stderr, "sxs_bridge_call: no runtime %d (indexes are 1..%d)\n", runtime_index, SXS_BRIDGE_MAX_RUNTIMES);
    return INT32_MIN;
  }
  char *assembly_name = bridge_assembly_name(assembly_path);
  if (!assembly_name) {
    fprintf(stderr, "sxs_bridge_call: out of memory\n");
    return INT32_MIN;
  }

  pthread_mutex_lock(&bridge_lock);
  SxsBridgeRuntime *rt = &bridge_runtimes[runtime_index];
  SxsBridgeCreateDelegateFn create = rt->create_delegate;
  void *host_handle = rt->host_handle;
  unsigned int domain_id = rt->domain_id;
  unsigned int generation = rt->generation;
  int (*fn)(int) = create ? bridge_find(rt, assembly_name, type_name, method_name) : NULL;
  pthread_mutex_unlock(&bridge_lock);

  if (!create) {
    fprintf(stderr, "sxs_bridge_call: runtime %d is not running (not started yet, failed or shut down)\n",
            runtime_index);
    free(assembly_name);
    return INT32_MIN;
  }
  if (!fn) {
    void *delegate = NULL;
    int hr = create(host_handle, domain_id, assembly_name, type_name, method_name, &delegate);
    if (hr < 0 || !delegate) {
      fprintf(stderr, "sxs_bridge_call: runtime %d: coreclr_create_delegate(%s, %s, %s) failed: 0x%08x\n",
              runtime_index, assembly_name, type_name, method_name, (unsigned int)hr);
      free(assembly_name);
      return INT32_MIN;
    }
    fn = (int (*)(int))delegate;

    /* Two threads may have created the same delegate at once; the first one cached wins and the
     * other delegate stays valid (the runtime keeps it alive), it is just not remembered. */
    SxsBridgeDelegate *d = calloc(1, sizeof *d);
    if (d) {
      d->fn = fn;
      d->assembly_name = assembly_name;
      d->type_name = strdup(type_name);
      d->method_name = strdup(method_name);
      assembly_name = NULL;
    }
    pthread_mutex_lock(&bridge_lock);
    if (d && d->type_name && d->method_name && rt->generation == generation &&
        !bridge_find(rt, d->assembly_name, d->type_name, d->method_name)) {
      d->next = rt->delegates;
      rt->delegates = d;
      d = NULL;
    }
    pthread_mutex_unlock(&bridge_lock);
    bridge_delegate_free(d);
  }
  free(assembly_name);
  atomic_fetch_add(&bridge_in_flight, 1);
  if (atomic_load(&bridge_closed)) {
    atomic_fetch_sub(&bridge_in_flight, 1);
    if (!atomic_flag_test_and_set(&bridge_closed_reported))
      fprintf(stderr, "sxs_bridge_call: the process is exiting; calls into runtimes are refused\n");
    return INT32_MIN;
  }
  bridge_depth++;
  int result = fn(arg);
  bridge_depth--;
  atomic_fetch_sub(&bridge_in_flight, 1);
  return result;
}
