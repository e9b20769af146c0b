/* sxs_attach: the attach request's client data (see sxs_attach.h). */
#include "sxs_attach.h"

#include <errno.h>
#include <string.h>

#define ATTACH_MAGIC "sxsprof-attach 1"
#define ATTACH_MAX_DATA (64 * 1024)

void sxs__attach_request_clear(SxsAttachRequest *r) {
  g_clear_pointer(&r->config, g_free);
  g_clear_pointer(&r->control, g_free);
  g_clear_pointer(&r->run_id, g_free);
}

char *sxs__attach_request_format(const SxsAttachRequest *r, gsize *ret_len) {
  GString *text = g_string_new(ATTACH_MAGIC "\n");
  g_string_append_printf(text, "config=%s\n", r->config);
  if (r->control)
    g_string_append_printf(text, "control=%s\n", r->control);
  if (r->run_id)
    g_string_append_printf(text, "run_id=%s\n", r->run_id);
  *ret_len = text->len;
  return g_string_free(text, FALSE);
}

int sxs__attach_request_parse(const void *data, gsize len, SxsAttachRequest *ret, char **ret_why) {
  if (!data || len == 0) {
    *ret_why = g_strdup("the attach request carries no client data (attach with sxsprof attach)");
    return -EINVAL;
  }
  if (len > ATTACH_MAX_DATA || !g_utf8_validate(data, (gssize)len, NULL)) {
    *ret_why = g_strdup("the attach request's client data is not an sxsprof request");
    return -EINVAL;
  }
  g_autofree char *text = g_strndup(data, len);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  if (!lines[0] || !g_str_equal(g_strchomp(lines[0]), ATTACH_MAGIC)) {
    *ret_why = g_strdup("the attach request's client data is not an sxsprof request (or of another version)");
    return -EINVAL;
  }
  SxsAttachRequest r = {0};
  for (char **l = lines + 1; *l; l++) {
    char *eq = strchr(*l, '=');
    if (!eq)
      continue;
    *eq = '\0';
    char **slot = g_str_equal(*l, "config")    ? &r.config
                  : g_str_equal(*l, "control") ? &r.control
                  : g_str_equal(*l, "run_id")  ? &r.run_id
                                               : NULL;
    if (slot && !*slot)
      *slot = g_strdup(eq + 1);
  }
  if (!r.config || !g_path_is_absolute(r.config) || (r.control && !g_path_is_absolute(r.control))) {
    sxs__attach_request_clear(&r);
    *ret_why = g_strdup("the attach request names no config file by absolute path");
    return -EINVAL;
  }
  *ret = r;
  return 0;
}
