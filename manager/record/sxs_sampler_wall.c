/* sxs_sampler_wall: mode=wall. Which threads a tick takes (in turn, up to SAMPLER_TICK_THREADS,
 * half a period of work at most), what each costs (sxs_sampler_sched.c decides: its last stack
 * again, a walk from outside while it is blocked in a system call, or the signal), and the signal
 * walker's requests in flight across ticks (sent at once, collected by a later tick). The design
 * is at the top of sxs_sampler.c. */
#include "sxs_sampler_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sxs_manager.h"
#include "sxs_search.h"

/* Is thread t due a sample at this tick (at now), and with what weight (wall mode: per period of
 * wall time since its samples so far: one at each tick when every tick reaches it, more when ticks
 * take threads in turn or a tick was missed)? */
static SxsDue due(SampledThread *t, guint64 period_ns, guint64 now, guint64 *ret_weight) {
  if (!sxs__sampler_sched_elapsed(&t->sched, now, period_ns, ret_weight))
    return SXS_DUE_NOT;
  gint64 cpu = sxs__sampler_thread_cpu_ns(t->tid);
  if (cpu < 0)
    return SXS_DUE_NOT;                                         /* gone: the next rescan forgets it */
  return sxs__sampler_sched_ran(&t->sched, cpu, t->last_n > 0); /* tick_select decides how */
}

/* Where thread tid is; when blocked, *ret_regs holds its sp and the ip it resumes at. */
static SxsWhere thread_where(pid_t tid, SxsRegs *ret_regs) {
  char text[256];
  if (!sxs__sampler_task_file_read(tid, "syscall", text, sizeof text))
    return SXS_WHERE_UNKNOWN;
  if (g_str_has_prefix(text, "running"))
    return SXS_WHERE_RUNNING;
  /* "<nr> <6 arguments> <sp> <pc>", or "-1 <sp> <pc>" outside a system call. */
  char *at = text;
  long nr = strtol(at, &at, 10);
  guint64 words[8];
  guint n = 0, want = nr == -1 ? 2 : 8;
  while (n < want) {
    char *end;
    words[n] = g_ascii_strtoull(at, &end, 16);
    if (end == at)
      return SXS_WHERE_UNKNOWN;
    at = end;
    n++;
  }
  ret_regs->sp = (uintptr_t)words[want - 2];
  ret_regs->ip = (uintptr_t)words[want - 1];
  ret_regs->fp = 0;
  return SXS_WHERE_BLOCKED;
}

/* Another thread's memory for walks from outside, read (sxs__unwind_read_self: no fault where
 * nothing is mapped any more) a page at a time into a few pages kept per walk. */
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
      c->page[at] = 0;
      if (!sxs__unwind_read_self(page, c->data[at], REMOTE_PAGE))
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

/* The runtimes a walk from outside asks which method code is of. */
typedef struct {
  const SxsWalkResources *res;
  const SxsStitchRuntime *runtimes;
  guint n_runtimes;
} RemoteMethods;

/* SxsUnwindMemory.same_method: return addresses a and b are code of one method of one runtime. Context: the sampler
 * thread. */
static bool remote_same_method(uintptr_t a, uintptr_t b, void *data) {
  const RemoteMethods *m = data;
  SxsStackFrame fa, fb;
  return sxs__sampler_claimed(m->res, m->runtimes, m->n_runtimes, a, &fa) &&
         sxs__sampler_claimed(m->res, m->runtimes, m->n_runtimes, b, &fb) && fa.function_id != 0 &&
         fa.runtime_id == fb.runtime_id && fa.function_id == fb.function_id;
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
  SxsModmapCursor cursor = sxs__sampler_cursor(res);
  RemoteMethods methods = {.res = res, .runtimes = runtimes, .n_runtimes = n_targets};
  const SxsUnwindMemory mem = {.read = remote_read,
                               .is_code = remote_is_code,
                               .data = pages,
                               .same_method = remote_same_method,
                               .method_data = &methods};
  int n =
      sxs__unwind_remote(regs, lo, hi, sxs__stitch_is_fp_code, &cursor, res->steps, &mem, frames, SAMPLER_MAX_FRAMES);
  sampler.blocked_walks_since_maps = TRUE;
  if (n <= 0 || sxs__sampler_thread_cpu_ns(t->tid) != t->sched.cpu_at_sample)
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
  /* A new stack may hold JIT code no walk met before: a frameless method's return address stepped by its frame
   * pointer, which skips its caller (`Throw < Run`, `Handle` gone, a thread parked by a GC while it threw). What the
   * code says of those frames is learned now, and the stack, which has not changed while the thread did not run, is
   * walked again (where nothing was learned, once is all). */
  if (!same && sxs__sampler_learn_walk(res, frames, (guint)n, targets, runtimes, n_targets) > 0) {
    static SxsNativeFrame again[SAMPLER_MAX_FRAMES];
    int m =
        sxs__unwind_remote(regs, lo, hi, sxs__stitch_is_fp_code, &cursor, res->steps, &mem, again, SAMPLER_MAX_FRAMES);
    if (m > 0 && sxs__sampler_thread_cpu_ns(t->tid) == t->sched.cpu_at_sample) {
      memcpy(frames, again, (size_t)m * sizeof frames[0]);
      n = m;
    }
  }
  if (same)
    sxs__sampler_repeat_last(t, res, weight, targets, n_targets);
  else
    sxs__sampler_record_capture(t, res, frames, (guint)n, NULL, weight, targets, runtimes, n_targets);
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
  SxsSchedShare share = sxs__sampler_sched_share(&t->sched, now, weight * period_ns);
  /* Its stack is read only for a thread that hardly runs (the only one whose last stack may count again). */
  gboolean last_intact =
      share.idle && t->last_n > 0 && t->last_generation == sampler.code_generation && last_stack_intact(t);
  SxsWhere where = SXS_WHERE_NOT_ASKED;
  gint64 waits = G_MININT64;
  SxsRegs regs;
  for (;;) {
    switch (sxs__sampler_sched_wall(&t->sched, &share, last_intact, t->blocked, where, waits)) {
    case SXS_WALL_REPEAT_LAST: sxs__sampler_repeat_last(t, res, weight, targets, n_targets); return FALSE;
    case SXS_WALL_SIGNAL: return TRUE;
    case SXS_WALL_ASK_WHERE: where = thread_where(t->tid, &regs); continue;
    case SXS_WALL_ASK_WAITS: waits = sxs__sampler_thread_waits(t->tid); continue;
    case SXS_WALL_WALK_BLOCKED:
      if (!sample_blocked(t, &regs, weight, res, targets, runtimes, n_targets))
        sxs__sampler_sched_refund(&t->sched, weight, period_ns);
      return FALSE;
    case SXS_WALL_SKIP: sxs__sampler_sched_refund(&t->sched, weight, period_ns); return FALSE;
    case SXS_WALL_DROP_BLOCKED: sxs__sampler_count_dropped("signal blocked by the thread"); return FALSE;
    }
    return FALSE;
  }
}

/* Wall mode, signal walker: sends thread t its request in a free slot, with weight. Context: the
 * sampler thread. */
static void request_start(SampledThread *t, guint64 weight, guint64 period_ns, const CaptureInputs *in,
                          const SxsWalkResources *res) {
  guint at = 0;
  while (sampler.requests[at].busy)
    at++;
  if (!sxs__sampler_request_send(at, t, in)) {
    sxs__sampler_sched_refund(&t->sched, weight, period_ns);
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
 * one found running that used less than 1/SXS_SCHED_IDLE_SHARE of the time since its last sample
 * counts its last stack again. The others, at most max, need a signal: with in (the signal walker)
 * each is sent its request at once, as soon as it was found running; otherwise they are returned
 * in ret_threads with their weights. Context: the sampler thread.
 */
guint sxs__sampler_wall_select(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
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
    SxsDue d = due(t, period_ns, now, &weight);
    if (d == SXS_DUE_REPEAT) {
      sxs__sampler_repeat_last(t, res, weight, targets, n_targets);
      continue;
    }
    if (d != SXS_DUE_SAMPLE)
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
void sxs__sampler_wall_requests_collect(guint64 period_ns, const SxsStitchTarget *targets,
                                        const SxsStitchRuntime *runtimes, guint n_targets) {
  for (guint i = 0; i < SAMPLER_TICK_THREADS; i++) {
    Request *r = &sampler.requests[i];
    if (!r->busy)
      continue;
    int got = 0;
    Poll p = sxs__sampler_request_poll(i, r->thread, r->sent_ns, SAMPLER_REQUEST_WAIT_NS, &got);
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
      sampler.sample_at_ns = hot.slots[i].out.at_ns;
      sampler.sample_token = hot.slots[i].out.token;
      sxs__sampler_record_capture(t, &r->res, hot.slots[i].out.frames, (guint)got, &hot.slots[i].out, r->weight,
                                  targets, runtimes, n_targets);
      sampler.sample_at_ns = 0;
      sampler.sample_token = 0;
    } else {
      sxs__sampler_sched_refund(&t->sched, r->weight, period_ns);
      sxs__sampler_check_unanswered(t);
    }
  }
}

gboolean sxs__sampler_wall_requests_in_flight(void) {
  for (guint i = 0; i < SAMPLER_TICK_THREADS; i++)
    if (sampler.requests[i].busy)
      return TRUE;
  return FALSE;
}

/* Releases the walk resources ticks kept for their requests, none being in flight any more. */
void sxs__sampler_wall_requests_release(void) {
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
gboolean sxs__sampler_wall_tick(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                                const SxsStitchRuntime *runtimes, guint n_targets) {
  sxs__sampler_wall_requests_collect(period_ns, targets, runtimes, n_targets);
  guint n_free = 0;
  for (guint i = 0; i < SAMPLER_TICK_THREADS; i++)
    n_free += !sampler.requests[i].busy;
  const CaptureInputs in = {
      .map = res->map,
      .loader = sxs__modmap_find_named(res->map, SAMPLER_LOADER),
      .steps = res->steps,
      .stacks = sampler.stacks,
  };
  sxs__sampler_wall_select(period_ns, res, targets, runtimes, n_targets, &in, NULL, NULL, n_free);
  if (sxs__sampler_wall_requests_in_flight()) {
    sampler.walks_kept++;
    return TRUE;
  }
  sxs__sampler_wall_requests_release();
  return FALSE;
}

/* At stop: the requests still in flight are answered or given up (request_poll), the answers
 * counted, and the walk resources kept for them released (unless a capture was abandoned).
 * Context: the sampler thread, stop set. */
void sxs__sampler_wall_requests_finish(void) {
  if (!sxs__sampler_wall_requests_in_flight() && sampler.walks_kept == 0)
    return;
  SxsStitchTarget targets[SXS_STITCH_MAX_RUNTIMES];
  SxsStitchRuntime runtimes[SXS_STITCH_MAX_RUNTIMES];
  guint n_targets = sxs__manager_stitch_targets(targets, runtimes, SXS_STITCH_MAX_RUNTIMES, NULL, 0, NULL);
  guint64 period = G_GUINT64_CONSTANT(1000000000) / (guint64)sampler.frequency;
  sxs__sampler_wall_requests_collect(period, targets, runtimes, n_targets);
  if (!sampler.abandoned)
    sxs__sampler_wall_requests_release();
}
