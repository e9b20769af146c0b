/* Structures shared by the cold side of call tracing (sxs_trace.c: the function table's growth,
 * the mapper, thread states' creation, the snapshot) and its hot side (sxs_trace_hot.c: the
 * hooks). Nothing outside manager/sxs_trace*.c includes this. */
#pragma once

#include <stdint.h>

#include "sxs_trace.h"

/* A client ID: the runtime's trace slot in the high bits, so that a hook finds its thread state
 * without reading the table, and entry index + 1 in the low bits (never 0). */
#define SXS_ID_SLOT_SHIFT 40
#define SXS_ID_INDEX_MASK ((UINT64_C(1) << SXS_ID_SLOT_SHIFT) - 1)

/* The function table: client ID n (low bits) is entry n - 1, in chunks that never move. */
#define SXS_FT_CHUNK_BITS 12
#define SXS_FT_CHUNK_SIZE (1u << SXS_FT_CHUNK_BITS)
#define SXS_FT_MAX_CHUNKS 4096 /* 16 Mi functions */

/* One (runtime, FunctionID). Written once by the mapper before its client ID is published; the
 * overflow counters are the only fields written afterwards (relaxed atomics). */
typedef struct {
  uint64_t function_id;
  uint32_t slot;   /* the runtime's trace slot */
  uint32_t hooked; /* probes asked for */
  /* Calls that did not fit a thread's call tree: counted and timed here instead. */
  uint64_t overflow_calls;
  uint64_t overflow_inclusive;
  uint64_t overflow_exclusive;
} SxsFtEntry;

extern SxsFtEntry *sxs__ft_chunks[SXS_FT_MAX_CHUNKS];

/* Node 0 of a call tree is the thread's root. Written by the owning thread only; other threads
 * read them with relaxed loads (counts are monotonic). fn and parent never change once the node is
 * published by the release store of n_nodes. */
typedef struct {
  uint32_t fn; /* client ID */
  uint32_t parent;
  uint32_t first_child;
  uint32_t next_sibling;
  uint64_t calls;
  uint64_t inclusive; /* ticks */
  uint64_t exclusive; /* ticks */
} SxsTraceNode;

#define SXS_NODE_NONE UINT32_MAX /* a frame whose path did not fit the tree */

typedef struct {
  uint32_t node; /* its call-tree node, or SXS_NODE_NONE */
  uint32_t fn;   /* client ID */
  uint64_t start;
  uint64_t children; /* ticks spent in callees */
} SxsTraceFrame;

/* One thread's state for one runtime: mapped once, on the thread's first hook, never freed. */
typedef struct SxsThreadTrace {
  struct SxsThreadTrace *next; /* every thread state, newest first */
  uint32_t slot;
  uint32_t depth;     /* frames in use */
  uint32_t overflow;  /* calls deeper than SXS_TRACE_MAX_DEPTH still open */
  uint32_t n_nodes;   /* nodes in use, published with release stores */
  uint64_t unwinding; /* FunctionID named by ExceptionUnwindFunctionEnter, 0 when none */
  uint32_t retired;   /* its thread has ended; a new thread of the same slot may take it over */
  uint64_t tailcalls, unwound, depth_overflows, tree_overflows; /* written by the owner only */
  SxsTraceFrame frames[SXS_TRACE_MAX_DEPTH];
  SxsTraceNode nodes[SXS_TRACE_MAX_NODES];
} SxsThreadTrace;

/* This thread's state per runtime slot. */
extern __thread SxsThreadTrace *sxs__trace_tls[SXS_TRACE_MAX_RUNTIMES] __attribute__((tls_model("initial-exec")));

/* Whether the hooks time with the TSC (constant rate) or the monotonic clock. */
extern int sxs__trace_use_tsc;
/* Whether the hooks time calls at all ([tracing] timing=on). */
extern int sxs__trace_timing;

/* Maps and registers this thread's state for `slot`. NULL when it cannot (the hooks then skip
 * this thread). Called by the hot side through sxs_elt_thread_init (manager/record/sxs_trace_amd64.S),
 * which saves the vector registers first: this is the one place a hook may allocate. */
SxsThreadTrace *sxs__trace_thread_create(uint32_t slot);

/* The assembly wrapper of sxs__trace_thread_create that preserves every caller-saved register. */
SxsThreadTrace *sxs_elt_thread_init(uint32_t slot);

/* The entry of a client ID (with or without its slot bits), or NULL when it is out of range.
 * Context: any; lock-free. */
static inline SxsFtEntry *sxs__ft_entry(uintptr_t client_id) {
  uintptr_t low = client_id & SXS_ID_INDEX_MASK;
  uintptr_t index = low - 1;
  if (low == 0 || index >= (uintptr_t)SXS_FT_MAX_CHUNKS * SXS_FT_CHUNK_SIZE)
    return NULL;
  SxsFtEntry *chunk = __atomic_load_n(&sxs__ft_chunks[index >> SXS_FT_CHUNK_BITS], __ATOMIC_ACQUIRE);
  return chunk ? &chunk[index & (SXS_FT_CHUNK_SIZE - 1)] : NULL;
}
