/* A capture walked again from its stack copy once the code its first walk guessed at was read, and joined to the first
 * walk: the frames the new walk finds between the two walks' parting and meeting again are taken; where the new walk
 * would replace frames of the first one after a step both made, the first walk stands; a new walk that ended at the
 * copy's end meets the first where the record its next step would read leads. */
#include <glib.h>

#include "sxs_sampler_internal.h"

/* Frames are {return address, stack pointer}, written "ip@sp" in the checks. */
static char *text(const SxsNativeFrame *f, guint n) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf(s, "%s%" G_GINT64_MODIFIER "x@%" G_GINT64_MODIFIER "x", i ? " " : "", (guint64)f[i].ip,
                           (guint64)f[i].sp);
  return g_string_free(s, FALSE);
}

static void test_caller_found(void) {
  /* B (the leaf, guessed) < A < Thread.StartCallback: A's frame-pointer step skipped Run, the OSR loop method. The walk
   * made again agrees on B and A, then finds Run, then meets the first walk at StartCallback. */
  const SxsNativeFrame native[] = {{0xb1, 0x100}, {0xa1, 0x110}, {0x51, 0x200}, {0x61, 0x240}};
  const SxsNativeFrame walked[] = {{0xb1, 0x100}, {0xa1, 0x110}, {0x71, 0x120}, {0x51, 0x200}, {0x61, 0x240}};
  SxsNativeFrame out[8];
  guint n = sxs__sampler_rewalk_join(native, 4, 0, walked, 5, 0, 0, out, G_N_ELEMENTS(out));
  g_autofree char *got = text(out, n);
  g_assert_cmpstr(got, ==, "b1@100 a1@110 71@120 51@200 61@240");
}

static void test_from_start(void) {
  /* The guess was at frame 1: frame 0 is kept, the walk made again begins there. */
  const SxsNativeFrame native[] = {{0x11, 0x80}, {0xb1, 0x100}, {0xa1, 0x110}, {0x51, 0x200}};
  const SxsNativeFrame walked[] = {{0xb1, 0x100}, {0xa1, 0x110}, {0x71, 0x120}, {0x51, 0x200}};
  SxsNativeFrame out[8];
  guint n = sxs__sampler_rewalk_join(native, 4, 1, walked, 4, 0, 0, out, G_N_ELEMENTS(out));
  g_autofree char *got = text(out, n);
  g_assert_cmpstr(got, ==, "11@80 b1@100 a1@110 71@120 51@200");
}

static void test_first_step_replaced(void) {
  /* Parted at the guessed frame's own step: the first walk's frame after it was read through a frame pointer the
   * frame does not keep (a stale record), and the new walk's replaces it. */
  const SxsNativeFrame native[] = {{0xb1, 0x100}, {0xee, 0x180}, {0x51, 0x200}, {0x61, 0x240}};
  const SxsNativeFrame walked[] = {{0xb1, 0x100}, {0xc1, 0x118}, {0x51, 0x200}, {0x61, 0x240}};
  SxsNativeFrame out[8];
  guint n = sxs__sampler_rewalk_join(native, 4, 0, walked, 4, 0, 0, out, G_N_ELEMENTS(out));
  g_autofree char *got = text(out, n);
  g_assert_cmpstr(got, ==, "b1@100 c1@118 51@200 61@240");
}

static void test_later_replacement_refused(void) {
  /* Parted after a step both made, the new walk reads Run twice and meets the first walk past StartCallback, which it
   * would drop: the first walk stands. */
  const SxsNativeFrame native[] = {{0xb1, 0x100}, {0xa1, 0x110}, {0x51, 0x200}, {0x61, 0x240}};
  const SxsNativeFrame walked[] = {{0xb1, 0x100}, {0xa1, 0x110}, {0x71, 0x120}, {0x72, 0x1c0}, {0x61, 0x240}};
  SxsNativeFrame out[8];
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 4, 0, walked, 5, 0, 0, out, G_N_ELEMENTS(out)), ==, 0);
}

static void test_nothing_new(void) {
  /* The same walk again, or one that never meets the first: nothing to join. */
  const SxsNativeFrame native[] = {{0xb1, 0x100}, {0xa1, 0x110}, {0x51, 0x200}};
  const SxsNativeFrame other[] = {{0xb1, 0x100}, {0xd1, 0x130}, {0xd2, 0x300}};
  SxsNativeFrame out[8];
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 3, 0, native, 3, 0, 0, out, G_N_ELEMENTS(out)), ==, 0);
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 3, 0, other, 3, 0, 0, out, G_N_ELEMENTS(out)), ==, 0);
}

static void test_ended_at_copy(void) {
  /* Leaf < Check < Run: Check, frameless, called from a filter funclet (in Handle) whose frame pointer is Handle's, was
   * stepped by that frame pointer to Run, the funclet lost. The walk made again finds the funclet and ends there: its
   * next step would read Handle's frame record (0x1f0), past the copy (the exception dispatch lies between). That
   * record is the one the first walk read to reach Run (at 0x200): the walks meet there. */
  const SxsNativeFrame native[] = {{0xb1, 0x100}, {0xc1, 0x110}, {0x51, 0x200}, {0x61, 0x240}};
  const SxsNativeFrame walked[] = {{0xb1, 0x100}, {0xc1, 0x110}, {0xf1, 0x120}};
  SxsNativeFrame out[8];
  guint n = sxs__sampler_rewalk_join(native, 4, 0, walked, 3, 0x1f0, 0, out, G_N_ELEMENTS(out));
  g_autofree char *got = text(out, n);
  g_assert_cmpstr(got, ==, "b1@100 c1@110 f1@120 51@200 61@240");
  /* Without the record, or with one that leads to no frame of the first walk: no join. */
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 4, 0, walked, 3, 0, 0, out, G_N_ELEMENTS(out)), ==, 0);
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 4, 0, walked, 3, 0x1e0, 0, out, G_N_ELEMENTS(out)), ==, 0);
  /* After a step both made, only the frame that followed it is a meeting point (the new walk only adds frames). */
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 4, 0, walked, 3, 0x230, 0, out, G_N_ELEMENTS(out)), ==, 0);
}

static void test_patchpoint_replaced(void) {
  /* Sort's OSR frame stepped to its patchpoint in Tier-0 code the walk did not know, read as a frame of its own
   * (Sort < Sort), and from there to the thread's start, Run lost. The walk made again knows the code, steps the OSR
   * frame to the Tier-0 record's caller, Run, and meets the first walk at the thread's start: the patchpoint's frame,
   * reading its caller's method again, may be replaced after the steps both walks made. */
  const SxsNativeFrame native[] = {{0xa1, 0x100}, {0xa2, 0x110}, {0x5a, 0x200}, {0x5b, 0x220}, {0x61, 0x2d0}};
  const SxsNativeFrame walked[] = {{0xa1, 0x100}, {0xa2, 0x110}, {0x5a, 0x200}, {0x71, 0x280}, {0x61, 0x2d0}};
  SxsNativeFrame out[8];
  guint n = sxs__sampler_rewalk_join(native, 5, 0, walked, 5, 0, 3, out, G_N_ELEMENTS(out));
  g_autofree char *got = text(out, n);
  g_assert_cmpstr(got, ==, "a1@100 a2@110 5a@200 71@280 61@2d0");
  /* Not a frame read twice: the first walk stands. */
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 5, 0, walked, 5, 0, 0, out, G_N_ELEMENTS(out)), ==, 0);
  g_assert_cmpuint(sxs__sampler_rewalk_join(native, 5, 0, walked, 5, 0, 4, out, G_N_ELEMENTS(out)), ==, 0);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/rewalk/join/caller-found", test_caller_found);
  g_test_add_func("/rewalk/join/from-start", test_from_start);
  g_test_add_func("/rewalk/join/first-step-replaced", test_first_step_replaced);
  g_test_add_func("/rewalk/join/later-replacement-refused", test_later_replacement_refused);
  g_test_add_func("/rewalk/join/nothing-new", test_nothing_new);
  g_test_add_func("/rewalk/join/ended-at-copy", test_ended_at_copy);
  g_test_add_func("/rewalk/join/patchpoint-replaced", test_patchpoint_replaced);
  return g_test_run();
}
