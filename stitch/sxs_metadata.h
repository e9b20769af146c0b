/* sxs_metadata: the tables of ECMA-335 metadata (the #~ stream and the heaps its columns index),
 * over the container sxs_pe reads: an assembly's own metadata (for the names of its methods
 * without asking the runtime, whose public metadata interface slows the program's own metadata
 * reads of that module afterwards) and a portable PDB's (whose Document and
 * MethodDebugInformation tables sxs_pdb reads).
 *
 * Rows are located with the full schema (every table's columns, every coded index), because a
 * table's position depends on the sizes of all tables before it, and index sizes on the row counts
 * of the tables they point into (for a portable PDB, the assembly's type-system tables, as its
 * #Pdb stream records them). Every read is bounds-checked; opened metadata is immutable, so any
 * thread may read it. Context: any thread but a signal handler. */
#pragma once

#include <glib.h>

#define SXS_METADATA_TABLES 64
#define SXS_METADATA_TYPE_DEF 0x02
#define SXS_METADATA_METHOD_DEF 0x06
#define SXS_METADATA_NESTED_CLASS 0x29
#define SXS_METADATA_DOCUMENT 0x30
#define SXS_METADATA_METHOD_DEBUG 0x31

/* Largest metadata read (an assembly's, or a portable PDB once inflated). */
#define SXS_METADATA_MAX_BYTES (256u << 20)

typedef struct SxsMetadata SxsMetadata;

/* What the bytes must be. */
typedef enum {
  SXS_METADATA_ASSEMBLY,     /* an assembly's own: no #Pdb stream */
  SXS_METADATA_PORTABLE_PDB, /* a portable PDB: its #Pdb stream required */
} SxsMetadataKind;

/* Opens metadata ("BSJB") from its bytes, taking them (g_free'd with it, or at once on failure).
 * NULL with *ret_why (one sentence, g_free) when the bytes are not metadata of that kind or are
 * damaged; a Windows (MSF) PDB is named as such. */
SxsMetadata *sxs__metadata_new(guint8 *data, gsize len, SxsMetadataKind kind, char **ret_why);
/* An assembly's own metadata, read from its PE file (only the CLI header's metadata). NULL with
 * *ret_why. */
SxsMetadata *sxs__metadata_open_assembly(const char *path, char **ret_why);
void sxs__metadata_free(SxsMetadata *md);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsMetadata, sxs__metadata_free)

/* Is this a Windows (MSF) PDB's first bytes? */
gboolean sxs__metadata_is_msf(const guint8 *head, gsize len);
/* Bytes a file's head needs for sxs__metadata_is_msf. */
#define SXS_METADATA_MSF_HEAD 24

/* "Namespace.Type.Method" of a MethodDef token, nested types joined by '.' and a method of
 * <Module> alone, as the runtime's metadata interface spells it; NULL for another token, one out
 * of range or a damaged name. */
char *sxs__metadata_method_name(const SxsMetadata *md, guint32 token);

/* Rows of table t (0 when absent). */
guint32 sxs__metadata_rows(const SxsMetadata *md, guint t);
/* Column c (0-based) of row rid (1-based, at most sxs__metadata_rows) of table t: its value or
 * index. */
guint32 sxs__metadata_cell(const SxsMetadata *md, guint t, guint32 rid, guint c);
/* Blob `index` of the #Blob heap: its bytes and length, bounded by the heap; FALSE when it lies
 * outside. */
gboolean sxs__metadata_blob(const SxsMetadata *md, guint32 index, const guint8 **ret, gsize *ret_len);
/* The NUL-terminated string `index` of the #Strings heap, or NULL when it lies outside. */
const char *sxs__metadata_string(const SxsMetadata *md, guint32 index);
/* A portable PDB's id (the #Pdb stream's first 20 bytes: GUID and stamp); zeros for an assembly. */
const guint8 *sxs__metadata_pdb_id(const SxsMetadata *md);
