/* sxs_pdb: portable PDBs and the PE debug directory, read with every offset checked.
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

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define PDB_TABLES 64
#define TABLE_DOCUMENT 0x30
#define TABLE_METHOD_DEBUG 0x31
#define PDB_MAX_NAME 4096        /* longest document name decoded */
#define PE_MAX_SECTIONS 96       /* the PE format's own limit */
#define PE_MAX_DEBUG_ENTRIES 64  /* a debug directory holds a handful */
#define DEFLATE_MAX_RATIO 1032u  /* deflate never expands data more than this */
#define PDB_MAX_LINE 0x20000000u /* lines, IL offsets: below 2^29 (the spec's bounds) */
#define PDB_MAX_COLUMN 0x10000u

/* ---- bytes ---- */

static guint32 le16(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8;
}
static guint32 le32(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}
static guint64 le64(const guint8 *p) {
  return (guint64)le32(p) | (guint64)le32(p + 4) << 32;
}

/* Does [off, off + n) lie within len? Overflow-safe. */
static gboolean fits(guint64 off, guint64 n, guint64 len) {
  return off <= len && n <= len - off;
}

/* A read position within a bounded run of bytes. */
typedef struct {
  const guint8 *p;
  gsize len, pos;
} Cursor;

/* An ECMA-335 compressed unsigned integer (II.23.2): 1, 2 or 4 bytes. */
static gboolean read_cu(Cursor *c, guint32 *ret, guint *ret_size) {
  if (c->pos >= c->len)
    return FALSE;
  guint8 b = c->p[c->pos];
  if ((b & 0x80) == 0) {
    *ret = b;
    *ret_size = 1;
    c->pos += 1;
    return TRUE;
  }
  if ((b & 0xC0) == 0x80) {
    if (c->len - c->pos < 2)
      return FALSE;
    *ret = (guint32)(b & 0x3F) << 8 | c->p[c->pos + 1];
    *ret_size = 2;
    c->pos += 2;
    return TRUE;
  }
  if ((b & 0xE0) == 0xC0) {
    if (c->len - c->pos < 4)
      return FALSE;
    *ret =
        (guint32)(b & 0x1F) << 24 | (guint32)c->p[c->pos + 1] << 16 | (guint32)c->p[c->pos + 2] << 8 | c->p[c->pos + 3];
    *ret_size = 4;
    c->pos += 4;
    return TRUE;
  }
  return FALSE;
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

/* ---- the PE debug directory ---- */

/* Where PE bytes come from: memory, or a file read piece by piece. */
typedef struct {
  const guint8 *data;
  int fd; /* -1: memory */
  guint64 len;
} PeSource;

static gboolean src_read(const PeSource *s, guint64 off, void *buf, gsize n) {
  if (!fits(off, n, s->len))
    return FALSE;
  if (s->fd < 0) {
    memcpy(buf, s->data + off, n);
    return TRUE;
  }
  gsize done = 0;
  while (done < n) {
    ssize_t r = pread(s->fd, (guint8 *)buf + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return FALSE;
    done += (gsize)r;
  }
  return TRUE;
}

void sxs__pe_debug_clear(SxsPeDebug *d) {
  if (!d)
    return;
  g_free(d->pdb_path);
  g_free(d->embedded);
  memset(d, 0, sizeof *d);
}

static int fail(char **ret_why, int rc, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static int fail(char **ret_why, int rc, const char *fmt, ...) {
  if (ret_why) {
    va_list ap;
    va_start(ap, fmt);
    *ret_why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
  }
  return rc;
}

/* Inflates an embedded PDB ("MPDB", its size, raw deflate) into exactly that many bytes. */
static int inflate_embedded(const guint8 *in, gsize in_len, guint32 size, guint8 **ret, char **ret_why) {
  if (size == 0 || size > SXS_PDB_MAX_BYTES || (guint64)size > (guint64)in_len * DEFLATE_MAX_RATIO + 64)
    return fail(ret_why, -EBADMSG, "the embedded PDB states an impossible size (%u bytes from %zu)", size, in_len);
  z_stream z = {0};
  if (inflateInit2(&z, -15) != Z_OK)
    return fail(ret_why, -ENOMEM, "zlib could not start");
  guint8 *out = g_try_malloc(size);
  if (!out) {
    inflateEnd(&z);
    return fail(ret_why, -ENOMEM, "no memory for the embedded PDB (%u bytes)", size);
  }
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)in_len;
  z.next_out = out;
  z.avail_out = size;
  int r = inflate(&z, Z_FINISH);
  gboolean ok = r == Z_STREAM_END && z.total_out == size;
  inflateEnd(&z);
  if (!ok) {
    g_free(out);
    return fail(ret_why, -EBADMSG, "the embedded PDB does not inflate to its stated %u bytes", size);
  }
  *ret = out;
  return 0;
}

/* Where a PE file's data directory and section table are. */
typedef struct {
  guint64 sections; /* file offset of the section table */
  guint n_sections;
  guint8 dirs[16 * 8]; /* the data directory's entries (rva, size), zero past those it has */
} PeHeaders;

/* The DOS, COFF and optional headers: -ENOEXEC when they are no PE file's. */
static int pe_headers(const PeSource *s, PeHeaders *h, char **ret_why) {
  guint8 dos[64];
  if (!src_read(s, 0, dos, sizeof dos) || dos[0] != 'M' || dos[1] != 'Z')
    return fail(ret_why, -ENOEXEC, "not a PE file (no MZ header)");
  guint64 pe = le32(dos + 0x3c);
  guint8 coff[24];
  if (!src_read(s, pe, coff, sizeof coff) || memcmp(coff, "PE\0\0", 4) != 0)
    return fail(ret_why, -ENOEXEC, "not a PE file (no PE signature)");
  h->n_sections = le16(coff + 6);
  guint opt_size = le16(coff + 20);
  guint64 opt = pe + 24;
  h->sections = opt + opt_size;
  guint8 oh[240] = {0};
  guint opt_read = MIN(opt_size, (guint)sizeof oh);
  if (opt_read < 2 || !src_read(s, opt, oh, opt_read))
    return fail(ret_why, -ENOEXEC, "not a PE file (no optional header)");
  guint magic = le16(oh), n_off, dd_off;
  if (magic == 0x10b) {
    n_off = 92;
    dd_off = 96;
  } else if (magic == 0x20b) {
    n_off = 108;
    dd_off = 112;
  } else {
    return fail(ret_why, -ENOEXEC, "not a PE file (optional header magic 0x%x)", magic);
  }
  memset(h->dirs, 0, sizeof h->dirs);
  guint n_dirs = opt_read >= n_off + 4 ? MIN(le32(oh + n_off), 16u) : 0;
  if (opt_read > dd_off)
    memcpy(h->dirs, oh + dd_off, MIN((gsize)n_dirs * 8, (gsize)(opt_read - dd_off)));
  return 0;
}

/* Data directory entry k: its rva and size (both 0 when the file has none). */
static guint32 pe_dir_rva(const PeHeaders *h, guint k) {
  return le32(h->dirs + k * 8);
}
static guint32 pe_dir_size(const PeHeaders *h, guint k) {
  return le32(h->dirs + k * 8 + 4);
}

/* The file offset of [rva, rva + size), through the section whose file data holds all of it:
 * -EBADMSG when none does. */
static int pe_file_offset(const PeSource *s, const PeHeaders *h, guint32 rva, guint32 size, guint64 *ret_off,
                          char **ret_why, const char *what) {
  if (h->n_sections > PE_MAX_SECTIONS)
    return fail(ret_why, -EBADMSG, "%u sections", h->n_sections);
  for (guint i = 0; i < h->n_sections; i++) {
    guint8 sh[40];
    if (!src_read(s, h->sections + (guint64)i * 40, sh, sizeof sh))
      return fail(ret_why, -EBADMSG, "the section table runs past the end of the file");
    guint32 va = le32(sh + 12), raw_size = le32(sh + 16), raw = le32(sh + 20);
    if (rva >= va && fits(rva - va, size, raw_size)) {
      *ret_off = (guint64)raw + (rva - va);
      return 0;
    }
  }
  return fail(ret_why, -EBADMSG, "%s lies in no section", what);
}

static int pe_parse(const PeSource *s, SxsPeDebug *ret, char **ret_why) {
  PeHeaders h;
  int r = pe_headers(s, &h, ret_why);
  if (r < 0)
    return r;
  guint32 dbg_rva = pe_dir_rva(&h, 6), dbg_size = pe_dir_size(&h, 6);
  if (dbg_rva == 0 || dbg_size == 0)
    return 0; /* no debug directory: nothing recorded */
  guint64 dbg_off = 0;
  r = pe_file_offset(s, &h, dbg_rva, dbg_size, &dbg_off, ret_why, "the debug directory");
  if (r < 0)
    return r;
  guint n_entries = MIN(dbg_size / 28, (guint)PE_MAX_DEBUG_ENTRIES);
  for (guint i = 0; i < n_entries; i++) {
    guint8 e[28];
    if (!src_read(s, dbg_off + (guint64)i * 28, e, sizeof e))
      return fail(ret_why, -EBADMSG, "the debug directory runs past the end of the file");
    guint32 stamp = le32(e + 4), minor = le16(e + 10), type = le32(e + 12), size = le32(e + 16), raw = le32(e + 24);
    if (type == 2 && !ret->has_codeview) {
      guint8 cv[24];
      if (size < 24 || !src_read(s, raw, cv, sizeof cv) || memcmp(cv, "RSDS", 4) != 0)
        continue; /* another CodeView kind (NB10): no id we can check */
      ret->has_codeview = TRUE;
      ret->portable = minor == 0x504d;
      memcpy(ret->id, cv + 4, 16);
      ret->id[16] = (guint8)stamp;
      ret->id[17] = (guint8)(stamp >> 8);
      ret->id[18] = (guint8)(stamp >> 16);
      ret->id[19] = (guint8)(stamp >> 24);
      guint path_len = MIN(size - 24, (guint32)PDB_MAX_NAME);
      g_autofree char *path = g_malloc0(path_len + 1);
      if (path_len > 0 && src_read(s, (guint64)raw + 24, path, path_len) && path[0])
        ret->pdb_path = g_utf8_make_valid(path, -1);
    } else if (type == 17 && !ret->embedded) {
      guint8 head[8];
      if (size < 8 || !src_read(s, raw, head, sizeof head) || memcmp(head, "MPDB", 4) != 0)
        return fail(ret_why, -EBADMSG, "the embedded PDB entry has no MPDB header");
      gsize in_len = size - 8;
      if (!fits((guint64)raw + 8, in_len, s->len))
        return fail(ret_why, -EBADMSG, "the embedded PDB runs past the end of the file");
      g_autofree guint8 *in = g_try_malloc(in_len ? in_len : 1);
      if (!in || !src_read(s, (guint64)raw + 8, in, in_len))
        return fail(ret_why, -EBADMSG, "the embedded PDB could not be read");
      guint32 usize = le32(head + 4);
      int r = inflate_embedded(in, in_len, usize, &ret->embedded, ret_why);
      if (r < 0)
        return r;
      ret->embedded_len = usize;
    }
  }
  return 0;
}

int sxs__pe_debug_parse(const guint8 *data, gsize len, SxsPeDebug *ret, char **ret_why) {
  SxsPeDebug d = {0};
  PeSource s = {.data = data, .fd = -1, .len = len};
  int r = pe_parse(&s, &d, ret_why);
  if (r < 0) {
    sxs__pe_debug_clear(&d);
    return r;
  }
  *ret = d;
  return 0;
}

int sxs__pe_debug_read(const char *path, SxsPeDebug *ret, char **ret_why) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(ret_why, -errno, "%s: %s", path, g_strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fail(ret_why, -ENOEXEC, "%s: not a regular file", path);
  }
  SxsPeDebug d = {0};
  PeSource s = {.fd = fd, .len = (guint64)st.st_size};
  int r = pe_parse(&s, &d, ret_why);
  close(fd);
  if (r < 0) {
    sxs__pe_debug_clear(&d);
    return r;
  }
  *ret = d;
  return 0;
}

/* ---- ECMA-335 table schema ---- */

/* Column kinds: fixed sizes, heap indices, an index into table T (COL_TABLE + T), a coded index
 * (COL_CODED + k). */
enum { COL_END = 0, COL_U16, COL_U32, COL_STR, COL_GUID, COL_BLOB, COL_TABLE = 0x100, COL_CODED = 0x200 };
#define COL_T(t) (COL_TABLE + (t))
#define COL_C(k) (COL_CODED + (k))

enum {
  CI_TYPE_DEF_OR_REF,
  CI_HAS_CONSTANT,
  CI_HAS_CUSTOM_ATTRIBUTE,
  CI_HAS_FIELD_MARSHAL,
  CI_HAS_DECL_SECURITY,
  CI_MEMBER_REF_PARENT,
  CI_HAS_SEMANTICS,
  CI_METHOD_DEF_OR_REF,
  CI_MEMBER_FORWARDED,
  CI_IMPLEMENTATION,
  CI_CUSTOM_ATTRIBUTE_TYPE,
  CI_RESOLUTION_SCOPE,
  CI_TYPE_OR_METHOD_DEF,
  CI_HAS_CUSTOM_DEBUG_INFORMATION,
  CI_COUNT
};

#define NONE 0xff /* a tag no table has */

/* Each coded index: its tag bits and the tables its tags name. */
static const struct {
  guint bits;
  guint n;
  guint8 tables[28];
} coded[CI_COUNT] = {
    [CI_TYPE_DEF_OR_REF] = {2, 3, {0x02, 0x01, 0x1B}},
    [CI_HAS_CONSTANT] = {2, 3, {0x04, 0x08, 0x17}},
    [CI_HAS_CUSTOM_ATTRIBUTE] = {5, 22, {0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0A, 0x00, 0x0E, 0x17, 0x14,
                                         0x11, 0x1A, 0x1B, 0x20, 0x23, 0x26, 0x27, 0x28, 0x2A, 0x2C, 0x2B}},
    [CI_HAS_FIELD_MARSHAL] = {1, 2, {0x04, 0x08}},
    [CI_HAS_DECL_SECURITY] = {2, 3, {0x02, 0x06, 0x20}},
    [CI_MEMBER_REF_PARENT] = {3, 5, {0x02, 0x01, 0x1A, 0x06, 0x1B}},
    [CI_HAS_SEMANTICS] = {1, 2, {0x14, 0x17}},
    [CI_METHOD_DEF_OR_REF] = {1, 2, {0x06, 0x0A}},
    [CI_MEMBER_FORWARDED] = {1, 2, {0x04, 0x06}},
    [CI_IMPLEMENTATION] = {2, 3, {0x26, 0x23, 0x27}},
    [CI_CUSTOM_ATTRIBUTE_TYPE] = {3, 5, {NONE, NONE, 0x06, 0x0A, NONE}},
    [CI_RESOLUTION_SCOPE] = {2, 4, {0x00, 0x1A, 0x23, 0x01}},
    [CI_TYPE_OR_METHOD_DEF] = {1, 2, {0x02, 0x06}},
    [CI_HAS_CUSTOM_DEBUG_INFORMATION] = {5, 27, {0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0A, 0x00, 0x0E,
                                                 0x17, 0x14, 0x11, 0x1A, 0x1B, 0x20, 0x23, 0x26, 0x27,
                                                 0x28, 0x2A, 0x2C, 0x2B, 0x30, 0x32, 0x33, 0x34, 0x35}},
};

/* Every table's columns (ECMA-335 II.22 and the portable PDB tables), COL_END-terminated. */
static const guint16 schema[PDB_TABLES][10] = {
    [0x00] = {COL_U16, COL_STR, COL_GUID, COL_GUID, COL_GUID},                                   /* Module */
    [0x01] = {COL_C(CI_RESOLUTION_SCOPE), COL_STR, COL_STR},                                     /* TypeRef */
    [0x02] = {COL_U32, COL_STR, COL_STR, COL_C(CI_TYPE_DEF_OR_REF), COL_T(0x04), COL_T(0x06)},   /* TypeDef */
    [0x03] = {COL_T(0x04)},                                                                      /* FieldPtr */
    [0x04] = {COL_U16, COL_STR, COL_BLOB},                                                       /* Field */
    [0x05] = {COL_T(0x06)},                                                                      /* MethodPtr */
    [0x06] = {COL_U32, COL_U16, COL_U16, COL_STR, COL_BLOB, COL_T(0x08)},                        /* MethodDef */
    [0x07] = {COL_T(0x08)},                                                                      /* ParamPtr */
    [0x08] = {COL_U16, COL_U16, COL_STR},                                                        /* Param */
    [0x09] = {COL_T(0x02), COL_C(CI_TYPE_DEF_OR_REF)},                                           /* InterfaceImpl */
    [0x0A] = {COL_C(CI_MEMBER_REF_PARENT), COL_STR, COL_BLOB},                                   /* MemberRef */
    [0x0B] = {COL_U16, COL_C(CI_HAS_CONSTANT), COL_BLOB},                                        /* Constant */
    [0x0C] = {COL_C(CI_HAS_CUSTOM_ATTRIBUTE), COL_C(CI_CUSTOM_ATTRIBUTE_TYPE), COL_BLOB},        /* CustomAttribute */
    [0x0D] = {COL_C(CI_HAS_FIELD_MARSHAL), COL_BLOB},                                            /* FieldMarshal */
    [0x0E] = {COL_U16, COL_C(CI_HAS_DECL_SECURITY), COL_BLOB},                                   /* DeclSecurity */
    [0x0F] = {COL_U16, COL_U32, COL_T(0x02)},                                                    /* ClassLayout */
    [0x10] = {COL_U32, COL_T(0x04)},                                                             /* FieldLayout */
    [0x11] = {COL_BLOB},                                                                         /* StandAloneSig */
    [0x12] = {COL_T(0x02), COL_T(0x14)},                                                         /* EventMap */
    [0x13] = {COL_T(0x14)},                                                                      /* EventPtr */
    [0x14] = {COL_U16, COL_STR, COL_C(CI_TYPE_DEF_OR_REF)},                                      /* Event */
    [0x15] = {COL_T(0x02), COL_T(0x17)},                                                         /* PropertyMap */
    [0x16] = {COL_T(0x17)},                                                                      /* PropertyPtr */
    [0x17] = {COL_U16, COL_STR, COL_BLOB},                                                       /* Property */
    [0x18] = {COL_U16, COL_T(0x06), COL_C(CI_HAS_SEMANTICS)},                                    /* MethodSemantics */
    [0x19] = {COL_T(0x02), COL_C(CI_METHOD_DEF_OR_REF), COL_C(CI_METHOD_DEF_OR_REF)},            /* MethodImpl */
    [0x1A] = {COL_STR},                                                                          /* ModuleRef */
    [0x1B] = {COL_BLOB},                                                                         /* TypeSpec */
    [0x1C] = {COL_U16, COL_C(CI_MEMBER_FORWARDED), COL_STR, COL_T(0x1A)},                        /* ImplMap */
    [0x1D] = {COL_U32, COL_T(0x04)},                                                             /* FieldRVA */
    [0x1E] = {COL_U32, COL_U32},                                                                 /* EncLog */
    [0x1F] = {COL_U32},                                                                          /* EncMap */
    [0x20] = {COL_U32, COL_U16, COL_U16, COL_U16, COL_U16, COL_U32, COL_BLOB, COL_STR, COL_STR}, /* Assembly */
    [0x21] = {COL_U32},                                                                          /* AssemblyProcessor */
    [0x22] = {COL_U32, COL_U32, COL_U32},                                                        /* AssemblyOS */
    [0x23] = {COL_U16, COL_U16, COL_U16, COL_U16, COL_U32, COL_BLOB, COL_STR, COL_STR, COL_BLOB}, /* AssemblyRef */
    [0x24] = {COL_U32, COL_T(0x23)},                                                 /* AssemblyRefProcessor */
    [0x25] = {COL_U32, COL_U32, COL_U32, COL_T(0x23)},                               /* AssemblyRefOS */
    [0x26] = {COL_U32, COL_STR, COL_BLOB},                                           /* File */
    [0x27] = {COL_U32, COL_U32, COL_STR, COL_STR, COL_C(CI_IMPLEMENTATION)},         /* ExportedType */
    [0x28] = {COL_U32, COL_U32, COL_STR, COL_C(CI_IMPLEMENTATION)},                  /* ManifestResource */
    [0x29] = {COL_T(0x02), COL_T(0x02)},                                             /* NestedClass */
    [0x2A] = {COL_U16, COL_U16, COL_C(CI_TYPE_OR_METHOD_DEF), COL_STR},              /* GenericParam */
    [0x2B] = {COL_C(CI_METHOD_DEF_OR_REF), COL_BLOB},                                /* MethodSpec */
    [0x2C] = {COL_T(0x2A), COL_C(CI_TYPE_DEF_OR_REF)},                               /* GenericParamConstraint */
    [0x30] = {COL_BLOB, COL_GUID, COL_BLOB, COL_GUID},                               /* Document */
    [0x31] = {COL_T(0x30), COL_BLOB},                                                /* MethodDebugInformation */
    [0x32] = {COL_T(0x06), COL_T(0x35), COL_T(0x33), COL_T(0x34), COL_U32, COL_U32}, /* LocalScope */
    [0x33] = {COL_U16, COL_U16, COL_STR},                                            /* LocalVariable */
    [0x34] = {COL_STR, COL_BLOB},                                                    /* LocalConstant */
    [0x35] = {COL_T(0x35), COL_BLOB},                                                /* ImportScope */
    [0x36] = {COL_T(0x06), COL_T(0x06)},                                             /* StateMachineMethod */
    [0x37] = {COL_C(CI_HAS_CUSTOM_DEBUG_INFORMATION), COL_GUID, COL_BLOB},           /* CustomDebugInformation */
};

/* Tables a metadata stream may hold: those with a schema. */
static gboolean table_known(guint t) {
  return t < PDB_TABLES && schema[t][0] != COL_END;
}

/* ---- the portable PDB ---- */

typedef struct {
  guint32 offset, size;
} Heap;

struct SxsPdb {
  guint8 *data;
  gsize len;
  guint8 id[20];
  Heap blob, strings, guids;
  guint8 heap_sizes;             /* #~'s heap index size bits */
  guint32 rows[PDB_TABLES];      /* of every table, the type-system ones from #Pdb */
  guint64 table_off[PDB_TABLES]; /* where each present table's rows begin (file offset) */
  guint row_size[PDB_TABLES];
  guint doc_name_col; /* Document.Name: its size (2 or 4) */
  guint mdi_doc_size, mdi_points_off, mdi_points_size;
  GMutex names_lock; /* guards names */
  char **names;      /* Document row - 1 -> decoded name, NULL until asked; owned */
  guint8 *names_bad; /* Document row - 1 -> its name was damaged */
};

static guint heap_index_size(guint8 heap_sizes, guint8 bit) {
  return heap_sizes & bit ? 4 : 2;
}

static guint column_size(const guint32 *rows, guint8 heap_sizes, guint16 col) {
  switch (col) {
  case COL_U16: return 2;
  case COL_U32: return 4;
  case COL_STR: return heap_index_size(heap_sizes, 0x01);
  case COL_GUID: return heap_index_size(heap_sizes, 0x02);
  case COL_BLOB: return heap_index_size(heap_sizes, 0x04);
  default: break;
  }
  if (col >= COL_CODED) {
    guint k = col - COL_CODED;
    guint32 max = 0;
    for (guint i = 0; i < coded[k].n; i++)
      if (coded[k].tables[i] != NONE)
        max = MAX(max, rows[coded[k].tables[i]]);
    return max < (1u << (16 - coded[k].bits)) ? 2 : 4;
  }
  return rows[col - COL_TABLE] < 0x10000 ? 2 : 4;
}

static guint32 read_index(const guint8 *p, guint size) {
  return size == 2 ? le16(p) : le32(p);
}

/* A blob of the #Blob heap: its bytes, bounded by the heap. */
static gboolean blob_at(const SxsPdb *pdb, guint32 index, Cursor *ret) {
  if (index >= pdb->blob.size)
    return FALSE;
  Cursor c = {.p = pdb->data + pdb->blob.offset, .len = pdb->blob.size, .pos = index};
  guint32 n;
  if (!read_u(&c, &n) || n > c.len - c.pos)
    return FALSE;
  *ret = (Cursor){.p = c.p + c.pos, .len = n, .pos = 0};
  return TRUE;
}

void sxs__pdb_free(SxsPdb *pdb) {
  if (!pdb)
    return;
  if (pdb->names) {
    for (guint i = 0; i < pdb->rows[TABLE_DOCUMENT]; i++)
      g_free(pdb->names[i]);
    g_free(pdb->names);
  }
  g_free(pdb->names_bad);
  g_mutex_clear(&pdb->names_lock);
  g_free(pdb->data);
  g_free(pdb);
}

static SxsPdb *pdb_fail(SxsPdb *pdb, char **ret_why, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static SxsPdb *pdb_fail(SxsPdb *pdb, char **ret_why, const char *fmt, ...) {
  if (ret_why) {
    va_list ap;
    va_start(ap, fmt);
    *ret_why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
  }
  sxs__pdb_free(pdb);
  return NULL;
}

static const char msf_magic[] = "Microsoft C/C++ MSF 7.00";

/* Opens ECMA-335 metadata ("BSJB"): a portable PDB (portable_pdb: its #Pdb stream required) or
 * an assembly's own. */
static SxsPdb *metadata_new(guint8 *data, gsize len, gboolean portable_pdb, char **ret_why) {
  SxsPdb *pdb = g_new0(SxsPdb, 1);
  g_mutex_init(&pdb->names_lock);
  pdb->data = data;
  pdb->len = len;
  if (len >= sizeof msf_magic - 1 && memcmp(data, msf_magic, sizeof msf_magic - 1) == 0)
    return pdb_fail(pdb, ret_why, "a Windows PDB, not a portable one");
  if (len > SXS_PDB_MAX_BYTES)
    return pdb_fail(pdb, ret_why, "larger than %u bytes", SXS_PDB_MAX_BYTES);
  if (len < 20 || le32(data) != 0x424A5342)
    return pdb_fail(pdb, ret_why, "no metadata signature (BSJB)");
  guint32 ver_len = le32(data + 12);
  if (ver_len > 255 || !fits(16 + (guint64)ver_len, 4, len))
    return pdb_fail(pdb, ret_why, "a metadata version string of %u bytes", ver_len);
  guint n_streams = le16(data + 16 + ver_len + 2);
  guint64 pos = 16 + (guint64)ver_len + 4;
  gboolean have_pdb = FALSE, have_tables = FALSE;
  Heap pdb_stream = {0}, tables = {0};
  for (guint i = 0; i < n_streams; i++) {
    if (!fits(pos, 8, len))
      return pdb_fail(pdb, ret_why, "stream headers run past the end");
    guint32 off = le32(data + pos), size = le32(data + pos + 4);
    pos += 8;
    /* The name: NUL-terminated, at most 32 bytes, padded to 4. */
    gsize name_len = 0;
    while (name_len < 32 && pos + name_len < len && data[pos + name_len])
      name_len++;
    if (name_len == 32 || pos + name_len >= len)
      return pdb_fail(pdb, ret_why, "a stream name without its end");
    char name[33];
    memcpy(name, data + pos, name_len);
    name[name_len] = 0;
    pos += (name_len + 4) & ~(gsize)3;
    if (!fits(off, size, len))
      return pdb_fail(pdb, ret_why, "stream %s runs past the end", name);
    Heap h = {off, size};
    if (strcmp(name, "#Pdb") == 0) {
      pdb_stream = h;
      have_pdb = TRUE;
    } else if (strcmp(name, "#~") == 0) {
      tables = h;
      have_tables = TRUE;
    } else if (strcmp(name, "#Blob") == 0) {
      pdb->blob = h;
    } else if (strcmp(name, "#Strings") == 0) {
      pdb->strings = h;
    } else if (strcmp(name, "#GUID") == 0) {
      pdb->guids = h;
    }
  }
  if (portable_pdb && !have_pdb)
    return pdb_fail(pdb, ret_why, "no #Pdb stream: metadata, but not a portable PDB");
  if (!portable_pdb && have_pdb)
    return pdb_fail(pdb, ret_why, "a portable PDB, not an assembly's metadata");
  if (!have_tables)
    return pdb_fail(pdb, ret_why, "no #~ stream");

  /* #Pdb: the id, the entry point, then the row counts of the type-system tables referenced. */
  const guint8 *ps = data + pdb_stream.offset;
  if (have_pdb && pdb_stream.size < 32)
    return pdb_fail(pdb, ret_why, "a #Pdb stream of %u bytes", pdb_stream.size);
  if (have_pdb)
    memcpy(pdb->id, ps, 20);
  guint64 referenced = have_pdb ? le64(ps + 24) : 0;
  guint64 rpos = 32;
  for (guint t = 0; t < PDB_TABLES; t++) {
    if (!(referenced & (G_GUINT64_CONSTANT(1) << t)))
      continue;
    if (t >= TABLE_DOCUMENT || !table_known(t))
      return pdb_fail(pdb, ret_why, "#Pdb refers to table 0x%02x, which is no type-system table", t);
    if (!fits(rpos, 4, pdb_stream.size))
      return pdb_fail(pdb, ret_why, "the #Pdb row counts run past its end");
    pdb->rows[t] = le32(ps + rpos);
    rpos += 4;
  }

  /* #~: heap index sizes, the tables present and their row counts, then the rows. */
  const guint8 *ts = data + tables.offset;
  if (tables.size < 24)
    return pdb_fail(pdb, ret_why, "a #~ stream of %u bytes", tables.size);
  guint8 heap_sizes = ts[6];
  pdb->heap_sizes = heap_sizes;
  guint64 valid = le64(ts + 8);
  guint64 tpos = 24;
  for (guint t = 0; t < PDB_TABLES; t++) {
    if (!(valid & (G_GUINT64_CONSTANT(1) << t)))
      continue;
    if (!table_known(t))
      return pdb_fail(pdb, ret_why, "table 0x%02x is not an ECMA-335 or portable PDB table", t);
    if (!fits(tpos, 4, tables.size))
      return pdb_fail(pdb, ret_why, "the #~ row counts run past its end");
    pdb->rows[t] = le32(ts + tpos);
    tpos += 4;
  }
  if (heap_sizes & 0x40)
    tpos += 4; /* extra data (uncompressed metadata) */
  for (guint t = 0; t < PDB_TABLES; t++)
    if (pdb->rows[t] >= (1u << 24))
      return pdb_fail(pdb, ret_why, "table 0x%02x claims %u rows", t, pdb->rows[t]);
  for (guint t = 0; t < PDB_TABLES; t++) {
    if (!(valid & (G_GUINT64_CONSTANT(1) << t)))
      continue;
    guint size = 0;
    for (guint c = 0; c < G_N_ELEMENTS(schema[t]) && schema[t][c] != COL_END; c++)
      size += column_size(pdb->rows, heap_sizes, schema[t][c]);
    guint64 bytes = (guint64)pdb->rows[t] * size;
    if (!fits(tpos, bytes, tables.size))
      return pdb_fail(pdb, ret_why, "table 0x%02x (%u rows of %u bytes) runs past the end of #~", t, pdb->rows[t],
                      size);
    pdb->table_off[t] = tables.offset + tpos;
    pdb->row_size[t] = size;
    tpos += bytes;
  }
  if (!(valid & (G_GUINT64_CONSTANT(1) << TABLE_DOCUMENT)))
    pdb->rows[TABLE_DOCUMENT] = 0;
  if (!(valid & (G_GUINT64_CONSTANT(1) << TABLE_METHOD_DEBUG)))
    pdb->rows[TABLE_METHOD_DEBUG] = 0;
  pdb->doc_name_col = column_size(pdb->rows, heap_sizes, COL_BLOB);
  pdb->mdi_doc_size = column_size(pdb->rows, heap_sizes, COL_T(TABLE_DOCUMENT));
  pdb->mdi_points_off = pdb->mdi_doc_size;
  pdb->mdi_points_size = column_size(pdb->rows, heap_sizes, COL_BLOB);
  pdb->names = g_new0(char *, pdb->rows[TABLE_DOCUMENT] + 1);
  pdb->names_bad = g_new0(guint8, pdb->rows[TABLE_DOCUMENT] + 1);
  return pdb;
}

SxsPdb *sxs__pdb_new(guint8 *data, gsize len, char **ret_why) {
  return metadata_new(data, len, TRUE, ret_why);
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

/* ---- an assembly's own metadata ---- */

SxsPdb *sxs__metadata_open_assembly(const char *path, char **ret_why) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fail(ret_why, -errno, "%s", g_strerror(errno));
    return NULL;
  }
  struct stat st;
  PeSource s = {.fd = fd};
  PeHeaders h;
  guint64 cli_off = 0, md_off = 0;
  guint8 cli[16];
  guint8 *data = NULL;
  guint32 md_size = 0;
  /* The CLI header (data directory 14), then the metadata it points to. */
  int r = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ? fail(ret_why, -ENOEXEC, "not a regular file") : 0;
  if (r == 0) {
    s.len = (guint64)st.st_size;
    r = pe_headers(&s, &h, ret_why);
  }
  if (r == 0 && pe_dir_rva(&h, 14) == 0)
    r = fail(ret_why, -ENOEXEC, "no CLI header: not a .NET assembly");
  if (r == 0)
    r = pe_file_offset(&s, &h, pe_dir_rva(&h, 14), sizeof cli, &cli_off, ret_why, "the CLI header");
  if (r == 0 && !src_read(&s, cli_off, cli, sizeof cli))
    r = fail(ret_why, -EBADMSG, "the CLI header could not be read");
  if (r == 0) {
    md_size = le32(cli + 12);
    if (md_size < 20 || md_size > SXS_PDB_MAX_BYTES)
      r = fail(ret_why, -EBADMSG, "metadata of %u bytes", md_size);
  }
  if (r == 0)
    r = pe_file_offset(&s, &h, le32(cli + 8), md_size, &md_off, ret_why, "the metadata");
  if (r == 0) {
    data = g_try_malloc(md_size);
    if (!data || !src_read(&s, md_off, data, md_size)) {
      g_clear_pointer(&data, g_free);
      r = fail(ret_why, -EBADMSG, "the metadata could not be read");
    }
  }
  close(fd);
  return r == 0 ? metadata_new(data, md_size, FALSE, ret_why) : NULL;
}

/* A NUL-terminated string of the #Strings heap, or NULL. */
static const char *string_at(const SxsPdb *md, guint32 index) {
  if (index >= md->strings.size)
    return NULL;
  const char *s = (const char *)md->data + md->strings.offset + index;
  return memchr(s, 0, md->strings.size - index) ? s : NULL;
}

/* Column c (0-based) of row rid (1-based) of table t: its index or value. */
static guint32 column_of(const SxsPdb *md, guint t, guint32 rid, guint c) {
  const guint8 *row = md->data + md->table_off[t] + (guint64)(rid - 1) * md->row_size[t];
  guint off = 0;
  for (guint i = 0; i < c; i++)
    off += column_size(md->rows, md->heap_sizes, schema[t][i]);
  guint size = column_size(md->rows, md->heap_sizes, schema[t][c]);
  return size == 2 ? le16(row + off) : le32(row + off);
}

#define TABLE_TYPE_DEF 0x02
#define TABLE_METHOD_DEF 0x06
#define TABLE_NESTED_CLASS 0x29

/* The TypeDef that encloses nested type td (NestedClass is sorted by its first column), or 0. */
static guint32 enclosing_type(const SxsPdb *md, guint32 td) {
  guint32 lo = 1, hi = md->rows[TABLE_NESTED_CLASS] + 1;
  while (lo < hi) {
    guint32 mid = lo + (hi - lo) / 2, nested = column_of(md, TABLE_NESTED_CLASS, mid, 0);
    if (nested == td)
      return column_of(md, TABLE_NESTED_CLASS, mid, 1);
    if (nested < td)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

char *sxs__metadata_method_name(const SxsPdb *md, guint32 token) {
  guint32 rid = token & 0xFFFFFFu;
  if (token >> 24 != TABLE_METHOD_DEF || rid == 0 || rid > md->rows[TABLE_METHOD_DEF])
    return NULL;
  const char *method = string_at(md, column_of(md, TABLE_METHOD_DEF, rid, 3));
  if (!method)
    return NULL;
  /* Its type: the last TypeDef whose method list starts at or before it (the lists run in row
   * order, each up to the next type's start). */
  guint32 lo = 1, hi = md->rows[TABLE_TYPE_DEF] + 1, owner = 0;
  while (lo < hi) {
    guint32 mid = lo + (hi - lo) / 2;
    if (column_of(md, TABLE_TYPE_DEF, mid, 5) <= rid) {
      owner = mid;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  /* Namespace.Outer.Inner, as GetTypeDefProps spells each (a nested type has no namespace). */
  g_autoptr(GString) type = g_string_new(NULL);
  for (guint depth = 0; owner != 0 && owner <= md->rows[TABLE_TYPE_DEF] && depth < 16; depth++) {
    const char *name = string_at(md, column_of(md, TABLE_TYPE_DEF, owner, 1));
    const char *ns = string_at(md, column_of(md, TABLE_TYPE_DEF, owner, 2));
    if (!name || !ns)
      return NULL;
    g_autofree char *part = *ns ? g_strconcat(ns, ".", name, NULL) : g_strdup(name);
    if (type->len)
      g_string_prepend_c(type, '.');
    g_string_prepend(type, part);
    owner = enclosing_type(md, owner);
  }
  g_autofree char *full =
      type->len && strcmp(type->str, "<Module>") != 0 ? g_strconcat(type->str, ".", method, NULL) : g_strdup(method);
  return g_utf8_make_valid(full, -1);
}

const guint8 *sxs__pdb_id(const SxsPdb *pdb) {
  return pdb->id;
}

guint sxs__pdb_method_count(const SxsPdb *pdb) {
  return pdb->rows[TABLE_METHOD_DEBUG];
}

/* A document's name: a separator byte, then blob indices of its parts (II of the portable PDB
 * spec, "Document Name Blob"). NULL when damaged or longer than PDB_MAX_NAME. */
static char *decode_name(const SxsPdb *pdb, guint32 document) {
  const guint8 *row =
      pdb->data + pdb->table_off[TABLE_DOCUMENT] + (guint64)(document - 1) * pdb->row_size[TABLE_DOCUMENT];
  Cursor c;
  if (!blob_at(pdb, read_index(row, pdb->doc_name_col), &c) || c.len == 0)
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
  if (document == 0 || document > pdb->rows[TABLE_DOCUMENT])
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
  if (method == 0 || method > pdb->rows[TABLE_METHOD_DEBUG])
    return -ENOENT;
  const guint8 *row =
      pdb->data + pdb->table_off[TABLE_METHOD_DEBUG] + (guint64)(method - 1) * pdb->row_size[TABLE_METHOD_DEBUG];
  guint32 document = read_index(row, pdb->mdi_doc_size);
  guint32 blob = read_index(row + pdb->mdi_points_off, pdb->mdi_points_size);
  guint32 n_docs = pdb->rows[TABLE_DOCUMENT];
  if (blob == 0) {
    *ret_points = NULL;
    *ret_n = 0;
    return 0;
  }
  Cursor c;
  if (!blob_at(pdb, blob, &c))
    return fail(ret_why, -EBADMSG, "method 0x%06x: its sequence points lie outside the blob heap", method);
  guint32 local_sig;
  if (!read_u(&c, &local_sig))
    return fail(ret_why, -EBADMSG, "method 0x%06x: no sequence-point header", method);
  if (document == 0 && !read_u(&c, &document))
    return fail(ret_why, -EBADMSG, "method 0x%06x: no initial document", method);
  if (document == 0 || document > n_docs)
    return fail(ret_why, -EBADMSG, "method 0x%06x: document %u of %u", method, document, n_docs);
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
  return fail(ret_why, -EBADMSG, "method 0x%06x: damaged sequence points (byte %zu of %zu)", method, c.pos, c.len);
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
  char head[sizeof msf_magic - 1];
  gboolean msf = read(fd, head, sizeof head) == (ssize_t)sizeof head && memcmp(head, msf_magic, sizeof head) == 0;
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
    note(&status, &where, SXS_PDB_WINDOWS, g_strdup("the assembly names a Windows PDB"));
  sxs__pe_debug_clear(&d);
  *ret_status = status;
  *ret_where = where;
  return NULL;
}
