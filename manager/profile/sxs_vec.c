/* Storage that grows with a run, kept out of the allocator's way once it is large (sxs_vec.h). */
#include "sxs_vec.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* From this size a block is mapped on its own (glibc maps blocks from 128 KiB by default; a block
 * mapped here is never one glibc sees freed). */
#define BLOCK_MAP_BYTES ((gsize)64 << 10)
/* Ranges of at most this many elements are sorted by insertion. */
#define SORT_RUN 8
/* Elements of at most this many bytes are moved through a buffer on the stack when sorted. */
#define SORT_ELEM_STACK 256

void sxs__block_reserve(guint8 **data, gsize used, gsize *cap, gboolean *mapped, gsize need) {
  if (need <= *cap && *data != NULL)
    return;
  gsize room = MAX(*cap, 256);
  while (room < need)
    room *= 2;
  if (room >= BLOCK_MAP_BYTES) {
    gsize page = (gsize)sysconf(_SC_PAGESIZE);
    room = (room + page - 1) / page * page;
    void *p = *mapped ? mremap(*data, *cap, room, MREMAP_MAYMOVE)
                      : mmap(NULL, room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      if (!*mapped) {
        if (used)
          memcpy(p, *data, used);
        g_free(*data);
      }
      *data = p;
      *cap = room;
      *mapped = TRUE;
      return;
    }
  }
  /* Small, or no mapping to be had: the heap. */
  if (*mapped) {
    guint8 *heap = g_malloc(room);
    memcpy(heap, *data, used);
    munmap(*data, *cap);
    *data = heap;
    *mapped = FALSE;
  } else {
    *data = g_realloc(*data, room);
  }
  *cap = room;
}

void sxs__block_free(guint8 **data, gsize cap, gboolean mapped) {
  if (*data == NULL)
    return;
  if (mapped)
    munmap(*data, cap);
  else
    g_free(*data);
  *data = NULL;
}

SxsVec *sxs__vec_new(guint elem) {
  g_return_val_if_fail(elem > 0, NULL);
  SxsVec *v = g_new0(SxsVec, 1);
  v->elem = elem;
  return v;
}

void sxs__vec_set_clear_func(SxsVec *v, GDestroyNotify clear) {
  v->clear = clear;
}

void sxs__vec_free(SxsVec *v) {
  if (!v)
    return;
  sxs__vec_truncate(v, 0);
  sxs__block_free(&v->data, v->cap, v->mapped);
  g_free(v);
}

void sxs__vec_reserve(SxsVec *v, guint n) {
  sxs__block_reserve(&v->data, (gsize)v->len * v->elem, &v->cap, &v->mapped, (gsize)n * v->elem);
}

void sxs__vec_append_vals(SxsVec *v, gconstpointer items, guint n) {
  if (n == 0)
    return;
  g_return_if_fail(n <= G_MAXUINT - v->len);
  sxs__vec_reserve(v, v->len + n);
  memcpy(v->data + (gsize)v->len * v->elem, items, (gsize)n * v->elem);
  v->len += n;
}

void sxs__vec_truncate(SxsVec *v, guint n) {
  if (n >= v->len)
    return;
  if (v->clear)
    for (guint i = n; i < v->len; i++)
      v->clear(v->data + (gsize)i * v->elem);
  v->len = n;
}

typedef struct {
  gsize elem;
  GCompareFunc compare;
  guint8 *hold; /* one element's room */
} Sort;

#define AT(base, i) ((base) + (gsize)(i)*s->elem)

/* Sorts [lo, hi) of a by insertion. */
static void insertion(const Sort *s, guint8 *a, gsize lo, gsize hi) {
  for (gsize i = lo + 1; i < hi; i++) {
    if (s->compare(AT(a, i - 1), AT(a, i)) <= 0)
      continue;
    memcpy(s->hold, AT(a, i), s->elem);
    gsize j = i;
    while (j > lo && s->compare(AT(a, j - 1), s->hold) > 0)
      j--;
    memmove(AT(a, j + 1), AT(a, j), (i - j) * s->elem);
    memcpy(AT(a, j), s->hold, s->elem);
  }
}

/* src and dst hold the same elements in [lo, hi); sorts them into dst, src used as scratch. */
static void merge_sort(const Sort *s, guint8 *src, guint8 *dst, gsize lo, gsize hi) {
  if (hi - lo <= SORT_RUN) {
    insertion(s, dst, lo, hi);
    return;
  }
  gsize mid = lo + (hi - lo) / 2;
  merge_sort(s, dst, src, lo, mid);
  merge_sort(s, dst, src, mid, hi);
  /* Halves already in order (a time-ordered array, mostly): one copy. */
  if (s->compare(AT(src, mid - 1), AT(src, mid)) <= 0) {
    memcpy(AT(dst, lo), AT(src, lo), (hi - lo) * s->elem);
    return;
  }
  gsize i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    /* The left one first when equal: equal elements keep their order. */
    if (s->compare(AT(src, j), AT(src, i)) < 0)
      memcpy(AT(dst, k++), AT(src, j++), s->elem);
    else
      memcpy(AT(dst, k++), AT(src, i++), s->elem);
  }
  if (i < mid)
    memcpy(AT(dst, k), AT(src, i), (mid - i) * s->elem);
  else if (j < hi)
    memcpy(AT(dst, k), AT(src, j), (hi - j) * s->elem);
}

void sxs__vec_sort(SxsVec *v, GCompareFunc compare) {
  if (v->len < 2)
    return;
  guint8 stack_hold[SORT_ELEM_STACK];
  g_autofree guint8 *heap_hold = v->elem > SORT_ELEM_STACK ? g_malloc(v->elem) : NULL;
  Sort s = {.elem = v->elem, .compare = compare, .hold = heap_hold ? heap_hold : stack_hold};
  gsize bytes = (gsize)v->len * v->elem;
  guint8 *scratch = NULL;
  gsize cap = 0;
  gboolean mapped = FALSE;
  sxs__block_reserve(&scratch, 0, &cap, &mapped, bytes);
  memcpy(scratch, v->data, bytes);
  merge_sort(&s, scratch, v->data, 0, v->len);
  sxs__block_free(&scratch, cap, mapped);
}
