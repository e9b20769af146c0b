/* sxs_stitch: one stack of the calling thread, native frames and the managed frames of every
 * runtime in the process, ordered by stack pointer. It speaks to runtimes only through the two
 * questions of SxsStitchRuntime, so it knows nothing of Info guards, registries or names. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_cor.h"
#include "sxs_ipmap.h"
#include "sxs_merge.h"
#include "sxs_modmap.h"
#include "sxs_unwind.h"
#include "sxs_walk_resources.h"

/* Most native frames one walk reads. */
#define SXS_STITCH_MAX_FRAMES 256
/* Most frames all runtimes' walks of one stack report together (each walk gets what the walks
 * before it left). */
#define SXS_STITCH_MAX_RUNTIME_FRAMES (2 * SXS_STITCH_MAX_FRAMES)
/* Room a stitched stack needs: every native and every runtime frame. */
#define SXS_STITCH_MAX_STITCHED (SXS_STITCH_MAX_FRAMES + SXS_STITCH_MAX_RUNTIME_FRAMES)
/* Most runtimes one walk asks. */
#define SXS_STITCH_MAX_RUNTIMES 8

/* An owners-cache value: the owning runtime's id in bits 48-63 (0: no runtime owns the code), bit
 * 47 set for code the runtime's own walks do not report (SxsStackFrame.unwalked), and the
 * FunctionID in bits 0-46 (a user-space address). */
#define SXS_STITCH_OWNER(runtime_id, function_id) (((uint64_t)(runtime_id) << 48) | (uint64_t)(function_id))
#define SXS_STITCH_OWNER_UNWALKED (UINT64_C(1) << 47)
#define SXS_STITCH_OWNER_FUNCTION_MASK ((UINT64_C(1) << 47) - 1)

/* One runtime as the stitcher sees it. Both questions are asked on the walked thread, with no
 * lock of the stitcher's held, and may call into the runtime. */
typedef struct {
  int runtime_id;
  gpointer user;
  /* Does the runtime own the code at ip (GetFunctionFromIP)? 0 with *ret_function_id when it does,
   * 1 when it does and the code is of a kind its own walks do not report (a dynamic method, an IL
   * stub), -ENOENT when it does not, another -errno when it could not be asked (it is shutting
   * down). */
  int (*owns_ip)(gpointer user, uintptr_t ip, uint64_t *ret_function_id);
  /* Its walk of the calling thread (sxs__snapshot_thread of ThreadID 0): frames leaf first into
   * frames[0 .. *ret_n) (always set), the runtime's HRESULT in *ret_hr (always set; 0 when it was
   * not asked). 0 when the walk went to the end of the runtime's frames; -EIO when the runtime
   * answered a failure (the frames before it stand); -ENOBUFS when max frames were not enough;
   * -ESHUTDOWN when the runtime has begun to shut down and was not asked. */
  int (*walk)(gpointer user, SxsStackFrame *frames, guint max, guint *ret_n, HRESULT *ret_hr);
} SxsStitchRuntime;

/* What one stitched walk did, for the profile's counters and the benchmark. */
typedef struct {
  int native_n;        /* frames of the native walk (own frames included), or its -errno */
  guint own_frames;    /* leaf frames of the stitcher's own library, left out */
  guint claimed;       /* native frames a runtime said it owns */
  guint unknown_code;  /* frames in no loaded module that no runtime owns (stubs, trampolines) */
  guint owns_failed;   /* owns_ip questions that could not be asked */
  guint owners_cached; /* frames classified from the owners cache, no runtime asked */
  guint n_walks;       /* runtimes that walked (those that owned a frame) */
  struct {
    int runtime_id;
    int rc;     /* what SxsStitchRuntime.walk returned */
    HRESULT hr; /* the runtime's answer */
    guint n;    /* frames the walk gave */
    guint64 ns;
  } walks[SXS_STITCH_MAX_RUNTIMES];
  gboolean truncated;                       /* a walk ran out of room: the stack was cut at the shallower end */
  guint64 ns_native, ns_classify, ns_merge; /* time spent in each step */
} SxsStitchReport;

/* The per-thread buffers of a walk (about 28 KiB: 256 native frames, and 512 runtime frames shared
 * by the runtimes' walks), so a walk needs no allocation and little stack. */
typedef struct SxsStitchScratch SxsStitchScratch;
SxsStitchScratch *sxs__stitch_scratch_new(void);
void sxs__stitch_scratch_free(SxsStitchScratch *scratch);

/*
 * SxsUnwindIsFpCode for walks of a process's stacks: code in no loaded ELF object (JIT,
 * ReadyToRun, stubs) is stepped by frame pointers; native code by its module's unwind tables.
 * cursor is an SxsModmapCursor over the walk's module map, one per walk.
 * Context: any thread; async-signal-safe.
 */
bool sxs__stitch_is_fp_code(uintptr_t ip, void *cursor, const SxsEhFrame **ret_eh);

/*
 * Classifies native frames (leaf first, n of them) into out[0 .. n): a frame whose code lies in a
 * loaded ELF module (res->map) is native; any other is offered to res->owners (the cache), then to each runtime's
 * owns_ip, the owner of the frame before first; nobody's code is native too. Return addresses are
 * looked up one byte back; with first_exact, native[0].ip is an interrupted instruction and is
 * looked up as is. walks_wanted (may be NULL; SXS_STITCH_MAX_RUNTIMES entries) gets TRUE for each
 * runtime that owned a frame; report's claimed, unknown_code, owns_failed and owners_cached are
 * added to. Returns n. Context: normal context (the runtimes' calls take locks); no allocation.
 */
guint sxs__stitch_classify(const SxsStitchRuntime *runtimes, guint n_runtimes, const SxsWalkResources *res,
                           const SxsNativeFrame *native, guint n, gboolean first_exact, SxsStackFrame *out,
                           gboolean *walks_wanted, SxsStitchReport *report);

/*
 * The stitched stack of the calling thread, leaf first, into out[0 .. returned): the stitcher's
 * caller's frames of its own library left out, then every frame in strictly increasing sp order.
 * res (between sxs__walk_resources_enter and leave): res->map classifies native code; res->steps
 * (may be NULL) caches how native frames are stepped; res->owners (may be NULL) caches which
 * runtime owns the code at an address outside every module, as SXS_STITCH_OWNER values;
 * [stack_lo, stack_hi) is the thread's stack. report (may be NULL) receives what happened. out
 * should hold SXS_STITCH_MAX_STITCHED frames.
 *
 * When the native walk or a runtime's walk ran out of room, the walks end at different depths:
 * the stack is cut above the shallowest of their last frames, so that no part of it holds one
 * walk's frames without the others' (report->truncated).
 *
 * Returns the number of frames written, 0 when nothing could be walked (report->native_n < 0).
 * Context: a thread of the process, normal context (never a signal handler: the runtimes' calls
 * take locks); no lock of the caller's held. No allocation.
 */
guint sxs__stitch_current_thread(const SxsStitchRuntime *runtimes, guint n_runtimes, const SxsWalkResources *res,
                                 uintptr_t stack_lo, uintptr_t stack_hi, SxsStitchScratch *scratch, SxsStackFrame *out,
                                 guint max, SxsStitchReport *report);
