/* Which loaded object owns a code address, whether it holds a CoreCLR, and which product version that
 * runtime is. */
#pragma once

#include <glib.h>

/*
 * The canonical (realpath) path of the loaded object that contains addr, found with dladdr; the
 * main executable resolves through /proc/self/exe. On success *ret_path receives a string to
 * g_free. Returns 0, -ENOENT when no loaded object with a file on disk contains addr (NULL, heap,
 * stack, vdso), or -ENOMEM, -EINVAL when ret_path is NULL.
 *
 * Context: any thread; takes the dynamic loader's lock and allocates, so never from a signal
 * handler or a hot path (the callers resolve a vtable or a return address once and cache it).
 */
int sxs__modules_path_of(const void *addr, char **ret_path);

/* Where a runtime's product version was read from, in the order they are tried (docs/design.md,
 * "Which version a runtime is"). */
typedef enum {
  SXS_VERSION_SOURCE_NONE = 0,
  SXS_VERSION_SOURCE_RUNTIME,      /* the runtime's own answer (GetRuntimeInformation): 5 and later */
  SXS_VERSION_SOURCE_CORELIB,      /* its System.Private.CoreLib.dll's informational version: 3.x */
  SXS_VERSION_SOURCE_VERSION_FILE, /* line 2 of the .version file beside it: 2.x */
  SXS_VERSION_SOURCE_DEPS,         /* Microsoft.NETCore.App.deps.json beside it: 2.x */
  SXS_VERSION_SOURCE_FOLDER,       /* the name of its folder */
} SxsVersionSource;

/* What a source is called in a sentence ("System.Private.CoreLib.dll's informational version"), and
 * as a word in the profile ("corelib"; NULL for SXS_VERSION_SOURCE_NONE). */
const char *sxs__modules_version_source_name(SxsVersionSource source);
const char *sxs__modules_version_source_key(SxsVersionSource source);

/*
 * The product version ("2.0.0", "3.1.3", "10.0.12") of the runtime whose code lies in the file
 * runtime_path (its libcoreclr.so, or the executable of a single-file app), and where it came from.
 * Tried in order, the first that gives one wins:
 *   1. api_version, what the runtime's GetRuntimeInformation says, when it is a product version:
 *      major 5 or later (.NET Core 2.x and 3.x answer with the CLR version 4.0.x instead);
 *   2. the informational version of System.Private.CoreLib.dll beside runtime_path, numbers only
 *      ("3.1.3-servicing.20118.3+c5d3d75" gives 3.1.3, as Environment.Version does), major 3 or
 *      later (2.x's CoreLib carries none);
 *   3. line 2 of the `.version` file beside it when well-formed (line 1 a commit hash or "unknown");
 *   4. the Microsoft.NETCore.App/<version> entry of the Microsoft.NETCore.App.deps.json beside it;
 *   5. the folder's name when it looks like a version (two components at least).
 * Either argument may be NULL (runtime_path NULL: only step 1). On success *ret_version receives a
 * string to g_free and *ret_source (may be NULL) the source. Returns 0, -ENOENT when nothing gives
 * a version, -EINVAL when ret_version is NULL.
 *
 * Context: any thread except a signal handler; reads files.
 */
int sxs__modules_runtime_version(const char *runtime_path, const char *api_version, char **ret_version,
                                 SxsVersionSource *ret_source);

/*
 * Does the ELF file at path export (define in its dynamic symbol table) the symbol name? Every
 * CoreCLR exports MetaDataGetDispenser, whether it is a libcoreclr.so or linked into a single-file
 * app's executable; a NativeAOT executable exports DotNetRuntimeDebugHeader instead. Returns FALSE
 * for anything that is not a readable 64-bit ELF file.
 *
 * Context: any thread except a signal handler; maps the file for the call.
 */
gboolean sxs__modules_exports(const char *path, const char *name);

/* TRUE when the object at path holds a CoreCLR: it is named libcoreclr.so, or it exports
 * MetaDataGetDispenser (a single-file app's executable). Context: as sxs__modules_exports. */
gboolean sxs__modules_holds_runtime(const char *path);

/* TRUE when the file name (last path component) of path is exactly libcoreclr.so.
 * Context: any thread; no allocation. */
gboolean sxs__modules_is_coreclr(const char *path);
