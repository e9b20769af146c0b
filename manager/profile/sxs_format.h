/* sxs_format: the files a profile is rendered to, their names and file suffixes. What the config
 * (formats=), the launcher (--format) and the renderers (views/sxs_formats.h) share; here, below
 * the views, so that the config grammar links no renderer. */
#pragma once

/* The files a profile is rendered to; formats= holds a set of SXS_FORMAT_BIT()s. */
typedef enum {
  SXS_FORMAT_JSON = 0,   /* <base>.json: the profile itself, always written by the profiler */
  SXS_FORMAT_SPEEDSCOPE, /* <base>.speedscope.json */
  SXS_FORMAT_FOLDED,     /* <base>.folded */
  SXS_FORMAT_SVG,        /* <base>.svg */
  SXS_FORMAT_PPROF,      /* <base>.pb.gz */
  SXS_FORMAT_TRACE,      /* <base>.trace.json: the timeline in the trace-event format (Perfetto, chrome://tracing) */
  SXS_FORMAT_SUMMARY,    /* the terminal summary (sxsprof only, never a file the profiler writes) */
  SXS_N_FORMATS
} SxsFormat;
#define SXS_FORMAT_BIT(f) (1u << (f))
#define SXS_FORMATS_ALL_FILES (SXS_FORMAT_BIT(SXS_FORMAT_SUMMARY) - 1)
/* What `sxsprof run` and `attach` write when nothing says which: every file but the trace, the one
 * view whose size follows the samples (tens of bytes each, ten megabytes for a sampled build; its
 * writing alone cost such a build 10 % more CPU): `--format all` or `trace`, or `sxsprof report
 * --format trace` later, write it. */
#define SXS_FORMATS_DEFAULT_FILES (SXS_FORMATS_ALL_FILES & ~SXS_FORMAT_BIT(SXS_FORMAT_TRACE))

/* "json", "speedscope", "folded", "svg", "pprof", "summary"; "unknown" for anything else. */
const char *sxs__format_name(SxsFormat f);

/* The file name suffix of a format (".speedscope.json", ".pb.gz", ...); NULL for the summary and
 * anything else. */
const char *sxs__format_suffix(SxsFormat f);
