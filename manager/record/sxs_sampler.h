/* sxs_sampler: the sampling profiler ([sampling] enabled=true): a thread of the profiler's own that
 * interrupts the process's threads at a fixed frequency and records where they are, native and
 * managed frames of every runtime. It keeps nothing of the profile itself: stacks go to
 * sxs_stacks, counters to the model at sxs__sampler_fill. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_config.h"
#include "sxs_profile.h"

/* The signal the sampler interrupts threads with. No CoreCLR version uses it (they use SIGRTMIN
 * for their own thread activation, and the hardware-fault signals). */
#define SXS_SAMPLER_SIGNAL SIGPROF

/* walker=auto uses the suspend walker up to this frequency, the signal walker above it. 0: never.
 * Measured here, the signal walker with per-thread CPU-time timers costs a fraction of what the
 * suspend walker does (which stops every managed thread of every runtime at each tick, and whose
 * signals cross CPUs), and both find the same shares: auto takes the cheap one. */
#define SXS_SAMPLER_SUSPEND_AUTO_MAX_HZ 0

/*
 * Starts the sampler once per process, when cfg asks for it; later calls do nothing. The walker is
 * chosen at each tick (walker=, and whether every profiled runtime can be suspended). When the
 * application already handles SXS_SAMPLER_SIGNAL, sampling stays off with one log line and the
 * profile says why. Context: a runtime's Initialize (any thread; normal context).
 */
void sxs__sampler_start(const SxsConfig *cfg);

/* Stops the sampler thread and waits for it, at most 2 s (registered with atexit, and called again
 * by the profile's exit write). Context: any thread but the sampler's. */
void sxs__sampler_stop(void);

/* A runtime's ThreadDestroyed: announces the thread (no walk of it starts after this) and waits
 * (at most 200 ms) while the sampler walks it, so that a walk never reads a thread the runtime has
 * let go. Context: the runtime's callback thread. */
void sxs__sampler_thread_destroyed(int runtime_id, uint64_t thread_id);
/* A runtime's ThreadCreated: a ThreadID given anew is no longer a destroyed thread's. */
void sxs__sampler_thread_created(int runtime_id, uint64_t thread_id);

/* Copies the sampler's settings and counters into m->samples. Context: any thread. */
void sxs__sampler_fill(SxsProfileModel *m);
