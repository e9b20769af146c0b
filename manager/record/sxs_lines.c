/* sxs_lines: managed frames to source lines, cached per method and per code version.
 *
 *   frame (runtime r, FunctionID f, ip)       lines_lock: methods[(r, f)]
 *     | leaf: ip; caller: ip - 1                 known method, a version holding the address?
 *     v                                            yes: binary search of its segments -> file:line
 *   miss (no lock held)                            no:  ask (below), unless it has no lines at all
 *     new method: r's il_map(f, 0) -> module path, token
 *       PDB of the module (once per path: embedded, beside it, [lines] paths=) -> f's points
 *     f has points: r's il_map(f, address) -> code version (start, ranges), IL-to-native map
 *       segments: each native offset where the map's answer changes -> IL offset -> point -> line
 *   lines_lock: keep the method and the version; answer
 *
 * A method is kept once whatever happens (no PDB, no points: it answers "no line" at once). A
 * version is a code start: tier 0, tier 1 and a re-JIT of one method are three, each with its own
 * map. Code no version the runtime lists holds is asked about at most LINES_MAX_ASKS times per
 * method. A runtime's methods are dropped when one of its modules unloads (a collectible module's
 * FunctionIDs and code addresses can be taken by new code); PDBs stay (they are files).
 *
 * Lock order: lines_lock is a leaf. Runtimes are asked with no lock held; the registry is read
 * (names, config) with lines_lock not held. */
#include "sxs_lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sxs_pdb.h"

#define LINES_MAX_VERSIONS 16 /* code versions kept per method */
#define LINES_MAX_ASKS 16     /* asks about code no version holds, per method */
#define LINES_MAX_BOUNDARIES 8192

/* From one native offset on, up to the next segment's: this line (file NULL: none). */
typedef struct {
  guint32 start;
  guint32 line;
  const char *file;
} Segment;

typedef struct {
  uintptr_t code_start;
  struct {
    uintptr_t start;
    size_t size;
  } ranges[2];
  guint n_ranges;
  Segment *segs;
  guint n_segs;
} CodeVersion;

/* Where one assembly's PDB was looked for, and what was found. Owned by lines.pdbs. */
typedef struct {
  SxsPdb *pdb; /* NULL when none is used */
  SxsPdbStatus status;
  char *where;
  gboolean blob_damage_logged;
  guint64 runtimes; /* bit id - 1: runtimes whose modules are this assembly (ids 1 to 64), for the profile */
} PdbEntry;

typedef struct {
  int runtime_id;
  uint64_t function_id;
} MethodKey;

typedef struct {
  MethodKey key;
  SxsSeqPoint *points; /* visible sequence points, IL order; NULL: the method has no lines */
  const char **files;  /* each point's file: its PDB's document name (PDBs are kept for good) */
  guint n_points;
  const char *first_file;
  guint32 first_line;
  CodeVersion *versions; /* n_versions of them, grown one at a time (most methods have one or two) */
  guint n_versions;
  guint asks; /* asks that found no version holding the address */
} Method;

/* lock guards everything below it. */
static struct {
  GMutex lock;
  GHashTable *methods; /* MethodKey* -> Method* (key inside the value) */
  GHashTable *pdbs;    /* assembly path -> PdbEntry* */
  GHashTable *unloads; /* runtime id -> modules_unloaded when its methods were last checked */
  guint64 stacks, resolved, unresolved, methods_read, versions_read, ns, ns_first;
} lines;

static guint method_key_hash(gconstpointer p) {
  const MethodKey *k = p;
  /* FunctionIDs are aligned pointers: their low bits say little. */
  return (guint)((k->function_id * G_GUINT64_CONSTANT(0x9E3779B97F4A7C15)) >> 32) ^ (guint)k->runtime_id;
}

static gboolean method_key_equal(gconstpointer a, gconstpointer b) {
  const MethodKey *x = a, *y = b;
  return x->runtime_id == y->runtime_id && x->function_id == y->function_id;
}

static void method_free(gpointer p) {
  Method *m = p;
  for (guint i = 0; i < m->n_versions; i++)
    g_free(m->versions[i].segs);
  g_free(m->versions);
  g_free(m->points);
  g_free(m->files);
  g_free(m);
}

static void pdb_entry_free(gpointer p) {
  PdbEntry *e = p;
  sxs__pdb_free(e->pdb);
  g_free(e->where);
  g_free(e);
}

/* Called with lines.lock held. */
static void ensure_tables_locked(void) {
  if (lines.methods)
    return;
  lines.methods = g_hash_table_new_full(method_key_hash, method_key_equal, NULL, method_free);
  lines.pdbs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, pdb_entry_free);
  lines.unloads = g_hash_table_new(g_direct_hash, g_direct_equal);
}

static guint64 now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (guint64)ts.tv_sec * G_GUINT64_CONSTANT(1000000000) + (guint64)ts.tv_nsec;
}

/* Drops the methods of runtimes a module of which unloaded since they were kept. Called with
 * lines.lock held. */
static void drop_unloaded_locked(const SxsStitchTarget *targets, guint n_targets) {
  for (guint i = 0; i < n_targets; i++) {
    int id = targets[i].stitch.runtime_id;
    guint64 now = (guint64)sxs__counter_get(&targets[i].runtime->counters.modules_unloaded);
    gpointer key = GINT_TO_POINTER(id);
    guint64 then = GPOINTER_TO_SIZE(g_hash_table_lookup(lines.unloads, key));
    if (now == then)
      continue;
    g_hash_table_insert(lines.unloads, key, GSIZE_TO_POINTER(now));
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, lines.methods);
    while (g_hash_table_iter_next(&it, NULL, &value))
      if (((Method *)value)->key.runtime_id == id)
        g_hash_table_iter_remove(&it);
  }
}

/* The offset of addr in the code version, counting through its ranges in order; FALSE when none
 * holds it. */
static gboolean version_offset(const CodeVersion *v, uintptr_t addr, guint32 *ret_offset) {
  size_t before = 0;
  for (guint k = 0; k < v->n_ranges; k++) {
    if (addr >= v->ranges[k].start && addr - v->ranges[k].start < v->ranges[k].size) {
      *ret_offset = (guint32)(before + (addr - v->ranges[k].start));
      return TRUE;
    }
    before += v->ranges[k].size;
  }
  return FALSE;
}

static SxsFrameLine segment_at(const CodeVersion *v, guint32 offset) {
  guint lo = 0, hi = v->n_segs;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (v->segs[mid].start <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return (SxsFrameLine){0};
  return (SxsFrameLine){.file = v->segs[lo - 1].file, .line = v->segs[lo - 1].line};
}

/* Answers from what is kept: TRUE with *ret (which may be "no line") when the method is known and
 * either has no lines or a version holding addr, or may not be asked about again; FALSE when the
 * runtime is to be asked. Called with lines.lock held. */
static gboolean lookup_locked(const MethodKey *key, uintptr_t addr, SxsFrameLine *ret) {
  *ret = (SxsFrameLine){0};
  Method *m = g_hash_table_lookup(lines.methods, key);
  if (!m)
    return FALSE;
  if (!m->points)
    return TRUE;
  for (guint i = 0; i < m->n_versions; i++) {
    guint32 offset;
    if (version_offset(&m->versions[i], addr, &offset)) {
      *ret = segment_at(&m->versions[i], offset);
      return TRUE;
    }
  }
  return m->asks >= LINES_MAX_ASKS || m->n_versions >= LINES_MAX_VERSIONS;
}

static const char *const *config_paths(void) {
  const SxsConfig *cfg = sxs__manager_config();
  return cfg ? (const char *const *)cfg->lines.paths : NULL;
}

/* The PDB of the assembly at path, looked for once; *ret_log (g_free) gets the one line to log
 * when what was found is worth saying (a PDB not used). Called with lines.lock held: it reads
 * files, which other resolvers wait for. */
static PdbEntry *pdb_for_locked(const char *path, const char *const *folders, char **ret_log) {
  PdbEntry *e = g_hash_table_lookup(lines.pdbs, path);
  if (e)
    return e;
  e = g_new0(PdbEntry, 1);
  e->pdb = sxs__pdb_for_assembly(path, folders, &e->status, &e->where);
  g_hash_table_insert(lines.pdbs, g_strdup(path), e);
  g_autofree char *base = g_path_get_basename(path);
  switch (e->status) {
  case SXS_PDB_MISMATCH:
    *ret_log = g_strdup_printf("lines: %s: the PDB %s is of another build (its id is not the assembly's); not used",
                               base, e->where);
    break;
  case SXS_PDB_WINDOWS:
    *ret_log = g_strdup_printf("lines: %s: its PDB %s is a Windows PDB; only portable PDBs are read", base, e->where);
    break;
  case SXS_PDB_DAMAGED: *ret_log = g_strdup_printf("lines: %s: no lines (%s)", base, e->where); break;
  default: break;
  }
  return e;
}

/* A new method from what its runtime said: its PDB's points, if any. Called with lines.lock held. */
static Method *method_new_locked(const MethodKey *key, int runtime_id, const SxsIlMap *map, const char *const *folders,
                                 char **ret_log) {
  Method *m = g_new0(Method, 1);
  m->key = *key;
  if (!map || !map->module_path)
    return m;
  PdbEntry *e = pdb_for_locked(map->module_path, folders, ret_log);
  if (runtime_id >= 1 && runtime_id <= 64)
    e->runtimes |= G_GUINT64_CONSTANT(1) << (runtime_id - 1);
  if (!e->pdb)
    return m;
  g_autofree char *why = NULL;
  SxsSeqPoint *points = NULL;
  guint n = 0;
  int r = sxs__pdb_method_points(e->pdb, map->token & 0x00ffffffu, &points, &n, &why);
  if (r == -EBADMSG && !e->blob_damage_logged && !*ret_log) {
    g_autofree char *base = g_path_get_basename(map->module_path);
    *ret_log = g_strdup_printf("lines: %s: %s: %s; its methods so damaged have no lines", base, e->where, why);
    e->blob_damage_logged = TRUE;
  }
  if (r < 0 || n == 0) {
    g_free(points);
    return m;
  }
  m->points = points;
  m->n_points = n;
  m->files = g_new(const char *, n);
  for (guint i = 0; i < n; i++) {
    m->files[i] = sxs__pdb_document_name(e->pdb, points[i].document);
  }
  guint32 doc = 0;
  m->first_line = sxs__pdb_first_line(points, n, &doc);
  m->first_file = sxs__pdb_document_name(e->pdb, doc);
  lines.methods_read++;
  return m;
}

static int compare_u32(const void *a, const void *b) {
  guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
  return x < y ? -1 : x > y;
}

/* A map entry and where it was in the map, to sort by (start, place). */
typedef struct {
  guint32 start, end;
  gint32 il;
  guint place;
} SortedEntry;

static int compare_entries(const void *a, const void *b) {
  const SortedEntry *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->place < y->place ? -1 : x->place > y->place;
}

/* sxs__pdb_il_offset at each of the ascending offsets bounds[0 .. n) into ret_il, in one sweep over
 * the entries sorted by start: the entries starting at or before an offset are a prefix; the one
 * that starts last (the latest of equals) is the answer when no entry of the prefix holds the
 * offset, and the holding one that starts last is found a few steps back from it, as CoreCLR's
 * maps follow one another. An offset whose holder lies further back gets the exact search. */
static void il_offsets(const COR_DEBUG_IL_TO_NATIVE_MAP *map, guint n_map, const guint32 *bounds, guint n,
                       gint32 *ret_il) {
  g_autofree SortedEntry *e = g_new(SortedEntry, MAX(n_map, 1));
  for (guint i = 0; i < n_map; i++)
    e[i] = (SortedEntry){map[i].nativeStartOffset, map[i].nativeEndOffset, (gint32)map[i].ilOffset, i};
  /* The runtime's maps come in native order: sorted already, most of the time. */
  gboolean sorted = TRUE;
  for (guint i = 1; i < n_map && sorted; i++)
    sorted = compare_entries(&e[i - 1], &e[i]) < 0;
  if (!sorted)
    qsort(e, n_map, sizeof *e, compare_entries);
  guint k = 0; /* entries e[0 .. k) start at or before the offset */
  for (guint i = 0; i < n; i++) {
    while (k < n_map && e[k].start <= bounds[i])
      k++;
    if (k == 0) {
      ret_il[i] = NO_MAPPING;
      continue;
    }
    guint steps = 0;
    gint64 j = (gint64)k - 1;
    while (j >= 0 && steps < 8 && e[j].end <= bounds[i]) {
      j--;
      steps++;
    }
    if (j >= 0 && e[j].end > bounds[i])
      ret_il[i] = e[j].il;
    else if (j < 0)
      ret_il[i] = e[k - 1].il;
    else
      ret_il[i] = sxs__pdb_il_offset(map, n_map, bounds[i]);
  }
}

/* Adds the code version of map to m: its native offsets where the line changes. Called with
 * lines.lock held. */
static void add_version_locked(Method *m, const SxsIlMap *map) {
  m->versions = g_renew(CodeVersion, m->versions, m->n_versions + 1);
  CodeVersion *v = &m->versions[m->n_versions++];
  *v = (CodeVersion){0};
  v->code_start = map->code_start;
  v->n_ranges = map->n_ranges;
  for (guint k = 0; k < map->n_ranges; k++) {
    v->ranges[k].start = map->ranges[k].start;
    v->ranges[k].size = map->ranges[k].size;
  }
  /* The answer of sxs__pdb_il_offset changes only where an entry starts or ends. */
  guint n_bounds = MIN(2 * map->n_map + 1, (guint)LINES_MAX_BOUNDARIES);
  g_autofree guint32 *bounds = g_new(guint32, n_bounds);
  guint nb = 0;
  bounds[nb++] = 0;
  for (guint i = 0; i < map->n_map && nb + 2 <= n_bounds; i++) {
    bounds[nb++] = map->map[i].nativeStartOffset;
    bounds[nb++] = map->map[i].nativeEndOffset;
  }
  gboolean sorted = TRUE;
  for (guint i = 1; i < nb && sorted; i++)
    sorted = bounds[i - 1] <= bounds[i];
  if (!sorted)
    qsort(bounds, nb, sizeof *bounds, compare_u32);
  guint unique = 0;
  for (guint i = 0; i < nb; i++)
    if (i == 0 || bounds[i] != bounds[unique - 1])
      bounds[unique++] = bounds[i];
  g_autofree gint32 *ils = g_new(gint32, unique);
  il_offsets(map->map, map->n_map, bounds, unique, ils);
  v->segs = g_new(Segment, unique);
  v->n_segs = 0;
  for (guint i = 0; i < unique; i++) {
    gint32 il = ils[i];
    const SxsSeqPoint *p = sxs__pdb_point_at(m->points, m->n_points, il);
    /* IL before the first statement is the method's start; code the map gives no IL at all (a
     * GC poll, a patchpoint's counter) belongs to the line before it. */
    if (!p && il >= 0)
      p = &m->points[0];
    if (!p && il == NO_MAPPING && v->n_segs > 0)
      continue;
    Segment s = {.start = bounds[i]};
    if (p) {
      s.file = m->files[p - m->points];
      s.line = p->line;
    }
    if (v->n_segs > 0 && v->segs[v->n_segs - 1].file == s.file && v->segs[v->n_segs - 1].line == s.line)
      continue;
    v->segs[v->n_segs++] = s;
  }
  lines.versions_read++;
}

static gboolean version_known(const Method *m, uintptr_t code_start) {
  for (guint i = 0; i < m->n_versions; i++)
    if (m->versions[i].code_start == code_start)
      return TRUE;
  return FALSE;
}

/* Keeps a method not kept yet from what its runtime said of it (r: what il_map returned). Called
 * with lines.lock held; *ret_log as pdb_for_locked. */
static Method *keep_method_locked(const MethodKey *key, int runtime_id, int r, const SxsIlMap *map,
                                  const char *const *folders, char **ret_log) {
  Method *m = g_hash_table_lookup(lines.methods, key);
  if (!m) {
    m = method_new_locked(key, runtime_id, r == 0 ? map : NULL, folders, ret_log);
    g_hash_table_insert(lines.methods, &m->key, m);
  }
  return m;
}

/* Asks the frame's runtime about a method or code version not kept yet, keeps what it says, and
 * answers (addr 0: the method alone). A method met for the first time is asked for alone (its
 * module and token): only a method its PDB has lines for is asked for its code version's map, so
 * the framework's methods (no PDBs) cost one question each. Context: as sxs__lines_resolve;
 * takes lines.lock briefly, calls the runtime without it. */
static SxsFrameLine ask(const SxsStitchTarget *t, const MethodKey *key, uintptr_t addr) {
  SxsFrameLine answer = {0};
  if (!t->ops->il_map)
    return answer;
  const char *const *folders = config_paths();
  g_autofree char *log = NULL;
  g_mutex_lock(&lines.lock);
  ensure_tables_locked();
  Method *m = g_hash_table_lookup(lines.methods, key);
  g_mutex_unlock(&lines.lock);
  if (!m) {
    SxsIlMap method = {0};
    int r = t->ops->il_map(t->stitch.user, key->function_id, 0, &method);
    if (r == -ESHUTDOWN)
      return answer; /* nothing kept: the runtime is going, its frames are named as they are */
    g_mutex_lock(&lines.lock);
    m = keep_method_locked(key, t->stitch.runtime_id, r, &method, folders, &log);
    gboolean has_points = m->points != NULL;
    g_mutex_unlock(&lines.lock);
    sxs__il_map_clear(&method);
    if (log)
      sxs__manager_log("%s", log);
    if (!has_points || addr == 0)
      return answer;
  } else if (addr == 0) {
    return answer;
  }
  /* The method has lines: the code version that holds addr (the method looked up again below: an
   * unload may have dropped it meanwhile). */
  SxsIlMap map = {0};
  int r = t->ops->il_map(t->stitch.user, key->function_id, addr, &map);
  if (r == -ESHUTDOWN)
    return answer;
  g_mutex_lock(&lines.lock);
  m = g_hash_table_lookup(lines.methods, key);
  if (m && m->points) {
    if (r == 0 && map.code_start && map.n_map > 0 && !version_known(m, map.code_start) &&
        m->n_versions < LINES_MAX_VERSIONS)
      add_version_locked(m, &map);
    if (!lookup_locked(key, addr, &answer))
      m->asks++;
  }
  g_mutex_unlock(&lines.lock);
  sxs__il_map_clear(&map);
  return answer;
}

static const SxsStitchTarget *target_of(const SxsStitchTarget *targets, guint n, int runtime_id) {
  for (guint i = 0; i < n; i++)
    if (targets[i].stitch.runtime_id == runtime_id)
      return &targets[i];
  return NULL;
}

void sxs__lines_resolve(const SxsStitchTarget *targets, guint n_targets, const SxsStackFrame *frames, guint n,
                        gboolean leaf_exact, gboolean may_ask, SxsFrameLine *ret) {
  memset(ret, 0, n * sizeof *ret);
  const SxsConfig *cfg = sxs__manager_config();
  if (cfg && !cfg->lines.enabled)
    return;
  guint64 t0 = now_ns();
  guint misses = 0, resolved = 0, managed = 0;
  g_mutex_lock(&lines.lock);
  ensure_tables_locked();
  drop_unloaded_locked(targets, n_targets);
  for (guint i = 0; i < n; i++) {
    const SxsStackFrame *f = &frames[i];
    if (f->kind != SXS_FRAME_MANAGED || f->function_id == 0)
      continue;
    managed++;
    MethodKey key = {.runtime_id = f->runtime_id, .function_id = f->function_id};
    uintptr_t addr = i == 0 && leaf_exact ? f->ip : f->ip - 1;
    if (!lookup_locked(&key, addr, &ret[i])) {
      ret[i].line = G_MAXUINT32; /* asked below */
      misses++;
    }
  }
  g_mutex_unlock(&lines.lock);
  guint64 t1 = now_ns();
  for (guint i = 0; misses > 0 && i < n; i++) {
    if (ret[i].line != G_MAXUINT32)
      continue;
    const SxsStackFrame *f = &frames[i];
    MethodKey key = {.runtime_id = f->runtime_id, .function_id = f->function_id};
    const SxsStitchTarget *t = target_of(targets, n_targets, f->runtime_id);
    ret[i] = t && may_ask ? ask(t, &key, i == 0 && leaf_exact ? f->ip : f->ip - 1) : (SxsFrameLine){0};
  }
  for (guint i = 0; i < n; i++)
    if (ret[i].file)
      resolved++;
  guint64 t2 = now_ns();
  g_mutex_lock(&lines.lock);
  lines.stacks++;
  lines.resolved += resolved;
  lines.unresolved += managed - resolved;
  lines.ns += t2 - t0;
  if (misses)
    lines.ns_first += t2 - t1;
  g_mutex_unlock(&lines.lock);
}

/* The first line of a traced function no stack met: its method asked for alone. Context: as
 * sxs__lines_fill. */
static void learn_method(const SxsStitchTarget *t, uint64_t function_id) {
  MethodKey key = {.runtime_id = t->stitch.runtime_id, .function_id = function_id};
  g_mutex_lock(&lines.lock);
  ensure_tables_locked();
  gboolean known = g_hash_table_contains(lines.methods, &key);
  g_mutex_unlock(&lines.lock);
  if (!known)
    ask(t, &key, 0);
}

void sxs__lines_learn(SxsRuntime *rt, uint64_t function_id) {
  const SxsConfig *cfg = sxs__manager_config();
  if (cfg && !cfg->lines.enabled)
    return;
  SxsStitchTarget t = {.runtime = rt};
  g_mutex_lock(&rt->lock);
  t.ops = rt->ops;
  t.stitch.user = rt->ops_instance;
  t.stitch.runtime_id = rt->id;
  g_mutex_unlock(&rt->lock);
  if (t.ops)
    learn_method(&t, function_id);
}

static int compare_modules(gconstpointer a, gconstpointer b) {
  const SxsLinesModuleModel *x = *(SxsLinesModuleModel *const *)a, *y = *(SxsLinesModuleModel *const *)b;
  if (x->runtime_id != y->runtime_id)
    return x->runtime_id < y->runtime_id ? -1 : 1;
  return strcmp(x->module, y->module);
}

static int compare_retiered(gconstpointer a, gconstpointer b) {
  const SxsLinesMethodModel *x = *(SxsLinesMethodModel *const *)a, *y = *(SxsLinesMethodModel *const *)b;
  if (x->runtime_id != y->runtime_id)
    return x->runtime_id < y->runtime_id ? -1 : 1;
  return g_strcmp0(x->name, y->name);
}

void sxs__lines_fill(SxsProfileModel *m) {
  const SxsConfig *cfg = sxs__manager_config();
  SxsLinesModel *l = &m->lines;
  l->enabled = !cfg || cfg->lines.enabled;

  /* Traced functions no stack met are asked for their first lines, while their runtimes live. */
  if (l->enabled) {
    SxsStitchTarget targets[SXS_STITCH_MAX_RUNTIMES];
    guint n_targets = sxs__manager_stitch_targets(targets, NULL, G_N_ELEMENTS(targets), NULL, 0, NULL);
    for (guint i = 0; i < m->runtimes->len; i++) {
      SxsRuntimeModel *r = m->runtimes->pdata[i];
      const SxsStitchTarget *t = target_of(targets, n_targets, r->id);
      for (guint j = 0; t && j < r->functions->len; j++) {
        const SxsFunctionRecord *f = r->functions->pdata[j];
        if (f->traced)
          learn_method(t, f->function_id);
      }
    }
  }

  g_autoptr(GArray) retiered = g_array_new(FALSE, FALSE, sizeof(SxsLinesMethodModel));
  g_mutex_lock(&lines.lock);
  ensure_tables_locked();
  l->stacks = lines.stacks;
  l->frames_resolved = lines.resolved;
  l->frames_unresolved = lines.unresolved;
  l->methods = lines.methods_read;
  l->code_versions = lines.versions_read;
  l->ns_resolving = lines.ns;
  l->ns_first = lines.ns_first;
  for (guint i = 0; i < m->runtimes->len; i++) {
    SxsRuntimeModel *r = m->runtimes->pdata[i];
    for (guint j = 0; j < r->functions->len; j++) {
      SxsFunctionRecord *f = r->functions->pdata[j];
      MethodKey key = {.runtime_id = r->id, .function_id = f->function_id};
      Method *mm = g_hash_table_lookup(lines.methods, &key);
      if (mm && mm->first_file && !f->file) {
        f->file = g_strdup(mm->first_file);
        f->line = mm->first_line;
      }
    }
  }
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, lines.pdbs);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const PdbEntry *e = value;
    for (int id = 1; id <= 64; id++) {
      if (!(e->runtimes & (G_GUINT64_CONSTANT(1) << (id - 1))))
        continue;
      SxsLinesModuleModel *mod = g_new0(SxsLinesModuleModel, 1);
      mod->runtime_id = id;
      mod->module = g_path_get_basename(key);
      mod->status = g_strdup(sxs__pdb_status_name(e->status));
      mod->where = g_strdup(e->where);
      g_ptr_array_add(l->modules, mod);
    }
  }
  g_hash_table_iter_init(&it, lines.methods);
  while (g_hash_table_iter_next(&it, NULL, &value)) {
    const Method *mm = value;
    if (mm->n_versions < 2)
      continue;
    SxsLinesMethodModel x = {.runtime_id = mm->key.runtime_id, .versions = mm->n_versions};
    x.name = GSIZE_TO_POINTER((gsize)mm->key.function_id); /* named below, without the lock */
    g_array_append_val(retiered, x);
  }
  g_mutex_unlock(&lines.lock);
  g_ptr_array_sort(l->modules, compare_modules);

  /* Names from the registry (its locks, not ours). */
  for (guint i = 0; i < retiered->len; i++) {
    SxsLinesMethodModel *x = &g_array_index(retiered, SxsLinesMethodModel, i);
    uint64_t function_id = GPOINTER_TO_SIZE(x->name);
    char *name = NULL;
    for (guint j = 0; j < m->runtimes->len && !name; j++) {
      const SxsRuntimeModel *r = m->runtimes->pdata[j];
      if (r->id != x->runtime_id)
        continue;
      for (guint k = 0; k < r->functions->len && !name; k++) {
        const SxsFunctionRecord *f = r->functions->pdata[k];
        if (f->function_id == function_id)
          name = g_strdup(f->name);
      }
    }
    SxsLinesMethodModel *copy = g_new0(SxsLinesMethodModel, 1);
    *copy = *x;
    copy->name = name ? name : g_strdup_printf("[function 0x%" G_GINT64_MODIFIER "x]", (guint64)function_id);
    g_ptr_array_add(l->retiered, copy);
  }
  g_ptr_array_sort(l->retiered, compare_retiered);
}

void sxs__lines_reset_for_tests(void) {
  g_mutex_lock(&lines.lock);
  g_clear_pointer(&lines.methods, g_hash_table_unref);
  g_clear_pointer(&lines.pdbs, g_hash_table_unref);
  g_clear_pointer(&lines.unloads, g_hash_table_unref);
  lines.stacks = lines.resolved = lines.unresolved = lines.methods_read = lines.versions_read = 0;
  lines.ns = lines.ns_first = 0;
  g_mutex_unlock(&lines.lock);
}
