/* The SVG flame graph writer: one kind of a view as an interactive flame graph in one
 * self-contained file (inline style and script, no network, no font to fetch) that a browser opens
 * from disk. It draws; it does not merge stacks (the view's tree does) or write files.
 *
 * Layout: the tree's root at the bottom, callees stacked on their callers, one row per depth.
 *
 *       +-------------+  +------+
 *       | Work        |  | read |                    depth 2
 *       +-------------+--+------+--------+
 *       | Main                           |           depth 1
 *       +--------------------------------+-------+
 *       | all                                    |   depth 0: the root, the kind's total
 *       +----------------------------------------+
 *       |<----------- 1180 user units ---------->|
 *
 * A node covers [start, start + total) in weight units, start being its parent's start plus the
 * totals of the siblings sorted before it. Both ends go through one monotonic mapping to hundredths
 * of a user unit, and a rect's width is the difference of its two mapped ends: children then never
 * reach past their parent nor overlap each other, whatever the rounding does.
 *
 * Frames narrower than 0.1 unit are not drawn (their parent's width still counts them). When more
 * than SXS_SVG_MAX_FRAMES would be left, the narrowest go until the rest fit: a node is never wider
 * than its parent, so a width threshold keeps every kept frame's ancestors, and the file stays a
 * few megabytes for any profile. What is left out is not in the file: zooming in does not bring it
 * back, and search percentages count only the frames drawn.
 *
 * Colours: managed frames of runtime 1 red to yellow, runtime 2 blue, then green, purple, teal (and
 * round again); native frames grey-brown; the shade within a family from a hash of the label, so a
 * function keeps its colour from one graph to the next. Search matches turn magenta.
 *
 * Every frame is <g class="f" data-name data-total data-self data-depth> holding a <title>, a
 * <rect x width> and a <text> cut to fit. The script exposes sxsSearch(term), sxsResetSearch(),
 * sxsZoom(element) and sxsResetZoom() on window; see sxs__svg_script.
 */
#include "sxs_svg.h"
#include "sxs_view.h"

#include <string.h>

#define SXS_SVG_WIDTH 1200      /* user units */
#define SXS_SVG_PAD 10          /* left and right margin */
#define SXS_SVG_GRAPH_Q 118000  /* the root's width in hundredths of a unit: WIDTH - 2 * PAD */
#define SXS_SVG_MIN_Q 10        /* narrowest frame drawn: 0.1 unit */
#define SXS_SVG_MAX_FRAMES 8000 /* most frames one file holds */
#define SXS_SVG_ROW 16          /* one depth: a 15-unit rect and a 1-unit gap */
#define SXS_SVG_TOP 68          /* title, subtitle and the controls' line above the frames */
#define SXS_SVG_CHAR_Q 660      /* an 11px monospace glyph is 0.6 em wide: 6.6 units */
#define SXS_SVG_TEXT_PAD_Q 600  /* 3 units of margin each side of a frame's text */
#define SXS_SVG_MATCH_FILL "#e600e6"
#define SXS_SVG_ROOT_FILL "#c8c8c8"

const char sxs__svg_style[] = "text{font-family:monospace;font-size:11px;fill:#000}\n"
                              "#sxs-title{font-size:17px;text-anchor:middle}\n"
                              "#sxs-subtitle{fill:#444;text-anchor:middle}\n"
                              "#sxs-status,#sxs-legend text,#sxs-omitted{fill:#333}\n"
                              "#sxs-matched{text-anchor:end;fill:#333}\n"
                              ".ctl{fill:#1f4e9c;cursor:pointer;text-decoration:underline}\n"
                              ".ctl.off{opacity:.35}\n"
                              ".f{cursor:pointer}\n"
                              ".f text{pointer-events:none}\n"
                              ".f:hover rect{stroke:#222;stroke-width:.6}\n"
                              ".f.a rect{opacity:.6}\n";

/* Geometry comes from the root element's data attributes and the frames' own attributes, so the
 * script is the same text in every file. Zoom rescales the target's subtree to the full width,
 * keeps its ancestors full width and hides the rest; search compares against data-name (a plain
 * substring, ignoring case when the term is all lower case, or a /regular expression/) and adds the
 * totals of matches that are not inside another match. */
const char sxs__svg_script[] =
    "(function () {\n"
    "  \"use strict\";\n"
    "  var svg = document.documentElement;\n"
    "  var pad = Number(svg.getAttribute(\"data-pad\"));\n"
    "  var full = Number(svg.getAttribute(\"data-width\"));\n"
    "  var total = Number(svg.getAttribute(\"data-total\"));\n"
    "  var charWidth = Number(svg.getAttribute(\"data-char-width\"));\n"
    "  var highlight = svg.getAttribute(\"data-match-fill\");\n"
    "  var hint = \"\";\n"
    "  var frames = null, byElement = null, zoomed = null, searchTerm = null;\n"
    "\n"
    "  function el(id) { return document.getElementById(id); }\n"
    "  function shortName(name) {\n"
    "    var k = name.indexOf(\"] \");\n"
    "    return name.charAt(0) === \"[\" && k > 0 ? name.slice(k + 2) : name;\n"
    "  }\n"
    "  function load() {\n"
    "    if (frames) return;\n"
    "    frames = [];\n"
    "    byElement = new Map();\n"
    "    var gs = document.querySelectorAll(\"g.f\");\n"
    "    for (var i = 0; i < gs.length; i++) {\n"
    "      var g = gs[i], r = g.querySelector(\"rect\"), title = g.querySelector(\"title\");\n"
    "      var f = {g: g, rect: r, text: g.querySelector(\"text\"), name: g.getAttribute(\"data-name\"),\n"
    "               depth: Number(g.getAttribute(\"data-depth\")), total: Number(g.getAttribute(\"data-total\")),\n"
    "               x: Number(r.getAttribute(\"x\")), w: Number(r.getAttribute(\"width\")),\n"
    "               fill: r.getAttribute(\"fill\"), info: title ? title.textContent.replace(/\\n/g, \" | \") : \"\"};\n"
    "      f.chars = Array.from(f.depth === 0 ? f.name : shortName(f.name));\n"
    "      frames.push(f);\n"
    "      byElement.set(g, f);\n"
    "    }\n"
    "    hint = el(\"sxs-status\").textContent;\n"
    "  }\n"
    "  function frameOf(node) {\n"
    "    load();\n"
    "    for (; node && node !== svg; node = node.parentNode)\n"
    "      if (byElement.has(node)) return byElement.get(node);\n"
    "    return null;\n"
    "  }\n"
    "  function fit(f, w) {\n"
    "    var n = Math.floor((w - 6) / charWidth);\n"
    "    if (n < 3) return \"\";\n"
    "    return f.chars.length <= n ? f.chars.join(\"\") : f.chars.slice(0, n - 2).join(\"\") + \"..\";\n"
    "  }\n"
    "  function place(f, x, w) {\n"
    "    f.rect.setAttribute(\"x\", x.toFixed(2));\n"
    "    f.rect.setAttribute(\"width\", w.toFixed(2));\n"
    "    if (f.text) {\n"
    "      f.text.setAttribute(\"x\", (x + 3).toFixed(2));\n"
    "      f.text.textContent = fit(f, w);\n"
    "    }\n"
    "  }\n"
    "  function show(f, visible, ancestor) {\n"
    "    f.g.style.display = visible ? \"\" : \"none\";\n"
    "    f.g.classList.toggle(\"a\", ancestor);\n"
    "  }\n"
    "  function setStatus(text) { el(\"sxs-status\").textContent = text; }\n"
    "  function resetZoom() {\n"
    "    load();\n"
    "    frames.forEach(function (f) { show(f, true, false); place(f, f.x, f.w); });\n"
    "    zoomed = null;\n"
    "    el(\"sxs-reset-zoom\").classList.add(\"off\");\n"
    "  }\n"
    "  function zoom(element) {\n"
    "    var z = frameOf(element);\n"
    "    if (!z) return false;\n"
    "    if (z.depth === 0) { resetZoom(); return true; }\n"
    "    var eps = 1e-6, scale = full / z.w;\n"
    "    frames.forEach(function (f) {\n"
    "      if (f.depth >= z.depth && f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps) {\n"
    "        show(f, true, false);\n"
    "        place(f, pad + (f.x - z.x) * scale, f.w * scale);\n"
    "      } else if (f.depth < z.depth && f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps) {\n"
    "        show(f, true, true);\n"
    "        place(f, pad, full);\n"
    "      } else {\n"
    "        show(f, false, false);\n"
    "      }\n"
    "    });\n"
    "    zoomed = z;\n"
    "    el(\"sxs-reset-zoom\").classList.remove(\"off\");\n"
    "    return true;\n"
    "  }\n"
    "  function matcher(term) {\n"
    "    var m = /^\\/(.+)\\/([a-z]*)$/.exec(term);\n"
    "    if (m) {\n"
    "      try {\n"
    "        var re = new RegExp(m[1], m[2].replace(/[gy]/g, \"\"));\n"
    "        return function (s) { return re.test(s); };\n"
    "      } catch (e) { /* not a valid expression: search the text */ }\n"
    "    }\n"
    "    if (term === term.toLowerCase())\n"
    "      return function (s) { return s.toLowerCase().indexOf(term) >= 0; };\n"
    "    return function (s) { return s.indexOf(term) >= 0; };\n"
    "  }\n"
    "  function resetSearch() {\n"
    "    load();\n"
    "    frames.forEach(function (f) { f.rect.setAttribute(\"fill\", f.fill); f.g.classList.remove(\"m\"); });\n"
    "    searchTerm = null;\n"
    "    el(\"sxs-matched\").textContent = \"\";\n"
    "    el(\"sxs-search\").textContent = \"Search\";\n"
    "  }\n"
    "  function search(term) {\n"
    "    resetSearch();\n"
    "    if (term === undefined || term === null || String(term) === \"\") return 0;\n"
    "    term = String(term);\n"
    "    var test = matcher(term), hits = [];\n"
    "    frames.forEach(function (f) {\n"
    "      if (f.depth > 0 && test(f.name)) {\n"
    "        f.rect.setAttribute(\"fill\", highlight);\n"
    "        f.g.classList.add(\"m\");\n"
    "        hits.push(f);\n"
    "      }\n"
    "    });\n"
    "    hits.sort(function (a, b) { return a.x - b.x || a.depth - b.depth; });\n"
    "    var sum = 0, end = -Infinity;\n"
    "    hits.forEach(function (f) {\n"
    "      if (f.x >= end - 1e-6) { sum += f.total; end = f.x + f.w; }\n"
    "    });\n"
    "    var percent = total > 0 ? 100 * sum / total : 0;\n"
    "    searchTerm = term;\n"
    "    el(\"sxs-matched\").textContent = \"Matched: \" + percent.toFixed(2) + \"% (\" + hits.length + \" frames)\";\n"
    "    el(\"sxs-search\").textContent = \"Reset search\";\n"
    "    return percent;\n"
    "  }\n"
    "  function promptSearch() {\n"
    "    var term = window.prompt(\"Search frames: text (lower case ignores case) or /regular expression/\",\n"
    "                             searchTerm || \"\");\n"
    "    if (term !== null) search(term);\n"
    "  }\n"
    "\n"
    "  svg.addEventListener(\"click\", function (e) {\n"
    "    var f = frameOf(e.target);\n"
    "    if (f) zoom(f.g);\n"
    "  });\n"
    "  svg.addEventListener(\"mouseover\", function (e) {\n"
    "    var f = frameOf(e.target);\n"
    "    if (f) setStatus(f.info);\n"
    "  });\n"
    "  svg.addEventListener(\"mouseout\", function (e) {\n"
    "    if (frameOf(e.target)) setStatus(hint);\n"
    "  });\n"
    "  el(\"sxs-reset-zoom\").addEventListener(\"click\", resetZoom);\n"
    "  el(\"sxs-search\").addEventListener(\"click\", function () {\n"
    "    if (searchTerm !== null) resetSearch(); else promptSearch();\n"
    "  });\n"
    "  window.addEventListener(\"keydown\", function (e) {\n"
    "    if (((e.ctrlKey || e.metaKey) && (e.key === \"f\" || e.key === \"F\")) || e.key === \"F3\") {\n"
    "      e.preventDefault();\n"
    "      promptSearch();\n"
    "    } else if (e.key === \"Escape\") {\n"
    "      resetSearch();\n"
    "      resetZoom();\n"
    "      if (tl()) resetRange();\n"
    "    }\n"
    "  });\n"
    "  /* The activity strip (samples with a timeline): a drag selects a time range, and the graph is\n"
    "   * redrawn from that range's samples (each bucket's counts per drawn frame, in #sxs-timeline). */\n"
    "  var timeline = null, dragFrom = null, selA = 0, selB = 0;\n"
    "  function tl() {\n"
    "    if (timeline === null) {\n"
    "      var m = el(\"sxs-timeline\");\n"
    "      timeline = m ? JSON.parse(m.textContent) : false;\n"
    "    }\n"
    "    return timeline;\n"
    "  }\n"
    "  function keepOriginal() {\n"
    "    load();\n"
    "    frames.forEach(function (f) {\n"
    "      if (f.x0 === undefined) { f.x0 = f.x; f.w0 = f.w; f.total0 = f.total; }\n"
    "    });\n"
    "    if (tl().total0 === undefined) tl().total0 = total;\n"
    "  }\n"
    "  function stripBucket(clientX) {\n"
    "    var d = tl(), p = svg.createSVGPoint();\n"
    "    p.x = clientX;\n"
    "    p.y = 0;\n"
    "    var x = p.matrixTransform(svg.getScreenCTM().inverse()).x;\n"
    "    return Math.max(0, Math.min(d.buckets.length, Math.round((x - pad) / full * d.buckets.length)));\n"
    "  }\n"
    "  function showSelection(a, b) {\n"
    "    var d = tl(), sel = el(\"sxs-sel\"), bw = full / d.buckets.length;\n"
    "    sel.setAttribute(\"x\", (pad + Math.min(a, b) * bw).toFixed(2));\n"
    "    sel.setAttribute(\"width\", (Math.abs(b - a) * bw).toFixed(2));\n"
    "    sel.style.display = a === b ? \"none\" : \"\";\n"
    "  }\n"
    "  function resetRange() {\n"
    "    var d = tl();\n"
    "    if (!d || d.total0 === undefined) return;\n"
    "    resetSearch();\n"
    "    frames.forEach(function (f) { f.x = f.x0; f.w = f.w0; f.total = f.total0; });\n"
    "    total = d.total0;\n"
    "    resetZoom();\n"
    "    selA = selB = 0;\n"
    "    showSelection(0, 0);\n"
    "    el(\"sxs-range\").textContent = el(\"sxs-range\").getAttribute(\"data-hint\");\n"
    "  }\n"
    "  function selectBuckets(a, b) {\n"
    "    var d = tl();\n"
    "    if (!d) return 0;\n"
    "    keepOriginal();\n"
    "    if (a > b) { var c = a; a = b; b = c; }\n"
    "    a = Math.max(0, a);\n"
    "    b = Math.min(d.buckets.length, b);\n"
    "    if (b <= a) { resetRange(); return 0; }\n"
    "    resetSearch();\n"
    "    resetZoom();\n"
    "    var n = frames.length, t = new Array(n).fill(0), cursor = new Array(n).fill(0);\n"
    "    for (var i = a; i < b; i++)\n"
    "      for (var j = 0; j < d.buckets[i].length; j += 2) t[d.buckets[i][j]] += d.buckets[i][j + 1];\n"
    "    for (var k = n - 1; k > 0; k--) t[d.parents[k]] += t[k];\n"
    "    frames.forEach(function (f, k) {\n"
    "      var x = pad, w = t[0] > 0 ? full * t[k] / t[0] : 0;\n"
    "      if (k > 0) { x = cursor[d.parents[k]]; cursor[d.parents[k]] += w; }\n"
    "      cursor[k] = x;\n"
    "      f.x = x;\n"
    "      f.w = w;\n"
    "      f.total = t[k];\n"
    "      show(f, k === 0 || w >= 0.1, false);\n"
    "      place(f, x, w);\n"
    "    });\n"
    "    total = t[0];\n"
    "    selA = a;\n"
    "    selB = b;\n"
    "    showSelection(a, b);\n"
    "    var s0 = (d.start_us + a * d.step_us) / 1e6, s1 = (d.start_us + b * d.step_us) / 1e6;\n"
    "    el(\"sxs-range\").textContent = s0.toFixed(2) + \" s to \" + s1.toFixed(2) + \" s: \" + t[0] + \" \" +\n"
    "        svg.getAttribute(\"data-unit\") + \" (double-click the strip for the whole run)\";\n"
    "    return t[0];\n"
    "  }\n"
    "  function selectTime(from, to) {\n"
    "    var d = tl();\n"
    "    if (!d) return 0;\n"
    "    return selectBuckets(Math.floor((from * 1e6 - d.start_us) / d.step_us),\n"
    "                         Math.ceil((to * 1e6 - d.start_us) / d.step_us));\n"
    "  }\n"
    "  var strip = el(\"sxs-strip\");\n"
    "  if (strip) {\n"
    "    strip.addEventListener(\"mousedown\", function (e) {\n"
    "      e.preventDefault();\n"
    "      dragFrom = stripBucket(e.clientX);\n"
    "      showSelection(dragFrom, dragFrom);\n"
    "    });\n"
    "    svg.addEventListener(\"mousemove\", function (e) {\n"
    "      if (dragFrom !== null) showSelection(dragFrom, stripBucket(e.clientX));\n"
    "    });\n"
    "    svg.addEventListener(\"mouseup\", function (e) {\n"
    "      if (dragFrom === null) return;\n"
    "      var a = dragFrom, b = stripBucket(e.clientX);\n"
    "      dragFrom = null;\n"
    "      if (a !== b) selectBuckets(a, b); else showSelection(selA, selB);\n"
    "    });\n"
    "    strip.addEventListener(\"dblclick\", resetRange);\n"
    "  }\n"
    "  window.sxsSelectTime = selectTime;\n"
    "  window.sxsResetRange = resetRange;\n"
    "  window.sxsSearch = search;\n"
    "  window.sxsResetSearch = resetSearch;\n"
    "  window.sxsZoom = zoom;\n"
    "  window.sxsResetZoom = resetZoom;\n"
    "})();\n";

/* Appends text, valid UTF-8, escaped for both XML content and attribute values. Characters XML 1.0
 * does not allow (control characters, U+FFFE, U+FFFF) become U+FFFD; tab and line breaks become
 * character references so attribute values keep them. */
static void svg_append_escaped(GString *out, const char *text, const char *end) {
  const char *p = text;
  while (p < end) {
    gunichar c = g_utf8_get_char(p);
    const char *next = g_utf8_next_char(p);
    switch (c) {
    case '&': g_string_append(out, "&amp;"); break;
    case '<': g_string_append(out, "&lt;"); break;
    case '>': g_string_append(out, "&gt;"); break;
    case '"': g_string_append(out, "&quot;"); break;
    case '\'': g_string_append(out, "&apos;"); break;
    case '\t': g_string_append(out, "&#9;"); break;
    case '\n': g_string_append(out, "&#10;"); break;
    case '\r': g_string_append(out, "&#13;"); break;
    default:
      if (c < 0x20 || c == 0xfffe || c == 0xffff)
        g_string_append(out, "\xef\xbf\xbd");
      else
        g_string_append_len(out, p, next - p);
    }
    p = next;
  }
}

/* Escapes a string that may not be valid UTF-8 (labels come from symbol tables and metadata). */
void sxs__svg_append_text(GString *out, const char *text) {
  const char *end = NULL;
  if (g_utf8_validate(text, -1, &end)) {
    svg_append_escaped(out, text, end);
    return;
  }
  g_autofree char *valid = g_utf8_make_valid(text, -1);
  svg_append_escaped(out, valid, valid + strlen(valid));
}

/* A length in hundredths of a unit, as "12.34" whatever the locale. */
static void svg_append_q(GString *out, guint64 q) {
  g_string_append_printf(out, "%" G_GUINT64_FORMAT ".%02u", q / 100, (unsigned)(q % 100));
}

static char *svg_percent(guint64 part, guint64 whole) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.2f", whole ? 100.0 * (double)part / (double)whole : 0.0));
}

/* "1234 samples", "1234567 nanoseconds (1.23 ms)", or "379811498 bytes (362.2 MiB)". */
static char *svg_quantity(guint64 value, const char *unit) {
  if (g_strcmp0(unit, "nanoseconds") == 0) {
    g_autofree char *human = sxs__view_duration(value);
    return g_strdup_printf("%" G_GUINT64_FORMAT " nanoseconds (%s)", value, human);
  }
  if (g_strcmp0(unit, "bytes") == 0 && value >= 1024) {
    g_autofree char *human = sxs__view_size_text(value);
    return g_strdup_printf("%" G_GUINT64_FORMAT " bytes (%s)", value, human);
  }
  return g_strdup_printf("%" G_GUINT64_FORMAT " %s", value, unit);
}

/* ---- Colours ---- */

/* A hue family: hue range in degrees, saturation, lightness range. */
typedef struct {
  double hue, hue_span, sat, light, light_span;
} SxsSvgFamily;

/* Managed frames of runtime 1, 2, ... take these in turn; native frames are grey-brown. */
static const SxsSvgFamily svg_runtime_families[] = {
    {0, 50, 0.80, 0.58, 0.10},   /* red to yellow */
    {195, 40, 0.65, 0.60, 0.12}, /* blue */
    {85, 50, 0.50, 0.52, 0.12},  /* green */
    {265, 35, 0.45, 0.64, 0.10}, /* purple */
    {165, 20, 0.55, 0.50, 0.12}, /* teal */
};
static const SxsSvgFamily svg_native_family = {20, 25, 0.18, 0.60, 0.14};

static const SxsSvgFamily *svg_family(gboolean managed, int runtime_id) {
  if (!managed)
    return &svg_native_family;
  guint n = G_N_ELEMENTS(svg_runtime_families);
  return &svg_runtime_families[runtime_id > 0 ? (guint)(runtime_id - 1) % n : 0];
}

static double svg_hue_channel(double p, double q, double t) {
  if (t < 0)
    t += 1;
  if (t > 1)
    t -= 1;
  if (t < 1.0 / 6)
    return p + (q - p) * 6 * t;
  if (t < 0.5)
    return q;
  if (t < 2.0 / 3)
    return p + (q - p) * (2.0 / 3 - t) * 6;
  return p;
}

/* "#rrggbb" of the family's colour at positions a and b (0..1) of its hue and lightness ranges. */
static void svg_color(const SxsSvgFamily *fam, double a, double b, char ret_hex[8]) {
  double h = fam->hue + fam->hue_span * a;
  h = (h >= 360 ? h - 360 : h) / 360;
  double l = fam->light + fam->light_span * b, s = fam->sat;
  double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
  double rgb[3] = {svg_hue_channel(p, q, h + 1.0 / 3), svg_hue_channel(p, q, h), svg_hue_channel(p, q, h - 1.0 / 3)};
  g_snprintf(ret_hex, 8, "#%02x%02x%02x", (unsigned)(rgb[0] * 255 + 0.5), (unsigned)(rgb[1] * 255 + 0.5),
             (unsigned)(rgb[2] * 255 + 0.5));
}

/* The frame's shade within its family, from a hash of its label: the same function has the same
 * colour in every graph. */
static void svg_frame_color(const SxsViewFrame *f, char ret_hex[8]) {
  guint32 h = 2166136261u; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)f->label; *p; p++)
    h = (h ^ *p) * 16777619u;
  svg_color(svg_family(f->managed, f->runtime_id), (double)(h & 0xffff) / 0xffff, (double)(h >> 16) / 0xffff, ret_hex);
}

/* ---- Layout ---- */

/* Where a node is drawn: its ends in hundredths of a unit from the graph's left edge. */
typedef struct {
  guint32 q_start, q_end;
  guint32 depth;
  gboolean kept;
} SxsSvgPlace;

/* Maps a position in weight units to hundredths of a unit. Monotonic in w, which is all the layout
 * needs: nested ranges stay nested and disjoint ones disjoint. */
static guint32 svg_map(guint64 w, guint64 total) {
  double q = (double)w * SXS_SVG_GRAPH_Q / (double)total + 0.5; /* >= 0.5: truncation is floor */
  return q >= SXS_SVG_GRAPH_Q ? SXS_SVG_GRAPH_Q : (guint32)q;
}

/* Places every node (see the top of the file). A child's range is clamped into its parent's, so
 * a tree whose children weigh more than their parent would still draw nested. */
static SxsSvgPlace *svg_layout(const SxsViewTree *t) {
  guint n = t->nodes->len;
  const SxsViewNode *nodes = (const SxsViewNode *)t->nodes->data;
  guint64 total = nodes[0].total;
  SxsSvgPlace *place = g_new0(SxsSvgPlace, n);
  g_autofree guint64 *start = g_new0(guint64, n);
  g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(guint32));
  guint32 root = 0;
  place[0].q_end = SXS_SVG_GRAPH_Q;
  g_array_append_val(todo, root);
  while (todo->len > 0) {
    guint32 i = g_array_index(todo, guint32, todo->len - 1);
    g_array_set_size(todo, todo->len - 1);
    const SxsViewNode *node = &nodes[i];
    guint64 end = start[i] + node->total, at = start[i];
    for (guint32 c = 0; c < node->n_children; c++) {
      guint32 ci = t->children[node->first_child + c];
      start[ci] = MIN(at, end);
      guint64 child_end = start[ci] + MIN(nodes[ci].total, end - start[ci]);
      place[ci].q_start = svg_map(start[ci], total);
      place[ci].q_end = svg_map(child_end, total);
      place[ci].depth = place[i].depth + 1;
      at = sxs__saturating_add(at, nodes[ci].total, G_MAXUINT64);
      g_array_append_val(todo, ci);
    }
  }
  return place;
}

/* Marks the nodes to draw: at least SXS_SVG_MIN_Q wide, and only the widest SXS_SVG_MAX_FRAMES.
 * Returns how many are kept and sets *ret_max_depth to the deepest kept one's depth. */
static guint svg_select(SxsSvgPlace *place, guint n, guint *ret_max_depth) {
  g_autofree guint32 *by_width = g_new0(guint32, SXS_SVG_GRAPH_Q + 1);
  for (guint i = 0; i < n; i++)
    by_width[place[i].q_end - place[i].q_start]++;
  /* The smallest width threshold that keeps at most SXS_SVG_MAX_FRAMES; when even the full-width
   * frames are more (a recursion that deep), the root alone. */
  guint32 threshold = SXS_SVG_GRAPH_Q + 1, count = 0;
  while (threshold > SXS_SVG_MIN_Q && count + by_width[threshold - 1] <= SXS_SVG_MAX_FRAMES)
    count += by_width[--threshold];
  guint kept = 0, max_depth = 0;
  for (guint i = 0; i < n; i++) {
    place[i].kept = i == 0 || place[i].q_end - place[i].q_start >= threshold;
    if (place[i].kept) {
      kept++;
      max_depth = MAX(max_depth, place[i].depth);
    }
  }
  *ret_max_depth = max_depth;
  return kept;
}

/* ---- Document ---- */

/* What the frames of the kept nodes are, for the legend: runtimes with managed frames, natives. */
typedef struct {
  GArray *runtimes; /* int, ascending */
  gboolean native;
} SxsSvgLegend;

static void svg_legend_note(SxsSvgLegend *l, const SxsViewFrame *f) {
  if (!f->managed) {
    l->native = TRUE;
    return;
  }
  guint i = 0;
  while (i < l->runtimes->len && g_array_index(l->runtimes, int, i) < f->runtime_id)
    i++;
  if (i == l->runtimes->len || g_array_index(l->runtimes, int, i) != f->runtime_id)
    g_array_insert_val(l->runtimes, i, f->runtime_id);
}

/* One legend entry at *x: a swatch and its text; advances *x past them. */
static void svg_legend_entry(GString *out, guint *x, guint y, const char *fill, const char *text) {
  g_string_append_printf(out,
                         "<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%u\" y=\"%u\">", *x,
                         y - 9, fill, *x + 14, y);
  sxs__svg_append_text(out, text);
  g_string_append(out, "</text>\n");
  *x += 14 + (guint)g_utf8_strlen(text, -1) * SXS_SVG_CHAR_Q / 100 + 16;
}

/* The legend line: what the colours mean and what widths measure. */
static void svg_append_legend(GString *out, const SxsView *v, const SxsSvgLegend *l, const char *unit, guint y) {
  guint x = SXS_SVG_PAD;
  char hex[8];
  g_string_append(out, "<g id=\"sxs-legend\">\n");
  for (guint i = 0; i < l->runtimes->len; i++) {
    int id = g_array_index(l->runtimes, int, i);
    const char *tag = sxs__view_runtime_tag(v, id); /* "[rt1 10.0.12]" */
    g_autofree char *text = g_strdup_printf("managed, %.*s", (int)strlen(tag) - 2, tag + 1);
    svg_color(svg_family(TRUE, id), 0.5, 0.5, hex);
    svg_legend_entry(out, &x, y, hex, text);
  }
  if (l->native) {
    svg_color(&svg_native_family, 0.5, 0.5, hex);
    svg_legend_entry(out, &x, y, hex, "native");
  }
  svg_legend_entry(out, &x, y, SXS_SVG_MATCH_FILL, "search match");
  g_autofree char *widths = g_strdup_printf("width: %s", unit);
  g_string_append_printf(out, "<text x=\"%u\" y=\"%u\">", x, y);
  sxs__svg_append_text(out, widths);
  g_string_append(out, "</text>\n</g>\n");
}

/* The title: the caller's, else the program, its executable when that is a host such as dotnet,
 * and its pid. */
static char *svg_title(const SxsView *v, const SxsRenderOptions *o) {
  if (o != NULL && o->title != NULL)
    return g_strdup(o->title);
  const SxsProcessInfo *p = v->model != NULL ? v->model->process : NULL;
  if (p == NULL)
    return g_strdup("Flame graph");
  if (p->executable == NULL)
    return g_strdup_printf("Flame graph of pid %d", p->pid);
  g_autofree char *base = g_path_get_basename(p->executable);
  g_autofree char *program = sxs__process_program_name(p->executable, (const char *const *)p->argv);
  if (strcmp(program, base) != 0)
    return g_strdup_printf("Flame graph of %s (%s, pid %d)", program, base, p->pid);
  return g_strdup_printf("Flame graph of %s (pid %d)", base, p->pid);
}

/* The subtitle: what was drawn, its total and how it was measured. */
static char *svg_subtitle(const SxsView *v, SxsViewKind kind, const char *unit, guint64 total) {
  guint groups = 0;
  SxsViewIter it;
  sxs__view_iter_init(&it, v, kind);
  while (sxs__view_iter_next_group(&it))
    groups++;
  g_autofree char *quantity = svg_quantity(total, unit);
  switch (kind) {
  case SXS_VIEW_SAMPLES: {
    GString *s = g_string_new("samples");
    if (v->sample_event != NULL)
      g_string_append_printf(s, " of %s, one every %" G_GUINT64_FORMAT, v->sample_event, v->event_period);
    if (v->frequency > 0) {
      g_string_append_printf(s, ", %s%ssampling at %d Hz", v->sample_mode ? v->sample_mode : "",
                             v->sample_mode ? " " : "", v->frequency);
      /* The rate achieved, when the sampler said (a period stands for what a sample weighs). */
      if (v->model && v->model->samples.duration_ns > 0)
        g_string_append_printf(s, " (%.1f achieved)", sxs__samples_achieved_hz(&v->model->samples));
    }
    g_string_append_printf(s, ": %s", quantity);
    if (v->period_ns > 0) {
      g_autofree char *time = sxs__view_duration(total * v->period_ns);
      g_string_append_printf(s, " (~%s)", time);
    } else if (v->sample_event != NULL && v->event_period > 0) {
      g_string_append_printf(s, " (~%" G_GUINT64_FORMAT " %s)", total * v->event_period, v->sample_event);
    }
    g_string_append_printf(s, " on %u thread%s", groups, groups == 1 ? "" : "s");
    return g_string_free(s, FALSE);
  }
  case SXS_VIEW_CALLS:
    return g_strdup_printf("traced calls: %s%s of %u runtime%s", quantity,
                           g_strcmp0(unit, "nanoseconds") == 0 ? " exclusive time" : "", groups,
                           groups == 1 ? "" : "s");
  case SXS_VIEW_EXCEPTIONS:
  case SXS_VIEW_CONTENTION:
  case SXS_VIEW_ALLOCATIONS:
    return g_strdup_printf("%s: %s%s in %u runtime%s", sxs__view_kind_name(kind), quantity,
                           kind == SXS_VIEW_CONTENTION    ? " waited"
                           : kind == SXS_VIEW_ALLOCATIONS ? " (estimated)"
                                                          : "",
                           groups, groups == 1 ? "" : "s");
  default: return g_strdup_printf("event stacks: %s of %u kind%s", quantity, groups, groups == 1 ? "" : "s");
  }
}

/* ---- The activity strip ---- */

/* Samples with a timeline get a strip above the graph: samples per step (100 ms, longer for a long
 * run so that it has at most SXS_SVG_STRIP_MAX steps), where a drag selects a time range and the
 * script redraws the graph from the counts the strip's data give per step and drawn frame (a
 * sample whose stack ends in a frame too narrow to draw counts in its nearest drawn caller). */
#define SXS_SVG_STRIP_MAX 1200
#define SXS_SVG_STRIP_H 30    /* the strip's bars */
#define SXS_SVG_STRIP_BAND 48 /* the strip, its line of text, and gaps */

typedef struct {
  guint64 start_us, step_us;
  guint n;         /* steps */
  guint64 *counts; /* samples per step */
  GString *json;   /* the data the script reads */
} SxsSvgStrip;

/* The tree node a stack (frames root first) ends in; 0 when the tree does not hold it. */
static guint32 svg_node_of(const SxsViewTree *t, const guint32 *frames, guint depth) {
  guint32 at = 0;
  for (guint d = 0; d < depth; d++) {
    const SxsViewNode *node = &g_array_index(t->nodes, SxsViewNode, at);
    guint32 next = 0;
    for (guint32 c = 0; c < node->n_children && !next; c++)
      if (sxs__view_tree_child(t, node, c)->frame == frames[d])
        next = t->children[node->first_child + c];
    if (!next)
      return at;
    at = next;
  }
  return at;
}

static int svg_compare_i64(gconstpointer a, gconstpointer b) {
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
  return x < y ? -1 : x > y;
}

static gboolean svg_strip_build(SxsSvgStrip *s, const SxsView *v, SxsViewKind kind, const SxsViewTree *t,
                                const SxsSvgPlace *place, const guint32 *drawn, const guint32 *parent) {
  if (kind != SXS_VIEW_SAMPLES)
    return FALSE;
  guint64 lo = G_MAXUINT64, hi = 0;
  SxsViewIter it;
  sxs__view_iter_init(&it, v, kind);
  for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));)
    if (g->timeline && g->timeline->len) {
      lo = MIN(lo, g_array_index(g->timeline, SxsViewSample, 0).t_us);
      hi = MAX(hi, g_array_index(g->timeline, SxsViewSample, g->timeline->len - 1).t_us);
    }
  if (lo > hi)
    return FALSE;
  static const guint64 steps[] = {100000, 200000, 500000, 1000000, 2000000, 5000000, 10000000, 30000000, 60000000};
  guint64 step = steps[0];
  for (guint i = 0; i < G_N_ELEMENTS(steps) && (hi - lo) / steps[i] + 1 > SXS_SVG_STRIP_MAX; i++)
    step = i + 1 < G_N_ELEMENTS(steps) ? steps[i + 1] : steps[i] * 2;
  while ((hi - lo) / step + 1 > SXS_SVG_STRIP_MAX)
    step *= 2;
  s->step_us = step;
  s->start_us = lo / step * step;
  s->n = (guint)((hi - s->start_us) / step + 1);
  s->counts = g_new0(guint64, s->n);
  /* (step << 32 | drawn frame) -> samples. */
  g_autoptr(GHashTable) cells = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  sxs__view_iter_init(&it, v, kind);
  for (const SxsViewGroup *g; (g = sxs__view_iter_next_group(&it));) {
    if (!g->timeline)
      continue;
    g_autofree guint32 *ends = g_new(guint32, g->stacks->len);
    for (guint i = 0; i < g->stacks->len; i++) {
      const SxsViewStack *st = &g_array_index(g->stacks, SxsViewStack, i);
      guint32 node = svg_node_of(t, st->frames, st->depth);
      while (node != 0 && !place[node].kept)
        node = g_array_index(t->nodes, SxsViewNode, node).parent;
      ends[i] = drawn[node];
    }
    for (guint i = 0; i < g->timeline->len; i++) {
      const SxsViewSample *sm = &g_array_index(g->timeline, SxsViewSample, i);
      guint b = (guint)((sm->t_us - s->start_us) / step);
      s->counts[b] += sm->weight;
      gint64 key = (gint64)((guint64)b << 32 | ends[sm->stack]);
      guint64 *c = g_hash_table_lookup(cells, &key);
      if (!c) {
        c = g_new0(guint64, 1);
        g_hash_table_insert(cells, g_memdup2(&key, sizeof key), c);
      }
      *c += sm->weight;
    }
  }
  /* {"start_us", "step_us", "parents": [drawn frame's parent], "buckets": [[frame, count, ...], ...]} */
  s->json = g_string_new(NULL);
  g_string_append_printf(s->json, "{\"start_us\":%" G_GUINT64_FORMAT ",\"step_us\":%" G_GUINT64_FORMAT ",\"parents\":[",
                         s->start_us, step);
  guint n_drawn = 0;
  for (guint i = 0; i < t->nodes->len; i++)
    n_drawn += place[i].kept;
  for (guint i = 0; i < n_drawn; i++)
    g_string_append_printf(s->json, "%s%u", i ? "," : "", parent[i]);
  g_string_append(s->json, "],\"buckets\":[");
  g_autoptr(GList) keys = g_hash_table_get_keys(cells);
  GArray *sorted = g_array_new(FALSE, FALSE, sizeof(gint64));
  for (GList *l = keys; l; l = l->next)
    g_array_append_val(sorted, *(gint64 *)l->data);
  g_array_sort(sorted, svg_compare_i64);
  guint at = 0;
  for (guint b = 0; b < s->n; b++) {
    g_string_append(s->json, b ? ",[" : "[");
    gboolean first = TRUE;
    while (at < sorted->len && (guint)((guint64)g_array_index(sorted, gint64, at) >> 32) == b) {
      gint64 key = g_array_index(sorted, gint64, at++);
      g_string_append_printf(s->json, "%s%u,%" G_GUINT64_FORMAT, first ? "" : ",", (guint)(key & 0xffffffff),
                             *(guint64 *)g_hash_table_lookup(cells, &key));
      first = FALSE;
    }
    g_string_append_c(s->json, ']');
  }
  g_string_append(s->json, "]}");
  g_array_unref(sorted);
  return TRUE;
}

static void svg_strip_append(GString *out, const SxsSvgStrip *s, guint y) {
  guint64 max = 1;
  for (guint b = 0; b < s->n; b++)
    max = MAX(max, s->counts[b]);
  g_string_append_printf(out,
                         "<g id=\"sxs-strip\" style=\"cursor:col-resize\"><rect x=\"%u\" y=\"%u\" width=\"%u\" "
                         "height=\"%u\" fill=\"#ecece4\"/>\n",
                         SXS_SVG_PAD, y, SXS_SVG_GRAPH_Q / 100, SXS_SVG_STRIP_H);
  for (guint b = 0; b < s->n; b++) {
    if (!s->counts[b])
      continue;
    guint64 x_q = (guint64)SXS_SVG_PAD * 100 + (guint64)b * SXS_SVG_GRAPH_Q / s->n;
    guint64 w_q = (guint64)(b + 1) * SXS_SVG_GRAPH_Q / s->n - (guint64)b * SXS_SVG_GRAPH_Q / s->n;
    guint64 h_q = MAX(s->counts[b] * SXS_SVG_STRIP_H * 100 / max, 50);
    g_string_append(out, "<rect class=\"sb\" x=\"");
    svg_append_q(out, x_q);
    g_string_append(out, "\" y=\"");
    svg_append_q(out, (guint64)(y + SXS_SVG_STRIP_H) * 100 - h_q);
    g_string_append(out, "\" width=\"");
    svg_append_q(out, w_q);
    g_string_append(out, "\" height=\"");
    svg_append_q(out, h_q);
    g_string_append_printf(out, "\" fill=\"#5a7fb5\"><title>%.2f s: %" G_GUINT64_FORMAT " samples</title></rect>\n",
                           (double)(s->start_us + b * s->step_us) / 1e6, s->counts[b]);
  }
  g_string_append_printf(out,
                         "<rect id=\"sxs-sel\" x=\"%u\" y=\"%u\" width=\"0\" height=\"%u\" fill=\"#1f4e9c\" "
                         "fill-opacity=\"0.25\" stroke=\"#1f4e9c\" style=\"display:none\"/></g>\n",
                         SXS_SVG_PAD, y, SXS_SVG_STRIP_H);
  g_autofree char *hint = g_strdup_printf("activity: samples per %g s from %.2f s to %.2f s; drag across it to draw "
                                          "the graph of a time range",
                                          (double)s->step_us / 1e6, (double)s->start_us / 1e6,
                                          (double)(s->start_us + s->n * s->step_us) / 1e6);
  g_string_append_printf(out, "<text id=\"sxs-range\" x=\"%u\" y=\"%u\" data-hint=\"%s\">%s</text>\n", SXS_SVG_PAD,
                         y + SXS_SVG_STRIP_H + 12, hint, hint);
  g_string_append_printf(out, "<metadata id=\"sxs-timeline\">%s</metadata>\n", s->json->str);
}

/* One frame's <g>. */
static void svg_append_frame(GString *out, const SxsView *v, const SxsViewTree *t, guint32 i, const SxsSvgPlace *pl,
                             guint max_depth, guint top) {
  const SxsViewNode *node = &g_array_index(t->nodes, SxsViewNode, i);
  const SxsViewNode *root = &g_array_index(t->nodes, SxsViewNode, 0);
  const SxsViewFrame *f = i == 0 ? NULL : g_ptr_array_index(v->frames, node->frame);
  /* A frame is named by its label, and by its line too in a view by line; its hover text says
   * where it is: its line, or where its function begins. */
  g_autofree char *title = f != NULL ? sxs__view_frame_title(f, TRUE) : NULL;
  g_autofree char *valid = f != NULL ? g_utf8_make_valid(f->line ? title : f->label, -1) : g_strdup("all");
  g_autofree char *hover = f != NULL ? g_utf8_make_valid(title, -1) : g_strdup("all");
  g_autofree char *total = svg_quantity(node->total, t->unit);
  g_autofree char *self = svg_quantity(node->self, t->unit);
  g_autofree char *total_pct = svg_percent(node->total, root->total);
  g_autofree char *self_pct = svg_percent(node->self, root->total);
  char fill[8];
  if (f != NULL)
    svg_frame_color(f, fill);
  else
    g_strlcpy(fill, SXS_SVG_ROOT_FILL, sizeof fill);
  guint y = top + (max_depth - pl->depth) * SXS_SVG_ROW;
  guint64 x_q = (guint64)SXS_SVG_PAD * 100 + pl->q_start, w_q = pl->q_end - pl->q_start;

  g_string_append(out, i == 0 ? "<g class=\"f root\" data-name=\"" : "<g class=\"f\" data-name=\"");
  svg_append_escaped(out, valid, valid + strlen(valid));
  g_string_append_printf(
      out, "\" data-total=\"%" G_GUINT64_FORMAT "\" data-self=\"%" G_GUINT64_FORMAT "\" data-depth=\"%u\"><title>",
      node->total, node->self, pl->depth);
  svg_append_escaped(out, hover, hover + strlen(hover));
  if (f != NULL && f->raw_name != NULL) {
    /* The name as the runtime gives it (an async method's state machine). */
    g_autofree char *raw = g_utf8_make_valid(f->raw_name, -1);
    g_string_append(out, "&#10;");
    svg_append_escaped(out, raw, raw + strlen(raw));
  }
  g_string_append_printf(out, "&#10;total %s, %s%%&#10;self %s, %s%%</title><rect x=\"", total, total_pct, self,
                         self_pct);
  svg_append_q(out, x_q);
  g_string_append_printf(out, "\" y=\"%u\" width=\"", y);
  svg_append_q(out, w_q);
  g_string_append_printf(out, "\" height=\"%u\" fill=\"%s\"/><text x=\"", SXS_SVG_ROW - 1, fill);
  svg_append_q(out, x_q + 300);
  g_string_append_printf(out, "\" y=\"%u\">", y + 11);

  /* The visible text: the label without its "[rt1 10.0.12] " tag (the colour says it), cut to fit. */
  const char *shown = valid;
  const char *tag_end = strstr(valid, "] ");
  if (f != NULL && valid[0] == '[' && tag_end != NULL)
    shown = tag_end + 2;
  guint64 fits = w_q > SXS_SVG_TEXT_PAD_Q ? (w_q - SXS_SVG_TEXT_PAD_Q) / SXS_SVG_CHAR_Q : 0;
  if (fits >= 3) {
    glong chars = g_utf8_strlen(shown, -1);
    if ((guint64)chars <= fits) {
      svg_append_escaped(out, shown, shown + strlen(shown));
    } else {
      svg_append_escaped(out, shown, g_utf8_offset_to_pointer(shown, (glong)fits - 2));
      g_string_append(out, "..");
    }
  }
  g_string_append(out, "</text></g>\n");
}

/*
 * Renders the stacks of o->kind (the view's primary kind when o is NULL or asks for
 * SXS_VIEW_N_KINDS), merged into one tree, as an SVG flame graph (see the top of the file). The
 * same view always gives the same bytes. NULL with *ret_why set when that kind has no stack of
 * any weight. Context: any thread; allocates.
 */
char *sxs__write_svg(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why) {
  SxsViewKind kind = v != NULL ? sxs__view_resolve_kind(v, o) : SXS_VIEW_N_KINDS;
  if (v == NULL || kind >= SXS_VIEW_N_KINDS) {
    if (ret_why != NULL)
      *ret_why = g_strdup("the profile holds no samples, traced calls or event stacks to draw a flame graph of");
    return NULL;
  }
  g_autoptr(SxsViewTree) t = sxs__view_tree_new(v, kind, NULL);
  if (t == NULL || t->nodes->len < 2 || g_array_index(t->nodes, SxsViewNode, 0).total == 0) {
    if (ret_why != NULL)
      *ret_why = g_strdup_printf("the profile holds no stacks of kind \"%s\" to draw a flame graph of",
                                 sxs__view_kind_name(kind));
    return NULL;
  }

  guint n = t->nodes->len;
  guint64 total = g_array_index(t->nodes, SxsViewNode, 0).total;
  g_autofree SxsSvgPlace *place = svg_layout(t);
  guint max_depth = 0;
  guint kept = svg_select(place, n, &max_depth);
  /* The drawn frames' order (the document's: pre-order, children by label) and their parents. */
  g_autofree guint32 *drawn = g_new0(guint32, n);
  g_autofree guint32 *drawn_parent = g_new0(guint32, kept);
  {
    g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(guint32));
    guint32 root = 0, next = 0;
    g_array_append_val(stack, root);
    while (stack->len > 0) {
      guint32 i = g_array_index(stack, guint32, stack->len - 1);
      g_array_set_size(stack, stack->len - 1);
      drawn[i] = next;
      drawn_parent[next] = i == 0 ? 0 : drawn[g_array_index(t->nodes, SxsViewNode, i).parent];
      next++;
      const SxsViewNode *node = &g_array_index(t->nodes, SxsViewNode, i);
      for (guint32 c = node->n_children; c > 0; c--) {
        guint32 ci = t->children[node->first_child + c - 1];
        if (place[ci].kept)
          g_array_append_val(stack, ci);
      }
    }
  }
  SxsSvgStrip strip = {0};
  gboolean has_strip = svg_strip_build(&strip, v, kind, t, place, drawn, drawn_parent);
  guint top = SXS_SVG_TOP + (has_strip ? SXS_SVG_STRIP_BAND : 0);
  guint frames_bottom = top + (max_depth + 1) * SXS_SVG_ROW;
  guint height = frames_bottom + (kept < n ? 68 : 50); /* legend, status, the omitted frames' note */
  g_autofree char *title = svg_title(v, o);
  g_autofree char *subtitle = svg_subtitle(v, kind, t->unit, total);

  GString *out = g_string_sized_new(4096 + (gsize)kept * 320);
  g_string_append_printf(out,
                         "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
                         "viewBox=\"0 0 %u %u\" data-pad=\"%u\" data-width=\"%u\" data-char-width=\"%u.%u\" "
                         "data-match-fill=\"%s\" data-total=\"%" G_GUINT64_FORMAT "\" data-kind=\"%s\" data-unit=\"",
                         SXS_SVG_WIDTH, height, SXS_SVG_WIDTH, height, SXS_SVG_PAD, SXS_SVG_GRAPH_Q / 100,
                         SXS_SVG_CHAR_Q / 100, SXS_SVG_CHAR_Q % 100 / 10, SXS_SVG_MATCH_FILL, total,
                         sxs__view_kind_name(kind));
  sxs__svg_append_text(out, t->unit);
  g_string_append_printf(out, "\">\n<style>\n%s</style>\n", sxs__svg_style);
  g_string_append_printf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f7f7f2\"/>\n", SXS_SVG_WIDTH,
                         height);
  g_string_append_printf(out, "<text id=\"sxs-title\" x=\"%u\" y=\"24\">", SXS_SVG_WIDTH / 2);
  sxs__svg_append_text(out, title);
  g_string_append_printf(out, "</text>\n<text id=\"sxs-subtitle\" x=\"%u\" y=\"42\">", SXS_SVG_WIDTH / 2);
  sxs__svg_append_text(out, subtitle);
  g_string_append_printf(out,
                         "</text>\n<text id=\"sxs-reset-zoom\" class=\"ctl off\" x=\"%u\" y=\"60\">Reset zoom</text>\n"
                         "<text id=\"sxs-search\" class=\"ctl\" x=\"%u\" y=\"60\" text-anchor=\"end\">Search</text>\n"
                         "<text id=\"sxs-matched\" x=\"%u\" y=\"60\"></text>\n",
                         SXS_SVG_PAD, SXS_SVG_WIDTH - SXS_SVG_PAD, SXS_SVG_WIDTH - SXS_SVG_PAD - 100);
  if (has_strip) {
    svg_strip_append(out, &strip, SXS_SVG_TOP - 2);
    g_free(strip.counts);
    g_string_free(strip.json, TRUE);
  }
  g_string_append(out, "<g id=\"sxs-frames\">\n");

  /* Frames in pre-order, root first, so that a parent always comes before its children. */
  SxsSvgLegend legend = {g_array_new(FALSE, FALSE, sizeof(int)), FALSE};
  g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(guint32));
  guint32 root = 0;
  g_array_append_val(todo, root);
  while (todo->len > 0) {
    guint32 i = g_array_index(todo, guint32, todo->len - 1);
    g_array_set_size(todo, todo->len - 1);
    const SxsViewNode *node = &g_array_index(t->nodes, SxsViewNode, i);
    svg_append_frame(out, v, t, i, &place[i], max_depth, top);
    if (i != 0)
      svg_legend_note(&legend, g_ptr_array_index(v->frames, node->frame));
    for (guint32 c = node->n_children; c > 0; c--) {
      guint32 ci = t->children[node->first_child + c - 1];
      if (place[ci].kept)
        g_array_append_val(todo, ci);
    }
  }
  g_string_append(out, "</g>\n");

  svg_append_legend(out, v, &legend, t->unit, frames_bottom + 20);
  g_array_unref(legend.runtimes);
  if (kept < n)
    g_string_append_printf(out,
                           "<text id=\"sxs-omitted\" x=\"%u\" y=\"%u\">%u frames too narrow to draw are left out "
                           "(their callers' widths include them)</text>\n",
                           SXS_SVG_PAD, frames_bottom + 58, n - kept);
  g_string_append_printf(out,
                         "<text id=\"sxs-status\" x=\"%u\" y=\"%u\">Point at a frame for details; click to zoom; "
                         "Ctrl-F to search; Esc to reset</text>\n",
                         SXS_SVG_PAD, frames_bottom + 40);
  g_string_append_printf(out, "<script><![CDATA[\n%s]]></script>\n</svg>\n", sxs__svg_script);

  if (ret_len != NULL)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}
