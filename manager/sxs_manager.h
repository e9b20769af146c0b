/* The process-wide registry: one per process, however many runtimes load the library.
 *
 * It owns the config in force, the log, the registry of runtimes (one SxsRuntime per
 * CreateInstance, in the order the runtimes arrived) with their functions and modules, and the
 * thread registry keyed by (runtime, thread). It does not speak COM (the callback objects in
 * callback/ translate runtime calls into the calls below), calls nothing above itself (record/,
 * output/) and writes no profile (output/ does, from sxs__manager_copy). Nothing in here runs on a
 * hot or signal path. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_config.h"
#include "sxs_profile.h"
#include "sxs_stitch.h"

/* Counter updates: relaxed atomics, lock-free. Context: any thread. */
static inline void sxs__counter_add(gint64 *counter) {
  __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}
static inline gint64 sxs__counter_get(const gint64 *counter) {
  return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* What SxsRuntimeOps.il_map answers: a method's module and token, and the code version of it that
 * holds a code address, with that version's IL-to-native map. */
typedef struct {
  char *module_path;    /* the module's file as the runtime loaded it (g_free), NULL when it has none */
  uint64_t module_id;   /* the runtime's ModuleID */
  uint32_t token;       /* the method's mdMethodDef */
  uintptr_t code_start; /* the code version's first byte; 0 when only the method was asked for */
  struct {
    uintptr_t start;
    size_t size;
  } ranges[2]; /* its code: hot, then cold; native offsets count through them in that order */
  guint n_ranges;
  COR_DEBUG_IL_TO_NATIVE_MAP *map; /* g_free; native offsets from code_start */
  guint n_map;
} SxsIlMap;

static inline void sxs__il_map_clear(SxsIlMap *m) {
  g_free(m->module_path);
  g_free(m->map);
  *m = (SxsIlMap){0};
}

/* What the manager may ask of a runtime's live side: its callback instance (callback/) registers
 * these at Initialize. Every operation goes through the instance's Info guard and answers -ESHUTDOWN
 * once the runtime has begun to shut down, so the manager never speaks COM and never races Shutdown.
 * Operations may call into the runtime: the manager holds no lock while it calls them. */
typedef struct {
  /* Namespace.Type.Method and module file name of one of the runtime's functions. 0 or -errno
   * (-EAGAIN: the runtime refused to read metadata on this thread now; a thread of the profiler's
   * may); the out-parameters are untouched on failure. */
  int (*function_name)(gpointer instance, uint64_t function_id, char **ret_name, char **ret_module);
  /* Does the runtime own the code at ip (GetFunctionFromIP)? 0 with *ret_function_id; 1 with it for
   * code without metadata its walks do not report (a dynamic method, an IL stub); -ENOENT when not,
   * -ESHUTDOWN, or -EAGAIN when the runtime could not answer now. Context: any thread. */
  int (*owns_ip)(gpointer instance, uintptr_t ip, uint64_t *ret_function_id);
  /* The runtime's walk of the calling thread: as SxsStitchRuntime.walk (sxs_stitch.h). Context: the
   * walked thread, no profiler lock held. */
  int (*walk)(gpointer instance, SxsStackFrame *frames, guint max, guint *ret_n, HRESULT *ret_hr);
  /* SuspendRuntime: 0 (the runtime stays suspended, and its Info guard entered, until resume), or
   * -ENOTSUP (no Info10), -ESHUTDOWN, -EIO (the runtime refused: a suspension in progress). Context:
   * a thread that never ran managed code (the sampler). */
  int (*suspend)(gpointer instance);
  /* ResumeRuntime after a successful suspend. */
  void (*resume)(gpointer instance);
  /* The runtime's managed threads (EnumThreads, GetThreadInfo): up to max ThreadIDs with their OS
   * thread ids; the count written. Context: the sampler, between suspend and resume. */
  guint (*threads)(gpointer instance, uint64_t *ret_ids, uint32_t *ret_os_tids, guint max);
  /* DoStackSnapshot of another thread of the runtime (between suspend and resume), as walk. */
  int (*walk_thread)(gpointer instance, uint64_t thread_id, SxsStackFrame *frames, guint max, guint *ret_n,
                     HRESULT *ret_hr);
  /* A function's module and token, and (ip non-zero) the code version of it that holds ip with its
   * IL-to-native map: 0 with *ret filled (sxs__il_map_clear; code_start 0 when no code version it
   * lists holds ip, or ip is 0), -ENOENT when the runtime knows no such method, -ESHUTDOWN.
   * Context: normal context, off the signal path (the sampler thread, an event's thread); no
   * profiler lock held. */
  int (*il_map)(gpointer instance, uint64_t function_id, uintptr_t ip, SxsIlMap *ret);
} SxsRuntimeOps;

/* A runtime a stack walk may ask, as sxs__manager_stitch_targets lists it. */
typedef struct {
  struct SxsRuntime *runtime;
  SxsStitchRuntime stitch;  /* user: the runtime's callback instance */
  const SxsRuntimeOps *ops; /* all of the live side's operations (called with stitch.user) */
  gboolean can_suspend;     /* the capability record's suspend */
} SxsStitchTarget;

/* A runtime that loaded the library. Owned by the manager's registry and kept until the process
 * ends, so a declined runtime can still be reported after its callback object is gone.
 * `lock` guards functions, modules, caps, selector_match, ops and ops_instance, shut_down, and the
 * identity strings after registration. status and reason are written with manager.lock and `lock`
 * both held (in that order), so either lock suffices to read them. */
typedef struct SxsRuntime {
  int id; /* 1, 2, ... in CreateInstance order */
  SxsRuntimeStatus status;
  char *reason;             /* why it was declined; NULL while profiled */
  char *version;            /* product version: 10.0.12, 2.0.0 */
  char *clr_version;        /* what GetRuntimeInformation says: 10.0.12, 4.0.22220.0 */
  char *version_source;     /* where version was read: "runtime", "corelib", ".version", "deps.json",
                             * "folder"; NULL when unknown (docs/design.md, "Which version a runtime is") */
  char *path;               /* canonical path of the libcoreclr.so that owns it */
  SxsCapabilities caps;     /* recorded once at Initialize */
  int selector_match;       /* SXS_MATCH_*: does pick-one's runtime= match it (worked out at Initialize) */
  GHashTable *features_off; /* feature name -> why it is off for this runtime (char*, owned) */
  const SxsRuntimeOps *ops; /* the live side's operations; NULL before Initialize and once released */
  gpointer ops_instance;    /* what ops are called with: the callback instance, borrowed */
  gboolean shut_down;       /* Shutdown was delivered */
  gint64 attached_unix_ms;  /* when InitializeForAttach accepted it; 0 for a runtime that loaded the
                             * profiler at startup */
  SxsCounters counters;
  SxsHeapModel heap;               /* the heap after its GCs (sxs__events_heap); its fields updated with atomics */
  const char *allocation_sampling; /* the allocation profile's event here (a static string), or NULL */
  GMutex lock;
  GHashTable *functions;         /* FunctionID (guint64*) -> SxsFunctionRecord* ; owned */
  GHashTable *changed_functions; /* records of `functions` made or counted since the last
                                  * sxs__manager_function_changes (a set, borrowed) */
  GHashTable *modules;           /* ModuleID (guint64*) -> char* file name ; owned */
} SxsRuntime;

/* Creates the registry on first use (thread-safe): reads the config named by SXSPROF_CONFIG and
 * decides where the profile and the log go. */
void sxs__manager_ensure(void);

/* Was the registry created, with a usable config? Creates nothing. */
gboolean sxs__manager_active(void);

/* TRUE when the config could not be used: every runtime is declined. */
gboolean sxs__manager_config_failed(void);

/* Registers a runtime arriving at CreateInstance. `path` and `version` may be NULL when they
 * could not be found yet. Applies the CreateInstance stage of the policy; returns the new entry
 * (never NULL) with status PENDING or DECLINED (then ret_why-like text is in ->reason). */
SxsRuntime *sxs__manager_admit(const char *path, const char *version);

/* Fills in the identity and capabilities found at Initialize and applies the Initialize stage
 * of the policy. Returns TRUE to profile; FALSE declines (reason recorded and logged). */
gboolean sxs__manager_initialize(SxsRuntime *rt, const char *path, const char *version, const char *clr_version,
                                 const SxsCapabilities *caps);

/* Records where the runtime's product version was read from (a word the profile shows as
 * "version_source"); called at Initialize, before sxs__manager_initialize. */
void sxs__manager_version_source(SxsRuntime *rt, const char *source);

/* Which event the allocation profile of rt records ("AllocationSampled", "GCAllocationTick": a
 * string that lives as long as the process), for the profile to say. Context: rt's Initialize. */
void sxs__manager_allocation_sampling(SxsRuntime *rt, const char *event);

/* Registers (ops non-NULL) or withdraws (NULL) the live side of a runtime. The instance withdraws
 * before it is freed. */
void sxs__manager_attach_ops(SxsRuntime *rt, const SxsRuntimeOps *ops, gpointer instance);

/* Names one of a runtime's functions through its live side: 0, or -ESHUTDOWN / -ENOENT / -EAGAIN
 * (SxsRuntimeOps.function_name). */
int sxs__manager_function_name(SxsRuntime *rt, uint64_t function_id, char **ret_name, char **ret_module);

/* The runtimes a stack walk may ask now, in id order, into out[0 .. returned) (at most max), and
 * their SxsStitchTarget.stitch into ret_runtimes[] too when it is not NULL: profiled, with their
 * live side attached, not shut down, and stacks not off for them. Each other runtime's reason is
 * appended to skipped (static strings: "declined", "starting", "shut down", "stacks off", "too
 * many runtimes"), at most max_skipped of them (skipped may be NULL with 0), *ret_n_skipped set
 * when not NULL. Context: any thread; takes the registry's locks, calls nothing. */
guint sxs__manager_stitch_targets(SxsStitchTarget *out, SxsStitchRuntime *ret_runtimes, guint max, const char **skipped,
                                  guint max_skipped, guint *ret_n_skipped);

/* The runtime of an id, or NULL; runtimes stay registered for the process's life. Context: any
 * thread; takes the registry's lock. */
SxsRuntime *sxs__manager_runtime(int id);

/* The name and module recorded for a function: 0, or -ENOENT (out-parameters untouched). */
int sxs__manager_recorded_function(SxsRuntime *rt, uint64_t function_id, char **ret_name, char **ret_module);

/* A copy of the runtime's capability record. */
void sxs__manager_capabilities(SxsRuntime *rt, SxsCapabilities *ret_caps);

/* The config in force (immutable once loaded), NULL when it failed. */
const SxsConfig *sxs__manager_config(void);

/* A feature (tracing, ...) is off for this runtime: logs one line naming the runtime and why, and
 * records it for the profile. */
void sxs__manager_feature_off(SxsRuntime *rt, const char *feature, const char *why);
/* ... and on again after all (a part that starts later): its record goes. */
void sxs__manager_feature_on(SxsRuntime *rt, const char *feature);

/* Declines a runtime for a reason found outside the policy (a failed call at Initialize). */
void sxs__manager_decline(SxsRuntime *rt, const char *reason);

/* Records that a function's code was made or taken (see SxsCodeKind); name and module are copied
 * (NULL when the function is already known). SXS_CODE_JIT also counts in the runtime's
 * jit_compiled counter. */
void sxs__manager_record_function(SxsRuntime *rt, uint64_t function_id, SxsCodeKind kind, const char *name,
                                  const char *module);
/* The name recorded for a function, or NULL. Caller frees. */
char *sxs__manager_recorded_name(SxsRuntime *rt, uint64_t function_id);
/* TRUE when the function is already named (saves a metadata lookup on re-JIT). */
gboolean sxs__manager_function_known(SxsRuntime *rt, uint64_t function_id);
void sxs__manager_record_module(SxsRuntime *rt, uint64_t module_id, const char *file_name);
/* Was the module recorded (by its load event, or by the attach catch-up)? */
gboolean sxs__manager_module_known(SxsRuntime *rt, uint64_t module_id);
/* The file name of a module seen at ModuleLoadFinished, or NULL. Caller frees. */
char *sxs__manager_module_name(SxsRuntime *rt, uint64_t module_id);

/* Thread registry, keyed by (runtime, ThreadID). */
void sxs__manager_thread_created(SxsRuntime *rt, uint64_t thread_id);
void sxs__manager_thread_os_id(SxsRuntime *rt, uint64_t thread_id, uint32_t os_tid);
void sxs__manager_thread_named(SxsRuntime *rt, uint64_t thread_id, const char *name);
/* Marks the thread ended; returns its OS thread id (0 when it never had one). */
uint32_t sxs__manager_thread_destroyed(SxsRuntime *rt, uint64_t thread_id);

/* The runtime's Shutdown: marks it (output/ then writes the profile). Returns how many profiled
 * runtimes are still running (not shut down). */
guint sxs__manager_runtime_shutdown(SxsRuntime *rt);

/* One line to the log (by default <prefix>.log, never the process's stdout or stderr unless
 * log=stderr), prefixed "sxsprof[<pid>]: " and written with one write(2) so that the lines of the
 * processes sharing a log never interleave. */
void sxs__manager_log(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* The registry's part of a profile: the process, the config in force, the log, and a copy of
 * every runtime (identity, capabilities, counters, functions sorted, threads, features off), taken
 * under the registry's locks. The recorders' parts are added by output/. Caller frees. */
SxsProfileModel *sxs__manager_copy(void);

/* sxs__manager_copy without the runtimes' functions (for the spool, which keeps them apart).
 * Caller frees. */
SxsProfileModel *sxs__manager_copy_without_functions(void);

/* A function record made or counted since the last sxs__manager_function_changes: a copy. */
typedef struct {
  int runtime_id;
  SxsFunctionRecord *function;
} SxsFunctionChange;
void sxs__function_change_free(gpointer change);

/* Copies of the function records of every runtime made or counted since the last call (every
 * record with `all`), in runtime order, as SxsFunctionChange*. Context: the output thread; takes
 * the registry's locks. Caller frees the array. */
GPtrArray *sxs__manager_function_changes(gboolean all);

/* How many runtimes loaded the library (profiled or declined). */
guint sxs__manager_runtime_count(void);
/* The pid whose profile this is (a child forked without exec is another process). */
int sxs__manager_pid(void);

/* Test support: forget every runtime and reload the config from the environment. */
void sxs__manager_reset_for_tests(void);

/* An attach (sxsprof attach) brings its config by path: it becomes the process's config when no
 * runtime is profiled yet (the output, log, formats and features it names), and the profile's
 * run id becomes run_id. With a runtime already profiled since startup, that runtime's config
 * stays and the attach shares it (logged). Returns 0, or -EINVAL with *ret_why (one sentence)
 * when the config cannot be read. Context: the thread in InitializeForAttach. */
int sxs__manager_attach_config(const char *config_path, const char *run_id, char **ret_why);

/* Quiet: an attach's stop ended the expensive work (the sampler, stacks on events) while the
 * runtimes keep the library. Set by output/'s quiesce, cleared by a new attach's config. Context:
 * any thread; lock-free. */
void sxs__manager_set_quiet(gboolean quiet);
gboolean sxs__manager_quiet(void);
/* Where this process's profile goes (a copy), or NULL when profiling is off. */
char *sxs__manager_profile_path(void);
