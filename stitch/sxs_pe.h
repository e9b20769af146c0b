/* sxs_pe: the one reader of PE files and of the ECMA-335 metadata container they carry: the DOS,
 * COFF and optional headers, the section table (RVA to file offset), the data directory, the CLI
 * header and the metadata it points to, the metadata root ("BSJB") and its stream headers,
 * compressed integers (ECMA-335 II.23.2), and two readers built on them: the debug directory
 * (CodeView id, embedded portable PDB) and an assembly's informational version.
 *
 *   PE file: DOS header "MZ" -> e_lfanew -> "PE\0\0" COFF header -> optional header (PE32 or
 *   PE32+) -> data directory [6] debug directory, [14] CLI header (RVAs) -> section table (RVA ->
 *   file offset) -> CLI header: metadata RVA and size -> metadata root "BSJB": version string,
 *   stream headers (offset, size, name padded to 4) -> #~ #Strings #Blob #GUID #Pdb ...
 *
 * The tables of the #~ stream are read by sxs_metadata; portable PDBs by sxs_pdb. Every offset
 * read from a file is checked against the bytes it came from, so a damaged or hostile file gives
 * an error with one sentence saying why, never a crash or a read out of bounds. No runtime is
 * involved and no process state is held. Context: any thread but a signal handler. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

static inline guint32 sxs__pe_le16(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8;
}
static inline guint32 sxs__pe_le32(const guint8 *p) {
  return (guint32)p[0] | (guint32)p[1] << 8 | (guint32)p[2] << 16 | (guint32)p[3] << 24;
}
static inline guint64 sxs__pe_le64(const guint8 *p) {
  return (guint64)sxs__pe_le32(p) | (guint64)sxs__pe_le32(p + 4) << 32;
}
/* Does [off, off + n) lie within len? Overflow-safe. */
static inline gboolean sxs__pe_fits(guint64 off, guint64 n, guint64 len) {
  return off <= len && n <= len - off;
}

/* Sets *ret_why (when not NULL) to the formatted sentence (g_free) and returns rc: how the readers
 * of PE files and portable PDBs fail. */
int sxs__pe_fail(char **ret_why, int rc, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/* A compressed unsigned integer (ECMA-335 II.23.2: 1, 2 or 4 bytes) at p, of at most len bytes:
 * the value into *ret and its length into *ret_size. FALSE (outs untouched) when it does not fit
 * or its first byte is no length prefix. */
gboolean sxs__pe_compressed(const guint8 *p, gsize len, guint32 *ret, guint *ret_size);

/* Where PE bytes come from: memory, or a file read piece by piece (only the parts asked for). */
typedef struct {
  const guint8 *data; /* with fd < 0 */
  int fd;             /* -1: memory */
  guint64 len;
} SxsPeSource;

/* Copies [off, off + n) of the source into buf: FALSE when it lies past the end or a read fails. */
gboolean sxs__pe_read(const SxsPeSource *s, guint64 off, void *buf, gsize n);

/* Where a PE file's data directory and section table are. */
typedef struct {
  guint64 sections; /* file offset of the section table */
  guint n_sections;
  guint8 dirs[16 * 8]; /* the data directory's entries (rva, size), zero past those it has */
} SxsPeHeaders;

#define SXS_PE_DIR_DEBUG 6
#define SXS_PE_DIR_CLI 14

/* The DOS, COFF and optional headers: 0, or -ENOEXEC with *ret_why when they are no PE file's. */
int sxs__pe_headers(const SxsPeSource *s, SxsPeHeaders *h, char **ret_why);
/* Data directory entry k's RVA and size (0 when the file has none). */
guint32 sxs__pe_dir_rva(const SxsPeHeaders *h, guint k);
guint32 sxs__pe_dir_size(const SxsPeHeaders *h, guint k);
/* The file offset of [rva, rva + size), through the section whose file data holds all of it: 0,
 * or -EBADMSG with *ret_why ("<what> lies in no section") when none does. */
int sxs__pe_file_offset(const SxsPeSource *s, const SxsPeHeaders *h, guint32 rva, guint32 size, guint64 *ret_off,
                        char **ret_why, const char *what);

/* Where the ECMA-335 metadata of a PE file lies (the CLI header's metadata RVA and size), of at
 * least 20 and at most max_size bytes: 0 with its file offset and size, or -ENOEXEC (no PE file,
 * no CLI header) or -EBADMSG (damaged) with *ret_why. Outs untouched on failure. */
int sxs__pe_metadata_locate(const SxsPeSource *s, guint32 max_size, guint64 *ret_off, guint32 *ret_size,
                            char **ret_why);
/* The metadata of the PE file at path, read (only that part of the file): 0 with *ret_data
 * (g_free) and *ret_size, or -errno with *ret_why: that of open() (no file), -ENOEXEC, -EBADMSG.
 * Outs untouched on failure. */
int sxs__pe_metadata_read(const char *path, guint32 max_size, guint8 **ret_data, guint32 *ret_size, char **ret_why);

/* One stream of a metadata root. */
typedef struct {
  char name[33];
  guint32 offset, size; /* within the metadata */
} SxsPeStream;

#define SXS_PE_MAX_STREAMS 16

/* The stream headers of the metadata root at data ("BSJB", version string, streams), each checked
 * to lie within len: 0 with *ret_n streams in ret (at most SXS_PE_MAX_STREAMS; later ones are
 * passed over), or -EBADMSG with *ret_why. */
int sxs__pe_streams(const guint8 *data, gsize len, SxsPeStream *ret, guint *ret_n, char **ret_why);
/* The stream named name (the last, should two have it), or NULL. */
const SxsPeStream *sxs__pe_stream(const SxsPeStream *streams, guint n, const char *name);

/* What an assembly's debug directory says about its PDB. */
typedef struct {
  gboolean has_codeview; /* a CodeView (RSDS) entry: the PDB id below */
  gboolean portable;     /* the CodeView entry is a portable PDB's (minor version 0x504d) */
  guint8 id[20];         /* with has_codeview: the PDB id (GUID, then the entry's time stamp) */
  char *pdb_path;        /* the path the CodeView entry records (owned), or NULL */
  guint8 *embedded;      /* an embedded portable PDB, inflated (owned), or NULL */
  gsize embedded_len;
} SxsPeDebug;

/* Largest embedded portable PDB inflated. */
#define SXS_PE_MAX_EMBEDDED (256u << 20)

/* Reads the debug directory of the PE file at path (only the headers, the directory and its
 * entries are read, never the whole file). 0, or -errno with *ret_why (one sentence, g_free):
 * -ENOENT (no file), -ENOEXEC (not a PE file), -EBADMSG (damaged: an entry points outside the
 * file, an embedded PDB does not inflate to its stated size). ret is cleared first and filled
 * only on success. Allocates. */
int sxs__pe_debug_read(const char *path, SxsPeDebug *ret, char **ret_why);
/* The same over bytes in memory (the fuzz tests' entry point). */
int sxs__pe_debug_parse(const guint8 *data, gsize len, SxsPeDebug *ret, char **ret_why);
void sxs__pe_debug_clear(SxsPeDebug *d);

/*
 * The text of the assembly's AssemblyInformationalVersionAttribute, found as the first custom
 * attribute value in the metadata's #Blob heap that holds exactly one string, and that string a
 * version with build metadata ("3.1.3-servicing.20118.3+c5d3d75...", "8.0.34+b455eab..."): the
 * form every CoreLib since 3.0 has. Other one-string attributes (title, copyright, the file version
 * "4.700.20.11803") have no '+' and are passed over. Copies it, NUL-terminated, into buf. Used for
 * the product version of .NET Core 3.x, which its System.Private.CoreLib.dll carries and its
 * profiling API does not tell.
 *
 * Returns 0; -ENOENT when the file has no such value (2.x's CoreLib), -EINVAL when it is not a PE
 * file with metadata or a structure lies outside the file, -ENOSPC when buf is too small, -errno
 * when it cannot be opened. buf is untouched on failure.
 */
int sxs__pe_informational_version(const char *path, char *buf, size_t size);
