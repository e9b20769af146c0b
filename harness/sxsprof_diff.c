/* sxsprof diff BASE NEW: compares two runs. Each side is a profile, a spool or a folder of a run's
 * profiles (merged as `report` merges several); the comparison is the diff model (sxs_diff.h),
 * rendered as the terminal summary and, with -o PREFIX, the two-column folded file, the
 * differential flame graph and its negated twin, and each side's pprof for go tool pprof
 * -diff_base. It never changes a profile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sxs_formats.h"
#include "sxsprof.h"

/* The value of --opt VALUE or --opt=VALUE at argv[*i]; NULL when it is another option. */
static const char *diff_option(int argc, char **argv, int *i, const char *name, gboolean *ret_missing) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0)
    return NULL;
  if (a[n] == '=')
    return a + n + 1;
  if (a[n] != '\0')
    return NULL;
  if (*i + 1 >= argc) {
    *ret_missing = TRUE;
    return NULL;
  }
  return argv[++*i];
}

int sxsprof_diff_main(int argc, char **argv) {
  long top = 10, runtime = 0;
  const char *format = NULL, *output = NULL, *thread = NULL, *view = NULL;
  SxsprofMoment from = {0}, to = {0};
  gboolean by_line = FALSE, exact = FALSE, absolute = FALSE;
  g_autoptr(GPtrArray) paths = g_ptr_array_new();
  for (int i = 0; i < argc; i++) {
    const char *v;
    gboolean missing = FALSE;
    char *end = NULL;
    if ((v = diff_option(argc, argv, &i, "--top", &missing))) {
      top = strtol(v, &end, 10);
      if (!*v || *end || top < 1 || top > 100000) {
        fprintf(stderr, "sxsprof: --top needs a number from 1 to 100000, not \"%s\"\n", v);
        return 2;
      }
    } else if ((v = diff_option(argc, argv, &i, "--runtime", &missing))) {
      runtime = strtol(v, &end, 10);
      if (!*v || *end || runtime < 1 || runtime > 1000000) {
        fprintf(stderr, "sxsprof: --runtime needs a number from 1 to 1000000, not \"%s\"\n", v);
        return 2;
      }
    } else if ((v = diff_option(argc, argv, &i, "--format", &missing))) {
      format = v;
    } else if ((v = diff_option(argc, argv, &i, "--output", &missing)) ||
               (v = diff_option(argc, argv, &i, "-o", &missing))) {
      output = v;
    } else if ((v = diff_option(argc, argv, &i, "--thread", &missing))) {
      thread = v;
    } else if ((v = diff_option(argc, argv, &i, "--from", &missing))) {
      if (!sxsprof_parse_moment("--from", v, &from))
        return 2;
    } else if ((v = diff_option(argc, argv, &i, "--to", &missing))) {
      if (!sxsprof_parse_moment("--to", v, &to))
        return 2;
    } else if ((v = diff_option(argc, argv, &i, "--view", &missing))) {
      view = v;
    } else if (g_str_equal(argv[i], "--lines")) {
      by_line = TRUE;
    } else if (g_str_equal(argv[i], "--exact-names")) {
      exact = TRUE;
    } else if (g_str_equal(argv[i], "--absolute")) {
      absolute = TRUE;
    } else if (missing) {
      fprintf(stderr, "sxsprof: %s needs a value\n", argv[i]);
      return 2;
    } else if (g_str_equal(argv[i], "--")) {
      for (i++; i < argc; i++)
        g_ptr_array_add(paths, argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "sxsprof: unknown option \"%s\"\n%s", argv[i], sxsprof_usage);
      return 2;
    } else {
      g_ptr_array_add(paths, argv[i]);
    }
  }
  if (paths->len != 2) {
    fprintf(stderr, "sxsprof: diff needs two profiles (or spools, or folders of profiles): BASE NEW\n%s",
            sxsprof_usage);
    return 2;
  }
  guint formats = 0;
  SxsViewKind kind = SXS_VIEW_N_KINDS;
  g_autofree char *base = NULL;
  if (!sxsprof_diff_setup(format, output, view, &formats, &kind, &base))
    return 2;
  g_autoptr(GPtrArray) base_side = g_ptr_array_new_with_free_func(sxsprof_profile_free);
  g_autoptr(GPtrArray) new_side = g_ptr_array_new_with_free_func(sxsprof_profile_free);
  GPtrArray *sides[2] = {base_side, new_side};
  const SxsProfileModel *models[2];
  for (int s = 0; s < 2; s++) {
    if (!sxsprof_load_path(paths->pdata[s], 0, sides[s]))
      return 1;
    /* Each side cut on its own clock: the same window of two runs. */
    if ((from.given || to.given) && !sxsprof_slice_profiles(sides[s], &from, &to))
      return 2;
    models[s] = sxsprof_profiles_merge(sides[s]);
  }
  SxsViewFilter filter = {.runtime_id = (int)runtime, .thread = thread, .by_line = by_line};
  SxsprofDiffRender r = {.model = {models[0], models[1]},
                         .filter = {filter, filter},
                         .name = {paths->pdata[0], paths->pdata[1]},
                         .formats = formats,
                         .base = base,
                         .options = {.exact_names = exact, .absolute = absolute},
                         .kind = kind,
                         .top = (guint)top,
                         .color = isatty(STDOUT_FILENO),
                         .per_runtime = TRUE,
                         .untagged = TRUE};
  return sxsprof_render_diff(&r);
}
