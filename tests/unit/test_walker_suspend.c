/* The suspend walker's capture and its runtime's walk of the same thread, made a moment apart:
 * the innermost managed frame as captured and the frame the aligned walk begins with are one
 * call, a few words apart when the thread ran on within the function before it parked; merged,
 * the stack holds it once. A walk that begins with another function leaves the capture alone.
 * A walk of a thread that has returned from the captured frame since is aligned on the capture's
 * innermost caller it still holds: the capture's frames inside it, the walk's from it outwards. */
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

/* A capture of runtime 1's frames (function, sp), innermost first, and a walk of the same thread. */
typedef struct {
  uint64_t function;
  uintptr_t sp;
} F;

static SuspendedSample *aligned_sample(const F *captured, guint n_captured, const F *walked, guint n_walked) {
  SuspendedSample *s = g_new0(SuspendedSample, 1);
  for (guint i = 0; i < n_captured; i++)
    s->classified[i] = (SxsStackFrame){.sp = captured[i].sp,
                                       .ip = 0x7000 + captured[i].function,
                                       .kind = SXS_FRAME_MANAGED,
                                       .runtime_id = 1,
                                       .function_id = captured[i].function};
  s->n_classified = n_captured;
  for (guint i = 0; i < n_walked; i++)
    s->walked[i] =
        (SxsStackFrame){.sp = walked[i].sp, .ip = 0x9000 + walked[i].function, .function_id = walked[i].function};
  s->walks[0] = (SxsRuntimeWalk){.runtime_id = 1, .frames = s->walked, .n = n_walked, .complete = TRUE};
  s->n_walks = 1;
  return s;
}

/* The merged stack's functions, innermost first, as "7 9 8". */
static char *merged(SuspendedSample *s) {
  SxsStackFrame out[16];
  guint n = sxs__merge_stacks(s->classified, s->n_classified, s->walks, s->n_walks, out, G_N_ELEMENTS(out));
  GString *text = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(text, "%s%" G_GUINT64_FORMAT, i ? " " : "", out[i].function_id);
  return g_string_free(text, FALSE);
}

static void test_align_innermost(void) {
  /* Captured in Leaf (7) < Run (8); walked in Leaf a few words off: aligned on Leaf, kept whole. */
  const F cap[] = {{7, 0x1000}, {8, 0x1060}}, walk[] = {{7, 0x1010}, {8, 0x1060}, {10, 0x1100}};
  g_autofree SuspendedSample *s = aligned_sample(cap, 2, walk, 3);
  gboolean trimmed = TRUE;
  g_assert_cmpint(sxs__walker_suspend_align(s, &trimmed), ==, 0);
  g_assert_false(trimmed);
  g_assert_cmpuint(s->walks[0].n, ==, 3);
}

static void test_align_on_caller(void) {
  /* Captured in Leaf (7) < Go (9) < Start (10), the frame-pointer walk having missed Run (8)
   * between Go and Start (an OSR method's frame); by the suspension the thread had returned to Go,
   * and the runtime walks Go < Run < Start. Dropping the walk kept the capture's missing frame;
   * aligned on Go, the stack is the one the thread had. */
  const F cap[] = {{7, 0x1000}, {9, 0x1020}, {10, 0x1100}}, walk[] = {{9, 0x1028}, {8, 0x1060}, {10, 0x1100}};
  g_autofree SuspendedSample *s = aligned_sample(cap, 3, walk, 3);
  gboolean trimmed = TRUE;
  g_assert_cmpint(sxs__walker_suspend_align(s, &trimmed), ==, 1);
  g_assert_false(trimmed);
  /* The walk's Go takes the capture's stack pointer: Leaf stays below it, the captured Go goes. */
  g_assert_cmphex(s->walks[0].frames[0].sp, ==, 0x1020);
  g_autofree char *stack = merged(s);
  g_assert_cmpstr(stack, ==, "7 9 8 10");
}

static void test_align_other_callee(void) {
  /* Cold.Walk (11) captured under HotCold (12) < Main (13); by the suspension HotCold had called
   * Hot.Spin (14) at the same depth: the walk's Hot.Spin goes, the capture's Cold.Walk stays. */
  const F cap[] = {{11, 0x1000}, {12, 0x1040}, {13, 0x1080}}, walk[] = {{14, 0x1000}, {12, 0x1040}, {13, 0x1080}};
  g_autofree SuspendedSample *s = aligned_sample(cap, 3, walk, 3);
  gboolean trimmed = FALSE;
  g_assert_cmpint(sxs__walker_suspend_align(s, &trimmed), ==, 1);
  g_assert_true(trimmed);
  g_autofree char *stack = merged(s);
  g_assert_cmpstr(stack, ==, "11 12 13");
}

static void test_align_recursion(void) {
  /* Captured 3 calls of Down (15) deep under Run (8) in Leaf (7); walked after two returns, in
   * the outermost Down. The innermost Down calls are not in the walk: each capture frame is
   * looked for below its own caller, so the walk's Down is matched with the capture's outermost
   * Down, and the stack keeps its depth. */
  const F cap[] = {{7, 0x1000}, {15, 0x1020}, {15, 0x1040}, {15, 0x1060}, {8, 0x1080}},
          walk[] = {{15, 0x1058}, {8, 0x1080}};
  g_autofree SuspendedSample *s = aligned_sample(cap, 5, walk, 2);
  gboolean trimmed = TRUE;
  g_assert_cmpint(sxs__walker_suspend_align(s, &trimmed), ==, 3);
  g_autofree char *stack = merged(s);
  g_assert_cmpstr(stack, ==, "7 15 15 15 8");
}

static void test_align_deeper_call(void) {
  /* Captured in Leaf (7) < Go (9) < Run (8); the thread has since called Go again from deeper
   * down (a frame of Go whose caller is below the captured Go): not the captured call. With
   * nothing else in common, the walk is of another stack and is dropped. */
  const F cap[] = {{7, 0x1000}, {9, 0x1020}, {8, 0x1060}}, walk[] = {{9, 0x0f00}, {16, 0x0f80}};
  g_autofree SuspendedSample *s = aligned_sample(cap, 3, walk, 2);
  gboolean trimmed = FALSE;
  g_assert_cmpint(sxs__walker_suspend_align(s, &trimmed), ==, -1);
  g_assert_cmpuint(s->walks[0].n, ==, 0);
  g_autofree char *stack = merged(s);
  g_assert_cmpstr(stack, ==, "7 9 8");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/walker-suspend/fuse/same-call", test_same_call);
  g_test_add_func("/walker-suspend/fuse/other-call", test_other_call);
  g_test_add_func("/walker-suspend/align/innermost", test_align_innermost);
  g_test_add_func("/walker-suspend/align/on-caller", test_align_on_caller);
  g_test_add_func("/walker-suspend/align/other-callee", test_align_other_callee);
  g_test_add_func("/walker-suspend/align/recursion", test_align_recursion);
  g_test_add_func("/walker-suspend/align/deeper-call", test_align_deeper_call);
  return g_test_run();
}
