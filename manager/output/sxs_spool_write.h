/* sxs_spool_write: the profiled process's side of the spool (format and reader: sxs_spool.h).
 * Every SXS_SPOOL_PERIOD_MS the output thread appends one batch of what changed since the last:
 * the profile's small part (process, runtimes, threads, counters) when it changed (when only its
 * counters did, at most every 10 s), functions made
 * or counted, frame names and stacks first seen, stacks' count increments, and every second the
 * traced runtimes' call trees. A batch costs what changed, not what the profile holds. When the
 * file has grown past four times what one batch of everything takes (and past 8 MiB), it is
 * rewritten as that one batch (compaction), so its size stays bounded by the profile's.
 *
 * Context: the output thread, and the exit's final write after that thread stopped; the spool
 * lock serializes them. Never a signal handler. */
#pragma once

#include <glib.h>

/* How often the output thread appends a batch: at most this much recorded data is lost when the
 * process is killed by SIGKILL. */
#define SXS_SPOOL_PERIOD_MS 100

/* Appends a batch to the spool of the process's profile (created, with everything recorded so
 * far, when there is none yet). `signal` not 0: the process is dying from that signal (said in
 * the batch, with the traced call trees however recent the last ones are). 0 or -errno. */
int sxs__spool_append(int signal);

/* The profile was written whole at an orderly end: the spool is closed and removed (a later
 * append starts a new one). */
void sxs__spool_remove(void);

/* Batches appended, compactions, bytes written, and the time appending took, for the profile's
 * log and the benchmarks. */
typedef struct {
  guint64 batches, compactions, bytes, ns;
} SxsSpoolStats;
void sxs__spool_stats(SxsSpoolStats *ret_stats);
