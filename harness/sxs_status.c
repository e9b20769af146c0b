/* sxs_status: the one status line `run` and `attach` keep on the terminal while the program
 * runs and while the views are written (see sxsprof.h). It is drawn on stderr only when stderr is a
 * terminal and -q was not given, rewritten in place ("\r", the text, erase to the end of the line,
 * "\r") and erased before anything else is printed, so that nothing of it stays in the scrollback,
 * in a file or in a pipe. While the program runs it is drawn only when the program's own stdout and
 * stderr are not that terminal: a line the program writes would land on the status line and keep
 * its tail (the launcher cannot know when the program writes). What it counts comes from the spools
 * of the run's processes, read as they grow (sxs__spool_tally_update): the program is never asked. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sxs_spool.h"
#include "sxs_status.h"
#include "sxsprof.h"

struct SxsStatus {
  gboolean shown;      /* a line is on the terminal now */
  char *output;        /* where the run's profiles and spools go */
  gboolean is_folder;  /* output is a folder */
  time_t since;        /* spools older than this belong to other runs */
  gint64 started_us;   /* monotonic start of the run (or attach) */
  GHashTable *tallies; /* spool path -> SxsSpoolTally* */
  guint64 samples;     /* the most samples shown: a spool that went (its process ended and its
                        * profile was written) keeps its count */
  GHashTable *gone;    /* spool path -> guint64* samples counted in it before it went */
};

static void tally_free(gpointer p) {
  SxsSpoolTally *t = p;
  sxs__spool_tally_clear(t);
  g_free(t);
}

gboolean sxs_status_wanted(gboolean quiet) {
  const char *term = g_getenv("TERM");
  return !quiet && isatty(STDERR_FILENO) && !(term && g_str_equal(term, "dumb"));
}

gboolean sxs_status_terminal_free(int pid) {
  struct stat mine;
  if (fstat(STDERR_FILENO, &mine) != 0)
    return FALSE;
  for (int fd = 1; fd <= 2; fd++) {
    char path[64];
    g_snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    struct stat theirs;
    if (stat(path, &theirs) == 0 && S_ISCHR(theirs.st_mode) && theirs.st_rdev == mine.st_rdev)
      return FALSE;
  }
  return TRUE;
}

SxsStatus *sxs_status_new(const char *output, gboolean is_folder, time_t since) {
  SxsStatus *s = g_new0(SxsStatus, 1);
  s->output = g_strdup(output);
  s->is_folder = is_folder;
  s->since = since;
  s->started_us = g_get_monotonic_time();
  s->tallies = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, tally_free);
  s->gone = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  return s;
}

void sxs_status_free(SxsStatus *s) {
  if (!s)
    return;
  sxs_status_clear(s);
  g_free(s->output);
  g_hash_table_unref(s->tallies);
  g_hash_table_unref(s->gone);
  g_free(s);
}

/* The terminal's width in columns (80 when it does not say). */
static guint terminal_columns(void) {
  struct winsize ws;
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 80;
}

void sxs_status_show(SxsStatus *s, const char *format, ...) {
  if (!s)
    return;
  va_list ap;
  va_start(ap, format);
  g_autofree char *text = g_strdup_vprintf(format, ap);
  va_end(ap);
  /* One column short of the width: a line that fills it would wrap on some terminals. */
  guint width = terminal_columns() - 1;
  if (g_utf8_strlen(text, -1) > width)
    *g_utf8_offset_to_pointer(text, width) = '\0';
  /* The cursor goes back to the line's start: a line the program writes meanwhile begins where it would. */
  fprintf(stderr, "\r%s\033[K\r", text);
  fflush(stderr);
  s->shown = TRUE;
}

void sxs_status_clear(SxsStatus *s) {
  if (!s || !s->shown)
    return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  s->shown = FALSE;
}

/* "12,345". */
static char *thousands(guint64 v) {
  g_autofree char *digits = g_strdup_printf("%" G_GUINT64_FORMAT, v);
  GString *out = g_string_new(NULL);
  gsize n = strlen(digits);
  for (gsize i = 0; i < n; i++) {
    if (i > 0 && (n - i) % 3 == 0)
      g_string_append_c(out, ',');
    g_string_append_c(out, digits[i]);
  }
  return g_string_free(out, FALSE);
}

void sxs_status_progress(SxsStatus *s, const char *what) {
  if (!s)
    return;
  g_autoptr(GPtrArray) spools = sxsprof_output_files(s->output, s->is_folder, SXS_SPOOL_SUFFIX);
  guint processes = 0;
  guint64 samples = 0;
  for (guint i = 0; i < spools->len; i++) {
    const char *path = spools->pdata[i];
    struct stat st;
    if (stat(path, &st) != 0 || st.st_mtime < s->since)
      continue;
    SxsSpoolTally *t = g_hash_table_lookup(s->tallies, path);
    if (!t) {
      t = g_new0(SxsSpoolTally, 1);
      sxs__spool_tally_init(t);
      g_hash_table_insert(s->tallies, g_strdup(path), t);
    }
    if (!sxs__spool_tally_update(t, path))
      continue;
    processes++;
    samples += t->samples;
  }
  /* A process that ended took its spool with it: its samples still count, not as running. */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, s->tallies);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    if (g_file_test(key, G_FILE_TEST_EXISTS))
      continue;
    guint64 *kept = g_new(guint64, 1);
    *kept = ((SxsSpoolTally *)value)->samples;
    g_hash_table_replace(s->gone, g_strdup(key), kept);
    g_hash_table_iter_remove(&it);
  }
  g_hash_table_iter_init(&it, s->gone);
  while (g_hash_table_iter_next(&it, NULL, &value))
    samples += *(guint64 *)value;
  s->samples = MAX(s->samples, samples);
  gint64 seconds = (g_get_monotonic_time() - s->started_us) / G_USEC_PER_SEC;
  g_autofree char *count = thousands(s->samples);
  g_autofree char *elapsed = seconds >= 60
                                 ? g_strdup_printf("%" G_GINT64_FORMAT " min %02d s", seconds / 60, (int)(seconds % 60))
                                 : g_strdup_printf("%" G_GINT64_FORMAT " s", seconds);
  sxs_status_show(s, "sxsprof: %s %s, %u process%s profiled, %s samples", what, elapsed, processes,
                  processes == 1 ? "" : "es", count);
}
