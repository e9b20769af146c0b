/* sxs_ending: what the profiler does when a signal is about to end the process. A signal that
 * kills runs no exit handler and no runtime Shutdown, so without this the data recorded since the
 * last write would be lost. The profiler installs its own handler for SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT and SIGABRT at the first runtime's Initialize, over what is there (the runtime's PAL),
 * and so becomes what the runtime's later handlers (System.Native) save as the original and call
 * last. When it runs, it wakes the output thread (one byte on a pipe), waits for it to say the
 * data is on disk (a bounded poll() on a second pipe), then calls the handler it replaced, or,
 * when that was the default action, restores it and raises the signal again: the process dies
 * from the same signal, with the same status, as it would without the profiler.
 *
 *   signal --> [System.Native: managed handlers, then restores ours and kill(getpid())]
 *          --> ours: write(wake) --> output thread: spool batch (+ profile, views without the
 *                                    launcher) --> write(done)
 *              poll(done, SXS_ENDING_WAIT_MS)
 *          --> the replaced handler (the PAL: restores SIG_DFL, kill) or SIG_DFL + tgkill
 *          --> the process dies from the signal */
#pragma once

#include <glib.h>

/* The longest a dying process waits for its data to be written. */
#define SXS_ENDING_WAIT_MS 5000

/* Creates the pipes and installs the handlers, once per process. Context: a runtime's
 * Initialize (normal context). */
void sxs__ending_install(void);

/* The read end the output thread polls: readable when a handler (or sxs__ending_wake) asks. Drain
 * it with sxs__ending_drain. -1 before install. */
int sxs__ending_wake_fd(void);
void sxs__ending_drain(void);
/* Wakes the output thread for another reason (its stop). Context: any thread. */
void sxs__ending_wake(void);

/* The signal a handler is waiting on the output thread for, or 0. Context: the output thread. */
int sxs__ending_signal(void);
/* The output thread wrote what the dying process had: every handler waiting goes on. */
void sxs__ending_done(void);

/* Does the output thread answer (set by it, on it, while it runs)? A handler does not wait
 * otherwise, nor on the output thread itself. */
void sxs__ending_set_listening(gboolean listening);
