/* sxs_sampler_sched: the sampler's scheduling decisions in wall mode, as pure functions of a
 * thread's account and of what was read about it (its CPU clock, where the kernel says it is, its
 * waits): is a thread due a sample at a tick and what does the sample weigh; how is its time given
 * back when no sample is taken; is it interrupted, walked from outside, or does its last stack
 * count again; where do ticks take threads in turn. They read no clock, make no system call and
 * take no lock, so they are tested without a runtime (tests/unit/test_sampler_sched.c); the
 * sampler (sxs_sampler.c) reads the clocks and /proc and acts on the answers.
 *
 * Mode=cpu needs none of this: the engines' per-thread counters or timers raise each sample on
 * the thread itself, once per period of the CPU time it used (sxs_engine_perf.c, sxs_engine_timer.c).
 * Its one decision here is which of the two a thread is on (sxs__sampler_sched_counter, below). */
#pragma once

#include <glib.h>
#include <sys/types.h>

/* Wall mode: a thread that used less than 1/SXS_SCHED_IDLE_SHARE of a CPU lately (over the last
 * SXS_SCHED_SHARE_NS at least) is never interrupted: it spends nearly all its time blocked, and a
 * signal would likely arrive as it enters its next system call. */
#define SXS_SCHED_IDLE_SHARE 100
#define SXS_SCHED_SHARE_NS (1000 * G_GINT64_CONSTANT(1000000))
/* ... one that used less than 1/SXS_SCHED_WAITING_SHARE of it and waited since its last look (a
 * voluntary context switch) is found running only between two waits: it is not signalled then. A
 * signal that arrives as such a thread enters its next wait interrupts that wait (poll,
 * epoll_wait and nanosleep return EINTR whatever SA_RESTART says). A busy thread that only waits
 * for a CPU (more busy threads than cores) switches involuntarily, and is signalled as before. */
#define SXS_SCHED_WAITING_SHARE 10
/* ... one that used more than (SXS_SCHED_BUSY_SHARE - 1)/SXS_SCHED_BUSY_SHARE of it, lately and
 * since its last look, runs: it is signalled without asking the kernel where it is first. */
#define SXS_SCHED_BUSY_SHARE 10

/* A thread's account in wall mode. */
typedef struct {
  guint64 wall_accounted; /* the time (CLOCK_MONOTONIC, ns) its samples so far stand up to */
  gint64 cpu_at_sample;   /* its CPU time (ns) at its last look */
  gint64 cpu_used;        /* the CPU time it used between its last two looks */
  /* Two marks of its CPU clock and when they were taken, the older at least SXS_SCHED_SHARE_NS
   * before the newer: the share of a CPU it used lately is taken from the older. */
  gint64 mark_cpu[2];
  guint64 mark_ns[2];
  gint64 waits_seen; /* its voluntary context switches at its last look that read them */
} SxsSchedAccount;

/* A new thread's account, found at now with cpu ns of CPU time used so far. */
void sxs__sampler_sched_init(SxsSchedAccount *a, guint64 now, gint64 cpu);

/* What a tick does for one thread. */
typedef enum {
  SXS_DUE_NOT,    /* nothing this tick */
  SXS_DUE_SAMPLE, /* take its stack */
  SXS_DUE_REPEAT, /* it has not run since its last sample; its last stack counts again, with no
                   * signal (a signal would wake it and could interrupt its system call) */
} SxsDue;

/*
 * Has a period of wall time passed since the samples so far accounted for (at now)? TRUE with
 * *ret_weight the periods the next sample stands for, rounded to the nearest (a thread reached at
 * every tick counts one each time although ticks start a little early or late; what rounding
 * leaves over goes to the next), and the account moved on by that; FALSE (nothing moved) under
 * half a period.
 */
gboolean sxs__sampler_sched_elapsed(SxsSchedAccount *a, guint64 now, guint64 period_ns, guint64 *ret_weight);

/* Once elapsed: the thread's CPU clock reads cpu. SXS_DUE_REPEAT when it has not moved since the
 * last look and a last stack exists (has_last), else SXS_DUE_SAMPLE (the CPU used since noted). */
SxsDue sxs__sampler_sched_ran(SxsSchedAccount *a, gint64 cpu, gboolean has_last);

/* A sample that could not be taken gives its time back, for the next one to account for. */
void sxs__sampler_sched_refund(SxsSchedAccount *a, guint64 weight, guint64 period_ns);

/* How much a thread ran lately (over SXS_SCHED_SHARE_NS at least, so that one moment of running is
 * not taken for its habit). */
typedef struct {
  gboolean idle;    /* under 1/SXS_SCHED_IDLE_SHARE of a CPU */
  gboolean waiting; /* under 1/SXS_SCHED_WAITING_SHARE of it */
  gboolean busy;    /* nearly all of it, lately and since its last look too */
} SxsSchedShare;

/* The thread's share at now, its last look standing for since_ns of wall time; the marks move on
 * once the newer is SXS_SCHED_SHARE_NS old. */
SxsSchedShare sxs__sampler_sched_share(SxsSchedAccount *a, guint64 now, guint64 since_ns);

/* Where a thread is, as the kernel says (/proc/self/task/<tid>/syscall). */
typedef enum {
  SXS_WHERE_NOT_ASKED, /* not read yet */
  SXS_WHERE_UNKNOWN,   /* the file could not be read */
  SXS_WHERE_RUNNING,   /* on a CPU, or ready to run */
  SXS_WHERE_BLOCKED,   /* off its CPU, in a system call (or a fault) */
} SxsWhere;

/* What wall mode does with a thread due a sample. */
typedef enum {
  SXS_WALL_REPEAT_LAST,  /* its last stack counts again, no signal, nothing read */
  SXS_WALL_SIGNAL,       /* it runs: it gets the signal */
  SXS_WALL_ASK_WHERE,    /* read where it is, then decide again */
  SXS_WALL_ASK_WAITS,    /* read its voluntary context switches, then decide again */
  SXS_WALL_WALK_BLOCKED, /* blocked in a system call: walked from outside, no signal */
  SXS_WALL_SKIP,         /* running only for a moment between two waits: its time goes to the next look */
  SXS_WALL_DROP_BLOCKED, /* it blocks the signal: not sampled (counted as dropped) */
} SxsWallStep;

/*
 * The next step for a thread due a sample in wall mode, from its share (sxs__sampler_sched_share),
 * whether its last stack is still where it was (last_intact: the same code generation and the same
 * return addresses in its stack), whether it blocks the signal, where it is (SXS_WHERE_NOT_ASKED
 * until SXS_WALL_ASK_WHERE was answered), and waits (its voluntary context switches now, -1 when
 * they could not be read; only read after SXS_WALL_ASK_WAITS: pass G_MININT64 before). Each
 * answer to an ASK step is given to a second call; the account's waits_seen is updated then.
 */
SxsWallStep sxs__sampler_sched_wall(SxsSchedAccount *a, const SxsSchedShare *share, gboolean last_intact,
                                    gboolean blocked, SxsWhere where, gint64 waits);

/* Ticks take threads in turn, ordered by id: after the order was made again from tids[0 .. n)
 * (sorted), the position of the thread the next tick starts at, cursor_tid or the next one by
 * id when it is gone, 0 past the last. */
guint sxs__sampler_sched_cursor(const pid_t *tids, guint n, pid_t cursor_tid);

/* Mode=cpu, engine=auto: a thread on a perf_events counter pays at each of its context switches
 * (the kernel starts the counter's high-resolution timer when the thread comes on a CPU and
 * cancels it when it leaves: about 1.5 µs a block and wake measured here, tests/bench/switches.sh),
 * a thread on a CPU-time timer does not (that timer is checked at the scheduler's tick). A thread
 * that runs less than SXS_SCHED_SLICE_TIMER_NS of CPU between two waits (a server's I/O threads
 * run tens of µs) costs under a counter several times what its samples do: it goes to a timer,
 * and back to a counter once it runs more than SXS_SCHED_SLICE_COUNTER_NS between two waits. Only
 * waits count (voluntary context switches): a CPU-bound thread preempted often on a busy machine
 * keeps its counter and the rate asked. */
#define SXS_SCHED_SLICE_TIMER_NS (300 * G_GINT64_CONSTANT(1000))
#define SXS_SCHED_SLICE_COUNTER_NS (1000 * G_GINT64_CONSTANT(1000))
/* ... judged once it waited SXS_SCHED_SLICE_LOOK times, or used SXS_SCHED_SLICE_LOOK_CPU_NS of CPU,
 * since the last judgement. */
#define SXS_SCHED_SLICE_LOOK 100
#define SXS_SCHED_SLICE_LOOK_CPU_NS (20 * G_GINT64_CONSTANT(1000000))

/*
 * Is a thread that used cpu_ns of CPU time and waited waits times (voluntary context switches,
 * /proc/self/task/<tid>/status) since its last judgement better on a counter (*on_counter TRUE) or
 * on a timer? FALSE when that is too little to judge (nothing changed; the next look adds to the
 * same span), TRUE when judged, with *on_counter what it should be on from now (maybe what it was
 * on).
 */
gboolean sxs__sampler_sched_counter(gboolean *on_counter, guint64 cpu_ns, guint64 waits);
