/* A lock-free table from code addresses to 64-bit values (see sxs_ipmap.h). */
#include "sxs_ipmap.h"

#include <stdlib.h>

#define IPMAP_CLAIMED UINTPTR_MAX
#define IPMAP_PROBES 16

struct SxsIpMap {
  unsigned mask;
  struct {
    uintptr_t ip; /* 0: empty; IPMAP_CLAIMED: being written */
    uint64_t value;
  } slots[];
};

SxsIpMap *sxs__ipmap_new(unsigned capacity_log2) {
  if (capacity_log2 < 4 || capacity_log2 > 24)
    return NULL;
  size_t n = (size_t)1 << capacity_log2;
  size_t size = sizeof(SxsIpMap) + n * sizeof(((SxsIpMap *)NULL)->slots[0]);
  SxsIpMap *map = calloc(1, size);
  if (map == NULL)
    return NULL;
  /* Every page written once now: calloc's fresh pages would otherwise be mapped on their first
   * touch, a page fault each inside whatever signal handler first reads or writes them. */
  for (size_t at = 0; at < size; at += 4096)
    ((volatile char *)map)[at] = 0;
  map->mask = (unsigned)(n - 1);
  return map;
}

void sxs__ipmap_free(SxsIpMap *map) {
  free(map);
}

/* Fibonacci hashing: return addresses differ in their low bits, the multiply spreads them. */
static inline unsigned ipmap_home(const SxsIpMap *map, uintptr_t ip) {
  return (unsigned)((ip * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & map->mask;
}

bool sxs__ipmap_lookup(const SxsIpMap *map, uintptr_t ip, uint64_t *ret_value) {
  if (map == NULL || ip == 0 || ip == IPMAP_CLAIMED)
    return false;
  unsigned i = ipmap_home(map, ip);
  for (unsigned probe = 0; probe < IPMAP_PROBES; probe++, i = (i + 1) & map->mask) {
    uintptr_t key = __atomic_load_n(&map->slots[i].ip, __ATOMIC_ACQUIRE);
    if (key == ip) {
      *ret_value = __atomic_load_n(&map->slots[i].value, __ATOMIC_RELAXED);
      return true;
    }
    if (key == 0)
      return false;
  }
  return false;
}

void sxs__ipmap_prefetch(const SxsIpMap *map, uintptr_t ip) {
  if (map != NULL)
    __builtin_prefetch(&map->slots[ipmap_home(map, ip)], 0, 3);
}

void sxs__ipmap_insert(SxsIpMap *map, uintptr_t ip, uint64_t value) {
  if (map == NULL || ip == 0 || ip == IPMAP_CLAIMED)
    return;
  unsigned i = ipmap_home(map, ip);
  for (unsigned probe = 0; probe < IPMAP_PROBES; probe++, i = (i + 1) & map->mask) {
    uintptr_t key = __atomic_load_n(&map->slots[i].ip, __ATOMIC_ACQUIRE);
    if (key == ip)
      return;
    if (key != 0)
      continue;
    uintptr_t expected = 0;
    if (!__atomic_compare_exchange_n(&map->slots[i].ip, &expected, IPMAP_CLAIMED, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
      if (expected == ip)
        return;
      continue;
    }
    __atomic_store_n(&map->slots[i].value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&map->slots[i].ip, ip, __ATOMIC_RELEASE);
    return;
  }
}

void sxs__ipmap_foreach(const SxsIpMap *map, void (*fn)(uintptr_t ip, uint64_t value, void *user_data),
                        void *user_data) {
  for (unsigned i = 0; map != NULL && i <= map->mask; i++) {
    uintptr_t key = __atomic_load_n(&map->slots[i].ip, __ATOMIC_ACQUIRE);
    if (key != 0 && key != IPMAP_CLAIMED)
      fn(key, __atomic_load_n(&map->slots[i].value, __ATOMIC_RELAXED), user_data);
  }
}
