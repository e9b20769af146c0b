/* Unit tests of the sampler's wall-mode scheduling decisions (manager/record/sxs_sampler_sched.c),
 * without a runtime or a thread: each case drives a thread's account through ticks at known times
 * with known CPU clocks and checks the weights (wall time stays whole), the refunds, which threads
 * are interrupted, walked from outside or counted again, and where ticks resume in turn; and, in
 * cpu mode, which threads leave a counter for a timer and come back. */
#include <glib.h>

#include "sxs_sampler_sched.h"

#define MS (G_GUINT64_CONSTANT(1000000))
#define PERIOD (10 * MS) /* 100 Hz */
#define T0 (G_GUINT64_CONSTANT(5000) * MS)

/* A thread reached at every tick, ticks a little early or late (up to 40 % of a period): each
 * sample weighs one period, and the weights add up to the wall time passed, to the period. */
static void test_every_tick(void) {
  SxsSchedAccount a;
  sxs__sampler_sched_init(&a, T0, 0);
  const gint64 jitter[] = {0, 4, -3, 2, -4, 1, 3, -2, 0, 4};
  guint64 total = 0;
  for (guint k = 1; k <= 1000; k++) {
    guint64 now = T0 + k * PERIOD + (guint64)(jitter[k % G_N_ELEMENTS(jitter)] * (gint64)MS);
    guint64 w = 0;
    g_assert_true(sxs__sampler_sched_elapsed(&a, now, PERIOD, &w));
    g_assert_cmpuint(w, ==, 1);
    total += w;
  }
  g_assert_cmpuint(total, ==, 1000);
  g_assert_cmpuint(a.wall_accounted, ==, T0 + 1000 * PERIOD);
}

/* Reached every 4th tick (many threads, a few a tick): each sample stands for 4 periods; one
 * missed tick more: 5. Under half a period since the last: not due, nothing moved. */
static void test_in_turn(void) {
  SxsSchedAccount a;
  sxs__sampler_sched_init(&a, T0, 0);
  guint64 w = 0;
  g_assert_true(sxs__sampler_sched_elapsed(&a, T0 + 4 * PERIOD, PERIOD, &w));
  g_assert_cmpuint(w, ==, 4);
  g_assert_true(sxs__sampler_sched_elapsed(&a, T0 + 9 * PERIOD + PERIOD / 3, PERIOD, &w));
  g_assert_cmpuint(w, ==, 5);
  guint64 before = a.wall_accounted;
  g_assert_false(sxs__sampler_sched_elapsed(&a, T0 + 9 * PERIOD + PERIOD * 4 / 10, PERIOD, &w));
  g_assert_cmpuint(a.wall_accounted, ==, before);
  /* Over half a period: rounded to the nearest period. */
  g_assert_true(sxs__sampler_sched_elapsed(&a, T0 + 9 * PERIOD + PERIOD * 6 / 10, PERIOD, &w));
  g_assert_cmpuint(w, ==, 1);
}

/* A sample not taken gives its time back: the next one weighs its periods too, and the total stays
 * the wall time passed. */
static void test_refund(void) {
  SxsSchedAccount a;
  sxs__sampler_sched_init(&a, T0, 0);
  guint64 w = 0, total = 0;
  g_assert_true(sxs__sampler_sched_elapsed(&a, T0 + PERIOD, PERIOD, &w));
  sxs__sampler_sched_refund(&a, w, PERIOD); /* e.g. the thread did not answer */
  g_assert_true(sxs__sampler_sched_elapsed(&a, T0 + 2 * PERIOD, PERIOD, &w));
  g_assert_cmpuint(w, ==, 2);
  total += w;
  g_assert_true(sxs__sampler_sched_elapsed(&a, T0 + 3 * PERIOD, PERIOD, &w));
  total += w;
  g_assert_cmpuint(total, ==, 3);
}

/* The CPU clock unmoved since the last look and a last stack: it counts again (no signal); without
 * a last stack it is sampled. A moved clock: sampled, the CPU used since noted. */
static void test_ran(void) {
  SxsSchedAccount a;
  sxs__sampler_sched_init(&a, T0, 7 * MS);
  g_assert_cmpint(sxs__sampler_sched_ran(&a, 7 * MS, FALSE), ==, SXS_DUE_SAMPLE);
  g_assert_cmpint(sxs__sampler_sched_ran(&a, 7 * MS, TRUE), ==, SXS_DUE_REPEAT);
  g_assert_cmpint(sxs__sampler_sched_ran(&a, 9 * MS, TRUE), ==, SXS_DUE_SAMPLE);
  g_assert_cmpint(a.cpu_used, ==, 2 * MS);
  g_assert_cmpint(a.cpu_at_sample, ==, 9 * MS);
}

/* Drives a thread that uses share_per_mille of a CPU for 3 s, looked at every period; returns its
 * share at the last look. */
static SxsSchedShare run_at(SxsSchedAccount *a, guint share_per_mille) {
  sxs__sampler_sched_init(a, T0, 0);
  SxsSchedShare s = {0};
  for (guint k = 1; k <= 300; k++) {
    guint64 now = T0 + k * PERIOD, w = 0;
    g_assert_true(sxs__sampler_sched_elapsed(a, now, PERIOD, &w));
    gint64 cpu = (gint64)(k * PERIOD * share_per_mille / 1000);
    sxs__sampler_sched_ran(a, cpu, TRUE);
    s = sxs__sampler_sched_share(a, now, w * PERIOD);
  }
  return s;
}

/* Shares: under 1 % idle (and waiting), under 10 % waiting, 95 % busy, 50 % neither busy nor
 * waiting. The marks move on only once the newer is a second old. */
static void test_share(void) {
  SxsSchedAccount a;
  SxsSchedShare s = run_at(&a, 5);
  g_assert_true(s.idle && s.waiting && !s.busy);
  s = run_at(&a, 50);
  g_assert_true(!s.idle && s.waiting && !s.busy);
  s = run_at(&a, 500);
  g_assert_true(!s.idle && !s.waiting && !s.busy);
  s = run_at(&a, 950);
  g_assert_true(!s.idle && !s.waiting && s.busy);
  g_assert_cmpuint(a.mark_ns[1] - a.mark_ns[0], >=, (guint64)SXS_SCHED_SHARE_NS);
  /* A busy thread that stopped since its last look is not busy (it may be blocked now). */
  guint64 now = T0 + 301 * PERIOD, w = 0;
  g_assert_true(sxs__sampler_sched_elapsed(&a, now, PERIOD, &w));
  sxs__sampler_sched_ran(&a, a.cpu_at_sample + (gint64)(PERIOD / 20), TRUE);
  s = sxs__sampler_sched_share(&a, now, w * PERIOD);
  g_assert_false(s.busy);
}

/* The wall-mode decisions, one thread kind at a time. */
static void test_wall_steps(void) {
  SxsSchedAccount a;
  sxs__sampler_sched_init(&a, T0, 0);
  const SxsSchedShare idle = {.idle = TRUE, .waiting = TRUE}, waiting = {.waiting = TRUE}, middle = {0},
                      busy = {.busy = TRUE};
  const gint64 none = G_MININT64;
  /* Hardly runs, its last stack in place: counted again, nothing read. */
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &idle, TRUE, FALSE, SXS_WHERE_NOT_ASKED, none), ==, SXS_WALL_REPEAT_LAST);
  /* Busy: the signal at once, without asking where it is. */
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &busy, FALSE, FALSE, SXS_WHERE_NOT_ASKED, none), ==, SXS_WALL_SIGNAL);
  /* Busy but it blocks the signal: where it is decides. */
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &busy, FALSE, TRUE, SXS_WHERE_NOT_ASKED, none), ==, SXS_WALL_ASK_WHERE);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &busy, FALSE, TRUE, SXS_WHERE_RUNNING, none), ==, SXS_WALL_DROP_BLOCKED);
  /* Idle with its stack moved: where is it? Blocked in a call: walked from outside; running for a
   * moment: skipped (its time to the next look). */
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &idle, FALSE, FALSE, SXS_WHERE_NOT_ASKED, none), ==, SXS_WALL_ASK_WHERE);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &idle, FALSE, FALSE, SXS_WHERE_BLOCKED, none), ==, SXS_WALL_WALK_BLOCKED);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &idle, FALSE, FALSE, SXS_WHERE_RUNNING, none), ==, SXS_WALL_SKIP);
  /* Waiting most of the time and found running: its waits decide. Waited since the last look (or
   * unreadable): skipped; not waited: signalled. */
  a.waits_seen = 40;
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &waiting, FALSE, FALSE, SXS_WHERE_RUNNING, none), ==, SXS_WALL_ASK_WAITS);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &waiting, FALSE, FALSE, SXS_WHERE_RUNNING, 41), ==, SXS_WALL_SKIP);
  g_assert_cmpint(a.waits_seen, ==, 41);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &waiting, FALSE, FALSE, SXS_WHERE_RUNNING, 41), ==, SXS_WALL_SIGNAL);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &waiting, FALSE, FALSE, SXS_WHERE_RUNNING, -1), ==, SXS_WALL_SKIP);
  /* In between: running gets the signal; where unknown (the file unreadable) too. */
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &middle, FALSE, FALSE, SXS_WHERE_RUNNING, none), ==, SXS_WALL_SIGNAL);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &middle, FALSE, FALSE, SXS_WHERE_UNKNOWN, none), ==, SXS_WALL_SIGNAL);
  g_assert_cmpint(sxs__sampler_sched_wall(&a, &middle, FALSE, FALSE, SXS_WHERE_BLOCKED, none), ==,
                  SXS_WALL_WALK_BLOCKED);
}

/* Ticks resume at the thread they stopped at, or the next one by id when it is gone; past the
 * last, at the first. */
static void test_cursor(void) {
  const pid_t tids[] = {100, 105, 230, 231, 900};
  g_assert_cmpuint(sxs__sampler_sched_cursor(tids, 5, 230), ==, 2);
  g_assert_cmpuint(sxs__sampler_sched_cursor(tids, 5, 229), ==, 2);
  g_assert_cmpuint(sxs__sampler_sched_cursor(tids, 5, 50), ==, 0);
  g_assert_cmpuint(sxs__sampler_sched_cursor(tids, 5, 901), ==, 0);
  g_assert_cmpuint(sxs__sampler_sched_cursor(tids, 0, 5), ==, 0);
}

/* Cpu mode, engine=auto: a thread that runs little CPU between two waits leaves its counter for a
 * timer, and comes back once it runs long between them; too little seen is not judged. */
static void test_counter_or_timer(void) {
  const guint64 us = 1000, ms = 1000 * us;
  gboolean on = TRUE;
  /* Too little: fewer slices than a look needs and little CPU. */
  g_assert_false(sxs__sampler_sched_counter(&on, 5 * ms, SXS_SCHED_SLICE_LOOK - 1));
  g_assert_true(on);
  /* A server's I/O thread: 20 µs between two waits, 10,000 waits: to a timer. */
  g_assert_true(sxs__sampler_sched_counter(&on, 200 * ms, 10000));
  g_assert_false(on);
  /* Still short on the timer: stays. */
  g_assert_true(sxs__sampler_sched_counter(&on, 50 * ms, 1000));
  g_assert_false(on);
  /* Between the two bounds (500 µs a wait): where it is, either way. */
  g_assert_true(sxs__sampler_sched_counter(&on, 100 * ms, 200));
  g_assert_false(on);
  gboolean counter = TRUE;
  g_assert_true(sxs__sampler_sched_counter(&counter, 100 * ms, 200));
  g_assert_true(counter);
  /* Just under the bound with enough waits: a timer; just at it: a counter kept. */
  counter = TRUE;
  g_assert_true(sxs__sampler_sched_counter(&counter, SXS_SCHED_SLICE_LOOK * (SXS_SCHED_SLICE_TIMER_NS - 1),
                                           SXS_SCHED_SLICE_LOOK));
  g_assert_false(counter);
  counter = TRUE;
  g_assert_true(
      sxs__sampler_sched_counter(&counter, SXS_SCHED_SLICE_LOOK * SXS_SCHED_SLICE_TIMER_NS, SXS_SCHED_SLICE_LOOK));
  g_assert_true(counter);
  /* Busy again (a CPU-bound phase: 40 ms in 4 waits): back to a counter. */
  g_assert_true(sxs__sampler_sched_counter(&on, 40 * ms, 4));
  g_assert_true(on);
  /* A CPU-bound thread preempted thousands of times a second on a busy machine waits rarely (its
   * preemptions are not waits): it keeps its counter. */
  on = TRUE;
  g_assert_true(sxs__sampler_sched_counter(&on, 300 * ms, 2));
  g_assert_true(on);
  /* A thread that ran long with no wait at all is judged by its CPU time alone. */
  on = FALSE;
  g_assert_true(sxs__sampler_sched_counter(&on, SXS_SCHED_SLICE_LOOK_CPU_NS, 0));
  g_assert_true(on);
  /* A few waits and little CPU: a counter is never left on so little. */
  on = TRUE;
  g_assert_false(sxs__sampler_sched_counter(&on, 1 * ms, 50));
  g_assert_true(on);
  /* Much CPU but fewer waits than a judgement needs: a counter is not left. */
  g_assert_true(sxs__sampler_sched_counter(&on, 25 * ms, 99));
  g_assert_true(on);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/manager/sampler-sched/every-tick", test_every_tick);
  g_test_add_func("/manager/sampler-sched/in-turn", test_in_turn);
  g_test_add_func("/manager/sampler-sched/refund", test_refund);
  g_test_add_func("/manager/sampler-sched/ran", test_ran);
  g_test_add_func("/manager/sampler-sched/share", test_share);
  g_test_add_func("/manager/sampler-sched/wall-steps", test_wall_steps);
  g_test_add_func("/manager/sampler-sched/cursor", test_cursor);
  g_test_add_func("/manager/sampler-sched/counter-or-timer", test_counter_or_timer);
  return g_test_run();
}
