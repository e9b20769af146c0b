/* Which loaded module's code holds an address: a snapshot of the modules' code ranges, searched
 * without locks, from a signal handler too. It reads no symbols (sxs_symbols.c), does not unwind,
 * and does not know JIT-compiled code (the stitcher asks the runtimes for that).
 *
 *   dl_iterate_phdr, only when the loader's
 *   dlpi_adds/dlpi_subs moved since the last build
 *        |
 *        v
 *   SxsModuleMap (read without locks)
 *     ranges[], PF_X PT_LOADs sorted by start
 *     [0x55d1c000, 0x55d1e451) -> test_symbols
 *     [0x7f3e5c426000, ...)    -> libc.so.6  ---+
 *     [0x7ffd3c3fb000, ...)    -> [vdso]        |
 *                                               |
 *   find(addr): binary search -> SxsModule -----+--> sxs__symbols_lookup(module, addr) (sxs_symbols.c)
 *   find_cached(cursor, addr): no search while addr stays where the cursor's last answer holds
 *
 * The map is what a signal handler may consult (a classification of the interrupted IP); it is
 * rebuilt only outside signal handlers, by its owner, while nobody searches it.
 */
#include "sxs_modmap.h"
#include "sxs_search.h"

#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

/* One executable PT_LOAD segment of a module, at run-time addresses. */
typedef struct {
  uintptr_t start; /* first byte */
  uintptr_t end;   /* one past the last byte */
  const SxsModule *module;
} SxsCodeRange;

struct SxsModuleMap {
  SxsModule *modules; /* n_modules, in the loader's order */
  guint n_modules;
  SxsCodeRange *ranges; /* n_ranges, sorted by start; module points into modules */
  guint n_ranges;
  GStringChunk *strings; /* every module's path and name */
  gboolean counted;      /* adds and subs hold the loader's counters at the last build */
  unsigned long long adds;
  unsigned long long subs;
};

/* What the dl_iterate_phdr callback copies out, so that the loader lock is held only for that. */
typedef struct {
  char *loader_name; /* dlpi_name (owned); NULL for the main program and the vdso */
  gboolean is_main;
  gboolean is_vdso;
  uintptr_t base;
  SxsEhFrame eh;
} SxsRawModule;

typedef struct {
  uintptr_t start;
  uintptr_t end;
  guint module; /* index into SxsModuleScan.modules */
} SxsRawRange;

typedef struct {
  const SxsModuleMap *map;
  uintptr_t main_phdr; /* getauxval(AT_PHDR): the main program's program headers; 0 if unknown */
  uintptr_t vdso_ehdr; /* getauxval(AT_SYSINFO_EHDR): the vdso's ELF header; 0 if none */
  guint calls;
  gboolean counted;
  gboolean unchanged; /* the counters equal the map's: the scan stopped at the first object */
  unsigned long long adds;
  unsigned long long subs;
  GArray *modules; /* SxsRawModule */
  GArray *ranges;  /* SxsRawRange */
} SxsModuleScan;

/* dl_iterate_phdr callback, run under the loader lock: compares the counters on the first object,
 * then copies each object's name, base and executable segments. Objects without a name (other
 * than the main program and the vdso) or without code are left out. */
static int modmap_scan_object(struct dl_phdr_info *info, size_t size, void *data) {
  SxsModuleScan *scan = data;

  if (scan->calls++ == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
    scan->counted = TRUE;
    scan->adds = info->dlpi_adds;
    scan->subs = info->dlpi_subs;
    if (scan->map->counted && scan->adds == scan->map->adds && scan->subs == scan->map->subs) {
      scan->unchanged = TRUE;
      return 1;
    }
  }

  gboolean has_name = info->dlpi_name != NULL && info->dlpi_name[0] != '\0';
  gboolean is_main;
  if (scan->main_phdr != 0)
    is_main = (uintptr_t)info->dlpi_phdr == scan->main_phdr;
  else
    is_main = scan->calls == 1 && !has_name;
  gboolean is_vdso = FALSE;
  guint first_range = scan->ranges->len;
  SxsEhFrame eh = {0, 0, 0};
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
      eh.hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;

  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    /* The segment holding the unwind tables bounds every read of them. */
    if (eh.hdr != 0 && eh.hdr >= start && eh.hdr - start < ph->p_filesz) {
      eh.lo = start;
      eh.hi = start + ph->p_filesz;
    }
    if (scan->vdso_ehdr != 0 && scan->vdso_ehdr >= start && scan->vdso_ehdr - start < ph->p_memsz)
      is_vdso = TRUE;
    if ((ph->p_flags & PF_X) == 0 || ph->p_memsz == 0)
      continue;
    SxsRawRange range = {.start = start, .end = start + ph->p_memsz, .module = scan->modules->len};
    g_array_append_val(scan->ranges, range);
  }

  if (scan->ranges->len == first_range || (!is_main && !is_vdso && !has_name)) {
    g_array_set_size(scan->ranges, first_range);
    return 0;
  }
  SxsRawModule raw = {
      .loader_name = is_main || is_vdso ? NULL : g_strdup(info->dlpi_name),
      .is_main = is_main && !is_vdso,
      .is_vdso = is_vdso,
      .base = info->dlpi_addr,
      .eh = eh.lo != 0 ? eh : (SxsEhFrame){0, 0, 0},
  };
  g_array_append_val(scan->modules, raw);
  return 0;
}

static void raw_module_clear(gpointer data) {
  SxsRawModule *raw = data;
  g_free(raw->loader_name);
}

static int code_range_compare(const void *a, const void *b) {
  const SxsCodeRange *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Fills module's path and name from what the scan saw; realpath runs here, outside the loader lock. */
static void module_name_from_raw(SxsModule *module, const SxsRawModule *raw, GStringChunk *strings) {
  if (raw->is_vdso) {
    module->path = module->name = g_string_chunk_insert_const(strings, "[vdso]");
    return;
  }
  /* The main program's own name is empty; /proc/self/exe does not depend on argv[0] or on the
   * working directory. */
  const char *loader_name = raw->is_main ? "/proc/self/exe" : raw->loader_name;
  char *real = realpath(loader_name, NULL);
  module->path = g_string_chunk_insert(strings, real != NULL ? real : loader_name);
  free(real);

  const char *shown = raw->is_main ? module->path : loader_name;
  const char *slash = strrchr(shown, '/');
  module->name = g_string_chunk_insert(strings, slash != NULL && slash[1] != '\0' ? slash + 1 : shown);
}

/* Replaces the map's snapshot with the scanned objects. */
static void modmap_install(SxsModuleMap *map, const SxsModuleScan *scan) {
  GStringChunk *strings = g_string_chunk_new(4096);
  SxsModule *modules = g_new0(SxsModule, MAX(scan->modules->len, 1));
  SxsCodeRange *ranges = g_new0(SxsCodeRange, MAX(scan->ranges->len, 1));

  for (guint i = 0; i < scan->modules->len; i++) {
    const SxsRawModule *raw = &g_array_index(scan->modules, SxsRawModule, i);
    module_name_from_raw(&modules[i], raw, strings);
    modules[i].base = raw->base;
    modules[i].eh = raw->eh;
  }
  for (guint i = 0; i < scan->ranges->len; i++) {
    const SxsRawRange *raw = &g_array_index(scan->ranges, SxsRawRange, i);
    ranges[i] = (SxsCodeRange){.start = raw->start, .end = raw->end, .module = &modules[raw->module]};
  }
  qsort(ranges, scan->ranges->len, sizeof(*ranges), code_range_compare);

  g_free(map->modules);
  g_free(map->ranges);
  if (map->strings != NULL)
    g_string_chunk_free(map->strings);
  map->modules = modules;
  map->n_modules = scan->modules->len;
  map->ranges = ranges;
  map->n_ranges = scan->ranges->len;
  map->strings = strings;
  map->counted = scan->counted;
  map->adds = scan->adds;
  map->subs = scan->subs;
}

SxsModuleMap *sxs__modmap_new(void) {
  SxsModuleMap *map = g_new0(SxsModuleMap, 1);
  sxs__modmap_refresh(map);
  return map;
}

void sxs__modmap_free(SxsModuleMap *map) {
  if (map == NULL)
    return;
  g_free(map->modules);
  g_free(map->ranges);
  if (map->strings != NULL)
    g_string_chunk_free(map->strings);
  g_free(map);
}

gboolean sxs__modmap_refresh(SxsModuleMap *map) {
  if (map == NULL)
    return FALSE;

  SxsModuleScan scan = {
      .map = map,
      .main_phdr = getauxval(AT_PHDR),
      .vdso_ehdr = getauxval(AT_SYSINFO_EHDR),
      .modules = g_array_new(FALSE, TRUE, sizeof(SxsRawModule)),
      .ranges = g_array_new(FALSE, TRUE, sizeof(SxsRawRange)),
  };
  g_array_set_clear_func(scan.modules, raw_module_clear);
  dl_iterate_phdr(modmap_scan_object, &scan);

  gboolean rebuilt = !scan.unchanged;
  if (rebuilt)
    modmap_install(map, &scan);
  g_array_unref(scan.modules);
  g_array_unref(scan.ranges);
  return rebuilt;
}

/* dl_iterate_phdr callback of sxs__modmap_is_current: the counters, from the first object only. */
static int modmap_read_counters(struct dl_phdr_info *info, size_t size, void *data) {
  unsigned long long *counters = data;
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
    counters[0] = info->dlpi_adds;
    counters[1] = info->dlpi_subs;
    counters[2] = 1;
  }
  return 1;
}

unsigned long long sxs__modmap_unloads(const SxsModuleMap *map) {
  return map != NULL && map->counted ? map->subs : 0;
}

const SxsModule *sxs__modmap_find_named(const SxsModuleMap *map, const char *name) {
  for (guint i = 0; map != NULL && name != NULL && i < map->n_modules; i++)
    if (strcmp(map->modules[i].name, name) == 0)
      return &map->modules[i];
  return NULL;
}

gboolean sxs__modmap_is_current(const SxsModuleMap *map) {
  if (map == NULL || !map->counted)
    return FALSE;
  unsigned long long counters[3] = {0, 0, 0};
  dl_iterate_phdr(modmap_read_counters, counters);
  return counters[2] && counters[0] == map->adds && counters[1] == map->subs;
}

const SxsModule *sxs__modmap_find(const SxsModuleMap *map, uintptr_t addr) {
  SxsModmapCursor cursor = {.map = map};
  return sxs__modmap_find_cached(&cursor, addr);
}

const SxsModule *sxs__modmap_find_cached(SxsModmapCursor *cursor, uintptr_t addr) {
  if (addr >= cursor->lo && addr < cursor->hi)
    return cursor->module;
  const SxsModuleMap *map = cursor->map;
  if (map == NULL)
    return NULL;
  /* lo is the first range that starts above addr; the one before it is the only candidate. */
  size_t lo = SXS_SEARCH_UPPER_BOUND(map->ranges, map->n_ranges, start, addr);
  /* In range lo - 1, or in the gap between its end and range lo's start. */
  if (lo > 0 && addr < map->ranges[lo - 1].end) {
    cursor->lo = map->ranges[lo - 1].start;
    cursor->hi = map->ranges[lo - 1].end;
    cursor->module = map->ranges[lo - 1].module;
  } else {
    cursor->lo = lo > 0 ? map->ranges[lo - 1].end : 0;
    cursor->hi = lo < map->n_ranges ? map->ranges[lo].start : UINTPTR_MAX;
    cursor->module = NULL;
  }
  return cursor->module;
}
