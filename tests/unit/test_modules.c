/* Unit tests for code-address module lookup and runtime versions (stitch/sxs_modules.c). */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sxs_modules.h"
#include "sxs_pe.h"
#include "sxs_scratch.h"

static int function_in_test_binary(int x) {
  return x + 1;
}

static char *self_exe(void) {
  char *path = realpath("/proc/self/exe", NULL);
  g_assert_nonnull(path);
  g_autofree char *copy = g_strdup(path);
  free(path);
  return g_steal_pointer(&copy);
}

static void test_path_of_libc(void) {
  /* gnu_get_libc_version is not intercepted by sanitizers, so its address is libc's own. */
  void *sym = dlsym(RTLD_DEFAULT, "gnu_get_libc_version");
  g_assert_nonnull(sym);
  const void *addrs[] = {sym, (const void *)gnu_get_libc_version};
  for (gsize i = 0; i < G_N_ELEMENTS(addrs); i++) {
    g_autofree char *path = NULL;
    g_assert_cmpint(sxs__modules_path_of(addrs[i], &path), ==, 0);
    g_assert_nonnull(path);
    g_assert_true(g_path_is_absolute(path));
    g_assert_true(g_str_has_suffix(path, "/libc.so.6"));
    g_autofree char *canonical = realpath(path, NULL);
    g_assert_cmpstr(canonical, ==, path);
  }
}

static void test_path_of_self(void) {
  g_autofree char *exe = self_exe();
  /* A static function here, the library code linked into this binary, and read-only data. */
  static const char rodata[] = "in the test binary";
  const void *addrs[] = {(const void *)function_in_test_binary, (const void *)sxs__modules_path_of,
                         (const void *)rodata};
  for (gsize i = 0; i < G_N_ELEMENTS(addrs); i++) {
    g_autofree char *path = NULL;
    g_assert_cmpint(sxs__modules_path_of(addrs[i], &path), ==, 0);
    g_assert_cmpstr(path, ==, exe);
  }
  g_assert_cmpint(function_in_test_binary(1), ==, 2);

  /* The main program is found through /proc/self/exe, so changing directory does not matter. */
  g_autofree char *cwd = g_get_current_dir();
  g_assert_cmpint(g_chdir("/"), ==, 0);
  g_autofree char *path = NULL;
  int r = sxs__modules_path_of((const void *)function_in_test_binary, &path);
  g_assert_cmpint(g_chdir(cwd), ==, 0);
  g_assert_cmpint(r, ==, 0);
  g_assert_cmpstr(path, ==, exe);
}

static void test_path_of_glib(void) {
  g_autofree char *path = NULL;
  g_assert_cmpint(sxs__modules_path_of((const void *)g_main_context_new, &path), ==, 0);
  g_autofree char *base = g_path_get_basename(path);
  g_assert_true(g_str_has_prefix(base, "libglib-2.0.so"));
  g_assert_true(g_path_is_absolute(path));
}

static void test_path_of_unknown(void) {
  int on_stack = 0;
  g_autofree int *on_heap = g_new0(int, 1);
  const void *addrs[] = {NULL,
                         (const void *)(uintptr_t)1,
                         (const void *)(uintptr_t)0x1000,
                         (const void *)(uintptr_t)UINTPTR_MAX,
                         &on_stack,
                         on_heap};
  for (gsize i = 0; i < G_N_ELEMENTS(addrs); i++) {
    char *path = (char *)"untouched";
    g_assert_cmpint(sxs__modules_path_of(addrs[i], &path), ==, -ENOENT);
    g_assert_cmpstr(path, ==, "untouched");
  }
  g_assert_cmpint(sxs__modules_path_of(NULL, NULL), ==, -EINVAL);
}

static void test_is_coreclr(void) {
  g_assert_true(sxs__modules_is_coreclr("libcoreclr.so"));
  g_assert_true(sxs__modules_is_coreclr("/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so"));
  g_assert_true(sxs__modules_is_coreclr("./libcoreclr.so"));
  g_assert_false(sxs__modules_is_coreclr(NULL));
  g_assert_false(sxs__modules_is_coreclr(""));
  g_assert_false(sxs__modules_is_coreclr("/x/libcoreclr.so.dbg"));
  g_assert_false(sxs__modules_is_coreclr("/x/libcoreclrtraceptprovider.so"));
  g_assert_false(sxs__modules_is_coreclr("/x/mylibcoreclr.so"));
  g_assert_false(sxs__modules_is_coreclr("/x/libcoreclr.so/"));
  g_assert_false(sxs__modules_is_coreclr("/libcoreclr.so/libclrjit.so"));
}

/* ---- runtime versions on fake framework folders ---- */

typedef struct {
  char *root;
} FakeFixture;

static void fake_setup(FakeFixture *fx, gconstpointer data) {
  (void)data;
  fx->root = sxs_scratch_new("sxs-modules");
}

static void fake_teardown(FakeFixture *fx, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(fx->root);
}

/* Creates root/folder/libcoreclr.so (empty) and, when version_text is not NULL, root/folder/.version
 * with that content. Returns the libcoreclr.so path. */
static char *make_fake_runtime(FakeFixture *fx, const char *folder, const char *version_text) {
  g_autofree char *dir = g_build_filename(fx->root, folder, NULL);
  g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
  char *coreclr = g_build_filename(dir, "libcoreclr.so", NULL);
  g_assert_true(g_file_set_contents(coreclr, "", 0, NULL));
  if (version_text != NULL) {
    g_autofree char *file = g_build_filename(dir, ".version", NULL);
    g_assert_true(g_file_set_contents(file, version_text, -1, NULL));
  }
  return coreclr;
}

/* The version read for a runtime at coreclr whose API answers api, and where it came from. */
static void check_version_from(const char *coreclr, const char *api, const char *expected,
                               SxsVersionSource expected_source) {
  char *version = (char *)"untouched";
  SxsVersionSource source = (SxsVersionSource)42;
  int r = sxs__modules_runtime_version(coreclr, api, &version, &source);
  if (expected == NULL) {
    g_assert_cmpint(r, ==, -ENOENT);
    g_assert_cmpstr(version, ==, "untouched");
    g_assert_cmpint(source, ==, 42);
  } else {
    g_assert_cmpint(r, ==, 0);
    g_assert_cmpstr(version, ==, expected);
    g_assert_cmpint(source, ==, expected_source);
    g_free(version);
  }
}

/* The version of a fake runtime whose API gives none: its folder's name when that is the version
 * expected (no test here has a .version that says the same), else its .version file. */
static void check_version(const char *coreclr, const char *expected) {
  SxsVersionSource source = SXS_VERSION_SOURCE_VERSION_FILE;
  if (expected != NULL) {
    g_autofree char *folder = g_path_get_dirname(coreclr);
    g_autofree char *name = g_path_get_basename(folder);
    if (g_str_equal(name, expected))
      source = SXS_VERSION_SOURCE_FOLDER;
  }
  check_version_from(coreclr, NULL, expected, source);
}

static void test_version_file(FakeFixture *fx, gconstpointer data) {
  (void)data;
  /* The .version file wins over the folder name. */
  g_autofree char *a = make_fake_runtime(fx, "copy-a", "e8b8861ac7faf042c87a5c2f9f2d04c98b69f28d\n2.0.0\n");
  check_version(a, "2.0.0");
  g_autofree char *b = make_fake_runtime(fx, "9.9.9", "unknown\n8.0.33\n");
  check_version(b, "8.0.33");
  /* No final newline, CRLF line ends, trailing lines, a prerelease suffix. */
  g_autofree char *c = make_fake_runtime(fx, "c", "95017c711e6a\n10.0.12");
  check_version(c, "10.0.12");
  g_autofree char *d = make_fake_runtime(fx, "d", "95017c711e6a\r\n10.0.0-rc.2.25502.107\r\n");
  check_version(d, "10.0.0-rc.2.25502.107");
  g_autofree char *e = make_fake_runtime(fx, "e", "abc\n3.1.32\nextra\nlines\n");
  check_version(e, "3.1.32");
}

static void test_version_folder_name(FakeFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *a = make_fake_runtime(fx, "shared/Microsoft.NETCore.App/10.0.12", NULL);
  check_version(a, "10.0.12");
  g_autofree char *b = make_fake_runtime(fx, "9.0.0-preview.1.24080.9", NULL);
  check_version(b, "9.0.0-preview.1.24080.9");
  /* The file does not have to exist. */
  g_autofree char *ghost = g_build_filename(fx->root, "7.0.20", "libcoreclr.so", NULL);
  check_version(ghost, "7.0.20");
}

static void test_version_none(FakeFixture *fx, gconstpointer data) {
  (void)data;
  static const char *const folders[] = {"foo",     "10",      "10.",      ".10",     "10..0",
                                        "v10.0.1", "10.0.1-", "10.0.1 x", "10.0-a b"};
  for (gsize i = 0; i < G_N_ELEMENTS(folders); i++) {
    g_autofree char *coreclr = make_fake_runtime(fx, folders[i], NULL);
    check_version(coreclr, NULL);
  }
  /* A malformed .version does not help a folder with no version in its name. */
  g_autofree char *bad = make_fake_runtime(fx, "bar", "only-one-line\n");
  check_version(bad, NULL);
  check_version("libcoreclr.so", NULL);

  char *version = (char *)"untouched";
  g_assert_cmpint(sxs__modules_runtime_version(NULL, NULL, &version, NULL), ==, -ENOENT);
  g_assert_cmpint(sxs__modules_runtime_version("/x/1.0/libcoreclr.so", "10.0.1", NULL, NULL), ==, -EINVAL);
  g_assert_cmpstr(version, ==, "untouched");
}

static void test_version_malformed_file(FakeFixture *fx, gconstpointer data) {
  (void)data;
  static const char *const bad_files[] = {
      "e8b8861ac7faf042c87a5c2f9f2d04c98b69f28d\n", /* one line */
      "e8b8861ac7faf042c87a5c2f9f2d04c98b69f28d",   /* one line, no newline */
      "",                                           /* empty */
      "\n2.0.0\n",                                  /* no commit */
      "abc\nnot a version\n",                       /* line 2 is not a version */
      "abc\n\n",                                    /* empty line 2 */
      "two words\n2.0.0\n",                         /* line 1 is not one token */
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad_files); i++) {
    g_autofree char *folder = g_strdup_printf("case%zu/5.0.%zu", i, i);
    g_autofree char *coreclr = make_fake_runtime(fx, folder, bad_files[i]);
    g_autofree char *expected = g_strdup_printf("5.0.%zu", i);
    check_version(coreclr, expected);
  }

  /* A .version that is a folder, or holds NUL bytes, is malformed too. */
  g_autofree char *dir_case = make_fake_runtime(fx, "6.0.1", NULL);
  g_autofree char *dot_version = g_build_filename(fx->root, "6.0.1", ".version", NULL);
  g_assert_cmpint(g_mkdir(dot_version, 0755), ==, 0);
  check_version(dir_case, "6.0.1");

  g_autofree char *nul_case = make_fake_runtime(fx, "6.0.2", NULL);
  g_autofree char *nul_file = g_build_filename(fx->root, "6.0.2", ".version", NULL);
  g_assert_true(g_file_set_contents(nul_file, "abc\n9.9\0.9\n", 11, NULL));
  check_version(nul_case, "6.0.2");
}

/* The runtime's own answer wins when it is a product version (5 and later); the CLR versions that
 * 2.x and 3.x answer with are passed over. */
static void test_version_api(FakeFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *a = make_fake_runtime(fx, "shared/Microsoft.NETCore.App/9.9.9", "abc\n8.0.33\n");
  check_version_from(a, "10.0.12", "10.0.12", SXS_VERSION_SOURCE_RUNTIME);
  check_version_from(a, "5.0.0", "5.0.0", SXS_VERSION_SOURCE_RUNTIME);
  check_version_from(NULL, "10.0.0-rc.2.25502.107", "10.0.0-rc.2.25502.107", SXS_VERSION_SOURCE_RUNTIME);
  check_version_from(a, "v4.0.30319", "8.0.33", SXS_VERSION_SOURCE_VERSION_FILE);
  check_version_from(a, "4.0.30319", "8.0.33", SXS_VERSION_SOURCE_VERSION_FILE);
  check_version_from(a, "v4.0.22220", "8.0.33", SXS_VERSION_SOURCE_VERSION_FILE);
  check_version_from(a, "", "8.0.33", SXS_VERSION_SOURCE_VERSION_FILE);
  check_version_from(NULL, "v4.0.30319", NULL, SXS_VERSION_SOURCE_NONE);
  check_version_from(NULL, NULL, NULL, SXS_VERSION_SOURCE_NONE);
}

/* 2.x's own manifest names its version when neither the API nor a .version file does. */
static void test_version_deps(FakeFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *coreclr = make_fake_runtime(fx, "renamed", NULL);
  g_autofree char *deps = g_build_filename(fx->root, "renamed", "Microsoft.NETCore.App.deps.json", NULL);
  g_assert_true(
      g_file_set_contents(deps,
                          "{\"targets\": {\".NETCoreApp,Version=v2.0/linux-x64\": {\"Microsoft.NETCore.App/2.0.0\": "
                          "{\"dependencies\": {}}}}}",
                          -1, NULL));
  check_version_from(coreclr, "v4.0.22220", "2.0.0", SXS_VERSION_SOURCE_DEPS);
  g_assert_true(g_file_set_contents(deps, "{\"Microsoft.NETCore.App/not-a-version\": {}}", -1, NULL));
  check_version_from(coreclr, NULL, NULL, SXS_VERSION_SOURCE_NONE);
}

/* A copy of a real runtime's CoreLib and manifest in a folder named after nothing, without .version
 * (what a copied or renamed runtime, or a self-contained app's folder, looks like). */
static char *copy_runtime_files(FakeFixture *fx, const char *from, const char *name, gboolean with_deps) {
  g_autofree char *coreclr = make_fake_runtime(fx, name, NULL);
  g_autofree char *dir = g_path_get_dirname(coreclr);
  const char *files[] = {"System.Private.CoreLib.dll", with_deps ? "Microsoft.NETCore.App.deps.json" : NULL};
  for (gsize i = 0; i < G_N_ELEMENTS(files) && files[i]; i++) {
    g_autofree char *src = g_build_filename(from, files[i], NULL);
    g_autofree char *dst = g_build_filename(dir, files[i], NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    if (i > 0 && !g_file_test(src, G_FILE_TEST_EXISTS))
      continue; /* runtime packs (3.1 and later here) have no manifest */
    g_assert_true(g_file_get_contents(src, &text, &len, NULL));
    g_assert_true(g_file_set_contents(dst, text, (gssize)len, NULL));
  }
  return g_steal_pointer(&coreclr);
}

static char *runtimes_dir(void);

/* The installed framework folder of a version prefix ("3.1" -> .../3.1.3), or NULL. */
static char *installed_framework(const char *base, const char *prefix) {
  g_autofree char *pattern = g_strdup_printf("%s/shared/Microsoft.NETCore.App/%s.*", base, prefix);
  glob_t g;
  if (glob(pattern, 0, NULL, &g) != 0)
    return NULL;
  char *dir = g_strdup(g.gl_pathv[g.gl_pathc - 1]);
  globfree(&g);
  return dir;
}

static void test_version_corelib(FakeFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *base = runtimes_dir();
  static const char *const prefixes[] = {"3.1", "8.0", "2.0"};
  for (gsize i = 0; i < G_N_ELEMENTS(prefixes); i++) {
    g_autofree char *fw = installed_framework(base, prefixes[i]);
    if (fw == NULL) {
      g_autofree char *why = g_strdup_printf("no %s runtime under %s (run tests/setup.sh)", prefixes[i], base);
      g_test_skip(why);
      return;
    }
    g_autofree char *expected = g_path_get_basename(fw);
    g_autofree char *name = g_strdup_printf("copy-%zu", i);
    g_autofree char *coreclr = copy_runtime_files(fx, fw, name, TRUE);
    if (g_str_has_prefix(expected, "2.")) {
      /* 2.x's CoreLib has no informational version: its manifest tells. */
      check_version_from(coreclr, "v4.0.22220", expected, SXS_VERSION_SOURCE_DEPS);
    } else {
      check_version_from(coreclr, "v4.0.30319", expected, SXS_VERSION_SOURCE_CORELIB);
      char text[128];
      g_autofree char *corelib = g_build_filename(fw, "System.Private.CoreLib.dll", NULL);
      g_assert_cmpint(sxs__pe_informational_version(corelib, text, sizeof text), ==, 0);
      g_assert_true(g_str_has_prefix(text, expected));
      g_assert_nonnull(strchr(text, '+'));
      g_assert_cmpint(sxs__pe_informational_version(corelib, text, 8), ==, -ENOSPC);
    }
  }
}

/* Files that are no managed assembly, or a cut one, give no informational version. */
static void test_pe_malformed(FakeFixture *fx, gconstpointer data) {
  (void)data;
  char text[128] = "untouched";
  g_autofree char *empty = g_build_filename(fx->root, "empty.dll", NULL);
  g_assert_true(g_file_set_contents(empty, "", 0, NULL));
  g_assert_cmpint(sxs__pe_informational_version(empty, text, sizeof text), ==, -EINVAL);
  g_autofree char *mz = g_build_filename(fx->root, "mz.dll", NULL);
  char junk[256] = "MZ";
  memset(junk + 2, 0xff, sizeof junk - 2);
  g_assert_true(g_file_set_contents(mz, junk, sizeof junk, NULL));
  g_assert_cmpint(sxs__pe_informational_version(mz, text, sizeof text), ==, -EINVAL);
  g_autofree char *missing = g_build_filename(fx->root, "missing.dll", NULL);
  g_assert_cmpint(sxs__pe_informational_version(missing, text, sizeof text), ==, -ENOENT);
  /* The first 64 KiB of a real CoreLib: its metadata lies further in. */
  g_autofree char *fw = installed_framework("/usr/share/dotnet", "10.0");
  g_assert_nonnull(fw);
  g_autofree char *corelib = g_build_filename(fw, "System.Private.CoreLib.dll", NULL);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(corelib, &bytes, &len, NULL));
  g_autofree char *cut = g_build_filename(fx->root, "cut.dll", NULL);
  g_assert_true(g_file_set_contents(cut, bytes, 65536, NULL));
  g_assert_cmpint(sxs__pe_informational_version(cut, text, sizeof text), <, 0);
  g_assert_cmpstr(text, ==, "untouched");
  g_assert_cmpint(sxs__pe_informational_version(corelib, text, sizeof text), ==, 0);
  g_assert_true(g_str_has_prefix(text, "10.0."));
}

/* Every CoreCLR exports MetaDataGetDispenser; this test binary and libc hold none. */
static void test_holds_runtime(void) {
  g_autofree char *fw = installed_framework("/usr/share/dotnet", "10.0");
  g_assert_nonnull(fw);
  g_autofree char *coreclr = g_build_filename(fw, "libcoreclr.so", NULL);
  g_assert_true(sxs__modules_exports(coreclr, "MetaDataGetDispenser"));
  g_assert_true(sxs__modules_exports(coreclr, "coreclr_initialize"));
  g_assert_false(sxs__modules_exports(coreclr, "MetaDataGetDispens"));
  g_assert_false(sxs__modules_exports(coreclr, "DotNetRuntimeDebugHeader"));
  g_assert_true(sxs__modules_holds_runtime(coreclr));
  g_autofree char *exe = self_exe();
  g_assert_false(sxs__modules_holds_runtime(exe));
  g_autofree char *corelib = g_build_filename(fw, "System.Private.CoreLib.dll", NULL);
  g_assert_false(sxs__modules_exports(corelib, "MetaDataGetDispenser"));
  g_assert_false(sxs__modules_exports("/nonexistent", "MetaDataGetDispenser"));
  g_assert_false(sxs__modules_exports(NULL, "MetaDataGetDispenser"));
}

/* ---- the real runtimes installed on this machine ---- */

/* Checks every shared/Microsoft.NETCore.App/<version>/libcoreclr.so under base; returns how many
 * were found. */
static guint check_installed_runtimes(const char *base) {
  g_autofree char *pattern = g_build_filename(base, "shared", "Microsoft.NETCore.App", "*", "libcoreclr.so", NULL);
  glob_t g;
  if (glob(pattern, 0, NULL, &g) != 0)
    return 0;
  guint found = 0;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    const char *coreclr = g.gl_pathv[i];
    g_autofree char *folder = g_path_get_dirname(coreclr);
    g_autofree char *expected = g_path_get_basename(folder);
    g_assert_true(sxs__modules_is_coreclr(coreclr));
    g_assert_true(sxs__modules_holds_runtime(coreclr));
    g_autofree char *version = NULL;
    SxsVersionSource source = SXS_VERSION_SOURCE_NONE;
    g_assert_cmpint(sxs__modules_runtime_version(coreclr, NULL, &version, &source), ==, 0);
    g_assert_cmpstr(version, ==, expected);
    /* From 3.0 on CoreLib tells; 2.x's does not, and its .version does. */
    g_assert_cmpint(source, ==,
                    g_str_has_prefix(expected, "2.") ? SXS_VERSION_SOURCE_VERSION_FILE : SXS_VERSION_SOURCE_CORELIB);
    g_test_message("%s -> %s (%s)", coreclr, version, sxs__modules_version_source_name(source));
    found++;
  }
  globfree(&g);
  return found;
}

static void test_installed_sdk_runtime(void) {
  if (check_installed_runtimes("/usr/share/dotnet") == 0)
    g_test_skip("no /usr/share/dotnet/shared/Microsoft.NETCore.App/*/libcoreclr.so");
}

static char *runtimes_dir(void) {
  const char *env = g_getenv("SXS_RUNTIMES_DIR");
  if (env != NULL && *env != '\0')
    return g_strdup(env);
  return g_build_filename(g_get_home_dir(), ".local", "share", "sxsprof", "dotnet", NULL);
}

static void test_installed_extra_runtimes(void) {
  g_autofree char *base = runtimes_dir();
  g_autofree char *coreclr = g_build_filename(base, "shared", "Microsoft.NETCore.App", "2.0.0", "libcoreclr.so", NULL);
  if (!g_file_test(coreclr, G_FILE_TEST_EXISTS)) {
    g_autofree char *why = g_strdup_printf("runtime 2.0.0 missing: %s (run tests/setup.sh)", coreclr);
    g_test_skip(why);
    return;
  }
  g_autofree char *version = NULL;
  g_assert_cmpint(sxs__modules_runtime_version(coreclr, NULL, &version, NULL), ==, 0);
  g_assert_cmpstr(version, ==, "2.0.0");
  /* Every other runtime there (3.1.x, 8.0.x, 9.0.x after setup) agrees with its folder name too. */
  g_assert_cmpuint(check_installed_runtimes(base), >=, 3);
}

/* Child side of test_loaded_coreclr: load the runtime library and look up one of its exports. */
static void check_loaded_coreclr(const char *coreclr) {
  void *handle = dlopen(coreclr, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    g_printerr("dlopen failed: %s\n", dlerror());
  g_assert_nonnull(handle);
  void *sym = dlsym(handle, "coreclr_initialize");
  g_assert_nonnull(sym);

  g_autofree char *path = NULL;
  g_assert_cmpint(sxs__modules_path_of(sym, &path), ==, 0);
  g_assert_cmpstr(path, ==, coreclr);
  g_assert_true(sxs__modules_is_coreclr(path));
  g_autofree char *version = NULL;
  g_assert_cmpint(sxs__modules_runtime_version(path, NULL, &version, NULL), ==, 0);
  g_autofree char *folder = g_path_get_dirname(coreclr);
  g_autofree char *expected = g_path_get_basename(folder);
  g_assert_cmpstr(version, ==, expected);
}

/* The real use: a symbol of a loaded libcoreclr.so maps back to that file and its version. Runs in
 * a child process so the runtime library never stays mapped in the test process. */
static void test_loaded_coreclr(void) {
  glob_t g;
  if (glob("/usr/share/dotnet/shared/Microsoft.NETCore.App/*/libcoreclr.so", 0, NULL, &g) != 0) {
    g_test_skip("no /usr/share/dotnet/shared/Microsoft.NETCore.App/*/libcoreclr.so");
    return;
  }
  g_autofree char *coreclr = realpath(g.gl_pathv[0], NULL);
  globfree(&g);
  g_assert_nonnull(coreclr);

  if (g_test_subprocess()) {
    check_loaded_coreclr(coreclr);
    g_clear_pointer(&coreclr, g_free);
    exit(0);
  }
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed();
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/stitch/modules/path-of/libc", test_path_of_libc);
  g_test_add_func("/stitch/modules/path-of/self", test_path_of_self);
  g_test_add_func("/stitch/modules/path-of/glib", test_path_of_glib);
  g_test_add_func("/stitch/modules/path-of/unknown", test_path_of_unknown);
  g_test_add_func("/stitch/modules/is-coreclr", test_is_coreclr);
  g_test_add("/stitch/modules/version/file", FakeFixture, NULL, fake_setup, test_version_file, fake_teardown);
  g_test_add("/stitch/modules/version/folder-name", FakeFixture, NULL, fake_setup, test_version_folder_name,
             fake_teardown);
  g_test_add("/stitch/modules/version/none", FakeFixture, NULL, fake_setup, test_version_none, fake_teardown);
  g_test_add("/stitch/modules/version/malformed-file", FakeFixture, NULL, fake_setup, test_version_malformed_file,
             fake_teardown);
  g_test_add("/stitch/modules/version/api", FakeFixture, NULL, fake_setup, test_version_api, fake_teardown);
  g_test_add("/stitch/modules/version/deps", FakeFixture, NULL, fake_setup, test_version_deps, fake_teardown);
  g_test_add("/stitch/modules/version/corelib", FakeFixture, NULL, fake_setup, test_version_corelib, fake_teardown);
  g_test_add("/stitch/modules/pe/malformed", FakeFixture, NULL, fake_setup, test_pe_malformed, fake_teardown);
  g_test_add_func("/stitch/modules/holds-runtime", test_holds_runtime);
  g_test_add_func("/stitch/modules/version/installed-sdk", test_installed_sdk_runtime);
  g_test_add_func("/stitch/modules/version/installed-extra", test_installed_extra_runtimes);
  g_test_add_func("/stitch/modules/path-of/loaded-coreclr", test_loaded_coreclr);

  return g_test_run();
}
