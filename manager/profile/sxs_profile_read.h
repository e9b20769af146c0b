/* sxs_profile_read: a saved profile (format "sxsprof", version 2 as sxs__profile_render_json writes
 * it, or version 1 as earlier sxsprof wrote it) read back into the profile model, for the harness's
 * views and reports. It does not convert other formats, nor read profiles of a newer version. */
#pragma once

#include <glib.h>

#include "sxs_profile.h"

/* Codes of SXS_PROFILE_READ_ERROR. Every message is one line that starts with the file's path
 * (or "the profile" for a text in memory). */
typedef enum {
  SXS_PROFILE_READ_ERROR_FILE,        /* cannot open or read the file, or it is not a regular file */
  SXS_PROFILE_READ_ERROR_EMPTY,       /* "... is empty" (nothing but white space) */
  SXS_PROFILE_READ_ERROR_NOT_JSON,    /* "... is not JSON: <what> at line L, column C" */
  SXS_PROFILE_READ_ERROR_TRUNCATED,   /* "... is truncated: unexpected end of file at line L, column C" */
  SXS_PROFILE_READ_ERROR_NOT_PROFILE, /* "... is not an sxsprof profile (<why>)" */
  SXS_PROFILE_READ_ERROR_VERSION,     /* "... was written by a newer sxsprof (profile version N; this
                                       * sxsprof reads versions 1 to 2)" */
  SXS_PROFILE_READ_ERROR_INVALID,     /* "...: <member path>: <what> at line L, column C", a member of
                                       * the wrong type or with a value out of range, a stack or a call
                                       * tree past a limit of sxs_profile.h, a call tree whose ids or
                                       * parents do not make a tree, a runtime id given twice */
  SXS_PROFILE_READ_ERROR_TOO_LARGE,   /* "... is N bytes; expected a profile of at most M bytes" */
} SxsProfileReadError;

#define SXS_PROFILE_READ_ERROR (sxs__profile_read_error_quark())
GQuark sxs__profile_read_error_quark(void);

/* The oldest profile version this sxsprof reads (it reads every one up to SXS_PROFILE_VERSION):
 * version 1 wrote every frame of every stack out in full (kind, runtime, name, module, ip, sp,
 * file, line); version 2 names each distinct frame once in "frame_table" and gives stacks as
 * indices into it, with their stack pointers as differences. */
#define SXS_PROFILE_VERSION_OLDEST 1

/*
 * Reads a profile from len bytes of text (not necessarily NUL-terminated) into a new model, to be
 * freed with sxs__profile_model_free; NULL with error set when the text is not a profile this
 * sxsprof reads. Members it does not know are skipped; members missing keep the model's zero
 * defaults. What the JSON does not hold is filled as follows: threads get their runtime's id and
 * thread_id 0, functions function_id 0 and traced when they have "calls"; sample stacks get the
 * event "sample", and their thread_name is NULL when "thread" only repeats the OS thread id;
 * frames of version 2 have ip 0 (version 2 keeps no instruction pointers). Lists keep the order of
 * the file (the writer's order). Rendering the model again with sxs__profile_render_json gives back
 * the same text for any profile the writer made.
 *
 * Context: any thread. Allocates the model only: the text is read in place, without a tree.
 */
SxsProfileModel *sxs__profile_read(const char *text, gsize len, GError **error);

/* Largest profile file read unless the caller gives another limit: 1 GiB. */
#define SXS_PROFILE_MAX_FILE_SIZE (G_GUINT64_CONSTANT(1) << 30)

/* Reads the profile at path, as sxs__profile_read. Only a regular file is read (a folder, a FIFO,
 * a device or a socket is refused without reading from it), of at most max_size bytes (0:
 * SXS_PROFILE_MAX_FILE_SIZE). It is mapped, not copied, and unmapped before returning; it must not
 * be truncated while it is read (the profile writer replaces files by renaming, never in place).
 * A regular file that says it is empty (/proc, /sys) is read to its end, up to max_size. */
SxsProfileModel *sxs__profile_load(const char *path, guint64 max_size, GError **error);
