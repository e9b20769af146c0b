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
#include "sxs_sampler_internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sxs_activity.h"
#include "sxs_engine_perf.h"
#include "sxs_manager.h"
#include "sxs_prologue.h"
#include "sxs_sampler_hot.h"
#include "sxs_sampler_sched.h"
#include "sxs_search.h"
#include "sxs_hresult.h"
#include "sxs_snapshot.h"
#include "sxs_stacks.h"
#include "sxs_timeline_rec.h"
#include "sxs_stitch.h"
#include "sxs_unwind.h"
#include "sxs_walk_resources.h"

SxsSampler sxs__sampler;

/* The kernel's id of another thread's CPU-time clock (CPUCLOCK_SCHED of a thread, by its tid). */
clockid_t sxs__sampler_thread_cpu_clock(pid_t tid) {
  return (clockid_t)((~(unsigned)tid) << 3) | 6;
}

/* Thread t's CPU time in ns, or -1 when it cannot be read (the thread is gone). */
gint64 sxs__sampler_thread_cpu_ns(pid_t tid) {
  struct timespec ts;
  if (clock_gettime(sxs__sampler_thread_cpu_clock(tid), &ts) != 0)
    return -1;
  return (gint64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The start of /proc/self/task/<tid>/<name> into text (size bytes, NUL-terminated), with one read and no
 * allocation; FALSE when it cannot be read (the thread is gone). Context: the sampler thread. */
gboolean sxs__sampler_task_file_read(pid_t tid, const char *name, char *text, gsize size) {
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
gint64 sxs__sampler_thread_waits(pid_t tid) {
  char text[2048];
  if (!sxs__sampler_task_file_read(tid, "status", text, sizeof text))
    return -1;
  const char *at = strstr(text, "\nvoluntary_ctxt_switches:");
  if (at == NULL)
    return -1;
  return g_ascii_strtoll(at + strlen("\nvoluntary_ctxt_switches:"), NULL, 10);
}

/* Adds one capture's time in the handler to the totals and the quantiles' ring. Context: the
 * sampler thread. */
void sxs__sampler_note_capture(guint64 ns) {
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

void sxs__sampler_count_dropped(const char *reason) {
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
void sxs__sampler_count_failed_capture(int n) {
  sxs__sampler_count_dropped(n == -EBUSY ? "thread inside a walk" : n == -ERANGE ? "stack not found" : "walk failed");
  if (n == -ERANGE)
    sampler.stacks_stale = sampler.stacks_missing = TRUE;
}

/* Whether the executable mappings code ([lo, hi) pairs, in address order) hold address at. */
static gboolean code_holds(const GArray *code, uintptr_t at) {
  const uintptr_t(*ranges)[2] = (const uintptr_t(*)[2])(const void *)code->data;
  size_t lo = sxs__search_upper_bound(ranges, code->len, sizeof ranges[0], 0, at);
  return lo > 0 && at < ranges[lo - 1][1];
}

guint64 sxs__sampler_rescan_every(void) {
  /* A new thread's stack, or code a runtime claims, not in the mappings read last: the captures that need them
   * are walked wrong until the next read, so it comes soon. For code, no sooner than SAMPLER_MAPS_COST_SHARE times
   * the last read's cost (a JIT-heavy program maps code all the time, and a large process's mappings take
   * milliseconds to read), and a read of code that is still not mapped is not hurried again for the same address. */
  if (sampler.stacks_missing)
    return SAMPLER_MAPS_MISSING_NS;
  if (sampler.code_unknown && sampler.code_unknown_at != sampler.code_stuck_at)
    return CLAMP(sampler.maps_read_cost_ns * SAMPLER_MAPS_COST_SHARE, (guint64)SAMPLER_MAPS_MISSING_NS,
                 (guint64)SAMPLER_RESCAN_NS);
  return SAMPLER_RESCAN_NS;
}

gboolean sxs__sampler_claimed(const SxsWalkResources *res, const SxsStitchRuntime *runtimes, guint n_runtimes,
                              uintptr_t ra, SxsStackFrame *ret) {
  SxsNativeFrame one = {.ip = ra};
  SxsStitchReport report = {0};
  if (ra < 0x10000)
    return FALSE;
  sxs__stitch_classify(runtimes, n_runtimes, res, &one, 1, FALSE, ret, NULL, &report);
  return ret->kind == SXS_FRAME_MANAGED;
}

SxsModmapCursor sxs__sampler_cursor(const SxsWalkResources *res) {
  return sxs__sampler_code_cursor(res->map, sampler.stacks);
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
  StackRanges *s = g_malloc(sizeof *s + (ranges->len + ro_code->len + code->len) * sizeof s->ranges[0]);
  s->n = ranges->len;
  s->n_code = ro_code->len;
  s->n_exec = code->len;
  memcpy(s->ranges, ranges->data, ranges->len * sizeof s->ranges[0]);
  memcpy(s->ranges + s->n, ro_code->data, ro_code->len * sizeof s->ranges[0]);
  memcpy(s->ranges + s->n + s->n_code, code->data, code->len * sizeof s->ranges[0]);
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

static void sampled_thread_free(gpointer p) {
  SampledThread *t = p;
  if (t->request)
    sampler.requests[t->request - 1].thread = NULL;
  sxs__sampler_cpu_disarm(t);
  for (guint i = 0; i < G_N_ELEMENTS(t->reuse); i++)
    sxs__walker_suspend_reuse_free(t->reuse[i]);
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
  guint n = sampler.order->len;
  g_autofree pid_t *tids = g_new(pid_t, MAX(n, 1));
  for (guint i = 0; i < n; i++)
    tids[i] = ((SampledThread *)sampler.order->pdata[i])->tid;
  sampler.cursor = sxs__sampler_sched_cursor(tids, n, sampler.cursor_tid);
}

/* .NET threads name themselves after they start (thread-pool workers, Thread.Name): the names of
 * up to SAMPLER_RESCAN_NAMES threads are read again at each rescan, in turn, each at most every
 * SAMPLER_NAME_LOOK_NS, so that a rescan of hundreds of threads stays short and a process of a few
 * threads is not asked for their names ten times a second. */
static void refresh_names(void) {
  guint n = sampler.order->len, read = 0, i = 0;
  guint64 now = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  for (; i < n && read < SAMPLER_RESCAN_NAMES; i++) {
    SampledThread *t = sampler.order->pdata[(sampler.names_at + i) % n];
    if (t->name_at_ns != 0 && now - t->name_at_ns < (guint64)SAMPLER_NAME_LOOK_NS)
      continue;
    t->name_at_ns = now;
    read++;
    char comm[64];
    if (!sxs__sampler_task_file_read(t->tid, "comm", comm, sizeof comm))
      continue;
    g_strstrip(comm);
    if (g_strcmp0(comm, t->name) != 0)
      thread_renamed(t, g_strdup(comm));
  }
  sampler.names_at = n > 0 ? (sampler.names_at + i) % n : 0;
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
  gint64 cpu = sxs__sampler_thread_cpu_ns(tid);
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
void sxs__sampler_rescan(void) {
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
        sxs__sampler_sched_init(&t->sched, sxs__sampler_now_ns(CLOCK_MONOTONIC),
                                sampler.use_timers ? 0 : MAX(sxs__sampler_thread_cpu_ns(tid), 0));
        g_hash_table_insert(sampler.threads, GINT_TO_POINTER(tid), t);
        if (sampler.use_timers)
          sxs__sampler_cpu_arm(t);
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
  guint64 maps_every = (guint64)sxs__sampler_rescan_every();
  if (maps_every > (guint64)SAMPLER_MAPS_NS)
    maps_every = SAMPLER_MAPS_NS;
  if (sampler.blocked_walks_since_maps && now - sampler.maps_read_ns >= (guint64)SAMPLER_CODE_RESCAN_NS)
    sampler.stacks_stale = TRUE; /* JIT compilers map new code: walks from outside need to know it */
  if (sampler.code_unknown && now - sampler.maps_read_ns >= maps_every)
    sampler.stacks_stale = TRUE; /* a runtime claimed code the mappings read last did not have */
  if (sampler.stacks && now - sampler.maps_read_ns < maps_every)
    return;
  if (!sampler.code)
    sampler.code = g_array_new(FALSE, FALSE, sizeof(uintptr_t) * 2);
  g_autoptr(GArray) code_before = sampler.stacks_stale ? g_array_copy(sampler.code) : NULL;
  StackRanges *fresh = sampler.stacks_stale ? read_stack_ranges(sampler.code) : NULL;
  if (fresh) {
    sampler.maps_read_ns = now;
    sampler.maps_read_cost_ns = sxs__sampler_now_ns(CLOCK_MONOTONIC) - now;
    sampler.stacks_missing = FALSE;
    sampler.blocked_walks_since_maps = FALSE;
    /* New code: a walk from outside made before may have missed frames in it (their return
     * addresses were not known to be code), so stacks found by such walks are walked again. */
    if (code_before->len != sampler.code->len ||
        memcmp(code_before->data, sampler.code->data, sampler.code->len * sizeof(uintptr_t) * 2) != 0) {
      sampler.code_generation++;
    }
    /* Code the runtime claims that no mapping holds even now is not looked for at the fast pace again. */
    if (sampler.code_unknown && !code_holds(sampler.code, sampler.code_unknown_at))
      sampler.code_stuck_at = sampler.code_unknown_at;
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
gboolean sxs__sampler_request_send(guint index, SampledThread *t, const CaptureInputs *in) {
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
    sxs__sampler_count_dropped(errno == ESRCH ? "thread gone" : "signal not sent");
    return FALSE;
  }
  return TRUE;
}

/* Looks at slot index's request, sent at sent_ns: a finished capture is taken (its frames stay in
 * the slot until it is used again); a request not started within wait_ns (its thread has the
 * signal blocked, or is not scheduled) or when the sampler stops is given up; a capture a
 * handler started is waited for as long as it takes (it only walks; a process that is stopped
 * or throttled stops the sampler too), unless the sampler stops. Context: the sampler thread. */
Poll sxs__sampler_request_poll(guint index, SampledThread *t, guint64 sent_ns, guint64 wait_ns, int *ret_n) {
  SampleSlot *slot = &hot.slots[index];
  gboolean stop = __atomic_load_n(&sampler.stop, __ATOMIC_ACQUIRE);
  gint state = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
  if (state == SLOT_STATE(slot->seq, SLOT_DONE)) {
    int got = slot->out.n;
    __atomic_store_n(&slot->state, SLOT_IDLE, __ATOMIC_RELEASE);
    if (t)
      t->timeouts = 0;
    if (got <= 0) {
      sxs__sampler_count_failed_capture(got);
      *ret_n = got < 0 ? got : -ENOENT;
    } else {
      sxs__sampler_note_capture(slot->out.capture_ns);
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
    sxs__sampler_count_dropped("no answer in time");
    return POLL_GIVEN_UP;
  }
  if (state == SLOT_STATE(slot->seq, SLOT_RUNNING) && stop) {
    sxs__sampler_count_dropped("capture abandoned at stop");
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
void sxs__sampler_capture_batch(SampledThread *const *threads, guint n, const SxsWalkResources *res, int *ret_n,
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
    waiting[i] = sxs__sampler_request_send(SAMPLER_SYNC_SLOT(i), threads[i], &in);
    ret_n[i] = waiting[i] ? -EINPROGRESS : -ESRCH;
    pending += waiting[i];
  }
  while (pending > 0) {
    gint seen = __atomic_load_n(&hot.requests_done, __ATOMIC_ACQUIRE);
    for (guint i = 0; i < n; i++) {
      if (!waiting[i])
        continue;
      Poll p = sxs__sampler_request_poll(SAMPLER_SYNC_SLOT(i), threads[i], sent, SAMPLER_WAIT_NS, &ret_n[i]);
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

/* After several requests in a row a thread did not answer: does it block the signal now, or did
 * someone else take the signal's disposition? */
void sxs__sampler_check_unanswered(SampledThread *t) {
  if (t->timeouts < 3)
    return;
  t->timeouts = 0;
  t->blocked = thread_blocks_signal(t->tid);
  struct sigaction now;
  if (sigaction(SXS_SAMPLER_SIGNAL, NULL, &now) == 0 &&
      !((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == sxs__sampler_on_signal)) {
    sxs__sampler_set_off("another handler took SIGPROF, the signal the sampler uses");
    __atomic_store_n(&sampler.stop, TRUE, __ATOMIC_RELEASE);
  }
}

void sxs__sampler_count_taken(guint64 weight, guint n, guint64 resolve_ns) {
  g_mutex_lock(&sampler.lock);
  sampler.taken++;
  sampler.weight += weight;
  sampler.frames += n;
  sampler.resolve_ns += resolve_ns;
  g_mutex_unlock(&sampler.lock);
}

/* Counts a stitched stack of t and keeps it as t's last. */
void sxs__sampler_add_sample_of(SampledThread *t, const SxsWalkResources *res, const SxsStackFrame *frames, guint n,
                                guint64 weight, const SxsStitchTarget *targets, guint n_targets) {
  SxsStackHandle *counted =
      sxs__stacks_add_stitched(res, (uint32_t)t->tid, t->name, frames, n, weight, targets, n_targets);
  /* The request the thread worked for: as its handler saw it (a capture of its own, which has its
   * time), else (a walk from outside the thread) as the thread last published it. */
  guint32 token = sampler.sample_at_ns ? sampler.sample_token : sxs__activity_tid_token((uint32_t)t->tid);
  sxs__timeline_rec_sample(sxs__stacks_handle_id(counted), (uint32_t)t->tid, weight, sampler.sample_at_ns,
                           sxs__activity_token_label(token, sampler.sample_at_ns));
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
void sxs__sampler_repeat_last(SampledThread *t, const SxsWalkResources *res, guint64 weight,
                              const SxsStitchTarget *targets, guint n_targets) {
  if (t->last_counted) {
    sxs__stacks_add_to(t->last_counted, weight, 0);
    /* The request it works for now, as it last published it: a thread counted again without a
     * signal may have run briefly since its stack was read (a pool thread that took the next
     * request's work and blocked again), and its label says so even where its stack cannot. */
    sxs__timeline_rec_sample(sxs__stacks_handle_id(t->last_counted), (uint32_t)t->tid, weight, 0,
                             sxs__activity_token_label(sxs__activity_tid_token((uint32_t)t->tid), 0));
  } else
    sxs__sampler_add_sample_of(t, res, t->last, t->last_n, weight, targets, n_targets);
  sxs__sampler_count_taken(weight, t->last_n, 0);
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

/* The target of runtime runtime_id that can say which code version holds an address (SxsRuntimeOps.il_map), or NULL. */
static const SxsStitchTarget *il_map_target(const SxsStitchTarget *targets, guint n_targets, int runtime_id) {
  for (guint k = 0; k < n_targets; k++)
    if (targets[k].stitch.runtime_id == runtime_id && targets[k].ops && targets[k].ops->il_map)
      return &targets[k];
  return NULL;
}

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
    /* Read so that it fails instead of faulting (sxs__unwind_read_self): code freed meanwhile (a dynamic
     * method's, a collectible assembly's) may be unmapped under the read. */
    guint8 code[SAMPLER_PROLOGUE_BYTES];
    size_t len = MIN(m.ranges[0].size, sizeof code);
    known = inside && sxs__unwind_read_self(m.code_start, code, len) && sxs__prologue_decode(code, len, ret) &&
            ra - 1 >= m.code_start + ret->prologue_len;
  }
  sxs__il_map_clear(&m);
  return known;
}

/* Teaches the step cache the frames of the managed return addresses of a classified capture (above); returns how
 * many frameless frames it learned (those a frame-pointer step got wrong). Context: the sampler thread, nothing
 * suspended. */
static guint learn_jit_frames(const SxsWalkResources *res, const SxsNativeFrame *native,
                              const SxsStackFrame *classified, guint n, const SxsStitchTarget *targets,
                              guint n_targets) {
  if (res->steps == NULL)
    return 0;
  guint asked = 0, frameless = 0;
  for (guint i = 1; i < n && asked < SAMPLER_LEARN_PER_CAPTURE; i++) {
    const SxsStackFrame *f = &classified[i];
    if (f->kind != SXS_FRAME_MANAGED || f->function_id == 0 || sxs__unwind_cache_knows(res->steps, native[i].ip))
      continue;
    const SxsStitchTarget *target = il_map_target(targets, n_targets, f->runtime_id);
    if (target == NULL)
      continue;
    asked++;
    SxsPrologue frame;
    int known = jit_frame_of(target, f, native[i].ip, &frame);
    if (known >= 0 && sxs__unwind_cache_note_jit(res->steps, native[i].ip, known ? &frame : NULL) && known &&
        !frame.framed)
      frameless++;
  }
  return frameless;
}

/*
 * An OSR frame's Tier-0 record
 * ----------------------------
 *
 * The walks find the Tier-0 frame record under an OSR frame by its layout (sxs_unwind.c, "An OSR method's frame over
 * its Tier-0 frame"): the first word above the OSR frame's record that holds the caller's RBP with code above it. The
 * Tier-0 frame's unused slots can hold such a pair that an earlier call at another depth left, and then the method's
 * caller is lost for a stale return address (`Mix < Compare < Compare`, Leaf gone: 1-4 % of the list-sort pattern's
 * samples, whose Tier-0 Leaf calls an OSR'd Mix). A walk that found one so says which patchpoint its OSR frame record
 * held (Capture.osr_patchpoint); the sampler asks the owning runtime which code version holds it (the method's Tier-0
 * code), reads that version's prologue, and teaches the step cache where the record lies (sxs__unwind_cache_note_osr):
 * later walks read it there. Looked at once per patchpoint; an OSR leaf found so is walked again from the copy.
 */
static void learn_osr_record(const SxsWalkResources *res, uintptr_t patchpoint, const SxsStitchTarget *targets,
                             const SxsStitchRuntime *runtimes, guint n_targets) {
  if (res->steps == NULL || patchpoint == 0 || sxs__unwind_cache_knows_osr(res->steps, patchpoint))
    return;
  SxsStackFrame f;
  if (!sxs__sampler_claimed(res, runtimes, n_targets, patchpoint, &f) || f.function_id == 0)
    return;
  const SxsStitchTarget *target = il_map_target(targets, n_targets, f.runtime_id);
  if (target == NULL)
    return;
  SxsPrologue tier0;
  int known = jit_frame_of(target, &f, patchpoint, &tier0);
  if (known < 0)
    return;
  if (!known || !sxs__unwind_cache_note_osr(res->steps, patchpoint, &tier0))
    sxs__unwind_cache_note_osr(res->steps, patchpoint, NULL);
}

guint sxs__sampler_learn_walk(const SxsWalkResources *res, const SxsNativeFrame *native, guint n,
                              const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes, guint n_targets) {
  static SxsStackFrame classified[SAMPLER_MAX_FRAMES];
  SxsStitchReport report = {0};
  guint m = sxs__stitch_classify(runtimes, n_targets, res, native, n, TRUE, classified, NULL, &report);
  return learn_jit_frames(res, native, classified, m, targets, n_targets);
}

/*
 * The frame where a leaf was interrupted
 * --------------------------------------
 *
 * A frameless method interrupted in its body has its return address at sp + its frame's size, and any method
 * interrupted in its prologue or epilogue at what the pushes and the `sub` done so far (or not yet undone) make: the
 * frame-pointer step from it goes to its caller's caller's frame, the caller gone (`Step < Run's caller`, Run lost,
 * in 8 % of a tiering loop's samples). The rule is a property of the instruction: for each JIT leaf instruction the
 * captures hold, the sampler reads where it is in its method (its code version's first bytes, found once per
 * version, and the bytes at the instruction: sxs__prologue_frame_at) and teaches the step cache the frame there,
 * which later walks from that instruction apply. Versions are kept by their code range while the step cache lives
 * (a module unloaded drops both: code could come again at the same addresses), at most SAMPLER_LEAF_VERSIONS.
 */
#define SAMPLER_LEAF_VERSIONS 16384
#define SAMPLER_AT_BYTES 16

typedef struct {
  uintptr_t start, end; /* the version's hot code */
  guint8 entry[SAMPLER_PROLOGUE_BYTES];
  guint entry_len;
} LeafVersion;

static struct {
  GArray *versions;            /* LeafVersion, by start */
  const SxsUnwindCache *steps; /* the step cache the versions were read for */
} leaf_code;

/* The version holding pc, read from its runtime when not kept yet: 1 with *ret, 0 when none is known (the method's
 * hot code does not hold pc, or is not readable), -1 when the runtime could not answer now. */
static int leaf_version_of(const SxsStitchTarget *target, const SxsStackFrame *f, uintptr_t pc, LeafVersion *ret) {
  guint at = 0;
  if (leaf_code.versions != NULL) {
    const LeafVersion *kept = (const LeafVersion *)(const void *)leaf_code.versions->data;
    at = (guint)SXS_SEARCH_UPPER_BOUND(kept, leaf_code.versions->len, start, pc);
    if (at > 0 && pc < kept[at - 1].end) {
      *ret = kept[at - 1];
      return 1;
    }
  }
  SxsIlMap m = {0};
  int rc = target->ops->il_map(target->stitch.user, f->function_id, pc, &m);
  if (rc == -EAGAIN || rc == -ESHUTDOWN)
    return -1;
  int found = 0;
  if (rc == 0 && m.code_start != 0 && m.n_ranges > 0 && m.ranges[0].start == m.code_start && m.ranges[0].size > 0 &&
      pc >= m.code_start && pc - m.code_start < m.ranges[0].size) {
    LeafVersion v = {.start = m.code_start, .end = m.code_start + m.ranges[0].size};
    v.entry_len = (guint)MIN(m.ranges[0].size, sizeof v.entry);
    if (sxs__unwind_read_self(v.start, v.entry, v.entry_len)) {
      if (leaf_code.versions == NULL)
        leaf_code.versions = g_array_new(FALSE, FALSE, sizeof(LeafVersion));
      if (leaf_code.versions->len >= SAMPLER_LEAF_VERSIONS) {
        g_array_set_size(leaf_code.versions, 0);
        at = 0;
      }
      g_array_insert_val(leaf_code.versions, at, v);
      *ret = v;
      found = 1;
    }
  }
  sxs__il_map_clear(&m);
  return found;
}

/* Teaches the step cache the frame at the interrupted instruction of a classified capture's managed leaf (above).
 * Context: the sampler thread, nothing suspended. */
static void learn_leaf_frame(const SxsWalkResources *res, const SxsNativeFrame *native, const SxsStackFrame *classified,
                             guint n, const SxsStitchTarget *targets, guint n_targets) {
  if (res->steps == NULL || n == 0 || classified[0].kind != SXS_FRAME_MANAGED || classified[0].function_id == 0)
    return;
  uintptr_t pc = native[0].ip;
  if (sxs__unwind_cache_knows_at(res->steps, pc, NULL))
    return;
  const SxsStitchTarget *target = il_map_target(targets, n_targets, classified[0].runtime_id);
  if (target == NULL)
    return;
  if (leaf_code.steps != res->steps) {
    if (leaf_code.versions != NULL)
      g_array_set_size(leaf_code.versions, 0);
    leaf_code.steps = res->steps;
  }
  LeafVersion v;
  int found = leaf_version_of(target, &classified[0], pc, &v);
  if (found < 0)
    return;
  SxsFrameAt frame;
  gboolean known = FALSE;
  if (found) {
    guint8 code[SAMPLER_AT_BYTES];
    memset(code, 0xCC, sizeof code);
    size_t len = MIN(v.end - pc, sizeof code);
    known = sxs__unwind_read_self(pc, code, len) &&
            sxs__prologue_frame_at(v.entry, v.entry_len, pc - v.start, code, sizeof code, &frame);
  }
  sxs__unwind_cache_note_jit_at(res->steps, pc, known ? &frame : NULL);
}

/*
 * Code the walks do not know yet
 * ------------------------------
 *
 * The walks tell JIT code by the executable mappings read from /proc/self/maps, and a JIT commits its code heap a
 * piece at a time while the program runs: code in a piece committed after the last read is no code to them, and its
 * frames are walked wrong (an OSR method's Tier-0 frame is not recognised, a frameless leaf's caller not put back).
 * A capture with a frame that a runtime owns (classified managed: no stray value is) outside every mapping read last
 * sends the sampler to read them again within SAMPLER_MAPS_MISSING_NS (sxs__sampler_rescan_every; it was up to
 * SAMPLER_RESCAN_NS + SAMPLER_MAPS_NS, some 350 ms of a new method's samples walked wrong), and at most every
 * SAMPLER_MAPS_NS for an address that a read did not find either. Context: the sampler thread.
 */
static void note_unknown_code(const SxsNativeFrame *native, const SxsStackFrame *classified, guint n) {
  if (sampler.code_unknown || sampler.code == NULL)
    return;
  for (guint i = 0; i < n; i++) {
    if (classified[i].kind != SXS_FRAME_MANAGED)
      continue;
    uintptr_t at = i == 0 ? native[i].ip : native[i].ip - 1;
    if (!code_holds(sampler.code, at)) {
      sampler.code_unknown = TRUE;
      sampler.code_unknown_at = at;
      return;
    }
  }
}

/* How many times a capture's copy is walked again, each after the code its last walk met was read. */
#define SAMPLER_REWALK_ROUNDS 4

/* Where the walk of `from`'s stack copy is made again from (*ret_regs, frame *ret_start of native): the frame the
 * copy starts at, the leaf with its interrupted RBP (or, when no rule is known for the leaf's instruction and the
 * handler took the word at its sp for its return address, frames[1] 8 bytes above it, from that caller), or a frame
 * stepped by its frame pointer, whose RBP is the record just below the next frame (checked in the copy). FALSE when
 * there is none. Taken from the first walk, once the code it met was read. Context: the sampler thread. */
static gboolean rewalk_start(const SxsWalkResources *res, const Capture *from, const SxsNativeFrame *native, guint n,
                             SxsRegs *ret_regs, guint *ret_start) {
  guint at = from->copy_from;
  if (at >= n)
    return FALSE;
  uintptr_t base = native[at].sp;
  if (at == 0) {
    bool leaf_known = false;
    sxs__unwind_cache_knows_at(res->steps, native[0].ip, &leaf_known);
    *ret_start = !leaf_known && n >= 2 && native[1].sp == native[0].sp + 8 ? 1 : 0;
    *ret_regs = (SxsRegs){.ip = native[*ret_start].ip, .sp = native[*ret_start].sp, .fp = from->fp};
    return TRUE;
  }
  if (at + 1 >= n)
    return FALSE;
  uintptr_t fp = native[at + 1].sp - 16;
  if (fp < base || fp + 16 > base + from->copy_len ||
      from->copy[(fp + 8 - base) / sizeof(uintptr_t)] != native[at + 1].ip)
    return FALSE;
  *ret_start = at;
  *ret_regs = (SxsRegs){.ip = native[at].ip, .sp = native[at].sp, .fp = fp};
  return TRUE;
}

typedef struct {
  SxsModmapCursor cursor;
  const SxsWalkResources *res;
  const SxsStitchRuntime *runtimes;
  guint n_runtimes;
} RewalkCode;

/* SxsUnwindIsFpCode for a walk made again: as the handler's, except that code is also what a runtime claims (as a
 * return address), for code mapped since the mappings were last read (the first captures through a new code version
 * are the ones walked again, and their code is often in a piece of the code heap committed since). */
static bool rewalk_is_code(uintptr_t ip, void *user_data, const SxsEhFrame **ret_eh) {
  RewalkCode *c = user_data;
  if (ret_eh != NULL || sxs__stitch_is_fp_code(ip, &c->cursor, NULL))
    return sxs__stitch_is_fp_code(ip, &c->cursor, ret_eh);
  SxsStackFrame frame;
  return sxs__sampler_claimed(c->res, c->runtimes, c->n_runtimes, ip, &frame);
}

/* out: native[0, start), walked[0, j), native[i, n) (at most max); 0 when that would drop frames before the join. */
static guint rewalk_splice(const SxsNativeFrame *native, guint n, guint start, const SxsNativeFrame *walked, guint j,
                           guint i, SxsNativeFrame *out, guint max) {
  guint len = MIN(start + j + (n - i), max);
  if (len < start + j)
    return 0;
  memcpy(out, native, (size_t)start * sizeof out[0]);
  memcpy(out + start, walked, (size_t)j * sizeof out[0]);
  memcpy(out + start + j, native + i, (size_t)(len - start - j) * sizeof out[0]);
  return len;
}

guint sxs__sampler_rewalk_join(const SxsNativeFrame *native, guint n, guint start, const SxsNativeFrame *walked,
                               guint k, uintptr_t end_fp, guint twice, SxsNativeFrame *out, guint max) {
  guint d = 1; /* where the walks part: walked[0, d) are native[start, start + d) */
  while (d < k && start + d < n && native[start + d].ip == walked[d].ip && native[start + d].sp == walked[d].sp)
    d++;
  /* Parted after a step both walks made, the new walk only adds frames: it meets the first walk at the frame that
   * followed the step where they part; unless the first walk's frame there reads its caller's method again (twice: an
   * OSR frame's patchpoint, which the new walk replaces with the Tier-0 record's caller). */
  guint last = d > 1 && start + d != twice ? MIN(start + d + 1, n) : n;
  for (guint j = d; j < k; j++)
    for (guint i = start + d; i < last; i++)
      if (native[i].ip == walked[j].ip && native[i].sp == walked[j].sp)
        return rewalk_splice(native, n, start, walked, j, i, out, max);
  /* Ended at the copy's end: met at the frame its next step's record leads to (above). */
  if (end_fp != 0 && k > d)
    for (guint i = start + d; i < last; i++)
      if (native[i].sp == end_fp + 16 && walked[k - 1].sp < native[i].sp)
        return rewalk_splice(native, n, start, walked, k, i, out, max);
  return 0;
}

/* The walk of `from`'s stack copy made again from regs (frame start) with what the step cache knows now, joined to
 * frames (native, n) by sxs__sampler_rewalk_join into out. Context: the sampler thread. */
static guint rewalk_copy(const SxsWalkResources *res, const SxsStitchRuntime *runtimes, guint n_runtimes,
                         const Capture *from, const SxsRegs *regs, guint start, const SxsNativeFrame *native, guint n,
                         guint twice, SxsNativeFrame *out) {
  uintptr_t base = native[from->copy_from].sp;
  RewalkCode code = {.cursor = sxs__sampler_cursor(res), .res = res, .runtimes = runtimes, .n_runtimes = n_runtimes};
  static SxsNativeFrame walked[SAMPLER_MAX_FRAMES];
  uintptr_t end_fp = 0;
  int k = sxs__unwind_from_copy(regs, start == 0, base, from->copy, from->copy_len, rewalk_is_code, &code, res->steps,
                                walked, SAMPLER_MAX_FRAMES - (int)start, &end_fp);
  return k > 0 ? sxs__sampler_rewalk_join(native, n, start, walked, (guint)k, end_fp, twice, out, SAMPLER_MAX_FRAMES)
               : 0;
}

/* The first frame of a classified capture whose method is the one of the frame before it, as an OSR frame's patchpoint
 * is where the walk did not know the Tier-0 code (`Sort < Sort`, Run lost); 0 when none. (A recursion reads so too;
 * a walk made again agrees on it.) */
static guint method_twice(const SxsStackFrame *classified, guint m) {
  for (guint i = 1; i < m; i++)
    if (classified[i].kind == SXS_FRAME_MANAGED && classified[i - 1].kind == SXS_FRAME_MANAGED &&
        classified[i].function_id != 0 && classified[i].function_id == classified[i - 1].function_id &&
        classified[i].runtime_id == classified[i - 1].runtime_id)
      return i;
  return 0;
}

/* A leaf that builds no frame has its return address at its sp; the handler puts that caller back only when the word
 * there is in the code it knows (sxs_sampler_hot.c, leaf_return_address), and a tier's new code is often in a piece
 * of the code heap mapped since the mappings were read: the frame-pointer step went to the caller's caller (`Leaf <
 * Thread.StartCallback`, Step and the OSR'd Run lost in the first captures of a new tier). Once the leaf's code was
 * read (learn_leaf_frame) and its frame is not known, the word at its sp in the capture's copy, when a runtime claims
 * it as a return address (it follows a call), is put back as the leaf's caller, 8 bytes above it, into out (n + 1
 * frames), as the handler would have done; the walk is then made again from it (rewalk_start). Context: the sampler
 * thread. */
static gboolean leaf_return_in_copy(const SxsWalkResources *res, const Capture *from, const SxsNativeFrame *native,
                                    guint n, const SxsStackFrame *classified, guint m, const SxsStitchRuntime *runtimes,
                                    guint n_runtimes, SxsNativeFrame *out) {
  bool known = false;
  if (from->copy_from != 0 || from->copy_len < 8 || n == 0 || n + 1 > SAMPLER_MAX_FRAMES || m == 0 ||
      classified[0].kind != SXS_FRAME_MANAGED || res->steps == NULL ||
      (sxs__unwind_cache_knows_at(res->steps, native[0].ip, &known) && known))
    return FALSE;
  uintptr_t ra = from->copy[0];
  SxsStackFrame caller;
  if (ra < 0x10000 || (n >= 2 && native[1].ip == ra) || (ra >= native[0].sp && ra <= native[n - 1].sp) ||
      !sxs__sampler_claimed(res, runtimes, n_runtimes, ra, &caller))
    return FALSE;
  out[0] = native[0];
  out[1] = (SxsNativeFrame){.ip = ra, .sp = native[0].sp + 8};
  memcpy(out + 2, native + 1, (size_t)(n - 1) * sizeof out[0]);
  return TRUE;
}

void sxs__sampler_record_capture(SampledThread *t, const SxsWalkResources *res, const SxsNativeFrame *native, guint n,
                                 const Capture *from, guint64 weight, const SxsStitchTarget *targets,
                                 const SxsStitchRuntime *runtimes, guint n_targets) {
  static SxsStackFrame classified[SAMPLER_MAX_FRAMES];
  static SxsNativeFrame again[2][SAMPLER_MAX_FRAMES], leaf_put[SAMPLER_MAX_FRAMES];
  guint64 t0 = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  SxsStitchReport report = {0};
  guint m = sxs__stitch_classify(runtimes, n_targets, res, native, n, TRUE, classified, NULL, &report);
  if (from != NULL && from->osr_patchpoint != 0)
    learn_osr_record(res, from->osr_patchpoint, targets, runtimes, n_targets);
  /* A walk that guessed at code not read yet (sxs_sampler_hot.c, "A walk made again"): the code it met is read, and
   * the copy walked again, until a walk meets nothing new. */
  if (from != NULL && from->copy_len >= 16 && res->steps != NULL && n > 0) {
    SxsRegs regs;
    guint start = 0;
    for (guint round = 0; round < SAMPLER_REWALK_ROUNDS; round++) {
      learn_jit_frames(res, native, classified, m, targets, n_targets);
      learn_leaf_frame(res, native, classified, m, targets, n_targets);
      if (round == 0 && leaf_return_in_copy(res, from, native, n, classified, m, runtimes, n_targets, leaf_put)) {
        native = leaf_put;
        n++;
        memset(&report, 0, sizeof report);
        m = sxs__stitch_classify(runtimes, n_targets, res, native, n, TRUE, classified, NULL, &report);
        learn_jit_frames(res, native, classified, m, targets, n_targets);
      }
      if (round == 0 && !rewalk_start(res, from, native, n, &regs, &start))
        break;
      SxsNativeFrame *out = again[round & 1];
      guint len =
          rewalk_copy(res, runtimes, n_targets, from, &regs, start, native, n, method_twice(classified, m), out);
      if (len == 0 || (len == n && memcmp(out, native, n * sizeof out[0]) == 0))
        break;
      native = out;
      n = len;
      memset(&report, 0, sizeof report);
      m = sxs__stitch_classify(runtimes, n_targets, res, native, n, TRUE, classified, NULL, &report);
      if (round == 0)
        sampler.walks_redone++;
    }
  }
  sxs__sampler_add_sample_of(t, res, classified, m, weight, targets, n_targets);
  learn_jit_frames(res, native, classified, m, targets, n_targets);
  learn_leaf_frame(res, native, classified, m, targets, n_targets);
  note_unknown_code(native, classified, m);
  sxs__sampler_count_taken(weight, m, sxs__sampler_now_ns(CLOCK_MONOTONIC) - t0);
}

static uint64_t destroyed_key(int runtime_id, uint64_t thread_id) {
  return ((uint64_t)(unsigned)runtime_id << 48) | (thread_id & ((UINT64_C(1) << 48) - 1));
}

/* Did ThreadDestroyed begin for this thread lately (the last 64 of them)? A ThreadID the runtime
 * gives a new thread leaves the ring at that thread's ThreadCreated. */
gboolean sxs__sampler_thread_is_destroyed(int runtime_id, uint64_t thread_id) {
  uint64_t key = destroyed_key(runtime_id, thread_id);
  for (guint i = 0; i < G_N_ELEMENTS(sampler.destroyed); i++)
    if (__atomic_load_n(&sampler.destroyed[i], __ATOMIC_SEQ_CST) == key)
      return TRUE;
  return FALSE;
}

/* One tick (in cpu mode, one batch): the suspend walker when asked for (or auto, at a frequency it
 * allows) and every profiled runtime can be suspended, the signal walker otherwise. */
void sxs__sampler_tick(guint64 period_ns) {
  SxsWalkResources res;
  const SxsConfig *cfg = sxs__manager_config(); /* [symbols] debug_dirs=, for the first walk's symbol cache */
  sxs__walk_resources_enter(&res, cfg ? (const char *const *)cfg->symbols.debug_dirs : NULL);
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
    kept = sxs__sampler_cpu_publish(&res);
    collected = sxs__sampler_cpu_tick(&res, targets, runtimes, n_targets, use_suspend);
  } else if (use_suspend) {
    sxs__walker_suspend_tick(period_ns, &res, targets, runtimes, n_targets);
  } else {
    kept = sxs__sampler_wall_tick(period_ns, &res, targets, runtimes, n_targets);
  }
  if ((sampler.use_timers || use_suspend) && sampler.walks_kept > 0) {
    /* Requests of earlier signal-walker ticks (the walker changed since). */
    sxs__sampler_wall_requests_collect(period_ns, targets, runtimes, n_targets);
    if (!sxs__sampler_wall_requests_in_flight() && !sampler.abandoned)
      sxs__sampler_wall_requests_release();
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
  else if (kept && sampler.use_timers && !sampler.abandoned)
    sxs__sampler_cpu_published();
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
    sxs__sampler_cpu_run(period);
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
      sxs__sampler_rescan();
      last_scan = now;
    }
    sxs__sampler_tick(period);
    g_mutex_lock(&sampler.lock);
    if (sampler.ticks == 0)
      sampler.first_tick_ns = now;
    sampler.last_tick_ns = now;
    sampler.ticks++;
    sampler.ticks_missed += missed;
    g_mutex_unlock(&sampler.lock);
    if (sxs__sampler_now_ns(CLOCK_MONOTONIC) - last_scan >= sxs__sampler_rescan_every()) {
      sxs__sampler_rescan();
      last_scan = sxs__sampler_now_ns(CLOCK_MONOTONIC);
    }
    next += period;
    struct timespec ts = {.tv_sec = (time_t)(next / 1000000000), .tv_nsec = (long)(next % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
      ;
  }
  sxs__sampler_wall_requests_finish();
  /* Timers first (no new expiry), then what the handlers walk with, once none is left. */
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, sampler.threads);
  while (g_hash_table_iter_next(&it, NULL, &value))
    sxs__sampler_cpu_disarm(value);
  if (sampler.timer_walk_taken && sxs__sampler_cpu_handlers_drained()) {
    sxs__walk_resources_leave_map();
    sampler.timer_walk_taken = FALSE;
  }
  return NULL;
}

void sxs__sampler_set_off(const char *why) {
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
  sampler.rates = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, sxs__thread_rate_model_free);
  sampler.own = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, sxs__thread_rate_model_free);
  if (!sxs__sampler_cpu_choose_engine(cfg)) {
    g_once_init_leave(&sampler.started, 1);
    return;
  }

  struct sigaction old;
  if (sigaction(SXS_SAMPLER_SIGNAL, NULL, &old) != 0 ||
      ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL
                                   : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))) {
    sxs__sampler_set_off("the application handles SIGPROF, the signal the sampler would use");
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
      sxs__sampler_set_off("the signal handler could not be installed");
    } else {
      sigset_t all, prev;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &prev);
      int r = pthread_create(&sampler.thread, NULL, sampler_main, NULL);
      pthread_sigmask(SIG_SETMASK, &prev, NULL);
      if (r != 0) {
        sxs__sampler_set_off("the sampler thread could not be started");
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
    s->engine = g_strdup(sxs__config_engine_name(sampler.engine_ops->kind));
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
  if (sampler.use_timers) {
    s->duration_ns = (sampler.ticks + sampler.ticks_missed) * period_ns; /* a hardware event's: at the rate asked */
    s->wall_ns = sampler.wakes > 0 ? sampler.last_tick_ns - sampler.first_tick_ns : 0;
  } else {
    s->duration_ns = sampler.ticks > 0 ? sampler.last_tick_ns - sampler.first_tick_ns + period_ns : 0;
    s->wall_ns = s->duration_ns;
  }
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
  s->walks_redone = sampler.walks_redone;
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
