/* sxs_engine_perf: per-thread perf_events counters that raise the sampler's signal on their thread.
 *
 *   sampler thread                                   thread tid (running)
 *   perf_event_open(task clock | hw event, tid) -> fd
 *   fcntl(fd, F_SETOWN_EX, {F_OWNER_TID, tid})
 *   fcntl(fd, F_SETSIG, SIGPROF), O_ASYNC
 *   ioctl(fd, ENABLE)
 *                                                    every period of its CPU time (a high-resolution
 *                                                    timer of the kernel's, not its scheduler tick),
 *                                                    or every period events: an overflow, SIGPROF
 *                                                    with si_code POLL_IN and si_fd = fd, on tid
 *                                                    itself; the handler reads fd's count (the
 *                                                    periods since its last sample: its weight)
 *
 * A CPU-time timer (timer_create on a thread's CPU clock) is checked only at the scheduler's tick
 * (250 Hz on many kernels), so above that rate each signal stands for several periods; the task
 * clock's overflow comes when the period ends. Does not decide which threads are counted, nor walk
 * anything: sxs_sampler_cpu.c arms and disarms threads through sxs__engine_perf_ops (at the end). */
#include "sxs_engine_perf.h"

#include "sxs_sampler_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A hardware event's nominal rate on a busy thread (events per second), from which its period is
 * taken: cycles and instructions of a core near 1 GHz, a cache or branch miss every thousand. */
#define ENGINE_PERF_NOMINAL_RATE G_GUINT64_CONSTANT(1000000000)
#define ENGINE_PERF_NOMINAL_MISS_RATE G_GUINT64_CONSTANT(1000000)

static gboolean event_is_hardware(SxsSamplingEvent event) {
  return event != SXS_EVENT_CPU_TIME;
}

static void event_attr(struct perf_event_attr *attr, SxsSamplingEvent event, guint64 period, gboolean exclude_kernel) {
  memset(attr, 0, sizeof *attr);
  attr->size = sizeof *attr;
  if (event_is_hardware(event)) {
    attr->type = PERF_TYPE_HARDWARE;
    attr->config = event == SXS_EVENT_CYCLES         ? PERF_COUNT_HW_CPU_CYCLES
                   : event == SXS_EVENT_INSTRUCTIONS ? PERF_COUNT_HW_INSTRUCTIONS
                   : event == SXS_EVENT_CACHE_MISSES ? PERF_COUNT_HW_CACHE_MISSES
                                                     : PERF_COUNT_HW_BRANCH_MISSES;
  } else {
    attr->type = PERF_TYPE_SOFTWARE;
    attr->config = PERF_COUNT_SW_TASK_CLOCK;
  }
  attr->sample_period = period;
  attr->disabled = 1;
  attr->exclude_kernel = exclude_kernel ? 1 : 0;
  attr->exclude_hv = 1;
}

static int event_open(const struct perf_event_attr *attr, pid_t tid) {
  long fd = syscall(SYS_perf_event_open, attr, (long)tid, -1L, -1L, (unsigned long)PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : (int)fd;
}

/* Opens a counter with the kernel's time counted, or without it where only that is refused
 * (perf_event_paranoid=2 for an unprivileged process). */
static int event_open_any(SxsSamplingEvent event, guint64 period, pid_t tid) {
  struct perf_event_attr attr;
  event_attr(&attr, event, period, FALSE);
  int fd = event_open(&attr, tid);
  if (fd == -EACCES || fd == -EPERM) {
    event_attr(&attr, event, period, TRUE);
    int again = event_open(&attr, tid);
    if (again >= 0)
      return again;
  }
  return fd;
}

guint64 sxs__engine_perf_period(SxsSamplingEvent event, int frequency) {
  guint64 hz = frequency > 0 ? (guint64)frequency : 1;
  switch (event) {
  case SXS_EVENT_CPU_TIME: return MAX(G_GUINT64_CONSTANT(1000000000) / hz, 1);
  case SXS_EVENT_CYCLES:
  case SXS_EVENT_INSTRUCTIONS: return MAX(ENGINE_PERF_NOMINAL_RATE / hz, 1);
  case SXS_EVENT_CACHE_MISSES:
  case SXS_EVENT_BRANCH_MISSES:
  default: return MAX(ENGINE_PERF_NOMINAL_MISS_RATE / hz, 1);
  }
}

const char *sxs__engine_perf_unit(SxsSamplingEvent event) {
  return event_is_hardware(event) ? "count" : "nanoseconds";
}

/* kernel.perf_event_paranoid, or G_MININT when it cannot be read. */
static int paranoid_level(void) {
  g_autofree char *text = NULL;
  if (!g_file_get_contents("/proc/sys/kernel/perf_event_paranoid", &text, NULL, NULL))
    return G_MININT;
  return (int)g_ascii_strtoll(text, NULL, 10);
}

int sxs__engine_perf_probe(SxsSamplingEvent event, char **ret_why) {
  *ret_why = NULL;
  pid_t self = (pid_t)syscall(SYS_gettid);
  int fd = event_open_any(event, sxs__engine_perf_period(event, SXS_SAMPLING_FREQUENCY_DEFAULT), self);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  int e = -fd;
  const char *name = e == EACCES       ? "EACCES"
                     : e == EPERM      ? "EPERM"
                     : e == ENOENT     ? "ENOENT"
                     : e == ENOSYS     ? "ENOSYS"
                     : e == EOPNOTSUPP ? "EOPNOTSUPP"
                     : e == ENODEV     ? "ENODEV"
                     : e == EINVAL     ? "EINVAL"
                                       : NULL;
  g_autofree char *code = name ? g_strdup(name) : g_strdup_printf("errno %d", e);
  int paranoid = paranoid_level();
  g_autofree char *level = paranoid == G_MININT ? g_strdup("unknown") : g_strdup_printf("%d", paranoid);
  if (event_is_hardware(event) && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV))
    *ret_why = g_strdup_printf("event=%s: no hardware counter for it (perf_event_open: %s, %s): the processor "
                               "exposes no PMU here (a virtual machine often does not)",
                               sxs__config_event_name(event), code, g_strerror(e));
  else if (e == EACCES || e == EPERM)
    *ret_why = g_strdup_printf("perf_event_open: %s (%s; perf_event_paranoid=%s)", code, g_strerror(e), level);
  else if (e == ENOSYS)
    *ret_why = g_strdup_printf("perf_event_open: %s (%s: the kernel has no perf events)", code, g_strerror(e));
  else
    *ret_why = g_strdup_printf("perf_event_open: %s (%s)", code, g_strerror(e));
  return fd;
}

int sxs__engine_perf_open(pid_t tid, SxsSamplingEvent event, guint64 period, int signo) {
  int fd = event_open_any(event, period, tid);
  if (fd < 0)
    return fd;
  struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = tid};
  int flags = fcntl(fd, F_GETFL);
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, signo) != 0 || flags < 0 ||
      fcntl(fd, F_SETFL, flags | O_ASYNC) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    int e = errno;
    close(fd);
    return -e;
  }
  return fd;
}

int sxs__engine_perf_read(int fd, guint64 *ret_count) {
  guint64 v;
  if (read(fd, &v, sizeof v) != (ssize_t)sizeof v)
    return -EIO;
  *ret_count = v;
  return 0;
}

int sxs__engine_perf_set_period(int fd, guint64 period) {
  guint64 v = period;
  return ioctl(fd, PERF_EVENT_IOC_PERIOD, &v) == 0 ? 0 : -errno;
}

void sxs__engine_perf_close(int fd) {
  if (fd < 0)
    return;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  close(fd);
}

/* ---- the engine's side of the sampler (SxsSamplerEngine) ---- */

static int perf_start(SxsSamplingEvent event, int frequency, guint64 *ret_period, char **ret_why) {
  int r = sxs__engine_perf_probe(event, ret_why);
  if (r != 0)
    return r;
  *ret_period = sxs__engine_perf_period(event, frequency);
  return 0;
}

/* The counter starts counting (and may overflow) before its fd is known to the slot: an overflow
 * that finds no slot yet is not captured, and counts with the thread's next sample. */
static int perf_add_thread(SampledThread *t, ThreadSlot *ts, SxsSamplingEvent event, guint64 period) {
  int fd = sxs__engine_perf_open(t->tid, event, period, SXS_SAMPLER_SIGNAL);
  if (fd < 0)
    return fd;
  __atomic_store_n(&ts->fd, fd, __ATOMIC_RELEASE);
  if (fd < SAMPLER_PERF_FDS)
    __atomic_store_n(&sxs__sampler_hot.perf_fd_slot[fd], (guint16)(ts - sxs__sampler_hot.pool + 1), __ATOMIC_RELEASE);
  t->perf_fd = fd;
  return 0;
}

/* Read at the end; meanwhile what the handlers read of the counter at each overflow. */
static guint64 perf_counted(SampledThread *t, gboolean last) {
  guint64 count = 0;
  if (!last || sxs__engine_perf_read(t->perf_fd, &count) != 0)
    count = __atomic_load_n(&t->tslot->count, __ATOMIC_ACQUIRE);
  return count;
}

static void perf_stop_thread(SampledThread *t) {
  ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
}

static void perf_remove_thread(SampledThread *t) {
  int fd = t->perf_fd;
  sxs__engine_perf_close(fd);
  if (fd < SAMPLER_PERF_FDS)
    __atomic_store_n(&sxs__sampler_hot.perf_fd_slot[fd], 0, __ATOMIC_RELEASE);
  __atomic_store_n(&t->tslot->fd, -1, __ATOMIC_RELEASE);
  t->perf_fd = -1;
}

const SxsSamplerEngine sxs__engine_perf_ops = {
    .kind = SXS_ENGINE_PERF,
    .start = perf_start,
    .add_thread = perf_add_thread,
    .counted = perf_counted,
    .stop_thread = perf_stop_thread,
    .remove_thread = perf_remove_thread,
};
