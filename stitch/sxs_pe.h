/* The informational version of a managed assembly file (a PE file with ECMA-335 metadata), read from
 * the file alone: no runtime, no metadata API. Used for the product version of .NET Core 3.x, which
 * its System.Private.CoreLib.dll carries and its profiling API does not tell. */
#pragma once

#include <stddef.h>

/*
 * The text of the assembly's AssemblyInformationalVersionAttribute, found as the first custom
 * attribute value in the metadata's #Blob heap that holds exactly one string, and that string a
 * version with build metadata ("3.1.3-servicing.20118.3+c5d3d75...", "8.0.34+b455eab..."): the
 * form every CoreLib since 3.0 has. Other one-string attributes (title, copyright, the file version
 * "4.700.20.11803") have no '+' and are passed over. Copies it, NUL-terminated, into buf.
 *
 * Returns 0; -ENOENT when the file has no such value (2.x's CoreLib), -EINVAL when it is not a PE
 * file with metadata or a structure lies outside the file, -ENOSPC when buf is too small, -errno
 * when it cannot be opened or mapped. buf is untouched on failure.
 *
 * Context: any thread except a signal handler; maps the file read-only for the call.
 */
int sxs__pe_informational_version(const char *path, char *buf, size_t size);
