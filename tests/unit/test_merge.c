/* Unit tests of the merge of one thread's walks by stack pointer, with synthetic frame lists:
 * interleaved runtimes, overlaps, gaps, equal stack pointers, one runtime only, no managed frames,
 * a runtime walk that stopped halfway, duplicates, truncation. */
#include <glib.h>

#include "sxs_merge.h"

/* Frame builders: native (no runtime), owned (a native-walk frame a runtime claimed), managed. */
#define NAT(sp_, ip_)                                                                                                  \
  { .sp = (sp_), .ip = (ip_), .kind = SXS_FRAME_NATIVE }
#define OWN(sp_, ip_, rt_)                                                                                             \
  { .sp = (sp_), .ip = (ip_), .kind = SXS_FRAME_MANAGED, .runtime_id = (rt_) }
#define MAN(sp_, ip_, rt_, fn_)                                                                                        \
  { .sp = (sp_), .ip = (ip_), .kind = SXS_FRAME_MANAGED, .runtime_id = (rt_), .function_id = (fn_) }
/* A native-walk frame of code the runtime's walks never report (a dynamic method, an IL stub). */
#define DYN(sp_, ip_, rt_, fn_)                                                                                        \
  { .sp = (sp_), .ip = (ip_), .kind = SXS_FRAME_MANAGED, .runtime_id = (rt_), .function_id = (fn_), .unwalked = TRUE }

/* Checks out against the expected (sp, kind, runtime, function) in order. */
static void assert_stack(const SxsStackFrame *out, guint n, const SxsStackFrame *want, guint n_want) {
  g_assert_cmpuint(n, ==, n_want);
  for (guint i = 0; i < n; i++) {
    g_assert_cmphex(out[i].sp, ==, want[i].sp);
    g_assert_cmpint(out[i].kind, ==, want[i].kind);
    g_assert_cmpint(out[i].runtime_id, ==, want[i].runtime_id);
    g_assert_cmpuint(out[i].function_id, ==, want[i].function_id);
    if (i)
      g_assert_cmphex(out[i - 1].sp, <=, out[i].sp);
  }
}

/* rt1 -> bridge -> rt2 -> bridge -> rt1, with a frame only runtime 1's walk knows. */
static void test_interleaved(void) {
  const SxsStackFrame native[] = {OWN(0x1000, 0xa1, 1), NAT(0x1040, 0xb1),    OWN(0x10a0, 0xc1, 2),
                                  NAT(0x1100, 0xb2),    OWN(0x1180, 0xa2, 1), NAT(0x1300, 0xd1)};
  const SxsStackFrame rt1[] = {MAN(0x1000, 0xa1, 1, 11), MAN(0x1180, 0xa2, 1, 12), MAN(0x1200, 0xa3, 1, 13)};
  const SxsStackFrame rt2[] = {MAN(0x10a0, 0xc1, 2, 21)};
  const SxsRuntimeWalk walks[] = {{1, rt1, 3, TRUE}, {2, rt2, 1, TRUE}};
  SxsStackFrame out[32];
  guint n = sxs__merge_stacks(native, G_N_ELEMENTS(native), walks, 2, out, G_N_ELEMENTS(out));
  const SxsStackFrame want[] = {MAN(0x1000, 0, 1, 11), NAT(0x1040, 0),        MAN(0x10a0, 0, 2, 21), NAT(0x1100, 0),
                                MAN(0x1180, 0, 1, 12), MAN(0x1200, 0, 1, 13), NAT(0x1300, 0)};
  assert_stack(out, n, want, G_N_ELEMENTS(want));
  for (guint i = 1; i < n; i++)
    g_assert_cmphex(out[i - 1].sp, <, out[i].sp);
}

/* The native frames merged with one complete walk of runtime 1 into out (room for 16). */
static guint merge_one(const SxsStackFrame *native, guint n_native, const SxsStackFrame *walk, guint n_walk,
                       SxsStackFrame *out) {
  const SxsRuntimeWalk walks[] = {{1, walk, n_walk, TRUE}};
  return sxs__merge_stacks(native, n_native, walks, 1, out, 16);
}

/* A dynamic method between two managed frames: the runtime's walk leaves it out and covers its
 * range, the native walk's frame stays (Leaf < [dynamic method] < Run). Not when the walk has a
 * frame at its sp, or its function: that frame is the walk's. */
static void test_unwalked(void) {
  const SxsStackFrame native[] = {OWN(0x1000, 0xa1, 1), DYN(0x1040, 0xe1, 1, 99), OWN(0x1080, 0xa2, 1),
                                  NAT(0x1300, 0xd1)};
  SxsStackFrame out[16];
  const SxsStackFrame without[] = {MAN(0x1000, 0xa1, 1, 11), MAN(0x1080, 0xa2, 1, 12)};
  const SxsStackFrame want[] = {MAN(0x1000, 0, 1, 11), MAN(0x1040, 0, 1, 99), MAN(0x1080, 0, 1, 12), NAT(0x1300, 0)};
  assert_stack(out, merge_one(native, 4, without, 2, out), want, G_N_ELEMENTS(want));
  g_assert_true(out[1].unwalked);

  const SxsStackFrame at_sp[] = {MAN(0x1000, 0xa1, 1, 11), MAN(0x1040, 0xe1, 1, 13), MAN(0x1080, 0xa2, 1, 12)};
  const SxsStackFrame want_at_sp[] = {MAN(0x1000, 0, 1, 11), MAN(0x1040, 0, 1, 13), MAN(0x1080, 0, 1, 12),
                                      NAT(0x1300, 0)};
  assert_stack(out, merge_one(native, 4, at_sp, 3, out), want_at_sp, G_N_ELEMENTS(want_at_sp));

  const SxsStackFrame same_fn[] = {MAN(0x1000, 0xa1, 1, 11), MAN(0x1048, 0xe1, 1, 99), MAN(0x1080, 0xa2, 1, 12)};
  const SxsStackFrame want_same_fn[] = {MAN(0x1000, 0, 1, 11), MAN(0x1048, 0, 1, 99), MAN(0x1080, 0, 1, 12),
                                        NAT(0x1300, 0)};
  assert_stack(out, merge_one(native, 4, same_fn, 3, out), want_same_fn, G_N_ELEMENTS(want_same_fn));
}

/* A runtime walk that stopped after its first frame: past it, the native walk's classification
 * stands in, so the outer managed frame is not lost. */
static void test_walk_failed_halfway(void) {
  const SxsStackFrame native[] = {OWN(0x1000, 0xa1, 1), NAT(0x1040, 0xb1), OWN(0x1180, 0xa2, 1), NAT(0x1300, 0xd1)};
  const SxsStackFrame rt1[] = {MAN(0x1000, 0xa1, 1, 11)};
  const SxsRuntimeWalk walks[] = {{1, rt1, 1, FALSE}};
  SxsStackFrame out[16];
  guint n = sxs__merge_stacks(native, 4, walks, 1, out, 16);
  const SxsStackFrame want[] = {MAN(0x1000, 0, 1, 11), NAT(0x1040, 0), OWN(0x1180, 0, 1), NAT(0x1300, 0)};
  assert_stack(out, n, want, G_N_ELEMENTS(want));
}

/* A walk that produced nothing covers nothing: the classified native frames stay. */
static void test_walk_empty(void) {
  const SxsStackFrame native[] = {OWN(0x1000, 0xa1, 1), NAT(0x1040, 0xb1)};
  const SxsRuntimeWalk walks[] = {{1, NULL, 0, TRUE}};
  SxsStackFrame out[8];
  guint n = sxs__merge_stacks(native, 2, walks, 1, out, 8);
  const SxsStackFrame want[] = {OWN(0x1000, 0, 1), NAT(0x1040, 0)};
  assert_stack(out, n, want, 2);
}

/* Equal stack pointers: one stack slot holds one frame, so a native frame (owned or not) at a
 * managed frame's sp is that frame and goes. */
static void test_equal_sp(void) {
  const SxsStackFrame native[] = {NAT(0x2000, 0xb1), OWN(0x2000, 0xa1, 1), NAT(0x2100, 0xb2)};
  const SxsStackFrame rt1[] = {MAN(0x2000, 0xa1, 1, 11)};
  const SxsRuntimeWalk walks[] = {{1, rt1, 1, TRUE}};
  SxsStackFrame out[8];
  guint n = sxs__merge_stacks(native, 3, walks, 1, out, 8);
  const SxsStackFrame want[] = {MAN(0x2000, 0, 1, 11), NAT(0x2100, 0)};
  assert_stack(out, n, want, 2);

  /* A fault at a managed function's first instruction: the native walker's frame for it carries
   * the faulting ip, unclaimed (its ip - 1 lies in the function before), at the managed frame's
   * sp. One frame, the managed one. */
  const SxsStackFrame faulted[] = {NAT(0x1f00, 0xc1), NAT(0x2000, 0xa0), OWN(0x2010, 0xa5, 1)};
  const SxsStackFrame rt1b[] = {MAN(0x2000, 0xa0, 1, 11), MAN(0x2010, 0xa5, 1, 12)};
  const SxsRuntimeWalk walks_b[] = {{1, rt1b, 2, TRUE}};
  n = sxs__merge_stacks(faulted, 3, walks_b, 1, out, 8);
  const SxsStackFrame want_b[] = {NAT(0x1f00, 0), MAN(0x2000, 0, 1, 11), MAN(0x2010, 0, 1, 12)};
  assert_stack(out, n, want_b, 3);
}

/* Only native frames, and only one runtime with everything managed. */
static void test_single_sources(void) {
  const SxsStackFrame native[] = {NAT(0x10, 1), NAT(0x20, 2), NAT(0x30, 3)};
  SxsStackFrame out[8];
  guint n = sxs__merge_stacks(native, 3, NULL, 0, out, 8);
  assert_stack(out, n, native, 3);

  const SxsStackFrame rt1[] = {MAN(0x10, 1, 1, 1), MAN(0x20, 2, 1, 2)};
  const SxsRuntimeWalk walks[] = {{1, rt1, 2, TRUE}};
  n = sxs__merge_stacks(NULL, 0, walks, 1, out, 8);
  assert_stack(out, n, rt1, 2);
}

/* Two walks of one runtime that overlap report a frame twice: it appears once. Inputs out of
 * order come out in order. */
static void test_duplicates_and_order(void) {
  const SxsStackFrame a[] = {MAN(0x300, 3, 1, 3), MAN(0x100, 1, 1, 1)};
  const SxsStackFrame b[] = {MAN(0x100, 1, 1, 1), MAN(0x200, 2, 1, 2)};
  const SxsRuntimeWalk walks[] = {{1, a, 2, FALSE}, {1, b, 2, FALSE}};
  SxsStackFrame out[8];
  guint n = sxs__merge_stacks(NULL, 0, walks, 2, out, 8);
  const SxsStackFrame want[] = {MAN(0x100, 0, 1, 1), MAN(0x200, 0, 1, 2), MAN(0x300, 0, 1, 3)};
  assert_stack(out, n, want, 3);
}

/* Room for fewer frames than there are: never more than max written, still in order. */
static void test_truncated(void) {
  const SxsStackFrame native[] = {NAT(0x10, 1), NAT(0x20, 2), NAT(0x30, 3), NAT(0x40, 4)};
  SxsStackFrame out[2];
  guint n = sxs__merge_stacks(native, 4, NULL, 0, out, 2);
  assert_stack(out, n, native, 2);
  g_assert_cmpuint(sxs__merge_stacks(native, 4, NULL, 0, out, 0), ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/merge/interleaved", test_interleaved);
  g_test_add_func("/stitch/merge/walk-failed-halfway", test_walk_failed_halfway);
  g_test_add_func("/stitch/merge/unwalked", test_unwalked);
  g_test_add_func("/stitch/merge/walk-empty", test_walk_empty);
  g_test_add_func("/stitch/merge/equal-sp", test_equal_sp);
  g_test_add_func("/stitch/merge/single-sources", test_single_sources);
  g_test_add_func("/stitch/merge/duplicates-and-order", test_duplicates_and_order);
  g_test_add_func("/stitch/merge/truncated", test_truncated);
  return g_test_run();
}
