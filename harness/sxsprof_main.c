/* sxsprof: the command people run. main dispatches to the commands, each in its own file:
 *
 *   sxsprof run [options] [--] COMMAND [ARGS...]                          (sxsprof_run.c)
 *   sxsprof report PROFILE.json|FOLDER ... [--format LIST] [-o PREFIX] ...  (sxsprof_report.c)
 *   sxsprof diff BASE NEW [--format LIST] [-o PREFIX] ...                  (sxsprof_diff.c)
 *   sxsprof attach PID [--runtime N|VERSION|PATH] [--duration SEC] ...     (sxsprof_attach.c)
 *
 * What they share is in sxsprof_common.c. */
#include <glib.h>
#include <stdio.h>

#include "sxsprof.h"

int main(int argc, char **argv) {
  if (argc < 2 || g_str_equal(argv[1], "--help") || g_str_equal(argv[1], "-h")) {
    fputs(sxsprof_usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (g_str_equal(argv[1], "run"))
    return sxsprof_run_main(argc - 2, argv + 2);
  if (g_str_equal(argv[1], "report"))
    return sxsprof_report_main(argc - 2, argv + 2);
  if (g_str_equal(argv[1], "diff"))
    return sxsprof_diff_main(argc - 2, argv + 2);
  if (g_str_equal(argv[1], "attach"))
    return sxsprof_attach_main(argc - 2, argv + 2);
  fprintf(stderr, "sxsprof: unknown command \"%s\"\n%s", argv[1], sxsprof_usage);
  return 2;
}
