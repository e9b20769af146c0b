/* The feature table: what the profiler does for a runtime (counters, the function inventory,
 * stacks on events, sampling, call tracing, the event profiles), the event-mask bits each needs,
 * and running it at Initialize. A bit that changes what the runtime does is set only by a feature
 * that needs it (docs/config.md, "What each feature asks of the runtime"). */
#include "sxs_callback.h"

#include <errno.h>

#include "sxs_hresult.h"

/* Counters: modules, exceptions, threads, GCs (without heap walks where the runtime can), and the
 * suspensions for GCs (the timeline's pauses). */
static void counters_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)cfg;
  *low |= COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_THREADS;
  /* The timeline's GC pauses: suspension start to resume end. */
  *low |= COR_PRF_MONITOR_SUSPENDS;
  if (caps->basic_gc && caps->event_mask2)
    *high |= COR_PRF_HIGH_BASIC_GC;
  else
    *low |= COR_PRF_MONITOR_GC;
}

/* The function inventory ([profiler] inventory=true, and with tracing): every function
 * JIT-compiled, inlined or taken precompiled, with its counts. JIT events make each compilation
 * and inlining decision call back; cache searches make the first call of every precompiled
 * (ReadyToRun) function call back. Each callback appends to the runtime's queue; the names are
 * read on the profiler's naming thread (manager/record/sxs_naming.c). After an attach the runtime
 * reports no cache searches: precompiled code is then named when a sample or a stack meets it. */
static gboolean inventory_wanted(const SxsConfig *cfg) {
  return cfg && cfg->inventory;
}

static void inventory_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)cfg;
  (void)high;
  *low |= COR_PRF_MONITOR_JIT_COMPILATION;
  if (!caps->attached)
    *low |= COR_PRF_MONITOR_CACHE_SEARCHES;
}

static int inventory_setup(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why) {
  (void)info;
  (void)cfg;
  if (!self->names || !sxs__naming_inventory_on(self->names)) {
    *ret_why = g_strdup("the thread that names functions could not start");
    return -ENOMEM;
  }
  self->inventory = TRUE;
  return 0;
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
static const SxsFeature inventory_feature = {
    .name = "inventory", .wanted = inventory_wanted, .mask = inventory_mask, .setup = inventory_setup};
static const SxsFeature stacks_feature = {.name = "stacks", .wanted = stacks_wanted, .mask = stacks_mask};

/* Sampling ([sampling] enabled=true): the suspend walker asks runtimes for stack snapshots. */
static gboolean sampling_wanted(const SxsConfig *cfg) {
  return cfg && cfg->sampling.enabled;
}

/* JIT events too: the runtime reports each dynamic method it compiles (DynamicMethodJITCompilationFinished) only
 * with them, and a sampled frame in a dynamic method is otherwise a bare address (sxs_dynamic.c). The other JIT
 * events return at once. */
static void sampling_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)caps;
  (void)cfg;
  (void)high;
  *low |= COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_JIT_COMPILATION;
}

static int sampling_setup(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why) {
  (void)info;
  (void)cfg;
  (void)ret_why;
  self->dynamic_on = TRUE;
  return 0;
}

static const SxsFeature sampling_feature = {
    .name = "sampling", .wanted = sampling_wanted, .mask = sampling_mask, .setup = sampling_setup};

/* The exception profile ([exceptions] enabled=true): every runtime reports its exceptions
 * (ExceptionThrown, COR_PRF_MONITOR_EXCEPTIONS) and walks the throwing thread (stack snapshots),
 * 2.0 included; the type is read from the thrown object (GetClassFromObject, GetClassIDInfo and
 * the module's metadata). */
static gboolean exceptions_wanted(const SxsConfig *cfg) {
  return cfg && cfg->profiles[SXS_PROFILE_EXCEPTIONS];
}

static void exceptions_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)caps;
  (void)cfg;
  (void)high;
  *low |= COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_ENABLE_STACK_SNAPSHOT;
}

static int exceptions_setup(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why) {
  (void)info;
  (void)cfg;
  (void)ret_why;
  self->profiles_on[SXS_PROFILE_EXCEPTIONS] = TRUE;
  return 0;
}

static const SxsFeature exceptions_feature = {
    .name = "exceptions", .wanted = exceptions_wanted, .mask = exceptions_mask, .setup = exceptions_setup};

/* The contention profile ([contention] enabled=true): the runtime's own contention events
 * (ContentionStart/Stop of Microsoft-Windows-DotNETRuntime, keyword 0x4000, level Informational)
 * through an in-process EventPipe session, delivered to EventPipeEventDelivered on the waiting
 * thread, which is walked there. EventPipe sessions of a profiler need ICorProfilerInfo12 (.NET 5);
 * older runtimes have the feature off with that reason. No event-mask bit but stack snapshots. */
#define SXS_RUNTIME_PROVIDER "Microsoft-Windows-DotNETRuntime"
#define SXS_CONTENTION_KEYWORD G_GUINT64_CONSTANT(0x4000)

static gboolean contention_wanted(const SxsConfig *cfg) {
  return cfg && cfg->profiles[SXS_PROFILE_CONTENTION];
}

static const char *contention_unsupported(const SxsCapabilities *caps) {
  return caps->info_version >= 12 ? NULL
                                  : "lock contention events reach a profiler only through an in-process EventPipe "
                                    "session (ICorProfilerInfo12, .NET 5 and later)";
}

static void contention_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)caps;
  (void)cfg;
  (void)high;
  *low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
}

/* Starts an in-process EventPipe session on n providers for a feature whose flag *on is set from
 * before the call (its first events may arrive before the call returns) and cleared again if the
 * session cannot start. */
static int start_providers(ICorProfilerInfo15 *info, COR_PRF_EVENTPIPE_PROVIDER_CONFIG *providers, UINT32 n,
                           gboolean *on, EVENTPIPE_SESSION *ret_session, char **ret_why) {
  *on = TRUE;
  HRESULT hr = info->lpVtbl->EventPipeStartSession(info, n, providers, FALSE, ret_session);
  if (hr < 0) {
    *on = FALSE;
    const char *hr_name = sxs__hresult_name(hr);
    *ret_why = hr_name ? g_strdup_printf("EventPipeStartSession failed: %s", hr_name)
                       : g_strdup_printf("EventPipeStartSession failed: 0x%08X", (unsigned)hr);
    return -EIO;
  }
  return 0;
}

/* A session on the runtime's provider for one profile (start_providers). */
static int start_session(SxsCallback *self, ICorProfilerInfo15 *info, SxsProfileKind kind, guint64 keywords,
                         UINT32 level, char **ret_why) {
  g_autofree gunichar2 *name = g_utf8_to_utf16(SXS_RUNTIME_PROVIDER, -1, NULL, NULL, NULL);
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG provider = {
      .providerName = (const WCHAR *)name,
      .keywords = keywords,
      .loggingLevel = level,
      .filterData = NULL,
  };
  return start_providers(info, &provider, 1, &self->profiles_on[kind], &self->eventpipe_sessions[kind], ret_why);
}

static int contention_setup(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why) {
  (void)cfg;
  return start_session(self, info, SXS_PROFILE_CONTENTION, SXS_CONTENTION_KEYWORD, COR_PRF_EVENTPIPE_INFORMATIONAL,
                       ret_why);
}

static const SxsFeature contention_feature = {.name = "contention",
                                              .wanted = contention_wanted,
                                              .unsupported = contention_unsupported,
                                              .mask = contention_mask,
                                              .setup = contention_setup};

/* The allocation profile ([allocations] enabled=true): the runtime's own allocation samples through
 * an in-process EventPipe session, delivered on the allocating thread, which is walked there.
 *   .NET 10 and later: AllocationSampled (keyword 0x80000000000, level Informational), randomized:
 *     every allocated byte is a trial with probability 1/102400, an object sampled at its first
 *     success, with its type and size (see sxs_events.c for the upscaling). The GC keyword rides
 *     along at Informational for the collections' heap statistics; GCAllocationTick, at Verbose,
 *     does not come.
 *   .NET 5 to 9: GCAllocationTick (GC keyword 0x1 at level Verbose), one about every 100 KB
 *     allocated (per heap and small/large kind), naming the object that crossed the threshold and
 *     the bytes since the last one: those bytes are the sample's weight.
 * Of the collections' own events only GCHeapStats is read (the heap after each GC). Runtimes before
 * .NET 5 (no EventPipe session for a profiler) have it off: ObjectAllocated there would cost every
 * allocation a callback. */
#define SXS_GC_KEYWORD G_GUINT64_CONSTANT(0x1)
#define SXS_ALLOCATION_SAMPLING_KEYWORD G_GUINT64_CONSTANT(0x80000000000)

static gboolean allocations_wanted(const SxsConfig *cfg) {
  return cfg && cfg->profiles[SXS_PROFILE_ALLOCATIONS];
}

static const char *allocations_unsupported(const SxsCapabilities *caps) {
  return caps->info_version >= 12
             ? NULL
             : "allocation events reach a profiler only through an in-process EventPipe session (ICorProfilerInfo12, "
               ".NET 5 and later); ObjectAllocated would cost every allocation a callback";
}

static int allocations_setup(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why) {
  (void)cfg;
  /* Written before the session starts: its first events may come before it returns. */
  self->allocations_sampled = self->runtime->caps.allocation_sampled;
  int err =
      self->allocations_sampled
          ? start_session(self, info, SXS_PROFILE_ALLOCATIONS, SXS_GC_KEYWORD | SXS_ALLOCATION_SAMPLING_KEYWORD,
                          COR_PRF_EVENTPIPE_INFORMATIONAL, ret_why)
          : start_session(self, info, SXS_PROFILE_ALLOCATIONS, SXS_GC_KEYWORD, COR_PRF_EVENTPIPE_VERBOSE, ret_why);
  if (err == 0)
    sxs__manager_allocation_sampling(self->runtime,
                                     self->allocations_sampled ? "AllocationSampled" : "GCAllocationTick");
  return err;
}

static const SxsFeature allocations_feature = {.name = "allocations",
                                               .wanted = allocations_wanted,
                                               .unsupported = allocations_unsupported,
                                               .mask = contention_mask, /* stack snapshots */
                                               .setup = allocations_setup};

/* Endpoints ([labels] endpoints=true, --endpoints): which request each thread works for, from an
 * in-process EventPipe session on ASP.NET Core's hosting events (RequestStart with the method and
 * path, RequestStop); see manager/record/sxs_activity.h. A request that awaits may go on on
 * another thread: following it takes the TPL's async operations (TraceOperationBegin/End, keyword
 * 0x8), their pieces of work (TraceSynchronousWorkBegin/End, 0x20) and activity IDs flowing
 * across awaits (TasksFlowActivityIds, 0x80), a few events at each await, which cost a server of
 * cheap requests more than the 3 % the hosting events alone do (docs/PERFORMANCE.md,
 * "Endpoints"). They are asked for in a second session once a request is seen to leave its
 * thread (sxs__features_follow_awaits), not before. */
#define SXS_HOSTING_PROVIDER "Microsoft.AspNetCore.Hosting"
#define SXS_TPL_PROVIDER "System.Threading.Tasks.TplEventSource"
#define SXS_TPL_KEYWORDS G_GUINT64_CONSTANT(0x8 | 0x20 | 0x80)
#define SXS_AWAITS_FEATURE "endpoints-awaits"
/* The route templates: the runtime's metrics source (its time series values, keyword 0x2) on the
 * routing's match counter alone, published every second, in the source's shared session (SessionId
 * SHARED), which another listener asking with the same interval and limits joins instead of being
 * refused (the source serves one session else). */
#define SXS_METRICS_PROVIDER "System.Diagnostics.Metrics"
#define SXS_METRICS_KEYWORDS G_GUINT64_CONSTANT(0x2)
#define SXS_METRICS_ARGS                                                                                               \
  "SessionId=SHARED;Metrics=" SXS_ROUTE_METER "\\" SXS_ROUTE_INSTRUMENT                                                \
  ";RefreshInterval=1;MaxTimeSeries=1000;MaxHistograms=10"

static gboolean endpoints_wanted(const SxsConfig *cfg) {
  return cfg && cfg->labels_endpoints;
}

static const char *endpoints_unsupported(const SxsCapabilities *caps) {
  return caps->info_version >= 12
             ? NULL
             : "requests are followed through an in-process EventPipe session (ICorProfilerInfo12, "
               ".NET 5 and later): no sample is labelled with an endpoint";
}

static int endpoints_setup(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why) {
  g_autofree gunichar2 *hosting = g_utf8_to_utf16(SXS_HOSTING_PROVIDER, -1, NULL, NULL, NULL);
  g_autofree gunichar2 *metrics = g_utf8_to_utf16(SXS_METRICS_PROVIDER, -1, NULL, NULL, NULL);
  g_autofree gunichar2 *metrics_args = g_utf8_to_utf16(SXS_METRICS_ARGS, -1, NULL, NULL, NULL);
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG providers[] = {
      {.providerName = (const WCHAR *)hosting,
       .keywords = G_MAXUINT64,
       .loggingLevel = COR_PRF_EVENTPIPE_INFORMATIONAL},
      {.providerName = (const WCHAR *)metrics,
       .keywords = SXS_METRICS_KEYWORDS,
       .loggingLevel = COR_PRF_EVENTPIPE_INFORMATIONAL,
       .filterData = (const WCHAR *)metrics_args},
  };
  EVENTPIPE_SESSION session = 0;
  UINT32 n = cfg->labels_routes ? G_N_ELEMENTS(providers) : 1;
  int r = start_providers(info, providers, n, &self->endpoints_on, &session, ret_why);
  if (r == 0)
    sxs__manager_feature_off(self->runtime, SXS_AWAITS_FEATURE,
                             "no request has left the thread it began on: the TPL's events (a few at each await) "
                             "were not needed");
  return r;
}

/* Asks for the TPL's events in a session of their own (off the thread that saw the request leave,
 * which is inside the runtime's writing of an event), through the Info guard. */
static gpointer follow_awaits_thread(gpointer data) {
  SxsCallback *self = data;
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info) {
    __atomic_store_n(&self->endpoints_awaits, SXS_AWAITS_FAILED, __ATOMIC_RELEASE);
    return NULL;
  }
  g_autofree gunichar2 *tpl = g_utf8_to_utf16(SXS_TPL_PROVIDER, -1, NULL, NULL, NULL);
  COR_PRF_EVENTPIPE_PROVIDER_CONFIG provider = {.providerName = (const WCHAR *)tpl,
                                                .keywords = SXS_TPL_KEYWORDS,
                                                .loggingLevel = COR_PRF_EVENTPIPE_INFORMATIONAL};
  EVENTPIPE_SESSION session = 0;
  gboolean on = FALSE;
  g_autofree char *failed = NULL;
  int r = start_providers(info, &provider, 1, &on, &session, &failed);
  sxs__callback_info_leave(self);
  if (r < 0) {
    __atomic_store_n(&self->endpoints_awaits, SXS_AWAITS_FAILED, __ATOMIC_RELEASE);
    g_autofree char *why = g_strdup_printf("requests leave their threads, and the TPL's events could not be asked "
                                           "for (%s): a request is followed only on the thread it began on",
                                           failed);
    sxs__manager_feature_off(self->runtime, SXS_AWAITS_FEATURE, why);
    return NULL;
  }
  __atomic_store_n(&self->endpoints_awaits, SXS_AWAITS_ON, __ATOMIC_RELEASE);
  sxs__manager_feature_on(self->runtime, SXS_AWAITS_FEATURE);
  return NULL;
}

void sxs__features_follow_awaits(SxsCallback *self) {
  gint none = SXS_AWAITS_NONE;
  if (__atomic_load_n(&self->endpoints_awaits, __ATOMIC_ACQUIRE) != SXS_AWAITS_NONE ||
      !__atomic_compare_exchange_n(&self->endpoints_awaits, &none, SXS_AWAITS_STARTING, FALSE, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return;
  GThread *t = g_thread_try_new("sxs-awaits", follow_awaits_thread, self, NULL);
  if (t)
    g_thread_unref(t);
  else
    __atomic_store_n(&self->endpoints_awaits, SXS_AWAITS_FAILED, __ATOMIC_RELEASE);
}

static const SxsFeature endpoints_feature = {
    .name = "endpoints", .wanted = endpoints_wanted, .unsupported = endpoints_unsupported, .setup = endpoints_setup};

/* In order: a setup may rely on the mask bits of the features before it. */
static const SxsFeature *const features[] = {&counters_feature,   &inventory_feature,    &stacks_feature,
                                             &sampling_feature,   &sxs__tracing_feature, &exceptions_feature,
                                             &contention_feature, &allocations_feature,  &endpoints_feature};

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
HRESULT sxs__features_run(SxsCallback *self, ICorProfilerInfo15 *info, const SxsCapabilities *caps) {
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
    if (f->mask)
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
