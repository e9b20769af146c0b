/* Native stack walks on Linux x86-64: frame pointers, libunwind, and a hybrid of both, for the sampler and the
 * stitcher. It walks only the calling thread's own stack (from its own registers or from the ucontext of a signal it
 * is handling); it does not name frames, classify IPs by runtime, or merge managed frames in. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sxs_cfi.h"

/* The registers a walk starts from: the instruction pointer, RSP and RBP of one frame. */
typedef struct {
  uintptr_t ip, sp, fp;
} SxsRegs;

/*
 * One frame of a walk. ip is the frame's instruction pointer: for the first frame of a walk the exact address it
 * stopped at, for every other frame a return address (the instruction after the call; look up ip - 1 to name it).
 *
 * sp is the value RSP had in that frame: for the first frame, RSP of the starting registers; for every other frame,
 * the value RSP has when the call it made returns, which is RSP just before its call instruction pushed the return
 * address, i.e. the canonical frame address (CFA) of the frame it called = the address of the slot the return
 * address was read from, plus 8. This is libunwind's UNW_REG_SP after unw_step, so frames from every walker here can
 * be merged by sp; it is also what the x64 unwind convention CoreCLR follows gives as a managed frame's Rsp (inferred
 * from that convention, not yet checked against a runtime). Along one walk sp strictly increases.
 */
typedef struct {
  uintptr_t ip, sp;
} SxsNativeFrame;

/*
 * Captures the registers of the function this macro is written in, at that point: ip = the address right after the
 * capture, sp = RSP, fp = RBP. RBP is read first, so the capture is right even where the compiler may use RBP as a
 * scratch register (then fp is simply not a frame pointer and a frame-pointer walk stops at once).
 * Context: any thread; async-signal-safe (three register moves).
 */
#define SXS_REGS_CAPTURE(ret)                                                                                          \
  __asm__ volatile("movq %%rbp, %2\n\t"                                                                                \
                   "movq %%rsp, %1\n\t"                                                                                \
                   "leaq 0(%%rip), %0"                                                                                 \
                   : "=r"((ret)->ip), "=r"((ret)->sp), "=r"((ret)->fp))

/*
 * The interrupted registers (RIP, RSP, RBP) from the ucontext_t a SA_SIGINFO signal handler receives as its third
 * argument. Context: any thread; async-signal-safe.
 */
void sxs__regs_from_ucontext(SxsRegs *ret, const void *ucontext);

/*
 * The calling thread's stack: [*ret_lo, *ret_hi), from pthread_getattr_np (the guard page excluded; for the main
 * thread, the largest extent the stack may grow to). Returns 0, -EINVAL for NULL arguments, or the negated error of
 * pthread_getattr_np/pthread_attr_getstack; the out-parameters are untouched on failure.
 *
 * Context: the thread itself, normal context only: glibc allocates, and for the main thread reads /proc/self/maps.
 * Never from a signal handler: call it once when a thread starts (or is first seen) and keep the bounds with the
 * thread, so the signal handler can pass them to sxs__unwind_fp() and sxs__unwind_hybrid().
 */
int sxs__unwind_stack_bounds(uintptr_t *ret_lo, uintptr_t *ret_hi);

/*
 * A frame-pointer walk of the stack [stack_lo, stack_hi) from regs, for code that keeps RBP chains (JIT-compiled
 * .NET code, ReadyToRun code, and this project's own code, built with -fno-omit-frame-pointer).
 *
 * frames[0] is {regs->ip, regs->sp}. Each further frame comes from the frame pointer fp of the frame before it (at
 * first regs->fp): [fp] holds the caller's saved RBP, [fp + 8] the return address, and the caller's sp is fp + 16.
 * A step is taken only when fp is 8-byte aligned, fp >= that frame's sp (so each frame pointer is strictly above
 * the one before, by at least 16), stack_lo <= fp and fp + 16 <= stack_hi, and the return address is not 0; the
 * walk stops at the first step that fails, and also at once when regs->sp is outside [stack_lo, stack_hi]. So it
 * reads only aligned words inside [max(stack_lo, regs->sp), stack_hi), whatever regs holds: a corrupt or foreign
 * RBP ends the walk, it never faults. It writes frames[0 .. n) and nothing else.
 *
 * Limits of any frame-pointer walk: a frame stopped in a prologue or epilogue (RBP not yet or no longer its own), or
 * code that uses RBP as a general register, loses or repeats its caller, or ends the walk; the return address of a
 * frame without a frame pointer is skipped. sxs__unwind_hybrid() uses unwind tables for such native code.
 *
 * Returns the number of frames written (0 when max is 0, else at least 1), or -EINVAL when regs or frames is NULL
 * (with max > 0), max < 0, or stack_lo >= stack_hi.
 * Context: any thread, its own stack (or a stack that does not change during the walk); async-signal-safe: no
 * allocation, no locks, no libc calls, no errno.
 */
int sxs__unwind_fp(const SxsRegs *regs, uintptr_t stack_lo, uintptr_t stack_hi, SxsNativeFrame *frames, int max);

/*
 * Opens libunwind (it is not linked: a process that never walks with it does not load it), sets its caching policy
 * for the local address space to UNW_CACHE_PER_THREAD, so walks after the first do not read unwind tables again for
 * IPs they have seen, and initializes libunwind (it would otherwise initialize on the first walk, which may be in a
 * signal handler). Until it succeeded, walks use frame pointers alone, and those that start with libunwind return
 * -EFAULT. Runs once; every call returns its result: 0, -ENOENT (no libunwind) or -EINVAL.
 *
 * With libunwind 1.6.2 (Debian 12) the request is honoured as UNW_CACHE_GLOBAL: its unw_set_caching_policy turns
 * PER_THREAD into GLOBAL because its configure never defines HAVE___THREAD (Gset_caching_policy.c; the Debian binary
 * does the same), and GLOBAL is already its default. The global cache caches just as well; its cost is a mutex taken
 * with all signals blocked around each lookup (sxs_unwind.c says more).
 *
 * Context: call once in a normal context before any thread may walk with libunwind (a policy change while another
 * thread walks can leave libunwind's cache lock taken forever); not from a signal handler.
 */
int sxs__unwind_init(void);

/*
 * A walk with libunwind's local unwinder (unwind tables: .eh_frame), for native code without frame pointers.
 *
 * With a ucontext (the third argument of a SA_SIGINFO handler, on this thread) the walk starts at the interrupted
 * instruction: frames[0] = {RIP, RSP} of the ucontext. With NULL it starts in the caller: frames[0] = {the return
 * address of this call, the caller's RSP at the call}. Each further frame comes from unw_step; the walk stops when
 * libunwind reaches the end or fails, when a step does not raise sp strictly, or when it yields ip 0. libunwind reads
 * no bounds: it follows the unwind tables (validating addresses, see below). From a signal handler pass the ucontext:
 * walking from NULL there goes through the signal trampoline's frame, and from an alternate signal stack the sp check
 * stops the walk at the signal frame.
 *
 * Returns the number of frames written (0 when max is 0), -EINVAL for bad arguments, -EBUSY when this thread is
 * already inside a libunwind or hybrid walk (a signal handler interrupted one: libunwind's caches are not reentered
 * on one thread; walk with sxs__unwind_fp() instead), or -EFAULT when libunwind cannot start the walk.
 *
 * Context: any thread, its own stack. Meant to be usable from a signal handler, with these limits (verified in
 * libunwind 1.6.2's source and Debian's binary, see sxs_unwind.c): no malloc on the walk path; the global unwind
 * cache's mutex is taken with all signals blocked, so it is never held by a thread a signal interrupts; an IP not yet
 * in the cache costs a dl_iterate_phdr (the loader lock, with signals blocked) and unwind-table parsing; memory reads
 * are validated with mincore()/write() on a pipe, so a corrupt stack ends the walk instead of faulting. errno is
 * preserved. Not async-signal-safe in the strict POSIX sense (pthread_mutex_lock, dl_iterate_phdr). Cost: two
 * sigprocmask() system calls per frame even when cached (the cache lock), which dominates; about 4 KiB of stack for
 * a cached walk, 6.5 KiB when unwind tables are parsed.
 */
int sxs__unwind_libunwind(const void *ucontext_or_null, SxsNativeFrame *frames, int max);

/*
 * Tells the hybrid walk what code is at ip. True: the frame keeps a frame pointer and is to be
 * stepped by it, not by unwind tables: JIT-compiled and ReadyToRun .NET code, which has no unwind
 * tables in any ELF object's .eh_frame, and, if wanted, native modules known to be built with frame
 * pointers (a frame-pointer step costs about a nanosecond, a libunwind step microseconds). False:
 * native code, and *ret_eh may be set to its module's unwind tables (left NULL when unknown), which
 * a cached walk reads itself before it turns to libunwind. Called once per frame, from whatever
 * context the walk runs in (a signal handler), so it must be async-signal-safe: a lock-free lookup
 * in code ranges the stitcher keeps. user_data is the hybrid walk's. Called with ret_eh NULL, the
 * question is another: is ip an address of code that is not writable (JIT code mapped W^X, or a
 * module's code), known as such? False when the walk does not know.
 */
typedef bool (*SxsUnwindIsFpCode)(uintptr_t ip, void *user_data, const SxsEhFrame **ret_eh);

/* Reads size bytes of this process at addr into buf with process_vm_readv, which fails instead of faulting: code or
 * a stack unmapped meanwhile (a dynamic method's code freed, a thread gone) is no fault. False when not all of them
 * could be read. Context: any thread but a signal handler (a system call, errno kept). */
bool sxs__unwind_read_self(uintptr_t addr, void *buf, size_t size);

/* Whether the 8 bytes before a return address end in a call instruction (E8 rel32, or FF /2 with a ModRM of 1, 2, 5
 * or 6 bytes, a REX prefix aside): what a return address follows, and a stray code pointer on a stack mostly does
 * not (a function's start, after its predecessor's `ret` and padding). Pure. */
bool sxs__unwind_after_call(const uint8_t before[8]);

/* Whether ip (in the module whose unwind tables eh are) is glibc's signal trampoline, whose caller is an interrupted
 * instruction, not a return address. Context: any thread; async-signal-safe. */
bool sxs__unwind_is_signal_trampoline(const SxsEhFrame *eh, uintptr_t ip);

/*
 * The walk the stitcher needs for mixed native and .NET stacks: libunwind for native frames, frame pointers for
 * frames libunwind cannot step, with the validation of sxs__unwind_fp().
 *
 * The start is as for sxs__unwind_libunwind() (a ucontext: the interrupted instruction; NULL: the caller). For each
 * frame, the next one comes from:
 *   - a frame-pointer step (as in sxs__unwind_fp) when is_fp_code says the frame's ip is frame-pointer code (JIT);
 *   - otherwise unw_step, kept when it succeeds with sp strictly above the frame's and inside [stack_lo, stack_hi]
 *     and a non-zero ip;
 *   - otherwise (libunwind has no unwind info for the frame, reached what it takes for the end, or produced an
 *     invalid frame) a frame-pointer step from the frame's sp and RBP.
 * After a frame-pointer step libunwind starts again from the caller's {ip, sp, fp}, so native frames above JIT code
 * are unwound by tables again.
 *
 * is_fp_code may be NULL. Pass it whenever frames can be in JIT code: libunwind 1.6.2, lacking unwind info, guesses
 * a frame from RBP by itself, gets the caller's ip right but reports its sp as the JIT frame's sp + 16, which is wrong
 * whenever the JIT frame has locals, and it gives up on frames larger than 16 KiB. With is_fp_code such frames never
 * reach libunwind.
 *
 * Every frame's sp is in [stack_lo, stack_hi] (the first one excepted: a first sp outside ends the walk after it).
 * Frame-pointer steps read only inside [stack_lo, stack_hi). Returns the number of frames written (0 when max is 0),
 * -EINVAL for bad arguments (as sxs__unwind_fp), -EBUSY or -EFAULT as sxs__unwind_libunwind().
 *
 * Context: as sxs__unwind_libunwind(); the stack bounds come from sxs__unwind_stack_bounds(), cached per thread.
 * Stack use as sxs__unwind_libunwind() (its own part is a libunwind cursor and a context, 2 KiB).
 */
int sxs__unwind_hybrid(const void *ucontext_or_null, uintptr_t stack_lo, uintptr_t stack_hi,
                       SxsUnwindIsFpCode is_fp_code, void *user_data, SxsNativeFrame *frames, int max);

/*
 * SxsUnwindCache: what the unwind tables say about the frames at each return address, as a rule a walk applies in a
 * few nanoseconds instead of reading the tables again (a libunwind step costs microseconds): see "The step cache" in sxs_unwind.c. Lock-free: readers
 * never wait (signal handlers may walk with it), writers claim slots with a compare-and-swap. It never forgets: drop it
 * (and walk with a new one) when a module is unloaded; a cache still in use by another thread must not be freed.
 * capacity_log2 from 4 to 24 (16 bytes a slot); NULL on a bad capacity or out of memory.
 */
typedef struct SxsUnwindCache SxsUnwindCache;
SxsUnwindCache *sxs__unwind_cache_new(unsigned capacity_log2);
void sxs__unwind_cache_free(SxsUnwindCache *cache);
/* Whether cache holds a rule (or a "libunwind cannot") for the return address ip. Context: any thread. */
bool sxs__unwind_cache_knows(const SxsUnwindCache *cache, uintptr_t ip);
/* Whether the frame at return address ip is stepped by a stack-pointer rule (its frame pointer is not its own).
 * Context: any thread; async-signal-safe. */
bool sxs__unwind_cache_steps_by_sp(const SxsUnwindCache *cache, uintptr_t ip);
/*
 * Teaches cache the frame of the JIT code at return address ip, from its method's prologue (sxs_prologue.h): a
 * frameless method's frame size becomes an SP rule that walks apply there instead of a frame-pointer step; a framed
 * one (or frame NULL: not known) a frame-pointer rule, so that the owner does not look at ip again. False when the
 * frame does not fit a rule. Only return addresses: a walk's first frame (an interrupted instruction, maybe in the
 * prologue) has rules of its own (sxs__unwind_cache_note_jit_at). Context: any thread, not a signal handler's needs (lock-free insert).
 */
struct SxsPrologue;
bool sxs__unwind_cache_note_jit(SxsUnwindCache *cache, uintptr_t ip, const struct SxsPrologue *frame);
/*
 * Teaches cache the frame of the JIT code interrupted at ip (a walk's first frame, not a return address), from where
 * ip is in its method (sxs__prologue_frame_at): an SP rule the walk applies there (the leaf's return address found
 * inside a frame with no frame record, or in its prologue or epilogue), a frame-pointer rule for a frame whose RBP
 * is its own, or (frame NULL: not known) a mark that keeps the frame-pointer step and tells the owner it looked.
 * Kept under keys of their own, apart from the return addresses'. False when the frame does not fit a rule.
 * Context: any thread, not a signal handler's needs (lock-free insert).
 */
struct SxsFrameAt;
bool sxs__unwind_cache_note_jit_at(SxsUnwindCache *cache, uintptr_t ip, const struct SxsFrameAt *frame);
/* Whether cache holds what sxs__unwind_cache_note_jit_at taught for the interrupted instruction ip, and (ret_known
 * non-NULL) whether that is the frame there (a rule, or the frame-pointer step), not only a mark that it is not
 * known. Context: any thread; async-signal-safe. */
bool sxs__unwind_cache_knows_at(const SxsUnwindCache *cache, uintptr_t ip, bool *ret_known);
/*
 * Teaches cache where the Tier-0 frame record of an OSR frame is, for the OSR frames whose record holds patchpoint (an
 * address in the method's Tier-0 code, where it moved to the OSR version): tier0 is the prologue of the Tier-0 code
 * holding it (NULL: not known, a mark that keeps the walk looking by the layout and tells the owner it looked). The OSR
 * frame starts where the Tier-0 body had its sp, so its frame record lies tier0->record_above above the OSR frame's
 * record plus its 16 bytes. False when the prologue is not a framed one. Context: as sxs__unwind_cache_note_jit.
 */
bool sxs__unwind_cache_note_osr(SxsUnwindCache *cache, uintptr_t patchpoint, const struct SxsPrologue *tier0);
/* Whether cache holds what sxs__unwind_cache_note_osr taught for patchpoint. Context: any thread; async-signal-safe. */
bool sxs__unwind_cache_knows_osr(const SxsUnwindCache *cache, uintptr_t patchpoint);
/* How many return addresses the cache holds a frame-pointer rule, a stack-pointer rule and a "libunwind cannot"
 * for. Context: any thread (a census taken while walks learn may miss the newest entries). */
void sxs__unwind_cache_census(const SxsUnwindCache *cache, unsigned *ret_fp, unsigned *ret_sp, unsigned *ret_none);

/*
 * sxs__unwind_hybrid() with a step cache: a frame that is not frame-pointer code and whose return address is in cache
 * is stepped by its cached rule (checked like a frame-pointer step: aligned reads inside [stack_lo, stack_hi), sp
 * strictly rising); any other by the row of its module's unwind tables (sxs__cfi_row, when is_fp_code gives them),
 * or else by libunwind; either teaches cache the rule for next time. With a warm cache a
 * walk calls libunwind only to start (and on a signal, for the interrupted frame). Same arguments, results and context
 * as sxs__unwind_hybrid(); cache NULL is sxs__unwind_hybrid().
 */
int sxs__unwind_cached(const void *ucontext_or_null, uintptr_t stack_lo, uintptr_t stack_hi,
                       SxsUnwindIsFpCode is_fp_code, void *user_data, SxsUnwindCache *cache, SxsNativeFrame *frames,
                       int max);

/*
 * sxs__unwind_cached() from given registers instead of the caller's or a ucontext's: frames[0] = {regs->ip,
 * regs->sp}, and libunwind is started only for a frame no rule, no unwind-table row and no frame pointer can step
 * (with exact, regs->ip is an interrupted instruction, as in a signal handler's ucontext; otherwise a return address).
 * With the modules' unwind tables given by is_fp_code, native frames are stepped without libunwind even the first
 * time: what a sampling signal handler needs. Without allow_libunwind, a
 * frame no rule covers is stepped by its frame pointer or ends the walk (for a handler that interrupted the loader,
 * whose lock libunwind would take). Same results and context as sxs__unwind_cached().
 */
int sxs__unwind_from_regs(const SxsRegs *regs, bool exact, bool allow_libunwind, uintptr_t stack_lo, uintptr_t stack_hi,
                          SxsUnwindIsFpCode is_fp_code, void *user_data, SxsUnwindCache *cache, SxsNativeFrame *frames,
                          int max);
/* sxs__unwind_from_regs(), and *ret_guessed: the index of the first frame of JIT code (no module's) that was stepped
 * by its frame pointer where the cache knew nothing of it, a guess that skips the callers of a method that keeps none,
 * or where the rule the cache knew for it led to an address outside every executable mapping (a caller in code mapped
 * since the mappings were read); -1 when there was none. Same context. */
/* *ret_osr_patchpoint (may be NULL): the patchpoint address of the first OSR frame whose Tier-0 frame record the walk
 * found by the layout alone, nothing being learned of it yet (sxs__unwind_cache_note_osr), 0 when none; an OSR leaf
 * found so is a guess. */
int sxs__unwind_from_regs_guessed(const SxsRegs *regs, bool exact, bool allow_libunwind, uintptr_t stack_lo,
                                  uintptr_t stack_hi, SxsUnwindIsFpCode is_fp_code, void *user_data,
                                  SxsUnwindCache *cache, SxsNativeFrame *frames, int max, int *ret_guessed,
                                  uintptr_t *ret_osr_patchpoint);

/*
 * sxs__unwind_from_regs() over a copy of the stack instead of the stack: copy[0, copy_len) holds the words that were
 * at [copy_lo, copy_lo + copy_len) when regs were taken (a signal handler copied them), and the walk reads only
 * those (a frame whose step needs a word beyond them ends it). Frames, sps and RBPs are the stack's addresses, as
 * the walk on the stack would give them. Frame-pointer steps, the cache's rules (those learned since the copy was
 * made included) and module unwind tables; never libunwind. So a walk made before the rules it needed were learned
 * can be made again with them. copy and copy_lo 8-aligned, copy_len at least 16. Returns the frames written, or
 * -EINVAL; *ret_end_fp (may be NULL): when the walk ended at a frame-pointer step whose frame record lies past the
 * copy's end, that record's address (the RBP the step would read: the next frame is at its address + 16), else 0.
 * Context: any thread; no allocation.
 */
int sxs__unwind_from_copy(const SxsRegs *regs, bool exact, uintptr_t copy_lo, const void *copy, size_t copy_len,
                          SxsUnwindIsFpCode is_fp_code, void *user_data, SxsUnwindCache *cache, SxsNativeFrame *frames,
                          int max, uintptr_t *ret_end_fp);

/* Another thread's memory, for a walk made from outside it (sxs__unwind_remote): that thread may run on, or end and
 * its stack go away, at any time, so nothing is read directly. read copies size bytes at addr into buf, false when
 * they cannot be read (never a fault); is_code says whether addr lies in executable memory. same_method (may be
 * NULL), with method_data: whether the JIT code at return address a and at return address b are code of one method
 * (two versions of it: an OSR method and its Tier-0 code), asked before the walk takes a frame record for an OSR
 * method's Tier-0 frame; NULL: no such frame is looked for. */
typedef struct {
  bool (*read)(uintptr_t addr, void *buf, size_t size, void *data);
  bool (*is_code)(uintptr_t addr, void *data);
  void *data;
  bool (*same_method)(uintptr_t a, uintptr_t b, void *method_data);
  void *method_data;
} SxsUnwindMemory;

/*
 * A walk of another thread's stack [stack_lo, stack_hi), made from outside it while that thread is off its CPU,
 * blocked in a system call: from the instruction it will resume at and its stack pointer (regs->ip, regs->sp; what
 * /proc/<pid>/task/<tid>/syscall gives), without interrupting it. frames[0] = {regs->ip, regs->sp}, the ip exact.
 *
 * The kernel does not give RBP (regs->fp is ignored), so frame pointers are found as the walk needs them: native
 * frames are stepped by their unwind tables' rows (cache, then is_fp_code's tables), which give RBP where a frame
 * saved it; a frame-pointer frame (JIT code, or native code whose CFA is RBP-based) reached while RBP is still
 * unknown has its frame pointer looked for in its stack: the lowest aligned slot above its sp that holds a return
 * address (executable memory, right after a call instruction) over a saved RBP that is 0 or leads on to another such
 * slot. That search can take a frame record left by an earlier call for the frame's own; the checks make it rare.
 * No libunwind (it reads memory directly). Every read goes through mem; words of the stack are read only inside
 * [stack_lo, stack_hi); sp strictly rises.
 *
 * Returns the number of frames written (0 when max is 0), or -EINVAL for bad arguments.
 * Context: any thread but the walked one, in a normal context; the thread may wake during the walk, which then
 * reads a stack that changed: the caller checks that the thread did not run meanwhile (its CPU clock).
 */
int sxs__unwind_remote(const SxsRegs *regs, uintptr_t stack_lo, uintptr_t stack_hi, SxsUnwindIsFpCode is_fp_code,
                       void *user_data, SxsUnwindCache *cache, const SxsUnwindMemory *mem, SxsNativeFrame *frames,
                       int max);
