/* sxsprof report: reads saved profiles (files or folders of them) into the profile model, merges
 * several into one, and renders the formats asked for: files beside a prefix, and the terminal
 * summary on stdout. It never changes a profile. */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sxs_formats.h"
#include "sxs_spool.h"
#include "sxs_timeline.h"
#include "sxsprof.h"

/* Do two paths name the same file (both existing)? */
static gboolean same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Parses a whole number option value in [min, max]; FALSE after printing why. */
static gboolean parse_number(const char *option, const char *value, long min, long max, long *ret) {
  char *end = NULL;
  errno = 0;
  long v = value ? strtol(value, &end, 10) : 0;
  if (!value || !*value || *end || errno || v < min || v > max) {
    fprintf(stderr, "sxsprof: %s needs a number from %ld to %ld, not \"%s\"\n", option, min, max, value ? value : "");
    return FALSE;
  }
  *ret = v;
  return TRUE;
}

/* Parses a size in bytes, "1048576", "512K", "64M" or "2G" (powers of 1024), from 1 byte to 1 TiB;
 * FALSE after printing why. */
static gboolean parse_size(const char *option, const char *value, guint64 *ret) {
  char *end = NULL;
  errno = 0;
  guint64 v = value && g_ascii_isdigit(*value) ? g_ascii_strtoull(value, &end, 10) : 0;
  guint shift = 0;
  if (end && *end && !end[1])
    shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 64;
  else if (end && *end)
    shift = 64;
  if (!end || errno || shift == 64 || v == 0 || v > (G_GUINT64_CONSTANT(1) << (40 - shift))) {
    fprintf(stderr, "sxsprof: %s needs a size from 1 byte to 1T, such as 4096, 512K, 64M or 2G, not \"%s\"\n", option,
            value ? value : "");
    return FALSE;
  }
  *ret = v << shift;
  return TRUE;
}

/* report --phases: each profile's busy and idle stretches. */
static int print_phases(GPtrArray *profiles) {
  int status = 0;
  for (guint i = 0; i < profiles->len; i++) {
    const SxsprofProfile *p = profiles->pdata[i];
    g_autoptr(GArray) phases = sxs__timeline_phases(p->model, 100000, 300000);
    if (!phases) {
      fprintf(stderr, "sxsprof: %s: no phases to find: %s\n", p->path,
              p->model->timeline.present ? "the profile has no samples on its timeline"
                                         : "the profile has no timeline");
      status = 1;
      continue;
    }
    fprintf(stdout, "phases of %s (from its samples in steps of 100 ms; seconds since the program started):\n",
            p->path);
    for (guint j = 0; j < phases->len; j++) {
      const SxsTimelinePhase *ph = &g_array_index(phases, SxsTimelinePhase, j);
      /* A short first or last busy stretch is the start-up or the shut-down. */
      guint64 run = g_array_index(phases, SxsTimelinePhase, phases->len - 1).end_us;
      gboolean short_one = phases->len > 1 && (ph->end_us - ph->start_us) * 5 < run;
      const char *what = !ph->busy                           ? "idle"
                         : j == 0 && short_one               ? "startup"
                         : j + 1 == phases->len && short_one ? "shutdown"
                                                             : "busy";
      fprintf(stdout, "  %8.3f - %8.3f  %-8s %8" G_GUINT64_FORMAT " samples", (double)ph->start_us / 1e6,
              (double)ph->end_us / 1e6, what, ph->samples);
      if (ph->busy && ph->top && ph->samples)
        fprintf(stdout, "  top: %s (%.0f%%)", ph->top, 100.0 * (double)ph->top_samples / (double)ph->samples);
      fprintf(stdout, "    --from %.3f --to %.3f\n", (double)ph->start_us / 1e6, (double)ph->end_us / 1e6);
    }
  }
  return status;
}

/* The value of --opt VALUE or --opt=VALUE at argv[*i]; NULL when it is another option. */
static const char *option_value(int argc, char **argv, int *i, const char *name, gboolean *ret_missing) {
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

/* The runtime of m a --compare selector names: its id ("2"), a version prefix ("8.0"), or its
 * folder or library path; -1 after printing why when none or several do. */
static int compare_runtime(const SxsProfileModel *m, const char *selector) {
  char *end = NULL;
  long id = strtol(selector, &end, 10);
  gboolean numeric = *selector && !*end;
  int found = -1, n = 0;
  for (guint i = 0; i < m->runtimes->len; i++) {
    const SxsRuntimeModel *r = m->runtimes->pdata[i];
    gboolean match;
    if (numeric)
      match = r->id == id;
    else if (strchr(selector, '/'))
      match = r->path && g_str_has_prefix(r->path, selector);
    else
      match = r->version && g_str_has_prefix(r->version, selector) &&
              (r->version[strlen(selector)] == '\0' || r->version[strlen(selector)] == '.' ||
               selector[strlen(selector) - 1] == '.');
    if (match && found != r->id) {
      found = r->id;
      n++;
    }
  }
  if (n == 1)
    return found;
  GString *list = g_string_new(NULL);
  for (guint i = 0; i < m->runtimes->len; i++) {
    const SxsRuntimeModel *r = m->runtimes->pdata[i];
    g_string_append_printf(list, "%s%d (%s)", i ? ", " : "", r->id, r->version ? r->version : "version unknown");
  }
  fprintf(stderr, "sxsprof: --compare: %s runtime is \"%s\"; the profile has %s\n", n ? "more than one" : "no",
          selector, list->len ? list->str : "none");
  g_string_free(list, TRUE);
  return -1;
}

/* report --compare A,B: runtime B against runtime A of one profile (or of several merged). */
static int report_compare(GPtrArray *paths, const char *compare, const char *format, const char *output,
                          const char *view, const char *thread, gboolean by_line, gboolean exact, gboolean absolute,
                          guint top, const SxsprofMoment *from, const SxsprofMoment *to) {
  g_auto(GStrv) pair = g_strsplit(compare, ",", -1);
  if (g_strv_length(pair) != 2 || !*pair[0] || !*pair[1]) {
    fprintf(stderr, "sxsprof: --compare needs two runtimes, A,B (index, version or path), not \"%s\"\n", compare);
    return 2;
  }
  guint formats = 0;
  SxsViewKind kind = SXS_VIEW_N_KINDS;
  g_autofree char *base = NULL;
  if (!sxsprof_diff_setup(format, output, view, &formats, &kind, &base))
    return 2;
  g_autoptr(GPtrArray) profiles = g_ptr_array_new_with_free_func(sxsprof_profile_free);
  for (guint i = 0; i < paths->len; i++)
    if (!sxsprof_load_path(paths->pdata[i], 0, profiles))
      return 1;
  if ((from->given || to->given) && !sxsprof_slice_profiles(profiles, from, to))
    return 2;
  const SxsProfileModel *m = sxsprof_profiles_merge(profiles);
  int ids[2];
  for (int s = 0; s < 2; s++)
    if ((ids[s] = compare_runtime(m, pair[s])) < 0)
      return 2;
  if (ids[0] == ids[1]) {
    fprintf(stderr, "sxsprof: --compare %s names runtime %d twice\n", compare, ids[0]);
    return 2;
  }
  g_autoptr(SxsView) tags = sxs__view_new(m, NULL);
  g_autofree char *name0 = g_strdup(sxs__view_runtime_tag(tags, ids[0]));
  g_autofree char *name1 = g_strdup(sxs__view_runtime_tag(tags, ids[1]));
  SxsprofDiffRender r = {.model = {m, m},
                         .filter = {{.runtime_id = ids[0], .thread = thread, .by_line = by_line},
                                    {.runtime_id = ids[1], .thread = thread, .by_line = by_line}},
                         .name = {name0, name1},
                         .formats = formats,
                         .base = base,
                         .options = {.exact_names = exact, .absolute = absolute},
                         .kind = kind,
                         .top = top,
                         .color = isatty(STDOUT_FILENO),
                         .untagged = TRUE};
  return sxsprof_render_diff(&r);
}

/* An endpoint as a part of a file name: "GET /orders/{id}" -> "GET_orders_id". */
static char *endpoint_slug(const char *endpoint) {
  GString *s = g_string_new(NULL);
  for (const char *c = endpoint; *c; c++) {
    if (g_ascii_isalnum(*c) || *c == '-' || *c == '.')
      g_string_append_c(s, *c);
    else if (s->len && s->str[s->len - 1] != '_')
      g_string_append_c(s, '_');
  }
  while (s->len && s->str[s->len - 1] == '_')
    g_string_truncate(s, s->len - 1);
  if (s->len == 0)
    g_string_append(s, "endpoint");
  return g_string_free(s, FALSE);
}

/* --by endpoint: the file views once more for each endpoint (names: the profile's labels) of the
 * profile at path, read again and cut to it (and to the window), as BASE.endpoint.<slug>.<format>.
 * Prints one line per endpoint written. */
static int render_by_endpoint(const char *path, const GPtrArray *names, guint64 max_size, const SxsprofMoment *from,
                              const SxsprofMoment *to, const SxsprofRender *whole) {
  g_autofree char *why = NULL;
  if (names->len == 0) {
    fprintf(stderr,
            "sxsprof: %s has no endpoints (record with --endpoints: an ASP.NET Core app on .NET 5 or "
            "later)\n",
            path);
    return 2;
  }
  int status = 0;
  for (guint i = 0; i < names->len; i++) {
    g_autoptr(GPtrArray) one = g_ptr_array_new_with_free_func(sxsprof_profile_free);
    SxsprofProfile *p = sxsprof_profile_load(path, max_size, &why);
    if (!p) {
      fprintf(stderr, "sxsprof: %s\n", why);
      return 1;
    }
    g_ptr_array_add(one, p);
    g_autofree char *label = g_strconcat("endpoint=", (const char *)names->pdata[i], NULL);
    if (((from->given || to->given) && !sxsprof_slice_profiles(one, from, to)) || !sxsprof_label_profiles(one, label))
      return 2;
    g_autofree char *slug = endpoint_slug(names->pdata[i]);
    g_autofree char *base = g_strdup_printf("%s.endpoint.%s", whole->base, slug);
    SxsprofRender r = *whole;
    r.base = base;
    r.formats &= SXS_FORMATS_ALL_FILES & ~SXS_FORMAT_BIT(SXS_FORMAT_JSON);
    r.summary_out = NULL;
    fprintf(stdout, "endpoint %s: %s.*\n", (const char *)names->pdata[i], base);
    status |= sxsprof_render(p->model, &r);
  }
  return status;
}

int sxsprof_report_main(int argc, char **argv) {
  long top = 10, runtime = 0;
  guint64 max_size = 0;
  const char *format = NULL, *output = NULL, *thread = NULL, *view = NULL, *compare = NULL, *label = NULL;
  gboolean by_line = FALSE, by_component = FALSE, by_endpoint = FALSE, exact = FALSE, absolute = FALSE, phases = FALSE;
  SxsprofMoment from = {0}, to = {0};
  g_autoptr(GPtrArray) paths = g_ptr_array_new();
  for (int i = 0; i < argc; i++) {
    const char *v;
    gboolean missing = FALSE;
    if ((v = option_value(argc, argv, &i, "--top", &missing))) {
      if (!parse_number("--top", v, 1, 100000, &top))
        return 2;
    } else if ((v = option_value(argc, argv, &i, "--runtime", &missing))) {
      if (!parse_number("--runtime", v, 1, 1000000, &runtime))
        return 2;
    } else if ((v = option_value(argc, argv, &i, "--max-size", &missing))) {
      if (!parse_size("--max-size", v, &max_size))
        return 2;
    } else if ((v = option_value(argc, argv, &i, "--format", &missing))) {
      format = v;
    } else if ((v = option_value(argc, argv, &i, "--output", &missing)) ||
               (v = option_value(argc, argv, &i, "-o", &missing))) {
      output = v;
    } else if ((v = option_value(argc, argv, &i, "--thread", &missing))) {
      thread = v;
    } else if ((v = option_value(argc, argv, &i, "--from", &missing))) {
      if (!sxsprof_parse_moment("--from", v, &from))
        return 2;
    } else if ((v = option_value(argc, argv, &i, "--to", &missing))) {
      if (!sxsprof_parse_moment("--to", v, &to))
        return 2;
    } else if (g_str_equal(argv[i], "--phases")) {
      phases = TRUE;
    } else if ((v = option_value(argc, argv, &i, "--view", &missing))) {
      view = v;
    } else if ((v = option_value(argc, argv, &i, "--compare", &missing))) {
      compare = v;
    } else if (g_str_equal(argv[i], "--lines")) {
      by_line = TRUE;
    } else if ((v = option_value(argc, argv, &i, "--label", &missing))) {
      label = v;
    } else if ((v = option_value(argc, argv, &i, "--by", &missing))) {
      if (!g_str_equal(v, "component") && !g_str_equal(v, "endpoint")) {
        fprintf(stderr, "sxsprof: --by takes component or endpoint, not \"%s\"\n", v);
        return 2;
      }
      by_component |= g_str_equal(v, "component");
      by_endpoint |= g_str_equal(v, "endpoint");
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
  if (paths->len == 0) {
    fprintf(stderr, "sxsprof: report needs a profile file or a folder of profiles\n%s", sxsprof_usage);
    return 2;
  }
  if ((exact || absolute) && !compare) {
    fprintf(stderr, "sxsprof: %s compares: it goes with --compare A,B (or sxsprof diff)\n",
            exact ? "--exact-names" : "--absolute");
    return 2;
  }
  if (compare && runtime) {
    fprintf(stderr, "sxsprof: --compare A,B names the runtimes; --runtime does not go with it\n");
    return 2;
  }
  if (compare && phases) {
    fprintf(stderr, "sxsprof: --phases prints a run's phases; it does not go with --compare\n");
    return 2;
  }
  if (compare)
    return report_compare(paths, compare, format, output, view, thread, by_line, exact, absolute, (guint)top, &from,
                          &to);
  /* Without --format: the summary, and every file format when -o names where. */
  guint formats = SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY) | (output ? SXS_FORMATS_ALL_FILES : 0);
  if (format) {
    g_autofree char *problem = NULL;
    if (!sxs__config_parse_formats(format, TRUE, &formats, &problem)) {
      fprintf(stderr, "sxsprof: --format: %s\n", problem);
      return 2;
    }
  }
  SxsViewKind kind = SXS_VIEW_N_KINDS;
  if (view && !sxsprof_parse_view(view, &kind))
    return 2;
  g_autofree char *base = NULL;
  if (output) {
    base = sxs__formats_base(output);
    if (!sxsprof_make_output_folder(base, FALSE, "nothing was written"))
      return 2;
    g_autofree char *problem = NULL;
    if (sxs__config_check_output(base, FALSE, &problem) < 0) {
      fprintf(stderr, "sxsprof: %s (-o %s); nothing was written\n", problem, output);
      return 2;
    }
  }

  int status = 0;
  g_autoptr(GPtrArray) profiles = g_ptr_array_new_with_free_func(sxsprof_profile_free);
  for (guint i = 0; i < paths->len; i++) {
    const char *path = paths->pdata[i];
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
      guint before = profiles->len, skipped = 0;
      if (!sxsprof_load_folder(path, max_size, profiles, &skipped)) {
        status = 1;
      } else if (profiles->len == before) {
        fprintf(stderr, "sxsprof: no sxsprof profile in folder %s\n", path);
        status = 1;
      } else if (skipped) {
        fprintf(stderr, "sxsprof: %u .json file%s in %s %s not sxsprof profiles, skipped\n", skipped,
                skipped == 1 ? "" : "s", path, skipped == 1 ? "is" : "are");
      }
      continue;
    }
    g_autofree char *why = NULL;
    SxsprofProfile *p = sxsprof_profile_load(path, max_size, &why);
    if (!p) {
      fprintf(stderr, "sxsprof: %s\n", why);
      status = 1;
      continue;
    }
    g_ptr_array_add(profiles, p);
  }
  if (status != 0 || profiles->len == 0)
    return status ? status : 1;
  sxsprof_profiles_sort(profiles);
  if ((from.given || to.given) && !sxsprof_slice_profiles(profiles, &from, &to))
    return 2;
  if (label && !sxsprof_label_profiles(profiles, label))
    return 2;
  if (phases)
    return print_phases(profiles);
  if (by_endpoint && profiles->len != 1) {
    fprintf(stderr, "sxsprof: --by endpoint renders one profile's endpoints; %u profiles were given\n", profiles->len);
    return 2;
  }

  /* Files of one profile go beside it unless -o says where; several need -o, and so does a cut (the
   * files beside a profile are its whole run's). */
  if (!base && (formats & SXS_FORMATS_ALL_FILES) && (from.given || to.given || label)) {
    fprintf(stderr,
            "sxsprof: %s with files needs -o PREFIX: the files beside the profile are its whole "
            "run's; nothing was written\n",
            label ? "--label" : "--from/--to");
    return 2;
  }
  if (by_endpoint && !(formats & SXS_FORMATS_ALL_FILES & ~SXS_FORMAT_BIT(SXS_FORMAT_JSON))) {
    fprintf(stderr, "sxsprof: --by endpoint writes files (a flame graph per endpoint): give -o PREFIX or --format "
                    "svg\n");
    return 2;
  }
  if (!base && (formats & SXS_FORMATS_ALL_FILES)) {
    if (profiles->len > 1) {
      fprintf(stderr, "sxsprof: --format with files needs -o PREFIX when %u profiles are rendered together\n",
              profiles->len);
      return 2;
    }
    const char *path = ((SxsprofProfile *)profiles->pdata[0])->path;
    /* A spool's views go where its profile would be: X.spool -> X.svg. */
    g_autofree char *profile = g_str_has_suffix(path, SXS_SPOOL_SUFFIX) ? sxs__spool_profile_path(path) : NULL;
    base = sxs__formats_base(profile ? profile : path);
    if (!profile)
      formats &= ~SXS_FORMAT_BIT(SXS_FORMAT_JSON); /* the profile itself is already there */
  }

  if (formats == 0) {
    fprintf(stderr, "sxsprof: %s is already the profile in JSON; nothing to write\n",
            ((SxsprofProfile *)profiles->pdata[0])->path);
    return 0;
  }
  /* Never write over a profile being read: -o a with a.json among the inputs. */
  for (int f = 0; f < SXS_N_FORMATS; f++) {
    const char *suffix = sxs__format_suffix((SxsFormat)f);
    if (!(formats & SXS_FORMAT_BIT(f)) || !suffix)
      continue;
    g_autofree char *target = g_strconcat(base, suffix, NULL);
    for (guint i = 0; i < profiles->len; i++)
      if (same_file(target, ((SxsprofProfile *)profiles->pdata[i])->path)) {
        fprintf(stderr, "sxsprof: -o %s would write over the profile %s it reads; nothing was written\n", output,
                target);
        return 2;
      }
  }

  SxsprofRender r = {
      .formats = formats,
      .base = base,
      .filter = {.runtime_id = (int)runtime, .thread = thread, .by_line = by_line, .by_component = by_component},
      .render = {.top = (guint)top, .color = isatty(STDOUT_FILENO), .kind = kind},
      .summary_out = stdout,
      .progress = isatty(STDERR_FILENO)};
  gboolean summary = formats & SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY);
  if (profiles->len == 1) {
    const SxsprofProfile *p = profiles->pdata[0];
    if (summary)
      fprintf(stdout, "profile %s:\n", p->path);
    int status = sxsprof_render(p->model, &r);
    if (by_endpoint && (!label || status == 0))
      status |= render_by_endpoint(p->path, p->model->timeline.labels, max_size, &from, &to, &r);
    return status;
  }
  /* Several: each one's summary, then all of them as one profile. */
  if (summary) {
    SxsprofRender each = r;
    each.formats = SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY);
    for (guint i = 0; i < profiles->len; i++) {
      const SxsprofProfile *p = profiles->pdata[i];
      fprintf(stdout, "profile %s:\n", p->path);
      sxsprof_render(p->model, &each);
    }
    guint n_runtimes = 0, n_profiled = 0;
    for (guint i = 0; i < profiles->len; i++) {
      const GPtrArray *rts = ((SxsprofProfile *)profiles->pdata[i])->model->runtimes;
      for (guint j = 0; j < rts->len; j++) {
        n_runtimes++;
        n_profiled += ((const SxsRuntimeModel *)rts->pdata[j])->status == SXS_RUNTIME_PROFILING;
      }
    }
    fprintf(stdout, "%u profiles, %u runtimes (%u profiled):\n", profiles->len, n_runtimes, n_profiled);
    for (guint i = 0; i < profiles->len; i++)
      sxsprof_profile_list_line(profiles->pdata[i], stdout);
    fprintf(stdout, "merged:\n");
  }
  SxsProfileModel *merged = sxsprof_profiles_merge(profiles);
  return sxsprof_render(merged, &r);
}
