/* sxs_output: the one seam where recorded data becomes files. A write snapshots the registry
 * (sxs__manager_copy) and the recorders (tracing, stacks, sampler) into one immutable profile
 * model, renders the JSON document, writes it atomically, and renders the views formats= asks for
 * from the same model. It owns every moment a profile is written: a runtime's Shutdown, the
 * periodic flush (its thread), process exit, and an attach's stop.
 *
 *   callback/ Shutdown ----> sxs__output_runtime_shutdown ---.
 *   flush thread (flush= s) -----------------------------------+--> snapshot --> JSON --> file
 *   process exit (destructor) --------------------------------+            '--> views (formats=)
 *   attach stop (sxs_attach_control) -------------------------'
 *
 * It sits above every other room of manager/: nothing below calls it. */
#pragma once

#include <glib.h>

#include "sxs_manager.h"
#include "sxs_profile.h"

/* Starts the periodic flush of the config in force (once; later calls do nothing while it runs).
 * Context: a runtime's Initialize. */
void sxs__output_start(void);

/* The registry's copy with every recorder's part added: the model a write renders. Caller frees. */
SxsProfileModel *sxs__output_snapshot(void);

/* The profile document of a fresh snapshot (used by tests). Caller frees. */
char *sxs__output_render_profile(gsize *ret_len);

/* Writes the profile atomically, and the views formats= asks for beside it, unless they were
 * written for the same document already. Safe from any thread and at exit. 0 or -errno (-EINVAL
 * when profiling is off). */
int sxs__output_write(void);

/* The profile's last write (exit, an attach's stop): sxs__output_write, then the spool, whose
 * data the profile now holds, is removed. 0 or -errno. */
int sxs__output_finish(void);

/* A runtime's Shutdown, first: the registry marks it, and when it was the last profiled runtime
 * still running, sampling ends (the sampler's last captures are named while the runtime still
 * answers). Context: Shutdown, before its Info is let go. */
void sxs__output_runtime_stopping(SxsRuntime *rt);

/* A runtime's Shutdown, then: the profile is written (after sxs__output_runtime_stopping; also
 * alone, which does both). */
void sxs__output_runtime_shutdown(SxsRuntime *rt);

/* Stops the expensive work for good (the sampler, stacks on events, the periodic rewrite) while
 * the runtimes keep the library: what an attach's stop does before the profile is written. */
void sxs__output_quiesce(void);

/* An attach's config (sxs__manager_attach_config: 0 or -errno with *ret_why), with the
 * periodic flush restarted for it. */
int sxs__output_attach_config(const char *config_path, const char *run_id, char **ret_why);

/* Test support: the registry's and the recorders' reset, and the written documents forgotten. */
void sxs__output_reset_for_tests(void);
