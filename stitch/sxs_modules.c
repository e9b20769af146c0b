/* Module lookup for code addresses (dladdr + realpath), which objects hold a CoreCLR, and runtime
 * product versions read from the runtime itself; no unwinding. */
#include "sxs_modules.h"
#include "sxs_pe.h"
#include "sxs_version.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest version string accepted from a file or a folder name. */
#define SXS_MODULES_VERSION_MAX 64

int sxs__modules_path_of(const void *addr, char **ret_path) {
  Dl_info info;
  struct link_map *map = NULL;

  if (ret_path == NULL)
    return -EINVAL;
  if (addr == NULL)
    return -ENOENT;
  if (dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) == 0 || map == NULL)
    return -ENOENT;

  /* The main program's link map has an empty name, and dli_fname then holds argv[0], which is
   * relative to a working directory that may have changed since. */
  const char *name = map->l_name;
  if (name == NULL || name[0] == '\0')
    name = "/proc/self/exe";

  char *canonical = realpath(name, NULL);
  if (canonical == NULL)
    return errno == ENOMEM ? -ENOMEM : -ENOENT;
  /* Hand over a GLib-allocated string so callers free everything with g_free. */
  *ret_path = g_strdup(canonical);
  free(canonical);
  return 0;
}

/* A product version with at least two components ("2.0.0", "10.0.0-rc.1"), not too long. */
static gboolean looks_like_version(const char *s) {
  SxsVersion v;
  return strlen(s) <= SXS_MODULES_VERSION_MAX && sxs__version_parse(s, &v) && v.n >= 2;
}

/* Line 2 of folder/.version when line 1 is a single non-empty token and line 2 a version. */
static char *version_from_file(const char *folder) {
  g_autofree char *file = g_build_filename(folder, ".version", NULL);
  g_autofree char *text = NULL;
  gsize len = 0;

  if (!g_file_get_contents(file, &text, &len, NULL))
    return NULL;
  if (memchr(text, '\0', len) != NULL)
    return NULL;

  g_auto(GStrv) lines = g_strsplit(text, "\n", 3);
  if (g_strv_length(lines) < 2)
    return NULL;
  char *commit = g_strstrip(lines[0]);
  char *version = g_strstrip(lines[1]);
  if (commit[0] == '\0' || strpbrk(commit, " \t") != NULL || !looks_like_version(version))
    return NULL;
  return g_strdup(version);
}

const char *sxs__modules_version_source_name(SxsVersionSource source) {
  switch (source) {
  case SXS_VERSION_SOURCE_RUNTIME: return "the runtime (GetRuntimeInformation)";
  case SXS_VERSION_SOURCE_CORELIB: return "System.Private.CoreLib.dll's informational version";
  case SXS_VERSION_SOURCE_VERSION_FILE: return "the .version file";
  case SXS_VERSION_SOURCE_DEPS: return "Microsoft.NETCore.App.deps.json";
  case SXS_VERSION_SOURCE_FOLDER: return "the folder's name";
  default: return "nothing";
  }
}

const char *sxs__modules_version_source_key(SxsVersionSource source) {
  switch (source) {
  case SXS_VERSION_SOURCE_RUNTIME: return "runtime";
  case SXS_VERSION_SOURCE_CORELIB: return "corelib";
  case SXS_VERSION_SOURCE_VERSION_FILE: return ".version";
  case SXS_VERSION_SOURCE_DEPS: return "deps.json";
  case SXS_VERSION_SOURCE_FOLDER: return "folder";
  default: return NULL;
  }
}

/* The runtime's own answer when it is a product version: .NET 5 and later give "10.0.12"; Core 2.x
 * and 3.x give their CLR version, "v4.0.22220" or "v4.0.30319", which is not one. */
static char *version_from_api(const char *api_version) {
  SxsVersion v;
  if (api_version == NULL || !looks_like_version(api_version) || !sxs__version_parse(api_version, &v) || v.part[0] < 5)
    return NULL;
  return g_strdup(api_version);
}

/* The numbers of CoreLib's informational version ("3.1.3-servicing.20118.3+c5d3d75" -> "3.1.3"),
 * as Environment.Version reads them, when they name 3.0 or later. */
static char *version_from_corelib(const char *folder) {
  g_autofree char *file = g_build_filename(folder, "System.Private.CoreLib.dll", NULL);
  char text[128];
  if (sxs__pe_informational_version(file, text, sizeof text) != 0)
    return NULL;
  text[strspn(text, "0123456789.")] = '\0';
  SxsVersion v;
  if (!looks_like_version(text) || !sxs__version_parse(text, &v) || v.part[0] < 3 || v.part[0] == 4)
    return NULL;
  return g_strdup(text);
}

/* The version of the "Microsoft.NETCore.App/<version>" entry of the shared framework's own
 * deps.json ("Microsoft.NETCore.App/2.0.0"). */
static char *version_from_deps(const char *folder) {
  g_autofree char *file = g_build_filename(folder, "Microsoft.NETCore.App.deps.json", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(file, &text, NULL, NULL))
    return NULL;
  static const char key[] = "\"Microsoft.NETCore.App/";
  const char *at = strstr(text, key);
  if (at == NULL)
    return NULL;
  at += sizeof key - 1;
  const char *quote = strchr(at, '"');
  if (quote == NULL || quote - at > SXS_MODULES_VERSION_MAX)
    return NULL;
  g_autofree char *version = g_strndup(at, (gsize)(quote - at));
  return looks_like_version(version) ? g_steal_pointer(&version) : NULL;
}

int sxs__modules_runtime_version(const char *runtime_path, const char *api_version, char **ret_version,
                                 SxsVersionSource *ret_source) {
  if (ret_version == NULL)
    return -EINVAL;

  SxsVersionSource source = SXS_VERSION_SOURCE_RUNTIME;
  char *version = version_from_api(api_version);
  if (version == NULL && runtime_path != NULL) {
    g_autofree char *folder = g_path_get_dirname(runtime_path);
    if ((version = version_from_corelib(folder)) != NULL)
      source = SXS_VERSION_SOURCE_CORELIB;
    else if ((version = version_from_file(folder)) != NULL)
      source = SXS_VERSION_SOURCE_VERSION_FILE;
    else if ((version = version_from_deps(folder)) != NULL)
      source = SXS_VERSION_SOURCE_DEPS;
    else {
      g_autofree char *name = g_path_get_basename(folder);
      if (looks_like_version(name)) {
        version = g_steal_pointer(&name);
        source = SXS_VERSION_SOURCE_FOLDER;
      }
    }
  }
  if (version == NULL)
    return -ENOENT;
  *ret_version = version;
  if (ret_source != NULL)
    *ret_source = source;
  return 0;
}

/* The defined symbols of a mapped 64-bit little-endian ELF file's .dynsym: is name among them?
 * Every offset is checked against the file's size. */
static gboolean elf_defines(const guint8 *p, size_t size, const char *name) {
  if (size < sizeof(Elf64_Ehdr))
    return FALSE;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
      eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr))
    return FALSE;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum || sh[i].sh_entsize != sizeof(Elf64_Sym))
      continue;
    const Elf64_Shdr *str = &sh[sh[i].sh_link];
    if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset || str->sh_offset > size ||
        str->sh_size > size - str->sh_offset)
      return FALSE;
    const Elf64_Sym *syms = (const Elf64_Sym *)(p + sh[i].sh_offset);
    const char *names = (const char *)(p + str->sh_offset);
    size_t len = strlen(name);
    for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
      if (syms[k].st_shndx == SHN_UNDEF || syms[k].st_name >= str->sh_size || str->sh_size - syms[k].st_name <= len)
        continue;
      if (memcmp(names + syms[k].st_name, name, len + 1) == 0)
        return TRUE;
    }
  }
  return FALSE;
}

gboolean sxs__modules_exports(const char *path, const char *name) {
  if (path == NULL || name == NULL)
    return FALSE;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  struct stat st;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return FALSE;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return FALSE;
  gboolean found = elf_defines(map, (size_t)st.st_size, name);
  munmap(map, (size_t)st.st_size);
  return found;
}

gboolean sxs__modules_holds_runtime(const char *path) {
  return sxs__modules_is_coreclr(path) || sxs__modules_exports(path, "MetaDataGetDispenser");
}

gboolean sxs__modules_is_coreclr(const char *path) {
  if (path == NULL)
    return FALSE;
  const char *slash = strrchr(path, '/');
  return strcmp(slash != NULL ? slash + 1 : path, "libcoreclr.so") == 0;
}
