/* sxs_sampler_hot: what runs in a sampled thread's signal handler: the capture of its stack for the sampler
 * (sxs_sampler_hot.h). The sampler thread's side (threads, engines, ticks, walkers, accounting) is sxs_sampler.c. */
#include "sxs_sampler_hot.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "sxs_activity.h"
#include "sxs_engine_perf.h"
#include "sxs_search.h"

/* The handler's state; the sampler's side writes it as its fields say. */
SxsSamplerHot sxs__sampler_hot;
#define hot sxs__sampler_hot

pid_t sxs__sampler_gettid(void) {
  return (pid_t)syscall(SYS_gettid);
}

guint64 sxs__sampler_now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (guint64)ts.tv_sec * G_GUINT64_CONSTANT(1000000000) + (guint64)ts.tv_nsec;
}

/* The stack range holding sp. Context: the signal handler; async-signal-safe. */
bool sxs__sampler_find_stack(const StackRanges *stacks, uintptr_t sp, uintptr_t *ret_lo, uintptr_t *ret_hi) {
  if (!stacks)
    return false;
  size_t after = SXS_SEARCH_UPPER_BOUND(stacks->ranges, stacks->n, lo, sp);
  if (after == 0 || sp >= stacks->ranges[after - 1].hi)
    return false;
  *ret_lo = stacks->ranges[after - 1].lo;
  *ret_hi = stacks->ranges[after - 1].hi;
  return true;
}

/* Is a in an executable mapping? Context: the signal handler; async-signal-safe. */
static bool in_code(const StackRanges *stacks, uintptr_t a) {
  if (!stacks || stacks->n_code == 0)
    return false;
  size_t after = SXS_SEARCH_UPPER_BOUND(stacks->ranges + stacks->n, stacks->n_code, lo, a);
  return after > 0 && a < stacks->ranges[stacks->n + after - 1].hi;
}

/*
 * A leaf without its frame record
 * -------------------------------
 *
 * The frame-pointer walk reads the leaf's return address at [rbp + 8], which holds only once the
 * leaf has pushed rbp and pointed rbp at it. A JIT-compiled method that calls nothing may have no
 * frame record at all, and any method interrupted on its first instruction or on its `ret` has
 * none yet or none left: rbp is still its caller's, and the walk's first step lands in the
 * caller's caller, the caller gone.
 *
 *   frameless leaf / prologue / ret        framed leaf
 *   | caller's frame            |          | caller's frame            |
 *   | return address into caller| <- rsp  | return address into caller| <- rbp + 8
 *   (rbp: the caller's)                    | saved rbp                 | <- rbp
 *                                          | locals (no code address)  | <- rsp
 *
 * So when the leaf is JIT code and the word at rsp is an address in executable code (never a heap
 * or stack address, which no mapping of code holds) outside the stack, and not the return address
 * the walk already found, it is the leaf's return address: the caller is put back as the second
 * frame, or, when the caller has no frame record either, the walk is made again from it. In a framed leaf that word is its saved rbp (a stack address) or a local, which in JIT
 * code is a value, an object or a stack address, not an address of code. Where the runtime maps its
 * code writable (no W^X, before .NET 7), code is not told apart and nothing changes.
 * Context: the signal handler; async-signal-safe.
 */
static int leaf_return_address(const SxsRegs *regs, const CaptureInputs *in, SxsModmapCursor *cursor, uintptr_t lo,
                               uintptr_t hi, bool allow_libunwind, SxsNativeFrame *frames, int n, int *guessed) {
  if (n < 1 || regs->sp < lo || hi - regs->sp < 8 || (regs->sp & 7) != 0)
    return n;
  const SxsEhFrame *eh = NULL;
  if (!sxs__stitch_is_fp_code(regs->ip, cursor, &eh) || in_code(in->stacks, regs->ip) == false)
    return n;
  /* The frame at this instruction is known (the sampler read the method's code there): the walk applied it. */
  bool known = false;
  if (sxs__unwind_cache_knows_at(in->steps, regs->ip, &known) && known)
    return n;
  uintptr_t ra = *(const uintptr_t *)regs->sp;
  if (ra < 0x10000 || (ra >= lo && ra < hi) || (n > 1 && frames[1].ip == ra) || !in_code(in->stacks, ra) ||
      !sxs__stitch_is_fp_code(ra, cursor, &eh))
    return n;
  /* A caller without a frame record of its own (the sampler taught the step cache its frame's size,
   * learn_jit_frames): the frame-pointer step went past it too, so the walk is made again from it. Any other
   * caller is the frame that step went to, and is only put back. */
  if (sxs__unwind_cache_steps_by_sp(in->steps, ra)) {
    SxsRegs caller = {.ip = ra, .sp = regs->sp + 8, .fp = regs->fp};
    int caller_guessed;
    int m = sxs__unwind_from_regs_guessed(&caller, false, allow_libunwind, lo, hi, sxs__stitch_is_fp_code, cursor,
                                          in->steps, frames + 1, SAMPLER_MAX_FRAMES - 1, &caller_guessed, NULL);
    if (m > 0) {
      if (*guessed != 0)
        *guessed = caller_guessed >= 0 ? caller_guessed + 1 : -1;
      return m + 1;
    }
  }
  if (*guessed >= 1)
    (*guessed)++;
  int keep = n < SAMPLER_MAX_FRAMES ? n : SAMPLER_MAX_FRAMES - 1;
  memmove(&frames[2], &frames[1], (size_t)(keep - 1) * sizeof frames[0]);
  frames[1].ip = ra;
  frames[1].sp = regs->sp + 8;
  return keep + 1;
}

/*
 * A walk made again
 * -----------------
 *
 * A JIT frame is stepped by what the sampler has learned of its code: the frame at an interrupted instruction, the
 * frame at a return address (sxs_sampler.c). Code the sampler has not read yet (a method's new tier, an OSR version, a
 * dynamic method) is stepped by its frame pointer, a guess that skips a caller when the method keeps none: the first
 * captures through each new code version were walked wrong. So when the walk stepped such a frame, the handler
 * copies the stack from that frame's sp up (SAMPLER_COPY_BYTES, where the frames a guess can skip lie), and the
 * sampler, once it has read the code those frames are in, walks the copy again from that frame
 * (sxs__unwind_from_copy: its RBP is the interrupted one for the leaf, else the one its frame-pointer step read, whose
 * record is just below the next frame) and joins the new walk to the first where they meet. A walk whose JIT frames
 * were all known copies nothing; the walk says which frame it guessed at first (sxs__unwind_from_regs_guessed).
 */

/* Copies the stack words [sp, sp + out->copy's size) that lie below hi into out. Not instrumented by
 * AddressSanitizer: it reads other frames' words, as the walk does. Context: the signal handler. */
__attribute__((no_sanitize_address)) static void copy_stack(uintptr_t sp, uintptr_t hi, Capture *out) {
  size_t words = 0;
  if ((sp & 7) == 0 && sp < hi) {
    size_t most = MIN((size_t)(hi - sp) / sizeof(uintptr_t), G_N_ELEMENTS(out->copy));
    const volatile uintptr_t *from = (const volatile uintptr_t *)sp;
    for (; words < most; words++)
      out->copy[words] = from[words];
  }
  out->copy_len = (guint32)(words * sizeof(uintptr_t));
}

/* The lock-taking code of the loader's lock: pthread_mutex_lock and pthread_mutex_unlock of libc
 * (the loader's recursive lock goes through them), found at start (hot.lock_code). A thread interrupted between
 * taking that lock and recording itself as its owner (or between forgetting the owner and letting
 * the lock go) would wait on itself if its handler started libunwind, which takes the lock through
 * dl_iterate_phdr. The windows lie inside these functions, or inside the loader itself. */

/* May a handler that interrupted ip start libunwind? Context: the signal handler. */
static bool may_start_libunwind(const SxsModuleMap *map, const SxsModule *loader, uintptr_t ip) {
  for (int i = 0; i < 2; i++)
    if (hot.lock_code[i] != 0 && ip >= hot.lock_code[i] && ip - hot.lock_code[i] < SAMPLER_LOCK_CODE_BYTES)
      return false;
  return loader == NULL || sxs__modmap_find(map, ip) != loader;
}

/* The capture: the interrupted thread's (tid's) native stack, from the registers in uc, walked with
 * in, into out (its frames, or -errno: -ERANGE when no stack range holds the stack pointer), the
 * time it took, and the request the thread works for. Context: the sampled thread's signal handler, any point of its code;
 * async-signal-safe (no allocation, no lock). */
static void capture_in_handler(pid_t tid, const void *uc, const CaptureInputs *in, Capture *out) {
  guint64 t0 = sxs__sampler_now_ns(CLOCK_MONOTONIC);
  SxsRegs regs;
  sxs__regs_from_ucontext(&regs, uc);
  uintptr_t lo = 0, hi = 0;
  int n = -ERANGE;
  /* libunwind reads unwind tables through dl_iterate_phdr, which takes the loader's lock:
   * a thread interrupted inside the loader or libc (where that lock is taken and released)
   * could deadlock on itself. There the walk uses cached rules and frame pointers only. */
  bool allow_libunwind = may_start_libunwind(in->map, in->loader, regs.ip);
  /* The leaf's own check below (a word at rsp that no rule says is a return address) keeps to code that is not
   * writable (in_code); the walk asks every executable mapping. */
  SxsModmapCursor cursor = sxs__sampler_code_cursor(in->map, in->stacks);
  int guessed = -1;
  out->osr_patchpoint = 0;
  if (sxs__sampler_find_stack(in->stacks, regs.sp, &lo, &hi)) {
    n = sxs__unwind_from_regs_guessed(&regs, true, allow_libunwind, lo, hi, sxs__stitch_is_fp_code, &cursor, in->steps,
                                      out->frames, SAMPLER_MAX_FRAMES, &guessed, &out->osr_patchpoint);
    if (n > 0)
      n = leaf_return_address(&regs, in, &cursor, lo, hi, allow_libunwind, out->frames, n, &guessed);
  }
  /* A walk made again (above) from the first frame the walk guessed at. */
  out->copy_len = 0;
  if (n > 0 && in->steps != NULL && guessed >= 0 && guessed < n && (guessed == 0 || guessed + 1 < n)) {
    out->copy_from = (guint32)guessed;
    out->fp = regs.fp;
    copy_stack(out->frames[guessed].sp, hi, out);
  }
  out->n = n;
  out->at_ns = t0;
  out->token = sxs__activity_tid_token((uint32_t)tid);
  out->capture_ns = sxs__sampler_now_ns(CLOCK_MONOTONIC) - t0;
}

/* A timer expiry on the current thread: the capture into its own slot, with what the sampler
 * published last. Context: the signal handler (sampler_on_signal); async-signal-safe. */
static void on_expiry(ThreadSlot *ts, const siginfo_t *si, void *uc) {
  __atomic_add_fetch(&hot.handlers_inflight, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&ts->magic, __ATOMIC_ACQUIRE) == THREAD_SLOT_MAGIC && ts->tid == sxs__sampler_gettid()) {
    /* The periods this signal stands for. A CPU-time timer is checked at the scheduler's tick, so
     * at a frequency above it an expiry stands for several periods (its overruns). A counter's
     * overflow comes when its period ends, but two overflows can meet in one pending signal: its
     * count says how many periods passed since the last sample. */
    guint weight = 1;
    if (si->si_code == SI_TIMER) {
      weight += (guint)MAX(si->si_overrun, 0);
    } else {
      int fd = __atomic_load_n(&ts->fd, __ATOMIC_ACQUIRE);
      guint64 count = 0, period = hot.event_period;
      if (fd == si->si_fd && period > 0 && sxs__engine_perf_read(fd, &count) == 0) {
        /* The periods' boundaries are fixed in the counter's own time (P, 2P, 3P, ...), and the
         * overflow that stands for boundary B is set to come at a random point of the period after
         * it (B + u, u uniform in [0, P)): a capture stands for one period (more only when it came
         * a whole period or more after its target), the periods counted never drift from the
         * counter, and where in the program's cycle a capture lands is drawn afresh each time. A
         * counter overflowing every period exactly would sample a program that does the same thing
         * every period (9 ms of one function, 1 ms of another) at the same point of its cycle, for
         * seconds. */
        if (ts->target == 0)
          ts->boundary = ts->target = period; /* the counter was opened with the period */
        if (count < ts->target) {
          /* Before its target: an overflow of a period set before the last one (nothing to stand for). */
          __atomic_sub_fetch(&hot.handlers_inflight, 1, __ATOMIC_SEQ_CST);
          return;
        }
        guint64 periods = 1 + (count - ts->target) / period;
        weight = (guint)MIN(periods, (guint64)(G_MAXINT / 2));
        ts->boundary += periods * period;
        __atomic_store_n(&ts->count, count, __ATOMIC_RELEASE);
        guint32 x = ts->dither != 0 ? ts->dither : (guint32)ts->tid * 2654435761u + 1;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        ts->dither = x;
        /* A new period starts when it is set: it is set to end at the target, or a sixteenth of
         * the period from now when the target is nearer or passed already (never shorter: a
         * period of a few nanoseconds would keep the thread in the kernel's timer interrupt). */
        ts->target = ts->boundary + (guint64)x % period;
        guint64 shortest = MAX(period / 16, 1);
        sxs__engine_perf_set_period(fd, ts->target > count + shortest ? ts->target - count : shortest);
      } else if (fd != si->si_fd) {
        __atomic_sub_fetch(&hot.handlers_inflight, 1, __ATOMIC_SEQ_CST);
        return; /* a counter of this thread's that was closed since */
      }
    }
    guint free_left = 0;
    TimerCapture *c = NULL;
    for (guint i = 0; i < SAMPLER_THREAD_CAPTURES; i++) {
      gint expected = SLOT_IDLE;
      if (c == NULL && __atomic_compare_exchange_n(&ts->cap[i].state, &expected, SLOT_RUNNING, false, __ATOMIC_ACQ_REL,
                                                   __ATOMIC_ACQUIRE))
        c = &ts->cap[i];
      else if (c != NULL && __atomic_load_n(&ts->cap[i].state, __ATOMIC_ACQUIRE) == SLOT_IDLE)
        free_left++;
    }
    bool wake;
    if (c != NULL) {
      CaptureInputs in;
      in.map = __atomic_load_n(&hot.timer_res.map, __ATOMIC_ACQUIRE); /* first: published last */
      in.loader = __atomic_load_n(&hot.timer_res.loader, __ATOMIC_ACQUIRE);
      in.steps = __atomic_load_n(&hot.timer_res.steps, __ATOMIC_ACQUIRE);
      in.stacks = __atomic_load_n(&hot.timer_res.stacks, __ATOMIC_ACQUIRE);
      capture_in_handler(ts->tid, uc, &in, &c->out);
      c->weight = weight;
      __atomic_store_n(&c->state, SLOT_DONE, __ATOMIC_RELEASE);
      guint done = __atomic_add_fetch(&hot.timer_done, 1, __ATOMIC_SEQ_CST);
      wake = free_left <= SAMPLER_THREAD_CAPTURES - SAMPLER_WAKE_FULL ||
             done - __atomic_load_n(&hot.timer_collected, __ATOMIC_RELAXED) >= SAMPLER_WAKE_PENDING;
    } else {
      __atomic_add_fetch(&ts->missed, (gint)weight, __ATOMIC_RELAXED);
      wake = true;
    }
    /* Wakes the sampler when it sleeps (once: the first handler that finds it asleep). */
    if (wake && __atomic_load_n(&hot.sampler_asleep, __ATOMIC_SEQ_CST) != 0 &&
        __atomic_exchange_n(&hot.sampler_asleep, 0, __ATOMIC_SEQ_CST) != 0)
      syscall(SYS_futex, &hot.sampler_asleep, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  }
  __atomic_sub_fetch(&hot.handlers_inflight, 1, __ATOMIC_SEQ_CST);
}

/* A timer expiry on the current thread. Context: the signal handler; async-signal-safe. */
static void on_timer(siginfo_t *si, void *uc) {
  ThreadSlot *ts = si->si_value.sival_ptr;
  /* Only a pointer into the pool is ours (another timer's value is never dereferenced). */
  if (hot.pool == NULL || (char *)ts < (char *)hot.pool || (char *)ts >= (char *)(hot.pool + SAMPLER_POOL_SLOTS) ||
      ((char *)ts - (char *)hot.pool) % sizeof *hot.pool != 0)
    return;
  on_expiry(ts, si, uc);
}

/* A perf counter's overflow on the current thread (si_fd names the counter): the capture into its
 * thread's slot, found by the counter. Context: the signal handler; async-signal-safe. */
static void on_counter(siginfo_t *si, void *uc) {
  ThreadSlot *p = __atomic_load_n(&hot.pool, __ATOMIC_ACQUIRE);
  int fd = si->si_fd;
  if (p == NULL || fd < 0)
    return;
  if (fd < SAMPLER_PERF_FDS) {
    guint at = __atomic_load_n(&hot.perf_fd_slot[fd], __ATOMIC_ACQUIRE);
    if (at > 0)
      on_expiry(&p[at - 1], si, uc);
    return;
  }
  pid_t self = sxs__sampler_gettid();
  for (guint i = 0; i < SAMPLER_POOL_SLOTS; i++)
    if (__atomic_load_n(&p[i].fd, __ATOMIC_ACQUIRE) == fd && __atomic_load_n(&p[i].tid, __ATOMIC_ACQUIRE) == self) {
      on_expiry(&p[i], si, uc);
      return;
    }
}

/* The sampler's request `value` (its slot and sequence number) to the current thread: the capture
 * into that slot, then the sampler is woken. Context: the signal handler (sampler_on_signal);
 * async-signal-safe. */
static void on_request(int value, void *uc) {
  guint index = REQUEST_INDEX(value), seq = REQUEST_SEQ(value);
  if (index >= SAMPLER_SLOTS)
    return;
  SampleSlot *slot = &hot.slots[index];
  if (__atomic_load_n(&slot->tid, __ATOMIC_ACQUIRE) != sxs__sampler_gettid())
    return;
  gint expected = SLOT_STATE(seq, SLOT_REQUESTED);
  if (!__atomic_compare_exchange_n(&slot->state, &expected, SLOT_STATE(seq, SLOT_RUNNING), false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return;
  capture_in_handler(slot->tid, uc, &slot->in, &slot->out);
  __atomic_store_n(&slot->state, SLOT_STATE(seq, SLOT_DONE), __ATOMIC_RELEASE);
  __atomic_add_fetch(&hot.requests_done, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &hot.requests_done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The signal handler: a thread's CPU-time timer expired (mode=cpu), or the sampler asks for a
 * capture; any other SIGPROF is ignored, as its default disposition would not be wanted. Context:
 * the sampled thread, any point of its code; async-signal-safe (no allocation, no lock, errno
 * preserved). */
void sxs__sampler_on_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  if (si == NULL)
    return;
  int saved_errno = errno;
  if (si->si_code == SI_TIMER)
    on_timer(si, uc);
  else if (si->si_code == SXS_ENGINE_PERF_SI_CODE_IN || si->si_code == SXS_ENGINE_PERF_SI_CODE_HUP)
    on_counter(si, uc);
  else if (si->si_code == SI_QUEUE && si->si_pid == hot.pid)
    on_request(si->si_value.sival_int, uc);
  errno = saved_errno;
}
