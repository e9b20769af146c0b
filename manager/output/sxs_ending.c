/* sxs_ending: the handlers of the signals that end a process (see sxs_ending.h).
 *
 * Runs in signal handlers: no allocation, no lock, no stdio; only write, poll, sigaction, getpid,
 * gettid and tgkill, and the handler it replaced. Everything a handler reads is written before the
 * handlers are installed. */
#include "sxs_ending.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT};
#define N_ENDING G_N_ELEMENTS(ending_signals)

static struct {
  gsize installed;                     /* g_once_init_enter guard */
  pid_t pid;                           /* the process the handlers answer for */
  int wake[2];                         /* handler -> output thread */
  int done[2];                         /* output thread -> handlers; readable for good once written */
  struct sigaction replaced[N_ENDING]; /* what each handler replaced */
  int signal;                          /* the first ending signal (atomic) */
  int listening;                       /* the output thread runs (atomic) */
  pid_t listener;                      /* its thread id: a signal on it waits for nobody (atomic) */
} ending = {.wake = {-1, -1}, .done = {-1, -1}};

static int index_of(int sig) {
  for (guint i = 0; i < N_ENDING; i++)
    if (ending_signals[i] == sig)
      return (int)i;
  return -1;
}

/* Waits until the output thread said it is done, at most SXS_ENDING_WAIT_MS from now.
 * Context: signal handler; async-signal-safe. */
static void wait_done(void) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (long)(now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (elapsed >= SXS_ENDING_WAIT_MS)
      return;
    struct pollfd p = {.fd = ending.done[0], .events = POLLIN};
    int r = poll(&p, 1, (int)(SXS_ENDING_WAIT_MS - elapsed));
    if (r > 0 || (r < 0 && errno != EINTR))
      return;
  }
}

/* Carries out what the replaced handler would have: calls it, or for the default action restores
 * it and raises the signal on this thread again (delivered once this handler returns, since the
 * signal is blocked while it runs). Context: signal handler; async-signal-safe. */
static void chain(int i, int sig, siginfo_t *info, void *uc) {
  const struct sigaction *prev = &ending.replaced[i];
  if (prev->sa_flags & SA_SIGINFO) {
    if ((void *)prev->sa_sigaction != (void *)SIG_DFL && (void *)prev->sa_sigaction != (void *)SIG_IGN) {
      prev->sa_sigaction(sig, info, uc);
      return;
    }
  } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
    prev->sa_handler(sig);
    return;
  }
  if (prev->sa_handler == SIG_IGN)
    return;
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

/* The handler: the data first, then what the signal would have done. Every thread that takes an
 * ending signal waits for the same write (the done pipe stays readable). Context: signal handler;
 * async-signal-safe. */
static void on_ending_signal(int sig, siginfo_t *info, void *uc) {
  int saved = errno;
  int i = index_of(sig);
  if (i < 0) {
    errno = saved;
    return;
  }
  /* The output thread itself (an abort() in it) cannot answer itself. */
  if (getpid() == ending.pid && __atomic_load_n(&ending.listening, __ATOMIC_ACQUIRE) &&
      (pid_t)syscall(SYS_gettid) != __atomic_load_n(&ending.listener, __ATOMIC_ACQUIRE)) {
    int none = 0;
    __atomic_compare_exchange_n(&ending.signal, &none, sig, FALSE, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    char byte = 'e';
    ssize_t w = write(ending.wake[1], &byte, 1);
    (void)w; /* a full pipe already wakes the thread */
    wait_done();
  }
  chain(i, sig, info, uc);
  errno = saved;
}

void sxs__ending_install(void) {
  if (!g_once_init_enter(&ending.installed))
    return;
  ending.pid = getpid();
  if (pipe2(ending.wake, O_CLOEXEC | O_NONBLOCK) != 0 || pipe2(ending.done, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_once_init_leave(&ending.installed, 1);
    return;
  }
  sigset_t mask;
  sigemptyset(&mask);
  for (guint i = 0; i < N_ENDING; i++)
    sigaddset(&mask, ending_signals[i]);
  for (guint i = 0; i < N_ENDING; i++) {
    struct sigaction prev;
    if (sigaction(ending_signals[i], NULL, &prev) != 0)
      continue;
    /* A signal the process ignores does not end it: nothing to do for it. */
    if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN)
      continue;
    ending.replaced[i] = prev;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_ending_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | (prev.sa_flags & SA_ONSTACK);
    sa.sa_mask = mask;
    sigorset(&sa.sa_mask, &sa.sa_mask, &prev.sa_mask);
    /* What the handler reads is in place before it can run. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    sigaction(ending_signals[i], &sa, NULL);
  }
  g_once_init_leave(&ending.installed, 1);
}

int sxs__ending_wake_fd(void) {
  return ending.wake[0];
}

void sxs__ending_drain(void) {
  char buf[64];
  while (ending.wake[0] >= 0 && read(ending.wake[0], buf, sizeof buf) > 0)
    ;
}

void sxs__ending_wake(void) {
  if (ending.wake[1] < 0)
    return;
  char byte = 'w';
  ssize_t w = write(ending.wake[1], &byte, 1);
  (void)w;
}

int sxs__ending_signal(void) {
  return __atomic_load_n(&ending.signal, __ATOMIC_ACQUIRE);
}

void sxs__ending_done(void) {
  char byte = 'd';
  if (ending.done[1] >= 0) {
    ssize_t w = write(ending.done[1], &byte, 1);
    (void)w;
  }
}

void sxs__ending_set_listening(gboolean listening) {
  __atomic_store_n(&ending.listener, listening ? (pid_t)syscall(SYS_gettid) : 0, __ATOMIC_RELEASE);
  __atomic_store_n(&ending.listening, listening ? 1 : 0, __ATOMIC_RELEASE);
}
