/* Unit tests of SxsIpMap, the lock-free table from code addresses to values that the step cache
 * and the owners cache are built on: bad arguments, first value wins, the probe limit, and
 * concurrent writers and readers that never see a value that was not stored for their key. */
#include <glib.h>

#include "sxs_ipmap.h"

/* The value every test stores for ip: derived from it, so a reader can check what it got. */
static uint64_t value_of(uintptr_t ip) {
  return (uint64_t)ip * 0x9E3779B1u + 7;
}

static void test_arguments(void) {
  g_assert_null(sxs__ipmap_new(3));
  g_assert_null(sxs__ipmap_new(25));
  uint64_t v = 42;
  g_assert_false(sxs__ipmap_lookup(NULL, 0x1000, &v));
  sxs__ipmap_insert(NULL, 0x1000, 1);
  sxs__ipmap_free(NULL);
  SxsIpMap *map = sxs__ipmap_new(4);
  g_assert_nonnull(map);
  sxs__ipmap_insert(map, 0, 1);
  sxs__ipmap_insert(map, UINTPTR_MAX, 1);
  g_assert_false(sxs__ipmap_lookup(map, 0, &v));
  g_assert_false(sxs__ipmap_lookup(map, UINTPTR_MAX, &v));
  g_assert_cmpuint(v, ==, 42);
  sxs__ipmap_free(map);
}

static void count_entry(uintptr_t ip, uint64_t value, void *user_data) {
  g_assert_cmpuint(value, ==, value_of(ip));
  (*(guint *)user_data)++;
}

/* 1000 return addresses 5 bytes apart (as a function's call sites are) in a 4096-slot table: all
 * found, with their values; a second insert does not replace the first value. */
static void test_store(void) {
  SxsIpMap *map = sxs__ipmap_new(12);
  for (uintptr_t i = 0; i < 1000; i++)
    sxs__ipmap_insert(map, 0x7f0000001000 + 5 * i, value_of(0x7f0000001000 + 5 * i));
  sxs__ipmap_insert(map, 0x7f0000001000, 99);
  for (uintptr_t i = 0; i < 1000; i++) {
    uint64_t v = 0;
    g_assert_true(sxs__ipmap_lookup(map, 0x7f0000001000 + 5 * i, &v));
    g_assert_cmpuint(v, ==, value_of(0x7f0000001000 + 5 * i));
  }
  uint64_t v = 0;
  g_assert_false(sxs__ipmap_lookup(map, 0x7f0000001001, &v));
  guint n = 0;
  sxs__ipmap_foreach(map, count_entry, &n);
  g_assert_cmpuint(n, ==, 1000);
  sxs__ipmap_free(map);
}

/* A 16-slot table takes at most 16 entries; what does not fit is dropped, the rest stays right. */
static void test_full(void) {
  SxsIpMap *map = sxs__ipmap_new(4);
  for (uintptr_t ip = 1; ip <= 100; ip++)
    sxs__ipmap_insert(map, ip * 16, value_of(ip * 16));
  guint n = 0, found = 0;
  sxs__ipmap_foreach(map, count_entry, &n);
  g_assert_cmpuint(n, ==, 16);
  for (uintptr_t ip = 1; ip <= 100; ip++) {
    uint64_t v;
    if (sxs__ipmap_lookup(map, ip * 16, &v)) {
      g_assert_cmpuint(v, ==, value_of(ip * 16));
      found++;
    }
  }
  g_assert_cmpuint(found, ==, 16);
  sxs__ipmap_free(map);
}

static void add_key(uintptr_t ip, uint64_t value, void *user_data) {
  (void)value;
  g_hash_table_add(user_data, GSIZE_TO_POINTER(ip));
}

typedef struct {
  SxsIpMap *map;
  guint seed;
  guint64 hits;
} Worker;

/* Inserts and looks up 20 000 keys out of 3000 shared ones, in its own order. */
static gpointer worker_main(gpointer data) {
  Worker *w = data;
  GRand *rand = g_rand_new_with_seed(w->seed);
  for (int i = 0; i < 20000; i++) {
    uintptr_t ip = 0x400000 + 8 * (uintptr_t)g_rand_int_range(rand, 0, 3000);
    uint64_t v;
    if (sxs__ipmap_lookup(w->map, ip, &v)) {
      g_assert_cmpuint(v, ==, value_of(ip));
      w->hits++;
    } else {
      sxs__ipmap_insert(w->map, ip, value_of(ip));
    }
  }
  g_rand_free(rand);
  return NULL;
}

static void test_concurrent(void) {
  SxsIpMap *map = sxs__ipmap_new(13);
  Worker workers[4];
  GThread *threads[4];
  for (guint i = 0; i < 4; i++) {
    workers[i] = (Worker){.map = map, .seed = 17 + i};
    threads[i] = g_thread_new("ipmap", worker_main, &workers[i]);
  }
  guint64 hits = 0;
  for (guint i = 0; i < 4; i++) {
    g_thread_join(threads[i]);
    hits += workers[i].hits;
  }
  g_assert_cmpuint(hits, >, 0);
  /* Every key stored with its own value. Two writers racing on one key may both store it (the
   * second finds the first's slot claimed but not yet published and takes the next): a wasted
   * slot, never a wrong value. */
  guint n = 0;
  sxs__ipmap_foreach(map, count_entry, &n);
  GHashTable *distinct = g_hash_table_new(g_direct_hash, g_direct_equal);
  sxs__ipmap_foreach(map, add_key, distinct);
  g_assert_cmpuint(g_hash_table_size(distinct), <=, 3000);
  g_assert_cmpuint(g_hash_table_size(distinct), >, 2900);
  g_assert_cmpuint(n, >=, g_hash_table_size(distinct));
  g_assert_cmpuint(n, <=, g_hash_table_size(distinct) + 64);
  g_hash_table_unref(distinct);
  sxs__ipmap_free(map);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/ipmap/arguments", test_arguments);
  g_test_add_func("/stitch/ipmap/store", test_store);
  g_test_add_func("/stitch/ipmap/full", test_full);
  g_test_add_func("/stitch/ipmap/concurrent", test_concurrent);
  return g_test_run();
}
