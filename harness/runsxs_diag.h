/* runsxs --diagnostics: a diagnostics IPC socket of its own for every runtime of the process.
 *
 * Every CoreCLR since 3.0 listens on ${TMPDIR:-/tmp}/dotnet-diagnostic-<pid>-<key>-socket, a name
 * made of the process alone, so of several runtimes in one process only the first to bind it can
 * be reached. With --diagnostics, runtime N listens on
 *   ${TMPDIR:-/tmp}/sxsprof-runsxs-<pid>-rt<N>.sock
 * instead, and nothing listens on the shared name. docs/harness.md ("Diagnostics ports") says why
 * it is done by renaming the runtime's bind() rather than through DOTNET_DiagnosticPorts. This
 * module does not touch connect-mode ports a user configures, nor runtimes older than 3.0, which
 * have no diagnostics server. */
#pragma once

#include <glib.h>

#include "runsxs_host.h"

/* Turns --diagnostics on for these runtimes (command-line order; rt->dir must be the folder the
 * runtime will really load). Computes each socket's name, removes a stale socket left at it by an
 * earlier process with the same pid, and fails with a message fit for the user when a name does
 * not fit a socket address or something other than a socket is in the way. Without this call the
 * exported bind() passes every call straight to the C library.
 * Context: main thread, once, before any runtime starts. */
gboolean runsxs_diag_setup(RunsxsRuntime *const *runtimes, int count, GError **error);

/* Names the runtime the calling thread is about to initialize (0: none). A runtime binds its
 * diagnostics socket inside coreclr_initialize, on the calling thread; this is how a bind() whose
 * caller cannot be told from its code address is still given to the right runtime.
 * Context: any thread. */
void runsxs_diag_thread_runtime(int index);

/* Removes every runtime's socket file. Idempotent.
 * Context: any thread; async-signal-safe. */
void runsxs_diag_remove_sockets(void);
