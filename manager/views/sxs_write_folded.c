/* The folded-stacks writer: one kind of a view as "root;caller;leaf weight" lines, the input of
 * flamegraph.pl, inferno and speedscope's importer. It draws nothing itself.
 *
 * Readers split a line at its last space and its stack at ';', so labels are made safe first:
 * ';' becomes ':', and line breaks, tabs and other control characters become a space. Spaces stay:
 * the weight is always after the last one. Stacks of one kind are merged across its groups (the
 * same frames on two threads are one line with the weights summed), also when two labels only
 * differ by the characters replaced; lines are sorted bytewise so a profile always folds the same.
 */
#include "sxs_view.h"

#include <stdlib.h>
#include <string.h>

/* Appends label to line with ';' and control characters replaced (see the top of the file). */
static void folded_append_label(GString *line, const char *label) {
  for (const char *p = label; *p != '\0'; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == ';')
      g_string_append_c(line, ':');
    else if (c < 0x20 || c == 0x7f)
      g_string_append_c(line, ' ');
    else
      g_string_append_c(line, (char)c);
  }
}

static int folded_compare(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Renders the stacks of o->kind (the view's primary kind when o is NULL or asks for
 * SXS_VIEW_N_KINDS) in their kind's unit. Stacks that weigh nothing are left out: a flame graph
 * has no room for them. NULL with *ret_why set when that kind has no stack of any weight.
 * Context: any thread; allocates.
 */
char *sxs__write_folded(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why) {
  SxsViewKind kind = v != NULL ? sxs__view_resolve_kind(v, o) : SXS_VIEW_N_KINDS;
  if (v == NULL || kind >= SXS_VIEW_N_KINDS) {
    if (ret_why != NULL)
      *ret_why = g_strdup("the profile holds no samples, traced calls or event stacks to fold");
    return NULL;
  }

  /* stack line without its weight -> guint64 weight; both owned */
  g_autoptr(GHashTable) weights = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GString) line = g_string_new(NULL);
  SxsViewIter it;
  sxs__view_iter_init(&it, v, kind);
  for (const SxsViewStack *s; (s = sxs__view_iter_next_stack(&it));) {
    if (s->weight == 0 || s->depth == 0)
      continue;
    g_string_truncate(line, 0);
    for (guint d = 0; d < s->depth; d++) {
      const SxsViewFrame *f = g_ptr_array_index(v->frames, s->frames[d]);
      if (d > 0)
        g_string_append_c(line, ';');
      if (f->line) {
        /* A view by line: the frame's line is part of its name. */
        g_autofree char *title = sxs__view_frame_title(f, TRUE);
        folded_append_label(line, title);
      } else {
        folded_append_label(line, f->label);
      }
    }
    guint64 *sum = g_hash_table_lookup(weights, line->str);
    if (sum == NULL) {
      sum = g_new0(guint64, 1);
      g_hash_table_insert(weights, g_strdup(line->str), sum);
    }
    /* A hardware event's samples weigh its count (cycles, misses), as perf's folded stacks do. */
    guint64 weight = kind == SXS_VIEW_SAMPLES && v->sample_event != NULL && v->event_period > 0
                         ? sxs__saturating_mul(s->weight, v->event_period, SXS_PROFILE_MAX_NS)
                         : s->weight;
    *sum = sxs__saturating_add(*sum, weight, SXS_PROFILE_MAX_NS);
  }
  if (g_hash_table_size(weights) == 0) {
    if (ret_why != NULL)
      *ret_why = g_strdup_printf("the profile holds no %s stacks to fold", sxs__view_kind_name(kind));
    return NULL;
  }

  g_autofree gpointer *keys = g_hash_table_get_keys_as_array(weights, NULL);
  guint n = g_hash_table_size(weights);
  qsort(keys, n, sizeof(gpointer), folded_compare);
  GString *out = g_string_sized_new(4096);
  for (guint i = 0; i < n; i++) {
    const guint64 *sum = g_hash_table_lookup(weights, keys[i]);
    g_string_append_printf(out, "%s %" G_GUINT64_FORMAT "\n", (const char *)keys[i], *sum);
  }
  if (ret_len != NULL)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}
