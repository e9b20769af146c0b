/* runsxs: finding installed shared frameworks by version, and private copies of a framework.
 *
 * Why copies: glibc's dlopen() returns the already-loaded handle for a file with the same device
 * and inode, so a second runtime from the same folder (or a hard-linked one) would get the
 * first runtime's libcoreclr.so, whose coreclr_initialize refuses a second start with
 * 0x80131022. A real copy of the folder is a different file, hence a separate runtime.
 *
 *   ~/.cache/sxsprof/frameworks/
 *     10.0.12-1a2b3c4d5e6f-copy1/        complete copy, .runsxs-copy-complete written last
 *     .tmp-10.0.12-1a2b3c4d5e6f-copy1-XXXXXX/   a copy being built (renamed into place when done)
 *
 * This file does not load anything; it only finds and copies folders. */
#include "runsxs_framework.h"
#include "sxs_modules.h"
#include "sxs_version.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNSXS_FRAMEWORK_SUBDIR "shared/Microsoft.NETCore.App"
#define RUNSXS_COPY_MARKER ".runsxs-copy-complete"

RunsxsFramework *runsxs_framework_new(const char *version, const char *dir) {
  RunsxsFramework *fw = g_new0(RunsxsFramework, 1);
  fw->version = g_strdup(version);
  fw->dir = g_strdup(dir);
  return fw;
}

void runsxs_framework_free(RunsxsFramework *fw) {
  if (!fw)
    return;
  g_free(fw->version);
  g_free(fw->dir);
  g_free(fw);
}

/* A version, or all zeros (sorting first) when the text is not one. */
static SxsVersion version_or_zero(const char *text) {
  SxsVersion v = {0};
  if (!sxs__version_parse(text, &v))
    memset(&v, 0, sizeof v);
  return v;
}

int runsxs_version_compare(const char *a, const char *b) {
  SxsVersion va = version_or_zero(a), vb = version_or_zero(b);
  return sxs__version_compare(&va, &vb);
}

/* TRUE when `version` starts with the components of `prefix`: "10.0" matches "10.0.12" and
 * "10.0.0-rc.1", not "10.01.0"; a prefix with a suffix matches only itself. */
static gboolean version_matches(const char *prefix, const char *version) {
  if (g_strcmp0(prefix, version) == 0)
    return TRUE;
  SxsVersion p, v;
  if (!sxs__version_parse(prefix, &p) || p.pre || p.build || !sxs__version_parse(version, &v))
    return FALSE;
  return sxs__version_starts_with(&v, &p);
}

char *runsxs_framework_read_version(const char *dir) {
  /* The same reading as the profiler's, from the runtime's own files (CoreLib, .version, its
   * manifest, the folder's name), so that a copied or renamed folder is still its version. */
  g_autofree char *lib = g_build_filename(dir, "libcoreclr.so", NULL);
  char *version = NULL;
  if (sxs__modules_runtime_version(lib, NULL, &version, NULL) == 0)
    return version;
  return g_strdup("unknown");
}

/* Adds root/shared/Microsoft.NETCore.App to dirs unless already there (by real path). */
static void search_dirs_add(GPtrArray *dirs, const char *root) {
  if (!root || !*root)
    return;
  g_autofree char *dir = g_build_filename(root, RUNSXS_FRAMEWORK_SUBDIR, NULL);
  char real[PATH_MAX];
  if (!realpath(dir, real))
    return;
  for (guint i = 0; i < dirs->len; i++) {
    if (strcmp(dirs->pdata[i], real) == 0)
      return;
  }
  g_ptr_array_add(dirs, g_strdup(real));
}

char **runsxs_framework_search_dirs(void) {
  GPtrArray *dirs = g_ptr_array_new();
  g_autofree char *dotnet = g_find_program_in_path("dotnet");
  if (dotnet) {
    char real[PATH_MAX];
    if (realpath(dotnet, real)) {
      g_autofree char *root = g_path_get_dirname(real);
      search_dirs_add(dirs, root);
    }
  }
  search_dirs_add(dirs, g_getenv("DOTNET_ROOT"));
  search_dirs_add(dirs, "/usr/share/dotnet");
  const char *extra = g_getenv("SXS_RUNTIMES_DIR");
  g_autofree char *fallback = g_build_filename(g_get_home_dir(), ".local/share/sxsprof/dotnet", NULL);
  search_dirs_add(dirs, extra && *extra ? extra : fallback);
  g_ptr_array_add(dirs, NULL);
  return (char **)g_ptr_array_free(dirs, FALSE);
}

/* g_ptr_array_sort() comparator for an array of strings (it passes pointers to the elements). */
static int compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

GPtrArray *runsxs_framework_list_installed(void) {
  GPtrArray *list = g_ptr_array_new_with_free_func((GDestroyNotify)runsxs_framework_free);
  g_auto(GStrv) dirs = runsxs_framework_search_dirs();
  for (char **d = dirs; *d; d++) {
    g_autoptr(GDir) dir = g_dir_open(*d, 0, NULL);
    if (!dir)
      continue;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(dir)))
      g_ptr_array_add(names, g_strdup(name));
    g_ptr_array_sort(names, compare_names);
    for (guint i = 0; i < names->len; i++) {
      const char *n = names->pdata[i];
      SxsVersion parsed;
      if (!sxs__version_parse(n, &parsed))
        continue;
      g_autofree char *path = g_build_filename(*d, n, NULL);
      g_autofree char *lib = g_build_filename(path, "libcoreclr.so", NULL);
      if (!g_file_test(lib, G_FILE_TEST_IS_REGULAR))
        continue;
      /* Newest first; an equal version found in a later folder goes after the earlier one. */
      guint at = 0;
      while (at < list->len && runsxs_version_compare(((RunsxsFramework *)list->pdata[at])->version, n) >= 0)
        at++;
      g_ptr_array_insert(list, (gint)at, runsxs_framework_new(n, path));
    }
  }
  return list;
}

/* "10.0.12 (/usr/share/dotnet/...), 8.0.33 (...)" for an error message. */
static char *framework_list_describe(GPtrArray *list) {
  if (list->len == 0)
    return g_strdup("none");
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < list->len; i++) {
    const RunsxsFramework *fw = list->pdata[i];
    g_string_append_printf(s, "%s%s (%s)", i ? ", " : "", fw->version, fw->dir);
  }
  return g_string_free(s, FALSE);
}

RunsxsFramework *runsxs_framework_resolve(const char *spec, GError **error) {
  if (!spec || !*spec) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "empty RUNTIME");
    return NULL;
  }
  if (strchr(spec, '/') || g_file_test(spec, G_FILE_TEST_IS_DIR)) {
    char real[PATH_MAX];
    if (!realpath(spec, real) || !g_file_test(real, G_FILE_TEST_IS_DIR)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "framework folder %s does not exist", spec);
      return NULL;
    }
    g_autofree char *lib = g_build_filename(real, "libcoreclr.so", NULL);
    if (!g_file_test(lib, G_FILE_TEST_IS_REGULAR)) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                  "framework folder %s has no libcoreclr.so (expected a "
                  ".../shared/Microsoft.NETCore.App/<version> folder)",
                  spec);
      return NULL;
    }
    g_autofree char *version = runsxs_framework_read_version(real);
    return runsxs_framework_new(version, real);
  }

  g_autoptr(GPtrArray) list = runsxs_framework_list_installed();
  for (guint i = 0; i < list->len; i++) {
    const RunsxsFramework *fw = list->pdata[i];
    if (version_matches(spec, fw->version))
      return runsxs_framework_new(fw->version, fw->dir);
  }
  g_autofree char *installed = framework_list_describe(list);
  g_auto(GStrv) dirs = runsxs_framework_search_dirs();
  g_autofree char *searched = g_strjoinv(", ", dirs);
  g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
              "no installed runtime matches version %s; installed: %s; searched: %s", spec, installed,
              *searched ? searched : "(no folder found)");
  return NULL;
}

/* --- private copies ---------------------------------------------------------------------- */

/* Appends "relpath size mtime mode" lines for every entry below dir to `listing`, sorted by
 * name, recursing into subfolders; also counts files. Returns FALSE when dir cannot be read. */
static gboolean copy_listing(const char *root, const char *rel, GString *listing, guint *files) {
  g_autofree char *dir_path = rel ? g_build_filename(root, rel, NULL) : g_strdup(root);
  g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
  if (!dir)
    return FALSE;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *name;
  while ((name = g_dir_read_name(dir))) {
    if (!rel && strcmp(name, RUNSXS_COPY_MARKER) == 0)
      continue;
    g_ptr_array_add(names, g_strdup(name));
  }
  g_ptr_array_sort(names, compare_names);
  for (guint i = 0; i < names->len; i++) {
    g_autofree char *sub = rel ? g_build_filename(rel, names->pdata[i], NULL) : g_strdup(names->pdata[i]);
    g_autofree char *path = g_build_filename(root, sub, NULL);
    struct stat st;
    if (stat(path, &st) != 0)
      return FALSE;
    if (S_ISDIR(st.st_mode)) {
      g_string_append_printf(listing, "%s/\n", sub);
      if (!copy_listing(root, sub, listing, files))
        return FALSE;
    } else if (S_ISREG(st.st_mode)) {
      g_string_append_printf(listing, "%s %lld %lld.%09ld %o\n", sub, (long long)st.st_size,
                             (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned int)(st.st_mode & 07777));
      (*files)++;
    }
  }
  return TRUE;
}

/* The completion marker's text for a source folder: format line, source, file count, and a
 * SHA-256 over the listing of names, sizes, mtimes and modes. NULL when it cannot be read. */
static char *copy_marker_text(const char *source_dir) {
  g_autoptr(GString) listing = g_string_new(NULL);
  guint files = 0;
  if (!copy_listing(source_dir, NULL, listing, &files))
    return NULL;
  g_autofree char *digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, listing->str, -1);
  return g_strdup_printf("runsxs framework copy 1\nsource=%s\nfiles=%u\ndigest=%s\n", source_dir, files, digest);
}

/* Copies one regular file, keeping its permission bits. Returns 0 or -errno. */
static int copy_file(const char *from, const char *to, mode_t mode) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return -errno;
  int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777);
  if (out < 0) {
    int e = errno;
    close(in);
    return -e;
  }
  int ret = 0;
  for (;;) {
    ssize_t n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
    if (n > 0)
      continue;
    if (n == 0)
      break;
    if (errno == EINTR)
      continue;
    if (errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP && errno != EINVAL) {
      ret = -errno;
      break;
    }
    /* No in-kernel copy between these file systems: plain read/write from where it stopped. */
    char buf[1 << 16];
    ssize_t r;
    while ((r = read(in, buf, sizeof buf)) != 0) {
      if (r < 0) {
        if (errno == EINTR)
          continue;
        ret = -errno;
        break;
      }
      for (ssize_t done = 0; done < r;) {
        ssize_t w = write(out, buf + done, r - done);
        if (w < 0) {
          if (errno == EINTR)
            continue;
          ret = -errno;
          break;
        }
        done += w;
      }
      if (ret < 0)
        break;
    }
    break;
  }
  if (close(out) != 0 && ret == 0)
    ret = -errno;
  close(in);
  if (ret == 0)
    chmod(to, mode & 07777);
  return ret;
}

/* Copies the tree below from into the existing folder to (symlinks are followed: every file
 * becomes a real file of its own). */
static gboolean copy_tree(const char *from, const char *to, GError **error) {
  g_autoptr(GDir) dir = g_dir_open(from, 0, error);
  if (!dir)
    return FALSE;
  const char *name;
  while ((name = g_dir_read_name(dir))) {
    if (strcmp(name, RUNSXS_COPY_MARKER) == 0)
      continue;
    g_autofree char *src = g_build_filename(from, name, NULL);
    g_autofree char *dst = g_build_filename(to, name, NULL);
    struct stat st;
    if (stat(src, &st) != 0) {
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot stat %s: %s", src, g_strerror(errno));
      return FALSE;
    }
    if (S_ISDIR(st.st_mode)) {
      if (mkdir(dst, 0755) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot create %s: %s", dst,
                    g_strerror(errno));
        return FALSE;
      }
      if (!copy_tree(src, dst, error))
        return FALSE;
    } else if (S_ISREG(st.st_mode)) {
      int rc = copy_file(src, dst, st.st_mode);
      if (rc < 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(-rc), "cannot copy %s to %s: %s", src, dst,
                    g_strerror(-rc));
        return FALSE;
      }
    }
  }
  return TRUE;
}

static int remove_tree_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  if (type == FTW_DP)
    rmdir(path);
  else
    unlink(path);
  return 0;
}

static void remove_tree(const char *path) {
  nftw(path, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* TRUE when dir holds a complete copy whose marker equals `marker`. */
static gboolean copy_is_current(const char *dir, const char *marker) {
  g_autofree char *file = g_build_filename(dir, RUNSXS_COPY_MARKER, NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(file, &text, NULL, NULL))
    return FALSE;
  return strcmp(text, marker) == 0;
}

/* ${XDG_CACHE_HOME:-~/.cache}/sxsprof/frameworks */
static char *cache_folder(void) {
  const char *cache = g_getenv("XDG_CACHE_HOME");
  g_autofree char *cache_home = cache && *cache && g_path_is_absolute(cache)
                                    ? g_strdup(cache)
                                    : g_build_filename(g_get_home_dir(), ".cache", NULL);
  return g_build_filename(cache_home, "sxsprof", "frameworks", NULL);
}

/* Makes parent (if needed) and a fresh staging folder parent/.tmp-<leaf>-XXXXXX in it. */
static char *stage_folder(const char *parent, const char *leaf, GError **error) {
  if (g_mkdir_with_parents(parent, 0755) != 0) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot create %s: %s", parent, g_strerror(errno));
    return NULL;
  }
  char *tmp = g_strdup_printf("%s/.tmp-%s-XXXXXX", parent, leaf);
  if (!g_mkdtemp_full(tmp, 0755)) {
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot create %s: %s", tmp, g_strerror(errno));
    g_free(tmp);
    return NULL;
  }
  return tmp;
}

typedef gboolean (*FolderIsCurrent)(const char *final, gconstpointer data);

/* Puts the finished staging folder tmp in place as parent/leaf (= final). A stale or partial
 * folder there is moved aside first; if another runsxs won the race and its folder is current,
 * that one is used and tmp dropped. *ret_created says whether tmp became final. tmp is gone
 * afterwards either way. */
static gboolean publish_folder(const char *tmp, const char *parent, const char *leaf, const char *final,
                               FolderIsCurrent is_current, gconstpointer data, gboolean *ret_created, GError **error) {
  for (int attempt = 0; attempt < 3; attempt++) {
    if (rename(tmp, final) == 0) {
      *ret_created = TRUE;
      return TRUE;
    }
    if (errno != EEXIST && errno != ENOTEMPTY) {
      int e = errno;
      remove_tree(tmp);
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "cannot rename %s to %s: %s", tmp, final,
                  g_strerror(e));
      return FALSE;
    }
    if (is_current(final, data)) {
      remove_tree(tmp);
      *ret_created = FALSE;
      return TRUE;
    }
    g_autofree char *trash = g_strdup_printf("%s/.old-%s-XXXXXX", parent, leaf);
    if (g_mkdtemp_full(trash, 0755)) {
      g_autofree char *aside = g_build_filename(trash, leaf, NULL);
      if (rename(final, aside) == 0 || errno == ENOENT)
        remove_tree(trash);
      else
        rmdir(trash);
    }
  }
  remove_tree(tmp);
  g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST, "cannot replace the stale folder %s (remove it by hand)", final);
  return FALSE;
}

typedef struct {
  const char *dir;
  GPtrArray *targets;
} AliasCheck;

static gboolean aliases_are_current(const char *alias_dir, const char *dir, GPtrArray *targets);

static gboolean alias_folder_current(const char *final, gconstpointer data) {
  const AliasCheck *check = data;
  return aliases_are_current(final, check->dir, check->targets);
}

static gboolean copy_folder_current(const char *final, gconstpointer data) {
  return copy_is_current(final, data);
}

/* The file names in dir that need a "lib" alias: System.*.so without the prefix. */
static GPtrArray *alias_targets(const char *dir) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  if (!d)
    return names;
  const char *name;
  while ((name = g_dir_read_name(d))) {
    if (g_str_has_prefix(name, "System.") && g_str_has_suffix(name, ".so"))
      g_ptr_array_add(names, g_strdup(name));
  }
  g_ptr_array_sort(names, compare_names);
  return names;
}

/* TRUE when alias_dir holds exactly one correct symlink per target. */
static gboolean aliases_are_current(const char *alias_dir, const char *dir, GPtrArray *targets) {
  guint entries = 0;
  g_autoptr(GDir) d = g_dir_open(alias_dir, 0, NULL);
  if (!d)
    return FALSE;
  while (g_dir_read_name(d))
    entries++;
  if (entries != targets->len)
    return FALSE;
  for (guint i = 0; i < targets->len; i++) {
    g_autofree char *link_name = g_strconcat("lib", (char *)targets->pdata[i], NULL);
    g_autofree char *link = g_build_filename(alias_dir, link_name, NULL);
    g_autofree char *want = g_build_filename(dir, targets->pdata[i], NULL);
    g_autofree char *got = g_file_read_link(link, NULL);
    if (g_strcmp0(got, want) != 0)
      return FALSE;
  }
  return TRUE;
}

char *runsxs_framework_native_aliases(const char *dir, GError **error) {
  g_autoptr(GPtrArray) targets = alias_targets(dir);
  if (targets->len == 0)
    return NULL;
  g_autofree char *frameworks = cache_folder();
  g_autofree char *parent = g_build_filename(frameworks, "native-aliases", NULL);
  g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, dir, -1);
  hash[12] = '\0';
  g_autofree char *base = g_path_get_basename(dir);
  g_autofree char *leaf = g_strdup_printf("%s-%s", base, hash);
  g_autofree char *final = g_build_filename(parent, leaf, NULL);
  if (aliases_are_current(final, dir, targets))
    return g_steal_pointer(&final);

  g_autofree char *tmp = stage_folder(parent, leaf, error);
  if (!tmp)
    return NULL;
  for (guint i = 0; i < targets->len; i++) {
    g_autofree char *link_name = g_strconcat("lib", (char *)targets->pdata[i], NULL);
    g_autofree char *link = g_build_filename(tmp, link_name, NULL);
    g_autofree char *want = g_build_filename(dir, targets->pdata[i], NULL);
    if (symlink(want, link) != 0) {
      int e = errno;
      remove_tree(tmp);
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "cannot create %s: %s", link, g_strerror(e));
      return NULL;
    }
  }
  /* Replace a wrong folder, accept a correct one another run made. */
  AliasCheck check = {.dir = dir, .targets = targets};
  gboolean created = FALSE;
  if (!publish_folder(tmp, parent, leaf, final, alias_folder_current, &check, &created, error))
    return NULL;
  return g_steal_pointer(&final);
}

char *runsxs_framework_private_copy(const RunsxsFramework *fw, int copy, gboolean *ret_created, GError **error) {
  g_autofree char *marker = copy_marker_text(fw->dir);
  if (!marker) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_IO, "cannot read framework folder %s", fw->dir);
    return NULL;
  }
  g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, fw->dir, -1);
  hash[12] = '\0';
  g_autofree char *parent = cache_folder();
  g_autofree char *leaf = g_strdup_printf("%s-%s-copy%d", fw->version, hash, copy);
  g_autofree char *final = g_build_filename(parent, leaf, NULL);

  if (copy_is_current(final, marker)) {
    if (ret_created)
      *ret_created = FALSE;
    return g_steal_pointer(&final);
  }
  g_autofree char *tmp = stage_folder(parent, leaf, error);
  if (!tmp)
    return NULL;
  g_autofree char *marker_file = g_build_filename(tmp, RUNSXS_COPY_MARKER, NULL);
  if (!copy_tree(fw->dir, tmp, error) || !g_file_set_contents(marker_file, marker, -1, error)) {
    remove_tree(tmp);
    g_prefix_error(error, "copying framework %s: ", fw->dir);
    return NULL;
  }

  gboolean created = FALSE;
  if (!publish_folder(tmp, parent, leaf, final, copy_folder_current, marker, &created, error))
    return NULL;
  if (ret_created)
    *ret_created = created;
  return g_steal_pointer(&final);
}
