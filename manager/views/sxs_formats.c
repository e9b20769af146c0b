/* sxs_formats: the table of formats, rendering one, and writing several as whole files. */
#include "sxs_formats.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sxs_json.h"

typedef char *(*RenderFn)(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_error);

static const struct {
  const char *name;
  const char *suffix;
  RenderFn render; /* NULL: the JSON document, rendered from the model */
} formats[SXS_N_FORMATS] = {
    [SXS_FORMAT_JSON] = {"json", ".json", NULL},
    [SXS_FORMAT_SPEEDSCOPE] = {"speedscope", ".speedscope.json", sxs__write_speedscope},
    [SXS_FORMAT_FOLDED] = {"folded", ".folded", sxs__write_folded},
    [SXS_FORMAT_SVG] = {"svg", ".svg", sxs__write_svg},
    [SXS_FORMAT_PPROF] = {"pprof", ".pb.gz", sxs__write_pprof},
    [SXS_FORMAT_SUMMARY] = {"summary", NULL, sxs__write_summary},
};

const char *sxs__format_name(SxsFormat f) {
  return f < SXS_N_FORMATS ? formats[f].name : "unknown";
}

const char *sxs__formats_suffix(SxsFormat f) {
  return f < SXS_N_FORMATS ? formats[f].suffix : NULL;
}

char *sxs__formats_render(const SxsView *v, SxsFormat f, const SxsRenderOptions *o, gsize *ret_len, char **ret_error) {
  if (f >= SXS_N_FORMATS) {
    *ret_error = g_strdup("unknown format");
    return NULL;
  }
  if (!formats[f].render)
    return sxs__profile_render_json(v->model, ret_len);
  SxsRenderOptions defaults = {.top = 10, .kind = SXS_VIEW_N_KINDS};
  return formats[f].render(v, o ? o : &defaults, ret_len, ret_error);
}

char *sxs__formats_base(const char *profile_path) {
  if (g_str_has_suffix(profile_path, ".json"))
    return g_strndup(profile_path, strlen(profile_path) - strlen(".json"));
  return g_strdup(profile_path);
}

gboolean sxs__formats_is_view_file(const char *name) {
  for (int f = SXS_FORMAT_JSON + 1; f < SXS_N_FORMATS; f++)
    if (formats[f].suffix && g_str_has_suffix(name, formats[f].suffix))
      return TRUE;
  return FALSE;
}

int sxs__formats_write(const SxsView *v, const char *base, guint set, const SxsRenderOptions *o, SxsFormatsFlags flags,
                       SxsFormatsProgress progress, gpointer progress_data, GPtrArray *ret_paths, char **ret_skipped,
                       char **ret_error) {
  char *data[SXS_N_FORMATS] = {0};
  gsize len[SXS_N_FORMATS] = {0};
  g_autoptr(GString) skipped = g_string_new(NULL);
  guint count = 0, index = 0;
  for (int f = 0; f < SXS_N_FORMATS; f++)
    count += (set & SXS_FORMAT_BIT(f)) && formats[f].suffix;
  for (int f = 0; f < SXS_N_FORMATS; f++) {
    if (!(set & SXS_FORMAT_BIT(f)) || !formats[f].suffix)
      continue;
    if (progress)
      progress((SxsFormat)f, index++, count, progress_data);
    g_autofree char *why = NULL;
    data[f] = sxs__formats_render(v, (SxsFormat)f, o, &len[f], &why);
    if (!data[f]) {
      g_string_append_printf(skipped, "%s%s: %s", skipped->len ? "\n" : "", sxs__format_name((SxsFormat)f),
                             why ? why : "nothing to show");
      if (flags & SXS_FORMATS_DROP_STALE) {
        g_autofree char *stale = g_strconcat(base, formats[f].suffix, NULL);
        unlink(stale);
      }
    }
  }
  g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GString) errors = g_string_new(NULL);
  int r = 0;
  if (flags & SXS_FORMATS_ALL_OR_NOTHING) {
    /* Every file to a temp file first: a failure (a full disk) leaves each older file in place. */
    char *tmp[SXS_N_FORMATS] = {0};
    for (int f = 0; f < SXS_N_FORMATS && r == 0; f++) {
      if (!data[f])
        continue;
      g_autofree char *path = g_strconcat(base, formats[f].suffix, NULL);
      r = sxs__file_write_temp(path, data[f], len[f], &tmp[f]);
      if (r < 0)
        g_string_append_printf(errors, "cannot write %s: %s", path, g_strerror(-r));
    }
    for (int f = 0; f < SXS_N_FORMATS; f++) {
      if (!tmp[f])
        continue;
      char *path = g_strconcat(base, formats[f].suffix, NULL);
      int c = r < 0 ? (unlink(tmp[f]), 0) : sxs__file_commit(tmp[f], path);
      if (c < 0 && r == 0) {
        r = c;
        g_string_append_printf(errors, "cannot write %s: %s", path, g_strerror(-c));
      }
      if (r == 0)
        g_ptr_array_add(written, path);
      else
        g_free(path);
      g_free(tmp[f]);
    }
  } else {
    /* Each file on its own: one that cannot be written keeps its older version and is named; the
     * others are still written. */
    for (int f = 0; f < SXS_N_FORMATS; f++) {
      if (!data[f])
        continue;
      char *path = g_strconcat(base, formats[f].suffix, NULL);
      int w = sxs__file_write_atomic(path, data[f], len[f]);
      if (w < 0) {
        g_string_append_printf(errors, "%scannot write %s: %s", errors->len ? "\n" : "", path, g_strerror(-w));
        r = r < 0 ? r : w;
        g_free(path);
      } else {
        g_ptr_array_add(written, path);
      }
    }
  }
  for (int f = 0; f < SXS_N_FORMATS; f++)
    g_free(data[f]);
  if (r < 0) {
    *ret_error = g_strdup(errors->str);
    for (guint i = 0; ret_paths && i < written->len; i++)
      g_ptr_array_add(ret_paths, g_strdup(written->pdata[i]));
    return r;
  }
  if (ret_skipped)
    *ret_skipped = skipped->len ? g_strdup(skipped->str) : NULL;
  for (guint i = 0; ret_paths && i < written->len; i++)
    g_ptr_array_add(ret_paths, g_strdup(written->pdata[i]));
  return (int)written->len;
}
