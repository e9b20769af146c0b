/* Dynamic methods' code: where each of a runtime's dynamic methods (LCG methods such as a compiled expression
 * tree's lambda or a DynamicMethod, and IL stubs such as a reverse P/Invoke's) was compiled, as the runtime reported
 * it (sxs_callback.h, SxsDynamicCode).
 *
 * GetFunctionFromIP does not answer for such code (it has no metadata), so a sampled frame in it would be a bare
 * address, and a frameless one would hide its caller from the walk. The runtime reports each dynamic method once it
 * is compiled (DynamicMethodJITCompilationFinished, with COR_PRF_MONITOR_JIT_COMPILATION on), with a FunctionID that
 * GetCodeInfo2 answers for; the ranges are kept sorted, and the owners' lookups (ops_owns_ip), the names
 * (sxs__callback_ops_function_name) and the code versions (il_map) ask here when the runtime's own answer fails. */
#include "sxs_callback.h"

#include <errno.h>

#include "sxs_search.h"

typedef struct {
  uintptr_t start, end;
  FunctionID function_id;
} DynamicRange;

/* Most ranges kept: a program that makes dynamic methods without end (each compiled once and dropped) keeps the
 * newest ones' names only as long as this allows; the others' frames go back to bare addresses. */
#define DYNAMIC_MAX_RANGES 65536

void sxs__dynamic_init(SxsDynamicCode *code) {
  g_mutex_init(&code->lock);
  code->ranges = g_array_new(FALSE, FALSE, sizeof(DynamicRange));
  code->functions = g_hash_table_new(g_direct_hash, g_direct_equal);
}

void sxs__dynamic_fini(SxsDynamicCode *code) {
  g_clear_pointer(&code->ranges, g_array_unref);
  g_clear_pointer(&code->functions, g_hash_table_unref);
  g_mutex_clear(&code->lock);
}

/* The index of the first range that starts after ip. Called with the lock held. */
static guint upper_bound(const GArray *ranges, uintptr_t ip) {
  return (guint)SXS_SEARCH_UPPER_BOUND((const DynamicRange *)(const void *)ranges->data, ranges->len, start, ip);
}

/* Removes every range of function_id (code freed, or compiled again). Called with the lock held. */
static void remove_function(GArray *ranges, FunctionID function_id) {
  for (guint i = ranges->len; i-- > 0;)
    if (g_array_index(ranges, DynamicRange, i).function_id == function_id)
      g_array_remove_index(ranges, i);
}

int sxs__dynamic_add(SxsDynamicCode *code, ICorProfilerInfo15 *info, FunctionID function_id) {
  COR_PRF_CODE_INFO ranges[4];
  ULONG32 n = 0;
  if (info->lpVtbl->GetCodeInfo2(info, function_id, G_N_ELEMENTS(ranges), &n, ranges) < 0 || n == 0)
    return -ENOENT;
  g_mutex_lock(&code->lock);
  remove_function(code->ranges, function_id);
  for (ULONG32 i = 0; i < MIN(n, (ULONG32)G_N_ELEMENTS(ranges)); i++) {
    if (ranges[i].size == 0 || code->ranges->len >= DYNAMIC_MAX_RANGES)
      continue;
    DynamicRange r = {
        .start = ranges[i].startAddress, .end = ranges[i].startAddress + ranges[i].size, .function_id = function_id};
    guint at = upper_bound(code->ranges, r.start);
    /* Code at these addresses before belonged to a method since freed: its range goes. */
    while (at > 0 && g_array_index(code->ranges, DynamicRange, at - 1).end > r.start)
      g_array_remove_index(code->ranges, --at);
    while (at < code->ranges->len && g_array_index(code->ranges, DynamicRange, at).start < r.end)
      g_array_remove_index(code->ranges, at);
    g_array_insert_val(code->ranges, at, r);
  }
  g_hash_table_add(code->functions, GSIZE_TO_POINTER(function_id));
  g_mutex_unlock(&code->lock);
  return 0;
}

void sxs__dynamic_remove(SxsDynamicCode *code, FunctionID function_id) {
  g_mutex_lock(&code->lock);
  remove_function(code->ranges, function_id);
  g_hash_table_remove(code->functions, GSIZE_TO_POINTER(function_id));
  g_mutex_unlock(&code->lock);
}

gboolean sxs__dynamic_find(SxsDynamicCode *code, uintptr_t ip, FunctionID *ret_function_id, uintptr_t *ret_start,
                           uintptr_t *ret_end) {
  gboolean found = FALSE;
  g_mutex_lock(&code->lock);
  if (code->ranges) {
    guint at = upper_bound(code->ranges, ip);
    if (at > 0) {
      const DynamicRange *r = &g_array_index(code->ranges, DynamicRange, at - 1);
      if (ip < r->end) {
        found = TRUE;
        if (ret_function_id)
          *ret_function_id = r->function_id;
        if (ret_start)
          *ret_start = r->start;
        if (ret_end)
          *ret_end = r->end;
      }
    }
  }
  g_mutex_unlock(&code->lock);
  return found;
}

gboolean sxs__dynamic_first_range(SxsDynamicCode *code, FunctionID function_id, uintptr_t *ret_start,
                                  uintptr_t *ret_end) {
  gboolean found = FALSE;
  g_mutex_lock(&code->lock);
  /* Asked of every function named: most are no dynamic method's, and the ranges are scanned only for the
   * FunctionIDs ever noted (one whose code was all taken over since is found in none). */
  if (code->functions == NULL || !g_hash_table_contains(code->functions, GSIZE_TO_POINTER(function_id))) {
    g_mutex_unlock(&code->lock);
    return FALSE;
  }
  for (guint i = 0; code->ranges && i < code->ranges->len && !found; i++) {
    const DynamicRange *r = &g_array_index(code->ranges, DynamicRange, i);
    if (r->function_id == function_id) {
      found = TRUE;
      *ret_start = r->start;
      *ret_end = r->end;
    }
  }
  g_mutex_unlock(&code->lock);
  return found;
}
