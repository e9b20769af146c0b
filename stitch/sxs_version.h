/* sxs_version: product versions of runtimes ("10.0.12", "8.0.0-rc.1.23419.4", "2.0.0+abc"), the
 * one parser of that grammar for the whole project: the config's runtime= selector, runsxs's
 * framework lookup, the runtime-folder check and the capability record all use it. */
#pragma once

#include <glib.h>

/* Most numeric components a version may have. */
#define SXS_VERSION_MAX_PARTS 8

/* A parsed version. pre and build point into the parsed text. */
typedef struct {
  int n;                               /* numeric components, 1..SXS_VERSION_MAX_PARTS */
  guint64 part[SXS_VERSION_MAX_PARTS]; /* the components; those past n are 0 */
  const char *pre;                     /* after '-': a prerelease such as "rc.1", NULL when none */
  const char *build;                   /* after '+': build metadata, NULL when none */
} SxsVersion;

/* Parses numbers (at most 18 digits each) separated by single dots, optionally followed by
 * '-' and a non-empty prerelease and/or '+' and non-empty build metadata, both of letters,
 * digits, '.' and '-'. Returns TRUE and fills *ret (untouched on failure). No allocation. */
gboolean sxs__version_parse(const char *text, SxsVersion *ret);

/* Orders two versions: numerically component by component (missing components are 0), then a
 * release after its own prereleases, prereleases by their text; build metadata is ignored.
 * Returns <0, 0, >0. */
int sxs__version_compare(const SxsVersion *a, const SxsVersion *b);

/* Does v begin with the components of prefix ("10.0" begins 10.0.12 and 10.0.0-rc.1, not
 * 10.01.0; "1" does not begin 10.0.12)? A prefix with more components than v does not. Suffixes
 * are not compared. */
gboolean sxs__version_starts_with(const SxsVersion *v, const SxsVersion *prefix);

/* Is the version text at least major.minor? FALSE when it does not parse. */
gboolean sxs__version_at_least(const char *text, guint64 major, guint64 minor);
