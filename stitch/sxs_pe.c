/* sxs_pe: PE files and the ECMA-335 metadata container, read with every offset checked.
 *
 *   assembly X.dll (PE)
 *   DOS hdr -> PE hdr -> optional hdr -> data directory
 *     [6]  debug directory: entries of 28 bytes
 *            type 2  CodeView "RSDS" GUID age path      -> SxsPeDebug.id, .pdb_path
 *            type 17 "MPDB" size deflate(portable PDB)  -> SxsPeDebug.embedded
 *     [14] CLI header: metadata RVA and size
 *            metadata root "BSJB": version, stream headers -> SxsPeStream[]
 *              #Blob: blobs, each a compressed length and its bytes; a custom attribute's value
 *              is a blob 01 00 <SerString> ... 00 00 (prolog, fixed arguments, no named ones)
 *
 * The rest of the metadata (the #~ tables) is sxs_metadata's; portable PDBs are sxs_pdb's. */
#include "sxs_pe.h"
#include "sxs_version.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define PE_MAX_SECTIONS 96      /* the PE format's own limit */
#define PE_MAX_DEBUG_ENTRIES 64 /* a debug directory holds a handful */
#define PE_MAX_PATH 4096        /* longest CodeView path kept */
#define DEFLATE_MAX_RATIO 1032u /* deflate never expands data more than this */

int sxs__pe_fail(char **ret_why, int rc, const char *fmt, ...) {
  if (ret_why) {
    va_list ap;
    va_start(ap, fmt);
    *ret_why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
  }
  return rc;
}

/* ---- bytes ---- */

gboolean sxs__pe_compressed(const guint8 *p, gsize len, guint32 *ret, guint *ret_size) {
  if (len == 0)
    return FALSE;
  guint8 b = p[0];
  if ((b & 0x80) == 0) {
    *ret = b;
    *ret_size = 1;
    return TRUE;
  }
  if ((b & 0xC0) == 0x80) {
    if (len < 2)
      return FALSE;
    *ret = (guint32)(b & 0x3F) << 8 | p[1];
    *ret_size = 2;
    return TRUE;
  }
  if ((b & 0xE0) == 0xC0) {
    if (len < 4)
      return FALSE;
    *ret = (guint32)(b & 0x1F) << 24 | (guint32)p[1] << 16 | (guint32)p[2] << 8 | p[3];
    *ret_size = 4;
    return TRUE;
  }
  return FALSE;
}

gboolean sxs__pe_read(const SxsPeSource *s, guint64 off, void *buf, gsize n) {
  if (!sxs__pe_fits(off, n, s->len))
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

/* ---- headers and sections ---- */

int sxs__pe_headers(const SxsPeSource *s, SxsPeHeaders *h, char **ret_why) {
  guint8 dos[64];
  if (!sxs__pe_read(s, 0, dos, sizeof dos) || dos[0] != 'M' || dos[1] != 'Z')
    return sxs__pe_fail(ret_why, -ENOEXEC, "not a PE file (no MZ header)");
  guint64 pe = sxs__pe_le32(dos + 0x3c);
  guint8 coff[24];
  if (!sxs__pe_read(s, pe, coff, sizeof coff) || memcmp(coff, "PE\0\0", 4) != 0)
    return sxs__pe_fail(ret_why, -ENOEXEC, "not a PE file (no PE signature)");
  h->n_sections = sxs__pe_le16(coff + 6);
  guint opt_size = sxs__pe_le16(coff + 20);
  guint64 opt = pe + 24;
  h->sections = opt + opt_size;
  guint8 oh[240] = {0};
  guint opt_read = MIN(opt_size, (guint)sizeof oh);
  if (opt_read < 2 || !sxs__pe_read(s, opt, oh, opt_read))
    return sxs__pe_fail(ret_why, -ENOEXEC, "not a PE file (no optional header)");
  guint magic = sxs__pe_le16(oh), n_off, dd_off;
  if (magic == 0x10b) {
    n_off = 92;
    dd_off = 96;
  } else if (magic == 0x20b) {
    n_off = 108;
    dd_off = 112;
  } else {
    return sxs__pe_fail(ret_why, -ENOEXEC, "not a PE file (optional header magic 0x%x)", magic);
  }
  memset(h->dirs, 0, sizeof h->dirs);
  guint n_dirs = opt_read >= n_off + 4 ? MIN(sxs__pe_le32(oh + n_off), 16u) : 0;
  if (opt_read > dd_off)
    memcpy(h->dirs, oh + dd_off, MIN((gsize)n_dirs * 8, (gsize)(opt_read - dd_off)));
  return 0;
}

guint32 sxs__pe_dir_rva(const SxsPeHeaders *h, guint k) {
  return sxs__pe_le32(h->dirs + k * 8);
}

guint32 sxs__pe_dir_size(const SxsPeHeaders *h, guint k) {
  return sxs__pe_le32(h->dirs + k * 8 + 4);
}

int sxs__pe_file_offset(const SxsPeSource *s, const SxsPeHeaders *h, guint32 rva, guint32 size, guint64 *ret_off,
                        char **ret_why, const char *what) {
  if (h->n_sections > PE_MAX_SECTIONS)
    return sxs__pe_fail(ret_why, -EBADMSG, "%u sections", h->n_sections);
  for (guint i = 0; i < h->n_sections; i++) {
    guint8 sh[40];
    if (!sxs__pe_read(s, h->sections + (guint64)i * 40, sh, sizeof sh))
      return sxs__pe_fail(ret_why, -EBADMSG, "the section table runs past the end of the file");
    guint32 va = sxs__pe_le32(sh + 12), raw_size = sxs__pe_le32(sh + 16), raw = sxs__pe_le32(sh + 20);
    if (rva >= va && sxs__pe_fits(rva - va, size, raw_size)) {
      *ret_off = (guint64)raw + (rva - va);
      return 0;
    }
  }
  return sxs__pe_fail(ret_why, -EBADMSG, "%s lies in no section", what);
}

/* ---- the CLI header and the metadata root ---- */

int sxs__pe_metadata_locate(const SxsPeSource *s, guint32 max_size, guint64 *ret_off, guint32 *ret_size,
                            char **ret_why) {
  SxsPeHeaders h;
  int r = sxs__pe_headers(s, &h, ret_why);
  if (r < 0)
    return r;
  if (sxs__pe_dir_rva(&h, SXS_PE_DIR_CLI) == 0)
    return sxs__pe_fail(ret_why, -ENOEXEC, "no CLI header: not a .NET assembly");
  guint8 cli[16];
  guint64 cli_off = 0, md_off = 0;
  r = sxs__pe_file_offset(s, &h, sxs__pe_dir_rva(&h, SXS_PE_DIR_CLI), sizeof cli, &cli_off, ret_why, "the CLI header");
  if (r < 0)
    return r;
  if (!sxs__pe_read(s, cli_off, cli, sizeof cli))
    return sxs__pe_fail(ret_why, -EBADMSG, "the CLI header could not be read");
  guint32 md_size = sxs__pe_le32(cli + 12);
  if (md_size < 20 || md_size > max_size)
    return sxs__pe_fail(ret_why, -EBADMSG, "metadata of %u bytes", md_size);
  r = sxs__pe_file_offset(s, &h, sxs__pe_le32(cli + 8), md_size, &md_off, ret_why, "the metadata");
  if (r < 0)
    return r;
  if (!sxs__pe_fits(md_off, md_size, s->len))
    return sxs__pe_fail(ret_why, -EBADMSG, "the metadata runs past the end of the file");
  *ret_off = md_off;
  *ret_size = md_size;
  return 0;
}

int sxs__pe_metadata_read(const char *path, guint32 max_size, guint8 **ret_data, guint32 *ret_size, char **ret_why) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return sxs__pe_fail(ret_why, -errno, "%s", g_strerror(errno));
  struct stat st;
  SxsPeSource s = {.fd = fd};
  guint64 md_off = 0;
  guint32 md_size = 0;
  int r = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ? sxs__pe_fail(ret_why, -ENOEXEC, "not a regular file") : 0;
  if (r == 0) {
    s.len = (guint64)st.st_size;
    r = sxs__pe_metadata_locate(&s, max_size, &md_off, &md_size, ret_why);
  }
  guint8 *data = NULL;
  if (r == 0) {
    data = g_try_malloc(md_size);
    if (!data || !sxs__pe_read(&s, md_off, data, md_size)) {
      g_clear_pointer(&data, g_free);
      r = sxs__pe_fail(ret_why, -EBADMSG, "the metadata could not be read");
    }
  }
  close(fd);
  if (r == 0) {
    *ret_data = data;
    *ret_size = md_size;
  }
  return r;
}

int sxs__pe_streams(const guint8 *data, gsize len, SxsPeStream *ret, guint *ret_n, char **ret_why) {
  if (len < 20 || sxs__pe_le32(data) != 0x424A5342)
    return sxs__pe_fail(ret_why, -EBADMSG, "no metadata signature (BSJB)");
  guint32 ver_len = sxs__pe_le32(data + 12);
  if (ver_len > 255 || !sxs__pe_fits(16 + (guint64)ver_len, 4, len))
    return sxs__pe_fail(ret_why, -EBADMSG, "a metadata version string of %u bytes", ver_len);
  guint n_streams = sxs__pe_le16(data + 16 + ver_len + 2), n = 0;
  guint64 pos = 16 + (guint64)ver_len + 4;
  for (guint i = 0; i < n_streams; i++) {
    if (!sxs__pe_fits(pos, 8, len))
      return sxs__pe_fail(ret_why, -EBADMSG, "stream headers run past the end");
    guint32 off = sxs__pe_le32(data + pos), size = sxs__pe_le32(data + pos + 4);
    pos += 8;
    /* The name: NUL-terminated, at most 32 bytes, padded to 4. */
    gsize name_len = 0;
    while (name_len < 32 && pos + name_len < len && data[pos + name_len])
      name_len++;
    if (name_len == 32 || pos + name_len >= len)
      return sxs__pe_fail(ret_why, -EBADMSG, "a stream name without its end");
    char name[33];
    memcpy(name, data + pos, name_len);
    name[name_len] = 0;
    pos += (name_len + 4) & ~(gsize)3;
    if (!sxs__pe_fits(off, size, len))
      return sxs__pe_fail(ret_why, -EBADMSG, "stream %s runs past the end", name);
    if (n < SXS_PE_MAX_STREAMS) {
      memcpy(ret[n].name, name, name_len + 1);
      ret[n].offset = off;
      ret[n].size = size;
      n++;
    }
  }
  *ret_n = n;
  return 0;
}

const SxsPeStream *sxs__pe_stream(const SxsPeStream *streams, guint n, const char *name) {
  const SxsPeStream *found = NULL;
  for (guint i = 0; i < n; i++)
    if (strcmp(streams[i].name, name) == 0)
      found = &streams[i];
  return found;
}

/* ---- the debug directory ---- */

void sxs__pe_debug_clear(SxsPeDebug *d) {
  if (!d)
    return;
  g_free(d->pdb_path);
  g_free(d->embedded);
  memset(d, 0, sizeof *d);
}

/* Inflates an embedded PDB ("MPDB", its size, raw deflate) into exactly that many bytes. */
static int inflate_embedded(const guint8 *in, gsize in_len, guint32 size, guint8 **ret, char **ret_why) {
  if (size == 0 || size > SXS_PE_MAX_EMBEDDED || (guint64)size > (guint64)in_len * DEFLATE_MAX_RATIO + 64)
    return sxs__pe_fail(ret_why, -EBADMSG, "the embedded PDB states an impossible size (%u bytes from %zu)", size,
                        in_len);
  z_stream z = {0};
  if (inflateInit2(&z, -15) != Z_OK)
    return sxs__pe_fail(ret_why, -ENOMEM, "zlib could not start");
  guint8 *out = g_try_malloc(size);
  if (!out) {
    inflateEnd(&z);
    return sxs__pe_fail(ret_why, -ENOMEM, "no memory for the embedded PDB (%u bytes)", size);
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
    return sxs__pe_fail(ret_why, -EBADMSG, "the embedded PDB does not inflate to its stated %u bytes", size);
  }
  *ret = out;
  return 0;
}

static int debug_parse(const SxsPeSource *s, SxsPeDebug *ret, char **ret_why) {
  SxsPeHeaders h;
  int r = sxs__pe_headers(s, &h, ret_why);
  if (r < 0)
    return r;
  guint32 dbg_rva = sxs__pe_dir_rva(&h, SXS_PE_DIR_DEBUG), dbg_size = sxs__pe_dir_size(&h, SXS_PE_DIR_DEBUG);
  if (dbg_rva == 0 || dbg_size == 0)
    return 0; /* no debug directory: nothing recorded */
  guint64 dbg_off = 0;
  r = sxs__pe_file_offset(s, &h, dbg_rva, dbg_size, &dbg_off, ret_why, "the debug directory");
  if (r < 0)
    return r;
  guint n_entries = MIN(dbg_size / 28, (guint)PE_MAX_DEBUG_ENTRIES);
  for (guint i = 0; i < n_entries; i++) {
    guint8 e[28];
    if (!sxs__pe_read(s, dbg_off + (guint64)i * 28, e, sizeof e))
      return sxs__pe_fail(ret_why, -EBADMSG, "the debug directory runs past the end of the file");
    guint32 stamp = sxs__pe_le32(e + 4), minor = sxs__pe_le16(e + 10), type = sxs__pe_le32(e + 12);
    guint32 size = sxs__pe_le32(e + 16), raw = sxs__pe_le32(e + 24);
    if (type == 2 && !ret->has_codeview) {
      guint8 cv[24];
      if (size < 24 || !sxs__pe_read(s, raw, cv, sizeof cv) || memcmp(cv, "RSDS", 4) != 0)
        continue; /* another CodeView kind (NB10): no id we can check */
      ret->has_codeview = TRUE;
      ret->portable = minor == 0x504d;
      memcpy(ret->id, cv + 4, 16);
      ret->id[16] = (guint8)stamp;
      ret->id[17] = (guint8)(stamp >> 8);
      ret->id[18] = (guint8)(stamp >> 16);
      ret->id[19] = (guint8)(stamp >> 24);
      guint path_len = MIN(size - 24, (guint32)PE_MAX_PATH);
      g_autofree char *path = g_malloc0(path_len + 1);
      if (path_len > 0 && sxs__pe_read(s, (guint64)raw + 24, path, path_len) && path[0])
        ret->pdb_path = g_utf8_make_valid(path, -1);
    } else if (type == 17 && !ret->embedded) {
      guint8 head[8];
      if (size < 8 || !sxs__pe_read(s, raw, head, sizeof head) || memcmp(head, "MPDB", 4) != 0)
        return sxs__pe_fail(ret_why, -EBADMSG, "the embedded PDB entry has no MPDB header");
      gsize in_len = size - 8;
      if (!sxs__pe_fits((guint64)raw + 8, in_len, s->len))
        return sxs__pe_fail(ret_why, -EBADMSG, "the embedded PDB runs past the end of the file");
      g_autofree guint8 *in = g_try_malloc(in_len ? in_len : 1);
      if (!in || !sxs__pe_read(s, (guint64)raw + 8, in, in_len))
        return sxs__pe_fail(ret_why, -EBADMSG, "the embedded PDB could not be read");
      guint32 usize = sxs__pe_le32(head + 4);
      r = inflate_embedded(in, in_len, usize, &ret->embedded, ret_why);
      if (r < 0)
        return r;
      ret->embedded_len = usize;
    }
  }
  return 0;
}

int sxs__pe_debug_parse(const guint8 *data, gsize len, SxsPeDebug *ret, char **ret_why) {
  SxsPeDebug d = {0};
  SxsPeSource s = {.data = data, .fd = -1, .len = len};
  int r = debug_parse(&s, &d, ret_why);
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
    return sxs__pe_fail(ret_why, -errno, "%s: %s", path, g_strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return sxs__pe_fail(ret_why, -ENOEXEC, "%s: not a regular file", path);
  }
  SxsPeDebug d = {0};
  SxsPeSource s = {.fd = fd, .len = (guint64)st.st_size};
  int r = debug_parse(&s, &d, ret_why);
  close(fd);
  if (r < 0) {
    sxs__pe_debug_clear(&d);
    return r;
  }
  *ret = d;
  return 0;
}

/* ---- the informational version ---- */

/* The one string of a custom attribute value blob 01 00 <len> <utf8> 00 00, or NULL. */
static const guint8 *attribute_string(const guint8 *blob, guint32 len, guint32 *ret_len) {
  if (len < 5 || blob[0] != 0x01 || blob[1] != 0x00)
    return NULL;
  guint n = 0;
  guint32 slen = 0;
  if (!sxs__pe_compressed(blob + 2, len - 2, &slen, &n) || (guint64)2 + n + slen + 2 != len || blob[len - 2] != 0 ||
      blob[len - 1] != 0)
    return NULL;
  *ret_len = slen;
  return blob + 2 + n;
}

/* Is the string a version with build metadata, as an informational version is? */
static gboolean is_informational(const guint8 *s, guint32 len) {
  char text[128];
  if (len == 0 || len >= sizeof text || memchr(s, '+', len) == NULL)
    return FALSE;
  memcpy(text, s, len);
  text[len] = '\0';
  SxsVersion v;
  return sxs__version_parse(text, &v) && v.n >= 2 && v.build != NULL;
}

/* The first informational version of a #Blob heap: 0, -ENOENT, -ENOSPC. */
static int blob_informational(const guint8 *p, const guint8 *end, char *buf, size_t size) {
  /* Blob 0 is the empty blob; every blob is its length and its bytes, one after another. */
  while (p < end) {
    guint n = 0;
    guint32 len = 0;
    if (!sxs__pe_compressed(p, (gsize)(end - p), &len, &n) || (guint64)(end - p - n) < len)
      break;
    guint32 slen = 0;
    const guint8 *s = attribute_string(p + n, len, &slen);
    if (s && is_informational(s, slen)) {
      if (slen + 1 > size)
        return -ENOSPC;
      memcpy(buf, s, slen);
      buf[slen] = '\0';
      return 0;
    }
    p += n + len;
  }
  return -ENOENT;
}

int sxs__pe_informational_version(const char *path, char *buf, size_t size) {
  if (path == NULL || buf == NULL)
    return -EINVAL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 64) {
    close(fd);
    return -EINVAL;
  }
  /* Mapped, not read: only the headers and the #Blob heap are touched. */
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int saved = errno;
  close(fd);
  if (map == MAP_FAILED)
    return -saved;
  SxsPeSource s = {.data = map, .fd = -1, .len = (guint64)st.st_size};
  guint64 md_off = 0;
  guint32 md_size = 0;
  SxsPeStream streams[SXS_PE_MAX_STREAMS];
  guint n = 0;
  int r = -EINVAL;
  if (sxs__pe_metadata_locate(&s, G_MAXUINT32, &md_off, &md_size, NULL) == 0 &&
      sxs__pe_streams(s.data + md_off, md_size, streams, &n, NULL) == 0) {
    const SxsPeStream *blob = sxs__pe_stream(streams, n, "#Blob");
    r = blob
            ? blob_informational(s.data + md_off + blob->offset, s.data + md_off + blob->offset + blob->size, buf, size)
            : -ENOENT;
  }
  munmap(map, (size_t)st.st_size);
  return r;
}
