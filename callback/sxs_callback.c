/* The ICorProfilerCallback11 object: one per runtime, recording into that runtime's registry entry.
 *
 * A runtime reaches this object through the class factory (sxs_factory.c). Initialize finds out
 * which runtime it is (Info vtable -> owning libcoreclr.so, its product version), asks the manager
 * whether to profile it, fills the capability record and sets the event mask. Callbacks the
 * profile needs (JIT, modules, threads, exceptions, GCs, Shutdown) record into the runtime's own
 * SxsRuntime; every other callback answers S_OK and does nothing. */
#include "sxs_callback.h"

#include "sxs_attach.h"
#include "sxs_attach_control.h"

#include "sxs_modules.h"
#include "sxs_output.h"
#include "sxs_sampler.h"
#include "sxs_snapshot.h"
#include "sxs_stacks.h"
#include "sxs_version.h"
#include "sxs_trace.h"

#include <errno.h>
#include <stdlib.h>
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

/* SxsRuntimeOps.function_name: names a function through the guarded Info. */
static int ops_function_name(gpointer instance, uint64_t function_id, char **ret_name, char **ret_module) {
  SxsCallback *self = instance;
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
 * mine" (a foreign or native ip, or code without metadata such as an IL stub); the other failures
 * (CORPROF_E_ASYNCHRONOUS_UNSAFE, CORPROF_E_NOT_YET_AVAILABLE) mean it could not look now. */
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

static const SxsRuntimeOps callback_ops = {
    .function_name = ops_function_name,
    .owns_ip = ops_owns_ip,
    .walk = ops_walk,
    .suspend = ops_suspend,
    .resume = ops_resume,
    .threads = ops_threads,
    .walk_thread = ops_walk_thread,
    .il_map = sxs__callback_il_map,
};

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

/* Counters: modules, exceptions, threads, GCs (without heap walks where the runtime can). */
static void counters_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)cfg;
  *low |= COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_THREADS;
  if (caps->basic_gc && caps->event_mask2)
    *high |= COR_PRF_HIGH_BASIC_GC;
  else
    *low |= COR_PRF_MONITOR_GC;
}

/* Names: every function JIT-compiled, inlined or taken precompiled. After an attach the runtime
 * reports no cache searches: precompiled code is then named when a sample or a stack meets it. */
static void names_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)cfg;
  (void)high;
  *low |= COR_PRF_MONITOR_JIT_COMPILATION;
  if (!caps->attached)
    *low |= COR_PRF_MONITOR_CACHE_SEARCHES;
}

/* Stacks on events ([stacks] on=): stack snapshots, and the events asked for. */
static gboolean stacks_wanted(const SxsConfig *cfg) {
  return cfg && cfg->stacks_on != 0;
}

static void stacks_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  *low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
  if (cfg->stacks_on & SXS_STACKS_EXCEPTION)
    *low |= COR_PRF_MONITOR_EXCEPTIONS;
  if (cfg->stacks_on & SXS_STACKS_JIT)
    *low |= COR_PRF_MONITOR_JIT_COMPILATION;
  if (cfg->stacks_on & SXS_STACKS_GC) {
    if (caps->basic_gc && caps->event_mask2)
      *high |= COR_PRF_HIGH_BASIC_GC;
    else
      *low |= COR_PRF_MONITOR_GC;
  }
}

static const SxsFeature counters_feature = {.name = "counters", .mask = counters_mask};
static const SxsFeature names_feature = {.name = "names", .mask = names_mask};
static const SxsFeature stacks_feature = {.name = "stacks", .wanted = stacks_wanted, .mask = stacks_mask};

/* Sampling ([sampling] enabled=true): the suspend walker asks runtimes for stack snapshots. */
static gboolean sampling_wanted(const SxsConfig *cfg) {
  return cfg && cfg->sampling.enabled;
}

static void sampling_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)caps;
  (void)cfg;
  (void)high;
  *low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
}

static const SxsFeature sampling_feature = {.name = "sampling", .wanted = sampling_wanted, .mask = sampling_mask};

/* In order: a setup may rely on the mask bits of the features before it. */
static const SxsFeature *const features[] = {&counters_feature, &names_feature, &stacks_feature, &sampling_feature,
                                             &sxs__tracing_feature};

/* Records the thread's stack for an event when [stacks] on= asks for that event. A runtime that
 * has begun to shut down is not asked to walk (the manager's list leaves it out, and its guard
 * answers no), but the event is still counted and the other runtimes walked. */
static void maybe_record_stack(SxsCallback *self, SxsStackEvents event) {
  (void)self;
  const SxsConfig *cfg = sxs__manager_config();
  if (cfg && (cfg->stacks_on & event) && !sxs__manager_quiet())
    sxs__stacks_record(event);
}

/* Sets the runtime's event mask from its low and high halves: the classic call when no high bit
 * is needed, SetEventMask2 (Info5) when one is. */
static HRESULT set_mask(ICorProfilerInfo15 *info, const SxsCapabilities *caps, DWORD low, DWORD high) {
  if (!high)
    return info->lpVtbl->SetEventMask(info, low);
  return caps->event_mask2 ? info->lpVtbl->SetEventMask2(info, low, high) : E_INVALIDARG;
}

/* Runs the features for a runtime that is profiled: mask first (some setups need their bits set
 * before them), then each setup in order. Returns the failing HRESULT when the mask itself could
 * not be set. */
static HRESULT run_features(SxsCallback *self, ICorProfilerInfo15 *info, const SxsCapabilities *caps) {
  const SxsConfig *cfg = sxs__manager_config();
  gboolean on[G_N_ELEMENTS(features)];
  DWORD feature_low[G_N_ELEMENTS(features)], feature_high[G_N_ELEMENTS(features)];
  DWORD low = 0, high = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(features); i++) {
    const SxsFeature *f = features[i];
    feature_low[i] = feature_high[i] = 0;
    on[i] = !f->wanted || f->wanted(cfg);
    if (!on[i])
      continue;
    const char *why = f->unsupported ? f->unsupported(caps) : NULL;
    if (why) {
      on[i] = FALSE;
      sxs__manager_feature_off(self->runtime, f->name, why);
      continue;
    }
    f->mask(caps, cfg, &feature_low[i], &feature_high[i]);
    low |= feature_low[i];
    high |= feature_high[i];
  }
  if (caps->attached && ((low & ~COR_PRF_ALLOWABLE_AFTER_ATTACH) || (high & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH))) {
    /* A feature that asked for more than an attached profiler may have: the rest still runs. */
    sxs__manager_log("runtime %d: event bits 0x%08X/0x%08X are not allowed after attach and are left out",
                     self->runtime->id, (unsigned)(low & ~COR_PRF_ALLOWABLE_AFTER_ATTACH),
                     (unsigned)(high & ~COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH));
    low &= COR_PRF_ALLOWABLE_AFTER_ATTACH;
    high &= COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH;
  }
  HRESULT hr = set_mask(info, caps, low, high);
  if (hr < 0)
    return hr;
  for (size_t i = 0; i < G_N_ELEMENTS(features); i++) {
    if (!on[i] || !features[i]->setup)
      continue;
    g_autofree char *why = NULL;
    if (features[i]->setup(self, info, cfg, &why) < 0) {
      sxs__manager_feature_off(self->runtime, features[i]->name, why ? why : "its setup failed");
      /* Bits no other feature needs go out of the mask again. */
      DWORD keep_low = 0, keep_high = 0;
      for (size_t j = 0; j < G_N_ELEMENTS(features); j++)
        if (j != i && on[j]) {
          keep_low |= feature_low[j];
          keep_high |= feature_high[j];
        }
      /* The mask as it is now: an earlier setup may have added bits of its own. */
      DWORD now_low = low, now_high = high;
      if (caps->event_mask2)
        info->lpVtbl->GetEventMask2(info, &now_low, &now_high);
      else
        info->lpVtbl->GetEventMask(info, &now_low);
      low = now_low & ~(feature_low[i] & ~keep_low);
      high = now_high & ~(feature_high[i] & ~keep_high);
      on[i] = FALSE;
      set_mask(info, caps, low, high);
    }
  }
  return S_OK;
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
  if (sxs__modules_path_of((const void *)info->lpVtbl->GetRuntimeInformation, &path) == 0)
    sxs__modules_runtime_version(path, &version);
  g_autofree char *clr_version = clr_version_of(info);
  if (!version && clr_version)
    version = g_strdup(clr_version);

  /* The capability record: the one place that decides what this runtime can do. BASIC_GC came
   * with the runtimes that have Info10 (3.0 and later); older ones ignore unknown high bits
   * silently, so it is not probed by trial. ELT probes exist on Linux x64 from 2.1 on: 2.0
   * accepts the hooks but its JIT emits no probes (it falls back to code without them), so only
   * the version can tell. */
  SxsCapabilities caps = {
      .info_version = info_version,
      .event_mask2 = info_version >= 5,
      .basic_gc = info_version >= 10,
      .elt3 = info_version >= 3 && sxs__version_at_least(version, 2, 1),
      .suspend = info_version >= 10,
      .code_versions = info_version >= 9,
      .attached = attached,
  };
  if (!sxs__manager_initialize(self->runtime, path, version, clr_version, &caps)) {
    info->lpVtbl->Release(info);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }

  __atomic_store_n(&self->info, info, __ATOMIC_SEQ_CST);
  self->profiled = TRUE;

  HRESULT hr = run_features(self, info, &caps);
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
  sxs__manager_attach_ops(self->runtime, &callback_ops, self);
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

/* Has the module's unload begun (its ID may then be reused by a later load)? */
static gboolean module_unloading(SxsCallback *self, ModuleID module_id) {
  g_mutex_lock(&self->unload_lock);
  gboolean gone = g_hash_table_contains(self->unloading, GSIZE_TO_POINTER(module_id));
  g_mutex_unlock(&self->unload_lock);
  return gone;
}

/* A module's file name (NULL when the runtime gives none) and its COR_PRF_MODULE_FLAGS, in one
 * GetModuleInfo2. FALSE when the runtime does not answer. */
static gboolean module_info(ICorProfilerInfo15 *info, ModuleID module_id, char **ret_name, DWORD *ret_flags) {
  WCHAR path[1024] = {0};
  ULONG len = 0;
  LPCBYTE base = NULL;
  AssemblyID assembly = 0;
  DWORD flags = 0;
  if (info->lpVtbl->GetModuleInfo2(info, module_id, &base, G_N_ELEMENTS(path), &len, path, &assembly, &flags) < 0)
    return FALSE;
  g_autofree char *utf8 = sxs__callback_utf8(path, -1);
  *ret_name = utf8 && *utf8 ? g_path_get_basename(utf8) : NULL;
  *ret_flags = flags;
  return TRUE;
}

/* Names a module and records it. FALSE when the runtime is shutting down. */
static gboolean record_module(SxsCallback *self, ModuleID moduleId) {
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return FALSE;
  g_autofree char *name = NULL;
  DWORD flags = 0;
  module_info(info, moduleId, &name, &flags);
  sxs__callback_info_leave(self);
  sxs__manager_record_module(self->runtime, moduleId, name);
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

/* Records a function whose code was made or taken, naming it through the metadata the first
 * time it is seen. Events that arrive after Shutdown began are dropped: the Info guard answers
 * no. Context: a runtime thread in a JIT or loader callback (may allocate, may block). */
static void record_function(SxsCallback *self, FunctionID function_id, SxsCodeKind kind) {
  if (sxs__manager_function_known(self->runtime, function_id)) {
    sxs__manager_record_function(self->runtime, function_id, kind, NULL, NULL);
    return;
  }
  g_autofree char *name = NULL;
  g_autofree char *module = NULL;
  if (ops_function_name(self, function_id, &name, &module) == -ESHUTDOWN)
    return;
  sxs__manager_record_function(self->runtime, function_id, kind, name, module);
}

static HRESULT callback_JITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId, HRESULT hrStatus,
                                               BOOL fIsSafeToBlock) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  (void)fIsSafeToBlock;
  if (hrStatus >= 0)
    record_function(self, functionId, SXS_CODE_JIT);
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
  sxs__sampler_thread_destroyed(self->runtime->id, threadId);
  sxs__manager_thread_destroyed(self->runtime, threadId);
  return S_OK;
}

static HRESULT callback_ThreadAssignedToOSThread(ICorProfilerCallback11 *This, ThreadID managedThreadId,
                                                 DWORD osThreadId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
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

/* Context: the throwing thread; lock-free. */
static HRESULT callback_ExceptionThrown(ICorProfilerCallback11 *This, ObjectID thrownObjectId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  (void)thrownObjectId;
  sxs__counter_add(&self->runtime->counters.exceptions);
  maybe_record_stack(self, SXS_STACKS_EXCEPTION);
  return S_OK;
}

/* Context: the GC thread with the runtime suspended; lock-free. */
static HRESULT callback_GarbageCollectionStarted(ICorProfilerCallback11 *This, int cGenerations,
                                                 BOOL generationCollected[], COR_PRF_GC_REASON reason) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  (void)cGenerations;
  (void)generationCollected;
  (void)reason;
  sxs__counter_add(&self->runtime->counters.gcs);
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
  if (!sxs__attach_request_parse(pvClientData, cbClientData, &req, &why) ||
      !sxs__output_attach_config(req.config, req.run_id, &why)) {
    g_autofree char *reason = g_strdup_printf("attach declined: %s", why);
    sxs__manager_decline(self->runtime, reason);
    sxs__attach_request_clear(&req);
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  }
  self->attach_control = g_steal_pointer(&req.control);
  sxs__attach_request_clear(&req);
  return initialize_runtime(self, pCorProfilerInfoUnk, TRUE);
}

static HRESULT callback_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *pbNotificationOnly) {
  (void)This;
  if (pbNotificationOnly)
    *pbNotificationOnly = FALSE;
  return S_OK;
}

/* Callbacks the profile does not use. They are never enabled by the event mask, but a runtime
 * may call some regardless (e.g. AppDomain and assembly events), so each answers S_OK. */

static HRESULT callback_AppDomainCreationStarted(ICorProfilerCallback11 *This, AppDomainID appDomainId) {
  (void)This;
  (void)appDomainId;
  return S_OK;
}

static HRESULT callback_AppDomainCreationFinished(ICorProfilerCallback11 *This, AppDomainID appDomainId,
                                                  HRESULT hrStatus) {
  (void)This;
  (void)appDomainId;
  (void)hrStatus;
  return S_OK;
}

static HRESULT callback_AppDomainShutdownStarted(ICorProfilerCallback11 *This, AppDomainID appDomainId) {
  (void)This;
  (void)appDomainId;
  return S_OK;
}

static HRESULT callback_AppDomainShutdownFinished(ICorProfilerCallback11 *This, AppDomainID appDomainId,
                                                  HRESULT hrStatus) {
  (void)This;
  (void)appDomainId;
  (void)hrStatus;
  return S_OK;
}

static HRESULT callback_AssemblyLoadStarted(ICorProfilerCallback11 *This, AssemblyID assemblyId) {
  (void)This;
  (void)assemblyId;
  return S_OK;
}

static HRESULT callback_AssemblyLoadFinished(ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus) {
  (void)This;
  (void)assemblyId;
  (void)hrStatus;
  return S_OK;
}

static HRESULT callback_AssemblyUnloadStarted(ICorProfilerCallback11 *This, AssemblyID assemblyId) {
  (void)This;
  (void)assemblyId;
  return S_OK;
}

static HRESULT callback_AssemblyUnloadFinished(ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus) {
  (void)This;
  (void)assemblyId;
  (void)hrStatus;
  return S_OK;
}

static HRESULT callback_ModuleLoadStarted(ICorProfilerCallback11 *This, ModuleID moduleId) {
  (void)This;
  (void)moduleId;
  return S_OK;
}

/* A module's importer is let go before the module is: its ModuleID may be reused. */
static HRESULT callback_ModuleUnloadStarted(ICorProfilerCallback11 *This, ModuleID moduleId) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
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
  (void)This;
  (void)moduleId;
  (void)hrStatus;
  sxs__stacks_code_changed();
  return S_OK;
}

static HRESULT callback_ModuleAttachedToAssembly(ICorProfilerCallback11 *This, ModuleID moduleId,
                                                 AssemblyID AssemblyId) {
  (void)This;
  (void)moduleId;
  (void)AssemblyId;
  return S_OK;
}

static HRESULT callback_ClassLoadStarted(ICorProfilerCallback11 *This, ClassID classId) {
  (void)This;
  (void)classId;
  return S_OK;
}

static HRESULT callback_ClassLoadFinished(ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus) {
  (void)This;
  (void)classId;
  (void)hrStatus;
  return S_OK;
}

static HRESULT callback_ClassUnloadStarted(ICorProfilerCallback11 *This, ClassID classId) {
  (void)This;
  (void)classId;
  return S_OK;
}

static HRESULT callback_ClassUnloadFinished(ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus) {
  (void)This;
  (void)classId;
  (void)hrStatus;
  return S_OK;
}

static HRESULT callback_FunctionUnloadStarted(ICorProfilerCallback11 *This, FunctionID functionId) {
  (void)This;
  (void)functionId;
  return S_OK;
}

static HRESULT callback_JITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId,
                                              BOOL fIsSafeToBlock) {
  (void)functionId;
  (void)fIsSafeToBlock;
  maybe_record_stack(impl_from_ICorProfilerCallback11(This), SXS_STACKS_JIT);
  return S_OK;
}

/* The runtime asks whether to use a function's precompiled (ReadyToRun) code: always yes. */
static HRESULT callback_JITCachedFunctionSearchStarted(ICorProfilerCallback11 *This, FunctionID functionId,
                                                       BOOL *pbUseCachedFunction) {
  (void)This;
  (void)functionId;
  if (pbUseCachedFunction)
    *pbUseCachedFunction = TRUE;
  return S_OK;
}

/* A precompiled function is about to run for the first time: most of the framework (Kestrel,
 * the compiler) runs such code and is never JIT-compiled, so this is how the profile names it.
 * Context: the calling thread, in the loader. */
static HRESULT callback_JITCachedFunctionSearchFinished(ICorProfilerCallback11 *This, FunctionID functionId,
                                                        COR_PRF_JIT_CACHE result) {
  if (result == COR_PRF_CACHED_FUNCTION_FOUND)
    record_function(impl_from_ICorProfilerCallback11(This), functionId, SXS_CODE_PRECOMPILED);
  return S_OK;
}

static HRESULT callback_JITFunctionPitched(ICorProfilerCallback11 *This, FunctionID functionId) {
  (void)This;
  (void)functionId;
  return S_OK;
}

/* A function whose code only ever exists inlined into its callers (a small lambda, a property)
 * is still named in the profile. The JIT's decision is left as it is. Context: a JIT thread. */
static HRESULT callback_JITInlining(ICorProfilerCallback11 *This, FunctionID callerId, FunctionID calleeId,
                                    BOOL *pfShouldInline) {
  (void)callerId;
  (void)pfShouldInline;
  record_function(impl_from_ICorProfilerCallback11(This), calleeId, SXS_CODE_INLINED);
  return S_OK;
}

static HRESULT callback_RemotingClientInvocationStarted(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RemotingClientSendingMessage(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  (void)This;
  (void)pCookie;
  (void)fIsAsync;
  return S_OK;
}

static HRESULT callback_RemotingClientReceivingReply(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  (void)This;
  (void)pCookie;
  (void)fIsAsync;
  return S_OK;
}

static HRESULT callback_RemotingClientInvocationFinished(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RemotingServerReceivingMessage(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  (void)This;
  (void)pCookie;
  (void)fIsAsync;
  return S_OK;
}

static HRESULT callback_RemotingServerInvocationStarted(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RemotingServerInvocationReturned(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RemotingServerSendingReply(ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync) {
  (void)This;
  (void)pCookie;
  (void)fIsAsync;
  return S_OK;
}

static HRESULT callback_UnmanagedToManagedTransition(ICorProfilerCallback11 *This, FunctionID functionId,
                                                     COR_PRF_TRANSITION_REASON reason) {
  (void)This;
  (void)functionId;
  (void)reason;
  return S_OK;
}

static HRESULT callback_ManagedToUnmanagedTransition(ICorProfilerCallback11 *This, FunctionID functionId,
                                                     COR_PRF_TRANSITION_REASON reason) {
  (void)This;
  (void)functionId;
  (void)reason;
  return S_OK;
}

static HRESULT callback_RuntimeSuspendStarted(ICorProfilerCallback11 *This, COR_PRF_SUSPEND_REASON suspendReason) {
  (void)This;
  (void)suspendReason;
  return S_OK;
}

static HRESULT callback_RuntimeSuspendFinished(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RuntimeSuspendAborted(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RuntimeResumeStarted(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RuntimeResumeFinished(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_RuntimeThreadSuspended(ICorProfilerCallback11 *This, ThreadID threadId) {
  (void)This;
  (void)threadId;
  return S_OK;
}

static HRESULT callback_RuntimeThreadResumed(ICorProfilerCallback11 *This, ThreadID threadId) {
  (void)This;
  (void)threadId;
  return S_OK;
}

static HRESULT callback_MovedReferences(ICorProfilerCallback11 *This, ULONG cMovedObjectIDRanges,
                                        ObjectID oldObjectIDRangeStart[], ObjectID newObjectIDRangeStart[],
                                        ULONG cObjectIDRangeLength[]) {
  (void)This;
  (void)cMovedObjectIDRanges;
  (void)oldObjectIDRangeStart;
  (void)newObjectIDRangeStart;
  (void)cObjectIDRangeLength;
  return S_OK;
}

static HRESULT callback_ObjectAllocated(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId) {
  (void)This;
  (void)objectId;
  (void)classId;
  return S_OK;
}

static HRESULT callback_ObjectsAllocatedByClass(ICorProfilerCallback11 *This, ULONG cClassCount, ClassID classIds[],
                                                ULONG cObjects[]) {
  (void)This;
  (void)cClassCount;
  (void)classIds;
  (void)cObjects;
  return S_OK;
}

static HRESULT callback_ObjectReferences(ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId,
                                         ULONG cObjectRefs, ObjectID objectRefIds[]) {
  (void)This;
  (void)objectId;
  (void)classId;
  (void)cObjectRefs;
  (void)objectRefIds;
  return S_OK;
}

static HRESULT callback_RootReferences(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID rootRefIds[]) {
  (void)This;
  (void)cRootRefs;
  (void)rootRefIds;
  return S_OK;
}

static HRESULT callback_ExceptionSearchFunctionEnter(ICorProfilerCallback11 *This, FunctionID functionId) {
  (void)This;
  (void)functionId;
  return S_OK;
}

static HRESULT callback_ExceptionSearchFunctionLeave(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_ExceptionSearchFilterEnter(ICorProfilerCallback11 *This, FunctionID functionId) {
  (void)This;
  (void)functionId;
  return S_OK;
}

static HRESULT callback_ExceptionSearchFilterLeave(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_ExceptionSearchCatcherFound(ICorProfilerCallback11 *This, FunctionID functionId) {
  (void)This;
  (void)functionId;
  return S_OK;
}

static HRESULT callback_ExceptionOSHandlerEnter(ICorProfilerCallback11 *This, UINT_PTR unused) {
  (void)This;
  (void)unused;
  return S_OK;
}

static HRESULT callback_ExceptionOSHandlerLeave(ICorProfilerCallback11 *This, UINT_PTR unused) {
  (void)This;
  (void)unused;
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

static HRESULT callback_ExceptionUnwindFinallyEnter(ICorProfilerCallback11 *This, FunctionID functionId) {
  (void)This;
  (void)functionId;
  return S_OK;
}

static HRESULT callback_ExceptionUnwindFinallyLeave(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_ExceptionCatcherEnter(ICorProfilerCallback11 *This, FunctionID functionId, ObjectID objectId) {
  (void)This;
  (void)functionId;
  (void)objectId;
  return S_OK;
}

static HRESULT callback_ExceptionCatcherLeave(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_COMClassicVTableCreated(ICorProfilerCallback11 *This, ClassID wrappedClassId,
                                                REFGUID implementedIID, void *pVTable, ULONG cSlots) {
  (void)This;
  (void)wrappedClassId;
  (void)implementedIID;
  (void)pVTable;
  (void)cSlots;
  return S_OK;
}

static HRESULT callback_COMClassicVTableDestroyed(ICorProfilerCallback11 *This, ClassID wrappedClassId,
                                                  REFGUID implementedIID, void *pVTable) {
  (void)This;
  (void)wrappedClassId;
  (void)implementedIID;
  (void)pVTable;
  return S_OK;
}

static HRESULT callback_ExceptionCLRCatcherFound(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_ExceptionCLRCatcherExecute(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_SurvivingReferences(ICorProfilerCallback11 *This, ULONG cSurvivingObjectIDRanges,
                                            ObjectID objectIDRangeStart[], ULONG cObjectIDRangeLength[]) {
  (void)This;
  (void)cSurvivingObjectIDRanges;
  (void)objectIDRangeStart;
  (void)cObjectIDRangeLength;
  return S_OK;
}

static HRESULT callback_GarbageCollectionFinished(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_FinalizeableObjectQueued(ICorProfilerCallback11 *This, DWORD finalizerFlags,
                                                 ObjectID objectID) {
  (void)This;
  (void)finalizerFlags;
  (void)objectID;
  return S_OK;
}

static HRESULT callback_RootReferences2(ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID rootRefIds[],
                                        COR_PRF_GC_ROOT_KIND rootKinds[], COR_PRF_GC_ROOT_FLAGS rootFlags[],
                                        UINT_PTR rootIds[]) {
  (void)This;
  (void)cRootRefs;
  (void)rootRefIds;
  (void)rootKinds;
  (void)rootFlags;
  (void)rootIds;
  return S_OK;
}

static HRESULT callback_HandleCreated(ICorProfilerCallback11 *This, GCHandleID handleId, ObjectID initialObjectId) {
  (void)This;
  (void)handleId;
  (void)initialObjectId;
  return S_OK;
}

static HRESULT callback_HandleDestroyed(ICorProfilerCallback11 *This, GCHandleID handleId) {
  (void)This;
  (void)handleId;
  return S_OK;
}

/* Catch-up after an attach, with events already on (so nothing loaded from here on is missed):
 * every module and every JIT-compiled function the runtime can list. An ID an event already
 * reported is not queried again; a module whose unload began is never queried, also when the
 * unload starts while the list is walked. Then the control thread tells sxsprof attach. */
static HRESULT callback_ProfilerAttachComplete(ICorProfilerCallback11 *This) {
  SxsCallback *self = impl_from_ICorProfilerCallback11(This);
  guint modules = 0, functions = 0;
  /* From the lists being taken to the last ID queried, no module unload gets past its
   * ModuleUnloadStarted (see there): every ID listed stays valid while it is queried. */
  g_mutex_lock(&self->catchup_lock);
  /* Modules listed alive and not collectible: only their functions are named now. A collectible
   * module may be in the middle of an unload that began before the attach (no UnloadStarted will
   * tell), and its metadata is not safe to read then: its functions are named when an event, a
   * sample or a stack meets them. */
  g_autoptr(GHashTable) stable = g_hash_table_new(g_direct_hash, g_direct_equal);
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (info) {
    ICorProfilerModuleEnum *menum = NULL;
    if (info->lpVtbl->EnumModules(info, &menum) >= 0 && menum) {
      ModuleID ids[64];
      ULONG got = 0;
      while (menum->lpVtbl->Next(menum, G_N_ELEMENTS(ids), ids, &got) >= 0 && got > 0) {
        for (ULONG i = 0; i < got && !g_atomic_int_get(&self->unload_forced); i++) {
          if (module_unloading(self, ids[i]))
            continue;
          g_autofree char *name = NULL;
          DWORD flags = 0;
          if (!module_info(info, ids[i], &name, &flags) || (flags & COR_PRF_MODULE_COLLECTIBLE))
            continue;
          g_hash_table_add(stable, GSIZE_TO_POINTER(ids[i]));
          if (!sxs__manager_module_known(self->runtime, ids[i])) {
            sxs__manager_record_module(self->runtime, ids[i], name);
            modules++;
          }
        }
      }
      menum->lpVtbl->Release(menum);
    }
    ICorProfilerFunctionEnum *fenum = NULL;
    HRESULT hr = self->runtime->caps.info_version >= 4 ? info->lpVtbl->EnumJITedFunctions2(info, &fenum)
                                                       : info->lpVtbl->EnumJITedFunctions(info, &fenum);
    if (hr >= 0 && fenum) {
      COR_PRF_FUNCTION fns[64];
      ULONG got = 0;
      while (fenum->lpVtbl->Next(fenum, G_N_ELEMENTS(fns), fns, &got) >= 0 && got > 0) {
        for (ULONG i = 0; i < got; i++) {
          FunctionID fid = fns[i].functionId;
          if (sxs__manager_function_known(self->runtime, fid))
            continue;
          ClassID cls = 0;
          ModuleID module = 0;
          mdToken token = 0;
          if (g_atomic_int_get(&self->unload_forced))
            break;
          if (info->lpVtbl->GetFunctionInfo(info, fid, &cls, &module, &token) >= 0 &&
              g_hash_table_contains(stable, GSIZE_TO_POINTER(module)) && !module_unloading(self, module)) {
            record_function(self, fid, SXS_CODE_NAMED);
            functions++;
          }
        }
      }
      fenum->lpVtbl->Release(fenum);
    }
    sxs__callback_info_leave(self);
  }
  g_mutex_unlock(&self->catchup_lock);
  if (g_atomic_int_get(&self->unload_forced))
    sxs__manager_log("runtime %d: a module unload could not wait for the attach catch-up; the rest is named when "
                     "met",
                     self->runtime->id);
  sxs__manager_log("runtime %d: attached; caught up with %u modules and %u JIT-compiled functions", self->runtime->id,
                   modules, functions);
  if (self->attach_control) {
    g_autofree char *hello = g_strdup_printf("attached %d %s modules=%u functions=%u\n", self->runtime->id,
                                             self->runtime->version ? self->runtime->version : "?", modules, functions);
    sxs__attach_control_start(self->attach_control, hello);
  }
  return S_OK;
}

static HRESULT callback_ProfilerDetachSucceeded(ICorProfilerCallback11 *This) {
  (void)This;
  return S_OK;
}

static HRESULT callback_ReJITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId,
                                                BOOL fIsSafeToBlock) {
  (void)This;
  (void)functionId;
  (void)rejitId;
  (void)fIsSafeToBlock;
  return S_OK;
}

static HRESULT callback_GetReJITParameters(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId,
                                           ICorProfilerFunctionControl *pFunctionControl) {
  (void)This;
  (void)moduleId;
  (void)methodId;
  (void)pFunctionControl;
  return S_OK;
}

static HRESULT callback_ReJITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId,
                                                 HRESULT hrStatus, BOOL fIsSafeToBlock) {
  (void)This;
  (void)functionId;
  (void)rejitId;
  (void)hrStatus;
  (void)fIsSafeToBlock;
  return S_OK;
}

static HRESULT callback_ReJITError(ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId,
                                   FunctionID functionId, HRESULT hrStatus) {
  (void)This;
  (void)moduleId;
  (void)methodId;
  (void)functionId;
  (void)hrStatus;
  return S_OK;
}

static HRESULT callback_MovedReferences2(ICorProfilerCallback11 *This, ULONG cMovedObjectIDRanges,
                                         ObjectID oldObjectIDRangeStart[], ObjectID newObjectIDRangeStart[],
                                         SIZE_T cObjectIDRangeLength[]) {
  (void)This;
  (void)cMovedObjectIDRanges;
  (void)oldObjectIDRangeStart;
  (void)newObjectIDRangeStart;
  (void)cObjectIDRangeLength;
  return S_OK;
}

static HRESULT callback_SurvivingReferences2(ICorProfilerCallback11 *This, ULONG cSurvivingObjectIDRanges,
                                             ObjectID objectIDRangeStart[], SIZE_T cObjectIDRangeLength[]) {
  (void)This;
  (void)cSurvivingObjectIDRanges;
  (void)objectIDRangeStart;
  (void)cObjectIDRangeLength;
  return S_OK;
}

static HRESULT callback_ConditionalWeakTableElementReferences(ICorProfilerCallback11 *This, ULONG cRootRefs,
                                                              ObjectID keyRefIds[], ObjectID valueRefIds[],
                                                              GCHandleID rootIds[]) {
  (void)This;
  (void)cRootRefs;
  (void)keyRefIds;
  (void)valueRefIds;
  (void)rootIds;
  return S_OK;
}

static HRESULT callback_GetAssemblyReferences(ICorProfilerCallback11 *This, const WCHAR *wszAssemblyPath,
                                              ICorProfilerAssemblyReferenceProvider *pAsmRefProvider) {
  (void)This;
  (void)wszAssemblyPath;
  (void)pAsmRefProvider;
  return S_OK;
}

static HRESULT callback_ModuleInMemorySymbolsUpdated(ICorProfilerCallback11 *This, ModuleID moduleId) {
  (void)This;
  (void)moduleId;
  return S_OK;
}

static HRESULT callback_DynamicMethodJITCompilationStarted(ICorProfilerCallback11 *This, FunctionID functionId,
                                                           BOOL fIsSafeToBlock, LPCBYTE pILHeader, ULONG cbILHeader) {
  (void)This;
  (void)functionId;
  (void)fIsSafeToBlock;
  (void)pILHeader;
  (void)cbILHeader;
  return S_OK;
}

static HRESULT callback_DynamicMethodJITCompilationFinished(ICorProfilerCallback11 *This, FunctionID functionId,
                                                            HRESULT hrStatus, BOOL fIsSafeToBlock) {
  (void)This;
  (void)functionId;
  (void)hrStatus;
  (void)fIsSafeToBlock;
  return S_OK;
}

static HRESULT callback_DynamicMethodUnloaded(ICorProfilerCallback11 *This, FunctionID functionId) {
  (void)This;
  (void)functionId;
  return S_OK;
}

static HRESULT callback_EventPipeEventDelivered(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider,
                                                DWORD eventId, DWORD eventVersion, ULONG cbMetadataBlob,
                                                LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData,
                                                LPCGUID pActivityId, LPCGUID pRelatedActivityId, ThreadID eventThread,
                                                ULONG numStackFrames, UINT_PTR stackFrames[]) {
  (void)This;
  (void)provider;
  (void)eventId;
  (void)eventVersion;
  (void)cbMetadataBlob;
  (void)metadataBlob;
  (void)cbEventData;
  (void)eventData;
  (void)pActivityId;
  (void)pRelatedActivityId;
  (void)eventThread;
  (void)numStackFrames;
  (void)stackFrames;
  return S_OK;
}

static HRESULT callback_EventPipeProviderCreated(ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider) {
  (void)This;
  (void)provider;
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
  g_mutex_init(&self->unload_lock);
  g_mutex_init(&self->catchup_lock);
  self->unloading = g_hash_table_new(g_direct_hash, g_direct_equal);
  return self;
}
