/* Unit tests of the dynamic methods' code table (callback/sxs_dynamic.c), with an Info that answers GetCodeInfo2
 * only: ranges found by any address inside them and by no address outside, a method compiled again replacing its
 * old code, code reused at the same addresses by another method replacing the old owner, an unload forgetting a
 * method, and a method the runtime gives no code for not noted. */
#include <errno.h>
#include <glib.h>

#include "sxs_callback.h"

typedef struct {
  ICorProfilerInfo15 iface;
  COR_PRF_CODE_INFO code[2]; /* what GetCodeInfo2 answers next */
  ULONG32 n;
} FakeInfo;

static ICorProfilerInfo15Vtbl fake_vtbl;

static HRESULT fake_GetCodeInfo2(ICorProfilerInfo15 *This, FunctionID f, ULONG32 cap, ULONG32 *pn,
                                 COR_PRF_CODE_INFO codes[]) {
  (void)f;
  FakeInfo *fake = (FakeInfo *)This;
  if (fake->n == 0)
    return E_FAIL;
  *pn = fake->n;
  for (ULONG32 i = 0; i < fake->n && i < cap; i++)
    codes[i] = fake->code[i];
  return S_OK;
}

static void fake_answer(FakeInfo *fake, uintptr_t start, size_t size, uintptr_t cold, size_t cold_size) {
  fake->code[0] = (COR_PRF_CODE_INFO){.startAddress = start, .size = size};
  fake->code[1] = (COR_PRF_CODE_INFO){.startAddress = cold, .size = cold_size};
  fake->n = cold ? 2 : 1;
}

static void assert_owner(SxsDynamicCode *code, uintptr_t ip, FunctionID expected) {
  FunctionID got = 0;
  uintptr_t start = 0, end = 0;
  gboolean found = sxs__dynamic_find(code, ip, &got, &start, &end);
  if (expected == 0) {
    g_assert_false(found);
    return;
  }
  g_assert_true(found);
  g_assert_cmphex(got, ==, expected);
  g_assert_cmphex(start, <=, ip);
  g_assert_cmphex(ip, <, end);
}

static void test_table(void) {
  fake_vtbl.GetCodeInfo2 = fake_GetCodeInfo2;
  FakeInfo fake = {.iface.lpVtbl = &fake_vtbl};
  SxsDynamicCode code;
  sxs__dynamic_init(&code);

  fake_answer(&fake, 0x1000, 0x100, 0x9000, 0x20);
  g_assert_cmpint(sxs__dynamic_add(&code, &fake.iface, 0xA), ==, 0);
  fake_answer(&fake, 0x2000, 0x80, 0, 0);
  g_assert_cmpint(sxs__dynamic_add(&code, &fake.iface, 0xB), ==, 0);
  assert_owner(&code, 0x1000, 0xA);
  assert_owner(&code, 0x10FF, 0xA);
  assert_owner(&code, 0x9010, 0xA); /* its cold part */
  assert_owner(&code, 0x1100, 0);
  assert_owner(&code, 0x0FFF, 0);
  assert_owner(&code, 0x2040, 0xB);
  uintptr_t start = 0, end = 0;
  g_assert_true(sxs__dynamic_first_range(&code, 0xB, &start, &end));
  g_assert_cmphex(start, ==, 0x2000);
  g_assert_cmphex(end, ==, 0x2080);
  g_assert_false(sxs__dynamic_first_range(&code, 0xC, &start, &end));

  /* A compiles again elsewhere: its old code is no longer its. */
  fake_answer(&fake, 0x3000, 0x40, 0, 0);
  g_assert_cmpint(sxs__dynamic_add(&code, &fake.iface, 0xA), ==, 0);
  assert_owner(&code, 0x1010, 0);
  assert_owner(&code, 0x9010, 0);
  assert_owner(&code, 0x3010, 0xA);

  /* C gets code over B's freed code: B's range goes. */
  fake_answer(&fake, 0x2040, 0x100, 0, 0);
  g_assert_cmpint(sxs__dynamic_add(&code, &fake.iface, 0xC), ==, 0);
  assert_owner(&code, 0x2000, 0);
  assert_owner(&code, 0x2050, 0xC);
  g_assert_false(sxs__dynamic_first_range(&code, 0xB, &start, &end));

  /* Unloaded; and no code given: nothing noted. */
  sxs__dynamic_remove(&code, 0xC);
  assert_owner(&code, 0x2050, 0);
  fake.n = 0;
  g_assert_cmpint(sxs__dynamic_add(&code, &fake.iface, 0xD), ==, -ENOENT);
  g_assert_false(sxs__dynamic_first_range(&code, 0xD, &start, &end));
  assert_owner(&code, 0x3010, 0xA);
  sxs__dynamic_fini(&code);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/callback/dynamic/table", test_table);
  return g_test_run();
}
