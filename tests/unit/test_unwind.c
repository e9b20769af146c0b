/* Unit tests of the native stack walkers (stitch/sxs_unwind.c): frame pointers, libunwind and the hybrid walk over
 * a known chain of six functions, from the chain itself and from a signal raised in it; frame-pointer code without
 * unwind tables (a stub written at run time, as a JIT would); corrupt frame pointers on a stack fenced by
 * inaccessible pages; max edge cases; stack bounds; and a benchmark of the walkers (reported, not asserted). */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <glib.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "sxs_modmap.h"
#include "sxs_stitch.h"
#include "sxs_prologue.h"
#include "sxs_unwind.h"

/* Functions whose frames the tests look for: never inlined, cloned or turned into tail calls. */
#define TEST_NOINLINE __attribute__((noinline, noclone))
/* A generous upper bound on the size of every function above (larger under ASan). */
#define FUNC_SIZE_MAX 4096
#define MAX_FRAMES 128
#define CHAIN_LEN 6

/* The walks one probe takes. */
typedef enum {
  WALK_FP,           /* sxs__unwind_fp from the captured or interrupted registers */
  WALK_LIBUNWIND,    /* sxs__unwind_libunwind: from the chain, NULL; from a signal, the ucontext */
  WALK_HYBRID,       /* sxs__unwind_hybrid, with the stub classifier when there is a stub */
  WALK_HYBRID_PLAIN, /* sxs__unwind_hybrid without a classifier */
  WALK_HANDLER,      /* from a signal handler, sxs__unwind_libunwind(NULL): through the signal frame */
  WALK_COUNT
} WalkKind;

typedef struct {
  int n;
  SxsNativeFrame frames[MAX_FRAMES];
} Walk;

typedef enum {
  PROBE_WALK,             /* the innermost function walks its own stack */
  PROBE_SIGNAL,           /* it sends itself SIGUSR1 with a syscall instruction of its own; the handler walks */
  PROBE_RAISE,            /* it calls raise(SIGUSR1): the signal arrives inside libc; the handler walks */
  PROBE_BLOCK,            /* it blocks in read() on an empty pipe, for another thread to walk it from outside */
  PROBE_BLOCK_IN_HANDLER, /* it sends itself SIGUSR2 with a syscall instruction; the handler blocks in read() */
} ProbeAction;

/* A stub of frame-pointer machine code without unwind tables, written at run time: it calls fn(arg). */
typedef int (*StubFunc)(int (*fn)(void *), void *arg);
typedef struct {
  uint8_t *code;
  size_t len;
  StubFunc call;
} Stub;

typedef struct {
  ProbeAction action;
  int pipe_read; /* PROBE_BLOCK: the pipe it reads */
  uintptr_t lo, hi;
  const Stub *stub;
  SxsRegs regs; /* where the walks start: captured, or from the ucontext */
  Walk walk[WALK_COUNT];
} Probe;

static Probe *probe_new(ProbeAction action) {
  Probe *p = g_new0(Probe, 1);
  p->action = action;
  g_assert_cmpint(sxs__unwind_stack_bounds(&p->lo, &p->hi), ==, 0);
  for (int w = 0; w < WALK_COUNT; w++)
    p->walk[w].n = -1000;
  return p;
}

static bool is_stub_code(uintptr_t ip, void *user_data, const SxsEhFrame **ret_eh) {
  (void)ret_eh;
  const Stub *stub = user_data;
  return ip >= (uintptr_t)stub->code && ip < (uintptr_t)stub->code + stub->len;
}

/* ---- the signal handler ---- */

static Probe *signal_probe;

static void on_probe_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  Probe *p = signal_probe;
  sxs__regs_from_ucontext(&p->regs, uc);
  p->walk[WALK_FP].n = sxs__unwind_fp(&p->regs, p->lo, p->hi, p->walk[WALK_FP].frames, MAX_FRAMES);
  p->walk[WALK_LIBUNWIND].n = sxs__unwind_libunwind(uc, p->walk[WALK_LIBUNWIND].frames, MAX_FRAMES);
  p->walk[WALK_HYBRID].n = sxs__unwind_hybrid(uc, p->lo, p->hi, NULL, NULL, p->walk[WALK_HYBRID].frames, MAX_FRAMES);
  p->walk[WALK_HANDLER].n = sxs__unwind_libunwind(NULL, p->walk[WALK_HANDLER].frames, MAX_FRAMES);
}

/* PROBE_BLOCK_IN_HANDLER's handler: it blocks in read() on the probe's pipe, as a runtime's thread parks in its
 * activation signal's handler while a suspension lasts. */
static void on_block_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  (void)uc;
  SXS_REGS_CAPTURE(&signal_probe->regs);
  char c;
  if (read(signal_probe->pipe_read, &c, 1) != 1)
    abort();
}

static void probe_signal_install(Probe *p, struct sigaction *ret_old) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_probe_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  signal_probe = p;
  g_assert_cmpint(sigaction(SIGUSR1, &sa, ret_old), ==, 0);
}

static void probe_signal_restore(const struct sigaction *old) {
  g_assert_cmpint(sigaction(SIGUSR1, old, NULL), ==, 0);
  signal_probe = NULL;
}

/* tgkill(self, SIGUSR1) as a syscall instruction right here: the kernel delivers the signal on the way back, so the
 * interrupted RIP is in the function this is inlined into, and RBP is that function's frame pointer. */
__attribute__((always_inline)) static inline long raw_tgkill_self(int sig) {
  long ret, tgid = getpid(), tid = gettid();
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "0"((long)SYS_tgkill), "D"(tgid), "S"(tid), "d"((long)sig)
                   : "rcx", "r11", "memory");
  return ret;
}

/* ---- the chain: chain_1 calls chain_2 ... calls chain_6, which probes ---- */

static int chain_2(Probe *p);
static int chain_3(Probe *p);
static int chain_4(Probe *p);
static int chain_5(Probe *p);
static int chain_6(Probe *p);

TEST_NOINLINE static int chain_1(Probe *p) {
  int r = chain_2(p);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int chain_2(Probe *p) {
  int r = chain_3(p);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int chain_3(Probe *p) {
  int r = chain_4(p);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int chain_4(Probe *p) {
  int r = chain_5(p);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int chain_5(Probe *p) {
  int r = chain_6(p);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int chain_6(Probe *p) {
  switch (p->action) {
  case PROBE_WALK:
    SXS_REGS_CAPTURE(&p->regs);
    p->walk[WALK_FP].n = sxs__unwind_fp(&p->regs, p->lo, p->hi, p->walk[WALK_FP].frames, MAX_FRAMES);
    p->walk[WALK_LIBUNWIND].n = sxs__unwind_libunwind(NULL, p->walk[WALK_LIBUNWIND].frames, MAX_FRAMES);
    p->walk[WALK_HYBRID].n =
        sxs__unwind_hybrid(NULL, p->lo, p->hi, NULL, NULL, p->walk[WALK_HYBRID].frames, MAX_FRAMES);
    break;
  case PROBE_SIGNAL: g_assert_cmpint(raw_tgkill_self(SIGUSR1), ==, 0); break;
  case PROBE_RAISE: g_assert_cmpint(raise(SIGUSR1), ==, 0); break;
  case PROBE_BLOCK: {
    char c;
    g_assert_cmpint(read(p->pipe_read, &c, 1), ==, 1);
    break;
  }
  case PROBE_BLOCK_IN_HANDLER: g_assert_cmpint(raw_tgkill_self(SIGUSR2), ==, 0); break;
  }
  __asm__ volatile("" ::: "memory");
  return 0;
}

/* ---- fake JIT code: jit_outer calls the stub, the stub calls jit_inner, which walks ---- */

TEST_NOINLINE static int jit_inner(void *arg) {
  Probe *p = arg;
  SXS_REGS_CAPTURE(&p->regs);
  p->walk[WALK_FP].n = sxs__unwind_fp(&p->regs, p->lo, p->hi, p->walk[WALK_FP].frames, MAX_FRAMES);
  p->walk[WALK_LIBUNWIND].n = sxs__unwind_libunwind(NULL, p->walk[WALK_LIBUNWIND].frames, MAX_FRAMES);
  p->walk[WALK_HYBRID].n =
      sxs__unwind_hybrid(NULL, p->lo, p->hi, is_stub_code, (void *)p->stub, p->walk[WALK_HYBRID].frames, MAX_FRAMES);
  p->walk[WALK_HYBRID_PLAIN].n =
      sxs__unwind_hybrid(NULL, p->lo, p->hi, NULL, NULL, p->walk[WALK_HYBRID_PLAIN].frames, MAX_FRAMES);
  __asm__ volatile("" ::: "memory");
  return 7;
}

TEST_NOINLINE static int jit_outer(Probe *p) {
  int r = p->stub->call(jit_inner, p);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

/* ---- naming frames ---- */

static void test_walk_self(void);
static void test_walk_signal(void);
static void test_walk_raise(void);
static void run_jit(uint32_t locals);
static void test_max(void);
static void test_busy(void);
typedef struct CacheProbe CacheProbe;
static int cache_sort(CacheProbe *c);
static int cache_compare(const void *a, const void *b);
static void test_cache(void);
static int cache_raiser(void);
static void on_cache_signal(int sig, siginfo_t *info, void *uc);
static void test_cache_signal(void);
static void *remote_thread(void *data);
int hijack_worker(void);
int hijack_stub(void);
static int hijacked_caller(Probe *p);
static void *hijack_thread(void *data);
static void test_hijack(void);

/* The test function whose code contains ip: the one with the highest start below ip, if ip is within FUNC_SIZE_MAX
 * of it; "?" otherwise. ip is a return address or an interrupted instruction, so it is never a function's start. */
static const char *func_name(uintptr_t ip) {
  const struct {
    const char *name;
    uintptr_t start;
  } funcs[] = {
      {"chain_1", (uintptr_t)chain_1},
      {"chain_2", (uintptr_t)chain_2},
      {"chain_3", (uintptr_t)chain_3},
      {"chain_4", (uintptr_t)chain_4},
      {"chain_5", (uintptr_t)chain_5},
      {"chain_6", (uintptr_t)chain_6},
      {"jit_inner", (uintptr_t)jit_inner},
      {"jit_outer", (uintptr_t)jit_outer},
      {"on_probe_signal", (uintptr_t)on_probe_signal},
      {"on_block_signal", (uintptr_t)on_block_signal},
      {"hijack_worker", (uintptr_t)hijack_worker},
      {"hijack_stub", (uintptr_t)hijack_stub},
      {"hijacked_caller", (uintptr_t)hijacked_caller},
      {"hijack_thread", (uintptr_t)hijack_thread},
      {"test_hijack", (uintptr_t)test_hijack},
      {"test_walk_self", (uintptr_t)test_walk_self},
      {"test_walk_signal", (uintptr_t)test_walk_signal},
      {"test_walk_raise", (uintptr_t)test_walk_raise},
      {"run_jit", (uintptr_t)run_jit},
      {"test_max", (uintptr_t)test_max},
      {"test_busy", (uintptr_t)test_busy},
      {"cache_sort", (uintptr_t)cache_sort},
      {"cache_compare", (uintptr_t)cache_compare},
      {"test_cache", (uintptr_t)test_cache},
      {"cache_raiser", (uintptr_t)cache_raiser},
      {"on_cache_signal", (uintptr_t)on_cache_signal},
      {"test_cache_signal", (uintptr_t)test_cache_signal},
      {"remote_thread", (uintptr_t)remote_thread},
  };
  const char *best = "?";
  uintptr_t best_start = 0;
  for (gsize i = 0; i < G_N_ELEMENTS(funcs); i++) {
    if (funcs[i].start < ip && funcs[i].start >= best_start && ip - funcs[i].start < FUNC_SIZE_MAX) {
      best = funcs[i].name;
      best_start = funcs[i].start;
    }
  }
  return best;
}

/* The frames as text, for failure messages. */
static char *walk_describe(const Walk *w) {
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "%d frames:", w->n);
  for (int i = 0; i < w->n && i < 16; i++)
    g_string_append_printf(s, " [%d] %s ip=%#" G_GINTPTR_MODIFIER "x sp=%#" G_GINTPTR_MODIFIER "x", i,
                           func_name(w->frames[i].ip), w->frames[i].ip, w->frames[i].sp);
  return g_string_free(s, FALSE);
}

/* Every frame's sp is strictly above the one before it, and inside [lo, hi] when hi is not 0. */
static void assert_sp_increasing(const Walk *w, uintptr_t lo, uintptr_t hi) {
  for (int i = 0; i < w->n; i++) {
    if (i > 0)
      g_assert_cmpuint(w->frames[i].sp, >, w->frames[i - 1].sp);
    if (hi != 0) {
      g_assert_cmpuint(w->frames[i].sp, >=, lo);
      g_assert_cmpuint(w->frames[i].sp, <=, hi);
    }
  }
}

/* frames[first .. first + 6) are in chain_6 .. chain_1, and frames[first + 6] is in caller. */
static void assert_chain_at(const Walk *w, int first, const char *caller) {
  static const char *const names[CHAIN_LEN] = {"chain_6", "chain_5", "chain_4", "chain_3", "chain_2", "chain_1"};
  g_autofree char *text = walk_describe(w);
  g_test_message("walk: %s", text);
  g_assert_cmpint(first, >=, 0);
  g_assert_cmpint(w->n, >=, first + CHAIN_LEN + 1);
  for (int i = 0; i < CHAIN_LEN; i++)
    g_assert_cmpstr(func_name(w->frames[first + i].ip), ==, names[i]);
  g_assert_cmpstr(func_name(w->frames[first + CHAIN_LEN].ip), ==, caller);
}

/* The index of the first frame in function name, or -1. */
static int walk_find(const Walk *w, const char *name) {
  for (int i = 0; i < w->n; i++)
    if (strcmp(func_name(w->frames[i].ip), name) == 0)
      return i;
  return -1;
}

/* Frames a[ia ..] and b[ib ..] agree in ip and sp for count frames. */
static void assert_same_frames(const Walk *a, int ia, const Walk *b, int ib, int count) {
  g_assert_cmpint(a->n, >=, ia + count);
  g_assert_cmpint(b->n, >=, ib + count);
  for (int i = 0; i < count; i++) {
    g_assert_cmpuint(a->frames[ia + i].ip, ==, b->frames[ib + i].ip);
    g_assert_cmpuint(a->frames[ia + i].sp, ==, b->frames[ib + i].sp);
  }
}

/* ---- tests ---- */

static void test_regs(void) {
  /* The capture: this function's own frame pointer, a stack pointer below it, an ip inside this function. */
  SxsRegs regs;
  SXS_REGS_CAPTURE(&regs);
  g_assert_cmpuint(regs.fp, ==, (uintptr_t)__builtin_frame_address(0));
  g_assert_cmpuint(regs.sp, <=, regs.fp);
  g_assert_cmpuint(regs.ip, >, (uintptr_t)test_regs);
  g_assert_cmpuint(regs.ip - (uintptr_t)test_regs, <, FUNC_SIZE_MAX);

  /* From a ucontext: RIP, RSP, RBP and nothing else. */
  ucontext_t uc;
  memset(&uc, 0x5a, sizeof uc);
  uc.uc_mcontext.gregs[REG_RIP] = 0x401234;
  uc.uc_mcontext.gregs[REG_RSP] = 0x7ffd0000f000;
  uc.uc_mcontext.gregs[REG_RBP] = 0x7ffd0000f040;
  uc.uc_mcontext.gregs[REG_RSI] = 0x1111;
  sxs__regs_from_ucontext(&regs, &uc);
  g_assert_cmpuint(regs.ip, ==, 0x401234);
  g_assert_cmpuint(regs.sp, ==, 0x7ffd0000f000);
  g_assert_cmpuint(regs.fp, ==, 0x7ffd0000f040);
}

/* The innermost of six functions walks its own stack with each walker. */
static void test_walk_self(void) {
  Probe *p = probe_new(PROBE_WALK);
  g_assert_cmpint(chain_1(p), ==, CHAIN_LEN - 1);

  const Walk *fp = &p->walk[WALK_FP], *lu = &p->walk[WALK_LIBUNWIND], *hy = &p->walk[WALK_HYBRID];
  for (int w = WALK_FP; w <= WALK_HYBRID; w++) {
    assert_chain_at(&p->walk[w], 0, "test_walk_self");
    assert_sp_increasing(&p->walk[w], p->lo, p->hi);
  }
  /* The frame-pointer walk starts exactly at the captured registers. */
  g_assert_cmpuint(fp->frames[0].ip, ==, p->regs.ip);
  g_assert_cmpuint(fp->frames[0].sp, ==, p->regs.sp);
  /* Past the first frame (where each walker stands at a different instruction of chain_6), all three see the same
   * return addresses and the same stack pointers: the caller's RSP at each call is the callee's CFA for both. */
  assert_same_frames(fp, 1, lu, 1, CHAIN_LEN);
  assert_same_frames(fp, 1, hy, 1, CHAIN_LEN);
  /* libunwind and the hybrid start in chain_6 at their own call: sp is chain_6's RSP at that call (the hybrid's
   * seventh argument is on the stack, so its sp is lower), below chain_6's CFA. */
  g_assert_cmpuint(hy->frames[0].sp, <=, lu->frames[0].sp);
  g_assert_cmpuint(hy->frames[0].sp, >=, fp->frames[0].sp - 64);
  g_assert_cmpuint(lu->frames[0].sp, <, lu->frames[1].sp);
  /* The frame-pointer walk stops, without error, somewhere above: at the latest at the top of the stack. */
  g_assert_cmpint(fp->n, <, MAX_FRAMES);
  g_free(p);
}

/* SIGUSR1 sent by a syscall instruction in chain_6: from the handler's ucontext every walker finds the whole chain
 * starting at the interrupted instruction; libunwind started in the handler itself finds it below the signal frame. */
static void test_walk_signal(void) {
  Probe *p = probe_new(PROBE_SIGNAL);
  struct sigaction old;
  probe_signal_install(p, &old);
  g_assert_cmpint(chain_1(p), ==, CHAIN_LEN - 1);
  probe_signal_restore(&old);

  g_assert_cmpstr(func_name(p->regs.ip), ==, "chain_6");
  for (int w = WALK_FP; w <= WALK_HYBRID; w++) {
    const Walk *walk = &p->walk[w];
    assert_chain_at(walk, 0, "test_walk_signal");
    assert_sp_increasing(walk, p->lo, p->hi);
    g_assert_cmpuint(walk->frames[0].ip, ==, p->regs.ip);
    g_assert_cmpuint(walk->frames[0].sp, ==, p->regs.sp);
  }
  assert_same_frames(&p->walk[WALK_FP], 0, &p->walk[WALK_LIBUNWIND], 0, CHAIN_LEN + 1);
  assert_same_frames(&p->walk[WALK_FP], 0, &p->walk[WALK_HYBRID], 0, CHAIN_LEN + 1);

  /* From inside the handler: the handler, the signal trampoline (libc's __restore_rt), then the interrupted chain
   * with the same ip and sp as from the ucontext. */
  const Walk *handler = &p->walk[WALK_HANDLER];
  int k = walk_find(handler, "chain_6");
  g_assert_cmpstr(func_name(handler->frames[0].ip), ==, "on_probe_signal");
  g_assert_cmpint(k, >=, 2);
  assert_chain_at(handler, k, "test_walk_signal");
  assert_sp_increasing(handler, p->lo, p->hi);
  assert_same_frames(handler, k, &p->walk[WALK_LIBUNWIND], 0, CHAIN_LEN + 1);
  g_free(p);
}

/* raise(SIGUSR1) in chain_6: the signal arrives inside libc, which has unwind tables but no frame pointers.
 * libunwind and the hybrid walk find libc's frames, then the chain; the frame-pointer walk stays inside the stack. */
static void test_walk_raise(void) {
  Probe *p = probe_new(PROBE_RAISE);
  struct sigaction old;
  probe_signal_install(p, &old);
  g_assert_cmpint(chain_1(p), ==, CHAIN_LEN - 1);
  probe_signal_restore(&old);

  g_assert_cmpstr(func_name(p->regs.ip), ==, "?");
  for (int w = WALK_LIBUNWIND; w <= WALK_HYBRID; w++) {
    const Walk *walk = &p->walk[w];
    int k = walk_find(walk, "chain_6");
    g_assert_cmpint(k, >=, 1);
    for (int i = 0; i < k; i++)
      g_assert_cmpstr(func_name(walk->frames[i].ip), ==, "?");
    assert_chain_at(walk, k, "test_walk_raise");
    assert_sp_increasing(walk, p->lo, p->hi);
    g_assert_cmpuint(walk->frames[0].ip, ==, p->regs.ip);
    g_assert_cmpuint(walk->frames[0].sp, ==, p->regs.sp);
  }
  assert_same_frames(&p->walk[WALK_LIBUNWIND], 0, &p->walk[WALK_HYBRID], 0, p->walk[WALK_LIBUNWIND].n);

  /* Frame pointers: whatever libc left in RBP, the walk starts at the interrupted registers, stays in the stack,
   * and any chain frames it finds (libc frames have no frame pointers, so it may miss chain_6) come in order. */
  const Walk *fp = &p->walk[WALK_FP];
  g_autofree char *text = walk_describe(fp);
  g_test_message("frame pointers from inside raise(): %s", text);
  g_assert_cmpint(fp->n, >=, 1);
  g_assert_cmpuint(fp->frames[0].ip, ==, p->regs.ip);
  assert_sp_increasing(fp, p->lo, p->hi);
  int k = walk_find(fp, "chain_5");
  if (k >= 0) {
    static const char *const above[] = {"chain_4", "chain_3", "chain_2", "chain_1", "test_walk_raise"};
    g_assert_cmpint(fp->n, >=, k + 1 + (int)G_N_ELEMENTS(above));
    for (gsize i = 0; i < G_N_ELEMENTS(above); i++)
      g_assert_cmpstr(func_name(fp->frames[k + 1 + i].ip), ==, above[i]);
  }
  g_free(p);
}

/* Writes the stub: push %rbp; mov %rsp,%rbp; sub $locals,%rsp; call *%rdi with %rsi as its argument; leave; ret.
 * It has a frame pointer, locals, and no unwind tables anywhere (anonymous executable memory, like JIT code). */
static void stub_init(Stub *stub, uint32_t locals) {
  const uint8_t code[] = {
      0x55,                         /* push %rbp */
      0x48, 0x89, 0xe5,             /* mov %rsp,%rbp */
      0x48, 0x81, 0xec, 0, 0, 0, 0, /* sub $locals,%rsp */
      0x48, 0x89, 0xf8,             /* mov %rdi,%rax */
      0x48, 0x89, 0xf7,             /* mov %rsi,%rdi */
      0xff, 0xd0,                   /* call *%rax */
      0xc9,                         /* leave */
      0xc3,                         /* ret */
  };
  g_assert_cmpuint(locals % 16, ==, 0);
  long page = sysconf(_SC_PAGESIZE);
  void *mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true(mem != MAP_FAILED);
  memcpy(mem, code, sizeof code);
  memcpy((uint8_t *)mem + 7, &locals, sizeof locals);
  g_assert_cmpint(mprotect(mem, page, PROT_READ | PROT_EXEC), ==, 0);
  stub->code = mem;
  stub->len = sizeof code;
  /* Casting between object and function pointers goes through an integer. */
  stub->call = (StubFunc)(uintptr_t)mem;
}

static void stub_fini(Stub *stub) {
  g_assert_cmpint(munmap(stub->code, sysconf(_SC_PAGESIZE)), ==, 0);
}

/* The first four frames: jit_inner, the stub (at its return address), jit_outer, run_jit. */
static void assert_jit_frames(const Walk *w, const Stub *stub) {
  g_autofree char *text = walk_describe(w);
  g_test_message("walk: %s", text);
  g_assert_cmpint(w->n, >=, 4);
  g_assert_cmpstr(func_name(w->frames[0].ip), ==, "jit_inner");
  g_assert_true(is_stub_code(w->frames[1].ip, (void *)stub, NULL));
  g_assert_cmpuint(w->frames[1].ip, ==, (uintptr_t)stub->code + stub->len - 2); /* after the call */
  g_assert_cmpstr(func_name(w->frames[2].ip), ==, "jit_outer");
  g_assert_cmpstr(func_name(w->frames[3].ip), ==, "run_jit");
}

TEST_NOINLINE static void run_jit(uint32_t locals) {
  Stub stub;
  stub_init(&stub, locals);
  Probe *p = probe_new(PROBE_WALK);
  p->stub = &stub;
  g_assert_cmpint(jit_outer(p), ==, 8);

  const Walk *fp = &p->walk[WALK_FP], *lu = &p->walk[WALK_LIBUNWIND];
  const Walk *hy = &p->walk[WALK_HYBRID], *plain = &p->walk[WALK_HYBRID_PLAIN];
  /* Frame pointers: the truth. The stub's frame is at jit_inner's CFA, its caller at the stub's RBP + 16, which is
   * locals + 16 above the stub frame's sp. */
  assert_jit_frames(fp, &stub);
  assert_sp_increasing(fp, p->lo, p->hi);
  g_assert_cmpuint(fp->frames[2].sp - fp->frames[1].sp, ==, locals + 16);

  /* Hybrid with the classifier: the stub frame is stepped by frame pointer, everything else by libunwind, and every
   * frame past the first agrees with the frame-pointer walk through our own code. */
  assert_jit_frames(hy, &stub);
  assert_sp_increasing(hy, p->lo, p->hi);
  assert_same_frames(fp, 1, hy, 1, 3);

  /* libunwind alone, and the hybrid without a classifier: libunwind has no unwind info for the stub. */
  g_autofree char *lu_text = walk_describe(lu);
  g_test_message("libunwind alone: %s", lu_text);
  g_assert_cmpint(lu->n, >=, 2);
  g_assert_cmpstr(func_name(lu->frames[0].ip), ==, "jit_inner");
  g_assert_cmpuint(lu->frames[1].ip, ==, fp->frames[1].ip);
  g_assert_cmpuint(lu->frames[1].sp, ==, fp->frames[1].sp);
  assert_sp_increasing(lu, 0, 0);
  assert_jit_frames(plain, &stub);
  assert_sp_increasing(plain, p->lo, p->hi);
  if (lu->n == 2) {
    /* libunwind stopped at the stub, so the hybrid got past it by a frame-pointer step: exact sp, and libunwind
     * takes over again above. */
    g_test_message("libunwind stops at the stub; the hybrid's frame-pointer fallback steps it");
    assert_same_frames(fp, 1, plain, 1, 3);
  } else if (lu->n >= 3 && lu->frames[2].sp != fp->frames[2].sp) {
    g_test_message("libunwind guesses the stub frame: caller sp %#" G_GINTPTR_MODIFIER
                   "x instead of %#" G_GINTPTR_MODIFIER "x (why the hybrid takes a classifier)",
                   lu->frames[2].sp, fp->frames[2].sp);
  }
  g_free(p);
  stub_fini(&stub);
}

/* A JIT-like frame with 32 bytes of locals: libunwind 1.6.2 steps it by guessing, with the wrong caller sp. */
static void test_jit_small(void) {
  run_jit(0x20);
}

/* A JIT-like frame with 20 KiB of locals: libunwind 1.6.2 gives up on it, the hybrid falls back to frame pointers. */
static void test_jit_large(void) {
  run_jit(0x5000);
}

/* A fake stack: one read-write page between two inaccessible ones. Any read outside [lo, hi) faults. */
typedef struct {
  uint8_t *map;
  uintptr_t lo, hi;
} FencedStack;

static void fenced_init(FencedStack *s) {
  long page = sysconf(_SC_PAGESIZE);
  s->map = mmap(NULL, 3 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true(s->map != MAP_FAILED);
  g_assert_cmpint(mprotect(s->map + page, page, PROT_READ | PROT_WRITE), ==, 0);
  s->lo = (uintptr_t)s->map + page;
  s->hi = s->lo + page;
}

static void fenced_fini(FencedStack *s) {
  g_assert_cmpint(munmap(s->map, 3 * sysconf(_SC_PAGESIZE)), ==, 0);
}

/* Writes a frame record at fp: the saved frame pointer and the return address. */
static void put_frame(uintptr_t fp, uintptr_t saved_fp, uintptr_t ret) {
  ((uintptr_t *)fp)[0] = saved_fp;
  ((uintptr_t *)fp)[1] = ret;
}

/* Runs the frame-pointer walk and checks that it wrote exactly the returned number of frames. */
static int walk_fp_checked(const SxsRegs *regs, uintptr_t lo, uintptr_t hi, SxsNativeFrame *frames) {
  for (int i = 0; i < 16; i++)
    frames[i] = (SxsNativeFrame){0xdeadbeef, 0xdeadbeef};
  int n = sxs__unwind_fp(regs, lo, hi, frames, 16);
  g_assert_cmpint(n, >=, 1);
  g_assert_cmpuint(frames[0].ip, ==, regs->ip);
  g_assert_cmpuint(frames[0].sp, ==, regs->sp);
  for (int i = n; i < 16; i++)
    g_assert_cmpuint(frames[i].ip, ==, 0xdeadbeef);
  return n;
}

/* Corrupt frame pointers end the walk: never a fault, never a read outside the bounds (the fenced stack would
 * fault), the frames up to the bad one kept. */
static void test_corrupt(void) {
  FencedStack s;
  fenced_init(&s);
  SxsNativeFrame frames[16];
  const uintptr_t ip = 0x401000;

  /* A good chain of five records ending at the very top: 0x100 -> 0x200 -> ... -> hi - 16 -> hi (out of bounds). */
  uintptr_t top = s.hi - 16;
  put_frame(s.lo + 0x100, s.lo + 0x200, 0x1001);
  put_frame(s.lo + 0x200, s.lo + 0x300, 0x1002);
  put_frame(s.lo + 0x300, top, 0x1003);
  put_frame(top, s.hi, 0x1004);
  SxsRegs regs = {ip, s.lo + 0x80, s.lo + 0x100};
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 5);
  const uintptr_t want_ip[] = {ip, 0x1001, 0x1002, 0x1003, 0x1004};
  const uintptr_t want_sp[] = {s.lo + 0x80, s.lo + 0x110, s.lo + 0x210, s.lo + 0x310, s.hi};
  for (int i = 0; i < 5; i++) {
    g_assert_cmpuint(frames[i].ip, ==, want_ip[i]);
    g_assert_cmpuint(frames[i].sp, ==, want_sp[i]);
  }

  /* The last record's saved frame pointer is the last word (hi - 8): reading its record would read hi. */
  put_frame(top, s.hi - 8, 0x1004);
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 5);

  /* Bad first frame pointers: 0, 1, misaligned, below the stack, at its top, past it, below sp, far away. */
  const uintptr_t bad_fp[] = {0,
                              1,
                              s.lo + 0x104,
                              s.lo - 16,
                              s.lo - 4096,
                              s.hi,
                              s.hi - 8,
                              s.hi + 4096,
                              s.lo + 0x40 /* below regs.sp */,
                              UINTPTR_MAX - 7,
                              UINTPTR_MAX - 15};
  for (gsize i = 0; i < G_N_ELEMENTS(bad_fp); i++) {
    SxsRegs bad = {ip, s.lo + 0x80, bad_fp[i]};
    g_assert_cmpint(walk_fp_checked(&bad, s.lo, s.hi, frames), ==, 1);
  }
  /* Bounds that reach the end of the address space: fp + 16 would wrap around to a small address. */
  SxsRegs wrap = {ip, s.lo + 0x80, UINTPTR_MAX - 15};
  g_assert_cmpint(walk_fp_checked(&wrap, s.lo, UINTPTR_MAX, frames), ==, 1);

  /* The chain goes wrong in the middle: a loop (a record pointing at itself), a step down, a misaligned or
   * out-of-bounds saved frame pointer, a zero return address. The good frames before it are kept. */
  put_frame(s.lo + 0x200, s.lo + 0x200, 0x1002); /* loop */
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 3);
  put_frame(s.lo + 0x200, s.lo + 0x180, 0x1002); /* down */
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 3);
  put_frame(s.lo + 0x200, s.lo + 0x208, 0x1002); /* up by 8 only: overlaps the record just read */
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 3);
  put_frame(s.lo + 0x200, s.lo + 0x303, 0x1002); /* misaligned */
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 3);
  put_frame(s.lo + 0x200, s.hi + 64, 0x1002); /* into the upper fence */
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 3);
  put_frame(s.lo + 0x200, s.lo + 0x300, 0); /* zero return address: the record is not a frame */
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 2);
  put_frame(s.lo + 0x200, s.lo + 0x300, 0x1002);
  g_assert_cmpint(walk_fp_checked(&regs, s.lo, s.hi, frames), ==, 5);

  /* A stack pointer outside the bounds (another stack): only the first frame, even with a good frame pointer. */
  SxsRegs foreign = {ip, s.lo - 64, s.lo + 0x100};
  g_assert_cmpint(walk_fp_checked(&foreign, s.lo, s.hi, frames), ==, 1);

  /* On the real stack: a frame pointer into the middle of an unrelated heap buffer, 0x1, and just below the
   * stack's lowest address. */
  uintptr_t lo, hi;
  g_assert_cmpint(sxs__unwind_stack_bounds(&lo, &hi), ==, 0);
  g_autofree uintptr_t *heap = g_new0(uintptr_t, 64);
  for (int i = 0; i < 64; i++)
    heap[i] = (uintptr_t)&heap[MIN(i + 2, 63)];
  SxsRegs self;
  SXS_REGS_CAPTURE(&self);
  const uintptr_t real_bad[] = {(uintptr_t)&heap[32], 1, lo - 16, self.sp - 16, self.fp + 4};
  for (gsize i = 0; i < G_N_ELEMENTS(real_bad); i++) {
    SxsRegs bad = {self.ip, self.sp, real_bad[i]};
    g_assert_cmpint(walk_fp_checked(&bad, lo, hi, frames), ==, 1);
  }
  /* A chain of records in a heap buffer, given as the stack: followed while it stays inside, stopped at its end. */
  g_autofree uintptr_t *chain = g_new0(uintptr_t, 20);
  for (int i = 0; i < 20; i += 2) {
    chain[i] = (uintptr_t)&chain[i + 2];
    chain[i + 1] = 0x2000 + i;
  }
  SxsRegs in_heap = {ip, (uintptr_t)&chain[0], (uintptr_t)&chain[0]};
  g_assert_cmpint(walk_fp_checked(&in_heap, (uintptr_t)&chain[0], (uintptr_t)&chain[20], frames), ==, 11);
  g_assert_cmpuint(frames[1].ip, ==, 0x2000);
  g_assert_cmpuint(frames[1].sp, ==, (uintptr_t)&chain[2]);
  g_assert_cmpuint(frames[10].ip, ==, 0x2012);
  g_assert_cmpuint(frames[10].sp, ==, (uintptr_t)&chain[20]);
  fenced_fini(&s);
}

/* max = 0 writes nothing, max = 1 the first frame only, a small max a prefix of the full walk; bad arguments are
 * refused. For all three walkers. */
static void test_max(void) {
  uintptr_t lo, hi;
  g_assert_cmpint(sxs__unwind_stack_bounds(&lo, &hi), ==, 0);
  SxsNativeFrame frames[8], full[8];
  const SxsNativeFrame poison = {0xdeadbeef, 0xdeadbeef};
  SxsRegs regs;
  SXS_REGS_CAPTURE(&regs);

  for (int i = 0; i < 8; i++)
    frames[i] = poison;
  g_assert_cmpint(sxs__unwind_fp(&regs, lo, hi, frames, 0), ==, 0);
  g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, 0), ==, 0);
  g_assert_cmpint(sxs__unwind_hybrid(NULL, lo, hi, NULL, NULL, frames, 0), ==, 0);
  g_assert_cmpuint(frames[0].ip, ==, poison.ip);
  g_assert_cmpint(sxs__unwind_fp(&regs, lo, hi, NULL, 0), ==, 0);
  g_assert_cmpint(sxs__unwind_libunwind(NULL, NULL, 0), ==, 0);
  g_assert_cmpint(sxs__unwind_hybrid(NULL, lo, hi, NULL, NULL, NULL, 0), ==, 0);

  g_assert_cmpint(sxs__unwind_fp(&regs, lo, hi, frames, 1), ==, 1);
  g_assert_cmpuint(frames[0].ip, ==, regs.ip);
  g_assert_cmpuint(frames[1].ip, ==, poison.ip);
  g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, 1), ==, 1);
  g_assert_cmpstr(func_name(frames[0].ip), ==, "test_max");
  g_assert_cmpuint(frames[1].ip, ==, poison.ip);
  frames[0] = poison;
  g_assert_cmpint(sxs__unwind_hybrid(NULL, lo, hi, NULL, NULL, frames, 1), ==, 1);
  g_assert_cmpstr(func_name(frames[0].ip), ==, "test_max");
  g_assert_cmpuint(frames[1].ip, ==, poison.ip);

  /* A prefix: max = 2 gives the first two frames of a longer walk (this function, then GLib's test runner). */
  g_assert_cmpint(sxs__unwind_fp(&regs, lo, hi, full, 8), >=, 2);
  g_assert_cmpint(sxs__unwind_fp(&regs, lo, hi, frames, 2), ==, 2);
  g_assert_cmpmem(frames, 2 * sizeof frames[0], full, 2 * sizeof full[0]);
  g_assert_cmpint(sxs__unwind_libunwind(NULL, full, 8), >=, 3);
  g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, 2), ==, 2);
  g_assert_cmpuint(frames[1].ip, ==, full[1].ip);
  g_assert_cmpuint(frames[1].sp, ==, full[1].sp);

  g_assert_cmpint(sxs__unwind_fp(NULL, lo, hi, frames, 8), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_fp(&regs, lo, hi, NULL, 8), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_fp(&regs, lo, hi, frames, -1), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_fp(&regs, hi, lo, frames, 8), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_libunwind(NULL, NULL, 8), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, -1), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_hybrid(NULL, lo, hi, NULL, NULL, NULL, 8), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_hybrid(NULL, lo, hi, NULL, NULL, frames, -1), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_hybrid(NULL, hi, lo, NULL, NULL, frames, 8), ==, -EINVAL);
  g_assert_cmpint(sxs__unwind_stack_bounds(NULL, &hi), ==, -EINVAL);
}

typedef struct {
  uintptr_t lo, hi, sp;
  int rc;
  Walk walk;
} BoundsResult;

static void *bounds_thread(void *data) {
  BoundsResult *r = data;
  SxsRegs regs;
  SXS_REGS_CAPTURE(&regs);
  r->sp = regs.sp;
  r->rc = sxs__unwind_stack_bounds(&r->lo, &r->hi);
  if (r->rc == 0)
    r->walk.n = sxs__unwind_fp(&regs, r->lo, r->hi, r->walk.frames, MAX_FRAMES);
  return NULL;
}

/* The bounds hold the caller's stack pointer, on the main thread and on a thread with a 1 MiB stack; a full walk
 * of that thread's stack stays inside them. */
static void test_bounds(void) {
  uintptr_t lo = 0, hi = 0;
  SxsRegs regs;
  SXS_REGS_CAPTURE(&regs);
  g_assert_cmpint(sxs__unwind_stack_bounds(&lo, &hi), ==, 0);
  g_assert_cmpuint(lo, <, regs.sp);
  g_assert_cmpuint(regs.sp, <, hi);
  g_assert_cmpuint(hi - lo, >=, 64 * 1024);

  const size_t size = 1024 * 1024;
  pthread_attr_t attr;
  pthread_t thread;
  BoundsResult *r = g_new0(BoundsResult, 1);
  g_assert_cmpint(pthread_attr_init(&attr), ==, 0);
  g_assert_cmpint(pthread_attr_setstacksize(&attr, size), ==, 0);
  g_assert_cmpint(pthread_create(&thread, &attr, bounds_thread, r), ==, 0);
  g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
  pthread_attr_destroy(&attr);
  g_assert_cmpint(r->rc, ==, 0);
  g_assert_cmpuint(r->lo, <, r->sp);
  g_assert_cmpuint(r->sp, <, r->hi);
  g_assert_cmpuint(r->hi - r->lo, <=, size);
  g_assert_cmpuint(r->hi - r->lo, >=, size - 64 * 1024);
  g_assert_true(r->hi <= lo || r->lo >= hi);
  g_assert_cmpint(r->walk.n, >=, 1);
  assert_sp_increasing(&r->walk, r->lo, r->hi);
  g_free(r);
}

/* A classifier that walks again from inside the hybrid walk, the way a signal handler would interrupt one. */
typedef struct {
  int calls, nested_libunwind, nested_hybrid, nested_fp;
} NestedResult;

static bool walk_while_walking(uintptr_t ip, void *user_data, const SxsEhFrame **ret_eh) {
  (void)ret_eh;
  NestedResult *r = user_data;
  (void)ip;
  SxsNativeFrame frames[8];
  SxsRegs regs;
  uintptr_t lo, hi;
  if (r->calls++ > 0)
    return false;
  r->nested_libunwind = sxs__unwind_libunwind(NULL, frames, 8);
  g_assert_cmpint(sxs__unwind_stack_bounds(&lo, &hi), ==, 0);
  r->nested_hybrid = sxs__unwind_hybrid(NULL, lo, hi, NULL, NULL, frames, 8);
  SXS_REGS_CAPTURE(&regs);
  r->nested_fp = sxs__unwind_fp(&regs, lo, hi, frames, 8);
  return false;
}

/* A libunwind or hybrid walk started while this thread is already in one is refused with -EBUSY (libunwind's state
 * is not reentered); the frame-pointer walk, which has no state, still works; and the guard is released after. */
static void test_busy(void) {
  uintptr_t lo, hi;
  g_assert_cmpint(sxs__unwind_stack_bounds(&lo, &hi), ==, 0);
  SxsNativeFrame frames[8];
  NestedResult r = {0};
  g_assert_cmpint(sxs__unwind_hybrid(NULL, lo, hi, walk_while_walking, &r, frames, 8), >=, 2);
  g_assert_cmpint(r.calls, >=, 1);
  g_assert_cmpint(r.nested_libunwind, ==, -EBUSY);
  g_assert_cmpint(r.nested_hybrid, ==, -EBUSY);
  g_assert_cmpint(r.nested_fp, >=, 2);
  g_assert_cmpstr(func_name(frames[0].ip), ==, "test_busy");
  g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, 8), >=, 2);
  g_assert_cmpint(sxs__unwind_hybrid(NULL, lo, hi, NULL, NULL, frames, 8), >=, 2);
}

/* A walk from a ucontext whose stack pointer is an inaccessible page, stopped at the entry of chain_6 (where the
 * return address is at RSP): libunwind must validate that read, which fails, and the step with it. */
static void test_bad_ucontext(void) {
  FencedStack s;
  fenced_init(&s);
  const uintptr_t guard = s.hi + 64; /* inside the upper inaccessible page */
  ucontext_t uc;
  memset(&uc, 0, sizeof uc);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)chain_6;
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t)guard;
  uc.uc_mcontext.gregs[REG_RBP] = (greg_t)guard;

  /* libunwind alone sets errno on the way (the validation's failed write()); the walk does not. */
  unw_cursor_t cursor;
  errno = EDOM;
  g_assert_cmpint(unw_init_local2(&cursor, &uc, UNW_INIT_SIGNAL_FRAME), ==, 0);
  g_assert_cmpint(unw_step(&cursor), <=, 0);
  g_test_message("a failed unw_step leaves errno %d (EDOM is %d)", errno, EDOM);

  SxsNativeFrame frames[8];
  errno = EDOM;
  g_assert_cmpint(sxs__unwind_libunwind(&uc, frames, 8), ==, 1);
  g_assert_cmpint(errno, ==, EDOM);
  g_assert_cmpuint(frames[0].ip, ==, (uintptr_t)chain_6);
  g_assert_cmpuint(frames[0].sp, ==, guard);

  /* The hybrid walk with the fenced page as the stack: the first sp is outside, so it stops before any step. */
  errno = EDOM;
  g_assert_cmpint(sxs__unwind_hybrid(&uc, s.lo, s.hi, NULL, NULL, frames, 8), ==, 1);
  g_assert_cmpint(errno, ==, EDOM);
  /* With the whole mapping as its bounds, libunwind fails the step, and so does the frame-pointer fallback (RBP
   * points past the bounds), without touching the inaccessible page. */
  errno = EDOM;
  g_assert_cmpint(sxs__unwind_hybrid(&uc, s.lo, guard + 8, NULL, NULL, frames, 8), ==, 1);
  g_assert_cmpint(errno, ==, EDOM);
  fenced_fini(&s);
}

/* ---- benchmark ---- */

#define BENCH_DEPTH 40
#define BENCH_FRAMES 32

typedef struct {
  uintptr_t lo, hi;
} Bench;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void bench_report(const char *what, double ns, int walks) {
  double per_walk = ns / walks;
  g_test_message("%-44s %9.0f ns/walk  %7.1f ns/frame", what, per_walk, per_walk / BENCH_FRAMES);
}

/* A classifier for the benchmark, whose frames all keep frame pointers. */
static bool all_fp_code(uintptr_t ip, void *user_data, const SxsEhFrame **ret_eh) {
  (void)ret_eh;
  (void)ip;
  (void)user_data;
  return true;
}

/* Called 40 calls deep (four functions, so four distinct return addresses): each walk takes exactly 32 frames. */
TEST_NOINLINE static int bench_run(Bench *b) {
  SxsNativeFrame frames[BENCH_FRAMES];
  SxsRegs regs;
  SXS_REGS_CAPTURE(&regs);

  const int fp_walks = 100000;
  double t = now_ns();
  for (int i = 0; i < fp_walks; i++)
    g_assert_cmpint(sxs__unwind_fp(&regs, b->lo, b->hi, frames, BENCH_FRAMES), ==, BENCH_FRAMES);
  bench_report("frame pointers", now_ns() - t, fp_walks);

  /* The first libunwind walk ever to see these return addresses (libc's and GLib's are cached by earlier tests). */
  t = now_ns();
  g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, BENCH_FRAMES), ==, BENCH_FRAMES);
  bench_report("libunwind, first walk over new IPs", now_ns() - t, 1);

  /* Every walk first: the cache flushed before each, so unwind tables are looked up and parsed again. */
  const int cold_walks = 300;
  double cold = 0;
  for (int i = 0; i < cold_walks; i++) {
    unw_flush_cache(unw_local_addr_space, 0, 0);
    t = now_ns();
    g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, BENCH_FRAMES), ==, BENCH_FRAMES);
    cold += now_ns() - t;
  }
  bench_report("libunwind, cache flushed before each walk", cold, cold_walks);

  const int warm_walks = 5000;
  t = now_ns();
  for (int i = 0; i < warm_walks; i++)
    g_assert_cmpint(sxs__unwind_libunwind(NULL, frames, BENCH_FRAMES), ==, BENCH_FRAMES);
  bench_report("libunwind, repeated (cached)", now_ns() - t, warm_walks);

  t = now_ns();
  for (int i = 0; i < warm_walks; i++)
    g_assert_cmpint(sxs__unwind_hybrid(NULL, b->lo, b->hi, NULL, NULL, frames, BENCH_FRAMES), ==, BENCH_FRAMES);
  bench_report("hybrid, repeated (cached)", now_ns() - t, warm_walks);

  t = now_ns();
  for (int i = 0; i < warm_walks; i++)
    g_assert_cmpint(sxs__unwind_hybrid(NULL, b->lo, b->hi, all_fp_code, NULL, frames, BENCH_FRAMES), ==, BENCH_FRAMES);
  bench_report("hybrid, every frame classified frame-pointer", now_ns() - t, warm_walks);
  __asm__ volatile("" ::: "memory");
  return 0;
}

static int bench_b(Bench *b, int depth);
static int bench_c(Bench *b, int depth);
static int bench_d(Bench *b, int depth);

TEST_NOINLINE static int bench_a(Bench *b, int depth) {
  int r = depth == 0 ? bench_run(b) : bench_b(b, depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int bench_b(Bench *b, int depth) {
  int r = depth == 0 ? bench_run(b) : bench_c(b, depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int bench_c(Bench *b, int depth) {
  int r = depth == 0 ? bench_run(b) : bench_d(b, depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

TEST_NOINLINE static int bench_d(Bench *b, int depth) {
  int r = depth == 0 ? bench_run(b) : bench_a(b, depth - 1);
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

/* Cost per walk of 32 frames, per walker; reported with g_test_message (run with --verbose), never asserted. */
static void test_benchmark(void) {
  Bench b;
  g_assert_cmpint(sxs__unwind_stack_bounds(&b.lo, &b.hi), ==, 0);
  g_assert_cmpint(bench_a(&b, BENCH_DEPTH), ==, BENCH_DEPTH + 1);
}

/* The step cache: through libc's qsort (no frame pointers: stack-pointer rules) and this file's chain of functions
 * (frame pointers), a walk that learns and a walk that only applies cached rules find exactly the frames libunwind
 * finds, and the rules learned are of both kinds. */
struct CacheProbe {
  uintptr_t lo, hi;
  SxsUnwindCache *cache;
  Walk plain, learning, cached;
  unsigned fp, sp, none;
};

static CacheProbe *cache_probe;

TEST_NOINLINE static int cache_compare(const void *a, const void *b) {
  CacheProbe *c = cache_probe;
  if (c->plain.n < 0) {
    c->plain.n = sxs__unwind_hybrid(NULL, c->lo, c->hi, NULL, NULL, c->plain.frames, MAX_FRAMES);
    c->learning.n = sxs__unwind_cached(NULL, c->lo, c->hi, NULL, NULL, c->cache, c->learning.frames, MAX_FRAMES);
    sxs__unwind_cache_census(c->cache, &c->fp, &c->sp, &c->none);
    c->cached.n = sxs__unwind_cached(NULL, c->lo, c->hi, NULL, NULL, c->cache, c->cached.frames, MAX_FRAMES);
  }
  return *(const int *)a - *(const int *)b;
}

TEST_NOINLINE static int cache_sort(CacheProbe *c) {
  int values[] = {5, 3, 8, 1, 9, 2, 7, 4};
  cache_probe = c;
  qsort(values, G_N_ELEMENTS(values), sizeof values[0], cache_compare);
  __asm__ volatile("" ::: "memory");
  return values[0];
}

static void test_cache(void) {
  CacheProbe c = {.plain.n = -1};
  g_assert_cmpint(sxs__unwind_stack_bounds(&c.lo, &c.hi), ==, 0);
  g_assert_null(sxs__unwind_cache_new(3));
  g_assert_null(sxs__unwind_cache_new(25));
  c.cache = sxs__unwind_cache_new(10);
  g_assert_nonnull(c.cache);
  g_assert_cmpint(cache_sort(&c), ==, 1);
  g_assert_cmpint(c.plain.n, >, 5);
  g_assert_cmpint(walk_find(&c.plain, "cache_sort"), >, 0);
  g_assert_cmpint(walk_find(&c.plain, "test_cache"), >, walk_find(&c.plain, "cache_sort"));
  /* Past frame 0 (each walk is called from its own spot in cache_compare) the walks agree frame by frame. */
  g_assert_cmpint(c.learning.n, ==, c.plain.n);
  g_assert_cmpint(c.cached.n, ==, c.plain.n);
  assert_same_frames(&c.plain, 1, &c.learning, 1, c.plain.n - 1);
  assert_same_frames(&c.plain, 1, &c.cached, 1, c.plain.n - 1);
  assert_sp_increasing(&c.cached, c.lo, c.hi);
  /* qsort's frames in libc keep no frame pointer; this file's do. The outermost frame gets "libunwind cannot". */
  g_assert_cmpuint(c.sp, >, 0);
  g_assert_cmpuint(c.fp, >, 0);
  g_assert_cmpuint(c.none, ==, 1);
  /* One rule per return address: libc's merge sort recurses from one call site, so fewer rules than frames. */
  g_assert_cmpuint(c.fp + c.sp + c.none, <=, (unsigned)c.plain.n - 1);
  g_assert_cmpuint(c.fp + c.sp + c.none, >=, (unsigned)c.plain.n / 2);
  sxs__unwind_cache_free(c.cache);
}

/* Through a signal frame: a handler walks from its own frame (through the kernel's signal frame, into the function
 * that raised) with and without the cache, twice, after raises from two places in one function. The trampoline's step
 * comes from the saved context, not from a rule: a rule cached there would read a stale word of the raiser's frame
 * as the next return address. Every cached walk must agree with the plain one. */
static SxsUnwindCache *signal_cache;
static Walk signal_plain[2], signal_cached[2];
static int signal_round;
static uintptr_t signal_lo, signal_hi;

static void on_cache_signal(int sig, siginfo_t *info, void *uc) {
  (void)sig;
  (void)info;
  (void)uc;
  int r = signal_round;
  signal_plain[r].n = sxs__unwind_hybrid(NULL, signal_lo, signal_hi, NULL, NULL, signal_plain[r].frames, MAX_FRAMES);
  signal_cached[r].n =
      sxs__unwind_cached(NULL, signal_lo, signal_hi, NULL, NULL, signal_cache, signal_cached[r].frames, MAX_FRAMES);
}

TEST_NOINLINE static int cache_raiser(void) {
  int pid = getpid(); /* leaves a return address below the frame, as the reviewer's case had */
  signal_round = 0;
  raise(SIGUSR1);
  signal_round = 1;
  raise(SIGUSR1);
  __asm__ volatile("" ::: "memory");
  return pid;
}

static void test_cache_signal(void) {
  g_assert_cmpint(sxs__unwind_stack_bounds(&signal_lo, &signal_hi), ==, 0);
  signal_cache = sxs__unwind_cache_new(10);
  struct sigaction sa = {.sa_sigaction = on_cache_signal, .sa_flags = SA_SIGINFO}, old;
  sigemptyset(&sa.sa_mask);
  g_assert_cmpint(sigaction(SIGUSR1, &sa, &old), ==, 0);
  g_assert_cmpint(cache_raiser(), ==, getpid());
  sigaction(SIGUSR1, &old, NULL);
  for (int r = 0; r < 2; r++) {
    g_assert_cmpint(signal_plain[r].n, >, 4);
    g_assert_cmpint(signal_cached[r].n, ==, signal_plain[r].n);
    assert_same_frames(&signal_plain[r], 1, &signal_cached[r], 1, signal_plain[r].n - 1);
    g_assert_cmpint(walk_find(&signal_cached[r], "cache_raiser"), >, 0);
    g_assert_cmpint(walk_find(&signal_cached[r], "test_cache_signal"), >, walk_find(&signal_cached[r], "cache_raiser"));
  }
  sxs__unwind_cache_free(signal_cache);
}

/* ---- walks from outside: a thread blocked in read() under chain_6, walked by another thread ---- */

/* The executable mappings of the process, from /proc/self/maps. */
typedef struct {
  guint n;
  uintptr_t lo[512], hi[512];
} CodeRanges;

static void code_ranges_read(CodeRanges *c) {
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents("/proc/self/maps", &text, NULL, NULL));
  c->n = 0;
  for (char *line = text; line && *line && c->n < G_N_ELEMENTS(c->lo);) {
    unsigned long long lo, hi;
    char perms[8];
    if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && perms[2] == 'x') {
      c->lo[c->n] = (uintptr_t)lo;
      c->hi[c->n++] = (uintptr_t)hi;
    }
    line = strchr(line, '\n');
    if (line)
      line++;
  }
}

static bool remote_read(uintptr_t addr, void *buf, size_t size, void *data) {
  (void)data;
  return sxs__unwind_read_self(addr, buf, size);
}

static bool remote_is_code(uintptr_t addr, void *data) {
  const CodeRanges *c = data;
  for (guint i = 0; i < c->n; i++)
    if (addr >= c->lo[i] && addr < c->hi[i])
      return true;
  return false;
}

TEST_NOINLINE static void *remote_thread(void *data) {
  Probe *p = data;
  g_assert_cmpint(sxs__unwind_stack_bounds(&p->lo, &p->hi), ==, 0);
  g_assert_cmpint(chain_1(p), ==, 5);
  __asm__ volatile("" ::: "memory");
  return NULL;
}

/* The blocked thread's system call, its stack pointer and its instruction pointer, from /proc: FALSE while it is
 * not (yet) blocked in read(). */
static gboolean blocked_in_read(pid_t tid, SxsRegs *ret) {
  g_autofree char *path = g_strdup_printf("/proc/self/task/%d/syscall", (int)tid);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    return FALSE;
  unsigned long long a[6], sp, pc;
  long nr;
  if (sscanf(text, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &sp,
             &pc) != 9 ||
      nr != SYS_read)
    return FALSE;
  ret->ip = (uintptr_t)pc;
  ret->sp = (uintptr_t)sp;
  ret->fp = 0;
  return TRUE;
}

static pid_t remote_tid;

TEST_NOINLINE static void *remote_thread_start(void *data) {
  remote_tid = gettid();
  return remote_thread(data);
}

/* A probe that reads an empty pipe: fds[0] its end, fds[1] the end that lets it go on. */
static Probe *probe_with_pipe(ProbeAction action, int fds[2]) {
  Probe *p = probe_new(action);
  g_assert_cmpint(pipe(fds), ==, 0);
  p->pipe_read = fds[0];
  return p;
}

/* A thread started on start(p) (which sets remote_tid), once it blocks in read(): its handle and the registers
 * /proc gives. */
static void start_until_blocked(void *(*start)(void *), Probe *p, pthread_t *ret_thread, SxsRegs *ret_regs) {
  remote_tid = 0;
  g_assert_cmpint(pthread_create(ret_thread, NULL, start, p), ==, 0);
  for (int i = 0; i < 2000 && !(remote_tid != 0 && blocked_in_read(remote_tid, ret_regs)); i++)
    g_usleep(1000);
  g_assert_true(blocked_in_read(remote_tid, ret_regs));
}

/* What a walk from outside needs: this process's code mappings, the module map, a rules cache. */
typedef struct {
  CodeRanges code;
  SxsUnwindMemory mem;
  SxsModuleMap *map;
  SxsModmapCursor cursor;
  SxsUnwindCache *cache;
} Outside;

static Outside *outside_new(void) {
  Outside *o = g_new0(Outside, 1);
  code_ranges_read(&o->code);
  o->mem = (SxsUnwindMemory){.read = remote_read, .is_code = remote_is_code, .data = &o->code};
  o->map = sxs__modmap_new();
  o->cursor = (SxsModmapCursor){.map = o->map};
  o->cache = sxs__unwind_cache_new(10);
  return o;
}

static int outside_walk(Outside *o, const SxsRegs *regs, const Probe *p, Walk *w) {
  return sxs__unwind_remote(regs, p->lo, p->hi, sxs__stitch_is_fp_code, &o->cursor, o->cache, &o->mem, w->frames,
                            MAX_FRAMES);
}

static void outside_free(Outside *o) {
  sxs__unwind_cache_free(o->cache);
  sxs__modmap_free(o->map);
  g_free(o);
}

/* A thread blocked in read() (a libc wrapper that keeps no frame pointer, called from chain_6, which does) is walked
 * by this thread from what /proc gives (its sp and pc; no RBP): libc's frame by its unwind tables, chain_6's frame
 * pointer found in its frame, then the chain by frame pointers, out to the thread's start. A second walk with the
 * rules the first one cached finds the same frames. */
/* An OSR method's frame over its Tier-0 frame (design.md, "Stack truth"): the OSR frame record holds
 * the caller's frame pointer and a patchpoint address in the Tier-0 code; the Tier-0 frame record
 * above it, which no frame pointer reaches, holds the caller's return address. The walk reports the
 * method once and then its caller; a walk that knows no code mappings, or an ordinary frame whose
 * locals do not hold its caller's frame pointer, is stepped as before. */
#define OSR_CODE_LO ((uintptr_t)0x10000000)
#define OSR_CODE_HI ((uintptr_t)0x20000000)
#define OSR_IP ((uintptr_t)0x10001010)         /* interrupted, in the OSR code */
#define OSR_PATCHPOINT ((uintptr_t)0x10000100) /* in the Tier-0 code */
#define OSR_CALLER_RA ((uintptr_t)0x10002020)
#define OSR_OUTER_RA ((uintptr_t)0x10003030)

static bool osr_knows_code(uintptr_t ip, void *user_data, const SxsEhFrame **ret_eh) {
  (void)ret_eh;
  bool knows = user_data != NULL;
  if (ret_eh == NULL && !knows)
    return false;
  return ip >= OSR_CODE_LO && ip < OSR_CODE_HI;
}

static int osr_walk(uintptr_t *stack, size_t words, bool knows, SxsNativeFrame *frames) {
  SxsRegs regs = {.ip = OSR_IP, .sp = (uintptr_t)&stack[0], .fp = (uintptr_t)&stack[4]};
  return sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + words), osr_knows_code,
                               knows ? (void *)stack : NULL, NULL, frames, 8);
}

static void test_osr(void) {
  uintptr_t stack[24] = {0};
  uintptr_t v = (uintptr_t)&stack[16]; /* the caller's frame record */
  stack[4] = v;                        /* the OSR frame record: the caller's rbp, the patchpoint */
  stack[5] = OSR_PATCHPOINT;
  stack[6] = 0x7f0000001234; /* Tier-0 locals: a heap value, a stack address */
  stack[7] = (uintptr_t)&stack[2];
  stack[10] = v; /* the Tier-0 frame record */
  stack[11] = OSR_CALLER_RA;
  stack[16] = 0; /* the caller's record: the end of the chain */
  stack[17] = OSR_OUTER_RA;
  SxsNativeFrame frames[8];
  int n = osr_walk(stack, G_N_ELEMENTS(stack), true, frames);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[0].ip, ==, OSR_IP);
  g_assert_cmphex(frames[1].ip, ==, OSR_CALLER_RA);
  g_assert_cmphex(frames[1].sp, ==, (uintptr_t)&stack[12]);
  g_assert_cmphex(frames[2].ip, ==, OSR_OUTER_RA);
  g_assert_cmphex(frames[2].sp, ==, (uintptr_t)&stack[18]);

  /* Code not known: the frame records as they are. */
  n = osr_walk(stack, G_N_ELEMENTS(stack), false, frames);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[1].ip, ==, OSR_PATCHPOINT);
  g_assert_cmphex(frames[2].ip, ==, OSR_OUTER_RA);

  /* An ordinary call: no slot between the frames holds the caller's rbp next to code. */
  stack[10] = 0x42;
  n = osr_walk(stack, G_N_ELEMENTS(stack), true, frames);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[1].ip, ==, OSR_PATCHPOINT);
  g_assert_cmphex(frames[1].sp, ==, (uintptr_t)&stack[6]);

  /* The caller's rbp followed by a value that is no code: not a frame record either. */
  stack[10] = v;
  stack[11] = 0x7f0000005678;
  n = osr_walk(stack, G_N_ELEMENTS(stack), true, frames);
  g_assert_cmphex(frames[1].ip, ==, OSR_PATCHPOINT);

  /* Where the step lands is a method known to keep no frame pointer (its return address has an SP rule): no Tier-0
   * code, so a record of the same saved rbp above it is one an earlier call left in its frame, not looked for. */
  stack[11] = OSR_CALLER_RA;
  SxsUnwindCache *cache = sxs__unwind_cache_new(8);
  SxsPrologue frameless = {.framed = false, .frame_bytes = 8, .prologue_len = 1};
  g_assert_true(sxs__unwind_cache_note_jit(cache, OSR_PATCHPOINT, &frameless));
  SxsRegs regs = {.ip = OSR_IP, .sp = (uintptr_t)&stack[0], .fp = (uintptr_t)&stack[4]};
  n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 24), osr_knows_code, stack, cache,
                            frames, 8);
  g_assert_cmpint(n, >=, 2);
  g_assert_cmphex(frames[1].ip, ==, OSR_PATCHPOINT);
  g_assert_cmphex(frames[1].sp, ==, (uintptr_t)&stack[6]);
  sxs__unwind_cache_free(cache);
}

/* The Tier-0 frame's unused slots hold a pair an earlier call at another depth left: the caller's rbp with a return
 * address into code above it, below the Tier-0 record. Found by the layout alone, the walk takes that stale pair for
 * the Tier-0 record (the caller lost for a stale return address) and says which patchpoint it did not know; taught
 * where the record lies for that patchpoint (the Tier-0 code's prologue: RBP pushed, then 32 bytes), it reads the
 * record there, also over a copy of the stack; a record not found where it was taught is looked for as before. */
#define OSR_STALE_RA ((uintptr_t)0x10004444)

static void test_osr_learned(void) {
  uintptr_t stack[24] = {0};
  uintptr_t v = (uintptr_t)&stack[16];
  stack[4] = v; /* the OSR frame record */
  stack[5] = OSR_PATCHPOINT;
  stack[8] = v; /* a stale pair in the Tier-0 frame's unused slots */
  stack[9] = OSR_STALE_RA;
  stack[10] = v; /* the Tier-0 frame record */
  stack[11] = OSR_CALLER_RA;
  stack[16] = 0;
  stack[17] = OSR_OUTER_RA;
  SxsUnwindCache *cache = sxs__unwind_cache_new(8);
  SxsRegs regs = {.ip = OSR_IP, .sp = (uintptr_t)&stack[0], .fp = (uintptr_t)&stack[4]};
  SxsNativeFrame frames[8];
  int guessed = 7;
  uintptr_t patchpoint = 1;
  int n = sxs__unwind_from_regs_guessed(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 24), osr_knows_code,
                                        stack, cache, frames, 8, &guessed, &patchpoint);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[1].ip, ==, OSR_STALE_RA);
  g_assert_cmphex(patchpoint, ==, OSR_PATCHPOINT);
  g_assert_cmpint(guessed, ==, 0);

  g_assert_false(sxs__unwind_cache_knows_osr(cache, OSR_PATCHPOINT));
  SxsPrologue frameless = {.framed = false, .frame_bytes = 8};
  g_assert_false(sxs__unwind_cache_note_osr(cache, OSR_PATCHPOINT, &frameless));
  SxsPrologue tier0 = {.framed = true, .record_above = 32, .prologue_len = 10};
  g_assert_true(sxs__unwind_cache_note_osr(cache, OSR_PATCHPOINT, &tier0));
  g_assert_true(sxs__unwind_cache_knows_osr(cache, OSR_PATCHPOINT));
  g_assert_false(sxs__unwind_cache_knows(cache, OSR_PATCHPOINT)); /* not a return address's rule */
  n = sxs__unwind_from_regs_guessed(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 24), osr_knows_code,
                                    stack, cache, frames, 8, &guessed, &patchpoint);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[1].ip, ==, OSR_CALLER_RA);
  g_assert_cmphex(frames[1].sp, ==, (uintptr_t)&stack[12]);
  g_assert_cmphex(frames[2].ip, ==, OSR_OUTER_RA);
  g_assert_cmphex(patchpoint, ==, 0);

  uintptr_t copy[24];
  memcpy(copy, stack, sizeof copy);
  SxsNativeFrame again[8];
  n = sxs__unwind_from_copy(&regs, true, (uintptr_t)&stack[0], copy, sizeof copy, osr_knows_code, stack, cache, again,
                            8, NULL);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(again[1].ip, ==, OSR_CALLER_RA);

  /* Taught a record where none is: looked for by the layout (the stale pair again). */
  SxsUnwindCache *wrong = sxs__unwind_cache_new(8);
  SxsPrologue off = {.framed = true, .record_above = 64, .prologue_len = 10};
  g_assert_true(sxs__unwind_cache_note_osr(wrong, OSR_PATCHPOINT, &off));
  n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 24), osr_knows_code, stack, wrong,
                            frames, 8);
  g_assert_cmphex(frames[1].ip, ==, OSR_STALE_RA);
  sxs__unwind_cache_free(wrong);
  sxs__unwind_cache_free(cache);
}

/* A JIT method without a frame pointer (design.md, "Stack truth"): B, framed, is called by A, which only pushed
 * RBX, called by C. B's frame record holds C's frame pointer (A never set RBP), so the frame-pointer walk goes from
 * A to C's caller and C is lost; once the cache is taught A's frame at its return address (its prologue's 8 bytes),
 * the walk steps A by it and finds C. A rule that leads to no code is not followed. */
#define JIT_B_IP ((uintptr_t)0x10004040)
#define JIT_A_RA ((uintptr_t)0x10005050)
#define JIT_C_RA ((uintptr_t)0x10006060)

static void test_frameless_jit(void) {
  uintptr_t stack[16] = {0};
  stack[2] = (uintptr_t)&stack[8]; /* B's record: C's rbp (A keeps it), the return into A */
  stack[3] = JIT_A_RA;
  stack[4] = 0x7f0000009abc; /* A's pushed rbx */
  stack[5] = JIT_C_RA;       /* A's return address, 8 bytes above its sp */
  stack[6] = 0x1234;         /* C's locals */
  stack[8] = 0;              /* C's record: the end of the chain */
  stack[9] = OSR_OUTER_RA;
  SxsRegs regs = {.ip = JIT_B_IP, .sp = (uintptr_t)&stack[0], .fp = (uintptr_t)&stack[2]};
  SxsUnwindCache *cache = sxs__unwind_cache_new(8);
  SxsNativeFrame frames[8];
  int n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack,
                                cache, frames, 8);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[1].ip, ==, JIT_A_RA);
  g_assert_cmphex(frames[2].ip, ==, OSR_OUTER_RA);

  SxsPrologue a = {.framed = false, .frame_bytes = 8, .rbp_slot = 0, .prologue_len = 1};
  g_assert_false(sxs__unwind_cache_knows(cache, JIT_A_RA));
  g_assert_true(sxs__unwind_cache_note_jit(cache, JIT_A_RA, &a));
  g_assert_true(sxs__unwind_cache_knows(cache, JIT_A_RA));
  n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack, cache,
                            frames, 8);
  g_assert_cmpint(n, ==, 4);
  g_assert_cmphex(frames[1].ip, ==, JIT_A_RA);
  g_assert_cmphex(frames[1].sp, ==, (uintptr_t)&stack[4]);
  g_assert_cmphex(frames[2].ip, ==, JIT_C_RA);
  g_assert_cmphex(frames[2].sp, ==, (uintptr_t)&stack[6]);
  g_assert_cmphex(frames[3].ip, ==, OSR_OUTER_RA);
  g_assert_cmphex(frames[3].sp, ==, (uintptr_t)&stack[10]);

  /* The word the rule reads is no code (the frame is not what was learned): the frame-pointer step as before. */
  stack[5] = 0x7f0000005678;
  n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack, cache,
                            frames, 8);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[2].ip, ==, OSR_OUTER_RA);

  /* A framed method's note is a frame-pointer rule: nothing changes for it. */
  stack[5] = JIT_C_RA;
  g_assert_true(sxs__unwind_cache_note_jit(cache, JIT_C_RA, NULL));
  SxsPrologue huge = {.framed = false, .frame_bytes = 0xFFFFFFFFu};
  g_assert_false(sxs__unwind_cache_note_jit(cache, JIT_B_IP, &huge));
  sxs__unwind_cache_free(cache);
}

/* A frameless JIT leaf interrupted in its body (after its `push rax`): RBP is still its caller C's, so the
 * frame-pointer step from the leaf goes to C's caller and C is lost; taught the frame at that instruction
 * (sxs__unwind_cache_note_jit_at: the return address 8 bytes above sp), the walk steps the leaf by it and finds C,
 * on the stack and over a copy of it (sxs__unwind_from_copy). The instruction's rule is kept apart from a return
 * address's at the same address, and a mark of "not known" changes nothing. */
#define JIT_LEAF_IP ((uintptr_t)0x10007070)

static void test_frameless_jit_leaf(void) {
  uintptr_t stack[16] = {0};
  stack[0] = 0x7f0000009abc; /* the leaf's pushed rax */
  stack[1] = JIT_C_RA;       /* its return address into C */
  stack[2] = 0x1234;         /* C's locals */
  stack[4] = 0;              /* C's record: the end of the chain */
  stack[5] = OSR_OUTER_RA;
  SxsRegs regs = {.ip = JIT_LEAF_IP, .sp = (uintptr_t)&stack[0], .fp = (uintptr_t)&stack[4]};
  SxsUnwindCache *cache = sxs__unwind_cache_new(8);
  SxsNativeFrame frames[8];
  int n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack,
                                cache, frames, 8);
  g_assert_cmpint(n, ==, 2);
  g_assert_cmphex(frames[1].ip, ==, OSR_OUTER_RA);

  /* "Not known": marked as looked at, and the frame-pointer step as before. */
  bool known = true;
  g_assert_false(sxs__unwind_cache_knows_at(cache, JIT_LEAF_IP, &known));
  g_assert_true(sxs__unwind_cache_note_jit_at(cache, JIT_LEAF_IP, NULL));
  g_assert_true(sxs__unwind_cache_knows_at(cache, JIT_LEAF_IP, &known));
  g_assert_false(known);
  n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack, cache,
                            frames, 8);
  g_assert_cmpint(n, ==, 2);

  SxsUnwindCache *taught = sxs__unwind_cache_new(8);
  SxsFrameAt body = {.kind = SXS_FRAME_AT_SP, .ra_offset = 8, .rbp_slot = 0};
  g_assert_true(sxs__unwind_cache_note_jit_at(taught, JIT_LEAF_IP, &body));
  g_assert_true(sxs__unwind_cache_knows_at(taught, JIT_LEAF_IP, &known));
  g_assert_true(known);
  g_assert_false(sxs__unwind_cache_knows(taught, JIT_LEAF_IP)); /* not a return address's rule */
  n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack,
                            taught, frames, 8);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[1].ip, ==, JIT_C_RA);
  g_assert_cmphex(frames[1].sp, ==, (uintptr_t)&stack[2]);
  g_assert_cmphex(frames[2].ip, ==, OSR_OUTER_RA);
  g_assert_cmphex(frames[2].sp, ==, (uintptr_t)&stack[6]);

  /* The same address reached as a return address (not interrupted there) keeps the frame-pointer step. */
  n = sxs__unwind_from_regs(&regs, false, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack,
                            taught, frames, 8);
  g_assert_cmpint(n, ==, 2);

  /* The same walk over a copy of the stack: the same frames, at the stack's addresses; a copy too short for the
   * record the walk needs ends it there. */
  uintptr_t copy[16];
  memcpy(copy, stack, sizeof copy);
  memset(stack, 0, sizeof stack);
  SxsNativeFrame again[8];
  uintptr_t end_fp = 1;
  n = sxs__unwind_from_copy(&regs, true, (uintptr_t)&stack[0], copy, sizeof copy, osr_knows_code, stack, taught, again,
                            8, &end_fp);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(again[1].ip, ==, JIT_C_RA);
  g_assert_cmphex(again[1].sp, ==, (uintptr_t)&stack[2]);
  g_assert_cmphex(again[2].ip, ==, OSR_OUTER_RA);
  g_assert_cmphex(again[2].sp, ==, (uintptr_t)&stack[6]);
  g_assert_cmphex(end_fp, ==, 0); /* ended at the chain's end, inside the copy */
  n = sxs__unwind_from_copy(&regs, true, (uintptr_t)&stack[0], copy, 4 * sizeof copy[0], osr_knows_code, stack, taught,
                            again, 8, &end_fp);
  g_assert_cmpint(n, ==, 2); /* C's record (stack[4], stack[5]) is not in the copy: the walk says where it is */
  g_assert_cmphex(end_fp, ==, (uintptr_t)&stack[4]);
  g_assert_cmpint(
      sxs__unwind_from_copy(&regs, true, (uintptr_t)&stack[0], copy, 8, osr_knows_code, stack, taught, again, 8, NULL),
      ==, -EINVAL);
  memcpy(stack, copy, sizeof copy);

  /* The word the rule reads is no code: the frame-pointer step. */
  stack[1] = 0x7f0000005678;
  n = sxs__unwind_from_regs(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), osr_knows_code, stack,
                            taught, frames, 8);
  g_assert_cmpint(n, ==, 2);
  g_assert_cmphex(frames[1].ip, ==, OSR_OUTER_RA);
  sxs__unwind_cache_free(cache);
  sxs__unwind_cache_free(taught);
}

/* Code in no module and in no executable mapping the walk was given: a piece of the code heap committed since the
 * mappings were read (the first captures through a new code version). Its frames are JIT code (no module's) but not
 * known code, and a step from them or to them is a guess the sampler makes again once it knows the code: the walk
 * says so (ret_guessed). A leaf interrupted there; a frameless caller whose taught rule leads to a return address
 * there (the step by it is not taken, and the frame-pointer step that is taken skips that caller); an OSR frame there,
 * over Tier-0 code as new. */
#define UNMAPPED_LO ((uintptr_t)0x18000000) /* [UNMAPPED_LO, OSR_CODE_HI): JIT code not in the mappings read */

static bool unmapped_knows_code(uintptr_t ip, void *user_data, const SxsEhFrame **ret_eh) {
  (void)user_data;
  if (ret_eh != NULL)
    return ip >= OSR_CODE_LO && ip < OSR_CODE_HI; /* in no module */
  return ip >= OSR_CODE_LO && ip < UNMAPPED_LO;
}

static void test_guess_unmapped(void) {
  uintptr_t stack[16] = {0};
  stack[0] = 0x7f0000009abc;       /* A's pushed rbx (A: frameless, called by C) */
  stack[1] = UNMAPPED_LO + 0x2020; /* A's return address into C, in code not mapped yet */
  stack[2] = 0x1234;               /* C's locals */
  stack[4] = 0;                    /* C's record: the end of the chain */
  stack[5] = OSR_OUTER_RA;
  SxsRegs regs = {.ip = UNMAPPED_LO + 0x1010, .sp = (uintptr_t)&stack[0], .fp = (uintptr_t)&stack[4]};
  SxsUnwindCache *cache = sxs__unwind_cache_new(8);
  SxsNativeFrame frames[8];
  int guessed = 7;
  /* The leaf in code not mapped yet, nothing known of it: its frame-pointer step is a guess. */
  int n = sxs__unwind_from_regs_guessed(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16),
                                        unmapped_knows_code, NULL, cache, frames, 8, &guessed, NULL);
  g_assert_cmpint(n, ==, 2);
  g_assert_cmphex(frames[1].ip, ==, OSR_OUTER_RA);
  g_assert_cmpint(guessed, ==, 0);

  /* The leaf A in known code, its frame taught: the rule leads to C's return address, not in the mappings; the
   * frame-pointer step is taken, and it is a guess. */
  regs.ip = JIT_LEAF_IP;
  SxsFrameAt body = {.kind = SXS_FRAME_AT_SP, .ra_offset = 8, .rbp_slot = 0};
  g_assert_true(sxs__unwind_cache_note_jit_at(cache, JIT_LEAF_IP, &body));
  n = sxs__unwind_from_regs_guessed(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), unmapped_knows_code,
                                    NULL, cache, frames, 8, &guessed, NULL);
  g_assert_cmpint(n, ==, 2);
  g_assert_cmphex(frames[1].ip, ==, OSR_OUTER_RA);
  g_assert_cmpint(guessed, ==, 0);

  /* C's code mapped: the rule is followed, C found, nothing guessed. */
  stack[1] = JIT_C_RA;
  g_assert_true(sxs__unwind_cache_note_jit(cache, JIT_C_RA, NULL));
  g_assert_true(sxs__unwind_cache_note_jit(cache, OSR_OUTER_RA, NULL));
  n = sxs__unwind_from_regs_guessed(&regs, true, false, (uintptr_t)stack, (uintptr_t)(stack + 16), unmapped_knows_code,
                                    NULL, cache, frames, 8, &guessed, NULL);
  g_assert_cmpint(n, ==, 3);
  g_assert_cmphex(frames[1].ip, ==, JIT_C_RA);
  g_assert_cmphex(frames[2].ip, ==, OSR_OUTER_RA);
  g_assert_cmpint(guessed, ==, -1);

  /* An OSR frame in code the mappings do not hold yet, its patchpoint in Tier-0 code as new: the capture's walk (it
   * says what it guessed) reads the Tier-0 record and its caller, which is code it knows; a walk that says nothing of
   * guesses keeps to the code it knows (the patchpoint read as a frame). */
  uintptr_t osr[24] = {0};
  uintptr_t v = (uintptr_t)&osr[16];
  osr[4] = v;
  osr[5] = UNMAPPED_LO + 0x100; /* the patchpoint */
  osr[10] = v;                  /* the Tier-0 record */
  osr[11] = OSR_CALLER_RA;
  osr[17] = OSR_OUTER_RA;
  SxsRegs in_osr = {.ip = UNMAPPED_LO + 0x1010, .sp = (uintptr_t)&osr[0], .fp = (uintptr_t)&osr[4]};
  uintptr_t patchpoint = 0;
  n = sxs__unwind_from_regs_guessed(&in_osr, true, false, (uintptr_t)osr, (uintptr_t)(osr + 24), unmapped_knows_code,
                                    NULL, cache, frames, 8, &guessed, &patchpoint);
  g_assert_cmpint(n, >=, 2);
  g_assert_cmphex(frames[1].ip, ==, OSR_CALLER_RA);
  g_assert_cmphex(frames[1].sp, ==, (uintptr_t)&osr[12]);
  g_assert_cmphex(patchpoint, ==, UNMAPPED_LO + 0x100);
  n = sxs__unwind_from_regs(&in_osr, true, false, (uintptr_t)osr, (uintptr_t)(osr + 24), unmapped_knows_code, NULL,
                            cache, frames, 8);
  g_assert_cmphex(frames[1].ip, ==, UNMAPPED_LO + 0x100);
  sxs__unwind_cache_free(cache);
}

static void test_remote(void) {
  int fds[2];
  Probe *p = probe_with_pipe(PROBE_BLOCK, fds);
  pthread_t thread;
  SxsRegs regs;
  start_until_blocked(remote_thread_start, p, &thread, &regs);
  Outside *o = outside_new();
  Walk first, again;
  first.n = outside_walk(o, &regs, p, &first);
  again.n = outside_walk(o, &regs, p, &again);
  g_assert_cmpint(sxs__unwind_remote(&regs, p->lo, p->hi, NULL, NULL, NULL, NULL, first.frames, MAX_FRAMES), ==,
                  -EINVAL);
  g_assert_cmpint(write(fds[1], "x", 1), ==, 1);
  g_assert_cmpint(pthread_join(thread, NULL), ==, 0);

  /* frames[0] is where read() blocks (libc), then possibly more of libc, then the chain. */
  g_assert_cmpuint(first.frames[0].ip, ==, regs.ip);
  g_assert_cmpuint(first.frames[0].sp, ==, regs.sp);
  g_assert_cmpstr(func_name(first.frames[0].ip), ==, "?");
  int at = walk_find(&first, "chain_6");
  g_assert_cmpint(at, >=, 1);
  assert_chain_at(&first, at, "remote_thread");
  assert_sp_increasing(&first, p->lo, p->hi);
  g_assert_cmpint(again.n, ==, first.n);
  assert_same_frames(&first, 0, &again, 0, first.n);
  outside_free(o);
  close(fds[0]);
  close(fds[1]);
  g_free(p);
}

/* A thread parked in a signal handler that interrupted chain_6 (the handler blocks in read()), walked by this thread
 * from what /proc gives, from outside and over a copy of its stack: through libc's read and the handler by their
 * unwind tables, then through the signal trampoline (glibc's __restore_rt, whose caller no unwind row gives) to the
 * interrupted instruction in chain_6, from the ucontext the kernel saved, and on by the chain to the thread's start.
 * A frame-pointer step at the trampoline read a word of the signal frame as its caller. */
static void test_signal_frame(void) {
  int fds[2];
  Probe *p = probe_with_pipe(PROBE_BLOCK_IN_HANDLER, fds);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_block_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  signal_probe = p;
  g_assert_cmpint(sigaction(SIGUSR2, &sa, &old), ==, 0);
  pthread_t thread;
  SxsRegs regs;
  start_until_blocked(remote_thread_start, p, &thread, &regs);
  Outside *o = outside_new();
  Walk outside, copied;
  outside.n = outside_walk(o, &regs, p, &outside);
  /* The copy walk starts where the handler took its own registers (a walk from a signal handler knows RBP). */
  uintptr_t copy_lo = p->regs.sp & ~(uintptr_t)7;
  size_t len = p->hi - copy_lo;
  void *copy = g_malloc(len);
  g_assert_true(remote_read(copy_lo, copy, len, NULL));
  SxsUnwindCache *fresh = sxs__unwind_cache_new(10);
  copied.n = sxs__unwind_from_copy(&p->regs, true, copy_lo, copy, len, sxs__stitch_is_fp_code, &o->cursor, fresh,
                                   copied.frames, MAX_FRAMES, NULL);
  g_assert_cmpint(write(fds[1], "x", 1), ==, 1);
  g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
  g_assert_cmpint(sigaction(SIGUSR2, &old, NULL), ==, 0);
  signal_probe = NULL;

  static const uint8_t sigreturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  const Walk *walks[] = {&outside, &copied};
  for (gsize w = 0; w < G_N_ELEMENTS(walks); w++) {
    const Walk *walk = walks[w];
    g_autofree char *text = walk_describe(walk);
    g_test_message("%s: %s", w == 0 ? "from outside" : "over a copy", text);
    int at = walk_find(walk, "chain_6");
    g_assert_cmpint(at, >=, 2);
    /* the trampoline, then chain_6 at the instruction after the system call it made */
    g_assert_cmpmem((const void *)walk->frames[at - 1].ip, sizeof sigreturn, sigreturn, sizeof sigreturn);
    g_assert_cmpuint(((const uint8_t *)walk->frames[at].ip)[-2], ==, 0x0f);
    g_assert_cmpuint(((const uint8_t *)walk->frames[at].ip)[-1], ==, 0x05);
    g_assert_cmpint(walk_find(walk, "on_block_signal"), >=, 0);
    g_assert_cmpint(walk_find(walk, "chain_5"), ==, at + 1);
    g_assert_cmpint(walk_find(walk, "on_block_signal"), <, at - 1);
    assert_chain_at(walk, at, "remote_thread");
    assert_sp_increasing(walk, p->lo, p->hi);
  }
  outside_free(o);
  sxs__unwind_cache_free(fresh);
  g_free(copy);
  close(fds[0]);
  close(fds[1]);
  g_free(p);
}

/* ---- a return-address hijack: hijacked_caller calls hijack_method, which returns into hijack_stub ---- */

/* The stub as CoreCLR's OnHijackTripThread is made: entered by a return (no return address pushed), it pushes a
 * placeholder and registers with the unwind rows of a called function, puts the real return address into the
 * placeholder (the runtime's worker does), calls hijack_worker, and returns through the placeholder. hijack_method
 * swaps its own return address for the stub's, as a suspension does. */
uintptr_t hijack_real_ra;
int hijack_worker(void);
int hijack_stub(void);
int hijack_method(void);
__asm__(".pushsection .text\n"
        ".globl hijack_stub\n"
        ".type hijack_stub, @function\n"
        "hijack_stub:\n"
        ".cfi_startproc\n"
        "push %rax\n"
        ".cfi_adjust_cfa_offset 8\n"
        "push %rbp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "push %rbx\n"
        ".cfi_adjust_cfa_offset 8\n"
        "sub $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "mov hijack_real_ra(%rip), %rax\n"
        "mov %rax, 24(%rsp)\n"
        "call hijack_worker\n"
        "add $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "pop %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        "pop %rbp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size hijack_stub, .-hijack_stub\n"
        ".globl hijack_method\n"
        ".type hijack_method, @function\n"
        "hijack_method:\n"
        ".cfi_startproc\n"
        "mov (%rsp), %rax\n"
        "mov %rax, hijack_real_ra(%rip)\n"
        "lea hijack_stub(%rip), %rax\n"
        "mov %rax, (%rsp)\n"
        "xor %eax, %eax\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size hijack_method, .-hijack_method\n"
        ".popsection\n");

static Probe *hijack_probe;

/* For PROBE_BLOCK, blocks in read() for another thread to walk it from outside; then walks its own stack from here
 * as a sampling handler would (the stitcher's classifier and a rules cache, no libunwind). */
TEST_NOINLINE int hijack_worker(void) {
  Probe *p = hijack_probe;
  if (p->action == PROBE_BLOCK) {
    /* libc's system call wrapper, which no sanitizer intercepts (its frames would come between) */
    char c;
    g_assert_cmpint(syscall(SYS_read, p->pipe_read, &c, 1), ==, 1);
  }
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  SxsModmapCursor cursor = {.map = map};
  SxsUnwindCache *cache = sxs__unwind_cache_new(10);
  SXS_REGS_CAPTURE(&p->regs);
  p->walk[WALK_HYBRID].n = sxs__unwind_from_regs(&p->regs, true, false, p->lo, p->hi, sxs__stitch_is_fp_code, &cursor,
                                                 cache, p->walk[WALK_HYBRID].frames, MAX_FRAMES);
  sxs__unwind_cache_free(cache);
  __asm__ volatile("" ::: "memory");
  return 3;
}

TEST_NOINLINE static int hijacked_caller(Probe *p) {
  g_assert_cmpint(sxs__unwind_stack_bounds(&p->lo, &p->hi), ==, 0);
  int r = hijack_method();
  __asm__ volatile("" ::: "memory");
  return r + 1;
}

static void *hijack_thread(void *data) {
  remote_tid = gettid();
  g_assert_cmpint(hijacked_caller(data), ==, 4);
  return NULL;
}

/* The walk of a thread in a hijack stub's call: after the worker, the stub (a walk from outside that finds RBP by
 * the frame records in the stack may step past it: the stub's saved RBP and the placeholder look like one), then the
 * method's caller at the address the placeholder holds (the stub's rows would give a word of the caller's frame),
 * with the sp the method returned to, then the caller's caller. */
static void assert_hijack_walk(const Walk *w, const char *what, uintptr_t caller_sp) {
  g_autofree char *text = walk_describe(w);
  g_test_message("%s: %s", what, text);
  int worker = walk_find(w, "hijack_worker"), at = walk_find(w, "hijacked_caller");
  g_assert_cmpint(worker, >=, 0);
  g_assert_cmpint(at, >, worker);
  for (int i = worker + 1; i < at; i++)
    g_assert_cmpstr(func_name(w->frames[i].ip), ==, "hijack_stub");
  g_assert_cmpuint(w->frames[at].ip, ==, hijack_real_ra);
  g_assert_cmpuint(w->frames[at].sp, ==, caller_sp);
  g_assert_cmpstr(func_name(w->frames[at + 1].ip), ==, "hijack_thread");
}

static void test_hijack(void) {
  /* On this thread: the walk a signal handler makes. */
  Probe *p = probe_new(PROBE_WALK);
  hijack_probe = p;
  g_assert_cmpint(hijacked_caller(p), ==, 4);
  g_assert_cmpint(p->walk[WALK_HYBRID].n, >, 0);
  g_assert_cmpstr(func_name(p->walk[WALK_HYBRID].frames[0].ip), ==, "hijack_worker");
  g_autofree char *text = walk_describe(&p->walk[WALK_HYBRID]);
  g_test_message("own walk: %s", text);
  int at = walk_find(&p->walk[WALK_HYBRID], "hijack_stub");
  g_assert_cmpint(at, ==, 1);
  g_assert_cmpuint(p->walk[WALK_HYBRID].frames[2].ip, ==, hijack_real_ra);
  g_assert_cmpstr(func_name(p->walk[WALK_HYBRID].frames[3].ip), ==, "test_hijack");
  g_free(p);

  /* A thread parked in the stub's call, walked from outside. */
  int fds[2];
  p = probe_with_pipe(PROBE_BLOCK, fds);
  hijack_probe = p;
  pthread_t thread;
  SxsRegs regs;
  start_until_blocked(hijack_thread, p, &thread, &regs);
  Outside *o = outside_new();
  Walk outside;
  outside.n = outside_walk(o, &regs, p, &outside);
  g_assert_cmpint(write(fds[1], "x", 1), ==, 1);
  g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
  const Walk *own = &p->walk[WALK_HYBRID];
  g_assert_cmpint(walk_find(own, "hijack_stub"), ==, 1);
  assert_hijack_walk(own, "the thread's own walk", own->frames[1].sp + 32);
  assert_hijack_walk(&outside, "from outside", own->frames[1].sp + 32);
  outside_free(o);
  close(fds[0]);
  close(fds[1]);
  g_free(p);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_assert_cmpint(sxs__unwind_init(), ==, 0);

  g_test_add_func("/stitch/unwind/regs", test_regs);
  g_test_add_func("/stitch/unwind/bounds", test_bounds);
  g_test_add_func("/stitch/unwind/walk/self", test_walk_self);
  g_test_add_func("/stitch/unwind/walk/signal", test_walk_signal);
  g_test_add_func("/stitch/unwind/walk/raise", test_walk_raise);
  g_test_add_func("/stitch/unwind/jit/small-frame", test_jit_small);
  g_test_add_func("/stitch/unwind/jit/large-frame", test_jit_large);
  g_test_add_func("/stitch/unwind/fp/corrupt", test_corrupt);
  g_test_add_func("/stitch/unwind/max", test_max);
  g_test_add_func("/stitch/unwind/busy", test_busy);
  g_test_add_func("/stitch/unwind/bad-ucontext", test_bad_ucontext);
  g_test_add_func("/stitch/unwind/cache", test_cache);
  g_test_add_func("/stitch/unwind/cache-signal", test_cache_signal);
  g_test_add_func("/stitch/unwind/remote", test_remote);
  g_test_add_func("/stitch/unwind/signal-frame", test_signal_frame);
  g_test_add_func("/stitch/unwind/hijack", test_hijack);
  g_test_add_func("/stitch/unwind/osr", test_osr);
  g_test_add_func("/stitch/unwind/osr-learned", test_osr_learned);
  g_test_add_func("/stitch/unwind/frameless-jit", test_frameless_jit);
  g_test_add_func("/stitch/unwind/frameless-jit-leaf", test_frameless_jit_leaf);
  g_test_add_func("/stitch/unwind/guess-unmapped", test_guess_unmapped);
  g_test_add_func("/stitch/unwind/benchmark", test_benchmark);
  return g_test_run();
}
