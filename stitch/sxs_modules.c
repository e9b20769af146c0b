/* Module lookup for code addresses (dladdr + realpath) and runtime product versions; no unwinding. */
#include "sxs_modules.h"
#include "sxs_version.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

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

int sxs__modules_runtime_version(const char *coreclr_path, char **ret_version) {
  if (coreclr_path == NULL || ret_version == NULL)
    return -EINVAL;

  g_autofree char *folder = g_path_get_dirname(coreclr_path);
  char *version = version_from_file(folder);
  if (version == NULL) {
    g_autofree char *name = g_path_get_basename(folder);
    if (looks_like_version(name))
      version = g_steal_pointer(&name);
  }
  if (version == NULL)
    return -ENOENT;
  *ret_version = version;
  return 0;
}

gboolean sxs__modules_is_coreclr(const char *path) {
  if (path == NULL)
    return FALSE;
  const char *slash = strrchr(path, '/');
  return strcmp(slash != NULL ? slash + 1 : path, "libcoreclr.so") == 0;
}
