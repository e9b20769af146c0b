/* sxs_bench_switch: what a per-thread perf_events counter or CPU-time timer costs a thread at its
 * context switches, without a runtime. Two threads bounce a byte over two pipes (each blocks in
 * read until the other writes: two blocks and two wakes a round trip); each thread has, as the
 * sampler would give it:
 *
 *   none      nothing
 *   counter   a task-clock counter sampling every period, its overflow a signal to the thread
 *             (F_SETOWN_EX, F_SETSIG, O_ASYNC: the perf engine's set-up)
 *   counting  a task-clock counter that only counts (no period: no timer of the kernel's)
 *   timer     a CPU-time timer every period (timer_create on the thread's CPU clock: the timer
 *             engine's set-up)
 *
 * Prints "<mode> <CPU µs a round trip> <wall µs a round trip>" (the process's user + system time
 * over the round trips). Exits 1 when a counter cannot be opened (perf_event_open refused).
 *
 * Usage: sxs_bench_switch none|counter|counting|timer ROUND_TRIPS [HZ]   (HZ: the period, 99 by default) */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef enum { MODE_NONE, MODE_COUNTER, MODE_COUNTING, MODE_TIMER } Mode;

static Mode mode;
static long round_trips;
static long frequency = 99;
static int to_peer[2], to_main[2];

static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)si;
  (void)uc;
}

/* Gives the calling thread what mode asks for; FALSE (with a message) when it cannot. */
static int arm_self(void) {
  pid_t tid = (pid_t)syscall(SYS_gettid);
  long period = 1000000000L / frequency;
  if (mode == MODE_COUNTER || mode == MODE_COUNTING) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = mode == MODE_COUNTER ? (unsigned long long)period : 0;
    attr.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &attr, (long)tid, -1L, -1L, 0UL);
    if (fd < 0) {
      attr.exclude_kernel = 1; /* perf_event_paranoid=2: the thread's user time only */
      fd = syscall(SYS_perf_event_open, &attr, (long)tid, -1L, -1L, 0UL);
    }
    if (fd < 0) {
      fprintf(stderr, "sxs_bench_switch: perf_event_open: %s\n", strerror(errno));
      return 0;
    }
    if (mode == MODE_COUNTER) {
      struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = tid};
      fcntl((int)fd, F_SETOWN_EX, &owner);
      fcntl((int)fd, F_SETSIG, SIGPROF);
      fcntl((int)fd, F_SETFL, fcntl((int)fd, F_GETFL) | O_ASYNC);
    }
  } else if (mode == MODE_TIMER) {
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev._sigev_un._tid = tid;
    clockid_t clock;
    timer_t timer;
    if (pthread_getcpuclockid(pthread_self(), &clock) != 0 || timer_create(clock, &sev, &timer) != 0) {
      fprintf(stderr, "sxs_bench_switch: timer_create: %s\n", strerror(errno));
      return 0;
    }
    struct itimerspec its = {.it_interval = {.tv_sec = 0, .tv_nsec = period},
                             .it_value = {.tv_sec = 0, .tv_nsec = period}};
    timer_settime(timer, 0, &its, NULL);
  }
  return 1;
}

static void *peer_main(void *arg) {
  (void)arg;
  if (!arm_self())
    exit(1);
  char byte;
  for (long i = 0; i < round_trips; i++) {
    if (read(to_peer[0], &byte, 1) != 1 || write(to_main[1], &byte, 1) != 1)
      exit(1);
  }
  return NULL;
}

static double seconds_of(const struct timeval *tv) {
  return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int main(int argc, char **argv) {
  const char *names[] = {"none", "counter", "counting", "timer"};
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: sxs_bench_switch none|counter|counting|timer ROUND_TRIPS [HZ]\n");
    return 2;
  }
  mode = (Mode)-1;
  for (int m = 0; m < 4; m++)
    if (strcmp(argv[1], names[m]) == 0)
      mode = (Mode)m;
  round_trips = strtol(argv[2], NULL, 10);
  if (argc == 4)
    frequency = strtol(argv[3], NULL, 10);
  if ((int)mode < 0 || round_trips <= 0 || frequency <= 0) {
    fprintf(stderr, "usage: sxs_bench_switch none|counter|counting|timer ROUND_TRIPS [HZ]\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  if (pipe(to_peer) != 0 || pipe(to_main) != 0)
    return 1;
  pthread_t peer;
  if (pthread_create(&peer, NULL, peer_main, NULL) != 0 || !arm_self())
    return 1;
  struct rusage r0, r1;
  struct timespec w0, w1;
  getrusage(RUSAGE_SELF, &r0);
  clock_gettime(CLOCK_MONOTONIC, &w0);
  char byte = 'x';
  for (long i = 0; i < round_trips; i++) {
    if (write(to_peer[1], &byte, 1) != 1 || read(to_main[0], &byte, 1) != 1)
      return 1;
  }
  pthread_join(peer, NULL);
  clock_gettime(CLOCK_MONOTONIC, &w1);
  getrusage(RUSAGE_SELF, &r1);
  double cpu =
      seconds_of(&r1.ru_utime) + seconds_of(&r1.ru_stime) - seconds_of(&r0.ru_utime) - seconds_of(&r0.ru_stime);
  double wall = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
  printf("%s %.3f %.3f\n", names[mode], cpu / (double)round_trips * 1e6, wall / (double)round_trips * 1e6);
  return 0;
}
