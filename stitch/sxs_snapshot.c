/* The DoStackSnapshot adapter: frames with stack pointers out of one runtime's walk of the calling
 * thread. */
#include "sxs_snapshot.h"

#include <errno.h>
#include <string.h>

/* What the walk callback fills: the caller's buffer and what did not fit or made no sense. */
typedef struct {
  int runtime_id;
  SxsStackFrame *frames;
  guint max;
  guint n;
  guint dropped;
  gboolean truncated;
} SnapshotState;

/* The runtime's StackSnapshotCallback. Context: inside DoStackSnapshot on the walked thread; no
 * allocation, no lock, no libc call beyond memcpy. */
static HRESULT snapshot_frame(FunctionID funcId, UINT_PTR ip, COR_PRF_FRAME_INFO frameInfo, ULONG32 contextSize,
                              BYTE context[], void *clientData) {
  SnapshotState *state = clientData;
  (void)frameInfo;
  if (funcId == 0)
    return S_OK; /* a native marker: the native walk has those frames */
  if (!context || contextSize < SXS_CONTEXT_RIP_OFFSET + sizeof(uint64_t)) {
    state->dropped++;
    return S_OK;
  }
  uint64_t rsp;
  memcpy(&rsp, context + SXS_CONTEXT_RSP_OFFSET, sizeof rsp);
  if (rsp == 0 || (state->n > 0 && rsp <= state->frames[state->n - 1].sp)) {
    state->dropped++;
    return S_OK;
  }
  if (state->n == state->max) {
    state->truncated = TRUE;
    return E_FAIL; /* stops the walk: ABORTED */
  }
  state->frames[state->n++] = (SxsStackFrame){
      .sp = (uintptr_t)rsp,
      .ip = (uintptr_t)ip,
      .kind = SXS_FRAME_MANAGED,
      .runtime_id = state->runtime_id,
      .function_id = funcId,
  };
  return S_OK;
}

int sxs__snapshot_thread(ICorProfilerInfo15 *info, int runtime_id, uint64_t thread_id, SxsStackFrame *frames, guint max,
                         guint *ret_n, HRESULT *ret_hr, guint *ret_dropped) {
  SnapshotState state = {.runtime_id = runtime_id, .frames = frames, .max = frames ? max : 0};
  HRESULT hr = E_INVALIDARG;
  if (info)
    hr = info->lpVtbl->DoStackSnapshot(info, (ThreadID)thread_id, snapshot_frame, COR_PRF_SNAPSHOT_REGISTER_CONTEXT,
                                       &state, NULL, 0);
  *ret_n = state.n;
  *ret_hr = hr;
  if (ret_dropped)
    *ret_dropped = state.dropped;
  if (state.truncated)
    return -ENOBUFS;
  return hr == S_OK ? 0 : -EIO;
}
