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
 * What a long run keeps grows with the program's distinct frames and stacks, not its samples, and a
 * stack costs little of it: each distinct frame is kept once (its names interned), and the stacks
 * share their callers in a tree of calls from the outermost frame (a node: its caller's node, its
 * frame, and its distance in stack pointer from its caller, so that a stack's stack pointers are
 * its first occurrence's). A stack is its leaf's node, its outermost stack pointer and its counts:
 * a stack that differs from a known one in its leaf adds one node. The stacks' table is keyed by
 * (event, thread, tag, frames), compared along the tree, so that a sample finds its stack with one
 * hash of its frames, as before the tree.
 *
 * Lock order: stacks_lock and names_lock are leaves; the registry's locks are taken with neither held,
 * except by sxs__stacks_fill, which takes them inside stacks_lock (nothing takes stacks_lock inside
 * them). */
#include "sxs_stacks.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sxs_cfi.h"
#include "sxs_hresult.h"
#include "sxs_lines.h"
#include "sxs_naming.h"
#include "sxs_prologue.h"
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

/* A distinct frame of the recorded stacks (index + 1 in `frames` is its id in the nodes). */
typedef struct {
  StackFrameId id;                   /* identity; id.rt: whose function, for naming it late */
  gboolean managed;                  /* a managed frame, even one whose function is not known */
  int runtime_id;                    /* managed frames: whose; 0 for native ones */
  const char *key_name, *key_module; /* the names it was given when first met (interned): part of its
                                      * identity, so that a FunctionID or an address reused after its
                                      * code went is a frame of its own */
  const char *name, *module;         /* what it is called now (interned; name NULL: not yet known,
                                      * a frame met while its runtime could not be asked) */
  uintptr_t ip;                      /* its first occurrence's instruction pointer */
  guint32 self;                      /* its id (not part of its identity) */
} RecFrame;

/* A node of the tree of calls: one frame under one caller. */
typedef struct {
  guint32 parent;   /* the caller's node id; 0: an outermost frame */
  guint32 frame;    /* the frame's id (index + 1 in `frames`) */
  guint64 sp_delta; /* the caller's stack pointer minus this frame's (0 for an outermost frame) */
} Node;

/* A recorded stack (88 bytes: a long run keeps as many as it met distinct stacks). */
typedef struct {
  guint hash;
  guint16 event; /* SxsStackEvents */
  guint16 n;     /* frames (at most STACKS_MAX_FRAMES) */
  uint32_t thread;
  gint32 runtime_id;       /* the profiles' stacks: whose event; else 0 */
  guint32 leaf;            /* its first frame's node; 0 in a probe (whose frames are probe_ids) */
  guint32 spool_id;        /* its id (1, 2, ... in the order stacks were first counted): in the spool's
                         * changes and on the timeline */
  guint8 reported_once;    /* its frames were in a report of changes */
  guint8 changed;          /* in `changed` */
  const char *type;        /* the profiles' stacks: interned (g_intern_string), or NULL */
  uintptr_t root_sp;       /* its outermost frame's stack pointer, at its first occurrence */
  const char *thread_name; /* interned, or NULL */
  guint64 count;
  guint64 value;          /* added up with the count: nanoseconds or bytes */
  guint64 reported;       /* count at the last report of changes */
  guint64 reported_value; /* value at the last report of changes */
} StackEntry;
G_STATIC_ASSERT(STACKS_MAX_FRAMES <= G_MAXUINT16 && sizeof(StackEntry) == 88);

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
  const char *name, *module; /* interned */
} FrameName;
static GMutex names_lock;
static GHashTable *frame_names; /* FrameName* (key and value) */
static unsigned long long names_unloads;

/* stacks_lock guards the stacks, their frames and nodes, and every counter below. */
static GMutex stacks_lock;
static GHashTable *stacks;      /* StackEntry* (key and value) */
static GPtrArray *frames;       /* RecFrame*, by id - 1; owned */
static GHashTable *frame_index; /* RecFrame* (key and value, borrowed from frames) */
static GArray *nodes;           /* Node, by id - 1 */
static GHashTable *node_index;  /* node id (GUINT_TO_POINTER) -> itself; 0 stands for node_probe */
static Node node_probe;
/* The frames of the entry being looked up (leaf 0), leaf first. */
static const StackFrameId *probe_ids;
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

static const Node *node_get(guint32 id) {
  return id ? &g_array_index(nodes, Node, id - 1) : &node_probe;
}

static const RecFrame *frame_get(guint32 id) {
  return frames->pdata[id - 1];
}

static gboolean frame_id_equal(const StackFrameId *x, const StackFrameId *y) {
  return x->runtime_id == y->runtime_id && x->id == y->id && x->line == y->line && x->file == y->file;
}

/* The frames of an entry one by one, leaf first: a probe's from its ids, a stored one's up the tree. */
typedef struct {
  const StackEntry *e;
  guint i;
  guint32 node;
} FrameWalk;

static FrameWalk frame_walk(const StackEntry *e) {
  return (FrameWalk){.e = e, .node = e->leaf};
}

static const StackFrameId *frame_walk_next(FrameWalk *w) {
  if (!w->e->leaf)
    return &probe_ids[w->i++];
  const Node *n = node_get(w->node);
  w->node = n->parent;
  return &frame_get(n->frame)->id;
}

static guint entry_hash(gconstpointer p) {
  return ((const StackEntry *)p)->hash;
}

/* Called with stacks_lock held (the table's lookups and inserts are). */
static gboolean entry_equal(gconstpointer a, gconstpointer b) {
  const StackEntry *x = a, *y = b;
  if (x->hash != y->hash || x->event != y->event || x->thread != y->thread || x->n != y->n ||
      x->runtime_id != y->runtime_id || x->type != y->type)
    return FALSE;
  FrameWalk wx = frame_walk(x), wy = frame_walk(y);
  for (guint i = 0; i < x->n; i++)
    if (!frame_id_equal(frame_walk_next(&wx), frame_walk_next(&wy)))
      return FALSE;
  return TRUE;
}

static guint rec_frame_hash(gconstpointer p) {
  const RecFrame *f = p;
  guint h = 2166136261u ^ (guint)f->id.runtime_id;
  h = (h ^ (guint)(f->id.id ^ (f->id.id >> 32))) * 16777619u;
  h = (h ^ f->id.line ^ (guint)(guintptr)f->id.file) * 16777619u;
  h = (h ^ (guint)(guintptr)f->key_name ^ (guint)(guintptr)f->key_module) * 16777619u;
  return (h ^ (guint)f->runtime_id ^ (f->managed ? 0x80000000u : 0)) * 16777619u;
}

static gboolean rec_frame_equal(gconstpointer a, gconstpointer b) {
  const RecFrame *x = a, *y = b;
  return frame_id_equal(&x->id, &y->id) && x->managed == y->managed && x->runtime_id == y->runtime_id &&
         x->key_name == y->key_name && x->key_module == y->key_module;
}

static guint node_hash(gconstpointer p) {
  const Node *n = node_get(GPOINTER_TO_UINT(p));
  guint h = (2166136261u ^ n->parent) * 16777619u;
  h = (h ^ n->frame) * 16777619u;
  return (h ^ (guint)(n->sp_delta ^ (n->sp_delta >> 32))) * 16777619u;
}

static gboolean node_equal(gconstpointer a, gconstpointer b) {
  const Node *x = node_get(GPOINTER_TO_UINT(a)), *y = node_get(GPOINTER_TO_UINT(b));
  return x->parent == y->parent && x->frame == y->frame && x->sp_delta == y->sp_delta;
}

/* Called with stacks_lock held. */
static void ensure_tables_locked(void) {
  if (stacks)
    return;
  stacks = g_hash_table_new_full(entry_hash, entry_equal, g_free, NULL);
  frames = g_ptr_array_new_with_free_func(g_free);
  frame_index = g_hash_table_new(rec_frame_hash, rec_frame_equal);
  nodes = g_array_new(FALSE, FALSE, sizeof(Node));
  node_index = g_hash_table_new(node_hash, node_equal);
  counts.failures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  counts.skipped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

/* The id of frame f (a copy kept when it is new). Called with stacks_lock held. */
static guint32 frame_intern_locked(const RecFrame *f) {
  RecFrame *known = g_hash_table_lookup(frame_index, f);
  if (!known) {
    known = g_memdup2(f, sizeof *f);
    g_ptr_array_add(frames, known);
    known->self = frames->len;
    g_hash_table_add(frame_index, known);
  }
  return known->self;
}

/* The id of the node (parent, frame, sp_delta), made when new. Called with stacks_lock held. */
static guint32 node_intern_locked(guint32 parent, guint32 frame, guint64 sp_delta) {
  node_probe = (Node){.parent = parent, .frame = frame, .sp_delta = sp_delta};
  gpointer found;
  if (g_hash_table_lookup_extended(node_index, GUINT_TO_POINTER(0), &found, NULL))
    return GPOINTER_TO_UINT(found);
  g_array_append_val(nodes, node_probe);
  guint32 id = nodes->len;
  g_hash_table_add(node_index, GUINT_TO_POINTER(id));
  return id;
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

/* The known names of key (interned) into *ret_name, *ret_module. Context: any thread; takes
 * names_lock. */
static gboolean frame_name_get(const FrameKey *key, unsigned long long unloads, const char **ret_name,
                               const char **ret_module) {
  g_mutex_lock(&names_lock);
  if (frame_names && unloads != names_unloads)
    g_hash_table_remove_all(frame_names);
  names_unloads = unloads;
  const FrameName *n = frame_names ? g_hash_table_lookup(frame_names, key) : NULL;
  if (n) {
    *ret_name = n->name;
    *ret_module = n->module;
  }
  g_mutex_unlock(&names_lock);
  return n != NULL;
}

/* name and module: interned. */
static void frame_name_put(const FrameKey *key, const char *name, const char *module) {
  FrameName *n = g_new(FrameName, 1);
  *n = (FrameName){.key = *key, .name = name, .module = module};
  g_mutex_lock(&names_lock);
  if (!frame_names)
    frame_names = g_hash_table_new_full(frame_name_hash, frame_name_equal, NULL, g_free);
  if (g_hash_table_size(frame_names) >= STACKS_NAMES_MAX)
    g_hash_table_remove_all(frame_names);
  g_hash_table_replace(frame_names, n, n);
  g_mutex_unlock(&names_lock);
}

/* The one copy of a frame's name or module the recorder keeps (taking and freeing s; NULL stays
 * NULL). Interned for the process's life: names are as many as the program's distinct frames. */
static const char *names_intern_take(char *s) {
  if (!s)
    return NULL;
  const char *interned = g_intern_string(s);
  g_free(s);
  return interned;
}

/* A frame of a stack not yet counted: what the frame table will keep of it, and its stack pointer. */
typedef struct {
  RecFrame f;
  uintptr_t sp;
} FrameDraft;

/* The runtime stub a leaf at ip (code in no module that no runtime claims) is in, from the code
 * around it (code freed since cannot be read), or NULL. */
static const char *stub_name_at(uintptr_t ip) {
  enum { BEFORE = 24, AFTER = 24 };
  uint8_t code[BEFORE + AFTER];
  if (ip > BEFORE && sxs__unwind_read_self(ip - BEFORE, code, sizeof code))
    return sxs__prologue_stub_name(code, sizeof code, BEFORE);
  /* the code before ip on another page that is not mapped: from ip on */
  return sxs__unwind_read_self(ip, code, AFTER) ? sxs__prologue_stub_name(code, AFTER, 0) : NULL;
}

/* A native frame's name at address at (a return address less one, or a function's start) and its
 * module's ("" in none), from res's map and symbols (interned both). */
static void native_name(const SxsWalkResources *res, uintptr_t at, const char **ret_name, const char **ret_module) {
  *ret_name = names_intern_take(sxs__symbols_describe(res->symbols, res->map, at));
  const SxsModule *mod = sxs__modmap_find(res->map, at);
  *ret_module = g_intern_string(mod ? mod->name : "");
}

/* Names the frames of a new stack (ids: their identities) into out[0..n). Context: the walking
 * thread, no lock held (asks runtimes, reads symbols; takes names_lock). */
static void name_frames(SxsStackEvents kind, const StackFrameId *ids, const SxsStackFrame *frames, guint n,
                        const SxsWalkResources *res, const SxsStitchTarget *targets, guint n_targets, FrameDraft *out) {
  const SxsModuleMap *map = res->map;
  /* Metadata is not read on a thread that holds the runtime suspended for a GC. */
  gboolean may_ask = kind != SXS_STACKS_GC;
  unsigned long long unloads = sxs__modmap_unloads(map);
  for (guint i = 0; i < n; i++) {
    const SxsStackFrame *f = &frames[i];
    FrameDraft *d = &out[i];
    *d = (FrameDraft){.f = {.id = ids[i], .ip = f->ip}, .sp = f->sp};
    RecFrame *r = &d->f;
    if (f->kind == SXS_FRAME_MANAGED) {
      r->managed = TRUE;
      r->runtime_id = f->runtime_id;
      r->id.rt = target_runtime(targets, n_targets, f->runtime_id);
      FrameKey k = {.runtime_id = f->runtime_id, .id = f->function_id};
      if (f->function_id == 0 || !frame_name_get(&k, unloads, &r->name, &r->module)) {
        char *name = NULL, *module = NULL;
        name_managed(r->id.rt, f->function_id, may_ask, &name, &module);
        r->name = names_intern_take(name);
        r->module = names_intern_take(module);
        if (r->name && f->function_id != 0)
          frame_name_put(&k, r->name, r->module);
      }
    } else {
      /* A sample's native leaf counted by its function (add_stack) is named at the function's start
       * (runtime -1 in the names' key: a start is no return address); any other native frame of a
       * stitched stack is never the walk's first: its ip is a return address. */
      gboolean start = i == 0 && ids[0].line == 1;
      FrameKey k = {.runtime_id = start ? -1 : 0, .id = start ? ids[0].id : f->ip};
      if (!frame_name_get(&k, unloads, &r->name, &r->module)) {
        native_name(res, start ? (uintptr_t)k.id : f->ip - 1, &r->name, &r->module);
        const char *stub = i == 0 && !start && g_str_has_prefix(r->name, "0x") ? stub_name_at(f->ip) : NULL;
        if (stub)
          r->name = g_intern_static_string(stub);
        /* A bare address is named again by the next stack that meets it (and late: below): a module
         * loaded since the map was read, or the perf map's new lines, name it then. */
        if (!g_str_has_prefix(r->name, "0x"))
          frame_name_put(&k, r->name, r->module);
      }
    }
    r->key_name = r->name;
    r->key_module = r->module;
  }
}

/* The stored entry with key's identity and the frames ids (key->leaf 0), or NULL. Called with
 * stacks_lock held. */
static StackEntry *lookup_locked(const StackEntry *key, const StackFrameId *ids) {
  probe_ids = ids;
  return g_hash_table_lookup(stacks, key);
}

/* Keeps a new stack: its frames in the frame table, its path in the tree, an entry counting none
 * yet (key: its identity and thread name). Called with stacks_lock held. */
static StackEntry *insert_locked(const StackEntry *key, const FrameDraft *drafts, guint n) {
  guint32 node = 0;
  for (guint i = n; i-- > 0;) {
    guint32 frame = frame_intern_locked(&drafts[i].f);
    node = node_intern_locked(node, frame, i + 1 < n ? (guint64)(drafts[i + 1].sp - drafts[i].sp) : 0);
  }
  StackEntry *e = g_new(StackEntry, 1);
  *e = *key;
  e->leaf = node;
  e->root_sp = drafts[n - 1].sp;
  e->count = 0;
  e->value = 0;
  e->spool_id = ++last_spool_id;
  g_hash_table_add(stacks, e);
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

/* The table is full: a new stack (key, drafts: its frames named) is counted under its leaf alone,
 * in an entry of (kind, thread, tag, leaf) whose caller is a frame saying so, made the first time
 * (these entries may pass the bound: they are as many as the threads' distinct leaves). Called
 * with stacks_lock held. */
static StackEntry *merge_locked(const StackEntry *fresh, const StackFrameId *fresh_ids, const FrameDraft *drafts,
                                guint64 weight, guint64 value) {
  counts.stacks_merged++;
  StackFrameId ids[2] = {fresh_ids[0], {.runtime_id = -2}};
  StackEntry key = *fresh;
  key.n = 2;
  key.hash = 2166136261u ^ (guint)key.event ^ (key.thread * 16777619u);
  key.hash = (key.hash ^ (guint)key.runtime_id ^ (guint)(guintptr)key.type) * 16777619u;
  key.hash = (key.hash ^ (guint)(ids[0].id ^ (ids[0].id >> 32)) ^ (guint)ids[0].runtime_id ^ ids[0].line) * 16777619u;
  key.hash = (key.hash ^ 0xfffffffeu) * 16777619u;
  StackEntry *known = lookup_locked(&key, ids);
  if (!known) {
    const char *more = g_intern_static_string(STACKS_MERGED_NAME), *none = g_intern_static_string("");
    FrameDraft two[2] = {drafts[0],
                         {.f = {.id = ids[1], .key_name = more, .key_module = none, .name = more, .module = none},
                          .sp = drafts[0].sp + 1}};
    known = insert_locked(&key, two, 2);
  }
  known->count += weight;
  known->value += value;
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
  if (n == 0)
    return NULL;
  /* A thread that holds its runtime suspended for a GC asks it nothing: lines known already only. */
  sxs__lines_resolve(targets, n_targets, frames, n, leaf_exact, kind != SXS_STACKS_GC, lines);
  StackEntry key = {.event = (guint16)kind, .thread = thread, .n = (guint16)n};
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
     * where a symbol names it, else where the module's unwind tables start the function that holds
     * it (a stripped library's: libcoreclr's own functions have no symbol), so that a hot native
     * function is one stack, not one per instruction sampled (the views name it by function). */
    if (i == 0 && leaf_exact && !managed) {
      const SxsModule *mod = sxs__modmap_find(res->map, f->ip);
      const char *symbol;
      uintptr_t offset, start;
      if (mod && res->symbols && sxs__symbols_lookup(res->symbols, mod, f->ip, &symbol, &offset) == 0) {
        ids[i].id = f->ip - offset;
        ids[i].line = 1; /* a function, not an address */
      } else if (mod && sxs__cfi_function_start(&mod->eh, f->ip, &start) == 0) {
        ids[i].id = start;
        ids[i].line = 1;
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
  StackEntry *known = lookup_locked(&key, ids);
  if (known) {
    known->count += weight;
    known->value += value;
    mark_changed_locked(known);
  }
  g_mutex_unlock(&stacks_lock);
  if (known)
    return known;
  gint64 t0 = g_get_monotonic_time();
  g_autofree FrameDraft *drafts = g_new(FrameDraft, n);
  name_frames(kind, ids, frames, n, res, targets, n_targets, drafts);
  key.thread_name = thread_name ? g_intern_string(thread_name) : NULL;
  guint64 naming = (guint64)(g_get_monotonic_time() - t0) * 1000;
  g_mutex_lock(&stacks_lock);
  counts.ns_naming += naming;
  if (counts.stacks_named++ == 0)
    counts.ns_naming_first = naming;
  known = lookup_locked(&key, ids);
  if (known) {
    known->count += weight;
    known->value += value;
    mark_changed_locked(known);
  } else if (g_hash_table_size(stacks) >= max_distinct) {
    known = merge_locked(&key, ids, drafts, weight, value);
  } else {
    known = insert_locked(&key, drafts, n);
    known->count = weight;
    known->value = value;
    mark_changed_locked(known);
  }
  g_mutex_unlock(&stacks_lock);
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
  e->count += count;
  e->value += value;
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

/* What the stacks, frames and tree take: their records, the arrays' room and the tables' slots (a
 * hash, a key and a value for each of a table's buckets; its buckets are at most 4 of its entries
 * to 1 spare). Called with stacks_lock held. */
static guint64 recorder_bytes_locked(void) {
  if (!stacks)
    return 0;
  const guint64 slot = sizeof(guint) + 2 * sizeof(gpointer);
  guint64 n_stacks = g_hash_table_size(stacks), n_frames = frames->len;
  guint64 b = n_stacks * (sizeof(StackEntry) + slot * 5 / 4);
  b += n_frames * (sizeof(RecFrame) + sizeof(gpointer) + slot * 5 / 4);
  b += (guint64)nodes->len * (sizeof(Node) + slot * 5 / 4);
  return b + (changed ? changed->len * sizeof(gpointer) : 0);
}

/* The walk counters into m (its tables added to). Called with stacks_lock held. */
static void fill_counters_locked(SxsProfileModel *m) {
  GHashTable *failures = m->walks.failures, *skipped = m->walks.skipped;
  counts.stack_nodes = nodes ? nodes->len : 0;
  counts.recorder_bytes = recorder_bytes_locked();
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

/* A frame recorded unnamed (at a GC) gets the name its function has been given since. Called with
 * stacks_lock held (takes registry locks). */
static void name_late_locked(RecFrame *f) {
  if (f->managed && !f->name && f->id.rt) {
    char *name = NULL, *module = NULL;
    sxs__manager_recorded_function(f->id.rt, f->id.id, &name, &module);
    f->name = names_intern_take(name);
    f->module = names_intern_take(module);
  }
}

/* A native frame named by its bare address (it lay in no module the map knew, nor in the perf map:
 * a module loaded since the map was read, the JIT's frames in the first samples of its first
 * compilations, with every later sample of the same stack counted onto them) is named again from
 * res's map and symbols, when they know it now. res NULL: not looked at. Called with stacks_lock
 * held. */
static void name_native_late_locked(RecFrame *f, const SxsWalkResources *res) {
  if (f->managed || res == NULL || f->name == NULL || !g_str_has_prefix(f->name, "0x"))
    return;
  const char *name, *module;
  native_name(res, f->id.line == 1 ? (uintptr_t)f->id.id : f->ip - 1, &name, &module);
  if (!g_str_has_prefix(name, "0x")) {
    f->name = name;
    f->module = module;
  }
}

/* A copy of e's stack for a snapshot (its frames' names borrowed: interned), what still has no name
 * reported by its identity. res: the walk resources native frames unnamed so far are looked up in
 * again (NULL: none). Called with stacks_lock held. */
static SxsStackModel *snapshot_locked(const StackEntry *e, const SxsWalkResources *res) {
  SxsStackModel *st = sxs__stack_model_new(event_name(e->event), e->thread);
  g_array_set_clear_func(st->frames, NULL);
  st->count = e->count;
  st->value = e->value;
  st->runtime_id = e->runtime_id;
  st->type = g_strdup(e->type);
  st->thread_name = g_strdup(e->thread_name);
  g_array_set_size(st->frames, e->n);
  guint32 id = e->leaf;
  for (guint i = 0; i < e->n; i++) {
    const Node *node = node_get(id);
    RecFrame *rf = frames->pdata[node->frame - 1];
    name_late_locked(rf);
    name_native_late_locked(rf, res);
    SxsStackFrameModel *f = &g_array_index(st->frames, SxsStackFrameModel, i);
    *f = (SxsStackFrameModel){.managed = rf->managed,
                              .runtime_id = rf->runtime_id,
                              .name = (char *)rf->name,
                              .module = (char *)(rf->module ? rf->module : g_intern_static_string("")),
                              .ip = rf->ip,
                              .sp = (uintptr_t)node->sp_delta, /* made a stack pointer below */
                              .file = rf->managed ? (char *)rf->id.file : NULL,
                              .line = rf->managed ? rf->id.line : 0};
    if (!f->name) {
      g_autofree char *name =
          g_strdup_printf("[runtime %d code at 0x%" G_GINTPTR_MODIFIER "x]", f->runtime_id, (guintptr)f->ip);
      f->name = (char *)g_intern_string(name);
    }
    id = node->parent;
  }
  /* Each frame's stack pointer is its caller's less the node's distance, from the outermost one's. */
  uintptr_t sp = e->root_sp;
  for (guint i = e->n; i-- > 0;) {
    SxsStackFrameModel *f = &g_array_index(st->frames, SxsStackFrameModel, i);
    sp -= f->sp;
    f->sp = sp;
  }
  return st;
}

void sxs__stacks_fill(SxsProfileModel *m, GHashTable *ret_by_id) {
  SxsWalkResources res;
  resources_enter(&res);
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
      SxsStackModel *copy = snapshot_locked(e, &res);
      g_ptr_array_add(to, copy);
      if (ret_by_id)
        g_hash_table_insert(ret_by_id, GUINT_TO_POINTER(e->spool_id), copy);
    }
  }
  g_mutex_unlock(&stacks_lock);
  sxs__walk_resources_leave();
  /* Each list in the profile's order. */
  GPtrArray *lists[] = {m->stacks, m->samples.stacks, m->profiles[0].stacks, m->profiles[1].stacks,
                        m->profiles[2].stacks};
  G_STATIC_ASSERT(SXS_PROFILE_N_KINDS == 3);
  for (guint l = 0; l < G_N_ELEMENTS(lists); l++) {
    g_ptr_array_sort(lists[l], sxs__stack_model_compare);
  }
}

/* Reports one entry: its first report carries a copy of its frames. Called with stacks_lock held. */
static void report_locked(GArray *out, StackEntry *e, gboolean all, const SxsWalkResources *res) {
  SxsStackChange c = {.id = e->spool_id};
  if (!e->reported_once || all) {
    e->reported_once = TRUE;
    c.model = snapshot_locked(e, res);
    c.model->count = 0;
    c.model->value = 0;
    if (all) {
      e->reported = 0; /* a fresh spool: the whole count */
      e->reported_value = 0;
    }
  }
  c.delta = e->count - e->reported;
  e->reported = e->count;
  c.value_delta = e->value - e->reported_value;
  e->reported_value = e->value;
  e->changed = FALSE;
  if (c.model || c.delta || c.value_delta)
    g_array_append_val(out, c);
}

GArray *sxs__stacks_changes(gboolean all) {
  GArray *out = g_array_new(FALSE, FALSE, sizeof(SxsStackChange));
  SxsWalkResources res;
  resources_enter(&res);
  g_mutex_lock(&stacks_lock);
  if (all && stacks) {
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, stacks);
    while (g_hash_table_iter_next(&it, &key, NULL))
      report_locked(out, key, TRUE, &res);
  } else {
    for (guint i = 0; changed && i < changed->len; i++)
      report_locked(out, changed->pdata[i], FALSE, &res);
  }
  if (changed)
    g_ptr_array_set_size(changed, 0);
  g_mutex_unlock(&stacks_lock);
  sxs__walk_resources_leave();
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
      if (e->event == SXS_STACKS_SAMPLE && e->thread == thread && g_strcmp0(e->thread_name, name) != 0)
        e->thread_name = g_intern_string(name);
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
  g_clear_pointer(&frame_index, g_hash_table_unref);
  g_clear_pointer(&frames, g_ptr_array_unref);
  g_clear_pointer(&node_index, g_hash_table_unref);
  g_clear_pointer(&nodes, g_array_unref);
  g_clear_pointer(&counts.failures, g_hash_table_unref);
  g_clear_pointer(&counts.skipped, g_hash_table_unref);
  counts = (SxsWalkCounters){0};
  g_mutex_unlock(&stacks_lock);
}
