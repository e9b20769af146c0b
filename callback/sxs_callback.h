/* One ICorProfilerCallback11 object per runtime, and the class factory that makes them. */
#pragma once

#include <glib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sxs_cor.h"
#include "sxs_naming.h"
#include "sxs_manager.h"

/* The runtime's metrics instrument whose tags name the route template each request matched
 * (ASP.NET Core 8 and later), and its meter: asked for with --endpoints. */
#define SXS_ROUTE_METER "Microsoft.AspNetCore.Routing"
#define SXS_ROUTE_INSTRUMENT "aspnetcore.routing.match_attempts"

/* The metadata of one runtime's modules, kept so that naming the thousands of functions a program
 * runs (the inventory's, the frames of stacks) reads each module's metadata once. A method is
 * named from the module's own file first (sxs__metadata_open_assembly): the runtime's public
 * metadata interface, once asked for a module, makes the program's own metadata reads of it
 * slower for good (a sampled `dotnet build` took 0.7 s more CPU with it). The runtime's importer
 * is the fallback, for modules with no file to read (in memory, in a single-file bundle, dynamic).
 * `lock` guards both tables; each importer holds one reference, dropped when the module unloads
 * or the runtime shuts down. */
typedef struct {
  GMutex lock;
  GHashTable *by_module;  /* ModuleID -> IMetaDataImport* */
  GHashTable *assemblies; /* ModuleID -> SxsMetadata* of its file, or NULL: it has none to read */
} SxsImporterCache;

void sxs__importer_cache_init(SxsImporterCache *cache);
/* Releases every importer; the cache stays usable (and empty). */
void sxs__importer_cache_clear(SxsImporterCache *cache);
void sxs__importer_cache_fini(SxsImporterCache *cache);
void sxs__importer_cache_forget(SxsImporterCache *cache, ModuleID module_id);

/* Where the runtime's dynamic methods were compiled (sxs_dynamic.c): [start, end) ranges with their FunctionIDs,
 * sorted, and the FunctionIDs noted, both under `lock`. */
typedef struct {
  GMutex lock;
  GArray *ranges;
  GHashTable *functions; /* the FunctionIDs noted and not unloaded (a set) */
} SxsDynamicCode;

void sxs__dynamic_init(SxsDynamicCode *code);
void sxs__dynamic_fini(SxsDynamicCode *code);
/* Notes the code of dynamic method function_id (GetCodeInfo2), replacing what it had and any range it overlaps.
 * 0, or -ENOENT when the runtime gives no code for it. Context: the runtime's callback thread. */
int sxs__dynamic_add(SxsDynamicCode *code, ICorProfilerInfo15 *info, FunctionID function_id);
void sxs__dynamic_remove(SxsDynamicCode *code, FunctionID function_id);
/* The dynamic method whose code holds ip, with its range; FALSE when none. Context: any thread but a signal
 * handler (takes the lock). */
gboolean sxs__dynamic_find(SxsDynamicCode *code, uintptr_t ip, FunctionID *ret_function_id, uintptr_t *ret_start,
                           uintptr_t *ret_end);
/* Whether function_id is a dynamic method noted here, with its first range. */
gboolean sxs__dynamic_first_range(SxsDynamicCode *code, FunctionID function_id, uintptr_t *ret_start,
                                  uintptr_t *ret_end);

/* The callback object a runtime holds: that runtime's live state. Everything it records goes to
 * `runtime`, the registry entry of the runtime that created it, so IDs never cross runtimes.
 *
 * The Info guard: the Info is used outside Initialize only between sxs__callback_info_enter()
 * and sxs__callback_info_leave(). Shutdown closes the guard, waits for the uses in flight (JIT
 * and module events keep arriving on background threads after Shutdown has begun), and only then
 * lets the Info go. */
typedef struct {
  ICorProfilerCallback11 iface; /* first: the runtime's pointer is a pointer to this struct */
  gint refcount;
  SxsRuntime *runtime;              /* owned by the manager */
  ICorProfilerInfo15 *info;         /* this runtime's Info; one reference held, dropped at Shutdown.
                                 * Its capabilities are in runtime->caps. */
  gint info_inflight;               /* uses of `info` under way (atomic) */
  gint info_closed;                 /* set once Shutdown began (atomic) */
  gboolean profiled;                /* Initialize accepted the runtime: the object is never freed */
  SxsImporterCache importers;       /* emptied at Shutdown */
  struct SxsTraceRuntime *trace;    /* call tracing state of this runtime (manager/record/sxs_trace.h), or NULL */
  SxsNamingQueue *names;            /* functions named on the profiler's naming thread (manager/record/
                                     * sxs_naming.h); NULL before Initialize */
  gboolean inventory;               /* the inventory is on: JIT, inlining and cache-search events are queued */
  ICorProfilerInfo15 *suspended_by; /* the Info SuspendRuntime was called on, until ResumeRuntime: the
                                     * resume uses it even when Shutdown has let self->info go */
  char *attach_control;             /* attached: the control socket sxsprof attach listens on, or NULL */
  GMutex unload_lock;               /* guards unloading */
  GMutex catchup_lock;              /* held by the attach catch-up; ModuleUnloadStarted waits for it */
  gint unload_forced;               /* an unload went on without waiting (atomic): the catch-up stops */
  GHashTable *unloading;            /* ModuleIDs whose ModuleUnloadStarted arrived (and no load since):
                                     * the attach catch-up never queries them */
  gboolean profiles_on[SXS_PROFILE_N_KINDS];                 /* the event profiles this runtime records (set up by
                                              * the feature table at Initialize) */
  EVENTPIPE_SESSION eventpipe_sessions[SXS_PROFILE_N_KINDS]; /* in-process sessions of the profiles
                                                              * that have one; 0: none */
  gboolean allocations_sampled; /* the allocation profile records AllocationSampled, not GCAllocationTick
                                 * (set up with its session) */
  gboolean endpoints_on;        /* requests are followed ([labels] endpoints=true; sxs_features.c) */
  gint endpoints_awaits;        /* and across awaits (atomic): SXS_AWAITS_* */
  /* The providers whose events the endpoints read, by handle, learnt as their first events come
   * (atomic; 0: not yet): ASP.NET Core's hosting events, the TPL's and the runtime's metrics (the
   * routing's instrument SXS_ROUTE_INSTRUMENT names the route templates requests matched). */
  EVENTPIPE_PROVIDER hosting_provider, tpl_provider, metrics_provider;
  EVENTPIPE_PROVIDER other_providers[4]; /* providers seen that are neither (the runtime's) */
  SxsDynamicCode dynamic;                /* the dynamic methods' code, noted while sampling */
  gboolean dynamic_on;                   /* sampling: dynamic methods are noted as they are compiled */
  /* The timeline's open spans, set and read by the callbacks that raise them (the runtime calls
   * them one at a time): collections under way (a background one may hold an ephemeral one
   * inside), and a suspension for a GC. */
  struct {
    guint64 start_us;
    int generation;
    int reason;
  } gc_open[2];
  int gc_depth;
  guint64 gc_suspend_start_us; /* 0: none under way */
} SxsCallback;

/* The calling thread's OS id. */
static inline uint32_t sxs__callback_os_tid(void) {
  return (uint32_t)syscall(SYS_gettid);
}

/* One thing the profiler does for a runtime, as data: the event-mask bits it needs, whether the
 * runtime can do it (from the capability record alone), and the setup step that runs once the mask
 * is set. Initialize runs the list; a runtime that cannot do a feature gets it off with one log
 * line naming the runtime and the reason, and the rest runs on. */
typedef struct {
  const char *name;
  /* Is the feature asked for? NULL: always. */
  gboolean (*wanted)(const SxsConfig *cfg);
  /* Its mask bits for this runtime (NULL: it needs none). */
  void (*mask)(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high);
  /* Why this runtime cannot do it (a static sentence), or NULL. NULL: it always can. */
  const char *(*unsupported)(const SxsCapabilities *caps);
  /* After the mask is set: 0, or a negative value with *ret_why (g_free) when the feature could not
   * be set up; the feature's bits are then taken out of the mask again. NULL: nothing to do. */
  int (*setup)(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why);
} SxsFeature;

/* Exact call tracing (sxs_tracing.c). */
extern const SxsFeature sxs__tracing_feature;

/* Runs the feature table (sxs_features.c) for a runtime that is profiled: mask first (some setups
 * need their bits set before them), then each setup in order. Returns the failing HRESULT when the
 * mask itself could not be set. Context: Initialize or InitializeForAttach. */
HRESULT sxs__features_run(SxsCallback *self, ICorProfilerInfo15 *info, const SxsCapabilities *caps);

/* Whether the endpoints follow requests across awaits (SxsCallback.endpoints_awaits): not yet,
 * asking for the TPL's events, following, or refused. */
enum { SXS_AWAITS_NONE, SXS_AWAITS_STARTING, SXS_AWAITS_ON, SXS_AWAITS_FAILED };

/* A request left the thread it began on: the TPL's events are asked for, once, from a thread of
 * their own (sxs_features.c). Context: any thread, normal context. */
void sxs__features_follow_awaits(SxsCallback *self);

/* What the manager may ask of this runtime (sxs_callback_ops.c); the instance is the SxsCallback. */
extern const SxsRuntimeOps sxs__callback_ops;

/* SxsRuntimeOps.function_name: names a function through the guarded Info; -ESHUTDOWN once
 * Shutdown has begun. */
int sxs__callback_ops_function_name(gpointer instance, uint64_t function_id, char **ret_name, char **ret_module);

/* The attach catch-up (sxs_catchup.c): records the modules the runtime loaded before the attach
 * and, with the inventory on, queues the functions it JIT-compiled before it; counts both.
 * Context: ProfilerAttachComplete. */
void sxs__catchup_run(SxsCallback *self, guint *ret_modules, guint *ret_functions);

/* A module's file name (NULL when the runtime gives none) and its COR_PRF_MODULE_FLAGS, in one
 * GetModuleInfo2. FALSE when the runtime does not answer. */
gboolean sxs__callback_module_info(ICorProfilerInfo15 *info, ModuleID module_id, char **ret_name, DWORD *ret_flags);
/* A module's path as the runtime gives it (GetModuleInfo2), or NULL. Caller frees. */
char *sxs__callback_module_path(ICorProfilerInfo15 *info, ModuleID module_id);

/* The Info for one use, or NULL once Shutdown has begun (or before Initialize). A non-NULL
 * answer must be paired with sxs__callback_info_leave(). Context: any thread; lock-free. */
ICorProfilerInfo15 *sxs__callback_info_enter(SxsCallback *self);
void sxs__callback_info_leave(SxsCallback *self);
/* Closes the guard and waits up to `timeout_ms` for the uses in flight. TRUE when none is left. */
gboolean sxs__callback_info_close(SxsCallback *self, int timeout_ms);

/* A new callback object with one reference, for the runtime `rt`. NULL when out of memory. */
SxsCallback *sxs__callback_new(SxsRuntime *rt);

/* DllGetClassObject's body: the class factory for CLSID_SxsProfiler. */
HRESULT sxs__callback_get_class_object(REFCLSID rclsid, REFIID riid, void **ppv);

/* Namespace.Type.Method of a function and its ModuleID, read through the module's
 * IMetaDataImport (taken from `cache`, or asked of the runtime and kept there). 0, -ENOENT, or
 * -EAGAIN when the runtime refused the read on this thread now (CORPROF_E_UNSUPPORTED_CALL_SEQUENCE
 * on another runtime's callback thread, ...) where a thread of the profiler's could make it.
 * Context: any thread but a signal handler (may allocate, may block). */
int sxs__callback_function_name(ICorProfilerInfo15 *info, SxsImporterCache *cache, FunctionID function_id,
                                char **ret_name, ModuleID *ret_module);

/* The name of a class of this runtime: Namespace.Type (nested types joined by '.'), arrays as
 * Element[] (Element[,] for rank 2). Returns 0 and *ret_name (caller frees), or -ENOENT. Context:
 * any runtime thread in a callback; reads metadata. */
int sxs__callback_class_name(ICorProfilerInfo15 *info, SxsImporterCache *cache, ClassID class_id, char **ret_name);

/* SxsRuntimeOps.il_map (sxs_il_map.c): a function's module, token and, for an ip, the IL-to-native
 * map of the code version that holds it, through the guarded Info. */
int sxs__callback_il_map(gpointer instance, uint64_t function_id, uintptr_t ip, SxsIlMap *ret);

/* UTF-16 from the runtime to UTF-8; NULL on invalid input. */
char *sxs__callback_utf8(const WCHAR *s, gssize len);
