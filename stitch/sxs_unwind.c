/* Native stack walks of the calling thread (frame pointers, libunwind, hybrid); no symbols, no managed frames. */
#include "sxs_unwind.h"

#include "sxs_prologue.h"

#include "sxs_ipmap.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <glib.h>
#include <libunwind.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * Frames and their stack pointers
 * -------------------------------
 *
 * With frame pointers, each function's prologue pushes the caller's RBP and points RBP at that slot, so the frames
 * form a chain through the stack. A is interrupted (or captures its registers), B called A, C called B:
 *
 *             stack_hi
 *   |   C's frame                |
 *   +----------------------------+ <- frames[2].sp = B.fp + 16  (C's RSP at its call of B)
 *   |   return address into C    | <- frames[2].ip = [B.fp + 8]
 *   |   C's RBP                  | <- B.fp = [A.fp]
 *   |   B's locals               |
 *   +----------------------------+ <- frames[1].sp = A.fp + 16  (B's RSP at its call of A)
 *   |   return address into B    | <- frames[1].ip = [A.fp + 8]
 *   |   B's RBP                  | <- A.fp = regs.fp
 *   |   A's locals               |
 *   +----------------------------+ <- frames[0] = {regs.ip, regs.sp}
 *             stack_lo
 *
 * A frame's sp is its RSP at its call, which is the CFA of the frame it called. libunwind reports the same value
 * (UNW_REG_SP is the CFA), and so, by the x64 unwind convention, should the runtime for a managed frame: that is what
 * lets the stitcher interleave native and managed frames by sp. Each step checks the frame pointer before it reads through it (fp_step), so
 * every read is an aligned word inside [stack_lo, stack_hi) and above the starting RSP.
 *
 * libunwind 1.6.2 from a signal handler: what was checked
 * --------------------------------------------------------
 *
 * Read in the v1.6.2 source (src/x86_64/G{init,init_local,step}.c, src/dwarf/G{parser,find_proc_info-lsb}.c,
 * src/mi/Gset_caching_policy.c, include/libunwind_i.h) and, where marked, in Debian's libunwind8 1.6.2-3 binary:
 *   - unw_set_caching_policy(PER_THREAD) stores GLOBAL: HAVE___THREAD is never defined by 1.6.2's configure
 *     (binary: `cmp $2; cmove $1` before the store). The per-thread cache exists only with --enable-per-thread-cache
 *     and Debian's libunwind has no TLS for it (its PT_TLS is 16 bytes). GLOBAL is also the default policy.
 *   - The global register-state cache is looked up under a pthread mutex taken after sigprocmask() blocks every
 *     signal (lock_acquire, CONFIG_BLOCK_SIGNALS is on by default; binary imports sigprocmask and the weak
 *     pthread_mutex_lock). A thread holding it cannot be interrupted by our signal, so a handler never waits on a
 *     lock its own thread holds; it may wait for another thread's lookup. Those are two system calls per unw_step,
 *     cached or not (strace: 64 rt_sigprocmask per cached 32-frame walk), and they are most of its cost.
 *   - A cache miss (an IP never seen, or after unw_flush_cache) calls dl_iterate_phdr with all signals blocked,
 *     which takes glibc's recursive loader lock, then parses the FDE and CIE (CIE data from libunwind's mempool:
 *     a static pool, then mmap, under a signal-blocking lock). Hits take neither. No malloc either way (.debug_frame
 *     loading, which would allocate, is off on x86-64; a malloc interposer counted none in cold and cached walks).
 *   - Memory reads during unw_step are validated (CONSERVATIVE_CHECKS on by default): a page not among the last
 *     four good ones is checked with mincore() and a one-byte write() to a pipe, so a corrupt stack fails the step
 *     instead of faulting. Those calls set errno, which the walks here restore.
 *   - First use runs tdep_init (a mutex with signals blocked, pipe2, mincore): sxs__unwind_init() does it early.
 *   - unw_init_local2(UNW_INIT_SIGNAL_FRAME) makes the first frame's IP exact (not a return address) and only reads
 *     the ucontext; nothing here calls unw_set_reg, which would write into the stack.
 *   - Missing unwind info (JIT code): unw_step guesses from RBP (frame type GUESSED), takes CFA = the frame's sp + 16
 *     instead of RBP + 16, and returns 0 (the end) when RBP is more than 0x4000 above the frame's sp.
 * The walks keep a per-thread busy flag: a handler that interrupts a walk on its own thread gets -EBUSY rather than
 * reentering libunwind (with a real per-thread cache, that reentry would corrupt the cache).
 */

/*
 * libunwind, opened by sxs__unwind_init()
 * ---------------------------------------
 *
 * The library (and liblzma, which it links) is not linked: a run that never walks native code with it, the defaults
 * among them, does not map or relocate it. sxs__unwind_init() opens it in a normal context before the first walk that
 * may use it (the sampler's start, a thread's first stitched walk); until then, and if it cannot be opened, a walk
 * steps by frame pointers alone and those that must start with libunwind return -EFAULT. The table is written once,
 * before `ready` is set (release); a walk reads `ready` (acquire) and then only reads the table, so a signal handler
 * may walk.
 */
#define UNW_NAME(x) UNW_NAME_(x)
#define UNW_NAME_(x) #x
static struct {
  int (*getcontext)(unw_context_t *context);
  int (*init_local)(unw_cursor_t *cursor, unw_context_t *context);
  int (*init_local2)(unw_cursor_t *cursor, unw_context_t *context, int flags);
  int (*step)(unw_cursor_t *cursor);
  int (*get_reg)(unw_cursor_t *cursor, unw_regnum_t reg, unw_word_t *ret);
  int (*get_save_loc)(unw_cursor_t *cursor, int reg, unw_save_loc_t *ret);
  int (*is_signal_frame)(unw_cursor_t *cursor);
  int (*set_caching_policy)(unw_addr_space_t space, unw_caching_policy_t policy);
  unw_addr_space_t *local_addr_space;
  int ready;       /* atomic: the table is complete and the caching policy set */
  int init_result; /* what sxs__unwind_init() returns, written once under its g_once */
} unw;

static inline bool unw_ready(void) {
  return __atomic_load_n(&unw.ready, __ATOMIC_ACQUIRE) != 0;
}

/* Opens libunwind and fills the table; 0, or -ENOENT when the library or one of its symbols is missing. */
static int unw_load(void) {
  void *lib = dlopen(SXS_LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return -ENOENT;
  unw.getcontext = (__typeof__(unw.getcontext))dlsym(lib, UNW_NAME(unw_tdep_getcontext));
  unw.init_local = (__typeof__(unw.init_local))dlsym(lib, UNW_NAME(unw_init_local));
  unw.init_local2 = (__typeof__(unw.init_local2))dlsym(lib, UNW_NAME(unw_init_local2));
  unw.step = (__typeof__(unw.step))dlsym(lib, UNW_NAME(unw_step));
  unw.get_reg = (__typeof__(unw.get_reg))dlsym(lib, UNW_NAME(unw_get_reg));
  unw.get_save_loc = (__typeof__(unw.get_save_loc))dlsym(lib, UNW_NAME(unw_get_save_loc));
  unw.is_signal_frame = (__typeof__(unw.is_signal_frame))dlsym(lib, UNW_NAME(unw_is_signal_frame));
  unw.set_caching_policy = (__typeof__(unw.set_caching_policy))dlsym(lib, UNW_NAME(unw_set_caching_policy));
  unw.local_addr_space = dlsym(lib, UNW_NAME(unw_local_addr_space));
  if (!unw.getcontext || !unw.init_local || !unw.init_local2 || !unw.step || !unw.get_reg || !unw.get_save_loc ||
      !unw.is_signal_frame || !unw.set_caching_policy || !unw.local_addr_space)
    return -ENOENT;
  return 0;
}

/* Set while this thread is inside a libunwind or hybrid walk. initial-exec: reading it from a signal handler in a
 * dlopen'ed library must not call __tls_get_addr, which may allocate. */
static __thread volatile sig_atomic_t unwind_busy __attribute__((tls_model("initial-exec")));

void sxs__regs_from_ucontext(SxsRegs *ret, const void *ucontext) {
  const ucontext_t *uc = ucontext;
  ret->ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  ret->sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
  ret->fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
}

int sxs__unwind_stack_bounds(uintptr_t *ret_lo, uintptr_t *ret_hi) {
  pthread_attr_t attr;
  void *addr = NULL;
  size_t size = 0;

  if (ret_lo == NULL || ret_hi == NULL)
    return -EINVAL;
  int r = pthread_getattr_np(pthread_self(), &attr);
  if (r != 0)
    return -r;
  r = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (r != 0)
    return -r;
  *ret_lo = (uintptr_t)addr;
  *ret_hi = (uintptr_t)addr + size;
  return 0;
}

/*
 * One frame-pointer step from the frame whose stack pointer is sp and frame pointer fp: the caller's frame into
 * *ret_frame and the caller's frame pointer into *ret_fp, or false (nothing written) when fp is not a plausible frame
 * pointer of that frame on this stack or the return address is 0. The checks come before the only two reads, [fp]
 * and [fp + 8], so both are inside [lo, hi); hi - fp avoids the overflow of fp + 16.
 *
 * Not instrumented by AddressSanitizer: it reads stack words that belong to other frames, as a debugger would, and a
 * foreign RBP may point into a poisoned redzone of an instrumented frame. The bounds checks are what keep it safe;
 * the unit test puts the stack between inaccessible pages to prove it.
 * Context: any thread; async-signal-safe.
 */
__attribute__((no_sanitize_address)) static inline bool fp_step_at(uintptr_t sp, uintptr_t fp, uintptr_t lo,
                                                                   uintptr_t hi, intptr_t mem,
                                                                   SxsNativeFrame *ret_frame, uintptr_t *ret_fp) {
  if ((fp & 7) != 0 || fp < sp || fp < lo || fp >= hi || hi - fp < 16)
    return false;
  const uintptr_t *slot = (const uintptr_t *)(fp + (uintptr_t)mem);
  uintptr_t ip = slot[1];
  if (ip == 0)
    return false;
  ret_frame->ip = ip;
  ret_frame->sp = fp + 16;
  *ret_fp = slot[0];
  return true;
}

/* fp_step reading the stack where it is (no copy). */
static inline bool fp_step(uintptr_t sp, uintptr_t fp, uintptr_t lo, uintptr_t hi, SxsNativeFrame *ret_frame,
                           uintptr_t *ret_fp) {
  return fp_step_at(sp, fp, lo, hi, 0, ret_frame, ret_fp);
}

/*
 * A signal trampoline: glibc's x86-64 __restore_rt (`mov $15, %rax` (rt_sigreturn); `syscall`), which a handler
 * returns to with the stack pointer at the ucontext_t the kernel saved the interrupted registers in. Its caller is
 * the interrupted instruction (an exact ip), not a return address: no unwind row says where it is (the tables give it
 * by DWARF expressions over that ucontext). libunwind knows the frame; a walk of a stack copy or of a thread from
 * outside does not start libunwind, and took a frame-pointer step there: a thread parked in a handler (a runtime
 * stops its threads for a suspension in its activation signal's handler) read a word of the signal frame as its
 * caller, and lost the interrupted frame. The table's signal-frame mark (its CIE's 'S') says where to look; the code
 * read, inside the FDE's range, says it is the rt_sigreturn trampoline.
 * Context: any thread; async-signal-safe. eh: the module of ip, loaded for the call.
 */
static const uint8_t RT_SIGRETURN_CODE[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
#define UC_RIP offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP])
#define UC_RSP offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP])
#define UC_RBP offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP])

static bool is_sigreturn(const SxsEhFrame *eh, uintptr_t ip) {
  uintptr_t end;
  return eh != NULL && sxs__cfi_signal_frame(eh, ip, &end) && end - ip >= sizeof RT_SIGRETURN_CODE &&
         memcmp((const void *)ip, RT_SIGRETURN_CODE, sizeof RT_SIGRETURN_CODE) == 0;
}

bool sxs__unwind_is_signal_trampoline(const SxsEhFrame *eh, uintptr_t ip) {
  return is_sigreturn(eh, ip);
}

/* A stack's word for signal_frame_step: [lo, hi) read where it is, or in a copy displaced by mem. */
typedef struct {
  uintptr_t lo, hi;
  intptr_t mem;
} StackView;

__attribute__((no_sanitize_address)) static bool stack_view_word(uintptr_t at, uintptr_t *ret, void *data) {
  const StackView *v = data;
  if ((at & 7) != 0 || at < v->lo || at > v->hi || v->hi - at < 8)
    return false;
  *ret = *(const uintptr_t *)(at + (uintptr_t)v->mem);
  return true;
}

/* The interrupted registers of the signal frame at sp (a trampoline's frame, is_sigreturn), read through read (a
 * word at a stack address, false when it cannot be read): false unless the interrupted frame lies above it on the
 * same stack (a handler on an alternate signal stack is not followed back) with a non-zero ip. */
static bool signal_frame_step(uintptr_t sp, uintptr_t hi, bool (*read)(uintptr_t at, uintptr_t *ret, void *data),
                              void *data, SxsRegs *ret_next) {
  SxsRegs next;
  if (!read(sp + UC_RIP, &next.ip, data) || !read(sp + UC_RSP, &next.sp, data) || !read(sp + UC_RBP, &next.fp, data))
    return false;
  if (next.ip == 0 || next.sp <= sp || next.sp > hi)
    return false;
  *ret_next = next;
  return true;
}

__attribute__((no_sanitize_address)) int sxs__unwind_fp(const SxsRegs *regs, uintptr_t stack_lo, uintptr_t stack_hi,
                                                        SxsNativeFrame *frames, int max) {
  if (regs == NULL || max < 0 || (max > 0 && frames == NULL) || stack_lo >= stack_hi)
    return -EINVAL;
  if (max == 0)
    return 0;

  frames[0].ip = regs->ip;
  frames[0].sp = regs->sp;
  if (regs->sp < stack_lo || regs->sp > stack_hi)
    return 1;

  uintptr_t sp = regs->sp, fp = regs->fp;
  int n = 1;
  while (n < max && fp_step(sp, fp, stack_lo, stack_hi, &frames[n], &fp)) {
    sp = frames[n].sp;
    n++;
  }
  return n;
}

int sxs__unwind_init(void) {
  static gsize once;
  if (g_once_init_enter(&once)) {
    int r = unw_load();
    if (r == 0 && unw.set_caching_policy(*unw.local_addr_space, UNW_CACHE_PER_THREAD) != 0)
      r = -EINVAL;
    unw.init_result = r;
    if (r == 0)
      __atomic_store_n(&unw.ready, 1, __ATOMIC_RELEASE);
    g_once_init_leave(&once, 1);
  }
  return unw.init_result;
}

/* Marks this thread as walking; false when it already is (we are a signal handler that interrupted a walk). The
 * check and the set need no atomicity: a handler that runs between them finishes before the walk goes on. */
static bool busy_enter(void) {
  if (unwind_busy)
    return false;
  unwind_busy = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return true;
}

static void busy_leave(void) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  unwind_busy = 0;
}

/* The ip and sp of the cursor's frame, and its RBP when want_fp (0 when libunwind does not know where it is). */
static bool cursor_regs(unw_cursor_t *cursor, SxsRegs *ret, bool want_fp) {
  unw_word_t ip, sp, fp = 0;
  if (unw.get_reg(cursor, UNW_REG_IP, &ip) < 0 || unw.get_reg(cursor, UNW_REG_SP, &sp) < 0)
    return false;
  if (want_fp && unw.get_reg(cursor, UNW_X86_64_RBP, &fp) < 0)
    fp = 0;
  ret->ip = ip;
  ret->sp = sp;
  ret->fp = fp;
  return true;
}

/* Points the cursor at the frame {ip, sp, fp}, through a context that holds only those three registers: ip is a
 * return address (flags 0: libunwind looks up ip - 1), or with exact an interrupted instruction (libunwind looks up
 * ip itself); the rules of x86-64 unwind tables need no other register to find the caller. The cursor keeps pointing
 * into *context. */
static bool cursor_reseed(unw_cursor_t *cursor, unw_context_t *context, const SxsRegs *regs, bool exact) {
  for (size_t i = 0; i < sizeof context->uc_mcontext.gregs / sizeof context->uc_mcontext.gregs[0]; i++)
    context->uc_mcontext.gregs[i] = 0;
  context->uc_mcontext.gregs[REG_RIP] = (greg_t)regs->ip;
  context->uc_mcontext.gregs[REG_RSP] = (greg_t)regs->sp;
  context->uc_mcontext.gregs[REG_RBP] = (greg_t)regs->fp;
  if (exact)
    return unw.init_local2(cursor, context, UNW_INIT_SIGNAL_FRAME) >= 0;
  return unw.init_local(cursor, context) >= 0;
}

/* Fills frames from a cursor standing on the first frame. */
static int walk_libunwind(unw_cursor_t *cursor, SxsNativeFrame *frames, int max) {
  SxsRegs cur, next;
  if (!cursor_regs(cursor, &cur, false))
    return -EFAULT;
  frames[0].ip = cur.ip;
  frames[0].sp = cur.sp;
  int n = 1;
  while (n < max && unw.step(cursor) > 0 && cursor_regs(cursor, &next, false) && next.ip != 0 && next.sp > cur.sp) {
    frames[n].ip = next.ip;
    frames[n].sp = next.sp;
    n++;
    cur = next;
  }
  return n;
}

/*
 * The step cache
 * --------------
 *
 * A libunwind step costs microseconds even when its own cache holds the unwind table row (two sigprocmask calls,
 * the generic DWARF machinery). But the row is the same every time a frame stands at the same return address: the
 * rule that finds the caller is static per ip. So the first libunwind step from a return address is turned into one
 * of two rules and remembered under that address:
 *
 *   FP rule   the frame keeps a frame pointer: the caller's frame is {[fp + 8], fp + 16}, its RBP is [fp]. Chosen
 *             when the caller's sp (the CFA) is fp + 16 and libunwind found the caller's RBP saved at fp.
 *   SP rule   CFA = sp + K; the return address is at CFA - 8; the caller's RBP is at CFA - M, or is this frame's own
 *             when the frame never saved it (M = 0).
 *
 *   NONE      libunwind found the end of the stack there (the thread's outermost frame): the walk goes straight to
 *             its frame-pointer fallback.
 *
 * Both are exact for code whose CFA is RSP-based (its offset is static per ip) or RBP + 16 (any frame-pointer
 * function, alloca included); a rule is cached only when applying it right away gives what libunwind gave (the
 * return address at CFA - 8, the saved RBP at CFA - M). A frame whose ip is exact rather than a return address (the
 * first frame of a walk from a signal, the frame a signal interrupted) has its rule under a key of its own
 * (CACHE_EXACT_KEY set), since the unwind-table row at an exact ip may differ from the one a return address there
 * uses. Not cached: signal trampolines (their caller comes from the saved context), steps libunwind could not make, a
 * caller's RBP restored from another register, and offsets beyond the rule's fields. Known limit: a frame that
 * realigns its stack (gcc's DRAP) has a CFA offset that varies per call; its rule checks out when learned and may be
 * off later. Entries are never removed: the owner drops the whole cache when a module is
 * unloaded (another could be loaded at its addresses). JIT code is stepped by frame pointers, except at a return
 * address the owner has taught an SP rule from its method's prologue (sxs__unwind_cache_note_jit): a method that
 * keeps no frame pointer.
 *
 * The table (sxs_ipmap.c) is open-addressed and lock-free: readers never wait, so signal handlers may read it.
 *
 * Where the walk is told the module's unwind tables (SxsUnwindIsFpCode's ret_eh), a rule is learned from them
 * directly (sxs_cfi.c reads the row in place, in about a microsecond, async-signal-safe) before libunwind is asked:
 * CFA = RSP + K gives an SP rule, CFA = RBP + 16 with RBP saved at CFA - 16 an FP rule, an undefined return address
 * NONE. Rows a rule cannot hold (DWARF expressions, a CFA in another register, signal trampolines) go to libunwind as
 * before. So in a signal handler a native frame costs a table lookup the first time it is seen, not a libunwind start
 * (tens of microseconds, and the loader lock).
 */
#define RULE_FP 1u
#define RULE_SP 2u
/* Keys of rules learned at an exact ip (no user-space address has this bit). */
#define CACHE_EXACT_KEY (UINT64_C(1) << 62)
#define RULE_NONE 3u /* libunwind cannot step from here (the end of the stack, or no unwind info) */
/* Keys of OSR patchpoints (osr_learned_frame): the Tier-0 frame record's distance above the OSR frame's record, kept
 * as a FP rule's value (NONE: the Tier-0 code's frame is not known). */
#define CACHE_OSR_KEY (UINT64_C(1) << 61)
/*
 * An SP rule's flag: the frame is a runtime's return-address hijack stub (OnHijackTripThread: to stop a thread
 * in code it cannot interrupt, a CoreCLR suspension swaps the return address of the thread's managed method for the
 * stub's address; the method returns into the stub, which pushes a placeholder (`push rax`) and the callee-saved
 * registers and calls the runtime, which writes the real return address into the placeholder, then parks the thread
 * until the suspension ends). Its unwind rows are those of a called function, so the word they give as its return
 * address is one of the method's caller's frame: threads parked there read a stray word as the caller of the stub
 * (1,091 of 95,457 samples of StackTruth on .NET 8, walker=suspend, wall mode, after the signal frames were read).
 * The real return address is the placeholder, at CFA - 16, and the method had returned to CFA - 8. The stub is
 * known by its first two instructions, `push rax; push rbp` (2.0 to 10.0), which compiled code does not begin with;
 * the flag is set only at a return address inside it (the placeholder is written before the runtime's call
 * returns or parks).
 */
#define RULE_HIJACK (UINT64_C(1) << 50)

/* Where the frame of an SP rule keeps its return address, from its CFA, and *ret_caller_sp the caller's sp: CFA - 8
 * and the CFA; in a hijack stub (RULE_HIJACK, learned only with a CFA offset of 16 or more, so the slot is in the
 * frame) the placeholder at CFA - 16 and CFA - 8. */
static inline uintptr_t rule_ra_slot(uint64_t rule, uintptr_t cfa, uintptr_t *ret_caller_sp) {
  bool hijack = (rule & RULE_HIJACK) != 0;
  *ret_caller_sp = hijack ? cfa - 8 : cfa;
  return hijack ? cfa - 16 : cfa - 8;
}

/* The rules are values of an SxsIpMap keyed by return address (the table and its claim/publish
 * protocol are sxs_ipmap.c's). */
struct SxsUnwindCache {
  SxsIpMap *rules;
};

SxsUnwindCache *sxs__unwind_cache_new(unsigned capacity_log2) {
  SxsIpMap *rules = sxs__ipmap_new(capacity_log2);
  if (rules == NULL)
    return NULL;
  SxsUnwindCache *cache = malloc(sizeof *cache);
  if (cache == NULL) {
    sxs__ipmap_free(rules);
    return NULL;
  }
  cache->rules = rules;
  return cache;
}

void sxs__unwind_cache_free(SxsUnwindCache *cache) {
  if (cache == NULL)
    return;
  sxs__ipmap_free(cache->rules);
  free(cache);
}

static void census_one(uintptr_t ip, uint64_t rule, void *user_data) {
  if ((ip & CACHE_OSR_KEY) != 0)
    return; /* a patchpoint's Tier-0 record, no step */
  unsigned *counts = user_data;
  counts[rule & 3u]++;
}

void sxs__unwind_cache_census(const SxsUnwindCache *cache, unsigned *ret_fp, unsigned *ret_sp, unsigned *ret_none) {
  unsigned counts[4] = {0, 0, 0, 0};
  if (cache != NULL)
    sxs__ipmap_foreach(cache->rules, census_one, counts);
  *ret_fp = counts[RULE_FP];
  *ret_sp = counts[RULE_SP];
  *ret_none = counts[RULE_NONE];
}

static inline bool cache_lookup(const SxsUnwindCache *cache, uintptr_t ip, uint64_t *ret_rule) {
  return sxs__ipmap_lookup(cache->rules, ip, ret_rule);
}

static inline void cache_insert(SxsUnwindCache *cache, uintptr_t ip, uint64_t rule) {
  sxs__ipmap_insert(cache->rules, ip, rule);
}

/* The SP rule CFA = sp + k, the caller's RBP at CFA - m (m 0: RBP unchanged), when k and m fit the rule's
 * fields (k in [8, 2^32), m below 2^16 and at most k). */
static bool sp_rule(uint64_t k, uint64_t m, uint64_t *ret_rule) {
  if (k < 8 || k >= (UINT64_C(1) << 32) || m >= (1u << 16) || m > k)
    return false;
  *ret_rule = RULE_SP | (k << 2) | (m << 34);
  return true;
}

bool sxs__unwind_cache_knows(const SxsUnwindCache *cache, uintptr_t ip) {
  uint64_t rule;
  return cache != NULL && cache_lookup(cache, ip, &rule);
}

bool sxs__unwind_cache_note_osr(SxsUnwindCache *cache, uintptr_t patchpoint, const SxsPrologue *tier0) {
  if (cache == NULL || patchpoint == 0 || (patchpoint & (CACHE_OSR_KEY | CACHE_EXACT_KEY)) != 0)
    return false;
  uint64_t rule = RULE_NONE;
  if (tier0 != NULL) {
    if (!tier0->framed || tier0->record_above >= (1u << 24))
      return false;
    rule = RULE_FP | ((uint64_t)(16 + tier0->record_above) << 2);
  }
  cache_insert(cache, patchpoint | CACHE_OSR_KEY, rule);
  return true;
}

bool sxs__unwind_cache_knows_osr(const SxsUnwindCache *cache, uintptr_t patchpoint) {
  uint64_t rule;
  return cache != NULL && cache_lookup(cache, patchpoint | CACHE_OSR_KEY, &rule);
}

bool sxs__unwind_cache_steps_by_sp(const SxsUnwindCache *cache, uintptr_t ip) {
  uint64_t rule;
  return cache != NULL && cache_lookup(cache, ip, &rule) && (rule & 3u) == RULE_SP;
}

bool sxs__unwind_cache_note_jit(SxsUnwindCache *cache, uintptr_t ip, const SxsPrologue *frame) {
  if (cache == NULL || ip == 0)
    return false;
  uint64_t rule = RULE_FP;
  if (frame != NULL && !frame->framed && !sp_rule((uint64_t)frame->frame_bytes + 8, frame->rbp_slot, &rule))
    return false;
  cache_insert(cache, ip, rule);
  return true;
}

bool sxs__unwind_cache_note_jit_at(SxsUnwindCache *cache, uintptr_t ip, const SxsFrameAt *frame) {
  if (cache == NULL || ip == 0)
    return false;
  uint64_t rule = RULE_NONE;
  if (frame != NULL && frame->kind == SXS_FRAME_AT_FP)
    rule = RULE_FP;
  else if (frame != NULL && !sp_rule((uint64_t)frame->ra_offset + 8, frame->rbp_slot, &rule))
    return false;
  cache_insert(cache, ip | CACHE_EXACT_KEY, rule);
  return true;
}

bool sxs__unwind_cache_knows_at(const SxsUnwindCache *cache, uintptr_t ip, bool *ret_known) {
  uint64_t rule;
  if (cache == NULL || !cache_lookup(cache, ip | CACHE_EXACT_KEY, &rule))
    return false;
  if (ret_known != NULL)
    *ret_known = (rule & 3u) != RULE_NONE;
  return true;
}

/* Turns the libunwind step cur -> next (the cursor now on next) into a rule, and caches it. */
__attribute__((no_sanitize_address)) static void cache_learn(SxsUnwindCache *cache, unw_cursor_t *cursor, uintptr_t key,
                                                             const SxsRegs *cur, const SxsRegs *next, uintptr_t hi) {
  unw_save_loc_t loc;
  bool saved = unw.get_save_loc(cursor, UNW_X86_64_RBP, &loc) == 0 && loc.type == UNW_SLT_MEMORY;
  /* A save slot below this frame's sp is not this frame's (libunwind reports the callee's or the context's slot
   * for a frame that never saved RBP): RBP passed through unchanged, or the rule cannot be cached. */
  if (saved && (uintptr_t)loc.u.addr < cur->sp)
    saved = false;
  uintptr_t cfa = next->sp;
  if (cfa < 8 || cfa > hi || ((cfa - 8) & 7) != 0)
    return;
  /* The rule must find what libunwind found, or it is not the rule (a signal frame's caller comes from the saved
   * context, not from [CFA - 8]). */
  if (*(const uintptr_t *)(cfa - 8) != next->ip)
    return;
  uint64_t rule;
  if (saved && cfa == cur->fp + 16 && loc.u.addr == cur->fp) {
    rule = RULE_FP;
  } else {
    uintptr_t k = cfa - cur->sp;
    uintptr_t m = saved ? cfa - (uintptr_t)loc.u.addr : 0;
    if (!saved && next->fp != cur->fp)
      return;
    if ((saved && (uintptr_t)loc.u.addr >= cfa) || !sp_rule(k, m, &rule))
      return;
    if (saved && ((uintptr_t)loc.u.addr & 7) == 0 && *(const uintptr_t *)(uintptr_t)loc.u.addr != next->fp)
      return;
  }
  cache_insert(cache, key, rule);
}

/* The rule for the frame at ip from its module's unwind tables (the row at ip itself when exact,
 * else at the call instruction before the return address ip). False when the row is not one a rule
 * can hold. Context: any thread; async-signal-safe. */
static bool rule_from_tables(const SxsEhFrame *eh, uintptr_t ip, bool exact, uint64_t *ret_rule) {
  SxsCfiRow row;
  if (ip == 0 || sxs__cfi_row(eh, exact ? ip : ip - 1, &row) != 0)
    return false;
  if (row.end) {
    *ret_rule = RULE_NONE;
    return true;
  }
  if (row.cfa_is_rbp) {
    if (row.cfa_offset != 16 || !row.rbp_saved || row.rbp_offset != -16)
      return false;
    *ret_rule = RULE_FP;
    return true;
  }
  int64_t k = row.cfa_offset, m = row.rbp_saved ? -row.rbp_offset : 0;
  if (k < 0 || m < 0 || (row.rbp_saved && m == 0) || !sp_rule((uint64_t)k, (uint64_t)m, ret_rule))
    return false;
  /* The stub's first two bytes lie in its FDE's range, which holds ip. */
  const uint8_t *first = (const uint8_t *)row.start;
  if (!exact && k >= 16 && ip - row.start >= 2 && first[0] == 0x50 && first[1] == 0x55)
    *ret_rule |= RULE_HIJACK;
  return true;
}

/* The caller of cur by a cached rule, with the checks of fp_step: every word read is aligned and inside [lo, hi),
 * the caller's sp is above cur's and at most hi, its ip not 0. */
__attribute__((no_sanitize_address)) static bool rule_step(uint64_t rule, const SxsRegs *cur, uintptr_t lo,
                                                           uintptr_t hi, intptr_t mem, SxsRegs *ret_next) {
  if ((rule & 3u) == RULE_FP) {
    SxsNativeFrame frame;
    uintptr_t fp;
    if (!fp_step_at(cur->sp, cur->fp, lo, hi, mem, &frame, &fp))
      return false;
    *ret_next = (SxsRegs){.ip = frame.ip, .sp = frame.sp, .fp = fp};
    return true;
  }
  uintptr_t k = (uintptr_t)((rule >> 2) & 0xFFFFFFFFu), m = (uintptr_t)((rule >> 34) & 0xFFFFu);
  uintptr_t cfa = cur->sp + k;
  if (cfa < cur->sp || cfa > hi || cur->sp < lo || ((cfa - 8) & 7) != 0)
    return false;
  uintptr_t caller_sp, ip = *(const uintptr_t *)(rule_ra_slot(rule, cfa, &caller_sp) + (uintptr_t)mem);
  uintptr_t fp = cur->fp;
  if (m != 0) {
    uintptr_t at = cfa - m;
    if ((at & 7) != 0 || at < cur->sp || at + 8 > hi)
      return false;
    fp = *(const uintptr_t *)(at + (uintptr_t)mem);
  }
  if (ip == 0)
    return false;
  *ret_next = (SxsRegs){.ip = ip, .sp = caller_sp, .fp = fp};
  return true;
}

/* How many return addresses of the frame-pointer chain a walk prefetches the rules of. */
#define PREFETCH_FRAMES 48

/* Starts the memory reads of the rules the walk will look up: the return addresses along the
 * frame-pointer chain from cur (JIT code, and native code built with frame pointers, keep it; where
 * a frame does not, the chain ends early or leads to addresses that are not looked up: a wasted
 * prefetch, never a wrong step). On a real program the rules are rarely in the caches when a
 * sample comes (the program's own work has evicted them), and each step needs the previous one's
 * result, so without this a walk waits for one memory read per native frame in turn; with it, the
 * reads overlap. Reads only stack words inside [lo, hi), as fp_step does. Context: as the walk. */
__attribute__((no_sanitize_address)) static void prefetch_rules(const SxsUnwindCache *cache, const SxsRegs *cur,
                                                                uintptr_t lo, uintptr_t hi, intptr_t mem) {
  uintptr_t sp = cur->sp, fp = cur->fp;
  SxsNativeFrame frame;
  for (int i = 0; i < PREFETCH_FRAMES && fp_step_at(sp, fp, lo, hi, mem, &frame, &fp); i++) {
    sxs__ipmap_prefetch(cache->rules, frame.ip);
    sp = frame.sp;
  }
}

/* Fills frames from a cursor standing on the first frame, stepping each frame with libunwind or frame pointers as
 * sxs__unwind_hybrid() describes, and with cached rules when cache is not NULL. context is storage for the cursor when
 * it restarts after a step libunwind did not make. exact_first: frames[0]'s ip is an interrupted instruction, not a
 * return address (its rule is not cached). */
/*
 * An OSR method's frame over its Tier-0 frame
 * -------------------------------------------
 *
 * A method with a loop starts at tier 0; when its loop runs long, the runtime moves the running invocation to an
 * optimized OSR version of the method (On-Stack Replacement). The OSR code continues on top of the Tier-0 frame,
 * which stays where it was: it is never returned to, and the runtime's own walks show the method once. On x64 the
 * OSR prologue pushes a return address into the Tier-0 code (the patchpoint it came from) and the frame pointer of
 * the method's caller (the one saved in the Tier-0 frame), not that of the Tier-0 frame. A frame-pointer step from
 * the OSR frame therefore reads the Tier-0 code's address, and the next step reads the caller's return address
 * through the caller's frame pointer: the method is shown twice and its caller is gone.
 *
 *   | caller's caller's frame     |
 *   | return address into caller  | <- [V + 8]
 *   | saved rbp                   | <- V: the caller's rbp
 *   | caller's frame              |
 *   | return address into caller  | <- [T + 8]   what the walk must report
 *   | V                           | <- T: the Tier-0 frame's rbp, which no frame pointer points at any more
 *   | Tier-0 locals               |
 *   | address in the Tier-0 code  | <- [fp + 8]  not a call: the patchpoint's transition
 *   | V                           | <- fp: the OSR frame's rbp
 *   | OSR locals                  |
 *
 * osr_tier0_frame() recognises the layout after a frame-pointer step from JIT code to JIT code: a slot T between
 * the step's frame and V holding V and followed by an address of code is the Tier-0 frame, and its return address
 * replaces the patchpoint's. "Code" is asked of is_fp_code with no ret_eh: an address in an executable mapping
 * (the sampler's walks know them; JIT code is mapped W^X since .NET 7, and OSR came with .NET 7), so that a heap
 * or stack value is not taken for one; a walk that does not know the mappings does not look. The patchpoint must be
 * JIT code (in no module), in an executable mapping too unless new_code: the walker of a capture (which knows the
 * mappings) stepped from an OSR frame in code no mapping read holds, whose Tier-0 code is often as new (the OSR
 * version and an instrumented Tier-0 version compiled one after the other: `Sort < Sort`, Run lost, in the first
 * captures through them); the return address may be any code: a thread's first method is called from the
 * runtime's native code (.NET 8 starts threads through libcoreclr). In an ordinary frame the words between a callee's frame and the caller's saved rbp are
 * the caller's locals, where its own frame pointer's value with a code address above it does not occur.
 * Context: any thread; async-signal-safe.
 */
#define OSR_SCAN_WORDS 512 /* the largest Tier-0 frame looked through, in words */

/* Whether the two words saved and ra of a stack slot are a Tier-0 frame record under an OSR frame whose record holds
 * next_fp: the caller's RBP, then an address of code (known code: no stack address in [lo, hi), no small value). */
static inline bool tier0_record(uintptr_t saved, uintptr_t ra, uintptr_t next_fp, uintptr_t lo, uintptr_t hi,
                                SxsUnwindIsFpCode is_fp_code, void *user_data) {
  return saved == next_fp && ra >= 0x10000 && !(ra >= lo && ra < hi) && is_fp_code(ra, user_data, NULL);
}

/* Where the cache learned that the Tier-0 record of an OSR frame whose record (at fp) holds patchpoint lies: 1 with
 * *ret_at, 0 when the Tier-0 code's frame is not known, -1 when nothing is learned of the patchpoint
 * (sxs__unwind_cache_note_osr). Context: any; async-signal-safe. */
static inline int osr_learned_at(const SxsUnwindCache *cache, uintptr_t patchpoint, uintptr_t fp, uintptr_t *ret_at) {
  uint64_t rule;
  if (cache == NULL || !cache_lookup(cache, patchpoint | CACHE_OSR_KEY, &rule))
    return -1;
  if ((rule & 3u) != RULE_FP)
    return 0;
  *ret_at = fp + (uintptr_t)(rule >> 2);
  return 1;
}

__attribute__((no_sanitize_address)) static bool osr_tier0_frame(uintptr_t fp, uintptr_t next_fp, uintptr_t lo,
                                                                 uintptr_t hi, intptr_t mem,
                                                                 SxsUnwindIsFpCode is_fp_code, void *user_data,
                                                                 bool new_code, SxsNativeFrame *frame) {
  if (is_fp_code == NULL || next_fp <= fp + 16 || next_fp >= hi || (next_fp & 7) != 0 || fp < lo)
    return false;
  const SxsEhFrame *eh = NULL;
  if (frame->ip < 0x10000 || (frame->ip >= lo && frame->ip < hi) || !is_fp_code(frame->ip, user_data, &eh) ||
      (!new_code && !is_fp_code(frame->ip, user_data, NULL)))
    return false;
  uintptr_t end = next_fp - fp > OSR_SCAN_WORDS * 8 ? fp + OSR_SCAN_WORDS * 8 : next_fp;
  for (uintptr_t at = fp + 16; at + 16 <= end; at += 8) {
    const uintptr_t *slot = (const uintptr_t *)(at + (uintptr_t)mem);
    if (!tier0_record(slot[0], slot[1], next_fp, lo, hi, is_fp_code, user_data))
      continue;
    frame->ip = slot[1];
    frame->sp = at + 16;
    return true;
  }
  return false;
}

/* The Tier-0 frame record of an OSR frame by what the cache learned of its patchpoint (frame->ip, the address the OSR
 * frame record holds; fp that record, next_fp the RBP it holds): the OSR frame starts where the Tier-0 frame's body had
 * its sp, so the Tier-0 record lies that frame's record_above above it (sxs__unwind_cache_note_osr). Among the words
 * between the two records, the layout alone (osr_tier0_frame) takes the first that holds next_fp with code above it,
 * and the Tier-0 frame's unused slots can hold such a pair an earlier call at another depth left there (`Mix <
 * Compare < Compare`, Leaf gone, a stale return address into Compare taken for Mix's caller). 1 with *frame replaced,
 * 0 when the learned record is not there (the walk then looks by the layout), -1 when nothing is learned of the
 * patchpoint. Context: any; async-signal-safe. */
__attribute__((no_sanitize_address)) static int osr_learned_frame(const SxsUnwindCache *cache, uintptr_t fp,
                                                                  uintptr_t next_fp, uintptr_t lo, uintptr_t hi,
                                                                  intptr_t mem, SxsUnwindIsFpCode is_fp_code,
                                                                  void *user_data, SxsNativeFrame *frame) {
  uintptr_t at = 0;
  int learned = osr_learned_at(cache, frame->ip, fp, &at);
  if (learned <= 0)
    return learned;
  if (at < fp || at < lo || at + 16 > hi || at + 16 > next_fp + 16 || (at & 7) != 0)
    return 0;
  const uintptr_t *slot = (const uintptr_t *)(at + (uintptr_t)mem);
  if (!tier0_record(slot[0], slot[1], next_fp, lo, hi, is_fp_code, user_data))
    return 0;
  frame->ip = slot[1];
  frame->sp = at + 16;
  return 1;
}

/* mem: what to add to a stack address to read its word (0: the stack itself; a copy's displacement: then nothing
 * outside [lo, hi) is read, libunwind is not started, and no rule is learned from the copy's words). */
static int walk_hybrid(unw_cursor_t *cursor, unw_context_t *context, const SxsRegs *start, uintptr_t lo, uintptr_t hi,
                       intptr_t mem, SxsUnwindIsFpCode is_fp_code, void *user_data, SxsUnwindCache *cache,
                       bool exact_first, bool allow_libunwind, SxsNativeFrame *frames, int max, int *ret_guessed,
                       uintptr_t *ret_osr, uintptr_t *ret_end_fp) {
  SxsRegs cur, next;
  if (ret_end_fp != NULL)
    *ret_end_fp = 0;
  if (ret_guessed != NULL)
    *ret_guessed = -1;
  if (ret_osr != NULL)
    *ret_osr = 0;
  allow_libunwind = allow_libunwind && mem == 0 && unw_ready();
  if (start != NULL)
    cur = *start;
  else if (!cursor_regs(cursor, &cur, true))
    return -EFAULT;
  frames[0].ip = cur.ip;
  frames[0].sp = cur.sp;
  if (cur.sp < lo || cur.sp > hi)
    return 1;
  if (cache != NULL)
    prefetch_rules(cache, &cur, lo, hi, mem);

  /* Whether the cursor stands on cur (false after a step libunwind did not make, and from a start without one). */
  bool cursor_on_cur = start == NULL;
  /* Whether cur's ip is an interrupted instruction rather than a return address: then its row of the unwind tables
   * may differ from the one a return address there would use, and its rule is not cached. */
  bool cur_exact = exact_first;
  int n = 1;
  while (n < max) {
    bool by_libunwind = false, by_signal = false, stepped = false, next_exact = false;
    const SxsEhFrame *eh = NULL;
    bool jit = is_fp_code != NULL && is_fp_code(cur.ip, user_data, &eh);
    if (!jit) {
      /* An exact ip's row may differ from a return address's at the same ip: it has keys of its own. */
      bool cacheable = cache != NULL;
      uintptr_t key = cur_exact ? cur.ip | CACHE_EXACT_KEY : cur.ip;
      uint64_t rule = 0;
      bool cached = cacheable && cache_lookup(cache, key, &rule);
      if (!cached && cacheable && eh != NULL && rule_from_tables(eh, cur.ip, cur_exact, &rule)) {
        /* Learned from the module's own tables: kept only when it steps (a row that leads off the
         * stack is left to libunwind, which may know better). */
        bool end = (rule & 3u) == RULE_NONE;
        stepped = !end && rule_step(rule, &cur, lo, hi, mem, &next) && next.sp > cur.sp;
        cached = end || stepped;
        if (cached)
          cache_insert(cache, key, rule);
      } else if (cached && (rule & 3u) != RULE_NONE) {
        stepped = rule_step(rule, &cur, lo, hi, mem, &next) && next.sp > cur.sp;
      }
      if (!stepped && !cached && is_sigreturn(eh, cur.ip)) {
        StackView view = {lo, hi, mem};
        by_signal = stepped = signal_frame_step(cur.sp, hi, stack_view_word, &view, &next);
        next_exact = by_signal;
      }
      if (!stepped && allow_libunwind && !(cached && (rule & 3u) == RULE_NONE)) {
        if (!cursor_on_cur)
          cursor_on_cur = cursor_reseed(cursor, context, &cur, cur_exact);
        /* A signal trampoline's caller is the interrupted frame: its ip is exact, and neither step is a rule. */
        bool signal_frame = cursor_on_cur && unw.is_signal_frame(cursor) > 0;
        int rc = cursor_on_cur ? unw.step(cursor) : -1;
        by_libunwind = stepped =
            rc > 0 && cursor_regs(cursor, &next, true) && next.ip != 0 && next.sp > cur.sp && next.sp <= hi;
        next_exact = signal_frame;
        if (by_libunwind && cacheable && !signal_frame)
          cache_learn(cache, cursor, key, &cur, &next, hi);
        else if (rc == 0 && cacheable && !cached && !signal_frame)
          cache_insert(cache, key, RULE_NONE); /* libunwind's end of the stack */
      }
    }
    /* JIT code at a return address whose method keeps no frame pointer: its prologue's frame size, taught by the
     * owner of the cache (sxs__unwind_cache_note_jit); a frame-pointer step would skip its caller. At an
     * interrupted instruction, the frame there (sxs__unwind_cache_note_jit_at): inside a frameless method's frame,
     * or a prologue or epilogue that has no frame record (yet, or any more). The rule is followed only to code: a
     * caller whose code is in a piece of the code heap mapped since the mappings were read (an OSR version, a new
     * tier) is none to this walk, and the frame-pointer step taken instead skips the caller; that step is then a
     * guess, which the sampler makes again once it knows the code (a loop method's new version lost under its
     * callees in the first captures through it: `Leaf < Do < [thread start]`). */
    uint64_t jit_rule;
    if (!stepped && cache != NULL && is_fp_code != NULL) {
      if (cache_lookup(cache, cur_exact ? cur.ip | CACHE_EXACT_KEY : cur.ip, &jit_rule)) {
        if ((jit_rule & 3u) == RULE_SP && rule_step(jit_rule, &cur, lo, hi, mem, &next) && next.sp > cur.sp) {
          stepped = is_fp_code(next.ip, user_data, NULL);
          if (!stepped && ret_guessed != NULL && *ret_guessed < 0)
            *ret_guessed = n - 1;
        }
      } else if (jit && ret_guessed != NULL && *ret_guessed < 0 && cur.ip >= 0x10000 && cur.ip < ((uintptr_t)1 << 47)) {
        /* JIT code nothing is known of yet: the frame-pointer step below is a guess. So is the step from code in no
         * module and no executable mapping read: a piece of the code heap committed since the mappings were read
         * (the first captures through a new code version; the interrupted instruction is code, and a return address
         * there is asked of the runtime when the sampler walks the copy again). */
        *ret_guessed = n - 1;
      }
    }
    if (!stepped) {
      SxsNativeFrame frame;
      uintptr_t fp;
      if (!fp_step_at(cur.sp, cur.fp, lo, hi, mem, &frame, &fp)) {
        if (ret_end_fp != NULL && (cur.fp & 7) == 0 && cur.fp >= cur.sp && cur.fp + 16 > hi)
          *ret_end_fp = cur.fp; /* the record lies past what the walk may read (a copy's end) */
        break;
      }
      /* From JIT code: an OSR frame's step lands on its Tier-0 frame's patchpoint (above). Not where the step lands
       * in a method known to keep no frame pointer: Tier-0 code always keeps one, and the unused part of a frameless
       * method's frame can hold a record an earlier call left with the same saved RBP. */
      const SxsEhFrame *cur_eh = NULL;
      uint64_t landed;
      if (is_fp_code != NULL && is_fp_code(cur.ip, user_data, &cur_eh) &&
          !(cache != NULL && cache_lookup(cache, frame.ip, &landed) && (landed & 3u) == RULE_SP)) {
        uintptr_t patchpoint = frame.ip;
        int learned = osr_learned_frame(cache, cur.fp, fp, lo, hi, mem, is_fp_code, user_data, &frame);
        bool by_layout = false;
        if (learned <= 0) {
          /* The walk of a capture (it says what it guessed) from code the mappings it knows do not hold. */
          bool new_code = ret_guessed != NULL && !is_fp_code(cur.ip, user_data, NULL);
          by_layout = osr_tier0_frame(cur.fp, fp, lo, hi, mem, is_fp_code, user_data, new_code, &frame);
        }
        /* Found by the layout alone: the owner of the cache learns the patchpoint's Tier-0 frame, and an OSR leaf's
         * walk (the interrupted RBP is its record: the walk can be made again from it) is a guess. */
        if (by_layout && learned < 0) {
          if (ret_osr != NULL && *ret_osr == 0)
            *ret_osr = patchpoint;
          if (n == 1 && ret_guessed != NULL && *ret_guessed < 0)
            *ret_guessed = 0;
        }
      }
      next.ip = frame.ip;
      next.sp = frame.sp;
      next.fp = fp;
    }
    cursor_on_cur = by_libunwind;
    cur_exact = (by_libunwind || by_signal) && next_exact;
    frames[n].ip = next.ip;
    frames[n].sp = next.sp;
    n++;
    cur = next;
  }
  return n;
}

/* The cursor on the interrupted instruction (from a ucontext), or on the caller of the public walk: the context is
 * captured in the walk's own frame, which is then stepped over. Always inlined, so that unw_getcontext sees the
 * public walk's frame and not a helper's. Returns 0, or a negative value when libunwind cannot start. */
static inline __attribute__((always_inline)) int init_cursor(unw_cursor_t *cursor, unw_context_t *context,
                                                             const void *ucontext_or_null) {
  if (!unw_ready())
    return -1;
  if (ucontext_or_null != NULL)
    return unw.init_local2(cursor, (unw_context_t *)(uintptr_t)ucontext_or_null, UNW_INIT_SIGNAL_FRAME);
  unw.getcontext(context);
  int r = unw.init_local(cursor, context);
  if (r >= 0 && unw.step(cursor) <= 0)
    r = -1;
  return r;
}

/* Both public libunwind walks capture their context in their own body (through init_cursor) and step once to reach
 * the caller, so they must not be inlined into it. */
__attribute__((noinline)) int sxs__unwind_libunwind(const void *ucontext_or_null, SxsNativeFrame *frames, int max) {
  if (max < 0 || (max > 0 && frames == NULL))
    return -EINVAL;
  if (max == 0)
    return 0;
  if (!busy_enter())
    return -EBUSY;

  int saved_errno = errno;
  unw_context_t context;
  unw_cursor_t cursor;
  int r = init_cursor(&cursor, &context, ucontext_or_null);
  int n = r < 0 ? -EFAULT : walk_libunwind(&cursor, frames, max);
  errno = saved_errno;
  busy_leave();
  return n;
}

__attribute__((noinline)) int sxs__unwind_hybrid(const void *ucontext_or_null, uintptr_t stack_lo, uintptr_t stack_hi,
                                                 SxsUnwindIsFpCode is_fp_code, void *user_data, SxsNativeFrame *frames,
                                                 int max) {
  if (max < 0 || (max > 0 && frames == NULL) || stack_lo >= stack_hi)
    return -EINVAL;
  if (max == 0)
    return 0;
  if (!busy_enter())
    return -EBUSY;

  int saved_errno = errno;
  unw_context_t context;
  unw_cursor_t cursor;
  int r = init_cursor(&cursor, &context, ucontext_or_null);
  int n = r < 0 ? -EFAULT
                : walk_hybrid(&cursor, &context, NULL, stack_lo, stack_hi, 0, is_fp_code, user_data, NULL,
                              ucontext_or_null != NULL, true, frames, max, NULL, NULL, NULL);
  errno = saved_errno;
  busy_leave();
  return n;
}

__attribute__((noinline)) int sxs__unwind_cached(const void *ucontext_or_null, uintptr_t stack_lo, uintptr_t stack_hi,
                                                 SxsUnwindIsFpCode is_fp_code, void *user_data, SxsUnwindCache *cache,
                                                 SxsNativeFrame *frames, int max) {
  if (max < 0 || (max > 0 && frames == NULL) || stack_lo >= stack_hi)
    return -EINVAL;
  if (max == 0)
    return 0;
  if (!busy_enter())
    return -EBUSY;

  int saved_errno = errno;
  unw_context_t context;
  unw_cursor_t cursor;
  int n;
  SxsRegs own, start;
  SxsNativeFrame caller;
  SXS_REGS_CAPTURE(&own);
  /* From the caller, this function keeps a frame pointer: one frame-pointer step reaches the caller, and libunwind
   * is started only when a frame needs it (a libunwind start costs microseconds). */
  if (ucontext_or_null == NULL && fp_step(own.sp, own.fp, stack_lo, stack_hi, &caller, &start.fp)) {
    start.ip = caller.ip;
    start.sp = caller.sp;
    n = walk_hybrid(&cursor, &context, &start, stack_lo, stack_hi, 0, is_fp_code, user_data, cache, false, true, frames,
                    max, NULL, NULL, NULL);
  } else {
    n = init_cursor(&cursor, &context, ucontext_or_null) < 0
            ? -EFAULT
            : walk_hybrid(&cursor, &context, NULL, stack_lo, stack_hi, 0, is_fp_code, user_data, cache,
                          ucontext_or_null != NULL, true, frames, max, NULL, NULL, NULL);
  }
  errno = saved_errno;
  busy_leave();
  return n;
}

__attribute__((noinline)) int sxs__unwind_from_regs(const SxsRegs *regs, bool exact, bool allow_libunwind,
                                                    uintptr_t stack_lo, uintptr_t stack_hi,
                                                    SxsUnwindIsFpCode is_fp_code, void *user_data,
                                                    SxsUnwindCache *cache, SxsNativeFrame *frames, int max) {
  return sxs__unwind_from_regs_guessed(regs, exact, allow_libunwind, stack_lo, stack_hi, is_fp_code, user_data, cache,
                                       frames, max, NULL, NULL);
}

__attribute__((noinline)) int sxs__unwind_from_regs_guessed(const SxsRegs *regs, bool exact, bool allow_libunwind,
                                                            uintptr_t stack_lo, uintptr_t stack_hi,
                                                            SxsUnwindIsFpCode is_fp_code, void *user_data,
                                                            SxsUnwindCache *cache, SxsNativeFrame *frames, int max,
                                                            int *ret_guessed, uintptr_t *ret_osr_patchpoint) {
  if (ret_guessed != NULL)
    *ret_guessed = -1;
  if (ret_osr_patchpoint != NULL)
    *ret_osr_patchpoint = 0;
  if (regs == NULL || max < 0 || (max > 0 && frames == NULL) || stack_lo >= stack_hi)
    return -EINVAL;
  if (max == 0)
    return 0;
  if (!busy_enter())
    return -EBUSY;
  int saved_errno = errno;
  unw_context_t context;
  unw_cursor_t cursor;
  int n = walk_hybrid(&cursor, &context, regs, stack_lo, stack_hi, 0, is_fp_code, user_data, cache, exact,
                      allow_libunwind, frames, max, ret_guessed, ret_osr_patchpoint, NULL);
  errno = saved_errno;
  busy_leave();
  return n;
}

int sxs__unwind_from_copy(const SxsRegs *regs, bool exact, uintptr_t copy_lo, const void *copy, size_t copy_len,
                          SxsUnwindIsFpCode is_fp_code, void *user_data, SxsUnwindCache *cache, SxsNativeFrame *frames,
                          int max, uintptr_t *ret_end_fp) {
  if (ret_end_fp != NULL)
    *ret_end_fp = 0;
  if (regs == NULL || copy == NULL || max < 0 || (max > 0 && frames == NULL) || copy_len < 16 ||
      ((uintptr_t)copy & 7) != 0 || (copy_lo & 7) != 0 || copy_lo + copy_len < copy_lo)
    return -EINVAL;
  if (max == 0)
    return 0;
  intptr_t mem = (intptr_t)((uintptr_t)copy - copy_lo);
  return walk_hybrid(NULL, NULL, regs, copy_lo, copy_lo + copy_len, mem, is_fp_code, user_data, cache, exact, false,
                     frames, max, NULL, NULL, ret_end_fp);
}

/*
 * Walks from outside
 * ------------------
 *
 * A thread blocked in a system call keeps its user stack as it was at the call, and the kernel gives its RSP and
 * RIP, not its RBP. Native frames are stepped by their unwind tables, which need RBP only where the CFA is
 * RBP-based, and give it back where a frame saved it; JIT code keeps frame pointers and needs RBP for every step.
 * When a frame needs RBP and the walk does not know it yet (the system call's wrapper left it as the caller had
 * it), it is looked for in the frame: its record [saved RBP, return address] lies above the frame's sp.
 */
#define REMOTE_SCAN_BYTES 4096 /* how far above a frame's sp its frame record is looked for */

static bool remote_word(const SxsUnwindMemory *mem, uintptr_t lo, uintptr_t hi, uintptr_t at, uintptr_t *ret) {
  if ((at & 7) != 0 || at < lo || at > hi || hi - at < 8)
    return false;
  return mem->read(at, ret, sizeof *ret, mem->data);
}

/* A word of a thread walked from outside, for signal_frame_step. */
typedef struct {
  const SxsUnwindMemory *mem;
  uintptr_t lo, hi;
} RemoteView;

static bool remote_view_word(uintptr_t at, uintptr_t *ret, void *data) {
  const RemoteView *v = data;
  return remote_word(v->mem, v->lo, v->hi, at, ret);
}

bool sxs__unwind_read_self(uintptr_t addr, void *buf, size_t size) {
  int saved_errno = errno;
  struct iovec local = {.iov_base = buf, .iov_len = size}, remote = {.iov_base = (void *)addr, .iov_len = size};
  bool read = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
  errno = saved_errno;
  return read;
}

bool sxs__unwind_after_call(const uint8_t before[8]) {
  if (before[3] == 0xE8)
    return true;
  static const int back[] = {2, 3, 4, 6, 7};
  for (size_t i = 0; i < sizeof back / sizeof back[0]; i++) {
    int at = 8 - back[i];
    if (before[at] == 0xFF && (before[at + 1] & 0x38) == 0x10)
      return true;
  }
  return false;
}

/* Whether ra can be a return address: in executable memory, right after a call instruction (E8 rel32, or FF /2 with
 * a ModRM of 1, 2, 5 or 6 bytes, a REX prefix aside); or the signal trampoline a handler returns to (its frame record
 * leads to the interrupted frame's). */
static bool remote_is_return(const SxsUnwindMemory *mem, uintptr_t ra) {
  uint8_t b[8], t[sizeof RT_SIGRETURN_CODE];
  if (ra < sizeof b || !mem->is_code(ra - 1, mem->data) || !mem->read(ra - sizeof b, b, sizeof b, mem->data))
    return false;
  if (sxs__unwind_after_call(b))
    return true;
  return mem->is_code(ra + sizeof t - 1, mem->data) && mem->read(ra, t, sizeof t, mem->data) &&
         memcmp(t, RT_SIGRETURN_CODE, sizeof t) == 0;
}

/* A frame record [saved RBP, return address] at a: the return address is one, and the saved RBP is 0 (the outermost
 * frame) or a record above a whose own return address is one too (or 0, the end). *ret_parent: the saved RBP, or hi
 * for 0. */
static bool remote_is_record(const SxsUnwindMemory *mem, uintptr_t lo, uintptr_t hi, uintptr_t a,
                             uintptr_t *ret_parent) {
  uintptr_t saved, ra;
  if (!remote_word(mem, lo, hi, a, &saved) || !remote_word(mem, lo, hi, a + 8, &ra) || !remote_is_return(mem, ra))
    return false;
  *ret_parent = saved == 0 ? hi : saved;
  if (saved == 0)
    return true;
  uintptr_t up_saved, up_ra;
  if ((saved & 7) != 0 || saved <= a || !remote_word(mem, lo, hi, saved, &up_saved) ||
      !remote_word(mem, lo, hi, saved + 8, &up_ra))
    return false;
  return (up_saved == 0 || ((up_saved & 7) == 0 && up_saved > saved && up_saved < hi)) &&
         (up_ra == 0 || remote_is_return(mem, up_ra));
}

/*
 * The frame pointer of the frame at sp, whose RBP the walk does not know: the lowest frame record above sp that no
 * other record jumps over. A frame's locals may hold records of calls that returned long ago (a frame does not clear
 * what it does not use): each belongs to a call an ancestor made at this depth, so it lies below the frame's own
 * record and its saved RBP is that ancestor's record, at or above the frame's own parent. The frame's own record T is
 * then a record between such a stale one and its parent whose parent is no higher; while above T, up to T's parent,
 * lie only the caller's locals, whose stale records lead higher than T's parent.
 */
static bool remote_find_fp(const SxsUnwindMemory *mem, uintptr_t lo, uintptr_t hi, uintptr_t sp, uintptr_t *ret_fp) {
  for (uintptr_t a = (sp + 7) & ~(uintptr_t)7; a < hi && hi - a >= 16 && a - sp < REMOTE_SCAN_BYTES; a += 8) {
    uintptr_t parent;
    if (!remote_is_record(mem, lo, hi, a, &parent))
      continue;
    bool jumped = false;
    for (uintptr_t b = a + 8; b < parent && hi - b >= 16 && b - a < REMOTE_SCAN_BYTES && !jumped; b += 8) {
      uintptr_t parent_b;
      jumped = remote_is_record(mem, lo, hi, b, &parent_b) && parent_b <= parent;
    }
    if (!jumped) {
      *ret_fp = a;
      return true;
    }
  }
  return false;
}

int sxs__unwind_remote(const SxsRegs *regs, uintptr_t stack_lo, uintptr_t stack_hi, SxsUnwindIsFpCode is_fp_code,
                       void *user_data, SxsUnwindCache *cache, const SxsUnwindMemory *mem, SxsNativeFrame *frames,
                       int max) {
  if (regs == NULL || mem == NULL || mem->read == NULL || mem->is_code == NULL || max < 0 ||
      (max > 0 && frames == NULL) || stack_lo >= stack_hi)
    return -EINVAL;
  if (max == 0)
    return 0;
  frames[0].ip = regs->ip;
  frames[0].sp = regs->sp;
  if (regs->sp < stack_lo || regs->sp > stack_hi)
    return 1;
  SxsRegs cur = {.ip = regs->ip, .sp = regs->sp, .fp = 0};
  bool fp_known = false, exact = true;
  int n = 1;
  while (n < max) {
    const SxsEhFrame *eh = NULL;
    bool fp_code = is_fp_code != NULL && is_fp_code(cur.ip, user_data, &eh);
    uint64_t rule = 0;
    bool have_rule = false, by_signal = false;
    SxsRegs interrupted = {0};
    if (!fp_code) {
      uintptr_t key = exact ? cur.ip | CACHE_EXACT_KEY : cur.ip;
      have_rule = cache != NULL && cache_lookup(cache, key, &rule);
      if (!have_rule && eh != NULL && rule_from_tables(eh, cur.ip, exact, &rule)) {
        have_rule = true;
        if (cache != NULL)
          cache_insert(cache, key, rule);
      }
      if (have_rule && (rule & 3u) == RULE_NONE)
        break; /* the thread's outermost frame */
      RemoteView view = {mem, stack_lo, stack_hi};
      if (!have_rule && is_sigreturn(eh, cur.ip)) {
        if (!signal_frame_step(cur.sp, stack_hi, remote_view_word, &view, &interrupted))
          break;
        by_signal = true;
      }
    }
    /* JIT code: the frame the owner of the cache taught for it (a frameless method's, as the walk on the stack uses
     * it), followed only when the word it reads is code. */
    bool jit_rule = false;
    if (fp_code && cache != NULL && cache_lookup(cache, exact ? cur.ip | CACHE_EXACT_KEY : cur.ip, &rule) &&
        (rule & 3u) == RULE_SP)
      have_rule = jit_rule = true;
    SxsRegs next = interrupted;
    bool next_fp_known = by_signal, stepped = by_signal;
    uintptr_t ip = interrupted.ip;
    if (have_rule && (rule & 3u) == RULE_SP) {
      uintptr_t k = (uintptr_t)((rule >> 2) & 0xFFFFFFFFu), m = (uintptr_t)((rule >> 34) & 0xFFFFu);
      uintptr_t cfa = cur.sp + k;
      stepped = cfa >= cur.sp && remote_word(mem, stack_lo, stack_hi, rule_ra_slot(rule, cfa, &next.sp), &ip);
      next.fp = cur.fp;
      next_fp_known = fp_known;
      if (stepped && m != 0) {
        stepped = cfa - m >= cur.sp && remote_word(mem, stack_lo, stack_hi, cfa - m, &next.fp);
        next_fp_known = true;
      }
      if (stepped && jit_rule && !mem->is_code(ip, mem->data))
        stepped = false;
      if (!stepped && !jit_rule)
        break;
    }
    if (!stepped) {
      /* A frame-pointer step: JIT code, a frame-pointer rule, or native code without tables. */
      if (!fp_known && !remote_find_fp(mem, stack_lo, stack_hi, cur.sp, &cur.fp))
        break;
      fp_known = true;
      if ((cur.fp & 7) != 0 || cur.fp < cur.sp || !remote_word(mem, stack_lo, stack_hi, cur.fp, &next.fp) ||
          !remote_word(mem, stack_lo, stack_hi, cur.fp + 8, &ip))
        break;
      next.sp = cur.fp + 16;
      next_fp_known = true;
      /* From JIT code: an OSR frame's step lands on its Tier-0 frame's patchpoint (osr_tier0_frame), looked for in a
       * copy of the words between the two frame records, and taken only when the patchpoint is code of the method
       * stepped from (same_method). The layout alone does not tell: in a frameless method's frame, a record an earlier
       * call left with the same saved RBP was taken for the Tier-0 record (threads blocked in Thread.Sleep lost the
       * method that called it), and such a method's return address, never seen, is never learned. */
      /* The patchpoint's Tier-0 record where the cache learned it is (osr_learned_frame). */
      uintptr_t at = 0, t0_fp = 0, t0_ip = 0;
      bool osr_learned = fp_code && osr_learned_at(cache, ip, cur.fp, &at) > 0 && at > cur.fp && at <= next.fp &&
                         remote_word(mem, stack_lo, stack_hi, at, &t0_fp) &&
                         remote_word(mem, stack_lo, stack_hi, at + 8, &t0_ip) &&
                         tier0_record(t0_fp, t0_ip, next.fp, stack_lo, stack_hi, is_fp_code, user_data);
      if (osr_learned) {
        ip = t0_ip;
        next.sp = at + 16;
      }
      if (!osr_learned && fp_code && mem->same_method != NULL && next.fp > cur.fp + 16 && next.fp < stack_hi) {
        uintptr_t from = cur.fp + 16, end = MIN(next.fp, cur.fp + OSR_SCAN_WORDS * 8);
        uintptr_t words[OSR_SCAN_WORDS];
        if (end - from >= 16 && mem->read(from, words, end - from, mem->data)) {
          SxsNativeFrame frame = {.ip = ip, .sp = next.sp};
          if (osr_tier0_frame(cur.fp, next.fp, stack_lo, stack_hi, (intptr_t)((uintptr_t)words - from), is_fp_code,
                              user_data, false, &frame) &&
              mem->same_method(cur.ip, ip, mem->method_data)) {
            ip = frame.ip;
            next.sp = frame.sp;
          }
        }
      }
    }
    if (ip == 0 || next.sp <= cur.sp || next.sp > stack_hi)
      break;
    next.ip = ip;
    frames[n].ip = next.ip;
    frames[n].sp = next.sp;
    n++;
    cur = next;
    fp_known = next_fp_known;
    exact = by_signal; /* the interrupted instruction, not a return address */
  }
  return n;
}
