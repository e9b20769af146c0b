/* Unit tests for the JSON writer and the atomic file replace (manager/profile/sxs_json.c). */
#include <errno.h>
#include <stdlib.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sxs_json.h"
#include "sxs_vec.h"
#include "sxs_scratch.h"

/* Parses text with json-glib, failing the test on a syntax error or invalid UTF-8. */
static JsonNode *parse_json(const char *text, gsize len) {
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;

  g_assert_true(g_utf8_validate(text, (gssize)len, NULL));
  json_parser_load_from_data(parser, text, (gssize)len, &error);
  g_assert_no_error(error);
  g_assert_nonnull(json_parser_get_root(parser));
  return json_node_copy(json_parser_get_root(parser));
}

/* The compact text of a one-element array holding the string s (len bytes, -1 for strlen). */
static char *encode_in_array(const char *s, gssize len) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_array(w);
  sxs__json_string_len(w, s, len);
  sxs__json_end_array(w);
  g_assert_true(sxs__json_writer_complete(w));
  return sxs__json_writer_steal(w, NULL);
}

/* Encodes s, checks the exact JSON string literal, and checks that json-glib reads back decoded. */
static void check_string(const char *s, gssize len, const char *literal, const char *decoded) {
  g_autofree char *text = encode_in_array(s, len);
  g_autofree char *expected = g_strdup_printf("[%s]", literal);
  g_assert_cmpstr(text, ==, expected);

  g_autoptr(JsonNode) root = parse_json(text, strlen(text));
  JsonArray *array = json_node_get_array(root);
  g_assert_cmpuint(json_array_get_length(array), ==, 1);
  if (decoded != NULL)
    g_assert_cmpstr(json_array_get_string_element(array, 0), ==, decoded);
}

static void test_nesting(void) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "a", 1);
  sxs__json_key(w, "b");
  sxs__json_begin_array(w);
  sxs__json_int(w, 2);
  sxs__json_begin_array(w);
  sxs__json_begin_object(w);
  sxs__json_member_bool(w, "c", TRUE);
  sxs__json_member_bool(w, "d", FALSE);
  sxs__json_end_object(w);
  sxs__json_end_array(w);
  sxs__json_null(w);
  sxs__json_end_array(w);
  sxs__json_key(w, "e");
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "f", "g");
  sxs__json_end_object(w);
  sxs__json_end_object(w);

  g_assert_true(sxs__json_writer_complete(w));
  gsize len = 0;
  const char *text = sxs__json_writer_get(w, &len);
  g_assert_cmpstr(text, ==, "{\"a\":1,\"b\":[2,[{\"c\":true,\"d\":false}],null],\"e\":{\"f\":\"g\"}}");
  g_assert_cmpuint(len, ==, strlen(text));

  g_autoptr(JsonNode) root = parse_json(text, len);
  JsonObject *o = json_node_get_object(root);
  g_assert_cmpint(json_object_get_int_member(o, "a"), ==, 1);
  JsonArray *b = json_object_get_array_member(o, "b");
  g_assert_cmpuint(json_array_get_length(b), ==, 3);
  JsonObject *inner = json_array_get_object_element(json_array_get_array_element(b, 1), 0);
  g_assert_true(json_object_get_boolean_member(inner, "c"));
  g_assert_false(json_object_get_boolean_member(inner, "d"));
  g_assert_true(json_array_get_null_element(b, 2));
  g_assert_cmpstr(json_object_get_string_member(json_object_get_object_member(o, "e"), "f"), ==, "g");
}

static void test_empty_containers(void) {
  static const struct {
    gboolean pretty;
    const char *expected;
  } cases[] = {
      {FALSE, "{\"o\":{},\"a\":[],\"n\":[[],{}]}"},
      {TRUE, "{\n  \"o\": {},\n  \"a\": [],\n  \"n\": [\n    [],\n    {}\n  ]\n}"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(cases[i].pretty);
    sxs__json_begin_object(w);
    sxs__json_key(w, "o");
    sxs__json_begin_object(w);
    sxs__json_end_object(w);
    sxs__json_key(w, "a");
    sxs__json_begin_array(w);
    sxs__json_end_array(w);
    sxs__json_key(w, "n");
    sxs__json_begin_array(w);
    sxs__json_begin_array(w);
    sxs__json_end_array(w);
    sxs__json_begin_object(w);
    sxs__json_end_object(w);
    sxs__json_end_array(w);
    sxs__json_end_object(w);
    g_assert_true(sxs__json_writer_complete(w));
    g_assert_cmpstr(sxs__json_writer_get(w, NULL), ==, cases[i].expected);
    g_autoptr(JsonNode) root = parse_json(cases[i].expected, strlen(cases[i].expected));
    g_assert_cmpuint(json_object_get_size(json_node_get_object(root)), ==, 3);
  }

  /* Empty top-level containers. */
  for (int pretty = 0; pretty <= 1; pretty++) {
    g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(pretty);
    sxs__json_begin_array(w);
    sxs__json_end_array(w);
    g_assert_true(sxs__json_writer_complete(w));
    g_assert_cmpstr(sxs__json_writer_get(w, NULL), ==, "[]");
  }
}

static void test_escape_table(void) {
  static const struct {
    const char *in, *literal;
  } cases[] = {
      {"", "\"\""},
      {"plain", "\"plain\""},
      {"\"", "\"\\\"\""},
      {"\\", "\"\\\\\""},
      {"/", "\"/\""},
      {"\b", "\"\\b\""},
      {"\f", "\"\\f\""},
      {"\n", "\"\\n\""},
      {"\r", "\"\\r\""},
      {"\t", "\"\\t\""},
      {"\x7f", "\"\\u007f\""},
      {"a\"b\\c\nd", "\"a\\\"b\\\\c\\nd\""},
      {"C:\\Program Files\\\"x\"", "\"C:\\\\Program Files\\\\\\\"x\\\"\""},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
    check_string(cases[i].in, -1, cases[i].literal, cases[i].in);

  /* Keys are escaped the same way. */
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "k\"\n", "v");
  sxs__json_end_object(w);
  g_assert_cmpstr(sxs__json_writer_get(w, NULL), ==, "{\"k\\\"\\n\":\"v\"}");
}

static void test_control_chars(void) {
  for (int c = 1; c < 0x20; c++) {
    char in[2] = {(char)c, '\0'};
    const char *short_form = NULL;
    switch (c) {
    case '\b': short_form = "\\b"; break;
    case '\f': short_form = "\\f"; break;
    case '\n': short_form = "\\n"; break;
    case '\r': short_form = "\\r"; break;
    case '\t': short_form = "\\t"; break;
    }
    g_autofree char *literal =
        short_form != NULL ? g_strdup_printf("\"%s\"", short_form) : g_strdup_printf("\"\\u%04x\"", c);
    check_string(in, -1, literal, in);
  }

  /* NUL only reaches the writer through an explicit length. */
  g_autofree char *text = encode_in_array("a\0b", 3);
  g_assert_cmpstr(text, ==, "[\"a\\u0000b\"]");
  g_autoptr(JsonNode) root = parse_json(text, strlen(text));
  g_assert_cmpuint(json_array_get_length(json_node_get_array(root)), ==, 1);
}

#define FFFD "\xEF\xBF\xBD"

static void test_utf8_invalid(void) {
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"\xff", FFFD},
      {"\xfe", FFFD},
      {"\xf5\x80", FFFD FFFD},
      {"a\x80"
       "b",
       "a" FFFD "b"},
      {"\xc3", FFFD},      /* truncated at the end */
      {"\xc3(", FFFD "("}, /* bad continuation */
      {"\xe2\x82", FFFD},  /* truncated 3-byte: one maximal subpart */
      {"\xe2\x82(", FFFD "("},
      {"\xf0\x9f\x98", FFFD}, /* truncated 4-byte */
      {"\xf0\x9f\x98x", FFFD "x"},
      {"\xc0\xaf", FFFD FFFD},                   /* overlong '/' */
      {"\xe0\x80\xaf", FFFD FFFD FFFD},          /* overlong 3-byte */
      {"\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD}, /* overlong 4-byte */
      {"\xed\xa0\x80", FFFD FFFD FFFD},          /* UTF-16 surrogate U+D800 */
      {"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD}, /* above U+10FFFF */
      {"ok\xc3\xa9\xff\xc3\xa9", "ok\xc3\xa9" FFFD "\xc3\xa9"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *literal = g_strdup_printf("\"%s\"", cases[i].out);
    check_string(cases[i].in, -1, literal, cases[i].out);
  }

  /* Invalid bytes in a key too. */
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "\xff", 1);
  sxs__json_end_object(w);
  g_assert_cmpstr(sxs__json_writer_get(w, NULL), ==, "{\"" FFFD "\":1}");
}

static void test_utf8_multibyte(void) {
  static const char *const cases[] = {
      "\xc2\x80",         /* U+0080 */
      "caf\xc3\xa9",      /* é */
      "\xe0\xa0\x80",     /* U+0800 */
      "\xe2\x82\xac",     /* € */
      "\xed\x9f\xbf",     /* U+D7FF */
      "\xee\x80\x80",     /* U+E000 */
      "\xef\xbf\xbf",     /* U+FFFF */
      "\xf0\x90\x80\x80", /* U+10000 */
      "\xf0\x9f\x98\x80", /* 😀 */
      "\xf4\x8f\xbf\xbf", /* U+10FFFF */
      "\xe2\x80\xa8",     /* U+2028 is valid inside JSON strings */
      "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xe4\xb8\x96\xe7\x95\x8c",
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *literal = g_strdup_printf("\"%s\"", cases[i]);
    check_string(cases[i], -1, literal, cases[i]);
  }
}

static void test_integers(void) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_array(w);
  sxs__json_int(w, G_MININT64);
  sxs__json_int(w, G_MAXINT64);
  sxs__json_int(w, 0);
  sxs__json_int(w, -1);
  sxs__json_uint(w, G_MAXUINT64);
  sxs__json_uint(w, 0);
  sxs__json_end_array(w);
  g_assert_true(sxs__json_writer_complete(w));
  const char *text = sxs__json_writer_get(w, NULL);
  g_assert_cmpstr(text, ==, "[-9223372036854775808,9223372036854775807,0,-1,18446744073709551615,0]");

  g_autoptr(JsonNode) root = parse_json(text, strlen(text));
  JsonArray *a = json_node_get_array(root);
  g_assert_cmpint(json_array_get_int_element(a, 0), ==, G_MININT64);
  g_assert_cmpint(json_array_get_int_element(a, 1), ==, G_MAXINT64);
  g_assert_cmpint(json_array_get_int_element(a, 3), ==, -1);
}

static void check_doubles(void) {
  static const struct {
    double v;
    const char *text; /* NULL: only the round trip is checked */
  } cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {-2.5, "-2.5"},
      {0.1, "0.1"},
      {1.0 / 3.0, "0.3333333333333333"},
      {3.141592653589793, "3.141592653589793"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1e300, "1e+300"},
      {-1.5e-300, "-1.5e-300"},
      {123456789.0, "123456789.0"},
      {1e21, "1e+21"},
      {DBL_MAX, "1.7976931348623157e+308"},
      {DBL_MIN, NULL},
      {5e-324, NULL},
  };
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_array(w);
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
    sxs__json_double(w, cases[i].v);
  sxs__json_double(w, NAN);
  sxs__json_double(w, INFINITY);
  sxs__json_double(w, -INFINITY);
  sxs__json_end_array(w);
  g_assert_true(sxs__json_writer_complete(w));

  const char *text = sxs__json_writer_get(w, NULL);
  g_assert_null(strchr(text, ' '));
  g_autoptr(JsonNode) root = parse_json(text, strlen(text));
  JsonArray *a = json_node_get_array(root);
  g_assert_cmpuint(json_array_get_length(a), ==, G_N_ELEMENTS(cases) + 3);
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    JsonNode *n = json_array_get_element(a, (guint)i);
    g_assert_cmpint(json_node_get_value_type(n), ==, G_TYPE_DOUBLE);
    double back = json_node_get_double(n);
    g_assert_true(memcmp(&back, &cases[i].v, sizeof back) == 0 || back == cases[i].v);
    g_assert_cmpint(signbit(back), ==, signbit(cases[i].v));
    if (cases[i].text != NULL) {
      g_autoptr(SxsJsonWriter) one = sxs__json_writer_new(FALSE);
      sxs__json_double(one, cases[i].v);
      g_assert_cmpstr(sxs__json_writer_get(one, NULL), ==, cases[i].text);
    }
  }
  for (guint i = G_N_ELEMENTS(cases); i < G_N_ELEMENTS(cases) + 3; i++)
    g_assert_true(json_array_get_null_element(a, i));
}

static void test_doubles(void) {
  check_doubles();

  /* A locale with a decimal comma must not leak into the output. */
  static const char *const comma_locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8"};
  g_autofree char *saved = g_strdup(setlocale(LC_NUMERIC, NULL));
  gboolean switched = FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS(comma_locales) && !switched; i++)
    switched = setlocale(LC_NUMERIC, comma_locales[i]) != NULL;
  if (switched) {
    check_doubles();
    setlocale(LC_NUMERIC, saved);
  }
}

static void test_null_strings(void) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "a", NULL);
  sxs__json_key(w, "b");
  sxs__json_string(w, NULL);
  sxs__json_key(w, "c");
  sxs__json_string_len(w, NULL, 5);
  sxs__json_key(w, "d");
  sxs__json_null(w);
  sxs__json_member_string(w, "e", "");
  sxs__json_end_object(w);
  g_assert_true(sxs__json_writer_complete(w));
  const char *text = sxs__json_writer_get(w, NULL);
  g_assert_cmpstr(text, ==, "{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":\"\"}");

  g_autoptr(JsonNode) root = parse_json(text, strlen(text));
  JsonObject *o = json_node_get_object(root);
  g_assert_true(json_object_get_null_member(o, "a"));
  g_assert_true(json_object_get_null_member(o, "d"));
  g_assert_cmpstr(json_object_get_string_member(o, "e"), ==, "");
}

static void test_string_len(void) {
  /* An explicit length stops early, and a negative one means strlen. */
  check_string("abcdef", 3, "\"abc\"", "abc");
  check_string("abcdef", -1, "\"abcdef\"", "abcdef");
  check_string("abcdef", 0, "\"\"", "");
  /* A multi-byte character cut by the length becomes U+FFFD rather than broken UTF-8. */
  check_string("\xe2\x82\xac", 2, "\"" FFFD "\"", FFFD);
}

static void test_pretty(void) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(TRUE);
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "format", "sxsprof");
  sxs__json_member_int(w, "version", 1);
  sxs__json_key(w, "list");
  sxs__json_begin_array(w);
  sxs__json_bool(w, TRUE);
  sxs__json_null(w);
  sxs__json_begin_object(w);
  sxs__json_member_uint(w, "n", 7);
  sxs__json_member_double(w, "x", 0.5);
  sxs__json_end_object(w);
  sxs__json_begin_array(w);
  sxs__json_end_array(w);
  sxs__json_end_array(w);
  sxs__json_key(w, "empty");
  sxs__json_begin_object(w);
  sxs__json_end_object(w);
  sxs__json_end_object(w);

  g_assert_true(sxs__json_writer_complete(w));
  const char *expected = "{\n"
                         "  \"format\": \"sxsprof\",\n"
                         "  \"version\": 1,\n"
                         "  \"list\": [\n"
                         "    true,\n"
                         "    null,\n"
                         "    {\n"
                         "      \"n\": 7,\n"
                         "      \"x\": 0.5\n"
                         "    },\n"
                         "    []\n"
                         "  ],\n"
                         "  \"empty\": {}\n"
                         "}";
  g_assert_cmpstr(sxs__json_writer_get(w, NULL), ==, expected);
  g_autoptr(JsonNode) root = parse_json(expected, strlen(expected));
  g_assert_cmpstr(json_object_get_string_member(json_node_get_object(root), "format"), ==, "sxsprof");
}

typedef void (*MisuseFunc)(SxsJsonWriter *w);

static void misuse_value_for_key(SxsJsonWriter *w) {
  sxs__json_begin_object(w);
  sxs__json_int(w, 1);
}
static void misuse_key_in_array(SxsJsonWriter *w) {
  sxs__json_begin_array(w);
  sxs__json_key(w, "a");
}
static void misuse_key_at_top(SxsJsonWriter *w) {
  sxs__json_key(w, "a");
}
static void misuse_null_key(SxsJsonWriter *w) {
  sxs__json_begin_object(w);
  sxs__json_key(w, NULL);
}
static void misuse_two_keys(SxsJsonWriter *w) {
  sxs__json_begin_object(w);
  sxs__json_key(w, "a");
  sxs__json_key(w, "b");
}
static void misuse_close_missing_value(SxsJsonWriter *w) {
  sxs__json_begin_object(w);
  sxs__json_key(w, "a");
  sxs__json_end_object(w);
}
static void misuse_wrong_close(SxsJsonWriter *w) {
  sxs__json_begin_array(w);
  sxs__json_end_object(w);
}
static void misuse_extra_close(SxsJsonWriter *w) {
  sxs__json_begin_array(w);
  sxs__json_end_array(w);
  sxs__json_end_array(w);
}
static void misuse_close_nothing(SxsJsonWriter *w) {
  sxs__json_end_object(w);
}
static void misuse_two_top_values(SxsJsonWriter *w) {
  sxs__json_int(w, 1);
  sxs__json_int(w, 2);
}
static void misuse_two_top_containers(SxsJsonWriter *w) {
  sxs__json_begin_object(w);
  sxs__json_end_object(w);
  sxs__json_begin_array(w);
  sxs__json_end_array(w);
}
static void misuse_unclosed(SxsJsonWriter *w) {
  sxs__json_begin_object(w);
  sxs__json_member_int(w, "a", 1);
}
static void misuse_nothing(SxsJsonWriter *w) {
  (void)w;
}

/* Inline containers stay on one line in pretty mode, with everything in them; the layout around
 * them goes on. */
static void test_pretty_inline(void) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(TRUE);
  sxs__json_begin_object(w);
  sxs__json_key(w, "table");
  sxs__json_begin_array(w);
  sxs__json_begin_object_inline(w);
  sxs__json_member_string(w, "name", "a");
  sxs__json_key(w, "frames");
  sxs__json_begin_array(w); /* not inline itself, but inside one */
  sxs__json_uint(w, 1);
  sxs__json_int(w, -2);
  sxs__json_end_array(w);
  sxs__json_key(w, "empty");
  sxs__json_begin_array_inline(w);
  sxs__json_end_array(w);
  sxs__json_end_object(w);
  sxs__json_begin_array_inline(w);
  sxs__json_uint(w, 3);
  sxs__json_end_array(w);
  sxs__json_end_array(w);
  sxs__json_member_bool(w, "after", TRUE);
  sxs__json_end_object(w);
  g_assert_true(sxs__json_writer_complete(w));
  const char *expected = "{\n"
                         "  \"table\": [\n"
                         "    {\"name\":\"a\",\"frames\":[1,-2],\"empty\":[]},\n"
                         "    [3]\n"
                         "  ],\n"
                         "  \"after\": true\n"
                         "}";
  g_assert_cmpstr(sxs__json_writer_get(w, NULL), ==, expected);
  g_autoptr(JsonNode) root = parse_json(expected, strlen(expected));
  g_assert_nonnull(root);
}

static void test_misuse(void) {
  static const MisuseFunc cases[] = {
      misuse_value_for_key,       misuse_key_in_array, misuse_key_at_top,  misuse_null_key,      misuse_two_keys,
      misuse_close_missing_value, misuse_wrong_close,  misuse_extra_close, misuse_close_nothing, misuse_two_top_values,
      misuse_two_top_containers,  misuse_unclosed,     misuse_nothing,
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    for (int pretty = 0; pretty <= 1; pretty++) {
      g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(pretty);
      cases[i](w);
      g_assert_false(sxs__json_writer_complete(w));
      /* Once failed, the writer stays failed and ignores further calls. */
      sxs__json_end_object(w);
      sxs__json_end_array(w);
      g_assert_false(sxs__json_writer_complete(w));
    }
  }

  /* A sticky failure: text stops growing. */
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  sxs__json_begin_array(w);
  sxs__json_key(w, "x");
  g_autofree char *frozen = g_strdup(sxs__json_writer_get(w, NULL));
  sxs__json_int(w, 1);
  sxs__json_end_array(w);
  g_assert_cmpstr(sxs__json_writer_get(w, NULL), ==, frozen);
  g_assert_false(sxs__json_writer_complete(w));

  /* NULL writers are tolerated. */
  sxs__json_writer_free(NULL);
  sxs__json_begin_object(NULL);
  sxs__json_member_int(NULL, "a", 1);
  g_assert_false(sxs__json_writer_complete(NULL));
  g_assert_null(sxs__json_writer_get(NULL, NULL));

  /* A single scalar is a complete document. */
  g_autoptr(SxsJsonWriter) scalar = sxs__json_writer_new(FALSE);
  sxs__json_string(scalar, "x");
  g_assert_true(sxs__json_writer_complete(scalar));
}

static void test_depth_limit(void) {
  g_autoptr(SxsJsonWriter) ok = sxs__json_writer_new(FALSE);
  for (int i = 0; i < SXS_JSON_MAX_DEPTH; i++)
    sxs__json_begin_array(ok);
  for (int i = 0; i < SXS_JSON_MAX_DEPTH; i++)
    sxs__json_end_array(ok);
  g_assert_true(sxs__json_writer_complete(ok));
  g_autoptr(JsonNode) root = parse_json(sxs__json_writer_get(ok, NULL), strlen(sxs__json_writer_get(ok, NULL)));
  g_assert_nonnull(root);

  g_autoptr(SxsJsonWriter) deep = sxs__json_writer_new(TRUE);
  for (int i = 0; i < SXS_JSON_MAX_DEPTH + 1; i++)
    sxs__json_begin_object(deep), sxs__json_key(deep, "k");
  sxs__json_int(deep, 1);
  for (int i = 0; i < SXS_JSON_MAX_DEPTH + 1; i++)
    sxs__json_end_object(deep);
  g_assert_false(sxs__json_writer_complete(deep));
}

static void test_steal(void) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(TRUE);
  sxs__json_begin_array(w);
  sxs__json_int(w, 1);
  sxs__json_end_array(w);
  gsize len = 0;
  g_autofree char *first = sxs__json_writer_steal(w, &len);
  g_assert_cmpstr(first, ==, "[\n  1\n]");
  g_assert_cmpuint(len, ==, strlen(first));

  /* The writer is empty again, keeps pretty mode, and can be reused for a new document. */
  g_assert_false(sxs__json_writer_complete(w));
  g_assert_cmpstr(sxs__json_writer_get(w, &len), ==, "");
  g_assert_cmpuint(len, ==, 0);
  sxs__json_begin_array(w);
  sxs__json_int(w, 2);
  sxs__json_end_array(w);
  g_assert_true(sxs__json_writer_complete(w));
  g_autofree char *second = sxs__json_writer_steal(w, NULL);
  g_assert_cmpstr(second, ==, "[\n  2\n]");
}

/* The digest that tells a changed document from the one written last: equal texts agree, and a
 * change of any one byte, at any place and in a tail shorter than a word, is always seen. */
static void test_text_digest(void) {
  char text[67];
  for (guint i = 0; i < sizeof text; i++)
    text[i] = (char)('a' + i % 26);
  guint64 whole = sxs__text_digest(text, sizeof text);
  g_autofree char *copy = g_memdup2(text, sizeof text);
  g_assert_cmpuint(whole, ==, sxs__text_digest(copy, sizeof text));
  for (guint i = 0; i < sizeof text; i++) {
    char changed[sizeof text];
    memcpy(changed, text, sizeof text);
    changed[i] ^= 1;
    g_assert_cmpuint(sxs__text_digest(changed, sizeof text), !=, whole);
  }
  /* Shorter by one, or longer by a NUL: other documents. */
  g_assert_cmpuint(sxs__text_digest(text, sizeof text - 1), !=, whole);
  char longer[sizeof text + 1] = {0};
  memcpy(longer, text, sizeof text);
  g_assert_cmpuint(sxs__text_digest(longer, sizeof longer), !=, whole);
  g_assert_cmpuint(sxs__text_digest(NULL, 0), ==, sxs__text_digest("", 0));
}

typedef struct {
  const char *name, *module;
  guint64 jit_compiled;
} TestFunction;

typedef struct {
  gint64 id;
  const char *version, *clr_version, *path, *status, *reason;
  guint64 counters[5];
  const TestFunction *functions;
  gsize n_functions;
} TestRuntime;

static const char *const counter_names[] = {"jit_compiled", "modules_loaded", "exceptions", "gcs", "threads_created"};

static void write_profile(SxsJsonWriter *w, const TestRuntime *rts, gsize n_rts) {
  sxs__json_begin_object(w);
  sxs__json_member_string(w, "format", "sxsprof");
  sxs__json_member_int(w, "version", 1);
  sxs__json_member_int(w, "pid", 4242);
  sxs__json_member_string(w, "mode", "pick-all");
  sxs__json_member_string(w, "config", NULL);
  sxs__json_key(w, "runtimes");
  sxs__json_begin_array(w);
  for (gsize i = 0; i < n_rts; i++) {
    const TestRuntime *rt = &rts[i];
    sxs__json_begin_object(w);
    sxs__json_member_int(w, "id", rt->id);
    sxs__json_member_string(w, "version", rt->version);
    sxs__json_member_string(w, "clr_version", rt->clr_version);
    sxs__json_member_string(w, "path", rt->path);
    sxs__json_member_string(w, "status", rt->status);
    sxs__json_member_string(w, "reason", rt->reason);
    sxs__json_key(w, "counters");
    sxs__json_begin_object(w);
    for (gsize c = 0; c < G_N_ELEMENTS(counter_names); c++)
      sxs__json_member_uint(w, counter_names[c], rt->counters[c]);
    sxs__json_end_object(w);
    sxs__json_key(w, "functions");
    sxs__json_begin_array(w);
    for (gsize f = 0; f < rt->n_functions; f++) {
      sxs__json_begin_object(w);
      sxs__json_member_string(w, "name", rt->functions[f].name);
      sxs__json_member_string(w, "module", rt->functions[f].module);
      sxs__json_member_uint(w, "jit_compiled", rt->functions[f].jit_compiled);
      sxs__json_end_object(w);
    }
    sxs__json_end_array(w);
    sxs__json_end_object(w);
  }
  sxs__json_end_array(w);
  sxs__json_end_object(w);
}

static void test_profile_roundtrip(void) {
  static const TestFunction fns10[] = {
      {"App.Program.Main", "App.dll", 1},
      {"App.Program.<Main>b__0_0", "App.dll", 1},
      {"System.Collections.Generic.List`1.Add", "System.Private.CoreLib.dll", 3},
      {"Odd\"Name\\With\nStuff\xff", "we\xc3\xafrd.dll", 2},
  };
  static const TestFunction fns2[] = {
      {"App.Worker.Run", "App.dll", 1},
  };
  static const TestRuntime rts[] = {
      {1,
       "10.0.12",
       "10.0.12",
       "/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so",
       "profiling",
       NULL,
       {120, 14, 3, 2, 5},
       fns10,
       G_N_ELEMENTS(fns10)},
      {2,
       "2.0.0",
       "4.0.22220.0",
       "/root/.local/share/sxsprof/dotnet/shared/Microsoft.NETCore.App/2.0.0/libcoreclr.so",
       "declined",
       "policy: version 2.0 not selected",
       {0, 0, 0, 0, 0},
       fns2,
       0},
  };

  for (int pretty = 0; pretty <= 1; pretty++) {
    g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(pretty);
    write_profile(w, rts, G_N_ELEMENTS(rts));
    g_assert_true(sxs__json_writer_complete(w));
    gsize len = 0;
    g_autofree char *text = sxs__json_writer_steal(w, &len);
    g_assert_cmpint(strchr(text, '\n') != NULL, ==, pretty);

    g_autoptr(JsonNode) root = parse_json(text, len);
    JsonObject *doc = json_node_get_object(root);
    g_assert_cmpstr(json_object_get_string_member(doc, "format"), ==, "sxsprof");
    g_assert_cmpint(json_object_get_int_member(doc, "version"), ==, 1);
    g_assert_cmpint(json_object_get_int_member(doc, "pid"), ==, 4242);
    g_assert_cmpstr(json_object_get_string_member(doc, "mode"), ==, "pick-all");
    g_assert_true(json_object_get_null_member(doc, "config"));

    JsonArray *runtimes = json_object_get_array_member(doc, "runtimes");
    g_assert_cmpuint(json_array_get_length(runtimes), ==, G_N_ELEMENTS(rts));
    for (guint i = 0; i < G_N_ELEMENTS(rts); i++) {
      JsonObject *rt = json_array_get_object_element(runtimes, i);
      g_assert_cmpint(json_object_get_int_member(rt, "id"), ==, rts[i].id);
      g_assert_cmpstr(json_object_get_string_member(rt, "version"), ==, rts[i].version);
      g_assert_cmpstr(json_object_get_string_member(rt, "clr_version"), ==, rts[i].clr_version);
      g_assert_cmpstr(json_object_get_string_member(rt, "path"), ==, rts[i].path);
      g_assert_cmpstr(json_object_get_string_member(rt, "status"), ==, rts[i].status);
      if (rts[i].reason == NULL)
        g_assert_true(json_object_get_null_member(rt, "reason"));
      else
        g_assert_cmpstr(json_object_get_string_member(rt, "reason"), ==, rts[i].reason);
      JsonObject *counters = json_object_get_object_member(rt, "counters");
      g_assert_cmpuint(json_object_get_size(counters), ==, G_N_ELEMENTS(counter_names));
      for (gsize c = 0; c < G_N_ELEMENTS(counter_names); c++)
        g_assert_cmpint(json_object_get_int_member(counters, counter_names[c]), ==, (gint64)rts[i].counters[c]);
      JsonArray *functions = json_object_get_array_member(rt, "functions");
      g_assert_cmpuint(json_array_get_length(functions), ==, rts[i].n_functions);
      for (guint f = 0; f < rts[i].n_functions; f++) {
        JsonObject *fn = json_array_get_object_element(functions, f);
        const char *name = json_object_get_string_member(fn, "name");
        if (f == 3) {
          g_assert_cmpstr(name, ==, "Odd\"Name\\With\nStuff" FFFD);
        } else {
          g_assert_cmpstr(name, ==, rts[i].functions[f].name);
        }
        g_assert_cmpstr(json_object_get_string_member(fn, "module"), ==, rts[i].functions[f].module);
        g_assert_cmpint(json_object_get_int_member(fn, "jit_compiled"), ==, (gint64)rts[i].functions[f].jit_compiled);
      }
    }
  }
}

/* ---- atomic file replace ---- */

typedef struct {
  char *dir;
} TmpDirFixture;

static void tmpdir_setup(TmpDirFixture *fx, gconstpointer data) {
  (void)data;
  fx->dir = sxs_scratch_new("sxs-json");
}

static void tmpdir_teardown(TmpDirFixture *fx, gconstpointer data) {
  (void)data;
  sxs_scratch_remove(fx->dir);
}

static int compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names in dir, as one comma-separated string. */
static char *list_dir(const char *path) {
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  GDir *dir = g_dir_open(path, 0, NULL);
  g_assert_nonnull(dir);
  const char *name;
  while ((name = g_dir_read_name(dir)) != NULL)
    g_ptr_array_add(names, g_strdup(name));
  g_dir_close(dir);
  g_ptr_array_sort(names, compare_names);
  g_ptr_array_add(names, NULL);
  return g_strjoinv(",", (char **)names->pdata);
}

static char *read_file(const char *path) {
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_file_get_contents(path, &text, NULL, &error);
  g_assert_no_error(error);
  return g_steal_pointer(&text);
}

static void test_atomic_create(TmpDirFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *path = g_build_filename(fx->dir, "out.json", NULL);
  const char *doc = "{\"a\":1}";
  g_assert_cmpint(sxs__file_write_atomic(path, doc, strlen(doc), 0), ==, 0);
  g_autofree char *back = read_file(path);
  g_assert_cmpstr(back, ==, doc);

  GStatBuf st;
  g_assert_cmpint(g_stat(path, &st), ==, 0);
  g_assert_true(S_ISREG(st.st_mode));
  mode_t mask = umask(0);
  umask(mask);
  g_assert_cmpint(st.st_mode & 0777, ==, 0644 & ~mask);

  g_autofree char *names = list_dir(fx->dir);
  g_assert_cmpstr(names, ==, "out.json");

  /* An empty document is a valid write too. */
  g_autofree char *empty = g_build_filename(fx->dir, "empty", NULL);
  g_assert_cmpint(sxs__file_write_atomic(empty, "", 0, SXS_FILE_SYNC), ==, 0);
  g_autofree char *empty_back = read_file(empty);
  g_assert_cmpstr(empty_back, ==, "");

  g_assert_cmpint(sxs__file_write_atomic(NULL, doc, 1, 0), ==, -EINVAL);
  g_assert_cmpint(sxs__file_write_atomic(path, NULL, 1, 0), ==, -EINVAL);
}

static void test_atomic_replace(TmpDirFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *path = g_build_filename(fx->dir, "out.json", NULL);
  g_autofree char *old_link = g_build_filename(fx->dir, "old-link", NULL);
  const char *old_doc = "{\"old\":\"a much longer old document than the new one\"}";
  const char *new_doc = "[1]";

  g_assert_cmpint(sxs__file_write_atomic(path, old_doc, strlen(old_doc), 0), ==, 0);
  g_assert_cmpint(link(path, old_link), ==, 0);
  g_assert_cmpint(sxs__file_write_atomic(path, new_doc, strlen(new_doc), SXS_FILE_SYNC), ==, 0);

  g_autofree char *back = read_file(path);
  g_assert_cmpstr(back, ==, new_doc);
  /* The old inode was replaced, not rewritten in place: a hard link still sees the old text. */
  g_autofree char *old_back = read_file(old_link);
  g_assert_cmpstr(old_back, ==, old_doc);

  g_autofree char *names = list_dir(fx->dir);
  g_assert_cmpstr(names, ==, "old-link,out.json");
}

static void test_atomic_missing_folder(TmpDirFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *path = g_build_filename(fx->dir, "missing", "out.json", NULL);
  g_assert_cmpint(sxs__file_write_atomic(path, "{}", 2, 0), ==, -ENOENT);
  g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
  g_autofree char *names = list_dir(fx->dir);
  g_assert_cmpstr(names, ==, "");
}

static void test_atomic_failed_rename(TmpDirFixture *fx, gconstpointer data) {
  (void)data;
  /* The target is a non-empty folder: rename fails, the folder and its content stay, and the
   * temp file is gone. */
  g_autofree char *path = g_build_filename(fx->dir, "out.json", NULL);
  g_autofree char *inside = g_build_filename(path, "keep", NULL);
  g_assert_cmpint(g_mkdir(path, 0755), ==, 0);
  g_assert_true(g_file_set_contents(inside, "kept", -1, NULL));

  int r = sxs__file_write_atomic(path, "{}", 2, 0);
  g_assert_cmpint(r, ==, -EISDIR);
  g_assert_true(g_file_test(path, G_FILE_TEST_IS_DIR));
  g_autofree char *kept = read_file(inside);
  g_assert_cmpstr(kept, ==, "kept");
  g_autofree char *names = list_dir(fx->dir);
  g_assert_cmpstr(names, ==, "out.json");
}

#define WRITES_PER_THREAD 200

typedef struct {
  const char *path;
  int writer;
  int failures; /* writer: failed writes */
  gint *done;   /* writers finished (reader stops at 2) */
} WriterArgs;

typedef struct {
  const char *path;
  gint *done;
  guint reads;
  guint bad; /* unreadable, unparsable or inconsistent documents */
  char *first_bad;
} ReaderArgs;

static gsize payload_len(int writer, int seq) {
  return (gsize)((seq * 7919 + writer * 104729) % 60000) + 1;
}

static gpointer writer_thread(gpointer data) {
  WriterArgs *a = data;
  for (int seq = 0; seq < WRITES_PER_THREAD; seq++) {
    gsize n = payload_len(a->writer, seq);
    g_autofree char *payload = g_malloc(n + 1);
    memset(payload, 'a' + a->writer, n);
    payload[n] = '\0';

    g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(seq % 2 == 0);
    sxs__json_begin_object(w);
    sxs__json_member_int(w, "writer", a->writer);
    sxs__json_member_int(w, "seq", seq);
    sxs__json_member_uint(w, "len", n);
    sxs__json_member_string(w, "payload", payload);
    sxs__json_end_object(w);
    gsize len = 0;
    const char *text = sxs__json_writer_get(w, &len);
    if (!sxs__json_writer_complete(w) || sxs__file_write_atomic(a->path, text, len, 0) != 0)
      a->failures++;
  }
  g_atomic_int_inc(a->done);
  return NULL;
}

/* Checks one read of the shared file: it must be one whole document of one writer. */
static gboolean document_ok(const char *text, gsize len) {
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, text, (gssize)len, NULL))
    return FALSE;
  JsonNode *root = json_parser_get_root(parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
    return FALSE;
  JsonObject *o = json_node_get_object(root);
  if (!json_object_has_member(o, "writer") || !json_object_has_member(o, "seq") || !json_object_has_member(o, "len") ||
      !json_object_has_member(o, "payload"))
    return FALSE;
  gint64 writer = json_object_get_int_member(o, "writer");
  gint64 seq = json_object_get_int_member(o, "seq");
  const char *payload = json_object_get_string_member(o, "payload");
  if (writer < 0 || writer > 1 || seq < -1 || seq >= WRITES_PER_THREAD || payload == NULL)
    return FALSE;
  gsize n = seq < 0 ? 1 : payload_len((int)writer, (int)seq);
  if ((gint64)n != json_object_get_int_member(o, "len") || strlen(payload) != n)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (payload[i] != 'a' + writer)
      return FALSE;
  return TRUE;
}

static gpointer reader_thread(gpointer data) {
  ReaderArgs *a = data;
  while (g_atomic_int_get(a->done) < 2) {
    g_autofree char *text = NULL;
    gsize len = 0;
    gboolean ok = g_file_get_contents(a->path, &text, &len, NULL) && document_ok(text, len);
    a->reads++;
    if (!ok) {
      a->bad++;
      if (a->first_bad == NULL)
        a->first_bad = g_strndup(text != NULL ? text : "(unreadable)", 200);
    }
  }
  return NULL;
}

static void test_atomic_concurrent(TmpDirFixture *fx, gconstpointer data) {
  (void)data;
  g_autofree char *path = g_build_filename(fx->dir, "profile.json", NULL);
  const char *initial = "{\"writer\":0,\"seq\":-1,\"len\":1,\"payload\":\"a\"}";
  g_assert_cmpint(sxs__file_write_atomic(path, initial, strlen(initial), 0), ==, 0);

  gint done = 0;
  WriterArgs writers[2] = {{.path = path, .writer = 0, .done = &done}, {.path = path, .writer = 1, .done = &done}};
  ReaderArgs reader = {.path = path, .done = &done};

  GThread *rt = g_thread_new("reader", reader_thread, &reader);
  GThread *wt[2];
  for (int i = 0; i < 2; i++)
    wt[i] = g_thread_new("writer", writer_thread, &writers[i]);
  for (int i = 0; i < 2; i++)
    g_thread_join(wt[i]);
  g_thread_join(rt);

  g_assert_cmpint(writers[0].failures, ==, 0);
  g_assert_cmpint(writers[1].failures, ==, 0);
  if (reader.bad > 0)
    g_test_message("first bad read: %s", reader.first_bad);
  g_assert_cmpuint(reader.bad, ==, 0);
  g_assert_cmpuint(reader.reads, >, 0);
  g_test_message("%u reads during %d writes", reader.reads, 2 * WRITES_PER_THREAD);
  g_free(reader.first_bad);

  /* The last version on disk is the final document of one of the writers. */
  g_autofree char *last = read_file(path);
  g_autoptr(JsonNode) root = parse_json(last, strlen(last));
  g_assert_cmpint(json_object_get_int_member(json_node_get_object(root), "seq"), ==, WRITES_PER_THREAD - 1);

  g_autofree char *names = list_dir(fx->dir);
  g_assert_cmpstr(names, ==, "profile.json");
}

/* A text of a megabyte and more: mapped apart from the heap when taken (and its content the same
 * as the text a small buffer would hold), copied into the heap when stolen; the writer is empty
 * and usable again after each. */
static void test_large_text(void) {
  g_autoptr(SxsJsonWriter) w = sxs__json_writer_new(FALSE);
  g_autoptr(GString) expected = g_string_new("[");
  for (int round = 0; round < 2; round++) {
    sxs__json_begin_array(w);
    for (guint i = 0; i < 200000; i++) {
      sxs__json_uint(w, i);
      if (round == 0)
        g_string_append_printf(expected, "%s%u", i ? "," : "", i);
    }
    sxs__json_end_array(w);
    g_assert_true(sxs__json_writer_complete(w));
    if (round == 0) {
      g_string_append_c(expected, ']');
      g_auto(SxsText) t = sxs__json_writer_take(w);
      g_assert_true(t.mapped);
      g_assert_cmpuint(t.len, ==, expected->len);
      g_assert_cmpuint(strlen(t.data), ==, t.len);
      g_assert_cmpstr(t.data, ==, expected->str);
    } else {
      gsize len = 0;
      g_autofree char *text = sxs__json_writer_steal(w, &len);
      g_assert_cmpuint(len, ==, expected->len);
      g_assert_cmpstr(text, ==, expected->str);
    }
  }
  /* Small again after the large ones: not mapped. */
  sxs__json_begin_array(w);
  sxs__json_end_array(w);
  g_auto(SxsText) small = sxs__json_writer_take(w);
  g_assert_false(small.mapped);
  g_assert_cmpstr(small.data, ==, "[]");
}

typedef struct {
  guint key, order;
} Keyed;

static gint compare_keyed(gconstpointer a, gconstpointer b) {
  const Keyed *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key;
}

static guint cleared;
static void count_clear(gpointer p) {
  g_assert_nonnull(p);
  cleared++;
}

/* Elements kept through growth past the mapping size; the sort orders by key and keeps equal
 * keys in the order they were added (sorted, reversed and mixed input). */
static void test_vec_sort(void) {
  for (guint shape = 0; shape < 3; shape++) {
    g_autoptr(SxsVec) v = sxs__vec_new(sizeof(Keyed));
    const guint n = 100000;
    for (guint i = 0; i < n; i++) {
      guint key = shape == 0 ? i / 3 : shape == 1 ? (n - i) / 3 : (i * 7919u) % 1000;
      Keyed k = {key, i};
      sxs__vec_append_val(v, k);
    }
    g_assert_cmpuint(v->len, ==, n);
    g_assert_true(v->mapped);
    sxs__vec_sort(v, compare_keyed);
    for (guint i = 1; i < n; i++) {
      const Keyed *a = &sxs__vec_index(v, Keyed, i - 1), *b = &sxs__vec_index(v, Keyed, i);
      g_assert_cmpuint(a->key, <=, b->key);
      if (a->key == b->key)
        g_assert_cmpuint(a->order, <, b->order);
    }
  }
}

static void test_vec_clear(void) {
  SxsVec *v = sxs__vec_new(sizeof(guint64));
  sxs__vec_set_clear_func(v, count_clear);
  for (guint64 i = 0; i < 10; i++)
    sxs__vec_append_val(v, i);
  g_assert_false(v->mapped);
  cleared = 0;
  sxs__vec_truncate(v, 4);
  g_assert_cmpuint(cleared, ==, 6);
  g_assert_cmpuint(v->len, ==, 4);
  g_assert_cmpuint(sxs__vec_index(v, guint64, 3), ==, 3);
  sxs__vec_free(v);
  g_assert_cmpuint(cleared, ==, 10);
}

static gint compare_u64(gconstpointer a, gconstpointer b) {
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* glibc's allocator is the process's (a sanitizer's build replaces it, and its blocks have no
 * glibc chunk header to read): the test of its thresholds runs only there. */
#if defined(__SANITIZE_ADDRESS__)
#define GLIBC_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLIBC_MALLOC 0
#endif
#endif
#ifndef GLIBC_MALLOC
#define GLIBC_MALLOC 1
#endif

/* Whether glibc maps a block of n bytes on its own now (its chunk's "mapped" bit). */
static gboolean heap_maps(gsize n) {
  void *p = malloc(n);
  /* The chunk's size word before the block (glibc's layout), read where the compiler does not
   * follow the pointer from malloc. */
  char *raw = p;
  __asm__ volatile("" : "+r"(raw));
  size_t header;
  memcpy(&header, raw - sizeof header, sizeof header);
  gboolean mapped = (header & 2) != 0;
  free(p);
  return mapped;
}

/* The point of the mapping: 8 MiB of elements added, sorted and freed leave glibc mapping a 1 MiB
 * block as before; the same through a GArray (the heap's) makes glibc keep such blocks in its heap
 * from then on (its thresholds raised to the freed block's size), which the test checks too, so
 * that it can fail. In a subprocess each: the thresholds are the process's. */
static void test_vec_leaves_heap(void) {
  if (g_test_subprocess()) {
    gboolean through_heap = g_strcmp0(g_getenv("SXS_TEST_VEC_HEAP"), "1") == 0;
    guint64 x = 0;
    if (through_heap) {
      GArray *a = g_array_new(FALSE, FALSE, sizeof x);
      for (guint i = 0; i < (1u << 20); i++, x = i)
        g_array_append_val(a, x);
      g_array_unref(a);
    } else {
      SxsVec *v = sxs__vec_new(sizeof x);
      for (guint i = 0; i < (1u << 20); i++, x = (i * 2654435761u) % 1000)
        sxs__vec_append_val(v, x);
      sxs__vec_sort(v, compare_u64);
      sxs__vec_free(v);
    }
    g_print("%s", heap_maps(1u << 20) ? "mapped" : "heap");
    return;
  }
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("mapped");
  g_setenv("SXS_TEST_VEC_HEAP", "1", TRUE);
  g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv("SXS_TEST_VEC_HEAP");
  g_test_trap_assert_passed();
  g_test_trap_assert_stdout("heap");
}

static void test_text_append(void) {
  g_auto(SxsText) t = {0};
  g_assert_null(t.data);
  sxs__text_append(&t, "a");
  sxs__text_append_c(&t, '\t');
  sxs__text_append_printf(&t, "%u-%s", 42u, "x");
  g_assert_cmpstr(t.data, ==, "a\t42-x");
  g_autofree char *wide = g_strnfill(1000, 'w');
  sxs__text_append_printf(&t, "[%s]", wide);
  g_assert_cmpuint(t.len, ==, 6 + 1002);
  g_assert_cmpuint(strlen(t.data), ==, t.len);
  g_assert_cmpint(t.data[t.len - 1], ==, ']');
  sxs__text_truncate(&t, 2);
  g_assert_cmpstr(t.data, ==, "a\t");
  for (guint i = 0; i < 20000; i++)
    sxs__text_append_printf(&t, "%05u", i);
  g_assert_true(t.mapped);
  g_assert_cmpuint(t.len, ==, 2 + 5 * 20000);
  g_assert_true(g_str_has_suffix(t.data, "19999"));
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);

  g_test_add_func("/manager/json/nesting", test_nesting);
  g_test_add_func("/manager/json/large-text", test_large_text);
  g_test_add_func("/manager/json/text-append", test_text_append);
  g_test_add_func("/manager/vec/sort", test_vec_sort);
  g_test_add_func("/manager/vec/clear", test_vec_clear);
  if (GLIBC_MALLOC)
    g_test_add_func("/manager/vec/leaves-heap", test_vec_leaves_heap);
  g_test_add_func("/manager/json/empty-containers", test_empty_containers);
  g_test_add_func("/manager/json/escape-table", test_escape_table);
  g_test_add_func("/manager/json/control-chars", test_control_chars);
  g_test_add_func("/manager/json/utf8-invalid", test_utf8_invalid);
  g_test_add_func("/manager/json/utf8-multibyte", test_utf8_multibyte);
  g_test_add_func("/manager/json/integers", test_integers);
  g_test_add_func("/manager/json/doubles", test_doubles);
  g_test_add_func("/manager/json/null-strings", test_null_strings);
  g_test_add_func("/manager/json/string-len", test_string_len);
  g_test_add_func("/manager/json/pretty", test_pretty);
  g_test_add_func("/manager/json/pretty-inline", test_pretty_inline);
  g_test_add_func("/manager/json/misuse", test_misuse);
  g_test_add_func("/manager/json/depth-limit", test_depth_limit);
  g_test_add_func("/manager/json/steal", test_steal);
  g_test_add_func("/manager/json/text-digest", test_text_digest);
  g_test_add_func("/manager/json/profile-roundtrip", test_profile_roundtrip);

  g_test_add("/manager/json/atomic/create", TmpDirFixture, NULL, tmpdir_setup, test_atomic_create, tmpdir_teardown);
  g_test_add("/manager/json/atomic/replace", TmpDirFixture, NULL, tmpdir_setup, test_atomic_replace, tmpdir_teardown);
  g_test_add("/manager/json/atomic/missing-folder", TmpDirFixture, NULL, tmpdir_setup, test_atomic_missing_folder,
             tmpdir_teardown);
  g_test_add("/manager/json/atomic/failed-rename", TmpDirFixture, NULL, tmpdir_setup, test_atomic_failed_rename,
             tmpdir_teardown);
  g_test_add("/manager/json/atomic/concurrent", TmpDirFixture, NULL, tmpdir_setup, test_atomic_concurrent,
             tmpdir_teardown);

  return g_test_run();
}
