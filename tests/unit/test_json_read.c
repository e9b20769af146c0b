/* Unit tests for the JSON pull reader (manager/profile/sxs_json_read.c). */
#include <string.h>

#include <glib.h>

#include "sxs_json.h"
#include "sxs_json_read.h"

/* Reads any value and writes it again with the compact writer: what the reader understood. */
static void copy_value(SxsJsonReader *r, SxsJsonWriter *w) {
  switch (sxs__json_reader_peek(r)) {
  case SXS_JSON_OBJECT: {
    const char *key;
    sxs__json_reader_begin_object(r);
    sxs__json_begin_object(w);
    while (sxs__json_reader_next_member(r, &key)) {
      sxs__json_key(w, key);
      copy_value(r, w);
    }
    sxs__json_end_object(w);
    break;
  }
  case SXS_JSON_ARRAY:
    sxs__json_reader_begin_array(r);
    sxs__json_begin_array(w);
    while (sxs__json_reader_next_element(r))
      copy_value(r, w);
    sxs__json_end_array(w);
    break;
  case SXS_JSON_STRING:
  case SXS_JSON_NULL: {
    const char *s;
    gsize len;
    if (sxs__json_reader_string_view(r, &s, &len))
      sxs__json_string_len(w, s, s ? (gssize)len : -1);
    break;
  }
  case SXS_JSON_BOOL: {
    gboolean b;
    if (sxs__json_reader_bool(r, &b))
      sxs__json_bool(w, b);
    break;
  }
  case SXS_JSON_NUMBER: {
    double d;
    if (sxs__json_reader_double(r, &d))
      sxs__json_double(w, d);
    break;
  }
  case SXS_JSON_INVALID: break;
  }
}

/* The compact copy of text, or NULL with *ret_why set when the reader fails. */
static char *copy_text(const char *text, gssize len, char **ret_why) {
  g_auto(SxsJsonReader) r;
  sxs__json_reader_init(&r, text, len < 0 ? strlen(text) : (gsize)len);
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  copy_value(&r, w);
  if (!sxs__json_reader_end(&r)) {
    *ret_why = g_strdup(sxs__json_reader_message(&r));
    return NULL;
  }
  g_assert_true(sxs__json_writer_complete(w));
  *ret_why = NULL;
  return sxs__json_writer_steal(w, NULL);
}

static void test_values(void) {
  static const char text[] =
      "{ \"i\": -9223372036854775808, \"u\": 18446744073709551615, \"d\": -1.5e3,\n"
      "  \"t\": true, \"f\": false, \"n\": null, \"s\": \"x\", \"z\": -0, \"e\": [], \"o\": {} }";
  g_auto(SxsJsonReader) r;
  sxs__json_reader_init(&r, text, strlen(text));
  const char *key;
  g_assert_true(sxs__json_reader_begin_object(&r));

  gint64 i = 0;
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_cmpstr(key, ==, "i");
  g_assert_cmpint(sxs__json_reader_peek(&r), ==, SXS_JSON_NUMBER);
  g_assert_true(sxs__json_reader_int64(&r, &i));
  g_assert_cmpint(i, ==, G_MININT64);

  guint64 u = 0;
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_uint64(&r, &u));
  g_assert_cmpuint(u, ==, G_MAXUINT64);

  double d = 0;
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_double(&r, &d));
  g_assert_cmpfloat(d, ==, -1500.0);

  gboolean b = FALSE;
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_bool(&r, &b));
  g_assert_true(b);
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_bool(&r, &b));
  g_assert_false(b);

  char *s = (char *)"unchanged";
  gsize len = 99;
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_cmpstr(key, ==, "n");
  g_assert_cmpint(sxs__json_reader_peek(&r), ==, SXS_JSON_NULL);
  g_assert_true(sxs__json_reader_string(&r, &s, &len));
  g_assert_null(s);
  g_assert_cmpuint(len, ==, 0);

  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_string(&r, &s, &len));
  g_assert_cmpstr(s, ==, "x");
  g_assert_cmpuint(len, ==, 1);
  g_free(s);

  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_uint64(&r, &u));
  g_assert_cmpuint(u, ==, 0);

  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_begin_array(&r));
  g_assert_false(sxs__json_reader_next_element(&r));
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_begin_object(&r));
  g_assert_false(sxs__json_reader_next_member(&r, &key));

  g_assert_false(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_end(&r));
  g_assert_cmpint(sxs__json_reader_error(&r, NULL, NULL, NULL), ==, SXS_JSON_READ_OK);
  g_assert_null(sxs__json_reader_message(&r));
}

/* Decoded strings: every escape, surrogate pairs, lone surrogates, raw UTF-8, \u0000. */
static void test_escapes(void) {
  static const struct {
    const char *json;
    const char *decoded;
    gsize len;
  } cases[] = {
      {"\"caf\\u00e9\"", "caf\xc3\xa9", 5},
      {"\"\\u00E9\\u20ac\"", "\xc3\xa9\xe2\x82\xac", 5},
      {"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4},
      {"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8},
      {"\"a\\ud800b\"",
       "a\xef\xbf\xbd"
       "b",
       5},
      {"\"\\udc00\"", "\xef\xbf\xbd", 3},
      {"\"\\ud800\\u0041\"",
       "\xef\xbf\xbd"
       "A",
       4},
      {"\"x\\u0000y\"", "x\0y", 3},
      {"\"\xc3\xa9\xf0\x9f\x98\x80 raw\"", "\xc3\xa9\xf0\x9f\x98\x80 raw", 10},
      {"\"\"", "", 0},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_auto(SxsJsonReader) r;
    sxs__json_reader_init(&r, cases[i].json, strlen(cases[i].json));
    char *s = NULL;
    gsize len = 0;
    g_assert_true(sxs__json_reader_string(&r, &s, &len));
    g_assert_true(sxs__json_reader_end(&r));
    g_assert_cmpmem(s, len, cases[i].decoded, cases[i].len);
    g_assert_cmpint(s[len], ==, '\0');
    g_free(s);
  }

  /* Member names are decoded too. */
  static const char object[] = "{\"k\\u00e9y\\n\": 1, \"\\ud83d\\ude00\": 2}";
  g_auto(SxsJsonReader) r;
  sxs__json_reader_init(&r, object, strlen(object));
  const char *key;
  g_assert_true(sxs__json_reader_begin_object(&r));
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_cmpstr(key, ==, "k\xc3\xa9y\n");
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_cmpstr(key, ==, "\xf0\x9f\x98\x80");
  g_assert_false(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_end(&r));
}

/* Values the caller does not read are skipped, whatever their nesting. */
static void test_skip(void) {
  static const char text[] =
      "{\"a\": {\"x\": [1, {\"y\": [[], {}]}, \"s\\\"]\"], \"z\": null}, \"b\": [true, false, 1e-3],\n"
      " \"c\": \"}\", \"want\": 42}";
  g_auto(SxsJsonReader) r;
  sxs__json_reader_init(&r, text, strlen(text));
  const char *key;
  gint64 want = 0;
  int members = 0;
  g_assert_true(sxs__json_reader_begin_object(&r));
  while (sxs__json_reader_next_member(&r, &key)) {
    members++;
    if (strcmp(key, "want") == 0)
      g_assert_true(sxs__json_reader_int64(&r, &want));
  }
  g_assert_true(sxs__json_reader_end(&r));
  g_assert_cmpint(members, ==, 4);
  g_assert_cmpint(want, ==, 42);

  /* Anything read back whole through the writer. */
  g_autofree char *message = NULL;
  g_autofree char *copy = copy_text("[1, -2.5, \"a\\u00e9\", {\"k\": [null, true]}, {}]", -1, &message);
  g_assert_null(message);
  g_assert_cmpstr(copy, ==, "[1.0,-2.5,\"a\xc3\xa9\",{\"k\":[null,true]},{}]");
}

/* Every kind of malformed text, with the reader's exact message. */
static void test_syntax_errors(void) {
  static const struct {
    const char *json;
    SxsJsonReadError error;
    const char *message;
  } cases[] = {
      {"{\"a\": 1 \"b\": 2}", SXS_JSON_READ_SYNTAX, "expected ',' or '}' at line 1, column 9"},
      {"{\n  \"a\": 1\n  \"b\": 2\n}", SXS_JSON_READ_SYNTAX, "expected ',' or '}' at line 3, column 3"},
      {"[1 2]", SXS_JSON_READ_SYNTAX, "expected ',' or ']' at line 1, column 4"},
      {"{\"a\" 1}", SXS_JSON_READ_SYNTAX, "expected ':' after the member name at line 1, column 6"},
      {"{1: 2}", SXS_JSON_READ_SYNTAX, "expected a member name (a string) or '}' at line 1, column 2"},
      {"{\"a\": 1,}", SXS_JSON_READ_SYNTAX, "expected a member name (a string) at line 1, column 9"},
      {"[1,]", SXS_JSON_READ_SYNTAX, "expected a value, found ']' at line 1, column 4"},
      {"hello", SXS_JSON_READ_SYNTAX, "expected a value, found 'h' at line 1, column 1"},
      {"{\"a\": 1} x", SXS_JSON_READ_SYNTAX, "unexpected text after the top-level value at line 1, column 10"},
      {"[] []", SXS_JSON_READ_SYNTAX, "unexpected text after the top-level value at line 1, column 4"},
      {"[\"\xc3\xa9\", x]", SXS_JSON_READ_SYNTAX, "expected a value, found 'x' at line 1, column 7"},
      {"\"a\x01\"", SXS_JSON_READ_SYNTAX,
       "control character U+0001 in a string (it must be escaped) at line 1, column 3"},
      {"\"a\nb\"", SXS_JSON_READ_SYNTAX,
       "control character U+000A in a string (it must be escaped) at line 1, column 3"},
      {"\"\xff\"", SXS_JSON_READ_SYNTAX, "invalid UTF-8 in a string (byte 0xff) at line 1, column 2"},
      {"\"\xc3\x28\"", SXS_JSON_READ_SYNTAX, "invalid UTF-8 in a string (byte 0xc3) at line 1, column 2"},
      {"\"\xc0\xaf\"", SXS_JSON_READ_SYNTAX, "invalid UTF-8 in a string (byte 0xc0) at line 1, column 2"},
      {"\"\xe0\x80\xaf\"", SXS_JSON_READ_SYNTAX, "invalid UTF-8 in a string (byte 0xe0) at line 1, column 2"},
      {"\"\xed\xa0\x80\"", SXS_JSON_READ_SYNTAX, "invalid UTF-8 in a string (byte 0xed) at line 1, column 2"},
      {"\"\xf4\x90\x80\x80\"", SXS_JSON_READ_SYNTAX, "invalid UTF-8 in a string (byte 0xf4) at line 1, column 2"},
      {"\"\\q\"", SXS_JSON_READ_SYNTAX, "invalid escape '\\q' in a string at line 1, column 2"},
      {"\"\\u12g4\"", SXS_JSON_READ_SYNTAX, "invalid \\u escape (expected four hex digits) at line 1, column 2"},
      {"01", SXS_JSON_READ_SYNTAX, "invalid number (a leading zero) at line 1, column 1"},
      {"1.e5", SXS_JSON_READ_SYNTAX, "invalid number (no digit after '.') at line 1, column 1"},
      {"1e+", SXS_JSON_READ_EOF, "unexpected end of file (truncated?) at line 1, column 4"},
      {"-x", SXS_JSON_READ_SYNTAX, "invalid number at line 1, column 1"},
      {"+1", SXS_JSON_READ_SYNTAX, "expected a value, found '+' at line 1, column 1"},
      {"trUe", SXS_JSON_READ_SYNTAX, "invalid literal (expected true, false or null) at line 1, column 1"},
      {"[tru", SXS_JSON_READ_EOF, "unexpected end of file (truncated?) at line 1, column 5"},
      {"{\"a\": [1,\n", SXS_JSON_READ_EOF, "unexpected end of file (truncated?) at line 2, column 1"},
      {"\"abc", SXS_JSON_READ_EOF, "unexpected end of file (truncated?) at line 1, column 5"},
      {"\"\\u00", SXS_JSON_READ_EOF, "unexpected end of file (truncated?) at line 1, column 6"},
      {"\"\xe2\x82", SXS_JSON_READ_EOF, "unexpected end of file (truncated?) at line 1, column 3"},
      {"", SXS_JSON_READ_EOF, "unexpected end of file (truncated?) at line 1, column 1"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_auto(SxsJsonReader) r;
    sxs__json_reader_init(&r, cases[i].json, strlen(cases[i].json));
    g_autofree char *message = NULL;
    g_autofree char *copy = copy_text(cases[i].json, -1, &message);
    g_assert_null(copy);
    g_assert_cmpstr(message, ==, cases[i].message);

    /* The same through skip, which checks as much. */
    gboolean ok = sxs__json_reader_skip(&r) && sxs__json_reader_end(&r);
    g_assert_false(ok);
    g_assert_cmpint(sxs__json_reader_error(&r, NULL, NULL, NULL), ==, cases[i].error);
    g_assert_cmpstr(sxs__json_reader_message(&r), ==, cases[i].message);
  }
}

/* Objects and arrays nest up to SXS_JSON_MAX_DEPTH levels. */
static void test_depth(void) {
  for (int depth = SXS_JSON_MAX_DEPTH; depth <= SXS_JSON_MAX_DEPTH + 1; depth++) {
    GString *text = g_string_new(NULL);
    for (int i = 0; i < depth - 1; i++)
      g_string_append(text, i % 2 ? "{\"k\":" : "[");
    g_string_append(text, (depth - 1) % 2 ? "{}" : "[]");
    for (int i = depth - 2; i >= 0; i--)
      g_string_append(text, i % 2 ? "}" : "]");
    g_auto(SxsJsonReader) r;
    sxs__json_reader_init(&r, text->str, text->len);
    gboolean ok = sxs__json_reader_skip(&r) && sxs__json_reader_end(&r);
    if (depth == SXS_JSON_MAX_DEPTH) {
      g_assert_true(ok);
    } else {
      const char *what;
      g_assert_false(ok);
      g_assert_cmpint(sxs__json_reader_error(&r, &what, NULL, NULL), ==, SXS_JSON_READ_DEPTH);
      g_assert_cmpstr(what, ==, "objects and arrays nested deeper than 64 levels");
    }
    g_string_free(text, TRUE);
  }
}

/* Well-formed values of the wrong type or out of range: a type or value error at the value, with
 * its path. */
static void test_type_errors(void) {
  static const char text[] = "{\"a\": [0, {\"b\": 7}], \"c\": 1}";
  g_auto(SxsJsonReader) r;
  sxs__json_reader_init(&r, text, strlen(text));
  const char *key;
  char *s = NULL;
  g_assert_true(sxs__json_reader_begin_object(&r));
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_true(sxs__json_reader_begin_array(&r));
  g_assert_true(sxs__json_reader_next_element(&r));
  g_assert_true(sxs__json_reader_next_element(&r));
  g_assert_true(sxs__json_reader_begin_object(&r));
  g_assert_true(sxs__json_reader_next_member(&r, &key));
  g_assert_false(sxs__json_reader_string(&r, &s, NULL));
  g_assert_null(s);

  const char *what;
  int line, column;
  g_assert_cmpint(sxs__json_reader_error(&r, &what, &line, &column), ==, SXS_JSON_READ_TYPE);
  g_assert_cmpstr(what, ==, "expected a string, found a number");
  g_assert_cmpint(line, ==, 1);
  g_assert_cmpint(column, ==, 17);
  g_autofree char *path = sxs__json_reader_path(&r);
  g_assert_cmpstr(path, ==, "a[1].b");
  /* Sticky: nothing goes on after an error. */
  g_assert_false(sxs__json_reader_next_member(&r, &key));
  g_assert_false(sxs__json_reader_end(&r));
  g_assert_cmpstr(sxs__json_reader_message(&r), ==, "expected a string, found a number at line 1, column 17");

  static const struct {
    const char *json;
    int kind; /* 0: int64, 1: uint64, 2: bool, 3: object, 4: double */
    SxsJsonReadError error;
    const char *what;
  } cases[] = {
      {"18446744073709551616", 1, SXS_JSON_READ_VALUE, "integer out of range (expected 0 to 18446744073709551615)"},
      {"-1", 1, SXS_JSON_READ_VALUE, "integer out of range (expected 0 to 18446744073709551615)"},
      {"9223372036854775808", 0, SXS_JSON_READ_VALUE,
       "integer out of range (expected -9223372036854775808 to 9223372036854775807)"},
      {"-9223372036854775809", 0, SXS_JSON_READ_VALUE,
       "integer out of range (expected -9223372036854775808 to 9223372036854775807)"},
      {"1.0", 0, SXS_JSON_READ_TYPE, "expected an integer, found a number with a fraction or exponent"},
      {"1e2", 1, SXS_JSON_READ_TYPE, "expected an integer, found a number with a fraction or exponent"},
      {"\"1\"", 1, SXS_JSON_READ_TYPE, "expected an integer, found a string"},
      {"null", 2, SXS_JSON_READ_TYPE, "expected a boolean, found null"},
      {"[1, 2]", 3, SXS_JSON_READ_TYPE, "expected an object, found an array"},
      {"1e999", 4, SXS_JSON_READ_VALUE, "number out of the range of a double"},
      /* A broken value is reported as broken, not as the wrong type. */
      {"[1, 2", 3, SXS_JSON_READ_EOF, "unexpected end of file"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_auto(SxsJsonReader) c;
    sxs__json_reader_init(&c, cases[i].json, strlen(cases[i].json));
    gint64 i64 = 5;
    guint64 u64 = 5;
    gboolean b = 5;
    double d = 5;
    gboolean ok = cases[i].kind == 0   ? sxs__json_reader_int64(&c, &i64)
                  : cases[i].kind == 1 ? sxs__json_reader_uint64(&c, &u64)
                  : cases[i].kind == 2 ? sxs__json_reader_bool(&c, &b)
                  : cases[i].kind == 3 ? sxs__json_reader_begin_object(&c)
                                       : sxs__json_reader_double(&c, &d);
    g_assert_false(ok);
    g_assert_cmpint(sxs__json_reader_error(&c, &what, NULL, NULL), ==, cases[i].error);
    g_assert_cmpstr(what, ==, cases[i].what);
    /* Out-parameters untouched on failure. */
    g_assert_cmpint(i64, ==, 5);
    g_assert_cmpuint(u64, ==, 5);
    g_assert_cmpint(b, ==, 5);
    g_assert_cmpfloat(d, ==, 5);
  }

  /* A caller's own complaint about a well-formed value. */
  g_auto(SxsJsonReader) v;
  static const char status[] = "{\"status\": \"sleeping\"}";
  sxs__json_reader_init(&v, status, strlen(status));
  const char *value;
  gsize len;
  g_assert_true(sxs__json_reader_begin_object(&v));
  g_assert_true(sxs__json_reader_next_member(&v, &key));
  g_assert_true(sxs__json_reader_string_view(&v, &value, &len));
  sxs__json_reader_fail(&v, SXS_JSON_READ_VALUE, "expected %s", "\"running\"");
  g_assert_cmpstr(sxs__json_reader_message(&v), ==, "expected \"running\" at line 1, column 12");
}

/* Every proper prefix of a document is an unexpected end of file, never anything else. */
static void test_truncated_everywhere(void) {
  static const char text[] = "{\"a\": [1, -2.5e+3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\xc3\xa9\"],\n"
                             " \"\xf0\x9f\x98\x80\": {\"b\": {}, \"c\": []}, \"d\": 0}";
  gsize len = strlen(text);
  for (gsize cut = 0; cut < len; cut++) {
    g_auto(SxsJsonReader) r;
    sxs__json_reader_init(&r, text, cut);
    gboolean ok = sxs__json_reader_skip(&r) && sxs__json_reader_end(&r);
    g_assert_false(ok);
    const char *what;
    g_assert_cmpint(sxs__json_reader_error(&r, &what, NULL, NULL), ==, SXS_JSON_READ_EOF);
    g_assert_cmpstr(what, ==, "unexpected end of file");
  }
  g_auto(SxsJsonReader) r;
  sxs__json_reader_init(&r, text, len);
  g_assert_true(sxs__json_reader_skip(&r) && sxs__json_reader_end(&r));
}

/* A byte order mark is ignored; white space around the value is allowed. */
static void test_bom_and_space(void) {
  static const char text[] = "\xef\xbb\xbf \r\n\t[1]\n \t";
  g_autofree char *message = NULL;
  g_autofree char *copy = copy_text(text, -1, &message);
  g_assert_null(message);
  g_assert_cmpstr(copy, ==, "[1.0]");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/json/read/values", test_values);
  g_test_add_func("/json/read/escapes", test_escapes);
  g_test_add_func("/json/read/skip", test_skip);
  g_test_add_func("/json/read/syntax-errors", test_syntax_errors);
  g_test_add_func("/json/read/depth", test_depth);
  g_test_add_func("/json/read/type-errors", test_type_errors);
  g_test_add_func("/json/read/truncated-everywhere", test_truncated_everywhere);
  g_test_add_func("/json/read/bom-and-space", test_bom_and_space);

  return g_test_run();
}
