/* sxs_svg: what the flame graph writers share (sxs_write_svg.c defines them): the style sheet and
 * the script of the interactive SVG (hover, search, zoom), and escaping text into it. A writer
 * that uses the script draws <g class="f" data-name data-total data-depth> frames, each with a
 * <title>, a <rect x width> and a <text>, and the ids the script looks up (sxs-status,
 * sxs-search, sxs-matched, sxs-reset-zoom). */
#pragma once

#include <glib.h>

extern const char sxs__svg_style[];
extern const char sxs__svg_script[];

/* Appends text escaped for XML content and attribute values; text that is not valid UTF-8 is made
 * valid first. */
void sxs__svg_append_text(GString *out, const char *text);
