/* sxs_sampler_hot: the sampler's half that runs in the sampled threads' signal handler (capturing a stack), and
 * the state it shares with the sampler thread (sxs_sampler.c), which fills the inputs, publishes what the handlers walk
 * with and collects the captures. Nothing here allocates, locks or calls GLib: it runs at any point of any thread. */
#pragma once

#include <glib.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sxs_modmap.h"
#include "sxs_stitch.h"
#include "sxs_unwind.h"

#define SAMPLER_MAX_FRAMES SXS_STITCH_MAX_FRAMES
/* Wall mode and the suspend walker: the most threads one tick samples, taken in turn (a thread a
 * tick does not reach waits for a later one, and its sample then stands for every period since its
 * last); also the most requests in flight at once, each in a slot of its own. */
#define SAMPLER_TICK_THREADS 32

/* The slot's state word: a request's sequence number in bits 2-31, its phase in bits 0-1. The
 * handler moves (its request, REQUESTED) to (its request, RUNNING) in one compare-and-swap, so a
 * handler that arrives late, after its request was given up, can never take a newer one. */
enum { SLOT_IDLE, SLOT_REQUESTED, SLOT_RUNNING, SLOT_DONE };
#define SLOT_STATE(seq, phase) ((gint)(((guint)(seq) << 2) | (guint)(phase)))
#define SLOT_PHASE(state) ((guint)(state)&3u)
/* The signal's value names the request: its slot in bits 0-5, its sequence number (24 bits) above. */
#define REQUEST_VALUE(index, seq) ((int)(((guint)(seq) << 6) | (guint)(index)))
#define REQUEST_INDEX(value) ((guint)(value)&63u)
#define REQUEST_SEQ(value) (((guint)(value) >> 6) & 0xFFFFFFu)

/* The threads' stacks, sorted: a thread's stack is the one holding its sp; then (ranges[n], n_code
 * of them) the executable mappings that are not writable, sorted: code a return address can point
 * into, and no heap or stack value can; then (ranges[n + n_code], n_exec of them) every executable
 * mapping, writable or not, sorted: where a runtime that maps its code writable (before .NET 7) has
 * it, which a learned frame's return address is checked against. */
typedef struct {
  guint n;
  guint n_code;
  guint n_exec;
  struct {
    uintptr_t lo, hi;
  } ranges[];
} StackRanges;

/* A cursor over map and every executable mapping of stacks (NULL: none known), writable ones included: what a walk
 * asks "is this code?" of (a learned frame's return address, an OSR frame's Tier-0 record), so that where a runtime
 * maps its code writable its rules are followed too. Context: any; async-signal-safe. */
static inline SxsModmapCursor sxs__sampler_code_cursor(const SxsModuleMap *map, const StackRanges *stacks) {
  SxsModmapCursor cursor = {.map = map};
  if (stacks != NULL) {
    cursor.code = (const uintptr_t(*)[2])(const void *)(stacks->ranges + stacks->n + stacks->n_code);
    cursor.n_code = stacks->n_exec;
  }
  return cursor;
}

/* What one capture walks with: snapshots the sampler replaces only between samples. */
typedef struct {
  const SxsModuleMap *map;
  const SxsModule *loader; /* in map: where libunwind must not be started from */
  SxsUnwindCache *steps;
  const StackRanges *stacks;
} CaptureInputs;

/* The stack the handler copies when its walk stepped JIT code by a guess (sxs_sampler_hot.c, "A walk made again"). */
#define SAMPLER_COPY_BYTES 1024

/* What one capture gives, written by the handler before it stores DONE. */
typedef struct {
  int n;                    /* frames written, or -errno */
  guint64 at_ns;            /* when it began (CLOCK_MONOTONIC) */
  guint64 capture_ns;       /* how long it took */
  guint32 token;            /* the request the thread worked for (sxs__activity_tid_token), 0: none */
  guint32 copy_len;         /* bytes of the stack from frames[copy_from].sp held in copy (0: none) */
  guint32 copy_from;        /* the first frame the walk stepped by a guess: the copy starts at its sp */
  uintptr_t fp;             /* the interrupted frame's RBP, with a copy from frame 0 */
  uintptr_t osr_patchpoint; /* an OSR frame's patchpoint the walk knew nothing of (sxs__unwind_from_regs_guessed) */
  SxsNativeFrame frames[SAMPLER_MAX_FRAMES];
  uintptr_t copy[SAMPLER_COPY_BYTES / sizeof(uintptr_t)];
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

/* One slot per request in flight: the first SAMPLER_TICK_THREADS for the wall-mode ticks' requests,
 * which may stay in flight from one tick to the next, the others for the captures the sampler waits
 * for (capture_batch). requests_done counts the captures handlers finished (a futex word the
 * sampler waits on). */
#define SAMPLER_SLOTS (2 * SAMPLER_TICK_THREADS)
#define SAMPLER_SYNC_SLOT(i) (SAMPLER_TICK_THREADS + (i))
G_STATIC_ASSERT(SAMPLER_SLOTS <= 64);

/* mode=cpu with the signal walker: each thread has a CPU-time timer of its own (timer_create on
 * its CPU clock, SIGEV_THREAD_ID), so the kernel raises the signal on the thread itself, on its
 * own CPU, each time it has used a period: no signal crosses CPUs, nothing polls CPU clocks, and
 * a thread that is not running is never interrupted. The handler writes into one of the thread's
 * own captures, in a slot from a fixed pool (the signal's value must point into it).
 *
 * The sampler has no fixed tick in this mode: it sleeps (a futex wait on sampler_asleep) until a
 * handler wakes it, or until the next rescan is due (SAMPLER_RESCAN_NS), and then collects every
 * capture DONE in one batch. A handler wakes it only when SAMPLER_WAKE_FULL of the thread's
 * captures are full (the sampler then has the other SAMPLER_THREAD_CAPTURES - SAMPLER_WAKE_FULL
 * periods to collect them before an expiry finds no room: on a loaded machine it may wait for a
 * CPU that long; a handler fills its thread's first free capture, so the pages of the others are
 * touched only when the sampler is late), or when SAMPLER_WAKE_PENDING captures wait in
 * all: a thread that runs steadily wakes the sampler once every SAMPLER_WAKE_FULL of its samples,
 * a thread that hardly runs never. The sampler
 * collects everything before it stops, so the profile, written after the stop, has it all. */
#define SAMPLER_POOL_SLOTS 512
#define SAMPLER_THREAD_CAPTURES 16
#define SAMPLER_WAKE_FULL 4
#define SAMPLER_WAKE_PENDING 64
#define THREAD_SLOT_MAGIC 0x5358534Cu
typedef struct {
  gint state;   /* SLOT_IDLE, SLOT_RUNNING, SLOT_DONE */
  guint weight; /* the expiries it stands for: its own and the timer's overruns (si_overrun) */
  Capture out;
} TimerCapture;
typedef struct {
  guint32 magic;
  pid_t tid;
  gint missed; /* expiries that found every capture still uncollected, with their overruns (atomic) */
  int fd;      /* perf engine: the thread's counter (the signal's si_fd), -1 with the timer engine */
  /* perf engine, written by the thread's handler only: the counter's last value read, the period
   * boundary the next overflow stands for, and the count that overflow is set to come at (0: the
   * first, at one period) */
  guint64 count, boundary, target;
  guint32 dither; /* perf engine, the handler's only: the state of its random draws (on_expiry) */
  TimerCapture cap[SAMPLER_THREAD_CAPTURES];
} ThreadSlot;

/* Perf engine: the pool slot of a counter by its file descriptor (1 + its index, 0: none), for the
 * handler, which knows the counter by si_fd only; a larger fd is looked for in the pool. */
#define SAMPLER_PERF_FDS 4096

/* The lock-taking code of the loader's lock (sxs__sampler_hot.lock_code): libunwind is not started from
 * SAMPLER_LOCK_CODE_BYTES after each of them (sxs_sampler_hot.c). */
#define SAMPLER_LOCK_CODE_BYTES 0x1000

/* Everything the handler reads or writes besides its thread's own stack, in one place. The sampler writes the
 * inputs before it signals and publishes with atomics (each field says how). */
typedef struct {
  SampleSlot slots[SAMPLER_SLOTS];
  gint requests_done; /* captures handlers finished for requests (a futex word the sampler waits on) */
  /* Perf engine: the pool slot of a counter by its file descriptor (1 + its index, 0: none), for the
   * handler, which knows the counter by si_fd only; a larger fd is looked for in the pool. */
  guint16 perf_fd_slot[SAMPLER_PERF_FDS];
  /* Captures the timer handlers finished (atomic; wraps); the sampler's count of those it collected. */
  guint timer_done;
  guint timer_collected;
  /* The futex word the sampler waits on in cpu mode: 1 while it sleeps; the first handler that
   * finds it 1 and has work for it sets it to 0 and wakes it (one wake a sleep). */
  gint sampler_asleep;
  ThreadSlot *pool;       /* SAMPLER_POOL_SLOTS slots, allocated when timers are used */
  gint handlers_inflight; /* timer handlers between their first and last read of timer_res */
  /* What timer handlers walk with, published by the sampler (atomic pointers; map last, so that a
   * handler that reads it first finds the loader and steps that go with it). */
  CaptureInputs timer_res;
  pid_t pid;              /* the process the handler answers for (a forked child is another) */
  guint64 event_period;   /* perf engine: what a period counts (ns of CPU time, or events) */
  uintptr_t lock_code[2]; /* pthread_mutex_lock and pthread_mutex_unlock of libc, found at start */
} SxsSamplerHot;

extern SxsSamplerHot sxs__sampler_hot;

/* The signal handler: a thread's CPU-time timer expired or its counter overflowed (mode=cpu), or the sampler asks
 * for a capture; any other SIGPROF is ignored. Context: the sampled thread, any point of its code; async-signal-safe
 * (no allocation, no lock, errno preserved). */
void sxs__sampler_on_signal(int sig, siginfo_t *si, void *uc);
/* The stack range of stacks holding sp. Context: any thread; async-signal-safe. */
bool sxs__sampler_find_stack(const StackRanges *stacks, uintptr_t sp, uintptr_t *ret_lo, uintptr_t *ret_hi);
/* The calling thread's id, and a clock's time in ns. Context: any thread; async-signal-safe. */
pid_t sxs__sampler_gettid(void);
guint64 sxs__sampler_now_ns(clockid_t clock);
