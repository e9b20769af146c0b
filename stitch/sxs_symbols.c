/* Native symbolization: which ELF function symbol of a module's file covers an address. It does
 * not unwind, does not know JIT-compiled code (the stitcher asks the runtimes for that), and reads
 * no DWARF. The module comes from the module map (sxs_modmap.c).
 *
 *   SxsModule (sxs__modmap_find)          SxsSymbolCache (GMutex)
 *     path, name, base ---------+           path -> SxsSymbolFile, read once:
 *                               |             .symtab, else .dynsym (and _start, main
 *                               |             from the entry point), functions only,
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

/* Collects the function symbols of a symbol table, and the extra ones (entry-point names of a
 * stripped executable), into file: sorted, one per address, names copied. Returns 0 or -EINVAL for
 * a name outside the string table or a symbol past 2^64. */
static int symbol_file_fill(SxsSymbolFile *file, const Elf64_Sym *syms, size_t n_syms, const char *strtab,
                            uint64_t strtab_size, const SxsSymbolCandidate *extra, size_t n_extra) {
  g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(SxsSymbolCandidate));
  g_array_append_vals(found, extra, (guint)n_extra);

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

/* ---- the entry point of a stripped executable ---- */

/* glibc's x86-64 _start (sysdeps/x86_64/start.S) begins with xor %ebp,%ebp; mov %rdx,%r9; pop %rsi,
 * and hands main's address to __libc_start_main in %rdi before it calls it. */
static const uint8_t start_prologue[] = {0x31, 0xed, 0x49, 0x89, 0xd1, 0x5e};

/* The file offset of [vaddr, vaddr + len) through the PT_LOAD segments, or -1 when no segment's
 * file bytes hold it. */
static int64_t elf_vaddr_offset(const Elf64_Phdr *ph, unsigned n, uint64_t vaddr, uint64_t len) {
  for (unsigned i = 0; i < n; i++)
    if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr && vaddr - ph[i].p_vaddr <= ph[i].p_filesz &&
        len <= ph[i].p_filesz - (vaddr - ph[i].p_vaddr))
      return (int64_t)(ph[i].p_offset + (vaddr - ph[i].p_vaddr));
  return -1;
}

/* main's link-time address, decoded from the _start at entry: a `lea main(%rip),%rdi` (48 8d 3d) or
 * a `mov $main,%rdi` (48 c7 c7) before the first call. 0 when _start is not glibc's. */
static uint64_t entry_main(const uint8_t *code, size_t len, uint64_t entry) {
  if (len < sizeof start_prologue || memcmp(code, start_prologue, sizeof start_prologue) != 0)
    return 0;
  for (size_t i = sizeof start_prologue; i + 7 <= len; i++) {
    if (code[i] == 0xe8 || (code[i] == 0xff && code[i + 1] == 0x15))
      return 0; /* the call, with no main before it */
    if (code[i] != 0x48)
      continue;
    int32_t imm;
    memcpy(&imm, code + i + 3, sizeof imm);
    if (code[i + 1] == 0x8d && code[i + 2] == 0x3d)
      return entry + i + 7 + (uint64_t)(int64_t)imm;
    if (code[i + 1] == 0xc7 && code[i + 2] == 0xc7)
      return (uint64_t)(int64_t)imm;
  }
  return 0;
}

/* The extent of the function at start from the .eh_frame_hdr search table: the next function's
 * start. 0 when the table (of the usual 32-bit data-relative entries) has no function at start. */
static uint64_t eh_function_end(const uint8_t *hdr, size_t len, uint64_t hdr_vaddr, uint64_t start) {
  /* version 1, eh_frame_ptr pcrel sdata4, fde_count udata4, table datarel sdata4 */
  if (len < 12 || hdr[0] != 1 || hdr[1] != 0x1b || hdr[2] != 0x03 || hdr[3] != 0x3b)
    return 0;
  uint32_t count;
  memcpy(&count, hdr + 8, sizeof count);
  if (count > (len - 12) / 8)
    return 0;
  for (uint32_t i = 0; i + 1 < count; i++) {
    int32_t at;
    memcpy(&at, hdr + 12 + (size_t)i * 8, sizeof at);
    if (hdr_vaddr + (uint64_t)(int64_t)at != start)
      continue;
    int32_t next;
    memcpy(&next, hdr + 12 + (size_t)(i + 1) * 8, sizeof next);
    uint64_t end = hdr_vaddr + (uint64_t)(int64_t)next;
    return end > start ? end : 0;
  }
  return 0;
}

/* Names for a stripped executable's entry frames, whose file has no symbol for them: `_start` at
 * the entry point and `main`, whose address _start passes on, each as long as the unwind table's
 * entry for it. Fills at most 2 candidates; returns how many. Every read is checked against the
 * file. */
static size_t entry_symbols(int fd, const Elf64_Ehdr *eh, uint64_t file_size, SxsSymbolCandidate *ret) {
  if (eh->e_entry == 0 || eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum > 256 ||
      !elf_in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), file_size))
    return 0;
  Elf64_Phdr ph[256];
  if (!elf_pread(fd, ph, eh->e_phnum * sizeof(Elf64_Phdr), eh->e_phoff))
    return 0;
  const Elf64_Phdr *interp = NULL, *ehf = NULL;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_INTERP)
      interp = &ph[i];
    else if (ph[i].p_type == PT_GNU_EH_FRAME)
      ehf = &ph[i];
  }
  if (interp == NULL || ehf == NULL || ehf->p_filesz > (64u << 20) ||
      !elf_in_file(ehf->p_offset, ehf->p_filesz, file_size))
    return 0;
  uint8_t code[64];
  int64_t code_off = elf_vaddr_offset(ph, eh->e_phnum, eh->e_entry, sizeof code);
  if (code_off < 0 || !elf_pread(fd, code, sizeof code, (uint64_t)code_off))
    return 0;
  g_autofree uint8_t *hdr = g_try_malloc(MAX(ehf->p_filesz, 1));
  if (hdr == NULL || !elf_pread(fd, hdr, ehf->p_filesz, ehf->p_offset))
    return 0;
  size_t n = 0;
  uint64_t main = entry_main(code, sizeof code, eh->e_entry);
  const struct {
    const char *name;
    uint64_t start;
  } entries[] = {{"_start", eh->e_entry}, {"main", main}};
  for (size_t i = 0; i < G_N_ELEMENTS(entries); i++) {
    uint64_t end = entries[i].start ? eh_function_end(hdr, ehf->p_filesz, ehf->p_vaddr, entries[i].start) : 0;
    if (end == 0)
      continue;
    ret[n++] = (SxsSymbolCandidate){
        .symbol = {.start = entries[i].start, .size = end - entries[i].start, .name = entries[i].name},
        .rank = 3,
    };
  }
  return n;
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
  SxsSymbolCandidate extra[2];
  size_t n_extra = 0;
  if (eh.e_shoff == 0) {
    /* no section headers at all (sstrip): valid, only the entry's names */
    n_extra = entry_symbols(fd, &eh, file_size, extra);
    return symbol_file_fill(file, NULL, 0, "", 1, extra, n_extra);
  }
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
  /* A stripped executable (no .symtab) still has its entry frames named. */
  if (symtab == NULL)
    n_extra = entry_symbols(fd, &eh, file_size, extra);
  for (uint64_t i = 0; i < shnum && symtab == NULL; i++)
    if (shdrs[i].sh_type == SHT_DYNSYM)
      symtab = &shdrs[i];
  if (symtab == NULL)
    return symbol_file_fill(file, NULL, 0, "", 1, extra, n_extra);
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
  return symbol_file_fill(file, syms, symtab->sh_size / sizeof(Elf64_Sym), strtab, strtab_sh->sh_size, extra, n_extra);
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
