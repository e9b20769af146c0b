/* The class factory the runtime gets from DllGetClassObject: one static object for the process. */
#include "sxs_callback.h"

#include <dlfcn.h>

#include "sxs_manager.h"
#include "sxs_modules.h"

/* The factory is static and lives as long as the library; its reference count is kept only so
 * that AddRef/Release answer like COM objects do. CreateInstance may run concurrently on the
 * startup threads of several runtimes: all it touches is the manager (locked) and a new object. */
typedef struct {
  IClassFactory iface;
  gint refcount;
} SxsClassFactory;

static HRESULT factory_QueryInterface(IClassFactory *This, REFIID riid, void **ppv) {
  if (!ppv)
    return E_POINTER;
  if (sxs_guid_equal(riid, &IID_IUnknown) || sxs_guid_equal(riid, &IID_IClassFactory)) {
    *ppv = This;
    This->lpVtbl->AddRef(This);
    return S_OK;
  }
  *ppv = NULL;
  return E_NOINTERFACE;
}

static ULONG factory_AddRef(IClassFactory *This) {
  SxsClassFactory *self = (SxsClassFactory *)This;
  return (ULONG)g_atomic_int_add(&self->refcount, 1) + 1;
}

static ULONG factory_Release(IClassFactory *This) {
  SxsClassFactory *self = (SxsClassFactory *)This;
  gint old = g_atomic_int_add(&self->refcount, -1);
  return old > 1 ? (ULONG)(old - 1) : 1; /* static: never freed */
}

/* Identity of the runtime calling us: the caller's return address lies in its libcoreclr.so, or in
 * the executable of a single-file app, which holds the runtime. Its version is read from its files
 * (System.Private.CoreLib.dll's informational version and the like, 0.2 ms for 10.0's CoreLib) only
 * under pick-first, the one policy that may decline a runtime here, where the reason and the
 * profile name it; otherwise Initialize asks the runtime itself (GetRuntimeInformation). */
static void identify_caller(const void *return_address, char **ret_path, char **ret_version) {
  char *path = NULL, *version = NULL;
  const SxsConfig *cfg = sxs__manager_config();
  if (sxs__modules_path_of(return_address, &path) == 0 && sxs__modules_holds_runtime(path)) {
    if (cfg && cfg->mode == SXS_MODE_PICK_FIRST)
      sxs__modules_runtime_version(path, NULL, &version, NULL);
  } else {
    g_clear_pointer(&path, g_free);
  }
  *ret_path = path;
  *ret_version = version;
}

static HRESULT factory_CreateInstance(IClassFactory *This, IUnknown *pUnkOuter, REFIID riid, void **ppv) {
  (void)This;
  if (!ppv)
    return E_POINTER;
  *ppv = NULL;
  if (pUnkOuter)
    return CLASS_E_NOAGGREGATION;
  g_autofree char *path = NULL;
  g_autofree char *version = NULL;
  identify_caller(__builtin_return_address(0), &path, &version);
  SxsRuntime *rt = sxs__manager_admit(path, version);
  if (rt->status == SXS_RUNTIME_DECLINED)
    return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  SxsCallback *cb = sxs__callback_new(rt);
  if (!cb) {
    sxs__manager_decline(rt, "out of memory creating the callback object");
    return E_OUTOFMEMORY;
  }
  HRESULT hr = cb->iface.lpVtbl->QueryInterface(&cb->iface, riid, ppv);
  cb->iface.lpVtbl->Release(&cb->iface); /* the QueryInterface reference is the caller's */
  if (hr != S_OK)
    sxs__manager_decline(rt, "the runtime asked for an interface this profiler does not implement");
  return hr;
}

static HRESULT factory_LockServer(IClassFactory *This, BOOL fLock) {
  (void)This;
  (void)fLock;
  return S_OK;
}

static const IClassFactoryVtbl factory_vtbl = {
    .QueryInterface = factory_QueryInterface,
    .AddRef = factory_AddRef,
    .Release = factory_Release,
    .CreateInstance = factory_CreateInstance,
    .LockServer = factory_LockServer,
};

static SxsClassFactory factory = {.iface = {.lpVtbl = &factory_vtbl}, .refcount = 1};

HRESULT sxs__callback_get_class_object(REFCLSID rclsid, REFIID riid, void **ppv) {
  if (!ppv || !rclsid || !riid)
    return E_POINTER;
  *ppv = NULL;
  if (!sxs_guid_equal(rclsid, &CLSID_SxsProfiler))
    return CLASS_E_CLASSNOTAVAILABLE;
  sxs__manager_ensure();
  return factory_QueryInterface(&factory.iface, riid, ppv);
}
