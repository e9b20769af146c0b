/* libsxsbridge.so: calls a static managed method in any runtime of a process that hosts several.
 *
 * runsxs registers each runtime it started (1-based index, command-line order); managed code in
 * any runtime reaches sxs_bridge_call() through [DllImport("sxsbridge")]. Since the host and every
 * runtime load the same file, they share one registry. Nothing here is async-signal-safe. */
#pragma once

#include <stdint.h>

#define SXS_BRIDGE_API __attribute__((visibility("default")))

/* Largest runtime index the registry holds. */
#define SXS_BRIDGE_MAX_RUNTIMES 64

/* The signature of coreclr_create_delegate in every CoreCLR version since 2.0. */
typedef int (*SxsBridgeCreateDelegateFn)(void *host_handle, unsigned int domain_id, const char *assembly_name,
                                         const char *type_name, const char *method_name, void **ret_delegate);

/* Makes runtime `index` (1..SXS_BRIDGE_MAX_RUNTIMES) callable. create_delegate_fn is that
 * runtime's coreclr_create_delegate; host_handle and domain_id come from its coreclr_initialize.
 * Returns 0, or -EINVAL for a bad index or a NULL function.
 * Context: any thread; call before code that may call into this runtime starts. */
SXS_BRIDGE_API int sxs_bridge_register(int index, void *create_delegate_fn, void *host_handle, unsigned int domain_id);

/* Forgets runtime `index` and its cached delegates; later calls to it fail cleanly. Call before
 * the runtime shuts down. Context: any thread. */
SXS_BRIDGE_API void sxs_bridge_unregister(int index);

/* Closes the bridge for good: later calls return INT32_MIN without entering any runtime. Then
 * waits, at most timeout_ms milliseconds, until calls already inside a runtime have returned
 * (the calling thread's own calls excepted). The host calls it when the process starts to exit:
 * a runtime that is shutting down aborts the process when a foreign thread calls into it.
 * Context: any thread. */
SXS_BRIDGE_API void sxs_bridge_close(int timeout_ms);

/* Waits until runtime `index` is registered, at most timeout_ms milliseconds (negative: no
 * limit). Returns 0 when it is, -ETIMEDOUT or -EINVAL otherwise. Lets managed code that was
 * started together with other runtimes wait for them instead of racing their start-up.
 * Context: any thread. */
SXS_BRIDGE_API int sxs_bridge_wait(int index, int timeout_ms);

/* Calls `static int type_name.method_name(int)` of the assembly whose file is assembly_path (its
 * simple name, the file name without ".dll", is what the runtime binds; the runtime must be able
 * to find it, e.g. because it sits in that runtime's app folder) in runtime `runtime_index`, and
 * returns its result. The delegate is created on first use and cached per (runtime, assembly,
 * type, method). On an unknown index or a failure it prints one line to stderr and returns
 * INT32_MIN.
 * Context: any thread, including threads running managed code of another runtime. */
SXS_BRIDGE_API int sxs_bridge_call(int runtime_index, const char *assembly_path, const char *type_name,
                                   const char *method_name, int arg);
