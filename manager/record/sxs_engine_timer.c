/* sxs_engine_timer: the sampler's CPU-time timer engine (mode=cpu): one POSIX timer per thread on
 * that thread's CPU-time clock (timer_create, SIGEV_THREAD_ID), firing every period of the CPU
 * time it uses, its signal carrying the thread's slot. The kernel checks such timers at its
 * scheduler tick only (250 Hz on many kernels), so above that rate one expiry stands for several
 * periods (si_overrun, which the handler counts). It runs where perf_events is refused. */
#include "sxs_sampler_internal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static int timer_start(SxsSamplingEvent event, int frequency, guint64 *ret_period, char **ret_why) {
  if (event != SXS_EVENT_CPU_TIME) {
    *ret_why = g_strdup_printf("%s: the CPU-time timers count only CPU time", sxs__config_event_name(event));
    return -ENOTSUP;
  }
  *ret_period = G_GUINT64_CONSTANT(1000000000) / (guint64)MAX(frequency, 1);
  return 0;
}

static int timer_add_thread(SampledThread *t, ThreadSlot *ts, SxsSamplingEvent event, guint64 period) {
  (void)event;
  t->cpu_at_arm = sxs__sampler_thread_cpu_ns(t->tid);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SXS_SAMPLER_SIGNAL;
  sev.sigev_value.sival_ptr = ts;
  sev._sigev_un._tid = t->tid;
  if (timer_create(sxs__sampler_thread_cpu_clock(t->tid), &sev, &t->timer) != 0)
    return -errno;
  struct itimerspec its = {
      .it_interval = {.tv_sec = (time_t)(period / 1000000000), .tv_nsec = (long)(period % 1000000000)}};
  its.it_value = its.it_interval;
  timer_settime(t->timer, 0, &its, NULL);
  t->timer_deleted = FALSE;
  return 0;
}

/* The thread's CPU clock is read only at the end (a system call per thread). */
static guint64 timer_counted(SampledThread *t, gboolean last) {
  if (!last || t->cpu_at_arm < 0)
    return 0;
  gint64 now = sxs__sampler_thread_cpu_ns(t->tid);
  return now >= t->cpu_at_arm ? (guint64)(now - t->cpu_at_arm) : 0;
}

static void timer_stop_thread(SampledThread *t) {
  if (!t->timer_deleted)
    timer_delete(t->timer);
  t->timer_deleted = TRUE;
}

const SxsSamplerEngine sxs__engine_timer_ops = {
    .kind = SXS_ENGINE_TIMER,
    .start = timer_start,
    .add_thread = timer_add_thread,
    .counted = timer_counted,
    .stop_thread = timer_stop_thread,
    .remove_thread = timer_stop_thread, /* the timer is the whole of it */
};
