/* The differential flame graph writer: a diff drawn as a flame graph of NEW's shape (frames as wide
 * as their weight in NEW), each frame coloured by the change of its self share (its self weight
 * with --absolute): white for none, redder the more it grew, bluer the more it shrank, paler when
 * the change is within noise. Its negated twin draws BASE's shape, where what disappeared is, and
 * colours by the opposite change as FlameGraph's --negate does: red for what weighed more before.
 *
 * The layout, the frame elements and the script (hover, search, zoom) are the flame graph's (see
 * sxs_write_svg.c); each frame also carries data-before, data-after (self shares, or weights),
 * data-change and data-beyond ("1" beyond noise), and its hover text says them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sxs_diff.h"
#include "sxs_svg.h"

#define DIFF_SVG_WIDTH 1200
#define DIFF_SVG_PAD 10
#define DIFF_SVG_GRAPH 1180.0 /* units */
#define DIFF_SVG_MIN 0.1      /* narrowest frame drawn */
#define DIFF_SVG_MAX_FRAMES 8000
#define DIFF_SVG_ROW 16
#define DIFF_SVG_TOP 68
#define DIFF_SVG_CHAR 6.6

typedef struct {
  double x, w;
  guint depth;
  gboolean kept;
} Place;

/* Kept nodes in drawing order: widest first, then in node order (a parent before its children). */
static int compare_drawn(const void *a, const void *b, void *data) {
  const Place *place = data;
  guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
  if (place[x].w != place[y].w)
    return place[x].w > place[y].w ? -1 : 1;
  return x < y ? -1 : x > y;
}

static int compare_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* "12.34%" of a share, or the weight with its unit (absolute). */
static char *amount(const SxsDiff *d, double v) {
  return d->options.absolute ? g_strdup_printf("%.0f %s", v, d->unit) : g_strdup_printf("%.2f%%", v * 100);
}

static char *change_text(const SxsDiff *d, const SxsDiffChange *c) {
  if (d->options.absolute)
    return g_strdup_printf("%+.0f %s (noise ±%.0f)", c->change, d->unit, SXS_DIFF_NOISE_ERRORS * c->error);
  return g_strdup_printf("%+.2f pt (noise ±%.2f)", c->change * 100, SXS_DIFF_NOISE_ERRORS * c->error * 100);
}

/* White to red (grew, v > 0) or blue (v < 0), v in [-1, 1]. */
static void fill_of(double v, char ret[8]) {
  double a = MIN(fabs(v), 1.0);
  int fade = MIN((int)lround(255 * (1 - 0.85 * a)), 246); /* any change shows its hue */
  if (v > 0)
    g_snprintf(ret, 8, "#ff%02x%02x", fade, fade);
  else if (v < 0)
    g_snprintf(ret, 8, "#%02x%02xff", fade, fade);
  else
    g_strlcpy(ret, "#ffffff", 8);
}

char *sxs__diff_write_svg(const SxsDiff *d, const SxsDiffRenderOptions *o, gsize *ret_len, char **ret_why) {
  gboolean negated = o && o->negated;
  int side = negated ? SXS_DIFF_BASE : SXS_DIFF_NEW;
  g_autoptr(SxsDiffTree) t = sxs__diff_tree_new(d);
  const SxsDiffNode *nodes = (const SxsDiffNode *)t->nodes->data;
  guint n = t->nodes->len;
  guint64 total = nodes[0].total[side];
  if (total == 0) {
    if (ret_why)
      *ret_why =
          g_strdup_printf("%s holds no %s stacks to draw", negated ? "base" : "new", sxs__view_kind_name(d->kind));
    return NULL;
  }
  /* Layout: a node covers its parent's start plus the weights of the siblings before it. */
  g_autofree Place *place = g_new0(Place, n);
  place[0].w = DIFF_SVG_GRAPH;
  for (guint i = 0; i < n; i++) {
    double at = place[i].x;
    for (guint32 c = 0; c < nodes[i].n_children; c++) {
      guint32 ci = t->children[nodes[i].first_child + c];
      place[ci].x = at;
      place[ci].w = DIFF_SVG_GRAPH * (double)nodes[ci].total[side] / (double)total;
      place[ci].depth = place[i].depth + 1;
      at += place[ci].w;
    }
  }
  /* Children come after their parents in the node array (a node is made after its parent), so one
   * pass places them all. Keep what is wide enough, and at most the widest DIFF_SVG_MAX_FRAMES. */
  double threshold = DIFF_SVG_MIN;
  if (n > DIFF_SVG_MAX_FRAMES) {
    g_autofree double *widths = g_new(double, n);
    for (guint i = 0; i < n; i++)
      widths[i] = place[i].w;
    qsort(widths, n, sizeof *widths, compare_desc);
    threshold = MAX(threshold, widths[DIFF_SVG_MAX_FRAMES - 1]);
    if (widths[DIFF_SVG_MAX_FRAMES] == threshold)
      threshold = nextafter(threshold, INFINITY);
  }
  guint kept = 0, max_depth = 0;
  double max_change = 0;
  g_autofree SxsDiffChange *change = g_new0(SxsDiffChange, n);
  for (guint i = 0; i < n; i++) {
    place[i].kept = i == 0 || (nodes[i].total[side] > 0 && place[i].w >= threshold);
    if (!place[i].kept)
      continue;
    kept++;
    max_depth = MAX(max_depth, place[i].depth);
    change[i] = sxs__diff_noise(nodes[i].self, nodes[i].self_count, d->total, d->total_count, d->options.absolute);
    if (i > 0)
      max_change = MAX(max_change, fabs(change[i].change));
  }

  guint bottom = DIFF_SVG_TOP + (max_depth + 1) * DIFF_SVG_ROW;
  guint height = bottom + 68;
  const char *names[2] = {o && o->name[0] ? o->name[0] : "base", o && o->name[1] ? o->name[1] : "new"};
  g_autofree char *title = o && o->title ? g_strdup(o->title)
                           : negated
                               ? g_strdup_printf("Differential flame graph, negated: %s against %s", names[0], names[1])
                               : g_strdup_printf("Differential flame graph: %s against %s", names[1], names[0]);
  g_autofree char *subtitle = g_strdup_printf(
      "%s; widths: %s's %" G_GUINT64_FORMAT " %s; colour: self %s, %s; pale: within noise (%.0f standard errors)",
      sxs__view_kind_name(d->kind), names[side], total, d->unit,
      d->options.absolute ? "change in weight" : "change in share",
      negated ? "red shrank, blue grew" : "red grew, blue shrank", SXS_DIFF_NOISE_ERRORS);

  GString *out = g_string_sized_new(4096 + (gsize)kept * 400);
  g_string_append_printf(out,
                         "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
                         "viewBox=\"0 0 %u %u\" data-pad=\"%u\" data-width=\"%.0f\" data-char-width=\"%.1f\" "
                         "data-match-fill=\"#e600e6\" data-total=\"%" G_GUINT64_FORMAT "\" data-kind=\"%s\" "
                         "data-diff=\"%s\" data-unit=\"",
                         DIFF_SVG_WIDTH, height, DIFF_SVG_WIDTH, height, DIFF_SVG_PAD, DIFF_SVG_GRAPH, DIFF_SVG_CHAR,
                         total, sxs__view_kind_name(d->kind), negated ? "negated" : "new");
  sxs__svg_append_text(out, d->unit);
  g_string_append_printf(out, "\">\n<style>\n%s</style>\n", sxs__svg_style);
  g_string_append_printf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f7f7f2\"/>\n", DIFF_SVG_WIDTH,
                         height);
  g_string_append_printf(out, "<text id=\"sxs-title\" x=\"%u\" y=\"24\">", DIFF_SVG_WIDTH / 2);
  sxs__svg_append_text(out, title);
  g_string_append_printf(out, "</text>\n<text id=\"sxs-subtitle\" x=\"%u\" y=\"42\">", DIFF_SVG_WIDTH / 2);
  sxs__svg_append_text(out, subtitle);
  g_string_append_printf(out,
                         "</text>\n<text id=\"sxs-reset-zoom\" class=\"ctl off\" x=\"%u\" y=\"60\">Reset zoom</text>\n"
                         "<text id=\"sxs-search\" class=\"ctl\" x=\"%u\" y=\"60\" text-anchor=\"end\">Search</text>\n"
                         "<text id=\"sxs-matched\" x=\"%u\" y=\"60\"></text>\n<g id=\"sxs-frames\">\n",
                         DIFF_SVG_PAD, DIFF_SVG_WIDTH - DIFF_SVG_PAD, DIFF_SVG_WIDTH - DIFF_SVG_PAD - 100);

  /* Widest first: of frames with one name, the one a search or a look-up by name meets first is
   * the one that weighs most. */
  g_autofree guint32 *order = g_new(guint32, kept);
  for (guint i = 0, k = 0; i < n; i++)
    if (place[i].kept)
      order[k++] = i;
  g_qsort_with_data(order, (gint)kept, sizeof *order, compare_drawn, place);
  g_autoptr(GString) hover = g_string_new(NULL);
  for (guint k = 0; k < kept; k++) {
    guint32 i = order[k];
    const SxsDiffNode *node = &nodes[i];
    const char *name = i == 0 ? "all" : ((const SxsDiffFrame *)d->frames->pdata[node->frame])->key;
    const SxsDiffChange *c = &change[i];
    SxsDiffChange tc = sxs__diff_noise(node->total, node->total_count, d->total, d->total_count, d->options.absolute);
    double shade = max_change > 0 ? c->change / max_change : 0;
    if (!c->beyond)
      shade *= 0.3;
    if (negated)
      shade = -shade;
    char fill[8];
    if (i == 0)
      g_strlcpy(fill, "#c8c8c8", sizeof fill);
    else
      fill_of(shade, fill);
    g_autofree char *sb = amount(d, c->before), *sa = amount(d, c->after), *tb = amount(d, tc.before),
                    *ta = amount(d, tc.after);
    g_autofree char *sc = change_text(d, c), *tcs = change_text(d, &tc);
    g_string_printf(hover,
                    "%s\nbefore: self %s, total %s\nafter: self %s, total %s\nself change %s, %s\ntotal change %s, "
                    "%s",
                    name, sb, tb, sa, ta, sc, c->beyond ? "beyond noise" : "within noise", tcs,
                    tc.beyond ? "beyond noise" : "within noise");
    double y = DIFF_SVG_TOP + (double)(max_depth - place[i].depth) * DIFF_SVG_ROW;
    double x = DIFF_SVG_PAD + place[i].x;
    g_string_append(out, i == 0 ? "<g class=\"f root\" data-name=\"" : "<g class=\"f\" data-name=\"");
    sxs__svg_append_text(out, name);
    g_string_append_printf(out,
                           "\" data-total=\"%" G_GUINT64_FORMAT "\" data-self=\"%" G_GUINT64_FORMAT
                           "\" data-depth=\"%u\" data-before=\"%.6g\" data-after=\"%.6g\" data-change=\"%.6g\" "
                           "data-beyond=\"%d\"><title>",
                           node->total[side], node->self[side], place[i].depth, c->before, c->after, c->change,
                           c->beyond ? 1 : 0);
    sxs__svg_append_text(out, hover->str);
    g_string_append_printf(out,
                           "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%u\" fill=\"%s\" "
                           "stroke=\"#ddd\" stroke-width=\".3\"/><text x=\"%.2f\" y=\"%.0f\">",
                           x, y, place[i].w, DIFF_SVG_ROW - 1, fill, x + 3, y + 11);
    glong fits = (glong)((place[i].w - 6) / DIFF_SVG_CHAR);
    if (fits >= 3) {
      g_autofree char *valid = g_utf8_make_valid(name, -1);
      glong chars = g_utf8_strlen(valid, -1);
      if (chars <= fits) {
        sxs__svg_append_text(out, valid);
      } else {
        g_autofree char *cut = g_utf8_substring(valid, 0, fits - 2);
        sxs__svg_append_text(out, cut);
        g_string_append(out, "..");
      }
    }
    g_string_append(out, "</text></g>\n");
  }
  g_string_append(out, "</g>\n");
  if (kept < n)
    g_string_append_printf(out,
                           "<text id=\"sxs-omitted\" x=\"%u\" y=\"%u\">%u frames too narrow to draw are left out "
                           "(their callers' widths include them)</text>\n",
                           DIFF_SVG_PAD, bottom + 58, n - kept);
  g_string_append_printf(out,
                         "<text id=\"sxs-status\" x=\"%u\" y=\"%u\">Point at a frame for before, after and change; "
                         "click to zoom; Ctrl-F to search; Esc to reset</text>\n",
                         DIFF_SVG_PAD, bottom + 30);
  g_string_append_printf(out, "<script><![CDATA[\n%s]]></script>\n</svg>\n", sxs__svg_script);
  if (ret_len)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}
