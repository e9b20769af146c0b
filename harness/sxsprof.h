/* sxsprof: what the launcher (sxsprof_main.c) and the report (sxsprof_report.c) share: reading
 * saved profiles into the model and rendering them in the formats the user asked for. */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "sxs_config.h"
#include "sxs_profile.h"
#include "sxs_profile_read.h"
#include "sxs_view.h"

extern const char sxsprof_usage[];

/* One profile read from disk. */
typedef struct {
  char *path;
  SxsProfileModel *model; /* owned */
} SxsprofProfile;

void sxsprof_profile_free(gpointer p);

/* Reads one profile; NULL with *ret_error set (one sentence naming the file) when it cannot. */
SxsprofProfile *sxsprof_profile_load(const char *path, char **ret_error);

/* "dotnet Demo.dll ...", cut to max characters. Caller frees. */
char *sxsprof_profile_command(const SxsprofProfile *p, guint max);

/* "sxsprof: pid 42 (dotnet app.dll): 2 runtimes (10.0.1, 2.0.0 declined) -> PATH" on out. */
void sxsprof_profile_list_line(const SxsprofProfile *p, FILE *out);

/* Profiles of a folder: every *.json there that is an sxsprof profile (views beside them such as
 * *.speedscope.json are not), by pid. Returns FALSE after printing why when the folder cannot be
 * read; *ret_skipped counts .json files that are not profiles. */
gboolean sxsprof_load_folder(const char *folder, GPtrArray *profiles, guint *ret_skipped);

/* Sorts profiles by pid. */
void sxsprof_profiles_sort(GPtrArray *profiles);

/* What to render and where. */
typedef struct {
  guint formats;        /* SXS_FORMAT_BIT()s */
  const char *base;     /* files go to <base><suffix>; NULL: no files */
  SxsViewFilter filter; /* --runtime, --thread */
  SxsRenderOptions render;
  FILE *summary_out; /* where the summary goes */
  gboolean progress; /* a progress line on stderr while rendering (stderr is a terminal) */
} SxsprofRender;

/* Renders model as r says: the files, then the summary. Prints one line per file written and one
 * per format left out (nothing to show) on stderr, prefixed "sxsprof: ". Returns 0, or 1 after
 * printing why (no partial files are left behind). */
int sxsprof_render(const SxsProfileModel *model, const SxsprofRender *r);

int sxsprof_cmd_report(int argc, char **argv);
