/* sxs_inventory: the function inventory, named off the program's threads.
 *
 *   JIT thread:  JITCompilationFinished(fid) ----append {fid, JIT}----> queue of runtime A
 *   loader:      JITCachedFunctionSearchFinished(fid) --{fid, PRECOMPILED}--^   (its own lock;
 *   JIT thread:  JITInlining(callee) ---------{fid, INLINED}----------^      no runtime call)
 *
 *   sxsprof-names, every SXS_INVENTORY_PERIOD_MS or woken (a full queue, a drain):
 *     for each runtime: swap its queue out; for each event: known? count it
 *                                                    else name it (A's ops, guarded) and record it
 *     then mark the events handled and wake the drains
 *
 *   drain (each profile write but a dying one, Shutdown before the Info goes, ModuleUnloadStarted
 *   before a module's IDs go stale): wake the thread, wait until what was queued is handled.
 *
 * Naming is the expensive part (a metadata read, 5 to 10 µs), and each function is named once, the
 * first time it is seen; re-JITs, inlinings and loads of a known function are only counted. Counts
 * are exact: every event queued is recorded, but events of a function first seen after its
 * runtime began to shut down, which are dropped (and counted as dropped), as they were when the
 * callbacks named the functions themselves. */
#include "sxs_inventory.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sxs_manager.h"

typedef struct {
  uint64_t function_id;
  SxsCodeKind kind;
} QueuedEvent;

/* `lock` guards queue and queued; the fields after it are guarded by inventory.lock, but
 * unnamed_upto, which the naming thread reads atomically. */
struct SxsInventoryRuntime {
  SxsRuntime *rt;
  int runtime_id;
  const SxsRuntimeOps *ops; /* the runtime's live side, named through directly: the registry gets
                             * it only at the end of Initialize, and events may come before */
  gpointer instance;
  GMutex lock;
  GArray *queue;        /* QueuedEvent, oldest first */
  guint64 queued;       /* events ever queued */
  guint64 handled;      /* of those, events the naming thread is done with (the oldest ones) */
  guint64 unnamed_upto; /* events up to this number are recorded without a name: a module
                           * unload could not wait for them (atomic) */
  gboolean unnamed_logged;
  guint64 named, dropped;
  guint32 namers[SXS_INVENTORY_MAX_NAMERS];
  guint n_namers;
  SxsInventoryRuntime *next; /* newer runtimes first; never unlinked */
};

/* The process-wide part: the runtimes' list, the naming thread and its conditions, all guarded
 * by `lock`. Zero-initialized GMutex and GCond need no init when static. */
static struct {
  GMutex lock;
  GCond wake;          /* the naming thread waits here */
  GCond done;          /* drains wait here */
  gboolean wake_asked; /* a wake-up came while the thread was busy */
  SxsInventoryRuntime *runtimes;
  gboolean running;
  pthread_t thread;
} inventory;

/* What handling one event did. */
typedef enum {
  EVENT_COUNTED, /* a known function, counted */
  EVENT_NAMED,   /* a new function, named through its runtime and recorded */
  EVENT_UNNAMED, /* a new function recorded without a name (the runtime did not answer, or an
                  * unload could not wait) */
  EVENT_DROPPED, /* a new function of a runtime that began to shut down */
} EventOutcome;

/* Records one event: counts a known function, names a new one (when name_it) and records it.
 * *ret_asked: the runtime was asked for a name. */
static EventOutcome handle_event(SxsInventoryRuntime *inv, const QueuedEvent *e, gboolean name_it,
                                 gboolean *ret_asked) {
  if (sxs__manager_function_known(inv->rt, e->function_id)) {
    sxs__manager_record_function(inv->rt, e->function_id, e->kind, NULL, NULL);
    return EVENT_COUNTED;
  }
  g_autofree char *name = NULL, *module = NULL;
  int r = -ENOENT;
  if (name_it) {
    r = inv->ops->function_name(inv->instance, e->function_id, &name, &module);
    *ret_asked = TRUE;
  }
  if (r == -ESHUTDOWN)
    return EVENT_DROPPED;
  sxs__manager_record_function(inv->rt, e->function_id, e->kind, name, module);
  return r == 0 ? EVENT_NAMED : EVENT_UNNAMED;
}

/* Handles what one runtime queued so far. Called and returns with inventory.lock held (released
 * while it works). */
static void handle_runtime_locked(SxsInventoryRuntime *inv, GArray **batch, guint32 tid) {
  g_mutex_unlock(&inventory.lock);
  g_mutex_lock(&inv->lock);
  GArray *events = inv->queue;
  inv->queue = *batch;
  *batch = events;
  guint64 last = inv->queued;
  g_mutex_unlock(&inv->lock);
  guint64 first = last - events->len; /* events[i] is event number first + i + 1 */
  guint64 named = 0, dropped = 0;
  gboolean asked = FALSE;
  for (guint i = 0; i < events->len; i++) {
    gboolean name_it = first + i + 1 > __atomic_load_n(&inv->unnamed_upto, __ATOMIC_ACQUIRE);
    EventOutcome r = handle_event(inv, &g_array_index(events, QueuedEvent, i), name_it, &asked);
    named += r == EVENT_NAMED;
    dropped += r == EVENT_DROPPED;
  }
  g_array_set_size(events, 0);
  g_mutex_lock(&inventory.lock);
  inv->handled = last;
  inv->named += named;
  inv->dropped += dropped;
  gboolean listed = FALSE;
  for (guint i = 0; i < inv->n_namers; i++)
    listed |= inv->namers[i] == tid;
  if (asked && !listed && inv->n_namers < SXS_INVENTORY_MAX_NAMERS)
    inv->namers[inv->n_namers++] = tid;
  g_cond_broadcast(&inventory.done);
}

/* The naming thread: wakes every SXS_INVENTORY_PERIOD_MS (or when asked), handles every queue.
 * Context: its own thread, every signal blocked; never holds a lock across a call into a runtime.
 * It runs until the process ends. */
static void *naming_main(void *arg) {
  (void)arg;
  guint32 tid = (guint32)syscall(SYS_gettid);
  GArray *batch = g_array_new(FALSE, FALSE, sizeof(QueuedEvent));
  g_mutex_lock(&inventory.lock);
  for (;;) {
    if (!inventory.wake_asked)
      g_cond_wait_until(&inventory.wake, &inventory.lock,
                        g_get_monotonic_time() + SXS_INVENTORY_PERIOD_MS * G_TIME_SPAN_MILLISECOND);
    inventory.wake_asked = FALSE;
    for (SxsInventoryRuntime *inv = inventory.runtimes; inv; inv = inv->next)
      handle_runtime_locked(inv, &batch, tid);
  }
  return NULL;
}

/* Called with inventory.lock held. */
static void wake_locked(void) {
  inventory.wake_asked = TRUE;
  g_cond_signal(&inventory.wake);
}

/* Called with inventory.lock held. */
static gboolean start_thread_locked(void) {
  if (inventory.running)
    return TRUE;
  /* The program's signals are never handled on this thread. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int r = pthread_create(&inventory.thread, NULL, naming_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) {
    sxs__manager_log("cannot start the thread that names the function inventory (%s); the inventory is off",
                     g_strerror(r));
    return FALSE;
  }
  pthread_setname_np(inventory.thread, "sxsprof-names");
  inventory.running = TRUE;
  return TRUE;
}

SxsInventoryRuntime *sxs__inventory_runtime_new(SxsRuntime *rt, const SxsRuntimeOps *ops, gpointer instance) {
  SxsInventoryRuntime *inv = g_try_new0(SxsInventoryRuntime, 1);
  if (!inv)
    return NULL;
  inv->rt = rt;
  inv->runtime_id = rt->id;
  inv->ops = ops;
  inv->instance = instance;
  g_mutex_init(&inv->lock);
  inv->queue = g_array_new(FALSE, FALSE, sizeof(QueuedEvent));
  g_mutex_lock(&inventory.lock);
  if (!start_thread_locked()) {
    g_mutex_unlock(&inventory.lock);
    g_array_unref(inv->queue);
    g_mutex_clear(&inv->lock);
    g_free(inv);
    return NULL;
  }
  inv->next = inventory.runtimes;
  inventory.runtimes = inv;
  g_mutex_unlock(&inventory.lock);
  return inv;
}

void sxs__inventory_add(SxsInventoryRuntime *inv, uint64_t function_id, SxsCodeKind kind) {
  QueuedEvent e = {.function_id = function_id, .kind = kind};
  g_mutex_lock(&inv->lock);
  g_array_append_val(inv->queue, e);
  inv->queued++;
  gboolean wake = inv->queue->len == SXS_INVENTORY_WAKE_AT;
  g_mutex_unlock(&inv->lock);
  if (wake) {
    g_mutex_lock(&inventory.lock);
    wake_locked();
    g_mutex_unlock(&inventory.lock);
  }
}

/* Waits until inv has handled `target` events or the deadline passes. Called with
 * inventory.lock held. */
static gboolean wait_handled_locked(SxsInventoryRuntime *inv, guint64 target, gint64 deadline) {
  while (inv->handled < target) {
    wake_locked();
    if (!g_cond_wait_until(&inventory.done, &inventory.lock, deadline))
      return inv->handled >= target;
  }
  return TRUE;
}

static guint64 queued_of(SxsInventoryRuntime *inv) {
  g_mutex_lock(&inv->lock);
  guint64 n = inv->queued;
  g_mutex_unlock(&inv->lock);
  return n;
}

gboolean sxs__inventory_drain(SxsInventoryRuntime *inv, int timeout_ms) {
  gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * G_TIME_SPAN_MILLISECOND;
  g_mutex_lock(&inventory.lock);
  if (!inventory.running || pthread_equal(pthread_self(), inventory.thread)) {
    gboolean idle = !inventory.running;
    g_mutex_unlock(&inventory.lock);
    return idle;
  }
  gboolean all = TRUE;
  for (SxsInventoryRuntime *one = inventory.runtimes; one; one = one->next) {
    if (inv && one != inv)
      continue;
    g_mutex_unlock(&inventory.lock);
    guint64 target = queued_of(one);
    g_mutex_lock(&inventory.lock);
    all &= wait_handled_locked(one, target, deadline);
  }
  g_mutex_unlock(&inventory.lock);
  return all;
}

void sxs__inventory_module_unloading(SxsInventoryRuntime *inv, int timeout_ms) {
  if (sxs__inventory_drain(inv, timeout_ms))
    return;
  guint64 upto = queued_of(inv);
  g_mutex_lock(&inventory.lock);
  if (upto > __atomic_load_n(&inv->unnamed_upto, __ATOMIC_RELAXED))
    __atomic_store_n(&inv->unnamed_upto, upto, __ATOMIC_RELEASE);
  gboolean log = !inv->unnamed_logged;
  inv->unnamed_logged = TRUE;
  g_mutex_unlock(&inventory.lock);
  if (log)
    sxs__manager_log("runtime %d: a module unload could not wait %d ms for the function inventory; the functions "
                     "queued before it are counted without names",
                     inv->runtime_id, timeout_ms);
}

void sxs__inventory_fill(int runtime_id, SxsRuntimeModel *r) {
  g_mutex_lock(&inventory.lock);
  SxsInventoryRuntime *inv = inventory.runtimes;
  while (inv && inv->runtime_id != runtime_id)
    inv = inv->next;
  if (inv) {
    SxsInventoryModel *m = &r->inventory;
    m->enabled = TRUE;
    m->named = inv->named;
    m->dropped = inv->dropped;
    m->n_naming_threads = inv->n_namers;
    for (guint i = 0; i < inv->n_namers; i++)
      m->naming_threads[i] = inv->namers[i];
  }
  g_mutex_unlock(&inventory.lock);
  if (inv)
    r->inventory.events = queued_of(inv);
}

void sxs__inventory_reset_for_tests(void) {
  sxs__inventory_drain(NULL, 2000);
  g_mutex_lock(&inventory.lock);
  inventory.runtimes = NULL;
  g_mutex_unlock(&inventory.lock);
}
