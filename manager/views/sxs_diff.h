/* sxs_diff: two views of one kind compared, BASE against NEW: the stacks of both with their frames
 * matched by name, each stack weighing what it weighed on either side, and per frame the change
 * of its self and total weight with whether that change exceeds sampling noise. Built once from
 * two views (two profiles, or two runtimes of one), immutable, and rendered by its own writers:
 * the two-column folded file, the differential flame graph SVG and the terminal summary.
 *
 * Matching: a managed frame by its name without the runtime tag (so rt1 and rt2 meet), with the
 * compiler-generated ordinals that shift between builds replaced by '#' (see
 * sxs__diff_normalize_name) unless SxsDiffOptions.exact_names; a native frame by its module's file
 * name and its symbol, never its address ("[native] libc.so.6!read"; "[native] libfoo.so!?" when
 * it has no symbol). In views by line a managed frame is its name and "(File.cs:42)".
 *
 * Noise: see sxs__diff_noise. */
#pragma once

#include <glib.h>

#include "sxs_view.h"

/* The two sides. */
enum { SXS_DIFF_BASE = 0, SXS_DIFF_NEW = 1 };

typedef struct {
  gboolean exact_names; /* match compiler-generated names as they are */
  gboolean absolute;    /* compare weights (equal-length runs), not each side's shares of its total */
} SxsDiffOptions;

/* One matched frame. */
typedef struct {
  char *key; /* what matches and what is shown: "App.Program.Work", "[native] libc.so.6!read" */
  gboolean managed;
  int runtime_id; /* managed: the runtime of the first frame met with this key (NEW's first); else 0 */
} SxsDiffFrame;

/* One stack, root first, and what it weighs on either side. */
typedef struct {
  guint32 *frames; /* indices into SxsDiff.frames (then two words of `runtimes`, the stack's
                    * identity); owned */
  guint depth;
  guint64 weight[2]; /* [SXS_DIFF_BASE], [SXS_DIFF_NEW], in the kind's unit */
  guint64 count[2];  /* samples, calls or events they stand for (allocations: samples, estimated
                      * as bytes / SXS_DIFF_ALLOCATION_SAMPLE) */
  guint64 runtimes;  /* bit id - 1: the stack has a managed frame of runtime id (1 to 64); stacks
                      * of one frame sequence with other runtimes are other stacks */
} SxsDiffStack;

/* A change and its noise, in share points (fractions: 0.4 is 40 points) or in the unit (absolute). */
typedef struct {
  double before, after; /* shares, or weights when absolute */
  double change;        /* after - before */
  double error;         /* the change's standard error (sxs__diff_noise) */
  gboolean beyond;      /* |change| > SXS_DIFF_NOISE_ERRORS * error */
} SxsDiffChange;

/* Per frame: self and total weight on either side (a frame twice in one stack counts once towards
 * total), and their changes. */
typedef struct {
  guint32 frame;
  guint64 self[2], total[2];
  guint64 self_count[2], total_count[2];
  SxsDiffChange self_change, total_change;
} SxsDiffFrameTotal;

typedef struct {
  SxsViewKind kind;
  const char *unit;  /* NEW's unit, else BASE's (static) */
  GPtrArray *frames; /* SxsDiffFrame*, owned */
  GArray *stacks;    /* SxsDiffStack, sorted by frames (root first, then by key) */
  guint64 total[2];  /* sum of the stacks' weights per side */
  guint64 total_count[2];
  SxsDiffOptions options;
} SxsDiff;

/* Allocation profiles sample about once per this many bytes allocated (GCAllocationTick, and
 * AllocationSampled's mean): an allocation stack's count, for noise, is its bytes over this. */
#define SXS_DIFF_ALLOCATION_SAMPLE 102400

/* A change is beyond noise when it exceeds this many standard errors. */
#define SXS_DIFF_NOISE_ERRORS 3.0

/* Compares the stacks of kind k in base and new (k == SXS_VIEW_N_KINDS: NEW's primary kind, else
 * BASE's). Never fails; a side without stacks of that kind weighs nothing. Context: any thread;
 * allocates. */
SxsDiff *sxs__diff_new(const SxsView *base, const SxsView *new_view, SxsViewKind k, const SxsDiffOptions *o);
void sxs__diff_free(SxsDiff *d);
/* The diff of the stacks with a managed frame of runtime runtime_id (1 to 64) only, as a view
 * filtered on that runtime would give; the frame table is shared. */
SxsDiff *sxs__diff_restrict(const SxsDiff *d, int runtime_id);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsDiff, sxs__diff_free)

/* A managed name with its compiler-generated ordinals replaced by '#', so that one function keeps
 * its name when a build renumbers them: "<>c__DisplayClass12_0" -> "<>c__DisplayClass#",
 * "<Main>b__12_0" -> "<Main>b__#", "<Run>d__5" -> "<Run>d__#", "<Main>g__Local|3_1" ->
 * "<Main>g__Local|#", "<>9__12_0" -> "<>9__#". Other digits stay. Caller frees. */
char *sxs__diff_normalize_name(const char *name);

/*
 * The change of one frame between the sides and its noise. w: the frame's weights, n: the counts
 * they stand for (samples, events), W and N: the sides' totals. Shares: before = w0/W0, after =
 * w1/W1; the standard error is the binomial one of the difference of two proportions from the
 * counts, with the pooled proportion p = (n0 + n1) / (N0 + N1):
 *     se = sqrt(p (1 - p) (1/N0 + 1/N1)),
 * scaled by the frame's weight per count over both sides' weight per count when weights are not
 * counts (bytes, nanoseconds; 1 for samples). Absolute: the difference of two Poisson counts,
 *     se = sqrt(n0 + n1) scaled by the frame's weight per count.
 * Beyond noise: |after - before| > SXS_DIFF_NOISE_ERRORS * se (and not 0).
 */
SxsDiffChange sxs__diff_noise(const guint64 w[2], const guint64 n[2], const guint64 W[2], const guint64 N[2],
                              gboolean absolute);

/* Per frame totals with their changes, every frame with weight on either side, in frame order. */
GArray *sxs__diff_frame_totals(const SxsDiff *d);

/* A tree of call paths merged from the diff's stacks (node 0 the root, frame G_MAXUINT32; children
 * sorted by key), each node weighing its paths on both sides. */
typedef struct {
  guint32 frame, parent;
  guint64 total[2], self[2];
  guint64 total_count[2], self_count[2];
  guint32 first_child, n_children;
} SxsDiffNode;

typedef struct {
  GArray *nodes;     /* SxsDiffNode */
  guint32 *children; /* child node indices, grouped per parent */
} SxsDiffTree;

SxsDiffTree *sxs__diff_tree_new(const SxsDiff *d);
void sxs__diff_tree_free(SxsDiffTree *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsDiffTree, sxs__diff_tree_free)

/* What the diff writers need besides the diff. */
typedef struct {
  const char *name[2]; /* how each side is named: "base.json", "rt1 8.0.11" */
  guint top;           /* summary: rows per table */
  gboolean color;      /* summary: ANSI colours */
  gboolean negated;    /* SVG: BASE's shape (what disappeared), colours of the change negated */
  const char *title;   /* SVG: NULL for a default */
  const char *note;    /* summary: a last line (the pprof command), may be NULL */
} SxsDiffRenderOptions;

/* "stack base new" lines (weights in the unit), the two-column input of flamegraph.pl and
 * difffolded.pl's output format; labels made safe as the folded writer does; sorted bytewise.
 * NULL with *ret_why set when neither side has a stack. */
char *sxs__diff_write_folded(const SxsDiff *d, gsize *ret_len, char **ret_why);
/* The terminal summary: top growths and shrinks by self and by total. */
char *sxs__diff_write_summary(const SxsDiff *d, const SxsDiffRenderOptions *o, gsize *ret_len, char **ret_why);
/* The differential flame graph: NEW's shape (BASE's when o->negated), each frame coloured from blue
 * (shrank) through white to red (grew) by its self change. */
char *sxs__diff_write_svg(const SxsDiff *d, const SxsDiffRenderOptions *o, gsize *ret_len, char **ret_why);
