/* sxs_naming: functions named on a thread of the profiler's, never on the program's.
 *
 *   JIT thread:  JITCompilationFinished(fid) ----{fid, JIT}---------> queue of runtime A
 *   loader:      JITCachedFunctionSearchFinished(fid) --{fid, PRECOMPILED}--^  (its own lock;
 *   JIT thread:  JITInlining(callee) -----------{fid, INLINED}------^      no runtime call)
 *   GC thread:   a stack's frame it may not name -----{fid, frame}--^
 *
 *   sxsprof-names, every SXS_NAMING_PERIOD_MS or woken (a full queue, a drain):
 *     for each runtime: swap its queue out; for each event: known? count it
 *                                                    else name it (A's ops, guarded) and record it
 *     then mark the events handled and wake the drains
 *
 *   drain: each profile write but a dying one, Shutdown before the Info goes, ModuleUnloadStarted
 *   before a module's IDs go stale: wake the thread, wait until what was queued is handled.
 *
 * Naming is the expensive part (a metadata read, 5 to 10 µs), and each function is named once, the
 * first time it is seen; re-JITs, inlinings and loads of a known function are only counted.
 * Inventory counts are exact: every inventory event is recorded (with the name "?" when the
 * runtime gives none), but events of a function first seen after its runtime began to shut down,
 * which are dropped (and counted as dropped), as they were when the callbacks named functions
 * themselves. A frame's function that cannot be named is not recorded: its stacks show it by its
 * code address. */
#include "sxs_naming.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct {
  uint64_t function_id;
  SxsCodeKind kind;
  gboolean frame; /* a frame's function (sxs__naming_later), not an inventory event */
} QueuedEvent;

/* `lock` guards queue, queued and events; the fields after them are guarded by naming.lock, but
 * unnamed_upto, which the naming thread reads atomically. */
struct SxsNamingQueue {
  SxsRuntime *rt;
  int runtime_id;
  const SxsRuntimeOps *ops; /* the runtime's live side, named through directly: the registry gets
                             * it only at the end of Initialize, and events may come before */
  gpointer instance;
  GMutex lock;
  GArray *queue;        /* QueuedEvent, oldest first */
  guint64 queued;       /* events ever queued */
  guint64 events;       /* of those, inventory events */
  gboolean inventory;   /* the runtime keeps the inventory */
  guint64 handled;      /* events the naming thread is done with (the oldest ones) */
  guint64 unnamed_upto; /* events up to this number are recorded without a name: a module
                           * unload could not wait for them (atomic) */
  gboolean unnamed_logged;
  guint64 named, dropped;
  guint32 namers[SXS_INVENTORY_MAX_NAMERS];
  guint n_namers;
  SxsNamingQueue *next; /* newer runtimes first; never unlinked but by the tests' reset */
};

/* The process-wide part: the runtimes' list, the naming thread and its conditions, all guarded
 * by `lock`. Zero-initialized GMutex and GCond need no init when static. */
static struct {
  GMutex lock;
  GCond wake;          /* the naming thread waits here */
  GCond done;          /* drains wait here */
  gboolean wake_asked; /* a wake-up came while the thread was busy */
  SxsNamingQueue *queues;
  gint running;    /* the thread runs (atomic: read without the lock by the appends) */
  gboolean failed; /* it could not start: nothing is queued */
  pthread_t thread;
} naming;

/* What handling one event did. */
typedef enum {
  EVENT_COUNTED, /* a known function, counted (an inventory event) or nothing to do (a frame) */
  EVENT_NAMED,   /* a new function, named through its runtime and recorded */
  EVENT_UNNAMED, /* a new function the runtime did not name: recorded as "?" when it is an
                  * inventory event (its counts), else left out */
  EVENT_DROPPED, /* a new function of a runtime that began to shut down */
} EventOutcome;

/* Records one event: counts a known function, names a new one (when name_it) and records it.
 * *ret_asked: the runtime was asked for a name. */
static EventOutcome handle_event(SxsNamingQueue *q, const QueuedEvent *e, gboolean name_it, gboolean *ret_asked) {
  if (sxs__manager_function_known(q->rt, e->function_id)) {
    if (!e->frame)
      sxs__manager_record_function(q->rt, e->function_id, e->kind, NULL, NULL);
    return EVENT_COUNTED;
  }
  g_autofree char *name = NULL, *module = NULL;
  int r = -ENOENT;
  if (name_it) {
    r = q->ops->function_name(q->instance, e->function_id, &name, &module);
    *ret_asked = TRUE;
  }
  if (r == -ESHUTDOWN)
    return EVENT_DROPPED;
  if (r == 0 || !e->frame)
    sxs__manager_record_function(q->rt, e->function_id, e->kind, name, module);
  return r == 0 ? EVENT_NAMED : EVENT_UNNAMED;
}

/* Handles what one runtime queued so far. Called and returns with naming.lock held (released
 * while it works). */
static void handle_queue_locked(SxsNamingQueue *q, GArray **batch, guint32 tid) {
  g_mutex_unlock(&naming.lock);
  g_mutex_lock(&q->lock);
  GArray *events = q->queue;
  q->queue = *batch;
  *batch = events;
  guint64 last = q->queued;
  g_mutex_unlock(&q->lock);
  guint64 first = last - events->len; /* events[i] is event number first + i + 1 */
  guint64 named = 0, dropped = 0;
  gboolean asked = FALSE;
  for (guint i = 0; i < events->len; i++) {
    gboolean name_it = first + i + 1 > __atomic_load_n(&q->unnamed_upto, __ATOMIC_ACQUIRE);
    EventOutcome r = handle_event(q, &g_array_index(events, QueuedEvent, i), name_it, &asked);
    named += r == EVENT_NAMED;
    dropped += r == EVENT_DROPPED;
  }
  g_array_set_size(events, 0);
  g_mutex_lock(&naming.lock);
  q->handled = last;
  q->named += named;
  q->dropped += dropped;
  gboolean listed = FALSE;
  for (guint i = 0; i < q->n_namers; i++)
    listed |= q->namers[i] == tid;
  if (asked && !listed && q->n_namers < SXS_INVENTORY_MAX_NAMERS)
    q->namers[q->n_namers++] = tid;
  g_cond_broadcast(&naming.done);
}

/* The naming thread: wakes every SXS_NAMING_PERIOD_MS (or when asked), handles every queue.
 * Context: its own thread, every signal blocked; never holds a lock across a call into a runtime.
 * It runs until the process ends. */
static void *naming_main(void *arg) {
  (void)arg;
  guint32 tid = (guint32)syscall(SYS_gettid);
  GArray *batch = g_array_new(FALSE, FALSE, sizeof(QueuedEvent));
  g_mutex_lock(&naming.lock);
  for (;;) {
    if (!naming.wake_asked)
      g_cond_wait_until(&naming.wake, &naming.lock,
                        g_get_monotonic_time() + SXS_NAMING_PERIOD_MS * G_TIME_SPAN_MILLISECOND);
    naming.wake_asked = FALSE;
    for (SxsNamingQueue *q = naming.queues; q; q = q->next)
      handle_queue_locked(q, &batch, tid);
  }
  return NULL;
}

/* Called with naming.lock held. */
static void wake_locked(void) {
  naming.wake_asked = TRUE;
  g_cond_signal(&naming.wake);
}

/* Starts the naming thread once; FALSE when it could not start (then never again). Called with
 * naming.lock held. */
static gboolean start_thread_locked(void) {
  if (naming.running || naming.failed)
    return naming.running;
  /* The program's signals are never handled on this thread. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int r = pthread_create(&naming.thread, NULL, naming_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) {
    naming.failed = TRUE;
    sxs__manager_log("cannot start the thread that names functions (%s); the inventory is off and frames that "
                     "could not be named where they were met stay unnamed",
                     g_strerror(r));
    return FALSE;
  }
  pthread_setname_np(naming.thread, "sxsprof-names");
  __atomic_store_n(&naming.running, 1, __ATOMIC_RELEASE);
  return TRUE;
}

/* Is the thread there to take an event? Starts it on first use. */
static gboolean thread_ready(void) {
  if (__atomic_load_n(&naming.running, __ATOMIC_ACQUIRE))
    return TRUE;
  g_mutex_lock(&naming.lock);
  gboolean ok = start_thread_locked();
  g_mutex_unlock(&naming.lock);
  return ok;
}

SxsNamingQueue *sxs__naming_queue_new(SxsRuntime *rt, const SxsRuntimeOps *ops, gpointer instance) {
  SxsNamingQueue *q = g_try_new0(SxsNamingQueue, 1);
  if (!q)
    return NULL;
  q->rt = rt;
  q->runtime_id = rt->id;
  q->ops = ops;
  q->instance = instance;
  g_mutex_init(&q->lock);
  q->queue = g_array_new(FALSE, FALSE, sizeof(QueuedEvent));
  g_mutex_lock(&naming.lock);
  q->next = naming.queues;
  naming.queues = q;
  g_mutex_unlock(&naming.lock);
  return q;
}

gboolean sxs__naming_inventory_on(SxsNamingQueue *q) {
  if (!thread_ready())
    return FALSE;
  g_mutex_lock(&q->lock);
  q->inventory = TRUE;
  g_mutex_unlock(&q->lock);
  return TRUE;
}

/* Appends one event; wakes the thread when the queue is full enough. */
static void append(SxsNamingQueue *q, const QueuedEvent *e) {
  g_mutex_lock(&q->lock);
  g_array_append_vals(q->queue, e, 1);
  q->queued++;
  q->events += !e->frame;
  gboolean wake = q->queue->len == SXS_NAMING_WAKE_AT;
  g_mutex_unlock(&q->lock);
  if (wake) {
    g_mutex_lock(&naming.lock);
    wake_locked();
    g_mutex_unlock(&naming.lock);
  }
}

void sxs__naming_add(SxsNamingQueue *q, uint64_t function_id, SxsCodeKind kind) {
  QueuedEvent e = {.function_id = function_id, .kind = kind};
  append(q, &e);
}

int sxs__naming_later(SxsRuntime *rt, uint64_t function_id) {
  g_mutex_lock(&naming.lock);
  SxsNamingQueue *q = naming.queues;
  while (q && q->rt != rt)
    q = q->next;
  g_mutex_unlock(&naming.lock);
  if (!q || !thread_ready())
    return -ENOENT;
  QueuedEvent e = {.function_id = function_id, .kind = SXS_CODE_NAMED, .frame = TRUE};
  append(q, &e);
  return 0;
}

/* Waits until q has handled `target` events or the deadline passes. Called with naming.lock
 * held. */
static gboolean wait_handled_locked(SxsNamingQueue *q, guint64 target, gint64 deadline) {
  while (q->handled < target) {
    wake_locked();
    if (!g_cond_wait_until(&naming.done, &naming.lock, deadline))
      return q->handled >= target;
  }
  return TRUE;
}

static guint64 queued_of(SxsNamingQueue *q) {
  g_mutex_lock(&q->lock);
  guint64 n = q->queued;
  g_mutex_unlock(&q->lock);
  return n;
}

gboolean sxs__naming_drain(SxsNamingQueue *q, int timeout_ms) {
  gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * G_TIME_SPAN_MILLISECOND;
  g_mutex_lock(&naming.lock);
  if (!naming.running || pthread_equal(pthread_self(), naming.thread)) {
    gboolean idle = !naming.running;
    g_mutex_unlock(&naming.lock);
    return idle;
  }
  gboolean all = TRUE;
  /* Queues are only ever added at the head: `next` stays valid while the lock is let go. */
  for (SxsNamingQueue *one = naming.queues; one; one = one->next) {
    if (q && one != q)
      continue;
    g_mutex_unlock(&naming.lock);
    guint64 target = queued_of(one);
    g_mutex_lock(&naming.lock);
    all &= wait_handled_locked(one, target, deadline);
  }
  g_mutex_unlock(&naming.lock);
  return all;
}

void sxs__naming_module_unloading(SxsNamingQueue *q, int timeout_ms) {
  if (sxs__naming_drain(q, timeout_ms))
    return;
  guint64 upto = queued_of(q);
  g_mutex_lock(&naming.lock);
  if (upto > __atomic_load_n(&q->unnamed_upto, __ATOMIC_RELAXED))
    __atomic_store_n(&q->unnamed_upto, upto, __ATOMIC_RELEASE);
  gboolean log = !q->unnamed_logged;
  q->unnamed_logged = TRUE;
  g_mutex_unlock(&naming.lock);
  if (log)
    sxs__manager_log("runtime %d: a module unload could not wait %d ms for functions to be named; those queued "
                     "before it are counted without names",
                     q->runtime_id, timeout_ms);
}

void sxs__naming_fill(int runtime_id, SxsRuntimeModel *r) {
  g_mutex_lock(&naming.lock);
  SxsNamingQueue *q = naming.queues;
  while (q && q->runtime_id != runtime_id)
    q = q->next;
  SxsInventoryModel *m = &r->inventory;
  if (q) {
    m->named = q->named;
    m->dropped = q->dropped;
    m->n_naming_threads = q->n_namers;
    for (guint i = 0; i < q->n_namers; i++)
      m->naming_threads[i] = q->namers[i];
  }
  g_mutex_unlock(&naming.lock);
  if (q) {
    g_mutex_lock(&q->lock);
    m->enabled = q->inventory;
    m->events = q->events;
    g_mutex_unlock(&q->lock);
  }
}

void sxs__naming_reset_for_tests(void) {
  sxs__naming_drain(NULL, 2000);
  g_mutex_lock(&naming.lock);
  naming.queues = NULL;
  g_mutex_unlock(&naming.lock);
}
