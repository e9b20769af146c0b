/* Names of JIT-compiled functions, read from the runtime's metadata: Namespace.Type.Method. */
#include <errno.h>

#include "sxs_callback.h"
#include "sxs_metadata.h"
#include "sxs_pdb.h"

#define SXS_NAME_CAPACITY 1024
#define SXS_NESTING_LIMIT 16

char *sxs__callback_utf8(const WCHAR *s, gssize len) {
  if (!s)
    return NULL;
  return g_utf16_to_utf8((const gunichar2 *)s, len, NULL, NULL, NULL);
}

/* The name of a type definition with its namespace, and its enclosing types joined by '.'. */
static char *type_name(IMetaDataImport *md, mdTypeDef td) {
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func(g_free);
  for (int depth = 0; depth < SXS_NESTING_LIMIT && td != 0; depth++) {
    WCHAR name[SXS_NAME_CAPACITY];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (md->lpVtbl->GetTypeDefProps(md, td, name, SXS_NAME_CAPACITY, &len, &flags, &extends) < 0)
      break;
    char *utf8 = sxs__callback_utf8(name, -1);
    g_ptr_array_insert(parts, 0, utf8 ? utf8 : g_strdup("?"));
    mdTypeDef outer = 0;
    /* Only nested types have an enclosing class; for others the call fails or gives 0. */
    if (md->lpVtbl->GetNestedClassProps(md, td, &outer) < 0)
      break;
    td = outer;
  }
  if (parts->len == 0)
    return NULL;
  g_ptr_array_add(parts, NULL);
  return g_strjoinv(".", (char **)parts->pdata);
}

static void importer_release(gpointer p) {
  IMetaDataImport *md = p;
  md->lpVtbl->Release(md);
}

static GHashTable *assemblies_new(void) {
  return g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)sxs__metadata_free);
}

void sxs__importer_cache_init(SxsImporterCache *cache) {
  g_mutex_init(&cache->lock);
  cache->by_module = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, importer_release);
  cache->assemblies = assemblies_new();
}

void sxs__importer_cache_clear(SxsImporterCache *cache) {
  g_mutex_lock(&cache->lock);
  GHashTable *old = cache->by_module, *old_assemblies = cache->assemblies;
  cache->by_module = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, importer_release);
  cache->assemblies = assemblies_new();
  g_mutex_unlock(&cache->lock);
  g_hash_table_unref(old); /* Releases outside the lock */
  g_hash_table_unref(old_assemblies);
}

void sxs__importer_cache_fini(SxsImporterCache *cache) {
  g_hash_table_unref(cache->by_module);
  g_hash_table_unref(cache->assemblies);
  g_mutex_clear(&cache->lock);
}

void sxs__importer_cache_forget(SxsImporterCache *cache, ModuleID module_id) {
  g_mutex_lock(&cache->lock);
  g_hash_table_remove(cache->assemblies, GSIZE_TO_POINTER(module_id));
  IMetaDataImport *md = g_hash_table_lookup(cache->by_module, GSIZE_TO_POINTER(module_id));
  if (md)
    g_hash_table_steal(cache->by_module, GSIZE_TO_POINTER(module_id));
  g_mutex_unlock(&cache->lock);
  if (md)
    md->lpVtbl->Release(md);
}

/* Does the runtime refuse the call now rather than for good? It refuses metadata reads on a thread
 * in a state it does not allow them in (another runtime's callback on that thread, a suspension),
 * where the same read on a thread of the profiler's works. */
static gboolean not_now(HRESULT hr) {
  return hr == CORPROF_E_UNSUPPORTED_CALL_SEQUENCE || hr == CORPROF_E_ASYNCHRONOUS_UNSAFE ||
         hr == CORPROF_E_NOT_YET_AVAILABLE;
}

/* The module's importer with one reference for the caller, or NULL with *ret_hr. The runtime is
 * asked outside the lock; when two threads race, the first importer stored wins. */
static IMetaDataImport *importer_get(ICorProfilerInfo15 *info, SxsImporterCache *cache, ModuleID module_id,
                                     HRESULT *ret_hr) {
  g_mutex_lock(&cache->lock);
  IMetaDataImport *md = g_hash_table_lookup(cache->by_module, GSIZE_TO_POINTER(module_id));
  if (md)
    md->lpVtbl->AddRef(md);
  g_mutex_unlock(&cache->lock);
  if (md)
    return md;
  IUnknown *unk = NULL;
  HRESULT hr = info->lpVtbl->GetModuleMetaData(info, module_id, ofRead, &IID_IMetaDataImport, &unk);
  if (hr < 0 || !unk) {
    *ret_hr = hr < 0 ? hr : E_FAIL;
    return NULL;
  }
  md = (IMetaDataImport *)unk;
  g_mutex_lock(&cache->lock);
  IMetaDataImport *stored = g_hash_table_lookup(cache->by_module, GSIZE_TO_POINTER(module_id));
  if (!stored) {
    md->lpVtbl->AddRef(md); /* the cache's reference */
    g_hash_table_insert(cache->by_module, GSIZE_TO_POINTER(module_id), md);
  }
  g_mutex_unlock(&cache->lock);
  return md;
}

/* The name of method token of module_id from the module's own file, or NULL (no file to read).
 * The file is opened once per module. */
static char *name_from_file(ICorProfilerInfo15 *info, SxsImporterCache *cache, ModuleID module_id, mdToken token) {
  gpointer key = GSIZE_TO_POINTER(module_id);
  g_mutex_lock(&cache->lock);
  gpointer found = NULL;
  gboolean known = g_hash_table_lookup_extended(cache->assemblies, key, NULL, &found);
  g_mutex_unlock(&cache->lock);
  if (!known) {
    g_autofree char *path = sxs__callback_module_path(info, module_id);
    SxsMetadata *opened = path && g_path_is_absolute(path) ? sxs__metadata_open_assembly(path, NULL) : NULL;
    g_mutex_lock(&cache->lock);
    if (!g_hash_table_lookup_extended(cache->assemblies, key, NULL, NULL))
      g_hash_table_insert(cache->assemblies, key, g_steal_pointer(&opened));
    g_mutex_unlock(&cache->lock);
    sxs__metadata_free(opened); /* another thread stored its own first */
  }
  g_mutex_lock(&cache->lock);
  const SxsMetadata *md = g_hash_table_lookup(cache->assemblies, key);
  char *name = md ? sxs__metadata_method_name(md, token) : NULL;
  g_mutex_unlock(&cache->lock);
  return name;
}

int sxs__callback_function_name(ICorProfilerInfo15 *info, SxsImporterCache *cache, FunctionID function_id,
                                char **ret_name, ModuleID *ret_module) {
  ClassID class_id = 0;
  ModuleID module_id = 0;
  mdToken token = 0;
  HRESULT hr = info->lpVtbl->GetFunctionInfo(info, function_id, &class_id, &module_id, &token);
  if (hr < 0)
    return not_now(hr) ? -EAGAIN : -ENOENT;
  char *from_file = name_from_file(info, cache, module_id, token);
  if (from_file) {
    *ret_name = from_file;
    if (ret_module)
      *ret_module = module_id;
    return 0;
  }
  IMetaDataImport *md = importer_get(info, cache, module_id, &hr);
  if (!md)
    return not_now(hr) ? -EAGAIN : -ENOENT;

  WCHAR method[SXS_NAME_CAPACITY];
  ULONG len = 0;
  mdTypeDef owner = 0;
  DWORD attr = 0, impl = 0;
  PCCOR_SIGNATURE sig = NULL;
  ULONG sig_len = 0, rva = 0;
  hr = md->lpVtbl->GetMethodProps(md, token, &owner, method, SXS_NAME_CAPACITY, &len, &attr, &sig, &sig_len, &rva,
                                  &impl);
  char *result = NULL;
  if (hr >= 0) {
    g_autofree char *method_utf8 = sxs__callback_utf8(method, -1);
    g_autofree char *type = type_name(md, owner);
    if (type && !g_str_equal(type, "<Module>"))
      result = g_strdup_printf("%s.%s", type, method_utf8 ? method_utf8 : "?");
    else
      result = g_strdup(method_utf8 ? method_utf8 : "?");
  }
  md->lpVtbl->Release(md);
  if (!result)
    return -ENOENT;
  *ret_name = result;
  if (ret_module)
    *ret_module = module_id;
  return 0;
}

/* Element types the metadata has no TypeDef to name with, as C# spells them in System. */
static const char *primitive_name(CorElementType t) {
  switch (t) {
  case 0x02: return "System.Boolean";
  case 0x03: return "System.Char";
  case 0x04: return "System.SByte";
  case 0x05: return "System.Byte";
  case 0x06: return "System.Int16";
  case 0x07: return "System.UInt16";
  case 0x08: return "System.Int32";
  case 0x09: return "System.UInt32";
  case 0x0a: return "System.Int64";
  case 0x0b: return "System.UInt64";
  case 0x0c: return "System.Single";
  case 0x0d: return "System.Double";
  case 0x0e: return "System.String";
  case 0x18: return "System.IntPtr";
  case 0x19: return "System.UIntPtr";
  case 0x1c: return "System.Object";
  default: return NULL;
  }
}

int sxs__callback_class_name(ICorProfilerInfo15 *info, SxsImporterCache *cache, ClassID class_id, char **ret_name) {
  CorElementType elem = 0;
  ClassID elem_class = 0;
  ULONG rank = 0;
  /* S_OK: an array (of elem_class, or of a primitive when that is 0); S_FALSE: not an array. */
  if (info->lpVtbl->IsArrayClass(info, class_id, &elem, &elem_class, &rank) == S_OK) {
    g_autofree char *inner = NULL;
    if (elem_class != 0 && elem_class != class_id)
      sxs__callback_class_name(info, cache, elem_class, &inner);
    if (!inner)
      inner = g_strdup(primitive_name(elem) ? primitive_name(elem) : "?");
    g_autofree char *commas = rank > 1 ? g_strnfill(MIN(rank, 32) - 1, ',') : g_strdup("");
    *ret_name = g_strdup_printf("%s[%s]", inner, commas);
    return 0;
  }
  ModuleID module_id = 0;
  mdTypeDef td = 0;
  if (info->lpVtbl->GetClassIDInfo(info, class_id, &module_id, &td) < 0 || td == 0)
    return -ENOENT;
  HRESULT hr = S_OK;
  IMetaDataImport *md = importer_get(info, cache, module_id, &hr);
  if (!md)
    return -ENOENT;
  char *name = type_name(md, td);
  md->lpVtbl->Release(md);
  if (!name)
    return -ENOENT;
  *ret_name = name;
  return 0;
}
