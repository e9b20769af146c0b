/* Native symbolization: which ELF function symbol of a module's file covers an address. It does
 * not unwind, does not know JIT-compiled code (the stitcher asks the runtimes for that), and reads
 * no DWARF. The module comes from the module map (sxs_modmap.c).
 *
 *   SxsModule (sxs__modmap_find)          SxsSymbolCache (GMutex)
 *     path, name, base ---------+           path -> SxsSymbolFile, read once:
 *                               |             .symtab, else .dynsym, functions only,
 *                               |             sorted by link-time start
 *                               |           +-----------------------------+
 *                               |           | 0x3fc80 +834  qsort_r       |
 *                               |           | 0x3ffd0 +8    qsort   <-----+-- addr - base (ET_DYN)
 *                               |           | ...                         |
 *                               v           +-----------------------------+
 *   lookup(module, addr) -> "qsort", +0x4
 *   describe(addr): "libc.so.6!qsort+0x4" | "libc.so.6+0x26dd0" (no symbol) | "0x55d1e8a2c0" (no module)
 *
 * The symbol cache is for the thread that turns recorded addresses into names later, never for a
 * signal handler (it allocates, reads files and takes a lock).
 */
#include "sxs_symbols.h"
#include "sxs_search.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One function symbol, at its link-time address. */
typedef struct {
  uint64_t start;
  uint64_t size;
  uint64_t reach; /* the largest start + size of this symbol and every one sorted before it, so a
                   * search for a symbol nested in another knows when to stop looking back */
  const char *name;
} SxsSymbol;

/* A module file's symbols, read once. */
typedef struct {
  int error;        /* 0, or why the file gave no symbols (-EINVAL, -ENOMEM, -errno of open) */
  gboolean is_exec; /* ET_EXEC: the values are run-time addresses already */
  SxsSymbol *symbols;
  guint n_symbols;
  GStringChunk *names; /* the symbols' names; NULL when there are none */
} SxsSymbolFile;

struct SxsSymbolCache {
  GMutex lock;
  GHashTable *files; /* file path (owned) -> SxsSymbolFile (owned); guarded by lock; entries are
                      * never removed before the cache is freed, so names handed out stay valid */
};

static void symbol_file_free(gpointer data) {
  SxsSymbolFile *file = data;
  g_free(file->symbols);
  if (file->names != NULL)
    g_string_chunk_free(file->names);
  g_free(file);
}

SxsSymbolCache *sxs__symbols_cache_new(void) {
  SxsSymbolCache *cache = g_new0(SxsSymbolCache, 1);
  g_mutex_init(&cache->lock);
  cache->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, symbol_file_free);
  return cache;
}

void sxs__symbols_cache_free(SxsSymbolCache *cache) {
  if (cache == NULL)
    return;
  g_hash_table_destroy(cache->files);
  g_mutex_clear(&cache->lock);
  g_free(cache);
}

/* TRUE when [off, off + len) lies inside a file of file_size bytes (no overflow). */
static gboolean elf_in_file(uint64_t off, uint64_t len, uint64_t file_size) {
  return off <= file_size && len <= file_size - off;
}

/* Reads exactly len bytes at off; a short read (the file shrank) is an error. */
static gboolean elf_pread(int fd, void *buf, size_t len, uint64_t off) {
  char *p = buf;
  while (len > 0) {
    ssize_t n = pread(fd, p, len, (off_t)off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    p += n;
    off += (uint64_t)n;
    len -= (size_t)n;
  }
  return TRUE;
}

/* A section's bytes in a new buffer (g_free), or NULL with *ret_error set. The caller has checked
 * that the section lies inside the file, so the size is bounded by the file's. */
static void *elf_read_section(int fd, const Elf64_Shdr *sh, int *ret_error) {
  void *buf = g_try_malloc(MAX(sh->sh_size, 1));
  if (buf == NULL) {
    *ret_error = -ENOMEM;
    return NULL;
  }
  if (!elf_pread(fd, buf, sh->sh_size, sh->sh_offset)) {
    g_free(buf);
    *ret_error = -EINVAL;
    return NULL;
  }
  return buf;
}

/* A symbol table section and its string table, both inside the file and well-formed. */
static gboolean elf_symtab_valid(const Elf64_Shdr *shdrs, uint64_t shnum, const Elf64_Shdr *symtab,
                                 uint64_t file_size) {
  if (symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_size % sizeof(Elf64_Sym) != 0 ||
      !elf_in_file(symtab->sh_offset, symtab->sh_size, file_size) || symtab->sh_link >= shnum)
    return FALSE;
  const Elf64_Shdr *strtab = &shdrs[symtab->sh_link];
  return strtab->sh_type == SHT_STRTAB && elf_in_file(strtab->sh_offset, strtab->sh_size, file_size);
}

/* Alias preference at one address, after the fewest leading underscores: global, then weak, then
 * local. */
static int symbol_binding_rank(unsigned char info) {
  switch (ELF64_ST_BIND(info)) {
  case STB_GLOBAL: return 0;
  case STB_WEAK: return 1;
  default: return 2;
  }
}

/* A function symbol while the table is read: name still points into the string table. */
typedef struct {
  SxsSymbol symbol;
  int rank;
} SxsSymbolCandidate;

static int symbol_candidate_compare(const void *a, const void *b) {
  const SxsSymbolCandidate *x = a, *y = b;
  if (x->symbol.start != y->symbol.start)
    return x->symbol.start < y->symbol.start ? -1 : 1;
  /* glibc's public names are often weak aliases of global __names (getpid of __getpid). */
  size_t x_under = strspn(x->symbol.name, "_"), y_under = strspn(y->symbol.name, "_");
  if (x_under != y_under)
    return x_under < y_under ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank - y->rank;
  if (x->symbol.size != y->symbol.size)
    return x->symbol.size > y->symbol.size ? -1 : 1;
  return strcmp(x->symbol.name, y->symbol.name);
}

/* Collects the function symbols of a symbol table into file: sorted, one per address, names
 * copied. Returns 0 or -EINVAL for a name outside the string table or a symbol past 2^64. */
static int symbol_file_fill(SxsSymbolFile *file, const Elf64_Sym *syms, size_t n_syms, const char *strtab,
                            uint64_t strtab_size) {
  g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(SxsSymbolCandidate));

  for (size_t i = 0; i < n_syms; i++) {
    const Elf64_Sym *sym = &syms[i];
    unsigned char type = ELF64_ST_TYPE(sym->st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym->st_size == 0 || sym->st_shndx == SHN_UNDEF)
      continue;
    if (sym->st_name >= strtab_size || memchr(strtab + sym->st_name, '\0', strtab_size - sym->st_name) == NULL)
      return -EINVAL;
    if (sym->st_value > UINT64_MAX - sym->st_size)
      return -EINVAL;
    if (strtab[sym->st_name] == '\0')
      continue;
    SxsSymbolCandidate c = {
        .symbol = {.start = sym->st_value, .size = sym->st_size, .name = strtab + sym->st_name},
        .rank = symbol_binding_rank(sym->st_info),
    };
    g_array_append_val(found, c);
  }
  if (found->len == 0)
    return 0;
  g_array_sort(found, symbol_candidate_compare);

  file->names = g_string_chunk_new(4096);
  file->symbols = g_new(SxsSymbol, found->len);
  uint64_t reach = 0;
  for (guint i = 0; i < found->len; i++) {
    const SxsSymbol *s = &g_array_index(found, SxsSymbolCandidate, i).symbol;
    if (file->n_symbols > 0 && file->symbols[file->n_symbols - 1].start == s->start)
      continue; /* an alias the sort ranked lower */
    reach = MAX(reach, s->start + s->size);
    file->symbols[file->n_symbols++] = (SxsSymbol){
        .start = s->start,
        .size = s->size,
        .reach = reach,
        .name = g_string_chunk_insert(file->names, s->name),
    };
  }
  return 0;
}

/* Reads the function symbols of the ELF file open at fd into file. Every offset and size read
 * from the file is checked against its size before use. Returns 0 (also for a valid file without
 * symbols), -EINVAL or -ENOMEM. */
static int symbol_file_read(SxsSymbolFile *file, int fd) {
  struct stat st;
  if (fstat(fd, &st) < 0)
    return -errno;
  if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
    return -EINVAL;
  uint64_t file_size = (uint64_t)st.st_size;

  Elf64_Ehdr eh;
  if (!elf_pread(fd, &eh, sizeof(eh), 0))
    return -EINVAL;
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_ident[EI_VERSION] != EV_CURRENT)
    return -EINVAL;
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    return -EINVAL;
  file->is_exec = eh.e_type == ET_EXEC;
  if (eh.e_shoff == 0)
    return 0; /* no section headers at all (sstrip): valid, no symbols */
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || !elf_in_file(eh.e_shoff, sizeof(Elf64_Shdr), file_size))
    return -EINVAL;

  /* With 0xff00 sections or more, e_shnum is 0 and section 0's sh_size holds the count. */
  uint64_t shnum = eh.e_shnum;
  if (shnum == 0) {
    Elf64_Shdr first;
    if (!elf_pread(fd, &first, sizeof(first), eh.e_shoff))
      return -EINVAL;
    shnum = first.sh_size;
  }
  if (shnum == 0 || shnum > file_size / sizeof(Elf64_Shdr) ||
      !elf_in_file(eh.e_shoff, shnum * sizeof(Elf64_Shdr), file_size))
    return -EINVAL;
  g_autofree Elf64_Shdr *shdrs = g_try_new(Elf64_Shdr, shnum);
  if (shdrs == NULL)
    return -ENOMEM;
  if (!elf_pread(fd, shdrs, shnum * sizeof(Elf64_Shdr), eh.e_shoff))
    return -EINVAL;

  /* The full table of an unstripped file, else the exported one every shared object keeps. */
  const Elf64_Shdr *symtab = NULL;
  for (uint64_t i = 0; i < shnum && symtab == NULL; i++)
    if (shdrs[i].sh_type == SHT_SYMTAB)
      symtab = &shdrs[i];
  for (uint64_t i = 0; i < shnum && symtab == NULL; i++)
    if (shdrs[i].sh_type == SHT_DYNSYM)
      symtab = &shdrs[i];
  if (symtab == NULL)
    return 0;
  if (!elf_symtab_valid(shdrs, shnum, symtab, file_size))
    return -EINVAL;

  int r = 0;
  g_autofree Elf64_Sym *syms = elf_read_section(fd, symtab, &r);
  if (syms == NULL)
    return r;
  const Elf64_Shdr *strtab_sh = &shdrs[symtab->sh_link];
  g_autofree char *strtab = elf_read_section(fd, strtab_sh, &r);
  if (strtab == NULL)
    return r;
  return symbol_file_fill(file, syms, symtab->sh_size / sizeof(Elf64_Sym), strtab, strtab_sh->sh_size);
}

/* The cached symbols of path, read now when first asked for. Called with cache->lock held. */
static const SxsSymbolFile *symbol_cache_get(SxsSymbolCache *cache, const char *path) {
  SxsSymbolFile *file = g_hash_table_lookup(cache->files, path);
  if (file != NULL)
    return file;

  file = g_new0(SxsSymbolFile, 1);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    file->error = -errno;
  } else {
    file->error = symbol_file_read(file, fd);
    close(fd);
  }
  if (file->error != 0) {
    /* Keep nothing half-filled: a bad file simply has no symbols. */
    g_clear_pointer(&file->symbols, g_free);
    g_clear_pointer(&file->names, g_string_chunk_free);
    file->n_symbols = 0;
  }
  g_hash_table_insert(cache->files, g_strdup(path), file);
  return file;
}

/* The symbol covering key (a link-time address), the innermost when symbols nest. */
static const SxsSymbol *symbol_file_find(const SxsSymbolFile *file, uint64_t key) {
  size_t after = SXS_SEARCH_UPPER_BOUND(file->symbols, file->n_symbols, start, key);
  for (size_t i = after; i-- > 0;) {
    const SxsSymbol *s = &file->symbols[i];
    if (s->reach <= key)
      break; /* neither this symbol nor any before it reaches key */
    if (key - s->start < s->size)
      return s;
  }
  return NULL;
}

int sxs__symbols_lookup(SxsSymbolCache *cache, const SxsModule *module, uintptr_t addr, const char **ret_symbol,
                        uintptr_t *ret_offset) {
  if (cache == NULL || module == NULL || module->path == NULL || ret_symbol == NULL || ret_offset == NULL)
    return -EINVAL;
  /* "[vdso]" and other names that are not files. */
  if (module->path[0] != '/')
    return -ENOENT;

  int r = -ENOENT;
  g_mutex_lock(&cache->lock);
  const SxsSymbolFile *file = symbol_cache_get(cache, module->path);
  if (file->error != 0) {
    r = file->error;
  } else {
    uint64_t key = file->is_exec ? addr : addr - module->base;
    const SxsSymbol *s = symbol_file_find(file, key);
    if (s != NULL) {
      *ret_symbol = s->name;
      *ret_offset = (uintptr_t)(key - s->start);
      r = 0;
    }
  }
  g_mutex_unlock(&cache->lock);
  return r;
}

char *sxs__symbols_describe(SxsSymbolCache *cache, const SxsModuleMap *map, uintptr_t addr) {
  const SxsModule *module = sxs__modmap_find(map, addr);
  if (module == NULL)
    return g_strdup_printf("0x%" PRIxPTR, addr);

  const char *symbol = NULL;
  uintptr_t offset = 0;
  if (cache != NULL && sxs__symbols_lookup(cache, module, addr, &symbol, &offset) == 0)
    return g_strdup_printf("%s!%s+0x%" PRIxPTR, module->name, symbol, offset);
  return g_strdup_printf("%s+0x%" PRIxPTR, module->name, addr - module->base);
}
