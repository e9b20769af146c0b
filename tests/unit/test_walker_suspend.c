/* The suspend walker's capture and its runtime's walk of the same thread, made a moment apart:
 * the innermost managed frame as captured and the frame the aligned walk begins with are one
 * call, a few words apart when the thread ran on within the function before it parked; merged,
 * the stack holds it once. A walk that begins with another function leaves the capture alone. */
#include <string.h>

#include <glib.h>

#include "sxs_merge.h"
#include "sxs_sampler_internal.h"

static SuspendedSample *sample_new(void) {
  SuspendedSample *s = g_new0(SuspendedSample, 1);
  /* Captured: a native helper, then Leaf (7) at 0x1000, its caller Run (8) at 0x1060. */
  s->classified[0] = (SxsStackFrame){.sp = 0xff0, .ip = 0x5000, .kind = SXS_FRAME_NATIVE};
  s->classified[1] =
      (SxsStackFrame){.sp = 0x1000, .ip = 0x7010, .kind = SXS_FRAME_MANAGED, .runtime_id = 1, .function_id = 7};
  s->classified[2] =
      (SxsStackFrame){.sp = 0x1060, .ip = 0x8020, .kind = SXS_FRAME_MANAGED, .runtime_id = 1, .function_id = 8};
  s->n_classified = 3;
  return s;
}

static void test_same_call(void) {
  g_autofree SuspendedSample *s = sample_new();
  /* Walked: Leaf at 0x1010 (it popped twice since), Run at 0x1060. */
  s->walked[0] = (SxsStackFrame){.sp = 0x1010, .ip = 0x7030, .function_id = 7};
  s->walked[1] = (SxsStackFrame){.sp = 0x1060, .ip = 0x8020, .function_id = 8};
  s->walks[0] = (SxsRuntimeWalk){.runtime_id = 1, .frames = s->walked, .n = 2, .complete = TRUE};
  s->n_walks = 1;
  sxs__walker_suspend_fuse_first(s);
  g_assert_cmphex(s->classified[1].sp, ==, 0x1010);
  g_assert_cmphex(s->classified[0].sp, ==, 0xff0);
  SxsStackFrame out[8];
  guint n = sxs__merge_stacks(s->classified, s->n_classified, s->walks, s->n_walks, out, G_N_ELEMENTS(out));
  g_assert_cmpuint(n, ==, 3);
  g_assert_cmpint(out[0].kind, ==, SXS_FRAME_NATIVE);
  g_assert_cmpuint(out[1].function_id, ==, 7);
  g_assert_cmpuint(out[2].function_id, ==, 8);
}

static void test_other_call(void) {
  g_autofree SuspendedSample *s = sample_new();
  /* Walked from Run: the walk does not begin with Leaf, the capture's Leaf stays where it was. */
  s->walked[0] = (SxsStackFrame){.sp = 0x1060, .ip = 0x8020, .function_id = 8};
  s->walks[0] = (SxsRuntimeWalk){.runtime_id = 1, .frames = s->walked, .n = 1, .complete = TRUE};
  s->n_walks = 1;
  sxs__walker_suspend_fuse_first(s);
  g_assert_cmphex(s->classified[1].sp, ==, 0x1000);
  /* Another runtime's walk beginning with the same FunctionID value is not this call. */
  s->walked[0].function_id = 7;
  s->walks[0].runtime_id = 2;
  sxs__walker_suspend_fuse_first(s);
  g_assert_cmphex(s->classified[1].sp, ==, 0x1000);
  /* Nor a walk frame below the capture's (the thread went deeper: not the same frame's sp). */
  s->walks[0].runtime_id = 1;
  s->walked[0].sp = 0xf00;
  sxs__walker_suspend_fuse_first(s);
  g_assert_cmphex(s->classified[1].sp, ==, 0x1000);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/walker-suspend/fuse/same-call", test_same_call);
  g_test_add_func("/walker-suspend/fuse/other-call", test_other_call);
  return g_test_run();
}
