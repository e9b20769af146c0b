/* runsxs signal-chain repairs: what lets several CoreCLR runtimes share one process's signals.
 *
 * Every runtime's PAL installs process-wide handlers and a per-thread alternate signal stack as
 * if it were alone. runsxs exports its own sigaltstack() and sigaction() (the executable is
 * linked -rdynamic, so the runtimes' imports bind to them) and repairs three faults:
 *   1. alternate stacks too small for several runtimes' nested SIGSEGV handlers;
 *   2. activation signals (SIGRTMIN) of an earlier runtime swallowed by a later one's handler;
 *   3. SIGTERM/SIGINT reaching only the last runtime's handler.
 * docs/harness-signals.md explains each fault and repair. This module does not touch SIGSEGV,
 * SIGFPE, SIGILL, SIGBUS, SIGTRAP or SIGQUIT handlers: their chains work once the stacks are big
 * enough. */
#pragma once

#include <glib.h>

/* Installs the repairs (enable_fixes TRUE) or makes the exported sigaction()/sigaltstack() pass
 * every call straight to libc (FALSE), so the faults reproduce. Call first thing in main, before
 * any runtime is loaded and before any other thread starts. Returns 0 or -errno; on failure the
 * process runs without repairs.
 * Context: main thread, once. */
int runsxs_signals_setup(gboolean enable_fixes);

/* Gives the calling thread its large alternate signal stack now (threads the runtimes create get
 * one lazily, when their PAL first asks). Call first thing in every thread that will run managed
 * code, and in main. A no-op without repairs.
 * Context: any thread, normal context. */
void runsxs_signals_thread_start(void);

/* Tells the repairs that runtime `index` (1-based) finished coreclr_initialize from
 * coreclr_path. Checks that the runtime's activation handler was captured and, with
 * RUNSXS_SIGNALS_DEBUG=1 in the environment, prints which handlers each runtime installed.
 * Context: any thread, normal context. */
void runsxs_signals_runtime_loaded(int index, const char *coreclr_path);

/* The size in bytes of the alternate signal stack each thread gets (guard page excluded), or 0
 * without repairs. */
gsize runsxs_signals_altstack_size(void);

/* A function the dispatcher calls, first thing, when SIGTERM or SIGINT arrives with the
 * termination repair on: the host's chance to note that every runtime is about to shut down.
 * It runs in a signal handler: it must be async-signal-safe (atomics only). */
void runsxs_signals_set_termination_hook(void (*hook)(void));
