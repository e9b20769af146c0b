/* runsxs signal-chain repairs: exported sigaltstack()/sigaction() that let several CoreCLR PALs
 * share one process. Does not decide anything about runtimes beyond their signal handlers.
 *
 * Each runtime's PAL believes it owns the process. Left alone, the handlers form one chain,
 * latest first, and each PAL chains to the previous one only when the signal is not its own:
 *
 *   SIGSEGV:  rt2-jit -> rt2-coreclr -> rt1-jit -> rt1-coreclr     (nested C calls, on the
 *                                                                   thread's alternate stack)
 *   SIGRTMIN: rt2 --x rt1      rt2 drops rt1's activation signals (same process, foreign PC)
 *   SIGTERM:  rt2 --x rt1      rt2 starts its own shutdown and never chains
 *
 * The runsxs executable is linked -rdynamic and exports sigaltstack() and sigaction(), so every
 * runtime's imports (libcoreclr, libclrjit, libSystem.Native) bind here:
 *
 *   sigaltstack()  every thread runs on one large runsxs stack; each caller (a library, told
 *                  apart by its return address) sees only what it installed itself, so a PAL
 *                  that installed a buffer later gets exactly that buffer back to free.
 *   sigaction()    for SIGRTMIN, SIGTERM and SIGINT each caller's handler is recorded in its
 *                  own slot (install order) and never installed; the kernel only ever sees the
 *                  runsxs dispatcher, which offers the signal to every recorded handler:
 *
 *                      kernel --> dispatcher --> rt2-coreclr handler  (latest first)
 *                                          \--> rt2-System.Native handler
 *                                           \-> rt1-coreclr handler ...
 *
 *                  Each caller is told its previous handler was the one from before runsxs
 *                  (normally SIG_DFL), so no PAL ever chains back into the dispatcher. An
 *                  activation signal goes only to runtimes whose PAL has seen the thread.
 *                  All other signals pass straight through, chains intact.
 *
 * With repairs off (runsxs --no-signal-fixes) both exports call libc directly;
 * RUNSXS_SIGNAL_FIXES=altstack,activation,termination,faults selects repairs one by one. */
#include "runsxs_signals.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RUNSXS_EXPORT __attribute__((visibility("default")))

/* Alternate stack budget. A runtime's SIGSEGV handler that does not own the fault calls the
 * previous runtime's handler as a nested C call on the same alternate stack, so the stack must
 * hold one frame per handler layer: a .NET Core 2.0 runtime has two (libcoreclr and libclrjit
 * each carry a PAL), later versions one. ALTSTACK_LAYERS covers four 2.0 runtimes.
 * ALTSTACK_LAYER_BYTES is what one PAL handler frame may use before it switches to the thread's
 * own stack: a CONTEXT (about 1.2 KiB), a copy of the native context with its XSAVE area (up to
 * 3.3 KiB with AVX-512) and the call chain of the PAL's dispatch code; the deepest nesting
 * measured with three runtimes is given in docs/harness-signals.md and stays well inside this.
 * On top come ALTSTACK_KERNEL_FRAMES kernel signal frames, each the size the kernel reports in
 * AT_MINSIGSTKSZ (3.3 KiB on AVX-512 hardware): the fault itself plus signals that nest into a
 * running handler. The mapping is touched only as deep as a handler goes, so unused budget costs
 * address space, not memory. */
#define ALTSTACK_LAYERS 8
#define ALTSTACK_LAYER_BYTES (16 * 1024)
#define ALTSTACK_KERNEL_FRAMES 4
#define ALTSTACK_MIN_BYTES (64 * 1024)

/* The classic MINSIGSTKSZ: the smallest stack a caller may install (glibc's MINSIGSTKSZ is a
 * sysconf() call under _GNU_SOURCE). */
#define ALTSTACK_CALLER_MIN ((size_t)2048)

/* Per-thread views: how many distinct callers of sigaltstack() one thread can have (each
 * runtime's libcoreclr, 2.0's libclrjit, ...). */
#define ALTSTACK_VIEWS 16

/* Handler slots per routed signal, and the pool of immutable handler records they point to. */
#define ROUTE_SLOTS 32
#define ROUTE_RECORDS 512

/* What one caller of sigaltstack() installed on one thread. owner 0: free entry. */
typedef struct {
  uintptr_t owner;
  stack_t ss;
} AltstackView;

/* The calling thread's state. Owner: that thread; only it reads or writes. */
typedef struct {
  void *map; /* our mapping (guard page first), NULL when not installed by us */
  size_t map_size;
  gboolean foreign; /* the thread had an alternate stack of its own: calls pass through */
  AltstackView views[ALTSTACK_VIEWS];
  /* Every caller that ever asked about this thread's alternate stack: a PAL does so when it
   * first sees the thread, so these are the runtimes that can have a Thread on it. Appended in
   * normal context, read by the dispatcher on the same thread. */
  uintptr_t known[ALTSTACK_VIEWS];
  volatile sig_atomic_t nknown;
} AltstackThread;

static __thread AltstackThread altstack_thread;

/* One sigaction() call's handler, immutable once published. */
typedef struct {
  uintptr_t owner;
  struct sigaction act;
} RouteRecord;

/* One caller's current handler for one routed signal. */
typedef struct {
  uintptr_t owner;
  _Atomic(RouteRecord *) current;
} RouteSlot;

/* A routed signal: the kernel sees only the dispatcher; callers' handlers live in slots. */
typedef struct {
  int signo;
  struct sigaction original; /* what was installed before the dispatcher */
  RouteSlot slots[ROUTE_SLOTS];
  atomic_int nslots; /* published slots, in install order */
} Route;

/* Process-wide state. Written by runsxs_signals_setup() before any other thread exists, then
 * read-only, except: route slots and records, which writers change under route_lock with all
 * signals blocked and readers (the dispatcher) read lock-free through acquire loads. */
static atomic_bool altstack_enabled; /* repair 1 */
static atomic_bool routes_enabled;   /* repairs 2 and 3: at least one route */
static size_t altstack_size;         /* usable bytes, guard page excluded */
static size_t page_size;
static pthread_key_t altstack_key;
static gboolean debug_enabled;
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static Route routes[3];
static int nroutes;
static RouteRecord route_records[ROUTE_RECORDS];
static atomic_int route_nrecords;
static atomic_flag route_lock = ATOMIC_FLAG_INIT;
static _Atomic(void (*)(void)) termination_hook;

/* ---- small async-signal-safe output (debug only) ---- */

/* One line of debug output, built in place and written with one write(2) so that lines of
 * concurrent threads do not interleave. */
typedef struct {
  char buf[512];
  size_t len;
} DebugLine;

static void debug_str(DebugLine *l, const char *s) {
  while (*s && l->len < sizeof l->buf - 1)
    l->buf[l->len++] = *s++;
}

static void debug_num(DebugLine *l, uintptr_t v, unsigned base) {
  char tmp[24];
  int i = 0;
  do {
    tmp[i++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v && i < (int)sizeof tmp);
  if (base == 16)
    debug_str(l, "0x");
  while (i > 0 && l->len < sizeof l->buf - 1)
    l->buf[l->len++] = tmp[--i];
}

static void debug_flush(DebugLine *l) {
  debug_str(l, "\n");
  if (l->len < sizeof l->buf)
    l->buf[l->len] = '\0';
  ssize_t w = write(STDERR_FILENO, l->buf, l->len);
  (void)w;
  l->len = 0;
}

/* ---- callers ---- */

/* The load address of the library that contains `pc`: what tells the runtimes' PALs apart
 * (each runtime is its own copy of libcoreclr.so). 1 when unknown, never 0.
 * Context: any thread; takes the loader's lock, so not strictly async-signal-safe, but the
 * runtimes call sigaction()/sigaltstack() from handlers only while restoring a default. */
static uintptr_t caller_owner(const void *pc) {
  Dl_info info;
  if (dladdr(pc, &info) && info.dli_fbase)
    return (uintptr_t)info.dli_fbase;
  return 1;
}

static const char *owner_name(uintptr_t owner) {
  Dl_info info;
  if (owner > 1 && dladdr((void *)owner, &info) && info.dli_fname)
    return info.dli_fname;
  return "?";
}

static int resolve_real_sigaction(void) {
  if (real_sigaction)
    return 0;
  void *sym = dlsym(RTLD_NEXT, "sigaction");
  if (!sym)
    return -ENOSYS;
  real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))sym;
  return 0;
}

static long real_sigaltstack(const stack_t *ss, stack_t *old) {
  return syscall(SYS_sigaltstack, ss, old);
}

/* ---- alternate stacks ---- */

/* Installs our large alternate stack on the calling thread unless it already has one (ours or
 * somebody else's). Returns 0, or -errno when the thread must go on without (calls then pass
 * through to the kernel).
 * Context: the calling thread, normal context (runtimes call sigaltstack() at thread start). */
static int altstack_ensure(void) {
  AltstackThread *t = &altstack_thread;
  if (t->map)
    return 0;
  if (t->foreign)
    return -EEXIST;

  stack_t cur;
  if (real_sigaltstack(NULL, &cur) != 0)
    return -errno;
  if (!(cur.ss_flags & SS_DISABLE)) {
    t->foreign = TRUE;
    return -EEXIST;
  }

  size_t size = altstack_size + page_size;
  void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED)
    return -errno;
  if (mprotect(map, page_size, PROT_NONE) != 0) {
    int err = errno;
    munmap(map, size);
    return -err;
  }
  stack_t ss = {.ss_sp = (char *)map + page_size, .ss_size = altstack_size, .ss_flags = 0};
  if (real_sigaltstack(&ss, NULL) != 0) {
    int err = errno;
    munmap(map, size);
    return -err;
  }
  t->map = map;
  t->map_size = size;
  /* Any non-NULL value makes the key's destructor run at thread exit. */
  pthread_setspecific(altstack_key, map);
  return 0;
}

/* Bytes of our alternate stack the thread ever touched: fresh pages read as zero, so the lowest
 * non-zero byte marks the deepest point any handler reached. */
static size_t altstack_peak(const AltstackThread *t) {
  const unsigned char *lo = (const unsigned char *)t->map + page_size;
  const unsigned char *hi = lo + altstack_size;
  const unsigned char *p = lo;
  while (p < hi && *p == 0)
    p++;
  return (size_t)(hi - p);
}

static void altstack_report(const AltstackThread *t) {
  DebugLine l = {.len = 0};
  debug_str(&l, "runsxs-signals: thread ");
  debug_num(&l, (uintptr_t)syscall(SYS_gettid), 10);
  debug_str(&l, " alternate stack peak ");
  debug_num(&l, altstack_peak(t), 10);
  debug_str(&l, " bytes");
  debug_flush(&l);
}

/* Thread exit: takes our stack off the thread and unmaps it. Runtimes that installed a buffer
 * free it from their own thread-exit hooks, through sigaltstack(), which still answers from the
 * views afterwards. */
static void altstack_thread_exit(void *value) {
  (void)value;
  AltstackThread *t = &altstack_thread;
  if (!t->map)
    return;
  if (debug_enabled)
    altstack_report(t);
  stack_t cur;
  if (real_sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)t->map + page_size) {
    stack_t off = {.ss_sp = NULL, .ss_size = ALTSTACK_CALLER_MIN, .ss_flags = SS_DISABLE};
    if (real_sigaltstack(&off, NULL) != 0)
      return; /* still running on it: leak rather than unmap a live stack */
  }
  munmap(t->map, t->map_size);
  t->map = NULL;
}

static void altstack_main_exit(void) {
  if (altstack_thread.map)
    altstack_report(&altstack_thread);
}

static AltstackView *altstack_view(uintptr_t owner) {
  for (int i = 0; i < ALTSTACK_VIEWS; i++)
    if (altstack_thread.views[i].owner == owner)
      return &altstack_thread.views[i];
  return NULL;
}

/* Notes that `owner` knows the calling thread (see AltstackThread.known).
 * Context: the calling thread, normal context. */
static void thread_know(uintptr_t owner) {
  AltstackThread *t = &altstack_thread;
  int n = t->nknown;
  for (int i = 0; i < n; i++)
    if (t->known[i] == owner)
      return;
  if (n >= ALTSTACK_VIEWS)
    return;
  t->known[n] = owner;
  atomic_signal_fence(memory_order_release);
  t->nknown = n + 1;
}

/* Whether `owner` has seen the calling thread. Context: async-signal-safe. */
static gboolean thread_known_by(uintptr_t owner) {
  const AltstackThread *t = &altstack_thread;
  int n = t->nknown;
  atomic_signal_fence(memory_order_acquire);
  for (int i = 0; i < n; i++)
    if (t->known[i] == owner)
      return TRUE;
  return FALSE;
}

/* The exported sigaltstack(). With repairs, the kernel always has our large stack; each caller
 * sees the stack it installed itself (or none), so it decides to install exactly as if it were
 * alone and later frees its own buffer, never ours.
 * Context: any thread; async-signal-safe except for the caller lookup (see caller_owner). */
RUNSXS_EXPORT int sigaltstack(const stack_t *restrict ss, stack_t *restrict old) {
  if (atomic_load_explicit(&routes_enabled, memory_order_relaxed))
    thread_know(caller_owner(__builtin_return_address(0)));
  if (!atomic_load_explicit(&altstack_enabled, memory_order_relaxed))
    return (int)real_sigaltstack(ss, old);

  gboolean disabling = ss && (ss->ss_flags & SS_DISABLE);
  if (!disabling && altstack_ensure() != 0)
    return (int)real_sigaltstack(ss, old);
  uintptr_t owner = caller_owner(__builtin_return_address(0));
  AltstackView *view = altstack_view(owner);
  /* Without our stack (a thread with its own, or ours already gone at thread exit) only a
   * caller's own earlier install is answered here, so it still frees its own buffer. */
  if (altstack_thread.foreign || (!altstack_thread.map && !view))
    return (int)real_sigaltstack(ss, old);

  /* A thread running on its alternate stack may not change it (EPERM), and SS_ONSTACK tells a
   * caller that it runs on it; both follow the real stack, which every view stands for. */
  stack_t cur;
  if (real_sigaltstack(NULL, &cur) != 0)
    return -1;
  gboolean onstack = (cur.ss_flags & SS_ONSTACK) != 0;

  stack_t prev = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
  if (view) {
    prev = view->ss;
    if (onstack)
      prev.ss_flags |= SS_ONSTACK;
  }

  if (ss) {
    if (onstack) {
      errno = EPERM;
      return -1;
    }
    if (ss->ss_flags & ~SS_DISABLE) {
      errno = EINVAL;
      return -1;
    }
    if (disabling) {
      if (view)
        view->owner = 0;
    } else {
      if (ss->ss_size < ALTSTACK_CALLER_MIN) {
        errno = ENOMEM;
        return -1;
      }
      if (!view)
        view = altstack_view(0);
      if (!view) {
        errno = ENOMEM;
        return -1;
      }
      view->owner = owner;
      view->ss = *ss;
      view->ss.ss_flags = 0;
    }
  }
  if (old)
    *old = prev;
  return 0;
}

/* ---- routed signals ---- */

static Route *route_find(int signo) {
  for (int i = 0; i < nroutes; i++)
    if (routes[i].signo == signo)
      return &routes[i];
  return NULL;
}

static gboolean action_is_function(const struct sigaction *act) {
  if (act->sa_flags & SA_SIGINFO)
    return act->sa_sigaction != NULL && (void *)act->sa_sigaction != (void *)SIG_IGN &&
           (void *)act->sa_sigaction != (void *)SIG_DFL;
  return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

static void action_call(const struct sigaction *act, int signo, siginfo_t *info, void *uc) {
  if (act->sa_flags & SA_SIGINFO)
    act->sa_sigaction(signo, info, uc);
  else
    act->sa_handler(signo);
}

/* The handler the kernel sees for every routed signal. Offers the signal to every recorded
 * handler, latest first as the runtimes' own chain would: each runtime's activation handler
 * ignores a PC outside its own code, so exactly the right runtime acts on an activation signal.
 * When no handler is recorded, does what the original disposition would have done; a default
 * action is carried out by restoring SIG_DFL and raising the signal again (it is delivered when
 * this handler returns). Activation signals from this process are never fatal: one can still be
 * in flight after the last runtime removed its handler.
 * Context: signal handler; async-signal-safe, lock-free. */
static void route_dispatch(int signo, siginfo_t *info, void *uc) {
  int saved_errno = errno;
  Route *r = route_find(signo);
  if (!r) {
    errno = saved_errno;
    return;
  }
  gboolean called = FALSE, ignored = FALSE;
  /* An activation signal from this process is for a runtime that has a Thread on this thread,
   * and such a runtime's PAL has seen the thread. Skipping the others matters: a runtime's
   * handler reads its thread-local data, and the first read on a thread allocates it with
   * malloc(), which deadlocks when the signal interrupted malloc(). */
  gboolean own_activation = signo == SIGRTMIN && info && info->si_pid == getpid();
  if (signo == SIGTERM || signo == SIGINT) {
    void (*hook)(void) = atomic_load_explicit(&termination_hook, memory_order_acquire);
    if (hook)
      hook();
  }
  int n = atomic_load_explicit(&r->nslots, memory_order_acquire);
  for (int i = n - 1; i >= 0; i--) {
    RouteRecord *rec = atomic_load_explicit(&r->slots[i].current, memory_order_acquire);
    if (!rec)
      continue;
    if (own_activation && !thread_known_by(rec->owner))
      continue;
    if (action_is_function(&rec->act)) {
      action_call(&rec->act, signo, info, uc);
      called = TRUE;
    } else if (!(rec->act.sa_flags & SA_SIGINFO) && rec->act.sa_handler == SIG_IGN) {
      ignored = TRUE;
    }
  }
  if (!called && !ignored) {
    if (action_is_function(&r->original)) {
      action_call(&r->original, signo, info, uc);
    } else if (r->original.sa_handler == SIG_DFL) {
      if (!own_activation) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        real_sigaction(signo, &dfl, NULL);
        syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), signo);
      }
    }
  }
  errno = saved_errno;
}

/* (Re)installs the dispatcher for r, with the union of the recorded handlers' masks and their
 * SA_ONSTACK, so each handler runs with at least what it asked for. Called with route_lock held
 * and all signals blocked. */
static int route_install(Route *r) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_sigaction = route_dispatch;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&act.sa_mask);
  int n = atomic_load_explicit(&r->nslots, memory_order_relaxed);
  for (int i = 0; i < n; i++) {
    RouteRecord *rec = atomic_load_explicit(&r->slots[i].current, memory_order_relaxed);
    if (!rec || !action_is_function(&rec->act))
      continue;
    sigorset(&act.sa_mask, &act.sa_mask, &rec->act.sa_mask);
    act.sa_flags |= rec->act.sa_flags & SA_ONSTACK;
  }
  return real_sigaction(r->signo, &act, NULL);
}

static void route_lock_acquire(sigset_t *ret_saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, ret_saved);
  while (atomic_flag_test_and_set_explicit(&route_lock, memory_order_acquire))
    ;
}

static void route_lock_release(const sigset_t *saved) {
  atomic_flag_clear_explicit(&route_lock, memory_order_release);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void debug_record(const Route *r, int slot, const RouteRecord *rec) {
  DebugLine l = {.len = 0};
  debug_str(&l, "runsxs-signals: signal ");
  debug_num(&l, (uintptr_t)r->signo, 10);
  debug_str(&l, " slot ");
  debug_num(&l, (uintptr_t)slot, 10);
  debug_str(&l, " handler ");
  debug_num(&l, (uintptr_t)rec->act.sa_handler, 16);
  debug_str(&l, " from ");
  debug_str(&l, owner_name(rec->owner));
  debug_flush(&l);
}

/* sigaction() for a routed signal: records act in the caller's slot and reports the caller's
 * own previous handler, or the original one when it has none yet.
 * Context: any thread, also inside a handler (a PAL restoring SIG_DFL before resending). */
static int route_sigaction(Route *r, uintptr_t owner, const struct sigaction *act, struct sigaction *old) {
  sigset_t saved;
  int rc = 0;
  route_lock_acquire(&saved);

  int n = atomic_load_explicit(&r->nslots, memory_order_relaxed);
  RouteSlot *slot = NULL;
  int index = -1;
  for (int i = 0; i < n; i++) {
    if (r->slots[i].owner == owner) {
      slot = &r->slots[i];
      index = i;
      break;
    }
  }
  struct sigaction prev = r->original;
  if (slot) {
    RouteRecord *cur = atomic_load_explicit(&slot->current, memory_order_relaxed);
    if (cur)
      prev = cur->act;
  }

  if (act) {
    int k = atomic_load_explicit(&route_nrecords, memory_order_relaxed);
    if (k >= ROUTE_RECORDS || (!slot && n >= ROUTE_SLOTS)) {
      rc = -EAGAIN;
      goto out;
    }
    RouteRecord *rec = &route_records[k];
    rec->owner = owner;
    rec->act = *act;
    atomic_store_explicit(&route_nrecords, k + 1, memory_order_relaxed);
    if (!slot) {
      index = n;
      slot = &r->slots[n];
      slot->owner = owner;
      atomic_store_explicit(&slot->current, rec, memory_order_release);
      atomic_store_explicit(&r->nslots, n + 1, memory_order_release);
    } else {
      atomic_store_explicit(&slot->current, rec, memory_order_release);
    }
    if (route_install(r) != 0)
      rc = -errno;
    if (debug_enabled)
      debug_record(r, index, rec);
  }
out:
  route_lock_release(&saved);
  if (rc < 0) {
    errno = -rc;
    return -1;
  }
  if (old)
    *old = prev;
  return 0;
}

/* ---- fault-signal chains (repair 4) ----
 *
 * Each runtime's PAL installs handlers for the hardware-fault signals and, when its runtime ends
 * (at exit, while other runtimes still run), puts back the handler it found. A runtime that
 * started first found SIG_DFL; if it ends while a later runtime is still running, it resets the
 * process-wide handler to SIG_DFL under the later runtime's feet, and that runtime's next
 * NullReferenceException or divide-by-zero kills the process. So runsxs keeps the installers of
 * each fault signal as a stack: only the library on top of it changes what the kernel sees; a
 * library lower down that changes its handler (its teardown) changes only its own layer, which
 * the layers above still chain to. */

#define FAULT_LAYERS 16

typedef struct {
  uintptr_t owner;
  struct sigaction act;
} FaultLayer;

typedef struct {
  int signo;
  int depth;
  FaultLayer layers[FAULT_LAYERS];
} FaultChain;

static FaultChain fault_chains[] = {
    {.signo = SIGSEGV}, {.signo = SIGFPE}, {.signo = SIGILL}, {.signo = SIGBUS}, {.signo = SIGTRAP}, {.signo = SIGQUIT},
};
static atomic_bool faults_enabled; /* repair 4 */
static atomic_flag fault_lock = ATOMIC_FLAG_INIT;

static FaultChain *fault_find(int signo) {
  for (size_t i = 0; i < G_N_ELEMENTS(fault_chains); i++)
    if (fault_chains[i].signo == signo)
      return &fault_chains[i];
  return NULL;
}

static gboolean same_handler(const struct sigaction *a, const struct sigaction *b) {
  return (void *)a->sa_handler == (void *)b->sa_handler;
}

/* sigaction() that sets (act non-NULL) a fault signal's handler with the repair on.
 * Context: any thread; signals blocked while the chain is changed; never from a handler on the
 * fault path. */
static int fault_sigaction(FaultChain *c, uintptr_t owner, const struct sigaction *act, struct sigaction *old) {
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &saved);
  while (atomic_flag_test_and_set_explicit(&fault_lock, memory_order_acquire))
    ;
  int mine = -1;
  for (int i = 0; i < c->depth; i++)
    if (c->layers[i].owner == owner)
      mine = i;
  int rc = 0;
  if (mine >= 0 && mine < c->depth - 1) {
    /* Covered by a later runtime's handler: the kernel's handler stays; this layer changes. */
    if (old)
      *old = c->layers[mine].act;
    c->layers[mine].act = *act;
  } else {
    struct sigaction prev;
    rc = real_sigaction(c->signo, act, &prev);
    if (rc == 0) {
      if (old)
        *old = prev;
      if (mine > 0 && same_handler(act, &c->layers[mine - 1].act))
        c->depth--; /* the top put back the handler below it */
      else if (mine >= 0)
        c->layers[mine].act = *act;
      else if (c->depth < FAULT_LAYERS)
        c->layers[c->depth++] = (FaultLayer){.owner = owner, .act = *act};
    }
  }
  atomic_flag_clear_explicit(&fault_lock, memory_order_release);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  return rc;
}

/* The exported sigaction(). Routed signals (SIGRTMIN, SIGTERM, SIGINT) go to their slots and
 * fault signals through their chains when those repairs are on; everything else reaches libc
 * unchanged.
 * Context: any thread; see route_sigaction. */
RUNSXS_EXPORT int sigaction(int signo, const struct sigaction *restrict act, struct sigaction *restrict old) {
  if (!real_sigaction && resolve_real_sigaction() != 0) {
    errno = ENOSYS;
    return -1;
  }
  if (atomic_load_explicit(&routes_enabled, memory_order_acquire)) {
    Route *r = route_find(signo);
    if (r)
      return route_sigaction(r, caller_owner(__builtin_return_address(0)), act, old);
  }
  if (act && atomic_load_explicit(&faults_enabled, memory_order_acquire)) {
    FaultChain *c = fault_find(signo);
    if (c)
      return fault_sigaction(c, caller_owner(__builtin_return_address(0)), act, old);
  }
  return real_sigaction(signo, act, old);
}

/* ---- API ---- */

static size_t compute_altstack_size(void) {
  size_t frame = (size_t)getauxval(AT_MINSIGSTKSZ);
  if (frame < ALTSTACK_CALLER_MIN)
    frame = ALTSTACK_CALLER_MIN;
  size_t size = ALTSTACK_LAYERS * (size_t)ALTSTACK_LAYER_BYTES + ALTSTACK_KERNEL_FRAMES * frame;
  if (size < ALTSTACK_MIN_BYTES)
    size = ALTSTACK_MIN_BYTES;
  return (size + page_size - 1) / page_size * page_size;
}

/* Which repairs RUNSXS_SIGNAL_FIXES selects: a comma-separated subset of "altstack",
 * "activation", "termination" and "faults" (unset: all four), so each fault can be shown on its
 * own. */
static void parse_fix_selection(gboolean *ret_altstack, gboolean *ret_activation, gboolean *ret_termination,
                                gboolean *ret_faults) {
  const char *sel = getenv("RUNSXS_SIGNAL_FIXES");
  if (!sel) {
    *ret_altstack = *ret_activation = *ret_termination = *ret_faults = TRUE;
    return;
  }
  g_auto(GStrv) parts = g_strsplit(sel, ",", -1);
  *ret_altstack = *ret_activation = *ret_termination = *ret_faults = FALSE;
  for (char **p = parts; *p; p++) {
    const char *w = g_strstrip(*p);
    if (strcmp(w, "altstack") == 0)
      *ret_altstack = TRUE;
    else if (strcmp(w, "activation") == 0)
      *ret_activation = TRUE;
    else if (strcmp(w, "termination") == 0)
      *ret_termination = TRUE;
    else if (strcmp(w, "faults") == 0)
      *ret_faults = TRUE;
    else if (*w)
      g_printerr("runsxs: RUNSXS_SIGNAL_FIXES: unknown repair '%s' (known: altstack, "
                 "activation, termination, faults)\n",
                 w);
  }
}

int runsxs_signals_setup(gboolean enable_fixes) {
  int rc = resolve_real_sigaction();
  if (rc < 0)
    return rc;
  if (!enable_fixes)
    return 0;

  gboolean fix_altstack, fix_activation, fix_termination, fix_faults;
  parse_fix_selection(&fix_altstack, &fix_activation, &fix_termination, &fix_faults);
  atomic_store_explicit(&faults_enabled, fix_faults, memory_order_release);
  const char *dbg = getenv("RUNSXS_SIGNALS_DEBUG");
  debug_enabled = dbg && *dbg && strcmp(dbg, "0") != 0;

  if (fix_altstack) {
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    altstack_size = compute_altstack_size();
    rc = pthread_key_create(&altstack_key, altstack_thread_exit);
    if (rc != 0)
      return -rc;
    atomic_store_explicit(&altstack_enabled, TRUE, memory_order_release);
    runsxs_signals_thread_start();
    if (debug_enabled) {
      DebugLine l = {.len = 0};
      debug_str(&l, "runsxs-signals: alternate stack ");
      debug_num(&l, altstack_size, 10);
      debug_str(&l, " bytes per thread");
      debug_flush(&l);
      atexit(altstack_main_exit);
    }
  }

  int routed[3];
  int nrouted = 0;
  if (fix_activation)
    routed[nrouted++] = SIGRTMIN;
  if (fix_termination) {
    routed[nrouted++] = SIGTERM;
    routed[nrouted++] = SIGINT;
  }
  for (int i = 0; i < nrouted; i++) {
    Route *r = &routes[nroutes];
    r->signo = routed[i];
    if (real_sigaction(r->signo, NULL, &r->original) != 0)
      return -errno;
    nroutes++;
  }
  if (nroutes == 0)
    return 0;
  /* Publish before the dispatcher can run: a routed signal that arrives from here on finds its
   * route and, with no slots yet, the original disposition. */
  atomic_store_explicit(&routes_enabled, TRUE, memory_order_release);
  for (int i = 0; i < nroutes; i++) {
    sigset_t saved;
    route_lock_acquire(&saved);
    int err = route_install(&routes[i]) != 0 ? -errno : 0;
    route_lock_release(&saved);
    if (err < 0)
      return err;
  }
  return 0;
}

void runsxs_signals_thread_start(void) {
  if (!atomic_load_explicit(&altstack_enabled, memory_order_acquire))
    return;
  altstack_ensure();
}

void runsxs_signals_runtime_loaded(int index, const char *coreclr_path) {
  Route *r = route_find(SIGRTMIN);
  if (!atomic_load_explicit(&routes_enabled, memory_order_acquire) || !r || !coreclr_path)
    return;
  void *handle = dlopen(coreclr_path, RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return;
  void *sym = dlsym(handle, "coreclr_initialize");
  dlclose(handle);
  if (!sym)
    return;
  uintptr_t owner = caller_owner(sym);
  gboolean found = FALSE;
  int n = atomic_load_explicit(&r->nslots, memory_order_acquire);
  for (int i = 0; i < n; i++)
    if (r->slots[i].owner == owner)
      found = TRUE;
  if (!found)
    g_printerr("runsxs: warning: runtime %d (%s) installed no activation handler through runsxs; "
               "its GC may hang while other runtimes run\n",
               index, coreclr_path);
  else if (debug_enabled)
    g_printerr("runsxs-signals: runtime %d activation handler captured (%s)\n", index, coreclr_path);
}

gsize runsxs_signals_altstack_size(void) {
  return atomic_load_explicit(&altstack_enabled, memory_order_acquire) ? altstack_size : 0;
}

void runsxs_signals_set_termination_hook(void (*hook)(void)) {
  atomic_store_explicit(&termination_hook, hook, memory_order_release);
}
