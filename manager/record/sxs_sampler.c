/* sxs_sampler: a sampling profiler over every thread of the process, every runtime's frames.
 *
 *   sampler thread (the profiler's own; never runs managed code; all signals blocked)
 *     mode=wall: a tick every 1/frequency s, on a fixed schedule (a tick more than a period late
 *     is missed: counted, not caught up with); mode=cpu: a batch when the timers' handlers call
 *     for it (below); threads from /proc/self/task, rescanned every 100 ms
 *     mode=wall, each tick: up to SAMPLER_TICK_THREADS threads, in turn (tick_select); each one's
 *     sample weighs the periods since its last, so wall time stays whole whatever their number
 *       has not run since its last sample ........... that stack counts again (no signal)
 *       hardly runs (< 1 % of a CPU lately), last stack still in its slots ... counts again
 *       blocked in a system call (/proc/self/task/<tid>/syscall: sp, pc) ... walked from here,
 *           over its stack read with process_vm_readv (sxs__unwind_remote): no signal, so its
 *           system call is never interrupted
 *       running, or busy:
 *         slot i <- {tid, module map, step cache, stack ranges}; state REQUESTED
 *         rt_tgsigqueueinfo(tid, SIGPROF, si_value = slot i, sequence)  ---.
 *                                                                          v  the thread, in its handler:
 *                                                          state REQUESTED -> RUNNING
 *                                                          registers from the ucontext, its stack's
 *                                                          range from the snapshot, a native walk
 *                                                          (frame pointers through JIT code, cached
 *                                                          rules through native code) into slot i
 *         (the tick goes on: a later tick collects)  <---- state DONE, requests_done++ (futex wake)
 *       classify (owners cache, each runtime's GetFunctionFromIP), name, aggregate (sxs_stacks)
 *
 * Up to SAMPLER_TICK_THREADS requests are in flight at once, each in a slot of its own; no tick
 * waits for them (a thread woken by the signal may wait for a CPU longer than a period), so a
 * tick's work is bounded by the threads it takes, whatever their number. The handler writes only
 * its slot, allocates nothing, takes no lock and calls no libc function but syscall(gettid),
 * syscall(futex) and clock_gettime (libunwind only for a native frame no cached rule covers yet).
 * A thread that does not answer in time (it has the signal blocked, or is not scheduled) is
 * given up on; a handler that started is waited for, and if it never finishes by stop, its slot
 * and what it walks with stay its own. The walk resources and stack ranges a request was sent
 * with stay valid while it is in flight (sampler.walks_kept, retired_stacks).
 *
 * mode=cpu samples a thread once per period of CPU time it used (each thread's CPU-time timer,
 * raised by the kernel on the thread itself while it runs), so an idle thread costs nothing and
 * a sample stands for CPU time. It has no fixed tick: the sampler sleeps until a handler wakes it
 * (a thread's captures all full, or SAMPLER_WAKE_PENDING waiting) or a rescan is due, and
 * collects what the timers captured in one batch (run_timers).
 *
 * Two engines raise those per-thread expiries ([sampling] engine=, chosen at start by
 * choose_engine): a perf_events counter per thread (sxs_engine_perf: the task clock, or a hardware
 * event, overflowing every period, its signal carrying the counter's fd; the handler reads the
 * counter for the periods the signal stands for), or a CPU-time timer per thread (timer_create;
 * the kernel checks those at its scheduler tick only, so above its rate an expiry stands for
 * several periods, si_overrun). Both write into the same per-thread captures; the sampler's side
 * does not tell them apart. The profiler's own threads (named sxsprof-*) are never sampled, in
 * either mode: their CPU time is kept instead (own_thread_note).
 *
 * System calls. SIGPROF is installed with SA_RESTART, so a call the kernel restarts (read, write,
 * recv on a socket without a timeout, a futex wait without one) goes on unseen; the others fail
 * with EINTR however the handler is installed (nanosleep, epoll_wait, poll, select, futex and
 * semaphore waits with a timeout: man 7 signal). mode=cpu signals only a thread that is running.
 * mode=wall never signals a thread blocked in a system call, nor one that hardly runs; a thread
 * that runs and blocks in turn can still be signalled just as it enters a call (the microseconds
 * between the look at /proc and the signal's arrival). */
#include "sxs_sampler.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "sxs_engine_perf.h"
#include "sxs_manager.h"
#include "sxs_prologue.h"
#include "sxs_sampler_hot.h"
#include "sxs_search.h"
#include "sxs_hresult.h"
#include "sxs_snapshot.h"
#include "sxs_stacks.h"
#include "sxs_stitch.h"
#include "sxs_unwind.h"
#include "sxs_walk_resources.h"

#define SAMPLER_LOADER "ld-linux-x86-64.so.2"
#define SAMPLER_WAIT_NS (20 * G_GINT64_CONSTANT(1000000)) /* a thread has this long to take its sample */
/* ... when no tick waits for it (wall mode, signal walker): on a busy machine a thread woken by the
 * signal can wait that long for a CPU, and meanwhile its stack does not change */
#define SAMPLER_REQUEST_WAIT_NS (100 * G_GINT64_CONSTANT(1000000))
#define SAMPLER_STUCK_NS (1000 * G_GINT64_CONSTANT(1000000)) /* a handler that ran this long never ends */
#define SAMPLER_CAPTURE_RING 4096                            /* captures whose times the quantiles are taken over */
#define SAMPLER_REUSE_WALKS 4 /* stacks a thread keeps the runtimes' walks of (suspend walker) */
#define SAMPLER_RESCAN_NS (100 * G_GINT64_CONSTANT(1000000)) /* threads and stacks looked for again */
#define SAMPLER_RESCAN_NAMES 16 /* threads whose names one rescan reads again (new ones aside) */
#define SAMPLER_CODE_RESCAN_NS (1000 * G_GINT64_CONSTANT(1000000)) /* code mappings looked for again, at most */
#define SAMPLER_MAPS_NS (250 * G_GINT64_CONSTANT(1000000))         /* /proc/self/maps read at most this often */
/* ... or this often while captures find no stack range (a new thread's stack, not yet read: at a
 * high rate each of its first SAMPLER_MAPS_NS would lose hundreds of samples) */
#define SAMPLER_MAPS_MISSING_NS (10 * G_GINT64_CONSTANT(1000000))
#define SAMPLER_RESCAN_NEW 64 /* threads one rescan adds at most (a name and a status read each) */
/* Wall mode: a thread that used less than 1/SAMPLER_IDLE_SHARE of a CPU lately (over the last
 * SAMPLER_SHARE_NS at least) is never interrupted: it spends nearly all its time blocked, and a
 * signal would likely arrive as it enters its next system call (sample_wall). */
#define SAMPLER_IDLE_SHARE 100
#define SAMPLER_SHARE_NS (1000 * G_GINT64_CONSTANT(1000000))
/* ... and one that used less than 1/SAMPLER_WAITING_SHARE of it and waited since its last look (gave up its CPU:
 * a voluntary context switch) is found running only between two waits: it is not signalled then. A signal that
 * arrives as such a thread enters its next wait interrupts that wait (poll, epoll_wait and nanosleep return EINTR
 * whatever SA_RESTART says), and the microseconds between the look and the signal are a good part of its time
 * between two waits. A busy thread that only waits for a CPU (more busy threads than cores) switches involuntarily,
 * and is signalled as before. */
#define SAMPLER_WAITING_SHARE 10
/* ... and one that used more than (SAMPLER_BUSY_SHARE - 1)/SAMPLER_BUSY_SHARE of it, lately and
 * since its last look, runs: it is signalled without asking the kernel where it is first. */
#define SAMPLER_BUSY_SHARE 10

/* The handler's state (sxs_sampler_hot.c): the sampler writes what it publishes there. */
#define hot sxs__sampler_hot

typedef struct {
  pid_t tid;
  char *name;
  gint64 cpu_accounted; /* CPU time (ns) the samples taken so far stand for */
  gboolean seen;
  gboolean blocked;      /* the thread blocks the signal: never asked */
  gboolean name_checked; /* its name was read again after it was first seen */
  guint idle_ticks;      /* ticks in a row its CPU clock did not reach a period: looked at less often */
  guint timeouts;        /* requests in a row it did not answer */
  gint64 waits_seen;     /* wall mode: its voluntary context switches at its last look (thread_waits) */
  gint64 cpu_at_sample;  /* wall mode: its CPU time at its last sample */
  /* wall mode: two marks of its CPU clock (ns) and when they were taken, the older at least
   * SAMPLER_SHARE_NS before the newer: the share of a CPU it used lately is taken from the older */
  gint64 mark_cpu[2];
  gint64 cpu_used; /* wall mode: the CPU time it used between its last two looks (due) */
  guint64 mark_ns[2];
  guint64 wall_accounted;       /* wall mode: the time (CLOCK_MONOTONIC, ns) its samples so far stand up to */
  SxsStackFrame *last;          /* wall mode: its last stack (stitched), last_n frames; owned */
  SxsStackHandle *last_counted; /* wall mode: where that stack is counted (NULL: not counted) */
  guint last_generation;        /* wall mode: sampler.code_generation when that stack was found */
  guint request;                /* wall mode: 1 + the slot of its request in flight, 0 when none */
  ThreadSlot *tslot;            /* timer mode: its slot in the pool, or NULL */
  timer_t timer;                /* timer mode: its CPU-time timer (valid with tslot, timer engine) */
  int perf_fd;                  /* timer mode, perf engine: its counter (valid with tslot), else -1 */
  gint64 cpu_at_arm;            /* timer mode, timer engine: its CPU time when its timer was made */
  guint64 captures, expiries;   /* timer mode: its captures collected, and the periods they stand for */
  gboolean timer_deleted;       /* timer mode: the timer is gone already (the sampler stops) */
  guint last_n;
  guint skip;                                   /* ticks left before it is looked at again */
  struct WalkReuse *reuse[SAMPLER_REUSE_WALKS]; /* suspend walker: its last walks by the runtimes (NULL: none); owned */
} SampledThread;

/* Wall mode, signal walker: a tick's request, the sampler's side of slot i (i below
 * SAMPLER_TICK_THREADS). It stays in flight until a later tick finds it answered or gives it up. */
typedef struct {
  gboolean busy;
  SampledThread *thread; /* NULL once the thread was forgotten (its capture is then not counted) */
  guint64 weight;        /* the periods its sample stands for */
  guint64 sent_ns;
  SxsWalkResources res; /* what the handler walks with, and what its frames are named with */
} Request;

/* The sampler. `lock` guards the counters and dropped (read by sxs__sampler_fill); the rest is the
 * sampler thread's alone once it runs. */
static struct {
  GMutex lock;
  gsize started; /* g_once_init_enter guard */
  gboolean running;
  gboolean stop;
  pthread_t thread;
  int frequency;
  SxsSamplingMode mode;
  char *off_reason;
  guint64 ticks, taken, weight, capture_ns, resolve_ns, frames;
  guint64 suspensions, walks_reused;          /* suspend walker: times the runtimes were suspended; samples that
                                      * reused a thread's last walk instead */
  guint64 capture_max;                        /* the longest capture */
  guint32 capture_ring[SAMPLER_CAPTURE_RING]; /* the last captures' times (ns), for quantiles */
  guint capture_count;                        /* captures noted: the ring's next slot, modulo */
  GHashTable *dropped;
  GHashTable *threads; /* pid_t -> SampledThread* */
  StackRanges *stacks;
  GPtrArray *retired_stacks; /* kept while a handler may still read them */
  pid_t own_tid;
  SxsWalkerKind walker;
  int walking_runtime;     /* the runtime whose thread the sampler walks now (atomic) */
  uint64_t walking_thread; /* its ThreadID, 0 when none (atomic) */
  /* The last SAMPLER_DESTROYED ThreadIDs whose ThreadDestroyed began, as (runtime id << 48 |
   * ThreadID & 48 bits) in a ring (atomic entries; destroyed_next counts writes). A walk never
   * starts on a thread in it: the runtime has let that thread go, even while it is suspended. */
  uint64_t destroyed[64];
  guint destroyed_next;
  gboolean suspend_refusal_logged;
  guint64 ticks_signal, ticks_suspend;
  pid_t pid;
  uid_t uid;
  gboolean stacks_stale;               /* the stack ranges are to be read again at the next rescan */
  gboolean stacks_missing;             /* a capture found no stack range: they are read again soon */
  gboolean abandoned;                  /* a capture was left running at stop: its resources are never released */
  GPtrArray *order;                    /* the threads by id, the order ticks take them in (rebuilt at each rescan) */
  guint cursor;                        /* where the next tick starts in order */
  pid_t cursor_tid;                    /* the thread at cursor when order was rebuilt (or the next one by id) */
  guint names_at;                      /* where the next rescan starts reading names again, in order */
  guint64 ticks_missed;                /* ticks that started more than a period late: the periods skipped */
  guint64 first_tick_ns, last_tick_ns; /* when the first and the last tick started (CLOCK_MONOTONIC) */
  guint threads_max;                   /* the most threads seen at once */
  Request requests[SAMPLER_TICK_THREADS];
  guint walks_kept;      /* ticks' walk resources kept taken for requests still in flight */
  GArray *code;          /* the executable mappings, [lo, hi) pairs in address order (read with the stacks) */
  guint code_generation; /* counts the changes of code */
  guint64 maps_read_ns;
  gboolean blocked_walks_since_maps; /* threads were walked from outside since the maps were read */
  gboolean code_unknown;             /* a capture held code a runtime owns outside every mapping read (below) */
  guint64 blocked_walks, blocked_walk_ns;
  gboolean use_timers;         /* mode=cpu: per-thread CPU-time timers capture the stacks */
  SxsWalkResources timer_walk; /* what timer handlers walk with (taken, released when replaced) */
  gboolean timer_walk_taken;
  gboolean timer_leftover; /* suspend walker: the last batch left captures for the next one */
  guint64 wakes;           /* cpu mode: the sampler's batches (it woke, was woken, or rescanned) */
  SxsEngineKind engine;    /* mode=cpu: the engine that runs (perf or timer) */
  char *engine_reason;     /* why that one (owned; under lock once running) */
  SxsSamplingEvent event;  /* what a period counts (perf engine) */

  guint perf_fds, perf_fd_budget; /* perf engine: counters open, and the most that may be */
  gboolean timer_fallback_logged;
  /* Every thread's rate so far (timer mode), by tid: SxsThreadRateModel* (lock; owned); the
   * profiler's own threads, never sampled, and their CPU time (lock; owned). */
  GHashTable *rates;
  GHashTable *own;
  char **debug_dirs; /* [symbols] debug_dirs=, for the walk resources (owned) */
} sampler;

/* The kernel's id of another thread's CPU-time clock (CPUCLOCK_SCHED of a thread, by its tid). */
static clockid_t thread_cpu_clock(pid_t tid) {
  return (clockid_t)((~(unsigned)tid) << 3) | 6;
}

/* Thread t's CPU time in ns, or -1 when it cannot be read (the thread is gone). */
static gint64 thread_cpu_ns(pid_t tid) {
  struct timespec ts;
  if (clock_gettime(thread_cpu_clock(tid), &ts) != 0)
    return -1;
  return (gint64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Adds one capture's time in the handler to the totals and the quantiles' ring. Context: the
 * sampler thread. */
static void note_capture(guint64 ns) {
  g_mutex_lock(&sampler.lock);
  sampler.capture_ns += ns;
  sampler.capture_max = MAX(sampler.capture_max, ns);
  sampler.capture_ring[sampler.capture_count++ % SAMPLER_CAPTURE_RING] = (guint32)MIN(ns, G_MAXUINT32);
  g_mutex_unlock(&sampler.lock);
}

static int compare_u32(const void *a, const void *b) {
  guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
  return x < y ? -1 : x > y;
}

/* The quantiles of the last captures' times (nearest rank), from the ring. Context: sampler.lock
 * held. */
static void capture_quantiles(SxsSamplesModel *s) {
  guint n = MIN(sampler.capture_count, SAMPLER_CAPTURE_RING);
  s->capture_ns_max = sampler.capture_max;
  if (n == 0)
    return;
  g_autofree guint32 *sorted = g_memdup2(sampler.capture_ring, n * sizeof sorted[0]);
  qsort(sorted, n, sizeof sorted[0], compare_u32);
  s->capture_ns_p50 = sorted[(n - 1) * 50 / 100];
  s->capture_ns_p90 = sorted[(n - 1) * 90 / 100];
  s->capture_ns_p99 = sorted[(n - 1) * 99 / 100];
}

static void count_dropped(const char *reason) {
  g_mutex_lock(&sampler.lock);
  guint64 *v = g_hash_table_lookup(sampler.dropped, reason);
  if (!v) {
    v = g_new0(guint64, 1);
    g_hash_table_insert(sampler.dropped, g_strdup(reason), v);
  }
  (*v)++;
  g_mutex_unlock(&sampler.lock);
}

/* Counts why a capture gave no frame (n: what the walk returned); a stack that was not found sends
 * the sampler to read the stack mappings again. */
static void count_failed_capture(int n) {
  count_dropped(n == -EBUSY ? "thread inside a walk" : n == -ERANGE ? "stack not found" : "walk failed");
  if (n == -ERANGE)
    sampler.stacks_stale = sampler.stacks_missing = TRUE;
}

/* The threads' stacks from /proc/self/maps; and into code, the executable mappings ([lo, hi)
 * pairs, in address order). Context: the sampler thread. */
static StackRanges *read_stack_ranges(GArray *code) {
  g_autofree char *text = NULL;
  if (!g_file_get_contents("/proc/self/maps", &text, NULL, NULL))
    return NULL;
  g_autoptr(GArray) ranges = g_array_new(FALSE, FALSE, sizeof(uintptr_t) * 2);
  g_autoptr(GArray) ro_code = g_array_new(FALSE, FALSE, sizeof(uintptr_t) * 2);
  g_array_set_size(code, 0);
  uintptr_t prev_guard_end = 0;
  for (char *line = text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    /* "lo-hi perms offset dev inode   path", parsed by hand: a .NET process has thousands. */
    char *at;
    uintptr_t lo = (uintptr_t)g_ascii_strtoull(line, &at, 16), hi = 0;
    if (*at == '-')
      hi = (uintptr_t)g_ascii_strtoull(at + 1, &at, 16);
    char perms[4];
    if (*at != ' ' || strnlen(at + 1, 4) < 4) {
      line = next;
      continue;
    }
    memcpy(perms, at + 1, 4);
    at += 5;
    const char *inode = at;
    for (int field = 0; field < 3; field++) { /* offset, dev, inode */
      while (*at == ' ')
        at++;
      inode = at;
      while (*at && *at != ' ')
        at++;
    }
    while (*at == ' ')
      at++;
    const char *path = at;
    gboolean anonymous = inode[0] == '0' && (inode[1] == ' ' || inode[1] == '\0') && *path == '\0';
    /* A stack: the main thread's [stack], or an anonymous read-write mapping right above a guard
     * page (what pthread stacks are). Other writable memory (heaps, the GC's) is left out, so
     * that a walk can never read memory that is unmapped under it. */
    gboolean stack =
        g_str_has_prefix(path, "[stack]") || (perms[0] == 'r' && perms[1] == 'w' && anonymous && prev_guard_end == lo);
    uintptr_t r[2] = {lo, hi};
    if (stack)
      g_array_append_val(ranges, r);
    if (perms[2] == 'x')
      g_array_append_val(code, r);
    if (perms[2] == 'x' && perms[1] != 'w')
      g_array_append_val(ro_code, r);
    prev_guard_end = perms[0] == '-' && perms[1] == '-' && perms[2] == '-' ? hi : 0;
    line = next;
  }
  StackRanges *s = g_malloc(sizeof *s + (ranges->len + ro_code->len) * sizeof s->ranges[0]);
  s->n = ranges->len;
  s->n_code = ro_code->len;
  memcpy(s->ranges, ranges->data, ranges->len * sizeof s->ranges[0]);
  memcpy(s->ranges + s->n, ro_code->data, ro_code->len * sizeof s->ranges[0]);
  return s;
}

/* Is the sampler's signal blocked by thread tid (SigBlk of its status)? With ret_name, also its
 * name (Name of its status; newly allocated, NULL when unknown), from the same read. */
static gboolean thread_status(pid_t tid, char **ret_name) {
  g_autofree char *path = g_strdup_printf("/proc/self/task/%d/status", (int)tid);
  g_autofree char *text = NULL;
  if (ret_name)
    *ret_name = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return FALSE;
  if (ret_name && g_str_has_prefix(text, "Name:")) {
    const char *name = text + 5, *end = strchr(name, '\n');
    *ret_name = g_strstrip(g_strndup(name, end ? (gsize)(end - name) : strlen(name)));
  }
  const char *blk = strstr(text, "\nSigBlk:");
  if (!blk)
    return FALSE;
  guint64 mask = g_ascii_strtoull(blk + 8, NULL, 16);
  return (mask >> (SXS_SAMPLER_SIGNAL - 1)) & 1;
}

static gboolean thread_blocks_signal(pid_t tid) {
  return thread_status(tid, NULL);
}

/* Timer mode: publishes thread t's rate so far (its captures, the periods they stand for, the CPU
 * time it used while sampled) to sampler.rates; last: it is disarmed now, so its counter or CPU
 * clock is read once more. Context: the sampler thread. */
static void thread_rate_note(SampledThread *t, gboolean last) {
  if (!t->tslot)
    return;
  guint64 cpu_ns = 0;
  if (t->perf_fd >= 0) {
    if (!last || sxs__engine_perf_read(t->perf_fd, &cpu_ns) != 0)
      cpu_ns = __atomic_load_n(&t->tslot->count, __ATOMIC_ACQUIRE);
  } else if (last && t->cpu_at_arm >= 0) {
    gint64 now = thread_cpu_ns(t->tid);
    cpu_ns = now >= t->cpu_at_arm ? (guint64)(now - t->cpu_at_arm) : 0;
  }
  g_mutex_lock(&sampler.lock);
  SxsThreadRateModel *r = g_hash_table_lookup(sampler.rates, GINT_TO_POINTER(t->tid));
  if (!r) {
    r = g_new0(SxsThreadRateModel, 1);
    r->os_tid = (uint32_t)t->tid;
    g_hash_table_insert(sampler.rates, GINT_TO_POINTER(t->tid), r);
  }
  if (g_strcmp0(r->name, t->name) != 0) {
    g_free(r->name);
    r->name = g_strdup(t->name);
  }
  r->captures = t->captures;
  r->expiries = t->expiries;
  /* A hardware event counts events, not time; the timer engine's clock is read only at the end
   * (a system call per thread): meanwhile the periods sampled stand for it. */
  if (sampler.event == SXS_EVENT_CPU_TIME)
    r->cpu_ns = cpu_ns > 0 ? cpu_ns : t->expiries * hot.event_period;
  else
    r->events = cpu_ns > 0 ? cpu_ns : t->expiries * hot.event_period;
  g_mutex_unlock(&sampler.lock);
}

/* Timer mode: gives the thread a slot and a CPU-time timer firing every period of its CPU time
 * (timer engine), or a perf_events counter overflowing every period (perf engine). */
static void timer_arm(SampledThread *t) {
  if (!hot.pool)
    hot.pool = g_new0(ThreadSlot, SAMPLER_POOL_SLOTS);
  ThreadSlot *ts = NULL;
  for (guint i = 0; i < SAMPLER_POOL_SLOTS && !ts; i++)
    if (__atomic_load_n(&hot.pool[i].magic, __ATOMIC_ACQUIRE) == 0)
      ts = &hot.pool[i];
  if (!ts) {
    count_dropped("too many threads for timers");
    return;
  }
  ts->tid = t->tid;
  for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++)
    ts->cap[i].state = SLOT_IDLE;
  ts->missed = 0;
  ts->count = ts->accounted = 0;
  ts->fd = -1;
  __atomic_store_n(&ts->magic, THREAD_SLOT_MAGIC, __ATOMIC_RELEASE);
  /* A counter is a file descriptor: the program's own must never run short because of them, so
   * past sampler.perf_fd_budget counters (a quarter of the soft limit) a thread gets a timer, as
   * it does when its counter cannot be opened. A hardware event has no timer to fall back on. */
  gboolean cpu_time = sampler.event == SXS_EVENT_CPU_TIME;
  if (sampler.engine == SXS_ENGINE_PERF && (sampler.perf_fds < sampler.perf_fd_budget || !cpu_time)) {
    /* The counter starts counting (and may overflow) before its fd is known here: an overflow
     * that finds no slot yet is not captured, and counts with the thread's next sample. */
    int fd = sampler.perf_fds < sampler.perf_fd_budget
                 ? sxs__engine_perf_open(t->tid, sampler.event, hot.event_period, SXS_SAMPLER_SIGNAL)
                 : -EMFILE;
    if (fd >= 0) {
      __atomic_store_n(&ts->fd, fd, __ATOMIC_RELEASE);
      if (fd < SAMPLER_PERF_FDS)
        __atomic_store_n(&hot.perf_fd_slot[fd], (guint16)(ts - hot.pool + 1), __ATOMIC_RELEASE);
      t->perf_fd = fd;
      t->tslot = ts;
      sampler.perf_fds++;
      return;
    }
    if (fd == -ESRCH || !cpu_time) {
      __atomic_store_n(&ts->magic, 0, __ATOMIC_RELEASE);
      count_dropped(fd == -ESRCH ? "thread gone" : "no counter for the thread");
      return;
    }
  }
  if (sampler.engine == SXS_ENGINE_PERF && !sampler.timer_fallback_logged) {
    /* Once: the first thread that gets a timer, and why (the budget, or the counter refused). */
    sampler.timer_fallback_logged = TRUE;
    sxs__manager_log("sampling: thread %d gets a CPU-time timer, not a perf_events counter (%u counters open, at "
                     "most %u: a quarter of the file descriptors the process may open)",
                     (int)t->tid, sampler.perf_fds, sampler.perf_fd_budget);
  }
  t->cpu_at_arm = thread_cpu_ns(t->tid);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SXS_SAMPLER_SIGNAL;
  sev.sigev_value.sival_ptr = ts;
  sev._sigev_un._tid = t->tid;
  if (timer_create(thread_cpu_clock(t->tid), &sev, &t->timer) != 0) {
    __atomic_store_n(&ts->magic, 0, __ATOMIC_RELEASE);
    count_dropped("timer not created");
    return;
  }
  guint64 period = hot.event_period;
  struct itimerspec its = {
      .it_interval = {.tv_sec = (time_t)(period / 1000000000), .tv_nsec = (long)(period % 1000000000)}};
  its.it_value = its.it_interval;
  timer_settime(t->timer, 0, &its, NULL);
  t->tslot = ts;
}

/* Timer mode: the thread is gone (or the sampler stops): its timer goes, then its slot. A gone
 * thread runs no handler, so its slot is free at once. */
static void timer_disarm(SampledThread *t) {
  if (!t->tslot)
    return;
  thread_rate_note(t, TRUE);
  if (t->perf_fd >= 0) {
    int fd = t->perf_fd;
    sxs__engine_perf_close(fd);
    if (fd < SAMPLER_PERF_FDS)
      __atomic_store_n(&hot.perf_fd_slot[fd], 0, __ATOMIC_RELEASE);
    __atomic_store_n(&t->tslot->fd, -1, __ATOMIC_RELEASE);
    t->perf_fd = -1;
    sampler.perf_fds--;
  } else if (!t->timer_deleted) {
    timer_delete(t->timer);
  }
  /* Its captures never collected no longer wait (they count no more towards a wake). */
  for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++)
    if (__atomic_load_n(&t->tslot->cap[i].state, __ATOMIC_ACQUIRE) == SLOT_DONE)
      __atomic_add_fetch(&hot.timer_collected, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&t->tslot->magic, 0, __ATOMIC_RELEASE);
  t->tslot = NULL;
}

static void walk_reuse_free(struct WalkReuse *r);

static void sampled_thread_free(gpointer p) {
  SampledThread *t = p;
  if (t->request)
    sampler.requests[t->request - 1].thread = NULL;
  timer_disarm(t);
  for (guint i = 0; i < G_N_ELEMENTS(t->reuse); i++)
    walk_reuse_free(t->reuse[i]);
  g_free(t->last);
  g_free(t->name);
  g_free(t);
}

/* Thread t took the name name (owned now): the stacks sampled so far carry it too. */
static void thread_renamed(SampledThread *t, char *name) {
  g_free(t->name);
  t->name = name;
  sxs__stacks_rename_thread((uint32_t)t->tid, name);
}

static gint compare_tid(gconstpointer a, gconstpointer b) {
  pid_t x = (*(SampledThread *const *)a)->tid, y = (*(SampledThread *const *)b)->tid;
  return x < y ? -1 : x > y;
}

/* The order ticks take the threads in (by id), made again from the threads' table; the next tick
 * starts at the thread the cursor was on, or the next one by id when it is gone. */
static void rebuild_order(void) {
  if (sampler.order && sampler.order->len > 0)
    sampler.cursor_tid = ((SampledThread *)sampler.order->pdata[sampler.cursor % sampler.order->len])->tid;
  if (!sampler.order)
    sampler.order = g_ptr_array_new();
  g_ptr_array_set_size(sampler.order, 0);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    g_ptr_array_add(sampler.order, value);
  g_ptr_array_sort(sampler.order, compare_tid);
  g_mutex_lock(&sampler.lock);
  sampler.threads_max = MAX(sampler.threads_max, sampler.order->len);
  g_mutex_unlock(&sampler.lock);
  sampler.cursor = 0;
  while (sampler.cursor < sampler.order->len &&
         ((SampledThread *)sampler.order->pdata[sampler.cursor])->tid < sampler.cursor_tid)
    sampler.cursor++;
  if (sampler.cursor == sampler.order->len)
    sampler.cursor = 0;
}

/* .NET threads name themselves after they start (thread-pool workers, Thread.Name): the names of
 * up to SAMPLER_RESCAN_NAMES threads are read again at each rescan, in turn, so that a rescan of
 * hundreds of threads stays short. */
static void refresh_names(void) {
  guint n = sampler.order->len;
  for (guint i = 0; i < n && i < SAMPLER_RESCAN_NAMES; i++) {
    SampledThread *t = sampler.order->pdata[(sampler.names_at + i) % n];
    g_autofree char *comm_path = g_strdup_printf("/proc/self/task/%d/comm", (int)t->tid);
    g_autofree char *comm = NULL;
    if (g_file_get_contents(comm_path, &comm, NULL, NULL) && g_strcmp0(g_strstrip(comm), t->name) != 0)
      thread_renamed(t, g_steal_pointer(&comm));
  }
  sampler.names_at = n > 0 ? (sampler.names_at + MIN(n, SAMPLER_RESCAN_NAMES)) % n : 0;
}

/* May a handler read what a slot's inputs point to, now or later (a request sent and not yet
 * answered or given up, or a capture under way)? */
static gboolean slot_busy(void) {
  for (guint i = 0; i < SAMPLER_SLOTS; i++) {
    guint phase = SLOT_PHASE(__atomic_load_n(&hot.slots[i].state, __ATOMIC_ACQUIRE));
    if (phase == SLOT_REQUESTED || phase == SLOT_RUNNING)
      return TRUE;
  }
  return FALSE;
}

/* The profiler's own threads (output, names, sampler, attach) are named so: never sampled. */
#define SAMPLER_OWN_PREFIX "sxsprof-"

static gboolean own_thread_name(const char *name) {
  return name != NULL && g_str_has_prefix(name, SAMPLER_OWN_PREFIX);
}

/* Notes tid as one of the profiler's own threads (named name, or NULL to keep the name known), with
 * the CPU time it used so far. Context: the sampler thread. */
static void own_thread_note(pid_t tid, const char *name) {
  gint64 cpu = thread_cpu_ns(tid);
  g_mutex_lock(&sampler.lock);
  SxsThreadRateModel *r = g_hash_table_lookup(sampler.own, GINT_TO_POINTER(tid));
  if (!r) {
    r = g_new0(SxsThreadRateModel, 1);
    r->os_tid = (uint32_t)tid;
    g_hash_table_insert(sampler.own, GINT_TO_POINTER(tid), r);
  }
  if (name && g_strcmp0(r->name, name) != 0) {
    g_free(r->name);
    r->name = g_strdup(name);
  }
  if (cpu >= 0)
    r->cpu_ns = (guint64)cpu;
  g_mutex_unlock(&sampler.lock);
}

/* Rescans the process's threads (and the stack ranges). Context: the sampler thread, with no
 * capture under way. */
static void rescan(void) {
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    ((SampledThread *)value)->seen = FALSE;
  guint added = 0;
  DIR *dir = opendir("/proc/self/task");
  if (dir) {
    struct dirent *d;
    while ((d = readdir(dir))) {
      if (!g_ascii_isdigit(d->d_name[0]))
        continue;
      pid_t tid = (pid_t)g_ascii_strtoll(d->d_name, NULL, 10);
      if (tid == sampler.own_tid || g_hash_table_contains(sampler.own, GINT_TO_POINTER(tid))) {
        own_thread_note(tid, NULL);
        continue;
      }
      SampledThread *t = g_hash_table_lookup(sampler.threads, GINT_TO_POINTER(tid));
      if (!t && added == SAMPLER_RESCAN_NEW)
        continue; /* many threads starting at once: the others at the next rescans */
      if (!t) {
        added++;
        /* A new thread: a new stack mapping, read at once (its first captures need it). */
        sampler.stacks_stale = sampler.stacks_missing = TRUE;
        t = g_new0(SampledThread, 1);
        t->tid = tid;
        t->perf_fd = -1;
        /* A thread that blocks the signal (the profiler's own, some runtime threads) would never
         * answer: it is not asked while it does. Its name comes with that (one read of /proc). */
        t->blocked = thread_status(tid, &t->name);
        if (own_thread_name(t->name)) {
          own_thread_note(tid, t->name);
          sampled_thread_free(t);
          continue;
        }
        /* Its CPU clock, for wall mode's looks (cpu mode's timers need none: a system call saved). */
        t->cpu_accounted = sampler.use_timers ? 0 : MAX(thread_cpu_ns(tid), 0);
        t->cpu_at_sample = t->cpu_accounted;
        t->wall_accounted = sxs__sampler_now_ns(CLOCK_MONOTONIC);
        t->mark_cpu[0] = t->mark_cpu[1] = t->cpu_at_sample;
        t->mark_ns[0] = t->mark_ns[1] = t->wall_accounted;
        g_hash_table_insert(sampler.threads, GINT_TO_POINTER(tid), t);
        if (sampler.use_timers)
          timer_arm(t);
      } else if (t->blocked || !t->name_checked) {
        /* A thread may start with every signal blocked (created by a thread that blocks them)
         * and unblock them later: looked at again at each rescan while it blocks. A new thread
         * names itself as it starts (Thread.Name), maybe just after it was first seen: its name
         * is read once more at the next rescan. */
        g_autofree char *name = NULL;
        t->blocked = thread_status(tid, t->name_checked ? NULL : &name);
        if (own_thread_name(name)) {
          /* One of the profiler's, seen before it named itself: it leaves the sampled threads. */
          own_thread_note(tid, name);
          g_hash_table_remove(sampler.threads, GINT_TO_POINTER(tid));
          continue;
        }
        if (name && g_strcmp0(name, t->name) != 0)
          thread_renamed(t, g_steal_pointer(&name));
        t->name_checked = TRUE;
      }
      t->seen = TRUE;
    }
    closedir(dir);
  }
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    if (!((SampledThread *)value)->seen) {
      g_hash_table_iter_remove(&it);
      sampler.stacks_stale = TRUE; /* its stack may be unmapped: its range must go */
    }
  rebuild_order();
  refresh_names();

  /* /proc/self/maps of a .NET process has thousands of lines (milliseconds to read): read only
   * when a thread appeared or a capture did not find its stack, and not more often than every
   * SAMPLER_MAPS_NS (threads that start in a burst are found at the next read). */
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  if (sampler.blocked_walks_since_maps && now - sampler.maps_read_ns >= (guint64)SAMPLER_CODE_RESCAN_NS)
    sampler.stacks_stale = TRUE; /* JIT compilers map new code: walks from outside need to know it */
  if (sampler.code_unknown && now - sampler.maps_read_ns >= (guint64)SAMPLER_MAPS_NS)
    sampler.stacks_stale = TRUE; /* a runtime claimed code the mappings read last did not have */
  if (sampler.stacks &&
      now - sampler.maps_read_ns < (guint64)(sampler.stacks_missing ? SAMPLER_MAPS_MISSING_NS : SAMPLER_MAPS_NS))
    return;
  if (!sampler.code)
    sampler.code = g_array_new(FALSE, FALSE, sizeof(uintptr_t) * 2);
  g_autoptr(GArray) code_before = sampler.stacks_stale ? g_array_copy(sampler.code) : NULL;
  StackRanges *fresh = sampler.stacks_stale ? read_stack_ranges(sampler.code) : NULL;
  if (fresh) {
    sampler.maps_read_ns = now;
    sampler.stacks_missing = FALSE;
    sampler.blocked_walks_since_maps = FALSE;
    /* New code: a walk from outside made before may have missed frames in it (their return
     * addresses were not known to be code), so stacks found by such walks are walked again. */
    if (code_before->len != sampler.code->len ||
        memcmp(code_before->data, sampler.code->data, sampler.code->len * sizeof(uintptr_t) * 2) != 0) {
      sampler.code_generation++;
    }
    sampler.code_unknown = FALSE;
  }
  sampler.stacks_stale = FALSE;
  if (fresh) {
    if (sampler.stacks) {
      if (!sampler.retired_stacks)
        sampler.retired_stacks = g_ptr_array_new_with_free_func(g_free);
      g_ptr_array_add(sampler.retired_stacks, sampler.stacks);
    }
    sampler.stacks = fresh;
    /* Once no request is in flight and no timer handler holds the old ranges, nothing reads them
     * any more (else they wait for a later rescan). */
    __atomic_store_n(&hot.timer_res.stacks, fresh, __ATOMIC_RELEASE);
    if (!slot_busy() && __atomic_load_n(&hot.handlers_inflight, __ATOMIC_SEQ_CST) == 0)
      g_clear_pointer(&sampler.retired_stacks, g_ptr_array_unref);
  }
}

/* Sends slot index its request to thread t (the slot's inputs and tid set). Returns FALSE, the
 * reason counted, when the signal could not be sent. Context: the sampler thread. */
static gboolean request_send(guint index, SampledThread *t, const CaptureInputs *in) {
  SampleSlot *slot = &hot.slots[index];
  guint seq = ++slot->seq & 0xFFFFFFu;
  slot->seq = seq;
  slot->in = *in;
  slot->out.n = 0;
  __atomic_store_n(&slot->tid, t->tid, __ATOMIC_RELEASE);
  __atomic_store_n(&slot->state, SLOT_STATE(seq, SLOT_REQUESTED), __ATOMIC_RELEASE);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = SXS_SAMPLER_SIGNAL;
  si.si_code = SI_QUEUE;
  si.si_pid = sampler.pid;
  si.si_uid = sampler.uid;
  si.si_value.sival_int = REQUEST_VALUE(index, seq);
  if (syscall(SYS_rt_tgsigqueueinfo, sampler.pid, t->tid, SXS_SAMPLER_SIGNAL, &si) != 0) {
    __atomic_store_n(&slot->state, SLOT_IDLE, __ATOMIC_RELEASE);
    count_dropped(errno == ESRCH ? "thread gone" : "signal not sent");
    return FALSE;
  }
  return TRUE;
}

/* What became of a request. */
typedef enum {
  POLL_PENDING,   /* not answered yet */
  POLL_DONE,      /* answered: *ret_n frames in the slot (or -errno, the reason counted) */
  POLL_GIVEN_UP,  /* not answered in time, or the sampler stops: the slot is free again */
  POLL_ABANDONED, /* a capture under way when the sampler stops: the slot is the handler's for good */
} Poll;

/* Looks at slot index's request, sent at sent_ns: a finished capture is taken (its frames stay in
 * the slot until it is used again); a request not started within wait_ns (its thread has the
 * signal blocked, or is not scheduled) or when the sampler stops is given up; a capture a
 * handler started is waited for as long as it takes (it only walks; a process that is stopped
 * or throttled stops the sampler too), unless the sampler stops. Context: the sampler thread. */
static Poll request_poll(guint index, SampledThread *t, guint64 sent_ns, guint64 wait_ns, int *ret_n) {
  SampleSlot *slot = &hot.slots[index];
  gboolean stop = __atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE);
  gint state = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
  if (state == SLOT_STATE(slot->seq, SLOT_DONE)) {
    int got = slot->out.n;
    __atomic_store_n(&slot->state, SLOT_IDLE, __ATOMIC_RELEASE);
    if (t)
      t->timeouts = 0;
    if (got <= 0) {
      count_failed_capture(got);
      *ret_n = got < 0 ? got : -ENOENT;
    } else {
      note_capture(slot->out.capture_ns);
      *ret_n = got;
    }
    return POLL_DONE;
  }
  if (state == SLOT_STATE(slot->seq, SLOT_REQUESTED) &&
      (stop || sxs__sampler_now_ns(CLOCK_MONOTONIC) - sent_ns > wait_ns)) {
    gint expected = state;
    if (!__atomic_compare_exchange_n(&slot->state, &expected, SLOT_IDLE, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return POLL_PENDING; /* the handler started meanwhile */
    if (t)
      t->timeouts++;
    count_dropped("no answer in time");
    return POLL_GIVEN_UP;
  }
  if (state == SLOT_STATE(slot->seq, SLOT_RUNNING) && stop) {
    count_dropped("capture abandoned at stop");
    return POLL_ABANDONED;
  }
  return POLL_PENDING;
}

/* Sleeps until a handler finishes a capture (hot.requests_done moves on from seen) or 1 ms passes: a
 * thread answers in microseconds once it runs, and spinning would spend a core on waiting. */
static void requests_wait(gint seen) {
  struct timespec ms = {.tv_sec = 0, .tv_nsec = 1000000};
  syscall(SYS_futex, &hot.requests_done, FUTEX_WAIT_PRIVATE, seen, &ms, NULL, 0);
}

/*
 * Asks threads[0 .. n) (n at most SAMPLER_TICK_THREADS) for their stacks at once, each into slot
 * SAMPLER_SYNC_SLOT(i), and waits for the answers (request_poll): so it waits about as long as its
 * slowest thread takes to answer, not as long as all of them together. ret_n[i] receives the
 * frames captured into that slot's out (valid until the next call), or -errno (the reason
 * counted); *ret_abandoned is set when a capture was left to its handler at stop. Context: the
 * sampler thread.
 */
static void capture_batch(SampledThread *const *threads, guint n, const SxsWalkResources *res, int *ret_n,
                          gboolean *ret_abandoned) {
  const CaptureInputs in = {
      .map = res->map,
      .loader = sxs__modmap_find_named(res->map, SAMPLER_LOADER),
      .steps = res->steps,
      .stacks = sampler.stacks,
  };
  gboolean waiting[SAMPLER_TICK_THREADS];
  guint pending = 0;
  guint64 sent = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  for (guint i = 0; i < n; i++) {
    waiting[i] = request_send(SAMPLER_SYNC_SLOT(i), threads[i], &in);
    ret_n[i] = waiting[i] ? -EINPROGRESS : -ESRCH;
    pending += waiting[i];
  }
  while (pending > 0) {
    gint seen = __atomic_load_n(&hot.requests_done, __ATOMIC_ACQUIRE);
    for (guint i = 0; i < n; i++) {
      if (!waiting[i])
        continue;
      Poll p = request_poll(SAMPLER_SYNC_SLOT(i), threads[i], sent, SAMPLER_WAIT_NS, &ret_n[i]);
      if (p == POLL_PENDING)
        continue;
      waiting[i] = FALSE;
      pending--;
      if (p == POLL_GIVEN_UP)
        ret_n[i] = -ETIMEDOUT;
      else if (p == POLL_ABANDONED) {
        ret_n[i] = -ETIMEDOUT;
        *ret_abandoned = TRUE;
      }
    }
    if (pending > 0)
      requests_wait(seen);
  }
}

/* Asks thread t alone for its stack (capture_batch with one thread: the frames are in
 * hot.slots[SAMPLER_SYNC_SLOT(0)].out). */
static int capture(SampledThread *t, const SxsWalkResources *res, gboolean *ret_abandoned) {
  int n;
  capture_batch(&t, 1, res, &n, ret_abandoned);
  return n;
}

static void set_off(const char *why);

/* What a tick does for one thread. */
typedef enum {
  DUE_NOT,    /* nothing this tick */
  DUE_SAMPLE, /* take its stack */
  DUE_REPEAT, /* wall mode: it has not run since its last sample; its last stack counts again, with
               * no signal (a signal would wake it and could interrupt its system call) */
} Due;

/* Is thread t due a sample at this tick (at now), and with what weight? mode=cpu: per period of
 * CPU time it used since the samples so far accounted for; mode=wall: per period of wall time
 * since then (one at each tick when every tick reaches it, more when ticks take threads in turn or
 * a tick was missed). */
static Due due(SampledThread *t, guint64 period_ns, guint64 now, guint64 *ret_weight) {
  *ret_weight = 1;
  if (sampler.mode == SXS_SAMPLING_CPU) {
    /* Reading another thread's CPU clock is a system call: a thread that has been idle for a
     * while is looked at every 8th tick only. The CPU it used meanwhile is not lost: the next
     * look accounts for all of it (a weight above 1). */
    if (t->skip > 0) {
      t->skip--;
      return DUE_NOT;
    }
    gint64 cpu = thread_cpu_ns(t->tid);
    if (cpu < 0)
      return DUE_NOT; /* gone: the next rescan forgets it */
    if (cpu < t->cpu_accounted)
      t->cpu_accounted = cpu; /* a reused thread id: a new clock */
    if (cpu - t->cpu_accounted < (gint64)period_ns) {
      if (++t->idle_ticks >= 8)
        t->skip = 7;
      return DUE_NOT;
    }
    t->idle_ticks = 0;
    *ret_weight = (guint64)(cpu - t->cpu_accounted) / period_ns;
    t->cpu_accounted += (gint64)(*ret_weight * period_ns);
  } else {
    /* Rounded to the nearest period, so that a thread reached at every tick counts one each time
     * although ticks start a little early or late; what rounding leaves over goes to the next. */
    gint64 elapsed = (gint64)(now - t->wall_accounted);
    if (elapsed < (gint64)period_ns / 2)
      return DUE_NOT;
    *ret_weight = ((guint64)elapsed + period_ns / 2) / period_ns;
    t->wall_accounted += *ret_weight * period_ns;
    gint64 cpu = thread_cpu_ns(t->tid);
    if (cpu < 0)
      return DUE_NOT; /* gone: the next rescan forgets it */
    if (cpu == t->cpu_at_sample && t->last_n > 0)
      return DUE_REPEAT;
    t->cpu_used = cpu - t->cpu_at_sample;
    t->cpu_at_sample = cpu;
    return DUE_SAMPLE; /* tick_select decides how (a signal may not be needed) */
  }
  if (t->blocked) {
    count_dropped("signal blocked by the thread");
    return DUE_NOT;
  }
  return DUE_SAMPLE;
}

/* A sample that could not be taken gives its time back, for the next one to account for. */
static void refund(SampledThread *t, guint64 weight, guint64 period_ns) {
  if (sampler.mode == SXS_SAMPLING_CPU)
    t->cpu_accounted -= (gint64)(weight * period_ns);
  else
    t->wall_accounted -= weight * period_ns;
}

/* After several requests in a row a thread did not answer: does it block the signal now, or did
 * someone else take the signal's disposition? */
static void check_unanswered(SampledThread *t) {
  if (t->timeouts < 3)
    return;
  t->timeouts = 0;
  t->blocked = thread_blocks_signal(t->tid);
  struct sigaction now;
  if (sigaction(SXS_SAMPLER_SIGNAL, NULL, &now) == 0 &&
      !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == sxs__sampler_on_signal)) {
    set_off("another handler took SIGPROF, the signal the sampler uses");
    __atomic_store_n(&sampler.stop, TRUE, __ATOMIC_RELEASE);
  }
}

static void count_taken(guint64 weight, guint n, guint64 resolve_ns) {
  g_mutex_lock(&sampler.lock);
  sampler.taken++;
  sampler.weight += weight;
  sampler.frames += n;
  sampler.resolve_ns += resolve_ns;
  g_mutex_unlock(&sampler.lock);
}

/* Counts a stitched stack of t and keeps it as t's last. */
static void add_sample_of(SampledThread *t, const SxsWalkResources *res, const SxsStackFrame *frames, guint n,
                          guint64 weight, const SxsStitchTarget *targets, guint n_targets) {
  SxsStackHandle *counted =
      sxs__stacks_add_stitched(res, (uint32_t)t->tid, t->name, frames, n, weight, targets, n_targets);
  if (sampler.mode == SXS_SAMPLING_WALL) {
    if (!t->last)
      t->last = g_new(SxsStackFrame, SXS_STITCH_MAX_STITCHED);
    t->last_n = MIN(n, (guint)SXS_STITCH_MAX_STITCHED);
    memcpy(t->last, frames, t->last_n * sizeof *frames);
    t->last_counted = counted;
    t->last_generation = sampler.code_generation;
  }
}

/* Wall mode: thread t has not run since its last sample, which counts weight more times (no
 * signal: it would wake the thread, and could interrupt a system call). */
static void repeat_last(SampledThread *t, const SxsWalkResources *res, guint64 weight, const SxsStitchTarget *targets,
                        guint n_targets) {
  if (t->last_counted)
    sxs__stacks_add_to(t->last_counted, weight, 0);
  else
    add_sample_of(t, res, t->last, t->last_n, weight, targets, n_targets);
  count_taken(weight, t->last_n, 0);
}

/* A thread's captured native frames (native[0] the interrupted instruction), classified and
 * counted as its sample. Context: the sampler thread. */
/*
 * JIT methods without a frame pointer
 * -----------------------------------
 *
 * RyuJIT keeps a frame pointer only where a method needs one; a tier-1 method that calls others often has none, and
 * the frame-pointer walk from its callee goes on from the frame record of its caller's caller: the caller is lost
 * (an OSR'd loop that calls it vanishes from under it). The method's own frame is plain in its prologue (pushes and
 * a `sub rsp`, sxs_prologue.h), so for each return address into managed code that a capture holds, the sampler asks
 * the owning runtime which code version holds it (SxsRuntimeOps.il_map), reads that version's prologue, and teaches
 * the step cache what the frame there is (sxs__unwind_cache_note_jit): the next walks that pass there step a
 * frameless method by its frame size. A return address is looked at once (at most SAMPLER_LEARN_PER_CAPTURE a
 * capture, so a burst of new code costs the sampler little at a time); the first captures through a new one are
 * still walked by frame pointers. Known limit: code freed and reused (collectible assemblies, dynamic methods) keeps
 * the rule learned for the code before.
 */
#define SAMPLER_LEARN_PER_CAPTURE 8
#define SAMPLER_PROLOGUE_BYTES 64

/* What the prologue of the code version of classified frame f holding return address ra says, when the runtime
 * answers: 1 with *ret (known) or 0 (answered, frame not known), -1 when it could not answer now. */
static int jit_frame_of(const SxsStitchTarget *target, const SxsStackFrame *f, uintptr_t ra, SxsPrologue *ret) {
  SxsIlMap m = {0};
  int rc = target->ops->il_map(target->stitch.user, f->function_id, ra - 1, &m);
  if (rc == -EAGAIN || rc == -ESHUTDOWN)
    return -1;
  int known = 0;
  if (rc == 0 && m.code_start != 0 && m.n_ranges > 0 && m.ranges[0].start == m.code_start && m.ranges[0].size > 0) {
    gboolean inside = FALSE;
    for (guint r = 0; r < m.n_ranges; r++)
      inside = inside || (ra > m.ranges[r].start && ra - m.ranges[r].start <= m.ranges[r].size);
    /* Read with process_vm_readv, which fails instead of faulting: code freed meanwhile (a dynamic method's,
     * a collectible assembly's) may be unmapped under the read. */
    guint8 code[SAMPLER_PROLOGUE_BYTES];
    size_t len = MIN(m.ranges[0].size, sizeof code);
    struct iovec local = {.iov_base = code, .iov_len = len};
    struct iovec remote = {.iov_base = (void *)m.code_start, .iov_len = len};
    known = inside && process_vm_readv(sampler.pid, &local, 1, &remote, 1, 0) == (ssize_t)len &&
            sxs__prologue_decode(code, len, ret) && ra - 1 >= m.code_start + ret->prologue_len;
  }
  sxs__il_map_clear(&m);
  return known;
}

/* Teaches the step cache the frames of the managed return addresses of a classified capture (above). Context: the
 * sampler thread, nothing suspended. */
static void learn_jit_frames(const SxsWalkResources *res, const SxsNativeFrame *native, const SxsStackFrame *classified,
                             guint n, const SxsStitchTarget *targets, guint n_targets) {
  if (res->steps == NULL)
    return;
  guint asked = 0;
  for (guint i = 1; i < n && asked < SAMPLER_LEARN_PER_CAPTURE; i++) {
    const SxsStackFrame *f = &classified[i];
    if (f->kind != SXS_FRAME_MANAGED || f->function_id == 0 || sxs__unwind_cache_knows(res->steps, native[i].ip))
      continue;
    const SxsStitchTarget *target = NULL;
    for (guint k = 0; k < n_targets && target == NULL; k++)
      if (targets[k].stitch.runtime_id == f->runtime_id && targets[k].ops && targets[k].ops->il_map)
        target = &targets[k];
    if (target == NULL)
      continue;
    asked++;
    SxsPrologue frame;
    int known = jit_frame_of(target, f, native[i].ip, &frame);
    if (known >= 0)
      sxs__unwind_cache_note_jit(res->steps, native[i].ip, known ? &frame : NULL);
  }
}

/*
 * Code the walks do not know yet
 * ------------------------------
 *
 * The walks tell JIT code by the executable mappings read from /proc/self/maps, and a JIT commits its code heap a
 * piece at a time while the program runs: code in a piece committed after the last read is no code to them, and its
 * frames are walked wrong (an OSR method's Tier-0 frame is not recognised, a frameless leaf's caller not put back).
 * A capture with a frame that a runtime owns (classified managed: no stray value is) outside every mapping read last
 * sends the sampler to read them again, at most every SAMPLER_MAPS_NS. Context: the sampler thread.
 */
static void note_unknown_code(const SxsNativeFrame *native, const SxsStackFrame *classified, guint n) {
  if (sampler.code_unknown || sampler.code == NULL)
    return;
  const uintptr_t(*code)[2] = (const uintptr_t(*)[2])(const void *)sampler.code->data;
  for (guint i = 0; i < n; i++) {
    if (classified[i].kind != SXS_FRAME_MANAGED)
      continue;
    uintptr_t at = i == 0 ? native[i].ip : native[i].ip - 1;
    size_t lo = sxs__search_upper_bound(code, sampler.code->len, sizeof code[0], 0, at);
    if (lo == 0 || at >= code[lo - 1][1]) {
      sampler.code_unknown = TRUE;
      return;
    }
  }
}

static void record_capture(SampledThread *t, const SxsWalkResources *res, const SxsNativeFrame *native, guint n,
                           guint64 weight, const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes,
                           guint n_targets) {
  static SxsStackFrame classified[SAMPLER_MAX_FRAMES];
  guint64 t0 = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  SxsStitchReport report = {0};
  guint m = sxs__stitch_classify(runtimes, n_targets, res, native, n, TRUE, classified, NULL, &report);
  add_sample_of(t, res, classified, m, weight, targets, n_targets);
  learn_jit_frames(res, native, classified, m, targets, n_targets);
  note_unknown_code(native, classified, m);
  count_taken(weight, m, sxs__sampler_now_ns(CLOCK_MONOTONIC) - t0);
}

/* Where a thread is, as the kernel says (/proc/self/task/<tid>/syscall). */
typedef enum {
  WHERE_UNKNOWN, /* the file could not be read */
  WHERE_RUNNING, /* on a CPU, or ready to run */
  WHERE_BLOCKED, /* off its CPU, in a system call (or a fault): *ret_regs holds its sp and the ip it resumes at */
} Where;

/* The start of /proc/self/task/<tid>/<name> into text (size bytes, NUL-terminated), with one read and no
 * allocation; FALSE when it cannot be read (the thread is gone). Context: the sampler thread. */
static gboolean task_file_read(pid_t tid, const char *name, char *text, gsize size) {
  char path[64];
  g_snprintf(path, sizeof path, "/proc/self/task/%d/%s", (int)tid, name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  ssize_t got = read(fd, text, size - 1);
  close(fd);
  if (got <= 0)
    return FALSE;
  text[got] = '\0';
  return TRUE;
}

/* Thread tid's voluntary context switches so far (voluntary_ctxt_switches of its status), or -1 when they cannot
 * be read. Context: the sampler thread. */
static gint64 thread_waits(pid_t tid) {
  char text[2048];
  if (!task_file_read(tid, "status", text, sizeof text))
    return -1;
  const char *at = strstr(text, "\nvoluntary_ctxt_switches:");
  if (at == NULL)
    return -1;
  return g_ascii_strtoll(at + strlen("\nvoluntary_ctxt_switches:"), NULL, 10);
}

static Where thread_where(pid_t tid, SxsRegs *ret_regs) {
  char text[256];
  if (!task_file_read(tid, "syscall", text, sizeof text))
    return WHERE_UNKNOWN;
  if (g_str_has_prefix(text, "running"))
    return WHERE_RUNNING;
  /* "<nr> <6 arguments> <sp> <pc>", or "-1 <sp> <pc>" outside a system call. */
  char *at = text;
  long nr = strtol(at, &at, 10);
  guint64 words[8];
  guint n = 0, want = nr == -1 ? 2 : 8;
  while (n < want) {
    char *end;
    words[n] = g_ascii_strtoull(at, &end, 16);
    if (end == at)
      return WHERE_UNKNOWN;
    at = end;
    n++;
  }
  ret_regs->sp = (uintptr_t)words[want - 2];
  ret_regs->ip = (uintptr_t)words[want - 1];
  ret_regs->fp = 0;
  return WHERE_BLOCKED;
}

/* Another thread's memory for walks from outside, read with process_vm_readv (which fails rather
 * than faults where nothing is mapped any more) a page at a time into a few pages kept per walk. */
#define REMOTE_PAGE 4096u
#define REMOTE_PAGES 32u
typedef struct {
  uintptr_t page[REMOTE_PAGES]; /* the page's address + 1; 0: empty */
  guint next;
  guint8 data[REMOTE_PAGES][REMOTE_PAGE];
} RemotePages;

static bool remote_read(uintptr_t addr, void *buf, size_t size, void *data) {
  RemotePages *c = data;
  guint8 *out = buf;
  while (size > 0) {
    uintptr_t page = addr & ~(uintptr_t)(REMOTE_PAGE - 1);
    size_t off = addr - page, take = MIN(size, REMOTE_PAGE - off);
    guint at = 0;
    while (at < REMOTE_PAGES && c->page[at] != page + 1)
      at++;
    if (at == REMOTE_PAGES) {
      at = c->next++ % REMOTE_PAGES;
      struct iovec local = {.iov_base = c->data[at], .iov_len = REMOTE_PAGE};
      struct iovec remote = {.iov_base = (void *)page, .iov_len = REMOTE_PAGE};
      c->page[at] = 0;
      if (process_vm_readv(sampler.pid, &local, 1, &remote, 1, 0) != (ssize_t)REMOTE_PAGE)
        return false;
      c->page[at] = page + 1;
    }
    memcpy(out, c->data[at] + off, take);
    out += take;
    addr += take;
    size -= take;
  }
  return true;
}

/* The pages of one walk from outside (or one check of a thread's stack), emptied. */
static RemotePages *remote_pages(void) {
  static RemotePages *pages;
  if (!pages)
    pages = g_new(RemotePages, 1);
  memset(pages->page, 0, sizeof pages->page);
  pages->next = 0;
  return pages;
}

static bool remote_is_code(uintptr_t addr, void *data) {
  (void)data;
  const GArray *code = sampler.code;
  guint lo = 0, hi = code ? code->len : 0;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    const uintptr_t *r = &g_array_index(code, uintptr_t, 2 * mid);
    if (addr < r[0])
      hi = mid;
    else if (addr >= r[1])
      lo = mid + 1;
    else
      return true;
  }
  return false;
}

/*
 * Wall mode: thread t is blocked in a system call, at regs: its stack is walked from this thread
 * (sxs__unwind_remote) without a signal, so its system call is never interrupted, and counted.
 * FALSE when it could not be: its stack is not known yet, or it ran during the walk (its CPU
 * clock moved on from the look that found it due), which may then have read a stack that changed;
 * its time then goes to its next sample. Context: the sampler thread.
 */
static gboolean sample_blocked(SampledThread *t, const SxsRegs *regs, guint64 weight, const SxsWalkResources *res,
                               const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes, guint n_targets) {
  static SxsNativeFrame frames[SAMPLER_MAX_FRAMES];
  uintptr_t lo, hi;
  if (!sxs__sampler_find_stack(sampler.stacks, regs->sp, &lo, &hi)) {
    sampler.stacks_stale = TRUE;
    return FALSE;
  }
  RemotePages *pages = remote_pages();
  guint64 t0 = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  SxsModmapCursor cursor = {.map = res->map};
  const SxsUnwindMemory mem = {.read = remote_read, .is_code = remote_is_code, .data = pages};
  int n =
      sxs__unwind_remote(regs, lo, hi, sxs__stitch_is_fp_code, &cursor, res->steps, &mem, frames, SAMPLER_MAX_FRAMES);
  sampler.blocked_walks_since_maps = TRUE;
  if (n <= 0 || thread_cpu_ns(t->tid) != t->cpu_at_sample)
    return FALSE;
  g_mutex_lock(&sampler.lock);
  sampler.blocked_walks++;
  sampler.blocked_walk_ns += sxs__sampler_now_ns(CLOCK_MONOTONIC) - t0;
  g_mutex_unlock(&sampler.lock);
  /* Blocked where it was last found (a thread that waits in a loop): that stack counts again,
   * without classifying and naming the frames anew. */
  gboolean same = t->last_counted && t->last_n == (guint)n;
  for (int i = 0; same && i < n; i++)
    same = t->last[i].ip == frames[i].ip && t->last[i].sp == frames[i].sp;
  if (same)
    repeat_last(t, res, weight, targets, n_targets);
  else
    record_capture(t, res, frames, (guint)n, weight, targets, runtimes, n_targets);
  return TRUE;
}

/* Wall mode: is thread t's last stack still on its stack: the return address each of its frames
 * was found with still in its slot (a frame's sp - 8)? A thread blocked again where it was before
 * keeps those; a thread that returned and called elsewhere has overwritten some. (A thread running
 * right now above dead frames that still hold those words would pass: used only for threads that
 * hardly run.) Context: the sampler thread. */
static gboolean last_stack_intact(const SampledThread *t) {
  uintptr_t lo, hi;
  if (t->last_n < 2 || !sxs__sampler_find_stack(sampler.stacks, t->last[0].sp, &lo, &hi))
    return FALSE;
  RemotePages *pages = remote_pages();
  for (guint i = 1; i < t->last_n; i++) {
    uintptr_t slot = t->last[i].sp - 8, word;
    if (t->last[i].sp > hi)
      break;
    if (slot < lo || (slot & 7) != 0 || !remote_read(slot, &word, sizeof word, pages) || word != t->last[i].ip)
      return FALSE;
  }
  return TRUE;
}

/* Thread t's sample in wall mode, at weight, once due at now: TRUE when it needs a signal (it is
 * running, and not only for moments), else it was counted here without one, or its time left to
 * its next sample. */
static gboolean sample_wall(SampledThread *t, guint64 weight, guint64 period_ns, guint64 now,
                            const SxsWalkResources *res, const SxsStitchTarget *targets,
                            const SxsStitchRuntime *runtimes, guint n_targets) {
  /* How much it ran lately (over SAMPLER_SHARE_NS at least, so that one moment of running is not
   * taken for its habit): nearly never, nearly always, or in between. */
  if (now - t->mark_ns[1] >= (guint64)SAMPLER_SHARE_NS) {
    t->mark_cpu[0] = t->mark_cpu[1];
    t->mark_ns[0] = t->mark_ns[1];
    t->mark_cpu[1] = t->cpu_at_sample;
    t->mark_ns[1] = now;
  }
  gint64 used = t->cpu_at_sample - t->mark_cpu[0], wall = (gint64)(now - t->mark_ns[0]);
  gboolean idle = used * SAMPLER_IDLE_SHARE < wall;
  /* Busy lately, and since its last look too: a thread that just stopped running is not. */
  gint64 since = (gint64)(weight * period_ns);
  gboolean busy = used * SAMPLER_BUSY_SHARE >= wall * (SAMPLER_BUSY_SHARE - 1) &&
                  t->cpu_used * SAMPLER_BUSY_SHARE >= since * (SAMPLER_BUSY_SHARE - 1);
  /* A thread that hardly runs and whose last stack is still in place waits where it waited: no
   * need to ask the kernel where it is (a read of /proc costs more than the rest). */
  if (idle && t->last_n > 0 && t->last_generation == sampler.code_generation && last_stack_intact(t)) {
    repeat_last(t, res, weight, targets, n_targets);
    return FALSE;
  }
  /* A thread that ran nearly all the time runs now: it gets the signal at once. */
  if (busy && !t->blocked)
    return TRUE;
  SxsRegs regs;
  Where where = thread_where(t->tid, &regs);
  if (where == WHERE_BLOCKED) {
    if (!sample_blocked(t, &regs, weight, res, targets, runtimes, n_targets))
      refund(t, weight, period_ns);
    return FALSE;
  }
  if (where == WHERE_RUNNING && idle) {
    /* Running for a moment between two waits: the next look will likely find it waiting. */
    refund(t, weight, period_ns);
    return FALSE;
  }
  if (where == WHERE_RUNNING && used * SAMPLER_WAITING_SHARE < wall) {
    /* Waiting most of the time, and it waited since its last look: the same (above). */
    gint64 waits = thread_waits(t->tid);
    gboolean waited = waits < 0 || waits != t->waits_seen;
    t->waits_seen = waits;
    if (waited) {
      refund(t, weight, period_ns);
      return FALSE;
    }
  }
  if (t->blocked) {
    count_dropped("signal blocked by the thread");
    return FALSE;
  }
  return TRUE;
}

/* Wall mode, signal walker: sends thread t its request in a free slot, with weight. Context: the
 * sampler thread. */
static void request_start(SampledThread *t, guint64 weight, guint64 period_ns, const CaptureInputs *in,
                          const SxsWalkResources *res) {
  guint at = 0;
  while (sampler.requests[at].busy)
    at++;
  if (!request_send(at, t, in)) {
    refund(t, weight, period_ns);
    return;
  }
  sampler.requests[at] = (Request){
      .busy = TRUE, .thread = t, .weight = weight, .sent_ns = sxs__sampler_now_ns(CLOCK_MONOTONIC), .res = *res};
  t->request = at + 1;
}

/*
 * The threads a wall-mode tick samples: up to SAMPLER_TICK_THREADS of them, and no more than half
 * a period of work, taken in turn from where the last tick stopped (sampler.order, sampler.cursor),
 * so that every thread is reached whatever their number and a tick's work stays bounded. Each reached thread's weight is the
 * periods of wall time since its samples so far (due): with n threads and at most k a tick, a
 * thread is reached every n/k ticks and its sample stands for as many periods.
 *
 * Only a thread running is interrupted. One that has not run since its last sample counts that
 * stack again (repeat_last); one blocked in a system call is walked from here (sample_blocked);
 * one found running that used less than 1/SAMPLER_IDLE_SHARE of the time since its last sample
 * counts its last stack again. The others, at most max, need a signal: with in (the signal walker)
 * each is sent its request at once, as soon as it was found running; otherwise they are returned
 * in ret_threads with their weights. Context: the sampler thread.
 */
static guint tick_select(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                         const SxsStitchRuntime *runtimes, guint n_targets, const CaptureInputs *in,
                         SampledThread **ret_threads, guint64 *ret_weights, guint max) {
  GPtrArray *order = sampler.order;
  guint n_threads = order ? order->len : 0, n_due = 0, reached = 0;
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  for (; reached < n_threads && reached < SAMPLER_TICK_THREADS && n_due < max && !sampler.stop; reached++) {
    /* Half a period of work at most: at high frequencies fewer threads a tick, the rate kept. */
    if (reached > 0 && sxs__sampler_now_ns(CLOCK_MONOTONIC) - now > period_ns / 2)
      break;
    SampledThread *t = order->pdata[(sampler.cursor + reached) % n_threads];
    if (t->request)
      continue; /* asked already: its next sample accounts for the time since */
    guint64 weight;
    Due d = due(t, period_ns, now, &weight);
    if (d == DUE_REPEAT) {
      repeat_last(t, res, weight, targets, n_targets);
      continue;
    }
    if (d != DUE_SAMPLE)
      continue;
    if (sampler.mode == SXS_SAMPLING_WALL && !sample_wall(t, weight, period_ns, now, res, targets, runtimes, n_targets))
      continue;
    if (in) {
      request_start(t, weight, period_ns, in, res);
    } else {
      ret_threads[n_due] = t;
      ret_weights[n_due] = weight;
    }
    n_due++;
  }
  if (n_threads > 0)
    sampler.cursor = (sampler.cursor + reached) % n_threads;
  return n_due;
}

/* Wall mode, signal walker: the requests in flight that were answered are counted (each with the
 * walk resources it was sent with), those not answered in time given up, their time given back
 * to their thread's next sample. Context: the sampler thread. */
static void requests_collect(guint64 period_ns, const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes,
                             guint n_targets) {
  for (guint i = 0; i < SAMPLER_TICK_THREADS; i++) {
    Request *r = &sampler.requests[i];
    if (!r->busy)
      continue;
    int got = 0;
    Poll p = request_poll(i, r->thread, r->sent_ns, SAMPLER_REQUEST_WAIT_NS, &got);
    if (p == POLL_PENDING)
      continue;
    if (p == POLL_ABANDONED) {
      sampler.abandoned = TRUE; /* its slot, and what it walks with, stay the handler's */
      continue;
    }
    r->busy = FALSE;
    SampledThread *t = r->thread;
    if (!t)
      continue;
    t->request = 0;
    if (p == POLL_DONE && got > 0) {
      record_capture(t, &r->res, hot.slots[i].out.frames, (guint)got, r->weight, targets, runtimes, n_targets);
    } else {
      refund(t, r->weight, period_ns);
      check_unanswered(t);
    }
  }
}

static gboolean requests_in_flight(void) {
  for (guint i = 0; i < SAMPLER_TICK_THREADS; i++)
    if (sampler.requests[i].busy)
      return TRUE;
  return FALSE;
}

/* Releases the walk resources ticks kept for their requests, none being in flight any more. */
static void requests_release(void) {
  for (; sampler.walks_kept > 0; sampler.walks_kept--)
    sxs__walk_resources_leave();
}

/*
 * A signal-walker tick (wall mode): the answers to earlier ticks' requests are counted, then the
 * threads due (tick_select) are each sent a request in a free slot, all at once, and each walks
 * its own native stack in its handler. The tick does not wait for them: a thread that is not
 * running when asked answers once it is scheduled, which on a busy machine can take longer than
 * a period, and the next ticks must start on time; a later tick counts the answer. The walk
 * resources the requests were sent with stay taken while any is in flight: returns TRUE when
 * the tick keeps res (the caller must not release it). Context: the sampler thread.
 */
static gboolean tick_requests(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                              const SxsStitchRuntime *runtimes, guint n_targets) {
  requests_collect(period_ns, targets, runtimes, n_targets);
  guint n_free = 0;
  for (guint i = 0; i < SAMPLER_TICK_THREADS; i++)
    n_free += !sampler.requests[i].busy;
  const CaptureInputs in = {
      .map = res->map,
      .loader = sxs__modmap_find_named(res->map, SAMPLER_LOADER),
      .steps = res->steps,
      .stacks = sampler.stacks,
  };
  tick_select(period_ns, res, targets, runtimes, n_targets, &in, NULL, NULL, n_free);
  if (requests_in_flight()) {
    sampler.walks_kept++;
    return TRUE;
  }
  requests_release();
  return FALSE;
}

/* At stop: the requests still in flight are answered or given up (request_poll), the answers
 * counted, and the walk resources kept for them released (unless a capture was abandoned).
 * Context: the sampler thread, stop set. */
static void requests_finish(void) {
  if (!requests_in_flight() && sampler.walks_kept == 0)
    return;
  SxsStitchTarget targets[SXS_STITCH_MAX_RUNTIMES];
  SxsStitchRuntime runtimes[SXS_STITCH_MAX_RUNTIMES];
  guint n_targets = sxs__manager_stitch_targets(targets, runtimes, SXS_STITCH_MAX_RUNTIMES, NULL, 0, NULL);
  guint64 period = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
  requests_collect(period, targets, runtimes, n_targets);
  if (!sampler.abandoned)
    requests_release();
}

static uint64_t destroyed_key(int runtime_id, uint64_t thread_id) {
  return ((uint64_t)(unsigned)runtime_id << 48) | (thread_id & ((UINT64_C(1) << 48) - 1));
}

/* Did ThreadDestroyed begin for this thread lately (the last 64 of them)? A ThreadID the runtime
 * gives a new thread leaves the ring at that thread's ThreadCreated. */
static gboolean thread_destroyed(int runtime_id, uint64_t thread_id) {
  uint64_t key = destroyed_key(runtime_id, thread_id);
  for (guint i = 0; i < G_N_ELEMENTS(sampler.destroyed); i++)
    if (__atomic_load_n(&sampler.destroyed[i], __ATOMIC_SEQ_CST) == key)
      return TRUE;
  return FALSE;
}

/* What the suspend walker keeps of one thread between the suspension and the resolution. */
typedef struct {
  SampledThread *thread;
  guint64 weight;
  int n_native;
  SxsNativeFrame native[SAMPLER_MAX_FRAMES];
  guint n_classified;
  SxsStackFrame classified[SAMPLER_MAX_FRAMES];
  gboolean reused;     /* its walks are the thread's last ones (no suspension for it) */
  gboolean learn_only; /* captured by the sampler's signal only to learn a walk to reuse: not counted */
  guint n_walks;
  SxsRuntimeWalk walks[SXS_STITCH_MAX_RUNTIMES];
  SxsStackFrame walked[SXS_STITCH_MAX_RUNTIME_FRAMES];
} SuspendedSample;

#define SAMPLER_SUSPEND_MAX_THREADS SAMPLER_TICK_THREADS
#define SAMPLER_MAX_MANAGED_THREADS 1024
#define SAMPLER_REUSE_NS (1000 * G_GINT64_CONSTANT(1000000)) /* a walk is reused for this long at most */

/*
 * Walk reuse. A suspension is what the suspend walker costs (the runtime signals each thread,
 * flushes every CPU's write buffers twice, and every thread waits), and a CPU-bound thread is
 * mostly found where it was found before: the same return addresses at the same stack pointers,
 * only the leaf's instruction moved on inside the same function. The runtimes' walk of such a
 * stack is the walk they made last time (the frames above the leaf are the same calls, and the
 * leaf is the same function), so it is kept and merged with the new capture. The walk is made
 * anew when anything differs: a frame, a stack pointer, the leaf's function or owner, the
 * number of frames; when a module was unloaded since (code may have moved into its place); when
 * the walk was incomplete; and at least every SAMPLER_REUSE_NS, so no stack is trusted longer.
 */
struct WalkReuse {
  SxsNativeFrame *native; /* the capture the walk went with; native[0].ip is not compared */
  guint n_native;
  int leaf_runtime;       /* the leaf's owner as classified, 0 for native code */
  uint64_t leaf_function; /* and its function */
  SxsStackFrame *walked;  /* every runtime's frames, walk after walk */
  guint n_walks;
  struct {
    int runtime_id;
    guint first, n;
  } walks[SXS_STITCH_MAX_RUNTIMES];
  guint64 at_ns;
  unsigned long long unloads;
};
typedef struct WalkReuse WalkReuse;

static void walk_reuse_free(WalkReuse *r) {
  if (r == NULL)
    return;
  g_free(r->native);
  g_free(r->walked);
  g_free(r);
}

/* The walk of sample s's thread that s stands where it was made: the same frames at the same
 * stack pointers, the leaf's instruction aside, within SAMPLER_REUSE_NS and with no module
 * unloaded since; with check_leaf, also with the leaf in the same function (s classified).
 * NULL when there is none. Context: the sampler thread. */
static WalkReuse *walk_reuse_find(const SuspendedSample *s, const SxsWalkResources *res, guint64 now,
                                  gboolean check_leaf) {
  const SxsStackFrame *leaf = &s->classified[0];
  for (guint i = 0; i < G_N_ELEMENTS(s->thread->reuse); i++) {
    WalkReuse *r = s->thread->reuse[i];
    if (r == NULL || now - r->at_ns > (guint64)SAMPLER_REUSE_NS || r->unloads != sxs__modmap_unloads(res->map) ||
        (guint)s->n_native != r->n_native || s->native[0].sp != r->native[0].sp ||
        memcmp(s->native + 1, r->native + 1, (r->n_native - 1) * sizeof r->native[0]) != 0)
      continue;
    if (check_leaf &&
        (leaf->kind == SXS_FRAME_MANAGED
             ? leaf->function_id == 0 || leaf->runtime_id != r->leaf_runtime || leaf->function_id != r->leaf_function
             : r->leaf_runtime != 0))
      continue;
    return r;
  }
  return NULL;
}

static gboolean walk_reuse_matches(const SuspendedSample *s, const SxsWalkResources *res, guint64 now) {
  return walk_reuse_find(s, res, now, FALSE) != NULL;
}

/* Sample s's native frames, classified by owner. Context: the sampler thread, nothing suspended
 * (the owners' lookups take the runtimes' locks). */
static void classify(SuspendedSample *s, const SxsWalkResources *res, const SxsStitchRuntime *runtimes,
                     guint n_targets) {
  SxsStitchReport report = {0};
  s->n_classified =
      sxs__stitch_classify(runtimes, n_targets, res, s->native, (guint)s->n_native, TRUE, s->classified, NULL, &report);
}

/* For sample s, classified: whether a kept walk of its thread fits it, leaf function included;
 * if so, s's walks are set from that walk. Context: the sampler thread. */
static gboolean walk_reuse_take(SuspendedSample *s, const SxsWalkResources *res, guint64 now) {
  const WalkReuse *r = walk_reuse_find(s, res, now, TRUE);
  if (r == NULL)
    return FALSE;
  s->n_walks = r->n_walks;
  for (guint w = 0; w < r->n_walks; w++)
    s->walks[w] = (SxsRuntimeWalk){.runtime_id = r->walks[w].runtime_id,
                                   .frames = r->walked + r->walks[w].first,
                                   .n = r->walks[w].n,
                                   .complete = TRUE};
  return TRUE;
}

/*
 * Checks sample s's fresh walks (trimmed to the capture) against its native capture. Between the
 * capture and the suspension the thread runs on: it may have returned from the function it was
 * captured in and called another at the same depth (Cold.Walk captured, Hot.Spin walked), which
 * trimming by stack pointer cannot tell. The innermost managed frame of the capture, as the
 * runtime that owns it named it, must be in that runtime's walk: frames before it there are
 * where the thread went since, and are dropped; a walk without it is of another stack, and is
 * dropped whole (the capture's own classification names those frames). Returns FALSE when a
 * walk was dropped or shortened at its start (then it is not kept for reuse). Context: the
 * sampler thread.
 */
static gboolean align_walks(SuspendedSample *s) {
  const SxsStackFrame *first = NULL;
  for (guint i = 0; i < s->n_classified && first == NULL; i++)
    if (s->classified[i].kind == SXS_FRAME_MANAGED && s->classified[i].function_id != 0)
      first = &s->classified[i];
  if (first == NULL)
    return TRUE;
  gboolean intact = TRUE;
  for (guint w = 0; w < s->n_walks; w++) {
    SxsRuntimeWalk *walk = &s->walks[w];
    if (walk->runtime_id != first->runtime_id)
      continue;
    guint at = 0;
    while (at < walk->n && walk->frames[at].function_id != first->function_id)
      at++;
    if (at == walk->n) {
      walk->n = 0;
      walk->complete = FALSE;
      intact = FALSE;
    } else if (at > 0) {
      walk->frames += at;
      walk->n -= at;
      intact = FALSE;
    }
  }
  return intact;
}

/* Keeps sample s's fresh walks (trimmed to the capture) for its thread's next samples, when
 * every one of them is complete (a thread keeps SAMPLER_REUSE_WALKS stacks, so one that
 * alternates between a few places, as a loop calling two functions does, reuses a walk for
 * each). Context: the sampler thread. */
static void walk_reuse_keep(const SuspendedSample *s, const SxsWalkResources *res, guint64 now) {
  SampledThread *t = s->thread;
  guint total = 0;
  for (guint w = 0; w < s->n_walks; w++) {
    if (!s->walks[w].complete)
      return;
    total += s->walks[w].n;
  }
  if (s->n_walks == 0 || s->n_native <= 0)
    return;
  /* No kept walk fits this stack (or it would have been reused): the new one takes a free place,
   * else the oldest's (an expired walk of the same stack is always older). */
  guint slot_at = 0;
  for (guint i = 0; i < SAMPLER_REUSE_WALKS && t->reuse[slot_at] != NULL; i++)
    if (t->reuse[i] == NULL || t->reuse[i]->at_ns < t->reuse[slot_at]->at_ns)
      slot_at = i;
  walk_reuse_free(t->reuse[slot_at]);
  t->reuse[slot_at] = NULL;
  WalkReuse *r = g_new0(WalkReuse, 1);
  r->native = g_memdup2(s->native, (gsize)s->n_native * sizeof s->native[0]);
  r->n_native = (guint)s->n_native;
  const SxsStackFrame *leaf = &s->classified[0];
  r->leaf_runtime = leaf->kind == SXS_FRAME_MANAGED ? leaf->runtime_id : 0;
  r->leaf_function = leaf->kind == SXS_FRAME_MANAGED ? leaf->function_id : 0;
  r->walked = g_new(SxsStackFrame, MAX(total, 1));
  guint at = 0;
  for (guint w = 0; w < s->n_walks; w++) {
    memcpy(r->walked + at, s->walks[w].frames, s->walks[w].n * sizeof r->walked[0]);
    r->walks[w].runtime_id = s->walks[w].runtime_id;
    r->walks[w].first = at;
    r->walks[w].n = s->walks[w].n;
    at += s->walks[w].n;
  }
  r->n_walks = s->n_walks;
  r->at_ns = now;
  r->unloads = sxs__modmap_unloads(res->map);
  t->reuse[slot_at] = r;
}

static void walk_suspended(SuspendedSample *samples, guint n_due, const SxsStitchTarget *targets, guint n_targets,
                           uint64_t **ids, uint32_t **tids);
static void suspend_finish(SuspendedSample *samples, guint n_due, const SxsWalkResources *res,
                           const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes, guint n_targets);

/* The suspend walker's per-tick samples (SAMPLER_SUSPEND_MAX_THREADS), allocated once. */
static SuspendedSample *suspended_samples(void) {
  static SuspendedSample *samples;
  if (!samples)
    samples = g_new0(SuspendedSample, SAMPLER_SUSPEND_MAX_THREADS);
  return samples;
}

/* A suspend-walker tick (wall mode): each thread due captures its native frames by the signal,
 * where it runs; a capture that fits a walk its thread kept takes that walk; for the others every
 * runtime is suspended (in id order), each of those threads walked by each runtime's
 * DoStackSnapshot, every runtime resumed (in reverse order); then, with nothing suspended, the
 * frames are classified, stitched by stack pointer (a runtime's frames below the captured leaf,
 * where the thread parked for the suspension, left out) and counted (suspend_finish). */
static void tick_suspend(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                         const SxsStitchRuntime *runtimes, guint n_targets) {
  SuspendedSample *samples = suspended_samples();
  SampledThread *due_threads[SAMPLER_SUSPEND_MAX_THREADS];
  guint64 weights[SAMPLER_SUSPEND_MAX_THREADS];
  int got[SAMPLER_SUSPEND_MAX_THREADS];
  guint n_due = tick_select(period_ns, res, targets, runtimes, n_targets, NULL, due_threads, weights,
                            SAMPLER_SUSPEND_MAX_THREADS);
  if (n_due == 0)
    return;

  /* The native frames first, each thread where it runs: once a runtime is asked to suspend, its
   * threads run on to where it parks them (a GC poll, a return), and a sample taken there would
   * count the parking place, not the work. */
  gboolean abandoned = FALSE;
  capture_batch(due_threads, n_due, res, got, &abandoned);
  if (abandoned) {
    sampler.abandoned = TRUE;
    return;
  }
  guint n_captured = 0;
  for (guint i = 0; i < n_due; i++) {
    SuspendedSample *s = &samples[i];
    s->thread = due_threads[i];
    s->weight = weights[i];
    s->n_walks = 0;
    s->learn_only = FALSE;
    s->n_native = got[i];
    if (s->n_native > 0) {
      memcpy(s->native, hot.slots[SAMPLER_SYNC_SLOT(i)].out.frames, (size_t)s->n_native * sizeof s->native[0]);
      n_captured++;
    } else {
      refund(s->thread, s->weight, period_ns);
      check_unanswered(s->thread);
    }
  }
  if (n_captured == 0)
    return;
  suspend_finish(samples, n_due, res, targets, runtimes, n_targets);
}

/* The rest of a suspend-walker tick once the due threads' native frames are captured (samples
 * with n_native <= 0 are skipped): walk reuse, the suspension for the others, the merge. */
static void suspend_finish(SuspendedSample *samples, guint n_due, const SxsWalkResources *res,
                           const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes, guint n_targets) {
  static uint64_t *ids[SXS_STITCH_MAX_RUNTIMES];
  static uint32_t *tids[SXS_STITCH_MAX_RUNTIMES];
  if (!ids[0]) {
    for (guint k = 0; k < SXS_STITCH_MAX_RUNTIMES; k++) {
      ids[k] = g_new(uint64_t, SAMPLER_MAX_MANAGED_THREADS);
      tids[k] = g_new(uint32_t, SAMPLER_MAX_MANAGED_THREADS);
    }
  }
  /* A thread found where it was found before takes its last walk again (walk reuse, above): its
   * frames are compared at once, and only such a thread's are classified before the suspension
   * (classifying the others would only delay their walk). */
  guint n_to_walk = 0;
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  for (guint i = 0; i < n_due; i++) {
    SuspendedSample *s = &samples[i];
    s->reused = FALSE;
    s->n_classified = 0;
    if (s->n_native <= 0)
      continue;
    if (walk_reuse_matches(s, res, now)) {
      classify(s, res, runtimes, n_targets);
      s->reused = walk_reuse_take(s, res, now);
    }
    if (!s->reused)
      n_to_walk++;
  }
  if (n_to_walk > 0)
    walk_suspended(samples, n_due, targets, n_targets, ids, tids);

  static SxsStackFrame stitched[SXS_STITCH_MAX_STITCHED];
  guint64 reused = 0;
  for (guint i = 0; i < n_due; i++) {
    SuspendedSample *s = &samples[i];
    if (s->n_native <= 0)
      continue;
    guint64 t0 = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    if (s->reused) {
      reused++;
    } else {
      if (s->n_classified == 0)
        classify(s, res, runtimes, n_targets);
      /* Frames of the runtime's walk below the thread's leaf as captured are where it was parked
       * since (the wait for the suspension): not part of the sample. */
      uintptr_t leaf_sp = s->native[0].sp;
      for (guint w = 0; w < s->n_walks; w++) {
        SxsRuntimeWalk *walk = &s->walks[w];
        guint skip = 0;
        while (skip < walk->n && walk->frames[skip].sp < leaf_sp)
          skip++;
        walk->frames += skip;
        walk->n -= skip;
      }
      if (align_walks(s))
        walk_reuse_keep(s, res, t0);
    }
    guint kept =
        sxs__merge_stacks(s->classified, s->n_classified, s->walks, s->n_walks, stitched, G_N_ELEMENTS(stitched));
    if (s->learn_only)
      continue;
    add_sample_of(s->thread, res, stitched, kept, s->weight, targets, n_targets);
    count_taken(s->weight, kept, sxs__sampler_now_ns(CLOCK_MONOTONIC) - t0);
  }
  g_mutex_lock(&sampler.lock);
  sampler.walks_reused += reused;
  if (n_to_walk > 0)
    sampler.suspensions++;
  g_mutex_unlock(&sampler.lock);
}

/* The suspension of a suspend-walker tick: every runtime suspended (in id order), each sample
 * not reusing a walk walked by each runtime's DoStackSnapshot, every runtime resumed (in reverse
 * order). ids and tids: room for each runtime's thread list. Context: the sampler thread. */
static void walk_suspended(SuspendedSample *samples, guint n_due, const SxsStitchTarget *targets, guint n_targets,
                           uint64_t **ids, uint32_t **tids) {
  gboolean suspended[SXS_STITCH_MAX_RUNTIMES] = {FALSE};
  guint n_threads[SXS_STITCH_MAX_RUNTIMES] = {0};
  for (guint k = 0; k < n_targets; k++) {
    int r = targets[k].ops->suspend(targets[k].stitch.user);
    if (r == 0) {
      suspended[k] = TRUE;
      n_threads[k] = targets[k].ops->threads(targets[k].stitch.user, ids[k], tids[k], SAMPLER_MAX_MANAGED_THREADS);
    } else {
      count_dropped(r == -EIO ? "runtime could not be suspended" : "runtime not suspended");
    }
  }
  for (guint i = 0; i < n_due && !sampler.stop; i++) {
    SuspendedSample *s = &samples[i];
    if (s->reused)
      continue;
    guint used = 0;
    for (guint k = 0; k < n_targets && s->n_native > 0; k++) {
      if (!suspended[k])
        continue;
      for (guint j = 0; j < n_threads[k]; j++) {
        if (tids[k][j] != (uint32_t)s->thread->tid)
          continue;
        guint got = 0;
        HRESULT hr = 0;
        /* ThreadDestroyed of this thread waits while these are set (sxs__sampler_thread_destroyed). */
        __atomic_store_n(&sampler.walking_runtime, targets[k].stitch.runtime_id, __ATOMIC_SEQ_CST);
        __atomic_store_n(&sampler.walking_thread, ids[k][j], __ATOMIC_SEQ_CST);
        int r = 0;
        if (thread_destroyed(targets[k].stitch.runtime_id, ids[k][j]))
          r = -ESRCH;
        else
          r = targets[k].ops->walk_thread(targets[k].stitch.user, ids[k][j], s->walked + used,
                                          SXS_STITCH_MAX_RUNTIME_FRAMES - used, &got, &hr);
        __atomic_store_n(&sampler.walking_thread, 0, __ATOMIC_SEQ_CST);
        if (r != 0) {
          char what[96], hr_text[16];
          g_snprintf(what, sizeof what, "runtime walk incomplete: %s", sxs__hresult_text(hr, hr_text, sizeof hr_text));
          count_dropped(what);
        }
        s->walks[s->n_walks++] = (SxsRuntimeWalk){
            .runtime_id = targets[k].stitch.runtime_id, .frames = s->walked + used, .n = got, .complete = r == 0};
        used += got;
        break;
      }
    }
  }
  for (guint k = n_targets; k-- > 0;)
    if (suspended[k])
      targets[k].ops->resume(targets[k].stitch.user);
}

/* Waits (at most 10 ms) until no timer handler is between its first and last read of hot.timer_res. */
static gboolean handlers_drained(void) {
  for (int i = 0; i < 1000; i++) {
    if (__atomic_load_n(&hot.handlers_inflight, __ATOMIC_SEQ_CST) == 0)
      return TRUE;
    g_usleep(10);
  }
  return FALSE;
}

/* Timer mode: publishes the tick's walk resources to the handlers when they changed. The walk
 * taken for the handlers is kept until a newer one replaces it and no handler can still hold the
 * old one. Returns TRUE when it kept res (the tick must not release it). */
static gboolean timer_publish(const SxsWalkResources *res) {
  if (sampler.timer_walk_taken && res->map == sampler.timer_walk.map && res->steps == sampler.timer_walk.steps)
    return FALSE;
  __atomic_store_n(&hot.timer_res.loader, sxs__modmap_find_named(res->map, SAMPLER_LOADER), __ATOMIC_RELEASE);
  __atomic_store_n(&hot.timer_res.steps, res->steps, __ATOMIC_RELEASE);
  __atomic_store_n(&hot.timer_res.map, res->map, __ATOMIC_RELEASE);
  if (sampler.timer_walk_taken && handlers_drained())
    sxs__walk_resources_leave(); /* the previous one: nobody reads it now */
  sampler.timer_walk = *res;
  sampler.timer_walk_taken = TRUE;
  return TRUE;
}

/*
 * Suspend walker, cpu mode: sample s holds a timer capture of its thread. A capture that matches a
 * walk its thread kept is merged with it (suspend_finish). Any other is counted at once as its own
 * frames name it (as the signal walker's would), and its thread is captured again by the sampler's
 * signal, where it is now, and walked under a suspension, as in wall mode, to learn a walk for its
 * next samples to reuse (a timer capture is too old to be stitched with a walk made now). Counting
 * that later capture instead would favour the places a thread stays in over those it passes
 * through. Returns FALSE when that capture was abandoned at stop (the tick ends). Context: the
 * sampler thread.
 */
static gboolean timer_sample_prepare(SuspendedSample *s, const SxsWalkResources *res, guint64 now,
                                     const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes,
                                     guint n_targets) {
  s->learn_only = FALSE;
  if (walk_reuse_matches(s, res, now))
    return TRUE;
  record_capture(s->thread, res, s->native, (guint)s->n_native, s->weight, targets, runtimes, n_targets);
  gboolean abandoned = FALSE;
  s->n_native = sampler.stop ? 0 : capture(s->thread, res, &abandoned);
  if (abandoned) {
    sampler.abandoned = TRUE;
    return FALSE;
  }
  if (s->n_native > 0)
    memcpy(s->native, hot.slots[SAMPLER_SYNC_SLOT(0)].out.frames, (size_t)s->n_native * sizeof s->native[0]);
  s->learn_only = TRUE;
  return TRUE;
}

/*
 * A timer-mode batch: the captures the threads' CPU-time timers made since the last one, each
 * where its thread ran, on its own CPU (no signal crossed CPUs), are collected. The signal walker
 * counts each as its frames name it. The suspend walker takes up to SAMPLER_SUSPEND_MAX_THREADS
 * of them (the others stay in their slots for the next batch, which follows at once) and
 * stitches them with the runtimes' walks (timer_sample_prepare, suspend_finish). Each capture
 * counts as a tick, the expiries it stands for beyond its own as ticks missed (see
 * sxs__sampler_fill). Returns the captures collected. Context: the sampler thread.
 */
static guint tick_timers(const SxsWalkResources *res, const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes,
                         guint n_targets, gboolean use_suspend) {
  SuspendedSample *samples = use_suspend ? suspended_samples() : NULL;
  guint n_due = 0, collected = 0;
  guint64 missed_total = 0;
  guint64 now = 0;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  sampler.timer_leftover = FALSE;
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SampledThread *t = value;
    ThreadSlot *ts = t->tslot;
    if (!ts)
      continue;
    gboolean abandoned = FALSE;
    guint64 collected_before = collected;
    for (guint i = 0; i < SAMPLER_THREAD_CAPTURES && !abandoned; i++) {
      TimerCapture *c = &ts->cap[i];
      if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) != SLOT_DONE)
        continue;
      if (use_suspend && n_due == SAMPLER_SUSPEND_MAX_THREADS) {
        sampler.timer_leftover = TRUE;
        break;
      }
      /* The expiries that found no room are counted with the first capture collected after them. */
      guint64 weight = c->weight + (guint64)__atomic_exchange_n(&ts->missed, 0, __ATOMIC_RELAXED);
      collected++;
      t->captures += c->out.n > 0;
      t->expiries += weight;
      missed_total += weight - 1;
      int n = c->out.n;
      SuspendedSample *s = NULL;
      if (n <= 0) {
        count_failed_capture(n);
      } else {
        note_capture(c->out.capture_ns);
        if (!use_suspend) {
          record_capture(t, res, c->out.frames, (guint)n, weight, targets, runtimes, n_targets);
        } else {
          s = &samples[n_due++];
          s->thread = t;
          s->weight = weight;
          s->n_walks = 0;
          s->n_native = n;
          memcpy(s->native, c->out.frames, (size_t)n * sizeof s->native[0]);
        }
      }
      /* The frames were counted or copied: the handler may write the capture again. */
      __atomic_store_n(&c->state, SLOT_IDLE, __ATOMIC_RELEASE);
      __atomic_add_fetch(&hot.timer_collected, 1, __ATOMIC_RELAXED);
      if (s != NULL) {
        if (now == 0)
          now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
        abandoned = !timer_sample_prepare(s, res, now, targets, runtimes, n_targets);
      }
    }
    if (collected > collected_before)
      thread_rate_note(t, FALSE);
    if (abandoned || sampler.timer_leftover)
      break;
  }
  g_mutex_lock(&sampler.lock);
  sampler.ticks += collected;
  sampler.ticks_missed += missed_total;
  g_mutex_unlock(&sampler.lock);
  if (n_due > 0 && !sampler.abandoned)
    suspend_finish(samples, n_due, res, targets, runtimes, n_targets);
  return collected;
}

/* One tick (in cpu mode, one batch): the suspend walker when asked for (or auto, at a frequency it
 * allows) and every profiled runtime can be suspended, the signal walker otherwise. */
static void tick(guint64 period_ns) {
  SxsWalkResources res;
  sxs__walk_resources_enter(&res, (const char *const *)sampler.debug_dirs);
  SxsStitchTarget targets[SXS_STITCH_MAX_RUNTIMES];
  SxsStitchRuntime runtimes[SXS_STITCH_MAX_RUNTIMES];
  guint n_targets = sxs__manager_stitch_targets(targets, runtimes, SXS_STITCH_MAX_RUNTIMES, NULL, 0, NULL);
  gboolean use_suspend =
      n_targets > 0 && (sampler.walker == SXS_WALKER_SUSPEND ||
                        (sampler.walker == SXS_WALKER_AUTO && sampler.frequency <= SXS_SAMPLER_SUSPEND_AUTO_MAX_HZ));
  for (guint k = 0; use_suspend && k < n_targets; k++)
    if (!targets[k].can_suspend) {
      if (sampler.walker == SXS_WALKER_SUSPEND && !sampler.suspend_refusal_logged) {
        sampler.suspend_refusal_logged = TRUE;
        sxs__manager_log("sampling: walker=suspend: runtime %d cannot be suspended by a profiler (it has no "
                         "ICorProfilerInfo10: .NET Core 2.x); using the signal walker",
                         targets[k].stitch.runtime_id);
      }
      use_suspend = FALSE;
    }
  gboolean kept = FALSE;
  guint collected = 0;
  if (sampler.use_timers) {
    kept = timer_publish(&res);
    collected = tick_timers(&res, targets, runtimes, n_targets, use_suspend);
  } else if (use_suspend) {
    tick_suspend(period_ns, &res, targets, runtimes, n_targets);
  } else {
    kept = tick_requests(period_ns, &res, targets, runtimes, n_targets);
  }
  if ((sampler.use_timers || use_suspend) && sampler.walks_kept > 0) {
    /* Requests of earlier signal-walker ticks (the walker changed since). */
    requests_collect(period_ns, targets, runtimes, n_targets);
    if (!requests_in_flight() && !sampler.abandoned)
      requests_release();
  }
  /* In cpu mode a tick is a capture (tick_timers). */
  guint ticks = sampler.use_timers ? collected : 1;
  g_mutex_lock(&sampler.lock);
  /* A tick with no runtime to walk (before the first starts, after the last shut down: their threads may still
   * run) walked native frames only: it counts for neither walker. */
  if (use_suspend)
    sampler.ticks_suspend += ticks;
  else if (n_targets > 0)
    sampler.ticks_signal += ticks;
  g_mutex_unlock(&sampler.lock);
  /* A capture abandoned at stop may still be reading the map and the caches: they stay taken. So
   * does what the timer handlers now walk with. */
  if (!sampler.abandoned && !kept)
    sxs__walk_resources_leave();
}

/* Cpu mode: sleeps until a timer handler has work for the sampler (on_timer), the stop, or
 * deadline (CLOCK_MONOTONIC, ns), whichever comes first. Returns at once when the captures that
 * wait already call for a batch (one thread's all full, or SAMPLER_WAKE_PENDING in all) or the
 * last batch left some. Context: the sampler thread. */
static void wait_for_captures(guint64 deadline) {
  if (sampler.timer_leftover)
    return;
  __atomic_store_n(&hot.sampler_asleep, 1, __ATOMIC_SEQ_CST);
  /* Read after announcing the sleep: a handler that finished before this is seen here, one
   * after it sees the sampler asleep (both sequentially consistent). */
  guint done = __atomic_load_n(&hot.timer_done, __ATOMIC_SEQ_CST);
  gboolean due = done - __atomic_load_n(&hot.timer_collected, __ATOMIC_RELAXED) >= SAMPLER_WAKE_PENDING;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (!due && g_hash_table_iter_next(&it, NULL, &value)) {
    ThreadSlot *ts = ((SampledThread *)value)->tslot;
    if (!ts)
      continue;
    guint full = 0;
    for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++)
      full += __atomic_load_n(&ts->cap[i].state, __ATOMIC_ACQUIRE) != SLOT_IDLE;
    due = full >= SAMPLER_WAKE_FULL || __atomic_load_n(&ts->missed, __ATOMIC_RELAXED) != 0;
  }
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  if (!due && now < deadline && !__atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE)) {
    guint64 left = deadline - now;
    struct timespec ts = {.tv_sec = (time_t)(left / 1000000000), .tv_nsec = (long)(left % 1000000000)};
    syscall(SYS_futex, &hot.sampler_asleep, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
  }
  __atomic_store_n(&hot.sampler_asleep, 0, __ATOMIC_SEQ_CST);
}

/* Cpu mode: the sampler's loop. No fixed tick: a batch when handlers call for it (or when a
 * rescan is due), the rescan after it, every SAMPLER_RESCAN_NS; a last batch once the timers
 * are gone, so that every capture made is counted before the profile is written. */
static void run_timers(guint64 period) {
  guint64 last_scan = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  rescan();
  while (!__atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE)) {
    guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    tick(period);
    g_mutex_lock(&sampler.lock);
    if (sampler.wakes == 0)
      sampler.first_tick_ns = now;
    sampler.last_tick_ns = now;
    sampler.wakes++;
    g_mutex_unlock(&sampler.lock);
    /* A thread that ended since the last rescan had its captures collected just now. */
    guint64 every = sampler.stacks_missing ? (guint64)SAMPLER_MAPS_MISSING_NS : (guint64)SAMPLER_RESCAN_NS;
    if (sxs__sampler_now_ns(CLOCK_MONOTONIC) - last_scan >= every) {
      rescan();
      last_scan = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    }
    wait_for_captures(last_scan +
                      (sampler.stacks_missing ? (guint64)SAMPLER_MAPS_MISSING_NS : (guint64)SAMPLER_RESCAN_NS));
  }
  requests_finish();
  GHashTableIter it;
  gpointer value;
  /* The timers go (no new expiry); the captures made until then are collected. */
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    SampledThread *t = value;
    if (t->tslot && t->perf_fd >= 0)
      ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
    else if (t->tslot)
      timer_delete(t->timer);
    t->timer_deleted = TRUE;
  }
  if (handlers_drained() && !sampler.abandoned) {
    do
      tick(period);
    while (sampler.timer_leftover && !sampler.abandoned);
  }
}

static void *sampler_main(void *arg) {
  (void)arg;
  sampler.own_tid = sxs__sampler_gettid();
  sampler.pid = getpid();
  hot.pid = sampler.pid;
  sampler.uid = getuid();
  pthread_setname_np(pthread_self(), "sxsprof-sampler");
  own_thread_note(sampler.own_tid, "sxsprof-sampler");
  guint64 period = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
  guint64 next = sxs__sampler_now_ns(CLOCK_MONOTONIC), last_scan = 0;
  if (sampler.use_timers)
    run_timers(period);
  while (!sampler.use_timers && !__atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE)) {
    /* Ticks keep to a fixed schedule, one every period. A tick that would start more than a
     * period late (a slow tick before it, a rescan, the sampler not scheduled) is missed: the
     * periods passed are counted, not caught up with in a burst. */
    guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    guint64 missed = now > next ? (now - next) / period : 0;
    next += missed * period;
    /* The first tick needs the threads; later ones find them rescanned after a tick, in the time
     * left before the next one. */
    if (last_scan == 0) {
      rescan();
      last_scan = now;
    }
    tick(period);
    g_mutex_lock(&sampler.lock);
    if (sampler.ticks == 0)
      sampler.first_tick_ns = now;
    sampler.last_tick_ns = now;
    sampler.ticks++;
    sampler.ticks_missed += missed;
    g_mutex_unlock(&sampler.lock);
    if (sxs__sampler_now_ns(CLOCK_MONOTONIC) - last_scan >= (guint64)SAMPLER_RESCAN_NS) {
      rescan();
      last_scan = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    }
    next += period;
    struct timespec ts = {.tv_sec = (time_t)(next / 1000000000), .tv_nsec = (long)(next % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
      ;
  }
  requests_finish();
  /* Timers first (no new expiry), then what the handlers walk with, once none is left. */
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    timer_disarm(value);
  if (sampler.timer_walk_taken && handlers_drained()) {
    sxs__walk_resources_leave();
    sampler.timer_walk_taken = FALSE;
  }
  return NULL;
}

/*
 * Mode=cpu: which engine raises the samples. engine=auto takes perf_events where this process may
 * open a counter (a probe on the calling thread), the timers otherwise; engine=perf that is
 * refused falls back to the timers too, saying so. A hardware event has no fallback: sampling is
 * off, and the reason says why. Returns FALSE when sampling is off. Context: sxs__sampler_start.
 */
static gboolean choose_engine(const SxsConfig *cfg) {
  sampler.event = cfg->sampling.event;
  sampler.engine = SXS_ENGINE_TIMER;
  hot.event_period = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
  if (!sampler.use_timers)
    return TRUE;
  SxsEngineKind asked = cfg->sampling.engine;
  if (asked == SXS_ENGINE_TIMER && sampler.event == SXS_EVENT_CPU_TIME) {
    sampler.engine_reason = g_strdup("engine=timer asked for");
    return TRUE;
  }
  /* The suspend walker stitches the runtimes' walks, made when it suspends them, to the captures:
   * it was proven with the timers' captures. With the perf_events engine's, the hot/cold test's
   * hot share fell to 34 and 61 % in two of five runs, so auto keeps the timers for it. */
  if (asked == SXS_ENGINE_AUTO && cfg->sampling.walker == SXS_WALKER_SUSPEND && sampler.event == SXS_EVENT_CPU_TIME) {
    sampler.engine_reason = g_strdup("walker=suspend: its walks are stitched to the timers' captures");
    return TRUE;
  }
  g_autofree char *refused = NULL;
  if (sxs__engine_perf_probe(sampler.event, &refused) == 0) {
    sampler.engine = SXS_ENGINE_PERF;
    struct rlimit files;
    rlim_t soft = getrlimit(RLIMIT_NOFILE, &files) == 0 ? files.rlim_cur : 1024;
    sampler.perf_fd_budget = (guint)MIN(soft == RLIM_INFINITY ? G_MAXUINT : soft / 4, (rlim_t)SAMPLER_POOL_SLOTS);
    hot.event_period = sxs__engine_perf_period(sampler.event, sampler.frequency);
    sampler.engine_reason = g_strdup(asked == SXS_ENGINE_PERF ? "engine=perf asked for" : "perf_event_open allowed");
    return TRUE;
  }
  if (sampler.event != SXS_EVENT_CPU_TIME) {
    set_off(refused);
    return FALSE;
  }
  sampler.engine_reason = g_strdup_printf("%s; the CPU-time timers instead", refused);
  sxs__manager_log("sampling: engine=%s: %s", sxs__config_engine_name(asked), sampler.engine_reason);
  return TRUE;
}

static void set_off(const char *why) {
  g_mutex_lock(&sampler.lock);
  g_free(sampler.off_reason);
  sampler.off_reason = g_strdup(why);
  g_mutex_unlock(&sampler.lock);
  sxs__manager_log("sampling is off: %s", why);
}

void sxs__sampler_start(const SxsConfig *cfg) {
  if (!cfg || !cfg->sampling.enabled || !g_once_init_enter(&sampler.started))
    return;
  sampler.dropped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  sampler.threads = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, sampled_thread_free);
  sampler.frequency = cfg->sampling.frequency > 0 ? cfg->sampling.frequency : SXS_SAMPLING_FREQUENCY_DEFAULT;
  sampler.mode = cfg->sampling.mode;
  sampler.walker = cfg->sampling.walker;
  sampler.debug_dirs = g_strdupv(cfg->symbols.debug_dirs);
  /* mode=cpu, either walker: the kernel's per-thread CPU-time timers deliver the signals (the
   * suspend walker uses the sampler's own signal only for a thread whose capture matched no walk
   * it could reuse). */
  sampler.use_timers = sampler.mode == SXS_SAMPLING_CPU;
  sampler.rates = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, sxs__thread_rate_model_free);
  sampler.own = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, sxs__thread_rate_model_free);
  if (!choose_engine(cfg)) {
    g_once_init_leave(&sampler.started, 1);
    return;
  }

  struct sigaction old;
  if (sigaction(SXS_SAMPLER_SIGNAL, NULL, &old) != 0 ||
      ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL
                                   : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))) {
    set_off("the application handles SIGPROF, the signal the sampler would use");
  } else {
    hot.pid = getpid();
    sampler.pid = hot.pid;
    hot.lock_code[0] = (uintptr_t)dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
    hot.lock_code[1] = (uintptr_t)dlsym(RTLD_DEFAULT, "pthread_mutex_unlock");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sxs__sampler_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sxs__unwind_init();
    if (sigaction(SXS_SAMPLER_SIGNAL, &sa, NULL) != 0) {
      set_off("the signal handler could not be installed");
    } else {
      sigset_t all, prev;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &prev);
      int r = pthread_create(&sampler.thread, NULL, sampler_main, NULL);
      pthread_sigmask(SIG_SETMASK, &prev, NULL);
      if (r != 0) {
        set_off("the sampler thread could not be started");
      } else {
        sampler.running = TRUE;
        /* Stopped before other exit handlers run: the runtimes may be going away after them. */
        atexit(sxs__sampler_stop);
      }
    }
  }
  g_once_init_leave(&sampler.started, 1);
}

void sxs__sampler_stop(void) {
  static gint joining;
  if (!g_atomic_pointer_get(&sampler.started) || !__atomic_load_n(&sampler.running, __ATOMIC_ACQUIRE) ||
      getpid() != sampler.pid)
    return;
  /* One caller joins (an attach's stop may meet the exit's): the others go on at once. */
  if (!g_atomic_int_compare_and_exchange(&joining, 0, 1))
    return;
  __atomic_store_n(&sampler.stop, TRUE, __ATOMIC_RELEASE);
  /* Cpu mode: the sampler may sleep until its next rescan; it is woken now. */
  __atomic_store_n(&hot.sampler_asleep, 0, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &hot.sampler_asleep, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  /* A tick ends within one capture's wait (20 ms) once stop is set; a thread that never returns
   * (it cannot, but the exit must not hang on it) is left behind after 2 s. */
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 2;
  if (pthread_timedjoin_np(sampler.thread, NULL, &deadline) == 0)
    __atomic_store_n(&sampler.running, FALSE, __ATOMIC_RELEASE);
  else
    sxs__manager_log("sampling: the sampler thread did not stop within 2 s");
  g_atomic_int_set(&joining, 0);
}

void sxs__sampler_thread_created(int runtime_id, uint64_t thread_id) {
  uint64_t key = destroyed_key(runtime_id, thread_id);
  for (guint i = 0; i < G_N_ELEMENTS(sampler.destroyed); i++) {
    uint64_t expected = key;
    __atomic_compare_exchange_n(&sampler.destroyed[i], &expected, 0, FALSE, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
}

void sxs__sampler_thread_destroyed(int runtime_id, uint64_t thread_id) {
  if (!g_atomic_pointer_get(&sampler.started) || !sampler.running)
    return;
  /* Announce first, then look (both sequentially consistent): either the sampler's check before
   * a walk sees the announcement, or this sees the walk under way and waits for it. */
  guint at = __atomic_fetch_add(&sampler.destroyed_next, 1, __ATOMIC_SEQ_CST) % G_N_ELEMENTS(sampler.destroyed);
  __atomic_store_n(&sampler.destroyed[at], destroyed_key(runtime_id, thread_id), __ATOMIC_SEQ_CST);
  gint64 deadline = g_get_monotonic_time() + 200 * 1000;
  while (__atomic_load_n(&sampler.walking_thread, __ATOMIC_SEQ_CST) == thread_id &&
         __atomic_load_n(&sampler.walking_runtime, __ATOMIC_SEQ_CST) == runtime_id && g_get_monotonic_time() < deadline)
    g_usleep(50);
}

void sxs__sampler_fill(SxsProfileModel *m) {
  const SxsConfig *cfg = sxs__manager_config();
  SxsSamplesModel *s = &m->samples;
  s->enabled = cfg && cfg->sampling.enabled;
  s->frequency = cfg ? cfg->sampling.frequency : 0;
  s->mode = g_strdup(cfg ? sxs__config_sampling_mode_name(cfg->sampling.mode) : NULL);
  if (cfg && cfg->sampling.mode == SXS_SAMPLING_CPU) {
    s->event = g_strdup(sxs__config_event_name(cfg->sampling.event));
    s->event_unit = g_strdup(sxs__engine_perf_unit(cfg->sampling.event));
  }
  if (!g_atomic_pointer_get(&sampler.started)) {
    s->walker = g_strdup(s->enabled ? "signal" : NULL);
    return;
  }
  g_mutex_lock(&sampler.lock);
  /* The walker of most ticks (a process whose runtimes change may have used both). */
  s->walker = g_strdup(!s->enabled ? NULL : sampler.ticks_suspend > sampler.ticks_signal ? "suspend" : "signal");
  s->ticks_signal = sampler.ticks_signal;
  s->ticks_suspend = sampler.ticks_suspend;
  s->off_reason = g_strdup(sampler.off_reason);
  if (sampler.use_timers && !sampler.off_reason) {
    s->engine = g_strdup(sxs__config_engine_name(sampler.engine));
    s->engine_reason = g_strdup(sampler.engine_reason);
    s->event_period = hot.event_period;
  }
  GHashTableIter rit;
  gpointer rvalue;
  if (sampler.rates) {
    g_hash_table_iter_init(&rit, sampler.rates);
    while (g_hash_table_iter_next(&rit, NULL, &rvalue))
      g_ptr_array_add(s->thread_rates, sxs__thread_rate_model_copy(rvalue));
    g_ptr_array_sort(s->thread_rates, sxs__thread_rate_model_compare);
  }
  if (sampler.own) {
    g_hash_table_iter_init(&rit, sampler.own);
    while (g_hash_table_iter_next(&rit, NULL, &rvalue))
      g_ptr_array_add(s->profiler_threads, sxs__thread_rate_model_copy(rvalue));
    g_ptr_array_sort(s->profiler_threads, sxs__thread_rate_model_compare);
  }
  s->ticks = sampler.ticks;
  s->ticks_missed = sampler.ticks_missed;
  /* Wall mode: the time the ticks cover, from the first one's start to the end of the last one's
   * period. Cpu mode has no fixed tick: a tick is a period of CPU time some thread used (a timer
   * expiry), captured (ticks) or not (ticks_missed: the kernel merged it into a later expiry, as
   * it checks CPU-time timers at its scheduler tick, or the thread's captures were all still
   * uncollected); the time they cover is the CPU time sampled, and achieved_hz the stacks
   * captured per second of it. */
  guint64 period_ns = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
  if (sampler.use_timers)
    s->duration_ns = (sampler.ticks + sampler.ticks_missed) * period_ns; /* a hardware event's: at the rate asked */
  else
    s->duration_ns = sampler.ticks > 0 ? sampler.last_tick_ns - sampler.first_tick_ns + period_ns : 0;
  s->threads = sampler.threads_max;
  s->threads_per_tick = SAMPLER_TICK_THREADS;
  s->blocked_walks = sampler.blocked_walks;
  s->blocked_walk_ns = sampler.blocked_walk_ns;
  s->taken = sampler.taken;
  s->weight = sampler.weight;
  s->capture_ns = sampler.capture_ns;
  capture_quantiles(s);
  s->resolve_ns = sampler.resolve_ns;
  s->suspensions = sampler.suspensions;
  s->walks_reused = sampler.walks_reused;
  s->frames = sampler.frames;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, sampler.dropped);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    guint64 *v = g_new(guint64, 1);
    *v = *(guint64 *)value;
    g_hash_table_insert(s->dropped, g_strdup(key), v);
  }
  g_mutex_unlock(&sampler.lock);
}
