/* sxs_trace: exact call tracing. The process-wide function table that turns a runtime's
 * FunctionID into the client ID its Enter/Leave/Tailcall probes carry, and the per-(runtime,
 * thread) shadow stacks and call trees the hooks keep. It does not speak COM: the callback
 * instance (callback/sxs_tracing.c) registers the mapper and the hooks and calls in here. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_config.h"
#include "sxs_profile.h"

/* How many runtimes of one process can be traced at once. */
#define SXS_TRACE_MAX_RUNTIMES 16
/* Frames one shadow stack holds; deeper calls are counted but not timed. */
#define SXS_TRACE_MAX_DEPTH 4096
/* Distinct call paths one thread's call tree holds; calls on paths beyond it are still counted
 * exactly per function, and timed, but not placed in the tree. */
#define SXS_TRACE_MAX_NODES (1u << 16)

typedef struct SxsRuntime SxsRuntime;

/* One traced runtime. Owned by the trace table; never freed (hooks may still run at exit). */
typedef struct SxsTraceRuntime SxsTraceRuntime;

/* Takes a slot for runtime `rt` (its id and the registry entry, for names and include/exclude).
 * NULL when every slot is taken. */
SxsTraceRuntime *sxs__trace_runtime_new(SxsRuntime *rt, const SxsTracingConfig *cfg);
/* What the profile says of this runtime's tracing: "fast" or "slow", and the routing in use. */
void sxs__trace_runtime_set_path(SxsTraceRuntime *tr, const char *path, const char *routing);

/* The FunctionIDMapper's body: the client ID (never 0) for (runtime, FunctionID), the same one
 * each time it is asked, and whether the function gets probes (*ret_hook: include=/exclude=).
 * Context: a JIT thread, possibly several at once; may allocate and name the function through the
 * runtime's live side; holds no lock across a call into the runtime. */
uintptr_t sxs__trace_map(SxsTraceRuntime *tr, uint64_t function_id, int *ret_hook);

/* The hooks, called by the trampolines with the client ID. Context: any managed thread, in the
 * prolog or epilog of a managed method; no malloc, no lock, no stdio, no SSE (the trampolines
 * save only general registers). The first call on a new thread maps that thread's state once. */
void sxs__trace_enter(uintptr_t client_id);
void sxs__trace_leave(uintptr_t client_id);
void sxs__trace_tailcall(uintptr_t client_id);

/* The runtime shuts down: logs, once, every include= or exclude= pattern that matched none of
 * the functions it mapped (a misspelt pattern is otherwise silent). Context: Shutdown. */
void sxs__trace_runtime_shutdown(SxsTraceRuntime *tr);

/* An exception unwinds through a frame of runtime tr on this thread: ExceptionUnwindFunctionEnter
 * names the function, ExceptionUnwindFunctionLeave pops its frame if it is the top one (the
 * runtime calls no Leave hook for it). Context: the throwing thread, in a runtime callback. */
void sxs__trace_unwind_enter(SxsTraceRuntime *tr, uint64_t function_id);
void sxs__trace_unwind_leave(SxsTraceRuntime *tr);

/* Adds the tracing part of a runtime's profile: per-function calls and times (matched to
 * r->functions by FunctionID), the call tree merged over threads, and the tracing summary.
 * Reads the hooks' counters without stopping them. Context: a profile writer, no lock held. */
void sxs__trace_fill(int runtime_id, SxsRuntimeModel *r);

/* Thread states mapped for a runtime (ended threads' states are reused, not added). For tests. */
guint sxs__trace_thread_states(int runtime_id);
