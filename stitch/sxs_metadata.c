/* sxs_metadata: the #~ tables of ECMA-335 metadata and the heaps they index.
 *
 *   metadata root (sxs_pe)   #~ stream                          heaps
 *   ---------------------    ---------                          -----
 *   #~ #Strings #Blob        heap index sizes, valid tables,    #Strings: NUL-terminated UTF-8
 *   #GUID [#Pdb]             row counts, then each table's      #Blob: compressed length, bytes
 *                            rows, in table order               #GUID: 16 bytes each
 *   [#Pdb]: PDB id, entry point, row counts of the assembly's type-system tables (a portable PDB's
 *   columns index into the assembly's tables, so their sizes come from those counts)
 *
 *   MethodDef 0x06000123 -> row 0x123: Name (#Strings); its type: the last TypeDef whose method
 *   list starts at or before 0x123; an enclosing type: NestedClass (sorted by nested type). */
#include "sxs_metadata.h"
#include "sxs_pe.h"

#include <errno.h>
#include <string.h>

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
static const guint16 schema[SXS_METADATA_TABLES][10] = {
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
  return t < SXS_METADATA_TABLES && schema[t][0] != COL_END;
}

typedef struct {
  guint32 offset, size;
} Heap;

struct SxsMetadata {
  guint8 *data;
  gsize len;
  guint8 pdb_id[20];
  Heap blob, strings, guids;
  guint8 heap_sizes;                      /* #~'s heap index size bits */
  guint32 rows[SXS_METADATA_TABLES];      /* of every table, a PDB's type-system ones from #Pdb */
  guint64 table_off[SXS_METADATA_TABLES]; /* where each present table's rows begin */
  guint row_size[SXS_METADATA_TABLES];
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

void sxs__metadata_free(SxsMetadata *md) {
  if (!md)
    return;
  g_free(md->data);
  g_free(md);
}

static SxsMetadata *metadata_fail(SxsMetadata *md, char **ret_why, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static SxsMetadata *metadata_fail(SxsMetadata *md, char **ret_why, const char *fmt, ...) {
  if (ret_why) {
    va_list ap;
    va_start(ap, fmt);
    *ret_why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
  }
  sxs__metadata_free(md);
  return NULL;
}

static const char msf_magic[] = "Microsoft C/C++ MSF 7.00";
G_STATIC_ASSERT(sizeof msf_magic - 1 == SXS_METADATA_MSF_HEAD);

gboolean sxs__metadata_is_msf(const guint8 *head, gsize len) {
  return len >= sizeof msf_magic - 1 && memcmp(head, msf_magic, sizeof msf_magic - 1) == 0;
}

SxsMetadata *sxs__metadata_new(guint8 *data, gsize len, SxsMetadataKind kind, char **ret_why) {
  SxsMetadata *md = g_new0(SxsMetadata, 1);
  md->data = data;
  md->len = len;
  if (sxs__metadata_is_msf(data, len))
    return metadata_fail(md, ret_why, "a Windows PDB, not a portable one");
  if (len > SXS_METADATA_MAX_BYTES)
    return metadata_fail(md, ret_why, "larger than %u bytes", SXS_METADATA_MAX_BYTES);
  SxsPeStream streams[SXS_PE_MAX_STREAMS];
  guint n_streams = 0;
  g_autofree char *why = NULL;
  if (sxs__pe_streams(data, len, streams, &n_streams, &why) < 0)
    return metadata_fail(md, ret_why, "%s", why);
  const SxsPeStream *pdb_stream = sxs__pe_stream(streams, n_streams, "#Pdb");
  const SxsPeStream *tables = sxs__pe_stream(streams, n_streams, "#~");
  const SxsPeStream *s;
  if ((s = sxs__pe_stream(streams, n_streams, "#Blob")))
    md->blob = (Heap){s->offset, s->size};
  if ((s = sxs__pe_stream(streams, n_streams, "#Strings")))
    md->strings = (Heap){s->offset, s->size};
  if ((s = sxs__pe_stream(streams, n_streams, "#GUID")))
    md->guids = (Heap){s->offset, s->size};
  if (kind == SXS_METADATA_PORTABLE_PDB && !pdb_stream)
    return metadata_fail(md, ret_why, "no #Pdb stream: metadata, but not a portable PDB");
  if (kind == SXS_METADATA_ASSEMBLY && pdb_stream)
    return metadata_fail(md, ret_why, "a portable PDB, not an assembly's metadata");
  if (!tables)
    return metadata_fail(md, ret_why, "no #~ stream");

  /* #Pdb: the id, the entry point, then the row counts of the type-system tables referenced. */
  guint64 referenced = 0;
  if (pdb_stream) {
    const guint8 *ps = data + pdb_stream->offset;
    if (pdb_stream->size < 32)
      return metadata_fail(md, ret_why, "a #Pdb stream of %u bytes", pdb_stream->size);
    memcpy(md->pdb_id, ps, 20);
    referenced = sxs__pe_le64(ps + 24);
    guint64 rpos = 32;
    for (guint t = 0; t < SXS_METADATA_TABLES; t++) {
      if (!(referenced & (G_GUINT64_CONSTANT(1) << t)))
        continue;
      if (t >= SXS_METADATA_DOCUMENT || !table_known(t))
        return metadata_fail(md, ret_why, "#Pdb refers to table 0x%02x, which is no type-system table", t);
      if (!sxs__pe_fits(rpos, 4, pdb_stream->size))
        return metadata_fail(md, ret_why, "the #Pdb row counts run past its end");
      md->rows[t] = sxs__pe_le32(ps + rpos);
      rpos += 4;
    }
  }

  /* #~: heap index sizes, the tables present and their row counts, then the rows. */
  const guint8 *ts = data + tables->offset;
  if (tables->size < 24)
    return metadata_fail(md, ret_why, "a #~ stream of %u bytes", tables->size);
  guint8 heap_sizes = ts[6];
  md->heap_sizes = heap_sizes;
  guint64 valid = sxs__pe_le64(ts + 8);
  guint64 tpos = 24;
  for (guint t = 0; t < SXS_METADATA_TABLES; t++) {
    if (!(valid & (G_GUINT64_CONSTANT(1) << t)))
      continue;
    if (!table_known(t))
      return metadata_fail(md, ret_why, "table 0x%02x is not an ECMA-335 or portable PDB table", t);
    if (!sxs__pe_fits(tpos, 4, tables->size))
      return metadata_fail(md, ret_why, "the #~ row counts run past its end");
    md->rows[t] = sxs__pe_le32(ts + tpos);
    tpos += 4;
  }
  if (heap_sizes & 0x40)
    tpos += 4; /* extra data (uncompressed metadata) */
  for (guint t = 0; t < SXS_METADATA_TABLES; t++)
    if (md->rows[t] >= (1u << 24))
      return metadata_fail(md, ret_why, "table 0x%02x claims %u rows", t, md->rows[t]);
  for (guint t = 0; t < SXS_METADATA_TABLES; t++) {
    if (!(valid & (G_GUINT64_CONSTANT(1) << t)))
      continue;
    guint size = 0;
    for (guint c = 0; c < G_N_ELEMENTS(schema[t]) && schema[t][c] != COL_END; c++)
      size += column_size(md->rows, heap_sizes, schema[t][c]);
    guint64 bytes = (guint64)md->rows[t] * size;
    if (!sxs__pe_fits(tpos, bytes, tables->size))
      return metadata_fail(md, ret_why, "table 0x%02x (%u rows of %u bytes) runs past the end of #~", t, md->rows[t],
                           size);
    md->table_off[t] = tables->offset + tpos;
    md->row_size[t] = size;
    tpos += bytes;
  }
  return md;
}

SxsMetadata *sxs__metadata_open_assembly(const char *path, char **ret_why) {
  guint8 *data = NULL;
  guint32 size = 0;
  if (sxs__pe_metadata_read(path, SXS_METADATA_MAX_BYTES, &data, &size, ret_why) < 0)
    return NULL;
  return sxs__metadata_new(data, size, SXS_METADATA_ASSEMBLY, ret_why);
}

guint32 sxs__metadata_rows(const SxsMetadata *md, guint t) {
  return t < SXS_METADATA_TABLES ? md->rows[t] : 0;
}

guint32 sxs__metadata_cell(const SxsMetadata *md, guint t, guint32 rid, guint c) {
  const guint8 *row = md->data + md->table_off[t] + (guint64)(rid - 1) * md->row_size[t];
  guint off = 0;
  for (guint i = 0; i < c; i++)
    off += column_size(md->rows, md->heap_sizes, schema[t][i]);
  guint size = column_size(md->rows, md->heap_sizes, schema[t][c]);
  return size == 2 ? sxs__pe_le16(row + off) : sxs__pe_le32(row + off);
}

gboolean sxs__metadata_blob(const SxsMetadata *md, guint32 index, const guint8 **ret, gsize *ret_len) {
  if (index >= md->blob.size)
    return FALSE;
  const guint8 *p = md->data + md->blob.offset + index;
  gsize room = md->blob.size - index;
  guint32 n;
  guint size;
  if (!sxs__pe_compressed(p, room, &n, &size) || n > room - size)
    return FALSE;
  *ret = p + size;
  *ret_len = n;
  return TRUE;
}

const char *sxs__metadata_string(const SxsMetadata *md, guint32 index) {
  if (index >= md->strings.size)
    return NULL;
  const char *s = (const char *)md->data + md->strings.offset + index;
  return memchr(s, 0, md->strings.size - index) ? s : NULL;
}

const guint8 *sxs__metadata_pdb_id(const SxsMetadata *md) {
  return md->pdb_id;
}

/* The TypeDef that encloses nested type td (NestedClass is sorted by its first column), or 0. */
static guint32 enclosing_type(const SxsMetadata *md, guint32 td) {
  guint32 lo = 1, hi = md->rows[SXS_METADATA_NESTED_CLASS] + 1;
  while (lo < hi) {
    guint32 mid = lo + (hi - lo) / 2, nested = sxs__metadata_cell(md, SXS_METADATA_NESTED_CLASS, mid, 0);
    if (nested == td)
      return sxs__metadata_cell(md, SXS_METADATA_NESTED_CLASS, mid, 1);
    if (nested < td)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

char *sxs__metadata_method_name(const SxsMetadata *md, guint32 token) {
  guint32 rid = token & 0xFFFFFFu;
  if (token >> 24 != SXS_METADATA_METHOD_DEF || rid == 0 || rid > md->rows[SXS_METADATA_METHOD_DEF])
    return NULL;
  const char *method = sxs__metadata_string(md, sxs__metadata_cell(md, SXS_METADATA_METHOD_DEF, rid, 3));
  if (!method)
    return NULL;
  /* Its type: the last TypeDef whose method list starts at or before it (the lists run in row
   * order, each up to the next type's start). */
  guint32 lo = 1, hi = md->rows[SXS_METADATA_TYPE_DEF] + 1, owner = 0;
  while (lo < hi) {
    guint32 mid = lo + (hi - lo) / 2;
    if (sxs__metadata_cell(md, SXS_METADATA_TYPE_DEF, mid, 5) <= rid) {
      owner = mid;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  /* Namespace.Outer.Inner, as GetTypeDefProps spells each (a nested type has no namespace). */
  g_autoptr(GString) type = g_string_new(NULL);
  for (guint depth = 0; owner != 0 && owner <= md->rows[SXS_METADATA_TYPE_DEF] && depth < 16; depth++) {
    const char *name = sxs__metadata_string(md, sxs__metadata_cell(md, SXS_METADATA_TYPE_DEF, owner, 1));
    const char *ns = sxs__metadata_string(md, sxs__metadata_cell(md, SXS_METADATA_TYPE_DEF, owner, 2));
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
