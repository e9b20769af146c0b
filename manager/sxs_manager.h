/* The process-wide profiler manager: one per process, however many runtimes load the library.
 *
 * It owns the config, the log, the registry of runtimes (one SxsRuntime per CreateInstance, in
 * the order the runtimes arrived), the thread registry keyed by (runtime, thread), and the profile
 * writer. It does not speak COM: the callback objects in callback/ translate runtime calls into
 * the calls below. Nothing in here runs on a hot or signal path. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_config.h"

typedef enum {
  SXS_RUNTIME_PENDING = 0, /* CreateInstance accepted it, Initialize has not decided yet */
  SXS_RUNTIME_PROFILING,
  SXS_RUNTIME_DECLINED,
} SxsRuntimeStatus;

/* Counters of what one runtime did; updated with atomics from any of its threads. */
typedef struct {
  gint64 jit_compiled;
  gint64 modules_loaded;
  gint64 exceptions;
  gint64 gcs;
  gint64 threads_created;
} SxsCounters;

/* What one runtime can do, decided once at Initialize from what it answers; nothing else looks
 * at runtime versions. */
typedef struct {
  int info_version;     /* highest ICorProfilerInfoN answered (3..15) */
  gboolean event_mask2; /* SetEventMask2 (Info5) */
  gboolean basic_gc;    /* COR_PRF_HIGH_BASIC_GC: GC start/finish without heap walks (Info10, 3.0+) */
} SxsCapabilities;

/* Counter updates: relaxed atomics, lock-free. Context: any thread. */
static inline void sxs__counter_add(gint64 *counter) { __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED); }
static inline gint64 sxs__counter_get(const gint64 *counter) { return __atomic_load_n(counter, __ATOMIC_RELAXED); }

/* One JIT-compiled function of one runtime. */
typedef struct {
  char *name;   /* Namespace.Type.Method, nested types joined by '.' */
  char *module; /* file name of the module, e.g. app.dll */
  guint jit_compiled;
} SxsFunctionRecord;

/* One managed thread of one runtime, keyed in the manager by (runtime id, ThreadID). */
typedef struct {
  int runtime_id;
  uint64_t thread_id; /* the runtime's ThreadID: only ever passed back to that runtime */
  uint32_t os_tid;
  char *name;
  gboolean destroyed;
} SxsThreadRecord;

/* A runtime that loaded the library. Owned by the manager's registry and kept until the process
 * ends, so a declined runtime can still be reported after its callback object is gone.
 * `lock` guards functions, modules, status, reason and the identity strings after registration. */
typedef struct {
  int id;                 /* 1, 2, ... in CreateInstance order */
  SxsRuntimeStatus status;
  char *reason;           /* why it was declined; NULL while profiled */
  char *version;          /* product version: 10.0.12, 2.0.0 */
  char *clr_version;      /* what GetRuntimeInformation says: 10.0.12, 4.0.22220.0 */
  char *path;             /* canonical path of the libcoreclr.so that owns it */
  SxsCapabilities caps;   /* recorded once at Initialize */
  gpointer instance;      /* its callback object (callback/), borrowed; NULL once released */
  gpointer info;          /* its ICorProfilerInfo, borrowed from the instance; NULL after Shutdown */
  gboolean shut_down;     /* Shutdown was delivered */
  SxsCounters counters;
  GMutex lock;
  GHashTable *functions;  /* FunctionID (guint64*) -> SxsFunctionRecord* ; owned */
  GHashTable *modules;    /* ModuleID (guint64*) -> char* file name ; owned */
} SxsRuntime;

/* Returns the manager, creating it on first use (thread-safe). On creation it reads the config
 * named by SXSPROF_CONFIG, opens the log and makes sure the profile is written at process exit. */
void sxs__manager_ensure(void);

/* TRUE when the config could not be used: every runtime is declined. */
gboolean sxs__manager_config_failed(void);

/* Registers a runtime arriving at CreateInstance. `path` and `version` may be NULL when they
 * could not be found yet. Applies the CreateInstance stage of the policy; returns the new entry
 * (never NULL) with status PENDING or DECLINED (then ret_reason-like text is in ->reason). */
SxsRuntime *sxs__manager_admit(const char *path, const char *version);

/* Fills in the identity and capabilities found at Initialize and applies the Initialize stage
 * of the policy. Returns TRUE to profile; FALSE declines (reason recorded and logged). */
gboolean sxs__manager_initialize(SxsRuntime *rt, const char *path, const char *version,
                                 const char *clr_version, const SxsCapabilities *caps);

/* The registry's view of a runtime's COM objects: its callback instance and its Info. Either may
 * be NULL (released, shut down). */
void sxs__manager_bind(SxsRuntime *rt, gpointer instance, gpointer info);

/* Declines a runtime for a reason found outside the policy (a failed call at Initialize). */
void sxs__manager_decline(SxsRuntime *rt, const char *reason);

/* Records a finished JIT compilation; name and module are copied. */
void sxs__manager_record_jit(SxsRuntime *rt, uint64_t function_id, const char *name, const char *module);
/* TRUE when the function is already named (saves a metadata lookup on re-JIT). */
gboolean sxs__manager_function_known(SxsRuntime *rt, uint64_t function_id);
void sxs__manager_record_module(SxsRuntime *rt, uint64_t module_id, const char *file_name);
/* The file name of a module seen at ModuleLoadFinished, or NULL. Caller frees. */
char *sxs__manager_module_name(SxsRuntime *rt, uint64_t module_id);

/* Thread registry, keyed by (runtime, ThreadID). */
void sxs__manager_thread_created(SxsRuntime *rt, uint64_t thread_id);
void sxs__manager_thread_os_id(SxsRuntime *rt, uint64_t thread_id, uint32_t os_tid);
void sxs__manager_thread_named(SxsRuntime *rt, uint64_t thread_id, const char *name);
void sxs__manager_thread_destroyed(SxsRuntime *rt, uint64_t thread_id);

/* The runtime's Shutdown: marks it and writes the profile. */
void sxs__manager_runtime_shutdown(SxsRuntime *rt);

/* Writes <output>.json atomically with every runtime. Safe from any thread and at exit.
 * Returns 0 or -errno. */
int sxs__manager_write_profile(void);

/* One line to the log, prefixed "sxsprof: ". */
void sxs__manager_log(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* Renders the profile document (used by the writer and by tests). Caller frees. */
char *sxs__manager_render_profile(gsize *ret_len);

/* Test support: forget every runtime and reload the config from the environment. */
void sxs__manager_reset_for_tests(void);
