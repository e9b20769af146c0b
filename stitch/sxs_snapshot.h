/* The DoStackSnapshot adapter: one runtime's walk of a thread as a list of frames with their stack
 * pointers. It decides nothing about other runtimes or native frames (sxs_stitch does). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_cor.h"
#include "sxs_merge.h"

/*
 * Walks a thread with info's DoStackSnapshot (COR_PRF_SNAPSHOT_REGISTER_CONTEXT): thread_id is the
 * runtime's ThreadID, 0 for the calling thread. Writes its managed frames, leaf first, to
 * frames[0 .. *ret_n): kind SXS_FRAME_MANAGED, runtime_id, function_id, ip, and sp = the Rsp of the
 * register context the runtime passes for that frame (the value RSP has in the frame's body, as the
 * native walkers define it). The runtime's "native marker" callbacks (funcId 0) are not frames and
 * are left out. A frame without a usable context (too short, or an Rsp not above the previous
 * frame's) is dropped and counted in *ret_dropped (may be NULL).
 *
 * Returns 0 when the walk reached the end of the runtime's frames; -ENOBUFS when max frames were
 * not enough (the first max are kept and the runtime's walk is stopped there); -EIO when the
 * runtime answered a failure. *ret_hr receives the runtime's HRESULT and *ret_n the frames written
 * (both always; frames already written stay valid whatever the answer).
 *
 * Context, the calling thread: any thread the runtime knows or not (the runtime answers S_OK with
 * no frames for a thread it never ran), from a callback of this or another runtime. Another thread:
 * on Linux the runtime walks one only while it is suspended by SuspendRuntime (else E_NOTIMPL), from
 * the thread that suspended it. Either way with info held through its instance's Info guard and no
 * profiler lock held (the walk takes the runtime's own locks). The StackSnapshotCallback allocates
 * nothing and takes no lock.
 */
int sxs__snapshot_thread(ICorProfilerInfo15 *info, int runtime_id, uint64_t thread_id, SxsStackFrame *frames, guint max,
                         guint *ret_n, HRESULT *ret_hr, guint *ret_dropped);
