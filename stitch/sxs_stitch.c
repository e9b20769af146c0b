/* sxs_stitch: the mixed-mode stack of the calling thread, every runtime's frames and the native
 * ones between them, in one list ordered by stack pointer.
 *
 * Code one runtime manages looks like native code to every other runtime, so no runtime alone can
 * name a thread that went A -> native -> B -> native -> A. A profiler loaded into all of them can:
 *
 *   thread stack (grows down)   1. native walk      2. who owns ip?   3. runtime walks       4. stitched
 *   ------------------------    (fp + libunwind)    (GetFunctionFromIP (DoStackSnapshot,     (by sp,
 *                                                    of each runtime)  REGISTER_CONTEXT)      leaf first)
 *   sp 0x..f000  libsxsprof     ip 0x7f..libsxsprof  module: native   -                      (left out)
 *   sp 0x..f100  libcoreclr     ip 0x7f..libcoreclr  module: native   -                      libcoreclr!..
 *   sp 0x..f400  A.Inner        ip 0x7e..(jit)       rt1 owns it      rt1: A.Inner   sp f400 A.Inner  rt1
 *   sp 0x..f480  IL stub        ip 0x7e..(jit)       nobody (no md)   -                      0x7e.. (stub)
 *   sp 0x..f500  sxs_bridge_call ip 0x7f..bridge     module: native   -                      bridge!sxs_bridge_call
 *   sp 0x..f600  B.Middle       ip 0x7d..(jit)       rt2 owns it      rt2: B.Middle  sp f600 B.Middle rt2
 *   sp 0x..f700  sxs_bridge_call ip 0x7f..bridge     module: native   -                      bridge!sxs_bridge_call
 *   sp 0x..f800  A.Outer        ip 0x7e..(jit)       rt1 owns it      rt1: A.Outer   sp f800 A.Outer  rt1
 *   sp 0x..f900  A.Main         (frame lost by the   -                rt1: A.Main    sp f900 A.Main   rt1
 *                                native walk)
 *   sp 0x..fa00  libcoreclr     ip 0x7f..libcoreclr  module: native   -                      libcoreclr!..
 *
 * 1. The native walk starts here, in the caller's frame: frame pointers through code in no loaded
 *    ELF object (JIT and ReadyToRun code keep RBP chains), libunwind through native code, once per
 *    return address: the step cache (sxs_unwind.c) keeps what libunwind found as a rule.
 * 2. A frame inside a loaded ELF object is native: no runtime keeps managed code there. Every other
 *    ip is offered to each runtime in turn (GetFunctionFromIP is safe for any ip; a FunctionID only
 *    ever goes back to the runtime that gave it). Nobody's: a stub, kept as native. The answer is
 *    kept per return address (the owners cache), so a repeated walk asks no runtime.
 * 3. Each runtime that owned a frame walks its own frames; their sp comes from the register context
 *    the runtime passes with each frame. The walk crosses the other runtimes' code through its own
 *    transition frames, so it may know frames the native walk lost, and never reports native ones.
 * 4. sxs__merge_stacks: a claimed native frame gives way to its runtime's frames where that walk
 *    covers its stack range, and stays (as that runtime's, unnamed by it) where the walk failed or
 *    stopped early; then all frames are ordered by sp, duplicates dropped.
 *
 * The profiler's own frames at the leaf (this function and its callers inside libsxsprof) are
 * left out: the stack is the program's. */
#include "sxs_stitch.h"

#include "sxs_unwind.h"

#include <errno.h>
#include <time.h>

struct SxsStitchScratch {
  SxsNativeFrame native[SXS_STITCH_MAX_FRAMES];
  SxsStackFrame classified[SXS_STITCH_MAX_FRAMES];
  SxsStackFrame walked[SXS_STITCH_MAX_RUNTIME_FRAMES]; /* the runtimes' walks, one after the other */
  SxsRuntimeWalk walks[SXS_STITCH_MAX_RUNTIMES];
};

SxsStitchScratch *sxs__stitch_scratch_new(void) {
  /* A thread's walks start with its scratch: libunwind is opened before the first (sxs_unwind.h). */
  sxs__unwind_init();
  return g_new0(SxsStitchScratch, 1);
}

void sxs__stitch_scratch_free(SxsStitchScratch *scratch) {
  g_free(scratch);
}

static guint64 now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (guint64)ts.tv_sec * G_GUINT64_CONSTANT(1000000000) + (guint64)ts.tv_nsec;
}

bool sxs__stitch_is_fp_code(uintptr_t ip, void *cursor, const SxsEhFrame **ret_eh) {
  if (ret_eh == NULL) {
    const SxsModmapCursor *c = cursor;
    if (c->code == NULL || c->n_code == 0)
      return false;
    size_t lo = 0, hi = c->n_code;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (c->code[mid][0] <= ip)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo > 0 && ip < c->code[lo - 1][1];
  }
  const SxsModule *module = sxs__modmap_find_cached(cursor, ip);
  if (module == NULL)
    return true;
  if (module->eh.hdr != 0)
    *ret_eh = &module->eh;
  return false;
}

/* Whether ra follows a call instruction (1) or not (0); -1 when the code before it cannot be read. */
static int follows_call(uintptr_t ra) {
  uint8_t before[8];
  if (ra < sizeof before || !sxs__unwind_read_self(ra - sizeof before, before, sizeof before))
    return -1;
  return sxs__unwind_after_call(before) ? 1 : 0;
}

/* Whether native[i] is the instruction a signal interrupted: the frame before it is the signal trampoline. */
static gboolean after_signal_frame(const SxsModuleMap *map, const SxsNativeFrame *native, guint i) {
  const SxsModule *m = i > 0 ? sxs__modmap_find(map, native[i - 1].ip) : NULL;
  return m != NULL && m->eh.hdr != 0 && sxs__unwind_is_signal_trampoline(&m->eh, native[i - 1].ip);
}

/* The index in runtimes of runtime_id, or -1. */
static int runtime_index(const SxsStitchRuntime *runtimes, guint n_runtimes, int runtime_id) {
  for (guint r = 0; r < n_runtimes; r++)
    if (runtimes[r].runtime_id == runtime_id)
      return (int)r;
  return -1;
}

guint sxs__stitch_classify(const SxsStitchRuntime *runtimes, guint n_runtimes, const SxsWalkResources *res,
                           const SxsNativeFrame *native, guint n, gboolean first_exact, SxsStackFrame *out,
                           gboolean *walks_wanted, SxsStitchReport *report) {
  const SxsModuleMap *map = res->map;
  SxsIpMap *owners = res->owners;
  n_runtimes = MIN(n_runtimes, SXS_STITCH_MAX_RUNTIMES);
  guint last_owner = 0;
  /* A return address is looked up one byte back, inside the call instruction, so a call that ends
   * a function is not taken for its successor; an interrupted instruction is looked up as is. */
  for (guint i = 0; i < n; i++) {
    uintptr_t ip = native[i].ip;
    uintptr_t lookup = i == 0 && first_exact ? ip : ip - 1;
    SxsStackFrame *f = &out[i];
    *f = (SxsStackFrame){.sp = native[i].sp, .ip = ip, .kind = SXS_FRAME_NATIVE};
    if (sxs__modmap_find(map, lookup))
      continue;
    uint64_t known;
    if (sxs__ipmap_lookup(owners, lookup, &known)) {
      int r = known >> 48 ? runtime_index(runtimes, n_runtimes, (int)(known >> 48)) : -1;
      report->owners_cached++;
      if (r >= 0) {
        f->kind = SXS_FRAME_MANAGED;
        f->runtime_id = runtimes[r].runtime_id;
        f->function_id = known & SXS_STITCH_OWNER_FUNCTION_MASK;
        f->unwalked = (known & SXS_STITCH_OWNER_UNWALKED) != 0;
        if (walks_wanted)
          walks_wanted[r] = TRUE;
        last_owner = (guint)r;
        report->claimed++;
      } else {
        report->unknown_code++;
      }
      continue;
    }
    gboolean owned = FALSE, all_answered = TRUE;
    /* A runtime is asked only about an interrupted instruction or a return address: a stray code pointer a walk took
     * for one (a function's start, read from a stack) sent GetFunctionFromIP to the padding before it, where a
     * ReadyToRun image's lookup read out of its tables and faulted (a profiled compiler ended with SIGSEGV, about one
     * build in twenty at 999 Hz). */
    int call = i == 0 && first_exact ? 1 : after_signal_frame(map, native, i) ? 1 : follows_call(ip);
    if (call <= 0) {
      report->unknown_code++;
      if (call == 0) /* unread code is not remembered: it may be code later */
        sxs__ipmap_insert(owners, lookup, SXS_STITCH_OWNER(0, 0));
      continue;
    }
    /* Neighbouring frames mostly share an owner: the last one is asked first. */
    for (guint k = 0; k < n_runtimes && !owned; k++) {
      guint r = (last_owner + k) % n_runtimes;
      uint64_t function_id = 0;
      int rc = runtimes[r].owns_ip(runtimes[r].user, lookup, &function_id);
      if (rc == 0 || rc == 1) {
        f->kind = SXS_FRAME_MANAGED;
        f->runtime_id = runtimes[r].runtime_id;
        f->function_id = function_id;
        f->unwalked = rc == 1;
        owned = TRUE;
        if (walks_wanted)
          walks_wanted[r] = TRUE;
        last_owner = r;
        report->claimed++;
        if (function_id <= SXS_STITCH_OWNER_FUNCTION_MASK && runtimes[r].runtime_id > 0 &&
            runtimes[r].runtime_id < 0x10000)
          sxs__ipmap_insert(owners, lookup,
                            SXS_STITCH_OWNER(runtimes[r].runtime_id, function_id) |
                                (rc == 1 ? SXS_STITCH_OWNER_UNWALKED : 0));
      } else if (rc != -ENOENT) {
        report->owns_failed++;
        all_answered = FALSE;
      }
    }
    if (!owned) {
      report->unknown_code++;
      if (all_answered)
        sxs__ipmap_insert(owners, lookup, SXS_STITCH_OWNER(0, 0));
    }
  }
  return n;
}

guint sxs__stitch_current_thread(const SxsStitchRuntime *runtimes, guint n_runtimes, const SxsWalkResources *res,
                                 uintptr_t stack_lo, uintptr_t stack_hi, SxsStitchScratch *scratch, SxsStackFrame *out,
                                 guint max, SxsStitchReport *report) {
  const SxsModuleMap *map = res ? res->map : NULL;
  SxsStitchReport local;
  if (!report)
    report = &local;
  *report = (SxsStitchReport){0};
  if (!scratch || !out || !map) {
    report->native_n = -EINVAL;
    return 0;
  }
  n_runtimes = MIN(n_runtimes, SXS_STITCH_MAX_RUNTIMES);

  /* 1. The native walk, from this function's caller. */
  guint64 t0 = now_ns();
  SxsModmapCursor cursor = {.map = map};
  int n = sxs__unwind_cached(NULL, stack_lo, stack_hi, sxs__stitch_is_fp_code, &cursor, res->steps, scratch->native,
                             SXS_STITCH_MAX_FRAMES);
  guint64 t1 = now_ns();
  report->ns_native = t1 - t0;
  report->native_n = n;
  if (n <= 0)
    return 0;

  /* The stitcher's own library at the leaf is the profiler, not the program. */
  const SxsModule *own = sxs__modmap_find(map, (uintptr_t)sxs__stitch_current_thread);
  int first = 0;
  while (own && first < n && sxs__modmap_find(map, scratch->native[first].ip - (first > 0)) == own)
    first++;
  report->own_frames = (guint)first;

  /* 2. Classification: who owns each frame's code. */
  gboolean walks_wanted[SXS_STITCH_MAX_RUNTIMES] = {FALSE};
  guint n_classified = sxs__stitch_classify(runtimes, n_runtimes, res, scratch->native + first, (guint)(n - first),
                                            first == 0, scratch->classified, walks_wanted, report);
  guint64 t2 = now_ns();
  report->ns_classify = t2 - t1;

  /* 3. Each runtime that owns a frame walks its own. */
  guint n_walks = 0, used = 0;
  /* The stack is whole up to here: past the deepest frame of a walk that ran out of room, the
   * walks no longer cover the same frames. */
  uintptr_t cut = UINTPTR_MAX;
  if (n == SXS_STITCH_MAX_FRAMES)
    cut = scratch->native[n - 1].sp;
  for (guint r = 0; r < n_runtimes; r++) {
    if (!walks_wanted[r])
      continue;
    guint64 w0 = now_ns();
    guint got = 0, room = SXS_STITCH_MAX_RUNTIME_FRAMES - used;
    HRESULT hr = 0;
    int rc = room > 0 ? runtimes[r].walk(runtimes[r].user, scratch->walked + used, room, &got, &hr) : -ENOBUFS;
    got = MIN(got, room);
    if (rc == -ENOBUFS && got > 0)
      cut = MIN(cut, scratch->walked[used + got - 1].sp);
    scratch->walks[n_walks] = (SxsRuntimeWalk){
        .runtime_id = runtimes[r].runtime_id,
        .frames = scratch->walked + used,
        .n = got,
        .complete = rc == 0,
    };
    used += got;
    report->walks[n_walks].runtime_id = runtimes[r].runtime_id;
    report->walks[n_walks].rc = rc;
    report->walks[n_walks].hr = hr;
    report->walks[n_walks].n = got;
    report->walks[n_walks].ns = now_ns() - w0;
    n_walks++;
  }
  report->n_walks = n_walks;

  /* 4. The stitch. */
  guint64 t3 = now_ns();
  guint kept = sxs__merge_stacks(scratch->classified, n_classified, scratch->walks, n_walks, out, max);
  if (cut != UINTPTR_MAX) {
    report->truncated = TRUE;
    while (kept > 0 && out[kept - 1].sp > cut)
      kept--;
  }
  report->ns_merge = now_ns() - t3;
  return kept;
}
