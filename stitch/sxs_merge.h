/* sxs_merge: one stack out of several walks of one thread, ordered by stack pointer. It walks
 * nothing and calls no runtime: the native walker and each runtime's DoStackSnapshot produce the
 * inputs; this decides which frame comes from where. */
#pragma once

#include <glib.h>
#include <stdint.h>

typedef enum {
  SXS_FRAME_NATIVE,
  SXS_FRAME_MANAGED,
} SxsFrameKind;

/* One frame of a stitched stack. sp is the stack pointer while that frame runs (a leaf has the
 * lowest); for a managed frame, runtime_id and function_id say whose function it is (the
 * FunctionID is only ever given back to that runtime). */
typedef struct {
  uintptr_t sp;
  uintptr_t ip;
  SxsFrameKind kind;
  int runtime_id;       /* 0 for native frames */
  uint64_t function_id; /* 0 for native frames, or when unknown */
  /* A managed frame of code its runtime's own walks do not report (a dynamic method, an IL stub:
   * code without metadata), as the native walk classified it: the merge keeps it where a walk
   * covers its stack range. */
  gboolean unwalked;
} SxsStackFrame;

/* One runtime's walk of the thread (DoStackSnapshot, leaf first). complete is FALSE when the walk
 * stopped early (failed, aborted): past its last frame, the native walk's classification stands
 * in for it. */
typedef struct {
  int runtime_id;
  const SxsStackFrame *frames;
  guint n;
  gboolean complete;
} SxsRuntimeWalk;

/* Merges a native walk with the runtimes' walks into out (leaf first, at most max frames), and
 * returns how many were written.
 *
 * native: the native walker's frames, leaf first, each classified: kind MANAGED with runtime_id
 * (and function_id when known) where a runtime said it owns the IP, NATIVE where none did.
 *
 * A native frame a runtime owns is replaced by that runtime's own frames where its walk covers
 * that stack range (from its first frame's sp to its last's, or to the end of the stack when the
 * walk is complete); outside that range it stays, as that runtime's managed frame, so a walk that
 * fails halfway loses nothing; an unwalked frame (code the runtime's walks never report) stays
 * inside it too, unless a walk reports its function or a frame at its sp. Managed frames the runtime walks report are all kept (a walk knows
 * frames the native walker may have skipped). The result is sorted by sp; a native frame at the sp
 * of a managed one is dropped (one stack slot, one frame: it is the managed frame as the native
 * walker saw it), and frames equal in kind, runtime, sp and ip appear once.
 * out should have room for every input frame: with less, what does not fit is dropped in input
 * order (the runtime walks' frames go in first, the native walk's last), not by depth.
 * Context: any thread; allocates nothing (out is the caller's). */
guint sxs__merge_stacks(const SxsStackFrame *native, guint n_native, const SxsRuntimeWalk *walks, guint n_walks,
                        SxsStackFrame *out, guint max);
