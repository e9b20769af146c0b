/* sxs_format: the name and file suffix of each format. */
#include "sxs_format.h"

#include <stddef.h>

static const struct {
  const char *name;
  const char *suffix;
} formats[SXS_N_FORMATS] = {
    [SXS_FORMAT_JSON] = {"json", ".json"},       [SXS_FORMAT_SPEEDSCOPE] = {"speedscope", ".speedscope.json"},
    [SXS_FORMAT_FOLDED] = {"folded", ".folded"}, [SXS_FORMAT_SVG] = {"svg", ".svg"},
    [SXS_FORMAT_PPROF] = {"pprof", ".pb.gz"},    [SXS_FORMAT_TRACE] = {"trace", ".trace.json"},
    [SXS_FORMAT_SUMMARY] = {"summary", NULL},
};

const char *sxs__format_name(SxsFormat f) {
  return (unsigned)f < SXS_N_FORMATS ? formats[f].name : "unknown";
}

const char *sxs__format_suffix(SxsFormat f) {
  return (unsigned)f < SXS_N_FORMATS ? formats[f].suffix : NULL;
}
