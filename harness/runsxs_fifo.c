/* runsxs_fifo: lets several runtimes of one process create their debugger transport pipes.
 *
 * Every CoreCLR creates /tmp/clr-debug-pipe-<pid>-<key>-in and -out at startup, named after the
 * process (pid, and a key from its start time), not after the runtime: two runtimes of one
 * process want the same two names. Each does unlink(), then mkfifo(); when two runtimes start
 * together, one's mkfifo() can land between the other's unlink() and mkfifo(), fail with EEXIST,
 * and that runtime's coreclr_initialize() fails with E_FAIL (seen about once in 30 concurrent
 * starts of two 2.0 runtimes, and with 10.0 + 2.0):
 *
 *   runtime A: unlink(in)  mkfifo(in) = 0
 *   runtime B:    unlink(in)             mkfifo(in) = -1 EEXIST  -> coreclr_initialize: E_FAIL
 *
 * The runsxs executable is linked -rdynamic and exports mkfifo(), which every libcoreclr.so
 * imports; for a debugger pipe that already exists as a FIFO, it answers success: the pipe the
 * runtime asked for is there. Both runtimes then share the pipes, so a managed debugger can reach
 * only one of them, as before. Every other mkfifo() is the C library's. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A runtime's debugger transport pipe: a file name that starts with "clr-debug-pipe-". */
static int is_debug_pipe(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  return strncmp(base, "clr-debug-pipe-", strlen("clr-debug-pipe-")) == 0;
}

/* The C library's mkfifo() is mknodat() of a FIFO; that is called here directly. */
__attribute__((visibility("default"))) int mkfifo(const char *path, mode_t mode) {
  int r = mknodat(AT_FDCWD, path, (mode & 07777) | S_IFIFO, 0);
  if (r == 0 || errno != EEXIST || !is_debug_pipe(path))
    return r;
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISFIFO(st.st_mode))
    return 0;
  errno = EEXIST;
  return -1;
}
