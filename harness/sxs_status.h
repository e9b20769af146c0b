/* sxs_status: the launcher's status line on the terminal while `run` or `attach` profiles a program
 * and while the views are written (see sxs_status.c). */
#pragma once

#include <glib.h>
#include <time.h>

/* Drawn on a terminal only. */
typedef struct SxsStatus SxsStatus;
/* TRUE when a status line may be drawn: stderr is a terminal (TERM not "dumb") and not quiet. */
gboolean sxs_status_wanted(gboolean quiet);
/* TRUE when neither the stdout nor the stderr of process pid is the terminal of our stderr (the
 * status line may be drawn while it runs: nothing it writes lands on the line). */
gboolean sxs_status_terminal_free(int pid);
/* A status line for a run whose profiles and spools go to output; spools last changed before
 * `since` are other runs'. */
SxsStatus *sxs_status_new(const char *output, gboolean is_folder, time_t since);
/* Erases the line if shown, and frees. */
void sxs_status_free(SxsStatus *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsStatus, sxs_status_free)
/* Draws the line (cut to the terminal's width), over the one shown; nothing for NULL. */
void sxs_status_show(SxsStatus *s, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* "sxsprof: <what> <elapsed>, <n> processes profiled, <n> samples", from the run's spools. */
void sxs_status_progress(SxsStatus *s, const char *what);
/* Erases the line, when one is shown, before anything else goes to stderr or stdout. */
void sxs_status_clear(SxsStatus *s);
