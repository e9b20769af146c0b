/* sxs_sampler_internal: what the sampler's files share (the sampler thread's side; the signal
 * handler's is sxs_sampler_hot.h):
 *
 *   sxs_sampler.c          threads (rescan), stack ranges, requests to one thread, resolving and
 *                          counting captures, the tick, the wall-mode loop, start and stop
 *   sxs_sampler_wall.c     wall mode: which threads a tick takes and how (signal, walk from
 *                          outside, last stack again), and the signal walker's requests in flight
 *   sxs_walker_suspend.c   the suspend walker: runtimes suspended, their walks stitched to the
 *                          captures, walks kept for reuse
 *   sxs_sampler_cpu.c      mode=cpu: the engine chosen, threads armed and disarmed through it,
 *                          the batches of captures the handlers made
 *   sxs_engine_perf.c      the perf_events engine       } behind SxsSamplerEngine
 *   sxs_engine_timer.c     the CPU-time timer engine    }
 *   sxs_sampler_sched.c    wall-mode scheduling decisions, pure
 *
 * The state is one SxsSampler (sxs__sampler, spelled `sampler` here); `lock` guards its counters
 * and `dropped`, the rest is the sampler thread's alone once it runs. */
#pragma once

#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "sxs_config.h"
#include "sxs_sampler.h"
#include "sxs_sampler_hot.h"
#include "sxs_sampler_sched.h"
#include "sxs_stacks.h"
#include "sxs_stitch.h"
#include "sxs_walk_resources.h"

#define SAMPLER_LOADER "ld-linux-x86-64.so.2"
#define SAMPLER_WAIT_NS (20 * G_GINT64_CONSTANT(1000000)) /* a thread has this long to take its sample */
/* ... when no tick waits for it (wall mode, signal walker): on a busy machine a thread woken by the
 * signal can wait that long for a CPU, and meanwhile its stack does not change */
#define SAMPLER_REQUEST_WAIT_NS (100 * G_GINT64_CONSTANT(1000000))
#define SAMPLER_CAPTURE_RING 4096 /* captures whose times the quantiles are taken over */
#define SAMPLER_REUSE_WALKS 4     /* stacks a thread keeps the runtimes' walks of (suspend walker) */
#define SAMPLER_RESCAN_NS (100 * G_GINT64_CONSTANT(1000000)) /* threads and stacks looked for again */
#define SAMPLER_RESCAN_NAMES 16 /* threads whose names one rescan reads again (new ones aside) */
#define SAMPLER_NAME_LOOK_NS (1000 * G_GINT64_CONSTANT(1000000))   /* ... each at most this often */
#define SAMPLER_CODE_RESCAN_NS (1000 * G_GINT64_CONSTANT(1000000)) /* code mappings looked for again, at most */
#define SAMPLER_MAPS_NS (250 * G_GINT64_CONSTANT(1000000))         /* /proc/self/maps read at most this often */
/* ... or this often while captures find no stack range (a new thread's stack, not yet read: at a
 * high rate each of its first SAMPLER_MAPS_NS would lose hundreds of samples) */
#define SAMPLER_MAPS_MISSING_NS (10 * G_GINT64_CONSTANT(1000000))
/* ... and code a runtime claims outside the mappings read last, no sooner than this many times the last read's
 * cost (at most 1 % of the sampler thread's time goes to such reads) */
#define SAMPLER_MAPS_COST_SHARE 100
#define SAMPLER_RESCAN_NEW 64 /* threads one rescan adds at most (a name and a status read each) */
/* Suspend walker, cpu mode: walks learned at most this often (each learning suspends the runtimes). */
#define SAMPLER_LEARN_NS (250 * G_GINT64_CONSTANT(1000000))
#define SAMPLER_SLICE_QUICK_LOOKS 10 /* ... at each rescan until first judged, at most this many times */
#define SAMPLER_SLICE_LOOKS 16       /* cpu mode, engine=auto: threads whose waits one rescan reads */
#define SAMPLER_SLICE_LOOK_NS (1000 * G_GINT64_CONSTANT(1000000)) /* ... each at most this often */

typedef struct WalkReuse WalkReuse;

typedef struct {
  pid_t tid;
  char *name;
  gboolean seen;
  gboolean blocked;                      /* the thread blocks the signal: never asked */
  gboolean name_checked;                 /* its name was read again after it was first seen */
  guint64 name_at_ns;                    /* when its name was last read again (CLOCK_MONOTONIC, 0: not yet) */
  guint timeouts;                        /* requests in a row it did not answer */
  SxsSchedAccount sched;                 /* wall mode: its account (sxs_sampler_sched.h) */
  SxsStackFrame *last;                   /* wall mode: its last stack (stitched), last_n frames; owned */
  SxsStackHandle *last_counted;          /* wall mode: where that stack is counted (NULL: not counted) */
  guint last_generation;                 /* wall mode: sampler.code_generation when that stack was found */
  guint request;                         /* wall mode: 1 + the slot of its request in flight, 0 when none */
  ThreadSlot *tslot;                     /* timer mode: its slot in the pool, or NULL */
  const struct SxsSamplerEngine *engine; /* timer mode: the engine that armed it (valid with tslot) */
  timer_t timer;                         /* timer mode: its CPU-time timer (valid with tslot, timer engine) */
  int perf_fd;                           /* timer mode, perf engine: its counter (valid with tslot), else -1 */
  gint64 cpu_at_arm;                     /* timer mode, timer engine: its CPU time when its timer was made */
  guint64 captures, expiries;            /* timer mode: its captures collected, and the periods they stand for */
  /* Timer mode, engine=auto: a thread moves between a counter and a timer as it runs in short
   * slices or not (sxs__sampler_sched_counter). What its engines before the present one counted
   * (ns of CPU time), of that what the timers did, and expiries when it last moved; the CPU time
   * and its waits (voluntary context switches) at its last judgement, and when the
   * thread was last looked at (CLOCK_MONOTONIC, 0: never). */
  guint64 counted_before, timer_before, expiries_at_move;
  guint64 look_cpu_ns, look_waits, look_at_ns;
  gboolean moved;         /* it moved at least once */
  guint looks;            /* its waits were read this many times */
  gboolean judged;        /* ... and judged once at least (sxs__sampler_sched_counter answered) */
  gboolean timer_deleted; /* timer mode: the timer is gone already (the sampler stops) */
  guint last_n;
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
typedef struct {
  GMutex lock;
  gsize started; /* g_once_init_enter guard */
  gboolean running;
  gboolean stop;
  pthread_t thread;
  int frequency;
  SxsSamplingMode mode;
  char *off_reason;
  guint64 ticks, taken, weight, capture_ns, resolve_ns, frames;
  guint64 suspensions, walks_reused; /* suspend walker: times the runtimes were suspended; samples that
                                      * reused a thread's last walk instead */
  guint64 walks_redone;              /* captures whose stack copy, walked again, gave other frames */
  guint64 sample_at_ns;              /* when the capture being counted was made (CLOCK_MONOTONIC), 0: now; the
                                      * sampler thread sets it around sxs__sampler_record_capture */
  guint32 sample_token;              /* ... and the request its thread worked for then (sxs_activity), 0: none known */
  guint64 capture_max;               /* the longest capture */
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
  guint64 maps_read_cost_ns;         /* how long the last read of the mappings took */
  gboolean blocked_walks_since_maps; /* threads were walked from outside since the maps were read */
  gboolean code_unknown;             /* a capture held code a runtime owns outside every mapping read (below) */
  uintptr_t code_unknown_at;         /* that code's address */
  uintptr_t code_stuck_at;           /* such an address a read of the mappings did not find either */
  guint64 blocked_walks, blocked_walk_ns;
  gboolean use_timers;         /* mode=cpu: per-thread CPU-time timers capture the stacks */
  SxsWalkResources timer_walk; /* what timer handlers walk with (taken, released when replaced) */
  gboolean timer_walk_taken;
  gboolean timer_leftover;                   /* suspend walker: the last batch left captures for the next one */
  guint batch_at;                            /* cpu mode: where in order the next batch starts */
  guint64 learned_ns;                        /* suspend walker, cpu mode: when a batch last learned walks */
  guint64 wakes;                             /* cpu mode: the sampler's batches (it woke, was woken, or rescanned) */
  const struct SxsSamplerEngine *engine_ops; /* mode=cpu: the engine that runs (perf or timer) */
  char *engine_reason;                       /* why that one (owned; under lock once running) */
  SxsSamplingEvent event;                    /* what a period counts (perf engine) */

  guint perf_fds, perf_fd_budget; /* perf engine: counters open, and the most that may be */
  gboolean engine_moves;          /* perf engine chosen by engine=auto: threads in short slices go to timers */
  guint slices_at;                /* where the next rescan starts reading threads' waits, in order */
  gboolean timer_fallback_logged;
  /* Every thread's rate so far (timer mode), by tid: SxsThreadRateModel* (lock; owned); the
   * profiler's own threads, never sampled, and their CPU time (lock; owned). */
  GHashTable *rates;
  GHashTable *own;
} SxsSampler;

/* What became of a request. */
typedef enum {
  POLL_PENDING,   /* not answered yet */
  POLL_DONE,      /* answered: *ret_n frames in the slot (or -errno, the reason counted) */
  POLL_GIVEN_UP,  /* not answered in time, or the sampler stops: the slot is free again */
  POLL_ABANDONED, /* a capture under way when the sampler stops: the slot is the handler's for good */
} Poll;

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

/* Teaches the step cache the frames of a walk's managed return addresses it does not know yet (a walk from outside,
 * before it is counted); returns how many frameless frames it learned: then a frame-pointer step of that walk skipped
 * a caller, and the walk is worth making again. Context: the sampler thread, nothing suspended. */
guint sxs__sampler_learn_walk(const SxsWalkResources *res, const SxsNativeFrame *native, guint n,
                              const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes, guint n_targets);

/*
 * A walk made again from a capture's stack copy (walked, k frames, from the capture's frame start on) joined to the
 * capture's first walk (native, n) where the two meet again (the same return address at the same sp) after they
 * part, into out (max frames): the frames before start, the new walk's up to where they meet, then the first walk's
 * from there. The walks agree up to where the first one stepped a frame it knew nothing of, and often beyond it (the
 * guess was the leaf's, its caller's frame-pointer step was right, the next caller's was not): joined at the first
 * frame they share, the new walk's frames past it were dropped (`B < A < Thread.StartCallback`, the OSR loop method
 * the new walk found between A and the thread's start lost). Parted after a step both made, the new walk only adds
 * the frames the first one skipped, and meets it at the frame that followed the step where they part; where it would
 * replace frames the first walk had (a new walk that read an OSR method twice and lost its caller, `Run < Run`, seen
 * in 2 of 11 runs), the first walk stands. A new walk that ended at the copy's end (end_fp: the frame record its next
 * step would read, past the copy; 0: none) meets the first walk at the frame that record leads to, when the first
 * walk has it: a frameless callee of a filter funclet, whose parent's frame lies above the exception dispatch, far
 * beyond the copy, lost the funclet (`Leaf < Check < Run`, Handle gone); the new walk finds the funclet and ends
 * there, its RBP the parent's record that the first walk stepped through to Run. twice (0: none) is a frame of the
 * first walk that reads its caller's method again, an OSR frame's patchpoint taken for a frame where the walk did not
 * know the Tier-0 code (`Sort < Sort`, Run lost): the new walk may replace it. Returns the length, or 0 when the
 * walks do not part or do not meet again (then the first walk stands). Pure.
 */
guint sxs__sampler_rewalk_join(const SxsNativeFrame *native, guint n, guint start, const SxsNativeFrame *walked,
                               guint k, uintptr_t end_fp, guint twice, SxsNativeFrame *out, guint max);

/* The suspend walker (sxs_walker_suspend.c): sample s's fresh walks aligned on its capture, each
 * beginning with the call of the capture's innermost managed frame it still holds; returns which
 * of the capture's managed frames that is (0: the innermost), -1 when a walk held none and was
 * dropped; *ret_trimmed when a walk lost frames before it (the thread went there since). */
int sxs__walker_suspend_align(SuspendedSample *s, gboolean *ret_trimmed);
/* Sample s's innermost managed frame as captured takes the stack pointer of the frame its
 * runtime's walk begins with when that is the same function's (the same call, as the walk is
 * aligned), so that the merge keeps it once. */
void sxs__walker_suspend_fuse_first(SuspendedSample *s);

#define SAMPLER_SUSPEND_MAX_THREADS SAMPLER_TICK_THREADS
#define SAMPLER_MAX_MANAGED_THREADS 1024
#define SAMPLER_REUSE_NS (1000 * G_GINT64_CONSTANT(1000000)) /* a walk is reused for this long at most */

/*
 * A mode=cpu engine: what raises each thread's expiries into its ThreadSlot, on the thread itself,
 * every period of what it counts (the handler captures at each: sxs_sampler_hot.c).
 * sxs_sampler_cpu.c chooses one at start and arms each thread found through it; a thread the perf
 * engine cannot take (its counters' file descriptors at their budget) may get the timer engine.
 * Context of all: the sampler thread.
 */
typedef struct SxsSamplerEngine {
  SxsEngineKind kind;
  /* May this process use the engine for event at frequency? 0 with *ret_period (what a period
   * counts: ns of CPU time, or events), or -errno with *ret_why (owned: one line, the reason). */
  int (*start)(SxsSamplingEvent event, int frequency, guint64 *ret_period, char **ret_why);
  /* Arms thread t in its slot ts (magic set): an expiry every period from now on. 0, or -errno
   * (nothing armed; -ESRCH: the thread is gone). */
  int (*add_thread)(SampledThread *t, ThreadSlot *ts, SxsSamplingEvent event, guint64 period);
  /* What t's counter or clock counted since it was armed (ns of CPU time, or events); last: it
   * is about to be removed (the counter read once more). 0 when not known: the periods its
   * samples stand for count instead. */
  guint64 (*counted)(SampledThread *t, gboolean last);
  /* No new expiry for t (the sampler stops); the captures made stay to be collected. */
  void (*stop_thread)(SampledThread *t);
  /* t goes (gone, or the sampler stops): its counter or timer is let go, no signal after this. */
  void (*remove_thread)(SampledThread *t);
} SxsSamplerEngine;

/* The perf_events engine (sxs_engine_perf.c) and the CPU-time timer engine (sxs_engine_timer.c). */
extern const SxsSamplerEngine sxs__engine_perf_ops;
extern const SxsSamplerEngine sxs__engine_timer_ops;

/* The sampler's state, and the handler's (sxs_sampler_hot.c). */
extern SxsSampler sxs__sampler;
#define sampler sxs__sampler
#define hot sxs__sampler_hot

/* sxs_sampler.c: threads, captures, counting. Context of all: the sampler thread (the counters
 * take sampler.lock). */
clockid_t sxs__sampler_thread_cpu_clock(pid_t tid);
gint64 sxs__sampler_thread_cpu_ns(pid_t tid);
/* The start of /proc/self/task/<tid>/<name> into text (size bytes, NUL-terminated), with one read and no
 * allocation; FALSE when it cannot be read (the thread is gone). */
gboolean sxs__sampler_task_file_read(pid_t tid, const char *name, char *text, gsize size);
/* Thread tid's voluntary context switches so far (its waits: voluntary_ctxt_switches of its status), or -1. */
gint64 sxs__sampler_thread_waits(pid_t tid);
void sxs__sampler_note_capture(guint64 ns);
void sxs__sampler_count_dropped(const char *reason);
void sxs__sampler_count_failed_capture(int n);
void sxs__sampler_rescan(void);
/* How long until the next rescan: SAMPLER_RESCAN_NS, or less while captures wait for the mappings to be read
 * again (a new thread's stack: SAMPLER_MAPS_MISSING_NS; code a runtime claims: as soon as the reads' cost allows). */
guint64 sxs__sampler_rescan_every(void);
/* Whether a runtime (of runtimes) says return address ra is code of one of its methods: *ret, classified as a
 * capture's frame is. */
gboolean sxs__sampler_claimed(const SxsWalkResources *res, const SxsStitchRuntime *runtimes, guint n_runtimes,
                              uintptr_t ra, SxsStackFrame *ret);
/* A cursor over res's module map and the executable mappings read last, for walks made on the sampler thread. */
SxsModmapCursor sxs__sampler_cursor(const SxsWalkResources *res);
gboolean sxs__sampler_request_send(guint index, SampledThread *t, const CaptureInputs *in);
Poll sxs__sampler_request_poll(guint index, SampledThread *t, guint64 sent_ns, guint64 wait_ns, int *ret_n);
void sxs__sampler_capture_batch(SampledThread *const *threads, guint n, const SxsWalkResources *res, int *ret_n,
                                gboolean *ret_abandoned);
void sxs__sampler_check_unanswered(SampledThread *t);
void sxs__sampler_count_taken(guint64 weight, guint n, guint64 resolve_ns);
void sxs__sampler_add_sample_of(SampledThread *t, const SxsWalkResources *res, const SxsStackFrame *frames, guint n,
                                guint64 weight, const SxsStitchTarget *targets, guint n_targets);
void sxs__sampler_repeat_last(SampledThread *t, const SxsWalkResources *res, guint64 weight,
                              const SxsStitchTarget *targets, guint n_targets);
/* Classifies and counts a capture's frames (native, n); from: the handler's capture they are of, whose copy of the
 * stack (if any) is walked again once the code in it is read (NULL: frames from elsewhere). */
void sxs__sampler_record_capture(SampledThread *t, const SxsWalkResources *res, const SxsNativeFrame *native, guint n,
                                 const Capture *from, guint64 weight, const SxsStitchTarget *targets,
                                 const SxsStitchRuntime *runtimes, guint n_targets);
gboolean sxs__sampler_thread_is_destroyed(int runtime_id, uint64_t thread_id);
void sxs__sampler_tick(guint64 period_ns);
void sxs__sampler_set_off(const char *why);

/* sxs_sampler_wall.c: wall mode. */
guint sxs__sampler_wall_select(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                               const SxsStitchRuntime *runtimes, guint n_targets, const CaptureInputs *in,
                               SampledThread **ret_threads, guint64 *ret_weights, guint max);
void sxs__sampler_wall_requests_collect(guint64 period_ns, const SxsStitchTarget *targets,
                                        const SxsStitchRuntime *runtimes, guint n_targets);
gboolean sxs__sampler_wall_requests_in_flight(void);
void sxs__sampler_wall_requests_release(void);
gboolean sxs__sampler_wall_tick(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                                const SxsStitchRuntime *runtimes, guint n_targets);
void sxs__sampler_wall_requests_finish(void);

/* sxs_walker_suspend.c: the suspend walker. */
void sxs__walker_suspend_reuse_free(WalkReuse *r);
void sxs__walker_suspend_finish(SuspendedSample *samples, guint n_due, const SxsWalkResources *res,
                                const SxsStitchTarget *targets, const SxsStitchRuntime *runtimes, guint n_targets);
SuspendedSample *sxs__walker_suspend_samples(void);
void sxs__walker_suspend_tick(guint64 period_ns, const SxsWalkResources *res, const SxsStitchTarget *targets,
                              const SxsStitchRuntime *runtimes, guint n_targets);
void sxs__walker_suspend_prepare_timer_sample(SuspendedSample *s, const Capture *from, const SxsWalkResources *res,
                                              guint64 now, gboolean learn, const SxsStitchTarget *targets,
                                              const SxsStitchRuntime *runtimes, guint n_targets);
gboolean sxs__walker_suspend_learn(SuspendedSample *samples, guint n, const SxsWalkResources *res);

/* sxs_sampler_cpu.c: mode=cpu. */
void sxs__sampler_cpu_arm(SampledThread *t);
void sxs__sampler_cpu_disarm(SampledThread *t);
void sxs__sampler_cpu_review(void);
gboolean sxs__sampler_cpu_handlers_drained(void);
gboolean sxs__sampler_cpu_publish(const SxsWalkResources *res);
void sxs__sampler_cpu_published(void);
guint sxs__sampler_cpu_tick(const SxsWalkResources *res, const SxsStitchTarget *targets,
                            const SxsStitchRuntime *runtimes, guint n_targets, gboolean use_suspend);
void sxs__sampler_cpu_run(guint64 period);
gboolean sxs__sampler_cpu_choose_engine(const SxsConfig *cfg);
