/* sxs_pdb: portable PDBs, read with every offset checked (the PE debug directory is sxs_pe's, the
 * metadata tables sxs_metadata's).
 *
 *   assembly X.dll (PE)                               portable PDB (ECMA-335 metadata, "BSJB")
 *   DOS hdr -> PE hdr -> optional hdr                 root: version, stream headers
 *     data directory 6: debug directory  ------.        #Pdb   : PDB id (GUID + stamp), type-system
 *   debug entries (28 bytes each)              |                 row counts (sizes of indices)
 *     type 2  CodeView "RSDS" GUID age path  <-+-id-->  #~     : row counts, tables 0x30..0x37
 *     type 17 "MPDB" size deflate(PDB) ----------------> (the same, inflated)
 *                                                       Document (0x30): Name blob -> "a/b/c.cs"
 *   method token 0x06000123 -----------------------> MethodDebugInformation (0x31) row 0x123:
 *                                                       Document, SequencePoints blob
 *   native offset --IL-to-native map--> IL offset --> last visible point at or before it: line
 *
 * Table rows are located with the full ECMA-335 schema (every table's columns, every coded
 * index), because a table's position depends on the sizes of all tables before it, and index
 * sizes on the row counts of the tables they point into (the assembly's, for the type system
 * tables, as the #Pdb stream records them). */
#include "sxs_pdb.h"
#include "sxs_metadata.h"
#include "sxs_pe.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TABLE_DOCUMENT SXS_METADATA_DOCUMENT
#define TABLE_METHOD_DEBUG SXS_METADATA_METHOD_DEBUG
#define PDB_MAX_NAME 4096        /* longest document name decoded */
#define PDB_MAX_LINE 0x20000000u /* lines, IL offsets: below 2^29 (the spec's bounds) */
#define PDB_MAX_COLUMN 0x10000u

/* A read position within a bounded run of bytes. */
typedef struct {
  const guint8 *p;
  gsize len, pos;
} Cursor;

/* An ECMA-335 compressed unsigned integer, and its size. */
static gboolean read_cu(Cursor *c, guint32 *ret, guint *ret_size) {
  if (c->pos >= c->len || !sxs__pe_compressed(c->p + c->pos, c->len - c->pos, ret, ret_size))
    return FALSE;
  c->pos += *ret_size;
  return TRUE;
}

static gboolean read_u(Cursor *c, guint32 *ret) {
  guint size;
  return read_cu(c, ret, &size);
}

/* A compressed signed integer: the unsigned encoding, rotated so the sign is the lowest bit. */
static gboolean read_s(Cursor *c, gint32 *ret) {
  guint32 u;
  guint size;
  if (!read_cu(c, &u, &size))
    return FALSE;
  gint32 v = (gint32)(u >> 1);
  if (u & 1)
    v -= size == 1 ? 0x40 : size == 2 ? 0x2000 : 0x10000000;
  *ret = v;
  return TRUE;
}

/* ---- the portable PDB ---- */

struct SxsPdb {
  SxsMetadata *md;
  guint32 n_documents, n_methods;
  GMutex names_lock; /* guards names */
  char **names;      /* Document row - 1 -> decoded name, NULL until asked; owned */
  guint8 *names_bad; /* Document row - 1 -> its name was damaged */
};

/* A blob of the #Blob heap, as a cursor over its bytes. */
static gboolean blob_at(const SxsPdb *pdb, guint32 index, Cursor *ret) {
  const guint8 *p;
  gsize n;
  if (!sxs__metadata_blob(pdb->md, index, &p, &n))
    return FALSE;
  *ret = (Cursor){.p = p, .len = n, .pos = 0};
  return TRUE;
}

void sxs__pdb_free(SxsPdb *pdb) {
  if (!pdb)
    return;
  if (pdb->names) {
    for (guint i = 0; i < pdb->n_documents; i++)
      g_free(pdb->names[i]);
    g_free(pdb->names);
  }
  g_free(pdb->names_bad);
  g_mutex_clear(&pdb->names_lock);
  sxs__metadata_free(pdb->md);
  g_free(pdb);
}

SxsPdb *sxs__pdb_new(guint8 *data, gsize len, char **ret_why) {
  SxsMetadata *md = sxs__metadata_new(data, len, SXS_METADATA_PORTABLE_PDB, ret_why);
  if (!md)
    return NULL;
  SxsPdb *pdb = g_new0(SxsPdb, 1);
  pdb->md = md;
  pdb->n_documents = sxs__metadata_rows(md, TABLE_DOCUMENT);
  pdb->n_methods = sxs__metadata_rows(md, TABLE_METHOD_DEBUG);
  g_mutex_init(&pdb->names_lock);
  pdb->names = g_new0(char *, pdb->n_documents + 1);
  pdb->names_bad = g_new0(guint8, pdb->n_documents + 1);
  return pdb;
}

SxsPdb *sxs__pdb_open(const char *path, char **ret_why) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (ret_why)
      *ret_why = g_strdup(g_strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)SXS_PDB_MAX_BYTES) {
    close(fd);
    if (ret_why)
      *ret_why = g_strdup("not a regular file of at most 256 MiB");
    return NULL;
  }
  gsize len = (gsize)st.st_size;
  guint8 *data = g_try_malloc(len ? len : 1);
  gsize done = 0;
  while (data && done < len) {
    ssize_t r = read(fd, data + done, len - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    done += (gsize)r;
  }
  close(fd);
  if (!data || done != len) {
    g_free(data);
    if (ret_why)
      *ret_why = g_strdup("could not be read");
    return NULL;
  }
  return sxs__pdb_new(data, len, ret_why);
}

const guint8 *sxs__pdb_id(const SxsPdb *pdb) {
  return sxs__metadata_pdb_id(pdb->md);
}

guint sxs__pdb_method_count(const SxsPdb *pdb) {
  return pdb->n_methods;
}

/* A document's name: a separator byte, then blob indices of its parts (II of the portable PDB
 * spec, "Document Name Blob"). NULL when damaged or longer than PDB_MAX_NAME. */
static char *decode_name(const SxsPdb *pdb, guint32 document) {
  Cursor c;
  if (!blob_at(pdb, sxs__metadata_cell(pdb->md, TABLE_DOCUMENT, document, 0), &c) || c.len == 0)
    return NULL;
  guint8 sep = c.p[c.pos++];
  g_autoptr(GString) name = g_string_new(NULL);
  gboolean first = TRUE;
  while (c.pos < c.len) {
    guint32 part;
    Cursor pc = {0};
    if (!read_u(&c, &part) || (part != 0 && !blob_at(pdb, part, &pc)))
      return NULL;
    if (!first && sep)
      g_string_append_c(name, (char)sep);
    first = FALSE;
    if (name->len + pc.len > PDB_MAX_NAME)
      return NULL;
    g_string_append_len(name, (const char *)pc.p, (gssize)pc.len);
  }
  if (memchr(name->str, 0, name->len))
    return NULL;
  return g_utf8_make_valid(name->str, (gssize)name->len);
}

const char *sxs__pdb_document_name(SxsPdb *pdb, guint32 document) {
  if (document == 0 || document > pdb->n_documents)
    return NULL;
  g_mutex_lock(&pdb->names_lock);
  char *name = pdb->names[document - 1];
  if (!name && !pdb->names_bad[document - 1]) {
    name = decode_name(pdb, document);
    if (name)
      pdb->names[document - 1] = name;
    else
      pdb->names_bad[document - 1] = 1;
  }
  g_mutex_unlock(&pdb->names_lock);
  return name;
}

int sxs__pdb_method_points(const SxsPdb *pdb, guint32 method, SxsSeqPoint **ret_points, guint *ret_n, char **ret_why) {
  if (method == 0 || method > pdb->n_methods)
    return -ENOENT;
  guint32 document = sxs__metadata_cell(pdb->md, TABLE_METHOD_DEBUG, method, 0);
  guint32 blob = sxs__metadata_cell(pdb->md, TABLE_METHOD_DEBUG, method, 1);
  guint32 n_docs = pdb->n_documents;
  if (blob == 0) {
    *ret_points = NULL;
    *ret_n = 0;
    return 0;
  }
  Cursor c;
  if (!blob_at(pdb, blob, &c))
    return sxs__pe_fail(ret_why, -EBADMSG, "method 0x%06x: its sequence points lie outside the blob heap", method);
  guint32 local_sig;
  if (!read_u(&c, &local_sig))
    return sxs__pe_fail(ret_why, -EBADMSG, "method 0x%06x: no sequence-point header", method);
  if (document == 0 && !read_u(&c, &document))
    return sxs__pe_fail(ret_why, -EBADMSG, "method 0x%06x: no initial document", method);
  if (document == 0 || document > n_docs)
    return sxs__pe_fail(ret_why, -EBADMSG, "method 0x%06x: document %u of %u", method, document, n_docs);
  /* Every record takes at least two bytes: the blob bounds the count. */
  g_autofree SxsSeqPoint *points = g_new(SxsSeqPoint, c.len / 2 + 1);
  guint n = 0;
  guint32 il = 0, line = 0, column = 0;
  gboolean first = TRUE, have_line = FALSE;
  while (c.pos < c.len) {
    guint32 delta_il;
    if (!read_u(&c, &delta_il))
      goto damaged;
    if (!first && delta_il == 0) { /* document-record */
      if (!read_u(&c, &document) || document == 0 || document > n_docs)
        goto damaged;
      continue;
    }
    if (!first && il + (guint64)delta_il >= PDB_MAX_LINE)
      goto damaged;
    il = first ? delta_il : il + delta_il;
    if (il >= PDB_MAX_LINE)
      goto damaged;
    first = FALSE;
    guint32 delta_lines;
    if (!read_u(&c, &delta_lines) || delta_lines >= PDB_MAX_LINE)
      goto damaged;
    gint64 delta_columns;
    if (delta_lines == 0) {
      guint32 u;
      if (!read_u(&c, &u))
        goto damaged;
      delta_columns = u;
    } else {
      gint32 s;
      if (!read_s(&c, &s))
        goto damaged;
      delta_columns = s;
    }
    if (delta_lines == 0 && delta_columns == 0)
      continue; /* hidden */
    gint64 start_line, start_column;
    if (!have_line) {
      guint32 l, col;
      if (!read_u(&c, &l) || !read_u(&c, &col))
        goto damaged;
      start_line = l;
      start_column = col;
    } else {
      gint32 dl, dc;
      if (!read_s(&c, &dl) || !read_s(&c, &dc))
        goto damaged;
      start_line = (gint64)line + dl;
      start_column = (gint64)column + dc;
    }
    if (start_line <= 0 || start_line >= PDB_MAX_LINE || start_line == SXS_PDB_HIDDEN_LINE || start_column < 0 ||
        start_column >= PDB_MAX_COLUMN || start_line + delta_lines >= PDB_MAX_LINE)
      goto damaged;
    line = (guint32)start_line;
    column = (guint32)start_column;
    have_line = TRUE;
    points[n++] = (SxsSeqPoint){.il_offset = il, .line = line, .document = document};
  }
  *ret_n = n;
  *ret_points = n ? g_steal_pointer(&points) : NULL;
  return 0;
damaged:
  return sxs__pe_fail(ret_why, -EBADMSG, "method 0x%06x: damaged sequence points (byte %zu of %zu)", method, c.pos,
                      c.len);
}

const SxsSeqPoint *sxs__pdb_point_at(const SxsSeqPoint *points, guint n, gint32 il) {
  if (n == 0 || il == NO_MAPPING)
    return NULL;
  if (il == PROLOG)
    return &points[0];
  if (il == EPILOG)
    return &points[n - 1];
  if (il < 0)
    return NULL;
  /* The last point whose offset is at or before il. */
  guint lo = 0, hi = n;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    if (points[mid].il_offset <= (guint32)il)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == 0 ? NULL : &points[lo - 1];
}

guint32 sxs__pdb_first_line(const SxsSeqPoint *points, guint n, guint32 *ret_document) {
  if (n == 0)
    return 0;
  guint32 doc = points[0].document, line = points[0].line;
  for (guint i = 1; i < n; i++)
    if (points[i].document == doc && points[i].line < line)
      line = points[i].line;
  if (ret_document)
    *ret_document = doc;
  return line;
}

gint32 sxs__pdb_il_offset(const COR_DEBUG_IL_TO_NATIVE_MAP *map, guint n, guint32 native) {
  const COR_DEBUG_IL_TO_NATIVE_MAP *holding = NULL, *before = NULL;
  for (guint i = 0; i < n; i++) {
    const COR_DEBUG_IL_TO_NATIVE_MAP *e = &map[i];
    if (e->nativeStartOffset > native)
      continue;
    if (native < e->nativeEndOffset && (!holding || e->nativeStartOffset >= holding->nativeStartOffset))
      holding = e;
    if (!before || e->nativeStartOffset >= before->nativeStartOffset)
      before = e;
  }
  const COR_DEBUG_IL_TO_NATIVE_MAP *e = holding ? holding : before;
  return e ? (gint32)e->ilOffset : NO_MAPPING;
}

/* ---- finding an assembly's PDB ---- */

const char *sxs__pdb_status_name(SxsPdbStatus s) {
  switch (s) {
  case SXS_PDB_FOUND: return "found";
  case SXS_PDB_MISSING: return "missing";
  case SXS_PDB_MISMATCH: return "mismatch";
  case SXS_PDB_WINDOWS: return "windows";
  case SXS_PDB_DAMAGED: return "damaged";
  }
  return "?";
}

/* Is the file at path a Windows (MSF) PDB? */
static gboolean is_windows_pdb(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  guint8 head[SXS_METADATA_MSF_HEAD];
  gboolean msf = read(fd, head, sizeof head) == (ssize_t)sizeof head && sxs__metadata_is_msf(head, sizeof head);
  close(fd);
  return msf;
}

/* The base name of a path written on Windows or Unix. */
static char *any_basename(const char *path) {
  const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
  const char *base = MAX(slash, back);
  return g_strdup(base ? base + 1 : path);
}

static void add_candidate(GPtrArray *list, char *path) {
  for (guint i = 0; i < list->len; i++)
    if (strcmp(list->pdata[i], path) == 0) {
      g_free(path);
      return;
    }
  g_ptr_array_add(list, path);
}

/* Remembers what was found, the first finding of the worst kind winning. */
static void note(SxsPdbStatus *status, char **where, SxsPdbStatus s, char *what) {
  static const int rank[] = {
      [SXS_PDB_FOUND] = 5, [SXS_PDB_MISMATCH] = 4, [SXS_PDB_DAMAGED] = 3, [SXS_PDB_WINDOWS] = 2, [SXS_PDB_MISSING] = 1};
  if (rank[s] > rank[*status]) {
    *status = s;
    g_free(*where);
    *where = what;
  } else {
    g_free(what);
  }
}

SxsPdb *sxs__pdb_for_assembly(const char *assembly_path, const char *const *folders, SxsPdbStatus *ret_status,
                              char **ret_where) {
  SxsPdbStatus status = SXS_PDB_MISSING;
  char *where = NULL;
  g_autofree char *why = NULL;
  SxsPeDebug d = {0};
  int r = sxs__pe_debug_read(assembly_path, &d, &why);
  if (r < 0) {
    *ret_status = r == -EBADMSG ? SXS_PDB_DAMAGED : SXS_PDB_MISSING;
    *ret_where = g_steal_pointer(&why);
    return NULL;
  }
  if (d.embedded) {
    g_autofree char *pdb_why = NULL;
    SxsPdb *pdb = sxs__pdb_new(g_steal_pointer(&d.embedded), d.embedded_len, &pdb_why);
    gboolean match = pdb && (!d.has_codeview || memcmp(sxs__pdb_id(pdb), d.id, sizeof d.id) == 0);
    sxs__pe_debug_clear(&d);
    if (match) {
      *ret_status = SXS_PDB_FOUND;
      *ret_where = g_strdup("embedded");
      return pdb;
    }
    sxs__pdb_free(pdb);
    *ret_status = pdb ? SXS_PDB_MISMATCH : SXS_PDB_DAMAGED;
    *ret_where = pdb ? g_strdup("embedded") : g_strdup_printf("embedded: %s", pdb_why);
    return NULL;
  }
  if (!d.has_codeview) {
    *ret_status = SXS_PDB_MISSING;
    *ret_where = g_strdup("the assembly records no PDB");
    return NULL;
  }
  g_autofree char *dir = g_path_get_dirname(assembly_path);
  g_autofree char *base = g_path_get_basename(assembly_path);
  char *dot = strrchr(base, '.');
  if (dot)
    *dot = 0;
  g_autofree char *own_name = g_strconcat(base, ".pdb", NULL);
  g_autofree char *cv_name = d.pdb_path ? any_basename(d.pdb_path) : NULL;
  g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func(g_free);
  const char *names[] = {cv_name, own_name};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (names[i] && *names[i])
      add_candidate(candidates, g_build_filename(dir, names[i], NULL));
  for (guint f = 0; folders && folders[f]; f++)
    for (guint i = 0; i < G_N_ELEMENTS(names); i++)
      if (names[i] && *names[i])
        add_candidate(candidates, g_build_filename(folders[f], names[i], NULL));
  for (guint i = 0; i < candidates->len; i++) {
    const char *path = candidates->pdata[i];
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
      continue;
    if (is_windows_pdb(path)) {
      note(&status, &where, SXS_PDB_WINDOWS, g_strdup(path));
      continue;
    }
    g_autofree char *pdb_why = NULL;
    SxsPdb *pdb = sxs__pdb_open(path, &pdb_why);
    if (!pdb) {
      note(&status, &where, SXS_PDB_DAMAGED, g_strdup_printf("%s: %s", path, pdb_why));
      continue;
    }
    if (memcmp(sxs__pdb_id(pdb), d.id, sizeof d.id) != 0) {
      note(&status, &where, SXS_PDB_MISMATCH, g_strdup(path));
      sxs__pdb_free(pdb);
      continue;
    }
    sxs__pe_debug_clear(&d);
    g_free(where);
    *ret_status = SXS_PDB_FOUND;
    *ret_where = g_strdup(path);
    return pdb;
  }
  if (status == SXS_PDB_MISSING && !d.portable)
    note(&status, &where, SXS_PDB_WINDOWS, g_strdup(d.pdb_path ? d.pdb_path : own_name));
  sxs__pe_debug_clear(&d);
  *ret_status = status;
  *ret_where = where;
  return NULL;
}
