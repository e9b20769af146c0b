/* Native symbolization: which ELF function symbol of a module's file covers an address. It does
 * not unwind, does not know the runtimes' JIT-compiled code (the stitcher asks the runtimes for
 * that), and reads no DWARF (no inlined frames, no lines). The module comes from the module map
 * (sxs_modmap.c).
 *
 *   SxsModule (sxs__modmap_find)          SxsSymbolCache (GMutex)
 *     path, name, base ---------+           path -> SxsSymbolFile, read once, from the first of:
 *                               |             1. the file's own .symtab
 *                               |             2. .gnu_debugdata (MiniDebugInfo: an xz'd ELF's .symtab)
 *                               |             3. <root>/.build-id/xx/yyyy.debug    (build ID must match)
 *                               |             4. .gnu_debuglink: beside the file, .debug/ beside it,
 *                               |                <root>/<dir of the file>/         (CRC must match)
 *                               |           with .dynsym and foo@plt (.rela.plt) beside 2-4; roots are
 *                               |           /usr/lib/debug then [symbols] debug_dirs= (--debug-dir)
 *                               |           +-----------------------------+
 *                               |           | 0x3fc80 +834  qsort_r       |
 *                               |           | 0x3ffd0 +8    qsort   <-----+-- addr - base (ET_DYN)
 *                               |           | ...                         |
 *                               v           +-----------------------------+
 *   lookup(module, addr) -> "qsort", +0x4
 *   describe(addr): "libc.so.6!qsort+0x4" | "libc.so.6+0x26dd0" (no symbol)
 *                   | "[perf-map]!stub<Foo>+0x8" (no module; /tmp/perf-PID.map, which another code
 *                     generator in the process or a runtime with DOTNET_PerfMapEnabled writes)
 *                   | "0x55d1e8a2c0" (nothing)
 *
 * The symbol cache is for the thread that turns recorded addresses into names later, never for a
 * signal handler (it allocates, reads files and takes a lock). Only function symbols are kept
 * (start, size and name: a debug file's full table is read, sorted and let go at once).
 */
#include "sxs_symbols.h"
#include "sxs_search.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* liblzma's stable soname; the library is opened only when a file carries MiniDebugInfo. */
#define SYMBOLS_LIBLZMA_SONAME "liblzma.so.5"
/* The largest MiniDebugInfo image decompressed, and the largest note section read for a build ID. */
#define SYMBOLS_DEBUGDATA_MAX (256u << 20)
#define SYMBOLS_NOTES_MAX (1u << 16)
#define SYMBOLS_BUILD_ID_MAX 64
/* The system's debug root, searched before the configured ones. */
#define SYMBOLS_SYSTEM_DEBUG_ROOT "/usr/lib/debug"

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
  SxsSymbolsSource source;
  char *debug_path; /* the debug file the names came from (build ID, debug link), or NULL */
  SxsSymbol *symbols;
  guint n_symbols;
  GStringChunk *names; /* the symbols' names; NULL when there are none */
  gsize names_bytes;   /* what the names take in names */
} SxsSymbolFile;

/* What a process's perf map (/tmp/perf-PID.map) has said so far. Generators only append to it, so
 * each read takes the whole lines added since the last. */
typedef struct {
  char *path;
  gint64 offset;      /* bytes of the file read so far (whole lines) */
  gint64 read_at;     /* monotonic microseconds of the last read; 0: never read */
  guint64 lines;      /* lines read so far */
  GArray *all;        /* SxsSymbol of every entry read, reach holding its line number */
  SxsSymbol *entries; /* sorted by start, one per start (the latest line), reach as for symbols */
  guint n_entries;
  GStringChunk *names; /* every name read; kept until the cache is freed (names handed out stay valid) */
} SxsPerfMap;

/* A changed perf map is read again at most this often (microseconds): a generator writes it at every
 * method it compiles, and a miss may come at every new unknown address. */
#define SYMBOLS_PERF_MAP_INTERVAL_US 50000

struct SxsSymbolCache {
  GMutex lock;
  GHashTable *files;   /* file path (owned) -> SxsSymbolFile (owned); guarded by lock; entries are
                        * never removed before the cache is freed, so names handed out stay valid */
  char **debug_roots;  /* /usr/lib/debug, then the configured ones; immutable */
  guint n_extra_roots; /* how many of debug_roots are configured (the last ones) */
  SxsPerfMap perf_map; /* guarded by lock */
};

static void symbol_file_free(gpointer data) {
  SxsSymbolFile *file = data;
  g_free(file->symbols);
  g_free(file->debug_path);
  if (file->names != NULL)
    g_string_chunk_free(file->names);
  g_free(file);
}

SxsSymbolCache *sxs__symbols_cache_new_full(const char *const *debug_dirs) {
  SxsSymbolCache *cache = g_new0(SxsSymbolCache, 1);
  g_mutex_init(&cache->lock);
  cache->files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, symbol_file_free);
  GPtrArray *roots = g_ptr_array_new();
  g_ptr_array_add(roots, g_strdup(SYMBOLS_SYSTEM_DEBUG_ROOT));
  for (guint i = 0; debug_dirs != NULL && debug_dirs[i] != NULL; i++)
    if (debug_dirs[i][0] == '/') {
      g_ptr_array_add(roots, g_strdup(debug_dirs[i]));
      cache->n_extra_roots++;
    }
  g_ptr_array_add(roots, NULL);
  cache->debug_roots = (char **)g_ptr_array_free(roots, FALSE);
  cache->perf_map.all = g_array_new(FALSE, FALSE, sizeof(SxsSymbol));
  return cache;
}

SxsSymbolCache *sxs__symbols_cache_new(void) {
  return sxs__symbols_cache_new_full(NULL);
}

void sxs__symbols_cache_free(SxsSymbolCache *cache) {
  if (cache == NULL)
    return;
  g_hash_table_destroy(cache->files);
  g_strfreev(cache->debug_roots);
  g_free(cache->perf_map.path);
  g_free(cache->perf_map.entries);
  g_array_unref(cache->perf_map.all);
  if (cache->perf_map.names != NULL)
    g_string_chunk_free(cache->perf_map.names);
  g_mutex_clear(&cache->lock);
  g_free(cache);
}

/* ---- reading ELF images: a file, or an image in memory (MiniDebugInfo) ---- */

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

/* An ELF image with its header and section headers read and checked. */
typedef struct {
  int fd;             /* the file, or -1 for an image in memory */
  const uint8_t *mem; /* the image in memory, or NULL */
  uint64_t size;
  Elf64_Ehdr eh;
  Elf64_Shdr *shdrs; /* NULL when the image has no section headers */
  uint64_t shnum;
  char *shstr; /* the section names, NUL-terminated at shstr_size; NULL when there are none */
  uint64_t shstr_size;
} ElfImage;

static gboolean elf_read(const ElfImage *img, void *buf, size_t len, uint64_t off) {
  if (!elf_in_file(off, len, img->size))
    return FALSE;
  if (img->mem != NULL) {
    memcpy(buf, img->mem + off, len);
    return TRUE;
  }
  return elf_pread(img->fd, buf, len, off);
}

static void elf_image_fini(ElfImage *img) {
  g_clear_pointer(&img->shdrs, g_free);
  g_clear_pointer(&img->shstr, g_free);
}

/* Reads and checks the header and section headers of a 64-bit little-endian ELF image (fd, or mem
 * when fd is -1, of size bytes). Returns 0, -EINVAL or -ENOMEM; on failure nothing is left to free. */
static int elf_image_open(ElfImage *img, int fd, const uint8_t *mem, uint64_t size) {
  *img = (ElfImage){.fd = fd, .mem = mem, .size = size};
  if (size < sizeof(Elf64_Ehdr) || !elf_read(img, &img->eh, sizeof img->eh, 0))
    return -EINVAL;
  const Elf64_Ehdr *eh = &img->eh;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_ident[EI_VERSION] != EV_CURRENT)
    return -EINVAL;
  if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
    return -EINVAL;
  if (eh->e_shoff == 0)
    return 0; /* no section headers at all (sstrip): valid */
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || !elf_in_file(eh->e_shoff, sizeof(Elf64_Shdr), size))
    return -EINVAL;

  /* With 0xff00 sections or more, e_shnum is 0 and section 0's sh_size holds the count. */
  uint64_t shnum = eh->e_shnum;
  if (shnum == 0) {
    Elf64_Shdr first;
    if (!elf_read(img, &first, sizeof(first), eh->e_shoff))
      return -EINVAL;
    shnum = first.sh_size;
  }
  if (shnum == 0 || shnum > size / sizeof(Elf64_Shdr) || !elf_in_file(eh->e_shoff, shnum * sizeof(Elf64_Shdr), size))
    return -EINVAL;
  img->shdrs = g_try_new(Elf64_Shdr, shnum);
  if (img->shdrs == NULL)
    return -ENOMEM;
  if (!elf_read(img, img->shdrs, shnum * sizeof(Elf64_Shdr), eh->e_shoff)) {
    elf_image_fini(img);
    return -EINVAL;
  }
  img->shnum = shnum;
  /* Section names are optional: a file without them is still read, by type alone. */
  uint64_t shstrndx = eh->e_shstrndx == SHN_XINDEX ? img->shdrs[0].sh_link : eh->e_shstrndx;
  if (shstrndx != SHN_UNDEF && shstrndx < shnum) {
    const Elf64_Shdr *names = &img->shdrs[shstrndx];
    if (names->sh_type == SHT_STRTAB && names->sh_size > 0 && names->sh_size <= (16u << 20) &&
        elf_in_file(names->sh_offset, names->sh_size, size)) {
      img->shstr = g_try_malloc(names->sh_size + 1);
      if (img->shstr != NULL && elf_read(img, img->shstr, names->sh_size, names->sh_offset)) {
        img->shstr[names->sh_size] = '\0';
        img->shstr_size = names->sh_size;
      } else {
        g_clear_pointer(&img->shstr, g_free);
      }
    }
  }
  return 0;
}

/* The first section of type (SHT_NULL: any) named name (NULL: any name), or NULL; SHT_NOBITS never
 * matches. Whether its bytes lie inside the image is for its reader to check. */
static const Elf64_Shdr *elf_section(const ElfImage *img, const char *name, Elf64_Word type) {
  for (uint64_t i = 0; i < img->shnum; i++) {
    const Elf64_Shdr *sh = &img->shdrs[i];
    if ((type != SHT_NULL && sh->sh_type != type) || sh->sh_type == SHT_NOBITS)
      continue;
    if (name != NULL &&
        (img->shstr == NULL || sh->sh_name >= img->shstr_size || strcmp(img->shstr + sh->sh_name, name) != 0))
      continue;
    return sh;
  }
  return NULL;
}

/* A section's bytes in a new buffer (g_free) with a NUL after them, or NULL with *ret_why set.
 * The section must lie inside the image. */
static void *elf_section_bytes(const ElfImage *img, const Elf64_Shdr *sh, int *ret_why) {
  if (sh->sh_type == SHT_NOBITS || !elf_in_file(sh->sh_offset, sh->sh_size, img->size) || sh->sh_size > SIZE_MAX - 1) {
    *ret_why = -EINVAL;
    return NULL;
  }
  char *buf = g_try_malloc(sh->sh_size + 1);
  if (buf == NULL) {
    *ret_why = -ENOMEM;
    return NULL;
  }
  if (!elf_read(img, buf, sh->sh_size, sh->sh_offset)) {
    g_free(buf);
    *ret_why = -EINVAL;
    return NULL;
  }
  buf[sh->sh_size] = '\0';
  return buf;
}

/* A symbol table section and its string table, both inside the image and well-formed. */
static gboolean elf_symtab_valid(const ElfImage *img, const Elf64_Shdr *symtab) {
  if (symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_size % sizeof(Elf64_Sym) != 0 ||
      !elf_in_file(symtab->sh_offset, symtab->sh_size, img->size) || symtab->sh_link >= img->shnum)
    return FALSE;
  const Elf64_Shdr *strtab = &img->shdrs[symtab->sh_link];
  return strtab->sh_type == SHT_STRTAB && elf_in_file(strtab->sh_offset, strtab->sh_size, img->size);
}

/* The GNU build ID of an image (its NT_GNU_BUILD_ID note), copied to ret (SYMBOLS_BUILD_ID_MAX
 * bytes); returns its length, 0 when it has none. */
static size_t elf_build_id(const ElfImage *img, uint8_t *ret) {
  for (uint64_t i = 0; i < img->shnum; i++) {
    const Elf64_Shdr *sh = &img->shdrs[i];
    if (sh->sh_type != SHT_NOTE || sh->sh_size > SYMBOLS_NOTES_MAX)
      continue;
    int r = 0;
    g_autofree uint8_t *notes = elf_section_bytes(img, sh, &r);
    if (notes == NULL)
      continue;
    /* Each note: namesz, descsz, type, then the name and the descriptor, each padded to 4. */
    for (uint64_t at = 0; at + 12 <= sh->sh_size;) {
      uint32_t namesz, descsz, type;
      memcpy(&namesz, notes + at, 4);
      memcpy(&descsz, notes + at + 4, 4);
      memcpy(&type, notes + at + 8, 4);
      uint64_t name_at = at + 12, desc_at = name_at + (((uint64_t)namesz + 3) & ~(uint64_t)3);
      uint64_t next = desc_at + (((uint64_t)descsz + 3) & ~(uint64_t)3);
      if (desc_at > sh->sh_size || descsz > sh->sh_size - desc_at)
        break;
      if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(notes + name_at, "GNU", 4) == 0 && descsz > 0 &&
          descsz <= SYMBOLS_BUILD_ID_MAX) {
        memcpy(ret, notes + desc_at, descsz);
        return descsz;
      }
      at = next;
    }
  }
  return 0;
}

/* ---- choosing among aliases ---- */

/* A function symbol while the tables are read: name still points into a string table. */
typedef struct {
  SxsSymbol symbol;
  unsigned char bind; /* STB_* */
} SxsSymbolCandidate;

/* glibc's internal aliases (__GI___libc_open of open): never the name a person knows. */
static gboolean symbol_internal_alias(const char *name) {
  return strncmp(name, "__GI_", 5) == 0;
}

/* Among symbols at one address, the name a person knows: not a glibc-internal __GI_ alias; the
 * fewest leading underscores (getpid over __getpid, open over __libc_open64, qsort_r over
 * __qsort_r); a global one over a weak one over a local one; then, as perf picks among names alike,
 * the longest (__memmove_avx_unaligned_erms over its __memcpy_ alias); then by bytes. */
static int symbol_candidate_compare(const void *a, const void *b) {
  const SxsSymbolCandidate *x = a, *y = b;
  if (x->symbol.start != y->symbol.start)
    return x->symbol.start < y->symbol.start ? -1 : 1;
  gboolean x_gi = symbol_internal_alias(x->symbol.name), y_gi = symbol_internal_alias(y->symbol.name);
  if (x_gi != y_gi)
    return x_gi ? 1 : -1;
  size_t x_under = strspn(x->symbol.name, "_"), y_under = strspn(y->symbol.name, "_");
  if (x_under != y_under)
    return x_under < y_under ? -1 : 1;
  int x_rank = x->bind == STB_GLOBAL ? 0 : x->bind == STB_WEAK ? 1 : 2;
  int y_rank = y->bind == STB_GLOBAL ? 0 : y->bind == STB_WEAK ? 1 : 2;
  if (x_rank != y_rank)
    return x_rank - y_rank;
  size_t x_len = strlen(x->symbol.name), y_len = strlen(y->symbol.name);
  if (x_len != y_len)
    return x_len > y_len ? -1 : 1;
  if (x->symbol.size != y->symbol.size)
    return x->symbol.size > y->symbol.size ? -1 : 1;
  return strcmp(x->symbol.name, y->symbol.name);
}

/* Appends the function symbols of a symbol table to found; names point into strtab, which the
 * caller keeps until the candidates are used. Returns 0 or -EINVAL for a name outside the string
 * table or a symbol past 2^64. */
static int symbols_collect(GArray *found, const Elf64_Sym *syms, size_t n_syms, char *strtab, uint64_t strtab_size) {
  for (size_t i = 0; i < n_syms; i++) {
    const Elf64_Sym *sym = &syms[i];
    unsigned char type = ELF64_ST_TYPE(sym->st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym->st_size == 0 || sym->st_shndx == SHN_UNDEF)
      continue;
    if (sym->st_name >= strtab_size || memchr(strtab + sym->st_name, '\0', strtab_size - sym->st_name) == NULL)
      return -EINVAL;
    if (sym->st_value > UINT64_MAX - sym->st_size)
      return -EINVAL;
    if (strtab[sym->st_name] == '\0' || strtab[sym->st_name] == '@')
      continue;
    /* A full table names versioned definitions "__libc_start_main@@GLIBC_2.34": the version is cut,
     * in the string table itself (the caller's copy; a name sharing that tail loses it alike). */
    char *version = strchr(strtab + sym->st_name, '@');
    if (version != NULL)
      *version = '\0';
    SxsSymbolCandidate c = {
        .symbol = {.start = sym->st_value, .size = sym->st_size, .name = strtab + sym->st_name},
        .bind = ELF64_ST_BIND(sym->st_info),
    };
    g_array_append_val(found, c);
  }
  return 0;
}

/* Sorts the candidates into file: one per address, names copied. */
static void symbol_file_fill(SxsSymbolFile *file, GArray *found) {
  if (found->len == 0)
    return;
  g_array_sort(found, symbol_candidate_compare);

  file->names = g_string_chunk_new(4096);
  file->symbols = g_new(SxsSymbol, found->len);
  uint64_t reach = 0;
  for (guint i = 0; i < found->len; i++) {
    const SxsSymbol *s = &g_array_index(found, SxsSymbolCandidate, i).symbol;
    if (file->n_symbols > 0 && file->symbols[file->n_symbols - 1].start == s->start)
      continue; /* an alias the sort ranked lower */
    reach = MAX(reach, s->start + s->size);
    file->names_bytes += strlen(s->name) + 1;
    file->symbols[file->n_symbols++] = (SxsSymbol){
        .start = s->start,
        .size = s->size,
        .reach = reach,
        .name = g_string_chunk_insert(file->names, s->name),
    };
  }
  if (file->n_symbols < found->len)
    file->symbols = g_renew(SxsSymbol, file->symbols, file->n_symbols);
}

/* Reads the symbol table symtab of img and appends its function symbols to found; the string
 * table is added to keep (freed by the caller after the fill). Returns 0, -EINVAL or -ENOMEM. */
static int symbols_read_table(const ElfImage *img, const Elf64_Shdr *symtab, GArray *found, GPtrArray *keep) {
  if (!elf_symtab_valid(img, symtab))
    return -EINVAL;
  int r = 0;
  g_autofree Elf64_Sym *syms = elf_section_bytes(img, symtab, &r);
  if (syms == NULL)
    return r;
  const Elf64_Shdr *strtab_sh = &img->shdrs[symtab->sh_link];
  char *strtab = elf_section_bytes(img, strtab_sh, &r);
  if (strtab == NULL)
    return r;
  g_ptr_array_add(keep, strtab);
  return symbols_collect(found, syms, symtab->sh_size / sizeof(Elf64_Sym), strtab, strtab_sh->sh_size);
}

/* ---- PLT entries ---- */

/* Names the PLT entries of img as perf does: foo@plt for a jump slot of foo, *ABS*+0x<addend>@plt
 * for an IRELATIVE one. Entry i of .plt.sec (IBT) or entry i + 1 of .plt (after the resolver's
 * PLT0) is the i-th relocation of .rela.plt, 16 bytes each. Names go to names. Nothing is
 * added for a layout it does not know. */
static void symbols_plt(const ElfImage *img, GArray *found, GStringChunk *names) {
  const Elf64_Shdr *rela = elf_section(img, ".rela.plt", SHT_RELA);
  const Elf64_Shdr *plt = elf_section(img, ".plt.sec", SHT_PROGBITS);
  uint64_t first = 0;
  if (plt == NULL) {
    plt = elf_section(img, ".plt", SHT_PROGBITS);
    first = 1;
  }
  if (rela == NULL || plt == NULL || rela->sh_entsize != sizeof(Elf64_Rela) ||
      rela->sh_size % sizeof(Elf64_Rela) != 0 || rela->sh_link >= img->shnum)
    return;
  const Elf64_Shdr *dynsym = &img->shdrs[rela->sh_link];
  if (dynsym->sh_type != SHT_DYNSYM || !elf_symtab_valid(img, dynsym))
    return;
  int r = 0;
  g_autofree Elf64_Rela *relas = elf_section_bytes(img, rela, &r);
  g_autofree Elf64_Sym *syms = relas ? elf_section_bytes(img, dynsym, &r) : NULL;
  const Elf64_Shdr *strtab_sh = &img->shdrs[dynsym->sh_link];
  g_autofree char *strtab = syms ? elf_section_bytes(img, strtab_sh, &r) : NULL;
  if (strtab == NULL)
    return;
  size_t n_relas = rela->sh_size / sizeof(Elf64_Rela), n_syms = dynsym->sh_size / sizeof(Elf64_Sym);
  for (size_t i = 0; i < n_relas; i++) {
    uint64_t slot = first + i;
    if (slot >= plt->sh_size / 16)
      break;
    const Elf64_Rela *rel = &relas[i];
    g_autofree char *name = NULL;
    uint32_t type = ELF64_R_TYPE(rel->r_info), index = ELF64_R_SYM(rel->r_info);
    if (type == R_X86_64_JUMP_SLOT && index != 0 && index < n_syms && syms[index].st_name < strtab_sh->sh_size &&
        strtab[syms[index].st_name] != '\0')
      name = g_strdup_printf("%s@plt", strtab + syms[index].st_name);
    else if (type == R_X86_64_IRELATIVE)
      name = g_strdup_printf("*ABS*+0x%" PRIx64 "@plt", (uint64_t)rel->r_addend);
    else
      continue;
    SxsSymbolCandidate c = {
        .symbol = {.start = plt->sh_addr + slot * 16, .size = 16, .name = g_string_chunk_insert(names, name)},
        .bind = STB_LOCAL,
    };
    g_array_append_val(found, c);
  }
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
        .bind = STB_LOCAL,
    };
  }
  return n;
}

/* ---- MiniDebugInfo ---- */

/* lzma_stream_buffer_decode of liblzma (lzma/container.h), opened on first need. */
typedef int (*SymbolsLzmaDecode)(uint64_t *memlimit, uint32_t flags, const void *allocator, const uint8_t *in,
                                 size_t *in_pos, size_t in_size, uint8_t *out, size_t *out_pos, size_t out_size);
#define SYMBOLS_LZMA_OK 0
#define SYMBOLS_LZMA_BUF_ERROR 10

static SymbolsLzmaDecode symbols_lzma(void) {
  static gsize once = 0;
  static SymbolsLzmaDecode decode = NULL;
  if (g_once_init_enter(&once)) {
    void *lib = dlopen(SYMBOLS_LIBLZMA_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (lib != NULL)
      decode = (SymbolsLzmaDecode)dlsym(lib, "lzma_stream_buffer_decode");
    g_once_init_leave(&once, 1);
  }
  return decode;
}

/* The ELF image a .gnu_debugdata section holds, decompressed (g_free), its size in *ret_size; NULL
 * when it cannot be (no liblzma, damaged, larger than SYMBOLS_DEBUGDATA_MAX). */
static uint8_t *debugdata_decompress(const uint8_t *xz, size_t xz_size, size_t *ret_size) {
  SymbolsLzmaDecode decode = symbols_lzma();
  if (decode == NULL || xz_size == 0)
    return NULL;
  /* xz does not say the size up front without reading its index: grow until it fits. */
  for (size_t cap = MAX(xz_size * 4, (size_t)65536); cap <= SYMBOLS_DEBUGDATA_MAX; cap *= 2) {
    uint8_t *out = g_try_malloc(cap);
    if (out == NULL)
      return NULL;
    uint64_t memlimit = UINT64_MAX;
    size_t in_pos = 0, out_pos = 0;
    int r = decode(&memlimit, 0, NULL, xz, &in_pos, xz_size, out, &out_pos, cap);
    if (r == SYMBOLS_LZMA_OK) {
      *ret_size = out_pos;
      return out;
    }
    g_free(out);
    if (r != SYMBOLS_LZMA_BUF_ERROR)
      return NULL;
  }
  return NULL;
}

/* ---- separate debug files ---- */

/* The CRC-32 (IEEE, the one of .gnu_debuglink) of the file open at fd; FALSE when it cannot be read. */
static gboolean file_crc32(int fd, uint32_t *ret) {
  static uint32_t table[256];
  static gsize once = 0;
  if (g_once_init_enter(&once)) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    g_once_init_leave(&once, 1);
  }
  uint32_t crc = 0xffffffffu;
  g_autofree uint8_t *buf = g_malloc(1 << 16);
  for (uint64_t off = 0;;) {
    ssize_t n = pread(fd, buf, 1 << 16, (off_t)off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return FALSE;
    if (n == 0)
      break;
    for (ssize_t i = 0; i < n; i++)
      crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
    off += (uint64_t)n;
  }
  *ret = crc ^ 0xffffffffu;
  return TRUE;
}

/* What a debug file must be to stand for a module's: its build ID (when both have one), else the
 * CRC its .gnu_debuglink records (when want_crc). The build ID is enough when both carry one: the
 * runtime's libcoreclr.so.dbg is hundreds of megabytes, which a CRC would read through. */
typedef struct {
  uint8_t build_id[SYMBOLS_BUILD_ID_MAX];
  size_t build_id_len;
  gboolean want_crc;
  uint32_t crc;
} DebugMatch;

/* Opens the debug file at path into img (its fd in *ret_fd, to close after img) when it matches:
 * an ELF image with a .symtab whose build ID is the module's (a file with another is refused), or,
 * for a debug link when either has no build ID, whose CRC is the one the link records.
 * Returns 0 or a -errno (-ENOENT: absent, -ESTALE: of another build). */
static int debug_open(const char *path, const DebugMatch *match, ElfImage *img, int *ret_fd) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  int r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
  if (r == 0)
    r = elf_image_open(img, fd, NULL, (uint64_t)st.st_size);
  if (r < 0) {
    close(fd);
    return r;
  }
  uint8_t id[SYMBOLS_BUILD_ID_MAX];
  size_t id_len = elf_build_id(img, id);
  uint32_t crc = 0;
  if (match->build_id_len > 0 && id_len > 0 &&
      (id_len != match->build_id_len || memcmp(id, match->build_id, id_len) != 0))
    r = -ESTALE;
  else if (match->build_id_len > 0 && id_len == 0 && !match->want_crc)
    r = -ESTALE; /* a build-ID path whose file says nothing of its build */
  else if (match->want_crc && (match->build_id_len == 0 || id_len == 0) && (!file_crc32(fd, &crc) || crc != match->crc))
    r = -ESTALE;
  else if (elf_section(img, NULL, SHT_SYMTAB) == NULL)
    r = -ENOENT;
  if (r < 0) {
    elf_image_fini(img);
    close(fd);
    return r;
  }
  *ret_fd = fd;
  return 0;
}

/* The places a debug file of the module at path is looked for, in order, as debuggers do: by build
 * ID under each root, then by the .gnu_debuglink name beside the file, in .debug/ beside it, under
 * each root followed by the file's folder, and (configured roots only) in the root itself. */
static GPtrArray *debug_candidates(const SxsSymbolCache *cache, const char *path, const DebugMatch *id,
                                   const char *link_name) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  if (id->build_id_len > 1) {
    GString *hex = g_string_new(NULL);
    for (size_t i = 1; i < id->build_id_len; i++)
      g_string_append_printf(hex, "%02x", id->build_id[i]);
    for (guint r = 0; cache->debug_roots[r] != NULL; r++)
      g_ptr_array_add(out,
                      g_strdup_printf("%s/.build-id/%02x/%s.debug", cache->debug_roots[r], id->build_id[0], hex->str));
    g_string_free(hex, TRUE);
  }
  if (link_name != NULL) {
    g_autofree char *dir = g_path_get_dirname(path);
    g_ptr_array_add(out, g_build_filename(dir, link_name, NULL));
    g_ptr_array_add(out, g_build_filename(dir, ".debug", link_name, NULL));
    guint n_roots = g_strv_length(cache->debug_roots);
    for (guint r = 0; r < n_roots; r++)
      g_ptr_array_add(out, g_build_filename(cache->debug_roots[r], dir, link_name, NULL));
    for (guint r = n_roots - cache->n_extra_roots; r < n_roots; r++)
      g_ptr_array_add(out, g_build_filename(cache->debug_roots[r], link_name, NULL));
  }
  return out;
}

/* The .gnu_debuglink of img: the debug file's name (g_free) and its CRC; NULL when none. */
static char *debuglink_read(const ElfImage *img, uint32_t *ret_crc) {
  const Elf64_Shdr *sh = elf_section(img, ".gnu_debuglink", SHT_PROGBITS);
  if (sh == NULL || sh->sh_size < 8 || sh->sh_size > 4096)
    return NULL;
  int r = 0;
  g_autofree char *bytes = elf_section_bytes(img, sh, &r);
  if (bytes == NULL)
    return NULL;
  size_t len = strnlen(bytes, sh->sh_size);
  uint64_t crc_at = ((uint64_t)len + 1 + 3) & ~(uint64_t)3;
  if (len == 0 || crc_at + 4 > sh->sh_size || strchr(bytes, '/') != NULL)
    return NULL;
  memcpy(ret_crc, bytes + crc_at, 4);
  return g_strndup(bytes, len);
}

/* Finds the module's debug symbols: MiniDebugInfo, then a matching separate debug file. Appends
 * its function symbols to found and says where they came from. Returns 0 also when none is found. */
static int debug_symbols(const SxsSymbolCache *cache, SxsSymbolFile *file, const char *path, const ElfImage *img,
                         GArray *found, GPtrArray *keep) {
  const Elf64_Shdr *dd = elf_section(img, ".gnu_debugdata", SHT_PROGBITS);
  if (dd != NULL && dd->sh_size <= SYMBOLS_DEBUGDATA_MAX) {
    int r = 0;
    g_autofree uint8_t *xz = elf_section_bytes(img, dd, &r);
    size_t size = 0;
    g_autofree uint8_t *mini = xz ? debugdata_decompress(xz, dd->sh_size, &size) : NULL;
    ElfImage inner;
    if (mini != NULL && elf_image_open(&inner, -1, mini, size) == 0) {
      const Elf64_Shdr *symtab = elf_section(&inner, NULL, SHT_SYMTAB);
      guint before = found->len;
      r = symtab ? symbols_read_table(&inner, symtab, found, keep) : -ENOENT;
      elf_image_fini(&inner);
      if (r != 0)
        g_array_set_size(found, before);
      if (r == 0) {
        file->source = SXS_SYMBOLS_SOURCE_DEBUGDATA;
        return 0;
      }
    }
  }

  DebugMatch match = {0};
  match.build_id_len = elf_build_id(img, match.build_id);
  g_autofree char *link_name = debuglink_read(img, &match.crc);
  g_autoptr(GPtrArray) places = debug_candidates(cache, path, &match, link_name);
  guint n_by_id = match.build_id_len > 1 ? g_strv_length(cache->debug_roots) : 0;
  g_autofree char *self = realpath(path, NULL);
  for (guint i = 0; i < places->len; i++) {
    const char *place = places->pdata[i];
    DebugMatch want = match;
    want.want_crc = i >= n_by_id;
    g_autofree char *real = realpath(place, NULL);
    if (real == NULL || (self != NULL && strcmp(real, self) == 0))
      continue; /* absent, or the module itself (a link named as the file) */
    ElfImage dbg;
    int fd = -1;
    if (debug_open(real, &want, &dbg, &fd) != 0)
      continue;
    guint before = found->len;
    int r = symbols_read_table(&dbg, elf_section(&dbg, NULL, SHT_SYMTAB), found, keep);
    elf_image_fini(&dbg);
    close(fd);
    if (r != 0) {
      g_array_set_size(found, before); /* a damaged table: the next place may hold a good one */
      continue;
    }
    file->source = want.want_crc ? SXS_SYMBOLS_SOURCE_DEBUGLINK : SXS_SYMBOLS_SOURCE_BUILD_ID;
    file->debug_path = g_strdup(real);
    return 0;
  }
  return 0;
}

/* Reads the function symbols of the module file open at fd (path) into file. Every offset and
 * size read from a file is checked against its size before use. Returns 0 (also for a valid file
 * without symbols), -EINVAL or -ENOMEM. */
static int symbol_file_read(const SxsSymbolCache *cache, SxsSymbolFile *file, const char *path, int fd) {
  struct stat st;
  if (fstat(fd, &st) < 0)
    return -errno;
  if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
    return -EINVAL;
  ElfImage img;
  int r = elf_image_open(&img, fd, NULL, (uint64_t)st.st_size);
  if (r != 0)
    return r;
  file->is_exec = img.eh.e_type == ET_EXEC;

  g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(SxsSymbolCandidate));
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
  GStringChunk *scratch = g_string_chunk_new(1024);

  /* The full table of an unstripped file; else the exported one every shared object keeps, and
   * the debug symbols found for it. */
  const Elf64_Shdr *symtab = elf_section(&img, NULL, SHT_SYMTAB);
  if (symtab != NULL) {
    r = symbols_read_table(&img, symtab, found, keep);
    file->source = SXS_SYMBOLS_SOURCE_SYMTAB;
  } else {
    const Elf64_Shdr *dynsym = elf_section(&img, NULL, SHT_DYNSYM);
    if (dynsym != NULL) {
      r = symbols_read_table(&img, dynsym, found, keep);
      file->source = SXS_SYMBOLS_SOURCE_DYNSYM;
    }
    guint before = found->len;
    if (r == 0)
      r = debug_symbols(cache, file, path, &img, found, keep);
    /* A stripped executable without debug symbols still has its entry frames named. */
    if (r == 0 && found->len == before) {
      SxsSymbolCandidate extra[2];
      size_t n_extra = entry_symbols(fd, &img.eh, img.size, extra);
      g_array_append_vals(found, extra, (guint)n_extra);
    }
  }
  if (r == 0)
    symbols_plt(&img, found, scratch);
  if (r == 0)
    symbol_file_fill(file, found);
  g_string_chunk_free(scratch);
  elf_image_fini(&img);
  return r;
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
    file->error = symbol_file_read(cache, file, path, fd);
    close(fd);
  }
  if (file->error != 0) {
    /* Keep nothing half-filled: a bad file simply has no symbols. */
    g_clear_pointer(&file->symbols, g_free);
    g_clear_pointer(&file->names, g_string_chunk_free);
    g_clear_pointer(&file->debug_path, g_free);
    file->n_symbols = 0;
    file->source = SXS_SYMBOLS_SOURCE_NONE;
  }
  g_hash_table_insert(cache->files, g_strdup(path), file);
  return file;
}

/* The symbol covering key (a link-time address), the innermost when symbols nest. */
static const SxsSymbol *symbol_find(const SxsSymbol *symbols, size_t n, uint64_t key) {
  size_t after = SXS_SEARCH_UPPER_BOUND(symbols, n, start, key);
  for (size_t i = after; i-- > 0;) {
    const SxsSymbol *s = &symbols[i];
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
    const SxsSymbol *s = symbol_find(file->symbols, file->n_symbols, key);
    if (s != NULL) {
      *ret_symbol = s->name;
      *ret_offset = (uintptr_t)(key - s->start);
      r = 0;
    }
  }
  g_mutex_unlock(&cache->lock);
  return r;
}

SxsSymbolsSource sxs__symbols_source(SxsSymbolCache *cache, const char *path, char **ret_debug_path) {
  if (cache == NULL || path == NULL || path[0] != '/')
    return SXS_SYMBOLS_SOURCE_NONE;
  g_mutex_lock(&cache->lock);
  const SxsSymbolFile *file = symbol_cache_get(cache, path);
  SxsSymbolsSource source = file->source;
  if (ret_debug_path != NULL)
    *ret_debug_path = g_strdup(file->debug_path);
  g_mutex_unlock(&cache->lock);
  return source;
}

void sxs__symbols_cache_stats(SxsSymbolCache *cache, SxsSymbolsStats *ret) {
  *ret = (SxsSymbolsStats){0};
  if (cache == NULL)
    return;
  g_mutex_lock(&cache->lock);
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init(&it, cache->files);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    const SxsSymbolFile *file = value;
    ret->files++;
    ret->symbols += file->n_symbols;
    ret->bytes += sizeof *file + file->n_symbols * sizeof(SxsSymbol) + file->names_bytes;
  }
  ret->symbols += cache->perf_map.n_entries;
  ret->bytes += cache->perf_map.n_entries * sizeof(SxsSymbol);
  g_mutex_unlock(&cache->lock);
}

/* ---- perf maps ---- */

static int perf_entry_compare(const void *a, const void *b) {
  const SxsSymbol *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  /* The later line first: reach is its line number until the sort is done. */
  return x->reach > y->reach ? -1 : x->reach < y->reach;
}

/* Reads the lines added to the perf map since the last read ("START SIZE name", both in hex
 * without 0x, as perf reads them), at most once in SYMBOLS_PERF_MAP_INTERVAL_US; a file that
 * shrank (a new one) is read from its start. Called with cache->lock held. */
static void perf_map_refresh(SxsSymbolCache *cache) {
  SxsPerfMap *pm = &cache->perf_map;
  if (pm->path == NULL)
    pm->path = g_strdup_printf("/tmp/perf-%ld.map", (long)getpid());
  gint64 now = g_get_monotonic_time();
  if (pm->read_at != 0 && now - pm->read_at < SYMBOLS_PERF_MAP_INTERVAL_US)
    return;
  struct stat st;
  if (stat(pm->path, &st) < 0 || !S_ISREG(st.st_mode) || (gint64)st.st_size == pm->offset)
    return;
  pm->read_at = now;
  if ((gint64)st.st_size < pm->offset) {
    g_array_set_size(pm->all, 0);
    pm->offset = 0;
  }
  FILE *f = fopen(pm->path, "re");
  if (f == NULL)
    return;
  if (fseeko(f, (off_t)pm->offset, SEEK_SET) != 0) {
    fclose(f);
    return;
  }
  if (pm->names == NULL)
    pm->names = g_string_chunk_new(4096);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  guint before = pm->all->len;
  while ((len = getline(&line, &cap, f)) > 0) {
    if (line[len - 1] != '\n')
      break; /* being written: read it whole next time */
    pm->offset += len;
    pm->lines++;
    line[len - 1] = '\0';
    char *end = NULL;
    errno = 0;
    uint64_t start = g_ascii_strtoull(line, &end, 16);
    if (errno != 0 || end == line || *end != ' ')
      continue;
    char *size_at = end + 1;
    uint64_t size = g_ascii_strtoull(size_at, &end, 16);
    if (errno != 0 || end == size_at || *end != ' ' || size == 0 || start > UINT64_MAX - size)
      continue;
    char *name = end + 1;
    name[strcspn(name, "\r")] = '\0';
    if (*name == '\0')
      continue;
    SxsSymbol e = {.start = start, .size = size, .reach = pm->lines, .name = g_string_chunk_insert(pm->names, name)};
    g_array_append_val(pm->all, e);
  }
  free(line);
  fclose(f);
  if (pm->all->len == before && pm->entries != NULL)
    return;
  /* Sorted by start, the latest line first; one entry per start; then reach as for symbols. */
  g_autoptr(GArray) sorted = g_array_copy(pm->all);
  g_array_sort(sorted, perf_entry_compare);
  guint n = 0;
  uint64_t reach = 0;
  for (guint i = 0; i < sorted->len; i++) {
    SxsSymbol e = g_array_index(sorted, SxsSymbol, i);
    if (n > 0 && g_array_index(sorted, SxsSymbol, n - 1).start == e.start)
      continue;
    reach = MAX(reach, e.start + e.size);
    e.reach = reach;
    g_array_index(sorted, SxsSymbol, n++) = e;
  }
  g_free(pm->entries);
  pm->n_entries = n;
  pm->entries = (SxsSymbol *)g_array_steal(sorted, NULL);
}

int sxs__symbols_lookup_perf_map(SxsSymbolCache *cache, uintptr_t addr, const char **ret_symbol,
                                 uintptr_t *ret_offset) {
  if (cache == NULL || ret_symbol == NULL || ret_offset == NULL)
    return -EINVAL;
  int r = -ENOENT;
  g_mutex_lock(&cache->lock);
  SxsPerfMap *pm = &cache->perf_map;
  const SxsSymbol *s = symbol_find(pm->entries, pm->n_entries, addr);
  if (s == NULL) {
    /* Code generated since the last read: the map grows as the generator writes. */
    perf_map_refresh(cache);
    s = symbol_find(pm->entries, pm->n_entries, addr);
  }
  if (s != NULL) {
    *ret_symbol = s->name;
    *ret_offset = addr - s->start;
    r = 0;
  }
  g_mutex_unlock(&cache->lock);
  return r;
}

char *sxs__symbols_describe(SxsSymbolCache *cache, const SxsModuleMap *map, uintptr_t addr) {
  const char *symbol = NULL;
  uintptr_t offset = 0;
  const SxsModule *module = sxs__modmap_find(map, addr);
  if (module == NULL) {
    if (map != NULL && cache != NULL && sxs__symbols_lookup_perf_map(cache, addr, &symbol, &offset) == 0)
      return g_strdup_printf("%s!%s+0x%" PRIxPTR, SXS_SYMBOLS_PERF_MAP_MODULE, symbol, offset);
    return g_strdup_printf("0x%" PRIxPTR, addr);
  }
  if (cache != NULL && sxs__symbols_lookup(cache, module, addr, &symbol, &offset) == 0)
    return g_strdup_printf("%s!%s+0x%" PRIxPTR, module->name, symbol, offset);
  return g_strdup_printf("%s+0x%" PRIxPTR, module->name, addr - module->base);
}
