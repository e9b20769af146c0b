/* sxs_formats: which writer renders which format, what its file is called, and writing a set of
 * formats of one profile as files that appear whole or not at all. The writers themselves
 * (sxs_write_<format>.c) know nothing of files or of each other. */
#pragma once

#include <glib.h>

#include "sxs_format.h"
#include "sxs_view.h"

/* Renders one format of a profile: the JSON document from the model, every other format from the
 * view (built from the same model). Returns the bytes, or NULL with *ret_why set when the
 * profile holds nothing that format can show. */
char *sxs__formats_render(const SxsView *v, SxsFormat f, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);

/*
 * Writes the file formats in `formats` (SXS_FORMAT_BIT()s; the summary bit is ignored) of the
 * profile as <base><suffix>, each atomically. A format with nothing to show is left out and named
 * in *ret_skipped ("svg: no stacks ..."; one line each, may be NULL). Every format is rendered
 * before any file is written; see SxsFormatsFlags for what a failure or a left-out format does to
 * files already there. A file that cannot be written always keeps its older version. Returns the
 * number of files written (their paths appended to ret_paths when non-NULL), or -errno of the
 * first failure with *ret_why set: one line per file that could not be written ("cannot write
 * <path>: <why>"), and ret_paths then holds the files that were. progress (may be NULL) is called
 * before each format is rendered.
 */
typedef void (*SxsFormatsProgress)(SxsFormat f, guint index, guint count, gpointer data);
typedef enum {
  SXS_FORMATS_ALL_OR_NOTHING = 1 << 0, /* every file or none: all are written to temp files first,
                                        * and none replaces its older version unless all could be */
  SXS_FORMATS_DROP_STALE = 1 << 1,     /* a format left out removes an older file of its name */
  SXS_FORMATS_SYNC = 1 << 2,           /* each file replaced with SXS_FILE_SYNC (sxs_json.h) */
} SxsFormatsFlags;
int sxs__formats_write(const SxsView *v, const char *base, guint formats, const SxsRenderOptions *o,
                       SxsFormatsFlags flags, SxsFormatsProgress progress, gpointer progress_data, GPtrArray *ret_paths,
                       char **ret_skipped, char **ret_why);

/* Is this file name one of the views written beside a profile (x.speedscope.json, x.svg, ...),
 * not a profile itself? */
gboolean sxs__formats_is_view_file(const char *name);

/* The base of a profile path: "/tmp/x.json" -> "/tmp/x"; other names unchanged. Caller frees. */
char *sxs__formats_base(const char *profile_path);
