/* The SxsRuntimeOps a callback instance gives the registry: what the manager may ask of one runtime
 * (names, IP ownership, suspend and resume, threads, stack walks), each through the Info guard. */
#include "sxs_callback.h"

#include "sxs_snapshot.h"

#include <errno.h>

/* SxsRuntimeOps.function_name: names a function through the guarded Info. */
int sxs__callback_ops_function_name(gpointer instance, uint64_t function_id, char **ret_name, char **ret_module) {
  SxsCallback *self = instance;
  uintptr_t start, end;
  if (sxs__dynamic_first_range(&self->dynamic, (FunctionID)function_id, &start, &end)) {
    /* No metadata names it: what it is, as speedscope and pprof users know such frames. */
    *ret_name = g_strdup("[dynamic method]");
    if (ret_module)
      *ret_module = NULL;
    return 0;
  }
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return -ESHUTDOWN;
  g_autofree char *name = NULL;
  ModuleID module_id = 0;
  int r = sxs__callback_function_name(info, &self->importers, function_id, &name, &module_id);
  sxs__callback_info_leave(self);
  if (r < 0)
    return r;
  if (ret_module)
    *ret_module = sxs__manager_module_name(self->runtime, module_id);
  *ret_name = g_steal_pointer(&name);
  return 0;
}

/* SxsRuntimeOps.owns_ip: GetFunctionFromIP through the guarded Info. E_FAIL is the runtime's "not
 * mine" (a foreign or native ip, or code without metadata such as an IL stub: then the dynamic
 * methods' ranges answer, with 1); the other failures (CORPROF_E_ASYNCHRONOUS_UNSAFE,
 * CORPROF_E_NOT_YET_AVAILABLE) mean it could not look now. */
static int ops_owns_ip(gpointer instance, uintptr_t ip, uint64_t *ret_function_id) {
  SxsCallback *self = instance;
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return -ESHUTDOWN;
  FunctionID function_id = 0;
  HRESULT hr = info->lpVtbl->GetFunctionFromIP(info, (LPCBYTE)ip, &function_id);
  sxs__callback_info_leave(self);
  if (hr >= 0 && function_id != 0) {
    *ret_function_id = function_id;
    return 0;
  }
  if ((hr >= 0 || hr == E_FAIL) && sxs__dynamic_find(&self->dynamic, ip, &function_id, NULL, NULL)) {
    *ret_function_id = function_id;
    return 1; /* DoStackSnapshot does not report such frames */
  }
  return hr >= 0 || hr == E_FAIL ? -ENOENT : -EAGAIN;
}

/* SxsRuntimeOps.suspend: SuspendRuntime, holding the Info guard until resume, so that Shutdown
 * waits for the resume instead of letting the Info go under a suspended runtime. */
static int ops_suspend(gpointer instance) {
  SxsCallback *self = instance;
  SxsCapabilities caps;
  sxs__manager_capabilities(self->runtime, &caps);
  if (!caps.suspend)
    return -ENOTSUP;
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return -ESHUTDOWN;
  HRESULT hr = info->lpVtbl->SuspendRuntime(info);
  if (hr < 0) {
    sxs__callback_info_leave(self);
    return -EIO;
  }
  self->suspended_by = info;
  return 0;
}

/* A Shutdown that gave up waiting for this use keeps its reference (never releases it), so the
 * Info suspended with is still valid here even if self->info is gone. */
static void ops_resume(gpointer instance) {
  SxsCallback *self = instance;
  ICorProfilerInfo15 *info = self->suspended_by;
  self->suspended_by = NULL;
  if (info)
    info->lpVtbl->ResumeRuntime(info);
  sxs__callback_info_leave(self);
}

/* SxsRuntimeOps.threads: the runtime's managed threads that run on an OS thread, up to `max`. */
static guint ops_threads(gpointer instance, uint64_t *ret_ids, uint32_t *ret_os_tids, guint max) {
  SxsCallback *self = instance;
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return 0;
  guint n = 0;
  ICorProfilerThreadEnum *threads = NULL;
  if (info->lpVtbl->EnumThreads(info, &threads) >= 0 && threads) {
    ThreadID ids[64];
    ULONG got = 0;
    while (n < max && threads->lpVtbl->Next(threads, G_N_ELEMENTS(ids), ids, &got) >= 0 && got > 0) {
      for (ULONG i = 0; i < got && n < max; i++) {
        DWORD os_tid = 0;
        if (info->lpVtbl->GetThreadInfo(info, ids[i], &os_tid) >= 0 && os_tid != 0) {
          ret_ids[n] = ids[i];
          ret_os_tids[n] = os_tid;
          n++;
        }
      }
    }
    threads->lpVtbl->Release(threads);
  }
  sxs__callback_info_leave(self);
  return n;
}

/* SxsRuntimeOps.walk_thread: DoStackSnapshot of a thread of this runtime (0: the calling one). */
static int ops_walk_thread(gpointer instance, uint64_t thread_id, SxsStackFrame *frames, guint max, guint *ret_n,
                           HRESULT *ret_hr) {
  SxsCallback *self = instance;
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info) {
    *ret_n = 0;
    *ret_hr = 0;
    return -ESHUTDOWN;
  }
  int r = sxs__snapshot_thread(info, self->runtime->id, thread_id, frames, max, ret_n, ret_hr, NULL);
  sxs__callback_info_leave(self);
  return r;
}

/* SxsRuntimeOps.walk: this runtime's DoStackSnapshot of the calling thread (ThreadID 0). */
static int ops_walk(gpointer instance, SxsStackFrame *frames, guint max, guint *ret_n, HRESULT *ret_hr) {
  return ops_walk_thread(instance, 0, frames, max, ret_n, ret_hr);
}

const SxsRuntimeOps sxs__callback_ops = {
    .function_name = sxs__callback_ops_function_name,
    .owns_ip = ops_owns_ip,
    .walk = ops_walk,
    .suspend = ops_suspend,
    .resume = ops_resume,
    .threads = ops_threads,
    .walk_thread = ops_walk_thread,
    .il_map = sxs__callback_il_map,
};
