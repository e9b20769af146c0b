/* The attach catch-up: what a runtime loaded and compiled before the profiler was attached
 * (modules; with the inventory on, JIT-compiled functions), listed through its enumerators and
 * recorded once. Modules are always caught up: samples and stacks name their frames' modules from
 * them. */
#include "sxs_callback.h"

/* Has the module's unload begun (its ID may then be reused by a later load)? */
static gboolean module_unloading(SxsCallback *self, ModuleID module_id) {
  g_mutex_lock(&self->unload_lock);
  gboolean gone = g_hash_table_contains(self->unloading, GSIZE_TO_POINTER(module_id));
  g_mutex_unlock(&self->unload_lock);
  return gone;
}

/* With events already on (so nothing loaded from here on is missed): every module and, for the
 * inventory, every JIT-compiled function the runtime can list; the functions are queued, to be
 * named on the naming thread (their modules are not collectible, so their IDs stay valid).
 * An ID an event already reported is not queried again; a module whose unload began is never
 * queried, also when the unload starts while the list is walked. Context: ProfilerAttachComplete's
 * thread (may allocate, may block). */
void sxs__catchup_run(SxsCallback *self, guint *ret_modules, guint *ret_functions) {
  guint modules = 0, functions = 0;
  /* From the lists being taken to the last ID queried, no module unload gets past its
   * ModuleUnloadStarted (see there): every ID listed stays valid while it is queried. */
  g_mutex_lock(&self->catchup_lock);
  /* Modules listed alive and not collectible: only their functions are named now. A collectible
   * module may be in the middle of an unload that began before the attach (no UnloadStarted will
   * tell), and its metadata is not safe to read then: its functions are named when an event, a
   * sample or a stack meets them. */
  g_autoptr(GHashTable) stable = g_hash_table_new(g_direct_hash, g_direct_equal);
  ICorProfilerInfo15 *info = sxs__callback_info_enter(self);
  if (info) {
    ICorProfilerModuleEnum *menum = NULL;
    if (info->lpVtbl->EnumModules(info, &menum) >= 0 && menum) {
      ModuleID ids[64];
      ULONG got = 0;
      while (menum->lpVtbl->Next(menum, G_N_ELEMENTS(ids), ids, &got) >= 0 && got > 0) {
        for (ULONG i = 0; i < got && !g_atomic_int_get(&self->unload_forced); i++) {
          if (module_unloading(self, ids[i]))
            continue;
          g_autofree char *name = NULL;
          DWORD flags = 0;
          if (!sxs__callback_module_info(info, ids[i], &name, &flags) || (flags & COR_PRF_MODULE_COLLECTIBLE))
            continue;
          g_hash_table_add(stable, GSIZE_TO_POINTER(ids[i]));
          if (!sxs__manager_module_known(self->runtime, ids[i])) {
            sxs__manager_record_module(self->runtime, ids[i], name);
            modules++;
          }
        }
      }
      menum->lpVtbl->Release(menum);
    }
    ICorProfilerFunctionEnum *fenum = NULL;
    HRESULT hr = !self->inventory                        ? E_FAIL
                 : self->runtime->caps.info_version >= 4 ? info->lpVtbl->EnumJITedFunctions2(info, &fenum)
                                                         : info->lpVtbl->EnumJITedFunctions(info, &fenum);
    if (hr >= 0 && fenum) {
      COR_PRF_FUNCTION fns[64];
      ULONG got = 0;
      while (fenum->lpVtbl->Next(fenum, G_N_ELEMENTS(fns), fns, &got) >= 0 && got > 0) {
        for (ULONG i = 0; i < got; i++) {
          FunctionID fid = fns[i].functionId;
          if (sxs__manager_function_known(self->runtime, fid))
            continue;
          ClassID cls = 0;
          ModuleID module = 0;
          mdToken token = 0;
          if (g_atomic_int_get(&self->unload_forced))
            break;
          if (info->lpVtbl->GetFunctionInfo(info, fid, &cls, &module, &token) >= 0 &&
              g_hash_table_contains(stable, GSIZE_TO_POINTER(module)) && !module_unloading(self, module)) {
            sxs__naming_add(self->names, fid, SXS_CODE_NAMED);
            functions++;
          }
        }
      }
      fenum->lpVtbl->Release(fenum);
    }
    sxs__callback_info_leave(self);
  }
  g_mutex_unlock(&self->catchup_lock);
  if (g_atomic_int_get(&self->unload_forced))
    sxs__manager_log("runtime %d: a module unload could not wait for the attach catch-up; the rest is named when "
                     "met",
                     self->runtime->id);
  *ret_modules = modules;
  *ret_functions = functions;
}
