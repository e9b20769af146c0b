/* SxsRuntimeOps.il_map: which code version of a method holds a code address, and that version's
 * IL-to-native map, asked of the runtime that owns the method through its guarded Info. Reading
 * PDBs and turning IL offsets into lines is not done here (stitch/sxs_pdb.c, record/sxs_lines.c).
 *
 *   runtimes with Info9 (3.0+)                       older runtimes (2.x)
 *   GetNativeCodeStartAddresses(fid, ReJITID 0)      GetCodeInfo2(fid): the current code's ranges
 *     for each start: GetCodeInfo4(start) ranges    GetILToNativeMapping(fid)
 *       the one holding ip: GetILToNativeMapping3
 *   none holds it (code no longer listed): the current code, as on the right
 * Code that none of these holds gets the method alone. */
#include "sxs_callback.h"

#include <errno.h>

/* Most code versions of one method looked through; most entries of one map. */
#define IL_MAP_MAX_VERSIONS 32
#define IL_MAP_MAX_ENTRIES 65536

static gboolean ranges_hold(const COR_PRF_CODE_INFO *ranges, ULONG32 n, uintptr_t ip) {
  for (ULONG32 i = 0; i < n; i++)
    if (ip >= ranges[i].startAddress && ip - ranges[i].startAddress < ranges[i].size)
      return TRUE;
  return FALSE;
}

static void keep_ranges(SxsIlMap *m, const COR_PRF_CODE_INFO *ranges, ULONG32 n) {
  m->code_start = ranges[0].startAddress;
  m->n_ranges = MIN(n, (ULONG32)G_N_ELEMENTS(m->ranges));
  for (guint i = 0; i < m->n_ranges; i++) {
    m->ranges[i].start = ranges[i].startAddress;
    m->ranges[i].size = ranges[i].size;
  }
}

/* A map asked for twice: its size, then its entries. version3: GetILToNativeMapping3 of the code
 * at start; else GetILToNativeMapping of the function's current code. */
static int fetch_map(ICorProfilerInfo15 *info, gboolean version3, FunctionID fid, UINT_PTR start, SxsIlMap *m) {
  ULONG32 n = 0;
  HRESULT hr = version3 ? info->lpVtbl->GetILToNativeMapping3(info, start, 0, &n, NULL)
                        : info->lpVtbl->GetILToNativeMapping(info, fid, 0, &n, NULL);
  if (hr < 0 || n == 0 || n > IL_MAP_MAX_ENTRIES)
    return -ENOENT;
  COR_DEBUG_IL_TO_NATIVE_MAP *map = g_new(COR_DEBUG_IL_TO_NATIVE_MAP, n);
  ULONG32 got = 0;
  hr = version3 ? info->lpVtbl->GetILToNativeMapping3(info, start, n, &got, map)
                : info->lpVtbl->GetILToNativeMapping(info, fid, n, &got, map);
  if (hr < 0 || got == 0) {
    g_free(map);
    return -ENOENT;
  }
  m->map = map;
  m->n_map = MIN(got, n);
  return 0;
}

static int read_il_map(ICorProfilerInfo15 *info, gboolean code_versions, FunctionID fid, uintptr_t ip, SxsIlMap *m) {
  ClassID cls = 0;
  ModuleID module = 0;
  mdToken token = 0;
  if (info->lpVtbl->GetFunctionInfo(info, fid, &cls, &module, &token) < 0 || (token & 0xff000000u) != mdtMethodDef)
    return -ENOENT;
  m->token = token;
  m->module_id = module;
  m->module_path = sxs__callback_module_path(info, module);
  if (ip == 0)
    return 0;
  COR_PRF_CODE_INFO ranges[2];
  ULONG32 n_ranges = 0;
  if (code_versions) {
    UINT_PTR starts[IL_MAP_MAX_VERSIONS];
    ULONG32 n = 0;
    if (info->lpVtbl->GetNativeCodeStartAddresses(info, fid, 0, G_N_ELEMENTS(starts), &n, starts) >= 0) {
      for (ULONG32 i = 0; i < MIN(n, (ULONG32)G_N_ELEMENTS(starts)); i++) {
        if (info->lpVtbl->GetCodeInfo4(info, starts[i], G_N_ELEMENTS(ranges), &n_ranges, ranges) < 0 ||
            !ranges_hold(ranges, MIN(n_ranges, 2u), ip))
          continue;
        keep_ranges(m, ranges, n_ranges);
        if (fetch_map(info, TRUE, fid, starts[i], m) < 0)
          m->code_start = 0;
        return 0;
      }
    }
  }
  if (info->lpVtbl->GetCodeInfo2(info, fid, G_N_ELEMENTS(ranges), &n_ranges, ranges) >= 0 && n_ranges > 0 &&
      ranges_hold(ranges, MIN(n_ranges, 2u), ip)) {
    keep_ranges(m, ranges, n_ranges);
    if (fetch_map(info, FALSE, fid, 0, m) < 0)
      m->code_start = 0;
  }
  return 0; /* the method, with no code version when none holds ip */
}

int sxs__callback_il_map(gpointer instance, uint64_t function_id, uintptr_t ip, SxsIlMap *ret) {
  SxsCallback *self = instance;
  /* A dynamic method: its code, no module, no token, no map (sxs_dynamic.c). */
  FunctionID dynamic_id = 0;
  uintptr_t start = 0, end = 0;
  if (ip != 0 && sxs__dynamic_find(&self->dynamic, ip, &dynamic_id, &start, &end) && dynamic_id == function_id) {
    *ret = (SxsIlMap){.code_start = start, .n_ranges = 1};
    ret->ranges[0].start = start;
    ret->ranges[0].size = end - start;
    return 0;
  }
  SxsCapabilities caps;
  sxs__manager_capabilities(self->runtime, &caps);
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (!info)
    return -ESHUTDOWN;
  SxsIlMap m = {0};
  int r = read_il_map(info, caps.code_versions, (FunctionID)function_id, ip, &m);
  sxs__callback_info_leave(self);
  if (r < 0) {
    sxs__il_map_clear(&m);
    return r;
  }
  *ret = m;
  return 0;
}
