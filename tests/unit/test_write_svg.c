/* The SVG flame graph writer (manager/views/sxs_write_svg.c): its output read back with an XML parser is
 * well-formed, its frames nest (children never wider than their parent), the hot function is the
 * widest leaf, every tricky label survives escaping exactly, and huge profiles stay small and fast.
 *
 * Run with SXS_SVG_OUT=<path>, it writes the fixture's flame graph to <path> and exits instead:
 * the browser test (tests/integration/test_views_browser.c) opens that file. */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sxs_view.h"
#include "sxs_view_fixture.h"

/* One frame <g> as read back. */
typedef struct {
  char *name;  /* data-name */
  char *title; /* the <title>'s text */
  char *text;  /* the <text>'s text */
  char *fill;  /* the rect's fill */
  guint64 total, self;
  guint depth;
  double x, w;    /* the rect's */
  double child_w; /* sum of the children's widths, filled by check_nesting */
  gboolean root;
} Frame;

static void frame_free(gpointer p) {
  Frame *f = p;
  g_free(f->name);
  g_free(f->title);
  g_free(f->text);
  g_free(f->fill);
  g_free(f);
}

/* What the parser read: the frames in document order, and the root element's attributes. */
typedef struct {
  GPtrArray *frames; /* Frame*, owned */
  Frame *current;    /* the frame whose <g> is open */
  guint current_at;  /* element depth of that <g> */
  guint at;          /* element depth */
  const char *in;    /* "title" or "text" while inside one in a frame */
  GHashTable *svg;   /* the root element's attributes: name -> value, owned */
  GString *subtitle; /* text of #sxs-subtitle */
  GString *title;    /* text of #sxs-title */
  GString *legend;   /* text of #sxs-legend */
  GString *collect;  /* where text goes now, or NULL */
  gboolean has_script;
} Doc;

static void doc_free(Doc *d) {
  g_ptr_array_unref(d->frames);
  g_hash_table_unref(d->svg);
  g_string_free(d->subtitle, TRUE);
  g_string_free(d->title, TRUE);
  g_string_free(d->legend, TRUE);
  g_free(d);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Doc, doc_free)

static const char *attr(const char **names, const char **values, const char *name) {
  for (guint i = 0; names[i] != NULL; i++)
    if (strcmp(names[i], name) == 0)
      return values[i];
  return NULL;
}

static void on_start(GMarkupParseContext *ctx, const char *element, const char **names, const char **values,
                     gpointer data, GError **error) {
  (void)ctx;
  (void)error;
  Doc *d = data;
  d->at++;
  const char *id = attr(names, values, "id");
  const char *klass = attr(names, values, "class");
  if (d->at == 1) {
    g_assert_cmpstr(element, ==, "svg");
    g_assert_cmpstr(attr(names, values, "xmlns"), ==, "http://www.w3.org/2000/svg");
    for (guint i = 0; names[i] != NULL; i++)
      g_hash_table_insert(d->svg, g_strdup(names[i]), g_strdup(values[i]));
  } else if (strcmp(element, "g") == 0 && klass != NULL && (strcmp(klass, "f") == 0 || strcmp(klass, "f root") == 0)) {
    g_assert_null(d->current); /* frames are not nested in the document */
    Frame *f = g_new0(Frame, 1);
    f->name = g_strdup(attr(names, values, "data-name"));
    g_assert_nonnull(f->name);
    f->total = g_ascii_strtoull(attr(names, values, "data-total"), NULL, 10);
    f->self = g_ascii_strtoull(attr(names, values, "data-self"), NULL, 10);
    f->depth = (guint)g_ascii_strtoull(attr(names, values, "data-depth"), NULL, 10);
    f->root = strcmp(klass, "f root") == 0;
    f->title = g_strdup("");
    f->text = g_strdup("");
    g_ptr_array_add(d->frames, f);
    d->current = f;
    d->current_at = d->at;
  } else if (d->current != NULL && strcmp(element, "rect") == 0) {
    d->current->x = g_ascii_strtod(attr(names, values, "x"), NULL);
    d->current->w = g_ascii_strtod(attr(names, values, "width"), NULL);
    d->current->fill = g_strdup(attr(names, values, "fill"));
  } else if (d->current != NULL && (strcmp(element, "title") == 0 || strcmp(element, "text") == 0)) {
    d->in = strcmp(element, "title") == 0 ? "title" : "text";
  } else if (g_strcmp0(id, "sxs-title") == 0) {
    d->collect = d->title;
  } else if (g_strcmp0(id, "sxs-subtitle") == 0) {
    d->collect = d->subtitle;
  } else if (g_strcmp0(id, "sxs-legend") == 0) {
    d->collect = d->legend;
  } else if (strcmp(element, "script") == 0) {
    d->has_script = TRUE;
  }
}

static void on_end(GMarkupParseContext *ctx, const char *element, gpointer data, GError **error) {
  (void)ctx;
  (void)error;
  Doc *d = data;
  if (d->current != NULL && d->at == d->current_at)
    d->current = NULL;
  if (strcmp(element, "title") == 0 || strcmp(element, "text") == 0)
    d->in = NULL;
  if (d->collect != NULL && d->collect != d->legend)
    d->collect = NULL;
  if (strcmp(element, "g") == 0 && d->collect == d->legend)
    d->collect = NULL;
  d->at--;
}

static void on_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer data, GError **error) {
  (void)ctx;
  (void)error;
  Doc *d = data;
  if (d->current != NULL && d->in != NULL) {
    char **slot = strcmp(d->in, "title") == 0 ? &d->current->title : &d->current->text;
    g_autofree char *old = *slot;
    g_autofree char *add = g_strndup(text, len);
    *slot = g_strconcat(old, add, NULL);
  } else if (d->collect != NULL) {
    g_string_append_len(d->collect, text, (gssize)len);
  }
}

/* Parses an SVG document; fails the test unless it is well-formed UTF-8 XML. */
static Doc *parse(const char *svg, gsize len) {
  g_assert_true(g_utf8_validate(svg, (gssize)len, NULL));
  Doc *d = g_new0(Doc, 1);
  d->frames = g_ptr_array_new_with_free_func(frame_free);
  d->svg = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  d->subtitle = g_string_new(NULL);
  d->title = g_string_new(NULL);
  d->legend = g_string_new(NULL);
  static const GMarkupParser parser = {on_start, on_end, on_text, NULL, NULL};
  GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, G_MARKUP_TREAT_CDATA_AS_TEXT, d, NULL);
  g_autoptr(GError) error = NULL;
  g_markup_parse_context_parse(ctx, svg, (gssize)len, &error);
  g_assert_no_error(error);
  g_markup_parse_context_end_parse(ctx, &error);
  g_assert_no_error(error);
  g_markup_parse_context_free(ctx);
  g_assert_cmpuint(d->at, ==, 0);
  return d;
}

/* The SVG of m for kind (SXS_VIEW_N_KINDS: the primary one); the test fails when the writer
 * declines. */
static char *render(const SxsProfileModel *m, SxsViewKind kind, const char *title, gsize *ret_len) {
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsRenderOptions o = {.kind = kind, .title = title};
  g_autofree char *error = NULL;
  gsize len = 0;
  char *svg = sxs__write_svg(v, &o, &len, &error);
  g_assert_null(error);
  g_assert_nonnull(svg);
  g_assert_cmpuint(len, ==, strlen(svg));
  *ret_len = len;
  return svg;
}

static int compare_x(gconstpointer a, gconstpointer b) {
  const Frame *x = *(Frame *const *)a, *y = *(Frame *const *)b;
  return x->x < y->x ? -1 : x->x > y->x;
}

/* Every frame but the root sits inside exactly one frame one level down (its parent, found by x
 * range), and the widths of a frame's children add up to at most its own. */
static void check_nesting(Doc *d) {
  const double eps = 1e-6;
  guint max_depth = 0, roots = 0;
  for (guint i = 0; i < d->frames->len; i++) {
    Frame *f = d->frames->pdata[i];
    max_depth = MAX(max_depth, f->depth);
    g_assert_cmpfloat(f->w, >=, 0.1 - eps);
    f->child_w = 0;
    if (f->depth == 0) {
      roots++;
      g_assert_true(f->root);
      g_assert_cmpfloat_with_epsilon(f->w, g_ascii_strtod(g_hash_table_lookup(d->svg, "data-width"), NULL), eps);
    }
  }
  g_assert_cmpuint(roots, ==, 1);
  /* Frames by depth, each row by x. */
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  for (guint d_ = 0; d_ <= max_depth; d_++)
    g_ptr_array_add(rows, g_ptr_array_new());
  for (guint i = 0; i < d->frames->len; i++) {
    Frame *f = d->frames->pdata[i];
    g_ptr_array_add(rows->pdata[f->depth], f);
  }
  for (guint depth = 0; depth <= max_depth; depth++) {
    GPtrArray *row = rows->pdata[depth];
    g_assert_cmpuint(row->len, >, 0);
    g_ptr_array_sort(row, compare_x);
    for (guint i = 1; i < row->len; i++) { /* siblings and cousins never overlap */
      const Frame *a = row->pdata[i - 1], *b = row->pdata[i];
      g_assert_cmpfloat(a->x + a->w, <=, b->x + eps);
    }
    if (depth == 0)
      continue;
    GPtrArray *parents = rows->pdata[depth - 1];
    for (guint i = 0; i < row->len; i++) {
      Frame *c = row->pdata[i];
      Frame *parent = NULL;
      for (guint lo = 0, hi = parents->len; lo < hi;) { /* the last parent with x <= c->x */
        guint mid = (lo + hi) / 2;
        if (((Frame *)parents->pdata[mid])->x <= c->x + eps) {
          parent = parents->pdata[mid];
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      g_assert_nonnull(parent);
      g_assert_cmpfloat(c->x + c->w, <=, parent->x + parent->w + eps);
      g_assert_cmpuint(c->total, <=, parent->total);
      parent->child_w += c->w;
    }
  }
  for (guint i = 0; i < d->frames->len; i++) {
    const Frame *f = d->frames->pdata[i];
    g_assert_cmpfloat(f->child_w, <=, f->w + eps);
  }
}

static const Frame *find_frame(Doc *d, const char *name) {
  for (guint i = 0; i < d->frames->len; i++) {
    const Frame *f = d->frames->pdata[i];
    if (strcmp(f->name, name) == 0)
      return f;
  }
  return NULL;
}

/* The only "http" in a flame graph is the SVG namespace's name: nothing is fetched. */
static void check_offline(const char *svg) {
  guint n = 0;
  for (const char *p = strstr(svg, "http"); p != NULL; p = strstr(p + 1, "http")) {
    g_assert_true(g_str_has_prefix(p, "http://www.w3.org/2000/svg\"") ||
                  g_str_has_prefix(p, "http://www.w3.org/1999/xlink\""));
    n++;
  }
  g_assert_cmpuint(n, ==, 1);
  g_assert_null(strstr(svg, "@import"));
  g_assert_null(strstr(svg, "url("));
  g_assert_null(strstr(svg, "src="));
}

static void test_wellformed(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  gsize len = 0;
  g_autofree char *svg = render(m, SXS_VIEW_N_KINDS, NULL, &len);
  g_assert_true(g_str_has_prefix(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\""));
  g_autoptr(Doc) d = parse(svg, len);
  g_assert_true(d->has_script);
  g_assert_cmpstr(g_hash_table_lookup(d->svg, "data-kind"), ==, "samples");
  g_assert_cmpstr(g_hash_table_lookup(d->svg, "data-unit"), ==, "samples");
  g_assert_cmpstr(g_hash_table_lookup(d->svg, "data-total"), ==, G_STRINGIFY(FIXTURE_SAMPLES_TOTAL));
  check_offline(svg);
  /* The script's entry points are there, and nothing closes the CDATA section early. */
  const char *script = strstr(svg, "<script><![CDATA[");
  g_assert_nonnull(script);
  for (const char *fn = "sxsSearch\0sxsResetSearch\0sxsZoom\0sxsResetZoom\0"; *fn; fn += strlen(fn) + 1) {
    g_autofree char *assign = g_strdup_printf("window.%s = ", fn);
    g_assert_nonnull(strstr(script, assign));
  }
  g_assert_true(strstr(script, "]]>") == strstr(svg, "]]></script>"));

  /* Every node of the tree is drawn: 11 frames and the root. */
  g_assert_cmpuint(d->frames->len, ==, 12);
  check_nesting(d);
}

static void test_hot(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  gsize len = 0;
  g_autofree char *svg = render(m, SXS_VIEW_N_KINDS, NULL, &len);
  g_autoptr(Doc) d = parse(svg, len);
  const Frame *hot = NULL, *root = NULL;
  for (guint i = 0; i < d->frames->len; i++) {
    const Frame *f = d->frames->pdata[i];
    if (hot == NULL || f->self > hot->self)
      hot = f;
    if (f->depth == 0)
      root = f;
  }
  g_assert_cmpstr(hot->name, ==, FIXTURE_HOT_LABEL);
  g_assert_cmpuint(hot->self, ==, FIXTURE_HOT_SAMPLES);
  g_assert_cmpuint(hot->total, ==, FIXTURE_HOT_SAMPLES);
  g_assert_cmpuint(hot->depth, ==, 3); /* all <- libc <- Main <- Hot */
  g_assert_cmpuint(root->total, ==, FIXTURE_SAMPLES_TOTAL);
  g_assert_cmpfloat_with_epsilon(hot->w, root->w * FIXTURE_HOT_SAMPLES / FIXTURE_SAMPLES_TOTAL, 0.01);
  g_assert_cmpstr(hot->text, ==, FIXTURE_HOT_NAME); /* wide enough for its whole name, tag left out */
  g_assert_true(g_str_has_prefix(hot->title, FIXTURE_HOT_LABEL "\ntotal 70 samples, 70.00%\nself 70 samples, 70.00%"));

  /* Its parent is Main, which holds Cold beside it. */
  const Frame *main_ = find_frame(d, FIXTURE_MAIN_LABEL), *cold = find_frame(d, FIXTURE_COLD_LABEL);
  g_assert_nonnull(main_);
  g_assert_nonnull(cold);
  g_assert_cmpuint(main_->total, ==, 80);
  g_assert_cmpuint(main_->self, ==, 0);
  g_assert_cmpuint(cold->depth, ==, hot->depth);
  g_assert_cmpfloat_with_epsilon(hot->w + cold->w, main_->w, 0.011);
}

/* Each tricky label reads back exactly from data-name and starts its <title>. */
static void test_names(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  gsize len = 0;
  g_autofree char *svg = render(m, SXS_VIEW_N_KINDS, NULL, &len);
  g_autoptr(Doc) d = parse(svg, len);
  g_autofree char *long_label = fixture_long_label();
  const char *labels[] = {FIXTURE_HOT_LABEL,     FIXTURE_MAIN_LABEL,
                          FIXTURE_LIBC_LABEL,    FIXTURE_BRIDGE_LABEL,
                          FIXTURE_GENERIC_LABEL, FIXTURE_MAINDOLLAR_LABEL,
                          FIXTURE_CLOSURE_LABEL, FIXTURE_UNICODE_LABEL,
                          FIXTURE_QUOTES_LABEL,  long_label};
  for (guint i = 0; i < G_N_ELEMENTS(labels); i++) {
    const Frame *f = find_frame(d, labels[i]);
    if (f == NULL)
      g_test_message("missing frame: %s", labels[i]);
    g_assert_nonnull(f);
    g_autofree char *head = g_strconcat(labels[i], "\n", NULL);
    g_assert_true(g_str_has_prefix(f->title, head));
  }
  /* Raw markup characters only ever appear escaped. */
  g_assert_null(strstr(svg, "Box<T>"));
  g_assert_nonnull(strstr(svg, "Box&lt;T&gt;.Run&lt;int&gt;"));
  g_assert_nonnull(strstr(svg, "Say&quot;hi&quot;&amp;&apos;x&apos;;y"));
  g_assert_nonnull(strstr(svg, "Ünïcødé.Ström.Tên"));

  /* The 2,000 characters do not fit: the visible text is cut and says so; the rest stays in the
   * name and the title. */
  const Frame *f = find_frame(d, long_label);
  g_assert_true(g_str_has_prefix(f->text, "Long.") || f->text[0] == '\0');
  g_assert_cmpuint(strlen(f->text), <, 200);
  if (f->text[0] != '\0')
    g_assert_true(g_str_has_suffix(f->text, ".."));
  g_assert_cmpuint(strlen(f->name), ==, strlen("[rt1 10.0.1] ") + FIXTURE_LONG_NAME_LEN);
  /* A text never runs past its rect: 6.6 units a character plus 6 of margin. */
  for (guint i = 0; i < d->frames->len; i++) {
    const Frame *g = d->frames->pdata[i];
    g_assert_cmpfloat(g_utf8_strlen(g->text, -1) * 6.6 + 6, <=, g->w + 1e-6);
  }

  /* Labels that are not valid UTF-8 or hold control characters still give valid XML. */
  SxsStackModel *s = fixture_sample(m, 102, "Bad", 5);
  fixture_frame(s, TRUE, 1, "Bad\xff\xfe.Name\x01\x1f<tab>\there", "App.dll", 0x7e000000b000);
  fixture_libc(s);
  gsize len2 = 0;
  g_autofree char *svg2 = render(m, SXS_VIEW_N_KINDS, NULL, &len2);
  g_autoptr(Doc) d2 = parse(svg2, len2);
  check_nesting(d2);
  gboolean seen = FALSE;
  for (guint i = 0; i < d2->frames->len; i++) {
    const Frame *g = d2->frames->pdata[i];
    if (strstr(g->name, "<tab>\there") != NULL) {
      g_assert_true(g_str_has_prefix(g->name, "[rt1 10.0.1] Bad"));
      seen = TRUE;
    }
  }
  g_assert_true(seen);
}

/* Managed frames of each runtime in their own hue family, native ones nearly grey, and the legend
 * saying so; one function always the same colour. */
static void test_colors(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  gsize len = 0;
  g_autofree char *svg = render(m, SXS_VIEW_N_KINDS, NULL, &len);
  g_autoptr(Doc) d = parse(svg, len);
  struct {
    const char *label;
    int family; /* 1: red to yellow, 2: blue, 0: grey-brown */
  } expect[] = {{FIXTURE_HOT_LABEL, 1},     {FIXTURE_MAIN_LABEL, 1}, {FIXTURE_UNICODE_LABEL, 1},
                {FIXTURE_GENERIC_LABEL, 2}, {FIXTURE_LIBC_LABEL, 0}, {FIXTURE_BRIDGE_LABEL, 0}};
  for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
    const Frame *f = find_frame(d, expect[i].label);
    g_assert_nonnull(f);
    g_assert_cmpuint(strlen(f->fill), ==, 7);
    unsigned rgb = (unsigned)strtoul(f->fill + 1, NULL, 16), r = rgb >> 16, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
    unsigned hi = MAX(r, MAX(g, b)), lo = MIN(r, MIN(g, b));
    switch (expect[i].family) {
    case 1: g_assert_true(r == hi && b == lo && r - b > 80); break;
    case 2: g_assert_true(b == hi && r == lo && b - r > 80); break;
    default: g_assert_cmpuint(hi - lo, <, 60);
    }
  }
  const Frame *hot = find_frame(d, FIXTURE_HOT_LABEL), *main_ = find_frame(d, FIXTURE_MAIN_LABEL);
  g_assert_cmpstr(hot->fill, !=, main_->fill); /* shades differ by name */
  g_assert_nonnull(strstr(d->legend->str, "managed, rt1 10.0.1"));
  g_assert_nonnull(strstr(d->legend->str, "managed, rt2 8.0.11"));
  g_assert_nonnull(strstr(d->legend->str, "native"));
  g_assert_nonnull(strstr(d->legend->str, "width: samples"));
}

/* The title comes from the process or the caller; the subtitle says what was drawn. Each kind draws
 * in its unit. */
static void test_titles_and_kinds(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  gsize len = 0;
  g_autofree char *svg = render(m, SXS_VIEW_N_KINDS, NULL, &len);
  g_autoptr(Doc) d = parse(svg, len);
  g_assert_cmpstr(d->title->str, ==, "Flame graph of App (dotnet, pid 4242)");
  g_assert_cmpstr(d->subtitle->str, ==, "samples, cpu sampling at 100 Hz: 100 samples (~1 s) on 2 threads");
  /* With the time the sampler's ticks covered, the rate it achieved too. */
  m->samples.ticks = 250;
  m->samples.duration_ns = 2620000000;
  g_autofree char *timed = render(m, SXS_VIEW_N_KINDS, NULL, &len);
  g_autoptr(Doc) dt = parse(timed, len);
  g_assert_cmpstr(dt->subtitle->str, ==,
                  "samples, cpu sampling at 100 Hz (95.4 achieved): 100 samples (~1 s) on 2 threads");
  m->samples.ticks = 0;
  m->samples.duration_ns = 0;

  g_autofree char *svg2 = render(m, SXS_VIEW_N_KINDS, "<My & \"App\">", &len);
  g_autoptr(Doc) d2 = parse(svg2, len);
  g_assert_cmpstr(d2->title->str, ==, "<My & \"App\">");

  g_autofree char *calls = render(m, SXS_VIEW_CALLS, NULL, &len);
  g_autoptr(Doc) dc = parse(calls, len);
  check_nesting(dc);
  g_assert_cmpstr(g_hash_table_lookup(dc->svg, "data-unit"), ==, "nanoseconds");
  g_assert_cmpstr(g_hash_table_lookup(dc->svg, "data-total"), ==, G_STRINGIFY(FIXTURE_CALLS_TOTAL_NS));
  g_assert_nonnull(strstr(dc->subtitle->str, "traced calls: 1000 nanoseconds (1 \u00b5s) exclusive time of 1 runtime"));
  const Frame *hot = find_frame(dc, FIXTURE_HOT_LABEL);
  g_assert_nonnull(hot);
  g_assert_cmpuint(hot->self, ==, 800);
  g_assert_true(g_str_has_prefix(hot->title, FIXTURE_HOT_LABEL "\ntotal 800 nanoseconds (800 ns), 80.00%"));

  g_autofree char *events = render(m, SXS_VIEW_EVENTS, NULL, &len);
  g_autoptr(Doc) de = parse(events, len);
  check_nesting(de);
  g_assert_cmpstr(g_hash_table_lookup(de->svg, "data-unit"), ==, "events");
  g_assert_cmpstr(g_hash_table_lookup(de->svg, "data-total"), ==, G_STRINGIFY(FIXTURE_EXCEPTIONS));
  g_assert_nonnull(find_frame(de, "[rt1 10.0.1] App.Program.Throw"));
  g_assert_null(find_frame(de, FIXTURE_HOT_LABEL));
}

static void test_deterministic(void) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  gsize len1 = 0, len2 = 0;
  g_autofree char *a = render(m, SXS_VIEW_N_KINDS, NULL, &len1);
  g_autofree char *b = render(m, SXS_VIEW_N_KINDS, NULL, &len2);
  g_assert_cmpuint(len1, ==, len2);
  g_assert_cmpmem(a, len1, b, len2);
}

/* 10,000 stacks of 30 frames: a fraction of a second and a few megabytes, the narrowest frames
 * left out, and what is drawn still nests. */
static void test_large(void) {
  g_autoptr(SxsProfileModel) m = fixture_large_model(10000, 30, 2000, 1000000);
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  SxsRenderOptions o = {.kind = SXS_VIEW_N_KINDS};
  g_autofree char *error = NULL;
  gsize len = 0;
  gint64 start = g_get_monotonic_time();
  g_autofree char *svg = sxs__write_svg(v, &o, &len, &error);
  gint64 elapsed = g_get_monotonic_time() - start;
  g_test_message("10000 x 30: %" G_GSIZE_FORMAT " bytes in %" G_GINT64_FORMAT " us", len, elapsed);
  g_assert_null(error);
  g_assert_nonnull(svg);
  g_assert_cmpint(elapsed, <, 2 * G_USEC_PER_SEC);
  g_assert_cmpuint(len, <, 10 * 1024 * 1024);

  g_autoptr(Doc) d = parse(svg, len);
  check_nesting(d);
  g_assert_cmpuint(d->frames->len, >, 100);
  g_assert_cmpuint(d->frames->len, <=, 10000);
  g_assert_nonnull(strstr(svg, "frames too narrow to draw are left out"));
  g_assert_cmpstr(d->subtitle->str, ==, "samples, cpu sampling at 999 Hz: 1000000 samples (~1001 s) on 8 threads");
  const Frame *root = d->frames->pdata[0];
  g_assert_true(root->root);
  g_assert_cmpuint(root->total, ==, 1000000);
}

static void test_empty(void) {
  g_autoptr(SxsProfileModel) m = sxs__profile_model_new();
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  gsize len = 12345;
  char *error = NULL;
  g_assert_null(sxs__write_svg(v, NULL, &len, &error));
  g_assert_nonnull(error);
  g_assert_nonnull(strstr(error, "no samples, traced calls or event stacks"));
  g_assert_cmpuint(len, ==, 12345);
  g_free(error);

  /* A kind the profile has nothing of. */
  g_autoptr(SxsProfileModel) f = fixture_model();
  g_ptr_array_set_size(f->stacks, 0);
  g_autoptr(SxsView) fv = sxs__view_new(f, NULL);
  SxsRenderOptions o = {.kind = SXS_VIEW_EVENTS};
  error = NULL;
  g_assert_null(sxs__write_svg(fv, &o, &len, &error));
  g_assert_nonnull(strstr(error, "no stacks of kind \"events\""));
  g_free(error);
}

/* Writes the fixture's flame graph to path, for the browser test. */
static int write_fixture(const char *path) {
  g_autoptr(SxsProfileModel) m = fixture_model();
  gsize len = 0;
  g_autoptr(SxsView) v = sxs__view_new(m, NULL);
  g_autofree char *error = NULL;
  g_autofree char *svg = sxs__write_svg(v, NULL, &len, &error);
  g_autoptr(GError) werror = NULL;
  if (svg == NULL || !g_file_set_contents(path, svg, (gssize)len, &werror)) {
    g_printerr("cannot write %s: %s\n", path, svg == NULL ? error : werror->message);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *out = g_getenv("SXS_SVG_OUT");
  if (out != NULL && *out != '\0')
    return write_fixture(out);
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/views/svg/wellformed", test_wellformed);
  g_test_add_func("/views/svg/hot", test_hot);
  g_test_add_func("/views/svg/names", test_names);
  g_test_add_func("/views/svg/colors", test_colors);
  g_test_add_func("/views/svg/titles-and-kinds", test_titles_and_kinds);
  g_test_add_func("/views/svg/deterministic", test_deterministic);
  g_test_add_func("/views/svg/large", test_large);
  g_test_add_func("/views/svg/empty", test_empty);
  return g_test_run();
}
