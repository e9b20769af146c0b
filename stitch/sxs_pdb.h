/* sxs_pdb: source lines of managed code, from portable PDBs and the assemblies they describe.
 * Pure file parsing over sxs_pe (the assembly's debug directory: its CodeView id, an embedded
 * portable PDB) and sxs_metadata (the PDB's ECMA-335 tables): the Document and
 * MethodDebugInformation tables and sequence-point blobs, the search for an assembly's PDB, and
 * the IL-offset arithmetic that turns a native offset into a line. It knows no runtime, no
 * FunctionID and holds no process state. It does not read Windows (MSF) PDBs, local scopes, or
 * source link / embedded sources.
 *
 * Every read is bounds-checked against the bytes it came from, every count against what the bytes
 * can hold, so a damaged or hostile file gives an error (with one sentence saying why), never a
 * crash, a hang or an allocation larger than a small multiple of its own size. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "sxs_cor.h"
#include "sxs_pe.h"

/* The line a hidden sequence point carries (and no real line has). */
#define SXS_PDB_HIDDEN_LINE 0xfeefee

/* Largest portable PDB read (a file, or an embedded one once inflated). */
#define SXS_PDB_MAX_BYTES (256u << 20)

/* A portable PDB, opened: immutable but for its cache of document names (own lock), so any
 * thread may read it. */
typedef struct SxsPdb SxsPdb;

/* Opens a portable PDB from its bytes, taking them (g_free'd with the PDB, or at once on failure).
 * NULL with *ret_why (one sentence, g_free) when the bytes are no portable PDB or are damaged:
 * -EBADMSG-like failures all end here; a Windows (MSF) PDB is named as such. */
SxsPdb *sxs__pdb_new(guint8 *data, gsize len, char **ret_why);
/* Reads and opens the file at path (at most SXS_PDB_MAX_BYTES). NULL with *ret_why. */
SxsPdb *sxs__pdb_open(const char *path, char **ret_why);
void sxs__pdb_free(SxsPdb *pdb);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SxsPdb, sxs__pdb_free)

/* The PDB id of the #Pdb stream: 20 bytes (GUID and stamp), as SxsPeDebug.id. */
const guint8 *sxs__pdb_id(const SxsPdb *pdb);
/* Rows of its MethodDebugInformation table (as many as the assembly's MethodDef rows, or 0). */
guint sxs__pdb_method_count(const SxsPdb *pdb);
/* The name of Document row `document` (1-based), as the compiler wrote it (usually a full path),
 * or NULL when there is no such row or its name is damaged. Owned by the PDB (valid until its
 * free). */
const char *sxs__pdb_document_name(SxsPdb *pdb, guint32 document);

/* One visible sequence point: where a statement's IL begins, and its first line. */
typedef struct {
  guint32 il_offset;
  guint32 line;
  guint32 document; /* Document row, 1-based */
} SxsSeqPoint;

/* The visible sequence points of the method with MethodDef row `method` (a token's low 24 bits),
 * in IL order, hidden ones left out, into *ret_points (g_free; NULL when there are none) and
 * *ret_n. 0 (also for a method without points), -ENOENT when the PDB has no such row, -EBADMSG
 * with *ret_why when its blob is damaged (out-parameters untouched). */
int sxs__pdb_method_points(const SxsPdb *pdb, guint32 method, SxsSeqPoint **ret_points, guint *ret_n, char **ret_why);

/* The point that holds IL offset il: the last visible point at or before it. The prolog maps to
 * the first point, the epilog to the last; NULL for NO_MAPPING, or when il lies before every
 * point. points in IL order (as sxs__pdb_method_points gives them). */
const SxsSeqPoint *sxs__pdb_point_at(const SxsSeqPoint *points, guint n, gint32 il);

/* The smallest line of the points in the first point's document (the method's first line); 0 when
 * there are no points. */
guint32 sxs__pdb_first_line(const SxsSeqPoint *points, guint n, guint32 *ret_document);

/* The IL offset of the native code at offset `native` of a code version, through its IL-to-native
 * map (entries in any order): the entry whose native range holds it (the innermost, latest
 * starting one when ranges nest), else the entry that starts last before it. NO_MAPPING when no
 * entry starts at or before it. */
gint32 sxs__pdb_il_offset(const COR_DEBUG_IL_TO_NATIVE_MAP *map, guint n, guint32 native);

/* Where to look for an assembly's PDB, and what was found. */
typedef enum {
  SXS_PDB_FOUND,    /* beside the assembly, in a folder given, or embedded in it */
  SXS_PDB_MISSING,  /* no PDB anywhere (or the assembly records none) */
  SXS_PDB_MISMATCH, /* a PDB was found whose id is not the assembly's: not used */
  SXS_PDB_WINDOWS,  /* the PDB found (or the assembly's CodeView entry) is a Windows PDB */
  SXS_PDB_DAMAGED,  /* the assembly or its PDB could not be read */
} SxsPdbStatus;

/* "found", "missing", "mismatch", "windows", "damaged". */
const char *sxs__pdb_status_name(SxsPdbStatus s);

/* The PDB of the assembly at assembly_path: embedded in it, else X.pdb (the name its CodeView
 * entry records, then the assembly's own name with .pdb) beside it, else in each of folders
 * (NULL-terminated, may be NULL), checked against the assembly's id. Returns the opened PDB with
 * *ret_status SXS_PDB_FOUND and *ret_where (g_free: the PDB's path, or "embedded"), or NULL with
 * another status and *ret_where saying what was found or why (g_free; may be NULL for MISSING).
 * Context: any thread but a signal handler; reads files, allocates. */
SxsPdb *sxs__pdb_for_assembly(const char *assembly_path, const char *const *folders, SxsPdbStatus *ret_status,
                              char **ret_where);
