/* sxsprof: the commands' entry points (main dispatches) and what they share (sxsprof_common.c):
 * the profiler's library and config, reading saved profiles into the model and rendering them in
 * the formats the user asked for. */
#pragma once

#include <glib.h>
#include <stdio.h>
#include <time.h>

#include "sxs_config.h"
#include "sxs_diff.h"
#include "sxs_profile.h"
#include "sxs_profile_read.h"
#include "sxs_view.h"

/* The profiler's COM class, as the runtime is told to create it. */
#define SXS_PROFILER_CLSID "{0560F28C-910E-4FDA-94A2-5FACD8966E48}"

extern const char sxsprof_usage[];

/* The profiler library, as an absolute path: $SXSPROF_LIBRARY (not checked: the runtime says what
 * is wrong with it), else ../lib/libsxsprof.so next to this program; NULL when that is not there.
 * Caller frees. */
char *sxsprof_find_library(void);

/* The profiler options `run` and `attach` share. */
typedef struct {
  const char *config, *output, *mode, *runtime, *flush, *format, *sample, *include, *exclude, *stacks_on;
  const char *symbols;        /* --symbols: folders searched for PDBs ([lines] paths=) */
  const char *debug_dir;      /* --debug-dir: a debug root for native debug files ([symbols] debug_dirs=) */
  const char *engine, *event; /* --engine, --event: [sampling] engine= and event= (--event samples) */
  const char *timeline;       /* --timeline: [timeline] window= */
  const char *config_output;  /* output= written into the config itself (attach: no environment carries it) */
  gboolean quiet, wall, trace;
  gboolean inventory;                     /* --inventory: [profiler] inventory=true */
  gboolean endpoints;                     /* --endpoints: [labels] endpoints=true */
  gboolean profiles[SXS_PROFILE_N_KINDS]; /* --exceptions, --lock, --alloc */
  guint formats;                          /* SXS_FORMAT_BIT()s, from --format (default all) */
  gboolean json_in_process;               /* the program writes its profile only: the launcher renders the views */
} SxsprofRunOptions;

/* The config a profiled program runs with: the user's --config file (or nothing) with the options
 * set over it, in a temporary file (its path returned; caller unlinks and frees). The user's file
 * was checked before, so a problem found in this one comes from an option. */
char *sxsprof_write_run_config(const SxsprofRunOptions *o, GError **error);

/* A program's config, prepared by sxsprof_prepare. */
typedef struct {
  SxsConfig *user;          /* the user's --config file as read, or NULL without one */
  char *path;               /* the config the program runs with (a temporary file) */
  SxsConfig *cfg;           /* that file as the profiler reads it, --output applied */
  gboolean explicit_output; /* --output or the user's output= (else ./sxsprof-<pid>) */
  char *config_output;      /* with a target: the output written into the config */
} SxsprofPrepared;

/* What `run` and `attach` do before the program starts or the profiler is attached: check the
 * user's config on its own (its problems name its lines), write the config with the options over
 * it, read that back as the profiler will (a problem there is an option's), and make and check an
 * explicit output's folder. target is 0 for `run` (the output reaches the program through its
 * environment), or the pid of an attach's target (the output is written into the config:
 * --output, else the user's output=, else ./sxsprof-<target>). outcome ends each message ("the
 * program was not started"). 0, or 2 after printing why, with nothing left behind. */
int sxsprof_prepare(SxsprofRunOptions *o, int target, const char *outcome, SxsprofPrepared *ret);
/* Removes the temporary file and frees the rest. */
void sxsprof_prepared_clear(SxsprofPrepared *p);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SxsprofPrepared, sxsprof_prepared_clear)

/* The files of a run's output (a folder, or a prefix: PREFIX<suffix> and PREFIX.<pid><suffix>)
 * that end in suffix, views left out. Caller unrefs. */
GPtrArray *sxsprof_output_files(const char *output, gboolean is_folder, const char *suffix);

/* The size of a file, 0 when it does not exist. */
gint64 sxsprof_file_size(const char *path);

/* Copies what was appended to the profiler's log since `offset` to stderr; TRUE when there was
 * anything. */
gboolean sxsprof_relay_log(const char *path, gint64 offset);

/* One profile read from disk. */
typedef struct {
  char *path;
  SxsProfileModel *model; /* owned */
  char *note;             /* what became of its process, when the list says more than the path */
} SxsprofProfile;

void sxsprof_profile_free(gpointer p);

/* Reads one profile of at most max_size bytes (0: SXS_PROFILE_MAX_FILE_SIZE), or rebuilds one
 * from a spool (a path ending in .spool); NULL with *ret_why set (one sentence naming the file)
 * when it cannot. */
SxsprofProfile *sxsprof_profile_load(const char *path, guint64 max_size, char **ret_why);

/* "dotnet Demo.dll ...", cut to max characters. Caller frees. */
char *sxsprof_profile_command(const SxsprofProfile *p, guint max);

/* "sxsprof: pid 42 (dotnet app.dll): 2 runtimes (10.0.1, 2.0.0 declined) -> PATH" on out, and the
 * profile's note after it. */
void sxsprof_profile_list_line(const SxsprofProfile *p, FILE *out);

/* Profiles of a folder: every *.json there that is an sxsprof profile of at most max_size bytes
 * (views beside them such as *.speedscope.json are not), by pid. Returns FALSE after printing why
 * when the folder cannot be read; *ret_skipped counts .json files that are not profiles. */
gboolean sxsprof_load_folder(const char *folder, guint64 max_size, GPtrArray *profiles, guint *ret_skipped);

/* Creates the folder a -o PREFIX or FOLDER/ writes into, and its parents, as mkdir -p does.
 * FALSE after printing why it cannot, the message ending with outcome. */
gboolean sxsprof_make_output_folder(const char *output, gboolean is_folder, const char *outcome);

/* Sorts profiles by pid. */
void sxsprof_profiles_sort(GPtrArray *profiles);

/* How much of its process's work a profile holds: samples, stacks recorded at events, events of
 * the event profiles, traced call-tree nodes. 0 for a process that only waited. */
guint64 sxsprof_profile_activity(const SxsprofProfile *p);
/* Sorts profiles busiest first (by sxsprof_profile_activity), then by pid. */
void sxsprof_profiles_sort_busiest(GPtrArray *profiles);
/* When p's process is a starter or wrapper whose work went to a descendant among profiles (one
 * with more than ten times its activity), the busiest such descendant; else NULL. */
const SxsprofProfile *sxsprof_profile_waited_for(const SxsprofProfile *p, const GPtrArray *profiles);
/* Merges profiles (at least one, sorted) into the first one's model, which is returned: threads
 * named with their pid when there are several (two processes may share an OS thread id). */
SxsProfileModel *sxsprof_profiles_merge(GPtrArray *profiles);

/* Reads a profile, a spool or a folder of profiles into profiles (sorted); FALSE after printing why
 * on stderr when it cannot or finds none. */
gboolean sxsprof_load_path(const char *path, guint64 max_size, GPtrArray *profiles);

/* What to render and where. */
typedef struct {
  guint formats;        /* SXS_FORMAT_BIT()s */
  const char *base;     /* files go to <base><suffix>; NULL: no files */
  SxsViewFilter filter; /* --runtime, --thread */
  SxsRenderOptions render;
  FILE *summary_out; /* where the summary goes */
  gboolean progress; /* a progress line on stderr while rendering (stderr is a terminal) */
  gboolean quiet;    /* no line per file written or left out */
  gboolean each;     /* each file on its own: one that cannot be written keeps its older version and is
                      * named, the others are written (the views of a run); else all or nothing */
} SxsprofRender;

/* Renders model as r says: the files, then the summary. Prints one line per file written and one
 * per format left out (nothing to show) on stderr, prefixed "sxsprof: ". Returns 0, or 1 after
 * printing why (no partial files are left behind). */
int sxsprof_render(const SxsProfileModel *model, const SxsprofRender *r);

/* Two views compared (sxs_diff.h): `sxsprof diff` (two profiles) and `report --compare` (two
 * runtimes of one profile). */
typedef struct {
  const SxsProfileModel *model[2]; /* BASE, NEW (may be the same model) */
  SxsViewFilter filter[2];         /* each side's: --compare filters on a runtime each */
  const char *name[2];             /* how the summary names the sides */
  guint formats;                   /* SXS_FORMAT_BIT()s among folded, svg, pprof, summary */
  const char *base;                /* files go to <base>.folded, .svg, .negated.svg, .base.pb.gz, .new.pb.gz */
  SxsDiffOptions options;
  SxsViewKind kind; /* SXS_VIEW_N_KINDS: NEW's primary kind */
  guint top;
  gboolean color;
  gboolean per_runtime; /* the summary also compares each runtime both sides profiled, alone */
  gboolean untagged;    /* pprof functions without runtime tags (two runtimes compared) */
} SxsprofDiffRender;

/* The formats a diff renders (folded, svg, pprof, summary) from a --format LIST; FALSE after
 * printing why. */
gboolean sxsprof_diff_formats(const char *list, gboolean has_output, guint *ret_formats);

/* What diff and report --compare do before reading profiles: the formats (--format), the kind
 * (--view; SXS_VIEW_N_KINDS without one) and -o's base with its folder made (NULL without -o).
 * FALSE after printing why. */
gboolean sxsprof_diff_setup(const char *format, const char *output, const char *view, guint *ret_formats,
                            SxsViewKind *ret_kind, char **ret_base);

/* Parses --view (samples, calls, events, exceptions, contention, allocations); FALSE after saying
 * what it takes on stderr. */
gboolean sxsprof_parse_view(const char *view, SxsViewKind *ret_kind);

/* Renders a diff as r says: the files (all written, or none), then the summary on stdout. Returns 0,
 * or 1 after printing why. */
int sxsprof_render_diff(const SxsprofDiffRender *r);

/* On stderr: the views of profile p among `formats` that were written since `started` (not left
 * over from an earlier run) on one line, then its summary when formats has the summary. */
void sxsprof_print_views(const SxsprofProfile *p, guint formats, time_t started);

/* On stderr: where p's flame graph is, or why there is none (when formats has svg). */
void sxsprof_print_flame_graph(const SxsprofProfile *p, guint formats, time_t started);

/* The value of the option at argv[*i]: inline_value ("--name=VALUE"), else the next argument
 * (*i moves past it). Returns 0, or -1 after printing that the option needs a value. */
int sxsprof_take_value(int argc, char **argv, int *i, const char *inline_value, const char **slot);

/* The commands: each returns the launcher's exit status. */
/* sxsprof run [options] [--] COMMAND: the program with the profiler loaded (sxsprof_run.c). */
int sxsprof_run_main(int argc, char **argv);
/* sxsprof report PROFILE|FOLDER...: renders saved profiles (sxsprof_report.c). */
int sxsprof_report_main(int argc, char **argv);
/* sxsprof diff BASE NEW: compares two profiles (sxsprof_diff.c). */
int sxsprof_diff_main(int argc, char **argv);
/* sxsprof attach PID [options]: loads the profiler into a running runtime through the diagnostics
 * IPC, and gets its profile back (sxsprof_attach.c). */
int sxsprof_attach_main(int argc, char **argv);

/* A moment of the run as --from and --to take it: seconds since the program started ("1.5",
 * "1.5s", "1500ms") or a share of the run ("25%"). */
typedef struct {
  gboolean given;
  gboolean percent;
  double value; /* seconds, or percent */
} SxsprofMoment;

/* Parses option's value; FALSE after printing why. */
gboolean sxsprof_parse_moment(const char *option, const char *value, SxsprofMoment *ret);

/* Cuts each profile of profiles (SxsprofProfile*) to [from, to) (either may be not given): its own
 * timeline's, a share of its own run; FALSE after printing why. */
gboolean sxsprof_slice_profiles(GPtrArray *profiles, const SxsprofMoment *from, const SxsprofMoment *to);
/* Cuts each profile to one label, "endpoint=GET /orders/{id}" (--label); FALSE after one message
 * on stderr when the text is not KEY=VALUE of a known key or a profile has no such label. */
gboolean sxsprof_label_profiles(GPtrArray *profiles, const char *label);
