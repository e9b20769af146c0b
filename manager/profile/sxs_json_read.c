/* JSON pull reader: syntax checked as the caller walks the text, values decoded on request.
 *
 *   { "a" : [ 1 , "x\u00e9" ] , "b" : null }
 *   ^ ^     ^ ^   ^         ^   ^     ^    ^
 *   | |     | |   |         |   |     |    next_member -> FALSE
 *   | |     | |   |         |   |     not read: skipped by the next call
 *   | |     | |   |         |   next_member -> "b"
 *   | |     | |   |         next_element -> FALSE
 *   | |     | |   next_element, string
 *   | |     | next_element, int64
 *   | |     begin_array
 *   | next_member -> "a"
 *   begin_object
 *
 * The reader keeps one frame per open object or array (at most SXS_JSON_MAX_DEPTH): what it is,
 * how many members or elements it has reached, whether the current one's value is still unread
 * (then the next call skips it), and where the current member's name is, for error paths. Line and
 * column are counted only when an error happens, by rescanning the text up to it.
 */
#include "sxs_json_read.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* Bytes that may stand for themselves in a string and need no further look: printable ASCII
 * except '"' and '\\'. */
static const guint8 plain_byte[256] = {
    [0x20 ... 0x21] = 1,
    [0x23 ... 0x5b] = 1,
    [0x5d ... 0x7f] = 1,
};

static gboolean is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static gboolean is_digit(char c) {
  return c >= '0' && c <= '9';
}

void sxs__json_reader_init(SxsJsonReader *r, const char *text, gsize len) {
  memset(r, 0, offsetof(SxsJsonReader, stack));
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
    text += 3;
    len -= 3;
  }
  r->text = r->pos = r->value_at = text;
  r->end = text + len;
}

void sxs__json_reader_fini(SxsJsonReader *r) {
  g_clear_pointer(&r->what, g_free);
  g_clear_pointer(&r->message, g_free);
  g_clear_pointer(&r->key, g_free);
  g_clear_pointer(&r->scratch, g_free);
  r->key_size = r->scratch_size = 0;
}

/* Counts the line and the column (in characters: UTF-8 continuation bytes do not count) of at. */
static void position_of(const char *text, const char *at, int *ret_line, int *ret_column) {
  int line = 1;
  const char *line_start = text;
  for (const char *p = text; (p = memchr(p, '\n', (size_t)(at - p))) != NULL; p++) {
    line++;
    line_start = p + 1;
  }
  int column = 1;
  for (const char *p = line_start; p < at; p++)
    column += ((guchar)*p & 0xc0) != 0x80;
  *ret_line = line;
  *ret_column = column;
}

G_GNUC_PRINTF(4, 0)
static void fail_va(SxsJsonReader *r, SxsJsonReadError error, const char *at, const char *format, va_list args) {
  if (r->error)
    return;
  r->error = error;
  r->what = g_strdup_vprintf(format, args);
  position_of(r->text, at, &r->line, &r->column);
  r->message = g_strdup_printf("%s%s at line %d, column %d", r->what, error == SXS_JSON_READ_EOF ? " (truncated?)" : "",
                               r->line, r->column);
}

G_GNUC_PRINTF(4, 5)
static gboolean fail_at(SxsJsonReader *r, SxsJsonReadError error, const char *at, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fail_va(r, error, at, format, args);
  va_end(args);
  return FALSE;
}

static gboolean fail_eof(SxsJsonReader *r) {
  return fail_at(r, SXS_JSON_READ_EOF, r->end, "unexpected end of file");
}

void sxs__json_reader_fail(SxsJsonReader *r, SxsJsonReadError error, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fail_va(r, error, r->value_at, format, args);
  va_end(args);
}

gsize sxs__json_reader_value_offset(const SxsJsonReader *r) {
  return (gsize)(r->value_at - r->text);
}

void sxs__json_reader_fail_at(SxsJsonReader *r, gsize offset, SxsJsonReadError error, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fail_va(r, error, r->text + MIN(offset, (gsize)(r->end - r->text)), format, args);
  va_end(args);
}

SxsJsonReadError sxs__json_reader_error(const SxsJsonReader *r, const char **ret_what, int *ret_line, int *ret_column) {
  if (ret_what)
    *ret_what = r->what;
  if (ret_line)
    *ret_line = r->line;
  if (ret_column)
    *ret_column = r->column;
  return r->error;
}

const char *sxs__json_reader_message(const SxsJsonReader *r) {
  return r->message;
}

char *sxs__json_reader_path(const SxsJsonReader *r) {
  GString *path = g_string_new(NULL);
  for (guint i = 0; i < r->depth; i++) {
    const SxsJsonReaderFrame *f = &r->stack[i];
    if (f->count == 0)
      break;
    if (f->kind == SXS_JSON_ARRAY) {
      g_string_append_printf(path, "[%u]", f->count - 1);
    } else {
      if (path->len)
        g_string_append_c(path, '.');
      g_string_append_len(path, r->text + f->key_at, (gssize)f->key_len);
    }
  }
  return g_string_free(path, FALSE);
}

static void skip_space(SxsJsonReader *r) {
  const char *p = r->pos, *end = r->end;
  for (;;) {
    /* Pretty-printed text indents with runs of spaces: eight at a time. */
    guint64 word;
    while (end - p >= 8 && (memcpy(&word, p, 8), word == G_GUINT64_CONSTANT(0x2020202020202020)))
      p += 8;
    if (p == end || !is_space(*p))
      break;
    p++;
  }
  r->pos = p;
}

/* Grows a reused buffer, keeping its contents, to hold at least size bytes. */
static char *buffer_reserve(char **buffer, gsize *buffer_size, gsize size) {
  if (size > *buffer_size) {
    gsize grown = MAX(size, MAX(*buffer_size * 2, 256));
    *buffer = g_realloc(*buffer, grown);
    *buffer_size = grown;
  }
  return *buffer;
}

/* Starts reading a value where one is due: the current member's or element's, or the top-level
 * one. Returns its first character, or -1 after an error (the end of the text included). */
static int value_begin(SxsJsonReader *r) {
  if (r->error)
    return -1;
  if (r->depth > 0) {
    SxsJsonReaderFrame *f = &r->stack[r->depth - 1];
    if (!f->pending)
      return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "no value is due here (the reader was misused)"), -1;
    f->pending = FALSE;
  } else if (r->started) {
    return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "more than one top-level value"), -1;
  } else {
    r->started = TRUE;
  }
  skip_space(r);
  r->value_at = r->pos;
  if (r->pos == r->end)
    return fail_eof(r), -1;
  return (guchar)*r->pos;
}

/* Undoes value_begin, for the type-error path that first checks the value's syntax. */
static void value_unbegin(SxsJsonReader *r) {
  r->pos = r->value_at;
  if (r->depth > 0)
    r->stack[r->depth - 1].pending = TRUE;
  else
    r->started = FALSE;
}

static SxsJsonType type_of(int c) {
  switch (c) {
  case '{': return SXS_JSON_OBJECT;
  case '[': return SXS_JSON_ARRAY;
  case '"': return SXS_JSON_STRING;
  case 't':
  case 'f': return SXS_JSON_BOOL;
  case 'n': return SXS_JSON_NULL;
  default: return c == '-' || is_digit((char)c) ? SXS_JSON_NUMBER : SXS_JSON_INVALID;
  }
}

static const char *type_name(SxsJsonType t) {
  switch (t) {
  case SXS_JSON_NULL: return "null";
  case SXS_JSON_BOOL: return "a boolean";
  case SXS_JSON_NUMBER: return "a number";
  case SXS_JSON_STRING: return "a string";
  case SXS_JSON_ARRAY: return "an array";
  case SXS_JSON_OBJECT: return "an object";
  case SXS_JSON_INVALID: break;
  }
  return "no value";
}

static gboolean fail_no_value(SxsJsonReader *r) {
  const char *at = r->pos;
  if (at < r->end && (guchar)*at >= 0x20 && (guchar)*at < 0x7f)
    return fail_at(r, SXS_JSON_READ_SYNTAX, at, "expected a value, found '%c'", *at);
  return fail_at(r, SXS_JSON_READ_SYNTAX, at, "expected a value");
}

/* The value that came is not what the caller asked for. A broken value is reported as such
 * (a truncated text stays truncated), a well-formed one as a type error. */
static gboolean fail_type(SxsJsonReader *r, const char *expected) {
  SxsJsonType found = type_of((guchar)*r->value_at);
  if (found == SXS_JSON_INVALID)
    return fail_no_value(r);
  const char *at = r->value_at;
  value_unbegin(r);
  if (!sxs__json_reader_skip(r))
    return FALSE;
  r->value_at = at;
  return fail_at(r, SXS_JSON_READ_TYPE, at, "expected %s, found %s", expected, type_name(found));
}

SxsJsonType sxs__json_reader_peek(SxsJsonReader *r) {
  if (r->error)
    return SXS_JSON_INVALID;
  skip_space(r);
  if (r->pos == r->end)
    return fail_eof(r), SXS_JSON_INVALID;
  SxsJsonType t = type_of((guchar)*r->pos);
  if (t == SXS_JSON_INVALID)
    fail_no_value(r);
  return t;
}

/* Reads one of true, false, null, whose first character is at r->pos. */
static gboolean scan_literal(SxsJsonReader *r, const char *word) {
  gsize n = strlen(word);
  for (gsize i = 0; i < n; i++) {
    if (r->pos + i == r->end)
      return fail_eof(r);
    if (r->pos[i] != word[i])
      return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "invalid literal (expected true, false or null)");
  }
  r->pos += n;
  return TRUE;
}

/* The length of the valid UTF-8 sequence at p (a lead byte of 0x80 or more): 0 when invalid, -1
 * when the text ends inside a sequence valid so far. Overlong forms, surrogates and code points
 * beyond U+10FFFF are invalid. */
static int utf8_sequence(const guchar *p, const guchar *end) {
  guchar c = p[0], lo = 0x80, hi = 0xbf;
  int n;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0)
      lo = 0xa0;
    else if (c == 0xed)
      hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0)
      lo = 0x90;
    else if (c == 0xf4)
      hi = 0x8f;
  } else {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if (p + i >= end)
      return -1;
    if (p[i] < lo || p[i] > hi)
      return 0;
    lo = 0x80;
    hi = 0xbf;
  }
  return n;
}

/* The four hex digits at p: the code unit, -1 when one is not a hex digit, -2 when the text ends
 * before the fourth. */
static int hex4(const guchar *p, const guchar *end) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    if (p + i >= end)
      return -2;
    int d = g_ascii_xdigit_value((gchar)p[i]);
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

static gsize utf8_encode(gunichar c, char *out) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xc0 | c >> 6);
    out[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (char)(0xe0 | c >> 12);
    out[1] = (char)(0x80 | (c >> 6 & 0x3f));
    out[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | c >> 18);
  out[1] = (char)(0x80 | (c >> 12 & 0x3f));
  out[2] = (char)(0x80 | (c >> 6 & 0x3f));
  out[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* Decodes the escape at p (a backslash) into out (at least 4 bytes). Returns the bytes written,
 * and in *ret_next where the text goes on; -1 after an error. */
static int decode_escape(SxsJsonReader *r, const guchar *p, char *out, const guchar **ret_next) {
  const guchar *end = (const guchar *)r->end;
  if (p + 1 >= end)
    return fail_eof(r), -1;
  static const char simple_from[] = "\"\\/bfnrt", simple_to[] = "\"\\/\b\f\n\r\t";
  const char *simple = p[1] ? strchr(simple_from, p[1]) : NULL;
  if (simple) {
    out[0] = simple_to[simple - simple_from];
    *ret_next = p + 2;
    return 1;
  }
  if (p[1] != 'u') {
    if (p[1] >= 0x20 && p[1] < 0x7f)
      fail_at(r, SXS_JSON_READ_SYNTAX, (const char *)p, "invalid escape '\\%c' in a string", p[1]);
    else
      fail_at(r, SXS_JSON_READ_SYNTAX, (const char *)p, "invalid escape in a string");
    return -1;
  }
  int unit = hex4(p + 2, end);
  if (unit == -2)
    return fail_eof(r), -1;
  if (unit < 0)
    return fail_at(r, SXS_JSON_READ_SYNTAX, (const char *)p, "invalid \\u escape (expected four hex digits)"), -1;
  p += 6;
  gunichar c = (gunichar)unit;
  if (c >= 0xd800 && c <= 0xdbff) {
    /* A high surrogate is one character with the low one that must follow; alone it has no
     * UTF-8 form. */
    int low = p + 1 < end && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2, end) : -1;
    if (low >= 0xdc00 && low <= 0xdfff) {
      c = 0x10000 + ((c - 0xd800) << 10) + ((gunichar)low - 0xdc00);
      p += 6;
    } else {
      c = 0xfffd;
    }
  } else if (c >= 0xdc00 && c <= 0xdfff) {
    c = 0xfffd;
  }
  *ret_next = p;
  return (int)utf8_encode(c, out);
}

/* Reads the string whose opening quote is at r->pos. *ret_value points into the text when the
 * string has no escape, else into r->scratch holding it decoded. */
static gboolean scan_string(SxsJsonReader *r, const char **ret_value, gsize *ret_len) {
  const guchar *start = (const guchar *)r->pos + 1, *p = start, *end = (const guchar *)r->end;
  const guchar *run = start; /* decoding: the start of the bytes not copied yet */
  gboolean decoding = FALSE;
  gsize out_len = 0;
  for (;;) {
    while (p < end && plain_byte[*p])
      p++;
    if (p == end)
      return fail_eof(r);
    guchar c = *p;
    if (c == '"') {
      if (!decoding) {
        *ret_value = (const char *)start;
        *ret_len = (gsize)(p - start);
      } else {
        buffer_reserve(&r->scratch, &r->scratch_size, out_len + (gsize)(p - run) + 1);
        memcpy(r->scratch + out_len, run, (gsize)(p - run));
        out_len += (gsize)(p - run);
        r->scratch[out_len] = '\0';
        *ret_value = r->scratch;
        *ret_len = out_len;
      }
      r->pos = (const char *)p + 1;
      return TRUE;
    }
    if (c >= 0x80) {
      int n = utf8_sequence(p, end);
      if (n < 0)
        return fail_eof(r);
      if (n == 0)
        return fail_at(r, SXS_JSON_READ_SYNTAX, (const char *)p, "invalid UTF-8 in a string (byte 0x%02x)", c);
      p += n;
      continue;
    }
    if (c == '\\') {
      decoding = TRUE;
      buffer_reserve(&r->scratch, &r->scratch_size, out_len + (gsize)(p - run) + 4);
      memcpy(r->scratch + out_len, run, (gsize)(p - run));
      out_len += (gsize)(p - run);
      int n = decode_escape(r, p, r->scratch + out_len, &p);
      if (n < 0)
        return FALSE;
      out_len += (gsize)n;
      run = p;
      continue;
    }
    return fail_at(r, SXS_JSON_READ_SYNTAX, (const char *)p,
                   "control character U+%04X in a string (it must be escaped)", c);
  }
}

/* Checks the number at r->pos and moves past it. *ret_integer: it has no fraction and no
 * exponent. */
static gboolean scan_number(SxsJsonReader *r, gboolean *ret_integer) {
  const char *p = r->pos, *end = r->end;
  gboolean integer = TRUE;
  if (*p == '-')
    p++;
  if (p == end)
    return fail_eof(r);
  if (*p == '0') {
    p++;
    if (p < end && is_digit(*p))
      return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "invalid number (a leading zero)");
  } else if (is_digit(*p)) {
    while (p < end && is_digit(*p))
      p++;
  } else {
    return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "invalid number");
  }
  if (p < end && *p == '.') {
    integer = FALSE;
    p++;
    if (p == end)
      return fail_eof(r);
    if (!is_digit(*p))
      return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "invalid number (no digit after '.')");
    while (p < end && is_digit(*p))
      p++;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    integer = FALSE;
    p++;
    if (p < end && (*p == '+' || *p == '-'))
      p++;
    if (p == end)
      return fail_eof(r);
    if (!is_digit(*p))
      return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "invalid number (no digit in the exponent)");
    while (p < end && is_digit(*p))
      p++;
  }
  r->pos = p;
  *ret_integer = integer;
  return TRUE;
}

/* An integer out of [min, max]: the error names the range. */
static gboolean fail_range(SxsJsonReader *r, guint64 min, guint64 max) {
  return fail_at(r, SXS_JSON_READ_VALUE, r->value_at,
                 "integer out of range (expected %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ")", min, max);
}

/* Reads an integer: its sign and magnitude. FALSE (error set) for other values and magnitudes
 * beyond 64 bits, which the error says are out of range (the text of range, or [min, max] when
 * range is NULL: formatted only then, reading a number costs no formatting). */
static gboolean read_integer(SxsJsonReader *r, gboolean *ret_negative, guint64 *ret_magnitude, const char *range,
                             guint64 min, guint64 max) {
  int c = value_begin(r);
  if (c < 0)
    return FALSE;
  if (type_of(c) != SXS_JSON_NUMBER)
    return fail_type(r, "an integer");
  gboolean integer;
  if (!scan_number(r, &integer))
    return FALSE;
  if (!integer)
    return fail_at(r, SXS_JSON_READ_TYPE, r->value_at,
                   "expected an integer, found a number with a fraction or exponent");
  const char *p = r->value_at;
  gboolean negative = *p == '-';
  guint64 v = 0;
  for (p += negative; p < r->pos; p++) {
    guint d = (guint)(*p - '0');
    if (v > (G_MAXUINT64 - d) / 10)
      return range ? fail_at(r, SXS_JSON_READ_VALUE, r->value_at, "integer out of range (expected %s)", range)
                   : fail_range(r, min, max);
    v = v * 10 + d;
  }
  *ret_negative = negative;
  *ret_magnitude = v;
  return TRUE;
}

#define INT64_RANGE "-9223372036854775808 to 9223372036854775807"
#define UINT64_RANGE "0 to 18446744073709551615"

gboolean sxs__json_reader_int64(SxsJsonReader *r, gint64 *ret_value) {
  gboolean negative;
  guint64 v;
  if (!read_integer(r, &negative, &v, INT64_RANGE, 0, 0))
    return FALSE;
  if (v > (guint64)G_MAXINT64 + negative)
    return fail_at(r, SXS_JSON_READ_VALUE, r->value_at, "integer out of range (expected " INT64_RANGE ")");
  *ret_value = negative ? (gint64)(0 - v) : (gint64)v;
  return TRUE;
}

gboolean sxs__json_reader_uint64(SxsJsonReader *r, guint64 *ret_value) {
  gboolean negative;
  guint64 v;
  if (!read_integer(r, &negative, &v, UINT64_RANGE, 0, 0))
    return FALSE;
  if (negative && v != 0)
    return fail_at(r, SXS_JSON_READ_VALUE, r->value_at, "integer out of range (expected " UINT64_RANGE ")");
  *ret_value = v;
  return TRUE;
}

gboolean sxs__json_reader_uint64_range(SxsJsonReader *r, guint64 min, guint64 max, guint64 *ret_value) {
  gboolean negative;
  guint64 v;
  if (!read_integer(r, &negative, &v, NULL, min, max))
    return FALSE;
  if ((negative && v != 0) || v < min || v > max)
    return fail_range(r, min, max);
  *ret_value = v;
  return TRUE;
}

gboolean sxs__json_reader_double(SxsJsonReader *r, double *ret_value) {
  int c = value_begin(r);
  if (c < 0)
    return FALSE;
  if (type_of(c) != SXS_JSON_NUMBER)
    return fail_type(r, "a number");
  gboolean integer;
  if (!scan_number(r, &integer))
    return FALSE;
  /* g_ascii_strtod: the text's '.' whatever the locale; it needs a NUL-terminated copy. */
  gsize len = (gsize)(r->pos - r->value_at);
  char *copy = buffer_reserve(&r->scratch, &r->scratch_size, len + 1);
  memcpy(copy, r->value_at, len);
  copy[len] = '\0';
  double v = g_ascii_strtod(copy, NULL);
  if (!isfinite(v))
    return fail_at(r, SXS_JSON_READ_VALUE, r->value_at, "number out of the range of a double");
  *ret_value = v;
  return TRUE;
}

gboolean sxs__json_reader_bool(SxsJsonReader *r, gboolean *ret_value) {
  int c = value_begin(r);
  if (c < 0)
    return FALSE;
  if (c != 't' && c != 'f')
    return fail_type(r, "a boolean");
  if (!scan_literal(r, c == 't' ? "true" : "false"))
    return FALSE;
  *ret_value = c == 't';
  return TRUE;
}

gboolean sxs__json_reader_string_view(SxsJsonReader *r, const char **ret_value, gsize *ret_len) {
  int c = value_begin(r);
  if (c < 0)
    return FALSE;
  const char *value = NULL;
  gsize len = 0;
  if (c == 'n') {
    if (!scan_literal(r, "null"))
      return FALSE;
  } else if (c != '"') {
    return fail_type(r, "a string");
  } else if (!scan_string(r, &value, &len)) {
    return FALSE;
  }
  *ret_value = value;
  if (ret_len)
    *ret_len = len;
  return TRUE;
}

gboolean sxs__json_reader_string(SxsJsonReader *r, char **ret_value, gsize *ret_len) {
  const char *value;
  gsize len;
  if (!sxs__json_reader_string_view(r, &value, &len))
    return FALSE;
  char *copy = NULL;
  if (value) {
    copy = g_malloc(len + 1);
    memcpy(copy, value, len);
    copy[len] = '\0';
  }
  *ret_value = copy;
  if (ret_len)
    *ret_len = len;
  return TRUE;
}

static gboolean begin_container(SxsJsonReader *r, SxsJsonType kind) {
  int c = value_begin(r);
  if (c < 0)
    return FALSE;
  if (type_of(c) != kind)
    return fail_type(r, type_name(kind));
  if (r->depth == SXS_JSON_MAX_DEPTH)
    return fail_at(r, SXS_JSON_READ_DEPTH, r->pos, "objects and arrays nested deeper than %d levels",
                   SXS_JSON_MAX_DEPTH);
  r->pos++;
  r->stack[r->depth++] = (SxsJsonReaderFrame){.kind = kind};
  return TRUE;
}

gboolean sxs__json_reader_begin_object(SxsJsonReader *r) {
  return begin_container(r, SXS_JSON_OBJECT);
}

gboolean sxs__json_reader_begin_array(SxsJsonReader *r) {
  return begin_container(r, SXS_JSON_ARRAY);
}

/* The innermost container, when it is of this kind and the reader can go on in it: its pending
 * value skipped, white space skipped, not at the end of the text. NULL after an error. */
static SxsJsonReaderFrame *container_next(SxsJsonReader *r, SxsJsonType kind) {
  if (r->error)
    return NULL;
  if (r->depth == 0 || r->stack[r->depth - 1].kind != kind) {
    fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "not inside %s (the reader was misused)", type_name(kind));
    return NULL;
  }
  SxsJsonReaderFrame *f = &r->stack[r->depth - 1];
  if (f->pending && !sxs__json_reader_skip(r))
    return NULL;
  skip_space(r);
  if (r->pos == r->end) {
    fail_eof(r);
    return NULL;
  }
  return f;
}

gboolean sxs__json_reader_next_member(SxsJsonReader *r, const char **ret_key) {
  SxsJsonReaderFrame *f = container_next(r, SXS_JSON_OBJECT);
  if (!f)
    return FALSE;
  if (*r->pos == '}') {
    r->pos++;
    r->depth--;
    return FALSE;
  }
  if (f->count > 0) {
    if (*r->pos != ',')
      return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "expected ',' or '}'");
    r->pos++;
    skip_space(r);
    if (r->pos == r->end)
      return fail_eof(r);
  }
  if (*r->pos != '"')
    return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos,
                   f->count > 0 ? "expected a member name (a string)" : "expected a member name (a string) or '}'");
  const char *name;
  gsize len;
  f->key_at = (gsize)(r->pos + 1 - r->text);
  if (!scan_string(r, &name, &len))
    return FALSE;
  f->key_len = (gsize)(r->pos - 1 - r->text) - f->key_at;
  skip_space(r);
  if (r->pos == r->end)
    return fail_eof(r);
  if (*r->pos != ':')
    return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "expected ':' after the member name");
  r->pos++;
  skip_space(r);
  char *key = buffer_reserve(&r->key, &r->key_size, len + 1);
  memcpy(key, name, len);
  key[len] = '\0';
  f->count++;
  f->pending = TRUE;
  *ret_key = key;
  return TRUE;
}

gboolean sxs__json_reader_next_element(SxsJsonReader *r) {
  SxsJsonReaderFrame *f = container_next(r, SXS_JSON_ARRAY);
  if (!f)
    return FALSE;
  if (*r->pos == ']') {
    r->pos++;
    r->depth--;
    return FALSE;
  }
  if (f->count > 0) {
    if (*r->pos != ',')
      return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "expected ',' or ']'");
    r->pos++;
  }
  f->count++;
  f->pending = TRUE;
  return TRUE;
}

gboolean sxs__json_reader_skip(SxsJsonReader *r) {
  const char *value;
  gsize len;
  gboolean b;
  switch (sxs__json_reader_peek(r)) {
  case SXS_JSON_OBJECT: {
    if (!sxs__json_reader_begin_object(r))
      return FALSE;
    const char *key;
    while (sxs__json_reader_next_member(r, &key))
      ;
    return r->error == SXS_JSON_READ_OK;
  }
  case SXS_JSON_ARRAY:
    if (!sxs__json_reader_begin_array(r))
      return FALSE;
    while (sxs__json_reader_next_element(r))
      ;
    return r->error == SXS_JSON_READ_OK;
  case SXS_JSON_STRING:
  case SXS_JSON_NULL: return sxs__json_reader_string_view(r, &value, &len);
  case SXS_JSON_BOOL: return sxs__json_reader_bool(r, &b);
  case SXS_JSON_NUMBER: {
    if (value_begin(r) < 0)
      return FALSE;
    gboolean integer;
    return scan_number(r, &integer);
  }
  case SXS_JSON_INVALID: break;
  }
  return FALSE;
}

gboolean sxs__json_reader_end(SxsJsonReader *r) {
  if (r->error)
    return FALSE;
  if (!r->started)
    return sxs__json_reader_skip(r) && sxs__json_reader_end(r);
  if (r->depth > 0)
    return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "the top-level value is not finished (the reader was misused)");
  skip_space(r);
  if (r->pos != r->end)
    return fail_at(r, SXS_JSON_READ_SYNTAX, r->pos, "unexpected text after the top-level value");
  return TRUE;
}
