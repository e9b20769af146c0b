/* The names of the HRESULTs sxsprof reports, in one table beside the ABI that defines them. */
#pragma once

#include "sxs_cor.h"

/* One HRESULT of sxs_cor.h. */
typedef struct {
  HRESULT hr;
  /* The constant's name, "CORPROF_E_PROFILER_ALREADY_ACTIVE"; for a Win32 error, the error's:
   * "ERROR_MOD_NOT_FOUND" (SXS_E_MOD_NOT_FOUND). */
  const char *name;
  /* What it means as a runtime's answer to an attach request (AttachProfiler), in one sentence
   * without a final period; NULL for the HRESULTs only stack walks and IP lookups end with. */
  const char *attach_meaning;
} SxsHresult;

/* The table's entry for `hr`, or NULL for an HRESULT it does not know.
 * Context: any thread; async-signal-safe. */
const SxsHresult *sxs__hresult_find(HRESULT hr);

/* "CORPROF_E_STACKSNAPSHOT_UNSAFE", "E_FAIL", ..., or NULL for an HRESULT the table does not know.
 * Context: any thread; async-signal-safe. */
const char *sxs__hresult_name(HRESULT hr);

/* The HRESULT as a message shows it: its name, or "0x%08X" written into buf (size bytes) for one the table does not
 * know; returns the name or buf. Context: any thread (not a signal handler: it formats). */
const char *sxs__hresult_text(HRESULT hr, char *buf, size_t size);
