/* Storage that grows with a run (the timeline's samples and events, a profile's text), kept out of
 * the allocator's way once it is large. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * A block of 64 KiB and more is mapped apart from the allocator's heap (mmap, grown with mremap,
 * unmapped when freed); a smaller one is the heap's. glibc maps a large block itself and, once it
 * is freed, takes its size as the new size from which to map blocks and above which to give back a
 * thread arena's free top: a long-running program's profile writes, each building and freeing
 * arrays of megabytes, would otherwise leave each write's freed memory resident and change the
 * program's allocator (docs/PERFORMANCE.md, "A long run"). Where no mapping can be had the heap
 * holds it. Neither type is thread-safe; neither is for hot or signal paths (they allocate).
 */

/* Room for need bytes in *data (holding used bytes, *cap of room, *mapped as said above): grown by
 * doubling from at least 256 bytes, the used bytes kept. Never fails (the heap aborts as g_malloc
 * does when it is out of memory). */
void sxs__block_reserve(guint8 **data, gsize used, gsize *cap, gboolean *mapped, gsize need);
/* Frees a block sxs__block_reserve grew; *data is NULL after. */
void sxs__block_free(guint8 **data, gsize cap, gboolean mapped);

/* An array of elements of one size, in one block as above. len is the number of elements; data
 * the first (NULL while nothing was added). */
typedef struct {
  guint8 *data;
  guint len;
  guint elem;
  gsize cap;
  gboolean mapped;
  GDestroyNotify clear; /* called on an element (its address) as it is removed or freed; or NULL */
} SxsVec;

/* An empty array of elements of elem bytes (> 0); free with sxs__vec_free. */
SxsVec *sxs__vec_new(guint elem);
/* clear (or NULL) is called on each element's address as it is removed or the array freed. */
void sxs__vec_set_clear_func(SxsVec *v, GDestroyNotify clear);
void sxs__vec_free(SxsVec *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsVec, sxs__vec_free)

/* The element at index i (< len) of an array of T. */
#define sxs__vec_index(v, T, i) (((T *)(void *)(v)->data)[(i)])
/* Appends n elements copied from items. */
void sxs__vec_append_vals(SxsVec *v, gconstpointer items, guint n);
#define sxs__vec_append_val(v, x) sxs__vec_append_vals((v), &(x), 1)
/* Room for n elements in all, without changing len. */
void sxs__vec_reserve(SxsVec *v, guint n);
/* Keeps the first n elements (n <= len), clearing the rest. */
void sxs__vec_truncate(SxsVec *v, guint n);
/* Sorts the elements with compare (as qsort's), keeping equal elements in their order (a merge
 * sort, its scratch room a block as above: no large block of the heap's). */
void sxs__vec_sort(SxsVec *v, GCompareFunc compare);

G_END_DECLS
