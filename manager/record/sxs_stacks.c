/* sxs_stacks: stacks recorded at runtime events, aggregated per (event, thread, frames).
 *
 *   event callback ──> sxs__stacks_record ──> stitch/ walk (no lock held) ──> key of the frames
 *                                                                             │
 *        stacks_lock: known? count it ◄───────────────────────────────────────┘
 *                     new? name its frames outside the lock (metadata, ELF symbols), then insert
 *
 * Frames are the same when they are the same function of the same runtime (managed; its code may
 * move when the JIT recompiles it at a higher tier) or the same return address (native). What the
 * walks read (module map, step and owners caches, symbols) and its lifetime is
 * stitch/sxs_walk_resources.c's.
 *
 * Lock order: stacks_lock and names_lock are leaves; the registry's locks are taken with neither held,
 * except by sxs__stacks_fill, which takes them inside stacks_lock (nothing takes stacks_lock inside
 * them). */
#include "sxs_stacks.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sxs_hresult.h"
#include "sxs_lines.h"
#include "sxs_naming.h"
#include "sxs_snapshot.h"
#include "sxs_symbols.h"
#include "sxs_unwind.h"
#include "sxs_walk_resources.h"

/* Most frames of one stitched stack: the native walk's and every runtime's walk may all land. */
#define STACKS_MAX_FRAMES SXS_STITCH_MAX_STITCHED

/* One frame's identity in an aggregated stack. */
typedef struct {
  int runtime_id;   /* 0: native */
  uint64_t id;      /* managed: FunctionID; native: the return address */
  const char *file; /* managed: the line's file (one file is always one pointer: compared by address), or NULL */
  guint32 line;     /* managed: the line (0: none); a function's samples on two lines are two stacks; a
                     * sample's native leaf: 1 when id is its function's start, not its address */
  SxsRuntime *rt;   /* managed: whose function (the registry keeps runtimes), for naming later */
} StackFrameId;

typedef struct {
  guint hash;
  SxsStackEvents event;
  uint32_t thread;
  int runtime_id;   /* the profiles' stacks: whose event; else 0 */
  const char *type; /* the profiles' stacks: interned (g_intern_string), or NULL */
  guint64 value;    /* added up with the count: nanoseconds or bytes */
  guint n;
  StackFrameId *ids;
  SxsStackModel *model;   /* names, first occurrence's ip and sp, count */
  guint spool_id;         /* its id (1, 2, ... in the order stacks were first counted): in the spool's changes
                           * and on the timeline */
  gboolean reported_once; /* its frames were in a report of changes */
  guint64 reported;       /* model->count at the last report of changes */
  guint64 reported_value; /* model->value at the last report of changes */
  gboolean changed;       /* in `changed` */
} StackEntry;

/* What one thread keeps between its walks; freed when the thread ends. */
typedef struct {
  SxsStitchScratch *scratch;
  uintptr_t stack_lo, stack_hi;
  int bounds; /* 0: not read yet; 1: read; -1: could not be read */
  gboolean busy;
  SxsStackFrame out[STACKS_MAX_FRAMES];
  StackFrameId ids[STACKS_MAX_FRAMES];
  SxsFrameLine lines[STACKS_MAX_FRAMES];
} StacksThread;

static void stacks_thread_free(gpointer p) {
  StacksThread *t = p;
  if (!t)
    return;
  sxs__stitch_scratch_free(t->scratch);
  g_free(t);
}

static GPrivate stacks_thread = G_PRIVATE_INIT(stacks_thread_free);

/* The names of frames met before, so that a new stack of known frames is named without asking a
 * runtime or reading a symbol table: (runtime id, FunctionID) of a named managed frame, (0, return
 * address) of a native one -> FrameName. Native names hold while no module was unloaded (the
 * module map's unload count, names_unloads); all go when code may have gone
 * (sxs__stacks_code_changed) or past STACKS_NAMES_MAX. names_lock is a leaf. */
#define STACKS_NAMES_MAX 65536
typedef struct {
  int runtime_id; /* 0: native */
  uint64_t id;    /* FunctionID, or the return address */
} FrameKey;
typedef struct {
  FrameKey key;
  char *name, *module;
} FrameName;
static GMutex names_lock;
static GHashTable *frame_names; /* FrameName* (key and value) */
static unsigned long long names_unloads;

/* stacks_lock guards stacks and every counter below. */
static GMutex stacks_lock;
static GHashTable *stacks; /* StackEntry* (key and value) */
/* The walks' counters, as the profile reports them (its tables: name -> guint64*). */
static SxsWalkCounters counts;
/* Entries new or counted since the last sxs__stacks_changes (borrowed from `stacks`, each once:
 * their `changed` flag), and the last spool id given. */
static GPtrArray *changed;
static guint last_spool_id;

/* Called with stacks_lock held. */
static void mark_changed_locked(StackEntry *e) {
  if (e->changed)
    return;
  e->changed = TRUE;
  if (!changed)
    changed = g_ptr_array_new();
  g_ptr_array_add(changed, e);
}

static guint entry_hash(gconstpointer p) {
  return ((const StackEntry *)p)->hash;
}

static gboolean entry_equal(gconstpointer a, gconstpointer b) {
  const StackEntry *x = a, *y = b;
  if (x->hash != y->hash || x->event != y->event || x->thread != y->thread || x->n != y->n ||
      x->runtime_id != y->runtime_id || x->type != y->type)
    return FALSE;
  for (guint i = 0; i < x->n; i++)
    if (x->ids[i].runtime_id != y->ids[i].runtime_id || x->ids[i].id != y->ids[i].id ||
        x->ids[i].line != y->ids[i].line || x->ids[i].file != y->ids[i].file)
      return FALSE;
  return TRUE;
}

static void entry_free(gpointer p) {
  StackEntry *e = p;
  g_free(e->ids);
  sxs__stack_model_free(e->model);
  g_free(e);
}

/* Called with stacks_lock held. */
static void ensure_tables_locked(void) {
  if (stacks)
    return;
  stacks = g_hash_table_new_full(entry_hash, entry_equal, entry_free, NULL);
  counts.failures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  counts.skipped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static void count_in(GHashTable *table, const char *key, guint64 by) {
  guint64 *v = g_hash_table_lookup(table, key);
  if (!v) {
    v = g_new0(guint64, 1);
    g_hash_table_insert(table, g_strdup(key), v);
  }
  *v += by;
}

static int event_index(SxsStackEvents event) {
  return event == SXS_STACKS_EXCEPTION ? 0 : event == SXS_STACKS_JIT ? 1 : 2;
}

static void count_event(SxsStackEvents event) {
  g_mutex_lock(&stacks_lock);
  counts.events[event_index(event)]++;
  g_mutex_unlock(&stacks_lock);
}

static void count_skipped(const char *reason) {
  g_mutex_lock(&stacks_lock);
  ensure_tables_locked();
  count_in(counts.skipped, reason, 1);
  g_mutex_unlock(&stacks_lock);
}

/* The walk resources for a walk of this process: [symbols] debug_dirs= from the config. */
static void resources_enter(SxsWalkResources *ret) {
  const SxsConfig *cfg = sxs__manager_config();
  sxs__walk_resources_enter(ret, cfg ? (const char *const *)cfg->symbols.debug_dirs : NULL);
}

static StacksThread *thread_state(void) {
  StacksThread *t = g_private_get(&stacks_thread);
  if (!t) {
    t = g_new0(StacksThread, 1);
    t->scratch = sxs__stitch_scratch_new();
    g_private_set(&stacks_thread, t);
  }
  if (t->bounds == 0)
    t->bounds = sxs__unwind_stack_bounds(&t->stack_lo, &t->stack_hi) == 0 ? 1 : -1;
  return t;
}

/* Why a runtime's walk did not complete: the runtime's HRESULT by name, or what stopped it. */
static const char *failure_name(int rc, HRESULT hr, char *buf, gsize size) {
  if (rc == -ESHUTDOWN)
    return "runtime shut down";
  if (rc == -ENOBUFS)
    return "too many frames";
  return sxs__hresult_text(hr, buf, size);
}

/* The walk's counters. Context: the walking thread; takes stacks_lock. */
static void count_walk(const SxsStitchReport *report, guint n_frames, const char *const *skips, guint n_skips) {
  g_mutex_lock(&stacks_lock);
  ensure_tables_locked();
  counts.made++;
  if (n_frames == 0)
    counts.empty++;
  if (report->truncated)
    counts.truncated++;
  counts.frames += n_frames;
  if (report->native_n > 0)
    counts.native_frames += (guint64)report->native_n;
  counts.ns_native += report->ns_native;
  counts.ns_classify += report->ns_classify;
  counts.ns_merge += report->ns_merge;
  gboolean failed = report->native_n < 0;
  if (report->native_n < 0) {
    g_autofree char *what = g_strdup_printf("native walk: %s", g_strerror(-report->native_n));
    count_in(counts.failures, what, 1);
  }
  for (guint i = 0; i < report->n_walks; i++) {
    counts.runtime_walks++;
    counts.ns_runtime_walks += report->walks[i].ns;
    if (report->walks[i].rc != 0) {
      char buf[16];
      failed = TRUE;
      count_in(counts.failures, failure_name(report->walks[i].rc, report->walks[i].hr, buf, sizeof buf), 1);
    }
  }
  if (report->owns_failed)
    count_in(counts.failures, "GetFunctionFromIP could not answer", report->owns_failed);
  if (failed)
    counts.failed++;
  counts.unknown_frames += report->unknown_code;
  for (guint i = 0; i < n_skips; i++)
    count_in(counts.skipped, skips[i], 1);
  g_mutex_unlock(&stacks_lock);
}

static SxsRuntime *target_runtime(const SxsStitchTarget *targets, guint n, int runtime_id) {
  for (guint i = 0; i < n; i++)
    if (targets[i].stitch.runtime_id == runtime_id)
      return targets[i].runtime;
  return NULL;
}

/* The event profile a kind of stack belongs to, or -1 for samples and [stacks] on= events. */
static int profile_of(SxsStackEvents event) {
  for (int k = 0; k < SXS_PROFILE_N_KINDS; k++)
    if (event == SXS_STACKS_PROFILE(k))
      return k;
  return -1;
}

static const char *event_name(SxsStackEvents event) {
  if (event == SXS_STACKS_SAMPLE)
    return "sample";
  if (profile_of(event) >= 0)
    return sxs__profile_kind_name((SxsProfileKind)profile_of(event));
  const char *name = sxs__config_stack_event_name(event);
  return name ? name : "?";
}

/* A managed frame's name and module: recorded ones first; else, when allowed, asked of its
 * runtime (and recorded, so the next stack has it). Leaves both NULL when neither works; when
 * asking was not allowed here (a thread holding its runtime suspended for a GC) or the runtime
 * refused on this thread (a frame of another runtime than the one whose callback this is), the
 * naming thread names it, and the stack takes the name at the next snapshot (name_late_locked). */
static void name_managed(SxsRuntime *rt, uint64_t function_id, gboolean may_ask, char **ret_name, char **ret_module) {
  if (!rt || sxs__manager_recorded_function(rt, function_id, ret_name, ret_module) == 0)
    return;
  g_autofree char *name = NULL, *module = NULL;
  int r = may_ask ? sxs__manager_function_name(rt, function_id, &name, &module) : -EAGAIN;
  if (r == -EAGAIN)
    sxs__naming_later(rt, function_id);
  if (r < 0)
    return;
  sxs__manager_record_function(rt, function_id, SXS_CODE_NAMED, name, module);
  *ret_name = g_steal_pointer(&name);
  *ret_module = g_steal_pointer(&module);
}

static guint frame_name_hash(gconstpointer p) {
  const FrameKey *k = p;
  return (guint)(k->id ^ (k->id >> 32)) * 16777619u ^ (guint)k->runtime_id;
}

static gboolean frame_name_equal(gconstpointer a, gconstpointer b) {
  const FrameKey *x = a, *y = b;
  return x->runtime_id == y->runtime_id && x->id == y->id;
}

static void frame_name_free(gpointer p) {
  FrameName *n = p;
  g_free(n->name);
  g_free(n->module);
  g_free(n);
}

/* Copies the known name of key into *ret_name, *ret_module. Context: any thread; takes names_lock. */
static gboolean frame_name_get(const FrameKey *key, unsigned long long unloads, char **ret_name, char **ret_module) {
  g_mutex_lock(&names_lock);
  if (frame_names && unloads != names_unloads)
    g_hash_table_remove_all(frame_names);
  names_unloads = unloads;
  const FrameName *n = frame_names ? g_hash_table_lookup(frame_names, key) : NULL;
  if (n) {
    *ret_name = g_strdup(n->name);
    *ret_module = g_strdup(n->module);
  }
  g_mutex_unlock(&names_lock);
  return n != NULL;
}

static void frame_name_put(const FrameKey *key, const char *name, const char *module) {
  FrameName *n = g_new(FrameName, 1);
  *n = (FrameName){.key = *key, .name = g_strdup(name), .module = g_strdup(module)};
  g_mutex_lock(&names_lock);
  if (!frame_names)
    frame_names = g_hash_table_new_full(frame_name_hash, frame_name_equal, NULL, frame_name_free);
  if (g_hash_table_size(frame_names) >= STACKS_NAMES_MAX)
    g_hash_table_remove_all(frame_names);
  g_hash_table_replace(frame_names, n, n);
  g_mutex_unlock(&names_lock);
}

/* The one copy of a frame's name or module the recorder keeps (taking and freeing s; NULL stays
 * NULL). Interned for the process's life: names are as many as the program's distinct frames. */
static char *names_intern_take(char *s) {
  if (!s)
    return NULL;
  char *interned = (char *)g_intern_string(s);
  g_free(s);
  return interned;
}

/* A new entry for the stitched frames: identities, names, first ip and sp. */
static StackEntry *entry_new(const StackEntry *key, const SxsStackFrame *frames, const SxsWalkResources *res,
                             const SxsStitchTarget *targets, guint n_targets) {
  const SxsModuleMap *map = res->map;
  StackEntry *e = g_new0(StackEntry, 1);
  *e = *key;
  e->ids = g_memdup2(key->ids, sizeof *key->ids * key->n);
  e->model = sxs__stack_model_new(event_name(key->event), key->thread);
  e->model->runtime_id = key->runtime_id;
  e->model->type = g_strdup(key->type);
  /* The frames' strings are interned (names_intern): the recorder keeps one copy of each name,
   * however many stacks hold it; a copy made for the profile owns its own. */
  g_array_set_clear_func(e->model->frames, NULL);
  /* Metadata is not read on a thread that holds the runtime suspended for a GC. */
  gboolean may_ask = key->event != SXS_STACKS_GC;
  unsigned long long unloads = sxs__modmap_unloads(map);
  g_array_set_size(e->model->frames, key->n);
  for (guint i = 0; i < key->n; i++) {
    const SxsStackFrame *f = &frames[i];
    SxsStackFrameModel *m = &g_array_index(e->model->frames, SxsStackFrameModel, i);
    *m = (SxsStackFrameModel){.ip = f->ip, .sp = f->sp};
    if (f->kind == SXS_FRAME_MANAGED) {
      m->managed = TRUE;
      m->runtime_id = f->runtime_id;
      m->file = (char *)key->ids[i].file;
      m->line = key->ids[i].line;
      e->ids[i].rt = target_runtime(targets, n_targets, f->runtime_id);
      FrameKey k = {.runtime_id = f->runtime_id, .id = f->function_id};
      if (f->function_id == 0 || !frame_name_get(&k, unloads, &m->name, &m->module)) {
        name_managed(e->ids[i].rt, f->function_id, may_ask, &m->name, &m->module);
        if (m->name && f->function_id != 0)
          frame_name_put(&k, m->name, m->module);
      }
    } else if (i == 0 && key->ids[0].line == 1) {
      /* A sample's native leaf counted by its function (add_stack): named at the function's start
       * (runtime -1 in the names' key: a start is no return address). */
      FrameKey k = {.runtime_id = -1, .id = key->ids[0].id};
      if (!frame_name_get(&k, unloads, &m->name, &m->module)) {
        m->name = sxs__symbols_describe(res->symbols, map, (uintptr_t)k.id);
        const SxsModule *mod = sxs__modmap_find(map, (uintptr_t)k.id);
        m->module = g_strdup(mod ? mod->name : "");
        frame_name_put(&k, m->name, m->module);
      }
    } else {
      /* A native frame of a stitched stack is never the walk's first: ip is a return address. */
      FrameKey k = {.runtime_id = 0, .id = f->ip};
      if (!frame_name_get(&k, unloads, &m->name, &m->module)) {
        m->name = sxs__symbols_describe(res->symbols, map, f->ip - 1);
        const SxsModule *mod = sxs__modmap_find(map, f->ip - 1);
        m->module = g_strdup(mod ? mod->name : "");
        frame_name_put(&k, m->name, m->module);
      }
    }
  }
  for (guint i = 0; i < key->n; i++) {
    SxsStackFrameModel *m = &g_array_index(e->model->frames, SxsStackFrameModel, i);
    m->name = names_intern_take(m->name);
    m->module = names_intern_take(m->module);
  }
  return e;
}

/* What an event profile's stack is counted under besides its frames, and what it adds. */
typedef struct {
  int runtime_id;
  const char *type; /* interned */
  guint64 value;
} StackTag;

/* The frame that stands for the callers of a stack merged past [stacks] max_distinct=. */
#define STACKS_MERGED_NAME "[more distinct stacks than the profile keeps]"

/* The table is full: a new stack is counted under its leaf alone, in an entry of (kind, thread,
 * tag, leaf) whose caller is a frame saying so, made the first time (these entries may pass the
 * bound: they are as many as the threads' distinct leaves). Called with stacks_lock held. */
static StackEntry *merge_locked(const StackEntry *fresh, guint64 weight, guint64 value) {
  counts.stacks_merged++;
  StackFrameId ids[2] = {fresh->ids[0], {.runtime_id = -2}};
  StackEntry key = *fresh;
  key.n = 2;
  key.ids = ids;
  key.hash = 2166136261u ^ (guint)key.event ^ (key.thread * 16777619u);
  key.hash = (key.hash ^ (guint)key.runtime_id ^ (guint)(guintptr)key.type) * 16777619u;
  key.hash = (key.hash ^ (guint)(ids[0].id ^ (ids[0].id >> 32)) ^ (guint)ids[0].runtime_id ^ ids[0].line) * 16777619u;
  key.hash = (key.hash ^ 0xfffffffeu) * 16777619u;
  StackEntry *known = g_hash_table_lookup(stacks, &key);
  if (!known) {
    known = g_new0(StackEntry, 1);
    *known = key;
    known->ids = g_memdup2(ids, sizeof ids); /* fresh was never counted: no spool id, nothing reported */
    known->model = sxs__stack_model_new(fresh->model->event, fresh->model->thread);
    g_array_set_clear_func(known->model->frames, NULL);
    known->model->runtime_id = fresh->model->runtime_id;
    known->model->type = g_strdup(fresh->model->type);
    known->model->thread_name = g_strdup(fresh->model->thread_name);
    known->spool_id = ++last_spool_id;
    SxsStackFrameModel leaf = g_array_index(fresh->model->frames, SxsStackFrameModel, 0);
    SxsStackFrameModel more = {.name = (char *)g_intern_static_string(STACKS_MERGED_NAME),
                               .module = (char *)g_intern_static_string(""),
                               .sp = leaf.sp + 1};
    g_array_append_val(known->model->frames, leaf);
    g_array_append_val(known->model->frames, more);
    g_hash_table_add(stacks, known);
  }
  known->model->count += weight;
  known->model->value += value;
  mark_changed_locked(known);
  return known;
}

/* Counts one stack (weight times) under (kind, thread, tag, frames with their lines), naming it
 * when it is new. ids and lines: room for n of each; tag may be NULL. leaf_exact: frames[0].ip is
 * an interrupted instruction (a sample), not a return address. Returns the stack's entry (kept
 * until a reset), NULL when it was dropped. Context: normal context, no lock held; takes
 * stacks_lock (and the lines lock before it, not inside it). */
static StackEntry *add_stack(SxsStackEvents kind, uint32_t thread, const char *thread_name, const SxsStackFrame *frames,
                             guint n, guint64 weight, const SxsWalkResources *res, const SxsStitchTarget *targets,
                             guint n_targets, gboolean leaf_exact, StackFrameId *ids, SxsFrameLine *lines,
                             const StackTag *tag) {
  /* A thread that holds its runtime suspended for a GC asks it nothing: lines known already only. */
  sxs__lines_resolve(targets, n_targets, frames, n, leaf_exact, kind != SXS_STACKS_GC, lines);
  StackEntry key = {.event = kind, .thread = thread, .n = n, .ids = ids};
  if (tag) {
    key.runtime_id = tag->runtime_id;
    key.type = tag->type;
  }
  guint64 value = tag ? tag->value : 0;
  guint h = 2166136261u ^ (guint)kind ^ (key.thread * 16777619u);
  h = (h ^ (guint)key.runtime_id ^ (guint)(guintptr)key.type) * 16777619u;
  for (guint i = 0; i < n; i++) {
    const SxsStackFrame *f = &frames[i];
    gboolean managed = f->kind == SXS_FRAME_MANAGED && f->function_id != 0;
    ids[i] = (StackFrameId){.runtime_id = managed ? f->runtime_id : 0,
                            .id = managed ? f->function_id : f->ip,
                            .file = managed ? lines[i].file : NULL,
                            .line = managed ? lines[i].line : 0};
    /* A sample's native leaf is any instruction of its function: counted by the function's start
     * where a symbol names it, so that a hot native function is one stack, not one per
     * instruction sampled (the views name it by function anyway). */
    if (i == 0 && leaf_exact && !managed) {
      const SxsModule *mod = sxs__modmap_find(res->map, f->ip);
      const char *symbol;
      uintptr_t offset;
      if (mod && res->symbols && sxs__symbols_lookup(res->symbols, mod, f->ip, &symbol, &offset) == 0) {
        ids[i].id = f->ip - offset;
        ids[i].line = 1; /* a function, not an address */
      }
    }
    h = (h ^ (guint)ids[i].runtime_id) * 16777619u;
    h = (h ^ (guint)(ids[i].id ^ (ids[i].id >> 32))) * 16777619u;
    h = (h ^ ids[i].line) * 16777619u;
  }
  key.hash = h;
  const SxsConfig *cfg = sxs__manager_config();
  guint max_distinct = cfg ? cfg->stacks_max_distinct : SXS_CONFIG_STACKS_MAX_DISTINCT_DEFAULT;

  g_mutex_lock(&stacks_lock);
  ensure_tables_locked();
  StackEntry *known = g_hash_table_lookup(stacks, &key);
  if (known) {
    known->model->count += weight;
    known->model->value += value;
    mark_changed_locked(known);
  }
  g_mutex_unlock(&stacks_lock);
  if (known)
    return known;
  gint64 t0 = g_get_monotonic_time();
  StackEntry *fresh = entry_new(&key, frames, res, targets, n_targets);
  if (thread_name)
    fresh->model->thread_name = g_strdup(thread_name);
  guint64 naming = (guint64)(g_get_monotonic_time() - t0) * 1000;
  g_mutex_lock(&stacks_lock);
  counts.ns_naming += naming;
  if (counts.stacks_named++ == 0)
    counts.ns_naming_first = naming;
  known = g_hash_table_lookup(stacks, &key);
  if (known) {
    known->model->count += weight;
    known->model->value += value;
    mark_changed_locked(known);
  } else if (g_hash_table_size(stacks) >= max_distinct) {
    known = merge_locked(fresh, weight, value);
  } else {
    fresh->model->count = weight;
    fresh->model->value = value;
    fresh->spool_id = ++last_spool_id;
    g_hash_table_add(stacks, fresh);
    mark_changed_locked(fresh);
    known = g_steal_pointer(&fresh);
  }
  g_mutex_unlock(&stacks_lock);
  if (fresh)
    entry_free(fresh);
  return known;
}

/* Walks the calling thread and counts its stack under event (and tag). NULL when no stack was
 * recorded (a walk already under way on this thread, unknown bounds, no frame, the table full). */
static StackEntry *record_current(SxsStackEvents event, guint64 weight, const StackTag *tag) {
  StacksThread *t = thread_state();
  if (t->busy) {
    count_skipped("event during a walk");
    return NULL;
  }
  if (t->bounds < 0) {
    count_skipped("stack bounds unknown");
    return NULL;
  }
  t->busy = TRUE;

  SxsWalkResources res;
  resources_enter(&res);
  SxsStitchTarget targets[SXS_STITCH_MAX_RUNTIMES];
  SxsStitchRuntime runtimes[SXS_STITCH_MAX_RUNTIMES];
  const char *skips[16];
  guint n_skips = 0;
  guint n_targets =
      sxs__manager_stitch_targets(targets, runtimes, G_N_ELEMENTS(targets), skips, G_N_ELEMENTS(skips), &n_skips);

  SxsStitchReport report;
  guint n = sxs__stitch_current_thread(runtimes, n_targets, &res, t->stack_lo, t->stack_hi, t->scratch, t->out,
                                       STACKS_MAX_FRAMES, &report);
  count_walk(&report, n, skips, n_skips);
  if (n == 0) {
    sxs__walk_resources_leave();
    t->busy = FALSE;
    return NULL;
  }

  StackEntry *e = add_stack(event, (uint32_t)syscall(SYS_gettid), NULL, t->out, n, weight, &res, targets, n_targets,
                            FALSE, t->ids, t->lines, tag);
  sxs__walk_resources_leave();
  t->busy = FALSE;
  return e;
}

void sxs__stacks_record(SxsStackEvents event) {
  count_event(event);
  record_current(event, 1, NULL);
}

SxsStackHandle *sxs__stacks_record_typed(SxsProfileKind kind, int runtime_id, const char *type, guint64 count,
                                         guint64 value) {
  StackTag tag = {.runtime_id = runtime_id, .type = type ? g_intern_string(type) : NULL, .value = value};
  return (SxsStackHandle *)record_current(SXS_STACKS_PROFILE(kind), count, &tag);
}

guint sxs__stacks_handle_id(const SxsStackHandle *handle) {
  return handle ? ((const StackEntry *)handle)->spool_id : 0;
}

void sxs__stacks_add_to(SxsStackHandle *handle, guint64 count, guint64 value) {
  StackEntry *e = (StackEntry *)handle;
  g_mutex_lock(&stacks_lock);
  e->model->count += count;
  e->model->value += value;
  mark_changed_locked(e);
  g_mutex_unlock(&stacks_lock);
}

static void copy_counts(GHashTable *to, GHashTable *from) {
  if (!from)
    return;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, from);
  while (g_hash_table_iter_next(&it, &key, &value))
    count_in(to, key, *(guint64 *)value);
}

/* The walk counters into m (its tables added to). Called with stacks_lock held. */
static void fill_counters_locked(SxsProfileModel *m) {
  GHashTable *failures = m->walks.failures, *skipped = m->walks.skipped;
  m->walks = counts;
  m->walks.failures = failures;
  m->walks.skipped = skipped;
  copy_counts(m->walks.failures, counts.failures);
  copy_counts(m->walks.skipped, counts.skipped);
}

void sxs__stacks_fill_counters(SxsProfileModel *m) {
  g_mutex_lock(&stacks_lock);
  fill_counters_locked(m);
  g_mutex_unlock(&stacks_lock);
}

/* Frames recorded unnamed (at a GC) get the name their function has been given since. Called
 * with stacks_lock held (takes registry locks). */
static void name_late_locked(StackEntry *e) {
  for (guint i = 0; i < e->n; i++) {
    SxsStackFrameModel *f = &g_array_index(e->model->frames, SxsStackFrameModel, i);
    if (f->managed && !f->name && e->ids[i].rt) {
      char *name = NULL, *module = NULL;
      sxs__manager_recorded_function(e->ids[i].rt, e->ids[i].id, &name, &module);
      f->name = names_intern_take(name);
      f->module = names_intern_take(module);
    }
  }
}

/* A copy of e's stack for a snapshot (its frames' names borrowed: interned), what still has no name
 * reported by its identity. Called with stacks_lock held. */
static SxsStackModel *snapshot_locked(StackEntry *e) {
  name_late_locked(e);
  SxsStackModel *st = sxs__stack_model_copy_borrowed(e->model);
  for (guint j = 0; j < st->frames->len; j++) {
    SxsStackFrameModel *f = &g_array_index(st->frames, SxsStackFrameModel, j);
    if (!f->name) {
      g_autofree char *name =
          g_strdup_printf("[runtime %d code at 0x%" G_GINTPTR_MODIFIER "x]", f->runtime_id, (guintptr)f->ip);
      f->name = (char *)g_intern_string(name);
    }
    if (!f->module)
      f->module = (char *)g_intern_static_string("");
  }
  return st;
}

void sxs__stacks_fill(SxsProfileModel *m, GHashTable *ret_by_id) {
  g_mutex_lock(&stacks_lock);
  fill_counters_locked(m);
  if (stacks) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, stacks);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
      StackEntry *e = key;
      int k = profile_of(e->event);
      GPtrArray *to = e->event == SXS_STACKS_SAMPLE ? m->samples.stacks : k >= 0 ? m->profiles[k].stacks : m->stacks;
      SxsStackModel *copy = snapshot_locked(e);
      g_ptr_array_add(to, copy);
      if (ret_by_id)
        g_hash_table_insert(ret_by_id, GUINT_TO_POINTER(e->spool_id), copy);
    }
  }
  g_mutex_unlock(&stacks_lock);
  /* Each list in the profile's order. */
  GPtrArray *lists[] = {m->stacks, m->samples.stacks, m->profiles[0].stacks, m->profiles[1].stacks,
                        m->profiles[2].stacks};
  G_STATIC_ASSERT(SXS_PROFILE_N_KINDS == 3);
  for (guint l = 0; l < G_N_ELEMENTS(lists); l++) {
    g_ptr_array_sort(lists[l], sxs__stack_model_compare);
  }
}

/* Reports one entry: its first report carries a copy of its frames. Called with stacks_lock held. */
static void report_locked(GArray *out, StackEntry *e, gboolean all) {
  SxsStackChange c = {.id = e->spool_id};
  if (!e->reported_once || all) {
    e->reported_once = TRUE;
    c.model = snapshot_locked(e);
    c.model->count = 0;
    c.model->value = 0;
    if (all) {
      e->reported = 0; /* a fresh spool: the whole count */
      e->reported_value = 0;
    }
  }
  c.delta = e->model->count - e->reported;
  e->reported = e->model->count;
  c.value_delta = e->model->value - e->reported_value;
  e->reported_value = e->model->value;
  e->changed = FALSE;
  if (c.model || c.delta || c.value_delta)
    g_array_append_val(out, c);
}

GArray *sxs__stacks_changes(gboolean all) {
  GArray *out = g_array_new(FALSE, FALSE, sizeof(SxsStackChange));
  g_mutex_lock(&stacks_lock);
  if (all && stacks) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, stacks);
    while (g_hash_table_iter_next(&it, &key, NULL))
      report_locked(out, key, TRUE);
  } else {
    for (guint i = 0; changed && i < changed->len; i++)
      report_locked(out, changed->pdata[i], FALSE);
  }
  if (changed)
    g_ptr_array_set_size(changed, 0);
  g_mutex_unlock(&stacks_lock);
  return out;
}

void sxs__stacks_changes_free(GArray *changes) {
  if (!changes)
    return;
  for (guint i = 0; i < changes->len; i++)
    sxs__stack_model_free(g_array_index(changes, SxsStackChange, i).model);
  g_array_unref(changes);
}

SxsStackHandle *sxs__stacks_add_stitched(const SxsWalkResources *res, uint32_t thread, const char *thread_name,
                                         const SxsStackFrame *frames, guint n, guint64 weight,
                                         const SxsStitchTarget *targets, guint n_targets) {
  static __thread StackFrameId *ids;
  static __thread SxsFrameLine *lines;
  if (!ids) {
    ids = g_new(StackFrameId, STACKS_MAX_FRAMES);
    lines = g_new(SxsFrameLine, STACKS_MAX_FRAMES);
  }
  /* A sample's leaf is where the thread was interrupted. */
  return (SxsStackHandle *)add_stack(SXS_STACKS_SAMPLE, thread, thread_name, frames, MIN(n, STACKS_MAX_FRAMES), weight,
                                     res, targets, n_targets, TRUE, ids, lines, NULL);
}

void sxs__stacks_rename_thread(uint32_t thread, const char *name) {
  g_mutex_lock(&stacks_lock);
  if (stacks) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, stacks);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
      StackEntry *e = key;
      if (e->event == SXS_STACKS_SAMPLE && e->thread == thread && g_strcmp0(e->model->thread_name, name) != 0) {
        g_free(e->model->thread_name);
        e->model->thread_name = g_strdup(name);
      }
    }
  }
  g_mutex_unlock(&stacks_lock);
}

void sxs__stacks_code_changed(void) {
  g_mutex_lock(&names_lock);
  if (frame_names)
    g_hash_table_remove_all(frame_names);
  g_mutex_unlock(&names_lock);
  sxs__walk_resources_code_changed();
}

void sxs__stacks_reset_for_tests(void) {
  g_mutex_lock(&names_lock);
  g_clear_pointer(&frame_names, g_hash_table_unref);
  g_mutex_unlock(&names_lock);
  g_mutex_lock(&stacks_lock);
  g_clear_pointer(&changed, g_ptr_array_unref);
  last_spool_id = 0;
  g_clear_pointer(&stacks, g_hash_table_unref);
  g_clear_pointer(&counts.failures, g_hash_table_unref);
  g_clear_pointer(&counts.skipped, g_hash_table_unref);
  counts = (SxsWalkCounters){0};
  g_mutex_unlock(&stacks_lock);
}
