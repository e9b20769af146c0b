/* runsxs: starting, running and stopping one CoreCLR through libcoreclr.so directly.
 *
 * hostfxr/hostpolicy are not used: they refuse a second runtime in a process. Instead each
 * runtime gets the properties the muxer would have computed:
 *   TRUSTED_PLATFORM_ASSEMBLIES   framework *.dll, then app-folder *.dll the framework lacks
 *   APP_PATHS, APP_CONTEXT_BASE_DIRECTORY   the app folder
 *   NATIVE_DLL_SEARCH_DIRECTORIES app folder : framework folder [: its "lib" aliases] :
 *                                 libsxsbridge.so's folder
 * This file knows nothing about threads or other runtimes; runsxs.c decides who calls what. */
#include "runsxs_host.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

RunsxsRuntime *runsxs_runtime_new(int index, const char *spec, RunsxsFramework *fw, const char *app_path,
                                  char **app_argv) {
  RunsxsRuntime *rt = g_new0(RunsxsRuntime, 1);
  rt->index = index;
  rt->spec = g_strdup(spec);
  rt->fw = fw;
  rt->dir = g_strdup(fw->dir);
  rt->app_path = g_strdup(app_path);
  rt->app_argv = app_argv;
  return rt;
}

void runsxs_runtime_free(RunsxsRuntime *rt) {
  if (!rt)
    return;
  g_free(rt->spec);
  runsxs_framework_free(rt->fw);
  g_free(rt->dir);
  g_free(rt->native_aliases);
  g_free(rt->app_path);
  g_strfreev(rt->app_argv);
  /* rt->lib stays loaded on purpose: a CoreCLR cannot be unloaded. */
  g_free(rt);
}

/* The simple name of an assembly file: "System.Runtime.dll" -> "System.Runtime". */
static char *assembly_simple_name(const char *file) {
  const char *dot = strrchr(file, '.');
  return dot ? g_strndup(file, dot - file) : g_strdup(file);
}

/* g_ptr_array_sort() comparator for an array of strings (it passes pointers to the elements). */
static int compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted file names in dir ending in one of the suffixes. */
static GPtrArray *list_files(const char *dir, const char *const *suffixes) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  if (!d)
    return names;
  const char *name;
  while ((name = g_dir_read_name(d))) {
    for (const char *const *s = suffixes; *s; s++) {
      if (g_str_has_suffix(name, *s)) {
        g_ptr_array_add(names, g_strdup(name));
        break;
      }
    }
  }
  g_ptr_array_sort(names, compare_names);
  return names;
}

/* The TPA list: every assembly of the framework folder, then those of the app folder whose simple
 * name the framework does not have (the framework wins), then the app itself if it was not
 * included yet (e.g. a .exe). */
static char *build_tpa(const char *fw_dir, const char *app_dir, const char *app_path) {
  static const char *const dll[] = {".dll", NULL};
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GString) tpa = g_string_new(NULL);
  gboolean app_included = FALSE;

  g_autoptr(GPtrArray) fw_files = list_files(fw_dir, dll);
  for (guint i = 0; i < fw_files->len; i++) {
    const char *name = fw_files->pdata[i];
    char *simple = assembly_simple_name(name);
    if (!g_hash_table_add(seen, simple))
      continue;
    g_autofree char *path = g_build_filename(fw_dir, name, NULL);
    g_string_append_printf(tpa, "%s%s", tpa->len ? ":" : "", path);
  }
  g_autoptr(GPtrArray) app_files = list_files(app_dir, dll);
  for (guint i = 0; i < app_files->len; i++) {
    const char *name = app_files->pdata[i];
    char *simple = assembly_simple_name(name);
    if (!g_hash_table_add(seen, simple))
      continue;
    g_autofree char *path = g_build_filename(app_dir, name, NULL);
    if (strcmp(path, app_path) == 0)
      app_included = TRUE;
    g_string_append_printf(tpa, "%s%s", tpa->len ? ":" : "", path);
  }
  g_autofree char *app_base = g_path_get_basename(app_path);
  g_autofree char *app_simple = assembly_simple_name(app_base);
  if (!app_included && !g_hash_table_contains(seen, app_simple))
    g_string_append_printf(tpa, "%s%s", tpa->len ? ":" : "", app_path);
  return g_string_free(g_steal_pointer(&tpa), FALSE);
}

/* CoreCLR before 5.0 probes libicuuc.so only up to a fixed version (70 for 2.0) and fails fast
 * when the system has a newer one, so such runtimes run with invariant globalization unless the
 * user chose an ICU version through CLR_ICU_VERSION_OVERRIDE. */
static gboolean needs_invariant_globalization(const RunsxsRuntime *rt) {
  if (g_getenv("CLR_ICU_VERSION_OVERRIDE"))
    return FALSE;
  return runsxs_version_compare(rt->fw->version, "5") < 0 && g_strcmp0(rt->fw->version, "unknown") != 0;
}

int runsxs_host_start(RunsxsRuntime *rt, const char *bridge_dir, char **ret_why) {
  g_autofree char *lib_path = g_build_filename(rt->dir, "libcoreclr.so", NULL);
  rt->lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
  if (!rt->lib) {
    *ret_why = g_strdup_printf("cannot load %s: %s", lib_path, dlerror());
    return -1;
  }
  rt->initialize = (RunsxsCoreclrInitializeFn)dlsym(rt->lib, "coreclr_initialize");
  rt->execute_assembly = (RunsxsCoreclrExecuteAssemblyFn)dlsym(rt->lib, "coreclr_execute_assembly");
  rt->create_delegate = (RunsxsCoreclrCreateDelegateFn)dlsym(rt->lib, "coreclr_create_delegate");
  rt->shutdown_2 = (RunsxsCoreclrShutdown2Fn)dlsym(rt->lib, "coreclr_shutdown_2");
  if (!rt->initialize || !rt->execute_assembly || !rt->create_delegate || !rt->shutdown_2) {
    *ret_why = g_strdup_printf("%s lacks the coreclr_* hosting functions", lib_path);
    return -1;
  }

  g_autofree char *app_dir = g_path_get_dirname(rt->app_path);
  g_autofree char *tpa = build_tpa(rt->dir, app_dir, rt->app_path);
  g_autofree char *base_dir = g_strconcat(app_dir, "/", NULL);
  g_autofree char *native = rt->native_aliases ? g_strjoin(":", app_dir, rt->dir, rt->native_aliases, bridge_dir, NULL)
                                               : g_strjoin(":", app_dir, rt->dir, bridge_dir, NULL);
  g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
  g_autofree char *domain = g_strdup_printf("runsxs-%d", rt->index);

  const char *keys[8], *values[8];
  int n = 0;
  keys[n] = "TRUSTED_PLATFORM_ASSEMBLIES", values[n++] = tpa;
  keys[n] = "APP_PATHS", values[n++] = app_dir;
  keys[n] = "APP_CONTEXT_BASE_DIRECTORY", values[n++] = base_dir;
  keys[n] = "NATIVE_DLL_SEARCH_DIRECTORIES", values[n++] = native;
  keys[n] = "PLATFORM_RESOURCE_ROOTS", values[n++] = app_dir;
  if (needs_invariant_globalization(rt))
    keys[n] = "System.Globalization.Invariant", values[n++] = "true";

  int hr = rt->initialize(exe ? exe : "runsxs", domain, n, keys, values, &rt->host_handle, &rt->domain_id);
  if (hr < 0)
    *ret_why = g_strdup_printf("coreclr_initialize failed: 0x%08x (%s)", (unsigned int)hr,
                               runsxs_hresult_describe((unsigned int)hr));
  return hr;
}

int runsxs_host_execute(RunsxsRuntime *rt, int *ret_exit_code) {
  unsigned int exit_code = 0;
  int argc = (int)g_strv_length(rt->app_argv);
  int hr =
      rt->execute_assembly(rt->host_handle, rt->domain_id, argc, (const char **)rt->app_argv, rt->app_path, &exit_code);
  if (hr >= 0)
    *ret_exit_code = (int)exit_code;
  return hr;
}

int runsxs_host_shutdown(RunsxsRuntime *rt) {
  int latched = 0;
  return rt->shutdown_2(rt->host_handle, rt->domain_id, &latched);
}

const char *runsxs_hresult_describe(unsigned int hr) {
  switch (hr) {
  case 0x80131022:
    return "HOST_E_INVALIDOPERATION: this libcoreclr.so already runs a runtime in this process; "
           "a second runtime needs a real copy of the framework folder";
  case 0x80131023:
    return "HOST_E_CLRNOTAVAILABLE: the runtime is not available (not started, already shut down, "
           "or disabled by an earlier error)";
  case 0x80131040: return "FUSION_E_REF_DEF_MISMATCH: the assembly found has a different name than the one asked for";
  case 0x80131524: return "COR_E_DLLNOTFOUND: a native library was not found";
  case 0x80004005: return "E_FAIL: unspecified failure (the runtime usually printed the reason above)";
  case 0x80070057: return "E_INVALIDARG: an invalid argument or runtime property";
  case 0x8007000e: return "E_OUTOFMEMORY: out of memory";
  case 0x80004003: return "E_POINTER: a NULL pointer";
  case 0x80070002: return "COR_E_FILENOTFOUND: an assembly or file was not found";
  case 0x80070003: return "COR_E_DIRECTORYNOTFOUND: a folder was not found";
  case 0x8007000b: return "COR_E_BADIMAGEFORMAT: not a valid assembly for this runtime";
  case 0x80131500: return "COR_E_EXCEPTION: a managed exception";
  case 0x80131506: return "COR_E_EXECUTIONENGINE: internal runtime error";
  case 0x80131509: return "COR_E_INVALIDOPERATION: invalid operation";
  case 0x80131513: return "COR_E_MISSINGMETHOD: the method was not found";
  case 0x80131522: return "COR_E_TYPELOAD: a type could not be loaded";
  case 0x80131523: return "COR_E_ENTRYPOINTNOTFOUND: the entry point was not found";
  case 0x80131604: return "COR_E_TARGETINVOCATION: the invoked method threw an exception";
  default: return "unknown HRESULT";
  }
}
