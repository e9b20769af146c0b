/* sxs_tracing: the call-tracing feature of a callback instance. At Initialize it registers the
 * function-ID mapper (routing=mapper2: SetFunctionIDMapper2 with the instance as clientData;
 * routing=closure: a libffi closure bound to the instance, through the clientData-less
 * SetFunctionIDMapper) and the Enter/Leave/Tailcall hooks: the assembly trampolines on the fast
 * path, plain C functions on the slow path (WithInfo) when the runtime refuses the fast one.
 * What the hooks record lives in manager/record/sxs_trace.c. libffi is opened at the first
 * closure: a process that makes none never loads it. */
#include <dlfcn.h>
#include <errno.h>
#include <ffi.h>

#include "sxs_callback.h"
#include "sxs_hresult.h"
#include "sxs_trace.h"

/* callback/sxs_elt_amd64.S */
void sxs_elt_enter3(void);
void sxs_elt_leave3(void);
void sxs_elt_tailcall3(void);
void sxs_elt_empty3(void);

static gboolean tracing_wanted(const SxsConfig *cfg) {
  return cfg && cfg->tracing.enabled;
}

/* ENTERLEAVE for the probes, and inlining off unless allowed: an inlined method has no probes,
 * so exact counts need it off. Exceptions are monitored for the unwind callbacks that pop the
 * frames an exception leaves. */
static void tracing_mask(const SxsCapabilities *caps, const SxsConfig *cfg, DWORD *low, DWORD *high) {
  (void)caps;
  (void)high;
  *low |= COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_MONITOR_EXCEPTIONS;
  if (!cfg->tracing.inlining_allowed)
    *low |= COR_PRF_DISABLE_INLINING;
}

static const char *tracing_unsupported(const SxsCapabilities *caps) {
  if (caps->attached)
    return "not available after attach: a running runtime takes no Enter/Leave hooks (start the program with sxsprof "
           "run "
           "--trace instead)";
  if (!caps->elt3)
    return "the runtime has no ELT3 probes (ICorProfilerInfo3 and .NET Core 2.1 or later are needed; 2.0's Linux JIT "
           "emits none)";
  return NULL;
}

/* FunctionIDMapper2: clientData is the callback instance of the runtime that is JIT-compiling.
 * Context: a JIT thread (see sxs__trace_map). */
static UINT_PTR tracing_mapper2(FunctionID function_id, void *client_data, BOOL *pbHookFunction) {
  SxsCallback *self = client_data;
  int hook = 0;
  uintptr_t id = sxs__trace_map(self->trace, function_id, &hook);
  if (pbHookFunction)
    *pbHookFunction = hook ? TRUE : FALSE;
  return id;
}

/* The closure's body: the same mapper, with the instance bound as libffi user data. */
static void tracing_closure(ffi_cif *cif, void *ret, void **args, void *user_data) {
  (void)cif;
  FunctionID function_id = *(FunctionID *)args[0];
  BOOL *hook = *(BOOL **)args[1];
  *(ffi_arg *)ret = (ffi_arg)tracing_mapper2(function_id, user_data, hook);
}

/* The slow-path hooks: the runtime's own stubs save every register and call these as ordinary
 * functions. */
static void slow_enter(FunctionIDOrClientID id, COR_PRF_ELT_INFO info) {
  (void)info;
  sxs__trace_enter(id.clientID);
}

static void slow_leave(FunctionIDOrClientID id, COR_PRF_ELT_INFO info) {
  (void)info;
  sxs__trace_leave(id.clientID);
}

static void slow_tailcall(FunctionIDOrClientID id, COR_PRF_ELT_INFO info) {
  (void)info;
  sxs__trace_tailcall(id.clientID);
}

static void slow_empty(FunctionIDOrClientID id, COR_PRF_ELT_INFO info) {
  (void)id;
  (void)info;
}

/* The part of libffi the closures use, opened once (never closed: the closures live until the
 * process ends), and one call interface for every runtime's closure: UINT_PTR (FunctionID, BOOL *).
 * Written once under the g_once of closure_ffi_ready, read-only afterwards. */
static struct {
  ffi_status (*prep_cif)(ffi_cif *cif, ffi_abi abi, unsigned int nargs, ffi_type *rtype, ffi_type **atypes);
  void *(*closure_alloc)(size_t size, void **code);
  ffi_status (*prep_closure_loc)(ffi_closure *closure, ffi_cif *cif,
                                 void (*fun)(ffi_cif *cif, void *ret, void **args, void *user_data), void *user_data,
                                 void *codeloc);
  ffi_cif cif;
  ffi_type *args[2];
  const char *problem; /* why there is no call interface, NULL when there is one */
} closure_ffi;

/* Opens libffi and prepares the call interface; the problem's sentence otherwise. Runs once. */
static const char *closure_ffi_load(void) {
  void *lib = dlopen(SXS_LIBFFI_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return "libffi (" SXS_LIBFFI_SONAME ") cannot be loaded";
  closure_ffi.prep_cif = (__typeof__(closure_ffi.prep_cif))dlsym(lib, "ffi_prep_cif");
  closure_ffi.closure_alloc = (__typeof__(closure_ffi.closure_alloc))dlsym(lib, "ffi_closure_alloc");
  closure_ffi.prep_closure_loc = (__typeof__(closure_ffi.prep_closure_loc))dlsym(lib, "ffi_prep_closure_loc");
  ffi_type *u64 = dlsym(lib, "ffi_type_uint64");
  ffi_type *pointer = dlsym(lib, "ffi_type_pointer");
  if (!closure_ffi.prep_cif || !closure_ffi.closure_alloc || !closure_ffi.prep_closure_loc || !u64 || !pointer)
    return "libffi (" SXS_LIBFFI_SONAME ") lacks the closure API";
  closure_ffi.args[0] = u64;
  closure_ffi.args[1] = pointer;
  if (closure_ffi.prep_cif(&closure_ffi.cif, FFI_DEFAULT_ABI, 2, u64, closure_ffi.args) != FFI_OK)
    return "libffi could not prepare the mapper's call interface";
  return NULL;
}

static int register_mapper(SxsCallback *self, ICorProfilerInfo15 *info, SxsRouting routing, char **ret_why) {
  HRESULT hr;
  if (routing == SXS_ROUTING_CLOSURE) {
    static gsize closure_ffi_ready;
    if (g_once_init_enter(&closure_ffi_ready)) {
      closure_ffi.problem = closure_ffi_load();
      g_once_init_leave(&closure_ffi_ready, 1);
    }
    if (closure_ffi.problem) {
      *ret_why = g_strdup(closure_ffi.problem);
      return -EINVAL;
    }
    void *code = NULL;
    /* Never freed: the runtime may call its mapper until the process ends. */
    ffi_closure *closure = closure_ffi.closure_alloc(sizeof(ffi_closure), &code);
    if (!closure || closure_ffi.prep_closure_loc(closure, &closure_ffi.cif, tracing_closure, self, code) != FFI_OK) {
      *ret_why = g_strdup("libffi could not make the mapper closure");
      return -ENOMEM;
    }
    hr = info->lpVtbl->SetFunctionIDMapper(info, (FunctionIDMapper *)code);
    if (hr < 0) {
      char hr_text[16];
      *ret_why = g_strdup_printf("SetFunctionIDMapper failed with %s", sxs__hresult_text(hr, hr_text, sizeof hr_text));
      return -EIO;
    }
    return 0;
  }
  hr = info->lpVtbl->SetFunctionIDMapper2(info, tracing_mapper2, self);
  if (hr < 0) {
    *ret_why = g_strdup_printf("SetFunctionIDMapper2 failed with 0x%08X", (unsigned)hr);
    return -EIO;
  }
  return 0;
}

/* The slow path needs frame information in the mask before its hooks are set. */
static HRESULT set_slow_hooks(ICorProfilerInfo15 *info, const SxsCapabilities *caps, gboolean empty) {
  DWORD low = 0, high = 0;
  HRESULT hr =
      caps->event_mask2 ? info->lpVtbl->GetEventMask2(info, &low, &high) : info->lpVtbl->GetEventMask(info, &low);
  if (hr < 0)
    return hr;
  low |= COR_PRF_ENABLE_FRAME_INFO;
  hr = caps->event_mask2 ? info->lpVtbl->SetEventMask2(info, low, high) : info->lpVtbl->SetEventMask(info, low);
  if (hr < 0)
    return hr;
  if (empty)
    return info->lpVtbl->SetEnterLeaveFunctionHooks3WithInfo(info, slow_empty, slow_empty, slow_empty);
  return info->lpVtbl->SetEnterLeaveFunctionHooks3WithInfo(info, slow_enter, slow_leave, slow_tailcall);
}

static int tracing_setup(SxsCallback *self, ICorProfilerInfo15 *info, const SxsConfig *cfg, char **ret_why) {
  const SxsTracingConfig *tc = &cfg->tracing;
  self->trace = sxs__trace_runtime_new(self->runtime, tc);
  if (!self->trace) {
    *ret_why = g_strdup_printf("at most %d runtimes of one process can be traced", SXS_TRACE_MAX_RUNTIMES);
    return -ENOSPC;
  }
  int r = register_mapper(self, info, tc->routing, ret_why);
  if (r < 0)
    return r;
  const char *routing = tc->routing == SXS_ROUTING_CLOSURE ? "closure" : "mapper2";
  gboolean empty = tc->hooks == SXS_HOOKS_EMPTY;
  FunctionEnter3 *enter = empty ? (FunctionEnter3 *)sxs_elt_empty3 : (FunctionEnter3 *)sxs_elt_enter3;
  FunctionLeave3 *leave = empty ? (FunctionLeave3 *)sxs_elt_empty3 : (FunctionLeave3 *)sxs_elt_leave3;
  FunctionTailcall3 *tail = empty ? (FunctionTailcall3 *)sxs_elt_empty3 : (FunctionTailcall3 *)sxs_elt_tailcall3;
  HRESULT hr = E_FAIL;
  if (!tc->slow_path) {
    hr = info->lpVtbl->SetEnterLeaveFunctionHooks3(info, enter, leave, tail);
    if (hr >= 0) {
      sxs__trace_runtime_set_path(self->trace, "fast", routing);
      return 0;
    }
    sxs__manager_log("runtime %d: the fast-path hooks were refused (0x%08X); using the slow path", self->runtime->id,
                     (unsigned)hr);
  }
  SxsCapabilities caps = {0};
  sxs__manager_capabilities(self->runtime, &caps);
  hr = set_slow_hooks(info, &caps, empty);
  if (hr < 0) {
    *ret_why = g_strdup_printf("neither hook path was accepted (slow path: 0x%08X)", (unsigned)hr);
    return -EIO;
  }
  sxs__trace_runtime_set_path(self->trace, "slow", routing);
  return 0;
}

const SxsFeature sxs__tracing_feature = {
    .name = "tracing",
    .wanted = tracing_wanted,
    .mask = tracing_mask,
    .unsupported = tracing_unsupported,
    .setup = tracing_setup,
};
