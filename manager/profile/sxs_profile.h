/* sxs_profile: the profile as a plain model, snapshotted from the manager's live registry under
 * its locks and rendered outside them, so that a writer (at Shutdown, at exit, or the periodic
 * flush thread) never holds a lock a runtime callback could need while it formats or writes.
 * It takes no lock and reads no live state. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_json.h"
#include "sxs_process.h"
#include "sxs_vec.h"

/* Limits of a profile (docs/formats.md, "Limits"): what the profiler itself never exceeds, and
 * what reading a profile back accepts, so that reading and rendering one take time and memory in
 * proportion to its size. */
/* A count (samples, calls, events, a runtime's counters): at most 2^53 - 1, which a double (and so
 * JavaScript, speedscope, percentages) holds exactly. */
#define SXS_PROFILE_MAX_COUNT ((G_GUINT64_CONSTANT(1) << 53) - 1)
/* A time in nanoseconds, and every sum of counts or times a view makes: what pprof's int64 holds. */
#define SXS_PROFILE_MAX_NS ((guint64)G_MAXINT64)
/* Calls on one path of a call tree, root included: the tracer's shadow stack holds as many. */
#define SXS_PROFILE_MAX_CALL_DEPTH 4096
/* Nodes of one runtime's call tree. */
#define SXS_PROFILE_MAX_CALL_NODES (1u << 24)
/* Frames of one recorded stack (a stitched stack has at most 768). */
#define SXS_PROFILE_MAX_STACK_FRAMES 4096
/* Most distinct frames a profile's frame table holds when read. */
#define SXS_PROFILE_MAX_FRAME_TABLE (1u << 24)
/* A runtime's id (1, 2, ... in load order). */
#define SXS_PROFILE_MAX_RUNTIME_ID 1000000
/* A time since the epoch in ms: 9999-12-31T23:59:59.999Z. */
#define SXS_PROFILE_MAX_UNIX_MS G_GINT64_CONSTANT(253402300799999)

/* a + b, or max when the sum would pass it: counts and times add up without wrapping. */
static inline guint64 sxs__saturating_add(guint64 a, guint64 b, guint64 max) {
  return a >= max || b >= max - a ? max : a + b;
}

/* a * b, or max when the product would pass it. */
static inline guint64 sxs__saturating_mul(guint64 a, guint64 b, guint64 max) {
  return a != 0 && b > max / a ? max : a * b;
}

typedef enum {
  SXS_RUNTIME_PENDING = 0, /* CreateInstance accepted it, Initialize has not decided yet */
  SXS_RUNTIME_PROFILING,
  SXS_RUNTIME_DECLINED,
} SxsRuntimeStatus;

/* Counters of what one runtime did; updated with atomics from any of its threads. */
typedef struct {
  gint64 jit_compiled;
  gint64 modules_loaded;
  gint64 modules_unloaded;
  gint64 exceptions;
  gint64 gcs;
  gint64 threads_created;
} SxsCounters;

/* What one runtime can do, decided once at Initialize from what it answers; nothing else looks
 * at runtime versions. */
typedef struct {
  int info_version;            /* highest ICorProfilerInfoN answered (3..15) */
  gboolean event_mask2;        /* SetEventMask2 (Info5) */
  gboolean basic_gc;           /* COR_PRF_HIGH_BASIC_GC: GC start/finish without heap walks (Info10, 3.0+) */
  gboolean elt3;               /* Enter/Leave/Tailcall3 probes: Info3 and a runtime of 2.1 or later (2.0's
                                * Linux JIT emits none) */
  gboolean suspend;            /* SuspendRuntime/ResumeRuntime and cross-thread DoStackSnapshot while suspended
                                * (Info10, 3.0 and later): the sampler's suspend walker */
  gboolean attached;           /* loaded into the running runtime (InitializeForAttach): only the events
                                * allowed after attach, no Enter/Leave hooks */
  gboolean code_versions;      /* each code version's start, ranges and IL-to-native map (Info9, 3.0 and
                                * later: tiered code has several); else only the current code's */
  gboolean allocation_sampled; /* randomized allocation sampling, the AllocationSampled event (.NET 10
                                * and later); else only GCAllocationTick */
} SxsCapabilities;

/* How the code of a function came to run. */
typedef enum {
  SXS_CODE_JIT,         /* the JIT compiled it (again at each tier or re-JIT) */
  SXS_CODE_INLINED,     /* the JIT inlined it into a caller it compiled */
  SXS_CODE_PRECOMPILED, /* its ReadyToRun code was used the first time it was called */
  SXS_CODE_NAMED,       /* only named (by call tracing's mapper, before the JIT compiles it) */
} SxsCodeKind;

/* One function of one runtime whose code ran or was generated: JIT-compiled, inlined into another
 * function (then it may never have been compiled by itself), or precompiled. */
typedef struct {
  uint64_t function_id; /* the runtime's FunctionID: only ever passed back to that runtime */
  char *name;           /* Namespace.Type.Method, nested types joined by '.' */
  char *module;         /* file name of the module, e.g. app.dll */
  guint jit_compiled;
  guint inlined;     /* times the JIT inlined it into a caller it compiled */
  guint precompiled; /* times its ReadyToRun code was taken (once per load) */
  gboolean traced;   /* call tracing counted it: the three below are meaningful */
  guint64 calls;
  guint64 inclusive_ns; /* time with the function on the stack, outermost calls only */
  guint64 exclusive_ns; /* time in the function itself, callees excluded */
  char *file;           /* the source file it begins in (its PDB's document name), NULL when unknown */
  guint32 line;         /* its first line in file; 0 when unknown */
} SxsFunctionRecord;

/* One node of a runtime's call tree, merged over its threads: one call path. */
typedef struct {
  guint id;     /* 1, 2, ... */
  guint parent; /* 0: a thread's root */
  char *name;
  guint64 calls;
  guint64 inclusive_ns;
  guint64 exclusive_ns;
} SxsCallNode;

/* What the profile says of a runtime's call tracing. */
typedef struct {
  gboolean enabled;
  char *path;               /* "fast", "slow", NULL when off */
  char *routing;            /* "mapper2", "closure", NULL when off */
  char *hooks;              /* "full", "empty" */
  gboolean timing;          /* calls were timed: inclusive and exclusive times are meaningful */
  char *reason;             /* why it is off, NULL when on or not asked for */
  guint64 functions_mapped; /* client IDs handed out */
  guint64 functions_hooked; /* of those, with probes */
  guint64 tailcalls;        /* Tailcall hooks seen */
  guint64 unwound;          /* frames popped by exception unwinding */
  guint64 open_frames;      /* frames still on shadow stacks when the profile was taken */
  guint64 depth_overflows;  /* calls deeper than a shadow stack holds */
  guint64 tree_overflows;   /* calls on paths beyond a thread's call-tree capacity */
} SxsTracingModel;

/* Threads whose ids the inventory's part of the profile keeps: those that named its functions. */
#define SXS_INVENTORY_MAX_NAMERS 4

/* What the profile says of a runtime's function inventory ([profiler] inventory=): whether it was
 * kept, and how its functions were named. The functions themselves are the runtime's functions[]. */
typedef struct {
  gboolean enabled; /* every function JIT-compiled, inlined or taken precompiled is listed */
  guint64 events;   /* JIT, inlining, precompiled (and attach catch-up) events queued */
  guint64 named;    /* of those, functions seen for the first time and named (a metadata read) */
  guint64 dropped;  /* events of functions that could not be named any more (their runtime had
                            * begun to shut down) */
  guint32 naming_threads[SXS_INVENTORY_MAX_NAMERS]; /* OS ids of the threads that asked the runtime for
                                                     * their names */
  guint n_naming_threads;
} SxsInventoryModel;

/* One managed thread of one runtime. */
typedef struct {
  int runtime_id;
  uint64_t thread_id; /* the runtime's ThreadID: only ever passed back to that runtime */
  uint32_t os_tid;
  char *name;
  gboolean destroyed;
} SxsThreadRecord;

SxsFunctionRecord *sxs__function_record_copy(const SxsFunctionRecord *f);
void sxs__function_record_free(gpointer f);
SxsThreadRecord *sxs__thread_record_copy(const SxsThreadRecord *t);
void sxs__thread_record_free(gpointer t);

/* A runtime's managed heap as its GC reports it at the end of each collection (GCHeapStats, which
 * comes with the allocation profile's events): the sizes of its generations (0, 1, 2, large and, from
 * .NET 5, pinned objects) added up, free space between objects included. Not a heap walk: it says
 * how big the heap was, not what it held. */
typedef struct {
  guint64 gcs;           /* collections whose statistics came; 0: none, and nothing else is meaningful */
  guint64 after_last_gc; /* bytes of the generations after the last of them */
  guint64 after_gc_max;  /* the largest of those over every collection */
} SxsHeapModel;

/* One runtime as the profile reports it: copies, owned by the model. */
typedef struct {
  int id;
  SxsRuntimeStatus status;
  char *reason;
  char *version;
  char *clr_version;
  char *version_source; /* where version was read ("runtime", "corelib", ...); NULL when unknown */
  char *path;
  SxsCapabilities caps;
  gint64 attached_unix_ms; /* when the profiler was attached (caps.attached), 0 otherwise */
  gboolean shut_down;
  SxsCounters counters;
  SxsHeapModel heap;
  char *allocation_sampling; /* the allocation profile's event in this runtime: "AllocationSampled" or
                              * "GCAllocationTick"; NULL when it records none */
  SxsInventoryModel inventory;
  GPtrArray *functions;     /* SxsFunctionRecord*, sorted by name then module; owned */
  GPtrArray *threads;       /* SxsThreadRecord*, sorted by OS thread id; owned */
  GHashTable *features_off; /* feature -> why it is off; owned, may be empty */
  SxsTracingModel tracing;
  GPtrArray *call_tree; /* SxsCallNode*, by id; owned */
} SxsRuntimeModel;

/* One frame of a recorded stack, as the profile reports it. */
typedef struct {
  gboolean managed;
  int runtime_id; /* managed frames: whose; 0 for native ones */
  char *name;     /* Namespace.Type.Method, module!symbol+0xoff, module+0xoff or 0x... */
  char *module;   /* app.dll, libc.so.6; "" when no module holds the code */
  uintptr_t ip, sp;
  char *file;   /* managed frames with lines: the source file (the PDB's document name), else NULL */
  guint32 line; /* the line of the frame's code (a caller's: the line of its call); 0: none */
} SxsStackFrameModel;

/* One aggregated stack: every event of one kind on one thread with these frames (and, in the
 * exception, contention and allocation profiles, of one runtime and type). */
typedef struct {
  char *event;       /* "exception", "jit", "gc"; "exceptions", "contention", "allocations" */
  uint32_t thread;   /* OS thread id */
  char *thread_name; /* the thread's name when known (samples), else NULL */
  guint64 count;
  GArray *frames; /* SxsStackFrameModel, leaf first, ip and sp of the first occurrence; owned */
  int runtime_id; /* the profiles: the runtime the event happened in; else 0 */
  char *type;     /* the profiles: the exception's or allocated object's type; else NULL */
  guint64 value;  /* contention: nanoseconds waited; allocations: bytes; else 0 */
} SxsStackModel;

/* The profiles of runtime events beside sampling, each a list of typed stacks. */
typedef enum {
  SXS_PROFILE_EXCEPTIONS = 0, /* every exception thrown, by type and throwing stack */
  SXS_PROFILE_CONTENTION,     /* every lock contention, its wait, the stack where the wait began */
  SXS_PROFILE_ALLOCATIONS,    /* sampled allocations, upscaled */
  SXS_PROFILE_N_KINDS
} SxsProfileKind;

/* "exceptions", "contention", "allocations": the profile's key and the stacks' event. */
const char *sxs__profile_kind_name(SxsProfileKind k);

/* One of those profiles. Counts are exact for exceptions and contention; allocations are upscaled
 * estimates (see `sampling`). Which runtimes did not record it, and why, is in each runtime's
 * features_off under the kind's name. */
typedef struct {
  gboolean enabled;  /* asked for by the config */
  guint64 events;    /* events seen, over every runtime (walked or not) */
  guint64 unwalked;  /* of those, events whose stack could not be recorded */
  guint64 value;     /* contention: nanoseconds waited; allocations: bytes (estimated); stacks or not */
  char *sampling;    /* allocations: how counts and bytes were upscaled; else NULL */
  GPtrArray *stacks; /* SxsStackModel*: by count descending; owned */
} SxsEventProfileModel;

/* How the stack walks went (the profile's "stack_walks"). */
typedef struct {
  guint64 made;           /* stitched walks */
  guint64 failed;         /* walks where the native walk or a runtime's walk did not complete */
  guint64 runtime_walks;  /* DoStackSnapshot calls */
  guint64 unknown_frames; /* frames no module and no runtime owns (stubs) */
  guint64 stacks_dropped; /* events whose new stack found the table full (profiles before stacks_merged) */
  guint64 stacks_merged;  /* events whose new stack found the table full: counted under its leaf alone */
  guint64 frames;         /* frames of all stitched stacks */
  guint64 native_frames;  /* frames the native walks read (the profiler's own included) */
  guint64 stacks_named;   /* distinct stacks whose frames were named */
  guint64 stack_nodes;    /* nodes of the recorder's tree of calls the stacks share (sxs_stacks.c) */
  guint64 recorder_bytes; /* the memory the recorder's stacks, frames and tree took when the profile was
                           * written (their sizes and the tables' slots, not the allocator's overhead) */
  /* Time spent, summed over the walks: the native walk, classifying its frames, the runtimes'
   * DoStackSnapshot walks, the merge, and naming the frames of new stacks. */
  guint64 ns_native, ns_classify, ns_runtime_walks, ns_merge, ns_naming;
  guint64 ns_naming_first; /* of ns_naming, the first stack's: it reads each module's symbols */
  guint64 events[3];       /* events seen: exception, jit, gc (walked or not) */
  guint64 empty;           /* walks that found no frame */
  guint64 truncated;       /* walks cut short for room */
  GHashTable *failures;    /* why: HRESULT or errno name -> count (char*, guint64*); owned */
  GHashTable *skipped;     /* runtimes not asked, or events not walked: reason -> count; owned */
} SxsWalkCounters;

SxsStackModel *sxs__stack_model_new(const char *event, uint32_t thread);
void sxs__stack_model_free(gpointer s);
/* The order of a profile's stack lists (for g_ptr_array_sort): by event, then count, most frequent
 * first, then thread, runtime and type. */
int sxs__stack_model_compare(gconstpointer a, gconstpointer b);
SxsStackModel *sxs__stack_model_copy(const SxsStackModel *s);
/* A copy whose frames borrow the strings of s's frames (name, module, file): they must outlive the
 * copy (the recorder's are interned for the process's life), and the copy's are never freed nor
 * changed. For a snapshot of many stacks, which copying every name of would double. */
SxsStackModel *sxs__stack_model_copy_borrowed(const SxsStackModel *s);

/* One thread's sampling rate in cpu mode (the profile's "samples"."thread_rates"), or one of the
 * profiler's own threads, never sampled, and the CPU time it used ("samples"."profiler_threads"). */
typedef struct {
  uint32_t os_tid;
  char *name;       /* NULL when unknown */
  guint64 captures; /* stacks captured on it */
  guint64 expiries; /* the periods they stand for (captures and those lost) */
  guint64 cpu_ns;   /* the CPU time it used while sampled (the profiler's threads: in all) */
  guint64 events;   /* a hardware event: the events counted on it while sampled */
  /* Of cpu_ns, what a CPU-time timer sampled while the engine was perf (engine=auto moves a thread
   * that runs in short slices to a timer: a counter costs each of its context switches). */
  guint64 timer_ns;
} SxsThreadRateModel;

void sxs__thread_rate_model_free(gpointer p);
SxsThreadRateModel *sxs__thread_rate_model_copy(const SxsThreadRateModel *r);
/* The order of those lists: by CPU time (events), the most first, then thread id. */
int sxs__thread_rate_model_compare(gconstpointer a, gconstpointer b);

/* What the sampler did (the profile's "samples"). */
typedef struct {
  gboolean enabled;
  int frequency;
  char *mode;       /* "cpu", "wall" */
  char *walker;     /* "signal" */
  char *off_reason; /* why sampling is off although asked for, or NULL */
  /* Cpu mode: what raised the samples ("perf" or "timer") and why that one (e.g. "perf_event_open:
   * EACCES (Permission denied; perf_event_paranoid=3); the CPU-time timers instead"); NULL in wall
   * mode or when sampling is off. */
  char *engine;
  char *engine_reason;
  char *event;          /* cpu mode: what a period counts: "cpu-time", "cycles", ...; NULL in wall mode */
  char *event_unit;     /* its unit: "nanoseconds" or "count" */
  guint64 event_period; /* the period a sample stands for, in event_unit (0: unknown) */
  /* Wall mode: the sampler's ticks, on a fixed schedule. Cpu mode (no fixed tick): a tick is a
   * timer expiry, a period of CPU time a thread used; ticks_missed the expiries merged into
   * another (the kernel's overruns, no room left), duration_ns the CPU time they stand for. */
  guint64 ticks;            /* sampling periods the sampler thread went through (cpu mode: stacks captured) */
  guint64 ticks_missed;     /* ticks that would have started more than a period late: the periods skipped */
  guint64 duration_ns;      /* the time the ticks cover: the first one's start to the last one's period end */
  guint64 wall_ns;          /* the wall time sampling ran: wall mode, duration_ns; cpu mode, its first batch to its last
                    * (0: a profile that does not say) */
  guint64 threads;          /* the most threads the sampler saw at once */
  guint64 threads_per_tick; /* the most threads one tick samples (wall mode, suspend walker) */
  guint64 blocked_walks;    /* wall mode: samples of threads blocked in a system call, walked without a signal */
  guint64 blocked_walk_ns;  /* the time those walks took, summed */
  guint64 ticks_signal, ticks_suspend;                    /* of those, by walker */
  guint64 taken;                                          /* stacks captured */
  guint64 weight;                                         /* samples they stand for (cpu mode: periods of CPU time) */
  guint64 capture_ns;                                     /* time in the signal handler, summed */
  guint64 capture_ns_max;                                 /* the longest capture */
  guint64 capture_ns_p50, capture_ns_p90, capture_ns_p99; /* quantiles of the last 4096 captures */
  guint64 resolve_ns;                                     /* time classifying and recording captured stacks, summed */
  guint64 suspensions;                                    /* suspend walker: times the runtimes were suspended */
  guint64 walks_reused;        /* suspend walker: samples that reused their thread's last walk */
  guint64 walks_redone;        /* captures walked again from their stack copy once their code was read */
  guint64 frames;              /* frames captured */
  GHashTable *dropped;         /* reason -> guint64*; owned */
  GPtrArray *stacks;           /* SxsStackModel*, per thread, by count; owned */
  GPtrArray *thread_rates;     /* SxsThreadRateModel*, cpu mode, by CPU time; owned */
  GPtrArray *profiler_threads; /* SxsThreadRateModel*, the profiler's own, by CPU time; owned */
} SxsSamplesModel;

/* How far a profile's sampled stacks can be trusted, from its own stacks and counts:
 * samples: all the samples (their counts summed); unnamed: of those, samples with a frame left as
 * a bare address (code that belongs to no module and that no runtime names: a stub, a dynamic
 * method), where a managed caller may be missing too; other_walker: ticks made by the walker that
 * is not samples.walker (a runtime the suspend walker cannot suspend falls back to signals). */
typedef struct {
  guint64 samples;
  guint64 unnamed;
  guint64 other_walker;
} SxsSamplesQuality;

/* Fills *ret from the samples model. */
void sxs__samples_quality(const SxsSamplesModel *sm, SxsSamplesQuality *ret);

/* A sample's value in its event's unit (a hardware event's samples count events, not time): 0 for
 * cpu-time and wall samples, whose periods are the frequency's. */
static inline gboolean sxs__samples_hardware(const SxsSamplesModel *sm) {
  return sm->event != NULL && g_strcmp0(sm->event, "cpu-time") != 0 && g_strcmp0(sm->event_unit, "count") == 0;
}

/* The ticks a second the sampler achieved over the time they cover (of a merged profile: the
 * processes' ticks over their times); 0 when it made none. */
static inline double sxs__samples_achieved_hz(const SxsSamplesModel *sm) {
  return sm->duration_ns > 0 ? (double)sm->ticks * 1e9 / (double)sm->duration_ns : 0;
}

/* One assembly whose PDB was looked for (the profile's "lines"."modules"). */
typedef struct {
  int runtime_id;
  char *module; /* the assembly's file */
  char *status; /* "found", "missing", "mismatch", "windows", "damaged" */
  char *where;  /* the PDB's path, "embedded", or what was found instead; NULL when nothing */
} SxsLinesModuleModel;

/* A method whose frames were resolved through more than one code version (tiered code). */
typedef struct {
  int runtime_id;
  char *name;
  guint versions;
} SxsLinesMethodModel;

/* How source lines went (the profile's "lines"). */
typedef struct {
  gboolean enabled;
  guint64 stacks;            /* stacks whose managed frames were looked up (every sample, every event) */
  guint64 frames_resolved;   /* managed frames given a line */
  guint64 frames_unresolved; /* managed frames left without one (no PDB, no map, hidden code) */
  guint64 methods;           /* methods whose lines were read */
  guint64 code_versions;     /* their code versions whose IL-to-native maps were read */
  guint64 ns_resolving;      /* time looking frames up, summed (runtimes asked and PDBs read included) */
  guint64 ns_first;          /* of that, the part spent on methods and code versions met for the first time */
  GPtrArray *modules;        /* SxsLinesModuleModel*, by runtime then module; owned */
  GPtrArray *retiered;       /* SxsLinesMethodModel*, by runtime then name; owned */
} SxsLinesModel;

/* The timeline (the profile's "timeline"): when each sample and event happened. Times are
 * microseconds of the monotonic clock since the process started. Full detail is kept for the last
 * window_us of the run (0: all of it) up to cap_bytes of the recorder's memory; what is older is
 * kept as samples per second and thread (`seconds`), and detail_from_us says where detail starts. */
typedef struct {
  guint64 t_us;
  SxsStackModel *stack; /* borrowed from samples.stacks; its thread is the sample's */
  guint32 weight;       /* periods it stands for (as the stack's count) */
  guint label;          /* the endpoint of the request it was taken for (index + 1 into labels), 0: none */
} SxsTimelineSample;

typedef enum {
  SXS_TIMELINE_GC = 0,        /* a collection: value generation, reason the runtime's (1: induced) */
  SXS_TIMELINE_PAUSE,         /* the runtime suspended for a GC, suspension start to resume end */
  SXS_TIMELINE_EXCEPTION,     /* thrown: name the type, stack the exceptions profile's */
  SXS_TIMELINE_LOCK_WAIT,     /* a contention, start to end: stack the contention profile's */
  SXS_TIMELINE_ALLOCATION,    /* an allocation sample: value bytes, reason objects it stands for, name the type */
  SXS_TIMELINE_THREAD_START,  /* a runtime's thread got its OS thread */
  SXS_TIMELINE_THREAD_END,    /* ... and ended */
  SXS_TIMELINE_MODULE_LOAD,   /* name the module's file */
  SXS_TIMELINE_RUNTIME_START, /* the profiler started in a runtime (loaded with it, or attached) */
  SXS_TIMELINE_RUNTIME_STOP,  /* the runtime shut down */
  SXS_TIMELINE_JIT,           /* a JIT compilation, start to finish: value the FunctionID, name the function's when
                               * the profile knows it (the inventory, or a frame of it sampled) */
  SXS_TIMELINE_HEAP,          /* the heap after a GC (with the allocation profile): value its bytes */
  SXS_TIMELINE_REQUEST,       /* a request (--endpoints), start to stop: label its endpoint, thread where it began */
  SXS_TIMELINE_N_EVENTS
} SxsTimelineEventKind;

typedef struct {
  SxsTimelineEventKind kind;
  int runtime_id;
  uint32_t thread; /* OS thread id, 0 when none */
  guint64 start_us, dur_us;
  guint64 value;
  int reason;
  char *name;           /* owned, or NULL */
  SxsStackModel *stack; /* borrowed from the kind's profile's stacks, or NULL */
  guint label;          /* the endpoint of the request it happened for (as a sample's), 0: none */
} SxsTimelineEvent;

/* Samples of one thread in one second, older than the detail kept. */
typedef struct {
  guint64 second;
  uint32_t thread;
  guint64 samples;
} SxsTimelineSecond;

typedef struct {
  gboolean present;           /* the profile has a timeline */
  guint64 window_us;          /* detail kept for the last this much of the run; 0: the whole run */
  guint64 cap_bytes;          /* the most memory the detail may take in the profiler */
  guint64 detail_bytes;       /* the memory it took when the profile was made (the folded seconds with it) */
  guint64 detail_from_us;     /* samples and events before this are only in `seconds` (0: none left out) */
  guint64 end_us;             /* the latest time recorded (a sample's, an event's end) */
  guint64 start_unix_us;      /* the process's start in Unix time (0: unknown) */
  guint64 monotonic_start_us; /* ... on the monotonic clock (CLOCK_MONOTONIC, as perf and Stopwatch read it) */
  guint64 folded_samples;     /* samples kept only in `seconds` */
  guint64 dropped_events;     /* events older than the detail kept (not in `seconds`) */
  SxsVec *samples;            /* SxsTimelineSample, by time */
  SxsVec *events;             /* SxsTimelineEvent, by start */
  SxsVec *seconds;            /* SxsTimelineSecond, by second then thread */
  GPtrArray *labels;          /* char*, the endpoints (--endpoints) samples and events name by index + 1; owned */
} SxsTimelineModel;

/* "gc", "pause", "exception", "lock-wait", "allocation", "thread-start", "thread-end",
 * "module-load", "runtime-start", "runtime-stop", "jit", "heap"; and back (FALSE when unknown). */
const char *sxs__timeline_event_name(SxsTimelineEventKind k);
gboolean sxs__timeline_event_parse(const char *name, SxsTimelineEventKind *ret_kind);
/* The event profile an event's stack is one of (exceptions, contention, allocations), or
 * SXS_PROFILE_N_KINDS for a kind without stacks. */
SxsProfileKind sxs__timeline_event_profile(SxsTimelineEventKind k);
/* The timeline's orders (for g_array_sort): samples by time, then thread; events by start. */
int sxs__timeline_sample_compare(gconstpointer a, gconstpointer b);
int sxs__timeline_event_compare(gconstpointer a, gconstpointer b);
/* Frees an SxsTimelineEvent's name (the events array's clear function). */
void sxs__timeline_event_clear(gpointer e);
/* Sets the labels of t's samples and events that its table does not name to none (a document or
 * spool read back), and merges labels of one name (an endpoint shown as its route template, which
 * several paths match) into the first of them. */
void sxs__timeline_model_check_labels(SxsTimelineModel *t);
/* Empties t (arrays kept, emptied; present FALSE). */
void sxs__timeline_model_clear(SxsTimelineModel *t);

/* The whole profile of one process. */
typedef struct {
  SxsProcessInfo *process; /* owned */
  char *mode;              /* "pick-all", ...; NULL when the config failed */
  char *config;            /* the config file's path, NULL for the defaults */
  char *log;               /* where the profiler's messages went: a path, "stderr", or NULL */
  GPtrArray *runtimes;     /* SxsRuntimeModel*, by id; owned */
  GPtrArray *stacks;       /* SxsStackModel*, by event, count (descending), thread; owned */
  SxsWalkCounters walks;
  SxsSamplesModel samples;
  SxsEventProfileModel profiles[SXS_PROFILE_N_KINDS];
  SxsLinesModel lines;
  SxsTimelineModel timeline;
} SxsProfileModel;

SxsProfileModel *sxs__profile_model_new(void);
SxsRuntimeModel *sxs__runtime_model_new(void);
/* Accept NULL. */
void sxs__profile_model_free(SxsProfileModel *m);
void sxs__runtime_model_free(gpointer r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsProfileModel, sxs__profile_model_free)

/* Adds from's runtimes (given ids after into's highest, their frames and threads with them),
 * stacks, samples and counters to into, moving them out of from; into keeps its own process.
 * Counters add up saturating, at SXS_PROFILE_MAX_COUNT or SXS_PROFILE_MAX_NS by their kind.
 * Samples of different frequencies or modes leave frequency -1 (no period) and mode "mixed".
 * Used to see the profiles of several processes as one. */
void sxs__profile_model_merge(SxsProfileModel *into, SxsProfileModel *from);

/* "profiling", "declined", "pending". */
const char *sxs__runtime_status_name(SxsRuntimeStatus s);

/* Sorts functions and threads into their reported order. */
void sxs__runtime_model_sort(SxsRuntimeModel *r);

/* The profile version sxs__profile_render_json writes (and the newest sxs_profile_read reads). */
#define SXS_PROFILE_VERSION 2

/* The profile document, format "sxsprof" version SXS_PROFILE_VERSION, as pretty-printed JSON (each
 * frame of the frame table and each stack on one line). Caller frees. */
char *sxs__profile_render_json(const SxsProfileModel *m, gsize *ret_len);
/* The same as the writer made it (sxs_json.h: a large text mapped apart from the allocator's heap),
 * for the profiled process's own writes. Free with sxs__text_free. */
SxsText sxs__profile_render_json_text(const SxsProfileModel *m);
