/* sxs_json_read: a JSON pull reader (RFC 8259) over a whole text in memory. It builds no tree and
 * copies only the strings its caller asks for; it does not write JSON (sxs_json does). */
#pragma once

#include <stddef.h>

#include <glib.h>

#include "sxs_json.h"

/* The type of the next value, from its first character. */
typedef enum {
  SXS_JSON_INVALID = 0, /* no value here: an error (now set), or the text ends */
  SXS_JSON_NULL,
  SXS_JSON_BOOL,
  SXS_JSON_NUMBER,
  SXS_JSON_STRING,
  SXS_JSON_ARRAY,
  SXS_JSON_OBJECT,
} SxsJsonType;

/* Why reading stopped. The first three mean the text is not (complete) JSON, the last two that it
 * is JSON the caller did not expect. */
typedef enum {
  SXS_JSON_READ_OK = 0,
  SXS_JSON_READ_SYNTAX, /* not JSON: a bad character, escape or number, invalid UTF-8 or a control
                         * character in a string, text after the top-level value */
  SXS_JSON_READ_EOF,    /* the text ends inside a value: truncated */
  SXS_JSON_READ_DEPTH,  /* objects and arrays nested deeper than SXS_JSON_MAX_DEPTH */
  SXS_JSON_READ_TYPE,   /* valid JSON, but not the type the caller asked for */
  SXS_JSON_READ_VALUE,  /* the type asked for, but a value the caller cannot take (range, name) */
} SxsJsonReadError;

/* One open object or array. */
typedef struct {
  SxsJsonType kind; /* SXS_JSON_OBJECT or SXS_JSON_ARRAY */
  gboolean pending; /* a member's or element's value was reached and has not been read yet */
  guint count;      /* members or elements reached so far */
  gsize key_at;     /* objects: offset and length in the text of the current member's name as */
  gsize key_len;    /* written (escapes intact), for error paths */
} SxsJsonReaderFrame;

/*
 * SxsJsonReader walks a JSON text value by value. The caller says what it expects next
 * (begin_object, next_member, a string, a number, ...); the reader checks the syntax as it goes and
 * hands out each value without building a tree:
 *
 *   sxs__json_reader_begin_object(r);
 *   while (sxs__json_reader_next_member(r, &key))      FALSE at '}' (or on an error)
 *     if (strcmp(key, "name") == 0)
 *       sxs__json_reader_string(r, &name, NULL);
 *                                                       a value not read is skipped by the next call
 *   sxs__json_reader_end(r);                            nothing but white space may follow
 *
 * Errors are sticky: the first one is kept with its position, every later call returns FALSE (or
 * SXS_JSON_INVALID) and changes nothing, so a caller checks once at the end. Out-parameters are
 * untouched when a call fails.
 *
 * Strings are returned as UTF-8, escapes decoded (\uXXXX surrogate pairs joined; a lone surrogate
 * becomes U+FFFD, as it has no UTF-8 form). Invalid UTF-8 and unescaped control characters in a
 * string are syntax errors, not replaced: the profile writers never produce them. \u0000 decodes
 * to a NUL byte inside the string (its length says where it ends). A UTF-8 byte order mark at the
 * start of the text is ignored. Numbers keep their exact integer value when read as integers (a
 * fraction or exponent is then a type error, a value out of range a value error).
 *
 * Context: not thread-safe; one reader per thread. Allocates only for the strings it returns and
 * two reused buffers (member names, strings with escapes); the text must outlive the reader.
 */
typedef struct {
  /* All private. */
  const char *text, *pos, *end;
  const char *value_at; /* where the value being (or last) read starts */
  guint depth;          /* open objects and arrays: stack[depth - 1] is the innermost */
  gboolean started;     /* the top-level value has been started */
  SxsJsonReadError error;
  char *what; /* the error, without its position */
  char *message;
  int line, column;
  char *key; /* the current member's name, NUL-terminated */
  gsize key_size;
  char *scratch; /* decoded strings with escapes, numbers for strtod */
  gsize scratch_size;
  SxsJsonReaderFrame stack[SXS_JSON_MAX_DEPTH];
} SxsJsonReader;

/* Starts reading len bytes of text, which need not be NUL-terminated. */
void sxs__json_reader_init(SxsJsonReader *r, const char *text, gsize len);
void sxs__json_reader_fini(SxsJsonReader *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SxsJsonReader, sxs__json_reader_fini)

/* The type of the value that comes next, without reading it. SXS_JSON_INVALID (and the error set)
 * when no value starts here. */
SxsJsonType sxs__json_reader_peek(SxsJsonReader *r);

/* Enters the object that comes next; a type error if another value comes. */
gboolean sxs__json_reader_begin_object(SxsJsonReader *r);
/* Moves to the next member of the innermost object: TRUE with *ret_key its name (decoded into a
 * buffer the reader reuses, so no allocation per member; NUL-terminated, valid until the next call
 * of next_member; a name holding \u0000 ends there), then the caller reads (or ignores) its value.
 * FALSE after the closing '}', which leaves the object, or on an error. */
gboolean sxs__json_reader_next_member(SxsJsonReader *r, const char **ret_key);
/* Enters the array that comes next; a type error if another value comes. */
gboolean sxs__json_reader_begin_array(SxsJsonReader *r);
/* Moves to the next element of the innermost array: TRUE when there is one, to be read (or
 * ignored) next. FALSE after the closing ']', which leaves the array, or on an error. */
gboolean sxs__json_reader_next_element(SxsJsonReader *r);

/* A string, or null (then *ret_value is NULL and *ret_len 0). The copy is the caller's (g_free).
 * ret_len (optional) receives its length in bytes. */
gboolean sxs__json_reader_string(SxsJsonReader *r, char **ret_value, gsize *ret_len);
/* Like sxs__json_reader_string without a copy: *ret_value points into the text or into the
 * reader's buffer, is not NUL-terminated and is valid until the next call on the reader. */
gboolean sxs__json_reader_string_view(SxsJsonReader *r, const char **ret_value, gsize *ret_len);
/* An integer (no fraction, no exponent) within the range of the type. */
gboolean sxs__json_reader_int64(SxsJsonReader *r, gint64 *ret_value);
gboolean sxs__json_reader_uint64(SxsJsonReader *r, guint64 *ret_value);
/* An integer from min to max; anything else that is an integer (negative, too large, beyond 64
 * bits) is a value error naming that range. */
gboolean sxs__json_reader_uint64_range(SxsJsonReader *r, guint64 min, guint64 max, guint64 *ret_value);
/* Any number that is finite as a double (too large ones are a value error). */
gboolean sxs__json_reader_double(SxsJsonReader *r, double *ret_value);
gboolean sxs__json_reader_bool(SxsJsonReader *r, gboolean *ret_value);
/* Skips the value that comes next, whatever it is, checking its syntax. */
gboolean sxs__json_reader_skip(SxsJsonReader *r);
/* Checks that the top-level value is complete and only white space follows it. */
gboolean sxs__json_reader_end(SxsJsonReader *r);

/* Fails the reader at the start of the value read last, for callers that find a well-formed value
 * they cannot take (an unknown name, a number out of their range). Does nothing after an error. */
G_GNUC_PRINTF(3, 4)
void sxs__json_reader_fail(SxsJsonReader *r, SxsJsonReadError error, const char *format, ...);

/* Where the value read last starts, as an offset into the text: kept by a caller that checks a
 * whole list once it is read, to fail at the element a problem concerns (sxs__json_reader_fail_at). */
gsize sxs__json_reader_value_offset(const SxsJsonReader *r);
/* Like sxs__json_reader_fail, at the value that starts at offset (a value_offset of earlier). */
G_GNUC_PRINTF(4, 5)
void sxs__json_reader_fail_at(SxsJsonReader *r, gsize offset, SxsJsonReadError error, const char *format, ...);

/* The error, SXS_JSON_READ_OK when none. ret_what (optional) receives what went wrong without the
 * position ("expected ',' or '}'"), ret_line and ret_column (optional) where, counted from 1,
 * columns in characters; NULL and 0 when there is no error. Valid until fini. */
SxsJsonReadError sxs__json_reader_error(const SxsJsonReader *r, const char **ret_what, int *ret_line, int *ret_column);
/* The error as one line, "expected ',' or '}' at line 12, column 4", or for a text that ends
 * early "unexpected end of file (truncated?) at line 80, column 1". NULL when there is no error. */
const char *sxs__json_reader_message(const SxsJsonReader *r);
/* Where the reader is, as a path of member names and indices: "runtimes[0].functions[3].name"
 * ("" at the top level). After an error, the path of the value that failed. Caller frees. */
char *sxs__json_reader_path(const SxsJsonReader *r);
