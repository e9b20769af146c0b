/* The DoStackSnapshot adapter: one runtime's walk of the calling thread as a list of frames with
 * their stack pointers, and the names of the HRESULTs walks end with. It decides nothing about
 * other runtimes or native frames (sxs_stitch does). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_cor.h"
#include "sxs_merge.h"

/*
 * Walks the calling thread with info's DoStackSnapshot (thread 0, COR_PRF_SNAPSHOT_REGISTER_CONTEXT)
 * and writes its managed frames, leaf first, to frames[0 .. *ret_n): kind SXS_FRAME_MANAGED,
 * runtime_id, function_id, ip, and sp = the Rsp of the register context the runtime passes for that
 * frame (the value RSP has in the frame's body, as the native walkers define it). The runtime's
 * "native marker" callbacks (funcId 0) are not frames and are left out. A walk with more than max
 * frames keeps the first max and stops the runtime's walk there (the HRESULT is then
 * CORPROF_E_STACKSNAPSHOT_ABORTED, *ret_truncated TRUE). A frame without a usable context (too short,
 * or an Rsp not above the previous frame's) is dropped and counted in *ret_dropped.
 *
 * Returns the runtime's HRESULT (S_OK: the walk reached the end of the runtime's frames). *ret_n is
 * always set; frames already written stay valid whatever the HRESULT.
 *
 * Context: a thread of the runtime's, inside one of its callbacks or on a thread the runtime knows,
 * with info held through the instance's Info guard. The StackSnapshotCallback allocates nothing and
 * takes no lock. No profiler lock may be held (the walk takes the runtime's own locks).
 */
HRESULT sxs__snapshot_current_thread(ICorProfilerInfo15 *info, int runtime_id, SxsStackFrame *frames, guint max,
                                     guint *ret_n, gboolean *ret_truncated, guint *ret_dropped);

/* The symbolic name of an HRESULT a walk or a classification can end with ("S_OK", "E_FAIL",
 * "CORPROF_E_STACKSNAPSHOT_UNSAFE", ...), or NULL for one this table does not know.
 * Context: any thread; async-signal-safe. */
const char *sxs__snapshot_hresult_name(HRESULT hr);
