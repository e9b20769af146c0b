/* The diff's terminal summary: what each side holds, then the frames whose self and whose total
 * weight grew and shrank beyond noise (largest change first), and how many changed within it.
 * Plain text, or with ANSI colours (growths red, shrinks blue) when the output is a terminal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sxs_diff.h"

typedef struct {
  const SxsDiff *d;
  gboolean total; /* sort by the total's change, not the self's */
} RowSort;

static const SxsDiffChange *change_of(const SxsDiffFrameTotal *t, gboolean total) {
  return total ? &t->total_change : &t->self_change;
}

static int compare_rows(gconstpointer a, gconstpointer b, gpointer data) {
  const RowSort *rs = data;
  const SxsDiffChange *x = change_of(a, rs->total), *y = change_of(b, rs->total);
  double ax = fabs(x->change), ay = fabs(y->change);
  if (ax != ay)
    return ax > ay ? -1 : 1;
  return strcmp(((const SxsDiffFrame *)rs->d->frames->pdata[((const SxsDiffFrameTotal *)a)->frame])->key,
                ((const SxsDiffFrame *)rs->d->frames->pdata[((const SxsDiffFrameTotal *)b)->frame])->key);
}

/* "12.5%" or "1234" (absolute), right-aligned in w. */
static void append_value(GString *out, const SxsDiff *d, double v, int w) {
  if (d->options.absolute)
    g_string_append_printf(out, "%*.0f", w, v);
  else
    g_string_append_printf(out, "%*.1f%%", w - 1, v * 100);
}

static void append_change(GString *out, const SxsDiff *d, const SxsDiffChange *c) {
  if (d->options.absolute)
    g_string_append_printf(out, " %+10.0f ±%-8.0f", c->change, SXS_DIFF_NOISE_ERRORS * c->error);
  else
    g_string_append_printf(out, " %+7.1f pt ±%-5.1f", c->change * 100, SXS_DIFF_NOISE_ERRORS * c->error * 100);
}

/* The rows of one table: frames whose self (or total) grew (or shrank) beyond noise, largest
 * change first; only those are sorted. */
static void table(GString *out, const SxsDiff *d, const SxsDiffRenderOptions *o, GArray *rows, gboolean total,
                  gboolean growth) {
  const char *what = total ? "total" : "self";
  const char *color = !o->color ? "" : growth ? "\033[31m" : "\033[34m";
  const char *reset = o->color ? "\033[0m" : "";
  g_autoptr(GArray) picked = g_array_new(FALSE, FALSE, sizeof(SxsDiffFrameTotal));
  for (guint i = 0; i < rows->len; i++) {
    const SxsDiffFrameTotal *t = &g_array_index(rows, SxsDiffFrameTotal, i);
    const SxsDiffChange *c = change_of(t, total);
    if (c->beyond && (growth ? c->change > 0 : c->change < 0))
      g_array_append_val(picked, *t);
  }
  guint n = picked->len;
  g_string_append_printf(out, "  %s %s beyond noise: %u%s\n", what, growth ? "growths" : "shrinks", n,
                         n ? "" : " (none)");
  if (!n)
    return;
  RowSort rs = {.d = d, .total = total};
  g_array_sort_with_data(picked, compare_rows, &rs);
  g_string_append_printf(out, "    %10s %10s %17s  %s\n", "before", "after", "change (noise)",
                         total ? "function (total)" : "function (self)");
  guint shown = MIN(n, o->top);
  for (guint i = 0; i < shown; i++) {
    const SxsDiffFrameTotal *t = &g_array_index(picked, SxsDiffFrameTotal, i);
    const SxsDiffChange *c = change_of(t, total);
    const SxsDiffFrame *f = d->frames->pdata[t->frame];
    g_string_append(out, "    ");
    append_value(out, d, c->before, 10);
    g_string_append_c(out, ' ');
    append_value(out, d, c->after, 10);
    g_string_append(out, color);
    append_change(out, d, c);
    g_string_append_printf(out, "%s %s\n", reset, f->key);
  }
  if (n > shown)
    g_string_append_printf(out, "    ... and %u more\n", n - shown);
}

char *sxs__diff_write_summary(const SxsDiff *d, const SxsDiffRenderOptions *o, gsize *ret_len, char **ret_why) {
  if (d->total[0] == 0 && d->total[1] == 0) {
    if (ret_why)
      *ret_why = g_strdup_printf("neither side holds %s stacks to compare", sxs__view_kind_name(d->kind));
    return NULL;
  }
  GString *out = g_string_new(NULL);
  const char *names[2] = {o && o->name[0] ? o->name[0] : "base", o && o->name[1] ? o->name[1] : "new"};
  g_string_append_printf(out, "diff of %s: base %s (%" G_GUINT64_FORMAT " %s), new %s (%" G_GUINT64_FORMAT " %s)\n",
                         sxs__view_kind_name(d->kind), names[0], d->total[0], d->unit, names[1], d->total[1], d->unit);
  if (d->options.absolute)
    g_string_append_printf(out, "  compared in %s (--absolute); beyond noise: a change over %.0f standard errors\n",
                           d->unit, SXS_DIFF_NOISE_ERRORS);
  else
    g_string_append_printf(out,
                           "  compared as shares of each side's total, in points; beyond noise: a change over %.0f "
                           "standard errors\n",
                           SXS_DIFF_NOISE_ERRORS);
  SxsDiffRenderOptions defaults = {.top = 10};
  if (!o)
    o = &defaults;
  g_autoptr(GArray) rows = sxs__diff_frame_totals(d);
  for (int total = 0; total < 2; total++) {
    table(out, d, o, rows, total, TRUE);
    table(out, d, o, rows, total, FALSE);
  }
  /* What changed within noise, and the largest such change by self. */
  guint quiet = 0;
  const SxsDiffFrameTotal *largest = NULL;
  for (guint i = 0; i < rows->len; i++) {
    const SxsDiffFrameTotal *t = &g_array_index(rows, SxsDiffFrameTotal, i);
    if (t->self_change.beyond || t->total_change.beyond || (t->self_change.change == 0 && t->total_change.change == 0))
      continue;
    quiet++;
    if (!largest || fabs(t->self_change.change) > fabs(largest->self_change.change) ||
        (fabs(t->self_change.change) == fabs(largest->self_change.change) &&
         strcmp(((const SxsDiffFrame *)d->frames->pdata[t->frame])->key,
                ((const SxsDiffFrame *)d->frames->pdata[largest->frame])->key) < 0))
      largest = t;
  }
  if (quiet && largest) {
    g_string_append_printf(out, "  within noise: %u function%s", quiet, quiet == 1 ? "" : "s");
    if (largest->self_change.change != 0) {
      const SxsDiffChange *c = &largest->self_change;
      const char *key = ((const SxsDiffFrame *)d->frames->pdata[largest->frame])->key;
      if (d->options.absolute)
        g_string_append_printf(out, " (largest self change %+.0f %s, noise ±%.0f: %s)", c->change, d->unit,
                               SXS_DIFF_NOISE_ERRORS * c->error, key);
      else
        g_string_append_printf(out, " (largest self change %+.2f pt, noise ±%.2f: %s)", c->change * 100,
                               SXS_DIFF_NOISE_ERRORS * c->error * 100, key);
    }
    g_string_append_c(out, '\n');
  }
  if (o->note)
    g_string_append_printf(out, "  %s\n", o->note);
  if (ret_len)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}
