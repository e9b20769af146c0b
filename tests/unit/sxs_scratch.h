/* sxs_scratch: a fresh scratch folder for one unit-test case, and its removal with everything in
 * it (read-only folders included), for the g_test fixtures of tests/unit/. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* A new folder in the temporary folder, named after `name` ("sxs-config" -> sxs-config-XXXXXX),
 * as a canonical path (the profiler compares canonical paths). Fails the test when it cannot be
 * made. Caller frees (sxs_scratch_remove). */
static inline char *sxs_scratch_new(const char *name) {
  g_autofree char *pattern = g_strdup_printf("%s-XXXXXX", name);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp(pattern, &error);
  g_assert_no_error(error);
  char *canonical = realpath(dir, NULL);
  g_assert_nonnull(canonical);
  char *path = g_strdup(canonical);
  free(canonical);
  return path;
}

static inline void sxs_scratch_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    g_unlink(path);
    return;
  }
  g_chmod(path, 0700);
  GDir *dir = g_dir_open(path, 0, NULL);
  if (dir) {
    for (const char *name; (name = g_dir_read_name(dir));) {
      g_autofree char *child = g_build_filename(path, name, NULL);
      sxs_scratch_remove_tree(child);
    }
    g_dir_close(dir);
  }
  g_rmdir(path);
}

/* Removes the folder and everything in it, and frees the path. Accepts NULL. */
static inline void sxs_scratch_remove(char *dir) {
  if (dir)
    sxs_scratch_remove_tree(dir);
  g_free(dir);
}
