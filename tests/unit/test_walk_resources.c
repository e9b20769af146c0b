/* Unit tests of the walk resources (stitch/sxs_walk_resources.c): what a walk takes stays valid
 * until it leaves, though a library loaded or unloaded, or code gone, replaces it for the walks
 * after; what was replaced is freed once no walk is in flight (ASan checks both in the sanitizer
 * run: a use of a freed map or cache, or a leak of one, fails it). */
#include <dlfcn.h>
#include <glib.h>

#include <string.h>
#include <sys/mman.h>

#include "sxs_stitch.h"
#include "sxs_walk_resources.h"

/* A library the test binary does not link: loading it moves the loader's counters. */
#define OTHER_LIBRARY "libresolv.so.2"

static void test_enter_leave(void) {
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 0);
  SxsWalkResources a, b;
  sxs__walk_resources_enter(&a, NULL);
  g_assert_nonnull(a.map);
  g_assert_nonnull(a.steps);
  g_assert_nonnull(a.owners);
  g_assert_nonnull(a.symbols);
  /* This function's own code is in the map. */
  const SxsModule *self = sxs__modmap_find(a.map, (uintptr_t)test_enter_leave);
  g_assert_nonnull(self);
  g_assert_cmpstr(self->name, ==, "test_walk_resources");
  /* Nothing moved: a second walk reads the same. */
  sxs__walk_resources_enter(&b, NULL);
  g_assert_true(b.map == a.map && b.steps == a.steps && b.owners == a.owners && b.symbols == a.symbols);
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 2);
  sxs__walk_resources_leave();
  sxs__walk_resources_leave();
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 0);
}

/* Code gone: the walks after read an empty owners cache; one in flight keeps reading its own,
 * with what it stored, until it leaves. The map and the step cache stay. */
static void test_code_changed(void) {
  SxsWalkResources held, after;
  sxs__walk_resources_enter(&held, NULL);
  sxs__ipmap_insert(held.owners, 0x7f0000001000, 42);
  sxs__walk_resources_code_changed();
  sxs__walk_resources_enter(&after, NULL);
  g_assert_true(after.owners != held.owners);
  g_assert_true(after.map == held.map && after.steps == held.steps);
  uint64_t v = 0;
  g_assert_false(sxs__ipmap_lookup(after.owners, 0x7f0000001000, &v));
  g_assert_true(sxs__ipmap_lookup(held.owners, 0x7f0000001000, &v));
  g_assert_cmpuint(v, ==, 42);
  sxs__walk_resources_leave();
  /* Still one walk in flight: the retired cache is kept. */
  g_assert_true(sxs__ipmap_lookup(held.owners, 0x7f0000001000, &v));
  sxs__walk_resources_leave();
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 0);
}

/* A reference kept for long with the map and the steps only (the timer handlers'): the owners
 * caches replaced meanwhile (a garbage collection each) are freed as soon as the walks that read
 * them are done, not kept until that reference is let go; while a full walk is in flight they
 * wait. */
static void test_kept_without_owners(void) {
  SxsWalkResources kept, walk;
  sxs__walk_resources_enter(&kept, NULL);
  sxs__walk_resources_drop_owners(&kept);
  g_assert_null(kept.owners);
  for (int gc = 0; gc < 100; gc++) {
    sxs__walk_resources_enter(&walk, NULL);
    sxs__ipmap_insert(walk.owners, 0x7f0000001000 + 16 * (uintptr_t)gc, 1);
    sxs__walk_resources_code_changed();
    /* The walk still reads its own cache. */
    uint64_t v = 0;
    g_assert_true(sxs__ipmap_lookup(walk.owners, 0x7f0000001000 + 16 * (uintptr_t)gc, &v));
    g_assert_cmpuint(sxs__walk_resources_retired_owners(), ==, 1);
    sxs__walk_resources_leave();
    g_assert_cmpuint(sxs__walk_resources_retired_owners(), ==, 0);
  }
  /* The map and the steps it holds are those of the walks meanwhile: nothing moved. */
  sxs__walk_resources_enter(&walk, NULL);
  g_assert_true(walk.map == kept.map && walk.steps == kept.steps);
  sxs__walk_resources_leave();
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 1);
  sxs__walk_resources_leave_map();
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 0);
}

/* A library loaded: a new map for the walks after, the same step cache (nothing was unloaded);
 * unloaded: a new map and a new step cache (its addresses may be taken by another module). The
 * walk that entered first reads its map, which still knows the library, throughout. */
static void test_loader_moves(void) {
  g_assert_null(dlopen(OTHER_LIBRARY, RTLD_LAZY | RTLD_NOLOAD));
  SxsWalkResources before, loaded, unloaded;
  sxs__walk_resources_enter(&before, NULL);
  void *handle = dlopen(OTHER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  g_assert_nonnull(handle);
  /* Code of the library itself (__b64_ntop is libresolv's own, not libc's). */
  uintptr_t in_library = (uintptr_t)dlsym(handle, "__b64_ntop");
  g_assert_cmpuint(in_library, !=, 0);
  g_assert_null(sxs__modmap_find(before.map, in_library));

  sxs__walk_resources_enter(&loaded, NULL);
  g_assert_true(loaded.map != before.map);
  g_assert_true(loaded.steps == before.steps);
  g_assert_nonnull(sxs__modmap_find(loaded.map, in_library));

  g_assert_cmpint(dlclose(handle), ==, 0);
  g_assert_null(dlopen(OTHER_LIBRARY, RTLD_LAZY | RTLD_NOLOAD));
  sxs__walk_resources_enter(&unloaded, NULL);
  g_assert_true(unloaded.map != loaded.map);
  g_assert_true(unloaded.steps != loaded.steps);
  g_assert_null(sxs__modmap_find(unloaded.map, in_library));
  /* The earlier walks' maps are intact while they are in flight. */
  g_assert_nonnull(sxs__modmap_find(loaded.map, in_library));
  g_assert_nonnull(sxs__modmap_find(before.map, (uintptr_t)test_loader_moves));
  sxs__walk_resources_leave();
  sxs__walk_resources_leave();
  sxs__walk_resources_leave();
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 0);
}

/* Walks on several threads while code changes and libraries come and go: every walk reads
 * resources that stay whole until it leaves (ASan would see a freed one read). */
typedef struct {
  gint stop;
  guint walks;
} Stress;

static gpointer walker(gpointer data) {
  Stress *s = data;
  guint walks = 0;
  while (!g_atomic_int_get(&s->stop)) {
    SxsWalkResources r;
    sxs__walk_resources_enter(&r, NULL);
    g_assert_nonnull(sxs__modmap_find(r.map, (uintptr_t)walker));
    sxs__ipmap_insert(r.owners, (uintptr_t)walker + walks % 64, 1);
    uint64_t v;
    (void)sxs__ipmap_lookup(r.owners, (uintptr_t)walker, &v);
    (void)sxs__unwind_cache_knows(r.steps, (uintptr_t)walker);
    sxs__walk_resources_leave();
    walks++;
  }
  g_atomic_int_add(&s->walks, walks);
  return NULL;
}

static void test_concurrent(void) {
  Stress s = {0};
  GThread *threads[3];
  for (guint i = 0; i < G_N_ELEMENTS(threads); i++)
    threads[i] = g_thread_new("walker", walker, &s);
  for (int round = 0; round < 40; round++) {
    void *handle = dlopen(OTHER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    g_assert_nonnull(handle);
    sxs__walk_resources_code_changed();
    g_usleep(500);
    g_assert_cmpint(dlclose(handle), ==, 0);
    g_usleep(500);
  }
  g_atomic_int_set(&s.stop, 1);
  for (guint i = 0; i < G_N_ELEMENTS(threads); i++)
    g_thread_join(threads[i]);
  g_assert_cmpuint(s.walks, >, 0);
  g_assert_cmpint(sxs__walk_resources_in_flight(), ==, 0);
}

/* A runtime that claims every address it is asked about, and counts them. */
static uintptr_t asked[8];
static guint n_asked;

static int claim_all(gpointer user, uintptr_t ip, uint64_t *ret_function_id) {
  (void)user;
  if (n_asked < G_N_ELEMENTS(asked))
    asked[n_asked] = ip;
  n_asked++;
  *ret_function_id = 7;
  return 0;
}

/* A runtime is asked about an interrupted instruction and about return addresses that follow a call, never about a
 * stray code pointer a walk took for a return address (a function's start after its predecessor's `ret` and
 * padding: GetFunctionFromIP read out of a ReadyToRun image's tables for the padding byte and faulted). Code in no
 * module, written here: `call rel32; nop` then `ret; int3; int3; push rbp`. */
static void test_classify_asks_return_addresses(void) {
  uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true(code != MAP_FAILED);
  static const uint8_t bytes[] = {0x90, 0x90, 0x90, 0xe8, 0x10, 0x00, 0x00, 0x00, 0x90, /* call, nop */
                                  0xc3, 0xcc, 0xcc, 0x55, 0x48, 0x89, 0xe5};            /* ret, padding, start */
  memcpy(code + 0x100, bytes, sizeof bytes);
  g_assert_cmpint(mprotect(code, 4096, PROT_READ | PROT_EXEC), ==, 0);
  uintptr_t leaf = (uintptr_t)code + 0x101, after_call = (uintptr_t)code + 0x108, start = (uintptr_t)code + 0x10c;

  SxsWalkResources res;
  sxs__walk_resources_enter(&res, NULL);
  SxsStitchRuntime rt = {.runtime_id = 1, .owns_ip = claim_all};
  SxsNativeFrame native[] = {{.ip = leaf, .sp = 0x1000}, {.ip = after_call, .sp = 0x1010}, {.ip = start, .sp = 0x1020}};
  SxsStackFrame out[3];
  SxsStitchReport report = {0};
  n_asked = 0;
  g_assert_cmpuint(sxs__stitch_classify(&rt, 1, &res, native, 3, TRUE, out, NULL, &report), ==, 3);
  g_assert_cmpuint(n_asked, ==, 2);
  g_assert_cmphex(asked[0], ==, leaf);           /* an interrupted instruction: as is */
  g_assert_cmphex(asked[1], ==, after_call - 1); /* a return address: inside the call */
  g_assert_cmpint(out[0].kind, ==, SXS_FRAME_MANAGED);
  g_assert_cmpint(out[1].kind, ==, SXS_FRAME_MANAGED);
  g_assert_cmpint(out[2].kind, ==, SXS_FRAME_NATIVE);
  g_assert_cmpuint(report.unknown_code, ==, 1);
  /* Known from the owners cache the next time: nobody is asked again. */
  n_asked = 0;
  g_assert_cmpuint(sxs__stitch_classify(&rt, 1, &res, native, 3, TRUE, out, NULL, &report), ==, 3);
  g_assert_cmpuint(n_asked, ==, 0);
  g_assert_cmpint(out[2].kind, ==, SXS_FRAME_NATIVE);
  /* Memory that cannot be read is not asked about either, nor remembered: it may be code later. */
  g_assert_cmpint(munmap(code, 4096), ==, 0);
  SxsNativeFrame gone[] = {{.ip = leaf, .sp = 0x1000}, {.ip = (uintptr_t)code + 0x208, .sp = 0x1010}};
  n_asked = 0;
  g_assert_cmpuint(sxs__stitch_classify(&rt, 1, &res, gone, 2, TRUE, out, NULL, &report), ==, 2);
  g_assert_cmpuint(n_asked, ==, 0);
  g_assert_cmpint(out[1].kind, ==, SXS_FRAME_NATIVE);
  uint64_t known;
  g_assert_false(sxs__ipmap_lookup(res.owners, (uintptr_t)code + 0x207, &known));
  sxs__walk_resources_leave();
  sxs__walk_resources_code_changed();
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/walk-resources/enter-leave", test_enter_leave);
  g_test_add_func("/stitch/walk-resources/code-changed", test_code_changed);
  g_test_add_func("/stitch/walk-resources/kept-without-owners", test_kept_without_owners);
  g_test_add_func("/stitch/walk-resources/loader-moves", test_loader_moves);
  g_test_add_func("/stitch/walk-resources/concurrent", test_concurrent);
  g_test_add_func("/stitch/classify/asks-return-addresses", test_classify_asks_return_addresses);
  return g_test_run();
}
