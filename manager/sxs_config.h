/* sxs_config: the profiler's key file (SXSPROF_CONFIG), parsed and checked once at load time.
 * It does not decide which runtime is profiled (sxs_policy does) and opens no output file. */
#pragma once

#include <glib.h>

#include "sxs_format.h"
#include "sxs_profile.h"

typedef enum { SXS_MODE_PICK_FIRST, SXS_MODE_PICK_ONE, SXS_MODE_PICK_ALL } SxsMode;

typedef enum { SXS_SELECTOR_NONE, SXS_SELECTOR_VERSION, SXS_SELECTOR_PATH } SxsSelectorKind;

/* Where the profiler's messages go. */
typedef enum {
  SXS_LOG_DEFAULT, /* beside the profile: <prefix>.log, or <folder>/sxsprof.log */
  SXS_LOG_STDERR,  /* log=stderr: the profiled process's own stderr */
  SXS_LOG_FILE,    /* log=<path> */
} SxsLogKind;

/* [timeline] window=: the longest (30 days). */
#define SXS_CONFIG_TIMELINE_WINDOW_MAX_S (30 * 24 * 3600)

/* [stacks] max_distinct=: default and bounds. */
#define SXS_CONFIG_STACKS_MAX_DISTINCT_DEFAULT 32768
#define SXS_CONFIG_STACKS_MAX_DISTINCT_MIN 16
#define SXS_CONFIG_STACKS_MAX_DISTINCT_MAX 1048576

/* Default of flush=, in seconds. */
#define SXS_CONFIG_FLUSH_DEFAULT 60
/* Largest flush= accepted: one day. */
#define SXS_CONFIG_FLUSH_MAX 86400

/* [tracing] routing=: how a hook finds its runtime. */
typedef enum {
  SXS_ROUTING_MAPPER2, /* SetFunctionIDMapper2 with the callback instance as clientData (default) */
  SXS_ROUTING_CLOSURE, /* SetFunctionIDMapper with a libffi closure per runtime */
} SxsRouting;

/* [tracing] hooks=: what the hooks do. */
typedef enum {
  SXS_HOOKS_FULL,  /* count, time, call tree (default) */
  SXS_HOOKS_EMPTY, /* return at once: measures the runtime's own probe cost */
} SxsHooksMode;

/* The [tracing] group: exact call tracing through Enter/Leave/Tailcall hooks. */
typedef struct {
  gboolean enabled;          /* enabled=true|false, default false */
  gboolean inlining_allowed; /* inlining=allowed|disabled, default disabled (exact counts need it) */
  SxsRouting routing;        /* routing=mapper2|closure */
  SxsHooksMode hooks;        /* hooks=full|empty */
  gboolean timing_off;       /* timing=off: counts and call tree without times (two clock reads a
                              * call are most of the hooks' cost) */
  gboolean slow_path;        /* path=slow: the runtime's own stubs call plain C hooks (WithInfo),
                              * as when a runtime refuses the fast path */
  char **include;            /* include= patterns, NULL-terminated; NULL: every function */
  char **exclude;            /* exclude= patterns, NULL-terminated; NULL: none */
  gpointer matcher;          /* compiled include/exclude (owned, opaque); NULL when neither given */
} SxsTracingConfig;

/* [stacks] on=: the events whose thread's stack is recorded, as bits. */
typedef enum {
  SXS_STACKS_EXCEPTION = 1 << 0, /* ExceptionThrown */
  SXS_STACKS_JIT = 1 << 1,       /* JITCompilationStarted */
  SXS_STACKS_GC = 1 << 2,        /* GarbageCollectionStarted */
} SxsStackEvents;

/* [sampling] mode=. */
typedef enum { SXS_SAMPLING_CPU, SXS_SAMPLING_WALL } SxsSamplingMode;
/* [sampling] walker=. */
typedef enum { SXS_WALKER_AUTO, SXS_WALKER_SIGNAL, SXS_WALKER_SUSPEND } SxsWalkerKind;
/* [sampling] engine=: what raises mode=cpu's samples on each thread (perf_events, or the per-thread
 * CPU-time timers); auto takes perf_events where the kernel allows them. */
typedef enum { SXS_ENGINE_AUTO, SXS_ENGINE_PERF, SXS_ENGINE_TIMER } SxsEngineKind;
/* [sampling] event=: what a mode=cpu sample stands for: a period of the thread's CPU time, or a
 * count of one of the processor's hardware events (perf_events only, where there is a PMU). */
typedef enum {
  SXS_EVENT_CPU_TIME,
  SXS_EVENT_CYCLES,
  SXS_EVENT_INSTRUCTIONS,
  SXS_EVENT_CACHE_MISSES,
  SXS_EVENT_BRANCH_MISSES,
} SxsSamplingEvent;
/* Default and largest [sampling] frequency=, in samples per second (Hz). */
#define SXS_SAMPLING_FREQUENCY_DEFAULT 99
#define SXS_SAMPLING_FREQUENCY_MAX 10000
/* The [sampling] group: the sampler. */
typedef struct {
  gboolean enabled;       /* enabled=, default false */
  int frequency;          /* frequency=, Hz, default 99 */
  SxsSamplingMode mode;   /* mode=, default cpu */
  SxsWalkerKind walker;   /* walker=, default auto */
  SxsEngineKind engine;   /* engine=, default auto */
  SxsSamplingEvent event; /* event=, default cpu-time */
} SxsSamplingConfig;

/* The [lines] group: source lines of managed frames from the assemblies' portable PDBs. */
typedef struct {
  gboolean enabled; /* enabled=, default true */
  char **paths;     /* paths=: folders searched for PDBs after the assembly's own, absolute,
                     * NULL-terminated; NULL: none */
} SxsLinesConfig;

/* The [symbols] group: where native code's debug files are looked for besides /usr/lib/debug. */
typedef struct {
  char **debug_dirs; /* debug_dirs=: debug roots (each as /usr/lib/debug: .build-id/, <folder of the
                      * library>/, and the debug link's name in the root itself), absolute,
                      * NULL-terminated; NULL: none */
} SxsSymbolsConfig;

typedef struct {
  SxsMode mode;
  SxsSelectorKind selector_kind;
  char *selector; /* as written (version prefix) or canonical path (realpath, no trailing '/'); NULL when none */
  char *output;   /* absolute, never NULL: a prefix (profile <output>.json), or a folder when
                             * output_is_folder (profiles <output>/<program>-<pid>.json), without trailing '/' */
  gboolean output_is_folder;
  gboolean output_given; /* output= was in the file, or sxs__config_set_output set it: not the default */
  SxsLogKind log_kind;
  char *log_path;     /* absolute with SXS_LOG_FILE; NULL otherwise */
  int flush_seconds;  /* periodic rewrite of the profile; 0: only at shutdown and exit */
  guint formats;      /* formats=: SXS_FORMAT_BIT()s of the files written beside <base>.json; json always */
  char *source;       /* the config file's path as given, NULL for built-in defaults */
  gboolean inventory; /* inventory=: list every function JIT-compiled, inlined or taken precompiled, with
                       * its counts (default false); on whenever [tracing] enabled=true */
  SxsTracingConfig tracing;
  guint stacks_on;           /* SxsStackEvents bits; 0: none (default) */
  guint stacks_max_distinct; /* [stacks] max_distinct=: distinct stacks kept (default
                              * SXS_CONFIG_STACKS_MAX_DISTINCT_DEFAULT); a new one past it is counted
                              * under its leaf alone */
  SxsSamplingConfig sampling;
  gboolean profiles[SXS_PROFILE_N_KINDS]; /* [exceptions], [contention], [allocations] enabled=, default false */
  SxsLinesConfig lines;
  SxsSymbolsConfig symbols;
  guint timeline_window_s;   /* [timeline] window=: the last seconds of the run kept in full detail; 0 (default):
                            * the whole run, up to the timeline's memory cap */
  gboolean labels_endpoints; /* [labels] endpoints=: samples and events labelled by HTTP endpoint (default false) */
  gboolean labels_routes;    /* [labels] routes=: an endpoint named by its route template, from the routing's
                              * metrics (default true; with endpoints only) */
} SxsConfig;

/* Every key of the file, by group, in the order the file's values are checked. Everything about a
 * key (its group, name, parser, the field it sets, its help) is one row of the table in
 * sxs_config.c; the launcher writes its options through these names, never its own spelling. */
typedef enum {
  SXS_KEY_PROFILER_MODE,
  SXS_KEY_PROFILER_RUNTIME,
  SXS_KEY_PROFILER_OUTPUT,
  SXS_KEY_PROFILER_LOG,
  SXS_KEY_PROFILER_FLUSH,
  SXS_KEY_PROFILER_FORMATS,
  SXS_KEY_PROFILER_INVENTORY,
  SXS_KEY_TRACING_ENABLED,
  SXS_KEY_TRACING_INLINING,
  SXS_KEY_TRACING_ROUTING,
  SXS_KEY_TRACING_HOOKS,
  SXS_KEY_TRACING_TIMING,
  SXS_KEY_TRACING_PATH,
  SXS_KEY_TRACING_INCLUDE,
  SXS_KEY_TRACING_EXCLUDE,
  SXS_KEY_STACKS_ON,
  SXS_KEY_STACKS_MAX_DISTINCT,
  SXS_KEY_SAMPLING_ENABLED,
  SXS_KEY_SAMPLING_FREQUENCY,
  SXS_KEY_SAMPLING_MODE,
  SXS_KEY_SAMPLING_WALKER,
  SXS_KEY_SAMPLING_ENGINE,
  SXS_KEY_SAMPLING_EVENT,
  SXS_KEY_EXCEPTIONS_ENABLED,
  SXS_KEY_CONTENTION_ENABLED,
  SXS_KEY_ALLOCATIONS_ENABLED,
  SXS_KEY_LINES_ENABLED,
  SXS_KEY_LINES_PATHS,
  SXS_KEY_SYMBOLS_DEBUG_DIRS,
  SXS_KEY_TIMELINE_WINDOW,
  SXS_KEY_LABELS_ENDPOINTS,
  SXS_KEY_LABELS_ROUTES,
  SXS_CONFIG_N_KEYS
} SxsConfigKey;

/* A key's group ("sampling"), name ("frequency") and one line of help; NULL for no key. */
const char *sxs__config_key_group(SxsConfigKey k);
const char *sxs__config_key_name(SxsConfigKey k);
const char *sxs__config_key_help(SxsConfigKey k);
/* The enabled= key of an event profile's group. */
SxsConfigKey sxs__config_profile_key(SxsProfileKind kind);
/* Sets, or asks for, key k in a key file that the profiler will read (the launcher's options). */
void sxs__config_keyfile_set(GKeyFile *kf, SxsConfigKey k, const char *value);
gboolean sxs__config_keyfile_has(GKeyFile *kf, SxsConfigKey k);

/* Codes of SXS_CONFIG_ERROR. Every message is one line: "<file>[:<line>]: <problem>; expected <what>". */
typedef enum {
  SXS_CONFIG_ERROR_FILE,      /* missing, unreadable, a folder, not a regular file, too large */
  SXS_CONFIG_ERROR_SYNTAX,    /* NUL byte, bad UTF-8, unparseable line, key outside a group, bad escape */
  SXS_CONFIG_ERROR_UNKNOWN,   /* unknown group or key, or no [profiler] group */
  SXS_CONFIG_ERROR_DUPLICATE, /* a key or group given twice */
  SXS_CONFIG_ERROR_VALUE,     /* a value that is empty, malformed, or inconsistent with another */
} SxsConfigError;

#define SXS_CONFIG_ERROR (sxs__config_error_quark())
GQuark sxs__config_error_quark(void);

/* Largest config file accepted, in bytes. */
#define SXS_CONFIG_MAX_SIZE (1024 * 1024)

/* Name of the environment variable that names the config file. */
#define SXS_CONFIG_ENV "SXSPROF_CONFIG"

/* Built-in defaults: pick-all, output ./sxsprof-<pid> made absolute against the current folder,
 * log beside the profile, flush every 60 s. Never NULL. */
SxsConfig *sxs__config_new_default(void);

/* The default output, <folder>/sxsprof-<pid> (folder NULL: the current folder), absolute. The one
 * place that name is made. */
char *sxs__config_default_output(const char *folder, int pid);

/* Did the user choose the output (output= in the file, or sxs__config_set_output), rather than
 * leave the default? */
gboolean sxs__config_output_explicit(const SxsConfig *cfg);

/* Reads and checks the key file at path. Returns NULL and sets error on any problem. */
SxsConfig *sxs__config_load(const char *path, GError **error);

/* Reads the file named by SXSPROF_CONFIG; unset or empty gives the built-in defaults. */
SxsConfig *sxs__config_load_env(GError **error);

/* Accepts NULL. */
void sxs__config_free(SxsConfig *cfg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsConfig, sxs__config_free)

/* Is the function named `name` ("Namespace.Type.Method", nested types joined by '.') traced under
 * [tracing] include=/exclude=? TRUE when it matches an include pattern (or there is none) and
 * no exclude pattern. Thread-safe; allocates nothing. */
gboolean sxs__config_traces(const SxsConfig *cfg, const char *name);

/* Does one include=/exclude= pattern match the whole name? Context: any thread; no allocation. */
gboolean sxs__config_pattern_matches(const char *pattern, const char *name);

/* Parses a formats= list ("json,svg", "all"; summary only when summary_allowed, as `sxsprof report
 * --format` takes it). Returns FALSE with *ret_why set (one sentence naming what is expected)
 * on an unknown or missing name; *ret_formats untouched then. */
gboolean sxs__config_parse_formats(const char *value, gboolean summary_allowed, guint *ret_formats, char **ret_why);

/* "pick-first", "pick-one", "pick-all"; "unknown" for anything else. */
const char *sxs__config_mode_name(SxsMode mode);

/* The on= word of one SxsStackEvents bit ("exception", "jit", "gc"); NULL for anything else. */
const char *sxs__config_stack_event_name(SxsStackEvents one_bit);

/* The mode= word of a sampling mode ("cpu", "wall"); "unknown" for anything else. */
const char *sxs__config_sampling_mode_name(SxsSamplingMode mode);

/* The walker= word of a walker kind ("auto", "signal", "suspend"); "unknown" for anything else. */
const char *sxs__config_walker_name(SxsWalkerKind walker);
/* The engine= word of an engine kind ("auto", "perf", "timer"); "unknown" for anything else. */
const char *sxs__config_engine_name(SxsEngineKind engine);
/* The event= word of a sampling event ("cpu-time", "cycles", ...); "unknown" for anything else. */
const char *sxs__config_event_name(SxsSamplingEvent event);

/* Sets cfg's output from a value with the grammar of output= (used for SXSPROF_OUTPUT too): a
 * value ending in '/', "/." or "/.." (or "." or "..") names a folder, anything else a prefix;
 * relative values are made absolute against the current folder. `what` names the value's origin
 * in the message ("SXSPROF_OUTPUT"). Returns FALSE with error set, cfg untouched, when the value
 * is empty or starts with '~'. */
gboolean sxs__config_set_output(SxsConfig *cfg, const char *value, const char *what, GError **error);

/* Checks that an output can be written: for a prefix, that its folder exists, is a folder, is
 * writable (access W_OK|X_OK) and can hold a file (one is created there and removed: /proc and
 * /sys cannot), and that <prefix>.json, when it exists, is a regular file; for a folder
 * (is_folder), the same of the folder itself. Returns 0, or -errno with *ret_why set (g_free)
 * to one sentence naming the folder and the problem, without a final period so that the caller
 * can append what it does about it; ret_why may be NULL. */
int sxs__config_check_output(const char *output, gboolean is_folder, char **ret_why);

/* Does a runtime with this product version and libcoreclr.so path match the pick-one selector?
 * A version selector matches component-wise ("10" matches 10.0.12, "1" does not); a path selector
 * matches the libcoreclr.so itself or the folder holding it, after resolving symbolic links.
 * A config without a selector matches every runtime; a NULL version or path never matches a
 * selector of that kind. */
gboolean sxs__config_selector_matches(const SxsConfig *cfg, const char *version, const char *coreclr_path);
