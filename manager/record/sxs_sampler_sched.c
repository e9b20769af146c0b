/* sxs_sampler_sched: the sampler's wall-mode scheduling decisions (see sxs_sampler_sched.h). */
#include "sxs_sampler_sched.h"

void sxs__sampler_sched_init(SxsSchedAccount *a, guint64 now, gint64 cpu) {
  *a = (SxsSchedAccount){.wall_accounted = now, .cpu_at_sample = cpu, .waits_seen = 0};
  a->mark_cpu[0] = a->mark_cpu[1] = cpu;
  a->mark_ns[0] = a->mark_ns[1] = now;
}

gboolean sxs__sampler_sched_elapsed(SxsSchedAccount *a, guint64 now, guint64 period_ns, guint64 *ret_weight) {
  *ret_weight = 1;
  gint64 elapsed = (gint64)(now - a->wall_accounted);
  if (elapsed < (gint64)period_ns / 2)
    return FALSE;
  *ret_weight = ((guint64)elapsed + period_ns / 2) / period_ns;
  a->wall_accounted += *ret_weight * period_ns;
  return TRUE;
}

SxsDue sxs__sampler_sched_ran(SxsSchedAccount *a, gint64 cpu, gboolean has_last) {
  if (cpu == a->cpu_at_sample && has_last)
    return SXS_DUE_REPEAT;
  a->cpu_used = cpu - a->cpu_at_sample;
  a->cpu_at_sample = cpu;
  return SXS_DUE_SAMPLE;
}

void sxs__sampler_sched_refund(SxsSchedAccount *a, guint64 weight, guint64 period_ns) {
  a->wall_accounted -= weight * period_ns;
}

SxsSchedShare sxs__sampler_sched_share(SxsSchedAccount *a, guint64 now, guint64 since_ns) {
  if (now - a->mark_ns[1] >= (guint64)SXS_SCHED_SHARE_NS) {
    a->mark_cpu[0] = a->mark_cpu[1];
    a->mark_ns[0] = a->mark_ns[1];
    a->mark_cpu[1] = a->cpu_at_sample;
    a->mark_ns[1] = now;
  }
  gint64 used = a->cpu_at_sample - a->mark_cpu[0], wall = (gint64)(now - a->mark_ns[0]);
  gint64 since = (gint64)since_ns;
  return (SxsSchedShare){
      .idle = used * SXS_SCHED_IDLE_SHARE < wall,
      .waiting = used * SXS_SCHED_WAITING_SHARE < wall,
      /* Busy lately, and since its last look too: a thread that just stopped running is not. */
      .busy = used * SXS_SCHED_BUSY_SHARE >= wall * (SXS_SCHED_BUSY_SHARE - 1) &&
              a->cpu_used * SXS_SCHED_BUSY_SHARE >= since * (SXS_SCHED_BUSY_SHARE - 1),
  };
}

SxsWallStep sxs__sampler_sched_wall(SxsSchedAccount *a, const SxsSchedShare *share, gboolean last_intact,
                                    gboolean blocked, SxsWhere where, gint64 waits) {
  /* A thread that hardly runs and whose last stack is still in place waits where it waited: no
   * need to ask the kernel where it is (a read of /proc costs more than the rest). */
  if (share->idle && last_intact)
    return SXS_WALL_REPEAT_LAST;
  /* A thread that ran nearly all the time runs now: it gets the signal at once. */
  if (share->busy && !blocked)
    return SXS_WALL_SIGNAL;
  if (where == SXS_WHERE_NOT_ASKED)
    return SXS_WALL_ASK_WHERE;
  if (where == SXS_WHERE_BLOCKED)
    return SXS_WALL_WALK_BLOCKED;
  if (where == SXS_WHERE_RUNNING && share->idle)
    return SXS_WALL_SKIP; /* running for a moment between two waits: the next look likely finds it waiting */
  if (where == SXS_WHERE_RUNNING && share->waiting) {
    /* Waiting most of the time, and it waited since its last look: the same. */
    if (waits == G_MININT64)
      return SXS_WALL_ASK_WAITS;
    gboolean waited = waits < 0 || waits != a->waits_seen;
    a->waits_seen = waits;
    if (waited)
      return SXS_WALL_SKIP;
  }
  if (blocked)
    return SXS_WALL_DROP_BLOCKED;
  return SXS_WALL_SIGNAL;
}

guint sxs__sampler_sched_cursor(const pid_t *tids, guint n, pid_t cursor_tid) {
  guint at = 0;
  while (at < n && tids[at] < cursor_tid)
    at++;
  return at == n ? 0 : at;
}

gboolean sxs__sampler_sched_counter(gboolean *on_counter, guint64 cpu_ns, guint64 waits) {
  if (waits < SXS_SCHED_SLICE_LOOK && cpu_ns < (guint64)SXS_SCHED_SLICE_LOOK_CPU_NS)
    return FALSE;
  guint64 slice = cpu_ns / MAX(waits, 1);
  if (*on_counter && waits >= SXS_SCHED_SLICE_LOOK && slice < (guint64)SXS_SCHED_SLICE_TIMER_NS)
    *on_counter = FALSE;
  else if (!*on_counter && slice >= (guint64)SXS_SCHED_SLICE_COUNTER_NS)
    *on_counter = TRUE;
  return TRUE;
}
