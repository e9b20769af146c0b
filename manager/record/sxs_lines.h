/* sxs_lines: the source file and line of managed frames, for the stacks the recorders keep. It asks
 * each frame's own runtime (SxsRuntimeOps.il_map) which code version holds the frame's code and
 * how that version's native code maps to IL, and reads the module's portable PDB (stitch/sxs_pdb.c)
 * for the line of that IL. It walks nothing and names nothing. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_manager.h"
#include "sxs_profile.h"

/* A frame's line. file is a PDB's document name, kept as long as the process (PDBs are never let
 * go): one file of one PDB is always the same pointer. */
typedef struct {
  const char *file; /* NULL: no line */
  guint32 line;
} SxsFrameLine;

/*
 * The lines of frames[0 .. n) (leaf first) into ret[0 .. n): a managed frame of one of targets'
 * runtimes gets the line its code comes from when its module's PDB can be found; every other frame
 * gets none. The config in force says whether lines are on ([lines] enabled=) and where else PDBs
 * are looked for ([lines] paths=). leaf_exact: frames[0].ip is an interrupted instruction (a sample's leaf); every other
 * ip is a return address and is looked up one byte back, so that a caller's line is its call's.
 *
 * A method or code version met for the first time is asked of its runtime and read from its PDB
 * (once: methods and code versions are kept, and a runtime's are dropped when one of its modules
 * unloads); a known one costs a table lookup. Without may_ask (a thread that holds the runtime
 * suspended for a GC) only what is kept answers.
 *
 * Context: normal context, never a signal handler (the sampler thread, an event's thread); no
 * profiler lock held: the runtime is called with none held, and the lines lock is a leaf.
 */
void sxs__lines_resolve(const SxsStitchTarget *targets, guint n_targets, const SxsStackFrame *frames, guint n,
                        gboolean leaf_exact, gboolean may_ask, SxsFrameLine *ret);

/* Reads where one of rt's functions begins (its method's points), if not known yet, so that a call
 * tree shows it even when the runtime is gone by the time the profile is written. Context: a
 * runtime's thread outside any profiler lock (call tracing's function-ID mapper, at JIT time). */
void sxs__lines_learn(SxsRuntime *rt, uint64_t function_id);

/* Adds what lines know to a snapshot: each function record's first line (asking the runtime for
 * traced functions not met in a stack, so call trees have lines), the counters, every assembly whose
 * PDB was looked for, and the methods met in more than one code version. Context: any thread, no
 * profiler lock held (takes the registry's, and asks live runtimes). */
void sxs__lines_fill(SxsProfileModel *m);

/* Test support: forget every method, PDB and counter; lines on, no folders. */
void sxs__lines_reset_for_tests(void);
