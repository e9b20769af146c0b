/* sxs_spool: the spool, an append-only file beside a profile that a profiled process extends with
 * what it recorded every few hundred milliseconds, so that whatever ends the process (SIGKILL,
 * the OOM killer, a crash) its profile can be rebuilt from the file: by the launcher after the
 * program ended, by `sxsprof report X.spool`, or from nothing the runtime must still answer
 * (names are written when first seen). This file is the format: the records' text and the reader
 * that rebuilds the profile model. What is written when is output/'s (sxs_spool_write.c).
 *
 *   sxsprof-spool 1                                   first line
 *   B <seq>                                           a batch begins
 *   S <bytes>\n<profile JSON>                         the profile without functions and stacks:
 *                                                     process, runtimes, threads, counters (replaces)
 *   F <rt> <function id> <jit> <inlined> <precompiled> <name> <module>   a function (replaces)
 *   N <frame id> <m|n> <rt> <name> <module> <file|-> <line>
 *                                                     a frame's name and source line, once (line 0
 *                                                     and file "-": none; a reader takes spools
 *                                                     without the two fields too)
 *   K <stack id> <event> <thread> <thread name|-> <frame id>:<ip>:<sp>,... <rt> <type|->
 *                                                     a stack, once (rt and type: the exception,
 *                                                     contention and allocation profiles' own)
 *   W <stack id> <count> <value>                      a stack's count grew by <count>, its value
 *                                                     (ns waited, bytes allocated) by <value>
 *   T <bytes>\n<profile JSON>                         the traced runtimes' functions, call trees and
 *                                                     tracing summaries (replaces)
 *   P <t_us> <stack id>:<delta>[*<weight>][@<label>],...   timeline samples: the first one's time, each
 *                                                     its time as a signed delta from the one before
 *   V <kind> <rt> <thread> <start_us> <dur_us> <value> <reason> <stack id> <name|-> [<label>]
 *                                                     a timeline event
 *   Q <second> <thread> <samples>                     samples folded into a second of a thread
 *   L <label> <name>                                  an endpoint's name, once (labels from 1)
 *   X <signal>                                        the process is dying from <signal>
 *   E <seq>                                           the batch is complete
 *
 * Numbers are decimal, ids and addresses hexadecimal; fields are separated by one tab; strings
 * escape \, tab and newline as \\, \t and \n ("-" alone is the empty name). A reader applies a
 * batch only once it has read its E line: a batch the process was writing when it died is left
 * out whole. A spool grows until its writer compacts it: a new file with one batch that holds
 * everything, renamed over the old one. */
#pragma once

#include <glib.h>

#include "sxs_profile.h"

#define SXS_SPOOL_MAGIC "sxsprof-spool 1\n"
#define SXS_SPOOL_SUFFIX ".spool"

/* Appends s escaped as a spool string (NULL and "" as "-"). */
void sxs__spool_append_string(SxsText *out, const char *s);

/* A spool read back. */
typedef struct {
  SxsProfileModel *model; /* the profile rebuilt from it; owned */
  int signal;             /* the signal the process said it was dying from, 0 when it said none */
  guint batches;          /* complete batches read */
  gboolean torn;          /* the file ends inside a batch (the writer died while writing it) */
} SxsSpoolRead;

void sxs__spool_read_free(SxsSpoolRead *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsSpoolRead, sxs__spool_read_free)

/* Rebuilds the profile a spool holds, from len bytes of text. NULL with error set (domain
 * SXS_PROFILE_READ_ERROR, the message starting with `source`) when the text is not a spool or
 * holds no complete batch with a profile in it. Context: any thread. */
SxsSpoolRead *sxs__spool_read(const char *source, const char *text, gsize len, GError **error);

/* A running count of a spool's samples, read as the spool grows: for a status line while the
 * program runs, not for the profile. */
typedef struct {
  guint64 offset;     /* bytes of the file read */
  guint64 inode;      /* the file read (a compaction renames a new one over it: read again) */
  GHashTable *sample; /* ids of the stacks of samples */
  guint64 samples;    /* samples counted so far */
} SxsSpoolTally;

void sxs__spool_tally_init(SxsSpoolTally *t);
void sxs__spool_tally_clear(SxsSpoolTally *t);
/* Reads what the spool at path gained since the last call (all of it after a compaction): t->samples
 * is then the samples of its records read whole. FALSE when the file cannot be read (gone). Reads
 * at most 64 MiB a call. Context: any thread; allocates. */
gboolean sxs__spool_tally_update(SxsSpoolTally *t, const char *path);

/* Reads and rebuilds the spool at path. */
SxsSpoolRead *sxs__spool_load(const char *path, GError **error);

/* The spool of a profile: X.json -> X.spool. Caller frees. */
char *sxs__spool_path(const char *profile_path);
/* The profile of a spool: X.spool -> X.json. Caller frees. */
char *sxs__spool_profile_path(const char *spool_path);
