/* The cost of native names without a runtime and without the noise of a shared machine: for each
 * library given, its symbol tables as the build before read them (a copy of the library without
 * its build ID and debug link, so that only its own .symtab or .dynsym is read) and as they are
 * read now (its debug file found), then lookups of addresses spread over it. Thread CPU time:
 *   load      the first lookup, which reads the tables (and the debug file), microseconds
 *   lookup    a lookup of a known file, nanoseconds (the best of several runs)
 *   symbols   function symbols kept
 *   bytes     what the cache holds for it (symbols and names), KiB
 *   named     share of the addresses that get a symbol
 *
 * Usage: sxs_bench_symbols LIB...     prints one line per library and way:
 *        "<library> <own|debug> <load us> <lookup ns> <symbols> <KiB> <named %>" */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sxs_symbols.h"

#define LOOKUPS 200000
#define RUNS 5

static double thread_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void measure(const char *label, const char *way, const char *path, const uintptr_t *addrs) {
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  SxsModule module = {.path = path, .name = label, .base = 0};
  const char *symbol = NULL;
  uintptr_t offset = 0;
  double t0 = thread_ns();
  (void)sxs__symbols_lookup(cache, &module, addrs[0], &symbol, &offset);
  double load = thread_ns() - t0;
  double best = 0;
  guint named = 0;
  for (int run = 0; run < RUNS; run++) {
    named = 0;
    t0 = thread_ns();
    for (guint i = 0; i < LOOKUPS; i++)
      named += sxs__symbols_lookup(cache, &module, addrs[i], &symbol, &offset) == 0;
    double ns = (thread_ns() - t0) / LOOKUPS;
    best = run == 0 || ns < best ? ns : best;
  }
  SxsSymbolsStats stats;
  sxs__symbols_cache_stats(cache, &stats);
  printf("%s %s %.0f %.1f %zu %.0f %.1f\n", label, way, load / 1e3, best, stats.symbols, stats.bytes / 1024.0,
         100.0 * named / LOOKUPS);
}

int main(int argc, char **argv) {
  g_autofree char *tmp = g_dir_make_tmp("sxs-bench-symbols-XXXXXX", NULL);
  g_assert_nonnull(tmp);
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "sxs_bench_symbols: %s: not found\n", argv[i]);
      return 1;
    }
    g_autofree char *label = g_path_get_basename(argv[i]);
    g_autofree char *own = g_build_filename(tmp, label, NULL);
    const char *strip[] = {"objcopy",
                           "--remove-section",
                           ".note.gnu.build-id",
                           "--remove-section",
                           ".gnu_debuglink",
                           "--remove-section",
                           ".gnu_debugdata",
                           argv[i],
                           own,
                           NULL};
    gint status = -1;
    if (!g_spawn_sync(NULL, (char **)strip, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL,
                      NULL, &status, NULL) ||
        status != 0) {
      fprintf(stderr, "sxs_bench_symbols: objcopy of %s failed\n", argv[i]);
      return 1;
    }
    /* Addresses spread over the file's first st_size bytes of link-time addresses, the same for
     * both ways. */
    g_autofree uintptr_t *addrs = g_new(uintptr_t, LOOKUPS);
    GRand *rand = g_rand_new_with_seed(31);
    for (guint k = 0; k < LOOKUPS; k++)
      addrs[k] = (uintptr_t)g_rand_double_range(rand, 0, (double)st.st_size);
    g_rand_free(rand);
    measure(label, "own", own, addrs);
    measure(label, "debug", argv[i], addrs);
    g_unlink(own);
  }
  g_rmdir(tmp);
  return 0;
}
