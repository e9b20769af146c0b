/* sxs_formats: the table of formats, rendering one, and writing several as whole files. */
#include "sxs_formats.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sxs_json.h"

typedef char *(*RenderFn)(const SxsView *v, const SxsRenderOptions *o, gsize *ret_len, char **ret_why);

/* How each format is rendered (its name and file suffix are sxs_format's). */
static const RenderFn renders[SXS_N_FORMATS] = {
    [SXS_FORMAT_JSON] = NULL, /* the JSON document, rendered from the model */
    [SXS_FORMAT_SPEEDSCOPE] = sxs__write_speedscope,
    [SXS_FORMAT_FOLDED] = sxs__write_folded,
    [SXS_FORMAT_SVG] = sxs__write_svg,
    [SXS_FORMAT_PPROF] = sxs__write_pprof,
    [SXS_FORMAT_TRACE] = sxs__write_trace,
    [SXS_FORMAT_SUMMARY] = sxs__write_summary,
};

char *sxs__formats_render(const SxsView *v, SxsFormat f, const SxsRenderOptions *o, gsize *ret_len, char **ret_why) {
  if (f >= SXS_N_FORMATS) {
    *ret_why = g_strdup("unknown format");
    return NULL;
  }
  if (!renders[f])
    return sxs__profile_render_json(v->model, ret_len);
  SxsRenderOptions defaults = {.top = 10, .kind = SXS_VIEW_N_KINDS};
  return renders[f](v, o ? o : &defaults, ret_len, ret_why);
}

char *sxs__formats_base(const char *profile_path) {
  if (g_str_has_suffix(profile_path, ".json"))
    return g_strndup(profile_path, strlen(profile_path) - strlen(".json"));
  return g_strdup(profile_path);
}

gboolean sxs__formats_is_view_file(const char *name) {
  for (int f = SXS_FORMAT_JSON + 1; f < SXS_N_FORMATS; f++)
    if (sxs__format_suffix(f) && g_str_has_suffix(name, sxs__format_suffix(f)))
      return TRUE;
  return FALSE;
}

int sxs__formats_write(const SxsView *v, const char *base, guint set, const SxsRenderOptions *o, SxsFormatsFlags flags,
                       SxsFormatsProgress progress, gpointer progress_data, GPtrArray *ret_paths, char **ret_skipped,
                       char **ret_why) {
  char *data[SXS_N_FORMATS] = {0};
  gsize len[SXS_N_FORMATS] = {0};
  g_autoptr(GString) skipped = g_string_new(NULL);
  guint count = 0, index = 0;
  for (int f = 0; f < SXS_N_FORMATS; f++)
    count += (set & SXS_FORMAT_BIT(f)) && sxs__format_suffix(f);
  for (int f = 0; f < SXS_N_FORMATS; f++) {
    if (!(set & SXS_FORMAT_BIT(f)) || !sxs__format_suffix(f))
      continue;
    if (progress)
      progress((SxsFormat)f, index++, count, progress_data);
    g_autofree char *why = NULL;
    data[f] = sxs__formats_render(v, (SxsFormat)f, o, &len[f], &why);
    if (!data[f]) {
      g_string_append_printf(skipped, "%s%s: %s", skipped->len ? "\n" : "", sxs__format_name((SxsFormat)f),
                             why ? why : "nothing to show");
      if (flags & SXS_FORMATS_DROP_STALE) {
        g_autofree char *stale = g_strconcat(base, sxs__format_suffix(f), NULL);
        unlink(stale);
      }
    }
  }
  /* The single-graph formats (folded, SVG) draw one kind: each event profile also gets files of
   * its own, <base>.exceptions.svg and the like, whatever the main file draws. */
  g_autoptr(GPtrArray) kind_paths = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) kind_data = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GArray) kind_len = g_array_new(FALSE, FALSE, sizeof(gsize));
  static const SxsFormat per_kind[] = {SXS_FORMAT_FOLDED, SXS_FORMAT_SVG};
  for (int k = 0; k < SXS_PROFILE_N_KINDS && (!o || o->kind >= SXS_VIEW_N_KINDS); k++) {
    SxsViewKind vk = sxs__view_kind_of_profile((SxsProfileKind)k);
    SxsViewIter it;
    sxs__view_iter_init(&it, v, vk);
    if (!sxs__view_iter_next_stack(&it))
      continue;
    for (guint i = 0; i < G_N_ELEMENTS(per_kind); i++) {
      SxsFormat f = per_kind[i];
      if (!(set & SXS_FORMAT_BIT(f)))
        continue;
      SxsRenderOptions ko = o ? *o : (SxsRenderOptions){.top = 10};
      ko.kind = vk;
      gsize n = 0;
      g_autofree char *why = NULL;
      char *bytes = renders[f](v, &ko, &n, &why);
      if (!bytes)
        continue;
      g_ptr_array_add(kind_paths, g_strdup_printf("%s.%s%s", base, sxs__view_kind_name(vk), sxs__format_suffix(f)));
      g_ptr_array_add(kind_data, bytes);
      g_array_append_val(kind_len, n);
    }
  }
  /* Every file to write: the event profiles' own, then the formats'. */
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) bytes = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GArray) lens = g_array_new(FALSE, FALSE, sizeof(gsize));
  for (guint i = 0; i < kind_paths->len; i++) {
    g_ptr_array_add(paths, g_steal_pointer(&kind_paths->pdata[i]));
    g_ptr_array_add(bytes, g_steal_pointer(&kind_data->pdata[i]));
    g_array_append_val(lens, g_array_index(kind_len, gsize, i));
  }
  for (int f = 0; f < SXS_N_FORMATS; f++) {
    if (!data[f])
      continue;
    g_ptr_array_add(paths, g_strconcat(base, sxs__format_suffix(f), NULL));
    g_ptr_array_add(bytes, g_steal_pointer(&data[f]));
    g_array_append_val(lens, len[f]);
  }
  g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GString) errors = g_string_new(NULL);
  SxsFileFlags file_flags = flags & SXS_FORMATS_SYNC ? SXS_FILE_SYNC : 0;
  int r = 0;
  if (flags & SXS_FORMATS_ALL_OR_NOTHING) {
    /* Every file to a temp file first: a failure (a full disk) leaves each older file in place. */
    g_autofree char **tmp = g_new0(char *, paths->len + 1);
    for (guint i = 0; i < paths->len && r == 0; i++) {
      const char *path = paths->pdata[i];
      r = sxs__file_write_temp(path, bytes->pdata[i], g_array_index(lens, gsize, i), file_flags, &tmp[i]);
      if (r < 0)
        g_string_append_printf(errors, "cannot write %s: %s", path, g_strerror(-r));
    }
    for (guint i = 0; i < paths->len; i++) {
      if (!tmp[i])
        continue;
      const char *path = paths->pdata[i];
      int c = r < 0 ? (unlink(tmp[i]), 0) : sxs__file_commit(tmp[i], path, file_flags);
      if (c < 0 && r == 0) {
        r = c;
        g_string_append_printf(errors, "cannot write %s: %s", path, g_strerror(-c));
      }
      if (r == 0)
        g_ptr_array_add(written, g_strdup(path));
      g_free(tmp[i]);
    }
  } else {
    /* Each file on its own: one that cannot be written keeps its older version and is named; the
     * others are still written. */
    for (guint i = 0; i < paths->len; i++) {
      const char *path = paths->pdata[i];
      int w = sxs__file_write_atomic(path, bytes->pdata[i], g_array_index(lens, gsize, i), file_flags);
      if (w < 0) {
        g_string_append_printf(errors, "%scannot write %s: %s", errors->len ? "\n" : "", path, g_strerror(-w));
        r = r < 0 ? r : w;
      } else {
        g_ptr_array_add(written, g_strdup(path));
      }
    }
  }
  for (int f = 0; f < SXS_N_FORMATS; f++)
    g_free(data[f]);
  if (r < 0) {
    *ret_why = g_strdup(errors->str);
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
