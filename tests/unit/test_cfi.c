/* Unit tests of sxs_cfi, the in-place reader of .eh_frame rows: hand-built tables (a prologue,
 * a frame pointer, an epilogue with remembered state, an outermost frame, rules it does not
 * follow, corrupt tables), then the loaded libc and this program, walked through qsort without
 * libunwind and compared frame by frame with libunwind's own walk. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sxs_cfi.h"
#include "sxs_modmap.h"
#include "sxs_stitch.h"
#include "sxs_unwind.h"

/* ---- hand-built tables ---- */

/* A buffer holding .eh_frame_hdr, then .eh_frame (one CIE, one FDE), for code at a fake address
 * CODE_OFFSET bytes past the buffer (never executed, never read). */
#define CODE_OFFSET 0x10000
#define CODE_SIZE 0x40

typedef struct {
  uint8_t bytes[512];
  size_t len;
} Table;

static void put(Table *t, const void *p, size_t n) {
  g_assert_cmpuint(t->len + n, <=, sizeof t->bytes);
  memcpy(t->bytes + t->len, p, n);
  t->len += n;
}
static void put8(Table *t, uint8_t v) {
  put(t, &v, 1);
}
static void put32(Table *t, int32_t v) {
  put(t, &v, 4);
}
static void patch32(Table *t, size_t at, int32_t v) {
  memcpy(t->bytes + at, &v, 4);
}

static uintptr_t code_of(const Table *t) {
  return (uintptr_t)t->bytes + CODE_OFFSET;
}

/* Builds the tables: the CIE's augmentation aug ("zR" or "zRS"), its initial instructions (CFA =
 * RSP + 8, the return address at CFA - 8), and the FDE's instructions fde[0 .. n). */
static void build(Table *t, const char *aug, const uint8_t *fde, size_t n) {
  memset(t, 0, sizeof *t);
  /* .eh_frame_hdr: version, eh_frame_ptr pcrel|sdata4, count udata4, table datarel|sdata4 */
  put8(t, 1);
  put8(t, 0x1b);
  put8(t, 0x03);
  put8(t, 0x3b);
  size_t eh_ptr_at = t->len;
  put32(t, 0);
  put32(t, 1);
  size_t entry_at = t->len;
  put32(t, (int32_t)CODE_OFFSET);
  put32(t, 0);
  /* CIE */
  size_t cie_at = t->len;
  patch32(t, eh_ptr_at, (int32_t)(cie_at - eh_ptr_at));
  put32(t, 0); /* length, patched */
  put32(t, 0); /* CIE id */
  put8(t, 1);
  put(t, aug, strlen(aug) + 1);
  put8(t, 1);    /* code alignment 1 */
  put8(t, 0x78); /* data alignment -8 */
  put8(t, 16);   /* the return address column */
  put8(t, 1);    /* augmentation data length */
  put8(t, 0x1b); /* FDE pointers pcrel|sdata4 */
  const uint8_t initial[] = {0x0c, 0x07, 0x08, 0x90, 0x01};
  put(t, initial, sizeof initial);
  patch32(t, cie_at, (int32_t)(t->len - cie_at - 4));
  /* FDE */
  size_t fde_at = t->len;
  patch32(t, entry_at + 4, (int32_t)fde_at);
  put32(t, 0);
  put32(t, (int32_t)(t->len - cie_at)); /* back to the CIE */
  put32(t, (int32_t)(CODE_OFFSET - t->len));
  put32(t, CODE_SIZE);
  put8(t, 0); /* augmentation data length */
  put(t, fde, n);
  patch32(t, fde_at, (int32_t)(t->len - fde_at - 4));
  put32(t, 0); /* the terminator */
}

static SxsEhFrame eh_of(const Table *t) {
  return (SxsEhFrame){.hdr = (uintptr_t)t->bytes, .lo = (uintptr_t)t->bytes, .hi = (uintptr_t)t->bytes + t->len};
}

/* A frame-pointer function: push rbp at 0, mov rbp, rsp at 1, body from 4, an epilogue at 20
 * (pop rbp: CFA = RSP + 8) inside remember/restore, more body from 21. */
static const uint8_t fp_function[] = {
    0x41,             /* advance 1 */
    0x0e, 0x10,       /* CFA offset 16 */
    0x86, 0x02,       /* RBP at CFA - 16 */
    0x43,             /* advance 3 */
    0x0d, 0x06,       /* CFA register RBP */
    0x50,             /* advance 16 */
    0x0a,             /* remember state */
    0x0c, 0x07, 0x08, /* CFA = RSP + 8 */
    0xc6,             /* restore RBP: same value */
    0x41,             /* advance 1 */
    0x0b,             /* restore state */
};

static void assert_row(const Table *t, uintptr_t offset, bool cfa_is_rbp, int64_t cfa_offset, bool rbp_saved) {
  SxsEhFrame eh = eh_of(t);
  SxsCfiRow row;
  g_assert_cmpint(sxs__cfi_row(&eh, code_of(t) + offset, &row), ==, 0);
  g_assert_false(row.end);
  g_assert_cmpint(row.cfa_is_rbp, ==, cfa_is_rbp);
  g_assert_cmpint(row.cfa_offset, ==, cfa_offset);
  g_assert_cmpint(row.rbp_saved, ==, rbp_saved);
  if (rbp_saved)
    g_assert_cmpint(row.rbp_offset, ==, -16);
}

static void test_rows(void) {
  Table t;
  build(&t, "zR", fp_function, sizeof fp_function);
  assert_row(&t, 0, false, 8, false);
  assert_row(&t, 1, false, 16, true);
  assert_row(&t, 3, false, 16, true);
  assert_row(&t, 4, true, 16, true);
  assert_row(&t, 19, true, 16, true);
  assert_row(&t, 20, false, 8, false); /* the epilogue: remembered state not yet restored */
  assert_row(&t, 21, true, 16, true);  /* restored */
  assert_row(&t, CODE_SIZE - 1, true, 16, true);
}

static void test_outside(void) {
  Table t;
  build(&t, "zR", fp_function, sizeof fp_function);
  SxsEhFrame eh = eh_of(&t);
  SxsCfiRow row = {.cfa_offset = 99};
  g_assert_cmpint(sxs__cfi_row(&eh, code_of(&t) - 1, &row), ==, -ENOENT);
  g_assert_cmpint(sxs__cfi_row(&eh, code_of(&t) + CODE_SIZE, &row), ==, -ENOENT);
  g_assert_cmpint(row.cfa_offset, ==, 99); /* untouched */
  g_assert_cmpint(sxs__cfi_row(NULL, code_of(&t), &row), ==, -ENOENT);
  SxsEhFrame none = {0, 0, 0};
  g_assert_cmpint(sxs__cfi_row(&none, code_of(&t), &row), ==, -ENOENT);
}

/* The start of the function holding a pc: the covering FDE's initial location, on a made table
 * and on libc's own (qsort's start is its symbol's address; qsort may be a few bytes that call on,
 * so its second byte is asked). */
static void test_function_start(void) {
  Table t;
  build(&t, "zR", fp_function, sizeof fp_function);
  SxsEhFrame eh = eh_of(&t);
  uintptr_t start = 1;
  for (uintptr_t off = 0; off < CODE_SIZE; off += 7) {
    g_assert_cmpint(sxs__cfi_function_start(&eh, code_of(&t) + off, &start), ==, 0);
    g_assert_cmphex(start, ==, code_of(&t));
  }
  start = 1;
  g_assert_cmpint(sxs__cfi_function_start(&eh, code_of(&t) + CODE_SIZE, &start), ==, -ENOENT);
  g_assert_cmpint(sxs__cfi_function_start(&eh, code_of(&t) - 1, &start), ==, -ENOENT);
  g_assert_cmpuint(start, ==, 1); /* untouched */
  g_assert_cmpint(sxs__cfi_function_start(NULL, code_of(&t), &start), ==, -ENOENT);

  SxsModuleMap *map = sxs__modmap_new();
  /* libc's own qsort (a sanitizer's runtime may define one that comes first). */
  void *libc_handle = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  g_assert_nonnull(libc_handle);
  uintptr_t qsort_at = (uintptr_t)dlsym(libc_handle, "qsort");
  dlclose(libc_handle);
  const SxsModule *libc = sxs__modmap_find(map, qsort_at);
  g_assert_nonnull(libc);
  g_assert_true(g_str_has_prefix(libc->name, "libc.so"));
  g_assert_cmpint(sxs__cfi_function_start(&libc->eh, qsort_at + 1, &start), ==, 0);
  g_assert_cmphex(start, ==, qsort_at);
  sxs__modmap_free(map);
}

static void test_outermost(void) {
  const uint8_t undefined_ra[] = {0x07, 0x10}; /* DW_CFA_undefined RA */
  Table t;
  build(&t, "zR", undefined_ra, sizeof undefined_ra);
  SxsEhFrame eh = eh_of(&t);
  SxsCfiRow row;
  g_assert_cmpint(sxs__cfi_row(&eh, code_of(&t) + 2, &row), ==, 0);
  g_assert_true(row.end);
}

static void expect(const char *aug, const uint8_t *fde, size_t n, int error) {
  Table t;
  build(&t, aug, fde, n);
  SxsEhFrame eh = eh_of(&t);
  SxsCfiRow row;
  g_assert_cmpint(sxs__cfi_row(&eh, code_of(&t) + 8, &row), ==, error);
}

static void test_not_followed(void) {
  const uint8_t cfa_expression[] = {0x0f, 0x02, 0x77, 0x08};       /* CFA = [expression] */
  const uint8_t rbp_expression[] = {0x10, 0x06, 0x02, 0x76, 0x00}; /* RBP = [expression] */
  const uint8_t cfa_in_r10[] = {0x0d, 0x0a};                       /* CFA register R10 (DRAP) */
  const uint8_t ra_elsewhere[] = {0x90, 0x02};                     /* return address at CFA - 16 */
  const uint8_t rbp_in_register[] = {0x09, 0x06, 0x03};            /* RBP in RBX */
  const uint8_t unknown_op[] = {0x3f};
  expect("zR", cfa_expression, sizeof cfa_expression, -ENOTSUP);
  expect("zR", rbp_expression, sizeof rbp_expression, -ENOTSUP);
  expect("zR", cfa_in_r10, sizeof cfa_in_r10, -ENOTSUP);
  expect("zR", ra_elsewhere, sizeof ra_elsewhere, -ENOTSUP);
  expect("zR", rbp_in_register, sizeof rbp_in_register, -ENOTSUP);
  expect("zR", unknown_op, sizeof unknown_op, -ENOTSUP);
  expect("zRS", fp_function, sizeof fp_function, -ENOTSUP); /* a signal trampoline's frame */
  /* Another register's expression does not matter. */
  const uint8_t rbx_expression[] = {0x10, 0x03, 0x02, 0x76, 0x00};
  expect("zR", rbx_expression, sizeof rbx_expression, 0);
}

static void test_corrupt(void) {
  /* An operand running past the FDE's end, a restore with nothing remembered. */
  const uint8_t truncated[] = {0x0c, 0x07};
  const uint8_t unbalanced[] = {0x0b};
  expect("zR", truncated, sizeof truncated, -EFAULT);
  expect("zR", unbalanced, sizeof unbalanced, -EFAULT);

  Table t;
  build(&t, "zR", fp_function, sizeof fp_function);
  SxsEhFrame eh = eh_of(&t);
  SxsCfiRow row;
  /* Tables cut short: every cut fails cleanly, none reads past hi (ASan would say). */
  for (size_t cut = 0; cut < t.len - 4; cut++) {
    SxsEhFrame shorter = eh;
    shorter.hi = eh.lo + cut;
    int rc = sxs__cfi_row(&shorter, code_of(&t) + 8, &row);
    g_assert_cmpint(rc, <, 0);
  }
  /* An FDE whose CIE pointer leads out of the segment. */
  Table bad = t;
  SxsEhFrame bad_eh = eh_of(&bad);
  size_t fde_at = 0;
  memcpy(&fde_at, bad.bytes + 16, 4);
  patch32(&bad, fde_at + 4, 0x7fffff00);
  g_assert_cmpint(sxs__cfi_row(&bad_eh, code_of(&bad) + 8, &row), ==, -EFAULT);
  /* A table encoding other than datarel|sdata4. */
  bad = t;
  bad.bytes[3] = 0x03;
  g_assert_cmpint(sxs__cfi_row(&bad_eh, code_of(&bad) + 8, &row), ==, -ENOTSUP);
}

/* ---- the real tables: qsort's frames in libc, stepped by them alone ---- */

typedef struct {
  SxsNativeFrame by_tables[64], by_libunwind[64];
  int n_tables, n_libunwind;
  SxsModuleMap *map;
  uintptr_t lo, hi;
  bool done;
} RealWalk;

static RealWalk real;

/* Both walks from here: by the tables (no libunwind, a fresh step cache) and by libunwind. */
__attribute__((noinline)) static void walk_both(void) {
  SxsRegs regs;
  SXS_REGS_CAPTURE(&regs);
  SxsUnwindCache *steps = sxs__unwind_cache_new(10);
  SxsModmapCursor cursor = {.map = real.map};
  real.n_tables = sxs__unwind_from_regs(&regs, true, false, real.lo, real.hi, sxs__stitch_is_fp_code, &cursor, steps,
                                        real.by_tables, 64);
  real.n_libunwind = sxs__unwind_libunwind(NULL, real.by_libunwind, 64);
  sxs__unwind_cache_free(steps);
  __asm__ volatile("" ::: "memory");
}

static int compare_ints(const void *a, const void *b) {
  if (!real.done) {
    real.done = true;
    walk_both();
  }
  return *(const int *)a - *(const int *)b;
}

static void test_libc(void) {
  g_assert_cmpint(sxs__unwind_init(), ==, 0);
  real.map = sxs__modmap_new();
  g_assert_cmpint(sxs__unwind_stack_bounds(&real.lo, &real.hi), ==, 0);
  int numbers[] = {5, 3, 9, 1, 7, 2, 8, 6, 4, 0};
  qsort(numbers, G_N_ELEMENTS(numbers), sizeof numbers[0], compare_ints);
  g_assert_true(real.done);
  g_assert_cmpint(numbers[0], ==, 0);

  /* From the comparator up, frame for frame, both walks agree. */
  g_assert_cmpint(real.n_libunwind, >=, 5);
  g_assert_cmpint(real.n_tables, ==, real.n_libunwind);
  guint in_libc = 0;
  for (int i = 1; i < real.n_libunwind; i++) {
    g_assert_cmphex(real.by_tables[i].ip, ==, real.by_libunwind[i].ip);
    g_assert_cmphex(real.by_tables[i].sp, ==, real.by_libunwind[i].sp);
    const SxsModule *m = sxs__modmap_find(real.map, real.by_tables[i].ip - 1);
    g_assert_nonnull(m);
    if (g_str_has_prefix(m->name, "libc.so"))
      in_libc++;
  }
  /* qsort's own frames (libc has no frame pointers) and __libc_start_main's. */
  g_assert_cmpuint(in_libc, >=, 2);
  sxs__modmap_free(real.map);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/cfi/rows", test_rows);
  g_test_add_func("/stitch/cfi/outside", test_outside);
  g_test_add_func("/stitch/cfi/function-start", test_function_start);
  g_test_add_func("/stitch/cfi/outermost", test_outermost);
  g_test_add_func("/stitch/cfi/not-followed", test_not_followed);
  g_test_add_func("/stitch/cfi/corrupt", test_corrupt);
  g_test_add_func("/stitch/cfi/libc", test_libc);
  return g_test_run();
}
