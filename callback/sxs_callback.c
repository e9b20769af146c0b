/* The ICorProfilerCallback11 object: one per runtime, recording into that runtime's registry entry.
 *
 * A runtime reaches this object through the class factory (sxs_factory.c). Initialize finds out
 * which runtime it is (Info vtable -> owning libcoreclr.so, its product version), asks the manager
 * whether to profile it, fills the capability record and sets the event mask. Callbacks the
 * profile needs (JIT, modules, threads, exceptions, GCs, Shutdown) record into the runtime's own
 * SxsRuntime; every other callback answers S_OK and does nothing.
 *
 * Beside it: the SxsRuntimeOps it gives the registry (sxs_callback_ops.c), the feature table that
 * Initialize runs (sxs_features.c) and the catch-up after an attach (sxs_catchup.c). */
#include "sxs_callback.h"

#include "sxs_activity.h"
#include "sxs_attach.h"
#include "sxs_attach_control.h"

#include "sxs_events.h"
#include "sxs_modules.h"
#include "sxs_output.h"
#include "sxs_sampler.h"
#include "sxs_stacks.h"
#include "sxs_timeline_rec.h"
#include "sxs_version.h"
#include "sxs_trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline SxsCallback *impl_from_ICorProfilerCallback11(ICorProfilerCallback11 *iface) {
  return (SxsCallback *)((char *)iface - offsetof(SxsCallback, iface));
}

static const GUID *const callback_iids[] = {
    &IID_IUnknown,
    &IID_ICorProfilerCallback,
    &IID_ICorProfilerCallback2,
    &IID_ICorProfilerCallback3,
    &IID_ICorProfilerCallback4,
    &IID_ICorProfilerCallback5,
    &IID_ICorProfilerCallback6,
    &IID_ICorProfilerCallback7,
    &IID_ICorProfilerCallback8,
    &IID_ICorProfilerCallback9,
    &IID_ICorProfilerCallback10,
    &IID_ICorProfilerCallback11,
};

static HRESULT callback_QueryInterface(ICorProfilerCallback11 *This, REFIID riid, void **ppvObject) {
  if (!ppvObject || !riid)
    return E_POINTER;
  for (size_t i = 0; i < G_N_ELEMENTS(callback_iids); i++) {
    if (sxs_guid_equal(riid, callback_iids[i])) {
      *ppvObject = This;
      This->lpVtbl->AddRef(This);
      return S_OK;
    }
  }
  *ppvObject = NULL;
  return E_NOINTERFACE;
}

static ULONG callback_AddRef(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  return (ULONG)g_atomic_int_add(&self->refcount, 1) + 1;
}

ICorProfilerInfo15 *sxs__callback_info_enter(SxsCallback *self) {
  __atomic_add_fetch(&self->info_inflight, 1, __ATOMIC_SEQ_CST);
  ICorProfilerInfo15 *info = __atomic_load_n(&self->info, __ATOMIC_SEQ_CST);
  if (!info || __atomic_load_n(&self->info_closed, __ATOMIC_SEQ_CST)) {
    __atomic_sub_fetch(&self->info_inflight, 1, __ATOMIC_SEQ_CST);
    return NULL;
  }
  return info;
}

void sxs__callback_info_leave(SxsCallback *self) {
  __atomic_sub_fetch(&self->info_inflight, 1, __ATOMIC_SEQ_CST);
}

/* With sequentially consistent operations on both sides, a use that saw the guard open was
 * counted before the close, so the wait below sees it. */
gboolean sxs__callback_info_close(SxsCallback *self, int timeout_ms) {
  __atomic_store_n(&self->info_closed, 1, __ATOMIC_SEQ_CST);
  gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
  while (__atomic_load_n(&self->info_inflight, __ATOMIC_SEQ_CST) > 0) {
    if (g_get_monotonic_time() >= deadline)
      return FALSE;
    g_usleep(100);
  }
  return TRUE;
}

/* Instances of profiled runtimes, kept after their last Release (see callback_Release). Guarded
 * by kept_lock; reachable, so leak checkers do not count them. */
static GMutex kept_lock;
static GPtrArray *kept;

/* The last reference is gone. An instance whose runtime was profiled is never freed: the runtime
 * may still call its mapper on a JIT thread, deliver an event, or the manager may be inside one of
 * its operations, after Shutdown (a host that calls coreclr_shutdown() and keeps running). It lets
 * its Info go if Shutdown did not, and stays, inert, until the process ends. A declined instance
 * was never reachable from anywhere else and is freed. */
static ULONG callback_Release(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  gint old = g_atomic_int_add(&self->refcount, -1);
  if (old != 1)
    return (ULONG)(old - 1);
  if (!self->profiled) {
    sxs__importer_cache_fini(&self->importers);
    sxs__dynamic_fini(&self->dynamic);
    g_hash_table_unref(self->unloading);
    g_mutex_clear(&self->unload_lock);
    g_mutex_clear(&self->catchup_lock);
    g_free(self->attach_control);
    if (self->info)
      self->info->lpVtbl->Release(self->info);
    g_free(self);
    return 0;
  }
  if (sxs__callback_info_close(self, 2000)) {
    ICorProfilerInfo15 *info = __atomic_exchange_n(&self->info, NULL, __ATOMIC_SEQ_CST);
    if (info) {
      sxs__importer_cache_clear(&self->importers);
      info->lpVtbl->Release(info);
    }
  }
  g_mutex_lock(&kept_lock);
  if (!kept)
    kept = g_ptr_array_new();
  g_ptr_array_add(kept, self);
  g_mutex_unlock(&kept_lock);
  return 0;
}

/* The highest ICorProfilerInfoN this runtime answers, from 15 down to 3 (Callback3+ profilers
 * need Info3 for GetRuntimeInformation). 0 when it answers none. */
static int query_info(IUnknown *unk, ICorProfilerInfo15 **ret_info) {
  static const GUID *const iids[] = {
      &IID_ICorProfilerInfo15, &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo12,
      &IID_ICorProfilerInfo11, &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo9,  &IID_ICorProfilerInfo8,
      &IID_ICorProfilerInfo7,  &IID_ICorProfilerInfo6,  &IID_ICorProfilerInfo5,  &IID_ICorProfilerInfo4,
      &IID_ICorProfilerInfo3,
  };
  for (size_t i = 0; i < G_N_ELEMENTS(iids); i++) {
    void *p = NULL;
    if (unk->lpVtbl->QueryInterface(unk, iids[i], &p) == S_OK && p) {
      *ret_info = p;
      return 15 - (int)i;
    }
  }
  return 0;
}

/* GetRuntimeInformation's version string ("10.0.12"), or major.minor.build when it gives none. */
static char *clr_version_of(ICorProfilerInfo15 *info) {
  USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
  COR_PRF_RUNTIME_TYPE type = 0;
  WCHAR text[64];
  ULONG len = 0;
  HRESULT hr = info->lpVtbl->GetRuntimeInformation(info, &instance, &type, &major, &minor, &build, &qfe,
                                                   G_N_ELEMENTS(text), &len, text);
  if (hr < 0)
    return NULL;
  if (len > 1 && len <= G_N_ELEMENTS(text)) {
    char *s = sxs__callback_utf8(text, -1);
    if (s && *s)
      return s;
    g_free(s);
  }
  return g_strdup_printf("%u.%u.%u", major, minor, build);
}

/* Initialize and InitializeForAttach: the runtime's capabilities, the policy's decision, the event
 * mask of the features asked for, then the live side open to other threads. */
static HRESULT initialize_runtime(SxsCallback *self, IUnknown *pICorProfilerInfoUnk, gboolean attached) {
  if (!pICorProfilerInfoUnk)
    return E_INVALIDARG;
  /* The periodic flush runs from the first runtime's Initialize, profiled or declined. */
  sxs__output_start();
  ICorProfilerInfo15 *info = NULL;
  int info_version = query_info(pICorProfilerInfoUnk, &info);
  if (info_version == 0) {
    sxs__manager_decline(self->runtime, "the runtime offers no ICorProfilerInfo3 or later");
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }

  /* The Info vtable lies inside the runtime's own libcoreclr.so: that names the runtime, even
   * when two copies of one version are loaded. */
  g_autofree char *path = NULL;
  g_autofree char *version = NULL;
  g_autofree char *clr_version = clr_version_of(info);
  SxsVersionSource source = SXS_VERSION_SOURCE_NONE;
  sxs__modules_path_of((const void *)info->lpVtbl->GetRuntimeInformation, &path);
  /* The product version from the runtime itself, never its CLR version (2.x and 3.x say 4.0.x). */
  sxs__modules_runtime_version(path, clr_version, &version, &source);
  sxs__manager_version_source(self->runtime, sxs__modules_version_source_key(source));

  /* The capability record: the one place that decides what this runtime can do. BASIC_GC came
   * with the runtimes that have Info10 (3.0 and later); older ones ignore unknown high bits
   * silently, so it is not probed by trial. ELT probes exist on Linux x64 from 2.1 on: 2.0
   * accepts the hooks but its JIT emits no probes (it falls back to code without them), so only
   * the version can tell; likewise AllocationSampled, which came with .NET 10 under a keyword older
   * runtimes ignore. */
  SxsCapabilities caps = {
      .info_version = info_version,
      .event_mask2 = info_version >= 5,
      .basic_gc = info_version >= 10,
      .elt3 = info_version >= 3 && sxs__version_at_least(version, 2, 1),
      .suspend = info_version >= 10,
      .code_versions = info_version >= 9,
      .allocation_sampled = info_version >= 12 && sxs__version_at_least(version, 10, 0),
      .attached = attached,
  };
  if (!sxs__manager_initialize(self->runtime, path, version, clr_version, &caps)) {
    info->lpVtbl->Release(info);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }

  __atomic_store_n(&self->info, info, __ATOMIC_SEQ_CST);
  self->profiled = TRUE;
  sxs__timeline_rec_event(SXS_TIMELINE_RUNTIME_START, self->runtime->id, sxs__callback_os_tid(),
                          sxs__timeline_rec_now_us(), 0, 0, attached ? 1 : 0, NULL, 0);
  /* Before the features: the inventory queues here, and a stack's frame may be named later. */
  self->names = sxs__naming_queue_new(self->runtime, &sxs__callback_ops, self);

  HRESULT hr = sxs__features_run(self, info, &caps);
  if (hr < 0) {
    g_autofree char *why = g_strdup_printf("SetEventMask failed with 0x%08X", (unsigned)hr);
    sxs__manager_decline(self->runtime, why);
    /* Nothing outside this thread has the Info yet (the ops are not attached), but the guard is
     * closed and drained all the same before the reference goes. */
    if (sxs__callback_info_close(self, 2000)) {
      __atomic_store_n(&self->info, NULL, __ATOMIC_SEQ_CST);
      info->lpVtbl->Release(info);
    }
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  /* Only now may other threads reach this runtime's live side: its event mask is set. */
  sxs__manager_attach_ops(self->runtime, &sxs__callback_ops, self);
  sxs__stacks_code_changed();
  sxs__sampler_start(sxs__manager_config());
  return S_OK;
}

static HRESULT callback_Initialize(ICorProfilerCallback11 *This, IUnknown *pICorProfilerInfoUnk) {
  return initialize_runtime(impl_from_ICorProfilerCallback11(This), pICorProfilerInfoUnk, FALSE);
}

/* The runtime is going away: write the profile now, and let go of its Info, which must not be
 * touched once the runtime has shut down (not even by a late Release of this object). JIT and
 * module events may still be running on other threads: the guard waits for them. */
static HRESULT callback_Shutdown(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  sxs__timeline_rec_event(SXS_TIMELINE_RUNTIME_STOP, self->runtime->id, sxs__callback_os_tid(),
                          sxs__timeline_rec_now_us(), 0, 0, 0, NULL, 0);
  /* The sampler's last captures, and what is queued for naming, are named while the Info still
   * answers. */
  sxs__output_runtime_stopping(self->runtime);
  if (self->names && !sxs__naming_drain(self->names, 2000))
    sxs__manager_log("runtime %d: the functions queued were not named 2 s into Shutdown; what is left is dropped",
                     self->runtime->id);
  gboolean drained = sxs__callback_info_close(self, 2000);
  if (self->trace)
    sxs__trace_runtime_shutdown(self->trace);
  sxs__output_runtime_shutdown(self->runtime);
  sxs__stacks_code_changed();
  ICorProfilerInfo15 *info = __atomic_exchange_n(&self->info, NULL, __ATOMIC_SEQ_CST);
  if (!drained) {
    /* A use that did not finish in 2 s: better keep the reference (and the importers it may be
     * using) than release them under it. */
    sxs__manager_log("runtime %d: a use of its profiling interface was still running 2 s into Shutdown; "
                     "its reference is kept",
                     self->runtime->id);
    return S_OK;
  }
  sxs__importer_cache_clear(&self->importers);
  if (info)
    info->lpVtbl->Release(info);
  return S_OK;
}

/* A module's path (NULL when the runtime gives none) and its COR_PRF_MODULE_FLAGS, in one
 * GetModuleInfo2. FALSE when the runtime does not answer. */
static gboolean module_info(ICorProfilerInfo15 *info, ModuleID module_id, char **ret_path, DWORD *ret_flags) {
  WCHAR path[1024] = {0};
  ULONG len = 0;
  LPCBYTE base = NULL;
  AssemblyID assembly = 0;
  DWORD flags = 0;
  if (info->lpVtbl->GetModuleInfo2(info, module_id, &base, G_N_ELEMENTS(path), &len, path, &assembly, &flags) < 0)
    return FALSE;
  char *utf8 = sxs__callback_utf8(path, -1);
  if (utf8 && !*utf8)
    g_clear_pointer(&utf8, g_free);
  *ret_path = utf8;
  *ret_flags = flags;
  return TRUE;
}

gboolean sxs__callback_module_info(ICorProfilerInfo15 *info, ModuleID module_id, char **ret_name, DWORD *ret_flags) {
  g_autofree char *path = NULL;
  if (!module_info(info, module_id, &path, ret_flags))
    return FALSE;
  *ret_name = path ? g_path_get_basename(path) : NULL;
  return TRUE;
}

char *sxs__callback_module_path(ICorProfilerInfo15 *info, ModuleID module_id) {
  char *path = NULL;
  DWORD flags = 0;
  return module_info(info, module_id, &path, &flags) ? path : NULL;
}

/* Names a module and records it. FALSE when the runtime is shutting down. */
static gboolean record_module(SxsCallback *self, ModuleID moduleId) {
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return FALSE;
  g_autofree char *name = NULL;
  DWORD flags = 0;
  sxs__callback_module_info(info, moduleId, &name, &flags);
  sxs__callback_info_leave(self);
  sxs__manager_record_module(self->runtime, moduleId, name);
  sxs__timeline_rec_event(SXS_TIMELINE_MODULE_LOAD, self->runtime->id, sxs__callback_os_tid(),
                          sxs__timeline_rec_now_us(), 0, 0, 0, name ? g_intern_string(name) : NULL, 0);
  return TRUE;
}

static HRESULT callback_ModuleLoadFinished(ICorProfilerCallback11 *This, ModuleID moduleId, HRESULT hrStatus) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (hrStatus < 0)
    return S_OK;
  /* A new module may take the ID of one unloaded before. */
  g_mutex_lock(&self->unload_lock);
  g_hash_table_remove(self->unloading, GSIZE_TO_POINTER(moduleId));
  g_mutex_unlock(&self->unload_lock);
  record_module(self, moduleId);
  return S_OK;
}

/* A module's importer is let go before the module is: its ModuleID may be reused. The functions
 * queued for naming are named first, while the module's metadata is still there. */
static HRESULT callback_ModuleUnloadStarted(ICorProfilerCallback11 *This, ModuleID moduleId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->names)
    sxs__naming_module_unloading(self->names, 2000);
  /* The attach catch-up holds catchup_lock while it walks the runtime's lists and queries their
   * IDs: an unload waits until it is done (the runtime frees a module only after this callback
   * returns), but never more than 2 s, should a query wait for something this thread holds; the
   * catch-up then stops querying. */
  gint64 deadline = g_get_monotonic_time() + 2 * G_TIME_SPAN_SECOND;
  gboolean locked;
  while (!(locked = g_mutex_trylock(&self->catchup_lock)) && g_get_monotonic_time() < deadline)
    g_usleep(200);
  if (!locked)
    g_atomic_int_set(&self->unload_forced, 1);
  g_mutex_lock(&self->unload_lock);
  g_hash_table_add(self->unloading, GSIZE_TO_POINTER(moduleId));
  g_mutex_unlock(&self->unload_lock);
  if (locked)
    g_mutex_unlock(&self->catchup_lock);
  sxs__counter_add(&self->runtime->counters.modules_unloaded);
  sxs__importer_cache_forget(&self->importers, moduleId);
  return S_OK;
}

/* A collectible module's code is going: code addresses the stacks learned may be reused. */
static HRESULT callback_ModuleUnloadFinished(ICorProfilerCallback11 *This, ModuleID moduleId, HRESULT hrStatus) {
  sxs__stacks_code_changed();
  return S_OK;
}

/* Records the thread's stack for an event when [stacks] on= asks for that event. A runtime that
 * has begun to shut down is not asked to walk (the manager's list leaves it out, and its guard
 * answers no), but the event is still counted and the other runtimes walked. */
static void maybe_record_stack(SxsCallback *self, SxsStackEvents event) {
  const SxsConfig *cfg = sxs__manager_config();
  if (cfg && (cfg->stacks_on & event) && !sxs__manager_quiet())
    sxs__stacks_record(event);
}

/* The JIT compilations under way on this thread (one may start another: a class constructor run
 * for the code being compiled), for the timeline. */
#define JIT_OPEN_MAX 4
static __thread struct {
  guint64 start_us;
  FunctionID function_id;
} jit_open[JIT_OPEN_MAX];
static __thread int jit_depth;

static HRESULT callback_JITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId,
                                              BOOL fIsSafeToBlock) {
  if (jit_depth < JIT_OPEN_MAX) {
    jit_open[jit_depth].start_us = sxs__timeline_rec_now_us();
    jit_open[jit_depth].function_id = functionId;
  }
  jit_depth++;
  maybe_record_stack(impl_from_ICorProfilerCallback11(This), SXS_STACKS_JIT);
  return S_OK;
}

/* With the inventory on, one append to its queue (named later on the profiler's own thread);
 * without it (the event may be on for [stacks] on=jit, or sampling), nothing; and the compilation
 * on the timeline. Context: a JIT thread. */
static HRESULT callback_JITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId, HRESULT hrStatus,
                                               BOOL fIsSafeToBlock) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->inventory && hrStatus >= 0)
    sxs__naming_add(self->names, functionId, SXS_CODE_JIT);
  if (jit_depth > 0 && --jit_depth < JIT_OPEN_MAX && jit_open[jit_depth].function_id == functionId) {
    guint64 now = sxs__timeline_rec_now_us(), start = jit_open[jit_depth].start_us;
    sxs__timeline_rec_event(SXS_TIMELINE_JIT, self->runtime->id, sxs__callback_os_tid(), start,
                            now > start ? now - start : 0, (guint64)functionId, hrStatus < 0 ? 1 : 0, NULL, 0);
  }
  return S_OK;
}

/* The runtime asks whether to use a function's precompiled (ReadyToRun) code: always yes. */
static HRESULT callback_JITCachedFunctionSearchStarted(ICorProfilerCallback11 *This, FunctionID functionId,
                                                       BOOL *pbUseCachedFunction) {
  if (pbUseCachedFunction)
    *pbUseCachedFunction = TRUE;
  return S_OK;
}

/* A precompiled function is about to run for the first time: most of the framework (Kestrel,
 * the compiler) runs such code and is never JIT-compiled, so this is how the inventory lists it
 * (cache searches are asked for by the inventory alone). Context: the calling thread, in the
 * loader; one append. */
static HRESULT callback_JITCachedFunctionSearchFinished(ICorProfilerCallback11 *This, FunctionID functionId,
                                                        COR_PRF_JIT_CACHE result) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->inventory && result == COR_PRF_CACHED_FUNCTION_FOUND)
    sxs__naming_add(self->names, functionId, SXS_CODE_PRECOMPILED);
  return S_OK;
}

/* A function whose code only ever exists inlined into its callers (a small lambda, a property)
 * is still listed by the inventory. The JIT's decision is left as it is. Context: a JIT thread;
 * one append, or nothing when the inventory is off. */
static HRESULT callback_JITInlining(ICorProfilerCallback11 *This, FunctionID callerId, FunctionID calleeId,
                                    BOOL *pfShouldInline) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->inventory)
    sxs__naming_add(self->names, calleeId, SXS_CODE_INLINED);
  return S_OK;
}

static HRESULT callback_ThreadCreated(ICorProfilerCallback11 *This, ThreadID threadId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  sxs__sampler_thread_created(self->runtime->id, threadId);
  sxs__manager_thread_created(self->runtime, threadId);
  return S_OK;
}

static HRESULT callback_ThreadDestroyed(ICorProfilerCallback11 *This, ThreadID threadId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  guint64 at = sxs__timeline_rec_now_us();
  sxs__sampler_thread_destroyed(self->runtime->id, threadId);
  /* The thread that ended, not the one that says so (often the finalizer). */
  uint32_t os_tid = sxs__manager_thread_destroyed(self->runtime, threadId);
  if (os_tid) {
    sxs__timeline_rec_event(SXS_TIMELINE_THREAD_END, self->runtime->id, os_tid, at, 0, 0, 0, NULL, 0);
    sxs__activity_thread_gone(os_tid);
  }
  return S_OK;
}

static HRESULT callback_ThreadAssignedToOSThread(ICorProfilerCallback11 *This, ThreadID managedThreadId,
                                                 DWORD osThreadId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  sxs__timeline_rec_event(SXS_TIMELINE_THREAD_START, self->runtime->id, (uint32_t)osThreadId,
                          sxs__timeline_rec_now_us(), 0, 0, 0, NULL, 0);
  sxs__manager_thread_os_id(self->runtime, managedThreadId, osThreadId);
  return S_OK;
}

static HRESULT callback_ThreadNameChanged(ICorProfilerCallback11 *This, ThreadID threadId, ULONG cchName,
                                          WCHAR name[]) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  g_autofree char *utf8 = name ? sxs__callback_utf8(name, cchName) : NULL;
  sxs__manager_thread_named(self->runtime, threadId, utf8);
  return S_OK;
}

/* The type of a thrown object, named by its own runtime; NULL when that cannot be done (the
 * runtime is shutting down, or its metadata does not answer). */
static char *exception_type(SxsCallback *self, ObjectID object) {
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return NULL;
  char *name = NULL;
  ClassID class_id = 0;
  if (info->lpVtbl->GetClassFromObject(info, object, &class_id) >= 0 && class_id != 0)
    sxs__callback_class_name(info, &self->importers, class_id, &name);
  sxs__callback_info_leave(self);
  return name;
}

/* Counted always; with [exceptions] enabled=true, typed and its throwing stack recorded.
 * Context: the throwing thread; the counter is lock-free, the profile takes locks. */
static HRESULT callback_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID thrownObjectId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  sxs__counter_add(&self->runtime->counters.exceptions);
  maybe_record_stack(self, SXS_STACKS_EXCEPTION);
  if (self->profiles_on[SXS_PROFILE_EXCEPTIONS] && !sxs__manager_quiet()) {
    g_autofree char *type = exception_type(self, thrownObjectId);
    sxs__events_exception(self->runtime, type);
  }
  return S_OK;
}

/* An exception unwinds a frame: no Leave hook comes for it, so its shadow-stack frame is popped
 * here. Context: the throwing thread. */
static HRESULT callback_ExceptionUnwindFunctionEnter(ICorProfilerCallback11 *This, FunctionID functionId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->trace)
    sxs__trace_unwind_enter(self->trace, functionId);
  return S_OK;
}

static HRESULT callback_ExceptionUnwindFunctionLeave(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->trace)
    sxs__trace_unwind_leave(self->trace);
  return S_OK;
}

/* Context: the GC thread with the runtime suspended: atomics, and the timeline's leaf lock (which no
 * thread the suspension stopped can hold: a thread in cooperative mode stops only at a safe point
 * of managed code, never inside the profiler). */
static HRESULT callback_GarbageCollectionStarted(ICorProfilerCallback11 *This, int cGenerations,
                                                 BOOL generationCollected[], COR_PRF_GC_REASON reason) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  sxs__counter_add(&self->runtime->counters.gcs);
  int generation = 0;
  for (int g = 0; g < MIN(cGenerations, 3); g++)
    if (generationCollected[g])
      generation = g;
  if (self->gc_depth < (int)G_N_ELEMENTS(self->gc_open)) {
    self->gc_open[self->gc_depth].start_us = sxs__timeline_rec_now_us();
    self->gc_open[self->gc_depth].generation = generation;
    self->gc_open[self->gc_depth].reason = (int)reason;
  }
  self->gc_depth++;
  maybe_record_stack(self, SXS_STACKS_GC);
  /* A collection may free dynamic methods' code, whose addresses new code can then take. */
  sxs__stacks_code_changed();
  return S_OK;
}

/* sxsprof attach asked the running runtime to load the profiler: the client data names the config
 * and the control socket. Events are on from here; what happened before is caught up in
 * ProfilerAttachComplete. */
static HRESULT callback_InitializeForAttach(ICorProfilerCallback11 *This, IUnknown *pCorProfilerInfoUnk,
                                            void *pvClientData, UINT cbClientData) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  SxsAttachRequest req = {0};
  g_autofree char *why = NULL;
  if (sxs__attach_request_parse(pvClientData, cbClientData, &req, &why) < 0 ||
      sxs__output_attach_config(req.config, req.run_id, &why) < 0) {
    g_autofree char *reason = g_strdup_printf("attach declined: %s", why);
    sxs__manager_decline(self->runtime, reason);
    sxs__attach_request_clear(&req);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  self->attach_control = g_steal_pointer(&req.control);
  sxs__attach_request_clear(&req);
  return initialize_runtime(self, pCorProfilerInfoUnk, TRUE);
}

/* The runtime is attached and sending events: catch up with what it loaded before (sxs_catchup.c),
 * then the control thread tells sxsprof attach. */
static HRESULT callback_ProfilerAttachComplete(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  guint modules = 0, functions = 0;
  sxs__catchup_run(self, &modules, &functions);
  sxs__manager_log("runtime %d: attached; caught up with %u modules and %u JIT-compiled functions%s", self->runtime->id,
                   modules, functions, self->inventory ? "" : " (the inventory is off)");
  if (self->attach_control) {
    g_autofree char *hello = g_strdup_printf("attached %d %s modules=%u functions=%u\n", self->runtime->id,
                                             self->runtime->version ? self->runtime->version : "?", modules, functions);
    sxs__attach_control_start(self->attach_control, hello);
  }
  return S_OK;
}

static HRESULT callback_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *pbNotificationOnly) {
  if (pbNotificationOnly)
    *pbNotificationOnly = FALSE;
  return S_OK;
}

/* Callbacks the profile does not use: each answers S_OK and does nothing. Some come with events
 * the mask enables for other callbacks (module loads, exceptions, GCs), and a runtime may call
 * some regardless (e.g. AppDomain and assembly events). This file is built without
 * unused-parameter warnings (callback/CMakeLists.txt): a method takes what the IDL gives. */
static HRESULT callback_AppDomainCreationStarted(ICorProfilerCallback11 *This, AppDomainID appDomainId) {
  return S_OK;
}
static HRESULT callback_AppDomainCreationFinished(ICorProfilerCallback11 *This, AppDomainID appDomainId,
                                                  HRESULT hrStatus) {
  return S_OK;
}
static HRESULT callback_AppDomainShutdownStarted(ICorProfilerCallback11 *This, AppDomainID appDomainId) {
  return S_OK;
}
static HRESULT callback_AppDomainShutdownFinished(ICorProfilerCallback11 *This, AppDomainID appDomainId,
                                                  HRESULT hrStatus) {
  return S_OK;
}
static HRESULT callback_AssemblyLoadStarted(ICorProfilerCallback11 *This, AssemblyID assemblyId) {
  return S_OK;
}
static HRESULT callback_AssemblyLoadFinished(ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus) {
  return S_OK;
}
static HRESULT callback_AssemblyUnloadStarted(ICorProfilerCallback11 *This, AssemblyID assemblyId) {
  return S_OK;
}
static HRESULT callback_AssemblyUnloadFinished(ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus) {
  return S_OK;
}
static HRESULT callback_ModuleLoadStarted(ICorProfilerCallback11 *This, ModuleID moduleId) {
  return S_OK;
}
static HRESULT callback_ModuleAttachedToAssembly(ICorProfilerCallback11 *This, ModuleID moduleId,
                                                 AssemblyID AssemblyId) {
  return S_OK;
}
static HRESULT callback_ClassLoadStarted(ICorProfilerCallback11 *This, ClassID classId) {
  return S_OK;
}
static HRESULT callback_ClassLoadFinished(ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus) {
  return S_OK;
}
static HRESULT callback_ClassUnloadStarted(ICorProfilerCallback11 *This, ClassID classId) {
  return S_OK;
}
static HRESULT callback_ClassUnloadFinished(ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus) {
  return S_OK;
}
static HRESULT callback_FunctionUnloadStarted(ICorProfilerCallback11 *This, FunctionID functionId) {
  return S_OK;
}
static HRESULT callback_JITFunctionPitched(ICorProfilerCallback11 *This, FunctionID functionId) {
  return S_OK;
}
static HRESULT callback_RemotingClientInvocationStarted(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_RemotingClientSendingMessage(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  return S_OK;
}
static HRESULT callback_RemotingClientReceivingReply(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  return S_OK;
}
static HRESULT callback_RemotingClientInvocationFinished(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_RemotingServerReceivingMessage(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  return S_OK;
}
static HRESULT callback_RemotingServerInvocationStarted(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_RemotingServerInvocationReturned(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_RemotingServerSendingReply(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  return S_OK;
}
static HRESULT callback_UnmanagedToManagedTransition(ICorProfilerCallback11 *This, FunctionID functionId,
                                                     COR_PRF_TRANSITION_REASON reason) {
  return S_OK;
}
static HRESULT callback_ManagedToUnmanagedTransition(ICorProfilerCallback11 *This, FunctionID functionId,
                                                     COR_PRF_TRANSITION_REASON reason) {
  return S_OK;
}
/* A suspension for a GC opens a pause on the timeline; RuntimeResumeFinished closes it. */
static HRESULT callback_RuntimeSuspendStarted(ICorProfilerCallback11 *This, COR_PRF_SUSPEND_REASON suspendReason) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (suspendReason == COR_PRF_SUSPEND_FOR_GC || suspendReason == COR_PRF_SUSPEND_FOR_GC_PREP)
    self->gc_suspend_start_us = sxs__timeline_rec_now_us();
  return S_OK;
}
static HRESULT callback_RuntimeSuspendFinished(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_RuntimeSuspendAborted(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  self->gc_suspend_start_us = 0;
  return S_OK;
}
static HRESULT callback_RuntimeResumeStarted(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_RuntimeResumeFinished(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  guint64 start = self->gc_suspend_start_us;
  if (start) {
    self->gc_suspend_start_us = 0;
    guint64 now = sxs__timeline_rec_now_us();
    sxs__timeline_rec_event(SXS_TIMELINE_PAUSE, self->runtime->id, sxs__callback_os_tid(), start,
                            now > start ? now - start : 0, 0, 0, NULL, 0);
  }
  return S_OK;
}
static HRESULT callback_RuntimeThreadSuspended(ICorProfilerCallback11 *This, ThreadID threadId) {
  return S_OK;
}
static HRESULT callback_RuntimeThreadResumed(ICorProfilerCallback11 *This, ThreadID threadId) {
  return S_OK;
}
static HRESULT callback_MovedReferences(ICorProfilerCallback11 *This, ULONG cMovedObjectIDRanges,
                                        ObjectID oldObjectIDRangeStart[], ObjectID newObjectIDRangeStart[],
                                        ULONG cObjectIDRangeLength[]) {
  return S_OK;
}
static HRESULT callback_ObjectAllocated(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId) {
  return S_OK;
}
static HRESULT callback_ObjectsAllocatedByClass(ICorProfilerCallback11 *This, ULONG cClassCount, ClassID classIds[],
                                                ULONG cObjects[]) {
  return S_OK;
}
static HRESULT callback_ObjectReferences(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId,
                                         ULONG cObjectRefs, ObjectID objectRefIds[]) {
  return S_OK;
}
static HRESULT callback_RootReferences(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID rootRefIds[]) {
  return S_OK;
}
static HRESULT callback_ExceptionSearchFunctionEnter(ICorProfilerCallback11 *This, FunctionID functionId) {
  return S_OK;
}
static HRESULT callback_ExceptionSearchFunctionLeave(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_ExceptionSearchFilterEnter(ICorProfilerCallback11 *This, FunctionID functionId) {
  return S_OK;
}
static HRESULT callback_ExceptionSearchFilterLeave(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_ExceptionSearchCatcherFound(ICorProfilerCallback11 *This, FunctionID functionId) {
  return S_OK;
}
static HRESULT callback_ExceptionOSHandlerEnter(ICorProfilerCallback11 *This, UINT_PTR unused) {
  return S_OK;
}
static HRESULT callback_ExceptionOSHandlerLeave(ICorProfilerCallback11 *This, UINT_PTR unused) {
  return S_OK;
}
static HRESULT callback_ExceptionUnwindFinallyEnter(ICorProfilerCallback11 *This, FunctionID functionId) {
  return S_OK;
}
static HRESULT callback_ExceptionUnwindFinallyLeave(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_ExceptionCatcherEnter(ICorProfilerCallback11 *This, FunctionID functionId, ObjectID objectId) {
  return S_OK;
}
static HRESULT callback_ExceptionCatcherLeave(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_COMClassicVTableCreated(ICorProfilerCallback11 *This, ClassID wrappedClassId,
                                                REFGUID implementedIID, void *pVTable, ULONG cSlots) {
  return S_OK;
}
static HRESULT callback_COMClassicVTableDestroyed(ICorProfilerCallback11 *This, ClassID wrappedClassId,
                                                  REFGUID implementedIID, void *pVTable) {
  return S_OK;
}
static HRESULT callback_ExceptionCLRCatcherFound(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_ExceptionCLRCatcherExecute(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_SurvivingReferences(ICorProfilerCallback11 *This, ULONG cSurvivingObjectIDRanges,
                                            ObjectID objectIDRangeStart[], ULONG cObjectIDRangeLength[]) {
  return S_OK;
}
/* Context: the GC thread with the runtime suspended (or a background GC's thread). */
static HRESULT callback_GarbageCollectionFinished(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->gc_depth <= 0)
    return S_OK;
  int d = --self->gc_depth;
  if (d < (int)G_N_ELEMENTS(self->gc_open)) {
    guint64 now = sxs__timeline_rec_now_us(), start = self->gc_open[d].start_us;
    sxs__timeline_rec_event(SXS_TIMELINE_GC, self->runtime->id, sxs__callback_os_tid(), start,
                            now > start ? now - start : 0, (guint64)self->gc_open[d].generation,
                            self->gc_open[d].reason, NULL, 0);
  }
  return S_OK;
}
static HRESULT callback_FinalizeableObjectQueued(ICorProfilerCallback11 *This, DWORD finalizerFlags,
                                                 ObjectID objectID) {
  return S_OK;
}
static HRESULT callback_RootReferences2(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID rootRefIds[],
                                        COR_PRF_GC_ROOT_KIND rootKinds[], COR_PRF_GC_ROOT_FLAGS rootFlags[],
                                        UINT_PTR rootIds[]) {
  return S_OK;
}
static HRESULT callback_HandleCreated(ICorProfilerCallback11 *This, GCHandleID handleId, ObjectID initialObjectId) {
  return S_OK;
}
static HRESULT callback_HandleDestroyed(ICorProfilerCallback11 *This, GCHandleID handleId) {
  return S_OK;
}
static HRESULT callback_ProfilerDetachSucceeded(ICorProfilerCallback11 *This) {
  return S_OK;
}
static HRESULT callback_ReJITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId,
                                                BOOL fIsSafeToBlock) {
  return S_OK;
}
static HRESULT callback_GetReJITParameters(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId,
                                           ICorProfilerFunctionControl *pFunctionControl) {
  return S_OK;
}
static HRESULT callback_ReJITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId,
                                                 HRESULT hrStatus, BOOL fIsSafeToBlock) {
  return S_OK;
}
static HRESULT callback_ReJITError(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId,
                                   FunctionID functionId, HRESULT hrStatus) {
  return S_OK;
}
static HRESULT callback_MovedReferences2(ICorProfilerCallback11 *This, ULONG cMovedObjectIDRanges,
                                         ObjectID oldObjectIDRangeStart[], ObjectID newObjectIDRangeStart[],
                                         SIZE_T cObjectIDRangeLength[]) {
  return S_OK;
}
static HRESULT callback_SurvivingReferences2(ICorProfilerCallback11 *This, ULONG cSurvivingObjectIDRanges,
                                             ObjectID objectIDRangeStart[], SIZE_T cObjectIDRangeLength[]) {
  return S_OK;
}
static HRESULT callback_ConditionalWeakTableElementReferences(ICorProfilerCallback11 *This, ULONG cRootRefs,
                                                              ObjectID keyRefIds[], ObjectID valueRefIds[],
                                                              GCHandleID rootIds[]) {
  return S_OK;
}
static HRESULT callback_GetAssemblyReferences(ICorProfilerCallback11 *This, const WCHAR *wszAssemblyPath,
                                              ICorProfilerAssemblyReferenceProvider *pAsmRefProvider) {
  return S_OK;
}
static HRESULT callback_ModuleInMemorySymbolsUpdated(ICorProfilerCallback11 *This, ModuleID moduleId) {
  return S_OK;
}
static HRESULT callback_DynamicMethodJITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId,
                                                           BOOL fIsSafeToBlock, LPCBYTE pILHeader, ULONG cbILHeader) {
  return S_OK;
}
/* While sampling, a dynamic method's code is noted (sxs_dynamic.c): its frames are then named and walked. Context: the
 * JIT's thread. */
static HRESULT callback_DynamicMethodJITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId,
                                                            HRESULT hrStatus, BOOL fIsSafeToBlock) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (!self->dynamic_on || hrStatus < 0)
    return S_OK;
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (info) {
    sxs__dynamic_add(&self->dynamic, info, functionId);
    sxs__callback_info_leave(self);
  }
  return S_OK;
}
static HRESULT callback_DynamicMethodUnloaded(ICorProfilerCallback11 *This, FunctionID functionId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (self->dynamic_on)
    sxs__dynamic_remove(&self->dynamic, functionId);
  return S_OK;
}
/* Events of the runtime's provider (Microsoft-Windows-DotNETRuntime) that our EventPipe session
 * asked for (sxs_features.c), delivered synchronously on the thread that raised them:
 *   ContentionStart (81): ContentionFlags u8, ClrInstanceID u16 [V2: LockID, AssociatedObjectID,
 *                         LockOwnerThreadID], raised by the waiting thread as its wait begins;
 *   ContentionStop (91):  ContentionFlags u8, ClrInstanceID u16 [V1 (.NET 8): DurationNs double],
 *                         raised by the same thread once it holds the lock;
 *   GCAllocationTick (10), V2 and later: AllocationAmount u32, AllocationKind u32, ClrInstanceID
 *                         u16, AllocationAmount64 u64, TypeID pointer, TypeName NUL-terminated
 *                         UTF-16, HeapIndex u32 [V3: Address pointer] [V4: ObjectSize u64], raised
 *                         by the allocating thread about every 100 KB;
 *   GCHeapStats (4), V1:  GenerationSize0 u64, TotalPromotedSize0 u64, the same two for generations
 *                         1, 2 and 3 (large objects), FinalizationPromotedSize u64,
 *                         FinalizationPromotedCount u64, PinnedObjectCount u32, SinkBlockCount u32,
 *                         GCHandleCount u32, ClrInstanceID u16 [V2 (.NET 5): GenerationSize4 u64
 *                         (pinned objects), TotalPromotedSize4 u64], raised at the end of each GC
 *                         by the thread that ran it, the runtime suspended;
 *   AllocationSampled (303), .NET 10: AllocationKind u32, ClrInstanceID u16, TypeID pointer, TypeName
 *                         NUL-terminated UTF-16, Address pointer, ObjectSize u64, SampledByteOffset
 *                         u64, raised by the allocating thread for each object sampled.
 * Payloads are packed, little-endian. Context: the thread that raised the event. */
#define SXS_EVENT_CONTENTION_START 81
#define SXS_EVENT_CONTENTION_STOP 91
#define SXS_EVENT_ALLOCATION_TICK 10
#define SXS_EVENT_GC_HEAP_STATS 4
#define SXS_EVENT_ALLOCATION_SAMPLED 303

/* The NUL-terminated UTF-16 string at `at` of a payload, as UTF-8 (caller frees), and the offset
 * just past its NUL. FALSE when the payload ends before the NUL. */
static gboolean payload_utf16(LPCBYTE data, gsize len, gsize at, char **ret_text, gsize *ret_after) {
  gsize chars = 0;
  while (at + 2 * chars + 1 < len && (data[at + 2 * chars] || data[at + 2 * chars + 1]))
    chars++;
  if (at + 2 * chars + 1 >= len)
    return FALSE;
  g_autofree gunichar2 *name = g_new(gunichar2, chars + 1);
  memcpy(name, data + at, 2 * chars);
  name[chars] = 0;
  *ret_text = g_utf16_to_utf8(name, (glong)chars, NULL, NULL, NULL);
  *ret_after = at + 2 * (chars + 1);
  return TRUE;
}

/* An AllocationSampled payload: the type's name (UTF-8, caller frees) and the object's size. FALSE
 * when it is too short or malformed. */
static gboolean allocation_sampled(LPCBYTE data, ULONG len, char **ret_type, guint64 *ret_size) {
  const gsize name_at = 4 + 2 + sizeof(void *);
  g_autofree char *type = NULL;
  gsize after = 0;
  if (!data || len < name_at + 2 || !payload_utf16(data, len, name_at, &type, &after))
    return FALSE;
  guint64 size;
  if (len < after + sizeof(void *) + sizeof size)
    return FALSE;
  memcpy(&size, data + after + sizeof(void *), sizeof size);
  *ret_type = g_steal_pointer(&type);
  *ret_size = size;
  return TRUE;
}

/* The generations' sizes of a GCHeapStats payload added up; FALSE when it is too short. */
static gboolean heap_stats(DWORD version, LPCBYTE data, ULONG len, guint64 *ret_bytes) {
  const gsize v1_len = 8 * 8 + 8 + 8 + 4 + 4 + 4 + 2, gen4_at = v1_len;
  if (!data || len < v1_len)
    return FALSE;
  guint64 bytes = 0, size;
  for (int gen = 0; gen < 4; gen++) {
    memcpy(&size, data + 16 * gen, sizeof size);
    bytes += size;
  }
  if (version >= 2 && len >= gen4_at + sizeof size) {
    memcpy(&size, data + gen4_at, sizeof size);
    bytes += size;
  }
  *ret_bytes = bytes;
  return TRUE;
}

/* An allocation tick's payload: the bytes it stands for, the type's name (UTF-8, caller frees), the
 * object's size (0 when the event is older than V4). FALSE when it is too short or malformed. */
static gboolean allocation_tick(DWORD version, LPCBYTE data, ULONG len, guint64 *ret_bytes, char **ret_type,
                                guint64 *ret_size) {
  const gsize name_at = 4 + 4 + 2 + 8 + sizeof(void *);
  if (version < 2 || !data || len < name_at + 2)
    return FALSE;
  guint64 bytes;
  memcpy(&bytes, data + 10, sizeof bytes);
  g_autofree char *type = NULL;
  gsize after = 0;
  if (!payload_utf16(data, len, name_at, &type, &after))
    return FALSE;
  after += 4; /* HeapIndex */
  guint64 size = 0;
  if (version >= 4 && len >= after + sizeof(void *) + sizeof size)
    memcpy(&size, data + after + sizeof(void *), sizeof size);
  *ret_bytes = bytes;
  *ret_type = g_steal_pointer(&type);
  *ret_size = size;
  return TRUE;
}
/* The endpoints' events (sxs_features.c), by provider:
 *   Microsoft.AspNetCore.Hosting: RequestStart (3): Method, Path, NUL-terminated UTF-16 strings;
 *                         RequestStop (4), the request's activity ID each;
 *   System.Threading.Tasks.TplEventSource: TraceOperationBegin (14): TaskID i32, OperationName
 *                         string, RelatedContext i64; TraceOperationEnd (15): TaskID i32, Status
 *                         i32; TraceSynchronousWorkBegin (17): TaskID i32, Work i32;
 *                         TraceSynchronousWorkEnd (18): Work i32;
 *   System.Diagnostics.Metrics: CounterRateValuePublished (4): SessionId, MeterName, MeterVersion,
 *                         InstrumentName, Unit, Tags ("k=v,k=v"), then the values; the routing's
 *                         match counter carries the route template a request matched (tag
 *                         http.route). */
#define SXS_EVENT_REQUEST_START 3
#define SXS_EVENT_REQUEST_STOP 4
#define SXS_EVENT_OPERATION_BEGIN 14
#define SXS_EVENT_OPERATION_END 15
#define SXS_EVENT_WORK_BEGIN 17
#define SXS_EVENT_WORK_END 18
#define SXS_EVENT_COUNTER_PUBLISHED 4

typedef enum { PROVIDER_RUNTIME, PROVIDER_HOSTING, PROVIDER_TPL, PROVIDER_METRICS } ProviderKind;

/* Which provider an event came from: its handle as learnt, else its name asked once. */
static ProviderKind provider_kind(SxsCallback *self, EVENTPIPE_PROVIDER provider) {
  if (!self->endpoints_on)
    return PROVIDER_RUNTIME;
  if (provider == __atomic_load_n(&self->hosting_provider, __ATOMIC_ACQUIRE))
    return PROVIDER_HOSTING;
  if (provider == __atomic_load_n(&self->tpl_provider, __ATOMIC_ACQUIRE))
    return PROVIDER_TPL;
  if (provider == __atomic_load_n(&self->metrics_provider, __ATOMIC_ACQUIRE))
    return PROVIDER_METRICS;
  for (guint i = 0; i < G_N_ELEMENTS(self->other_providers); i++)
    if (provider == __atomic_load_n(&self->other_providers[i], __ATOMIC_ACQUIRE))
      return PROVIDER_RUNTIME;
  /* Through the Info guard: an event may come while Shutdown lets the Info go. */
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  WCHAR name[128];
  ULONG n = 0;
  HRESULT hr = info ? info->lpVtbl->EventPipeGetProviderInfo(info, provider, G_N_ELEMENTS(name), &n, name) : E_FAIL;
  if (info)
    sxs__callback_info_leave(self);
  if (hr < 0)
    return PROVIDER_RUNTIME;
  g_autofree char *utf8 =
      g_utf16_to_utf8((const gunichar2 *)name, MIN((glong)n, (glong)G_N_ELEMENTS(name)), NULL, NULL, NULL);
  if (g_strcmp0(utf8, "Microsoft.AspNetCore.Hosting") == 0) {
    __atomic_store_n(&self->hosting_provider, provider, __ATOMIC_RELEASE);
    return PROVIDER_HOSTING;
  }
  if (g_strcmp0(utf8, "System.Threading.Tasks.TplEventSource") == 0) {
    __atomic_store_n(&self->tpl_provider, provider, __ATOMIC_RELEASE);
    return PROVIDER_TPL;
  }
  if (g_strcmp0(utf8, "System.Diagnostics.Metrics") == 0) {
    __atomic_store_n(&self->metrics_provider, provider, __ATOMIC_RELEASE);
    return PROVIDER_METRICS;
  }
  for (guint i = 0; i < G_N_ELEMENTS(self->other_providers); i++) {
    EVENTPIPE_PROVIDER none = 0;
    if (__atomic_compare_exchange_n(&self->other_providers[i], &none, provider, FALSE, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
      break;
  }
  return PROVIDER_RUNTIME;
}

static gint32 payload_i32(LPCBYTE data, ULONG len, gsize at) {
  gint32 v = 0;
  if (data && len >= at + sizeof v)
    memcpy(&v, data + at, sizeof v);
  return v;
}

/* A counter's value published by the runtime's metrics source: the route template of the routing's
 * match counter (the one instrument sxs_features.c asks for; another session sharing the source may
 * bring others), learnt for the labels. */
static void metric_published(LPCBYTE data, ULONG len) {
  g_autofree char *session = NULL, *meter = NULL, *version = NULL, *instrument = NULL, *unit = NULL, *tags = NULL;
  gsize at = 0;
  if (!data || !payload_utf16(data, len, at, &session, &at) || !payload_utf16(data, len, at, &meter, &at) ||
      !payload_utf16(data, len, at, &version, &at) || !payload_utf16(data, len, at, &instrument, &at) ||
      !payload_utf16(data, len, at, &unit, &at) || !payload_utf16(data, len, at, &tags, &at))
    return;
  if (g_strcmp0(instrument, SXS_ROUTE_INSTRUMENT) != 0)
    return;
  g_autofree char *route = sxs__activity_metric_tag(tags, "http.route");
  sxs__activity_route_seen(route);
}

/* An endpoints event: the request's or the async operation's. */
static void endpoints_event(SxsCallback *self, ProviderKind kind, DWORD eventId, LPCBYTE data, ULONG len,
                            LPCGUID activity) {
  const guint8 *act = (const guint8 *)activity;
  int rt = self->runtime->id;
  if (kind == PROVIDER_HOSTING) {
    if (eventId == SXS_EVENT_REQUEST_START) {
      g_autofree char *method = NULL, *path = NULL;
      gsize after = 0;
      if (data && payload_utf16(data, len, 0, &method, &after))
        payload_utf16(data, len, after, &path, &after);
      if (sxs__activity_request_start(rt, act, method, path, sxs__timeline_rec_now_us()))
        sxs__features_follow_awaits(self);
    } else if (eventId == SXS_EVENT_REQUEST_STOP) {
      if (sxs__activity_request_stop(rt, act, sxs__timeline_rec_now_us()))
        sxs__features_follow_awaits(self);
    }
    return;
  }
  if (kind == PROVIDER_METRICS) {
    if (eventId == SXS_EVENT_COUNTER_PUBLISHED)
      metric_published(data, len);
    return;
  }
  switch (eventId) {
  case SXS_EVENT_OPERATION_BEGIN: sxs__activity_operation_begin(rt, payload_i32(data, len, 0), act); break;
  case SXS_EVENT_OPERATION_END: sxs__activity_operation_end(rt, payload_i32(data, len, 0)); break;
  case SXS_EVENT_WORK_BEGIN: sxs__activity_work_begin(rt, payload_i32(data, len, 0), payload_i32(data, len, 4)); break;
  case SXS_EVENT_WORK_END: sxs__activity_work_end(rt, payload_i32(data, len, 0)); break;
  default: break;
  }
}

static HRESULT callback_EventPipeEventDelivered(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider,
                                                DWORD eventId, DWORD eventVersion, ULONG cbMetadataBlob,
                                                LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData,
                                                LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread,
                                                ULONG numStackFrames, UINT_PTR stackFrames[]) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  if (sxs__manager_quiet())
    return S_OK;
  ProviderKind kind = provider_kind(self, provider);
  if (kind != PROVIDER_RUNTIME) {
    endpoints_event(self, kind, eventId, eventData, cbEventData, pActivityId);
    return S_OK;
  }
  if (eventId == SXS_EVENT_ALLOCATION_TICK) {
    guint64 bytes = 0, size = 0;
    g_autofree char *type = NULL;
    /* Where the runtime samples at random, ticks are not asked for; one that came is not counted twice. */
    if (self->profiles_on[SXS_PROFILE_ALLOCATIONS] && !self->allocations_sampled &&
        allocation_tick(eventVersion, eventData, cbEventData, &bytes, &type, &size))
      sxs__events_allocation(self->runtime, type, bytes, size);
    return S_OK;
  }
  if (eventId == SXS_EVENT_ALLOCATION_SAMPLED) {
    guint64 size = 0;
    g_autofree char *type = NULL;
    if (self->profiles_on[SXS_PROFILE_ALLOCATIONS] && self->allocations_sampled &&
        allocation_sampled(eventData, cbEventData, &type, &size))
      sxs__events_allocation_sampled(self->runtime, type, size);
    return S_OK;
  }
  if (eventId == SXS_EVENT_GC_HEAP_STATS) {
    guint64 bytes = 0;
    if (self->profiles_on[SXS_PROFILE_ALLOCATIONS] && heap_stats(eventVersion, eventData, cbEventData, &bytes))
      sxs__events_heap(self->runtime, bytes);
    return S_OK;
  }
  if (!self->profiles_on[SXS_PROFILE_CONTENTION])
    return S_OK;
  if (eventId == SXS_EVENT_CONTENTION_START) {
    sxs__events_contention_start(self->runtime);
  } else if (eventId == SXS_EVENT_CONTENTION_STOP) {
    gint64 duration_ns = -1;
    double d = 0;
    if (eventVersion >= 1 && eventData && cbEventData >= 3 + sizeof d) {
      memcpy(&d, eventData + 3, sizeof d);
      if (d >= 0 && d < 1e18)
        duration_ns = (gint64)d;
    }
    sxs__events_contention_stop(self->runtime, duration_ns);
  }
  return S_OK;
}
static HRESULT callback_EventPipeProviderCreated(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider) {
  return S_OK;
}

static const ICorProfilerCallback11Vtbl callback_vtbl = {
    .QueryInterface = callback_QueryInterface,
    .AddRef = callback_AddRef,
    .Release = callback_Release,
    .Initialize = callback_Initialize,
    .Shutdown = callback_Shutdown,
    .AppDomainCreationStarted = callback_AppDomainCreationStarted,
    .AppDomainCreationFinished = callback_AppDomainCreationFinished,
    .AppDomainShutdownStarted = callback_AppDomainShutdownStarted,
    .AppDomainShutdownFinished = callback_AppDomainShutdownFinished,
    .AssemblyLoadStarted = callback_AssemblyLoadStarted,
    .AssemblyLoadFinished = callback_AssemblyLoadFinished,
    .AssemblyUnloadStarted = callback_AssemblyUnloadStarted,
    .AssemblyUnloadFinished = callback_AssemblyUnloadFinished,
    .ModuleLoadStarted = callback_ModuleLoadStarted,
    .ModuleLoadFinished = callback_ModuleLoadFinished,
    .ModuleUnloadStarted = callback_ModuleUnloadStarted,
    .ModuleUnloadFinished = callback_ModuleUnloadFinished,
    .ModuleAttachedToAssembly = callback_ModuleAttachedToAssembly,
    .ClassLoadStarted = callback_ClassLoadStarted,
    .ClassLoadFinished = callback_ClassLoadFinished,
    .ClassUnloadStarted = callback_ClassUnloadStarted,
    .ClassUnloadFinished = callback_ClassUnloadFinished,
    .FunctionUnloadStarted = callback_FunctionUnloadStarted,
    .JITCompilationStarted = callback_JITCompilationStarted,
    .JITCompilationFinished = callback_JITCompilationFinished,
    .JITCachedFunctionSearchStarted = callback_JITCachedFunctionSearchStarted,
    .JITCachedFunctionSearchFinished = callback_JITCachedFunctionSearchFinished,
    .JITFunctionPitched = callback_JITFunctionPitched,
    .JITInlining = callback_JITInlining,
    .ThreadCreated = callback_ThreadCreated,
    .ThreadDestroyed = callback_ThreadDestroyed,
    .ThreadAssignedToOSThread = callback_ThreadAssignedToOSThread,
    .RemotingClientInvocationStarted = callback_RemotingClientInvocationStarted,
    .RemotingClientSendingMessage = callback_RemotingClientSendingMessage,
    .RemotingClientReceivingReply = callback_RemotingClientReceivingReply,
    .RemotingClientInvocationFinished = callback_RemotingClientInvocationFinished,
    .RemotingServerReceivingMessage = callback_RemotingServerReceivingMessage,
    .RemotingServerInvocationStarted = callback_RemotingServerInvocationStarted,
    .RemotingServerInvocationReturned = callback_RemotingServerInvocationReturned,
    .RemotingServerSendingReply = callback_RemotingServerSendingReply,
    .UnmanagedToManagedTransition = callback_UnmanagedToManagedTransition,
    .ManagedToUnmanagedTransition = callback_ManagedToUnmanagedTransition,
    .RuntimeSuspendStarted = callback_RuntimeSuspendStarted,
    .RuntimeSuspendFinished = callback_RuntimeSuspendFinished,
    .RuntimeSuspendAborted = callback_RuntimeSuspendAborted,
    .RuntimeResumeStarted = callback_RuntimeResumeStarted,
    .RuntimeResumeFinished = callback_RuntimeResumeFinished,
    .RuntimeThreadSuspended = callback_RuntimeThreadSuspended,
    .RuntimeThreadResumed = callback_RuntimeThreadResumed,
    .MovedReferences = callback_MovedReferences,
    .ObjectAllocated = callback_ObjectAllocated,
    .ObjectsAllocatedByClass = callback_ObjectsAllocatedByClass,
    .ObjectReferences = callback_ObjectReferences,
    .RootReferences = callback_RootReferences,
    .ExceptionThrown = callback_ExceptionThrown,
    .ExceptionSearchFunctionEnter = callback_ExceptionSearchFunctionEnter,
    .ExceptionSearchFunctionLeave = callback_ExceptionSearchFunctionLeave,
    .ExceptionSearchFilterEnter = callback_ExceptionSearchFilterEnter,
    .ExceptionSearchFilterLeave = callback_ExceptionSearchFilterLeave,
    .ExceptionSearchCatcherFound = callback_ExceptionSearchCatcherFound,
    .ExceptionOSHandlerEnter = callback_ExceptionOSHandlerEnter,
    .ExceptionOSHandlerLeave = callback_ExceptionOSHandlerLeave,
    .ExceptionUnwindFunctionEnter = callback_ExceptionUnwindFunctionEnter,
    .ExceptionUnwindFunctionLeave = callback_ExceptionUnwindFunctionLeave,
    .ExceptionUnwindFinallyEnter = callback_ExceptionUnwindFinallyEnter,
    .ExceptionUnwindFinallyLeave = callback_ExceptionUnwindFinallyLeave,
    .ExceptionCatcherEnter = callback_ExceptionCatcherEnter,
    .ExceptionCatcherLeave = callback_ExceptionCatcherLeave,
    .COMClassicVTableCreated = callback_COMClassicVTableCreated,
    .COMClassicVTableDestroyed = callback_COMClassicVTableDestroyed,
    .ExceptionCLRCatcherFound = callback_ExceptionCLRCatcherFound,
    .ExceptionCLRCatcherExecute = callback_ExceptionCLRCatcherExecute,
    .ThreadNameChanged = callback_ThreadNameChanged,
    .GarbageCollectionStarted = callback_GarbageCollectionStarted,
    .SurvivingReferences = callback_SurvivingReferences,
    .GarbageCollectionFinished = callback_GarbageCollectionFinished,
    .FinalizeableObjectQueued = callback_FinalizeableObjectQueued,
    .RootReferences2 = callback_RootReferences2,
    .HandleCreated = callback_HandleCreated,
    .HandleDestroyed = callback_HandleDestroyed,
    .InitializeForAttach = callback_InitializeForAttach,
    .ProfilerAttachComplete = callback_ProfilerAttachComplete,
    .ProfilerDetachSucceeded = callback_ProfilerDetachSucceeded,
    .ReJITCompilationStarted = callback_ReJITCompilationStarted,
    .GetReJITParameters = callback_GetReJITParameters,
    .ReJITCompilationFinished = callback_ReJITCompilationFinished,
    .ReJITError = callback_ReJITError,
    .MovedReferences2 = callback_MovedReferences2,
    .SurvivingReferences2 = callback_SurvivingReferences2,
    .ConditionalWeakTableElementReferences = callback_ConditionalWeakTableElementReferences,
    .GetAssemblyReferences = callback_GetAssemblyReferences,
    .ModuleInMemorySymbolsUpdated = callback_ModuleInMemorySymbolsUpdated,
    .DynamicMethodJITCompilationStarted = callback_DynamicMethodJITCompilationStarted,
    .DynamicMethodJITCompilationFinished = callback_DynamicMethodJITCompilationFinished,
    .DynamicMethodUnloaded = callback_DynamicMethodUnloaded,
    .EventPipeEventDelivered = callback_EventPipeEventDelivered,
    .EventPipeProviderCreated = callback_EventPipeProviderCreated,
    .LoadAsNotificationOnly = callback_LoadAsNotificationOnly,
};

SxsCallback *sxs__callback_new(SxsRuntime *rt) {
  SxsCallback *self = g_try_new0(SxsCallback, 1);
  if (!self)
    return NULL;
  self->iface.lpVtbl = &callback_vtbl;
  self->refcount = 1;
  self->runtime = rt;
  sxs__importer_cache_init(&self->importers);
  sxs__dynamic_init(&self->dynamic);
  g_mutex_init(&self->unload_lock);
  g_mutex_init(&self->catchup_lock);
  self->unloading = g_hash_table_new(g_direct_hash, g_direct_equal);
  return self;
}
