/* sxs_merge: stitching the walks of one thread into one stack, by stack pointer.
 *
 *   stack (grows down)      native walk            runtime 1 walk       runtime 2 walk
 *   sp 0x1000  A.Inner      ip in rt1 code   --x   A.Inner (0x1000)
 *   sp 0x1040  bridge_call  native  ----------------------------------------------------> kept
 *   sp 0x10a0  B.Middle     ip in rt2 code   --x                        B.Middle (0x10a0)
 *   sp 0x1100  bridge_call  native  ----------------------------------------------------> kept
 *   sp 0x1180  A.Outer      ip in rt1 code   --x   A.Outer  (0x1180)
 *   sp 0x1200  (skipped by  -                      A.Main   (0x1200)    <- a walk may know
 *               the native walker)                                         frames the native
 *   sp 0x1300  libcoreclr   native  ---------------------------------------> kept    walker lost
 *
 * --x: a native frame whose IP a runtime owns is dropped where that runtime's own walk covers its
 * stack range, and kept as that runtime's frame where it does not (a walk that stopped early).
 * Code without metadata (a dynamic method, an IL stub: SxsStackFrame.unwalked) is never in a
 * runtime's walk (DoStackSnapshot leaves it out), so its frames stay where a walk covers them,
 * unless the walk has their function or a frame at their sp.
 * Every runtime-walk frame is kept. Then everything is ordered by sp, leaf first. */
#include "sxs_merge.h"

/* Does one of runtime_id's walks cover sp? From its first frame's sp to its last's, or to the end
 * of the stack when the walk completed. */
static gboolean covered(const SxsRuntimeWalk *walks, guint n_walks, int runtime_id, uintptr_t sp) {
  for (guint w = 0; w < n_walks; w++) {
    const SxsRuntimeWalk *walk = &walks[w];
    if (walk->runtime_id != runtime_id || walk->n == 0)
      continue;
    uintptr_t lo = walk->frames[0].sp, hi = walk->frames[walk->n - 1].sp;
    for (guint i = 1; i < walk->n; i++) {
      lo = MIN(lo, walk->frames[i].sp);
      hi = MAX(hi, walk->frames[i].sp);
    }
    if (walk->complete)
      hi = UINTPTR_MAX;
    if (sp >= lo && sp <= hi)
      return TRUE;
  }
  return FALSE;
}

/* Whether one of runtime_id's walks reports function_id, or a frame at sp. */
static gboolean walked(const SxsRuntimeWalk *walks, guint n_walks, int runtime_id, uint64_t function_id, uintptr_t sp) {
  for (guint w = 0; w < n_walks; w++)
    for (guint i = 0; walks[w].runtime_id == runtime_id && i < walks[w].n; i++)
      if (walks[w].frames[i].function_id == function_id || walks[w].frames[i].sp == sp)
        return TRUE;
  return FALSE;
}

/* Leaf first: by sp, then managed before native, then by runtime and ip (for a stable order and
 * so that duplicates sit side by side). */
static int frame_order(const SxsStackFrame *a, const SxsStackFrame *b) {
  if (a->sp != b->sp)
    return a->sp < b->sp ? -1 : 1;
  if (a->kind != b->kind)
    return a->kind == SXS_FRAME_MANAGED ? -1 : 1;
  if (a->runtime_id != b->runtime_id)
    return a->runtime_id < b->runtime_id ? -1 : 1;
  if (a->ip != b->ip)
    return a->ip < b->ip ? -1 : 1;
  return 0;
}

static gboolean push(SxsStackFrame *out, guint max, guint *n, const SxsStackFrame *f) {
  if (*n >= max)
    return FALSE;
  out[(*n)++] = *f;
  return TRUE;
}

guint sxs__merge_stacks(const SxsStackFrame *native, guint n_native, const SxsRuntimeWalk *walks, guint n_walks,
                        SxsStackFrame *out, guint max) {
  guint n = 0;
  for (guint w = 0; w < n_walks; w++)
    for (guint i = 0; i < walks[w].n; i++) {
      SxsStackFrame f = walks[w].frames[i];
      f.kind = SXS_FRAME_MANAGED;
      f.runtime_id = walks[w].runtime_id;
      if (!push(out, max, &n, &f))
        goto sort;
    }
  for (guint i = 0; i < n_native; i++) {
    const SxsStackFrame *f = &native[i];
    if (f->kind == SXS_FRAME_MANAGED && covered(walks, n_walks, f->runtime_id, f->sp) &&
        !(f->unwalked && !walked(walks, n_walks, f->runtime_id, f->function_id, f->sp)))
      continue;
    if (!push(out, max, &n, f))
      break;
  }
sort:
  /* Insertion sort: the inputs come mostly in order, and n is a stack's depth. */
  for (guint i = 1; i < n; i++) {
    SxsStackFrame f = out[i];
    guint j = i;
    for (; j > 0 && frame_order(&out[j - 1], &f) > 0; j--)
      out[j] = out[j - 1];
    out[j] = f;
  }
  /* One stack slot holds one frame: a native frame at a managed frame's sp is that frame as the
   * native walker saw it (its ip unclaimed, e.g. a fault at a function's first instruction,
   * looked up one byte back), so it goes. */
  guint kept = 0;
  for (guint i = 0; i < n; i++) {
    if (kept > 0 && out[kept - 1].sp == out[i].sp && out[kept - 1].kind == SXS_FRAME_MANAGED &&
        out[i].kind == SXS_FRAME_NATIVE)
      continue;
    if (kept == 0 || frame_order(&out[kept - 1], &out[i]) != 0)
      out[kept++] = out[i];
  }
  return kept;
}
