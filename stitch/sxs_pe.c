/* sxs_pe: the informational version of a managed assembly, from its file's metadata #Blob heap.
 *
 *   PE file: DOS header -> "PE\0\0" -> COFF header -> optional header -> data directory 14 (CLI
 *   header, an RVA) -> sections (RVA to file offset) -> CLI header -> metadata root "BSJB" ->
 *   stream headers -> #Blob: blobs, each a compressed length and its bytes. A custom attribute's
 *   value is a blob 01 00 <SerString> ... 00 00 (prolog, fixed arguments, no named ones).
 *
 * Every offset read from the file is checked against the file's size. No runtime is involved. */
#include "sxs_pe.h"
#include "sxs_version.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The CLI header's data directory entry (IMAGE_DIRECTORY_ENTRY_COM_DESCRIPTOR). */
#define PE_DIR_CLI 14

/* A file mapped read-only. */
typedef struct {
  const uint8_t *p;
  size_t size;
} PeFile;

/* TRUE when [off, off + len) lies inside the file. */
static int pe_has(const PeFile *f, uint64_t off, uint64_t len) {
  return off <= f->size && len <= f->size - off;
}

static uint16_t pe_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t pe_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The file offset of an RVA through the section table, or -1 when no section holds it. */
static int64_t pe_rva_to_offset(const PeFile *f, uint64_t sections, unsigned n_sections, uint32_t rva) {
  for (unsigned i = 0; i < n_sections; i++) {
    uint64_t s = sections + (uint64_t)i * 40;
    if (!pe_has(f, s, 40))
      return -1;
    uint32_t vsize = pe_u32(f->p + s + 8), va = pe_u32(f->p + s + 12);
    uint32_t raw_size = pe_u32(f->p + s + 16), raw = pe_u32(f->p + s + 20);
    uint32_t extent = vsize > raw_size ? vsize : raw_size;
    if (rva >= va && rva - va < extent)
      return (int64_t)raw + (rva - va);
  }
  return -1;
}

/* The #Blob stream's file offset and size; -EINVAL for a malformed file, -ENOENT without one. */
static int pe_blob_heap(const PeFile *f, uint64_t *ret_off, uint64_t *ret_size) {
  if (!pe_has(f, 0, 64) || f->p[0] != 'M' || f->p[1] != 'Z')
    return -EINVAL;
  uint64_t pe = pe_u32(f->p + 0x3c);
  if (!pe_has(f, pe, 24) || memcmp(f->p + pe, "PE\0\0", 4) != 0)
    return -EINVAL;
  unsigned n_sections = pe_u16(f->p + pe + 6);
  uint64_t opt = pe + 24, opt_size = pe_u16(f->p + pe + 20);
  if (!pe_has(f, opt, 2))
    return -EINVAL;
  uint16_t magic = pe_u16(f->p + opt);
  uint64_t dirs = magic == 0x20b ? opt + 112 : magic == 0x10b ? opt + 96 : 0;
  if (dirs == 0 || dirs + (PE_DIR_CLI + 1) * 8 > opt + opt_size || !pe_has(f, dirs, (PE_DIR_CLI + 1) * 8))
    return -EINVAL;
  uint32_t cli_rva = pe_u32(f->p + dirs + PE_DIR_CLI * 8);
  uint64_t sections = opt + opt_size;
  int64_t cli = pe_rva_to_offset(f, sections, n_sections, cli_rva);
  if (cli_rva == 0 || cli < 0 || !pe_has(f, (uint64_t)cli, 16))
    return -EINVAL;
  int64_t md = pe_rva_to_offset(f, sections, n_sections, pe_u32(f->p + cli + 8));
  if (md < 0 || !pe_has(f, (uint64_t)md, 16) || pe_u32(f->p + md) != 0x424A5342)
    return -EINVAL;
  uint64_t vlen = pe_u32(f->p + md + 12);
  uint64_t at = (uint64_t)md + 16 + vlen;
  if (vlen > 256 || !pe_has(f, at, 4))
    return -EINVAL;
  unsigned n_streams = pe_u16(f->p + at + 2);
  at += 4;
  for (unsigned i = 0; i < n_streams; i++) {
    if (!pe_has(f, at, 9))
      return -EINVAL;
    uint64_t off = (uint64_t)md + pe_u32(f->p + at), size = pe_u32(f->p + at + 4);
    const uint8_t *name = f->p + at + 8;
    size_t room = f->size - (at + 8), len = strnlen((const char *)name, room < 32 ? room : 32);
    if (len == room || len == 32)
      return -EINVAL;
    if (len == 5 && memcmp(name, "#Blob", 5) == 0) {
      if (!pe_has(f, off, size))
        return -EINVAL;
      *ret_off = off;
      *ret_size = size;
      return 0;
    }
    at += 8 + ((len + 4) & ~(uint64_t)3);
  }
  return -ENOENT;
}

/* A compressed unsigned integer (ECMA-335 II.23.2) at p, within end; its length in *ret_len, or 0
 * when it does not fit. */
static uint32_t pe_compressed(const uint8_t *p, const uint8_t *end, unsigned *ret_len) {
  *ret_len = 0;
  if (p >= end)
    return 0;
  if ((p[0] & 0x80) == 0) {
    *ret_len = 1;
    return p[0];
  }
  if ((p[0] & 0xc0) == 0x80 && end - p >= 2) {
    *ret_len = 2;
    return (uint32_t)(p[0] & 0x3f) << 8 | p[1];
  }
  if ((p[0] & 0xe0) == 0xc0 && end - p >= 4) {
    *ret_len = 4;
    return (uint32_t)(p[0] & 0x1f) << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
  }
  return 0;
}

/* The one string of a custom attribute value blob 01 00 <len> <utf8> 00 00, or NULL. */
static const uint8_t *pe_attribute_string(const uint8_t *blob, uint32_t len, uint32_t *ret_len) {
  if (len < 5 || blob[0] != 0x01 || blob[1] != 0x00)
    return NULL;
  unsigned n = 0;
  uint32_t slen = pe_compressed(blob + 2, blob + len, &n);
  if (n == 0 || (uint64_t)2 + n + slen + 2 != len || blob[len - 2] != 0 || blob[len - 1] != 0)
    return NULL;
  *ret_len = slen;
  return blob + 2 + n;
}

/* Is the string a version with build metadata, as an informational version is? */
static int pe_is_informational(const uint8_t *s, uint32_t len) {
  char text[128];
  if (len == 0 || len >= sizeof text || memchr(s, '+', len) == NULL)
    return 0;
  memcpy(text, s, len);
  text[len] = '\0';
  SxsVersion v;
  return sxs__version_parse(text, &v) && v.n >= 2 && v.build != NULL;
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
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int saved = errno;
  close(fd);
  if (map == MAP_FAILED)
    return -saved;
  PeFile f = {.p = map, .size = (size_t)st.st_size};

  uint64_t off = 0, heap_size = 0;
  int r = pe_blob_heap(&f, &off, &heap_size);
  if (r == 0) {
    r = -ENOENT;
    const uint8_t *p = f.p + off, *end = p + heap_size;
    /* Blob 0 is the empty blob; every blob is its length and its bytes, one after another. */
    while (p < end) {
      unsigned n = 0;
      uint32_t len = pe_compressed(p, end, &n);
      if (n == 0 || (uint64_t)(end - p - n) < len)
        break;
      uint32_t slen = 0;
      const uint8_t *s = pe_attribute_string(p + n, len, &slen);
      if (s && pe_is_informational(s, slen)) {
        if (slen + 1 > size) {
          r = -ENOSPC;
        } else {
          memcpy(buf, s, slen);
          buf[slen] = '\0';
          r = 0;
        }
        break;
      }
      p += n + len;
    }
  }
  munmap(map, (size_t)st.st_size);
  return r;
}
