/* The cost of source lines per stack, without a runtime and without the noise of a shared machine:
 * record/sxs_lines.c resolves synthetic stacks whose managed frames are methods of the Lines app
 * (its real assembly and embedded PDB), through an il_map op that answers at once with a made-up
 * code version (64 map entries). Thread CPU time, the best of several runs:
 *   new     every stack of 20 frames is 20 methods never met (each asked, its PDB's points read,
 *           its code version's segments built)
 *   known   the same stacks again: lookups only
 *   no PDB  20 methods never met, of an assembly without a PDB (the framework's case)
 * What a real runtime's answers cost on top is in the profile's lines.ns_first (tests/bench/lines.sh).
 *
 * Usage: sxs_bench_lines APPS_DIR        prints one line per case: "<case> <ns per stack>" */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sxs_lines.h"
#include "sxs_pdb.h"

#define DEPTH 20
#define STACKS 500
#define RUNS 5

static char *with_pdb, *without_pdb;
static guint32 methods[8]; /* MethodDef rows of Lines.dll with lines */
static guint n_methods;

/* A made-up code version per function: 4 KiB at f << 16, 64 entries, IL offsets 0, 2, 4, ... */
static int bench_il_map(gpointer instance, uint64_t function_id, uintptr_t ip, SxsIlMap *ret) {
  const char *path = GPOINTER_TO_INT(instance) ? without_pdb : with_pdb;
  *ret = (SxsIlMap){
      .module_path = g_strdup(path), .module_id = 1, .token = 0x06000000u | methods[function_id % n_methods]};
  if (ip == 0)
    return 0;
  ret->code_start = (uintptr_t)function_id << 16;
  ret->n_ranges = 1;
  ret->ranges[0].start = ret->code_start;
  ret->ranges[0].size = 4096;
  ret->n_map = 64;
  ret->map = g_new(COR_DEBUG_IL_TO_NATIVE_MAP, 64);
  for (guint i = 0; i < 64; i++)
    ret->map[i] =
        (COR_DEBUG_IL_TO_NATIVE_MAP){.ilOffset = 2 * i, .nativeStartOffset = 64 * i, .nativeEndOffset = 64 * (i + 1)};
  return 0;
}

static guint64 cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (guint64)ts.tv_sec * 1000000000u + (guint64)ts.tv_nsec;
}

static guint64 with_lines; /* frames given a line, over all runs */

/* ns per stack of resolving STACKS stacks whose functions start at first (each stack DEPTH
 * functions, leaf first). */
static guint64 resolve_stacks(const SxsStitchTarget *t, uint64_t first) {
  SxsStackFrame frames[DEPTH];
  SxsFrameLine lines[DEPTH];
  guint64 t0 = cpu_ns();
  for (guint s = 0; s < STACKS; s++) {
    for (guint d = 0; d < DEPTH; d++) {
      uint64_t f = first + (uint64_t)s * DEPTH + d;
      frames[d] = (SxsStackFrame){.sp = 0x1000 + d * 64,
                                  .ip = (f << 16) + 100 + 13 * d,
                                  .kind = SXS_FRAME_MANAGED,
                                  .runtime_id = 1,
                                  .function_id = f};
    }
    sxs__lines_resolve(t, 1, frames, DEPTH, TRUE, TRUE, lines);
    for (guint d = 0; d < DEPTH; d++)
      with_lines += lines[d].line != 0;
  }
  return (cpu_ns() - t0) / STACKS;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sxs_bench_lines APPS_DIR\n");
    return 2;
  }
  with_pdb = g_build_filename(argv[1], "Lines", "Lines.dll", NULL);
  without_pdb = g_build_filename(argv[1], "LinesNoPdb", "Lines.dll", NULL);
  SxsPdbStatus status;
  g_autofree char *where = NULL;
  g_autoptr(SxsPdb) pdb = sxs__pdb_for_assembly(with_pdb, NULL, &status, &where);
  if (!pdb) {
    fprintf(stderr, "sxs_bench_lines: no PDB for %s (%s)\n", with_pdb, where ? where : "?");
    return 1;
  }
  for (guint32 m = 1; m <= sxs__pdb_method_count(pdb) && n_methods < G_N_ELEMENTS(methods); m++) {
    g_autofree SxsSeqPoint *points = NULL;
    guint n = 0;
    if (sxs__pdb_method_points(pdb, m, &points, &n, NULL) == 0 && n > 0)
      methods[n_methods++] = m;
  }
  SxsRuntime rt = {.id = 1};
  static const SxsRuntimeOps ops = {.il_map = bench_il_map};
  SxsStitchTarget with = {.runtime = &rt, .stitch = {.runtime_id = 1, .user = GINT_TO_POINTER(0)}, .ops = &ops};
  SxsStitchTarget without = {.runtime = &rt, .stitch = {.runtime_id = 1, .user = GINT_TO_POINTER(1)}, .ops = &ops};

  guint64 best_new = G_MAXUINT64, best_known = G_MAXUINT64, best_none = G_MAXUINT64;
  for (guint r = 0; r < RUNS; r++) {
    sxs__lines_reset_for_tests();
    uint64_t base = 1 + (uint64_t)r * STACKS * DEPTH * 4;
    guint64 fresh = resolve_stacks(&with, base);
    guint64 known = resolve_stacks(&with, base);
    guint64 none = resolve_stacks(&without, base + (uint64_t)STACKS * DEPTH * 2);
    best_new = MIN(best_new, fresh);
    best_known = MIN(best_known, known);
    best_none = MIN(best_none, none);
  }
  /* Every frame of the first two cases has a line, none of the third. */
  if (with_lines != (guint64)RUNS * 2 * STACKS * DEPTH) {
    fprintf(stderr, "sxs_bench_lines: %" G_GUINT64_FORMAT " frames with lines, expected %u\n", with_lines,
            RUNS * 2 * STACKS * DEPTH);
    return 1;
  }
  printf("new %" G_GUINT64_FORMAT "\nknown %" G_GUINT64_FORMAT "\nnopdb %" G_GUINT64_FORMAT "\n", best_new, best_known,
         best_none);
  return 0;
}
