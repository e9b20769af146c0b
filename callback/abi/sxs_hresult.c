/* The one table of HRESULT names (sxs_hresult.h): what stack walks, IP lookups and attach
 * requests can end with, written with the constants of sxs_cor.h, in the order of their values. */
#include "sxs_hresult.h"

#include <glib.h>

static const SxsHresult hresults[] = {
    {S_OK, "S_OK", NULL},
    {S_FALSE, "S_FALSE", NULL},
    {E_NOTIMPL, "E_NOTIMPL", NULL},
    {E_NOINTERFACE, "E_NOINTERFACE", "the profiler library does not implement an interface the runtime needs"},
    {E_FAIL, "E_FAIL", "the runtime failed without saying why"},
    {E_UNEXPECTED, "E_UNEXPECTED", NULL},
    {CLASS_E_CLASSNOTAVAILABLE, "CLASS_E_CLASSNOTAVAILABLE",
     "the profiler library does not provide the requested CLSID"},
    {COR_E_FILENOTFOUND, "COR_E_FILENOTFOUND", "the runtime could not find the profiler library"},
    {COR_E_DIRECTORYNOTFOUND, "COR_E_DIRECTORYNOTFOUND", "the runtime could not find the profiler library's folder"},
    {E_ACCESSDENIED, "E_ACCESSDENIED", "the runtime may not read the profiler library"},
    {COR_E_BADIMAGEFORMAT, "COR_E_BADIMAGEFORMAT", "the profiler library is not a loadable library for this process"},
    {E_OUTOFMEMORY, "E_OUTOFMEMORY", "the runtime ran out of memory"},
    {E_INVALIDARG, "E_INVALIDARG", "the runtime rejected the request's arguments"},
    {SXS_E_MOD_NOT_FOUND, "ERROR_MOD_NOT_FOUND", "the runtime could not load the profiler library"},
    {CORPROF_E_NOT_MANAGED_THREAD, "CORPROF_E_NOT_MANAGED_THREAD", NULL},
    {CORPROF_E_NOT_YET_AVAILABLE, "CORPROF_E_NOT_YET_AVAILABLE",
     "the runtime is not ready for this request (starting or shutting down)"},
    {CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD, "CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD", NULL},
    {CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX, "CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX", NULL},
    {CORPROF_E_STACKSNAPSHOT_UNSAFE, "CORPROF_E_STACKSNAPSHOT_UNSAFE", NULL},
    {CORPROF_E_STACKSNAPSHOT_ABORTED, "CORPROF_E_STACKSNAPSHOT_ABORTED", NULL},
    {CORPROF_E_UNSUPPORTED_CALL_SEQUENCE, "CORPROF_E_UNSUPPORTED_CALL_SEQUENCE", NULL},
    {CORPROF_E_ASYNCHRONOUS_UNSAFE, "CORPROF_E_ASYNCHRONOUS_UNSAFE", NULL},
    {CORPROF_E_PROFILER_DETACHING, "CORPROF_E_PROFILER_DETACHING",
     "a profiler is still detaching from this runtime; try again later"},
    {CORPROF_E_PROFILER_NOT_ATTACHABLE, "CORPROF_E_PROFILER_NOT_ATTACHABLE",
     "the profiler does not support attaching to a running process"},
    {CORPROF_E_PROFILER_ALREADY_ACTIVE, "CORPROF_E_PROFILER_ALREADY_ACTIVE",
     "a profiler is already loaded in this runtime (it takes only one)"},
    {CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER, "CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER",
     "the runtime's version cannot take this attach request"},
    {CORPROF_E_IPC_FAILED, "CORPROF_E_IPC_FAILED", "the attach request failed on its way to the runtime"},
    {CORPROF_E_PROFILEE_PROCESS_NOT_FOUND, "CORPROF_E_PROFILEE_PROCESS_NOT_FOUND",
     "the runtime's process was not found"},
    {CORPROF_E_CALLBACK3_REQUIRED, "CORPROF_E_CALLBACK3_REQUIRED",
     "the profiler does not implement ICorProfilerCallback3, which attaching needs"},
    {CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER, "CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER",
     "the profiler asked for something only a profiler loaded at start-up may have"},
    {CORPROF_E_RUNTIME_UNINITIALIZED, "CORPROF_E_RUNTIME_UNINITIALIZED",
     "the runtime has not finished starting; try again in a moment"},
    {CORPROF_E_INCONSISTENT_WITH_FLAGS, "CORPROF_E_INCONSISTENT_WITH_FLAGS", NULL},
    {CORPROF_E_PROFILER_CANCEL_ACTIVATION, "CORPROF_E_PROFILER_CANCEL_ACTIVATION",
     "the profiler declined to load into this runtime"},
    {CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE, "CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE",
     "the runtime's concurrent garbage collector prevents attaching"},
    {CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC, "CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC",
     "the runtime timed out waiting for a concurrent garbage collection; try again"},
    {CORDIAGIPC_E_BAD_ENCODING, "CORDIAGIPC_E_BAD_ENCODING", "the runtime could not read the request"},
    {CORDIAGIPC_E_UNKNOWN_COMMAND, "CORDIAGIPC_E_UNKNOWN_COMMAND", "the runtime does not know this command"},
    {CORDIAGIPC_E_UNKNOWN_MAGIC, "CORDIAGIPC_E_UNKNOWN_MAGIC",
     "the runtime does not speak this version of the protocol"},
    {CORDIAGIPC_E_UNKNOWN_ERROR, "CORDIAGIPC_E_UNKNOWN_ERROR", "the runtime failed for an unknown reason"},
    {COR_E_TIMEOUT, "COR_E_TIMEOUT", "the runtime timed out"},
    {COR_E_NOTSUPPORTED, "COR_E_NOTSUPPORTED", "this runtime cannot attach profilers"},
};

const SxsHresult *sxs__hresult_find(HRESULT hr) {
  for (size_t i = 0; i < G_N_ELEMENTS(hresults); i++)
    if (hresults[i].hr == hr)
      return &hresults[i];
  return NULL;
}

const char *sxs__hresult_name(HRESULT hr) {
  const SxsHresult *h = sxs__hresult_find(hr);
  return h ? h->name : NULL;
}

const char *sxs__hresult_text(HRESULT hr, char *buf, size_t size) {
  const char *name = sxs__hresult_name(hr);
  if (name)
    return name;
  g_snprintf(buf, size, "0x%08X", (unsigned)hr);
  return buf;
}
