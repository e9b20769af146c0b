/* Which loaded object owns a code address, and which runtime version a libcoreclr.so belongs to. */
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

/*
 * The product version ("2.0.0", "10.0.12") of the runtime whose libcoreclr.so is at coreclr_path.
 * Line 2 of the `.version` file in the same folder when that file is well-formed (line 1 a commit
 * hash or "unknown", line 2 a version), else the folder's name when it looks like a version
 * (digits and dots with at least one dot, optional -suffix). On success *ret_version receives a
 * string to g_free. Returns 0, -ENOENT when neither gives a version, -EINVAL for NULL arguments.
 *
 * Context: any thread; reads a file.
 */
int sxs__modules_runtime_version(const char *coreclr_path, char **ret_version);

/* TRUE when the file name (last path component) of path is exactly libcoreclr.so.
 * Context: any thread; no allocation. */
gboolean sxs__modules_is_coreclr(const char *path);
