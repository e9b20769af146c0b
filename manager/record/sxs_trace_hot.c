/* sxs_trace_hot: the Enter/Leave/Tailcall hooks' C side. Compiled with -mgeneral-regs-only, so
 * the assembly trampolines that call it need to save only the general-purpose registers; the one
 * path that may touch vector registers (a thread's first hook, which maps its state) goes through
 * an assembly wrapper that saves them.
 *
 *   JIT'd prolog --call--> sxs_elt_enter3 (asm: save args, R14 -> RDI) --> sxs__trace_enter(id)
 *                                 state = tls[id >> 40]        (initial-exec TLS, no call, no table)
 *                                 node  = child of top frame's node with fn == id (list walk)
 *                                 push frame {node, id, now}; node->calls++
 *
 * Every counter is written by its own thread only, with relaxed atomic stores (plain moves on
 * x86-64), and read by the profile writer with relaxed loads. No malloc, no lock, no stdio. */
#include <time.h>

#include "sxs_trace_internal.h"

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define BUMP(p, v) STORE((p), LOAD(p) + (v))

/* Frames a Leave may look down the stack for its function when the top frame is not it (a frame
 * whose Leave never came: a thread the runtime did not know, an unwind without callbacks). */
#define RESYNC_DEPTH 64

static inline uint64_t now_ticks(void) {
  if (__builtin_expect(!sxs__trace_timing, 0))
    return 0;
  if (__builtin_expect(sxs__trace_use_tsc, 1)) {
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline SxsThreadTrace *thread_state(uint32_t slot) {
  SxsThreadTrace *t = sxs__trace_tls[slot];
  if (__builtin_expect(t == NULL, 0))
    t = sxs_elt_thread_init(slot);
  return t;
}

/* The child of `parent` for function `fn`, added when new; SXS_NODE_NONE when the tree is full. */
static inline uint32_t child_node(SxsThreadTrace *t, uint32_t parent, uint32_t fn) {
  SxsTraceNode *p = &t->nodes[parent];
  for (uint32_t c = p->first_child; c != 0; c = t->nodes[c].next_sibling)
    if (t->nodes[c].fn == fn)
      return c;
  uint32_t n = t->n_nodes;
  if (n >= SXS_TRACE_MAX_NODES)
    return SXS_NODE_NONE;
  SxsTraceNode *node = &t->nodes[n];
  node->fn = fn;
  node->parent = parent;
  node->first_child = 0;
  node->next_sibling = p->first_child;
  p->first_child = n;
  __atomic_store_n(&t->n_nodes, n + 1, __ATOMIC_RELEASE);
  return n;
}

void sxs__trace_enter(uintptr_t client_id) {
  uintptr_t slot = client_id >> SXS_ID_SLOT_SHIFT;
  if (__builtin_expect(slot >= SXS_TRACE_MAX_RUNTIMES, 0))
    return;
  SxsThreadTrace *t = thread_state((uint32_t)slot);
  if (!t)
    return;
  uint32_t fn = (uint32_t)(client_id & SXS_ID_INDEX_MASK);
  uint64_t now = now_ticks();
  if (__builtin_expect(t->depth >= SXS_TRACE_MAX_DEPTH, 0)) {
    t->overflow++;
    BUMP(&t->depth_overflows, 1);
    SxsFtEntry *e = sxs__ft_entry(client_id);
    if (e)
      __atomic_fetch_add(&e->overflow_calls, 1, __ATOMIC_RELAXED);
    return;
  }
  uint32_t parent = t->depth ? t->frames[t->depth - 1].node : 0;
  uint32_t node = parent == SXS_NODE_NONE ? SXS_NODE_NONE : child_node(t, parent, fn);
  SxsTraceFrame *f = &t->frames[t->depth];
  f->node = node;
  f->fn = fn;
  f->start = now;
  f->children = 0;
  __atomic_store_n(&t->depth, t->depth + 1, __ATOMIC_RELAXED);
  if (__builtin_expect(node != SXS_NODE_NONE, 1)) {
    BUMP(&t->nodes[node].calls, 1);
  } else {
    BUMP(&t->tree_overflows, 1);
    SxsFtEntry *e = sxs__ft_entry(client_id);
    if (e)
      __atomic_fetch_add(&e->overflow_calls, 1, __ATOMIC_RELAXED);
  }
}

/* Pops the top frame at time `now`: its time goes to its node (or, off the tree, to its
 * function's entry) and to its caller's callee time. */
static inline __attribute__((always_inline)) void pop_frame(SxsThreadTrace *t, uint64_t now) {
  uint32_t depth = t->depth - 1;
  SxsTraceFrame *f = &t->frames[depth];
  if (__builtin_expect(!sxs__trace_timing, 0)) {
    __atomic_store_n(&t->depth, depth, __ATOMIC_RELAXED);
    return;
  }
  /* A thread moved to a CPU whose counter is a little behind: no negative time. */
  uint64_t spent = (int64_t)(now - f->start) > 0 ? now - f->start : 0;
  uint64_t own = spent > f->children ? spent - f->children : 0;
  if (f->node != SXS_NODE_NONE) {
    BUMP(&t->nodes[f->node].inclusive, spent);
    BUMP(&t->nodes[f->node].exclusive, own);
  } else {
    SxsFtEntry *e = sxs__ft_entry(f->fn);
    if (e) {
      __atomic_fetch_add(&e->overflow_inclusive, spent, __ATOMIC_RELAXED);
      __atomic_fetch_add(&e->overflow_exclusive, own, __ATOMIC_RELAXED);
    }
  }
  if (depth)
    t->frames[depth - 1].children += spent;
  __atomic_store_n(&t->depth, depth, __ATOMIC_RELAXED);
}

/* The frame of `client_id` ends: normally the top one. A Leave that finds another function on
 * top pops down to its own frame if it is near (the frames above missed their Leave), and is
 * ignored otherwise. */
static inline __attribute__((always_inline)) void leave_frame(SxsThreadTrace *t, uint32_t client_id) {
  uint64_t now = now_ticks();
  if (__builtin_expect(t->overflow > 0, 0)) {
    t->overflow--;
    return;
  }
  if (__builtin_expect(t->depth == 0, 0))
    return;
  if (__builtin_expect(t->frames[t->depth - 1].fn == client_id, 1)) {
    pop_frame(t, now);
    return;
  }
  for (uint32_t d = t->depth - 1; d > 0 && t->depth - d <= RESYNC_DEPTH; d--) {
    if (t->frames[d - 1].fn == client_id) {
      while (t->depth >= d)
        pop_frame(t, now);
      return;
    }
  }
}

/* This thread's state for the runtime a client ID names, or NULL (never made: no Enter came). */
static inline SxsThreadTrace *state_of(uintptr_t client_id) {
  uintptr_t slot = client_id >> SXS_ID_SLOT_SHIFT;
  return slot < SXS_TRACE_MAX_RUNTIMES ? sxs__trace_tls[slot] : NULL;
}

void sxs__trace_leave(uintptr_t client_id) {
  SxsThreadTrace *t = state_of(client_id);
  if (t)
    leave_frame(t, (uint32_t)(client_id & SXS_ID_INDEX_MASK));
}

/* A tail call replaces the caller's frame: the caller is done now, and the callee's Enter that
 * follows pushes at the same depth. */
void sxs__trace_tailcall(uintptr_t client_id) {
  SxsThreadTrace *t = state_of(client_id);
  if (!t)
    return;
  BUMP(&t->tailcalls, 1);
  leave_frame(t, (uint32_t)(client_id & SXS_ID_INDEX_MASK));
}
