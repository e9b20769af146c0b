/* sxs_sampler: a sampling profiler over every thread of the process, every runtime's frames.
 *
 *   sampler thread (the profiler's own; never runs managed code; all signals blocked)
 *     every 1/frequency s:
 *       threads: /proc/self/task (rescanned every 100 ms), each thread's CPU clock (mode=cpu)
 *       for each thread due a sample:
 *         slot <- {tid, module map, step cache, stack ranges}; state REQUESTED
 *         rt_tgsigqueueinfo(tid, SIGPROF, si_value = &slot)  ---------.
 *                                                                      v   the thread, in its handler:
 *                                                          state REQUESTED -> RUNNING
 *                                                          registers from the ucontext, its stack's
 *                                                          range from the snapshot, a native walk
 *                                                          (frame pointers through JIT code, cached
 *                                                          rules through native code) into the slot
 *         wait (bounded) for DONE  <------------------------ state DONE
 *         classify (owners cache, each runtime's GetFunctionFromIP), name, aggregate (sxs_stacks)
 *
 * One slot, one thread at a time: the handler writes only the slot, allocates nothing, takes no
 * lock and calls no libc function but syscall(gettid) and clock_gettime (libunwind only for a
 * native frame no cached rule covers yet). A thread that does not answer in time (it has the
 * signal blocked, or is not scheduled) is given up on; a handler that started is waited for, and
 * if it never finishes the sampler stops for good rather than reuse its slot. The snapshots the
 * handler reads (module map, stack ranges) are replaced only between samples.
 *
 * mode=cpu samples a thread once per period of CPU time it used since its last sample (each
 * thread's CPU clock), so an idle thread costs nothing and a sample stands for CPU time; mode=wall
 * samples every thread at every tick. */
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sxs_manager.h"
#include "sxs_search.h"
#include "sxs_hresult.h"
#include "sxs_snapshot.h"
#include "sxs_stacks.h"
#include "sxs_stitch.h"
#include "sxs_unwind.h"

#define SAMPLER_MAX_FRAMES SXS_STITCH_MAX_FRAMES
#define SAMPLER_LOADER "ld-linux-x86-64.so.2"
#define SAMPLER_WAIT_NS (20 * G_GINT64_CONSTANT(1000000))    /* a thread has this long to take its sample */
#define SAMPLER_STUCK_NS (1000 * G_GINT64_CONSTANT(1000000)) /* a handler that ran this long never ends */
#define SAMPLER_CAPTURE_RING 4096                            /* captures whose times the quantiles are taken over */
#define SAMPLER_REUSE_WALKS 4 /* stacks a thread keeps the runtimes' walks of (suspend walker) */
#define SAMPLER_RESCAN_NS (100 * G_GINT64_CONSTANT(1000000)) /* threads and stacks looked for again */

/* The slot's state word: a request's sequence number in bits 2-31, its phase in bits 0-1. The
 * handler moves (its request, REQUESTED) to (its request, RUNNING) in one compare-and-swap, so a
 * handler that arrives late, after its request was given up, can never take a newer one. */
enum { SLOT_IDLE, SLOT_REQUESTED, SLOT_RUNNING, SLOT_DONE };
#define SLOT_STATE(seq, phase) ((gint)(((guint)(seq) << 2) | (guint)(phase)))
#define SLOT_PHASE(state) ((guint)(state)&3u)

/* The writable mappings of the process, sorted: a thread's stack is the one holding its sp. */
typedef struct {
  guint n;
  struct {
    uintptr_t lo, hi;
  } ranges[];
} StackRanges;

/* What one capture walks with: snapshots the sampler replaces only between samples. */
typedef struct {
  const SxsModuleMap *map;
  const SxsModule *loader; /* in map: where libunwind must not be started from */
  SxsUnwindCache *steps;
  const StackRanges *stacks;
} CaptureInputs;

/* What one capture gives, written by the handler before it stores DONE. */
typedef struct {
  int n; /* frames written, or -errno */
  guint64 capture_ns;
  SxsNativeFrame frames[SAMPLER_MAX_FRAMES];
} Capture;

/* The sampler's request to one thread. The sampler fills the inputs before it signals; the handler
 * writes the capture before it stores DONE (release), which the sampler reads (acquire). */
typedef struct {
  gint state; /* SLOT_STATE(sequence, phase) */
  guint seq;  /* the last request's sequence number (the sampler's) */
  pid_t tid;
  CaptureInputs in;
  Capture out;
} SampleSlot;

static SampleSlot slot;

/* mode=cpu with the signal walker: each thread has a CPU-time timer of its own (timer_create on
 * its CPU clock, SIGEV_THREAD_ID), so the kernel raises the signal on the thread itself, on its
 * own CPU, each time it has used a period: no signal crosses CPUs, nothing polls CPU clocks, and
 * a thread that is not running is never interrupted. The handler writes into the thread's own
 * slot, from a fixed pool (the signal's value must point into it); the sampler collects what is
 * DONE at each tick. */
#define SAMPLER_POOL_SLOTS 512
#define THREAD_SLOT_MAGIC 0x5358534Cu
typedef struct {
  guint32 magic;
  pid_t tid;
  gint state;  /* SLOT_IDLE, SLOT_RUNNING, SLOT_DONE */
  gint missed; /* expiries while the last capture was not collected yet (atomic) */
  Capture out;
} ThreadSlot;

static ThreadSlot *pool;       /* SAMPLER_POOL_SLOTS slots, allocated when timers are used */
static gint handlers_inflight; /* timer handlers between their first and last read of timer_res */
/* What timer handlers walk with, published by the sampler (atomic pointers; map last, so that a
 * handler that reads it first finds the loader and steps that go with it). */
static CaptureInputs timer_res;
static pid_t sampler_pid; /* the process the handler answers for (a forked child is another) */

typedef struct {
  pid_t tid;
  char *name;
  gint64 cpu_accounted; /* CPU time (ns) the samples taken so far stand for */
  gboolean seen;
  gboolean blocked;     /* the thread blocks the signal: never asked */
  guint idle_ticks;     /* ticks in a row its CPU clock did not reach a period: looked at less often */
  guint timeouts;       /* requests in a row it did not answer */
  gint64 cpu_at_sample; /* wall mode: its CPU time at its last sample */
  SxsStackFrame *last;  /* wall mode: its last stack (stitched), last_n frames; owned */
  ThreadSlot *tslot;    /* timer mode: its slot in the pool, or NULL */
  timer_t timer;        /* timer mode: its CPU-time timer (valid with tslot) */
  guint last_n;
  guint skip;                                   /* ticks left before it is looked at again */
  struct WalkReuse *reuse[SAMPLER_REUSE_WALKS]; /* suspend walker: its last walks by the runtimes (NULL: none); owned */
} SampledThread;

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
  gboolean stacks_stale;       /* the stack ranges are to be read again at the next rescan */
  gboolean abandoned;          /* a capture was left running at stop: its resources are never released */
  guint rotation;              /* where the next tick starts in the thread list */
  gboolean use_timers;         /* mode=cpu: per-thread CPU-time timers capture the stacks */
  SxsWalkResources timer_walk; /* what timer handlers walk with (taken, released when replaced) */
  gboolean timer_walk_taken;
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

static pid_t sampler_gettid(void) {
  return (pid_t)syscall(SYS_gettid);
}

static guint64 now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (guint64)ts.tv_sec * G_GUINT64_CONSTANT(1000000000) + (guint64)ts.tv_nsec;
}

/* The stack range holding sp. Context: the signal handler; async-signal-safe. */
static bool find_stack(const StackRanges *stacks, uintptr_t sp, uintptr_t *ret_lo, uintptr_t *ret_hi) {
  if (!stacks)
    return false;
  size_t after = SXS_SEARCH_UPPER_BOUND(stacks->ranges, stacks->n, lo, sp);
  if (after == 0 || sp >= stacks->ranges[after - 1].hi)
    return false;
  *ret_lo = stacks->ranges[after - 1].lo;
  *ret_hi = stacks->ranges[after - 1].hi;
  return true;
}

/* The lock-taking code of the loader's lock: pthread_mutex_lock and pthread_mutex_unlock of libc
 * (the loader's recursive lock goes through them), found at start. A thread interrupted between
 * taking that lock and recording itself as its owner (or between forgetting the owner and letting
 * the lock go) would wait on itself if its handler started libunwind, which takes the lock through
 * dl_iterate_phdr. The windows lie inside these functions, or inside the loader itself. */
#define SAMPLER_LOCK_CODE_BYTES 0x1000
static uintptr_t lock_code[2];

/* May a handler that interrupted ip start libunwind? Context: the signal handler. */
static bool may_start_libunwind(const SxsModuleMap *map, const SxsModule *loader, uintptr_t ip) {
  for (int i = 0; i < 2; i++)
    if (lock_code[i] != 0 && ip >= lock_code[i] && ip - lock_code[i] < SAMPLER_LOCK_CODE_BYTES)
      return false;
  return loader == NULL || sxs__modmap_find(map, ip) != loader;
}

/* The capture: the interrupted thread's native stack, from the registers in uc, walked with in,
 * into out (its frames, or -errno: -ERANGE when no stack range holds the stack pointer), and the
 * time it took. Context: the sampled thread's signal handler, any point of its code;
 * async-signal-safe (no allocation, no lock). */
static void capture_in_handler(const void *uc, const CaptureInputs *in, Capture *out) {
  guint64 t0 = now_ns(CLOCK_MONOTONIC);
  SxsRegs regs;
  sxs__regs_from_ucontext(&regs, uc);
  uintptr_t lo, hi;
  int n = -ERANGE;
  /* libunwind reads unwind tables through dl_iterate_phdr, which takes the loader's lock:
   * a thread interrupted inside the loader or libc (where that lock is taken and released)
   * could deadlock on itself. There the walk uses cached rules and frame pointers only. */
  bool allow_libunwind = may_start_libunwind(in->map, in->loader, regs.ip);
  SxsModmapCursor cursor = {.map = in->map};
  if (find_stack(in->stacks, regs.sp, &lo, &hi))
    n = sxs__unwind_from_regs(&regs, true, allow_libunwind, lo, hi, sxs__stitch_is_fp_code, &cursor, in->steps,
                              out->frames, SAMPLER_MAX_FRAMES);
  out->n = n;
  out->capture_ns = now_ns(CLOCK_MONOTONIC) - t0;
}

/* A timer expiry on the current thread: the capture into its own slot, with what the sampler
 * published last. Context: the signal handler (sampler_on_signal); async-signal-safe. */
static void on_timer(siginfo_t *si, void *uc) {
  ThreadSlot *ts = si->si_value.sival_ptr;
  /* Only a pointer into the pool is ours (another timer's value is never dereferenced). */
  if (pool == NULL || (char *)ts < (char *)pool || (char *)ts >= (char *)(pool + SAMPLER_POOL_SLOTS) ||
      ((char *)ts - (char *)pool) % sizeof *pool != 0)
    return;
  __atomic_add_fetch(&handlers_inflight, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&ts->magic, __ATOMIC_ACQUIRE) == THREAD_SLOT_MAGIC && ts->tid == sampler_gettid()) {
    gint expected = SLOT_IDLE;
    if (__atomic_compare_exchange_n(&ts->state, &expected, SLOT_RUNNING, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      CaptureInputs in;
      in.map = __atomic_load_n(&timer_res.map, __ATOMIC_ACQUIRE); /* first: published last */
      in.loader = __atomic_load_n(&timer_res.loader, __ATOMIC_ACQUIRE);
      in.steps = __atomic_load_n(&timer_res.steps, __ATOMIC_ACQUIRE);
      in.stacks = __atomic_load_n(&timer_res.stacks, __ATOMIC_ACQUIRE);
      capture_in_handler(uc, &in, &ts->out);
      __atomic_store_n(&ts->state, SLOT_DONE, __ATOMIC_RELEASE);
    } else {
      __atomic_add_fetch(&ts->missed, 1, __ATOMIC_RELAXED);
    }
  }
  __atomic_sub_fetch(&handlers_inflight, 1, __ATOMIC_SEQ_CST);
}

/* The sampler's request (sequence number seq) to the current thread: the capture into the
 * sampler's slot, then the sampler is woken. Context: the signal handler (sampler_on_signal);
 * async-signal-safe. */
static void on_request(guint seq, void *uc) {
  if (__atomic_load_n(&slot.tid, __ATOMIC_ACQUIRE) != sampler_gettid())
    return;
  gint expected = SLOT_STATE(seq, SLOT_REQUESTED);
  if (!__atomic_compare_exchange_n(&slot.state, &expected, SLOT_STATE(seq, SLOT_RUNNING), false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return;
  capture_in_handler(uc, &slot.in, &slot.out);
  __atomic_store_n(&slot.state, SLOT_STATE(seq, SLOT_DONE), __ATOMIC_RELEASE);
  syscall(SYS_futex, &slot.state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The signal handler: a thread's CPU-time timer expired (mode=cpu), or the sampler asks for a
 * capture; any other SIGPROF is ignored, as its default disposition would not be wanted. Context:
 * the sampled thread, any point of its code; async-signal-safe (no allocation, no lock, errno
 * preserved). */
static void sampler_on_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  if (si == NULL)
    return;
  int saved_errno = errno;
  if (si->si_code == SI_TIMER)
    on_timer(si, uc);
  else if (si->si_code == SI_QUEUE && si->si_pid == sampler_pid)
    on_request((guint)si->si_value.sival_int, uc);
  errno = saved_errno;
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
    sampler.stacks_stale = TRUE;
}

/* The threads' stacks from /proc/self/maps. Context: the sampler thread. */
static StackRanges *read_stack_ranges(void) {
  g_autofree char *text = NULL;
  if (!g_file_get_contents("/proc/self/maps", &text, NULL, NULL))
    return NULL;
  g_autoptr(GArray) ranges = g_array_new(FALSE, FALSE, sizeof(uintptr_t) * 2);
  unsigned long long prev_guard_end = 0;
  for (char *line = text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    unsigned long long lo = 0, hi = 0, offset = 0, inode = 0;
    char perms[8] = "", dev[16] = "";
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &lo, &hi, perms, &offset, dev, &inode, &path_at) >= 6) {
      const char *path = path_at > 0 ? line + path_at : "";
      /* A stack: the main thread's [stack], or an anonymous read-write mapping right above a
       * guard page (what pthread stacks are). Other writable memory (heaps, the GC's) is left
       * out, so that a walk can never read memory that is unmapped under it. */
      gboolean stack = g_str_has_prefix(path, "[stack]") ||
                       (perms[0] == 'r' && perms[1] == 'w' && inode == 0 && *path == '\0' && prev_guard_end == lo);
      if (stack) {
        uintptr_t r[2] = {(uintptr_t)lo, (uintptr_t)hi};
        g_array_append_val(ranges, r);
      }
      prev_guard_end = perms[0] == '-' && perms[1] == '-' && perms[2] == '-' ? hi : 0;
    }
    line = next;
  }
  StackRanges *s = g_malloc(sizeof *s + ranges->len * sizeof s->ranges[0]);
  s->n = ranges->len;
  memcpy(s->ranges, ranges->data, ranges->len * sizeof s->ranges[0]);
  return s;
}

/* Is the sampler's signal blocked by thread tid (SigBlk of its status)? */
static gboolean thread_blocks_signal(pid_t tid) {
  g_autofree char *path = g_strdup_printf("/proc/self/task/%d/status", (int)tid);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return FALSE;
  const char *blk = strstr(text, "\nSigBlk:");
  if (!blk)
    return FALSE;
  guint64 mask = g_ascii_strtoull(blk + 8, NULL, 16);
  return (mask >> (SXS_SAMPLER_SIGNAL - 1)) & 1;
}

/* Timer mode: gives the thread a slot and a CPU-time timer firing every period of its CPU time. */
static void timer_arm(SampledThread *t) {
  if (!pool)
    pool = g_new0(ThreadSlot, SAMPLER_POOL_SLOTS);
  ThreadSlot *ts = NULL;
  for (guint i = 0; i < SAMPLER_POOL_SLOTS && !ts; i++)
    if (__atomic_load_n(&pool[i].magic, __ATOMIC_ACQUIRE) == 0)
      ts = &pool[i];
  if (!ts) {
    count_dropped("too many threads for timers");
    return;
  }
  ts->tid = t->tid;
  ts->state = SLOT_IDLE;
  ts->missed = 0;
  __atomic_store_n(&ts->magic, THREAD_SLOT_MAGIC, __ATOMIC_RELEASE);
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
  guint64 period = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
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
  timer_delete(t->timer);
  __atomic_store_n(&t->tslot->magic, 0, __ATOMIC_RELEASE);
  t->tslot = NULL;
}

static void walk_reuse_free(struct WalkReuse *r);

static void sampled_thread_free(gpointer p) {
  SampledThread *t = p;
  timer_disarm(t);
  for (guint i = 0; i < G_N_ELEMENTS(t->reuse); i++)
    walk_reuse_free(t->reuse[i]);
  g_free(t->last);
  g_free(t->name);
  g_free(t);
}

/* Rescans the process's threads (and the stack ranges). Context: the sampler thread, with no
 * capture under way. */
static void rescan(void) {
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    ((SampledThread *)value)->seen = FALSE;
  DIR *dir = opendir("/proc/self/task");
  if (dir) {
    struct dirent *d;
    while ((d = readdir(dir))) {
      if (!g_ascii_isdigit(d->d_name[0]))
        continue;
      pid_t tid = (pid_t)g_ascii_strtoll(d->d_name, NULL, 10);
      if (tid == sampler.own_tid)
        continue;
      SampledThread *t = g_hash_table_lookup(sampler.threads, GINT_TO_POINTER(tid));
      if (!t) {
        sampler.stacks_stale = TRUE; /* a new thread: a new stack mapping */
        t = g_new0(SampledThread, 1);
        t->tid = tid;
        g_autofree char *comm_path = g_strdup_printf("/proc/self/task/%d/comm", (int)tid);
        g_autofree char *comm = NULL;
        if (g_file_get_contents(comm_path, &comm, NULL, NULL))
          t->name = g_strdup(g_strstrip(comm));
        t->cpu_accounted = MAX(thread_cpu_ns(tid), 0);
        /* A thread that blocks the signal (the profiler's own, some runtime threads) would never
         * answer: it is not asked while it does. */
        t->blocked = thread_blocks_signal(tid);
        g_hash_table_insert(sampler.threads, GINT_TO_POINTER(tid), t);
        if (sampler.use_timers)
          timer_arm(t);
      } else {
        if (t->blocked) {
          /* A thread may start with every signal blocked (created by a thread that blocks them)
           * and unblock them later: looked at again at each rescan while it blocks. */
          t->blocked = thread_blocks_signal(tid);
        }
        /* .NET threads name themselves after they start (thread-pool workers, Thread.Name). */
        g_autofree char *comm_path = g_strdup_printf("/proc/self/task/%d/comm", (int)tid);
        g_autofree char *comm = NULL;
        if (g_file_get_contents(comm_path, &comm, NULL, NULL) && g_strcmp0(g_strstrip(comm), t->name) != 0) {
          g_free(t->name);
          t->name = g_strdup(comm);
        }
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

  /* /proc/self/maps of a .NET process has thousands of lines: read only when a thread appeared
   * or a capture did not find its stack. */
  StackRanges *fresh = sampler.stacks_stale ? read_stack_ranges() : NULL;
  sampler.stacks_stale = FALSE;
  if (fresh) {
    if (sampler.stacks) {
      if (!sampler.retired_stacks)
        sampler.retired_stacks = g_ptr_array_new_with_free_func(g_free);
      g_ptr_array_add(sampler.retired_stacks, sampler.stacks);
    }
    sampler.stacks = fresh;
    /* No capture is under way between ticks, and no timer handler holds the old ranges: nothing
     * reads them any more. */
    __atomic_store_n(&timer_res.stacks, fresh, __ATOMIC_RELEASE);
    if (SLOT_PHASE(__atomic_load_n(&slot.state, __ATOMIC_ACQUIRE)) != SLOT_RUNNING &&
        __atomic_load_n(&handlers_inflight, __ATOMIC_SEQ_CST) == 0)
      g_clear_pointer(&sampler.retired_stacks, g_ptr_array_unref);
  }
}

/* Asks thread t for its stack and waits for it. Returns the frames captured, or -errno (the reason
 * counted). A capture the handler started is waited for as long as it takes (it only walks; a
 * process that is stopped or throttled stops the sampler too); only a stop request ends the wait,
 * and then the slot and what it points to are left to the handler for good (*ret_abandoned).
 * Context: the sampler thread. */
static int capture(SampledThread *t, const SxsWalkResources *res, gboolean *ret_abandoned) {
  guint seq = ++slot.seq & 0x3FFFFFFFu;
  slot.in = (CaptureInputs){
      .map = res->map,
      .loader = sxs__modmap_find_named(res->map, SAMPLER_LOADER),
      .steps = res->steps,
      .stacks = sampler.stacks,
  };
  slot.out.n = 0;
  __atomic_store_n(&slot.tid, t->tid, __ATOMIC_RELEASE);
  __atomic_store_n(&slot.state, SLOT_STATE(seq, SLOT_REQUESTED), __ATOMIC_RELEASE);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = SXS_SAMPLER_SIGNAL;
  si.si_code = SI_QUEUE;
  si.si_pid = sampler.pid;
  si.si_uid = sampler.uid;
  si.si_value.sival_int = (int)seq;
  if (syscall(SYS_rt_tgsigqueueinfo, sampler.pid, t->tid, SXS_SAMPLER_SIGNAL, &si) != 0) {
    __atomic_store_n(&slot.state, SLOT_IDLE, __ATOMIC_RELEASE);
    count_dropped(errno == ESRCH ? "thread gone" : "signal not sent");
    return -ESRCH;
  }
  guint64 start = now_ns(CLOCK_MONOTONIC);
  for (;;) {
    gint state = __atomic_load_n(&slot.state, __ATOMIC_ACQUIRE);
    if (state == SLOT_STATE(seq, SLOT_DONE))
      break;
    if (state == SLOT_STATE(seq, SLOT_REQUESTED) && (now_ns(CLOCK_MONOTONIC) - start > (guint64)SAMPLER_WAIT_NS ||
                                                     __atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE))) {
      gint expected = state;
      if (__atomic_compare_exchange_n(&slot.state, &expected, SLOT_IDLE, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        t->timeouts++;
        count_dropped("no answer in time");
        return -ETIMEDOUT;
      }
      continue;
    }
    if (state == SLOT_STATE(seq, SLOT_RUNNING) && __atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE)) {
      count_dropped("capture abandoned at stop");
      *ret_abandoned = TRUE;
      return -ETIMEDOUT;
    }
    /* Sleep until the handler's wake-up (or 1 ms): a thread answers in microseconds once it runs,
     * and spinning would spend a core on waiting. */
    struct timespec ms = {.tv_sec = 0, .tv_nsec = 1000000};
    syscall(SYS_futex, &slot.state, FUTEX_WAIT_PRIVATE, state, &ms, NULL, 0);
  }
  t->timeouts = 0;
  int n = slot.out.n;
  __atomic_store_n(&slot.state, SLOT_IDLE, __ATOMIC_RELEASE);
  if (n <= 0) {
    count_failed_capture(n);
    return n < 0 ? n : -ENOENT;
  }
  note_capture(slot.out.capture_ns);
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

/* Is thread t due a sample at this tick, and with what weight? mode=cpu: per period of CPU time it
 * used since the samples so far accounted for; mode=wall: every tick. */
static Due due(SampledThread *t, guint64 period_ns, guint64 *ret_weight) {
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
    gint64 cpu = thread_cpu_ns(t->tid);
    if (cpu < 0)
      return DUE_NOT;
    if (cpu == t->cpu_at_sample && t->last_n > 0)
      return DUE_REPEAT;
    t->cpu_at_sample = cpu;
  }
  if (t->blocked) {
    count_dropped("signal blocked by the thread");
    return DUE_NOT;
  }
  return DUE_SAMPLE;
}

/* A sample that could not be taken gives its CPU time back, for the next one to account for. */
static void refund(SampledThread *t, guint64 weight, guint64 period_ns) {
  if (sampler.mode == SXS_SAMPLING_CPU)
    t->cpu_accounted -= (gint64)(weight * period_ns);
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
      !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == sampler_on_signal)) {
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
  sxs__stacks_add_stitched(res, (uint32_t)t->tid, t->name, frames, n, weight, targets, n_targets);
  if (sampler.mode == SXS_SAMPLING_WALL) {
    if (!t->last)
      t->last = g_new(SxsStackFrame, SXS_STITCH_MAX_STITCHED);
    t->last_n = MIN(n, (guint)SXS_STITCH_MAX_STITCHED);
    memcpy(t->last, frames, t->last_n * sizeof *frames);
  }
}

/* A thread's captured native frames (native[0] the interrupted instruction), classified and
 * counted as its sample. Context: the sampler thread. */
static void record_capture(SampledThread *t, const SxsWalkResources *res, const SxsNativeFrame *native, guint n,
                           guint64 weight, const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes,
                           guint n_targets) {
  static SxsStackFrame classified[SAMPLER_MAX_FRAMES];
  guint64 t0 = now_ns(CLOCK_MONOTONIC);
  SxsStitchReport report = {0};
  guint m =
      sxs__stitch_classify(runtimes, n_targets, res->map, res->owners, native, n, TRUE, classified, NULL, &report);
  add_sample_of(t, res, classified, m, weight, targets, n_targets);
  count_taken(weight, m, now_ns(CLOCK_MONOTONIC) - t0);
}

/* The threads in the order a tick visits them: a different first one each tick, so that a cap on
 * the threads one tick samples never starves the same ones. */
static GPtrArray *tick_order(void) {
  GPtrArray *order = g_ptr_array_sized_new(g_hash_table_size(sampler.threads));
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    g_ptr_array_add(order, value);
  if (order->len > 1) {
    guint shift = sampler.rotation++ % order->len;
    GPtrArray *rotated = g_ptr_array_sized_new(order->len);
    for (guint i = 0; i < order->len; i++)
      g_ptr_array_add(rotated, order->pdata[(i + shift) % order->len]);
    g_ptr_array_unref(order);
    order = rotated;
  }
  return order;
}

/* A signal-walker tick: each thread due walks its own native stack; frames are classified after. */
static void tick_signal(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                        const SxsStitchRuntime *runtimes, guint n_targets) {
  g_autoptr(GPtrArray) order = tick_order();
  for (guint i = 0; i < order->len && !sampler.stop; i++) {
    SampledThread *t = order->pdata[i];
    guint64 weight;
    Due d = due(t, period_ns, &weight);
    if (d == DUE_NOT)
      continue;
    if (d == DUE_REPEAT) {
      add_sample_of(t, res, t->last, t->last_n, 1, targets, n_targets);
      count_taken(1, t->last_n, 0);
      continue;
    }
    gboolean abandoned = FALSE;
    int n = capture(t, res, &abandoned);
    if (abandoned) {
      sampler.abandoned = TRUE;
      return;
    }
    if (n <= 0) {
      refund(t, weight, period_ns);
      check_unanswered(t);
      continue;
    }
    record_capture(t, res, slot.out.frames, (guint)n, weight, targets, runtimes, n_targets);
  }
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

#define SAMPLER_SUSPEND_MAX_THREADS 32
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
  s->n_classified = sxs__stitch_classify(runtimes, n_targets, res->map, res->owners, s->native, (guint)s->n_native,
                                         TRUE, s->classified, NULL, &report);
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
  guint n_due = 0;
  g_autoptr(GPtrArray) order = tick_order();
  for (guint i = 0; i < order->len && n_due < SAMPLER_SUSPEND_MAX_THREADS; i++) {
    SampledThread *t = order->pdata[i];
    guint64 weight;
    Due d = due(t, period_ns, &weight);
    if (d == DUE_REPEAT) {
      add_sample_of(t, res, t->last, t->last_n, 1, targets, n_targets);
      count_taken(1, t->last_n, 0);
    } else if (d == DUE_SAMPLE) {
      SuspendedSample *s = &samples[n_due++];
      s->thread = t;
      s->weight = weight;
    }
  }
  if (n_due == 0)
    return;

  /* The native frames first, each thread where it runs: once a runtime is asked to suspend, its
   * threads run on to where it parks them (a GC poll, a return), and a sample taken there would
   * count the parking place, not the work. */
  guint n_captured = 0;
  for (guint i = 0; i < n_due; i++) {
    SuspendedSample *s = &samples[i];
    s->n_walks = 0;
    s->n_native = 0;
    if (sampler.stop)
      continue;
    gboolean abandoned = FALSE;
    s->learn_only = FALSE;
    s->n_native = capture(s->thread, res, &abandoned);
    if (abandoned) {
      sampler.abandoned = TRUE;
      return;
    }
    if (s->n_native > 0) {
      memcpy(s->native, slot.out.frames, (size_t)s->n_native * sizeof s->native[0]);
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
  guint64 now = now_ns(CLOCK_MONOTONIC);
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
    guint64 t0 = now_ns(CLOCK_MONOTONIC);
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
    count_taken(s->weight, kept, now_ns(CLOCK_MONOTONIC) - t0);
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
          char what[96];
          const char *name = sxs__hresult_name(hr);
          if (name)
            g_snprintf(what, sizeof what, "runtime walk incomplete: %s", name);
          else
            g_snprintf(what, sizeof what, "runtime walk incomplete: 0x%08X", (unsigned)hr);
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

/* Waits (at most 10 ms) until no timer handler is between its first and last read of timer_res. */
static gboolean handlers_drained(void) {
  for (int i = 0; i < 1000; i++) {
    if (__atomic_load_n(&handlers_inflight, __ATOMIC_SEQ_CST) == 0)
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
  __atomic_store_n(&timer_res.loader, sxs__modmap_find_named(res->map, SAMPLER_LOADER), __ATOMIC_RELEASE);
  __atomic_store_n(&timer_res.steps, res->steps, __ATOMIC_RELEASE);
  __atomic_store_n(&timer_res.map, res->map, __ATOMIC_RELEASE);
  if (sampler.timer_walk_taken && handlers_drained())
    sxs__stacks_walk_leave(); /* the previous one: nobody reads it now */
  sampler.timer_walk = *res;
  sampler.timer_walk_taken = TRUE;
  return TRUE;
}

/* Whether thread t's timer slot holds a finished capture; if so, *ret_weight is the timer
 * expiries it stands for (its own, those that found the slot still full, the timer's overruns).
 * Context: the sampler thread. */
static gboolean timer_slot_done(SampledThread *t, guint64 *ret_weight) {
  ThreadSlot *ts = t->tslot;
  if (!ts || __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) != SLOT_DONE)
    return FALSE;
  guint64 weight = 1 + (guint64)__atomic_exchange_n(&ts->missed, 0, __ATOMIC_RELAXED);
  int overrun = timer_getoverrun(t->timer);
  if (overrun > 0)
    weight += (guint64)overrun;
  *ret_weight = weight;
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
    memcpy(s->native, slot.out.frames, (size_t)s->n_native * sizeof s->native[0]);
  s->learn_only = TRUE;
  return TRUE;
}

/*
 * A timer-mode tick: the captures the threads' CPU-time timers made since the last tick, each
 * where its thread ran, on its own CPU (no signal crossed CPUs), are collected. The signal walker
 * counts each as its frames name it. The suspend walker takes up to SAMPLER_SUSPEND_MAX_THREADS
 * of them (the others stay in their slots for the next tick) and stitches them with the
 * runtimes' walks (timer_sample_prepare, suspend_finish). Context: the sampler thread.
 */
static void tick_timers(const SxsWalkResources *res, const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes,
                        guint n_targets, gboolean use_suspend) {
  SuspendedSample *samples = use_suspend ? suspended_samples() : NULL;
  guint n_due = 0;
  guint64 now = now_ns(CLOCK_MONOTONIC);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while ((!use_suspend || n_due < SAMPLER_SUSPEND_MAX_THREADS) && g_hash_table_iter_next(&it, NULL, &value)) {
    SampledThread *t = value;
    ThreadSlot *ts = t->tslot;
    guint64 weight;
    if (!timer_slot_done(t, &weight))
      continue;
    int n = ts->out.n;
    SuspendedSample *s = NULL;
    if (n <= 0) {
      count_failed_capture(n);
    } else {
      note_capture(ts->out.capture_ns);
      if (!use_suspend) {
        record_capture(t, res, ts->out.frames, (guint)n, weight, targets, runtimes, n_targets);
      } else {
        s = &samples[n_due++];
        s->thread = t;
        s->weight = weight;
        s->n_walks = 0;
        s->n_native = n;
        memcpy(s->native, ts->out.frames, (size_t)n * sizeof s->native[0]);
      }
    }
    /* The frames were counted or copied: the handler may write the slot again. */
    __atomic_store_n(&ts->state, SLOT_IDLE, __ATOMIC_RELEASE);
    if (s != NULL && !timer_sample_prepare(s, res, now, targets, runtimes, n_targets))
      return;
  }
  if (n_due > 0)
    suspend_finish(samples, n_due, res, targets, runtimes, n_targets);
}

/* One tick: the suspend walker when asked for (or auto, at a frequency it allows) and every
 * profiled runtime can be suspended, the signal walker otherwise. */
static void tick(guint64 period_ns) {
  SxsWalkResources res;
  sxs__stacks_walk_enter(&res);
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
  if (sampler.use_timers) {
    kept = timer_publish(&res);
    tick_timers(&res, targets, runtimes, n_targets, use_suspend);
  } else if (use_suspend) {
    tick_suspend(period_ns, &res, targets, runtimes, n_targets);
  } else {
    tick_signal(period_ns, &res, targets, runtimes, n_targets);
  }
  g_mutex_lock(&sampler.lock);
  if (use_suspend)
    sampler.ticks_suspend++;
  else
    sampler.ticks_signal++;
  g_mutex_unlock(&sampler.lock);
  /* A capture abandoned at stop may still be reading the map and the caches: they stay taken. So
   * does what the timer handlers now walk with. */
  if (!sampler.abandoned && !kept)
    sxs__stacks_walk_leave();
}

static void *sampler_main(void *arg) {
  (void)arg;
  sampler.own_tid = sampler_gettid();
  sampler.pid = getpid();
  sampler_pid = sampler.pid;
  sampler.uid = getuid();
  pthread_setname_np(pthread_self(), "sxsprof-sampler");
  guint64 period = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
  guint64 next = now_ns(CLOCK_MONOTONIC), last_scan = 0;
  while (!__atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE)) {
    guint64 now = now_ns(CLOCK_MONOTONIC);
    if (now - last_scan >= (guint64)SAMPLER_RESCAN_NS) {
      rescan();
      last_scan = now;
    }
    tick(period);
    g_mutex_lock(&sampler.lock);
    sampler.ticks++;
    g_mutex_unlock(&sampler.lock);
    next += period;
    now = now_ns(CLOCK_MONOTONIC);
    if (next < now)
      next = now; /* behind (a slow tick): no burst to catch up */
    struct timespec ts = {.tv_sec = (time_t)(next / 1000000000), .tv_nsec = (long)(next % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
      ;
  }
  /* Timers first (no new expiry), then what the handlers walk with, once none is left. */
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    timer_disarm(value);
  if (sampler.timer_walk_taken && handlers_drained()) {
    sxs__stacks_walk_leave();
    sampler.timer_walk_taken = FALSE;
  }
  return NULL;
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
  /* mode=cpu, either walker: the kernel's per-thread CPU-time timers deliver the signals (the
   * suspend walker uses the sampler's own signal only for a thread whose capture matched no walk
   * it could reuse). */
  sampler.use_timers = sampler.mode == SXS_SAMPLING_CPU;

  struct sigaction old;
  if (sigaction(SXS_SAMPLER_SIGNAL, NULL, &old) != 0 ||
      ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL
                                   : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))) {
    set_off("the application handles SIGPROF, the signal the sampler would use");
  } else {
    sampler_pid = getpid();
    sampler.pid = sampler_pid;
    lock_code[0] = (uintptr_t)dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
    lock_code[1] = (uintptr_t)dlsym(RTLD_DEFAULT, "pthread_mutex_unlock");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sampler_on_signal;
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
  /* A tick ends within one capture's wait (20 ms) once stop is set; a thread that never returns
   * (it cannot, but the exit must not hang on it) is left behind after 2 s. */
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 2;
  if (pthread_timedjoin_np(sampler.thread, NULL, &deadline) == 0)
    __atomic_store_n(&sampler.running, FALSE, __ATOMIC_RELEASE);
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
  s->ticks = sampler.ticks;
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
