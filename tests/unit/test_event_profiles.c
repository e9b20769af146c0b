/* The event profiles (exceptions, contention, allocations) in the model and its views: the JSON
 * rendered, read back and rendered again gives the same bytes (a runtime's heap after GC and its
 * allocations' source included); a merge renumbers their runtimes;
 * the view groups them per runtime with the type as the leaf frame; pprof carries them as sample
 * types of their own beside the samples; the summary has a section each. */
#include <string.h>
#include <zlib.h>

#include <glib.h>

#include "profile.pb-c.h"
#include "sxs_profile_read.h"
#include "sxs_view.h"

static void add_frame(SxsStackModel *s, gboolean managed, int runtime_id, const char *name, const char *module) {
  SxsStackFrameModel f = {.managed = managed,
                          .runtime_id = managed ? runtime_id : 0,
                          .name = g_strdup(name),
                          .module = g_strdup(module),
                          .ip = 0x1000 + s->frames->len,
                          .sp = 0x7000 + 16 * s->frames->len};
  g_array_append_val(s->frames, f);
}

/* A typed stack, leaf first: a native frame, the site, its caller. */
static void add_stack(SxsProfileModel *m, SxsProfileKind k, int rt, const char *type, const char *site, guint64 count,
                      guint64 value) {
  SxsStackModel *s = sxs__stack_model_new(sxs__profile_kind_name(k), 4242);
  s->runtime_id = rt;
  s->type = g_strdup(type);
  s->count = count;
  s->value = value;
  add_frame(s, FALSE, 0, "libcoreclr.so!throw+0x10", "libcoreclr.so");
  add_frame(s, TRUE, rt, site, "App.dll");
  add_frame(s, TRUE, rt, "App.Program.Main", "App.dll");
  g_ptr_array_add(m->profiles[k].stacks, s);
  m->profiles[k].enabled = TRUE;
  m->profiles[k].events += count;
  m->profiles[k].value += value;
}

/* Two runtimes; runtime 1 threw 30 + 20 and waited twice, runtime 2 allocated. */
static SxsProfileModel *fixture(void) {
  SxsProfileModel *m = sxs__profile_model_new();
  m->process = g_new0(SxsProcessInfo, 1);
  m->process->pid = 4242;
  for (int id = 1; id <= 2; id++) {
    SxsRuntimeModel *r = sxs__runtime_model_new();
    r->id = id;
    r->status = SXS_RUNTIME_PROFILING;
    r->version = g_strdup(id == 1 ? "10.0.12" : "8.0.34");
    if (id == 2) {
      r->heap = (SxsHeapModel){.gcs = 35, .after_last_gc = 65681632, .after_gc_max = 73400320};
      r->allocation_sampling = g_strdup("AllocationSampled");
    }
    g_ptr_array_add(m->runtimes, r);
  }
  add_stack(m, SXS_PROFILE_EXCEPTIONS, 1, "System.InvalidOperationException", "App.Sites.ThrowA", 30, 0);
  add_stack(m, SXS_PROFILE_EXCEPTIONS, 1, "System.ArgumentException", "App.Sites.ThrowB", 20, 0);
  add_stack(m, SXS_PROFILE_CONTENTION, 1, NULL, "App.Locks.Contend", 2, 500000000);
  add_stack(m, SXS_PROFILE_ALLOCATIONS, 2, "System.Byte[]", "App.Allocs.Big", 4000, 262240000);
  add_stack(m, SXS_PROFILE_ALLOCATIONS, 2, "App.Small", "App.Allocs.Small", 2048750, 65560000);
  m->profiles[SXS_PROFILE_ALLOCATIONS].sampling = g_strdup("GCAllocationTick: test");
  return m;
}

static void test_json_round_trip(void) {
  g_autoptr(SxsProfileModel) m = fixture();
  gsize len = 0;
  g_autofree char *text = sxs__profile_render_json(m, &len);
  g_autoptr(GError) error = NULL;
  g_autoptr(SxsProfileModel) back = sxs__profile_read(text, len, &error);
  g_assert_no_error(error);
  gsize len2 = 0;
  g_autofree char *again = sxs__profile_render_json(back, &len2);
  g_assert_cmpstr(again, ==, text);
  const SxsEventProfileModel *a = &back->profiles[SXS_PROFILE_ALLOCATIONS];
  g_assert_true(a->enabled);
  g_assert_cmpstr(a->sampling, ==, "GCAllocationTick: test");
  g_assert_cmpuint(a->stacks->len, ==, 2);
  const SxsStackModel *s = a->stacks->pdata[1];
  g_assert_cmpint(s->runtime_id, ==, 2);
  g_assert_cmpstr(s->type, ==, "App.Small");
  g_assert_cmpuint(s->count, ==, 2048750);
  g_assert_cmpuint(s->value, ==, 65560000);
  g_assert_cmpstr(s->event, ==, "allocations");
  /* The heap after GC: runtime 2's, read back; runtime 1 had none and says nothing of it. */
  const SxsRuntimeModel *r2 = back->runtimes->pdata[1];
  g_assert_cmpuint(r2->heap.gcs, ==, 35);
  g_assert_cmpuint(r2->heap.after_last_gc, ==, 65681632);
  g_assert_cmpuint(r2->heap.after_gc_max, ==, 73400320);
  g_assert_cmpuint(((const SxsRuntimeModel *)back->runtimes->pdata[0])->heap.gcs, ==, 0);
  /* The allocations' source, runtime 2's; none for runtime 1. */
  g_assert_cmpstr(r2->allocation_sampling, ==, "AllocationSampled");
  g_assert_null(((const SxsRuntimeModel *)back->runtimes->pdata[0])->allocation_sampling);
  const char *heap = strstr(text, "\"heap\"");
  g_assert_nonnull(heap);
  g_assert_null(strstr(heap + 1, "\"heap\""));
}

static void test_merge_renumbers(void) {
  g_autoptr(SxsProfileModel) into = fixture();
  g_autoptr(SxsProfileModel) from = fixture();
  sxs__profile_model_merge(into, from);
  const SxsEventProfileModel *e = &into->profiles[SXS_PROFILE_EXCEPTIONS];
  g_assert_cmpuint(e->stacks->len, ==, 4);
  g_assert_cmpuint(e->events, ==, 100);
  const SxsStackModel *moved = e->stacks->pdata[2];
  g_assert_cmpint(moved->runtime_id, ==, 3);
  const SxsStackFrameModel *site = &g_array_index(moved->frames, SxsStackFrameModel, 1);
  g_assert_cmpint(site->runtime_id, ==, 3);
  const SxsStackModel *alloc = into->profiles[SXS_PROFILE_ALLOCATIONS].stacks->pdata[3];
  g_assert_cmpint(alloc->runtime_id, ==, 4);
  /* The heap goes with its runtime. */
  g_assert_cmpuint(((const SxsRuntimeModel *)into->runtimes->pdata[3])->heap.gcs, ==, 35);
  g_assert_cmpint(((const SxsRuntimeModel *)into->runtimes->pdata[3])->id, ==, 4);
  g_assert_cmpuint(into->profiles[SXS_PROFILE_CONTENTION].value, ==, 1000000000);
}

static void test_view_groups(void) {
  g_autoptr(SxsProfileModel) m = fixture();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsViewIter it;
  sxs__view_iter_init(&it, v, SXS_VIEW_EXCEPTIONS);
  const SxsViewGroup *g = sxs__view_iter_next_group(&it);
  g_assert_nonnull(g);
  g_assert_cmpstr(g->name, ==, "exceptions, [rt1 10.0.12]");
  g_assert_cmpstr(g->unit, ==, "exceptions");
  g_assert_cmpuint(g->total, ==, 50);
  const SxsViewStack *top = &g_array_index(g->stacks, SxsViewStack, 0);
  g_assert_cmpuint(top->weight, ==, 30);
  g_assert_cmpuint(top->depth, ==, 4);
  g_assert_cmpstr(((const SxsViewFrame *)v->frames->pdata[top->frames[3]])->label, ==,
                  "[rt1 10.0.12] System.InvalidOperationException");
  g_assert_cmpstr(((const SxsViewFrame *)v->frames->pdata[top->frames[1]])->label, ==,
                  "[rt1 10.0.12] App.Sites.ThrowA");
  g_assert_null(sxs__view_iter_next_group(&it));

  sxs__view_iter_init(&it, v, SXS_VIEW_CONTENTION);
  g = sxs__view_iter_next_group(&it);
  g_assert_cmpstr(g->unit, ==, "nanoseconds");
  g_assert_cmpuint(g->total, ==, 500000000);
  g_assert_cmpuint(g->total_count, ==, 2);
  g_assert_cmpuint(g_array_index(g->stacks, SxsViewStack, 0).depth, ==, 3); /* no type frame */

  sxs__view_iter_init(&it, v, SXS_VIEW_ALLOCATIONS);
  g = sxs__view_iter_next_group(&it);
  g_assert_cmpstr(g->name, ==, "allocations, [rt2 8.0.34]");
  g_assert_cmpstr(g->unit, ==, "bytes");
  g_assert_cmpuint(g->total, ==, 262240000 + 65560000);

  /* --runtime 2 keeps runtime 2's allocations and none of runtime 1's events. */
  SxsViewFilter only2 = {.runtime_id = 2};
  g_autoptr(SxsView) v2 = sxs__view_new(m, &only2);
  sxs__view_iter_init(&it, v2, SXS_VIEW_EXCEPTIONS);
  g_assert_null(sxs__view_iter_next_group(&it));
  sxs__view_iter_init(&it, v2, SXS_VIEW_ALLOCATIONS);
  g_assert_nonnull(sxs__view_iter_next_group(&it));
}

static Perftools__Profiles__Profile *decode(const char *gz, gsize len) {
  z_stream zs = {0};
  g_assert_cmpint(inflateInit2(&zs, 15 + 16), ==, Z_OK);
  g_autoptr(GByteArray) raw = g_byte_array_new();
  guint8 chunk[16384];
  zs.next_in = (Bytef *)gz;
  zs.avail_in = len;
  int rc;
  do {
    zs.next_out = chunk;
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    g_assert_true(rc == Z_OK || rc == Z_STREAM_END);
    g_byte_array_append(raw, chunk, sizeof chunk - zs.avail_out);
  } while (rc != Z_STREAM_END);
  inflateEnd(&zs);
  Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, raw->len, raw->data);
  g_assert_nonnull(p);
  return p;
}

/* Every kind's sample types in Go's names, in order; each sample has values in its own kind only. */
static void test_pprof_sample_types(void) {
  g_autoptr(SxsProfileModel) m = fixture();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  gsize len = 0;
  g_autofree char *error = NULL;
  g_autofree char *gz = sxs__write_pprof(v, NULL, &len, &error);
  g_assert_nonnull(gz);
  Perftools__Profiles__Profile *p = decode(gz, len);
  static const char *const expected[][2] = {{"exceptions", "count"},
                                            {"contentions", "count"},
                                            {"delay", "nanoseconds"},
                                            {"alloc_objects", "count"},
                                            {"alloc_space", "bytes"}};
  g_assert_cmpuint(p->n_sample_type, ==, G_N_ELEMENTS(expected));
  for (gsize i = 0; i < G_N_ELEMENTS(expected); i++) {
    g_assert_cmpstr(p->string_table[p->sample_type[i]->type], ==, expected[i][0]);
    g_assert_cmpstr(p->string_table[p->sample_type[i]->unit], ==, expected[i][1]);
  }
  gint64 sums[5] = {0};
  for (gsize i = 0; i < p->n_sample; i++) {
    g_assert_cmpuint(p->sample[i]->n_value, ==, 5);
    guint nonzero_kinds = (p->sample[i]->value[0] != 0) + (p->sample[i]->value[1] != 0) + (p->sample[i]->value[3] != 0);
    g_assert_cmpuint(nonzero_kinds, ==, 1);
    for (int t = 0; t < 5; t++)
      sums[t] += p->sample[i]->value[t];
  }
  g_assert_cmpint(sums[0], ==, 50);
  g_assert_cmpint(sums[1], ==, 2);
  g_assert_cmpint(sums[2], ==, 500000000);
  g_assert_cmpint(sums[3], ==, 4000 + 2048750);
  g_assert_cmpint(sums[4], ==, 262240000 + 65560000);
  perftools__profiles__profile__free_unpacked(p, NULL);
}

static void test_summary_sections(void) {
  g_autoptr(SxsProfileModel) m = fixture();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  gsize len = 0;
  g_autofree char *error = NULL;
  g_autofree char *text = sxs__write_summary(v, NULL, &len, &error);
  g_assert_nonnull(strstr(text, "exceptions by type, runtime 1 (10.0.12): 50 exceptions, 2 types\n"
                                "            30  60.0%  System.InvalidOperationException\n"
                                "              30  60.0%  at App.Sites.ThrowA <- App.Program.Main\n"
                                "            20  40.0%  System.ArgumentException\n"
                                "              20  40.0%  at App.Sites.ThrowB <- App.Program.Main\n"));
  g_assert_nonnull(strstr(text, "lock contention by site, runtime 1 (10.0.12): 500.000 ms waited in 2 contentions\n"
                                "    500.000 ms 100.0%  at App.Locks.Contend <- App.Program.Main  (2 contentions)\n"));
  g_assert_nonnull(strstr(text, "allocations by type, runtime 2 (8.0.34): 312.6 MiB in 2052750 objects (estimated), 2 "
                                "types\n  heap after GC: 62.6 MiB after the last of 35 GCs, 70.0 MiB at most\n"
                                "     250.1 MiB  80.0%  System.Byte[]  (4000 objects)\n"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/profile/events/json-round-trip", test_json_round_trip);
  g_test_add_func("/profile/events/merge-renumbers", test_merge_renumbers);
  g_test_add_func("/views/events/groups", test_view_groups);
  g_test_add_func("/views/events/pprof-sample-types", test_pprof_sample_types);
  g_test_add_func("/views/events/summary", test_summary_sections);
  return g_test_run();
}
