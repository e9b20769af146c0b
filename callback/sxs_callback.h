/* One ICorProfilerCallback11 object per runtime, and the class factory that makes them. */
#pragma once

#include <glib.h>

#include "sxs_cor.h"
#include "sxs_manager.h"

/* The metadata importers of one runtime's modules, kept so that naming the thousands of functions
 * a program runs asks the runtime for each module's importer once. `lock` guards by_module; each
 * entry holds one reference, dropped when the module unloads or the runtime shuts down. */
typedef struct {
  GMutex lock;
  GHashTable *by_module; /* ModuleID -> IMetaDataImport* */
} SxsImporterCache;

void sxs__importer_cache_init(SxsImporterCache *cache);
/* Releases every importer; the cache stays usable (and empty). */
void sxs__importer_cache_clear(SxsImporterCache *cache);
void sxs__importer_cache_fini(SxsImporterCache *cache);
void sxs__importer_cache_forget(SxsImporterCache *cache, ModuleID module_id);

/* The callback object a runtime holds. Everything it records goes to `runtime`, the registry
 * entry of the runtime that created it, so IDs never cross runtimes. */
typedef struct {
  ICorProfilerCallback11 iface; /* first: the runtime's pointer is a pointer to this struct */
  gint refcount;
  SxsRuntime *runtime;          /* owned by the manager */
  ICorProfilerInfo15 *info;     /* this runtime's Info; one reference held, dropped at Shutdown.
                                 * Its capabilities are in runtime->caps. */
  SxsImporterCache importers;   /* emptied at Shutdown */
} SxsCallback;

/* A new callback object with one reference, for the runtime `rt`. NULL when out of memory. */
SxsCallback *sxs__callback_new(SxsRuntime *rt);

/* DllGetClassObject's body: the class factory for CLSID_SxsProfiler. */
HRESULT sxs__callback_get_class_object(REFCLSID rclsid, REFIID riid, void **ppv);

/* Namespace.Type.Method of a function and its ModuleID, read through the module's
 * IMetaDataImport (taken from `cache`, or asked of the runtime and kept there). Context: a runtime
 * callback thread (may allocate, may block). */
int sxs__callback_function_name(ICorProfilerInfo15 *info, SxsImporterCache *cache, FunctionID function_id,
                                char **ret_name, ModuleID *ret_module);

/* UTF-16 from the runtime to UTF-8; NULL on invalid input. */
char *sxs__callback_utf8(const WCHAR *s, gssize len);
