/* sxs_walk_resources: the module map, step cache, owners cache and symbol cache every walk reads,
 * and their retire-when-no-walk-in-flight lifetime (see sxs_walk_resources.h). */
#include "sxs_walk_resources.h"

#include <glib.h>

/* Slots of the step cache (16 K return addresses, 256 KiB) and of the owners cache (4 K, 64 KiB). */
#define RESOURCES_STEP_CACHE_LOG2 14
#define RESOURCES_OWNERS_CACHE_LOG2 12

/* lock guards replacing current_map, steps and owners, and the retired lists; walks read the three
 * with atomic loads. walks_in_flight is raised before a walk loads any of them and lowered after
 * its last use, so once it is seen at 0 (under lock) after a retirement, nothing can still hold a
 * retired one, and they are freed. owner_walks counts the walks among them that may still read the
 * owners cache: a reference kept for long with the map and the steps only (the timer handlers')
 * gives the owners up (sxs__walk_resources_drop_owners), so that the owners cache, replaced at every
 * garbage collection, is freed when the walks that read it are done, not at the end of the run. */
static gint walks_in_flight;
static gint owner_walks;
static GMutex lock;
static SxsModuleMap *current_map;
static SxsUnwindCache *steps;
static SxsIpMap *owners;
static SxsSymbolCache *symbols; /* made once under lock; has its own lock */
static GPtrArray *retired_maps, *retired_steps, *retired_owners;

/* Called with lock held: keeps a replaced map or cache until no walk may hold it. */
static void retire(GPtrArray **list, gpointer what) {
  if (!*list)
    *list = g_ptr_array_new();
  g_ptr_array_add(*list, what);
}

/* Called with lock held: frees what was retired that no walk in flight may hold. */
static void free_retired_locked(void) {
  if (g_atomic_int_get(&owner_walks) == 0) {
    for (guint i = 0; retired_owners && i < retired_owners->len; i++)
      sxs__ipmap_free(retired_owners->pdata[i]);
    g_clear_pointer(&retired_owners, g_ptr_array_unref);
  }
  if (g_atomic_int_get(&walks_in_flight) != 0)
    return;
  for (guint i = 0; retired_maps && i < retired_maps->len; i++)
    sxs__modmap_free(retired_maps->pdata[i]);
  for (guint i = 0; retired_steps && i < retired_steps->len; i++)
    sxs__unwind_cache_free(retired_steps->pdata[i]);
  g_clear_pointer(&retired_maps, g_ptr_array_unref);
  g_clear_pointer(&retired_steps, g_ptr_array_unref);
}

/* Frees what was retired when it may be: the last walk that could hold it is done. */
static void free_retired(void) {
  if (g_atomic_pointer_get(&retired_maps) || g_atomic_pointer_get(&retired_steps) ||
      g_atomic_pointer_get(&retired_owners)) {
    g_mutex_lock(&lock);
    free_retired_locked();
    g_mutex_unlock(&lock);
  }
}

/* The module map to classify with now: rebuilt when the loader's counters moved. Called with
 * walks_in_flight raised. */
static const SxsModuleMap *module_map(const char *const *debug_dirs) {
  SxsModuleMap *map = g_atomic_pointer_get(&current_map);
  if (map && sxs__modmap_is_current(map))
    return map;
  g_mutex_lock(&lock);
  /* What a walk uses besides the map exists before the first map is published, so a walk that
   * finds a map finds them too. */
  if (!symbols)
    g_atomic_pointer_set(&symbols, sxs__symbols_cache_new_full(debug_dirs));
  if (!owners)
    g_atomic_pointer_set(&owners, sxs__ipmap_new(RESOURCES_OWNERS_CACHE_LOG2));
  map = current_map;
  if (!map || !sxs__modmap_is_current(map)) {
    SxsModuleMap *fresh = sxs__modmap_new();
    /* An unload may free addresses another module then takes: rules learned there are void. */
    if (!steps || !map || sxs__modmap_unloads(fresh) != sxs__modmap_unloads(map)) {
      SxsUnwindCache *fresh_steps = sxs__unwind_cache_new(RESOURCES_STEP_CACHE_LOG2);
      if (steps)
        retire(&retired_steps, steps);
      g_atomic_pointer_set(&steps, fresh_steps);
    }
    if (map)
      retire(&retired_maps, map);
    g_atomic_pointer_set(&current_map, fresh);
    map = fresh;
  }
  g_mutex_unlock(&lock);
  return map;
}

void sxs__walk_resources_enter(SxsWalkResources *ret, const char *const *debug_dirs) {
  g_atomic_int_inc(&walks_in_flight);
  g_atomic_int_inc(&owner_walks);
  ret->map = module_map(debug_dirs);
  ret->steps = g_atomic_pointer_get(&steps);
  ret->owners = g_atomic_pointer_get(&owners);
  ret->symbols = g_atomic_pointer_get(&symbols);
}

void sxs__walk_resources_leave(void) {
  gboolean owners_done = g_atomic_int_dec_and_test(&owner_walks);
  if (g_atomic_int_dec_and_test(&walks_in_flight) || owners_done)
    free_retired();
}

void sxs__walk_resources_drop_owners(SxsWalkResources *res) {
  res->owners = NULL;
  if (g_atomic_int_dec_and_test(&owner_walks))
    free_retired();
}

void sxs__walk_resources_leave_map(void) {
  if (g_atomic_int_dec_and_test(&walks_in_flight))
    free_retired();
}

void sxs__walk_resources_code_changed(void) {
  g_mutex_lock(&lock);
  if (owners) {
    retire(&retired_owners, owners);
    g_atomic_pointer_set(&owners, sxs__ipmap_new(RESOURCES_OWNERS_CACHE_LOG2));
    free_retired_locked();
  }
  g_mutex_unlock(&lock);
}

int sxs__walk_resources_in_flight(void) {
  return g_atomic_int_get(&walks_in_flight);
}

guint sxs__walk_resources_retired_owners(void) {
  g_mutex_lock(&lock);
  guint n = retired_owners ? retired_owners->len : 0;
  g_mutex_unlock(&lock);
  return n;
}
