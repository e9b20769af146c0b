/* Where the time went by component: a frame's component from its module, name and thread, and
 * the breakdown of a saved profile's samples (every sample in exactly one component). */
#include <glib.h>
#include <string.h>

#include "sxs_components.h"
#include "sxs_profile_read.h"

static SxsComponent of(gboolean managed, const char *name, const char *module, const char *thread) {
  SxsViewFrame f = {.label = (char *)name, .name = (char *)name, .module = (char *)module, .managed = managed};
  return sxs__components_of_frame(&f, thread);
}

static void test_frames(void) {
  g_assert_cmpint(of(TRUE, "Sxs.Demo.Program.Main", "Demo.dll", NULL), ==, SXS_COMPONENT_APP);
  g_assert_cmpint(of(TRUE, "System.String.Concat", "System.Private.CoreLib.dll", NULL), ==, SXS_COMPONENT_FRAMEWORK);
  g_assert_cmpint(of(TRUE, "Microsoft.Build.X.Y", "/usr/share/dotnet/sdk/10/Microsoft.Build.dll", NULL), ==,
                  SXS_COMPONENT_FRAMEWORK);
  g_assert_cmpint(of(TRUE, "System.Linq.Expressions.Lambda", "", NULL), ==, SXS_COMPONENT_FRAMEWORK);
  g_assert_cmpint(of(TRUE, "Program.<Main>$", "", NULL), ==, SXS_COMPONENT_APP);
  g_assert_cmpint(of(FALSE, "libclrjit.so+0x31d8ff", "libclrjit.so", NULL), ==, SXS_COMPONENT_JIT);
  g_assert_cmpint(of(FALSE, "WKS::gc_heap::mark_object_simple", "libcoreclr.so", NULL), ==, SXS_COMPONENT_GC);
  g_assert_cmpint(of(FALSE, "libcoreclr.so+0x2b6707", "libcoreclr.so", ".NET BGC"), ==, SXS_COMPONENT_GC);
  g_assert_cmpint(of(FALSE, "libcoreclr.so+0x2b6707", "libcoreclr.so", "Main"), ==, SXS_COMPONENT_RUNTIME);
  g_assert_cmpint(of(FALSE, "SystemNative_Read", "libSystem.Native.so", NULL), ==, SXS_COMPONENT_RUNTIME);
  g_assert_cmpint(of(FALSE, "memmove", "libc.so.6", NULL), ==, SXS_COMPONENT_LIBC);
  g_assert_cmpint(of(FALSE, "_dl_runtime_resolve", "ld-linux-x86-64.so.2", NULL), ==, SXS_COMPONENT_LIBC);
  g_assert_cmpint(of(FALSE, "deflate", "libz.so.1", NULL), ==, SXS_COMPONENT_NATIVE);
  g_assert_cmpint(of(FALSE, "0x7f1fa42a2004", "", NULL), ==, SXS_COMPONENT_NATIVE);
  g_assert_cmpint(of(FALSE, "[vdso]+0x79c", "[vdso]", NULL), ==, SXS_COMPONENT_KERNEL);
  g_assert_cmpint(of(FALSE, "sxs__sampler_handler", "libsxsprof.so", NULL), ==, SXS_COMPONENT_PROFILER);

  SxsViewFrame unnamed = {.name = "libcoreclr.so+0x5fb3cb", .module = "libcoreclr.so"};
  SxsViewFrame named = {.name = "memcpy", .module = "libc.so.6"};
  SxsViewFrame bare = {.name = "0x7f1fa42a2004", .module = ""};
  g_assert_true(sxs__components_unnamed(&unnamed));
  g_assert_false(sxs__components_unnamed(&named));
  g_assert_true(sxs__components_unnamed(&bare));
  for (int c = 0; c < SXS_N_COMPONENTS; c++)
    g_assert_true(*sxs__components_name((SxsComponent)c) && *sxs__components_about((SxsComponent)c));
}

/* A saved profile's samples: each in one component, the parts summing to the whole, the
 * libraries' unnamed leaves no more than their components hold. */
static void test_saved_profile(void) {
  const char *src = g_getenv("SXS_SOURCE_DIR");
  g_assert_nonnull(src);
  g_autofree char *path = g_build_filename(src, "tests", "unit", "data", "sampled.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) m = sxs__profile_load(path, 0, &error);
  g_assert_no_error(error);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsComponentTotals t;
  sxs__components_totals(v, SXS_VIEW_SAMPLES, &t);
  guint64 whole = 0, sum = 0;
  SxsViewIter it;
  sxs__view_iter_init(&it, v, SXS_VIEW_SAMPLES);
  for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));)
    whole += g->total;
  for (int c = 0; c < SXS_N_COMPONENTS; c++)
    sum += t.weight[c];
  g_assert_cmpuint(whole, >, 0);
  g_assert_cmpuint(sum, ==, whole);
  g_assert_cmpuint(t.total, ==, whole);
  guint64 *coreclr = g_hash_table_lookup(t.unnamed, "libcoreclr.so");
  g_assert_nonnull(coreclr);
  g_assert_cmpuint(*coreclr, <=, t.weight[SXS_COMPONENT_RUNTIME] + t.weight[SXS_COMPONENT_GC]);
  sxs__components_clear(&t);

  /* By component, every sample stack has its component as its root. */
  SxsViewFilter filter = {.by_component = TRUE};
  g_autoptr(SxsView) by = sxs__view_new(m, &filter);
  guint64 rooted = 0;
  sxs__view_iter_init(&it, by, SXS_VIEW_SAMPLES);
  for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
    const SxsViewFrame *root = by->frames->pdata[s->frames[0]];
    g_assert_true(g_str_has_prefix(root->label, "[component] "));
    const SxsViewFrame *leaf = by->frames->pdata[s->frames[s->depth - 1]];
    g_assert_cmpstr(root->name, ==, sxs__components_name(sxs__components_of_frame(leaf, it.group->thread_name)));
    rooted += s->weight;
  }
  g_assert_cmpuint(rooted, ==, whole);
}

/* Sizes for people, in every view that shows bytes (the summary, the SVG's titles). */
static void test_size_text(void) {
  static const struct {
    guint64 bytes;
    const char *text;
  } cases[] = {{0, "0 B"},
               {1023, "1023 B"},
               {1024, "1.0 KiB"},
               {379811498, "362.2 MiB"},
               {G_GUINT64_CONSTANT(3) << 30, "3.0 GiB"}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = sxs__view_size_text(cases[i].bytes);
    g_assert_cmpstr(text, ==, cases[i].text);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/components/frames", test_frames);
  g_test_add_func("/views/components/saved-profile", test_saved_profile);
  g_test_add_func("/views/size-text", test_size_text);
  return g_test_run();
}
