/* Binary search over arrays sorted by a start address (code ranges, stack ranges, symbols).
 * Header only, so that each search compiles to the loop it replaces; it knows nothing of what the
 * elements are. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Element starts are read as uintptr_t; ELF symbol values (uint64_t) are searched as well. */
_Static_assert(__builtin_types_compatible_p(uint64_t, uintptr_t), "uint64_t and uintptr_t differ");

/*
 * The number of leading elements whose start is at most key, i.e. the index of the first element
 * that starts above key (an upper bound). Among ranges sorted by start, element i - 1 of the answer
 * i is then the last one that starts at or below key: the only one that can hold it when the
 * ranges do not overlap. base holds n elements stride bytes apart, each with its start (a
 * uintptr_t) start_at bytes in; base is not read when n is 0.
 *
 * Context: any thread; async-signal-safe (no allocation, no lock, no libc call).
 */
static inline size_t sxs__search_upper_bound(const void *base, size_t n, size_t stride, size_t start_at,
                                             uintptr_t key) {
  const char *bytes = base;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (*(const uintptr_t *)(bytes + mid * stride + start_at) <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* sxs__search_upper_bound over array[0..n), sorted by its (uintptr_t) member start. */
#define SXS_SEARCH_UPPER_BOUND(array, n, start, key)                                                                   \
  sxs__search_upper_bound((array), (n), sizeof *(array), offsetof(__typeof__(*(array)), start), (key))
