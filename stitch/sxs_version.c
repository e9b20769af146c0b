/* sxs_version: parsing and ordering product versions. Pure functions: no state, no allocation. */
#include "sxs_version.h"

#include <string.h>

/* A non-empty run of letters, digits, '.' and '-' up to the end or to `stop`; returns its end or
 * NULL. */
static const char *version_label_end(const char *p, char stop) {
  const char *start = p;
  while (*p && *p != stop && (g_ascii_isalnum(*p) || *p == '.' || *p == '-'))
    p++;
  if (p == start || (*p && *p != stop))
    return NULL;
  return p;
}

gboolean sxs__version_parse(const char *text, SxsVersion *ret) {
  if (!text)
    return FALSE;
  SxsVersion v = {0};
  const char *p = text;
  for (;;) {
    if (!g_ascii_isdigit(*p) || v.n == SXS_VERSION_MAX_PARTS)
      return FALSE;
    guint64 value = 0;
    int digits = 0;
    for (; g_ascii_isdigit(*p); p++, digits++) {
      if (digits == 18)
        return FALSE;
      value = value * 10 + (guint64)(*p - '0');
    }
    v.part[v.n++] = value;
    if (*p != '.')
      break;
    p++;
  }
  if (*p == '-') {
    v.pre = p + 1;
    p = version_label_end(p + 1, '+');
    if (!p)
      return FALSE;
  }
  if (*p == '+') {
    v.build = p + 1;
    p = version_label_end(p + 1, '\0');
    if (!p)
      return FALSE;
  }
  if (*p != '\0')
    return FALSE;
  *ret = v;
  return TRUE;
}

/* The prerelease text of v, without any build metadata that follows it, compared with another. */
static int version_compare_pre(const char *a, const char *b) {
  size_t la = strcspn(a, "+"), lb = strcspn(b, "+");
  int c = strncmp(a, b, MIN(la, lb));
  if (c)
    return c;
  return (la > lb) - (la < lb);
}

int sxs__version_compare(const SxsVersion *a, const SxsVersion *b) {
  for (int i = 0; i < SXS_VERSION_MAX_PARTS; i++)
    if (a->part[i] != b->part[i])
      return a->part[i] < b->part[i] ? -1 : 1;
  if (!a->pre || !b->pre)
    return (a->pre == NULL) - (b->pre == NULL);
  return version_compare_pre(a->pre, b->pre);
}

gboolean sxs__version_starts_with(const SxsVersion *v, const SxsVersion *prefix) {
  if (prefix->n > v->n)
    return FALSE;
  for (int i = 0; i < prefix->n; i++)
    if (prefix->part[i] != v->part[i])
      return FALSE;
  return TRUE;
}

gboolean sxs__version_at_least(const char *text, guint64 major, guint64 minor) {
  SxsVersion v;
  if (!sxs__version_parse(text, &v))
    return FALSE;
  return v.part[0] > major || (v.part[0] == major && v.part[1] >= minor);
}
