/* JSON text writer (always valid UTF-8 output) and atomic file replace for the profile writers. */
#include "sxs_json.h"
#include "sxs_vec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum {
  SXS_JSON_FRAME_OBJECT,
  SXS_JSON_FRAME_ARRAY,
} SxsJsonFrameKind;

typedef struct {
  SxsJsonFrameKind kind;
  guint count;             /* members (object) or elements (array) started so far */
  gboolean awaiting_value; /* object only: a key was written, its value is next */
} SxsJsonFrame;

/* The text's buffer (SxsText) is a block of sxs_vec.h: a profile's text is megabytes, mapped apart
 * from the allocator's heap. */
static void buf_init(SxsText *b) {
  *b = (SxsText){0};
  sxs__text_append_len(b, "", 0);
}

/* Room for extra more bytes and the NUL. */
static void buf_reserve(SxsText *b, gsize extra) {
  if (b->data && b->len + extra + 1 <= b->cap)
    return;
  guint8 *data = (guint8 *)b->data;
  sxs__block_reserve(&data, data ? b->len + 1 : 0, &b->cap, &b->mapped, b->len + extra + 1);
  b->data = (char *)data;
}

void sxs__text_append_len(SxsText *b, const char *s, gsize n) {
  buf_reserve(b, n);
  if (n)
    memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void sxs__text_append(SxsText *b, const char *s) {
  sxs__text_append_len(b, s, strlen(s));
}

void sxs__text_append_c(SxsText *b, char c) {
  buf_reserve(b, 1);
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
}

void sxs__text_truncate(SxsText *b, gsize len) {
  if (len < b->len) {
    b->len = len;
    b->data[len] = '\0';
  }
}

void sxs__text_append_printf(SxsText *b, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  char small[256];
  int n = g_vsnprintf(small, sizeof small, format, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((gsize)n < sizeof small) {
    sxs__text_append_len(b, small, (gsize)n);
    return;
  }
  buf_reserve(b, (gsize)n);
  va_start(ap, format);
  g_vsnprintf(b->data + b->len, (gulong)n + 1, format, ap);
  va_end(ap);
  b->len += (gsize)n;
}

struct SxsJsonWriter {
  SxsText buf;
  gboolean pretty;
  gboolean failed;    /* sticky: misuse seen, later calls are ignored */
  gboolean has_value; /* the top-level value has been started */
  guint depth;        /* open containers; stack[depth - 1] is the innermost */
  guint inline_depth; /* 0, or the depth of the outermost open inline container */
  SxsJsonFrame stack[SXS_JSON_MAX_DEPTH];
};

/* Pretty layout here: off inside an inline container. */
static gboolean json_pretty_here(const SxsJsonWriter *w) {
  return w->pretty && w->inline_depth == 0;
}

SxsJsonWriter *sxs__json_writer_new(gboolean pretty) {
  SxsJsonWriter *w = g_new0(SxsJsonWriter, 1);
  buf_init(&w->buf);
  w->pretty = pretty;
  return w;
}

void sxs__json_writer_free(SxsJsonWriter *w) {
  if (w == NULL)
    return;
  sxs__text_free(&w->buf);
  g_free(w);
}

static void json_newline_indent(SxsJsonWriter *w, guint level) {
  sxs__text_append_c(&w->buf, '\n');
  for (guint i = 0; i < level; i++)
    sxs__text_append(&w->buf, "  ");
}

/* Starts a new element or member inside the innermost container: the separating comma and, in
 * pretty mode, the line break and indentation. */
static void json_open_slot(SxsJsonWriter *w, SxsJsonFrame *f) {
  if (f->count > 0)
    sxs__text_append_c(&w->buf, ',');
  if (json_pretty_here(w))
    json_newline_indent(w, w->depth);
  f->count++;
}

/* Checks that a value may be written here and emits what precedes it. FALSE (and the writer
 * marked failed) on misuse. */
static gboolean json_before_value(SxsJsonWriter *w) {
  if (w == NULL || w->failed)
    return FALSE;
  if (w->depth == 0) {
    if (w->has_value) {
      w->failed = TRUE;
      return FALSE;
    }
    w->has_value = TRUE;
    return TRUE;
  }
  SxsJsonFrame *f = &w->stack[w->depth - 1];
  if (f->kind == SXS_JSON_FRAME_OBJECT) {
    if (!f->awaiting_value) {
      w->failed = TRUE;
      return FALSE;
    }
    f->awaiting_value = FALSE;
    return TRUE;
  }
  json_open_slot(w, f);
  return TRUE;
}

static void json_begin(SxsJsonWriter *w, SxsJsonFrameKind kind, char open, gboolean inline_) {
  if (!json_before_value(w))
    return;
  if (w->depth >= SXS_JSON_MAX_DEPTH) {
    w->failed = TRUE;
    return;
  }
  w->stack[w->depth++] = (SxsJsonFrame){.kind = kind};
  if (inline_ && w->inline_depth == 0)
    w->inline_depth = w->depth;
  sxs__text_append_c(&w->buf, open);
}

static void json_end(SxsJsonWriter *w, SxsJsonFrameKind kind, char close) {
  if (w == NULL || w->failed)
    return;
  if (w->depth == 0 || w->stack[w->depth - 1].kind != kind || w->stack[w->depth - 1].awaiting_value) {
    w->failed = TRUE;
    return;
  }
  gboolean pretty = json_pretty_here(w);
  if (w->inline_depth == w->depth)
    w->inline_depth = 0;
  SxsJsonFrame *f = &w->stack[--w->depth];
  if (pretty && f->count > 0)
    json_newline_indent(w, w->depth);
  sxs__text_append_c(&w->buf, close);
}

void sxs__json_begin_object(SxsJsonWriter *w) {
  json_begin(w, SXS_JSON_FRAME_OBJECT, '{', FALSE);
}

void sxs__json_begin_object_inline(SxsJsonWriter *w) {
  json_begin(w, SXS_JSON_FRAME_OBJECT, '{', TRUE);
}

void sxs__json_begin_array_inline(SxsJsonWriter *w) {
  json_begin(w, SXS_JSON_FRAME_ARRAY, '[', TRUE);
}

void sxs__json_end_object(SxsJsonWriter *w) {
  json_end(w, SXS_JSON_FRAME_OBJECT, '}');
}

void sxs__json_begin_array(SxsJsonWriter *w) {
  json_begin(w, SXS_JSON_FRAME_ARRAY, '[', FALSE);
}

void sxs__json_end_array(SxsJsonWriter *w) {
  json_end(w, SXS_JSON_FRAME_ARRAY, ']');
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when it is invalid; then
 * *ret_bad receives the length of the maximal invalid subpart to replace by one U+FFFD (at least
 * 1). Follows the well-formed byte sequences table of the Unicode standard (no overlongs, no
 * surrogates, nothing above U+10FFFF). */
static gsize json_utf8_seq(const guchar *s, gsize n, gsize *ret_bad) {
  guchar c = s[0];
  gsize need;
  guchar lo = 0x80, hi = 0xBF; /* allowed range of the second byte */

  if (c >= 0xC2 && c <= 0xDF) {
    need = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0)
      lo = 0xA0;
    else if (c == 0xED)
      hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F;
  } else {
    *ret_bad = 1;
    return 0;
  }

  gsize i = 1;
  for (; i < need && i < n; i++) {
    guchar b = s[i];
    guchar blo = i == 1 ? lo : 0x80, bhi = i == 1 ? hi : 0xBF;
    if (b < blo || b > bhi)
      break;
  }
  if (i == need)
    return need;
  *ret_bad = i;
  return 0;
}

static void json_append_escaped(SxsText *buf, const char *str, gsize len) {
  static const char hex[] = "0123456789abcdef";
  const guchar *s = (const guchar *)str;
  gsize i = 0;

  sxs__text_append_c(buf, '"');
  while (i < len) {
    guchar c = s[i];
    if (c >= 0x80) {
      gsize bad = 0;
      gsize n = json_utf8_seq(s + i, len - i, &bad);
      if (n > 0) {
        sxs__text_append_len(buf, (const char *)s + i, n);
        i += n;
      } else {
        sxs__text_append(buf, "\xEF\xBF\xBD");
        i += bad;
      }
      continue;
    }
    switch (c) {
    case '"': sxs__text_append(buf, "\\\""); break;
    case '\\': sxs__text_append(buf, "\\\\"); break;
    case '\b': sxs__text_append(buf, "\\b"); break;
    case '\f': sxs__text_append(buf, "\\f"); break;
    case '\n': sxs__text_append(buf, "\\n"); break;
    case '\r': sxs__text_append(buf, "\\r"); break;
    case '\t': sxs__text_append(buf, "\\t"); break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
        sxs__text_append_len(buf, esc, sizeof esc);
      } else {
        sxs__text_append_c(buf, (char)c);
      }
      break;
    }
    i++;
  }
  sxs__text_append_c(buf, '"');
}

void sxs__json_key(SxsJsonWriter *w, const char *key) {
  if (w == NULL || w->failed)
    return;
  if (key == NULL || w->depth == 0) {
    w->failed = TRUE;
    return;
  }
  SxsJsonFrame *f = &w->stack[w->depth - 1];
  if (f->kind != SXS_JSON_FRAME_OBJECT || f->awaiting_value) {
    w->failed = TRUE;
    return;
  }
  json_open_slot(w, f);
  json_append_escaped(&w->buf, key, strlen(key));
  sxs__text_append(&w->buf, json_pretty_here(w) ? ": " : ":");
  f->awaiting_value = TRUE;
}

void sxs__json_string_len(SxsJsonWriter *w, const char *s, gssize len) {
  if (!json_before_value(w))
    return;
  if (s == NULL)
    sxs__text_append(&w->buf, "null");
  else
    json_append_escaped(&w->buf, s, len < 0 ? strlen(s) : (gsize)len);
}

void sxs__json_string(SxsJsonWriter *w, const char *utf8_or_null) {
  sxs__json_string_len(w, utf8_or_null, -1);
}

void sxs__json_int(SxsJsonWriter *w, gint64 v) {
  if (json_before_value(w)) {
    char text[24];
    sxs__text_append_len(&w->buf, text, (gsize)g_snprintf(text, sizeof text, "%" G_GINT64_FORMAT, v));
  }
}

void sxs__json_uint(SxsJsonWriter *w, guint64 v) {
  if (json_before_value(w)) {
    char text[24];
    sxs__text_append_len(&w->buf, text, (gsize)g_snprintf(text, sizeof text, "%" G_GUINT64_FORMAT, v));
  }
}

void sxs__json_bool(SxsJsonWriter *w, gboolean v) {
  if (json_before_value(w))
    sxs__text_append(&w->buf, v ? "true" : "false");
}

void sxs__json_null(SxsJsonWriter *w) {
  if (json_before_value(w))
    sxs__text_append(&w->buf, "null");
}

void sxs__json_double(SxsJsonWriter *w, double v) {
  if (!json_before_value(w))
    return;
  if (!isfinite(v)) {
    sxs__text_append(&w->buf, "null");
    return;
  }
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
  for (gsize i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_ascii_formatd(text, sizeof text, formats[i], v);
    if (g_ascii_strtod(text, NULL) == v)
      break;
  }
  sxs__text_append(&w->buf, text);
  if (strpbrk(text, ".e") == NULL)
    sxs__text_append(&w->buf, ".0");
}

void sxs__json_member_string(SxsJsonWriter *w, const char *key, const char *v) {
  sxs__json_key(w, key);
  sxs__json_string(w, v);
}

void sxs__json_member_int(SxsJsonWriter *w, const char *key, gint64 v) {
  sxs__json_key(w, key);
  sxs__json_int(w, v);
}

void sxs__json_member_uint(SxsJsonWriter *w, const char *key, guint64 v) {
  sxs__json_key(w, key);
  sxs__json_uint(w, v);
}

void sxs__json_member_bool(SxsJsonWriter *w, const char *key, gboolean v) {
  sxs__json_key(w, key);
  sxs__json_bool(w, v);
}

void sxs__json_member_double(SxsJsonWriter *w, const char *key, double v) {
  sxs__json_key(w, key);
  sxs__json_double(w, v);
}

const char *sxs__json_writer_get(SxsJsonWriter *w, gsize *ret_len) {
  if (w == NULL)
    return NULL;
  if (ret_len != NULL)
    *ret_len = w->buf.len;
  return w->buf.data;
}

gboolean sxs__json_writer_complete(SxsJsonWriter *w) {
  return w != NULL && !w->failed && w->has_value && w->depth == 0;
}

char *sxs__json_writer_steal(SxsJsonWriter *w, gsize *ret_len) {
  if (w == NULL)
    return NULL;
  SxsText t = sxs__json_writer_take(w);
  return sxs__text_steal(&t, ret_len);
}

SxsText sxs__json_writer_take(SxsJsonWriter *w) {
  SxsText t = w->buf;
  gboolean pretty = w->pretty;
  *w = (SxsJsonWriter){.pretty = pretty};
  buf_init(&w->buf);
  return t;
}

void sxs__text_free(SxsText *t) {
  guint8 *data = (guint8 *)t->data;
  sxs__block_free(&data, t->cap, t->mapped);
  *t = (SxsText){0};
}

char *sxs__text_steal(SxsText *t, gsize *ret_len) {
  gsize len = t->len;
  char *text = t->mapped ? g_strndup(t->data, len) : g_steal_pointer(&t->data);
  sxs__text_free(t);
  if (ret_len != NULL)
    *ret_len = len;
  return text;
}

/* Distinguishes temp files of concurrent writers in one process; the pid separates processes. */
static guint json_tmp_counter;

static int write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    if (n == 0)
      return -EIO;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Makes the rename durable. Failure is ignored: the new content is already in place. */
static void fsync_parent_dir(const char *path) {
  g_autofree char *dir = g_path_get_dirname(path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  (void)fsync(fd);
  close(fd);
}

int sxs__file_write_temp(const char *path, const char *data, size_t len, SxsFileFlags flags, char **ret_tmp) {
  if (path == NULL || *path == '\0' || (data == NULL && len > 0))
    return -EINVAL;

  guint counter = (guint)g_atomic_int_add((gint *)&json_tmp_counter, 1);
  g_autofree char *tmp = g_strdup_printf("%s.tmp.%ld.%u", path, (long)getpid(), counter);

  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;

  int r = write_all(fd, data, len);
  if (r == 0 && (flags & SXS_FILE_SYNC) && fsync(fd) < 0)
    r = -errno;
  /* On Linux the descriptor is released even when close fails with EINTR; do not retry it. */
  if (close(fd) < 0 && r == 0 && errno != EINTR)
    r = -errno;
  if (r < 0) {
    (void)unlink(tmp);
    return r;
  }
  *ret_tmp = g_steal_pointer(&tmp);
  return 0;
}

int sxs__file_commit(const char *tmp, const char *path, SxsFileFlags flags) {
  if (rename(tmp, path) < 0) {
    int r = -errno;
    (void)unlink(tmp);
    return r;
  }
  if (flags & SXS_FILE_SYNC)
    fsync_parent_dir(path);
  return 0;
}

int sxs__file_write_atomic(const char *path, const char *data, size_t len, SxsFileFlags flags) {
  g_autofree char *tmp = NULL;
  int r = sxs__file_write_temp(path, data, len, flags, &tmp);
  return r < 0 ? r : sxs__file_commit(tmp, path, flags);
}

guint64 sxs__text_digest(const char *data, gsize len) {
  /* Each step, h -> rotl((h ^ w) * K, 29) with K odd, is a bijection of h for a given word w and of
   * w for a given h: one changed word changes h there, and every later step keeps it changed. */
  const guint64 k = G_GUINT64_CONSTANT(0x9E3779B97F4A7C15);
  guint64 h = (guint64)len * k;
  gsize i = 0;
  for (; i + 8 <= len; i += 8) {
    guint64 w;
    memcpy(&w, data + i, 8);
    h = (h ^ w) * k;
    h = (h << 29) | (h >> 35);
  }
  guint64 tail = 0;
  if (len > i)
    memcpy(&tail, data + i, len - i);
  h = (h ^ tail) * k;
  return h ^ (h >> 32);
}
