/* Unit tests for the loaded-module snapshot (stitch/sxs_modmap.c) and ELF function symbols (stitch/sxs_symbols.c). */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sxs_modmap.h"
#include "sxs_modules.h"
#include "sxs_symbols.h"
#include "sxs_scratch.h"

int main(int argc, char **argv);

/* A function of this binary that is neither inlined nor dropped, so its address is its own. */
static __attribute__((noinline, used)) int symbols_test_function(int x) {
  return x * 3 + 1;
}

/* A symbol of libc itself: a handle-scoped dlsym skips the sanitizers' interceptors (ASan has its
 * own qsort, which &qsort and RTLD_DEFAULT would give). */
static uintptr_t libc_symbol(const char *name) {
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  g_assert_nonnull(libc);
  void *sym = dlsym(libc, name);
  g_assert_nonnull(sym);
  dlclose(libc);
  return (uintptr_t)sym;
}

static char *self_exe(void) {
  char *path = realpath("/proc/self/exe", NULL);
  g_assert_nonnull(path);
  char *copy = g_strdup(path);
  free(path);
  return copy;
}

/* The module found for addr agrees with the loader (link map base) and with sxs__modules_path_of. */
static void check_module(const SxsModuleMap *map, uintptr_t addr, const char *expected_name) {
  const SxsModule *m = sxs__modmap_find(map, addr);
  g_assert_nonnull(m);
  g_assert_cmpstr(m->name, ==, expected_name);
  g_assert_true(g_path_is_absolute(m->path));

  Dl_info info;
  struct link_map *lm = NULL;
  g_assert_cmpint(dladdr1((void *)addr, &info, (void **)&lm, RTLD_DL_LINKMAP), !=, 0);
  g_assert_nonnull(lm);
  g_assert_cmphex(m->base, ==, lm->l_addr);

  g_autofree char *path = NULL;
  g_assert_cmpint(sxs__modules_path_of((const void *)addr, &path), ==, 0);
  g_assert_cmpstr(m->path, ==, path);
}

/* ---- the module map ---- */

static void test_map_finds_code(void) {
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  g_autofree char *exe = self_exe();
  g_autofree char *exe_name = g_path_get_basename(exe);
  g_assert_cmpstr(exe_name, ==, "test_symbols");

  check_module(map, (uintptr_t)main, "test_symbols");
  check_module(map, (uintptr_t)symbols_test_function, "test_symbols");
  check_module(map, (uintptr_t)sxs__modmap_find, "test_symbols");
  g_assert_cmpstr(sxs__modmap_find(map, (uintptr_t)main)->path, ==, exe);
  /* The same module, not a copy: every range of one object points at one SxsModule. */
  g_assert_true(sxs__modmap_find(map, (uintptr_t)main) == sxs__modmap_find(map, (uintptr_t)symbols_test_function));

  uintptr_t qsort_addr = libc_symbol("qsort");
  check_module(map, qsort_addr, "libc.so.6");
  g_assert_true(g_str_has_suffix(sxs__modmap_find(map, qsort_addr)->path, "/libc.so.6"));

  const SxsModule *glib = sxs__modmap_find(map, (uintptr_t)g_main_context_new);
  g_assert_nonnull(glib);
  g_assert_cmpstr(glib->name, ==, "libglib-2.0.so.0");
  g_assert_cmpuint(symbols_test_function(1), ==, 4);

  /* The vdso's code (its ELF header lies in its only, executable, segment) has no file. */
  uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);
  if (vdso != 0) {
    const SxsModule *m = sxs__modmap_find(map, vdso);
    g_assert_nonnull(m);
    g_assert_cmpstr(m->name, ==, "[vdso]");
    g_assert_cmpstr(m->path, ==, "[vdso]");
    g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
    const char *symbol = NULL;
    uintptr_t offset = 0;
    g_assert_cmpint(sxs__symbols_lookup(cache, m, vdso, &symbol, &offset), ==, -ENOENT);
    g_autofree char *text = sxs__symbols_describe(cache, map, vdso);
    g_autofree char *expected = g_strdup_printf("[vdso]+0x%" PRIxPTR, vdso - m->base);
    g_assert_cmpstr(text, ==, expected);
  }
}

static void test_map_rejects_data(void) {
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  static int writable_data = 1;
  int on_stack = 0;
  g_autofree int *on_heap = g_new0(int, 1);
  const uintptr_t addrs[] = {
      0, 1, 0x1000, UINTPTR_MAX, (uintptr_t)&on_stack, (uintptr_t)on_heap, (uintptr_t)&writable_data,
  };
  for (gsize i = 0; i < G_N_ELEMENTS(addrs); i++)
    g_assert_null(sxs__modmap_find(map, addrs[i]));
  g_assert_null(sxs__modmap_find(NULL, (uintptr_t)main));
  g_assert_false(sxs__modmap_refresh(NULL));
  sxs__modmap_free(NULL);
}

/* Child side of test_map_refresh: a fresh process, so libresolv is surely not loaded yet. */
static void check_refresh_after_dlopen(void) {
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  g_assert_false(sxs__modmap_refresh(map));
  g_assert_false(sxs__modmap_refresh(map));

  g_assert_null(dlopen("libresolv.so.2", RTLD_LAZY | RTLD_NOLOAD));
  void *handle = dlopen("libresolv.so.2", RTLD_NOW | RTLD_LOCAL);
  g_assert_nonnull(handle);
  uintptr_t fn = (uintptr_t)dlsym(handle, "__b64_ntop");
  g_assert_cmphex(fn, !=, 0);

  /* A snapshot: the new library is unknown until the next refresh. */
  g_assert_null(sxs__modmap_find(map, fn));
  g_assert_true(sxs__modmap_refresh(map));
  check_module(map, fn, "libresolv.so.2");
  g_assert_false(sxs__modmap_refresh(map));

  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  g_autofree char *text = sxs__symbols_describe(cache, map, fn + 1);
  g_assert_cmpstr(text, ==, "libresolv.so.2!__b64_ntop+0x1");

  /* Unloading (nothing else holds libresolv) moves dlpi_subs: the library leaves the map. */
  g_assert_cmpint(dlclose(handle), ==, 0);
  g_assert_null(dlopen("libresolv.so.2", RTLD_LAZY | RTLD_NOLOAD));
  g_assert_true(sxs__modmap_refresh(map));
  g_assert_null(sxs__modmap_find(map, fn));
  g_assert_false(sxs__modmap_refresh(map));
  check_module(map, (uintptr_t)main, "test_symbols");
}

static void test_map_refresh(void) {
  if (g_test_subprocess()) {
    check_refresh_after_dlopen();
    return;
  }
  g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed();
}

/* ---- symbols of loaded modules ---- */

static void test_describe_self(void) {
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  uintptr_t fn = (uintptr_t)symbols_test_function;

  g_autofree char *at_start = sxs__symbols_describe(cache, map, fn);
  g_assert_cmpstr(at_start, ==, "test_symbols!symbols_test_function+0x0");
  g_autofree char *inside = sxs__symbols_describe(cache, map, fn + 1);
  g_assert_cmpstr(inside, ==, "test_symbols!symbols_test_function+0x1");
  g_autofree char *at_main = sxs__symbols_describe(cache, map, (uintptr_t)main + 2);
  g_assert_cmpstr(at_main, ==, "test_symbols!main+0x2");
  g_autofree char *library_code = sxs__symbols_describe(cache, map, (uintptr_t)sxs__symbols_describe);
  g_assert_cmpstr(library_code, ==, "test_symbols!sxs__symbols_describe+0x0");

  const SxsModule *m = sxs__modmap_find(map, fn);
  g_assert_nonnull(m);
  const char *symbol = NULL;
  uintptr_t offset = 0;
  g_assert_cmpint(sxs__symbols_lookup(cache, m, fn + 1, &symbol, &offset), ==, 0);
  g_assert_cmpstr(symbol, ==, "symbols_test_function");
  g_assert_cmphex(offset, ==, (fn + 1) - (uintptr_t)symbols_test_function);

  /* Without a cache: the offset from the module's base, which is main's link-time address. */
  g_autofree char *no_cache = sxs__symbols_describe(NULL, map, (uintptr_t)main);
  g_autofree char *expected = g_strdup_printf("test_symbols+0x%" PRIxPTR, (uintptr_t)main - m->base);
  g_assert_cmpstr(no_cache, ==, expected);
}

static void test_describe_libc(void) {
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  uintptr_t qsort_addr = libc_symbol("qsort");

  g_autofree char *at_start = sxs__symbols_describe(cache, map, qsort_addr);
  g_assert_cmpstr(at_start, ==, "libc.so.6!qsort+0x0");
  g_autofree char *inside = sxs__symbols_describe(cache, map, qsort_addr + 1);
  g_assert_cmpstr(inside, ==, "libc.so.6!qsort+0x1");

  /* libc is stripped; libc6-dbg (tests/setup/install-deps.sh) puts its full table under
   * /usr/lib/debug/.build-id/, named by the build ID libc carries. */
  const SxsModule *libc = sxs__modmap_find(map, qsort_addr);
  g_assert_nonnull(libc);
  g_autofree char *debug_path = NULL;
  g_assert_cmpint(sxs__symbols_source(cache, libc->path, &debug_path), ==, SXS_SYMBOLS_SOURCE_BUILD_ID);
  g_assert_nonnull(debug_path);
  g_assert_true(g_str_has_prefix(debug_path, "/usr/lib/debug/.build-id/"));
  g_assert_true(g_str_has_suffix(debug_path, ".debug"));

  /* Of aliases, the name a person knows: getpid (weak) over __getpid (global); qsort_r over
   * __qsort_r and __GI___qsort_r; __libc_start_main without its version. */
  uintptr_t getpid_addr = libc_symbol("getpid");
  g_autofree char *getpid_text = sxs__symbols_describe(cache, map, getpid_addr);
  g_assert_cmpstr(getpid_text, ==, "libc.so.6!getpid+0x0");
  g_autofree char *qsort_r_text = sxs__symbols_describe(cache, map, libc_symbol("qsort_r") + 2);
  g_assert_cmpstr(qsort_r_text, ==, "libc.so.6!qsort_r+0x2");
  g_autofree char *start_main_text = sxs__symbols_describe(cache, map, libc_symbol("__libc_start_main"));
  g_assert_cmpstr(start_main_text, ==, "libc.so.6!__libc_start_main+0x0");

  /* memcpy resolves (IFUNC) to a local variant only the debug file names; perf shows the
   * __memmove_ alias of each __memcpy_ one (the longer name). */
  void *(*volatile copy)(void *, const void *, size_t) = (void *(*)(void *, const void *, size_t))libc_symbol("memcpy");
  char dst[64], src[64] = "x";
  copy(dst, src, sizeof dst);
  g_autofree char *memcpy_text = sxs__symbols_describe(cache, map, (uintptr_t)copy);
  g_test_message("memcpy here: %s", memcpy_text);
  g_assert_true(g_str_has_prefix(memcpy_text, "libc.so.6!__memmove_"));
  g_assert_true(g_str_has_suffix(memcpy_text, "+0x0"));
}

/* The address of section name of the ELF file at path, or 0 when it has none (or it is empty). */
static uint64_t section_address(const char *path, const char *name) {
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(path, &data, &len, NULL));
  g_assert_cmpuint(len, >=, sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  memcpy(&eh, data, sizeof(eh));
  g_assert_cmpuint(eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), <=, len);
  g_assert_cmpuint(eh.e_shstrndx, <, eh.e_shnum);
  Elf64_Shdr names;
  memcpy(&names, data + eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr), sizeof(names));
  for (guint i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    memcpy(&sh, data + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof(sh));
    g_assert_cmpuint(names.sh_offset + sh.sh_name, <, len);
    if (strcmp(data + names.sh_offset + sh.sh_name, name) == 0)
      return sh.sh_size > 0 ? sh.sh_addr : 0;
  }
  return 0;
}

static uint64_t self_section_address(const char *name) {
  return section_address("/proc/self/exe", name);
}

static void test_describe_outside_symbols(void) {
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  const SxsModule *self = sxs__modmap_find(map, (uintptr_t)main);
  g_assert_nonnull(self);

  /* The PLT is code of this binary that no function symbol covers. */
  uint64_t plt = self_section_address(".plt");
  if (plt != 0) {
    uintptr_t addr = self->base + plt;
    g_assert_true(sxs__modmap_find(map, addr) == self);
    const char *symbol = "untouched";
    uintptr_t offset = 42;
    g_assert_cmpint(sxs__symbols_lookup(cache, self, addr, &symbol, &offset), ==, -ENOENT);
    g_assert_cmpstr(symbol, ==, "untouched");
    g_assert_cmpuint(offset, ==, 42);
    g_autofree char *text = sxs__symbols_describe(cache, map, addr);
    g_autofree char *expected = g_strdup_printf("test_symbols+0x%" PRIx64, plt);
    g_assert_cmpstr(text, ==, expected);
  } else {
    g_test_message("this binary has no .plt: the module+offset case is not checked on it");
  }

  /* No module at all: the bare address. */
  g_autofree int *on_heap = g_new0(int, 1);
  g_autofree char *heap_text = sxs__symbols_describe(cache, map, (uintptr_t)on_heap);
  g_autofree char *heap_expected = g_strdup_printf("0x%" PRIxPTR, (uintptr_t)on_heap);
  g_assert_cmpstr(heap_text, ==, heap_expected);
  g_autofree char *one = sxs__symbols_describe(cache, map, 1);
  g_assert_cmpstr(one, ==, "0x1");
  g_autofree char *no_map = sxs__symbols_describe(cache, NULL, (uintptr_t)main);
  g_autofree char *no_map_expected = g_strdup_printf("0x%" PRIxPTR, (uintptr_t)main);
  g_assert_cmpstr(no_map, ==, no_map_expected);
}

/* ---- synthetic and broken ELF files ---- */

typedef struct {
  char *root;
  SxsSymbolCache *cache;
} FileFixture;

static void file_setup(FileFixture *fx, gconstpointer data) {
  (void)data;
  fx->root = sxs_scratch_new("sxs-symbols");
  fx->cache = sxs__symbols_cache_new();
}

static void file_teardown(FileFixture *fx, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(fx->root);
  sxs__symbols_cache_free(fx->cache);
}

/* Writes bytes to root/name; returns the path. */
static char *write_file(FileFixture *fx, const char *name, const void *bytes, gsize len) {
  char *path = g_build_filename(fx->root, name, NULL);
  g_autoptr(GError) error = NULL;
  g_assert_true(g_file_set_contents(path, bytes, (gssize)len, &error));
  g_assert_no_error(error);
  return path;
}

/* Looks addr up in the file at path as if it were loaded at base. */
static int lookup_in(SxsSymbolCache *cache, const char *path, uintptr_t base, uintptr_t addr, const char **ret_symbol,
                     uintptr_t *ret_offset) {
  SxsModule module = {.path = path, .name = "fake", .base = base};
  return sxs__symbols_lookup(cache, &module, addr, ret_symbol, ret_offset);
}

/* Expects addr to resolve to symbol+offset, or to nothing when symbol is NULL. */
static void check_symbol(SxsSymbolCache *cache, const char *path, uintptr_t base, uintptr_t addr, const char *symbol,
                         uintptr_t offset) {
  const char *got = NULL;
  uintptr_t got_offset = 0;
  int r = lookup_in(cache, path, base, addr, &got, &got_offset);
  if (symbol == NULL) {
    g_assert_cmpint(r, ==, -ENOENT);
    return;
  }
  g_assert_cmpint(r, ==, 0);
  g_assert_cmpstr(got, ==, symbol);
  g_assert_cmphex(got_offset, ==, offset);
}

typedef struct {
  const char *name;
  uint64_t value;
  uint64_t size;
  unsigned char type;
  unsigned char bind;
  gboolean undefined;
} FakeSym;

/* Appends a symbol table (null symbol first) and its string table to out; returns their section
 * headers (link filled by the caller). */
static void append_symbols(GByteArray *out, const FakeSym *syms, gsize n, Elf64_Word type, Elf64_Shdr *ret_symtab,
                           Elf64_Shdr *ret_strtab) {
  g_autoptr(GByteArray) strtab = g_byte_array_new();
  g_byte_array_append(strtab, (const guint8 *)"", 1);
  g_autoptr(GByteArray) symtab = g_byte_array_new();
  Elf64_Sym null_sym = {0};
  g_byte_array_append(symtab, (const guint8 *)&null_sym, sizeof(null_sym));
  for (gsize i = 0; i < n; i++) {
    Elf64_Sym s = {
        .st_name = strtab->len,
        .st_info = ELF64_ST_INFO(syms[i].bind, syms[i].type),
        .st_shndx = syms[i].undefined ? SHN_UNDEF : 1,
        .st_value = syms[i].value,
        .st_size = syms[i].size,
    };
    g_byte_array_append(strtab, (const guint8 *)syms[i].name, strlen(syms[i].name) + 1);
    g_byte_array_append(symtab, (const guint8 *)&s, sizeof(s));
  }
  *ret_strtab = (Elf64_Shdr){.sh_type = SHT_STRTAB, .sh_offset = out->len, .sh_size = strtab->len};
  g_byte_array_append(out, strtab->data, strtab->len);
  while (out->len % 8 != 0)
    g_byte_array_append(out, (const guint8 *)"", 1);
  *ret_symtab =
      (Elf64_Shdr){.sh_type = type, .sh_offset = out->len, .sh_size = symtab->len, .sh_entsize = sizeof(Elf64_Sym)};
  g_byte_array_append(out, symtab->data, symtab->len);
}

/* A minimal 64-bit little-endian ELF file: header, then .symtab/.strtab and .dynsym/.dynstr
 * (each when given), then the section headers. */
static GByteArray *fake_elf(Elf64_Half e_type, const FakeSym *symtab, gsize n_symtab, const FakeSym *dynsym,
                            gsize n_dynsym) {
  GByteArray *out = g_byte_array_new();
  Elf64_Ehdr eh = {
      .e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
      .e_type = e_type,
      .e_machine = EM_X86_64,
      .e_version = EV_CURRENT,
      .e_ehsize = sizeof(Elf64_Ehdr),
      .e_shentsize = sizeof(Elf64_Shdr),
  };
  g_byte_array_append(out, (const guint8 *)&eh, sizeof(eh));

  Elf64_Shdr shdrs[5] = {{0}};
  guint n = 1;
  if (symtab != NULL) {
    append_symbols(out, symtab, n_symtab, SHT_SYMTAB, &shdrs[n], &shdrs[n + 1]);
    shdrs[n].sh_link = n + 1;
    n += 2;
  }
  if (dynsym != NULL) {
    append_symbols(out, dynsym, n_dynsym, SHT_DYNSYM, &shdrs[n], &shdrs[n + 1]);
    shdrs[n].sh_link = n + 1;
    n += 2;
  }
  while (out->len % 8 != 0)
    g_byte_array_append(out, (const guint8 *)"", 1);
  eh.e_shoff = out->len;
  eh.e_shnum = n;
  g_byte_array_append(out, (const guint8 *)shdrs, n * sizeof(Elf64_Shdr));
  memcpy(out->data, &eh, sizeof(eh));
  return out;
}

static Elf64_Shdr *fake_shdr(GByteArray *elf, guint index) {
  Elf64_Ehdr *eh = (Elf64_Ehdr *)elf->data;
  return (Elf64_Shdr *)(elf->data + eh->e_shoff) + index;
}

static const FakeSym fake_functions[] = {
    {"outer", 0x1000, 0x100, STT_FUNC, STB_GLOBAL, FALSE},
    {"inner", 0x1040, 0x10, STT_FUNC, STB_LOCAL, FALSE},
    {"alias_weak", 0x1200, 0x10, STT_FUNC, STB_WEAK, FALSE},
    {"alias_global", 0x1200, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"__underscored", 0x1300, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"plain", 0x1300, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"__impl", 0x1380, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"public", 0x1380, 0x10, STT_FUNC, STB_WEAK, FALSE},
    {"_one", 0x13c0, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"__two", 0x13c0, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"sized_zero", 0x1400, 0, STT_FUNC, STB_GLOBAL, FALSE},
    {"__memcpy_x", 0x1480, 0x10, STT_FUNC, STB_LOCAL, FALSE},
    {"__memmove_x", 0x1480, 0x10, STT_FUNC, STB_LOCAL, FALSE},
    {"local_name", 0x14c0, 0x10, STT_FUNC, STB_LOCAL, FALSE},
    {"__global_name", 0x14c0, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"__GI_thing", 0x1800, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"__libc_thing", 0x1800, 0x10, STT_FUNC, STB_LOCAL, FALSE},
    {"versioned@@V_1", 0x1840, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"@@V_2", 0x1880, 0x10, STT_FUNC, STB_GLOBAL, FALSE},
    {"data", 0x1500, 0x10, STT_OBJECT, STB_GLOBAL, FALSE},
    {"resolver", 0x1600, 0x10, STT_GNU_IFUNC, STB_GLOBAL, FALSE},
    {"imported", 0x1700, 0x10, STT_FUNC, STB_GLOBAL, TRUE},
};

static const FakeSym fake_exports[] = {
    {"exported", 0x1000, 0x8, STT_FUNC, STB_GLOBAL, FALSE},
};

static void test_elf_synthetic(FileFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(GByteArray) dyn =
      fake_elf(ET_DYN, fake_functions, G_N_ELEMENTS(fake_functions), fake_exports, G_N_ELEMENTS(fake_exports));
  g_autofree char *path = write_file(fx, "dyn.so", dyn->data, dyn->len);
  const uintptr_t base = 0x7f0000000000;

  /* .symtab wins over .dynsym; nested symbols give the innermost; the end is exclusive. */
  check_symbol(fx->cache, path, base, base + 0x1000, "outer", 0);
  check_symbol(fx->cache, path, base, base + 0x103f, "outer", 0x3f);
  check_symbol(fx->cache, path, base, base + 0x1045, "inner", 0x5);
  check_symbol(fx->cache, path, base, base + 0x1050, "outer", 0x50);
  check_symbol(fx->cache, path, base, base + 0x10ff, "outer", 0xff);
  check_symbol(fx->cache, path, base, base + 0x1100, NULL, 0);
  check_symbol(fx->cache, path, base, base + 0xfff, NULL, 0);
  /* Aliases: not a __GI_ one, the fewest leading underscores, global over weak over local, then
   * (as perf) the longest name; a version suffix is cut, a name that is only one is none. */
  check_symbol(fx->cache, path, base, base + 0x1205, "alias_global", 0x5);
  check_symbol(fx->cache, path, base, base + 0x1300, "plain", 0);
  check_symbol(fx->cache, path, base, base + 0x1381, "public", 1);
  check_symbol(fx->cache, path, base, base + 0x13c2, "_one", 2);
  check_symbol(fx->cache, path, base, base + 0x1483, "__memmove_x", 3);
  check_symbol(fx->cache, path, base, base + 0x14c4, "local_name", 4);
  check_symbol(fx->cache, path, base, base + 0x1805, "__libc_thing", 5);
  check_symbol(fx->cache, path, base, base + 0x1846, "versioned", 6);
  check_symbol(fx->cache, path, base, base + 0x1887, NULL, 0);
  /* Size 0, data, undefined: none of them names code; an ifunc does. */
  check_symbol(fx->cache, path, base, base + 0x1400, NULL, 0);
  check_symbol(fx->cache, path, base, base + 0x1505, NULL, 0);
  check_symbol(fx->cache, path, base, base + 0x1605, "resolver", 0x5);
  check_symbol(fx->cache, path, base, base + 0x1700, NULL, 0);
  /* Below the base (the subtraction wraps) and far above. */
  check_symbol(fx->cache, path, base, 0x1000, NULL, 0);
  check_symbol(fx->cache, path, base, UINTPTR_MAX, NULL, 0);

  /* The same file at another base shares the cache entry and its names. */
  const char *first = NULL, *second = NULL;
  uintptr_t offset = 0;
  g_assert_cmpint(lookup_in(fx->cache, path, base, base + 0x1000, &first, &offset), ==, 0);
  g_assert_cmpint(lookup_in(fx->cache, path, 0x10000, 0x11001, &second, &offset), ==, 0);
  g_assert_true(first == second);
  g_assert_cmphex(offset, ==, 1);

  /* Stripped: .dynsym alone. */
  g_autoptr(GByteArray) stripped = fake_elf(ET_DYN, NULL, 0, fake_exports, G_N_ELEMENTS(fake_exports));
  g_autofree char *stripped_path = write_file(fx, "stripped.so", stripped->data, stripped->len);
  check_symbol(fx->cache, stripped_path, base, base + 0x1007, "exported", 7);
  check_symbol(fx->cache, stripped_path, base, base + 0x1008, NULL, 0);

  /* ET_EXEC: symbol values are run-time addresses, whatever the base says. */
  g_autoptr(GByteArray) exec = fake_elf(ET_EXEC, fake_functions, G_N_ELEMENTS(fake_functions), NULL, 0);
  g_autofree char *exec_path = write_file(fx, "exec", exec->data, exec->len);
  check_symbol(fx->cache, exec_path, base, 0x1045, "inner", 5);

  /* Valid files without symbols: no symbol table at all, or no section headers at all. */
  g_autoptr(GByteArray) bare = fake_elf(ET_DYN, NULL, 0, NULL, 0);
  g_autofree char *bare_path = write_file(fx, "bare.so", bare->data, bare->len);
  check_symbol(fx->cache, bare_path, base, base + 0x1000, NULL, 0);
  ((Elf64_Ehdr *)bare->data)->e_shoff = 0;
  g_autofree char *sstripped_path = write_file(fx, "sstripped.so", bare->data, sizeof(Elf64_Ehdr));
  check_symbol(fx->cache, sstripped_path, base, base + 0x1000, NULL, 0);
}

/* Each broken variant of a good synthetic file gives -EINVAL and leaves the out-parameters alone. */
static void check_invalid(FileFixture *fx, const char *name, const GByteArray *elf, gsize len) {
  g_autofree char *path = write_file(fx, name, elf->data, len);
  const char *symbol = "untouched";
  uintptr_t offset = 42;
  g_assert_cmpint(lookup_in(fx->cache, path, 0, 0x1000, &symbol, &offset), ==, -EINVAL);
  g_assert_cmpstr(symbol, ==, "untouched");
  g_assert_cmpuint(offset, ==, 42);
}

static void test_elf_invalid(FileFixture *fx, gconstpointer data) {
  (void)data;
  const FakeSym one[] = {{"outer", 0x1000, 0x100, STT_FUNC, STB_GLOBAL, FALSE}};
  g_autoptr(GByteArray) good = fake_elf(ET_DYN, one, 1, NULL, 0);
  g_autofree char *good_path = write_file(fx, "good.so", good->data, good->len);
  check_symbol(fx->cache, good_path, 0, 0x1000, "outer", 0);

  /* Every truncation: the section headers are last, so each one cuts into them. */
  for (gsize len = 0; len < good->len; len++) {
    g_autofree char *name = g_strdup_printf("truncated-%zu", len);
    check_invalid(fx, name, good, len);
  }

  g_autoptr(GByteArray) bad = NULL;
#define SXS_TEST_DAMAGE(label, statement)                                                                              \
  do {                                                                                                                 \
    g_clear_pointer(&bad, g_byte_array_unref);                                                                         \
    bad = fake_elf(ET_DYN, one, 1, NULL, 0);                                                                           \
    Elf64_Ehdr *eh = (Elf64_Ehdr *)bad->data;                                                                          \
    Elf64_Shdr *symtab = fake_shdr(bad, 1);                                                                            \
    Elf64_Shdr *strtab = fake_shdr(bad, 2);                                                                            \
    Elf64_Sym *sym = (Elf64_Sym *)(bad->data + symtab->sh_offset) + 1;                                                 \
    (void)eh, (void)symtab, (void)strtab, (void)sym;                                                                   \
    statement;                                                                                                         \
    check_invalid(fx, label, bad, bad->len);                                                                           \
  } while (0)

  SXS_TEST_DAMAGE("magic", bad->data[EI_MAG1] = 'X');
  SXS_TEST_DAMAGE("class32", bad->data[EI_CLASS] = ELFCLASS32);
  SXS_TEST_DAMAGE("big-endian", bad->data[EI_DATA] = ELFDATA2MSB);
  SXS_TEST_DAMAGE("version", bad->data[EI_VERSION] = 0);
  SXS_TEST_DAMAGE("relocatable", eh->e_type = ET_REL);
  SXS_TEST_DAMAGE("shentsize", eh->e_shentsize = 32);
  SXS_TEST_DAMAGE("shoff-past-end", eh->e_shoff = bad->len);
  SXS_TEST_DAMAGE("shoff-huge", eh->e_shoff = UINT64_MAX - 8);
  SXS_TEST_DAMAGE("shnum-past-end", eh->e_shnum = 4);
  SXS_TEST_DAMAGE("extended-shnum-huge", (eh->e_shnum = 0, fake_shdr(bad, 0)->sh_size = UINT64_MAX / 8));
  SXS_TEST_DAMAGE("symtab-entsize", symtab->sh_entsize = 16);
  SXS_TEST_DAMAGE("symtab-size", symtab->sh_size += 1);
  SXS_TEST_DAMAGE("symtab-offset", symtab->sh_offset = UINT64_MAX - 16);
  SXS_TEST_DAMAGE("symtab-past-end", symtab->sh_size += 64 * sizeof(Elf64_Sym));
  SXS_TEST_DAMAGE("link-out-of-range", symtab->sh_link = 99);
  SXS_TEST_DAMAGE("link-not-strtab", symtab->sh_link = 1);
  SXS_TEST_DAMAGE("strtab-past-end", strtab->sh_size = bad->len);
  SXS_TEST_DAMAGE("name-outside-strtab", sym->st_name = strtab->sh_size);
  SXS_TEST_DAMAGE("name-unterminated", bad->data[strtab->sh_offset + strtab->sh_size - 1] = 'x');
  SXS_TEST_DAMAGE("symbol-wraps", sym->st_value = UINT64_MAX - 4);
#undef SXS_TEST_DAMAGE

  /* Random bytes, an empty file, a folder, a missing file, a name that is not a file. */
  g_autoptr(GRand) rand = g_rand_new_with_seed(20240611);
  guint8 noise[4096];
  for (gsize i = 0; i < sizeof(noise); i++)
    noise[i] = (guint8)g_rand_int_range(rand, 0, 256);
  g_autofree char *noise_path = write_file(fx, "noise.so", noise, sizeof(noise));
  const char *symbol = "untouched";
  uintptr_t offset = 42;
  g_assert_cmpint(lookup_in(fx->cache, noise_path, 0, 0x1000, &symbol, &offset), ==, -EINVAL);
  g_autofree char *empty_path = write_file(fx, "empty.so", "", 0);
  g_assert_cmpint(lookup_in(fx->cache, empty_path, 0, 0x1000, &symbol, &offset), ==, -EINVAL);
  g_assert_cmpint(lookup_in(fx->cache, fx->root, 0, 0x1000, &symbol, &offset), ==, -EINVAL);
  g_autofree char *missing = g_build_filename(fx->root, "missing.so", NULL);
  g_assert_cmpint(lookup_in(fx->cache, missing, 0, 0x1000, &symbol, &offset), ==, -ENOENT);
  g_assert_cmpint(lookup_in(fx->cache, "[vdso]", 0, 0x1000, &symbol, &offset), ==, -ENOENT);
  g_assert_cmpstr(symbol, ==, "untouched");
  g_assert_cmpuint(offset, ==, 42);

  /* A failure is remembered: the file is not read again, even once it has become valid. */
  g_assert_true(g_file_set_contents(noise_path, (const char *)good->data, good->len, NULL));
  g_assert_cmpint(lookup_in(fx->cache, noise_path, 0, 0x1000, &symbol, &offset), ==, -EINVAL);

  /* NULL arguments. */
  SxsModule module = {.path = good_path, .name = "good.so", .base = 0};
  g_assert_cmpint(sxs__symbols_lookup(NULL, &module, 0x1000, &symbol, &offset), ==, -EINVAL);
  g_assert_cmpint(sxs__symbols_lookup(fx->cache, NULL, 0x1000, &symbol, &offset), ==, -EINVAL);
  g_assert_cmpint(sxs__symbols_lookup(fx->cache, &module, 0x1000, NULL, &offset), ==, -EINVAL);
  g_assert_cmpint(sxs__symbols_lookup(fx->cache, &module, 0x1000, &symbol, NULL), ==, -EINVAL);
  g_assert_cmpstr(symbol, ==, "untouched");
  sxs__symbols_cache_free(NULL);
}

/* Copies of a real library: truncated, and with random bytes written over its headers. */
static void test_elf_damaged_library(FileFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  uintptr_t qsort_addr = libc_symbol("qsort");
  const SxsModule *libc = sxs__modmap_find(map, qsort_addr);
  g_assert_nonnull(libc);

  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(libc->path, &bytes, &len, NULL));
  g_autofree char *copy = write_file(fx, "libc-copy.so", bytes, len);
  check_symbol(fx->cache, copy, libc->base, qsort_addr + 1, "qsort", 1);

  /* The section headers are at the end of the file: any cut loses them. */
  const gsize cuts[] = {1, 16, sizeof(Elf64_Ehdr), 4096, len / 2, len - sizeof(Elf64_Shdr), len - 1};
  for (gsize i = 0; i < G_N_ELEMENTS(cuts); i++) {
    g_autofree char *name = g_strdup_printf("libc-cut-%zu.so", cuts[i]);
    g_autofree char *path = write_file(fx, name, bytes, cuts[i]);
    const char *symbol = "untouched";
    uintptr_t offset = 42;
    g_assert_cmpint(lookup_in(fx->cache, path, libc->base, qsort_addr, &symbol, &offset), ==, -EINVAL);
    g_assert_cmpstr(symbol, ==, "untouched");
  }

  /* Random damage to the ELF header and the section header table of a smaller library: whatever
   * it hits, the answer is a symbol, none, or -EINVAL, and never a crash (ASan checks reads). */
  g_autofree char *small = NULL;
  gsize small_len = 0;
  g_assert_true(g_file_get_contents("/lib/x86_64-linux-gnu/libresolv.so.2", &small, &small_len, NULL));
  g_assert_cmpuint(small_len, >, sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  memcpy(&eh, small, sizeof(eh));
  g_assert_cmpuint(eh.e_shoff + (guint64)eh.e_shnum * sizeof(Elf64_Shdr), <=, small_len);
  g_autoptr(GRand) rand = g_rand_new_with_seed(7);
  guint outcomes[3] = {0};
  for (guint round = 0; round < 300; round++) {
    g_autofree char *damaged = g_memdup2(small, small_len);
    guint hits = g_rand_int_range(rand, 1, 5);
    for (guint h = 0; h < hits; h++) {
      gsize at = g_rand_boolean(rand) ? (gsize)g_rand_int_range(rand, 0, sizeof(Elf64_Ehdr))
                                      : eh.e_shoff + g_rand_int_range(rand, 0, eh.e_shnum * sizeof(Elf64_Shdr));
      damaged[at] = (char)g_rand_int_range(rand, 0, 256);
    }
    g_autofree char *name = g_strdup_printf("damaged-%u.so", round);
    g_autofree char *path = write_file(fx, name, damaged, small_len);
    const char *symbol = NULL;
    uintptr_t offset = 0;
    int r = lookup_in(fx->cache, path, 0, 0x3441, &symbol, &offset);
    g_assert_true(r == 0 || r == -ENOENT || r == -EINVAL);
    outcomes[r == 0 ? 0 : r == -ENOENT ? 1 : 2]++;
    g_assert_cmpint(g_remove(path), ==, 0);
  }
  g_test_message("damaged libresolv: %u found, %u none, %u invalid", outcomes[0], outcomes[1], outcomes[2]);
  g_assert_cmpuint(outcomes[2], >, 0);
}

/* ---- concurrency ---- */

typedef struct {
  SxsSymbolCache *cache;
  const SxsModuleMap *map;
  const uintptr_t *addrs;
  char *const *expected;
  gsize n;
  gint mismatches;
} DescribeJob;

static gpointer describe_worker(gpointer data) {
  DescribeJob *job = data;
  for (guint round = 0; round < 200; round++) {
    for (gsize i = 0; i < job->n; i++) {
      /* Each thread walks the list from a different place, so first reads of a file collide. */
      gsize k = (i + round) % job->n;
      g_autofree char *text = sxs__symbols_describe(job->cache, job->map, job->addrs[k]);
      if (g_strcmp0(text, job->expected[k]) != 0)
        g_atomic_int_inc(&job->mismatches);
    }
  }
  return NULL;
}

static void test_describe_threads(void) {
  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  g_autofree int *on_heap = g_new0(int, 1);
  const uintptr_t addrs[] = {
      (uintptr_t)main,
      (uintptr_t)symbols_test_function + 1,
      libc_symbol("qsort") + 1,
      libc_symbol("getpid"),
      (uintptr_t)g_main_context_new,
      (uintptr_t)g_hash_table_insert + 3,
      (uintptr_t)sxs__symbols_lookup,
      (uintptr_t)on_heap,
      1,
  };
  const gsize n = G_N_ELEMENTS(addrs);

  /* The answers of one thread alone, with a cache of its own. */
  g_auto(GStrv) expected = g_new0(char *, n + 1);
  {
    g_autoptr(SxsSymbolCache) alone = sxs__symbols_cache_new();
    for (gsize i = 0; i < n; i++)
      expected[i] = sxs__symbols_describe(alone, map, addrs[i]);
  }
  g_assert_cmpstr(expected[1], ==, "test_symbols!symbols_test_function+0x1");
  g_assert_cmpstr(expected[2], ==, "libc.so.6!qsort+0x1");
  g_assert_cmpstr(expected[4], ==, "libglib-2.0.so.0!g_main_context_new+0x0");
  g_assert_cmpstr(expected[5], ==, "libglib-2.0.so.0!g_hash_table_insert+0x3");

  g_autoptr(SxsSymbolCache) shared = sxs__symbols_cache_new();
  DescribeJob job = {.cache = shared, .map = map, .addrs = addrs, .expected = expected, .n = n};
  GThread *threads[4];
  for (guint t = 0; t < G_N_ELEMENTS(threads); t++)
    threads[t] = g_thread_new("describe", describe_worker, &job);
  for (guint t = 0; t < G_N_ELEMENTS(threads); t++)
    g_thread_join(threads[t]);
  g_assert_cmpint(g_atomic_int_get(&job.mismatches), ==, 0);
}

/* A stripped copy of this binary (objcopy --strip-all) keeps names for its entry frames: `main`,
 * whose address _start hands to __libc_start_main, and `_start` itself; nothing else has one. */
static void test_stripped_entry(FileFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *exe = self_exe();
  g_autofree char *stripped = g_build_filename(fx->root, "test_symbols", NULL);
  const char *argv[] = {"objcopy", "--strip-all", exe, stripped, NULL};
  gint status = -1;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error(error);
  g_assert_cmpint(status, ==, 0);

  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  const SxsModule *self = sxs__modmap_find(map, (uintptr_t)main);
  g_assert_nonnull(self);
  SxsModule copy = *self;
  copy.path = stripped;
  const char *symbol = NULL;
  uintptr_t offset = 0;
  g_assert_cmpint(sxs__symbols_lookup(fx->cache, &copy, (uintptr_t)main + 5, &symbol, &offset), ==, 0);
  g_assert_cmpstr(symbol, ==, "main");
  g_assert_cmphex(offset, ==, 5);
  uintptr_t entry = getauxval(AT_ENTRY);
  g_assert_cmpint(sxs__symbols_lookup(fx->cache, &copy, entry + 0x20, &symbol, &offset), ==, 0);
  g_assert_cmpstr(symbol, ==, "_start");
  g_assert_cmphex(offset, ==, 0x20);
  /* Every other function of the stripped file has no name. */
  g_assert_cmpint(sxs__symbols_lookup(fx->cache, &copy, (uintptr_t)symbols_test_function, &symbol, &offset), ==,
                  -ENOENT);
  /* The unstripped binary has its own main, of its own size. */
  g_assert_cmpint(sxs__symbols_lookup(fx->cache, self, (uintptr_t)main + 5, &symbol, &offset), ==, 0);
  g_assert_cmpstr(symbol, ==, "main");
}

/* ---- debug files: libraries built the ways distributions ship them ---- */

/* The libraries of tests/unit/data/make_debug_libs.sh, built into a fresh folder for each test. */
typedef struct {
  char *root;                             /* scratch folder */
  char *libs;                             /* root/libs: what the script built */
  char *debug;                            /* root/debug: a debug root ([symbols] debug_dirs=) */
  uint64_t hidden_worker, exported_entry; /* link-time addresses (nm) */
  char *build_id;
} DebugFixture;

static uint64_t nm_address(const char *path, const char *name) {
  const char *argv[] = {"nm", "--defined-only", path, NULL};
  g_autofree char *out = NULL;
  gint status = -1;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error(error);
  g_assert_cmpint(status, ==, 0);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    g_auto(GStrv) f = g_strsplit(lines[i], " ", 3);
    if (g_strv_length(f) == 3 && strcmp(f[2], name) == 0)
      return g_ascii_strtoull(f[0], NULL, 16);
  }
  g_assert_not_reached();
  return 0;
}

static void debug_setup(DebugFixture *fx, gconstpointer data) {
  (void)data;
  fx->root = sxs_scratch_new("sxs-debug");
  fx->libs = g_build_filename(fx->root, "libs", NULL);
  fx->debug = g_build_filename(fx->root, "debug", NULL);
  g_assert_cmpint(g_mkdir_with_parents(fx->debug, 0755), ==, 0);
  const char *source = g_getenv("SXS_SOURCE_DIR");
  g_assert_nonnull(source);
  g_autofree char *script = g_build_filename(source, "tests", "unit", "data", "make_debug_libs.sh", NULL);
  const char *argv[] = {"bash", script, fx->libs, NULL};
  g_autofree char *err = NULL;
  gint status = -1;
  g_autoptr(GError) error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err, &status, &error));
  g_assert_no_error(error);
  if (status != 0)
    g_test_message("make_debug_libs.sh: %s", err);
  g_assert_cmpint(status, ==, 0);
  g_autofree char *full = g_build_filename(fx->libs, "full.so", NULL);
  fx->hidden_worker = nm_address(full, "hidden_worker");
  fx->exported_entry = nm_address(full, "exported_entry");
  g_autofree char *id_path = g_build_filename(fx->libs, "build-id", NULL);
  g_assert_true(g_file_get_contents(id_path, &fx->build_id, NULL, NULL));
  g_strstrip(fx->build_id);
  g_assert_cmpuint(strlen(fx->build_id), ==, 40);
}

static void debug_teardown(DebugFixture *fx, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(fx->root);
  g_free(fx->libs);
  g_free(fx->debug);
  g_free(fx->build_id);
}

/* Copies src to dst, making dst's folder. */
static void copy_file(const char *src, const char *dst) {
  g_autofree char *dir = g_path_get_dirname(dst);
  g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(src, &bytes, &len, NULL));
  g_assert_true(g_file_set_contents(dst, bytes, (gssize)len, NULL));
}

static char *fixture_lib(const DebugFixture *fx, const char *name) {
  return g_build_filename(fx->libs, name, NULL);
}

/* The name hidden_worker gets in the library at path (NULL: none), loaded at an arbitrary base. */
static void check_worker(SxsSymbolCache *cache, const DebugFixture *fx, const char *path, const char *expected) {
  const uintptr_t base = 0x7f1200000000;
  check_symbol(cache, path, base, base + fx->hidden_worker + 3, expected, 3);
  /* Exported names come from the library's own .dynsym whatever else is found. */
  check_symbol(cache, path, base, base + fx->exported_entry, "exported_entry", 0);
}

/* The unstripped library: its own .symtab, no debug file looked for. */
static void test_debug_own_symtab(DebugFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  g_autofree char *full = fixture_lib(fx, "full.so");
  check_worker(cache, fx, full, "hidden_worker");
  g_autofree char *debug_path = NULL;
  g_assert_cmpint(sxs__symbols_source(cache, full, &debug_path), ==, SXS_SYMBOLS_SOURCE_SYMTAB);
  g_assert_null(debug_path);
}

/* MiniDebugInfo: the stripped library carries its local functions in .gnu_debugdata. */
static void test_debug_minidebuginfo(DebugFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  g_autofree char *mini = fixture_lib(fx, "mini.so");
  check_worker(cache, fx, mini, "hidden_worker");
  g_assert_cmpint(sxs__symbols_source(cache, mini, NULL), ==, SXS_SYMBOLS_SOURCE_DEBUGDATA);
  /* Stripped without it: .dynsym alone, the local function unnamed. */
  g_autofree char *stripped = fixture_lib(fx, "stripped.so");
  check_worker(cache, fx, stripped, NULL);
  g_assert_cmpint(sxs__symbols_source(cache, stripped, NULL), ==, SXS_SYMBOLS_SOURCE_DYNSYM);
}

/* The build-ID file under a debug root: <root>/.build-id/xx/yyyy.debug. */
static void test_debug_build_id(DebugFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *full_debug = fixture_lib(fx, "full.debug");
  g_autofree char *place = g_strdup_printf("%s/.build-id/%.2s/%s.debug", fx->debug, fx->build_id, fx->build_id + 2);
  copy_file(full_debug, place);
  const char *dirs[] = {fx->debug, NULL};
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new_full(dirs);
  g_autofree char *stripped = fixture_lib(fx, "stripped.so");
  check_worker(cache, fx, stripped, "hidden_worker");
  g_autofree char *debug_path = NULL;
  g_assert_cmpint(sxs__symbols_source(cache, stripped, &debug_path), ==, SXS_SYMBOLS_SOURCE_BUILD_ID);
  g_assert_cmpstr(debug_path, ==, place);
}

/* A debug file of another build is refused, by build ID and by CRC. */
static void test_debug_wrong_build(DebugFixture *fx, gconstpointer data) {
  (void)data;
  /* Another build's debug file where this build's belongs: same code, other ID. */
  g_autofree char *other_debug = fixture_lib(fx, "other.debug");
  g_autofree char *place = g_strdup_printf("%s/.build-id/%.2s/%s.debug", fx->debug, fx->build_id, fx->build_id + 2);
  copy_file(other_debug, place);
  const char *dirs[] = {fx->debug, NULL};
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new_full(dirs);
  g_autofree char *stripped = fixture_lib(fx, "stripped.so");
  check_worker(cache, fx, stripped, NULL);
  g_assert_cmpint(sxs__symbols_source(cache, stripped, NULL), ==, SXS_SYMBOLS_SOURCE_DYNSYM);

  /* Without build IDs, a debug link's file is matched by the CRC the link records: the right one
   * is used, one changed after the link was made (one byte more) is not. */
  g_autofree char *noid_full = fixture_lib(fx, "noid-full.so");
  uint64_t worker = nm_address(noid_full, "hidden_worker");
  g_autofree char *noid_src = fixture_lib(fx, "noid.so");
  g_autofree char *debug_src = fixture_lib(fx, "noid.debug");
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true(g_file_get_contents(debug_src, &bytes, &len, NULL));
  for (int changed = 0; changed < 2; changed++) {
    g_autofree char *dir = g_strdup_printf("%s/crc%d", fx->root, changed);
    g_autofree char *lib = g_build_filename(dir, "noid.so", NULL);
    copy_file(noid_src, lib);
    g_autofree char *beside = g_build_filename(dir, "noid.debug", NULL);
    g_autofree char *text = g_memdup2(bytes, len + 1);
    text[len] = '\n';
    g_assert_true(g_file_set_contents(beside, text, (gssize)(len + (gsize)changed), NULL));
    g_autoptr(SxsSymbolCache) plain = sxs__symbols_cache_new();
    const uintptr_t base = 0x7f5600000000;
    check_symbol(plain, lib, base, base + worker + 2, changed ? NULL : "hidden_worker", 2);
    g_assert_cmpint(sxs__symbols_source(plain, lib, NULL), ==,
                    changed ? SXS_SYMBOLS_SOURCE_DYNSYM : SXS_SYMBOLS_SOURCE_DEBUGLINK);
  }
}

/* The .gnu_debuglink file in each of its three places: beside the library, in .debug/ beside it,
 * under a debug root followed by the library's folder. */
static void test_debug_link(DebugFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *linked_src = fixture_lib(fx, "linked.so");
  g_autofree char *debug_src = fixture_lib(fx, "linked.debug");
  const char *dirs[] = {fx->debug, NULL};
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new_full(dirs);
  for (int where = 0; where < 3; where++) {
    g_autofree char *dir = g_strdup_printf("%s/place%d", fx->root, where);
    g_autofree char *lib = g_build_filename(dir, "linked.so", NULL);
    copy_file(linked_src, lib);
    g_autofree char *place = where == 0   ? g_build_filename(dir, "linked.debug", NULL)
                             : where == 1 ? g_build_filename(dir, ".debug", "linked.debug", NULL)
                                          : g_strconcat(fx->debug, dir, "/linked.debug", NULL);
    copy_file(debug_src, place);
    check_worker(cache, fx, lib, "hidden_worker");
    g_autofree char *debug_path = NULL;
    g_assert_cmpint(sxs__symbols_source(cache, lib, &debug_path), ==, SXS_SYMBOLS_SOURCE_DEBUGLINK);
    g_assert_cmpstr(debug_path, ==, place);
  }
  /* Without the debug root, the third place is not looked in. */
  g_autoptr(SxsSymbolCache) plain = sxs__symbols_cache_new();
  g_autofree char *third = g_strdup_printf("%s/place2/linked.so", fx->root);
  check_worker(plain, fx, third, NULL);
}

/* PLT entries: foo@plt for the library's call to getpid through its PLT. */
static void test_debug_plt(DebugFixture *fx, gconstpointer data) {
  (void)data;
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  g_autofree char *lib = fixture_lib(fx, "plt.so");
  uint64_t sec = section_address(lib, ".plt.sec");
  uint64_t entry = sec ? sec : section_address(lib, ".plt") + 16;
  g_assert_cmphex(entry, >, 16);
  const uintptr_t base = 0x7f3400000000;
  check_symbol(cache, lib, base, base + entry + 4, "getpid@plt", 4);
  /* PLT0, the resolver's entry, is nobody's. */
  if (!sec)
    check_symbol(cache, lib, base, base + entry - 8, NULL, 0);
}

/* ---- the perf map of code generated outside any module ---- */

static void test_perf_map(void) {
  /* Code of our own in anonymous executable memory, as a JIT makes it: mov $42,%eax; ret. */
  static const uint8_t code[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uint8_t *mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true(mem != MAP_FAILED);
  memcpy(mem, code, sizeof code);
  memcpy(mem + 64, code, sizeof code);
  g_assert_cmpint(mprotect(mem, page, PROT_READ | PROT_EXEC), ==, 0);
  int (*answer)(void) = (int (*)(void))(uintptr_t)mem;
  g_assert_cmpint(answer(), ==, 42);

  g_autofree char *path = g_strdup_printf("/tmp/perf-%ld.map", (long)getpid());
  g_autofree char *line = g_strdup_printf("%" PRIxPTR " 6 jitted::answer(int)\n", (uintptr_t)mem);
  g_assert_true(g_file_set_contents(path, line, -1, NULL));

  g_autoptr(SxsModuleMap) map = sxs__modmap_new();
  g_assert_null(sxs__modmap_find(map, (uintptr_t)mem));
  g_autoptr(SxsSymbolCache) cache = sxs__symbols_cache_new();
  g_autofree char *first = sxs__symbols_describe(cache, map, (uintptr_t)mem + 1);
  g_assert_cmpstr(first, ==, "[perf-map]!jitted::answer(int)+0x1");
  /* Past the entry's size: not that entry. */
  g_autofree char *past = sxs__symbols_describe(cache, map, (uintptr_t)mem + 6);
  g_autofree char *past_expected = g_strdup_printf("0x%" PRIxPTR, (uintptr_t)mem + 6);
  g_assert_cmpstr(past, ==, past_expected);

  /* The generator writes more as it goes: a miss reads the map again. The first name stays valid. */
  const char *kept = NULL;
  uintptr_t offset = 0;
  g_assert_cmpint(sxs__symbols_lookup_perf_map(cache, (uintptr_t)mem, &kept, &offset), ==, 0);
  g_autofree char *more = g_strdup_printf("%s%" PRIxPTR " 6 second\n", line, (uintptr_t)mem + 64);
  g_assert_true(g_file_set_contents(path, more, -1, NULL));
  g_usleep(100000); /* a changed map is read again at most every 50 ms */
  g_autofree char *second = sxs__symbols_describe(cache, map, (uintptr_t)mem + 64 + 5);
  g_assert_cmpstr(second, ==, "[perf-map]!second+0x5");
  g_assert_cmpstr(kept, ==, "jitted::answer(int)");

  g_assert_cmpint(g_unlink(path), ==, 0);
  munmap(mem, page);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/stitch/symbols/map/finds-code", test_map_finds_code);
  g_test_add_func("/stitch/symbols/map/rejects-data", test_map_rejects_data);
  g_test_add_func("/stitch/symbols/map/refresh", test_map_refresh);
  g_test_add_func("/stitch/symbols/describe/self", test_describe_self);
  g_test_add_func("/stitch/symbols/describe/libc", test_describe_libc);
  g_test_add_func("/stitch/symbols/describe/outside-symbols", test_describe_outside_symbols);
  g_test_add("/stitch/symbols/elf/synthetic", FileFixture, NULL, file_setup, test_elf_synthetic, file_teardown);
  g_test_add("/stitch/symbols/elf/invalid", FileFixture, NULL, file_setup, test_elf_invalid, file_teardown);
  g_test_add("/stitch/symbols/elf/stripped-entry", FileFixture, NULL, file_setup, test_stripped_entry, file_teardown);
  g_test_add("/stitch/symbols/elf/damaged-library", FileFixture, NULL, file_setup, test_elf_damaged_library,
             file_teardown);
  g_test_add("/stitch/symbols/debug/own-symtab", DebugFixture, NULL, debug_setup, test_debug_own_symtab,
             debug_teardown);
  g_test_add("/stitch/symbols/debug/minidebuginfo", DebugFixture, NULL, debug_setup, test_debug_minidebuginfo,
             debug_teardown);
  g_test_add("/stitch/symbols/debug/build-id", DebugFixture, NULL, debug_setup, test_debug_build_id, debug_teardown);
  g_test_add("/stitch/symbols/debug/wrong-build", DebugFixture, NULL, debug_setup, test_debug_wrong_build,
             debug_teardown);
  g_test_add("/stitch/symbols/debug/debuglink", DebugFixture, NULL, debug_setup, test_debug_link, debug_teardown);
  g_test_add("/stitch/symbols/debug/plt", DebugFixture, NULL, debug_setup, test_debug_plt, debug_teardown);
  g_test_add_func("/stitch/symbols/perf-map", test_perf_map);
  g_test_add_func("/stitch/symbols/describe/threads", test_describe_threads);

  return g_test_run();
}
