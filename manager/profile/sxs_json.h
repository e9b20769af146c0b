/* A streaming JSON text writer and an atomic file replace; no parsing, no DOM. */
#pragma once

#include <stddef.h>

#include <glib.h>

/* Maximum nesting of objects and arrays; deeper nesting marks the writer as failed. */
#define SXS_JSON_MAX_DEPTH 64

/*
 * SxsJsonWriter appends JSON text to a growing buffer. Commas, colons and (in pretty mode)
 * newlines and indentation are inserted from a nesting stack, so callers only say what comes next.
 * Misuse (a value where a key is expected, a key in an array, a close that does not match, a
 * second top-level value, nesting deeper than SXS_JSON_MAX_DEPTH) never aborts: it sets a sticky
 * error flag, later calls are ignored, and sxs__json_writer_complete() returns FALSE.
 *
 * Strings are always emitted as valid UTF-8: control characters are escaped, and invalid UTF-8
 * sequences are replaced by U+FFFD (one per maximal invalid subpart, as Unicode recommends).
 *
 * Pretty mode writes one member or element per line, indented by two spaces per level, with
 * "key": value separated by ": "; empty containers stay "{}" and "[]". No trailing newline.
 *
 * Context: not thread-safe; one writer per thread. Allocates (not for hot or signal paths).
 */
typedef struct SxsJsonWriter SxsJsonWriter;

SxsJsonWriter *sxs__json_writer_new(gboolean pretty);
void sxs__json_writer_free(SxsJsonWriter *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsJsonWriter, sxs__json_writer_free)

void sxs__json_begin_object(SxsJsonWriter *w);
void sxs__json_end_object(SxsJsonWriter *w);
void sxs__json_begin_array(SxsJsonWriter *w);
void sxs__json_end_array(SxsJsonWriter *w);
/* An object or array written on one line also in pretty mode (everything in it as without pretty
 * mode): for the short repeated records of a large document. Closed by the _end_ calls. */
void sxs__json_begin_object_inline(SxsJsonWriter *w);
void sxs__json_begin_array_inline(SxsJsonWriter *w);

/* A member name inside an object; the next call must write its value. */
void sxs__json_key(SxsJsonWriter *w, const char *key);

/* A NUL-terminated string, or null when utf8_or_null is NULL. */
void sxs__json_string(SxsJsonWriter *w, const char *utf8_or_null);
/* len bytes of s (embedded NULs become \u0000), or strlen(s) when len < 0; NULL s writes null. */
void sxs__json_string_len(SxsJsonWriter *w, const char *s, gssize len);
void sxs__json_int(SxsJsonWriter *w, gint64 v);
void sxs__json_uint(SxsJsonWriter *w, guint64 v);
void sxs__json_bool(SxsJsonWriter *w, gboolean v);
void sxs__json_null(SxsJsonWriter *w);
/* Locale-independent, the shortest of %.15g..%.17g that reads back exactly, always with a '.' or
 * an exponent so readers see a double; NaN and infinities are written as null. */
void sxs__json_double(SxsJsonWriter *w, double v);

/* Key plus value in one call. */
void sxs__json_member_string(SxsJsonWriter *w, const char *key, const char *v);
void sxs__json_member_int(SxsJsonWriter *w, const char *key, gint64 v);
void sxs__json_member_uint(SxsJsonWriter *w, const char *key, guint64 v);
void sxs__json_member_bool(SxsJsonWriter *w, const char *key, gboolean v);
void sxs__json_member_double(SxsJsonWriter *w, const char *key, double v);

/* The text written so far, owned by the writer and valid until the next call on it.
 * ret_len (optional) receives its length in bytes. */
const char *sxs__json_writer_get(SxsJsonWriter *w, gsize *ret_len);
/* TRUE when exactly one top-level value has been written, every container is closed and no
 * misuse happened. */
gboolean sxs__json_writer_complete(SxsJsonWriter *w);
/* Hands the text to the caller (free with g_free) and resets the writer to its empty state,
 * keeping the pretty setting. ret_len (optional) receives the length in bytes. A large text is
 * copied into the allocator's heap for it: sxs__json_writer_take does not. */
char *sxs__json_writer_steal(SxsJsonWriter *w, gsize *ret_len);

/* A text as the writer made it, in a block of sxs_vec.h: a large one (64 KiB and more) is mapped
 * apart from the allocator's heap, so that a long-running process's profile writes leave the
 * program's allocator as they found it. data is NUL-terminated (NULL in an empty (SxsText){0});
 * free with sxs__text_free, never g_free. */
typedef struct {
  char *data;
  gsize len, cap;
  gboolean mapped;
} SxsText;
SxsText sxs__json_writer_take(SxsJsonWriter *w);
/* Appending to a text ((SxsText){0} is an empty one): n bytes of s, a string, a byte, a formatted
 * string; data stays NUL-terminated. */
void sxs__text_append_len(SxsText *t, const char *s, gsize n);
void sxs__text_append(SxsText *t, const char *s);
void sxs__text_append_c(SxsText *t, char c);
void sxs__text_append_printf(SxsText *t, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* Keeps the first len bytes (when there are more). */
void sxs__text_truncate(SxsText *t, gsize len);
void sxs__text_free(SxsText *t);
/* t's text in the allocator's heap (a mapped one copied there, a heap one handed over; free with
 * g_free), t emptied. ret_len (optional) receives the length in bytes. */
char *sxs__text_steal(SxsText *t, gsize *ret_len);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SxsText, sxs__text_free)

/* How a file is replaced. The rename alone makes the replacement atomic for every reader (the old
 * version or the new one, never half of one, also when the writing process dies); SXS_FILE_SYNC
 * adds the fsyncs that make it survive a crash of the machine too, at the price of waiting for
 * the disk (a few ms, far more on a busy one). */
typedef enum {
  SXS_FILE_SYNC = 1 << 0, /* fsync the file before the rename, and its folder after it */
} SxsFileFlags;

/*
 * Writes data to path atomically: a temp file in the same folder (path + ".tmp.<pid>.<counter>",
 * O_CREAT|O_EXCL, mode 0644 minus umask), all bytes written (EINTR and short writes retried),
 * with SXS_FILE_SYNC an fsync, close, rename over path, then with SXS_FILE_SYNC a best-effort
 * fsync of the folder. On any failure the temp file is removed and path is untouched. Returns 0
 * or -errno (-EINVAL for NULL arguments).
 *
 * Context: any thread, concurrent calls allowed (also on the same path: the last rename wins and
 * readers always see one complete version). Blocking I/O; not async-signal-safe.
 */
int sxs__file_write_atomic(const char *path, const char *data, size_t len, SxsFileFlags flags);

/* The two halves of sxs__file_write_atomic, for files that must all be replaced or none: the temp
 * file written (and with SXS_FILE_SYNC synced; *ret_tmp, caller frees; removed again on failure),
 * then renamed over path (the temp file removed when that fails). Both return 0 or -errno. */
int sxs__file_write_temp(const char *path, const char *data, size_t len, SxsFileFlags flags, char **ret_tmp);
int sxs__file_commit(const char *tmp, const char *path, SxsFileFlags flags);

/* A 64-bit digest of len bytes, to tell whether a document changed since it was last written (not
 * a cryptographic hash: nobody chooses the documents). Two texts that differ in one 8-byte word
 * always differ; otherwise they collide with a chance of about 2^-64. About 0.1 ms per MB (a
 * profile of 13 MB took 85 ms with SHA-256). */
guint64 sxs__text_digest(const char *data, gsize len);
