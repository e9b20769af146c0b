/* The two-column folded writer: a diff's stacks as "root;caller;leaf base new" lines, the format
 * FlameGraph's difffolded.pl writes and flamegraph.pl reads (the second column sizes the frames,
 * the difference colours them). Labels are made safe as the folded writer makes them (';' becomes
 * ':', control characters a space); stacks that become one line add up; lines are sorted
 * bytewise. Weights are each side's own, in the unit: flamegraph.pl normalizes on request. */
#include <stdlib.h>
#include <string.h>

#include "sxs_diff.h"

static void append_safe(GString *line, const char *label) {
  for (const char *p = label; *p != '\0'; p++) {
    unsigned char c = (unsigned char)*p;
    g_string_append_c(line, c == ';' ? ':' : c < 0x20 || c == 0x7f ? ' ' : (char)c);
  }
}

static int compare_lines(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *sxs__diff_write_folded(const SxsDiff *d, gsize *ret_len, char **ret_why) {
  /* line without its weights (owned) -> guint64[2] (owned) */
  g_autoptr(GHashTable) lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GString) line = g_string_new(NULL);
  for (guint i = 0; i < d->stacks->len; i++) {
    const SxsDiffStack *s = &g_array_index(d->stacks, SxsDiffStack, i);
    if (s->weight[0] == 0 && s->weight[1] == 0)
      continue;
    g_string_truncate(line, 0);
    for (guint j = 0; j < s->depth; j++) {
      if (j)
        g_string_append_c(line, ';');
      append_safe(line, ((const SxsDiffFrame *)d->frames->pdata[s->frames[j]])->key);
    }
    guint64 *w = g_hash_table_lookup(lines, line->str);
    if (!w) {
      w = g_new0(guint64, 2);
      g_hash_table_insert(lines, g_strdup(line->str), w);
    }
    for (int side = 0; side < 2; side++)
      w[side] = sxs__saturating_add(w[side], s->weight[side], SXS_PROFILE_MAX_NS);
  }
  guint n = g_hash_table_size(lines);
  if (n == 0) {
    if (ret_why)
      *ret_why = g_strdup_printf("neither side holds %s stacks to fold", sxs__view_kind_name(d->kind));
    return NULL;
  }
  g_autofree gpointer *keys = g_hash_table_get_keys_as_array(lines, NULL);
  qsort(keys, n, sizeof(gpointer), compare_lines);
  GString *out = g_string_sized_new(64 * n);
  for (guint i = 0; i < n; i++) {
    const guint64 *w = g_hash_table_lookup(lines, keys[i]);
    g_string_append_printf(out, "%s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", (const char *)keys[i], w[0], w[1]);
  }
  if (ret_len)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}
