/* sxs_profile: the profile as a plain model, snapshotted from the manager's live registry under
 * its locks and rendered outside them, so that a writer (at Shutdown, at exit, or the periodic
 * flush thread) never holds a lock a runtime callback could need while it formats or writes.
 * It takes no lock and reads no live state. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_process.h"

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

/* How the code of a function came to run. */
typedef enum {
  SXS_CODE_JIT,         /* the JIT compiled it (again at each tier or re-JIT) */
  SXS_CODE_INLINED,     /* the JIT inlined it into a caller it compiled */
  SXS_CODE_PRECOMPILED, /* its ReadyToRun code was used the first time it was called */
} SxsCodeKind;

/* One function of one runtime whose code ran or was generated: JIT-compiled, inlined into another
 * function (then it may never have been compiled by itself), or precompiled. */
typedef struct {
  char *name;   /* Namespace.Type.Method, nested types joined by '.' */
  char *module; /* file name of the module, e.g. app.dll */
  guint jit_compiled;
  guint inlined;     /* times the JIT inlined it into a caller it compiled */
  guint precompiled; /* times its ReadyToRun code was taken (once per load) */
} SxsFunctionRecord;

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

/* One runtime as the profile reports it: copies, owned by the model. */
typedef struct {
  int id;
  SxsRuntimeStatus status;
  char *reason;
  char *version;
  char *clr_version;
  char *path;
  SxsCapabilities caps;
  gboolean shut_down;
  SxsCounters counters;
  GPtrArray *functions; /* SxsFunctionRecord*, sorted by name then module; owned */
  GPtrArray *threads;   /* SxsThreadRecord*, sorted by OS thread id; owned */
} SxsRuntimeModel;

/* The whole profile of one process. */
typedef struct {
  SxsProcessInfo *process; /* owned */
  char *mode;              /* "pick-all", ...; NULL when the config failed */
  char *config;            /* the config file's path, NULL for the defaults */
  char *log;               /* where the profiler's messages went: a path, "stderr", or NULL */
  GPtrArray *runtimes;     /* SxsRuntimeModel*, by id; owned */
} SxsProfileModel;

SxsProfileModel *sxs__profile_model_new(void);
SxsRuntimeModel *sxs__runtime_model_new(void);
/* Accept NULL. */
void sxs__profile_model_free(SxsProfileModel *m);
void sxs__runtime_model_free(gpointer r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsProfileModel, sxs__profile_model_free)

/* "profiling", "declined", "pending". */
const char *sxs__runtime_status_name(SxsRuntimeStatus s);

/* Sorts functions and threads into their reported order. */
void sxs__runtime_model_sort(SxsRuntimeModel *r);

/* The profile document, format "sxsprof" version 1, as pretty-printed JSON. Caller frees. */
char *sxs__profile_render_json(const SxsProfileModel *m, gsize *ret_len);
