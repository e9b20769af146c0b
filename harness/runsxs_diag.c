/* runsxs --diagnostics: one diagnostics IPC socket per runtime, by renaming each runtime's bind().
 *
 *   coreclr_initialize (runtime N, on its runsxs thread)
 *     EEStartup -> diagnostics server -> default listen port
 *       name = ${TMPDIR}/dotnet-diagnostic-<pid>-<key>-socket        the same for every runtime
 *       bind(fd, name) ───► bind() exported by runsxs (linked -rdynamic)
 *                             the caller's code lies in runtime N's libcoreclr.so (dladdr),
 *                             else the thread is initializing runtime N
 *                           ──► libc bind(fd, ${TMPDIR:-/tmp}/sxsprof-runsxs-<pid>-rt<N>.sock)
 *       listen, accept, ... on that socket: runtime N's own server answers there
 *
 * Without the renaming, the runtime that binds the shared name first owns it and every later one
 * fails with EADDRINUSE and runs without a diagnostics server. CoreCLR ignores listen-mode entries
 * of DOTNET_DiagnosticPorts (it only honours connect mode), so the per-runtime name cannot be set
 * through the environment. The runtime keeps its own copy of the shared name and unlinks it at
 * shutdown; nothing is there, so that is harmless. runsxs removes the renamed sockets itself. */
#include "runsxs_diag.h"
#include "sxs_diag.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "runsxs_framework.h"

#define DIAG_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

/* One runtime that gets a socket. Filled before any runtime starts, read-only afterwards. */
typedef struct {
  int index;     /* 1-based, command-line order */
  dev_t lib_dev; /* identity of the libcoreclr.so it loads */
  ino_t lib_ino;
  char socket_path[DIAG_PATH_MAX]; /* NUL-terminated; fits a sockaddr_un */
} DiagRuntime;

/* Process-wide state of --diagnostics (a program, not a library). Owner: runsxs_diag_setup(),
 * which fills it before any runtime starts; read without a lock afterwards. */
static struct {
  gboolean enabled;
  DiagRuntime *runtimes;
  int count;
  char shared_prefix[64]; /* "dotnet-diagnostic-<pid>-": the start of the shared name's last part */
} diag;

/* The runtime the calling thread is initializing (0: none). */
static __thread int thread_runtime;

/* The kernel's bind(), which is all the C library's is on Linux: no dlsym, so a first bind()
 * from a signal handler stays async-signal-safe. Context: any thread. */
static int real_bind(int fd, const struct sockaddr *addr, socklen_t len) {
  return (int)syscall(SYS_bind, fd, addr, len);
}

/* TRUE when addr names this process's shared default diagnostics socket:
 * <any folder>/dotnet-diagnostic-<our pid>-<key>-socket. */
static gboolean is_shared_name(const struct sockaddr *addr, socklen_t len) {
  if (!addr || len <= offsetof(struct sockaddr_un, sun_path) || addr->sa_family != AF_UNIX)
    return FALSE;
  const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
  size_t max = MIN((size_t)len - offsetof(struct sockaddr_un, sun_path), DIAG_PATH_MAX);
  size_t n = strnlen(un->sun_path, max);
  if (n == 0 || n == max)
    return FALSE;
  const char *base = memrchr(un->sun_path, '/', n);
  base = base ? base + 1 : un->sun_path;
  static const char suffix[] = "-socket";
  size_t base_len = n - (size_t)(base - un->sun_path);
  size_t prefix_len = strlen(diag.shared_prefix);
  return base_len > prefix_len + strlen(suffix) && strncmp(base, diag.shared_prefix, prefix_len) == 0 &&
         strcmp(base + base_len - strlen(suffix), suffix) == 0;
}

/* The runtime whose diagnostics server is binding: the one whose libcoreclr.so holds the calling
 * code, else the one the calling thread is initializing; NULL when neither is known. */
static const DiagRuntime *runtime_of_caller(const void *caller) {
  Dl_info info;
  struct stat st;
  if (caller && dladdr(caller, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0) {
    for (int i = 0; i < diag.count; i++) {
      if (diag.runtimes[i].lib_dev == st.st_dev && diag.runtimes[i].lib_ino == st.st_ino)
        return &diag.runtimes[i];
    }
  }
  for (int i = 0; i < diag.count; i++) {
    if (diag.runtimes[i].index == thread_runtime)
      return &diag.runtimes[i];
  }
  return NULL;
}

/* The bind() every runtime's import binds to (runsxs is linked -rdynamic). With --diagnostics, a
 * runtime binding this process's shared default diagnostics name gets its own name instead;
 * every other call goes to the C library unchanged. glibc declares the address argument as a
 * transparent union under _GNU_SOURCE, hence its type here.
 * Context: any thread; only the renaming path takes the loader lock (dladdr). */
__attribute__((visibility("default"))) int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len) {
#if defined(__USE_GNU) && !defined(__cplusplus)
  const struct sockaddr *sa = addr.__sockaddr__;
#else
  const struct sockaddr *sa = addr;
#endif
  if (!diag.enabled || !is_shared_name(sa, len))
    return real_bind(fd, sa, len);
  const DiagRuntime *rt = runtime_of_caller(__builtin_return_address(0));
  if (!rt)
    return real_bind(fd, sa, len);
  struct sockaddr_un own;
  memset(&own, 0, sizeof own);
  own.sun_family = AF_UNIX;
  memcpy(own.sun_path, rt->socket_path, sizeof own.sun_path);
  int r = real_bind(fd, (const struct sockaddr *)&own, sizeof own);
  if (r != 0) {
    int err = errno;
    fprintf(stderr, "runsxs: [%d] diagnostics socket %s: %s; this runtime has no diagnostics port\n", rt->index,
            rt->socket_path, g_strerror(err));
    fflush(stderr);
    errno = err;
  }
  return r;
}

/* ${TMPDIR:-/tmp} without trailing slashes, as the runtimes' own default name uses it. */
static char *diag_temp_dir(void) {
  const char *tmp = g_getenv("TMPDIR");
  char *dir = g_strdup(tmp && *tmp ? tmp : "/tmp");
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/')
    dir[--n] = '\0';
  return dir;
}

/* Removes a socket left at path by a dead process that had our pid; refuses anything else. */
static gboolean clear_stale_socket(const char *path, GError **error) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return TRUE;
  if (!S_ISSOCK(st.st_mode)) {
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                "--diagnostics: %s exists and is not a socket; remove it or set TMPDIR to another folder", path);
    return FALSE;
  }
  if (unlink(path) != 0 && errno != ENOENT) {
    int err = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err), "--diagnostics: cannot remove the stale %s: %s",
                path, g_strerror(err));
    return FALSE;
  }
  return TRUE;
}

gboolean runsxs_diag_setup(RunsxsRuntime *const *runtimes, int count, GError **error) {
  g_autofree char *dir = diag_temp_dir();
  g_autofree DiagRuntime *table = g_new0(DiagRuntime, MAX(count, 1));
  int n = 0;
  for (int i = 0; i < count; i++) {
    const RunsxsRuntime *rt = runtimes[i];
    /* .NET Core 2.x has no diagnostics server: it never binds a socket. */
    if (g_strcmp0(rt->fw->version, "unknown") != 0 && runsxs_version_compare(rt->fw->version, "3") < 0)
      continue;
    g_autofree char *lib = g_build_filename(rt->dir, "libcoreclr.so", NULL);
    struct stat st;
    if (stat(lib, &st) != 0) {
      int err = errno;
      g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(err), "--diagnostics: %s: %s", lib, g_strerror(err));
      return FALSE;
    }
    g_autofree char *path = g_strdup_printf("%s/" SXS_RUNSXS_SOCKET_PREFIX "%d-rt%d" SXS_RUNSXS_SOCKET_SUFFIX, dir,
                                            (int)getpid(), rt->index);
    if (strlen(path) >= DIAG_PATH_MAX) {
      g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NAMETOOLONG,
                  "--diagnostics: the socket name %s is %zu bytes long, a socket name holds at most %zu; set TMPDIR "
                  "to a shorter folder",
                  path, strlen(path), DIAG_PATH_MAX - 1);
      return FALSE;
    }
    if (!clear_stale_socket(path, error))
      return FALSE;
    DiagRuntime *d = &table[n++];
    d->index = rt->index;
    d->lib_dev = st.st_dev;
    d->lib_ino = st.st_ino;
    g_strlcpy(d->socket_path, path, sizeof d->socket_path);
  }
  g_snprintf(diag.shared_prefix, sizeof diag.shared_prefix, "dotnet-diagnostic-%d-", (int)getpid());
  diag.runtimes = g_steal_pointer(&table);
  diag.count = n;
  diag.enabled = TRUE;
  return TRUE;
}

void runsxs_diag_thread_runtime(int index) {
  thread_runtime = index;
}

void runsxs_diag_remove_sockets(void) {
  for (int i = 0; i < diag.count; i++)
    unlink(diag.runtimes[i].socket_path);
}
