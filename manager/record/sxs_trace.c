/* sxs_trace: the cold side of exact call tracing. The function table and the mapper, thread
 * states, and the profile's view of what the hooks counted.
 *
 *   runtime A's JIT --mapper(fid, clientData = A's instance)--> sxs__trace_map(A, fid)
 *                                  ids[A](fid) known? -> same client ID
 *                                  else append {fid, slot A} at table[n], publish, return n + 1
 *   A's probes carry n + 1 --> hooks --> table[n].slot = A --> A's shadow stack on this thread
 *
 * A client ID names its runtime, so a FunctionID never reaches another runtime's Info, and the
 * hooks need no lookup but an index. The table only grows; its chunks never move. */
#include "sxs_trace.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sxs_manager.h"
#include "sxs_lines.h"
#include "sxs_trace_internal.h"

SxsFtEntry *sxs__ft_chunks[SXS_FT_MAX_CHUNKS];
__thread SxsThreadTrace *sxs__trace_tls[SXS_TRACE_MAX_RUNTIMES] __attribute__((tls_model("initial-exec")));
int sxs__trace_use_tsc;
int sxs__trace_timing = 1;

struct SxsTraceRuntime {
  uint32_t slot;
  int runtime_id;
  SxsRuntime *rt;
  SxsTracingConfig cfg; /* borrowed patterns: the config lives as long as the process */
  const char *path;     /* "fast", "slow" */
  const char *routing;  /* "mapper2", "closure" */
  GHashTable *ids;      /* FunctionID (guint64*) -> client ID; guarded by trace.lock */
  guint64 mapped, hooked;
};

/* The process-wide tracing state. `lock` guards n_runtimes, runtimes[].ids and the table's
 * growth (count, new chunks); the hooks read the table without it. */
static struct {
  GMutex lock;
  SxsTraceRuntime runtimes[SXS_TRACE_MAX_RUNTIMES];
  uint32_t n_runtimes;
  uint32_t count;                                   /* entries in the table */
  SxsThreadTrace *threads;                          /* every thread state, pushed with compare-and-swap */
  uint64_t tsc0, mono0;                             /* calibration: a TSC reading and the monotonic time with it */
  pthread_key_t retire_key[SXS_TRACE_MAX_RUNTIMES]; /* per slot: marks a thread's state retired */
  gboolean have_retire_key[SXS_TRACE_MAX_RUNTIMES];
} trace;

/* A thread ends: its state may serve the next new thread of the same runtime. What it counted
 * stays in its call tree (trees are merged by call path, so the next thread's calls add to the
 * same nodes); its open frames, if it died inside calls, are dropped. */
static void retire_state(void *p) {
  SxsThreadTrace *t = p;
  t->depth = 0;
  t->overflow = 0;
  t->unwinding = 0;
  __atomic_store_n(&t->retired, 1, __ATOMIC_RELEASE);
}

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t read_tsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
}

/* The TSC is used when it ticks at a constant rate in every power state. */
static gboolean tsc_usable(void) {
  g_autofree char *cpuinfo = NULL;
  if (!g_file_get_contents("/proc/cpuinfo", &cpuinfo, NULL, NULL))
    return FALSE;
  return strstr(cpuinfo, " constant_tsc") && strstr(cpuinfo, " nonstop_tsc");
}

/* Nanoseconds per tick, from the calibration pair and now. */
static double ns_per_tick(void) {
  if (!sxs__trace_use_tsc)
    return 1.0;
  uint64_t tsc = read_tsc(), mono = mono_ns();
  if (tsc <= trace.tsc0 || mono <= trace.mono0)
    return 1.0;
  return (double)(mono - trace.mono0) / (double)(tsc - trace.tsc0);
}

SxsTraceRuntime *sxs__trace_runtime_new(SxsRuntime *rt, const SxsTracingConfig *cfg) {
  static gsize once;
  if (g_once_init_enter(&once)) {
    g_mutex_init(&trace.lock);
    sxs__trace_use_tsc = tsc_usable();
    trace.tsc0 = read_tsc();
    trace.mono0 = mono_ns();
    g_once_init_leave(&once, 1);
  }
  g_mutex_lock(&trace.lock);
  SxsTraceRuntime *tr = NULL;
  if (trace.n_runtimes < SXS_TRACE_MAX_RUNTIMES) {
    tr = &trace.runtimes[trace.n_runtimes];
    tr->slot = trace.n_runtimes;
    tr->runtime_id = rt->id;
    tr->rt = rt;
    tr->cfg = *cfg;
    /* One process, one config: the first traced runtime sets it for all. */
    sxs__trace_timing = !cfg->timing_off;
    tr->ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    trace.have_retire_key[tr->slot] = pthread_key_create(&trace.retire_key[tr->slot], retire_state) == 0;
    /* Published last: fill reads runtimes below n_runtimes under the lock. */
    __atomic_store_n(&trace.n_runtimes, trace.n_runtimes + 1, __ATOMIC_RELEASE);
  }
  g_mutex_unlock(&trace.lock);
  return tr;
}

void sxs__trace_runtime_set_path(SxsTraceRuntime *tr, const char *path, const char *routing) {
  g_mutex_lock(&trace.lock);
  tr->path = path;
  tr->routing = routing;
  g_mutex_unlock(&trace.lock);
}

/* Appends an entry; returns its client ID, 0 when the table is full. Called with trace.lock. */
static uintptr_t append_locked(SxsTraceRuntime *tr, uint64_t function_id, gboolean hooked) {
  uint32_t index = trace.count;
  uint32_t c = index >> SXS_FT_CHUNK_BITS;
  if (c >= SXS_FT_MAX_CHUNKS)
    return 0;
  SxsFtEntry *chunk = sxs__ft_chunks[c];
  if (!chunk) {
    chunk = g_try_new0(SxsFtEntry, SXS_FT_CHUNK_SIZE);
    if (!chunk)
      return 0;
    __atomic_store_n(&sxs__ft_chunks[c], chunk, __ATOMIC_RELEASE);
  }
  SxsFtEntry *e = &chunk[index & (SXS_FT_CHUNK_SIZE - 1)];
  e->function_id = function_id;
  e->slot = tr->slot;
  e->hooked = hooked;
  /* The JIT embeds the ID only after the mapper returns; the release makes the entry visible to
   * any thread that later runs the probe. */
  __atomic_store_n(&trace.count, index + 1, __ATOMIC_RELEASE);
  return ((uintptr_t)tr->slot << SXS_ID_SLOT_SHIFT) | ((uintptr_t)index + 1);
}

uintptr_t sxs__trace_map(SxsTraceRuntime *tr, uint64_t function_id, int *ret_hook) {
  g_mutex_lock(&trace.lock);
  uintptr_t id = GPOINTER_TO_SIZE(g_hash_table_lookup(tr->ids, &function_id));
  g_mutex_unlock(&trace.lock);
  if (id) {
    *ret_hook = sxs__ft_entry(id)->hooked;
    return id;
  }

  /* include=/exclude= need the name, read through the runtime (no lock held); the name is kept
   * so that the JIT's own event does not read it again. */
  gboolean hooked = TRUE;
  if (tr->cfg.matcher) {
    g_autofree char *name = NULL;
    g_autofree char *module = NULL;
    if (sxs__manager_function_name(tr->rt, function_id, &name, &module) == 0) {
      sxs__manager_record_function(tr->rt, function_id, SXS_CODE_NAMED, name, module);
      hooked = sxs__config_traces(sxs__manager_config(), name);
    }
  }

  g_mutex_lock(&trace.lock);
  id = GPOINTER_TO_SIZE(g_hash_table_lookup(tr->ids, &function_id));
  if (!id) {
    id = append_locked(tr, function_id, hooked);
    if (id) {
      g_hash_table_insert(tr->ids, g_memdup2(&function_id, sizeof function_id), GSIZE_TO_POINTER(id));
      tr->mapped++;
      tr->hooked += hooked;
    }
  }
  g_mutex_unlock(&trace.lock);
  if (!id) {
    /* A full table: no probes, and a non-zero ID as the runtime asks. */
    *ret_hook = FALSE;
    return (uintptr_t)function_id;
  }
  *ret_hook = sxs__ft_entry(id)->hooked;
  /* Where a traced function begins is read now, while its runtime answers: its call-tree frames
   * show that line. */
  if (*ret_hook)
    sxs__lines_learn(tr->rt, function_id);
  return id;
}

SxsThreadTrace *sxs__trace_thread_create(uint32_t slot) {
  if (slot >= SXS_TRACE_MAX_RUNTIMES)
    return NULL;
  /* A state an ended thread left behind first: a thread pool that comes and goes reuses them. */
  for (SxsThreadTrace *t = __atomic_load_n(&trace.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
    uint32_t one = 1;
    if (t->slot == slot &&
        __atomic_compare_exchange_n(&t->retired, &one, 0, FALSE, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
      if (trace.have_retire_key[slot])
        pthread_setspecific(trace.retire_key[slot], t);
      sxs__trace_tls[slot] = t;
      return t;
    }
  }
  /* Untouched pages cost nothing: a thread that makes few distinct calls touches a few pages. */
  void *p =
      mmap(NULL, sizeof(SxsThreadTrace), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  SxsThreadTrace *t = p;
  t->slot = slot;
  t->n_nodes = 1; /* the root */
  SxsThreadTrace *head = __atomic_load_n(&trace.threads, __ATOMIC_RELAXED);
  do
    t->next = head;
  while (!__atomic_compare_exchange_n(&trace.threads, &head, t, TRUE, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  if (trace.have_retire_key[slot])
    pthread_setspecific(trace.retire_key[slot], t);
  sxs__trace_tls[slot] = t;
  return t;
}

/* Is a FunctionID of this runtime hooked (does it have probes)? Called on exception paths only. */
static gboolean hooked_function(SxsTraceRuntime *tr, uint64_t function_id) {
  g_mutex_lock(&trace.lock);
  uintptr_t id = GPOINTER_TO_SIZE(g_hash_table_lookup(tr->ids, &function_id));
  g_mutex_unlock(&trace.lock);
  SxsFtEntry *e = id ? sxs__ft_entry(id) : NULL;
  return e && e->hooked;
}

/* Logs the patterns of one list that matched none of `names`. */
static void report_unmatched(SxsTraceRuntime *tr, const char *key, char **patterns, GPtrArray *names) {
  for (char **p = patterns; p && *p; p++) {
    gboolean matched = FALSE;
    for (guint i = 0; i < names->len && !matched; i++)
      matched = sxs__config_pattern_matches(*p, names->pdata[i]);
    if (!matched)
      sxs__manager_log("runtime %d: [tracing] %s pattern \"%s\" matched none of the %u functions it compiled",
                       tr->runtime_id, key, *p, names->len);
  }
}

void sxs__trace_runtime_shutdown(SxsTraceRuntime *tr) {
  if (!tr->cfg.include && !tr->cfg.exclude)
    return;
  g_mutex_lock(&trace.lock);
  g_autoptr(GPtrArray) fids = g_ptr_array_new();
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init(&it, tr->ids);
  while (g_hash_table_iter_next(&it, &key, NULL))
    g_ptr_array_add(fids, key);
  g_autoptr(GArray) ids = g_array_sized_new(FALSE, FALSE, sizeof(guint64), fids->len);
  for (guint i = 0; i < fids->len; i++)
    g_array_append_val(ids, *(guint64 *)fids->pdata[i]);
  g_mutex_unlock(&trace.lock);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < ids->len; i++) {
    char *name = sxs__manager_recorded_name(tr->rt, g_array_index(ids, guint64, i));
    if (name)
      g_ptr_array_add(names, name);
  }
  report_unmatched(tr, "include", tr->cfg.include, names);
  report_unmatched(tr, "exclude", tr->cfg.exclude, names);
}

void sxs__trace_unwind_enter(SxsTraceRuntime *tr, uint64_t function_id) {
  SxsThreadTrace *t = sxs__trace_tls[tr->slot];
  if (t)
    t->unwinding = function_id;
}

void sxs__trace_unwind_leave(SxsTraceRuntime *tr) {
  SxsThreadTrace *t = sxs__trace_tls[tr->slot];
  if (!t || !t->unwinding || t->depth == 0)
    return;
  uint64_t fid = t->unwinding;
  t->unwinding = 0;
  if (t->overflow > 0) {
    /* Above the shadow stack's capacity, the unwound frame was one of the frames only counted. */
    if (hooked_function(tr, fid)) {
      t->overflow--;
      __atomic_store_n(&t->unwound, __atomic_load_n(&t->unwound, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    }
    return;
  }
  SxsFtEntry *e = sxs__ft_entry(t->frames[t->depth - 1].fn);
  if (!e || e->function_id != fid || e->slot != tr->slot)
    return; /* an unwound frame the hooks never saw (not traced) */
  sxs__trace_leave(((uintptr_t)tr->slot << SXS_ID_SLOT_SHIFT) | t->frames[t->depth - 1].fn);
  __atomic_store_n(&t->unwound, __atomic_load_n(&t->unwound, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* ---- The profile's view ---- */

typedef struct {
  uint32_t parent; /* merged index; 0 is the root */
  uint32_t fn;
  guint64 calls, inclusive, exclusive; /* ticks */
} MergedNode;

/* The slot of a runtime id, newest first: slots are never given back, and the registry's test
 * reset starts its ids again at 1. Called with trace.lock held. */
static SxsTraceRuntime *runtime_of(int runtime_id) {
  for (uint32_t i = trace.n_runtimes; i > 0; i--)
    if (trace.runtimes[i - 1].runtime_id == runtime_id)
      return &trace.runtimes[i - 1];
  return NULL;
}

/* Merges every thread's tree of one slot into `nodes` (index 0 the root). */
static void merge_threads(uint32_t slot, GArray *nodes, SxsTracingModel *summary) {
  g_autoptr(GHashTable) index = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  MergedNode root = {0};
  g_array_append_val(nodes, root);
  for (SxsThreadTrace *t = __atomic_load_n(&trace.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
    if (t->slot != slot)
      continue;
    summary->tailcalls += __atomic_load_n(&t->tailcalls, __ATOMIC_RELAXED);
    summary->unwound += __atomic_load_n(&t->unwound, __ATOMIC_RELAXED);
    summary->depth_overflows += __atomic_load_n(&t->depth_overflows, __ATOMIC_RELAXED);
    summary->tree_overflows += __atomic_load_n(&t->tree_overflows, __ATOMIC_RELAXED);
    summary->open_frames += __atomic_load_n(&t->depth, __ATOMIC_RELAXED);
    uint32_t n = __atomic_load_n(&t->n_nodes, __ATOMIC_ACQUIRE);
    g_autofree uint32_t *to_merged = g_new0(uint32_t, n);
    for (uint32_t i = 1; i < n; i++) {
      const SxsTraceNode *node = &t->nodes[i];
      uint32_t parent = to_merged[node->parent]; /* parents come before their children */
      guint64 key = ((guint64)parent << 32) | node->fn;
      gpointer found = g_hash_table_lookup(index, &key);
      uint32_t m;
      if (found) {
        m = GPOINTER_TO_UINT(found);
      } else {
        MergedNode fresh = {.parent = parent, .fn = node->fn};
        g_array_append_val(nodes, fresh);
        m = nodes->len - 1;
        g_hash_table_insert(index, g_memdup2(&key, sizeof key), GUINT_TO_POINTER(m));
      }
      to_merged[i] = m;
      MergedNode *mn = &g_array_index(nodes, MergedNode, m);
      mn->calls += __atomic_load_n(&node->calls, __ATOMIC_RELAXED);
      mn->inclusive += __atomic_load_n(&node->inclusive, __ATOMIC_RELAXED);
      mn->exclusive += __atomic_load_n(&node->exclusive, __ATOMIC_RELAXED);
    }
  }
}

guint sxs__trace_thread_states(int runtime_id) {
  g_mutex_lock(&trace.lock);
  SxsTraceRuntime *tr = runtime_of(runtime_id);
  uint32_t slot = tr ? tr->slot : UINT32_MAX;
  g_mutex_unlock(&trace.lock);
  guint n = 0;
  for (SxsThreadTrace *t = __atomic_load_n(&trace.threads, __ATOMIC_ACQUIRE); t && tr; t = t->next)
    n += t->slot == slot;
  return n;
}

/* Per-function totals being summed. */
typedef struct {
  guint64 calls, inclusive, exclusive;
} FnTotals;

/* The totals of a FunctionID (borrowed key: it lives in the function table), created at zero. */
static FnTotals *totals_of(GHashTable *totals, uint64_t *function_id) {
  FnTotals *tot = g_hash_table_lookup(totals, function_id);
  if (!tot) {
    tot = g_new0(FnTotals, 1);
    g_hash_table_insert(totals, function_id, tot);
  }
  return tot;
}

void sxs__trace_fill(int runtime_id, SxsRuntimeModel *r) {
  const SxsConfig *cfg = sxs__manager_config();
  SxsTracingModel *t = &r->tracing;
  t->hooks = g_strdup(cfg && cfg->tracing.hooks == SXS_HOOKS_EMPTY ? "empty" : "full");
  t->reason = g_strdup(g_hash_table_lookup(r->features_off, "tracing"));
  if (!__atomic_load_n(&trace.n_runtimes, __ATOMIC_ACQUIRE))
    return; /* nothing traced yet: the lock may not even be initialized */
  g_mutex_lock(&trace.lock);
  SxsTraceRuntime *tr = runtime_of(runtime_id);
  uint32_t slot = tr ? tr->slot : 0;
  uint32_t count = trace.count;
  if (tr) {
    t->enabled = tr->path != NULL;
    t->timing = !tr->cfg.timing_off;
    t->path = g_strdup(tr->path);
    t->routing = g_strdup(tr->routing);
    t->functions_mapped = tr->mapped;
    t->functions_hooked = tr->hooked;
  }
  g_mutex_unlock(&trace.lock);
  if (!tr || !t->enabled)
    return;

  double scale = ns_per_tick();
  g_autoptr(GArray) nodes = g_array_new(FALSE, TRUE, sizeof(MergedNode));
  merge_threads(slot, nodes, t);

  /* Names by FunctionID, from the functions the runtime's events named. */
  g_autoptr(GHashTable) by_fid = g_hash_table_new(g_int64_hash, g_int64_equal);
  for (guint i = 0; i < r->functions->len; i++) {
    SxsFunctionRecord *f = r->functions->pdata[i];
    g_hash_table_insert(by_fid, &f->function_id, f);
  }

  /* Per function: calls and exclusive time of every node, inclusive time of the outermost nodes
   * only (a node with an ancestor of the same function is inside a recursion already counted).
   * One depth-first walk, keeping how many nodes of each function are open on the current path;
   * a child always comes after its parent in `nodes`. */
  g_autoptr(GHashTable) totals = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
  g_autofree uint32_t *first_child = g_new0(uint32_t, nodes->len);
  g_autofree uint32_t *next_sibling = g_new0(uint32_t, nodes->len);
  for (guint i = nodes->len - 1; i >= 1; i--) {
    uint32_t p = g_array_index(nodes, MergedNode, i).parent;
    next_sibling[i] = first_child[p];
    first_child[p] = i;
  }
  g_autoptr(GHashTable) open_on_path = g_hash_table_new(g_int64_hash, g_int64_equal); /* fid -> count */
  g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  uint32_t root = 0;
  g_array_append_val(stack, root);
  while (stack->len) {
    uint32_t top = g_array_index(stack, uint32_t, stack->len - 1);
    if (top & 0x80000000u) { /* leaving a node */
      g_array_set_size(stack, stack->len - 1);
      SxsFtEntry *e = sxs__ft_entry(g_array_index(nodes, MergedNode, top & 0x7fffffffu).fn);
      if (e) {
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(open_on_path, &e->function_id));
        g_hash_table_insert(open_on_path, &e->function_id, GUINT_TO_POINTER(n - 1));
      }
      continue;
    }
    g_array_index(stack, uint32_t, stack->len - 1) = top | 0x80000000u;
    if (top != 0) {
      const MergedNode *m = &g_array_index(nodes, MergedNode, top);
      SxsFtEntry *e = sxs__ft_entry(m->fn);
      if (e) {
        FnTotals *tot = totals_of(totals, &e->function_id);
        tot->calls += m->calls;
        tot->exclusive += m->exclusive;
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(open_on_path, &e->function_id));
        if (n == 0)
          tot->inclusive += m->inclusive;
        g_hash_table_insert(open_on_path, &e->function_id, GUINT_TO_POINTER(n + 1));
      }
    }
    for (uint32_t c = first_child[top]; c; c = next_sibling[c])
      g_array_append_val(stack, c);
  }
  /* Calls that did not fit a tree were counted on their entries. */
  for (uint32_t low = 1; low <= count; low++) {
    SxsFtEntry *e = sxs__ft_entry(low);
    if (!e || e->slot != slot)
      continue;
    guint64 calls = __atomic_load_n(&e->overflow_calls, __ATOMIC_RELAXED);
    if (!calls)
      continue;
    FnTotals *tot = totals_of(totals, &e->function_id);
    tot->calls += calls;
    tot->inclusive += __atomic_load_n(&e->overflow_inclusive, __ATOMIC_RELAXED);
    tot->exclusive += __atomic_load_n(&e->overflow_exclusive, __ATOMIC_RELAXED);
  }

  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, totals);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const FnTotals *tot = value;
    SxsFunctionRecord *f = g_hash_table_lookup(by_fid, key);
    if (!f) {
      /* Traced but never named (its name could not be read): kept, so no call is lost. */
      f = g_new0(SxsFunctionRecord, 1);
      f->function_id = *(guint64 *)key;
      f->name = g_strdup("?");
      f->module = g_strdup("?");
      g_ptr_array_add(r->functions, f);
      g_hash_table_insert(by_fid, &f->function_id, f);
    }
    f->traced = TRUE;
    f->calls = tot->calls;
    f->inclusive_ns = (guint64)(tot->inclusive * scale);
    f->exclusive_ns = (guint64)(tot->exclusive * scale);
  }

  for (guint i = 1; i < nodes->len; i++) {
    const MergedNode *m = &g_array_index(nodes, MergedNode, i);
    SxsFtEntry *e = sxs__ft_entry(m->fn);
    SxsFunctionRecord *f = e ? g_hash_table_lookup(by_fid, &e->function_id) : NULL;
    SxsCallNode *n = g_new0(SxsCallNode, 1);
    n->id = i;
    n->parent = m->parent;
    n->name = g_strdup(f ? f->name : "?");
    n->calls = m->calls;
    n->inclusive_ns = (guint64)(m->inclusive * scale);
    n->exclusive_ns = (guint64)(m->exclusive * scale);
    g_ptr_array_add(r->call_tree, n);
  }
}
