/* runsxs: finding installed shared frameworks and making private copies of them. */
#pragma once

#include <glib.h>
#include <sys/types.h>

/* One Microsoft.NETCore.App framework folder. */
typedef struct {
  char *version; /* product version, e.g. "10.0.12" or "2.0.0" ("unknown" if it cannot be told) */
  char *dir;     /* absolute folder that holds libcoreclr.so */
} RunsxsFramework;

RunsxsFramework *runsxs_framework_new(const char *version, const char *dir);
void runsxs_framework_free(RunsxsFramework *fw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(RunsxsFramework, runsxs_framework_free)

/* The folders searched for Microsoft.NETCore.App/<version>/, in order of preference: the root of
 * the `dotnet` found on PATH (through symlinks), $DOTNET_ROOT, /usr/share/dotnet, then
 * $SXS_RUNTIMES_DIR (default ~/.local/share/sxsprof/dotnet). Each entry is the
 * ".../shared/Microsoft.NETCore.App" folder; duplicates removed. Caller frees with g_strfreev. */
char **runsxs_framework_search_dirs(void);

/* Every installed framework, newest version first (for the same version, the earlier search
 * folder first). Array of RunsxsFramework*, owned by the array. */
GPtrArray *runsxs_framework_list_installed(void);

/* Resolves a RUNTIME operand: a version or version prefix compared component-wise ("8" matches
 * 8.0.33, "10.0" matches 10.0.12 but not 10.01.0; the newest match wins), or a path to a
 * framework folder (anything containing '/' or naming an existing folder). Fails with a message
 * fit for the user: unknown version (listing what is installed), missing folder, or a folder
 * without libcoreclr.so. */
RunsxsFramework *runsxs_framework_resolve(const char *spec, GError **error);

/* Reads the product version of a framework folder as the profiler does (sxs__modules_runtime_version:
 * its CoreLib's informational version, its .version file, its manifest, its name), else "unknown". */
char *runsxs_framework_read_version(const char *dir);

/* Returns the folder of private copy number `copy` (1, 2, ...) of `fw`, creating it when it is
 * missing, partial or older than the source:
 *   ${XDG_CACHE_HOME:-~/.cache}/sxsprof/frameworks/<version>-<hash of source dir>-copy<N>/
 * The copy is built in a temporary folder next to it and renamed into place, with a completion
 * marker (a digest of the source's names, sizes and mtimes) written last, so concurrent runs
 * and interrupted copies are safe. Sets *ret_created when this call built it. */
char *runsxs_framework_private_copy(const RunsxsFramework *fw, int copy, gboolean *ret_created, GError **error);

/* Older frameworks (2.x) ship their native shims as "System.Native.so" while the runtime also
 * probes "libSystem.Native.so", finally by bare name, which glibc resolves to a newer runtime's
 * already-loaded libSystem.Native.so, so the old runtime binds the wrong shim and fails to start
 * (0x80131523, entry point not found). For such a folder this returns a folder of symlinks
 * "libX.so -> dir/X.so" to put on the runtime's native search path before the bare-name probe;
 * NULL with no error when dir has no such files. The folder lives under
 * ${XDG_CACHE_HOME:-~/.cache}/sxsprof/frameworks/native-aliases/ and is rebuilt when wrong. */
char *runsxs_framework_native_aliases(const char *dir, GError **error);

/* Compares two version strings component-wise (numeric, then any "-suffix" as a string; a
 * version without suffix is newer than the same version with one). <0, 0, >0 like strcmp. */
int runsxs_version_compare(const char *a, const char *b);
