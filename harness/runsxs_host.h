/* runsxs: hosting one CoreCLR through libcoreclr.so's exported hosting functions. */
#pragma once

#include <glib.h>

#include "runsxs_framework.h"

/* The hosting functions libcoreclr.so has exported since CoreCLR 2.0. */
typedef int (*RunsxsCoreclrInitializeFn)(const char *exe_path, const char *app_domain_name, int property_count,
                                         const char **keys, const char **values, void **ret_host_handle,
                                         unsigned int *ret_domain_id);
typedef int (*RunsxsCoreclrExecuteAssemblyFn)(void *host_handle, unsigned int domain_id, int argc, const char **argv,
                                              const char *assembly_path, unsigned int *ret_exit_code);
typedef int (*RunsxsCoreclrCreateDelegateFn)(void *host_handle, unsigned int domain_id, const char *assembly_name,
                                             const char *type_name, const char *method_name, void **ret_delegate);
typedef int (*RunsxsCoreclrShutdown2Fn)(void *host_handle, unsigned int domain_id, int *ret_latched_exit_code);

/* One runtime of the command line and, once started, its hosting state. Owned by runsxs.c;
 * after the runtime's thread has started, only that thread touches the hosting fields. */
typedef struct {
  int index;            /* 1-based, command-line order */
  char *spec;           /* the RUNTIME operand as given */
  RunsxsFramework *fw;  /* the framework it resolved to (the source of any copy) */
  char *dir;            /* the folder actually loaded: fw->dir or a private copy of it */
  int copy;             /* 0: fw->dir itself; N: private copy N */
  char *native_aliases; /* folder of "lib" aliases of dir's native shims, or NULL */
  char *app_path;       /* absolute path of the managed assembly */
  char **app_argv;      /* its arguments (g_strfreev) */

  void *lib; /* dlopen handle of dir/libcoreclr.so */
  RunsxsCoreclrInitializeFn initialize;
  RunsxsCoreclrExecuteAssemblyFn execute_assembly;
  RunsxsCoreclrCreateDelegateFn create_delegate;
  RunsxsCoreclrShutdown2Fn shutdown_2;
  void *host_handle;
  unsigned int domain_id;
} RunsxsRuntime;

RunsxsRuntime *runsxs_runtime_new(int index, const char *spec, RunsxsFramework *fw, const char *app_path,
                                  char **app_argv);
void runsxs_runtime_free(RunsxsRuntime *rt);

/* Loads rt->dir/libcoreclr.so (RTLD_NOW | RTLD_LOCAL), resolves the hosting functions and calls
 * coreclr_initialize with a TPA list of the framework's and the app folder's assemblies.
 * bridge_dir is added to the native library search path so [DllImport("sxsbridge")] finds the
 * library runsxs itself uses. Returns the HRESULT of coreclr_initialize (0 on success), or
 * a negative value with *ret_why set when the library could not be loaded at all.
 * Context: the runtime's own thread, which must also call runsxs_host_execute(). */
int runsxs_host_start(RunsxsRuntime *rt, const char *bridge_dir, char **ret_why);

/* Runs the app's Main; returns the HRESULT and stores Main's exit code in *ret_exit_code.
 * Context: the thread that called runsxs_host_start() (CoreCLR 2.0 crashes on any other). */
int runsxs_host_execute(RunsxsRuntime *rt, int *ret_exit_code);

/* Shuts the runtime down (coreclr_shutdown_2); returns its HRESULT. The library stays loaded:
 * a runtime cannot be unloaded. Context: the runtime's own thread. */
int runsxs_host_shutdown(RunsxsRuntime *rt);

/* The symbolic name and meaning of an HRESULT a hosting function returns, e.g.
 * "HOST_E_INVALIDOPERATION: ...". Never NULL; static storage. */
const char *runsxs_hresult_describe(unsigned int hr);
