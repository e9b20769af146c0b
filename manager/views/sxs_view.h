/* sxs_view: the profile model seen as weighted stacks, the one shape every view renders (speedscope,
 * folded stacks, the SVG flame graph, pprof, the terminal summary). Built once from an immutable
 * SxsProfileModel, immutable itself, and shared by the writers, which know nothing of each other.
 * It does not write files or choose formats (sxs_formats does). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_profile.h"

/* The kinds of data a profile holds, each a set of weighted stacks. */
typedef enum {
  SXS_VIEW_SAMPLES = 0, /* the sampler's stacks, one group per thread; weight: samples */
  SXS_VIEW_CALLS,       /* traced call trees, one group per runtime; weight: exclusive ns (or calls) */
  SXS_VIEW_EVENTS,      /* stacks recorded at events, one group per event kind; weight: events */
  /* The event profiles, one group per runtime each, the type (exception, allocated object) as the
   * leaf frame: */
  SXS_VIEW_EXCEPTIONS,  /* weight: exceptions thrown */
  SXS_VIEW_CONTENTION,  /* weight: nanoseconds waited (count: contentions) */
  SXS_VIEW_ALLOCATIONS, /* weight: bytes allocated, upscaled (count: objects, upscaled) */
  SXS_VIEW_N_KINDS
} SxsViewKind;

/* One distinct frame, shared by every group of a view. A view by function has one frame per
 * function; a view by line (SxsViewFilter.by_line) one per line of a function that has lines. */
typedef struct {
  char *label;    /* tagged: "[rt1 10.0.12] App.Program.Work", "[native] libc.so.6!read" */
  char *name;     /* untagged: "App.Program.Work", "read" (native: the symbol, else module+0xoff) */
  char *raw_name; /* managed: the name as the runtime gives it where the view shows another (an async
                   * method's state machine, "App.Program.<Work>d__3.MoveNext", is shown as
                   * "App.Program.Work [async]": sxs__view_async_name); else NULL */
  char *module;   /* "app.dll", "libc.so.6", "" when unknown */
  int runtime_id; /* managed frames: the runtime's id; 0 for native frames */
  gboolean managed;
  char *file;         /* managed frames with lines: the source file as its PDB names it; else NULL */
  guint32 start_line; /* the function's first line in file; 0 when unknown */
  guint32 line;       /* views by line: this frame's line; 0 in views by function, or when unknown */
} SxsViewFrame;

/* One distinct stack of a group and what it weighs. */
typedef struct {
  guint32 *frames; /* indices into SxsView.frames, ROOT FIRST; owned by the view */
  guint depth;
  guint64 weight; /* in the group's unit */
  guint64 count;  /* samples, calls or events this stack stands for */
} SxsViewStack;

/* One sample of a thread on the profile's timeline. */
typedef struct {
  guint64 t_us;   /* microseconds since the process started */
  guint32 stack;  /* index into its group's stacks */
  guint32 weight; /* samples it stands for */
  guint label;    /* its endpoint (index + 1 into the model's timeline labels), 0: none */
} SxsViewSample;

/* A group of stacks with one unit: one thread's samples, one runtime's call tree, one event kind. */
typedef struct {
  SxsViewKind kind;
  char *name;          /* "cpu samples, thread Main (4242)", "calls, rt1 10.0.12", "exception stacks" */
  const char *unit;    /* "samples", "nanoseconds", "calls", "events", "exceptions", "bytes" (static) */
  int runtime_id;      /* calls, event profiles: whose tree or events; else 0 */
  uint32_t thread;     /* samples (and event stacks of one thread): the OS thread id; else 0 */
  char *thread_name;   /* samples: the thread's name when known; else NULL */
  char *event;         /* events: "exception", "jit", "gc"; else NULL */
  GArray *stacks;      /* SxsViewStack, weight descending then frames; owned */
  guint64 total;       /* sum of the stacks' weights */
  guint64 total_count; /* sum of the stacks' counts */
  GArray *timeline;    /* samples with a timeline: SxsViewSample in time order (the group's samples the
                        * timeline keeps in detail); else NULL */
} SxsViewGroup;

/* What to keep of a profile, and how to cut it into frames. */
typedef struct {
  int runtime_id;        /* > 0: only stacks with a frame of this runtime, only its call tree */
  const char *thread;    /* non-NULL: only samples and event stacks of this OS thread id or name */
  gboolean by_line;      /* one frame per line of a managed function that has lines, not per function */
  gboolean by_component; /* samples: each stack under a root frame "[component] JIT" of its leaf's
                           * component (sxs_components.h) */
} SxsViewFilter;

typedef struct {
  const SxsProfileModel *model; /* borrowed: must outlive the view */
  GPtrArray *frames;            /* SxsViewFrame*, owned; index = the id stacks use */
  GPtrArray *groups;            /* SxsViewGroup*, owned: samples by thread id, calls by runtime,
                                 * events by kind (exception, jit, gc) */
  int frequency;                /* samples: the sampler's frequency in Hz, 0 when it did not run */
  const char *sample_mode;      /* "cpu", "wall", NULL */
  guint64 period_ns;            /* samples: ns one sample stands for (1e9 / frequency), else 0 */
  const char *sample_event;     /* samples of a hardware event: its name ("cycles"), else NULL */
  guint64 event_period;         /* ... and the events one sample stands for (period_ns is then 0) */
  GHashTable *tags;             /* runtime id -> "[rt1 10.0.12]", the tag its frames carry; owned */
  int runtime_id;               /* the filter's runtime (> 0), else 0: the summary shows only it */
  SxsViewFilter filter;         /* the filter it was built with (thread: an owned copy) */
} SxsView;

/* The name a person wrote for an async method's state machine: "Ns.Type.<Method>d__12.MoveNext"
 * (and "...d__12`1.MoveNext" of a generic one) is "Ns.Type.Method [async]"; NULL (nothing to
 * change) for any other name. Newly allocated. */
char *sxs__view_async_name(const char *name);

/* Builds the view of m (filter may be NULL). Frames are tagged with their runtime's id and
 * version; native frame names lose their +0xoff so that one function is one frame. Call trees
 * become one stack per node, weighing its exclusive time (calls when untimed). Never fails; an
 * empty model gives a view with no groups. Context: any thread; allocates. */
SxsView *sxs__view_new(const SxsProfileModel *m, const SxsViewFilter *filter);
/* The same profile and filter as v, cut by line (v itself when it already is). Caller frees what
 * is returned unless it is v: use with sxs__view_free_other. */
SxsView *sxs__view_by_line(const SxsView *v);
/* Frees o when it is not v. */
void sxs__view_free_other(const SxsView *v, SxsView *o);
/* Accepts NULL. */
void sxs__view_free(SxsView *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsView, sxs__view_free)

/* Walks the groups, or the stacks, of one kind in view order (kind SXS_VIEW_N_KINDS: of every
 * kind). Every writer's "for each stack of this kind" is one of these:
 *
 *   SxsViewIter it;
 *   sxs__view_iter_init(&it, v, kind);
 *   for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));)
 *     ... it.group is s's group ...
 *
 * Use either next_group or next_stack on one iterator, not both. */
typedef struct {
  const SxsView *view;
  SxsViewKind kind;
  guint next_group_index;    /* the group after it.group */
  guint next_stack_index;    /* within it.group */
  const SxsViewGroup *group; /* the group last returned, or that of the stack last returned */
} SxsViewIter;
void sxs__view_iter_init(SxsViewIter *it, const SxsView *v, SxsViewKind kind);
/* The next group of the kind, or NULL at the end. */
const SxsViewGroup *sxs__view_iter_next_group(SxsViewIter *it);
/* The next stack of a group of the kind (it->group is its group), or NULL at the end. */
const SxsViewStack *sxs__view_iter_next_stack(SxsViewIter *it);

/* The kind single-graph formats (folded, SVG, pprof) render: samples when there are any, else
 * traced calls, else event stacks. Returns SXS_VIEW_N_KINDS when the view has no stacks. */
SxsViewKind sxs__view_primary_kind(const SxsView *v);
/* "samples", "calls", "events", "exceptions", "contention", "allocations". */
const char *sxs__view_kind_name(SxsViewKind k);
/* The view kind of an event profile, and back (SXS_PROFILE_N_KINDS for other kinds). */
SxsViewKind sxs__view_kind_of_profile(SxsProfileKind k);
SxsProfileKind sxs__view_profile_of_kind(SxsViewKind k);
/* Parses a kind name; FALSE when unknown. */
gboolean sxs__view_kind_parse(const char *name, SxsViewKind *ret_kind);

/* The unit a kind's merged stacks weigh in: samples, nanoseconds (timed calls, contention), calls,
 * events, exceptions, bytes (allocations). */
const char *sxs__view_kind_unit(const SxsView *v, SxsViewKind k);

/*
 * A tree of call paths: the stacks of every group of one kind merged by prefix, the shape flame
 * graphs and "total" columns are made of. Node 0 is the root (frame G_MAXUINT32). Children are
 * sorted by frame label, so that the same profile always draws the same graph.
 */
typedef struct {
  guint32 frame;                   /* index into SxsView.frames */
  guint32 parent;                  /* node index; the root's is G_MAXUINT32 */
  guint64 total;                   /* weight of the stacks through this node */
  guint64 self;                    /* weight of the stacks ending here */
  guint32 first_child, n_children; /* children are nodes[children[first_child .. +n_children]] */
} SxsViewNode;

typedef struct {
  GArray *nodes;     /* SxsViewNode */
  guint32 *children; /* child node indices, grouped per parent */
  const char *unit;
} SxsViewTree;

/* Merges the stacks of every group of kind k (group == NULL) or of the one given group. */
SxsViewTree *sxs__view_tree_new(const SxsView *v, SxsViewKind k, const SxsViewGroup *group);
void sxs__view_tree_free(SxsViewTree *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsViewTree, sxs__view_tree_free)
static inline const SxsViewNode *sxs__view_tree_child(const SxsViewTree *t, const SxsViewNode *n, guint32 i) {
  return &g_array_index(t->nodes, SxsViewNode, t->children[n->first_child + i]);
}

/* Per frame totals of one kind, for "top functions" tables: self and total weight (a frame that
 * appears twice in one stack, as in recursion, counts once towards total). */
typedef struct {
  guint32 frame;
  guint64 self, total;
} SxsViewFrameTotal;

/* Frames with a non-zero total, by self descending (then total, then label): of one runtime
 * (runtime_id > 0), native ones (0), or all (SXS_VIEW_ALL_RUNTIMES). */
#define SXS_VIEW_ALL_RUNTIMES (-1)
GArray *sxs__view_frame_totals(const SxsView *v, SxsViewKind k, int runtime_id);

/* How a render went; the writers fill it from the view and their options. */
typedef struct {
  guint top;         /* summary: rows per table (default 10) */
  gboolean color;    /* summary: ANSI colours */
  SxsViewKind kind;  /* single-graph formats: what to draw; SXS_VIEW_N_KINDS = primary */
  const char *title; /* SVG: the graph's title; NULL for a default from the process */
  gboolean untagged; /* pprof: managed functions named without their runtime tag, so that two
                      * runtimes' profiles meet in `go tool pprof -diff_base` */
} SxsRenderOptions;

/* What a single-graph format draws: o->kind, or the primary kind when o is NULL or says
 * SXS_VIEW_N_KINDS. */
SxsViewKind sxs__view_resolve_kind(const SxsView *v, const SxsRenderOptions *o);

/* A frame as people read it: its label (tagged) or name, then " (Program.cs:42)" when it has a
 * file: its line in views by line, its function's first line in views by function (when known).
 * Caller frees. */
char *sxs__view_frame_title(const SxsViewFrame *f, gboolean tagged);

/* A duration for people, three significant digits at most and no exponent: "1.23 s", "45.6 ms",
 * "1001 s", "789 ns". Caller frees. */
char *sxs__view_duration(guint64 ns);

/* How the sampler kept its rate, in words: "99 Hz asked, 98.7 achieved, 12 ticks missed, up to 32
 * threads a tick (31.2 on average), 165 samples dropped" (wall mode; in cpu mode each thread's
 * own CPU-time timer samples it, and "31.2 samples a tick on average" is said instead). Only "99
 * Hz" when the sampler made no tick, or the profile does not say how long they took. Caller frees. */
char *sxs__view_sampling_rate(const SxsSamplesModel *sm);
/* The rate each of the max threads that used the most CPU was sampled at, per second of its own
 * CPU time: "spin-0 998.8 Hz (2.47 s CPU, 0 lost), ..."; NULL when no thread says (wall mode, a
 * hardware event, an older profile). Caller frees. */
char *sxs__view_thread_rates(const SxsSamplesModel *sm, guint max);

/* A size for people, binary units with one decimal: "362.2 MiB", "12.0 KiB", "512 B" (plain
 * spaces). Caller frees. */
char *sxs__view_size_text(guint64 bytes);

/* The runtime of the model with this id, or NULL. */
const SxsRuntimeModel *sxs__view_runtime(const SxsView *v, int runtime_id);
/* "[rt1 10.0.12]": the tag the runtime's frames carry ("[rt1]" when its version is unknown). */
const char *sxs__view_runtime_tag(const SxsView *v, int runtime_id);

/* The writers, one per file (sxs_write_<format>.c). Each returns the file's bytes (caller frees)
 * and their length, or NULL with *ret_why set (a message for the user) when the view holds
 * nothing that format can show. */
char *sxs__write_speedscope(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);
char *sxs__write_trace(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);
char *sxs__write_folded(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);
char *sxs__write_svg(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);
char *sxs__write_pprof(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);
char *sxs__write_summary(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);
