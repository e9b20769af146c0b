/* Unit tests of sxs_version: the one parser of runtime versions. */
#include <glib.h>

#include "sxs_version.h"

static void test_parse(void) {
  SxsVersion v;
  g_assert_true(sxs__version_parse("10.0.12", &v));
  g_assert_cmpint(v.n, ==, 3);
  g_assert_cmpuint(v.part[0], ==, 10);
  g_assert_cmpuint(v.part[2], ==, 12);
  g_assert_null(v.pre);
  g_assert_true(sxs__version_parse("8.0.0-rc.1.23419.4", &v));
  g_assert_cmpstr(v.pre, ==, "rc.1.23419.4");
  g_assert_true(sxs__version_parse("2.0.0+abc", &v));
  g_assert_null(v.pre);
  g_assert_cmpstr(v.build, ==, "abc");
  g_assert_true(sxs__version_parse("1.0.0-beta-2+sha.5", &v));
  g_assert_cmpstr(v.build, ==, "sha.5");
  g_assert_true(sxs__version_parse("4.6.25519.02", &v));
  g_assert_cmpint(v.n, ==, 4);
  g_assert_true(sxs__version_parse("10", &v));
  g_assert_cmpint(v.n, ==, 1);
  const char *bad[] = {"",
                       "x",
                       "10.",
                       ".10",
                       "10..0",
                       "10.0-",
                       "10.0+",
                       "10.0-rc!",
                       "10.0 ",
                       "1.2.3.4.5.6.7.8.9",
                       "1234567890123456789",
                       "v10",
                       "10.0.0-rc+",
                       NULL};
  for (const char **b = bad; *b; b++) {
    v.n = 42;
    g_assert_false(sxs__version_parse(*b, &v));
    g_assert_cmpint(v.n, ==, 42); /* untouched */
  }
  g_assert_false(sxs__version_parse(NULL, &v));
}

static int cmp(const char *a, const char *b) {
  SxsVersion x, y;
  g_assert_true(sxs__version_parse(a, &x));
  g_assert_true(sxs__version_parse(b, &y));
  int c = sxs__version_compare(&x, &y);
  return (c > 0) - (c < 0);
}

static void test_compare(void) {
  g_assert_cmpint(cmp("10.0.12", "10.0.2"), ==, 1);
  g_assert_cmpint(cmp("9.0.22", "10.0.0"), ==, -1);
  g_assert_cmpint(cmp("10.0", "10.0.0"), ==, 0);
  g_assert_cmpint(cmp("10.0.0-rc.1", "10.0.0"), ==, -1);
  g_assert_cmpint(cmp("10.0.0-rc.2", "10.0.0-rc.1"), ==, 1);
  g_assert_cmpint(cmp("2.0.0+abc", "2.0.0+def"), ==, 0);
  g_assert_cmpint(cmp("2.0.0-a+x", "2.0.0-a+y"), ==, 0);
}

static gboolean starts(const char *v, const char *prefix) {
  SxsVersion x, p;
  g_assert_true(sxs__version_parse(v, &x));
  g_assert_true(sxs__version_parse(prefix, &p));
  return sxs__version_starts_with(&x, &p);
}

static void test_starts_with(void) {
  g_assert_true(starts("10.0.12", "10"));
  g_assert_true(starts("10.0.12", "10.0"));
  g_assert_true(starts("10.0.12", "10.0.12"));
  g_assert_true(starts("10.0.0-rc.1", "10.0"));
  g_assert_false(starts("10.0.12", "1"));
  g_assert_false(starts("8.0.33", "8.0.3"));
  g_assert_false(starts("2.0.0", "2.0.0.0"));
  g_assert_false(starts("10.1.0", "10.01.1"));
}

static void test_at_least(void) {
  g_assert_true(sxs__version_at_least("2.1.0", 2, 1));
  g_assert_true(sxs__version_at_least("10.0.12", 2, 1));
  g_assert_true(sxs__version_at_least("3.0.0-preview", 2, 1));
  g_assert_false(sxs__version_at_least("2.0.0", 2, 1));
  g_assert_false(sxs__version_at_least("1.9", 2, 1));
  g_assert_false(sxs__version_at_least("4.0.22220.0x", 2, 1));
  g_assert_false(sxs__version_at_least(NULL, 2, 1));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/stitch/version/parse", test_parse);
  g_test_add_func("/stitch/version/compare", test_compare);
  g_test_add_func("/stitch/version/starts-with", test_starts_with);
  g_test_add_func("/stitch/version/at-least", test_at_least);
  return g_test_run();
}
