/* Writes a large synthetic profile for the report benchmark: sxs_gen_profile OUT.json STACKS
 * DEPTH FUNCTIONS SAMPLES (the model of tests/unit/sxs_view_fixture.h, rendered as the profiler
 * renders its own). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "sxs_json.h"
#include "sxs_profile.h"
#include "sxs_view_fixture.h"

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: sxs_gen_profile OUT.json STACKS DEPTH FUNCTIONS SAMPLES\n");
    return 2;
  }
  g_autoptr(SxsProfileModel) m = fixture_large_model((guint)atoi(argv[2]), (guint)atoi(argv[3]), (guint)atoi(argv[4]),
                                                     g_ascii_strtoull(argv[5], NULL, 10));
  gsize len = 0;
  g_autofree char *text = sxs__profile_render_json(m, &len);
  int r = sxs__file_write_atomic(argv[1], text, len, 0);
  if (r < 0) {
    fprintf(stderr, "sxs_gen_profile: cannot write %s: %s\n", argv[1], g_strerror(-r));
    return 1;
  }
  return 0;
}
